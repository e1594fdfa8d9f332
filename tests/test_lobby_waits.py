"""A joiner's waits in the lobby end in words: a host that shows a full, ready table and
never starts it, and a host whose message cannot be read (under CURVE, where the frame is
the host's own), stop the join with a reason instead of holding it there in silence."""

from __future__ import annotations

import time

import pytest
import zmq

from cli import i18n
from cli.words import lobby_refusal
from engine import Seating, preset
from p2p.crypto.identity import Identity
from p2p.net.transport import Node
from p2p.table.lobby import LobbyClient, LobbyError, LobbyHost
from p2p.table.session import node_id_for


class _NeverStartingHost(LobbyHost):
    """A host that shows every seat taken and ready, then starts nothing."""

    def all_ready(self) -> bool:
        return False


def _pump_until_refused(host: LobbyHost, client: LobbyClient, seconds: float,
                        after_seated: object = None) -> LobbyError:
    end = time.monotonic() + seconds
    sent = False
    while time.monotonic() < end:
        assert host.pump(0.01) is None
        try:
            assert client.pump(0.01) is None
        except LobbyError as exc:
            return exc
        if client.seat is not None and not client.ready:
            client.set_ready(True)
        if client.seat is not None and after_seated is not None and not sent:
            sent = True
            after_seated()             # type: ignore[operator]
    raise AssertionError(f"no refusal within {seconds} s")


def test_a_host_that_shows_everyone_ready_and_never_starts_is_left() -> None:
    ids = [Identity.generate() for _ in range(2)]
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    try:
        host = _NeverStartingHost(ids[0], "Ann", nodes[0], preset("classic"),
                                  Seating.solo(2))
        host.set_ready(True)
        client = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}")
        client.start_wait = 1.0
        started = time.monotonic()
        exc = _pump_until_refused(host, client, 10)
        assert exc.why == "no-start", (exc.why, str(exc))
        assert "did not start the match" in str(exc)
        # ready seen, then the limit: not before it, and not long after
        assert 1.0 <= time.monotonic() - started < 6
        with i18n.using("fr"):
            said = lobby_refusal(exc.why, exc.data, str(exc))
        assert "1 s" in said and "n'a pas lancé la partie" in said, said
    finally:
        for n in nodes:
            n.close()


def test_an_honest_host_starts_well_within_the_start_limit() -> None:
    """The limit is for a host that holds the table: an honest one starts in the pump that
    sees the last ready, with the shortest limit the lobby could set."""
    ids = [Identity.generate() for _ in range(3)]
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    try:
        host = LobbyHost(ids[0], "Ann", nodes[0], preset("classic"), Seating.solo(3))
        host.set_ready(True)
        clients = [LobbyClient(ident, name, node, f"127.0.0.1:{nodes[0].port}")
                   for ident, name, node in zip(ids[1:], ("Ben", "Cy"), nodes[1:], strict=True)]
        for c in clients:
            c.start_wait = 0.5
        starts: list[object] = [None, None]
        hs = None
        end = time.monotonic() + 15
        while time.monotonic() < end and (hs is None or None in starts):
            hs = host.pump(0.01) if hs is None else hs
            for i, c in enumerate(clients):
                if starts[i] is None:
                    starts[i] = c.pump(0.01)     # raises LobbyError on a refusal
                    if c.seat is not None and not c.ready:
                        c.set_ready(True)
        assert hs is not None and None not in starts
    finally:
        for n in nodes:
            n.close()


@pytest.mark.skipif(not zmq.has("curve"), reason="libzmq without CURVE")
def test_an_unreadable_message_from_the_host_under_curve_is_said() -> None:
    """A start too large to read (or mangled) was dropped in silence and the joiner waited
    for a start that had come. Under CURVE the frame came over the host's authenticated
    connection: it is the host's, and said."""
    ids = [Identity.generate() for _ in range(2)]
    nodes = [Node(node_id_for(i.public_key), curve=i.curve_keys()) for i in ids]
    try:
        host = LobbyHost(ids[0], "Ann", nodes[0], preset("classic"), Seating.solo(3))
        client = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}")
        joiner = node_id_for(ids[1].public_key)
        exc = _pump_until_refused(host, client, 10,
                                  lambda: nodes[0].send(joiner, b"\xc1" * 200_000))
        assert exc.why == "unreadable-message", (exc.why, str(exc))
        with i18n.using("fr"):
            said = lobby_refusal(exc.why, exc.data, str(exc))
        assert "128 Kio" in said or "128 KiB" in said, said
    finally:
        for n in nodes:
            n.close()


def test_an_unreadable_frame_said_to_be_the_hosts_on_plain_zeromq_is_only_counted() -> None:
    """Without CURVE a frame's sender is a claim anyone on the LAN can make: garbage under
    the host's id must not end the join (a stranger would end every join), only be
    counted."""
    ids = [Identity.generate() for _ in range(2)]
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    try:
        host = LobbyHost(ids[0], "Ann", nodes[0], preset("classic"), Seating.solo(3))
        client = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}")
        joiner = node_id_for(ids[1].public_key)
        end = time.monotonic() + 10
        sent = False
        while time.monotonic() < end and client.unreadable == 0:
            host.pump(0.01)
            client.pump(0.01)                 # no refusal
            if client.seat is not None and not sent:
                sent = True
                nodes[0].send(joiner, b"not a lobby message")
        assert client.unreadable == 1 and client.refused is None
    finally:
        for n in nodes:
            n.close()
