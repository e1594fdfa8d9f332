"""Hostile pass 15: what a peer says, read from another thread, and what ``verify`` of
its transcript says (docs/protocol.md). Each test failed before its fix."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from engine import Seating, preset
from engine.bots import make_bot
from p2p.table import Peer, RunState, SessionOptions, make_table
from p2p.table.session import node_id_for
from p2p.table.store import Store
from p2p.testing import MemoryNetwork, MemoryNode, Pumping

QUICK = SessionOptions(response_delay=0.0, stall_after=0.05, step_limit=0.3)


def _two_seats(tmp_path: Path, name: bytes) -> list[Peer]:
    cfg, ids = make_table(preset("modern"), Seating.solo(2), ["ann", "bo"], name)
    net = MemoryNetwork()
    nodes = [MemoryNode(net, node_id_for(i.public_key)) for i in ids]
    peers = []
    for s in range(2):
        d = tmp_path / f"s{s}"
        d.mkdir()
        peers.append(Peer(ids[s], cfg, nodes[s], controller=make_bot("heuristic", s),
                          endpoints={o: nodes[o].endpoint for o in range(2) if o != s},
                          options=QUICK, store=Store.create(d, cfg.header(), s, port=0)))
    return peers


class _LiftedAtTheLook(Peer):
    """A peer whose pause lifts at the instant another thread looks whether it is paused
    (``lift`` runs there once: the silent seat's late step arrives, as it would from the
    pump of another thread between two reads)."""

    lift: object = None

    def _lift_once(self) -> None:
        lift, self.lift = self.lift, None
        if callable(lift):
            lift()

    @property
    def paused(self) -> bool:
        if self._state.paused and threading.current_thread() is not threading.main_thread():
            self._lift_once()
        return super().paused

    @property
    def state(self) -> RunState:
        if self._state.paused and threading.current_thread() is not threading.main_thread():
            self._lift_once()
        return super().state


def _paused_on_bo_who_comes_back_at_the_look(ann: Peer, bo: Peer) -> threading.Event:
    """Ann's table pauses on Bo (his computer does not pump: unresponsive); from then on
    his late step lifts the pause at the instant another thread than this one looks
    whether Ann is paused (:class:`_LiftedAtTheLook`). The event is set once it has."""
    ann.__class__ = _LiftedAtTheLook
    assert isinstance(ann, _LiftedAtTheLook)
    lifted = threading.Event()

    def bo_comes_back() -> None:
        for _ in range(50):             # Bo catches up and writes his late step
            bo.pump(0.01)
            ann.pump(0.01)              # ... and it reaches Ann: the pause lifts
            if ann.stopped is None:
                break
        lifted.set()

    end = time.monotonic() + 10
    while not (ann.stopped and ann.paused) and time.monotonic() < end:
        ann.pump(0.02)
    assert ann.paused and (ann.stop_why or {}).get("id") == "unresponsive", ann.stopped
    ann.lift = bo_comes_back
    return lifted


def _both_finish_once_lifted(ann: Peer, bo: Peer, lifted: threading.Event,
                             pumps: Pumping) -> None:
    """The pause lifted (Ann pumped by another thread than this one), Bo is pumped too:
    both tables must finish (Ann's pump went on through the lifted pause)."""
    assert lifted.wait(10)
    assert ann.stopped is None, ann.stopped
    pumps.add(bo)
    end = time.monotonic() + 20
    while not (ann.finished and bo.finished) and time.monotonic() < end:
        time.sleep(0.02)
    assert ann.finished and bo.finished, (ann.stopped, bo.stopped)


def test_a_pause_lifted_between_two_looks_does_not_end_the_test_pump(
        tmp_path: Path) -> None:
    """Ann's table pauses on Bo (his computer does not pump: unresponsive). Bo's late
    step lifts the pause at the instant Ann's pump thread looks whether to go on. The
    thread read ``stopped`` (the pause's), then ``paused`` (False: lifted since):
    "stopped and not paused", over for good, and the thread ended; Ann never wrote again
    and the match never finished. The thread now takes one look (``Peer.state``)."""
    ann, bo = _two_seats(tmp_path, b"h15/lift-between-looks")
    lifted = _paused_on_bo_who_comes_back_at_the_look(ann, bo)
    pumps = Pumping([ann])
    try:
        _both_finish_once_lifted(ann, bo, lifted, pumps)
    finally:
        pumps.stop()
        for p in (ann, bo):
            p.close(flush=0)


def test_run_goes_on_through_a_pause_lifted_between_two_looks(tmp_path: Path) -> None:
    """``Peer.run`` (a bot's seat) read ``pump()``'s answer, then ``paused``: a pause
    lifted between the two ended its loop ("stopped", not paused) though the match went
    on. It now takes one look after each pump."""
    ann, bo = _two_seats(tmp_path, b"h15/run-lift-between-looks")
    lifted = _paused_on_bo_who_comes_back_at_the_look(ann, bo)
    done: list[bool] = []
    runner = threading.Thread(target=lambda: done.append(ann.run(timeout=20, pause_wait=5)),
                              daemon=True)
    runner.start()
    pumps: Pumping | None = None
    try:
        assert lifted.wait(10)
        pumps = Pumping([bo])
        runner.join(25)
        assert done == [True], (done, ann.stopped, bo.stopped)
    finally:
        if pumps is not None:
            pumps.stop()
        runner.join(5)
        for p in (ann, bo):
            p.close(flush=0)


def test_a_leave_record_after_a_pause_on_its_seat_is_the_stop_live_and_by_verify(
        tmp_path: Path) -> None:
    """Seat 2 falls silent: seats 0 and 1 pause on it (unresponsive, signed claims). Then
    its player's leave record arrives. ``verify`` of their transcripts says "seat 2 (p2)
    left the table" (a leave record explains the end before any claim); the live peers
    kept "seat 2 (p2) is unresponsive" as their stop, over for good now (the record
    ended the pause) and said in other words than ``verify``'s. The record's stop
    replaces a pause's, as a proven cheat's does: both say p2 left, nobody blamed."""
    from test_hostile_fourteenth import _push_from_away, _verify
    from test_takeover import _stopped

    from p2p.transcript.envelope import Envelope

    t = _stopped(b"h15/leave-after-pause")
    z = t.seats[2].rlog
    a = Envelope.create(z.identity, z.table_id, t.seats[0].rlog.hand_no, 0,
                        z.verifier.head, {"k": "side.abandon", "reason": "bye"})
    _push_from_away(t, a)
    for s in (0, 1):
        r = t.seats[s].rlog
        assert r.stopped == "seat 2 (p2) abandoned the match: bye", (s, r.stopped)
        assert (r.stop_why or {}).get("id") == "abandoned" and r.error is None
        assert not r.resumable and r.unresponsive is None
        rep = _verify(tmp_path, t, s, f"v{s}")
        assert rep.blamed_seat is None and rep.abandoned_by == 2, rep.summary()


def _one_finished_hand_0(name: bytes) -> tuple[object, int, int]:
    """Three seats, a long match; messages delivered one at a time until one honest seat
    (0 or 1) has finished hand 0 while the other has not. Returns (table, ahead,
    behind)."""
    from test_replicated_log import Table

    from p2p.table.memory import make_table as _make
    from p2p.testing import FakeClock

    cfg, ids = _make(preset("modern", match_target=5000), Seating.solo(3), ["p0", "p1", "p2"], name)
    t = Table(cfg, ids, FakeClock())
    for _ in range(100_000):
        t.write_turns()
        if not t.wire:
            break
        src, dst, payload = t.wire.pop(0)
        t.seats[dst].rlog.on_message(t.node_of[src], payload)
        t.collect(dst)
        hands = [t.seats[s].rlog.hand_no for s in (0, 1)]
        if sorted(hands) == [0, 1]:
            ahead = hands.index(1)
            return t, ahead, 1 - ahead
        assert hands != [1, 1], "both honest seats finished hand 0 together"
    raise AssertionError("hand 0 never finished")


def test_a_complaint_about_a_share_of_a_hand_one_peer_finished_is_judged_by_both(
        tmp_path: Path) -> None:
    """Seat 2 complains (falsely) about seat 0's valid share of hand 0 when one honest
    peer has finished hand 0 and the other has not. The second judged it (seat 2 blamed,
    unfounded); the first set it aside (it held no deck of a finished hand), waited for
    the second, who had stopped, and would name it unresponsive: two honest peers, two
    verdicts. A peer keeps the deck of the hand it finished last, and judges such a
    complaint as the second does; ``verify`` of its transcript too."""
    from test_hostile_fourteenth import _verify

    from p2p.table import wire
    from p2p.transcript.envelope import Envelope

    t, ahead, behind = _one_finished_hand_0(b"h15/complaint-across-hands")
    rl = t.seats[behind].rlog
    share = next(e for e in (Envelope.decode(r) for r in rl.log[0])
                 if e.body.get("k") == "deck.share" and e.author == rl.keys[0])
    z = t.seats[2].rlog
    c = Envelope.create(z.identity, z.table_id, 0, 0, z.verifier.head,
                        {"k": "side.complaint", "check": "share-proof",
                         "entry": share.encode()})
    for d in (ahead, behind):
        t.seats[d].rlog.on_message(t.node_of[2], wire.encode_push([c.encode()])[0])
        t.collect(d)
    for s in (ahead, behind):
        r = t.seats[s].rlog
        assert r.error is not None and r.error.seat == 2, (s, r.error, r.stopped)
        assert (r.stop_why or {}).get("id") == "valid-share-complaint", (s, r.stop_why)
        rep = _verify(tmp_path, t, s, f"v{s}")
        assert rep.blamed_seat == 2, (s, rep.summary())


def test_a_pause_lifted_between_two_looks_does_not_end_the_consoles_pump(
        tmp_path: Path) -> None:
    """The console's pump thread (``NetDriver(background=True)``) went on while
    ``pump() or paused``: at the instant Bo's late step lifted the pause, ``pump()`` had
    said "stopped" and ``paused`` then said False: the thread ended (a linger, then
    nothing), Ann's seat never wrote again and her screen waited for ever. It now takes
    one look (``Peer.state``), as the test pump does."""
    from cli.netdriver import NetDriver

    ann, bo = _two_seats(tmp_path, b"h15/lift-console-pump")
    lifted = _paused_on_bo_who_comes_back_at_the_look(ann, bo)
    driver = NetDriver(ann, background=True)
    pumps = Pumping([])
    try:
        _both_finish_once_lifted(ann, bo, lifted, pumps)
        assert driver.over and not driver.ended_early
    finally:
        driver.close()
        pumps.stop()
        for p in (ann, bo):
            p.close(flush=0)
