"""Transport tests: real ZeroMQ sockets on 127.0.0.1 (random ports) and the in-memory double."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import statistics
import time
from collections.abc import Callable, Iterator

import msgpack
import pytest
import zmq

from p2p.net.interface import (
    PeerEventKind,
    PeerStatus,
    QueueFull,
    TransportConfig,
    TransportError,
    parse_endpoint,
)
from p2p.net.transport import Node
from p2p.testing import FakeClock, FaultShim, MemoryNetwork, MemoryNode

FAST = TransportConfig(
    rto_initial=0.05, hb_interval=0.05, slow_after=0.25, gone_after=0.6, max_payload=64 * 1024
)


def wait_until(pred: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.01)
    return pred()


def recv_n(node: Node | MemoryNode, n: int, timeout: float = 10.0) -> list[tuple[bytes, bytes]]:
    out: list[tuple[bytes, bytes]] = []
    deadline = time.monotonic() + timeout
    while len(out) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        m = node.recv(left)
        if m is None:
            break
        out.append(m)
    return out


@pytest.fixture
def nodes() -> Iterator[Callable[..., Node]]:
    made: list[Node] = []

    def make(node_id: bytes, **kw: object) -> Node:
        kw.setdefault("config", FAST)
        n = Node(node_id, **kw)  # type: ignore[arg-type]
        made.append(n)
        return n

    yield make
    for n in made:
        n.close()


def mesh(ns: list[Node]) -> None:
    for a in ns:
        for b in ns:
            if a is not b:
                a.add_peer(b.node_id, b.endpoint)


# --------------------------------------------------------------- basics
def test_endpoint_is_reported_and_random(nodes: Callable[..., Node]) -> None:
    a, b = nodes(b"A"), nodes(b"B")
    assert a.endpoint.startswith("tcp://127.0.0.1:") and a.port > 0
    assert a.port != b.port
    assert parse_endpoint("10.0.0.1:4000") == "tcp://10.0.0.1:4000"
    assert parse_endpoint("tcp://[::1]:4000") == "tcp://[::1]:4000"
    with pytest.raises(ValueError):
        parse_endpoint("nohost")
    c = nodes(b"C", bind="lo")  # an interface name works too
    assert c.endpoint.startswith("tcp://127.0.0.1:")


def test_two_nodes_in_order_exactly_once(nodes: Callable[..., Node]) -> None:
    a, b = nodes(b"A"), nodes(b"B")
    mesh([a, b])
    for i in range(200):
        a.send(b"B", b"a%d" % i)
        b.send(b"A", b"b%d" % i)
    got_b = recv_n(b, 200)
    got_a = recv_n(a, 200)
    assert got_b == [(b"A", b"a%d" % i) for i in range(200)]
    assert got_a == [(b"B", b"b%d" % i) for i in range(200)]
    assert a.flush(5) and b.flush(5)
    assert b.recv(0.1) is None  # nothing extra


def test_pending_bytes_count_what_waits_for_an_acknowledgement(
        nodes: Callable[..., Node]) -> None:
    """``pending_bytes`` is what the replicated log bounds its FETCH replies by: the
    payload bytes queued to a peer and not acknowledged, back to 0 once they are."""
    a, b = nodes(b"A"), nodes(b"B")
    a.add_peer(b"B", "tcp://127.0.0.1:1")     # nobody listens there: nothing is acked
    a.send(b"B", b"x" * 1000)
    a.send(b"B", b"y" * 24)
    assert (a.pending(b"B"), a.pending_bytes(b"B")) == (2, 1024)
    a.add_peer(b"B", b.endpoint)
    b.add_peer(b"A", a.endpoint)
    assert recv_n(b, 2) == [(b"A", b"x" * 1000), (b"A", b"y" * 24)]
    assert a.flush(5)
    assert (a.pending(b"B"), a.pending_bytes(b"B")) == (0, 0)


def test_a_dealer_that_gave_up_is_dialled_again_while_its_peer_is_heard(
        nodes: Callable[..., Node]) -> None:
    """A bot started for a player's seat while he was away dialled his port; once he
    resumed there, the bot heard him but its own connection to him never came up
    again (libzmq ends a connection for good on some errors): its 8,000 frames to him
    waited until its queue was full (2026-12-06). Such a connection is the same as a
    DEALER disconnected from its endpoint; a peer we hear, to whom nothing could be
    queued for ``reopen_after``, is dialled afresh."""
    a, b = nodes(b"A"), nodes(b"B")
    mesh([a, b])
    a.send(b"B", b"first")
    assert recv_n(b, 1) == [(b"A", b"first")]
    a._dealers[b"B"].disconnect(b.endpoint)         # libzmq gives up on it
    time.sleep(0.5)                                 # ... and it is down: nothing queues
    for i in range(3):
        a.send(b"B", b"late %d" % i)
    got: list[bytes] = []
    end = time.monotonic() + 3 * a.config.reopen_after
    while time.monotonic() < end and len(got) < 3:
        b.send(b"A", b"still here")                 # A hears B all the while
        got += [p for _, p in recv_n(b, 3 - len(got), timeout=0.2)]
    assert got == [b"late 0", b"late 1", b"late 2"], got


def test_four_nodes_full_mesh(nodes: Callable[..., Node]) -> None:
    ns = [nodes(bytes([65 + i])) for i in range(4)]
    mesh(ns)
    for n in ns:
        for i in range(50):
            n.broadcast(n.node_id + b":%d" % i)
    for n in ns:
        got = recv_n(n, 150)
        assert len(got) == 150
        for other in ns:
            if other is n:
                continue
            seq = [p for src, p in got if src == other.node_id]
            assert seq == [other.node_id + b":%d" % i for i in range(50)]


def test_senders_in_many_threads_while_frames_arrive(nodes: Callable[..., Node]) -> None:
    """``send`` and ``broadcast`` put frames on the DEALERs from the calling thread, under
    the node's lock, while its I/O thread receives and opens and closes DEALERs: four
    threads sending at once, with traffic coming the other way and a peer added and
    removed meanwhile, still deliver every payload once and in each thread's order."""
    import threading

    a, b, c = nodes(b"A"), nodes(b"B"), nodes(b"C")
    mesh([a, b])
    b.add_peer(b"C", c.endpoint)
    c.add_peer(b"B", b.endpoint)
    n = 150

    def sender(tag: bytes) -> None:
        for i in range(n):
            if i % 2:
                a.send(b"B", tag + b"%d" % i)
            else:
                a.broadcast(tag + b"%d" % i)

    def churn() -> None:
        for _ in range(20):
            a.add_peer(b"X", c.endpoint)   # a peer that never answers, opened and closed
            a.remove_peer(b"X")
            b.send(b"A", b"back")

    threads = [threading.Thread(target=sender, args=(t,)) for t in (b"p", b"q", b"r", b"s")]
    threads.append(threading.Thread(target=churn))
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    got = recv_n(b, 4 * n)
    assert len(got) == 4 * n
    for tag in (b"p", b"q", b"r", b"s"):
        mine = [int(p[1:]) for src, p in got if p[:1] == tag]
        assert mine == list(range(n)), tag
    assert [p for _, p in recv_n(a, 20)] == [b"back"] * 20
    assert a.flush(5)
    assert b.recv(0.1) is None


def test_send_errors(nodes: Callable[..., Node]) -> None:
    cfg = TransportConfig(max_payload=100, max_send_queue=3)
    a = nodes(b"A", config=cfg)
    with pytest.raises(TransportError):
        a.send(b"nobody", b"x")
    with pytest.raises(TransportError):
        a.add_peer(b"\x00bad", "tcp://127.0.0.1:1")
    a.add_peer(b"B", "tcp://127.0.0.1:9")  # nobody listens: nothing is ever acked
    with pytest.raises(TransportError):
        a.send(b"B", b"x" * 101)
    for _ in range(3):
        a.send(b"B", b"x")
    with pytest.raises(QueueFull):
        a.send(b"B", b"x")
    assert a.broadcast(b"y") == {}


# --------------------------------------------------------- fault shim
@pytest.mark.parametrize("seed", [1, 2])
def test_fault_shim_exactly_once_in_order_real_sockets(
    nodes: Callable[..., Node], seed: int
) -> None:
    shim_a = FaultShim(seed=seed, drop=0.2, duplicate=0.1, delay=0.2, reorder=0.1)
    shim_b = FaultShim(seed=seed + 100, drop=0.2, duplicate=0.1, delay=0.2, reorder=0.1)
    a, b = nodes(b"A", wire_filter=shim_a), nodes(b"B", wire_filter=shim_b)
    mesh([a, b])
    n = 500
    for i in range(n):
        a.send(b"B", i.to_bytes(4, "big"))
    got = recv_n(b, n, timeout=15)
    assert [int.from_bytes(p, "big") for _, p in got] == list(range(n))
    assert a.flush(10)
    assert b.recv(0.2) is None
    # the shim really did its job
    assert shim_a.counts["dropped"] > 50 and shim_a.counts["duplicated"] > 20
    assert shim_a.counts["reordered"] > 20 and shim_a.counts["delayed"] > 20


def test_fault_shim_on_memory_transport_is_deterministic() -> None:
    def run() -> tuple[list[int], dict[str, int]]:
        clock = FakeClock()
        net = MemoryNetwork(clock=clock, latency=0.001)
        shim = FaultShim(seed=7, drop=0.3, duplicate=0.2, delay=0.3, reorder=0.2)
        cfg = TransportConfig(rto_initial=0.05)
        a = MemoryNode(net, b"A", config=cfg, wire_filter=shim)
        b = MemoryNode(net, b"B", config=cfg)
        a.add_peer(b"B", b.endpoint)
        b.add_peer(b"A", a.endpoint)
        for i in range(300):
            a.send(b"B", i.to_bytes(2, "big"))
        out: list[int] = []
        for _ in range(20000):
            m = b.recv(0)
            if m is not None:
                out.append(int.from_bytes(m[1], "big"))
            elif a.pending() == 0:
                break
            else:
                clock.advance(0.005)
        return out, dict(shim.counts)

    r1, r2 = run(), run()
    assert r1[0] == list(range(300))
    assert r1 == r2  # same seed, same fake clock: same everything


def test_memory_node_interface_matches_node() -> None:
    def public(cls: type) -> set[str]:
        return {n for n, _ in inspect.getmembers(cls) if not n.startswith("_")}

    assert public(Node) == public(MemoryNode)
    for name in public(Node):
        a, b = getattr(Node, name), getattr(MemoryNode, name)
        if callable(a) and not isinstance(a, property):
            pa = list(inspect.signature(a).parameters)
            pb = list(inspect.signature(b).parameters)
            assert pa == pb, name


# ----------------------------------------------------------- restarts
def test_receiver_restart_same_port_resumes(nodes: Callable[..., Node]) -> None:
    a, b = nodes(b"A"), nodes(b"B")
    mesh([a, b])
    for i in range(50):
        a.send(b"B", b"%d" % i)
    assert [p for _, p in recv_n(b, 50)] == [b"%d" % i for i in range(50)]
    assert a.flush(5)
    port, old_session = b.port, b.session
    b.close()
    for i in range(50, 100):  # sent while B is down
        a.send(b"B", b"%d" % i)
    b2 = nodes(b"B", port=port)
    assert b2.session != old_session
    b2.add_peer(b"A", a.endpoint)
    got = recv_n(b2, 50)
    assert [p for _, p in got] == [b"%d" % i for i in range(50, 100)]
    # and the restarted node can talk back; A notices the restart
    b2.send(b"A", b"back")
    assert a.recv(5) == (b"B", b"back")
    assert wait_until(lambda: a.remote_session(b"B") == b2.session)
    assert any(e.kind is PeerEventKind.RESTARTED and e.peer_id == b"B" for e in a.events())


def test_sender_restart_resets_receiver(nodes: Callable[..., Node]) -> None:
    a, b = nodes(b"A"), nodes(b"B")
    mesh([a, b])
    for i in range(30):
        a.send(b"B", b"old%d" % i)
    assert len(recv_n(b, 30)) == 30
    port = a.port
    a.close()
    a2 = nodes(b"A", port=port)
    a2.add_peer(b"B", b.endpoint)
    for i in range(30):
        a2.send(b"B", b"new%d" % i)
    got = recv_n(b, 30)
    assert [p for _, p in got] == [b"new%d" % i for i in range(30)]
    kinds = [e.kind for e in b.events() if e.peer_id == b"A"]
    assert PeerEventKind.RESTARTED in kinds


def test_stale_session_frames_are_dropped() -> None:
    net = MemoryNetwork()
    a = MemoryNode(net, b"A")
    b = MemoryNode(net, b"B")
    a.add_peer(b"B", b.endpoint)
    b.add_peer(b"A", a.endpoint)
    a.send(b"B", b"1")
    assert b.recv(1) == (b"A", b"1")
    old = a.session
    a.close()
    a2 = MemoryNode(net, b"A", port=a.port)
    a2.add_peer(b"B", b.endpoint)
    a2.send(b"B", b"2")
    assert b.recv(1) == (b"A", b"2")
    # a late frame from the dead session must be ignored
    stale = msgpack.packb([0, old, 2, 1, b"ghost"], use_bin_type=True)
    b._core.on_frame(b"A", stale, net.clock())
    assert b.recv(0.05) is None
    assert b.stats()[b"A"]["stale_session"] == 1


# ------------------------------------------------------------- safety
def raw_dealer(
    ctx: zmq.Context[zmq.Socket[bytes]], ident: bytes, endpoint: str
) -> zmq.Socket[bytes]:
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.setsockopt(zmq.ROUTING_ID, ident)
    s.connect(endpoint)
    return s


def test_oversized_malformed_unknown_dropped_and_reported(nodes: Callable[..., Node]) -> None:
    cfg = TransportConfig(max_payload=1000, hb_interval=0.05)
    a, b = nodes(b"A", config=cfg), nodes(b"B", config=cfg)
    mesh([a, b])
    a.add_peer(b"EVIL", "tcp://127.0.0.1:9")
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    try:
        evil = raw_dealer(ctx, b"EVIL", a.endpoint)
        stranger = raw_dealer(ctx, b"STRANGER", a.endpoint)
        sess = b"s" * 8
        evil.send(msgpack.packb([0, sess, 1, 1, b"x" * 1500], use_bin_type=True))  # oversized
        evil.send(b"\xc1garbage")  # not msgpack
        evil.send(msgpack.packb([9, sess], use_bin_type=True))  # unknown kind
        evil.send(msgpack.packb({"a": 1}))  # wrong shape
        evil.send_multipart([b"two", b"parts"])  # wrong framing
        stranger.send(msgpack.packb([2, sess, 4242, "127.0.0.1"], use_bin_type=True))
        # above ZMQ_MAXMSGSIZE: libzmq drops the connection itself
        huge = raw_dealer(ctx, b"HUGE", a.endpoint)
        huge.send(b"z" * (cfg.zmq_maxmsgsize + 10))

        def counted() -> bool:
            s = a.stats()
            return (
                s.get(b"EVIL", {}).get("oversized") == 1
                and s.get(b"EVIL", {}).get("malformed") == 4
                and s.get(b"STRANGER", {}).get("unknown_peer") == 1
            )

        assert wait_until(counted), a.stats()
        hello = [e for e in a.events() if e.kind is PeerEventKind.HELLO]
        assert hello and hello[0].peer_id == b"STRANGER"
        assert hello[0].endpoint == "tcp://127.0.0.1:4242"
        # the node is still perfectly usable
        b.send(b"A", b"still fine")
        assert a.recv(5) == (b"B", b"still fine")
        assert b"HUGE" not in a.stats()  # never reached the application
        # a valid DATA frame from the raw EVIL socket is delivered (it is a known peer)
        evil.send(msgpack.packb([0, sess, 1, 1, b"ok"], use_bin_type=True))
        assert a.recv(5) == (b"EVIL", b"ok")
    finally:
        ctx.destroy(0)


def test_flooding_peer_does_not_stall_another(nodes: Callable[..., Node]) -> None:
    cfg = TransportConfig(max_inbox=64, rto_initial=0.05, max_send_queue=20000)
    a = nodes(b"A", config=cfg)
    flood, quiet = nodes(b"F", config=cfg), nodes(b"Q", config=cfg)
    mesh([a, flood, quiet])
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    try:
        # garbage flood from a raw socket plus a legitimate flood of 5000 messages
        a.add_peer(b"J", "tcp://127.0.0.1:9")
        junk = raw_dealer(ctx, b"J", a.endpoint)
        junk.setsockopt(zmq.SNDTIMEO, 2000)
        for _ in range(5000):
            junk.send(b"\xc1" * 64)
        for i in range(5000):
            flood.send(b"A", b"f%d" % i)
        time.sleep(0.2)
        t0 = time.monotonic()
        for i in range(5):
            quiet.send(b"A", b"q%d" % i)
        assert quiet.flush(2)  # A holds them although F's flood is queued in front
        got: list[tuple[bytes, bytes]] = []
        q_seen: list[int] = []
        while len(q_seen) < 5 and time.monotonic() - t0 < 5:
            m = a.recv(1)
            if m is None:
                continue
            got.append(m)
            if m[0] == b"Q":
                q_seen.append(len(got))
        latency = time.monotonic() - t0
        assert [p for s, p in got if s == b"Q"] == [b"q%d" % i for i in range(5)]
        # round-robin: the quiet peer's messages come out among the first few reads
        assert q_seen[-1] <= 10, q_seen
        assert latency < 2.0
        assert a.stats()[b"J"]["malformed"] >= 1
        # and the flood itself is complete and in order
        rest = recv_n(a, 5000 - sum(1 for s, _ in got if s == b"F"), timeout=15)
        fl = [p for s, p in got + rest if s == b"F"]
        assert fl == [b"f%d" % i for i in range(5000)]
    finally:
        ctx.destroy(0)


# ---------------------------------------------------------- heartbeats
def test_heartbeat_connected_then_gone(nodes: Callable[..., Node]) -> None:
    """CONNECTED, SLOW, GONE. A's status of B is updated at its ticks: with FAST's
    0.35 s between slow and gone, a process that did not run for about a second after
    ``b.close()`` (a loaded machine; shown with SIGSTOP) went from connected to gone
    at its next tick. Slow lasts 1.75 s here."""
    a = nodes(b"A", config=dataclasses.replace(FAST, gone_after=2.0))
    b = nodes(b"B")
    mesh([a, b])
    assert a.peer_status(b"B") in (PeerStatus.CONNECTING, PeerStatus.CONNECTED)
    assert wait_until(lambda: a.peer_status(b"B") is PeerStatus.CONNECTED)
    b.close()
    assert wait_until(lambda: a.peer_status(b"B") is PeerStatus.GONE, timeout=6)
    kinds = [e.status for e in a.events() if e.kind is PeerEventKind.STATUS]
    assert kinds[-3:] == [PeerStatus.CONNECTED, PeerStatus.SLOW, PeerStatus.GONE]


def test_never_heard_peer_goes_gone(nodes: Callable[..., Node]) -> None:
    a = nodes(b"A")
    a.add_peer(b"B", "tcp://127.0.0.1:9")
    assert a.peer_status(b"B") is PeerStatus.CONNECTING
    assert wait_until(lambda: a.peer_status(b"B") is PeerStatus.GONE, timeout=3)


def test_memory_heartbeat_with_fake_clock() -> None:
    clock = FakeClock()
    net = MemoryNetwork(clock=clock)
    a, b = MemoryNode(net, b"A", config=FAST), MemoryNode(net, b"B", config=FAST)
    a.add_peer(b"B", b.endpoint)
    b.add_peer(b"A", a.endpoint)
    assert a.peer_status(b"B") is PeerStatus.CONNECTED
    b.close()
    clock.advance(0.3)
    assert a.peer_status(b"B") is PeerStatus.SLOW
    clock.advance(0.4)
    assert a.peer_status(b"B") is PeerStatus.GONE


# -------------------------------------------------------------- asyncio
def test_asyncio_wakeup(nodes: Callable[..., Node]) -> None:
    a, b = nodes(b"A"), nodes(b"B")
    mesh([a, b])

    async def main() -> bytes:
        loop = asyncio.get_running_loop()
        ev = asyncio.Event()
        b.set_wakeup(lambda: loop.call_soon_threadsafe(ev.set))
        a.send(b"B", b"hi")
        while True:
            m = b.recv(0)
            if m is not None:
                return m[1]
            await asyncio.wait_for(ev.wait(), 5)
            ev.clear()

    assert asyncio.run(main()) == b"hi"
    b.set_wakeup(None)


# ------------------------------------------------------------ benchmark
@pytest.mark.bench
def test_bench_round_trip_latency(nodes: Callable[..., Node]) -> None:
    a, b = nodes(b"A", config=TransportConfig()), nodes(b"B", config=TransportConfig())
    mesh([a, b])
    a.send(b"B", b"warm")
    assert b.recv(5) is not None
    rtts: list[float] = []
    for i in range(1000):
        t = time.perf_counter()
        a.send(b"B", b"ping%d" % i)
        m = b.recv(5)
        assert m is not None
        b.send(b"A", m[1])
        r = a.recv(5)
        assert r is not None and r[1] == b"ping%d" % i
        rtts.append(time.perf_counter() - t)
    rtts.sort()
    p50 = statistics.median(rtts) * 1e3
    p99 = rtts[int(len(rtts) * 0.99)] * 1e3
    t = time.perf_counter()
    for _ in range(5000):
        a.send(b"B", b"x" * 100)
    got = recv_n(b, 5000)
    rate = len(got) / (time.perf_counter() - t)
    print(f"\nloopback round trip over 1000 messages: p50 {p50:.3f} ms, p99 {p99:.3f} ms")
    print(f"one-way throughput, 100-byte payloads: {rate:.0f} msg/s")


# ------------------------------------------------- property: any faults
from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@example(seed=0, drop=0.0, duplicate=0.109375, delay=0.11328125, reorder=0.125, n=115,
         window=20, restart_at=106)   # found by hypothesis: the last payload never came
@example(seed=1914497297, drop=0.3648203707103906, duplicate=0.4552474816357257,
         delay=0.5419881967551243, reorder=0.06256393980605063, n=2, window=26,
         restart_at=98)   # a frame buffered before a skip forward was never delivered
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    drop=st.floats(0.0, 0.5),
    duplicate=st.floats(0.0, 0.5),
    delay=st.floats(0.0, 1.0),
    reorder=st.floats(0.0, 0.5),
    n=st.integers(1, 120),
    window=st.integers(1, 64),
    restart_at=st.one_of(st.none(), st.integers(0, 119)),
)
def test_property_exactly_once_in_order_under_faults(
    seed: int,
    drop: float,
    duplicate: float,
    delay: float,
    reorder: float,
    n: int,
    window: int,
    restart_at: int | None,
) -> None:
    """Whatever the faults (both directions, acks and heartbeats included), every
    payload is delivered exactly once and in order.

    If the receiver restarts mid-stream: each incarnation delivers in strictly
    increasing order; nothing is lost except what the dead incarnation had
    acknowledged but not yet handed to the application; any hole inside the
    new incarnation's stream is announced by GAP events; the sender sees
    RESTARTED.  (Overlap with what the old incarnation read is possible -- its
    last acks may have died with it -- and the signed log above dedupes.)"""
    clock = FakeClock()
    net = MemoryNetwork(clock=clock, latency=0.002)
    cfg = TransportConfig(rto_initial=0.05, window=window, max_inbox=8)

    def shim(k: int) -> FaultShim:
        return FaultShim(
            seed=seed + k, drop=drop, duplicate=duplicate, delay=delay, reorder=reorder
        )

    a = MemoryNode(net, b"A", config=cfg, wire_filter=shim(0))
    b = MemoryNode(net, b"B", config=cfg, wire_filter=shim(1))
    a.add_peer(b"B", b.endpoint)
    b.add_peer(b"A", a.endpoint)
    for i in range(n):
        a.send(b"B", i.to_bytes(2, "big"))
    before: list[int] = []
    after: list[int] = []
    lost: list[int] = []
    a_knew_old_b = False
    cur, out = b, before
    restarted = False
    for _ in range(200_000):
        m = cur.recv(0)
        if m is not None:
            assert m[0] == b"A"
            out.append(int.from_bytes(m[1], "big"))
            if restart_at is not None and not restarted and len(before) > restart_at % n:
                restarted = True
                inbox = cur._core._peers[b"A"].inbox  # acked, unread: dies with it
                lost = [int.from_bytes(x, "big") for x in inbox]
                a_knew_old_b = a.remote_session(b"B") is not None
                cur.close()
                cur = MemoryNode(net, b"B", port=b.port, config=cfg, wire_filter=shim(2))
                cur.add_peer(b"A", a.endpoint)
                out = after
            continue
        if a.pending() == 0:
            break
        clock.advance(0.01)
    for _ in range(500):  # let the last heartbeats and stragglers land (10 s: with half the
        clock.advance(0.02)   # frames dropped, a restarted peer's first heartbeats may be lost)
        m = cur.recv(0)
        if m is not None:
            out.append(int.from_bytes(m[1], "big"))
    assert before == list(range(len(before)))
    if not restarted:
        assert before == list(range(n))
        return
    assert after == sorted(set(after)), after
    assert set(range(n)) <= set(before) | set(after) | set(lost)
    gaps = sum(e.detail for e in cur.events() if e.kind is PeerEventKind.GAP)
    holes = (after[-1] - after[0] + 1 - len(after)) if after else 0
    assert gaps >= holes
    if a_knew_old_b:  # otherwise the new incarnation is simply A's first contact
        assert any(e.kind is PeerEventKind.RESTARTED for e in a.events())


def test_a_spoofed_restart_undone_delivers_nothing_twice() -> None:
    """A frame under a's id from a stranger makes b think a restarted; when a's real session
    keeps talking b switches back — and must not deliver again what it already delivered
    (a resend whose acknowledgement was lost). Failed before: "one" came out twice."""
    from p2p.net.frames import DATA, HELLO, pack_frame
    from p2p.net.reliable import ReliableCore

    cfg = TransportConfig()
    wire_to_b: list[bytes] = []
    a = ReliableCore(b"a" * 8, cfg, lambda dst, f: wire_to_b.append(f) or True,
                     session=b"A" * 8)
    b = ReliableCore(b"b" * 8, cfg, lambda dst, f: True, session=b"B" * 8)
    a.add_peer(b.node_id, "tcp://127.0.0.1:2", 0.0)
    b.add_peer(a.node_id, "tcp://127.0.0.1:1", 0.0)
    a.enqueue(b.node_id, b"one")
    a.tick(0.0)
    for f in wire_to_b:
        b.on_frame(a.node_id, f, 0.0)
    assert b.pop_message() == (a.node_id, b"one")
    # b's acknowledgement never reaches a; a stranger speaks under a's id with a new session
    b.on_frame(a.node_id, pack_frame([HELLO, b"S" * 8, 1, "127.0.0.1"]), 0.1)
    b.on_frame(a.node_id, pack_frame([DATA, b"S" * 8, 1, 1, b"spoof"]), 0.1)
    b.pop_message()
    # a's real session goes on talking (its resend of "one", then "two") after the quiet
    t = 0.1 + cfg.slow_after + 0.5
    wire_to_b.clear()
    a.enqueue(b.node_id, b"two")
    a.tick(t)
    for f in wire_to_b:
        b.on_frame(a.node_id, f, t)
        b.on_frame(a.node_id, f, t)  # a session switched back retakes its stream here
    got = []
    while (m := b.pop_message()) is not None:
        got.append(m[1])
    assert got == [b"two"]


def test_routing_ids_carry_a_nonce_and_name_their_node() -> None:
    """Each DEALER presents ``node id # nonce``: the receiver reads the node id back, two
    sockets of one node never present the same routing id (so ROUTER_HANDOVER cannot be
    aimed at a member's pipe), and a raw client's routing id names itself."""
    from p2p.net.transport import _routing_id, node_of_routing_id

    a, b = _routing_id(b"node-a"), _routing_id(b"node-a")
    assert a != b and len(a) == len(b"node-a") + 9
    assert node_of_routing_id(a) == node_of_routing_id(b) == b"node-a"
    assert node_of_routing_id(b"raw-client-id") == b"raw-client-id"
    assert node_of_routing_id(b"#") == b"#"
    with pytest.raises(TransportError):
        Node(b"x" * 250)


def test_a_sender_moving_its_base_up_cannot_grow_the_inbox_past_its_bound() -> None:
    """Hostile review: a DATA frame whose ``base`` jumps forward delivered every frame
    buffered below it without looking at ``max_inbox``; a peer sending (seq k+1, base k),
    (k+2, k+1), ... while the application did not read grew the inbox by one payload (up
    to 1 MiB) a frame. Now the skip waits while the inbox is full (the frame is not
    acknowledged, so an honest sender sends it again)."""
    from p2p.net.frames import DATA, pack_frame
    from p2p.net.reliable import ReliableCore

    cfg = TransportConfig(max_inbox=16)
    core = ReliableCore(b"victim", cfg, lambda dst, f: True)
    core.add_peer(b"attacker", "tcp://127.0.0.1:1", 0.0)
    session, payload = b"S" * 8, b"x" * 4096
    for seq in range(1, 200):                  # fill the inbox; the app does not read
        core.on_frame(b"attacker", pack_frame([DATA, session, seq, 1, payload]), 0.0)
    for seq in range(1000, 6000):
        core.on_frame(b"attacker", pack_frame([DATA, session, seq + 1, seq, payload]), 0.0)
    peer = core._peers[b"attacker"]
    assert len(peer.inbox) <= cfg.max_inbox + cfg.window
    assert core.stats()[b"attacker"]["inbox_full"] > 0


def test_a_token_bucket_allows_its_burst_then_its_rate() -> None:
    from p2p.net.budget import TokenBucket
    b = TokenBucket(rate=2.0, burst=3.0)
    assert [b.take(10.0) for _ in range(4)] == [True, True, True, False]
    assert not b.take(10.4)                      # 0.8 of a token: not yet
    assert b.take(10.5) and not b.take(10.5)     # one a half second
    assert [b.take(100.0) for _ in range(4)] == [True, True, True, False]   # never > burst


def test_a_raw_client_claiming_our_id_is_seen_as_us_whatever_bytes_the_id_holds() -> None:
    """CI found it (1 run in 256): a raw client presenting our node id, whose 25th byte
    happened to be ``#``, was read as a routed id naming a 24-byte stranger, so the
    'claims to come from us' check never saw it. An id that is ours, or a known peer's,
    names itself."""
    from p2p.hostile import HostileSocket, hello_frame

    own = b"m" + b"\x01" * 23 + b"#" + b"\x02" * 8      # '#' where a nonce mark goes
    node = Node(own)
    try:
        with HostileSocket(node.endpoint, own) as raw:
            assert raw.send(hello_frame(5, "127.0.0.1"))
            end = time.monotonic() + 5
            while time.monotonic() < end and not node.stats().get(own):
                time.sleep(0.01)
        assert node.stats()[own].get("own_id", 0) >= 1
        assert own[:24] not in node.stats()
    finally:
        node.close()
