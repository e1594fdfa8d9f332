"""A tenth first-time player: the help's key lines fit the 78-cell help frame in every
language; narrow and wide terminals, the other languages, modern rules, three players,
networked play, tournaments, verify and nonsense typed everywhere."""

from __future__ import annotations

import itertools

import pytest

from cli import i18n
from cli.words import help_text

ALL_LANGS = ("en", "fr", "sv", "vi", "af", "ug", "ug-Latn")


@pytest.mark.parametrize("lang", ALL_LANGS)
def test_every_help_line_fits_the_78_cell_help_frame(lang: str) -> None:
    """The help's frame is 78 cells inside at 80 columns: a longer key line was re-wrapped
    and its columns ran together (French "c coup fourré … répondre à une question" was 81
    cells, Swedish "h eller F1 …" 79 and "Säkerhetskort: …" 80, Vietnamese "Enter ván sau …"
    80). Every line but the prose ones (not indented: wrapped at spaces on purpose) fits,
    in every combination of the help's parts."""
    with i18n.using(lang):
        for color, saved, network, log_keys, draw_discard in itertools.product((True, False),
                                                                              repeat=5):
            page = help_text(color, saved, network, log_keys, draw_discard)
            for line in page.splitlines():
                if line.startswith(" "):
                    assert i18n.cells(line) <= 78, (lang, i18n.cells(line), line)
