"""Screen changes to the heuristic's weights (``W`` in ``engine/_bot_heuristic.py``) by
paired self-play against the shipped heuristic (issue 12, item 1: is the heuristic at a
local optimum of its own rules of thumb?).

    python benchmarks/heuristic_weight_screen.py '{"km_keep": 20.0}' DEALS SEED [RULES]

Each deal is a whole match played twice with the seats swapped (``play_match``, classic 2
players by default), on two processes. Prints the changed bot's share of match wins with a
95% Wilson interval and its points per hand over the shipped bot's, with a 95% interval
over deals (paired: the same cards both ways, so most of the luck cancels). The changed
weights live in a second copy of the module, so both bots run side by side unchanged.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from multiprocessing import Pool
from pathlib import Path
from types import ModuleType
from typing import Any

from engine import Seating
from engine.bots import make_bot
from engine.rules import preset
from engine.simulate import play_match

HEURISTIC = Path(__file__).resolve().parent.parent / "engine" / "_bot_heuristic.py"
_VARIANT: ModuleType | None = None


def variant(changes: dict[str, float]) -> ModuleType:
    """A second copy of the heuristic's module with ``changes`` made to its weights."""
    spec = importlib.util.spec_from_file_location("engine._heuristic_variant", HEURISTIC)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    unknown = set(changes) - set(mod.W)
    if unknown:
        raise SystemExit(f"no such weight: {', '.join(sorted(unknown))}")
    mod.W.update(changes)
    return mod


def deal(args: tuple[dict[str, float], str, int]) -> list[tuple[float, int, int]]:
    """One deal both ways: (changed bot won, its points minus the other's, hands)."""
    global _VARIANT
    changes, rules_name, seed = args
    if _VARIANT is None:
        _VARIANT = variant(changes)
    rules, seating = preset(rules_name), Seating(2, 2)
    out = []
    for changed_seat in (0, 1):
        bots: list[Any] = [make_bot("heuristic", seed), make_bot("heuristic", seed)]
        bots[changed_seat] = _VARIANT.HeuristicBot(seed)
        rec = play_match(rules, seating, bots, seed)
        points = sum(h.scores[changed_seat].total - h.scores[1 - changed_seat].total
                     for h in rec.hands)
        out.append((1.0 if rec.match.winner() == changed_seat else 0.0, points,
                    len(rec.hands)))
    return out


def main() -> None:
    changes = json.loads(sys.argv[1])
    deals, seed0 = int(sys.argv[2]), int(sys.argv[3])
    rules_name = sys.argv[4] if len(sys.argv) > 4 else "classic"
    with Pool(2) as pool:
        results = pool.map(deal, [(changes, rules_name, seed0 + i) for i in range(deals)],
                           chunksize=20)
    matches = [m for pair in results for m in pair]
    n, p = len(matches), sum(m[0] for m in matches) / len(matches)
    z = 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    per = [(a[1] + b[1]) / (a[2] + b[2]) for a, b in results]
    mean = sum(per) / len(per)
    sd = math.sqrt(sum((x - mean) ** 2 for x in per) / (len(per) - 1))
    print(f"{json.dumps(changes)} {rules_name}: {n} matches, win {100 * p:.1f}% "
          f"[{100 * (centre - half):.1f}-{100 * (centre + half):.1f}], pts/hand "
          f"{mean:+.1f} ± {z * sd / math.sqrt(len(per)):.1f}", flush=True)


if __name__ == "__main__":
    main()
