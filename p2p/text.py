"""One sanitiser for every string another player gave us (names, table names, reasons,
discovery TXT fields) before it reaches a terminal or a log.

A peer-provided string could otherwise carry terminal escape sequences (clear the screen,
rewrite earlier lines, set the window title), bidi overrides that show ``evil`` as
``live``, zero-width characters that make two names look identical, or newlines that forge
a log line.  :func:`safe_text` keeps letters, digits, punctuation, symbols and spaces from
every script, and nothing else.
"""

from __future__ import annotations

import functools
import unicodedata

__all__ = ["safe_text", "MAX_SAFE_TEXT", "shown_key", "shown_keys", "names_look_alike"]

#: Default length bound: longer strings are cut and end with an ellipsis.
MAX_SAFE_TEXT = 200

# Control (Cc: C0, DEL, C1 including CSI), format (Cf: bidi embeddings/overrides/isolates,
# zero-width space/joiners, BOM, soft hyphen, tags), surrogates, private use, unassigned,
# and line/paragraph separators.
_DROP = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_MAX_COMBINING = 2  # a letter with a few accents, not a "zalgo" tower over the next lines


def safe_text(value: object, max_len: int = MAX_SAFE_TEXT, *, placeholder: str = "?") -> str:
    """``value`` as a single printable line: whitespace runs become one space, every
    control, format or invisible character is removed, combining marks are capped per
    character, and the result is at most ``max_len`` characters.  A non-string is
    shown as ``placeholder`` (a peer sent something of the wrong type); an empty result
    too."""
    if not isinstance(value, str):
        return placeholder
    out: list[str] = []
    combining = 0
    space = False
    # bound the work before looking at every character of a huge string
    for ch in value[: max_len * 4]:
        cat = unicodedata.category(ch)
        if ch.isspace() or cat == "Zs":
            space = bool(out)
            continue
        if cat in _DROP:
            continue
        if cat.startswith("M"):
            combining += 1
            if combining > _MAX_COMBINING or not out:
                continue
        else:
            combining = 0
        if space:
            out.append(" ")
            space = False
        out.append(ch)
    text = "".join(out)
    if len(text) > max_len:
        text = text[: max_len - 1] + "…"
    return text or placeholder


#: Unicode's default-ignorable code points (DerivedCoreProperties.txt) that
#: :func:`safe_text` keeps, being letters or combining marks: nothing on a screen (a
#: combining grapheme joiner, the variation selectors, the Hangul fillers, ...). Names
#: differing only by them look the same.
_IGNORABLE = frozenset([0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0,
                        0x2800,      # a braille pattern drawn blank (review of stop 51)
                        # a mark and a symbol that are neither, but that every font
                        # covering them draws as nothing: the Khitan small script
                        # filler, the musical null notehead (hostile pass 24)
                        0x16FE4, 0x1D159,
                        *range(0x180B, 0x1810), *range(0xFE00, 0xFE10),
                        *range(0x1D173, 0x1D17B), *range(0xE0100, 0xE01F0)])


def shown_key(name: str) -> str:
    """``name`` as a screen shows it, case aside: compatibility forms folded (NFKC: a
    full-width "Ｙｏｕ" is "you"), what shows nothing left out (:data:`_IGNORABLE` and
    what :func:`safe_text` drops). "Ann" and "Ann" with a variation selector after it are
    one name to a reader; "" for a name that shows nothing. Names in look-alike letters
    of other scripts are told apart by :func:`shown_keys`."""
    return _shown(name).casefold()


def shown_keys(name: str) -> frozenset[tuple[str, str]]:
    """The keys by which ``name`` reads as another, each tagged with its rule:

    * ``case``: :func:`shown_key` (case aside: "ALICE" is "Alice");
    * ``look``: its *skeleton* (Unicode Technical Standard #39, section 4: each letter
      taken for the letter it looks like, case kept, as the standard compares them: a
      Cyrillic "М" is an "M", a capital "I" an "l": "Мax" is "Max", "AIice" "Alice");
    * ``folded``: both, the skeleton taken of the case-folded skeleton and folded again,
      without the look-alikes that take a capital for a small letter ("I" for "l"): a
      small Cyrillic "а" in "аnn" is Ann's name in small letters, and a Cyrillic "Ԛ",
      whose look-alike only its small letter has, a "Q".

    Two names look alike when they share a key under one rule (:func:`names_look_alike`).
    Not "Νina" (a Greek capital Ν) and "Vina", which one key made of case folded first
    merged through the small ν that looks like a v, nor "Iola" and "Lola", which a
    skeleton folded after merged through "lola" (the reviews of stop 52)."""
    shown = _shown(name)
    look, folded = _look_alikes(), _folded_look_alikes()
    once = shown.translate(folded).casefold()
    return frozenset((("case", shown.casefold()), ("look", shown.translate(look)),
                      ("folded", once.translate(folded).casefold())))


def names_look_alike(one: str, other: str) -> bool:
    """Do ``one`` and ``other`` read as the same name on a screen (:func:`shown_keys`)?"""
    return not shown_keys(one).isdisjoint(shown_keys(other))


def _shown(name: str) -> str:
    """``name`` NFKC-normalised with what shows nothing left out, case kept."""
    folded = unicodedata.normalize("NFKC", name)
    return " ".join("".join(ch for ch in folded if ord(ch) not in _IGNORABLE
                            and unicodedata.category(ch) not in _DROP).split())


@functools.cache
def _look_alikes() -> dict[int, str]:
    """Each character a screen shows like another, to that other character or sequence
    of the same width ("Ł" to "L" and a combining stroke): the prototypes of Unicode's
    confusables.txt (``p2p/_look_alikes.py``, written by ``tools/make_look_alikes.py``);
    read once, when a name is first compared."""
    from p2p._look_alikes import PAIRS
    return {int(char, 16): "".join(chr(int(c, 16)) for c in proto.split("+"))
            for char, proto in (pair.split(":") for pair in "".join(PAIRS).split())}


@functools.cache
def _folded_look_alikes() -> dict[int, str]:
    """:func:`_look_alikes` without a capital taken for a small letter (a capital "I" for
    an "l", a Greek "Ι" too): where case is folded, "Iola" would be "Lola"."""
    def capital_for_small(char: str, proto: str) -> bool:
        return char != char.casefold() and proto == proto.casefold() != proto.upper()

    return {c: p for c, p in _look_alikes().items() if not capital_for_small(chr(c), p)}
