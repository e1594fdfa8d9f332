"""The network verbs: ``host``, ``join``, ``lobby``, ``resume`` and ``simulate --network``.

Each ``run_*`` takes the argparse Namespace of its verb. Flags that ``cli.main`` may not
define yet are read with ``getattr(args, name, default)``.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

from engine import Seating
from engine.bots import make_bot


def _g(args: argparse.Namespace, name: str, default: Any) -> Any:
    v = getattr(args, name, None)
    return default if v is None else v


# ===================================================================== simulate --network
def run_network_simulate(args: argparse.Namespace) -> int:
    from p2p.netsim import simulate_network

    from ._simulate import rules_from_args

    if args.games < 1:
        raise ValueError("--games must be at least 1")
    rules = rules_from_args(args)
    seating = Seating.parse(args.players, args.teams)
    names = [b.strip() for b in args.bots.split(",") if b.strip()]
    if not names:
        raise ValueError("--bots needs at least one bot name")
    bot_names = [names[s % len(names)] for s in range(seating.n_players)]
    for b in bot_names:
        make_bot(b, 0)
    result = simulate_network(rules, seating, bot_names, args.games, args.seed,
                              args.transcript_dir)
    if args.json:
        print(json.dumps(result))
        return 0 if not result["failures"] else 1
    print(f"{result['games']} matches, {result['hands']} hands, rules {args.rules} "
          f"({seating.n_players} players, {seating.label()}), one peer process per seat")
    for p in result["players"]:
        print(f"  seat {p['seat']} {p['bot']:<10} wins {p['wins']:>5} "
              f"({100 * p['win_rate']:.1f}%)  avg score {p['avg_score']:.0f}")
    print(f"average turns per hand {result['avg_turns_per_hand']}, "
          f"{result['hands_per_second']} hands/s")
    print(f"network: {result['entries']} signed entries; transcripts of each game "
          + ("identical on every peer and verified"
             if not result["failures"] else "FAILED")
          + (f", in {args.transcript_dir}" if args.transcript_dir else ""))
    for f in result["failures"]:
        print(f"  {f}", file=sys.stderr)
    return 0 if not result["failures"] else 1
