"""Whether one card may be played now, and if not, which rule says no.

Each check returns ``None`` when the play is legal, else ``(rule id, reason)``. Listing
legal actions and validating an action share these, so they can never disagree.
"""

from __future__ import annotations

from typing import NamedTuple

from .actions import Action, Play
from .cards import (
    ALL_CARDS,
    BATTLE_HAZARDS,
    DISTANCE_OF,
    DISTANCE_VALUE,
    FAMILY,
    FAMILY_OF,
    HAZARD_FOR_REMEDY,
    HAZARDS,
    KIND_OF,
    NAMES_EN,
    REMEDIES,
    SAFETY_FOR,
    Family,
    Kind,
)
from .rules import Rules
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
    may_attack = not rules.attacker_started or state.zone_of(seat).started
    return zone_hazard_refusal(state.zones[target], rules, k, may_attack)


def zone_hazard_refusal(zone: Zone, rules: Rules, k: Kind, may_attack: bool) -> Refusal:
    """Why hazard ``k`` may not go on ``zone`` (R6), ``may_attack`` saying whether the
    attacker's own side passes R6a (O-attacker-started)."""
    if zone.has_safety(SAFETY_FOR[k]):
        return ("R6", f"that zone has {NAMES_EN[SAFETY_FOR[k]]}, which protects it")
    if k is _SPEED_LIMIT:
        if zone.limited():
            return ("R6", "that zone is already under a Speed Limit")
        return None
    if not may_attack:
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


class ZoneStatus(NamedTuple):
    """What may be played on one zone now, under one rule set (see :func:`zone_status`)."""

    max_distance: int           # the largest distance card allowed: 0 (R5), 50 (R5b) or 200
    remedies: frozenset[Kind]   # the remedies its side may play on it (R7)
    open_to: frozenset[Kind]    # the hazards an opponent may play on it, R6a aside


def zone_status(state: HandState, zone: Zone) -> ZoneStatus:
    """``zone``'s :class:`ZoneStatus` under ``state.rules``, memoised.

    Legal actions are listed at every move, but a status depends only on the rules and on
    what shows on the zone: the kinds of the top battle and speed cards, the safeties (as
    played: a few orders of at most four cards), R5a's start.
    Those (with the rules' ``id``, the entry keeping the rules alive so the ``id`` stays
    theirs) are the key; there are few such combinations, so the memo stays small.
    """
    rules = state.rules
    battle, speed = zone.battle, zone.speed
    key = (id(rules), KIND_OF[battle[-1]] if battle else None,
           KIND_OF[speed[-1]] if speed else None, zone.safeties, zone.started)
    hit = _STATUS.get(key)
    if hit is not None and hit[0] is rules:
        return hit[1]
    status = _work_out_status(state, zone)
    if len(_STATUS) >= _STATUS_MAX:
        _STATUS.clear()
    _STATUS[key] = (rules, status)
    return status


_StatusKey = tuple[int, Kind | None, Kind | None, tuple[int, ...], bool]
_STATUS: dict[_StatusKey, tuple[Rules, ZoneStatus]] = {}
_STATUS_MAX = 4096


def _work_out_status(state: HandState, zone: Zone) -> ZoneStatus:
    # remedy_refusal reads only the zone and state.rules, so this depends on nothing else.
    rules = state.rules
    max_distance = 0 if not zone.moving(rules) else 50 if zone.limited() else 200
    remedies = frozenset(k for k in REMEDIES if remedy_refusal(state, zone, k) is None)
    open_to = frozenset(k for k in HAZARDS if zone_hazard_refusal(zone, rules, k, True) is None)
    return ZoneStatus(max_distance, remedies, open_to)


# Legal plays are listed at every move, and building an action costs about 200 ns. Actions
# are immutable values, so every play is made once here and shared: ``_PLAYS[seat][card]``
# is the play with no target (R5, R7, R8), ``_ATTACKS[seat][card][side]`` a hazard's (R6).
_SEATS = range(6)  # R2: at most six players, so at most six sides
# (Card ids index dicts: an id that is no card fails rather than wraps around.)
_PLAYS: tuple[dict[int, Play], ...] = tuple(
    {c: Play(seat, c, None) for c in ALL_CARDS} for seat in _SEATS)
_ATTACKS: tuple[dict[int, tuple[Play, ...]], ...] = tuple(
    {c: tuple(Play(seat, c, side) for side in _SEATS) for c in ALL_CARDS
     if FAMILY_OF[c] is _HAZARD} for seat in _SEATS)


def zone_statuses(state: HandState) -> tuple[ZoneStatus, ...]:
    """:func:`zone_status` of every zone, by side.

    Memoised by the identity of ``state.zones``: that tuple passes unchanged from state to
    state (and into views) until a card is played on a zone, while legal actions are listed
    at every move. Each entry holds its tuple and rules, so a live entry's ``id`` cannot be
    taken by another object; the memo is dropped wholesale when full. Same answer, hit or
    miss.
    """
    zones, rules = state.zones, state.rules
    hit = _BY_ZONES.get(id(zones))
    if hit is not None and hit[0] is zones and hit[1] is rules:
        return hit[2]
    statuses = tuple([zone_status(state, z) for z in zones])
    if len(_BY_ZONES) >= _BY_ZONES_MAX:
        _BY_ZONES.clear()
    _BY_ZONES[id(zones)] = (zones, rules, statuses)
    return statuses


_BY_ZONES: dict[int, tuple[tuple[Zone, ...], Rules, tuple[ZoneStatus, ...]]] = {}
_BY_ZONES_MAX = 256


def legal_plays(state: HandState, seat: int, hand: tuple[int, ...]) -> list[Action]:
    """Every play ``seat`` may make, in hand order (a hazard: by target side): the same
    answers as :func:`play_refusal`, from each zone's memoised status (a hot path)."""
    rules = state.rules
    my_side = seat % state.seating.n_teams
    mine = state.zones[my_side]
    statuses = zone_statuses(state)
    status = statuses[my_side]
    cap = status.max_distance                                # R5, R5b
    if rules.exact_finish and state.target - mine.km < cap:
        cap = state.target - mine.km                         # R5d
    if mine.n200 >= 2 and cap > 100:
        cap = 100                                            # R5c: no third 200
    remedies = status.remedies
    may_attack = not rules.attacker_started or mine.started   # R6a
    plays = _PLAYS[seat]
    out: list[Action] = []
    for c in hand:
        fam = FAMILY_OF[c]
        if fam is _DISTANCE:
            if DISTANCE_OF[c] <= cap:
                out.append(plays[c])
        elif fam is _REMEDY:
            if KIND_OF[c] in remedies:
                out.append(plays[c])
        elif fam is _SAFETY:
            out.append(plays[c])
        else:
            k = KIND_OF[c]
            if may_attack or k is _SPEED_LIMIT:
                attacks = _ATTACKS[seat][c]
                for side, st in enumerate(statuses):
                    if side != my_side and k in st.open_to:
                        out.append(attacks[side])
    return out


__all__ = ["legal_plays", "BATTLE_HAZARDS", "play_refusal", "distance_refusal", "remedy_refusal",
           "hazard_refusal"]
