"""Memory and time of ``millebornes verify`` on crafted and honest transcripts.

Crafted files (``--craft``): an honest two-seat game's first entries, then entries signed
with the players' real keys, each linked to the one before, with bodies as dense in tiny
values as an envelope may be (:func:`p2p.testing.craft_dense_transcript`): every signature
and link checks out, and no protocol step allows a body. Each measurement runs in a
fresh process: ``verify_game`` under tracemalloc (traced peak) and without it (time and
the process's max RSS).

    python benchmarks/verify_memory.py --craft /tmp/vm 16 128
    python benchmarks/verify_memory.py /tmp/vm/dense-16.mbt /tmp/vm/dense-128.mbt GAME.mbt

The measuring half imports only ``p2p.audit.verify_game``, so the files can be measured
with another checkout's interpreter too (its ``p2p`` on the path): before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

_MEASURE = r"""
import json, resource, sys, time, tracemalloc
from p2p.audit import verify_game
path, traced = sys.argv[1], sys.argv[2] == "1"
if traced:
    tracemalloc.start()
t0 = time.perf_counter()
rep = verify_game(path)
dt = time.perf_counter() - t0
peak = tracemalloc.get_traced_memory()[1] if traced else None
print(json.dumps({"ok": rep.ok, "check": rep.check, "blamed": rep.blamed_seat,
                  "index": rep.failed_index, "seconds": round(dt, 2),
                  "traced_peak_mb": None if peak is None else round(peak / 2**20, 1),
                  "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
"""


def measure(path: str, python: str) -> dict[str, object]:
    out: dict[str, object] = {"file": path, "mb": round(os.path.getsize(path) / 2**20, 1)}
    for traced in ("1", "0"):
        r = subprocess.run([python, "-c", _MEASURE, path, traced], capture_output=True, cwd="/",
                           text=True, check=True)
        res = json.loads(r.stdout.strip().splitlines()[-1])
        if traced == "1":
            out.update(verdict=(res["ok"], res["check"], res["blamed"], res["index"]),
                       traced_peak_mb=res["traced_peak_mb"])
        else:
            out.update(seconds=res["seconds"], max_rss_mb=res["max_rss_mb"])
    return out


def craft(folder: Path, sizes_mb: list[int]) -> list[Path]:
    from engine import Seating, preset
    from engine.bots import make_bot
    from p2p.table.memory import make_table, play_fair_match
    from p2p.testing import craft_dense_transcript, seeded_entropy

    folder.mkdir(parents=True, exist_ok=True)
    honest = folder / "honest-two.mbt"
    with seeded_entropy(b"verify-memory"):
        cfg, ids = make_table(preset("modern"), Seating(2, 2), ["ann", "mal"], b"verify-memory")
        if not honest.exists():
            play_fair_match(cfg, ids, [make_bot("heuristic", s).choose for s in range(2)],
                            transcript=honest)
    paths = []
    for mb in sizes_mb:
        p = folder / f"dense-{mb}.mbt"
        t0 = time.perf_counter()
        n = craft_dense_transcript(honest, p, list(ids), mb << 20)
        print(f"{p}: {n} crafted entries, {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        paths.append(p)
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--craft", metavar="DIR", help="write dense-<MB>.mbt files there")
    ap.add_argument("--python", default=sys.executable, help="interpreter that measures")
    ap.add_argument("args", nargs="*", help="sizes in MB (--craft) or files to measure")
    a = ap.parse_args()
    if a.craft:
        for p in craft(Path(a.craft), [int(x) for x in a.args]):
            print(p)
        return
    for f in a.args:
        print(json.dumps(measure(f, a.python)), flush=True)


if __name__ == "__main__":
    main()
