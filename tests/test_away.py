"""A player who quits a match that is not over says so (a signed AWAY): the others say it
at once and pause when they need that seat, instead of waiting for the transport to give
the seat up and then for the step limit. Real sockets on 127.0.0.1."""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path

from test_session import FAST

from engine import Seating, preset
from engine.bots import make_bot
from p2p.crypto.identity import Identity
from p2p.net.interface import TransportConfig
from p2p.table import wire
from p2p.table.memory import make_table
from p2p.table.session import Peer, node_id_for, resume_peer
from p2p.table.store import table_dir
from p2p.testing import socket_peers

#: the transport would call a quiet peer gone only after a minute, and the table would
#: wait another minute for its step: any pause within seconds is the AWAY's doing
SLOW_TO_NOTICE = TransportConfig(slow_after=30.0, gone_after=60.0)


def _wait(pred, timeout: float) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return bool(pred())


def test_a_player_who_quits_is_said_at_once_and_the_table_pauses_then_goes_on(
        tmp_path: Path) -> None:
    cfg, ids = make_table(preset("modern", match_target=1), Seating.solo(3),
                          ["Ann", "Ben", "Cy"], b"away/quit")
    opts = dataclasses.replace(FAST, step_limit=60.0)
    peers = socket_peers(tmp_path, cfg, ids, opts, transport=SLOW_TO_NOTICE)
    leaver = peers[1]
    others = {0: peers[0], 2: peers[2]}
    stop = threading.Event()
    events: dict[int, list[str]] = {0: [], 2: []}
    finished = {0: False, 2: False}

    def go(i: int) -> None:
        p = others[i]
        while not stop.is_set():
            if not p.pump(0.05) and not p.paused:
                break
            events[i].extend(f"{e.kind}:{e.data.get('seat')}" for e in p.drain_events())
        finished[i] = p.finished
        p.linger(0.5)

    th = [threading.Thread(target=go, args=(i,)) for i in others]
    for t in th:
        t.start()
    back: Peer | None = None
    try:
        while leaver.entries_applied < 120:            # well into the play of the hand
            leaver.pump(0.02)
        t0 = time.monotonic()
        assert leaver.leave_for_now(flush=1.0)
        leaver.close(flush=0)
        # both others heard it, and pause on Ben when they need him: in seconds, not minutes
        # (the events are drained by each peer's thread after its pump: wait for both)
        assert _wait(lambda: all(p.paused and "away:1" in events[i]
                                 for i, p in others.items()), 20.0), \
            [(p.stopped, events[i][-3:]) for i, p in others.items()]
        assert time.monotonic() - t0 < 20.0
        for i, p in others.items():
            assert "away:1" in events[i], events[i]
            assert p.silent_seat() == 1 and p.quit_for_now(1) and not p.quit_for_now(2)
            why = p.stop_why or {}
            assert why.get("id") == "unresponsive" and why.get("away") is True, why
            assert not p.rlog.error          # leaving is allowed: nobody blamed

        # Ben resumes: the table goes on to the end of the match
        back = resume_peer(table_dir(tmp_path / "seat1", cfg.table_id), ids[1],
                           controller=make_bot("heuristic", 99), options=opts)
        # a copy of his AWAY replayed now names the session he left: refused
        stale = wire.encode_away(ids[1], cfg.table_id, leaver.node.session)  # type: ignore[attr-defined]
        # (and Ann's log has heard him back: until its pump thread has, an AWAY is a
        # repeat of the one it holds, ignored without a drop; a loaded machine got there)
        assert _wait(lambda: peers[0].node.remote_session(node_id_for(ids[1].public_key))
                     == back.node.session    # type: ignore[attr-defined]
                     and not peers[0].quit_for_now(1), 20.0)
        peers[0]._on_payload(node_id_for(ids[1].public_key), stale)
        assert any(reason == "stale-away" for (_who, reason) in peers[0].drops)
        assert back.run(90)
        assert not peers[0].quit_for_now(1)        # he answered again
        back.linger(0.5)
        for t in th:
            t.join(120)
    finally:
        stop.set()
        for t in th:
            t.join(10)
        for p in others.values():
            p.close(flush=0.5)
        if back is not None:
            back.close(flush=0.5)
    assert finished == {0: True, 2: True}
    assert events[0].count("away:1") == 1


def test_an_away_not_signed_by_the_seat_or_for_another_table_is_dropped(
        tmp_path: Path) -> None:
    cfg, ids = make_table(preset("classic"), Seating.solo(2), ["Ann", "Ben"], b"away/forged")
    peers = socket_peers(tmp_path, cfg, ids, FAST)
    try:
        ann, ben = peers
        ben_node = node_id_for(ids[1].public_key)
        session = ben.node.session  # type: ignore[attr-defined]
        forged = wire.encode_away(Identity.from_seed(b"\x07" * 32), cfg.table_id, session)
        other_table = wire.encode_away(ids[1], b"another table id", session)
        ann._on_payload(ben_node, forged)
        ann._on_payload(ben_node, other_table)
        ann._on_payload(ben_node, wire.pack([wire.AWAY, b"\x93", 5]))
        reasons = [reason for (_who, reason) in ann.drops]
        assert "bad-signature" in reasons and "foreign-table" in reasons
        assert "malformed" in reasons
        assert not any(e.kind == "away" for e in ann.drain_events())
        assert ann.stopped is None
    finally:
        for p in peers:
            p.close(flush=0)


def test_a_seat_that_says_away_and_goes_on_writing_is_not_away(tmp_path: Path) -> None:
    """A peer that sends AWAY and keeps playing (a mistake, or a lie) pauses the table at
    most once: its next entry shows it is there, and the table stops treating it as
    gone (it paused on every one of its steps before)."""
    cfg, ids = make_table(preset("modern", match_target=1), Seating.solo(2),
                          ["Ann", "Ben"], b"away/liar")
    opts = dataclasses.replace(FAST, step_limit=60.0)
    ann, ben = socket_peers(tmp_path, cfg, ids, opts, transport=SLOW_TO_NOTICE)
    kinds: list[str] = []
    done = threading.Event()

    def run_ann() -> None:
        while not done.is_set() and (ann.pump(0.05) or ann.paused):
            kinds.extend(e.kind for e in ann.drain_events())
        kinds.extend(e.kind for e in ann.drain_events())
        ann.linger(0.5)

    t = threading.Thread(target=run_ann)
    t.start()
    try:
        while ben.entries_applied < 60:
            ben.pump(0.02)
        assert ben.leave_for_now(flush=0.5)
        assert ben.run(90)
        ben.linger(0.5)
        t.join(60)
    finally:
        done.set()
        t.join(10)
        ann.close(flush=0)
        ben.close(flush=0)
    assert ann.finished and not ann.quit_for_now(1)
    assert kinds.count("away") == 1 and kinds.count("back") <= 1, kinds


def test_a_seat_that_quit_stays_away_while_the_transport_calls_it_slow(
        tmp_path: Path) -> None:
    """After an AWAY the transport calls the seat "slow", then "gone": "slow" is no sign
    of it being back (it cleared the AWAY, and the console then said "has gone silent")."""
    cfg, ids = make_table(preset("classic"), Seating.solo(2), ["Ann", "Ben"], b"away/slow")
    quick = TransportConfig(slow_after=0.2, gone_after=30.0)
    ann, ben = socket_peers(tmp_path, cfg, ids, FAST, transport=quick)
    try:
        assert _wait(lambda: (ann.pump(0.02), ben.pump(0.02))
                     and ann.peer_state(1) == "connected", 10.0)
        assert ben.leave_for_now(flush=1.0)
        ben.close(flush=0)
        assert _wait(lambda: (ann.pump(0.02), ann.quit_for_now(1))[1], 5.0)
        assert _wait(lambda: (ann.pump(0.02), ann.peer_state(1) == "slow")[1], 5.0)
        for _ in range(10):
            ann.pump(0.02)
        assert ann.quit_for_now(1)
    finally:
        ann.close(flush=0)
