"""Each seat's own signed addresses (lobby protocol 3). The host's ``start`` said where
every seat listens and a joiner took it unchecked: a host that gave two joiners dead
addresses of each other had each name the other, honest, unresponsive (hostile pass 23).
A joiner's ``join`` now carries the addresses it listens on, signed with it; the start
relays every joiner's last join; each member tries a seat at those addresses too, in
turn, when the one the host gave acknowledges nothing."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import msgpack
import pytest
from test_lobby import _drive

from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import verify_game
from p2p.crypto.identity import Identity
from p2p.net import TransportConfig
from p2p.net.reliable import ReliableCore
from p2p.net.transport import Node
from p2p.table.lobby import LobbyClient, LobbyError, LobbyHost, TableStart, own_addresses
from p2p.table.session import Peer, SessionOptions, node_id_for
from p2p.table.store import Store, StoreDamaged, read_meta
from p2p.testing import run_peers


def _dead_endpoint() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{s.getsockname()[1]}"


def test_a_stalled_peer_is_tried_at_each_address_it_signed_and_back_where_it_answered(
        ) -> None:
    """Sans-IO: the address given first, then each of its own in turn at each stall;
    once one acknowledged data, a stall elsewhere comes back to it."""
    from p2p.net.frames import ACK, HELLO, SESSION_LEN, pack_frame

    core = ReliableCore(b"mbob", TransportConfig(), lambda d, f: True)
    core.add_peer(b"malice", "tcp://10.0.0.5:4000", 0.0)
    core.also_reach(b"malice", ["tcp://10.0.0.5:4000", "tcp://192.168.1.7:4000", "bogus",
                                "tcp://10.8.0.2:4000"])
    assert core.endpoint_of(b"malice") == "tcp://10.0.0.5:4000"
    core.enqueue(b"malice", b"move 1")
    core.tick(0.1)
    assert core.stalled(4.0, 3.0) == [b"malice"]
    tried = [core.reach_stalled(b"malice") for _ in range(4)]
    assert tried == ["tcp://192.168.1.7:4000", "tcp://10.8.0.2:4000",
                     "tcp://10.0.0.5:4000", "tcp://192.168.1.7:4000"]
    # it answers at 192.168.1.7 what went there: a later stall tries another, then
    # comes back there
    core.tick(4.5)                          # the data goes out to 192.168.1.7
    s2 = os.urandom(SESSION_LEN)
    core.on_frame(b"malice", pack_frame([HELLO, s2, 4000, None]), 5.0, "192.168.1.7",
                  proven=True)
    core.on_frame(b"malice", pack_frame([ACK, s2, core.session, 1, b""]), 5.1)
    assert core.unacked(b"malice") == 0
    away = core.reach_stalled(b"malice")
    assert away != "tcp://192.168.1.7:4000"
    assert core.reach_stalled(b"malice") == "tcp://192.168.1.7:4000"
    # a late acknowledgement of data sent before a redial says nothing of the new
    # address (the review: a dead one was taken for where the peer answers, and every
    # other stall went back to it)
    core.enqueue(b"malice", b"move 2")
    core.tick(6.0)                          # to 192.168.1.7, where it answers
    dead = core.reach_stalled(b"malice")
    assert dead != "tcp://192.168.1.7:4000"
    core.on_frame(b"malice", pack_frame([ACK, s2, core.session, 2, b""]), 6.2)
    assert core.unacked(b"malice") == 0
    tried = [core.reach_stalled(b"malice") for _ in range(3)]
    assert tried[0] == tried[2] == "tcp://192.168.1.7:4000" and dead not in tried, tried
    # a peer with no address of its own is tried as before: nowhere else
    core.add_peer(b"mcy", "tcp://10.0.0.6:4000", 0.0)
    assert core.reach_stalled(b"mcy") == "tcp://10.0.0.6:4000"


def test_a_node_bound_to_every_address_says_each_of_them() -> None:
    assert own_addresses("tcp://127.0.0.1:4100") == ["tcp://127.0.0.1:4100"]
    every = own_addresses("tcp://0.0.0.0:4100")
    assert "tcp://127.0.0.1:4100" in every and all(e.endswith(":4100") for e in every)
    assert own_addresses("not an address") == []


def _lobby(n_joiners: int = 2) -> tuple[list[Identity], list[Node], LobbyHost,
                                        list[LobbyClient]]:
    """A host and ``n_joiners`` seated, under CURVE as ``host`` and ``join`` are."""
    ids = [Identity.generate() for _ in range(n_joiners + 1)]
    nodes = [Node(node_id_for(i.public_key), curve=i.curve_keys()) for i in ids]
    host = LobbyHost(ids[0], "Xav", nodes[0], preset("modern"), Seating.solo(n_joiners + 1),
                     "addresses")
    port = nodes[0].endpoint.rsplit(":", 1)[1]
    clients = [LobbyClient(ids[i], name, nodes[i], f"127.0.0.1:{port}")
               for i, name in zip(range(1, n_joiners + 1), ["Ann", "Bo"], strict=False)]
    _drive(host, clients, until="seated")
    assert all(c.seat is not None for c in clients)
    return ids, nodes, host, clients


@pytest.mark.hostile
def test_joiners_a_host_gives_dead_addresses_of_each_other_play_the_match(
        tmp_path: Path) -> None:
    """Real lobby, real sockets: the host says each joiner listens at a dead port (its
    own peer too dials them there). Each member has the others' own signed addresses from
    the start, reaches them and the match is played to its end; nobody is named."""
    ids, nodes, host, clients = _lobby()
    dead = _dead_endpoint()
    for c in clients:
        seat = host.state.seats[c.seat]  # type: ignore[index]
        assert seat is not None
        seat.endpoint = dead                    # where the host says the joiner listens
    host.set_ready(True)
    hs, cs = _drive(host, clients)
    assert hs is not None and all(isinstance(c, TableStart) for c in cs)
    starts: list[TableStart] = [hs, *cs]  # type: ignore[list-item]
    cfg = hs.cfg
    seat_of = {s.seat: s for s in starts}
    node_of = {ids[i].public_key: nodes[i] for i in range(3)}
    for st in starts:
        for s in range(1, 3):
            if s == st.seat:
                continue
            assert st.endpoints[s] == dead                       # the host's word
            real = node_of[cfg.players[s].key].endpoint
            assert st.alternatives[s] == (real,), st.alternatives  # the seat's own
    id_of = {i.public_key: i for i in ids}
    peers = [Peer(id_of[cfg.players[s].key], cfg, node_of[cfg.players[s].key],
                  controller=make_bot("heuristic", s), endpoints=seat_of[s].endpoints,
                  alternatives=seat_of[s].alternatives,
                  options=SessionOptions(response_delay=0.01, stall_after=0.3),
                  store=Store.create(tmp_path / f"s{s}", cfg.header(), s, port=0,
                                     endpoints=seat_of[s].endpoints,
                                     alternatives=seat_of[s].alternatives))
             for s in range(3)]
    try:
        assert run_peers(peers, 90) == [True] * 3, [p.stopped for p in peers]
    finally:
        for p in peers:
            p.close(flush=0.1)
    assert all(p.stopped is None and p.error is None for p in peers)
    assert verify_game(peers[1].store.transcript_path).ok
    # and a resume would try them too: the store keeps them
    assert read_meta(peers[1].store.path)["alternatives"] == {
        str(s): list(a) for s, a in seat_of[1].alternatives.items()}


@pytest.mark.parametrize("how", ["left-out", "another-key", "old-share", "not-bytes",
                                 "called-a-bot"])
def test_a_start_without_a_joiners_own_signed_addresses_is_refused_naming_the_host(
        how: str) -> None:
    """The host may not leave a player's join out of its start, sign one for him, or
    pass off an old one (another share of the nonce): the joiner refuses the start in
    words instead of playing on the host's word alone."""
    from p2p.table.lobby import parse_lobby

    ids, nodes, host, clients = _lobby()
    ann = clients[0]
    bo_seat = clients[1].seat
    assert bo_seat is not None
    real_send = host._send

    def tamper(nid: bytes, obj: dict[str, Any]) -> None:
        if how == "called-a-bot" and obj.get("k") == "state" \
                and nid == node_id_for(ann.identity.public_key):
            # Ann is told Bo's seat is a bot's (the review of protocol 3: a seat shown as
            # a bot's needed no join, and the host left Bo's out)
            state = dict(obj["state"])
            state["seats"] = [dict(x, bot=True) if x is not None and i == bo_seat else x
                              for i, x in enumerate(state["seats"])]
            obj = dict(obj, state=state)
        if obj.get("k") == "start" and nid == node_id_for(ann.identity.public_key):
            joins = dict(obj["joins"])
            if how in ("left-out", "called-a-bot"):
                joins.pop(str(bo_seat))
            elif how == "not-bytes":
                joins[str(bo_seat)] = "tcp://127.0.0.1:9"
            else:
                # Bo's join as the host would make one up: signed by the host's key, or
                # by Bo's key but with another share (an old join of his)
                ident = ids[0] if how == "another-key" else ids[2]
                contrib = os.urandom(16) if how == "old-share" else clients[1].contrib
                inner = {"k": "join", "name": "Bo", "v": 3, "contrib": contrib,
                         "addrs": ["tcp://127.0.0.1:9"], "key": ident.public_key,
                         "lobby": None}
                from p2p.transcript.envelope import canonical_packb
                body = canonical_packb(inner)
                raw = msgpack.packb([10, body, ident.sign(b"millebornes/lobby/v1\0" + body)],
                                    use_bin_type=True)
                if how == "old-share":   # well formed: only its share is not this table's
                    assert parse_lobby(node_id_for(ids[2].public_key), raw) is not None
                joins[str(bo_seat)] = raw
            obj = dict(obj, joins=joins)
        real_send(nid, obj)

    host._send = tamper  # type: ignore[method-assign]
    host.set_ready(True)
    try:
        with pytest.raises(LobbyError) as refused:
            _drive(host, clients)
        assert refused.value.why == "bad-start" and ann.refused == str(refused.value)
        want = (f"the host left out seat {bo_seat}'s own signed addresses"
                if how in ("left-out", "called-a-bot")
                else f"the host relayed a join for seat {bo_seat} that its player did not "
                     "sign for this table")
        assert want in ann.refused, ann.refused
    finally:
        for n in nodes:
            n.close()


def test_a_stored_table_keeps_the_seats_own_addresses_and_refuses_a_bad_map(
        tmp_path: Path) -> None:
    from p2p.table.memory import make_table

    cfg, _ids = make_table(preset("modern"), Seating.solo(3), ["a", "b", "c"], b"alt-store")
    alt = {1: ("tcp://10.0.0.2:4000", "tcp://127.0.0.1:4000")}
    st = Store.create(tmp_path, cfg.header(), 0, port=0, alternatives=alt)
    st.close()
    _s, table = Store.open(st.path, cfg.players[0].key)
    assert table.alternatives == alt
    _s.close()
    meta = msgpack.unpackb((st.path / "table.msgpack").read_bytes(), raw=False,
                           strict_map_key=False)
    meta["alternatives"] = {"1": ["tcp://10.0.0.2:4000"] * 9}
    (st.path / "table.msgpack").write_bytes(msgpack.packb(meta, use_bin_type=True))
    with pytest.raises(StoreDamaged, match="other addresses are not a seat"):
        read_meta(st.path)


def test_a_seats_loopback_address_is_tried_only_from_the_same_computer() -> None:
    """A joiner bound to every address signs 127.0.0.1 among its addresses (players on
    one computer reach it there); from another computer that address is the dialler's
    own (every player on one fixed --port: its own node), so it is left out there."""
    from p2p.table.lobby import addresses_beside

    signed = ("tcp://192.168.1.7:5555", "tcp://127.0.0.1:5555")
    lan = ("tcp://192.168.1.7:5555",)
    assert addresses_beside("tcp://192.168.1.2:5555", addrs=signed) == lan
    assert addresses_beside("tcp://127.0.0.1:4000", addrs=signed) == signed
    # the host here, the seat elsewhere (by the host's word): its 127.0.0.1 is not it
    assert addresses_beside("tcp://127.0.0.1:4000", "tcp://192.168.1.7:5555",
                            addrs=signed) == lan
    assert addresses_beside("tcp://127.0.0.1:4000", "tcp://127.0.0.1:5555",
                            addrs=signed) == signed


def test_a_lobby_message_is_read_only_in_its_one_signed_encoding() -> None:
    """A join padded with a repeated key decoded as the join (the last value kept) and
    was signed as sent: the start relaying it grew past what a member reads, and each
    member dropped the start in silence (the review of protocol 3). Only the canonical
    encoding of a message is read."""
    from p2p.table.lobby import parse_lobby
    from p2p.transcript.envelope import canonical_packb

    ann = Identity.generate()
    join = {"k": "join", "name": "Ann", "v": 3, "contrib": os.urandom(16),
            "addrs": ["tcp://127.0.0.1:4000"], "key": ann.public_key, "lobby": None}

    def signed(inner: bytes) -> bytes:
        out = msgpack.packb([10, inner, ann.sign(b"millebornes/lobby/v1\0" + inner)],
                            use_bin_type=True)
        assert isinstance(out, bytes)
        return out

    nid = node_id_for(ann.public_key)
    assert parse_lobby(nid, signed(canonical_packb(join))) == join
    # the same map with "name" 50 times more first, each padded within the lobby's
    # bounds (a string of 1,000): decodes as the join, 50 kB long
    items = sorted(join.items())
    pad = (msgpack.packb("name") + msgpack.packb("x" * 1000)) * 50
    padded = bytes([0xDE]) + (len(items) + 50).to_bytes(2, "big") + pad \
        + b"".join(msgpack.packb(k) + msgpack.packb(v) for k, v in items)
    assert msgpack.unpackb(padded) == join and len(padded) > 50_000
    assert parse_lobby(nid, signed(padded)) is None


def test_a_peer_that_just_proved_a_move_is_not_stalled_away_from_it() -> None:
    """Bob, away, comes back at a new address and proves it while our data to him from
    before is unacknowledged: the stall, checked in the same turn, sent us on from the
    address just proven (the review of protocol 3). It waits a full stall there first."""
    from p2p.net.frames import ACK, HELLO, SESSION_LEN, pack_frame

    core = ReliableCore(b"mann", TransportConfig(), lambda d, f: True)
    core.add_peer(b"mbob", "tcp://10.0.0.5:4000", 0.0)
    core.also_reach(b"mbob", ["tcp://10.0.0.9:4000"])
    s1 = os.urandom(SESSION_LEN)
    core.on_frame(b"mbob", pack_frame([HELLO, s1, 4000, "10.0.0.5"]), 0.0, proven=True)
    core.enqueue(b"mbob", b"m1")
    core.tick(0.1)
    core.on_frame(b"mbob", pack_frame([ACK, s1, core.session, 1, b""]), 0.2)
    core.enqueue(b"mbob", b"m2")
    core.tick(1.0)                                   # Bob is away
    core.on_frame(b"mbob", pack_frame([HELLO, s1, 4000, "10.0.0.77"]), 10.0, proven=True)
    assert core.endpoint_of(b"mbob") == "tcp://10.0.0.77:4000"
    assert core.stalled(10.0, 3.0) == [] and core.stalled(12.9, 3.0) == []
    assert core.stalled(13.1, 3.0) == [b"mbob"]     # still nothing acknowledged there
