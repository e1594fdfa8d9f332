"""A seated peer that sends FETCH every 20 ms and never acknowledges, over real sockets
(hostile review of 2026-12-03, finding 2; /tmp/rev_hostile/t/fetch_noack_rss.py): the
honest peer's transport held every reply, resent for ever, 4 MB more each second up to
about 2 GB. It now holds at most two replies' bytes for that peer (the session hands the
transport's unacknowledged bytes to the log)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from engine import Seating, preset
from p2p.hostile import HostileSocket, data_frame, hello_frame
from p2p.net.interface import TransportConfig
from p2p.table import wire
from p2p.table.memory import make_table
from p2p.table.session import SessionOptions, node_id_for
from p2p.testing import socket_peers
from p2p.transcript.envelope import MAX_ENVELOPE_BYTES


@pytest.mark.hostile       # a match part-played, then 5 s of asking
def test_fetches_never_acknowledged_pile_up_nothing(tmp_path: Path) -> None:
    cfg, ids = make_table(preset("classic"), Seating.solo(2), ["alice", "mallory"],
                          b"log-fetch-flood")
    p0, p1 = socket_peers(tmp_path, cfg, ids, SessionOptions(response_delay=0.01,
                                                            stall_after=0.3))
    stop = [threading.Event(), threading.Event()]

    def run(peer, ev) -> None:  # type: ignore[no-untyped-def]
        while not ev.is_set() and not peer.finished:
            peer.pump(0.02)

    th = [threading.Thread(target=run, args=(p, e)) for p, e in zip((p0, p1), stop,
                                                                     strict=True)]
    for t in th:
        t.start()
    end = time.monotonic() + 60
    while time.monotonic() < end and not p0.finished:
        with p0._lock:
            if sum(len(v) for v in p0.log.values()) >= 150:
                break
        time.sleep(0.1)
    stop[1].set()
    th[1].join()
    p1.close(flush=0)                    # seat 1's program is gone; mallory has its id
    # a known peer's new session is taken once its last one is restart_every old (hostile
    # pass 7): the hand can reach 150 entries sooner, and mallory, who never resends, lost
    # its first frames and, in order, all the others
    time.sleep(TransportConfig().restart_every)
    mallory = node_id_for(ids[1].public_key)
    h = HostileSocket(p0.node.endpoint, mallory)
    try:
        h.send(hello_frame(1, "127.0.0.1", h.session))
        fetches = 0
        until = time.monotonic() + 5
        while time.monotonic() < until:
            fetches += 1
            h.send(data_frame(wire.encode_fetch(cfg.table_id, 0, 0), seq=fetches, base=1,
                              session=h.session))
            time.sleep(0.02)
        held = p0.node.pending(mallory)   # type: ignore[attr-defined]
        held_bytes = p0.node.pending_bytes(mallory)   # type: ignore[attr-defined]
        with p0._lock:
            unanswered = p0.rlog.drops.get(("seat 1 (mallory)", "fetch-unacked"), 0)
    finally:
        h.close()
        stop[0].set()
        th[0].join()
        p0.close(flush=0)
    # two replies' bytes at most, and this peer's own few stall FETCHes to the seat it
    # waits for (it held about 150 replies of up to 256 KiB each after 5 s, and more
    # every second); a reply here is the whole log so far, well under a batch
    one_reply = wire.BATCH_BYTES + MAX_ENVELOPE_BYTES
    assert held_bytes <= 2 * one_reply + 4096, (held, held_bytes)
    assert held <= 20, (held, held_bytes)
    assert unanswered > fetches // 4, (unanswered, fetches)
