"""Bots that think in a child process (issue 12, item 6): same moves as in-process, the parent
free while the child thinks, and a move made even when the child dies."""

from __future__ import annotations

import random
import time

import pytest

from cli.bot_process import BotProcess
from engine import (
    CLASSIC,
    HandState,
    Seating,
    legal_actions,
    make_bot,
    new_hand,
    play_hand,
    view_of,
)


def _deal(seed: int) -> HandState:
    seating = Seating(2, 2)
    order = list(CLASSIC.deck(seating))
    random.Random(seed).shuffle(order)
    return new_hand(CLASSIC, seating, order, 0)


def test_a_bot_in_a_child_process_plays_the_same_moves_as_in_process() -> None:
    seating = Seating(2, 2)
    outside = [BotProcess("heuristic", 7), BotProcess("heuristic", 8)]
    try:
        a = play_hand(CLASSIC, seating, outside, random.Random(3), 0)
    finally:
        for b in outside:
            b.close()
    b = play_hand(CLASSIC, seating, [make_bot("heuristic", 7), make_bot("heuristic", 8)],
                  random.Random(3), 0)
    assert a.actions == b.actions


def test_a_dead_child_is_replaced_and_a_move_is_still_made() -> None:
    state = _deal(2)
    seat = state.seat
    view, legal = view_of(state, seat), legal_actions(state, seat)
    bot = BotProcess("heuristic", 1, answer_within=5.0)
    bot._proc.kill()
    bot._proc.join(5)
    started = time.monotonic()
    assert bot.choose(view, legal) in legal
    assert time.monotonic() - started < 6.0
    bot.close()


def test_the_memory_bound_from_the_environment_takes_plain_digits_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """MILLEBORNES_BOT_MEMORY_MB=² (a digit to str.isdigit, not to int) stopped every bot
    process at its start with int()'s ValueError; now it is the default bound."""
    from cli.bot_process import MEMORY_LIMIT, memory_limit
    for text, limit in (("²", MEMORY_LIMIT), ("9" * 5000, MEMORY_LIMIT), ("", MEMORY_LIMIT),
                        ("512", 512 << 20), ("1", 64 << 20)):
        monkeypatch.setenv("MILLEBORNES_BOT_MEMORY_MB", text)
        assert memory_limit() == limit, text
