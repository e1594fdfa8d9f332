"""The game's own vocabulary in the player's language: card names, card families, phases,
score items and rule terms.

The engine names things in English only (``engine.cards.NAMES_EN``) and must stay that way:
nothing language-dependent may reach the wire or a transcript. The screen asks here instead.
Each English word below is written out literally, inside a ``pgettext`` call, so that
extraction finds it; a test checks the card names against the engine's. The context
(``card``, ``family``, ...) keeps a card called "Stop" apart from any verb "stop".
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable

from engine.cards import KIND_OF, NAMES_EN, Family, Kind

from ._catalog import Translator, active


def _tr(translator: Translator | None) -> Translator:
    return translator if translator is not None else active()


#: Card names per translator, made once: every line of the board names cards, and making
#: the 19 names for each one was most of plain mode's translating.
_KIND_NAMES: weakref.WeakKeyDictionary[Translator, dict[Kind, str]] = weakref.WeakKeyDictionary()


def kind_name(kind: Kind, translator: Translator | None = None) -> str:
    """A card kind's name as printed on the card in this language."""
    t = _tr(translator)
    names = _KIND_NAMES.get(t)
    if names is None:
        names = _KIND_NAMES[t] = _kind_names(t)
    return names[kind]


def _kind_names(t: Translator) -> dict[Kind, str]:
    return {
        Kind.D25: t.pgettext("card", "25"),
        Kind.D50: t.pgettext("card", "50"),
        Kind.D75: t.pgettext("card", "75"),
        Kind.D100: t.pgettext("card", "100"),
        Kind.D200: t.pgettext("card", "200"),
        Kind.STOP: t.pgettext("card", "Stop"),
        Kind.SPEED_LIMIT: t.pgettext("card", "Speed Limit"),
        Kind.OUT_OF_GAS: t.pgettext("card", "Out of Gas"),
        Kind.FLAT_TIRE: t.pgettext("card", "Flat Tire"),
        Kind.ACCIDENT: t.pgettext("card", "Accident"),
        Kind.ROLL: t.pgettext("card", "Roll"),
        Kind.END_OF_LIMIT: t.pgettext("card", "End of Limit"),
        Kind.GASOLINE: t.pgettext("card", "Gasoline"),
        Kind.SPARE_TIRE: t.pgettext("card", "Spare Tire"),
        Kind.REPAIRS: t.pgettext("card", "Repairs"),
        Kind.RIGHT_OF_WAY: t.pgettext("card", "Right of Way"),
        Kind.EXTRA_TANK: t.pgettext("card", "Extra Tank"),
        Kind.PUNCTURE_PROOF: t.pgettext("card", "Puncture-Proof"),
        Kind.DRIVING_ACE: t.pgettext("card", "Driving Ace"),
    }


def card_name(card: int, translator: Translator | None = None) -> str:
    """The name of card id ``card`` (0..105) in this language."""
    return kind_name(KIND_OF[card], translator)


#: The cards whose name is too long for a crowded row in some language (the hand's row at
#: 80 columns gives a name 15 cells, 13 without colours): each has a short name too.
SHORT_NAMED = (Kind.SPEED_LIMIT, Kind.OUT_OF_GAS, Kind.SPARE_TIRE, Kind.END_OF_LIMIT,
               Kind.RIGHT_OF_WAY, Kind.EXTRA_TANK, Kind.PUNCTURE_PROOF, Kind.DRIVING_ACE)


def short_kind_name(kind: Kind, translator: Translator | None = None) -> str:
    """A card kind's name for a crowded row, where the printed name does not fit: a short
    name players use (French "Prioritaire" for "Véhicule prioritaire"), never cut
    mid-word; the printed name itself where the language needs no shorter one."""
    t = _tr(translator)
    if kind not in SHORT_NAMED:
        return kind_name(kind, t)
    shorts = {
        # Translators: a card's name where its printed name does not fit (the hand's row at
        # 80 columns: 15 cells, 13 without colours): at most 13 cells, whole words, as
        # players say it (fr "Limite"); a printed name of 13 cells or less stays as it is.
        Kind.SPEED_LIMIT: t.pgettext("short card name", "Speed Limit"),
        # Translators: as "Speed Limit": a short name, at most 13 cells (fr "Panne sèche").
        Kind.OUT_OF_GAS: t.pgettext("short card name", "Out of Gas"),
        # Translators: as "Speed Limit": a short name, at most 13 cells.
        Kind.SPARE_TIRE: t.pgettext("short card name", "Spare Tire"),
        # Translators: as "Speed Limit": a short name, at most 13 cells.
        Kind.END_OF_LIMIT: t.pgettext("short card name", "End of Limit"),
        # Translators: as "Speed Limit": a short name, at most 13 cells (fr "Prioritaire").
        Kind.RIGHT_OF_WAY: t.pgettext("short card name", "Right of Way"),
        # Translators: as "Speed Limit": a short name, at most 13 cells (fr "Citerne").
        Kind.EXTRA_TANK: t.pgettext("short card name", "Extra Tank"),
        # Translators: as "Speed Limit": a short name, at most 13 cells.
        Kind.PUNCTURE_PROOF: t.pgettext("short card name", "Puncture-Proof"),
        # Translators: as "Speed Limit": a short name, at most 13 cells.
        Kind.DRIVING_ACE: t.pgettext("short card name", "Driving Ace"),
    }
    short = shorts[kind]
    if t.language != "en" and short == NAMES_EN[kind]:
        return kind_name(kind, t)       # not translated: the printed name, never English
    return short


def short_card_name(card: int, translator: Translator | None = None) -> str:
    """:func:`short_kind_name` of card id ``card``."""
    return short_kind_name(KIND_OF[card], translator)


def safety_abbreviation(kind: Kind, translator: Translator | None = None) -> str:
    """Two letters for a safety on a crowded board line."""
    t = _tr(translator)
    abbreviations = {
        # Translators: two letters for the safety Right of Way on a crowded board line.
        Kind.RIGHT_OF_WAY: t.pgettext("safety abbreviation", "RW"),
        # Translators: two letters for the safety Extra Tank.
        Kind.EXTRA_TANK: t.pgettext("safety abbreviation", "ET"),
        # Translators: two letters for the safety Puncture-Proof.
        Kind.PUNCTURE_PROOF: t.pgettext("safety abbreviation", "PP"),
        # Translators: two letters for the safety Driving Ace.
        Kind.DRIVING_ACE: t.pgettext("safety abbreviation", "DA"),
    }
    return abbreviations[kind]


def family_name(family: Family, translator: Translator | None = None) -> str:
    """A card family in lower case, as it reads inside a sentence ("a hazard")."""
    t = _tr(translator)
    names = {
        Family.DISTANCE: t.pgettext("family", "distance"),
        Family.HAZARD: t.pgettext("family", "hazard"),
        Family.REMEDY: t.pgettext("family", "remedy"),
        Family.SAFETY: t.pgettext("family", "safety"),
    }
    return names[family]


def phase_name(phase: str, translator: Translator | None = None) -> str:
    """What the seat to move must do now (``engine.state`` phase names)."""
    t = _tr(translator)
    names = {
        "draw": t.pgettext("phase", "Draw a card"),
        "play": t.pgettext("phase", "Play or discard a card"),
        "respond": t.pgettext("phase", "Answer the hazard"),
        "extend": t.pgettext("phase", "Extend the trip?"),
        "reshuffle": t.pgettext("phase", "Reshuffle the discard pile"),
        "over": t.pgettext("phase", "The hand is over"),
    }
    return names[phase]


def score_item_name(item: str, translator: Translator | None = None) -> str:
    """A line of the score sheet (``engine.scoring.SideScore`` field names, and ``total``)."""
    t = _tr(translator)
    names = {
        "distance": t.pgettext("score", "Distance"),
        "safeties": t.pgettext("score", "Safeties"),
        "all_safeties": t.pgettext("score", "All four safeties"),
        "coups_fourres": t.pgettext("score", "Coups fourrés"),
        "trip": t.pgettext("score", "Trip completed"),
        "delayed_action": t.pgettext("score", "Delayed action"),
        "safe_trip": t.pgettext("score", "Safe trip"),
        "extension": t.pgettext("score", "Extension"),
        "shut_out": t.pgettext("score", "Shutout"),
        "total": t.pgettext("score", "Total"),
    }
    return names[item]


def rule_term(term: str, translator: Translator | None = None) -> str:
    """A rule word in lower case, as it reads inside a sentence; ``term`` is its key below."""
    t = _tr(translator)
    names = {
        "coup fourré": t.pgettext("rule", "coup fourré"),
        "extension": t.pgettext("rule", "extension"),
        "draw pile": t.pgettext("rule", "draw pile"),
        "discard pile": t.pgettext("rule", "discard pile"),
        "battle pile": t.pgettext("rule", "battle pile"),
        "speed pile": t.pgettext("rule", "speed pile"),
        "distance pile": t.pgettext("rule", "distance pile"),
        "safety area": t.pgettext("rule", "safety area"),
        "hand": t.pgettext("rule", "hand"),
        "match": t.pgettext("rule", "match"),
        "turn": t.pgettext("rule", "turn"),
        "team": t.pgettext("rule", "team"),
        "trip": t.pgettext("rule", "trip"),
        "fast play": t.pgettext("rule", "fast play"),
        "classic rules": t.pgettext("rule", "classic rules"),
        "modern rules": t.pgettext("rule", "modern rules"),
    }
    return names[term]


RULE_TERMS = ("coup fourré", "extension", "draw pile", "discard pile", "battle pile",
              "speed pile", "distance pile", "safety area", "hand", "match", "turn", "team",
              "trip", "fast play", "classic rules", "modern rules")
PHASES = ("draw", "play", "respond", "extend", "reshuffle", "over")
SCORE_ITEMS = ("distance", "safeties", "all_safeties", "coups_fourres", "trip",
               "delayed_action", "safe_trip", "extension", "shut_out", "total")


def points(n: int, translator: Translator | None = None) -> str:
    """``n`` points, with the plural form this language needs."""
    return _tr(translator).ngettext("%(count)d point", "%(count)d points", n) % {"count": n}


def cards_count(n: int, translator: Translator | None = None) -> str:
    """``n`` cards (a hand size, a pile size), plural as this language needs."""
    return _tr(translator).ngettext("%(count)d card", "%(count)d cards", n) % {"count": n}


def join_list(items: Iterable[str], translator: Translator | None = None) -> str:
    """Names or items said one after another ("Ann, Bo, Cy"), with this language's list
    separator: Uyghur writes the Arabic comma "،", and some forty places joined with a
    Latin ", " in every language."""
    # Translators: the separator between the items of a list on the screen ("Ann, Bo").
    return _tr(translator).pgettext("list separator", ", ").join(items)


def join_and(items: Iterable[str], translator: Translator | None = None) -> str:
    """People or things named together in a sentence: "Bo and Di", "Ann, Bo and Cy".
    ``join_list``'s bare "Bo, Di" in "Waiting for Bo, Di to answer" read to a newcomer as
    an unfinished list (or as one person called "Bo, Di"); a sentence says "and"."""
    t = _tr(translator)
    names = list(items)
    if len(names) < 2:
        return "".join(names)
    # Translators: the last two of people or things named together in a sentence
    # ("Bo and Di"; "Ann, Bo and Cy": %(rest)s is "Ann, Bo", the others joined by the
    # list separator).
    return t.pgettext("list with and", "%(rest)s and %(last)s") % {
        "rest": join_list(names[:-1], t), "last": names[-1]}
