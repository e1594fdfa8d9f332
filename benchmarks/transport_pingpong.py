"""Round trip between two processes over two real transport Nodes (CURVE on by default).

    python benchmarks/transport_pingpong.py [--rounds N] [--plain] [--tree PATH ...]

Each tree (default: this checkout) is measured in turn, alternately, ``--repeat`` times:
a child process echoes every payload back; the parent times ``send`` + ``recv`` of a
300-byte payload. Prints p50, p90 and the mean in milliseconds per tree. Used for the
transport's send path (docs/network.md, "Threading"): two trees exported with
``git archive`` can be compared in one run, e.g. ``--tree /tmp/old --tree .``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import os, sys, time, statistics
from p2p.crypto.identity import Identity
from cli.seats import listen
secure = sys.argv[1] == "1"
n = int(sys.argv[2])
a_id, b_id = Identity.generate(), Identity.generate()
r, w = os.pipe()
r2, w2 = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    b = listen(b_id, "127.0.0.1", 0, secure=secure)
    os.write(w, (b.endpoint + " " + b.node_id.hex()).encode())
    os.close(w)
    a_node, a_ep = os.read(r2, 1000).split(b" ")
    a_node = bytes.fromhex(a_node.decode())
    if secure:
        b.expect_key(a_node, a_id.curve_keys().public)
    b.add_peer(a_node, a_ep.decode())
    b.send(a_node, b"ok")
    for _ in range(n):
        m = b.recv(10)
        if m is None:
            break
        b.send(a_node, m[1])
    time.sleep(0.3)
    b.close()
    os._exit(0)
os.close(w)
ep_b, bid = os.read(r, 1000).decode().split(" ")
bid = bytes.fromhex(bid)
a = listen(a_id, "127.0.0.1", 0, secure=secure)
if secure:
    a.expect_key(bid, b_id.curve_keys().public)
a.add_peer(bid, ep_b)
os.write(w2, (a.node_id.hex() + " " + a.endpoint).encode())
assert a.recv(10)[1] == b"ok"
ts = []
for i in range(n):
    t0 = time.perf_counter()
    a.send(bid, b"x" * 300)
    got = a.recv(10)
    assert got is not None
    ts.append(time.perf_counter() - t0)
ts = sorted(ts[20:])
print(statistics.median(ts) * 1e3, ts[int(len(ts) * 0.9)] * 1e3, statistics.mean(ts) * 1e3)
a.close()
os.waitpid(pid, 0)
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--plain", action="store_true", help="without CURVE")
    ap.add_argument("--tree", action="append", default=None)
    a = ap.parse_args()
    trees = [Path(t).resolve() for t in (a.tree or [str(Path(__file__).resolve().parent.parent)])]
    runs: dict[Path, list[list[float]]] = {t: [] for t in trees}
    for _ in range(a.repeat):
        for t in trees:
            env = {**os.environ, "PYTHONPATH": str(t)}
            out = subprocess.run([sys.executable, "-c", CHILD, "0" if a.plain else "1",
                                  str(a.rounds)], cwd=t, env=env, capture_output=True,
                                 text=True, check=True, timeout=120).stdout
            runs[t].append([float(x) for x in out.split()])
    for t, rs in runs.items():
        p50 = statistics.median(r[0] for r in rs)
        p90 = statistics.median(r[1] for r in rs)
        mean = statistics.median(r[2] for r in rs)
        print(f"{t}: round trip p50 {p50:.3f} ms, p90 {p90:.3f} ms, mean {mean:.3f} ms "
              f"(median of {len(rs)} runs of {a.rounds})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
