"""Errors and status messages a new player meets first, in the player's language (issue 13):
a bad option, a refused seat, a stopped match. Each message still names what is wrong and
who (the option, the value, the seat), whatever the language."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cli import i18n
from cli.main import main

LANGUAGES = ("en", "fr", "sv", "vi", "af", "ug")


@pytest.fixture(autouse=True)
def _keep_language() -> Iterator[None]:
    """``main`` activates the language it is given: put the test run's back afterwards."""
    before = i18n.active()
    yield
    i18n.activate(before)


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().err


def test_a_bad_port_in_swedish_is_said_in_swedish(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _error(["host", "--lang", "sv", "--port", "x"], capsys)
    assert code == 2
    assert "--port: en port är ett tal från 1 till 65535, inte 'x'" in err
    assert "millebornes host" in err
    assert "a port is" not in err


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_bad_port_names_the_option_and_the_value_in_every_language(
        language: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _error(["join", "--lang", language, "--bidi", "terminal", "--port", "99999"],
                       capsys)
    assert code == 2
    assert "--port" in err and "99999" in err and "65535" in err
    assert ("a port is a number" in err) == (language == "en")


def test_an_unknown_bot_in_french_names_the_bot_and_the_choices(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _error(["play", "--lang", "fr", "--bots", "easy,nosuchbot"], capsys)
    assert code == 2
    assert "aucun robot ne s'appelle 'nosuchbot'" in err
    assert "--bots" in err and "heuristic" in err and "expert" in err


def test_too_many_bots_in_vietnamese(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _error(["play", "--lang", "vi", "--bots", "9"], capsys)
    assert code == 2
    assert "--bots phải từ 1 đến 5 (một bàn có từ 2 đến 6 người chơi), không phải 9" in err


def test_argparse_own_choice_error_is_translated(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _error(["play", "--lang", "af", "--rules", "odd"], capsys)
    assert code == 2
    assert "ongeldige keuse: 'odd'" in err and "'classic'" in err


def test_a_bad_name_in_afrikaans_names_the_name() -> None:
    from cli.args import check_name
    with i18n.using("af"), pytest.raises(ValueError) as exc:
        check_name("a b")
    assert str(exc.value) == "--name neem een woord (letters, syfers, - _ ' .), nie 'a b' nie"


def test_simulate_checks_its_bots_in_the_players_language(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _error(["simulate", "--lang", "sv", "--bots", "heuristic,robocop",
                        "--games", "1"], capsys)
    assert code == 2
    assert "--bots: det finns ingen bot som heter 'robocop'" in err
