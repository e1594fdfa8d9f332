"""The twenty-first first-time-player pass: what the twentieth left.

"Waiting for Bo, Di to answer the hazard" read as an unfinished list where a newcomer
expects "Bo and Di"; the modern score sheet said "Safeties 0" beside a safety played as a
coup fourré (its points are in the coup fourré row); ``rules --lang ug`` mirrored a bracket
pair split across two lines wrongly; a bot whose process died was "Bo (a bot) stopped
answering" without who runs it, where the slow-bot line names the runner.
"""

from __future__ import annotations

import pytest
from test_cli_render import NAMES, base_view, cards_of

from cli import i18n, render
from engine.state import RESPOND, Attack

# ----- 1. people named together in a sentence: "Bo and Di" -----


def test_waiting_for_two_says_and() -> None:
    from engine import Kind

    v = base_view(4)
    att = Attack(attacker=0, card=cards_of(Kind.STOP)[0], side=1, responders=(1, 3))
    w = render.waiting_text(v._replace(phase=RESPOND, attack=att), 0, NAMES)
    assert w == "Waiting for Bo and Di to answer the hazard (Stop).", w


@pytest.mark.parametrize("lang, two, three", [
    ("en", "Bo and Di", "Ann, Bo and Di"),
    ("fr", "Bo et Di", "Ann, Bo et Di"),
    ("af", "Bo en Di", "Ann, Bo en Di"),
    ("sv", "Bo och Di", "Ann, Bo och Di"),
    ("vi", "Bo và Di", "Ann, Bo và Di"),
    ("ug", "Bo ۋە Di", "Ann، Bo ۋە Di"),
])
def test_join_and_in_each_language(lang: str, two: str, three: str) -> None:
    with i18n.using(lang):
        assert i18n.join_and([]) == ""
        assert i18n.join_and(["Bo"]) == "Bo"
        assert i18n.join_and(["Bo", "Di"]) == two
        assert i18n.join_and(["Ann", "Bo", "Di"]) == three


def test_agreement_line_names_two_with_and() -> None:
    from cli.words import agreed_end_line, agreement_line

    line = agreement_line("end", "Cy", ["Ann", "Bo"], ["Di", "Ed"])
    assert "agreed by Ann and Bo;" in line and "waiting for Di and Ed." in line, line
    assert agreed_end_line("Cy", 2, ["Ann", "Bo"]).startswith("Ann and Bo ended")
