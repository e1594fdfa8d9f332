"""Hostile pass 19: inputs that broke a promise (an honest player is never blamed; no
input stops a peer; every wait has a limit), each with the fix's test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgpack
import pytest

from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import verify_game
from p2p.table.memory import make_table
from p2p.table.session import ABANDON, Peer, SessionOptions, node_id_for
from p2p.table.store import Store
from p2p.testing import MemoryNetwork, MemoryNode

FAST = SessionOptions(response_delay=0.01, stall_after=0.3)


def _pack(v: object) -> bytes:
    out = msgpack.packb(v, use_bin_type=True)
    assert isinstance(out, bytes)
    return out


# ------------------------------------------------------------------ a deep abandon reason
def test_a_signed_abandon_whose_reason_is_nested_a_thousand_deep_stops_no_peer(
        tmp_path: Path) -> None:
    """A seat's signed ABANDON whose ``reason`` was a list nested 1,000 deep (the wire
    decoder takes up to msgpack's own stack limit) raised RecursionError out of the
    receiving peer's pump: ``read_abandon`` made it text with ``str()``. A reason is text,
    as ``encode_abandon`` writes it: anything else is a malformed abandon, dropped and
    counted, and the same seat's well-formed one still stops the table."""
    cfg, ids = make_table(preset("modern"), Seating.solo(2), ["Ann", "Mal"], b"deep-abandon")
    net = MemoryNetwork()
    n0 = MemoryNode(net, node_id_for(ids[0].public_key))
    evil = MemoryNode(net, node_id_for(ids[1].public_key))
    evil.add_peer(n0.node_id, n0.endpoint)
    p0 = Peer(ids[0], cfg, n0, controller=make_bot("heuristic", 1),
              endpoints={1: evil.endpoint}, options=FAST,
              store=Store.create(tmp_path, cfg.header(), 0, port=0))

    def abandon(reason_bytes: bytes) -> bytes:
        inner = (b"\x84" + _pack("k") + _pack("abandon") + _pack("key")
                 + _pack(ids[1].public_key) + _pack("reason") + reason_bytes
                 + _pack("table") + _pack(cfg.table_id))
        return _pack([ABANDON, inner, ids[1].sign(b"millebornes/abandon/v1\x00" + inner)])

    try:
        for deep in (b"\x91" * 1000 + _pack("x"), b"\x81\xa1r" * 1000 + _pack("x"),
                     _pack(7)):
            evil.send(n0.node_id, abandon(deep))
            for _ in range(10):
                p0.pump(0.01)
            assert p0.stopped is None
        assert any(r == "malformed" for (_s, r) in p0.rlog.drops), p0.rlog.drops
        evil.send(n0.node_id, abandon(_pack("I am off")))
        for _ in range(10):
            p0.pump(0.01)
        assert p0.stopped is not None and "abandoned the match: I am off" in p0.stopped
    finally:
        p0.close(flush=0)


# ------------------------------------------------- a resumed seat and its stored complaint
def _stored_and_resumed(tmp_path: Path, t: Any, seat: int) -> Peer:
    """Seat ``seat``'s persisted entries and secrets written to a real store, then
    ``resume_peer`` of it (its ZeroMQ node on loopback; no other peer is there)."""
    from p2p.table.session import resume_peer

    rl = t.seats[seat].rlog
    store = Store.create(tmp_path / f"seat{seat}", t.cfg.header(), seat, port=0)
    for hand, rec in sorted(rl.secrets.items()):
        store.save_secrets(hand, rec)
    for env in t.seats[seat].persisted:
        store.append(env)
    store.close()
    return resume_peer(store.path, rl.identity, options=FAST)


@pytest.mark.parametrize("cheat", ["equivocation", "bad-share-to-another"])
def test_a_resumed_seat_stops_again_on_the_cheat_its_stored_complaint_proves(
        tmp_path: Path, cheat: str) -> None:
    """A seat that stopped on a proven cheat keeps the proof as a signed complaint in its
    transcript, and ``resume`` replayed the stored log without judging it: the other
    version of an equivocation (two seats) and a bad share sent to another seat (the
    third peer never checks a share that is not its own) are in no stored entry, so the
    resumed seat played on from the cheat, its table then waiting on the cheat's victim
    (who stays stopped) and naming it unresponsive. The stored complaint is judged again
    where the stored log stops, as ``verify`` judges it: the same stop, the same seat."""
    from test_replicated_log import _play_with, _table, bad_share_to

    from p2p.table import wire
    from p2p.transcript.envelope import Envelope

    if cheat == "equivocation":
        t = _table(b"h19/resume-equivocation")
        t.write_turns()                          # seat 0 writes its key share
        env = Envelope.decode(t.seats[0].rlog.log[0][0])
        other = Envelope.create(t.seats[0].rlog.identity, env.table, env.hand, env.seq,
                                env.prev, {**env.body, "x": 1})
        t.deliver()
        t.seats[1].rlog.on_message(t.node_of[0], wire.encode_push([other.encode()])[0])
        t.collect(1)
        seat, cheater, check = 1, 0, "equivocation"
    else:
        t = _table(b"h19/resume-bad-share", n=3)
        bad_share, done = bad_share_to(0)
        _play_with(t, 2, bad_share)
        assert done[0]
        seat, cheater, check = 1, 2, "share-proof"
    live = t.seats[seat].rlog
    assert live.error is not None and (live.error.seat, live.error.check) == (cheater, check)
    peer = _stored_and_resumed(tmp_path, t, seat)
    try:
        back = peer.rlog
        assert back.error is not None, "the resumed seat forgot the cheat it had proven"
        assert (back.error.seat, back.error.check) == (cheater, check)
        assert back.stopped == live.stopped and not back.resumable
        rep = verify_game(peer.store.transcript_path)   # and verify says the same
        assert rep.blamed_seat == cheater, rep.summary()
    finally:
        peer.close(flush=0)


# ------------------------------------------------------- complaints about a far-off hand
def test_a_complaint_about_a_hand_no_log_reaches_is_not_judged_again_at_every_entry(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A complaint whose evidence is a share signed for a later hand waits until the log
    gets there. A hostile seat may sign one a hand (one complaint per seat and hand is
    kept) about a hand no log reaches, and each was judged again after every entry
    applied (decoded, its signature checked: 0.3 ms each), so an honest peer's work per
    entry grew with every hand of the match. It is looked at again only when the hand or
    the seats' keys change (which is all its verdict depends on until then), and the
    verdict stays the same."""
    from test_replicated_log import _table

    from p2p.table.replicated_log import ReplicatedLog
    from p2p.transcript.envelope import Envelope

    t = _table(b"h19/far-complaint", n=3)
    for _ in range(3):
        t.write_turns()
        t.deliver()
    bad = t.seats[2].rlog
    share = Envelope.create(bad.identity, t.cfg.table_id, 10**6, 0, bytes(32),
                            {"k": "deck.share", "seat": 2, "round": 0, "pos": 1, "to": 0,
                             "d": bytes(32), "proof": bytes(64), "card": None})
    bad.write_side({"k": "side.complaint", "check": "share-proof", "entry": share.encode()})
    t.collect(2)
    t.deliver()
    judged: list[int] = []
    real = ReplicatedLog._judge_complaint

    def counting(self: ReplicatedLog, complainer: int, complaint: Envelope) -> None:
        judged.append(self.me)
        real(self, complainer, complaint)

    monkeypatch.setattr(ReplicatedLog, "_judge_complaint", counting)
    before = [len(t.seats[s].rlog.log[0]) for s in (0, 1)]
    t.run()
    for s in (0, 1):
        rl = t.seats[s].rlog
        assert rl.finished and rl.error is None and rl.stopped is None, rl.stopped
        applied = sum(len(v) for v in rl.log.values()) - before[s]
        assert applied > 100
        assert judged.count(s) <= len(rl.log), (judged.count(s), applied)
