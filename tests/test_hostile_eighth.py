"""Eighth hostile pass (2026-12-05): a hostile machine on the LAN against real millebornes
peers, real ZeroMQ sockets on loopback. What must hold: an honest player is never blamed;
no input stops a peer (no traceback, no unbounded wait, no unbounded memory); every wait
has a limit.

Findings (each test here failed before its fix):

* a plain (not CURVE) node let connections hold unfinished messages up to limits sized by
  ``ZMQ_MAXMSGSIZE`` (about twice the largest honest frame): a connection claiming a
  peer's routing id (a claim only, on a plain node) could hold 4.3 MiB of empty parts,
  and the strangers together 2.3 MiB, each part costing libzmq about 60 bytes of memory
  (measured: six connections claiming the ids of a table's three peers took a node from
  40 to 244 MB and held it; sixteen strangers, 40 to 125 MB). The limits are now what an
  honest frame needs (``max_frame``, not ``ZMQ_MAXMSGSIZE``).
"""

from __future__ import annotations

import os
import socket
import time

import pytest

from p2p.hostile import closed_by_peer, recv_exact, zmtp_greeting, zmtp_property
from p2p.net.conn_guard import ConnGuard
from p2p.net.frames import HELLO, SESSION_LEN, pack_frame
from p2p.net.interface import TransportConfig
from p2p.net.transport import Node

guarded = pytest.mark.skipif(not ConnGuard.supported(),
                             reason="the guard needs Linux's TCP_INFO byte counts")


def _null_dealer(port: int, identity: bytes) -> socket.socket:
    """A ZMTP 3.0 NULL DEALER written by hand, under a routing id of its choosing."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(zmtp_greeting(b"NULL"))
    recv_exact(s, 64)
    body = (b"\x05READY" + zmtp_property(b"Socket-Type", b"DEALER")
            + zmtp_property(b"Identity", identity))
    s.sendall(b"\x04" + bytes([len(body)]) + body)
    return s


def _exchange(sender: Node, receiver: Node, payload: bytes, count: int) -> int:
    """Send ``count`` payloads and count those received within 20 s."""
    for _ in range(count):
        sender.send(receiver.node_id, payload)
    got = 0
    end = time.monotonic() + 20
    while got < count and time.monotonic() < end:
        m = receiver.recv(0.5)
        got += m == (sender.node_id, payload)
    return got


# ------------------------------------ unfinished parts: limits an honest frame needs
@guarded
def test_unfinished_limits_are_what_an_honest_frame_needs() -> None:
    """The bounds on unfinished messages follow the largest frame an honest peer sends
    (``max_frame``), not ``ZMQ_MAXMSGSIZE`` (twice that, for frames that are dropped
    anyway): a part costs libzmq about 60 bytes of memory however small on the wire."""
    cfg = TransportConfig()
    assert cfg.unfinished_limit <= 2 * cfg.max_frame + (64 << 10)
    assert cfg.strangers_unfinished_limit <= cfg.max_frame + (64 << 10)


@guarded
def test_a_connection_claiming_a_peers_id_cannot_hold_twice_an_honest_frame() -> None:
    """On a plain node a routing id is a claim: a connection naming a peer's id finishes
    one message, then sends empty parts with MORE, more than two honest frames' worth but
    under the old limit, and waits (it held 30 times its bytes in libzmq's memory). It is
    cut now; an honest peer's largest payloads still pass."""
    cfg = TransportConfig(max_payload=64 * 1024)
    held = 2 * cfg.max_frame + (100 << 10)           # 228 KiB: under the old 520 KiB
    assert held > cfg.unfinished_limit
    with Node(b"victim", config=cfg) as victim, Node(b"honest", config=cfg) as honest:
        honest.add_peer(b"victim", victim.endpoint)
        victim.add_peer(b"honest", honest.endpoint)
        victim.add_peer(b"peer1", "tcp://127.0.0.1:9")
        s = _null_dealer(victim.port, b"peer1")
        try:
            hello = pack_frame([HELLO, os.urandom(SESSION_LEN), 9, "127.0.0.1"])
            s.sendall(b"\x00" + bytes([len(hello)]) + hello)     # a finished message
            time.sleep(0.3)
            s.sendall(b"\x01\x00" * (held // 2))
            assert closed_by_peer(s, 3.0), "the connection still holds its parts"
            assert _exchange(honest, victim, os.urandom(cfg.max_payload), 10) == 10
        finally:
            s.close()


@guarded
def test_strangers_together_cannot_hold_more_than_one_honest_frame() -> None:
    """Strangers' connections each hold empty parts, together more than one honest frame
    but under the old bound of theirs (2·max_payload + 260 KiB); some are cut now, and an
    honest peer's largest payloads pass."""
    cfg = TransportConfig(max_payload=64 * 1024)
    per = 60 << 10
    socks = []
    with Node(b"victim", config=cfg) as victim, Node(b"honest", config=cfg) as honest:
        honest.add_peer(b"victim", victim.endpoint)
        victim.add_peer(b"honest", honest.endpoint)
        try:
            for _ in range(4):                        # 240 KiB: under the old 388 KiB
                s = _null_dealer(victim.port, b"m" + os.urandom(8))
                s.sendall(b"\x01\x00" * (per // 2))
                socks.append(s)
            assert 4 * per > cfg.strangers_unfinished_limit
            open_ = [s for s in socks if not closed_by_peer(s, 3.0)]
            assert len(open_) * per <= cfg.strangers_unfinished_limit, len(open_)
            assert _exchange(honest, victim, os.urandom(cfg.max_payload), 10) == 10
        finally:
            for s in socks:
                s.close()
