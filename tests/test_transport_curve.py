"""Authenticated transport: ZeroMQ CURVE with a transport key per player certified by its
signing key, a ZAP handler that admits only expected keys at a seated table, routing ids
bound to keys, and the key door that lets a joiner knowing only HOST:PORT open a CURVE
connection (checking a fingerprint, or trusting on first use)."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import zmq

from engine import Seating, preset
from p2p.crypto.identity import Identity, fingerprint, verify_curve_certificate
from p2p.hostile import HostileSocket, data_frame, hello_frame
from p2p.net.interface import TransportError
from p2p.net.transport import Node, fetch_key_card
from p2p.table.config import TableConfig, parse_header_bytes
from p2p.table.lobby import LobbyClient, LobbyError, LobbyHost, TableStart
from p2p.table.session import node_id_for
from p2p.testing import run_peers

pytestmark = pytest.mark.skipif(not zmq.has("curve"), reason="libzmq without CURVE")


def _node(ident: Identity, **kw: object) -> Node:
    return Node(node_id_for(ident.public_key), curve=ident.curve_keys(), **kw)  # type: ignore[arg-type]


def test_transport_key_is_separate_deterministic_and_certified() -> None:
    a = Identity.from_seed(b"a" * 32)
    ck = a.curve_keys()
    assert ck.public != a.public_key and len(ck.public) == 32
    assert Identity.from_seed(b"a" * 32).curve_keys().public == ck.public   # resume: same key
    assert verify_curve_certificate(a.public_key, ck.public, ck.certificate)
    b = Identity.from_seed(b"b" * 32)
    assert not verify_curve_certificate(b.public_key, ck.public, ck.certificate)
    assert not verify_curve_certificate(a.public_key, b.curve_keys().public, ck.certificate)


def _pair() -> tuple[Identity, Identity, Node, Node]:
    a, b = Identity.generate(), Identity.generate()
    na, nb = _node(a), _node(b)
    na.expect_key(nb.node_id, b.curve_keys().public)
    nb.expect_key(na.node_id, a.curve_keys().public)
    na.set_admission(False)
    nb.set_admission(False)
    na.add_peer(nb.node_id, nb.endpoint)
    nb.add_peer(na.node_id, na.endpoint)
    return a, b, na, nb


def test_seated_peers_talk_and_a_stranger_key_is_not_admitted() -> None:
    a, b, na, nb = _pair()
    try:
        na.send(nb.node_id, b"hello b")
        assert nb.recv(5) == (na.node_id, b"hello b")
        # a stranger with its own key, claiming a's routing id: ZAP refuses the handshake,
        # so nothing it sends arrives, and a's stream goes on
        with HostileSocket(nb.endpoint, na.node_id, server_key=b.curve_keys().public) as evil:
            evil.send(data_frame(b"forged", seq=2, base=2, session=na.session), timeout=1.0)
            time.sleep(0.5)
        na.send(nb.node_id, b"still a")
        assert nb.recv(5) == (na.node_id, b"still a")
        assert nb.recv(0.3) is None
        assert na.node_id in nb.peers()
    finally:
        na.close()
        nb.close()


def test_a_routing_id_over_another_key_is_dropped_as_spoofed() -> None:
    """While strangers are admitted (the lobby), one may connect, but a frame under a
    routing id bound to another key is dropped, and the bound peer's stream continues."""
    a, b, na, nb = _pair()
    nb.set_admission(True)
    try:
        na.send(nb.node_id, b"one")
        assert nb.recv(5) == (na.node_id, b"one")
        with HostileSocket(nb.endpoint, na.node_id, server_key=b.curve_keys().public) as evil:
            evil.send(data_frame(b"forged", seq=2, base=2, session=na.session), timeout=2.0)
            end = time.monotonic() + 3
            while time.monotonic() < end and not nb.stats().get(na.node_id, {}).get("spoofed"):
                time.sleep(0.05)
        assert nb.stats()[na.node_id]["spoofed"] >= 1
        na.send(nb.node_id, b"two")
        got = [nb.recv(5) for _ in range(1)]
        assert got == [(na.node_id, b"two")]
    finally:
        na.close()
        nb.close()


def test_stranger_hello_carries_the_key_its_connection_proved() -> None:
    a = Identity.generate()
    na = _node(a)
    try:
        pub, sec = zmq.curve_keypair()
        raw_pub = zmq.utils.z85.decode(pub) if hasattr(zmq.utils, "z85") else None
        with HostileSocket(na.endpoint, b"m" + b"s" * 32, server_key=a.curve_keys().public,
                           keypair=(pub, sec)) as s:
            s.send(hello_frame(4000, "127.0.0.1"))
            end = time.monotonic() + 3
            evs = []
            while time.monotonic() < end and not evs:
                evs = na.events()
                time.sleep(0.05)
        assert evs and evs[0].curve_key is not None and len(evs[0].curve_key) == 32
        if raw_pub is not None:
            assert evs[0].curve_key == raw_pub
    finally:
        na.close()


def test_key_door_answers_the_signed_keys_and_silence_is_an_error() -> None:
    a = Identity.generate()
    with _node(a) as na:
        assert fetch_key_card(na.endpoint) == (a.public_key, a.curve_keys().public)
    t = time.monotonic()
    with pytest.raises(TransportError, match="no key answer"):
        fetch_key_card(na.endpoint, timeout=0.5)
    assert time.monotonic() - t < 2


def test_a_key_door_flood_keeps_neither_the_card_nor_the_handshake_from_a_joiner() -> None:
    """About 50 datagrams a second to the key door kept every joiner out of a CURVE lobby:
    the door spent the ZAP handshake's budget for strangers (20 a second, shared by all).
    A flood from one address now leaves another asker its card and a stranger its
    handshake."""
    import socket

    from p2p.net.transport import KEY_DOOR_ASK, KEY_DOOR_SIZE
    a = Identity.generate()
    with _node(a) as na:
        host, port = na.endpoint[len("tcp://"):].rsplit(":", 1)
        stop = threading.Event()
        sent = [0]

        def flood() -> None:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                # another address than the joiner's (127.0.0.1): the door counts its
                # askers by address, whatever port they ask from (hostile pass 20)
                udp.bind(("127.0.0.2", 0))
                ask = KEY_DOOR_ASK.ljust(KEY_DOOR_SIZE, b"\0")
                while not stop.is_set():
                    for _ in range(20):
                        udp.sendto(ask, (host, int(port)))
                        sent[0] += 1
                    time.sleep(0.01)          # about 2,000 a second
        t = threading.Thread(target=flood)
        t.start()
        try:
            # the flood under way first (500 datagrams, a quarter second on a quiet
            # machine): a fixed half second sent 1,000 at load 10 and the count below
            # failed, the door's behaviour unchecked
            until = time.monotonic() + 20
            while sent[0] < 500 and time.monotonic() < until:
                time.sleep(0.05)
            before = sent[0]
            # (10 s limits: on a loaded machine the GIL is shared with the flood's thread,
            # and 3 s ran out once in CI; before the fix no wait was long enough)
            assert fetch_key_card(na.endpoint, timeout=10.0) == \
                (a.public_key, a.curve_keys().public)
            pub, sec = zmq.curve_keypair()
            with HostileSocket(na.endpoint, b"m" + b"s" * 32,
                               server_key=a.curve_keys().public, keypair=(pub, sec)) as s:
                s.send(hello_frame(4000, "127.0.0.1"))
                end = time.monotonic() + 10
                evs: list[object] = []
                while time.monotonic() < end and not evs:
                    evs = list(na.events())
                    time.sleep(0.05)
            assert evs, "the stranger's handshake was not admitted during the flood"
        finally:
            stop.set()
            t.join(5)
        # a flood before the asks and all through them
        assert before >= 500 and sent[0] > before + 100, (before, sent)


def _lobby_run(host: LobbyHost, client: LobbyClient) -> tuple[TableStart | None, TableStart | None]:
    hs = cs = None
    for _ in range(600):
        hs = hs or host.pump(0.01)
        cs = cs or client.pump(0.01)
        if client.seat is not None and not client.ready:
            client.set_ready(True)
            host.set_ready(True)
        if hs and cs:
            break
    return hs, cs


def test_lobby_over_curve_with_trust_on_first_use_then_a_closed_table() -> None:
    ids = [Identity.generate(), Identity.generate()]
    nodes = [_node(i) for i in ids]
    try:
        host = LobbyHost(ids[0], "Ann", nodes[0], preset("classic"), Seating.solo(2))
        c = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}")
        hs, cs = _lobby_run(host, c)
        assert hs is not None and cs is not None
        assert c.host_signing_key == ids[0].public_key          # shown to the player
        assert hs.cfg.table_id == cs.cfg.table_id
        assert [pub for pub, _ in cs.cfg.curve] == [i.curve_keys().public for i in ids]
        header, cfg = parse_header_bytes(cs.cfg.header().to_bytes())
        assert cfg == cs.cfg
        # the seated table admits nobody else, even a stranger who knows the host's key
        with HostileSocket(nodes[0].endpoint, b"m" + b"x" * 32,
                           server_key=ids[0].curve_keys().public) as s:
            s.send(hello_frame(4000, "127.0.0.1"), timeout=1.0)
            time.sleep(0.5)
        assert not [e for e in nodes[0].events() if e.peer_id == b"m" + b"x" * 32]
    finally:
        for n in nodes:
            n.close()


def test_lobby_over_curve_refuses_a_host_with_another_fingerprint() -> None:
    ids = [Identity.generate(), Identity.generate()]
    nodes = [_node(i) for i in ids]
    try:
        host = LobbyHost(ids[0], "Ann", nodes[0], preset("classic"), Seating.solo(2))
        wrong = fingerprint(Identity.generate().public_key)
        c = LobbyClient(ids[1], "Ben", nodes[1], f"{wrong}@127.0.0.1:{nodes[0].port}"
                        .split("@")[1], host_fingerprint=wrong)
        with pytest.raises(LobbyError, match="not the expected"):
            for _ in range(300):
                host.pump(0.01)
                c.pump(0.01)
        assert host.state.free() == [1] and c.seat is None     # never even said HELLO
    finally:
        for n in nodes:
            n.close()


def test_a_header_with_a_transport_key_not_signed_by_its_player_is_refused() -> None:
    ids = [Identity.generate(), Identity.generate()]
    from p2p.transcript.file import Player
    players = tuple(Player(i, f"p{i}", ids[i].public_key) for i in range(2))
    curve = tuple((i.curve_keys().public, i.curve_keys().certificate) for i in ids)
    cfg = TableConfig(preset("classic"), Seating.solo(2), players, b"n" * 16, curve)
    assert TableConfig.from_header(cfg.header()) == cfg
    other = Identity.generate().curve_keys()
    with pytest.raises(ValueError, match="transport key"):
        dataclasses.replace(cfg, curve=((other.public, other.certificate), curve[1]))


def test_known_players_warn_when_a_name_comes_with_another_key(tmp_path: Path) -> None:
    from p2p.crypto.known import KnownPlayers
    path = tmp_path / "known"
    bob, mallory = Identity.generate(), Identity.generate()
    k = KnownPlayers(path)
    assert k.observe("Bob", bob.public_key) is None            # first meeting
    assert KnownPlayers(path).observe("Bob", bob.public_key) is None   # remembered on disk
    warning = KnownPlayers(path).observe("Bob", mallory.public_key)
    assert warning is not None and fingerprint(mallory.public_key) in warning \
        and fingerprint(bob.public_key) in warning
    assert path.stat().st_mode & 0o077 == 0
    path.write_bytes(b"\xc1\xc1 damaged")
    damaged = KnownPlayers(path)                                # no traceback
    assert damaged.problem is not None and damaged.keys == {}


def test_discovery_carries_the_hosts_curve_key() -> None:
    pytest.importorskip("zeroconf")
    import socket

    from zeroconf import ServiceInfo

    from p2p.net.discovery import SERVICE_TYPE, _txt, parse_service_info
    ck = Identity.generate().curve_keys().public
    props = _txt("t", "classic", 1, 1, "ABCDE-FGHIJ", "", ck)
    info = ServiceInfo(SERVICE_TYPE, f"x.{SERVICE_TYPE}", port=4000, properties=props,
                       addresses=[socket.inet_aton("10.0.0.2")])
    t = parse_service_info(info)
    assert t is not None and t.curve_key == ck
    props["ck"] = "zz" * 32
    bad = ServiceInfo(SERVICE_TYPE, f"x.{SERVICE_TYPE}", port=4000, properties=props,
                      addresses=[socket.inet_aton("10.0.0.2")])
    t2 = parse_service_info(bad)
    assert t2 is not None and t2.curve_key is None


def test_a_match_over_curve_from_lobby_to_verified_transcript(tmp_path: Path) -> None:
    """Host (with an in-process bot) and a joiner over CURVE: the lobby certifies every
    transport key into the header, the nodes close to all but the seated keys, and the
    match is played on them to a transcript `verify` accepts."""


    from engine.bots import make_bot
    from p2p.audit import verify_game
    from p2p.table.lobby import admit_table
    from p2p.table.session import Peer, SessionOptions
    from p2p.table.store import Store

    ids = [Identity.generate() for _ in range(3)]
    nodes = [_node(i) for i in ids]
    try:
        host = LobbyHost(ids[0], "Ann", nodes[0], preset("classic", match_target=1),
                         Seating.solo(3))
        host.add_bot(ids[2], "Bo", nodes[2].endpoint)
        c = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}",
                        host_fingerprint=ids[0].fingerprint)
        hs, cs = _lobby_run(host, c)
        assert hs is not None and cs is not None
        admit_table(nodes[2], hs.cfg)            # the host's bot node (cli: every bot)
        cfg = hs.cfg
        assert len(cfg.curve) == 3
        eps = {0: hs.endpoints, 1: cs.endpoints, 2: hs.endpoints}
        peers = [Peer(ids[s], cfg, nodes[s], controller=make_bot("heuristic", s),
                      endpoints=eps[s], options=SessionOptions(response_delay=0.01),
                      store=Store.create(tmp_path / f"s{s}", cfg.header(), s, port=0))
                 for s in range(3)]
        assert run_peers(peers, 90) == [True] * 3
        blobs = {p.store.transcript_path.read_bytes() for p in peers}
        assert len(blobs) == 1
        assert verify_game(peers[0].store.transcript_path).ok
        assert all(not n.stats().get(pid, {}).get("spoofed") for n in nodes
                   for pid in n.stats())
    finally:
        for n in nodes:
            n.close()


def test_a_curve_joiner_never_blocks_on_the_key_door() -> None:
    """The key door used to be asked inside the LobbyClient constructor, for 2 s, outside
    the join verb's connect loop (its limit, its answers to `ready`/`help`); now every
    pump asks it for at most its own timeout."""
    me = Identity.generate()
    with _node(me) as n:
        t = time.monotonic()
        c = LobbyClient(me, "Ben", n, "127.0.0.1:1", host_timeout=1.0)
        assert time.monotonic() - t < 0.2
        slowest = 0.0
        with pytest.raises(LobbyError, match="no table answered"):
            for _ in range(100):
                t = time.monotonic()
                try:
                    c.pump(0.05)
                finally:
                    slowest = max(slowest, time.monotonic() - t)
        assert slowest < 0.3
        c.close()


def test_join_verb_with_a_wrong_fingerprint_refuses_a_real_curve_host(tmp_path: Path) -> None:
    """`join --peer FINGERPRINT@HOST:PORT` against a real `millebornes host` process
    whose key has another fingerprint: one sentence, non-zero, no seat taken."""
    import os
    import socket
    import subprocess
    import sys
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    host = subprocess.Popen([sys.executable, "-m", "cli", "host", "--plain", "--auto",
                             "--bind", "127.0.0.1", "--port", str(port), "--no-announce",
                             "--players", "2", "--name", "Ann", "--data-dir",
                             str(tmp_path / "h"), "--identity", str(tmp_path / "h.key")],
                            cwd=tmp_path, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wrong = Identity.generate().fingerprint
        time.sleep(1.0)
        t = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "cli", "join", "--plain", "--auto", "--bind",
                            "127.0.0.1", "--peer", f"{wrong}@127.0.0.1:{port}", "--data-dir",
                            str(tmp_path / "j"), "--identity", str(tmp_path / "j.key"),
                            "--connect-timeout", "8"], input="ready\n", cwd=tmp_path,
                           env=env, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, r.stdout + r.stderr
        assert f"not the expected {wrong}" in r.stderr and "Traceback" not in r.stderr
        assert time.monotonic() - t < 6
        right = Identity.load_or_create(tmp_path / "h.key").fingerprint
        assert right in r.stderr
    finally:
        host.kill()
        host.communicate()


def test_host_and_join_remember_players_and_warn_about_a_changed_key(tmp_path: Path) -> None:
    """At the start, `host`/`join` remember the other human seats' keys by name, next to
    the --identity file, and warn when a known name comes with another key (bots, whose
    keys are new at every table, are not remembered)."""
    import argparse

    from cli.seats import known_lines
    from p2p.transcript.file import Player

    def table(names_keys: list[tuple[str, bytes]]) -> TableConfig:
        players = tuple(Player(i, n, k) for i, (n, k) in enumerate(names_keys))
        return TableConfig(preset("classic"), Seating.solo(len(players)), players, b"n" * 16)

    me, bob, mallory = Identity.generate(), Identity.generate(), Identity.generate()
    args = argparse.Namespace(identity=str(tmp_path / "me.key"))
    first = table([("Me", me.public_key), ("Bob", bob.public_key),
                   ("Bot1", Identity.generate().public_key)])
    assert known_lines(args, first, 0, bots=[2]) == []
    assert (tmp_path / "known_players").exists()
    again = table([("Me", me.public_key), ("Bob", bob.public_key),
                   ("Bot1", Identity.generate().public_key)])
    assert known_lines(args, again, 0, bots=[2]) == []            # same Bob, a new bot
    fake = table([("Bob", mallory.public_key), ("Me", me.public_key)])
    lines = known_lines(args, fake, 1)
    assert len(lines) == 1 and lines[0].startswith("Warning: Bob [")
    assert fingerprint(mallory.public_key) in lines[0] and fingerprint(bob.public_key) in lines[0]


def _join_during(attack: Callable[[], None], stop: threading.Event, ids: list[Identity], nodes: list[Node],
                 head_start: int) -> tuple[LobbyClient, TableStart | None, TableStart | None]:
    """A lobby at ``nodes[0]``, ``attack`` running in a thread from ``head_start`` pumps
    before ``ids[1]`` joins, until the join is over (or failed)."""

    host = LobbyHost(ids[0], "Ann", nodes[0], preset("classic"), Seating.solo(2))
    t = threading.Thread(target=attack)
    t.start()
    try:
        for _ in range(head_start):
            host.pump(0.01)
        c = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}")
        hs, cs = _lobby_run(host, c)
    finally:
        stop.set()
        t.join(10)
    return c, hs, cs


def test_a_stranger_saying_hello_under_a_known_players_id_does_not_keep_them_out() -> None:
    """Hostile review, round 2: a stranger with a CURVE key of its own said HELLO every
    50 ms under a known player's node id (public keys are in every lobby state); the lobby
    bound that id to the stranger's key, so the player's own frames were dropped as
    spoofed and it never got in. An id is bound only to a key its owner certified (the
    certificate travels in the HELLO)."""


    ids = [Identity.generate(), Identity.generate()]
    nodes = [_node(i) for i in ids]
    victim = node_id_for(ids[1].public_key)
    stop = threading.Event()

    def squat() -> None:
        with HostileSocket(nodes[0].endpoint, victim,
                           server_key=ids[0].curve_keys().public) as s:
            while not stop.is_set():
                s.send(hello_frame(4000, "127.0.0.1"), timeout=0.2)
                time.sleep(0.05)

    try:
        c, hs, cs = _join_during(squat, stop, ids, nodes, 30)   # the squatter came first
        assert hs is not None and cs is not None and c.seat == 1
    finally:
        for n in nodes:
            n.close()


@pytest.mark.hostile
def test_a_flood_of_handshakes_with_fresh_keys_does_not_keep_a_joiner_out() -> None:
    """Hostile review, round 2: 50 CURVE handshakes at a time with fresh keys and no
    frames spent the strangers' ZAP budget (20 a second), and every joiner was kept out
    ("did not let this computer in"). A joiner tells the key door its CURVE key when it
    asks for the host's; ZAP admits that key outside the strangers' budget."""
    ids = [Identity.generate(), Identity.generate()]
    nodes = [_node(i) for i in ids]
    stop = threading.Event()
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context()

    def flood() -> None:
        socks: list[zmq.Socket[bytes]] = []
        while not stop.is_set():
            pub, sec = zmq.curve_keypair()
            s = ctx.socket(zmq.DEALER)
            s.setsockopt(zmq.LINGER, 0)
            s.setsockopt(zmq.CURVE_SERVERKEY, ids[0].curve_keys().public)
            s.setsockopt(zmq.CURVE_PUBLICKEY, pub)
            s.setsockopt(zmq.CURVE_SECRETKEY, sec)
            s.connect(nodes[0].endpoint)
            socks.append(s)
            if len(socks) >= 50:
                for old in socks:
                    old.close(0)
                socks.clear()
            time.sleep(0.002)
        for old in socks:
            old.close(0)

    try:
        c, hs, cs = _join_during(flood, stop, ids, nodes, 100)  # the flood came first
        assert hs is not None and cs is not None and c.seat == 1
    finally:
        for n in nodes:
            n.close()
        ctx.term()


def test_a_stranger_naming_a_peer_on_its_connections_is_not_spared_as_the_peer() -> None:
    """Hostile review 9: the connection guard spares a peer's connections from the cap on
    one address, and took "a peer's" from the routing id alone. A stranger admitted
    while the lobby is open, naming a peer's node id (with a nonce of its own) on each of
    its connections, had every one of them counted as the peer's: the cap on one
    address did not hold for it. Only a connection that proved the peer's key is its."""
    from p2p.net.transport import _RID_MARK
    a, b = Identity.generate(), Identity.generate()
    nb = _node(b)
    peer = node_id_for(a.public_key)
    nb.expect_key(peer, a.curve_keys().public)
    nb.add_peer(peer, "tcp://127.0.0.1:9")        # a's node is not up: nobody proves it
    nb.set_admission(True)
    guard = nb._guard
    if guard is None or not guard.enabled:
        nb.close()
        pytest.skip("no connection guard here (Linux TCP_INFO byte counts)")
    ctx = zmq.Context()
    evil = [HostileSocket(nb.endpoint, peer + _RID_MARK + bytes([i]) * 8, ctx,
                          server_key=b.curve_keys().public) for i in range(3)]
    try:
        for s in evil:
            assert s.send(hello_frame(4000, "127.0.0.1"), timeout=3.0)
        end = time.monotonic() + 5
        while time.monotonic() < end and \
                sum(c.spoke for c in list(guard._conns.values())) < len(evil):
            time.sleep(0.05)
        spoke = [c for c in list(guard._conns.values()) if c.spoke]
        assert len(spoke) == len(evil)
        assert not any(c.node is not None and guard._known(c.node) for c in spoke)
    finally:
        for s in evil:
            s.sock.close(0)
        ctx.term()
        nb.close()


def test_a_peer_refused_before_it_was_known_is_reached_once_it_is() -> None:
    """The bot started for a player's seat while he was away dialled his port; he
    resumed there, and his ZAP handler refused the bot's key (he learns it from the
    takeover agreement, fetched a moment later). libzmq never dials again after such a
    refusal: the bot heard him from then on, but its own frames to him waited, 8,000 of
    them, until its queue was full (2026-12-06). A peer we hear, to whom nothing could
    be queued for ``reopen_after``, is dialled afresh: once he knows the key, the bot's
    frames arrive."""
    a, b = Identity.generate(), Identity.generate()
    na, nb = _node(a), _node(b)
    try:
        nb.set_admission(False)                    # b: a seated table, a unknown yet
        na.expect_key(nb.node_id, b.curve_keys().public)
        na.add_peer(nb.node_id, nb.endpoint)
        na.send(nb.node_id, b"from the bot")
        time.sleep(1.0)                            # a's handshake is refused meanwhile
        assert nb.recv(0.2) is None
        nb.expect_key(na.node_id, a.curve_keys().public)    # b learns the bot's key
        nb.add_peer(na.node_id, na.endpoint)
        got = None
        end = time.monotonic() + 3 * na.config.reopen_after
        while got is None and time.monotonic() < end:
            nb.send(na.node_id, b"b is here")      # a hears b all the while
            got = nb.recv(0.2)
        assert got == (na.node_id, b"from the bot")
    finally:
        na.close()
        nb.close()
