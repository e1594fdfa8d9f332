"""A per-decision time limit for plug-in bots played in this process (``tournament``,
``simulate``): a bot that hangs loses its match (a bot fault, like a crash) instead of
stopping the whole run.

At a networked table a bot already thinks in a child process that must answer within
``cli.bot_process.ANSWER_WITHIN`` seconds; simulations play thousands of matches in one
process, where a child per bot would cost more than the games. Here the limit is a
``SIGALRM`` interval timer around each ``choose`` (POSIX, main thread only; elsewhere the
bot runs unbounded, as before). It interrupts Python code, ``time.sleep`` and most blocking
calls, not a C extension that never returns to the interpreter. Built-in bots are not
wrapped: their budgets are their own (``search:ms=N``), and a large ``playouts`` budget is
the user's choice.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

from engine import Action, HandState, SeatController
from engine.bots import BOTS, make_bot, parse_bot_spec

from .bot_process import ANSWER_WITHIN

#: Seconds a plug-in bot may think about one decision (the networked table's bound).
DECISION_LIMIT = ANSWER_WITHIN


class DecisionTimeout(Exception):
    """A bot did not decide within its limit (reported as a bot fault)."""


class _Alarm(BaseException):
    """Raised inside the bot by the timer: a BaseException, so that a bot's own
    ``except Exception`` does not swallow it."""


class Bounded:
    """``bot`` with at most ``seconds`` per ``choose``; other attributes pass through (the
    search bot's ``decision_seconds``)."""

    def __init__(self, bot: SeatController, seconds: float) -> None:
        self.bot = bot
        self.seconds = seconds
        self._armed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.bot, name)

    def _ring(self, signum: int, frame: Any) -> None:
        if self._armed:
            self._armed = False
            raise _Alarm

    def choose(self, view: HandState, legal: list[Action]) -> Action:
        if not hasattr(signal, "setitimer") or \
                threading.current_thread() is not threading.main_thread():
            return self.bot.choose(view, legal)
        before = signal.signal(signal.SIGALRM, self._ring)
        try:
            try:
                self._armed = True
                signal.setitimer(signal.ITIMER_REAL, self.seconds)
                return self.bot.choose(view, legal)
            finally:
                self._armed = False
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, before)
        except _Alarm:
            raise DecisionTimeout(f"no move within {self.seconds:g} s") from None


def make_bounded_bot(spec: str, seed: int, seconds: float | None = None) -> SeatController:
    """:func:`engine.make_bot`, with a plug-in bot bounded to ``seconds`` per decision
    (default :data:`DECISION_LIMIT`)."""
    bot = make_bot(spec, seed)
    name, _ = parse_bot_spec(spec)
    if name in BOTS:
        return bot
    return Bounded(bot, DECISION_LIMIT if seconds is None else seconds)
