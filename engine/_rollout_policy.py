"""The search bot's rollout policy as tables by card id, shared by its two rollout paths.

The search (:mod:`engine._bot_search`) plays its rollouts either through the engine
(``rollout_choice``) or through the in-place simulator (:mod:`engine._rollout_sim`); both
read the policy's numbers from here, so the two can only differ in how they walk the legal
moves (which ``tests/test_rollout_sim.py`` pins: same choices, same random numbers drawn).
"""

from __future__ import annotations

from typing import Final

from .cards import DISTANCE_OF, FAMILY_OF, HAZARD_FOR_REMEDY, KIND_OF, SAFETY_FOR, Family, Kind

_DISTANCE, _HAZARD, _REMEDY, _SAFETY = Family.DISTANCE, Family.HAZARD, Family.REMEDY, Family.SAFETY
_ROLL, _SPEED_LIMIT = Kind.ROLL, Kind.SPEED_LIMIT

#: How much the policy wants to play a card (before its noise of up to 10 points).
PLAY_SCORE: Final[tuple[float, ...]] = tuple(
    (40.0 + DISTANCE_OF[c] / 5) if FAMILY_OF[c] is _DISTANCE
    else (60.0 if KIND_OF[c] is _SPEED_LIMIT else 85.0) if FAMILY_OF[c] is _HAZARD
    else 90.0 if FAMILY_OF[c] is _REMEDY
    else 5.0
    for c in range(len(KIND_OF)))
#: How readily a card is thrown away when nothing is played (lower goes first).
KEEP: Final[tuple[float, ...]] = tuple(
    100.0 if FAMILY_OF[c] is _SAFETY
    else (40.0 if KIND_OF[c] is not _SPEED_LIMIT else 20.0) if FAMILY_OF[c] is _HAZARD
    else (45.0 if KIND_OF[c] is _ROLL else 30.0) if FAMILY_OF[c] is _REMEDY
    else 5.0 + DISTANCE_OF[c] / 10
    for c in range(len(KIND_OF)))
#: The safety that makes a card dead in the rollout policy's eyes: for a remedy, the safety
#: that cures what it cures (useless once that safety is in its own zone); for a hazard, the
#: safety that protects against it (useless once every opponent has it). None otherwise.
DEAD_WITH: Final[tuple[Kind | None, ...]] = tuple(
    SAFETY_FOR[HAZARD_FOR_REMEDY[KIND_OF[c]]] if FAMILY_OF[c] is _REMEDY
    else SAFETY_FOR[KIND_OF[c]] if FAMILY_OF[c] is _HAZARD
    else None
    for c in range(len(KIND_OF)))
