"""``simulate`` with a plug-in bot entered: its matches are played in a child process of
the command's own, forked once before the first match, so that a plug-in that crashes
the interpreter (a C extension that reads memory that is not there, ``os.abort``), holds
it in C code past its time limit, or ends the process from a thread of its own ends that
child alone. The command then still makes the report of the matches played and names
the bot, its seat and the match, as a tournament does (``simulate`` ended with Python's
fatal error alone: no report, no word of the bot; plugins pass 11).

The child is the run as it was: its report, its faults, its exit status (an exit handler a
bot registered), Ctrl-C (a terminal's reaches it with this process; one sent to this
process alone, ``kill -INT``, is passed on). This process only waits, and speaks when the
child ended without saying its matches were over. Linux (``sigtimedwait``, ``fork``);
elsewhere the matches are played in the command's own process, as before.
"""

from __future__ import annotations

import faulthandler
import json
import mmap
import os
import re
import select
import signal
import struct
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, NoReturn

import engine.bot_guard as bot_guard
from engine import SeatController

#: The signals this process passes on to the child when they are sent to it alone (the
#: ones that end a process and that the program does not use here): sent by the child,
#: or a process under it, they are a bot's, and are neither passed on nor taken for the
#: person's (a bot that told "its parent" it was ready, SIGUSR1, ended ``simulate`` with
#: no report and no word of it; one that sent SIGTERM to its process group, to end its
#: own helpers, was taken for a ``kill`` of the command: no report, no word of it).
PASSED_ON = tuple(getattr(signal, name) for name in (
    "SIGINT", "SIGTERM", "SIGHUP", "SIGUSR1", "SIGUSR2", "SIGALRM") if hasattr(signal, name))


class Watch:
    """The child's side: each match played, said to the parent (one line of JSON), and
    the seat whose plug-in is being made or moves now (a word of shared memory)."""

    def __init__(self, fd: int, mark: mmap.mmap) -> None:
        self.fd = fd
        self.mark = mark
        self._before: set[int] = set()
        self._calling = False
        #: the seat whose plug-in's call started each thread (by ident)
        self.owners: dict[int, int] = {}
        self._say(["main", threading.get_ident()])
        real_exit = os._exit

        def exit_from_a_thread(status: int) -> NoReturn:
            # os._exit in a thread of a plug-in's: said, with the seat that started it
            if threading.current_thread() is not threading.main_thread():
                self._say(["exit", self._owner(threading.get_ident())])
            real_exit(status)
        os._exit = exit_from_a_thread
        # the program's own signal thread, started before any plug-in's call: first
        # started in one (its time limit's), it was noted as that seat's thread
        bot_guard.signals_reach_process()
        self._own_threads()

    def _own_threads(self) -> None:
        """Every thread started here from now on says, as it starts, whose plug-in's call
        started it (or the thread that started it: its owner's): a raw ``_thread``
        thread, which ``threading`` never lists, and a thread that crashes within the
        call that started it, were taken for the plug-in moving at the crash."""
        import _thread

        def owned(start: Callable[..., int]) -> Callable[..., int]:
            def start_owned(function: Callable[..., Any], args: Any, *kwargs: Any) -> int:
                ident = threading.get_ident()
                owner = self.owners.get(ident, -1) if ident != main else (
                    int(struct.unpack_from("i", self.mark, 0)[0]) if self._calling else -1)
                if owner < 0:
                    return start(function, args, *kwargs)

                def run(*a: Any, **k: Any) -> Any:
                    me = threading.get_ident()
                    self.owners[me] = owner
                    self._say(["threads", owner, [me]])
                    return function(*a, **k)
                return start(run, args, *kwargs)
            return start_owned

        main = threading.get_ident()
        _thread.start_new_thread = owned(_thread.start_new_thread)      # type: ignore[assignment]
        if hasattr(_thread, "start_new"):                         # (its old name)
            _thread.start_new = _thread.start_new_thread
        if hasattr(threading, "_start_new_thread"):
            threading._start_new_thread = owned(  # type: ignore[attr-defined]
                threading._start_new_thread)  # type: ignore[attr-defined]

    def _owner(self, ident: int) -> int:
        """The seat whose plug-in's call started thread ``ident``: noted, or the call
        being made now (a thread started in it, not yet noted); -1: not known (a raw
        ``_thread``'s)."""
        if ident in self.owners:
            return self.owners[ident]
        if self._calling and ident not in self._before \
                and not isinstance(threading.current_thread(), threading._DummyThread):
            return int(struct.unpack_from("i", self.mark, 0)[0])
        return -1

    def seat(self, seat: int) -> None:
        """Seat ``seat``'s plug-in is being made, or moves (-1: none); the threads its
        call started are said to be its seat's (a crash from one of them, while another
        plug-in moved, blamed that one)."""
        if seat >= 0:
            self._before = _threads()
        else:
            was = struct.unpack_from("i", self.mark, 0)[0]
            new = _threads() - self._before
            if new and was >= 0:
                self.owners.update(dict.fromkeys(new, was))
                self._say(["threads", was, sorted(new)])
        struct.pack_into("i", self.mark, 0, seat)
        self._calling = seat >= 0

    def watched(self, bots: Sequence[SeatController], plugins: Sequence[bool]
                ) -> list[SeatController]:
        """``bots``, the plug-ins' marked while they move."""
        return [_Marked(bot, seat, self) if plugin else bot
                for seat, (bot, plugin) in enumerate(zip(bots, plugins, strict=True))]

    def played(self, totals: Sequence[int], winner: int, hands: int, turns: int,
               entries: int = 0, transcript: str | None = None) -> None:
        self._say([list(totals), winner, hands, turns, entries, transcript])

    def done(self) -> None:
        """The matches are over (played, stopped at a fault or by Ctrl-C): the rest, the
        report, is the child's. Said in the shared memory, which no bot can close."""
        struct.pack_into("i", self.mark, 4, 1)

    def _say(self, what: object) -> None:
        if bot_guard.descriptor_lost(self.fd):
            return       # a bot closed it and its copy: the number may be another file's
        data = (json.dumps(what) + "\n").encode("utf-8")
        try:
            while data:
                data = data[os.write(self.fd, data):]
        except OSError:
            pass          # (the bot that closed it is at fault, and the run stops)


def _threads() -> set[int]:
    return {t.ident for t in threading.enumerate() if t.ident is not None}


class _Marked:
    """A plug-in's bot whose calls are marked as its seat's (:class:`Watch`)."""

    def __init__(self, bot: SeatController, seat: int, watch: Watch) -> None:
        self.bot = bot
        self._seat = seat
        self._watch = watch

    def __getattr__(self, name: str) -> Any:
        return getattr(self.bot, name)

    def choose(self, view: Any, legal: Any) -> Any:
        self._watch.seat(self._seat)
        try:
            return self.bot.choose(view, legal)
        finally:
            self._watch.seat(-1)


class Ended(NamedTuple):
    """The parent's side, once the child has ended."""

    #: its exit code (a signal's: negative, as ``subprocess`` gives it)
    code: int
    #: whether it said its matches were over (:meth:`Watch.done`)
    done: bool
    #: the matches it played
    played: int
    #: the seat whose plug-in was being made or moving as it ended (-1: none)
    seat: int
    #: the signals of :data:`PASSED_ON` this process received meanwhile
    signals: frozenset[int]
    #: when a thread other than the matches' crashed the interpreter, the seat whose
    #: plug-in's call started it (-1: none known); None: no such crash
    thread_seat: int | None = None


def can_fork() -> bool:
    """Whether the matches can be played in a child process watched from here."""
    return (sys.platform.startswith("linux") and hasattr(os, "fork")
            and hasattr(signal, "sigtimedwait"))


def fork_matches(on_played: Callable[[list[Any]], bool]) -> Watch | Ended:
    """Fork: in the child, its :class:`Watch` (it goes on to play the matches); here,
    once the child has ended, what it said (:class:`Ended`), ``on_played`` told of each
    match as it was played, ``[totals, winner, hands, turns, entries, transcript]``
    (:meth:`Watch.played`), and saying whether it is one."""
    mark = mmap.mmap(-1, mmap.PAGESIZE)         # shared with the child
    struct.pack_into("ii", mark, 0, -1, 0)      # no seat moves; not done
    r, w = os.pipe()
    cr, cw = os.pipe()
    parent = os.getpid()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, PASSED_ON)
    try:
        pid = os.fork()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        for fd in (r, w, cr, cw):
            os.close(fd)
        raise
    if pid == 0:
        end_with(parent)
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
        os.close(r)
        os.close(cr)
        # the lines to the parent are the program's own: a bot that closes them is told
        bot_guard.keep_descriptor(w, "the line to the process that reports the matches")
        bot_guard.keep_descriptor(cw, "the line that says a crash")
        # Python's fatal error, every thread's stack, through the parent (which says it
        # on the standard error, and reads which thread crashed)
        try:
            faulthandler.enable(file=cw, all_threads=True)
        except (OSError, ValueError, RuntimeError):
            pass
        return Watch(w, mark)
    os.close(w)
    os.close(cw)
    try:
        return _wait(pid, r, cr, mark, on_played)
    finally:
        os.close(r)
        os.close(cr)
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def end_with(parent: int) -> None:
    """In a child (Linux): it ends when its parent ``parent`` does, however that ends
    (``PR_SET_PDEATHSIG``): a ``kill -9`` of the command left simulate's matches playing
    on, their report printed on the terminal later, and a tournament's workers playing
    theirs."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:         # it ended before the line above: end too
        os._exit(1)


def _wait(pid: int, r: int, cr: int, mark: mmap.mmap,
          on_played: Callable[[list[Any]], bool]) -> Ended:
    os.set_blocking(r, False)
    os.set_blocking(cr, False)
    heard = _Heard(on_played)
    crash = _Crash()
    got: set[int] = set()
    while True:
        open_ = [fd for fd, reading in ((r, heard.reading), (cr, crash.reading)) if reading]
        if open_:
            select.select(open_, [], [], 0.2)
        else:
            signal.sigtimedwait(PASSED_ON, 0.2)   # (one that comes is taken below)
        heard.read(r)
        crash.read(cr)
        while True:
            info = signal.sigtimedwait(PASSED_ON, 0)
            if info is None:
                break
            if info.si_code <= 0 and _from_the_matches(info.si_pid, pid):
                continue                   # a bot's (see PASSED_ON)
            if info.si_signo == getattr(signal, "SIGALRM", -1):
                # a person's (kill -ALRM): passed on, it read as the time limit of the
                # plug-in thinking then, named for it; the matches' alarms are their own
                continue
            got.add(info.si_signo)
            # sent to this process alone (kill, a test): passed on; a terminal's Ctrl-C
            # (the kernel's) reached the child too, and twice would be two Ctrl-C's,
            # unless a bot took the child out of the terminal's group (os.setpgrp)
            if (info.si_code <= 0 and info.si_pid != pid) or not _in_group(pid):
                try:
                    os.kill(pid, info.si_signo)
                except OSError:
                    pass
        ended, status = os.waitpid(pid, os.WNOHANG)
        if ended:
            heard.read(r)
            crash.read(cr)
            seat, done = struct.unpack_from("ii", mark, 0)
            return Ended(os.waitstatus_to_exitcode(status), bool(done), heard.played, seat,
                         frozenset(got), crash.thread_seat(heard))


class _Crash:
    """Python's fatal error as the child wrote it, said on the standard error as it
    comes."""

    def __init__(self) -> None:
        self.text = b""
        self.reading = True

    def read(self, fd: int) -> None:
        if not self.reading:
            return
        chunk, self.reading = _available(fd)
        if chunk:
            self.text = (self.text + chunk)[-(1 << 20):]
            try:
                os.write(2, chunk)
            except OSError:
                pass

    def thread_seat(self, heard: _Heard) -> int | None:
        """See :attr:`Ended.thread_seat`."""
        found = re.search(rb"^Current thread 0x([0-9a-f]+)", self.text, re.M)
        if found is None or heard.main is None:
            return heard.exit_seat
        ident = int(found.group(1), 16)
        if ident == heard.main:
            return None
        return heard.owners.get(ident, -1)


#: The longest line of the child's kept while its end is awaited, and the most threads
#: whose starting seat is kept (a bot may write on the pipe too: bounded).
_LONGEST_LINE = 1 << 16
_MOST_THREADS = 100_000
#: The most bytes one look at a pipe takes (the rest waits for the next look).
_MOST_AT_ONCE = 1 << 20


def _available(fd: int) -> tuple[bytes, bool]:
    """What non-blocking ``fd`` holds now, and whether it may hold more later (False: its
    writing end is closed, or it cannot be read)."""
    out = b""
    while len(out) < _MOST_AT_ONCE:          # (a writer as fast as this reader: bounded)
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return out, True
        except OSError:
            return out, False
        if not chunk:
            return out, False
        out += chunk
    return out, True


def _from_the_matches(sender: int, pid: int) -> bool:
    """Whether process ``sender`` is the matches' process ``pid`` or one under it."""
    if sender == pid:
        return True
    from engine.bot_process import descendants
    return sender > 0 and sender in descendants(pid)


def _in_group(pid: int) -> bool:
    """Whether child ``pid`` is still in this process's group (what a terminal signals)."""
    try:
        return os.getpgid(pid) == os.getpgrp()
    except OSError:
        return True       # gone: nothing to pass on


class _Heard:
    """What the child said so far."""

    def __init__(self, on_played: Callable[[list[Any]], bool]) -> None:
        self.buffer = b""
        self.played = 0
        self.on_played = on_played
        self.reading = True
        #: the thread that plays the matches, and the seat whose call started each other
        self.main: int | None = None
        self.owners: dict[int, int] = {}
        #: the seat whose thread called os._exit (-1: not known; None: none did)
        self.exit_seat: int | None = None

    def read(self, r: int) -> None:
        """All there is to read now (never waits)."""
        if not self.reading:
            return
        # (reading ends when its end closed: the child's, and any a bot's own child held)
        chunk, self.reading = _available(r)
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        # the program's lines are short: a bot writing on the pipe without end of line
        # would grow what is kept without bound
        self.buffer = self.buffer[-_LONGEST_LINE:]
        for line in lines:
            try:
                said = json.loads(line)
            except ValueError:
                continue
            if type(said) is list and len(said) == 6:
                if self.on_played(said):      # (a line of the program's)
                    self.played += 1
            elif type(said) is list and len(said) == 2 and said[0] == "main" \
                    and type(said[1]) is int:
                self.main = said[1]
            elif type(said) is list and len(said) == 3 and said[0] == "threads" \
                    and type(said[1]) is int and type(said[2]) is list:
                for ident in said[2]:
                    if type(ident) is int and len(self.owners) < _MOST_THREADS:
                        self.owners[ident] = said[1]
            elif type(said) is list and len(said) == 2 and said[0] == "exit" \
                    and type(said[1]) is int:
                self.exit_seat = said[1]
