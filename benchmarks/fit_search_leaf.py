"""Refit the search bot's leaf evaluation (``FITTED_CLASSIC`` / ``FITTED_MODERN`` in
``engine/_bot_search.py``), issue 12 item 2.

    python benchmarks/fit_search_leaf.py [--rules classic|modern] [--games N] [--seed N]

Positions are sampled from heuristic-vs-heuristic (and heuristic-v1) 2-player hands; from
each, the search bot's rollout policy plays the hand out three times. Positions along
those rollouts are described by the features of :func:`engine._bot_search.fitted_value`
(one side minus the other) and fitted by least squares, without an intercept, to the final
point difference (:func:`engine.scoring.score_hand`). Prints the R² on held-out positions
(every fifth), the standing's for comparison, and the weights in the engine's order.
The engine then sets the weights of safeties in hand by hand (a laid safety's weight plus a
fading coup-fourré premium: the comment above ``FITTED_CLASSIC`` says why). The fitted
weights in the engine came from ``--games 400 --seed 1`` (classic) and
``--games 300 --seed 2`` (modern), about 21,000 positions each.
"""

from __future__ import annotations

import argparse
import random
import sys

from engine import Seating, apply_action, legal_actions, new_hand, reshuffle_action, view_of
from engine.bots import FITTED_CLASSIC, fitted_value, make_bot, rollout_choice, standing
from engine.rules import preset
from engine.scoring import score_hand


def features(state, side):  # type: ignore[no-untyped-def]
    """fitted_value's features, read back by probing it with unit weights."""
    s = sys.modules[fitted_value.__module__]  # the module that holds the weights
    saved = s.FITTED_CLASSIC, s.FITTED_MODERN
    out = []
    try:
        for i in range(len(FITTED_CLASSIC)):
            unit = tuple(1.0 if j == i else 0.0 for j in range(len(FITTED_CLASSIC)))
            s.FITTED_CLASSIC = s.FITTED_MODERN = unit
            out.append(fitted_value(state)[side])
    finally:
        s.FITTED_CLASSIC, s.FITTED_MODERN = saved
    return out


def samples(rules_name: str, games: int, seed: int):  # type: ignore[no-untyped-def]
    rules = preset(rules_name)
    seating = Seating(2, 2)
    rng = random.Random(seed)
    for g in range(games):
        bots = [make_bot("heuristic", g), make_bot("heuristic-v1" if g % 2 else "heuristic",
                                                   g + 1)]
        deck = list(rules.deck(seating))
        rng.shuffle(deck)
        state = new_hand(rules, seating, deck, g % 2)
        starts = []
        while not state.over:
            if state.phase == "reshuffle":
                state = apply_action(state, reshuffle_action(state, rng))
                continue
            seat = state.actors()[0]
            if state.phase == "play" and rng.random() < 0.25:
                starts.append(state)
            view = view_of(state, seat)
            state = apply_action(state, bots[seat].choose(view, legal_actions(view, seat)))
        for start in starts[:6]:
            for _ in range(3):
                s, seen, n = start, [], 0
                while not s.over and n < 1000:
                    if s.phase == "reshuffle":
                        a = reshuffle_action(s, rng)
                    else:
                        seat = s.seat if s.phase != "respond" else s.actors()[0]
                        a = rollout_choice(s, legal_actions(s, seat), rng)
                    s = apply_action(s, a)
                    n += 1
                    if s.phase == "play" and n % 7 == 0 and rng.random() < 0.5:
                        f0, f1 = features(s, 0), features(s, 1)
                        st = standing(s)
                        seen.append(([a - b for a, b in zip(f0, f1, strict=True)], st[0] - st[1]))
                if s.over:
                    t = [x.total for x in score_hand(s)]
                    for x, st_diff in seen:
                        yield x, st_diff, t[0] - t[1]


def solve(a: list[list[float]], b: list[float]) -> list[float]:
    n = len(a)
    m = [row[:] + [v] for row, v in zip(a, b, strict=True)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        for r in range(n):
            if r != i and m[i][i]:
                f = m[r][i] / m[i][i]
                for c in range(i, n + 1):
                    m[r][c] -= f * m[i][c]
    return [m[i][n] / m[i][i] if m[i][i] else 0.0 for i in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rules", default="classic", choices=["classic", "modern"])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    # features the engine leaves out (weight 0: hazards and remedies in hand) stay out
    use = [i for i, v in enumerate(FITTED_CLASSIC) if v]
    rows = [([x[i] for i in use], s, y) for x, s, y in samples(args.rules, args.games, args.seed)]
    k = len(use)
    a = [[1e-3 * (i == j) for j in range(k)] for i in range(k)]
    b = [0.0] * k
    for n, (x, _, y) in enumerate(rows):
        if n % 5:
            for i in range(k):
                b[i] += x[i] * y
                for j in range(k):
                    a[i][j] += x[i] * x[j]
    w = solve(a, b)
    test = [r for n, r in enumerate(rows) if n % 5 == 0]
    mean = sum(y for _, _, y in test) / len(test)
    var = sum((y - mean) ** 2 for _, _, y in test)
    fit = 1 - sum((y - sum(p * q for p, q in zip(w, x, strict=True))) ** 2 for x, _, y in test) / var
    std = 1 - sum((y - s) ** 2 for _, s, y in test) / var
    print(f"{len(rows)} positions; held-out R2: fitted {fit:.3f}, standing {std:.3f}")
    weights = [0.0] * len(FITTED_CLASSIC)
    for i, v in zip(use, w, strict=True):
        weights[i] = v
    print("(" + ", ".join(f"{v:.1f}" for v in weights) + ")")


if __name__ == "__main__":
    main()
