"""A per-decision time limit for plug-in bots played in this process (``tournament``,
``simulate``): a bot that hangs loses its match (a bot fault, like a crash) instead of
stopping the whole run.

At a networked table a bot already thinks in a child process that must answer within
``cli.bot_process.ANSWER_WITHIN`` seconds; simulations play thousands of matches in one
process, where a child per bot would cost more than the games. Here the limit is a
``SIGALRM`` interval timer around each ``choose`` (POSIX, main thread only; elsewhere the
bot runs unbounded, as before). It interrupts Python code, ``time.sleep`` and most blocking
calls, not a C extension that never returns to the interpreter. The timer rings again
every second after the limit; a bot that catches every one (a bare ``except:`` around a
wait) ends the process after :data:`GRACE_RINGS` of them, saying so on stderr (nothing
else can stop it, and a run that never ends is worse). Built-in bots are not
wrapped: their budgets are their own (``search:ms=N``), and a large ``playouts`` budget is
the user's choice.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Sequence
from typing import Any

from engine import Action, BotFailed, HandState, SeatController
from engine.bots import BOTS, make_bot, parse_bot_spec

from .bot_process import ANSWER_WITHIN
from .i18n import _

#: Seconds a plug-in bot may think about one decision (the networked table's bound).
DECISION_LIMIT = ANSWER_WITHIN


#: Stops (one a second after the limit) a bot may catch before the process ends.
GRACE_RINGS = 5


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
        self._rings = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.bot, name)

    def _ring(self, signum: int, frame: Any) -> None:
        if not self._armed:
            return
        self._rings += 1
        if self._rings > GRACE_RINGS:
            # it caught every stop (a bare ``except:`` around a wait): nothing in Python
            # can end it, and a wait without end is worse than the end of this run
            name = str(getattr(self.bot, "name", type(self.bot).__name__))[:40]
            line = _("millebornes: the bot %(bot)s went on past its time limit (%(seconds)s s) "
                     "and ignored %(times)d stops; the run ends here") % {
                         "bot": name, "seconds": f"{self.seconds:g}", "times": GRACE_RINGS}
            os.write(2, (line + "\n").encode("utf-8", "replace"))
            os._exit(3)
        raise _Alarm

    def choose(self, view: HandState, legal: list[Action]) -> Action:
        if not hasattr(signal, "setitimer") or \
                threading.current_thread() is not threading.main_thread():
            return self.bot.choose(view, legal)
        before = signal.signal(signal.SIGALRM, self._ring)
        try:
            try:
                self._armed = True
                self._rings = 0
                # rings again every second after the limit: a bot that catches the first
                # stop gets another, and another (see _ring)
                signal.setitimer(signal.ITIMER_REAL, self.seconds, 1.0)
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


def make_seat_bots(specs: Sequence[str], seed: int) -> list[SeatController]:
    """One bounded bot per seat (seat ``s`` plays ``specs[s]`` with seed ``seed + s``); a
    plug-in whose factory fails (perhaps for this seed only) is a fault of that seat's bot
    (:class:`engine.BotFailed`), as a bad move would be."""
    bots: list[SeatController] = []
    for s, spec in enumerate(specs):
        try:
            bots.append(make_bounded_bot(spec, seed + s))
        except Exception as exc:   # a plug-in's factory may fail for some seeds only
            raise BotFailed(s, f"could not be made ({type(exc).__name__}: {exc})") from exc
    return bots
