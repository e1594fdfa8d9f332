"""Hostile pass 18. Each test failed before its fix.

* ``join --table FINGERPRINT`` and copies of a table's LAN announcement at a hostile
  machine's address: at a plain table (no CURVE: an id is a claim) a copy replaying a
  refusal the host signed for someone else ended the join; one replaying the host's
  signed lobby state held it for ever (the connect limit ran until a first state, not
  until a seat); four copies named to be listed first kept the table from being asked
  at all (the first four tables with the fingerprint were the only ones ranked).
* ``verify``: one player's lone "the match ends, the other left" record (at two seats
  the other seat alone signs it), kept from the other player and written into the file
  he hands to `verify`, made the other player the cheat ("an entry after the end").
* Saved games: a game folder named with a terminal's control sequences reached the
  terminal through ``games``; a seat numbered "²" in ``table.msgpack`` stopped
  ``resume`` with int()'s words; a name with control sequences in ``games-state.json``
  reached the terminal in a narrow listing.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import zmq
from cli_helpers import AnnouncedTables, join_until_seated
from test_hostile_eleventh import played_hands  # noqa: F401 - a fixture

from cli.main import main
from engine import Seating, preset


class _Copy:
    """A hostile machine's stand-in for Ann's lobby at an address of its own: a plain node
    that says HELLO under Ann's node id (at a plain table an id is only a claim) and
    answers every message with ``replay``, bytes Ann signed once (her lobby sends the
    same signed refusal to anyone who knocks at her full table: the hostile machine
    needed only to be refused once). Since lobby protocol 4 a joiner says nothing before
    the host's challenge, and takes nothing the host sent another key: the copy first
    replays Ann's welcome and a challenge she gave this very joiner (``greeting``, kept
    from an earlier knock of its key at her table), then answers with a state or refusal
    she sent it then (the review of pass 28: the defence of pass 18 is still needed)."""

    def __init__(self, node_id: bytes, replay: bytes, greeting: list[bytes]) -> None:
        from p2p.net.transport import Node
        self.node = Node(node_id, bind="127.0.0.1", port=0)
        self.replay = replay
        self.greeting = greeting
        self.answered = 0
        self.greeted = 0

    def pump(self, timeout: float) -> None:
        from p2p.net.interface import PeerEventKind
        for ev in self.node.events():
            if (ev.kind is PeerEventKind.HELLO and ev.endpoint
                    and ev.peer_id != self.node.node_id):
                try:
                    self.node.add_peer(ev.peer_id, ev.endpoint)
                    for frame in self.greeting:
                        self.node.send(ev.peer_id, frame)
                        self.greeted += 1
                except Exception:
                    pass
        msg = self.node.recv(timeout)
        while msg is not None:
            self.node.send(msg[0], self.replay)
            self.answered += 1
            msg = self.node.recv(0)


def _joiner_key(tmp_path: Path) -> bytes:
    """The key of the joiner the test runs (``--identity tmp_path/id.key``)."""
    from p2p.crypto.identity import Identity
    return Identity.load_or_create(str(tmp_path / "id.key")).public_key


def _greeting(ann: Any, lobby: bytes, to: bytes) -> list[bytes]:
    """Ann's signed welcome and a challenge of her lobby ``lobby`` to the key ``to``, as
    she sent them to that joiner when it knocked once before (a machine on the LAN kept
    them: plain ZeroMQ, in the clear)."""
    import os

    from p2p.table.lobby import PROTOCOL_VERSION, _sign
    common = {"key": ann.public_key, "lobby": lobby}
    return [_sign(ann, {"k": "welcome", "v": PROTOCOL_VERSION, **common}),
            _sign(ann, {"k": "challenge", "nonce": os.urandom(16), "to": to,
                        "n": 1, **common})]


def _join_past_a_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      replayed: str) -> tuple[int | None, bool, _Copy, int]:
    """Ann's plain lobby (a free seat) announced second, a copy of her record first at a
    hostile node that says HELLO under her id and replays ``replayed`` ("refusal": a
    refusal she signed, "state": her signed lobby state, which her lobby sends to any
    machine that knocks); ``join --table ANN_FP --auto`` run (in a thread, at most 40 s).
    Returns (its exit code, None if it did not end; whether it was seated at Ann's; the
    copy; Ann's port)."""
    import p2p.net.discovery as discovery
    from cli.seats import listen
    from p2p.crypto.identity import Identity
    from p2p.net.discovery import TableInfo
    from p2p.table.lobby import LobbyHost, _sign
    from p2p.table.wire import node_id_for

    real_has = zmq.has
    monkeypatch.setattr(zmq, "has", lambda what: what != "curve" and real_has(what))
    ann = Identity.generate()
    host = LobbyHost(ann, "Ann", listen(ann, "127.0.0.1", 0), preset("classic"),
                     Seating.solo(2))
    assert host.node.curve_key is None
    obj = ({"k": "refused", "reason": "the table is full"} if replayed == "refusal"
           else {"k": "state", "state": host.state.to_obj()})
    ben = _joiner_key(tmp_path)
    copy = _Copy(node_id_for(ann.public_key),
                 _sign(ann, dict(obj, key=ann.public_key, lobby=host.lobby_id, to=ben, n=2)),
                 _greeting(ann, host.lobby_id, ben))
    tables = [TableInfo(f"{name}._millebornes._tcp.local.", "Ann's table", "classic", 1, 1,
                        ann.fingerprint, port, ("127.0.0.1",))
              for name, port in (("copy", copy.node.port), ("Ann's table", host.node.port))]
    seated = threading.Event()
    stop = threading.Event()

    def pump() -> None:
        while not stop.is_set():
            copy.pump(0.01)
            host.pump(0.01)
            if not seated.is_set() and host.state.seats[1] is not None:
                seated.set()
                host.close(flush=1.0)       # the joiner hears it and stops
    monkeypatch.setattr(discovery, "browse_tables", lambda **kw: AnnouncedTables(tables))
    codes: list[int] = []
    joining = threading.Thread(target=lambda: codes.append(main([
        "join", "--table", ann.fingerprint, "--bind", "127.0.0.1", "--auto",
        "--connect-timeout", "3", "--data-dir", str(tmp_path / "data"),
        "--identity", str(tmp_path / "id.key")])), daemon=True)
    pumping = threading.Thread(target=pump, daemon=True)
    pumping.start()
    joining.start()
    try:
        joining.join(40)
    finally:
        stop.set()
        pumping.join(10)
        if not joining.is_alive():
            copy.node.close()
            host.node.close()
    return (codes[0] if codes else None), seated.is_set(), copy, host.node.port


def test_join_by_fingerprint_passes_a_copy_replaying_the_hosts_lobby_state(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy of a plain table's record replays Ann's signed lobby state (her lobby
    sends it to any machine that knocks) and never seats the joiner. The connect limit
    ran only until a first state came: ``join --table ANN_FP`` showed Ann's seats and
    waited there for ever (no limit, Ann's real lobby with a free seat never asked). The
    limit runs until the joiner is seated: then it says so and asks the next address.
    (Since lobby protocol 4 the copy replays a challenge and a state Ann sent this very
    joiner once: the joiner takes them.)"""
    code, seated, copy, port = _join_past_a_copy(tmp_path, monkeypatch, "state")
    out = capsys.readouterr()
    said = " ".join((out.out + out.err).split())
    assert code is not None, "join still waiting at the copy after 40 s: " + said
    assert copy.answered, said
    assert "did not seat you within 3 s" in said, said
    assert f"Trying the table's next address, tcp://127.0.0.1:{port}" in said, said
    assert seated, said
    assert "the host closed the table before the match started" in said, said


def test_join_by_fingerprint_passes_a_copy_replaying_the_hosts_signed_refusal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain table (libzmq without CURVE: no key door, a routing id is a claim). A
    machine on the LAN announces a copy of Ann's record at its own address, found first,
    and there says HELLO under Ann's id and replays a refusal Ann signed ("the table is
    full", sent to anyone at her full table). ``join --table ANN_FP`` stopped at it ("the
    table is full", exit 2) and never asked Ann's real lobby, which had a free seat: a
    refusal is signed, but not to whom, so one heard before this joiner is seated is the
    answer of that address only. It is said, the next address is asked, and the joiner
    is seated at Ann's table. (Since lobby protocol 4 a refusal names whom it is to: the
    copy replays one Ann sent this very joiner when it knocked at her full table once.)"""
    from cli.seats import listen
    from p2p.crypto.identity import Identity
    from p2p.net.discovery import TableInfo
    from p2p.table.lobby import LobbyHost, _sign
    from p2p.table.wire import node_id_for

    real_has = zmq.has
    monkeypatch.setattr(zmq, "has", lambda what: what != "curve" and real_has(what))
    ann = Identity.generate()
    ben = _joiner_key(tmp_path)
    refusal = _sign(ann, {"k": "refused", "reason": "the table is full",
                          "key": ann.public_key, "lobby": b"\x01" * 16, "to": ben, "n": 2})
    copy = _Copy(node_id_for(ann.public_key), refusal, _greeting(ann, b"\x01" * 16, ben))
    host = LobbyHost(ann, "Ann", listen(ann, "127.0.0.1", 0), preset("classic"),
                     Seating.solo(2))
    assert host.node.curve_key is None
    tables = [TableInfo(f"{name}._millebornes._tcp.local.", "Ann's table", "classic", 1, 1,
                        ann.fingerprint, port, ("127.0.0.1",))
              for name, port in (("copy", copy.node.port), ("Ann's table", host.node.port))]

    try:
        code, said, seated, _took = join_until_seated(
            monkeypatch, tmp_path, capsys, tables, ann.fingerprint, [copy, host], host, "10")
    finally:
        copy.node.close()
        host.node.close()
    assert copy.answered, said                   # the copy was asked first, and answered
    assert seated, said
    assert code != 0, said                      # Ann closed her table
    assert "the table is full" in said, said
    assert f"Trying the table's next address, tcp://127.0.0.1:{host.node.port}" in said, \
        said
    assert "the host closed the table before the match started" in said, said
    assert "Traceback" not in said


def test_a_saved_games_folder_named_with_control_sequences_reaches_no_terminal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A crafted store in the data folder, its folder named with a terminal's control
    sequences (ESC [ 2 J clears the screen, ESC ] 0 ; sets the window's title) and a
    right-to-left override: ``games`` printed the name as the game's id, raw, and so did
    ``verify``'s "your newest saved game". Such a folder is said as left out, its name
    cleaned; no control character reaches the output."""
    from test_cli_games import _saved_game
    data = tmp_path / "data"
    table = _saved_game(data)
    table.rename(table.parent / ("\x1b[2J\x1b]0;pwned\x07\u202e" + table.name))
    assert main(["games", "--data-dir", str(data)]) == 0
    out = capsys.readouterr()
    assert "\x1b" not in out.out + out.err and "\u202e" not in out.out + out.err, out
    said = " ".join(out.out.split())
    assert "1 folder in" in said and "left out: [2J]0;;" in said, said
    assert main(["verify", "--data-dir", str(data)]) == 2
    out = capsys.readouterr()
    assert "\x1b" not in out.out + out.err and "\u202e" not in out.out + out.err, out


def test_join_by_fingerprint_finds_the_table_behind_more_copies_than_it_tries(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine on the LAN announces four copies of Ann's record (her fingerprint, her
    CURVE key), named to be listed before hers (the browser lists tables by name). ``join
    --table ANN_FP`` kept the first ``MAX_SAME_KEY`` (4) tables with her fingerprint and
    ranked only their addresses by the key doors' proof: her table, fifth, was never
    asked, and the join ended at the copies. Every address announced with her fingerprint
    is ranked (the browser keeps a bounded number of them), each asked once: hers, where
    the CURVE handshake with her key succeeds, first."""
    import socket

    from cli.join import MAX_SAME_KEY
    from cli.seats import listen
    from p2p.crypto.identity import Identity
    from p2p.net.discovery import TableInfo
    from p2p.table.lobby import LobbyHost

    ann = Identity.generate()
    host = LobbyHost(ann, "Ann", listen(ann, "127.0.0.1", 0, secure=True), preset("classic"),
                     Seating.solo(2))
    ports = []
    for _ in range(MAX_SAME_KEY):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])      # closed again: nothing listens there
    ck = host.node.curve_key
    tables = [TableInfo(f"!copy {i}._millebornes._tcp.local.", "!", "classic", 1, 1,
                        ann.fingerprint, port, ("127.0.0.1",), curve_key=ck)
              for i, port in enumerate(ports)]
    tables.append(TableInfo("Ann's table._millebornes._tcp.local.", "Ann's table", "classic",
                            1, 1, ann.fingerprint, host.node.port, ("127.0.0.1",),
                            curve_key=ck))
    try:
        code, said, seated, _took = join_until_seated(
            monkeypatch, tmp_path, capsys, tables, ann.fingerprint, [host], host, "10")
    finally:
        host.node.close()
    assert seated, said
    assert code != 0, said                      # Ann closed her table
    assert f"Joining \"Ann's table\" at tcp://127.0.0.1:{host.node.port}" in said, said
    assert "nothing listens" not in said, said            # hers was asked first
    assert "the host closed the table before the match started" in said, said
    assert "Traceback" not in said


def test_an_end_one_player_signed_alone_never_makes_the_other_the_cheat(
        played_hands: Path, tmp_path: Path) -> None:  # noqa: F811
    """At two seats Hal alone signs "the match ends in hand 1, Ann left" at a point in the
    middle of it, and keeps the record from Ann: both play on, and he writes it into the
    transcript he hands to `verify`. `verify` ended the match there and failed the first
    entry of hand 2, Ann's: "an entry after the end, broken by seat 0 (p0)". Ann's entries
    after an end saying she left are no part of the match and no fault of hers; Hal's own
    are his (his record alone ended the match, and he wrote on)."""
    from p2p.audit import verify_game
    from p2p.crypto.identity import Identity
    from p2p.table.store import TRANSCRIPT
    from p2p.transcript.envelope import Envelope
    from p2p.transcript.file import read_transcript

    table = next(d for d in (played_hands / "d1").iterdir() if d.is_dir())
    t = read_transcript(table / TRANSCRIPT)
    first = sum(1 for e in t.entries if e.hand == 0)
    assert any(e.hand == 1 for e in t.entries)
    hal = Identity.load_or_create(played_hands / "s1.key")
    rec = Envelope.create(hal, t.header.table, 0, 0, bytes(32), {
        "k": "side.end", "hand": 0, "seat": 0, "at": first // 2})
    path = tmp_path / "crafted.mbt"
    path.write_bytes((table / TRANSCRIPT).read_bytes() + rec.encode())
    rep = verify_game(path)
    assert rep.blamed_seat != 0, rep.summary()
    assert not rep.ok and rep.blamed_seat == 1 and rep.check == "after-end", rep.summary()


def test_a_saved_games_record_with_a_seat_numbered_in_superscript_is_said_damaged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A saved game's ``table.msgpack`` whose map of the peers' addresses has the key
    "²" (a digit to ``str.isdigit``, not to ``int``): ``resume`` stopped with int()'s own
    words, "invalid literal for int() with base 10: '²'", naming neither the game nor
    the file. It is that file's damage, said as any other."""
    import msgpack
    from test_cli_games import _saved_game

    data = tmp_path / "data"
    table = _saved_game(data)
    meta = msgpack.unpackb((table / "table.msgpack").read_bytes(), raw=False,
                           strict_map_key=False)
    meta["endpoints"] = {"²": "tcp://127.0.0.1:1"}
    (table / "table.msgpack").write_bytes(msgpack.packb(meta, use_bin_type=True))
    assert main(["resume", "--plain", "--data-dir", str(data)]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "invalid literal" not in said, said
    assert (f"this computer's copy of game {table.name[:8]} is damaged (table.msgpack: the "
            "peers' addresses are not a seat → address map)") in said, said


def test_a_name_with_control_sequences_in_the_listings_memory_reaches_no_terminal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``games-state.json`` (the listing's memory, in the data folder) edited to say a
    game "ended by agreement" after a player named with a terminal's control sequences
    had left: a narrow terminal's listing, which says the state whole, wrote them to the
    terminal. A kept name that is not printable text is none of ``games``' memory: the
    game is checked afresh."""
    import json

    from test_cli_games import _saved_game

    import cli.i18n

    data = tmp_path / "data"
    _saved_game(data)
    assert main(["games", "--data-dir", str(data)]) == 0
    kept = data / "games-state.json"
    state = json.loads(kept.read_text())
    for entry in state.values():
        entry[1] = ["agreed", ["Al", "\x1b[2J\x1b]0;pwned\x07Bo"], 1, -1, 1, 1]
    kept.write_text(json.dumps(state))
    capsys.readouterr()
    monkeypatch.setattr(cli.i18n, "terminal_width", lambda stream: 40)
    assert main(["games", "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out, out
    assert "in progress (hand 1)" in out, out
