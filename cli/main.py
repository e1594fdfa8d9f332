"""``millebornes`` entry point: parses the verb and hands over to the module that does it.

Each verb lives in its own module ``cli.<verb>`` with a ``run(args)`` function; the
arguments of every verb are defined in :mod:`cli.args`. A verb's module is imported only
when that verb runs (``verify`` loads neither ZeroMQ nor the console). Every error a user
can meet ends as one plain sentence on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import shutil
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

try:
    from p2p.text import safe_text

    from . import bot_limit, i18n
    from .args import (
        VERB_MODULES,
        UsageError,
        auto_flags,
        build_parser,
        misplaced_options,
        option_guess,
        resume_flags,
    )
    from .i18n import _
    from .logs import setup_logging
    from .words import Command, command_block, error_line, say_paragraphs, wrap
except KeyboardInterrupt:
    # Ctrl-C while the command loads (up to a second on a busy machine, before main()
    # can say anything): the exit of an interrupted command, not a traceback through
    # the imports of the console's libraries
    raise SystemExit(130) from None

log = logging.getLogger("cli")


def _early_option(argv: Sequence[str], name: str) -> str | None:
    """``--lang X`` / ``--lang=X`` before the parser exists (its help is translated)."""
    for i, a in enumerate(argv):
        if a == name and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def setup_language(argv: Sequence[str]) -> i18n.Translator:
    """The language of every screen: ``--lang``, else the config file, else the locale.
    What is wrong with the config file is said on stderr, one line per problem."""
    try:
        settings = i18n.resolve(_early_option(argv, "--lang"), _early_option(argv, "--bidi"))
    except ValueError:
        settings = i18n.resolve(None, None)      # the parser reports the bad option
    translator = i18n.setup(settings)
    for problem in settings.problems:
        print(i18n.display(_("millebornes: config file: %(problem)s (ignored)")
                           % {"problem": problem}), file=sys.stderr)
    return translator


#: Verbs that keep the game they play: stopped, it can be resumed.
SAVING_VERBS = ("play", "host", "join", "resume")


def say_error(text: str) -> None:
    """An ending sentence on stderr: one line for a script or a log; at a terminal,
    wrapped at spaces to its width (the terminal cut a long one mid-word: "is mu" /
    "lticast allowed", "(the connection was refused" / "):")."""
    try:
        tty = sys.stderr.isatty()
    except (AttributeError, ValueError):
        tty = False
    width = max(20, shutil.get_terminal_size().columns)
    # each line wrapped under its own indent (join's list of tables lost its indents, its
    # commands flush left under the tables' words)
    lines = [part for line in text.split("\n")
             for part in wrap(line.lstrip(" "), width, " " * (len(line) - len(line.lstrip(" "))))
             ] if tty else [text]
    print("\n".join(i18n.display(line) for line in lines), file=sys.stderr)


def interrupted_line(args: argparse.Namespace | None) -> str:
    """What Ctrl-C leaves behind, said truly: a game kept for ``resume``, nothing kept
    (``play --in-process``), or no game at all (the other verbs)."""
    verb = getattr(args, "verb", None)
    if verb == "play" and getattr(args, "in_process", False):
        return _("interrupted; nothing was saved (play --in-process keeps no game)")
    if verb in ("host", "join") and not getattr(args, "game_saved", False):
        # still in the lobby (or asking for the table): no game had begun ("the game is
        # saved (millebornes resume)" sent a host who never had a guest to an older game)
        return _("interrupted")
    if verb == "play" and getattr(args, "game_dir", None) is None:
        # the bots were starting: no game was made yet (it said "the game is saved")
        return _("interrupted before the game began; nothing was saved")
    if verb in SAVING_VERBS:
        return _("interrupted; the game is saved. Come back to it with:")
    if verb in ("simulate", "tournament"):
        # both report the matches played when Ctrl-C comes later: here none was (a bare
        # "interrupted" left a newcomer waiting for the report)
        return _("interrupted before the first match ended: no match to report")
    return _("interrupted")


def interrupted_parts(args: argparse.Namespace | None) -> list[str]:
    """:func:`interrupted_line`, and the command that takes the game up again on a line
    of its own (:func:`cli.words.say_paragraphs`), with the game's id and the options that
    find the player's copy, as the other resume hints give them: "(…/millebornes resume)"
    inside the sentence was cut by a narrow terminal, and resumed the newest game of the
    default data folder, not this one."""
    line = interrupted_line(args)
    if args is None or line != _("interrupted; the game is saved. Come back to it with:"):
        return [line]
    game = getattr(args, "game_dir", None)
    ref = f" {Path(game).name[:8]}" if game is not None else ""
    return [line, Command(f"millebornes resume{ref}{resume_flags(args)[0]}"
                          + auto_flags(args))]


def main(argv: Sequence[str] | None = None) -> int:
    i18n.protect_streams()    # a Latin-1 or ASCII terminal: stand-ins, not a traceback
    words = list(sys.argv[1:] if argv is None else argv)
    args: argparse.Namespace | None = None
    logged = False
    try:
        setup_language(words)
        parser, verbs = build_parser()
        misplaced = misplaced_options(words, parser, verbs)
        if misplaced is not None:
            say_error(f"millebornes: {misplaced}")
            return 2
        try:
            args, extra = parser.parse_known_args(words)
            if extra:
                said = verbs.get(args.verb) or parser
                said.error(_("unrecognized arguments: %(args)s") % {"args": " ".join(extra)}
                           + option_guess(extra, said))
        except UsageError as exc:
            # the command on a line of its own: inside the sentence, a narrow terminal
            # cut it ("(`millebornes verify" / "--help` shows the usage)")
            say_error(_("%(prog)s: %(error)s") % {"prog": exc.prog, "error": exc}
                      + "\n" + _("This command shows the usage:")
                      + command_block(f"{exc.prog} --help"))
            return 2
        # the language asked for on the command line (None: the config's or the
        # locale's), carried by the resume hint so a game comes back in it
        # (before the verb too: `millebornes --lang fr play`, whose verb's own --lang left
        # None over it, showed French and hinted a resume in English)
        args.lang_chosen = getattr(args, "lang", None) or (
            i18n.active().language if _early_option(words, "--lang") is not None else None)
        args.lang = i18n.active().language
        if getattr(args, "auto_bot", None) is not None:
            args.auto = True           # --auto-bot SPEC is --auto with that bot
        if args.verb is None:
            parser.print_help()
            return 0
        setup_logging(args)
        logged = True
        if args.verb in ("simulate", "tournament", "play"):
            # where plug-in bots may run in this process: a KeyboardInterrupt a bot
            # raises itself is its fault, named, not the person's Ctrl-C
            from engine.bot_guard import count_interrupts
            count_interrupts()
        module = importlib.import_module(f"cli.{VERB_MODULES[args.verb]}")
        return int(module.run(args))
    except BrokenPipeError:
        # `millebornes games | head`: the reader has what it wanted and left; nothing to
        # say (and stdout must not be flushed into the closed pipe again at exit)
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 0
    except (ValueError, OSError) as exc:
        # the colon as the language writes it ("millebornes host : …" in French, as the
        # usage errors had it; "millebornes host: …" came next to them)
        say_error(_("%(prog)s: %(error)s") % {"prog": _prog(args), "error": error_line(exc)})
        return 2
    except KeyboardInterrupt:
        parts = interrupted_parts(args)
        if len(parts) == 1:
            say_error(parts[0])
        else:
            say_paragraphs(parts, sys.stderr)
        return 130
    except Exception as exc:   # a bug: one sentence here, the traceback in the log file
        _log_bug(args, logged)
        say_error(
            (_("millebornes %(verb)s: unexpected error: %(error)s (the details are in "
               "millebornes.log in the data folder)")
             % {"verb": getattr(args, "verb", None) or "", "error":
                f"{type(exc).__name__}: {exc}"}).replace("millebornes :", "millebornes:", 1))
        return 1


def console_script() -> None:
    """The ``millebornes`` command: :func:`main`, then the exit even when someone's bot
    left a thread of its own running (the interpreter waits for every non-daemon thread
    at exit: ``simulate`` printed its report and never ended). A watchdog gives the
    normal exit a few seconds (thread pools wind down there), then names the threads
    still running and ends the process without them."""
    bot_limit.STDOUT_ENDS_WITH_REPORT = True
    code = main()
    try:
        # the command has said all it had to: what other threads still print (a bot's
        # own) goes to stderr, not after a report on stdout (``--json`` stays one object)
        sys.stdout.flush()
        os.dup2(2, 1)
    except (OSError, ValueError, AttributeError):
        pass
    try:
        threading.Thread(target=_exit_anyway, args=(code,), name="exit-watchdog",
                         daemon=True).start()
    except RuntimeError:      # no thread to be had (a bot took the memory): exit as is
        pass
    sys.exit(code)


#: Seconds the normal exit may take before the watchdog ends the process.
EXIT_GRACE = 3.0


def _exit_anyway(code: int) -> None:
    time.sleep(EXIT_GRACE)
    stray = [t.name for t in threading.enumerate()
             if t is not threading.main_thread() and not t.daemon and t.is_alive()]
    try:
        if stray:
            log.warning("threads still running at exit, left behind: %s", ", ".join(stray))
            said = _("(a thread left running, by a bot perhaps, was stopped at the exit: "
                     "%(names)s)") % {"names": safe_text(i18n.join_list(stray), 200)}
        else:
            # no thread of anyone's runs on: an exit handler (``atexit``, a bot's own) is
            # what holds the exit; "a thread … : ?" named nothing (plug-ins pass 13)
            log.warning("the exit took over %s s: an exit handler never returned", EXIT_GRACE)
            said = _("(the program's exit waited over %(seconds)s s on an exit handler, by a "
                     "bot perhaps: ended without it)") % {"seconds": f"{EXIT_GRACE:g}"}
        print(i18n.display(said), file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)


def _log_bug(args: argparse.Namespace | None, logged: bool) -> None:
    """The traceback of the exception being handled, to the log file only (set up here
    when the bug came before the verb's own logging was)."""
    try:
        if not logged:
            setup_logging(args or argparse.Namespace())
        logging.getLogger("cli").exception("%s failed", _prog(args))
    except Exception:   # the log cannot be written: the sentence on stderr still is
        pass


def _prog(args: argparse.Namespace | None) -> str:
    verb = getattr(args, "verb", None)
    return f"millebornes {verb}" if verb else "millebornes"


def verb_parser(verb: str) -> argparse.ArgumentParser:
    """The parser of one verb (tests, documentation)."""
    return build_parser()[1][verb]


if __name__ == "__main__":
    console_script()
