"""The guard around a call into bot code in this process (:func:`call_bot`): a bot that
forks its process, or raises ``KeyboardInterrupt`` itself, is named at fault, and the
person's Ctrl-C still stops the run; and what comes out of a bot's call, read without
running its code (:func:`tamed`, :func:`tamed_answer`, :func:`frees_with_code_held`).

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
import types
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar, cast

from .errors import _SHOWN, one_line

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


class BotClosedDescriptors(BotGuardFault):
    """A bot closed (or put something else in place of) file descriptors the program
    keeps open for itself (:func:`keep_descriptor`): the report's standard output, the
    log. They were put back where a copy could be; the bot is at fault."""

    def __init__(self, closed: list[tuple[int, str]], lost: bool) -> None:
        back = ("it could not be put back" if lost and len(closed) == 1 else
                "they could not all be put back" if lost else
                "it was put back" if len(closed) == 1 else "they were put back")
        if len(closed) == 1:
            (fd, what), = closed
            said = f"the program's file descriptor {fd} ({what}; {back})"
        else:
            whats = " and ".join(w for _fd, w in closed[:2]) + (
                f" and {len(closed) - 2} more" if len(closed) > 2 else "")
            said = f"{len(closed)} of the program's file descriptors ({whats}; {back})"
        super().__init__(f"closed {said}: a bot closes only the files it opened itself")


class BotExited(BotGuardFault):
    """A bot called ``os._exit`` in its call, on the thread that called it: that would
    end the whole program (a simulation, a tournament's worker, a player's screen), every
    result before it lost and no word of why."""

    def __init__(self, status: object) -> None:
        super().__init__(f"called os._exit({status!r}), which ends a program at once: "
                         "stopped")


class BotLoweredLimits(BotGuardFault):
    """A bot lowered resource limits of its process (``resource.setrlimit``) that the
    program could not put back: they are the whole process's, and a lowered limit of
    processor time ended it later (SIGXCPU) naming whichever bot moved then."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(f"lowered its process's {' and '.join(names)} for good "
                         "(resource.setrlimit): a bot's process is the program's too")


class BotLeakedDescriptors(BotGuardFault):
    """A bot's call kept file descriptors open until its process had almost none left
    to open: the program's own files (a transcript, the log) and the next plug-in's
    loading then failed, blamed on whoever came next."""

    def __init__(self, kept: int, left: int, limit: int) -> None:
        super().__init__(f"kept {kept} more file descriptors open in this call, leaving "
                         f"its process {left} of its {limit}: a bot closes the files it "
                         "opens")


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


#: The program's own file descriptors that a bot's call must leave as they were
#: (:func:`keep_descriptor`): descriptor -> (what it is, its file's (st_dev, st_ino),
#: whether it is inherited by the processes started, a copy kept high up, or -1, and
#: what says whether the program still holds it, or None: always).
_kept: dict[int, tuple[str, tuple[int, int], bool, int, Callable[[], bool] | None]] = {}

#: Kept descriptors a bot closed that could not be put back (their copies closed too):
#: the program's code that wrote on them writes elsewhere (:func:`descriptor_lost`).
_lost: set[int] = set()

#: How high up (at most) the copies of the kept descriptors are made: above the range a
#: bot that closes "every descriptor" walks (``range(3, 1024)``, or to the soft limit).
_COPIES_AT = 65536


def kept_copies() -> list[int]:
    """The descriptors of the copies :func:`keep_descriptor` keeps (high up)."""
    return [entry[3] for entry in _kept.values() if entry[3] >= 0]


def _copy_high(fd: int) -> int:
    """A close-on-exec copy of ``fd`` high up among the descriptors, out of the way of a
    bot's ``os.closerange(3, 1024)`` (or up to its soft limit: the limit is raised for the
    moment of the copy, within the hard one; a descriptor stays open above the limit).
    -1 when no copy can be made."""
    try:
        import fcntl
        import resource
    except ImportError:                       # not POSIX: a copy where it falls
        try:
            return os.dup(fd)
        except OSError:
            return -1
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    top = _COPIES_AT if hard == resource.RLIM_INFINITY else min(hard, _COPIES_AT)
    raised = soft != resource.RLIM_INFINITY and soft < top
    try:
        if raised:
            resource.setrlimit(resource.RLIMIT_NOFILE, (top, hard))
        limit = top if raised or soft == resource.RLIM_INFINITY else min(soft, top)
        return int(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, max(3, limit - 64)))
    except (OSError, ValueError):
        try:
            return int(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3))
        except OSError:
            return -1
    finally:
        if raised:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
            except (OSError, ValueError):
                pass


def keep_descriptor(fd: int, what: str, held: Callable[[], bool] | None = None) -> None:
    """Keep ``fd``, a descriptor of the program's own that bots' calls in this process
    must leave alone (``what`` says what it is, "the log"; a descriptor kept before under
    the same ``what`` is let go). A bot that closes it (a double ``os.close`` of a number
    the program had taken since, a loop closing every descriptor) ended ``simulate``
    with "Bad file descriptor" and no word of the bot: after each plug-in's call,
    :func:`descriptors_kept` puts it back from a copy and names the bot
    (:class:`BotClosedDescriptors`). Let it
    go (:func:`release_descriptor`) before the program closes it itself, or give
    ``held``, asked after a call that closed it whether the program still holds it (the
    log, whose handler a bot's ``logging.basicConfig(force=True)`` closes: no fault)."""
    for other in [k for k, v in _kept.items() if v[0] == what or k == fd]:
        release_descriptor(other)
    _lost.discard(fd)
    try:
        st = os.fstat(fd)
        inheritable = os.get_inheritable(fd)
    except OSError:
        return
    _kept[fd] = (what, (st.st_dev, st.st_ino), inheritable, _copy_high(fd), held)


def keep_open_descriptors(what: str) -> None:
    """Keep (:func:`keep_descriptor`) every descriptor above the standard three open now
    and not kept yet, each said as ``what``: in a process that has run no plug-in yet
    and holds only its own (a tournament's worker, its pipes to the tournament, which a
    bot that closed them broke: its matches were forfeited as "ended its worker
    process"). Linux only (where ``/proc/self/fd`` lists them)."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):
        return
    copies = {entry[3] for entry in _kept.values()}
    for fd in sorted(fds):
        if fd > 2 and fd not in _kept and fd not in copies:
            keep_descriptor(fd, f"{what} ({fd})")


def release_descriptor(fd: int) -> None:
    """Stop keeping ``fd`` (:func:`keep_descriptor`), its copy closed."""
    entry = _kept.pop(fd, None)
    if entry is not None and entry[3] >= 0:
        try:
            os.close(entry[3])
        except OSError:
            pass


def _identity(fd: int) -> tuple[int, int] | None:
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _descriptors_back() -> tuple[list[tuple[int, str]], bool]:
    """The kept descriptors a call closed or replaced, and what each is, each put back
    from its copy; and whether any could not be (its copy gone too: it is no longer
    kept)."""
    closed: list[tuple[int, str]] = []
    lost = False
    for fd, (what, ident, inheritable, copy, held) in sorted(_kept.items()):
        if _identity(fd) == ident:
            continue
        if held is not None and not held():
            release_descriptor(fd)       # closed by the program's own code, as it should
            continue
        closed.append((fd, what))
        try:
            if copy < 0 or _identity(copy) != ident:
                raise OSError("its copy is gone")
            os.dup2(copy, fd, inheritable=inheritable)
        except OSError:
            lost = True
            release_descriptor(fd)
            _lost.add(fd)
    return closed, lost


def descriptor_lost(fd: int) -> bool:
    """Whether ``fd``, kept (:func:`keep_descriptor`), was closed by a bot and could not
    be put back: what the program wrote there is to go elsewhere (the number may be
    another file's now)."""
    return fd in _lost


def descriptors_kept(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``, a plug-in's code: a descriptor the program keeps
    (:func:`keep_descriptor`) that it closed is put back, however the call ends, and a
    call that returned is then the bot's fault (:class:`BotClosedDescriptors`; one that
    raised is at fault already, for what it raised). The built-in bots are not checked
    (a few microseconds a descriptor, at every move)."""
    try:
        answer = fn(*args)
    finally:
        closed, lost = _descriptors_back() if _kept else ([], False)
    if closed:
        raise BotClosedDescriptors(closed, lost)
    return answer


#: The thread of :func:`signals_reach_process`: this process's id and the thread's.
_signal_thread: tuple[int, int | None] | None = None


def signals_reach_process() -> None:
    """Start, once in this process (POSIX), a thread of the program's own that blocks no
    signal and waits for ever. A plug-in that blocked signals on the thread that calls
    it (``signal.pthread_sigmask(SIG_BLOCK, {SIGALRM, SIGPROF})``, a section it wants
    left alone) and then went on computing was never stopped: its time limit's SIGALRM
    and SIGPROF, the person's Ctrl-C, waited on its mask, and ``simulate`` and a
    tournament hung for ever. The kernel gives a signal sent to the process to a thread
    that does not block it, this one; Python then runs its handler in the main thread,
    the bot's, as always (a thread's mask is its own: no bot's code runs here)."""
    global _signal_thread
    if not hasattr(signal, "pthread_sigmask"):
        return
    if _signal_thread is not None and _signal_thread[0] == os.getpid():
        return
    ready = threading.Event()

    def wait() -> None:
        signal.pthread_sigmask(signal.SIG_SETMASK, ())
        ready.set()
        threading.Event().wait()

    thread = threading.Thread(target=wait, daemon=True, name="millebornes-signals")
    thread.start()
    ready.wait(5.0)
    _signal_thread = (os.getpid(), thread.ident)


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
        keep_descriptor(r, "the pipe that finds a bot's forked copy")
        keep_descriptor(w, "the pipe that finds a bot's forked copy, its end to write")
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


#: The interpreter's own readers of a class's and an exception's fields: they run no
#: code of a plug-in's (``kind.__name__`` runs its metaclass's ``__getattribute__``,
#: ``exc.args`` its class's, ``isinstance`` reads ``exc.__class__``).
_TYPE_NAME = type.__dict__["__name__"].__get__
_TYPE_MRO = type.__dict__["__mro__"].__get__
_TYPE_DICT = type.__dict__["__dict__"].__get__
_TYPE_FLAGS = type.__dict__["__flags__"].__get__
_ARGS = BaseException.__dict__["args"].__get__
_TRACEBACK = BaseException.__dict__["__traceback__"].__get__
_HEAPTYPE = 1 << 9          # Py_TPFLAGS_HEAPTYPE: a class made by a class statement

#: What a class of a plug-in's exception may not define for the program to read it as it
#: reads any exception: the ways an attribute's reading, writing, comparing or freeing
#: runs the plug-in's code.
_HOOKS = frozenset({
    "__getattribute__", "__getattr__", "__setattr__", "__delattr__", "__class__",
    "__dict__", "args", "__traceback__", "__cause__", "__context__",
    "__suppress_context__", "__notes__", "__del__", "__eq__", "__ne__", "__hash__",
    "with_traceback", "msg", "filename", "lineno", "offset", "text", "print_file_and_line"})


def tamed(exc: BaseException) -> BaseException | None:
    """A stand-in for ``exc``, a plug-in's exception, when the program cannot read it
    without running the plug-in's code: its class has a metaclass of its own or
    defines one of :data:`_HOOKS` (a metaclass whose ``__getattribute__`` never ends
    held ``simulate`` for ever as it named the class, after the bot's time limit was
    over; so did a class's own ``__getattribute__`` as the traceback was read). The
    stand-in is of a plain class of the same name, under the nearest of the
    interpreter's exception classes (a ``KeyboardInterrupt`` stays one, a
    ``MemoryError`` too), with the arguments when they are plain values, and the
    traceback, so that where the bot raised is still said. None: ``exc`` is plain
    (nothing is read but through the interpreter's own readers)."""
    kind = type(exc)
    mro = _TYPE_MRO(kind)
    if type(kind) is type and type(mro) is tuple and all(
            type(k) is type and (not _TYPE_FLAGS(k) & _HEAPTYPE or _plain_fields(k))
            for k in mro):
        return None
    name = _TYPE_NAME(kind)
    name = one_line(name)[:60] if type(name) is str and name.isidentifier() else "Exception"
    args = _ARGS(exc)
    args = args if type(args) is tuple and all(type(a) in _SHOWN for a in args[:8]) \
        and len(args) <= 8 else ()
    base: type[BaseException] = Exception
    if type(mro) is tuple:
        base = next((k for k in mro if type(k) is type and issubclass(k, BaseException)
                     and not _TYPE_FLAGS(k) & _HEAPTYPE), Exception)
    for parent in (base, Exception):
        try:
            stand_in: BaseException = type(name, (parent,), {"__module__": "plugin"})(*args)
            break
        except Exception:  # noqa: BLE001 - a base that wants other arguments
            args = ()
    else:
        stand_in = Exception(name)
    return stand_in.with_traceback(_TRACEBACK(exc))


def _plain_fields(kind: type) -> bool:
    """Whether class ``kind`` defines none of :data:`_HOOKS` but the interpreter's own
    field for an instance's ``__dict__`` or ``__weakref__`` (a class compiled by mypyc,
    as the engine's own exceptions are with ``MILLEBORNES_MYPYC=1``, lists them: its
    ``PluginFailed`` was taken for a plug-in's hooked class and replaced by a stand-in
    that the program's ``except PluginFailed`` no longer caught)."""
    fields = _TYPE_DICT(kind)
    return all(name in ("__dict__", "__weakref__")
               and type(fields[name]) in (types.GetSetDescriptorType,
                                          types.MemberDescriptorType)
               for name in _HOOKS.intersection(fields))


#: What the class of a bot's answer may not define for the program to read it as it
#: reads any object (``isinstance`` reads its ``__class__``, the words of a fault its
#: class's name).
_ANSWER_HOOKS = frozenset({"__getattribute__", "__getattr__", "__class__"})


def frees_with_code(obj: object) -> bool:
    """Whether freeing ``obj`` runs code of its class's own (a ``__del__`` in its class
    or a base), read without running any; a metaclass of its own counts as yes."""
    kind = type(obj)
    return type(kind) is not type or any(
        type(k) is not type or (_TYPE_FLAGS(k) & _HEAPTYPE and "__del__" in _TYPE_DICT(k))
        for k in _TYPE_MRO(kind))


#: Objects a bot holds that are not its to free, and that lead to the whole program (a
#: class to its module's globals, a function or a frame to theirs): not looked through.
_NOT_THE_BOTS = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                 types.CodeType, types.FrameType)


def frees_with_code_held(obj: object, most: int = 2000) -> bool:
    """Whether freeing ``obj`` may run code of its own, or of an object it holds: a
    ``__del__`` (:func:`frees_with_code`), or a finalizer of the interpreter's (a
    generator's ``finally``, a file's ``close``) in the class of one of the objects
    reached from it through the references the interpreter follows (never through a
    class, a module, a function or a frame: the program's too), read without running
    any code of theirs; more than ``most`` objects reached count as yes (a bot in a
    cycle whose statistics object had a ``__del__`` that never ended was not looked at,
    and held ``simulate`` for ever where Python collected it)."""
    import gc
    seen = {id(obj)}
    todo = [obj]
    while todo:
        held = todo.pop()
        kind = type(held)
        if frees_with_code(held) or any(
                k is not object and "__del__" in _TYPE_DICT(k) for k in _TYPE_MRO(kind)):
            return True
        for ref in gc.get_referents(held):
            if id(ref) in seen:
                continue
            seen.add(id(ref))
            if len(seen) > most:
                return True
            # (by identity: a class's == is its metaclass's code)
            if not any(k is n for k in _TYPE_MRO(type(ref)) for n in _NOT_THE_BOTS):
                todo.append(ref)
    return False


def tamed_answer(answer: T) -> T:
    """``answer``, a bot's, or a plain stand-in of its class's name when the program
    cannot read it without running the bot's code (a class of its own with a metaclass
    or a ``__getattribute__`` that never ends: ``simulate`` hung for ever saying what
    the bot chose, after its time limit). The stand-in is no move: a fault, said as any
    other object ("chose an object of type Move")."""
    kind = type(answer)
    if kind in _SHOWN:            # (the engine's own enums too: "a card's kind")
        return answer
    meta = type(kind)
    if meta is type and all(type(k) is type and (not _TYPE_FLAGS(k) & _HEAPTYPE
                                                 or _ANSWER_HOOKS.isdisjoint(_TYPE_DICT(k)))
                            for k in _TYPE_MRO(kind)):
        return answer
    name = _TYPE_NAME(kind)
    name = one_line(name)[:60] if type(name) is str and name.isidentifier() else "object"
    stand_in: Any = type(name, (), {"__module__": "plugin"})()
    return cast(T, stand_in)
