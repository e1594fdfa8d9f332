"""How long an honest seat's automatic steps keep the other peers waiting, per hand.

    python benchmarks/auto_step_waits.py [N ...]     (default: 2 4 6 peers)

Plays two modern matches of heuristic bots per table size, one OS process per seat on
127.0.0.1 (``p2p.netsim``, ``record_times``), and from every peer's apply times and the
transcript sums, per (peer, hand, seat), the waits for that seat's automatic entries
(every entry but a move): from the entry before it to it, at that peer. Prints the largest
and the median total of a seat in a hand, and the longest single step: the figures behind
the budget of automatic steps (docs/network.md, "slow-loris").
"""

from __future__ import annotations

import sys
from collections import defaultdict

from engine import Seating, preset
from p2p.netsim import run_network_game
from p2p.transcript.file import is_side, read_transcript


def main(sizes: list[int]) -> None:
    for n in sizes:
        for game in range(2):
            run = run_network_game(preset("modern"), Seating.solo(n), ["heuristic"] * n,
                                   seed=11, game=game, record_times=True, keep_work=True)
            assert run.ok, run
            t = read_transcript(run.results[0]["transcript"])
            keys = [p.key for p in t.header.players]
            order: dict[int, list[tuple[int, object]]] = defaultdict(list)
            for e in t.entries:
                if not is_side(e.body):
                    order[e.hand].append((keys.index(e.author), e.body.get("k")))
            per: dict[tuple[int, int, int], float] = defaultdict(float)
            steps: dict[tuple[int, int, int], int] = defaultdict(int)
            worst = 0.0
            for p, r in enumerate(run.results):
                ap = {(h, i): tm for h, i, tm in r["applied"]}
                for h, seq in order.items():
                    for i, (s, k) in enumerate(seq):
                        if s == p or k == "game.act" or (i == 0 and h == 0):
                            continue
                        prev = ap.get((h, i - 1)) if i else \
                            ap.get((h - 1, len(order[h - 1]) - 1))
                        cur = ap.get((h, i))
                        if prev is None or cur is None:
                            continue
                        per[(p, h, s)] += cur - prev
                        steps[(p, h, s)] += 1
                        worst = max(worst, cur - prev)
            tot = sorted(per.values())
            print(f"{n} peers, match {game}: wall {run.seconds:.1f} s, hands {len(order)}, "
                  f"automatic steps of a seat in a hand <= {max(steps.values())}, "
                  f"a seat's waits in a hand: max {tot[-1]:.3f} s, median "
                  f"{tot[len(tot) // 2]:.3f} s; longest step {worst:.3f} s", flush=True)


if __name__ == "__main__":
    main([int(x) for x in sys.argv[1:]] or [2, 4, 6])
