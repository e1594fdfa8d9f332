"""Scoring a hand (R14 modern, R15 classic) and playing a match of hands (R3, R15).

A :class:`Match` is an immutable record of finished hands; it knows who deals first in
the next hand (R3: the first player rotates left) and when the match is won.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from .cards import KIND_OF, Kind
from .rules import NO_SIDE, Rules, Seating
from .state import HandState

#: R14 (modern): a safety scores 100; one played as a coup fourré 200 instead of 100 (the
#: score sheet says where those points went: ``cli.render.score_lines``).
MODERN_SAFETY: Final = 100
MODERN_COUP_FOURRE: Final = 200


class SideScore(NamedTuple):
    """One side's points for one hand, item by item (R15 names; R14 uses a subset)."""

    distance: int = 0
    safeties: int = 0
    all_safeties: int = 0
    coups_fourres: int = 0
    trip: int = 0
    delayed_action: int = 0
    safe_trip: int = 0
    extension: int = 0
    shut_out: int = 0

    @property
    def total(self) -> int:
        return sum(self)

    def items(self) -> list[tuple[str, int]]:
        return [(name, v) for name, v in zip(self._fields, self, strict=True) if v]


def hand_winner(state: HandState) -> int:
    """R13: the side that won the hand, or ``NO_SIDE`` when nobody completed the trip and
    the closest sides tie."""
    if not state.over:
        raise ValueError("the hand is not over")
    if state.completed_by != NO_SIDE:
        return state.completed_by
    kms = [z.km for z in state.zones]
    eligible = [km for km in kms if km <= state.target]
    if not eligible:
        return NO_SIDE
    best = max(eligible)
    winners = [i for i, km in enumerate(kms) if km == best]
    return winners[0] if len(winners) == 1 else NO_SIDE


def score_hand(state: HandState) -> tuple[SideScore, ...]:
    """Points per side for a finished hand."""
    if not state.over:
        raise ValueError("the hand is not over")
    if state.rules.scoring == "modern":
        return tuple(_modern(z.km, len(z.safeties), len(z.coups)) for z in state.zones)
    return _classic(state)


def _modern(km: int, n_safeties: int, n_coups: int) -> SideScore:
    # R14: 1 per mile, 100 per safety, 200 (instead of 100) per coup fourre.
    return SideScore(distance=km, safeties=MODERN_SAFETY * (n_safeties - n_coups),
                     coups_fourres=MODERN_COUP_FOURRE * n_coups)


def _classic(state: HandState) -> tuple[SideScore, ...]:
    rules = state.rules
    done = state.completed_by
    out: list[SideScore] = []
    for side, z in enumerate(state.zones):
        s = SideScore(
            distance=z.km,
            safeties=100 * len(z.safeties),
            all_safeties=300 if len(z.safeties) == 4 else 0,
            coups_fourres=300 * len(z.coups),
        )
        if side == done:
            used_200 = any(KIND_OF[c] is Kind.D200 for c in z.distance)
            others = [o for i, o in enumerate(state.zones) if i != side]
            s = s._replace(
                trip=400,
                delayed_action=300 if state.completed_after_exhaustion else 0,
                safe_trip=0 if used_200 else 300,
                shut_out=500 if any(o.km == 0 for o in others) else 0,
            )
        out.append(s)
    # R12: the extension bonus.
    if state.extended_by != NO_SIDE:
        caller = state.extended_by
        if rules.extension_official:
            if done == caller:
                out[caller] = out[caller]._replace(extension=200)
            else:
                for side in range(len(out)):
                    if side != caller:
                        out[side] = out[side]._replace(extension=200)
        elif done != NO_SIDE:
            out[done] = out[done]._replace(extension=200)
    return tuple(out)


class Match(NamedTuple):
    """Hands played so far and the running totals (R15 classic to 5000; R14 one hand)."""

    rules: Rules
    seating: Seating
    first_seat: int                       # first player of hand 0 (R3: random)
    hands: tuple[tuple[SideScore, ...], ...] = ()

    def totals(self) -> tuple[int, ...]:
        sums = [0] * self.seating.n_teams
        for hand in self.hands:
            for side, s in enumerate(hand):
                sums[side] += s.total
        return tuple(sums)

    def next_first_seat(self) -> int:
        """R3: in a match the first player rotates left each hand."""
        return (self.first_seat + len(self.hands)) % self.seating.n_players

    def record(self, scores: tuple[SideScore, ...]) -> Match:
        return self._replace(hands=self.hands + (scores,))

    def winner(self) -> int:
        """The winning side, or ``NO_SIDE`` while the match goes on.

        Classic (R15): once a side has reached the match target the higher total wins;
        a tie for the highest total plays another hand. Modern (R14, ``match_target`` 0):
        one hand, the highest score wins; a tie plays another hand too.
        """
        if not self.hands:
            return NO_SIDE
        return match_winner(self.rules, self.totals())

    @property
    def over(self) -> bool:
        return self.winner() != NO_SIDE


def match_winner(rules: Rules, totals: Sequence[int]) -> int:
    """The side that has won a match with these totals after a hand, or ``NO_SIDE``: below
    the match target (R15) or tied for the highest total, another hand is played."""
    best = max(totals)
    if rules.match_target and best < rules.match_target:
        return NO_SIDE
    leaders = [i for i, t in enumerate(totals) if t == best]
    return leaders[0] if len(leaders) == 1 else NO_SIDE
