"""`resume` after a crash in the middle of writing this seat's own next entry (hostile
review of 2026-12-03, finding 3): real files, real nodes over 127.0.0.1.

A torn end (part of an entry) or junk after the last entry is cut off the transcript; the
resumed seat then writes nothing before every other seat has answered its FETCH, since
its own lost entry may be among theirs. When nothing was lost anywhere, the answers are
empty: they were never sent, and the resumed seat stopped after the step limit (20 s)
saying the others had not sent the missing entries and to resume again "when they are
back", though they were there. The bytes cut off a damaged transcript are kept aside,
at most 4 MiB of them (a 500 MB tail was copied whole).
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import Seating, preset
from engine.bots import make_bot
from p2p.crypto.identity import Identity
from p2p.table.config import TableConfig
from p2p.table.memory import make_table
from p2p.table.session import Peer, SessionOptions, resume_peer
from p2p.table.store import Store
from p2p.testing import socket_peers
from p2p.transcript.envelope import Envelope
from p2p.transcript.file import read_transcript

FAST = SessionOptions(response_delay=0.01, stall_after=0.3)
TRANSCRIPT = "transcript.mbt"


def _pump(peers: list[Peer], until: Callable[[], bool], seconds: float) -> bool:
    """Pump every peer in a thread of its own until ``until()`` (True) or ``seconds``."""
    stop = threading.Event()

    def go(p: Peer) -> None:
        while not stop.is_set():
            p.pump(0.02)

    th = [threading.Thread(target=go, args=(p,)) for p in peers]
    for t in th:
        t.start()
    end = time.monotonic() + seconds
    ok = False
    while time.monotonic() < end:
        if until():
            ok = True
            break
        time.sleep(0.05)
    stop.set()
    for t in th:
        t.join()
    return ok


@pytest.fixture(scope="module")
def waiting(tmp_path_factory: pytest.TempPathFactory
            ) -> tuple[Path, TableConfig, list[Identity]]:
    """A two-seat match left where the table waits for seat 0's move (a player who went
    away at her turn): the data folders ``seat0`` and ``seat1``, complete on both sides."""
    base = tmp_path_factory.mktemp("torn")
    cfg, ids = make_table(preset("classic", match_target=1), Seating.solo(2), ["ann", "bo"],
                          b"store-torn-resume")
    peers = socket_peers(base, cfg, ids, FAST)
    peers[0].controller = None            # a person: the table waits for her to choose

    def at_her_turn() -> bool:
        return (peers[0].needs_decision() and peers[1].waiting_for() == 0
                and peers[1].progress() == peers[0].progress())

    assert _pump(peers, at_her_turn, 60)
    for p in peers:
        p.close(flush=0.5)
    return base, cfg, ids


def _copy(waiting: tuple[Path, TableConfig, list[Identity]], tmp_path: Path) -> list[Path]:
    base, cfg, _ids = waiting
    out = []
    for s in range(2):
        shutil.copytree(base / f"seat{s}", tmp_path / f"seat{s}")
        out.append(tmp_path / f"seat{s}" / cfg.table_id.hex())
    return out


def _torn(path: Path) -> None:
    """The first 40 bytes of an entry: what a crash while appending one leaves."""
    last = read_transcript(path).entries[-1].encode()
    with open(path, "ab") as f:
        f.write(last[:40])


def _junk(path: Path) -> None:
    with open(path, "ab") as f:
        f.write(os.urandom(300))


@pytest.mark.parametrize("damage", [_torn, _junk], ids=["torn-entry", "junk"])
def test_resume_after_a_crash_mid_write_goes_on_at_once(
        waiting: tuple[Path, TableConfig, list[Identity]], tmp_path: Path,
        damage: Callable[[Path], None]) -> None:
    _base, _cfg, ids = waiting
    tables = _copy(waiting, tmp_path)
    damage(tables[0] / TRANSCRIPT)
    peers = [resume_peer(tables[s], ids[s], controller=make_bot("heuristic", 21 + s),
                         options=FAST) for s in range(2)]
    try:
        ann = peers[0]
        assert ann.rlog.catching_up                 # nothing of hers before they answer
        stored = ann.rlog.entries_applied
        mine = ids[0].public_key

        def she_played() -> bool:
            with ann._lock:
                return ann.stopped is not None or _wrote_since(ann, stored, mine)

        # bounded well under the step limit (20 s), after which it used to stop
        assert _pump(peers, she_played, 15), "the resumed seat never wrote its move"
        assert ann.stopped is None, ann.stopped
        assert not ann.rlog.catching_up and ann.rlog.stop_why is None
    finally:
        for p in peers:
            p.close(flush=0)


def _wrote_since(peer: Peer, stored: int, key: bytes) -> bool:
    """Did ``peer`` apply an entry of ``key``'s beyond the first ``stored`` of its log?"""
    raws = [raw for h in sorted(peer.log) for raw in peer.log[h]]
    return any(Envelope.decode(r).author == key for r in raws[stored:])


def test_a_huge_damaged_tail_is_kept_aside_only_in_part(tmp_path: Path) -> None:
    """500 MB of junk (sparse on disk) after the last entry was copied whole into
    transcript.mbt.damaged, as 500 MB of real disk. At most 4 MiB of it is kept aside now,
    and the damage says so."""
    cfg, ids = make_table(preset("classic", match_target=1), Seating.solo(2), ["ann", "bo"],
                          b"store-damaged-tail")
    store = Store.create(tmp_path, cfg.header(), 0, port=1)
    store.close()
    path = store.transcript_path
    size = path.stat().st_size
    tail = 200 << 20
    with open(path, "r+b") as f:               # sparse: no disk is used for the hole
        f.seek(size + tail - 1)
        f.write(b"\x00")
    _store, st = Store.open(store.path, ids[0].public_key)
    _store.close()
    aside = store.path / (TRANSCRIPT + ".damaged")
    assert path.stat().st_size == size
    assert aside.stat().st_size == 4 << 20
    assert st.damage is not None
    assert f"the first 4 MiB of their {tail} bytes kept aside in {aside.name}" in st.damage
