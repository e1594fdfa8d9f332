"""The fourteenth first-time-player pass: what a newcomer typed, read or saw and wondered."""

from __future__ import annotations

import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cli_helpers import PeerStub

from cli.main import main

# ----- 1. a choice mistyped: the valid ones, and the one it most likely meant --------------


@pytest.mark.parametrize("argv, said, meant", [
    (["play", "--rules", "modrn"], "'classic', 'modern'", "'modern'"),
    (["play", "--bots", "serch"], "easy, normal, hard, expert", "'search'"),
    (["play", "--bots", "normal,exprt", "--players", "3"], "easy, normal", "'expert'"),
    (["play", "--lang", "frr"], "en, fr, sv", "'fr'"),
    (["play", "--lang", "francais"], "en, fr, sv", "'fr'"),
    (["--bidi", "termnal", "play"], "'shape', 'terminal'", "'terminal'"),
    (["lobby", "--mdns", "loopbak"], "'all', 'default', 'loopback'", "'loopback'"),
    (["bench", "deks"], "'engine', 'deck'", "'deck'"),
    (["simulate", "--bots", "heuristik,random"], "choose from", "'heuristic'"),
    (["play", "--option", "fastplay=yes"], "known: attacker_started", "'fast_play'"),
])
def test_a_mistyped_choice_says_the_choices_and_the_one_it_likely_meant(
        argv: list[str], said: str, meant: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`millebornes play --rules modrn` listed 'classic', 'modern' and left the newcomer to
    spot the difference; every option that takes a choice or a name says the choices and,
    for a typo close to one, the one it most likely meant."""
    assert main(["--lang", "en", *argv] if argv[0] != "--bidi" else argv) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert said in err, err
    assert f"did you mean {meant}?" in err, err
    assert "Traceback" not in err


def test_nothing_close_is_guessed(capsys: pytest.CaptureFixture[str]) -> None:
    """No guess for a word close to no choice: the list alone."""
    assert main(["--lang", "en", "play", "--rules", "xyzzy"]) == 2
    err = capsys.readouterr().err
    assert "'classic', 'modern'" in err and "did you mean" not in err, err


@pytest.mark.parametrize("spec, meant", [("search:mss=100", "ms"), ("search:playout=9", "playouts"),
                                         ("heuristic:mtch=1", "match")])
def test_a_mistyped_bot_option_says_the_one_it_likely_meant(
        spec: str, meant: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`--bots search:mss=100` listed nine options; the typo's is named."""
    assert main(["--lang", "en", "play", "--bots", spec]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"did you mean {meant}?" in err, err


def test_a_mistyped_game_id_says_the_game_it_likely_meant(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`millebornes resume a3f9c1` (one letter wrong) said "no saved game has the id"."""
    from cli import games

    saved = [SimpleNamespace(path=Path("/x/a3f8c1d2e5f60718"), short_id="a3f8c1d2"),
             SimpleNamespace(path=Path("/x/77aa00bb11cc22dd"), short_id="77aa00bb")]
    monkeypatch.setattr(games, "saved_games", lambda base: saved)
    with pytest.raises(ValueError) as err:
        games.find_game("a3f9c1d2", None)
    assert "did you mean 'a3f8c1d2'?" in str(err.value), err.value


@pytest.mark.parametrize("lang", ["af", "fr", "sv", "ug", "vi"])
def test_did_you_mean_is_translated(lang: str) -> None:
    from cli import i18n

    with i18n.using(lang):
        said = i18n.did_you_mean("modrn", ["classic", "modern"])
    assert "'modern'" in said and "did you mean" not in said, said


# ----- 2. a player who left is not also "slow" ---------------------------------------------

def _paused_on_a_slow_seat(state: str) -> object:
    """Ann's console at a table paused on Bo, past his budget of automatic steps (76 s of
    60), whose computer is now ``state``."""
    from cli.netdriver import NetDriver
    from engine import Seating, new_hand, preset, view_of

    rules, seating = preset("classic"), Seating.solo(2)
    view = view_of(new_hand(rules, seating, list(rules.deck(seating)), 0), 0)
    peer = PeerStub(
        me=0, names=["Ann", "Bo"], cfg=SimpleNamespace(rules=rules, seating=seating, n=2),
        hand_no=0, view=lambda: view, takeovers=[], finished=False,
        stopped="unresponsive", paused=True, stop_why={"slow": True, "seat": 1},
        agreed_end=None, drain_events=lambda: [], peer_state=lambda seat: state,
        quit_for_now=lambda seat: False, peers=lambda: [], silent_seat=lambda: 1,
        auto_time=lambda seat: (76.0, 60.0), agreement=lambda: {},
        agreements_open=lambda: frozenset({"side.takeover", "side.end"}))
    return NetDriver(peer)                                   # type: ignore[arg-type]


@pytest.mark.parametrize("plain", [True, False])
def test_a_pause_on_a_slow_seat_whose_player_then_left_says_they_left(plain: bool) -> None:
    """The table paused on Bo as slow (his steps past their budget); then his computer
    went (transport gone). The console went on saying "Bo is slow: … Wait", as though
    he were there; he left: the words of a seat whose player left, and the same choices."""
    from cli import i18n

    with i18n.using("en"):
        there = _paused_on_a_slow_seat("connected").silent_words(plain=plain) or ""  # type: ignore[attr-defined]
        gone = _paused_on_a_slow_seat("gone").silent_words(plain=plain) or ""  # type: ignore[attr-defined]
    assert there.startswith("Bo is slow: 76 s of automatic steps"), there
    assert gone.startswith("Bo left; the game is saved."), gone
    assert "is slow" not in gone, gone
    assert ("type bot" if plain else "press b") in gone, gone


# ----- 3. Ctrl-C in the line mode asks, as the full screen does -----------------------------

def _read_until(proc: subprocess.Popen[bytes], seen: bytearray, needle: bytes,
                limit: float = 60.0) -> None:
    import os
    import select
    import time

    assert proc.stdout is not None
    start = len(seen)                   # said from now on
    deadline = time.monotonic() + limit
    while needle not in seen[start:] and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.5)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
    assert needle in seen[start:], bytes(seen).decode(errors="replace")


def test_ctrl_c_in_the_line_mode_asks_and_n_stays(tmp_path: Path) -> None:
    """`play --plain`: a Ctrl-C pressed by reflex left the table at once (the full screen
    asks first). It asks "Leave the game? … y leave · n stay"; n stays at the table, the
    game goes on; a Ctrl-C at the question leaves, with the game's resume line."""
    import os
    import signal
    import sys

    from cli_helpers import ctrl_c_as_a_terminal_gives_it, unfold

    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root), MILLEBORNES_DELAY="0", LANGUAGE="en")
    proc = subprocess.Popen([sys.executable, "-m", "cli", "--lang", "en", "play", "--plain",
                             "--seed", "4", "--data-dir", str(tmp_path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, cwd=root, env=env,
                            preexec_fn=ctrl_c_as_a_terminal_gives_it)
    assert proc.stdin is not None
    seen = bytearray()
    try:
        _read_until(proc, seen, b"> ")
        proc.send_signal(signal.SIGINT)
        _read_until(proc, seen, b"y leave")
        assert proc.poll() is None, seen
        proc.stdin.write(b"n\n")
        proc.stdin.flush()
        _read_until(proc, seen, b"You stay at the table.")
        mark = len(seen)
        proc.stdin.write(b"look\n")                 # the game goes on: its board again
        proc.stdin.flush()
        _read_until(proc, seen, b"Your hand")
        assert proc.poll() is None
        assert b"y leave" not in seen[mark:]
        proc.send_signal(signal.SIGINT)             # asks again
        _read_until(proc, seen, b"y leave", 30)
        assert seen.count(b"y leave") == 2, seen
        proc.send_signal(signal.SIGINT)             # Ctrl-C at the question: leaves
        out, _err = proc.communicate(timeout=30)
        seen += out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    said = unfold(bytes(seen).decode())
    assert proc.returncode == 130, said
    assert "Traceback" not in said and "interrupted" not in said, said
    assert "You left; the game is saved. Come back to it with: millebornes resume " in said


# ----- 5. Uyghur: the brackets of a usage line stay with it --------------------------------

def test_a_uyghur_usage_line_keeps_its_closing_brackets(capsys: pytest.CaptureFixture[str]) -> None:
    """`millebornes --lang ug play --help`: the usage line began "]}millebornes play …
    [--bidi {shape,terminal" (its last "}]" went to the sentence's direction, mirrored,
    at the line's other end)."""
    from cli import i18n
    from cli.i18n.rtl import visual

    with i18n.using("en"), pytest.raises(SystemExit):   # the language set back after
        main(["--lang", "ug", "play", "--help"])
    first = capsys.readouterr().out.split("\n")[0]
    assert first.startswith("millebornes play [-h]"), first
    assert "[--bidi {shape,terminal}]" in first, first
    assert "]}" not in first and "{[" not in first, first
    # a bracket of the sentence inside a run of Latin words: two runs, the bracket between
    said = visual("ئىناۋەتسىز تاللاش: 'x' ('classic', 'modern' دىن تاللاڭ)")
    assert "'x' ('classic'" not in said and "'classic', 'modern'" in said, said
    # a parenthesis opened by the sentence before a command is the sentence's, drawn
    # mirrored as right-to-left text is (python-bidi from 0.5 on does not: ")word(")
    assert visual("(`millebornes play --help` ئىشلىتىلىشىنى)").endswith(
        "`millebornes play --help`)"), visual("(`millebornes play --help` ئىشلىتىلىشىنى)")
    word = visual("(ئىزاھ)")
    assert word[0] == "(" and word[-1] == ")", word


# ----- 4. the help and the question at a tiny terminal ----------------------------------------

def _tiny_app(cols: int, rows: int, lang: str = "en") -> object:
    from cli_helpers import SizedOutput

    from cli.app import TableApp
    from cli.driver import LocalDriver
    from engine import Seating, preset

    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
    return TableApp(d, output=SizedOutput(cols, rows), lang=lang)


@pytest.mark.parametrize("cols, rows", [(20, 5), (12, 3), (30, 10), (40, 12), (60, 20)])
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_help_at_a_tiny_terminal_fits_and_says_how_to_close_it(
        cols: int, rows: int, lang: str) -> None:
    """At 20×5 the help's frame took four of the five rows: two lines were left inside it,
    the first line of the help and of "Lines 1 to 1 of 63", its closing line (Esc closes
    this help) cut off, the screen behind showing on the fifth row. Below its frame's
    room, the help fills the screen without a frame; every line it has fits, and the way
    out (Esc) always shows."""
    from cli import i18n
    from cli.i18n import cells

    with i18n.using(lang):
        app: Any = _tiny_app(cols, rows, lang)
        app.show_help = True
        lines = "".join(t for _s, t, *_r in app._help_fragments()).split("\n")
        framed = app._help_framed() if hasattr(app, "_help_framed") else True
        inner_rows = app._help_frame_height() - 2 if framed else rows
        inner_cols = app._help_frame_width() - 2 if framed else cols
    assert len(lines) <= inner_rows, (inner_rows, lines)
    assert all(cells(line) <= inner_cols for line in lines), lines
    if rows >= 5:
        assert "F1" in " ".join(lines), lines      # "Esc, h or F1 closes this help"
    else:                                          # 3 rows: as much of it as fits
        assert lines[-2].startswith("r"), lines
    assert framed == (cols >= 30 and rows >= 10)


def test_the_question_before_leaving_at_a_tiny_terminal_shows_its_keys() -> None:
    """q at 20×5 (the screen too small for the board): the question under the title
    "Mille Bornes" lost its last line, "y leave · n stay"."""
    from cli import i18n

    with i18n.using("en"):
        app: Any = _tiny_app(20, 5)
        app.confirm_quit = True
        lines = "".join(t for _s, t, *_r in app._too_small_fragments()).split("\n")
    assert len(lines) <= 5, lines
    assert lines[0].startswith("Leave the game?"), lines
    assert "n stay" in lines[-1], lines


# ----- 6. a slow plug-in bot in-process: who thinks, for how long at most --------------------
# The two tests here said "Your keys are answered once it has moved" while the bot held
# the screen's thread; it now thinks in a process of its own and the keys are answered
# meanwhile: tests/test_newcomer_fifteenth.py (the thinking line, help, q, the line mode).


def test_a_mistyped_table_name_says_the_tables_there_and_the_one_it_likely_meant(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`millebornes join --table "Anns tabel"` (Ann's table is "Ann's table") said "no
    table found on the LAN after 10 s: is a table hosted, is multicast allowed here?",
    while two tables were there."""
    import contextlib

    from p2p.net import discovery

    seen = [SimpleNamespace(name="Ann's table", service_name="a", fingerprint="AAAAA"),
            SimpleNamespace(name="Bob", service_name="b", fingerprint="BBBBB")]

    class Browser:
        ignored = 0

        def wait_for(self, predicate: Any, timeout: float) -> Any:
            return seen if predicate(seen) else None

    @contextlib.contextmanager
    def browse_tables(**_kw: Any) -> Any:
        yield Browser()

    monkeypatch.setattr(discovery, "browse_tables", browse_tables)
    assert main(["--lang", "en", "join", "--table", "Anns tabel", "--data-dir",
                 str(tmp_path), "--identity", str(tmp_path / "id.key")]) != 0
    err = " ".join(capsys.readouterr().err.split())
    assert "no table called 'Anns tabel' on the LAN after 10 s; the tables there: " \
        "\"Ann's table\", 'Bob'; did you mean \"Ann's table\"?" in err, err


def test_a_uyghur_board_keeps_the_spaces_that_lay_its_lines_out() -> None:
    """The Uyghur hand's title read glued to its note, "قولىڭىز(…": each fragment of a
    line is ordered right to left on its own, and the two spaces laid before the note went
    to its far end. The spaces at a fragment's edges stay between the fragments they
    separate (the eighteenth pass orders the line as a whole: the title at the right end,
    read first, the note to its left)."""
    from cli import i18n
    from cli.app import _join

    with i18n.using("ug"):
        line = [("class:title", i18n._("Your hand")),
                ("class:dim", "  " + i18n._("(+ playable now)"))]
        title = "".join(t for _s, t, *_r in _join([line]))     # type: ignore[list-item]
        word = i18n.display(i18n._("Your hand"))
    assert title.endswith(")  " + word), title
    assert title.startswith("("), title


# ----- 7. the first game ------------------------------------------------------------------------

def test_the_line_mode_never_says_a_turn_with_no_card_marked_playable_by_a_race() -> None:
    """`play --plain`, first turn, now and then: "Your hand: … 5. Roll (remedy) …  Your
    turn: play or discard a card" with no card marked playable, though Roll was (a
    network table answered the turn before its moves: my_move() and legal() were read a
    moment apart, as the draw landed). `look` then showed "Roll (remedy, playable)". A
    turn with no legal move yet is read again."""
    import io

    from cli import i18n
    from cli.driver import LocalDriver
    from cli.plain import PlainSession
    from engine import Seating, preset
    from engine.state import PLAY

    class Racy(LocalDriver):
        reads = 0

        def legal(self) -> Any:
            if self.my_move() and self.state.phase == PLAY:
                self.reads += 1
                if self.reads == 1:
                    return []
            return super().legal()

    seed = next(s for s in range(50) if LocalDriver(
        preset("classic"), Seating.solo(2), ["You", "Bo"], seed=s).state.seat == 0)
    d = Racy(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=seed)
    out = io.StringIO()
    with i18n.using("en"):
        PlainSession(d, out=out, inp=io.StringIO("")).run()
    said = out.getvalue()
    first = said.split("Your hand:", 1)[1].split("Your turn", 1)[0]
    assert "playable" in first or "No card can be played" in said, said


def test_the_full_screen_says_how_to_draw_with_its_own_key() -> None:
    """The full screen, at one's draw, `2 p` (a card picked and played): "Draw first: type
    draw." — the line mode's way; the full screen draws with space (its status line says
    "space, or type draw"). The line mode keeps its words."""
    from test_cli_commands import HAND, make

    from cli import i18n
    from cli.commands import parse

    ctx = make(HAND[:6], phase="draw")
    with i18n.using("en"):
        assert parse("play 1", ctx).text == "draw first: type draw"
        assert parse("play 1", ctx._replace(prompt_below=True)).text == \
            "draw first: press space (or type draw)"
