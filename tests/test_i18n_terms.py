"""One word for one thing in each catalog: the glossary's (docs/glossary/<lang>.md).

A review found the French catalog saying "bot" in some twenty messages and "robot" in
sixty for the same program, Afrikaans "rekenaarspeler" and "robot" beside "bot",
Vietnamese "máy" (its word for the computer) for the bot, Uyghur "ماشىنا ئويۇنچى" beside
"بوت", and a hand of the match called by the word for the cards one holds. A newcomer
reading two words wonders whether they are two things. These tests read the .po files
with Babel and hold every translation to the glossary's word.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
LANGS = ("af", "fr", "sv", "ug", "vi")
PLACEHOLDER = re.compile(r"%\([^)]*\)[-#0 +]*\d*(?:\.\d+)?[a-zA-Z]|\{[^{}]*\}")


def _catalog(language: str) -> list[tuple[str, str | None, tuple[str, ...]]]:
    """(English, context, translations) of every message of the language's .po."""
    path = ROOT / "cli" / "locale" / language / "LC_MESSAGES" / "millebornes.po"
    with path.open("rb") as f:
        catalog = read_po(f, locale=language)
    out = []
    for m in catalog:
        if not m.id:
            continue
        english = m.id if isinstance(m.id, str) else m.id[0]
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        out.append((english, m.context, tuple(s for s in strings if s)))
    return out


def _screen_words(language: str) -> dict[str, str]:
    """English -> translation from the glossary's "Screen words" table."""
    text = (ROOT / "docs" / "glossary" / f"{language}.md").read_text(encoding="utf-8")
    section = text.split("## Screen words", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cols) >= 3 and cols[0] not in ("English", "---"):
            rows[cols[0]] = cols[1]
    return rows


#: English term -> how a message names it (placeholders taken out first). "a table seats
#: 2 to 6" is the verb, not the seat.
TERMS = {"bot": r"(?<![-\w.])bots?\b", "computer": r"\bcomputers?\b",
         "seat": r"\bseats?\b(?! \d)"}
#: Inflected forms a substring of the glossary's word cannot catch: Uyghur drops the ۇ of
#: ئورۇن (seat) before a vowel suffix (ئورنى, ئورنىغا); Vietnamese says "a bot plays your
#: seat" as "một bot chơi thay bạn" (plays in your stead), no noun at all.
FORMS = {("ug", "seat"): ("ئورۇن", "ئورن"), ("vi", "seat"): ("chỗ", "thay bạn")}


@pytest.mark.parametrize("language", LANGS)
@pytest.mark.parametrize("term", sorted(TERMS))
def test_every_message_naming_the_term_says_the_glossarys_word(language: str,
                                                               term: str) -> None:
    word = _screen_words(language)[term]
    forms = FORMS.get((language, term), (word,))
    wrong = []
    for english, _, strings in _catalog(language):
        if not strings or not re.search(TERMS[term], PLACEHOLDER.sub("", english), re.I):
            continue
        said = " ".join(strings).lower()
        if not any(f.lower() in said for f in forms):
            wrong.append((english, strings[0]))
    assert not wrong, f"{language}: {term} is not {word!r} in:\n" + "\n".join(map(str, wrong))


#: What each language says of a thing its glossary names otherwise: never in a translation.
#: French keeps the typed command "bot" ("tapez bot") and the option --bots.
FR_COMMANDS = re.compile(r"[Tt]apez bot\b|--bots\b|millebornes\.bots")
NOT_SAID = {
    # (a file's name or an option is no word: docs/bots.md, --auto-bot)
    "fr": [(r"(?<![\w(/-])[Bb]ots?\b", "robot"), (r"\bmatchs?\b", "partie (a match)"),
           (r"\bHome\b|\bEnd\b", "the key labels Début, Fin")],
    "af": [(r"rekenaarspeler", "bot"), (r"\b[Rr]obot", "bot"),
           (r"handsleutel", "rondtesleutel (a hand of the match is a rondte)"),
           (r"volgende hand\b|in hand %\(hand\)d|die (vorige )?hand[: ]",
            "rondte (a hand of the match)")],
    "sv": [(r"handnyck", "givnyckel (a hand of the match is a giv)"),
           (r"\bett giv\b", "en giv"), (r"\bbottarna startar", "botarna (bottar are safeties)"),
           (r"\bolycka\b", "attack (a hazard; Olycka is the card)"),
           (r"\bskydd (mot|eller)\b", "säkerhetskort (a safety)")],
    "vi": [(r"máy chơi", "bot"), (r"máy tính", "máy (the computer)"),
           (r"\bghế\b", "chỗ (a seat)"),
           (r"thẻ tấn công", "thẻ nguy hiểm (a hazard card)"),
           (r"khóa tay bài", "khóa ván (a hand's key)")],
    "ug": [(r"ماشىنا ئويۇنچى", "بوت (bot)"), (r"ھەر بىر ھۇجۇم", "خەتەر (a hazard)"),
           (r"تاشلانغان كارتىلاردىن", "تاشلىۋېتىلگەن دۆۋە (the discard pile)")],
}


@pytest.mark.parametrize("language", LANGS)
def test_no_translation_says_a_word_the_glossary_did_not_choose(language: str) -> None:
    wrong = []
    for english, context, strings in _catalog(language):
        for text in strings:
            text = PLACEHOLDER.sub("", text)
            if language == "fr":
                text = FR_COMMANDS.sub("", text)
            for pattern, instead in NOT_SAID.get(language, []):
                found = re.search(pattern, text)
                if found and context != "key":
                    wrong.append(f"{found.group()!r} (say {instead}) in {english[:60]!r}")
    assert not wrong, f"{language}:\n" + "\n".join(wrong)


def test_vietnamese_says_a_game_as_the_match_and_van_only_for_a_hand() -> None:
    """Vietnamese said "ván" for a saved game ("Ván đã lưu", "ván %(id)s") and for a hand of
    it ("ván 2"): the glossary's "ván" is a hand, and a game is the match ("trận")."""
    wrong = []
    for english, _, strings in _catalog("vi"):
        plain = PLACEHOLDER.sub("", english)
        if (re.search(r"\bgames?\b", plain) and not re.search(r"\bmatch|\bhand", plain)
                and any(re.search(r"(?<!\w)ván(?!\w)", s, re.I) for s in strings)):
            wrong.append((english, strings[0]))
        # "the game is saved" beside a hand ("… leaves this hand unscored") said "ván
        # được lưu" in the paused seat's lines
        if "the game is saved" in plain and any("ván được lưu" in s for s in strings):
            wrong.append((english, strings[0]))
    assert not wrong, "\n".join(map(str, wrong))
