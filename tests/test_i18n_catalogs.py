"""The shipped catalogs: complete, not fuzzy, nothing obsolete, translated, placeholders as in
the English, compiled catalogs in step with their sources; the card names as the engine and the
seeds have them; and the check itself catches each kind of fault."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("babel")

from cli import i18n  # noqa: E402
from cli.i18n import tool  # noqa: E402
from engine.cards import NAMES_EN, NAMES_FR, Family, Kind  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LANGS = tool.CATALOG_LANGUAGES


def test_the_catalogs_have_no_problem() -> None:
    assert tool.check() == []


@pytest.mark.parametrize("language", LANGS)
def test_each_compiled_catalog_matches_its_source(language: str) -> None:
    catalog = tool.read_po(tool.po_path(language), language)
    assert tool.check_compiled(language, catalog) == []


def test_every_supported_language_has_a_catalog_or_derives_one() -> None:
    assert set(i18n.LANGUAGES) == {"en", *LANGS, "ug-Latn"}


# --- the check catches each fault ------------------------------------------------------------

@pytest.fixture
def locale_copy(tmp_path: Path) -> Path:
    target = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, target)
    return target


def _edit_po(locale: Path, language: str, old: str, new: str) -> None:
    path = tool.po_path(language, locale)
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _problems(locale: Path, language: str) -> list[str]:
    return tool.check([language], locale_dir=locale)


def test_check_finds_a_missing_message(locale_copy: Path) -> None:
    _edit_po(locale_copy, "sv", 'msgctxt "card"\nmsgid "Roll"\nmsgstr "Grönt ljus"\n', "")
    assert any("missing message card|'Roll'" in p for p in _problems(locale_copy, "sv"))


def test_check_finds_a_fuzzy_message(locale_copy: Path) -> None:
    _edit_po(locale_copy, "vi", 'msgctxt "card"\nmsgid "Roll"',
             '#, fuzzy\nmsgctxt "card"\nmsgid "Roll"')
    assert any("fuzzy message card|'Roll'" in p for p in _problems(locale_copy, "vi"))


def test_check_finds_an_obsolete_message(locale_copy: Path) -> None:
    path = tool.po_path("af", locale_copy)
    with path.open("a", encoding="utf-8") as f:
        f.write('\nmsgid "Hyperdrive"\nmsgstr "Hiperaandrywing"\n'
                '\n#~ msgid "Warp"\n#~ msgstr "Skering"\n')
    problems = _problems(locale_copy, "af")
    assert any("obsolete message 'Hyperdrive'" in p for p in problems)
    assert any("obsolete message 'Warp'" in p for p in problems)


def test_check_finds_a_translation_left_in_english(locale_copy: Path) -> None:
    _edit_po(locale_copy, "fr", 'msgstr "Crevaison"', 'msgstr "Flat Tire"')
    assert any("card|'Flat Tire' is not translated" in p for p in _problems(locale_copy, "fr"))


def test_allowlisted_same_words_pass_and_numbers_pass(locale_copy: Path) -> None:
    assert tool.check(["fr"], locale_dir=locale_copy) == []  # "Accident", "25", "Total"


def test_check_finds_an_empty_translation(locale_copy: Path) -> None:
    _edit_po(locale_copy, "ug", 'msgstr "توختا"', 'msgstr ""')
    assert any("untranslated message card|'Stop'" in p for p in _problems(locale_copy, "ug"))


@pytest.mark.parametrize(("old", "new"), [
    ("langue inconnue %(code)s", "langue inconnue %(langue)s"),  # renamed placeholder
    ("langue inconnue %(code)s", "langue inconnue"),             # dropped placeholder
    ("langue inconnue %(code)s", "langue inconnue %(code)d"),    # another conversion
])
def test_check_finds_a_placeholder_unlike_the_english(locale_copy: Path, old: str,
                                                      new: str) -> None:
    _edit_po(locale_copy, "fr", old, new)
    assert any("placeholders" in p for p in _problems(locale_copy, "fr"))


def test_check_finds_a_plural_placeholder_unlike_the_english(locale_copy: Path) -> None:
    _edit_po(locale_copy, "sv", 'msgstr[1] "%(count)d kort"', 'msgstr[1] "{count} kort"')
    assert any("placeholders" in p for p in _problems(locale_copy, "sv"))


def test_check_finds_a_compiled_catalog_behind_its_source(locale_copy: Path) -> None:
    _edit_po(locale_copy, "sv", 'msgstr "Punktering"', 'msgstr "Punka"')
    problems = _problems(locale_copy, "sv")
    assert any("millebornes.mo: out of date" in p for p in problems)
    tool.compile_catalogs(["sv"], locale_dir=locale_copy)
    assert _problems(locale_copy, "sv") == []


def test_check_finds_a_template_behind_the_sources(locale_copy: Path) -> None:
    _edit_po(locale_copy, "sv", "", "")  # no-op: keep the catalog valid
    pot = locale_copy / "millebornes.pot"
    pot.write_text(pot.read_text(encoding="utf-8").replace(
        'msgctxt "card"\nmsgid "Roll"\nmsgstr ""\n', ""), encoding="utf-8")
    assert any("behind the sources" in p for p in tool.check(["sv"], locale_dir=locale_copy))


@pytest.mark.parametrize(("old", "new", "expected"), [
    ('msgstr "توختا"', 'msgstr "\u200fتوختا"', "U+200F"),            # a bidi mark
    ('msgstr "توختا"', 'msgstr "\ufe97\ufeee\ufea7\ufe98\ufe8e"', "U+FE97"),  # shaped
    ('msgstr "ھادىسە"', 'msgstr "ھادىسه"', "U+0647"),                  # Arabic heh for ە
])
def test_check_finds_characters_a_catalog_must_not_hold(locale_copy: Path, old: str, new: str,
                                                        expected: str) -> None:
    _edit_po(locale_copy, "ug", old, new)
    assert any(expected in p for p in _problems(locale_copy, "ug"))


def test_placeholders_are_found_in_every_style() -> None:
    assert tool.placeholders("%(name)s has %(count)d, %s, %5.1f, {x} and 100%%") == \
        sorted(["%(name)s", "%(count)d", "%s", "%5.1f", "{x}"])


# --- terms -----------------------------------------------------------------------------------

def test_english_card_names_are_the_engines() -> None:
    with i18n.using("en") as tr:
        assert {k: i18n.kind_name(k, tr) for k in Kind} == NAMES_EN


def test_french_card_names_are_the_original_ones() -> None:
    with i18n.using("fr") as tr:
        assert {k: i18n.kind_name(k, tr) for k in Kind} == NAMES_FR


#: Issue 13: the Swedish words as the Swedish seed uses them.
SWEDISH = {Kind.FLAT_TIRE: "punktering", Kind.SPARE_TIRE: "reservhjul",
           Kind.OUT_OF_GAS: "bensinstopp", Kind.GASOLINE: "bensin", Kind.ACCIDENT: "olycka",
           Kind.REPAIRS: "reparation", Kind.STOP: "rött ljus", Kind.ROLL: "grönt ljus",
           Kind.SPEED_LIMIT: "hastighetsgräns"}


def test_swedish_card_names_are_the_seeds() -> None:
    with i18n.using("sv") as tr:
        for kind, word in SWEDISH.items():
            assert i18n.kind_name(kind, tr).lower() == word


@pytest.mark.parametrize("language", list(i18n.LANGUAGES))
def test_every_term_has_a_distinct_non_empty_name(language: str) -> None:
    with i18n.using(language) as tr:
        cards = [i18n.kind_name(k, tr) for k in Kind]
        assert len(set(cards)) == len(Kind) and all(cards)
        families = [i18n.family_name(f, tr) for f in Family]
        assert len(set(families)) == 4
        abbreviations = [i18n.safety_abbreviation(k, tr) for k in
                         (Kind.RIGHT_OF_WAY, Kind.EXTRA_TANK, Kind.PUNCTURE_PROOF,
                          Kind.DRIVING_ACE)]
        assert len(set(abbreviations)) == 4 and all(i18n.cells(a) == 2 for a in abbreviations)
        from cli.i18n import PHASES, RULE_TERMS, SCORE_ITEMS
        assert len({i18n.phase_name(p, tr) for p in PHASES}) == len(PHASES)
        assert len({i18n.rule_term(t, tr) for t in RULE_TERMS}) == len(RULE_TERMS)
        assert len({i18n.score_item_name(s, tr) for s in SCORE_ITEMS}) == len(SCORE_ITEMS)


def test_score_items_cover_the_engines_score_sheet() -> None:
    from cli.i18n import SCORE_ITEMS
    from engine.scoring import SideScore
    assert set(SideScore._fields) | {"total"} == set(SCORE_ITEMS)


def test_phases_cover_the_engines() -> None:
    from cli.i18n import PHASES
    from engine import state
    assert set(PHASES) == {state.DRAW, state.PLAY, state.RESPOND, state.EXTEND,
                           state.RESHUFFLE, state.OVER}


@pytest.mark.parametrize(("language", "n", "expected"), [
    ("en", 1, "1 point"), ("en", 0, "0 points"),
    ("fr", 0, "0 point"), ("fr", 1, "1 point"), ("fr", 2, "2 points"),  # French: n > 1
    ("sv", 1, "1 poäng"), ("af", 1, "1 punt"), ("af", 2, "2 punte"),
    ("vi", 1, "1 điểm"), ("vi", 5, "5 điểm"),                            # one form
    ("ug", 2, "2 نومۇر"), ("ug-Latn", 2, "2 nomur"),
])
def test_plurals_follow_each_catalogs_rule(language: str, n: int, expected: str) -> None:
    with i18n.using(language) as tr:
        assert i18n.points(n, tr) == expected


# --- glossaries --------------------------------------------------------------------------------

SEEDS = ROOT.parent / "shared" / "seeds"
SEED_FILE = {"af": "000_", "vi": "001_", "ug": "003_", "sv": "004_"}
def _glossary(language: str) -> dict[str, tuple[str, str]]:
    """English term -> (translation, what the seed says) from docs/glossary/<lang>.md: the
    table's first, second and last columns."""
    rows: dict[str, tuple[str, str]] = {}
    text = (ROOT / "docs" / "glossary" / f"{language}.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        if not line.startswith("|"):
            continue
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cols) >= 3 and cols[0] not in ("English", "---"):
            rows[cols[0]] = (cols[1], cols[-1])
    return rows


@pytest.mark.parametrize("language", LANGS)
def test_glossary_gives_every_card_name_as_the_catalog_has_it(language: str) -> None:
    rows = _glossary(language)
    with i18n.using(language) as tr:
        for kind in Kind:
            if kind.name.startswith("D") and kind.name[1:].isdigit():
                continue
            english = NAMES_EN[kind]
            assert english in rows, f"{language} glossary lacks {english}"
            assert rows[english][0] == i18n.kind_name(kind, tr)


@pytest.mark.parametrize("language", sorted(SEED_FILE))
def test_glossary_quotes_are_in_the_seed(language: str) -> None:
    """Each glossary row quotes (in backticks) the seed's own words, which must be there."""
    seeds = sorted(SEEDS.glob(SEED_FILE[language] + "*")) if SEEDS.is_dir() else []
    if not seeds:
        pytest.skip("the seeds are not beside this checkout")
    seed = " ".join(seeds[0].read_text(encoding="utf-8").split()).lower()
    quoted = 0
    for english, (_, said) in _glossary(language).items():
        for quote in re.findall(r"`([^`]+)`", said):
            assert " ".join(quote.split()).lower() in seed, f"{english}: {quote!r} not in seed"
            quoted += 1
    assert quoted >= 20
