"""``millebornes rules``: how to play, in brief, and the two rule sets, before any game.

The same page as a game's help (``r``) and the line mode's ``rules``: a newcomer typed
``millebornes rules`` first and was answered "invalid choice".
"""

from __future__ import annotations

import argparse
import sys

from . import i18n
from .i18n import _
from .program import as_typed
from .words import how_to_play, report_width, wrap


def _paragraphs(page: str) -> list[tuple[str, str]]:
    """The page's items, each ``(indent, text)``: its lines are broken for 80 columns, and
    wrapped one by one at 60 each left a stub of a word or two ("two 200s a hand."); an
    item ends with its sentence (a line ending in "." or ":")."""
    out: list[tuple[str, str]] = []
    open_item = False
    for line in page.splitlines():
        indent = " " * (len(line) - len(line.lstrip(" ")))
        text = line.strip()
        if open_item and out and out[-1][0] == indent:
            out[-1] = (indent, f"{out[-1][1]} {text}")
        else:
            out.append((indent, text))
        open_item = not text.endswith((".", ":"))
    return out


def rules_text(width: int) -> str:
    """The rules page at ``width`` columns: the game in brief, then the two presets and
    where every option is listed (each line wrapped under its own indent)."""
    # each paragraph displayed as one: a Uyghur paragraph's line of Latin alone
    # ("(millebornes play --rules modern: 1000") is laid out right to left with the rest
    lines: list[str] = []
    for indent, text in _paragraphs(how_to_play()):
        lines += i18n.display_paragraph(wrap(text, width, indent))
    lines.append("")
    # the commands as the player's shell finds the program, as --help's examples say them
    lines += i18n.display_paragraph(wrap(_("Two rule sets: classic (the default: a trip of 700 km that may be "
                    "extended to 1000, an exact finish, a match to 5000 points) and modern "
                    "(%(modern)s: one hand to 1000 km, overshoot allowed, draw from the "
                    "discard pile). Every rule option: %(options)s.") % {
                        "modern": as_typed("millebornes play --rules modern"),
                        "options": as_typed("millebornes play --option help")}, width))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    print(rules_text(report_width(sys.stdout)))
    return 0
