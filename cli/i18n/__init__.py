"""Every screen in the player's language: en, fr, sv, vi, af, ug (and ug-Latn).

How the console uses this package (see docs/translating.md for translators):

- at start-up: ``tr = i18n.setup(i18n.resolve(args.lang, args.bidi))`` (the ``--lang`` and
  ``--bidi`` options come from ``i18n.add_arguments(parser)``);
- every string a player reads: ``_("...")``, ``ngettext(...)`` for counts,
  ``pgettext(ctx, ...)`` where one English word has two meanings, ``N_("...")`` for module
  constants translated later; placeholders are named, ``_("%(name)s played %(card)s.")``;
- game words: ``card_name``, ``kind_name``, ``family_name``, ``phase_name``,
  ``score_item_name``, ``rule_term``, ``safety_abbreviation``, ``points``, ``cards_count``;
  ``short_card_name`` where a row has no room for a card's printed name;
- layout in terminal cells: ``cells``, ``fit``, ``pad``, ``wrap``;
- the last step of every line to the terminal: ``display(line)`` (Uyghur shaping and order),
  ``display_fragments(fragments)`` for a line of styled fragments (ordered as a whole);
  ``display_paragraph(lines)`` for the lines of one wrapped paragraph (a right-to-left
  paragraph lays out each of them right to left, a line of Latin alone too);
  ``protect_streams()`` at start-up: a terminal whose encoding lacks a character gets an
  ASCII stand-in for it, never an error; ``terminal_width(stream)``: the width to wrap a
  text said on a stream at (the terminal's, 80 for a file or a pipe).
"""

from ._args import add_arguments as add_arguments
from ._args import close_match as close_match
from ._args import did_you_mean as did_you_mean
from ._args import language_option as language_option
from ._catalog import LOCALE_DIR as LOCALE_DIR
from ._catalog import N_ as N_
from ._catalog import Translator as Translator
from ._catalog import _ as _
from ._catalog import activate as activate
from ._catalog import active as active
from ._catalog import display as display
from ._catalog import display_fragments as display_fragments
from ._catalog import display_paragraph as display_paragraph
from ._catalog import load_catalog as load_catalog
from ._catalog import ngettext as ngettext
from ._catalog import npgettext as npgettext
from ._catalog import pgettext as pgettext
from ._catalog import setup as setup
from ._catalog import using as using
from ._elision import ElidingTemplate as ElidingTemplate
from ._elision import eliding as eliding
from ._settings import LANGUAGES as LANGUAGES
from ._settings import Settings as Settings
from ._settings import config_path as config_path
from ._settings import normalize_language as normalize_language
from ._settings import resolve as resolve
from ._terminal import ascii_fallback as ascii_fallback
from ._terminal import protect_streams as protect_streams
from ._terminal import terminal_width as terminal_width
from ._terms import PHASES as PHASES
from ._terms import RULE_TERMS as RULE_TERMS
from ._terms import SCORE_ITEMS as SCORE_ITEMS
from ._terms import SHORT_NAMED as SHORT_NAMED
from ._terms import card_name as card_name
from ._terms import cards_count as cards_count
from ._terms import family_name as family_name
from ._terms import join_and as join_and
from ._terms import join_list as join_list
from ._terms import kind_name as kind_name
from ._terms import phase_name as phase_name
from ._terms import points as points
from ._terms import rule_term as rule_term
from ._terms import safety_abbreviation as safety_abbreviation
from ._terms import score_item_name as score_item_name
from ._terms import short_card_name as short_card_name
from ._terms import short_kind_name as short_kind_name
from ._width import NO_BREAK as NO_BREAK
from ._width import cells as cells
from ._width import clusters as clusters
from ._width import fit as fit
from ._width import overflowing as overflowing
from ._width import pad as pad
from ._width import wrap as wrap
