"""Many fair-deck matches with random rule options, seatings and bots, each transcript
verified: every engine phase (coups fourrés, fast play, reshuffles, extensions, teams) goes
through the full protocol. Slow: run with ``python -m pytest -m slow``."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import engine as e
from engine.bots import make_bot
from p2p.audit import verify_game
from p2p.table.memory import make_table, play_fair_match
from p2p.transcript.file import read_transcript

pytestmark = pytest.mark.slow


def _random_table(r: random.Random) -> tuple[e.Rules, e.Seating]:
    opts = dict(fast_play=r.random() < .6, stack_hazards=r.random() < .3,
                draw_discard=r.random() < .6, exhaustion=r.choice(["play_out", "reshuffle"]),
                start_rolling=r.random() < .2, attacker_started=r.random() < .2,
                match_target=r.choice([0, 1000]))
    rules = e.preset(r.choice(["classic", "modern"]), **opts)
    n = r.choice([2, 3, 4, 6])
    teams = n if n in (2, 3) or r.random() < .5 else 2
    return rules, e.Seating(n, teams)


def test_random_fair_matches_verify_and_cover_every_move_kind(tmp_path: Path) -> None:
    r = random.Random(20261130)
    kinds: set[str] = set()
    for g in range(30):
        rules, seating = _random_table(r)
        n = seating.n_players
        cfg, ids = make_table(rules, seating, [f"p{i}" for i in range(n)], b"stress%d" % g)
        bots = [make_bot(r.choice(["random", "heuristic"]), r.randrange(1000))
                for _ in range(n)]
        path = tmp_path / f"g{g}.mbt"
        play_fair_match(cfg, ids, [b.choose for b in bots], path)
        for env in read_transcript(path).entries:
            k = env.body.get("k")
            if k == "game.act":
                kinds.add(env.body["a"][0])
            elif k == "deck.reshuffle":
                kinds.add(k)
        report = verify_game(path)
        assert report.ok, (rules, seating, report.summary())
    assert {"draw", "play", "discard", "pass", "coup", "remedy", "fastdiscard",
            "deck.reshuffle"} <= kinds, kinds
