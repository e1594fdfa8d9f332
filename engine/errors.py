"""The errors the engine raises: a move the rules forbid, and a bot that failed to move."""

from __future__ import annotations

import difflib
import os
import traceback
from collections.abc import Iterable

from .cards import Family, Kind

#: The types of an exception's arguments shown in its words: plain values, and the
#: engine's own enums (``KeyError: <Kind.ROLL: 10>``, a kind looked up where it is not),
#: whose words run no code of a plug-in's.
_SHOWN = (int, str, bool, float, type(None), Kind, Family)


class IllegalAction(ValueError):
    """An action the rules forbid; ``rule`` is the RULES.md id that forbids it.

    The state the action was applied to is never changed (states are immutable).
    """

    def __init__(self, rule: str, message: str, action: object = None) -> None:
        self.rule = rule
        self.reason = message
        self.action = action
        super().__init__(f"{rule}: {message}")

    def __reduce__(self) -> tuple[type[IllegalAction], tuple[str, str, object]]:
        # sent between processes (a tournament's workers): rebuilt from its fields
        return (IllegalAction, (self.rule, self.reason, self.action))


class BotFailed(ValueError):
    """A bot (a seat controller, perhaps someone else's plug-in) did not make a legal move:
    it raised, or chose an action that is not in the legal list. ``seat`` is its seat,
    ``reason`` what went wrong; the state is unchanged. Callers decide what a fault costs
    (a tournament forfeits that match), and say which bot it was."""

    def __init__(self, seat: int, reason: str) -> None:
        self.seat = seat
        self.reason = reason
        super().__init__(f"the bot at seat {seat} {reason}")

    def __reduce__(self) -> tuple[type[BotFailed], tuple[int, str]]:
        return (BotFailed, (self.seat, self.reason))


class BotTooSlow(Exception):
    """A bot did not move (or was not made) within the time its caller allows: a bot
    fault said in these words ("did not move within 30 s"), not as an error it raised.
    Raised by the callers' timers (the engine keeps no clock)."""


class BotOptionError(ValueError):
    """A well-formed bot spec whose options cannot be: an option given twice, or a seed
    (which comes from the caller). Its words say which."""


class PluginFailed(ValueError):
    """An installed bot plug-in failed to load, to make its bot, or made no bot. ``where``
    is where in its own code its factory raised (:func:`where_raised`), or ""."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(message)
        self.where = where


def exception_words(exc: BaseException) -> str:
    """"KeyError: 'boom'": an exception a plug-in raised, in words, without running its
    code. The message is shown only when the class's ``__str__`` is the interpreter's own
    and every argument a plain value: a plug-in's ``__str__`` (or an argument's) may raise
    or hang past any time limit, as a ``__repr__`` may."""
    kind = type(exc)
    name = kind.__name__[:60]
    owner = next((k for k in kind.__mro__ if "__str__" in k.__dict__), BaseException)
    if owner.__module__ != "builtins":
        return name
    if isinstance(exc, SyntaxError):
        # its arguments are (message, (file, line, column, text, ...)): "failed to load:
        # SyntaxError" said nothing of where; its own words name the line
        if not (type(exc.msg) is str and type(exc.filename) in (str, type(None))
                and type(exc.lineno) in (int, type(None))):
            return name
    elif not all(type(a) in _SHOWN for a in exc.args[:8]):
        return name
    try:
        text = one_line(str(exc)[:1200])
    except Exception:   # noqa: BLE001 - e.g. a huge int's digits
        text = ""
    if len(text) > 300:
        text = text[:297] + "..."
    return f"{one_line(name)}: {text}" if text else one_line(name)  # MemoryError: no more


#: The folders of this program's own packages: the calls that lead into a bot.
_OWN_CODE = tuple(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), p)
                  + os.sep for p in ("engine", "cli", "p2p"))


def where_raised(exc: BaseException, frames: int = 8, ours: bool = True) -> str:
    """Where in a plug-in's own code ``exc`` was raised, as a traceback names the places,
    innermost last, on one line: ``File "/src/mybot.py", line 17, in choose; File
    "/src/mybot.py", line 30, in pick``. The calls of this program that led into the bot
    (the first frames) are left out, and only the innermost ``frames`` kept; "" when no
    frame is the bot's. Without ``ours``, the innermost frames of this program's are left
    out too (a time limit's, which stopped the bot where it was). Only the interpreter's
    frames are read: no code of the bot runs."""
    places = [(f.f_code.co_filename, line, f.f_code.co_name)
              for f, line in traceback.walk_tb(exc.__traceback__)]
    while places and places[0][0].startswith(_OWN_CODE):
        del places[0]
    while not ours and places and places[-1][0].startswith(_OWN_CODE):
        del places[-1]
    if not places:
        return ""
    words = [f'File "{one_line(str(file))[:200]}", line {line}, in {one_line(str(name))[:60]}'
             for file, line, name in places[-frames:]]
    return ("...; " if len(places) > frames else "") + "; ".join(words)


def one_line(text: str) -> str:
    """``text`` (a plug-in's words) as one line of printable characters: every line
    break, terminal control or invisible format character (a bidi override) is a space,
    runs of spaces one. A bot's message went into the log as it was: a line of its own
    there could blame another player, and ``--verbose`` showed its controls on the
    terminal."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())


def meant(unknown: Iterable[str], known: Iterable[str]) -> str:
    """", did you mean ms?" after unknown option names close to known ones ("mss"), else
    "" (the options were listed, the typo left for the player to spot)."""
    names = list(known)
    guesses = [g[0] for u in unknown if (g := difflib.get_close_matches(u, names, n=1))]
    return f", did you mean {', '.join(guesses)}?" if guesses else ""


def raised_words(exc: BaseException) -> str:
    """A bot's exception as its fault says it, "raised KeyError: 'boom'", with what to do
    where a stranger's first bot meets it: ``input()`` (the standard input of a bot is
    empty everywhere: "raised EOFError: EOF when reading a line" said nothing of why) and
    ``sys.exit`` (a bot that meant to give up the match)."""
    words = f"raised {exception_words(exc)}"
    if isinstance(exc, EOFError):
        words += " (a bot has no keyboard: its standard input is empty, so input() finds " \
                 "its end at once)"
    elif isinstance(exc, SystemExit):
        words += " (sys.exit ends a program, not a move: return one of legal)"
    return words
