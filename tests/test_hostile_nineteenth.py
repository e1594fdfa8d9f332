"""Hostile pass 19: inputs that broke a promise (an honest player is never blamed; no
input stops a peer; every wait has a limit), each with the fix's test."""

from __future__ import annotations

from pathlib import Path

import msgpack

from engine import Seating, preset
from engine.bots import make_bot
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
