"""``join --table``: copies of a table's record announced by other machines (hostile
discovery records, docs/network.md)."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest
from cli_helpers import join_until_seated

from engine import Seating, preset


def test_a_copy_that_takes_the_connection_and_never_answers_does_not_delay_the_join(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Stop 45's note: a machine announces a copy of Ann's table's record (her
    fingerprint and CURVE key) at an address where a socket takes every connection and
    never says a word (no key door either), found first. ``join --table HER_FP`` asked
    it first and waited the whole connect limit (20 s here; with 16 such copies, 16
    times) before asking her table. The key doors of every address are asked at once
    first: hers answers with her key, so her table is asked first."""
    from cli.seats import listen
    from p2p.crypto.identity import Identity
    from p2p.net.discovery import TableInfo
    from p2p.table.lobby import LobbyHost

    ann = Identity.generate()
    host = LobbyHost(ann, "Ann", listen(ann, "127.0.0.1", 0, secure=True), preset("classic"),
                     Seating.solo(2))
    mute = socket.socket()
    mute.bind(("127.0.0.1", 0))
    mute.listen(16)                       # the kernel accepts; nothing ever answers
    ck = host.node.curve_key
    assert ck is not None
    tables = [TableInfo(f"{name}._millebornes._tcp.local.", "Ann's table", "classic", 1, 1,
                        ann.fingerprint, port, ("127.0.0.1",), curve_key=ck)
              for name, port in (("copy", mute.getsockname()[1]),
                                 ("Ann's table", host.node.port))]
    try:
        _code, said, seated, took = join_until_seated(
            monkeypatch, tmp_path, capsys, tables, ann.fingerprint, [host], host)
    finally:
        host.node.close()
        mute.close()
    assert seated, said
    assert took < 12.0, (took, said)              # before: 20 s at the copy first
    assert f"127.0.0.1:{tables[0].port}" not in said, said   # the copy was never asked


def test_the_key_doors_are_asked_at_once_and_the_hosts_answer_ends_the_asking() -> None:
    """``answering_first``: the host's door first, silent ones next, another key's last;
    the asking stops at the host's answer, well before its limit."""
    from cli.join import KEY_DOORS_SECONDS, answering_first
    from cli.seats import listen
    from p2p.crypto.identity import Identity

    ann, eve = Identity.generate(), Identity.generate()
    nodes = [listen(i, "127.0.0.1", 0, secure=True) for i in (eve, ann)]
    mute = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    mute.bind(("127.0.0.1", 0))                  # a UDP port that never answers
    try:
        eps = [f"tcp://127.0.0.1:{mute.getsockname()[1]}",
               f"tcp://127.0.0.1:{nodes[0].port}", f"tcp://127.0.0.1:{nodes[1].port}"]
        start = time.monotonic()
        order = answering_first([(ep, None) for ep in eps], ann.fingerprint)
        took = time.monotonic() - start
        assert [ep for ep, _ in order][0] == eps[2], order
        assert took < KEY_DOORS_SECONDS, took
        # without the host among them: the full limit, then silent before another key
        order = answering_first([(ep, None) for ep in eps[:2]], ann.fingerprint)
        assert [ep for ep, _ in order] == [eps[0], eps[1]], order
    finally:
        mute.close()
        for n in nodes:
            n.close()


def test_a_copy_that_answers_its_key_door_with_the_hosts_card_is_still_asked_last() -> None:
    """A card is public: a copy's address may answer the key door with the host's own
    (signing key, CURVE key, certificate) and take connections that never answer. Only
    the host completes a CURVE handshake with its key: its address is asked first."""
    import msgpack

    from cli.join import answering_first
    from cli.seats import listen
    from p2p.crypto.identity import Identity
    from p2p.net.transport import KEY_DOOR_ASK, fetch_key_card, first_curve_handshake

    ann = Identity.generate()
    node = listen(ann, "127.0.0.1", 0, secure=True)
    host_ep = f"tcp://127.0.0.1:{node.port}"
    signing, curve = fetch_key_card(host_ep, 5.0)
    card = msgpack.packb([signing, curve, ann.curve_keys().certificate])
    mute = socket.socket()
    mute.bind(("127.0.0.1", 0))
    mute.listen(16)
    port = mute.getsockname()[1]
    door = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    door.bind(("127.0.0.1", port))
    door.settimeout(0.1)
    stop = threading.Event()

    def replay() -> None:                         # the copy's door: the host's card
        while not stop.is_set():
            try:
                data, source = door.recvfrom(2048)
            except OSError:
                continue
            if data.startswith(KEY_DOOR_ASK):
                door.sendto(card, source)
    answering = threading.Thread(target=replay, daemon=True)
    answering.start()
    copy_ep = f"tcp://127.0.0.1:{port}"
    try:
        assert fetch_key_card(copy_ep, 5.0) == (signing, curve)    # the door lies well
        start = time.monotonic()
        assert first_curve_handshake([copy_ep, host_ep], curve, 5.0) == host_ep
        assert time.monotonic() - start < 2.0
        assert first_curve_handshake([copy_ep], curve, 1.0) is None
        order = answering_first([(copy_ep, curve), (host_ep, curve)], ann.fingerprint)
        assert [ep for ep, _ in order] == [host_ep, copy_ep], order
    finally:
        stop.set()
        answering.join(5)
        door.close()
        mute.close()
        node.close()
