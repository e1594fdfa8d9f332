"""``millebornes bench``: measured figures, never assertions."""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from typing import Any

import engine.game
from engine import CLASSIC, MODERN, RandomBot, Rules, Seating, play_hand
from engine.bots import random_hand
from p2p.deck.bench import run as deck_bench
from p2p.netsim import run_net_bench
from p2p.trustbench import run_trust_bench


def engine_build() -> str:
    """Which engine is imported: ``compiled`` (the optional mypyc build, see setup.py) or
    ``pure`` Python, so that a figure says which one it measured."""
    return "pure" if (engine.game.__file__ or "").endswith(".py") else "compiled"


def _hands_per_cpu_second(play: Callable[[int], int], seconds: float) -> dict[str, Any]:
    """Call ``play(hand number)`` (it returns the hand's number of moves) until ``seconds``
    of CPU are spent (and at least 5 hands)."""
    hands = actions = 0
    start = time.process_time()
    while True:
        actions += play(hands)
        hands += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds and hands >= 5:
            break
    return {"hands": hands, "cpu_seconds": round(elapsed, 3),
            "hands_per_second": round(hands / elapsed, 1),
            "actions_per_second": round(actions / elapsed, 1)}


def engine_hands_per_second(rules: Rules, seating: Seating, seconds: float,
                            seed: int = 1) -> dict[str, Any]:
    """Complete random-bot hands, one core, until ``seconds`` of CPU are spent."""
    dealer = random.Random(seed)
    bots = [RandomBot(seed + s) for s in range(seating.n_players)]
    return _hands_per_cpu_second(
        lambda k: len(play_hand(rules, seating, bots, dealer, k % seating.n_players).actions),
        seconds)


def fast_path_hands_per_second(rules: Rules, seating: Seating, seconds: float,
                               seed: int = 1) -> dict[str, Any]:
    """The same random hands as :func:`engine_hands_per_second` (same deals, same moves)
    played through the search bot's rollout fast path (``engine._rollout_sim``), which
    changes one state in place where the engine builds a new state (and a view) per move:
    how fast the search bot can think, next to how fast the engine plays."""
    dealer = random.Random(seed)
    rngs = [random.Random(seed + s) for s in range(seating.n_players)]
    return _hands_per_cpu_second(
        lambda k: random_hand(rules, seating, rngs, dealer, k % seating.n_players)[1], seconds)


def run(args: argparse.Namespace) -> int:
    if args.what == "deck":
        deck_bench(args.json)
        return 0
    if args.what == "net":
        run_net_bench(args.json)
        return 0
    if args.what == "trust":
        return run_trust_bench(trials=max(1, args.trials), json_out=args.json)
    results: dict[str, Any] = {
        "classic_2p": engine_hands_per_second(CLASSIC, Seating.solo(2), args.seconds),
        "modern_4p": engine_hands_per_second(MODERN, Seating.solo(4), args.seconds),
        "classic_2p_fast_path": fast_path_hands_per_second(CLASSIC, Seating.solo(2),
                                                           args.seconds),
    }
    build = engine_build()
    if args.json:
        print(json.dumps({**results, "engine_build": build}))
    else:
        print(f"engine: {build}")
        for name, r in results.items():
            # within 80 columns (the two-space gaps and "N hands," ran to 83)
            print(f"{name:<20} {r['hands_per_second']:>8} hands/s "
                  f"{r['actions_per_second']:>9} actions/s ({r['hands']} in "
                  f"{r['cpu_seconds']} s CPU)")
    return 0
