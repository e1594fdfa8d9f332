"""One search-tuning run: ``millebornes tournament --bots SPEC,OPPONENT --json`` with the
CPU seconds it took (user time of this process and its workers) added as ``cpu_user_s``,
saved where ``benchmarks/searchtune_table.py`` reads it.

    python benchmarks/searchtune_run.py SPEC OPPONENT SEED DEALS [RULES] [extra tournament args]
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path


def main() -> int:
    spec, opponent, seed, deals = sys.argv[1:5]
    rules = sys.argv[5] if len(sys.argv) > 5 else "classic"
    extra = sys.argv[6:]
    cmd = ["millebornes", "tournament", "--bots", f"{spec},{opponent}", "--deals", deals,
           "--seed", seed, "--rules", rules, "--jobs", "2", "--json", "--quiet", *extra]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    d = json.loads(out)
    d["cpu_user_s"] = usage.ru_utime
    # The commit measured (the last commit of the engine's code).
    d["code"] = subprocess.run(["git", "log", "-1", "--format=%h", "--", "engine"],
                               check=True, capture_output=True, text=True).stdout.strip()
    tag = "" if rules == "classic" else f"_{rules}"
    if "--teams" in extra:
        tag += "_" + extra[extra.index("--teams") + 1]
    safe = spec.replace(":", "_").replace(",", "_").replace("=", "_")
    path = Path(__file__).parent / "searchtune_runs" / f"{safe}__{opponent}__s{seed}_d{deals}{tag}.json"
    path.write_text(json.dumps(d, indent=1))
    p = d["pairs"][0]
    t = d["bots"][0].get("decision_seconds", {})
    print(f"{spec} vs {opponent} {rules} {' '.join(extra)} seed {seed}: {p['matches']} matches "
          f"{100 * p['win_rate']:.1f}% [{100 * p['ci95'][0]:.1f}-{100 * p['ci95'][1]:.1f}] "
          f"cpu {d['cpu_user_s'] / p['matches']:.2f} s/match "
          f"p50/p95 {1000 * t.get('p50', 0):.0f}/{1000 * t.get('p95', 0):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
