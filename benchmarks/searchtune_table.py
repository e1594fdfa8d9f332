"""The search-tuning runs of benchmarks/searchtune_runs/ as a Markdown table.

    python benchmarks/searchtune_table.py [search5]

With ``search5``, only the runs of branch search5 (those that name the engine commit they
measured, ``code``), with that commit in the first column.

Each run is one ``millebornes tournament --bots SPEC,OPPONENT --deals D --seed S --jobs 1
--json`` (see the file name) with the CPU seconds it took (user time, one core, machine
shared with other work) added as ``cpu_user_s``."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> int:
    here = Path(__file__).parent / "searchtune_runs"
    only_new = sys.argv[1:] == ["search5"]
    print("| search spec | opponent | rules | seed | matches | win share | 95% interval "
          "| points/hand diff | CPU s/match | p50/p95 ms |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    runs = [json.loads(path.read_text())
            for path in sorted(here.glob("*.json"), key=lambda p: p.stat().st_mtime)]
    if only_new:  # by seed, then as measured
        runs = sorted((d for d in runs if "code" in d), key=lambda d: d["seed"])
    for d in runs:
        p, a, b = d["pairs"][0], d["bots"][0], d["bots"][1]
        diff = a["points_per_hand"]["total"] - b["points_per_hand"]["total"]
        t = a.get("decision_seconds", {})
        rules = d["rules"]["preset"] + (f" {d['players']}p" if d["seating"] == "solo"
                                        else f" {d['seating']}")
        name = f"`{p['bot']}`"
        if p["bot"] == "search" and "code" not in d:  # runs from before branch search5
            name = "`search` (old default: 200 playouts, margin 1, discards searched)"
        elif p["bot"] == "search":
            name = "`search` (default of branch searchtune: 400 playouts, margin 2, discards=0)"
        if only_new:
            name = f"{name} @{d['code']}"
        print(f"| {name} | {p['opponent']} | {rules} | {d['seed']} | {p['matches']} "
              f"| {100 * p['win_rate']:.1f}% | {100 * p['ci95'][0]:.1f}–{100 * p['ci95'][1]:.1f}% "
              f"| {diff:+.0f} | {d['cpu_user_s'] / d['matches']:.2f} "
              f"| {1000 * t.get('p50', 0):.0f}/{1000 * t.get('p95', 0):.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
