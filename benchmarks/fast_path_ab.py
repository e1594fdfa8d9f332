"""Issue 12 item 2: the engine of a base revision, today's engine and the rollout fast path,
measured side by side in one run on the same random 2-player classic hands.

    python benchmarks/fast_path_ab.py [--base REV] [--rounds N] [--seconds S]

The base revision (default ``1bd48d0``, the issue's yardstick) is exported with ``git
archive`` into a temporary folder. Each round runs, in a rotated order so that every
figure sees every slot of the machine's load: the base tree's engine, this tree's engine
(both ``play_hand`` with random bots, as ``millebornes bench engine``) and this tree's fast
path (``engine.bots.random_hand``: the same hands). Each run is a fresh pure-Python
interpreter measuring CPU seconds for ``--seconds``; the figures are the medians over the
rounds and their ratios to the base engine. One core at a time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

SNIPPET = r'''
import json, random, sys, time
from engine import CLASSIC, Seating
from engine.bots import RandomBot
from engine.simulate import play_hand
import engine.game
assert engine.game.__file__.endswith(".py"), "a compiled engine: measure the pure one"
seconds, fast = float(sys.argv[1]), sys.argv[2] == "fast"
rules, seating, seed = CLASSIC, Seating.solo(2), 1
dealer = random.Random(seed)
if fast:
    from engine.bots import random_hand
    rngs = [random.Random(seed + s) for s in range(2)]
    hand = lambda i: random_hand(rules, seating, rngs, dealer, i % 2)[1]
else:
    bots = [RandomBot(seed + s) for s in range(2)]
    hand = lambda i: len(play_hand(rules, seating, bots, dealer, i % 2).actions)
hands = actions = 0
start = time.process_time()
while True:
    actions += hand(hands)
    hands += 1
    elapsed = time.process_time() - start
    if elapsed >= seconds and hands >= 5:
        break
print(json.dumps({"hands_per_second": hands / elapsed, "actions_per_second": actions / elapsed}))
'''


def measure(tree: Path, fast: bool, seconds: float) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", SNIPPET, str(seconds),
                          "fast" if fast else "engine"], env=env, cwd=tree,
                         capture_output=True, text=True, check=True).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", default="1bd48d0")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        archive = subprocess.run(["git", "-C", str(HERE), "archive", args.base],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        runs = {f"engine {args.base}": (base, False), "engine now": (HERE, False),
                "fast path now": (HERE, True)}
        names = list(runs)
        results: dict[str, list[dict[str, float]]] = {name: [] for name in names}
        for i in range(args.rounds):
            k = i % len(names)
            for name in names[k:] + names[:k]:
                tree, fast = runs[name]
                results[name].append(measure(tree, fast, args.seconds))
                print(f"round {i + 1}: {name:<16} "
                      f"{results[name][-1]['hands_per_second']:8.1f} hands/s", flush=True)
    medians = {name: {key: statistics.median(r[key] for r in results[name])
                      for key in ("hands_per_second", "actions_per_second")} for name in names}
    base_hps = medians[names[0]]["hands_per_second"]
    print(f"random 2-player classic hands, median of {args.rounds} x {args.seconds} s CPU:")
    for name in names:
        hps = medians[name]["hands_per_second"]
        print(f"  {name:<16} {hps:8.1f} hands/s  {medians[name]['actions_per_second']:9.0f} "
              f"actions/s  x{hps / base_hps:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
