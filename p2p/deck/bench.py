"""Fair-deck benchmark: CPU of shuffle, draw and a whole hand as a ratio to the floor.

The floor of a phase is the number of group operations it performed (counted with
:class:`p2p.crypto.group.OpCounter`, which match the protocol's minimum, see
docs/protocol.md) times the cost of one such operation on ristretto255 measured in the
same run.  The ratio is therefore the overhead of everything that is not elliptic-curve
arithmetic (hashing, DRBG, bookkeeping, Python).  CPU is ``time.process_time``; all peers
run in this process, each peer's work is accounted to it.

The shuffle is measured twice: without proofs (``shuffle_cpu_ms``: the passes alone, all
peers) and as the protocol runs it, every pass with its proof of shuffle verified by every
other peer (``shuffle_with_proofs_*``; per peer: prove one's own pass, verify the others).
The rest of the hand runs with proofs.

Every figure is the best of ``repeat`` runs (3 by default), as the unit costs are the best
of three batches: a busy machine only ever adds time, so the minimum is the estimate of
the cost and a ratio of two minima compares like with like.  The unit costs are measured
again before each run (the machine's speed drifts within a minute); ``unit_cost_us`` gives
the first measurement.

``run(json=False)`` prints a table (or JSON) and returns the figures as a dict.
"""

from __future__ import annotations

import json as _json
import time
from collections.abc import Callable

from p2p.crypto import group as g
from p2p.deck.memory import DeckTable

__all__ = ["run", "unit_costs", "GROUP"]

N_CARDS = 106
PEERS = (2, 4, 6)
GROUP = "ristretto255 (libsodium through rbcl)"


def _group() -> str:
    return GROUP + ("; verifiers' sums compiled (p2p/crypto/_msm.c)" if g.native_sums() else "")


def unit_costs(reps: int = 2000) -> dict[str, float]:
    """Seconds of CPU per group operation, measured now."""
    s = g.random_scalar()
    p = g.base(s)
    q = g.base(s + 1)

    def timeit(fn: Callable[[], object]) -> float:
        best = float("inf")
        for _ in range(3):  # best of three batches: the machine may be busy
            t0 = time.process_time()
            for _ in range(reps // 3):
                fn()
            best = min(best, (time.process_time() - t0) / (reps // 3))
        return best

    terms = [(g.random_scalar(), g.base(g.random_scalar())) for _ in range(N_CARDS)]

    def reencrypt(pairs: list[tuple[int, bytes]]) -> object:
        return g.add_multiples(q, [k for k, _ in pairs], [p for _, p in pairs])

    def per_term(compiled_sum: Callable[[list[tuple[int, bytes]]], object],
                 size: int = N_CARDS) -> float:
        """One term of a compiled sum of ``size`` terms (0 when it is not built)."""
        if not g.native_sums():
            return 0.0
        best, k = float("inf"), max(1, reps // 2 // size)
        for _ in range(3):
            t0 = time.process_time()
            for _ in range(k):
                compiled_sum(terms[:size])
            best = min(best, (time.process_time() - t0) / k)
        return best / size

    return {
        "base": timeit(lambda: g.base(s)),
        "var": timeit(lambda: g.mul(s, p)),
        "add": timeit(lambda: g.add(p, q)),
        "valid": timeit(lambda: g.is_valid_point(p)),
        "h2p": timeit(lambda: g.hash_to_point(b"bench", b"x")),
        "msm": per_term(g.public_sum),  # a verifier's (variable time)
        "msm_small": per_term(g.public_sum, 2),  # the same in a two-term sum (DLEQ checks)
        "ct": per_term(g.secret_sum),  # a prover's (constant time)
        "fixed": per_term(reencrypt),  # A + k·H, H's table made (a pass's re-encryption)
    }


def _floor(ops: g.OpCounter, unit: dict[str, float]) -> float:
    return sum(n * unit[k] for k, n in ops.as_dict().items())


def _diff(a: dict[str, int], b: dict[str, int]) -> g.OpCounter:
    d = {k: b[k] - a[k] for k in a}
    return g.OpCounter(base=d["base"], var=d["var"], add=d["add"], valid=d["valid"],
                       h2p=d["h2p"], msm=d["msm"], msm_small=d["msm_small"], ct=d["ct"],
                       fixed=d["fixed"])


def _snap(t: DeckTable) -> tuple[list[float], list[dict[str, int]]]:
    return list(t.cpu), [o.as_dict() for o in t.ops]


def _keys(t: DeckTable) -> None:
    for p in t.peers:
        t.broadcast(t._timed(p.my_seat or 0, p.make_key_share))


def _shuffle_without_proofs(n: int, unit: dict[str, float]) -> tuple[float, float]:
    """(CPU of all peers, floor) of one shuffle with proofs switched off."""
    t = DeckTable(n, list(range(N_CARDS)), b"bench", 1, observer=False, shuffle_proofs=False)
    _keys(t)
    cpu1, ops1 = _snap(t)
    t.shuffle()
    cpu2, ops2 = _snap(t)
    ops = g.OpCounter()
    for s in range(n):
        ops += _diff(ops1[s], ops2[s])
    return sum(cpu2) - sum(cpu1), _floor(ops, unit)


def _one_proof(t: DeckTable, unit: dict[str, float]) -> tuple[float, float]:
    """(prove, verify) CPU seconds of one later pass (not the first, whose input
    components are the identity and so cheaper to verify), outside any table."""
    from p2p.deck.ciphers import prove_pass, verify_pass

    rd = t.peers[0].rounds[0]
    joint = t.peers[0].joint
    assert joint is not None and rd.final is not None
    seed = bytes(32)
    t0 = time.process_time()
    out, proof = prove_pass(rd.final, seed, joint, b"bench-proof", 1, 0, 1)
    t1 = time.process_time()
    verify_pass(rd.final, out, proof, joint, b"bench-proof", 1, 0, 1)
    t2 = time.process_time()
    return t1 - t0, t2 - t1


def _bench_peers(n: int, unit: dict[str, float], draws_sample: int = 96,
                 plays: int = 30) -> dict[str, float]:
    cards = list(range(N_CARDS))
    bare_cpu, bare_floor = _shuffle_without_proofs(n, unit)
    t = DeckTable(n, cards, b"bench", 1, observer=False)
    cpu0, ops0 = _snap(t)
    _keys(t)
    cpu1, ops1 = _snap(t)
    t.shuffle()
    cpu2, ops2 = _snap(t)
    shuffle_cpu = sum(cpu2) - sum(cpu1)
    shuffle_peer_cpu = max(cpu2[s] - cpu1[s] for s in range(n))
    shuffle_ops = g.OpCounter()
    for s in range(n):
        shuffle_ops += _diff(ops1[s], ops2[s])
    prove_cpu, verify_cpu_one = _one_proof(t, unit)

    # deal 6 each, then draw up to ~80 more, round-robin; sample per-draw cost
    hand_draws = min(N_CARDS, 6 * n + 80)
    drawer_cpu = other_cpu = 0.0
    drawer_ops, other_ops = g.OpCounter(), g.OpCounter()
    held: dict[int, list[int]] = {s: [] for s in range(n)}
    for pos in range(hand_draws):
        seat = pos % n
        before_cpu, before_ops = _snap(t)
        t.deal(pos, seat)
        held[seat].append(pos)
        if pos < draws_sample:
            after_cpu, after_ops = _snap(t)
            drawer_cpu += after_cpu[seat] - before_cpu[seat]
            drawer_ops += _diff(before_ops[seat], after_ops[seat])
            for s in range(n):
                if s != seat:
                    other_cpu += (after_cpu[s] - before_cpu[s]) / (n - 1)
                    other_ops += _diff(before_ops[s], after_ops[s])
    k = min(draws_sample, hand_draws)
    before_cpu, before_ops = _snap(t)
    done = 0
    for i in range(plays):
        seat = i % n
        if held[seat]:
            t.play(seat, held[seat].pop(0))
            done += 1
    after_cpu, after_ops = _snap(t)
    play_cpu = (sum(after_cpu) - sum(before_cpu)) / max(done, 1)
    play_ops = g.OpCounter()
    for s in range(n):
        play_ops += _diff(before_ops[s], after_ops[s])
    t.finish()
    end_cpu, end_ops = _snap(t)
    verify_cpu = sum(end_cpu) - sum(after_cpu)
    verify_ops = g.OpCounter()
    hand_ops = g.OpCounter()
    for s in range(n):
        verify_ops += _diff(after_ops[s], end_ops[s])
        hand_ops += _diff(ops0[s], end_ops[s])
    hand_cpu = sum(end_cpu) - sum(cpu0)

    other_floor = _floor(other_ops, unit) / (k * (n - 1))
    return {
        "peers": n,
        "cards": N_CARDS,
        "shuffle_cpu_ms": bare_cpu * 1e3,
        "shuffle_floor_ms": bare_floor * 1e3,
        "shuffle_ratio": bare_cpu / bare_floor,
        "shuffle_cpu_per_peer_ms": bare_cpu * 1e3 / n,
        "proof_prove_ms": prove_cpu * 1e3,
        "proof_verify_ms": verify_cpu_one * 1e3,
        "shuffle_with_proofs_cpu_ms": shuffle_cpu * 1e3,
        "shuffle_with_proofs_cpu_per_peer_ms": shuffle_peer_cpu * 1e3,
        "shuffle_with_proofs_floor_ms": _floor(shuffle_ops, unit) * 1e3,
        "shuffle_with_proofs_ratio": shuffle_cpu / _floor(shuffle_ops, unit),
        "draw_drawer_ms": drawer_cpu / k * 1e3,
        "draw_drawer_ratio": drawer_cpu / _floor(drawer_ops, unit),
        "draw_other_ms": other_cpu / k * 1e3,
        "draw_other_ratio": (other_cpu / k) / other_floor if other_floor else 0.0,
        "play_all_peers_ms": play_cpu * 1e3,
        "play_ratio": (play_cpu * done) / _floor(play_ops, unit) if done else 0.0,
        "verify_end_ms": verify_cpu * 1e3,
        "verify_end_ratio": verify_cpu / _floor(verify_ops, unit),
        "hand_draws": hand_draws,
        "hand_plays": done,
        "hand_cpu_ms": hand_cpu * 1e3,
        "hand_cpu_per_peer_ms": hand_cpu * 1e3 / n,
        "hand_floor_ms": _floor(hand_ops, unit) * 1e3,
        "hand_ratio": hand_cpu / _floor(hand_ops, unit),
        "hand_ops": hand_ops.as_dict(),  # type: ignore[dict-item]
    }


def _best(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each timed figure's minimum over ``runs`` (counts are the same in every run)."""
    best = dict(runs[0])
    for key in list(best):
        if key.endswith(("_ms", "_ratio")):
            best[key] = min(r[key] for r in runs)
    return best


def run(json: bool = False, repeat: int = 3) -> dict[str, object]:
    unit = unit_costs()
    # each run's ratios against unit costs measured just before it: this machine's speed
    # drifts within a minute, and a floor measured half a minute earlier inflated ratios
    rows = [_best([_bench_peers(n, unit if (n, i) == (PEERS[0], 0) else unit_costs())
                   for i in range(max(1, repeat))]) for n in PEERS]
    out: dict[str, object] = {"group": _group(),
                              "unit_cost_us": {k: v * 1e6 for k, v in unit.items()},
                              "results": rows}
    if json:
        print(_json.dumps(out, indent=2))
        return out
    u = out["unit_cost_us"]
    assert isinstance(u, dict)
    print(f"group: {_group()}; op cost (us): " + ", ".join(f"{k} {v:.1f}" for k, v in u.items()))
    print(f"{'peers':>5} {'shuffle+proofs ms/peer':>23} {'x floor':>7} {'prove ms':>9}"
          f" {'verify ms':>10}")
    for r in rows:
        print(f"{r['peers']:>5} {r['shuffle_with_proofs_cpu_per_peer_ms']:>23.1f}"
              f" {r['shuffle_with_proofs_ratio']:>7.2f} {r['proof_prove_ms']:>9.1f}"
              f" {r['proof_verify_ms']:>10.1f}")
    hdr = (f"{'peers':>5} {'shuffle ms':>11} {'x floor':>7} {'draw: drawer ms':>16} {'x':>5}"
           f" {'other ms':>9} {'x':>5} {'play ms':>8} {'end-verify ms':>14} {'x':>5}"
           f" {'hand ms (all)':>14} {'per peer':>9} {'x floor':>7} {'draws/plays':>11}")
    print(hdr)
    for r in rows:
        print(f"{r['peers']:>5} {r['shuffle_cpu_ms']:>11.1f} {r['shuffle_ratio']:>7.2f}"
              f" {r['draw_drawer_ms']:>16.2f} {r['draw_drawer_ratio']:>5.2f}"
              f" {r['draw_other_ms']:>9.2f} {r['draw_other_ratio']:>5.2f}"
              f" {r['play_all_peers_ms']:>8.2f} {r['verify_end_ms']:>14.1f}"
              f" {r['verify_end_ratio']:>5.2f} {r['hand_cpu_ms']:>14.1f}"
              f" {r['hand_cpu_per_peer_ms']:>9.1f} {r['hand_ratio']:>7.2f}"
              f" {str(r['hand_draws']) + '/' + str(r['hand_plays']):>11}")
    print(f"{N_CARDS} cards. shuffle+proofs: the busiest peer (its pass and proof, and every"
          " other pass verified); prove/verify: one pass; shuffle: all peers together, passes"
          " without proofs (+ final-deck validation);"
          " draw: per draw; play: one card opened, all peers; end-verify: all peers;"
          " hand: keys + shuffle + deal 6 each and up to 80 more draws (deck permitting) +"
          " plays + reveals + every peer's end-of-hand verification.")
    return out


if __name__ == "__main__":  # pragma: no cover
    run(False)
