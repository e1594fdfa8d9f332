"""A per-decision time limit for plug-in bots played in this process (``tournament``,
``simulate``): a bot that hangs loses its match (a bot fault, like a crash) instead of
stopping the whole run.

At a networked table a bot already thinks in a child process that must answer within
``cli.bot_process.ANSWER_WITHIN`` seconds; simulations play thousands of matches in one
process, where a child per bot would cost more than the games. Here the limit is a
``SIGALRM`` interval timer around each ``choose`` (POSIX, main thread only; elsewhere the
bot runs unbounded, as before). It interrupts Python code, ``time.sleep`` and most blocking
calls, not a C extension that never returns to the interpreter. The timer rings again
every second after the limit; a bot that catches every one (a bare ``except:`` around a
wait) ends the process after :data:`GRACE_RINGS` of them, saying so on stderr (nothing
else can stop it, and a run that never ends is worse). Built-in bots are not
wrapped: their budgets are their own (``search:ms=N``), and a large ``playouts`` budget is
the user's choice.

The same timer bounds the making of a plug-in bot (its factory, :data:`MAKE_LIMIT`), and a
plug-in's memory is bounded by :func:`cap_memory` (a soft ``RLIMIT_DATA`` on the process
that runs it: its allocation fails with ``MemoryError``, a bot fault like any other, where
it would otherwise take the machine's memory). What a bot writes to the standard output,
even below ``sys.stdout`` (``os.write(1, ...)``, a subprocess), never reaches a report
(:func:`report_to_stdout`).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import logging
import math
import os
import random
import select
import signal
import subprocess
import sys
import threading
import time
import types
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TextIO, TypeVar

import engine.bot_guard as bot_guard
from engine import (
    Action,
    BotFailed,
    BotTooSlow,
    HandState,
    PluginFailed,
    SeatController,
    exception_words,
)
from engine.bot_guard import (
    BotGuardFault,
    call_bot,
    frees_with_code_held,
    interrupts,
    keep_descriptor,
    own_interrupt,
    release_descriptor,
    tamed_answer,
)
from engine.bots import BOTS, declared_options, make_bot, parse_bot_spec, plugin_bots
from engine.simulate import answer_words, legal_choice

from .bot_process import (
    ANSWER_WITHIN,
    bot_label,
    cap_memory,
    end_descendants,
    exit_words,
    log_where_raised,
    within_bound,
)
from .i18n import _
from .logs import keep_log
from .supervise import _Marked

log = logging.getLogger("cli.bots")

#: Seconds a plug-in bot may think about one decision (the networked table's bound).
DECISION_LIMIT = ANSWER_WITHIN


#: Seconds a plug-in's factory may take to make its bot.
MAKE_LIMIT = ANSWER_WITHIN

#: Stops (one a second after the limit) a bot may catch before the process ends.
GRACE_RINGS = 5

T = TypeVar("T")


class _Alarm(BaseException):
    """Raised inside the bot by the timer: a BaseException, so that a bot's own
    ``except Exception`` does not swallow it."""


class _Timer:
    """At most ``seconds`` for one call in the main thread (POSIX ``SIGALRM``; elsewhere
    the call runs unbounded, as before)."""

    def __init__(self, seconds: float, name: str) -> None:
        self.seconds = seconds
        self.name = name
        self._armed = False
        self._rings = 0

    def _ring(self, signum: int, frame: Any) -> None:
        if not self._armed:
            return
        self._rings += 1
        if self._rings > GRACE_RINGS:
            # it caught every stop (a bare ``except:`` around a wait): nothing in Python
            # can end it, and a wait without end is worse than the end of this run
            # (in a tournament's worker only that worker ends: its match is forfeited)
            line = _("millebornes: the bot %(bot)s went on past its time limit (%(seconds)s s) "
                     "and ignored %(times)d stops; its process ends here") % {
                         "bot": self.name[:40], "seconds": f"{self.seconds:g}",
                         "times": GRACE_RINGS}
            os.write(2, (line + "\n").encode("utf-8", "replace"))
            os._exit(3)
        raise _Alarm

    def call(self, fn: Callable[[], T], late: str) -> T:
        """``fn()``, or :class:`engine.BotTooSlow` saying ``late`` past the limit."""
        if not hasattr(signal, "setitimer") or \
                threading.current_thread() is not threading.main_thread():
            return fn()
        # the process's signals reach it even when a bot blocks them on this thread
        bot_guard.signals_reach_process()
        before = signal.signal(signal.SIGALRM, self._ring)
        try:
            try:
                self._armed = True
                self._rings = 0
                # rings again every second after the limit: a bot that catches the first
                # stop gets another, and another (see _ring)
                signal.setitimer(signal.ITIMER_REAL, self.seconds, 1.0)
                # a bot that holds the interpreter in C code (a regular expression that
                # backtracks, a huge computation) never lets the ring above run: past
                # every ring, in CPU time, SIGPROF ends the process (``simulate`` and a
                # tournament's worker waited for ever), where it was said on stderr
                # (:func:`say_where_held`)
                _prof_ends_process()
                signal.setitimer(signal.ITIMER_PROF, cpu_bound(self.seconds))
                return fn()
            finally:
                self._armed = False
                signal.setitimer(signal.ITIMER_PROF, 0)
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, before)
        except _Alarm:
            raise BotTooSlow(late) from None


def cpu_bound(seconds: float) -> float:
    """The CPU seconds past which a plug-in's call that holds the interpreter ends its
    process (SIGPROF): more than it can use, on every core, before the rings of
    :class:`_Timer` stop it wherever Python runs (its limit and :data:`GRACE_RINGS`)."""
    return (seconds + GRACE_RINGS + 2) * max(1, os.cpu_count() or 1)


#: The descriptor :func:`say_where_held` was given (none yet: empty).
_SAID_ON: list[int] = []


def _prof_ends_process() -> None:
    """SIGPROF ends the process again, saying where (:func:`say_where_held`), if a
    plug-in's earlier call put a handler of its own in its place (ignored it, or a
    sampling profiler's): a call that then held the interpreter in C code past its
    limit was never ended, and ``simulate`` waited for ever."""
    if signal.getsignal(signal.SIGPROF) == signal.SIG_DFL:
        return
    try:
        signal.signal(signal.SIGPROF, signal.SIG_DFL)
    except (OSError, ValueError):
        return
    if _SAID_ON:
        import faulthandler
        faulthandler.unregister(signal.SIGPROF)  # (registered, it would not be put back)
        say_where_held(_SAID_ON[0])


def say_where_held(fd: int) -> bool:
    """Where a plug-in held the interpreter past its :func:`cpu_bound`: Python's stack,
    the bot's own file and line among them, on descriptor ``fd`` as SIGPROF ends the
    process (a C-level handler: the interpreter is not free to run a Python one). Whether
    it is set up (POSIX)."""
    if not hasattr(signal, "SIGPROF"):
        return False
    import faulthandler
    try:
        faulthandler.register(signal.SIGPROF, file=fd, all_threads=False, chain=True)
    except (OSError, ValueError, RuntimeError):
        return False
    _SAID_ON[:] = [fd]
    return True


class Bounded:
    """``bot`` with at most ``seconds`` per ``choose``; other attributes pass through (the
    search bot's ``decision_seconds``)."""

    def __init__(self, bot: SeatController, seconds: float, name: str = "",
                 quiet: bool = False, seat: int | None = None) -> None:
        self.bot = bot
        self.seconds = seconds
        #: the bot as named in --bots (a failing plug-in is said by this name)
        self.spec = name
        #: how the log names it: with its seat, when known (two seats of one plug-in)
        self._label = bot_label(name, seat)
        #: on a player's screen (``play --in-process``): the bot's prints go nowhere and
        #: its reads of stdin find nothing (they took the player's typed commands)
        self.quiet = quiet
        self._timer = _Timer(seconds, name or str(getattr(bot, "name", type(bot).__name__)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.bot, name)

    def choose(self, view: HandState, legal: list[Action]) -> Action:
        # its own copy of the rules and the seating: the view's are the engine's (frozen,
        # but a bot's object.__setattr__(view.rules, "match_target", 100) made every match
        # one hand, and object.__setattr__(view.seating, "n_teams", 1) ended simulate with
        # "unexpected error: IndexError", naming no bot, every match played lost)
        view = view._replace(rules=copy.copy(view.rules), seating=copy.copy(view.seating))
        if not self.quiet:
            try:
                # (an answer the program cannot read without the bot's code: a stand-in)
                return self._timer.call(lambda: tamed_answer(within_bound(self.bot.choose,
                                                                          view, legal)),
                                        f"did not move within {self.seconds:g} s")
            except BotTooSlow as exc:
                keep_log()           # where it was when its time ran out (a loop)
                if exc.__context__ is not None:
                    log_where_raised(self._label, exc.__context__, view.phase, str(exc))
                raise
            except (BotGuardFault, KeyboardInterrupt):
                raise
            except BaseException as exc:
                keep_log()
                log_where_raised(self._label, exc, view.phase)
                raise
            finally:
                keep_log()
        # on a player's screen (play --in-process), which says a fault in a line: the log
        # keeps it whole, as a networked table's does (the log had no word of it)
        sigints = interrupts()
        try:
            try:
                with silenced(stdin=True):
                    answer = self._timer.call(
                        lambda: tamed_answer(within_bound(self.bot.choose, view, legal)),
                        f"did not move within {self.seconds:g} s")
            finally:
                keep_log()           # the log says why it failed, whatever the bot did
        except KeyboardInterrupt:
            if own_interrupt(sigints):   # no Ctrl-C came: the bot raised it
                log.warning("bot %s raised KeyboardInterrupt; a built-in bot plays for it "
                            "from now on", self._label)
            raise                # else the player's Ctrl-C
        except (BotTooSlow, BotGuardFault) as exc:
            log.warning("bot %s %s; a built-in bot plays for it from now on", self._label, exc)
            if isinstance(exc, BotTooSlow) and exc.__context__ is not None:
                log_where_raised(self._label, exc.__context__, view.phase, str(exc))
            raise
        except BaseException as exc:
            log.warning("bot %s raised %s; a built-in bot plays for it from now on",
                        self._label, exception_words(exc))
            log_where_raised(self._label, exc, view.phase)
            raise
        if legal_choice(answer, legal) is None:
            log.warning("bot %s chose %s, which is not a legal move now; a built-in bot "
                        "plays for it from now on", self._label, answer_words(answer))
        return answer


def make_bounded_bot(spec: str, seed: int, seconds: float | None = None,
                     quiet: bool = False, seat: int | None = None) -> SeatController:
    """:func:`engine.make_bot`, with a plug-in bot bounded to ``seconds`` per decision
    (default :data:`DECISION_LIMIT`); ``quiet``: see :class:`Bounded`; ``seat``: the seat
    it plays, named in the log."""
    name, _ = parse_bot_spec(spec)
    if name in BOTS:
        return make_bot(spec, seed)
    cap_memory()
    try:
        bot = make_plugin_bot(spec, seed)
    finally:
        keep_log()
    return Bounded(bot, DECISION_LIMIT if seconds is None else seconds, spec, quiet, seat)


def free_bots(bots: list[SeatController], specs: Sequence[str]) -> None:
    """Let go of a match's bots, seat ``s``'s playing ``specs[s]`` (``bots`` holds the
    caller's last references: it is emptied), each plug-in within its time limit and
    its bounds: what a plug-in's ``__del__`` does as it is
    freed is its code too, and one that never ended (a pool joined, statistics saved to
    a drive that hangs) held ``simulate``, or a tournament's worker and the tournament
    with it, for ever after the match. One that runs past the limit is stopped there, a
    fault of its seat's bot (:class:`engine.BotFailed`). (A bot in a cycle of references
    is freed when Python collects its garbage, anywhere: a collection at each match
    cost 40 ms.)"""
    fault: BotFailed | None = None
    while bots:
        seat = len(bots) - 1
        spec = specs[seat] if seat < len(specs) else ""
        if parse_bot_spec(spec)[0] in BOTS:
            del bots[-1]
            continue
        words = _free_last(bots, spec)
        if words is not None and fault is None:
            fault = BotFailed(seat, f"was not freed well after the match ({words})")
    if fault is not None:
        raise fault


def let_go(exc: BaseException, bots: list[SeatController], specs: Sequence[str]) -> None:
    """After a fault that stops a match (``exc``): its bots freed as :func:`free_bots`
    frees them (a fault of theirs there is not said: the match is the first's), the
    frames of ``exc``'s tracebacks cleared first, which held them. A plug-in that
    failed and whose ``__del__`` never ended held ``simulate`` for ever before its
    report, and a tournament's worker before its forfeit."""
    import traceback
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if cause.__traceback__ is not None:
            traceback.clear_frames(cause.__traceback__)
            cause.__traceback__ = None       # (its frames still held the bot's call's)
        cause = cause.__cause__ or cause.__context__
    with contextlib.suppress(BotFailed):
        free_bots(bots, specs)
    if any(parse_bot_spec(spec)[0] not in BOTS for spec in specs):
        # a failed call leaves its frames in cycles with its traceback: collected here,
        # the plug-ins' __del__ within their time (a collection is 40 ms: faults only)
        import gc
        _bounded_free(lambda: None if gc.collect() else None, "")


#: The plug-ins (by spec) whose bot outlived its match and a collection of the garbage
#: after it (kept by the plug-in, in a list of its own: no cycle): not collected for again.
_KEPT_BY_PLUGIN: set[str] = set()


def _plugin_object(bot: object) -> object:
    """The plug-in's own object in ``bot`` (under the program's wrappers)."""
    # (by type alone: isinstance reads a plug-in object's __class__, its own code)
    while type(bot) is Bounded or type(bot) is _Marked:
        bot = bot.bot
    return bot


def _free_last(bots: list[SeatController], spec: str) -> str | None:
    """:func:`free_bots` of the last of ``bots``, a plug-in's: what went wrong, or None.
    A bot that outlives its last reference, caught in a cycle of references
    (``self.me = self``, a tree whose nodes point back at it), is freed as the garbage
    is collected, here and within its time (it was freed whenever Python collected,
    anywhere, with no limit: a ``__del__`` that never ended held ``simulate`` for
    ever); a collection is made only for a bot whose class has a ``__del__`` and that
    outlived its drop (25-40 ms), and not again for a plug-in that keeps its bots
    itself."""
    size = len(bots)
    alive: Callable[[], object] | None = None
    own = _plugin_object(bots[-1])
    if frees_with_code_held(own):   # (a collection at each match cost 25-40 ms)
        try:
            alive = weakref.ref(own)
        except TypeError:                 # (no weak reference to it can be made)
            pass
    del own

    def drop() -> None:
        if len(bots) == size:       # (once, whoever calls it)
            del bots[-1]
    try:
        words = _bounded_free(drop, spec)
    finally:
        if len(bots) == size:
            del bots[-1]            # (it raised before its drop)
    if words is None and alive is not None and alive() is not None \
            and spec not in _KEPT_BY_PLUGIN:
        import gc
        words = _bounded_free(lambda: None if gc.collect() else None, spec)
        if alive() is not None:
            _KEPT_BY_PLUGIN.add(spec)
    return words


def _bounded_free(drop: Callable[[], None], spec: str) -> str | None:
    """``drop()``, which frees a plug-in's objects, within the plug-in's time limit and
    bounds: what went wrong, or None."""
    stopped: list[str] = []
    before = sys.unraisablehook

    def unraisable(info: Any) -> None:
        # the timer's ring, raised in the bot's __del__ (where Python can only say it)
        if isinstance(info.exc_value, _Alarm):
            stopped.append(f"its __del__ ran past {DECISION_LIMIT:g} s and was stopped")
        else:
            before(info)
    late = f"its __del__ ran past {DECISION_LIMIT:g} s and was stopped"
    sys.unraisablehook = unraisable
    try:
        try:
            _Timer(DECISION_LIMIT, spec).call(lambda: call_bot(within_bound, drop), late)
        except MemoryError:
            # its process holds all a plug-in may take (within_bound would not run it):
            # freed all the same, which gives memory back
            _Timer(DECISION_LIMIT, spec).call(drop, late)
    except (BotTooSlow, BotGuardFault) as exc:
        stopped.append(str(exc))
    finally:
        sys.unraisablehook = before
    return stopped[0] if stopped else None


def make_plugin_bot(spec: str, seed: int) -> SeatController:
    """:func:`engine.make_bot` for a plug-in, made within :data:`MAKE_LIMIT` seconds (a
    factory that never returns was a wait without end, before any match began)."""
    return _Timer(MAKE_LIMIT, spec).call(lambda: call_bot(within_bound, make_bot, spec, seed),
                                         f"was not made within {MAKE_LIMIT:g} s")


def try_make(spec: str) -> tuple[str, str] | None:
    """Make the bot of ``spec`` once, as a check before any match (seed 0): None, or what
    is wrong, as ``("options", words)`` (the bot refused its options) or ``("made",
    words)`` (a plug-in failed to load, to be made, or to be made in time), in the bot's
    own (English) words.

    A plug-in is checked in a throwaway child process (:func:`_check_in_child`), never
    here: its import is its code, and at a networked table this process holds the
    player's hand and forks the built-in bots' peers (a plug-in's import patched their
    heuristic, or read the hand, in the review). A built-in is made here."""
    name, _ = parse_bot_spec(spec)
    if name in BOTS:
        try:
            make_bot(spec, 0)
        except ValueError as exc:        # the options' own check
            return ("options", str(exc))
        return None
    return _check_in_child(spec)


#: Seconds a child process may take to start (a fresh interpreter importing the engine)
#: before the plug-in's own :data:`MAKE_LIMIT` counts.
CHECK_START = 30.0

#: The check's child: this module's :func:`_check_main`, on the parent's ``sys.path``
#: (a test's plug-in folder too), without the parent's ``__main__`` (which a
#: ``multiprocessing`` spawn imports again: the whole CLI, a second a check).
_CHECK_CODE = ("import json, sys; sys.path[:] = json.loads(sys.argv[3]); "
               "from cli.bot_limit import _check_main; _check_main()")


#: The most the check reads from its child: its answer is one line of JSON of at most
#: 1000 characters of words; a plug-in can write on that channel too (it runs there).
CHECK_REPLY_BYTES = 64 * 1024


def _check_in_child(spec: str) -> tuple[str, str] | None:
    """:func:`_made_or_why` in a child process, its answer brought back in words; a
    child that dies, outlives its limit or writes more than an answer on its channel
    (:data:`CHECK_REPLY_BYTES`: its memory was this process's to hold) is said so and
    killed, with whatever processes it started."""
    name = parse_bot_spec(spec)[0]
    try:
        proc = subprocess.Popen([sys.executable, "-c", _CHECK_CODE, spec, f"{MAKE_LIMIT!r}",
                                 json.dumps(sys.path)],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL,
                                # no terminal: a plug-in opening /dev/tty wrote on the screen
                                start_new_session=True)
    except OSError as exc:
        return ("made", f"bot {name!r} could not be checked: {exception_words(exc)}")
    try:
        start = time.monotonic()
        out = _read_within(proc, start + CHECK_START + MAKE_LIMIT,
                           note=(start + CHECK_NOTE_AFTER, lambda: _say_slow_check(name)))
    finally:
        _end_session(proc)
    if out is None:
        return ("made", f"the bot was not made within {MAKE_LIMIT:g} s")
    if len(out) > CHECK_REPLY_BYTES:
        return ("made", f"bot {name!r} wrote more than its answer while it was made")
    lines = out.decode("utf-8", "replace").strip().splitlines()
    try:
        reply: Any = json.loads(lines[-1]) if lines else "none"
    except ValueError:
        reply = "none"
    if reply is None:
        return None
    if type(reply) is dict:
        # made; the options its factory declares (what a spec that leaves them out gets)
        DECLARED[name] = _plain_options(reply.get("declared"))
        return None
    if (type(reply) is list and len(reply) == 2 and reply[0] in ("options", "made")
            and type(reply[1]) is str):
        return (reply[0], reply[1][:1000])
    return ("made", f"bot {name!r} ended its process while it was made "
                    f"({exit_words(proc.returncode)})")


#: The options the factories of the plug-ins checked in this process declare (with their
#: defaults), by bot name: read by their check's child (:func:`try_make`), where the
#: plug-in runs, never here; a tournament tells its entrants apart by them
#: (:func:`engine.bots.bot_identity`).
DECLARED: dict[str, dict[str, int | float | str]] = {}


def declared(spec: str) -> dict[str, int | float | str] | None:
    """The options the factory of ``spec``'s bot declares, as its check found them: a
    built-in's read here, a plug-in's from its last check (None: not checked)."""
    name = parse_bot_spec(spec)[0]
    factory = BOTS.get(name)
    return declared_options(factory) if factory is not None else DECLARED.get(name)


def _plain_options(data: object) -> dict[str, int | float | str]:
    """What a check's child said its factory declares, kept only as plain options: at
    most 64, each named as a parameter is, an int, a finite float or a short string (the
    plug-in can write on that channel too)."""
    out: dict[str, int | float | str] = {}
    if type(data) is not dict:
        return out
    for key, value in list(data.items())[:64]:
        if type(key) is not str or not key.isidentifier() or len(key) > 100:
            continue
        if type(value) is int or (type(value) is float and math.isfinite(value)) \
                or (type(value) is str and len(value) <= 200):
            out[key] = value
    return out


#: Seconds the check of a plug-in may take before the player is told that it runs (a bot
#: that loads a model or warms a cache in its factory: the terminal stayed blank for up
#: to a minute, and the bot is made again for each game).
CHECK_NOTE_AFTER = 2.0


def _say_slow_check(name: str) -> None:
    try:
        print(_("Starting the bot %(name)s: it is slow to start (it may take up to "
                "%(seconds)d seconds)...") % {"name": name, "seconds": int(MAKE_LIMIT)},
              file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass                     # no stderr to say it on (closed): wait all the same


def _read_within(proc: subprocess.Popen[bytes], deadline: float,
                 note: tuple[float, Callable[[], None]] | None = None) -> bytes | None:
    """What ``proc`` writes on its standard output until it ends, or None past
    ``deadline``; reading stops after :data:`CHECK_REPLY_BYTES` (more is returned).
    ``note``: at that time, if nothing has come yet, that function is called once."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    out = bytearray()
    while len(out) <= CHECK_REPLY_BYTES:
        now = time.monotonic()
        left = deadline - now
        if left <= 0:
            return None
        if note is not None and not out and now >= note[0]:
            note[1]()
            note = None
        wait = left if note is None or out else min(left, max(0.0, note[0] - now))
        if not select.select([fd], [], [], wait)[0]:
            continue
        chunk = os.read(fd, CHECK_REPLY_BYTES + 1)
        if not chunk:
            break
        out += chunk
    else:
        return bytes(out)
    # it ends: waited for without reaping it, so that its process id (its group's id)
    # stays its own until _end_session has killed the group
    while not _ended(proc.pid):
        if time.monotonic() >= deadline:
            return None     # its answer written, but it did not end
        time.sleep(0.01)
    return bytes(out)


def _ended(pid: int) -> bool:
    """Whether child ``pid`` has ended, left unreaped (``WNOWAIT``)."""
    if not hasattr(os, "waitid"):
        return True         # no waitid: _end_session's wait reaps it
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _end_session(proc: subprocess.Popen[bytes]) -> None:
    """Kill the check's child and every process of its session (its own group), then
    reap it; its channel is closed."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def _check_main() -> None:
    """The check's child (``python -c``): make the bot of ``argv[1]`` within ``argv[2]``
    seconds, write ``{"declared": options}`` or ``[kind, words]`` as JSON on the standard
    output (kept aside: the plug-in's own prints go to the null device), and end."""
    spec, limit = sys.argv[1], float(sys.argv[2])
    out = os.dup(1)
    answer = _made_or_why(spec, limit)
    try:
        os.write(out, (json.dumps(answer) + "\n").encode("utf-8", "replace"))
    finally:
        os._exit(0)    # a plug-in's threads and exit handlers do not hold the check


#: The bot the check made (:func:`_made_or_why`), never freed.
_MADE: list[SeatController] = []


def _made_or_why(spec: str, limit: float) -> tuple[str, str] | dict[str, Any]:
    """Make the bot as :func:`make_seat_bots` would (bounded in time and memory, its
    prints at the null device): ``{"declared": options}`` (the options its factory
    declares, :func:`engine.bots.declared_options`), or ``(kind, words)``."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)        # nothing it prints reaches the screen or a report
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C is the parent's to decide
    name, _ = parse_bot_spec(spec)
    cap_memory()
    try:
        # kept until the check's process ends (os._exit): freed here, a bot whose __del__
        # hangs was said "not made within 30 s"
        _MADE.append(_Timer(limit, spec).call(lambda: call_bot(within_bound, make_bot, spec, 0),
                                              f"was not made within {limit:g} s"))
    except PluginFailed as exc:      # it failed to load, or its factory failed
        # where in its own code, at the check its author meets first ("KeyError:
        # 'weights'" said nothing of where)
        where = f" (in its code, innermost last: {exc.where})" if exc.where else ""
        return ("made", str(exc) + where)
    except ValueError as exc:        # the options' own check
        return ("options", str(exc))
    except BotTooSlow as exc:
        return ("made", f"the bot {exc}")
    except BotGuardFault as exc:
        return ("made", f"bot {name!r} could not be made: {exc}")
    except BaseException as exc:  # noqa: BLE001 - whatever a plug-in's factory raises
        return ("made", f"bot {name!r} could not be made: {exception_words(exc)}")
    entry = getattr(plugin_bots().get(name), "ep", None)
    try:
        options = declared_options(entry.load()) if entry is not None else {}
    except BaseException:         # noqa: BLE001 - it loaded a moment ago: none said
        options = {}
    return {"declared": options}


@contextlib.contextmanager
def silenced(stdin: bool = False) -> Iterator[None]:
    """The standard output and error point at the null device (descriptors 1 and 2, so
    below ``sys.stdout`` too) while a plug-in runs in a process that shows a screen; with
    ``stdin``, the standard input too (a bot's read finds its end at once)."""
    fds = (0, 1, 2) if stdin else (1, 2)
    saved: list[int] = []
    devnull: int | None = None
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = [os.dup(fd) for fd in fds]
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in fds:
            os.dup2(devnull, fd)
    except (OSError, ValueError, AttributeError):
        pass     # no descriptors of its own (a test's capture): Python's streams only
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
            stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
            if stdin:
                stack.enter_context(_stdin_from(io.StringIO()))
            yield
    finally:
        for fd, old in zip(fds, saved, strict=False):
            os.dup2(old, fd)
        for fd in (*saved, *(() if devnull is None else (devnull,))):
            os.close(fd)


@contextlib.contextmanager
def _stdin_from(stream: TextIO) -> Iterator[None]:
    previous = sys.stdin
    sys.stdin = stream
    try:
        yield
    finally:
        sys.stdin = previous


#: The thread that is collecting garbage now (``gc.callbacks``), if any: the finalizers
#: (``__del__``) of a bot's leftovers run there, outside its calls.
_collecting: list[int | None] = [None]


def _note_collection(phase: str, info: dict[str, int]) -> None:
    _collecting[0] = threading.get_ident() if phase == "start" else None


def _finalizing() -> bool:
    """Whether this thread is freeing objects now: collecting garbage, in a ``__del__``
    (a bot's object freed when its last reference went) or in a ``weakref.finalize``
    callback (a bot's statistics printed as it is freed: before the report's JSON)."""
    if _collecting[0] == threading.get_ident():
        return True
    frame: types.FrameType | None = sys._getframe(2)
    for _depth in range(200):
        if frame is None:
            return False
        if frame.f_code.co_name == "__del__" or frame.f_globals.get("__name__") == "weakref":
            return True
        frame = frame.f_back
    return False


class _MainThreadOnly(io.TextIOBase):
    """``sys.stdout`` while a report is made: the main thread's writes go to the report,
    another thread's (a bot's own, printing after the games) to ``other`` (whose
    descriptor points at stderr then): they ended up inside ``--json``'s object. So does
    what an object's ``__del__`` writes, and what is written while garbage is collected
    (a bot's leftovers freed outside its calls, in the main thread: printed over the
    full-screen board)."""

    def __init__(self, report: io.TextIOWrapper, other: TextIO) -> None:
        super().__init__()
        self._report = report
        self._fd = report.fileno()
        self._other = other
        import gc
        if _note_collection not in gc.callbacks:
            gc.callbacks.append(_note_collection)

    def _target(self) -> TextIO:
        main = threading.current_thread() is threading.main_thread()
        # the report's descriptor gone (a bot closed every descriptor, their copies
        # too): the report goes to the standard error rather than nowhere ("Bad file
        # descriptor" ended the run, the bot's fault unsaid)
        lost = bot_guard.descriptor_lost(self._fd)
        return self._report if main and not _finalizing() and not lost else self._other

    def write(self, text: str) -> int:
        return self._target().write(text)

    def flush(self) -> None:
        self._target().flush()

    def fileno(self) -> int:
        return self._report.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._report.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self._report.errors

    def isatty(self) -> bool:
        return self._report.isatty()

    def writable(self) -> bool:
        return True


def _text_on(fd: int, like: TextIO) -> io.TextIOWrapper:
    """A text stream of its own on descriptor ``fd`` (closed with it), in ``like``'s
    encoding and error handling, flushed at each line."""
    return io.TextIOWrapper(os.fdopen(fd, "wb", closefd=True),
                            encoding=getattr(like, "encoding", None) or "utf-8",
                            errors=getattr(like, "errors", None) or "strict",
                            line_buffering=True)


@contextlib.contextmanager
def report_to_stdout() -> Iterator[None]:
    """While a report is made (``simulate``, ``tournament``): the standard output's file
    descriptor points at stderr, and ``sys.stdout`` at the real standard output, so what
    a bot writes below ``sys.stdout`` (``os.write(1, ...)``, ``sys.__stdout__``, a child
    process) goes to stderr and the report (``--json`` too) stays whole. Worker processes
    inherit the same descriptors. The standard input is the null device (:func:`no_stdin`)."""
    with no_stdin():
        with _report_to_stdout():
            yield


@contextlib.contextmanager
def no_stdin() -> Iterator[None]:
    """The standard input (descriptor 0 and ``sys.stdin``) is the null device: nothing
    here reads it, and a bot that did (``input()``, ``sys.stdin.readline()``) waited
    for the terminal, the run silent, until its 30 s were up; now its read finds the
    end of the input at once."""
    try:
        saved = os.dup(0)
    except OSError:               # no standard input at all: nothing to read anyway
        saved = -1
    devnull = os.open(os.devnull, os.O_RDONLY)
    if devnull != 0:                # (0 itself when there was no standard input)
        os.dup2(devnull, 0)
        os.close(devnull)
    previous = sys.stdin
    mine = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - closed below
    sys.stdin = mine
    if saved >= 0:
        keep_descriptor(saved, "the saved standard input")
    # a bot's sys.stdin.close() is no fault: sys.stdin is there for it to read
    mine_fd = mine.fileno()
    keep_descriptor(mine_fd, "the null device in sys.stdin", lambda: not mine.closed)
    try:
        yield
    finally:
        # its own null device closed, not what sys.stdin holds now: a bot's (sys.stdin =
        # None, a library's stand-in) ended the run after its report, "unexpected error:
        # AttributeError: 'NoneType' object has no attribute 'close'", and its close() is
        # its code
        sys.stdin = previous
        release_descriptor(mine_fd)
        with contextlib.suppress(OSError):     # a bot closed it, and its copy too
            mine.close()
        if saved >= 0:
            release_descriptor(saved)
            with contextlib.suppress(OSError):
                os.dup2(saved, 0)
                os.close(saved)


@contextlib.contextmanager
def _report_to_stdout() -> Iterator[None]:
    try:
        sys.stdout.flush()
        if sys.stdout.fileno() != 1:
            raise ValueError("sys.stdout is not the standard output")
        saved = os.dup(1)
    except (OSError, ValueError, AttributeError):
        # sys.stdout is no descriptor of its own (a test's capture, a StringIO): the
        # report goes where it goes, as before
        yield
        return
    report = _text_on(saved, sys.stdout)
    keep_descriptor(saved, "the report's standard output")
    previous = sys.stdout
    os.dup2(2, 1)
    sys.stdout = _MainThreadOnly(report, previous)
    if STDOUT_ENDS_WITH_REPORT:
        adopt_orphans()
    try:
        yield
    finally:
        try:
            report.flush()
        except (OSError, ValueError):
            pass
        if STDOUT_ENDS_WITH_REPORT:
            stop_children()
        sys.stdout = previous
        if not STDOUT_ENDS_WITH_REPORT:
            try:
                os.dup2(report.fileno(), 1)
            except (OSError, ValueError):
                pass
        release_descriptor(saved)
        with contextlib.suppress(OSError):     # a bot closed it, and its copy too
            report.close()


def adopt_orphans() -> None:
    """Linux: a process a bot started, whose parent ends before it (a tournament's worker,
    stopped), becomes this process's child (``PR_SET_CHILD_SUBREAPER``), not init's, so
    that :func:`stop_children` finds it."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def stop_children() -> list[int]:
    """Linux: stop every process descended from this one that still runs, once the
    report is made and the command ends (only then: its own children, a check of a bot
    or a tournament's workers, are done). Processes a plug-in started in this process,
    or in a tournament's worker, and left running (``subprocess.Popen(["sleep",
    "1000"])``) outlived the command, holding its output open: ``millebornes tournament
    ... | tail`` waited for them. Grandchildren too: a worker stopped by its pool may not
    be gone yet on a loaded machine, and its children, not yet this process's, were left
    to outlive it (twice in about a dozen runs under load). Returns their process ids (each is
    logged)."""
    # in rounds (a process that forked while its tree was stopped), each only if it is
    # still the process found (a process id freed and taken by another meanwhile)
    stopped = end_descendants(os.getpid(), _multiprocessing_helpers())
    if stopped:
        log.warning("processes left running, by a bot perhaps, were stopped at the end: %s",
                    ", ".join(map(str, stopped)))
    return stopped


def _multiprocessing_helpers() -> set[int]:
    """The process ids of this process's own ``multiprocessing`` helpers (the resource
    tracker, a fork server), which end by themselves when this process does. A bot's
    pool of the ``spawn`` kind started the resource tracker here; stopped before the
    exit, it was started again by the pool's exit handlers and printed a traceback per
    semaphore after the report ("KeyError: '/mp-...'"). The processes a fork server
    started are stopped all the same."""
    spared: set[int] = set()
    for module, attr, field in (("multiprocessing.resource_tracker", "_resource_tracker",
                                 "_pid"),
                                ("multiprocessing.forkserver", "_forkserver",
                                 "_forkserver_pid")):
        pid = getattr(getattr(sys.modules.get(module), attr, None), field, None)
        if isinstance(pid, int):
            spared.add(pid)
    return spared


#: Set by the ``millebornes`` command (:func:`cli.main.console_script`): the process ends
#: after the report, so the standard output stays pointed at stderr (a bot's thread that
#: prints on would write after the report: ``--json`` was no longer one object).
STDOUT_ENDS_WITH_REPORT = False


def make_seat_bots(specs: Sequence[str], seed: int,
                   watch: Callable[[int], None] | None = None) -> list[SeatController]:
    """One bounded bot per seat (seat ``s`` plays ``specs[s]`` with seed ``seed + s``); a
    plug-in whose factory fails (perhaps for this seed only) is a fault of that seat's bot
    (:class:`engine.BotFailed`), as a bad move would be.

    The global ``random`` module is seeded from ``seed`` too: a plug-in that draws from it
    (docs/bots.md asks for a ``Random(seed)`` of its own) still plays the same matches for
    the same ``--seed`` (it had whatever state the process was in).

    ``watch(s)`` is called as seat ``s``'s bot is made, ``watch(-1)`` once they are (a
    tournament's worker says so to its parent, should a factory end the process)."""
    random.seed(seed)
    bots: list[SeatController] = []
    for s, spec in enumerate(specs):
        try:
            if watch is not None:
                watch(s)
            bots.append(make_bounded_bot(spec, seed + s, seat=s))
            if watch is not None:
                watch(-1)
        except KeyboardInterrupt:
            if not bot_guard.INTERRUPT_IS_BOT_FAULT:
                raise            # Ctrl-C (in a tournament's worker: the factory's own)
            raise BotFailed(s, "could not be made (raised KeyboardInterrupt)") from None
        except (BotGuardFault, PluginFailed) as exc:
            # in words already: "(PluginFailed: bot plug-in ...)" named a class of ours
            raise BotFailed(s, f"could not be made ({exc})") from None
        except BotTooSlow as exc:
            raise BotFailed(s, str(exc)) from exc
        except BaseException as exc:  # noqa: BLE001 - a factory may fail for some seeds only
            raise BotFailed(s, f"could not be made ({exception_words(exc)})") from exc
    return bots
