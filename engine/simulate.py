"""Bot-only hands and matches in memory, from a seed (simulations, tests, benchmarks).

Every seat decides from its own view; the full state is kept here, never shown to bots.
Randomness (the deck order, the first player, R4b reshuffles) comes from one
``random.Random(seed)`` owned by the dealer, separate from each bot's own generator.

Also here: the checks on a bot's answer (:func:`checked_choice`), the guard against a
bot that forks its process (:func:`call_bot`), and :class:`BotProcess`, a bot that
thinks in a child process of its own (networked ``play`` and ``simulate --network``
share it: the engine is the one package both may import).
"""

from __future__ import annotations

import json
import logging
import os
import random
import select
import selectors
import signal
import struct
import sys
import threading
import time
from collections.abc import Callable, Sequence, Sized
from typing import Any, NamedTuple, TypeVar

from .actions import ACTION_TYPES, Action
from .bots import SeatController, make_bot
from .errors import BotFailed, BotTooSlow, exception_words, one_line
from .game import apply_action, legal_actions, new_hand, reshuffle_action
from .rules import Rules, Seating
from .scoring import Match, SideScore, hand_winner, score_hand
from .state import OVER, RESHUFFLE, RESPOND, HandState, view_of


class HandRecord(NamedTuple):
    deck_order: tuple[int, ...]
    first_seat: int
    actions: tuple[Action, ...]
    final: HandState
    scores: tuple[SideScore, ...]
    winner: int


def _plain_value(value: object, depth: int = 0) -> bool:
    """A field of an action as the engine makes them: an int, a str, None, or a short
    tuple of those (nothing whose comparison runs a plug-in's code)."""
    if value is None or type(value) in (int, str, bool):
        return True
    return type(value) is tuple and depth == 0 and len(value) <= 16 and all(
        _plain_value(v, 1) for v in value)


def legal_choice(answer: object, legal: Sequence[Action]) -> Action | None:
    """The action of ``legal`` that ``answer`` is, or None. Compared by type as well as
    value: actions are named tuples, so a ``CoupFourre`` equals a ``Discard`` with the same
    fields and a plain tuple equals either; the legal action itself is returned, never the
    object a bot made. Only the engine's action types with plain fields are compared (the
    ``__eq__`` of someone's object may hang, past any time limit)."""
    for action in legal:      # the usual case: the bot handed back one of the legal list
        if action is answer:
            return action
    if type(answer) not in ACTION_TYPES or not all(
            _plain_value(v) for v in answer):  # type: ignore[attr-defined]
        return None
    try:
        found = legal[legal.index(answer)]    # the usual case, at C speed
    except Exception:   # not there, or someone's object whose == raises: not a legal move
        return None
    if type(found) is type(answer):
        return found
    for action in legal:                       # equal as tuples, another type: look on
        try:
            if type(answer) is type(action) and answer == action:
                return action
        except Exception:   # (as above)
            return None
    return None


def choose_checked(bot: SeatController, view: HandState, seat: int) -> Action:
    """``bot``'s move for ``seat``, which must be one of the legal actions: a bot that
    raises (``sys.exit`` too) or answers anything else raises :class:`BotFailed` (a
    plug-in's bug is named as such, never taken for a rule of the game). The bot gets a
    copy of the legal list: what it does to it changes nothing here."""
    return checked_choice(bot.choose, view, legal_actions(view, seat), seat)


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


class BotForked(Exception):
    """A bot called ``os.fork()`` and the copy came back out of its call (the copy was
    stopped at once; the bot is at fault)."""

    def __init__(self) -> None:
        super().__init__("forked its process (os.fork): the copy was stopped")


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
    here (``multiprocessing``) is no fault."""
    global _escape_pipe
    if _escape_pipe is None and hasattr(os, "fork"):
        r, w = os.pipe()
        os.set_blocking(r, False)
        _escape_pipe = (r, w)
    pid, forks = os.getpid(), _forks
    try:
        return fn(*args)
    finally:
        if os.getpid() != pid:
            _copy_ends()
        elif _forks != forks and _copy_came_back():
            raise BotForked()


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


def checked_choice(choose: Callable[[HandState, list[Action]], object], view: HandState,
                   legal: Sequence[Action], seat: int) -> Action:
    """:func:`choose_checked` for a caller that has the legal actions already (a table
    that runs the protocol) and a ``choose`` function."""
    try:
        answer = call_bot(choose, view, list(legal))
    except KeyboardInterrupt:
        if not INTERRUPT_IS_BOT_FAULT:
            raise                # the person at the keyboard pressed Ctrl-C
        raise BotFailed(seat, "raised KeyboardInterrupt") from None
    except BotForked as exc:
        raise BotFailed(seat, str(exc)) from None
    except BaseException as exc:  # noqa: BLE001 - sys.exit, or any class a plug-in raises
        # a time limit says what happened in its own words (the bot did not raise it)
        words = str(exc) if isinstance(exc, BotTooSlow) else f"raised {exception_words(exc)}"
        raise BotFailed(seat, words) from exc
    action = legal_choice(answer, legal)
    if action is None:
        raise BotFailed(seat, f"chose {answer_words(answer)}, which is not a legal move now")
    return action


def answer_words(answer: object) -> str:
    """A bot's answer in a message: its repr, bounded (the repr of someone else's object
    may be huge, raise, or hang: only plain values and the engine's actions are shown)."""
    kind = type(answer)
    if kind in (list, tuple, dict) or kind in ACTION_TYPES:
        sized: Sized = answer  # type: ignore[assignment]
        if len(sized) > 16:
            return f"a {kind.__name__} of {len(sized)} items"
        items: list[object] = ([*answer.keys(), *answer.values()] if isinstance(answer, dict)
                               else list(answer))  # type: ignore[call-overload]
        if not all(_plain_value(v) for v in items):
            return f"a {kind.__name__} holding other objects"
    elif kind not in (int, str, bool, float, type(None)):
        # someone's own class: its __repr__ is its code, and may hang past any limit
        return f"an object of type {kind.__name__[:60]}"
    try:
        text = repr(answer)
    except Exception as exc:   # noqa: BLE001 - a huge int's repr raises
        text = f"<{kind.__name__} whose repr raised {type(exc).__name__}>"
    return text if len(text) <= 200 else text[:197] + "..."


def play_hand(rules: Rules, seating: Seating, bots: Sequence[SeatController],
              dealer: random.Random, first_seat: int,
              match_scores: Sequence[int] = ()) -> HandRecord:
    """One hand with ``dealer``'s shuffle; the bots see ``match_scores`` (the totals before
    this hand, when it is part of a match)."""
    deck = list(rules.deck(seating))
    dealer.shuffle(deck)
    state = new_hand(rules, seating, deck, first_seat, match_scores)
    history: list[Action] = []
    while True:
        phase = state.phase
        if phase == OVER:
            break
        if phase == RESHUFFLE:
            action: Action = reshuffle_action(state, dealer)
        else:
            # One seat acts at a time; answers to a hazard are asked in ``actors`` order.
            seat = state.actors()[0] if phase == RESPOND else state.seat
            view = view_of(state, seat)
            action = choose_checked(bots[seat], view, seat)
        state = apply_action(state, action)
        history.append(action)
    return HandRecord(tuple(deck), first_seat, tuple(history), state, score_hand(state),
                      hand_winner(state))


class MatchRecord(NamedTuple):
    match: Match
    hands: tuple[HandRecord, ...]

    @property
    def winner(self) -> int:
        return self.match.winner()


def play_match(rules: Rules, seating: Seating, bots: Sequence[SeatController],
               seed: int, max_hands: int = 200) -> MatchRecord:
    """A whole match (R15: to 5000; R14: one hand), ties playing on (bounded by max_hands)."""
    if len(bots) != seating.n_players:
        raise ValueError(f"{seating.n_players} seats need {seating.n_players} bots")
    dealer = random.Random(seed)
    match = Match(rules, seating, dealer.randrange(seating.n_players))
    hands: list[HandRecord] = []
    while not match.over and len(hands) < max_hands:
        rec = play_hand(rules, seating, bots, dealer, match.next_first_seat(), match.totals())
        hands.append(rec)
        match = match.record(rec.scores)
    return MatchRecord(match, tuple(hands))


def replay_hand(rules: Rules, seating: Seating, deck_order: Sequence[int], first_seat: int,
                actions: Sequence[Action], match_scores: Sequence[int] = ()) -> HandState:
    """A hand is reproducible from its initial deck order and its action list."""
    state = new_hand(rules, seating, tuple(deck_order), first_seat, match_scores)
    for a in actions:
        state = apply_action(state, a)
    return state


class MatchTally:
    """Win and score statistics over many matches, seat by seat: one accumulator for every
    simulator (in process, fair deck, one process per seat)."""

    def __init__(self, seating: Seating) -> None:
        self.seating = seating
        self.games = 0
        self.hands = 0
        self.turns = 0
        self.wins = [0] * seating.n_players
        self.score_sum = [0] * seating.n_players

    def add(self, totals: Sequence[int], winner: int, hands: int, turns: int) -> None:
        """One finished match: its side totals, winning side, hands and turns played."""
        self.games += 1
        self.hands += hands
        self.turns += turns
        for s in range(self.seating.n_players):
            side = self.seating.side_of(s)
            self.score_sum[s] += totals[side]
            self.wins[s] += winner == side

    def summary(self, bot_names: Sequence[str], seconds: float,
                rate_digits: int = 1) -> dict[str, object]:
        """Hands, turns, speed and, per seat, wins, win rate and average score."""
        g = self.games
        return {
            "hands": self.hands,
            "seconds": round(seconds, 3),
            "hands_per_second": round(self.hands / seconds, rate_digits) if seconds > 0 else None,
            "avg_turns_per_hand": round(self.turns / self.hands, 1) if self.hands else 0,
            "players": [{"seat": s, "side": self.seating.side_of(s), "bot": bot_names[s],
                         "wins": self.wins[s], "win_rate": round(self.wins[s] / g, 4) if g else 0,
                         "avg_score": round(self.score_sum[s] / g, 1) if g else 0}
                        for s in range(self.seating.n_players)],
        }


# ----- a bot in a process of its own ---------------------------------------------------

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


def cap_memory(limit: int | None = None) -> None:
    """Bound the data this process may hold (``RLIMIT_DATA``: heap and private memory) to
    ``limit`` bytes more than it holds now: a plug-in that allocates without end gets a
    ``MemoryError`` (a bot fault) instead of taking the machine's memory. A lower bound
    already set stays; where the limit does not exist (not POSIX) nothing changes."""
    try:
        import resource
    except ImportError:          # not POSIX
        return
    extra = memory_limit() if limit is None else limit
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
    if soft != resource.RLIM_INFINITY and soft <= want:
        return
    try:
        resource.setrlimit(resource.RLIMIT_DATA, (want, hard))
    except (ValueError, OSError):
        pass


#: The longest reply a bot's child may send: an index, or words of 500 characters at
#: most (JSON of 4-byte characters, escaped, fits).
REPLY_BYTES = 8192


def _reply(conn: Any, kind: str, value: int | str) -> None:
    """The child's answer as the parent reads it (:meth:`BotProcess._ask`): plain JSON in
    one frame, never a pickle (its loading would run code in the parent)."""
    if isinstance(value, str):
        value = value[:500]
    conn.send_bytes(json.dumps([kind, value]).encode("utf-8"))


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
    (:func:`no_terminal`), every process in that group: its bot's own ones too."""
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


def _serve(conn: Any, spec: str, seed: int, parent: int | None = None) -> None:
    """The child: build the bot once, then answer each ``(view, legal)`` with
    ``["move", index]``, or ``["error", words]`` when the bot cannot be made or raises
    (``KeyboardInterrupt`` too: this process ignores Ctrl-C, the parent decides), or
    ``["illegal", words]`` (:func:`_reply`). A copy the bot forks ends as it comes back
    (:func:`call_bot`)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)            # a bot's prints must not reach the player's screen
    os.dup2(devnull, 2)
    no_terminal()                  # nor what it writes on /dev/tty
    # its bot may think with processes of its own (a multiprocessing pool), as it may in
    # simulate: "daemonic processes are not allowed to have children" failed its making;
    # they are in this process's group, which its parent ends with it (BotProcess)
    import multiprocessing
    multiprocessing.current_process().daemon = False
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if parent is not None:
        _end_with(parent)
    cap_memory()                   # a bot that allocates without end fails here, not the machine
    random.seed(seed)              # a plug-in using the global random repeats for a seed
    bot: SeatController | None = None
    failure = ""
    try:
        bot = call_bot(make_bot, spec, seed)
    except BotForked as exc:
        failure = f"could not be made ({exc})"
    except BaseException as exc:   # noqa: BLE001 - reported to the parent, in words
        failure = f"could not be made ({exception_words(exc)})"
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
            answer = call_bot(bot.choose, view, list(legal))
            # Only plain data goes back: the index of the legal move the answer is, or the
            # answer in words. Its own object, unpickled by the peer, ran its code there
            # (a __reduce__ or a __repr__ that sleeps held a networked table, unsaid).
            action = legal_choice(answer, legal)
            if action is None:
                _reply(conn, "illegal", answer_words(answer))
            else:
                _reply(conn, "move", next(i for i, a in enumerate(legal) if a is action))
        except BotForked as exc:
            _reply(conn, "error", str(exc))
        except BaseException as exc:   # noqa: BLE001 - a plug-in's own bug, named
            try:
                _reply(conn, "error", f"raised {exception_words(exc)}")
            except Exception:          # noqa: BLE001 - a channel the bot broke
                return


def log_bot_fault(spec: str, words: str) -> None:
    """A bot in its own process failed: said in the log, one line (every runner of one)."""
    log.warning("bot %s %s; a quick bot moves for it from now on", spec, words)


class BotProcess:
    """A seat controller (``choose(view, legal)``) whose bot lives in a child process,
    spawned (a fresh interpreter: nothing of this process, and none of its other
    plug-ins, is in it; nothing the bot does there reaches this process).

    Every wait has a limit: a child that does not answer within ``answer_within``
    seconds, answers a move that is not legal, raises (``KeyboardInterrupt`` and
    ``SystemExit`` too), forks or dies is stopped, and a quick in-process bot
    (``fallback``) makes that move and every later one of the match. ``on_fault`` is
    told once, in words ("raised KeyError: 'x'", "ended its process (exit code 0)"); by
    default they are logged. The bot's prints go nowhere."""

    def __init__(self, spec: str, seed: int, *, answer_within: float = ANSWER_WITHIN,
                 make_within: float | None = None, fallback: str = "heuristic",
                 on_fault: Callable[[str, str], None] | None = None) -> None:
        import multiprocessing
        ctx = multiprocessing.get_context("spawn")  # never fork a process with ZeroMQ threads
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_serve, args=(child, spec, seed, os.getpid()),
                                 daemon=True,
                                 name=f"bot {spec}")
        self._proc.start()
        self._started = time.monotonic()
        child.close()
        os.set_blocking(self._conn.fileno(), False)   # every wait on it has a deadline
        self.spec = spec
        self.answer_within = answer_within
        #: seconds for the child to start and make its bot (default: ``answer_within``)
        self.make_within = answer_within if make_within is None else make_within
        self._fallback = make_bot(fallback, seed)
        self._on_fault = on_fault or log_bot_fault
        self._broken = False
        self._made = False               # the child said its bot is made (see _ask)
        self._group = False              # the child was seen leading its process group

    def choose(self, view: HandState, legal: list[Action]) -> Action:
        if not self._broken:
            words = self._ask(view, legal)
            if isinstance(words, int):
                return legal[words]
            # its pipe may hold a late answer, and it may still be busy: never trust it again
            self._broken = True
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
        shared them: a bot that loads a model for 20 s was replaced at its first move)."""
        try:
            if not self._made:
                # counted from its start: the bot may be made while the table deals
                reply = self._reply_within(self._started + self.make_within)
                if reply is None:
                    return f"was not made within {self.make_within:g} s"
                if isinstance(reply, str):
                    return reply
                if reply[0] != "made":
                    return _reply_words(*reply)
                self._made = True
                self._group = self._leads_group()
            deadline = time.monotonic() + self.answer_within
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
                return f"ended its process (exit code {code})"
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
        try:
            if self._group or os.getpgid(pid) == pid:
                self._group = True
                os.killpg(pid, signal.SIGKILL)
        except OSError:            # gone already, and its group with it
            pass

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
