"""The twenty-eighth first-time-player pass: what the twenty-seventh left.

Played at 80×24, 60×20 and 120×40, in English, French and Swedish, the full screen and
the line mode, against bots and between two terminals.

1. `play --auto --lang fr` (a bot plays the seat, the player watches) ended the match with
   "(automatique) play 3" still above "Partie finie : Cy gagne.": the bot's last move of a
   hand over was cleared by an English test of the status ("(auto)"), in English alone.
2. Classic rules, Puncture-Proof played on a Flat Tire, then a 25: "Your zone is not moving:
   play a Roll first (with these rules, a remedy alone does not get you moving again …)"
   to a player who had played no remedy: the safety's case is said as the safety's.
3. The full screen's help at 60×20 broke its list of commands inside one ("draw, draw" at
   a line's end, "discard, coup, pass," under it) and its safeties between a letter pair
   and its card ("PP" and "Puncture-Proof" on two lines): each short item of a list stays
   whole on a line.
4. Host and join, hand 2: Ann pressed Enter and played first; Ben still read hand 1's
   scores (his draw waits for his Enter), and Ann's screen said "Ben is drawing (no time
   limit)." for as long as he read: only the hand's first player was said to be "maybe
   still reading the last hand's scores". And `play --in-process`, whose other seats are
   all bots of this process, said it of a bot ("Bo starts the hand: … (they may still be
   reading the last hand's scores)") at each later hand's start.
5. `host` and `join` said "Table "Ann's table": classic rules, 3 seats (solo)" (French
   "3 places (solo)", Uyghur "(solo)" in Latin letters): the engine's label, a word no
   option and no help uses. `simulate` and `tournament` said it too. It says "no teams";
   teams as --teams writes them ("2x2").
6. `simulate --matches 3` and `tournament --matches 2` (both report "N matches") were
   answered with the usage alone: each verb's own count is guessed, as for --games.
"""

from __future__ import annotations

import asyncio

import pytest
from cli_helpers import run_headless, until
from prompt_toolkit.input.base import PipeInput
from test_cli_app import NAMES
from test_cli_render import base_view, cards_of

from cli import i18n
from cli.app import TableApp
from cli.driver import LocalDriver
from engine import Kind, Seating, explain, preset
from engine.state import HandState

LANGS = ["af", "fr", "sv", "ug", "vi"]

# ----- 1. a watcher's last automatic move is not left above the match's end -----


@pytest.mark.parametrize("lang, over", [("en", "Match over"), ("fr", "Partie finie"),
                                        ("sv", "Matchen är slut")])
def test_a_watchers_last_move_goes_when_the_match_is_over_in_every_language(
        lang: str, over: str) -> None:
    d = LocalDriver(preset("modern"), Seating.solo(2), NAMES[:2], seed=3)
    seen: list[list[str]] = []

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.over, 60)
        await asyncio.sleep(0.3)
        seen.append(app.status_lines())
        inp.send_text("q")

    run_headless(lambda inp, out: TableApp(d, input=inp, output=out, delay=0, auto=True,
                                           lang=lang), script)
    [lines] = seen
    assert over in lines[0], (lang, lines)
    assert not any("auto" in line for line in lines), (lang, lines)


# ----- 2. a safety that cured a hazard still needs a Roll: said as the safety's --------


def _cured_by(card: Kind, hazard: Kind = Kind.FLAT_TIRE) -> str:
    """Why a 25 cannot be played by a zone whose Flat Tire ``card`` cured (classic)."""
    v = base_view(2)
    battle = cards_of(Kind.ROLL) + cards_of(hazard)
    safeties: tuple[int, ...] = ()
    if card is Kind.PUNCTURE_PROOF:
        safeties = tuple(cards_of(card))
    else:
        battle += cards_of(card)
    z = v.zones[0]._replace(battle=tuple(battle), safeties=safeties, started=True)
    reason = explain(v._replace(zones=(z,) + v.zones[1:]), 0, cards_of(Kind.D25)[0])
    assert reason is not None
    return reason


def test_a_safety_that_cured_a_hazard_is_not_said_to_be_a_remedy() -> None:
    from cli.words import rule_last

    with i18n.using("en"):
        said = rule_last(_cured_by(Kind.PUNCTURE_PROOF))
    assert said.startswith("Your zone is not moving: play a Roll first"), said
    assert "a remedy" not in said, said
    assert "a safety that cures a hazard does not get you moving again" in said, said
    assert "option roll_after_remedy" in said and said.endswith("[R5]"), said
    with i18n.using("en"):                 # the remedy's case as before
        said = rule_last(_cured_by(Kind.SPARE_TIRE))
    assert "a remedy alone does not get you moving again" in said, said


@pytest.mark.parametrize("lang", LANGS)
def test_the_safetys_case_is_translated(lang: str) -> None:
    from cli.words import rule_last

    with i18n.using(lang):
        safety = rule_last(_cured_by(Kind.PUNCTURE_PROOF))
        remedy = rule_last(_cured_by(Kind.SPARE_TIRE))
    assert "safety" not in safety and "O-roll" not in safety, (lang, safety)
    assert "roll_after_remedy" in safety and safety != remedy, (lang, safety)


# ----- 3. a narrow help keeps each item of its lists whole ------------------------------

#: The short items of the help's lists, as a narrow help must keep each on one line.
WHOLE = {"en": ["draw discard", "play N on NAME", "PP Puncture-Proof", "ET Extra Tank",
                "DA Driving Ace", "extend yes|no", "why N (? N)"],
         "fr": ["draw discard", "play N on NOM", "extend yes|no"],
         "sv": ["draw discard", "play N on NAMN", "PF Punkteringsfri", "MF Mästerförare"]}


@pytest.mark.parametrize("lang", sorted(WHOLE))
@pytest.mark.parametrize("width", [40, 46, 52, 58, 64, 70])
def test_a_narrow_help_keeps_each_item_of_its_lists_whole(lang: str, width: int) -> None:
    from cli.words import help_text, key_lines

    with i18n.using(lang):
        text = help_text(True)
    lines = [w for line in text.splitlines() for w in key_lines(line, width)]
    assert all(i18n.cells(line) <= width for line in lines), (width, lines)
    for item in WHOLE[lang]:
        assert any(item in line for line in lines), (lang, width, item, lines)
    # nothing lost or added: the same words in the same order
    assert " ".join(" ".join(lines).split()) == " ".join(text.split())


def test_a_help_line_that_fits_is_as_written() -> None:
    from cli.words import help_text, key_lines

    for line in help_text(True).splitlines():
        assert key_lines(line, 78) == [line]


# ----- 4. a player's first draw of a later hand, after others moved --------------------


def _second_to_draw(turns: int = 2, scores: tuple[int, ...] = (1200, 850)) -> HandState:
    from engine.state import DRAW

    v = base_view(2)
    discard = tuple(cards_of(Kind.D25))
    return v._replace(phase=DRAW, seat=1, turn_seat=1, first_seat=0, turns=turns,
                      discard=discard, match_scores=scores)


def test_a_players_first_draw_of_a_later_hand_says_they_may_be_reading_the_scores() -> None:
    from cli.words import waiting_text

    v = _second_to_draw()
    assert waiting_text(v, 0, NAMES) == ("Waiting for Bo to draw for the first time this "
                                         "hand (they may still be reading the last hand's "
                                         "scores)."), waiting_text(v, 0, NAMES)
    # not a bot, nor in a replay, nor in the match's first hand, nor on a later turn
    assert waiting_text(v, 0, NAMES, bots=(1,)) == "Bo is drawing."
    assert waiting_text(v, -1, NAMES) == "Bo is drawing."
    assert waiting_text(_second_to_draw(scores=(0, 0)), 0, NAMES) == "Bo is drawing."
    assert waiting_text(_second_to_draw(turns=4), 0, NAMES) == "Bo is drawing."


@pytest.mark.parametrize("lang", LANGS)
def test_the_first_draw_after_others_is_translated(lang: str) -> None:
    from cli.words import waiting_text

    with i18n.using(lang):
        said = waiting_text(_second_to_draw(), 0, NAMES)
        plain = waiting_text(_second_to_draw(turns=4), 0, NAMES)
    assert "first time" not in said and said != plain, (lang, said)


# ----- 5. a table's seating in words ----------------------------------------------------


def _lobby_head(seating: Seating, lang: str = "en") -> str:
    from cli.seats import lobby_lines
    from p2p.table.lobby import LobbyState, SeatInfo

    seats = [SeatInfo("Ann", b"k" * 32)] + [None] * (seating.n_players - 1)
    st = LobbyState("t", preset("classic"), seating, seats, b"k" * 32, b"i" * 16)
    with i18n.using(lang):
        return lobby_lines(st, 0)[0]


def test_a_tables_seating_is_said_in_words() -> None:
    assert _lobby_head(Seating.solo(3)).endswith(": classic rules, 3 seats (no teams)")
    assert _lobby_head(Seating(4, 2)).endswith(": classic rules, 4 seats (2x2)")
    assert _lobby_head(Seating(6, 3)).endswith(": classic rules, 6 seats (3x2)")


@pytest.mark.parametrize("lang", LANGS)
def test_a_tables_seating_is_translated(lang: str) -> None:
    solo = _lobby_head(Seating.solo(3), lang)
    assert "solo" not in solo and "no teams" not in solo, (lang, solo)
    assert "(2x3)" in _lobby_head(Seating(6, 2), lang)


def test_simulate_says_its_seating_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    assert main(["simulate", "--games", "1", "--players", "3", "--seed", "3",
                 "--lang", "en"]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert "(3 players, no teams)" in first and "solo" not in first, out


# ----- 6. --matches, the reports' own word, is guessed as each verb's count ------------


@pytest.mark.parametrize("argv, meant", [
    (["simulate", "--matches", "3"], "did you mean '--games'?"),
    (["tournament", "--bots", "easy,normal", "--matches", "2"], "did you mean '--deals'?"),
])
def test_matches_is_answered_with_the_verbs_own_count(
        argv: list[str], meant: str, capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert meant in err, err


def test_a_bot_of_this_process_is_never_said_to_be_reading_the_scores() -> None:
    """`play --in-process`, hand 2: "Bo starts the hand: waiting for them to draw (they may
    still be reading the last hand's scores)." Bo is a bot of this very process."""
    from engine.state import DRAW

    for first_seat, turns, discard in ((1, 1, ()), (0, 2, tuple(cards_of(Kind.D25)))):
        d = LocalDriver(preset("classic"), Seating.solo(3), NAMES[:3], seed=3)
        seen: list[list[str]] = []

        async def script(app: TableApp, inp: PipeInput, d: LocalDriver = d,
                         first_seat: int = first_seat, turns: int = turns,
                         discard: tuple[int, ...] = discard,
                         seen: list[list[str]] = seen) -> None:
            await asyncio.sleep(0.1)
            d.state = d.state._replace(match_scores=(100, 200, 0), phase=DRAW, seat=1,
                                       turn_seat=1, turns=turns, first_seat=first_seat,
                                       discard=discard)
            await asyncio.sleep(0.05)
            seen.append(app.status_lines())
            inp.send_text("\x11")

        def make(inp: PipeInput, out: object, d: LocalDriver = d) -> TableApp:
            return TableApp(d, input=inp, output=out, delay=3)

        run_headless(make, script)
        [lines] = seen
        assert lines == ["Bo is drawing."], lines
