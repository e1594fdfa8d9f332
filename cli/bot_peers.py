"""The bots of ``millebornes play`` as peers in child processes.

A bot's whole peer (node, store, protocol, engine, bot) is as busy as the player's own:
every entry of the table is signed by one and checked by the other. Run as threads of one
interpreter, the two peers take turns on its lock and a match uses one core of two; in
their own processes the checking of one entry overlaps the signing of the next (issue 10:
a `play --plain --auto` match about a third faster). Nothing else changes: a child is a
peer like any other, on 127.0.0.1 with its own CURVE key and store, and
``millebornes resume`` restarts it from that store (in a thread: :func:`cli.seats.resume_bots`).

The child is forked (no new interpreter to start) when this process has no other thread
yet and never loaded a plug-in bot, else spawned. It ignores Ctrl-C (the terminal sends it to the whole process group;
the player's process decides), and it leaves with its parent: when the parent says
``stop``, or is gone (killed: the child finds itself adopted by another process; a forked
child's copy of the pipe would hide the end of the pipe), it closes its peer and exits.
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
from collections.abc import Mapping
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import engine.bots as engine_bots
from p2p.crypto.identity import Identity
from p2p.table import Peer, SessionOptions, Store, TableStart, admit_table
from p2p.table.store import default_data_dir

from .bot_process import log_bot_fault
from .i18n import _
from .seats import bot_controller, listen, on_this_machine, run_bot

log = logging.getLogger("cli.bot_peers")

#: How long a child may take to listen (a spawned one starts a new interpreter).
READY_WAIT = 30.0


def _from_parent(conn: multiprocessing.connection.Connection, parent: int) -> Any:
    """The parent's next message, or None once the parent is gone."""
    while os.getppid() == parent:
        if conn.poll(0.2):
            return conn.recv()
    return None


def _child(conn: multiprocessing.connection.Connection, label: object, id_seed: bytes,
           bind: str, secure: bool, parent: int) -> None:
    """A bot's peer: listen, say where, wait for the table, find its seat in it (by its
    key: a host's lobby seats it wherever a seat is free), play it, leave."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        ident = Identity.from_seed(id_seed)
        node = listen(ident, bind, 0, secure)
        conn.send(("ready", node.port, node.endpoint))
        msg = _from_parent(conn, parent)
        if msg is None or msg[0] != "start":
            node.close()
            return
        start, base, opts, seed, specs = msg[1:]
        endpoints = {s: on_this_machine(ep) for s, ep in start.endpoints.items()}
        mine = next(p.seat for p in start.cfg.players if p.key == ident.public_key)
        spec = specs.get(mine, "heuristic")
        admit_table(node, start.cfg)
        bbase = Path(base or default_data_dir()) / f"bot-{mine}"
        store = Store.create(bbase, start.cfg.header(), mine, port=node.port,
                             bind="0.0.0.0" if bind == "*" else bind,
                             endpoints=endpoints, alternatives=start.alternatives,
                             extra={"bot": spec, "seed": seed + mine, "identity_seed": id_seed})
        def fault(bot: str, words: str) -> None:   # logged, and said on its player's screen
            log_bot_fault(bot, words, mine)
            try:
                conn.send(("fault", mine, bot, words))
            except (OSError, ValueError):
                pass

        peer = Peer(ident, start.cfg, node,
                    controller=bot_controller(spec, seed + mine, on_fault=fault, seat=mine,
                                              move_limit=start.cfg.decision_limit),
                    store=store, endpoints=endpoints, alternatives=start.alternatives,
                    options=opts)
        leave = threading.Event()

        def watch() -> None:          # the parent says stop, or is gone
            try:
                _from_parent(conn, parent)
            except (EOFError, OSError):
                pass
            leave.set()

        threading.Thread(target=watch, daemon=True, name="parent-watch").start()
        run_bot(peer, until=leave)
        close = getattr(peer.controller, "close", None)
        if close is not None:
            close()
    except (EOFError, OSError):
        pass                           # the parent left before the table started
    except Exception:                  # its seat falls silent: the table says so, timed
        log.exception("the bot peer %s failed", label)
    finally:
        conn.close()
        os._exit(0)   # nothing inherited from the parent runs at exit (forked ZeroMQ state)


class BotPeerProcesses:
    """One child process per bot: started first (listening), then given the table. Keyed by
    the caller's labels (``play``: the seats; ``host``: 0, 1, … until its lobby seats
    them); a child finds its own seat in the table by its key."""

    def __init__(self, seats: Mapping[int, bytes], bind: str = "127.0.0.1",
                 secure: bool = True) -> None:
        # forked only from a process no plug-in ever ran in (engine.bots.PLUGINS_LOADED):
        # a plug-in's import that patched the heuristic, or a thread it left reading
        # memory, would live on in every bot's peer (the check of --bots runs a plug-in
        # in a throwaway child, so at a networked table none has run here)
        fork = (threading.active_count() == 1 and not engine_bots.PLUGINS_LOADED
                and "fork" in multiprocessing.get_all_start_methods())
        ctx = multiprocessing.get_context("fork") if fork else multiprocessing.get_context("spawn")
        self.bind = bind
        self.conns: dict[int, multiprocessing.connection.Connection] = {}
        self.procs: dict[int, BaseProcess] = {}
        self.endpoints: dict[int, str] = {}
        self._lock = threading.Lock()
        for seat, id_seed in seats.items():
            mine, theirs = ctx.Pipe()
            # not a daemon: a bot that thinks in a process of its own (the search bot,
            # a plug-in: cli.bot_process) is that process's child, which a daemon may not
            # have; _kill_left_over stops any child still running when this one exits
            p = ctx.Process(target=_child,
                            args=(theirs, seat, id_seed, bind, secure, os.getpid()),
                            daemon=False, name=f"bot-{seat}")
            p.start()
            theirs.close()
            self.conns[seat], self.procs[seat] = mine, p
        # runs before multiprocessing's own exit handler (registered earlier), which
        # would wait for every child that is not a daemon
        atexit.register(self._kill_left_over)

    def _kill_left_over(self) -> None:
        for p in self.procs.values():
            if p.is_alive():
                p.kill()
                p.join(1.0)

    def wait_ready(self, timeout: float = READY_WAIT) -> None:
        """Every child's endpoint, or OSError in words."""
        end = time.monotonic() + timeout
        for seat, conn in self.conns.items():
            try:
                if not conn.poll(max(0.0, end - time.monotonic())):
                    raise OSError(_("a bot's peer did not start within %(seconds)d s")
                                  % {"seconds": int(timeout)})
                msg = conn.recv()
            except EOFError:
                raise OSError(_("a bot's peer stopped before it could listen on %(address)s")
                              % {"address": self.bind}) from None
            self.endpoints[seat] = str(msg[2])

    def faults(self) -> list[tuple[int, str, str]]:
        """The bots that failed since the last call, as ``(seat, spec, words)``: a plug-in
        that raised, answered a move that is not legal, or did not answer in time (a
        quick bot plays its seat from then on). Never waits."""
        out: list[tuple[int, str, str]] = []
        with self._lock:
            for conn in self.conns.values():
                try:
                    while conn.poll(0):
                        msg = conn.recv()
                        if type(msg) is tuple and len(msg) == 4 and msg[0] == "fault":
                            out.append((int(msg[1]), str(msg[2]), str(msg[3])))
                except (EOFError, OSError, ValueError):
                    continue           # a bot's peer that ended: nothing more to say
        return out

    def start(self, start: TableStart, base: Path | None, opts: SessionOptions, seed: int,
              specs: Mapping[int, str]) -> None:
        """The table to every child; each finds its seat by its key (``specs`` by seat)."""
        for conn in self.conns.values():
            conn.send(("start", start, base, opts, seed, dict(specs)))

    def finish(self, timeout: float) -> None:
        """Let the bots write their last entries for up to ``timeout`` seconds, then tell
        any still running to leave (a pause: each has its store for resume)."""
        end = time.monotonic() + timeout
        for p in self.procs.values():
            p.join(max(0.0, end - time.monotonic()))
        for seat, conn in self.conns.items():
            if self.procs[seat].is_alive():
                try:
                    conn.send(("stop",))
                except OSError:
                    pass
        for p in self.procs.values():
            p.join(3.0)
            if p.is_alive():
                p.kill()
                p.join(1.0)
        for conn in self.conns.values():
            conn.close()


def bot_identities(seats: range) -> dict[int, bytes]:
    """A fresh identity seed per bot seat (kept in its store so it can resume)."""
    return {seat: os.urandom(32) for seat in seats}
