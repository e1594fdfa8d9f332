"""The thirty-first first-time-player pass: what the thirtieth left, and what a new player
met after it.

1. "Ben left; the game is saved. Wait for them (millebornes resume), or press b …": how
   long one may wait was said nowhere (a newcomer waited for a clock that never came):
   "Wait (no time limit) for them to type millebornes resume". And it was not true at a
   host's table with bots: after 600 s of pause each of the host's bots left for good;
   Ben came back, and the table paused again, on the host's own bot (only a new bot,
   the hand unscored, or the end). A bot waits as long as its player's console now.
2. The helps' examples and notes said a bare "millebornes play" where the program is
   .venv/bin/millebornes, not on the PATH (every other command it prints names it as
   typed), and so did "(`millebornes play --help` shows the usage)", the other usage
   errors' commands and `rules` ("modern (millebornes play --rules modern: …)").
3. `millebornes play --name you`: "you (you)" on the board, in the help and the line mode.
4. The welcome line said "1-7 or arrows pick a card" beside a hand of six (before one's
   own draw): "7" then answered "there is no card 7". It names the cards held.
5. `games` with no game saved said "No saved games in D. Play one with `…/millebornes
   play --data-dir D`." in one line of 150 columns: the terminal cut the command
   mid-word. Wrapped at spaces, as its other lines.
6. "Bo played Speed Limit on you: c for a coup fourré, n to let it stand": a newcomer
   with no safety pressed c and was refused ("no coup fourré: you hold no Right of
   Way"), or wondered why they were asked at all. The question names the card c needs,
   the same whether it is held or not (R9: the window leaks nothing).
7. `verify ~/games` (the data folder) and `verify ~/games/7a6c…` (a game's folder, as
   "The game is saved in …/7a6c…/transcript.mbt" names it) said "is not a file: give one
   transcript"; replay too. A game's folder stands for its transcript; a data folder is
   said to be one, with the commands that take it.
8. `tournament` at 80 columns: the progress line read "[###…] 4/40 matches 7 s elapsed,
   ~61 s left ed" (the "ed" of "the first is being played" drawn before it), and the
   report's "search decision time: … (144 search" / "ed decisions)" was cut mid-word.
9. The bots run in their player's process (those `resume` restarts, and one that took a
   silent seat) went silent when their player left, where the host's own bots say they
   quit with their player: the others waited out the transport's and the table's limits
   to read "stopped answering". They say they quit too now.
"""

from __future__ import annotations

import shlex
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from cli_helpers import SizedOutput, commands_in, run_main
from prompt_toolkit.input import create_pipe_input

from cli import i18n, render, words
from cli.app import TableApp
from cli.driver import LocalDriver
from engine import Seating, preset
from engine.actions import Discard

# ----- 2. the helps name the program as typed -----


def _said(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc, out, err = run_main(argv, capsys)
    return rc, out, " ".join(err.split())


def test_the_helps_and_usage_errors_name_the_program_as_typed(
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The program started by its path, its folder off the PATH (the README's quick
    start): every command the helps and the usage errors say names it so."""
    import shutil
    import sys
    import tempfile

    from cli import program

    # a short folder: argparse cuts a word longer than its help's column (pytest's
    # tmp_path is), as it would any
    home = Path(tempfile.mkdtemp(prefix="nc31 "))
    script = home / ".venv" / "bin" / "millebornes"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(script)])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    program.program_name.cache_clear()
    typed = shlex.quote(str(script))
    try:
        for argv in (["--help"], ["play", "--help"], ["join", "--help"], ["help", "host"]):
            rc, out, err = _said(argv, capsys)
            assert rc == 0, err
            examples = out[out.index("examples:"):]
            commands = [line.strip() for line in examples.splitlines()
                        if line.startswith("  ") and not line.startswith("   ")]
            assert commands and all(c.startswith(f"{typed} ") for c in commands), \
                (argv, commands)
            flat = " ".join(out.split())
            # the notes, as the examples (a friend's own program is theirs: "friends sit
            # at it with millebornes join" stays)
            assert "and millebornes resume" not in flat and "name millebornes lobby" \
                not in flat, flat
        flat = " ".join(_said(["play", "--help"], capsys)[1].split())
        assert f"the game is saved, and {typed} resume brings it back." in flat, flat
        for verb in ("resume", "verify", "replay"):
            flat = " ".join(_said([verb, "--help"], capsys)[1].split())
            assert f"`{typed} games`" in flat, (verb, flat)
        flat = " ".join(_said(["rules"], capsys)[1].split())      # `rules`, beside the helps
        assert f"({typed} play --rules modern: one hand" in flat and \
            f"Every rule option: {typed} play --option help." in flat, flat
        for argv, said in (
                (["play", "--bost", "2"], f"shows the usage: {typed} play --help"),
                (["--players", "3"], f"as in: {typed} play --players 3"),
                (["--rules", "modern", "plya"], f"lists the verbs: {typed} --help"),
                (["--seed", "3", "rules"], f"lists its options: {typed} rules --help")):
            rc, _out, err = _said(argv, capsys)
            assert rc == 2 and said in err, (argv, err)
    finally:
        program.program_name.cache_clear()
        shutil.rmtree(home)


# ----- 3. a player named "you" is not "you (you)" -----


def test_a_player_named_you_is_not_you_you() -> None:
    from cli.words import peer_label

    for name in ("you", "YOU"):
        with create_pipe_input() as inp:
            d = LocalDriver(preset("classic"), Seating.solo(2), [name, "Bo"], seed=3)
            app = TableApp(d, input=inp, output=SizedOutput(80, 24), delay=0)
            board = " ".join(" ".join(t for _s, t in line) for line in app._table_lines())
            assert name in board and f"{name} (you)" not in board, board
            said = " ".join(render.plain(render.zone_lines(d.view(), 0, d.names, 0,
                                                           verbose=True))).strip()
            assert said.startswith(f"{name}, to move:") or said.startswith(f"{name}:"), said
            assert peer_label(name, "you", "ready") == name
    # another name is marked still
    assert peer_label("Ann", "you", "ready") == "Ann (you)"
    with create_pipe_input() as inp:
        d = LocalDriver(preset("classic"), Seating.solo(2), ["Ann", "Bo"], seed=3)
        app = TableApp(d, input=inp, output=SizedOutput(80, 24), delay=0)
        board = " ".join(" ".join(t for _s, t in line) for line in app._table_lines())
        assert "Ann (you)" in board, board


# ----- 4. the welcome names the cards held -----


def _intro(app: TableApp) -> str:
    return " ".join(" ".join(t for _s, t in line) for line in app._log_lines()[:2])


def test_the_welcome_names_the_cards_held() -> None:
    with create_pipe_input() as inp:
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
        d.run_others()
        assert d.my_move()
        app = TableApp(d, input=inp, output=SizedOutput(80, 24), delay=0)
        assert len(app.cards()) == 7
        assert "Welcome! 1-7 or arrows pick a card" in _intro(app), _intro(app)
        d.submit(next(a for a in d.legal() if isinstance(a, Discard)))
        assert not d.my_move() and len(app.cards()) == 6
        assert "Welcome! 1-6 or arrows pick a card" in _intro(app), _intro(app)


# ----- 1. waiting for one who left: no time limit, and the bots wait too -----


def test_a_bot_waits_through_a_pause_as_long_as_its_player(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A host's bot (run_bot) at a table paused on Bo: its peer gave up after 600 s of
    pause and closed, for good. A player waited for Bo, as told, with no time limit; Bo
    came back after ten minutes and the table paused again, on the host's own bot. It
    waits as long as its player's console (which ends it with ``until``). The pause's
    hour is the bot's clock moved on (an hour of real waiting is no test)."""
    from test_hostile_fifteenth import _two_seats

    import p2p.table.session as session
    from cli.seats import run_bot

    bot, bo = _two_seats(tmp_path, b"nc31/the-bot-waits")
    real = time.monotonic
    later = [0.0]
    monkeypatch.setattr(session, "time", SimpleNamespace(monotonic=lambda: real() + later[0]))
    left = threading.Event()
    t = threading.Thread(target=run_bot, args=(bot,), kwargs={"until": left}, daemon=True)
    t.start()
    try:
        end = real() + 15
        while not bot.paused and real() < end:
            time.sleep(0.05)
        assert bot.paused and (bot.stop_why or {}).get("id") == "unresponsive", bot.stopped
        later[0] = 3600.0                 # an hour of pause, on the bot's clock
        t.join(3)
        assert t.is_alive(), "the bot left the paused table"
    finally:
        left.set()                        # its player leaves: it goes with them
        t.join(10)
        bo.close(flush=0)
    assert not t.is_alive()


def test_waiting_for_one_who_left_says_there_is_no_time_limit() -> None:
    """"Ben left; the game is saved. Wait for them (millebornes resume), or press b …":
    how long one may wait was said nowhere. Both screens say it, and the full screen's
    still fits the three status lines at 80 columns."""
    for plain in (False, True):
        line = (words.silent_seat_plain_line if plain else words.silent_seat_line)("Ben")
        assert "Wait (no time limit) for them to type millebornes resume, or" in line, line
    for name in ("Ben", "Maximilienne"):           # names are 12 letters at most
        said = words.wrap(words.silent_seat_line(name), 78)
        assert len(said) <= 3, said
    with i18n.using("fr"):
        for plain in (False, True):
            line = (words.silent_seat_plain_line if plain else words.silent_seat_line)("Ben")
            assert "Attendez son retour, sans limite de temps (millebornes resume sur son " \
                "ordinateur), ou" in line, line


# ----- 5. games with none saved: wrapped -----


def test_games_with_none_saved_is_wrapped_at_words(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """"No saved games in D. Play one with `…/millebornes play --data-dir D`." was one line
    of 150 columns: the terminal cut the command in the middle of a word."""
    data = tmp_path / "a folder for my games of mille bornes"
    rc, out, _err = _said(["games", "--data-dir", str(data)], capsys)
    assert rc == 0
    lines = out.splitlines()
    assert all(len(line) <= 80 for line in lines), lines
    # the command on lines of its own (pass 33)
    assert " ".join(out.split()).startswith(f"No saved games in {data}. Play one with: "), out


# ----- 6. a hazard's question names the card a coup fourré needs -----


def _attacked(seating: Seating, names: list[str], lang: str = "en") -> LocalDriver:
    """A table where a bot's hazard is on this seat, the question open."""
    for seed in range(1, 80):
        d = LocalDriver(preset("classic"), seating, names, seed=seed, lang=lang)
        for _ in range(200):
            if d.hand_over:
                break
            if d.others_pending():
                d.step_others()
            elif d.view().phase == "respond":
                return d
            else:
                legal = d.legal()
                d.submit(next((a for a in legal if isinstance(a, Discard)), legal[0]))
    raise AssertionError("no hazard on this seat in 80 deals")


def test_a_hazards_question_names_the_card_a_coup_fourre_needs() -> None:
    """"Bo played Speed Limit on you: c for a coup fourré, n to let it stand": a newcomer
    with no safety pressed c ("Sorry: no coup fourré: you hold no Right of Way") or
    wondered why they were asked at all. The question names the card c needs, the same
    whether or not it is held (R9: the window leaks nothing); the full screen's status
    says it whole at 80×24."""
    from engine import kind
    from engine.cards import SAFETY_FOR

    for seating, names in ((Seating.solo(2), ["You", "Bo"]),
                           (Seating(4, 2), ["You", "Bo", "Cy", "Di"])):
        d = _attacked(seating, names)
        att = d.view().attack
        assert att is not None
        safety = i18n.kind_name(SAFETY_FOR[kind(att.card)])
        with create_pipe_input() as inp:
            app = TableApp(d, input=inp, output=SizedOutput(80, 24), delay=0)
            status = " ".join(" ".join(app.status_lines()).split())
        assert f"n to let it stand (coup / pass). c needs the card {safety} in your hand." \
            in status, status
        assert "all of it in the log" not in status, status
    d = _attacked(Seating.solo(2), ["You", "Bo"], lang="fr")
    att = d.view().attack
    assert att is not None
    with i18n.using("fr"):
        said = words.waiting_text(d.view(), 0, d.names)
        safety = i18n.kind_name(SAFETY_FOR[kind(att.card)])
    assert said.endswith(f"c demande d'avoir la carte {safety} en main."), said


# ----- 7. verify and replay of a folder -----


def test_verify_and_replay_of_a_folder_take_its_game_or_say_what_it_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`verify ~/games` (the data folder) and `verify ~/games/7a6c…` (a game's folder, as
    "The game is saved in ~/games/7a6c…/transcript.mbt" names it): "is not a file: give
    one transcript". A game's folder is its transcript; a data folder is said to be one,
    with the commands that take it."""
    from test_cli_games import _saved_game

    data = tmp_path / "my games"
    table = _saved_game(data)
    for verb in ("verify", "replay"):
        rc, _out, raw = run_main([verb, str(data)], capsys)
        err = " ".join(raw.split())
        assert rc == 2, err
        # (each command on lines of its own: pass 34; read as a shell reads them, the same
        # at any width of the path)
        assert f"{data} is a folder of saved games, not one game: the first command below " \
            "takes its newest, the second lists them with their ids: millebornes" in err, err
        assert commands_in(raw) == [["millebornes", verb, "--data-dir", str(data)],
                                    ["millebornes", "games", "--data-dir", str(data)]], raw
    rc, out, err = _said(["verify", str(table)], capsys)
    assert "is not a file" not in err and "Fair so far" in " ".join(out.split()), (out, err)
    rc, _out, err = _said(["replay", "--plain", str(tmp_path)], capsys)   # no game in it
    assert rc == 2 and "is not a file" in err, err
    # a link to the game's folder is the folder (it said "is not a file" still: the
    # session's second review)
    link = tmp_path / "last game"
    link.symlink_to(table, target_is_directory=True)
    rc, out, err = _said(["verify", str(link)], capsys)
    assert "is not a file" not in err and "Fair so far" in " ".join(out.split()), (out, err)


# ----- 8. the progress line leaves nothing of a longer line behind -----


class _Terminal:
    """A terminal's one line, as ``\\r`` redraws it: what is written after a carriage
    return overwrites the line from its start, the rest of the line stays."""

    def __init__(self) -> None:
        self.text = ""

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        raise OSError("no terminal size")          # 80 columns, as the tests' default

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass

    def screen(self) -> str:
        line = ""
        for part in self.text.split("\r"):
            line = part + line[len(part):]
        return line


def test_the_progress_line_leaves_nothing_of_a_longer_line_behind() -> None:
    """`tournament --deals 20` at 80 columns: "[###……] 4/40 matches 7 s elapsed, ~61 s
    left ed", the "ed" left by "0/40 matches: the first is being played" drawn first."""
    from cli.progress import Progress

    term = _Terminal()
    p = Progress(40, stream=term)
    first = term.screen()
    assert "the first is being played" in first, first
    p.drawn_at = -1.0                       # the next tick is due at once
    p.tick(4)
    shown = term.screen().rstrip()
    assert shown.endswith("s left"), repr(shown)
    assert "played" not in shown


def test_the_tournaments_report_lines_fit_80_columns(
        capsys: pytest.CaptureFixture[str]) -> None:
    """"  search decision time: p50 42 ms, p95 70 ms, p99 101 ms, max 104 ms (144 search"
    / "ed decisions)": the terminal cut the report's 84 columns mid-word."""
    rc, out, err = _said(["tournament", "--bots", "heuristic,search", "--deals", "1",
                          "--jobs", "1", "--quiet"], capsys)
    assert rc == 0, err
    lines = out.splitlines()
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    said = " ".join(out.split())
    assert "search decision time: p50" in said and "searched decisions)" in said, out


# ----- 9. a resumed bot (or one that took a seat) quits with its player -----


def test_a_bot_run_in_the_players_process_quits_with_its_player(tmp_path: Path) -> None:
    """The bots `resume` restarts, and a bot that took a silent seat, run in their
    player's process (BotRunners): when the player left, they went silent, and the others
    waited out the transport's and the table's limits to read "stopped answering"; the
    host's bots (their own processes) say they quit with their player, and the table
    says whom it waits for. These say it too."""
    from test_session import FAST

    from cli.seats import BotRunners
    from p2p.net.interface import TransportConfig
    from p2p.table.memory import make_table
    from p2p.testing import socket_peers

    cfg, ids = make_table(preset("classic"), Seating.solo(2), ["Ann", "Bot1"],
                          b"nc31/runners-leave")
    ann, bot = socket_peers(tmp_path, cfg, ids, FAST,
                            transport=TransportConfig(slow_after=30.0, gone_after=60.0))
    ann.controller = None                 # Ann thinks: the bot's peer waits for her
    runners = BotRunners([bot])
    runners.start()
    try:
        end = time.monotonic() + 20
        while ann.view() is None and time.monotonic() < end:
            ann.pump(0.05)
        assert ann.view() is not None
        runners.finish(0.5)               # the bot's player leaves the game, not over
        end = time.monotonic() + 5
        while not ann.quit_for_now(1) and time.monotonic() < end:
            ann.pump(0.05)
        assert ann.quit_for_now(1), "the bot went silent instead of saying it quit"
        assert not any(t.is_alive() for t in runners.threads)
    finally:
        runners.leave.set()
        ann.close(flush=0)
