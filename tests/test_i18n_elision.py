"""French elides "de" and "que" before a name that begins with a vowel ("la table d'Ann",
"on attend qu'Ann…"), in the template only: the names and other data put into a message
are never changed (a newcomer read "Table de Ann", "Au tour de Ann")."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from cli import i18n, words
from cli.i18n import ElidingTemplate, eliding


@pytest.mark.parametrize(("name", "said"), [
    ("Ann", "Au tour d'Ann."),
    ("Émile", "Au tour d'Émile."),
    ("Œdipe", "Au tour d'Œdipe."),
    ("ursula", "Au tour d'ursula."),
    ("Bo", "Au tour de Bo."),
    ("Hugo", "Au tour de Hugo."),         # h and y depend on the word: left as written
    ("Yann", "Au tour de Yann."),
    ("1er", "Au tour de 1er."),
    ("", "Au tour de ."),
])
def test_de_is_elided_before_a_name_that_begins_with_a_vowel(name: str, said: str) -> None:
    assert eliding("Au tour de %(name)s.") % {"name": name} == said


def test_que_and_capitals_and_braces() -> None:
    t = eliding("On attend que %(name)s joue. De %(other)s : {x}")
    assert t % {"name": "Ann", "other": "Ève", "x": 1} == "On attend qu'Ann joue. D'Ève : {x}"
    assert eliding("la main de {name}").format(name="Ines") == "la main d'Ines"
    assert eliding("la main de {name}").format(name="Bo") == "la main de Bo"


def test_only_the_templates_own_words_change_never_the_data() -> None:
    # a table named by its host with "de" + vowel inside, and quoted: kept as written
    t = eliding("Table « %(table)s » de %(name)s")
    assert t % {"table": "Tour de Anvers", "name": "Ann"} == "Table « Tour de Anvers » d'Ann"
    # a word that merely ends in "de" is not the word "de"
    assert eliding("monde %(name)s") == "monde %(name)s"
    assert eliding("aide %(name)s") % {"name": "Ann"} == "aide Ann"
    # "de" not right before a placeholder: nothing to do, plain text
    assert type(eliding("de la route")) is str
    # positional values: left alone
    assert eliding("de %(name)s") % {"name": "Ann"} == "d'Ann"
    assert ElidingTemplate("de %s") % ("Ann",) == "de Ann"


def test_the_french_catalog_elides_and_english_does_not() -> None:
    state = SimpleNamespace(table_name="Ann's table", seats=[SimpleNamespace(name="Ann")])
    with i18n.using("fr"):
        assert words.table_name_text(state) == "Table d'Ann"   # type: ignore[arg-type]
        assert i18n._("%(name)s's turn.") % {"name": "Ann"} == "Au tour d'Ann."
        assert i18n._("%(name)s's turn.") % {"name": "Bo"} == "Au tour de Bo."
    with i18n.using("en"):
        assert words.table_name_text(state) == "Ann's table"   # type: ignore[arg-type]
    with i18n.using("sv"):
        assert "d'Ann" not in i18n._("%(name)s's turn.") % {"name": "Ann"}


def test_a_reason_after_a_colon_goes_on_in_small_letters_in_french() -> None:
    """"25 ne peut pas être jouée maintenant : Il vous faut un Feu vert": French writes
    no capital after a colon (newcomer pass 28), but a name keeps its own, a player's or
    a card's; English keeps its whole sentence."""
    from test_cli_commands import cards_of, make, pos

    from cli.commands import parse
    from engine import Kind

    ctx = make(sorted(cards_of(Kind.D25, 2) + cards_of(Kind.D200) + cards_of(Kind.STOP)
                      + cards_of(Kind.ROLL) + cards_of(Kind.GASOLINE)
                      + cards_of(Kind.SPARE_TIRE)))
    with i18n.using("fr"):
        said = " ".join(parse(f"play {pos(ctx, Kind.D25)}", ctx).text.split())
        assert said.startswith("La carte 25 ne peut pas être jouée maintenant : il vous "
                               "faut un Feu vert"), said
        said = " ".join(parse(f"play {pos(ctx, Kind.STOP)} on bo", ctx).text.split())
        assert " : Bo n'a pas encore joué" in said, said
        assert words.after_colon("Limite de vitesse est la seule", ["Bo"]) == \
            "Limite de vitesse est la seule"
    with i18n.using("en"):
        said = parse(f"play {pos(ctx, Kind.D25)}", ctx).text
        assert said.startswith("25 cannot be played now: You need a Roll"), said
