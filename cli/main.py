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
import sys
from collections.abc import Sequence

from . import i18n
from .args import VERB_MODULES, UsageError, build_parser
from .i18n import _
from .logs import setup_logging
from .words import error_line


def _early_option(argv: Sequence[str], name: str) -> str | None:
    """``--lang X`` / ``--lang=X`` before the parser exists (its help is translated)."""
    for i, a in enumerate(argv):
        if a == name and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def setup_language(argv: Sequence[str]) -> i18n.Translator:
    """The language of every screen: ``--lang``, else the config file, else the locale."""
    try:
        settings = i18n.resolve(_early_option(argv, "--lang"), _early_option(argv, "--bidi"))
    except ValueError:
        settings = i18n.resolve(None, None)      # the parser reports the bad option
    return i18n.setup(settings)


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    setup_language(words)
    parser, verbs = build_parser()
    try:
        args, extra = parser.parse_known_args(words)
        if extra:
            (verbs.get(args.verb) or parser).error(
                _("unrecognized arguments: %(args)s") % {"args": " ".join(extra)})
    except UsageError as exc:
        print(i18n.display(_("%(prog)s: %(error)s (`%(prog)s --help` shows the usage)")
                           % {"prog": exc.prog, "error": exc}), file=sys.stderr)
        return 2
    args.lang = i18n.active().language
    if args.verb is None:
        parser.print_help()
        return 0
    try:
        setup_logging(args)
        module = importlib.import_module(f"cli.{VERB_MODULES[args.verb]}")
        return int(module.run(args))
    except (ValueError, OSError) as exc:
        print(i18n.display(f"millebornes {args.verb}: {error_line(exc)}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(i18n.display(_("interrupted; the game is saved (millebornes resume)")),
              file=sys.stderr)
        return 130
    except Exception as exc:   # a bug: one sentence here, the traceback in the log file
        logging.getLogger("cli").exception("millebornes %s failed", args.verb)
        print(i18n.display(
            _("millebornes %(verb)s: unexpected error: %(error)s (the details are in "
              "millebornes.log in the data folder)")
            % {"verb": args.verb, "error": f"{type(exc).__name__}: {exc}"}), file=sys.stderr)
        return 1


def verb_parser(verb: str) -> argparse.ArgumentParser:
    """The parser of one verb (tests, documentation)."""
    return build_parser()[1][verb]


if __name__ == "__main__":
    sys.exit(main())
