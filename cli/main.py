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

from .args import VERB_MODULES, UsageError, build_parser
from .logs import setup_logging


def main(argv: Sequence[str] | None = None) -> int:
    parser, verbs = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:
            (verbs.get(args.verb) or parser).error(
                "unrecognized arguments: " + " ".join(extra))
    except UsageError as exc:
        print(f"{exc.prog}: {exc} (`{exc.prog} --help` shows the usage)", file=sys.stderr)
        return 2
    if args.verb is None:
        parser.print_help()
        return 0
    try:
        setup_logging(args)
        module = importlib.import_module(f"cli.{VERB_MODULES[args.verb]}")
        return int(module.run(args))
    except (ValueError, OSError) as exc:
        print(f"millebornes {args.verb}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; the game is saved (millebornes resume)", file=sys.stderr)
        return 130
    except Exception as exc:   # a bug: one sentence here, the traceback in the log file
        logging.getLogger("cli").exception("millebornes %s failed", args.verb)
        print(f"millebornes {args.verb}: unexpected error: {type(exc).__name__}: {exc} "
              "(the details are in millebornes.log in the data folder)", file=sys.stderr)
        return 1


def verb_parser(verb: str) -> argparse.ArgumentParser:
    """The parser of one verb (tests, documentation)."""
    return build_parser()[1][verb]


if __name__ == "__main__":
    sys.exit(main())
