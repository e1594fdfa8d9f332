"""Shared scenario builders for the engine tests (rule ids refer to shared/RULES.md).

Two ways to build a position:

* :func:`deal` builds a real deck order for ``engine.new_hand`` so that given seats are dealt
  given kinds and the draw pile starts with given kinds;
* :func:`build` lays out a :class:`HandState` directly with :func:`engine.position` (zones at
  any distance, any pile), keeping every card of the deck accounted for exactly once.

Kinds are given as :class:`engine.Kind` values; helpers pick concrete card ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine import (
    CLASSIC,
    KIND_OF,
    Action,
    Discard,
    Draw,
    HandState,
    IllegalAction,
    Kind,
    Play,
    Rules,
    Seating,
    Zone,
    apply_action,
    legal_actions,
    new_hand,
    position,
)

K = Kind

# Fillers are taken in this order so that unspecified cards interfere as little as possible
# (no safeties or hazards in a hand unless a test asks for them).
_FILLER_ORDER: tuple[Kind, ...] = (
    K.D75, K.D100, K.D25, K.D50, K.GASOLINE, K.SPARE_TIRE, K.REPAIRS, K.END_OF_LIMIT, K.ROLL,
    K.STOP, K.SPEED_LIMIT, K.OUT_OF_GAS, K.FLAT_TIRE, K.ACCIDENT, K.D200,
    K.RIGHT_OF_WAY, K.EXTRA_TANK, K.PUNCTURE_PROOF, K.DRIVING_ACE,
)


def ids_of(kind: Kind, deck: Iterable[int] | None = None) -> list[int]:
    """Card ids of ``kind`` (in ``deck`` if given), ascending."""
    pool = range(len(KIND_OF)) if deck is None else deck
    return sorted(c for c in pool if KIND_OF[c] is kind)


def kinds(cards: Iterable[int]) -> list[Kind]:
    return [KIND_OF[c] for c in cards]


class Picker:
    """Hands out distinct card ids of requested kinds from a deck."""

    def __init__(self, deck: Sequence[int]) -> None:
        self.free: dict[Kind, list[int]] = {k: [] for k in Kind}
        for c in sorted(deck):
            self.free[KIND_OF[c]].append(c)

    def take(self, kind: Kind | int) -> int:
        if isinstance(kind, int) and not isinstance(kind, Kind):
            # a concrete id: claim exactly it
            k = KIND_OF[kind]
            self.free[k].remove(kind)
            return kind
        pool = self.free[kind]
        if not pool:
            raise ValueError(f"no {kind.name} left in the deck")
        return pool.pop(0)

    def take_all(self, items: Iterable[Kind | int]) -> tuple[int, ...]:
        return tuple(self.take(k) for k in items)

    def filler(self) -> int:
        for k in _FILLER_ORDER:
            if self.free[k]:
                return self.free[k].pop(0)
        raise ValueError("deck exhausted")

    def rest(self) -> list[int]:
        out: list[int] = []
        for k in _FILLER_ORDER:
            out.extend(self.free[k])
            self.free[k] = []
        return out


def deck_order_for(rules: Rules, seating: Seating, hands: Mapping[int, Sequence[Kind | int]],
                   pile_top: Sequence[Kind | int] = (), first_seat: int = 0) -> list[int]:
    """A deck order (top first) dealing ``hands[s]`` (up to 6 kinds) to seat ``s`` and then
    ``pile_top`` as the first cards drawn; everything else is filler."""
    n = seating.n_players
    picker = Picker(rules.deck(seating))
    wanted = {s: list(picker.take_all(hands.get(s, ()))) for s in range(n)}
    top = list(picker.take_all(pile_top))
    order: list[int] = []
    for i in range(6 * n):
        s = (first_seat + i) % n
        order.append(wanted[s].pop(0) if wanted[s] else picker.filler())
    assert all(not w for w in wanted.values()), "more than 6 cards asked for a hand"
    order.extend(top)
    order.extend(picker.rest())
    return order


def deal(rules: Rules = CLASSIC, seating: Seating | None = None,
         hands: Mapping[int, Sequence[Kind | int]] | None = None,
         pile_top: Sequence[Kind | int] = (), first_seat: int = 0) -> HandState:
    """``new_hand`` with a crafted deck order (see :func:`deck_order_for`)."""
    seating = seating or Seating.solo(2)
    order = deck_order_for(rules, seating, hands or {}, pile_top, first_seat)
    return new_hand(rules, seating, order, first_seat)


def zone(picker: Picker, battle: Sequence[Kind | int] = (), speed: Sequence[Kind | int] = (),
         distance: Sequence[Kind | int] = (), safeties: Sequence[Kind | int] = (),
         coups: Sequence[Kind] = (), started: bool | None = None,
         rules: Rules = CLASSIC) -> Zone:
    """:meth:`Zone.from_cards` with cards picked by kind (started from the start under
    O-start-rolling)."""
    if started is None and rules.start_rolling:
        started = True
    return Zone.from_cards(battle=picker.take_all(battle), speed=picker.take_all(speed),
                           distance=picker.take_all(distance),
                           safeties=picker.take_all(safeties), coups=picker.take_all(coups),
                           started=started)


def build(rules: Rules = CLASSIC, seating: Seating | None = None,
          hands: Mapping[int, Sequence[Kind | int]] | None = None,
          zones: Mapping[int, Mapping[str, Any]] | None = None,
          pile_top: Sequence[Kind | int] = (), discard: Sequence[Kind | int] = (),
          pile_rest: bool = True, seat: int = 0, phase: str = "play",
          fill_hands: bool = False, **extra: Any) -> HandState:
    """A state built directly. ``zones[side]`` holds keyword arguments of :func:`zone`.

    ``pile_top`` lists the next cards drawn, top first; the remaining cards of the deck go
    under them, or with ``pile_rest=False`` to the bottom of the discard pile (so the draw
    pile holds exactly ``pile_top``).
    In the ``play`` phase ``seat`` is to play; ``fill_hands`` tops hands up (seat to 7,
    others to 6) with filler cards.
    """
    seating = seating or Seating.solo(2)
    picker = Picker(rules.deck(seating))
    hands = hands or {}
    zones = zones or {}
    hand_ids: list[list[int]] = [list(picker.take_all(hands.get(s, ())))
                                 for s in range(seating.n_players)]
    zone_list = tuple(zone(picker, rules=rules, **zones.get(side, {}))
                      for side in range(seating.n_teams))
    top = list(picker.take_all(pile_top))
    disc = list(picker.take_all(discard))
    if fill_hands:
        for s in range(seating.n_players):
            want = 7 if (s == seat and phase == "play") else 6
            while len(hand_ids[s]) < want:
                hand_ids[s].append(picker.filler())
    rest = picker.rest()
    if not pile_rest:
        disc = rest + disc
        rest = []
    return position(rules, seating, hands=hand_ids, zones=zone_list, discard=disc,
                    pile=top + rest, phase=phase, seat=seat, **extra)


def card(state: HandState, seat: int, kind: Kind) -> int:
    """The first card of ``kind`` in ``seat``'s hand."""
    for c in state.hand(seat):
        if KIND_OF[c] is kind:
            return c
    raise AssertionError(f"seat {seat} holds no {kind.name}: {kinds(state.hand(seat))}")


def play(state: HandState, seat: int, kind: Kind, target: int | None = None) -> HandState:
    return apply_action(state, Play(seat, card(state, seat, kind), target))


def discard(state: HandState, seat: int, kind: Kind) -> HandState:
    return apply_action(state, Discard(seat, card(state, seat, kind)))


def draw(state: HandState, seat: int | None = None, source: str = "pile") -> HandState:
    seat = state.seat if seat is None else seat
    return apply_action(state, Draw(seat, source))


def refused(state: HandState, action: Action) -> str:
    """Apply ``action`` expecting IllegalAction; return its rule id. Checks the state is
    unchanged (states are immutable; also the digest)."""
    before = state.digest()
    try:
        apply_action(state, action)
    except IllegalAction as exc:
        assert state.digest() == before
        return exc.rule
    raise AssertionError(f"{action!r} was accepted")


def refusal_of(state: HandState, seat: int, kind: Kind, target: int | None = None) -> str:
    return refused(state, Play(seat, card(state, seat, kind), target))


def accepted(state: HandState, action: Action) -> bool:
    try:
        apply_action(state, action)
    except IllegalAction:
        return False
    return True


def legal_plays(state: HandState, seat: int) -> set[tuple[Kind, int | None]]:
    """The (kind, target) pairs of the Play actions listed for ``seat``."""
    return {(KIND_OF[a.card], a.target) for a in legal_actions(state, seat)
            if isinstance(a, Play)}


def conserved(state: HandState) -> bool:
    """Every card of the deck is in exactly one place (full-information state)."""
    cards: list[int] = []
    for h in state.hands:
        assert not isinstance(h, int)
        cards.extend(h)
    assert not isinstance(state.pile, int)
    cards.extend(state.pile)
    cards.extend(state.discard)
    for z in state.zones:
        cards.extend(z.battle + z.speed + z.distance + z.safeties)
    return sorted(cards) == sorted(state.deck)


def visible_cards(view: HandState) -> set[int]:
    """Every card id a view shows (own hand, discard, zones, the pending attack and its
    answers). ``deck`` is the public list of cards in play and is not counted."""
    out: set[int] = set()
    assert view.viewer is not None
    for i, h in enumerate(view.hands):
        if isinstance(h, int):
            continue
        assert i == view.viewer, f"seat {i}'s hand is visible in seat {view.viewer}'s view"
        out.update(h)
    assert isinstance(view.pile, int), "the draw pile order is visible in a view"
    out.update(view.discard)
    for z in view.zones:
        out.update(z.battle + z.speed + z.distance + z.safeties + z.coups)
    if view.attack is not None:
        out.add(view.attack.card)
        for a in view.attack.answers:
            for name, value in zip(a._fields, a, strict=True):
                if name == "card" and value is not None:
                    out.add(value)
                elif name in ("cards", "order") and value is not None:
                    out.update(value)
    return out


def leaked(state: HandState) -> dict[int, set[int]]:
    """For each seat, the hidden card ids (others' hands, the pile) its view shows."""
    out: dict[int, set[int]] = {}
    assert not isinstance(state.pile, int)
    for s in range(state.seating.n_players):
        hidden = set(state.pile)
        for o, h in enumerate(state.hands):
            if o != s:
                assert not isinstance(h, int)
                hidden.update(h)
        bad = visible_cards(engine_view_of(state, s)) & hidden
        if bad:
            out[s] = bad
    return out


def engine_view_of(state: HandState, seat: int) -> HandState:
    from engine import view_of
    return view_of(state, seat)
