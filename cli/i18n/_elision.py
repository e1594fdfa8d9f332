"""French elision of "de" and "que" before a value that begins with a vowel.

French writes "la main d'Ann", "on attend qu'Ann…", but "la main de Bo": the word before a
name depends on the name, which the translator cannot know. Done on the finished line, the
rule would also rewrite data (a table named "Tour de Anvers" is quoted as its host wrote
it); so it is done on the *template*: a translated message is a :class:`ElidingTemplate`,
and formatting it (``%`` or ``str.format``) elides the template's own "de"/"que" just
before a placeholder whose value begins with a vowel. The values themselves are never
changed. A template used any other way (sliced, joined) is plain text, unchanged.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

#: "de"/"que" (any capital first letter) as a word of the template, then one space and a
#: placeholder: ``%(key)s`` or ``{key}`` (its name in group ``pct`` or ``brace``)
_BEFORE_PLACEHOLDER = re.compile(
    r"(?<![\w'’])(?P<word>[dD]e|[qQ]ue) (?=%\((?P<pct>\w+)\)s|\{(?P<brace>\w+)\})")
_VOWELS = frozenset("aeiouæœ")


def _begins_with_vowel(value: object) -> bool:
    """Whether ``value`` as text begins with a vowel letter (accents ignored: "Émile",
    "Œdipe"). Not "h" or "y": "de Hugo", "de Yann" (and "d'Yves") depend on the word."""
    text = str(value)
    if not text:
        return False
    first = unicodedata.normalize("NFD", text[0])[0].lower()
    return first in _VOWELS


def _elide(template: str, values: Mapping[str, Any]) -> str:
    def one(m: re.Match[str]) -> str:
        key = m.group("pct") or m.group("brace")
        if key in values and _begins_with_vowel(values[key]):
            return m.group("word")[:-1] + "'"
        return m.group(0)
    return _BEFORE_PLACEHOLDER.sub(one, template)


class ElidingTemplate(str):
    """A French message whose "de"/"que" before a placeholder agree with the value put
    there (see the module's docstring)."""

    __slots__ = ()

    def __mod__(self, values: Any) -> str:
        if isinstance(values, Mapping):
            return str.__mod__(_elide(str(self), values), values)
        return str.__mod__(str(self), values)

    def format(self, *args: Any, **kwargs: Any) -> str:
        return str.format(_elide(str(self), kwargs), *args, **kwargs)


def eliding(text: str) -> str:
    """``text`` as an :class:`ElidingTemplate` where it has a "de"/"que" before a
    placeholder, else unchanged."""
    if _BEFORE_PLACEHOLDER.search(text) is None:
        return text
    return ElidingTemplate(text)
