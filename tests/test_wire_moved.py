"""A seated peer that comes back from a new address (DHCP or VPN change, then ``resume``)
is followed there, but only on its own proof: under CURVE its bound key, on plain ZeroMQ
its signature of where it listens.  A stranger, or another seat, claiming a seat's id
with a new endpoint moves nothing.  Real sockets; 127.0.0.2 is a loopback address on
Linux."""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from p2p.crypto.identity import Identity
from p2p.hostile import HostileSocket
from p2p.net.frames import HELLO, SESSION_LEN, pack_frame
from p2p.net.interface import PeerEventKind, PeerStatus, TransportConfig
from p2p.net.reliable import endpoint_statement
from p2p.net.transport import Node
from p2p.table.session import _signed_by_node, node_id_for


def _loopback2() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        with socket.socket() as s:
            s.bind(("127.0.0.2", 0))
        return True
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not _loopback2(), reason="127.0.0.2 is not usable here")

FAST = TransportConfig(rto_initial=0.05, hb_interval=0.05, slow_after=0.25, gone_after=0.6)


def wait_until(pred: Callable[[], bool], timeout: float = 8.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return pred()


def _node(ident: Identity, bind: str = "127.0.0.1", port: int = 0, curve: bool = False,
          config: TransportConfig = FAST) -> Node:
    n = Node(node_id_for(ident.public_key), bind=bind, port=port, config=config,
             curve=ident.curve_keys() if curve else None)
    n.prove_endpoint(ident.sign, _signed_by_node)
    return n


def _admit_each_other(a: Node, b: Node, alice: Identity, bob: Identity) -> None:
    """Under CURVE: each node admits only the other's key (a seated table)."""
    a.expect_key(b.node_id, bob.curve_keys().public)
    b.expect_key(a.node_id, alice.curve_keys().public)
    a.set_admission(False)
    b.set_admission(False)


@pytest.fixture
def pair(request: pytest.FixtureRequest) -> Iterator[tuple[Identity, Identity, list[Node]]]:
    """Alice and Bob, each a node that knows the other (``param``: under CURVE)."""
    curve = bool(getattr(request, "param", False))
    alice, bob = Identity.generate(), Identity.generate()
    made = [_node(alice, curve=curve), _node(bob, curve=curve)]
    a, b = made
    if curve:
        _admit_each_other(a, b, alice, bob)
    a.add_peer(b.node_id, b.endpoint)
    b.add_peer(a.node_id, a.endpoint)
    assert wait_until(lambda: b.peer_status(a.node_id) is PeerStatus.CONNECTED
                      and a.peer_status(b.node_id) is PeerStatus.CONNECTED)
    yield alice, bob, made
    for n in made:
        n.close()


def _roundtrip(x: Node, y: Node, payload: bytes) -> bool:
    x.send(y.node_id, payload)
    end = time.monotonic() + 8
    while time.monotonic() < end:
        m = y.recv(0.2)
        if m == (x.node_id, payload):
            return True
    return False


@pytest.mark.parametrize("pair", [False, True], indirect=True, ids=["plain", "curve"])
def test_peer_back_from_a_new_address_is_followed(
        pair: tuple[Identity, Identity, list[Node]]) -> None:
    alice, _bob, made = pair
    a, b = made
    port, old = a.port, a.endpoint
    a.close()
    a2 = _node(alice, bind="127.0.0.2", port=port, curve=a.curve is not None)
    made.append(a2)
    if a.curve is not None:
        a2.expect_key(b.node_id, _bob.curve_keys().public)
        a2.set_admission(False)
    a2.add_peer(b.node_id, b.endpoint)
    assert wait_until(lambda: b.endpoint_of(a2.node_id) == a2.endpoint), \
        f"Bob still sends to {b.endpoint_of(a2.node_id)}, not {a2.endpoint} (was {old})"
    assert any(e.kind is PeerEventKind.MOVED and e.endpoint == a2.endpoint
               for e in b.events())
    # both ways: Bob's frames (and acks) now reach Alice at her new address
    assert _roundtrip(b, a2, b"to the new address")
    assert _roundtrip(a2, b, b"from the new address")


@pytest.mark.parametrize("curve", [False, True], ids=["plain", "curve"])
def test_peer_that_moved_while_we_were_away_is_found_where_it_says_it_listens(
        curve: bool) -> None:
    """Bob dials Alice where he last knew her (a resume, a stored endpoint); she already
    listens elsewhere, so the first HELLO he hears from her is not a *change* of what she
    advertises, and he kept sending into the void until the table stopped (the CI flake
    of 2026-12-04).  Now his stalled connection tries where she says she listens."""
    alice, bob = Identity.generate(), Identity.generate()
    cfg = TransportConfig(rto_initial=0.05, hb_interval=0.05, slow_after=0.25,
                          gone_after=5.0, reopen_after=0.4)
    made: list[Node] = []
    try:
        for ident, bind in ((alice, "127.0.0.2"), (bob, "127.0.0.1")):
            made.append(_node(ident, bind=bind, curve=curve, config=cfg))
        a, b = made
        if curve:
            _admit_each_other(a, b, alice, bob)
        stale = f"tcp://127.0.0.1:{a.port}"      # where she listened before: nobody now
        b.add_peer(a.node_id, stale)
        a.add_peer(b.node_id, b.endpoint)
        b.send(a.node_id, b"hello from the old address book")
        assert wait_until(lambda: b.endpoint_of(a.node_id) == a.endpoint), \
            f"Bob still sends to {b.endpoint_of(a.node_id)}, not {a.endpoint}"
        m = None
        end = time.monotonic() + 8
        while m is None and time.monotonic() < end:
            m = a.recv(0.2)
        assert m == (b.node_id, b"hello from the old address book")
        assert wait_until(lambda: any(e.kind is PeerEventKind.MOVED and e.endpoint == a.endpoint
                                      for e in b.events()))
        assert _roundtrip(a, b, b"and back")
    finally:
        for n in made:
            n.close()


@pytest.mark.parametrize("proof", ["none", "garbage", "other statement", "another seat"])
def test_unproven_hello_does_not_move_a_peer(
        pair: tuple[Identity, Identity, list[Node]], proof: str) -> None:
    """Plain ZeroMQ: anyone can send under Alice's routing id; without her signature of
    the new endpoint (or with a signature of another statement, or by another seat)
    Bob's connection to her stays where it is."""
    alice, bob, (a, b) = pair
    session = os.urandom(SESSION_LEN)
    sig: bytes | None = {
        "none": None,
        "garbage": os.urandom(64),
        # her genuine statement, for her own session and address, replayed elsewhere
        "other statement": alice.sign(endpoint_statement(a.node_id, a.session, a.port,
                                                          "127.0.0.1")),
        "another seat": bob.sign(endpoint_statement(a.node_id, session, a.port, "127.0.0.2")),
    }[proof]
    frame = [HELLO, session, a.port, "127.0.0.2"] + ([sig] if sig is not None else [])
    # a new session is taken at most every restart_every: the HELLO is judged for its
    # move, not refused as a restart too soon after the first
    time.sleep(b.config.restart_every)
    with HostileSocket(b.endpoint, a.node_id + b"#" + os.urandom(8)) as h:
        for _ in range(3):
            assert h.send(pack_frame(frame))
            time.sleep(0.05)
    assert wait_until(lambda: b.stats().get(a.node_id, {}).get("unproven_move", 0) >= 1)
    assert b.endpoint_of(a.node_id) == a.endpoint
    assert not any(e.kind is PeerEventKind.MOVED for e in b.events())


def test_curve_another_key_cannot_move_a_seat() -> None:
    """Under CURVE a HELLO under Alice's id from any other key (a stranger, or Carol's
    seated key) is dropped as ``spoofed`` before it could move anything."""
    alice, bob, carol = Identity.generate(), Identity.generate(), Identity.generate()
    a, b = _node(alice, curve=True), _node(bob, curve=True)
    try:
        for x, y, yid in ((a, b, bob), (b, a, alice)):
            x.expect_key(y.node_id, yid.curve_keys().public)
            x.set_admission(False)
        b.expect_key(node_id_for(carol.public_key), carol.curve_keys().public)
        a.add_peer(b.node_id, b.endpoint)
        b.add_peer(a.node_id, a.endpoint)
        assert wait_until(lambda: b.peer_status(a.node_id) is PeerStatus.CONNECTED)
        ck = carol.curve_keys()
        sig = alice.sign(endpoint_statement(a.node_id, a.session, a.port, "127.0.0.2"))
        hello = pack_frame([HELLO, os.urandom(SESSION_LEN), a.port, "127.0.0.2", sig])
        with HostileSocket(b.endpoint, a.node_id + b"#" + os.urandom(8),
                           server_key=bob.curve_keys().public,
                           keypair=(ck.public, ck.secret)) as h:
            for _ in range(3):
                h.send(hello)
                time.sleep(0.05)
        assert wait_until(lambda: b.stats().get(a.node_id, {}).get("spoofed", 0) >= 1)
        assert b.endpoint_of(a.node_id) == a.endpoint
    finally:
        a.close()
        b.close()


@pytest.mark.slow
def test_table_goes_on_when_a_seat_resumes_from_a_new_address(tmp_path: Path) -> None:
    """Hostile review 2026-12-03, finding 4: seat 0 closes mid-hand and resumes on
    127.0.0.2 (same port); seat 1 keeps running.  It used to send everything to the old
    address, and seat 0 named it unresponsive; now the match finishes."""
    from engine import Seating, preset
    from engine.bots import make_bot
    from p2p.table.memory import make_table
    from p2p.table.session import SessionOptions, resume_peer
    from p2p.testing import socket_peers

    cfg, ids = make_table(preset("modern", match_target=1), Seating.solo(2),
                          ["alice", "bob"], b"wire-moved")
    opts = SessionOptions(response_delay=0.01, stall_after=0.3)
    p0, p1 = socket_peers(tmp_path, cfg, ids, opts)
    port0 = p0.node.port
    peers = {0: p0, 1: p1}
    stop = {0: threading.Event(), 1: threading.Event()}

    def run(i: int) -> None:
        while not stop[i].is_set() and not peers[i].finished and peers[i].stopped is None:
            peers[i].pump(0.02)

    th = {i: threading.Thread(target=run, args=(i,)) for i in (0, 1)}
    for t in th.values():
        t.start()
    q0 = None
    try:
        assert wait_until(lambda: sum(len(v) for v in p0.log.values()) >= 60, 30)
        stop[0].set()
        th[0].join()
        p0.close(flush=0)
        q0 = resume_peer(tmp_path / "seat0" / cfg.table_id.hex(), ids[0],
                         controller=make_bot("heuristic", 11), options=opts,
                         node_factory=lambda nid, bind, port: Node(nid, bind="127.0.0.2",
                                                                   port=port0))
        peers[0] = q0
        stop[0] = threading.Event()
        th[0] = threading.Thread(target=run, args=(0,))
        th[0].start()
        assert wait_until(lambda: (q0.finished and p1.finished) or q0.stopped is not None
                          or p1.stopped is not None, 40)
        assert q0.stopped is None and p1.stopped is None, (q0.stopped, p1.stopped)
        assert q0.finished and p1.finished
        assert p1.node.endpoint_of(q0.node.node_id) == q0.node.endpoint  # type: ignore[attr-defined]
        # the new address is stored (a resume of seat 1 looks for seat 0 there first)
        from p2p.table.store import read_meta
        assert read_meta(p1.store.path)["endpoints"]["0"] == q0.node.endpoint
    finally:
        for i in (0, 1):
            stop[i].set()
            th[i].join()
        if q0 is not None:
            q0.close(flush=0)
        p1.close(flush=0)


def test_core_follows_a_proven_wildcard_peer_by_its_source_address() -> None:
    """A node bound to all interfaces advertises no host: under CURVE (``proven``) its new
    source address stands for it; unproven (plain ZeroMQ), nothing moves."""
    from p2p.net.reliable import MOVE_EVERY, ReliableCore

    sent: list[tuple[bytes, bytes]] = []
    for proven in (True, False):
        core = ReliableCore(b"mbob", TransportConfig(), lambda d, f: sent.append((d, f)) or True)
        core.add_peer(b"malice", "tcp://10.0.0.5:4000", 0.0)
        s1, s2 = os.urandom(SESSION_LEN), os.urandom(SESSION_LEN)
        core.on_frame(b"malice", pack_frame([HELLO, s1, 4000, None]), 1.0, "10.0.0.5",
                      proven=proven)
        core.on_frame(b"malice", pack_frame([HELLO, s2, 4000, None]), 1.0 + MOVE_EVERY,
                      "10.0.0.9", proven=proven)
        moved = core.endpoint_of(b"malice") == "tcp://10.0.0.9:4000"
        assert moved is proven
        assert list(core.moves) == ([(b"malice", "tcp://10.0.0.9:4000")] if proven else [])


def test_core_tries_the_advertised_endpoint_of_a_stalled_peer_whose_first_hello_it_missed(
) -> None:
    """CI flake of 2026-12-04, explained: alice's first session lived under one heartbeat
    and her only HELLO came before bob had added her, so bob never learnt where she said
    she listened.  She then restarted at a new address: to bob that first advertisement
    looked like where a forwarded peer says it is (no move), and bob kept sending to the
    dead address until the table stopped.  A peer that acknowledges nothing is now tried
    where it says it listens; its answer there settles the move."""
    from p2p.net.frames import ACK
    from p2p.net.reliable import ReliableCore

    sent: list[tuple[bytes, bytes]] = []
    core = ReliableCore(b"mbob", TransportConfig(), lambda d, f: sent.append((d, f)) or True)
    core.add_peer(b"malice", "tcp://10.0.0.5:4000", 0.0)
    core.enqueue(b"malice", b"move 1")
    core.tick(0.1)                                  # sent to the old address, never acked
    s2 = os.urandom(SESSION_LEN)
    core.on_frame(b"malice", pack_frame([HELLO, s2, 4000, "10.0.0.9"]), 1.0, proven=True)
    assert core.endpoint_of(b"malice") == "tcp://10.0.0.5:4000"   # a first word: no move
    assert core.stalled(4.0, 3.0) == [b"malice"]
    assert core.reach_stalled(b"malice") == "tcp://10.0.0.9:4000"
    core.tick(4.0)
    assert not [e for e in core.pop_events() if e.kind is PeerEventKind.MOVED]
    core.on_frame(b"malice", pack_frame([ACK, s2, core.session, 1, b""]), 4.1)
    moved = [e for e in core.pop_events() if e.kind is PeerEventKind.MOVED]
    assert [e.endpoint for e in moved] == ["tcp://10.0.0.9:4000"]
    assert core.reach_stalled(b"malice") == "tcp://10.0.0.9:4000"  # settled there


def test_core_goes_back_to_the_dialled_endpoint_when_the_advertised_one_stalls_too() -> None:
    """A peer behind a forwarded address advertises its own, unreachable one: a stall
    (a network blip) tries it, and the next stall goes back to the address that
    worked, so the forwarded peer is never lost for good."""
    from p2p.net.reliable import ReliableCore

    core = ReliableCore(b"mbob", TransportConfig(), lambda d, f: True)
    core.add_peer(b"malice", "tcp://198.51.100.7:4000", 0.0)
    s1 = os.urandom(SESSION_LEN)
    core.on_frame(b"malice", pack_frame([HELLO, s1, 4000, "192.168.1.20"]), 0.5, proven=True)
    assert core.endpoint_of(b"malice") == "tcp://198.51.100.7:4000"
    assert core.reach_stalled(b"malice") == "tcp://192.168.1.20:4000"
    assert core.reach_stalled(b"malice") == "tcp://198.51.100.7:4000"
    assert core.reach_stalled(b"malice") == "tcp://192.168.1.20:4000"
    assert not [e for e in core.pop_events() if e.kind is PeerEventKind.MOVED]
