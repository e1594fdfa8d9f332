"""``heuristic-v1``: the first heuristic bot, kept unchanged as a fixed yardstick."""

from __future__ import annotations

import random

from . import HandState
from .actions import Action, CoupFourre, Discard, Draw, Extend, FastRemedy, Pass, Play
from .cards import (
    COUNTS,
    DISTANCE_VALUE,
    FAMILY,
    HAZARD_FOR_REMEDY,
    KIND_OF,
    REMEDY_FOR,
    SAFETY_FOR,
    Family,
    Kind,
)

# The phases of a hand, as HandState.phase spells them.
DRAW, EXTEND, RESPOND = "draw", "extend", "respond"


class HeuristicV1Bot:
    """The project's first heuristic, frozen (issue 12) so that progress is measured against a
    fixed opponent: do not change its behaviour.

    Counts cards, keeps remedies for hazards still unseen, times safeties, always makes a
    coup fourre, decides extensions and avoids stranding itself short of the finish."""

    name = "heuristic-v1"
    pure = True      # a function of (view, legal): see engine.bots.SeatController

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    # -- card counting ------------------------------------------------------------------
    @staticmethod
    def unseen(view: HandState, seat: int) -> dict[Kind, int]:
        """How many cards of each kind this seat has not seen (in others' hands or the pile)."""
        counts = {k: 0 for k in Kind}
        for c in view.deck:
            counts[KIND_OF[c]] += 1
        for c in view.public_cards():
            counts[KIND_OF[c]] -= 1
        for c in view.hand(seat):
            counts[KIND_OF[c]] -= 1
        return counts

    def choose(self, view: HandState, legal: list[Action]) -> Action:
        seat = legal[0].seat
        if view.phase == RESPOND:
            for a in legal:
                if isinstance(a, CoupFourre):
                    return a  # always make a coup fourre
            for a in legal:
                if isinstance(a, FastRemedy):
                    return a
            return Pass(seat)
        if view.phase == EXTEND:
            return Extend(seat, self._extend(view, seat))
        if view.phase == DRAW:
            return self._draw(view, legal)
        return self._play(view, seat, legal)

    def _extend(self, view: HandState, seat: int) -> bool:
        zone = view.zone_of(seat)
        hand_km = sum(DISTANCE_VALUE.get(KIND_OF[c], 0) for c in view.hand(seat))
        leader = max(z.km for i, z in enumerate(view.zones) if i != view.side_of(seat))
        return (zone.moving(view.rules) and hand_km >= 200 and view.pile_size() >= 15
                and leader < 500)

    def _draw(self, view: HandState, legal: list[Action]) -> Action:
        for a in legal:
            if isinstance(a, Draw) and a.source == "discard" and a.card is not None:
                zone = view.zone_of(a.seat)
                k = KIND_OF[a.card]
                hazard = zone.hazard_in_force()
                if hazard is not None and REMEDY_FOR[hazard] is k:
                    return a
                if FAMILY[k] is Family.SAFETY:
                    return a
        return legal[0]

    def _play(self, view: HandState, seat: int, legal: list[Action]) -> Action:
        unseen = self.unseen(view, seat)
        best: Action | None = None
        best_score = 0.0
        for a in legal:
            if isinstance(a, Play):
                s = self._score_play(view, seat, a, unseen)
                if s > best_score:
                    best, best_score = a, s
        if best is not None:
            return best
        discards = [a for a in legal if isinstance(a, Discard)]
        hand = view.hand(seat)
        return min(discards, key=lambda a: (self._keep_value(view, seat, a.card, hand, unseen),
                                            a.card))

    def _score_play(self, view: HandState, seat: int, a: Play,
                    unseen: dict[Kind, int]) -> float:
        k = KIND_OF[a.card]
        fam = FAMILY[k]
        zone = view.zone_of(seat)
        hand = view.hand(seat)
        hazard = zone.hazard_in_force()
        if fam is Family.SAFETY:
            protects = [h for h, s in SAFETY_FOR.items() if s is k]
            if hazard in protects and not any(KIND_OF[c] is REMEDY_FOR[hazard] for c in hand):
                return 100.0
            if k is Kind.RIGHT_OF_WAY and zone.limited():
                return 80.0
            if view.pile_size() <= 2 * view.seating.n_players:
                return 90.0  # the hand may end before a coup fourre: take the points
            return 0.5  # better than throwing a useful card away
        if fam is Family.REMEDY:
            if k is Kind.END_OF_LIMIT:
                return 60.0
            return 95.0 if hazard is not None else 90.0
        if fam is Family.DISTANCE:
            v = DISTANCE_VALUE[k]
            score = 50.0 + v / 10
            remaining = view.target - zone.km - v
            if view.rules.exact_finish and 0 < remaining < 50:
                held_25 = sum(1 for c in hand if KIND_OF[c] is Kind.D25 and c != a.card)
                if held_25 == 0 and unseen[Kind.D25] < 3:
                    score -= 45.0  # would strand us at 25 short of the finish
            if remaining == 0:
                score += 100.0
            return score
        # hazard
        assert a.target is not None
        target = view.zones[a.target]
        score = 65.0 + target.km / 20
        if unseen[SAFETY_FOR[k]] > 0 and not any(KIND_OF[c] is SAFETY_FOR[k] for c in hand):
            score -= 8.0  # risk of a coup fourre
        if k is Kind.SPEED_LIMIT:
            score -= 10.0
            if view.target - target.km <= 100:
                score -= 30.0  # a limit hardly slows someone this close
        return score

    def _keep_value(self, view: HandState, seat: int, card: int, hand: tuple[int, ...],
                    unseen: dict[Kind, int]) -> float:
        k = KIND_OF[card]
        fam = FAMILY[k]
        zone = view.zone_of(seat)
        if fam is Family.SAFETY:
            return 1000.0
        if fam is Family.DISTANCE:
            v = DISTANCE_VALUE[k]
            if k is Kind.D200 and zone.n200 >= 2:
                return 0.0
            if view.rules.exact_finish and zone.km + v > view.target:
                return 0.0
            return 30.0 + v / 10
        if fam is Family.REMEDY:
            if k is Kind.ROLL:
                if zone.has_safety(Kind.RIGHT_OF_WAY):
                    return 0.0
                held = sum(1 for c in hand if KIND_OF[c] is k)
                return 45.0 if held == 1 else 25.0
            hazard = HAZARD_FOR_REMEDY[k]
            if zone.has_safety(SAFETY_FOR[hazard]):
                return 0.0
            if unseen[hazard] == 0 and zone.hazard_in_force() is not hazard \
                    and not (hazard is Kind.SPEED_LIMIT and zone.limited()):
                return 1.0  # every such hazard is already in sight: this remedy is dead
            held = sum(1 for c in hand if KIND_OF[c] is k)
            return 40.0 if held == 1 else 15.0
        # hazard: useless when every opponent is protected against it
        opponents = [z for i, z in enumerate(view.zones) if i != view.side_of(seat)]
        if all(z.has_safety(SAFETY_FOR[k]) for z in opponents):
            return 0.0
        return 35.0 - COUNTS[k] / 10
