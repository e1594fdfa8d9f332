"""A/B wall-time figures of issue 10 (item 3 and 4), two revisions measured in one run.

    python benchmarks/perf_ab.py [--base REV] [--new REV] [--repeat N] [--what LIST] [--json]

Both revisions are exported with ``git archive`` into a temporary folder and byte-compiled
(as an installed package is), then every measurement is run alternately in the base and the
new tree (A B A B ...), so both see the same load on this machine; each figure is the
median (and the minimum) of ``--repeat`` runs, with the ratio new/base.  ``--new`` defaults
to the work tree as it is (uncommitted changes included).

Figures (``--what``, comma-separated, default all):

* ``play``   — ``millebornes play --plain --auto`` (a classic match against one bot, both
  peers with sockets and cryptography): wall seconds and CPU seconds (user+sys, children
  included), and wall milliseconds per entry of its transcript (the deal is random, so
  matches differ in length: per entry compares like with like);
* ``verify`` — ``millebornes verify`` of one classic 2-player transcript (each tree
  verifies the one its own first ``play`` run made: the trees may write different
  transcript versions): wall and CPU seconds;
* ``net4``, ``net6`` — a bot match over loopback with 4 (6) peer processes
  (``p2p.netsim``, as ``millebornes bench net``): wall seconds of the match (process start
  included) and of its first shuffle (from the first key entry sent to the last pass
  applied by every peer), and, since the deck is random and matches differ in length, the
  match's wall seconds per hand (first entry sent to last entry applied) and the process's
  wall milliseconds per entry.

The interpreter is the one running this script (its environment must have the project's
dependencies); the trees are put first on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

NET_SNIPPET = r"""
import json, sys
from engine import Seating, preset
from p2p.netsim import run_network_game
n = int(sys.argv[1])
run = run_network_game(preset("modern"), Seating.solo(n), ["heuristic"] * n, seed=7, game=n,
                       record_times=True)
sent, applied = {}, {}
for r in run.results:
    for h, i, t in r.get("sent", []):
        sent[(h, i)] = t
    for h, i, t in r.get("applied", []):
        applied.setdefault((h, i), []).append(t)
last_pass = 4 * n - 1      # keys, random commits, shuffle commits, then the n passes
done = applied.get((0, last_pass), [])
shuffle = max(done) - sent[(0, 0)] if (0, 0) in sent and len(done) == n else None
# the deck is random, so matches differ in length: per hand (first entry sent to the last
# entry applied, across the peers) compares like with like
first = min(sent.values()) if sent else None
last = max(max(ts) for ts in applied.values()) if applied else None
hands = len({h for h, _ in applied})
per_hand = (last - first) / hands if first is not None and last is not None and hands else None
print(json.dumps({"ok": run.ok, "wall": run.seconds, "shuffle": shuffle, "per_hand": per_hand,
                  "entries": len(applied)}))
"""


def export(rev: str | None, dest: Path) -> Path:
    """The tree of ``rev`` (None: the work tree as it is) in ``dest``, byte-compiled."""
    dest.mkdir(parents=True)
    if rev is None:
        for name in ("cli", "engine", "p2p"):
            shutil.copytree(ROOT / name, dest / name,
                            ignore=shutil.ignore_patterns("__pycache__"))
    else:
        data = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "cli", "engine", "p2p"],
                              check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=data, check=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(dest)], check=True,
                   capture_output=True)
    return dest


def timed(tree: Path, args: list[str], timeout: float = 600) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the child and its children, stdout)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, *args], cwd=tree, env=env, capture_output=True,
                         text=True, timeout=timeout)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if out.returncode != 0:
        raise RuntimeError(f"{args} failed in {tree}: {out.stderr[-2000:]}")
    return wall, cpu, out.stdout


def entries(data_dir: Path) -> int:
    """Signed entries in the transcript of the one game under ``data_dir`` (read as
    msgpack objects: the format version does not matter)."""
    import msgpack

    path = next(p for p in data_dir.glob("*/transcript.mbt"))
    with open(path, "rb") as f:
        return sum(1 for _ in msgpack.Unpacker(f, raw=False)) - 1   # minus the header


def summary(xs: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(xs), 3), "min": round(min(xs), 3),
            "runs": [round(x, 3) for x in xs]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="perf_ab.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="main", help="base revision (default: main)")
    ap.add_argument("--new", default=None, help="new revision (default: the work tree)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--what", default="play,verify,net4,net6")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    what = [w for w in a.what.split(",") if w]
    tmp = Path(tempfile.mkdtemp(prefix="mb-perf-ab-"))
    try:
        trees = {"base": export(a.base, tmp / "base"), "new": export(a.new, tmp / "new")}
        figures: dict[str, dict[str, list[float]]] = {}

        def add(name: str, side: str, value: float | None) -> None:
            if value is not None:
                figures.setdefault(name, {"base": [], "new": []})[side].append(value)

        transcripts: dict[str, Path] = {}
        for i in range(a.repeat):
            for side, tree in trees.items():
                transcript = transcripts.get(side)
                if "play" in what or ("verify" in what and transcript is None):
                    d = tmp / f"play-{side}-{i}"
                    wall, cpu, _ = timed(tree, ["-m", "cli", "play", "--plain", "--auto",
                                                "--seed", str(a.seed), "--data-dir", str(d)])
                    if "play" in what:
                        add("play_wall_s", side, wall)
                        add("play_cpu_s", side, cpu)
                        add("play_wall_ms_per_entry", side, wall * 1000 / entries(d))
                    if transcript is None:
                        found = sorted(p for p in d.glob("*/transcript.mbt"))
                        if found:
                            transcript = transcripts[side] = tmp / f"classic-2p-{side}.mbt"
                            shutil.copy(found[0], transcript)
                if "verify" in what and transcript is not None:
                    wall, cpu, _ = timed(tree, ["-m", "cli", "verify", str(transcript)])
                    add("verify_wall_s", side, wall)
                    add("verify_cpu_s", side, cpu)
                for n in (4, 6):
                    if f"net{n}" in what:
                        _, _, out = timed(tree, ["-c", NET_SNIPPET, str(n)])
                        r = json.loads(out.strip().splitlines()[-1])
                        add(f"net{n}_match_wall_s", side, r["wall"])
                        add(f"net{n}_shuffle_wall_s", side, r["shuffle"])
                        add(f"net{n}_wall_s_per_hand", side, r.get("per_hand"))
                        if r.get("entries"):
                            add(f"net{n}_wall_ms_per_entry", side,
                                r["wall"] * 1000 / r["entries"])
        result: dict[str, Any] = {"base": a.base, "new": a.new or "work tree",
                                  "cores": os.cpu_count(), "repeat": a.repeat, "figures": {}}
        for name, sides in figures.items():
            b, n = summary(sides["base"]), summary(sides["new"])
            result["figures"][name] = {"base": b, "new": n,
                                       "ratio_new_over_base": round(n["median"] / b["median"], 3)
                                       if b["median"] else None}
        if a.json:
            print(json.dumps(result))
        else:
            print(f"base {result['base']} vs new {result['new']}: median (min) of "
                  f"{a.repeat} alternated runs, {result['cores']} cores")
            for name, f in result["figures"].items():
                print(f"  {name:<22} base {f['base']['median']:7.3f} ({f['base']['min']:.3f})"
                      f"  new {f['new']['median']:7.3f} ({f['new']['min']:.3f})"
                      f"  new/base {f['ratio_new_over_base']}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
