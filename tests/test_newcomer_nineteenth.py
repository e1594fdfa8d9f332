"""The nineteenth first-time-player pass: what the eighteenth left.

The full screen's hand row showed a card just drawn as "7★Repairs", the star glued to the
name. The Uyghur "terminal too small" notice kept its title "Mille Bornes" on the left.
Vietnamese called a card "thẻ", "lá bài" and "lá". The line mode, at a network table a
player left, said "q leaves too" (its command is quit), called a bot whose program died
"Bo left", said "pauses within 25 s" and then "waiting up to 20 s", and then "Bo has gone
silent … waits up to 20 s", the same news twice.
"""

from __future__ import annotations

from typing import Any

import pytest
from cli_helpers import WaitingNetDriver

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


# ----- 4. the line mode's wait on a seat that left: once, in its words, with one figure -------


class _Waits(WaitingNetDriver):
    """A network console's driver waiting on seat 1's move: seat 1's transport
    ``state``, and whether seat 1 is a bot."""

    def __init__(self, state: str, bot: bool = False) -> None:
        super().__init__(state, bot)


def test_the_line_modes_wait_names_its_command_quit() -> None:
    """The line mode's command is quit: "q leaves too" named the full screen's key."""
    with i18n.using("en"):
        plain = _Waits("gone").activity(plain=True)
        screen = _Waits("gone").activity()
    assert plain is not None and "quit leaves too" in plain and "q leaves" not in plain
    assert screen is not None and "q leaves too" in screen


@pytest.mark.parametrize("plain", [True, False])
def test_a_bot_that_stopped_is_not_said_to_have_left(plain: bool) -> None:
    """A bot whose process died was "Bo left … waiting for Bo to come back (millebornes
    resume on their computer)": as though a person had gone, with a command no one runs."""
    with i18n.using("en"):
        said = _Waits("gone", bot=True).activity(plain=plain)
    assert said is not None and \
        said.startswith("Bo (a bot run by this computer) stopped answering"), said
    assert "left" not in said.split(";")[0] and "resume on their" not in said, said


def test_the_waits_figures_agree() -> None:
    """"pauses within 25 s" (while Bo was slow), then "Bo left … for up to 20 s": the
    earlier line says the 20 s the later one says, and the 5 s before it."""
    with i18n.using("en"):
        slow = _Waits("slow").activity(plain=True)
        gone = _Waits("gone").activity(plain=True)
    assert slow is not None and gone is not None
    assert "up to 20 s" in slow and "up to 20 s" in gone, (slow, gone)
    assert "25" not in slow, slow


def test_a_seat_gone_while_the_table_waits_on_it_is_said_once() -> None:
    """The wait's own line says Bo left and for how long: "Bo has gone silent … waits up
    to 20 s" came after it, the same news twice; said still of a seat not waited for."""
    from types import SimpleNamespace

    from cli.netdriver import NetDriver
    from p2p.table import TableStep

    with i18n.using("en"):
        d = _Waits("gone")
        NetDriver._watch_peers(d)  # type: ignore[arg-type]
        assert d._events == [], d._events
        other = _Waits("gone")
        other.peer.waiting_on = lambda: SimpleNamespace(seat=0, step=TableStep.MOVE)
        NetDriver._watch_peers(other)  # type: ignore[arg-type]
    assert len(other._events) == 1 and "has gone silent" in other._events[0], other._events


# ----- 5. a list on the screen is joined with the language's separator -----------------------


@pytest.mark.parametrize("lang, sep", [("en", ", "), ("fr", ", "), ("ug", "، ")])
def test_a_list_of_names_is_joined_with_the_languages_separator(lang: str, sep: str) -> None:
    """Some forty places joined lists with a Latin ", ": a Uyghur screen showed "Ann, Bo"
    where Uyghur writes "،". The list of those who agreed, as an agreement's line says it."""
    from cli.words import _names_list

    with i18n.using(lang):
        assert i18n.join_list(["Ann", "Bo", "Cy"]) == sep.join(["Ann", "Bo", "Cy"])
        said = _names_list(["Ann", "Bo", "Cy"])
    # the last two with the language's "and" since pass 21 ("Ann, Bo and Cy")
    assert said.startswith(f"Ann{sep}Bo ") and said.endswith(" Cy"), said


def _logged(path: Any, n: int) -> bool:
    """Is line ``n`` of ``path`` part of a call to the log (it or the line before it)?"""
    lines = path.read_text(encoding="utf-8").splitlines()
    return "log." in lines[n - 1] or "log." in lines[n - 2]


def test_no_screen_list_is_joined_with_a_bare_comma() -> None:
    """Every list the screen shows goes through :func:`cli.i18n.join_list`; the two logs
    (threads, processes left at exit) are for the developer, in English."""
    import re
    from pathlib import Path

    cli = Path(__file__).resolve().parent.parent / "cli"
    bare = re.compile(r"""["'], ["']\.join\(""")
    found = [f"{p.name}:{n}" for p in sorted(cli.glob("*.py"))
             if p.name not in ("tournament.py", "progress.py")
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if bare.search(line) and not _logged(p, n)]
    assert not found, found


@pytest.mark.parametrize("plain", [True, False])
def test_a_pause_on_a_bot_that_stopped_says_a_bot_stopped(plain: bool) -> None:
    """The table paused on a bot whose program died: "Bot1 left; … Wait for them
    (millebornes resume)", as of a person. A bot stopped answering; the choices stay."""
    from test_newcomer_words import _PausedOn

    from cli.netdriver import NetDriver

    d = _PausedOn(["Ann", "Bot1"], "gone", {"id": "unresponsive", "step": "game.act",
                                             "gone": True}, quit=False)
    d.bots = frozenset({1})
    d.bot_maker = object()  # type: ignore[assignment]
    with i18n.using("en"):
        said = NetDriver.silent_words(d, plain) or ""  # type: ignore[arg-type]
    assert said.startswith("Bot1 (a bot run by this computer) stopped answering; the game is "
                           "saved."), said
    assert ("type bot" if plain else "press b") in said, said
    assert "for them to type" not in said, said
