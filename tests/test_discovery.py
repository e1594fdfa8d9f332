"""DNS-SD discovery on loopback (python-zeroconf, multicast over lo)."""

from __future__ import annotations

import os
import socket
import struct
import threading

import pytest

from p2p.net.discovery import TableChange, TableInfo, announce_table, browse_tables, make_zeroconf


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
    fp = "ab12cd34" * 4
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
            fingerprint="11" * 8,
            port=40001,
            zeroconf=zc_pub,
            addresses=["127.0.0.1"],
        )
        a2 = announce_table(
            name=n2,
            rules="modern",
            seats_taken=2,
            seats_free=4,
            fingerprint="22" * 8,
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
