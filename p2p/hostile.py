"""A hostile peer for tests: its own ZeroMQ sockets, framing and keys, nothing of Node.

It speaks the transport's wire format (p2p.net.frames) directly, so it can claim any
routing id, advertise any endpoint, skip acknowledgements and send any payload, the way
an attacker on the LAN would.  Used in-process by tests and as a separate process::

    python -m p2p.hostile hello-own-id   tcp://HOST:PORT ROUTING_ID_HEX
    python -m p2p.hostile hello-endpoint tcp://HOST:PORT "a b c" PORT
    python -m p2p.hostile hello-flood    tcp://HOST:PORT COUNT
    python -m p2p.hostile data           tcp://HOST:PORT ROUTING_ID_HEX PAYLOAD_HEX

Each command prints one line ``done N`` (frames sent) and exits 0.  ``--curve`` first
(``python -m p2p.hostile --curve hello-flood ...``): ask the target's key door for its
CURVE key and speak CURVE as a stranger with a fresh key per socket (what a LAN attacker
does against a lobby on CURVE, which admits strangers for HELLO only, rate-limited).
"""

from __future__ import annotations

import os
import socket
import struct
import sys
import time

import zmq

from p2p.net.frames import DATA, HELLO, SESSION_LEN, pack_frame

__all__ = ["HostileSocket", "hello_frame", "data_frame", "recv_exact", "zmtp_property",
           "zmtp_greeting", "closed_by_peer", "zeroconf_flood"]


def hello_frame(port: int, host: str | None, session: bytes | None = None) -> bytes:
    return pack_frame([HELLO, session or os.urandom(SESSION_LEN), port, host])


def data_frame(payload: bytes, seq: int = 1, base: int = 1,
               session: bytes | None = None) -> bytes:
    return pack_frame([DATA, session or os.urandom(SESSION_LEN), seq, base, payload])


class HostileSocket:
    """One DEALER under a routing id of our choosing, connected to ``endpoint``."""

    def __init__(self, endpoint: str, routing_id: bytes,
                 ctx: zmq.Context[zmq.Socket[bytes]] | None = None, *,
                 server_key: bytes | None = None,
                 keypair: tuple[bytes, bytes] | None = None) -> None:
        """``server_key``: speak CURVE to that server key, with ``keypair`` (public,
        secret) or a fresh one (a stranger)."""
        self._own_ctx = ctx is None
        self.ctx = ctx or zmq.Context()
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.ROUTING_ID, routing_id)
        if server_key is not None:
            pub, sec = keypair or zmq.curve_keypair()
            self.sock.setsockopt(zmq.CURVE_SERVERKEY, server_key)
            self.sock.setsockopt(zmq.CURVE_PUBLICKEY, pub)
            self.sock.setsockopt(zmq.CURVE_SECRETKEY, sec)
        self.sock.setsockopt(zmq.SNDHWM, 100_000)
        self.sock.connect(endpoint)
        self.session = os.urandom(SESSION_LEN)

    def send(self, frame: bytes, timeout: float = 2.0) -> bool:
        """Send one raw frame once the connection is up; False if it never came up."""
        end = time.monotonic() + timeout
        while True:
            try:
                self.sock.send(frame, zmq.NOBLOCK)
                return True
            except zmq.Again:
                if time.monotonic() > end:
                    return False
                time.sleep(0.005)

    def close(self) -> None:
        self.sock.close(0)
        if self._own_ctx:
            self.ctx.term()

    def __enter__(self) -> HostileSocket:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ----- raw ZMTP over a plain TCP socket: what no ZeroMQ library would send --------------

def recv_exact(s: socket.socket, n: int) -> bytes:
    """``n`` bytes from ``s``; EOFError when the other end closes first."""
    b = b""
    while len(b) < n:
        x = s.recv(n - len(b))
        if not x:
            raise EOFError("closed")
        b += x
    return b


def zmtp_property(name: bytes, val: bytes) -> bytes:
    """One property of a ZMTP 3 READY command (RFC 23): name, then a 4-byte length."""
    return bytes([len(name)]) + name + struct.pack(">I", len(val)) + val


def zmtp_greeting(mechanism: bytes) -> bytes:
    """A ZMTP 3.0 greeting (RFC 23): signature, version 3.0, the mechanism, as client."""
    return b"\xff" + b"\0" * 8 + b"\x7f" + b"\x03\x00" + mechanism.ljust(20, b"\0") + \
        b"\x00" + b"\0" * 31


def closed_by_peer(s: socket.socket, wait: float) -> bool:
    """Whether the other end closed ``s`` within ``wait`` s (what it says meanwhile, a
    READY command, is read and ignored)."""
    end = time.monotonic() + wait
    try:
        while (left := end - time.monotonic()) > 0:
            s.settimeout(left)
            if s.recv(4096) == b"":
                return True
    except ConnectionResetError:
        return True
    except OSError:          # timed out: still open
        pass
    return False


def _more_descriptors() -> None:
    """The attacker's own descriptor limit raised to its hard limit: libzmq closes a socket
    in its I/O thread, later, so a batch of closed sockets may still hold descriptors
    when the next batch opens."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else 65536
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, 65536), hard))
        except (ValueError, OSError):
            pass


def _flood(endpoint: str, count: int, server_key: bytes | None = None) -> int:
    """``count`` fresh identities, each saying HELLO from a port of its own choosing."""
    _more_descriptors()
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    # libzmq counts a closed socket against the context's 1023 until its I/O thread has
    # reaped it, and says EMFILE ("Too many open files") past them: the flood failed so
    # in CI (the attacker's error, not the host's)
    ctx.set(zmq.MAX_SOCKETS, 8192)
    socks = []
    sent = 0
    try:
        for i in range(count):
            nid = b"m" + os.urandom(32)
            s = HostileSocket(endpoint, nid, ctx, server_key=server_key)
            socks.append(s)
            if s.send(hello_frame(20000 + i % 40000, "127.0.0.1"), timeout=0.5):
                sent += 1
            if len(socks) >= 100:       # stay under our own descriptor limit
                for old in socks:
                    old.sock.close(0)
                socks.clear()
        time.sleep(0.5)
    finally:
        for s in socks:
            s.sock.close(0)
        ctx.term()
    return sent


def zeroconf_flood(names: int, seconds: float, rate: float | None = None,
                   interfaces: str = "loopback") -> int:
    """Announce ``names`` made-up tables over and over for ``seconds`` (at most ``rate``
    packets a second; None: as fast as the socket takes them), each packet six tables'
    PTR, SRV, TXT and A records: a LAN host flooding mDNS, as in the zeroconf passes of
    the hostile suites. Returns the packets sent."""
    # the record classes zeroconf's own responder uses (exported by its __init__
    # without an __all__ entry, hence the ignore under mypy's strict re-export rule)
    from zeroconf import (  # type: ignore[attr-defined]
        DNSAddress,
        DNSOutgoing,
        DNSPointer,
        DNSService,
        DNSText,
    )
    from zeroconf.const import (
        _CLASS_IN,
        _CLASS_IN_UNIQUE,
        _FLAGS_AA,
        _FLAGS_QR_RESPONSE,
        _TYPE_A,
        _TYPE_PTR,
        _TYPE_SRV,
        _TYPE_TXT,
    )

    from p2p.net.discovery import SERVICE_TYPE, make_zeroconf
    zc = make_zeroconf(interfaces)
    start = time.monotonic()
    end = start + seconds
    k = sent = 0
    try:
        while time.monotonic() < end:
            sent += 1
            ahead = start + sent / rate - time.monotonic() if rate else 0.0
            if ahead > 0:
                time.sleep(ahead)
            out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
            for _ in range(6):
                n = f"flood{k % names}"
                inst, server = f"{n} (AAAAA-AA).{SERVICE_TYPE}", f"{n}.local."
                address = socket.inet_aton(f"10.{k >> 16 & 255}.{k >> 8 & 255}.{k & 255}")
                for r in (DNSPointer(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN, 4500, inst),
                          DNSService(inst, _TYPE_SRV, _CLASS_IN_UNIQUE, 4500, 0, 0, 4000,
                                     server),
                          DNSText(inst, _TYPE_TXT, _CLASS_IN_UNIQUE, 4500, b"\x03v=1"),
                          DNSAddress(server, _TYPE_A, _CLASS_IN_UNIQUE, 4500, address)):
                    out.add_answer_at_time(r, 0)
                k += 1
            zc.send(out)
    finally:
        zc.close()
    return sent


def main(argv: list[str]) -> int:
    key: bytes | None = None
    if argv[:1] == ["--curve"]:
        from p2p.net.transport import fetch_key_card
        argv = argv[1:]
        key = fetch_key_card(argv[1], timeout=5.0)[1]
    cmd, endpoint, *rest = argv
    sent = 0
    if cmd == "hello-own-id":
        with HostileSocket(endpoint, bytes.fromhex(rest[0]), server_key=key) as s:
            for _ in range(3):
                sent += s.send(hello_frame(5, "127.0.0.1"))
                time.sleep(0.1)
    elif cmd == "hello-endpoint":
        with HostileSocket(endpoint, b"m" + os.urandom(32), server_key=key) as s:
            for _ in range(3):
                sent += s.send(hello_frame(int(rest[1]), rest[0]))
                time.sleep(0.1)
    elif cmd == "hello-flood":
        sent = _flood(endpoint, int(rest[0]), key)
    elif cmd == "data":
        with HostileSocket(endpoint, bytes.fromhex(rest[0]), server_key=key) as s:
            sent += s.send(data_frame(bytes.fromhex(rest[1])))
            time.sleep(0.2)
    else:
        print(f"unknown attack {cmd!r}", file=sys.stderr)
        return 2
    print(f"done {sent}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
