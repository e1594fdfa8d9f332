"""``millebornes simulate``: bot-only matches in-process, with statistics."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from engine import Rules, Seating
from engine.bots import make_bot
from engine.simulate import play_match
from p2p.netsim import simulate_network
from p2p.table.memory import make_table, play_fair_match

from .args import rules_from


def table_from_args(args: argparse.Namespace) -> tuple[Rules, Seating, list[str]]:
    """Rules, seating and one bot name per seat from simulate's arguments, all checked
    before any game starts (shared by the in-process and the network simulation)."""
    if args.games < 1:
        raise ValueError("--games must be at least 1")
    rules = rules_from(args)
    seating = Seating.parse(args.players, args.teams)
    names = [b.strip() for b in args.bots.split(",") if b.strip()]
    if not names:
        raise ValueError("--bots needs at least one bot name")
    bot_names = [names[s % len(names)] for s in range(seating.n_players)]
    for b in bot_names:
        make_bot(b, 0)  # validates the name
    return rules, seating, bot_names


def simulate(rules: Rules, seating: Seating, bot_names: list[str], games: int,
             seed: int) -> dict[str, Any]:
    """Play ``games`` matches; seat ``s`` gets ``bot_names[s]``. Pure statistics, no printing."""
    n = seating.n_players
    wins = [0] * n
    score_sum = [0] * n
    hands = 0
    turns = 0
    started = time.perf_counter()
    for g in range(games):
        bots = [make_bot(bot_names[s], seed * 1_000_003 + g * 17 + s) for s in range(n)]
        rec = play_match(rules, seating, bots, seed * 1_000_003 + g)
        totals = rec.match.totals()
        for s in range(n):
            side = seating.side_of(s)
            score_sum[s] += totals[side]
            wins[s] += rec.winner == side
        hands += len(rec.hands)
        turns += sum(h.final.turns for h in rec.hands)
    elapsed = time.perf_counter() - started
    return {
        "rules": rules.to_dict(), "seating": seating.label(), "games": games, "hands": hands,
        "seconds": round(elapsed, 3),
        "hands_per_second": round(hands / elapsed, 1) if elapsed > 0 else None,
        "avg_turns_per_hand": round(turns / hands, 1) if hands else 0,
        "players": [{"seat": s, "side": seating.side_of(s), "bot": bot_names[s],
                     "wins": wins[s], "win_rate": round(wins[s] / games, 4) if games else 0,
                     "avg_score": round(score_sum[s] / games, 1) if games else 0}
                    for s in range(n)],
    }


def simulate_fair(rules: Rules, seating: Seating, bot_names: list[str], games: int,
                  seed: int, transcript_dir: str | None) -> dict[str, Any]:
    """Like :func:`simulate`, but every deal goes through the mental-poker protocol, one
    protocol object (with its own secrets and view) per seat, and each game is written
    to a transcript file."""
    n = seating.n_players
    wins = [0] * n
    score_sum = [0] * n
    hands = turns = entries = 0
    out_dir = Path(transcript_dir) if transcript_dir else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    files: list[str] = []
    started = time.perf_counter()
    for g in range(games):
        bots = [make_bot(bot_names[s], seed * 1_000_003 + g * 17 + s) for s in range(n)]
        names = [f"{bot_names[s]}{s + 1}" for s in range(n)]
        cfg, ids = make_table(rules, seating, names, b"simulate/%d/%d" % (seed, g))
        path = None
        if out_dir is not None:
            path = out_dir / f"game-{seed}-{g:04d}-{cfg.table_id.hex()[:12]}.mbt"
            files.append(str(path))
        res = play_fair_match(cfg, ids, [b.choose for b in bots], path)
        proto = res.protocols[0]
        assert proto.match is not None
        totals = proto.match.totals()
        for s in range(n):
            side = seating.side_of(s)
            score_sum[s] += totals[side]
            wins[s] += res.winner == side
        hands += len(proto.scores)
        turns += sum(int(h["turns"]) for h in proto.finished)
        entries += res.entries
    elapsed = time.perf_counter() - started
    return {
        "rules": rules.to_dict(), "seating": seating.label(), "games": games, "hands": hands,
        "fair_deck": True, "entries": entries, "transcripts": files,
        "seconds": round(elapsed, 3),
        "hands_per_second": round(hands / elapsed, 2) if elapsed > 0 else None,
        "avg_turns_per_hand": round(turns / hands, 1) if hands else 0,
        "players": [{"seat": s, "side": seating.side_of(s), "bot": bot_names[s],
                     "wins": wins[s], "win_rate": round(wins[s] / games, 4),
                     "avg_score": round(score_sum[s] / games, 1)} for s in range(n)],
    }


def run(args: argparse.Namespace) -> int:
    rules, seating, bot_names = table_from_args(args)
    if args.network:
        result = simulate_network(rules, seating, bot_names, args.games, args.seed,
                                  args.transcript_dir)
    elif args.fair_deck:
        result = simulate_fair(rules, seating, bot_names, args.games, args.seed,
                               args.transcript_dir)
    else:
        if args.transcript_dir:
            raise ValueError("--transcript-dir needs --fair-deck or --network "
                             "(plain simulations keep no transcript)")
        result = simulate(rules, seating, bot_names, args.games, args.seed)
    failures = list(result.get("failures", []))
    if args.json:
        print(json.dumps(result))
        return 0 if not failures else 1
    print(f"{result['games']} matches, {result['hands']} hands, rules {args.rules} "
          f"({seating.n_players} players, {seating.label()})"
          + (", one peer process per seat" if args.network else ""))
    for p in result["players"]:
        print(f"  seat {p['seat']} {p['bot']:<10} wins {p['wins']:>5} "
              f"({100 * p['win_rate']:.1f}%)  avg score {p['avg_score']:.0f}")
    print(f"average turns per hand {result['avg_turns_per_hand']}, "
          f"{result['hands_per_second']} hands/s")
    where = f", in {args.transcript_dir}" if args.transcript_dir else ""
    if args.network:
        print(f"network: {result['entries']} signed entries; transcripts of each game "
              + ("identical on every peer and verified" if not failures else "FAILED")
              + where)
    elif result.get("fair_deck"):
        print(f"fair deck: {result['entries']} signed entries"
              + (f"; transcripts{where}" if where else ""))
    for f in failures:
        print(f"  {f}", file=sys.stderr)
    return 0 if not failures else 1
