"""Test doubles for the transport (in the spirit of ``trio.testing``).

* :class:`MemoryNetwork` / :class:`MemoryNode`: an in-memory network whose
  nodes have exactly the public interface of :class:`p2p.transport.Node` and
  run the very same reliability protocol (:class:`~p2p.transport.ReliableCore`);
  only the wire is a Python heap instead of ZeroMQ.  No threads: time advances
  when you call into the network (``recv``, ``pump``, ``flush``...).  The clock
  is injectable (:class:`FakeClock`) for fully deterministic tests.
* :class:`FaultShim`: a seeded fault injector on outgoing *frames* (below the
  reliability layer) that drops, duplicates, delays and reorders.  It plugs
  into both transports: ``Node(..., wire_filter=shim)`` or
  ``MemoryNode(..., wire_filter=shim)`` (or ``node.set_wire_filter(shim)``).
* :func:`seeded_entropy`: every seat secret drawn inside it (deck keys, shuffle and
  randomness seeds, a memory table's nonce) follows from one seed, so a property test's
  failing example replays the same deal.
* :func:`socket_peers`: a table of real peers (ZeroMQ on 127.0.0.1, stores on disk, a
  heuristic bot per seat), for session tests and the trust bench; :func:`run_peers` plays
  such a table to its end, a thread a peer; :class:`Pumping` pumps live peers while a test
  acts on them.

For tests and benchmarks only.
"""

from __future__ import annotations

import contextlib
import hashlib
import heapq
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from p2p.crypto import group as g
from p2p.net.interface import (
    PeerEvent,
    PeerStatus,
    QueueFull,
    TransportConfig,
    TransportError,
    WireFilter,
    validate_peer_id,
)
from p2p.net.reliable import ReliableCore, log

if TYPE_CHECKING:
    from p2p.crypto.identity import Identity
    from p2p.table.config import TableConfig
    from p2p.table.session import Peer, SessionOptions


def wait_for(condition: Callable[[], object], limit: float, every: float = 0.05) -> bool:
    """Ask ``condition`` every ``every`` s for at most ``limit`` s (tests of peers that
    run in threads or processes); whether it came true, asked once more at the end."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(every)
    return bool(condition())


@contextlib.contextmanager
def seeded_entropy(seed: bytes) -> Iterator[None]:
    """Within the block, :func:`p2p.crypto.group.entropy` reads from a deterministic
    generator seeded by ``seed`` (the OS's generator again afterwards, also on error)."""
    drbg = g.Drbg(hashlib.sha256(seed).digest(), b"millebornes/testing/entropy")
    previous = g.use_entropy_source(drbg.read)
    try:
        yield
    finally:
        g.use_entropy_source(previous)


def socket_peers(tmp: Path, cfg: TableConfig, ids: list[Identity], opts: SessionOptions,
                 shims: list[FaultShim] | None = None,
                 transport: TransportConfig | None = None) -> list[Peer]:
    """One real peer per seat of ``cfg``: a ZeroMQ node on 127.0.0.1 (through ``shims[s]``
    if given; with ``transport``'s timings, e.g. a short ``gone_after``), a store under
    ``tmp/seat<s>`` and a heuristic bot (seed 11 + seat)."""
    from engine.bots import make_bot
    from p2p.net.transport import Node
    from p2p.table.session import Peer, node_id_for
    from p2p.table.store import Store

    nodes = [Node(node_id_for(ids[s].public_key), config=transport,
                  wire_filter=shims[s] if shims is not None else None) for s in range(cfg.n)]
    eps = {s: nodes[s].endpoint for s in range(cfg.n)}
    return [Peer(ids[s], cfg, nodes[s], controller=make_bot("heuristic", 11 + s),
                 endpoints=eps, options=opts,
                 store=Store.create(tmp / f"seat{s}", cfg.header(), s, port=nodes[s].port,
                                    endpoints=eps))
            for s in range(cfg.n)]



def run_peers(peers: list[Peer], timeout: float = 90.0, linger: float = 0.3,
              flush: float = 1.0) -> list[bool]:
    """Run every peer in a thread of its own until its match ends or ``timeout`` passes
    (``Peer.run``), let each linger ``linger`` s for the others' last acks, then close
    them all (``flush`` s to send what is queued). Returns each peer's ``run`` result: a
    table played to its end gives all True."""
    done = [False] * len(peers)

    def play(i: int) -> None:
        done[i] = peers[i].run(timeout)
        peers[i].linger(linger)

    threads = [threading.Thread(target=play, args=(i,)) for i in range(len(peers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for p in peers:
        p.close(flush=flush)
    return done


class Pumping:
    """Each peer pumped in a thread of its own (``Peer.pump`` every 20 ms) until its
    match ends, it stops (through a pause, unless ``through_pauses`` is False: a paused
    peer is still pumped, so a late entry can lift the pause), or :meth:`stop`. For tests
    that act on live peers meanwhile: an agreement, a pause, a console's words."""

    def __init__(self, peers: list[Peer], through_pauses: bool = True) -> None:
        self._stopping = threading.Event()
        self._through_pauses = through_pauses
        self._threads: list[threading.Thread] = []
        for p in peers:
            self.add(p)

    def add(self, peer: Peer) -> None:
        """Pump ``peer`` too (a bot's peer that joined meanwhile)."""
        t = threading.Thread(target=self._pump, args=(peer,), daemon=True)
        t.start()
        self._threads.append(t)

    def _pump(self, p: Peer) -> None:
        while not self._stopping.is_set():
            # one look at where the match stands: finished, stopped and paused read one
            # after the other saw the old stop beside the new "not paused" when a pause
            # lifted between two reads, and this thread ended while the match went on
            st = p.state
            if st.finished or (st.stopped and not (self._through_pauses and st.paused)):
                return
            p.pump(0.02)

    def stop(self) -> None:
        """Stop every thread and wait for each (10 s at most); again: nothing more."""
        self._stopping.set()
        for t in self._threads:
            t.join(10)


__all__ = ["FakeClock", "FaultShim", "MemoryNetwork", "MemoryNode", "Pumping", "run_peers",
           "socket_peers"]


class FakeClock:
    """A manual monotonic clock: ``clock()`` reads it, ``advance(dt)`` moves it."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, dt: float) -> None:
        self.now += dt


@dataclass
class FaultShim:
    """Seeded fault injection on outgoing frames.

    Each frame is independently dropped with probability ``drop``; otherwise it
    is sent, plus one extra copy with probability ``duplicate``; each copy is
    delayed by ``uniform(0, max_delay)`` with probability ``delay`` and held
    back by ``reorder_delay`` with probability ``reorder`` (so later frames
    overtake it).  ``only_to`` restricts the faults to some destinations.
    Uses its own ``random.Random(seed)``, never the global one.
    """

    seed: int = 0
    drop: float = 0.0
    duplicate: float = 0.0
    delay: float = 0.0
    max_delay: float = 0.05
    reorder: float = 0.0
    reorder_delay: float = 0.02
    only_to: frozenset[bytes] | None = None
    counts: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("drop", "duplicate", "delay", "reorder"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{name} must be a probability, got {v}")
        self._rng = random.Random(self.seed)
        self._lock = threading.Lock()

    def _bump(self, key: str) -> None:
        self.counts[key] = self.counts.get(key, 0) + 1

    def __call__(self, dst: bytes, frame: bytes, now: float) -> list[tuple[float, bytes]]:
        if self.only_to is not None and dst not in self.only_to:
            return [(0.0, frame)]
        with self._lock:
            rng = self._rng
            self._bump("frames")
            if rng.random() < self.drop:
                self._bump("dropped")
                return []
            copies = 1
            if rng.random() < self.duplicate:
                copies = 2
                self._bump("duplicated")
            out: list[tuple[float, bytes]] = []
            for _ in range(copies):
                d = 0.0
                if rng.random() < self.delay:
                    d += rng.uniform(0.0, self.max_delay)
                    self._bump("delayed")
                if rng.random() < self.reorder:
                    d += self.reorder_delay
                    self._bump("reordered")
                out.append((d, frame))
            return out


class MemoryNetwork:
    """A loss-free in-memory wire between :class:`MemoryNode` objects.

    Endpoints are ``mem://N``.  Frames to an endpoint with no live node are lost
    (like TCP to a closed port).  ``latency`` adds a fixed one-way delay."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, latency: float = 0.0) -> None:
        self.clock = clock
        self.latency = latency
        self.lock = threading.RLock()
        self.cond = threading.Condition(self.lock)
        self._nodes: dict[str, MemoryNode] = {}
        self._wire: list[tuple[float, int, bytes, str, bytes]] = []
        self._counter = 0
        self._next_port = 1

    def _attach(self, node: MemoryNode, port: int) -> str:
        with self.lock:
            if port == 0:
                while f"mem://{self._next_port}" in self._nodes:
                    self._next_port += 1
                port = self._next_port
            ep = f"mem://{port}"
            if ep in self._nodes:
                raise TransportError(f"address in use: {ep}")
            self._nodes[ep] = node
            return ep

    def _detach(self, endpoint: str) -> None:
        with self.lock:
            self._nodes.pop(endpoint, None)

    def _put(self, src: bytes, dst_endpoint: str, frame: bytes) -> None:
        self._counter += 1
        heapq.heappush(
            self._wire, (self.clock() + self.latency, self._counter, src, dst_endpoint, frame)
        )

    def pump(self) -> None:
        """Deliver every frame that is due and run every node's timers."""
        with self.lock:
            for _ in range(100):  # settle: acks triggered by deliveries etc.
                now = self.clock()
                moved = False
                while self._wire and self._wire[0][0] <= now:
                    _, _, src, ep, frame = heapq.heappop(self._wire)
                    node = self._nodes.get(ep)
                    if node is not None:
                        node._core.on_frame(src, frame, now)
                        moved = True
                for node in list(self._nodes.values()):
                    node._core.tick(now)
                if not moved and not (self._wire and self._wire[0][0] <= now):
                    break
            self.cond.notify_all()


class MemoryNode:
    """Same public interface as :class:`p2p.transport.Node`, over a :class:`MemoryNetwork`."""

    def __init__(
        self,
        network: MemoryNetwork,
        node_id: bytes,
        *,
        port: int = 0,
        config: TransportConfig | None = None,
        wire_filter: WireFilter | None = None,
    ) -> None:
        validate_peer_id(node_id)
        self.network = network
        self.node_id = node_id
        self.config = config or TransportConfig()
        self.endpoint = network._attach(self, port)
        self.port = int(self.endpoint.rsplit("/", 1)[1])
        self._endpoints: dict[bytes, str] = {}
        self._core = ReliableCore(
            node_id, self.config, self._emit, advertise=(self.port, None), wire_filter=wire_filter
        )
        self.session = self._core.session
        self._closed = False
        self.curve_key: bytes | None = None
        self.expected_keys: dict[bytes, bytes] = {}
        self.admit_strangers = True

    def _emit(self, dst: bytes, frame: bytes) -> bool:
        ep = self._endpoints.get(dst)
        if ep is None:
            return False
        self.network._put(self.node_id, ep, frame)  # like TCP: lost if nobody listens
        return True

    def __enter__(self) -> MemoryNode:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_open(self) -> None:
        if self._closed:
            raise TransportError("node is closed")

    def add_peer(self, peer_id: bytes, endpoint: str) -> None:
        if not endpoint.startswith("mem://"):
            raise ValueError(f"MemoryNode endpoints are mem://N, got {endpoint!r}")
        with self.network.lock:
            self._check_open()
            self._core.add_peer(peer_id, endpoint, self.network.clock())
            self._endpoints[peer_id] = endpoint

    def also_reach(self, peer_id: bytes, endpoints: Sequence[str]) -> None:
        """As :meth:`p2p.net.transport.Node.also_reach` (a memory network never stalls a
        peer over to them: one address per node)."""
        with self.network.lock:
            self._check_open()
            self._core.also_reach(peer_id, endpoints)

    def remove_peer(self, peer_id: bytes) -> None:
        with self.network.lock:
            self._core.remove_peer(peer_id)
            self._endpoints.pop(peer_id, None)

    def peers(self) -> list[bytes]:
        with self.network.lock:
            return self._core.peers()

    def endpoint_of(self, peer_id: bytes) -> str:
        with self.network.lock:
            return self._core.endpoint_of(peer_id)

    def prove_endpoint(self, sign: Callable[[bytes], bytes],
                       verify: Callable[[bytes, bytes, bytes], bool]) -> None:
        """Nothing to prove: a MemoryNode never moves (its endpoints are ``mem://N``)."""

    def expect_key(self, peer_id: bytes, curve_key: bytes) -> None:
        """Recorded only: the in-memory network authenticates nothing (Node does)."""
        validate_peer_id(peer_id)
        self.expected_keys[peer_id] = curve_key

    def set_admission(self, strangers: bool) -> None:
        """Recorded only, as :meth:`expect_key`."""
        self.admit_strangers = strangers

    def send(self, peer_id: bytes, payload: bytes) -> int:
        with self.network.lock:
            self._check_open()
            seq = self._core.enqueue(peer_id, payload)
            self.network.pump()
            return seq

    def broadcast(self, payload: bytes) -> dict[bytes, int]:
        out: dict[bytes, int] = {}
        with self.network.lock:
            self._check_open()
            for pid in self._core.peers():
                try:
                    out[pid] = self._core.enqueue(pid, payload)
                except QueueFull:
                    log.warning("broadcast: queue to %s full, skipped", pid.hex())
            self.network.pump()
        return out

    def recv(self, timeout: float | None = None) -> tuple[bytes, bytes] | None:
        start = time.monotonic()
        with self.network.cond:
            while True:
                if self._closed:
                    return None
                self.network.pump()
                msg = self._core.pop_message()
                if msg is not None:
                    return msg
                if timeout is not None and time.monotonic() - start >= timeout:
                    return None
                self.network.cond.wait(0.001)

    def events(self) -> list[PeerEvent]:
        with self.network.lock:
            self.network.pump()
            return self._core.pop_events()

    def peer_status(self, peer_id: bytes) -> PeerStatus:
        with self.network.lock:
            self.network.pump()
            return self._core.peer_status(peer_id, self.network.clock())

    def remote_session(self, peer_id: bytes) -> bytes | None:
        with self.network.lock:
            return self._core.remote_session(peer_id)

    def pending(self, peer_id: bytes | None = None) -> int:
        with self.network.lock:
            return self._core.unacked(peer_id)

    def pending_bytes(self, peer_id: bytes) -> int:
        with self.network.lock:
            return self._core.unacked_bytes(peer_id)

    def flush(self, timeout: float) -> bool:
        start = time.monotonic()
        with self.network.cond:
            while True:
                self.network.pump()
                if not self._core.unacked():
                    return True
                if time.monotonic() - start >= timeout:
                    return False
                self.network.cond.wait(0.001)

    def stats(self) -> dict[bytes, dict[str, int]]:
        with self.network.lock:
            return self._core.stats()

    def set_wakeup(self, callback: Callable[[], None] | None) -> None:
        """Accepted for interface parity; a MemoryNode has no I/O thread to call it."""

    def set_wire_filter(self, wire_filter: WireFilter | None) -> None:
        with self.network.lock:
            self._core.wire_filter = wire_filter

    def close(self) -> None:
        with self.network.lock:
            if not self._closed:
                self._closed = True
                self.network._detach(self.endpoint)

    @property
    def closed(self) -> bool:
        return self._closed


def dense_body(size: int) -> dict[str, object]:
    """A game body of about ``size`` bytes holding as many values as an envelope may
    (one per 8 bytes: :attr:`p2p.transcript.decoding.Limits.bytes_per_item`): empty lists
    of one byte each, some 64 bytes each in memory, padded with one string of bytes.
    No protocol step allows it (a crafted file's)."""
    lists = max(0, (size - 64) // 8 - 16)
    pad = b"\0" * max(0, size - 64 - lists)
    return {"k": "game.act", "pad": [[[]] * min(4000, lists - k) for k in range(0, lists, 4000)]
            + [pad]}


def craft_dense_transcript(honest: Path, out: Path, ids: list[Identity], total: int,
                           keep: int = 40, entry_bytes: int = 60_000) -> int:
    """Write ``out``: the header and the first ``keep`` entries of the transcript
    ``honest`` (its side entries dropped), then entries signed with the real keys ``ids``
    (in turn), each linked to the one before and of the next sequence number of its
    author, with :func:`dense_body` bodies of about ``entry_bytes``, until the file holds
    ``total`` bytes: every signature and link checks out, no protocol step allows a
    body. Returns the number of crafted entries. (The worst file for a verifier that
    reads a whole transcript before it replays the game: measured by
    ``benchmarks/verify_memory.py`` and ``tests/test_verify_memory.py``.)"""
    from p2p.transcript.envelope import Envelope
    from p2p.transcript.file import TranscriptHeader, is_side, iter_transcript

    header: TranscriptHeader | None = None
    entries: list[Envelope] = []
    for _off, item in iter_transcript(honest):
        if isinstance(item, TranscriptHeader):
            header = item
        elif not is_side(item.body) and len(entries) < keep:
            entries.append(item)
    assert header is not None and entries
    hand = entries[-1].hand
    head = entries[-1].hash()
    seq = {i.public_key: 0 for i in ids}
    for e in entries:
        if e.hand == hand:
            seq[e.author] = e.seq + 1
    body = dense_body(entry_bytes)
    n = 0
    with open(out, "wb") as f:
        f.write(header.to_bytes())
        for e in entries:
            f.write(e.encode())
        written = f.tell()
        while written < total:
            ident = ids[n % len(ids)]
            env = Envelope.create(ident, header.table, hand, seq[ident.public_key], head, body)
            seq[ident.public_key] += 1
            head = env.hash()
            raw = env.encode()
            f.write(raw)
            written += len(raw)
            n += 1
    return n


def two_players_and_an_absent_third(name: bytes, names: tuple[str, str, str]
                                    ) -> list[Peer]:
    """A three-seat modern table on 127.0.0.1 whose third seat never comes: two players'
    peers (no bot: they sign only what they are told to), a 1 s step limit. The peers are
    the caller's to close (their nodes with them)."""
    from engine import Seating, preset
    from p2p.net.transport import Node
    from p2p.table.memory import make_table
    from p2p.table.session import Peer, SessionOptions
    from p2p.table.wire import node_id_for

    cfg, ids = make_table(preset("modern", match_target=1), Seating.solo(3), list(names),
                          name)
    opts = SessionOptions(response_delay=0.0, stall_after=0.3, step_limit=1.0)
    nodes = [Node(node_id_for(ids[s].public_key)) for s in range(2)]
    eps = {0: nodes[0].endpoint, 1: nodes[1].endpoint, 2: "tcp://127.0.0.1:9"}
    return [Peer(ids[s], cfg, nodes[s], endpoints=eps, options=opts, controller=None)
            for s in range(2)]


class DelayProxy:
    """A TCP proxy on 127.0.0.1 that carries each connection's bytes to ``target``
    (``tcp://HOST:PORT``) and back ``one_way`` seconds late in each direction (a round trip
    of ``2 * one_way`` on top of the loopback's), optionally at most ``rate`` bytes a
    second each way: a VPN's or a satellite link's latency for real ZeroMQ nodes on one
    machine, without root or netem. Its :attr:`endpoint` is dialled instead of the
    target's. Only the TCP connect itself is not delayed (the proxy accepts at once), so a
    fresh connection's handshake here takes one round trip less than on a real link.

    One thread; at most ``buffer`` bytes held per direction of a connection (then it stops
    reading: the sender's own buffers fill, as on a slow link). :meth:`close` ends it."""

    def __init__(self, target: str, one_way: float, rate: float | None = None,
                 buffer: int = 256 << 10, listen: tuple[str, int] = ("127.0.0.1", 0)
                 ) -> None:
        """``listen``: where the proxy listens (another loopback address with the target's
        port models a peer reached only through the slow link, advertising that address)."""
        import selectors
        import socket

        host, _, port = target[len("tcp://"):].rpartition(":")
        self._target = (host.strip("[]"), int(port))
        self.one_way = one_way
        self.rate = rate
        self._buffer = buffer
        self._sel = selectors.DefaultSelector()
        self._listen = socket.create_server(listen)
        self._listen.setblocking(False)
        self._sel.register(self._listen, selectors.EVENT_READ, None)
        self.endpoint = f"tcp://{listen[0]}:{self._listen.getsockname()[1]}"
        self._pipes: list[_Pipe] = []
        #: bytes carried towards the target, all connections together, and connections
        self.carried = 0
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="delay-proxy", daemon=True)
        self._thread.start()

    def __enter__(self) -> DelayProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        import selectors
        import socket

        try:
            while not self._stop.is_set():
                now = time.monotonic()
                due = min((p.next_due() for p in self._pipes), default=now + 0.05)
                for key, _ev in self._sel.select(max(0.0, min(0.05, due - now))):
                    if key.fileobj is self._listen:
                        try:
                            c, _ = self._listen.accept()
                        except OSError:
                            continue
                        u = socket.socket(socket.AF_INET6 if ":" in self._target[0]
                                          else socket.AF_INET)
                        c.setblocking(False)
                        u.setblocking(False)
                        u.connect_ex(self._target)
                        for s in (c, u):
                            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                        a, b = _Pipe(self, c, u), _Pipe(self, u, c)
                        a.up = True
                        self.connections += 1
                        self._pipes += [a, b]
                        self._sel.register(c, selectors.EVENT_READ, a)
                        self._sel.register(u, selectors.EVENT_READ, b)
                    else:
                        key.data.read(time.monotonic())
                now = time.monotonic()
                for p in list(self._pipes):
                    if not p.flush(now):
                        self._drop(p)
                    elif p.paused != (p.dead or p.held_bytes >= self._buffer):
                        # a full buffer (or a closed end) stops reading, else the
                        # selector fires for ever
                        p.paused = not p.paused
                        if p.paused:
                            self._sel.unregister(p.src)
                        else:
                            self._sel.register(p.src, selectors.EVENT_READ, p)
        finally:
            for p in list(self._pipes):
                self._drop(p)
            self._sel.close()
            self._listen.close()

    def _drop(self, pipe: _Pipe) -> None:
        for p in [q for q in self._pipes if q.src in (pipe.src, pipe.dst)]:
            self._pipes.remove(p)
        for s in (pipe.src, pipe.dst):
            try:
                self._sel.unregister(s)  # (a paused one is not registered)
            except (KeyError, ValueError):
                pass
            s.close()


class _Pipe:
    """One direction of a :class:`DelayProxy` connection: bytes read from ``src`` are
    written to ``dst`` once their time has come."""

    def __init__(self, proxy: DelayProxy, src: object, dst: object) -> None:
        import socket

        assert isinstance(src, socket.socket) and isinstance(dst, socket.socket)
        self.proxy = proxy
        self.src, self.dst = src, dst
        self.held: list[tuple[float, bytes]] = []   # (when it may go, bytes), in order
        self.held_bytes = 0
        self.link_free = 0.0      # when the (rate-limited) link has sent what it holds
        self.dead = False
        self.paused = False
        self.up = False           # towards the target (counted in ``carried``)

    def next_due(self) -> float:
        return self.held[0][0] if self.held else float("inf")

    def read(self, now: float) -> None:
        if self.held_bytes >= self.proxy._buffer:
            return
        try:
            data = self.src.recv(min(65536, self.proxy._buffer - self.held_bytes))
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.dead = True
            return
        if self.up:
            self.proxy.carried += len(data)
        at = now
        if self.proxy.rate:
            self.link_free = max(self.link_free, now) + len(data) / self.proxy.rate
            at = self.link_free
        self.held.append((at + self.proxy.one_way, data))
        self.held_bytes += len(data)

    def flush(self, now: float) -> bool:
        """Write what is due; False once this connection is over."""
        while self.held and self.held[0][0] <= now:
            at, data = self.held[0]
            try:
                n = self.dst.send(data)
            except BlockingIOError:
                n = 0
            except OSError:
                return False
            if n < len(data):
                self.held[0] = (at, data[n:])
                self.held_bytes -= n
                return True
            self.held.pop(0)
            self.held_bytes -= n
        return not (self.dead and not self.held)


class DelayProxyProcess:
    """A :class:`DelayProxy` run in a child process (same arguments): a node's connection
    guard looks at every socket of its own process on its port (``ConnGuard.rescan``), and
    took an in-process proxy's, listening with that port on another loopback address, for
    an inbound connection of its own. :attr:`carried` and :attr:`connections` ask the
    child."""

    def __init__(self, target: str, one_way: float, rate: float | None = None,
                 buffer: int = 256 << 10, listen: tuple[str, int] = ("127.0.0.1", 0)
                 ) -> None:
        import json
        import subprocess
        import sys

        args = json.dumps([target, one_way, rate, buffer, list(listen)])
        self._proc = subprocess.Popen(
            [sys.executable, "-c", "import sys; from p2p.testing import _serve_delay_proxy; "
             "_serve_delay_proxy(sys.argv[1])", args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            cwd=str(Path(__file__).resolve().parent.parent))
        assert self._proc.stdout is not None
        self.endpoint = self._proc.stdout.readline().strip()
        if not self.endpoint:
            self.close()
            raise OSError("the delay proxy did not start")

    def _ask(self) -> list[int]:
        import json

        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write("?\n")
        self._proc.stdin.flush()
        out: list[int] = json.loads(self._proc.stdout.readline())
        return out

    @property
    def carried(self) -> int:
        return self._ask()[0]

    @property
    def connections(self) -> int:
        return self._ask()[1]

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.close()
                self._proc.wait(5)
            except Exception:
                self._proc.kill()
                self._proc.wait()

    def __enter__(self) -> DelayProxyProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _serve_delay_proxy(args: str) -> None:
    """The child of :class:`DelayProxyProcess`: prints the endpoint, answers each line
    on stdin with ``[carried, connections]``, ends at its end."""
    import json
    import sys

    target, one_way, rate, buffer, listen = json.loads(args)
    with DelayProxy(target, one_way, rate, buffer, (listen[0], listen[1])) as proxy:
        print(proxy.endpoint, flush=True)
        for _line in sys.stdin:
            print(json.dumps([proxy.carried, proxy.connections]), flush=True)
