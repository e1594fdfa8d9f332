"""The Mille Bornes rules engine: pure, deterministic, no I/O, no clock, no global random.

Rule ids (R…, O…) refer to ../shared/RULES.md and docs/rules.md.
"""

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
    action_from_data,
    action_to_data,
)
from .cards import ALL_CARDS, KIND_OF, Family, Kind, card_name, family, kind, kind_name
from .errors import IllegalAction
from .game import apply_action, explain, legal_actions, new_hand, new_view, reshuffle_action
from .rules import CLASSIC, MODERN, PRESETS, Rules, Seating, parse_option, preset
from .state import SPECTATOR, HandState, Zone, view_of

__all__ = [
    "ALL_CARDS", "CHANCE", "CLASSIC", "KIND_OF", "MODERN", "PRESETS", "SPECTATOR",
    "Action", "CoupFourre", "Discard", "Draw", "Extend", "Family", "FastDiscard", "FastRemedy",
    "HandState", "IllegalAction", "Kind", "Pass", "Play", "Reshuffle", "Rules", "Seating",
    "Zone",
    "action_from_data", "action_to_data", "apply_action", "card_name", "explain", "family",
    "kind", "kind_name", "legal_actions", "new_hand", "new_view", "parse_option", "preset",
    "reshuffle_action", "view_of",
]
