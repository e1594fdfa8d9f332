"""The twenty-first first-time-player pass: what the twentieth left.

"Waiting for Bo, Di to answer the hazard" read as an unfinished list where a newcomer
expects "Bo and Di"; the modern score sheet said "Safeties 0" beside a safety played as a
coup fourré (its points are in the coup fourré row); ``rules --lang ug`` mirrored a bracket
pair split across two lines wrongly; a bot whose process died was "Bo (a bot) stopped
answering" without who runs it, where the slow-bot line names the runner.
"""

from __future__ import annotations

from pathlib import Path

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
    assert w == "Waiting for Bo and Di to answer the Stop hazard.", w


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


# ----- 2. modern rules: a safety played as a coup fourré is not "Safeties 0" -----


def _modern_sheet(lang: str, width: int = 80) -> list[str]:
    from engine import Seating, preset
    from engine.scoring import Match, SideScore

    zero = dict.fromkeys(SideScore._fields, 0)
    # we played Right of Way as a coup fourré (R14: 200 in its own row, 0 under safeties)
    ours = SideScore(**{**zero, "distance": 700, "coups_fourres": 200})
    theirs = SideScore(**{**zero, "distance": 500})
    match = Match(preset("modern"), Seating.parse(2, None), 0, ((ours, theirs),))
    with i18n.using(lang):
        return render.plain(render.score_lines((ours, theirs), match, ["You", "Bo"], 1,
                                               width=width))


@pytest.mark.parametrize("width", [80, 40])
def test_modern_sheet_says_where_a_coup_fourre_safety_scored(width: int) -> None:
    shown = _modern_sheet("en", width)
    joined = " ".join(" ".join(shown).split())
    assert "Safeties" in joined, shown
    assert ("a safety played as a coup fourré scores 200 in the Coups fourrés row, "
            "instead of 100 under Safeties") in joined, shown
    assert all(i18n.cells(line) <= width for line in shown), shown


def test_modern_sheet_note_is_translated() -> None:
    for lang in ("af", "fr", "sv", "ug", "vi"):
        joined = " ".join(_modern_sheet(lang))
        assert "instead of 100" not in joined and "200" in joined, (lang, joined)


def test_classic_sheet_has_no_modern_note() -> None:
    from engine import Seating, preset
    from engine.scoring import Match, SideScore

    zero = dict.fromkeys(SideScore._fields, 0)
    ours = SideScore(**{**zero, "distance": 700, "safeties": 100, "coups_fourres": 300})
    match = Match(preset("classic"), Seating.parse(2, None), 0, ((ours, ours),))
    shown = " ".join(render.plain(render.score_lines((ours, ours), match, ["You", "Bo"], 1)))
    assert "Modern rules" not in shown, shown


# ----- 3. the Uyghur rules page: a line of Latin alone is laid out right to left -----


@pytest.mark.parametrize("width", [40, 50, 60])
def test_uyghur_rules_page_lays_out_every_line_right_to_left(width: int) -> None:
    """`millebornes rules --lang ug` at 40-60 columns: the bracket opened before
    "millebornes play --rules modern: 1000" in the sentence's direction ended a line, or
    began one of Latin alone, left as written: "(millebornes play ..." with the bracket
    at its left, unmirrored, where the line before it has it mirrored on the right."""
    from cli.rules import rules_text

    with i18n.using("ug"):
        page = rules_text(width)
    assert "(millebornes" not in page, page
    assert "millebornes play --rules" in page
    # the command's run keeps its order, its bracket on its right (the sentence's side)
    runs = [line for line in page.split("\n") if "--rules" in line]
    assert all("--rules)" in line or "1000)" in line for line in runs), runs
    # the page's last words (a line of Latin alone at 40 and 60) read from the right as
    # the sentence does: its full stop at the line's left end
    assert page.split("\n")[-1].strip().startswith(".millebornes play --option help"), page


def test_display_paragraph_leaves_other_languages_alone() -> None:
    lines = ["Two rule sets: classic (the default", "(millebornes play --rules modern"]
    with i18n.using("fr"):
        assert i18n.display_paragraph(lines) == lines


# ----- 4. a bot whose process died: said with who runs it, as a slow bot is -----


@pytest.mark.parametrize("plain", [True, False])
def test_a_bot_that_stopped_names_its_runner(plain: bool) -> None:
    """Seat 2 (Cy) watches Bo, a bot Ann's computer runs, whose process died: "Bo (a bot)
    stopped answering" left Cy to wonder whose bot it was and whom to ask; the slow-bot
    line ("a bot run by Ann") says it."""
    from test_newcomer_nineteenth import _Waits

    d = _Waits("gone", bot=True)
    d.names = ["Ann", "Bo", "Cy"]
    d.seat = 2
    with i18n.using("en"):
        said = d.activity(plain=plain)
    assert said is not None and said.startswith("Bo (a bot run by Ann) stopped answering"), said


@pytest.mark.parametrize("plain", [True, False])
def test_a_pause_on_a_stopped_bot_names_its_runner(plain: bool) -> None:
    from test_newcomer_words import _PausedOn

    from cli.netdriver import NetDriver

    d = _PausedOn(["Ann", "Bo", "Cy"], "gone", {"id": "unresponsive", "step": "game.act",
                                                "gone": True}, quit=False)
    d.seat = 2
    d.bots = frozenset({1})
    d.bot_maker = object()  # type: ignore[assignment]
    with i18n.using("en"):
        said = NetDriver.silent_words(d, plain) or ""  # type: ignore[arg-type]
    assert said.startswith("Bo (a bot run by Ann) stopped answering; the game is saved."), said
    assert ("type bot" if plain else "press b") in said, said


# ----- 5. (played) classic's Roll after a remedy said in words, not "under O-roll-after-remedy"


def test_a_remedy_without_a_roll_is_said_in_words() -> None:
    """Classic rules, Gasoline played on Out of Gas, then a 25: "a remedy is not enough
    under O-roll-after-remedy" left a newcomer with an option's id for a reason."""
    from cli.words import rule_last
    from engine import Kind, explain

    v = base_view(2)
    z = v.zones[0]._replace(battle=tuple(cards_of(Kind.ROLL) + cards_of(Kind.OUT_OF_GAS)
                                         + cards_of(Kind.GASOLINE)), started=True)
    v = v._replace(zones=(z,) + v.zones[1:])
    d25 = cards_of(Kind.D25)[0]
    reason = explain(v, 0, d25)
    assert reason is not None and "O-roll-after-remedy" in reason, reason
    with i18n.using("en"):
        said = rule_last(reason)
    assert "a remedy alone does not get you moving again" in said, said
    assert said.startswith("Your zone is not moving: play a Roll first"), said
    with i18n.using("fr"):
        said = rule_last(reason)
    assert "repartir" in said, said


# ----- 6. (played, 60 columns) a path too long for a line is cut after a "/" -----


def test_a_long_path_is_cut_after_a_folder_not_inside_a_name() -> None:
    """`play --plain` at 60 columns ended with ".../95e95/transcript." and "mbt. Anyone
    can check it with:": the path cut inside its file name, at a dot that read as the
    sentence's end."""
    path = "/tmp/nc21/data2/90a74c9032813135a30fa87751345e95/transcript.mbt"
    lines = i18n.wrap(f"The game is saved in {path}. Anyone can check it with:", 60)
    assert lines[1] == "/tmp/nc21/data2/90a74c9032813135a30fa87751345e95/", lines
    assert lines[2].startswith("transcript.mbt. Anyone"), lines
    assert "".join(lines[1:3]).startswith(path + "."), lines


@pytest.mark.slow     # a whole classic match in the line mode, about 6 s
def test_the_line_mode_never_says_a_players_turn_just_after_their_move_ended_it(
        tmp_path: Path) -> None:
    """`play --plain` said "* Bo's turn. (up to 30 s)" right after "* Bo discarded 100."
    when the turn was already this player's (newcomer pass 21): a move is said as its
    entry comes, and the view takes it once its card is opened; the turn was read from
    the view in between. No turn line follows its player's own turn-ending move."""
    import re as _re

    from test_cli_plain import _cli

    proc = _cli("play", "--plain", "--auto", "--bots", "hard", "--seed", "5",
                "--data-dir", str(tmp_path / "g"), timeout=240)
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stdout.splitlines() if line.startswith("* ")]
    safeties = ("Right of Way", "Extra Tank", "Puncture-Proof", "Driving Ace")
    wrong = [(before, line) for before, line in zip(said, said[1:], strict=False)
             if (m := _re.match(r"\* (\w+)'s turn\b", line))
             and before.startswith(f"* {m.group(1)} ")
             and ("played" in before or "discarded" in before)
             and not any(s in before for s in safeties)]
    assert not wrong, wrong
