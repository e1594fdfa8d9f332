"""Sixth hostile pass (2026-12-05): a hostile machine on the LAN against live peers, with
real ZeroMQ sockets on loopback. What must hold: an honest player is never blamed; no
input stops a peer (no traceback, no unbounded wait, no unbounded memory); every wait
has a limit.

Findings (each test here failed before its fix):

* a hostile host that sends one signed lobby state again and again, as fast as the
  joiner reads, held the joiner's ``LobbyClient.pump`` for ever: its loop read until the
  transport had nothing more, so the joiner showed nothing, never read 'leave' and never
  checked a time limit (measured: a 3 s run still inside its first pump after 20 s,
  ~1,700 states a second read; after: every pump returns, the longest took 0.3 s);
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from engine import Seating, preset
from p2p.crypto.identity import Identity
from p2p.net.interface import PeerEvent, QueueFull
from p2p.net.transport import Node
from p2p.table.lobby import MAX_PER_PUMP, LobbyClient, LobbyHost, LobbyState, _sign
from p2p.table.session import node_id_for


# ------------------------------------------------------- a host that never stops talking
class _EndlessHost:
    """A transport whose host always has one more message: the same signed state."""

    curve_key = None
    endpoint = "tcp://127.0.0.1:1"

    def __init__(self, host: Identity, state: LobbyState) -> None:
        self.host_id = node_id_for(host.public_key)
        obj = {"k": "state", "state": state.to_obj(), "key": host.public_key,
               "lobby": state.lobby_id}
        self.frame = _sign(host, obj)
        self.read = 0

    def add_peer(self, *a: Any) -> None:
        pass

    def remove_peer(self, *a: Any) -> None:
        pass

    def send(self, *a: Any) -> None:
        pass

    def events(self) -> Iterator[PeerEvent]:
        return iter(())

    def recv(self, timeout: float | None = None) -> tuple[bytes, bytes]:
        self.read += 1
        return self.host_id, self.frame


def test_a_joiners_pump_returns_while_its_host_never_stops_sending() -> None:
    host = Identity.generate()
    state = LobbyState("t", preset("classic"), Seating.solo(2), [None, None],
                       host.public_key, b"L" * 16)
    node = _EndlessHost(host, state)
    client = LobbyClient(Identity.generate(), "Ben", node, "127.0.0.1:1")  # type: ignore[arg-type]
    client.host_id = node.host_id
    done = threading.Event()

    def pump() -> None:
        for _ in range(3):
            client.pump(0.0)
        done.set()

    threading.Thread(target=pump, daemon=True).start()
    assert done.wait(30), f"the joiner is still reading the host ({node.read} states read)"
    assert client.state is not None and node.read <= 3 * MAX_PER_PUMP


@pytest.mark.hostile    # an attack, 2-5 s (the default run's 10-minute budget)
def test_a_hostile_host_flooding_states_cannot_hold_a_real_joiner() -> None:
    """Real sockets: once the joiner sits, the host's node sends its signed state as fast
    as the joiner takes it. Every pump of the joiner returns (before: its first never did),
    and the joiner still sees its seat."""
    ids = [Identity.generate() for _ in range(2)]
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    stop = threading.Event()
    try:
        host = LobbyHost(ids[0], "Ann", nodes[0], preset("classic"), Seating.solo(3))
        port = nodes[0].endpoint.rsplit(":", 1)[1]
        joiner = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{port}")
        for _ in range(400):
            host.pump(0.01)
            joiner.pump(0.01)
            if joiner.seat is not None:
                break
        assert joiner.seat is not None
        frame = _sign(ids[0], {"k": "state", "state": host.state.to_obj(),
                               "key": ids[0].public_key, "lobby": host.lobby_id})
        sent = [0]

        def flood() -> None:
            jid = node_id_for(ids[1].public_key)
            while not stop.is_set():
                try:
                    nodes[0].send(jid, frame)
                    sent[0] += 1
                except QueueFull:
                    time.sleep(0.001)

        threading.Thread(target=flood, daemon=True).start()
        while sent[0] < 2000:           # the joiner's transport is full of states
            time.sleep(0.01)
        pumped = []

        def pump() -> None:
            for _ in range(20):
                joiner.pump(0.05)
                pumped.append(1)

        t = threading.Thread(target=pump, daemon=True)
        t.start()
        t.join(60)
        assert len(pumped) == 20, f"the joiner returned from {len(pumped)} pumps of 20"
        assert joiner.seat == 1
    finally:
        stop.set()
        for n in nodes:
            n.close()
