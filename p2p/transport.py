"""Reliable peer-to-peer byte transport over ZeroMQ (the zguide's Harmony pattern).

Every node binds one ROUTER socket and opens one DEALER per remote peer; the
DEALER's ``ROUTING_ID`` is our node id, so the remote ROUTER knows who sent each
frame.  All inbound traffic arrives on the ROUTER, all outbound traffic leaves
through the DEALERs (acknowledgements included).  No PUB/SUB.

ZeroMQ silently drops in-flight data when a connection is re-established, so on
top of it this module runs a small reliability protocol (see docs/network.md):

* each payload gets a per-destination sequence number inside a per-process
  *session* (a random 8-byte nonce chosen when the node starts);
* the receiver acknowledges cumulatively, buffers out-of-order frames inside a
  bounded window and delivers every ``(peer, seq)`` exactly once, in order;
* the sender resends unacknowledged frames after a timeout with exponential
  backoff;
* a frame from a new session of a known peer means that peer restarted: the
  receiver resets its expectations and reports a ``RESTARTED`` event so the
  layer above can re-request what it is missing (the signed game log can be
  fetched from any peer);
* heartbeats drive ``peer_status`` (connecting → connected → slow → gone).

The protocol core (:class:`ReliableCore`) is sans-I/O: it is driven by
:class:`Node` (real ZeroMQ sockets, one background I/O thread) and by
``p2p.testing.MemoryNode`` (an in-memory network for unit tests), so both have
exactly the same behaviour and public interface.

Threading model: :class:`Node` owns one background I/O thread that alone
touches the ZeroMQ sockets.  The public methods are thread-safe; they share the
core with the I/O thread under one lock.  ``recv(timeout)`` blocks on a
condition variable; an asyncio application can instead register
``set_wakeup(callback)`` (called from the I/O thread whenever messages become
available, e.g. ``lambda: loop.call_soon_threadsafe(event.set)``) and then call
``recv(0)`` until it returns ``None``.

Only ``time.monotonic`` is used here.
"""

from __future__ import annotations

import enum
import heapq
import logging
import math
import os
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgpack
import zmq

__all__ = [
    "Node",
    "PeerEvent",
    "PeerEventKind",
    "PeerStatus",
    "QueueFull",
    "ReliableCore",
    "TransportConfig",
    "TransportError",
    "WireFilter",
    "parse_endpoint",
    "validate_peer_id",
]

log = logging.getLogger("p2p.transport")

# Frame kinds (first element of the msgpack array).
DATA = 0  # [0, session, seq, base, payload]
ACK = 1  # [1, session, acked_session, cumulative_seq, sack_bitmap]
HELLO = 2  # [2, session, port, host-or-None]   (also the heartbeat)

SESSION_LEN = 8
_MAX_LOGGED_PER_REASON = 10
_MAX_UNKNOWN_TRACKED = 256


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


@dataclass(frozen=True)
class PeerEvent:
    kind: PeerEventKind
    peer_id: bytes
    status: PeerStatus | None = None
    endpoint: str | None = None
    detail: int = 0  # GAP: number of sequence numbers skipped


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

    @property
    def max_frame(self) -> int:
        """Largest well-formed frame: payload plus msgpack overhead."""
        return self.max_payload + 64

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


@dataclass
class _Out:
    payload: bytes
    due: float = 0.0  # 0.0 = never sent, send at once
    rto: float = 0.0
    attempts: int = 0
    first_sent: float = 0.0
    last_sent: float = 0.0
    sacked: bool = False  # receiver holds it out of order: do not resend


@dataclass
class _Peer:
    peer_id: bytes
    endpoint: str
    added_at: float
    # outbound
    next_seq: int = 1
    base: int = 1  # lowest unacknowledged sequence number
    unacked: dict[int, _Out] = field(default_factory=dict)
    next_resend: float = 0.0
    last_hb_sent: float = -1e18
    rto: float = 0.2
    srtt: float | None = None
    rttvar: float = 0.0
    # inbound
    rsession: bytes | None = None
    retired: deque[bytes] = field(default_factory=deque)
    expected: int | None = None
    ooo: dict[int, bytes] = field(default_factory=dict)
    inbox: deque[bytes] = field(default_factory=deque)
    ack_due: bool = False
    last_heard: float | None = None
    status: PeerStatus = PeerStatus.CONNECTING


def _pack(obj: Any) -> bytes:
    out = msgpack.packb(obj, use_bin_type=True)
    assert isinstance(out, bytes)
    return out


class ReliableCore:
    """Sans-I/O reliability protocol shared by :class:`Node` and ``MemoryNode``.

    Not thread-safe by itself: the driver serialises all calls.  ``emit(dst,
    frame)`` is the driver's raw wire; it is only called from :meth:`tick` and
    returns False when the frame could not even be queued (no connection yet):
    such a transmission does not count and is retried after ``retry_unsent``.
    """

    def __init__(
        self,
        node_id: bytes,
        config: TransportConfig,
        emit: Callable[[bytes, bytes], bool],
        *,
        session: bytes | None = None,
        advertise: tuple[int, str | None] = (0, None),
        wire_filter: WireFilter | None = None,
    ) -> None:
        validate_peer_id(node_id)
        self.node_id = node_id
        self.config = config
        self.session = session if session is not None else os.urandom(SESSION_LEN)
        self._emit_raw = emit
        self._advertise = advertise
        self.wire_filter = wire_filter
        self._peers: dict[bytes, _Peer] = {}
        self._ready: deque[bytes] = deque()
        self._ready_set: set[bytes] = set()
        self._events: deque[PeerEvent] = deque(maxlen=4096)
        self._delayed: list[tuple[float, int, bytes, bytes]] = []
        self._delay_counter = 0
        self._stats: dict[bytes, dict[str, int]] = {}
        self._unknown_hello_at: dict[bytes, float] = {}
        self.delivered_total = 0

    # ----------------------------------------------------------- peers / API
    def add_peer(self, peer_id: bytes, endpoint: str, now: float) -> bool:
        """Returns False if the peer was already known with the same endpoint."""
        validate_peer_id(peer_id)
        if peer_id == self.node_id:
            raise TransportError("cannot add ourselves as a peer")
        old = self._peers.get(peer_id)
        if old is not None:
            if old.endpoint == endpoint:
                return False
            old.endpoint = endpoint
            old.last_hb_sent = -1e18
            return True
        self._peers[peer_id] = _Peer(peer_id, endpoint, added_at=now, rto=self.config.rto_initial)
        self._unknown_hello_at.pop(peer_id, None)
        return True

    def remove_peer(self, peer_id: bytes) -> None:
        self._peers.pop(peer_id, None)

    def peers(self) -> list[bytes]:
        return list(self._peers)

    def endpoint_of(self, peer_id: bytes) -> str:
        return self._peer(peer_id).endpoint

    def _peer(self, peer_id: bytes) -> _Peer:
        try:
            return self._peers[peer_id]
        except KeyError:
            raise TransportError(f"unknown peer {peer_id.hex()}") from None

    def enqueue(self, peer_id: bytes, payload: bytes) -> int:
        """Queue a payload; returns its sequence number.  Transmission happens in tick()."""
        if not isinstance(payload, bytes | bytearray | memoryview):
            raise TypeError("payload must be bytes")
        payload = bytes(payload)
        if len(payload) > self.config.max_payload:
            raise TransportError(
                f"payload of {len(payload)} bytes exceeds max_payload={self.config.max_payload}"
            )
        p = self._peer(peer_id)
        if len(p.unacked) >= self.config.max_send_queue:
            raise QueueFull(f"send queue to {peer_id.hex()} is full ({len(p.unacked)})")
        seq = p.next_seq
        p.next_seq += 1
        p.unacked[seq] = _Out(payload)
        p.next_resend = 0.0
        return seq

    def unacked(self, peer_id: bytes | None = None) -> int:
        if peer_id is not None:
            return len(self._peer(peer_id).unacked)
        return sum(len(p.unacked) for p in self._peers.values())

    def has_messages(self) -> bool:
        return bool(self._ready)

    def pop_message(self) -> tuple[bytes, bytes] | None:
        """Next delivered payload, round-robin between peers."""
        while self._ready:
            pid = self._ready.popleft()
            p = self._peers.get(pid)
            if p is None or not p.inbox:
                self._ready_set.discard(pid)
                continue
            payload = p.inbox.popleft()
            if p.inbox:
                self._ready.append(pid)
            else:
                self._ready_set.discard(pid)
            self._promote(p)
            return pid, payload
        return None

    def pop_events(self) -> list[PeerEvent]:
        out = list(self._events)
        self._events.clear()
        return out

    def peer_status(self, peer_id: bytes, now: float) -> PeerStatus:
        return self._update_status(self._peer(peer_id), now)

    def _update_status(self, p: _Peer, now: float) -> PeerStatus:
        st = self._status_of(p, now)
        if st is not p.status:
            p.status = st
            self._events.append(PeerEvent(PeerEventKind.STATUS, p.peer_id, status=st))
        return st

    def remote_session(self, peer_id: bytes) -> bytes | None:
        return self._peer(peer_id).rsession

    def stats(self) -> dict[bytes, dict[str, int]]:
        return {k: dict(v) for k, v in self._stats.items()}

    # ---------------------------------------------------------------- inbound
    def _count(self, peer_id: bytes, reason: str, detail: str = "") -> None:
        if peer_id not in self._stats and peer_id not in self._peers:
            if len(self._stats) >= _MAX_UNKNOWN_TRACKED + len(self._peers):
                peer_id = b"?"
        counters = self._stats.setdefault(peer_id, {})
        n = counters.get(reason, 0) + 1
        counters[reason] = n
        if n <= _MAX_LOGGED_PER_REASON or n % 1000 == 0:
            log.warning("dropped frame from %s: %s %s (count %d)", peer_id.hex(), reason, detail, n)

    def on_frame(
        self, src: bytes, frame: bytes, now: float, observed_host: str | None = None
    ) -> None:
        """Handle one raw frame received from ``src`` (the transport-level identity)."""
        if len(frame) > self.config.max_frame:
            self._count(src, "oversized", f"{len(frame)} bytes")
            return
        try:
            msg = msgpack.unpackb(
                frame,
                raw=False,
                use_list=True,
                max_bin_len=self.config.max_frame,
                max_str_len=512,
                max_array_len=8,
                max_map_len=0,
                max_ext_len=0,
            )
        except Exception as exc:  # msgpack raises many types on garbage
            self._count(src, "malformed", type(exc).__name__)
            return
        parsed = _parse(msg, self.config.max_payload)
        if parsed is None:
            self._count(src, "malformed", "bad structure")
            return
        kind, session = parsed[0], parsed[1]
        p = self._peers.get(src)
        if p is None:
            self._count(src, "unknown_peer")
            if kind == HELLO:
                self._unknown_hello(src, parsed, now, observed_host)
            return
        if kind == DATA and len(parsed[4]) > self.config.max_payload:
            self._count(src, "oversized", f"payload {len(parsed[4])} bytes")
            return
        if not self._check_session(p, session, now):
            return
        p.last_heard = now
        if kind == DATA:
            self._on_data(p, parsed[2], parsed[3], parsed[4])
        elif kind == ACK:
            self._on_ack(p, parsed[2], parsed[3], parsed[4], now)
        # HELLO: only liveness + session, done above.

    def _unknown_hello(
        self, src: bytes, parsed: tuple[Any, ...], now: float, observed_host: str | None
    ) -> None:
        last = self._unknown_hello_at.get(src)
        if last is not None and now - last < 1.0:
            return
        if len(self._unknown_hello_at) >= _MAX_UNKNOWN_TRACKED:
            self._unknown_hello_at.clear()
        self._unknown_hello_at[src] = now
        port, host = parsed[2], parsed[3]
        host = host or observed_host
        endpoint = f"tcp://{_fmt_host(host)}:{port}" if host and port else None
        self._events.append(PeerEvent(PeerEventKind.HELLO, src, endpoint=endpoint))

    def _check_session(self, p: _Peer, session: bytes, now: float) -> bool:
        if p.rsession == session:
            return True
        if p.rsession is None:
            p.rsession = session
            return True
        if session in p.retired:
            self._count(p.peer_id, "stale_session")
            return False
        p.retired.append(p.rsession)
        while len(p.retired) > self.config.retired_sessions:
            p.retired.popleft()
        p.rsession = session
        p.expected = None
        p.ooo.clear()
        p.ack_due = False
        p.last_hb_sent = -1e18  # tell the newcomer about us at once
        # Its out-of-order buffer died with it: selectively acked frames must go again.
        for o in p.unacked.values():
            if o.sacked:
                o.sacked = False
                o.due = 0.0
        p.next_resend = 0.0
        self._events.append(PeerEvent(PeerEventKind.RESTARTED, p.peer_id))
        log.info("peer %s restarted (new session)", p.peer_id.hex())
        return True

    def _on_data(self, p: _Peer, seq: int, base: int, payload: bytes) -> None:
        if p.expected is None:
            p.expected = base
        if base > p.expected:
            # The sender had every frame below ``base`` acknowledged (by an
            # earlier incarnation of us): skip forward, tell the layer above.
            skipped = base - p.expected - sum(1 for k in p.ooo if k < base)
            for k in sorted(k for k in p.ooo if k < base):
                self._deliver(p, p.ooo.pop(k))
            p.expected = base
            if skipped > 0:
                self._events.append(PeerEvent(PeerEventKind.GAP, p.peer_id, detail=skipped))
        p.ack_due = True
        if seq < p.expected or seq in p.ooo:
            self._stats.setdefault(p.peer_id, {})
            c = self._stats[p.peer_id]
            c["duplicate"] = c.get("duplicate", 0) + 1
            return
        if seq >= p.expected + self.config.window:
            self._count(p.peer_id, "beyond_window", f"seq {seq} expected {p.expected}")
            return
        p.ooo[seq] = payload
        self._promote(p)

    def _deliver(self, p: _Peer, payload: bytes) -> None:
        p.inbox.append(payload)
        self.delivered_total += 1
        if p.peer_id not in self._ready_set:
            self._ready_set.add(p.peer_id)
            self._ready.append(p.peer_id)

    def _promote(self, p: _Peer) -> None:
        if p.expected is None:
            return
        while p.expected in p.ooo and len(p.inbox) < self.config.max_inbox:
            self._deliver(p, p.ooo.pop(p.expected))
            p.expected += 1
            p.ack_due = True

    def _on_ack(self, p: _Peer, acked_session: bytes, cum: int, sack: bytes, now: float) -> None:
        if acked_session != self.session:
            return
        sample: float | None = None
        # Selective acknowledgement: bit i of ``sack`` = seq cum+1+i is buffered.
        for i, byte in enumerate(sack):
            if byte:
                for bit in range(8):
                    if byte >> bit & 1:
                        o = p.unacked.get(cum + 1 + 8 * i + bit)
                        if o is not None and not o.sacked:
                            o.sacked = True
                            if o.attempts == 1:
                                sample = now - o.first_sent
        if sack and p.srtt is not None:
            # RACK-lite: a hole below selectively acked frames, unanswered for
            # longer than a smoothed RTT, is lost: resend it now, not at its RTO.
            top = cum + 8 * len(sack)
            for s in range(max(cum + 1, p.base), min(top, p.next_seq)):
                o = p.unacked.get(s)
                if o is not None and not o.sacked and o.attempts and now - o.last_sent > p.srtt:
                    o.due = now
                    p.next_resend = 0.0
        if cum >= p.base:
            cum = min(cum, p.next_seq - 1)
            for s in range(p.base, cum + 1):
                o = p.unacked.pop(s, None)
                # Karn: only frames sent once and not already selectively acked
                if o is not None and o.attempts == 1 and not o.sacked:
                    sample = now - o.first_sent
            p.base = cum + 1
            p.next_resend = 0.0
        if sample is not None:
            c = self.config
            if p.srtt is None:
                p.srtt, p.rttvar = sample, sample / 2
            else:
                p.rttvar = 0.75 * p.rttvar + 0.25 * abs(p.srtt - sample)
                p.srtt = 0.875 * p.srtt + 0.125 * sample
            p.rto = min(max(p.srtt + 4 * p.rttvar, c.rto_min), c.rto_max)

    # --------------------------------------------------------------- outbound
    def _send(self, dst: bytes, frame: bytes, now: float) -> bool:
        if self.wire_filter is None:
            return self._emit_raw(dst, frame)
        for delay, f in self.wire_filter(dst, frame, now):
            if delay <= 0:
                self._emit_raw(dst, f)
            else:
                self._delay_counter += 1
                heapq.heappush(self._delayed, (now + delay, self._delay_counter, dst, f))
        return True

    def _status_of(self, p: _Peer, now: float) -> PeerStatus:
        c = self.config
        if p.last_heard is None:
            return PeerStatus.CONNECTING if now - p.added_at < c.gone_after else PeerStatus.GONE
        age = now - p.last_heard
        if age < c.slow_after:
            return PeerStatus.CONNECTED
        if age < c.gone_after:
            return PeerStatus.SLOW
        return PeerStatus.GONE

    def tick(self, now: float) -> float:
        """Send what is due (data, resends, acks, heartbeats, delayed frames).

        Returns the next time something will be due."""
        c = self.config
        nxt = now + c.hb_interval
        while self._delayed and self._delayed[0][0] <= now:
            _, _, dst, f = heapq.heappop(self._delayed)
            if dst in self._peers:
                self._emit_raw(dst, f)
        if self._delayed:
            nxt = min(nxt, self._delayed[0][0])
        for p in list(self._peers.values()):
            self._update_status(p, now)
            if p.ack_due and p.rsession is not None and p.expected is not None:
                ack = [ACK, self.session, p.rsession, p.expected - 1, _sack(p.ooo, p.expected)]
                p.ack_due = not self._send(p.peer_id, _pack(ack), now)
                if p.ack_due:
                    nxt = min(nxt, now + self._retry_delay(p))
            if now - p.last_hb_sent >= c.hb_interval:
                port, host = self._advertise
                if self._send(p.peer_id, _pack([HELLO, self.session, port, host]), now):
                    p.last_hb_sent = now
                else:
                    p.last_hb_sent = now - c.hb_interval + self._retry_delay(p)
            nxt = min(nxt, p.last_hb_sent + c.hb_interval)
            if p.unacked and p.next_resend <= now:
                p.next_resend = self._resend(p, now)
            if p.unacked:
                nxt = min(nxt, p.next_resend)
            if p.last_heard is not None:
                for limit in (c.slow_after, c.gone_after):
                    if p.last_heard + limit > now:
                        nxt = min(nxt, p.last_heard + limit)
                        break
        return nxt

    def _retry_delay(self, p: _Peer) -> float:
        # Poll fast for a connection being set up, slowly for a peer that is gone.
        c = self.config
        return c.hb_interval if p.status is PeerStatus.GONE else c.retry_unsent

    def _resend(self, p: _Peer, now: float) -> float:
        c = self.config
        nxt = float("inf")
        top = min(p.next_seq, p.base + c.window)
        for seq in range(p.base, top):
            o = p.unacked.get(seq)
            if o is None or o.sacked:
                continue
            if o.due <= now:
                frame = _pack([DATA, self.session, seq, p.base, o.payload])
                if not self._send(p.peer_id, frame, now):
                    # Not even queued (no connection yet): does not count as an
                    # attempt; poll again soon, and stop trying the rest now.
                    return min(nxt, now + self._retry_delay(p))
                o.attempts += 1
                o.last_sent = now
                if o.attempts == 1:
                    o.first_sent = now
                    o.rto = p.rto
                else:
                    o.rto = min(o.rto * 2, c.rto_max)
                o.due = now + o.rto
            nxt = min(nxt, o.due)
        return nxt


def _sack(ooo: dict[int, bytes], expected: int) -> bytes:
    if not ooo:
        return b""
    bits = bytearray((max(ooo) - expected) // 8 + 1)
    for k in ooo:
        i = k - expected
        bits[i >> 3] |= 1 << (i & 7)
    return bytes(bits)


def _parse(msg: Any, max_payload: int) -> tuple[Any, ...] | None:
    """Validate a decoded frame; returns a tuple or None if malformed."""
    if not isinstance(msg, list) or len(msg) < 2:
        return None
    kind, session = msg[0], msg[1]
    if not isinstance(kind, int) or not isinstance(session, bytes) or len(session) != SESSION_LEN:
        return None
    if kind == DATA and len(msg) == 5:
        _, _, seq, base, payload = msg
        if (
            isinstance(seq, int)
            and isinstance(base, int)
            and isinstance(payload, bytes)
            and 1 <= base <= seq < 1 << 62
        ):
            return (DATA, session, seq, base, payload)
        return None
    if kind == ACK and len(msg) == 5:
        _, _, acked, cum, sack = msg
        if (
            isinstance(acked, bytes)
            and isinstance(cum, int)
            and 0 <= cum < 1 << 62
            and isinstance(sack, bytes)
            and len(sack) <= 1024
        ):
            return (ACK, session, acked, cum, sack)
        return None
    if kind == HELLO and len(msg) == 4:
        _, _, port, host = msg
        if isinstance(port, int) and 0 <= port < 65536 and (host is None or isinstance(host, str)):
            return (HELLO, session, port, host)
        return None
    return None


def _fmt_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def parse_endpoint(text: str) -> str:
    """Accept ``HOST:PORT``, ``[v6]:PORT`` or ``tcp://HOST:PORT``; return ``tcp://HOST:PORT``."""
    t = text.strip()
    if t.startswith("tcp://"):
        t = t[6:]
    host, sep, port = t.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"not HOST:PORT: {text!r}")
    return f"tcp://{host}:{int(port)}"


# ====================================================================== Node
class Node:
    """A transport endpoint: one ROUTER bound, one DEALER per remote peer.

    ``bind`` is an IP address, ``*`` (all interfaces) or an interface name
    (ZeroMQ resolves ``eth0``); ``port=0`` picks a random free port.
    :attr:`endpoint` is the actual bound endpoint.  ``advertise_host`` is the
    address put in HELLO frames (defaults to the bound address unless it is a
    wildcard, in which case receivers use the observed source address).
    """

    def __init__(
        self,
        node_id: bytes,
        *,
        bind: str = "127.0.0.1",
        port: int = 0,
        config: TransportConfig | None = None,
        advertise_host: str | None = None,
        wire_filter: WireFilter | None = None,
    ) -> None:
        validate_peer_id(node_id)
        self.node_id = node_id
        self.config = config or TransportConfig()
        self._ctx = zmq.Context(io_threads=1)
        self._router = self._ctx.socket(zmq.ROUTER)
        try:
            r = self._router
            r.setsockopt(zmq.LINGER, 0)
            r.setsockopt(zmq.ROUTER_HANDOVER, 1)  # a restarted peer takes over its id
            r.setsockopt(zmq.MAXMSGSIZE, self.config.zmq_maxmsgsize)
            r.setsockopt(zmq.RCVHWM, self.config.rcvhwm)
            r.setsockopt(zmq.SNDHWM, 1)  # the ROUTER never sends
            host = _fmt_host(bind) if bind != "*" else "*"
            r.bind(f"tcp://{host}:{port if port else '*'}")
            last = r.getsockopt(zmq.LAST_ENDPOINT)
            self.endpoint: str = last.decode() if isinstance(last, bytes) else str(last)
        except Exception:
            self._router.close(0)
            self._ctx.term()
            raise
        self.port = int(self.endpoint.rsplit(":", 1)[1])
        bound_host = self.endpoint[len("tcp://") :].rsplit(":", 1)[0].strip("[]")
        if advertise_host is None and bound_host not in ("0.0.0.0", "::"):
            advertise_host = bound_host
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._core = ReliableCore(
            node_id,
            self.config,
            self._emit,
            advertise=(self.port, advertise_host),
            wire_filter=wire_filter,
        )
        self.session = self._core.session
        self._dealers: dict[bytes, zmq.Socket[bytes]] = {}
        self._commands: deque[tuple[str, bytes, str]] = deque()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._wakeup_cb: Callable[[], None] | None = None
        self._closed = False
        self._thread = threading.Thread(
            target=self._run, name=f"p2p-node-{node_id.hex()[:8]}", daemon=True
        )
        self._thread.start()

    # --------------------------------------------------------------- public
    def __enter__(self) -> Node:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_peer(self, peer_id: bytes, endpoint: str) -> None:
        """Register (or re-point) a peer; a DEALER connects to ``endpoint``."""
        endpoint = parse_endpoint(endpoint)
        with self._lock:
            self._check_open()
            if self._core.add_peer(peer_id, endpoint, time.monotonic()):
                self._commands.append(("add", peer_id, endpoint))
        self._wake()

    def remove_peer(self, peer_id: bytes) -> None:
        with self._lock:
            self._core.remove_peer(peer_id)
            self._commands.append(("remove", peer_id, ""))
        self._wake()

    def peers(self) -> list[bytes]:
        with self._lock:
            return self._core.peers()

    def send(self, peer_id: bytes, payload: bytes) -> int:
        """Queue ``payload`` for reliable in-order delivery; returns its sequence number.

        Raises :class:`QueueFull` when the peer has ``max_send_queue``
        unacknowledged payloads, :class:`TransportError` for an unknown peer or
        an oversized payload."""
        with self._lock:
            self._check_open()
            seq = self._core.enqueue(peer_id, payload)
        self._wake()
        return seq

    def broadcast(self, payload: bytes) -> dict[bytes, int]:
        """Send to every known peer; returns peer id → sequence number.
        Peers whose queue is full are skipped (absent from the result)."""
        out: dict[bytes, int] = {}
        with self._lock:
            self._check_open()
            for pid in self._core.peers():
                try:
                    out[pid] = self._core.enqueue(pid, payload)
                except QueueFull:
                    log.warning("broadcast: queue to %s full, skipped", pid.hex())
        self._wake()
        return out

    def recv(self, timeout: float | None = None) -> tuple[bytes, bytes] | None:
        """Next ``(peer_id, payload)``, round-robin between peers.

        ``timeout=None`` blocks, ``0`` polls; returns None on timeout or close."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                msg = self._core.pop_message()
                if msg is not None:
                    break
                if self._closed:
                    return None
                if deadline is None:
                    self._cond.wait()
                else:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return None
                    self._cond.wait(left)
        self._wake()  # acks for freshly promoted frames
        return msg

    def events(self) -> list[PeerEvent]:
        """Drain and return pending peer events (status changes, restarts, hellos)."""
        with self._lock:
            return self._core.pop_events()

    def peer_status(self, peer_id: bytes) -> PeerStatus:
        with self._lock:
            return self._core.peer_status(peer_id, time.monotonic())

    def remote_session(self, peer_id: bytes) -> bytes | None:
        """The peer's current session nonce (changes when it restarts)."""
        with self._lock:
            return self._core.remote_session(peer_id)

    def pending(self, peer_id: bytes | None = None) -> int:
        """Unacknowledged payloads (to one peer or in total)."""
        with self._lock:
            return self._core.unacked(peer_id)

    def flush(self, timeout: float) -> bool:
        """Wait until every sent payload is acknowledged; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._core.unacked():
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    return False
                self._cond.wait(min(left, 0.05))
        return True

    def stats(self) -> dict[bytes, dict[str, int]]:
        """Dropped-frame counters keyed by sender id (unknown senders included):
        ``oversized``, ``malformed``, ``unknown_peer``, ``stale_session``,
        ``beyond_window``, ``duplicate``."""
        with self._lock:
            return self._core.stats()

    def set_wakeup(self, callback: Callable[[], None] | None) -> None:
        """Called from the I/O thread whenever messages or events may be ready."""
        self._wakeup_cb = callback

    def set_wire_filter(self, wire_filter: WireFilter | None) -> None:
        with self._lock:
            self._core.wire_filter = wire_filter

    def close(self) -> None:
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        self._wake()
        if threading.current_thread() is self._thread:
            return  # closed from the wakeup callback: the loop exits by itself
        self._thread.join(timeout=5)
        self._wake_r.close()
        self._wake_w.close()

    @property
    def closed(self) -> bool:
        return self._closed

    # -------------------------------------------------------------- private
    def _check_open(self) -> None:
        if self._closed:
            raise TransportError("node is closed")

    def _wake(self) -> None:
        try:
            self._wake_w.send(b"\0")
        except (BlockingIOError, OSError):
            pass

    def _emit(self, dst: bytes, frame: bytes) -> bool:
        # Called by the core from tick(), i.e. only in the I/O thread.
        d = self._dealers.get(dst)
        if d is None:
            return False
        try:
            d.send(frame, zmq.NOBLOCK)
        except zmq.Again:
            return False  # not connected (IMMEDIATE) or HWM reached: retried
        return True

    def _open_dealer(self, peer_id: bytes, endpoint: str) -> None:
        old = self._dealers.pop(peer_id, None)
        if old is not None:
            old.close(0)
        d = self._ctx.socket(zmq.DEALER)
        d.setsockopt(zmq.LINGER, 0)
        d.setsockopt(zmq.ROUTING_ID, self.node_id)
        d.setsockopt(zmq.SNDHWM, self.config.sndhwm)
        d.setsockopt(zmq.RCVHWM, 1)
        d.setsockopt(zmq.IMMEDIATE, 1)  # never queue for a dead connection
        d.setsockopt(zmq.RECONNECT_IVL, 100)
        d.setsockopt(zmq.RECONNECT_IVL_MAX, 1000)
        d.setsockopt(zmq.MAXMSGSIZE, 1024)  # the remote ROUTER never sends to us
        d.connect(endpoint)
        self._dealers[peer_id] = d

    def _run(self) -> None:
        poller = zmq.Poller()
        poller.register(self._router, zmq.POLLIN)
        poller.register(self._wake_r.fileno(), zmq.POLLIN)
        next_due = 0.0
        try:
            while True:
                now = time.monotonic()
                timeout_ms = math.ceil(max(0.0, min(next_due - now, 0.1)) * 1000)
                ready = dict(poller.poll(timeout_ms))
                if self._wake_r.fileno() in ready:
                    try:
                        while self._wake_r.recv(4096):
                            pass
                    except (BlockingIOError, OSError):
                        pass
                with self._lock:
                    if self._closed:
                        break
                    cmds = list(self._commands)
                    self._commands.clear()
                for cmd, pid, ep in cmds:
                    if cmd == "add":
                        self._open_dealer(pid, ep)
                    else:
                        d = self._dealers.pop(pid, None)
                        if d is not None:
                            d.close(0)
                frames: list[tuple[bytes, bytes, str | None]] = []
                if self._router in ready:
                    for _ in range(self.config.max_recv_batch):
                        try:
                            parts = self._router.recv_multipart(zmq.NOBLOCK, copy=False)
                        except zmq.Again:
                            break
                        frames.append(self._split(parts))
                got_msgs = False
                with self._cond:
                    now = time.monotonic()
                    for src, frame, host in frames:
                        self._core.on_frame(src, frame, now, host)
                    next_due = self._core.tick(now)
                    got_msgs = self._core.has_messages()
                    self._cond.notify_all()
                cb = self._wakeup_cb
                if cb is not None and (got_msgs or frames):
                    try:
                        cb()
                    except Exception:
                        log.exception("wakeup callback failed")
        finally:
            for d in self._dealers.values():
                d.close(0)
            self._dealers.clear()
            self._router.close(0)
            self._ctx.term()
            with self._cond:
                self._closed = True
                self._cond.notify_all()

    def _split(self, parts: Iterable[zmq.Frame]) -> tuple[bytes, bytes, str | None]:
        fl = list(parts)
        if len(fl) != 2:
            src = fl[0].bytes if fl else b"?"
            # Deliberately malformed: hand the core a frame it will reject.
            return src, b"\xc1", None
        src = fl[0].bytes
        host: str | None = None
        if src not in self._dealers:  # only unknown senders need their address
            try:
                addr = fl[1].get("Peer-Address")
                host = addr if isinstance(addr, str) else None
            except Exception:
                host = None
        return src, fl[1].bytes, host
