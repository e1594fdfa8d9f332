"""Hostile pass 17: a seat's signed entry of a later hand, the proof that "this computer
fell behind" (bbbf666), used by the seat itself to keep honest peers out of the table's
agreement about it; a forgery under its name replacing its genuine later entry."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_replicated_log import (
    Table,
    _later_hand_entry,
    _silent_table,
    _table,
    _tick_until,
    _transcript,
)

from p2p.audit import verify_game
from p2p.table.replicated_log import LogOptions


def _run(t: Table, honest: tuple[int, ...], seconds: float) -> None:
    """The honest seats tick and hear each other (never the hostile one) for ``seconds``
    of the fake clock, or until all of them stopped."""
    start = t.clock.now
    while (t.clock.now - start < seconds
           and not all(t.seats[s].rlog.stopped for s in honest)):
        t.clock.advance(0.5)
        for s in honest:
            t.seats[s].rlog.tick()
            t.collect(s)
        t.deliver(lose={1})
    t.deliver(lose={1})


def _table_goes_on_without(t: Table, silent: int, honest: tuple[int, ...],
                           tmp_path: Path) -> None:
    """Every honest seat is paused on ``silent`` (named unresponsive, resumable), both
    agree the end, and it holds at each; ``verify`` of each transcript blames nobody."""
    for s in honest:
        rl = t.seats[s].rlog
        assert rl.unresponsive == silent and rl.resumable, (s, rl.stop_why)
        assert rl.saw_silent(silent)
    for s in honest:
        assert t.seats[s].rlog.propose_end(silent) is not None, t.seats[s].rlog.refused
        t.collect(s)
    t.deliver(lose={silent})
    for s in honest:
        rl = t.seats[s].rlog
        assert rl.agreed_end is not None, (s, rl.stop_why)
        rep = verify_game(_transcript(tmp_path, t, s))
        assert rep.blamed_seat is None, rep.summary()


def test_a_later_hand_entry_sent_to_one_peer_does_not_keep_it_out_of_the_agreement(
        tmp_path: Path) -> None:
    """Seat 1 withholds its step and signs an entry of a later hand for seat 0 alone.
    Seat 2 names it unresponsive at the limit; seat 0 took the entry for proof that it fell
    behind and, a step limit later, stopped for itself ("fell-behind", not resumable): it
    could not agree a bot or the end with seat 2, and the table could not go on. Seat 2
    lacks that very step too (its FETCHes of that position, its signed claim): the table
    did not move on, and seat 0 names seat 1 unresponsive at the limit, as seat 2 does,
    and the two agree."""
    t = _silent_table(b"h17/one-peer", silent=1)
    start = t.clock.now
    t.seats[0].rlog.on_message(t.node_of[1], _later_hand_entry(t, author=1))
    t.collect(0)
    _run(t, (0, 2), 60.0)
    assert t.clock.now - start <= 21.0
    assert "fell-behind" not in t.seats[0].events
    _table_goes_on_without(t, 1, (0, 2), tmp_path)


def test_a_later_hand_entry_sent_to_every_peer_does_not_stop_them_all_for_themselves(
        tmp_path: Path) -> None:
    """The same entry sent to both honest peers: each thinks it fell behind, and neither
    signs a claim. Each asks the other for the very entry it waits for (a FETCH of the
    same position): the other lacks it too, so neither fell behind; both name seat 1
    unresponsive at the limit (before: both stopped "fell-behind", for good)."""
    t = _silent_table(b"h17/every-peer", silent=1)
    start = t.clock.now
    for s in (0, 2):
        t.seats[s].rlog.on_message(t.node_of[1], _later_hand_entry(t, author=1))
        t.collect(s)
    _run(t, (0, 2), 60.0)
    for s in (0, 2):
        assert "fell-behind" not in t.seats[s].events
    assert t.clock.now - start <= 21.0
    _table_goes_on_without(t, 1, (0, 2), tmp_path)


def test_a_forgery_under_a_seats_name_does_not_replace_its_own_later_entry() -> None:
    """The latest entry dropped as too far ahead was kept unverified: another seat's
    forgery under seat 1's name (a later hand, a broken signature) replaced seat 1's own,
    and the peer behind named seat 1, whose entries were arriving, unresponsive at the
    first limit. Only a verified entry is kept now: the peer waits for its catch-up."""
    t = _silent_table(b"h17/forged-over", silent=1)
    rl0 = t.seats[0].rlog
    rl0.on_message(t.node_of[1], _later_hand_entry(t, author=1))
    rl0.on_message(t.node_of[2], _later_hand_entry(t, author=1, ahead=5, forged=True))
    t.collect(0)
    t.wire.clear()
    _tick_until(t, 0, 25.0)
    assert rl0.stopped is None and rl0.unresponsive is None, rl0.stopped
    assert "behind" in t.seats[0].events


def test_a_seat_that_lacked_the_step_then_moved_on_does_not_make_it_missing() -> None:
    """A peer truly behind: seat 2 claimed seat 1's step late (signed) and then, the step
    come, moved on with seat 1 (both their own entries of a later hand are here). Seat 2's
    old claim shows nothing missing now: the peer still stops for itself, naming nobody."""
    t = _silent_table(b"h17/claimed-then-moved", silent=1)
    rl0, rl2 = t.seats[0].rlog, t.seats[2].rlog
    h = rl2.match.hand_no
    rl2.write_side({"k": "side.timeout", "step": "deck.key",
                    "slot": [h, 1, rl2.verifier.next_seq(rl2.keys[1])]})
    t.collect(2)
    t.deliver(lose={1})
    assert any(e.body["k"] == "side.timeout" for e in rl0.side)
    for author in (1, 2):
        rl0.on_message(t.node_of[author], _later_hand_entry(t, author=author))
    t.collect(0)
    t.wire.clear()
    _tick_until(t, 0, 60.0)
    assert rl0.unresponsive is None and rl0.stop_why == {"id": "fell-behind", "seconds": 40}


def test_an_address_this_computer_cannot_ask_does_not_stop_the_join(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Any machine may add an address to a table's record. One of a family this computer
    has no sockets for (an IPv6 address where IPv6 is off: EAFNOSUPPORT) raised out of
    ``answering_first`` (``socket.socket``'s OSError was not caught), and ``join --table``
    stopped with "[Errno 97] Address family not supported by protocol", the real table
    never asked. It is skipped now (its turn comes, and says what went wrong there)."""
    import errno
    import socket as socket_module

    import p2p.net.transport as transport
    from cli.join import answering_first
    from cli.seats import listen
    from p2p.crypto.identity import Identity

    real_socket = socket_module.socket

    def no_ipv6(family: int = socket_module.AF_INET, *a: object, **kw: object) -> object:
        if family == socket_module.AF_INET6:
            raise OSError(errno.EAFNOSUPPORT, "Address family not supported by protocol")
        return real_socket(family, *a, **kw)  # type: ignore[arg-type]

    ann = Identity.generate()
    node = listen(ann, "127.0.0.1", 0, secure=True)
    monkeypatch.setattr(transport.socket, "socket", no_ipv6)
    try:
        eps = ["tcp://[fd00::17]:4000", f"tcp://127.0.0.1:{node.port}"]
        order = answering_first([(ep, None) for ep in eps], ann.fingerprint)
        assert [ep for ep, _ in order] == [eps[1], eps[0]], order
    finally:
        monkeypatch.undo()
        node.close()


def _silent_pair(name: bytes) -> Table:
    """Two seats; seat 1 writes nothing and hears nothing; seat 0 goes on until the log
    waits for seat 1."""
    t = _table(name, n=2, options=LogOptions(step_limit=20.0))
    for _ in range(200):
        rl = t.seats[0].rlog
        while not rl.done and rl.match.hand.expected_writer() == 0:
            hp = rl.match.hand
            rl.secrets[hp.hand_no] = hp.export_secrets()
            rl.write(hp.next_body(t.seats[0].bot.choose))  # type: ignore[attr-defined]
        t.collect(0)
        t.wire = [m for m in t.wire if m[0] != 1]
        if not t.deliver(lose={1}):
            break
    return t


def test_at_a_table_of_two_a_later_hand_entry_does_not_keep_the_other_from_pausing(
        tmp_path: Path) -> None:
    """At a table of two nobody else can show the step missing: the seat that withholds
    its step and signs a later hand for the other stopped it "fell-behind" (not
    resumable) at every resume, and the table never paused on it (no bot, no end). The
    other seat signs its own entries, and no hand goes on without them: the later entry
    was made up. It is named unresponsive at the limit, and the end agreed."""
    t = _silent_pair(b"h17/pair")
    rl0 = t.seats[0].rlog
    due = rl0.deadline()
    assert due is not None and due[0] == 1
    start = t.clock.now
    rl0.on_message(t.node_of[1], _later_hand_entry(t, author=1))
    t.collect(0)
    _run(t, (0,), 60.0)
    assert "behind" not in t.seats[0].events and "fell-behind" not in t.seats[0].events
    assert t.clock.now - start <= 21.0
    _table_goes_on_without(t, 1, (0,), tmp_path)


def test_a_copy_replaying_and_relaying_the_hosts_key_card_is_not_asked_before_the_host(
        ) -> None:
    """A key card is public: a copy of Ann's table's record announced (first) at another
    machine's address, whose door answers at once with Ann's card (asked from her door
    once), was ranked with her and, answering first, ended the asking: ``join --table``
    asked the copy first again, and a copy that takes the connection and never answers
    cost the connect limit each (what 6fbb6aa meant to end). The joiner now challenges
    every door; only a door holding Ann's CURVE key, answering at the address asked, can
    prove it. The copy also relays the challenge to Ann's door and her proof back: made
    for the copy's address, it proves nothing for the joiner."""
    import select
    import socket
    import threading

    from cli.join import answering_first
    from cli.seats import listen
    from p2p.crypto.identity import Identity
    from p2p.net.transport import KEY_DOOR_ASK, KEY_DOOR_SIZE

    ann = Identity.generate()
    node = listen(ann, "127.0.0.1", 0, secure=True)
    host = ("127.0.0.1", node.port)
    front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    front.bind(("127.0.0.1", 0))
    back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    back.settimeout(2.0)
    back.sendto(KEY_DOOR_ASK.ljust(KEY_DOOR_SIZE, b"\0"), host)
    card, _ = back.recvfrom(2048)
    stop = threading.Event()

    def copy() -> None:
        joiner = None
        while not stop.is_set():
            ready, _, _ = select.select([front, back], [], [], 0.05)
            for sock in ready:
                data, addr = sock.recvfrom(2048)
                if sock is front:
                    joiner = addr
                    front.sendto(card, addr)        # Ann's card at once, from here
                    back.sendto(data, host)         # and her door asked the same
                elif joiner is not None:
                    front.sendto(data, joiner)      # her answers, from here
    relay = threading.Thread(target=copy, daemon=True)
    relay.start()
    try:
        eps = [f"tcp://127.0.0.1:{front.getsockname()[1]}", f"tcp://127.0.0.1:{node.port}"]
        for asked in (eps, eps[::-1]):
            order = answering_first([(ep, None) for ep in asked], ann.fingerprint)
            assert [ep for ep, _ in order] == [eps[1], eps[0]], order
    finally:
        stop.set()
        relay.join(5)
        front.close()
        back.close()
        node.close()


def test_a_peer_of_two_fooled_by_a_later_hand_entry_pauses_and_can_end_the_match(
        tmp_path: Path) -> None:
    """The same through a whole Peer (its store, its pump, a memory network): Bo stops
    answering and sends Ann one entry he signed for a later hand. Ann stopped for herself
    ("fell-behind", not paused: she could neither agree a bot for Bo nor the end); she
    is paused on Bo now, and the end she agrees holds."""
    import time

    from test_hostile_fifteenth import _two_seats

    from p2p.table import wire
    from p2p.transcript.envelope import Envelope

    peers = _two_seats(tmp_path, b"h17/peer-pair")
    ann, bo = peers
    try:
        bo.pump(0.01)                            # Bo is there, then silent: Ann awaits
        rl = ann.rlog                            # his first step (an automatic one)
        later = Envelope.create(bo.rlog.identity, rl.table_id, rl.hand_no + 2, 3,
                                b"\0" * 32, {"k": "game.act", "a": ["pass", 1]})
        bo.node.send(ann.node.node_id, wire.encode_push([later.encode()])[0])
        end = time.monotonic() + 10
        while ann.stopped is None and time.monotonic() < end:
            ann.pump(0.02)                       # Bo pumps no more: silent
        assert (ann.stop_why or {}).get("id") == "unresponsive", ann.stop_why
        assert ann.paused and ann.silent_seat() == 1
        assert ann.agree_end(1), ann.agreement_refused
        assert ann.rlog.agreed_end is not None
    finally:
        for p in peers:
            p.close()
