"""DNS-SD discovery on loopback (python-zeroconf, multicast over lo)."""

from __future__ import annotations

import argparse
import os
import socket
import struct
import threading
import time
from collections.abc import Callable

import pytest
from zeroconf import (
    DNSAddress,
    DNSOutgoing,
    DNSPointer,
    DNSRecord,
    DNSService,
    DNSText,
    ServiceInfo,
)
from zeroconf.const import (
    _CLASS_IN,
    _CLASS_IN_UNIQUE,
    _FLAGS_AA,
    _FLAGS_QR_RESPONSE,
    _TYPE_A,
    _TYPE_PTR,
    _TYPE_SRV,
    _TYPE_TXT,
)

from p2p.crypto.identity import fingerprint
from p2p.net import discovery
from p2p.net.discovery import (
    SERVICE_TYPE,
    TableChange,
    TableInfo,
    announce_table,
    browse_tables,
    make_zeroconf,
    parse_service_info,
)


def _loopback_multicast_works() -> str | None:
    """None if a multicast datagram sent on 127.0.0.1 comes back, else the reason."""
    group, port = "224.0.0.251", 0
    try:
        rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        rx.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        rx.bind(("", 0))
        port = rx.getsockname()[1]
        mreq = struct.pack("4s4s", socket.inet_aton(group), socket.inet_aton("127.0.0.1"))
        rx.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
        rx.settimeout(1.0)
        tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
        tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
        tx.sendto(b"probe", (group, port))
        data = rx.recv(16)
        tx.close()
        rx.close()
        return None if data == b"probe" else "unexpected datagram"
    except OSError as exc:
        return f"multicast on loopback unavailable: {exc}"


_REASON = _loopback_multicast_works()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")


def unique(prefix: str) -> str:
    return f"{prefix}-{os.getpid()}-{threading.get_ident() % 10000}"


def test_announce_browse_update_unregister() -> None:
    name = unique("Lobby table")
    fp = fingerprint(os.urandom(32))   # the form the game prints: XXXXX-XXXXX
    events: list[tuple[TableChange, TableInfo]] = []
    zc = make_zeroconf("loopback")
    try:
        browser = browse_tables(lambda c, t: events.append((c, t)), zeroconf=zc)

        def mine(snap: list[TableInfo]) -> list[TableInfo]:
            return [t for t in snap if t.name == name]

        with announce_table(
            name=name,
            rules="classic;extension=1000",
            seats_taken=1,
            seats_free=3,
            fingerprint=fp,
            port=45678,
            table_id="0011",
            interfaces="loopback",
        ) as ann:
            snap = browser.wait_for(lambda s: bool(mine(s)), timeout=10)
            assert snap is not None, "table never appeared"
            t = mine(snap)[0]
            assert (t.rules, t.seats_taken, t.seats_free) == ("classic;extension=1000", 1, 3)
            assert t.fingerprint == fp and t.table_id == "0011"
            assert t.port == 45678 and t.addresses == ("127.0.0.1",)
            assert t.endpoint == "tcp://127.0.0.1:45678"
            assert t.service_name == ann.service_name

            ann.update_seats(2, 2)
            snap = browser.wait_for(lambda s: any(x.seats_taken == 2 for x in mine(s)), timeout=10)
            assert snap is not None, "TXT update not seen"
            assert mine(snap)[0].seats_free == 2
        # leaving the with-block unregisters (table started/closed)
        snap = browser.wait_for(lambda s: not mine(s), timeout=10)
        assert snap is not None, "table did not vanish"
        kinds = [c for c, t in events if t.name == name]
        assert kinds[0] is TableChange.ADDED
        assert TableChange.UPDATED in kinds
        assert kinds[-1] is TableChange.REMOVED
        browser.close()
    finally:
        zc.close()


@pytest.mark.slow    # 6.5 s: three announcements on the LAN (the default run's 10-minute budget)
def test_two_tables_and_foreign_service_ignored() -> None:
    from zeroconf import ServiceInfo

    n1, n2 = unique("Alpha"), unique("Beta")
    zc_pub = make_zeroconf("loopback")
    foreign = ServiceInfo(
        "_millebornes._tcp.local.",
        f"{unique('junk')}._millebornes._tcp.local.",
        addresses=[socket.inet_aton("127.0.0.1")],
        port=1,
        properties={"v": "999"},
        server="junk.local.",
    )
    try:
        zc_pub.register_service(foreign)
        a1 = announce_table(
            name=n1,
            rules="classic",
            seats_taken=1,
            seats_free=1,
            fingerprint=fingerprint(b"1" * 32),
            port=40001,
            zeroconf=zc_pub,
            addresses=["127.0.0.1"],
        )
        a2 = announce_table(
            name=n2,
            rules="modern",
            seats_taken=2,
            seats_free=4,
            fingerprint=fingerprint(b"2" * 32),
            port=40002,
            zeroconf=zc_pub,
            addresses=["127.0.0.1"],
        )
        with browse_tables(interfaces="loopback") as browser:
            snap = browser.wait_for(lambda s: {n1, n2} <= {t.name for t in s}, timeout=10)
            assert snap is not None
            assert all(t.fingerprint for t in snap)  # the v=999 record is not listed
            a1.close()
            snap = browser.wait_for(
                lambda s: n1 not in {t.name for t in s} and n2 in {t.name for t in s},
                timeout=10,
            )
            assert snap is not None
            a2.close()
    finally:
        zc_pub.close()


def test_bad_interfaces_rejected() -> None:
    with pytest.raises(ValueError):
        make_zeroconf(["eth-not-an-ip"])


# ------------------------------------------------------------------ hostile records
# A forger on loopback plays another machine of the LAN: crafted DNS-SD answers.  The
# tables use addresses of 10.99.0.0/24 (nothing is ever connected to); every record is
# withdrawn (TTL 0) at the end, so other browsers on this host do not keep it.

Make = Callable[[int], list[DNSRecord]]


def _txt_bytes(props: dict[str, str]) -> bytes:
    out = b""
    for k, v in props.items():
        kv = f"{k}={v}".encode()
        out += bytes([len(kv)]) + kv
    return out


def ghost(instance: str) -> Make:
    """A name with a PTR record only: it never resolves."""
    return lambda ttl: [DNSPointer(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN, ttl, instance)]


def record(instance: str, server: str, addrs: list[str], port: int,
           props: dict[str, str]) -> Make:
    def make(ttl: int) -> list[DNSRecord]:
        return [
            DNSPointer(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN, ttl, instance),
            DNSService(instance, _TYPE_SRV, _CLASS_IN_UNIQUE, ttl, 0, 0, port, server),
            DNSText(instance, _TYPE_TXT, _CLASS_IN_UNIQUE, ttl, _txt_bytes(props)),
            *[DNSAddress(server, _TYPE_A, _CLASS_IN_UNIQUE, ttl, socket.inet_aton(a))
              for a in addrs],
        ]
    return make


def address(server: str, addr: str) -> Make:
    """One more A record for a host name (not cache-flush: added to the others)."""
    return lambda ttl: [DNSAddress(server, _TYPE_A, _CLASS_IN, ttl, socket.inet_aton(addr))]


class Forger:
    def __init__(self) -> None:
        self.zc = make_zeroconf("loopback")
        self.sent: list[Make] = []

    def _send(self, makes: list[Make], ttl: int) -> None:
        out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
        for make in makes:
            for r in make(ttl):
                out.add_answer_at_time(r, 0)
        self.zc.send(out)

    def send(self, *makes: Make) -> None:
        self.sent += makes
        self._send(list(makes), 120)

    def withdraw(self, *makes: Make) -> None:
        self._send(list(makes), 0)

    def close(self) -> None:
        self.withdraw(*self.sent)
        time.sleep(0.2)
        self.zc.close()


def until(cond: Callable[[], bool], timeout: float) -> bool:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.hostile    # an attack, 2-5 s (the default run's 10-minute budget)
def test_names_that_never_resolve_do_not_delay_a_real_table() -> None:
    """60 PTR records with no SRV/TXT/A were resolved one after the other (2 s each) on the
    browser's only thread: a real table announced after them was listed minutes later."""
    name = unique("Real table")
    forger = Forger()
    try:
        with browse_tables(interfaces="loopback") as browser:
            forger.send(*[ghost(f"{unique('ghost')}-{i}.{SERVICE_TYPE}") for i in range(60)])
            time.sleep(0.5)
            with announce_table(name=name, rules="classic", seats_taken=1, seats_free=1,
                                fingerprint=fingerprint(os.urandom(32)), port=40010,
                                interfaces="loopback"):
                snap = browser.wait_for(lambda s: any(t.name == name for t in s), timeout=8)
            assert snap is not None, "the real table waited behind names that never resolve"
    finally:
        forger.close()


@pytest.mark.slow    # 4 s (the default run's 10-minute budget)
def test_lobby_says_how_many_tables_it_does_not_list() -> None:
    """The browser left out one machine's flood of tables silently: ``lobby`` now says
    how many announced tables it does not list, and why."""
    import io
    import re

    from cli import lobby as lobby_verb

    tag = unique("many")
    fakes = [record(f"{tag}-{k}.{SERVICE_TYPE}", f"{tag}-{k}.local.", ["10.99.0.3"], 4000,
                    {"v": "1", "name": f"{tag}-{k}"}) for k in range(12)]
    out = io.StringIO()
    forger = Forger()
    try:
        th = threading.Thread(target=lobby_verb.run, args=(
            argparse.Namespace(seconds=4.0, mdns="loopback"), out))
        th.start()
        time.sleep(0.5)
        forger.send(*fakes)
        th.join(30)
    finally:
        forger.close()
    said = out.getvalue()
    counts = [int(n) for n in re.findall(
        r"\((\d+) announced tables? not listed: at most 256 tables in all, 4 from one address\)", said)]
    assert counts and 0 < counts[-1] <= 12 - discovery.MAX_TABLES_PER_ADDRESS, said
    assert len([line for line in said.splitlines() if tag in line]) == \
        discovery.MAX_TABLES_PER_ADDRESS, said


def test_one_address_cannot_fill_the_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """256 tables announced by one machine hid every other table (first come, first
    served): now a few per address, the rest counted in `ignored` (and listed when room
    is made)."""
    monkeypatch.setattr(discovery, "MAX_TABLES", 16)
    per = discovery.MAX_TABLES_PER_ADDRESS
    tag = unique("fake")
    fakes = {f"{tag}-{k}": record(f"{tag}-{k}.{SERVICE_TYPE}", f"{tag}-{k}.local.",
                                  ["10.99.0.1"], 4000, {"v": "1", "name": f"{tag}-{k}"})
             for k in range(20)}
    real = f"{tag}-real"
    forger = Forger()
    try:
        with browse_tables(interfaces="loopback") as browser:
            def listed() -> set[str]:
                return {t.name for t in browser.snapshot()} & set(fakes)

            forger.send(*fakes.values())
            assert until(lambda: browser.ignored == 20 - per, 8), browser.ignored
            forger.send(record(f"{real}.{SERVICE_TYPE}", f"{real}.local.", ["10.99.0.2"],
                               4001, {"v": "1", "name": real}))
            snap = browser.wait_for(lambda s: real in {t.name for t in s}, timeout=8)
            assert snap is not None, "another machine's tables hid the real one"
            assert len(listed()) == per and browser.ignored == 20 - per
            # two of them withdrawn: two of those left out are listed in their place
            gone = sorted(listed())[:2]
            forger.withdraw(*[fakes[n] for n in gone])
            assert until(lambda: not set(gone) & listed() and len(listed()) == per, 8)
            assert browser.ignored == 20 - per - 2
    finally:
        forger.close()


@pytest.mark.hostile    # an attack, 2-5 s (the default run's 10-minute budget)
def test_another_machine_cannot_repoint_a_table() -> None:
    """An A record for the table's host name (mb-<fp>.local., predictable) came first in
    zeroconf's newest-first order and became the endpoint: now the addresses first seen
    stay first, and every address is kept for the joiner to try in turn."""
    name = unique("Genuine")
    fp = fingerprint(os.urandom(32))
    forger = Forger()
    try:
        with browse_tables(interfaces="loopback") as browser, \
                announce_table(name=name, rules="classic", seats_taken=1, seats_free=1,
                               fingerprint=fp, port=40020, addresses=["10.99.0.7"],
                               interfaces="loopback"):
            def mine(s: list[TableInfo]) -> list[TableInfo]:
                return [t for t in s if t.name == name]

            assert browser.wait_for(lambda s: bool(mine(s)), timeout=10) is not None
            forger.send(address(f"mb-{fp}.local.", "10.99.0.66"))
            snap = browser.wait_for(
                lambda s: any("10.99.0.66" in t.addresses for t in mine(s)), timeout=10)
            assert snap is not None, "the added address was not seen"
            t = mine(snap)[0]
            assert t.addresses == ("10.99.0.7", "10.99.0.66")
            assert t.endpoint == "tcp://10.99.0.7:40020"
            assert t.endpoints == ("tcp://10.99.0.7:40020", "tcp://10.99.0.66:40020")
    finally:
        forger.close()


@pytest.mark.hostile    # an attack, 2-5 s (the default run's 10-minute budget)
def test_a_record_that_stops_parsing_removes_its_table() -> None:
    """An update that is no longer a table of ours (v=999 here) left the old table listed."""
    name = unique("Turncoat")
    events: list[tuple[TableChange, TableInfo]] = []

    def info(version: str) -> ServiceInfo:
        return ServiceInfo(SERVICE_TYPE, f"{name}.{SERVICE_TYPE}",
                           addresses=[socket.inet_aton("127.0.0.1")], port=40030,
                           properties={"v": version, "name": name}, server=f"{name}.local.")

    zc_pub = make_zeroconf("loopback")
    try:
        zc_pub.register_service(info("1"))
        with browse_tables(lambda c, t: events.append((c, t)),
                           interfaces="loopback") as browser:
            assert browser.wait_for(lambda s: name in {t.name for t in s}, 10) is not None
            zc_pub.update_service(info("999"))
            snap = browser.wait_for(lambda s: name not in {t.name for t in s}, 10)
            assert snap is not None, "the table stayed listed after its record became invalid"
            assert [c for c, t in events if t.name == name][-1] is TableChange.REMOVED
    finally:
        zc_pub.close()


def _info(addrs: list[str], **props: str) -> ServiceInfo:
    return ServiceInfo(SERVICE_TYPE, f"x.{SERVICE_TYPE}",
                       addresses=[socket.inet_aton(a) for a in addrs], port=4000,
                       properties={"v": "1", **props}, server="x.local.")


def test_a_remote_record_never_points_at_this_host() -> None:
    """A record announced from another machine with 127.0.0.1 sent `join` to the joiner's
    own loopback (key door UDP, ZMTP); link-local (169.254.169.254), unspecified,
    multicast and reserved addresses are dropped too."""
    bad = ["127.0.0.1", "127.8.9.1", "169.254.169.254", "0.0.0.0", "0.1.2.3",
           "224.0.0.251", "255.255.255.255", "240.0.0.1"]
    t = parse_service_info(_info([*bad, "10.1.2.3"]))
    assert t is not None and t.addresses == ("10.1.2.3",)
    assert parse_service_info(_info(["127.0.0.1"])) is None
    # a browser on the loopback only (the tests, --mdns loopback) hears this host only
    t = parse_service_info(_info(["127.0.0.1", "10.1.2.3"]), loopback=True)
    assert t is not None and set(t.addresses) == {"127.0.0.1", "10.1.2.3"}
    # a host with a link-local address (a LAN with no DHCP) accepts link-local ones
    t = parse_service_info(_info(["169.254.7.8"]), link_local=True)
    assert t is not None and t.addresses == ("169.254.7.8",)


def test_only_the_printed_fingerprint_form_is_kept() -> None:
    """TXT fp also matched [0-9a-f]{8,64}, a form no real fingerprint has."""
    fp = fingerprint(os.urandom(32))
    t = parse_service_info(_info(["10.1.2.3"], fp=fp))
    assert t is not None and t.fingerprint == fp
    for bad in ["ab12cd34" * 4, "00" * 8, fp.lower(), fp + "A", fp.replace("-", ""), " " + fp]:
        t = parse_service_info(_info(["10.1.2.3"], fp=bad))
        assert t is not None and t.fingerprint == "", bad
