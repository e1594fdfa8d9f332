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
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from pathlib import Path

import msgpack
import pytest
from test_session import FAST

from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import verify_game
from p2p.crypto.identity import Identity
from p2p.hostile import HostileSocket
from p2p.net.frames import HELLO, SESSION_LEN, pack_frame
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
        tmp_path: Path, curve: bool) -> None:
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
