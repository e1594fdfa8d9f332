"""Reliable peer-to-peer byte transport over ZeroMQ: :class:`Node`.

Every node binds one ROUTER socket and opens one DEALER per remote peer; the
DEALER's ``ROUTING_ID`` is our node id followed by ``#`` and 8 random bytes drawn for that
socket, so the remote ROUTER knows who sent each frame, and nobody else can present the same
routing id (under CURVE it travels encrypted): ``ROUTER_HANDOVER`` then hands a pipe only
to the same DEALER reconnecting, never to a stranger claiming a member's node id.  All inbound traffic arrives on the ROUTER, all outbound traffic leaves
through the DEALERs (acknowledgements included).  No PUB/SUB.  Reliability (sequence
numbers, acknowledgements, resends, heartbeats) is :class:`p2p.net.reliable.ReliableCore`.

Threading model: :class:`Node` owns one background I/O thread that alone
receives from the ZeroMQ sockets and opens and closes them.  The public methods are
thread-safe; they share the core with the I/O thread under one lock, and ``send`` and
``broadcast`` put their frames on the DEALERs at once, under that lock (a ZeroMQ socket may
change threads behind a full memory barrier, which the lock is), instead of waking the I/O
thread to do it (see docs/network.md, "Threading").  ``recv(timeout)`` blocks on a
condition variable; an asyncio application can instead register
``set_wakeup(callback)`` (called from the I/O thread whenever messages become
available, e.g. ``lambda: loop.call_soon_threadsafe(event.set)``) and then call
``recv(0)`` until it returns ``None``.

Authentication (optional, ``curve=identity.curve_keys()``): ZeroMQ CURVE on every
connection, a ZAP handler served by the I/O thread that admits the keys bound to peers
(:meth:`Node.expect_key`) and, while :meth:`Node.set_admission` allows it, strangers at a
bounded rate; every inbound frame's routing id must match the key its connection proved.
A UDP "key door" on the same port number hands out the node's certified key card
(:func:`fetch_key_card`), so a joiner that knows only HOST:PORT can connect.
See docs/network.md, "Authenticated transport".

Only ``time.monotonic`` is used here.
"""

from __future__ import annotations

import ipaddress
import itertools
import logging
import math
import os
import select
import socket
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import msgpack
import zmq
from zmq.utils.monitor import recv_monitor_message

from p2p.crypto.identity import CurveKeys, verify_curve_certificate
from p2p.net.budget import TokenBucket
from p2p.net.conn_guard import MAX_FROM_ONE_ADDRESS, MAX_SILENT, ConnGuard, Cut
from p2p.net.interface import (
    PeerEvent,
    PeerStatus,
    QueueFull,
    TransportConfig,
    TransportError,
    WireFilter,
    format_host,
    parse_endpoint,
    validate_peer_id,
)
from p2p.net.reliable import ReliableCore, endpoint_statement

log = logging.getLogger("p2p.transport")


_RID_MARK = b"#"
_RID_NONCE = 8


def _routing_id(node_id: bytes) -> bytes:
    """A DEALER's routing id: the node id, ``#`` and a nonce of its own (why: see the
    module docstring)."""
    return node_id + _RID_MARK + os.urandom(_RID_NONCE)


def node_of_routing_id(rid: bytes) -> bytes:
    """The node id a routing id names: ``_routing_id``'s form without its nonce; any other
    routing id (a raw ZeroMQ client) names itself, and its frames are checked as such."""
    if len(rid) > _RID_NONCE + 1 and rid[-_RID_NONCE - 1:-_RID_NONCE] == _RID_MARK:
        return rid[:-_RID_NONCE - 1]
    return rid


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
        curve: CurveKeys | None = None,
    ) -> None:
        validate_peer_id(node_id)
        if len(node_id) > 255 - len(_RID_MARK) - _RID_NONCE:
            raise TransportError("a node id must be at most 246 bytes (its routing id adds 9)")
        self.node_id = node_id
        self.config = config or TransportConfig()
        self.curve = curve
        #: our CURVE public key (None: plain ZeroMQ, nothing authenticated)
        self.curve_key: bytes | None = curve.public if curve is not None else None
        self._keys: dict[bytes, bytes] = {}        # peer id -> its expected CURVE key
        self._admit_strangers = True
        rate = self.config.stranger_hellos_per_s
        self._zap_budget = TokenBucket(rate, rate)
        self._door_expected: dict[bytes, float] = {}
        # the key door's own budgets (all askers, and each address): it spent the ZAP
        # budget, so 50 cheap datagrams a second kept every joiner's handshake out
        self._door_budget = TokenBucket(KEY_DOOR_PER_S, KEY_DOOR_PER_S)
        self._door_askers: dict[str, TokenBucket] = {}
        self._ctx = zmq.Context(io_threads=1)
        self._zap: zmq.Socket[bytes] | None = None
        self._door: socket.socket | None = None
        self._router = self._ctx.socket(zmq.ROUTER)
        self._guard: ConnGuard | None = None
        #: when connections shut down for crowding were last said (see _report_crowding)
        self._crowd_said = -CROWD_REPORT_EVERY
        try:
            r = self._router
            # before bind, so that the guard sees every inbound connection (why: conn_guard)
            self._guard = ConnGuard(r, self.config.unfinished_limit, self._knows,
                                    self.config.strangers_unfinished_limit,
                                    # plain: an id is a claim, bound the claimants together
                                    None if curve is not None else
                                    self.config.unfinished_limit)
            if curve is not None:
                if not zmq.has("curve"):
                    raise TransportError("this libzmq has no CURVE support")
                # the ZAP handler must be bound before the first CURVE handshake
                self._zap = self._ctx.socket(zmq.REP)
                self._zap.setsockopt(zmq.LINGER, 0)
                self._zap.bind("inproc://zeromq.zap.01")
                r.setsockopt(zmq.ZAP_DOMAIN, b"millebornes")
                r.setsockopt(zmq.CURVE_SERVER, 1)
                r.setsockopt(zmq.CURVE_SECRETKEY, curve.secret)
            r.setsockopt(zmq.LINGER, 0)
            # ROUTER_HANDOVER: a DEALER reconnecting under its routing id (a network blip)
            # takes over its pipe.  Without it libzmq keeps the old pipe and leaves the new
            # connection a silent zombie.  The routing id carries a nonce drawn per DEALER
            # socket (see _routing_id), so a stranger admitted to an open lobby cannot name
            # a member's pipe and take it over (it used to cut the member for ~3 s).
            r.setsockopt(zmq.ROUTER_HANDOVER, 1)
            r.setsockopt(zmq.MAXMSGSIZE, self.config.zmq_maxmsgsize)
            r.setsockopt(zmq.RCVHWM, self.config.rcvhwm)
            r.setsockopt(zmq.SNDHWM, 1)  # the ROUTER never sends
            # a connection that never finishes its handshake holds a descriptor: 10 s,
            # not libzmq's 30 (an honest handshake takes a round trip or two)
            r.setsockopt(zmq.HANDSHAKE_IVL, int(self.config.handshake_limit * 1000))
            host = format_host(bind) if bind != "*" else "*"
            r.bind(f"tcp://{host}:{port if port else '*'}")
            last = r.getsockopt(zmq.LAST_ENDPOINT)
            self.endpoint: str = last.decode() if isinstance(last, bytes) else str(last)
        except Exception:
            if self._guard is not None:
                self._guard.close()
            self._router.close(0)
            if self._zap is not None:
                self._zap.close(0)
            self._ctx.term()
            raise
        self.port = int(self.endpoint.rsplit(":", 1)[1])
        if self._guard is not None:
            self._guard.port = self.port
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
        if curve is not None:
            self._core.hello_proof = curve.certificate
            self._core.authenticated_links = True
        self._dealers: dict[bytes, zmq.Socket[bytes]] = {}
        #: each DEALER's monitor (how its connection goes: see ReliableCore.link_event),
        #: and whose it is; polled by the I/O thread (None until it runs)
        self._monitors: dict[bytes, zmq.Socket[bytes]] = {}
        self._monitor_of: dict[zmq.Socket[bytes], bytes] = {}
        self._poller: zmq.Poller | None = None
        self._commands: deque[tuple[str, bytes, str, bytes | None]] = deque()
        if curve is not None:
            self._door = _open_key_door(bound_host, self.port)
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._wakeup_cb: Callable[[], None] | None = None
        self._closed = False
        self._io_due = 0.0  # when the I/O thread wakes by itself at the latest
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
            if peer_id not in self._core.peers() and len(self._core.peers()) >= self.config.max_peers:
                raise TransportError(f"already {self.config.max_peers} peers")
            server_key = self._keys.get(peer_id)
            if self.curve is not None and server_key is None:
                raise TransportError(f"no CURVE key known for peer {peer_id.hex()[:16]}: "
                                     f"call expect_key first")
            if self._core.add_peer(peer_id, endpoint, time.monotonic()):
                self._commands.append(("add", peer_id, endpoint, server_key))
        self._wake()

    def also_reach(self, peer_id: bytes, endpoints: Sequence[str]) -> None:
        """Other addresses where a known peer said it listens (it signed them, in its
        join): when it acknowledges nothing where :meth:`add_peer` sent us, each is tried
        in turn at each stall (``reopen_after``). A table whose host gave a wrong address
        for a seat then still reaches it (hostile pass 23)."""
        with self._lock:
            self._check_open()
            self._core.also_reach(peer_id, endpoints)

    def remove_peer(self, peer_id: bytes) -> None:
        """Forget a peer (and its CURVE key binding: that key is no longer admitted)."""
        with self._lock:
            self._core.remove_peer(peer_id)
            self._keys.pop(peer_id, None)
            self._commands.append(("remove", peer_id, "", None))
        self._wake()

    def peers(self) -> list[bytes]:
        with self._lock:
            return self._core.peers()

    def endpoint_of(self, peer_id: bytes) -> str:
        """Where our connection to that peer goes now (it follows a proven move)."""
        with self._lock:
            return self._core.endpoint_of(peer_id)

    def expect_key(self, peer_id: bytes, curve_key: bytes) -> None:
        """Bind ``peer_id`` to its CURVE public key: the ZAP handler admits that key, every
        frame under that routing id must come over a connection authenticated with it
        (else it is dropped as ``spoofed``), and our DEALER to the peer checks it is
        talking to that key.  Set it before :meth:`add_peer`.  Without CURVE: ignored."""
        validate_peer_id(peer_id)
        if not isinstance(curve_key, bytes) or len(curve_key) != 32:
            raise TransportError("a CURVE key is 32 bytes")
        with self._lock:
            old = self._keys.get(peer_id)
            self._keys[peer_id] = curve_key
            known = peer_id in self._core.peers()
            if old is not None and old != curve_key and known and self.curve is not None:
                # re-open the DEALER with the new server key
                self._commands.append(("add", peer_id, self._core.endpoint_of(peer_id),
                                       curve_key))
        self._wake()

    def prove_endpoint(self, sign: Callable[[bytes], bytes],
                       verify: Callable[[bytes, bytes, bytes], bool]) -> None:
        """Plain ZeroMQ: sign where this node listens, so that peers follow it to a new
        address (``sign``: this node's owner's signature; see
        :func:`~p2p.net.reliable.endpoint_statement`), and follow a peer to a new address
        only on its own signature (``verify(peer id, statement, signature)``).  Under CURVE
        nothing is needed: a peer's HELLO over a connection proven with the key bound to
        its id moves it, and its HELLO keeps carrying the key's certificate."""
        if self.curve is not None:
            return
        with self._lock:
            port, host = self._core.advertise
            if host:
                self._core.hello_proof = sign(
                    endpoint_statement(self.node_id, self.session, port, host))
            self._core.move_verifier = verify

    def set_admission(self, strangers: bool) -> None:
        """Under CURVE: whether keys nobody expected may connect at all (the lobby: yes,
        rate-limited, for HELLO only since unknown ids get nothing further; a seated
        table: no, only the seated keys)."""
        with self._lock:
            self._admit_strangers = strangers

    def send(self, peer_id: bytes, payload: bytes) -> int:
        """Queue ``payload`` for reliable in-order delivery; returns its sequence number.

        Raises :class:`QueueFull` when the peer has ``max_send_queue``
        unacknowledged payloads, :class:`TransportError` for an unknown peer or
        an oversized payload."""
        with self._lock:
            self._check_open()
            seq = self._core.enqueue(peer_id, payload)
            wake = self._send_due()
        if wake:
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
            wake = self._send_due()
        if wake:
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
                    wake = self._send_due()  # acks for freshly promoted frames
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
        if wake:
            self._wake()
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

    def pending_bytes(self, peer_id: bytes) -> int:
        """The bytes of the payloads to ``peer_id`` not acknowledged yet."""
        with self._lock:
            return self._core.unacked_bytes(peer_id)

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

    def _send_due(self) -> bool:
        """Put what is due on the wire now, from the calling thread (the lock is held).
        True when the I/O thread must wake to keep a deadline earlier than the one it
        sleeps towards; usually the next deadline (a resend, a heartbeat) is later."""
        nxt = self._core.tick(time.monotonic())
        return nxt < self._io_due

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

    def _open_dealer(self, peer_id: bytes, endpoint: str, server_key: bytes | None = None) -> None:
        """Open (or re-open) the DEALER to a peer.  A failure (an endpoint ZeroMQ refuses,
        no file descriptors left) is logged and leaves the peer without a connection; it
        never escapes into the I/O loop, and the socket is closed so ``ctx.term()`` cannot
        block on it."""
        self._close_dealer(peer_id)
        d: zmq.Socket[bytes] | None = None
        try:
            d = self._ctx.socket(zmq.DEALER)
            d.setsockopt(zmq.LINGER, 0)
            d.setsockopt(zmq.ROUTING_ID, _routing_id(self.node_id))
            d.setsockopt(zmq.SNDHWM, self.config.sndhwm)
            d.setsockopt(zmq.RCVHWM, 1)
            d.setsockopt(zmq.IMMEDIATE, 1)  # never queue for a dead connection
            d.setsockopt(zmq.RECONNECT_IVL, 100)
            d.setsockopt(zmq.RECONNECT_IVL_MAX, 1000)
            d.setsockopt(zmq.MAXMSGSIZE, 1024)  # the remote ROUTER never sends to us
            if self.curve is not None:
                if server_key is None:
                    raise zmq.ZMQError(msg="no CURVE key for this peer")
                d.setsockopt(zmq.CURVE_SERVERKEY, server_key)
                d.setsockopt(zmq.CURVE_PUBLICKEY, self.curve.public)
                d.setsockopt(zmq.CURVE_SECRETKEY, self.curve.secret)
            monitor = self._watch(peer_id, d)
            d.connect(endpoint)
        except zmq.ZMQError as exc:
            self._unwatch(peer_id, d)   # its monitor detached before its reader closes
            if d is not None:
                d.close(0)
            log.warning("cannot connect to %s for peer %s: %s", endpoint[:80],
                        peer_id.hex()[:16], exc)
            return
        self._dealers[peer_id] = d
        self._core.dialled(peer_id, time.monotonic())
        if monitor is not None and self._poller is not None:
            self._poller.register(monitor, zmq.POLLIN)

    def _close_dealer(self, peer_id: bytes) -> None:
        old = self._dealers.pop(peer_id, None)
        self._unwatch(peer_id, old)
        if old is not None:
            old.close(0)

    def _watch(self, peer_id: bytes, d: zmq.Socket[bytes]) -> zmq.Socket[bytes] | None:
        """A monitor of ``d``'s connection: on a slow link a stall must not re-open a
        connection whose handshake goes on (it never connected at round trips of 1.5 s),
        nor pass over an address that answers (see ReliableCore.stall_wait). None where
        this libzmq cannot (the stall then waits as it did).

        The reader is made first, and ``d`` is monitored only once it exists: libzmq sends
        a monitor's events blocking (libzmq #2829), so a monitor nobody reads stops this
        node's networking. pyzmq's ``get_monitor_socket`` attaches the monitor, then makes
        the reader: when that failed (no descriptors left, EMFILE), ``d`` kept a monitor
        nobody read and the node reached no peer again (the review of the slow links
        change). Any failure here leaves ``d`` unmonitored. The address is this node's
        own (a counter), never one named after a descriptor number (those are reused)."""
        reader: zmq.Socket[bytes] | None = None
        addr = f"inproc://millebornes-monitor-{os.getpid()}-{id(self):x}-{next(_MONITORS)}"
        try:
            reader = self._ctx.socket(zmq.PAIR)
            reader.setsockopt(zmq.LINGER, 0)
            d.monitor(addr, _LINK_EVENTS)
            reader.connect(addr)
        except (zmq.ZMQError, AttributeError) as exc:
            _stop_monitor(d)
            if reader is not None:
                reader.close(0)
            log.info("no monitor for the connection to peer %s: %s", peer_id.hex()[:16], exc)
            return None
        self._monitors[peer_id] = reader
        self._monitor_of[reader] = peer_id
        return reader

    def _unwatch(self, peer_id: bytes, d: zmq.Socket[bytes] | None) -> None:
        """Stop watching the DEALER ``d`` to ``peer_id``: its monitor is detached before
        the reader closes (else libzmq blocks sending it the next event)."""
        if d is not None:
            _stop_monitor(d)
        monitor = self._monitors.pop(peer_id, None)
        if monitor is None:
            return
        self._monitor_of.pop(monitor, None)
        if self._poller is not None:
            try:
                self._poller.unregister(monitor)
            except KeyError:
                pass
        monitor.close(0)

    def _read_monitor(self, monitor: zmq.Socket[bytes], now: float) -> None:
        """Tell the core what the monitor of a DEALER saw (the lock is held)."""
        pid = self._monitor_of.get(monitor)
        for _ in range(64):
            try:
                event = recv_monitor_message(monitor, zmq.NOBLOCK)["event"]
            except zmq.Again:
                return
            except zmq.ZMQError:
                return
            if pid is None:
                continue
            if event == zmq.EVENT_CONNECTED:
                self._core.link_event(pid, "connected", now)
            elif event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                self._core.link_event(pid, "ready", now)
            elif event & _LINK_DOWN:
                self._core.link_event(pid, "down", now)

    def _run(self) -> None:
        poller = self._poller = zmq.Poller()
        poller.register(self._router, zmq.POLLIN)
        poller.register(self._wake_r.fileno(), zmq.POLLIN)
        if self._zap is not None:
            poller.register(self._zap, zmq.POLLIN)
        if self._door is not None:
            poller.register(self._door.fileno(), zmq.POLLIN)
        guard = self._guard if self._guard is not None and self._guard.enabled else None
        if guard is not None and guard.monitor is not None:
            poller.register(guard.monitor, zmq.POLLIN)
        next_due = 0.0
        guarded = 0.0
        try:
            while True:
                now = time.monotonic()
                # while a connection is open its bytes are looked at every GUARD_IDLE
                # seconds, and every GUARD_EVERY once it reads on without a message
                soon = 0.1
                if guard is not None and guard.tracking():
                    soon = GUARD_EVERY if guard.suspect() else GUARD_IDLE
                timeout_ms = math.ceil(max(0.0, min(next_due - now, soon)) * 1000)
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
                if self._zap is not None and self._zap in ready:
                    self._serve_zap()
                if self._door is not None and self._door.fileno() in ready:
                    self._serve_door()
                watched = [m for m in self._monitor_of if m in ready]
                if watched:
                    with self._lock:
                        now = time.monotonic()
                        for m in watched:
                            self._read_monitor(m, now)
                if cmds:
                    with self._lock:  # senders use the DEALERs under the lock too
                        for cmd, pid, ep, server_key in cmds:
                            if cmd == "add":
                                self._open_dealer(pid, ep, server_key)
                            else:
                                self._close_dealer(pid)
                frames: list[tuple[bytes, bytes, str | None, str | None]] = []
                judging = False
                if guard is not None:
                    judging = time.monotonic() - guarded >= GUARD_EVERY
                    try:
                        guard.on_events()
                        if judging:
                            guarded = time.monotonic()
                            guard.rescan(guarded)
                            guard.sample()      # before the drain (see ConnGuard.judge)
                    except Exception:  # a bug in the guard must not kill the transport
                        log.exception("connection guard failed")
                        judging = False
                drained = True
                if self._router in ready or judging:
                    drained = False
                    for _ in range(self.config.max_recv_batch):
                        try:
                            parts = self._router.recv_multipart(zmq.NOBLOCK, copy=False)
                        except zmq.Again:
                            drained = True
                            break
                        frames.append(self._split(parts))
                if judging and guard is not None:
                    # undrained, each connection with a message waiting still gave one
                    # (the ROUTER takes one message from each in turn) unless there are
                    # more connections than one turn takes: then nobody is judged
                    try:
                        self._report_cuts(guard.judge(
                            drained or guard.count() <= self.config.max_recv_batch))
                    except Exception:
                        log.exception("connection guard failed")
                if guard is not None:
                    self._report_crowding(guard, time.monotonic())
                got_msgs = False
                with self._cond:
                    now = time.monotonic()
                    for src, frame, host, user in frames:
                        key: bytes | None = None
                        proven = False
                        if self.curve is not None:
                            key = bytes.fromhex(user) if user and len(user) == 64 else None
                            want = self._keys.get(src)
                            if key is None or (want is not None and key != want):
                                # a routing id claimed over a connection with another key
                                self._core.count_drop(src, "spoofed")
                                continue
                            proven = want is not None
                        try:
                            self._core.on_frame(src, frame, now, host, key, proven)
                        except Exception:  # a bug must not silently kill the transport
                            log.exception("frame from %s could not be handled", src.hex()[:16])
                    next_due = self._core.tick(now)
                    self._io_due = min(next_due, now + 0.1)
                    moves = [(pid, ep, self._keys.get(pid)) for pid, ep in self._core.moves
                             if pid in self._dealers]
                    self._core.moves.clear()
                    # (a peer that just proved where it is gets a full wait there before
                    # a stall sends us elsewhere, and each connection opened its wait
                    # before the next stall: ReliableCore.stalled)
                    after = self.config.reopen_after
                    stalled = [(pid, self._core.dialled_since(pid, now),
                                self._core.reach_stalled(pid), self._keys.get(pid))
                               for pid in self._core.stalled(now, after)
                               if pid in self._dealers]
                    got_msgs = self._core.has_messages()
                    self._cond.notify_all()
                for pid, ep, key in moves:   # a peer proved it listens elsewhere now
                    with self._lock:
                        self._open_dealer(pid, ep, key)
                for pid, waited, ep, key in stalled:
                    # how long the address just left held us (its dial to now), not the
                    # wait it was given
                    log.info("no ack from %s, dialled %s s ago: reconnecting",
                             pid.hex()[:16], "?" if waited is None else f"{waited:.1f}")
                    with self._lock:
                        self._open_dealer(pid, ep, key)
                cb = self._wakeup_cb
                if cb is not None and (got_msgs or frames):
                    try:
                        cb()
                    except Exception:
                        log.exception("wakeup callback failed")
        finally:
            with self._cond:
                self._closed = True  # no sender touches a DEALER from here on
                for pid in list(self._dealers):
                    self._close_dealer(pid)
                for pid in list(self._monitors):
                    self._unwatch(pid, None)
                self._cond.notify_all()
            if self._guard is not None:
                self._guard.close()
            self._router.close(0)
            if self._zap is not None:
                self._zap.close(0)
            if self._door is not None:
                self._door.close()
            self._ctx.term()

    def _report_cuts(self, cuts: list[Cut]) -> None:
        """Say who the guard cut off (a message that never ended), and count it against the
        node id that connection used, if it ever finished a message."""
        for cut in cuts:
            who = f"node {cut.node.hex()[:16]}" if cut.node is not None else "a sender that " \
                "never finished a message"
            if cut.together == "strangers":
                log.warning("connection from %s (%s) closed: it held %d KiB of a message "
                            "not finished, the most of the connections that are not our "
                            "peers' (together more than %d KiB)", cut.address, who,
                            cut.unfinished >> 10,
                            self.config.strangers_unfinished_limit >> 10)
            elif cut.together == "peer":
                log.warning("connection from %s (%s) closed: it held %d KiB of a message "
                            "not finished, the most of that peer's connections (together "
                            "more than the %d KiB one honest message can take)", cut.address,
                            who, cut.unfinished >> 10, self.config.unfinished_limit >> 10)
            elif cut.together == "peers":
                log.warning("connection from %s (%s) closed: it held %d KiB of a message "
                            "not finished, the most of the connections claiming our "
                            "peers' ids (together more than %d KiB; without CURVE an id "
                            "is only a claim)", cut.address, who, cut.unfinished >> 10,
                            self.config.unfinished_limit >> 10)
            else:
                log.warning("connection from %s (%s) closed: it sent %d KiB of a message "
                            "that never ended (more than the %d KiB one honest message can "
                            "take)", cut.address, who, cut.unfinished >> 10,
                            self.config.unfinished_limit >> 10)
            if cut.node is not None:
                with self._lock:
                    self._core.count_drop(cut.node, "unfinished")

    def _knows(self, node: bytes) -> bool:
        """Whether ``node`` is one of our peers (the guard's question, from the I/O thread:
        a membership test, atomic under the interpreter's lock)."""
        return self._core.knows(node)

    def _report_crowding(self, guard: ConnGuard, now: float) -> None:
        """Say, at most once every :data:`CROWD_REPORT_EVERY` seconds, how many inbound
        connections the guard shut down for crowding and from where (a flood of them
        wrote a line each: the log grew with the attacker's rate). The guard keeps the
        counts meanwhile."""
        if now - self._crowd_said < CROWD_REPORT_EVERY:
            return
        counts = guard.take_crowding()
        if not counts:
            return
        self._crowd_said = now
        where = ", ".join(f"{n} from {a}" for a, n in sorted(counts.items()))
        log.warning("inbound connections closed: more open at once than an honest peer "
                    "holds (%d from one address, or %d that never sent a message): %s",
                    MAX_FROM_ONE_ADDRESS, MAX_SILENT, where)

    def _split(self, parts: Iterable[zmq.Frame]) -> tuple[bytes, bytes, str | None, str | None]:
        """``(routing id, frame, observed address of an unknown sender, User-Id)``; the
        User-Id is the hex CURVE key our ZAP handler authenticated for that connection."""
        fl = list(parts)
        if len(fl) != 2:
            src = node_of_routing_id(fl[0].bytes) if fl else b"?"
            self._credit(fl, src, None)
            # Deliberately malformed: hand the core a frame it will reject.
            return src, b"\xc1", None, None
        raw = fl[0].bytes
        # Ours or a known peer's id names itself even if its bytes look like the routed form
        # (a 25th byte '#' in a 33-byte id would otherwise read as a 24-byte stranger).
        src = raw if raw == self.node_id or raw in self._dealers else node_of_routing_id(raw)
        host: str | None = None
        # unknown senders need their address; under CURVE a known one too (its proven HELLO
        # from a new source address moves it when it advertises no host: bound to all)
        if src not in self._dealers or self.curve is not None:
            try:
                addr = fl[1].get("Peer-Address")
                host = addr if isinstance(addr, str) else None
            except Exception:
                host = None
        user: str | None = None
        if self.curve is not None:
            try:
                u = fl[1].get("User-Id")
                user = u if isinstance(u, str) else None
            except Exception:
                user = None
        self._credit(fl, src, user)
        return src, fl[1].bytes, host, user

    def _credit(self, fl: list[zmq.Frame], src: bytes, user: str | None) -> None:
        """Tell the guard that the connection ``fl`` came from finished a message, and
        whose it is: under CURVE only a node whose bound key that connection proved (a
        routing id alone is a claim: a stranger naming a peer's node id on each of its
        connections was spared the cap on one address as "a peer's")."""
        if not fl or self._guard is None or not self._guard.enabled:
            return
        try:
            fd = fl[-1].get(zmq.SRCFD)
        except zmq.ZMQError:
            fd = -1
        if not isinstance(fd, int) or fd < 0:
            return
        node: bytes | None = src
        if self.curve is not None:
            want = self._keys.get(src)
            if want is None:
                node = None if self._core.knows(src) else src   # a stranger's own label
            elif user != want.hex():
                node = None
        self._guard.credit(fd, node)

    # ------------------------------------------------------------------ ZAP, key door
    def _serve_zap(self) -> None:
        """Answer ZAP requests (RFC 27): admit an expected key, or a stranger's while
        the lobby is open (rate-limited); the reply's User-Id is the key in hex."""
        assert self._zap is not None
        for _ in range(64):
            try:
                req = self._zap.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            rid = req[1] if len(req) > 1 else b""
            ok, user = False, b""
            if len(req) == 7 and req[0] == b"1.0" and req[5] == b"CURVE" and len(req[6]) == 32:
                key = req[6]
                with self._lock:
                    told = self._door_expected.get(key)
                    if key in self._keys.values():
                        ok = True
                    elif self._admit_strangers and told is not None and \
                            time.monotonic() - told < DOOR_EXPECT_SECONDS:
                        ok = True     # a joiner that asked the door first (see KeyDoorAsk)
                    elif self._admit_strangers:
                        ok = self._zap_budget.take(time.monotonic())
                user = key.hex().encode()
            try:
                self._zap.send_multipart([b"1.0", rid, b"200" if ok else b"400",
                                          b"OK" if ok else b"not admitted", user if ok else b"",
                                          b""])
            except zmq.ZMQError:
                return

    def _serve_door(self) -> None:
        """The key door: a UDP datagram ``KEY_DOOR_ASK`` (padded, so a reply is never
        larger than the request) gets our signed key card, so a joiner that knows only
        HOST:PORT can learn the key to open a CURVE connection with (and check it
        against a fingerprint, or trust it on first use)."""
        assert self._door is not None and self.curve is not None
        card = key_card(self.curve)
        for _ in range(32):
            try:
                if _HAS_RECVMSG:
                    data, ancillary, _flags, addr = self._door.recvmsg(2048, _PKTINFO_SPACE)
                else:                               # (Windows has no recvmsg)
                    (data, addr), ancillary = self._door.recvfrom(2048), []
            except (BlockingIOError, OSError):
                return
            if data.startswith(KEY_DOOR_ASK) and len(data) >= len(card):
                if not self._door_may_answer(addr):
                    continue
                told = data[len(KEY_DOOR_ASK):len(KEY_DOOR_ASK) + 32]
                if any(told):
                    self._expect_asker(told)
                try:
                    # from the address it was asked at (a joiner takes no answer from
                    # another: see KeyDoorAsk.poll), which a socket bound to every
                    # address does not choose by itself
                    if ancillary:
                        self._door.sendmsg([card], _reply_from(ancillary), 0, addr)
                    else:
                        self._door.sendto(card, addr)
                except OSError:
                    pass


    def _expect_asker(self, key: bytes) -> None:
        """A key the door was told (a joiner's, in its request): admitted by ZAP for
        :data:`DOOR_EXPECT_SECONDS` outside the strangers' budget. At most
        :data:`DOOR_EXPECTED` are kept, the oldest going first; the door's own budgets
        bound how fast they come."""
        with self._lock:
            self._door_expected.pop(key, None)
            self._door_expected[key] = time.monotonic()
            while len(self._door_expected) > DOOR_EXPECTED:
                del self._door_expected[next(iter(self._door_expected))]

    def _door_may_answer(self, addr: tuple[Any, ...]) -> bool:
        """One answer of the key door, if both its budgets allow: :data:`KEY_DOOR_PER_S`
        for all askers (a flood from faked addresses gets no more), and
        :data:`KEY_DOOR_PER_ASKER_S` for each address (a flood from one address leaves
        the others their answers). The budgets are the door's own: the ZAP handshake's
        budget for strangers is not spent here."""
        now = time.monotonic()
        # an asker is its address, whatever port it asks from: by address and port, one
        # machine asking from a new port every few requests had a burst at each, spent
        # the budget for all, and another machine's joiner asked in vain (hostile pass 20)
        who = str(addr[0]) if addr else ""
        asker = self._door_askers.pop(who, None) or TokenBucket(KEY_DOOR_PER_ASKER_S,
                                                                 KEY_DOOR_ASKER_BURST)
        self._door_askers[who] = asker        # last heard last: the longest unheard go first
        while len(self._door_askers) > KEY_DOOR_ASKERS:
            del self._door_askers[next(iter(self._door_askers))]
        return asker.take(now) and self._door_budget.take(now)


#: What a DEALER's monitor reports (see Node._watch), and which of it means "down".
_LINK_DOWN = (zmq.EVENT_DISCONNECTED | zmq.EVENT_CLOSED
              | getattr(zmq, "EVENT_HANDSHAKE_FAILED_NO_DETAIL", 0)
              | getattr(zmq, "EVENT_HANDSHAKE_FAILED_PROTOCOL", 0)
              | getattr(zmq, "EVENT_HANDSHAKE_FAILED_AUTH", 0))
#: each DEALER monitor's own inproc address (see Node._watch)
_MONITORS = itertools.count()


def _stop_monitor(d: zmq.Socket[bytes]) -> None:
    """Detach ``d``'s monitor, if any (nothing where none is attached)."""
    try:
        d.monitor(None, 0)
    except (zmq.ZMQError, AttributeError):
        pass


_LINK_EVENTS = (zmq.EVENT_CONNECTED | getattr(zmq, "EVENT_HANDSHAKE_SUCCEEDED", 0)
                | _LINK_DOWN)

#: How often (seconds) the I/O thread looks at the bytes each inbound connection has sent
#: without finishing a message (see p2p.net.conn_guard): at most every GUARD_EVERY, and
#: every GUARD_IDLE at least while one is open (each wake costs CPU: 20 ms cost an idle
#: pair of nodes 3 % of a core, 0.4 % without the guard).
GUARD_EVERY = 0.01
#: seconds between two log lines about connections shut down for crowding
CROWD_REPORT_EVERY = 10.0
GUARD_IDLE = 0.05

#: Key door answers a second, all askers together, and for each asker's address (with a
#: burst of :data:`KEY_DOOR_ASKER_BURST`); :data:`KEY_DOOR_ASKERS` addresses are kept.
KEY_DOOR_PER_S = 200.0
KEY_DOOR_PER_ASKER_S = 2.0
KEY_DOOR_ASKER_BURST = 4.0
KEY_DOOR_ASKERS = 1024

#: The key door's request prefix; the datagram is padded to :data:`KEY_DOOR_SIZE`.
#: Keys told to the key door kept (see Node._expect_asker), and for how long.
DOOR_EXPECTED = 64
DOOR_EXPECT_SECONDS = 30.0
KEY_DOOR_ASK = b"millebornes/key?/v1\x00"
KEY_DOOR_SIZE = 512


def key_card(curve: CurveKeys) -> bytes:
    """``[signing key, CURVE key, certificate]``: what the key door answers."""
    out = msgpack.packb([curve.signing_key, curve.public, curve.certificate],
                        use_bin_type=True)
    assert isinstance(out, bytes)
    return out


#: Ask the kernel for each datagram's destination address (and use it as a reply's
#: source): Linux's IP_PKTINFO (8; not in Python's socket module) and IPV6_RECVPKTINFO.
_IP_PKTINFO = getattr(socket, "IP_PKTINFO", 8 if sys.platform.startswith("linux") else None)
_IPV6_RECVPKTINFO = getattr(socket, "IPV6_RECVPKTINFO", None)
_IPV6_PKTINFO = getattr(socket, "IPV6_PKTINFO", None)
_PKTINFO_SPACE = socket.CMSG_SPACE(20) if hasattr(socket, "CMSG_SPACE") else 0
_HAS_RECVMSG = hasattr(socket.socket, "recvmsg")


def _reply_from(ancillary: list[tuple[int, int, bytes]]) -> list[tuple[int, int, bytes]]:
    """The ancillary data that sends a reply from the address a datagram came to (its
    ``IP_PKTINFO`` / ``IPV6_PKTINFO``), or none when the kernel gave none."""
    for level, kind, data in ancillary:
        if level == socket.IPPROTO_IP and kind == _IP_PKTINFO and len(data) >= 12:
            ifindex, _spec, dst = struct.unpack_from("I4s4s", data)
            return [(level, kind, struct.pack("I4s4s", 0, dst, b"\0" * 4))]
        if (level == getattr(socket, "IPPROTO_IPV6", -1) and kind == _IPV6_PKTINFO
                and len(data) >= 20):
            return [(level, kind, data[:20])]
    return []


def _open_key_door(bound_host: str, port: int) -> socket.socket | None:
    """A UDP socket on the transport's port number (UDP and TCP ports are separate), or
    None when that UDP port is taken: then only a known key lets anyone connect. Each
    request's destination address is asked for, to answer from it."""
    family = socket.AF_INET6 if ":" in bound_host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_DGRAM)
    try:
        sock.bind((bound_host if bound_host not in ("*",) else "", port))
    except OSError as exc:
        log.warning("no key door on UDP port %d: %s", port, exc)
        sock.close()
        return None
    try:
        if family == socket.AF_INET and _IP_PKTINFO is not None:
            sock.setsockopt(socket.IPPROTO_IP, _IP_PKTINFO, 1)
        elif family == socket.AF_INET6 and _IPV6_RECVPKTINFO is not None:
            sock.setsockopt(socket.IPPROTO_IPV6, _IPV6_RECVPKTINFO, 1)
    except OSError:
        pass        # the kernel's choice of source then: right unless bound to all
    sock.setblocking(False)
    return sock


def _same_address(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Whether two socket addresses name the same host address and port."""
    try:
        return (ipaddress.ip_address(str(a[0]).split("%", 1)[0])
                == ipaddress.ip_address(str(b[0]).split("%", 1)[0]) and a[1] == b[1])
    except (ValueError, IndexError):
        return False


class KeyDoorAsk:
    """Asking the key door at ``endpoint`` (``tcp://HOST:PORT``) without blocking: each
    :meth:`poll` sends the request again when it is due (every ``every`` seconds, at most
    ``tries`` times, then again from the start: a host may open its door later) and waits
    at most its ``timeout`` for a valid card.  A joiner runs it inside its own connect loop,
    with its own limits, answering the player meanwhile.  Silence, an unreachable port and
    junk answers are all just "no answer yet"; only an address that cannot be resolved
    or asked (no socket of its family here) raises TransportError (in :meth:`__init__`)."""

    def __init__(self, endpoint: str, every: float = 0.3,
                 own_key: bytes | None = None) -> None:
        """``own_key``: this joiner's CURVE key, told to the door in the padding of the
        request: the host then admits its handshake outside the budget strangers share
        (a flood of fresh keys spent that budget and kept every joiner out)."""
        ep = parse_endpoint(endpoint)
        self._request = (KEY_DOOR_ASK + (own_key if own_key is not None and len(own_key) == 32
                                         else b"")).ljust(KEY_DOOR_SIZE, b"\0")
        host, _, port = ep[len("tcp://"):].rpartition(":")
        host = host.strip("[]")
        try:
            infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_DGRAM)
        except OSError as exc:
            raise TransportError(f"cannot resolve {host}: {exc}") from None
        family, _, _, _, addr = infos[0]
        self._addr: tuple[Any, ...] = tuple(addr)
        self.endpoint = endpoint
        self.every = every
        try:
            self._sock: socket.socket | None = socket.socket(family, socket.SOCK_DGRAM)
        except OSError as exc:
            # an address of a family this computer has no sockets for (IPv6 turned off),
            # or no descriptor left: said like an address that cannot be resolved (any
            # machine may add an address to a table's record; the OSError stopped
            # ``join --table`` before the real table was asked: hostile pass 17)
            raise TransportError(f"cannot ask {host}: {exc.strerror or exc}") from None
        self._sock.setblocking(False)
        self._next = 0.0
        self.asked = 0

    def poll(self, timeout: float = 0.0) -> tuple[bytes, bytes] | None:
        """``(signing key, CURVE key)`` once a valid card came back (the certificate is
        checked), else None after at most ``timeout`` seconds."""
        if self._sock is None:
            return None
        end = time.monotonic() + max(0.0, timeout)
        while True:
            now = time.monotonic()
            if now >= self._next:
                try:
                    self._sock.sendto(self._request, self._addr)
                except OSError:
                    pass                      # no route yet: asked again later
                self.asked += 1
                self._next = now + self.every
            wait = min(end, self._next) - now
            try:
                ready, _, _ = select.select([self._sock], [], [], max(0.0, wait))
            except (OSError, ValueError):
                ready = []
            if ready:
                try:
                    data, source = self._sock.recvfrom(2048)
                except OSError:           # e.g. "port unreachable": nobody there yet
                    data, source = b"", ()
                # only the address asked answers: any machine could otherwise send its own
                # card to every port of ours, and be trusted on first use in the host's
                # place (hostile pass 7)
                card = _parse_card(data) if _same_address(source, self._addr) else None
                if card is not None:
                    return card
            if time.monotonic() >= end:
                return None

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self) -> KeyDoorAsk:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _parse_card(data: bytes) -> tuple[bytes, bytes] | None:
    if not data:
        return None
    try:
        card = msgpack.unpackb(data, raw=False, max_bin_len=128, max_array_len=3,
                               max_map_len=0, max_str_len=0, max_ext_len=0)
    except Exception:
        return None
    if (isinstance(card, list) and len(card) == 3
            and all(isinstance(x, bytes) for x in card)
            and verify_curve_certificate(card[0], card[1], card[2])):
        return card[0], card[1]
    return None


def ask_key_doors(endpoints: Sequence[str], timeout: float,
                  wanted: Callable[[bytes], bool] | None = None
                  ) -> dict[str, tuple[bytes, bytes]]:
    """Ask the key doors at every one of ``endpoints`` at once for at most ``timeout``
    seconds: ``{endpoint: (signing key, CURVE key)}`` of those that answered with a valid
    card, as soon as one answers with a signing key ``wanted`` accepts (or when the time
    is up). A card is public: any machine may answer with the host's (see
    :func:`first_curve_handshake` for the proof that an address holds its key).

    A joiner given several addresses for one table (the record's, and copies of the
    record announced by other machines) asks the one whose door answers with the host's
    key first: asked in turn, a copy whose address takes a connection and never answers
    cost the whole connect limit before the real table was asked. An endpoint that
    cannot be resolved is skipped (its turn comes as before)."""
    asks: list[KeyDoorAsk] = []
    for ep in endpoints:
        try:
            asks.append(KeyDoorAsk(ep))
        except (TransportError, ValueError):
            continue
    found: dict[str, tuple[bytes, bytes]] = {}
    end = time.monotonic() + max(0.0, timeout)
    try:
        while asks:
            for ask in list(asks):
                card = ask.poll(0.0)
                if card is None:
                    continue
                found[ask.endpoint] = card
                ask.close()
                asks.remove(ask)
                if wanted is not None and wanted(card[0]):
                    return found
            now = time.monotonic()
            if now >= end:
                break
            time.sleep(min(0.02, end - now))
    finally:
        for ask in asks:
            ask.close()
    return found


def first_curve_handshake(endpoints: Sequence[str], server_key: bytes, timeout: float,
                          client: tuple[bytes, bytes] | None = None) -> str | None:
    """The first of ``endpoints`` where a ZeroMQ CURVE handshake with ``server_key``
    succeeds, all tried at once for at most ``timeout`` seconds (None: none did).

    Only a server holding that key's secret completes the handshake (its WELCOME is
    boxed with it; RFC 26, CurveZMQ), so this tells a table from a copy of its record
    whose address answers the key door with the host's public card. An error the far
    end sends instead (ZMTP ERROR, "failed auth") proves nothing: anyone may send one.
    ``client``: the CURVE key pair to offer (public, secret; an ephemeral one by
    default). The host sees a stranger's connection that closes without a message."""
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context(io_threads=1)
    sockets: list[zmq.Socket[bytes]] = []
    watching: dict[zmq.Socket[bytes], str] = {}
    poller = zmq.Poller()
    try:
        public, secret = client if client is not None else zmq.curve_keypair()
        for ep in endpoints:
            try:
                d = ctx.socket(zmq.DEALER)
                sockets.append(d)
                d.setsockopt(zmq.LINGER, 0)
                d.setsockopt(zmq.MAXMSGSIZE, 1024)
                d.setsockopt(zmq.CURVE_SERVERKEY, server_key)
                d.setsockopt(zmq.CURVE_PUBLICKEY, public)
                d.setsockopt(zmq.CURVE_SECRETKEY, secret)
                monitor = d.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED)
                sockets.append(monitor)
                d.connect(ep)
            except zmq.ZMQError as exc:
                log.info("no handshake tried at %s: %s", ep[:80], exc)
                continue
            poller.register(monitor, zmq.POLLIN)
            watching[monitor] = ep
        end = time.monotonic() + max(0.0, timeout)
        while watching:
            left = end - time.monotonic()
            if left <= 0:
                return None
            for sock, _event in poller.poll(max(1, int(left * 1000))):
                event = recv_monitor_message(sock)["event"]
                if event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                    return watching[sock]
        return None
    finally:
        for sock in sockets:
            sock.close(0)
        ctx.term()


def fetch_key_card(endpoint: str, timeout: float = 2.0) -> tuple[bytes, bytes]:
    """Ask the key door at ``endpoint`` (``tcp://HOST:PORT``) for its ``(signing key,
    CURVE key)``; the certificate is checked, so the pair is consistent, but *who* it is
    comes only from comparing ``fingerprint(signing key)`` with what the player expects
    (``FINGERPRINT@HOST:PORT``) or showing it (trust on first use).  Raises
    TransportError after ``timeout`` seconds without a valid answer."""
    with KeyDoorAsk(endpoint) as ask:
        card = ask.poll(timeout)
    if card is not None:
        return card
    raise TransportError(f"no key answer from {endpoint} within {timeout:g} s "
                         f"(is a table open there?)")
