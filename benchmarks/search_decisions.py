"""The search bot's thinking time at its default budget, and a digest of what it played.

    PYTHONPATH=TREE python benchmarks/search_decisions.py HANDS [SEED] [c2|m2|f2|c22]

Plays ``HANDS`` hands of the search bot (seat 0, seed 0) against heuristic-v1 (classic or
modern 2 players, modern with O-fast-play, or classic 2x2 teams) and prints, as JSON, the
searched decisions' p50 and p95 wall milliseconds, rollouts per second of search and CPU
seconds in all, and a digest of every action of every hand. Run it with two trees on
``PYTHONPATH`` (``git archive REV | tar -x -C DIR``) to compare them: equal digests mean the
search chose the same moves (the fast path must never change a decision), the times say
how much faster it chose them. Pure Python only; one core.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import time

import engine.game
from engine import CLASSIC, MODERN, Seating
from engine.bots import make_bot
from engine.simulate import play_hand


def main() -> int:
    assert (engine.game.__file__ or "").endswith(".py"), "a compiled engine: measure the pure one"
    hands = int(sys.argv[1])
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    conf = sys.argv[3] if len(sys.argv) > 3 else "c2"
    rules = {"c": CLASSIC, "m": MODERN, "f": MODERN.with_options(fast_play=True)}[conf[0]]
    seating = Seating(4, 2) if conf[1:] == "22" else Seating.solo(int(conf[1:]))
    search = make_bot("search", 0)
    bots = [search] + [make_bot("heuristic-v1", s) for s in range(1, seating.n_players)]
    dealer = random.Random(seed)
    digest = hashlib.sha256()
    start = time.process_time()
    for i in range(hands):
        rec = play_hand(rules, seating, bots, dealer, i % seating.n_players)
        digest.update(repr(rec.actions).encode())
    cpu = time.process_time() - start
    times = sorted(search.decision_seconds)
    rollouts = sum(r for r, _ in search.decision_rollouts)

    def ms(q: float) -> float:
        return round(times[min(len(times) - 1, int(q * len(times)))] * 1000, 2)

    print(json.dumps({"decisions": len(times), "p50_ms": ms(0.5), "p95_ms": ms(0.95),
                      "rollouts_per_s": round(rollouts / sum(times), 1),
                      "cpu_s": round(cpu, 2), "digest": digest.hexdigest()[:16]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
