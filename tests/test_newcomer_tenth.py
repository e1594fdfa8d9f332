"""A tenth first-time player: the help's key lines fit the 78-cell help frame in every
language; narrow and wide terminals, the other languages, modern rules, three players,
networked play, tournaments, verify and nonsense typed everywhere."""

from __future__ import annotations

import asyncio
import fcntl
import io
import itertools
import os
import pty
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import pytest
from cli_helpers import SizedOutput, run_headless, until
from prompt_toolkit.formatted_text import to_formatted_text
from prompt_toolkit.input import PipeInput, create_pipe_input

from cli import i18n
from cli.app import TableApp
from cli.driver import LocalDriver
from cli.main import main
from cli.plain import run_plain
from cli.replay import ReplayApp, run_plain_replay
from cli.replay_view import ReplayModel
from cli.words import help_text, how_to_play, key_lines, verify_lines
from engine import Seating, preset
from engine.bots import make_bot
from engine.state import PLAY
from p2p.audit import replay_steps

ROOT = Path(__file__).resolve().parent.parent
ALL_LANGS = ("en", "fr", "sv", "vi", "af", "ug", "ug-Latn")


@pytest.mark.parametrize("lang", ALL_LANGS)
def test_every_help_line_fits_the_78_cell_help_frame(lang: str) -> None:
    """The help's frame is 78 cells inside at 80 columns: a longer key line was re-wrapped
    and its columns ran together (French "c coup fourré … répondre à une question" was 81
    cells, Swedish "h eller F1 …" 79 and "Säkerhetskort: …" 80, Vietnamese "Enter ván sau …"
    80). Every line but the prose ones (not indented: wrapped at spaces on purpose) fits,
    in every combination of the help's parts."""
    with i18n.using(lang):
        for color, saved, network, log_keys, draw_discard in itertools.product((True, False),
                                                                              repeat=5):
            page = help_text(color, saved, network, log_keys, draw_discard)
            for line in page.splitlines():
                if line.startswith(" "):
                    assert i18n.cells(line) <= 78, (lang, i18n.cells(line), line)


@pytest.mark.parametrize("lang", ALL_LANGS)
@pytest.mark.parametrize("width", [58, 38, 78, 158])
def test_a_narrow_help_keeps_each_key_beside_what_it_does(lang: str, width: int) -> None:
    """At 60 columns the help re-wrapped its key lines at spaces and ran the columns
    together ("1-9 or arrows select a card p play it d discard it" / "c coup fourré n let
    a hazard stand (pass) y / n answer a"): a line too wide is broken between its columns,
    each at the line's indent; every line fits."""
    with i18n.using(lang):
        page = help_text(True, True, True, True, True) + "\n" + how_to_play()
        for line in page.splitlines():
            laid = key_lines(line, width)
            assert all(i18n.cells(w) <= width for w in laid), (lang, width, laid)
            if i18n.cells(line) <= width:
                assert laid == [line]
            # nothing lost or added but spaces
            assert "".join("".join(laid).split()) == "".join(line.split())
    if lang == "en" and width == 58:
        laid = key_lines("  1-9 or arrows  select a card      p  play it      d  discard it", 58)
        assert laid == ["  1-9 or arrows  select a card      p  play it",
                        "  d  discard it"]
        laid = key_lines("  c  coup fourré    n  let a hazard stand (pass)    y / n  answer a "
                         "question", 58)
        assert laid == ["  c  coup fourré    n  let a hazard stand (pass)",
                        "  y / n  answer a question"]


def _help_app(columns: int, rows: int) -> tuple[LocalDriver, list[str]]:
    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
    seen: list[str] = []

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move() and d.view().phase == PLAY and not d.others_pending())
        await until(lambda: "drew" in app.message)     # "You drew …", said once
        inp.send_text("h")
        await until(lambda: app.show_help)
        seen.extend(t for _s, t in app._help_fragments())
        inp.send_text("q")                 # q: the help is open, it says so
        await until(lambda: app.message.startswith("The help is open"))
        assert app.show_help and not app.confirm_quit
        seen.append(app.message)
        inp.send_text("7")                 # a card's key too
        await asyncio.sleep(0.05)
        assert app.show_help and app.message == seen[-1]
        inp.send_text("\x1b")              # Esc closes the help, and the line goes
        await until(lambda: not app.show_help)
        await until(lambda: app.message == "")
        inp.send_text("q")
        await until(lambda: app.confirm_quit)
        inp.send_text("y")

    assert run_headless(
        lambda inp, _out: TableApp(d, input=inp, output=SizedOutput(columns, rows), delay=0),
        script) == 0
    return d, seen


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
def test_a_key_pressed_in_the_help_says_the_help_is_open(size: tuple[int, int]) -> None:
    """q in the help did nothing without a word (its keys say "q leave"); on a 60×20
    terminal, too small for the board, q asked "Leave the game?" behind the help where it
    could not be seen, and the next y left. Now any key that does nothing in the help says
    how to close it, and q asks once the help is closed."""
    _d, seen = _help_app(*size)
    assert seen[-1] == "The help is open: Esc, h or F1 closes it; r turns its page."
    lines = "".join(seen[:-1]).splitlines()
    assert all(i18n.cells(w) <= size[0] - 2 for w in lines), lines


def _on_a_terminal(columns: int, write: Callable[[TextIO], None]) -> str:
    """What ``write`` showed on a real terminal (a pty) ``columns`` wide."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 15, columns, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR                     # "\n" as written
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.append(_read_to_the_end(master)),
                              daemon=True)
    reader.start()
    with open(slave, "w", encoding="utf-8", closefd=True) as out:
        write(out)
    reader.join(5)
    os.close(master)
    return b"".join(chunks).decode("utf-8")


def _read_to_the_end(master: int) -> bytes:
    """All a pty's other end wrote, until it was closed."""
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:              # Linux: EIO once the other end is closed
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def _plain_on_a_terminal(columns: int, commands: str) -> str:
    """The line mode on a terminal ``columns`` wide, typed ``commands``; what it showed."""
    def play(out: TextIO) -> None:
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
        assert run_plain(d, out=out, inp=io.StringIO(commands)) == 0
    return _on_a_terminal(columns, play)


def test_line_mode_on_a_narrow_terminal_breaks_lines_at_spaces() -> None:
    """`play --plain` at 40×15: the board's lines were 80 wide and the terminal cut them
    mid-word ("Battle: not sta" / "rted.", "Spee" / "d: no limit."). Each line now fits the
    terminal's width, broken at spaces."""
    shown = _plain_on_a_terminal(40, "help\nwhy 3\nfrobnicate\n")
    lines = [line.removeprefix("> ") for line in shown.split("\n")]
    assert all(i18n.cells(line) <= 40 for line in lines), [w for w in lines if len(w) > 40]
    words = " ".join(shown.split())
    assert "Battle: not started." in words and "play N on NAME" in words
    assert "unknown command 'frobnicate'" in words
    # the help's commands keep their columns: "coup / pass" is not run into what it does
    assert "  coup / pass" in lines
    assert not any("coup / pass answer" in line for line in lines)
    # an 80-column terminal, or a file, still gets the lines as laid out for 80
    wide = _plain_on_a_terminal(160, "help\n")
    assert any(i18n.cells(line) > 60 for line in wide.split("\n"))


@pytest.mark.parametrize("lang", ALL_LANGS)
def test_a_terminal_too_small_for_the_board_names_line_mode(lang: str) -> None:
    """At 40×15 (or 60×20) the board only asked to make the terminal larger: one that
    cannot grow (a phone's, a split pane) had no way on. The notice names line mode
    (resume --plain for a saved game, play --plain for one kept nowhere), within the
    terminal's width."""
    with i18n.using(lang), create_pipe_input() as inp:
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
        app = TableApp(d, input=inp, output=SizedOutput(40, 15), delay=0)
        assert app.too_small()
        notice = "".join(t for _s, t in app._too_small_fragments())
        assert all(i18n.cells(line) <= 40 for line in notice.splitlines()), notice
        assert "play --plain" in " ".join(notice.split())     # LocalDriver: not saved
        app.driver.saves_game = True                           # type: ignore[attr-defined]
        notice = "".join(t for _s, t in app._too_small_fragments())
        assert "resume --plain" in " ".join(notice.split())


def _window_text(window: object) -> str:
    control = window.content                          # type: ignore[attr-defined]
    return "".join(t for _s, t, *_ in to_formatted_text(control.text))


@pytest.mark.parametrize("lang", ["ug", "ug-Latn", "fr"])
def test_the_help_and_the_too_small_notice_are_shown_as_the_board_is(lang: str) -> None:
    """`--lang ug` full screen: the board, the log and the status line are shaped and in
    visual order for the terminal, but the help (h) went out in logical order with its
    letters unshaped (reversed for the reader, under a shaped "Help" title), and so did the
    notice of a terminal too small for the board. Every line of both now goes through the
    same display step; in other languages nothing changes."""
    with i18n.using(lang), create_pipe_input() as inp:
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
        for columns, rows in ((80, 24), (60, 20)):
            app = TableApp(d, input=inp, output=SizedOutput(columns, rows), delay=0, lang=lang)
            logical = "".join(t for _s, t in app._help_fragments()).split("\n")
            shown = _window_text(app.help_window).split("\n")
            assert shown == [i18n.display(line) for line in logical]
            assert (shown != logical) == (lang == "ug")
            if app.too_small():
                logical = "".join(t for _s, t in app._too_small_fragments()).split("\n")
                shown = _window_text(app.too_small_window).split("\n")
                assert shown == [i18n.display(line) for line in logical]
                assert (shown != logical) == (lang == "ug")


@pytest.fixture(scope="module")
def replay_model(tmp_path_factory: pytest.TempPathFactory) -> tuple[ReplayModel, str]:
    """A verified bot game of modern rules, as `millebornes replay` reads it."""
    d = tmp_path_factory.mktemp("tx")
    assert main(["simulate", "--rules", "modern", "--players", "2", "--games", "1",
                 "--fair-deck", "--transcript-dir", str(d)]) == 0
    report, steps = replay_steps(next(d.iterdir()))
    return ReplayModel(steps, report.names), "\n".join(verify_lines(report, None))


def test_replay_in_line_mode_on_a_narrow_terminal_breaks_lines_at_spaces(
        replay_model: tuple[ReplayModel, str]) -> None:
    """`replay --plain` at 40 columns: every board line was 80 wide and the terminal cut it
    mid-word ("Battle: not star" / "ted.", "Repai" / "rs"). Lines now fit the terminal,
    broken at spaces; in a file they are as before."""
    model, summary = replay_model
    shown = _on_a_terminal(40, lambda out: run_plain_replay(model, summary, out=out))
    lines = shown.split("\n")
    assert all(i18n.cells(line) <= 40 for line in lines), [w for w in lines if len(w) > 40]
    assert "Battle: not started." in " ".join(shown.split())
    filed = io.StringIO()
    assert run_plain_replay(model, summary, out=filed) == 0
    assert " ".join(filed.getvalue().split()) == " ".join(shown.split())
    assert max(i18n.cells(line) for line in filed.getvalue().split("\n")) > 40


@pytest.mark.parametrize("lang", ALL_LANGS)
def test_a_terminal_too_small_for_the_replay_names_its_line_mode(
        lang: str, replay_model: tuple[ReplayModel, str]) -> None:
    """The replay at 60×20 asked only for a larger terminal; it names replay --plain."""
    with i18n.using(lang), create_pipe_input() as inp:
        app = ReplayApp(replay_model[0], input=inp, output=SizedOutput(60, 20))
        assert app.too_small()
        notice = "".join(t for _s, t in app._too_small_fragments())
        assert all(i18n.cells(line) <= 60 for line in notice.splitlines())
        assert "--plain" in notice


def _played_to_its_end(d: LocalDriver) -> LocalDriver:
    bot = make_bot("heuristic", 1)
    for _ in range(10_000):
        d.run_others()
        if d.over:
            return d
        if d.hand_over:
            d.next_hand()
        elif d.my_move():
            d.submit(bot.choose(d.view(), d.legal()))
    raise AssertionError("the match did not end")


def test_a_terminal_too_small_says_what_the_table_is_at_and_the_end_of_the_match() -> None:
    """At 60×20 the notice hid the board and said nothing of the game: not that it was the
    player's turn, not that the match had ended and who won (it still offered to go on
    with resume --plain, which has nothing to play then). It now says the table's status
    under it; at the end, the match's result and how to see the scores."""
    with create_pipe_input() as inp:
        d = LocalDriver(preset("modern"), Seating.solo(2), ["You", "Bo"], seed=3)
        d.run_others()
        app = TableApp(d, input=inp, output=SizedOutput(60, 20), delay=0)
        notice = " ".join("".join(t for _s, t in app._too_small_fragments()).split())
        assert app.status_text() and " ".join(app.status_text().split()) in notice
        _played_to_its_end(d)
        notice = " ".join("".join(t for _s, t in app._too_small_fragments()).split())
        assert "make it larger to see the final scores" in notice, notice
        assert "Match over:" in notice and "Press q to leave." in notice
        assert "--plain" not in notice and "goes on meanwhile" not in notice


def test_games_on_a_narrow_terminal_puts_each_game_on_lines_of_its_own(tmp_path: Path) -> None:
    """`millebornes games` at 40 columns: the table's 80-column rows were cut mid-word by
    the terminal ("rules      s" / "tate", "classic    i" / "n progress"), and so was the
    sentence under it ("veri" / "fy ID"). Each game now takes lines of its own, at spaces;
    in a pipe the table is as before."""
    from p2p.table.memory import make_table
    from p2p.table.store import Store
    cfg, _ids = make_table(preset("classic"), Seating.solo(2), ["Al", "Bo"], b"narrow-games")
    Store.create(tmp_path, cfg.header(), 0, port=0).close()
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 15, 40, 0, 0))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("COLUMNS", None)
    proc = subprocess.run([sys.executable, "-m", "cli", "games", "--data-dir", str(tmp_path)],
                          stdout=slave, stderr=subprocess.PIPE, env=env, timeout=60, check=False)
    os.close(slave)
    shown = _read_to_the_end(master).decode("utf-8").replace("\r\n", "\n")
    os.close(master)
    assert proc.returncode == 0, proc.stderr
    lines = shown.splitlines()
    assert all(i18n.cells(line) <= 40 for line in lines), lines
    words = " ".join(shown.split())
    assert "classic, in progress" in words and "Al*, Bo" in words
    assert "millebornes verify ID" in words
    piped = subprocess.run([sys.executable, "-m", "cli", "games", "--data-dir", str(tmp_path)],
                           capture_output=True, text=True, env=env, timeout=60, check=False)
    assert piped.stdout.startswith("id        date") and "classic    in progress" in piped.stdout
