"""Bots: seat controllers that decide from their seat's view only, and where to find them.

A controller is anything with ``choose(view, legal) -> Action`` (:class:`SeatController`).
``view`` is the seat's :class:`~engine.HandState` view (other hands and the draw pile are
counts, ``view.viewer`` is the seat), ``legal`` the list from :func:`engine.legal_actions`
for that view; the controller returns one element of ``legal``. Bots own a
``random.Random`` seeded at construction, so a bot's choices are a function of its seed
and what it has seen (and, for the search bot with a milliseconds budget, of the clock).

Bots are named by a *spec*: ``NAME`` or ``NAME:OPTION=VALUE[:OPTION=VALUE...]``, e.g.
``search:playouts=500`` or ``search:ms=100``. A level (``easy``, ``normal``, ``hard``,
``expert``) stands for a spec. Third-party bots register a factory in the
``millebornes.bots`` entry-point group (see docs/bots.md): the factory is called as
``factory(seed, **options)`` and returns a :class:`SeatController`.
"""

from __future__ import annotations

import inspect
import logging
import math
import random
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from . import Action, HandState
from ._bot_heuristic import HeuristicBot as HeuristicBot
from ._bot_heuristic_v1 import HeuristicV1Bot as HeuristicV1Bot
from ._bot_search import FITTED_CLASSIC as FITTED_CLASSIC  # the search's leaf weights
from ._bot_search import Inference as Inference  # what the search bot infers
from ._bot_search import SearchBot as SearchBot
from ._bot_search import determinize as determinize  # the search's deals of hidden cards
from ._bot_search import fitted_value as fitted_value  # the search's leaf evaluation
from ._bot_search import outcome as outcome  # a rollout's value for a side
from ._bot_search import play_on as play_on  # the search's rollout through the engine
from ._bot_search import rollout as rollout  # a rollout (fast path when supported)
from ._bot_search import rollout_choice as rollout_choice  # the search's rollout policy
from ._bot_search import standing as standing  # the search's earlier leaf evaluation
from ._rollout_sim import RolloutSim as RolloutSim  # the rollouts' fast path: same rules
from ._rollout_sim import move_of as move_of
from ._rollout_sim import random_hand as random_hand
from ._rollout_sim import supported as supported  # which states the fast path plays
from ._rollout_sim import to_action as to_action
from .bot_guard import BotGuardFault
from .errors import BotOptionError, PluginFailed, exception_words, meant, where_raised

ENTRY_POINT_GROUP = "millebornes.bots"
log = logging.getLogger("engine.bots")



def _fault_words(exc: Exception) -> str:
    """What a plug-in's code raised, in words: what the guard stopped (an ``os._exit``)
    in its own words, anything else as :func:`exception_words` says it."""
    return str(exc) if isinstance(exc, BotGuardFault) else exception_words(exc)

class SeatController(Protocol):
    """What a human console, a remote peer's proxy or a bot provides for one seat.

    ``choose`` is called whenever the seat must act: to draw, to play or discard, to answer
    a hazard (coup fourré, R9; fast remedy, R10a) and to decide on the extension (R12). It
    sees only the seat's view and must return one of ``legal``.

    A controller may say ``pure = True`` (a class attribute) when ``choose`` is a function of
    ``(view, legal)`` alone — no random state, no memory of earlier calls. A networked
    table then sends its moves without waiting for the disk: after a power cut the same
    bot makes the same move again, so it can never sign two different ones (docs/bots.md).
    """

    def choose(self, view: HandState, legal: list[Action]) -> Action: ...


class RandomBot:
    """Uniform over the legal actions."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: HandState, legal: list[Action]) -> Action:
        return legal[self.rng.randrange(len(legal))]


BotFactory = Callable[..., SeatController]

#: The built-in bots by name. ``heuristic-v1`` is frozen: it is the yardstick.
BOTS: dict[str, BotFactory] = {
    "random": RandomBot,
    "heuristic-v1": HeuristicV1Bot,
    "heuristic": HeuristicBot,
    "search": SearchBot,
}

#: Levels for people choosing an opponent: each stands for a bot spec.
LEVELS: dict[str, str] = {
    "easy": "heuristic-v1",
    "normal": "heuristic",
    "hard": "search",
    "expert": "search:playouts=800",
}


def plugin_bots() -> dict[str, BotFactory]:
    """Factories registered by installed distributions in the ``millebornes.bots`` group.

    Read at every call (not cached), so a distribution installed while running counts; a
    plug-in cannot shadow a built-in name or a level."""
    out: dict[str, BotFactory] = {}
    for ep in sorted(_bot_entry_points(), key=lambda e: (e.name, e.value)):
        name = bot_name_key(ep.name)
        refused = _refused_name(name)
        if refused in ("builtin", "unwritable"):
            _warn_once(("unwritable", ep.name, ep.value),
                       "bot plug-in %r (%s) is not offered: its name is a built-in's or "
                       "cannot be written in a bot spec", ep.name, ep.value)
            continue
        if refused == "digits":
            _warn_once(("digits", ep.name, ep.value),
                       "bot plug-in %r (%s) is not offered: a name of digits alone reads "
                       "as a number of bots", ep.name, ep.value)
            continue
        if refused == "long":
            _warn_once(("long", ep.name[:60], ep.value),
                       "bot plug-in %r (%s) is not offered: its name is longer than %d "
                       "characters", ep.name[:60], ep.value, MAX_NAME)
            continue
        if name in out:
            _warn_once(("twice", name, ep.value),
                       "two bot plug-ins are called %r: %s is offered, %s is not", name,
                       out[name].ep.value, ep.value)  # type: ignore[attr-defined]
            continue
        out[name] = _LazyFactory(ep)
    return out


#: The longest plug-in name offered (a name is a column of a tournament's table).
MAX_NAME = 24


def _refused_name(name: str) -> str | None:
    """Why a plug-in called ``name`` (as it is looked up) is not offered, or None:
    "builtin" (a built-in's name or a level's: the built-in is the one made),
    "unwritable" (a spec cannot hold it), "digits" or "long"."""
    # names are matched without case (as specs are read); one with a character a spec
    # cannot hold could never be chosen; a control or an invisible character cannot be
    # typed, and every list of the bots wrote it on the player's terminal (it cleared
    # the screen)
    if name in BOTS or name in LEVELS:
        return "builtin"
    if not name or any(c in name for c in ":,= \t") or not name.isprintable():
        return "unwritable"
    if name.isdigit():
        return "digits"      # ``play --bots 2`` is two bots: it could never be chosen there
    if len(name) > MAX_NAME:
        return "long"        # it widened every column of a tournament's table
    return None


def unoffered_plugin(name: str) -> tuple[str, str, str] | None:
    """An installed plug-in called ``name`` (as it is looked up) that is not offered:
    ``(its name as declared, its module:factory, why)``, why one of "builtin", a
    built-in's or a level's name (the built-in plays where it is named), "unwritable",
    "digits", "long" (:func:`plugin_bots`); else None. Its author, who named it, was told
    "there is no bot called ..." of a name with a space, and of a name like "hard" not
    a word: the built-in played, their code never ran."""
    key = bot_name_key(name)
    for ep in sorted(_bot_entry_points(), key=lambda e: (e.name, e.value)):
        if bot_name_key(ep.name) == key:
            why = _refused_name(key)
            if why is not None:
                return str(ep.name)[:60], str(ep.value)[:120], why
    return None


def twin_plugins(name: str) -> list[str]:
    """The ``module:factory`` of every installed plug-in called ``name`` (as it is looked
    up), the one offered first (:func:`plugin_bots`), when there are two or more; else
    []."""
    key = bot_name_key(name)
    if _refused_name(key) is not None:
        return []
    found = [str(ep.value)[:120] for ep in sorted(_bot_entry_points(),
                                                  key=lambda e: (e.name, e.value))
             if bot_name_key(ep.name) == key]
    return found if len(found) > 1 else []


def bot_name_key(name: str) -> str:
    """A bot's name as it is looked up: NFKC, then case-folded, so that what a keyboard
    types finds it ("ffbot" finds "ﬀbot"; "İstanbul" is found as typed or lowercased)."""
    return unicodedata.normalize("NFKC", name).casefold()


def _bot_entry_points() -> list[Any]:
    """The entry points of group ``millebornes.bots``, distribution by distribution: one
    installed distribution whose ``entry_points.txt`` does not parse is skipped and named
    in the log (``importlib.metadata.entry_points`` raised on it, and every plug-in name
    was "unexpected error: TypeError")."""
    from importlib.metadata import distributions  # 25 ms at start-up: only when asked

    found: list[Any] = []
    seen: set[str] = set()
    for dist in distributions():
        try:
            name = str(dist.name or "").lower().replace("_", "-")
            if name in seen:
                continue                   # the first on the path, as entry_points() does
            seen.add(name)
            found += [ep for ep in dist.entry_points if ep.group == ENTRY_POINT_GROUP]
        except Exception as exc:  # noqa: BLE001 - someone else's broken metadata
            where = str(getattr(dist, "_path", "?"))[:200]
            _warn_once(("metadata", where, type(exc).__name__),
                       "an installed distribution's metadata could not be read (%s: %s); "
                       "its bot plug-ins, if any, are not offered", where,
                       exception_words(exc))
    return found


_WARNED: set[tuple[str, str, str]] = set()


def _warn_once(what: tuple[str, str, str], message: str, *args: object) -> None:
    """A plug-in that is not offered is said once a process, in the log (the entry points
    are read at every use: it was said again and again, on the terminal before logging
    began)."""
    if what not in _WARNED:
        if not log.hasHandlers():
            # read before the command set up its log (its arguments' check): Python's
            # last resort printed it on the player's terminal and the log never had it;
            # it is said at the next reading, once the log is there
            return
        _WARNED.add(what)
        log.warning(message, *args)


#: Whether this process has loaded a plug-in (its import ran here): a process that has
#: must not be forked for a bot's peer (cli.bot_peers), which would inherit what the
#: plug-in's import did.
PLUGINS_LOADED = False


class _LazyFactory:
    """Loads an entry point only when the bot is made (a broken plug-in fails its own name)."""

    def __init__(self, ep: Any) -> None:
        self.ep = ep

    def __call__(self, seed: int, **options: Any) -> SeatController:
        global PLUGINS_LOADED
        PLUGINS_LOADED = True
        try:
            factory = self.ep.load()
        except SystemExit as exc:
            # a module that is also its author's try-out script: ``sys.exit(main())``
            # without its ``__name__`` guard ("could not be made: SystemExit: 0")
            raise PluginFailed(f"bot plug-in {self.ep.name!r} ({self.ep.value}) failed to "
                               f"load: its module raised {exception_words(exc)} as it was "
                               "imported (a sys.exit left outside an if __name__ == "
                               "'__main__': guard?)") from None
        except Exception as exc:  # any import error of third-party code: one clear message
            raise PluginFailed(f"bot plug-in {self.ep.name!r} ({self.ep.value}) failed to "
                             f"load: {_fault_words(exc)}") from None
        if not callable(factory):
            # its entry point names a constant, a module...: "'int' object is not callable"
            raise PluginFailed(f"bot plug-in {self.ep.name!r} ({self.ep.value}) is not a "
                               f"factory of bots: its entry point names an object of "
                               f"type {type(factory).__name__[:40]}, not a function or a "
                               f"class")
        takes_seed = _takes(factory, seed)
        if takes_seed is not None:
            # "TypeError: make() takes 0 positional arguments but 1 was given", said as
            # the bot's making: the stranger who wrote it did not know how it is called
            raise PluginFailed(f"bot plug-in {self.ep.name!r} ({self.ep.value}) cannot be "
                               f"called as factory(seed, **options) ({takes_seed}): write "
                               f"it as def make(seed, **options)")
        missing = _missing_options(factory, options)
        if missing:
            # "TypeError: make() missing 1 required positional argument: 'depth'": an
            # option its factory cannot do without, and the spec did not give it
            raise PluginFailed(f"bot plug-in {self.ep.name!r} ({self.ep.value}) needs the "
                               f"option{'s' if len(missing) > 1 else ''} "
                               f"{', '.join(missing)}, which its spec does not give: "
                               # with the options the player gave (the spec shown had
                               # dropped them: needy:width=2 was told needy:depth=VALUE)
                               + ":".join([self.ep.name,
                                           *(f"{k}={v}" for k, v in options.items()),
                                           *(f"{m}=VALUE" for m in missing)])
                               + " (or a default in its factory)")
        try:
            bot: SeatController = factory(seed, **options)
        except TypeError:
            # its options (make_bot says "bad options"): a factory that hands them on
            # (``def make(seed, **options): return Bot(seed, **options)``) takes any
            raise
        except Exception as exc:     # third-party code: one clear message naming it
            # its cause kept: an author's own test of the bot shows the factory's traceback
            raise PluginFailed(f"bot plug-in {self.ep.name!r} ({self.ep.value}) failed to "
                               f"make its bot: {_fault_words(exc)}",
                               "" if isinstance(exc, BotGuardFault) else where_raised(exc)
                               ) from exc
        if isinstance(bot, type) and inspect.isfunction(inspect.getattr_static(bot, "choose",
                                                                               None)):
            # ``return Greedy``, its ``()`` forgotten: the class has a choose, which failed
            # at the first move ("Greedy.choose() missing 1 required positional argument")
            name = str(getattr(bot, "__name__", "?"))[:40]
            raise PluginFailed(f"bot plug-in {self.ep.name!r} made the class {name} itself, "
                               f"not a bot: its factory must return an object of it "
                               f"(return {name}(...))")
        if not callable(getattr(bot, "choose", None)):
            # a factory that returns the bot's function itself, or a callable: say what
            # it made and what a bot is
            what = ("a function" if inspect.isfunction(bot) or inspect.isbuiltin(bot)
                    or inspect.ismethod(bot) else None)
            if what:
                raise PluginFailed(f"bot plug-in {self.ep.name!r} made {what}, not an "
                                   f"object with a choose(view, legal) method")
            if bot is None:
                raise PluginFailed(f"bot plug-in {self.ep.name!r} made nothing: its factory "
                                   f"returned None (return the bot it makes)")
            raise PluginFailed(f"bot plug-in {self.ep.name!r} made an object of type "
                               f"{type(bot).__name__[:40]}, which has no choose(view, "
                               f"legal) method")
        found = _choose_takes(bot.choose)
        if found is not None:
            # an old-style bot, choose(self, state): it failed at its first move, in the
            # middle of a match ("takes 2 positional arguments but 3 were given")
            raise PluginFailed(f"bot plug-in {self.ep.name!r} made a bot of type "
                               f"{type(bot).__name__[:40]} whose method is choose{found}; "
                               f"a bot's is called as choose(view, legal): write it as "
                               f"def choose(self, view, legal)")
        how = _choose_kind(bot.choose)
        if how is not None:
            # an async def choose (or one that yields): its answer is a coroutine, and it
            # failed at its first move, in the middle of a match
            raise PluginFailed(f"bot plug-in {self.ep.name!r} made a bot of type "
                               f"{type(bot).__name__[:40]} whose choose {how}: write it "
                               f"as a plain def choose(self, view, legal) that returns "
                               f"one of legal"
                               + (" (with asyncio.run inside if it awaits)"
                                  if "async" in how else ""))
        return bot


def _choose_kind(choose: Callable[..., Any]) -> str | None:
    """What a bot's ``choose`` is, in words, when it returns something other than its
    answer ("is an async def", "yields"), else None (read from its code's flags: nothing
    of the plug-in's runs)."""
    if inspect.iscoroutinefunction(choose):
        return "is an async def"
    if inspect.isasyncgenfunction(choose):
        return "is an async def that yields"
    if inspect.isgeneratorfunction(choose):
        return "yields"
    return None


def _choose_takes(choose: Callable[..., Any]) -> str | None:
    """The parameters of a bot's ``choose`` in words ("(state)") when it cannot be called
    as ``choose(view, legal)``, else None (also when they cannot be read: it is called,
    and tells for itself). Only the parameters' names and kinds are read: a default's or
    an annotation's ``repr`` would run the plug-in's code."""
    try:
        signature = inspect.signature(choose)
    except (TypeError, ValueError):
        return None
    try:
        signature.bind(None, None)
    except TypeError:
        pass
    else:
        return None
    words: list[str] = []
    starred = False                       # a * (or *args) said before keyword-only ones
    for p in signature.parameters.values():
        if p.kind is p.KEYWORD_ONLY and not starred:
            words.append("*")
        starred = starred or p.kind in (p.KEYWORD_ONLY, p.VAR_POSITIONAL)
        star = ("*" if p.kind is p.VAR_POSITIONAL else "**" if p.kind is p.VAR_KEYWORD
                else "")
        words.append(star + p.name[:30] + ("=..." if p.default is not p.empty else ""))
    if len(words) > 8:
        words[8:] = ["..."]
    return "(" + ", ".join(words) + ")"


def _takes(factory: Callable[..., Any], seed: int) -> str | None:
    """Why ``factory`` cannot be called with a seed alone, or None when it can (or when
    its parameters cannot be read: it is called, and tells for itself)."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return None
    try:
        signature.bind_partial(seed)   # a required option the spec may give
    except TypeError as exc:
        words = str(exc)[:200]
        return "it takes no seed" if words == "too many positional arguments" else words
    return None


def _missing_options(factory: Callable[..., Any], options: Mapping[str, Any]) -> list[str]:
    """The parameters of ``factory`` after its seed that have no default and that
    ``options`` does not give (none when its parameters cannot be read)."""
    try:
        params = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return []
    return [p.name for i, p in enumerate(params)
            if i > 0 and p.default is p.empty and p.name not in options
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)][:8]


def is_bot_name(name: str) -> bool:
    """Whether a spec may start with ``name``: a built-in or a level is known without
    reading the installed distributions' entry points (slow at start-up)."""
    return name in BOTS or name in LEVELS or name in plugin_bots()


def misplaced_plugin(name: str) -> tuple[str, str] | None:
    """``(package, group)`` when an installed package declares a bot called ``name``
    (as it is looked up) in an entry-point group that is not ``millebornes.bots`` but
    was meant to be (``millebornes_bots``, ``millebornes.bot``, ``millebornes``: a typo
    in the plug-in's pyproject.toml), else None. Its author was told only "there is no
    bot called ...", and their bot was installed."""
    from importlib.metadata import distributions

    key = bot_name_key(name)
    for dist in distributions():
        try:
            for ep in dist.entry_points:
                group = str(ep.group)
                if group == ENTRY_POINT_GROUP or "millebornes" not in group.casefold():
                    continue
                if bot_name_key(str(ep.name)) == key:
                    return str(dist.name or "?")[:60], group[:60]
        except Exception:  # noqa: BLE001 - someone else's broken metadata (said elsewhere)
            continue
    return None


def bot_names() -> list[str]:
    """Every name a spec may start with: built-ins, levels, then plug-ins."""
    return [*BOTS, *LEVELS, *sorted(plugin_bots())]


#: What reads as a number in a bot option: plain ASCII digits, a sign, a point, an
#: exponent (Python's ``int`` and ``float`` also read "nan", "inf", "Infinity", "1_000"
#: and other scripts' digits: ``mybot:player=Nan`` gave the bot the float nan).
_INT = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _parse_value(text: str) -> int | float | str:
    if _INT.fullmatch(text):
        try:
            return int(text)
        except ValueError:        # more digits than Python reads (sys.set_int_max_str_digits)
            return text
    if _FLOAT.fullmatch(text):
        value = float(text)
        # an exponent past a float's range read as inf ("1e999"): the string, as "inf" is
        return value if math.isfinite(value) else text
    return text


def parse_bot_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"search:playouts=500:ms=0"`` -> ``("search", {"playouts": 500, "ms": 0})``.

    A level is expanded first (options given after a level override the level's)."""
    parts = [p.strip() for p in spec.strip().split(":")]
    name = bot_name_key(parts[0])
    if not name:
        raise ValueError(f"a bot spec needs a name, not {spec!r}")
    options: dict[str, Any] = {}
    if name in LEVELS:
        name, options = parse_bot_spec(LEVELS[name])
    given: set[str] = set()
    for part in parts[1:]:
        key, sep, value = part.partition("=")
        key = unicodedata.normalize("NFKC", key.strip()).lower().replace("-", "_")
        if not sep or not key.isidentifier():
            raise ValueError(f"bot option {part!r} in {spec!r} must look like NAME=VALUE")
        if key == "seed":
            raise BotOptionError(f"a bot's seed is not an option (in {spec!r}): the seed "
                                 "comes from --seed")
        if key in given:
            raise BotOptionError(f"bot option {key!r} is given twice in {spec!r}")
        given.add(key)
        options[key] = _parse_value(value.strip())
    return name, options


def make_bot(spec: str, seed: int = 0) -> SeatController:
    """A fresh bot from a spec (``heuristic``, ``search:playouts=500``, ``expert``, ...)."""
    name, options = parse_bot_spec(spec)
    factory = BOTS.get(name)
    if factory is None:
        factory = plugin_bots().get(name)
    if factory is None:
        misplaced = misplaced_plugin(name)
        if misplaced is not None:
            raise ValueError(f"unknown bot {name!r}: the package {misplaced[0]!r} declares it "
                             f"in the entry-point group {misplaced[1]!r}, which millebornes "
                             f"does not read; the group is {ENTRY_POINT_GROUP}")
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(bot_names())}")
    takes = _options_of(factory) if name in BOTS else None
    if takes is not None:
        unknown = sorted(set(options) - set(takes))
        if unknown:
            raise ValueError(f"bot {name!r} has no option {', '.join(unknown)} (in {spec!r}"
                             f"{meant(unknown, takes)}); "
                             + (f"it takes {', '.join(takes)}" if takes else "it takes none"))
    if not options:
        # no option given: a TypeError is the factory's own (a plug-in's bug, or a factory
        # that takes no seed), not "bad options" the player never wrote
        return factory(seed)
    try:
        return factory(seed, **options)
    except TypeError as exc:
        raise ValueError(f"bad options for bot {name!r} in {spec!r}: {exc}") from None


#: A bot's identity (:func:`bot_identity`): its name, and its options by name.
BotIdentity = tuple[str, tuple[tuple[str, Any], ...]]


def declared_options(factory: Callable[..., Any]) -> dict[str, int | float | str]:
    """The options ``factory`` declares with a default of a type an option's value may
    have (an int, a float or a string: ``def make(seed, depth=3, **options)`` declares
    ``depth=3``), its seed (the first parameter) left out; none when its parameters
    cannot be read. Only the defaults' types are asked, never their ``repr``."""
    try:
        params = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return {}
    out: dict[str, int | float | str] = {}
    for i, p in enumerate(params):
        if (i == 0 and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)) \
                or p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            continue                 # the seed, *args, **options
        value = p.default
        if type(value) in (int, str) or (type(value) is float and math.isfinite(value)):
            out[p.name] = value
    return out


def bot_identity(spec: str, declared: Mapping[str, Any] | None = None) -> BotIdentity:
    """Which bot ``spec`` makes, for telling two entrants of a tournament apart: its name
    (as it is looked up, a level for its spec) and the options its factory is called
    with, the defaults it declares counted (``declared``; a built-in's are read here):
    ``heuristic`` and ``heuristic:match=1`` are one bot, and so are ``mybot`` and
    ``mybot:depth=3`` for ``def make(seed, depth=3, **options)``. Values are compared as
    Python compares them: ``x=1`` (the int 1) and ``x=1.0`` (the float) are one number,
    so one bot; ``x=yes`` and ``x=Yes`` are two words, two bots."""
    name, options = parse_bot_spec(spec)
    if declared is None:
        factory = BOTS.get(name)
        declared = declared_options(factory) if factory is not None else {}
    full = {**declared, **options}
    return name, tuple(sorted(full.items()))


def _options_of(factory: BotFactory) -> list[str] | None:
    """The options a built-in bot's constructor takes (every parameter but the seed), or
    None when it takes any (``**options``: it checks them itself, in words)."""
    params = inspect.signature(factory).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return [p.name for p in params if p.name != "seed"]
