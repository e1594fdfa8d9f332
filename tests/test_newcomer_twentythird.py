"""The twenty-third first-time-player pass: what the twenty-second left.

`play --auto` (a bot plays the player's seat, the player watches) showed "Your turn: draw a
card (space, …)" and the coup-fourré keys to someone who could only watch; a move the
table refused in a network race (legal on screen a moment before) was said in the
engine's raw English ("R0: that move is not legal now"); an engine reason with an option
id the console does not reword ("O-…") would have reached the screen raw.
"""

from __future__ import annotations

import asyncio
import io

import pytest
from cli_helpers import run_headless, until
from prompt_toolkit.input.base import PipeInput
from test_cli_app import NAMES, _attacked

from cli import i18n
from cli.app import TableApp
from cli.driver import LocalDriver
from engine import IllegalAction, Seating, preset
from engine.state import DRAW, EXTEND, PLAY, RESPOND

LANGS = ["en", "af", "fr", "sv", "ug", "vi"]

# ----- 1. a watcher is told what the bot does, never offered keys -----


def _watched_statuses(d: LocalDriver, lang: str = "en") -> list[tuple[str, str]]:
    """(phase, status) seen on the full screen of ``play --auto`` while the bot in the
    player's seat has not moved yet (it waits ``delay`` before each move)."""
    seen: list[tuple[str, str]] = []

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move())
        await asyncio.sleep(0.05)
        seen.append((d.view().phase, " ".join(app.status_lines())))
        inp.send_text("q")

    run_headless(lambda inp, out: TableApp(d, input=inp, output=out, delay=5, auto=True,
                                           lang=lang), script)
    return seen


def _keys_offered(text: str) -> bool:
    return any(k in text for k in ("space", "type draw", "c for", "n to let", "(p or d",
                                   "p plays", "n (extend", "y (extend", "coup / pass",
                                   "(select it"))


def test_a_watcher_is_not_offered_the_draw_key() -> None:
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=3)
    [(phase, status)] = _watched_statuses(d)
    assert phase == DRAW
    assert "Your turn" not in status and not _keys_offered(status), status
    assert "The bot playing your seat is drawing." in status, status


def test_a_watcher_is_not_offered_the_coup_fourre_keys() -> None:
    [(phase, status)] = _watched_statuses(_attacked(True))
    assert phase == RESPOND
    assert not _keys_offered(status), status
    assert "Bo played Stop on you: the bot playing your seat decides how to answer." \
        in status, status


@pytest.mark.parametrize("lang, bot", [("af", "die bot wat jou plek speel"),
                                       ("fr", "le robot qui joue à votre place"),
                                       ("sv", "boten som spelar din plats"),
                                       ("ug", "ئورنىڭىزدا ئوينايدىغان بوت"),
                                       ("vi", "bot chơi thay bạn")])
def test_a_watchers_status_is_translated(lang: str, bot: str) -> None:
    [(_phase, status)] = _watched_statuses(_attacked(True), lang)
    assert bot in status, (lang, status)
    assert "coup / pass" not in status, (lang, status)


def test_a_watcher_hears_what_the_bot_does_at_each_step() -> None:
    """Play and the extension, said of the bot, with no keys; another's turn as ever."""
    from cli.words import waiting_text

    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=3)
    view = d.view()
    play = view._replace(phase=PLAY, pending=())
    extend = view._replace(phase=EXTEND, pending=())
    with i18n.using("en"):
        said_play = waiting_text(play, 0, NAMES[:2], watched=True)
        said_extend = waiting_text(extend, 0, NAMES[:2], watched=True)
        others = waiting_text(play._replace(seat=1, turn_seat=1), 0, NAMES[:2],
                              watched=True)
    assert said_play == "The bot playing your seat is choosing a card to play or discard."
    assert said_extend.endswith("The bot playing your seat decides whether to go on to "
                                "1000."), said_extend
    assert not _keys_offered(said_extend), said_extend
    assert others == "Bo's turn."


# ----- 2. a move the table refused: said as every other refusal -----


class _Raced(LocalDriver):
    """A table that refuses the next move as the network peer does when the table moved
    on meanwhile (p2p's session: "R0: that move is not legal now")."""

    def submit(self, action: object) -> None:
        raise IllegalAction("R0", "that move is not legal now", action)


@pytest.mark.parametrize("lang", LANGS)
def test_a_move_refused_by_the_table_is_said_in_words_full_screen(lang: str) -> None:
    d = _Raced(preset("classic"), Seating.solo(2), NAMES[:2], seed=3, auto_draw=False)
    said: list[str] = []

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move() and d.view().phase == DRAW)
        inp.send_text(" ")
        await until(lambda: bool(app.message))
        said.append(app.message)
        inp.send_text("q")

    run_headless(lambda inp, out: TableApp(d, input=inp, output=out, delay=0, lang=lang),
                 script)
    [message] = said
    assert "R0" not in message and "not legal now" not in message, message
    if lang == "en":
        assert message.startswith("That move is no longer possible (the table changed a "
                                  "moment ago)"), message


@pytest.mark.parametrize("lang", LANGS)
def test_a_move_refused_by_the_table_is_said_in_words_plain(lang: str) -> None:
    from cli.plain import PlainSession
    from cli.words import refused_line, sorry_line

    d = _Raced(preset("classic"), Seating.solo(2), NAMES[:2], seed=3, auto_draw=False)
    out = io.StringIO()
    with i18n.using(lang):
        PlainSession(d, lang=lang, out=out, inp=io.StringIO("draw\n")).run()
    text = out.getvalue()
    assert "R0" not in text and "that move is not legal now" not in text, text[-400:]
    with i18n.using(lang):
        said = sorry_line(refused_line("R0: that move is not legal now", NAMES))
    if lang != "ug":       # Uyghur is shaped and ordered for the terminal as printed
        assert said.split()[0] in text and said.split()[-1] in text, (said, text[-400:])


@pytest.mark.parametrize("reason", ["it is not your move", "that move is not legal now",
                                    "this computer is still getting back the moves its "
                                    "damaged copy lost from the other players; wait",
                                    "the hand is over"])
@pytest.mark.parametrize("lang", LANGS[1:])
def test_each_table_refusal_is_translated(reason: str, lang: str) -> None:
    from cli.words import refused_line

    with i18n.using(lang):
        said = refused_line(f"R0: {reason}", NAMES)
    assert "R0" not in said, said      # no rule: the table's own refusal
    assert reason[5:] not in said, (lang, said)


def test_a_bots_move_refused_is_said_in_words() -> None:
    """The error line a refused bot move (a network race) makes, in words."""
    from cli.words import error_line

    with i18n.using("en"):
        said = error_line(IllegalAction("R0", "it is not your move"))
    assert said.startswith("It is not your move any more"), said
    assert "R0" not in said, said


# ----- 3. no option id reaches the screen, even of a reason the console does not know -----


@pytest.mark.parametrize("lang", LANGS)
def test_an_unknown_reason_names_its_option_as_option_help_does(lang: str) -> None:
    from cli.words import rule_last

    reason = "R99: O-made-up-rule is on: no Roll on a Tuesday (see O-other)"
    with i18n.using(lang):
        said = rule_last(reason)
        word = i18n._("option %(name)s") % {"name": "made_up_rule"}
    assert "O-" not in said, (lang, said)
    assert word.lower() in said.lower(), (lang, said)
    assert "other" in said and said.endswith("[R99]"), said


def test_a_known_option_is_named_as_the_rules_field() -> None:
    """`--option help` names the options by the rules' fields: the made-up reason's id
    becomes the field's name, each of the engine's options in turn."""
    from dataclasses import fields

    from cli.words import option_names
    from engine import Rules

    for f in fields(Rules):
        raw = "O-" + f.name.replace("_", "-")
        with i18n.using("en"):
            assert option_names(f"{raw} is off") == f"option {f.name} is off"


def test_a_watcher_sees_what_the_table_waits_for_under_the_bots_last_move() -> None:
    """"(auto) play 7" stood alone on the status line while Bo attacked and the bot in
    the watcher's seat decided how to answer: under the bot's last move the status says
    what the table waits for, as it does for a player."""
    d = _attacked(True)
    seen: list[list[str]] = []

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move())
        app.say("(auto) play 7")
        seen.append(app.status_lines())
        inp.send_text("q")

    run_headless(lambda inp, out: TableApp(d, input=inp, output=out, delay=5, auto=True),
                 script)
    [lines] = seen
    assert lines[0] == "(auto) play 7", lines
    assert "Bo played Stop on you: the bot playing your seat decides how to answer." \
        in " ".join(lines[1:]), lines


# ----- 4. a hand's end after an extension nobody completed -----


def _extended_and_unmet(official: bool, caller: int) -> object:
    d = LocalDriver(preset("classic", extension_official=official), Seating.solo(3), NAMES,
                    seed=3)
    return d.state._replace(phase="over", target=1000, extended_by=caller, completed_by=-1,
                            end_reason="exhausted")


@pytest.mark.parametrize("official, caller, said", [
    (False, 1, "Bo had extended the trip to 1000 km and nobody got there: the trip scores "
               "for no one."),
    (False, 0, "You had extended the trip to 1000 km and nobody got there: the trip scores "
               "for no one."),
    (True, 2, "Cy had extended the trip to 1000 km and did not get there: every other side "
              "scores 200."),
])
def test_a_hand_ended_short_of_an_extension_says_why_no_trip_scored(
        official: bool, caller: int, said: str) -> None:
    """3 players, classic: Bo extended to 1000, Ann stood at 700 of 1000 when the cards ran
    out; "Hand 1 over (every hand is empty): Bo got closest." and a score sheet with no
    trip in it, the extension said once, 130 moves before. The hand's end says why (R12:
    an extended trip nobody completes scores for no one; O-extension-official: every
    other side scores 200)."""
    from cli.words import end_line

    names = ["You", "Bo", "Cy"]
    with i18n.using("en"):
        line = end_line(_extended_and_unmet(official, caller), names, 1)  # type: ignore[arg-type]
    assert line.startswith("Hand 1 over (every hand is empty): "), line
    assert line.endswith(" " + said), line


@pytest.mark.parametrize("lang", LANGS[1:])
def test_the_unmet_extension_is_translated(lang: str) -> None:
    from cli.words import end_line

    for official in (False, True):
        for caller in (0, 1):
            with i18n.using(lang):
                line = end_line(_extended_and_unmet(official, caller),  # type: ignore[arg-type]
                                ["You", "Bo", "Cy"], 1)
            assert "extended" not in line and "1000" in line, (lang, line)



def test_the_hands_end_is_wrapped_on_the_score_page() -> None:
    """The hand's end line, with why no trip scored, ran past the 80 columns of the score
    page (its lines were never wrapped)."""
    from cli.words import end_line

    d = LocalDriver(preset("classic"), Seating.solo(3), NAMES, seed=3)
    over = end_line(_extended_and_unmet(False, 1), ["You", "Bo", "Cy"], 1)  # type: ignore[arg-type]
    assert len(over) > 80
    seen: list[list[str]] = []

    async def script(app: TableApp, inp: PipeInput) -> None:
        d.events.append(over)
        seen.append(["".join(t for _s, t in line) for line in app._score_block()])
        inp.send_text("q")

    run_headless(lambda inp, out: TableApp(d, input=inp, output=out, delay=5), script)
    [lines] = seen
    assert all(len(line) <= 80 for line in lines), lines
    assert " ".join(lines[:2]) == over, lines


def test_the_line_mode_watcher_is_not_offered_keys_either() -> None:
    """`play --plain --auto`: the board printed before each of the bot's moves ended with
    "Cy played Speed Limit on you: c for a coup fourré, n to let it stand (coup / pass)."
    and "Your turn: play or discard a card (play N, discard N).", to a player who only
    watches; it says what the bot decides."""
    from cli.plain import PlainSession

    d = LocalDriver(preset("modern"), Seating.solo(3), NAMES, seed=2)
    out = io.StringIO()
    with i18n.using("en"):
        assert PlainSession(d, auto=True, out=out, inp=io.StringIO("")).run() == 0
    text = out.getvalue()
    assert d.over
    assert "Your turn" not in text and "c for a coup fourré" not in text, text[:2000]
    assert "No card can be played now" not in text
    assert "The bot playing your seat is choosing a card to play or discard." in text
