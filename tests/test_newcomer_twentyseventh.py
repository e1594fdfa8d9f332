"""The twenty-seventh first-time-player pass: what the twenty-sixth left, and whole matches
played to the end (full screen and line mode, English and French, 80×24, 60×20, 120×40,
host and join on one machine, a host gone and back).

1. Rolling at 950 of 1000 km with only a 75: "No card can be played now: discard one." and
   nothing of why (said only while the side had not started or stood under a hazard).
2. French said "Ann est parti", "est de nouveau connecté", "est lent" of anyone.
3. A key mistyped in --peer: "…not the expected key …: not joining", nothing to do.
4. The bot nobody chose was "Bo (bot: heuristic)", a word `--bots` lists nowhere.
5. `verify README.md`, `verify nothere.mbt`: nothing of what verify takes.
6. The full screen's help at a fast-play table listed "discard N" only.
7. French "Vous & Cy a terminé le voyage" right above "Vous & Cy gagnent".
8. host, join and lobby opened their lines in lower case (a known nit).
9. "Safe trip 300", "Shutout 500" on the score sheet, explained nowhere.
10. "Vous avez défaussé 75, 75 et 75 et repioché jusqu'à six": "and" twice."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_cli_render import NAMES, base_view, cards_of  # noqa: E402

from cli import i18n, render, words  # noqa: E402
from cli.i18n import _  # noqa: E402
from engine import Kind, legal_actions  # noqa: E402
from engine.state import HandState  # noqa: E402

LANGS = ("en", "fr", "sv", "vi", "af", "ug")


# ----- 1. why nothing can be played while the side rolls ---------------------------------

def _rolling(hand: list[int], **zone: object) -> HandState:
    """Ana (seat 0) rolling with ``hand``, her zone changed by ``zone``."""
    v = base_view(2, hand=sorted(hand))
    z = v.zones[0]._replace(battle=tuple(cards_of(Kind.ROLL)), started=True, **zone)
    return v._replace(zones=(z, v.zones[1]))


def _said(view: HandState, lang: str) -> str:
    legal = legal_actions(view, 0)
    assert render.nothing_to_play(view, 0, legal)
    with i18n.using(lang):
        return " ".join(" ".join(render.plain(render.screen_lines(view, NAMES, 0, legal))).split())


def _at_the_finish() -> HandState:
    """At 650 of 700 km with a 75 and a 100: neither finishes exactly."""
    return _rolling(cards_of(Kind.D75) + cards_of(Kind.D100) + cards_of(Kind.REPAIRS), km=650)


def _limited() -> HandState:
    """Under a Speed Limit with a 75 and a 100."""
    return _rolling(cards_of(Kind.D100) + cards_of(Kind.D75) + cards_of(Kind.REPAIRS),
                    speed=tuple(cards_of(Kind.SPEED_LIMIT)))


def _two_200s_down() -> HandState:
    """Both 200s played, a third one held."""
    return _rolling(cards_of(Kind.D200, 1, 2) + cards_of(Kind.REPAIRS), n200=2, km=400)


@pytest.mark.parametrize("view, said", [
    (_at_the_finish, "No card can be played now: discard one. 75 would take you past 700 "
                     "(you are at 650; the finish must be exact) [R5d]."),
    (_limited, "No card can be played now: discard one. Under a Speed Limit only 25 and 50 "
               "may be played [R5b]."),
    (_two_200s_down, "No card can be played now: discard one. At most two 200 cards per zone "
                     "per hand [R5c]."),
])
def test_nothing_to_play_while_rolling_says_why(view, said: str) -> None:
    assert said in _said(view(), "en")


@pytest.mark.parametrize("lang", LANGS)
def test_why_nothing_can_be_played_while_rolling_is_translated(lang: str) -> None:
    for view in (_at_the_finish(), _limited(), _two_200s_down()):
        shown = _said(view, lang)
        assert "R5" in shown, (lang, shown)
        if lang != "en":
            assert "Speed Limit only" not in shown and "would take you" not in shown \
                and "two 200 cards" not in shown, (lang, shown)


# ----- 2. French: a player who left, whoever they are -----------------------------------

def test_the_french_lines_about_a_player_who_left_agree_with_anyone() -> None:
    """Ben's French screen said of Ann, who had quit: "Ann est parti ; la partie est
    enregistrée", the masculine form, two lines under "Ann a quitté la partie pour
    l'instant"; then "Ann est de nouveau connecté". The names are anyone's: the French
    lines say "a quitté la table", "est de retour", with no agreement to get wrong."""
    from cli import words

    with i18n.using("fr"):
        left = [words.left_wait_line("Ann", 30), words.left_wait_line("Ann", 30, plain=True),
                words.silent_seat_line("Ann"), words.silent_seat_plain_line("Ann"),
                words.others_gone_line("Ann", ["Cy"], plain=False),
                words.others_gone_line("Ann", ["Cy"], plain=True)]
        back = [words.back_again_line("Ann"), words.back_but_paused_line("Ann", False),
                words.back_but_paused_line("Ann", True)]
        more = [_("ended in hand %(hand)d by agreement (%(name)s had left)")
                % {"hand": 2, "name": "Ann"},
                _("You left; the game is saved. Come back to it with:"),
                _("the match was ended in hand %(hand)d by %(signers)s, saying %(name)s had "
                  "left") % {"hand": 2, "signers": "Bo", "name": "Ann"}]
    for line in left + back + more:
        assert not re.search(r"\b(parti|connecté|lent)\b", line), line
    assert all(line.startswith("Ann a quitté la table") for line in left), left
    assert all(line.startswith("Ann est de retour") for line in back), back


# ----- 3. a mistyped key in --peer says where the right one is ------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_a_table_with_another_key_says_where_to_read_the_right_one(lang: str) -> None:
    """``join --peer FJWDD-PDLQX@127.0.0.1:47321`` (one letter of the host's key mistyped)
    ended "… has key FJWDD-PDLQD, not the expected key FJWDD-PDLQX: not joining", and
    nothing of what to do: it names the key in --peer to check, and where the table's key
    is shown."""
    from cli.words import lobby_refusal

    with i18n.using(lang):
        line = lobby_refusal("host-key-mismatch", {"endpoint": "tcp://127.0.0.1:47321",
                                                   "key": "FJWDD-PDLQD",
                                                   "expected": "FJWDD-PDLQX"}, "FALLBACK")
    assert "FJWDD-PDLQD" in line and "FJWDD-PDLQX" in line, line
    assert "--peer" in line and "millebornes lobby" in line, line
    if lang != "en":
        assert "not joining" not in line and "check the key" not in line, line


# ----- 4. the default bot is named by its level, as --bots lists them ---------------------

def test_a_bot_nobody_chose_is_named_by_the_level_help_lists() -> None:
    """`play`, `host --bots 1` and `resume` named the bot nobody chose "Bo (bot: heuristic)";
    `--bots` lists the levels easy, normal, hard, expert, and "heuristic" nowhere. A bot a
    level stands for is said by that level; a plug-in's or a bot with options of its own
    as typed."""
    from cli.words import peer_label

    assert peer_label("Bo", "bot", "ready", "heuristic") == "Bo (bot: normal)"
    assert peer_label("Bo", "bot", "ready", "heuristic-v1") == "Bo (bot: easy)"
    assert peer_label("Bo", "bot", "ready", "search") == "Bo (bot: hard)"
    assert peer_label("Bo", "bot", "ready", "search:playouts=800") == "Bo (bot: expert)"
    assert peer_label("Bo", "bot", "ready", "expert") == "Bo (bot: expert)"
    assert peer_label("Bo", "bot", "ready", "search:playouts=50") == \
        "Bo (bot: search:playouts=50)"
    assert peer_label("Bo", "bot", "ready", "random") == "Bo (bot: random)"
    with i18n.using("fr"):
        assert peer_label("Bo", "bot", "ready", "heuristic") == "Bo (robot : normal)"


def test_play_plain_names_its_bot_by_level(tmp_path: Path) -> None:
    """What `millebornes play --plain` says first, with no --bots."""
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root), MILLEBORNES_DELAY="0", LANG="C.UTF-8",
               HOME=str(tmp_path))
    env.pop("LANGUAGE", None)
    env.pop("LC_ALL", None)
    proc = subprocess.run([sys.executable, "-m", "cli.main", "play", "--plain", "--in-process",
                           "--data-dir", str(tmp_path / "d")], input="quit\ny\n",
                          capture_output=True, text=True, timeout=60, cwd=root, env=env)
    assert "you, Bo (bot: normal)." in proc.stdout, proc.stdout[:600]


# ----- 5. verify of a file that is none: what to give it instead --------------------------

def _verb(*argv: str, lang: str = "en", typed: str = "") -> subprocess.CompletedProcess[str]:
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root), MILLEBORNES_DELAY="0")
    for k in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        env.pop(k, None)
    return subprocess.run([sys.executable, "-m", "cli.main", "--lang", lang, *argv],
                          capture_output=True, text=True, timeout=60, cwd=root, env=env,
                          input=typed)


@pytest.mark.parametrize("verb", ["verify", "replay"])
def test_a_file_that_is_no_transcript_says_what_to_give_instead(tmp_path: Path,
                                                                verb: str) -> None:
    """`millebornes verify README.md` said "README.md: not a Mille Bornes transcript", and
    `verify nothere.mbt` "no such file: nothere.mbt": nothing of what the verb takes."""
    readme = tmp_path / "README.md"
    readme.write_text("# notes\n")
    for path in (readme, tmp_path / "nothere.mbt"):
        proc = _verb(verb, str(path), "--data-dir", str(tmp_path / "d"))
        said = " ".join(proc.stderr.split())
        assert proc.returncode == 2 and str(path) in said, said
        assert "millebornes games" in said, said


def test_what_to_give_verify_is_translated(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# notes\n")
    for lang in ("fr", "sv", "vi", "af", "ug"):
        for path in (readme, tmp_path / "nothere.mbt"):
            said = _verb("verify", str(path), lang=lang).stderr
            assert "millebornes games" in said and "short id" not in said \
                and "give a" not in said, (lang, said)


# ----- 6. the full screen's help at a fast-play table ------------------------------------

def _help_at(lang: str, columns: int, rows: int, fast: bool, teams: str | None,
             saved: bool = True) -> str:
    from cli_helpers import SizedOutput, run_headless, until

    from cli.app import TableApp
    from cli.driver import LocalDriver
    from engine import Seating, preset

    seating = Seating.parse(4 if teams else 2, teams)
    names = ["You", "Bo", "Cy", "Di"][:seating.n_players]
    d = LocalDriver(preset("modern", fast_play=fast), seating, names, seed=3)
    d.saves_game = saved      # type: ignore[attr-defined]  # as `play`'s game is: kept
    text: list[str] = []

    async def script(app: TableApp, inp: object) -> None:
        await until(lambda: app.driver.view() is not None)
        app.show_help = True
        text.append("".join(t for _s, t in app._help_fragments()))
        inp.send_text("\x11")                                      # type: ignore[attr-defined]

    with i18n.using(lang):
        run_headless(lambda inp, _out: TableApp(d, input=inp,  # type: ignore[arg-type]
                                                output=SizedOutput(columns, rows), delay=0,
                                                lang=lang), script)
    return text[0]


@pytest.mark.parametrize("lang", LANGS)
def test_the_full_screens_help_at_a_fast_play_table_says_how_to_discard_several(
        lang: str) -> None:
    """The French full screen at `play --rules modern --option fast_play=yes --teams 2x2`:
    its help said "options : fast_play=yes" and listed "discard N" only, nothing of the
    several cards a fast-play turn may discard (the line mode's help says it since pass 26).
    The help's rules line says it, at 80×24, the teams and the rules still there."""
    help_text = _help_at(lang, 80, 24, True, "2x2")
    assert "discard N M" in help_text, help_text
    assert "fast_play" in help_text and "Cy" in help_text, help_text
    assert "discard N M" not in _help_at(lang, 80, 24, False, "2x2")
    # all of it on one page: no "Lines 1 to 19 of 23: …" (as a help too long says it)
    with i18n.using(lang):
        notice = re.split(r"\d", words.help_scroll_line(1, 19, 23))[-1].strip(" :")
    assert notice and notice not in " ".join(help_text.split()), (notice, help_text)
    if lang != "en":
        assert "several cards at once" not in help_text, help_text


# ----- 7. a team's end of hand: its verb agrees with two names --------------------------

def _ended(completed: bool, teams: str | None) -> tuple[HandState, list[str]]:
    from engine.state import OVER

    n = 4 if teams else 2
    v = base_view(n, teams=teams)
    names = ["You", "Bo", "Cy", "Di"][:n]
    if completed:
        return v._replace(phase=OVER, completed_by=1), names
    zones = list(v.zones)
    zones[1] = zones[1]._replace(km=600)
    return v._replace(phase=OVER, completed_by=-1, end_reason="exhausted",
                      zones=tuple(zones)), names


@pytest.mark.parametrize("completed, team_fr, solo_fr", [
    (True, "Bo & Di ont terminé le voyage.", "Bo a terminé le voyage."),
    (False, "Bo & Di ont parcouru le plus de kilomètres.",
     "Bo a parcouru le plus de kilomètres."),
])
def test_a_teams_end_of_hand_agrees_with_its_two_names(completed: bool, team_fr: str,
                                                       solo_fr: str) -> None:
    """`play --teams 2x2 --rules modern` in French: "Manche 1 finie : Vous & Cy a terminé
    le voyage." right above "Partie finie : Vous & Cy gagnent." (the match's line agrees,
    the hand's did not); "Bo & Di est allé le plus loin", singular and masculine."""
    from cli.words import end_line

    with i18n.using("fr"):
        team = end_line(*_ended(completed, "2x2"), 1)
        solo = end_line(*_ended(completed, None), 1)
    assert team_fr in team, team
    assert solo_fr in solo, solo
    with i18n.using("en"):
        assert "Bo & Di " in end_line(*_ended(completed, "2x2"), 1)


def test_the_score_screen_still_finds_a_teams_end_of_hand_line() -> None:
    from cli.words import end_line, over_prefixes

    for lang in LANGS:
        with i18n.using(lang):
            for completed in (True, False):
                line = end_line(*_ended(completed, "2x2"), 1)
                assert line.startswith(over_prefixes(1)), (lang, line)


# ----- 8. host, join and lobby open with a capital, as every other screen does ---------

def test_the_host_opens_its_lines_with_a_capital(tmp_path: Path) -> None:
    """`millebornes host` opened "hosting on port 47311 as Ann […]; others join with:",
    "type 'ready' / 'unready', …", "table "Ann's table": …", and later "the match
    starts: …": every other screen's sentences begin with a capital."""
    import time

    from cli_helpers import HostedByAnn, free_port

    ann = HostedByAnn(tmp_path, free_port(), 5000)
    try:
        deadline = time.monotonic() + 30
        while "seat 1" not in ann.out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        ann.type("quit")
        ann.join(30)
    lines = ann.out.getvalue().splitlines()
    assert lines[0].startswith("Hosting on port "), lines
    for opening in ("Type 'ready' or 'unready'", "Table \"Ann's table\": classic rules",
                    "Table closed"):
        assert any(line.startswith(opening) for line in lines), (opening, lines)


def test_the_lobby_opens_with_a_capital(tmp_path: Path) -> None:
    proc = _verb("lobby", "--seconds", "1", "--data-dir", str(tmp_path / "d"))
    first = proc.stdout.lstrip()[:1]
    assert first.isupper(), proc.stdout[:200]


OPENINGS = ["Hosting on port %(port)d as %(name)s [%(key)s]; others join with:",
            "Type 'ready' or 'unready'; 'quit' closes the table.",
            "Table %(name)s: %(rules)s, %(n)d seats (%(seating)s)",
            "The match starts: table %(id)s",
            "Looking for tables on the LAN (waiting up to %(seconds)s s)",
            "Asking the table at %(address)s (waiting up to %(seconds)s s)",
            "Table closed"]


@pytest.mark.parametrize("lang", ["fr", "sv", "vi", "af"])
def test_the_opening_lines_begin_with_a_capital_in_each_language(lang: str) -> None:
    from cli.i18n import _ as tr

    with i18n.using(lang):
        for msgid in OPENINGS:
            said = tr(msgid)
            assert said != msgid or lang == "en", (lang, msgid)
            assert said[0].isupper(), (lang, said)


# ----- 9. the line mode's score sheet says what its bonuses are -------------------------

def _sheet(notes: bool, lang: str = "en", **bonus: int) -> str:
    from engine import Seating, preset
    from engine.scoring import Match, SideScore

    rules, seating = preset("classic"), Seating.solo(2)
    hand = (SideScore(distance=700, trip=400, **bonus), SideScore(distance=0))
    match = Match(rules, seating, 0).record(hand)
    with i18n.using(lang):
        lines = render.score_lines(hand, match, ["You", "Bo"], 1, notes=notes)
    return " ".join(" ".join(render.plain(lines)).split())


def test_the_line_modes_score_sheet_says_what_each_bonus_is_for() -> None:
    """A first match in the line mode: "Safe trip 300", "Shutout 500", "Extension 200"
    under "Trip completed", and nowhere a word of what they are for (`rules` says only
    "bonuses for the trip"). The sheet says what each bonus it shows is for."""
    said = _sheet(True, safe_trip=300, shut_out=500, extension=200)
    assert "Safe trip: the trip completed without a 200 km card." in said, said
    assert "Shutout: the trip completed while an opponent covered no distance." in said
    assert "Extension: the bonus of a trip extended from 700 to 1000 km [R12]." in said, said
    assert "Delayed action:" not in said and "All four safeties:" not in said, said
    # only the bonuses shown; none, no note; the full screen's page has no room for it
    assert ": the trip" not in _sheet(True)
    assert ": the trip" not in _sheet(False, safe_trip=300)
    said = _sheet(True, delayed_action=300, all_safeties=300)
    assert "Delayed action: the trip completed after the draw pile ran out." in said, said
    assert "All four safeties: one side played all four safeties." in said, said


@pytest.mark.parametrize("lang", ["fr", "sv", "vi", "af", "ug"])
def test_the_bonus_notes_are_translated(lang: str) -> None:
    said = _sheet(True, lang, safe_trip=300, shut_out=500, extension=200, delayed_action=300,
                  all_safeties=300)
    assert "the trip" not in said and "safeties." not in said and "a trip" not in said, said


def test_host_help_names_the_levels_a_bot_seat_is_said_by() -> None:
    """`host --help` said "--bots: a number, or a level or bot spec per seat" and named no
    level; the table then said "Bot1 (bot: normal)". It lists them as play's help does."""
    for lang in ("en", "fr"):
        said = " ".join(_verb("host", "--help", lang=lang).stdout.split())
        assert "easy, normal, hard, expert" in said, said


# ----- 10. a discard of several: one "and" ----------------------------------------------

@pytest.mark.parametrize("lang, word", [("en", " and "), ("fr", " et "), ("sv", " och "),
                                        ("af", " en "), ("vi", " và ")])
def test_a_discard_of_several_says_and_once(lang: str, word: str) -> None:
    """The French fast-play log: "Vous avez défaussé 75, 75 et 75 et repioché jusqu'à
    six." (English "… 75, 75 and 75 and drew back to six."): the cards' "and", then the
    draw's. The draw comes after a comma, "then"."""
    from cli.driver import LocalDriver
    from cli.words import describe
    from engine import FastDiscard, Seating, preset

    state = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3).view()
    cards = tuple(state.hands[0][:3])
    with i18n.using(lang):
        mine = describe(state, FastDiscard(0, cards), state, ["You", "Bo"], 0, you=True)
        theirs = describe(state, FastDiscard(0, cards), state, ["Ann", "Bo"], 1)
    for said in (mine, theirs):
        assert said is not None and said.count(word) == 1, said


def test_the_french_seat_states_agree_with_anyone() -> None:
    """The seat lists said "Ann (parti)", "(connecté)", "(lent)" in French, the masculine
    of anyone (newcomer pass 27's report; the sentences were mended, the labels not):
    "a quitté", "en ligne" (as "hors ligne"), "tarde" agree with every name."""
    from cli.words import PEER_STATES

    with i18n.using("fr"):
        shown = {k: _(PEER_STATES[k]) for k in ("left", "connected", "slow")}
    assert shown == {"left": "a quitté", "connected": "en ligne", "slow": "tarde"}, shown
