"""The ``--lang`` and ``--bidi`` options, the same on every subcommand that shows a screen."""

from __future__ import annotations

import argparse

from ._catalog import _
from ._settings import BIDI_MODES, LANGUAGES, normalize_language


def language_option(value: str) -> str:
    """argparse ``type=`` for ``--lang``: any spelling ``normalize_language`` accepts, turned
    into the code; anything else is a usage error (exit 2), never a traceback."""
    code = normalize_language(value)
    if code is None:
        raise argparse.ArgumentTypeError(
            _("unknown language %(code)s: choose one of %(choices)s")
            % {"code": repr(value), "choices": ", ".join(LANGUAGES)})
    return code


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--lang`` and ``--bidi`` to ``parser``; both default to None, meaning "as the
    config file or the environment says" (``resolve`` decides). The help is translated
    with the language active when this is called."""
    names = ", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())
    parser.add_argument("--lang", type=language_option, default=None, metavar="CODE",
                        help=_("language of the screens: %(names)s; default: the config "
                               "file, else LANGUAGE, LC_ALL, LC_MESSAGES or LANG, else English")
                        % {"names": names})
    parser.add_argument("--bidi", choices=BIDI_MODES, default=None,
                        help=_("right-to-left text: 'shape' (default) shapes and orders it "
                               "for the terminal, 'terminal' leaves that to a terminal with "
                               "bidi support"))
