"""Starting a hand, listing legal actions, applying one action.

These three functions are the whole rules engine: ``legal_actions(state, seat)`` lists
what ``seat`` may do now, ``apply_action(state, action)`` returns the next state or raises
:class:`~engine.errors.IllegalAction` naming the rule. Both work on full-information
states and on a seat's view.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, TypeVar

from ._checks import legal_plays, play_refusal
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
from .cards import (
    ALL_CARDS,
    FAMILY,
    FAMILY_OF,
    KIND_OF,
    NAMES_EN,
    REMEDY_FOR,
    SAFETY_FOR,
    Family,
    Kind,
)
from .errors import IllegalAction
from .rules import Rules, Seating
from .state import (
    DRAW,
    EXTEND,
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
    replace_state,
)

HAND_SIZE = 6
NEXT = "next"

_T = TypeVar("_T")

# Field positions, for the hottest moves (a draw, a discard, a play: see _next_turn), which
# build the next state from ``list(state)`` by position rather than by replace_state.
_FIELD = {name: i for i, name in enumerate(HandState._fields)}
_HANDS, _PILE, _DISCARD = _FIELD["hands"], _FIELD["pile"], _FIELD["discard"]
_PHASE, _SEAT, _TURN_SEAT = _FIELD["phase"], _FIELD["seat"], _FIELD["turn_seat"]
_PENDING, _AFTER, _ATTACK = _FIELD["pending"], _FIELD["after"], _FIELD["attack"]
_TURNS, _PILE_DRAWN = _FIELD["turns"], _FIELD["pile_drawn"]
_ZONES, _PROGRESS = _FIELD["zones"], _FIELD["progress"]
_TURN_START = (TURN_DRAW,)
_new_state = tuple.__new__

# Enum member lookups such as ``Kind.ROLL`` cost about 75 ns each on CPython 3.11; the
# move functions compare against these module constants.
_DISTANCE, _HAZARD, _REMEDY = Family.DISTANCE, Family.HAZARD, Family.REMEDY
_SPEED_LIMIT, _END_OF_LIMIT = Kind.SPEED_LIMIT, Kind.END_OF_LIMIT


# ----- starting a hand -----------------------------------------------------------------

def new_hand(rules: Rules, seating: Seating, deck_order: tuple[int, ...] | list[int],
             first_seat: int) -> HandState:
    """R3: deal six cards each, one at a time from ``first_seat``; ``deck_order[0]`` is the top.

    Card ``deck_order[i]`` for ``i < 6n`` goes to seat ``(first_seat + i) % n``; the rest
    is the draw pile, drawn in order (deck position ``6n``, ``6n+1``, ...).
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
                    None, deck)


def new_view(rules: Rules, seating: Seating, seat: int, my_cards: tuple[int, ...] | list[int],
             first_seat: int) -> HandState:
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
    return _initial(rules, seating, first_seat, hands, len(deck) - HAND_SIZE * n, seat, deck)


def _initial(rules: Rules, seating: Seating, first_seat: int,
             hands: tuple[tuple[int, ...] | int, ...], pile: tuple[int, ...] | int,
             viewer: int | None, deck: tuple[int, ...]) -> HandState:
    zone = Zone(started=rules.start_rolling)
    return HandState(
        rules=rules, seating=seating, target=rules.target_for(seating), first_seat=first_seat,
        hands=hands, pile=pile, discard=(), zones=(zone,) * seating.n_teams, phase=DRAW,
        seat=first_seat, turn_seat=first_seat, pending=(TURN_DRAW,), after=PLAY,
        viewer=viewer, deck=deck)


# ----- legal actions -------------------------------------------------------------------

# Legal-action lists are rebuilt for every move, and building an action costs about 200 ns.
# Actions are immutable values, so the common ones are made once here and shared (the
# plays: see ``engine._checks``).
_SEATS = range(6)  # R2: at most six players
_PILE_DRAWS: tuple[Draw, ...] = tuple(Draw(s, "pile", None) for s in _SEATS)
# By seat, then by card id (a dict: an id that is no card fails rather than wraps around).
_DISCARD_DRAWS: tuple[dict[int, Draw], ...] = tuple(   # R4a
    {c: Draw(s, "discard", c) for c in ALL_CARDS} for s in _SEATS)
_DISCARDS: tuple[dict[int, Discard], ...] = tuple(
    {c: Discard(s, c) for c in ALL_CARDS} for s in _SEATS)


def _acts(state: HandState, seat: int) -> bool:
    """``seat in state.actors()``, without building the tuple. (For the draw, play and
    extension phases, the two hot callers compare ``seat`` with ``state.seat`` inline.)"""
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
    phase = state.phase
    if phase == PLAY or phase == DRAW or phase == EXTEND:  # _acts, inlined: a hot path
        if seat != state.seat:
            return []
    elif not _acts(state, seat):
        return []  # (a reshuffle is chance: its order comes from ``reshuffle_action``)
    if state.viewer is not None and state.viewer != seat:
        raise ValueError(f"seat {seat}'s options are hidden in seat {state.viewer}'s view")
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
    """R10b: every set of two or more cards of ``hand``, smallest sets first."""
    return [FastDiscard(seat, combo)
            for size in range(2, len(hand) + 1) for combo in combinations(hand, size)]


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
# Each move builds its next state once where it can (the hand, the zone and the turn change
# together): building a HandState is the bulk of a move's cost. The frequent moves (a draw,
# a discard, a play that ends the turn) set fields by position, see _next_turn; the rare
# ones use replace_state.

def apply_action(state: HandState, action: Action) -> HandState:
    """The state after ``action``; raises :class:`IllegalAction` and changes nothing if not legal."""
    phase = state.phase
    if phase == OVER:
        raise IllegalAction("R13", "the hand is over", action)
    if isinstance(action, Reshuffle):
        if phase != RESHUFFLE:
            raise IllegalAction("R4b", "the discard pile is reshuffled only when the draw pile "
                                       "runs out", action)
        return _reshuffle(state, action)
    seat = action.seat
    if not 0 <= seat < state.seating.n_players:
        raise IllegalAction("R2", f"there is no seat {seat}", action)
    if phase == PLAY or phase == DRAW or phase == EXTEND:  # _acts, inlined: a hot path
        if seat != state.seat:
            raise IllegalAction("R4", _not_your_turn(state, seat), action)
    elif not _acts(state, seat):
        raise IllegalAction("R4", _not_your_turn(state, seat), action)
    if phase == PLAY:
        if isinstance(action, Discard):
            return _discard(state, action)
        if isinstance(action, Play):
            return _play(state, action)
        if isinstance(action, FastDiscard):
            return _fast_discard(state, action)
        raise IllegalAction("R4", "play or discard a card now", action)
    if phase == DRAW:
        if not isinstance(action, Draw):
            raise IllegalAction("R4", "draw first: a turn starts with a draw", action)
        return _draw(state, action)
    if phase == EXTEND:
        if not isinstance(action, Extend):
            raise IllegalAction("R12", "decide first whether to extend the trip to 1000",
                                action)
        return _extend(state, action)
    return _respond(state, action)  # RESPOND


def _not_your_turn(state: HandState, seat: int) -> str:
    if state.phase == RESPOND:
        return f"seat {seat} is not being asked to answer the hazard"
    if state.phase == RESHUFFLE:
        return "the discard pile is being reshuffled"
    return f"it is seat {state.seat}'s move, not seat {seat}'s"


def _require_held(state: HandState, seat: int, card: int, action: Action) -> None:
    h = state.hands[seat]
    if isinstance(h, int):
        # Someone else's hidden hand in a view: the card must be one we cannot see anywhere.
        if h <= 0:
            raise IllegalAction("R4", f"seat {seat} has no card to play", action)
        if card not in state.deck:
            raise IllegalAction("R1", f"{card} is not a card of this deck", action)
        if card in _known_cards(state):
            raise IllegalAction("R4", f"seat {seat} cannot hold card {card}: it is "
                                      "already known to be elsewhere", action)
        return
    if card not in h:
        raise IllegalAction("R4", f"seat {seat} does not hold card {card}", action)


def _known_cards(state: HandState) -> set[int]:
    known = set(state.public_cards())
    if state.viewer is not None and state.viewer != SPECTATOR:
        h = state.hands[state.viewer]
        assert not isinstance(h, int)
        known.update(h)
    return known


def _put(items: tuple[_T, ...], i: int, item: _T) -> tuple[_T, ...]:
    """``items`` with position ``i`` replaced by ``item`` (hands by seat, zones by side)."""
    out = list(items)  # two allocations, where slicing and concatenating takes five
    out[i] = item
    return tuple(out)


def _without(hands: tuple[tuple[int, ...] | int, ...], seat: int,
             card: int) -> tuple[tuple[int, ...] | int, ...]:
    """``hands`` after ``seat`` gives up ``card`` (a hidden hand: one card fewer)."""
    h = hands[seat]
    if isinstance(h, int):
        return _put(hands, seat, h - 1)
    i = h.index(card)
    return _put(hands, seat, h[:i] + h[i + 1:])


def _take(state: HandState, seat: int, card: int,
          action: Action) -> tuple[tuple[int, ...] | int, ...]:
    """The hands after ``seat`` gives up ``card`` for ``action``; :func:`_require_held`'s
    refusal if it does not hold it (one pass over the hand instead of two)."""
    hands = list(state.hands)
    h = hands[seat]
    if isinstance(h, int):
        _require_held(state, seat, card, action)
        hands[seat] = h - 1
    else:
        try:
            i = h.index(card)
        except ValueError:
            raise IllegalAction("R4", f"seat {seat} does not hold card {card}", action) from None
        hands[seat] = h[:i] + h[i + 1:]
    return tuple(hands)


def _remove_from_hand(state: HandState, seat: int, card: int) -> HandState:
    return replace_state(state, hands=_without(state.hands, seat, card))


# ----- draws ---------------------------------------------------------------------------

def _draw(state: HandState, action: Draw) -> HandState:
    seat = action.seat
    pile, discard, pile_drawn = state.pile, state.discard, state.pile_drawn
    if action.source == "discard":
        if state.pending[0] != TURN_DRAW or not state.rules.draw_discard:
            raise IllegalAction("R4a", "O-draw-discard is off (or this is a replacement draw): "
                                       "draw from the draw pile", action)
        if not discard:
            raise IllegalAction("R4a", "the discard pile is empty", action)
        card: int | None = discard[-1]
        if action.card is not None and action.card != card:
            raise IllegalAction("R4a", "that card is not on top of the discard pile", action)
        discard = discard[:-1]
    else:
        if isinstance(pile, int):
            if state.viewer == seat:
                if action.card is None:
                    raise ValueError("a draw in the drawer's own view needs the revealed card")
                if action.card not in state.deck or action.card in _known_cards(state):
                    raise IllegalAction("R1", f"card {action.card} cannot be in the draw pile",
                                        action)
                card = action.card
            else:
                card = None
            pile = pile - 1
        else:
            card = pile[-1]
            if action.card is not None and action.card != card:
                raise IllegalAction("R4", "that is not the top card of the draw pile", action)
            pile = pile[:-1]
        pile_drawn += 1
    hands = list(state.hands)
    h = hands[seat]
    if isinstance(h, int):
        hands[seat] = h + 1
    else:
        assert card is not None
        held = [*h, card]  # the hand stays sorted: a list sorted in place, then frozen
        held.sort()
        hands[seat] = tuple(held)
    pending = state.pending[1:]
    # The hottest move: replace_state by hand (by field position) rather than by keywords.
    values = list(state)
    values[_HANDS] = tuple(hands)
    values[_PILE] = pile
    values[_DISCARD] = discard
    values[_PILE_DRAWN] = pile_drawn
    if not pending and state.after != PLAY:
        return _next_turn(state, state.turn_seat + 1, values)
    values[_PENDING] = pending
    if pending:
        values[_PHASE] = DRAW
        return _settle(_new_state(HandState, values))
    # The drawer now holds a card, so there is nothing for _settle to resolve.
    values[_PHASE] = PLAY
    return _new_state(HandState, values)


def _can_reshuffle(state: HandState) -> bool:
    return (state.rules.exhaustion == "reshuffle" and bool(state.discard)
            and (state.progress or state.idle_reshuffles < state.rules.reshuffle_limit))


def _reshuffle(state: HandState, action: Reshuffle) -> HandState:
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
    st = replace_state(state, pile=pile, discard=(), pile_drawn=0, reshuffles=state.reshuffles + 1,
                        idle_reshuffles=idle, progress=False, phase=DRAW)
    return _settle(st)


# ----- turn flow -----------------------------------------------------------------------

def _next_turn(state: HandState, seat: int, values: list[Any] | None = None) -> HandState:
    """The turn passes to ``seat``. ``values`` are ``list(state)`` with the changes of the
    move that ended the turn already made (by field position), if it made any.

    Fields by position rather than replace_state's keywords: about half of all moves end a
    turn, and keyword arguments would make building the next state cost twice as much.
    """
    if values is None:
        values = list(state)
    seat %= state.seating.n_players
    if state.turns >= state.rules.max_turns:
        return _end(_new_state(HandState, values), "turn_limit")
    values[_PHASE] = DRAW
    values[_SEAT] = values[_TURN_SEAT] = seat
    values[_PENDING] = _TURN_START
    values[_AFTER] = PLAY
    values[_ATTACK] = None
    values[_TURNS] = state.turns + 1
    st = _new_state(HandState, values)
    return st if st.pile else _settle(st)  # a draw is due: only an empty pile needs settling


def _settle(state: HandState) -> HandState:
    """Resolve the automatic steps: an exhausted pile, an empty hand (R4b, R13)."""
    st = state
    while True:
        if st.phase == DRAW:
            if st.pile_size() > 0:
                return st
            if _can_reshuffle(st):
                return replace_state(st, phase=RESHUFFLE)
            # R4b: no more drawing; the pending draws lapse.
            if st.after == PLAY:
                st = replace_state(st, pending=(), phase=PLAY)
                continue
            st = replace_state(st, pending=())
            if st.turns >= st.rules.max_turns:
                return _end(st, "turn_limit")
            nxt = (st.turn_seat + 1) % st.seating.n_players
            st = replace_state(st, phase=DRAW, seat=nxt, turn_seat=nxt, pending=(TURN_DRAW,),
                             after=PLAY, turns=st.turns + 1)
            continue
        if st.phase == PLAY and st.hand_size(st.seat) == 0:
            if all(st.hand_size(s) == 0 for s in range(st.seating.n_players)) \
                    and not _can_reshuffle(st):
                return _end(st, "exhausted")
            # R7 question in §7: a player with no card passes.
            if st.turns >= st.rules.max_turns:
                return _end(st, "turn_limit")
            nxt = (st.seat + 1) % st.seating.n_players
            st = replace_state(st, phase=DRAW, seat=nxt, turn_seat=nxt, pending=(TURN_DRAW,),
                             after=PLAY, turns=st.turns + 1)
            continue
        return st


def _end(state: HandState, reason: str, completed_by: int = -1) -> HandState:
    return replace_state(state, phase=OVER, end_reason=reason, completed_by=completed_by,
                          completed_after_exhaustion=completed_by >= 0 and state.pile_size() == 0,
                          pending=(), attack=None)


# ----- playing -------------------------------------------------------------------------

def _discard(state: HandState, action: Discard) -> HandState:
    seat, card = action
    values = list(state)
    values[_HANDS] = _take(state, seat, card, action)
    values[_DISCARD] = state.discard + (card,)
    return _next_turn(state, seat + 1, values)


def _play(state: HandState, action: Play) -> HandState:
    seat, card, target = action
    hands = _take(state, seat, card, action)
    refusal = play_refusal(state, seat, card, target)
    if refusal is not None:
        raise IllegalAction(refusal[0], refusal[1], action)
    fam = FAMILY_OF[card]
    if fam is _HAZARD:
        assert target is not None
        zone = state.zones[target]
        zone = zone.add_speed(card) if KIND_OF[card] is _SPEED_LIMIT else zone.add_battle(card)
        attack = Attack(seat, card, target, state.seating.seats_of(target))
        return replace_state(state, hands=hands, zones=_put(state.zones, target, zone),
                             phase=RESPOND, attack=attack, seat=seat)
    side = seat % state.seating.n_teams
    zone = state.zones[side]
    if fam is _DISTANCE:
        zone = zone.add_distance(card)
        zones = _put(state.zones, side, zone)
        if zone.km >= state.target:
            return _trip_done(replace_state(state, hands=hands, zones=zones, progress=True), seat)
        values = list(state)
        values[_HANDS], values[_ZONES], values[_PROGRESS] = hands, zones, True
        return _next_turn(state, seat + 1, values)
    if fam is _REMEDY:
        zone = zone.add_speed(card) if KIND_OF[card] is _END_OF_LIMIT else zone.add_battle(card)
        values = list(state)
        values[_HANDS], values[_ZONES] = hands, _put(state.zones, side, zone)
        return _next_turn(state, seat + 1, values)
    # R8: a safety, then an extra turn.
    st = replace_state(state, hands=hands, zones=_put(state.zones, side,
                                                      zone.add_safety(card, coup=False)),
                       phase=DRAW, pending=(TURN_DRAW,), after=PLAY)
    return _settle(st)


def _trip_done(state: HandState, seat: int) -> HandState:
    """``seat``'s side has reached the target: R12 extension question, or R13 end."""
    side = state.side_of(seat)
    if state.target < 1000 and state.rules.extension and state.extended_by < 0:
        return replace_state(state, phase=EXTEND, seat=seat)
    return _end(state, "trip", side)


def _extend(state: HandState, action: Extend) -> HandState:
    side = state.side_of(action.seat)
    if action.extend:
        st = replace_state(state, target=1000, extended_by=side)
        return _next_turn(st, action.seat + 1)
    return _end(state, "trip", side)


def _fast_discard(state: HandState, action: FastDiscard) -> HandState:
    if not state.rules.fast_play:
        raise IllegalAction("R10", "O-fast-play is off: discard one card at a time", action)
    cards = action.cards
    if len(cards) < 2 or len(set(cards)) != len(cards):
        raise IllegalAction("R10", "a fast discard names at least two distinct cards", action)
    st = state
    for c in cards:
        _require_held(st, action.seat, c, action)
        st = _remove_from_hand(st, action.seat, c)
    st = replace_state(st, discard=st.discard + tuple(cards))
    need = max(0, 6 - st.hand_size(action.seat))
    if need == 0:
        return _next_turn(st, action.seat + 1)
    st = replace_state(st, phase=DRAW, pending=(REPLACEMENT_DRAW,) * need, after=NEXT)
    return _settle(st)


# ----- answering a hazard (R9, R10a) ---------------------------------------------------

def _respond(state: HandState, action: Action) -> HandState:
    attack = state.attack
    assert attack is not None
    hazard = KIND_OF[attack.card]
    seat = action.seat
    if isinstance(action, CoupFourre):
        if attack.stage != 1:
            raise IllegalAction("R9", "the coup fourre round is over", action)
        _require_held(state, seat, action.card, action)
        if KIND_OF[action.card] is not SAFETY_FOR[hazard]:
            raise IllegalAction("R9", f"a coup fourre against {NAMES_EN[hazard]} needs "
                                      f"{NAMES_EN[SAFETY_FOR[hazard]]}", action)
    elif isinstance(action, FastRemedy):
        if not state.rules.fast_play:
            raise IllegalAction("R10", "O-fast-play is off: no remedy out of turn", action)
        if attack.stage != 2:
            raise IllegalAction("R10", "first every partner answers the coup fourre round",
                                action)
        _require_held(state, seat, action.card, action)
        if KIND_OF[action.card] is not REMEDY_FOR[hazard]:
            raise IllegalAction("R10", f"only {NAMES_EN[REMEDY_FOR[hazard]]} answers "
                                       f"{NAMES_EN[hazard]}", action)
        refusal = play_refusal(state, seat, action.card, None)
        if refusal is not None:
            raise IllegalAction(refusal[0], refusal[1], action)
    elif not isinstance(action, Pass):
        raise IllegalAction("R9", "answer the hazard first: pass, coup fourre or (R10) remedy",
                            action)
    attack = Attack(attack.attacker, attack.card, attack.side, attack.responders,
                    attack.answers + (action,), attack.stage)
    # The first answer that is not a pass settles the window at once: the card goes
    # straight from the hand to the table, so no view ever sees it in two places.
    if attack.waiting_for() and isinstance(action, Pass):
        return replace_state(state, attack=attack)
    if isinstance(action, Pass) and attack.stage == 1 and state.rules.fast_play:
        n = state.seating.n_players
        order = tuple(sorted(attack.responders, key=lambda s: (s - attack.attacker) % n))
        return replace_state(state, attack=Attack(attack.attacker, attack.card, attack.side,
                                                  order, (), 2))
    # Every way out of the window clears ``attack``, so the answers need not be stored.
    return _resolve_attack(state, attack)


def _resolve_attack(state: HandState, attack: Attack) -> HandState:
    last = attack.answers[-1] if attack.answers else None
    if isinstance(last, CoupFourre):
        a = last
        # R9: the hazard goes to the discard pile; the safety lies sideways.
        zone = state.zones[attack.side].drop_top(attack.card).add_safety(a.card, coup=True)
        st = replace_state(state, hands=_without(state.hands, a.seat, a.card),
                           zones=_put(state.zones, attack.side, zone),
                           discard=state.discard + (attack.card,), attack=None, phase=DRAW,
                           seat=a.seat, turn_seat=a.seat, pending=(REPLACEMENT_DRAW, TURN_DRAW),
                           after=PLAY, turns=state.turns + 1)
        return _settle(st)
    if isinstance(last, FastRemedy):
        fr = last
        zone = state.zones[attack.side]
        zone = zone.add_speed(fr.card) if KIND_OF[fr.card] is _END_OF_LIMIT \
            else zone.add_battle(fr.card)
        st = replace_state(state, hands=_without(state.hands, fr.seat, fr.card),
                           zones=_put(state.zones, attack.side, zone), attack=None, phase=DRAW,
                           seat=fr.seat, turn_seat=attack.attacker, pending=(REPLACEMENT_DRAW,),
                           after=NEXT)
        return _settle(st)
    return _next_turn(state, attack.attacker + 1)


# ----- explaining ----------------------------------------------------------------------

def explain(state: HandState, seat: int, card: int, target: int | None = None) -> str | None:
    """Why ``seat`` cannot play ``card`` now, in words with the rule id; ``None`` if it can."""
    if state.phase == OVER:
        return "R13: the hand is over"
    if seat not in state.actors():
        return f"R4: {_not_your_turn(state, seat)}"
    if state.phase == DRAW:
        return "R4: draw first"
    if state.phase != PLAY:
        return None if any(getattr(a, "card", None) == card
                           for a in legal_actions(state, seat)) else \
            "R9: only the matching safety (or, R10, remedy) answers this hazard"
    k = KIND_OF[card]
    if FAMILY[k] is Family.HAZARD and target is None:
        refusals = [play_refusal(state, seat, card, side) for side in range(len(state.zones))
                    if side != state.side_of(seat)]
        if any(r is None for r in refusals):
            return None
        r = refusals[0]
    else:
        r = play_refusal(state, seat, card, target)
    return None if r is None else f"{r[0]}: {r[1]}"
