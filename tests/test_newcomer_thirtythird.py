"""The thirty-third first-time-player pass: what the thirty-second left, and what a new
player met after it.

1. The player's own `verify` of a game where a bot took a seat said "played by a bot run
   by Ben (agreed by Ben)" on Ben's screen, where the rest of the report says "you" for
   the player's own seat ("waiting for you", "you played first"); so did the seat taken,
   the match ended by agreement and the bot blamed for a cheat.
2. Sentences that held a command a narrow terminal cut: Ctrl-C's "interrupted; the game
   is saved (…/millebornes resume)" (no game id, no --data-dir; and host's and join's
   Ctrl-C in a match said "interrupted" alone, as if nothing was kept; play's before any
   game was made said "the game is saved"), join's "take it again with … resume (…
   games lists …)", the board's too-small notice ("…, and …/millebornes resume --plain
   goes on with it", the newest game of the default folder): each command on lines of
   its own, with the game's id and folder where it is known. So is the play command of
   `games`, `resume`, `verify` and `replay` with no saved game ("Play one with
   `…/millebornes" / "play --data-dir D`.").
3. `verify` of a game of two teams: "ended by a completed trip; You &" / "Cy 1100, Bo &
   Di 650": a team's names cut at the line's end; they stay on one line.
4. `games` with one four-player game: its row was 81 columns, and every game of the list
   went to the stacked layout. The state column is as wide as its widest, and players
   wrap in their column.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import unfold

from cli import i18n

# ----- 1. verify of one's own game: a takeover says "you" of one's own seat -----


def _report(**kw: object):  # type: ignore[no-untyped-def]
    from p2p.audit import GameReport
    from p2p.transcript.file import VerifyReport
    return GameReport(ok=True, crypto=VerifyReport(entries_checked=40), complete=True,
                      names=("Ben", "Ann", "Cy"), totals=(100, 200, 300), winner=2,
                      hands=[{"hand": 0, "scores": (0, 0, 0), "first_seat": 0}], **kw)


def _takeover(said: str) -> str:
    """The report's words after its scores (the scores name every seat)."""
    return said.split("winner: Cy")[-1].split("vainqueur : Cy")[-1]


def test_verify_says_you_of_ones_own_seat_in_a_takeover() -> None:
    """Ben (seat 0) ran the bot that took Cy's seat, and agreed to it alone: his `verify`
    said "a bot run by Ben (agreed by Ben)"."""
    from cli.words import verify_lines
    ran = _report(takeovers=[{"hand": 0, "seat": 2, "runner": 0, "signers": [0]}])
    with i18n.using("en"):
        said = unfold("\n".join(verify_lines(ran, me=0)))
        assert ("from hand 2, Cy's seat was played by a bot run by you (agreed by you)"
                in said), said
        assert "Ben" not in _takeover(said), said
        # a transcript of no seat of this screen's: the names as written
        said = unfold("\n".join(verify_lines(ran)))
        assert "run by Ben (agreed by Ben)" in said, said
        two = _report(takeovers=[{"hand": 0, "seat": 2, "runner": 0, "signers": [1, 0]}])
        said = unfold("\n".join(verify_lines(two, me=0)))
        assert "run by you (agreed by Ann and you)" in said, said
        # Ben's own seat taken, and Ben's match ended by the others
        taken = _report(takeovers=[{"hand": 0, "seat": 0, "runner": 1, "signers": [1, 2]}],
                        ended_by_agreement={"hand": 2, "seat": 0, "signers": [1, 2]})
        said = unfold("\n".join(verify_lines(taken, me=0)))
        assert ("from hand 2, your seat was played by a bot run by Ann (agreed by Ann and "
                "Cy)") in said, said
        assert "by Ann and Cy, saying you had left" in said, said
        assert "Ben" not in _takeover(said), said
    with i18n.using("fr"):
        said = unfold("\n".join(verify_lines(ran, me=0)))
        assert "Ben" not in _takeover(said) and "vous" in _takeover(said), said
        said = unfold("\n".join(verify_lines(taken, me=0)))
        assert "Ben" not in _takeover(said) and "votre place" in said, said


def test_verify_says_you_ran_the_bot_it_blames() -> None:
    """A bot Ben ran broke the rules: "(from hand 2, that seat was played by a bot run by
    Ben)" on Ben's screen."""
    from cli.words import verify_lines
    from p2p.audit import GameReport
    from p2p.transcript.file import VerifyReport
    bad = GameReport(ok=False, crypto=VerifyReport(entries_checked=40, ok=False),
                     names=("Ben", "Ann", "Cy"), failed_index=30, check="bad-share",
                     blamed_seat=2,
                     takeovers=[{"hand": 0, "seat": 2, "runner": 0, "signers": [0, 1]}])
    with i18n.using("en"):
        said = unfold("\n".join(verify_lines(bad, me=0)))
    assert "that seat was played by a bot run by you)" in said and "Ben" not in said, said


# ----- 2. commands said on lines of their own -----


def _pasted(lines: list[str]) -> list[str]:
    """The words of a command said on ``lines``, as a shell reads them pasted (a
    backslash at a line's end joins the next line to it)."""
    return "".join(line[:-1] if line.endswith("\\") else line + "\n"
                   for line in lines).split()


def test_ctrl_c_in_resume_names_the_game_and_its_folder_on_a_line_of_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C while `resume 7a6c… --data-dir D` started said "interrupted; the game is
    saved (…/millebornes resume)": no id, no --data-dir (the newest game of the default
    folder, or none), and a narrow terminal cut the command inside its sentence."""
    from test_newcomer_thirtysecond import _saved_game

    from cli import resume
    from cli.main import main

    data = tmp_path / "data"
    table = _saved_game(data, ["You", "Bo"])

    def ctrl_c(path: object) -> None:
        raise KeyboardInterrupt
    monkeypatch.setattr(resume, "remembered_identity", ctrl_c)
    monkeypatch.setenv("COLUMNS", "40")
    assert main(["resume", table.name[:8], "--data-dir", str(data), "--plain"]) == 130
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines[0] == "interrupted; the game is saved. Come back to it with:", err
    command = _pasted(lines[1:])
    assert command[1:] == ["resume", table.name[:8], "--data-dir", str(data), "--plain"], err
    # one command, pasted whole: each of its lines but the last continued
    assert lines[1].startswith("  ") and all(line.endswith("\\") for line in lines[1:-1]), err


def test_the_small_screen_says_its_command_on_lines_of_its_own() -> None:
    """At 40 columns: "q leaves; the game is saved, and …/millebornes" / "resume --plain
    goes on with it": the command cut inside its sentence, and without the game's id or
    folder (the newest game of the default folder was another)."""
    from cli_helpers import SizedOutput
    from prompt_toolkit.input import create_pipe_input

    from cli.app import TableApp
    from cli.driver import LocalDriver
    from engine import Seating, preset

    command = "millebornes resume 7a6c0f1e --data-dir /tmp/games --plain"
    with create_pipe_input() as inp, i18n.using("en"):
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
        d.saves_game = True  # type: ignore[misc]
        d.run_others()
        app = TableApp(d, input=inp, output=SizedOutput(40, 24), delay=0,
                       resume_command=command)
        assert app.too_small()
        lines = "".join(t for _s, t in app._too_small_fragments()).splitlines()
    said = [line for line in lines if line.startswith("  ")]
    assert _pasted(said) == command.split(), lines
    prose = " ".join(line for line in lines if not line.startswith("  "))
    assert "resume" not in prose and "this command goes on with it" in prose, lines
    assert all(i18n.cells(line) <= 40 for line in lines), lines


def test_join_of_a_running_match_says_each_command_on_a_line_of_its_own() -> None:
    """"the table at … is playing a match where you have a seat: take it again with
    …/millebornes resume (…/millebornes games lists your saved games)": a narrow terminal
    cut each command in two inside the sentence."""
    from cli.program import as_typed
    from cli.words import lobby_error_line

    typed_program = as_typed("millebornes")
    with i18n.using("en"):
        said = lobby_error_line("match-running", {"endpoint": "tcp://10.0.0.5:4000"}, "")
    lines = said.split("\n")
    assert lines[1:] == [f"  {typed_program} resume", f"  {typed_program} games"], lines
    assert "millebornes" not in lines[0], lines


# ----- 3. verify keeps a team's names on one line -----


def test_verify_keeps_a_teams_names_on_one_line() -> None:
    """`verify` of `play --teams 2x2 --rules modern`: "hand 1: you played first, 51 turns,
    ended by a completed trip; You &" / "Cy 1100, Bo & Di 650"."""
    from cli.words import verify_lines
    from p2p.audit import GameReport
    from p2p.transcript.file import VerifyReport

    report = GameReport(ok=True, crypto=VerifyReport(entries_checked=430), complete=True,
                        names=("You", "Bo", "Cy", "Di"), totals=(1100, 650), winner=0,
                        hands=[{"hand": 0, "scores": (1100, 650), "first_seat": 0,
                                "turns": 51, "end": "trip"}])
    with i18n.using("en"):
        lines = [i18n.display(line) for line in verify_lines(report, me=0)]
    for line in lines:
        assert not line.rstrip().endswith("&") and not line.lstrip().startswith("&"), lines
    assert any("You & Cy 1100" in line for line in lines), lines


# ----- 4. games: a four-player game keeps the table -----


def test_games_keeps_its_table_with_a_four_player_game(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`games` with a game of four (`play --teams 2x2`): its row, "You*, Bo, Cy, Di", was
    81 columns, and every game of the list went to the stacked layout, without the
    header. The players wrap in their column."""
    from cli.main import main
    from engine import Seating, preset
    from p2p.table.memory import make_table
    from p2p.table.store import Store

    data = tmp_path / "data"
    for n, names in ((4, ["You", "Bo", "Cy", "Di"]), (2, ["You", "Bo"]),
                     (6, ["You", "Bo", "Cy", "Di", "Ed", "Fa"])):
        cfg, _ids = make_table(preset("classic"), Seating(n, 2 if n == 4 else n), names,
                               b"newcomer-33/%d" % n)
        Store.create(data, cfg.header(), 0, port=0).close()
    with i18n.using("en"):
        assert main(["games", "--data-dir", str(data)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["id", "date", "rules", "state", "players"], lines
    assert all(i18n.cells(line) <= 80 for line in lines), lines
    column = lines[0].index("players")
    said = " ".join(line[column:].strip() for line in lines[1:]
                    if line[:column].strip() == "" or line[:8].isalnum())
    for names in ("You*, Bo, Cy, Di", "You*, Bo", "You*, Bo, Cy, Di, Ed, Fa"):
        assert names in said, lines
    # the game of four on its one line
    assert any(line.endswith("  You*, Bo, Cy, Di") for line in lines), lines


@pytest.mark.parametrize("verb", ["host", "join"])
def test_ctrl_c_in_a_hosted_match_names_the_game(
        verb: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """host and join play with a copy of their options (every default filled in): the
    copy was told the game was saved, main's options never were, and Ctrl-C in the match
    said "interrupted" alone, as if nothing was kept."""
    import importlib
    from types import SimpleNamespace

    from cli import seats
    from cli.args import VERB_MODULES, with_defaults
    from engine import Seating, preset
    from p2p.table.memory import make_table

    cfg, _ids = make_table(preset("classic"), Seating(2, 2), ["You", "Bo"], b"newcomer-33")
    data = tmp_path / "data"

    def stop(args: object) -> int:
        full = with_defaults(verb, args)  # type: ignore[arg-type]
        start = SimpleNamespace(cfg=cfg, seat=0, endpoints={}, alternatives={}, bots=[1])
        seats.my_store(start, SimpleNamespace(port=1), full).close()  # type: ignore[arg-type]
        raise KeyboardInterrupt
    monkeypatch.setattr(importlib.import_module(f"cli.{VERB_MODULES[verb]}"), "run", stop)
    with i18n.using("en"):
        assert main_of([verb, "--data-dir", str(data)]) == 130
    err = capsys.readouterr().err
    short = [p.name[:8] for p in data.iterdir() if p.is_dir() and len(p.name) > 16]
    assert err.startswith("interrupted; the game is saved. Come back to it with:\n"), err
    command = _pasted(err.splitlines()[1:])
    assert command[1:] == ["resume", short[0], "--data-dir", str(data)], err


def main_of(argv: list[str]) -> int:
    from cli.main import main
    return main(argv)


def test_no_saved_game_says_the_play_command_on_lines_of_its_own(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """At 50 columns: "No saved games in D. Play one" / "with `…/millebornes" / "play
    --data-dir D`." (and resume's, and verify's and replay's refusal): the command cut
    inside its sentence, before its --data-dir. It goes on lines of its own."""
    from cli.main import main

    data = tmp_path / "none"
    with i18n.using("en"):
        assert main(["games", "--data-dir", str(data)]) == 0
        out = capsys.readouterr().out
        for verb in ("resume", "verify", "replay"):
            assert main([verb, "--data-dir", str(data)]) == 2
            err = capsys.readouterr().err
            lines = err.splitlines()
            assert lines[0].endswith("with:"), (verb, err)
            assert _pasted(lines[1:])[1:] == ["play", "--data-dir", str(data)], (verb, err)
    lines = out.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("  "))
    assert lines[first - 1].endswith("with:") and "`" not in out, out
    assert _pasted(lines[first:])[1:] == ["play", "--data-dir", str(data)], out
