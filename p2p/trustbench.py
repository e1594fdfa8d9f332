"""How fast a cheat or a silence stops a table (issue 9): ``millebornes bench trust``.

Real peers (:class:`p2p.table.Peer`, each with its own ZeroMQ node and store on 127.0.0.1,
heuristic bots at the controls), one of them hostile:

* **cheats** (the last seat rewrites one of its own bodies before signing it, through the
  peer's ``tamper`` hook): a decryption share with a spoiled proof sent to one peer only
  (only that peer can see it: the complaint path), a shuffle pass that copies dealt cards
  into the pile (the proof of shuffle fails at every peer), a card it holds played where the
  rules refuse it;
  measured from the moment the cheat is signed to the moment *every* honest peer has
  stopped, and each honest peer must blame the cheater (else the run is reported as wrong);
* **silence** (the last seat's process "dies": it stops pumping and closes its node in
  the middle of a hand): measured from that moment to every honest peer stopped with the
  silent seat named unresponsive, next to the table's step limit.

The figures are wall-clock seconds on this machine, for the closing notes of issue 9
(goal: a cheat stops every honest peer in < 1 s on loopback; a silence ends within the step
limit plus a little).
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from engine import Seating, preset
from engine.actions import Play, action_to_data
from p2p.table.memory import make_table
from p2p.table.session import Peer, SessionOptions
from p2p.testing import socket_peers

Body = dict[str, Any]
CHEATS = ("bad-share-to-one", "bad-shuffle", "illegal-move")


@dataclass(frozen=True)
class StopTime:
    """One run: what was done, how long until every honest peer stopped, and whether
    each of them named the right seat."""
    kind: str
    peers: int
    seconds: float | None        # None: some honest peer never stopped within the bound
    right_blame: bool
    detail: str


def _tamper(kind: str, cheater: Peer, mark: list[float]) -> Callable[[int, Body], Body]:
    """The cheater's body rewrite; ``mark`` gets the time the cheat was made."""
    def tamper(hand: int, body: Body) -> Body:
        if mark:
            return body
        k = body.get("k")
        if kind == "bad-share-to-one" and k == "deck.share" and body.get("to") == 0:
            proof = bytearray(body["proof"])
            proof[3] ^= 1
            mark.append(time.monotonic())
            return {**body, "proof": bytes(proof)}
        if kind == "bad-shuffle" and k == "deck.pass":
            deck = list(body["deck"])
            for i in range(3):
                deck[20 + i] = deck[i]
            mark.append(time.monotonic())
            return {**body, "deck": deck}
        if kind == "illegal-move" and k == "game.act" and body["a"][0] in ("play", "discard"):
            view = cheater.view()
            held = view.hands[cheater.me] if view is not None else ()
            playable = {a.card for a in cheater.legal() if isinstance(a, Play)}
            if isinstance(held, tuple):
                wrong = [c for c in held if c not in playable]
                if wrong:       # a card it holds, played where the rules refuse it
                    mark.append(time.monotonic())
                    return {**body, "a": action_to_data(Play(cheater.me, wrong[0], None))}
        return body
    return tamper


def _run(peers: list[Peer], bound: float, stopper: Callable[[Peer], None] | None = None
         ) -> list[float | None]:
    """Every peer pumps in its own thread until it stops (or ``bound`` s); returns when
    each honest peer stopped (None: it did not)."""
    done: list[float | None] = [None] * len(peers)

    def go(i: int) -> None:
        p = peers[i]
        if stopper is not None and i == len(peers) - 1:
            stopper(p)
            return
        p.run(bound)
        if p.stopped is not None:
            done[i] = time.monotonic()
        p.linger(0.2)

    threads = [threading.Thread(target=go, args=(i,), daemon=True) for i in range(len(peers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(bound + 10)
    for p in peers:
        p.close(flush=0.2)
    return done


def cheat_to_stop(kind: str, n: int, trial: int, bound: float = 60.0) -> StopTime:
    """One table of ``n`` peers whose last seat makes the cheat ``kind`` once."""
    cfg, ids = make_table(preset("modern"), Seating.solo(n), [f"p{s}" for s in range(n)],
                          b"trustbench/%s/%d/%d" % (kind.encode(), n, trial))
    with tempfile.TemporaryDirectory() as tmp:
        peers = socket_peers(Path(tmp), cfg, ids, SessionOptions())
        cheater = peers[-1]
        mark: list[float] = []
        cheater.tamper = _tamper(kind, cheater, mark)
        done = _run(peers, bound)
        honest = peers[:-1]
        blames = [(p.rlog.error.seat, p.rlog.error.check) if p.rlog.error is not None
                  else None for p in honest]
    right = all(b is not None and b[0] == n - 1 for b in blames)
    stops = done[:-1]
    if not mark or any(t is None for t in stops):
        return StopTime(kind, n, None, right, f"cheat made: {bool(mark)}; blames {blames}")
    worst = max(t for t in stops if t is not None) - mark[0]
    return StopTime(kind, n, worst, right, f"blames {blames}")


def silence_to_stop(n: int, trial: int, step_limit: float, after: int = 60,
                    bound: float = 120.0) -> StopTime:
    """The last seat goes silent (stops pumping, closes its node) once ``after`` entries
    are applied; the others must stop, naming it unresponsive, within the step limit."""
    cfg, ids = make_table(preset("modern"), Seating.solo(n), [f"p{s}" for s in range(n)],
                          b"trustbench/silence/%d/%d" % (n, trial))
    cfg = dataclasses.replace(cfg, step_limit=step_limit)
    gone: list[float] = []

    def die(p: Peer) -> None:
        while p.pump(0.02) and p.entries_applied < after:
            pass
        gone.append(time.monotonic())
        p.node.close()

    with tempfile.TemporaryDirectory() as tmp:
        peers = socket_peers(Path(tmp), cfg, ids, SessionOptions())
        done = _run(peers, bound, stopper=die)
        named = [p.unresponsive for p in peers[:-1]]
        errors = [p.rlog.error for p in peers[:-1]]
    right = all(u == n - 1 for u in named) and all(e is None for e in errors)
    stops = done[:-1]
    if not gone or any(t is None for t in stops):
        return StopTime("silence", n, None, right, f"unresponsive named: {named}")
    worst = max(t for t in stops if t is not None) - gone[0]
    return StopTime("silence", n, worst, right,
                    f"step limit {step_limit:g} s; unresponsive named: {named}")


def run_trust_bench(trials: int = 3, sizes: tuple[int, ...] = (3,), step_limit: float = 20.0,
                    json_out: bool = False, say: Callable[[str], None] = print) -> int:
    """Every cheat ``trials`` times at each table size, then the silence: one line each
    and a summary (median, worst); exit status 1 if a run blamed the wrong seat or never
    stopped."""
    runs: list[StopTime] = []
    for n in sizes:
        for kind in CHEATS:
            for t in range(trials):
                runs.append(cheat_to_stop(kind, n, t))
                if not json_out:
                    say(_line(runs[-1]))
        for t in range(max(1, trials // 2)):
            runs.append(silence_to_stop(n, t, step_limit))
            if not json_out:
                say(_line(runs[-1]))
    summary: dict[str, dict[str, float | int | bool | None]] = {}
    for key in sorted({(r.kind, r.peers) for r in runs}):
        xs = [r.seconds for r in runs if (r.kind, r.peers) == key and r.seconds is not None]
        ok = all(r.right_blame and r.seconds is not None for r in runs
                 if (r.kind, r.peers) == key)
        summary[f"{key[0]}/{key[1]}"] = {
            "median_s": round(statistics.median(xs), 3) if xs else None,
            "worst_s": round(max(xs), 3) if xs else None, "runs": len(xs), "all_right": ok}
    if json_out:
        say(json.dumps({"runs": [asdict(r) for r in runs], "summary": summary,
                        "step_limit_s": step_limit}, indent=2))
    else:
        say("")
        for name, s in summary.items():
            say(f"{name:22s} median {s['median_s']} s, worst {s['worst_s']} s over "
                f"{s['runs']} runs; right seat named every time: {s['all_right']}")
    return 0 if all(r.right_blame and r.seconds is not None for r in runs) else 1


def _line(r: StopTime) -> str:
    took = "never stopped" if r.seconds is None else f"{r.seconds:.3f} s"
    return f"{r.kind:18s} {r.peers} peers: {took}; right seat: {r.right_blame} ({r.detail})"


if __name__ == "__main__":   # pragma: no cover
    raise SystemExit(run_trust_bench())
