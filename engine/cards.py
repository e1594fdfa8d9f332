"""The 106 playable cards (R1) as small integers, and what each one is.

A physical card is an ``int`` id in ``0..105``; its :class:`Kind` is looked up in
``KIND_OF``. Ids (not kinds) travel through the engine so that the fair-deck protocol
can say exactly which card left which deck position, and so that card conservation
can be checked as a set equality.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from types import MappingProxyType
from typing import Final


class Family(IntEnum):
    DISTANCE = 0
    HAZARD = 1
    REMEDY = 2
    SAFETY = 3


class Kind(IntEnum):
    D25 = 0
    D50 = 1
    D75 = 2
    D100 = 3
    D200 = 4
    STOP = 5
    SPEED_LIMIT = 6
    OUT_OF_GAS = 7
    FLAT_TIRE = 8
    ACCIDENT = 9
    ROLL = 10
    END_OF_LIMIT = 11
    GASOLINE = 12
    SPARE_TIRE = 13
    REPAIRS = 14
    RIGHT_OF_WAY = 15
    EXTRA_TANK = 16
    PUNCTURE_PROOF = 17
    DRIVING_ACE = 18


#: R1: how many of each kind the 106-card deck holds.
_COUNTS: Final[dict[Kind, int]] = {
    Kind.D25: 10, Kind.D50: 10, Kind.D75: 10, Kind.D100: 12, Kind.D200: 4,
    Kind.STOP: 5, Kind.SPEED_LIMIT: 4, Kind.OUT_OF_GAS: 3, Kind.FLAT_TIRE: 3, Kind.ACCIDENT: 3,
    Kind.ROLL: 14, Kind.END_OF_LIMIT: 6, Kind.GASOLINE: 6, Kind.SPARE_TIRE: 6, Kind.REPAIRS: 6,
    Kind.RIGHT_OF_WAY: 1, Kind.EXTRA_TANK: 1, Kind.PUNCTURE_PROOF: 1, Kind.DRIVING_ACE: 1,
}

_FAMILY: Final[dict[Kind, Family]] = {
    **{k: Family.DISTANCE for k in (Kind.D25, Kind.D50, Kind.D75, Kind.D100, Kind.D200)},
    **{k: Family.HAZARD for k in (Kind.STOP, Kind.SPEED_LIMIT, Kind.OUT_OF_GAS,
                                  Kind.FLAT_TIRE, Kind.ACCIDENT)},
    **{k: Family.REMEDY for k in (Kind.ROLL, Kind.END_OF_LIMIT, Kind.GASOLINE,
                                  Kind.SPARE_TIRE, Kind.REPAIRS)},
    **{k: Family.SAFETY for k in (Kind.RIGHT_OF_WAY, Kind.EXTRA_TANK,
                                  Kind.PUNCTURE_PROOF, Kind.DRIVING_ACE)},
}

_DISTANCE_VALUE: Final[dict[Kind, int]] = {Kind.D25: 25, Kind.D50: 50, Kind.D75: 75, Kind.D100: 100,
                                   Kind.D200: 200}

HAZARDS: Final[tuple[Kind, ...]] = (Kind.STOP, Kind.SPEED_LIMIT, Kind.OUT_OF_GAS, Kind.FLAT_TIRE,
                             Kind.ACCIDENT)
BATTLE_HAZARDS: Final[frozenset[Kind]] = frozenset({Kind.STOP, Kind.OUT_OF_GAS, Kind.FLAT_TIRE,
                                              Kind.ACCIDENT})
REMEDIES: Final[tuple[Kind, ...]] = (Kind.ROLL, Kind.END_OF_LIMIT, Kind.GASOLINE, Kind.SPARE_TIRE,
                              Kind.REPAIRS)
SAFETIES: Final[tuple[Kind, ...]] = (Kind.RIGHT_OF_WAY, Kind.EXTRA_TANK, Kind.PUNCTURE_PROOF,
                              Kind.DRIVING_ACE)

#: R7: the remedy that cures each hazard.
_REMEDY_FOR: Final[dict[Kind, Kind]] = {
    Kind.STOP: Kind.ROLL, Kind.SPEED_LIMIT: Kind.END_OF_LIMIT, Kind.OUT_OF_GAS: Kind.GASOLINE,
    Kind.FLAT_TIRE: Kind.SPARE_TIRE, Kind.ACCIDENT: Kind.REPAIRS,
}
_HAZARD_FOR_REMEDY: Final[dict[Kind, Kind]] = {v: k for k, v in _REMEDY_FOR.items()}

#: R8: the safety that protects against each hazard (Right of Way covers two).
_SAFETY_FOR: Final[dict[Kind, Kind]] = {
    Kind.STOP: Kind.RIGHT_OF_WAY, Kind.SPEED_LIMIT: Kind.RIGHT_OF_WAY,
    Kind.OUT_OF_GAS: Kind.EXTRA_TANK, Kind.FLAT_TIRE: Kind.PUNCTURE_PROOF,
    Kind.ACCIDENT: Kind.DRIVING_ACE,
}

_NAMES_EN: Final[dict[Kind, str]] = {
    Kind.D25: "25", Kind.D50: "50", Kind.D75: "75", Kind.D100: "100", Kind.D200: "200",
    Kind.STOP: "Stop", Kind.SPEED_LIMIT: "Speed Limit", Kind.OUT_OF_GAS: "Out of Gas",
    Kind.FLAT_TIRE: "Flat Tire", Kind.ACCIDENT: "Accident", Kind.ROLL: "Roll",
    Kind.END_OF_LIMIT: "End of Limit", Kind.GASOLINE: "Gasoline", Kind.SPARE_TIRE: "Spare Tire",
    Kind.REPAIRS: "Repairs", Kind.RIGHT_OF_WAY: "Right of Way", Kind.EXTRA_TANK: "Extra Tank",
    Kind.PUNCTURE_PROOF: "Puncture-Proof", Kind.DRIVING_ACE: "Driving Ace",
}
_NAMES_FR: Final[dict[Kind, str]] = {
    Kind.D25: "25", Kind.D50: "50", Kind.D75: "75", Kind.D100: "100", Kind.D200: "200",
    Kind.STOP: "Feu rouge", Kind.SPEED_LIMIT: "Limite de vitesse",
    Kind.OUT_OF_GAS: "Panne d'essence", Kind.FLAT_TIRE: "Crevaison", Kind.ACCIDENT: "Accident",
    Kind.ROLL: "Feu vert", Kind.END_OF_LIMIT: "Fin de limite", Kind.GASOLINE: "Essence",
    Kind.SPARE_TIRE: "Roue de secours", Kind.REPAIRS: "Réparations",
    Kind.RIGHT_OF_WAY: "Véhicule prioritaire", Kind.EXTRA_TANK: "Citerne d'essence",
    Kind.PUNCTURE_PROOF: "Increvable", Kind.DRIVING_ACE: "As du volant",
}


def _build_kind_table() -> tuple[Kind, ...]:
    table: list[Kind] = []
    for kind in Kind:
        table.extend([kind] * _COUNTS[kind])
    return tuple(table)


#: Card id -> kind, for the 106 playable cards, grouped by kind in ``Kind`` order.
KIND_OF: Final[tuple[Kind, ...]] = _build_kind_table()
ALL_CARDS: Final[tuple[int, ...]] = tuple(range(len(KIND_OF)))
#: Card id -> family, and card id -> distance value (0 for a card that is no distance):
#: one tuple index instead of two lookups on the engine's hot paths.
FAMILY_OF: Final[tuple[Family, ...]] = tuple(_FAMILY[k] for k in KIND_OF)
DISTANCE_OF: Final[tuple[int, ...]] = tuple(_DISTANCE_VALUE.get(k, 0) for k in KIND_OF)
assert len(ALL_CARDS) == 106

#: R8: each safety kind is one card of the deck (R1), so "a zone has Right of Way" is "that
#: card lies in its safety area": kind -> the card id of that safety.
_SAFETY_CARD: Final[dict[Kind, int]] = {k: KIND_OF.index(k) for k in SAFETIES}
assert all(_COUNTS[k] == 1 for k in SAFETIES)
#: Card id -> the id of the safety card that covers it, for the battle hazards (R6, R8): such
#: a card on top of a battle pile is "in force" unless that safety card is in the zone.
_BATTLE_HAZARD_GUARD: Final[dict[int, int]] = {c: _SAFETY_CARD[_SAFETY_FOR[k]]
                                       for c, k in enumerate(KIND_OF) if k in BATTLE_HAZARDS}

#: R1a: the ids removed for the 101-card deck: the first card of each hazard kind.
REMOVED_FOR_SMALL_TABLE: Final[frozenset[int]] = frozenset(KIND_OF.index(k) for k in HAZARDS)


# The tables above are the engine's own; what other code (a plug-in bot above all) gets is
# a read-only view of each (``MappingProxyType``): a bot that "copies" COUNTS by naming it
# and counts cards down in it (``left = COUNTS; left[k] -= 1``), or sets a value in
# DISTANCE_VALUE, changed the rules for every seat of every later match in its process,
# and the built-in bot it played was named for the fault. It now raises in its own call.
COUNTS: Final[Mapping[Kind, int]] = MappingProxyType(_COUNTS)
FAMILY: Final[Mapping[Kind, Family]] = MappingProxyType(_FAMILY)
DISTANCE_VALUE: Final[Mapping[Kind, int]] = MappingProxyType(_DISTANCE_VALUE)
REMEDY_FOR: Final[Mapping[Kind, Kind]] = MappingProxyType(_REMEDY_FOR)
HAZARD_FOR_REMEDY: Final[Mapping[Kind, Kind]] = MappingProxyType(_HAZARD_FOR_REMEDY)
SAFETY_FOR: Final[Mapping[Kind, Kind]] = MappingProxyType(_SAFETY_FOR)
NAMES_EN: Final[Mapping[Kind, str]] = MappingProxyType(_NAMES_EN)
NAMES_FR: Final[Mapping[Kind, str]] = MappingProxyType(_NAMES_FR)
SAFETY_CARD: Final[Mapping[Kind, int]] = MappingProxyType(_SAFETY_CARD)
BATTLE_HAZARD_GUARD: Final[Mapping[int, int]] = MappingProxyType(_BATTLE_HAZARD_GUARD)


def kind(card: int) -> Kind:
    """The kind of a card id (raises IndexError for an id that is no card)."""
    return KIND_OF[card]


def family(card: int) -> Family:
    return _FAMILY[KIND_OF[card]]


def card_name(card: int, lang: str = "en") -> str:
    names = _NAMES_FR if lang == "fr" else _NAMES_EN
    return names[KIND_OF[card]]


def kind_name(k: Kind, lang: str = "en") -> str:
    return (_NAMES_FR if lang == "fr" else _NAMES_EN)[k]
