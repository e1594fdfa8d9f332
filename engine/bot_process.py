"""A bot that thinks in a process of its own: the child that runs it, and
:class:`BotProcess`, the seat controller that asks it and bounds every wait.

Networked ``play`` (cli) and ``simulate --network`` (p2p.netsim, which may not import
cli) isolate a plug-in the same way, so this lives in the engine, the one package both
may import; with :mod:`engine.bot_guard` (the guard around a call into a bot in this
process), it is the engine's only module that touches processes, pipes, signals and the
clock (the rules and the simulator stay pure).
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import json
import logging
import mmap
import os
import random
import select
import selectors
import signal
import stat
import struct
import sys
import threading
import time
import warnings
from collections.abc import Callable, Collection
from typing import Any, NoReturn, TypeVar

from .actions import Action
from .bot_guard import (
    BotGuardFault,
    BotLeakedDescriptors,
    BotLoweredLimits,
    call_bot,
    descriptors_kept,
    tamed,
)
from .bots import SeatController, make_bot
from .errors import exception_words, one_line, raised_words, where_raised
from .simulate import answer_words, index_hint, legal_choice
from .state import HandState

T = TypeVar("T")

#: the name the log has always given a networked bot's faults (this code was cli's)
log = logging.getLogger("cli.bots")

#: Seconds a bot in its own process may think about one move: far above a search bot's
#: own budget; only a stuck or dead child ever reaches it.
ANSWER_WITHIN = 30.0

#: Bytes of data (heap) a process that runs plug-in bots may hold: far above any bot of
#: this project (the search bot needs tens of megabytes), far below a machine's memory.
#: ``MILLEBORNES_BOT_MEMORY_MB`` sets another bound.
MEMORY_LIMIT = 2 << 30


def memory_limit() -> int:
    """:data:`MEMORY_LIMIT`, or ``MILLEBORNES_BOT_MEMORY_MB`` megabytes (64 at least)."""
    text = os.environ.get("MILLEBORNES_BOT_MEMORY_MB", "").strip()
    if text.isascii() and text.isdigit() and len(text) <= 9:   # "²" is a digit to isdigit
        return max(64, int(text)) << 20
    return MEMORY_LIMIT


#: Bytes of a process's bound (:func:`cap_memory`) that this program keeps for its own
#: work: held back while a plug-in runs (:func:`within_bound`), so that what follows a
#: plug-in's ``MemoryError`` (naming it, the next match, the heuristic) has memory left.
BOUND_RESERVE = 64 << 20

#: Bytes :func:`within_bound` holds back during a plug-in's call (0: no bound is kept
#: here, nothing is held back).
_held_back = 0


def cap_memory(limit: int | None = None) -> None:
    """Bound the data this process may hold (``RLIMIT_DATA``: heap and private memory) to
    ``limit`` bytes more than it holds now, and :data:`BOUND_RESERVE` more for this
    program's own work (held back while plug-in code runs, :func:`within_bound`): a
    plug-in that allocates without end gets a ``MemoryError`` (a bot fault) instead of
    taking the machine's memory. A lower bound already set stays; where the limit does
    not exist (not POSIX) nothing changes. The hard limit is set too: with the soft one
    alone, a plug-in raised it again (to the hard one, unlimited) with one call (hostile
    pass 9)."""
    global _held_back
    try:
        import resource
    except ImportError:          # not POSIX
        return
    extra = (memory_limit() if limit is None else limit) + BOUND_RESERVE
    try:
        with open("/proc/self/statm") as f:
            fields = f.read().split()
        held = int(fields[5]) * os.sysconf("SC_PAGE_SIZE")   # data + stack pages
    except (OSError, ValueError, IndexError):
        held = 0
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    want = held + extra
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    low = soft if soft != resource.RLIM_INFINITY and soft <= want else want
    if (low, want) != (soft, hard):
        try:
            resource.setrlimit(resource.RLIMIT_DATA, (low, want))
        except (ValueError, OSError):
            return
    if not _held_back:
        # a bound set before (``ulimit -d``) may leave less room than asked for: a part
        # of it, so that a plug-in still runs there
        room = want - held
        _held_back = BOUND_RESERVE if room >= extra else max(0, room // 4)


#: What a signal that ends a process means, in a player's words (a crash of the
#: interpreter was said "exit code -11").
_SIGNAL_WORDS = {
    "SIGSEGV": "a crash: memory read or written where there is none, a bug in C code, "
               "an extension's or ctypes'",
    "SIGBUS": "a crash: memory that cannot be reached, a bug in C code",
    "SIGILL": "a crash: an instruction the processor cannot run, a bug in C code",
    "SIGFPE": "a crash: an arithmetic error in C code",
    "SIGABRT": "aborted: os.abort(), or a check in C code that failed",
    "SIGKILL": "killed: by the system, short of memory, or by someone",
    "SIGTERM": "ended from outside (kill)",
    "SIGPROF": "stopped: it held the interpreter in C code past its time limit",
    "SIGXCPU": "stopped: past its limit of processor time",
    "SIGPIPE": "it wrote to a pipe whose reader had gone",
}


def exit_words(code: int) -> str:
    """How a process ended, from its exit code as ``multiprocessing`` and ``subprocess``
    give it: "exit code 3", or a signal (a negative code) named and said in words,
    "SIGSEGV, a crash: memory read or written where there is none, ..." (it was "exit
    code -11", which a player cannot read)."""
    if code >= 0:
        return f"exit code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        return f"ended by signal {-code}"
    what = _SIGNAL_WORDS.get(name)
    return f"{name}, {what}" if what else f"ended by the signal {name}"


def within_bound(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``, plug-in code, in a process bounded by :func:`cap_memory`, with
    :data:`BOUND_RESERVE` bytes of the bound held back (a mapping reserved, never
    touched) and given back as the call ends, however it ends. A plug-in that filled
    the bound to the last byte (small objects kept from move to move) left the code
    that named its ``MemoryError`` nothing to allocate either: CPython 3.11 then loops
    for ever unwinding the exception (it cannot allocate the position it re-raises
    from), and ``simulate`` or a tournament spun at a full core without end, or ended
    with "unexpected error: MemoryError"; the heuristic of the next match was short of
    memory too. A process already within :data:`BOUND_RESERVE` of its bound does not
    run the plug-in: its call raises ``MemoryError`` (the memory is the plug-in's: it
    may have kept it from an earlier call). A descriptor of the program's that the
    plug-in closed is put back, and the plug-in is at fault
    (:func:`engine.bot_guard.descriptors_kept`); Python's built-in names are put back
    as they were, however the call ends (:func:`_builtins_back`), and so are the
    interpreter's settings a plug-in may change for its own code (:func:`_settings`)."""
    if not _BUILTINS:
        _BUILTINS.update(vars(builtins))       # before any plug-in's code has run here
    if not _UMASK:
        _UMASK.append(os.umask(0o022))
        os.umask(_UMASK[0])
        _IMPORTS.extend((list(sys.path), list(sys.meta_path)))
    handlers = _handlers()
    settings = _settings()
    open_before = _descriptors_short(settings[-1])
    stand_in: BaseException | None = None
    lowered: list[str] = []
    try:
        answer: T = descriptors_kept(_held_back_for, fn, *args)
    except BaseException as exc:
        # a plug-in's exception the program cannot read without running its code (a
        # metaclass whose __getattribute__ never ends held simulate for ever, outside
        # the bot's time limit): a plain stand-in goes on, raised out of this block (no
        # __context__ to lead back to it), the plug-in's freed here, within its time
        stand_in = tamed(exc)
        if stand_in is None:
            raise
        del exc
    finally:
        lowered = _settings_back(settings)
        _builtins_back()
        _handlers_back(handlers)
        # the files the program makes are read by their player: a bot's os.umask(0o777)
        # made the transcripts of simulate --fair-deck unreadable (mode 000)
        os.umask(_UMASK[0])
        _imports_back()
    if stand_in is not None:
        raise stand_in
    if lowered:
        raise BotLoweredLimits(lowered)
    if open_before is not None:
        _check_descriptors(open_before)
    return answer


#: Descriptors a process that runs plug-ins keeps free for the program's own files: a
#: call that leaves fewer (and opened more than it closed) is a fault.
DESCRIPTORS_KEPT_FREE = 64


def _descriptors_open(soft: int | None = None) -> tuple[int, int] | None:
    """Linux: how many descriptors below the soft limit are open, and the limit (the
    program's copies kept high up, :func:`engine.bot_guard.keep_descriptor`, are above
    it); None where this cannot be read."""
    if soft is None:        # (given: the limit the call was checked against)
        try:
            import resource
            soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        except (ImportError, OSError):
            return None
    if soft < 0:
        return None
    with contextlib.suppress(OSError):
        # Linux 6.2 and later: the size of /proc/self/fd is how many are open, in one
        # system call (2.5 µs; a listing costs as much as the highest number open, 50 µs
        # and more with the program's copies kept high up). Those copies above the soft
        # limit take no room below it
        open_now = os.stat("/proc/self/fd").st_size
        if open_now > 0:
            return max(0, open_now - _kept_above(soft)), soft
    try:
        names = os.listdir("/proc/self/fd")
    except OSError as exc:      # not one left to list them with: as full as can be
        return (soft, soft) if exc.errno == errno.EMFILE else None
    return sum(1 for n in names if n.isdigit() and int(n) < soft), soft


def descriptors_in_use() -> int | None:
    """Linux: how many descriptors below the soft limit this process has open (for
    :func:`spoiled`); None where this cannot be read."""
    now = _descriptors_open()
    return None if now is None else now[0]


def spoiled(limits_before: dict[int, tuple[int, int]],
            opened_before: int | None = None) -> bool:
    """Whether this process is no longer fit to run the next plug-ins fairly: a bot
    left it with fewer than :data:`DESCRIPTORS_KEPT_FREE` descriptors to open (files it
    keeps: more are open than ``opened_before``, :func:`descriptors_in_use` as the
    process began; a process that began with few free, forked from one that held many,
    was "spoiled" by none of its bots), or a resource limit lower than
    ``limits_before`` (:func:`limits`, read as the process began) that could not be put
    back."""
    now = _descriptors_open()
    if (now is not None and (opened_before is None or now[0] > opened_before)
            and now[1] - now[0] < min(DESCRIPTORS_KEPT_FREE, now[1] // 8)):
        return True
    current = _limits()
    own = _own_limit()            # (the program's own bound, :func:`cap_memory`)
    return any(_lower(current[w][0], soft) or _lower(current[w][1], hard)
               for w, (soft, hard) in limits_before.items() if w in current and w != own)


def _own_limit() -> int:
    """The resource limit the program lowers itself (:func:`cap_memory`), -1 if none."""
    try:
        import resource
    except ImportError:
        return -1
    return int(resource.RLIMIT_DATA)


def limits() -> dict[int, tuple[int, int]]:
    """The process's resource limits that a plug-in may lower (for :func:`spoiled`)."""
    return _limits()


def _descriptors_short(limits: dict[int, tuple[int, int]]) -> tuple[int, int] | None:
    """Before a plug-in's call: the count of :func:`_descriptors_open`, one system call
    on Linux 6.2 and later (a listing of /proc/self/fd before, whose cost grows with the
    highest descriptor: listed twice, a plug-in's call took three times as long). The
    lowest free number, a cheaper probe, cannot say a call leaked: a bot that opened up
    to the limit and closed one low descriptor left a gap there and passed, and the
    honest plug-in after it, keeping one file, was named for all (the review of plug-ins
    pass 13). None where it cannot be read."""
    soft = limits.get(getattr(_resource(), "RLIMIT_NOFILE", -1), (-1, -1))[0]
    if soft < 0:
        return None
    return _descriptors_open(soft)


def _kept_above(soft: int) -> int:
    """How many of the program's kept copies (:func:`engine.bot_guard.keep_descriptor`)
    are above the soft limit, where they take no room."""
    from .bot_guard import kept_copies
    return sum(1 for fd in kept_copies() if fd >= soft)


def _resource() -> Any:
    """The ``resource`` module, None where there is none (not POSIX)."""
    try:
        import resource
    except ImportError:
        return None
    return resource


def _check_descriptors(before: tuple[int, int]) -> None:
    """:class:`BotLeakedDescriptors` when the call just made opened more descriptors
    than it closed and left fewer than :data:`DESCRIPTORS_KEPT_FREE` (or an eighth of
    the limit) to open: a bot that kept every file it opened made the program's own
    files, and the next match's honest plug-in, fail to open ("could not be made
    (unknown bot ...)"), which was then named."""
    after = _descriptors_open(before[1])
    if after is None:
        return
    count, limit = after
    was = before[0]
    if count > was and limit - count < min(DESCRIPTORS_KEPT_FREE, limit // 8):
        raise BotLeakedDescriptors(count - was, max(0, limit - count), limit)


def _settings() -> tuple[Any, ...]:
    """The interpreter's settings that a plug-in's call may change for its own code, not
    for the program's: its profiler and tracer (``sys.setprofile``, ``sys.settrace``, and
    ``threading``'s for the threads started later), put back; a recursion limit it
    lowered, put back (one it raised stays: a deep search needs it); a warnings filter it
    added that makes warnings errors, taken out (its other filters stay: a library's
    warnings quieted). A bot that lowered the limit for its own search made the honest
    bots of the next matches in its process fail, "could not be made (RecursionError:
    ...)", and forfeit them in a tournament; a profiler it left on watched, and slowed,
    every call of the program and of the other seats' bots."""
    return (sys.getprofile(), sys.gettrace(), threading.getprofile(), threading.gettrace(),
            sys.getrecursionlimit(), warnings.filters, list(warnings.filters), _limits())


#: The process's resource limits a plug-in's call may lower for the whole process
#: (:func:`_limits_back`).
_LIMITS = ("RLIMIT_CPU", "RLIMIT_NOFILE", "RLIMIT_FSIZE", "RLIMIT_NPROC", "RLIMIT_AS",
           "RLIMIT_DATA", "RLIMIT_STACK")


def _limits() -> dict[int, tuple[int, int]]:
    """The process's resource limits of :data:`_LIMITS` now (none where there are none)."""
    try:
        import resource
    except ImportError:
        return {}
    limits: dict[int, tuple[int, int]] = {}
    for name in _LIMITS:
        which = getattr(resource, name, None)
        if which is not None:
            try:
                limits[which] = resource.getrlimit(which)
            except (OSError, ValueError):
                pass
    return limits


def _lower(a: int, b: int) -> bool:
    """Whether limit ``a`` is lower than ``b`` (RLIM_INFINITY, -1, is the highest)."""
    return a != b and (b < 0 or 0 <= a < b)


#: What each limit of :data:`_LIMITS` bounds, in a fault's words.
_LIMIT_WORDS = {"RLIMIT_CPU": "processor time", "RLIMIT_NOFILE": "open files",
                "RLIMIT_FSIZE": "file size", "RLIMIT_NPROC": "processes",
                "RLIMIT_AS": "address space", "RLIMIT_DATA": "data",
                "RLIMIT_STACK": "stack"}


def _limits_back(before: dict[int, tuple[int, int]]) -> list[str]:
    """The resource limits a plug-in's call lowered, put back (one it raised stays): a
    bot that bounded "its" processor time (``resource.setrlimit(RLIMIT_CPU, (3, 4))``)
    bounded the whole process's, and SIGXCPU ended ``simulate`` later, naming the bot
    moving then, an honest one as often as not; one that lowered the number of files
    the process may open made the next match's honest plug-in fail to load ("unknown
    bot"). A hard limit lowered below what was can be raised again only with the
    rights to (root): where it cannot, it stays lowered, and the limits so lowered are
    returned, in words ("limit of processor time (RLIMIT_CPU)")."""
    if not before:
        return []
    import resource
    names = {getattr(resource, n, None): n for n in _LIMITS}
    lowered: list[str] = []
    for which, (soft, hard) in before.items():
        try:
            now_soft, now_hard = resource.getrlimit(which)
            if _lower(now_soft, soft) or _lower(now_hard, hard):
                want_hard = now_hard if not _lower(now_hard, hard) else hard
                want_soft = soft if _lower(now_soft, soft) else now_soft
                try:
                    resource.setrlimit(which, (want_soft, want_hard))
                except (OSError, ValueError):   # the hard one stays: the soft one, up to it
                    resource.setrlimit(which, (
                        now_hard if now_hard >= 0 and (soft < 0 or soft > now_hard) else soft,
                        now_hard))
                now_soft, now_hard = resource.getrlimit(which)   # (read again if set)
            if _lower(now_soft, soft) or _lower(now_hard, hard):
                name = names.get(which, "")
                lowered.append(f"limit of {_LIMIT_WORDS.get(name, 'a resource')} ({name})")
        except (OSError, ValueError):
            pass
    return lowered


def _settings_back(saved: tuple[Any, ...]) -> list[str]:
    """The settings of :func:`_settings` put back (the profiler and the tracer first:
    the rest is not theirs to watch); the resource limits that could not be, in words
    (:func:`_limits_back`)."""
    profile, trace, thread_profile, thread_trace, limit, filters, kept, limits = saved
    if sys.getprofile() is not profile:
        sys.setprofile(profile)
    if sys.gettrace() is not trace:
        sys.settrace(trace)
    if threading.getprofile() is not thread_profile:
        threading.setprofile(thread_profile)
    if threading.gettrace() is not thread_trace:
        threading.settrace(thread_trace)
    if sys.getrecursionlimit() < limit:
        try:
            sys.setrecursionlimit(limit)
        except (RecursionError, ValueError):
            pass
    now = warnings.filters
    if now is not filters or now != kept:
        mine = [f for f in now if type(f) is tuple and (f[:1] != ("error",) or f in kept)]
        filters[:] = mine if now is filters or type(now) is list else kept
        warnings.filters = filters
        mutated = getattr(warnings, "_filters_mutated", None)
        if callable(mutated):
            mutated()
    return _limits_back(limits)


#: The signals whose handling is the program's: a plug-in's own handler is put back
#: after its call (:func:`within_bound`).
PROGRAM_SIGNALS = tuple(getattr(signal, name) for name in
                        ("SIGINT", "SIGTERM", "SIGHUP", "SIGCHLD", "SIGPIPE")
                        if hasattr(signal, name))


#: The key of :func:`_handlers`' answer that holds the calling thread's signal mask.
_MASK = -1


def _handlers() -> dict[int, Any]:
    """The handlers of :data:`PROGRAM_SIGNALS` now, and the thread's signal mask (none
    off the main thread, where they cannot be set)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    handlers: dict[int, Any] = {signum: signal.getsignal(signum) for signum in PROGRAM_SIGNALS}
    if hasattr(signal, "pthread_sigmask"):
        handlers[_MASK] = signal.pthread_sigmask(signal.SIG_BLOCK, ())
    return handlers


def _handlers_back(handlers: dict[int, Any]) -> None:
    """The program's signal handlers as they were before a plug-in's call: a bot that
    ignored SIGINT (``signal.signal(SIGINT, SIG_IGN)``), or caught it for itself (to save
    its work), made ``simulate`` deaf to Ctrl-C for the rest of the run. So is the
    thread's signal mask: a bot that blocked SIGINT and SIGALRM for a section of its own
    and left them blocked made Ctrl-C, and every later bot's time limit, wait on it."""
    mask = handlers.pop(_MASK, None)
    if mask is not None and signal.pthread_sigmask(signal.SIG_BLOCK, ()) != mask:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    for signum, handler in handlers.items():
        if handler is not None and signal.getsignal(signum) is not handler:
            try:
                signal.signal(signum, handler)
            except (OSError, ValueError, TypeError):
                pass


#: The process's file mode creation mask before the first plug-in's call in it.
_UMASK: list[int] = []


#: ``sys.path`` and ``sys.meta_path`` before the first plug-in's call in this process.
_IMPORTS: list[list[Any]] = []


def _imports_back() -> None:
    """The places Python imports from (``sys.path``, ``sys.meta_path``) that a plug-in's
    call took away, put back (what it added stays, after them): a bot that emptied
    ``sys.path`` made the next match's plug-ins fail to load, "could not be made
    (unknown bot 'mybot')", an honest one blamed for it. Where nothing was taken away
    the order is the plug-in's: one that put its own folder (or import hook) first, to
    import its own copy of a module before the installed one, had it moved last, and
    found the installed copy."""
    for name, before in zip(("path", "meta_path"), _IMPORTS, strict=False):
        now = getattr(sys, name, None)
        if type(now) is list and (now[:len(before)] == before   # (the usual case, at C speed)
                                  or all(p in now for p in before)):
            continue
        added = [p for p in now if p not in before] if type(now) is list else []
        setattr(sys, name, [*before, *added])


#: Python's built-in names as they were before the first plug-in's call in this process.
_BUILTINS: dict[str, Any] = {}


def _builtins_back() -> None:
    """The built-in names a plug-in's call replaced or deleted, put back (what it added
    stays): a bot that silenced every print of its process (``builtins.print = lambda
    *a, **k: None``) silenced ``simulate``'s report too, status 0 and not a line."""
    now = vars(builtins)
    for name, value in _BUILTINS.items():
        if now.get(name, _BUILTINS) is not value:
            now[name] = value


def _held_back_for(fn: Callable[..., T], *args: Any) -> T:
    """:func:`within_bound` but the descriptors' check (:func:`engine.bot_guard.
    descriptors_kept`, made once the memory held back is given back)."""
    size = _held_back
    if not size:
        return fn(*args)
    try:
        held = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE)
    except OSError:
        raise MemoryError("its process already holds all the memory a plug-in may "
                          "take") from None
    try:
        return fn(*args)
    finally:
        held.close()       # first, allocating nothing: the memory is this program's again


#: The longest reply a bot's child may send: an index, or words of 500 characters at
#: most (JSON of 4-byte characters, escaped, fits).
REPLY_BYTES = 8192


def _reply(conn: Any, kind: str, value: int | str) -> None:
    """The child's answer as the parent reads it (:meth:`BotProcess._ask`): plain JSON in
    one frame, never a pickle (its loading would run code in the parent)."""
    if isinstance(value, str):
        value = value[:500]
    conn.send_bytes(json.dumps([kind, value]).encode("utf-8"))


#: Bytes a bot in its own process may add to the program's log: what it logs past them is
#: dropped, saying so once (a bot that logs in a loop must not fill the disk; the log's
#: rotation is its parent's, which this process leaves alone).
LOG_BYTES = 256 * 1024


#: Control characters a bot's log line may not hold (a terminal's escapes, a carriage
#: return that hides what comes before): each is a "?"; a line break stays (see _BotLog).
_CONTROLS = {c: "?" for c in [*range(32), 127] if c != 10}


def log_file() -> str | None:
    """The file this process logs to (the root logger's first file handler on a regular
    file: not the null device), for a bot's own process to log there too
    (:class:`BotProcess`); None when it has none."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.FileHandler) and os.path.isfile(handler.baseFilename):
            return handler.baseFilename
    return None


class _BotLog(logging.Handler):
    """In a bot's own process: its ``logging`` records, appended to its parent's log file
    (``millebornes.log``), each marked with the bot's spec, :data:`LOG_BYTES` in all.

    The file is opened for each record (the parent rotates it: a descriptor kept open
    would go on writing to the old one), as a regular file only, never created here
    through a symbolic link."""

    def __init__(self, path: str, spec: str) -> None:
        super().__init__(logging.INFO)
        self.path, self.spec, self.left = path, spec, LOG_BYTES
        name = spec.replace("%", "%%")
        self.setFormatter(logging.Formatter(
            f"%(asctime)s %(name)s %(levelname)s (bot {name}, in its own process) %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        if self.left <= 0:
            return
        try:
            text = self.format(record).translate(_CONTROLS)
        except Exception:                  # noqa: BLE001 - a record its bot made badly
            self.handleError(record)
            return
        # its every line marked as its own: a message of several lines (a traceback) is
        # indented, so that none reads as a line of the table's log (a forged warning)
        data = (text.replace("\n", "\n    (bot) ") + "\n").encode("utf-8", "replace")
        if len(data) > self.left:
            when = logging.Formatter().formatTime(record)
            data = (f"{when} engine.bot_process WARNING bot {self.spec} logged more than "
                    f"{LOG_BYTES // 1024} KB in its own process: the rest of its log is "
                    "dropped\n").encode("utf-8", "replace")
            self.left = 0
        else:
            self.left -= len(data)
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
                         | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), 0o600)
        except OSError:
            return
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                os.write(fd, data)
        except OSError:
            pass
        finally:
            os.close(fd)


def _log_to(path: str | None, spec: str) -> _BotLog | None:
    """In a bot's own process: what its bot logs goes to ``path`` (its parent's log
    file), through :class:`_BotLog`; None (nothing set up) without one."""
    if not path:
        return None
    handler = _BotLog(path, spec)
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    sys.unraisablehook = _log_unraisable       # a __del__'s error: its stderr is nowhere
    return handler


def _log_unraisable(unraisable: Any) -> None:
    """An error Python could not raise (in a ``__del__``), in the log in one line."""
    exc = unraisable.exc_value
    words = exception_words(exc) if exc is not None else str(unraisable.exc_type)
    try:
        obj = repr(unraisable.object)[:200] if unraisable.object is not None else ""
    except Exception:           # noqa: BLE001 - a repr of a bot's object that fails
        obj = f"an object of type {type(unraisable.object).__name__}"
    log.warning("%s: %s: %s", unraisable.err_msg or "Exception ignored in", obj, words)


#: The packages whose loggers are the program's own (:func:`own_loggers_back`).
OWN_LOGGERS = frozenset({"cli", "engine", "p2p"})


def own_loggers_back() -> None:
    """The program's own loggers as it left them (every record passed on to the root's
    handlers), after a plug-in's code ran: a bot that configured its logging with
    ``logging.config.dictConfig`` or ``fileConfig`` (which disable every logger that
    exists, by default) or quieted every logger by name (its libraries' noise) silenced
    the program's words on its own fault: "where in its code" was never written."""
    for name, logger in list(logging.root.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger) and name.split(".", 1)[0] in OWN_LOGGERS:
            if logger.disabled:
                logger.disabled = False
            if logger.level != logging.NOTSET:
                logger.setLevel(logging.NOTSET)
            if not logger.propagate:
                logger.propagate = True


def _keep_log(handler: _BotLog | None) -> None:
    """Put the bot's log back after its code ran (``logging.basicConfig(force=True)``
    removes the root logger's handlers, ``logging.disable`` drops every record, and
    :func:`own_loggers_back`)."""
    own_loggers_back()
    if logging.root.manager.disable:
        logging.disable(logging.NOTSET)
    root = logging.getLogger()
    if handler is not None and handler not in root.handlers:
        root.addHandler(handler)


def _running() -> dict[int, tuple[int, int]]:
    """Linux: every process that still runs (a zombie has ended) -> its parent's id and
    its start time (clock ticks after boot), read from /proc (none elsewhere)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return {}
    found: dict[int, tuple[int, int]] = {}
    for entry in entries:
        if not entry.isdigit():
            continue
        started = _stat(int(entry))
        if started is not None:
            found[int(entry)] = started
    return found


def _stat(pid: int) -> tuple[int, int] | None:
    """Process ``pid``'s parent and start time, from /proc; None when it does not run
    (gone, a zombie) or cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        if fields[0] in (b"Z", b"X"):
            return None
        return int(fields[1]), int(fields[19])
    except (OSError, ValueError, IndexError):
        return None


def _under(root: int, running: dict[int, tuple[int, int]]) -> list[int]:
    """The processes of ``running`` under ``root`` (children, theirs, ...)."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _started) in running.items():
        children.setdefault(ppid, []).append(pid)
    found: list[int] = []
    todo = list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.append(pid)
            todo.extend(children.get(pid, ()))
    return found


def descendants(root: int) -> list[int]:
    """Linux: the processes under ``root`` (children, theirs, ...) that still run, read
    from /proc (none elsewhere)."""
    return _under(root, _running())


def kill_same(pid: int, started: int, signum: int = signal.SIGKILL) -> bool:
    """Send ``signum`` to process ``pid`` if it is still the process that started at
    ``started`` (its start time in /proc, as :func:`_running` read it): a process found
    under a bot's, that ended and whose id was taken by another process (anyone's)
    before the kill, is left alone. Where ``os.pidfd_open`` works (Linux 5.3, Python
    3.9) the process checked is the one signalled, whatever happens meanwhile; else the
    check comes just before ``os.kill``. True: signalled."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError) as exc:
        if isinstance(exc, ProcessLookupError):
            return False                      # gone already
        fd = -1                               # no pidfd here: check, then kill
    try:
        now = _stat(pid)
        if now is None or now[1] != started:
            return False
        if fd >= 0:
            signal.pidfd_send_signal(fd, signum)
        else:
            os.kill(pid, signum)
        return True
    except OSError:
        return False
    finally:
        if fd >= 0:
            os.close(fd)


def end_descendants(root: int, spared: Collection[int] = ()) -> list[int]:
    """SIGKILL every process under ``root`` (but those ``spared``), each only if it is
    still the process found (:func:`kill_same`), in rounds while any is found (one that
    forked meanwhile); the process ids signalled. Linux (elsewhere: none found)."""
    stopped: list[int] = []
    done: set[tuple[int, int]] = set()
    for _round in range(3):
        running = _running()
        found = [(pid, running[pid][1]) for pid in _under(root, running)
                 if pid not in spared and (pid, running[pid][1]) not in done]
        if not found:
            break
        for pid, started in found:
            done.add((pid, started))
            if kill_same(pid, started) and pid not in stopped:
                stopped.append(pid)
    return stopped


def _end_tree(child: int, spared: int | None = None) -> None:
    """SIGKILL every process under ``child`` (but ``spared``): what its bot started,
    those that left its group and session too (``start_new_session=True``, a daemon's
    double fork and ``setsid``: they outlived the table, ``killpg`` reaching only the
    group). Its reaper (:func:`_serve_under_reaper`) adopts the orphans, so an orphan's
    is found under it. Linux (elsewhere: none found)."""
    end_descendants(child, () if spared is None else (spared,))


def _reap_own() -> bool:
    """Linux: this process becomes the reaper of the orphans among its descendants
    (``PR_SET_CHILD_SUBREAPER``): a process its bot started with a double fork is found
    under it, not under init, when it is ended (:func:`_end_tree`). Whether it is."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        return int(ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def no_terminal() -> None:
    """Leave the terminal's session (POSIX): this process has no controlling terminal from
    now on, so a plug-in that opens ``/dev/tty`` (below any redirection of its output)
    can neither write over the player's screen nor read what the player types."""
    if hasattr(os, "setsid"):
        try:
            os.setsid()
        except OSError:            # a session's leader already: it has its own
            pass


def _end_with(parent: int) -> None:
    """End this process once ``parent`` is gone, whatever its bot is doing: a child whose
    bot was busy in ``choose`` when the process that asks it was killed (a player who
    quit; ``cli.bot_peers`` stops a bot's peer that does not leave in time) never read its
    channel again, and went on for ever at a full core.

    A thread watches the parent and ends this process's group with it (its bot's own
    processes too). A bot stuck in C code that holds the interpreter lets no thread run,
    so on Linux a small watching process does it instead (:func:`_watch_from_a_process`).
    """
    if sys.platform.startswith("linux") and hasattr(os, "fork"):
        me = os.getpid()
        if os.fork() == 0:
            try:
                _watch_from_a_process(parent, me)
            finally:
                os._exit(0)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        _end_group(os.getpid())

    threading.Thread(target=watch, daemon=True, name="bot-parent-watch").start()


def _end_group(child: int) -> None:
    """SIGKILL the bot's child ``child`` and, when it leads its process group
    (:func:`no_terminal`), every process in that group: its bot's own ones too, and
    every process under it (:func:`_end_tree`: this watcher is spared until the end)."""
    _end_tree(child, spared=os.getpid())
    if hasattr(os, "killpg") and os.getpgid(0) == child:
        os.killpg(child, signal.SIGKILL)
    os.kill(child, signal.SIGKILL)


def _watch_from_a_process(parent: int, child: int) -> None:
    """A forked watcher of the bot's child ``child``: it holds none of its files (the
    channel's end would hide the child's death from the parent), dies with it (prctl(2)
    ``PR_SET_PDEATHSIG``), and ends its group once ``parent`` is gone, by waiting on a
    pidfd (pidfd_open(2)) or else by asking every half second."""
    os.closerange(3, 1 << 16)
    import ctypes
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return                      # no prctl: the child's thread watches alone
    if os.getppid() != child:       # the child died before the request was made
        return
    try:
        fd = os.pidfd_open(parent)
    except (OSError, AttributeError):
        fd = -1
    try:
        if fd >= 0:
            while not select.select([fd], [], [], 5.0)[0]:
                pass
        else:
            while True:
                os.kill(parent, 0)
                time.sleep(0.5)
    except ProcessLookupError:      # gone already
        pass
    _end_group(child)


def _serve(conn: Any, spec: str, seed: int, parent: int | None = None,
           log_path: str | None = None, seat: int | None = None,
           reaped: bool = False) -> None:
    """The child: build the bot once, then answer each ``(view, legal)`` with
    ``["move", index]``, or ``["error", words]`` when the bot cannot be made or raises
    (``KeyboardInterrupt`` too: this process ignores Ctrl-C, the parent decides), or
    ``["illegal", words]`` (:func:`_reply`). A copy the bot forks ends as it comes back
    (:func:`call_bot`). What the bot logs goes to ``log_path`` (:func:`_log_to`), marked
    with its spec and ``seat`` (two seats of one plug-in were one name in the log).
    ``reaped``: this process is the child of its reaper (:func:`_serve_under_reaper`),
    which made the process's session, watches ``parent`` and ends what its bot started."""
    if not reaped:
        _quiet_session()
        _reap_own()                # its bot's daemons are found under it when it ends
    # its bot may think with processes of its own (a multiprocessing pool), as it may in
    # simulate: "daemonic processes are not allowed to have children" failed its making;
    # they are in this process's group, which its parent ends with it (BotProcess)
    import multiprocessing
    multiprocessing.current_process().daemon = False
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if parent is not None and not reaped:
        _end_with(parent)
    bot_log = _log_to(log_path, bot_label(spec, seat))
    cap_memory()                   # a bot that allocates without end fails here, not the machine
    random.seed(seed)              # a plug-in using the global random repeats for a seed
    bot: SeatController | None = None
    failure = ""
    try:
        bot = call_bot(within_bound, make_bot, spec, seed)
    except (BotGuardFault, ValueError) as exc:
        # in words already (a PluginFailed, a ValueError of make_bot's: "unknown bot ...",
        # "bad options ..."); "PluginFailed: bot plug-in ..." said a class of ours too
        failure = f"could not be made ({exc})"
    except BaseException as exc:   # noqa: BLE001 - reported to the parent, in words
        failure = f"could not be made ({exception_words(exc)})"
    _keep_log(bot_log)
    # said at once: the parent gives the making its own time, then each move its own
    if bot is not None:
        _reply(conn, "made", "")
    else:
        _reply(conn, "error", failure)
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        view, legal = request
        if bot is None:
            _reply(conn, "error", failure)
            continue
        try:
            try:
                answer = call_bot(within_bound, bot.choose, view, list(legal))
            finally:
                _keep_log(bot_log)
            # Only plain data goes back: the index of the legal move the answer is, or the
            # answer in words. Its own object, unpickled by the peer, ran its code there
            # (a __reduce__ or a __repr__ that sleeps held a networked table, unsaid).
            action = legal_choice(answer, legal)
            if action is None:
                _reply(conn, "illegal", answer_words(answer) + index_hint(answer, legal))
            else:
                _reply(conn, "move", next(i for i, a in enumerate(legal) if a is action))
        except BotGuardFault as exc:
            _reply(conn, "error", str(exc))
        except BaseException as exc:   # noqa: BLE001 - a plug-in's own bug, named
            log_where_raised(bot_label(spec, seat), exc, view.phase)
            try:
                _reply(conn, "error", raised_words(exc))
            except Exception:          # noqa: BLE001 - a channel the bot broke
                return


def _serve_and_end(conn: Any, spec: str, seed: int, parent: int | None = None,
                   log_path: str | None = None, seat: int | None = None) -> None:
    """The process of a :class:`BotProcess`: on Linux the reaper of a child that serves
    the bot (:func:`_serve_under_reaper`); elsewhere :func:`_serve`, and then every
    process its bot started ended with it (:func:`_end_tree`: asked no more questions,
    it ends by itself, and its bot's daemons, out of its group, outlived the table)."""
    if _serve_under_reaper(conn, spec, seed, parent, log_path, seat):
        return                     # (the child's, once it served: the reaper never returns)
    try:
        _serve(conn, spec, seed, parent, log_path, seat)
    finally:
        _end_tree(os.getpid())


def _quiet_session() -> None:
    """This process's output to the null device (a bot's prints must not reach the
    player's screen) and a session of its own (:func:`no_terminal`: nor what it writes on
    /dev/tty)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)
    no_terminal()


#: The signals a bot's reaper ignores: it is the bot's parent, and a bot that signals
#: "its parent" (``os.kill(os.getppid(), signal.SIGTERM)``, meant for a program that
#: started it by hand) reached the table's own process, which ended with it.
_REAPER_DEAF = tuple(getattr(signal, name) for name in (
    "SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGPIPE",
    "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGVTALRM", "SIGPROF", "SIGXCPU", "SIGXFSZ")
    if hasattr(signal, name))


def _serve_under_reaper(conn: Any, spec: str, seed: int, parent: int | None,
                        log_path: str | None, seat: int | None) -> bool:
    """Linux: this process becomes the reaper (``PR_SET_CHILD_SUBREAPER``) of a child
    that serves the bot (:func:`_serve`), and runs no code of the bot's itself. The
    child crashing (a C extension's bad read, ``os.abort``) left the processes its bot
    started in sessions of their own (a daemon's double fork) adopted by init, running
    on after the table; and orphans it adopted stayed zombies until it ended. The
    reaper reaps every orphan as it ends, and once its child has ended, or ``parent``
    (the process that asks the bot) is gone, ends everything under it and exits as its
    child did (its status, or the signal that ended it: the parent names the crash). In
    the child, after it served, True; False where there is no reaper (not Linux):
    nothing was done. The reaper never returns."""
    if not (sys.platform.startswith("linux") and hasattr(os, "fork")
            and hasattr(signal, "SIGCHLD")):
        return False
    _quiet_session()
    if not _reap_own():
        return False
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    kept = {signum: signal.getsignal(signum) for signum in _REAPER_DEAF}
    for signum in _REAPER_DEAF:
        signal.signal(signum, signal.SIG_IGN)
    signal.signal(signal.SIGCHLD, _woken)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    reaper = os.getpid()
    child = os.fork()
    if child == 0:
        signal.set_wakeup_fd(-1)
        os.close(wake_r)
        os.close(wake_w)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for signum, handler in kept.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        _dies_with(reaper)
        _serve(conn, spec, seed, parent, log_path, seat, reaped=True)
        return True
    conn.close()                   # the child's death is seen by the parent as its pipe's end
    _exit_as(_reap_until_gone(child, parent, wake_r))


def _woken(signum: int, frame: Any) -> None:
    """SIGCHLD in a bot's reaper: its wake-up descriptor says it (:func:`_reap_until_gone`)."""


def _dies_with(reaper: int) -> None:
    """In the reaper's child: killed when the reaper ends (``PR_SET_PDEATHSIG``; the
    parent kills the reaper once what is under it is ended), or ended now if it is gone
    already."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != reaper:
        os._exit(0)


def _reap_until_gone(child: int, parent: int | None, wake: int) -> int:
    """The reaper's watch: reap each process that ends under it (an orphan adopted, its
    child) as SIGCHLD says one did, until its child has ended; then end everything under
    it (:func:`end_descendants`) and return the child's wait status. When ``parent`` is
    gone (a pidfd says it, or else its parent is no longer ``parent``), everything under
    it is ended and the reaper exits."""
    watch = -1
    if parent is not None:
        try:
            watch = os.pidfd_open(parent)
        except (AttributeError, OSError):
            watch = -1
    status: int | None = None
    while True:
        while True:
            try:
                pid, ended = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                pid, ended = child, 0        # (no child at all: it was reaped somehow)
            except InterruptedError:
                continue
            if pid == 0:
                break
            if pid == child:
                status = ended
                break
        if status is not None:
            break
        fds = [wake] + ([watch] if watch >= 0 else [])
        try:
            ready = select.select(fds, [], [], 5.0 if watch >= 0 else 0.5)[0]
        except InterruptedError:
            ready = []
        if wake in ready:
            try:
                while os.read(wake, 512):
                    pass
            except OSError:
                pass
        if parent is not None and (watch in ready if watch >= 0 else os.getppid() != parent):
            end_descendants(os.getpid())
            os._exit(0)
    end_descendants(os.getpid())
    try:                                   # those that ended at once (the rest: init's)
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass
    return status


def _exit_as(status: int) -> NoReturn:
    """End this process as its child ended: with its exit status, or by the signal that
    ended it (no core of the reaper's is written)."""
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        try:
            import resource
            resource.setrlimit(resource.RLIMIT_CORE,
                               (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
        except (ImportError, OSError, ValueError):
            pass
        try:
            signal.signal(signum, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
        except (OSError, ValueError):
            pass
        os.kill(os.getpid(), signum)
        os._exit(128 + signum)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def log_where_raised(spec: str, exc: BaseException, phase: object,
                     late: str | None = None) -> None:
    """Where in its own code a bot raised, and at which decision, in the log: the fault's
    own line says only what it raised ("raised KeyError: 5"), and its author had nothing
    else to go on (:func:`engine.errors.where_raised`). ``late``: the words of a time
    limit that stopped it (``exc`` the timer's, raised where the bot was)."""
    where = where_raised(exc, ours=late is None)
    if where:
        log.warning("bot %s %s at view.phase %r, in its code (innermost last): %s", spec,
                    late or f"raised {exception_words(exc)}", phase, where)


def bot_label(spec: str, seat: int | None = None) -> str:
    """A bot as the log names it: its spec, and its seat when known ("mybot at seat 1":
    a table of two seats of one plug-in said "bot mybot raised ..." of either)."""
    return spec if seat is None else f"{spec} at seat {seat}"


def log_bot_fault(spec: str, words: str, seat: int | None = None) -> None:
    """A bot in its own process failed: said in the log, one line (every runner of one),
    naming its seat when known."""
    log.warning("bot %s %s; a quick bot moves for it from now on", bot_label(spec, seat),
                words)


#: :meth:`BotProcess._ask`'s answer when the bot is still being made, within its time
#: for that, and the move has no time left to wait for it (see ``shared`` there).
_NOT_MADE = "\0not made yet"
#: a "made" read within this many seconds of a move's start was waiting for it (the bot
#: was made before the move): the move has its whole time
_MADE_WAITING = 0.05


class BotProcess:
    """A seat controller (``choose(view, legal)``) whose bot lives in a child process,
    spawned (a fresh interpreter: nothing of this process, and none of its other
    plug-ins, is in it; nothing the bot does there reaches this process).

    Every wait has a limit: a child that does not answer within ``answer_within``
    seconds, answers a move that is not legal, raises (``KeyboardInterrupt`` and
    ``SystemExit`` too), forks or dies is stopped, and a quick in-process bot
    (``fallback``) makes that move and every later one of the match. ``on_fault`` is
    told once, in words ("raised KeyError: 'x'", "ended its process (exit code 0)"); by
    default they are logged. The bot's prints go nowhere; what it logs (``logging``) goes
    to ``log_path``, by default this process's log file (:func:`log_file`), if any."""

    def __init__(self, spec: str, seed: int, *, answer_within: float = ANSWER_WITHIN,
                 make_within: float | None = None, fallback: str = "heuristic",
                 on_fault: Callable[[str, str], None] | None = None,
                 log_path: str | None = None, seat: int | None = None) -> None:
        import multiprocessing
        import multiprocessing.util
        ctx = multiprocessing.get_context("spawn")  # never fork a process with ZeroMQ threads
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_serve_and_end,
                                 args=(child, spec, seed, os.getpid(), log_path or log_file(),
                                       seat),
                                 daemon=True,
                                 name=f"bot {bot_label(spec, seat)}")
        self._proc.start()
        self._started = time.monotonic()
        child.close()
        os.set_blocking(self._conn.fileno(), False)   # every wait on it has a deadline
        self.spec = spec
        self.answer_within = answer_within
        #: seconds for the child to start and make its bot (default: ``answer_within``)
        self.make_within = answer_within if make_within is None else make_within
        self._fallback = make_bot(fallback, seed)
        #: the seat it plays, if known: named in the log with its spec
        self.seat = seat
        self._on_fault = on_fault or (lambda spec, words: log_bot_fault(spec, words, seat))
        self._broken = False
        #: what went wrong with the bot, in words, once it has (a quick bot moves since)
        self.fault: str | None = None
        self._made = False               # the child said its bot is made (see _ask)
        self._said_not_made = False      # logged that the quick bot moves meanwhile
        self._stopped = False            # stop(): its seat's player left, nothing to say
        self._group = False              # the child was seen leading its process group
        # A program that exits with it open: multiprocessing's exit sends SIGTERM to its
        # daemon children, which the reaper ignores (_REAPER_DEAF), then waits for them
        # with no limit, and the program hung for ever. This runs first (exitpriority).
        self._at_exit = multiprocessing.util.Finalize(
            self, _end_at_exit, args=(self._proc, os.getpid()), exitpriority=0)

    def choose(self, view: HandState, legal: list[Action]) -> Action:
        if not self._broken:
            words = self._ask(view, legal)
            if self._stopped:            # stopped meanwhile (stop()): no fault of the bot's
                return self._fallback.choose(view, legal)
            if isinstance(words, int):
                return legal[words]
            if words is _NOT_MADE:
                # still being made, within its time for that: this move is the quick
                # bot's, and the plug-in is asked again at the next one
                if not self._said_not_made:
                    self._said_not_made = True
                    log.info("bot %s is not made yet (%.1f s after its start): the "
                             "built-in bot moves until it is",
                             bot_label(one_line(self.spec)[:80], self.seat),
                             time.monotonic() - self._started)
                return self._fallback.choose(view, legal)
            # its pipe may hold a late answer, and it may still be busy: never trust it again
            self._broken = True
            self.fault = words
            self._stop_child()
            self._on_fault(self.spec, words)
        return self._fallback.choose(view, legal)

    def _ask(self, view: HandState, legal: list[Action]) -> int | str:
        """The index of the child's move in ``legal``, or what went wrong, in words.

        The child is the plug-in's process, and the plug-in can reach its end of the
        channel: the question is written and the reply read by this process alone,
        within ``answer_within`` seconds in all (a frame that promised more than it sent
        held the read for ever, and a child that read no question made the next one wait
        for room), and the reply is short plain JSON, never a pickle (whose loading runs
        the sender's code here). Before its first move the child says that its bot is
        made, within ``make_within`` seconds of its start (the making and the first move
        shared them: a bot that loads a model for 20 s was replaced at its first move).
        When a move has less time than the making (``answer_within < make_within``: a
        table's move limit), the making is waited for only through the first half of the
        move's time, and the move keeps its one deadline: :data:`_NOT_MADE` when the bot
        is not made by then, or was made during that wait (the quick bot makes that
        move; the plug-in is asked again at the next, with its whole time)."""
        try:
            asked = time.monotonic()
            deadline = asked + self.answer_within
            if not self._made:
                # counted from its start: the bot may be made while the table deals
                made_by = self._started + self.make_within
                # a move that has less time than the making (a table's move limit): the
                # wait for the making is part of the move's, and a bot still being made
                # halfway through it leaves this move to the quick bot; it waited for
                # the making whole, and a plug-in that took 10 s to load paused a 3 s
                # table at its first move, "unresponsive" (hostile pass 10)
                shared = self.answer_within < self.make_within
                reply = self._reply_within(min(made_by, asked + self.answer_within / 2)
                                           if shared else made_by)
                if reply is None:
                    if time.monotonic() < made_by:
                        return _NOT_MADE
                    return f"was not made within {self.make_within:g} s"
                if isinstance(reply, str):
                    return reply
                if reply[0] != "made":
                    return _reply_words(*reply)
                self._made = True
                self._group = self._leads_group()
                if not shared:
                    deadline = time.monotonic() + self.answer_within
                elif time.monotonic() - asked > _MADE_WAITING:
                    # made during this move's wait: asked now, it had what was left of
                    # the move (half of it or more), and one that takes longer than that
                    # to think was failed for good, "did not move within 2 s", after 1
                    # s (hostile pass 11). This move is the quick bot's; the plug-in has
                    # its whole time from the next one
                    return _NOT_MADE
            question = pickle_dumps((view, list(legal)))
            if not _write_within(self._conn.fileno(),
                                 struct.pack("!i", len(question)) + question, deadline):
                return f"did not move within {self.answer_within:g} s"
            reply = self._reply_within(deadline)
            if reply is None:
                return f"did not move within {self.answer_within:g} s"
        except (EOFError, OSError) as exc:    # a dead pipe
            self._proc.join(timeout=0.5)
            code = self._proc.exitcode
            if code is not None:
                # its process ended ("stopped (EOFError: )" said nothing of why)
                return f"ended its process ({exit_words(code)})"
            return f"stopped ({type(exc).__name__}: {exc})"
        if isinstance(reply, str):
            return reply
        kind, answer = reply
        if kind == "move" and type(answer) is int and 0 <= answer < len(legal):
            return answer
        return _reply_words(kind, answer)

    def _leads_group(self) -> bool:
        """Whether the child leads a process group of its own (seen while it lives: once
        it has ended its group is ended by its id alone, see :meth:`_end_group`)."""
        try:
            return hasattr(os, "getpgid") and os.getpgid(self._proc.pid or -1) == self._proc.pid
        except OSError:
            return False

    def _reply_within(self, deadline: float) -> tuple[object, object] | str | None:
        """The child's next reply as ``(kind, value)`` (``("?", None)`` when it is no
        reply at all), words when its frame is too long to be one, None when it did not
        come before ``deadline``."""
        fd = self._conn.fileno()
        head = _read_within(fd, 4, deadline)
        if head is None:
            return None
        size = struct.unpack("!i", head)[0]
        if not 0 < size <= REPLY_BYTES:
            return f"sent its peer {size} bytes where an answer was expected"
        body = _read_within(fd, size, deadline)
        if body is None:
            return None
        try:
            reply: Any = json.loads(body.decode("utf-8"))
        except (ValueError, RecursionError):
            reply = None
        return (reply[0], reply[1]) if type(reply) is list and len(reply) == 2 else ("?", None)

    def _stop_child(self) -> None:
        self._end_group()
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join(timeout=1.0)

    def _end_group(self) -> None:
        """Stop every process of the child's group: the child (it leads a session of its
        own, :func:`no_terminal`) and what its bot started (a pool's workers lived on,
        orphans, after the child was stopped)."""
        pid = self._proc.pid
        if not pid or not hasattr(os, "killpg"):
            return
        if self._proc.is_alive():
            _end_tree(pid)        # (those that left its group: found while it lives)
        try:
            if self._group or os.getpgid(pid) == pid:
                self._group = True
                os.killpg(pid, signal.SIGKILL)
        except OSError:            # gone already, and its group with it
            pass

    def stop(self) -> None:
        """Stop the child now, from any thread: a move another thread is waiting for in
        :meth:`choose` ends at once (the built-in bot answers it, and no fault is said).
        A player who left while their own bot thought (``--auto-bot``) waited for its
        thread, up to its whole time for the move, before the full screen let them go.
        :meth:`close` still follows, from the thread that made the bot."""
        self._stopped = self._broken = True
        self._stop_child()

    def close(self) -> None:
        """Stop the child (it also dies with its parent: it is a daemon)."""
        if not self._broken:     # "no more questions", never a wait (its pipe may be full)
            try:
                last = pickle_dumps(None)
                _write_within(self._conn.fileno(), struct.pack("!i", len(last)) + last,
                              time.monotonic() + 0.5)
            except (OSError, ValueError):
                pass
        self._proc.join(timeout=1.0)
        self._end_group()          # what its bot started, whether the child ended or not
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join(timeout=1.0)
        self._conn.close()
        self._at_exit.cancel()


def _end_at_exit(proc: Any, owner: int) -> None:
    """A :class:`BotProcess` never closed, at its program's exit (or once it is
    forgotten): its child and everything under it killed, in the process that made it
    only (a process forked from it runs its exit handlers too)."""
    if os.getpid() != owner or not proc.pid:
        return
    try:
        if proc.is_alive():
            _end_tree(proc.pid)
            proc.kill()
        proc.join(timeout=1.0)
    except (OSError, ValueError, AssertionError):
        pass


def _reply_words(kind: object, answer: object) -> str:
    """What a child's reply that is no move says of its bot, in words."""
    if kind in ("error", "illegal") and type(answer) is str:
        words = one_line(answer[:1000])[:500]     # the plug-in's process wrote them
        return words if kind == "error" else f"answered {words}, which is not a legal move"
    return "answered something else, which is not a legal move"


def pickle_dumps(obj: object) -> bytes:
    """``obj`` as ``multiprocessing``'s connections pickle it (the child reads it with
    ``Connection.recv``)."""
    from multiprocessing.reduction import ForkingPickler
    return bytes(ForkingPickler.dumps(obj))


def _wait_for(fd: int, event: int, deadline: float) -> bool:
    """Whether ``fd`` is ready for ``event`` before ``deadline`` (``time.monotonic``)."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return False
    with selectors.DefaultSelector() as sel:
        sel.register(fd, event)
        return bool(sel.select(remaining))


def _write_within(fd: int, data: bytes, deadline: float) -> bool:
    """Write all of ``data`` on the non-blocking ``fd`` before ``deadline``; False if the
    reader took too little of it in time."""
    rest = memoryview(data)
    while rest:
        try:
            rest = rest[os.write(fd, rest):]
            continue
        except BlockingIOError:
            pass
        if not _wait_for(fd, selectors.EVENT_WRITE, deadline):
            return False
    return True


def _read_within(fd: int, n: int, deadline: float) -> bytes | None:
    """``n`` bytes from the non-blocking ``fd`` before ``deadline``, or None when they did
    not come in time; EOFError at the end of the stream."""
    got = bytearray()
    while len(got) < n:
        try:
            chunk = os.read(fd, n - len(got))
        except BlockingIOError:
            chunk = None
        if chunk == b"":
            raise EOFError
        if chunk:
            got += chunk
            continue
        if not _wait_for(fd, selectors.EVENT_READ, deadline):
            return None
    return bytes(got)
