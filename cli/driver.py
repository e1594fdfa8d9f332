"""Table drivers: what the console needs from a table, whoever runs it.

The console (``cli.app`` full screen, ``cli.plain`` line mode) talks only to a
:class:`TableDriver`. :class:`LocalDriver` runs a whole match in this process against
bots; :class:`cli.netdriver.NetDriver` implements the same protocol over a networked
seat, where the other seats are remote peers.

Only the human seat's *view* (``engine.view_of``) ever leaves a driver, and bots are
given only their own seat's view.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Sequence
from typing import NamedTuple, Protocol

from engine import (
    Action,
    Draw,
    HandState,
    Rules,
    Seating,
    apply_action,
    legal_actions,
    new_hand,
    reshuffle_action,
    view_of,
)
from engine.bot_process import ANSWER_WITHIN, BotProcess
from engine.bots import SeatController, bot_name_key, make_bot
from engine.errors import BotFailed
from engine.scoring import Match, SideScore, score_hand
from engine.simulate import choose_checked
from engine.state import DRAW, RESHUFFLE

from .i18n import _
from .words import (
    bot_failed_line,
    bot_thinking_line,
    describe,
    end_line,
    hand_start_line,
    match_over_line,
    you_names,
)

MAX_HANDS = 200  # a match of ties must still end

#: where a bot's fault is logged (as it was when the bot played in this process)
log = logging.getLogger("cli.bots")

#: Seconds a bot in its own process thinks before the console says so ("Bo (a bot) is
#: thinking (up to 30 s)."): a search bot's quick moves are not said each time.
THINKING_SAID_AFTER = 1.0

#: Seconds a bot in its own process may think about a move (a networked table's bound):
#: past them it is stopped, said, and a quick bot moves for it from then on.
BOT_MOVE_LIMIT = ANSWER_WITHIN

#: Bots quick enough to think on the console's own thread (well under a millisecond a
#: move: a process of their own would cost more than their thinking); any other bot, a
#: plug-in or the search bot, thinks in a process of its own (:class:`BotProcess`).
QUICK_BOTS = frozenset({"random", "heuristic", "heuristic-v1", "easy", "normal"})


class _Thinking:
    """A bot's move being thought in a thread of this process, while the console keeps
    answering keys: the thread only waits on the bot's process (a pipe, with a deadline:
    :class:`BotProcess`), so the screen's thread runs meanwhile."""

    def __init__(self, seat: int, bot: SeatController, state: HandState) -> None:
        self.seat, self.bot, self.state = seat, bot, state
        self.started = time.monotonic()
        self.action: Action | None = None
        self.error: BaseException | None = None
        view = view_of(state, seat)
        legal = legal_actions(view, seat)
        self.thread = threading.Thread(target=self._run, args=(view, legal), daemon=True,
                                       name=f"bot-{seat}-thinks")
        self.thread.start()

    def _run(self, view: HandState, legal: list[Action]) -> None:
        try:
            self.action = self.bot.choose(view, legal)
        except BaseException as exc:  # noqa: BLE001 - said as the bot's fault, never lost
            self.error = exc


class PeerStatus(NamedTuple):
    """One seat at the table as the console shows it."""

    seat: int
    name: str
    kind: str    # "you", "bot" or "peer"
    state: str   # "ready", "thinking", "offline", ...


class TableDriver(Protocol):
    """The console's whole interface to a table (local bots now, network peers later)."""

    seat: int                       # the human seat
    names: tuple[str, ...]          # one name per seat
    rules: Rules
    seating: Seating
    @property
    def events(self) -> list[str]:
        """The log, in words, oldest first."""
        ...

    match: Match                    # finished hands' scores (engine.scoring.Match)
    hand_no: int                    # 1-based number of the hand in play (or just finished)

    def view(self) -> HandState:
        """The human seat's view of the hand in play (or just finished)."""
        ...

    def said_names(self) -> tuple[str, ...]:
        """The names as a sentence on this screen says them: the human seat is "You"
        (the verb agrees: "you play first", "Match over: you win")."""
        ...

    def legal(self) -> list[Action]:
        """What the human seat may do now (empty when it is someone else's move)."""
        ...

    def my_move(self) -> bool:
        """Does the table wait for the human seat?"""
        ...

    def submit(self, action: Action) -> None:
        """Play the human seat's action; raises ``engine.IllegalAction`` if refused."""
        ...

    def others_pending(self) -> bool:
        """Is there a move by another seat (or chance) to wait for?"""
        ...

    def step_others(self, wait: float = 0.0) -> bool:
        """Advance one move of another seat; ``False`` when nothing was to do.

        Blocks at most ``wait`` seconds: a network driver applies a move that has arrived
        (waiting that long for one), or returns ``False`` while ``others_pending()`` stays
        true; the console polls. A line-mode loop with nothing else to do passes a wait
        (it then hears a move the moment it lands); the full-screen loop passes none.
        """
        ...

    @property
    def hand_over(self) -> bool: ...

    @property
    def over(self) -> bool:
        """Is the whole match over?"""
        ...

    @property
    def ended_early(self) -> bool:
        """Is the match over before its end (a cheat stopped it, the players agreed to end
        it)? Its scores then name no winner, and no tie either."""
        ...

    def next_hand(self) -> None:
        """Deal the next hand of the match (after ``hand_over``, unless ``over``)."""
        ...

    def peers(self) -> list[PeerStatus]: ...

    def activity(self) -> str | None:
        """What the table is busy with besides a player's move, in words (a network
        driver: "shuffling the deck: 2 of 4 peers done"), or ``None``."""
        ...

    def last_scores(self) -> tuple[SideScore, ...] | None:
        """Scores of the hand that just ended (``None`` while it is in play)."""
        ...


def moved_on(driver: TableDriver, view: HandState) -> bool:
    """Whether the table is no longer at ``view`` with this seat to move: a move chosen on
    ``view`` by the seat's own bot (``--auto-bot``, thinking up to its time) is dropped
    once a seat left, the table stopped or the hand ended meanwhile."""
    return driver.over or driver.hand_over or not driver.my_move() or driver.view() != view


class LocalDriver:
    """A whole match in this process: one human seat, bots for the others.

    Randomness (deck orders, the first player, R4b reshuffles) comes from one
    ``random.Random(seed)``; each bot has its own generator derived from the seed.
    The first player of hand 1 is drawn from the seed and rotates left each hand (R3).
    With ``auto_draw`` the human seat's draw is made for it when the pile is the only
    source (classic draws, replacement draws): there is nothing to decide.
    """

    #: kept nowhere: leaving ends it (the console says so, never "it is saved")
    saves_game = False

    def __init__(self, rules: Rules, seating: Seating, names: Sequence[str], seat: int = 0,
                 seed: int = 0,
                 bots: Sequence[SeatController | str | None] | str = "heuristic",
                 auto_draw: bool = True, lang: str | None = None) -> None:
        n = seating.n_players
        if len(names) != n:
            raise ValueError(f"{n} seats need {n} names")
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat} is not a seat")
        self.rules = rules
        self.seating = seating
        #: the level or bot the player chose for a bot's seat, by seat (the help names it)
        self.bot_levels: dict[int, str] = {}
        self.names = tuple(names)
        self.seat = seat
        self.seed = seed
        self.lang = lang
        self.auto_draw = auto_draw
        self.dealer = random.Random(seed)
        self._closed = False
        if isinstance(bots, str):
            self.bots: list[SeatController | None] = [
                None if s == seat else make_bot(bots, seed * 1_000_003 + 17 * s + 1)
                for s in range(n)]
        else:
            # a spec ("expert", a plug-in's name) is made here (:meth:`_make`), with the
            # seed each seat's bot has always had
            if len(bots) != n:
                raise ValueError(f"{n} seats need {n} controllers (None for the human)")
            self.bots = [self._make(b, seed * 1_000_003 + 17 * s + 1, s)
                         if isinstance(b, str) else b for s, b in enumerate(bots)]
        self.events: list[str] = []
        self._fallback: SeatController | None = None   # moves for a bot that failed
        #: the bot thinking in the background (a bot in its own process), if any
        self._thinking: _Thinking | None = None
        self._faults_said: set[int] = set()
        self.match = Match(rules, seating, self.dealer.randrange(n))
        self.hand_no = 0
        self._scores: tuple[SideScore, ...] | None = None
        self.state: HandState = self._deal()

    # ----- hands -----------------------------------------------------------------------
    def _deal(self) -> HandState:
        deck = list(self.rules.deck(self.seating))
        self.dealer.shuffle(deck)
        first = self.match.next_first_seat()
        self.hand_no += 1
        self._scores = None
        state = new_hand(self.rules, self.seating, deck, first, self.match.totals())
        self.events.append(hand_start_line(self.hand_no, self.said_names()[first],
                                           state.target))
        return state

    def next_hand(self) -> None:
        if not self.hand_over:
            raise ValueError(_("the hand is still in play"))
        if self.over:
            raise ValueError(_("the match is over"))
        self.state = self._deal()

    @property
    def hand_over(self) -> bool:
        return self.state.over

    @property
    def over(self) -> bool:
        return self.match.over or (self.state.over and len(self.match.hands) >= MAX_HANDS)

    @property
    def ended_early(self) -> bool:
        return self.over and not self.match.over

    def last_scores(self) -> tuple[SideScore, ...] | None:
        return self._scores

    # ----- the human seat --------------------------------------------------------------
    def said_names(self) -> tuple[str, ...]:
        return you_names(self.names, self.seat)

    def view(self) -> HandState:
        return view_of(self.state, self.seat)

    def legal(self) -> list[Action]:
        if self.seat not in self.state.actors():
            return []
        return legal_actions(self.view(), self.seat)

    def my_move(self) -> bool:
        return self.seat in self.state.actors()

    def submit(self, action: Action) -> None:
        if action.seat != self.seat:
            raise ValueError(f"you play seat {self.seat}, not seat {action.seat}")
        if isinstance(action, Draw) and action.source == "pile":
            action = action._replace(card=None)  # the dealer reveals it
        self._apply(action)

    # ----- everyone else ---------------------------------------------------------------
    def _forced_draw(self) -> Action | None:
        if not self.auto_draw or self.state.phase != DRAW or self.state.seat != self.seat:
            return None
        legal = self.legal()
        if len(legal) == 1 and isinstance(legal[0], Draw):
            return legal[0]._replace(card=None)
        return None

    def others_pending(self) -> bool:
        if self.state.over:
            return False
        actors = self.state.actors()
        if any(s != self.seat for s in actors):
            return True
        return self._forced_draw() is not None

    def step_others(self, wait: float = 0.0) -> bool:
        st = self.state
        if st.over:
            return False
        if st.phase == RESHUFFLE:
            self._apply(reshuffle_action(st, self.dealer))
            return True
        if self._thinking is not None:
            return self._moved(wait)
        for s in st.actors():
            if s == self.seat:
                continue
            bot = self.bots[s]
            if bot is None:
                raise ValueError(f"seat {s} has no controller")
            if isinstance(bot, BotProcess):
                # it thinks in its own process, for up to its limit: the console's
                # thread goes on answering keys meanwhile (held, its keys were dead)
                self._thinking = _Thinking(s, bot, st)
                return self._moved(wait)
            view = view_of(st, s)
            try:
                action = choose_checked(bot, view, s)
            except BotFailed as exc:
                action = self._replaced(s, exc.reason, view)
            self._apply(action)
            return True
        forced = self._forced_draw()
        if forced is not None:
            self._apply(forced)
            return True
        return False

    def _moved(self, wait: float) -> bool:
        """Apply the move of the bot thinking in the background once it has come (waiting
        at most ``wait`` seconds for it); False while it still thinks."""
        th = self._thinking
        assert th is not None
        th.thread.join(max(0.0, wait))
        if th.thread.is_alive():
            return False
        self._thinking = None
        if self.state is not th.state:
            # the hand moved on meanwhile (the human answered an attack first): the
            # answer was to another question; the bot is asked again (step_others)
            return True
        fault = getattr(th.bot, "fault", None)
        if fault and th.seat not in self._faults_said:
            # it crashed, hung, answered no legal move or ended its process: its own
            # quick bot moved for it (and does from now on), said once, naming it
            self._faults_said.add(th.seat)
            self.events.append(bot_failed_line(self.names[th.seat], str(fault),
                                               str(getattr(th.bot, "spec", "") or "")))
        action = th.action
        if th.error is not None or action is None:
            words = (f"raised {type(th.error).__name__}" if th.error is not None
                     else "answered nothing")
            action = self._replaced(th.seat, words, view_of(th.state, th.seat))
        self._apply(action)
        return True

    def _replaced(self, s: int, reason: str, view: HandState) -> Action:
        """Someone's bot broke: a built-in bot plays its seat from now on, said once (asked
        again, a broken bot was said 223 times in a match, and a slow one cost its time
        limit at every move); its move now."""
        bot = self.bots[s]
        self.events.append(bot_failed_line(self.names[s], reason,
                                           str(getattr(bot, "spec", "") or "")))
        self._fallback = self._fallback or make_bot("heuristic", self.seed)
        self.bots[s] = self._fallback
        return self._fallback.choose(view, legal_actions(view, s))

    def _make(self, spec: str, seed: int, seat: int) -> SeatController:
        """A seat's bot from its spec: a quick built-in one here, any other (a plug-in,
        the search bot) in a process of its own (:class:`BotProcess`: its 30 s a move
        hold whatever thread asks it, and its crash, hang or exit is its own)."""
        # its name as it is looked up: "Normal" or "HEURISTIC" is the quick bot too (it
        # was started in a process of its own, as a plug-in is)
        if bot_name_key(spec.split(":", 1)[0].strip()) in QUICK_BOTS:
            return make_bot(spec, seed)
        return BotProcess(spec, seed, on_fault=lambda bot, words: self._bot_fault(bot, words, seat),
                          answer_within=BOT_MOVE_LIMIT, make_within=ANSWER_WITHIN, seat=seat)

    def _bot_fault(self, spec: str, words: str, seat: int) -> None:
        """A bot in its own process failed: logged (said on the screen by the console's
        thread, :meth:`_moved`); not when this table stopped it (the player left)."""
        if not self._closed:
            log.warning("bot %s at seat %d %s; a built-in bot plays for it from now on", spec,
                        seat, words)

    def close(self) -> None:
        """Stop the bots that think in processes of their own (also while one thinks: the
        player may leave then)."""
        self._closed = True
        for bot in self.bots:
            if isinstance(bot, BotProcess):
                bot.close()
        if self._thinking is not None:
            # the thread that asked it hears its end and stops what is left of it
            self._thinking.thread.join(2.0)

    def run_others(self, limit: int = 100_000) -> int:
        """Advance the other seats until the human must act or the hand ends (waiting for
        a bot that thinks in its own process: at most its limit a move)."""
        n = 0
        while n < limit and (self.step_others() or self.bot_thinking
                             and self.step_others(wait=BOT_MOVE_LIMIT + 5.0)):
            n += 1
        return n

    @property
    def bot_thinking(self) -> bool:
        """Is a bot thinking in its own process about its move (the console polls for it
        with :meth:`step_others`, answering keys meanwhile)?"""
        return self._thinking is not None

    def thinking(self) -> tuple[int, float] | None:
        """The seat whose bot has been thinking in its own process for a while
        (:data:`THINKING_SAID_AFTER`), with its limit in seconds; None otherwise."""
        th = self._thinking
        if th is None or time.monotonic() - th.started < THINKING_SAID_AFTER:
            return None
        return th.seat, float(getattr(th.bot, "answer_within", BOT_MOVE_LIMIT))

    def activity(self) -> str | None:
        # dealing in-process is instant; a bot in its own process may think for long
        # (the console answers keys meanwhile): who thinks, and for how long at most
        thinking = self.thinking()
        if thinking is None:
            return None
        return bot_thinking_line(self.names[thinking[0]], thinking[1])

    def peers(self) -> list[PeerStatus]:
        actors = set(self.state.actors())
        out = []
        for s, name in enumerate(self.names):
            kind = "you" if s == self.seat else "bot"
            state = "thinking" if s in actors and s != self.seat else "ready"
            out.append(PeerStatus(s, name, kind, state))
        return out

    # ----- applying --------------------------------------------------------------------
    def _apply(self, action: Action) -> None:
        before = self.state
        after = apply_action(before, action)
        self.state = after
        line = describe(view_of(before, self.seat), action, view_of(after, self.seat),
                        self.names, self.seat, self.lang, you=True)
        if line:
            self.events.append(line)
        if after.over and not before.over:
            self._scores = score_hand(after)
            self.match = self.match.record(self._scores)
            self.events.append(end_line(after, self.said_names(), self.hand_no))
            if self.match.over:
                self.events.append(match_over_line(self.match, self.said_names()))
