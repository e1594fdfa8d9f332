"""The translators' tool: ``python -m cli.i18n extract|update|compile|check|all``.

- ``extract``: find every translatable string in ``cli/`` (Babel's Python extractor, the
  standard gettext keywords) and write the template ``cli/locale/millebornes.pot``;
- ``update``: merge the template into each ``cli/locale/<lang>/LC_MESSAGES/millebornes.po``
  (new messages come in empty, changed ones fuzzy, removed ones obsolete);
- ``compile``: each ``.po`` to its ``.mo`` (what the game loads; shipped in the package);
- ``check``: every problem a release must not have, one line each, exit status 1 if any;
- ``all``: the four in that order.

Files are written without dates or line numbers so that running the tool twice changes
nothing (a clean ``git diff``). Babel is needed here only (``pip install -e '.[test]'``), never
by the game itself.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gettext
import io
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ._catalog import DOMAIN, LOCALE_DIR

#: The catalogs shipped besides English (the source language, no catalog).
CATALOG_LANGUAGES = ("fr", "sv", "vi", "af", "ug")
SOURCE_DIR = LOCALE_DIR.parent
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
#: A fixed date in the headers keeps regenerated files byte-identical.
_FIXED_DATE = _dt.datetime(2026, 1, 1, tzinfo=_dt.UTC)
HEADER = ("# Messages of the millebornes command (Mille Bornes on a LAN, no server).\n"
          "# Distributed under the same license as the millebornes project (MIT).\n"
          "# See docs/translating.md and docs/glossary/.")
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2),
            "npgettext": ((1, "c"), 2, 3), "N_": None}

#: Messages that may read the same as the English in every language: no letters at all
#: (numbers, "25"), or "OK".
ALWAYS_SAME = frozenset({"OK"})
#: Labels on keys (``pgettext("key", …)``) that keyboards of a language print in English.
_KEYS = ("Backspace", "Enter", "Home", "End", "Delete", "Insert", "Esc")


def _keys(language: str, keys: tuple[str, ...] = _KEYS) -> dict[str, str]:
    return {k: f"the label on the key of a {language} keyboard" for k in keys}


#: Per language, English messages whose translation is rightly the same word; each with why.
SAME_AS_ENGLISH: dict[str, dict[str, str]] = {
    "fr": {
        "Accident": "the French card is called Accident",
        "distance": "French word for the family",
        "Distance": "French score-sheet line",
        "Total": "French word",
        "Coups fourrés": "the term is French to begin with",
        "coup fourré": "the term is French to begin with",
        "%(count)d point": "French 'point', 'points'",
        "%(address)s, port %(port)d": "French 'port' (a network port)",
    },
    "af": {"Stop": "the Afrikaans seed lists the card as '5 Stop'",
           "coup fourré": "the Afrikaans seed keeps the French term ('Coup Fourre')",
           "modern": "Afrikaans 'modern', the rule set's name alone (as 'klassiek'; "
                     "'moderne' is the form before a noun)",
           "bot": "Afrikaans 'bot' (a program that plays; the glossary's word, 'bots' for more)",
           "%(name)s (bot: %(level)s)": "Afrikaans 'bot' as above; the level is the "
                                        "command line's word (--bots easy,expert)",
           **_keys("South African")},
    "sv": {"match": "Swedish 'match' (the seed: 'Matchen går till 5000')",
           "modern": "Swedish 'modern' (moderna regler)",
           "bot": "Swedish 'bot' (a program that plays), as in English",
           "%(name)s (bot: %(level)s)": "Swedish 'bot' as above; the level is the command "
                                        "line's word (--bots easy,expert)",
           "%(n)d match": "Swedish 'match', one of them ('matcher' for more)",
           "ET": "Swedish 'Extratank': E(xtra)t(ank), the English letters by chance",
           "%(address)s, port %(port)d": "Swedish 'port' (a network port)",
           **_keys("Swedish", _KEYS[1:])},
    "vi": {"coup fourré": "the Vietnamese seed keeps the French term ('Coup Fourre')",
           "bot": "Vietnamese 'bot' (a program that plays; the glossary's word, not 'máy', "
                  "which is the computer)",
           "%(name)s (bot: %(level)s)": "Vietnamese 'bot' as above; the level is the "
                                        "command line's word (--bots easy,expert)",
           **_keys("Vietnamese")},
    "ug": {"coup fourré": "the Uyghur seed keeps the French term in Latin letters",
           **_keys("Uyghur")},
}
#: Characters no catalog may hold: bidi controls and Arabic presentation forms (the game shapes
#: and orders text itself, at display time), and in Uyghur the Arabic and Persian look-alikes
#: of Uyghur letters (they break the ug-Latn transliteration and some fonts).
_NEVER = re.compile("[\u200e\u200f\u202a-\u202e\u2066-\u2069\ufb50-\ufdff\ufe70-\ufefe]")
_NOT_UYGHUR = {"\u0647": "ە (U+06D5) or ھ (U+06BE)", "\u06a9": "ك (U+0643)",
               "\u06cc": "ي (U+064A) or ى (U+0649)"}
_PLACEHOLDER = re.compile(
    r"%\((\w+)\)[#0\- +]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa]"
    r"|%[#0\- +]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa]"
    r"|\{[^{}]*\}")


def _babel() -> Any:
    try:
        import babel.messages  # noqa: F401
    except ImportError as exc:  # pragma: no cover - the test extra installs Babel
        raise SystemExit("the translation tool needs Babel: pip install -e '.[test]'") from exc
    from babel.messages import catalog, extract, mofile, pofile
    return catalog, extract, mofile, pofile


def po_path(language: str, locale_dir: Path = LOCALE_DIR) -> Path:
    return locale_dir / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(language: str, locale_dir: Path = LOCALE_DIR) -> Path:
    return locale_dir / language / "LC_MESSAGES" / f"{DOMAIN}.mo"


def _where(path: Path, locale_dir: Path) -> str:
    return (Path("cli/locale") / path.relative_to(locale_dir)).as_posix()


def extract_template() -> Any:
    """A fresh template from the sources, in memory."""
    catalog_mod, extract_mod, _, _ = _babel()
    template = catalog_mod.Catalog(project="millebornes", version="0.1.0",
                                   creation_date=_FIXED_DATE, revision_date=_FIXED_DATE,
                                   charset="utf-8", fuzzy=False,
                                   header_comment=HEADER)
    found = extract_mod.extract_from_dir(
        str(SOURCE_DIR), method_map=[("**.py", "python")], keywords=KEYWORDS,
        comment_tags=("Translators:",), strip_comment_tags=True)
    for filename, lineno, message, comments, context in sorted(
            found, key=lambda item: (item[0], item[1])):
        rel = (Path("cli") / filename).as_posix()
        template.add(message, None, [(rel, lineno)], auto_comments=comments, context=context)
    return template


def _write_po(catalog: Any, path: Path) -> bool:
    """Write ``catalog`` to ``path`` unless the file already holds exactly that text."""
    _, _, _, pofile = _babel()
    buf = io.BytesIO()
    pofile.write_po(buf, catalog, width=76, include_lineno=False, sort_output=False)
    data = buf.getvalue()
    if path.exists() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def read_po(path: Path, language: str | None = None) -> Any:
    _, _, _, pofile = _babel()
    with path.open("rb") as f:
        return pofile.read_po(f, locale=language, domain=DOMAIN)


def extract() -> bool:
    return _write_po(extract_template(), TEMPLATE)


def update(languages: Sequence[str] = CATALOG_LANGUAGES, drop_obsolete: bool = False) -> None:
    template = read_po(TEMPLATE)
    for language in languages:
        path = po_path(language)
        catalog = read_po(path, language) if path.exists() else _new_catalog(language)
        catalog.update(template, no_fuzzy_matching=False, update_header_comment=False)
        if drop_obsolete:
            catalog.obsolete.clear()
        catalog.revision_date = _FIXED_DATE
        catalog.creation_date = _FIXED_DATE
        _write_po(catalog, path)


def _new_catalog(language: str) -> Any:
    catalog_mod, _, _, _ = _babel()
    return catalog_mod.Catalog(locale=language, domain=DOMAIN, project="millebornes",
                               version="0.1.0", creation_date=_FIXED_DATE,
                               revision_date=_FIXED_DATE, charset="utf-8", fuzzy=False,
                               header_comment=HEADER)


def compile_catalogs(languages: Sequence[str] = CATALOG_LANGUAGES,
                     locale_dir: Path = LOCALE_DIR) -> None:
    _, _, mofile, _ = _babel()
    for language in languages:
        catalog = read_po(po_path(language, locale_dir), language)
        buf = io.BytesIO()
        mofile.write_mo(buf, catalog, use_fuzzy=False)
        data = buf.getvalue()
        target = mo_path(language, locale_dir)
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)


# --- checking -----------------------------------------------------------------------------

def placeholders(text: str) -> list[str]:
    """The format placeholders in ``text``, sorted (order may change in a translation)."""
    return sorted(m.group(0) for m in _PLACEHOLDER.finditer(text.replace("%%", "")))


def _key(message: Any) -> tuple[str, str | None]:
    mid = message.id[0] if isinstance(message.id, tuple) else message.id
    return (mid, message.context)


def _show(key: tuple[str, str | None]) -> str:
    return f"{key[1]}|{key[0]!r}" if key[1] else repr(key[0])


def _forms(message: Any) -> tuple[str, ...]:
    return tuple(message.string) if isinstance(message.string, tuple) else (message.string,)


def _same_allowed(language: str, english: str) -> bool:
    words = _PLACEHOLDER.sub("", english.replace("%%", ""))   # placeholders are not words
    return (english in ALWAYS_SAME or not re.search(r"[^\W\d_]", words)
            or english in SAME_AS_ENGLISH.get(language, {}))


def check_catalog(language: str, template: Any, locale_dir: Path = LOCALE_DIR) -> list[str]:
    """The problems of one language's ``.po`` (and ``.mo``) against the template."""
    path = po_path(language, locale_dir)
    where = _where(path, locale_dir)
    if not path.exists():
        return [f"{where}: missing catalog"]
    catalog = read_po(path, language)
    problems: list[str] = []
    wanted = {_key(m): m for m in template if m.id}
    have = {_key(m): m for m in catalog if m.id}
    for key in wanted:
        if key not in have:
            problems.append(f"{where}: missing message {_show(key)}")
    for key in have:
        if key not in wanted:
            problems.append(f"{where}: obsolete message {_show(key)} (not in the sources)")
    for message in catalog.obsolete.values():
        problems.append(f"{where}: obsolete message {_show(_key(message))} (#~ entry)")
    nplurals = catalog.num_plurals
    for key, message in have.items():
        if key not in wanted:
            continue
        english = wanted[key]
        sources = english.id if isinstance(english.id, tuple) else (english.id,)
        forms = _forms(message)
        if message.fuzzy:
            problems.append(f"{where}: fuzzy message {_show(key)}")
        if isinstance(english.id, tuple) != isinstance(message.id, tuple):
            problems.append(f"{where}: {_show(key)} plural forms differ from the template")
            continue
        if isinstance(english.id, tuple) and len(forms) != nplurals:
            problems.append(f"{where}: {_show(key)} has {len(forms)} plural forms, "
                            f"the header says {nplurals}")
        if any(not f for f in forms):
            problems.append(f"{where}: untranslated message {_show(key)}")
            continue
        wanted_ph = placeholders(sources[0])
        for form in forms:
            if placeholders(form) != wanted_ph:
                problems.append(f"{where}: {_show(key)} placeholders {placeholders(form)} "
                                f"differ from the English {wanted_ph}")
            bad = _NEVER.search(form)
            if bad:
                problems.append(f"{where}: {_show(key)} holds U+{ord(bad.group(0)):04X} "
                                "(no bidi controls or presentation forms: write plain text)")
            for ch, use in _NOT_UYGHUR.items():
                if language == "ug" and ch in form:
                    problems.append(f"{where}: {_show(key)} holds U+{ord(ch):04X}; "
                                    f"Uyghur writes {use}")
            if form in sources and not _same_allowed(language, sources[0]):
                problems.append(f"{where}: {_show(key)} is not translated "
                                "(same as the English)")
    problems.extend(check_compiled(language, catalog, locale_dir))
    return problems


def _po_entries(catalog: Any) -> dict[str, str]:
    """What a ``.mo`` compiled from ``catalog`` must hold, keyed as GNU gettext keys it."""
    out: dict[str, str] = {}
    for message in catalog:
        if not message.id or message.fuzzy or not all(_forms(message)):
            continue
        prefix = f"{message.context}\x04" if message.context else ""
        if isinstance(message.id, tuple):
            for i, form in enumerate(_forms(message)):
                out[f"{prefix}{message.id[0]}#{i}"] = form
        else:
            out[prefix + message.id] = message.string
    return out


def check_compiled(language: str, catalog: Any, locale_dir: Path = LOCALE_DIR) -> list[str]:
    """The ``.mo`` holds exactly the ``.po``'s translations and plural rule (it is up to date)."""
    path = mo_path(language, locale_dir)
    where = _where(path, locale_dir)
    try:
        with path.open("rb") as f:
            compiled = gettext.GNUTranslations(f)
    except (OSError, ValueError) as exc:
        return [f"{where}: cannot be read ({exc}); run: python -m cli.i18n compile"]
    raw: dict[Any, str] = getattr(compiled, "_catalog", {})
    got: dict[str, str] = {}
    for k, v in raw.items():
        if isinstance(k, tuple):
            got[f"{k[0]}#{k[1]}"] = v
        elif k:
            got[k] = v
    problems = []
    if got != _po_entries(catalog):
        problems.append(f"{where}: out of date with its .po; run: python -m cli.i18n compile")
    po_rule = (catalog.plural_forms or "").replace(" ", "")
    mo_rule = compiled.info().get("plural-forms", "").replace(" ", "")
    if po_rule.rstrip(";") != mo_rule.rstrip(";"):
        problems.append(f"{where}: plural rule {mo_rule!r} differs from the .po's {po_rule!r}")
    return problems


def check(languages: Iterable[str] = CATALOG_LANGUAGES,
          locale_dir: Path = LOCALE_DIR) -> list[str]:
    """Every problem: a template behind the sources, then each catalog's."""
    fresh = extract_template()
    problems: list[str] = []
    template = locale_dir / TEMPLATE.name
    if not template.exists():
        problems.append("cli/locale/millebornes.pot: missing; run: python -m cli.i18n extract")
        committed = fresh
    else:
        committed = read_po(template)
        if {_key(m) for m in fresh if m.id} != {_key(m) for m in committed if m.id}:
            problems.append("cli/locale/millebornes.pot: behind the sources; "
                            "run: python -m cli.i18n extract")
    for language in languages:
        problems.extend(check_catalog(language, fresh, locale_dir))
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cli.i18n",
                                     description="extract, update, compile and check catalogs")
    parser.add_argument("command", choices=["extract", "update", "compile", "check", "all"])
    parser.add_argument("--lang", action="append", choices=CATALOG_LANGUAGES,
                        help="only this catalog (repeatable)")
    parser.add_argument("--drop-obsolete", action="store_true",
                        help="update: remove messages the sources no longer use")
    args = parser.parse_args(argv)
    languages = tuple(args.lang or CATALOG_LANGUAGES)
    if args.command in ("extract", "all"):
        print("template: " + ("written" if extract() else "unchanged"))
    if args.command in ("update", "all"):
        update(languages, drop_obsolete=args.drop_obsolete)
    if args.command in ("compile", "all"):
        compile_catalogs(languages)
    if args.command in ("check", "all"):
        problems = check(languages)
        for line in problems:
            print(line)
        print(f"{len(problems)} problem(s) in {len(languages)} catalog(s)")
        return 1 if problems else 0
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
