"""Signed table announcements: a host signs its TXT record with its identity, and a
joiner's browser keeps the table over copies of it announced before it (DNS-SD over
loopback multicast, real zeroconf)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from zeroconf import ServiceInfo

from p2p.crypto.identity import Identity
from p2p.net import discovery
from p2p.net.discovery import (
    SERVICE_TYPE,
    TableBrowser,
    announce_table,
    parse_service_info,
)


def _info(props: dict[str, str], port: int = 40100) -> ServiceInfo:
    return ServiceInfo(SERVICE_TYPE, f"x.{SERVICE_TYPE}", port=port, properties=props,
                       parsed_addresses=["10.1.2.3"], server="x.local.")


def _signed(ident: Identity, seq: int, port: int = 40100, name: str = "Friday",
            taken: int = 1) -> dict[str, str]:
    txt = discovery._txt(name, "classic", taken, 1, ident.fingerprint, "ab")
    return discovery._signed_txt(txt, port, ident.public_key, seq, ident.sign)


def test_a_signed_record_is_read_as_its_keys_and_any_change_unsigns_it() -> None:
    host, other = Identity.generate(), Identity.generate()
    props = _signed(host, 7)
    table = parse_service_info(_info(props))
    assert table is not None and table.signed_seq == 7
    assert table.fingerprint == host.fingerprint
    # every covered field, and the port, is under the signature
    for key, value in [("name", "Fri"), ("taken", "2"), ("seq", "8"), ("rules", "modern"),
                       ("id", "cd"), ("v", "1 ")]:
        changed = parse_service_info(_info({**props, key: value}))
        assert changed is None or changed.signed_seq is None, key
    assert parse_service_info(_info(props, port=40101)).signed_seq is None  # type: ignore[union-attr]
    # a fingerprint that is not the signing key's: unsigned (the key signs for itself)
    forged = _signed(other, 7)
    forged["fp"] = host.fingerprint
    t = parse_service_info(_info(forged))
    assert t is not None and t.fingerprint == host.fingerprint and t.signed_seq is None
    # no signature at all: listed as before, unsigned
    bare = {k: v for k, v in props.items() if k not in ("pk", "seq", "sig")}
    t = parse_service_info(_info(bare))
    assert t is not None and t.signed_seq is None
    # odd values: unsigned, no error
    for key, value in [("seq", "-1"), ("seq", "9" * 21), ("pk", "zz" * 32), ("sig", "00"),
                       ("pk", "00" * 32)]:
        t = parse_service_info(_info({**props, key: value}))
        assert t is not None and t.signed_seq is None, (key, value)


def test_an_announcement_is_signed_by_the_host_and_each_update_signed_later() -> None:
    from test_discovery import unique

    host = Identity.generate()
    name = unique("Signed")
    with TableBrowser(interfaces="loopback") as browser, \
            announce_table(name=name, rules="classic", seats_taken=1, seats_free=1,
                           fingerprint=host.fingerprint, port=40102, interfaces="loopback",
                           signer=host) as ann:
        snap = browser.wait_for(lambda s: any(t.name == name for t in s), timeout=10)
        assert snap is not None, "the signed table was not listed"
        first = next(t for t in snap if t.name == name)
        assert first.signed_seq is not None and first.fingerprint == host.fingerprint
        ann.update_seats(2, 0)
        snap = browser.wait_for(
            lambda s: any(t.name == name and t.seats_taken == 2 for t in s), timeout=10)
        assert snap is not None, "the update was not listed"
        second = next(t for t in snap if t.name == name)
        assert second.signed_seq is not None and second.signed_seq > first.signed_seq
    with pytest.raises(ValueError, match="signer"):
        announce_table(name=name, rules="classic", seats_taken=1, seats_free=1,
                       fingerprint=Identity.generate().fingerprint, port=40103,
                       interfaces="loopback", signer=host)


@pytest.mark.hostile    # an attack on the LAN, 2-4 s
def test_copies_announced_before_a_table_do_not_hide_it_from_a_joiner(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Another machine that knows the host's fingerprint (it saw yesterday's table)
    announces copies of its record before the host does: unsigned ones, and a copy of a
    record the host signed yesterday, each at an address of its own. A joiner that looks
    for that fingerprint listed the first :data:`MAX_WANTED` of them, first come, and
    the host's table itself never (``join --table FP`` then never asked the host). Now
    the host's own, newer record takes a copy's place; and another machine's record for
    the host's listed name (unsigned) does not change what is listed."""
    from test_discovery import Forger, record, unique

    monkeypatch.setattr(discovery, "MAX_WANTED", 2)   # a small flood on a shared loopback
    host = Identity.generate()
    fp = host.fingerprint
    name = unique("Friday")
    tag = unique("copy")
    yesterday = _signed(host, 5, port=40104, name=name)
    unsigned = {k: v for k, v in yesterday.items() if k not in ("pk", "seq", "sig")}
    copies = [record(f"{tag}-0 ({fp[:8]}).{SERVICE_TYPE}", f"{tag}-0.local.",
                     ["10.99.1.10"], 40104, yesterday),
              record(f"{tag}-1 ({fp[:8]}).{SERVICE_TYPE}", f"{tag}-1.local.",
                     ["10.99.1.11"], 40104, unsigned),
              record(f"{tag}-2 ({fp[:8]}).{SERVICE_TYPE}", f"{tag}-2.local.",
                     ["10.99.1.12"], 40104, unsigned)]
    forger = Forger()
    try:
        with TableBrowser(interfaces="loopback",
                          wanted=lambda t: t.fingerprint == fp) as joiner:
            forger.send(*copies)
            assert joiner.wait_for(lambda s: sum(t.fingerprint == fp for t in s) >= 2,
                                   timeout=8) is not None
            with announce_table(name=name, rules="classic", seats_taken=1, seats_free=1,
                                fingerprint=fp, port=40105, interfaces="loopback",
                                signer=host) as ann:
                found = joiner.wait_for(lambda s: any(t.port == 40105 for t in s),
                                        timeout=8)
                assert found is not None, "copies announced first hid the host's table"
                real = next(t for t in found if t.port == 40105)
                assert real.addresses == ("127.0.0.1",) and real.signed_seq is not None
                # the tables looked for are bounded (other tests' tables on the shared
                # loopback are listed too, under the plain limits)
                assert len([t for t in found if t.fingerprint == fp]) <= 2
                # a copy of an earlier record (or an unsigned one) for the host's own
                # name does not replace what the host signed
                forger.send(record(ann.service_name, "liar.local.", ["10.99.1.13"],
                                   40105, {**unsigned, "taken": "0"}))
                assert joiner.wait_for(
                    lambda s: any(t.port == 40105 and t.seats_taken == 0 for t in s),
                    timeout=1.5) is None
                listed = [t for t in joiner.snapshot() if t.port == 40105]
                assert listed and listed[0].signed_seq == real.signed_seq
    finally:
        forger.close()


def test_join_by_fingerprint_waits_a_moment_for_the_hosts_signed_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``join --table ANN_FP`` took the tables listed at the first answer with Ann's
    fingerprint: copies of her record (another machine's, unsigned) answering a moment
    before her table were all it asked, and it ended at them ("nothing listens"). With
    only unsigned records listed it waits a moment (at most ``GATHER_SECONDS``) for one
    her key signed, and asks that one first."""
    import socket

    from cli_helpers import join_until_seated

    from cli.seats import listen
    from engine import Seating, preset
    from p2p.net.discovery import TableInfo
    from p2p.table.lobby import LobbyHost

    ann = Identity.generate()
    host = LobbyHost(ann, "Ann", listen(ann, "127.0.0.1", 0, secure=True),
                     preset("classic"), Seating.solo(2))
    ports = []
    for _ in range(3):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])      # closed again: nothing listens there
    copies = [TableInfo(f"copy {i}._millebornes._tcp.local.", "Ann's table", "classic", 1,
                        1, ann.fingerprint, port, ("127.0.0.1",))
              for i, port in enumerate(ports)]
    hers = TableInfo("Ann's table._millebornes._tcp.local.", "Ann's table", "classic", 1, 1,
                     ann.fingerprint, host.node.port, ("127.0.0.1",),
                     curve_key=host.node.curve_key, signed_seq=12)

    class HersComesLater:
        """The LAN's answers: the copies first, Ann's signed record at the next look."""

        ignored = 0
        looks = 0

        def __enter__(self) -> HersComesLater:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        def wait_for(self, pred: Callable[[list[TableInfo]], bool],
                     timeout: float) -> list[TableInfo] | None:
            self.looks += 1
            tables = copies if self.looks == 1 else [*copies, hers]
            return tables if pred(tables) else None

    try:
        _code, said, seated, _took = join_until_seated(
            monkeypatch, tmp_path, capsys, HersComesLater(), ann.fingerprint, [host], host,
            "10")
    finally:
        host.node.close()
    assert seated, said
    assert f"Joining \"Ann's table\" at tcp://127.0.0.1:{host.node.port}" in said, said
    assert "nothing listens" not in said, said
    assert "Traceback" not in said
