"""How strong could the search be? The search bot given more than its view (an oracle).

    PYTHONPATH=. python benchmarks/search_oracle.py --sees hands --deals 150 [options]

Plays classic 2-player matches of the search bot (seat swapped on every deal, as
``tournament`` pairs deals) against the heuristic, with the search's deals of the hidden
cards replaced by what an oracle knows:

* ``--sees view``: nothing more (the search bot as it plays);
* ``--sees hands``: the other hands exactly, the draw pile shuffled (what a perfect
  inference of the hidden hands would give);
* ``--sees deck``: the other hands and the draw pile in its true order (clairvoyance: the
  future draws are known).

``--rollouts heuristic`` plays each rollout with the heuristic for every seat (each from
what its own view would show) instead of the cheap rollout policy, for the search's horizon
(then its leaf evaluation); ``heuristic-full`` to the end of the hand;
``--argmax`` takes the candidate with the best mean instead of the search's rule (the
heuristic's choice unless another beats it by ``margin`` standard errors). ``--spec`` sets
the search's options as JSON (``'{"margin": 0, "discards": 1, "candidates": 8}'``).

This is a measurement of where the search's limit lies (docs/bots.md, "What limits the
search"), not a bot: the oracle sees cards no player can. It patches the search module's
dealing and rollout functions in this process only.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import time
from typing import Any

import engine._bot_search as bs
from cli.tournament import wilson
from engine import (
    CLASSIC,
    HandState,
    Seating,
    apply_action,
    legal_actions,
    new_hand,
    reshuffle_action,
)
from engine._bot_heuristic import HeuristicBot
from engine.scoring import Match, score_hand
from engine.state import OVER, RESHUFFLE, RESPOND, view_of

_TRUTH: dict[str, Any] = {"state": None, "sees": "view", "full": False}
_DEAL = bs.determinize
_HEURISTIC = HeuristicBot(0)


def _oracle_deal(view: HandState, seat: int, rng: random.Random,
                 lacks: Any = None, holds: Any = None) -> HandState:
    sees, truth = _TRUTH["sees"], _TRUTH["state"]
    if sees == "view":
        return _DEAL(view, seat, rng, lacks, holds)
    if sees == "deck":
        return truth._replace(viewer=None)  # type: ignore[no-any-return]
    pile = list(truth.pile)
    rng.shuffle(pile)
    return truth._replace(pile=tuple(pile), viewer=None)  # type: ignore[no-any-return]


def _heuristic_rollout(state: HandState, side: int, rng: random.Random,
                       horizon: int = bs.ROLLOUT_ACTIONS, fitted: bool = False) -> float:
    """Every seat played by the heuristic from its own view, for the search's horizon
    (then its leaf evaluation) or, with ``--rollouts heuristic-full``, to the hand's end."""
    if _TRUTH["full"]:
        horizon = bs.ROLLOUT_ACTIONS
    for _ in range(horizon):
        if state.phase == OVER:
            break
        if state.phase == RESHUFFLE:
            action = reshuffle_action(state, rng)
        else:
            seat = state.actors()[0] if state.phase == RESPOND else state.seat
            view = view_of(state, seat)
            action = _HEURISTIC.choose(view, legal_actions(view, seat))
        state = apply_action(state, action)
    return bs.outcome(state, side, fitted)


def _argmax(self: bs.SearchBot, view: HandState, seat: int, shortlist: list[Any],
            started: float) -> Any:
    side = view.side_of(seat)
    results: list[list[float]] = [[] for _ in shortlist]
    every = list(range(len(shortlist)))
    for _ in range(self.playouts):
        self._round(view, seat, side, shortlist, every, results)
    means = [sum(r) / len(r) for r in results]
    return shortlist[max(every, key=lambda i: (means[i], -i))]


def _match(job: tuple[int, int, dict[str, Any]]) -> tuple[bool, int, int, float]:
    """One match; the search bot sits at seat ``swap``. (won, hands, point diff, CPU s)."""
    seed, swap, spec = job
    started = time.process_time()
    seating = Seating.solo(2)
    bots: list[Any] = [HeuristicBot(seed), HeuristicBot(seed)]
    bots[swap] = bs.SearchBot(seed=seed, **spec)
    dealer = random.Random(seed)
    match = Match(CLASSIC, seating, dealer.randrange(2))
    hands = diff = 0
    while not match.over and hands < 200:
        deck = list(CLASSIC.deck(seating))
        dealer.shuffle(deck)
        state = new_hand(CLASSIC, seating, tuple(deck), match.next_first_seat(),
                         match.totals())
        while state.phase != OVER:
            if state.phase == RESHUFFLE:
                action = reshuffle_action(state, dealer)
            else:
                seat = state.actors()[0] if state.phase == RESPOND else state.seat
                _TRUTH["state"] = state
                view = view_of(state, seat)
                action = bots[seat].choose(view, legal_actions(view, seat))
            state = apply_action(state, action)
        scores = score_hand(state)
        diff += scores[swap].total - scores[1 - swap].total
        hands += 1
        match = match.record(scores)
    return match.winner() == swap, hands, diff, time.process_time() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sees", choices=("view", "hands", "deck"), default="view")
    ap.add_argument("--rollouts", choices=("policy", "heuristic", "heuristic-full"),
                    default="policy")
    ap.add_argument("--argmax", action="store_true")
    ap.add_argument("--spec", default={}, type=json.loads,
                    help="the search's options, as JSON")
    ap.add_argument("--deals", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    spec = args.spec
    _TRUTH["sees"] = args.sees
    bs.determinize = _oracle_deal  # type: ignore[assignment]
    _TRUTH["full"] = args.rollouts == "heuristic-full"
    if args.rollouts != "policy":
        bs.rollout = _heuristic_rollout  # type: ignore[assignment]
    if args.argmax:
        bs.SearchBot._search = _argmax  # type: ignore[method-assign]
    jobs = [(args.seed + d, swap, spec) for d in range(args.deals) for swap in (0, 1)]
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        results = pool.map(_match, jobs, chunksize=1)
    n = len(results)
    wins = sum(r[0] for r in results)
    hands = sum(r[1] for r in results)
    low, high = wilson(wins, n)
    print(json.dumps({
        "sees": args.sees, "rollouts": args.rollouts, "argmax": args.argmax, "spec": spec,
        "seed": args.seed, "matches": n, "win_share": round(wins / n, 4),
        "interval95": [round(low, 4), round(high, 4)], "hands_per_match": round(hands / n, 2),
        "points_per_hand_diff": round(sum(r[2] for r in results) / hands, 1),
        "cpu_s_per_match": round(sum(r[3] for r in results) / n, 2)}))


if __name__ == "__main__":
    main()
