"""``millebornes tournament``: a round robin of bots with paired decks and honest statistics.

Every pair of bots plays ``--deals`` deals; each deal is played once per seat rotation
(the same match seed, so the same cards, with the bots' seats swapped), which cancels
most of the luck of the deal. Reported per bot: matches won with a 95% Wilson interval,
an Elo rating fitted to all results (Bradley-Terry), points per hand by source (the items
of :class:`engine.scoring.SideScore`) and, for bots that time themselves (the search bot),
decision-time percentiles. ``--jobs`` spreads matches over processes (one per core).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import logging
import math
import multiprocessing
import multiprocessing.connection
import multiprocessing.util
import os
import re
import signal
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import combinations
from typing import Any, NamedTuple, NoReturn

import engine.bot_guard as bot_guard
from engine import BotFailed, Rules, SeatController, Seating
from engine.bots import BOTS, BotIdentity, bot_identity, parse_bot_spec
from engine.scoring import SideScore
from engine.simulate import play_match
from p2p.text import safe_text

from . import i18n
from .args import MAX_JOBS, MAX_MATCHES, check_bot_entrant, rules_from, seating_from
from .bot_limit import (
    declared,
    free_bots,
    let_go,
    make_seat_bots,
    report_to_stdout,
    say_where_held,
    stop_children,
)
from .bot_process import descriptors_in_use, exit_words, limits, spoiled
from .i18n import _, ngettext
from .progress import Progress
from .supervise import end_with
from .words import rules_name, seating_words

log = logging.getLogger("cli.tournament")

Z95 = 1.959963984540054
SOURCES = SideScore._fields


# ----- statistics ----------------------------------------------------------------------

def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% by default); (0, 1) when n is 0."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def elo_ratings(names: Sequence[str], results: Sequence[tuple[int, int, float]],
                anchor: float = 1500.0, iterations: int = 2000) -> list[float]:
    """Elo ratings fitted to ``(i, j, score_of_i)`` results by Bradley-Terry maximum
    likelihood (minorise-maximise), mean ``anchor``.

    Each pair that met also gets one virtual draw, so a bot that won everything has a
    finite rating; the result does not depend on the order of the games."""
    k = len(names)
    wins = [0.0] * k
    games = [[0.0] * k for _ in range(k)]
    for i, j, s in results:
        wins[i] += s
        wins[j] += 1 - s
        games[i][j] += 1
        games[j][i] += 1
    for i in range(k):
        for j in range(k):
            if i != j and games[i][j]:
                games[i][j] += 1
                wins[i] += 0.5
    strength = [1.0] * k
    for _round in range(iterations):
        new = []
        for i in range(k):
            denom = sum(games[i][j] / (strength[i] + strength[j]) for j in range(k)
                        if j != i and games[i][j])
            new.append(wins[i] / denom if denom > 0 else strength[i])
        mean_log = sum(math.log(s) for s in new) / k
        new = [s / math.exp(mean_log) for s in new]
        done = max(abs(a - b) for a, b in zip(new, strength, strict=True)) < 1e-12
        strength = new
        if done:
            break
    return [anchor + 400 * math.log10(s) for s in strength]


def percentiles(values: Sequence[float], qs: Sequence[float] = (0.5, 0.95, 0.99)
                ) -> dict[str, float]:
    """Nearest-rank percentiles (and the maximum) of ``values``; empty when none."""
    if not values:
        return {}
    ordered = sorted(values)
    out = {f"p{round(q * 100)}": ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]
           for q in qs}
    out["max"] = ordered[-1]
    return out


# ----- the schedule --------------------------------------------------------------------

class Task(NamedTuple):
    """One match: who sits where (a bot index per seat), its seed, the rules and seating."""

    pair: tuple[int, int]
    deal: int
    rotation: int
    seat_bots: tuple[int, ...]
    seed: int
    rules: dict[str, Any]
    seating: tuple[int, int]
    specs: tuple[str, ...]


def rotations(n_teams: int) -> int:
    """Matches per deal and pair. With an even number of sides the two bots alternate
    (AB, BA; ABAB, BABA): each holds every place once. With an odd number one bot holds a
    side more, so the alternation and its mirror are played at every cyclic shift (ABA,
    BAA, AAB, BAB, ABB, BBA): each bot holds as many sides as the other, as often at
    every place (alternating three sides the first bot held five sides of nine and won
    55% against itself)."""
    return 2 if n_teams % 2 == 0 else 2 * n_teams


def seat_pattern(pair: tuple[int, int], n_teams: int, seating: Seating,
                 rotation: int) -> tuple[int, ...]:
    """Bot index per seat for one of the deal's :func:`rotations` (partners, R2a, always
    play the same bot)."""
    mirror = int(rotation >= n_teams)
    sides = [pair[(side + rotation) % n_teams % 2 ^ mirror] for side in range(n_teams)]
    return tuple(sides[seating.side_of(s)] for s in range(seating.n_players))


def schedule(specs: Sequence[str], rules: Rules, seating: Seating, deals: int,
             seed: int) -> list[Task]:
    """Every pair, every deal, every rotation; a deal's rotations share one match seed."""
    n_teams = seating.n_teams
    tasks = []
    for pair in combinations(range(len(specs)), 2):
        for d in range(deals):
            match_seed = seed * 1_000_003 + d
            for r in range(rotations(n_teams)):
                tasks.append(Task(pair, d, r, seat_pattern(pair, n_teams, seating, r),
                                  match_seed, rules.to_dict(),
                                  (seating.n_players, seating.n_teams), tuple(specs)))
    return tasks


class MatchResult(NamedTuple):
    task: Task
    winner_side: int
    side_points: tuple[tuple[int, ...], ...]   # per side: summed SideScore items
    hands: int
    decision_seconds: tuple[tuple[float, ...], ...]  # per seat
    #: a bot that failed to move (raised, or chose an illegal action) forfeits the match:
    #: its index in the entrants, and what it did (-1, "": no fault)
    faulty_bot: int = -1
    fault: str = ""


#: In a pool's worker: the resource limits it began with (None: not a worker).
_WORKER_LIMITS: dict[int, tuple[int, int]] | None = None
#: In a pool's worker: the descriptors it had open as it began (forked from the
#: tournament's process, with all it held then), and whether it has played a match.
_WORKER_DESCRIPTORS: int | None = None
_WORKER_PLAYED = False

#: The exit status of a worker that ends, spoiled, before a match (:func:`play_task`):
#: that match is played again, no bot's fault.
SPOILED_EXIT = 75


def play_task(task: Task) -> MatchResult:
    """Play one match of the schedule (in a worker process or in this one). Whatever the
    bots print goes to stderr (the report, ``--json`` too, is stdout's alone). A worker
    that an earlier match's plug-in spoiled (:func:`engine.bot_process.spoiled`: the
    files it kept open, a limit it lowered for good; it forfeited that match) ends
    before this one, outside any bot's call: its matches are played again, each in a
    fresh worker (the honest plug-ins of the next matches in it could not be loaded,
    "unknown bot", and forfeited them)."""
    global _WORKER_PLAYED
    if (_WORKER_LIMITS is not None and _WORKER_PLAYED
            and spoiled(_WORKER_LIMITS, _WORKER_DESCRIPTORS)):
        os._exit(SPOILED_EXIT)
    _WORKER_PLAYED = True
    rules = Rules.from_dict(task.rules)
    seating = Seating(*task.seating)
    bots: list[SeatController] = []
    try:
        with contextlib.redirect_stdout(sys.stderr):
            bots = make_seat_bots([task.specs[b] for b in task.seat_bots],
                                  task.seed * 7919 + 104729 * task.rotation,
                                  watch=_watch(task))
            if _THINKING is not None:
                bots = [_Watched(bot, b) for bot, b in zip(bots, task.seat_bots, strict=True)]
            rec = play_match(rules, seating, bots, task.seed)
            times = tuple(_decision_seconds(task.specs[b], bot)
                          for b, bot in zip(task.seat_bots, bots, strict=True))
            # freed here (what a bot prints as it goes is not the report's), each
            # plug-in's __del__ within its time (one that hung held the worker for ever)
            free_bots(bots, [task.specs[b] for b in task.seat_bots])
    except BotFailed as exc:
        # someone's bot broke: it loses this match (no points counted), the rest goes on
        with contextlib.redirect_stdout(sys.stderr):
            let_go(exc, bots, [task.specs[b] for b in task.seat_bots])
        return _forfeit(task, task.seat_bots[exc.seat], exc.reason)
    except KeyboardInterrupt:
        if not bot_guard.INTERRUPT_IS_BOT_FAULT:
            raise                # this process is the user's: Ctrl-C
        # in a worker, outside a bot's call (``_thread.interrupt_main`` from a bot's
        # thread): the worker's only code not ours is the match's plug-in
        plugins = [b for b in task.pair if parse_bot_spec(task.specs[b])[0] not in BOTS]
        return _forfeit(task, plugins[0] if plugins else task.pair[0],
                        "raised KeyboardInterrupt in its worker process (not a Ctrl-C)")
    points = []
    for side in range(seating.n_teams):
        items = [0] * len(SOURCES)
        for hand in rec.hands:
            for i, v in enumerate(hand.scores[side]):
                items[i] += v
        points.append(tuple(items))
    return MatchResult(task, rec.winner, tuple(points), len(rec.hands), times)


def _forfeit(task: Task, faulty: int, reason: str) -> MatchResult:
    """Entrant ``faulty`` forfeits ``task``'s match: the other side wins, no points."""
    seating = Seating(*task.seating)
    other = next(s for s, b in enumerate(task.seat_bots) if b != faulty)
    return MatchResult(task, seating.side_of(other),
                       tuple((0,) * len(SOURCES) for _ in range(seating.n_teams)), 0,
                       tuple(() for _ in task.seat_bots), faulty, reason)


#: In a worker of its own (:func:`_alone`): shared with the parent, the entrant whose
#: bot is being made or is choosing now (-1: none), so that the parent can tell which
#: of two plug-ins ended the process (the tournament ended, every match played lost).
_THINKING: Any = None


#: In a worker of its own: the descriptor of its record of a crash (Python's fatal error,
#: every thread's stack), which also says which entrant's call started each thread
#: (-1: none kept).
_CRASH_FD = -1


def _threads() -> set[int]:
    return {t.ident for t in threading.enumerate() if t.ident is not None}


#: In a worker of its own: the entrant whose call started each thread (by ident), and
#: the threads there were as the call being made now began (None: no call).
_OWNERS: dict[int, int] = {}
_CALL_BEFORE: set[int] | None = None


def _note_threads(entrant: int, before: set[int]) -> None:
    """The threads started since ``before``, said to be ``entrant``'s (its call's)."""
    global _CALL_BEFORE
    _CALL_BEFORE = None
    new = _threads() - before
    for ident in new:
        _OWNERS[ident] = entrant
    if new and _CRASH_FD >= 0:
        with contextlib.suppress(OSError):
            os.write(_CRASH_FD, "".join(f"thread {i} of {entrant}\n" for i in new).encode())


def _thread_owner(ident: int) -> int:
    """The entrant whose call started thread ``ident`` (the one being made or thinking
    now for a thread started in its call, not yet noted), or -1: not known."""
    if ident in _OWNERS:
        return _OWNERS[ident]
    me = threading.current_thread()
    if _CALL_BEFORE is not None and ident not in _CALL_BEFORE \
            and not isinstance(me, threading._DummyThread):   # (a raw _thread's: unknown)
        return int(_THINKING.value) if _THINKING is not None else -1
    return -1


def _watch(task: Task) -> Any:
    """For :func:`make_seat_bots`: marks the entrant whose bot is being made."""
    if _THINKING is None:
        return None
    before: set[int] = set()

    def mark(seat: int) -> None:
        global _CALL_BEFORE
        if seat >= 0:
            before.clear()
            before.update(_threads())
            _CALL_BEFORE = before
        else:
            _note_threads(_THINKING.value, before)
        _THINKING.value = task.seat_bots[seat] if seat >= 0 else -1
    return mark


class _Watched:
    """A bot whose calls are marked as its entrant's (in a worker of its own)."""

    def __init__(self, bot: SeatController, entrant: int) -> None:
        self.bot = bot
        self.entrant = entrant

    def __getattr__(self, name: str) -> Any:
        return getattr(self.bot, name)

    def choose(self, view: Any, legal: Any) -> Any:
        global _CALL_BEFORE
        _THINKING.value = self.entrant
        before = _CALL_BEFORE = _threads()
        try:
            return self.bot.choose(view, legal)
        finally:
            _THINKING.value = -1
            _note_threads(self.entrant, before)


def _worker_watched(marker: Any, crash_path: str | None = None) -> None:
    """:func:`_worker_start`, in a worker of its own that says who is thinking; an
    ``os._exit`` from a thread other than the match's says that nobody can be told. A
    crash of the interpreter is written to ``crash_path`` with every thread's stack
    (which thread crashed: one a plug-in started made the other plug-in, which was
    thinking then, forfeit), and so is the entrant whose call started each thread."""
    global _THINKING, _CRASH_FD
    _worker_start()
    _THINKING = marker
    if crash_path is not None:
        import faulthandler
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            fd = os.open(crash_path, os.O_WRONLY | os.O_APPEND)
            bot_guard.keep_descriptor(fd, "the worker's record of a crash")
            os.write(fd, f"main {threading.get_ident()}\n".encode())
            faulthandler.enable(file=fd, all_threads=True)
            _CRASH_FD = fd
    real_exit = os._exit

    def _exit(status: int) -> NoReturn:
        if threading.current_thread() is not threading.main_thread():
            # a bot's thread, while another bot may think: its own plug-in's, the one
            # whose call started it (-1: not known)
            ident = threading.get_ident()
            marker.value = _thread_owner(ident)
            if marker.value >= 0 and _CRASH_FD >= 0:
                with contextlib.suppress(OSError):
                    os.write(_CRASH_FD, f"thread {ident} of {marker.value}\n"
                                        f"exit from thread {ident}\n".encode())
        real_exit(status)
    os._exit = _exit


class TournamentStopped(Exception):
    """The round robin cannot go on (a worker ended, and which bot did it cannot be
    told): the matches played are still reported."""


def _worker_start() -> None:
    """In a worker process: a ``KeyboardInterrupt`` out of a bot is the bot's fault (a
    bot's ``raise KeyboardInterrupt`` or ``_thread.interrupt_main()`` ended the whole
    tournament, every match played lost). A real Ctrl-C reaches the main process too,
    which stops the run and reports what was played. As the worker ends, before its
    own exit handlers, the processes its bots started and left running are stopped:
    a bot's ``spawn`` pool still starting its processes printed a traceback per
    process after the report (the worker's exit had unlinked the pool's semaphores)."""
    global _WORKER_LIMITS, _WORKER_DESCRIPTORS
    bot_guard.INTERRUPT_IS_BOT_FAULT = True
    _WORKER_LIMITS = limits()
    for signum in _WORKERS_SIGNALS:          # (ignored by the tournament's process alone)
        signal.signal(signum, signal.SIG_DFL)
    _end_with_tournament()
    # a process group of its own: a bot's SIGTERM to "its group" (to end its helpers)
    # reached the tournament's process too, which ended with no report, no word of it
    # (it ends this worker alone, and its match is forfeited as "ended its worker")
    if hasattr(os, "setpgid"):
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
    # the program's own signal thread, before any plug-in's call (first started in one,
    # its time limit's, it was noted as that entrant's thread: a crash on it, its fault)
    bot_guard.signals_reach_process()
    # its pipes to the tournament: a bot that closed them ended the worker, its match
    # forfeited as "ended its worker process" (they are put back, and it is told)
    bot_guard.keep_open_descriptors("the worker's")
    # a bot that holds the interpreter in C past its time ends the worker (its match is
    # forfeited), saying where (the worker waited for ever, and the tournament with it)
    say_where_held(2)
    # before multiprocessing's own finalizers (priority 0: a semaphore's unlinking)
    multiprocessing.util.Finalize(None, _stop_bot_processes, exitpriority=100)
    # counted once the worker's own are open (its kept copies, its signal thread): taken
    # first, a worker forked with few free read as spoiled after each first match, and
    # its pool was broken and each match in flight played again alone (the review)
    _WORKER_DESCRIPTORS = descriptors_in_use()


def _end_with_tournament() -> None:
    """Linux: the worker ends when the tournament's process does, however that ends
    (``PR_SET_PDEATHSIG``): after a ``kill -9`` of the tournament its workers played
    their matches on, a plug-in that took its 30 s at every move keeping one for the
    best part of an hour (``simulate``'s matches process ends so already)."""
    known = multiprocessing.parent_process()
    if not sys.platform.startswith("linux") or known is None or known.pid is None:
        return
    end_with(known.pid)


def _stop_bot_processes() -> None:
    with contextlib.suppress(Exception):
        stop_children()


def _decision_seconds(spec: str, bot: SeatController) -> tuple[float, ...]:
    """The decision times a built-in bot kept (the search bot's ``decision_seconds``); a
    plug-in's attribute of that name is its own business, never read."""
    if parse_bot_spec(spec)[0] not in BOTS:
        return ()
    seconds = getattr(bot, "decision_seconds", ())
    return tuple(float(x) for x in seconds) if isinstance(seconds, list) else ()


def run_matches(tasks: Sequence[Task], jobs: int) -> Generator[MatchResult, None, None]:
    """Results in schedule order (so the report does not depend on ``jobs``). A worker
    that dies (a bot called ``os._exit``, or crashed the interpreter) takes only its own
    match: the matches that were in flight are played again one by one in a worker of
    their own, the one that ends its worker again is forfeited by its plug-in bot, and the
    round robin goes on (it lost every result before). With one job, the matches are
    played in this process, unless a plug-in bot plays: then in one worker, so that a
    plug-in ending its process (``os._exit``) costs its own match, not the whole run and
    every result before it."""
    if jobs <= 1 and not any(_plugin_entrants(t) for t in tasks):
        yield from map(play_task, tasks)
        return
    jobs = max(1, jobs)
    # the workers' parent: a bot that tells "its parent" it is ready (SIGUSR1) ended
    # the tournament, every match played lost, no word of it (the workers put the
    # default back, _worker_start)
    deaf = {signum: signal.signal(signum, signal.SIG_IGN) for signum in _WORKERS_SIGNALS} \
        if threading.current_thread() is threading.main_thread() else {}
    try:
        yield from _run_in_workers(tasks, jobs)
    finally:
        for signum, handler in deaf.items():
            signal.signal(signum, handler)


#: Signals a tournament's process ignores while its workers play: one that ends a process
#: by default and that the program does not use there, sent to it by a bot.
_WORKERS_SIGNALS = tuple(getattr(signal, name) for name in ("SIGUSR1", "SIGUSR2")
                         if hasattr(signal, name))


def _run_in_workers(tasks: Sequence[Task], jobs: int) -> Generator[MatchResult, None, None]:
    """:func:`run_matches` in worker processes."""
    ctx = multiprocessing.get_context("spawn" if sys.platform == "darwin" else "fork")
    todo = iter(tasks)
    pending: deque[tuple[Task, Any]] = deque()
    pool = ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_worker_start)

    def submit(t: Task) -> None:
        """``t`` into the pool; a pool that broke since the last result takes it as a
        future that says so (submit raised, and the whole tournament was lost)."""
        try:
            pending.append((t, pool.submit(play_task, t)))
        except BrokenProcessPool as exc:
            broken: Future[MatchResult] = Future()
            broken.set_exception(exc)
            pending.append((t, broken))

    try:
        # a few matches in flight per worker, never the whole schedule at once (a million
        # deals would be millions of futures)
        for t in itertools.islice(todo, 4 * jobs):
            submit(t)
        while pending:
            task, future = pending[0]
            try:
                result = future.result()
            except KeyboardInterrupt:
                # Ctrl-C: what the workers had finished is the run's, in order (the signal
                # came as the match waited for was done, its result not yet taken:
                # "interrupted after 1 of 6" with two played, now and then)
                yield from _finished(pending)
                raise
            except BrokenProcessPool:
                close_pool(pool)
                suspects = [t for t, _f in pending]
                pending.clear()
                for t in suspects:            # in schedule order, each in a worker alone
                    yield _alone(t, ctx)
                pool = ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_worker_start)
                for t in itertools.islice(todo, 4 * jobs):
                    submit(t)
                continue
            pending.popleft()
            for t in itertools.islice(todo, 1):
                submit(t)
            yield result
    finally:
        close_pool(pool)


def _finished(pending: deque[tuple[Task, Any]]) -> Iterator[MatchResult]:
    """At a Ctrl-C: the results at the head of ``pending`` that had come back, in order,
    up to the first match not over. Not waited for: a match the workers play on after
    the Ctrl-C is not the run's, and one a worker forfeited for a KeyboardInterrupt (in a
    bot's call or out of it) then was the person's Ctrl-C reaching the worker too, no
    fault of its bot's."""
    for _task, future in pending:
        if not future.done() or future.cancelled() or future.exception() is not None:
            return
        res: MatchResult = future.result()
        if res.faulty_bot >= 0 and "KeyboardInterrupt" in res.fault:
            return
        yield res


#: Seconds a worker may take to end once its pool is shut down (it ends at once, unless
#: a bot left a thread of its own running in it).
WORKER_GRACE = 2.0


def close_pool(pool: ProcessPoolExecutor) -> None:
    """Shut ``pool`` down without waiting for its work, and stop a worker still there
    after :data:`WORKER_GRACE`: a bot's thread (not a daemon) kept its worker alive after
    the tournament (up to as long as the thread ran, forever for a wait), holding its
    output open (``millebornes tournament ... | tail`` never ended), and a pool closed
    by ``with``, for a match played again alone, waited for it."""
    procs = list((getattr(pool, "_processes", None) or {}).values())   # before shutdown
    pool.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + WORKER_GRACE
    left = [p for p in procs if p.exitcode is None]
    while left and time.monotonic() < deadline:
        multiprocessing.connection.wait([p.sentinel for p in left],
                                        max(0.0, deadline - time.monotonic()))
        left = [p for p in left if p.exitcode is None]
    for p in left:
        log.warning("a tournament worker (process %d) did not end with its pool (a bot's "
                    "thread, perhaps): stopped", p.pid)
        try:
            p.kill()
        except (OSError, ValueError):
            pass
    if left:   # gone, so that the processes its bot started are this one's to stop
        multiprocessing.connection.wait([p.sentinel for p in left], 1.0)


def _plugin_entrants(task: Task) -> list[int]:
    """The entrants of ``task``'s pair that are plug-in bots (not this project's)."""
    return [b for b in task.pair if parse_bot_spec(task.specs[b])[0] not in BOTS]


def _alone(task: Task, ctx: Any) -> MatchResult:
    """``task`` played in a worker process of its own: its result, or a forfeit by its
    plug-in bot when that worker dies too."""
    plugins = _plugin_entrants(task)
    seen: list[int] = []
    ended = ""
    threads: list[bool] = []
    spoiled_exits = 0
    while len(seen) < 2:
        marker = ctx.Value("i", -1, lock=False)
        handle, crash_path = tempfile.mkstemp(prefix="millebornes-worker-", suffix=".txt")
        os.close(handle)
        solo = ProcessPoolExecutor(1, mp_context=ctx, initializer=_worker_watched,
                                   initargs=(marker, crash_path))
        procs: list[Any] = []
        try:
            future = solo.submit(play_task, task)
            procs = list((getattr(solo, "_processes", None) or {}).values())
            return future.result()
        except BrokenProcessPool:
            pass
        finally:
            close_pool(solo)
            crashed = _crashed_thread(crash_path, task)
            with contextlib.suppress(OSError):
                os.unlink(crash_path)
        if crashed is None and spoiled_exits < 2 and any(
                p.exitcode == SPOILED_EXIT for p in procs):
            spoiled_exits += 1     # ended before the match, no bot's doing: again
            continue
        # how it ended, said when a signal ended it ("SIGSEGV, a crash: ...")
        codes = [p.exitcode for p in procs if isinstance(p.exitcode, int) and p.exitcode < 0]
        ended = ended or (f" ({exit_words(codes[0])})" if codes else "")
        if crashed is None:
            seen.append(int(marker.value))
        else:
            # a crash from a thread of the process's: the plug-in whose call started it,
            # whoever was thinking then
            seen.append(crashed)
            threads.append(True)
        if seen[0] not in plugins:
            break
    seating = Seating(*task.seating)
    if len(seen) == 2 and seen[0] == seen[1]:
        # the worker ended twice in this plug-in's own call, the same one (a process
        # ended by a thread would end at another moment: another bot might be thinking)
        faulty = seen[0]
    elif len(plugins) == 1:
        faulty = plugins[0]          # the match's only code not ours
    else:
        # two plug-ins, and the worker did not end twice in one's call (a thread of
        # one, perhaps): the matches played are reported, and the run stops here
        raise TournamentStopped(_(
            "stopped: a worker process ended in the middle of a match of %(a)s and %(b)s "
            "(a bot left the process, or crashed it), and which of the two did it cannot "
            "be told: the tournament cannot go on; the report covers the matches played "
            "before it") % {"a": task.specs[task.pair[0]],
                                               "b": task.specs[task.pair[1]]})
    other = next(s for s, b in enumerate(task.seat_bots) if b != faulty)
    return MatchResult(task, seating.side_of(other),
                       tuple((0,) * len(SOURCES) for _ in range(seating.n_teams)), 0,
                       tuple(() for _ in task.seat_bots), faulty,
                       "ended its worker process in the middle of the match"
                       + (", from a thread it started" if threads else "") + ended)


def _crashed_thread(path: str, task: Task) -> int | None:
    """From a worker's record of a crash (:func:`_worker_watched`): when a thread other
    than the match's crashed the interpreter, the entrant whose call started it (-1:
    none known); None when the match's own thread did, or no crash is told there (an
    ``os._exit``, a SIGKILL). The fatal error goes to the log (where in its code)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(1 << 20)
    except OSError:
        return None
    main = re.search(r"^main (\d+)$", text, re.M)
    current = re.search(r"^Current thread 0x([0-9a-f]+)", text, re.M)
    exited = re.search(r"^exit from thread (\d+)$", text, re.M)
    if main is None or (current is None and exited is None):
        return None
    fatal = text.find("Fatal Python error")
    if fatal >= 0:
        log.warning("a worker playing %s ended: %s", " against ".join(
            task.specs[b] for b in task.pair), text[fatal:][:4000])
    ident = int(current.group(1), 16) if current is not None else int(exited.group(1))  # type: ignore[union-attr]
    if ident == int(main.group(1)):
        return None
    owner = -1
    for line in re.finditer(r"^thread (\d+) of (-?\d+)$", text, re.M):
        if int(line.group(1)) == ident:
            owner = int(line.group(2))       # (the last: an ident may be used again)
    return owner


# ----- the report ----------------------------------------------------------------------

def summarise(specs: Sequence[str], seating: Seating,
              results: Sequence[MatchResult]) -> dict[str, Any]:
    k = len(specs)
    score = [0.0] * k
    played = [0] * k
    won = [0] * k
    hands = [0] * k
    points = [[0] * len(SOURCES) for _ in range(k)]
    times: list[list[float]] = [[] for _ in range(k)]
    faults: list[list[str]] = [[] for _ in range(k)]
    pair_stats: dict[tuple[int, int], list[float]] = {}
    elo_games: list[tuple[int, int, float]] = []
    for res in results:
        t = res.task
        if res.faulty_bot >= 0:
            faults[res.faulty_bot].append(res.fault)
        side_bot = {seating.side_of(s): b for s, b in enumerate(t.seat_bots)}
        a, b = t.pair
        winner_bot = side_bot.get(res.winner_side, -1) if res.winner_side >= 0 else -1
        s_a = 1.0 if winner_bot == a else 0.0 if winner_bot == b else 0.5
        for bot, s in ((a, s_a), (b, 1 - s_a)):
            played[bot] += 1
            score[bot] += s
            won[bot] += s == 1.0
        ps = pair_stats.setdefault(t.pair, [0.0, 0])
        ps[0] += s_a
        ps[1] += 1
        elo_games.append((a, b, s_a))
        for side, items in enumerate(res.side_points):
            bot = side_bot[side]
            hands[bot] += res.hands
            for i, v in enumerate(items):
                points[bot][i] += v
        for s, ts in enumerate(res.decision_seconds):
            times[t.seat_bots[s]].extend(ts)
    elo = elo_ratings(specs, elo_games)
    bots = []
    for i, spec in enumerate(specs):
        lo, hi = wilson(score[i], played[i])
        per_hand = {src: round(points[i][j] / hands[i], 1) if hands[i] else 0.0
                    for j, src in enumerate(SOURCES)}
        per_hand["total"] = round(sum(points[i]) / hands[i], 1) if hands[i] else 0.0
        entry: dict[str, Any] = {
            "bot": spec, "matches": played[i], "wins": won[i], "score": score[i],
            "win_rate": round(score[i] / played[i], 4) if played[i] else 0.0,
            "ci95": [round(lo, 4), round(hi, 4)], "elo": round(elo[i], 1),
            "points_per_hand": per_hand,
        }
        if faults[i]:
            entry["forfeits"] = len(faults[i])
            entry["first_fault"] = faults[i][0]
        if times[i]:
            entry["decision_seconds"] = {k2: round(v, 4) for k2, v in
                                         percentiles(times[i]).items()}
            entry["decisions"] = len(times[i])
        bots.append(entry)
    pairs = []
    for (a, b), (s, n) in sorted(pair_stats.items()):
        lo, hi = wilson(s, int(n))
        pairs.append({"bot": specs[a], "opponent": specs[b], "matches": int(n), "score": s,
                      "win_rate": round(s / n, 4), "ci95": [round(lo, 4), round(hi, 4)]})
    return {"bots": bots, "pairs": pairs}


def _one_bot_once(specs: Sequence[str]) -> None:
    """A bot entered twice under two spellings is refused as one named twice: names are
    read without case and a level stands for its spec (docs/bots.md), so ``mybot,MyBot``
    and ``normal,heuristic`` played a bot against itself as two entrants, each rated; and
    the options are the ones its factory is called with, the defaults it declares counted
    (:func:`engine.bots.bot_identity`; a plug-in's found by its check): ``heuristic`` and
    ``heuristic:match=1`` were two entrants, where ``mybot:x=1,mybot:x=1.0`` was one."""
    seen: dict[BotIdentity, str] = {}
    for spec in specs:
        key = bot_identity(spec, declared(spec))
        if key in seen:
            raise ValueError(_("--bots names one bot twice (%(first)s and %(second)s are the "
                               "same bot); give each entrant once")
                             % {"first": seen[key], "second": spec})
        seen[key] = spec


def run_tournament(args: argparse.Namespace) -> int:
    specs = [b.strip() for b in args.bots.split(",") if b.strip()]
    for spec in specs:   # names and options checked before any match starts (and before
        # their count: "--bots foo" was told it needs two bots, not that foo is none)
        check_bot_entrant(spec)
    if len(specs) < 2:
        raise ValueError(_("--bots needs at least two bots for a round robin"))
    if len(set(specs)) != len(specs):
        raise ValueError(_("--bots names a bot twice; give each entrant once"))
    _one_bot_once(specs)
    # the parser's bounds, for a Namespace built in code
    for what, value, low, high in (("--deals", args.deals, 1, MAX_MATCHES),
                                   ("--jobs", args.jobs, 0, MAX_JOBS)):
        if not low <= value <= high:
            raise ValueError(_("%(what)s must be %(low)d to %(high)d, not %(text)s")
                             % {"what": what, "low": low, "high": high, "text": value})
    rules = rules_from(args)
    seating = seating_from(args.players, args.teams)
    if seating.n_teams < 2:
        raise ValueError(_("a tournament needs at least two sides"))
    tasks = schedule(specs, rules, seating, args.deals, args.seed)
    jobs = args.jobs or (multiprocessing.cpu_count() or 1)
    started = time.monotonic()
    results: list[MatchResult] = []
    progress = None if args.quiet else Progress(len(tasks), sys.stderr, log=True)
    interrupted = False
    cannot_go_on: str | None = None
    matches = run_matches(tasks, min(jobs, len(tasks)))
    while True:
        try:
            res = next(matches)
        except StopIteration:
            break
        except KeyboardInterrupt:
            # Ctrl-C: the matches played so far are reported, then the run ends (130)
            interrupted = True
            matches.close()
            break
        except TournamentStopped as exc:
            # the matches played so far are reported (they were lost), then the run ends
            cannot_go_on = str(exc)
            break
        results.append(res)
        if progress is not None:
            # a terminal's line redrawn at most 4 times a second; a log's at each tenth
            progress.tick(len(results))
    if progress is not None:
        progress.close()
    if interrupted and not results:
        raise KeyboardInterrupt
    stopped = (_("stopped: interrupted after %(done)d of %(total)d matches; the report "
                 "covers them") % {"done": len(results), "total": len(tasks)}
               if interrupted else None)
    if cannot_go_on is not None:
        stopped = cannot_go_on
    code = _report(args, specs, rules, seating, results, started, stopped)
    if stopped is not None:
        print(i18n.display(stopped), file=sys.stderr)
        return 1 if cannot_go_on is not None else 130
    return code


def _indented(text: str, width: int = 80) -> list[str]:
    """A report line under its two-space indent, wrapped at words within ``width`` cells,
    the lines after the first under it by two more."""
    lines = i18n.wrap(text, width - 4)
    return ["  " + lines[0]] + ["    " + line for line in lines[1:]]


def source_lines(head: str, items: Sequence[str], width: int = 80) -> list[str]:
    """A bot's points by source: ``head`` then the items, each kept whole on a line of at
    most ``width`` cells, the next lines under the first item (a line of 96 columns was
    cut by the terminal in the middle of a number: "Trip completed 3" / "71.4")."""
    indent = i18n.cells(head)
    lines = i18n.wrap(", ".join(item.replace(" ", i18n.NO_BREAK) for item in items),
                      max(1, width - indent))
    return [head + lines[0]] + [" " * indent + line for line in lines[1:]]


#: The most characters of a bot's spec the text report shows (the JSON has it whole).
SHOWN_SPEC = 40


def shown_specs(specs: Sequence[str]) -> dict[str, str]:
    """Each spec as the text report names it: a long one (an option's value of weights
    written out, ``mybot:w=...``) by its start and its end (each line of the table, and
    each item of its points by source, one a line, was padded to its whole width: a
    spec of 120,000 characters made a report of 18 MB); where two would read alike
    (they differ in their middle only: one of many weights changed), each with a digest
    of it whole, "#" and 8 hexadecimal digits (they were shown whole: the report's lines
    were padded to their width again)."""
    import hashlib

    def short(spec: str) -> str:
        if len(spec) <= SHOWN_SPEC:
            return spec
        return spec[:SHOWN_SPEC - 15] + "..." + spec[-12:]
    shown = {spec: short(spec) for spec in specs}
    alike = {v for v in shown.values() if list(shown.values()).count(v) > 1}
    return {spec: label + "#" + hashlib.sha256(spec.encode("utf-8", "surrogatepass"))
            .hexdigest()[:8] if label in alike and label != spec else label
            for spec, label in shown.items()}


def _report(args: argparse.Namespace, specs: list[str], rules: Rules, seating: Seating,
            results: list[MatchResult], started: float, stopped: str | None = None) -> int:
    """The report of ``results`` on stdout (``--json``: one object, with ``stopped``
    when the run was interrupted)."""
    report = summarise(specs, seating, results)
    if stopped is not None:
        report["stopped"] = stopped
    report.update({"rules": rules.to_dict(), "seating": seating.label(),
                   "players": seating.n_players, "deals": args.deals, "seed": args.seed,
                   "matches": len(results), "seconds": round(time.monotonic() - started, 1)})
    if args.json:
        print(json.dumps(report))
        return 0
    print(i18n.display(_("%(n)d matches, %(rules)s, %(players)d players (%(seating)s), "
                         "%(deals)d deals per pair, %(seconds)s s")
                       % {"n": len(results), "rules": rules_name(args.rules),
                          "players": seating.n_players, "seating": seating_words(seating),
                          "deals": args.deals, "seconds": report["seconds"]}))
    shown = shown_specs(specs)
    w = max(len(s) for s in shown.values())
    pad = i18n.pad
    labels = [_("bot"), _("matches"), _("win%"), _("95% CI"), "Elo", _("pts/hand")]
    # each column as wide as its heading in this language ("pts/manche" was cut to
    # "pts/manc…" in French), at least as wide as its numbers
    widths = [max(n, i18n.cells(label)) for n, label in zip((w, 7, 6, 13, 6, 9), labels,
                                                            strict=True)]
    head = [pad(labels[0], widths[0])] + [pad(label, n, "right")
                                          for label, n in zip(labels[1:], widths[1:],
                                                              strict=True)]
    print(i18n.display(" ".join(head)))
    for b in sorted(report["bots"], key=lambda e: -e["elo"]):
        lo, hi = b["ci95"]
        cells = (shown[b["bot"]], str(b["matches"]), f"{100 * b['win_rate']:.1f}%",
                 f"{100 * lo:.1f}-{100 * hi:.1f}%", f"{b['elo']:.0f}",
                 f"{b['points_per_hand']['total']:.1f}")
        print(" ".join([f"{cells[0]:<{widths[0]}}"] + [f"{c:>{n}}" for c, n in
                                                        zip(cells[1:], widths[1:],
                                                            strict=True)]))
    print(i18n.display(_("points per hand by source:")))
    for b in report["bots"]:
        items = [f"{i18n.score_item_name(src) if src in i18n.SCORE_ITEMS else src} {v}"
                 for src, v in b["points_per_hand"].items() if v and src != "total"]
        for line in source_lines(f"  {shown[b['bot']]:<{w}} ", items):
            print(i18n.display(line))
    print(i18n.display(_("pairs (first bot's share of match wins):")))
    for p in report["pairs"]:
        lo, hi = p["ci95"]
        print(i18n.display("  " + _("%(bot)s vs %(other)s: %(rate)s (95%% CI %(ci)s, "
                                    "%(n)d matches)")
                           % {"bot": shown[p["bot"]], "other": shown[p["opponent"]],
                              "rate": f"{100 * p['win_rate']:.1f}%",
                              "ci": f"{100 * lo:.1f}-{100 * hi:.1f}%", "n": p["matches"]}))
    for b in report["bots"]:
        if "decision_seconds" in b:
            d = b["decision_seconds"]
            # wrapped at words under its indent: 84 columns, the terminal cut "searched"
            for line in _indented(_(
                    "%(bot)s decision time: p50 %(p50)d ms, p95 %(p95)d ms, p99 %(p99)d ms, "
                    "max %(max)d ms (%(n)d searched decisions)") % {
                        "bot": shown[b["bot"]], "n": b["decisions"],
                        **{k: round(1000 * d[k]) for k in ("p50", "p95", "p99", "max")}}):
                print(i18n.display(line))
    for b in report["bots"]:
        if b.get("forfeits"):
            print(i18n.display("  " + ngettext(
                "%(bot)s failed to move and forfeited %(n)d match (first: %(fault)s)",
                "%(bot)s failed to move and forfeited %(n)d matches (first: %(fault)s)",
                b["forfeits"]) % {"bot": shown[b["bot"]], "n": b["forfeits"],
                                  "fault": safe_text(b["first_fault"], 200)}))
    return 0


#: ``millebornes tournament`` (see :mod:`cli.main`).
def run(args: argparse.Namespace) -> int:
    # bots run here: what they write below sys.stdout must not break the report
    with report_to_stdout():
        return run_tournament(args)
