"""``millebornes simulate``: bot-only matches in-process, with statistics."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from engine import Rules, Seating, parse_option, preset
from engine.bots import make_bot
from engine.simulate import play_match


def table_from_args(args: argparse.Namespace) -> tuple[Rules, Seating, list[str]]:
    """Rules, seating and one bot name per seat from simulate's arguments, all checked
    before any game starts (shared by the in-process and the network simulation)."""
    if args.games < 1:
        raise ValueError("--games must be at least 1")
    rules = rules_from_args(args)
    seating = Seating.parse(args.players, args.teams)
    names = [b.strip() for b in args.bots.split(",") if b.strip()]
    if not names:
        raise ValueError("--bots needs at least one bot name")
    bot_names = [names[s % len(names)] for s in range(seating.n_players)]
    for b in bot_names:
        make_bot(b, 0)  # validates the name
    return rules, seating, bot_names


def rules_from_args(args: argparse.Namespace) -> Rules:
    options = dict(parse_option(o) for o in args.option)
    return preset(args.rules, **options)


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
    from pathlib import Path

    from p2p.table.memory import make_table, play_fair_match

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


def run_simulate(args: argparse.Namespace) -> int:
    if args.network:
        from ._net import run_network_simulate
        return run_network_simulate(args)
    rules, seating, bot_names = table_from_args(args)
    if args.fair_deck:
        result = simulate_fair(rules, seating, bot_names, args.games, args.seed,
                               args.transcript_dir)
    else:
        if args.transcript_dir:
            raise ValueError("--transcript-dir needs --fair-deck or --network "
                             "(plain simulations keep no transcript)")
        result = simulate(rules, seating, bot_names, args.games, args.seed)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{result['games']} matches, {result['hands']} hands, rules {args.rules} "
          f"({seating.n_players} players, {seating.label()})")
    for p in result["players"]:
        print(f"  seat {p['seat']} {p['bot']:<10} wins {p['wins']:>5} "
              f"({100 * p['win_rate']:.1f}%)  avg score {p['avg_score']:.0f}")
    print(f"average turns per hand {result['avg_turns_per_hand']}, "
          f"{result['hands_per_second']} hands/s")
    if result.get("fair_deck"):
        print(f"fair deck: {result['entries']} signed entries"
              + (f", transcripts in {args.transcript_dir}" if args.transcript_dir else ""))
    return 0
