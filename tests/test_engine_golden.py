"""Golden games: a recorded deck order and action list must replay to the recorded digest.

These pin the engine's behaviour across versions and machines (determinism, R1–R15): a
change that alters any rule outcome or the state encoding shows up here. Regenerate a file
only for a deliberate rule change, and say so in the commit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import engine as e
from engine.scoring import score_hand
from engine.simulate import replay_hand

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_game_replays_to_the_recorded_digest(path: Path) -> None:
    data = json.loads(path.read_text())
    rules = e.Rules.from_dict(data["rules"])
    seating = e.Seating(*data["seating"])
    actions = [e.action_from_data(a) for a in data["actions"]]
    final = replay_hand(rules, seating, data["deck_order"], data["first_seat"], actions)
    assert final.over
    assert final.end_reason == data["end_reason"]
    assert [s.total for s in score_hand(final)] == data["scores"]
    assert final.digest() == data["final_digest"]


def test_golden_files_exist() -> None:
    assert len(GOLDEN) >= 4
