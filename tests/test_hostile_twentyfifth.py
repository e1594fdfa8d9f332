"""Hostile pass 25: hostile transcripts handed to ``verify``, hostile files in the data
folder, a hostile seat's other addresses. Each test failed before its fix.

* a seat that stalls the table, its own step due, and signs a time-out claim about that
  very step (slot: its own seat and entry): ``verify`` read "INCOMPLETE ... unresponsive:
  nobody is blamed" — the stalling seat escaped as a seat nobody heard from, as if
  another seat had claimed it. The key that signs a seat's step in a hand never claims
  that step timed out; its claim counts for nothing now (the player a bot replaced still
  may: he follows the table as a spectator, as live peers take it). Without another
  seat's claim the transcript stops waiting for that seat, as any other stop.
* ``resume`` of a store cut where a crash leaves it, just before the seat's ``deck.key``
  (its secrets record written, the entry not), took the record's deck key unchecked: one
  edited to zero (its checksum made again) had the seat sign a deck key every peer names
  a cheat (``key-proof``: the honest player blamed, as for pass 24's random seed), and
  one past the group's order stopped ``resume`` with "GroupError: non-canonical scalar".
  A stored deck key must be a key (1 .. order - 1), else the copy is damaged, said so.
* a secrets record edited to say the seat revealed its hand key (checksum made again)
  while the hand was still being dealt: the resumed seat stopped at its next share,
  "this computer could not write its own step (no usable hand secret); the game is saved:
  millebornes resume continues it" (a resume stopped there again, and the others named
  the seat unresponsive). A share made after a reveal shows no more than the revealed
  key: the flag no longer stops one.
* ``resume`` checked the stored secrets against this seat's entries still in its stored
  transcript only: with the transcript damaged at its first entry (cut there, the
  entries fetched back from the others) and the secrets' shuffle seeds edited (checksums
  made again), the resumed seat took its own entries back, shuffled on, and revealed
  seeds that did not match its commitments: both peers named the honest player a cheat
  (``reveal-commitment``); with its deck key edited, the seat called "an unknown seat" a
  cheat (``card-not-in-deck``). Each entry of its own that comes back is checked against
  its secrets as the stored ones are: on a mismatch it stops, naming nobody
  (``secrets-lost``), as ``resume`` does with its stored entries.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgpack
import pytest
from test_store_damage import played  # noqa: F401 - a fixture
from test_store_torn_resume import waiting  # noqa: F401 - a fixture

from cli.words import error_line
from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import verify_game
from p2p.crypto.identity import Identity
from p2p.net.transport import Node
from p2p.table.memory import make_table, play_fair_match
from p2p.table.session import resume_peer
from p2p.table.store import StoreDamaged
from p2p.testing import seeded_entropy
from p2p.transcript.envelope import Envelope
from p2p.transcript.file import read_transcript


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real fair match of one hand at a table of two (modern rules): "ann" honest,
    "mal" keeps his copy and his key."""
    with seeded_entropy(b"hostile-25"):
        cfg, ids = make_table(preset("modern"), Seating(2, 2), ["ann", "mal"],
                              b"hostile-25")
        path = tmp_path_factory.mktemp("twentyfifth") / "match.mbt"
        play_fair_match(cfg, ids, [make_bot("heuristic", s).choose for s in range(2)],
                        transcript=path)
    return {"cfg": cfg, "ids": ids, "path": path, "t": read_transcript(path)}


def _write(path: Path, header: bytes, items: list[Envelope]) -> Path:
    with open(path, "wb") as f:
        f.write(header)
        for e in items:
            f.write(e.encode())
    return path


def _cut_where_due(t: Any, key: bytes) -> tuple[list[Envelope], int, int]:
    """The entries up to where ``key``'s seat's next entry is due (a move, mid-hand),
    the hand and how many entries that seat wrote in it."""
    g = list(t.entries)
    cut = next(k for k in range(len(g) // 2, len(g))
               if g[k].author == key and g[k].body.get("k") == "game.act")
    pre = g[:cut]
    h = pre[-1].hand
    return pre, h, sum(1 for e in pre if e.author == key and e.hand == h)


@pytest.mark.parametrize("who", ["mal", "ann and mal"])
def test_a_seats_claim_that_its_own_step_timed_out_does_not_hide_its_stall(
        tmp_path: Path, game: dict[str, Any], who: str) -> None:
    t = game["t"]
    ann, mal = game["ids"]
    pre, h, written = _cut_where_due(t, mal.public_key)

    def claim(by: Any) -> Envelope:
        return Envelope.create(by, t.header.table, h, 0, pre[-1].hash(), {
            "k": "side.timeout", "step": "game.act", "slot": [h, 1, written]})

    claims = [claim(mal)] if who == "mal" else [claim(ann), claim(mal)]
    rep = verify_game(_write(tmp_path / "claim.mbt", t.header_bytes, [*pre, *claims]))
    if who == "mal":
        # before: ("unresponsive", None): the staller's word that it was not heard from
        assert (rep.check, rep.blamed_seat) == ("incomplete", 1), rep.summary()
        assert rep.unresponsive is None
    else:                     # the other seat's claim stands: nobody blamed, as before
        assert (rep.check, rep.blamed_seat, rep.unresponsive) == ("unresponsive", None, 1)
        assert "seat(s) [0]" in rep.detail, rep.detail


def _local_node(nid: bytes, bind: str, port: int) -> Node:
    return Node(nid, bind="127.0.0.1")


@pytest.mark.parametrize("x", [bytes(32), b"\xff" * 32])
def test_resume_refuses_a_stored_deck_key_that_is_no_key(
        played: Path, tmp_path: Path, x: bytes) -> None:  # noqa: F811 - the fixture
    """A real match's store of seat 0, cut before its first entry (its ``deck.key``) and
    its secrets holding the hand's record as written just before that entry, with the
    deck key edited and the checksum made again."""
    import hashlib
    import shutil

    from p2p.transcript.envelope import canonical_packb
    from p2p.transcript.file import read_transcript

    shutil.copytree(played, tmp_path / "g")
    ident = Identity.load_or_create(tmp_path / "g" / "s0.key")
    table = next(d for d in (tmp_path / "g" / "d0").iterdir() if d.is_dir())
    transcript = table / "transcript.mbt"
    t = read_transcript(transcript)
    assert t.entries[0].author == ident.public_key and t.entries[0].body["k"] == "deck.key"
    transcript.write_bytes(transcript.read_bytes()[:t.offsets[0]])
    secrets = table / "secrets.log"
    up = msgpack.Unpacker(raw=False, strict_map_key=False)
    up.feed(secrets.read_bytes())
    head = next(iter(up))

    def written(key: bytes) -> None:
        rec: dict[str, Any] = {"hand": 0, "rand_seed": bytes(range(32)), "deck": {
            "seat": 0, "table": t.header.table, "hand": 0, "x": key, "seeds": {},
            "revealed": False}}
        rec["sum"] = hashlib.sha256(b"millebornes/secrets/v2\0"
                                    + canonical_packb(rec)).digest()[:16]
        secrets.write_bytes(msgpack.packb(head, use_bin_type=True)
                            + msgpack.packb(rec, use_bin_type=True))

    written(bytes([7]) + bytes(31))          # a key: the cut store resumes as it is
    resume_peer(table, ident, node_factory=_local_node).close(flush=0)
    transcript.write_bytes(transcript.read_bytes()[:t.offsets[0]])
    written(x)
    # before: resumed, its deck.key named a cheat by every peer (zero); GroupError (past L)
    with pytest.raises(StoreDamaged) as err:
        resume_peer(table, ident, node_factory=_local_node).close(flush=0)
    line = error_line(err.value)
    assert ("(secrets.log: record 2 (hand 1) has a deck key that is no key): local damage, "
            "nobody cheated") in line, line


def _records(path: Path) -> list[dict[str, Any]]:
    up = msgpack.Unpacker(raw=False, strict_map_key=False)
    up.feed(path.read_bytes())
    return list(up)


def test_a_stored_record_that_says_revealed_mid_hand_does_not_stop_the_seat(
        played: Path, tmp_path: Path) -> None:  # noqa: F811 - the fixture
    """A real match's store of seat 0, cut after its fourth share (its next entry is a
    share too), its last secrets record edited to say the hand key was revealed."""
    import hashlib
    import shutil

    from p2p.transcript.envelope import canonical_packb
    from p2p.transcript.file import read_transcript

    shutil.copytree(played, tmp_path / "g")
    ident = Identity.load_or_create(tmp_path / "g" / "s0.key")
    table = next(d for d in (tmp_path / "g" / "d0").iterdir() if d.is_dir())
    transcript = table / "transcript.mbt"
    t = read_transcript(transcript)
    shares = [i for i, e in enumerate(t.entries)
              if e.author == ident.public_key and e.body.get("k") == "deck.share"]
    cut = shares[3] + 1
    assert t.entries[cut].author == ident.public_key               # its next step
    transcript.write_bytes(transcript.read_bytes()[:t.offsets[cut]])
    secrets = table / "secrets.log"
    kept = secrets.read_bytes()
    last = {k: v for k, v in _records(secrets)[-1].items() if k != "sum"}
    last["deck"] = {**last["deck"], "revealed": True}
    last["sum"] = hashlib.sha256(b"millebornes/secrets/v2\0"
                                 + canonical_packb(last)).digest()[:16]
    secrets.write_bytes(kept + msgpack.packb(last, use_bin_type=True))
    peer = resume_peer(table, ident, node_factory=_local_node)
    try:
        for _ in range(20):
            peer.pump(0.01)
        # before: "this computer could not write its own step (no usable hand secret)"
        assert peer.rlog.stopped is None, peer.rlog.stopped
        assert len(peer.rlog.log[0]) > cut                          # it wrote its share
    finally:
        peer.close(flush=0)


@pytest.mark.parametrize("edit", ["seeds", "x"])
def test_entries_fetched_back_after_local_damage_are_checked_against_the_secrets(
        waiting: tuple[Path, Any, list[Identity]], tmp_path: Path,  # noqa: F811
        edit: str) -> None:
    """A real two-seat match left at seat 0's move (tests/test_store_torn_resume.py); seat
    0's transcript damaged at its first entry, its secrets records edited."""
    import hashlib
    import os
    import shutil

    from test_store_torn_resume import FAST, _pump

    from engine.bots import make_bot
    from p2p.transcript.envelope import canonical_packb
    from p2p.transcript.file import read_transcript

    base, cfg, ids = waiting
    tables = []
    for s in range(2):
        shutil.copytree(base / f"seat{s}", tmp_path / f"seat{s}")
        tables.append(tmp_path / f"seat{s}" / cfg.table_id.hex())
    transcript = tables[0] / "transcript.mbt"
    t = read_transcript(transcript)
    transcript.write_bytes(transcript.read_bytes()[:t.offsets[0]] + os.urandom(200))
    secrets = tables[0] / "secrets.log"
    records = _records(secrets)
    for r in records[1:]:
        r.pop("sum")
        r["deck"] = dict(r["deck"])
        if edit == "seeds":
            r["deck"]["seeds"] = {k: bytes(32) for k in r["deck"].get("seeds", {})}
        else:
            r["deck"]["x"] = bytes([5]) + bytes(31)
        r["sum"] = hashlib.sha256(b"millebornes/secrets/v2\0" + canonical_packb(r)).digest()[:16]
    secrets.write_bytes(b"".join(msgpack.packb(r, use_bin_type=True) for r in records))
    peers = [resume_peer(tables[s], ids[s], controller=make_bot("heuristic", 21 + s),
                         options=FAST) for s in range(2)]
    try:
        assert peers[0].rlog.catching_up
        _pump(peers, lambda: peers[0].stopped is not None or peers[1].stopped is not None
              or peers[0].rlog.finished, 20)
        # before: both named seat 0 a cheat (reveal-commitment, the seeds), or seat 0
        # "an unknown seat" (card-not-in-deck, its deck key)
        assert peers[0].rlog.error is None and peers[1].rlog.error is None, \
            (peers[0].stopped, peers[1].stopped)
        why = peers[0].rlog.stop_why
        assert why is not None and why["id"] == "secrets-lost", peers[0].stopped
        assert not peers[0].rlog.resumable
        # said in the player's words, naming nobody (the console had only the log's
        # English sentence for this stop)
        from cli import i18n
        from cli.words import stop_reason
        with i18n.using("fr"):
            said = stop_reason(why, ["Ann", "Bo"], "FALLBACK")
        assert said != "FALLBACK" and "secrets.log" in said and "Ann" not in said, said
    finally:
        for p in peers:
            p.close(flush=0)


@pytest.mark.parametrize("by", ["replaced", "bot", "other"])
def test_a_replaced_players_claim_about_the_bots_step_still_counts(
        tmp_path: Path, by: str) -> None:
    """The exception of the own-claim rule (the second review found it untested): the
    player a bot replaced may claim about the bot's step (no longer their own), and so may
    another seat; the bot's own claim about itself counts for nothing."""
    from test_hostile_fourteenth import _taken_over
    from test_replicated_log import _transcript
    from test_takeover import BOT_SEED

    t, away = _taken_over(b"hostile-25-replaced-claim")
    folder = tmp_path / "x"
    folder.mkdir()
    tr = read_transcript(_transcript(folder, t, 0))
    bot = Identity.from_seed(BOT_SEED)
    entries = list(tr.entries)
    cut = max(k for k in range(len(entries))
              if entries[k].author == bot.public_key and entries[k].hand == 1)
    before = entries[:cut]
    written = sum(1 for e in before if e.author == bot.public_key and e.hand == 1)
    who = {"replaced": away, "bot": bot, "other": t.seats[1].rlog.identity}[by]
    claim = Envelope.create(who, tr.header.table, 1, 0, before[-1].hash(), {
        "k": "side.timeout", "step": "deck.share", "slot": [1, 2, written]})
    out = tmp_path / "cut.mbt"
    with open(out, "wb") as f:
        f.write(tr.header_bytes)
        for e in before:
            f.write(e.encode())
        for e in tr.side:
            f.write(e.encode())
        f.write(claim.encode())
    report = verify_game(out)
    assert report.waiting_for == 2, report.summary()
    if by == "bot":
        assert (report.check, report.unresponsive) == ("incomplete", None), report.summary()
    else:
        assert (report.check, report.blamed_seat, report.unresponsive) \
            == ("unresponsive", None, 2), report.summary()
