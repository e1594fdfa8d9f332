"""cli.i18n without the catalogs' content: terminal-cell widths, Uyghur shaping, order and
Latin transliteration, and how the language is chosen (option, config file, environment)."""

from __future__ import annotations

import argparse
import os
import unicodedata
from pathlib import Path

import pytest
from cli_helpers import within as _within

from cli import i18n
from cli.i18n import cells, fit, pad, rtl, wrap
from cli.i18n import load_catalog as _load

# --- widths ----------------------------------------------------------------------------------

VIET_NFC = "Giới hạn tốc độ"
VIET_NFD = unicodedata.normalize("NFD", VIET_NFC)


def test_cells_count_combining_marks_as_zero_and_wide_chars_as_two() -> None:
    assert len(VIET_NFD) > len(VIET_NFC) == 15
    assert cells(VIET_NFC) == cells(VIET_NFD) == 15
    assert cells("漢字") == 4
    assert cells("") == 0
    assert cells("a\x07b") == 2  # a control character takes no cell, never a negative width


@pytest.mark.parametrize("text", [VIET_NFC, VIET_NFD, "Roue de secours", "漢字漢字漢字",
                                  "ماشىنا ھەيدەش ئۇستىسى"])
@pytest.mark.parametrize("width", [1, 2, 3, 5, 8, 13, 40])
def test_fit_never_exceeds_the_width_nor_splits_a_letter_from_its_accents(
        text: str, width: int) -> None:
    out = fit(text, width)
    assert cells(out) <= width
    if cells(text) <= width:
        assert out == text
    else:
        assert out.endswith("…")
        kept = out[:-1]
        assert text.startswith(kept)
        # the cut falls between clusters: the next character is no combining mark
        assert not unicodedata.combining(text[len(kept)])


def test_fit_keeps_a_wide_char_out_rather_than_half_in() -> None:
    assert fit("漢字漢", 4) == "漢…"  # 漢 + … = 3 cells; 漢字 + … would be 5
    assert fit("ab", 0) == ""


@pytest.mark.parametrize("align", ["left", "right", "center"])
def test_pad_fills_to_exactly_the_width(align: str) -> None:
    for text in (VIET_NFD, "漢字", "Crevaison", "x" * 30):
        assert cells(pad(text, 17, align)) == 17
    assert pad("ab", 4, "right") == "  ab"
    assert pad("ab", 5, "center") == " ab  "
    with pytest.raises(ValueError):
        pad("ab", 4, "middle")


@pytest.mark.parametrize("width", [1, 4, 10, 20, 33])
def test_wrap_keeps_every_word_in_order_within_the_width(width: int) -> None:
    text = ("Bạn sẽ chơi các thẻ Giới hạn tốc độ với những người chơi khác ngay cả khi "
            "漢字漢字漢字 supercalifragilistic")
    text = unicodedata.normalize("NFD", text)
    lines = wrap(text, width)
    assert all(cells(line) <= width for line in lines)
    if width >= 2:  # at width 1 a wide character cannot be shown at all
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")


def test_wrap_keeps_newlines_and_rejects_a_silly_width() -> None:
    assert wrap("a b\n\nc", 10) == ["a b", "", "c"]
    assert wrap("", 5) == [""]
    with pytest.raises(ValueError):
        wrap("a", 0)


@pytest.mark.parametrize("width", [16, 20, 40, 62])
def test_wrap_never_starts_a_line_with_french_spaced_punctuation(width: int) -> None:
    """The French line-mode board read "Défausse" then ": vide." on the next line: a
    colon (or ; ! ? ») set apart by a space stays with the word before it, a « with the
    word after it."""
    text = ("Manche 1, classique, voyage de 1000 km. Pioche : 90 cartes. Défausse : vide. "
            "Elle dit « Attention ! » puis joue ; et vous ?")
    lines = wrap(text, width)
    assert all(cells(line) <= width for line in lines)
    assert " ".join(lines) == text
    for line in lines:
        assert line.split()[0] not in {":", ";", "!", "?", "»"}, lines
        assert line.split()[-1] != "«", lines


# --- Uyghur: shaping and visual order --------------------------------------------------------

@pytest.mark.parametrize(("logical", "expected"), [
    # teh initial, waw final, khah initial, teh medial, alef final; then right to left
    ("توختا", "\uFE8E\uFE98\uFEA7\uFEEE\uFE97"),
    # heh doachashmee initial, alef final, dal isolated, alef maksura initial, seen medial,
    # ae final (drawn as heh final: arabic-reshaper's table lacks ae, see rtl)
    ("ھادىسە", "\uFEEA\uFEB4\uFBE8\uFEA9\uFE8E\uFBAC"),
    # beh initial, alef final, lam initial, waw final, noon isolated
    ("بالون", "\uFEE5\uFEEE\uFEDF\uFE8E\uFE91"),
    ("لا", "\uFEFB"),  # lam-alef ligature: two letters, one cell
])
def test_uyghur_is_shaped_and_ordered_for_a_terminal_without_bidi(
        logical: str, expected: str) -> None:
    assert rtl.visual(logical) == expected


def test_latin_names_and_numbers_keep_their_order_inside_a_right_to_left_line() -> None:
    assert rtl.visual("Bo: توختا 25") == "25 \uFE8E\uFE98\uFEA7\uFEEE\uFE97 :Bo"
    assert rtl.visual("Bo played 25") == "Bo played 25"  # no Arabic: untouched


def test_shaping_never_widens_a_line() -> None:
    with i18n.using("ug") as tr:
        for card in range(106):
            name = i18n.card_name(card, tr)
            assert cells(tr.display(name)) <= cells(name)


def test_bidi_terminal_setting_sends_logical_text() -> None:
    with i18n.using("ug", bidi="terminal") as tr:
        name = tr.pgettext("card", "Stop")
        assert tr.display(name) == name == "توختا"
    with i18n.using("ug", bidi="shape") as tr:
        assert tr.display(name) == "\uFE8E\uFE98\uFEA7\uFEEE\uFE97"
        assert tr.rtl


@pytest.mark.parametrize(("arabic", "latin"), [
    ("توختا", "toxta"),
    ("ھادىسە", "hadise"),
    ("سۈرئەت چەكلىمىسى", "sür'et cheklimisi"),  # ئ inside a word: an apostrophe
    ("ئۆتۈش", "ötüsh"),                          # ئ starting a word: silent
    ("زاپاس بالون", "zapas balon"),
    ("بىر، ئىككى؟", "bir, ikki?"),
    ("نگ", "n'g"), ("سھ", "s'h"), ("ڭ", "ng"),    # digraphs kept apart from ڭ, ش
    ("Bo ۋە 25", "Bo we 25"),
])
def test_ug_latn_transliteration(arabic: str, latin: str) -> None:
    assert rtl.to_latin(arabic) == latin
    assert rtl.to_latin(rtl.shape(arabic)) == latin  # presentation forms fold back


def test_ug_latn_shows_no_arabic_script() -> None:
    with i18n.using("ug-Latn") as tr:
        names = [i18n.card_name(c, tr) for c in range(106)]
        assert not any(rtl.has_arabic(n) for n in names)
        assert tr.pgettext("card", "Stop") == "Toxta"  # capital, as the English card name
        assert tr.pgettext("family", "hazard") == "xeter"  # lower case, as the English
        assert tr.display("Äli: توختا") == "Äli: toxta"  # a player's name transliterated too
        assert not tr.rtl


# --- choosing the language ---------------------------------------------------------------------

@pytest.mark.parametrize(("spelling", "code"), [
    ("sv", "sv"), ("sv_SE.UTF-8", "sv"), ("vi-VN", "vi"), ("fr_CA@euro", "fr"), ("AF", "af"),
    ("ug_CN.UTF-8", "ug"), ("ug-Latn", "ug-Latn"), ("ug_Latn", "ug-Latn"),
    ("ug@latin", "ug-Latn"), ("ug_CN@latin", "ug-Latn"), ("en_GB", "en"),
    ("de_DE", None), ("", None), ("C", None), ("x" * 100, None),
])
def test_normalize_language(spelling: str, code: str | None) -> None:
    assert i18n.normalize_language(spelling) == code


def _no_config(tmp_path: Path) -> Path:
    return tmp_path / "absent.toml"


def test_precedence_option_then_config_then_environment_then_english(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    env = {"LANG": "vi_VN.UTF-8"}
    assert i18n.resolve(None, environ=env, config=config).language == "vi"
    config.write_text('language = "af"\n')
    got = i18n.resolve(None, environ=env, config=config)
    assert (got.language, got.source) == ("af", "config")
    got = i18n.resolve("sv", environ=env, config=config)
    assert (got.language, got.source) == ("sv", "option")
    got = i18n.resolve(None, environ={}, config=_no_config(tmp_path))
    assert (got.language, got.source) == ("en", "default")


def test_environment_order_is_gettexts() -> None:
    def pick(env: dict[str, str]) -> str | None:
        return i18n.resolve(None, environ=env, config=Path("/nonexistent/c.toml")).language

    assert pick({"LANGUAGE": "de:sv", "LC_ALL": "fr_FR", "LANG": "vi_VN"}) == "sv"
    assert pick({"LC_ALL": "fr_FR.UTF-8", "LC_MESSAGES": "sv_SE", "LANG": "vi_VN"}) == "fr"
    assert pick({"LC_MESSAGES": "ug_CN", "LANG": "vi_VN"}) == "ug"
    assert pick({"LANG": "af_ZA.UTF-8"}) == "af"
    assert pick({"LC_ALL": "C", "LANG": "vi_VN"}) == "en"
    assert pick({"LANG": "de_DE.UTF-8"}) == "en"


def test_config_file_location_follows_xdg_and_can_be_pointed_elsewhere(tmp_path: Path) -> None:
    assert i18n.config_path({"XDG_CONFIG_HOME": str(tmp_path)}) == \
        tmp_path / "millebornes" / "config.toml"
    assert i18n.config_path({"MILLEBORNES_CONFIG": str(tmp_path / "bo.toml")}) == \
        tmp_path / "bo.toml"
    (tmp_path / "millebornes").mkdir()
    (tmp_path / "millebornes" / "config.toml").write_text('language = "ug"\nbidi = "terminal"\n')
    got = i18n.resolve(None, environ={"XDG_CONFIG_HOME": str(tmp_path), "LANG": "sv_SE"})
    assert (got.language, got.bidi) == ("ug", "terminal")
    assert i18n.resolve(None, "shape", environ={"XDG_CONFIG_HOME": str(tmp_path)}).bidi == "shape"


@pytest.mark.parametrize("content", [
    b"language = \n", b"\xff\xfe not utf-8", b'language = "klingon"\n', b"language = 3\n",
    b'bidi = "sideways"\n', b"x = 1\n" * 20000,
])
def test_a_bad_config_file_is_reported_and_ignored(tmp_path: Path, content: bytes) -> None:
    config = tmp_path / "config.toml"
    config.write_bytes(content)
    got = i18n.resolve(None, environ={"LANG": "sv_SE"}, config=config)
    assert (got.language, got.bidi) == ("sv", "shape")
    assert len(got.problems) == 1 and str(config) in got.problems[0]


def test_a_config_directory_instead_of_a_file_is_reported(tmp_path: Path) -> None:
    got = i18n.resolve(None, environ={}, config=tmp_path)
    assert got.language == "en" and got.problems


def test_a_named_pipe_or_a_device_as_config_is_reported_never_waited_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`mkfifo f; MILLEBORNES_CONFIG=f millebornes --version` waited forever: the pipe was
    opened and read (so was /dev/tty)."""
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    with _within(5):
        got = i18n.resolve(None, environ={"LANG": "sv_SE"}, config=fifo)
        assert (got.language, got.bidi) == ("sv", "shape")
        assert got.problems == (f"{fifo}: not a regular file (a named pipe)",)
        got = i18n.resolve(None, environ={}, config=Path(os.devnull))
        assert got.problems == (f"{os.devnull}: not a regular file (a device)",)
        from cli.main import main
        monkeypatch.setenv("MILLEBORNES_CONFIG", str(fifo))
        with pytest.raises(SystemExit) as done:
            main(["--version"])
        assert done.value.code in (0, None)
    assert "millebornes" in capsys.readouterr().out


def test_unknown_option_values_stop_with_a_sentence() -> None:
    with pytest.raises(ValueError, match="unknown language 'klingon'"):
        i18n.resolve("klingon", environ={}, config=Path("/nonexistent/c.toml"))
    with pytest.raises(ValueError):
        i18n.Translator("de")
    with pytest.raises(ValueError):
        i18n.Translator("ug", bidi="sideways")


def test_command_line_options(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="millebornes")
    i18n.add_arguments(parser)
    args = parser.parse_args(["--lang", "sv_SE.UTF-8", "--bidi", "terminal"])
    assert (args.lang, args.bidi) == ("sv", "terminal")
    assert parser.parse_args([]).lang is None
    with pytest.raises(SystemExit) as stop:
        parser.parse_args(["--lang", "klingon"])
    assert stop.value.code == 2
    assert "unknown language 'klingon'" in capsys.readouterr().err


def test_setup_activates_the_module_level_functions() -> None:
    previous = i18n.active()
    try:
        tr = i18n.setup(i18n.Settings(language="fr"))
        assert i18n.active() is tr
        assert i18n.pgettext("card", "Roll") == "Feu vert"
        assert i18n.card_name(0) == "25"
        assert i18n.ngettext("%(count)d card", "%(count)d cards", 2) == "%(count)d cartes"
        assert i18n._("unknown language %(code)s: choose one of %(choices)s").startswith(
            "langue inconnue")
        assert i18n.N_("Roll") == "Roll"
        assert i18n.display("x") == "x"
    finally:
        i18n.activate(previous)


def test_a_missing_catalog_falls_back_to_english() -> None:
    assert _load("zz").gettext("Roll") == "Roll"


# --- helpers for the screen tests -------------------------------------------------------------

def test_overflowing_names_each_line_too_wide_and_a_screen_too_tall() -> None:
    assert i18n.overflowing(["a" * 80, "漢" * 40, VIET_NFD * 5]) == []
    faults = i18n.overflowing(["ok", "漢" * 41] + ["x"] * 23)
    assert len(faults) == 2 and "line 2 is 82 cells" in faults[0] and "25 lines" in faults[1]


def test_english_card_names_are_found_only_where_they_leak() -> None:
    from i18n_helpers import english_card_names_in, screen_faults
    assert english_card_names_in("Bo played Roll on Ann. Spare Tire next.", "sv") == \
        ["Roll", "Spare Tire"]
    assert english_card_names_in("Bo spelade grönt ljus. 100 km.", "sv") == []
    assert english_card_names_in("Accident sur Bo", "fr") == []  # the French name too
    assert english_card_names_in("Rolling on; Stopped", "vi") == []  # whole words only
    assert screen_faults(["توختا " * 13], "ug") == []  # 78 cells once shaped


def test_a_command_and_a_path_in_a_right_to_left_line_stay_as_written() -> None:
    """Newcomer, round 4: the resume line in Uyghur came out as "--data-dir
    (millebornes verify …" with a path's slash moved to its end ("tmp/newcomer4/d7/"):
    the command could not be copied. Left-to-right runs are isolated, whole words only
    (the colon of an Arabic word, or of "Bo:", stays the sentence's)."""
    from cli.i18n import rtl
    line = ("ئويۇننى داۋاملاشتۇرۇش: millebornes resume 6d5d2199 --data-dir /tmp/n4/d7 "
            "(millebornes verify 6d5d2199 --data-dir /tmp/n4/d7 تەكشۈرىدۇ)")
    shown = rtl.visual(line)
    # each command whole; the parenthesis is the sentence's, around the second command
    # and its Uyghur verb, drawn mirrored (pointing inwards) as right-to-left text is
    assert shown.startswith("(") and \
        "millebornes verify 6d5d2199 --data-dir /tmp/n4/d7) millebornes resume 6d5d2199 " \
        "--data-dir /tmp/n4/d7 :" in shown, shown
    assert not any(c in shown for c in "\u2066\u2067\u2068\u2069")
    for wrapped in ("--data-dir /tmp/n4/d7 تەكشۈرىدۇ", "/tmp/n4/d7 ئويۇن"):
        assert wrapped.split(" ت")[0].split(" ئ")[0] in rtl.visual(wrapped)
