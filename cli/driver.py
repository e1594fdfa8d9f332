"""Table drivers: what the console needs from a table, whoever runs it.

The console (``cli.app`` full screen, ``cli.plain`` line mode) talks only to a
:class:`TableDriver`. :class:`LocalDriver` runs a whole match in this process against
bots; the network session (``p2p``) will provide another implementation of the same
protocol, where the other seats are remote peers.

Only the human seat's *view* (``engine.view_of``) ever leaves a driver, and bots are
given only their own seat's view.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NamedTuple, Protocol

from engine import (
    Action,
    CoupFourre,
    Discard,
    Draw,
    Extend,
    FastDiscard,
    FastRemedy,
    HandState,
    Pass,
    Play,
    Reshuffle,
    Rules,
    Seating,
    apply_action,
    card_name,
    legal_actions,
    new_hand,
    reshuffle_action,
    view_of,
)
from engine.bots import SeatController, make_bot
from engine.scoring import Match, SideScore, hand_winner, score_hand
from engine.state import DRAW, RESHUFFLE

BOT_NAMES = ("Bo", "Cy", "Di", "Ed", "Flo")
MAX_HANDS = 200  # a match of ties must still end


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
    events: list[str]               # the log, in words, oldest first
    match: Match                    # finished hands' scores (engine.scoring.Match)
    hand_no: int                    # 1-based number of the hand in play (or just finished)

    def view(self) -> HandState:
        """The human seat's view of the hand in play (or just finished)."""
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

    def step_others(self) -> bool:
        """Advance one move of another seat; ``False`` when nothing was to do.

        Must not block for long: a network driver applies a move that has arrived, or
        returns ``False`` at once while ``others_pending()`` stays true; the console polls.
        """
        ...

    @property
    def hand_over(self) -> bool: ...

    @property
    def over(self) -> bool:
        """Is the whole match over?"""
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


def side_names(names: Sequence[str], seating: Seating) -> tuple[str, ...]:
    """One label per side: a player's name, or partners joined with ``&``."""
    return tuple(" & ".join(names[s] for s in seating.seats_of(side))
                 for side in range(seating.n_teams))


def describe(before: HandState, action: Action, after: HandState, names: Sequence[str],
             viewer: int, lang: str = "en") -> str | None:
    """A log line for ``action`` as ``viewer`` may see it (others' draws stay hidden)."""
    def who(seat: int) -> str:
        return names[seat]

    def side(side_ix: int) -> str:
        label = side_names(names, before.seating)[side_ix]
        return label.replace("You", "you") if "You" in names else label

    if isinstance(action, Reshuffle):
        return "The discard pile is shuffled into a new draw pile."
    if isinstance(action, Draw):
        if action.source == "discard":
            return f"{who(action.seat)} took {card_name(before.discard[-1], lang)} " \
                   "from the discard pile."
        if action.seat == viewer:
            was, now = before.hands[viewer], after.hands[viewer]
            if isinstance(was, int) or isinstance(now, int):
                return None
            new = [c for c in now if c not in was]
            if new:
                return f"{who(action.seat)} drew {card_name(new[0], lang)}."
        return None  # a hidden draw of another seat is not worth a log line
    if isinstance(action, Play):
        name = card_name(action.card, lang)
        if action.target is not None:
            return f"{who(action.seat)} played {name} on {side(action.target)}."
        return f"{who(action.seat)} played {name}."
    if isinstance(action, Discard):
        return f"{who(action.seat)} discarded {card_name(action.card, lang)}."
    if isinstance(action, FastDiscard):
        cards = ", ".join(card_name(c, lang) for c in action.cards)
        return f"{who(action.seat)} discarded {cards} and drew back to six."
    if isinstance(action, CoupFourre):
        return f"Coup fourré! {who(action.seat)} answered with {card_name(action.card, lang)}."
    if isinstance(action, FastRemedy):
        return f"{who(action.seat)} answered at once with {card_name(action.card, lang)}."
    if isinstance(action, Pass):
        return None  # R9: who passed says nothing, and says it for everyone alike
    if isinstance(action, Extend):
        if action.extend:
            verb = "extend" if who(action.seat) == "You" else "extends"
            return f"{who(action.seat)} {verb} the trip to 1000!"
        verb = "stop" if who(action.seat) == "You" else "stops"
        return f"{who(action.seat)} {verb} at {before.target}."
    return None


def end_line(state: HandState, names: Sequence[str], hand_no: int) -> str:
    """How a hand ended, in words."""
    sides = side_names(names, state.seating)
    if state.completed_by >= 0:
        return f"Hand {hand_no} over: {sides[state.completed_by]} completed the trip."
    w = hand_winner(state)
    why = {"exhausted": "every hand is empty", "turn_limit": "the turn limit was reached"}
    reason = why.get(state.end_reason, state.end_reason or "no more moves")
    if w >= 0:
        return f"Hand {hand_no} over ({reason}): {sides[w]} got closest."
    return f"Hand {hand_no} over ({reason}): nobody completed the trip."


class LocalDriver:
    """A whole match in this process: one human seat, bots for the others.

    Randomness (deck orders, the first player, R4b reshuffles) comes from one
    ``random.Random(seed)``; each bot has its own generator derived from the seed.
    The first player of hand 1 is drawn from the seed and rotates left each hand (R3).
    With ``auto_draw`` the human seat's draw is made for it when the pile is the only
    source (classic draws, replacement draws): there is nothing to decide.
    """

    def __init__(self, rules: Rules, seating: Seating, names: Sequence[str], seat: int = 0,
                 seed: int = 0, bots: Sequence[SeatController | None] | str = "heuristic",
                 auto_draw: bool = True, lang: str = "en") -> None:
        n = seating.n_players
        if len(names) != n:
            raise ValueError(f"{n} seats need {n} names")
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat} is not a seat")
        self.rules = rules
        self.seating = seating
        self.names = tuple(names)
        self.seat = seat
        self.seed = seed
        self.lang = lang
        self.auto_draw = auto_draw
        self.dealer = random.Random(seed)
        if isinstance(bots, str):
            self.bots: list[SeatController | None] = [
                None if s == seat else make_bot(bots, seed * 1_000_003 + 17 * s + 1)
                for s in range(n)]
        else:
            self.bots = list(bots)
            if len(self.bots) != n:
                raise ValueError(f"{n} seats need {n} controllers (None for the human)")
        self.events: list[str] = []
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
        state = new_hand(self.rules, self.seating, deck, first)
        plays = "play" if self.names[first] == "You" else "plays"
        self.events.append(f"Hand {self.hand_no}: {self.names[first]} {plays} first; "
                           f"the trip is {state.target} km.")
        return state

    def next_hand(self) -> None:
        if not self.hand_over:
            raise ValueError("the hand is still in play")
        if self.over:
            raise ValueError("the match is over")
        self.state = self._deal()

    @property
    def hand_over(self) -> bool:
        return self.state.over

    @property
    def over(self) -> bool:
        return self.match.over or (self.state.over and len(self.match.hands) >= MAX_HANDS)

    def last_scores(self) -> tuple[SideScore, ...] | None:
        return self._scores

    # ----- the human seat --------------------------------------------------------------
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

    def step_others(self) -> bool:
        st = self.state
        if st.over:
            return False
        if st.phase == RESHUFFLE:
            self._apply(reshuffle_action(st, self.dealer))
            return True
        for s in st.actors():
            if s == self.seat:
                continue
            bot = self.bots[s]
            if bot is None:
                raise ValueError(f"seat {s} has no controller")
            view = view_of(st, s)
            action = bot.choose(view, legal_actions(view, s))
            if action.seat != s:
                raise ValueError(f"the bot of seat {s} chose a move for seat {action.seat}")
            self._apply(action)
            return True
        forced = self._forced_draw()
        if forced is not None:
            self._apply(forced)
            return True
        return False

    def run_others(self, limit: int = 100_000) -> int:
        """Advance the other seats until the human must act or the hand ends."""
        n = 0
        while n < limit and self.step_others():
            n += 1
        return n

    def activity(self) -> str | None:
        return None  # dealing in-process is instant

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
                        self.names, self.seat, self.lang)
        if line:
            self.events.append(line)
        if after.over and not before.over:
            self._scores = score_hand(after)
            self.match = self.match.record(self._scores)
            self.events.append(end_line(after, self.names, self.hand_no))
            if self.match.over:
                w = self.match.winner()
                who = side_names(self.names, self.seating)[w]
                self.events.append(f"Match over: {who} {'win' if who == 'You' else 'wins'}.")
