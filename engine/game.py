"""Starting a hand, listing legal actions, applying one action.

These three functions are the whole rules engine: ``legal_actions(state, seat)`` lists
what ``seat`` may do now, ``apply_action(state, action)`` returns the next state or raises
:class:`~engine.errors.IllegalAction` naming the rule. Both work on full-information
states and on a seat's view.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any, Final, TypeVar, cast

from .actions import (
    CHANCE,
    Action,
    CoupFourre,
    Discard,
    Draw,
    Extend,
    FastDiscard,
    FastRemedy,
    Pass,
    Play,
    Reshuffle,
)
from .cards import ALL_CARDS, FAMILY_OF, KIND_OF, NAMES_EN, REMEDY_FOR, SAFETY_FOR, Family
from .errors import IllegalAction
from .legality import legal_plays, play_refusal
from .rules import NO_SIDE, Rules, Seating
from .state import (
    DRAW,
    EXTEND,
    HAND_SIZE,
    NEXT_TURN,
    OVER,
    PLAY,
    REPLACEMENT_DRAW,
    RESHUFFLE,
    RESPOND,
    SPECTATOR,
    TURN_DRAW,
    Attack,
    HandState,
    Zone,
    replace,
)

_T = TypeVar("_T")
_tuple_new: Final = tuple.__new__
Hands = tuple[tuple[int, ...] | int, ...]

# Enum member lookups such as ``Family.HAZARD`` cost about 75 ns each on CPython 3.11; the
# move functions compare against these module constants.
_DISTANCE: Final = Family.DISTANCE
_HAZARD: Final = Family.HAZARD
_REMEDY: Final = Family.REMEDY
_TURN_START: Final = (TURN_DRAW,)


# ----- starting a hand -----------------------------------------------------------------

def new_hand(rules: Rules, seating: Seating, deck_order: tuple[int, ...] | list[int],
             first_seat: int, match_scores: Sequence[int] = ()) -> HandState:
    """R3: deal six cards each, one at a time from ``first_seat``; ``deck_order[0]`` is the top.

    Card ``deck_order[i]`` for ``i < 6n`` goes to seat ``(first_seat + i) % n``; the rest
    is the draw pile, drawn in order (deck position ``6n``, ``6n+1``, ...).
    ``match_scores``: each side's match total before this hand (none for a lone hand).
    """
    deck = rules.deck(seating)
    order = tuple(deck_order)
    if sorted(order) != sorted(deck):
        raise ValueError("R1: the deck order must hold exactly the cards in play, once each")
    n = seating.n_players
    if not 0 <= first_seat < n:
        raise ValueError(f"first seat {first_seat} is not a seat")
    dealt: list[list[int]] = [[] for _ in range(n)]
    for i in range(HAND_SIZE * n):
        dealt[(first_seat + i) % n].append(order[i])
    pile = tuple(reversed(order[HAND_SIZE * n:]))
    return _initial(rules, seating, first_seat, tuple(tuple(sorted(h)) for h in dealt), pile,
                    None, deck, match_scores)


def new_view(rules: Rules, seating: Seating, seat: int, my_cards: tuple[int, ...] | list[int],
             first_seat: int, match_scores: Sequence[int] = ()) -> HandState:
    """A seat's view at the deal: its own six cards, counts for everything hidden.

    ``seat=SPECTATOR`` (with no cards) gives the view of someone who holds no hand."""
    deck = rules.deck(seating)
    n = seating.n_players
    if not SPECTATOR <= seat < n or not 0 <= first_seat < n:
        raise ValueError(f"seat {seat} and first seat {first_seat} must be seats 0..{n - 1}")
    mine = tuple(sorted(my_cards))
    if seat == SPECTATOR:
        if mine:
            raise ValueError("a spectator holds no cards")
    elif len(mine) != HAND_SIZE or len(set(mine)) != HAND_SIZE or not set(mine) <= set(deck):
        raise ValueError("R3: a hand is dealt six distinct cards of the deck")
    n = seating.n_players
    hands = tuple(mine if s == seat else HAND_SIZE for s in range(n))
    return _initial(rules, seating, first_seat, hands, len(deck) - HAND_SIZE * n, seat, deck,
                    match_scores)


def _initial(rules: Rules, seating: Seating, first_seat: int, hands: Hands,
             pile: tuple[int, ...] | int, viewer: int | None,
             deck: tuple[int, ...], match_scores: Sequence[int]) -> HandState:
    given: tuple[object, ...] = tuple(match_scores)  # untyped: mypyc checks int elements
    if given and (len(given) != seating.n_teams
                  or not all(type(x) is int for x in given)):
        raise ValueError(f"match scores {given!r} must be one whole number per side "
                         f"({seating.n_teams} sides)")
    scores = cast(tuple[int, ...], given)
    zone = Zone(started=rules.start_rolling)
    return HandState(
        rules=rules, seating=seating, target=rules.target_for(seating), first_seat=first_seat,
        hands=hands, pile=pile, discard=(), zones=(zone,) * seating.n_teams, phase=DRAW,
        seat=first_seat, turn_seat=first_seat, pending=_TURN_START, after=PLAY,
        viewer=viewer, deck=deck, match_scores=scores)


# ----- legal actions -------------------------------------------------------------------

# Legal-action lists are rebuilt for every move, and building an action costs about 200 ns.
# Actions are immutable values, so the common ones are made once here and shared (the
# plays: see ``engine.legality``).
_SEATS: Final = range(6)  # R2: at most six players
_PILE_DRAWS: Final[tuple[Draw, ...]] = tuple(Draw(s, "pile", None) for s in _SEATS)
# By seat, then by card id (a dict: an id that is no card fails rather than wraps around).
_DISCARD_DRAWS: Final[tuple[dict[int, Draw], ...]] = tuple(   # R4a
    {c: Draw(s, "discard", c) for c in ALL_CARDS} for s in _SEATS)
_DISCARDS: Final[tuple[dict[int, Discard], ...]] = tuple(
    {c: Discard(s, c) for c in ALL_CARDS} for s in _SEATS)


def _may_act(state: HandState, seat: int) -> bool:
    """``seat in state.actors()``, without building the tuple (asked at every move)."""
    phase = state.phase
    if phase == RESPOND:
        assert state.attack is not None
        return seat in state.attack.waiting_for()
    return seat == state.seat and phase != OVER and phase != RESHUFFLE


def legal_actions(state: HandState, seat: int) -> list[Action]:
    """Every action ``seat`` may take now, in a deterministic order.

    In a seat's view only that seat's actions can be listed (other hands are hidden).
    A draw from the pile is listed with its card in a full-information state and with
    ``card=None`` in a view, where the card is revealed by whoever deals it.
    """
    if not _may_act(state, seat):
        return []  # (a reshuffle is chance: its order comes from ``reshuffle_action``)
    if state.viewer is not None and state.viewer != seat:
        raise ValueError(f"seat {seat}'s options are hidden in seat {state.viewer}'s view")
    phase = state.phase
    if phase == PLAY:
        hand = state.hand(seat)
        actions = legal_plays(state, seat, hand)
        actions.extend(map(_DISCARDS[seat].__getitem__, hand))
        if state.rules.fast_play:
            actions.extend(_fast_discards(seat, hand))
        return actions
    if phase == DRAW:
        pile = state.pile
        out: list[Action] = [_PILE_DRAWS[seat] if isinstance(pile, int)
                             else Draw(seat, "pile", pile[-1])]
        if state.pending[0] == TURN_DRAW and state.rules.draw_discard and state.discard:
            out.append(_DISCARD_DRAWS[seat][state.discard[-1]])
        return out
    if phase == EXTEND:
        return [Extend(seat, True), Extend(seat, False)]
    return _answers(state, seat, state.hand(seat))


def _fast_discards(seat: int, hand: tuple[int, ...]) -> list[Action]:
    """R10b: every set of two or more cards of ``hand``, smallest sets first.

    A seven-card hand has 120 such sets, listed at every play under O-fast-play, so each
    ``FastDiscard(seat, cards)`` is made as the tuple it is: the named tuple's generated
    ``__new__`` would add a Python call per set (two fifths of the listing's cost)."""
    return [_tuple_new(FastDiscard, (seat, cards))
            for size in range(2, len(hand) + 1) for cards in combinations(hand, size)]


def _answers(state: HandState, seat: int, hand: tuple[int, ...]) -> list[Action]:
    """RESPOND: pass, or the matching safety (R9) or, in the second round, remedy (R10a)."""
    assert state.attack is not None
    hazard = KIND_OF[state.attack.card]
    out: list[Action] = [Pass(seat)]
    safety, remedy = SAFETY_FOR[hazard], REMEDY_FOR[hazard]
    if state.attack.stage == 1:
        for c in hand:
            if KIND_OF[c] is safety:
                out.append(CoupFourre(seat, c))
    else:
        for c in hand:
            if KIND_OF[c] is remedy and play_refusal(state, seat, c, None) is None:
                out.append(FastRemedy(seat, c))
    return out


def reshuffle_action(state: HandState, shuffle: object) -> Reshuffle:
    """The chance action for R4b: ``shuffle`` is a ``random.Random``-like object."""
    cards = list(state.discard)
    shuffle.shuffle(cards)  # type: ignore[attr-defined]
    return Reshuffle(CHANCE, tuple(cards))


# ----- applying an action --------------------------------------------------------------
#
# Each move builds its next state in one ``HandState.replace`` where it can: the hand, the
# zone and the turn change together (building a state is the bulk of a move's cost), so a
# move that ends the turn hands its own changes to ``_next_turn``.

def apply_action(state: HandState, action: Action) -> HandState:
    """The state after ``action``; raises :class:`IllegalAction` and changes nothing if not legal.

    The move is added to the state's :attr:`~HandState.history` as every seat saw it
    (:func:`public_action`), so a bot reads who did what this hand from its view alone."""
    t = type(action)
    public = action if t is Play or t is Discard or t is Pass else public_action(state, action)
    # Each move's way below sets ``history=history`` in the one step that builds the next
    # state: a second build per move cost the engine 12-15% of its hands per second (the
    # heuristic tries every candidate move through here).
    return _apply(state, action, state.history + (public,))


def public_action(state: HandState, action: Action) -> Action:
    """``action``, made in ``state``, as every seat sees it: a draw from the pile hides its
    card (``card=None``), a draw from the discard pile names the card taken (it was face
    up), a reshuffle hides the new order; every other move is public as it is."""
    if isinstance(action, Draw):
        if action.source == "discard" and state.discard:
            return Draw(action.seat, "discard", state.discard[-1])
        return Draw(action.seat, action.source, None)
    if isinstance(action, Reshuffle):
        return Reshuffle(CHANCE, None)
    return action


def _apply(state: HandState, action: Action, history: tuple[Action, ...]) -> HandState:
    phase = state.phase
    if phase == OVER:
        raise IllegalAction("R13", "the hand is over", action)
    if isinstance(action, Reshuffle):
        if phase != RESHUFFLE:
            raise IllegalAction("R4b", "the discard pile is reshuffled only when the draw pile "
                                       "runs out", action)
        return _reshuffle(state, action, history)
    seat = action.seat
    if not 0 <= seat < state.seating.n_players:
        raise IllegalAction("R2", f"there is no seat {seat}", action)
    if not _may_act(state, seat):
        raise IllegalAction("R4", _not_your_turn(state, seat), action)
    if phase == PLAY:
        if isinstance(action, Discard):
            return _discard(state, action, history)
        if isinstance(action, Play):
            return _play(state, action, history)
        if isinstance(action, FastDiscard):
            return _fast_discard(state, action, history)
        raise IllegalAction("R4", "play or discard a card now", action)
    if phase == DRAW:
        if not isinstance(action, Draw):
            raise IllegalAction("R4", "draw first: a turn starts with a draw", action)
        return _draw(state, action, history)
    if phase == EXTEND:
        if not isinstance(action, Extend):
            raise IllegalAction("R12", "decide first whether to extend the trip to 1000",
                                action)
        return _extend(state, action, history)
    return _respond(state, action, history)  # RESPOND


def _not_your_turn(state: HandState, seat: int) -> str:
    if state.phase == RESPOND:
        return f"seat {seat} is not being asked to answer the hazard"
    if state.phase == RESHUFFLE:
        return "the discard pile is being reshuffled"
    return f"it is seat {state.seat}'s move, not seat {seat}'s"


# ----- hands -----------------------------------------------------------------------------

def _put(items: tuple[_T, ...], i: int, item: _T) -> tuple[_T, ...]:
    """``items`` with position ``i`` replaced by ``item`` (hands by seat, zones by side)."""
    out = list(items)  # two allocations, where slicing and concatenating takes five
    out[i] = item
    return tuple(out)


def _hands_without(state: HandState, seat: int, cards: tuple[int, ...],
                   action: Action) -> Hands:
    """The hands after ``seat`` gives up ``cards`` for ``action``, or IllegalAction if it
    cannot hold them (R4; R1 for a card of no deck). A hidden hand (someone else's, in a
    view) loses one card per card named, each one that cannot be seen anywhere."""
    held = state.hands[seat]
    if isinstance(held, int):
        known: set[int] | None = None
        for card in cards:
            if held <= 0:
                raise IllegalAction("R4", f"seat {seat} has no card to play", action)
            if card not in state.deck:
                raise IllegalAction("R1", f"{card} is not a card of this deck", action)
            known = _known_cards(state) if known is None else known
            if card in known:
                raise IllegalAction("R4", f"seat {seat} cannot hold card {card}: it is "
                                          "already known to be elsewhere", action)
            held -= 1
    else:
        for card in cards:
            try:
                i = held.index(card)
            except ValueError:
                raise IllegalAction("R4", f"seat {seat} does not hold card {card}",
                                    action) from None
            held = held[:i] + held[i + 1:]
    hands = list(state.hands)
    hands[seat] = held
    return tuple(hands)


def _hands_with(hands: Hands, seat: int, card: int | None) -> Hands:
    """The hands after ``seat`` draws ``card`` (``None``: hidden, one card more)."""
    out = list(hands)
    held = hands[seat]
    if isinstance(held, int):
        out[seat] = held + 1
    else:
        assert card is not None
        out[seat] = tuple(sorted((*held, card)))  # hands are kept sorted
    return tuple(out)


def _known_cards(state: HandState) -> set[int]:
    """Every card this state shows: the public ones and the viewer's own hand."""
    known = set(state.public_cards())
    if state.viewer is not None and state.viewer != SPECTATOR:
        h = state.hands[state.viewer]
        assert not isinstance(h, int)
        known.update(h)
    return known


# ----- draws (R4, R4a, R4b) ------------------------------------------------------------

def _draw(state: HandState, action: Draw, history: tuple[Action, ...]) -> HandState:
    seat = action.seat
    pile, discard, pile_drawn = state.pile, state.discard, state.pile_drawn
    card: int | None
    if action.source == "discard":
        if state.pending[0] != TURN_DRAW or not state.rules.draw_discard:
            raise IllegalAction("R4a", "O-draw-discard is off (or this is a replacement draw): "
                                       "draw from the draw pile", action)
        if not discard:
            raise IllegalAction("R4a", "the discard pile is empty", action)
        card = discard[-1]
        if action.card is not None and action.card != card:
            raise IllegalAction("R4a", "that card is not on top of the discard pile", action)
        discard = discard[:-1]
    else:
        if isinstance(pile, int):
            card = _revealed_draw(state, action)
            pile = pile - 1
        else:
            card = pile[-1]
            if action.card is not None and action.card != card:
                raise IllegalAction("R4", "that is not the top card of the draw pile", action)
            pile = pile[:-1]
        pile_drawn += 1
    hands = _hands_with(state.hands, seat, card)
    pending = state.pending[1:]
    if not pending and state.after == NEXT_TURN:
        return _next_turn(state, state.turn_seat + 1, hands=hands, pile=pile,
                          discard=discard, pile_drawn=pile_drawn, history=history)
    if pending:  # more draws due: the pile may have run out (R4b)
        return _settle(replace(state, hands=hands, pile=pile, discard=discard,
                               pile_drawn=pile_drawn, pending=pending, history=history))
    # The drawer now holds a card and plays: there is nothing for _settle to resolve.
    return replace(state, hands=hands, pile=pile, discard=discard, pile_drawn=pile_drawn,
                   pending=pending, phase=PLAY, history=history)


def _revealed_draw(state: HandState, action: Draw) -> int | None:
    """The card of a draw from a hidden pile: the drawer's own view names it (it was
    revealed to them), anyone else's view does not see it."""
    if state.viewer != action.seat:
        return None
    if action.card is None:
        raise ValueError("a draw in the drawer's own view needs the revealed card")
    if action.card not in state.deck or action.card in _known_cards(state):
        raise IllegalAction("R1", f"card {action.card} cannot be in the draw pile", action)
    return action.card


def _can_reshuffle(state: HandState) -> bool:
    return (state.rules.exhaustion == "reshuffle" and bool(state.discard)
            and (state.progress or state.idle_reshuffles < state.rules.reshuffle_limit))


def _reshuffle(state: HandState, action: Reshuffle,
               history: tuple[Action, ...]) -> HandState:
    if action.order is None:
        if not isinstance(state.pile, int):
            raise IllegalAction("R4b", "a full-information reshuffle needs the new order", action)
        pile: tuple[int, ...] | int = len(state.discard)
    else:
        if sorted(action.order) != sorted(state.discard):
            raise IllegalAction("R4b", "a reshuffle must use exactly the discard pile", action)
        pile = tuple(reversed(action.order)) if not isinstance(state.pile, int) \
            else len(action.order)
    idle = state.idle_reshuffles + (0 if state.progress else 1)
    return _settle(replace(state, pile=pile, discard=(), pile_drawn=0,
                           reshuffles=state.reshuffles + 1, idle_reshuffles=idle,
                           progress=False, phase=DRAW, history=history))


# ----- turn flow -----------------------------------------------------------------------

def _next_turn(state: HandState, seat: int, pending: tuple[str, ...] = _TURN_START,
               **changes: Any) -> HandState:
    """R4: the turn passes to ``seat`` (counted round the table), who starts it with the
    ``pending`` draws; at the turn bound (R4b) the hand ends instead. ``changes`` are the
    move's own, made in the same step. The only place a turn starts; a turn that starts
    with the draw pile run out is settled at once (:func:`_settle`)."""
    if state.turns >= state.rules.max_turns:
        return _end(state, "turn_limit", **changes)
    seat %= state.seating.n_players
    st = replace(state, phase=DRAW, seat=seat, turn_seat=seat, pending=pending, after=PLAY,
                 attack=None, turns=state.turns + 1, **changes)
    return st if st.pile else _settle(st)  # (a draw can be made: nothing to settle)


def _settle(state: HandState) -> HandState:
    """Resolve the automatic steps: an exhausted pile, an empty hand (R4b, R13)."""
    st = state
    while True:
        if st.phase == DRAW:
            if st.pile:  # a count or the cards: a draw can be made
                return st
            if _can_reshuffle(st):
                return replace(st, phase=RESHUFFLE)
            # R4b: no more drawing; the pending draws lapse.
            if st.after == PLAY:
                st = replace(st, pending=(), phase=PLAY)
            else:
                st = _next_turn(st, st.turn_seat + 1)
            continue
        if st.phase == PLAY and st.hand_size(st.seat) == 0:
            if all(st.hand_size(s) == 0 for s in range(st.seating.n_players)) \
                    and not _can_reshuffle(st):
                return _end(st, "exhausted")
            # R7 question in §7: a player with no card passes.
            st = _next_turn(st, st.seat + 1)
            continue
        return st


def _end(state: HandState, reason: str, completed_by: int = NO_SIDE,
         **changes: Any) -> HandState:
    """R13: the hand is over (``completed_by``: the side that made the trip, if any)."""
    pile = changes.get("pile", state.pile)
    return replace(state, phase=OVER, end_reason=reason, completed_by=completed_by,
                   completed_after_exhaustion=completed_by != NO_SIDE and not pile,
                   pending=(), attack=None, **changes)


# ----- playing -------------------------------------------------------------------------

def _discard(state: HandState, action: Discard, history: tuple[Action, ...]) -> HandState:
    """R4: the card goes face up on the discard pile and the turn passes on."""
    seat, card = action
    hands = _hands_without(state, seat, (card,), action)
    return _next_turn(state, seat + 1, hands=hands, discard=state.discard + (card,),
                      history=history)


def _play(state: HandState, action: Play, history: tuple[Action, ...]) -> HandState:
    seat, card, target = action
    hands = _hands_without(state, seat, (card,), action)
    refusal = play_refusal(state, seat, card, target)
    if refusal is not None:
        raise IllegalAction(refusal[0], refusal[1], action)
    family = FAMILY_OF[card]
    if family is _HAZARD:  # R6: on an opponent's zone, which may answer (R9, R10a)
        assert target is not None
        zones = _put(state.zones, target, state.zones[target].lay(card))
        attack = Attack(seat, card, target, state.seating.seats_of(target))
        return replace(state, hands=hands, zones=zones, phase=RESPOND, attack=attack, seat=seat,
                       history=history)
    side = state.side_of(seat)
    zone = state.zones[side].lay(card)
    zones = _put(state.zones, side, zone)
    if family is _DISTANCE:  # R5; R11: the trip may be done
        if zone.km >= state.target:
            return _trip_done(replace(state, hands=hands, zones=zones, progress=True,
                                      history=history), seat)
        return _next_turn(state, seat + 1, hands=hands, zones=zones, progress=True,
                          history=history)
    if family is _REMEDY:  # R7
        return _next_turn(state, seat + 1, hands=hands, zones=zones, history=history)
    # R8: a safety, then an extra turn (not counted as a new one).
    return _settle(replace(state, hands=hands, zones=zones, phase=DRAW, pending=_TURN_START,
                           after=PLAY, history=history))


def _trip_done(state: HandState, seat: int) -> HandState:
    """``seat``'s side has reached the target: R12 extension question, or R13 end."""
    side = state.side_of(seat)
    if state.target < 1000 and state.rules.extension and state.extended_by == NO_SIDE:
        return replace(state, phase=EXTEND, seat=seat)
    return _end(state, "trip", side)


def _extend(state: HandState, action: Extend, history: tuple[Action, ...]) -> HandState:
    side = state.side_of(action.seat)
    if action.extend:
        return _next_turn(state, action.seat + 1, target=1000, extended_by=side,
                          history=history)
    return _end(state, "trip", side, history=history)


def _fast_discard(state: HandState, action: FastDiscard,
                  history: tuple[Action, ...]) -> HandState:
    """R10b: several cards to the discard pile, then draw back up to six; the turn ends."""
    if not state.rules.fast_play:
        raise IllegalAction("R10", "O-fast-play is off: discard one card at a time", action)
    seat, cards = action
    if len(cards) < 2 or len(set(cards)) != len(cards):
        raise IllegalAction("R10", "a fast discard names at least two distinct cards", action)
    hands = _hands_without(state, seat, cards, action)
    discard = state.discard + tuple(cards)
    held = hands[seat]
    need = HAND_SIZE - (held if isinstance(held, int) else len(held))
    if need <= 0:
        return _next_turn(state, seat + 1, hands=hands, discard=discard, history=history)
    return _settle(replace(state, hands=hands, discard=discard, phase=DRAW,
                           pending=(REPLACEMENT_DRAW,) * need, after=NEXT_TURN,
                           history=history))


# ----- answering a hazard (R9, R10a) ---------------------------------------------------

def _respond(state: HandState, action: Action, history: tuple[Action, ...]) -> HandState:
    attack = state.attack
    assert attack is not None
    hazard = KIND_OF[attack.card]
    if isinstance(action, CoupFourre):
        if attack.stage != 1:
            raise IllegalAction("R9", "the coup fourre round is over", action)
        hands = _hands_without(state, action.seat, (action.card,), action)
        if KIND_OF[action.card] is not SAFETY_FOR[hazard]:
            raise IllegalAction("R9", f"a coup fourre against {NAMES_EN[hazard]} needs "
                                      f"{NAMES_EN[SAFETY_FOR[hazard]]}", action)
        return _coup_fourre(state, attack, action, hands, history)
    if isinstance(action, FastRemedy):
        if not state.rules.fast_play:
            raise IllegalAction("R10", "O-fast-play is off: no remedy out of turn", action)
        if attack.stage != 2:
            raise IllegalAction("R10", "first every partner answers the coup fourre round",
                                action)
        hands = _hands_without(state, action.seat, (action.card,), action)
        if KIND_OF[action.card] is not REMEDY_FOR[hazard]:
            raise IllegalAction("R10", f"only {NAMES_EN[REMEDY_FOR[hazard]]} answers "
                                       f"{NAMES_EN[hazard]}", action)
        refusal = play_refusal(state, action.seat, action.card, None)
        if refusal is not None:
            raise IllegalAction(refusal[0], refusal[1], action)
        return _fast_remedy(state, attack, action, hands, history)
    if not isinstance(action, Pass):
        raise IllegalAction("R9", "answer the hazard first: pass, coup fourre or (R10) remedy",
                            action)
    attack = attack._replace(answers=attack.answers + (action,))
    if attack.waiting_for():
        return replace(state, attack=attack, history=history)
    if attack.stage == 1 and state.rules.fast_play:
        # R10a: everyone passed the coup fourre round; the remedy round asks one at a
        # time, from the attacker's left.
        n = state.seating.n_players
        order = tuple(sorted(attack.responders, key=lambda s: (s - attack.attacker) % n))
        return replace(state, attack=attack._replace(responders=order, answers=(), stage=2),
                       history=history)
    return _next_turn(state, attack.attacker + 1, history=history)  # the hazard stands


# The first answer that is not a pass settles the window at once: the card goes straight
# from the hand to the table, so no view ever sees it in two places; every way out of the
# window clears ``attack``, so the answers need not be stored.

def _coup_fourre(state: HandState, attack: Attack, answer: CoupFourre,
                 hands: Hands, history: tuple[Action, ...]) -> HandState:
    """R9: the hazard goes to the discard pile, the safety lies sideways, and the turn
    passes to the answering seat, who draws a replacement card and then its turn's card."""
    zone = state.zones[attack.side].without_top(attack.card).lay(answer.card, coup=True)
    return _next_turn(state, answer.seat, pending=(REPLACEMENT_DRAW, TURN_DRAW),
                      hands=hands, zones=_put(state.zones, attack.side, zone),
                      discard=state.discard + (attack.card,), history=history)


def _fast_remedy(state: HandState, attack: Attack, answer: FastRemedy,
                 hands: Hands, history: tuple[Action, ...]) -> HandState:
    """R10a: the remedy lies on the hazard, its player draws a replacement card, and play
    goes on from the attacker's left (the attacker's turn is over)."""
    zone = state.zones[attack.side].lay(answer.card)
    return _settle(replace(state, hands=hands, zones=_put(state.zones, attack.side, zone),
                           attack=None, phase=DRAW, seat=answer.seat,
                           turn_seat=attack.attacker, pending=(REPLACEMENT_DRAW,),
                           after=NEXT_TURN, history=history))


# ----- explaining ----------------------------------------------------------------------

def explain(state: HandState, seat: int, card: int, target: int | None = None) -> str | None:
    """Why ``seat`` cannot play ``card`` now, in words with the rule id; ``None`` if it can."""
    if state.phase == OVER:
        return "R13: the hand is over"
    if seat not in state.actors():
        return f"R4: {_not_your_turn(state, seat)}"
    if state.phase == DRAW:
        return "R4: draw first"
    if state.phase == EXTEND:
        return "R12: decide first whether to extend the trip to 1000"
    if state.phase != PLAY:
        return None if any(getattr(a, "card", None) == card
                           for a in legal_actions(state, seat)) else \
            "R9: only the matching safety (or, R10, remedy) answers this hazard"
    if FAMILY_OF[card] is _HAZARD and target is None:
        refusals = [play_refusal(state, seat, card, side) for side in range(len(state.zones))
                    if side != state.side_of(seat)]
        if any(r is None for r in refusals):
            return None
        r = refusals[0]
    else:
        r = play_refusal(state, seat, card, target)
    return None if r is None else f"{r[0]}: {r[1]}"
