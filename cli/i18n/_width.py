"""Text measured in terminal cells, not in code points.

A Python ``len`` is wrong on a terminal in both directions: a Vietnamese ``ệ`` may be one
code point or three (base letter plus two combining marks, zero cells each), and a CJK
character takes two cells. Every layout decision (padding a board column, cutting a card name,
wrapping help text) therefore goes through these helpers, which never split a base character
from its combining marks and never let a wide character straddle the limit.

Unprintable characters (controls, which ``wcwidth`` reports as -1) count as zero cells: the
screen code strips them before display, and a width helper must not return a negative width.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from wcwidth import wcwidth

ELLIPSIS = "…"


@lru_cache(maxsize=8192)
def _char_cells(ch: str) -> int:
    # cached: a board redraw measures the same few hundred characters thousands of times
    w = wcwidth(ch)
    return w if w > 0 else 0


def clusters(text: str) -> Iterator[str]:
    """Base characters with the zero-width marks that follow them (combining accents, ZWJ,
    variation selectors): the smallest pieces that may be cut apart. A leading mark with no
    base forms a cluster of its own."""
    current = ""
    for ch in text:
        if current and wcwidth(ch) == 0:
            current += ch
            continue
        if current:
            yield current
        current = ch
    if current:
        yield current


def cells(text: str) -> int:
    """How many terminal cells ``text`` covers."""
    if text.isascii() and text.isprintable():
        return len(text)        # the common case, without a lookup per character
    return sum(map(_char_cells, text))


def fit(text: str, width: int, ellipsis: str = ELLIPSIS) -> str:
    """``text`` cut to at most ``width`` cells; when cut, it ends with ``ellipsis`` (which
    counts inside the width). A cut never separates an accent from its letter."""
    if width <= 0:
        return ""
    if cells(text) <= width:
        return text
    room = width - cells(ellipsis)
    if room < 0:
        return _take(ellipsis, width)
    return _take(text, room) + ellipsis


def _take(text: str, width: int) -> str:
    out: list[str] = []
    used = 0
    for cluster in clusters(text):
        w = cells(cluster)
        if used + w > width:
            break
        out.append(cluster)
        used += w
    return "".join(out)


def pad(text: str, width: int, align: str = "left") -> str:
    """``text`` fitted to ``width`` cells then filled with spaces to exactly ``width`` cells;
    ``align`` is ``left``, ``right`` or ``center``."""
    if align not in ("left", "right", "center"):
        raise ValueError(f"align must be left, right or center, not {align!r}")
    text = fit(text, width)
    gap = max(0, width - cells(text))
    if align == "left":
        return text + " " * gap
    if align == "right":
        return " " * gap + text
    left = gap // 2
    return " " * left + text + " " * (gap - left)


#: A space that never breaks a line: it keeps a name with its score ("Bo" / "1300" stood
#: on two lines); each is shown as a plain space.
NO_BREAK = "\u00a0"


def wrap(text: str, width: int) -> list[str]:
    """``text`` broken into lines of at most ``width`` cells, at spaces where possible (never
    at a :data:`NO_BREAK` space, shown as a plain one); a word longer than a line is broken
    between clusters. Newlines in ``text`` are kept as breaks. Never returns an empty list
    (an empty text is one empty line)."""
    if width <= 0:
        raise ValueError("width must be positive")
    lines: list[str] = []
    for paragraph in text.split("\n"):
        lines.extend(line.replace(NO_BREAK, " ") for line in _wrap_paragraph(paragraph, width))
    return lines


#: any whitespace but :data:`NO_BREAK`
_BREAKABLE_SPACE = re.compile(r"[^\S\u00a0]+")


def _words(paragraph: str) -> list[str]:
    """The words of ``paragraph`` split at every space but :data:`NO_BREAK`."""
    if NO_BREAK not in paragraph:
        return paragraph.split()
    return [w for w in _BREAKABLE_SPACE.split(paragraph) if w]


#: French sets these apart with a space, which must never start a line ("Défausse\n: vide")
_CLINGS_LEFT = frozenset(":;!?»")


#: the "s" of seconds after a number ("20 s,"): never alone at a line's start (the line
#: mode said "for up to 20" / "s, then the table pauses")
_SECONDS_UNIT = re.compile(r"s[^\w]*")


def _glue_punctuation(words: list[str], width: int) -> list[str]:
    """Words with a lone ``:`` ``;`` ``!`` ``?`` ``»`` kept on the line of the word before
    it, a lone ``«`` on the line of the word after it, and the ``s`` of a number of
    seconds on the line of its number (unless together they are wider than a line)."""
    out: list[str] = []
    for word in words:
        if out and (set(word) <= _CLINGS_LEFT or out[-1] == "«"
                    or _SECONDS_UNIT.fullmatch(word) and out[-1][-1:].isdigit()) \
                and cells(out[-1]) + 1 + cells(word) <= width:
            out[-1] = f"{out[-1]} {word}"
        else:
            out.append(word)
    return out


#: Punctuation that ends a word and never starts a line on its own
_ENDS_A_WORD = frozenset(".,;:!?)]}»…'\"،؛؟")


def _wrap_paragraph(paragraph: str, width: int) -> list[str]:
    # the line's width is carried along, so a paragraph is measured once (not once per word)
    lines: list[str] = []
    line, used = "", 0
    for word in _glue_punctuation(_words(paragraph), width):
        w = cells(word)
        while w > width:
            if line:
                lines.append(line)
                line, used = "", 0
            head = _take(word, width)
            if not head:  # one cluster wider than the whole line (a wide char, width 1)
                first = next(clusters(word))
                lines.append(fit(first, width))
                word = word[len(first):]
            else:
                cut = head.rfind("/", 0, len(head) - 1) + 1
                if cut > width // 2 and cells(head[:cut]) <= width:
                    # a path too long for a line is cut after a folder's "/", not inside
                    # a name: ".../transcript." then "mbt." read as a sentence's end
                    head = head[:cut]
                rest = word[len(head):]
                if rest and len(head) > 1 and all(c in _ENDS_A_WORD for c in rest):
                    # the sentence's full stop after a path too long for a line began
                    # the next one (". Anyone can check it with:"): a letter goes with it
                    last = list(clusters(head))[-1]
                    head = head[:len(head) - len(last)]
                lines.append(head)
                word = word[len(head):]
            w = cells(word)
        if not word:
            continue
        if not line:
            line, used = word, w
        elif used + 1 + w <= width:
            line, used = f"{line} {word}", used + 1 + w
        else:
            lines.append(line)
            line, used = word, w
    lines.append(line)
    return lines


def overflowing(lines: list[str], width: int = 80, height: int = 24) -> list[str]:
    """What keeps ``lines`` (as sent to the terminal, after ``display``) from fitting a
    ``width`` x ``height`` terminal: one sentence per fault, empty when it fits. For the tests
    that render every screen in every language."""
    faults = [f"line {i + 1} is {cells(line)} cells wide (more than {width}): {line!r}"
              for i, line in enumerate(lines) if cells(line) > width]
    if len(lines) > height:
        faults.append(f"{len(lines)} lines (more than {height})")
    return faults
