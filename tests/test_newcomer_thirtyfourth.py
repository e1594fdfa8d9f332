"""The thirty-fourth first-time-player pass: what the thirty-third left, and what a new
player met after it.

1. French `verify` of one's own game said "(accord de vous)" and "(accord d'Ann et
   vous)" after a bot's takeover: "you" was put where the names go. The agreement is a
   phrase of its own now ("(avec votre accord)", "(avec votre accord et celui d'Ann)");
   Swedish said "godkänt av du" and Afrikaans "ingestem deur jy" (the subject's "you"
   after "by"), and French's "par Ann et Cy, qui a dit que…" (one verb for two); Swedish
   said "spelades Cy plats" where its other lines say "Cys plats".
2. Hints that held a command in backticks inside their sentence, cut by a narrow terminal
   ("(`millebornes verify" / "--help` shows the usage)"): every usage error, a verb's
   option that no verb takes, an unknown game id (and with no saved game at all, it
   sent the player to `games`, which had nothing more to say), a data folder given for a
   game, replay's missing file and its match with no finished hand. Each command on
   lines of its own (`words.command_block`), that pastes whole.
   `verify` of a missing file and of a path that is no file said "give … its short id from
   `millebornes games`" in their sentence too.
3. `--auto-bot SPEC` said "a level or a bot spec … (default: heuristic)": no level is
   called that (easy, normal, hard, expert; `games` says "a bot (normal) played your
   seat" of the same bot).
4. The helps cut a word longer than their column: the program started by its path (the
   README's quick start, .venv/bin not on the PATH) in "the game's short id from
   `/home/ann/src/millebornes/.venv/bin/millebornes games`" at 60 columns, "…/src" /
   "/millebornes/…" (pasted, another path); and "ug-" / "Latn" at the hyphen of a
   language's code. Play's note cut "…/millebornes" from its "resume".
5. `host --move-limit 60` at 60 columns: the table's line in the lobby was cut mid-word
   by the terminal, "(eac" / "h move: up to 60 s, then the table pauses)" (and so on the
   joiner's screen): wrapped at spaces now, a seat's further lines under it.
6. The same host's board at 60 columns, at its own timed move: "Please make it larger:
   the game waits for you meanwhile", under "(each move: up to 60 s, then the table
   pauses)": it waits 60 s, then the others may give the seat to a bot.
7. `replay 5d79` (an older game), its help (h): "the transcript entry …, numbered as the
   report of this command numbers the entries: millebornes verify": typed, that reported
   on the newest game, another. It names the game replayed.
8. `verify --bogus`: "unrecognized arguments: --bogus; did you mean '--verbose'?" (the
   two dashes every option has made the two alike): options are compared without them.
9. `resume --plain` at 60 columns, the host gone: "Waiting for root to come back … for up
   to 20" / "s, then the table pauses": a number of seconds keeps its "s" on its line,
   wherever a line is wrapped.
10. Ann left in hand 1; Ben gave her seat to a bot; her `games` said "finished, you won",
   nothing more: a bot had won it, run by Ben. The row says so under it.
11. Ben at 60 columns, the host gone: the small board's status offered "press b: a bot
   takes the seat … or e: end the match"; b answered "The board is hidden … no key plays
   meanwhile". Said beside the offer, as it is at one's own move.
"""

from __future__ import annotations

import io
import os
import shlex
from pathlib import Path

import pytest
from cli_helpers import run_main, unfold

from cli import i18n

# ----- 1. one's own agreement in verify, in every language -----


def _report(**kw: object):  # type: ignore[no-untyped-def]
    from p2p.audit import GameReport
    from p2p.transcript.file import VerifyReport
    return GameReport(ok=True, crypto=VerifyReport(entries_checked=40), complete=True,
                      names=("Ben", "Ann", "Cy"), totals=(100, 200, 300), winner=2,
                      hands=[{"hand": 0, "scores": (0, 0, 0), "first_seat": 0}], **kw)


def _said(report: object, me: int | None = 0) -> str:
    from cli.words import verify_lines
    return unfold("\n".join(verify_lines(report, me=me)))  # type: ignore[arg-type]


ALONE = _report(takeovers=[{"hand": 0, "seat": 2, "runner": 0, "signers": [0]}])
WITH_ANN = _report(takeovers=[{"hand": 0, "seat": 2, "runner": 0, "signers": [1, 0]}])
OTHERS = _report(takeovers=[{"hand": 0, "seat": 0, "runner": 1, "signers": [1, 2]}],
                 ended_by_agreement={"hand": 2, "seat": 0, "signers": [1, 2]})


def test_french_verify_says_ones_own_agreement_in_french() -> None:
    with i18n.using("fr"):
        alone, with_ann, others = _said(ALONE), _said(WITH_ANN), _said(OTHERS)
        ended = _said(_report(ended_by_agreement={"hand": 2, "seat": 2,
                                                  "signers": [1, 0]}))
    assert "accord de vous" not in alone and "(avec votre accord)" in alone, alone
    assert "(avec votre accord et celui d'Ann)" in with_ann, with_ann
    assert "(avec l'accord d'Ann et Cy)" in others, others
    # one verb said of two players: "par Ann et vous, qui a dit" is no French
    assert "qui a dit" not in ended and "par Ann et vous, au motif que Cy" in ended, ended


def test_every_language_says_ones_own_agreement_after_by() -> None:
    expected = {"sv": ("godkänt av dig", "godkänt av Ann och dig"),
                "af": ("ingestem deur jou", "ingestem deur Ann en jou")}
    for lang, (alone, with_ann) in expected.items():
        with i18n.using(lang):
            said = _said(ALONE), _said(WITH_ANN)
        assert f"({alone})" in said[0], said[0]
        assert f"({with_ann})" in said[1], said[1]
        assert " du)" not in said[0] + said[1] and " jy)" not in said[0] + said[1]
    with i18n.using("sv"):
        assert "spelades Cys plats" in _said(ALONE), _said(ALONE)
    for lang in ("vi", "ug", "fr", "sv", "af"):
        with i18n.using(lang):
            for report in (ALONE, WITH_ANN, OTHERS):
                text = _said(report)
                assert "agreed" not in text and "%(" not in text, (lang, text)
    with i18n.using("en"):
        assert "(agreed by you)" in _said(ALONE)
        assert "(agreed by Ann and you)" in _said(WITH_ANN)
        assert "(agreed by Ann and Cy)" in _said(OTHERS)


# ----- 2. commands on lines of their own -----


def _pasted(lines: list[str]) -> list[str]:
    """The words of a command said on ``lines``, as a shell reads them pasted."""
    return shlex.split("".join(line[:-1] if line.endswith("\\") else line + "\n"
                               for line in lines))


def _commands(err: str) -> list[list[str]]:
    """Each command said on lines of its own (indented two spaces; its continuation
    lines four) in ``err``, as a shell reads it, without the program's name."""
    out: list[list[str]] = []
    lines = err.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("  ") and not lines[i].startswith("    "):
            j = i + 1
            while lines[j - 1].endswith("\\"):
                j += 1
            out.append(_pasted(lines[i:j])[1:])
            i = j
        else:
            i += 1
    return out


def _prose(err: str) -> str:
    return " ".join(line for line in err.splitlines() if not line.startswith("  "))


@pytest.mark.parametrize("argv, intro, command", [
    (["verify", "--bogus"], "This command shows the usage:", ["verify", "--help"]),
    (["plya"], "This command shows the usage:", ["--help"]),
    (["--rules", "modern", "plya"], "This command lists the verbs:", ["--help"]),
    (["--seed", "3", "rules"], "This command lists its options:", ["rules", "--help"]),
])
def test_a_usage_error_says_the_help_command_on_a_line_of_its_own(
        argv: list[str], intro: str, command: list[str],
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    with i18n.using("en"):
        rc, _out, err = run_main(argv, capsys)
    assert rc == 2, err
    assert "`" not in err and intro in _prose(err), err
    assert _commands(err) == [command], err


def test_an_unknown_id_says_the_games_command_on_a_line_of_its_own(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from test_newcomer_thirtysecond import _saved_game

    data = tmp_path / "my games"
    table = _saved_game(data, ["You", "Bo"])
    mistyped = table.name[:6] + ("0" if table.name[6] != "0" else "1")
    with i18n.using("en"):
        for verb in ("verify", "replay", "resume"):
            rc, _out, err = run_main([verb, mistyped, "--data-dir", str(data)], capsys)
            assert rc == 2 and "`" not in err, err
            assert f"did you mean '{table.name[:8]}'?" in _prose(err), err
            assert "This command lists the saved games:" in _prose(err), err
            assert _commands(err) == [["games", "--data-dir", str(data)]], err


def test_an_unknown_id_with_no_saved_game_says_how_to_play_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """"`millebornes games` lists them (there are none yet)": `games` had nothing more
    to say than "No saved games"."""
    data = tmp_path / "none"
    with i18n.using("en"):
        rc, _out, err = run_main(["verify", "zzz", "--data-dir", str(data)], capsys)
    assert rc == 2 and "`" not in err, err
    assert f"there is no saved game in {data} yet; play one with:" in unfold(err), err
    assert _commands(err) == [["play", "--data-dir", str(data)]], err


def test_a_data_folder_given_for_a_game_says_both_commands_on_lines_of_their_own(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from test_newcomer_thirtysecond import _saved_game

    monkeypatch.setenv("COLUMNS", "60")
    data = tmp_path / "my games"
    _saved_game(data, ["You", "Bo"])
    with i18n.using("en"):
        for verb in ("verify", "replay"):
            rc, _out, err = run_main([verb, str(data)], capsys)
            assert rc == 2 and "`" not in err, err
            assert "the first command below takes its newest, the second lists them " \
                "with their ids:" in unfold(err), err
            assert _commands(err) == [[verb, "--data-dir", str(data)],
                                      ["games", "--data-dir", str(data)]], err


def test_replay_of_a_missing_file_says_the_games_command_on_a_line_of_its_own(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "my games"
    with i18n.using("en"):
        rc, _out, err = run_main(["replay", str(tmp_path / "nope.mbt"), "--data-dir",
                                  str(data)], capsys)
    assert rc == 2 and "`" not in err, err
    assert err.splitlines()[0] == f"millebornes replay: no such file: {tmp_path}/nope.mbt"
    assert _commands(err) == [["games", "--data-dir", str(data)]], err


def test_replay_with_no_finished_hand_says_the_resume_command_on_a_line_of_its_own(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from test_newcomer_thirtysecond import _saved_game

    data = tmp_path / "my games"
    table = _saved_game(data, ["You", "Bo"])
    with i18n.using("en"):
        rc, _out, err = run_main(["replay", "--plain", str(table)], capsys)
    assert rc == 1 and "`" not in err, err
    assert "there is no finished hand to show yet. This command plays on:" in unfold(err)
    assert _commands(err) == [["resume", table.name[:8], "--data-dir", str(data),
                               "--plain"]], err


@pytest.mark.parametrize("make", ["missing", "folder"])
def test_verify_of_no_file_says_the_games_command_on_a_line_of_its_own(
        make: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "my games"
    path = tmp_path / "nothere.mbt"
    if make == "folder":
        path.mkdir()
    with i18n.using("en"):
        rc, _out, err = run_main(["verify", str(path), "--data-dir", str(data)], capsys)
    assert rc == 2 and "`" not in err, err
    assert err.splitlines()[0] == (f"millebornes verify: no such file: {path}" if make ==
                                   "missing" else f"millebornes verify: {path} is not a file")
    assert "This command lists your games, each with its short id:" in unfold(err), err
    assert _commands(err) == [["games", "--data-dir", str(data)]], err


# ----- 3. --auto-bot's default is named as a level -----


@pytest.mark.parametrize("verb", ["play", "host", "join", "resume"])
def test_auto_bots_default_is_named_as_the_level_it_is(
        verb: str, capsys: pytest.CaptureFixture[str]) -> None:
    from engine.bots import LEVELS

    with i18n.using("en"):
        rc, out, _err = run_main([verb, "--help"], capsys)
    flat = " ".join(out.split())
    assert rc == 0 and "--auto-bot SPEC as --auto" in flat, flat
    said = flat.split("--auto-bot SPEC as --auto", 1)[1].split(")", 1)[0]
    assert said.endswith("(default: normal"), said
    assert LEVELS["normal"] == "heuristic"        # the bot --auto plays with


# ----- 4. the helps cut no word -----


def test_the_helps_keep_a_long_program_path_and_a_code_whole(
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import shutil
    import sys
    import tempfile

    from cli import program

    # a path as a player's might be (pytest's tmp_path is longer than a whole line)
    root = Path(tempfile.mkdtemp(prefix="nc34"))
    script = root / "ann" / "src" / "millebornes" / ".venv" / "bin" / "millebornes"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(script)])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("COLUMNS", "60")
    program.program_name.cache_clear()
    typed = shlex.quote(str(script))
    assert len(typed) > 60 - 24           # longer than the help's column
    try:
        with i18n.using("en"):
            for verb in ("resume", "verify", "replay"):
                rc, out, _err = run_main([verb, "--help"], capsys)
                assert rc == 0
                lines = [line.strip() for line in out.splitlines()]
                assert any(f"`{typed} games`" in line for line in lines), (verb, out)
                assert any("ug-Latn" in line for line in lines), (verb, out)
            rc, out, _err = run_main(["play", "--help"], capsys)
            assert any(line.startswith(f"{typed} resume")
                       for line in out.splitlines()), out
    finally:
        program.program_name.cache_clear()
        shutil.rmtree(root)


# ----- 5. the lobby's table line at 60 columns -----


class _Terminal(io.StringIO):
    """What a console writes, kept; a real terminal of ``columns`` (a pseudo-terminal)
    answers the size it asks for."""

    def __init__(self, columns: int) -> None:
        import fcntl
        import struct
        import termios
        super().__init__()
        self.master, self.slave = os.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.slave

    def close(self) -> None:
        os.close(self.master)
        os.close(self.slave)


def test_the_hosts_lobby_wraps_its_table_line_at_the_terminals_width(
        tmp_path: Path) -> None:
    import argparse
    import threading
    import time

    from cli_helpers import free_port

    from cli import host as host_verb

    term = _Terminal(60)
    read_end, keys = os.pipe()
    args = argparse.Namespace(name="Ann", bots=0, players=2, rules="classic", option=[],
                              bind="127.0.0.1", port=free_port(), no_announce=True,
                              data_dir=str(tmp_path / "h"), identity=str(tmp_path / "h.key"),
                              move_limit=60.0, table_name="Sunday games at the cottage")
    rc: list[int] = []

    def host() -> None:
        with os.fdopen(read_end) as inp, i18n.using("en"):
            rc.append(host_verb.run(args, out=term, inp=inp))

    thread = threading.Thread(target=host, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while "Waiting for 1 more player" not in term.getvalue():
            assert time.monotonic() < deadline and thread.is_alive(), term.getvalue()
            time.sleep(0.05)
    finally:
        os.write(keys, b"quit\n")
        thread.join(30)
        os.close(keys)
        term.close()
    lines = term.getvalue().splitlines()
    assert all(i18n.cells(line) <= 60 for line in lines), lines
    said = unfold(term.getvalue())
    assert "(each move: up to 60 s, then the table pauses)" in said, said
    head = next(i for i, line in enumerate(lines) if line.startswith("Table "))
    assert lines[head:head + 2] == [
        "Table 'Sunday games at the cottage': classic rules, 2 seats",
        "(no teams) (each move: up to 60 s, then the table pauses)"], lines
    assert lines[head + 2].startswith("  seat 0: Ann ["), lines


# ----- 6. the small board at a timed move -----


def test_the_small_board_says_a_timed_move_does_not_wait_for_ever() -> None:
    from cli_helpers import SizedOutput
    from prompt_toolkit.input import create_pipe_input

    from cli.app import TableApp
    from cli.driver import LocalDriver
    from engine import Seating, preset

    class TimedTable(LocalDriver):
        """A table whose moves are timed (``host --move-limit 60``), as the network's
        driver says it."""
        decision_limit = 60.0

    with create_pipe_input() as inp, i18n.using("en"):
        d = TimedTable(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
        d.saves_game = True  # type: ignore[misc]
        d.run_others()
        assert d.my_move()
        app = TableApp(d, input=inp, output=SizedOutput(60, 24), delay=0,
                       resume_command="millebornes resume 7a6c0f1e --plain")
        said = unfold("".join(t for _s, t in app._too_small_fragments()))
    assert "waits for you" not in said, said
    assert "your move is timed, up to 60 s, then the table pauses" in said, said
    # an untimed table still waits
    with create_pipe_input() as inp, i18n.using("en"):
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
        d.saves_game = True  # type: ignore[misc]
        d.run_others()
        app = TableApp(d, input=inp, output=SizedOutput(60, 24), delay=0,
                       resume_command="millebornes resume 7a6c0f1e --plain")
        said = unfold("".join(t for _s, t in app._too_small_fragments()))
    assert "the game waits for you meanwhile" in said, said


# ----- 7. the replay's help names the game replayed -----


@pytest.mark.slow            # a match of simulate (7 s on a loaded machine)
def test_the_replays_help_names_the_verify_of_the_game_replayed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    from cli.replay import ReplayApp

    folder = tmp_path / "tx"
    with i18n.using("en"):
        rc, _out, err = run_main(["simulate", "--rules", "modern", "--players", "2",
                                  "--games", "1", "--fair-deck", "--transcript-dir",
                                  str(folder)], capsys)
    assert rc == 0, err
    (path,) = folder.iterdir()
    helps: list[str] = []

    def shown(app: ReplayApp) -> int:        # the screen's help, instead of the screen
        from prompt_toolkit.formatted_text import fragment_list_to_text, to_formatted_text
        from prompt_toolkit.layout.controls import FormattedTextControl
        for window in app.app.layout.find_all_windows():
            control = window.content
            if isinstance(control, FormattedTextControl):
                text = unfold(fragment_list_to_text(to_formatted_text(control.text)))
                if text.startswith("Replay of a game"):
                    helps.append(text)
        return 0
    # the full screen of a terminal: stdin and stdout are one here
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(ReplayApp, "run", shown)
    with i18n.using("en"):
        rc, _out, err = run_main(["replay", str(path)], capsys)
    assert rc == 0, err
    assert f"numbered as the report of this command numbers the entries: millebornes " \
        f"verify {path}" in helps[0], helps


# ----- 8. an option guessed by its letters, not its dashes -----


@pytest.mark.parametrize("argv, guess", [
    (["verify", "--bogus"], None),
    (["play", "--zzzzz"], None),
    (["play", "--bost", "2"], "--bots"),
    (["play", "-bots", "2"], "--bots"),
    (["play", "--plian"], "--plain"),
    (["host", "--move-limt", "3"], "--move-limit"),
    (["simulate", "--matches", "3"], "--games"),
])
def test_a_mistyped_option_is_guessed_by_its_letters(
        argv: list[str], guess: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    with i18n.using("en"):
        rc, _out, err = run_main(argv, capsys)
    assert rc == 2, err
    first = err.splitlines()[0]
    if guess is None:
        assert "did you mean" not in first, first
    else:
        assert first.endswith(f"; did you mean '{guess}'?"), first


# ----- 9. a number of seconds keeps its "s" -----


def test_a_number_of_seconds_keeps_its_unit_on_its_line() -> None:
    text = ("root left; the game is saved. Waiting for root to come back (millebornes "
            "resume on their computer) for up to 20 s, then the table pauses; quit leaves "
            "too, and you can resume later.")
    for width in range(20, 80):
        for line in i18n.wrap(text, width):
            assert not line.startswith("s,") and not line.endswith(" 20"), (width, line)
    assert i18n.wrap("10 sheep in 5 s", 8) == ["10 sheep", "in 5 s"]
    assert i18n.wrap("wait 12 s.", 5) == ["wait", "12 s."]


# ----- 10. games says a bot played one's own seat -----


def test_games_says_a_bot_played_ones_seat_from_a_hand_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from test_newcomer_thirtysecond import _saved_game

    from cli.games import GameFacts
    from p2p.audit import GameReport
    from p2p.transcript.file import VerifyReport

    report = GameReport(ok=True, crypto=VerifyReport(entries_checked=40), complete=True,
                        names=("Ann", "Ben"), totals=(6225, 3375), winner=0,
                        hands=[{"hand": 1, "scores": (1100, 1050), "first_seat": 0}],
                        takeovers=[{"hand": 0, "seat": 0, "runner": 1, "signers": [1]}])
    facts = GameFacts.of(report)
    assert facts.kind == "finished" and facts.taken == ((0, 2, 1),)
    assert GameFacts.from_plain(facts.to_plain()) == facts
    # a record written before takeovers were kept is checked again
    assert GameFacts.from_plain(facts.to_plain()[:6]) is None
    # an edited record: a takeover of no seat of the table, or names that are no list
    for bad in (["finished", ["Ann", "Ben"], 1, 0, -1, 0, [[5, 2, 0]]],
                ["finished", ["Ann", "Ben"], 1, 0, -1, 0, [[0, 2, True]]],
                ["finished", ["Ann", "Ben"], 1, 0, -1, 0, "more"],
                ["finished", 5, 1, 0, -1, 0, [[0, 2, 1]]]):
        assert GameFacts.from_plain(bad) is None, bad

    data = tmp_path / "data"
    table = _saved_game(data, ["You", "Ben"])
    with i18n.using("en"):
        rc, _out, _err = run_main(["games", "--data-dir", str(data)], capsys)
        assert rc == 0
        # what the transcript of a finished game proves, as games keeps it
        record = data / "games-state.json"
        kept = json.loads(record.read_text())
        kept[table.name][1] = facts.to_plain()
        record.write_text(json.dumps(kept))
        rc, out, _err = run_main(["games", "--data-dir", str(data)], capsys)
    lines = out.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith(table.name[:8]))
    assert "finished, you won" in lines[row], out
    assert lines[row + 1].strip() == "from hand 2, a bot run by Ben played your seat", out


# ----- 11. the small board says which keys work while a seat is silent -----


def test_the_small_board_says_b_and_e_wait_for_a_larger_terminal() -> None:
    from cli_helpers import SizedOutput
    from prompt_toolkit.input import create_pipe_input

    from cli.app import KEYS_WHEN_LARGER, TableApp
    from cli.driver import LocalDriver
    from engine import Seating, preset

    class SilentSeat(LocalDriver):
        """A table where Bo's computer went silent (the network driver's word for it):
        the status offers b and e."""

        def silent(self) -> int:
            return 1

    with create_pipe_input() as inp, i18n.using("en"):
        d = SilentSeat(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=5)
        d.saves_game = True  # type: ignore[misc]
        assert not d.my_move()
        app = TableApp(d, input=inp, output=SizedOutput(60, 24), delay=0,
                       resume_command="millebornes resume 7a6c0f1e --plain")
        said = unfold("".join(t for _s, t in app._too_small_fragments()))
        assert unfold(i18n._(KEYS_WHEN_LARGER)) in said, said
