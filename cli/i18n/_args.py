"""The ``--lang`` and ``--bidi`` options, the same on every subcommand that shows a screen."""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Iterable, Mapping

from ._catalog import _
from ._settings import BIDI_MODES, LANGUAGES, normalize_language


def close_match(value: str, choices: Iterable[str] | Mapping[str, str]) -> str | None:
    """The choice a typo most likely meant ("modrn": modern, "serch": search), else None;
    in any case ("Modrn"). ``choices`` may map spellings to the choice each means
    ("francais": "fr"). The one matcher of every "did you mean" of the console."""
    named = ({str(k).lower(): str(v) for k, v in choices.items()}
             if isinstance(choices, Mapping) else {str(c).lower(): str(c) for c in choices})
    typed = str(value).strip().lower()
    # a choice two letters shorter than the word is a guess only where the word begins
    # with it: "undo" was "did you mean 'no'?" (two of its letters, in order)
    guess = [g for g in difflib.get_close_matches(typed, list(named), n=3, cutoff=0.6)
             if len(g) >= len(typed) - 1 or typed.startswith(g)]
    return named[guess[0]] if guess else None


def did_you_mean(value: str, choices: Iterable[str] | Mapping[str, str]) -> str:
    """What to add to a refusal of ``value`` that lists ``choices``: "; did you mean
    'modern'?" for a typo close to one, else "" (a newcomer who typed "modrn" read the
    list and had to spot the difference)."""
    guess = close_match(value, choices)
    return _("; did you mean %(guess)s?") % {"guess": repr(guess)} if guess else ""


def language_option(value: str) -> str:
    """argparse ``type=`` for ``--lang``: any spelling ``normalize_language`` accepts, turned
    into the code; anything else is a usage error (exit 2), never a traceback, with the
    code a typo most likely meant ("frr": fr, "francais": fr)."""
    code = normalize_language(value)
    if code is None:
        names = {code: code for code in LANGUAGES}
        names.update({name.lower(): code for code, name in LANGUAGES.items()})
        raise argparse.ArgumentTypeError(
            _("unknown language %(code)s: choose one of %(choices)s")
            % {"code": repr(value), "choices": ", ".join(LANGUAGES)}
            + did_you_mean(value, names))
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
