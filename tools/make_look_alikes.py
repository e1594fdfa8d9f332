"""Writes ``p2p/_look_alikes.py``: which letters a screen shows like others, for telling
player names apart (:func:`p2p.text.shown_keys`).

The source is Unicode's ``confusables.txt`` (Unicode Technical Standard #39, "Unicode
Security Mechanisms", section 4 "Confusable Detection"), each line of which maps a
character to its *prototype*, the character it is confused with. Here it is read as
packaged in confusable-homoglyphs 3.3.1 (``confusables.json``, made from the "latest"
``confusables.txt`` of January 2024, Unicode 15.1): a JSON object mapping each character
to the characters it is confusable with, both ways. Usage::

    pip download --no-deps confusable-homoglyphs==3.3.1 && unzip confusable_homoglyphs-*.whl
    python tools/make_look_alikes.py confusable_homoglyphs/confusables.json

Each single character is kept with its prototype, a character or a sequence of the same
width on a terminal ("Ł" is taken for "L" with a combining stroke, "L̷"), and only the
characters a name can still hold where ``shown_keys`` looks them up: after NFKC. A
sequence a monospace screen shows wider is left out: confusables.txt takes "m" for "rn"
and "æ" for "ae", but at a terminal "rn" takes two cells where "m" takes one, and "Mamie"
beside "Marnie", "Ema" beside "Erna", were numbered and warned of as one name (the review
of stop 53). Case is kept, as UTS #39's skeleton keeps it (a capital "I" is taken for an "l", a
small "i" is not); each character maps to its prototype, NFKC-normalised, so that a
name's skeleton is found in one pass.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "p2p" / "_look_alikes.py"


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def prototypes(data: dict[str, list[dict[str, str]]]) -> dict[str, str]:
    """Each single character's prototype. The JSON holds each confusables.txt line both
    ways, so a prototype is a character with several look-alikes, or, where two characters
    only have each other, the smaller code point (a Latin letter before another script's)."""
    def clean(s: str) -> str:
        return s.replace("\u200e", "")

    pairs: dict[str, list[str]] = {}
    for key, entries in data.items():
        pairs[clean(key)] = [clean(e["c"]) for e in entries]
    out: dict[str, str] = {}
    for char, alikes in pairs.items():
        if len(char) != 1 or len(alikes) != 1:
            continue                        # a prototype itself, or a sequence
        other = alikes[0]
        if len(other) > 1 or len(pairs.get(other, ())) > 1 or other < char:
            out[char] = other               # (a sequence is always the prototype)
    return out


def cells(text: str) -> int:
    """Terminal cells ``text`` takes: marks and format characters none, wide ones two."""
    return sum(0 if unicodedata.category(c) in ("Mn", "Me", "Cf") else
               2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text)


def _settle(target: str, protos: dict[str, str]) -> str:
    """``target`` with each character taken for its own prototype, to a fixed point."""
    for _ in range(4):                      # the normalised prototype may be a look-alike
        nxt = _fold("".join(_fold(protos.get(c, c)) for c in target))
        if nxt == target:
            break
        target = nxt
    return target


def table(protos: dict[str, str]) -> dict[int, str]:
    """The map ``shown_keys`` applies to a normalised name: reachable characters only,
    each to its normalised prototype (a character or a sequence), followed to a fixed
    point."""
    out: dict[int, str] = {}
    for char, proto in protos.items():
        if _fold(char) != char:
            continue                        # NFKC changes it first
        target = _settle(_fold(proto), protos)
        if target and target != char and char not in target \
                and (len(target) == 1 or cells(target) == cells(char)):
            out[ord(char)] = target
    return out


def main(path: str) -> None:
    mapping = table(prototypes(json.loads(Path(path).read_text(encoding="utf-8"))))
    words = [f"{c:x}:" + "+".join(f"{ord(x):x}" for x in t) for c, t in sorted(mapping.items())]
    lines, line = [], ""
    for word in words:
        if len(line) + len(word) + 1 > 88:
            lines.append(line)
            line = ""
        line = f"{line} {word}" if line else word
    lines.append(line)
    body = "\n".join(f'    "{ln} "' for ln in lines)
    OUT.write_text(
        '"""Letters a screen shows like others (Unicode TR39 confusables), for\n'
        ":func:`p2p.text.shown_keys`: hexadecimal code point pairs, a character and the\n"
        "prototype it is taken for (one code point, or several joined by +), both\n"
        "NFKC-normalised, case kept. Written by\n"
        '``tools/make_look_alikes.py`` (see there for the source data); do not edit."""\n\n'
        f"#: {len(mapping)} pairs\n"
        f"PAIRS = (\n{body}\n)\n", encoding="utf-8")
    print(f"{len(mapping)} pairs written to {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
