"""The nineteenth first-time-player pass: what the eighteenth left.

The full screen's hand row showed a card just drawn as "7★Repairs", the star glued to the
name. The Uyghur "terminal too small" notice kept its title "Mille Bornes" on the left.
"""

from __future__ import annotations

from typing import Any

import pytest

from cli import i18n

# ----- 1. the hand row: the star of a card just drawn stands apart from its name ------------


def test_a_card_just_drawn_is_marked_apart_from_its_name() -> None:
    """" 7★Repairs" read as one word: a space between the star and the name, and the
    row keeps its width (the room after the name gives the column back)."""
    from cli import render
    from cli.driver import LocalDriver
    from engine import Seating, preset

    state = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3).view()
    cards = render.hand_cards(state, 0)
    with i18n.using("en"):
        plain = render.hand_lines(state, 0, [], color=False)
        marked = render.hand_lines(state, 0, [], color=False, fresh=cards[-1])
    rows = ["".join(t for _s, t in line) for line in marked[1:]]
    last = [r for r in rows if "★" in r]
    assert last and "★ " in last[0], rows
    before = ["".join(t for _s, t in line) for line in plain[1:]]
    assert [len(r) for r in rows] == [len(r) for r in before], (rows, before)


# ----- 2. Uyghur: the too-small notice stands at the right edge, title and all -------------


def _drawn(app: Any, cols: int, rows: int) -> list[str]:
    """The too-small window as prompt_toolkit writes it to a screen of cols×rows."""
    from prompt_toolkit.layout.mouse_handlers import MouseHandlers
    from prompt_toolkit.layout.screen import Screen, WritePosition

    screen = Screen()
    app.too_small_window.write_to_screen(screen, MouseHandlers(), WritePosition(0, 0, cols, rows),
                                         parent_style="", erase_bg=False, z_index=None)
    return ["".join(screen.data_buffer[y][x].char for x in range(cols)) for y in range(rows)]


@pytest.mark.parametrize("lang, right", [("ug", True), ("en", False)])
def test_the_uyghur_too_small_notice_stands_at_the_right(lang: str, right: bool) -> None:
    from cli_helpers import SizedOutput

    from cli.app import TableApp
    from cli.driver import LocalDriver
    from engine import Seating, preset

    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
    with i18n.using(lang):
        app: Any = TableApp(d, output=SizedOutput(60, 20), lang=lang)
        assert app.too_small()
        lines = _drawn(app, 60, 20)
    title = next(line for line in lines if "Mille Bornes" in line)
    assert title.rstrip().endswith("Mille Bornes") if right else title.startswith("Mille"), lines
    assert (title.startswith(" ") == right), lines


# ----- 3. Vietnamese: one word for a card -----------------------------------------------------


def test_vietnamese_says_the_or_a_card_one_way() -> None:
    """The catalog said "thẻ" (its glossary's "thẻ Dừng") and "lá bài", "lá" for the same
    card: a newcomer wonders whether two words are two things. "xanh lá" is green."""
    import re
    from pathlib import Path

    from babel.messages.pofile import read_po

    path = Path(__file__).resolve().parent.parent / "cli/locale/vi/LC_MESSAGES/millebornes.po"
    with path.open("rb") as f:
        catalog = read_po(f, locale="vi")
    wrong = []
    for m in catalog:
        for text in (m.string if isinstance(m.string, tuple) else (m.string,)):
            if text and re.search(r"(?<!xanh )(?<!\w)[Ll]á(?!\w)", text):
                wrong.append(text)
    assert not wrong, "\n".join(wrong)
    glossary = (path.parents[3].parent / "docs/glossary/vi.md").read_text(encoding="utf-8")
    assert "lá bài |" not in glossary.replace("`", "")
