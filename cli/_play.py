"""``millebornes play``: a table of the human against bots, full screen or line mode.

Every seat is a real peer: the human's and each bot's :class:`p2p.session.Peer` has its
own ZeroMQ node on 127.0.0.1, its own secrets and its own view, and the deck is dealt by
the mental-poker protocol, exactly as between friends on a LAN; the game is kept in the
data directory (``millebornes resume`` after a crash, ``millebornes verify`` after the
game). ``--in-process`` runs the table in this process without sockets or cryptography
(:class:`cli.driver.LocalDriver`), for a quick look or a machine without a network stack.
"""

from __future__ import annotations

import argparse
import os
import random
import sys

from engine import Rules, Seating, parse_option, preset

from .driver import BOT_NAMES, LocalDriver, TableDriver

MAX_NAME = 12


def rules_from(args: argparse.Namespace) -> Rules:
    options = dict(parse_option(o) for o in (args.option or []))
    return preset(args.rules, **options)


def table_names(name: str | None, n: int) -> list[str]:
    """The human's name first, then bot names that no prefix of it could confuse."""
    me = (name or "You").strip()
    if not me:
        raise ValueError("--name must not be empty")
    if len(me) > MAX_NAME:
        raise ValueError(f"--name is at most {MAX_NAME} characters, not {len(me)}")
    if not all(ch.isalnum() or ch in "-_'." for ch in me):
        raise ValueError("--name takes one word (letters, digits, - _ ' .), "
                         f"not {me!r}")
    low = me.lower()
    pool = [b for b in BOT_NAMES if not (b.lower().startswith(low) or
                                         low.startswith(b.lower()))]
    pool += [f"Bot{i}" for i in range(1, 7)]
    return [me, *pool[:n - 1]]


def use_color(args: argparse.Namespace) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    return not getattr(args, "no_color", False)


def run_play(args: argparse.Namespace) -> int:
    bots = args.bots
    if not 1 <= bots <= 5:
        raise ValueError(f"--bots must be 1 to 5 (a table seats 2 to 6 players), not {bots}")
    players = 1 + bots
    seating = Seating.parse(players, args.teams)
    rules = rules_from(args)
    names = table_names(args.name, players)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    lang = args.lang or "en"
    if getattr(args, "in_process", False):
        driver: TableDriver = LocalDriver(rules, seating, names, seat=0, seed=seed, lang=lang)
        return _run_console(driver, args, seed, lang)
    table = LoopbackTable(rules, seating, names, seed)
    try:
        code = _run_console(table.driver, args, seed, lang)
    finally:
        table.close()
    print(f"The game is kept in {table.transcript}; anyone can check it with: "
          f"millebornes verify {table.transcript}")
    return code


def _run_console(driver: TableDriver, args: argparse.Namespace, seed: int, lang: str) -> int:
    plain = args.plain
    if not plain and not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("millebornes play: not a terminal, using --plain line mode", file=sys.stderr)
        plain = True
    if plain:
        from .plain import run_plain
        if args.seed is None:
            print(f"(seed {seed}: --seed {seed} replays this deal)")
        return run_plain(driver, auto=args.auto, lang=lang, seed=seed)
    from .app import run_app
    return run_app(driver, auto=args.auto, lang=lang, seed=seed, color=use_color(args),
                   delay=move_delay(args.auto))


def move_delay(auto: bool) -> float:
    """Seconds between two moves of other seats: ``MILLEBORNES_DELAY`` overrides."""
    raw = os.environ.get("MILLEBORNES_DELAY")
    if raw:
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(f"MILLEBORNES_DELAY must be a number of seconds, not {raw!r}")\
                from None
        if not 0 <= value <= 10:
            raise ValueError("MILLEBORNES_DELAY must be between 0 and 10 seconds")
        return value
    return 0.25 if auto else 0.4


class LoopbackTable:
    """The human's seat and one bot peer per other seat, each with its own node on
    127.0.0.1; the bots run in background threads, the console drives the human's peer
    through :class:`cli._net.NetDriver`."""

    def __init__(self, rules: Rules, seating: Seating, names: list[str], seed: int) -> None:
        from p2p.crypto.identity import Identity
        from p2p.net.transport import Node
        from p2p.table.config import TableConfig
        from p2p.table.lobby import TableStart
        from p2p.table.session import Peer, SessionOptions, node_id_for
        from p2p.table.store import Store, default_data_dir
        from p2p.transcript.file import Player

        from ._net import NetDriver, _start_bots

        me = Identity.load_or_create()
        node = Node(node_id_for(me.public_key), bind="127.0.0.1")
        bots: dict[int, tuple[Identity, bytes, Node]] = {}
        for seat in range(1, seating.n_players):
            id_seed = os.urandom(32)
            bid = Identity.from_seed(id_seed)
            bots[seat] = (bid, id_seed, Node(node_id_for(bid.public_key), bind="127.0.0.1"))
        keys = [me.public_key] + [bots[s][0].public_key for s in range(1, seating.n_players)]
        players = tuple(Player(s, names[s], keys[s]) for s in range(seating.n_players))
        cfg = TableConfig(rules, seating, players, os.urandom(8))
        endpoints = {0: node.endpoint, **{s: b[2].endpoint for s, b in bots.items()}}
        start = TableStart(cfg, 0, endpoints, sorted(bots))
        opts = SessionOptions()
        base = default_data_dir()
        self.bot_peers = _start_bots(start, bots, base, opts, seed)
        store = Store.create(base, cfg.header(), 0, port=node.port, bind="127.0.0.1",
                             endpoints=endpoints)
        self.peer = Peer(me, cfg, node, store=store, endpoints=endpoints, options=opts)
        self.driver = NetDriver(self.peer, background=True)
        self.transcript = store.path / "transcript.mbt"
        if not self.driver.wait_ready(60):
            self.close()
            raise OSError("the bots' peers did not deal a hand on 127.0.0.1: "
                          f"{self.peer.stopped or 'no answer'}")

    def close(self) -> None:
        if not (self.peer.finished or self.peer.stopped):
            self.peer.abandon("left by the player")
        self.driver.close()
        self.peer.close(flush=1.0)
