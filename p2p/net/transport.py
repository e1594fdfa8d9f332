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

import logging
import math
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable

import zmq

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
from p2p.net.reliable import ReliableCore

log = logging.getLogger("p2p.transport")


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
            # ROUTER_HANDOVER: a peer reconnecting under its id (a restart, a re-pointed
            # DEALER) takes over its pipe.  Without it libzmq keeps the old pipe and leaves
            # the new connection a silent zombie.  Under CURVE the ZAP handler admits an id
            # only with the key bound to it, so nobody else can take a pipe over.
            r.setsockopt(zmq.ROUTER_HANDOVER, 1)
            r.setsockopt(zmq.MAXMSGSIZE, self.config.zmq_maxmsgsize)
            r.setsockopt(zmq.RCVHWM, self.config.rcvhwm)
            r.setsockopt(zmq.SNDHWM, 1)  # the ROUTER never sends
            host = format_host(bind) if bind != "*" else "*"
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
            if peer_id not in self._core.peers() and len(self._core.peers()) >= self.config.max_peers:
                raise TransportError(f"already {self.config.max_peers} peers")
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
        """Open (or re-open) the DEALER to a peer.  A failure (an endpoint ZeroMQ refuses,
        no file descriptors left) is logged and leaves the peer without a connection; it
        never escapes into the I/O loop, and the socket is closed so ``ctx.term()`` cannot
        block on it."""
        old = self._dealers.pop(peer_id, None)
        if old is not None:
            old.close(0)
        d: zmq.Socket[bytes] | None = None
        try:
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
        except zmq.ZMQError as exc:
            if d is not None:
                d.close(0)
            log.warning("cannot connect to %s for peer %s: %s", endpoint[:80],
                        peer_id.hex()[:16], exc)
            return
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
                        try:
                            self._core.on_frame(src, frame, now, host)
                        except Exception:  # a bug must not silently kill the transport
                            log.exception("frame from %s could not be handled", src.hex()[:16])
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
