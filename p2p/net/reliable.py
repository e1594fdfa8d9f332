"""The transport's reliability protocol, sans I/O (the zguide's Harmony pattern on top).

ZeroMQ silently drops in-flight data when a connection is re-established, so on top of it
this module runs a small reliability protocol (see docs/network.md):

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

:class:`ReliableCore` is driven by :class:`p2p.net.transport.Node` (real ZeroMQ sockets) and
by ``p2p.testing.MemoryNode`` (an in-memory network for unit tests), so both have exactly
the same behaviour.  Only the clock passed in by the driver is used.
"""

from __future__ import annotations

import heapq
import ipaddress
import logging
import os
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgpack

from p2p.net.budget import TokenBucket
from p2p.net.frames import ACK, DATA, HELLO, SESSION_LEN, pack_frame, parse_frame, sack_bits
from p2p.net.interface import (
    PeerEvent,
    PeerEventKind,
    PeerStatus,
    QueueFull,
    TransportConfig,
    TransportError,
    WireFilter,
    format_host,
    parse_endpoint,
    validate_peer_id,
)

log = logging.getLogger("p2p.transport")

_MAX_LOGGED_PER_REASON = 10
_MAX_UNKNOWN_TRACKED = 256
#: A peer's endpoint follows its own proven HELLO at most this often (seconds).
MOVE_EVERY = 2.0
#: Signed moves checked per second and peer (plain ZeroMQ): forged HELLOs under a peer's
#: id with ever new endpoints cost at most this many signature checks.
MOVE_CHECKS_PER_S = 10.0
#: Other addresses a peer may be tried at (:meth:`ReliableCore.also_reach`).
MAX_ALTERNATIVES = 8
_MOVE_TAG = b"millebornes/endpoint/v1\x00"


def _same_host(advertised: str, observed: str | None) -> bool:
    """Whether a connection from ``observed`` (its ``Peer-Address``) comes from the host
    ``advertised`` (both IP literals; an IPv4-mapped IPv6 address is its IPv4 one)."""
    if not observed:
        return False
    try:
        a = ipaddress.ip_address(advertised.split("%", 1)[0])
        o = ipaddress.ip_address(observed.split("%", 1)[0])
    except ValueError:
        return False
    a = a.ipv4_mapped or a if isinstance(a, ipaddress.IPv6Address) else a
    o = o.ipv4_mapped or o if isinstance(o, ipaddress.IPv6Address) else o
    return a == o


def endpoint_statement(node_id: bytes, session: bytes, port: int, host: str) -> bytes:
    """What a node signs (plain ZeroMQ) so that its peers follow it to a new address:
    its id, this session (a new one at every start, so an old statement cannot pull a
    peer back to an old address) and the advertised port and host."""
    return b"".join((_MOVE_TAG, bytes([len(node_id)]), node_id, session,
                     port.to_bytes(2, "big"), host.encode("ascii", "replace")))


@dataclass
class _Out:
    payload: bytes
    due: float = 0.0  # 0.0 = never sent, send at once
    rto: float = 0.0
    attempts: int = 0
    first_sent: float = 0.0
    last_sent: float = 0.0
    sacked: bool = False  # receiver holds it out of order: do not resend
    via: str = ""  # the endpoint it was last sent to


@dataclass
class _Peer:
    peer_id: bytes
    endpoint: str
    added_at: float
    # outbound
    next_seq: int = 1
    base: int = 1  # lowest unacknowledged sequence number
    unacked: dict[int, _Out] = field(default_factory=dict)
    unacked_bytes: int = 0  # the payload bytes of ``unacked``
    next_resend: float = 0.0
    last_hb_sent: float = -1e18
    rto: float = 0.2
    srtt: float | None = None
    rttvar: float = 0.0
    # inbound
    rsession: bytes | None = None
    session_started: float = 0.0  # when rsession became current
    session_heard: float = 0.0  # last frame of rsession
    retired: deque[bytes] = field(default_factory=deque)
    #: where each retired session's stream stood: a session switched back to resumes there
    retired_expected: dict[bytes, int | None] = field(default_factory=dict)
    expected: int | None = None
    ooo: dict[int, bytes] = field(default_factory=dict)
    inbox: deque[bytes] = field(default_factory=deque)
    ack_due: bool = False
    last_heard: float | None = None
    status: PeerStatus = PeerStatus.CONNECTING
    #: the endpoint its last proven HELLO advertised, and when we last followed a move
    advertised: str | None = None
    moved_at: float = -1e18
    #: signatures of moves checked for this peer (plain ZeroMQ), see _known_hello
    move_checks: TokenBucket | None = None
    #: where we dialled it before a stall sent us to its advertised endpoint (see
    #: :meth:`ReliableCore.reach_stalled`); None once an acknowledgement settles it
    fallback: str | None = None
    #: since when no data frame could even be queued to it (its address refuses us)
    blocked_since: float | None = None
    #: where we were told to dial it (:meth:`ReliableCore.add_peer`), and the other
    #: addresses it signed itself (:meth:`ReliableCore.also_reach`): a stall tries each
    #: in turn, so a wrong address given by a third party costs one stall, not the game
    home: str = ""
    alternatives: tuple[str, ...] = ()
    #: the last of those that acknowledged data (a stall elsewhere comes back to it),
    #: and where in :meth:`ReliableCore._cycle` a stall last went
    answered: str | None = None
    cursor: int = 0
    #: stalls that sent us to another of its addresses since one last answered: the
    #: first round of them waits half as long at each (see :meth:`ReliableCore.stall_wait`)
    trials: int = 0
    #: what the driver told of its connection to it (:meth:`ReliableCore.dialled`,
    #: :meth:`ReliableCore.link_event`): when the current one was dialled, when its TCP
    #: connection came up, when its handshake finished, whether it went down since; None
    #: where the driver tells nothing (``MemoryNode``)
    dial_at: float | None = None
    link_tcp_at: float | None = None
    link_ready_at: float | None = None
    link_down: bool = False
    #: re-opens in a row that cut a handshake still going on (each doubles the next wait)
    cut_handshakes: int = 0
    #: when acknowledgements last moved on (a backlog still draining is no stall)
    progress_at: float = -1e18


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
        #: sent in every HELLO when set: under CURVE, this node's certificate of its CURVE
        #: key (a stranger's HELLO then proves the id it claims is its own, see the lobby)
        self.hello_proof: bytes | None = None
        #: plain ZeroMQ: checks a peer's signed endpoint statement ``(peer id, statement,
        #: signature)`` (see endpoint_statement); None: a plain peer's move is never followed
        self.move_verifier: Callable[[bytes, bytes, bytes], bool] | None = None
        #: whether a finished handshake proves the peer holds its key (the driver sets it
        #: under CURVE). On plain ZeroMQ anything that speaks ZMTP finishes one: a port
        #: that answers the handshake late and swallows the rest earns no more wait for
        #: it than the round trip its TCP connection measured (see stall_wait)
        self.authenticated_links = False
        #: moves the driver must follow (re-open the connection): ``(peer id, endpoint)``
        self.moves: deque[tuple[bytes, str]] = deque(maxlen=256)
        self.wire_filter = wire_filter
        self._peers: dict[bytes, _Peer] = {}
        self._ready: deque[bytes] = deque()
        self._ready_set: set[bytes] = set()
        self._events: deque[PeerEvent] = deque(maxlen=4096)
        self._delayed: list[tuple[float, int, bytes, bytes]] = []
        self._delay_counter = 0
        self._stats: dict[bytes, dict[str, int]] = {}
        self._unknown_hello_at: dict[bytes, float] = {}
        self._hello_budget = TokenBucket(config.stranger_hellos_per_s,
                                         config.stranger_hellos_per_s)
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
            old.endpoint = old.home = endpoint
            old.answered = None
            old.last_hb_sent = -1e18
            return True
        self._peers[peer_id] = _Peer(peer_id, endpoint, added_at=now,
                                     rto=self.config.rto_initial, home=endpoint)
        self._unknown_hello_at.pop(peer_id, None)
        return True

    def also_reach(self, peer_id: bytes, endpoints: Sequence[str]) -> None:
        """Other addresses where ``peer_id`` said (signed) it listens, besides the one
        :meth:`add_peer` gave: when it acknowledges nothing where we dial, a stall tries
        the next (see :meth:`reach_stalled`). At most :data:`MAX_ALTERNATIVES`; each
        must be an IP literal and port."""
        p = self._peer(peer_id)
        out: list[str] = []
        for ep in endpoints:
            try:
                ep = parse_endpoint(ep, literal_only=True)
            except ValueError:
                continue
            if ep not in out and ep != p.home:
                out.append(ep)
        p.alternatives = tuple(out[:MAX_ALTERNATIVES])

    def remove_peer(self, peer_id: bytes) -> None:
        self._peers.pop(peer_id, None)

    def peers(self) -> list[bytes]:
        return list(self._peers)

    def knows(self, peer_id: bytes) -> bool:
        """Whether ``peer_id`` is one of this node's peers."""
        return peer_id in self._peers

    @property
    def advertise(self) -> tuple[int, str | None]:
        """``(port, host)`` this node's HELLO advertises."""
        return self._advertise

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
        p.unacked_bytes += len(payload)
        p.next_resend = 0.0
        return seq

    def unacked(self, peer_id: bytes | None = None) -> int:
        if peer_id is not None:
            return len(self._peer(peer_id).unacked)
        return sum(len(p.unacked) for p in self._peers.values())

    def unacked_bytes(self, peer_id: bytes) -> int:
        """The bytes of the payloads to ``peer_id`` not acknowledged yet (what this node
        holds for it, resending)."""
        return self._peer(peer_id).unacked_bytes

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

    def count_drop(self, src: bytes, reason: str) -> None:
        """Count a frame the driver dropped before the core saw it (e.g. ``spoofed``)."""
        self._count(src, reason)

    def on_frame(
        self, src: bytes, frame: bytes, now: float, observed_host: str | None = None,
        curve_key: bytes | None = None, proven: bool = False,
    ) -> None:
        """Handle one raw frame received from ``src`` (the transport-level identity);
        ``curve_key`` is the key the connection was authenticated with (CURVE only);
        ``proven``: that key is the one bound to ``src`` (only then may a HELLO move it)."""
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
        parsed = parse_frame(msg, self.config.max_payload)
        if parsed is None:
            self._count(src, "malformed", "bad structure")
            return
        kind, session = parsed[0], parsed[1]
        if src == self.node_id:
            self._count(src, "own_id", "a frame claims to come from us")
            return
        p = self._peers.get(src)
        if p is None:
            self._count(src, "unknown_peer")
            if kind == HELLO:
                self._unknown_hello(src, parsed, now, observed_host, curve_key)
            return
        if kind == DATA and len(parsed[4]) > self.config.max_payload:
            self._count(src, "oversized", f"payload {len(parsed[4])} bytes")
            return
        switched_back = session in p.retired
        if not self._check_session(p, session, now):
            return
        p.last_heard = now
        if kind == DATA:
            self._on_data(p, parsed[2], parsed[3], parsed[4])
        elif kind == ACK:
            self._on_ack(p, parsed[2], parsed[3], parsed[4], now)
        elif not switched_back:  # HELLO: liveness + session, done above; and where it
            # listens now (never from an old session taken back: a replayed HELLO of an
            # old session would carry a genuine proof of an old address)
            self._known_hello(p, session, parsed[2], parsed[3], parsed[4], now, proven,
                              observed_host)

    def _known_hello(self, p: _Peer, session: bytes, port: int, host: str | None,
                     proof: bytes | None, now: float, proven: bool,
                     observed_host: str | None = None) -> None:
        """Follow a peer that advertises a new endpoint (a new address after a DHCP or VPN
        change, then ``resume``): its frames then reach it there, instead of its player
        naming us unresponsive.  Only the peer itself may move itself: under CURVE the HELLO
        must come over a connection proven with the key bound to its id (``proven``); on
        plain ZeroMQ it must carry the peer's signature of :func:`endpoint_statement`.
        The host is the advertised one; only a proven peer that advertises none (it listens
        on all interfaces) is taken at its connection's source address (on plain ZeroMQ a
        replayed HELLO would bring the replayer's address).  Only a *change* of what it
        advertises moves it (a peer reached through a forwarded address always advertises
        its own), and at most one move per :data:`MOVE_EVERY` seconds."""
        if not host and proven:
            host = observed_host
        if not host or not port:
            return
        try:
            ep = parse_endpoint(f"{format_host(host)}:{port}", literal_only=True)
        except ValueError:
            return
        if ep == p.advertised:
            return
        if not proven:
            ok = False
            if p.move_checks is None:
                p.move_checks = TokenBucket(MOVE_CHECKS_PER_S, MOVE_CHECKS_PER_S)
            if self.move_verifier is not None and proof is not None \
                    and p.move_checks.take(now):  # a forged HELLO costs one check, bounded
                try:
                    ok = self.move_verifier(
                        p.peer_id, endpoint_statement(p.peer_id, session, port, host), proof)
                except Exception:  # a verifier must not kill the transport
                    ok = False
            if not ok:
                if p.advertised is not None and ep != p.endpoint:
                    self._count(p.peer_id, "unproven_move", ep[:60])
                return
        if p.advertised is None or ep == p.endpoint:
            p.advertised = ep         # the first we hear of it, or where we reach it anyway
            return
        if now - p.moved_at < MOVE_EVERY:
            self._count(p.peer_id, "move_rate", ep[:60])
            return                    # ``advertised`` unchanged: a later HELLO moves it
        p.advertised = ep
        log.info("peer %s now listens at %s (was %s): following it", p.peer_id.hex()[:16],
                 ep, p.endpoint)
        self._follow(p, ep, now)
        self.moves.append((p.peer_id, ep))

    def _follow(self, p: _Peer, ep: str, now: float) -> None:
        p.moved_at = now
        p.fallback = None
        p.answered = ep              # where it proved it is: a stall comes back here
        if p.endpoint != ep:
            self._redial(p, ep)
        self._events.append(PeerEvent(PeerEventKind.MOVED, p.peer_id, endpoint=ep))

    @staticmethod
    def _redial(p: _Peer, ep: str) -> None:
        """Send to ``ep`` from now on: a HELLO and what is unacknowledged go there at once."""
        p.endpoint = ep
        p.blocked_since = None
        p.last_hb_sent = -1e18
        p.next_resend = 0.0

    @staticmethod
    def _other_endpoint(p: _Peer) -> str | None:
        """Where a stall of ``p`` sends us next (:meth:`reach_stalled`): its proven
        advertisement if we dial elsewhere, else back where we dialled before, or None.
        A peer with addresses of its own (:meth:`also_reach`) is tried at each in turn:
        where we were told, each it signed, and where it says it listens."""
        if p.alternatives:
            if p.answered is not None and p.answered != p.endpoint:
                return p.answered
            cycle = ReliableCore._cycle(p)
            for k in range(1, len(cycle) + 1):
                c = cycle[(p.cursor + k) % len(cycle)]
                if c != p.endpoint:
                    return c
            return None
        if p.advertised is not None and p.advertised != p.endpoint:
            return p.advertised
        return p.fallback

    def dialled(self, peer_id: bytes, now: float) -> None:
        """The driver opened a new connection to ``peer_id`` (where :meth:`endpoint_of`
        says) at ``now``: what :meth:`link_event` tells next is of that one, and a stall
        waits from now (see :meth:`stall_wait`)."""
        p = self._peers.get(peer_id)
        if p is None:
            return
        if self._handshaking(p):
            p.cut_handshakes += 1       # a handshake still going on was cut short
        p.dial_at = now
        p.link_tcp_at = p.link_ready_at = None
        p.link_down = False

    def link_event(self, peer_id: bytes, event: str, now: float) -> None:
        """What the driver saw of its current connection to ``peer_id``: ``"connected"``
        (the TCP connection is up, a handshake begins), ``"ready"`` (the handshake is
        done: frames go out) or ``"down"`` (closed, or the handshake failed)."""
        p = self._peers.get(peer_id)
        if p is None or p.dial_at is None:
            return
        if event == "connected":
            p.link_tcp_at, p.link_ready_at, p.link_down = now, None, False
        elif event == "ready":
            if p.link_tcp_at is None:
                p.link_tcp_at = now
            p.link_ready_at, p.link_down = now, False
            p.cut_handshakes = 0
        elif event == "down":
            p.link_down = True

    @staticmethod
    def _handshaking(p: _Peer) -> bool:
        return p.link_tcp_at is not None and p.link_ready_at is None and not p.link_down

    def stall_wait(self, peer_id: bytes, after: float) -> float:
        """How long a connection to ``peer_id`` we (re-)dialled gets to acknowledge before
        the next stall re-opens it: ``after``, but half as long at each of its own
        addresses on the first round through them (none answered yet) while nothing
        listens there. A seat with 8 addresses and a dead one from the host, live at its
        last, took 24.8 s to reach, beyond a table's 20 s step limit (hostile pass 26); a
        later round waits the whole ``after`` at each.

        On a slow link (a VPN, a satellite or mobile link: round trips of 0.3-2 s) a
        fresh connection needs 3-5 round trips before its first acknowledgement (TCP,
        the ZMTP greeting, CURVE's two exchanges, then data): where the driver tells how
        the connection goes (:meth:`link_event`), an address whose TCP connection came up
        gets the whole ``after``; one whose handshake finished, under CURVE as long again
        as that took (the first acknowledgement is a round trip away), on plain ZeroMQ
        (anyone finishes a NULL handshake) two round trips as the TCP connect measured
        them, no more than the handshake could have held it; one whose handshake goes
        on, ``after`` doubled at each such handshake cut short before (or twice the last
        handshake's time), up to ``handshake_limit`` (a remote ROUTER drops a longer
        one). Never more than :meth:`stall_ceiling`."""
        p = self._peers.get(peer_id)
        if p is None:
            return after
        first_round = bool(p.alternatives) and p.endpoint not in (p.home, p.answered) \
            and p.trials <= len(self._cycle(p))
        wait = after / 2 if first_round else after
        if p.dial_at is None or p.link_tcp_at is None:
            return wait
        wait = after                        # something listens there
        c = self.config
        rtt = p.link_tcp_at - p.dial_at     # the TCP connect: one round trip
        patience = 2 * after * 2 ** min(p.cut_handshakes, 8)
        if p.srtt is not None:
            patience = max(patience, 6 * p.srtt)
        held = rtt + min(patience, c.handshake_limit)   # what a handshake may take
        if p.link_ready_at is not None:
            setup = p.link_ready_at - p.dial_at
            if self.authenticated_links:
                wait = max(wait, setup + max(after / 2, setup))
            else:
                # plain ZeroMQ: a tarpit answering the NULL handshake just before the
                # patience ran out (5.8 s) then earned as long again, and the wait was
                # timed from its end: 17.4 s at one address, a seat live at the 8th of
                # its own reached after 28.9 s (the review of the slow links change).
                # Its first acknowledgement is a round trip or two away, measured by
                # the TCP connect; never more than the handshake could have held it
                wait = max(wait, min(setup + max(after / 4, 2 * rtt), held + after / 4))
        elif not p.link_down:
            wait = max(wait, held)
        return min(wait, self.stall_ceiling(after))

    def dialled_since(self, peer_id: bytes, now: float) -> float | None:
        """Seconds since the driver last opened a connection to ``peer_id`` (None where
        it tells nothing of its connections, or the peer is unknown)."""
        p = self._peers.get(peer_id)
        if p is None or p.dial_at is None:
            return None
        return now - p.dial_at

    def stall_ceiling(self, after: float) -> float:
        """The longest :meth:`stall_wait`: a handshake of ``handshake_limit`` and
        ``after`` for the first acknowledgement (13 s by default: a link whose CURVE
        handshake needs more than 10 s, round trips over about 2 s, never connects)."""
        return max(after, self.config.handshake_limit + after)

    @staticmethod
    def _cycle(p: _Peer) -> list[str]:
        """Every address ``p`` is tried at, in turn: where we were told, each it signed,
        where it says it listens."""
        return list(dict.fromkeys([p.home, *p.alternatives]
                                  + ([p.advertised] if p.advertised else [])))

    def reach_stalled(self, peer_id: bytes) -> str:
        """Where to re-open the connection to a peer that acknowledged nothing for a while.

        The first endpoint a peer's proven HELLO advertises is taken as where it *says* it
        listens, not as a move: a peer reached through a forwarded address always
        advertises its own, unreachable one.  But when we missed every HELLO of its earlier
        session (it lived under a second, or we had not added it yet) and it restarted
        elsewhere, that first advertisement *is* its new address, and the one we dial is
        dead.  So a stalled peer is tried at its advertised endpoint; if that stalls too,
        at the one we dialled before, and so on at each stall.  An acknowledgement from the
        advertised one settles it (a MOVED event, as for a move)."""
        p = self._peers.get(peer_id)
        if p is None:
            return ""
        ep = self._other_endpoint(p)
        if ep is None:
            return p.endpoint
        if p.alternatives and ep != p.answered:
            p.cursor = self._cycle(p).index(ep)
            p.trials += 1
        if ep == p.advertised:
            log.info("no ack from %s at %s: trying where it says it listens, %s",
                     peer_id.hex()[:16], p.endpoint, ep)
            p.fallback = p.endpoint
        else:
            p.fallback = None
        self._redial(p, ep)
        return ep

    def _unknown_hello(
        self, src: bytes, parsed: tuple[Any, ...], now: float, observed_host: str | None,
        curve_key: bytes | None = None,
    ) -> None:
        # one HELLO a second per id *and key*: under one id's throttle alone, a stranger
        # saying HELLO every 50 ms under a player's id took every slot, and the player's
        # own HELLO (from its own key) was never heard
        slot = src if curve_key is None else src + curve_key
        if curve_key is None and parsed[3] and parsed[4] is not None \
                and _same_host(parsed[3], observed_host):
            # plain ZeroMQ, a HELLO signed (it says) from the very host it names: a turn
            # per id and that host, so a stranger's HELLOs under a player's id from its
            # own machine no longer hide the player's signed one (hostile pass 28)
            slot = src + b"@" + str(observed_host).encode()
        last = self._unknown_hello_at.get(slot)
        if last is not None and now - last < 1.0:
            return
        # all strangers together: a token bucket, so a flood of fresh ids is bounded too
        if not self._hello_budget.take(now):
            self._count(src, "hello_rate")
            return
        if len(self._unknown_hello_at) >= _MAX_UNKNOWN_TRACKED:
            self._unknown_hello_at.clear()
        self._unknown_hello_at[slot] = now
        port, host = parsed[2], parsed[3]
        host = host or observed_host
        endpoint: str | None = None
        if host and port:
            try:  # only an IP literal: never resolve (or connect to) a name a stranger picked
                endpoint = parse_endpoint(f"{format_host(host)}:{port}", literal_only=True)
            except ValueError:
                self._count(src, "bad_endpoint", repr(host)[:40])
        signed = False
        if endpoint is not None and curve_key is None and parsed[3] and parsed[4] is not None \
                and self.move_verifier is not None and _same_host(parsed[3], observed_host):
            # plain ZeroMQ: the id's own signature of where it listens in this session
            # (the table reaches a seat its stored copy holds no address for there; the
            # stranger budget above bounds the checks a flood costs). Only from that very
            # host: we know no session of an id we do not know yet, so a HELLO of an
            # earlier session (plain ZeroMQ is read by anyone on the LAN), replayed from
            # another machine, had a resumed seat dial and store that old address (the
            # review of hostile pass 26)
            try:
                signed = bool(self.move_verifier(
                    src, endpoint_statement(src, parsed[1], port, parsed[3]), parsed[4]))
            except Exception:  # a verifier must not kill the transport
                signed = False
        self._events.append(PeerEvent(PeerEventKind.HELLO, src, endpoint=endpoint,
                                      curve_key=curve_key, proof=parsed[4],
                                      signed_endpoint=signed))

    def _check_session(self, p: _Peer, session: bytes, now: float) -> bool:
        if p.rsession == session:
            p.session_heard = now
            return True
        if p.rsession is None:
            p.rsession = session
            p.session_heard = p.session_started = now
            return True
        if session in p.retired:
            self._count(p.peer_id, "stale_session")
            quiet = self.config.slow_after
            if now - p.session_heard > quiet and now - p.session_started > quiet:
                # The current session went quiet while a retired one keeps talking: that
                # "restart" was a frame under this id from someone else (plain ZeroMQ
                # authenticates nobody).  Take the talking session back.
                p.retired.remove(session)
                log.warning("peer %s: session switched back (a spoofed restart?)",
                            p.peer_id.hex()[:16])
                self._switch_session(p, session, now)
                return True
            return False
        if now - p.session_started < self.config.restart_every:
            # a restart takes longer than that: a peer switching sessions at every frame
            # (27,000 a second measured) made us resend what it had acknowledged
            # selectively, fetch from it, report and log a restart at each (hostile pass
            # 7); its new session is taken once the interval is over (frames come again)
            self._count(p.peer_id, "restart_rate")
            return False
        self._switch_session(p, session, now)
        return True

    def _switch_session(self, p: _Peer, session: bytes, now: float) -> None:
        assert p.rsession is not None
        p.retired.append(p.rsession)
        p.retired_expected[p.rsession] = p.expected
        while len(p.retired) > self.config.retired_sessions:
            p.retired_expected.pop(p.retired.popleft(), None)
        p.rsession = session
        p.session_heard = p.session_started = now
        # A new session starts afresh; one switched back to (a spoofed "restart" undone)
        # resumes where its stream stood, so nothing it resends is delivered twice.
        p.expected = p.retired_expected.pop(session, None)
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

    def _on_data(self, p: _Peer, seq: int, base: int, payload: bytes) -> None:
        if p.expected is None:
            p.expected = base
        if base > p.expected and len(p.inbox) >= self.config.max_inbox:
            # Not while the application is behind: the skip delivers what is buffered
            # below ``base``, and a sender moving ``base`` up one frame at a time would
            # grow the inbox past its bound. Unacknowledged, the frame comes again.
            self._count(p.peer_id, "inbox_full", f"base {base} expected {p.expected}")
            return
        if base > p.expected:
            # The sender had every frame below ``base`` acknowledged (by an
            # earlier incarnation of us): skip forward, tell the layer above.
            skipped = base - p.expected - sum(1 for k in p.ooo if k < base)
            for k in sorted(k for k in p.ooo if k < base):
                self._deliver(p, p.ooo.pop(k))
            p.expected = base
            if skipped > 0:
                self._events.append(PeerEvent(PeerEventKind.GAP, p.peer_id, detail=skipped))
            # frames buffered at or above the new base may now be in order (else one that
            # arrived before the skip would wait forever: found by the property test)
            self._promote(p)
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
                            p.progress_at = now
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
            here = False          # data last sent where we dial now was acknowledged
            for s in range(p.base, cum + 1):
                o = p.unacked.pop(s, None)
                if o is not None:
                    p.unacked_bytes -= len(o.payload)
                    here = here or o.via == p.endpoint
                # Karn: only frames sent once and not already selectively acked
                if o is not None and o.attempts == 1 and not o.sacked:
                    sample = now - o.first_sent
            p.base = cum + 1
            p.next_resend = 0.0
            p.progress_at = now
            if here:
                # (an acknowledgement of what went out before a redial, late, says nothing
                # of the new address: a dead one was taken for where the peer answers)
                p.answered = p.endpoint
                p.trials = 0
            if here and p.fallback is not None and p.endpoint == p.advertised:
                # a stall sent us to where it says it listens, and it answers there
                log.info("peer %s answers at %s: following it", p.peer_id.hex()[:16],
                         p.endpoint)
                self._follow(p, p.endpoint, now)
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

    def stalled(self, now: float, after: float) -> list[bytes]:
        """Peers whose oldest unacknowledged frame went out more than ``after`` seconds
        ago: their connection may be a zombie (taken over, or refused as a duplicate by
        the remote ROUTER), and the driver re-opens it; and peers to whom no frame could
        be queued for that long while they advertise another endpoint, or while we hear
        them (our connection to them is dead, theirs to us is not)."""
        out = []
        whole = after
        for p in self._peers.values():
            after = self.stall_wait(p.peer_id, whole)
            if p.dial_at is not None and now - p.dial_at <= after:
                continue    # the connection the driver opened last gets its wait first
            if now - p.moved_at <= after:
                continue    # it just proved where it is: a full wait there first (the
                #             review: old unacknowledged data had a stall leave the
                #             proven address in the very turn of the move)
            o = p.unacked.get(p.base)
            # from the last acknowledgement that moved on: a backlog longer to drain than
            # ``after`` was re-opened and sent whole again at each stall (a slow link's
            # bandwidth spent two to three times over, the review of hostile pass 26)
            start = 0.0 if o is None else max(o.first_sent, p.progress_at)
            if o is not None and p.dial_at is not None and o.first_sent <= p.dial_at + after \
                    and (p.link_ready_at is None
                         or o.first_sent <= p.link_ready_at + after / 6):
                # sent within the wait of the connection dialled last, while its
                # handshake went on (frames leave a DEALER only once it is done): that
                # wait, which counts the handshake in, runs from the dial. From the
                # frame's first sending, the wait restarted at the handshake's end, and
                # one address held a stall up to 17.4 s, past the ceiling (the review of
                # the slow links change). A frame first sent later went out on an open
                # connection and gets its whole wait from then: timed from the dial, the
                # first move sent in the last moments of a healthy connection's wait was
                # re-opened at once (the review of that fix: 0.06 s after its sending)
                start = max(p.dial_at, p.progress_at)
            if o is not None and o.attempts and now - start > after:
                out.append(p.peer_id)
            elif p.blocked_since is not None and now - p.blocked_since > after \
                    and (self._other_endpoint(p) is not None
                         or self._status_of(p, now) is PeerStatus.CONNECTED):
                # nothing could even be sent to where we dial it, and it told us (proven)
                # it listens elsewhere: see reach_stalled. Or it answers from there and
                # our connection never came up: libzmq never dials again once the
                # remote ZAP handler refused our key. A bot started for a player's seat
                # while he was away dialled his port as he resumed there, before he
                # knew the bot's key (from the takeover agreement, fetched a moment
                # later); its frames to him waited, 8,000 of them, until its queue was
                # full, and he heard the bot only through the others (2026-12-06).
                # Dialled afresh once he knows the key, it connects at once
                out.append(p.peer_id)
        return out

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
                ack = [ACK, self.session, p.rsession, p.expected - 1, sack_bits(p.ooo, p.expected)]
                p.ack_due = not self._send(p.peer_id, pack_frame(ack), now)
                if p.ack_due:
                    nxt = min(nxt, now + self._retry_delay(p))
            if now - p.last_hb_sent >= c.hb_interval:
                port, host = self._advertise
                hello: list[Any] = [HELLO, self.session, port, host]
                if self.hello_proof is not None:
                    hello.append(self.hello_proof)
                if self._send(p.peer_id, pack_frame(hello), now):
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
            # A selectively acked frame is not sent again, except the first one we hold,
            # at its timeout: the receiver may be waiting for frames below it that an
            # earlier incarnation of it acknowledged, and only a data frame tells it our
            # base so that it skips forward (else both sides wait forever: found by the
            # property test). Its timeout backs off like any resend.
            if o is None or (o.sacked and seq != p.base):
                continue
            if o.due <= now:
                frame = pack_frame([DATA, self.session, seq, p.base, o.payload])
                if not self._send(p.peer_id, frame, now):
                    # Not even queued (no connection yet): does not count as an
                    # attempt; poll again soon, and stop trying the rest now.
                    if p.blocked_since is None:
                        p.blocked_since = now
                    return min(nxt, now + self._retry_delay(p))
                p.blocked_since = None
                o.attempts += 1
                o.last_sent = now
                o.via = p.endpoint
                if o.attempts == 1:
                    o.first_sent = now
                    o.rto = p.rto
                else:
                    o.rto = min(o.rto * 2, c.rto_max)
                o.due = now + o.rto
            nxt = min(nxt, o.due)
        return nxt


