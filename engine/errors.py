"""The errors the engine raises: a move the rules forbid, and a bot that failed to move."""

from __future__ import annotations

import difflib
import os
import traceback
import types
from collections.abc import Iterable
from typing import Any, TypeVar, cast

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


#: The interpreter's own readers of a class's and an exception's fields: they run no
#: code of a plug-in's (``kind.__name__`` runs its metaclass's ``__getattribute__``,
#: ``exc.args`` its class's, ``isinstance`` reads ``exc.__class__``).
_TYPE_NAME = type.__dict__["__name__"].__get__
_TYPE_MRO = type.__dict__["__mro__"].__get__
_TYPE_DICT = type.__dict__["__dict__"].__get__
_TYPE_FLAGS = type.__dict__["__flags__"].__get__
_ARGS = BaseException.__dict__["args"].__get__
_TRACEBACK = BaseException.__dict__["__traceback__"].__get__
_HEAPTYPE = 1 << 9          # Py_TPFLAGS_HEAPTYPE: a class made by a class statement

#: What a class of a plug-in's exception may not define for the program to read it as it
#: reads any exception: the ways an attribute's reading, writing, comparing or freeing
#: runs the plug-in's code.
_HOOKS = frozenset({
    "__getattribute__", "__getattr__", "__setattr__", "__delattr__", "__class__",
    "__dict__", "args", "__traceback__", "__cause__", "__context__",
    "__suppress_context__", "__notes__", "__del__", "__eq__", "__ne__", "__hash__",
    "with_traceback", "msg", "filename", "lineno", "offset", "text", "print_file_and_line"})


def tamed(exc: BaseException) -> BaseException | None:
    """A stand-in for ``exc``, a plug-in's exception, when the program cannot read it
    without running the plug-in's code: its class has a metaclass of its own or
    defines one of :data:`_HOOKS` (a metaclass whose ``__getattribute__`` never ends
    held ``simulate`` for ever as it named the class, after the bot's time limit was
    over; so did a class's own ``__getattribute__`` as the traceback was read). The
    stand-in is of a plain class of the same name, under the nearest of the
    interpreter's exception classes (a ``KeyboardInterrupt`` stays one, a
    ``MemoryError`` too), with the arguments when they are plain values, and the
    traceback, so that where the bot raised is still said. None: ``exc`` is plain
    (nothing is read but through the interpreter's own readers)."""
    kind = type(exc)
    mro = _TYPE_MRO(kind)
    if type(kind) is type and type(mro) is tuple and all(
            type(k) is type and (not _TYPE_FLAGS(k) & _HEAPTYPE or _plain_fields(k))
            for k in mro):
        return None
    name = _TYPE_NAME(kind)
    name = one_line(name)[:60] if type(name) is str and name.isidentifier() else "Exception"
    args = _ARGS(exc)
    args = args if type(args) is tuple and all(type(a) in _SHOWN for a in args[:8]) \
        and len(args) <= 8 else ()
    base: type[BaseException] = Exception
    if type(mro) is tuple:
        base = next((k for k in mro if type(k) is type and issubclass(k, BaseException)
                     and not _TYPE_FLAGS(k) & _HEAPTYPE), Exception)
    for parent in (base, Exception):
        try:
            stand_in: BaseException = type(name, (parent,), {"__module__": "plugin"})(*args)
            break
        except Exception:  # noqa: BLE001 - a base that wants other arguments
            args = ()
    else:
        stand_in = Exception(name)
    return stand_in.with_traceback(_TRACEBACK(exc))


def _plain_fields(kind: type) -> bool:
    """Whether class ``kind`` defines none of :data:`_HOOKS` but the interpreter's own
    field for an instance's ``__dict__`` or ``__weakref__`` (a class compiled by mypyc,
    as the engine's own exceptions are with ``MILLEBORNES_MYPYC=1``, lists them: its
    ``PluginFailed`` was taken for a plug-in's hooked class and replaced by a stand-in
    that the program's ``except PluginFailed`` no longer caught)."""
    fields = _TYPE_DICT(kind)
    return all(name in ("__dict__", "__weakref__")
               and type(fields[name]) in (types.GetSetDescriptorType,
                                          types.MemberDescriptorType)
               for name in _HOOKS.intersection(fields))


_T = TypeVar("_T")

#: What the class of a bot's answer may not define for the program to read it as it
#: reads any object (``isinstance`` reads its ``__class__``, the words of a fault its
#: class's name).
_ANSWER_HOOKS = frozenset({"__getattribute__", "__getattr__", "__class__"})


def frees_with_code(obj: object) -> bool:
    """Whether freeing ``obj`` runs code of its class's own (a ``__del__`` in its class
    or a base), read without running any; a metaclass of its own counts as yes."""
    kind = type(obj)
    return type(kind) is not type or any(
        type(k) is not type or (_TYPE_FLAGS(k) & _HEAPTYPE and "__del__" in _TYPE_DICT(k))
        for k in _TYPE_MRO(kind))


#: Objects a bot holds that are not its to free, and that lead to the whole program (a
#: class to its module's globals, a function or a frame to theirs): not looked through.
_NOT_THE_BOTS = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                 types.CodeType, types.FrameType)


def frees_with_code_held(obj: object, most: int = 2000) -> bool:
    """Whether freeing ``obj`` may run code of its own, or of an object it holds: a
    ``__del__`` (:func:`frees_with_code`), or a finalizer of the interpreter's (a
    generator's ``finally``, a file's ``close``) in the class of one of the objects
    reached from it through the references the interpreter follows (never through a
    class, a module, a function or a frame: the program's too), read without running
    any code of theirs; more than ``most`` objects reached count as yes (a bot in a
    cycle whose statistics object had a ``__del__`` that never ended was not looked at,
    and held ``simulate`` for ever where Python collected it)."""
    import gc
    seen = {id(obj)}
    todo = [obj]
    while todo:
        held = todo.pop()
        kind = type(held)
        if frees_with_code(held) or any(
                k is not object and "__del__" in _TYPE_DICT(k) for k in _TYPE_MRO(kind)):
            return True
        for ref in gc.get_referents(held):
            if id(ref) in seen:
                continue
            seen.add(id(ref))
            if len(seen) > most:
                return True
            # (by identity: a class's == is its metaclass's code)
            if not any(k is n for k in _TYPE_MRO(type(ref)) for n in _NOT_THE_BOTS):
                todo.append(ref)
    return False


def tamed_answer(answer: _T) -> _T:
    """``answer``, a bot's, or a plain stand-in of its class's name when the program
    cannot read it without running the bot's code (a class of its own with a metaclass
    or a ``__getattribute__`` that never ends: ``simulate`` hung for ever saying what
    the bot chose, after its time limit). The stand-in is no move: a fault, said as any
    other object ("chose an object of type Move")."""
    kind = type(answer)
    if kind in _SHOWN:            # (the engine's own enums too: "a card's kind")
        return answer
    meta = type(kind)
    if meta is type and all(type(k) is type and (not _TYPE_FLAGS(k) & _HEAPTYPE
                                                 or _ANSWER_HOOKS.isdisjoint(_TYPE_DICT(k)))
                            for k in _TYPE_MRO(kind)):
        return answer
    name = _TYPE_NAME(kind)
    name = one_line(name)[:60] if type(name) is str and name.isidentifier() else "object"
    stand_in: Any = type(name, (), {"__module__": "plugin"})()
    return cast(_T, stand_in)


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
