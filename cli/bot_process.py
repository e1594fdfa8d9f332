"""A bot that thinks in a child process, so a networked peer never starves while it thinks.

A bot at a networked table is a peer like any other: its :class:`p2p.table.Peer` pumps the
signed log and its transport's I/O thread answers acknowledgements and heartbeats. A search
bot that thinks for a second in the same process holds the GIL for that second, and the
peer's threads (its own and the human's, in ``play``) miss their turns. :class:`BotProcess`
runs the bot's ``choose`` in a child process: the parent only waits on a pipe, which releases
the GIL, so every other thread keeps running.

Every wait has a limit: a child that does not answer within ``answer_within`` seconds, or
dies, is replaced for that decision by a quick in-process bot (the heuristic), and the
failure is logged; a move is always made.
"""

from __future__ import annotations

import logging
import multiprocessing
from multiprocessing.connection import Connection
from typing import Any

from engine import Action, HandState, make_bot

log = logging.getLogger("cli.bots")

#: Far above a search bot's own budget; only a stuck or dead child ever reaches it.
ANSWER_WITHIN = 30.0


def _serve(conn: Connection, spec: str, seed: int) -> None:
    """The child: build the bot once, then answer ``(view, legal)`` with an action."""
    bot = make_bot(spec, seed)
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        view, legal = request
        conn.send(bot.choose(view, legal))


class BotProcess:
    """A seat controller (``choose(view, legal)``) whose bot lives in a child process."""

    def __init__(self, spec: str, seed: int, *, answer_within: float = ANSWER_WITHIN,
                 fallback: str = "heuristic") -> None:
        ctx = multiprocessing.get_context("spawn")  # never fork a process with ZeroMQ threads
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_serve, args=(child, spec, seed), daemon=True,
                                 name=f"bot {spec}")
        self._proc.start()
        child.close()
        self.spec = spec
        self.answer_within = answer_within
        self._fallback = make_bot(fallback, seed)
        self._broken = False

    def choose(self, view: HandState, legal: list[Action]) -> Action:
        if not self._broken:
            try:
                self._conn.send((view, legal))
                if self._conn.poll(self.answer_within):
                    action: Any = self._conn.recv()
                    if action in legal:
                        return action  # type: ignore[no-any-return]
                    log.warning("bot %s answered an action that is not legal: %r",
                                self.spec, action)
                else:
                    log.warning("bot %s did not answer within %.0f s; a quick bot moves",
                                self.spec, self.answer_within)
                self._broken = True  # its pipe may hold a late answer: never trust it again
            except (EOFError, OSError) as exc:
                log.warning("bot %s stopped (%s); a quick bot moves", self.spec, exc)
                self._broken = True
        return self._fallback.choose(view, legal)

    def close(self) -> None:
        """Stop the child (it also dies with its parent: it is a daemon)."""
        try:
            self._conn.send(None)
        except (OSError, ValueError):
            pass
        self._proc.join(timeout=1.0)
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join(timeout=1.0)
        self._conn.close()
