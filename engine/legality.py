"""Whether one card may be played now, and if not, which rule says no (R5–R8).

Each rule is written once, as a function of the zone it looks at, and both users call it:
refusing an action (:func:`play_refusal`, behind ``apply_action`` and ``explain``) and
listing the legal ones (:func:`legal_plays`, behind ``legal_actions``). So the two can
never disagree. A refusal is ``(rule id, reason)``; ``None`` means the play is legal.
Listing only needs the yes or no, so the rule functions answer with an :data:`Objection`
whose words are put together only when someone reads them (:func:`in_words`).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from .actions import Action, Play
from .cards import (
    ALL_CARDS,
    DISTANCE_OF,
    DISTANCE_VALUE,
    FAMILY_OF,
    HAZARD_FOR_REMEDY,
    KIND_OF,
    NAMES_EN,
    SAFETY_FOR,
    Family,
    Kind,
)
from .rules import Rules
from .state import HandState, Zone

Refusal = tuple[str, str] | None
#: ``(rule id, reason, kinds)``: the reason with ``{0}``, ``{1}`` standing for the names of
#: ``kinds``, or ``None`` for no objection.
Objection = tuple[str, str, tuple[Kind, ...]] | None

# Enum member lookups such as ``Kind.ROLL`` cost about 75 ns each on CPython 3.11; the
# checks run for every card of every hand, so they compare against module constants.
_DISTANCE: Final = Family.DISTANCE
_HAZARD: Final = Family.HAZARD
_REMEDY: Final = Family.REMEDY
_SAFETY: Final = Family.SAFETY
_STOP: Final = Kind.STOP
_SPEED_LIMIT: Final = Kind.SPEED_LIMIT
_ROLL: Final = Kind.ROLL
_END_OF_LIMIT: Final = Kind.END_OF_LIMIT
_RIGHT_OF_WAY: Final = Kind.RIGHT_OF_WAY

#: The largest distance card there is: a zone no rule holds back may play it.
LONGEST: Final = max(DISTANCE_VALUE.values())


# ----- distance (R5, R5a, R5b, R5c, R5d) ------------------------------------------------

class DistanceLimit(NamedTuple):
    """A rule holding a zone's next distance card down to ``most`` km (0: none at all)."""

    rule: str
    most: int


# The limits there can be, made once (every legal-action listing asks for them).
_NOT_MOVING: Final = (DistanceLimit("R5", 0),)
_NOT_STARTED: Final = (DistanceLimit("R5a", 0),)
_LIMITED: Final = (DistanceLimit("R5b", 50),)
_TWO_200S: Final = (DistanceLimit("R5c", 100),)
#: R5d, by km left to go: the distance cards are multiples of 25 km.
_EXACT_FINISH: Final = {left: (DistanceLimit("R5d", left),) for left in range(0, LONGEST, 25)}


def distance_limits(state: HandState, zone: Zone) -> tuple[DistanceLimit, ...]:
    """Every rule that now keeps ``zone`` from playing some distance card, in the order
    RULES.md gives them: R5 or R5a (not moving: nothing), R5b (Speed Limit: 50), R5c (two
    200s played: 100), R5d (exact finish: what is left of the trip). Empty: any card."""
    rules = state.rules
    in_force = zone.hazard_in_force()
    if in_force is not None or not zone.rolling(rules):  # not moving (R5)
        if in_force is None and not zone.started and not rules.start_rolling:
            return _NOT_STARTED
        return _NOT_MOVING
    limits: tuple[DistanceLimit, ...] = ()
    if zone.limited():
        limits = _LIMITED
    if zone.n200 >= 2:
        limits += _TWO_200S
    left = state.target - zone.km
    if rules.exact_finish and left < LONGEST:
        limits += _EXACT_FINISH.get(left) or (DistanceLimit("R5d", left),)
    return limits


def distance_cap(state: HandState, zone: Zone) -> int:
    """The longest distance card ``zone`` may play now (0: none), under every limit."""
    cap = LONGEST
    for limit in distance_limits(state, zone):
        if limit.most < cap:
            cap = limit.most
    return cap


def distance_refusal(state: HandState, zone: Zone, k: Kind) -> Refusal:
    """Why distance ``k`` may not go on ``zone``: the first limit it exceeds, in words."""
    value = DISTANCE_VALUE[k]
    for rule, most in distance_limits(state, zone):
        if value > most:
            return (rule, _distance_reason(state, zone, rule, value))
    return None


def _distance_reason(state: HandState, zone: Zone, rule: str, value: int) -> str:
    if rule == "R5":
        in_force = zone.hazard_in_force()
        if in_force is not None:
            return f"your zone shows {NAMES_EN[in_force]}: cure it before driving"
        if not state.rules.roll_after_remedy:
            return "your zone is not moving: play a Roll first"
        # a hazard on top is one its safety cured (none is in force): "a remedy is not
        # enough" to a player who had played a safety, and no remedy
        cure = "a safety" if zone.battle and FAMILY_OF[zone.battle[-1]] is _HAZARD \
            else "a remedy"
        return f"your zone is not moving: play a Roll first ({cure} is not enough under " \
            "O-roll-after-remedy)"
    if rule == "R5a":
        return "you need a Roll (or Right of Way) before your first distance"
    if rule == "R5b":
        return "under a Speed Limit only 25 and 50 may be played"
    if rule == "R5c":
        return "at most two 200 cards per zone per hand"
    return (f"{value} would take you past {state.target} "
            f"(you are at {zone.km}; the finish must be exact)")


# ----- remedies (R7) ---------------------------------------------------------------------

def remedy_objection(zone: Zone, rules: Rules, k: Kind) -> Objection:
    """Why remedy ``k`` may not go on ``zone`` (its own side's) under ``rules``."""
    if k is _END_OF_LIMIT:
        if not zone.limited():
            return ("R7", "End of Limit needs a Speed Limit showing on your zone", ())
        return None
    in_force = zone.hazard_in_force()
    if k is _ROLL:
        if in_force is not None and in_force is not _STOP:
            return ("R7", "cure the {0} first (a Roll only answers Stop)", (in_force,))
        if in_force is _STOP:
            return None
        if rules.roll_after_remedy:
            if zone.rolling(rules) and not (zone.has_safety(_RIGHT_OF_WAY) and zone.battle
                                            and KIND_OF[zone.battle[-1]] is not _ROLL):
                return ("R7", "you are already rolling", ())
            return None
        if zone.started:
            return ("R7", "you are already started; a Roll only answers a Stop", ())
        return None
    hazard = HAZARD_FOR_REMEDY[k]
    if in_force is not hazard:
        return ("R7", "{0} only cures {1}, which is not showing", (k, hazard))
    return None


# ----- hazards (R6, R6a) -----------------------------------------------------------------

def may_attack(state: HandState, seat: int) -> bool:
    """R6a (O-attacker-started): may ``seat`` play a battle hazard at all?"""
    return not state.rules.attacker_started or state.zone_of(seat).started


def hazard_objection(zone: Zone, rules: Rules, k: Kind,
                     attacker_may_attack: bool) -> Objection:
    """Why hazard ``k`` may not go on ``zone`` (an opponent's) under ``rules``;
    ``attacker_may_attack`` is :func:`may_attack` for the attacking seat (R6a)."""
    safety = SAFETY_FOR[k]
    if zone.has_safety(safety):
        return ("R6", "that zone has {0}, which protects it", (safety,))
    if k is _SPEED_LIMIT:
        if zone.limited():
            return ("R6", "that zone is already under a Speed Limit", ())
        return None
    if not attacker_may_attack:
        return ("R6a", "O-attacker-started: you may attack only once your own zone has started",
                ())
    in_force = zone.hazard_in_force()
    if in_force is not None:
        if not rules.stack_hazards:
            return ("R6", "that zone already shows {0}; two battle hazards may not be in force "
                          "together", (in_force,))
        if in_force is k:
            return ("R6", "that zone already shows {0}", (k,))
        return None
    if not zone.rolling(rules):  # (no hazard in force: moving, R5)
        if not zone.started:
            # R5a: no Roll (nor Right of Way) yet this hand; "needs the target zone to be
            # moving" did not say why a zone that nobody had attacked was not
            return ("R6", "that zone has not started: no {0} has been played on it yet, and "
                          "{1} is the only attack on a zone that has not started",
                    (_ROLL, _SPEED_LIMIT))
        return ("R6", "a battle hazard needs the target zone to be moving "
                      "(Speed Limit is the only attack on a zone that is not)", ())
    return None


def in_words(objection: Objection) -> Refusal:
    """An objection as ``(rule id, reason)``, the kinds it names in English."""
    if objection is None:
        return None
    rule, reason, kinds = objection
    return (rule, reason.format(*[NAMES_EN[k] for k in kinds]) if kinds else reason)


# ----- one card ----------------------------------------------------------------------------

def play_refusal(state: HandState, seat: int, card: int, target: int | None) -> Refusal:
    """Why ``seat`` may not play ``card`` (held) now, or ``None`` when it may."""
    k = KIND_OF[card]
    fam = FAMILY_OF[card]
    if fam is _HAZARD:
        if target is None or not 0 <= target < len(state.zones):
            return ("R6", "a hazard needs an opposing side as its target")
        if target == state.side_of(seat):
            return ("R6", "a hazard goes on an opponent's zone, not your own side's")
        return in_words(hazard_objection(state.zones[target], state.rules, k,
                                         may_attack(state, seat)))
    if target is not None:
        return ("R5" if fam is _DISTANCE else "R7" if fam is _REMEDY else "R8",
                f"{NAMES_EN[k]} goes on your own zone: name no target")
    zone = state.zone_of(seat)
    if fam is _DISTANCE:
        return distance_refusal(state, zone, k)
    if fam is _REMEDY:
        return in_words(remedy_objection(zone, state.rules, k))
    return None  # R8: a safety may always be played on your turn


# Legal plays are listed at every move, and building an action costs about 200 ns. Actions
# are immutable values, so every play is made once here and shared: ``_PLAYS[seat][card]``
# is the play with no target (R5, R7, R8), ``_ATTACKS[seat][card][side]`` a hazard's (R6).
_SEATS: Final = range(6)  # R2: at most six players, so at most six sides
# (Card ids index dicts: an id that is no card fails rather than wraps around.)
_PLAYS: Final[tuple[dict[int, Play], ...]] = tuple(
    {c: Play(seat, c, None) for c in ALL_CARDS} for seat in _SEATS)
_ATTACKS: Final[tuple[dict[int, tuple[Play, ...]], ...]] = tuple(
    {c: tuple(Play(seat, c, side) for side in _SEATS) for c in ALL_CARDS
     if FAMILY_OF[c] is _HAZARD} for seat in _SEATS)


def legal_plays(state: HandState, seat: int, hand: tuple[int, ...]) -> list[Action]:
    """Every play ``seat`` may make from ``hand``, in hand order (a hazard: by target side):
    the plays :func:`play_refusal` does not refuse, worked out with the same rule functions
    once per zone rather than once per card where it can (distance: :func:`distance_cap`)."""
    rules = state.rules
    zones = state.zones
    my_side = seat % state.seating.n_teams
    mine = zones[my_side]
    cap = distance_cap(state, mine)
    attacker_may_attack = may_attack(state, seat)
    plays = _PLAYS[seat]
    # Hands are sorted by card id, so cards of a kind are neighbours: each kind is judged
    # once (a repeat reuses the answer for the card before it).
    judged: Kind | None = None
    remedy_ok = False
    open_sides: list[int] = []
    out: list[Action] = []
    for c in hand:
        fam = FAMILY_OF[c]
        if fam is _DISTANCE:
            if DISTANCE_OF[c] <= cap:
                out.append(plays[c])
        elif fam is _SAFETY:
            out.append(plays[c])
        elif fam is _REMEDY:
            k = KIND_OF[c]
            if k is not judged:
                judged, remedy_ok = k, remedy_objection(mine, rules, k) is None
            if remedy_ok:
                out.append(plays[c])
        else:
            k = KIND_OF[c]
            if k is not judged:
                judged = k
                open_sides = [side for side, zone in enumerate(zones) if side != my_side
                              and hazard_objection(zone, rules, k, attacker_may_attack) is None]
            attacks = _ATTACKS[seat][c]
            for side in open_sides:
                out.append(attacks[side])
    return out
