"""A hand-written ZMTP client that sends one multipart message that never ends (every
frame with MORE) used to make a Node buffer without limit (libzmq keeps every part until
the last one).  The Node's connection guard (p2p.net.conn_guard) closes such a connection
and names it; honest traffic, including the largest payloads, is never cut.  Real sockets
on 127.0.0.1."""

from __future__ import annotations

import logging
import os
import socket
import struct
import time
from collections.abc import Callable, Iterator

import pytest

from p2p.crypto.identity import Identity
from p2p.hostile import recv_exact, zmtp_greeting, zmtp_property
from p2p.net.conn_guard import ConnGuard
from p2p.net.interface import TransportConfig
from p2p.net.transport import Node, fetch_key_card

pytestmark = pytest.mark.skipif(not ConnGuard.supported(),
                                reason="the guard needs Linux's TCP_INFO byte counts")

SMALL = TransportConfig(max_payload=64 * 1024)     # unfinished_limit about 520 KiB
CHUNK = 64 * 1024
GIVE_UP = 256 << 20                                  # what the attacker would send at most


def _null_client(port: int) -> socket.socket:
    """A ZMTP 3.0 NULL-mechanism DEALER, written by hand (what a hostile program does)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(zmtp_greeting(b"NULL"))
    recv_exact(s, 64)
    body = b"\x05READY" + zmtp_property(b"Socket-Type", b"DEALER") + zmtp_property(b"Identity", b"mallory")
    s.sendall(b"\x04" + bytes([len(body)]) + body)
    return s


def _flood_until_closed(s: socket.socket, frame: Iterator[bytes]) -> int:
    """Send MORE frames until the victim stops taking them; return the bytes sent.  Then
    check it really closed the connection (EOF or reset), not merely stopped reading.
    (Once cut, the victim's side may sit with a zero window: the send then times out.)"""
    sent = 0
    s.settimeout(1.0)
    try:
        while sent < GIVE_UP:
            f = next(frame)
            s.sendall(f)
            sent += len(f)
    except OSError:
        pass
    s.settimeout(10)
    try:
        while s.recv(65536):
            pass
    except ConnectionResetError:
        pass
    return sent


def _plain_frames() -> Iterator[bytes]:
    f = b"\x03" + struct.pack(">Q", CHUNK) + b"x" * CHUNK      # MORE | LONG
    while True:
        yield f


@pytest.fixture
def victim() -> Iterator[Node]:
    n = Node(b"victim", config=SMALL)
    yield n
    n.close()


def test_endless_multipart_is_cut_and_named(victim: Node,
                                            caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="p2p.transport")
    honest = Node(b"honest", config=SMALL)
    try:
        honest.add_peer(b"victim", victim.endpoint)
        victim.add_peer(b"honest", honest.endpoint)
        s = _null_client(victim.port)
        sent = _flood_until_closed(s, _plain_frames())
        s.close()
        assert sent < GIVE_UP, "the victim kept reading a message that never ends"
        deadline = time.monotonic() + 5
        while "never ended" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.02)
        assert "never ended" in caplog.text and "127.0.0.1:" in caplog.text
        # the honest peer's largest payloads still get through, none of them is cut
        payload = os.urandom(SMALL.max_payload)
        for _ in range(40):
            honest.send(b"victim", payload)
        got = []
        end = time.monotonic() + 20
        while len(got) < 40 and time.monotonic() < end:
            m = victim.recv(0.5)
            if m is not None:
                got.append(m)
        assert len(got) == 40 and all(m == (b"honest", payload) for m in got)
        assert caplog.text.count("never ended") == 1
    finally:
        honest.close()


def test_largest_honest_payloads_are_not_cut(caplog: pytest.LogCaptureFixture) -> None:
    """The default limits: 1 MiB payloads in a burst, read slowly by the application."""
    caplog.set_level(logging.WARNING, logger="p2p.transport")
    with Node(b"a") as a, Node(b"b") as b:
        a.add_peer(b"b", b.endpoint)
        b.add_peer(b"a", a.endpoint)
        payload = os.urandom(a.config.max_payload)
        for _ in range(24):
            a.send(b"b", payload)
        got = 0
        end = time.monotonic() + 30
        while got < 24 and time.monotonic() < end:
            time.sleep(0.05)                 # a busy application
            if b.recv(1.0) == (b"a", payload):
                got += 1
        assert got == 24
    assert "never ended" not in caplog.text


def test_curve_stranger_endless_multipart_is_cut() -> None:
    """The lobby's case: a stranger admitted under CURVE (RFC 26 written by hand)."""
    nacl_public = pytest.importorskip("nacl.public")
    box_cls, key_cls, pub_cls = nacl_public.Box, nacl_public.PrivateKey, nacl_public.PublicKey
    with Node(b"host", config=SMALL, curve=Identity.generate().curve_keys()) as host:
        host.set_admission(True)
        server = pub_cls(fetch_key_card(host.endpoint, timeout=5.0)[1])
        longterm, short = key_cls.generate(), key_cls.generate()
        s = socket.create_connection(("127.0.0.1", host.port), timeout=10)
        nonce = 1

        def sn() -> bytes:
            return struct.pack(">Q", nonce)

        def cmd(body: bytes) -> None:
            if len(body) < 256:
                s.sendall(b"\x04" + bytes([len(body)]) + body)
            else:
                s.sendall(b"\x06" + struct.pack(">Q", len(body)) + body)

        def frame() -> bytes:
            f = recv_exact(s, 1)[0]
            n = struct.unpack(">Q", recv_exact(s, 8))[0] if f & 2 else recv_exact(s, 1)[0]
            return recv_exact(s, n)

        s.sendall(zmtp_greeting(b"CURVE"))
        recv_exact(s, 64)
        hello = box_cls(short, server).encrypt(b"\0" * 64, b"CurveZMQHELLO---" + sn())
        cmd(b"\x05HELLO\x01\x00" + b"\0" * 72 + bytes(short.public_key) + sn() + hello.ciphertext)
        nonce += 1
        w = frame()
        plain = box_cls(short, server).decrypt(w[24:], b"WELCOME-" + w[8:24])
        server_short, cookie = pub_cls(plain[:32]), plain[32:]
        vn = os.urandom(16)
        vouch = box_cls(longterm, server_short).encrypt(
            bytes(short.public_key) + bytes(server), b"VOUCH---" + vn).ciphertext
        meta = zmtp_property(b"Socket-Type", b"DEALER") + zmtp_property(b"Identity", b"m" + os.urandom(32))
        ini = box_cls(short, server_short).encrypt(
            bytes(longterm.public_key) + vn + vouch + meta, b"CurveZMQINITIATE" + sn())
        cmd(b"\x08INITIATE" + cookie + sn() + ini.ciphertext)
        nonce += 1
        assert frame().startswith(b"\x05READY")
        box = box_cls(short, server_short)

        def frames() -> Iterator[bytes]:
            nonlocal nonce
            part = b"\x01" + b"x" * CHUNK                    # inner flags: MORE
            while True:
                msg = b"\x07MESSAGE" + sn() + box.encrypt(
                    part, b"CurveZMQMESSAGEC" + sn()).ciphertext
                nonce += 1
                yield b"\x02" + struct.pack(">Q", len(msg)) + msg

        sent = _flood_until_closed(s, frames())
        s.close()
        assert sent < GIVE_UP


def test_connection_the_monitor_missed_is_found_and_cut(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The monitor's queue can overflow under a flood of connections: the guard's rescan
    of this process's sockets finds the connection anyway."""
    monkeypatch.setattr(ConnGuard, "on_events", lambda self: None)
    with Node(b"victim", config=SMALL) as victim:
        s = _null_client(victim.port)
        s.settimeout(1.0)
        frame = next(_plain_frames())
        end = time.monotonic() + 10      # the rescan comes within a second: then 10 ms
        stopped = False
        try:
            while time.monotonic() < end:
                s.sendall(frame)
                time.sleep(0.001)        # a slower flood: the test's memory stays small
        except OSError:
            stopped = True
        assert stopped, "the victim read on for 10 s"
        s.settimeout(10)
        try:
            while s.recv(65536):
                pass
        except ConnectionResetError:
            pass
        s.close()


class _Accepted:
    """A connection guard (on a ROUTER it never binds) told of real accepted TCP sockets as
    if they came from any address: its policy, with real descriptors to shut down."""

    def __init__(self, known: Callable[[bytes], bool] = lambda node: False) -> None:
        import zmq
        self._ctx = zmq.Context()
        self._router = self._ctx.socket(zmq.ROUTER)
        self.guard = ConnGuard(self._router, 1 << 20, known=known)
        self._lsock = socket.create_server(("127.0.0.1", 0))
        self._pairs: list[tuple[socket.socket, socket.socket]] = []

    def accept(self) -> int:
        """A new accepted socket, not yet told to the guard: its descriptor."""
        c = socket.create_connection(self._lsock.getsockname())
        a, _ = self._lsock.accept()
        self._pairs.append((c, a))
        return a.fileno()

    def accept_from(self, address: str) -> int:
        """A new accepted socket, told to the guard as coming from ``address``."""
        fd = self.accept()
        self.guard._learn(fd, ((address, 40000 + len(self._pairs)), 0))
        return fd

    def cut(self, fd: int) -> bool:
        return self.guard._conns[fd].cut

    def close(self) -> None:
        for c, a in self._pairs:
            c.close()
            a.close()
        self._lsock.close()
        self.guard.close()
        self._router.close(0)
        self._ctx.term()


#: the node id of our one known peer in the ``accepted`` fixture
_PEER = b"m" + b"p" * 32


@pytest.fixture
def accepted() -> Iterator[_Accepted]:
    acc = _Accepted(known=lambda node: node == _PEER)
    try:
        yield acc
    finally:
        acc.close()


def test_too_many_connections_from_another_machine_lose_their_oldest_silent_ones(
        accepted: _Accepted) -> None:
    """Hostile LAN machine: its idle connections took every descriptor of a player's
    process. From one address of another machine at most 32 stay open that are not our
    peers': past that the oldest silent one goes, then the oldest stranger's, never a
    peer's, so a joiner arriving from there still gets in. Loopback is exempt (every bot
    of ``play`` is there); it has only the cap on silent connections, tested with real
    sockets in test_hostile.py. Real accepted sockets, given another machine's address."""
    from p2p.net import conn_guard
    guard, accept_from, cut = accepted.guard, accepted.accept_from, accepted.cut
    far = "10.0.0.9"
    first = accept_from(far)
    guard.credit(first, _PEER)                # our peer's connection, from there
    talkers = [accept_from(far) for _ in range(3)]
    for fd in talkers:
        guard.credit(fd, b"m" + os.urandom(32))   # strangers that spoke
    silent = [accept_from(far) for _ in range(29)]  # 32 strangers' now
    assert not any(cut(fd) for fd in [first, *talkers, *silent])
    joiner = accept_from(far)                 # one too many: the oldest silent goes
    assert cut(silent[0]) and not cut(joiner)
    for fd in silent[1:]:
        guard.credit(fd, b"m" + os.urandom(32))
    guard.credit(joiner, b"m" + os.urandom(32))
    another = accept_from(far)                # all spoke: the oldest stranger goes
    assert cut(talkers[0]) and not cut(first) and not cut(another)
    assert guard.take_crowding() == {far: 2} and guard.take_crowding() == {}
    near = [accept_from("127.0.0.1") for _ in range(conn_guard.MAX_FROM_ONE_ADDRESS + 8)]
    for fd in near:
        guard.credit(fd, b"m" + os.urandom(32))
    assert not any(cut(fd) for fd in near)


def test_a_connection_told_of_twice_keeps_what_the_guard_knew_of_it(
        accepted: _Accepted) -> None:
    """Hostile review 9: a connection the rescan found first (the monitor's queue lags in
    a flood) has its ACCEPTED event come later; the guard learnt it again as new: a
    peer's connection that had spoken was then a silent stranger's, the first to go when
    its address held one too many (and a connection already cut was open again)."""
    from p2p.net import conn_guard
    guard = accepted.guard
    far = "10.0.0.9"
    fd = accepted.accept()
    state = ((far, 40001), 0)
    guard._learn(fd, state)                   # found by the rescan
    guard.credit(fd, _PEER)                   # our peer's, and it spoke
    talkers = []
    for _ in range(conn_guard.MAX_FROM_ONE_ADDRESS):
        t = accepted.accept_from(far)
        guard.credit(t, b"m" + os.urandom(32))
        talkers.append(t)
    guard._learn(fd, state)                   # its ACCEPTED, late
    c = guard._conns[fd]
    assert c.spoke and c.node == _PEER
    accepted.accept_from(far)                 # one too many from there
    assert not guard._conns[fd].cut and guard._conns[talkers[0]].cut
    guard._learn(talkers[0], ((far, 40001 + 1), 0))   # a cut one told of again
    assert guard._conns[talkers[0]].cut


def test_connections_from_one_ipv6_network_count_as_from_one_address(
        accepted: _Accepted) -> None:
    """Hostile review 9: a machine on IPv6 holds a whole /64 and may connect from any
    address in it; the cap on one address counted each address apart, so such a machine
    held as many connections as it liked (one from each address). Its /64 is one
    address for the cap."""
    from p2p.net import conn_guard
    fds = [accepted.accept_from(f"2001:db8:0:7::{i + 1:x}")
           for i in range(conn_guard.MAX_FROM_ONE_ADDRESS + 1)]
    assert accepted.cut(fds[0]) and not any(accepted.cut(f) for f in fds[1:])
    other = accepted.accept_from("2001:db8:0:8::1")    # another /64: its own count
    assert not accepted.cut(other) and not accepted.cut(fds[1])


def test_a_flood_of_silent_connections_pushes_out_its_own_not_a_newcomers(
        accepted: _Accepted) -> None:
    """Hostile review 9, left there: past the cap on silent connections the oldest
    silent one went, from anyone; machines that opened connections fast enough pushed
    out a newcomer still in its handshake (silent until it is done). The one that goes is
    the oldest of the address that holds the most silent ones: a flood's own."""
    from p2p.net import conn_guard
    flooders = [f"10.0.0.{i}" for i in range(10, 16)]     # 6 × 30 silent: past 128
    for address in flooders:
        for _ in range(30):
            accepted.accept_from(address)
    newcomer = accepted.accept_from("10.0.0.99")          # in its handshake: silent
    for _ in range(3):                                    # the flood goes on
        for address in flooders:
            for _ in range(30):
                accepted.accept_from(address)
    assert not accepted.cut(newcomer)
    open_ = [c for c in accepted.guard._conns.values() if not c.cut and not c.spoke]
    assert len(open_) <= conn_guard.MAX_SILENT
