"""Newcomer pass 25: with three players "play 3" (a hazard, no one named) was refused
with the reason about Ben alone, as if Cy could be attacked, and "why 3 cy" answered
about Ben; `lobby`'s header said "Ctrl-C to stop" though q and Enter and Ctrl-D leave
too; a seat a bot took was "Ben's bot (run by Ann) (a bot)" in the waits on it."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cli_helpers import WaitingNetDriver
from test_cli_render import base_view, cards_of

from cli import i18n
from engine import Kind, legal_actions

# ----- 1. a hazard aimed at no one, with several opponents --------------------------------


def _ctx(n: int, teams: str | None, hand: list[int], lang: str = "en") -> Any:
    from cli.commands import Context

    view = base_view(n, teams=teams, hand=hand)
    names = ["Ann", "Ben", "Cy", "Di"][:n]
    return Context(view, 0, legal_actions(view, 0), names, lang)


@pytest.mark.parametrize("command", ["play 1", "why 1"])
def test_a_hazard_aimed_at_no_one_says_why_for_every_opponent(command: str) -> None:
    """Three players, nobody has rolled: "play 1" (Out of Gas) said "Ben has not played
    a Roll yet" and no word of Cy."""
    from cli.commands import parse

    ctx = _ctx(3, None, cards_of(Kind.OUT_OF_GAS) + cards_of(Kind.D25))
    with i18n.using("en"):
        said = parse(command, ctx).text
    assert said.startswith("Out of Gas cannot be played now: Ben has not played a Roll "
                           "yet"), said
    assert "the same goes for Cy [R6]" in said, said
    assert said.count("[R6]") == 1, said


def test_a_hazard_aimed_at_one_opponent_names_that_one() -> None:
    """"why 1 cy" (no "on", as "play 1 cy" is typed) answered about Ben."""
    from cli.commands import parse

    ctx = _ctx(3, None, cards_of(Kind.OUT_OF_GAS) + cards_of(Kind.D25))
    with i18n.using("en"):
        for command in ("why 1 cy", "why 1 on cy", "play 1 on cy"):
            said = parse(command, ctx).text
            assert "Cy has not played a Roll yet" in said, (command, said)
            assert "Ben" not in said, (command, said)


def test_why_with_a_name_after_a_remedy_says_why_the_remedy_cannot_be_played() -> None:
    """"why 1 bo" of a Repairs (no Accident showing): a name after a card that is no
    hazard is no target, and the answer is the card's own reason."""
    from cli.commands import parse

    ctx = _ctx(3, None, cards_of(Kind.REPAIRS) + cards_of(Kind.D25))
    with i18n.using("en"):
        said = parse("why 1 ben", ctx).text
    assert said == parse("why 1", ctx).text, said
    assert "Accident" in said and "name no target" not in said, said


def test_two_teams_have_one_opponent_and_their_reason_is_said_once() -> None:
    from cli.commands import parse

    ctx = _ctx(4, "2x2", cards_of(Kind.STOP) + cards_of(Kind.D25))
    with i18n.using("en"):
        said = parse("play 1", ctx).text
    assert said == ("Stop cannot be played now: Ben & Di have not played a Roll yet "
                    "(Speed Limit is the only attack on a team that has not started) "
                    "[R6]"), said


def test_a_reason_about_the_player_is_said_once() -> None:
    """A reason about the player's own zone (option attacker_started) is not said again
    "for Cy"."""
    from cli.words import every_side_reason

    text = "O-attacker-started: you may attack only once your own zone has started"
    with i18n.using("en"):
        said = every_side_reason([("Ben", text), ("Cy", text)])
    assert "the same goes" not in said, said
    assert said.count("own zone") == 1, said


@pytest.mark.parametrize("lang", ["af", "fr", "sv", "ug", "vi"])
def test_every_opponents_reason_is_translated(lang: str) -> None:
    from cli.commands import parse

    ctx = _ctx(3, None, cards_of(Kind.OUT_OF_GAS) + cards_of(Kind.D25), lang)
    with i18n.using(lang):
        said = parse("play 1", ctx).text
    assert "Ben" in said and "Cy" in said, said
    assert "the same goes" not in said, said


# ----- 2. lobby names every way out --------------------------------------------------------


@pytest.mark.parametrize("seconds", [0.3, 0.0])
def test_the_lobby_header_names_every_way_to_leave(
        seconds: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """`millebornes lobby` said "Ctrl-C to stop": q and Enter and Ctrl-D leave it too."""
    import contextlib

    from cli import lobby as lobby_verb

    class Nothing:
        ignored = 0

    @contextlib.contextmanager
    def no_table(*_a: object, **_k: object):  # type: ignore[no-untyped-def]
        yield Nothing()

    monkeypatch.setattr(lobby_verb, "browse_tables", no_table)
    out = io.StringIO()
    args = SimpleNamespace(seconds=seconds, mdns="loopback", lang="en", verbose=False)
    with i18n.using("en"):
        # (the untimed list is left with q and Enter)
        assert lobby_verb.run(args, out=out, inp=io.StringIO("q\n" if not seconds else
                                                             "")) == 0
    said = " ".join(out.getvalue().split())
    assert "q and Enter, Ctrl-D or Ctrl-C leaves" in said, said
    assert "Ctrl-C to stop" not in said and "Ctrl-C stops" not in said, said


# ----- 3. a bot that took a seat is said to be a bot once ------------------------------------


class _TakenSeat(WaitingNetDriver):
    """Cy's console; Ben's seat was given to a bot run by Ann."""

    def __init__(self, step: Any, state: str = "connected") -> None:
        super().__init__(state, True, seat=2, names=["Ann", "Ben", "Cy"],
                         takeovers=(SimpleNamespace(seat=1, hand=-1, runner=0),))
        self.peer.waiting_on = lambda: SimpleNamespace(seat=1, step=step)
        self.peer.auto_time = lambda seat: (0.0, None)

    def slow_note(self, seat: int) -> str:
        return ""

    def _waited(self, w: object) -> float:
        return 60.0                      # the bot has thought a while: the wait is said


@pytest.mark.parametrize("state", ["connected", "slow"])
@pytest.mark.parametrize("step", ["SHARE", "SHUFFLE", "MOVE"])
def test_a_bot_that_took_a_seat_is_named_once_as_a_bot(step: str, state: str) -> None:
    """"Waiting for Ben's bot (run by Ann) (a bot) to help draw the next card"."""
    from p2p.table import TableStep

    with i18n.using("en"):
        said = _TakenSeat(getattr(TableStep, step), state).activity(plain=True)
    assert said is not None and "Ben's bot" in said, said
    assert said.count("bot") == 1, said
    assert "Ann) (up to" not in said, said


@pytest.mark.parametrize("lang", ["af", "fr", "sv", "ug", "vi"])
def test_the_waits_on_a_bot_that_took_a_seat_are_translated(lang: str) -> None:
    from p2p.table import TableStep

    for step in (TableStep.SHARE, TableStep.SHUFFLE, TableStep.MOVE):
        for state in ("connected", "slow"):
            with i18n.using("en"):
                english = _TakenSeat(step, state).activity(plain=True)
            with i18n.using(lang):
                said = _TakenSeat(step, state).activity(plain=True)
            assert said and said != english, (step, state, said)
            assert "Waiting" not in said and "waiting" not in said, said


# ----- 4. "look at bo", "hand 3": the table said, not an unknown command -------------------


@pytest.mark.parametrize("typed", ["look at bo", "hand 3", "board please"])
def test_the_line_modes_look_with_words_after_it_says_the_table(typed: str) -> None:
    """`look at bo` in the line mode: "unknown command 'look': did you mean 'look'?";
    `hand 3`: "unknown command 'hand'" though `hand` alone says the table and the hand."""
    from cli.driver import LocalDriver
    from cli.plain import run_plain
    from engine import Seating, preset

    d = LocalDriver(preset("classic"), Seating.solo(3), ["Ann", "Bo", "Cy"], seed=5)
    out = io.StringIO()
    with i18n.using("en"):
        assert run_plain(d, out=out, inp=io.StringIO(f"{typed}\n")) == 0
    said = out.getvalue()
    assert "unknown command" not in said.lower() and "did you mean" not in said, said[-1500:]
    boards = said.count("Your hand:")
    assert boards >= 2, said[-1500:]                   # the first board, then again


@pytest.mark.parametrize("typed", ["look at bo", "hand 3"])
def test_look_with_words_after_it_on_the_full_screen_says_where_things_are(
        typed: str) -> None:
    from cli_helpers import until
    from prompt_toolkit.input.base import PipeInput
    from test_cli_app import my_play_phase, run

    from cli.app import TableApp
    from cli.driver import LocalDriver
    from engine import Seating, preset

    d = LocalDriver(preset("classic"), Seating.solo(2), ["Ana", "Bo"], seed=3)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: my_play_phase(d))
        n = len(d.events)
        inp.send_text(f":{typed}\r")
        await until(lambda: "Everything is on the screen" in app.message)
        assert "class:error" not in app.message_style and len(d.events) == n
        inp.send_text("q")

    with i18n.using("en"):
        assert run(d, script) == 0


# ----- 5. "next" in the hand says what to do now -------------------------------------------


def test_next_typed_in_the_hand_says_what_to_do_now() -> None:
    """"next" typed mid-hand (taken for "end my turn") said only "the hand is still in
    play": not what next is for, nor what the player should do now."""
    from cli.commands import parse

    ctx = _ctx(3, None, cards_of(Kind.OUT_OF_GAS) + cards_of(Kind.D25))
    with i18n.using("en"):
        said = parse("next", ctx).text
        theirs = parse("next", ctx._replace(seat=1)).text
    assert said == ("the hand is still in play (next deals the next hand once it is "
                    "over): play or discard a card"), said
    assert theirs.endswith("it is Ann's turn: wait for your turn"), theirs
    with i18n.using("fr"):
        said = parse("next", ctx).text
    assert "next" in said and "still" not in said and "défauss" in said, said


# ----- 6. tournament: an unknown bot is named as such ------------------------------------


def test_a_tournament_of_one_unknown_bot_says_the_bot_is_unknown(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`tournament --bots foo` said "--bots needs at least two bots for a round robin":
    foo is no bot at all, and `--bots foo,bar` said so."""
    from cli.main import main

    with i18n.using("en"):
        rc = main(["--lang", "en", "tournament", "--bots", "heuristc", "--deals", "1"])
    err = " ".join(capsys.readouterr().err.split())
    assert rc != 0
    assert "there is no bot called 'heuristc'" in err and "did you mean 'heuristic'" in err, err
    assert "at least two" not in err, err


# ----- 7. a move typed while the table is paused on another seat says why -----------------


def test_a_move_typed_while_the_table_is_paused_says_whom_it_waits_for(
        tmp_path: Path) -> None:
    """Ben quit; Ann's turn to draw, which needs Ben's computer: space said "You cannot
    draw now." (why?), then p "Draw first: press space" to a player who had pressed it.
    Every move is answered with the pause and whom it waits for."""
    import threading
    import time

    from test_session import FAST

    from cli.commands import parse
    from cli.netdriver import NetDriver
    from cli.plain import PlainSession
    from engine import Seating, preset
    from p2p.net.interface import TransportConfig
    from p2p.table.memory import make_table
    from p2p.testing import socket_peers

    cfg, ids = make_table(preset("modern"), Seating.solo(2), ["Ann", "Ben"], b"nc25-pause")
    quick = TransportConfig(slow_after=0.3, gone_after=0.8)
    peers = socket_peers(tmp_path, cfg, ids, FAST, transport=quick)
    peers[0].controller = None
    stop = threading.Event()

    def pump() -> None:
        while not stop.is_set() and (peers[1].pump(0.05) or peers[1].paused):
            pass
    ben = threading.Thread(target=pump)
    ben.start()
    d = NetDriver(peers[0], background=True)
    try:
        assert d.wait_ready(30)
        stop.set()                                   # Ben quits
        ben.join(10)
        assert peers[1].leave_for_now(flush=1.0)
        peers[1].close(flush=0.0)
        end = time.monotonic() + 30
        while d.paused_on() is None and time.monotonic() < end:
            if d.my_move() and d.legal():
                d.submit(d.legal()[0])
            d.step_others(wait=0.05)
        assert d.paused_on() is not None, d.events[-5:]
        session = PlainSession(d, out=io.StringIO(), inp=io.StringIO(""))
        with i18n.using("en"):
            ctx = session.context()
            for typed in ("draw", "play 1", "discard 2", "coup"):
                said = parse(typed, ctx).text
                assert said.startswith("the table is paused, waiting for Ben: no move can "
                                       "be made until they are back"), (typed, said)
            assert d.paused_on(below=True) == ("the table is paused, waiting for Ben: no "
                                               "move until then")
        with i18n.using("fr"):
            said = parse("draw", session.context()).text
        assert "Ben" in said and "paused" not in said, said
    finally:
        d.close()
        stop.set()
        ben.join(10)
        peers[0].close(flush=0.0)


# ----- 8. a table's lobby: the host's "sit 2", and q to leave -------------------------------


def test_the_host_typing_sit_is_told_their_seat_and_q_leaves_either_lobby(
        tmp_path: Path) -> None:
    """The host typed "sit 2" (the joiner's command): "unknown command 'sit 2'"; q (the
    game's key to leave) was an unknown command in both lobbies."""
    from test_newcomer_plain import ann_hosts_and_bea_joins

    with ann_hosts_and_bea_joins(tmp_path, 3) as (ann, bea):
        ann.until(r"Waiting for 1 more player to join \(no time limit\)")
        bea.until(r"Waiting for 1 more player to join \(no time limit\)\.")
        ann.type("sit 2")
        ann.until(r"You host this table: you sit at seat 0 \('sit N' is for a player who "
                  r"joins\)")
        bea.type("q")
        bea.until(r"left the table")
        ann.type("q")
        ann.until(r"Table closed")
        assert "unknown command" not in (ann.said() + bea.said()).lower()
        ann.proc.wait(30)                   # the table closed: the host ended


# ----- 9. a replay of one's own game in French: "Vous", not "You" ---------------------------


@pytest.mark.parametrize("lang, draws, turn, answer, extend, who", [
    ("en", "You are drawing.", "Your turn.", "Waiting for your answer to the Stop hazard.",
     "Waiting for your decision on the extension.", "You, Bo, Cy"),
    ("fr", "Vous piochez.", "À vous.", "En attente de votre réponse à l'attaque "
     "Feu rouge.", "En attente de votre décision sur l'allonge.", "Vous, Bo, Cy"),
])
def test_a_replay_of_ones_own_game_says_you_in_the_language_shown(
        lang: str, draws: str, turn: str, answer: str, extend: str, who: str) -> None:
    """`replay --lang fr` of one's own game: "You pioche.", "Au tour de You.", "En attente
    de la réponse de You à l'attaque…", and "(You, Bo, Cy" in its first line, under a
    board that says "Vous"."""
    import datetime

    from cli.games import SavedGame, newest_line
    from cli.words import waiting_text
    from engine.state import DRAW, EXTEND, RESPOND, Attack

    names = ["You", "Bo", "Cy"]
    v = base_view(3)
    stop = cards_of(Kind.STOP)[0]
    with i18n.using(lang):
        assert waiting_text(v._replace(phase=DRAW, pending=("turn",)), -1, names) == draws
        assert waiting_text(v, -1, names) == turn
        hit = v._replace(phase=RESPOND, attack=Attack(1, stop, 0, (0,)))
        assert waiting_text(hit, -1, names) == answer
        assert waiting_text(v._replace(phase=EXTEND), -1, names) == extend
        game = SavedGame(Path("x"), "6a03c9c6", datetime.datetime(2026, 12, 6, 20, 28),
                         tuple(names), 0, "classic")
        assert f"({who}, 2026-12-06 20:28)" in newest_line(game)


# ----- 10. replay of a game with no finished hand: the resume command that finds it --------


def test_replay_of_a_game_with_no_finished_hand_names_the_resume_that_finds_it(
        tmp_path: Path) -> None:
    """A game kept with --data-dir, left in its first hand: `replay --data-dir DIR` said
    "(`millebornes resume` plays on)", which looks in the default folder and finds
    nothing."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root), MILLEBORNES_DELAY="0", LANGUAGE="en",
               COLUMNS="200")
    data = str(tmp_path / "games")
    left = subprocess.run([sys.executable, "-m", "cli", "play", "--plain", "--data-dir",
                           data], input="quit\ny\n", capture_output=True, text=True,
                          env=env, timeout=120)
    assert "Traceback" not in left.stderr, left.stderr
    short = left.stdout.split("millebornes resume ", 1)[1].split()[0]
    said = subprocess.run([sys.executable, "-m", "cli", "replay", "--data-dir", data],
                          capture_output=True, text=True, env=env, timeout=120)
    assert said.returncode == 1 and "Traceback" not in said.stderr, said.stderr
    # (the command on lines of its own, continued with a backslash: pass 34)
    err = " ".join(said.stderr.replace("\\\n", "").split())
    assert err.endswith(f"This command plays on: millebornes resume {short} --data-dir "
                        f"{data}"), err


# ----- 11. a move of a player whose computer is not connected yet ---------------------------


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_move_of_a_player_not_connected_yet_says_its_limit(lang: str) -> None:
    """`resume`: "Waiting for Ann (connecting) (no time limit)." right before "Ann left;
    … for up to 20 s, then the table pauses": the untimed move is bound once nothing is
    heard from that computer, as a slow one's is; and "connecting" read as if Ann did
    something."""
    d = WaitingNetDriver("connecting")
    d.peer.auto_time = lambda seat: (0.0, None)
    d.slow_note = lambda seat: ""                          # type: ignore[method-assign]
    with i18n.using("en"):
        english = d.activity(plain=True)
    assert english == ("Waiting for Bo (not connected yet): after 5 s of silence their "
                       "computer counts as gone; then the table waits up to 20 s for them, "
                       "and pauses."), english
    with i18n.using(lang):
        said = d.activity(plain=True)
    assert said is not None and "20" in said and "connect" in said, said
    if lang == "fr":
        assert "pas encore connecté" in said, said


def test_the_host_pressing_enter_on_an_empty_line_in_its_lobby_is_no_fault(
        tmp_path: Path) -> None:
    """The host's lobby read the first word of every line typed to answer 'sit N' (above):
    an empty line, or spaces alone, has no first word. Enter alone is nothing typed: the
    lobby goes on, and 'q' still closes the table."""
    from test_newcomer_plain import ann_hosts_and_bea_joins

    with ann_hosts_and_bea_joins(tmp_path, 3) as (ann, bea):
        ann.until(r"Waiting for 1 more player to join \(no time limit\)")
        ann.type("")
        ann.type("   ")
        ann.type("sit 2")
        ann.until(r"You host this table: you sit at seat 0")
        ann.type("q")
        ann.until(r"Table closed")
        assert "Traceback" not in ann.said(), ann.said()
        assert "IndexError" not in ann.said(), ann.said()
        ann.proc.wait(30)
