"""An eleventh first-time player: a watcher's full screen behind a fast table moves on by
itself, a table of bots lists no pause keys, a bot's wait says its limit at once, a help
frame of a sensible size on a large terminal, score tables at 40 columns, and the teams
line kept whatever the names."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

import pytest
from cli_helpers import (
    HostedByAnn,
    SizedOutput,
    free_port,
    start_joiner,
    until_said,
    wait_into_first_hand,
)
from prompt_toolkit.input import create_pipe_input

from cli import i18n
from cli.app import TableApp
from cli.driver import LocalDriver
from cli.main import main
from cli.replay import run_plain_replay
from cli.replay_view import ReplayModel
from cli.words import verify_lines
from engine import Seating, preset
from engine.state import PLAY, RESPOND
from p2p.audit import replay_steps

ROOT = Path(__file__).resolve().parent.parent
LANGS = ["en", "fr", "sv", "af", "ug", "vi"]




# ----- 1. a watcher behind the table is not held at each hand's scores ---------------------

def _header_hand(screen: str) -> int | None:
    m = re.search(r"Mille Bornes · \w+ · hand (\d+)", screen)
    return int(m[1]) if m else None


@pytest.mark.slow    # a networked match, a player away, a bot by agreement (~40 s)
def test_a_watcher_behind_the_table_moves_on_by_itself_in_the_full_screen(
        tmp_path: Path) -> None:
    """Ben left; a bot took his seat by agreement and the table played on at the bots'
    pace. Ben's full screen (resume) held each hand's scores until Enter: "Hand 2 over.
    Press Enter for hand 3." stood while the table was hands ahead, and he pressed Enter
    once per hand to catch up (the line mode moves on by itself). It now moves on by
    itself, and says so."""
    from test_cli_tmux import TMUX, _command, _tmux


    if TMUX is None:
        pytest.skip("tmux is not installed")
    hport, jport = free_port(), free_port()
    ann = HostedByAnn(tmp_path, hport, match_target=15000)
    ann_out = ann.out
    jdir, jkey = tmp_path / "j", tmp_path / "j.key"
    ben = start_joiner(hport, jport, jdir, jkey)
    session = f"mb-watch-{os.getpid()}"
    try:
        wait_into_first_hand(jdir)
        ben.kill()
        ben.wait(10)
        until_said(ann_out, "type bot")
        ann.type("bot")
        until_said(ann_out, "Hand 2: the cards are dealt")    # the table goes on
        exports = f"MILLEBORNES_DELAY=0 TERM=xterm-256color XDG_DATA_HOME={shlex.quote(str(tmp_path))}"
        shell = (f"cd {shlex.quote(str(ROOT))} && env {exports} "
                 f"{_command('resume', '--data-dir', str(jdir), '--identity', str(jkey), '--peer', f'127.0.0.1:{hport}')}"
                 "; echo EXITED $?; sleep 60")
        started = _tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", shell)
        if started.returncode != 0:
            pytest.skip(f"tmux cannot start a session: {started.stderr.strip()}")
        seen: list[int] = []
        screens: list[str] = []
        said_behind = False
        end = time.monotonic() + 90
        while time.monotonic() < end:
            screen = _tmux("capture-pane", "-p", "-t", session).stdout
            assert "Traceback" not in screen, screen
            said_behind |= "the table is already on hand" in " ".join(screen.split())
            hand = _header_hand(screen)
            if hand is not None and (not seen or seen[-1] != hand):
                seen.append(hand)
                screens.append(screen)
            if len(seen) >= 3 or "Match over" in screen or "EXITED" in screen:
                break
            time.sleep(0.1)
        # no key was pressed: the screen went from hand to hand by itself
        assert len(seen) >= 3 or "Match over" in screen, (seen, screen)
        assert seen == sorted(seen), seen
        assert said_behind, screens
    finally:
        _tmux("kill-session", "-t", session)
        os.close(ann.keys)
        ann.join(90)


# ----- 2. b and e at a table of bots ---------------------------------------------------------

class _PeopleTable(LocalDriver):
    """A table as the help sees a network one with people at it: saved, a seat can go
    silent (none is)."""

    saves_game = True

    def silent(self) -> None:
        return None


def _help_and_keys(d: object, keys: str) -> tuple[str, list[str]]:
    """The help's text, and what the status line said after each of ``keys`` pressed on
    the board (help closed)."""
    from cli_helpers import run_headless, until

    seen: list[str] = []
    text: list[str] = []

    async def script(app: TableApp, inp: object) -> None:
        d = app.driver
        # the player's turn to play, their draw taken in (its "You drew …" would overwrite
        # a key's answer; a draw made before the screen's first look is said by nobody),
        # or a hazard to answer (the deal is the players' shuffle: Bo may open with a
        # Speed Limit on Ana, and her turn to play never came: the CI run timed out)
        await until(lambda: d.my_move() and d.view().phase in (PLAY, RESPOND)
                    and not d.others_pending(), timeout=60)
        app.sync_hand()
        app.show_help = True
        text.append("".join(t for _s, t in app._help_fragments()))
        app.show_help = False
        for key in keys:
            app.say("")
            inp.send_text(key)                                      # type: ignore[attr-defined]
            # (a draw's "You drew …" may come in between: the answer to the key is awaited)
            try:
                await until(lambda: app.message.startswith(("The key", "Nobody")), timeout=10)
            except AssertionError:
                raise AssertionError((key, app.message)) from None
            seen.append(app.message)
        inp.send_text("\x11")                                      # type: ignore[attr-defined]

    run_headless(lambda inp, _out: TableApp(d, input=inp, output=SizedOutput(80, 24),  # type: ignore[arg-type]
                                            delay=0), script)
    return text[0], seen


def test_a_table_of_bots_lists_no_pause_keys_and_says_what_b_does(tmp_path: Path) -> None:
    """`millebornes play` (every other seat a bot, on this computer) listed "b, e: if a
    player left a network game, b asks for a bot in their seat…" in its help; b and e
    there said "the key b does nothing here". Its help now leaves them out (pressing them
    says they do nothing, as for any key the help does not list)."""
    from cli.play import LoopbackTable

    table = LoopbackTable(preset("classic"), Seating.solo(2), ["Ana", "Bo"], seed=5,
                          base=tmp_path)
    try:
        text, seen = _help_and_keys(table.driver, "be")
    finally:
        table.close()
    flat = " ".join(text.split())
    assert "b asks for a bot" not in flat, flat
    # a networked table all the same: the players' shuffle deals, no seed of this screen's
    assert "Rules: classic rules, trip 700 km, match to 5000 " in flat + " ", flat
    assert seen == ["The key b does nothing here: press h for the keys.",
                    "The key e does nothing here: press h for the keys."], seen


def test_b_at_a_table_with_people_and_nobody_missing_says_so() -> None:
    """At a network table with people, the help lists b and e; pressed with nobody
    missing they said "the key b does nothing here", against the help. They say that
    nobody is missing."""
    d = _PeopleTable(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
    text, seen = _help_and_keys(d, "be")
    assert "b asks for a bot" in " ".join(text.split())
    assert seen == ["Nobody is missing at the table: there is nothing to agree on."] * 2, seen


# ----- 4. the help frame on a large terminal -------------------------------------------------

@contextlib.contextmanager
def _playing_in_tmux(tmp_path: Path, name: str, columns: int, rows: int,
                     *argv: str) -> Iterator[str]:
    """``millebornes ARGV`` in a tmux session of its own, ``columns`` × ``rows``, its data
    under ``tmp_path``; the session's name, and the session gone afterwards (skips
    without tmux)."""
    from test_cli_tmux import TMUX, _command, _tmux

    if TMUX is None:
        pytest.skip("tmux is not installed")
    session = f"{name}-{os.getpid()}"
    exports = f"MILLEBORNES_DELAY=0 TERM=xterm-256color XDG_DATA_HOME={shlex.quote(str(tmp_path))}"
    shell = (f"cd {shlex.quote(str(ROOT))} && env {exports} {_command(*argv)}"
             "; echo EXITED $?; sleep 60")
    started = _tmux("new-session", "-d", "-s", session, "-x", str(columns), "-y", str(rows),
                    shell)
    if started.returncode != 0:
        pytest.skip(f"tmux cannot start a session: {started.stderr.strip()}")
    try:
        yield session
    finally:
        _tmux("kill-session", "-t", session)


def test_the_help_frame_on_a_large_terminal_is_as_wide_and_tall_as_its_lines(
        tmp_path: Path) -> None:
    """At 160×50 the help's frame covered the whole screen, its lines in the left half and
    thirty empty rows under them. It is now as wide as the help's lines (80 at most) and
    as tall as they are, centred."""
    from test_cli_tmux import _tmux, _wait

    with _playing_in_tmux(tmp_path, "mb-help", 160, 50, "play", "--in-process", "--seed", "1",
                          "--name", "Ana") as session:
        screen = _wait(session, "h help")
        assert "h help" in screen, screen
        _tmux("send-keys", "-t", session, "h")
        screen = _wait(session, "closes this help")
        lines = screen.splitlines()
        top = next(i for i, line in enumerate(lines) if "┌" in line)
        bottom = next(i for i, line in enumerate(lines) if "└" in line)
        left, right = lines[top].index("┌"), lines[top].rindex("┐")
        assert right - left + 1 <= 80, screen
        assert left >= 30, screen                       # centred, not at the left edge
        body = lines[top + 1:bottom]
        # no more than a blank line or two under the help's last line
        assert "closes this help" in "".join(body[-2:]), screen


# ----- 5. score tables in replay --plain at 40 columns ---------------------------------------

def _on_a_terminal(columns: int, write: Callable[[TextIO], None]) -> str:
    from test_newcomer_tenth import _on_a_terminal as on_a_terminal
    return on_a_terminal(columns, write)


@pytest.fixture(scope="module")
def three_player_replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[ReplayModel, str]:
    """A verified bot game of three players, as `millebornes replay` reads it."""
    d = tmp_path_factory.mktemp("tx3")
    assert main(["simulate", "--rules", "classic", "--players", "3", "--games", "1",
                 "--fair-deck", "--transcript-dir", str(d)]) == 0
    report, steps = replay_steps(next(d.iterdir()))
    return ReplayModel(steps, report.names), "\n".join(verify_lines(report, None))


def _score_rows(shown: str) -> list[tuple[str, str]]:
    """Each score row's name and the line of its points, as the table reads."""
    lines = shown.split("\n")
    out = []
    inside = False
    for i, line in enumerate(lines):
        if re.match(r"Hand \d+ scores", line):
            inside = True
        elif line.startswith("Match"):
            inside = False
        for name in ("Distance", "hand total", "match total"):
            if inside and line.strip().startswith(name):
                rest = line.strip()[len(name):]
                out.append((name, rest if rest.strip() else lines[i + 1]))
    return out


@pytest.mark.parametrize("columns", [40, 30])
def test_score_tables_in_replay_plain_read_at_40_columns(
        three_player_replay: tuple[ReplayModel, str], columns: int) -> None:
    """`replay --plain` at 40 columns broke each score row between its columns: "hand
    total 1700" with the other sides' points alone on the next lines, under nothing. Each
    row's points now stand together (beside the name, or on the line under it), one per
    side, and the match is said in sentences, as the line mode says it."""
    model, summary = three_player_replay
    shown = _on_a_terminal(columns, lambda out: run_plain_replay(model, summary, out=out))
    lines = shown.split("\n")
    assert all(i18n.cells(line) <= columns for line in lines), \
        [w for w in lines if i18n.cells(w) > columns]
    rows = _score_rows(shown)
    assert rows and any(name == "hand total" for name, _ in rows)
    for name, points in rows:
        assert len(re.findall(r"-?\d+", points)) == 3, (name, points, shown[-3000:])
    assert "one bar per hand" not in shown
    assert re.search(r"\w+: \d+ points \(hands: ", " ".join(shown.split())), shown[-2000:]


# ----- 6. the teams line with very long names -----------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_the_help_keeps_the_teams_line_with_very_long_names(lang: str) -> None:
    """Six players in teams, each name as long as a name may be (twelve letters, some of
    them wide ones): the French help dropped its teams line ("You & Cy 7/6" explained
    nowhere). The line stays, its names shortened when there is no room for them whole;
    the rules and the closing line stay too, and nothing is cut with "…"."""
    with i18n.using(lang):
        teams_word = i18n._("Teams: %(teams)s. A team's cards, as 7/6, are each partner's "
                            "hand in that order.").split("%(teams)s")[0].strip()
        rules_word = i18n._("Rules: %(rules)s").split("%(rules)s")[0].strip()
    for long in ("Wwwwwwwwwww", "界界界界界界界界界界界", "Ŵŵŵŵŵŵŵŵŵŵŵ"):
        names = ["You"] + [long + str(i) for i in range(5)]
        for teams in ("3x2", "2x3"):
            for network in (True, False):
                for color in (True, False):
                    kind = _PeopleTable if network else LocalDriver
                    d = kind(preset("classic"), Seating.parse(6, teams), names, seed=1)
                    with i18n.using(lang), create_pipe_input() as inp:
                        app = TableApp(d, input=inp, output=SizedOutput(80, 24), lang=lang,
                                       color=color)
                        app.show_help = True
                        text = "".join(t for _s, t in app._help_fragments())
                    lines = text.split("\n")
                    where = (lang, long, teams, network, color)
                    assert len(lines) <= 24 - 3, where
                    assert all(i18n.cells(line) <= 78 for line in lines), where
                    assert "…" not in lines, (where, text)
                    assert any(line.startswith(teams_word) for line in lines), (where, text)
                    assert any(line.startswith(rules_word) for line in lines), (where, text)


# ----- 3. a wait on a bot says its limit from the start -------------------------------------

class _Out(io.StringIO):
    """A line mode's output read while it is written (by another thread)."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def write(self, s: str) -> int:
        with self.lock:
            return super().write(s)

    def text(self) -> str:
        with self.lock:
            return self.getvalue()


def _plain_auto_until(table: object, stop: Callable[[str], bool]) -> str:
    """`play --plain --auto` at ``table`` until ``stop(what it said)``; what it said."""
    from cli.plain import PlainSession

    out = _Out()
    session = PlainSession(table.driver, auto=True, out=out,  # type: ignore[attr-defined]
                           inp=io.StringIO(""))
    done = threading.Event()

    def run() -> None:
        try:
            session.run()
        except Exception:          # the table closed under it: the test has seen enough
            pass
        finally:
            done.set()

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    try:
        end = time.monotonic() + 90
        while time.monotonic() < end and not done.is_set() and not stop(out.text()):
            time.sleep(0.05)
        return out.text()
    finally:
        table.close()                                          # type: ignore[attr-defined]
        worker.join(10)


def _bot_waits(text: str) -> list[str]:
    return [line for line in text.split("\n")
            if line.startswith(("* Bo's turn", "* Bo is drawing", "* Bo (a bot)",
                                "* Bo starts the hand"))]


@pytest.mark.slow
def test_the_line_modes_wait_on_a_bot_says_its_limit_from_the_start(tmp_path: Path) -> None:
    """`play --plain` against a bot that thinks: "* Bo is drawing." (no limit said), and
    three seconds later "Bo (a bot) is thinking (up to 30 s)." A wait read as endless,
    then bounded. The turn now says the bot's limit as it begins."""
    from cli.play import LoopbackTable

    table = LoopbackTable(preset("classic"), Seating.solo(2), ["Ana", "Bo"], seed=5,
                          base=tmp_path, bot_specs=["search:ms=1500"])
    text = _plain_auto_until(table, lambda said: bool(_bot_waits(said)))
    waits = _bot_waits(text)
    assert waits, text[-3000:]
    assert "(up to 30 s)" in waits[0], (waits, text[-3000:])


@pytest.mark.slow
def test_the_line_mode_says_the_end_of_a_hand_once_and_no_bot_reads_scores(
        tmp_path: Path) -> None:
    """Between two hands the line mode said "* The hand is over." after "Hand 1 over: you
    completed the trip." (a turn line for a hand with no turn left), and a bot that starts
    the next hand "may still be reading the last hand's scores"."""
    from cli.play import LoopbackTable

    table = LoopbackTable(preset("classic"), Seating.solo(2), ["Ana", "Bo"], seed=5,
                          base=tmp_path)
    text = _plain_auto_until(table, lambda said: "Hand 2: the cards are dealt" in said)
    assert "Hand 2: the cards are dealt" in text, text[-3000:]
    assert "* The hand is over." not in text, text
    assert "reading the last hand's scores" not in text, text


# ----- found while playing: verify at a narrow terminal --------------------------------------

def test_verify_says_its_report_within_a_narrow_terminal(tmp_path: Path) -> None:
    """`millebornes verify` in a terminal 60 wide: its report was wrapped at 80 whatever
    the terminal, and the terminal cut each line mid-word ("every si" / "gnature"). It is
    wrapped at the terminal's width, at spaces; in a pipe, at 80 as before."""
    from test_newcomer_ninth import _in_a_terminal

    d = tmp_path / "tx"
    assert main(["simulate", "--rules", "classic", "--players", "3", "--games", "1",
                 "--fair-deck", "--transcript-dir", str(d)]) == 0
    path = str(next(d.iterdir()))
    text = _in_a_terminal(["verify", path], 60, [], timeout=60)
    assert "Traceback" not in text, text
    lines = [line for line in text.split("\n") if line]
    assert lines and lines[0].startswith("OK: a fair game."), text
    assert all(i18n.cells(line) <= 60 for line in lines), text
    assert any(i18n.cells(line) > 50 for line in lines), text      # the width is used


def test_a_score_table_names_teams_of_three_whole_where_there_is_room() -> None:
    """Two teams of three at 80 columns: the score table's heading cut both names ("Bo &
    Di & …") with half the line empty. Each side's column is as wide as its name where
    the line has room; at 40 columns it still fits."""
    from cli import render
    from engine.scoring import SideScore

    d = LocalDriver(preset("classic"), Seating.parse(6, "2x3"),
                    ["Alexandrina", "Bo", "Cy", "Di", "Ed", "Flo"], seed=1)
    scores = [SideScore(*([100] * len(SideScore._fields))) for _ in range(2)]
    wide = render.plain(render.score_lines(scores, d.match, d.names, 1))
    assert "Alexandrina & Cy & Ed" in wide[0] and "Bo & Di & Flo" in wide[0], wide
    assert all(i18n.cells(line) <= 80 for line in wide), wide
    narrow = render.plain(render.score_lines(scores, d.match, d.names, 1, width=40))
    assert all(i18n.cells(line) <= 40 for line in narrow), narrow


# ----- found while playing: the completion menu hid the status ------------------------------

def test_the_completion_menu_opens_over_the_log_not_over_the_status(tmp_path: Path) -> None:
    """At 80×24, ":p" opened the completion menu (play, pass) downwards over the two
    status lines: "Your turn …" was hidden while a command was typed, though the code
    meant the menu to open upwards over the log. It stands on the command line now."""
    from test_cli_tmux import _tmux, _wait

    with _playing_in_tmux(tmp_path, "mb-menu", 80, 24, "play", "--in-process", "--players",
                          "3", "--seed", "3") as session:
        screen = _wait(session, "h help")
        assert "h help" in screen, screen
        time.sleep(0.5)                    # the bots' moves and the draw, said
        before = _tmux("capture-pane", "-p", "-t", session).stdout.rstrip("\n").split("\n")
        status = before[-1].split("h help")[0].strip()
        assert status, before
        _tmux("send-keys", "-t", session, ":", "p")
        screen = _wait(session, "pass")
        lines = screen.rstrip("\n").split("\n")
        at = next(i for i, line in enumerate(lines) if line.startswith(": p"))
        assert lines[at - 1].strip() == "pass" and lines[at - 2].strip() == "play", screen
        assert status in screen, (status, screen)           # the status still shows


# ----- found while playing: a key on a screen too small for the board -----------------------

def test_a_key_on_a_screen_too_small_for_the_board_says_why_nothing_happens() -> None:
    """At 60×20 the board is hidden behind a notice; n (to let a hazard stand), p, 3 did
    nothing without a word. A key says that the board waits for a larger terminal; once
    the terminal is large enough again, the line goes."""
    from cli_helpers import run_headless, until

    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
    out = SizedOutput(60, 20)
    seen: list[str] = []

    async def script(app: TableApp, inp: object) -> None:
        await until(lambda: d.my_move() and not d.others_pending())
        app.say("")
        inp.send_text("3")                                          # type: ignore[attr-defined]
        await until(lambda: app.message != "")
        seen.append(app.message)
        seen.append("".join(t for _s, t in app._too_small_fragments()))
        out.size = type(out.size)(rows=24, columns=80)
        await until(lambda: app.message == "")
        inp.send_text("\x11")                                      # type: ignore[attr-defined]

    run_headless(lambda inp, _out: TableApp(d, input=inp, output=out, delay=0), script)  # type: ignore[arg-type]
    assert seen[0] == ("The board is hidden until the terminal is larger: no key plays "
                       "meanwhile (q leaves, h helps)."), seen
    assert "no key plays meanwhile" in " ".join(seen[1].split()), seen
