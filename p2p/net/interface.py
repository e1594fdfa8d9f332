"""What the table layer needs from a transport: the `Transport` protocol, its events,
errors, limits and endpoint syntax.  No ZeroMQ here, so the offline parts (verify, replay)
never load it."""

from __future__ import annotations

import enum
import ipaddress
import re
from dataclasses import dataclass
from typing import Protocol


class TransportError(Exception):
    """Misuse of the transport (unknown peer, bad id, payload too large, closed)."""


class QueueFull(TransportError):
    """The per-peer send queue is at its cap: the peer is not acknowledging."""


class PeerStatus(enum.Enum):
    CONNECTING = "connecting"  # added, nothing heard yet
    CONNECTED = "connected"  # heard from within slow_after
    SLOW = "slow"  # silent for slow_after .. gone_after
    GONE = "gone"  # silent for gone_after (or never heard within gone_after)


class PeerEventKind(enum.Enum):
    STATUS = "status"  # peer_status changed; ``status`` holds the new value
    RESTARTED = "restarted"  # a known peer came back with a new session
    GAP = "gap"  # sender declared frames settled that we never got (we restarted)
    HELLO = "hello"  # an unknown peer said hello; ``endpoint`` is where it listens
    MOVED = "moved"  # a known peer proved it listens elsewhere now; ``endpoint``: where


@dataclass(frozen=True)
class PeerEvent:
    kind: PeerEventKind
    peer_id: bytes
    status: PeerStatus | None = None
    endpoint: str | None = None
    detail: int = 0  # GAP: number of sequence numbers skipped
    curve_key: bytes | None = None  # HELLO under CURVE: the key that connection proved
    proof: bytes | None = None  # HELLO: what the sender offers as proof of its id (CURVE:
    # its certificate of ``curve_key``, signed by the key its node id names)
    #: HELLO on plain ZeroMQ: ``proof`` is the signature, by the key the node id names, of
    #: where it says it listens now (``endpoint``, this very session: see
    #: :func:`p2p.net.reliable.endpoint_statement`), checked by the node's move verifier
    signed_endpoint: bool = False


@dataclass(frozen=True)
class TransportConfig:
    """Limits and timers.  All durations are seconds of ``time.monotonic``."""

    max_payload: int = 1 << 20  # largest payload accepted by send() / delivered
    window: int = 256  # receiver reorder window == sender frames in flight
    max_send_queue: int = 8192  # per-peer unacknowledged payloads before QueueFull
    max_inbox: int = 1024  # per-peer delivered-but-unread payloads (backpressure)
    rto_initial: float = 0.2  # resend timeout before any round trip was measured
    rto_min: float = 0.02  # floor of the adaptive (SRTT + 4·RTTVAR) resend timeout
    rto_max: float = 2.0  # backoff ceiling
    retry_unsent: float = 0.01  # poll period while a peer's connection is not up yet
    hb_interval: float = 0.5  # heartbeat period
    slow_after: float = 1.5  # silence before a peer is SLOW
    gone_after: float = 5.0  # silence before a peer is GONE
    sndhwm: int = 1000  # ZeroMQ high-water marks (messages)
    rcvhwm: int = 1000
    max_recv_batch: int = 256  # frames drained from the ROUTER per loop turn
    retired_sessions: int = 8  # old sessions remembered per peer (stale frames dropped)
    # a known peer's new session taken at most this often: a restart takes longer, and a
    # peer that changed its session at every frame made us resend, fetch and log at each
    restart_every: float = 0.5
    reopen_after: float = 3.0  # no ack for this long: re-open the connection to that peer
    # add_peer refuses more: each peer is three sockets (a DEALER, its monitor's two
    # PAIRs), a descriptor each, and a TCP connection
    max_peers: int = 64
    stranger_hellos_per_s: float = 20.0  # HELLO events from unknown ids, all ids together
    handshake_limit: float = 10.0  # an inbound connection's ZMTP/CURVE handshake, at most

    @property
    def max_frame(self) -> int:
        """Largest well-formed frame: payload plus msgpack overhead."""
        return self.max_payload + 64

    @property
    def unfinished_limit(self) -> int:
        """Bytes an inbound connection may send without finishing a message before it is
        closed (p2p.net.conn_guard): our DEALERs send one frame per message, so an honest
        connection has at most one frame in progress, plus one just read but not yet
        handed over, plus a little protocol (a frame's header, CURVE's box). A frame, not
        ``ZMQ_MAXMSGSIZE`` (about twice as much, for frames that are dropped anyway): a
        part costs libzmq some 60 bytes of memory however small on the wire, so the
        bytes a claimant of a peer's id held were 30 times as much memory on a plain
        node (hostile pass 8: 4.3 MiB, about 130 MB)."""
        return 2 * self.max_frame + (64 << 10)

    @property
    def strangers_unfinished_limit(self) -> int:
        """Bytes every inbound connection that is not a peer's may hold, all together, in
        messages not finished yet (p2p.net.conn_guard): one honest message in progress
        and a little protocol. Memory, not wire bytes, is what it bounds: libzmq keeps
        some 60 bytes per part, so empty parts cost 30 times their size (hostile pass 8:
        ``ZMQ_MAXMSGSIZE`` + 256 KiB, about 2.3 MiB, let sixteen strangers hold 85 MB)."""
        return self.max_frame + (64 << 10)

    @property
    def zmq_maxmsgsize(self) -> int:
        """Hard ZMQ_MAXMSGSIZE: above it libzmq drops the *connection* (sender
        unknown).  Between ``max_frame`` and this the frame is dropped and
        counted against its sender."""
        return 2 * self.max_payload + 4096


def validate_peer_id(peer_id: bytes) -> None:
    """ZeroMQ routing ids are 1..255 bytes and must not start with a zero byte."""
    if not isinstance(peer_id, bytes) or not 1 <= len(peer_id) <= 255 or peer_id[0] == 0:
        raise TransportError("peer id must be 1..255 bytes not starting with 0x00")


class WireFilter(Protocol):
    """Hook on every outgoing *frame* (below the reliability layer).

    Returns the copies to put on the wire, each with a delay in seconds: ``[]``
    drops the frame, ``[(0.0, frame)]`` passes it unchanged.  Used by
    ``p2p.testing.FaultShim``.  Called from the transport's I/O context."""

    def __call__(self, dst: bytes, frame: bytes, now: float) -> list[tuple[float, bytes]]: ...




def format_host(host: str) -> str:
    """Bracket an IPv6 literal for a ``tcp://`` endpoint."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


_HOST_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")


def _valid_host(host: str, literal_only: bool) -> str | None:
    """The host part normalised for ZeroMQ (IPv6 bracketed), or None when it is not an
    IP literal (or, unless ``literal_only``, a DNS host name)."""
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        ip = ipaddress.ip_address(bare)
    except ValueError:
        ip = None
    if ip is not None:
        if ip.is_multicast or ip.is_unspecified:
            return None
        return f"[{ip}]" if ip.version == 6 else str(ip)
    if literal_only or bare != host or len(host) > 253:
        return None
    labels = host.rstrip(".").split(".")
    if not all(_HOST_LABEL.fullmatch(label) for label in labels):
        return None
    return host


def literal_host(host: str) -> str | None:
    """``host`` as an IP address another machine can connect to, normalised for ZeroMQ
    (IPv6 bracketed); None for a name, a wildcard (``*``, ``0.0.0.0``, ``::``) or a
    multicast group."""
    return _valid_host(host, literal_only=True)


def parse_endpoint(text: str, *, literal_only: bool = False) -> str:
    """Accept ``HOST:PORT``, ``[v6]:PORT`` or ``tcp://HOST:PORT``; return ``tcp://HOST:PORT``.

    HOST must be an IP address or a DNS name (``literal_only``: an IP address, as for every
    endpoint another peer tells us, so we never resolve names a stranger picked); anything
    else (spaces, ``*``, an interface name, a multicast address) is a ValueError, checked
    here because ZeroMQ would only fail later, inside the I/O thread."""
    if not isinstance(text, str) or len(text) > 300:
        raise ValueError("not HOST:PORT: not a short string")
    t = text.strip()
    if t.startswith("tcp://"):
        t = t[6:]
    host, sep, port = t.rpartition(":")
    if not sep or not host or not port.isascii() or not port.isdigit() or len(port) > 5 \
            or not 0 < int(port) < 65536:
        raise ValueError(f"not HOST:PORT: {text[:60]!r}")
    norm = _valid_host(host, literal_only)
    if norm is None:
        what = "an IP address" if literal_only else "an IP address or host name"
        raise ValueError(f"not HOST:PORT ({host[:40]!r} is not {what}): {text[:60]!r}")
    return f"tcp://{norm}:{int(port)}"


def parse_peer(text: str) -> tuple[str | None, str]:
    """``[FINGERPRINT@]HOST:PORT`` (the ``--peer`` syntax) → ``(fingerprint or None,
    tcp://HOST:PORT)``.  FINGERPRINT is the ``XXXXX-XXXXX`` form the other player's
    screen shows (case and the dash do not matter); without it the first key met there
    is trusted and shown."""
    if not isinstance(text, str):
        raise ValueError("not [FINGERPRINT@]HOST:PORT")
    fp, at, rest = text.strip().partition("@")
    if not at:
        return None, parse_endpoint(text)
    norm = normal_fingerprint(fp)
    if norm is None:
        raise ValueError(f"not a key fingerprint (XXXXX-XXXXX): {fp[:20]!r}")
    return norm, parse_endpoint(rest)


def normal_fingerprint(text: str) -> str | None:
    """A key fingerprint as typed (case and the dash do not matter) in the form the
    screens show, ``XXXXX-XXXXX``; None if ``text`` is not one."""
    norm = text.replace("-", "").upper()
    if len(norm) != 10 or not all(c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567" for c in norm):
        return None
    return f"{norm[:5]}-{norm[5:]}"



class Transport(Protocol):
    """What a peer needs from :class:`p2p.net.transport.Node` (or ``p2p.testing.MemoryNode``)."""

    node_id: bytes
    endpoint: str
    curve_key: bytes | None

    def add_peer(self, peer_id: bytes, endpoint: str) -> None: ...
    def expect_key(self, peer_id: bytes, curve_key: bytes) -> None: ...
    def set_admission(self, strangers: bool) -> None: ...
    def remove_peer(self, peer_id: bytes) -> None: ...
    def send(self, peer_id: bytes, payload: bytes) -> int: ...
    def broadcast(self, payload: bytes) -> dict[bytes, int]: ...
    def recv(self, timeout: float | None = None) -> tuple[bytes, bytes] | None: ...
    def events(self) -> list[PeerEvent]: ...
    def peer_status(self, peer_id: bytes) -> PeerStatus: ...
    def peers(self) -> list[bytes]: ...
    def flush(self, timeout: float) -> bool: ...
    def close(self) -> None: ...
