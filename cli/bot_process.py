"""A bot that thinks in a child process, so a networked peer never starves while it thinks.

A bot at a networked table is a peer like any other: its :class:`p2p.table.Peer` pumps the
signed log and its transport's I/O thread answers acknowledgements and heartbeats. A search
bot that thinks for a second in the same process holds the GIL for that second, and the
peer's threads (its own and the human's, in ``play``) miss their turns. :class:`BotProcess`
runs the bot's ``choose`` in a child process: the parent only waits on a pipe, which releases
the GIL, so every other thread keeps running.

Every wait has a limit: a child that does not answer within ``answer_within`` seconds,
answers a move that is not legal, raises or dies is stopped, and a quick in-process bot
(the heuristic) makes that move and every later one of the match; the failure is logged
(with the bot's own error), never printed on the player's screen, and a move is always
made. What the bot prints goes nowhere: the child's stdout and stderr are the null device.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import random
from multiprocessing.connection import Connection
from typing import Any

from engine import Action, HandState, exception_words, make_bot
from engine.simulate import answer_words, legal_choice

log = logging.getLogger("cli.bots")

#: Far above a search bot's own budget; only a stuck or dead child ever reaches it.
ANSWER_WITHIN = 30.0

#: Bytes of data (heap) a process that runs plug-in bots may hold: far above any bot of
#: this project (the search bot needs tens of megabytes), far below a machine's memory.
#: ``MILLEBORNES_BOT_MEMORY_MB`` sets another bound.
MEMORY_LIMIT = 2 << 30


def memory_limit() -> int:
    """:data:`MEMORY_LIMIT`, or ``MILLEBORNES_BOT_MEMORY_MB`` megabytes (64 at least)."""
    text = os.environ.get("MILLEBORNES_BOT_MEMORY_MB", "").strip()
    if text.isascii() and text.isdigit() and len(text) <= 9:   # "²" is a digit to isdigit
        return max(64, int(text)) << 20
    return MEMORY_LIMIT


def cap_memory(limit: int | None = None) -> None:
    """Bound the data this process may hold (``RLIMIT_DATA``: heap and private memory) to
    ``limit`` bytes more than it holds now: a plug-in that allocates without end gets a
    ``MemoryError`` (a bot fault) instead of taking the machine's memory. A lower bound
    already set stays; where the limit does not exist (not POSIX) nothing changes."""
    try:
        import resource
    except ImportError:          # not POSIX
        return
    extra = memory_limit() if limit is None else limit
    try:
        with open("/proc/self/statm") as f:
            fields = f.read().split()
        held = int(fields[5]) * os.sysconf("SC_PAGE_SIZE")   # data + stack pages
    except (OSError, ValueError, IndexError):
        held = 0
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    want = held + extra
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    if soft != resource.RLIM_INFINITY and soft <= want:
        return
    try:
        resource.setrlimit(resource.RLIMIT_DATA, (want, hard))
    except (ValueError, OSError):
        pass


def _serve(conn: Connection, spec: str, seed: int) -> None:
    """The child: build the bot once, then answer each ``(view, legal)`` with
    ``("move", action)``, or ``("error", text)`` when the bot cannot be made or raises."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)            # a bot's prints must not reach the player's screen
    os.dup2(devnull, 2)
    cap_memory()                   # a bot that allocates without end fails here, not the machine
    random.seed(seed)              # a plug-in using the global random repeats for a seed
    try:
        bot = make_bot(spec, seed)
    except BaseException as exc:   # noqa: BLE001 - reported to the parent, in words
        bot = None
        failure = f"could not be made ({exception_words(exc)})"
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        view, legal = request
        if bot is None:
            conn.send(("error", failure))
            continue
        try:
            answer = bot.choose(view, list(legal))
            # Only plain data goes back: the index of the legal move the answer is, or the
            # answer in words. Its own object, unpickled by the peer, ran its code there
            # (a __reduce__ or a __repr__ that sleeps held a networked table, unsaid).
            action = legal_choice(answer, legal)
            if action is None:
                conn.send(("illegal", answer_words(answer)))
            else:
                conn.send(("move", next(i for i, a in enumerate(legal) if a is action)))
        except BaseException as exc:   # noqa: BLE001 - a plug-in's own bug, named
            try:
                conn.send(("error", f"raised {exception_words(exc)}"[:500]))
            except Exception:          # noqa: BLE001 - an answer that does not pickle
                return


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
                self._conn.send((view, list(legal)))
                if self._conn.poll(self.answer_within):
                    reply: Any = self._conn.recv()   # the child's plain data (see _serve)
                    kind, answer = reply if type(reply) is tuple and len(reply) == 2 \
                        else ("?", None)
                    if kind == "move" and type(answer) is int and 0 <= answer < len(legal):
                        return legal[answer]
                    if kind == "error" and type(answer) is str:
                        log.warning("bot %s %s; a quick bot moves for it from now on",
                                    self.spec, answer[:500])
                    else:
                        shown = answer[:300] if type(answer) is str else "something else"
                        log.warning("bot %s answered %s, which is not a legal move; a "
                                    "quick bot moves for it from now on", self.spec, shown)
                else:
                    log.warning("bot %s did not answer within %.0f s; a quick bot moves for "
                                "it from now on", self.spec, self.answer_within)
            except Exception as exc:   # noqa: BLE001 - a dead pipe, an answer that won't unpickle
                self._proc.join(timeout=0.5)
                code = self._proc.exitcode
                if isinstance(exc, (EOFError, BrokenPipeError)) and code is not None:
                    # its process ended ("stopped (EOFError: )" said nothing of why)
                    log.warning("bot %s ended its process (exit code %s); a quick bot moves "
                                "for it from now on", self.spec, code)
                else:
                    log.warning("bot %s stopped (%s: %s); a quick bot moves for it from now "
                                "on", self.spec, type(exc).__name__, exc)
            # its pipe may hold a late answer, and it may still be busy: never trust it again
            self._broken = True
            self._stop_child()
        return self._fallback.choose(view, legal)

    def _stop_child(self) -> None:
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join(timeout=1.0)

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
