"""Newcomer pass 24: `play --auto` said "Waiting for Cy to answer the hazard (Speed
Limit). (up to 30 s)" (nothing said Cy was a bot, where other waits say "Cy (a bot)",
and ". (" read oddly), and `resume` said again, move by move, a hand that was over
before the player left."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from prompt_toolkit.output import DummyOutput

from cli import i18n

ROOT = Path(__file__).resolve().parent.parent


def _cli(*argv: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), MILLEBORNES_DELAY="0")
    return subprocess.Popen([sys.executable, "-m", "cli", *argv], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env=env)


def _until_then_quit(proc: subprocess.Popen[str], mark: str | tuple[str, ...], answer: str,
                     limit: float = 60.0) -> str:
    """The lines ``proc`` says up to one holding ``mark`` (or any of several), then
    ``answer`` typed; all it said. Bounded: a console that waits for another answer
    (the game's first question was a coup fourré, not "Your turn": CI waited 15 minutes
    on it) is killed after ``limit`` seconds and the test fails with what it said."""
    assert proc.stdin is not None and proc.stdout is not None
    marks = (mark,) if isinstance(mark, str) else mark
    out: list[str] = []
    seen = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.append(line)
            if any(m in line for m in marks):
                break
        seen.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if not seen.wait(limit):
        proc.kill()
        proc.communicate(timeout=10)
        raise AssertionError(f"no {marks} within {limit} s; said:\n" + "".join(out)[-3000:])
    reader.join(5)
    rest, err = proc.communicate(answer, timeout=60)
    assert "Traceback" not in err, err
    return "".join(out) + rest


# ----- 1. resume: a hand over before the player left is said by its result ----------------


def test_resume_says_a_finished_hand_by_its_result_and_the_match_so_far(
        tmp_path: Path) -> None:
    """`resume` of a game left in hand 2: hand 1's deal and its 130 moves, every one seen
    already, came again before the hand the player had left; the match's totals did not
    come at all."""
    data = str(tmp_path)
    played = _until_then_quit(_cli("play", "--auto", "--plain", "--seed", "7",
                                   "--data-dir", data), "Hand 2", "quit\ny\n")
    assert "Hand 1 over" in played, played[-2000:]
    short = played.split("millebornes resume ", 1)[1].split()[0]
    started = time.monotonic()
    # the first question may be the player's turn or a hazard to answer (where the
    # player left hand 2 varies with timing)
    said = _until_then_quit(_cli("resume", short, "--data-dir", data, "--plain"),
                            ("Your turn", "for a coup fourré"), "quit\ny\n")
    assert time.monotonic() - started < 30
    flat = " ".join(said.split())
    past = flat.split("Hand 1 over", 1)
    assert len(past) == 2, flat[:3000]
    # nothing of hand 1 but its end: no deal, no move
    assert "Hand 1:" not in past[0] and not re.search(
        r"\* (You|Bo) (drew|played|discarded|let)", past[0]), past[0]
    # where the match stands, right after
    assert re.search(r"The match so far \(1 hand played, to 5000 points\): You \d+, "
                     r"Bo \d+\.", past[1]), past[1][:600]
    # the hand left is said as before, up to the line where the new moves start
    assert "Hand 2: the cards are dealt" in past[1]
    assert "You are back at the table" in past[1]



@pytest.mark.parametrize("lang", ["en", "af", "fr", "sv", "ug", "vi"])
def test_resume_names_finished_hands_only_when_there_are_some(lang: str) -> None:
    """Left in hand 1, `resume` said "each hand already over by its result, then the
    match's totals" though no hand was over: a newcomer looked for a hand missed."""
    from cli.words import back_at_table_line, resumed_line

    with i18n.using(lang):
        none, some = resumed_line("28be0882", 0), resumed_line("28be0882", 2)
        back = back_at_table_line()
    assert none != some and back in none and back in some, (none, some)
    if lang == "en":
        assert "already over" not in none and "already over" in some, (none, some)

# ----- 2. a wait on a bot says so, its limit inside the sentence ---------------------------


def _bot_answering_a_hazard(limit: float | None) -> Any:
    """`millebornes play` (You and the bot Bo) at the moment the table waits for Bo to
    answer a hazard You played on it."""
    from cli.driver import LocalDriver
    from engine import Play, Seating, preset
    from engine.state import RESPOND

    class _TableOfBots(LocalDriver):
        """A networked table as the screens see it: its bots' moves are timed."""

        decision_limit: float | None = None

        def is_bot(self, seat: int) -> bool:
            return seat != self.seat

    for seed in range(40):
        d = _TableOfBots(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=seed)
        d.decision_limit = limit
        for _ in range(400):
            if d.hand_over:
                break
            v = d.view()
            if v.phase == RESPOND and tuple(v.actors()) == (1,):
                return d
            if not d.my_move():
                d.step_others()
                continue
            legal = d.legal()
            hits = [a for a in legal if isinstance(a, Play) and a.target == 1]
            d.submit(hits[0] if hits else legal[-1])
    raise AssertionError("no hazard on Bo in 40 deals")


@pytest.mark.parametrize("limit, said", [(None, "(up to 30 s)"), (20.0, "(up to 16 s)")])
def test_a_wait_on_a_bot_to_answer_a_hazard_says_it_is_a_bot_in_both_screens(
        limit: float | None, said: str) -> None:
    """`play --auto`: "Waiting for Bo to answer the hazard (Speed Limit). (up to 30 s)":
    Bo's being a bot was said nowhere (the draw's wait says "Bo (a bot)"), and the limit
    came after the full stop. The full screen and the line mode say the same."""
    from cli.app import TableApp
    from cli.plain import PlainSession

    d = _bot_answering_a_hazard(limit)
    status = TableApp(d, output=DummyOutput())._table_status()
    assert re.fullmatch(rf"Waiting for Bo \(a bot\) to answer the [A-Za-z -]+ hazard "
                        rf"{re.escape(said)}\.", status), status
    assert PlainSession(d, out=io.StringIO(), inp=io.StringIO("")).turn_text() == status
    auto = TableApp(d, output=DummyOutput(), auto=True)._table_status()
    assert auto.endswith(" " + status), auto          # after its "(spectating)"


def test_another_players_turn_says_its_limit_before_the_full_stop() -> None:
    """"Bo's turn. (up to 30 s)", "Cy is drawing. (up to 30 s)": the limit after the
    sentence's end; a line with no full stop keeps its limit after it."""
    from cli.words import turn_wait_line

    with i18n.using("en"):
        assert turn_wait_line("Bo's turn.", 30) == "Bo's turn (up to 30 s)."
        assert turn_wait_line("Shuffling…", 20) == "Shuffling… (up to 20 s)"
        assert turn_wait_line("Bo's turn.", None) == "Bo's turn (no time limit)."


def test_a_seat_a_bot_took_is_not_said_twice_to_be_a_bot() -> None:
    """Ben's seat, played by a bot by the others' agreement, is named "Ben's bot (run by
    Ann)": no "(a bot)" after that."""
    from test_cli_render import base_view, cards_of

    from cli.words import waiting_text
    from engine import Kind
    from engine.state import RESPOND, Attack

    v = base_view(3)
    att = Attack(attacker=0, card=cards_of(Kind.STOP)[0], side=1, responders=(1,))
    v = v._replace(phase=RESPOND, attack=att)
    with i18n.using("en"):
        plain = waiting_text(v, 0, ["You", "Bo", "Cy"], bots=[1], named_bots=[1])
        taken = waiting_text(v, 0, ["You", "Ben's bot (run by Ann)", "Cy"], bots=[1])
    assert plain == "Waiting for Bo (a bot) to answer the Stop hazard.", plain
    assert taken == "Waiting for Ben's bot (run by Ann) to answer the Stop hazard.", taken


@pytest.mark.parametrize("lang", ["af", "fr", "sv", "ug", "vi"])
def test_the_waits_on_a_bot_are_translated(lang: str) -> None:
    from cli.words import bot_label, turn_wait_line

    with i18n.using(lang):
        label = bot_label("Bo")
        turn = turn_wait_line("X.", 30)
    assert label != "Bo (a bot)" and "Bo" in label, label
    assert "30" in turn and "up to" not in turn, turn


@pytest.mark.parametrize("bot", [True, False])
def test_a_set_up_step_waiting_on_a_bot_says_it_is_a_bot(bot: bool) -> None:
    """"Shuffling the deck: waiting for Bo (up to 20 s)." beside "Waiting for Bo (a bot)
    to help draw the next card": the same bot, said two ways."""
    from test_newcomer_twentysecond import _DrawWait

    from p2p.table import TableStep

    d = _DrawWait(bot=bot)
    d.peer.waiting_on = lambda: SimpleNamespace(seat=1, step=TableStep.SHUFFLE)
    with i18n.using("en"):
        said = d.activity(plain=True)
    assert said is not None
    if bot:
        assert said.endswith(": waiting for Bo (a bot), up to 20 s."), said
    else:
        assert said.endswith(": waiting for Bo (up to 20 s)."), said


# ----- 3. (played) the line mode says no turn of a seat the table is paused on ------------


def test_the_line_mode_says_no_turn_while_the_table_is_paused_on_that_seat() -> None:
    """`host --plain`, Ben quit: "* Paused: seat 1 (Ben) quit for now; the table waits
    for them to come back", then "* Ben is drawing (no time limit)." as if Ben played on,
    then "* Ben left; the game is saved. Wait for them … or type bot". No turn line while
    the table is paused; once it is not, the turn is said."""
    from cli.driver import LocalDriver
    from cli.plain import PlainSession
    from engine import Seating, preset

    class _PausedOnBen(LocalDriver):
        decision_limit: float | None = None
        gone: int | None = 1

        def is_bot(self, seat: int) -> bool:
            return False

        def silent(self) -> int | None:
            return self.gone

        def held_by(self) -> int | None:     # paused on the seat it names silent
            return self.gone

    d = _PausedOnBen(preset("classic"), Seating.solo(2), ["Ann", "Ben"], seed=3)
    while d.my_move():                                  # to Ben's turn
        d.submit(d.legal()[0])
    assert not d.hand_over and tuple(d.view().actors()) == (1,)
    out = io.StringIO()
    session = PlainSession(d, out=out, inp=io.StringIO(""))
    with i18n.using("en"):
        assert session.turn_text() is None
        session.show_turn()
        assert out.getvalue() == "", out.getvalue()
        d.gone = None                                   # Ben is back: the pause lifted
        assert session.turn_text() == "Ben's turn (no time limit).", session.turn_text()


# ----- 4. (played) a player who comes back is said back once -----------------------------


@pytest.mark.parametrize("pause_said", [True, False])
def test_a_player_back_after_a_pause_is_not_said_connected_again_after_it(
        pause_said: bool) -> None:
    """`host --plain`, Ben resumed: "* The pause is over: Ben plays on." and then "* Ben is
    connected again." (his transport's return, seen a moment later), as if he had left
    once more. Said once; a return with no pause said is still said."""
    from cli_helpers import WaitingNetDriver

    from cli.netdriver import NetDriver

    d = WaitingNetDriver(state="connected")
    d._silent_said = {1: True}                      # Bo was seen gone
    if pause_said:
        d._back_said = {1}                          # "The pause is over: Bo plays on."
    with i18n.using("en"):
        NetDriver._watch_peers(d)  # type: ignore[arg-type]
    assert d._events == ([] if pause_said else ["Bo is connected again."]), d._events
    # gone again later, and back: said again
    d.peer.peer_state = lambda s: "gone"
    with i18n.using("en"):
        NetDriver._watch_peers(d)  # type: ignore[arg-type]
    d.peer.peer_state = lambda s: "connected"
    d._events.clear()
    with i18n.using("en"):
        NetDriver._watch_peers(d)  # type: ignore[arg-type]
    assert d._events == ["Bo is connected again."], d._events


def test_the_wait_on_a_bot_deciding_on_the_extension_says_it_is_a_bot() -> None:
    """`play --plain --auto`: "* Waiting for Bo to decide on the extension. (up to
    30 s)"."""
    from test_cli_render import base_view

    from cli.words import others_turn_line, waiting_text

    v = base_view(2)._replace(phase="extend", target=700, seat=1)
    with i18n.using("en"):
        said = others_turn_line(waiting_text(v, 0, ["You", "Bo"], bots=[1], named_bots=[1]),
                                None, True)
    assert said == "Waiting for Bo (a bot) to decide on the extension (up to 30 s).", said
