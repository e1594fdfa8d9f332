"""Eighth hostile pass (2026-12-05): a hostile machine on the LAN against real millebornes
peers, real ZeroMQ sockets on loopback. What must hold: an honest player is never blamed;
no input stops a peer (no traceback, no unbounded wait, no unbounded memory); every wait
has a limit.

Findings (each test here failed before its fix):

* a plain (not CURVE) node let connections hold unfinished messages up to limits sized by
  ``ZMQ_MAXMSGSIZE`` (about twice the largest honest frame): a connection claiming a
  peer's routing id (a claim only, on a plain node) could hold 4.3 MiB of empty parts,
  and the strangers together 2.3 MiB, each part costing libzmq about 60 bytes of memory
  (measured: six connections claiming the ids of a table's three peers took a node from
  40 to 244 MB and held it; sixteen strangers, 40 to 125 MB). The limits are now what an
  honest frame needs (``max_frame``, not ``ZMQ_MAXMSGSIZE``) (after: 139 and 85 MB);
* the connection guard counted a connection from the bytes libzmq had read when it
  learnt of it: a stranger's burst of empty parts, sent at once after its handshake, was
  forgiven whole whenever libzmq read it first (a busy machine: 1 run in 5 of the
  strangers' test). It counts from the first byte now, unless the connection finished a
  message before;
* a plain browser (``millebornes lobby``, ``join`` without ``--table``) under a flood of
  20,000 made-up zeroconf names: zeroconf's browser thread queued every change without
  bound (185,000 after 25 s, the process 51 → 97 MB and growing 2 MB a second), ran ever
  further behind, and a listed table's news (its seats) never showed (5 runs of 5). The
  changes waiting are bounded now (256 names, the latest change of each), the listed
  tables' first, and a listed table's TXT record is taken from the packet as it comes
  (after: the process grows 6-8 MB while zeroconf's cache fills, then stays; the news
  shows).

Probed and found holding (no change): a ``--peer`` address that is a tarpit (accepts TCP,
never speaks ZMTP; or answers the key door with its own card, then never speaks, or drips
its greeting a byte a second): ``join`` says so after its 10 s limit, naming the address;
entries genuinely signed by a seat, from another table of the same players or earlier in
this one, pushed or given as a FETCH answer by another seat: dropped and counted against
the seat that sent them, never their author.
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from p2p.hostile import closed_by_peer, recv_exact, zmtp_greeting, zmtp_property
from p2p.net.conn_guard import ConnGuard
from p2p.net.frames import HELLO, SESSION_LEN, pack_frame
from p2p.net.interface import TransportConfig
from p2p.net.transport import Node

guarded = pytest.mark.skipif(not ConnGuard.supported(),
                             reason="the guard needs Linux's TCP_INFO byte counts")


def _null_dealer(port: int, identity: bytes) -> socket.socket:
    """A ZMTP 3.0 NULL DEALER written by hand, under a routing id of its choosing."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(zmtp_greeting(b"NULL"))
    recv_exact(s, 64)
    body = (b"\x05READY" + zmtp_property(b"Socket-Type", b"DEALER")
            + zmtp_property(b"Identity", identity))
    s.sendall(b"\x04" + bytes([len(body)]) + body)
    return s


def _exchange(sender: Node, receiver: Node, payload: bytes, count: int) -> int:
    """Send ``count`` payloads and count those received within 20 s."""
    for _ in range(count):
        sender.send(receiver.node_id, payload)
    got = 0
    end = time.monotonic() + 20
    while got < count and time.monotonic() < end:
        m = receiver.recv(0.5)
        got += m == (sender.node_id, payload)
    return got


# ------------------------------------ unfinished parts: limits an honest frame needs
@guarded
def test_unfinished_limits_are_what_an_honest_frame_needs() -> None:
    """The bounds on unfinished messages follow the largest frame an honest peer sends
    (``max_frame``), not ``ZMQ_MAXMSGSIZE`` (twice that, for frames that are dropped
    anyway): a part costs libzmq about 60 bytes of memory however small on the wire."""
    cfg = TransportConfig()
    assert cfg.unfinished_limit <= 2 * cfg.max_frame + (64 << 10)
    assert cfg.strangers_unfinished_limit <= cfg.max_frame + (64 << 10)


@pytest.mark.hostile    # an attack, about 4 s (the default run's 10-minute budget)
@guarded
def test_a_connection_claiming_a_peers_id_cannot_hold_twice_an_honest_frame() -> None:
    """On a plain node a routing id is a claim: a connection naming a peer's id finishes
    one message, then sends empty parts with MORE, more than two honest frames' worth but
    under the old limit, and waits (it held 30 times its bytes in libzmq's memory). It is
    cut now; an honest peer's largest payloads still pass."""
    cfg = TransportConfig(max_payload=64 * 1024)
    held = 2 * cfg.max_frame + (100 << 10)           # 228 KiB: under the old 520 KiB
    assert held > cfg.unfinished_limit
    with Node(b"victim", config=cfg) as victim, Node(b"honest", config=cfg) as honest:
        honest.add_peer(b"victim", victim.endpoint)
        victim.add_peer(b"honest", honest.endpoint)
        victim.add_peer(b"peer1", "tcp://127.0.0.1:9")
        s = _null_dealer(victim.port, b"peer1")
        try:
            hello = pack_frame([HELLO, os.urandom(SESSION_LEN), 9, "127.0.0.1"])
            s.sendall(b"\x00" + bytes([len(hello)]) + hello)     # a finished message
            time.sleep(0.3)
            s.sendall(b"\x01\x00" * (held // 2))
            assert closed_by_peer(s, 3.0), "the connection still holds its parts"
            assert _exchange(honest, victim, os.urandom(cfg.max_payload), 10) == 10
        finally:
            s.close()


@pytest.mark.hostile    # an attack, about 4 s (the default run's 10-minute budget)
@guarded
def test_strangers_together_cannot_hold_more_than_one_honest_frame() -> None:
    """Strangers' connections each hold empty parts, together more than one honest frame
    but under the old bound of theirs (2·max_payload + 260 KiB); some are cut now, and an
    honest peer's largest payloads pass."""
    cfg = TransportConfig(max_payload=64 * 1024)
    per = 60 << 10
    socks = []
    with Node(b"victim", config=cfg) as victim, Node(b"honest", config=cfg) as honest:
        honest.add_peer(b"victim", victim.endpoint)
        victim.add_peer(b"honest", honest.endpoint)
        try:
            for _ in range(4):                        # 240 KiB: under the old 388 KiB
                s = _null_dealer(victim.port, b"m" + os.urandom(8))
                s.sendall(b"\x01\x00" * (per // 2))
                socks.append(s)
            assert 4 * per > cfg.strangers_unfinished_limit
            open_ = [s for s in socks if not closed_by_peer(s, 3.0)]
            assert len(open_) * per <= cfg.strangers_unfinished_limit, len(open_)
            assert _exchange(honest, victim, os.urandom(cfg.max_payload), 10) == 10
        finally:
            for s in socks:
                s.close()


# ------------------------------------ a zeroconf flood against a plain browser (lobby)
FLOOD = """
    import sys, time
    from p2p.hostile import zeroconf_flood
    time.sleep(float(sys.argv[1]))
    zeroconf_flood(int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]))
"""

HOST = """
    import sys, time
    from p2p.net.discovery import announce_table
    with announce_table(name="Friday", rules="classic", seats_taken=1, seats_free=1,
                        fingerprint="ABCDE-FGHIJ", port=40011, interfaces="loopback") as a:
        time.sleep(float(sys.argv[1]))
        a.update_seats(2, 0)
        print(time.time(), flush=True)
        time.sleep(float(sys.argv[2]))
"""

LOBBY = """
    import json, sys, time
    from p2p.net.discovery import browse_tables, make_zeroconf

    def rss():
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) >> 10 for l in f if l.startswith("VmRSS"))

    zc = make_zeroconf("loopback")
    seen = {}
    with browse_tables(zeroconf=zc) as b:
        start, began = time.monotonic(), None
        while time.monotonic() - start < float(sys.argv[1]):
            time.sleep(0.2)
            snap = b.snapshot()
            for t in snap:
                if t.name == "Friday":
                    seen.setdefault(t.seats_free, time.time())
            if began is None and time.monotonic() - start > 3:
                began = rss()              # the flood began (zeroconf's cache filled)
        print(json.dumps({"seen": seen, "grew": rss() - began}))
    zc.close()
"""


#: packets a second of the flood (6 made-up tables each): what a browser still reads
#: on a loaded machine, so that nothing is lost before zeroconf hands it over
RATE = os.environ.get("MB_FLOOD_RATE", "2000")


@pytest.mark.root
@pytest.mark.hostile    # an attack, about 20 s
def test_a_zeroconf_flood_neither_grows_a_lobby_nor_delays_a_listed_tables_news(
        namespaces: list[str], tmp_path: Path) -> None:
    """In a network namespace of our own, a table is listed by a plain browser (the
    `millebornes lobby` one, looking for no table in particular); then a forger announces
    20,000 made-up tables as fast as it can. zeroconf's browser thread queued every
    change without bound (measured: 185,000 changes after 25 s, the browser's process
    51 → 97 MB and growing 2 MB a second) and ran ever further behind, so that the
    table's own news (its seats taken) never came (5 runs of 5). Now the changes waiting
    are bounded, and a listed table's TXT record is taken as it comes."""
    import json
    import textwrap

    from test_netns import _REASON, TAG, finish, make_ns, ns_python
    if _REASON:
        pytest.skip(_REASON)
    ns = make_ns(namespaces, f"mbh8{TAG}")
    paths = {}
    for name, body in (("flood", FLOOD), ("host", HOST), ("lobby", LOBBY)):
        paths[name] = tmp_path / f"{name}.py"
        paths[name].write_text(textwrap.dedent(body))
    lobby = ns_python(ns, paths["lobby"], "17")
    host = ns_python(ns, paths["host"], "9", "8")
    flood = ns_python(ns, paths["flood"], "2", "20000", "16", RATE)
    try:
        said = json.loads(finish(lobby, timeout=40))
        assert host.stdout is not None
        updated = float(host.stdout.readline())
    finally:
        for p in (flood, host):
            p.kill()
            p.communicate()
    assert "1" in said["seen"], f"the table was never listed: {said}"
    assert "0" in said["seen"], f"the table's seats were never updated: {said}"
    # the host announces its news a few times over about 2 s; a flood may lose some
    assert said["seen"]["0"] - updated < 6.0, f"its news came late: {said}"
    assert said["grew"] < 15, f"the browser grew by {said['grew']} MB under the flood"


def test_a_browsers_waiting_changes_are_bounded_and_a_listed_tables_come_first() -> None:
    """What zeroconf hands a browser waits for the browser's thread bounded: the latest
    change of each name, at most ``MAX_QUEUED`` names (the oldest forgotten), a listed
    table's apart, and its TXT record as it came, applied before anything else (the
    unit-level half of the flood test above, which needs root)."""
    from zeroconf import ServiceStateChange

    from p2p.net.discovery import MAX_QUEUED, SERVICE_TYPE, TableBrowser, TableInfo

    added = ServiceStateChange.Added
    b = TableBrowser(interfaces="loopback")
    try:
        listed = f"Friday (ABCDE-FG).{SERVICE_TYPE}"
        b._tables[listed] = TableInfo(service_name=listed, name="Friday", rules="classic",
                                      seats_taken=1, seats_free=1, fingerprint="",
                                      port=4000, addresses=("127.0.0.1",))
        b._listed_keys[listed.lower()] = listed
        for i in range(5 * MAX_QUEUED):
            b._queue_change(b._zc, SERVICE_TYPE, f"flood{i}.{SERVICE_TYPE}", added)
        b._queue_news(listed, b"\x03v=1\x0bname=Friday\x06free=0")
        # its news is applied from the record, whatever the cache holds, and at once
        assert b.wait_for(lambda s: any(t.seats_free == 0 for t in s), 2.0) is not None
        end = time.monotonic() + 5
        while b._taken < b._appended and time.monotonic() < end:
            time.sleep(0.01)
        assert len(b._changes) <= MAX_QUEUED
        assert b.forgotten >= 3 * MAX_QUEUED
    finally:
        b.close()


# ------------------------------- valid entries from elsewhere: the relayer is named
def test_old_and_foreign_entries_relayed_by_a_seat_name_that_seat_not_their_author() -> None:
    """A seat pushes, and gives as a FETCH answer, entries genuinely signed by another
    seat: from another table of the same players, and from earlier in this one. Each is
    dropped and counted against the seat that sent it (never their honest author); the
    match goes on and ends alike for everyone. (Probed in pass 8: holding.)"""
    from test_replicated_log import Table

    from engine import Seating, preset
    from p2p.table import wire
    from p2p.table.memory import make_table
    from p2p.testing import FakeClock

    rules, seating = preset("modern", match_target=1), Seating.solo(3)
    cfg, ids = make_table(rules, seating, ["p0", "p1", "p2"], b"h8/relay")
    other, _ = make_table(rules, seating, ["p0", "p1", "p2"], b"h8/relay")  # same keys
    assert other.table_id != cfg.table_id
    here, there = Table(cfg, ids, FakeClock()), Table(other, ids, FakeClock())
    for t in (here, there):
        for _ in range(60):
            t.write_turns()
            t.deliver()
    earlier = [e for h in sorted(here.seats[1].rlog.log) for e in here.seats[1].rlog.log[h]]
    foreign = [e for h in sorted(there.seats[1].rlog.log)
               for e in there.seats[1].rlog.log[h]]
    for _ in range(100):
        here.write_turns()
        here.deliver()
    victim = here.seats[0].rlog
    for batch in (foreign, earlier[:40]):
        for p in wire.encode_push(batch):
            victim.on_message(here.node_of[2], p)
        victim.on_message(here.node_of[2], wire.encode_entries(batch[:30], False))
    here.collect(0)
    here.run()
    assert victim.stopped is None and victim.error is None
    blamed = {who for who, _ in victim.drops}
    assert blamed == {victim.label(here.node_of[2])}, victim.drops
    assert {r for _, r in victim.drops} <= {"foreign-table", "replayed"}
    assert victim.finished and all(s.rlog.log == victim.log for s in here.seats)


@guarded
def test_parts_sent_before_the_guard_learns_of_a_connection_are_counted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard learns of a connection from the ROUTER's monitor, or its rescan; on a busy
    machine libzmq had already read a stranger's burst of empty parts, sent at once after
    its handshake, and the guard counted only what came after (the strangers' test above
    failed 1 run in 5). Learnt late here on purpose: the burst is still counted, and cut."""
    learning = False
    on_events, rescan = ConnGuard.on_events, ConnGuard.rescan
    monkeypatch.setattr(ConnGuard, "on_events",
                        lambda self: on_events(self) if learning else None)
    monkeypatch.setattr(ConnGuard, "rescan",
                        lambda self, now: rescan(self, now) if learning else None)
    cfg = TransportConfig(max_payload=64 * 1024)
    held = cfg.strangers_unfinished_limit + (64 << 10)
    with Node(b"victim", config=cfg) as victim:
        s = _null_dealer(victim.port, b"m" + os.urandom(8))
        try:
            s.sendall(b"\x01\x00" * (held // 2))
            time.sleep(0.5)                  # libzmq reads it all, the guard knows nothing
            learning = True
            assert closed_by_peer(s, 3.0), "the burst sent before the guard knew was forgiven"
        finally:
            s.close()
