"""Helpers for tests that play or render in another language (issue 13): which English card
names leak into a screen that should be translated, and whether a screen fits the terminal."""

from __future__ import annotations

import re

from cli import i18n
from engine.cards import NAMES_EN, Kind


def english_card_names_in(text: str, language: str) -> list[str]:
    """The English card names that appear in ``text`` as whole words although ``language``
    calls those cards something else (a name the language shares with English, such as the
    French "Accident", is no leak). Distance cards are numbers in every language: skipped."""
    with i18n.using(language) as tr:
        own = {i18n.kind_name(k, tr) for k in Kind}
    found = []
    for english in NAMES_EN.values():
        if english.isdigit() or english in own:
            continue
        if re.search(rf"(?<![\w-]){re.escape(english)}(?![\w-])", text):
            found.append(english)
    return found


def screen_faults(lines: list[str], language: str, width: int = 80,
                  height: int = 24) -> list[str]:
    """``i18n.overflowing`` on the lines as the terminal would receive them in ``language``."""
    with i18n.using(language) as tr:
        return i18n.overflowing([tr.display(line) for line in lines], width, height)
