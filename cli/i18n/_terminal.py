"""Output to a terminal that cannot show every character (a Latin-1 or ASCII locale,
``PYTHONIOENCODING=ascii``): each character its encoding lacks is written as a readable
ASCII stand-in (``█`` as ``#``, ``▶`` as ``>``, ``é`` as ``e``) or ``?``, never an error.

``protect_streams()`` at start-up puts stdout and stderr on that fallback; a UTF-8 terminal
is unchanged (only a lone surrogate, e.g. from an undecodable file name, becomes ``?``).

``terminal_width(stream)``: the columns a text said on ``stream`` is wrapped at.
"""

from __future__ import annotations

import codecs
import os
import shutil
import sys
import unicodedata
from typing import TextIO

#: The name of the error handler (``codecs.register_error``) the streams get.
ERRORS = "millebornes-ascii"

#: Stand-ins for the glyphs the screens draw; other characters lose their accents
#: (NFKD: "Tiếng Việt" -> "Tieng Viet", "…" -> "...") or become "?".
FALLBACKS: dict[str, str] = {
    # the bar chart of a match, lowest to highest
    "▁": ".", "▂": ":", "▃": "-", "▄": "=", "▅": "+", "▆": "*", "▇": "#", "█": "@",
    "▶": ">", "◀": "<", "★": "*", "─": "-", "│": "|", "·": ".", "×": "x",
    "→": "->", "←": "<-", "—": "-", "–": "-", "‘": "'", "’": "'", "“": '"', "”": '"',
    "«": '"', "»": '"', "\u00a0": " ",
}


#: Error handlers replaced: those that raise on a character the encoding lacks (the C
#: locale's ``surrogateescape`` too), and ``backslashreplace`` (stderr's), unreadable.
REPLACED = ("strict", "surrogateescape", "surrogatepass", "backslashreplace")


def ascii_fallback(ch: str) -> str:
    """One character as ASCII: its stand-in, its letters without accents, or ``?``."""
    if ch in FALLBACKS:
        return FALLBACKS[ch]
    base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    return base if base and base.isascii() and base.isprintable() else "?"


def _handler(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = exc.object[exc.start:exc.end]
    return "".join(ascii_fallback(ch) for ch in text), exc.end


codecs.register_error(ERRORS, _handler)


def protect_stream(stream: TextIO | None) -> None:
    """Make ``stream`` write the fallback instead of raising on an unencodable character
    (a stream that cannot be reconfigured is left as it is)."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is None or getattr(stream, "errors", None) not in REPLACED:
        return
    try:
        reconfigure(errors=ERRORS)
    except (ValueError, OSError, AttributeError):
        pass


def protect_streams() -> None:
    """stdout and stderr never raise UnicodeEncodeError (see the module's docstring)."""
    protect_stream(sys.stdout)
    protect_stream(sys.stderr)


#: The width a text said on a stream that is not a terminal (a file, a pipe, a test's
#: capture) is wrapped at: the one width every screen is laid out for.
TEXT_WIDTH = 80
#: The narrowest and widest a terminal's text is wrapped at (a terminal that reports 0 or
#: 5 columns, or a window 400 wide where a sentence would run on out of sight).
MIN_TEXT_WIDTH, MAX_TEXT_WIDTH = 20, 200


def terminal_width(stream: TextIO | None = None) -> int:
    """The columns a text said on ``stream`` (default stdout) is wrapped at: a terminal's
    own width (``COLUMNS`` first, as ``shutil.get_terminal_size`` reads it), kept within
    :data:`MIN_TEXT_WIDTH` and :data:`MAX_TEXT_WIDTH`; :data:`TEXT_WIDTH` when the stream
    is not a terminal. Never raises."""
    out = sys.stdout if stream is None else stream
    try:
        if not out.isatty():
            return TEXT_WIDTH
        if out is sys.stdout or out is sys.__stdout__:
            columns = shutil.get_terminal_size((TEXT_WIDTH, 24)).columns
        else:
            columns = os.get_terminal_size(out.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return TEXT_WIDTH
    return max(MIN_TEXT_WIDTH, min(MAX_TEXT_WIDTH, columns or TEXT_WIDTH))
