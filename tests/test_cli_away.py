"""A player who quits says so: the others' consoles say "quit for now" at once (not "has
gone silent" seconds later, which read like a crash) and pause when they need the seat.
A table may time each move (``host --move-limit``): the lobby and the player's own turn
say it."""

from __future__ import annotations

import argparse
import io
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from cli_helpers import free_port, start_joiner, wait_into_first_hand
from test_session import FAST

from cli import host as host_verb
from cli.netdriver import NetDriver
from engine import Seating, preset
from p2p.net.interface import TransportConfig
from p2p.table.memory import make_table
from p2p.testing import socket_peers, wait_for


def said(out: io.StringIO) -> str:
    return " ".join(out.getvalue().split())


def test_the_console_says_a_player_quit_once_and_not_that_they_went_silent(
        tmp_path: Path) -> None:
    cfg, ids = make_table(preset("classic"), Seating.solo(3), ["You", "Bo", "Cy"], b"cli-away")
    quick = TransportConfig(slow_after=0.3, gone_after=0.8)
    peers = socket_peers(tmp_path, cfg, ids, FAST, transport=quick)
    peers[0].controller = None
    stop = {1: threading.Event(), 2: threading.Event()}

    def pump(s: int) -> None:
        while not stop[s].is_set() and (peers[s].pump(0.05) or peers[s].paused):
            pass
    threads = {s: threading.Thread(target=pump, args=(s,)) for s in (1, 2)}
    for t in threads.values():
        t.start()
    d = NetDriver(peers[0], background=True)
    try:
        assert d.wait_ready(30)
        stop[2].set()                       # Cy quits (as the console's quit does)
        threads[2].join()
        assert peers[2].leave_for_now(flush=1.0)
        peers[2].close(flush=0.0)
        quit_line = ("Cy quit for now; the game is saved. When the table needs Cy, it "
                     "pauses until they come back (millebornes resume on their computer).")
        end = time.monotonic() + 10
        while not any(quit_line in e for e in d.events) and time.monotonic() < end:
            time.sleep(0.05)
        assert any(quit_line in e for e in d.events), d.events[-5:]
        time.sleep(1.5)                     # the transport gives Cy up meanwhile
        assert peers[0].peer_state(2) == "gone"
        assert not any("Cy has gone silent" in e for e in d.events), d.events[-5:]
        assert sum(quit_line in e for e in d.events) == 1
        # the table needs Cy sooner or later: it pauses, saying why in those words
        paused = ("Paused: seat 2 (Cy) quit for now; the table waits for them to come "
                  "back (millebornes resume).")
        end = time.monotonic() + 30
        while not any(paused in e for e in d.events) and time.monotonic() < end:
            if d.my_move():
                d.submit(d.legal()[0])
            d.step_others(wait=0.05)
        assert any(paused in e for e in d.events), d.events[-5:]
        assert d.silent() == 2
    finally:
        d.close()
        stop[1].set()
        threads[1].join()
        for p in peers[:2]:
            p.close(flush=0.0)


@pytest.mark.slow    # about 8 s: a hosted table and a joiner in its own process
def test_a_joiner_who_presses_ctrl_c_is_said_to_have_quit(tmp_path: Path) -> None:
    hport, jport = free_port(), free_port()
    out = io.StringIO()
    rc: list[int] = []
    host_in_r, host_in_w = os.pipe()
    host_args = argparse.Namespace(name="Ann", bots=0, players=2, rules="modern",
                                   bind="127.0.0.1", port=hport, no_announce=True,
                                   data_dir=str(tmp_path / "h"),
                                   identity=str(tmp_path / "h.key"), auto=True)

    def host() -> None:
        with os.fdopen(host_in_r) as inp:
            rc.append(host_verb.run(host_args, out=out, inp=inp))

    t = threading.Thread(target=host)
    t.start()
    jdir = tmp_path / "j"
    ben = start_joiner(hport, jport, jdir, tmp_path / "j.key")
    try:
        wait_into_first_hand(jdir)
        # Ctrl-C: it asks before leaving (newcomer pass 14), and Ben's input, at its end,
        # answers: he leaves as at the end of input (exit 0), the game saved
        ben.send_signal(signal.SIGINT)
        assert ben.wait(20) == 0
        end = time.monotonic() + 3         # well before the transport could give him up
        while "Ben quit for now" not in said(out) and time.monotonic() < end:
            time.sleep(0.05)
        assert "Ben quit for now; the game is saved." in said(out), out.getvalue()[-1500:]
        assert "Ben has gone silent" not in said(out)
    finally:
        os.write(host_in_w, b"quit\n")
        os.close(host_in_w)
        if ben.poll() is None:
            ben.kill()
        t.join(30)
    assert rc == [0], out.getvalue()[-1500:]


def test_a_table_that_times_moves_says_so_in_the_lobby_and_on_each_turn(
        tmp_path: Path) -> None:
    """``host --move-limit 30``: whoever joins reads the limit before sitting down, each
    player's own turn says it, and the others' waits say "(up to 30 s)", not "(no time
    limit)"."""
    from test_newcomer_plain import YOUR_TURN, Player, first_turn_to

    port = free_port()
    ann = Player(["host", "--plain", "--name", "Ann", "--bind", "127.0.0.1", "--port",
                  str(port), "--no-announce", "--players", "2", "--move-limit", "30",
                  "--data-dir", str(tmp_path / "a"), "--identity", str(tmp_path / "a.key")],
                 tmp_path)
    bea: Player | None = None
    note = r"\(each move: up to 30 s, then the table pauses\)"
    try:
        ann.until(note)                  # the host's own lobby lines
        bea = Player(["join", "--plain", "--name", "Bea", "--peer", f"127.0.0.1:{port}",
                      "--port", str(free_port()), "--data-dir", str(tmp_path / "b"),
                      "--identity", str(tmp_path / "b.key")], tmp_path)
        bea.until(r"Table \"Ann's table\": classic rules, 2 seats \(no teams\) " + note)
        first_turn_to(bea, ann)
        # (a deal with nothing to play says so after the question, and why when no distance
        # can go down, with its rule: the deal is random)
        said = bea.until(YOUR_TURN + r"( No card can be played now: discard one\.( [^\[]*"
                         r"\[R\w+\]\.)?)? " + note)
        bea.type("discard 1")
        said = bea.until(r"\* Ann's turn \(up to 30 s\)\.")
        assert "(no time limit)" not in said and "Traceback" not in said
    finally:
        for p in (bea, ann):
            if p is not None:
                p.close()


def test_the_move_limit_is_checked_where_it_is_typed() -> None:
    from cli.args import MOVE_LIMIT, UsageError, build_parser
    from p2p.table.config import DECISION_LIMITS

    assert MOVE_LIMIT == DECISION_LIMITS      # the header's bounds, without importing p2p
    parser, _verbs = build_parser()
    assert parser.parse_args(["host", "--move-limit", "45"]).move_limit == 45.0
    assert parser.parse_args(["host"]).move_limit is None
    for bad in ("0.5", "nan", "inf", "1e9", "soon"):
        with pytest.raises(UsageError, match="--move-limit must be a number of seconds"):
            parser.parse_args(["host", "--move-limit", bad])


def test_a_bot_whose_player_left_says_it_quit_too(tmp_path: Path) -> None:
    """The bots a player runs (a host's, or one taking a silent seat) stop when the
    player leaves: the others hear them quit too, not go silent one by one."""
    from cli.seats import run_bot

    cfg, ids = make_table(preset("classic"), Seating.solo(2), ["Ann", "Bot1"], b"cli-away-bot")
    ann, bot = socket_peers(tmp_path, cfg, ids, FAST,
                            transport=TransportConfig(slow_after=30.0, gone_after=60.0))
    ann.controller = None                 # Ann thinks: the bot's peer waits for her
    left = threading.Event()
    t = threading.Thread(target=run_bot, args=(bot,), kwargs={"until": left})
    t.start()
    try:
        end = time.monotonic() + 20
        while ann.view() is None and time.monotonic() < end:
            ann.pump(0.05)
        left.set()                        # the bot's player leaves
        t.join(10)
        end = time.monotonic() + 5
        while not ann.quit_for_now(1) and time.monotonic() < end:
            ann.pump(0.05)
        assert ann.quit_for_now(1)
        assert "away" in [e.kind for e in ann.drain_events()]
    finally:
        left.set()
        t.join(10)
        ann.close(flush=0)


def test_a_move_past_the_tables_limit_is_said_late_on_both_sides(tmp_path: Path) -> None:
    """A table that times moves pauses on a player who is there but slow: the others read
    that they took too long (it said "connected again", as of a player who had left),
    and the slow player's own status says the move is late (it still offered the limit).
    Once the move comes, the others read that the pause is over (nothing was said)."""
    import dataclasses

    from cli.words import late_move_line, overdue_move_line

    cfg, ids = make_table(preset("classic"), Seating.solo(2), ["Ann", "Ben"], b"cli-late")
    cfg = dataclasses.replace(cfg, decision_limit=1.0)
    peers = socket_peers(tmp_path, cfg, ids, FAST)
    for p in peers:
        p.controller = None
    drivers = [NetDriver(p, background=True) for p in peers]
    try:
        assert all(d.wait_ready(30) for d in drivers)
        end = time.monotonic() + 20
        while not any(d.my_move() for d in drivers) and time.monotonic() < end:
            time.sleep(0.05)
        slow = next(d for d in drivers if d.my_move())
        other = drivers[1 - slow.seat]
        name = ["Ann", "Ben"][slow.seat]
        assert not slow.move_overdue()
        end = time.monotonic() + 10
        # held on the seat (the pause), not only named silent: the log names the seat a
        # moment before the peer is paused, and the words come with the pause (CI's
        # default stage read them in between once)
        while other.held_by() is None and time.monotonic() < end:
            time.sleep(0.05)
        assert other.silent() == slow.seat
        assert other.silent_words(plain=False) == late_move_line(name, plain=False)
        # the slow seat's own clock starts from when it applied the last entry, a moment
        # after the other's: it reads the move late a moment later (CI failed once)
        assert wait_for(slow.move_overdue, 5.0)
        assert overdue_move_line(1.0).startswith("Your move is past the table's 1 s")
        slow.submit(slow.legal()[0])          # the late move lifts the pause
        end = time.monotonic() + 10
        while other.silent() is not None and time.monotonic() < end:
            time.sleep(0.05)
        assert other.silent() is None and not slow.move_overdue()
        # and the others read that the table goes on (the last line said "Paused")
        end = time.monotonic() + 10
        while not any("The pause is over" in e for e in other.events) \
                and time.monotonic() < end:
            time.sleep(0.05)
        assert f"The pause is over: {name} plays on." in other.events, other.events[-4:]
    finally:
        for d in drivers:
            d.close()
        for p in peers:
            p.close(flush=0.0)


def test_a_player_who_quit_is_said_left_not_back_until_they_resume(tmp_path: Path) -> None:
    """Played over the network: Ben typed quit, and Ann's screen said "Ben quit for now",
    then "Ben is connected again: the table goes on once their move arrives", then "Ben
    left". His computer stayed connected for a moment after his signed AWAY, and the
    pause read that as his return. Until he comes back he has left; once he resumes,
    the pause says he is back."""
    from engine.bots import make_bot
    from p2p.table.session import resume_peer
    from p2p.table.store import table_dir

    cfg, ids = make_table(preset("classic"), Seating.solo(2), ["Ann", "Ben"], b"cli-away/q")
    peers = socket_peers(tmp_path, cfg, ids, FAST)
    peers[0].controller = None
    ben = peers[1]
    stop = threading.Event()

    def pump() -> None:
        while not stop.is_set() and (ben.pump(0.05) or ben.paused):
            pass
    thread = threading.Thread(target=pump)
    thread.start()
    d = NetDriver(peers[0], background=True)
    back = None
    try:
        assert d.wait_ready(30)
        stop.set()
        thread.join()
        assert ben.leave_for_now(flush=1.0)          # his node stays open: still connected
        end = time.monotonic() + 30
        # held on the seat (the pause), not only named silent: the log names the seat a
        # moment before the peer is paused (two steps, on the peer's own thread), and the
        # words come with the pause (CI's default stage read them in between, once)
        while d.held_by() != 1 and time.monotonic() < end:
            if d.my_move():
                d.submit(d.legal()[0])
            d.step_others(wait=0.05)
        assert d.silent() == 1 and d.held_by() == 1, d.events[-5:]
        assert peers[0].peer_state(1) == "connected"
        words = d.silent_words(plain=True) or ""
        assert words.startswith("Ben left; the game is saved."), words
        assert "connected again" not in words, words
        ben.close(flush=0.0)
        back = resume_peer(table_dir(tmp_path / "seat1", cfg.table_id), ids[1],
                           controller=make_bot("heuristic", 99), options=FAST)
        end = time.monotonic() + 30
        while time.monotonic() < end and not (d.silent_words(plain=True) or "").startswith(
                "Ben is connected again"):
            d.step_others(wait=0.05)
        assert (d.silent_words(plain=True) or "").startswith("Ben is connected again: the "
                                                             "table goes on once their move "
                                                             "arrives."), d.events[-5:]
    finally:
        d.close()
        stop.set()
        thread.join()
        for p in peers:
            p.close(flush=0.0)
        if back is not None:
            back.close(flush=0.0)
