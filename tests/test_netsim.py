"""Every seat a separate OS process over 127.0.0.1 (p2p.netsim, simulate --network)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import TerminalStream

from cli.main import main
from engine import Seating, preset
from p2p.audit import verify_game
from p2p.netsim import percentile, run_network_game


@pytest.mark.slow           # 8-30 s each: six processes on two cores (the default run's
@pytest.mark.parametrize("preset_name", ["modern", "classic"])   # 6 seats: test_fair_game)
def test_six_peer_processes_complete_a_hand(tmp_path: Path, preset_name: str) -> None:
    opts = {"match_target": 1} if preset_name == "classic" else {}
    run = run_network_game(preset(preset_name, **opts), Seating.solo(6),
                           ["heuristic", "random"] * 3, seed=3, work_dir=tmp_path,
                           transcript_dir=tmp_path / "out", timeout=100)
    assert run.ok, (run.errors, run.summary)
    assert len(run.transcripts) == 6 and run.identical and run.verified
    assert all(r["finished"] and r["hands"] >= 1 for r in run.results)  # R15: a tie plays on


def test_simulate_network_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A network simulation shows its progress on a terminal as the others do (each game
    takes seconds: it said nothing until its report)."""
    import sys

    out = tmp_path / "tr"
    term = TerminalStream()
    monkeypatch.setattr(sys, "stderr", term)
    rc = main(["--lang", "en", "simulate", "--network", "--players", "2", "--rules",
               "modern", "--games", "1", "--json", "--transcript-dir", str(out)])
    res = json.loads(capsys.readouterr().out)
    shown = term.text.split("\r")
    assert "0/1 matches: the first is being played" in shown[1], shown
    assert "1/1 matches" in shown[-1] and term.text.endswith("\n"), shown
    assert rc == 0 and res["network"] and not res["failures"] and res["hands"] == 1
    files = sorted(out.iterdir())
    assert len(files) == 2 and files[0].read_bytes() == files[1].read_bytes()
    assert verify_game(files[0]).ok
    assert sum(p["wins"] for p in res["players"]) == 1


def test_percentile() -> None:
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([1.0] * 99 + [9.0], 99) == 1.0 or percentile([1.0] * 99 + [9.0], 99) == 9.0
