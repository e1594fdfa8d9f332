"""The reliable transport on slow links: a VPN, a satellite or mobile link (round trips of
0.3-2 s). Measured by the review of hostile pass 26, left over then:

* the first round through a seat's own addresses waited 1.5 s at each, and a fresh
  connection on a link of 0.45-0.85 s round trips needs about 4 of them before its first
  acknowledgement: the live address was passed over;
* a connection whose handshake goes on was re-opened every 3 s, shorter than the handshake
  at round trips of about 1 s or more: it never connected;
* a backlog longer than 3 s to drain was re-opened and sent whole again at each stall.

The sans-IO tests drive :class:`ReliableCore` with the facts the node's DEALER monitor
gives it (:meth:`ReliableCore.dialled`, :meth:`ReliableCore.link_event`); the slow ones run
real CURVE nodes through :class:`p2p.testing.DelayProxyProcess` (no root, no netem), and
the hostile ones a host's silent port (CURVE) or tarpit (plain ZeroMQ).
"""

from __future__ import annotations

import os
import socket
import time

import pytest

from p2p.crypto.identity import Identity
from p2p.net.frames import ACK, HELLO, SESSION_LEN, pack_frame
from p2p.net.interface import TransportConfig
from p2p.net.reliable import ReliableCore
from p2p.net.transport import Node
from p2p.table.session import node_id_for
from p2p.testing import DelayProxyProcess

# ----------------------------------------------------------------------------- sans-IO

def test_a_backlog_still_draining_is_not_reopened() -> None:
    """Twenty payloads go out at once on a link that carries one every 0.5 s (10 s to
    drain); each is acknowledged as it arrives. The stall counted from when the oldest
    unacknowledged payload first went out, so at 3 s the node re-opened the connection
    (and sent the rest again, on each re-open: 2-3.7 times the bytes on real sockets).
    It counts from the last acknowledgement that moved on now; once they stop, a stall
    comes as before."""
    core = ReliableCore(b"mann", TransportConfig(), lambda d, f: True)
    core.add_peer(b"mbob", "tcp://10.0.0.5:4000", 0.0)
    bob = os.urandom(SESSION_LEN)
    core.on_frame(b"mbob", pack_frame([HELLO, bob, 4000, "10.0.0.5"]), 0.0)
    for i in range(20):
        core.enqueue(b"mbob", b"move %d" % i)
    core.tick(0.0)
    now = 0.0
    while now < 10.0:
        now = round(now + 0.1, 1)
        acked = min(20, int(now / 0.5))
        core.on_frame(b"mbob", pack_frame([ACK, bob, core.session, acked, b""]), now)
        core.tick(now)
        assert core.stalled(now, 3.0) == [], now           # before: at 3.1 s
    assert core.unacked(b"mbob") == 0
    core.enqueue(b"mbob", b"later")
    core.tick(10.0)
    assert core.stalled(12.9, 3.0) == [] and core.stalled(13.1, 3.0) == [b"mbob"]


def _dialled_core(alternatives: int = 0, curve: bool = True) -> ReliableCore:
    core = ReliableCore(b"mann", TransportConfig(), lambda d, f: True)
    core.authenticated_links = curve
    core.add_peer(b"mbob", "tcp://10.0.0.5:4000", 0.0)
    if alternatives:
        core.also_reach(b"mbob", [f"tcp://192.168.{i}.7:4000" for i in range(alternatives)])
    core.dialled(b"mbob", 0.0)
    core.enqueue(b"mbob", b"move")
    core.tick(0.0)
    return core


def test_a_handshake_going_on_is_not_cut_by_a_stall() -> None:
    """At round trips of 1.5 s a CURVE handshake takes 5-7 s: the stall re-opened the
    connection every 3 s, and it never connected (real nodes: no delivery in 40 s). While
    the DEALER's monitor says the TCP connection is up and its handshake goes on, twice
    ``reopen_after`` is waited; each handshake cut short doubles the next wait, up to
    ``handshake_limit`` (the remote ROUTER drops a longer one)."""
    core = _dialled_core()
    core.link_event(b"mbob", "connected", 0.5)
    assert core.stalled(3.5, 3.0) == []                     # before: [b"mbob"]
    assert core.stalled(6.4, 3.0) == [] and core.stalled(6.6, 3.0) == [b"mbob"]
    core.reach_stalled(b"mbob")
    core.dialled(b"mbob", 6.6)                              # cut one handshake short
    core.link_event(b"mbob", "connected", 7.0)
    assert core.stalled(7.0 + 9.9, 3.0) == []               # 12 s, held to 10 s
    assert core.stalled(7.0 + 10.1, 3.0) == [b"mbob"]
    # a handshake that fails is no reason to wait (a ZAP refusal: libzmq never dials
    # again, a re-open is the cure)
    core.dialled(b"mbob", 20.0)
    core.link_event(b"mbob", "connected", 20.1)
    core.link_event(b"mbob", "down", 20.2)
    assert core.stalled(23.1, 3.0) == [b"mbob"]


def test_a_finished_handshake_gets_as_long_again_for_its_first_acknowledgement() -> None:
    """A handshake that took 2.6 s (0.65 s round trips) is a round trip from its first
    acknowledgement: the address waits as long again after it, not 3 s from the dial.
    On a fast link nothing changes (a zombie connection is re-opened after 3 s)."""
    core = _dialled_core()
    core.link_event(b"mbob", "connected", 0.65)
    core.link_event(b"mbob", "ready", 2.6)
    assert core.stall_wait(b"mbob", 3.0) == pytest.approx(5.2)
    assert core.stalled(5.1, 3.0) == [] and core.stalled(5.3, 3.0) == [b"mbob"]
    fast = _dialled_core()
    fast.link_event(b"mbob", "connected", 0.001)
    fast.link_event(b"mbob", "ready", 0.005)
    assert fast.stall_wait(b"mbob", 3.0) == 3.0
    # bounded: a handshake of 9 s (2 s round trips) waits at most the ceiling
    slow = _dialled_core()
    slow.link_event(b"mbob", "connected", 2.0)
    slow.link_event(b"mbob", "ready", 9.0)
    assert slow.stall_wait(b"mbob", 3.0) == slow.stall_ceiling(3.0) == 13.0


def _handshaking_core(curve: bool) -> tuple[ReliableCore, list[bool]]:
    """A core that dialled Bo and queued a frame that cannot leave yet (as a DEALER's
    frames wait for its handshake); append to the list returned to let them leave."""
    up: list[bool] = []
    core = ReliableCore(b"mann", TransportConfig(), lambda d, f: bool(up))
    core.authenticated_links = curve
    core.add_peer(b"mbob", "tcp://10.0.0.5:4000", 0.0)
    core.dialled(b"mbob", 0.0)
    core.enqueue(b"mbob", b"move")
    core.tick(0.0)
    return core, up


def test_one_address_never_holds_a_stall_past_the_ceiling() -> None:
    """Frames leave a DEALER only once its handshake is done, and the stall was timed
    from their first sending: a handshake finished at 9.9 s (TCP up at once) held the
    address 9.9 + 13 s. The wait of the connection dialled last runs from the dial now:
    13 s (``handshake_limit + reopen_after``) at most, as docs/network.md says."""
    core, up = _handshaking_core(curve=True)
    core.link_event(b"mbob", "connected", 0.01)
    core.link_event(b"mbob", "ready", 9.9)
    up.append(True)                             # the handshake done, frames leave
    core.tick(9.9)
    assert core.stall_wait(b"mbob", 3.0) == 13.0
    assert core.stalled(12.9, 3.0) == []
    assert core.stalled(13.1, 3.0) == [b"mbob"]           # before: at 22.9 s


def test_a_plain_handshake_answered_late_earns_no_more_than_its_round_trip() -> None:
    """Plain ZeroMQ: anyone speaks the NULL handshake. A host's tarpit answered it at
    5.8 s, just before the 6 s patience ran out, then swallowed everything: the address
    waited as long again (11.6 s from the dial, 17.4 s timed from the first frame), and a
    seat live at the 8th of its own addresses was reached after 28.9 s, past the 20 s
    step limit. Its TCP connect came at once (a round trip of nothing): it gets a quarter
    of ``reopen_after`` more. An honest slow link (its TCP connect took a round trip of
    1.5 s) still gets two round trips for its first acknowledgement."""
    core, up = _handshaking_core(curve=False)
    core.also_reach(b"mbob", ["tcp://192.168.0.7:4000"])
    core.link_event(b"mbob", "connected", 0.001)
    core.link_event(b"mbob", "ready", 5.8)
    up.append(True)
    core.tick(5.8)
    assert core.stall_wait(b"mbob", 3.0) == pytest.approx(6.55)   # before: 11.6
    assert core.stalled(6.5, 3.0) == [] and core.stalled(6.6, 3.0) == [b"mbob"]
    honest = _dialled_core(curve=False)
    honest.link_event(b"mbob", "connected", 1.5)
    honest.link_event(b"mbob", "ready", 5.0)
    assert honest.stall_wait(b"mbob", 3.0) == pytest.approx(8.0)  # ready + 2 round trips
    fast = _dialled_core(curve=False)
    fast.link_event(b"mbob", "connected", 0.001)
    fast.link_event(b"mbob", "ready", 0.005)
    assert fast.stall_wait(b"mbob", 3.0) == 3.0


def test_the_first_rounds_short_wait_is_only_for_an_address_where_nothing_listens() -> None:
    """Hostile pass 26's half wait (1.5 s) at each of a seat's own addresses on the first
    round kept; but once the TCP connection there is up, something listens and the
    address gets the whole wait (the 1.5 s passed over a live address at 0.65 s round
    trips: settling on the 2nd of 3 took 11.7-16.2 s, 5.6 now)."""
    core = _dialled_core(alternatives=2)
    assert core.stalled(3.1, 3.0) == [b"mbob"]               # the host's address: 3 s
    ep = core.reach_stalled(b"mbob")
    assert ep == "tcp://192.168.0.7:4000"
    core.dialled(b"mbob", 3.1)
    assert core.stall_wait(b"mbob", 3.0) == 1.5              # nothing there yet
    core.link_event(b"mbob", "connected", 3.4)
    assert core.stall_wait(b"mbob", 3.0) >= 3.0               # before: 1.5
    assert core.stalled(4.7, 3.0) == []
    dead = _dialled_core(alternatives=2)
    dead.reach_stalled(b"mbob")
    dead.dialled(b"mbob", 3.1)
    assert dead.stalled(4.7, 3.0) == [b"mbob"]               # refused there: 1.5 s


# ----------------------------------------------------------------- real nodes, delayed

def _dead() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{s.getsockname()[1]}"


class _Link:
    """Two CURVE nodes, each reached only through a delay proxy that listens at the
    address it advertises (127.0.0.4/5, the node's port): as across a VPN."""

    def __init__(self, rtt: float, seed: int, rate: float | None = None) -> None:
        ann, bo = (Identity.from_seed(bytes([seed + i]) * 32) for i in (0, 1))
        self.a = Node(node_id_for(ann.public_key), curve=ann.curve_keys(),
                      bind="127.0.0.2", advertise_host="127.0.0.4")
        self.b = Node(node_id_for(bo.public_key), curve=bo.curve_keys(),
                      bind="127.0.0.3", advertise_host="127.0.0.5")
        self.a.expect_key(self.b.node_id, bo.curve_keys().public)
        self.b.expect_key(self.a.node_id, ann.curve_keys().public)
        self.a.set_admission(False)
        self.b.set_admission(False)
        self.to_b = DelayProxyProcess(self.b.endpoint, rtt / 2, rate=rate,
                                      listen=("127.0.0.5", self.b.port))
        self.to_a = DelayProxyProcess(self.a.endpoint, rtt / 2,
                                      listen=("127.0.0.4", self.a.port))

    def close(self) -> None:
        for x in (self.a, self.b, self.to_a, self.to_b):
            x.close()


def _first(node: Node, limit: float) -> tuple[bytes, bytes] | None:
    end = time.monotonic() + limit
    got = None
    while got is None and time.monotonic() < end:
        got = node.recv(0.05)
    return got


@pytest.mark.slow
def test_a_peer_added_late_connects_at_round_trips_of_one_and_a_half_seconds() -> None:
    """Bo dials Ann first (a joiner); Ann, hearing him, adds him later (the host): her
    DEALER's handshake takes 3 round trips through the proxy (4-5 on a real link), and
    since she hears him, the stall re-opened it every 3 s: nothing in 40 s before (14
    connections), 6.0 s now, on one connection."""
    link = _Link(1.5, 40)
    a, b = link.a, link.b
    try:
        b.add_peer(a.node_id, link.to_a.endpoint)
        end = time.monotonic() + 20
        heard = False
        while time.monotonic() < end and not heard:
            heard = any(e.peer_id == b.node_id for e in a.events())
            time.sleep(0.05)
        assert heard                # (a case where she never heard him tests nothing)
        a.add_peer(b.node_id, link.to_b.endpoint)
        t0 = time.monotonic()
        a.send(b.node_id, b"welcome")
        assert _first(b, 20) == (a.node_id, b"welcome")
        took = time.monotonic() - t0
        assert took < 12, took
        assert link.to_b.connections == 1
    finally:
        link.close()


@pytest.mark.slow
def test_a_seat_live_at_its_second_address_on_a_slow_link_is_settled_on() -> None:
    """The host's address for Bo is dead; Bo's own addresses: live (0.65 s round trips),
    then dead. The first round's 1.5 s wait passed over the live one (its handshake and
    first acknowledgement take some 2.6 s): 11.7 s before, 5.6 s now."""
    link = _Link(0.65, 42)
    a, b = link.a, link.b
    try:
        a.add_peer(b.node_id, _dead())
        a.also_reach(b.node_id, [link.to_b.endpoint, _dead()])
        b.add_peer(a.node_id, link.to_a.endpoint)
        t0 = time.monotonic()
        a.send(b.node_id, b"move")
        assert _first(b, 30) == (a.node_id, b"move")
        took = time.monotonic() - t0
        assert took < 8.5, took                             # before: 11.7
        assert a.flush(5) and a.endpoint_of(b.node_id) == link.to_b.endpoint
    finally:
        link.close()


@pytest.mark.slow
def test_a_backlog_on_a_slow_link_is_sent_once() -> None:
    """1 MB queued at once on a link of 100 KB/s and 0.6 s round trips: re-opened at
    each stall while it drained, the connection carried 2.2 times the bytes (4
    connections; 3.7 times and 7 for 2 MB). Sent once now, on one connection (what
    spurious resends the backlog's delay still brings is bounded below; 1.27 measured,
    as docs/network.md's table says)."""
    link = _Link(0.6, 44, rate=100_000)
    a, b = link.a, link.b
    try:
        a.add_peer(b.node_id, link.to_b.endpoint)
        b.add_peer(a.node_id, link.to_a.endpoint)
        a.send(b.node_id, b"hi")
        assert _first(b, 20) == (a.node_id, b"hi")
        before = link.to_b.carried
        size, total = 32 << 10, 1_000_000
        for _ in range(total // size):
            a.send(b.node_id, os.urandom(size))
        for _ in range(total // size):
            assert _first(b, 30) is not None
        carried = (link.to_b.carried - before) / total
        assert carried < 1.3, carried                       # before: 2.2-3.7
        assert link.to_b.connections == 1
    finally:
        link.close()



def _reached_at_the_eighth(a: Node, b: Node, hosts: socket.socket) -> float:
    """Seconds until ``a``'s move reaches ``b``: the host gave ``a`` the address of its
    own listener ``hosts`` for ``b``, which is live only at the last of its 8 own
    addresses (7 dead)."""
    a.add_peer(b.node_id, f"tcp://127.0.0.1:{hosts.getsockname()[1]}")
    a.also_reach(b.node_id, [_dead() for _ in range(7)] + [b.endpoint])
    b.add_peer(a.node_id, _dead())
    t0 = time.monotonic()
    a.send(b.node_id, b"move")
    assert _first(b, 30) == (a.node_id, b"move")
    return time.monotonic() - t0


@pytest.mark.slow
@pytest.mark.hostile
def test_a_silent_port_from_the_host_still_leaves_the_seat_reached_within_the_step_limit(
        ) -> None:
    """What the patience with a handshake costs: the host gives a seat the address of a
    port that accepts TCP and never answers (its own listener), and the seat is live only
    at the last of its 8 own addresses. The handshake going on there is waited 6 s, not
    3 (13.7 s before, 16.6 s now): still within a table's 20 s step limit."""
    ann, bo = (Identity.from_seed(bytes([i]) * 32) for i in (46, 47))
    a = Node(node_id_for(ann.public_key), curve=ann.curve_keys())
    b = Node(node_id_for(bo.public_key), curve=bo.curve_keys())
    silent = socket.create_server(("127.0.0.1", 0))
    try:
        a.expect_key(b.node_id, bo.curve_keys().public)
        b.expect_key(a.node_id, ann.curve_keys().public)
        a.set_admission(False)
        b.set_admission(False)
        took = _reached_at_the_eighth(a, b, silent)
        assert took < 20, took                              # before: 13.7
    finally:
        a.close()
        b.close()
        silent.close()


def _null_tarpit(drip: float) -> socket.socket:
    """A listener that answers each connection's ZMTP 3.0 NULL handshake (a ROUTER's
    greeting and READY) after ``drip`` seconds, then swallows everything: what any host
    can run where a table has no CURVE."""
    import threading
    greeting = (b"\xff" + b"\0" * 8 + b"\x7f" + bytes([3, 0]) + b"NULL".ljust(20, b"\0")
                + b"\0" * 32)
    body = b"\x05READY\x0bSocket-Type" + (6).to_bytes(4, "big") + b"ROUTER"
    ready = bytes([0x04, len(body)]) + body
    srv = socket.create_server(("127.0.0.1", 0))

    def serve(c: socket.socket) -> None:
        with c:
            time.sleep(drip)
            try:
                c.sendall(greeting + ready)
                while c.recv(65536):
                    pass
            except OSError:
                pass

    def accept() -> None:
        while True:
            try:
                c, _ = srv.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(c,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return srv


@pytest.mark.slow
@pytest.mark.hostile
def test_a_tarpit_answering_the_plain_handshake_late_leaves_the_seat_within_the_step_limit(
        ) -> None:
    """The plain-ZeroMQ twin of the silent port above: the host gives a seat the address
    of a tarpit that finishes the NULL handshake at 5.8 s (just before the patience with a
    handshake runs out) and swallows the rest; the seat is live only at the last of its 8
    own addresses. The finished handshake earned as long again, timed from its end: 28.9 s
    (14.2 s before the slow links change), past the 20 s step limit; about 17.5 s now."""
    a, b = Node(b"ann-node"), Node(b"bob-node")
    tarpit = _null_tarpit(5.8)
    try:
        took = _reached_at_the_eighth(a, b, tarpit)
        assert took < 20, took                              # before: 28.9
    finally:
        a.close()
        b.close()
        tarpit.close()


def test_a_monitor_whose_reader_cannot_be_made_leaves_the_node_reaching_its_peers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """No descriptor left for the PAIR that reads a DEALER's monitor (EMFILE, injected:
    libzmq's own sockets run): pyzmq had already attached the monitor, the DEALER kept it
    with nobody reading, libzmq's blocking send of its next event stopped the node's
    networking, and Ann reached neither Bo nor Cy in 20 s. The reader is made first now;
    without one the DEALER is simply not watched."""
    import errno

    import zmq
    fail = {"left": 0}
    make = zmq.Context.socket

    def socket_(self: zmq.Context[zmq.Socket[bytes]], kind: int,
                **kw: object) -> zmq.Socket[bytes]:
        if kind == zmq.PAIR and fail["left"] > 0:
            fail["left"] -= 1
            raise zmq.ZMQError(errno.EMFILE)
        return make(self, kind, **kw)   # type: ignore[arg-type]

    monkeypatch.setattr(zmq.Context, "socket", socket_)
    a, b, c = Node(b"ann-node"), Node(b"bo-node1"), Node(b"cy-node1")
    try:
        fail["left"] = 1
        a.add_peer(b.node_id, b.endpoint)
        b.add_peer(a.node_id, a.endpoint)
        a.add_peer(c.node_id, c.endpoint)
        c.add_peer(a.node_id, a.endpoint)
        for i in range(3):
            a.send(b.node_id, b"to bo %d" % i)
            a.send(c.node_id, b"to cy %d" % i)
            assert _first(b, 5) == (a.node_id, b"to bo %d" % i)    # before: None
            assert _first(c, 5) == (a.node_id, b"to cy %d" % i)
        assert fail["left"] == 0
    finally:
        t = time.monotonic()
        for n in (a, b, c):
            n.close()
        assert time.monotonic() - t < 5


def test_a_first_frame_sent_late_on_an_open_connection_gets_its_whole_wait() -> None:
    """The ceiling's fix timed every frame first sent within the last dial's wait from
    the dial: a move first sent at 2.95 s on a connection up since 0.005 s was re-opened
    0.06 s after its sending (real plain nodes at 0.5 s round trips: "no ack … dialled
    3.0 s ago: reconnecting", its ack 0.5 s away). Only a frame that waited for the
    handshake is timed from the dial; one sent on the open connection from its sending."""
    for curve in (True, False):
        core = ReliableCore(b"mann", TransportConfig(), lambda d, f: True)
        core.authenticated_links = curve
        core.add_peer(b"mbob", "tcp://10.0.0.5:4000", 0.0)
        core.dialled(b"mbob", 0.0)
        core.link_event(b"mbob", "connected", 0.001)
        core.link_event(b"mbob", "ready", 0.005)
        core.tick(2.0)
        core.enqueue(b"mbob", b"move")
        core.tick(2.95)
        assert core.stalled(3.1, 3.0) == [], curve           # before: [b"mbob"]
        assert core.stalled(5.9, 3.0) == [], curve
        assert core.stalled(6.0, 3.0) == [b"mbob"], curve    # its own 3 s, then a stall
