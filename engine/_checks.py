"""Whether one card may be played now, and if not, which rule says no.

Each check returns ``None`` when the play is legal, else ``(rule id, reason)``. Listing
legal actions and validating an action share these, so they can never disagree.
"""

from __future__ import annotations

from .cards import (
    BATTLE_HAZARDS,
    DISTANCE_OF,
    DISTANCE_VALUE,
    FAMILY,
    FAMILY_OF,
    HAZARD_FOR_REMEDY,
    KIND_OF,
    NAMES_EN,
    SAFETY_FOR,
    Family,
    Kind,
)
from .state import HandState, Zone

Refusal = tuple[str, str] | None

# Enum member lookups such as ``Kind.ROLL`` cost about 75 ns each on CPython 3.11; the
# checks run for every card of every hand, so they compare against module constants.
_DISTANCE, _HAZARD, _REMEDY, _SAFETY = Family.DISTANCE, Family.HAZARD, Family.REMEDY, Family.SAFETY
_STOP, _SPEED_LIMIT, _ROLL = Kind.STOP, Kind.SPEED_LIMIT, Kind.ROLL
_END_OF_LIMIT, _RIGHT_OF_WAY, _D200 = Kind.END_OF_LIMIT, Kind.RIGHT_OF_WAY, Kind.D200


def distance_refusal(state: HandState, zone: Zone, k: Kind) -> Refusal:
    rules = state.rules
    if not zone.moving(rules):
        if zone.hazard_in_force() is not None:
            return ("R5", f"your zone shows {NAMES_EN[zone.hazard_in_force() or k]}: "
                          "cure it before driving")
        if not zone.started and not rules.start_rolling:
            return ("R5a", "you need a Roll (or Right of Way) before your first distance")
        return ("R5", "your zone is not moving: play a Roll first"
                      + (" (a remedy is not enough under O-roll-after-remedy)"
                         if rules.roll_after_remedy else ""))
    value = DISTANCE_VALUE[k]
    if zone.limited() and value > 50:
        return ("R5b", "under a Speed Limit only 25 and 50 may be played")
    if k is _D200 and zone.n200 >= 2:
        return ("R5c", "at most two 200 cards per zone per hand")
    if rules.exact_finish and zone.km + value > state.target:
        return ("R5d", f"{value} would take you past {state.target} "
                       f"(you are at {zone.km}; the finish must be exact)")
    return None


def remedy_refusal(state: HandState, zone: Zone, k: Kind) -> Refusal:
    rules = state.rules
    if k is _END_OF_LIMIT:
        if not zone.limited():
            return ("R7", "End of Limit needs a Speed Limit showing on your zone")
        return None
    in_force = zone.hazard_in_force()
    if k is _ROLL:
        if in_force is not None and in_force is not _STOP:
            return ("R7", f"cure the {NAMES_EN[in_force]} first (a Roll only answers Stop)")
        if in_force is _STOP:
            return None
        if rules.roll_after_remedy:
            if zone.moving(rules) and not (zone.has_safety(_RIGHT_OF_WAY) and zone.battle
                                           and KIND_OF[zone.battle[-1]] is not _ROLL):
                return ("R7", "you are already rolling")
            return None
        if zone.started:
            return ("R7", "you are already started; a Roll only answers a Stop")
        return None
    hazard = HAZARD_FOR_REMEDY[k]
    if in_force is not hazard:
        return ("R7", f"{NAMES_EN[k]} only cures {NAMES_EN[hazard]}, which is not showing")
    return None


def hazard_refusal(state: HandState, seat: int, k: Kind, target: int | None) -> Refusal:
    rules = state.rules
    n_sides = len(state.zones)
    if target is None or not 0 <= target < n_sides:
        return ("R6", "a hazard needs an opposing side as its target")
    if target == state.side_of(seat):
        return ("R6", "a hazard goes on an opponent's zone, not your own side's")
    zone = state.zones[target]
    if zone.has_safety(SAFETY_FOR[k]):
        return ("R6", f"that zone has {NAMES_EN[SAFETY_FOR[k]]}, which protects it")
    if k is _SPEED_LIMIT:
        if zone.limited():
            return ("R6", "that zone is already under a Speed Limit")
        return None
    if rules.attacker_started and not state.zone_of(seat).started:
        return ("R6a", "O-attacker-started: you may attack only once your own zone has started")
    in_force = zone.hazard_in_force()
    if in_force is not None:
        if not rules.stack_hazards:
            return ("R6", f"that zone already shows {NAMES_EN[in_force]}; two battle hazards "
                          "may not be in force together")
        if in_force is k:
            return ("R6", f"that zone already shows {NAMES_EN[k]}")
        return None
    if not zone.moving(rules):
        return ("R6", "a battle hazard needs the target zone to be moving "
                      "(Speed Limit is the only attack on a zone that is not)")
    return None


def play_refusal(state: HandState, seat: int, card: int, target: int | None) -> Refusal:
    """Why ``seat`` may not play ``card`` (held) now, or ``None`` when it may."""
    k = KIND_OF[card]
    fam = FAMILY[k]
    if fam is _HAZARD:
        return hazard_refusal(state, seat, k, target)
    if target is not None:
        return ("R5" if fam is _DISTANCE else "R7" if fam is _REMEDY else "R8",
                f"{NAMES_EN[k]} goes on your own zone: name no target")
    zone = state.zone_of(seat)
    if fam is _DISTANCE:
        return distance_refusal(state, zone, k)
    if fam is _REMEDY:
        return remedy_refusal(state, zone, k)
    return None  # R8: a safety may always be played on your turn


def legal_plays(state: HandState, seat: int, hand: tuple[int, ...]) -> list[tuple[int, int | None]]:
    """Every ``(card, target)`` ``seat`` may play: the same answers as :func:`play_refusal`,
    computed with each zone's status worked out once (this is the engine's hot path)."""
    rules = state.rules
    my_side = seat % state.seating.n_teams
    mine = state.zones[my_side]
    moving = mine.moving(rules)
    max_value = 50 if mine.limited() else 200            # R5b
    room = state.target - mine.km if rules.exact_finish else 1 << 30   # R5d
    remedy_ok: dict[Kind, bool] = {}                      # per remedy kind, asked once
    opponents: list[tuple[int, int, bool, Kind | None, bool]] | None = None
    out: list[tuple[int, int | None]] = []
    for c in hand:
        fam = FAMILY_OF[c]
        if fam is _DISTANCE:
            v = DISTANCE_OF[c]
            if moving and v <= max_value and v <= room and not (v == 200 and mine.n200 >= 2):
                out.append((c, None))
        elif fam is _SAFETY:
            out.append((c, None))
        elif fam is _REMEDY:
            k = KIND_OF[c]
            ok = remedy_ok.get(k)
            if ok is None:
                ok = remedy_ok[k] = remedy_refusal(state, mine, k) is None
            if ok:
                out.append((c, None))
        else:
            if opponents is None:
                opponents = _opponents(state, my_side)
            _hazard_targets(state, mine, KIND_OF[c], c, opponents, out)
    return out


def _opponents(state: HandState, my_side: int) -> list[tuple[int, int, bool, Kind | None, bool]]:
    """``(side, shields, limited, hazard in force, moving)`` of every other side, worked out
    only when the hand holds a hazard."""
    rules = state.rules
    return [(side, z.shields, z.limited(), z.hazard_in_force(), z.moving(rules))
            for side, z in enumerate(state.zones) if side != my_side]


def _hazard_targets(state: HandState, mine: Zone, k: Kind, c: int,
                    opponents: list[tuple[int, int, bool, Kind | None, bool]],
                    out: list[tuple[int, int | None]]) -> None:
    """Append ``(c, side)`` for each side hazard ``c`` (of kind ``k``) may go on (R6, R6a)."""
    rules = state.rules
    guard = 1 << SAFETY_FOR[k]
    may_attack = not rules.attacker_started or mine.started
    for side, shields, lim, in_force, mov in opponents:
        if shields & guard:
            continue
        if k is _SPEED_LIMIT:
            if not lim:
                out.append((c, side))
            continue
        if not may_attack:
            continue
        if in_force is not None:
            if rules.stack_hazards and in_force is not k:
                out.append((c, side))
        elif mov:
            out.append((c, side))


__all__ = ["legal_plays", "BATTLE_HAZARDS", "play_refusal", "distance_refusal", "remedy_refusal",
           "hazard_refusal"]
