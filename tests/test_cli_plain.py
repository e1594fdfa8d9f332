"""cli.plain line mode, and `millebornes play` end to end in a subprocess."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import unfold

from cli.driver import LocalDriver
from cli.main import main
from cli.plain import run_plain
from engine import Family, Seating, family, preset

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["Ana", "Bo", "Cy"]


def play(driver: LocalDriver, commands: str, **kw: object) -> tuple[int, str]:
    out = io.StringIO()
    rc = run_plain(driver, out=out, inp=io.StringIO(commands), **kw)  # type: ignore[arg-type]
    return rc, out.getvalue()


def test_scripted_commands_and_clean_eof() -> None:
    d = LocalDriver(preset("classic"), Seating.solo(3), NAMES, seed=1)
    rc, out = play(d, "help\nplay 9\nplay x\nwhy 1\nfrobnicate\n")
    assert rc == 0
    assert "play N on NAME" in out
    # an in-process game is not saved: the help never said otherwise of quit
    assert "quit (it asks first)" in out and "game is saved" not in out
    assert "Sorry: there is no card 9 in your hand (you hold 7)." in out
    assert "Sorry: 'x' is not a card number: use 1 to 7." in out
    assert "Sorry: unknown command 'frobnicate': type help for the list." in out
    assert "Your hand:" in out and "  1. " in out
    assert out.rstrip().endswith("End of input: leaving the table.")


def test_a_move_is_made_and_logged() -> None:
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1)
    d.run_others()
    first = d.view().hand(0)[0]
    if family(first) is Family.SAFETY:
        pytest.skip("seed deals a safety first")
    rc, out = play(d, "discard 1\nquit\n")
    assert rc == 0
    from engine import card_name
    # the player's own move is said "You …", whatever name it chose (issue: "Ann drew
    # Roll." of herself at a networked table)
    assert f"* You discarded {card_name(first)}." in out and "Ana discarded" not in out
    assert "You left the table." in out


def test_quit_asks_first_and_no_stays() -> None:
    """A typed q ended an unsaved game at once in plain mode (the full screen asks):
    quit asks what leaving costs; no (or Enter) stays and play goes on, yes leaves."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1)
    rc, out = play(d, "quit\nno\nq\n\nquit\noui\nplay 1\n")
    assert rc == 0
    said = out.replace("\n", " ")      # plain mode wraps at 80 columns
    assert said.count("Leave the game? It is not saved (play --in-process): leaving ends "
                      "it. y leave · n stay") == 3
    assert out.count("You stay at the table.") == 2
    assert out.count("You left the table.") == 1
    assert out.rstrip().endswith("You left the table.")   # play 1 was never read
    assert "End of input" not in out


def test_safety_discard_asks_for_confirmation() -> None:
    for seed in range(200):
        d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=seed)
        d.run_others()
        hand = d.view().hand(0)
        safe = [i for i, c in enumerate(hand, 1) if family(c) is Family.SAFETY]
        if d.view().phase == "play" and safe:
            break
    else:
        raise AssertionError("no seed deals a safety")
    rc, out = play(d, f"discard {safe[0]}\nno\nquit\n")
    assert "is a safety" in out and "Discard it anyway? (yes/no)" in out
    assert "Kept it: nothing discarded." in out
    assert hand[safe[0] - 1] in d.view().hand(0)


def test_auto_plays_a_whole_match_in_process() -> None:
    d = LocalDriver(preset("modern"), Seating.solo(3), NAMES, seed=2)
    rc, out = play(d, "", auto=True)
    assert rc == 0
    assert "(auto)" in out
    assert "Hand 1 scores" in out
    assert "Final scores:" in out and "Winner:" in out
    assert d.over


def test_french_card_names() -> None:
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1, lang="fr")
    rc, out = play(d, "", auto=True, lang="fr")
    assert rc == 0
    assert any(w in out for w in ("Feu vert", "Feu rouge", "Crevaison", "Essence"))


def _cli(*argv: str, stdin: str = "", env: dict[str, str] | None = None,
         timeout: float = 60) -> subprocess.CompletedProcess[str]:
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "cli", *argv], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=timeout, env=e)


def test_end_to_end_plain_auto_whole_classic_match() -> None:
    proc = _cli("play", "--plain", "--auto", "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    assert "Final scores:" in proc.stdout
    assert "Match over:" in proc.stdout
    assert "Traceback" not in proc.stderr


@pytest.mark.slow    # 6 s: three whole plays (the default run's 10-minute budget)
def test_the_seed_is_said_to_replay_the_deal_only_where_it_does() -> None:
    """``play --plain`` said "--seed N replays this deal" at a networked table too, where
    the deal comes from the players' shuffle and a seed only steers the bots."""
    networked = _cli("play", "--plain", "--auto", "--bots", "1")
    assert networked.returncode == 0, networked.stderr
    assert "replays this deal" not in networked.stdout
    local = _cli("play", "--plain", "--auto", "--bots", "1", "--in-process")
    assert local.returncode == 0, local.stderr
    seed = re.search(r"\(seed (\d+): --seed \1 replays this deal\)", local.stdout)
    assert seed is not None, local.stdout[:300]
    again = _cli("play", "--plain", "--auto", "--bots", "1", "--in-process", "--seed", seed[1])
    assert again.stdout == local.stdout.split("\n", 1)[1]     # the same deal and play


def test_end_to_end_plain_auto_modern_teams() -> None:
    proc = _cli("play", "--plain", "--auto", "--seed", "3", "--rules", "modern",
                "--bots", "3", "--teams", "2x2", "--name", "Zoe")
    assert proc.returncode == 0, proc.stderr
    assert "Zoe & Cy" in proc.stdout and "Final scores:" in proc.stdout


def test_teams_alone_seat_a_bot_in_every_other_seat() -> None:
    """`play --teams 2x2` said "--teams 2x2 needs 4 players, not 2": a newcomer asking
    for teams had to work out --bots 3. Left out, --bots fills every other seat."""
    # in-process: the point is the arguments (a networked 2x2 and 3x2 took 15 s here;
    # six peers' hands are tested in test_netsim)
    proc = _cli("play", "--plain", "--auto", "--seed", "3", "--teams", "2x2", "--in-process",
                "--name", "Zoe", "--option", "match_target=1")
    assert proc.returncode == 0, proc.stderr
    assert "Zoe & Cy" in proc.stdout and "Final scores:" in proc.stdout
    proc = _cli("play", "--plain", "--auto", "--seed", "3", "--teams", "3x2", "--in-process",
                "--option", "match_target=1")
    assert proc.returncode == 0, proc.stderr
    assert "Final scores:" in proc.stdout


def test_simulate_and_tournament_take_the_players_of_teams(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`simulate --teams 2x2` said "--teams 2x2 needs 4 players, not 2" (its --players
    defaulted to 2), where `play` works the count out; tournament likewise. A count that
    disagrees is still refused."""
    assert main(["simulate", "--teams", "2x2", "--games", "1", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "classic rules (4 players, 2x2)" in out, out
    assert main(["tournament", "--bots", "heuristic,random", "--teams", "2x2", "--deals", "1",
                 "--jobs", "1", "--seed", "3"]) == 0
    assert "needs 4 players" not in capsys.readouterr().err
    assert main(["simulate", "--teams", "2x2", "--players", "3", "--games", "1"]) == 2
    assert "--teams 2x2 needs 4 players, not 3" in capsys.readouterr().err


def test_players_counts_the_seats() -> None:
    """`play --players 4` was "unrecognized arguments" (host takes --players): the other
    seats are bots."""
    proc = _cli("play", "--plain", "--auto", "--seed", "3", "--players", "4", "--in-process",
                "--option", "match_target=1")
    assert proc.returncode == 0, proc.stderr
    assert all(name in proc.stdout for name in ("Bo", "Cy", "Di"))
    assert "Final scores:" in proc.stdout


def test_not_a_terminal_falls_back_to_plain() -> None:
    proc = _cli("play", "--seed", "1", stdin="quit\n")
    assert proc.returncode == 0
    assert "using --plain" in proc.stderr
    # the end of the input after quit's question leaves; the saved game says it once
    assert "Leave the game? It is saved" in proc.stdout
    # the question names no bare `millebornes resume`: typed as shown, that found another
    # player's copy (no --data-dir) or the full screen (no --plain); the line after it does
    question = proc.stdout.split("Leave the game?", 1)[1].split("You left", 1)[0]
    assert "millebornes resume" not in question, question
    assert proc.stdout.count("You left") == 1
    assert "You left; the game is saved." in proc.stdout


@pytest.mark.parametrize("argv, message", [
    (["--bots", "0"], "--bots must be 1 to 5 (a table seats 2 to 6 players), not 0"),
    (["--bots", "6"], "--bots must be 1 to 5"),
    (["--bots", "1", "--teams", "2x2"], "--teams 2x2 needs 4 players, not 2"),
    (["--option", "nonsense=1"], "unknown rule option 'nonsense'"),
    (["--option", "fast_play=maybe"], "option fast_play takes yes/no"),
    (["--name", "two words"], "--name takes one word"),
    (["--name", ""], "--name must not be empty"),     # not silently "You"
    (["--bots", "3", "--teams", "0x4"], "--teams takes 2x2, 2x3 or 3x2, not '0x4'"),
    (["--players", "3", "--bots", "1"],
     "--players 3 and --bots 1 disagree: --bots counts the seats other than yours"),
    (["--players", "7"], "--players must be 2 to 6, not 7"),
    (["--players", "3", "--teams", "2x2"], "--teams 2x2 needs 4 players, not 3"),
])
def test_argument_errors_are_sentences(argv: list[str], message: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--plain", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.startswith("millebornes play: ")


def test_options_reach_the_rules() -> None:
    import argparse

    from cli.args import rules_from, table_names
    ns = argparse.Namespace(rules="classic", option=["fast-play=yes", "target=1000"])
    r = rules_from(ns)
    assert r.fast_play is True and r.target == 1000
    assert table_names("Bob", 3) == ["Bob", "Cy", "Di"]  # no bot name a prefix of Bob
    assert table_names(None, 2) == ["You", "Bo"]


def test_replay_of_a_missing_file_says_how_to_get_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "no-such-game.mbt"]) == 2
    err = capsys.readouterr().err
    assert "no-such-game.mbt" in err
    assert "--transcript-dir" in err  # tells a newcomer how to get a transcript


# ----- the LocalDriver behind both modes ----------------------------------------------------

def _play_out(d: LocalDriver, hands: int = 1) -> None:
    from engine.bots import make_bot
    me = make_bot("heuristic", 42)
    while not d.over and len(d.match.hands) < hands:
        if d.hand_over:
            d.next_hand()
        elif not d.step_others():
            d.submit(me.choose(d.view(), d.legal()))


def test_driver_bots_see_only_their_own_view() -> None:
    from engine import HandState
    from engine.bots import make_bot

    class Spy:
        def __init__(self, seat: int) -> None:
            self.seat = seat
            self.bot = make_bot("heuristic", seat)
            self.calls = 0

        def choose(self, view: HandState, legal: list) -> object:  # type: ignore[type-arg]
            self.calls += 1
            assert view.viewer == self.seat
            assert isinstance(view.pile, int)
            assert all(isinstance(h, int) for s, h in enumerate(view.hands) if s != self.seat)
            return self.bot.choose(view, legal)

    spies = [None, Spy(1), Spy(2)]
    d = LocalDriver(preset("classic"), Seating.solo(3), NAMES, seed=9, bots=spies)  # type: ignore[arg-type]
    _play_out(d)
    assert spies[1].calls > 10 and spies[2].calls > 10  # type: ignore[union-attr]


def test_driver_is_deterministic_and_rotates_the_first_player() -> None:
    a = LocalDriver(preset("classic"), Seating.solo(3), NAMES, seed=12)
    b = LocalDriver(preset("classic"), Seating.solo(3), NAMES, seed=12)
    _play_out(a, hands=3)
    _play_out(b, hands=3)
    assert a.events == b.events
    assert a.match == b.match
    firsts = [e.split(":")[1].split()[0] for e in a.events if e.startswith("Hand ")
              and "first" in e]
    start = a.match.first_seat
    # (seat 0 is the player at this screen: "Hand 2: you play first")
    assert firsts == [NAMES[s] if (s := (start + i) % 3) else "you"
                      for i in range(len(firsts))]
    assert len(firsts) >= 2
    # the last hand shows everyone the score sheet as it stood at its deal
    before = a.match._replace(hands=a.match.hands[:-1]).totals()
    assert len(a.match.hands) == 3 and a.view().match_scores == before != (0, 0, 0)


def test_driver_log_never_shows_a_bot_s_hidden_draw() -> None:
    d = LocalDriver(preset("classic"), Seating.solo(3), NAMES, seed=5)
    _play_out(d)
    assert any(e.startswith("You drew ") for e in d.events)
    assert not any(e.startswith(("Bo drew", "Cy drew")) for e in d.events)


def test_driver_refuses_illegal_moves_and_keeps_state() -> None:
    from engine import Discard, IllegalAction
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1)
    d.run_others()
    before = d.state
    not_mine = next(c for c in d.state.deck if c not in d.view().hand(0))
    with pytest.raises(IllegalAction):
        d.submit(Discard(0, not_mine))
    with pytest.raises(ValueError):
        d.submit(Discard(1, not_mine))
    assert d.state == before


def test_keyboard_input_is_bounded_and_echoed_safely() -> None:
    """No input stops a peer (issue 9), the keyboard included: a line of megabytes (or a
    stream with no newline) is read in bounded pieces, and what the player typed comes
    back as one short line without control or bidi characters."""
    import io
    import os
    import threading

    from cli.driver import LocalDriver
    from cli.plain import run_plain
    from cli.seats import MAX_LINE_BYTES, LineReader
    from engine import Seating, preset

    huge = "x" * 3_000_000
    typed = (huge + "\n" + "\x1b[2Jplay 1 on \u202eBo\x07\n" + "quit\nyes\n")
    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
    out = io.StringIO()
    assert run_plain(d, out=out, inp=io.StringIO(typed)) == 0
    text = out.getvalue()
    assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
    assert max(len(line) for line in text.splitlines()) < 400
    assert "unknown command 'xxxx" in text

    # the non-blocking reader of host/join/resume: a pipe with no newline at all
    r, w = os.pipe()
    reader = LineReader(os.fdopen(r, "r"))

    def write() -> None:
        with os.fdopen(w, "wb") as f:
            f.write(b"y" * 2_000_000 + b"\nhello\n")

    t = threading.Thread(target=write)
    t.start()
    lines = []
    while len(lines) < 2:
        got = reader.get(1.0)
        if isinstance(got, str):
            lines.append(got)
        assert len(reader._buffer) <= 2 * MAX_LINE_BYTES
    t.join()
    assert lines == ["y" * MAX_LINE_BYTES, "hello"]


# ----- bounds of every number on the command line ----------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["join", "--connect-timeout", "nan"],
     "--connect-timeout must be a number of seconds from 0.1 to 3600, not nan"),
    (["join", "--connect-timeout", "1e400"], "from 0.1 to 3600, not 1e400"),
    (["join", "--connect-timeout", "-5"], "from 0.1 to 3600, not -5"),
    (["host", "--connect-timeout", "5"], "unrecognized arguments: --connect-timeout 5"),
    (["bench", "engine", "--seconds", "nan"],
     "--seconds must be a number of seconds from 0.01 to 3600, not nan"),
    (["bench", "engine", "--seconds", "inf"], "from 0.01 to 3600, not inf"),
    (["bench", "engine", "--seconds", "-1"], "from 0.01 to 3600, not -1"),
    (["bench", "trust", "--trials", "999999999"], "--trials must be 1 to 1000, not 999999999"),
    (["simulate", "--games", "99999999999999999999"],
     "--games must be 1 to 1000000, not 99999999999999999999"),
    (["simulate", "--games", "0"], "--games must be 1 to 1000000, not 0"),
    (["tournament", "--deals", "0"], "--deals must be 1 to 1000000, not 0"),
    (["tournament", "--jobs", "300"], "--jobs must be 0 to 256, not 300"),
    (["lobby", "--seconds", "-1"], "--seconds must be a number of seconds from 0 to 86400, not -1"),
    (["lobby", "--seconds", "nan"], "from 0 to 86400, not nan"),
    (["join", "--seat", "-1"], "--seat must be 1 to 5 (seat 0 is the host's"),
    (["join", "--seat", "99999"], "not 99999"),
    (["simulate", "--players", "4", "--teams", "0x4"],
     "--teams takes 2x2, 2x3 or 3x2, not '0x4'"),
    # a seed past 64 bits stopped the table ("unresponsive") with an OverflowError
    (["play", "--seed", str(2 ** 64)], f"--seed must be 0 to 4294967295, not {2 ** 64}"),
    (["host", "--seed", "-1"], "--seed must be 0 to 4294967295, not -1"),
    (["join", "--seed", "x"], "--seed must be 0 to 4294967295, not x"),
    (["resume", "--seed", str(2 ** 40)], "not 1099511627776"),
    (["simulate", "--seed", str(2 ** 64)], "--seed must be 0 to 4294967295"),
    (["tournament", "--seed", str(2 ** 64)], "--seed must be 0 to 4294967295"),
    # "there is no bot called '-1'" for a number out of bounds
    (["play", "--bots", "-1"], "--bots must be 1 to 5 (a table seats 2 to 6 players), not -1"),
    # 'the system says "File exists"' from deep inside the simulation
    (["simulate", "--transcript-dir", os.devnull],
     f"--transcript-dir {os.devnull} is a file, not a folder"),
])
def test_numbers_out_of_bounds_are_refused_naming_the_range_and_the_value(
        argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    first, *rest = err.splitlines()
    assert message in first, err
    assert first.startswith(f"millebornes {argv[0]}: "), err
    # and a usage error's command that shows the usage, on lines of its own (pass 34)
    assert rest in ([], ["This command shows the usage:", f"  millebornes {argv[0]} --help"])


def test_the_bounds_keep_the_values_they_allow() -> None:
    from cli.main import verb_parser
    assert verb_parser("join").parse_args(["--connect-timeout", "0.5"]).connect_timeout == 0.5
    assert verb_parser("join").parse_args(["--seat", "5"]).seat == 5
    assert verb_parser("lobby").parse_args(["--seconds", "0"]).seconds == 0
    assert verb_parser("simulate").parse_args(["--games", "1000000"]).games == 1_000_000
    assert verb_parser("play").parse_args(["--seed", "4294967295"]).seed == 2 ** 32 - 1
    assert verb_parser("host").parse_args(["--seed", "0"]).seed == 0
    assert verb_parser("bench").parse_args(["engine", "--seconds", "0.05"]).seconds == 0.05


def test_an_empty_name_is_refused_not_replaced_by_the_login_name() -> None:
    import argparse

    from cli.args import player_name
    with pytest.raises(ValueError, match="--name must not be empty"):
        player_name(argparse.Namespace(name=""))
    with pytest.raises(ValueError, match="--name must not be empty"):
        player_name(argparse.Namespace(name="  "))
    assert player_name(argparse.Namespace(name=None))   # no --name: the login name


# ----- Ctrl-C says what was kept ---------------------------------------------------------------

@pytest.mark.parametrize("argv, said", [
    (["play", "--in-process", "--plain"], "interrupted; nothing was saved"),
    # the bots were starting: no game was made ("the game is saved" was not true)
    (["play", "--plain"], "interrupted before the game began; nothing was saved\n"),
    # no game had begun: a host waiting for guests was sent to `resume` (an older game)
    (["join", "--peer", "127.0.0.1:9"], "interrupted\n"),
    (["host", "--no-announce"], "interrupted\n"),
    # a bot-only run stopped before its first match: no report follows
    (["simulate"], "interrupted before the first match ended: no match to report\n"),
    (["verify", "x.mbt"], "interrupted\n"),
])
def test_ctrl_c_says_what_was_kept(argv: list[str], said: str, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    import importlib

    from cli.args import VERB_MODULES

    def stop(args: object) -> int:
        raise KeyboardInterrupt
    monkeypatch.setattr(importlib.import_module(f"cli.{VERB_MODULES[argv[0]]}"), "run", stop)
    assert main([*argv, "--data-dir", str(tmp_path)] if argv[0] != "simulate" else argv) == 130
    err = capsys.readouterr().err
    assert err.startswith(said) or err == said, err
    if argv[0] in ("simulate", "verify", "host", "join"):
        assert err == said


@pytest.mark.parametrize("verb", ["host", "join"])
def test_ctrl_c_once_a_hosted_or_joined_game_is_stored_says_it_is_saved(
        verb: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import importlib
    from types import SimpleNamespace

    from cli import seats
    from cli.args import VERB_MODULES

    def stop(args: object) -> int:
        # the match starts: this seat's store is made (here a stand-in), then Ctrl-C
        monkeypatch.setattr(seats.Store, "create", lambda *a, **k: None)
        start = SimpleNamespace(cfg=SimpleNamespace(header=dict), seat=0, endpoints={},
                                alternatives={})
        seats.my_store(start, SimpleNamespace(port=1), args)  # type: ignore[arg-type]
        raise KeyboardInterrupt
    monkeypatch.setattr(importlib.import_module(f"cli.{VERB_MODULES[verb]}"), "run", stop)
    assert main([verb, "--data-dir", str(tmp_path)]) == 130
    assert capsys.readouterr().err.startswith(
        "interrupted; the game is saved. Come back to it with:\n  millebornes resume ")


# ----- a terminal that is not UTF-8 --------------------------------------------------------------

@pytest.mark.parametrize("env", [{"PYTHONIOENCODING": "ascii"},
                                 {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}])
def test_help_on_a_terminal_that_is_not_utf8(env: dict[str, str]) -> None:
    proc = _cli("--help", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "vi (Tieng Viet)" in proc.stdout and "fr (Francais)" in proc.stdout


def test_a_game_on_an_ascii_terminal_draws_ascii_stand_ins(tmp_path: Path) -> None:
    """It stopped at the end of hand 1 on the bar chart's "█" ('ascii' codec can't
    encode); now each glyph the screens draw has a stand-in."""
    from cli.i18n import ascii_fallback
    argv = ("play", "--in-process", "--auto", "--plain", "--bots", "1", "--seed", "3",
            "--option", "match_target=0", "--data-dir", str(tmp_path))
    proc = _cli(*argv, env={"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""})
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "Final scores:" in proc.stdout and proc.stdout.isascii()
    utf8 = _cli(*argv)
    assert utf8.returncode == 0 and not utf8.stdout.isascii()
    assert proc.stdout == "".join(c if c.isascii() else ascii_fallback(c) for c in utf8.stdout)


def test_ascii_stand_ins() -> None:
    from cli.i18n import ascii_fallback
    from cli.render import BLOCKS
    bars = [ascii_fallback(ch) for ch in BLOCKS[1:]]
    assert len(set(bars)) == len(bars) and all(b.isascii() and len(b) == 1 for b in bars)
    assert [ascii_fallback(ch) for ch in "▶★─│é…"] == [">", "*", "-", "|", "e", "..."]
    assert ascii_fallback("ئ") == "?" and ascii_fallback("\udcff") == "?"


def test_an_input_stream_that_fails_to_read_is_the_end_of_input() -> None:
    """A stream without a file descriptor that raises on reading (a closed terminal, or
    pytest's capture) ends the input, as end of file does, instead of raising in the
    reader's thread and leaving the seat waiting for a line that never comes."""
    import threading

    from cli.seats import LineReader

    class Broken:
        def fileno(self) -> int:
            raise OSError("no descriptor")

        def readline(self, limit: int = -1) -> str:
            raise OSError("input/output error")

    errors: list[BaseException] = []
    old_hook = threading.excepthook
    threading.excepthook = lambda a: errors.append(a.exc_value)  # type: ignore[assignment]
    try:
        reader = LineReader(Broken())  # type: ignore[arg-type]
        assert reader.get(2.0) is None
        assert reader.readline() == ""
    finally:
        threading.excepthook = old_hook
    assert errors == []


def test_the_table_and_hand_are_said_again_on_request() -> None:
    """A screen reader's user cannot scroll back: "board", "hand" and "status" were
    unknown commands and Enter said nothing. They (and look) say the table again."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=3)
    rc, out = play(d, "board\nhand\n\nlook\nhelp\n")
    assert rc == 0
    assert out.count("Your hand:") == 5, out     # the turn's own, then four times again
    assert "unknown command" not in out
    assert "look (or Enter)  say the table and your hand again" in out
    # among the commands, before the note that ends the list (newcomer, round 4)
    assert out.index("look (or Enter)") < out.index("Each card's family is said")


def test_rules_says_how_to_play() -> None:
    """A newcomer found keys in the help and nothing on what a Roll or a coup fourré is:
    `rules` says the game in brief, and the help names it."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1)
    rc, out = play(d, "help\nrules\n")
    assert rc == 0
    assert "rules            how to play, in brief" in out
    said = " ".join(out.split())
    assert "How to play, in brief:" in said
    assert "Start with a Roll (green light)" in said and "Coup fourré: when a hazard hits" in said


def test_the_saved_line_s_verify_command_finds_the_game(tmp_path: Path) -> None:
    """After a match played with --data-dir, "Anyone can check it with: millebornes verify
    ID" said "no saved game has the id" when typed as shown."""
    data = tmp_path / "games"
    proc = _cli("play", "--plain", "--auto", "--seed", "3", "--data-dir", str(data),
                "--option", "match_target=1", timeout=120)
    assert proc.returncode == 0, proc.stderr
    said = unfold(proc.stdout)
    match = re.search(r"Anyone can check it with: millebornes verify (\S+) --data-dir (\S+)",
                      said)
    assert match is not None and match[2] == str(data), said[-400:]
    check = _cli("verify", match[1], "--data-dir", match[2])
    assert check.returncode == 0 and check.stdout.startswith("OK"), check.stdout


def test_the_draw_prompts_keys_work_in_line_mode() -> None:
    """The prompt says "draw (space; draw) or take X (g; draw discard)": in line mode g was
    "unknown command" and a space (then Enter) only said the table again."""
    from engine.bots import make_bot
    from engine.state import DRAW

    def at_my_draw(seed: int) -> LocalDriver:
        d = LocalDriver(preset("modern"), Seating.solo(2), NAMES[:2], seed=seed)
        me = make_bot("heuristic", 1)
        for _ in range(400):
            d.run_others()
            v = d.view()
            if v.phase == DRAW and d.my_move() and v.discard:
                return d
            d.submit(me.choose(v, d.legal()))
        raise AssertionError("no draw with a discard pile")

    d = at_my_draw(4)
    top = d.view().discard[-1]
    rc, out = play(d, "g\nquit\n")
    from engine import card_name
    assert f"* You took {card_name(top)} from the discard pile." in out, out[-800:]
    assert "unknown command" not in out
    d = at_my_draw(4)
    rc, out = play(d, " \nquit\n")
    assert "* You drew " in out and "unknown command" not in out, out[-800:]
    assert d.view().phase != DRAW             # the space drew: the turn goes on to a play


def test_a_match_stopped_before_its_end_names_no_winner_and_no_tie() -> None:
    """Hostile review, round 2: after a cheat stopped the match the last line said
    "Winner: nobody (a tie)" (and an agreed end "Match over: a tie, nobody wins")."""
    from cli.words import final_line, match_over_line
    from engine import Match
    match = Match(preset("classic"), Seating.solo(2), 0)
    stopped = final_line(match, ["Hosty", "Evil"], ended_early=True)
    assert "No winner: the match did not reach its end" in stopped and "tie" not in stopped
    assert "Hosty 0, Evil 0" in stopped
    assert match_over_line(match, ["Hosty", "Evil"], ended_early=True) == \
        "The match stopped before its end: no winner."
    assert "Winner: nobody (a tie)" in final_line(match, ["Hosty", "Evil"])


def test_a_card_that_does_not_answer_a_hazard_is_named_first() -> None:
    """Newcomer, round 4: "Answer the hazard first: c for a coup fourré or n to let it
    stand (50 does n…" — cut on a full status line just where it said which card."""
    from cli.words import reply
    said = reply("answer-first-not-this", card="50")
    assert said.startswith("50 does not answer the hazard: ") and "c for a coup fourré" in said


def test_a_prompt_whose_move_vanished_as_it_was_said_is_left_for_the_table() -> None:
    """A resumed player's prompt for the move he had left was said while the others'
    agreement gave his seat to a bot: the prompt took its "where the table stands" after
    the board was said, so it already held the moved-on table, never saw a change, and
    waited for a line for ever; he never read that he was watching (CI, 2026-12-06,
    test_newcomer_seventeenth; 60 s at "Your turn", the table 60 hands further on). The
    prompt now compares with the table as it stood when the console decided to ask."""
    import threading
    import time

    from engine.state import PLAY

    class TakenAsShown(LocalDriver):
        taken = False

        def legal(self) -> list[Any]:
            said = super().legal()
            if said and self.state.phase == PLAY:
                self.taken = True     # the agreement lands while the board is read
            return said

        def my_move(self) -> bool:
            return not self.taken and super().my_move()

        def watching(self) -> str | None:
            return "A bot plays your seat; you are watching." if self.taken else None

    seed = next(s for s in range(50) if LocalDriver(
        preset("classic"), Seating.solo(2), NAMES[:2], seed=s).state.seat == 0)
    d = TakenAsShown(preset("classic"), Seating.solo(2), NAMES[:2], seed=seed)
    out = io.StringIO()
    read_end, write_end = os.pipe()
    rc: list[int] = []

    def console() -> None:
        with os.fdopen(read_end) as inp:
            rc.append(run_plain(d, out=out, inp=inp))

    thread = threading.Thread(target=console, daemon=True)
    thread.start()
    try:
        end = time.monotonic() + 10
        while "you are watching" not in out.getvalue() and time.monotonic() < end:
            time.sleep(0.02)
        said = out.getvalue()
    finally:
        os.write(write_end, b"quit\ny\n")      # leaves, whichever prompt it waits at
        thread.join(10)
        os.close(write_end)
    assert "Your hand:" in said               # the board was said, then left
    assert "A bot plays your seat; you are watching." in said, said[-1500:]
    assert rc == [0] and not thread.is_alive()


def test_staying_at_ones_turn_says_the_move_asked_for_again() -> None:
    """quit at one's turn, then n: "You stay at the table." and a bare "> " came back, and
    a newcomer wondered what it waited for (newcomer pass 27's report). The move asked
    for is said again under it."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1)
    assert d.my_move()
    rc, out = play(d, "quit\nn\n")
    assert rc == 0
    stay = out.index("You stay at the table.")
    assert out[stay:].split("\n")[1] == \
        "Your turn: play or discard a card (play N, discard N).", out[stay:]


def test_the_table_moving_on_while_ones_own_bot_thinks_ends_nothing() -> None:
    """--auto-bot: the seat's bot thinks up to 30 s, and the table may stop meanwhile (a
    seat left). The move it chose was submitted anyway: "R0: it is not your move" ended
    the session with an error, and the line saying why the table stopped never came
    (review, stop 50). The move is dropped and the session goes on (here, to quit)."""
    from engine import IllegalAction

    class Stopping(LocalDriver):
        stopped = False

        def my_move(self) -> bool:
            return not self.stopped and super().my_move()

        def submit(self, action: Any) -> None:
            if self.stopped:      # as a network table's peer says it once it stopped
                raise IllegalAction("R0", "it is not your move", action)
            super().submit(action)

    class StopsTheTable:
        def choose(self, view: Any, legal: list[Any]) -> Any:
            d.stopped = True
            return legal[0]

    from cli.plain import PlainSession

    d = Stopping(preset("classic"), Seating.solo(2), NAMES[:2], seed=3)
    out = io.StringIO()
    session = PlainSession(d, auto=True, out=out, inp=io.StringIO("quit\ny\n"))
    session.bot = StopsTheTable()
    assert session.run() == 0
    assert "(auto)" not in out.getvalue()            # the dropped move is not said
    assert out.getvalue().rstrip().endswith("You left the table."), out.getvalue()[-300:]


def test_the_boards_keys_typed_as_a_line_play_and_discard() -> None:
    """A player who learnt "3p" and "2d" on the board typed them in the line mode: both
    were "unknown command". They play and discard the card of that number."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1)
    rc, out = play(d, "draw\n2d\n")
    assert rc == 0
    assert "unknown command" not in out, out
    assert "You discarded" in out, out
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1)
    _, typed = play(d, "draw\n9p\n")
    _, spelt = play(LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1),
                    "draw\nplay 9\n")
    assert "there is no card 9 in your hand" in typed and typed == spelt
