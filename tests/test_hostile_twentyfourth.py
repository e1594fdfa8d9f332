"""Hostile pass 24: hostile files in the data folder and hostile records against a seat.
Each test failed before its fix.

* ``resume`` of a game whose ``table.msgpack`` another program edited: an address kept
  for a seat the table does not have (seat 5 at a table of two) stopped it with
  "unexpected error: IndexError: tuple index out of range", and one that is no address
  with "not HOST:PORT: 'x'", naming neither the file nor the seat (a bot's store so
  edited stopped ``resume`` of the player's own game the same way). Both are this
  computer's damaged copy now, said as such.
* names that differ from a seated player's by a character every font covering it draws
  as nothing, though Unicode calls it neither ignorable nor a format character (the
  Khitan small script filler U+16FE4, a combining mark; the musical null notehead
  U+1D159, a symbol): "Ann" and the filler sat as a second "Ann" at Ann's table, and
  came with another key without a word from the known-players file.
* ``resume`` read a ``secrets.log`` of up to 64 MiB, and kept a record for any hand up
  to 100,000: a crafted file of 64 MiB of well-formed records (checksums made again)
  took a resume from 61 to 314 MB and from 0.2 to 6 s, in silence. The file may have
  16 MiB now (the longest match writes some 2 MB: after, 107 MB and 2 s at the limit),
  and a record names a hand the longest match can reach (400, counting those voided).
* a known-players file of 1,000 names that grow 18-fold in NFKC ("ﷺ" and digits: the
  file may hold that many, a crafted one or one filled by a hostile host's tables) made
  each meeting compare the new name with every known one afresh: 0.5 s a player, 7.7 s
  before a match of 16 (and before its peer was made, so the others waited for this
  seat's keys). Each name's keys are worked out once a file now (after: 0.75 s).
* ``resume`` checked a stored secrets record against the deck entries the seat had
  published (its deck key, its shuffle seeds, its reveal), not against its commitment to
  the hand's public randomness (``game.rcommit``): a record edited to hold another random
  seed (its checksum made again, as the deck seeds' case of ``test_store_damage``) was
  used, and the seat, resumed before its ``game.rreveal``, revealed a seed that did not
  match its commitment: every peer, and ``verify``, named the honest player a cheat
  (``random-reveal``). It is this computer's damaged copy now, said as such.
* ``resume`` said "(with the identity key this game was played with: FILE)" with the
  file named in the game's ``table.msgpack`` as it was: another program that wrote a
  path holding a terminal's control sequences there (and a key file under that name)
  had them reach the terminal (the window's title set, the screen cleared). Such a path
  is not taken as the game's identity file.

Probed and found holding (no change): a stored transcript with an entry duplicated,
two swapped, the last cut, the whole log twice or reversed (``resume`` cuts it as local
damage from there and fetches the rest; ``verify`` and ``replay`` of such a copy blame
nobody); a hostile seat sending random signed side entries (complaints that decide
nothing, timeout claims, takeover and end records at points near the others') to random
honest peers of a live in-process table, with a seat falling silent and the honest ones
agreeing a bot or the end: 80 seeds at three and four seats, no honest seat named live
or by ``verify`` of its transcript; 300 copies of a real two-seat match with one seat's
signed side entries spliced in at random places: ``verify`` names that seat or nobody
(at two seats, that seat's lone takeover record of a hand, at a point it reached, has
``verify`` read the hand as voided and wait for the bot: by design, the other seat
alone agrees there); 56,622 random zeroconf TXT records through ``parse_service_info``
(none raised).
"""

from __future__ import annotations

from pathlib import Path

import msgpack
import pytest
from test_store_damage import played  # noqa: F401 - a fixture

from cli.words import error_line
from engine import Seating, preset
from p2p.crypto.identity import Identity
from p2p.crypto.known import KnownPlayers
from p2p.net.transport import Node
from p2p.table.memory import make_table
from p2p.table.session import resume_peer
from p2p.table.store import Store, StoreDamaged
from p2p.text import names_look_alike, safe_text, shown_key


def _secret_record(table: bytes, hand: int) -> bytes:
    """A secrets.log record for ``hand`` of seat 0, its checksum made as the store makes
    it (as a program that edits the file would)."""
    import hashlib

    from p2p.transcript.envelope import canonical_packb

    rec: dict[str, object] = {"hand": hand, "rand_seed": bytes(32),
                              "deck": {"hand": hand, "table": table, "seat": 0, "seeds": {}}}
    rec["sum"] = hashlib.sha256(b"millebornes/secrets/v2\0" + canonical_packb(rec)).digest()[:16]
    out = msgpack.packb(rec, use_bin_type=True)
    assert isinstance(out, bytes)
    return out


def _local_node(nid: bytes, bind: str, port: int) -> Node:
    return Node(nid, bind="127.0.0.1")


@pytest.mark.parametrize("endpoints, said", [
    ({"5": "tcp://127.0.0.1:9"}, "it holds an address for seat 5, at a table of 2 seats"),
    ({"1": "x"}, "seat 1's address is not one (not HOST:PORT: 'x')"),
    ({"1": "ipc:///tmp/elsewhere"}, "seat 1's address is not one"),
])
def test_resume_of_a_store_with_an_edited_address_says_its_copy_is_damaged(
        tmp_path: Path, endpoints: dict[str, str], said: str) -> None:
    cfg, ids = make_table(preset("classic", match_target=1), Seating.solo(2), ["ann", "bo"],
                          b"hostile24/endpoints")
    store = Store.create(tmp_path / "data", cfg.header(), 0, port=0,
                         endpoints={1: "tcp://127.0.0.1:9"})
    store.close()
    meta = store.path / "table.msgpack"
    m = msgpack.unpackb(meta.read_bytes(), raw=False, strict_map_key=False)
    m["endpoints"] = endpoints
    meta.write_bytes(msgpack.packb(m, use_bin_type=True))
    with pytest.raises(StoreDamaged) as err:       # before: IndexError, ValueError
        resume_peer(store.path, ids[0], node_factory=_local_node)
    line = error_line(err.value)
    assert line.startswith(f"this computer's copy of game {store.path.name[:8]} is damaged "
                           "(table.msgpack: "), line
    assert said in line and "nobody cheated" in line and "\n" not in line, line
    # the same file, its addresses put right, resumes
    m["endpoints"] = {"1": "tcp://127.0.0.1:9"}
    meta.write_bytes(msgpack.packb(m, use_bin_type=True))
    resume_peer(store.path, ids[0], node_factory=_local_node).close(flush=0)


@pytest.mark.parametrize("blank", ["\U00016fe4", "\U0001d159", "\U00016fe4\U0001d159"])
def test_a_name_with_a_character_drawn_as_nothing_reads_as_the_name_without_it(
        tmp_path: Path, blank: str) -> None:
    from test_hostile import _join_one, _lobby

    name = "Ann" + blank
    assert safe_text(name) == name            # a name a lobby and a header accept
    assert names_look_alike(name, "Ann") and shown_key(name) == "ann"
    # a known player's name: the other key is said
    known = KnownPlayers(tmp_path / "known_players")
    ann, eve = (Identity.from_seed(bytes([i]) * 32).public_key for i in (1, 2))
    assert known.meet("Ann", ann) is None
    change = known.meet(name, eve)                 # before: None, nothing said
    assert change is not None and change.known == (ann,)
    # the lobby seats it as another name than Ann's
    ids, nodes, host = _lobby(2)
    try:
        assert _join_one(host, ids[1], nodes[1], name=name) is not None
        names = [s.name for s in host.state.seats if s is not None]
        assert len({shown_key(n) for n in names}) == 2, names    # before: 'ann' twice
    finally:
        for n in nodes:
            n.close()


def test_resume_reads_no_secrets_file_bigger_or_further_than_a_match_can_write(
        tmp_path: Path) -> None:
    cfg, ids = make_table(preset("classic", match_target=1), Seating.solo(2), ["ann", "bo"],
                          b"hostile24/secrets")
    store = Store.create(tmp_path / "data", cfg.header(), 0, port=0)
    store.close()
    secrets = store.path / "secrets.log"
    head = secrets.read_bytes()
    # a record of the last hand a match can reach is read; one past it is damage
    # (hand 400, the last an agreement may name, was refused: the second review)
    secrets.write_bytes(head + _secret_record(cfg.table_id, 400))
    Store.open(store.path, ids[0].public_key)[0].close()
    secrets.write_bytes(head + _secret_record(cfg.table_id, 401))
    with pytest.raises(StoreDamaged, match=r"\(secrets.log: record 2 names no hand\)"):
        Store.open(store.path, ids[0].public_key)                   # before: read
    # a file bigger than any match writes is not read
    one = _secret_record(cfg.table_id, 7)
    secrets.write_bytes(head + one * ((16 << 20) // len(one) + 1))
    with pytest.raises(StoreDamaged, match=r"\(secrets.log: too large \("):
        Store.open(store.path, ids[0].public_key)                   # before: read


def test_meeting_the_players_of_a_table_works_out_each_known_name_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import p2p.crypto.known as known_module

    path = tmp_path / "known_players"
    names = {"\ufdfa" * 60 + str(i): [bytes([i % 256]) * 32] for i in range(1000)}
    path.write_bytes(msgpack.packb(names, use_bin_type=True))
    known = KnownPlayers(path)
    assert known.problem is None and len(known.keys) == 1000
    worked = []
    real = known_module.shown_keys

    def counted(name: str) -> frozenset[tuple[str, str]]:
        worked.append(name)
        return real(name)

    monkeypatch.setattr(known_module, "shown_keys", counted)
    for seat in range(15):           # the other players of a table of 16
        assert known.meet(f"player{seat}", bytes([seat]) * 31 + b"\xff") is None
    assert len(worked) <= 1000 + 15, len(worked)                   # before: 15,015


def test_resume_refuses_a_stored_random_seed_the_seat_did_not_commit_to(
        played: Path, tmp_path: Path) -> None:  # noqa: F811 - the fixture
    """A real match's store, cut just after seat 0's ``game.rcommit`` (as a crash leaves
    it, before its reveal), and its secrets' last record written again with another
    random seed and a checksum that matches."""
    import hashlib
    import shutil

    from p2p.transcript.envelope import canonical_packb
    from p2p.transcript.file import read_transcript

    shutil.copytree(played, tmp_path / "g")
    ident = Identity.load_or_create(tmp_path / "g" / "s0.key")
    table = next(d for d in (tmp_path / "g" / "d0").iterdir() if d.is_dir())
    transcript = table / "transcript.mbt"
    t = read_transcript(transcript)
    mine = next(i for i, e in enumerate(t.entries)
                if e.author == ident.public_key and e.body.get("k") == "game.rcommit")
    transcript.write_bytes(transcript.read_bytes()[:t.offsets[mine + 1]])
    secrets = table / "secrets.log"
    kept = secrets.read_bytes()
    up = msgpack.Unpacker(raw=False, strict_map_key=False)
    up.feed(kept)
    records = [r for r in up if "hand" in r]
    last = {k: v for k, v in records[-1].items() if k != "sum"}
    # the cut store resumes as it is
    resume_peer(table, ident, node_factory=_local_node).close(flush=0)
    last["rand_seed"] = bytes(b ^ 1 for b in last["rand_seed"])
    last["sum"] = hashlib.sha256(b"millebornes/secrets/v2\0" + canonical_packb(last)).digest()[:16]
    secrets.write_bytes(kept + msgpack.packb(last, use_bin_type=True))
    with pytest.raises(StoreDamaged) as err:                        # before: resumed
        resume_peer(table, ident, node_factory=_local_node)
    line = error_line(err.value)
    assert ("(secrets.log: hand 1: its random seed is not the one this seat committed "
            "to): local damage, nobody cheated") in line, line


def test_resume_takes_no_remembered_identity_file_whose_name_holds_control_sequences(
        played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    import shutil

    from cli.main import main

    shutil.copytree(played, tmp_path / "g")
    data = tmp_path / "g" / "d0"
    table = next(d for d in data.iterdir() if d.is_dir())
    hostile = tmp_path / "id\x1b]0;pwned\x07\x1b[2J.key"
    shutil.copyfile(tmp_path / "g" / "s0.key", hostile)
    hostile.chmod(0o600)
    meta = table / "table.msgpack"
    m = msgpack.unpackb(meta.read_bytes(), raw=False, strict_map_key=False)
    m["extra"]["identity"] = str(hostile)
    meta.write_bytes(msgpack.packb(m, use_bin_type=True))
    main(["resume", "--data-dir", str(data), "--plain"])
    said = capsys.readouterr()
    assert "\x1b" not in said.out + said.err, said                 # before: the sequences
    # the same game remembered with a plain name says it, and resumes with it
    plain = tmp_path / "plain.key"
    shutil.copyfile(tmp_path / "g" / "s0.key", plain)
    plain.chmod(0o600)
    m["extra"]["identity"] = str(plain)
    meta.write_bytes(msgpack.packb(m, use_bin_type=True))
    assert main(["resume", "--data-dir", str(data), "--plain"]) == 0
    assert f"(with the identity key this game was played with: {plain})" in \
        capsys.readouterr().out


def test_a_full_known_players_file_makes_room_for_a_new_name_by_the_one_met_longest_ago(
        tmp_path: Path) -> None:
    """Once the file held 1,000 names no new one was stored: a new friend's changed key
    went unsaid for good, and a hostile host fills the file in some 67 tables of 16
    (hostile pass 24's "found, not changed"). The name met longest ago makes room; a
    friend met again is the most recent."""
    path = tmp_path / "known_players"
    names = {f"stranger{i}": [bytes([i % 256]) * 31 + b"\x01"] for i in range(1000)}
    path.write_bytes(msgpack.packb(names, use_bin_type=True))
    known = KnownPlayers(path)
    assert known.meet("stranger0", bytes([0]) * 31 + b"\x01") is None     # met again
    known.save_order()                          # (the order is written once a table)
    assert list(KnownPlayers(path).keys)[-1] == "stranger0"
    bob = bytes([7]) * 32
    assert known.meet("Bob", bob) is None
    again = KnownPlayers(path)
    assert len(again.keys) == 1000 and "Bob" in again.keys              # before: left out
    assert "stranger0" in again.keys and "stranger1" not in again.keys
    change = again.meet("Bob", bytes([8]) * 32)
    assert change is not None and change.known == (bob,), change
