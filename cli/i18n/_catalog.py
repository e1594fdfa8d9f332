"""Translators: compiled gettext catalogs shipped in the package, and the active one.

Catalogs live in ``cli/locale/<lang>/LC_MESSAGES/millebornes.mo`` (sources: the ``.po`` next
to them). English is the source language and needs none. Plural forms come from each
catalog's ``Plural-Forms`` header, so ``ngettext`` is right for Vietnamese (one form), French
(``n > 1``) and the rest. A missing or damaged catalog falls back to English rather than
stopping the game: the check (``python -m cli.i18n check``) is where that is caught.

``ug-Latn`` reads the Uyghur catalog and transliterates each message (see ``rtl``).
"""

from __future__ import annotations

import gettext
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

from . import rtl
from ._elision import eliding
from ._settings import BIDI_MODES, LANGUAGES, Settings, resolve

DOMAIN = "millebornes"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
#: Right-to-left languages (their script, not their Latin transliteration).
RTL_LANGUAGES = frozenset({"ug"})


@cache
def _load(catalog: str) -> gettext.NullTranslations:
    path = LOCALE_DIR / catalog / "LC_MESSAGES" / f"{DOMAIN}.mo"
    try:
        with path.open("rb") as f:
            return gettext.GNUTranslations(f)
    except (OSError, ValueError, UnicodeDecodeError):
        return gettext.NullTranslations()


class Translator:
    """One language's messages plus how its lines go to the terminal.

    ``gettext``/``ngettext``/``pgettext``/``npgettext`` translate (``msgctxt`` tells apart
    equal English words with different meanings, e.g. a card name and a verb). ``display``
    is the last step before a line reaches the terminal."""

    def __init__(self, language: str = "en", bidi: str = "shape") -> None:
        if language not in LANGUAGES:
            raise ValueError(f"unknown language {language!r}: choose one of {', '.join(LANGUAGES)}")
        if bidi not in BIDI_MODES:
            raise ValueError(f"bidi must be one of {', '.join(BIDI_MODES)}, not {bidi!r}")
        self.language = language
        self.bidi = bidi
        self.latin = language == "ug-Latn"
        source = "ug" if self.latin else language
        self._catalog = gettext.NullTranslations() if language == "en" else _load(source)

    @property
    def rtl(self) -> bool:
        """Whether this language reads right to left on screen (so a layout may right-align)."""
        return self.language in RTL_LANGUAGES

    def _out(self, text: str, source: str) -> str:
        if self.latin:
            return rtl.to_latin(text, capitalize=source[:1].isupper())
        if self.language == "fr":
            return eliding(text)     # "la main d'Ann", "de Bo": see _elision
        return text

    def gettext(self, message: str) -> str:
        return self._out(self._catalog.gettext(message), message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return self._out(self._catalog.ngettext(singular, plural, n), singular)

    def pgettext(self, context: str, message: str) -> str:
        return self._out(self._catalog.pgettext(context, message), message)

    def npgettext(self, context: str, singular: str, plural: str, n: int) -> str:
        return self._out(self._catalog.npgettext(context, singular, plural, n), singular)

    def display(self, line: str) -> str:
        """``line`` as the terminal must receive it: Uyghur shaped and in visual order (unless
        the terminal does its own bidi), Latin-script Uyghur with any Arabic-script text left
        in it (a player's name) transliterated, any other language unchanged."""
        if self.latin:
            return rtl.to_latin(line)
        if self.language in RTL_LANGUAGES and self.bidi == "shape":
            return rtl.visual(line)
        return line

    def display_paragraph(self, lines: list[str]) -> list[str]:
        """The lines of one wrapped paragraph as :meth:`display` gives each, except that in
        Uyghur every line of a right-to-left paragraph is laid out right to left, a line of
        Latin alone too (see :func:`cli.i18n.rtl.visual_paragraph`)."""
        if not self.latin and self.language in RTL_LANGUAGES and self.bidi == "shape":
            return rtl.visual_paragraph(lines)
        return [self.display(line) for line in lines]

    def display_fragments(self, fragments: list[tuple[str, str]]) -> list[tuple[str, str]] | None:
        """One line of styled fragments in visual order as a whole (Uyghur shaped): None
        where each fragment is shown on its own, as :meth:`display` gives it (every language
        written left to right, and a terminal doing its own bidi)."""
        if not self.latin and self.language in RTL_LANGUAGES and self.bidi == "shape":
            return rtl.visual_fragments(fragments)
        return None

    def __repr__(self) -> str:
        return f"Translator({self.language!r}, bidi={self.bidi!r})"


_active = Translator()


def activate(translator: Translator) -> Translator:
    """Make ``translator`` the one the module-level ``_`` and friends use; returns the
    previous one. One process shows one player's screen, so one active language suffices."""
    global _active
    previous, _active = _active, translator
    return previous


def active() -> Translator:
    return _active


def setup(settings: Settings | None = None) -> Translator:
    """Activate the language the settings (by default: environment and config file) choose."""
    chosen = settings if settings is not None else resolve()
    translator = Translator(chosen.language, chosen.bidi)
    activate(translator)
    return translator


@contextmanager
def using(language: str, bidi: str = "shape") -> Iterator[Translator]:
    """Temporarily another active language (tests, rendering one screen in every language)."""
    translator = Translator(language, bidi)
    previous = activate(translator)
    try:
        yield translator
    finally:
        activate(previous)


def _(message: str) -> str:
    """The active language's text for ``message``."""
    return _active.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return _active.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    return _active.pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    return _active.npgettext(context, singular, plural, n)


def N_(message: str) -> str:
    """Marks ``message`` for extraction without translating it now (a constant defined at
    import time, translated with ``_()`` where it is shown)."""
    return message


def display(line: str) -> str:
    return _active.display(line)


def display_fragments(fragments: list[tuple[str, str]]) -> list[tuple[str, str]] | None:
    return _active.display_fragments(fragments)


def display_paragraph(lines: list[str]) -> list[str]:
    return _active.display_paragraph(lines)


#: One catalog by name, without the language fallbacks (tests, tools).
load_catalog = _load
