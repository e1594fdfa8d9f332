"""A joiner's waits in the lobby end in words: a host that shows a full, ready table and
never starts it, and a host whose message cannot be read (under CURVE, where the frame is
the host's own), stop the join with a reason instead of holding it there in silence."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import zmq

from cli import i18n
from cli.words import lobby_refusal
from engine import Seating, preset
from p2p.crypto.identity import Identity
from p2p.net.interface import TransportConfig
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
        assert "no start came from the host" in str(exc)
        # ready seen, then the limit: not before it, and not long after
        assert 1.0 <= time.monotonic() - started < 6
        with i18n.using("fr"):
            said = lobby_refusal(exc.why, exc.data, str(exc))
        assert "1 s" in said and "aucun lancement n'est venu de l'hôte" in said, said
        # the host is told: the seat of a joiner who gave up was kept, taken and ready,
        # and the next ready started a table with a player who had left (the review)
        end = time.monotonic() + 5
        while host.state.seats[1] is not None and time.monotonic() < end:
            host.pump(0.01)
        assert host.state.seats[1] is None
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


def _seated_and_ready(host: LobbyHost, client: LobbyClient) -> None:
    end = time.monotonic() + 10
    while time.monotonic() < end:
        host.pump(0.01)
        client.pump(0.01)
        if client.seat is not None and not client.ready:
            client.set_ready(True)
        seat = host.state.seats[1]
        if seat is not None and seat.ready:
            return
    raise AssertionError("the joiner was not seated and ready within 10 s")


def test_a_start_waiting_in_the_queue_is_taken_after_a_long_pause() -> None:
    """A joiner whose process was stopped past the limit (a laptop asleep) checked the
    limit before reading its queue, and left a host whose start was there (the review)."""
    ids = [Identity.generate() for _ in range(2)]
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    now = [0.0]
    try:
        host = LobbyHost(ids[0], "Ann", nodes[0], preset("classic"), Seating.solo(2))
        host.set_ready(False)
        client = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}",
                             clock=lambda: now[0])
        _seated_and_ready(host, client)
        host.set_ready(True)                         # the full, ready state goes out
        end = time.monotonic() + 5
        while client.start_wait_left() is None and time.monotonic() < end:
            client.pump(0.01)
        assert client.start_wait_left() is not None
        assert host.pump(0.01) is not None           # the honest host starts at once
        time.sleep(0.5)                              # its start is in the joiner's queue
        now[0] += client.start_wait + 1              # the joiner's process was stopped
        assert client.pump(0.01) is not None
    finally:
        for n in nodes:
            n.close()


def test_a_host_gone_between_its_ready_state_and_its_start_is_said_gone() -> None:
    """The start limit (shorter) ran while the transport knew the host was gone: a host
    whose network dropped was called stuck (the review). Gone is said as gone."""
    ids = [Identity.generate() for _ in range(2)]
    quick = TransportConfig(slow_after=0.3, gone_after=0.8)
    nodes = [Node(node_id_for(i.public_key), config=quick) for i in ids]
    try:
        host = LobbyHost(ids[0], "Ann", nodes[0], preset("classic"), Seating.solo(2))
        host.set_ready(False)
        client = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}")
        client.start_wait, client.host_lost = 2.0, 4.0
        _seated_and_ready(host, client)
        # the full, ready state reaches the joiner; the host's computer then drops off
        host.state.seats[0].ready = True   # (as set_ready, without the start's pump)
        host.set_ready(True)
        nodes[0].flush(1.0)
        nodes[0].close()
        started = time.monotonic()
        with pytest.raises(LobbyError) as gone:
            while time.monotonic() - started < 15:
                client.pump(0.05)
        assert gone.value.why == "host-gone", (gone.value.why, str(gone.value))
    finally:
        for n in nodes:
            n.close()


_LOBBY_TAG = b"millebornes/lobby/v1\x00"     # the lobby's signature domain (protocol.md)


def test_a_replayed_state_of_another_table_of_the_host_blames_nobody(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain ZeroMQ: a stranger under the host's id replays a full, ready state the host
    signed at an earlier table of its own. The joiner took it (only the host's key was
    checked), sent its messages under that table's id, and left the honest host, which
    was waiting for a third player, saying no start came (the review)."""
    import msgpack

    from p2p.transcript.envelope import canonical_packb

    real_has = zmq.has
    monkeypatch.setattr(zmq, "has", lambda what: what != "curve" and real_has(what))
    ann, ben, bot = Identity.generate(), Identity.generate(), Identity.generate()
    earlier_node = Node(node_id_for(ann.public_key))
    earlier = LobbyHost(ann, "Ann", earlier_node, preset("classic"), Seating.solo(2))
    earlier.add_bot(bot, "Bot1", "tcp://127.0.0.1:1")
    earlier.set_ready(True)
    inner = canonical_packb({"k": "state", "state": earlier.state.to_obj(),
                             "key": ann.public_key, "lobby": earlier.lobby_id})
    replay = msgpack.packb([10, inner, ann.sign(_LOBBY_TAG + inner)], use_bin_type=True)
    earlier_node.close()
    nodes = [Node(node_id_for(i.public_key)) for i in (ann, ben, ann)]
    try:
        host = LobbyHost(ann, "Ann", nodes[0], preset("classic"), Seating.solo(3))
        host.set_ready(True)
        client = LobbyClient(ben, "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}")
        client.start_wait = 1.0
        _seated_and_ready(host, client)
        stranger = nodes[2]
        stranger.add_peer(node_id_for(ben.public_key), nodes[1].endpoint)
        stranger.send(node_id_for(ben.public_key), replay)
        end = time.monotonic() + client.start_wait + 2
        while time.monotonic() < end:
            host.pump(0.01)
            client.pump(0.01)                    # no refusal
        assert client.state is not None and client.state.lobby_id == host.lobby_id
        assert client.state.free() == [2] and client.start_wait_left() is None
    finally:
        for n in nodes:
            n.close()


@pytest.mark.skipif(not zmq.has("curve"), reason="libzmq without CURVE")
def test_join_at_a_table_playing_a_match_of_ones_own_says_resume(tmp_path: Path) -> None:
    """A player whose computer crashed types `join` at their own table (not `resume`):
    the host's match sends its seat session messages, which the lobby took for a host
    sending what it cannot read (the review). It is said as it is, with the way back."""
    from engine.bots import make_bot
    from p2p.table.session import Peer, SessionOptions
    from p2p.table.store import Store

    ann, ben = Identity.generate(), Identity.generate()
    an = Node(node_id_for(ann.public_key), curve=ann.curve_keys())
    bn = Node(node_id_for(ben.public_key), curve=ben.curve_keys())
    later: list[Node] = []
    try:
        host = LobbyHost(ann, "Ann", an, preset("classic"), Seating.solo(2))
        host.set_ready(True)
        client = LobbyClient(ben, "Ben", bn, f"127.0.0.1:{an.port}")
        hs = cs = None
        end = time.monotonic() + 20
        while (hs is None or cs is None) and time.monotonic() < end:
            hs = host.pump(0.01) if hs is None else hs
            cs = client.pump(0.01) if cs is None else cs
            if client.seat is not None and not client.ready:
                client.set_ready(True)
        assert hs is not None and cs is not None
        opts = SessionOptions(response_delay=0.01, stall_after=0.3)
        pa = Peer(ann, hs.cfg, an, controller=make_bot("heuristic", 0),
                  endpoints=hs.endpoints, options=opts,
                  store=Store.create(tmp_path / "a", hs.cfg.header(), 0, port=0))
        pb = Peer(ben, cs.cfg, bn, controller=make_bot("heuristic", 1),
                  endpoints=cs.endpoints, options=opts,
                  store=Store.create(tmp_path / "b", cs.cfg.header(), 1, port=0))
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            pa.pump(0.01)
            pb.pump(0.01)
        bn.close()                                   # Ben's computer crashed mid-match
        again = Node(node_id_for(ben.public_key), curve=ben.curve_keys())
        later.append(again)
        rejoin = LobbyClient(ben, "Ben", again, f"127.0.0.1:{an.port}", host_timeout=8)
        started = time.monotonic()
        with pytest.raises(LobbyError) as running:
            while time.monotonic() - started < 15:
                pa.pump(0.01)
                rejoin.pump(0.01)
        assert running.value.why == "match-running", (running.value.why, str(running.value))
        with i18n.using("fr"):
            said = lobby_refusal(running.value.why, running.value.data, str(running.value))
        assert "resume" in said and "games" in said, said
    finally:
        for n in (an, bn, *later):
            n.close()



def test_join_says_the_wait_for_the_start_with_its_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At a full, ready table the joiner saw nothing for the whole wait for the start: an
    honest host starts at once, so a wait of seconds is said, with its limit, and then
    how it ended."""
    import argparse
    import io
    import threading

    import p2p.table.lobby as lobby_module
    from cli import join as join_verb

    monkeypatch.setattr(lobby_module, "START_WAIT", 4.0)
    ann = Identity.generate()
    node = Node(node_id_for(ann.public_key), curve=ann.curve_keys() if zmq.has("curve")
                else None)
    host = _NeverStartingHost(ann, "Ann", node, preset("classic"), Seating.solo(2))
    host.set_ready(True)
    args = argparse.Namespace(name="Ben", peer=[f"127.0.0.1:{node.port}"], bind="127.0.0.1",
                              port=0, data_dir=str(tmp_path / "j"),
                              identity=str(tmp_path / "j.key"), auto=True)
    out = io.StringIO()
    rc: list[int | None] = [None]

    def go() -> None:
        try:
            rc[0] = join_verb.run(args, out=out, inp=io.StringIO(""))
        except (OSError, SystemExit) as exc:
            rc[0] = -1
            out.write(f"\n{exc}\n")

    t = threading.Thread(target=go)
    t.start()
    try:
        end = time.monotonic() + 30
        while t.is_alive() and time.monotonic() < end:
            host.pump(0.01)
        t.join(5)
        said = " ".join(out.getvalue().split())
        # said 2 s into the 4 s wait (the joiner's loop turns every 0.1 s: 1 or 2 s left)
        assert re.search(r"Everyone is seated and ready: waiting for the host to start the "
                         r"match \(up to [12] s more\)\.", said), said[-1500:]
        assert "yet no start came from the host" in said, said[-1500:]
        assert rc[0] != 0
    finally:
        node.close()


@pytest.mark.parametrize("loopback", ["tcp://127.0.0.2:7001", "tcp://[::ffff:127.0.0.1]:7001",
                                      "tcp://[::1]:7001", "tcp://127.0.0.1:7001"])
def test_every_loopback_address_of_a_remote_seat_is_left_out(loopback: str) -> None:
    """A seat's own addresses on the loopback name the dialler's own computer when the
    seat is elsewhere: compared as strings, 127.0.0.2 and ::ffff:127.0.0.1 passed for
    remote and were dialled (hostile pass 25: a 3 s stall under CURVE)."""
    from p2p.table.lobby import addresses_beside

    remote = ("tcp://192.0.2.10:7000", "tcp://192.0.2.11:7001")
    assert addresses_beside(*remote, addrs=[loopback, "tcp://192.0.2.11:7002"]) \
        == ("tcp://192.0.2.11:7002",)
    here = ("tcp://127.0.0.1:7000", "tcp://127.0.0.1:7001")
    assert addresses_beside(*here, addrs=[loopback]) == (loopback,)


def _signed_state(ident: Identity, host: LobbyHost) -> bytes:
    """The host's current state as its own lobby message (the wire format of
    docs/protocol.md), to send again and again."""
    import msgpack

    from p2p.transcript.envelope import canonical_packb

    inner = canonical_packb({"k": "state", "state": host.state.to_obj(),
                             "key": ident.public_key, "lobby": host.lobby_id})
    out = msgpack.packb([10, inner, ident.sign(_LOBBY_TAG + inner)], use_bin_type=True)
    assert isinstance(out, bytes)
    return out


def test_a_host_flooding_its_full_ready_state_is_left_all_the_same() -> None:
    """The start limit was checked only once the queue was read to its end: a host that
    sent its full, ready state faster than the joiner reads it, and never started, held the
    joiner for ever after "up to N s more" (the second review)."""
    ids = [Identity.generate() for _ in range(2)]
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    try:
        host = _NeverStartingHost(ids[0], "Ann", nodes[0], preset("classic"),
                                  Seating.solo(2))
        host.set_ready(True)
        client = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}")
        client.start_wait = 1.0
        _seated_and_ready(host, client)
        joiner = node_id_for(ids[1].public_key)
        flood = _signed_state(ids[0], host)
        started = time.monotonic()
        with pytest.raises(LobbyError) as left:
            while time.monotonic() - started < 15:
                for _ in range(400):
                    nodes[0].send(joiner, flood)
                client.pump(0.0)
        assert left.value.why == "no-start", (left.value.why, str(left.value))
    finally:
        for n in nodes:
            n.close()


_PAUSING_HOST = """
import sys, time
sys.path[:0] = [sys.argv[1]]
from test_lobby_waits import _NeverStartingHost
from engine import Seating, preset
from p2p.crypto.identity import Identity
from p2p.net.transport import Node
from p2p.table.session import node_id_for
ann = Identity.generate()
node = Node(node_id_for(ann.public_key))
host = _NeverStartingHost(ann, "Ann", node, preset("classic"), Seating.solo(2))
host.set_ready(True)
print(node.port, flush=True)
while True:
    host.pump(0.01)
"""


@pytest.mark.hostile      # a host process stopped and continued for 10 s
def test_a_host_that_pauses_now_and_then_does_not_restart_the_wait() -> None:
    """Each return of the host from a slow spell (1.5–5 s of silence, not gone) restarted
    the wait for the start: a host stopping 2 s in every 2.5 never started and was never
    left (the second review)."""
    import os
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", _PAUSING_HOST,
                             str(Path(__file__).parent)], stdout=subprocess.PIPE, text=True,
                            cwd=Path(__file__).parent.parent)
    ben = Identity.generate()
    node = Node(node_id_for(ben.public_key))
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        client = LobbyClient(ben, "Ben", node, f"127.0.0.1:{port}")
        client.start_wait = 4.0
        started = time.monotonic()
        next_pause: float | None = None
        with pytest.raises(LobbyError) as left:
            while time.monotonic() - started < 25:
                client.pump(0.02)
                if client.seat is not None and not client.ready:
                    client.set_ready(True)
                if next_pause is None and client.start_wait_left() is not None:
                    next_pause = time.monotonic() + 0.1
                if next_pause is not None and time.monotonic() >= next_pause:
                    os.kill(proc.pid, signal.SIGSTOP)
                    try:
                        end = time.monotonic() + 2.0
                        while time.monotonic() < end:
                            client.pump(0.02)
                    finally:
                        os.kill(proc.pid, signal.SIGCONT)
                    next_pause = time.monotonic() + 0.5
        assert left.value.why == "no-start", (left.value.why, str(left.value))
        assert time.monotonic() - started < 12
    finally:
        proc.kill()
        proc.wait()
        node.close()
