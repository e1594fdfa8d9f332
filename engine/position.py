"""Building a position directly, card by card: for tests, puzzles and tools.

A hand normally starts from a deck order (:func:`~engine.game.new_hand`) and moves on by
actions; :func:`position` instead lays out any full-information state at once, checking
that every card of the deck lies in exactly one place (R1), so the rules engine can be
asked about a situation without playing up to it::

    from engine import CLASSIC, KIND_OF, Seating, Zone, legal_actions, position

    state = position(CLASSIC, Seating.solo(2), hands=[(40, 41, 60), (0, 1)],
                     zones=[Zone.from_cards(battle=[59]), Zone()], seat=0)
    legal_actions(state, 0)

Further :class:`~engine.state.HandState` fields (``turns``, ``attack``, ``target`` ...)
can be given as keywords; the result is an ordinary state and every engine function takes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .rules import CLASSIC, Rules, Seating
from .state import DRAW, PLAY, TURN_DRAW, HandState, Zone, replace


def position(rules: Rules = CLASSIC, seating: Seating | None = None, *,
             hands: Sequence[Sequence[int]], zones: Sequence[Zone] | None = None,
             discard: Sequence[int] = (), pile: Sequence[int] | None = None,
             phase: str = PLAY, seat: int = 0, **fields: Any) -> HandState:
    """A full-information state with the cards where they are given.

    ``hands[s]`` is seat ``s``'s cards (any order; hands are kept sorted); ``zones[side]``
    each side's :class:`Zone` (default: empty, started under O-start-rolling);
    ``discard`` bottom first; ``pile`` the draw pile *top first*, as it will be drawn
    (default: every card not placed elsewhere, in id order). ``seat`` is to move in
    ``phase`` (in ``draw``: its turn's draw is due). Raises ``ValueError`` unless every
    card of ``rules.deck(seating)`` is placed exactly once.
    """
    seating = seating or Seating.solo(2)
    if len(hands) != seating.n_players:
        raise ValueError(f"{seating.n_players} seats need {seating.n_players} hands")
    if zones is None:
        zones = (Zone(started=rules.start_rolling),) * seating.n_teams
    if len(zones) != seating.n_teams:
        raise ValueError(f"{seating.n_teams} sides need {seating.n_teams} zones")
    if not 0 <= seat < seating.n_players:
        raise ValueError(f"seat {seat} is not a seat")
    deck = rules.deck(seating)
    placed = [c for h in hands for c in h] + list(discard)
    for z in zones:
        placed.extend(z.cards())
    if pile is None:
        taken = set(placed)
        pile = [c for c in deck if c not in taken]
    placed.extend(pile)
    if sorted(placed) != sorted(deck):
        missing = sorted(set(deck) - set(placed))
        twice = sorted({c for c in placed if placed.count(c) > 1})
        strange = sorted(set(placed) - set(deck))
        raise ValueError(f"R1: every card of the deck in exactly one place (missing "
                         f"{missing}, placed twice {twice}, not in this deck {strange})")
    state = HandState(
        rules=rules, seating=seating, target=rules.target_for(seating), first_seat=0,
        hands=tuple(tuple(sorted(h)) for h in hands), pile=tuple(reversed(tuple(pile))),
        discard=tuple(discard), zones=tuple(zones), phase=phase, seat=seat, turn_seat=seat,
        pending=(TURN_DRAW,) if phase == DRAW else (), after=PLAY, deck=deck)
    return replace(state, **fields) if fields else state
