"""Newcomer review, round 6: what a first-time player reads at the terminal (names in a
report, the board's top line, the rules page, typos, the end of a match, the score chart,
the log, the Swedish safeties, the joiner's first lines)."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest

from cli import i18n
from cli.driver import LocalDriver
from engine import Pass, Seating, preset
from engine.bots import make_bot
from p2p.table.memory import make_table, play_fair_match
from p2p.testing import seeded_entropy

LANGUAGES = ("fr", "sv", "vi", "af", "ug")


pytestmark = pytest.mark.usefixtures("keep_language")


# ----- 1. a seat called "You" in the reports ----------------------------------------------

@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished 2-player game (modern: one hand) whose first player kept "You"."""
    with seeded_entropy(b"newcomer-first-game"):
        cfg, ids = make_table(preset("modern"), Seating(2, 2), ["You", "Bo"], b"first-game")
        folder = tmp_path_factory.mktemp("game")
        play_fair_match(cfg, ids, [make_bot("heuristic", s).choose for s in range(2)],
                        transcript=folder / "transcript.mbt")
    return folder


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_games_list_says_who_won_as_its_players_column_does(
        finished: Path, language: str) -> None:
    """`games` said "terminée, You a gagné" beside "Vous*": the player's own seat is
    "you" in the state column too; another player called "You" is "You N"."""
    from cli.games import SavedGame, game_state
    from p2p.audit import verify_game
    report = verify_game(finished / "transcript.mbt")
    assert report.ok and report.complete
    with i18n.using(language):
        for seat in (0, 1):
            state = game_state(SavedGame(finished, "abcd", datetime.datetime(2026, 1, 1),
                                         ("You", "Bo"), seat, "modern"))
            assert re.search(r"\bYou\b(?! \d)", state) is None, state
            if report.winner == seat:
                assert state == i18n._("finished, you won"), state


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_lobby_and_the_start_name_this_seat_in_the_players_language(
        language: str) -> None:
    """The lobby and "the match starts" said "place 0 : You [KEY] (vous)" in French."""
    from cli.seats import lobby_lines, players_lines
    from p2p.table.lobby import LobbyState, SeatInfo
    cfg, _ids = make_table(preset("classic"), Seating(2, 2), ["You", "You"], b"lobby-you")
    st = LobbyState("t", preset("classic"), Seating(2, 2),
                    [SeatInfo("You", b"k" * 32), SeatInfo("You", b"j" * 32)], b"k" * 32,
                    b"i" * 16)
    with i18n.using(language):
        you = i18n._("You")
        for lines in (players_lines(cfg, 0), lobby_lines(st, 0)):
            text = "\n".join(lines)
            assert re.search(r"\bYou\b(?! 2)", text) is None, text
            assert you in text and "You 2" in text, text


# ----- 2. the rule set's name on the board's top line ---------------------------------------

@pytest.mark.parametrize("language", ["en", *LANGUAGES])
def test_the_boards_top_line_names_the_rules_as_a_name(language: str) -> None:
    """The French board's top line read "Mille Bornes · classiques" (an adjective agreeing
    with a "rules" that is not there), and `games` cut it to "classiqu…": the preset's
    own name, whole in the games list's 9 columns."""
    from cli import render
    from cli.driver import LocalDriver
    from cli.words import rules_short
    with i18n.using(language):
        for name in ("classic", "modern"):
            assert i18n.cells(rules_short(name)) <= 9, rules_short(name)
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
        top = "".join(t for _s, t in render.header_line(d.view(), 1))
    expected = {"fr": "Mille Bornes · classique · manche 1", "en": "Mille Bornes · classic ·",
                "sv": "Mille Bornes · klassisk · giv 1"}
    assert top.startswith(expected.get(language, "Mille Bornes · ")), top
    if language == "fr":
        with i18n.using("fr"):
            assert rules_short("modern") == "moderne"
    if language == "af":
        with i18n.using("af"):
            assert (rules_short("classic"), rules_short("modern")) == ("klassiek", "modern")


# ----- 8. the Swedish safeties ---------------------------------------------------------------

def test_the_swedish_safeties_are_swedish_with_their_own_letters() -> None:
    """sv listed "PR Prioritet, CE Citerne d'essence, IN Increvable, AV As du volant":
    French names and French letters beside a Swedish one. Each safety's two letters are
    now its Swedish name's, and the help and the rules page use the same names."""
    from cli.words import HELP, HOW_TO_PLAY
    from engine import Kind
    safeties = (Kind.RIGHT_OF_WAY, Kind.EXTRA_TANK, Kind.PUNCTURE_PROOF, Kind.DRIVING_ACE)
    with i18n.using("fr"):
        french = {i18n.kind_name(k) for k in safeties}
    with i18n.using("sv"):
        names = [i18n.kind_name(k) for k in safeties]
        letters = [i18n.safety_abbreviation(k) for k in safeties]
        help_text, rules = i18n._(HELP), " ".join(i18n._(HOW_TO_PLAY).split())
    assert not french & set(names), names
    assert len(set(letters)) == 4, letters
    for name, abbr in zip(names, letters, strict=True):
        assert name[0] == abbr[0] and abbr[1].lower() in name[1:].lower(), (name, abbr)
        assert f"{abbr} {name}" in help_text, (abbr, name)
        assert name in rules, name
    for word in ("Citerne", "Increvable", "As du volant", " CE ", " IN ", " AV "):
        assert word not in help_text and word not in rules, word


# ----- 5. one confirmation at the end of a match ----------------------------------------------

def test_q_leaves_a_finished_match_at_once() -> None:
    """The status line said "Match over: you win. Press q to leave." and q then asked
    "Leave? The match is over. y leave · n stay": two confirmations to close a finished
    match. q leaves at once (the game is kept as it was; in a match still in play q
    still asks: test_cli_app)."""
    from cli_helpers import run_headless, until
    from prompt_toolkit.input.base import PipeInput

    from cli.app import TableApp
    from cli.driver import LocalDriver
    d = LocalDriver(preset("modern"), Seating.solo(2), ["You", "Bo"], seed=3)
    asked: list[bool] = []

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.over, timeout=30)     # a bot plays the seat to the end
        await until(lambda: app.status_text().endswith("Press q to leave."))
        inp.send_text("q")
        # (is_done holds only until the app has wound up: then its future is None and
        # is_done False again, and the wait timed out in about half the runs)
        await until(lambda: app.app.is_done or not app.app.is_running)
        asked.append(app.confirm_quit)

    assert run_headless(lambda inp, out: TableApp(d, input=inp, output=out, delay=0,
                                                  auto=True, hand_pause=0.0), script) == 0
    assert asked == [False]


# ----- 7. the live log says the player's own pass ----------------------------------------------

def _facing_a_hazard() -> LocalDriver:
    """A classic 2-player table where a hazard was just played on the player ("You")."""
    from engine.state import RESPOND
    for seed in range(40):
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=seed)
        for _turn in range(60):
            d.run_others()
            if d.hand_over or d.view().phase == RESPOND:
                break
            legal = d.legal()
            d.submit(next((a for a in legal if type(a).__name__ in ("Draw", "Discard")),
                          legal[0]))
        if not d.hand_over and d.my_move() and d.view().phase == RESPOND:
            return d
    raise AssertionError("no hazard on the player in 40 deals")


def test_the_live_log_says_you_let_the_hazard_stand() -> None:
    """replay said "You let the hazard stand." and the live log said nothing when the
    player answered n: both use cli.words.describe."""
    d = _facing_a_hazard()
    before = len(d.events)
    d.submit(Pass(0))
    assert "You let the hazard stand." in d.events[before:], d.events[before:]


def test_another_seats_pass_is_unsaid_and_replay_says_it() -> None:
    """R9: another seat's pass says nothing live; replay (every hand shown) says it."""
    from cli.words import describe, replay_step_text
    from engine import apply_action
    d = _facing_a_hazard()
    after = apply_action(d.state, Pass(0))
    assert describe(d.state, Pass(0), after, ["You", "Bo"], 1) is None
    assert describe(d.state, Pass(0), after, ["Ann", "Bo"], 0) == "Ann lets the hazard stand."
    assert replay_step_text(d.state, Pass(0), after, ["Ann", "Bo"], 1) == \
        "Ann lets the hazard stand."


# ----- 3. the rules page points to nothing the player lacks -----------------------------------

@pytest.mark.parametrize("language", list(i18n.LANGUAGES))
def test_the_rules_page_cites_no_file_the_player_lacks(language: str) -> None:
    """The rules page said "[R5], [O-name]: rules in docs/rules.md", a file an installed
    game does not have (there is no `millebornes rules` either): it says what the ids
    are, on one line of the page."""
    from cli.words import RULE_WORDS, how_to_play
    with i18n.using(language):
        page, words = how_to_play(), i18n._(RULE_WORDS)
    assert "docs/" not in page and ".md" not in page, page
    # (no "[O-name]": no reason shows an option's id, newcomer pass 22)
    assert "[R5]" in words and "[O-" not in words and "\n" not in words
    assert i18n.cells(words) <= 78, words


# ----- 4. did you mean --------------------------------------------------------------------------

@pytest.mark.parametrize("typed, meant", [("paly 3", "play"), ("dicsard 2", "discard"),
                                          ("hlep", "help"), ("qiut", "quit")])
def test_a_typo_close_to_a_command_says_which(typed: str, meant: str) -> None:
    """The console's command line and the line mode said "unknown command 'paly': type
    help for the list"; a typo close to a command now says which one."""
    from test_cli_commands import HAND, make

    from cli.commands import Commander, parse
    out = parse(typed, make(HAND))
    assert out.kind == "error"
    assert out.text == f"unknown command '{typed.split()[0]}': did you mean '{meant}'?"
    assert parse("frobnicate", make(HAND)).text == \
        "unknown command 'frobnicate': type help for the list"
    # the line mode's own "look" is guessed there (and only there)
    assert Commander(extra=("look",)).handle("lok", make(HAND)).text == \
        "unknown command 'lok': did you mean 'look'?"
    with i18n.using("fr"):
        said = parse(typed, make(HAND)).text
    assert said == f"commande inconnue '{typed.split()[0]}' : vouliez-vous dire '{meant}' ?"


# ----- 6. the score chart's legend -------------------------------------------------------------

@pytest.mark.parametrize("language", list(i18n.LANGUAGES))
@pytest.mark.parametrize("rules", ["classic", "modern"])
def test_the_score_chart_says_what_its_marks_mean(language: str, rules: str) -> None:
    """"You █ 1125" and "[#####.....]" had no key: a line under the chart says them."""
    from cli import render
    from engine import Match
    from engine.scoring import SideScore
    match = Match(preset(rules), Seating.solo(2), 0).record(
        (SideScore(distance=700), SideScore(distance=300)))
    with i18n.using(language):
        lines = render.plain(render.match_lines(match, ["You", "Bo"]))
    legend = lines[-1]
    assert legend.startswith("▁▄█ ") and "…" not in legend, lines
    assert ("[#.] " in legend) == (rules == "classic"), legend
    assert i18n.cells(legend) <= 78, legend
