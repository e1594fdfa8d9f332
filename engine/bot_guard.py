"""The guard around a call into bot code in this process (:func:`call_bot`): a bot that
forks its process, or raises ``KeyboardInterrupt`` itself, is named at fault, and the
person's Ctrl-C still stops the run.

Process and signal handling, kept out of the simulator (which stays pure) and beside
:mod:`engine.bot_process` (a bot that thinks in a child process of its own): the
simulator, a networked table and a tournament's workers all call bots through here.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

T = TypeVar("T")

#: os.fork() calls made in this process so far (counted by an at-fork hook).
_forks = 0
#: A pipe on which a forked copy that came back out of a bot's call says so (made at
#: the first call; inherited by the copy).
_escape_pipe: tuple[int, int] | None = None


def _count_fork() -> None:
    global _forks
    _forks += 1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_parent=_count_fork)

#: Seconds the caller waits, after a call that forked, for a copy to say it came back
#: (a copy comes back within a millisecond or so; a child a library forks, such as a
#: ``multiprocessing`` pool's worker, never does, and costs this wait to its bot).
FORK_NEWS_WAIT = 0.3


class BotGuardFault(Exception):
    """A bot did, in its call, what :func:`call_bot` stops and names as its fault."""


class BotForked(BotGuardFault):
    """A bot called ``os.fork()`` and the copy came back out of its call (the copy was
    stopped at once; the bot is at fault)."""

    def __init__(self) -> None:
        super().__init__("forked its process (os.fork): the copy was stopped")


class BotInterrupted(BotGuardFault):
    """A bot raised ``KeyboardInterrupt`` itself: no Ctrl-C (SIGINT) came during its
    call, in a process that counts them (:func:`count_interrupts`)."""

    def __init__(self) -> None:
        super().__init__("raised KeyboardInterrupt")


class BotExited(BotGuardFault):
    """A bot called ``os._exit`` in its call, on the thread that called it: that would
    end the whole program (a simulation, a tournament's worker, a player's screen), every
    result before it lost and no word of why."""

    def __init__(self, status: object) -> None:
        super().__init__(f"called os._exit({status!r}), which ends a program at once: "
                         "stopped")


#: SIGINTs (Ctrl-C, or ``_thread.interrupt_main()``) this process has received since
#: :func:`count_interrupts`.
_sigints = 0


#: While set (:func:`taking_interrupts`): asked at each SIGINT whether the program takes it
#: itself (True: no ``KeyboardInterrupt``; the line mode reads a first Ctrl-C as "leave?").
_taker: Callable[[], bool] | None = None


def _on_sigint(signum: int, frame: Any) -> None:
    global _sigints
    _sigints += 1
    if _taker is not None and _taker():
        return
    signal.default_int_handler(signum, frame)


def taking_interrupts(take: Callable[[], bool] | None) -> Callable[[], bool] | None:
    """Let ``take`` decide at each SIGINT counted here whether it raises
    ``KeyboardInterrupt`` (False) or is taken by the program (True); None: every SIGINT
    raises again. Returns the one before. Counting goes on either way, so a bot's own
    ``raise KeyboardInterrupt`` is still told from the person's Ctrl-C."""
    global _taker
    before, _taker = _taker, take
    return before


def counting() -> bool:
    """Whether this process counts its SIGINTs (:func:`count_interrupts` took them)."""
    return signal.getsignal(signal.SIGINT) is _on_sigint


def count_interrupts() -> None:
    """From now on, count every SIGINT this process receives, raising
    ``KeyboardInterrupt`` as Python's own handler does. A ``KeyboardInterrupt`` that
    comes out of a bot's call with no SIGINT during it is then the bot's own ``raise``,
    a fault naming the bot (:class:`BotInterrupted`); it was taken for the person's
    Ctrl-C, and ``simulate`` stopped with "interrupted", naming no bot. Does nothing
    where Python's handler is not the one in place (SIGINT ignored, as in a shell's
    background job, or a handler of someone else's) or off the main thread."""
    if threading.current_thread() is threading.main_thread() \
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_sigint)


def interrupts() -> int:
    """SIGINTs counted so far (see :func:`count_interrupts`)."""
    return _sigints


def own_interrupt(before: int) -> bool:
    """Whether a ``KeyboardInterrupt`` that came out of a bot's call, begun when
    :func:`interrupts` said ``before``, was the bot's own: SIGINTs are counted here and
    none came since (a bot that put a handler of its own in place is given the benefit
    of the doubt: its ``KeyboardInterrupt`` is taken for Ctrl-C, as before)."""
    return _sigints == before and signal.getsignal(signal.SIGINT) is _on_sigint


#: Whether a ``KeyboardInterrupt`` out of a bot is the bot's fault (set in a
#: tournament's worker process, which the person at the keyboard never interrupts
#: alone); elsewhere it is taken for Ctrl-C.
INTERRUPT_IS_BOT_FAULT = False


def call_bot(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``, bot code run in this process. A bot that forks (``os.fork()``)
    and returns in both processes ran the whole program twice (every report printed by
    each copy; a tournament's worker copies never ended): a copy that comes back out of
    the call ends at once (``os._exit``), saying so on a pipe, and here the bot is at
    fault (:class:`BotForked`). A child that a library forks and that never returns
    here (``multiprocessing``) is no fault. A ``KeyboardInterrupt`` the bot raised
    itself, with no Ctrl-C during the call, comes out as :class:`BotInterrupted`, and a
    Ctrl-C that the bot caught comes out as ``KeyboardInterrupt`` all the same (where
    :func:`count_interrupts` counts them). A bot that calls ``os._exit`` on the thread
    that called it raises :class:`BotExited` instead (elsewhere, in a thread of its own
    or a child it forked, ``os._exit`` ends that process as it always does; a bot that
    holds on to the function from before its call is not stopped, and one that holds on
    to the stand-in past its call, an exit handler registered with ``os._exit``, ends
    the process as ``os._exit`` does). The bot is called with no asyncio event loop
    running in its thread (the full-screen table runs one): a bot that thinks with
    ``asyncio.run`` works there as it does everywhere else."""
    global _escape_pipe
    if _escape_pipe is None and hasattr(os, "fork"):
        r, w = os.pipe()
        os.set_blocking(r, False)
        _escape_pipe = (r, w)
    pid, forks, sigints = os.getpid(), _forks, _sigints
    real_exit, caller = os._exit, threading.get_ident()
    calling = True

    def exit_in_call(status: int) -> NoReturn:
        # only during the call: the stand-in kept past it (``atexit.register(os._exit,
        # 7)`` in ``choose``) raised BotExited in the exit handlers, a traceback after
        # the report
        if calling and os.getpid() == pid and threading.get_ident() == caller:
            raise BotExited(status)
        real_exit(status)

    loop = _leave_event_loop()
    os._exit = exit_in_call
    try:
        answer = fn(*args)
    except KeyboardInterrupt:
        if own_interrupt(sigints):
            raise BotInterrupted() from None
        raise
    finally:
        calling = False
        os._exit = real_exit
        _back_to_event_loop(loop)
        if os.getpid() != pid:
            _copy_ends()
        elif _forks != forks and _copy_came_back():
            raise BotForked()
    if _sigints != sigints and signal.getsignal(signal.SIGINT) is _on_sigint:
        # the person pressed Ctrl-C while the bot thought, and the bot caught it (a bare
        # ``except:`` around its search) and answered: the Ctrl-C still stops the run
        # (a slow bot that swallowed it every time could not be stopped)
        raise KeyboardInterrupt
    return answer


def _leave_event_loop() -> Any:
    """The asyncio event loop running in this thread, if any, set aside for a bot's call
    (``asyncio.run`` in ``choose`` raised "cannot be called from a running event loop"
    at the full-screen table alone: a bot fault there, fine everywhere else). None when
    none runs; asyncio is not imported for it."""
    aio = sys.modules.get("asyncio")
    if aio is None:
        return None
    loop = aio.events._get_running_loop()
    if loop is None:
        return None
    policy = aio.events.get_event_loop_policy()
    local = getattr(policy, "_local", None)
    aio.events._set_running_loop(None)
    # asyncio.run (its Runner) leaves the thread with no current loop when it is done
    return loop, getattr(local, "_loop", None)


def _back_to_event_loop(saved: Any) -> None:
    if saved is None:
        return
    aio = sys.modules["asyncio"]
    loop, current = saved
    aio.events._set_running_loop(loop)
    local = getattr(aio.events.get_event_loop_policy(), "_local", None)
    if local is not None and current is not None:
        local._loop = current


def _copy_ends() -> None:
    """In a copy forked by a bot, back out of its call: say so, end without a word (no
    exit handler, no buffered output of the parent's is run or written twice)."""
    if _escape_pipe is not None:
        try:
            os.write(_escape_pipe[1], b"!")
        except OSError:
            pass
    os._exit(0)


def _copy_came_back() -> bool:
    """Whether a copy forked during the last call came back (waits up to
    :data:`FORK_NEWS_WAIT` for its word: the copy runs on its own)."""
    if _escape_pipe is None:
        return False
    r = _escape_pipe[0]
    try:
        ready, _w, _x = select.select([r], [], [], FORK_NEWS_WAIT)
        if not ready:
            return False
        return bool(os.read(r, 4096))
    except (OSError, ValueError):
        return False
