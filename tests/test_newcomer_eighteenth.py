"""The eighteenth first-time-player pass: what the seventeenth left, and more play.

In Uyghur the full screen reordered each styled fragment on its own and kept the fragments
left to right: the top line began "Mille Bornes" on the left, the seat rows ran name,
cards, state from the left.
"""

from __future__ import annotations

from cli import i18n
from cli.i18n.rtl import shape, visual

# ----- 1. Uyghur: a line of several styled fragments reads right to left as a whole ---------


def test_a_uyghur_line_of_fragments_reads_from_the_right() -> None:
    """The table's top line: "Mille Bornes" (its own style) is read first, at the right
    end; the Uyghur word after it stands to its left."""
    from cli.app import _join

    word = "كلاسسىك"
    with i18n.using("ug"):
        shown = _join([[("class:title", "Mille Bornes"), ("", " · "), ("", word)]])
    text = "".join(t for _s, t in shown)
    assert text.rstrip().endswith("Mille Bornes"), text
    assert text.startswith(visual(word)), text
    assert dict((t, s) for s, t in shown)["Mille Bornes"] == "class:title", shown


def test_uyghur_columns_end_at_one_right_edge() -> None:
    """Lines of different widths are padded before they are ordered: every line ends at
    the same right edge, so the columns of the seat rows stay one under the other, and a
    name ("Bo") and the number of the next column ("6 كارتا") are not read as one run."""
    from cli.app import _join

    cards = "6 كارتا"
    with i18n.using("ug"):
        shown = _join([[("", "Bo".ljust(10)), ("", cards)],
                       [("", "سىز".ljust(10)), ("", cards), ("", " │ x")]])
    lines = "".join(t for _s, t in shown).split("\n")
    assert len({i18n.cells(line) for line in lines}) == 1, lines
    assert lines[0].endswith("Bo") and lines[1].endswith(shape("سىز")[::-1]), lines
    assert lines[0].rstrip().endswith(visual(cards) + " " * 8 + "Bo"), lines
