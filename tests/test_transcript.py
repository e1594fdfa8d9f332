"""Transcript files: writer/reader, corruption reporting and verify_crypto."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import within as _within

from p2p.crypto.identity import Identity
from p2p.deck.memory import DeckTable
from p2p.deck.messages import CheatDetected, DeckMessage, SecretReveal, ShufflePass
from p2p.transcript.envelope import Envelope
from p2p.transcript.file import (
    TRANSCRIPT_VERSION,
    LogRecorder,
    Player,
    Transcript,
    TranscriptCorrupt,
    TranscriptHeader,
    TranscriptWriter,
    cut_aside,
    iter_transcript,
    read_transcript,
    verify_crypto,
)

CARDS = tuple(range(24))


def _header(n: int) -> tuple[list[Identity], TranscriptHeader]:
    ids = [Identity.from_seed(bytes([i])) for i in range(n)]
    players = tuple(Player(i, f"player{i}", x.public_key) for i, x in enumerate(ids))
    return ids, TranscriptHeader(b"table-x", {"preset": "modern", "target": 1000}, players, CARDS)


def _play_hand(rec: LogRecorder, n: int, hand: int,
               tamper: Callable[[DeckMessage], DeckMessage] | None = None,
               withhold: tuple[int, ...] = ()) -> None:
    rec.start_hand(hand)
    t = DeckTable(n, CARDS, rec.header.table, hand, observer=False, tamper=tamper,
                  sink=rec.record_deck)
    try:
        t.setup()
    except CheatDetected as exc:
        if exc.check != "shuffle-proof":
            raise
        return  # a pass that fails its proof stops the hand before the deal
    try:
        for pos in range(3 * n):
            t.deal(pos, pos % n)
        rec.record(0, {"k": "game.play", "pos": 0, "target": None})
        t.play(0, 0)
        t.reveal(3 * n)
    except CheatDetected as exc:
        if exc.seat is not None:
            raise
        # a card seen twice: nobody to blame yet, so straight to the reveals (which will)
    try:
        t.finish(withhold=withhold)
    except CheatDetected:
        pass  # the in-memory peers notice too; the transcript is what we test


def _write(tmp_path: Path, n: int = 2, hands: int = 1, **kw: object) -> Path:
    ids, hdr = _header(n)
    path = tmp_path / "game.mbt"
    with TranscriptWriter(path, hdr) as w:
        rec = LogRecorder(ids, hdr, w)
        for h in range(1, hands + 1):
            _play_hand(rec, n, h, **kw)  # type: ignore[arg-type]
    return path


def test_honest_transcript_verifies(tmp_path: Path) -> None:
    path = _write(tmp_path, n=3, hands=2)
    rep = verify_crypto(path)
    assert rep.ok, rep.summary()
    assert set(rep.hands) == {1, 2}
    assert [e.body["k"] for e in rep.game_bodies] == ["game.play", "game.play"]
    assert rep.entries_checked == len(read_transcript(path).entries)
    res = rep.hands[1]
    assert sorted(res.decks[0]) == list(CARDS)
    assert res.public[0][0] == res.decks[0][0]
    items = list(iter_transcript(path))
    assert isinstance(items[0][1], TranscriptHeader) and items[0][0] == 0
    assert all(isinstance(x, Envelope) for _, x in items[1:])


def test_truncated_file_reports_offset(tmp_path: Path) -> None:
    path = _write(tmp_path)
    t = read_transcript(path)
    data = path.read_bytes()
    path.write_bytes(data[:-5])
    with pytest.raises(TranscriptCorrupt) as e:
        read_transcript(path)
    assert e.value.offset == t.offsets[-1]
    rep = verify_crypto(path)
    assert not rep.ok and rep.check == "file-corrupt" and rep.offset == t.offsets[-1]


@pytest.mark.slow    # 7.5 s: every byte of a transcript flipped (the default run's 10-minute budget)
def test_flipped_byte_anywhere_is_detected(tmp_path: Path) -> None:
    path = _write(tmp_path)
    data = path.read_bytes()
    bad = tmp_path / "bad.mbt"
    offsets = sorted(set(range(0, len(data), max(1, len(data) // 150)))
                     | set(range(0, 200)) | set(range(len(data) - 100, len(data))))
    for off in offsets:
        for bit in (0, 7):
            b = bytearray(data)
            b[off] ^= 1 << bit
            bad.write_bytes(bytes(b))
            rep = verify_crypto(bad)
            assert not rep.ok, f"flip of bit {bit} at byte {off} went unnoticed"


def test_cheating_shuffle_blamed_with_entry_index(tmp_path: Path) -> None:
    def cheat(m: DeckMessage) -> DeckMessage:
        if isinstance(m, ShufflePass) and m.seat == 1:
            return dataclasses.replace(m, deck=(m.deck[2],) + m.deck[1:])
        return m

    path = _write(tmp_path, n=3, tamper=cheat)
    rep = verify_crypto(path)
    assert not rep.ok and rep.check == "shuffle-proof" and rep.blamed_seat == 1
    t = read_transcript(path)
    assert rep.failed_index is not None
    assert t.entries[rep.failed_index].body["k"] == "deck.pass"
    assert t.entries[rep.failed_index].author == t.header.players[1].key


def test_withheld_reveal_named(tmp_path: Path) -> None:
    rep = verify_crypto(_write(tmp_path, n=3, withhold=(2,)))
    assert not rep.ok and rep.check == "reveal-missing" and rep.blamed_seat == 2


def test_reveal_mismatch_named(tmp_path: Path) -> None:
    def cheat(m: DeckMessage) -> DeckMessage:
        if isinstance(m, SecretReveal) and m.seat == 0:
            return dataclasses.replace(m, seeds=(bytes(32),))
        return m

    rep = verify_crypto(_write(tmp_path, n=2, tamper=cheat))
    assert not rep.ok and rep.check == "reveal-commitment" and rep.blamed_seat == 0


def _rewrite(tmp_path: Path, t: Transcript, entries: list[Envelope]) -> Path:
    path = tmp_path / f"edited{len(list(tmp_path.iterdir()))}.mbt"
    with TranscriptWriter(path, t.header) as w:
        for e in entries:
            w.append(e)
    return path


def test_equivocation_and_replay_in_transcript(tmp_path: Path) -> None:
    t = read_transcript(_write(tmp_path, n=2, hands=2))
    ids, _ = _header(2)
    first = t.entries[0]
    other = Envelope.create(ids[0], first.table, first.hand, first.seq, first.prev,
                            {"k": "game.chat", "text": "hi"})
    rep = verify_crypto(_rewrite(tmp_path, t, [first, other] + t.entries[1:]))
    assert not rep.ok and rep.check == "equivocation" and rep.blamed_seat == 0
    assert rep.failed_index == 1
    # an entry of hand 1 replayed during hand 2
    h2 = next(i for i, e in enumerate(t.entries) if e.hand == 2)
    rep = verify_crypto(_rewrite(tmp_path, t, t.entries[:h2 + 1] + [t.entries[3]]
                                 + t.entries[h2 + 1:]))
    assert not rep.ok and rep.check == "hand-order" and rep.failed_index == h2 + 1
    # an entry replayed inside its own hand
    rep = verify_crypto(_rewrite(tmp_path, t, t.entries[:5] + [t.entries[2]] + t.entries[5:]))
    assert not rep.ok and rep.check == "duplicate" and rep.failed_index == 5


def test_entry_from_another_table_rejected(tmp_path: Path) -> None:
    t = read_transcript(_write(tmp_path, n=2))
    ids, _ = _header(2)
    e = t.entries[0]
    foreign = Envelope.create(ids[1], b"table-y", e.hand, 0, e.prev, {"k": "game.chat"})
    rep = verify_crypto(_rewrite(tmp_path, t, [e, foreign] + t.entries[1:]))
    # seat 1 signed it for table-y: spliced in here by whoever wrote the file
    assert not rep.ok and rep.check == "wrong-table" and rep.blamed_seat is None


def test_writer_refuses_to_overwrite(tmp_path: Path) -> None:
    path = _write(tmp_path)
    with pytest.raises(FileExistsError):
        TranscriptWriter(path, read_transcript(path).header)


def test_resume_after_torn_write(tmp_path: Path) -> None:
    path = _write(tmp_path)
    full = read_transcript(path)
    data = path.read_bytes()
    path.write_bytes(data[:-7])  # the last entry was being written when the peer died
    w, t, cut = TranscriptWriter.resume(path)
    assert cut == len(data) - full.offsets[-1] - 7
    assert t.entries == full.entries[:-1]
    w.append(full.entries[-1])
    w.close()
    assert path.read_bytes() == data
    assert verify_crypto(path).ok
    # corruption that is not a torn tail is never "repaired"
    assert (tmp_path / "game.mbt.torn").read_bytes() == data[full.offsets[-1]:-7]
    b = bytearray(data)
    b[full.offsets[1]] = 0xC1  # never used in msgpack
    path.write_bytes(bytes(b))
    with pytest.raises(TranscriptCorrupt):
        TranscriptWriter.resume(path)


def test_a_second_repair_keeps_what_the_first_set_aside(tmp_path: Path) -> None:
    """cut_aside wrote ``<path>.torn`` over an earlier one: what the first repair had
    set aside was lost. Each one is kept now, numbered."""
    path = _write(tmp_path)
    full = read_transcript(path)
    data = path.read_bytes()
    path.write_bytes(data[:-7])                       # a torn last entry
    w, _t, _cut = TranscriptWriter.resume(path)
    w.close()
    first = data[full.offsets[-1]:-7]
    assert (tmp_path / "game.mbt.torn").read_bytes() == first
    path.write_bytes(data[:-11])                      # torn again, differently
    w, _t, _cut = TranscriptWriter.resume(path)
    w.close()
    assert (tmp_path / "game.mbt.torn").read_bytes() == first
    assert (tmp_path / "game.mbt.torn.2").read_bytes() == data[full.offsets[-1]:-11]
    assert cut_aside(path, full.offsets[-2], ".torn") == tmp_path / "game.mbt.torn.3"
    assert (tmp_path / "game.mbt.torn.3").read_bytes() == data[full.offsets[-2]:full.offsets[-1]]
    assert path.read_bytes() == data[:full.offsets[-2]]


def test_the_reader_streams_the_file(tmp_path: Path) -> None:
    """The whole file was read into memory (a 3 GB file took 6 GB): the reader holds one
    object's bytes at a time, and stops at the first bad one."""
    import tracemalloc
    path = _write(tmp_path)
    good = path.stat().st_size
    os.truncate(path, good + (48 << 20))              # 48 MB of zeros after the game (sparse)
    tracemalloc.start()
    try:
        with pytest.raises(TranscriptCorrupt) as e:
            read_transcript(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert e.value.offset == good and "bad entry" in e.value.reason
    assert peak < (8 << 20), peak


def test_a_file_bigger_than_any_transcript_is_refused_unread(tmp_path: Path) -> None:
    from p2p.transcript.file import MAX_TRANSCRIPT_BYTES, TranscriptUnreadable
    path = _write(tmp_path)
    good = path.stat().st_size
    os.truncate(path, MAX_TRANSCRIPT_BYTES + 1)        # sparse: nothing is written
    with pytest.raises(TranscriptUnreadable) as e:
        read_transcript(path)
    assert e.value.what_id == "too-large" and e.value.size == MAX_TRANSCRIPT_BYTES + 1
    rep = verify_crypto(path)
    assert not rep.ok and rep.check == "file-too-large"
    assert rep.file_size == MAX_TRANSCRIPT_BYTES + 1 and rep.offset is None
    os.truncate(path, good)
    assert verify_crypto(path).ok


def test_a_named_pipe_is_refused_without_waiting(tmp_path: Path) -> None:
    """A named pipe in place of a transcript was opened and read: it waited forever."""
    path = tmp_path / "game.mbt"
    os.mkfifo(path)
    with _within(5):
        with pytest.raises(TranscriptCorrupt) as e:
            read_transcript(path)
        assert getattr(e.value, "what_id", None) == "not-regular"
        assert "named pipe" in e.value.reason
        rep = verify_crypto(path)
    assert not rep.ok and rep.check == "file-unreadable" and "named pipe" in rep.detail


@pytest.mark.parametrize("version", [TRANSCRIPT_VERSION - 1, TRANSCRIPT_VERSION + 1])
def test_another_versions_transcript_names_its_version(tmp_path: Path, version: int) -> None:
    path = _write(tmp_path)
    t = read_transcript(path)
    other = dataclasses.replace(t.header, version=version)
    path.write_bytes(other.to_bytes() + b"".join(e.encode() for e in t.entries))
    rep = verify_crypto(path)
    assert rep.check == "unsupported-version" and rep.version == version
