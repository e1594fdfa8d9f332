"""``millebornes play``: a table of the human against bots, full screen or line mode.

Every seat is a real peer: the human's and each bot's :class:`p2p.table.Peer` has its
own ZeroMQ node on 127.0.0.1, its own secrets and its own view, and the deck is dealt by
the mental-poker protocol, exactly as between friends on a LAN; the game is kept in the
data folder (``millebornes resume`` after a crash, ``millebornes verify`` after the
game). ``--in-process`` runs the table in this process without sockets or cryptography
(:class:`cli.driver.LocalDriver`), for a quick look or a machine without a network stack.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from engine import Rules, SeatController, Seating
from p2p.crypto.identity import Identity
from p2p.table import Peer, SessionOptions, Store, TableConfig, TableStart, admit_table
from p2p.transcript.file import Player

from . import i18n
from .args import (
    auto_flags,
    data_dir,
    plain_wanted,
    play_bots,
    resume_flags,
    rules_from,
    seating_from,
    table_names,
)
from .bot_peers import READY_WAIT, BotPeerProcesses, bot_identities
from .console import run_console
from .driver import LocalDriver
from .games import auto_extra
from .i18n import _
from .netdriver import NetDriver
from .seats import listen
from .words import (
    paused_line,
    peer_stop_reason,
    saved_line,
    say_paragraph,
    say_paragraphs,
    table_setup_line,
)

#: Seconds the first hand may take to be dealt once the bots' peers listen.
DEAL_WAIT = 60.0


def run(args: argparse.Namespace) -> int:
    args.bots = play_bots(args.bots, args.teams, getattr(args, "players", None))
    players = 1 + args.bots
    seating = seating_from(players, args.teams)
    rules = rules_from(args)
    names = table_names(args.name, players)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    if args.plain and args.seed is None and args.in_process:
        # only this process's deal follows the seed; a networked table's shuffle is fresh
        print(i18n.display(_("(seed %(seed)d: --seed %(seed)d replays this deal)") % {"seed": seed}))
    if args.in_process:
        specs = tuple(getattr(args.bots, "specs", ()))
        # a quick built-in bot plays here; any other (a plug-in, the search bot) thinks in
        # a process of its own (cli.driver.LocalDriver._make): the screen answers keys
        # while it thinks, its 30 s hold, its crash or exit is said naming it, and its
        # prints and its threads never reach this terminal
        bots: list[SeatController | str | None] = [None] + [
            specs[s - 1] if s - 1 < len(specs) else "heuristic" for s in range(1, players)]
        local = LocalDriver(rules, seating, names, seat=0, seed=seed, bots=bots,
                            lang=args.lang)
        local.bot_levels = chosen_levels(specs, players)
        try:
            return run_console(local, args, seed=seed)
        finally:
            local.close()
    # the bots start and every seat shuffles before the first card shows: a blank
    # terminal for seconds (more at six players, or on a slow machine) left a newcomer
    # wondering whether anything was happening
    say_paragraph(table_setup_line(READY_WAIT + DEAL_WAIT), sys.stdout, flush=True)
    table = LoopbackTable(rules, seating, names, seed, data_dir(args),
                          bot_specs=getattr(args.bots, "specs", ()), extra=auto_extra(args),
                          on_saved=lambda path: setattr(args, "game_dir", path))
    table.driver.bot_levels = chosen_levels(tuple(getattr(args.bots, "specs", ())), players)
    try:
        code = run_console(table.driver, args, seed=seed, table_dir=table.transcript.parent)
    except KeyboardInterrupt:
        # Ctrl-C (line mode has no other way out mid-move): leaving, said with this game's
        # own resume line (it was a generic "interrupted" naming no game)
        print()
        code = 130
    finally:
        table.close()
    short = table.transcript.parent.name[:8]
    # at the terminal's width (80 in a file or a pipe)
    if table.peer.finished:
        say_paragraphs(saved_line(str(table.transcript), short, resume_flags(args)[1],
                                  plain_wanted(args)), sys.stdout)
    else:
        again, check = resume_flags(args)
        say_paragraphs(paused_line(short, again + auto_flags(args), check), sys.stdout)
    return code


def chosen_levels(specs: Sequence[str], players: int) -> dict[int, str]:
    """The level (or bot) the player chose for each bot's seat, by seat, as the help and
    the line mode's first line name it ("Cy (bot: expert)"); none when only a number of
    bots was given."""
    return {s: specs[s - 1] for s in range(1, players) if s - 1 < len(specs)}


class LoopbackTable:
    """The human's seat and one bot peer per other seat, each with its own node on
    127.0.0.1; each bot's peer runs in a child process (:mod:`cli.bot_peers`: the peers'
    work overlaps on two cores), the console drives the human's peer through
    :class:`cli.netdriver.NetDriver`."""

    def __init__(self, rules: Rules, seating: Seating, names: list[str], seed: int,
                 base: Path | None = None, bot_specs: Sequence[str] = (),
                 extra: dict[str, object] | None = None,
                 on_saved: Callable[[Path], object] | None = None) -> None:
        """``extra``: kept in the store for ``resume`` (:func:`cli.games.auto_extra`);
        ``on_saved``: told the game's folder once it is made (Ctrl-C while the bots deal
        names that game)."""
        self.on_saved = on_saved
        self.extra = dict(extra or {})
        bot_seats = range(1, seating.n_players)
        seeds = bot_identities(bot_seats)
        # first, while this process has no other thread: the children may be forked
        self.bots = BotPeerProcesses(seeds, "127.0.0.1", secure=True)
        try:
            self._seat(rules, seating, names, seed, base, bot_specs, seeds)
        except BaseException:
            self.bots.finish(0.0)
            raise

    def _seat(self, rules: Rules, seating: Seating, names: list[str], seed: int,
              base: Path | None, bot_specs: Sequence[str], seeds: dict[int, bytes]) -> None:
        bot_seats = range(1, seating.n_players)
        me = Identity.load_or_create()
        node = listen(me, "127.0.0.1", 0, secure=True)
        self.bots.wait_ready()
        bot_ids = {s: Identity.from_seed(seeds[s]) for s in bot_seats}
        idents = [me] + [bot_ids[s] for s in bot_seats]
        players = tuple(Player(s, names[s], idents[s].public_key)
                        for s in range(seating.n_players))
        curve = tuple((i.curve_keys().public, i.curve_keys().certificate) for i in idents) \
            if node.curve_key is not None else ()
        cfg = TableConfig(rules, seating, players, os.urandom(8), curve)
        admit_table(node, cfg)
        endpoints = {0: node.endpoint, **self.bots.endpoints}
        start = TableStart(cfg, 0, endpoints, list(bot_seats))
        opts = SessionOptions()
        specs = {seat: spec for seat, spec in zip(bot_seats, bot_specs, strict=False)}
        self.bots.start(start, base, opts, seed, specs)
        store = Store.create(base, cfg.header(), 0, port=node.port, bind="127.0.0.1",
                             endpoints=endpoints, extra=self.extra)
        if self.on_saved is not None:
            self.on_saved(store.path)
        self.peer = Peer(me, cfg, node, store=store, endpoints=endpoints, options=opts)
        self.driver = NetDriver(self.peer, background=True, bots=bot_seats,
                                bot_faults=self.bots.faults)
        self.transcript = store.transcript_path
        if not self.driver.wait_ready(DEAL_WAIT):
            self.close()
            raise OSError(_("the bots' peers did not deal a hand on 127.0.0.1: %(reason)s")
                          % {"reason": peer_stop_reason(self.peer) or _("no answer")})

    def close(self) -> None:
        """Leave the table: a pause, not an end (nothing is signed; `millebornes resume`
        restarts this seat and the bots from their stores)."""
        self.driver.close()
        self.bots.finish(10.0 if self.peer.finished else 0.5)
        self.peer.close(flush=1.0)
