"""The command line: every verb's arguments, and the helpers that turn them into values.

All argument parsing and checking lives here, so a verb's module receives a checked
Namespace and every flag has one meaning everywhere. Each check ends in a plain
``ValueError`` sentence (``cli.main`` prints it with the verb's own usage), never a
traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import math
import os
import re
import shlex
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from engine import BotOptionError, Rules, Seating, parse_option, preset
from engine.bots import (
    BOTS,
    LEVELS,
    bot_name_key,
    bot_names,
    is_bot_name,
    misplaced_plugin,
    parse_bot_spec,
    twin_plugins,
    unoffered_plugin,
)
from engine.bots import MAX_NAME as MAX_BOT_NAME

from . import i18n
from .bot_limit import try_make
from .i18n import N_, _, close_match, did_you_mean, ngettext
from .program import as_typed
from .words import command_block, reply, report_width, rule_options_text, wrap

#: Bot names offered at a local table, in seat order after the human.
BOT_NAMES = ("Bo", "Cy", "Di", "Ed", "Flo")
MAX_NAME = 12
#: The most matches one command plays (``simulate --games``, ``tournament --deals``).
MAX_MATCHES = 1_000_000
#: The most worker processes ``tournament --jobs`` starts.
MAX_JOBS = 256
#: ``join --connect-timeout``: from a fast LAN to a slow VPN, and never forever.
CONNECT_TIMEOUT = (0.1, 3600.0)
#: ``host --move-limit``: the table header's bounds on a move's time limit (those of
#: ``p2p.table.config.DECISION_LIMITS``, not imported: ``--help`` loads no cryptography).
MOVE_LIMIT = (1.0, 86400.0)

#: verb -> module (``cli.<module>``) that runs it with ``run(args)``.
VERB_MODULES: dict[str, str] = {
    "play": "play", "host": "host", "join": "join", "lobby": "lobby", "resume": "resume",
    "games": "games", "simulate": "simulate", "verify": "verify", "replay": "replay",
    "bench": "bench", "tournament": "tournament", "rules": "rules", "help": "usage",
}


def version() -> str:
    # read from the installed distribution when asked: importing importlib.metadata and
    # reading the metadata at every start cost 25 ms (more with a cold disk cache)
    from importlib import metadata

    try:
        return metadata.version("millebornes")
    except metadata.PackageNotFoundError:
        return "0+unknown"


class _VersionAction(argparse.Action):
    """``--version``: like argparse's own, but the version is looked up only when asked."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                 help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(f"millebornes {version()}")
        parser.exit()


# ----- value types (argparse calls them; a ValueError becomes a usage error) ------------

def port_number(text: str) -> int:
    """A TCP port: 0 (any free port) to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("a port is a number from 1 to 65535, not %(text)s")
                                         % {"text": repr(text)}) from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(_("a port is a number from 1 to 65535, not %(text)s")
                                         % {"text": value})
    return value


def peer_address(text: str) -> str:
    """``[FINGERPRINT@]HOST:PORT`` (``[v6]:PORT`` for IPv6) checked in full, in the
    player's language, before anything starts: a fingerprint of the wrong shape and an
    IPv6 address without brackets (``fe80::1`` read as host ``fe80:``, port 1) were said
    later, in English ("not HOST:PORT ('fe80:' is not an IP address or host name)").
    The name is resolved when connecting."""
    from p2p.net import normal_fingerprint, parse_endpoint

    t = text.strip()
    fp, at, rest = t.partition("@")
    if not at:
        fp, rest = "", t
    elif normal_fingerprint(fp) is None:
        raise argparse.ArgumentTypeError(
            _("--peer %(text)s: %(fp)s is not a key fingerprint (XXXXX-XXXXX, as the "
              "host's screen shows it)") % {"text": repr(text), "fp": repr(fp[:20])})
    host, sep, port = rest.rpartition(":")
    bracketed = len(host) > 1 and host.startswith("[") and host.endswith("]")
    host = host[1:-1] if bracketed else host
    if not sep or not host or not port:
        raise argparse.ArgumentTypeError(_("--peer takes HOST:PORT, e.g. 192.168.1.7:4770, "
                                           "not %(text)s") % {"text": repr(text)})
    if ":" in host and not bracketed:
        raise argparse.ArgumentTypeError(
            _("--peer %(text)s: an IPv6 address goes in brackets, then the port: "
              "[%(address)s]:PORT") % {"text": repr(text), "address": rest[:45]})
    if port_number(port) == 0:
        raise argparse.ArgumentTypeError(_("--peer needs the table's port (1-65535), not 0 "
                                           "in %(text)s") % {"text": repr(text)})
    shown = f"[{host}]" if ":" in host else host
    try:
        if any(ch.isspace() for ch in host):
            raise ValueError(host)
        parse_endpoint(f"{shown}:{int(port)}")
    except ValueError:
        raise argparse.ArgumentTypeError(_("%(host)s is not a host name or address")
                                         % {"host": repr(host[:60])}) from None
    return f"{fp}{at}{shown}:{int(port)}"


def count(low: int, high: int, what: str, why: str = "") -> Callable[[str], int]:
    """A whole number from ``low`` to ``high``; ``why`` says where the bounds come from."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            values = {"what": what, "low": low, "high": high, "why": why, "text": text}
            raise argparse.ArgumentTypeError(
                (_("%(what)s must be %(low)d to %(high)d (%(why)s), not %(text)s") if why else
                 _("%(what)s must be %(low)d to %(high)d, not %(text)s")) % values)
        return value
    return parse


def folder(flag: str) -> Callable[[str], str]:
    """A folder to write into: one that exists, or none yet (it is made); a file there
    is refused up front, naming the flag ("File exists" came from deep inside)."""
    def parse(text: str) -> str:
        if os.path.lexists(text) and not os.path.isdir(text):
            raise argparse.ArgumentTypeError(
                _("%(flag)s %(path)s is a file, not a folder: give a folder (it is made "
                  "if it does not exist)") % {"flag": flag, "path": text})
        return text
    return parse


#: The largest ``--seed``: a seed goes into stores and bot seeds as a 64-bit number
#: (seed × 1,000,003 + …), so a larger one stopped the table with an OverflowError.
MAX_SEED = 2 ** 32 - 1
SEED = count(0, MAX_SEED, "--seed")


def seconds(low: float, high: float, what: str) -> Callable[[str], float]:
    """A finite number of seconds from ``low`` to ``high`` (``nan``, ``inf`` and ``1e400``
    are refused: a wait must end, and when it was asked to)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and low <= value <= high):
            raise argparse.ArgumentTypeError(
                _("%(what)s must be a number of seconds from %(low)s to %(high)s, not %(text)s")
                % {"what": what, "low": f"{low:g}", "high": f"{high:g}", "text": text})
        return value
    return parse


class BotsArg(int):
    """``--bots`` of play/host: a number of bots, or a level or bot spec per bot seat
    (``expert``, ``hard,easy``, ``search:ms=200``). The value is the number of bots;
    ``specs`` holds one spec per bot seat (the default bot for a plain number)."""

    specs: tuple[str, ...] = ()
    #: what was typed (``expert``, ``2``): quoted back as it was
    text: str = ""


def bot_seats(low: int, high: int, default_bot: str = "heuristic") -> Callable[[str], BotsArg]:
    """``--bots N`` (``low``..``high`` bots of the default kind) or ``--bots SPEC,SPEC,...``
    (a level — easy, normal, hard, expert — or any bot name, options after a colon)."""
    def parse(text: str) -> BotsArg:
        text = text.strip()
        if text.lstrip("+-").isdigit():   # a number, "-1" too: said as a number
            specs = [default_bot] * count(low, high, "--bots",
                                          _("a table seats 2 to 6 players"))(text)
        else:
            specs = [s.strip() for s in text.split(",") if s.strip()]
            if not low <= len(specs) <= high:
                raise argparse.ArgumentTypeError(
                    _("--bots names %(low)d to %(high)d bots, not %(n)d")
                    % {"low": low, "high": high, "n": len(specs)})
            for spec in specs:
                check_bot_spec(spec, "--bots")
                problem = bot_problem(spec)
                if problem:
                    raise argparse.ArgumentTypeError(problem)
        value = BotsArg(len(specs))
        value.specs = tuple(specs)
        value.text = text
        return value
    return parse


def check_bot_spec(spec: str, flag: str) -> None:
    """A spec's shape and bot name, said in the player's language (the engine's own
    ``ValueError`` is English): which flag, which spec, what to write instead."""
    try:
        name, _options = parse_bot_spec(spec)
    except BotOptionError as exc:
        # well formed, but an option twice or a seed: the engine's own words say which
        raise argparse.ArgumentTypeError(f"{flag} {spec!r}: {exc}") from None
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("%(flag)s %(spec)s: a bot spec is a name, then options as :NAME=VALUE "
              "(e.g. search:ms=200)") % {"flag": flag, "spec": repr(spec)}) from None
    typed = bot_name_key(spec.split(":", 1)[0].strip())     # a level as typed, "hard"
    if typed in BOTS or typed in LEVELS:
        _say_plugin_not_offered(typed)
    elif is_bot_name(name):
        _say_twin_plugins(name)
    if not is_bot_name(name):
        refused = unoffered_plugin(name)
        if refused is not None:
            # "there is no bot called 'my bot'" of the plug-in its author had installed
            raise argparse.ArgumentTypeError(
                _("%(flag)s: there is no bot called %(name)s: the plug-in %(plugin)s "
                  "(%(target)s) is not offered under that name (a bot's name holds no "
                  "space, colon, comma or equals sign, is not digits alone and has "
                  "%(most)d characters at most); give its entry point another name in "
                  "the group millebornes.bots") % {
                    "flag": flag, "name": repr(name), "plugin": repr(refused[0]),
                    "target": refused[1], "most": MAX_BOT_NAME})
        misplaced = misplaced_plugin(name)
        if misplaced is not None:
            raise argparse.ArgumentTypeError(
                _("%(flag)s: there is no bot called %(name)s: the package %(package)s "
                  "declares it in the entry-point group %(group)s, which millebornes "
                  "does not read; the group is millebornes.bots") % {
                    "flag": flag, "name": repr(name), "package": repr(misplaced[0]),
                    "group": repr(misplaced[1])})
        if name.endswith(".py") or "/" in name or "\\" in name:
            # an author's first try is their bot's file (--bots ./mybot.py): a bot is
            # found by the name its package declares, never by a path
            raise argparse.ArgumentTypeError(
                _("%(flag)s: there is no bot called %(name)s: a bot is not named by its "
                  "file but by the name its package declares in the entry-point group "
                  "millebornes.bots, once it is installed (pip install; docs/bots.md, "
                  "Writing a bot)") % {"flag": flag, "name": repr(name)}
                + (did_you_mean(stem, [stem])
                   if is_bot_name(stem := re.split(r"[/\\]", name)[-1].removesuffix(".py"))
                   else ""))
        raise argparse.ArgumentTypeError(
            _("%(flag)s: there is no bot called %(name)s; choose from %(names)s")
            % {"flag": flag, "name": repr(name), "names": i18n.join_list(bot_names())}
            + did_you_mean(name, bot_names()))


#: Built-in names already said to be claimed by a plug-in, in this process.
_SAID_NOT_OFFERED: set[tuple[str, str]] = set()


def _say_plugin_not_offered(name: str) -> None:
    """On stderr, once: an installed plug-in claims the built-in bot's or level's
    ``name``, and the built-in plays where it is named (its author ran ``simulate --bots
    hard`` and the search bot played, their code never run, not a word but the log's)."""
    refused = unoffered_plugin(name)
    if refused is None or refused[2] != "builtin" or (name, refused[1]) in _SAID_NOT_OFFERED:
        return
    _SAID_NOT_OFFERED.add((name, refused[1]))
    line = _("millebornes: the plug-in bot %(plugin)s (%(target)s) is not offered: "
             "%(name)s is a built-in bot's name, and the built-in one plays; give the "
             "plug-in's entry point another name in the group millebornes.bots") % {
                 "plugin": repr(refused[0]), "target": refused[1], "name": repr(name)}
    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(i18n.display(line), file=sys.stderr)


def _say_twin_plugins(name: str) -> None:
    """On stderr, once: two installed plug-ins are called ``name``, and which one plays
    (two packages that declare one name, an old version under another distribution's
    name: the first sorted played, and only the log said so)."""
    twins = twin_plugins(name)
    if not twins or (name, twins[0]) in _SAID_NOT_OFFERED:
        return
    _SAID_NOT_OFFERED.add((name, twins[0]))
    line = ngettext("millebornes: %(n)d installed plug-in is called %(name)s: %(offered)s "
                    "plays, not %(others)s; give the others' entry points another name "
                    "in the group millebornes.bots, or uninstall them",
                    "millebornes: %(n)d installed plug-ins are called %(name)s: "
                    "%(offered)s plays, not %(others)s; give the others' entry points "
                    "another name in the group millebornes.bots, or uninstall them",
                    len(twins)) % {
                 "n": len(twins), "name": repr(name), "offered": twins[0],
                 "others": i18n.join_list(twins[1:])}
    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(i18n.display(line), file=sys.stderr)


def check_bot_entrant(spec: str) -> None:
    """A bot named in ``--bots`` of simulate or tournament, checked before any match
    starts: its name (:func:`check_bot_spec`) and its options (the bot's own check, whose
    words stay English), as a ``ValueError`` in the player's language."""
    try:
        check_bot_spec(spec, "--bots")
    except argparse.ArgumentTypeError as exc:
        raise ValueError(str(exc)) from None
    problem = bot_problem(spec)
    if problem:
        raise ValueError(problem)


def bot_problem(spec: str) -> str:
    """What is wrong with making the bot of ``spec`` ("" when nothing): its options (the
    bot's own check), or a plug-in that fails to load, to be made, or to be made in time
    (:func:`cli.bot_limit.try_make`: a plug-in is made in a throwaway child process,
    never in this one); the bot's own words stay English."""
    problem = try_make(spec)
    if problem is None:
        return ""
    kind, error = problem
    if kind == "made" or error.startswith("bad options for bot"):
        # the bot's own words, nothing to translate ("bad options" was said twice)
        return f"--bots {spec}: {error}"
    return _("--bots %(spec)s: bad options for this bot (%(error)s)") % {
        "spec": spec, "error": error}


#: argparse's own words, translated through our catalogs (argparse looks its ``_`` up at
#: call time; a message not listed here stays as argparse wrote it).
ARGPARSE_WORDS = (N_("usage: "), N_("options"), N_("positional arguments"),
                  N_("show this help message and exit"),
                  N_("show program's version number and exit"),
                  N_("the following arguments are required: %s"),
                  N_("expected one argument"), N_("invalid %(type)s value: %(value)r"),
                  N_("invalid choice: %(value)r (choose from %(choices)s)"),
                  N_("ambiguous option: %(option)s could match %(matches)s"))


def _argparse_gettext(message: str) -> str:
    return _(message) if message in ARGPARSE_WORDS else message


argparse._ = _argparse_gettext  # type: ignore[attr-defined]


class UsageError(Exception):
    """A command line that does not parse; ``usage`` is the verb's own usage line."""

    def __init__(self, message: str, prog: str, usage: str) -> None:
        super().__init__(message)
        self.prog = prog
        self.usage = usage


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The helps' options wrapped without cutting a word: argparse cut one longer than the
    help's column (the program's path in "`/home/ann/src/millebornes/.venv/bin/millebornes
    games`" at 60 columns, "/home/ann/src" / "/millebornes/…": pasted, another path) and
    at its hyphens ("ug-" / "Latn"). A command in a help is joined by no-break spaces
    (:func:`_help_command`), kept on one line, shown with plain ones."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        text = re.sub(r"[ \t\n\r\f\v]+", " ", text).strip()
        return [line.replace(i18n.NO_BREAK, " ")
                for line in textwrap.wrap(text, width, break_long_words=False,
                                          break_on_hyphens=False)]


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are raised (``cli.main`` words them with the
    verb's own usage) instead of printed with the top-level usage and exiting."""

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        # a mistyped verb close to one ("plya"): the verb it most likely meant, as a
        # mistyped command at the table is answered
        if isinstance(action, argparse._SubParsersAction) and action.choices is not None \
                and value not in action.choices:
            guess = close_match(str(value), list(action.choices))
            if guess:
                raise argparse.ArgumentError(None, reply("did-you-mean", word=value,
                                                         guess=guess))
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError as exc:
            # a choice mistyped ("--rules modrn", "--bidi termnal"): the list, and the
            # choice it most likely meant
            extra = did_you_mean(str(value), [str(c) for c in action.choices or ()])
            if not action.option_strings:
                # a word in its place ("bench foo"): argparse named it by its dest, an
                # internal name ("what: invalid choice"); the verb's name says enough
                raise argparse.ArgumentError(None, exc.message + extra) from None
            if not extra:
                raise
            raise argparse.ArgumentError(action, exc.message + extra) from None

    def _print_message(self, message: str, file: Any = None) -> None:
        # --help and --version as every other line of the cli says them: Uyghur shaped
        # and in visual order (argparse printed it in logical order, its letters unjoined)
        if message:
            message = "\n".join(i18n.display(line) for line in message.split("\n"))
        super()._print_message(message, file)

    def error(self, message: str) -> NoReturn:
        message = message.replace("argument ", "", 1) if message.startswith("argument ") \
            else message
        if ": " in message and message.split(": ", 1)[0].startswith("--") and \
                message.split(": ", 1)[1].startswith("--"):
            message = message.split(": ", 1)[1]   # "--bots: --bots must be…" said once
        raise UsageError(message, self.prog, self.format_usage().rstrip())


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """``parser``'s option strings, each with its action (``--help`` left out)."""
    return {o: a for a in parser._actions for o in a.option_strings
            if not isinstance(a, argparse._HelpAction)}


def _option_of(parser: argparse.ArgumentParser, word: str) -> argparse.Action | None:
    """The option of ``parser`` that argparse takes ``word`` for: its name, or a long
    name's unique start ("--verb" for "--verbose", as argparse allows); None when none
    or when it is the start of several. "millebornes --verb games", which argparse
    reads as --verbose, was answered "--verb: millebornes games has no such option", and
    "millebornes --ru modern play" so while "millebornes play --ru modern" plays
    (hostile pass 11)."""
    name = word.split("=", 1)[0]
    actions = parser._option_string_actions
    if name in actions:
        return actions[name]
    if not (parser.allow_abbrev and name.startswith("--") and len(name) > 2):
        return None
    found = {actions[o] for o in actions if o.startswith(name)}
    return found.pop() if len(found) == 1 else None


#: Another verb's word for one of a verb's options: how many matches is ``--games`` in
#: ``simulate`` and ``--deals`` in ``tournament`` ("tournament --games 4", typed after the
#: README's "simulate --games 500", was answered "did you mean '--teams'?"); both verbs
#: report "100 matches", and "--matches 3" was answered with the usage alone.
OPTION_SYNONYMS = {"--games": ("--deals",), "--deals": ("--games",),
                   "--matches": ("--games", "--deals")}


def option_guess(extra: Sequence[str], parser: argparse.ArgumentParser) -> str:
    """What to add to "unrecognized arguments": the option a mistyped one most likely
    meant ("--bost 2": "; did you mean '--bots'?", as a mistyped choice is answered;
    another verb's word for one of this verb's options, :data:`OPTION_SYNONYMS`: that
    option), else ""."""
    options = {o for o in _options(parser) if o.startswith("--")}
    meant = {o: o for o in options}
    meant.update({word: m for word, ms in OPTION_SYNONYMS.items()
                  for m in ms if m in options and word not in options})
    # compared without their dashes: the two every option shares made a word of nothing
    # alike close enough ("--bogus": "did you mean '--verbose'?")
    names = {word.lstrip("-"): m for word, m in meant.items()}
    for word in extra:
        if word.startswith("-") and len(word) > 2:
            hint = did_you_mean(word.split("=", 1)[0].lstrip("-"), names)
            if hint:
                return hint
    return ""


def misplaced_options(words: Sequence[str], parser: argparse.ArgumentParser,
                      verbs: dict[str, argparse.ArgumentParser]) -> str | None:
    """A verb's option written before the verb ("millebornes --rules modern play"): the
    sentence that says where it goes, with the command put right; None when every word
    before the verb is the top-level parser's (--lang, --bidi, --verbose, --version). The
    top-level parser took "modern" for the verb: "invalid choice: 'modern' (choose from
    'play', …)", which said nothing of the option."""
    top = [o for o in parser._option_string_actions if o.startswith("--")]
    kept: list[str] = []
    moved: list[str] = []
    i = 0
    value_due = False     # the word after a moved option may be its value (one word)
    while i < len(words):
        word = words[i]
        if word in ("-h", "--help", "--"):   # the help, wherever it is asked, and the end
            return None                      # of options: argparse's
        if word.startswith("-"):
            action = _option_of(parser, word)
            if isinstance(action, argparse._HelpAction) or (action is None and sum(
                    o.startswith(word.split("=", 1)[0]) for o in top) > 1):
                return None   # "--hel": the help too; "--ver": argparse says it is ambiguous
            if action is None:
                moved.append(word)
                value_due = "=" not in word
            else:
                kept.append(word)
                if action.nargs != 0 and "=" not in word and i + 1 < len(words):
                    i += 1
                    kept.append(words[i])
        elif word in verbs:
            break
        elif value_due:      # the value of the option before it
            moved.append(word)
            value_due = False
        elif moved:          # a second word, no verb ("--rules modern plya"): argparse
            # took "modern" for the verb, and the verb was guessed with the option moved
            # after the word ("millebornes play --rules modern plya")
            # the command on a line of its own (:func:`cli.words.command_block`): inside
            # the sentence, a narrow terminal cut it
            return (_("%(word)s is not a verb of millebornes, and options such as "
                      "%(option)s go after the verb%(hint)s")
                    % {"word": repr(word), "hint": did_you_mean(word, list(verbs)),
                       "option": moved[0].split("=", 1)[0]}
                    + "\n" + _("This command lists the verbs:")
                    + command_block("millebornes --help"))
        else:
            return None
        i += 1
    if not moved:
        return None
    options = [w.split("=", 1)[0] for w in moved if w.startswith("-")]
    said = i18n.join_list(options)

    def takes_all(verb: str) -> bool:
        return all(_option_of(verbs[verb], o) is not None for o in options)

    if i < len(words):
        verb = words[i]
        if not takes_all(verb):
            return (_("%(options)s: millebornes %(verb)s has no such option")
                    % {"options": said, "verb": verb}
                    + "\n" + _("This command lists its options:")
                    + command_block(f"millebornes {verb} --help"))
        return (ngettext("%(options)s goes after the verb: %(command)s",
                         "%(options)s go after the verb: %(command)s", len(options))
                % {"options": said, "command": as_typed("millebornes " + shlex.join(
                    [*kept, verb, *moved, *words[i + 1:]]))})
    # no verb at all ("millebornes --players 3"): the first verb that takes them
    first = next((v for v in verbs if takes_all(v)), None)
    if first is None:
        return None
    return (ngettext("%(options)s goes after a verb, as in: %(command)s",
                     "%(options)s go after a verb, as in: %(command)s", len(options))
            % {"options": said,
               "command": as_typed("millebornes " + shlex.join([*kept, first, *moved]))})


# ----- the parser -----------------------------------------------------------------------

class _RuleOption(argparse.Action):
    """``--option NAME=VALUE``, one more each time; ``--option help`` says every option,
    its value in each preset and what it does, and exits, as ``--help`` does (options
    were explained nowhere: a wrong one was refused with their names alone)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        text = str(values)
        if text.strip().lower() in ("help", "list", "?"):
            print(rule_options_text(preset("classic").to_dict(), preset("modern").to_dict(),
                                    i18n.terminal_width(sys.stdout)))
            parser.exit(0)
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), text])


def _lower(text: str) -> str:
    """A choice in any case: "--rules Modern" was refused as an invalid choice."""
    return text.lower()


def _rules_args(p: argparse.ArgumentParser) -> None:
    # what each preset is (a newcomer read "rule preset" and two names)
    p.add_argument("--rules", default="classic", choices=["classic", "modern"], type=_lower,
                   help=_("rule preset: classic (a trip of 700 km that may be extended to "
                          "1000, an exact finish, a match to 5000 points) or modern (one "
                          "hand to 1000 km, overshoot allowed, draw from the discard pile); "
                          "default: classic"))
    p.add_argument("--option", action=_RuleOption, default=[], metavar="NAME=VALUE",
                   help=_("change one rule option, e.g. fast_play=yes (repeatable; "
                          "--option help lists them)"))
    p.add_argument("--teams", default=None, metavar="AxB",
                   help=_("A teams of B players: 2x2, 2x3 or 3x2"))


def _data_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-dir", default=None,
                   help=_("where games, logs and secrets are kept (default: your data folder)"))


def _net_args(p: argparse.ArgumentParser) -> None:
    _data_args(p)
    p.add_argument("--identity", default=None,
                   help=_("identity key file (a second player on one account needs its own)"))
    p.add_argument("--mdns", default="all", choices=["all", "default", "loopback"], type=_lower,
                   help=_("interfaces for LAN discovery"))


def auto_bot_spec(text: str) -> str:
    """``--auto-bot SPEC``: the bot that plays the person's own seat, checked as a bot of
    ``--bots`` is (a plug-in made once in a throwaway child process)."""
    spec = text.strip()
    check_bot_spec(spec, "--auto-bot")
    problem = bot_problem(spec)
    if problem:
        raise argparse.ArgumentTypeError(problem.replace("--bots", "--auto-bot", 1))
    return spec


def _console_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--auto", action="store_true", help=_("a bot plays your seat (spectate)"))
    p.add_argument("--auto-bot", type=auto_bot_spec, default=None, metavar="SPEC",
                   help=_("as --auto, with this bot playing your seat: a level or a bot "
                          "spec, a plug-in bot too (default: normal)"))
    p.add_argument("--plain", action="store_true",
                   help=_("line mode (screen readers, scripts)"))


def _seat_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", default=None, help=_("your name at the table"))
    p.add_argument("--bind", default=None, help=_("address to listen on (default: all)"))
    p.add_argument("--port", type=port_number, default=0,
                   help=_("port to listen on, 1-65535 (default: any free port)"))
    p.add_argument("--interface", default=None, help=_("network interface to listen on"))
    p.add_argument("--not-ready", action="store_true", help=_("do not declare ready at once"))
    p.add_argument("--peer", action="append", default=[], metavar="HOST:PORT",
                   type=peer_address,
                   help=_("reach a peer by address (VPNs: no discovery needed; repeatable)"))
    _console_args(p)


def _typed_in_sentence(command: str) -> str:
    """``command`` as typed, inside a help's note, kept on one line by the wrap (a
    program's long path cut the note between it and "resume")."""
    return as_typed(command).replace(" ", i18n.NO_BREAK)


def _help_command(command: str) -> str:
    """``command`` as typed, in an option's help (argparse fills a help's ``%`` in), on
    one line (:class:`HelpFormatter`)."""
    return as_typed(command).replace("%", "%%").replace(" ", i18n.NO_BREAK)


def _examples(pairs: Sequence[tuple[str, str]], note: str = "") -> str:
    """A help's examples, under its options: each command on its own line (to copy as it
    is), what it does under it, wrapped at the terminal's width in every language; then
    ``note``. A newcomer found options and no example of putting them together."""
    width = report_width(sys.stdout)
    lines = [_("examples:")]
    for command, what in pairs:
        # the program as the player's shell finds it, as every command it prints says
        # (a bare "millebornes play" where it is .venv/bin/millebornes, not on the PATH)
        lines += ["  " + as_typed(command), *wrap(what, width, "      ")]
    if note:
        lines += ["", *wrap(note, width)]
    return "\n".join(lines)


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and each verb's own (for usage errors naming the verb)."""
    parser = Parser(
        prog="millebornes",
        description=_("Mille Bornes on a LAN with no server: fair, verifiable, peer to peer."),
        formatter_class=HelpFormatter,
        epilog=_examples([
            ("millebornes play", _("a game against a bot on this computer: the place to "
                                   "start")),
            ("millebornes play --help", _("what play can change (every verb has its own "
                                          "--help)")),
            ("millebornes host", _("open a table on the LAN; friends sit at it with "
                                   "millebornes join")),
            ("millebornes resume", _("come back to the game you left"))],
            _("In a game, h shows the keys and ? says why a card cannot be played.")))
    parser.add_argument("--version", action=_VersionAction,
                        help=_("show program's version number and exit"))
    parser.add_argument("--verbose", action="store_true",
                        help=_("show the log on the terminal too (it always goes to a file "
                             "in the data folder)"))
    i18n.add_arguments(parser)
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=Parser)
    sub: dict[str, argparse.ArgumentParser] = {}

    def verb(name: str, help: str, epilog: str | None = None) -> argparse.ArgumentParser:
        p = verbs.add_parser(name, help=help,
                             description=_("%(what)s.") % {"what": help[:1].upper() + help[1:]},
                             epilog=epilog, formatter_class=HelpFormatter)
        p.add_argument("--verbose", action="store_true", default=argparse.SUPPRESS,
                       help=argparse.SUPPRESS)
        i18n.add_arguments(p)
        sub[name] = p
        return p

    play = verb("play", _("play against bots on this machine"), _examples([
        ("millebornes play", _("you against a bot, classic rules, in the full screen")),
        ("millebornes play --rules modern --bots 2", _("you and two bots, modern rules: one "
                                                       "hand to 1000 km")),
        ("millebornes play --teams 2x2", _("you and a bot partner against two bots")),
        ("millebornes play --plain", _("the line mode: type play 3, discard 5, help"))],
        _("q leaves at any time: the game is saved, and %(resume)s brings it back.") % {
            "resume": _typed_in_sentence("millebornes resume")}))
    _rules_args(play)
    play.add_argument("--bots", type=bot_seats(1, 5), default=None,
                      help=_("bot opponents: a number (1-5), or a level per opponent (easy, "
                           "normal, hard, expert) or bot specs, comma-separated (default: "
                           "1, or every other seat of --teams)"))
    play.add_argument("--players", type=count(2, 6, "--players"), default=None,
                      help=_("players at the table, you included (2-6): the others are bots"))
    play.add_argument("--name", default=None, help=_("your name at the table"))
    play.add_argument("--seed", type=SEED, default=None, help=_("seed for the bots"))
    _console_args(play)
    _data_args(play)
    play.add_argument("--in-process", action="store_true",
                      help=_("no sockets or cryptography: the table runs in this "
                             "process, and the game is not saved"))

    host = verb("host", _("host a table on the LAN"), _examples([
        ("millebornes host", _("a table for two: a friend on the LAN types millebornes "
                               "join")),
        ("millebornes host --players 3 --bots 1", _("three seats, one of them played by a "
                                                    "bot")),
        ("millebornes host --teams 2x2 --move-limit 120", _("two teams of two, two minutes "
                                                             "per move"))]))
    _rules_args(host)
    _seat_args(host)
    _net_args(host)
    host.add_argument("--players", type=count(2, 6, "--players"), default=None,
                      help=_("seats at the table (2-6; default: those of --teams, else 2)"))
    host.add_argument("--bots", type=bot_seats(0, 5), default=bot_seats(0, 5)("0"),
                      help=_("seats filled by bots: a number (0-5), or a level per bot seat "
                             "(easy, normal, hard, expert) or bot specs, comma-separated "
                             "(default: 0)"))
    host.add_argument("--table-name", default=None, help=_("the name shown in the lobby"))
    host.add_argument("--move-limit", type=seconds(*MOVE_LIMIT, "--move-limit"), default=None,
                      metavar="SECONDS",
                      help=_("give each move this many seconds: a player who takes longer "
                             "pauses the table, and the others may give the seat to a bot "
                             "or end the match (default: moves are untimed)"))
    host.add_argument("--seed", type=SEED, default=0, help=_("seed for the bots"))
    host.add_argument("--no-announce", action="store_true", help=_("do not announce on the LAN"))

    join = verb("join", _("join a table"), _examples([
        ("millebornes join", _("sit at the table on the LAN (with several, it lists them)")),
        ("millebornes join --table \"Ann's table\"", _("that table, by the name %(lobby)s "
                                                      "shows") % {
                                                          "lobby": _typed_in_sentence("millebornes lobby")}),
        ("millebornes join --peer 10.0.0.5:47111", _("over a VPN: the address the host's "
                                                     "screen shows")),
        ("millebornes join --auto-bot hard", _("the search bot plays your seat while you "
                                               "watch (your own plug-in bot too, "
                                               "docs/bots.md: --auto-bot mybot)"))]))
    _seat_args(join)
    _net_args(join)
    join.add_argument("--seat", type=count(1, 5, "--seat",
                                           _("seat 0 is the host's; a table has 6 seats at most")),
                      default=None, help=_("the seat to take, by its number, 1 to 5 (seat 0 is the "
                                              "host's; default: the first free seat)"))
    join.add_argument("--connect-timeout", type=seconds(*CONNECT_TIMEOUT, "--connect-timeout"),
                      default=10.0, metavar="SECONDS",
                      help=_("give up on a peer that does not answer for this long (default 10)"))
    join.add_argument("--table", default=None, help=_("table name or host fingerprint"))
    join.add_argument("--seed", type=SEED, default=0, help=_("seed for --auto's bot"))

    lobby = verb("lobby", _("browse tables on the LAN"))
    _net_args(lobby)
    lobby.add_argument("--seconds", type=seconds(0, 86400, "--seconds"), default=0.0,
                       help=_("browse this long, in seconds (default 0: until you leave "
                              "the list, with q and Enter, Ctrl-D or Ctrl-C)"))

    resume = verb("resume", _("resume a saved game"))
    _net_args(resume)
    _console_args(resume)
    resume.add_argument("game", nargs="?", default=None,
                        help=_("the game's short id from `%(games)s` (default: the latest "
                               "in progress)") % {"games": _help_command("millebornes games")})
    resume.add_argument("--table", default=None, help=argparse.SUPPRESS)
    resume.add_argument("--peer", action="append", default=[], metavar="HOST:PORT",
                        type=peer_address,
                        help=_("a player of this game now at another address (theirs "
                               "changed since); repeatable"))
    resume.add_argument("--seed", type=SEED, default=0, help=_("seed for --auto's bot"))

    games = verb("games", _("list saved games"))
    _data_args(games)

    sim = verb("simulate", _("bot-only matches with statistics"))
    _rules_args(sim)
    sim.add_argument("--players", type=count(2, 6, "--players"), default=None,
                     help=_("players at each table (2-6)"))
    sim.add_argument("--bots", default="heuristic,random",
                     help=_("bot per seat, comma-separated, cycled: random, heuristic-v1, "
                          "heuristic, search[:playouts=N|:ms=N], a level (easy, normal, "
                          "hard, expert) or a plug-in bot"))
    sim.add_argument("--games", type=count(1, MAX_MATCHES, "--games"), default=100,
                     help=_("matches to play (default: 100)"))
    sim.add_argument("--seed", type=SEED, default=0,
                     help=_("seed of the deals and the bots (the same seed, the same games; with "
                            "--network the deals are fresh, the bots' seeds the same)"))
    sim.add_argument("--json", action="store_true", help=_("one JSON object on stdout"))
    sim.add_argument("--fair-deck", action="store_true",
                     help=_("deal through the mental-poker protocol (in memory)"))
    sim.add_argument("--network", action="store_true", help=_("one peer process per seat"))
    sim.add_argument("--transcript-dir", type=folder("--transcript-dir"), default=None,
                     metavar="DIR", help=_("write each match's transcript into DIR"))
    sim.add_argument("--cheat", default=None, metavar="KIND",
                     help=_("with --fair-deck: one seat cheats once (shuffle-drop, "
                          "shuffle-substitute, shuffle-duplicate, bad-shuffle-proof, bad-share, "
                          "card-not-held, equivocation, withheld-reveal, bad-reveal); shows "
                          "who catches it, when, and what verify says"))
    sim.add_argument("--cheater", type=int, default=1, help=_("the seat that cheats (--cheat)"))

    p = verb("tournament", _("round robin of bots: win rates, Elo, points"))
    p.add_argument("--bots", default="heuristic,heuristic-v1",
                   help=_("bots to enter, comma-separated specs (e.g. "
                        "search:playouts=100,heuristic,expert)"))
    p.add_argument("--rules", default="classic", choices=["classic", "modern"], type=_lower,
                   help=_("rule preset (default: classic)"))
    p.add_argument("--option", action=_RuleOption, default=[], metavar="NAME=VALUE",
                   help=_("change one rule option (repeatable; --option help lists them)"))
    p.add_argument("--players", type=int, default=None, help=_("players at each table (2-6)"))
    p.add_argument("--teams", default=None, metavar="AxB", help=_("teams: 2x2, 2x3 or 3x2"))
    p.add_argument("--deals", type=count(1, MAX_MATCHES, "--deals"), default=50,
                   help=_("deals per pair of bots (default: 50); each is played once "
                          "per seat rotation"))
    p.add_argument("--seed", type=SEED, default=0,
                   help=_("seed of the deals (the same seed, the same deals)"))
    p.add_argument("--jobs", type=count(0, MAX_JOBS, "--jobs"), default=0,
                   help=_("processes (default: one per core; 1 plays in this process)"))
    p.add_argument("--json", action="store_true", help=_("one JSON object on stdout"))
    p.add_argument("--quiet", action="store_true", help=_("no progress line on stderr"))

    ver = verb("verify", _("check that a saved game was played fairly"))
    ver.add_argument("transcript", nargs="?", default=None,
                     help=_("a transcript file, a game's folder, or a short id from "
                            "`%(games)s` (default: your newest saved game)") % {
                                "games": _help_command("millebornes games")})
    _data_args(ver)

    rep = verb("replay", _("step through a saved game, every player's cards face up"))
    rep.add_argument("transcript", nargs="?", default=None,
                     help=_("a transcript file, a game's folder, or a short id from "
                            "`%(games)s` (default: your newest saved game)") % {
                                "games": _help_command("millebornes games")})
    rep.add_argument("--plain", action="store_true",
                     help=_("print every step as text; at a terminal a hand at a time, "
                            "Enter for the next"))
    _data_args(rep)

    bench = verb("bench", _("benchmarks"))
    # the choices as the usage writes them, for "the following arguments are required":
    # argparse named the word by its dest there ("requis : what", English in French)
    bench.add_argument("what", choices=["engine", "deck", "net", "trust"],
                       metavar="{engine,deck,net,trust}",
                       help=_("what to measure: the rules engine, the fair deck, the "
                              "network transport, or the protocol's trust checks"))
    bench.add_argument("--json", action="store_true", help=_("one JSON object on stdout"))
    bench.add_argument("--seconds", type=seconds(0.01, 3600, "--seconds"), default=3.0,
                       help=_("time budget per measurement (engine)"))
    bench.add_argument("--trials", type=count(1, 1000, "--trials"), default=3,
                       help=_("runs of each cheat (trust)"))
    # what a newcomer types first: "millebornes rules" and "millebornes help" were
    # "invalid choice" with the list of verbs, and the rules were in a game's help alone
    verb("rules", _("how to play, in brief, and the two rule sets"))
    usage = verb("help", _("the usage of millebornes or of one verb"))
    usage.add_argument("topic", nargs="?", choices=list(sub), type=_lower,
                       metavar="VERB", help=_("the verb whose usage to show"))
    return parser, sub


# ----- helpers on parsed arguments ------------------------------------------------------

def rules_from(args: argparse.Namespace) -> Rules:
    """The preset with each ``--option``. Every fault (a malformed option, an unknown name,
    a value of the wrong kind or out of range) is the engine's ``RuleOptionError``, an id and
    data that ``cli.main`` says in the player's language (``words.error_line``)."""
    options = dict(parse_option(o) for o in (args.option or []))
    return preset(args.rules, **options)


def play_bots(bots: BotsArg | None, teams: str | None, players: int | None = None) -> BotsArg:
    """``play --bots``, or when it is left out a bot in every other seat of ``--players N``
    or of ``--teams AxB`` (``play --teams 2x2`` is three bots, not an error), else one."""
    seats = players or teams_players(teams)
    if bots is not None:
        typed = bots.text or str(int(bots))

        def instead(need: int) -> str:
            # what to type: the levels typed, one per bot seat ("expert,expert,expert"), else
            # an example; "--players 4 and --bots 1" quoted a --bots nobody typed (expert)
            typed_specs = list(bots.specs) if bots.text and not bots.text.isdigit() else []
            example = [typed_specs[i % len(typed_specs)] if typed_specs else "easy"
                       for i in range(need - 1)]
            return ngettext(
                "that is you and %(bots)d bot, one level or spec (e.g. --bots %(example)s), "
                "or leave --bots out",
                "that is you and %(bots)d bots, one level or spec each (e.g. --bots "
                "%(example)s), or leave --bots out", need - 1) % {
                    "bots": need - 1, "example": ",".join(example)}

        if players is not None and players != 1 + bots:
            raise ValueError(_("--players %(players)d and --bots %(bots)s disagree: --bots "
                               "counts the seats other than yours") % {
                                   "players": players, "bots": typed} + "; " + instead(players))
        need = teams_players(teams)
        if need is not None and players is None and need != 1 + bots:
            # "--teams 2x2 needs 4 players, not 2" did not say what to type instead
            raise ValueError(
                (_("--teams %(teams)s needs %(need)d players, not %(n)d")
                 % {"teams": teams, "need": need, "n": 1 + bots}) + "; " + instead(need))
        return bots
    return bot_seats(1, 5)(str(seats - 1 if seats else 1))


def teams_players(teams: str | None) -> int | None:
    """The players ``--teams AxB`` seats (None for no teams, or a shape
    :func:`seating_from` refuses in words)."""
    a, x, b = (teams or "").lower().partition("x")
    if x and a.isdecimal() and b.isdecimal() and len(a) + len(b) <= 4 \
            and (int(a), int(b)) in ((2, 2), (2, 3), (3, 2)):
        return int(a) * int(b)
    return None


def seating_from(players: int | None, teams: str | None) -> Seating:
    """``--players`` and ``--teams AxB`` as a seating, checked in the player's language;
    ``players`` None (not given): those ``--teams`` seats, else 2 (``simulate --teams 2x2``
    said "needs 4 players, not 2", where ``play`` works the count out)."""
    if players is None:
        players = teams_players(teams) or 2
    if teams:
        a, x, b = teams.lower().partition("x")
        # decimal digits only ("²" is a digit int() refuses), a few of them (int() of
        # thousands of digits refuses too): else Python's English, not this sentence
        if not (x and a.isdecimal() and b.isdecimal() and len(a) + len(b) <= 4):
            raise ValueError(_("--teams takes 2x2, 2x3 or 3x2, not %(teams)s")
                             % {"teams": repr(teams)})
        if (int(a), int(b)) not in ((2, 2), (2, 3), (3, 2)):
            raise ValueError(_("--teams takes 2x2, 2x3 or 3x2, not %(teams)s")
                             % {"teams": repr(teams)})
        if int(a) * int(b) != players:
            raise ValueError(_("--teams %(teams)s needs %(need)d players, not %(n)d")
                             % {"teams": teams, "need": int(a) * int(b), "n": players})
    return Seating.parse(players, teams)


def check_name(name: str) -> str:
    me = name.strip()
    if not me:
        raise ValueError(_("--name must not be empty"))
    if len(me) > MAX_NAME:
        raise ValueError(_("--name is at most %(max)d characters, not %(n)d")
                         % {"max": MAX_NAME, "n": len(me)})
    if not all(ch.isalnum() or ch in "-_'." for ch in me):
        raise ValueError(_("--name takes one word (letters, digits, - _ ' .), not %(name)s")
                         % {"name": repr(me)})
    return me


def table_names(name: str | None, n: int) -> list[str]:
    """The human's name first, then bot names that no prefix of it could confuse."""
    me = check_name("You" if name is None else name)
    low = me.lower()
    pool = [b for b in BOT_NAMES if not (b.lower().startswith(low) or
                                         low.startswith(b.lower()))]
    pool += [f"Bot{i}" for i in range(1, 7)]
    return [me, *pool[:n - 1]]


def player_name(args: argparse.Namespace) -> str:
    """``--name``, else the account's login name (cut to fit), else "player". An empty
    ``--name ''`` is an error, not a way to ask for the login name."""
    if getattr(args, "name", None) is not None:
        return check_name(str(args.name))
    try:
        login = getpass.getuser()
    except Exception:
        login = ""
    cleaned = "".join(ch for ch in login if ch.isalnum() or ch in "-_'.")[:MAX_NAME]
    return cleaned or "player"


def use_color(args: argparse.Namespace) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    return not getattr(args, "no_color", False)


def move_delay(auto: bool) -> float:
    """Seconds between two moves of other seats: ``MILLEBORNES_DELAY`` overrides."""
    raw = os.environ.get("MILLEBORNES_DELAY")
    if raw:
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(_("MILLEBORNES_DELAY must be a number of seconds, not %(text)s")
                             % {"text": repr(raw)}) from None
        if not 0 <= value <= 10:
            raise ValueError(_("MILLEBORNES_DELAY must be between 0 and 10 seconds"))
        return value
    return 0.25 if auto else 0.4


def data_dir(args: argparse.Namespace) -> Path | None:
    d = getattr(args, "data_dir", None)
    return Path(d) if d else None


def resume_flags(args: argparse.Namespace) -> tuple[str, str]:
    """The options ``millebornes resume`` and ``millebornes verify`` need to find this
    player's copy again (each with its leading space; empty when the defaults do)."""
    def flag(name: str, value: object) -> str:
        return f" {name} {shlex.quote(str(value))}" if value else ""

    data = flag("--data-dir", getattr(args, "data_dir", None))
    plain = " --plain" if getattr(args, "plain", False) else ""
    # a game played with --lang comes back in it (the hint dropped it: a French player
    # resumed in English); a language from the config or the locale needs no flag
    lang = flag("--lang", getattr(args, "lang_chosen", None))
    return data + flag("--identity", getattr(args, "identity", None)) + plain + lang, \
        data + lang


def auto_flags(args: argparse.Namespace) -> str:
    """``--auto`` or ``--auto-bot SPEC`` as the player gave them (with a leading space;
    empty without): a player whose seat a bot played, shown how to come back, came back to
    play it by hand."""
    spec = getattr(args, "auto_bot", None)
    if spec:
        return f" --auto-bot {shlex.quote(str(spec))}"
    return " --auto" if getattr(args, "auto", False) else ""


def bind_address(args: argparse.Namespace) -> str:
    """What to listen on: ``--interface``, ``--bind``, or every address."""
    return str(getattr(args, "interface", None) or getattr(args, "bind", None) or "*")


def plain_wanted(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "plain", False)) or os.environ.get("MILLEBORNES_PLAIN", "") \
        not in ("", "0")


def with_defaults(verb: str, args: argparse.Namespace) -> argparse.Namespace:
    """``args`` completed with the verb's defaults for every flag it leaves out (a
    Namespace built by code — a test, a script — need not name them all)."""
    _, sub = build_parser()
    full = sub[verb].parse_args(_required_positionals(verb, args), argparse.Namespace())
    for key, value in vars(args).items():
        setattr(full, key, value)
    full.verb = verb
    full.given_args = args        # what Ctrl-C's words read (:func:`remember_game`)
    return full


def remember_game(args: argparse.Namespace, path: object) -> None:
    """The game this command plays is saved in ``path`` (its folder, or None when not
    known): Ctrl-C from then on says how to take it up again, by its id. Said on ``args``
    and on the Namespace :func:`with_defaults` made it from, which is main's: set on the
    copy alone, a host's Ctrl-C in the match said "interrupted" as if nothing was kept."""
    given: argparse.Namespace | None = args
    while given is not None:
        given.game_saved = True
        given.game_dir = path
        given = getattr(given, "given_args", None)


def _required_positionals(verb: str, args: argparse.Namespace) -> list[str]:
    if verb == "bench":
        return [str(getattr(args, "what", "engine"))]
    return []
