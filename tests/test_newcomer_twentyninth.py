"""The twenty-ninth first-time-player pass: what the twenty-eighth left.

1. French said "Feu rouge ne peut pas être jouée maintenant", "Accident peut être jouée",
   "Feu vert n'est pas une attaque : elle va …" and "le Crevaison du dessus": the words
   agreed with "carte", which the sentence did not say, or with no card at all. They say
   "la carte …" now, right for every card; and the line mode's "Désolé : La carte …"
   goes on in small letters after its colon.
"""

from __future__ import annotations

import pytest
from test_cli_commands import cards_of, make, pos
from test_cli_render import NAMES, base_view, text

from cli import i18n, render
from cli.commands import parse
from engine import Kind

# ----- 1. French: "la carte X ne peut pas être jouée", whatever X's gender -----


@pytest.mark.parametrize("k", list(Kind))
def test_french_says_whether_a_card_can_be_played_in_words_right_for_every_card(
        k: Kind) -> None:
    """Feu rouge, Feu vert, Accident, 25 … are masculine, Crevaison feminine: "X ne peut
    pas être jouée" was wrong for half the deck. "La carte X …" is right for all."""
    ctx = make(sorted(set(cards_of(k) + cards_of(Kind.D25) + cards_of(Kind.ROLL))))
    with i18n.using("fr"):
        name = i18n.kind_name(k)
        said = " ".join(parse(f"why {pos(ctx, k)}", ctx).text.split())
    assert said.startswith((f"La carte {name} ne peut pas être jouée maintenant : ",
                            f"La carte {name} peut être jouée maintenant.")), said


def test_french_calls_a_card_that_is_not_a_hazard_la_carte() -> None:
    """"play 3 on bo" with a Roll: "Feu vert n'est pas une attaque : elle va de votre
    côté" (elle: a Feu vert is masculine)."""
    ctx = make(sorted(cards_of(Kind.ROLL) + cards_of(Kind.D25)))
    with i18n.using("fr"):
        said = " ".join(parse(f"play {pos(ctx, Kind.ROLL)} on bo", ctx).text.split())
    assert "la carte Feu vert n'est pas une attaque : elle va de votre côté" in said, said


@pytest.mark.parametrize("hazard, safety", [
    (Kind.FLAT_TIRE, Kind.PUNCTURE_PROOF), (Kind.OUT_OF_GAS, Kind.EXTRA_TANK),
    (Kind.ACCIDENT, Kind.DRIVING_ACE), (Kind.STOP, Kind.RIGHT_OF_WAY)])
def test_french_names_a_cured_hazard_on_top_as_la_carte(hazard: Kind, safety: Kind) -> None:
    """"Bataille : il faut un Feu vert (le Crevaison du dessus est sans effet …)"."""
    v = base_view(2)
    z = v.zones[0]._replace(battle=tuple(cards_of(hazard)), safeties=tuple(cards_of(safety)),
                            started=True)
    v = v._replace(zones=(z, v.zones[1]))
    with i18n.using("fr"):
        name = i18n.kind_name(hazard)
        words = " ".join(text(render.zone_lines(v, 0, NAMES, 0, verbose=True)).split())
    assert f"(la carte {name} du dessus est sans effet : sa botte est posée)" in words, words


def test_the_french_line_mode_goes_on_in_small_letters_after_desole() -> None:
    """The line mode's refusal is "Désolé : REASON": "Désolé : La carte 50 …" had a
    capital after the colon; a name keeps its own ("Désolé : Feu rouge ne répond pas")."""
    import io

    from cli.driver import LocalDriver
    from cli.plain import run_plain
    from engine import Seating, preset

    out = io.StringIO()
    with i18n.using("fr"):
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=2, lang="fr")
        run_plain(d, lang="fr", out=out, inp=io.StringIO("jouer 50\nquitter\noui\n"))
    said = " ".join(out.getvalue().split())
    assert "Désolé : la carte 50 ne peut pas être jouée maintenant : il vous faut un Feu " \
           "vert" in said, said
