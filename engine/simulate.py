"""Bot-only hands and matches in memory, from a seed (simulations, tests, benchmarks).

Every seat decides from its own view; the full state is kept here, never shown to bots.
Randomness (the deck order, the first player, R4b reshuffles) comes from one
``random.Random(seed)`` owned by the dealer, separate from each bot's own generator.

Also here: the checks on a bot's answer (:func:`checked_choice`), made around the call
guarded against a bot that forks or raises Ctrl-C itself (:func:`engine.bot_guard.call_bot`).
A bot that thinks in a child process of its own is :class:`engine.bot_process.BotProcess`.
"""

from __future__ import annotations

import inspect
import math
import random
import types
from collections.abc import Callable, Sequence, Sized
from typing import NamedTuple, cast

from . import bot_guard
from .actions import ACTION_TYPES, Action, Discard, FastDiscard
from .bot_guard import BotGuardFault, call_bot
from .bots import SeatController
from .cards import Kind, kind
from .errors import BotFailed, BotTooSlow, raised_words
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
        return _reordered(answer, legal)
    if type(found) is type(answer):
        return found
    for action in legal:                       # equal as tuples, another type: look on
        try:
            if type(answer) is type(action) and answer == action:
                return action
        except Exception:   # (as above)
            return None
    return None


def _reordered(answer: object, legal: Sequence[Action]) -> Action | None:
    """The fast discard of ``legal`` (O-fast-play, R10b) that throws away the cards
    ``answer``, a ``FastDiscard``, names in another order: the same move (the docs give
    no order, and a bot that named its worst card first was "not a legal move now")."""
    if type(answer) is not FastDiscard:
        return None
    seat, cards = tuple.__getitem__(answer, 0), tuple.__getitem__(answer, 1)
    if type(cards) is not tuple or not all(type(c) is int for c in cards):
        return None
    key = sorted(cards)
    for action in legal:
        if type(action) is FastDiscard and action.seat == seat and sorted(action.cards) == key:
            return action
    return None


def choose_checked(bot: SeatController, view: HandState, seat: int) -> Action:
    """``bot``'s move for ``seat``, which must be one of the legal actions: a bot that
    raises (``sys.exit`` too) or answers anything else raises :class:`BotFailed` (a
    plug-in's bug is named as such, never taken for a rule of the game). The bot gets a
    copy of the legal list: what it does to it changes nothing here."""
    return checked_choice(bot.choose, view, legal_actions(view, seat), seat)


def checked_choice(choose: Callable[[HandState, list[Action]], object], view: HandState,
                   legal: Sequence[Action], seat: int) -> Action:
    """:func:`choose_checked` for a caller that has the legal actions already (a table
    that runs the protocol) and a ``choose`` function."""
    try:
        answer = call_bot(choose, view, list(legal))
    except KeyboardInterrupt:
        if not bot_guard.INTERRUPT_IS_BOT_FAULT:
            raise                # the person at the keyboard pressed Ctrl-C
        raise BotFailed(seat, "raised KeyboardInterrupt") from None
    except BotGuardFault as exc:
        raise BotFailed(seat, str(exc)) from None
    except BaseException as exc:  # noqa: BLE001 - sys.exit, or any class a plug-in raises
        # a time limit says what happened in its own words (the bot did not raise it)
        words = str(exc) if isinstance(exc, BotTooSlow) else raised_words(exc)
        raise BotFailed(seat, words) from exc
    action = legal_choice(answer, legal)
    if action is None:
        raise BotFailed(seat, f"chose {answer_words(answer)}{index_hint(answer, legal)}, "
                              "which is not a legal move now")
    return action


def index_hint(answer: object, legal: Sequence[Action]) -> str:
    """Words for an answer that a stranger's first bot gives for a move: the index of a
    legal move (``return i`` for ``legal[i]``: "chose 0, which is not a legal move" left
    them wondering why 0 was not), or what an ``async def choose`` or a ``choose`` that
    yields returns. A coroutine never started is closed (no code of its own runs: its
    "coroutine ... was never awaited" warning came after the report)."""
    if type(answer) is int:
        # a card of its hand, picked and returned as it is: "chose 9 (... return one of
        # the 7 moves of legal)" did not say that 9 was read as no more than a number
        same = [a for a in legal if type(getattr(a, "card", None)) is int
                and getattr(a, "card", None) == answer]
        card = ""
        if same and len(same) <= LISTED_MOVES:
            moves = ", ".join(answer_words(a) for a in same)
            card = f"a card (return one of legal's moves with card {answer}: [{moves}])"
        if 0 <= answer < len(legal):
            return (f", an index (return the move itself, legal[{answer}])"
                    + (f" or {card}" if card else ""))
        if card:
            return f", {card}"
    if type(answer) is list and len(answer) == 1 and any(answer[0] is a for a in legal):
        return " (a list holding a legal move: return the move itself)"
    if type(answer) in (list, tuple) and len(answer) > 1 and all(  # type: ignore[arg-type]
            any(x is a for a in legal) for x in answer):  # type: ignore[attr-defined]
        # legal itself, or the moves it liked best: "a list holding other objects"
        return (f" (a {type(answer).__name__} of {len(answer)} moves of legal: "  # type: ignore[arg-type]
                "return one of them)")
    if type(answer) is Kind:
        # the kind of the card it wants to play, not the card: "an object of type Kind"
        same = [a for a in legal if type(getattr(a, "card", None)) is int
                and kind(getattr(a, "card", 0)) is answer]
        if not same:
            return f" (a card's kind, Kind.{answer.name}, and no move of legal holds one)"
        moves = (", ".join(answer_words(a) for a in same) if len(same) <= LISTED_MOVES
                 else f"{len(same)} moves")
        return (f" (a card's kind, Kind.{answer.name}: return one of legal's moves with a "
                f"card of that kind: [{moves}])")
    if answer is None:
        # a stranger's first bot handles the plays and forgets the draws (or a coup
        # fourré's question): "chose None" did not say when
        return (f" (its choose returned nothing when view.phase was {_phase_of(legal)!r}:"
                " every way through it must return one of legal)")
    if type(answer) is types.CoroutineType:
        if inspect.getcoroutinestate(answer) == inspect.CORO_CREATED:
            answer.close()
        # an ``async def choose`` is refused when its bot is made: here a plain def
        # returned a coroutine (``return self.think(...)``, an ``async def`` forgotten)
        return (" (a coroutine, what calling an async def gives: return the move itself, "
                "with asyncio.run(...) to wait for it)")
    if type(answer) is types.GeneratorType:
        return " (a generator, what calling a def that yields gives: return the move itself)"
    return _look_alike_hint(answer, legal) or _decision_hint(answer, legal)


#: At a decision of this many legal moves or fewer (a draw, the extension question, a
#: coup fourré's), a wrong answer is told them all; past it, how many there are.
LISTED_MOVES = 4


def _decision_hint(answer: object, legal: Sequence[Action]) -> str:
    """Which decision a wrong answer was given at, and what it could have answered: "chose
    Extend(seat=0, extend='yes'), which is not a legal move now" said neither. Past
    :data:`LISTED_MOVES`, the legal moves with the answer's card (a hazard played on the
    wrong side, a card played that can only be thrown away). The engine's own moves only
    are shown: their fields are plain values."""
    if not legal:
        return ""
    phase = _phase_of(legal)
    if len(legal) <= LISTED_MOVES:
        moves = ", ".join(answer_words(a) for a in legal)
        return f" (view.phase was {phase!r}, and legal was [{moves}])"
    card = getattr(answer, "card", None) if type(answer) in ACTION_TYPES else None
    same = [a for a in legal if type(card) is int and getattr(a, "card", None) == card]
    if same and len(same) <= LISTED_MOVES:
        moves = ", ".join(answer_words(a) for a in same)
        return f" (view.phase was {phase!r}, and legal's moves with card {card} were [{moves}])"
    return f" (view.phase was {phase!r}: return one of the {len(legal)} moves of legal)"


def _look_alike_hint(answer: object, legal: Sequence[Action]) -> str:
    """Words for the two look-alikes a stranger's bot returns for a legal move: a plain
    tuple or list with a legal move's fields (``tuple(a)``, a move kept as data), and a
    move made for another seat (a bot written and tried at seat 0 that builds
    ``Play(0, card, None)`` itself). "which is not a legal move now" alone left them
    wondering, the fields being right. Plain values only are compared (see
    :func:`legal_choice`)."""
    kind = type(answer)
    if isinstance(answer, (tuple, list)) and (kind is tuple or kind is list):
        fields = tuple(answer)
        if len(fields) <= 3 and all(_plain_value(v) for v in fields):
            for action in legal:
                if tuple(action) == fields:
                    return (f" (a plain {kind.__name__} with the fields of "
                            f"{type(action).__name__}: return the move itself, an "
                            "element of legal)")
        return ""
    if kind not in ACTION_TYPES and legal:
        base = next((t for t in ACTION_TYPES if issubclass(kind, t)), None)
        if base is not None:
            # a class of its own over a move (``class MyPlay(Play)``): its fields read
            # with tuple's own methods, never the subclass's (its code)
            raw = cast("tuple[object, ...]", answer)
            values = tuple(tuple.__getitem__(raw, i) for i in range(tuple.__len__(raw)))
            names: tuple[str, ...] = getattr(base, "_fields", ())
            if len(values) == len(names) and all(_plain_value(v) for v in values):
                try:
                    same = legal_choice(base(*values), legal)
                except Exception:   # noqa: BLE001 - fields the (compiled) move refuses
                    same = None
                if same is not None:
                    return (f" (a subclass of {base.__name__} with the fields of a legal "
                            "move: return the move itself, an element of legal)")
        return ""
    if kind in ACTION_TYPES and legal:
        odd = [(name, v) for name, v in zip(cast(Action, answer)._fields,
                                            cast("tuple[object, ...]", answer), strict=False)
               if not _plain_value(v)]
        if odd:
            # a card of its own type (a numpy integer, an IntEnum): "a Play holding other
            # objects" said no more
            name, value = odd[0]
            if type(answer) is FastDiscard and name == "cards" and \
                    type(value) in (list, set, frozenset):
                # "the moves of legal hold plain ints, strings and None" misled: a fast
                # discard holds a tuple of cards
                return (f" (its cards is a {type(value).__name__}: a FastDiscard's cards "
                        "are a tuple of card ids, FastDiscard(seat, (c1, c2)); return one "
                        "of legal)")
            return (f" (its {name} is an object of type {type(value).__name__[:40]}: the "
                    "moves of legal hold plain ints, strings and None; return one of them)")
        # its fields read as plain objects: read as the move's own, the compiled engine
        # checks each against the field's declared type, and a plug-in's object in a
        # field raised TypeError out of this hint (CI's compiled stage)
        values = tuple(cast("tuple[object, ...]", answer))
        seat, mine = values[0], legal[0].seat
        single = values[1] if type(answer) is FastDiscard and type(values[1]) is tuple \
            and len(values[1]) == 1 else ()
        if single and type(single[0]) is int and Discard(mine, single[0]) in legal:
            # one card is thrown away by a Discard (R10b's fast discard is of several); a
            # card checked an int first (the compiled engine's Discard checks its fields)
            return (f" (one card is thrown away with {answer_words(Discard(mine, single[0]))}"
                    ", a move of legal)")
        if all(_plain_value(v) for v in values) and type(seat) is int and seat != mine \
                and legal_choice(cast(Action, answer)._replace(seat=mine), legal) is not None:
            return (f" (the move of seat {seat}: this bot plays seat {mine}, "
                    "view.viewer; return an element of legal)")
    return ""


def _phase_of(legal: Sequence[Action]) -> str:
    """The ``view.phase`` at which ``legal`` is asked (by the kinds of its moves)."""
    kinds = {type(a).__name__ for a in legal}
    if "Draw" in kinds:
        return "draw"
    if "Extend" in kinds:
        return "extend"
    if "Pass" in kinds:
        return "respond"
    return "play"


def answer_words(answer: object) -> str:
    """A bot's answer in a message: its repr, bounded (the repr of someone else's object
    may be huge, raise, or hang: only plain values and the engine's actions are shown)."""
    kind = type(answer)
    items: list[object] = [answer]
    if kind in (list, tuple, dict) or kind in ACTION_TYPES:
        sized: Sized = answer  # type: ignore[assignment]
        if len(sized) > 16:
            return f"a {kind.__name__} of {len(sized)} items"
        items = ([*answer.keys(), *answer.values()] if isinstance(answer, dict)
                 else list(answer))  # type: ignore[call-overload]
        if not all(_plain_value(v) for v in items):
            return f"a {kind.__name__} holding other objects"
    elif kind not in (int, str, bool, float, type(None)):
        # someone's own class: its __repr__ is its code, and may hang past any limit
        return f"an object of type {kind.__name__[:60]}"
    try:
        text = repr(answer)
    except Exception as exc:   # noqa: BLE001 - a huge int's repr raises
        # an int past Python's 4300 digits: "<int whose repr raised ValueError>" said
        # neither what the bot answered nor what to fix
        huge = [v for v in items if type(v) is int and v.bit_length() > 4000]
        if huge:
            digits = f"an int of about {int(huge[0].bit_length() * math.log10(2)) + 1} digits"
            text = digits if kind is int else f"a {kind.__name__} holding {digits}"
        else:
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
