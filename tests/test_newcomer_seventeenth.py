"""The seventeenth first-time-player pass: around a game, and the less-travelled screens.

In Uyghur, the last line of ``millebornes games`` began ")سىز *(" (its parenthesis drawn
pointing outwards) and read "ID، millebornes replay ID" as one run of Latin words.
"""

from __future__ import annotations

import pytest

from cli import i18n
from cli.i18n.rtl import shape, visual

# ----- 1. Uyghur: brackets after a stretch of Latin text -------------------------------------


def test_a_uyghur_bracket_after_latin_words_points_inwards() -> None:
    """A line in visual order whose Latin words sit between Latin letters (a left-to-right
    stretch, its isolates not reversed): every bracket of the sentence after it was left
    unmirrored, ")ئىزاھ(" pointing outwards."""
    said = visual("(ئىزاھ) ئىسىمBo millebornes verify Boنىڭ")
    assert said.endswith(f"({shape('ئىزاھ')[::-1]})"), said
    assert "millebornes verify" in said, said


def test_the_uyghur_games_list_says_its_last_line_in_order() -> None:
    """`millebornes --lang ug games`: "(* سىز)" drawn as it is written, and each command
    with its ID read as one ("ID، millebornes replay ID" was one run of Latin words)."""
    with i18n.using("ug") as tr:
        footer = tr.gettext("(* you) Saved in %(path)s. Use an id with: millebornes verify "
                            "ID, millebornes replay ID, millebornes resume ID") % {
                                "path": "/tmp/games"}
        lines = [tr.display(line) for line in i18n.wrap(footer, 80)]
    first = lines[0].rstrip()
    assert first.endswith(f"({shape('سىز')[::-1]} *)"), lines
    said = " ".join(lines)
    for verb in ("verify", "replay", "resume"):
        assert f"millebornes {verb} ID" in said, lines


@pytest.mark.parametrize("text", ["قاراڭ: millebornes verify ID، millebornes replay ID؛ ئاندىن",
                                  "millebornes games ؟ (ئىزاھ)"])
def test_a_uyghur_comma_after_a_command_ends_its_run(text: str) -> None:
    """A Uyghur comma, semicolon or question mark written against a command belongs to the
    sentence: the command is one run, whole."""
    said = visual(text)
    assert "millebornes verify ID" in said or "millebornes games" in said, said
    assert "ID millebornes" not in said, said
