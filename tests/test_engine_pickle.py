"""Engine values cross process boundaries by pickle: a bot in a process of its own gets
its view so (``engine.bot_process``), and tournament workers get the rules. The
mypyc-compiled engine (README) failed to restore a frozen dataclass (FrozenInstanceError),
so every such bot ended at its first move: these run on it in CI's compiled stage."""

from __future__ import annotations

import pickle
import random

import pytest

from engine import CLASSIC, Seating, apply_action, legal_actions, new_hand, preset, view_of


@pytest.mark.parametrize("value", [
    CLASSIC, preset("modern", match_target=1), preset("classic", draw_discard=True),
    Seating.solo(2), Seating.parse(4, "2x2"), Seating.parse(6, "3x2"),
])
def test_rules_and_seatings_come_back_from_pickle_equal(value: object) -> None:
    assert pickle.loads(pickle.dumps(value)) == value


def test_a_seats_view_comes_back_from_pickle_equal() -> None:
    seating = Seating.solo(2)
    order = list(CLASSIC.deck(seating))
    random.Random(5).shuffle(order)
    state = new_hand(CLASSIC, seating, order, 0)
    state = apply_action(state, legal_actions(state, 0)[0])
    view = view_of(state, 0)
    back = pickle.loads(pickle.dumps(view))
    assert back == view and back.digest() == view.digest()
