"""Uyghur on a terminal: Arabic script shaped and ordered, or written in Latin letters.

Most terminals lay out text one code point per cell, left to right, with no Arabic shaping.
Uyghur in Arabic script then shows as unjoined letters in reverse order. So, unless the
player says the terminal does its own bidi (``bidi = "terminal"``), each line is

1. *shaped*: every letter replaced by its contextual presentation form (initial, medial,
   final, isolated; lam-alef ligatures) with ``arabic-reshaper``, and
2. *ordered*: put in visual order with the Unicode bidi algorithm (``python-bidi``), right to
   left as base direction, so numbers and Latin names keep their own order inside the line.

Both steps work on a whole line, after names and numbers are substituted: bidi runs depend on
everything on the line. Shaping never makes a line wider (one form per letter, ligatures merge
two into one), so a line fitted in logical order still fits once shaped.

``ug-Latn`` is for terminals with no Arabic font: the Uyghur text is transliterated to the
Uyghur Latin script (Uyghur Latin Yéziqi) by a fixed letter table, so it needs no catalog of
its own and is always in step with the Arabic one.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

# --- shaping -----------------------------------------------------------------------------

#: U+06D5 ARABIC LETTER AE, Uyghur "e": right-joining, drawn like heh. arabic-reshaper's
#: Arabic table lacks it, so the letter before it would wrongly take a final form.
_AE_FORMS = ("\uFEE9", "", "", "\uFEEA")  # isolated, initial, medial, final (as heh)


@lru_cache(maxsize=1)
def _reshaper() -> Any:
    import arabic_reshaper
    from arabic_reshaper.letters import LETTERS_ARABIC

    reshaper = arabic_reshaper.ArabicReshaper({"delete_harakat": False})
    reshaper.letters = {**LETTERS_ARABIC, "\u06d5": _AE_FORMS}
    return reshaper


def has_arabic(text: str) -> bool:
    return any("\u0600" <= ch <= "\u06ff" or "\ufb50" <= ch <= "\ufeff" for ch in text)


def shape(text: str) -> str:
    """Contextual forms for the Arabic letters of ``text`` (logical order kept)."""
    if not has_arabic(text):
        return text
    return str(_reshaper().reshape(text))


#: A left-to-right run inside a right-to-left line: words without Arabic letters, and the
#: spaces between them (a command, a path, a name with its number).
#: Whole words only: the colon of "داۋاملاشتۇرۇش:" belongs to its Arabic word.
#: A run may end at a Uyghur comma, semicolon or question mark written against it ("ID،"):
#: without it "millebornes verify ID، millebornes replay ID" left each "ID" outside the run.
_LTR_RUN = re.compile(r"(?<!\S)[^\s\u0600-\u06ff\ufb50-\ufdff\ufe70-\ufeff]+"
                      r"(?:[ \t]+[^\s\u0600-\u06ff\ufb50-\ufdff\ufe70-\ufeff]+)*"
                      r"(?![^\s\u060c\u061b\u061f])")
_ISOLATES = str.maketrans("", "", "\u2066\u2067\u2068\u2069")


def _isolate_ltr(line: str) -> str:
    """Each left-to-right run holding a letter or digit wrapped in LRI … PDI: ordered as
    one unit, as written. Without it a command in a Uyghur sentence came out as
    ``--data-dir (millebornes verify …`` and a path as ``tmp/newcomer4/d7/``: the
    neutral characters at its edges (``/``, ``(``) took the sentence's direction."""
    return _LTR_RUN.sub(_isolated, line)


#: Punctuation at a run's edges belongs to the sentence around it ("Bo:" is the name
#: and the sentence's colon; "(millebornes …" opens a parenthesis of the sentence).
_OPENING = "([{\"'«"
_CLOSING = ".,:;!?)]}\"'»…"


_PAIRS = {")": "(", "]": "[", "}": "{", "»": "«"}


def _paired(run: str) -> set[int]:
    """The places in ``run`` of brackets closed (or opened) within it."""
    stack: list[tuple[str, int]] = []
    paired: set[int] = set()
    for i, c in enumerate(run):
        if c in "([{«":
            stack.append((c, i))
        elif c in _PAIRS:
            for k in range(len(stack) - 1, -1, -1):
                if stack[k][0] == _PAIRS[c]:
                    paired.update((stack[k][1], i))
                    del stack[k:]
                    break
    return paired


def _isolated(m: re.Match[str]) -> str:
    return _isolate_run(m.group(0))


#: Words of a run without a letter or digit at its edges ("&" of "سىز & Cy"): the
#: sentence's, as its punctuation is.
_BARE_EDGES = re.compile(r"^((?:[^\w\s]+[ \t]+)*)(.*?)((?:[ \t]+[^\w\s]+)*)$", re.S)


#: The separator of a list's items written with a middle dot ("You 300 · Bo 450"), or
#: the gap of two spaces or more between a table's columns ("400        1000"): the
#: sentence's, as a comma between its items is (columns read from the right too).
_LIST_DOT = re.compile(r"([ \t]+[\u00b7\u2022][ \t]+|[ \t]{2,})")


def _isolate_run(whole: str) -> str:
    """:func:`_isolate_one` of ``whole``, split first at each bracket of the sentence in
    it ("'x' ('classic', 'modern'" of "… 'x' (CHOICES دىن تاللاڭ)"): the run is two, the
    bracket between them the sentence's; bare words at its edges ("&" of "سىز & Cy") are
    the sentence's too. The parts wait on a list, not on the call stack: split by
    recursion, a line holding a thousand such brackets raised RecursionError (hostile
    pass 11)."""
    out: list[str] = []
    todo: list[tuple[bool, str]] = [(True, whole)]     # (a run still to split, text)
    while todo:
        is_run, run = todo.pop()
        if not is_run or not any(c.isalnum() for c in run):
            out.append(run)
            continue
        items = _LIST_DOT.split(run)
        if len(items) > 1:
            # "Cy 0 · Bo & Di 0" of the match line: each item its own unit, in the
            # sentence's order, the dots between them the sentence's (one run read
            # "سىز &", then "Cy 0 · Bo & Di 0" left to right: teams out of order); the
            # columns of a score table likewise
            todo += [(k % 2 == 0, part) for k, part in reversed(list(enumerate(items)))]
            continue
        edges = _BARE_EDGES.match(run)
        if edges is not None and (edges.group(1) or edges.group(3)):
            # a team "سىز & Cy" read "& Cy سىز": the "&" went with Cy, into his run
            todo += [(False, edges.group(3)), (True, edges.group(2)),
                     (False, edges.group(1))]
            continue
        paired = _paired(run)
        for i, c in enumerate(run):
            if i in paired or not 0 < i < len(run) - 1:
                continue
            # (a closing bracket before a comma of the sentence too: "Bo (بوت: heuristic),
            # Cy (بوت: heuristic)" read "heuristic), Cy" as one run, its brackets crossed)
            closes = c in _PAIRS and (run[i + 1].isspace() or (
                run[i + 1] in ",;:." and (i + 2 == len(run) or run[i + 2].isspace())))
            if (c in "([{«" and run[i - 1].isspace()) or closes:
                head, tail = run[:i], run[i + 1:]
                lead = head[len(head.rstrip()):]
                trail = tail[:len(tail) - len(tail.lstrip(" \t,;:."))]
                todo += [(True, tail[len(trail):]), (False, lead + c + trail),
                         (True, head.rstrip())]
                break
        else:
            out.append(_isolate_one(run))
    return "".join(out)


def _isolate_one(run: str) -> str:
    """``run`` in LRI … PDI, the brackets and punctuation at its edges that are the
    sentence's left out."""
    # a bracket whose pair is in the run is the run's own: "[--bidi {shape,terminal}]"
    # ends a usage line, and its "}]" (left to the sentence's direction) were shown
    # mirrored at the line's other end
    paired = _paired(run)
    start, end = 0, len(run)
    while start < end and run[start] in _OPENING and start not in paired:
        start += 1
    while end > start and run[end - 1] in _CLOSING and end - 1 not in paired:
        end -= 1
    return f"{run[:start]}\u2066{run[start:end]}\u2069{run[end:]}"


def visual(text: str, right_to_left: bool = False) -> str:
    """One line, shaped and in visual order for a terminal without bidi support, with a
    right-to-left base direction (left-to-right runs kept as written, see
    :func:`_isolate_ltr`). Newlines split lines, each ordered on its own. A line without
    Arabic letters is left as written, unless ``right_to_left``: it is one line of a
    paragraph written right to left (see :func:`visual_paragraph`)."""
    if not right_to_left and not has_arabic(text):
        return text
    return "\n".join(_visual_line(line, right_to_left) for line in text.split("\n"))


def visual_paragraph(lines: list[str]) -> list[str]:
    """The lines of one wrapped paragraph in visual order, each laid out right to left
    when the paragraph is Uyghur, Arabic letters on that line or not. A line of Latin
    alone ("(millebornes play --rules modern: 1000", the Uyghur rules page at 40
    columns) was left as written, left to right: its bracket, which the line before
    opened in the sentence's direction, stood at its left end unmirrored, and the
    command after the previous line's last word instead of before it."""
    rtl = any(has_arabic(line) for line in lines)
    return [_visual_line(line, rtl) if rtl else line for line in lines]


def _visual_line(line: str, right_to_left: bool = False) -> str:
    """One line in visual order, the spaces at its edges left where they are: a line's
    indent is what sets it under the line it continues (the games list's and verify's
    continuation lines, the seat lines of ``simulate``), and a terminal shows every line
    from its left edge. Ordered with the words, the indent went to the line's right end,
    where it indents nothing."""
    from bidi import get_display

    core = line.strip(" ")
    if not core or not (right_to_left or has_arabic(core)):
        return line
    lead = line[:len(line) - len(line.lstrip(" "))]
    trail = line[len(lead) + len(core):]
    return lead + _mirrored(str(get_display(_isolate_ltr(shape(core)), base_dir="R"))
                            ).translate(_ISOLATES) + trail


_MIRROR = str.maketrans("()[]{}«»<>", ")(][}{»«><")


def _mirrored(shown: str) -> str:
    """The brackets of the right-to-left text of a line in visual order (``shown``, its
    isolates' marks still in) as their mirror images: rule L4 of the bidi algorithm, which
    python-bidi from 0.5 on leaves out. Without it every parenthesis of a Uyghur sentence
    pointed outwards, ")ئىزاھ(" and a usage line's "[--bidi {shape,terminal}]" began
    "]}" at the other end. Brackets inside an isolate (left to right) stay as written;
    every other one is at the sentence's right-to-left level (:func:`_isolate_ltr` leaves
    no left-to-right text outside an isolate but the odd bracket of a sentence)."""
    out: list[str] = []
    # the marks that close the isolates open at this point: an isolate within the
    # sentence's right-to-left text is reversed (its end mark first), one within a
    # left-to-right stretch (Latin letters outside any isolate, "ID، ⁦millebornes⁩ ID")
    # is not; a count that took every isolate as reversed mirrored no bracket after the
    # first such one ("(* سىز)" of the games list's last line came out ")سىز *(")
    closing: list[str] = []
    for part in re.split("([\u2066\u2069])", shown):
        if part in ("\u2066", "\u2069"):
            if closing and closing[-1] == part:
                closing.pop()
            else:
                closing.append("\u2066" if part == "\u2069" else "\u2069")
        elif not closing:
            part = part.translate(_MIRROR)
        out.append(part)
    return "".join(out)


# --- Latin transliteration (Uyghur Latin Yéziqi) -----------------------------------------

_VOWELS = {"\u0627": "a", "\u06d5": "e", "\u0647": "e", "\u06d0": "é", "\u0649": "i",
           "\u0648": "o", "\u06c7": "u", "\u06c6": "ö", "\u06c8": "ü"}
_CONSONANTS = {
    "\u0628": "b", "\u067e": "p", "\u062a": "t", "\u062c": "j", "\u0686": "ch", "\u062e": "x",
    "\u062f": "d", "\u0631": "r", "\u0632": "z", "\u0698": "zh", "\u0633": "s", "\u0634": "sh",
    "\u063a": "gh", "\u0641": "f", "\u0642": "q", "\u0643": "k", "\u06a9": "k", "\u06af": "g",
    "\u06ad": "ng", "\u0644": "l", "\u0645": "m", "\u0646": "n", "\u06be": "h", "\u06cb": "w",
    "\u064a": "y", "\u06cc": "y",
}
_PUNCTUATION = {"\u060c": ",", "\u061b": ";", "\u061f": "?", "\u066a": "%", "\u0640": "",
                **{chr(0x0660 + i): str(i) for i in range(10)},
                **{chr(0x06F0 + i): str(i) for i in range(10)}}
_HAMZA = "\u0626"  # ئ: silent at the start of a word, an apostrophe inside one
#: ULY writes an apostrophe between two letters that would otherwise read as a digraph
#: (n'g is ن+گ, not ڭ; s'h is س+ھ, not ش; and so on).
_DIGRAPH_STARTS = {("n", "g"), ("s", "h"), ("z", "h"), ("g", "h"), ("c", "h")}


def to_latin(text: str, capitalize: bool = False) -> str:
    """``text`` with its Uyghur Arabic-script letters written in Uyghur Latin letters;
    anything else (Latin names, digits, format placeholders) passes unchanged. Presentation
    forms (already shaped text) are folded back first. Arabic script has no capitals: with
    ``capitalize`` the first letter is made one (the caller knows that the English source of
    the message starts with a capital, as a card name or a sentence does)."""
    import unicodedata

    text = "".join(unicodedata.normalize("NFKC", ch) if "\ufb50" <= ch <= "\ufeff" else ch
                   for ch in text)
    out: list[str] = []
    prev_letter = False
    for ch in text:
        if ch == _HAMZA:
            if prev_letter:
                out.append("'")
            prev_letter = True
            continue
        latin = _VOWELS.get(ch) or _CONSONANTS.get(ch)
        if latin is not None:
            if prev_letter and out and (out[-1][-1:], latin[0]) in _DIGRAPH_STARTS:
                out.append("'")
            out.append(latin)
            prev_letter = True
            continue
        out.append(_PUNCTUATION.get(ch, ch))
        prev_letter = False
    result = "".join(out)
    if capitalize and result:
        result = result[0].upper() + result[1:]
    return result


# --- a line of several styled fragments ----------------------------------------------------


def visual_fragments(fragments: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """One line of (style, text) fragments in visual order, right to left as a whole: the
    fragments from the right, each one read as :func:`visual` reads a line (its Arabic
    letters shaped, a Latin name or a number as written), the spaces at its edges on the
    sides they face in a right-to-left line. Each fragment is one unit, as a bidi isolate:
    ordered with their neighbours' letters, "Bo" and the "6" of the next column's
    "6 كارتا" read "Bo 6" as one left-to-right run. Ordered fragment by fragment and left
    in place, a Uyghur line kept its fragments left to right: the table's top line began
    "Mille Bornes" on the left, the seat rows ran name, cards, state from the left.

    A line without Arabic letters is ordered too: a screen of right-to-left lines reads
    every line from the right (the hand's "1 25   2 75" row like its next row)."""
    out: list[tuple[str, str]] = []
    for style, text in reversed(fragments):
        core = text.strip(" ")
        lead = len(text) - len(text.lstrip(" "))
        trail = len(text) - lead - len(core)
        if has_arabic(core):
            core = visual(core)
        elif not any(c.isalnum() for c in core):
            core = core[::-1].translate(_MIRROR)    # "(", " · ": the sentence's own
        out.append((style, " " * trail + core + " " * lead))
    return out
