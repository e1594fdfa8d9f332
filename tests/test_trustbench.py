"""``millebornes bench trust`` (issue 9): every cheat it stages stops every honest peer
with the cheater named, and a peer that dies on its own move stops the table within the
step limit plus the transport's ``gone`` delay. Real peers on 127.0.0.1: hostile suite."""

from __future__ import annotations

import json

import pytest

from p2p.trustbench import CHEATS, cheat_to_stop, run_trust_bench, silence_to_stop

pytestmark = pytest.mark.hostile


@pytest.mark.parametrize("kind", CHEATS)
def test_each_cheat_stops_every_honest_peer_naming_the_cheater(kind: str) -> None:
    r = cheat_to_stop(kind, 3, 0)
    assert r.seconds is not None and r.right_blame, r


def test_a_peer_dead_on_its_own_move_stops_the_table_in_bounded_time() -> None:
    for trial in range(3):      # the dead seat is due to move in most of these runs
        r = silence_to_stop(3, trial, step_limit=2.0)
        assert r.right_blame and r.seconds is not None, r
        assert r.seconds < 2.0 + 5.0 + 3.0, r       # step limit + gone_after + slack


def test_the_bench_reports_every_run_as_json() -> None:
    lines: list[str] = []
    assert run_trust_bench(trials=1, step_limit=2.0, json_out=True, say=lines.append) == 0
    out = json.loads(lines[-1])
    assert {r["kind"] for r in out["runs"]} == {*CHEATS, "silence"}
    assert all(s["all_right"] for s in out["summary"].values())
