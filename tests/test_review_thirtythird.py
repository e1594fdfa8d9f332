"""Review of pass 33 (newcomer33's commands): commands said to the player that did not
work as typed.

1. ``games``' footer: "each followed by --data-dir '…/my saved games'" was wrapped inside
   the quoted folder ("…'a somewhat longer name" / "for my saved games here'"): copied
   from the screen, the folder was another.
2. ``join`` of a table playing a match where this key has a seat: "Take your seat again
   with …/millebornes resume": no --data-dir of the player's own, so resume looked in the
   default folder (no saved game there, or another game).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from cli import i18n


def test_games_keeps_its_data_dir_flag_whole_in_the_footer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main
    from engine import Seating, preset
    from p2p.table.memory import make_table
    from p2p.table.store import Store

    monkeypatch.chdir(tmp_path)
    folder = "a somewhat longer name for my saved games here"
    cfg, _ids = make_table(preset("classic"), Seating(2, 2), ["You", "Bo"], b"review-33")
    Store.create(Path(folder), cfg.header(), 0, port=0).close()
    with i18n.using("en"):
        assert main(["games", "--data-dir", folder]) == 0
    lines = capsys.readouterr().out.splitlines()
    flag = f"--data-dir {shlex.quote(folder)}"
    assert any(flag in line for line in lines), lines
    assert all(i18n.cells(line) <= 80 for line in lines), lines


def test_join_of_a_running_match_names_the_players_data_dir() -> None:
    from cli.program import as_typed
    from cli.words import lobby_error_line

    prog = as_typed("millebornes")
    with i18n.using("en"):
        said = lobby_error_line("match-running", {
            "endpoint": "tcp://10.0.0.5:4000",
            "resume_flags": " --data-dir /srv/mb --auto", "games_flags": " --data-dir /srv/mb"},
            "")
    lines = said.split("\n")
    assert lines[1:] == [f"  {prog} resume --data-dir /srv/mb --auto",
                         f"  {prog} games --data-dir /srv/mb"], lines
