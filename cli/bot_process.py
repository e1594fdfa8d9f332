"""A bot that thinks in a child process, so a networked peer never starves while it thinks
(:class:`engine.bot_process.BotProcess`).

A bot at a networked table is a peer like any other: its :class:`p2p.table.Peer` pumps the
signed log and its transport's I/O thread answers acknowledgements and heartbeats. A search
bot that thinks for a second in the same process holds the GIL for that second, and the
peer's threads (its own and the human's, in ``play``) miss their turns. :class:`BotProcess`
runs the bot's ``choose`` in a child process: the parent only waits on a pipe, which releases
the GIL, so every other thread keeps running.

Every wait has a limit: a child that does not answer within ``answer_within`` seconds,
answers a move that is not legal, raises or dies is stopped, and a quick in-process bot
(the heuristic) makes that move and every later one of the match; the failure is logged
(with the bot's own error, as one line) and said once on its player's screen at a
networked table (``play``, ``host``, ``resume``), and a move is always made. What the bot prints goes nowhere: the child's stdout and stderr are the null device.
"""

from __future__ import annotations

from collections.abc import Callable

# The code lives in the engine, so that ``simulate --network``'s seat processes
# (p2p.netsim, which may not import cli) isolate a plug-in the same way.
from engine.bot_process import ANSWER_WITHIN as ANSWER_WITHIN
from engine.bot_process import MEMORY_LIMIT as MEMORY_LIMIT
from engine.bot_process import BotProcess as BotProcess
from engine.bot_process import bot_label as bot_label
from engine.bot_process import cap_memory as cap_memory
from engine.bot_process import descendants as descendants
from engine.bot_process import descriptors_in_use as descriptors_in_use
from engine.bot_process import end_descendants as end_descendants
from engine.bot_process import exit_words as exit_words
from engine.bot_process import kill_same as kill_same
from engine.bot_process import limits as limits
from engine.bot_process import log_bot_fault as log_bot_fault
from engine.bot_process import log_where_raised as log_where_raised
from engine.bot_process import memory_limit as memory_limit
from engine.bot_process import spoiled as spoiled
from engine.bot_process import within_bound as within_bound
from engine.bots import LEVELS, SeatController, bot_name_key, make_bot


def bot_move_time(move_limit: float | None) -> float:
    """The seconds a bot in its own process has for a move at a table whose moves have
    ``move_limit`` seconds (None: untimed): its own 30 s, within the table's limit with
    time left for the heuristic to move and the move to be signed and sent (a plug-in
    slower than the table's limit paused the table at its every move)."""
    if move_limit is None:
        return ANSWER_WITHIN
    # a fifth of the limit, and at least a second where the limit allows it: at a 3 s
    # table the heuristic had 0.6 s once a plug-in was cut, and the table paused on it
    return min(ANSWER_WITHIN, max(0.5, round(min(move_limit * 0.8, move_limit - 1.0), 1)))


#: Bots quick enough to play a seat in the console's own process (``--auto``'s default),
#: and the levels that stand for them.
_QUICK = ("random", "heuristic", "heuristic-v1")
QUICK_AUTO_BOTS = frozenset(_QUICK) | {level for level, bot in LEVELS.items() if bot in _QUICK}


def auto_bot(spec: str | None, seed: int, move_limit: float | None = None,
             on_fault: Callable[[str, str], None] | None = None,
             seat: int | None = None) -> SeatController:
    """The bot that plays a person's own seat (``--auto``; ``--auto-bot SPEC``): the
    heuristic by default; a quick built-in one here; any other (a plug-in, the search bot)
    in a process of its own, within the table's time for a move (:func:`bot_move_time`),
    the heuristic moving for it once it fails, and ``on_fault`` told (spec, words);
    ``seat``: the person's, named in the log."""
    if spec is None:
        return make_bot("heuristic", seed)
    if bot_name_key(spec.split(":", 1)[0].strip()) in QUICK_AUTO_BOTS:   # Normal too
        return make_bot(spec, seed)

    def failed(spec: str, words: str) -> None:
        log_bot_fault(spec, words, seat)     # the log keeps the whole reason
        if on_fault is not None:
            on_fault(spec, words)

    return BotProcess(spec, seed, on_fault=failed, answer_within=bot_move_time(move_limit),
                      make_within=ANSWER_WITHIN, seat=seat)
