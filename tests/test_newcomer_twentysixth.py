"""The twenty-sixth first-time-player pass: what the twenty-fifth left.

A host who quit a table of three (Anna, her bot Bot1, Binh who joined) took Bot1 with
her: Binh read "Bot1 quit for now … until they come back (millebornes resume on their
computer)", as though a person would type it; then, paused on Anna, "press b: a bot takes
the seat"; b answered "agreed by Binh; waiting for Bot1", for good (an agreement needs
every seat but the silent one, and Bot1 had left with Anna).

Also: `tournament --games 4` (simulate's word) was "did you mean '--teams'?"; fast play's
"You discarded 25, 50 and drew back to six"; in fast play's remedy round the prompt's "p
plays its remedy" was refused with "c for a coup fourré", the coup round over; `bench`
alone said "required: what"; `:jouer 3 sur ` and Tab completed nothing; the cheat
demonstration put the protocol's English note inside a French sentence, and a mistyped
--cheat was not guessed; a player whose seat a bot took read "Your hand is empty."; a
resume on a port still taken (the game open in another terminal) said p2p's English
sentence whole.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from cli_helpers import PeerStub

from cli import i18n

# main activates the language it is given (--lang fr): the run's is put back after each
# test (a French "Partie finie" reached test_cli_words in the same worker)
pytestmark = pytest.mark.usefixtures("keep_language")

# ----- a host's bot that left with its host, and the pause no agreement can end --------------


class _TableOfThree:
    """A network console's driver as Binh's (seat 2) at Anna's table: Anna (seat 0) and
    her bot Bot1 (seat 1), each in ``gone`` ("quit": said they quit; "gone": the transport
    gave them up); the table paused on ``silent``. NetDriver's own methods say it."""

    names = ["Anna", "Bot1", "Binh"]
    seat, over, hand_no = 2, False, 1
    broken: set[int] = set()
    bots = {1}
    bot_maker = None
    step_limit = 20.0

    def __init__(self, gone: dict[int, str], silent: int | None = 0) -> None:
        from cli.netdriver import NetDriver

        for name in ("_words", "no_agreement", "agree", "_also_gone", "silent_words",
                     "held_by", "current_names", "_bot_name", "bot_runner_name",
                     "runner_name", "_taken", "silent", "agreement_status", "is_bot",
                     "silent_is_back", "_agreement_taken"):
            if hasattr(NetDriver, name):
                setattr(self, name, getattr(NetDriver, name).__get__(self))
        self.signed: list[str] = []
        self.peer = PeerStub(
            stopped=None, stop_why={"id": "unresponsive", "away": True}, finished=False,
            paused=silent is not None, takeovers=[], agreed_end=None,
            silent_seat=lambda: silent,
            peer_state=lambda s: "gone" if gone.get(s) else "connected",
            quit_for_now=lambda s: gone.get(s) == "quit",
            agreement=lambda: {}, agreements_open=lambda: frozenset({"side.takeover"}),
            bot_runner=lambda s: 0, cfg=SimpleNamespace(n=3),
            agree_bot=lambda s: self.signed.append("bot") or True,
            agree_end=lambda s: self.signed.append("end") or True)

    def replaced(self) -> None:
        return None

    def _collect(self) -> None:
        pass


def _away(seat: int) -> Any:
    from p2p.table.replicated_log import SessionEvent

    return SessionEvent("away", f"seat {seat} quit for now", {"seat": seat})


@pytest.mark.parametrize("lang", ["en", "fr", "sv", "af", "ug", "vi"])
def test_a_bot_that_left_with_its_host_is_said_to_come_back_with_the_host(lang: str) -> None:
    """Bot1 ran on Anna's computer: it comes back when Anna does, and nobody types
    "millebornes resume" for it. A person who quit is said as before."""
    from cli import words

    d = _TableOfThree({0: "quit", 1: "quit"}, silent=None)
    with i18n.using(lang):
        bot = d._words(_away(1))
        person = d._words(_away(0))
        assert bot == words.away_bot_line("Bot1", "Anna"), bot
        assert person == words.away_line("Anna"), person
        assert bot != words.away_line("Bot1")
    if lang == "en":
        assert bot.startswith("Bot1 (a bot run by Anna) quit for now"), bot
        assert "until Anna comes back" in bot and "their computer" not in bot, bot


@pytest.mark.parametrize("plain", [False, True])
def test_a_pause_no_agreement_can_end_while_another_seat_is_gone_says_so(plain: bool) -> None:
    """Paused on Anna while Bot1 is gone too: the pause says both left and that the table
    waits for them, never "press b" (nothing Binh signs can hold); b or bot signs nothing
    and says the same."""
    d = _TableOfThree({0: "quit", 1: "quit"})
    with i18n.using("en"):
        said = d.silent_words(plain)
        answer = d.agree("bot", plain=plain)
    assert said is not None and said.startswith("Anna left, and Bot1 too"), said
    assert "waits for them to come back" in said, said
    assert "press b" not in said.lower() and "type bot" not in said.lower(), said
    assert ("Type quit" if plain else "Press q") in said, said
    assert answer == said and d.signed == [], (answer, d.signed)


def test_a_pause_with_everyone_else_here_still_offers_a_bot_or_the_end() -> None:
    """Only Anna gone (her bot still answering, or a table without one): b and e are
    offered as before, and b signs."""
    d = _TableOfThree({0: "quit"})
    with i18n.using("en"):
        said = d.silent_words(False)
        d.agree("bot")
    assert said is not None and "press b" in said, said
    assert d.signed == ["bot"], d.signed


def test_the_lines_about_seats_gone_together_are_translated() -> None:
    from cli import words

    for lang in ("fr", "sv", "af", "ug", "vi"):
        with i18n.using("en"):
            en = (words.away_bot_line("Bot1", "Anna"),
                  words.others_gone_line("Anna", ["Bot1"], plain=False))
        with i18n.using(lang):
            there = (words.away_bot_line("Bot1", "Anna"),
                     words.others_gone_line("Anna", ["Bot1"], plain=False))
        for a, b in zip(en, there, strict=True):
            assert a.split(";")[0] != b.split(";")[0], (lang, b)
            assert "Anna" in b and "Bot1" in b, (lang, b)


def test_a_seat_gone_after_it_signed_does_not_hold_the_agreement_back() -> None:
    """Bot1 signed "a bot for Anna's seat" before it went: its record stands, so Binh may
    still sign, and is offered b."""
    d = _TableOfThree({0: "quit", 1: "quit"})
    d.peer.agreement = lambda: {"side.takeover": {1: {"seat": 0}}}
    with i18n.using("en"):
        said = d.silent_words(False)
        d.agree("bot")
    assert said is not None and "Bot1 too" not in said, said
    assert d.signed == ["bot"], d.signed


# ----- the count of matches: --games in simulate, --deals in tournament ---------------------


@pytest.mark.parametrize("argv, meant", [
    (["tournament", "--bots", "easy,normal", "--games", "4"], "'--deals'"),
    (["simulate", "--deals", "4"], "'--games'"),
    (["tournament", "--game=4"], "'--deals'"),
])
def test_the_other_verbs_word_for_how_many_matches_says_this_verbs(
        argv: list[str], meant: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`millebornes simulate --games 500` (the README's), then `tournament --games 4`, was
    answered "did you mean '--teams'?": a guess by spelling, of an option about something
    else. Each verb's own count is named for the other's."""
    from cli.main import main

    assert main(["--lang", "en", *argv]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "unrecognized arguments" in err and f"did you mean {meant}?" in err, err


@pytest.mark.parametrize("lang", ["en", "fr", "sv", "af", "ug", "vi"])
def test_a_pause_on_a_bot_gone_with_its_host_says_whom_the_table_waits_for(lang: str) -> None:
    """"Paused: seat 1 (Bot1) quit for now; the table waits for them to come back
    (millebornes resume)": the table waits for Anna, whose computer runs Bot1. A person
    who quit is said as before."""
    from cli import words
    from p2p.table.replicated_log import SessionEvent

    d = _TableOfThree({0: "quit", 1: "quit"}, silent=1)
    d.peer.agreed_end = None

    def stopped(seat: int) -> Any:
        why = {"id": "unresponsive", "away": True, "seat": seat}
        return SessionEvent("stopped", "paused", {"reason": "paused", "why": why})

    with i18n.using(lang):
        bot = d._words(stopped(1))
        person = d._words(stopped(0))
        assert bot == words.paused_on_bot_away_line("Bot1", "Anna"), bot
        assert person == words.table_paused_line(
            "paused", {"id": "unresponsive", "away": True, "seat": 0}, d.names), person
    if lang == "en":
        assert "waits for Anna to come back" in bot and "them" not in bot, bot
    else:
        with i18n.using("en"):
            assert bot != words.paused_on_bot_away_line("Bot1", "Anna"), bot


# ----- fast play: the cards of a discard of several are named with "and" ---------------------


@pytest.mark.parametrize("lang, joined", [("en", " and "), ("fr", " et "), ("sv", " och ")])
def test_a_discard_of_several_names_its_cards_with_and(lang: str, joined: str) -> None:
    """"You discarded 25, 50 and drew back to six." read as two actions of 25 and 50: the
    cards of a sentence are joined with "and", as every list of names in a sentence is."""
    from cli.driver import LocalDriver
    from cli.words import describe
    from engine import FastDiscard, Seating, preset

    state = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3).view()
    cards = tuple(state.hands[0][:2])
    with i18n.using(lang):
        said = describe(state, FastDiscard(0, cards), state, ["You", "Bo"], 0, you=True)
        names = [i18n.card_name(c) for c in cards]
    assert said is not None and f"{names[0]}{joined}{names[1]}" in said, said


# ----- fast play's remedy round: p plays the remedy, as its prompt says ----------------------


def _remedy_round(remedy: bool = True) -> Any:
    """Ana's answer to Bo's Out of Gas in fast play's second round (R10a): the coup
    fourré's round is over, her Gasoline (``remedy``) may answer it."""
    from cli.commands import Context
    from engine import KIND_OF, Kind, Seating, legal_actions, new_hand, preset, view_of
    from engine.state import RESPOND, Attack

    def ids(k: Kind, n: int = 1, skip: int = 0) -> list[int]:
        return [i for i, kk in enumerate(KIND_OF) if kk is k][skip:skip + n]

    rules = preset("classic").with_options(fast_play=True)
    seating = Seating.parse(2, None)
    state = new_hand(rules, seating, list(rules.deck(seating)), 0)
    oog, rolls = ids(Kind.OUT_OF_GAS)[0], ids(Kind.ROLL, 2, skip=5)
    zones = (state.zones[0]._replace(battle=(rolls[0], oog), started=True),
             state.zones[1]._replace(battle=(rolls[1],), started=True))
    hand = ids(Kind.D25, 5) + (ids(Kind.GASOLINE) if remedy else ids(Kind.D50))
    state = state._replace(hands=(tuple(sorted(hand)),) + state.hands[1:], phase=RESPOND,
                           pending=(), zones=zones, seat=1,
                           attack=Attack(attacker=1, card=oog, side=0, responders=(0,),
                                         stage=2))
    view = view_of(state, 0)
    return Context(view, 0, legal_actions(view, 0), ["Ana", "Bo"])


def test_p_in_the_remedy_round_plays_the_remedy_as_the_prompt_says() -> None:
    """The line mode's prompt: "Bo played Out of Gas on you: p plays its remedy at once
    (fast play), n to let it stand (pass)". p was answered "answer the hazard first: c for
    a coup fourré or n to let it stand", and c "no coup fourré: you hold no Extra Tank";
    the round of the coup fourré was over."""
    from cli.commands import parse
    from engine import FastRemedy, Pass

    ctx = _remedy_round()
    with i18n.using("en"):
        for typed in ("p", "play"):
            out = parse(typed, ctx)
            assert isinstance(out.action, FastRemedy), (typed, out)
            assert i18n.card_name(out.action.card) == "Gasoline"
        assert parse("n", ctx).action == Pass(0)
        said = {typed: parse(typed, ctx).text for typed in ("play 1", "draw", "coup", "c")}
    for typed, text in said.items():
        assert "coup fourré or" not in text and "you hold no" not in text, (typed, text)
        assert "p plays" in text and "n to let it stand" in text, (typed, text)
    assert said["coup"].startswith("the coup fourré round is over"), said
    with i18n.using("en"):
        none = parse("p", _remedy_round(remedy=False))
    assert none.kind == "error" and none.text == (
        "no Gasoline to play now (the remedy for Out of Gas): n lets it stand"), none


def test_the_full_screens_p_in_the_remedy_round_plays_the_remedy_whatever_is_picked() -> None:
    """The full screen's status says "p plays its remedy at once": p with a 25 picked was
    "25 does not answer the hazard: answer it first", each time it was pressed."""
    from cli_helpers import SizedOutput

    from cli.app import TableApp
    from cli.driver import LocalDriver
    from engine import Seating, preset

    ctx = _remedy_round()
    d = LocalDriver(preset("classic").with_options(fast_play=True), Seating.solo(2),
                    ["Ana", "Bo"], seed=3)
    with i18n.using("en"):
        app: Any = TableApp(d, output=SizedOutput(80, 24), lang="en")
        d.view = lambda: ctx.view                  # type: ignore[method-assign]
        d.legal = lambda: list(ctx.legal)          # type: ignore[method-assign]
        typed: list[str] = []
        app.execute = typed.append
        app.selected = 0                           # a 25
        app.play_selected()
        app.selected = 5                           # the Gasoline
        app.play_selected()
    assert typed == ["play", "play 6"], typed


def test_the_remedy_rounds_refusals_fit_the_full_screens_status_in_every_language() -> None:
    """One line of the 80-column status above its two-line prompt, at the longest names
    (as "no coup fourré" is): a longer one was cut with "(all of it in the log)"."""
    from cli.commands import parse
    from cli.words import card_name, reply, sentence
    from engine import KIND_OF
    from engine.cards import REMEDY_FOR

    below = _remedy_round(remedy=False)._replace(prompt_below=True)
    for lang in i18n.LANGUAGES:
        with i18n.using(lang):
            for typed in ("p", "coup"):
                said = sentence(parse(typed, below).text)
                assert i18n.cells(said) <= 78, (lang, said)
            for hazard, remedy in REMEDY_FOR.items():
                said = sentence(reply("no-remedy-below", remedy=card_name(KIND_OF.index(remedy)),
                                      hazard=i18n.kind_name(hazard)))
                assert i18n.cells(said) <= 78, (lang, said)


# ----- bench with nothing to measure names the choices, not an internal word -----------------


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_bench_alone_says_what_it_can_measure(lang: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`millebornes bench` said "the following arguments are required: what" (French:
    "les arguments suivants sont requis : what"): the program's own name for the word,
    English in every language. The choices are named, as the usage names them."""
    from cli.main import main

    assert main(["--lang", lang, "bench"]) == 2
    err = capsys.readouterr().err
    # (the usage's command on lines of its own: pass 34)
    assert err.splitlines()[0].endswith("{engine,deck,net,trust}") and ": what" not in err, err
    assert err.splitlines()[2] == "  millebornes bench --help", err


# ----- the command line completes commands typed in the player's language --------------------


def test_tab_completes_a_command_typed_in_the_players_language() -> None:
    """`:play 7 on ` and Tab listed the opponents; `:jouer 7 sur ` (the French commands the
    help and the full screen accept) listed nothing, nor `:jouer ` the cards."""
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from cli.commands import Context
    from cli.completion import CommandCompleter
    from cli.driver import LocalDriver
    from engine import Seating, preset

    d = LocalDriver(preset("classic"), Seating.solo(3), ["Ana", "Bo", "Cy"], seed=3)
    ctx = Context(d.view(), 0, d.legal(), d.names, lang="fr")
    done = CommandCompleter(lambda: ctx)

    def completed(text: str) -> list[str]:
        return [c.text for c in done.get_completions(Document(text), CompleteEvent())]

    with i18n.using("fr"):
        english = (completed("play "), completed("play 3 "), completed("play 3 on "))
        french = (completed("jouer "), completed("jouer 3 "), completed("jouer 3 sur "),
                  completed("JOUER 3 sur B"))
    assert english[0][:3] == ["1", "2", "3"] and english[1] == ["on"], english
    assert english[2] == ["Bo", "Cy"], english
    assert french[0] == english[0], french
    assert french[1] == ["sur"], french
    assert french[2] == ["Bo", "Cy"] and french[3] == ["Bo"], french


# ----- the cheat demonstration: the protocol's note framed, a cheat's name guessed ----------


def test_the_cheat_demos_technical_note_is_framed_in_the_players_language() -> None:
    """French read "détecté par la place 0 (heuristic1) : seat 1 did not open card 0 from
    its hand", an English sentence in a French one: the note is the protocol's own, framed
    as verify frames its notes, "(détail : …)"."""
    from pathlib import Path

    from cli import words
    from p2p.table.memory import CheatOutcome

    o = CheatOutcome(kind="card-not-held", cheater=1, caught=True, blamed=[1],
                     verdict="cheat", stage="play", detected_by=[0], check="card-not-held",
                     detail="seat 1 did not open card 0 from its hand", hand=0,
                     transcript=Path("t.mbt"))
    with i18n.using("fr"):
        line = words.cheat_demo_lines(o, ["Ana", "Bo"], True)[2]
        framed = words.detail_text(o.detail)
    assert line == f"détecté par la place 0 (Ana) {framed}", line
    assert "(Ana) : seat 1" not in line and framed.startswith("(détail"), line


def test_a_mistyped_cheat_says_the_one_it_likely_meant(
        capsys: pytest.CaptureFixture[str]) -> None:
    """"unknown cheat 'shuffle-drp'" and the list of nine: a mistyped choice elsewhere is
    answered with the one it most likely meant."""
    from cli.main import main

    assert main(["--lang", "en", "simulate", "--fair-deck", "--cheat", "shuffle-drp"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "unknown cheat 'shuffle-drp'" in err and "did you mean 'shuffle-drop'?" in err, err


# ----- a player whose seat a bot took is not told their hand is empty ------------------------


def _taken_seat_driver() -> Any:
    """A console's driver for Ben, whose seat a bot plays by the others' agreement: his
    view holds no cards of the seat (the bot's are hidden from him)."""
    from cli.driver import LocalDriver
    from engine import Seating, preset

    d = LocalDriver(preset("classic"), Seating.solo(2), ["Ben", "Bo"], seed=3)
    view = d.view()
    hidden = view._replace(hands=(len(view.hands[0]),) + tuple(view.hands[1:]))
    d.view = lambda: hidden                          # type: ignore[method-assign]
    d.legal = lambda: []                             # type: ignore[method-assign]
    d.watching = lambda: "A bot plays your seat from hand 2, run by Bo."  # type: ignore[attr-defined]
    return d


def test_the_full_screen_says_a_bot_holds_the_seats_cards_not_that_the_hand_is_empty() -> None:
    """Ben back after the others gave his seat to a bot read "Your hand is empty." where
    his hand had been, the bot holding six cards: the board says whose the cards are."""
    from cli_helpers import SizedOutput

    from cli.app import TableApp

    d = _taken_seat_driver()
    with i18n.using("en"):
        app: Any = TableApp(d, output=SizedOutput(80, 24), lang="en")
        said = "".join(t for line in app._hand_lines() for _s, t in line)
    assert "empty" not in said and "a bot plays your seat" in said, said


def test_the_line_mode_says_a_bot_holds_the_seats_cards_not_that_the_hand_is_empty() -> None:
    import io

    from cli.plain import PlainSession

    d = _taken_seat_driver()
    out = io.StringIO()
    with i18n.using("en"):
        console = PlainSession(d, out=out, inp=io.StringIO(""), lang="en")
        console._show_board(d.view(), [], 1)
    said = " ".join(out.getvalue().split())
    assert "hand is empty" not in said and "a bot plays your seat" in said, said


# ----- resume of a game whose port is taken says it in the player's language -----------------


def test_resume_on_a_taken_port_says_why_in_the_players_language(
        tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """The same game resumed in a second terminal: p2p's English sentence "cannot listen
    on 127.0.0.1 port N again … close the program that uses it" reached a French screen
    whole, and never said the likely cause. A real socket holds the port."""
    import os
    import socket

    from cryptography.hazmat.primitives import serialization

    from cli.main import main
    from engine import Seating, preset
    from p2p.table.memory import make_table
    from p2p.table.store import Store

    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    try:
        cfg, ids = make_table(preset("classic"), Seating(2, 2), ["Al", "Bo"], b"n26-port")
        data = tmp_path / "data"
        store = Store.create(data, cfg.header(), 0, port=port, bind="127.0.0.1")
        store.close()
        key = tmp_path / "al.key"
        fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, ids[0]._sk.private_bytes(serialization.Encoding.Raw,
                                               serialization.PrivateFormat.Raw,
                                               serialization.NoEncryption()))
        os.close(fd)
        code = main(["--lang", "fr", "resume", store.path.name[:8], "--plain",
                     "--data-dir", str(data), "--identity", str(key)])
    finally:
        holder.close()
    err = " ".join(capsys.readouterr().err.split())
    assert code != 0, err
    assert f"127.0.0.1 port {port}" in err and "cannot listen" not in err, err
    assert "autre terminal" in err, err


# ----- an option named without its value says how to write it ------------------------------


@pytest.mark.parametrize("typed, example", [("fast_play", "fast_play=yes"),
                                            ("Target", "target=700"),
                                            ("exhaustion", "exhaustion=play_out")])
def test_an_option_named_without_a_value_says_how_to_write_it(
        typed: str, example: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`play --option fast_play` (the rule's name, as --option help lists it) was answered
    "option 'fast_play' must look like NAME=VALUE": what to write was left to guess."""
    from cli.main import main

    assert main(["--lang", "en", "play", "--option", typed]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "must look like NAME=VALUE" in err and f"e.g. {example}" in err, err
