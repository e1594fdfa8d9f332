"""A ninth first-time player, at 80×24 in tmux: a resumed game numbers the hand as before,
a Stop refused on a player who has not started says so, the French help keeps the teams
line, the summary after leaving follows the terminal's width, and a long French card name
is not cut mid-word in the hand row."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cli import i18n, render
from cli.app import TableApp
from cli.driver import LocalDriver
from engine import Discard, Family, Kind, Seating, family, kind, preset
from engine.cards import NAMES_EN
from engine.state import PLAY

ROOT = Path(__file__).resolve().parent.parent
LANGS = ("en", "fr", "sv", "vi", "af", "ug")


@contextlib.contextmanager
def table_app(driver: LocalDriver, **kw: object) -> Iterator[TableApp]:
    """A full screen on a dummy terminal, never run: its state is read directly."""
    with create_pipe_input() as inp:
        yield TableApp(driver, input=inp, output=DummyOutput(), delay=0, **kw)  # type: ignore[arg-type]


def _play_until_a_draw_moves_the_numbers(d: LocalDriver, app: TableApp) -> None:
    """Discard (never a safety) turn after turn until the card drawn last stands where the
    engine's sorted order would not put it, marked ★."""
    for _ in range(40):
        d.run_others()
        app.cards()
        if d.hand_over:
            break
        view = d.view()
        if app.fresh is not None and list(app.cards()) != list(render.hand_cards(view, d.seat)) \
                and d.my_move() and view.phase == PLAY:
            return
        if d.my_move() and view.phase == PLAY:
            throw = [a for a in d.legal() if isinstance(a, Discard)
                     and family(a.card) is not Family.SAFETY]
            d.submit(throw[0])
        elif d.my_move():
            d.submit(d.legal()[0])
    raise AssertionError("no draw moved the numbers in 40 turns")


def test_a_resumed_full_screen_numbers_the_hand_as_before(tmp_path: Path) -> None:
    """After `millebornes resume` the hand came back sorted: the numbers the player knew
    changed and the ★ of the card just drawn was lost. The full screen keeps its order in
    the game's folder; a new screen on the same game (what resume opens) reads it back."""
    kept = tmp_path / "hand-order.json"
    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
    with table_app(d, hand_file=kept) as app:
        _play_until_a_draw_moves_the_numbers(d, app)
        before, fresh = app.cards(), app.fresh
    assert kept.is_file()
    sorted_hand = render.hand_cards(d.view(), d.seat)
    assert before != sorted_hand and sorted(before) == sorted(sorted_hand)
    with table_app(d, hand_file=kept) as again:
        assert again.cards() == before
        assert again.fresh == fresh
        row = "".join(t for line in again._hand_lines() for _s, t in line)
        assert f" {before.index(fresh) + 1}★" in row, row
        # the card under the finger is the one just drawn, as it was when it came
        assert again._selected_card() == fresh


@pytest.mark.parametrize("content", [
    b"", b"{", b"\xff\xfe", b"[]", b'{"hand": 1, "seat": 0, "order": "abc"}',
    b'{"hand": 1, "seat": 0, "order": [1, 1, 2]}', b'{"hand": 99, "seat": 0, "order": []}',
    b'{"hand": 1, "seat": 0, "order": [1e999]}', b'{"hand": true, "seat": false, "order": []}',
    b"[" * 3000, b"x" * 100_000, None, "folder", "fifo", "link",
])
def test_a_missing_or_damaged_hand_order_file_resumes_as_before(tmp_path: Path,
                                                                  content: bytes | str | None) -> None:
    """Whatever the file holds (or if it is missing, or a folder), the resumed screen
    opens on the hand in the engine's order, saying nothing, and the game goes on."""
    kept = tmp_path / "hand-order.json"
    if content == "folder":
        kept.mkdir()
    elif content == "fifo":
        os.mkfifo(kept)                 # reading it would wait for a writer forever
    elif content == "link":
        (tmp_path / "elsewhere.json").write_text('{"hand": 1, "seat": 0, "order": []}')
        kept.symlink_to(tmp_path / "elsewhere.json")
    elif isinstance(content, bytes):
        kept.write_bytes(content)
    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
    d.run_others()
    with table_app(d, hand_file=kept) as app:
        assert app.cards() == render.hand_cards(d.view(), d.seat)
        assert app.fresh is None and app.message == ""
        app._hand_lines()
        if content not in ("folder", "fifo", "link"):
            # and the screen keeps its order there again
            assert json.loads(kept.read_text())["order"] == list(app.cards())


def test_a_hand_order_of_cards_no_longer_held_keeps_what_it_can(tmp_path: Path) -> None:
    """A file that names cards the hand no longer holds (another computer played on): the
    cards still held keep their order, the others follow, and no ★ is guessed."""
    kept = tmp_path / "hand-order.json"
    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
    d.run_others()
    held = list(render.hand_cards(d.view(), d.seat))
    stale = [held[3], held[0], 999, held[5]]
    kept.write_text(json.dumps({"hand": d.hand_no, "seat": d.seat, "order": stale,
                                "fresh": held[0]}))
    with table_app(d, hand_file=kept) as app:
        rest = [c for c in held if c not in stale]
        assert list(app.cards()) == [held[3], held[0], held[5], *rest]
        assert app.fresh is None


def _screen_hand(screen: str) -> list[tuple[int, bool, str]]:
    """(number, marked ★, name) for each card of "Your hand" on a captured screen."""
    lines = screen.splitlines()
    top = next((i for i, line in enumerate(lines) if line.startswith("Your hand")), None)
    out: list[tuple[int, bool, str]] = []
    if top is None:
        return out
    for line in lines[top + 1:]:
        if line.startswith("─"):
            break
        line = line.split("  target:")[0]
        for m in re.finditer(r"(?:^|\s)(\d)([ ★])(.+?)(?=\s+\d[ ★]|\s*$)", line):
            out.append((int(m.group(1)), m.group(2) == "★", m.group(3).rstrip("+ ").strip()))
    return out


SAFETIES = ("Right of Way", "Extra Tank", "Puncture-Proof", "Driving Ace")


@pytest.mark.slow
def test_resume_in_a_terminal_brings_the_hand_back_numbered_as_it_was(tmp_path: Path) -> None:
    """End to end at 80×24 (tmux): discard, draw (★ on the card drawn), leave with q y,
    `millebornes resume`: the same cards under the same numbers, ★ on the same one."""
    from test_cli_tmux import TMUX, _tmux, _wait, play_then_resume
    if TMUX is None:
        pytest.skip("tmux is not installed")
    session = f"mb-nc9-{os.getpid()}"
    play_then_resume(tmp_path, session, "--name", "Ana")
    try:
        before: list[tuple[int, bool, str]] = []
        discarded = False
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            screen = _tmux("capture-pane", "-p", "-t", session).stdout
            assert "Traceback" not in screen and "EXITED" not in screen, screen
            status = " ".join(" ".join(screen.splitlines()[-3:]).split())
            cards = _screen_hand(screen)
            if "c for a coup fourré" in status:
                _tmux("send-keys", "-t", session, "n")
            elif "is a safety" in status and "?" in status:
                _tmux("send-keys", "-t", session, "n")
            elif "extend no" in status:
                _tmux("send-keys", "-t", session, "n")
            elif "Your turn: draw" in status:
                _tmux("send-keys", "-t", session, "Space")
            elif ("Your turn: play" in status or "Nothing to play" in status) and cards:
                if discarded and any(star for _n, star, _name in cards):
                    before = cards
                    break
                throw = next(n for n, _star, name in cards if name not in SAFETIES)
                _tmux("send-keys", "-t", session, str(throw), "d")
                discarded = True
                time.sleep(1.0)
            time.sleep(0.3)
        assert before, screen
        _tmux("send-keys", "-t", session, "q")
        _wait(session, "Leave the game?")
        _tmux("send-keys", "-t", session, "y")
        screen = _wait(session, "EXITED", limit=20)
        assert "EXITED 0" in screen, screen
        after: list[tuple[int, bool, str]] = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not after:
            screen = _tmux("capture-pane", "-p", "-t", session).stdout
            assert "Traceback" not in screen and "RESUMED" not in screen, screen
            status = " ".join(" ".join(screen.splitlines()[-3:]).split())
            if "Your turn: play" in status or "Nothing to play" in status:
                after = _screen_hand(screen)
            time.sleep(0.3)
        assert after == before, (before, after, screen)
        _tmux("send-keys", "-t", session, "q")
        _wait(session, "Leave the game?")
        _tmux("send-keys", "-t", session, "y")
        screen = _wait(session, "RESUMED")
        assert "RESUMED 0" in screen, screen
    finally:
        _tmux("kill-session", "-t", session)


# ----- 2. a Stop on a player who has not started ----------------------------------------

@pytest.mark.parametrize("lang, preset_name, teams, said", [
    ("en", "classic", None, "Bo has not played a Roll yet (Speed Limit is the only attack "
                            "on a player who has not started) [R6]"),
    ("en", "modern", None, "Bo has not played a Roll yet"),
    ("en", "classic", "2x2", "Bo & Di have not played a Roll yet (Speed Limit is the only "
                             "attack on a team that has not started)"),
    ("fr", "classic", None, "Bo n'a pas encore joué de Feu vert (Limite de vitesse est la "
                            "seule attaque sur un joueur qui n'est pas parti) [R6]"),
    ("sv", "classic", None, "Bo har inte spelat"),
])
def test_a_stop_on_a_player_who_has_not_started_says_why(lang: str, preset_name: str,
                                                          teams: str | None, said: str) -> None:
    """`play 3 on Bo` with a Stop before Bo's first Roll said "a battle hazard needs the
    target zone to be moving (…)": the rule, not why Bo was not moving. The engine's
    reason for a zone with no Roll yet is its own, and the console names the side."""
    from test_cli_commands import HAND, make, pos

    from cli.commands import parse

    ctx = make(HAND, n_players=4 if teams else 3, preset_name=preset_name, teams=teams)
    stop = pos(ctx, Kind.STOP)
    with i18n.using(lang):
        for line in (f"play {stop} on Bo", f"play {stop}", f"why {stop} on bo"):
            out = parse(line, ctx)
            text = " ".join(out.text.split())
            if line == f"play {stop}" and not teams:
                # aimed at no one with two opponents: the reason covers Cy too, the rule
                # id after both (newcomer pass 25)
                assert said.removesuffix(" [R6]") in text and "Cy" in text, (line, text)
                continue
            assert said in text, (line, text)
            assert "moving" not in text and "roule" not in text, text
    assert out.kind == "message"


def test_the_engine_names_the_missing_roll_and_keeps_the_moving_rule_for_the_rest() -> None:
    """The reason is the engine's (one place for the rule); a started zone that has only
    a remedy on top (classic: it needs a Roll again) keeps "needs … to be moving"."""
    from test_cli_commands import HAND, cards_of, make

    from engine import explain

    ctx = make(HAND)
    stop = next(c for c in HAND if kind(c) is Kind.STOP)
    assert explain(ctx.view, 0, stop, 1) == (
        "R6: that zone has not started: no Roll has been played on it yet, and Speed Limit "
        "is the only attack on a zone that has not started")
    gas = cards_of(Kind.GASOLINE, 1, skip=3)[0]
    zones = list(ctx.view.zones)
    zones[1] = zones[1]._replace(battle=(gas,), started=True)
    view = ctx.view._replace(zones=tuple(zones))
    assert explain(view, 0, stop, 1) == (
        "R6: a battle hazard needs the target zone to be moving (Speed Limit is the only "
        "attack on a zone that is not)")


def test_the_full_screen_p_on_a_stop_before_the_first_roll_says_why() -> None:
    """At two players `p` on a Stop plays it on the one opponent: refused, with why."""
    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=16)
    d.run_others()
    with table_app(d) as app:
        view = d.view()
        assert view.phase == PLAY and d.my_move() and not view.zones[1].started
        stops = [c for c in app.cards() if kind(c) is Kind.STOP]
        assert stops, "seed 16 deals a Stop to the human before Bo's first Roll"
        app.pick(app.cards().index(stops[0]))
        app.play_selected()
        assert "Bo has not played a Roll yet" in " ".join(app.message.split()), app.message


# ----- 3. the help keeps the teams line -------------------------------------------------

class _NetworkTable(LocalDriver):
    """A table as the help sees a network one: saved, with the pause keys (b, e)."""

    saves_game = True

    def silent(self) -> None:
        return None


@pytest.mark.parametrize("lang", LANGS)
def test_the_help_keeps_the_teams_line_at_80_by_24(lang: str) -> None:
    """French help (h) at six players in three teams of two (3x2) left out the teams line
    ("You & Cy 7/6" explained nowhere) for lack of room; in every language, both six-seat
    layouts, network or not, colour or not, it stays, with the rules and the closing line,
    and nothing is cut with "…"."""
    from cli_helpers import SizedOutput

    from cli.args import table_names

    with i18n.using(lang):
        teams_word = i18n._("Teams: %(teams)s. A team's cards, as 7/6, are each partner's "
                            "hand in that order.").split("%(teams)s")[0].strip()
        rules_word = i18n._("Rules: %(rules)s").split("%(rules)s")[0].strip()
    for teams in ("3x2", "2x3"):
        for network in (True, False):
            for rules in ("classic", "modern"):
                for color in (True, False):
                    for me in (None, "Ana"):
                        kind_ = _NetworkTable if network else LocalDriver
                        d = kind_(preset(rules), Seating.parse(6, teams), table_names(me, 6),
                                  seed=1)
                        with i18n.using(lang), create_pipe_input() as inp:
                            app = TableApp(d, input=inp, output=SizedOutput(80, 24),
                                           lang=lang, color=color)
                            app.show_help = True
                            text = "".join(t for _s, t in app._help_fragments())
                        lines = text.split("\n")
                        where = (lang, teams, network, rules, color, me)
                        assert len(lines) <= 24 - 3, where
                        assert all(i18n.cells(line) <= 78 for line in lines), where
                        assert "…" not in lines, (where, text)
                        assert any(line.startswith(teams_word) for line in lines), (where, text)
                        assert any(line.startswith(rules_word) for line in lines), (where, text)


# ----- 4. the summary after leaving follows the terminal's width ------------------------

class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("tty, columns, expected", [
    (False, 132, 80), (True, 132, 132), (True, 100, 100), (True, 80, 80), (True, 5, 20),
    (True, 1000, 200),
])
def test_the_width_of_a_text_said_on_a_stream(monkeypatch: pytest.MonkeyPatch, tty: bool,
                                              columns: int, expected: int) -> None:
    """A terminal's own width, within 20 and 200; 80 on a stream that is no terminal."""
    monkeypatch.setattr(shutil, "get_terminal_size",
                        lambda fallback=(80, 24): os.terminal_size((columns, 24)))
    monkeypatch.setattr(os, "get_terminal_size",
                        lambda fd=1: os.terminal_size((columns, 24)))
    monkeypatch.setattr(sys, "stdout", _Stream(tty))
    assert i18n.terminal_width() == expected
    assert i18n.terminal_width(sys.stdout) == expected
    other = _Stream(tty)
    other.fileno = lambda: 1  # type: ignore[method-assign]
    assert i18n.terminal_width(other) == expected


def test_the_width_of_a_stream_that_cannot_say() -> None:
    class Broken(io.StringIO):
        def isatty(self) -> bool:
            raise ValueError("I/O operation on closed file")
    assert i18n.terminal_width(Broken()) == 80


def _in_a_terminal(argv: list[str], columns: int, answers: list[tuple[str, str]],
                   timeout: float = 90.0, before: str = "") -> str:
    """``millebornes ARGV`` with a terminal ``columns`` wide as its stdin, stdout and
    stderr; each (wait for, type) in ``answers`` in turn; all it wrote, once it ended.
    ``before``: Python run in that process first."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = dict(os.environ, PYTHONPATH=str(ROOT), MILLEBORNES_DELAY="0", TERM="dumb")
    for name in ("COLUMNS", "LINES"):
        env.pop(name, None)
    run = ["-m", "cli", *argv] if not before else [
        "-c", f"{before}\nfrom cli.main import console_script\nimport sys\n"
              f"sys.argv[1:] = {argv!r}\nconsole_script()"]
    proc = subprocess.Popen([sys.executable, *run], stdin=slave, stdout=slave,
                            stderr=slave, cwd=ROOT, env=env, start_new_session=True)
    os.close(slave)
    out = b""
    todo = list(answers)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _w, _x = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:          # the child closed the terminal: it has ended
                    break
                if not chunk:
                    break
                out += chunk
            text = out.decode("utf-8", "replace")
            while todo and todo[0][0] in text:
                os.write(master, todo.pop(0)[1].encode())
                out += b"\x00"           # what was answered is not matched again
            if proc.poll() is not None and not ready:
                break
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return out.replace(b"\x00", b"").decode("utf-8", "replace").replace("\r\n", "\n")


def test_the_summary_after_leaving_follows_a_wide_terminal() -> None:
    """Leaving in a terminal 132 columns wide: the resume line was wrapped at 80 all the
    same (the command cut in two); it takes the terminal's width now."""
    # a directory of a known length (60: the resume line is 109 columns): tmp_path's
    # length depends on the runner (pytest-xdist adds "popen-gw0/"), and at 136 columns
    # the line is rightly cut
    with tempfile.TemporaryDirectory(prefix="mb-") as short_dir:
        data = os.path.join(short_dir, "saved-games")
        data += "-" * (60 - len(data))
        assert len(data) == 60
        text = _in_a_terminal(["play", "--plain", "--data-dir", data], 132,
                              [("> ", "quit\n"), ("Leave the game?", "y\n")])
    assert "Traceback" not in text, text
    summary = text[text.index("You left; the game is saved."):].strip().splitlines()
    assert len(summary) >= 2, summary
    assert all(i18n.cells(line) <= 132 for line in summary), summary
    assert any(i18n.cells(line) > 80 for line in summary), summary
    # each command whole on a line of the terminal's 132 columns (at 80 it was cut, and
    # cut at a space it pastes as two commands: words.command_lines)
    assert summary[0] == "You left; the game is saved. Come back to it with:", summary
    short = summary[1].split()[2]
    assert summary[1:] == [f"  millebornes resume {short} --data-dir {data} --plain",
                           "Check it so far with:",
                           f"  millebornes verify {short} --data-dir {data}"], summary


def test_the_summary_after_leaving_stays_at_80_in_a_pipe(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a terminal (a pipe, a script, a test): 80 columns, whatever COLUMNS says."""
    from test_cli_games import quit_at_first_move

    monkeypatch.setenv("COLUMNS", "132")
    data = str(tmp_path / "a-rather-long-folder-name-for-the-saved-games")
    r = quit_at_first_move("play", "--plain", "--data-dir", data)
    assert r.returncode == 0, r.stdout + r.stderr
    summary = r.stdout[r.stdout.index("You left; the game is saved."):].strip().splitlines()
    assert len(summary) >= 3 and all(i18n.cells(line) <= 80 for line in summary), summary


#: Python that leaves the lobby's browser seeing no table.
_NO_TABLE_ANNOUNCED = """
import cli.lobby

class _NothingAnnounced:
    ignored = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

def _browse(seen, **options):
    return _NothingAnnounced()

cli.lobby.browse_tables = _browse
"""


def test_the_lobby_says_its_sentences_within_a_narrow_terminal() -> None:
    """The lobby's, the host's and the joiner's sentences were wrapped at 80 columns
    whatever the terminal: in one 50 wide, the terminal cut them mid-word.

    The lobby sees no table here whatever this network announces (another test run's
    table on loopback listed it, and "(no table seen yet" was never said)."""
    text = _in_a_terminal(["lobby", "--seconds", "2"], 50, [], before=_NO_TABLE_ANNOUNCED)
    assert "Traceback" not in text, text
    said = text[text.index("(no table seen yet"):].strip().splitlines()
    assert len(said) >= 3 and all(i18n.cells(line) <= 50 for line in said), said
    assert said == i18n.wrap(" ".join(" ".join(said).split()), 50), said


# ----- 5. long card names in the hand row -----------------------------------------------

def _hand_of(*kinds: Kind) -> tuple[object, tuple[int, ...]]:
    from engine import KIND_OF, new_hand, view_of

    rules, seating = preset("classic"), Seating.solo(2)
    hand = tuple(sorted(next(i for i, k in enumerate(KIND_OF) if k is want) for want in kinds))
    state = new_hand(rules, seating, list(rules.deck(seating)), 0)
    state = state._replace(hands=(hand,) + state.hands[1:])
    return view_of(state, 0), hand


def test_the_french_hand_row_says_right_of_way_whole() -> None:
    """The French hand row at 80 columns said "Véhicule prior…": the short name players
    use stands there instead ("Prioritaire"), and "Citerne" for "Citerne d'essence"."""
    view, _hand = _hand_of(Kind.RIGHT_OF_WAY, Kind.EXTRA_TANK, Kind.SPEED_LIMIT, Kind.ROLL)
    row = " ".join(render.plain(render.hand_lines(view, 0, [], "fr", width=80)))
    assert "…" not in row, row
    assert "Prioritaire" in row and "Citerne" in row and "Limite" in row, row
    assert "prior…" not in row


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("color", [True, False])
def test_no_card_name_is_cut_mid_word_where_a_name_fits(lang: str, color: bool) -> None:
    """Every card in the hand row at 80 columns, colour or not, in every language: its
    printed name, or its short name (whole words, at most 13 cells), never cut with "…"
    unless the language has no short name that fits (English "Puncture-Proof" in the
    13 cells of a row without colours)."""
    kinds = list(Kind)
    with i18n.using(lang):
        for k in kinds:
            short = i18n.short_kind_name(k)
            assert i18n.cells(short) <= 13 or i18n.cells(i18n.kind_name(k)) <= 15, (lang, k)
            if lang != "en":
                assert short != NAMES_EN[k] or short == i18n.kind_name(k), (lang, k, short)
        for at in range(0, len(kinds), 7):          # a hand holds seven cards at most
            group = kinds[at:at + 7]
            view, _hand = _hand_of(*group)
            lines = render.plain(render.hand_lines(view, 0, [], lang, color=color, width=80))
            assert all(i18n.cells(line) <= 80 for line in lines), lines
            row = " ".join(lines)
            may_cut = sum(1 for k in group
                          if i18n.cells(i18n.short_kind_name(k)) > (15 if color else 13))
            assert row.count("…") <= may_cut, (lang, row)
