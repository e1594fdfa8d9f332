"""Seventh hostile pass (2026-12-05): a hostile machine on the LAN, a hostile file and a
hostile zeroconf record against real millebornes peers. What must hold: an honest player
is never blamed; no input stops a peer (no traceback, no unbounded wait, no unbounded
memory); every wait has a limit.

Findings (each test here failed before its fix):

* a seated peer (CURVE, its own key: the table admits it) opened connections of its own,
  each finishing one message and then sending empty message parts just under the
  per-connection limit: none was ever cut (a peer's connections were spared the bound on
  what strangers hold together, and the cap on connections from one address), so each
  held about 26 MB in libzmq (measured: 10 such connections, 44 → 246 MB, for as long as
  they stayed open; any number could be opened). Now only a peer's two connections that
  finished a message the most recently are judged as its own, bounded together by the
  per-connection limit, and any other is judged as a stranger's (after: 10 of them,
  44 → 87 MB at the peak).
* a flood of announcements bigger than zeroconf's cache (10,000 records) hid the table a
  joiner named: its records were evicted as they came, the resolver slots were all busy
  with the flood's names, and the ServiceBrowser's queue of changes ran seconds behind
  (measured in a network namespace of our own, 20,000 names for 20 s, about 40,000
  announcements a second: `join --table NAME` never found the table, 4 runs of 4). A
  joiner's browser now spots, in every packet as it comes, a service name the table it
  looks for may have (``"NAME (FINGERP…)"``) and asks for it with look-ups of its own
  (after: found within half a second of its first announcement, 4 runs of 4);
* a seated peer naming a new transport session in every frame made each frame a restart
  (resends, a fetch, an event and a log line each: 165,000 in 6 s); a new session is now
  taken at most every half second;
* a joiner took the first valid key card that reached its UDP socket, from anyone: any
  machine sending its own card to every port of the joiner's was trusted on first use in
  the host's place; only the address asked is heard now (and a door bound to every
  address answers from the one it was asked at);
* a tampered ``secrets.log`` (tests/test_store_damage.py): a round named '²' or with
  5,000 digits made ``resume`` say only "invalid literal for int()", and a seed that is
  not the one this seat committed to was used.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import textwrap
import time
from pathlib import Path

import pytest

from p2p.crypto.identity import Identity
from p2p.hostile import HostileSocket, closed_by_peer, recv_exact, zmtp_greeting, zmtp_property
from p2p.net.conn_guard import ConnGuard
from p2p.net.frames import HELLO, SESSION_LEN, pack_frame
from p2p.net.interface import PeerEventKind, TransportConfig
from p2p.net.transport import KeyDoorAsk, Node, key_card


class CurveDealer:
    """A ZMTP 3.0 CURVE DEALER written by hand (RFC 26), with a long-term key of its
    choice: what a seated player's own program can do with its own key."""

    def __init__(self, port: int, server_key: bytes, secret: bytes, identity: bytes) -> None:
        nacl_public = pytest.importorskip("nacl.public")
        box, private, public = nacl_public.Box, nacl_public.PrivateKey, nacl_public.PublicKey
        self.s = s = socket.create_connection(("127.0.0.1", port), timeout=10)
        server, longterm, short = public(server_key), private(secret), private.generate()
        self.nonce = 1
        s.sendall(zmtp_greeting(b"CURVE"))
        recv_exact(s, 64)
        hello = box(short, server).encrypt(b"\0" * 64, b"CurveZMQHELLO---" + self._sn())
        self._command(b"\x05HELLO\x01\x00" + b"\0" * 72 + bytes(short.public_key)
                      + self._sn() + hello.ciphertext)
        self.nonce += 1
        w = self._frame()
        plain = box(short, server).decrypt(w[24:], b"WELCOME-" + w[8:24])
        server_short, cookie = public(plain[:32]), plain[32:]
        vn = os.urandom(16)
        vouch = box(longterm, server_short).encrypt(
            bytes(short.public_key) + bytes(server), b"VOUCH---" + vn).ciphertext
        meta = zmtp_property(b"Socket-Type", b"DEALER") + zmtp_property(b"Identity", identity)
        initiate = box(short, server_short).encrypt(
            bytes(longterm.public_key) + vn + vouch + meta, b"CurveZMQINITIATE" + self._sn())
        self._command(b"\x08INITIATE" + cookie + self._sn() + initiate.ciphertext)
        self.nonce += 1
        assert self._frame().startswith(b"\x05READY")
        self.box = box(short, server_short)

    def _sn(self) -> bytes:
        return struct.pack(">Q", self.nonce)

    def _command(self, body: bytes) -> None:
        if len(body) < 256:
            self.s.sendall(b"\x04" + bytes([len(body)]) + body)
        else:
            self.s.sendall(b"\x06" + struct.pack(">Q", len(body)) + body)

    def _frame(self) -> bytes:
        f = recv_exact(self.s, 1)[0]
        n = struct.unpack(">Q", recv_exact(self.s, 8))[0] if f & 2 else recv_exact(self.s, 1)[0]
        return recv_exact(self.s, n)

    def part(self, data: bytes, more: bool) -> bytes:
        """One message part as it goes on the wire (MORE: the message goes on)."""
        msg = b"\x07MESSAGE" + self._sn() + self.box.encrypt(
            (b"\x01" if more else b"\x00") + data, b"CurveZMQMESSAGEC" + self._sn()).ciphertext
        self.nonce += 1
        if len(msg) < 256:
            return b"\x00" + bytes([len(msg)]) + msg
        return b"\x02" + struct.pack(">Q", len(msg)) + msg


# ------------------------------ a seated peer's own connections, each under the limit
@pytest.mark.hostile    # an attack, 3-5 s (the default run's 10-minute budget)
@pytest.mark.skipif(not ConnGuard.supported(), reason="the guard needs Linux's TCP_INFO")
def test_a_seated_peers_many_connections_cannot_each_hold_unfinished_parts() -> None:
    """A seated peer (its key admitted by the table) opens eight connections of its own;
    each finishes a message (so it is the peer's), then sends empty parts with MORE,
    under the per-connection limit alone, and waits. Before, none was cut (each held
    about six times its bytes in libzmq's memory, and any number could be opened); now
    what they hold together is bounded, and an honest seat's largest payloads pass."""
    cfg = TransportConfig(max_payload=64 * 1024)
    per = 112 << 10                     # under both limits (192 KiB, 128 KiB), alone
    assert per < cfg.unfinished_limit < 2 * per and per < cfg.strangers_unfinished_limit
    ids = {name: Identity.generate() for name in ("victim", "mallory", "honest")}
    keys = {name: i.curve_keys() for name, i in ids.items()}
    nid = {name: b"m" + i.public_key for name, i in ids.items()}
    with Node(nid["victim"], config=cfg, curve=keys["victim"]) as victim, \
            Node(nid["honest"], config=cfg, curve=keys["honest"]) as honest:
        for name in ("mallory", "honest"):
            victim.expect_key(nid[name], keys[name].public)
        victim.add_peer(nid["mallory"], "tcp://127.0.0.1:9")
        victim.add_peer(nid["honest"], honest.endpoint)
        victim.set_admission(False)
        honest.expect_key(nid["victim"], keys["victim"].public)
        honest.add_peer(nid["victim"], victim.endpoint)
        honest.set_admission(False)
        socks = []
        try:
            for _ in range(8):
                d = CurveDealer(victim.port, keys["victim"].public, keys["mallory"].secret,
                                nid["mallory"] + b"#" + os.urandom(8))
                d.s.sendall(d.part(b"\xc1", False))      # a finished message: the peer's
                socks.append(d)
            time.sleep(0.3)
            for d in socks:
                one = d.part(b"", True)
                d.s.sendall(b"".join(d.part(b"", True) for _ in range(per // len(one))))
            open_ = [d for d in socks if not closed_by_peer(d.s, 3.0)]
            assert len(open_) <= 2, f"{len(open_)} of 8 connections still hold their parts"
            payload = os.urandom(cfg.max_payload)
            for _ in range(10):
                honest.send(nid["victim"], payload)
            got = 0
            end = time.monotonic() + 20
            while got < 10 and time.monotonic() < end:
                m = victim.recv(0.5)
                got += m == (nid["honest"], payload)
            assert got == 10
        finally:
            for d in socks:
                d.s.close()


# ----------------------------------------------------- a key card from someone else
def test_a_key_card_from_another_address_than_the_one_asked_is_not_taken() -> None:
    """A joiner asking HOST:PORT's key door took the first valid card that came to its
    socket, from anyone: a machine that sent its own card to every UDP port of the
    joiner's (28,000 datagrams) made a `join --peer HOST:PORT` trust its key, print its
    fingerprint and then fail to connect. Only an answer from the address asked counts."""
    closed = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    closed.bind(("127.0.0.1", 0))             # where no door answers
    port = closed.getsockname()[1]
    mallory = Identity.generate().curve_keys()
    with KeyDoorAsk(f"tcp://127.0.0.1:{port}") as ask, \
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as forger:
        assert ask.poll(0.0) is None          # asked: its socket has its port now
        assert ask._sock is not None
        forger.sendto(key_card(mallory), ask._sock.getsockname())
        assert ask.poll(0.5) is None, "a card from another address was taken"
    closed.close()


def test_a_host_listening_everywhere_answers_from_the_address_it_was_asked_at() -> None:
    """A host bound to every address answers the key door from the address the joiner
    asked (127.0.0.2 here; the kernel's own choice was 127.0.0.1), so that its answer is
    taken."""
    ident = Identity.generate()
    with Node(b"m" + ident.public_key, bind="*", curve=ident.curve_keys()) as host:
        host.set_admission(True)
        with KeyDoorAsk(f"tcp://127.0.0.2:{host.port}") as ask:
            card = ask.poll(5.0)
        assert card == (ident.public_key, ident.curve_keys().public)


# --------------------------------------------- a peer that changes its session every frame
def test_a_peer_changing_its_session_at_every_frame_is_taken_at_most_every_half_second(
        ) -> None:
    """A seated peer whose every frame names a new transport session: each was a restart
    (its selectively acknowledged frames resent, a fetch sent to it, a RESTARTED event and
    a log line: 165,000 of them in 6 s, the node's CPU 2.8 → 4.9 s against junk frames at
    the same rate). A new session is now taken at most every ``restart_every`` (0.5 s);
    the others are dropped, counted ``restart_rate``; one after the interval is taken."""
    with Node(b"victim") as victim:
        victim.add_peer(b"mallory", "tcp://127.0.0.1:9")
        with HostileSocket(victim.endpoint, b"mallory") as h:
            start = time.monotonic()
            for _ in range(2000):
                assert h.send(pack_frame([HELLO, os.urandom(SESSION_LEN), 9, "127.0.0.1"]))
            restarts = 0        # the first frame names the first session: 1,999 changes
            end = time.monotonic() + 10
            while time.monotonic() < end:
                restarts += sum(e.kind is PeerEventKind.RESTARTED for e in victim.events())
                if victim.stats().get(b"mallory", {}).get("restart_rate", 0) + restarts \
                        >= 1999:
                    break
                time.sleep(0.02)
            took = time.monotonic() - start
            assert restarts <= took / victim.config.restart_every + 1, (restarts, took)
            time.sleep(victim.config.restart_every)
            assert h.send(pack_frame([HELLO, os.urandom(SESSION_LEN), 9, "127.0.0.1"]))
            end = time.monotonic() + 5
            later = 0
            while later == 0 and time.monotonic() < end:
                later = sum(e.kind is PeerEventKind.RESTARTED for e in victim.events())
                time.sleep(0.02)
            assert later == 1


# --------------------------------------------- a flood bigger than zeroconf's own cache
FLOOD = """
    import sys
    from p2p.hostile import zeroconf_flood
    zeroconf_flood(int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]))
"""

HOST = """
    import sys, time
    from p2p.net.discovery import announce_table
    time.sleep(float(sys.argv[1]))
    with announce_table(name="Friday", rules="classic", seats_taken=1, seats_free=1,
                        fingerprint="ABCDE-FGHIJ", port=40011, interfaces="loopback"):
        time.sleep(float(sys.argv[2]))
"""

JOINER = """
    import json, sys, time
    from zeroconf import RecordUpdateListener
    from p2p.net.discovery import browse_tables, instance_matcher, make_zeroconf
    time.sleep(float(sys.argv[1]))
    t0 = time.monotonic()
    seen = set()

    class Count(RecordUpdateListener):           # the flood's names this joiner heard
        def async_update_records(self, zc, now, records):
            seen.update(r.new.alias for r in records if r.new.name.startswith("_mille")
                        and hasattr(r.new, "alias"))

        def async_update_records_complete(self):
            pass

    zc = make_zeroconf("loopback")
    zc.add_listener(Count(), None)
    with browse_tables(zeroconf=zc, wanted=lambda t: t.name == "Friday",
                       wanted_names=instance_matcher(name="Friday")) as b:
        found = b.wait_for(lambda s: any(t.name == "Friday" for t in s), float(sys.argv[2]))
        print(json.dumps({"found": found is not None, "names": len(seen),
                          "after": time.monotonic() - t0}))
    zc.close()
"""



def test_a_joiners_browser_knows_the_service_names_its_table_may_have() -> None:
    """``announce_table`` names an instance ``"NAME (FINGERP…)"`` (dots replaced, probing
    may add `` (2)``): a joiner's browser asks first for the names its table may have."""
    from p2p.net.discovery import SERVICE_TYPE, instance_matcher

    def svc(label: str) -> str:
        return f"{label}.{SERVICE_TYPE}"

    by_name = instance_matcher(name="Fri.day")
    assert by_name(svc("Fri_day (ABCDE-FG)")) and by_name(svc("Fri_day (ABCDE-FG) (2)"))
    assert not by_name(svc("Fri_days (ABCDE-FG)")) and not by_name(svc("Fri (ABCDE-FG)"))
    assert not by_name("Fri_day (ABCDE-FG)._other._tcp.local.")
    by_key = instance_matcher(fingerprint="ABCDE-FGHIJ")
    assert by_key(svc("Anything (ABCDE-FG)")) and not by_key(svc("Anything (ABCDE-FH)"))
    both = instance_matcher(name="Friday", fingerprint="ABCDE-FGHIJ")
    assert both(svc("Friday (ABCDE-FG)")) and not both(svc("Friday (ZZZZZ-ZZ)"))


@pytest.mark.root
@pytest.mark.hostile    # an attack, about 12 s
@pytest.mark.alone      # a flood at a set rate: what the kernel drops depends on the load
def test_a_flood_bigger_than_zeroconfs_cache_does_not_hide_the_table_a_joiner_names(
        namespaces: list[str], tmp_path: Path) -> None:
    """In a network namespace of our own (its own loopback: the flood disturbs nobody
    else), a forger announces 20,000 made-up tables with long TTLs (1,500 packets of six
    a second: at full speed the kernel dropped most of them, and the joiner heard 150
    names, not a flood), more than zeroconf's cache of 10,000 records holds; the
    player's table is announced in the middle (6 s in). The joiner's browser, looking
    for it by name, finds it."""
    from test_netns import _REASON, TAG, finish, make_ns, ns_python
    if _REASON:
        pytest.skip(_REASON)
    ns = make_ns(namespaces, f"mbflood{TAG}")
    paths = {}
    for name, body in (("flood", FLOOD), ("host", HOST), ("joiner", JOINER)):
        paths[name] = tmp_path / f"{name}.py"
        paths[name].write_text(textwrap.dedent(body))
    flood = ns_python(ns, paths["flood"], "20000", "12", "1500")
    host = ns_python(ns, paths["host"], "6", "10")
    try:
        said = json.loads(finish(ns_python(ns, paths["joiner"], "1", "12"), timeout=40))
    finally:
        for p in (flood, host):
            p.kill()
            p.communicate()
    assert said["names"] > 2_500, said      # more records than zeroconf's cache holds
    assert said["found"], f"the table named was never found: {said}"
