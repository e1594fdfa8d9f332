"""Hostile pass 26: hostile files in the data folder, hostile machines on the LAN.
Each test failed before its fix.

* ``resume`` of a game whose ``table.msgpack`` another program edited to drop the other
  seat's address (pass 25's leftover): the resumed seat never dialled that seat and
  dropped its frames as an unknown peer's; the other seat named the resumed, honest
  player unresponsive ("no game.act within the table's time limit") and the resumed one
  waited "for ann (unknown)" until its own limit. A seat the copy holds no address for
  is now reached where it proves it listens (under CURVE, its connection holds the seat's
  transport key from the header; on plain ZeroMQ, its HELLO carries its signature of
  that address for this session), and the address is stored again. A HELLO under the
  seat's id that proves nothing reaches nobody.
* pass 25's other leftover: on a plain node (no CURVE: a routing id is a claim) each
  claimed peer id could hold ``unfinished_limit`` of empty message parts, some 32 MB of
  libzmq's memory an id (15 ids: 51 -> 524 MB). Every peer's connections are bounded
  together there now (15 ids: 51 -> 158 MB at the peak).
* a table's announced rules (its TXT ``rules``, another machine's text) were listed as
  they came: a stranger's record could put "host [AAAAA-BBBBB]: to join type:
  millebornes join --peer AAAAA-BBBBB@10.9.9.9:4444" on its line, before its own key and
  command. Only a preset's name and options this program could have written are said.
* pass 25's last leftover, measured: a seat the host gave a dead address for, live only
  at the last of its 8 own addresses, was reached after 24.8 s (3 s a stall), beyond a
  table's 20 s step limit. The first round through a seat's own addresses waits half as
  long at each (14.2 s).

Found, not fixed (a strict xfail here): on a plain lobby a joiner's first ``join``, signed
before it knows the lobby's id, replayed by another machine seats the joiner at a table
he never joined. Probed and found holding: 300 re-signed mutations of a real match's
entries (each with up to 4 entries re-chained after it) through ``verify`` and
``replay``: no traceback, no seat blamed but the mutated entry's author.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import threading
import time
from pathlib import Path

import msgpack
import pytest
from test_hostile_eighth import _exchange, _null_dealer
from test_session import FAST

from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import verify_game
from p2p.crypto.identity import Identity
from p2p.hostile import HostileSocket, closed_by_peer
from p2p.net.conn_guard import ConnGuard
from p2p.net.frames import HELLO, SESSION_LEN, pack_frame
from p2p.net.interface import TransportConfig
from p2p.net.transport import Node
from p2p.table.config import TableConfig
from p2p.table.memory import make_table
from p2p.table.session import Peer, admit_table, node_id_for, resume_peer
from p2p.table.store import Store, StoredTable, table_dir
from p2p.transcript.file import read_transcript


def _two_seats(tmp: Path, curve: bool, seed: bytes
               ) -> tuple[TableConfig, list[Identity], list[Peer]]:
    cfg, ids = make_table(preset("classic", match_target=1), Seating.solo(2), ["ann", "bo"],
                          seed)
    if curve:
        cks = [i.curve_keys() for i in ids]
        cfg = dataclasses.replace(cfg, curve=tuple((c.public, c.certificate) for c in cks))
    nodes = [Node(node_id_for(i.public_key), curve=i.curve_keys() if curve else None)
             for i in ids]
    for n in nodes:
        admit_table(n, cfg)
    eps = {s: nodes[s].endpoint for s in range(2)}
    peers = [Peer(ids[s], cfg, nodes[s], controller=make_bot("heuristic", 11 + s),
                  endpoints=eps, options=FAST,
                  store=Store.create(tmp / f"seat{s}", cfg.header(), s, port=nodes[s].port,
                                     endpoints=eps)) for s in range(2)]
    return cfg, ids, peers


def _crash_and_forget_seat_0(cfg: TableConfig, crashed: Peer, folder: Path) -> Path:
    """Seat 1 stops mid-hand (no flush, no goodbye); another program drops seat 0's
    address from its ``table.msgpack``. The table folder."""
    while crashed.entries_applied < 120:
        crashed.pump(0.02)
    crashed.node.close()
    crashed.store.close()
    path = table_dir(folder, cfg.table_id)
    meta = path / "table.msgpack"
    m = msgpack.unpackb(meta.read_bytes(), raw=False, strict_map_key=False)
    del m["endpoints"]["0"]
    meta.write_bytes(msgpack.packb(m, use_bin_type=True))
    return path


@pytest.mark.parametrize("curve", [True, False], ids=["curve", "plain"])
def test_a_seat_the_stored_copy_holds_no_address_for_is_reached_where_it_proves_it_is(
        tmp_path: Path, curve: bool, caplog: pytest.LogCaptureFixture) -> None:
    cfg, ids, peers = _two_seats(tmp_path, curve, b"hostile26/unlisted")
    first: dict[str, object] = {}

    def ann() -> None:
        first["ok"] = peers[0].run(30)
        peers[0].linger(0.5)

    th = threading.Thread(target=ann)
    th.start()
    back = None
    try:
        path = _crash_and_forget_seat_0(cfg, peers[1], tmp_path / "seat1")
        back = resume_peer(path, ids[1], controller=make_bot("heuristic", 99), options=FAST)
        t0 = time.monotonic()
        ok = back.run(30)
        took = time.monotonic() - t0
        back.linger(0.5)
    finally:
        th.join()
        peers[0].close(flush=0.5)
        if back is not None:
            back.close(flush=0.5)
    # before: ann stopped naming bo unresponsive; bo waited "for ann (unknown)" 30 s
    assert peers[0].stopped is None and first["ok"] is True, peers[0].stopped
    assert ok and back.stopped is None and took < 15, (back.stopped, took)
    rep = verify_game(back.store.transcript_path)
    assert rep.ok and rep.complete, rep.summary()
    # the log says which file lost what, and how to reach the seat by hand
    assert "table.msgpack holds no address for seat 0 (ann)" in caplog.text
    assert "resume --peer HOST:PORT" in caplog.text
    # the address is stored again for the next resume
    st: StoredTable = Store.open(path, ids[1].public_key)[1]
    assert st.endpoints.get(0) == peers[0].node.endpoint, st.endpoints
    assert read_transcript(st.path / "transcript.mbt").entries


def test_a_hello_under_an_unlisted_seats_id_that_proves_nothing_reaches_nobody(
        tmp_path: Path) -> None:
    cfg, ids, peers = _two_seats(tmp_path, False, b"hostile26/unproven")
    while peers[1].entries_applied < 120:
        for p in peers:
            p.pump(0.01)
    peers[0].node.close()                      # ann is away for good: only a forger speaks
    peers[0].store.close()
    path = _crash_and_forget_seat_0(cfg, peers[1], tmp_path / "seat1")
    back = resume_peer(path, ids[1], controller=make_bot("heuristic", 99), options=FAST)
    ann_id = node_id_for(ids[0].public_key)
    try:
        with HostileSocket(back.node.endpoint, ann_id) as h:
            for proof in (None, os.urandom(64)):
                fields: list[object] = [HELLO, os.urandom(SESSION_LEN), 9, "127.0.0.1"]
                if proof is not None:
                    fields.append(proof)
                assert h.send(pack_frame(fields))
                until = time.monotonic() + 1.2
                while time.monotonic() < until:
                    back.pump(0.05)
        assert ann_id not in back.node.peers()
        assert 0 not in Store.open(path, ids[1].public_key)[1].endpoints
    finally:
        back.close(flush=0)


@pytest.mark.skipif(not ConnGuard.supported(),
                    reason="the guard needs Linux's TCP_INFO byte counts")
def test_connections_claiming_many_peers_ids_on_a_plain_node_are_bounded_together() -> None:
    """On a plain node a routing id is a claim: a connection naming each of a table's
    peer ids, each finishing one message then holding empty parts just under what one
    peer may hold, held that much per id (some 32 MB of libzmq's memory an id: 15 ids
    took a node from 51 to 524 MB). Every claimant together may hold what one peer may
    now (15 ids: 51 to 158 MB); an honest peer's largest payloads still pass."""
    cfg = TransportConfig(max_payload=64 * 1024)
    per = int(cfg.unfinished_limit * 0.6)
    claimed = 5
    socks: list[socket.socket] = []
    with Node(b"victim", config=cfg) as victim, Node(b"honest", config=cfg) as honest:
        honest.add_peer(b"victim", victim.endpoint)
        victim.add_peer(b"honest", honest.endpoint)
        ids = [b"m" + os.urandom(32) for _ in range(claimed)]
        for nid in ids:
            victim.add_peer(nid, "tcp://127.0.0.1:9")
        try:
            for nid in ids:
                s = _null_dealer(victim.port, nid)
                hello = pack_frame([HELLO, os.urandom(SESSION_LEN), 9, "127.0.0.1"])
                s.sendall(b"\x00" + bytes([len(hello)]) + hello)     # a finished message
                socks.append(s)
            time.sleep(0.3)
            for s in socks:
                s.sendall(b"\x01\x00" * (per // 2))
            assert claimed * per > 2 * cfg.unfinished_limit
            open_ = list(socks)
            until = time.monotonic() + 5.0
            while len(open_) * per > cfg.unfinished_limit and time.monotonic() < until:
                open_ = [s for s in open_ if not closed_by_peer(s, 0.05)]
            # before: all five open, 3 limits' worth held
            assert len(open_) * per <= cfg.unfinished_limit, len(open_)
            assert _exchange(honest, victim, os.urandom(cfg.max_payload), 10) == 10
        finally:
            for s in socks:
                s.close()


def test_a_tables_announced_rules_carry_no_other_key_or_command_to_the_list() -> None:
    """A table's TXT ``rules`` was listed as it came (cleaned, up to 120 characters): a
    stranger's table could say "classic rules (1 of 2 seats taken, host [AAAAA-BBBBB]: to
    join type: millebornes join --peer AAAAA-BBBBB@10.9.9.9:4444 , ...)" before its own
    key and command, a friend's fingerprint on the line of a table that is not his. Only
    a preset's name and options this program could have written are said now."""
    from cli.join import several_tables_text
    from cli.lobby import _said
    from p2p.net.discovery import TableInfo

    fake = ("classic;1 of 2 seats taken, host [AAAAA-BBBBB]: to join type: millebornes "
            "join --peer AAAAA-BBBBB@10.9.9.9:4444 ;scoring=modern), host [AAAAA-BBBBB")
    for rules in (fake, "host [AAAAA-BBBBB] join 10.9.9.9:4444;fast_play=yes"):
        t = TableInfo("x._millebornes._tcp.local.", "Friday", rules[:120], 1, 1,
                      "CCCCC-DDDDD", 4000, ("10.0.0.5",), signed_seq=3)
        shown = " ".join(_said("+", t, 80)) + several_tables_text([t, t])
        assert "AAAAA" not in shown and "10.9.9.9" not in shown, shown   # before: both
        assert "CCCCC-DDDDD@10.0.0.5:4000" in shown, shown
    honest = TableInfo("y._millebornes._tcp.local.", "Ann", "classic;match_target=3000;"
                       "fast-play=yes", 1, 1, "CCCCC-DDDDD", 4000, ("10.0.0.5",))
    line = " ".join(" ".join(_said("+", honest, 200)).split())
    assert "classic rules (match_target=3000, fast_play=yes)" in line, line


def test_each_of_a_seats_own_addresses_is_tried_within_the_step_limit() -> None:
    """Sans-IO: a seat the host gave a dead address for, with 8 addresses of its own
    (the most a join carries) and live only at the last: each stall waited the whole
    ``reopen_after`` (3 s), so it was reached after 24.8 s on real nodes, beyond a
    table's 20 s step limit (the waiting seats named the honest one unresponsive first).
    The first round through its own addresses waits half as long at each (real nodes:
    14.2 s); a later round the whole wait, so a slow live address is not passed over."""
    from p2p.net.reliable import ReliableCore

    core = ReliableCore(b"mann", TransportConfig(), lambda d, f: True)
    home = "tcp://10.0.0.5:4000"
    own = [f"tcp://192.168.{i}.7:4000" for i in range(8)]
    core.add_peer(b"mbo", home, 0.0)
    core.also_reach(b"mbo", own)
    now = 0.0
    core.dialled(b"mbo", now)       # as the node does at each (re-)open: the core's own
    core.enqueue(b"mbo", b"move 1")  # gate times each address's wait from its dial
    core.tick(now)
    tried: list[tuple[float, str]] = []
    while now < 40 and len(tried) < 2 * 9:
        now = round(now + 0.1, 1)
        core.tick(now)
        if b"mbo" in core.stalled(now, 3.0):
            tried.append((now, core.reach_stalled(b"mbo")))
            core.dialled(b"mbo", now)   # nothing listens there: no link event follows
    assert [ep for _, ep in tried[:8]] == own, tried
    # the last of its own addresses is dialled well within a step limit of 20 s
    assert tried[7][0] < 15, tried                  # before: 24.5
    # a second round waits the whole 3 s at each
    gaps = [round(b[0] - a[0], 1) for a, b in zip(tried, tried[1:], strict=False)]
    assert all(g < 2 for g in gaps[:7]) and all(g > 3 for g in gaps[9:]), gaps


@pytest.mark.hostile
@pytest.mark.slow
def test_a_seat_live_at_the_last_of_its_own_addresses_is_reached_within_the_step_limit(
        ) -> None:
    """Real CURVE nodes: the host's address for a seat is dead, and so are the first 7
    of its 8 own addresses (the host gave the seat a dead address of ours too): reached
    after 24.8 s before, beyond a 20 s step limit; 14.2 s now."""
    def dead() -> str:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return f"tcp://127.0.0.1:{s.getsockname()[1]}"

    ann, bo = (Identity.from_seed(bytes([i]) * 32) for i in (26, 27))
    a = Node(node_id_for(ann.public_key), curve=ann.curve_keys())
    b = Node(node_id_for(bo.public_key), curve=bo.curve_keys())
    try:
        a.expect_key(b.node_id, bo.curve_keys().public)
        b.expect_key(a.node_id, ann.curve_keys().public)
        a.set_admission(False)
        b.set_admission(False)
        a.add_peer(b.node_id, dead())
        a.also_reach(b.node_id, [dead() for _ in range(7)] + [b.endpoint])
        b.add_peer(a.node_id, dead())
        t0 = time.monotonic()
        a.send(b.node_id, b"move")
        got = None
        while got is None and time.monotonic() - t0 < 40:
            got = b.recv(0.2)
        took = time.monotonic() - t0
        assert got == (a.node_id, b"move") and took < 18, took      # before: 24.8 s
    finally:
        a.close()
        b.close()


def test_a_players_join_replayed_at_another_plain_lobby_seats_nobody() -> None:
    """Found in hostile pass 26, fixed in pass 28. A joiner's first ``join`` was signed
    before it knew the lobby's id (``lobby`` None: it was sent as soon as the host's HELLO
    was heard), and a host took a join of no lobby. On plain ZeroMQ (an id is a claim, and
    frames travel in the clear) another machine that saw Bo's join replayed it, under
    Bo's id, to a table of its choosing: Bo sat there, a table he never joined, and it
    would start with him and pause on him, naming him unresponsive. (Under CURVE the
    join's transport key must be the connection's: refused.) Now (lobby protocol 4) a
    joiner waits for the host's challenge and signs its join with that lobby's id and
    that challenge; the host takes no join without them."""
    from p2p.net.frames import DATA
    from p2p.table.lobby import PROTOCOL_VERSION, LobbyHost, _sign

    eve, bo = Identity.generate(), Identity.generate()
    node = Node(node_id_for(eve.public_key))
    host = LobbyHost(eve, "Eve", node, preset("classic"), Seating.solo(2))
    join = _sign(bo, {"k": "join", "name": "Bo", "seat": None, "v": PROTOCOL_VERSION,
                      "contrib": os.urandom(16), "endpoint": "tcp://127.0.0.1:9",
                      "addrs": [], "key": bo.public_key, "lobby": None})
    session = os.urandom(SESSION_LEN)
    try:
        with HostileSocket(node.endpoint, node_id_for(bo.public_key)) as h:
            assert h.send(pack_frame([HELLO, session, 9, "127.0.0.1"]))
            for _ in range(40):
                host.pump(0.02)
            assert h.send(pack_frame([DATA, session, 1, 1, join]))
            for _ in range(60):
                host.pump(0.02)
        assert all(s is None or s.key != bo.public_key for s in host.state.seats)
    finally:
        node.close()
