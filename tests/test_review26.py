"""Review of hostile pass 26's merge: defects found in what it changed. Each test failed
before its fix.

* the bound on every claimed peer's unfinished bytes together (a plain node) cut first the
  connections that were not the latest of their id to finish a message. On plain ZeroMQ
  "latest" is a claim too: a stranger naming a present seat's id, finishing a one-byte
  message every 20 ms, made that seat's own DEALER "not the latest" while it streamed a
  big frame (an honest 256 KiB batch on a slow link finishes nothing for seconds), and a
  second connection naming a seat not here held just under one peer's limit: the honest
  connection was cut each time its frame passed the slack, the attacker's kept. A 256 KiB
  payload at 128 KiB/s took 5-11 s and 1-5 cuts instead of 2.0 s and none. Now the
  biggest holders go first (as for one peer's and the strangers' bounds).
* a resumed plain seat whose ``table.msgpack`` lost another seat's address reached that
  seat where its HELLO's signature said. That signature names the seat's session, but a
  seat we do not know yet has no session we could compare: a HELLO of an earlier session
  (plain ZeroMQ is read by anyone on the LAN), replayed from another machine, had the
  resumed seat dial the old address and store it. Now only a HELLO that comes from the
  host it signed is taken.
"""

from __future__ import annotations

import os
import socket
import struct
import threading
import time
from pathlib import Path

import pytest
from test_hostile_eighth import _null_dealer
from test_hostile_twentysixth import _crash_and_forget_seat_0, _two_seats
from test_session import FAST

from engine.bots import make_bot
from p2p.hostile import HostileSocket, closed_by_peer
from p2p.net.conn_guard import ConnGuard
from p2p.net.frames import HELLO, SESSION_LEN, pack_frame
from p2p.net.interface import TransportConfig
from p2p.net.reliable import endpoint_statement
from p2p.net.transport import Node, _routing_id
from p2p.table.session import node_id_for, resume_peer
from p2p.table.store import Store


@pytest.mark.skipif(not ConnGuard.supported(),
                    reason="the guard needs Linux's TCP_INFO byte counts")
def test_a_claimant_of_a_seats_id_cannot_get_that_seats_big_frame_cut_on_a_plain_node() -> None:
    cfg = TransportConfig()          # a table's: 1 MiB payloads, 2.06 MiB a peer's limit
    here, away = b"h" + os.urandom(32), b"a" + os.urandom(32)
    stop = threading.Event()
    socks: list[socket.socket] = []
    with Node(b"victim", config=cfg) as victim:
        victim.add_peer(here, "tcp://127.0.0.1:9")
        victim.add_peer(away, "tcp://127.0.0.1:9")    # a seat not at the table now
        try:
            # the seat that is here: its DEALER says HELLO, then streams a 256 KiB frame
            # slowly (a batch of entries on a slow VPN link), 200 KiB of it so far
            honest = _null_dealer(victim.port, _routing_id(here))   # a DEALER's own form
            socks.append(honest)
            hello = pack_frame([HELLO, os.urandom(SESSION_LEN), 9, "127.0.0.1"])
            honest.sendall(b"\x00" + bytes([len(hello)]) + hello)
            # a stranger naming the same id, finishing a tiny message every 20 ms
            chatter = _null_dealer(victim.port, here)
            socks.append(chatter)

            def chat() -> None:
                while not stop.is_set():
                    try:
                        chatter.sendall(b"\x00\x01\xc1")
                    except OSError:
                        return
                    time.sleep(0.02)

            threading.Thread(target=chat, daemon=True).start()
            # and one naming the absent seat: a message, then empty parts held
            holder = _null_dealer(victim.port, away)
            socks.append(holder)
            holder.sendall(b"\x00\x01\xc1")
            time.sleep(0.3)
            holder.sendall(b"\x01\x00" * ((cfg.unfinished_limit - (64 << 10)) // 2))
            time.sleep(0.3)
            cut = False
            try:
                honest.sendall(b"\x02" + struct.pack(">Q", 256 << 10))
                for _ in range(25):
                    honest.sendall(os.urandom(8 << 10))
                    time.sleep(0.02)
            except OSError:
                cut = True
            # before: the honest connection cut at 64 KiB of its frame, the holder kept
            assert not cut and not closed_by_peer(honest, 1.5)
            assert closed_by_peer(holder, 1.5)       # together they held too much
        finally:
            stop.set()
            for s in socks:
                s.close()


def test_a_seats_signed_hello_of_an_earlier_session_replayed_from_elsewhere_steers_nothing(
        tmp_path: Path) -> None:
    cfg, ids, peers = _two_seats(tmp_path, False, b"hostile26/unproven")
    while peers[1].entries_applied < 120:
        for p in peers:
            p.pump(0.01)
    peers[0].node.close()                      # ann is away: only a replayer speaks
    peers[0].store.close()
    path = _crash_and_forget_seat_0(cfg, peers[1], tmp_path / "seat1")
    back = resume_peer(path, ids[1], controller=make_bot("heuristic", 99), options=FAST)
    ann_id = node_id_for(ids[0].public_key)
    # ann's HELLO of an earlier session, when she listened at 127.0.0.2:4000, as anyone
    # on the LAN read it; replayed from this machine's 127.0.0.1
    old = os.urandom(SESSION_LEN)
    proof = ids[0].sign(endpoint_statement(ann_id, old, 4000, "127.0.0.2"))
    try:
        with HostileSocket(back.node.endpoint, ann_id) as h:
            assert h.send(pack_frame([HELLO, old, 4000, "127.0.0.2", proof]))
            until = time.monotonic() + 1.5
            while time.monotonic() < until:
                back.pump(0.05)
        # before: dialled at tcp://127.0.0.2:4000 and stored there for the next resume
        assert ann_id not in back.node.peers()
        assert 0 not in Store.open(path, ids[1].public_key)[1].endpoints
    finally:
        back.close(flush=0)
