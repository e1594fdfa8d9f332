"""`resume` from a damaged copy of a game (issue 9, findings 10 and 11): table.msgpack,
secrets.log or the transcript flipped, truncated, emptied, replaced by a folder or given
wrong types.  Each is one plain sentence naming the file and saying what to do, as local
damage (never as this seat cheating), with a non-zero exit and no traceback; an entry
damaged in the middle of the transcript is cut off and fetched again from the others.
Real files from a real match over 127.0.0.1, and the real `millebornes resume` CLI."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import msgpack
import pytest
from cli_helpers import within as _within

from engine import Seating, preset
from engine.bots import make_bot
from p2p.crypto.identity import Identity
from p2p.net.transport import Node
from p2p.table.config import TableConfig
from p2p.table.session import Peer, SessionOptions, node_id_for, resume_peer
from p2p.table.store import Store, StoreDamaged, load_secrets, read_secrets
from p2p.testing import run_peers
from p2p.transcript.file import Player, read_transcript

ROOT = Path(__file__).resolve().parent.parent
FAST = SessionOptions(response_delay=0.01, stall_after=0.3)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished two-seat match: ``s0.key``, ``s1.key`` and each seat's data folder
    ``d0``, ``d1`` (one table folder in each)."""
    base = tmp_path_factory.mktemp("played")
    ids = [Identity.load_or_create(base / f"s{s}.key") for s in range(2)]
    cfg = TableConfig(preset("classic", match_target=1), Seating.solo(2),
                      tuple(Player(s, f"p{s}", ids[s].public_key) for s in range(2)),
                      os.urandom(16))
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    eps = {s: nodes[s].endpoint for s in range(2)}
    peers = [Peer(ids[s], cfg, nodes[s], controller=make_bot("heuristic", 11 + s),
                  endpoints=eps, options=FAST,
                  store=Store.create(base / f"d{s}", cfg.header(), s, port=0, endpoints=eps))
             for s in range(2)]
    assert run_peers(peers, 60, flush=0.5) == [True, True]
    return base


def _pack(v: object) -> bytes:
    out = msgpack.packb(v, use_bin_type=True)
    assert isinstance(out, bytes)
    return out


def _meta(change: Callable[[dict[str, object]], None]) -> Callable[[Path], None]:
    def go(p: Path) -> None:
        m = msgpack.unpackb(p.read_bytes(), raw=False, strict_map_key=False)
        change(m)
        p.write_bytes(_pack(m))
    return go


def _flip(at: float) -> Callable[[Path], None]:
    def go(p: Path) -> None:
        b = bytearray(p.read_bytes())
        b[int(len(b) * at)] ^= 0x55
        p.write_bytes(bytes(b))
    return go


def _flip_byte(at: int) -> Callable[[Path], None]:
    """Flip byte ``at`` (a place in the file's fixed-size start, whatever the deal)."""
    def go(p: Path) -> None:
        b = bytearray(p.read_bytes())
        b[at] ^= 0x55
        p.write_bytes(bytes(b))
    return go


def _truncate(keep: float | int) -> Callable[[Path], None]:
    def go(p: Path) -> None:
        b = p.read_bytes()
        p.write_bytes(b[:keep if isinstance(keep, int) else int(len(b) * keep)])
    return go


def _empty(p: Path) -> None:
    p.write_bytes(b"")


def _missing(p: Path) -> None:
    p.unlink()


def _folder(p: Path) -> None:
    p.unlink()
    p.mkdir()


def _fifo(p: Path) -> None:
    """A named pipe in the file's place: reading it waited forever."""
    p.unlink()
    os.mkfifo(p)


def _junk_after(p: Path) -> None:
    p.write_bytes(p.read_bytes() + b"\xc1\xc1 junk")


def _entry(k: int, how: str) -> Callable[[Path], None]:
    """Damage the ``k``-th entry: ``sig`` flips a byte of its signature (it still
    decodes), ``byte`` makes its first byte undecodable."""
    def go(p: Path) -> None:
        t = read_transcript(p)
        start = t.offsets[k]
        end = t.offsets[k + 1]
        b = bytearray(p.read_bytes())
        if how == "sig":
            b[end - 3] ^= 0x01
        else:
            b[start] = 0xC1
        p.write_bytes(bytes(b))
    return go


def _own_key_changed(p: Path) -> None:
    """Flip a byte inside the deck key that seat 0's first ``deck.key`` entry published: the
    entry still decodes, its signature fails, and its key no longer matches secrets.log."""
    t = read_transcript(p)
    mine = t.header.players[0].key
    k = next(i for i, e in enumerate(t.entries)
             if e.author == mine and e.body.get("k") == "deck.key")
    b = bytearray(p.read_bytes())
    at = b.index(t.entries[k].body["h"], t.offsets[k], t.offsets[k + 1]) + 10
    b[at] ^= 0x01
    p.write_bytes(bytes(b))


def _secrets_seeds(change: Callable[[dict[str, bytes]], None],
                   summed: bool = True) -> Callable[[Path], None]:
    """A last record for the last hand again, its deck seeds changed by ``change``, under
    a checksum that matches (as a program that edits the file writes it); ``summed=False``:
    the file as an older version wrote it, without its head and checksums."""
    def go(p: Path) -> None:
        import hashlib

        from p2p.transcript.envelope import canonical_packb
        up = msgpack.Unpacker(raw=False, strict_map_key=False)
        up.feed(p.read_bytes())
        records = [r for r in up if "hand" in r]
        last = {k: v for k, v in records[-1].items() if k != "sum"}
        deck = dict(last["deck"])
        deck["seeds"] = dict(deck.get("seeds", {}))
        change(deck["seeds"])
        last["deck"] = deck
        if summed:
            last["sum"] = hashlib.sha256(b"millebornes/secrets/v2\0"
                                         + canonical_packb(last)).digest()[:16]
            p.write_bytes(p.read_bytes() + _pack(last))
        else:
            p.write_bytes(b"".join(_pack({k: v for k, v in r.items() if k != "sum"})
                                   for r in records + [last]))
    return go


def _other_seed(seeds: dict[str, bytes]) -> None:
    seeds["0"] = bytes(b ^ 1 for b in seeds["0"])


META, TRANSCRIPT, SECRETS = "table.msgpack", "transcript.mbt", "secrets.log"

#: name -> (file, damage, the file named in the sentence; None: repaired from the peers)
CASES: dict[str, tuple[str, Callable[[Path], None], str | None]] = {
    "meta-missing": (META, _missing, META),
    "meta-empty": (META, _empty, META),
    "meta-truncated": (META, _truncate(0.5), META),
    "meta-flipped": (META, _flip(0.5), META),
    "meta-folder": (META, _folder, META),
    "meta-fifo": (META, _fifo, META),
    "meta-junk": (META, lambda p: p.write_bytes(b"\xc1" * 40), META),
    "meta-a-list": (META, lambda p: p.write_bytes(_pack([1, 2])), META),
    "meta-seat-text": (META, _meta(lambda m: m.update(seat="x")), META),
    "meta-seat-huge": (META, _meta(lambda m: m.update(seat=7)), META),
    "meta-seat-other": (META, _meta(lambda m: m.update(seat=1)), META),
    "meta-seat-bool": (META, _meta(lambda m: m.update(seat=True)), META),
    "meta-port-text": (META, _meta(lambda m: m.update(port="x")), META),
    "meta-port-huge": (META, _meta(lambda m: m.update(port=10 ** 6)), META),
    "meta-bind-int": (META, _meta(lambda m: m.update(bind=5)), META),
    "meta-bind-spaces": (META, _meta(lambda m: m.update(bind="a b c")), META),
    "meta-endpoints-list": (META, _meta(lambda m: m.update(endpoints=[1, 2])), META),
    "meta-endpoints-keys": (META, _meta(lambda m: m.update(endpoints={"x": 3})), META),
    "meta-extra-list": (META, _meta(lambda m: m.update(extra=[1])), META),
    "meta-header-int": (META, _meta(lambda m: m.update(header=5)), META),
    "meta-header-other": (META, _meta(lambda m: m.update(header=b"junk")), META),
    "transcript-missing": (TRANSCRIPT, _missing, TRANSCRIPT),
    "transcript-empty": (TRANSCRIPT, _empty, TRANSCRIPT),
    "transcript-folder": (TRANSCRIPT, _folder, TRANSCRIPT),
    "transcript-fifo": (TRANSCRIPT, _fifo, TRANSCRIPT),
    "transcript-header-cut": (TRANSCRIPT, _truncate(100), TRANSCRIPT),
    # the middle of the ~600-byte header (0.2% of the file was there only while the
    # random deal kept the match under 300 KB: a tie replays the hand)
    "transcript-header-flipped": (TRANSCRIPT, _flip_byte(300), TRANSCRIPT),
    "transcript-entry-signature": (TRANSCRIPT, _entry(5, "sig"), None),
    "transcript-entry-undecodable": (TRANSCRIPT, _entry(5, "byte"), None),
    "transcript-junk-after": (TRANSCRIPT, _junk_after, None),
    # damage in our own published key is the transcript's, not lost secrets: repaired
    "transcript-own-deck-key-changed": (TRANSCRIPT, _own_key_changed, None),
    "secrets-missing": (SECRETS, _missing, SECRETS),
    "secrets-empty": (SECRETS, _empty, SECRETS),
    "secrets-folder": (SECRETS, _folder, SECRETS),
    "secrets-fifo": (SECRETS, _fifo, SECRETS),
    "secrets-flipped": (SECRETS, _flip(0.5), SECRETS),
    "secrets-flipped-early": (SECRETS, _flip(0.2), SECRETS),
    "secrets-junk": (SECRETS, _junk_after, SECRETS),
    "secrets-a-list": (SECRETS, lambda p: p.write_bytes(_pack([1, 2, 3])), SECRETS),
    "secrets-wrong-types": (SECRETS, lambda p: p.write_bytes(
        _pack({"hand": 0, "deck": "x", "rand_seed": 5})), SECRETS),
    "secrets-huge-hand": (SECRETS, lambda p: p.write_bytes(
        _pack({"hand": 2 ** 40, "deck": {}, "rand_seed": b"x" * 32})), SECRETS),
    # an edited file (its checksums made again): resume said only "invalid literal for
    # int() with base 10: '²'", or that 5,000 digits exceed int()'s limit
    "secrets-round-not-a-number": (SECRETS, _secrets_seeds(
        lambda seeds: seeds.update({"²": b"x" * 32})), SECRETS),
    "secrets-round-5000-digits": (SECRETS, _secrets_seeds(
        lambda seeds: seeds.update({"9" * 5000: b"x" * 32})), SECRETS),
    # a seed that is not the one committed to (edited, or flipped in a file of an older
    # version, which has no checksums): the seat resumed, and its reveal at the hand's
    # end would have named it a cheat
    "secrets-seed-changed": (SECRETS, _secrets_seeds(_other_seed), SECRETS),
    "secrets-seed-changed-old-format": (SECRETS, _secrets_seeds(_other_seed, summed=False),
                                        SECRETS),
}


def _damaged_copy(played: Path, tmp: Path, name: str) -> tuple[Path, Path]:
    """A copy of seat 0's data folder with one damage; (data folder, table folder)."""
    shutil.copytree(played, tmp / "g")
    data = tmp / "g" / "d0"
    table = next(d for d in data.iterdir() if d.is_dir())
    file, damage, _ = CASES[name]
    damage(table / file)
    return data, table


def _local_node(nid: bytes, bind: str, port: int) -> Node:
    return Node(nid, bind="127.0.0.1")


@pytest.mark.parametrize("name", list(CASES))
def test_resume_from_a_damaged_copy_says_so_in_one_line(played: Path, tmp_path: Path,
                                                        name: str) -> None:
    data, table = _damaged_copy(played, tmp_path, name)
    named = CASES[name][2]
    ident = Identity.load_or_create(tmp_path / "g" / "s0.key")
    if named is not None:
        with _within(10), pytest.raises(StoreDamaged) as err:
            resume_peer(table, ident, node_factory=_local_node)
        text = str(err.value)
        assert "\n" not in text and f"({named}:" in text
        assert text.startswith(f"this computer's copy of game {table.name[:8]} is damaged")
        assert "local damage, nobody cheated" in text and "seat 0" not in text
        return
    # damage inside the log: the good part is replayed, the rest fetched from the others
    peer = resume_peer(table, ident, node_factory=_local_node, options=FAST)
    try:
        assert peer.local_damage is not None
        assert peer.rlog.catching_up                  # writes nothing before a peer answers
        assert peer.stopped is None
        assert peer.finished == (name == "transcript-junk-after")   # nothing lost there
        assert not [e for e in peer.drain_events() if e.kind == "stopped"]
    finally:
        peer.close(flush=0)


def test_a_header_whose_rules_this_engine_refuses_is_said_in_the_players_language(
        played: Path, tmp_path: Path) -> None:
    """A copy whose transcript header carries rules the engine refuses (here a yes/no
    option written as text): the damage names the option and value, and a console says
    why in the player's language, not in the engine's English sentence."""
    import dataclasses

    from cli import i18n
    from cli.words import store_damaged_line
    from p2p.transcript.file import TranscriptWriter

    shutil.copytree(played, tmp_path / "g")
    table = next(d for d in (tmp_path / "g" / "d0").iterdir() if d.is_dir())
    header = read_transcript(table / TRANSCRIPT).header
    meta = dict(header.rules)
    meta["rules"] = {**meta["rules"], "fast_play": "yes"}
    (table / TRANSCRIPT).unlink()
    TranscriptWriter(table / TRANSCRIPT, dataclasses.replace(header, rules=meta)).close()
    ident = Identity.load_or_create(tmp_path / "g" / "s0.key")
    with pytest.raises(StoreDamaged) as err:
        resume_peer(table, ident, node_factory=_local_node)
    exc = err.value
    assert exc.what_id == "rules" and exc.rule_fault is not None
    assert exc.rule_fault[0] == "not-bool" and exc.rule_fault[1]["option"] == "fast_play"
    with i18n.using("en"):
        english = store_damaged_line(exc)
    assert "fast_play" in english and "'yes'" in english
    with i18n.using("fr"):
        french = store_damaged_line(exc)
    assert "fast_play" in french and "'yes'" in french
    assert "must be yes or no" not in french and "transcript header" not in french
    assert "la copie de la partie" in french and "ses règles ne peuvent pas être jouées" in french


def test_old_secrets_files_without_checksums_stay_readable(played: Path, tmp_path: Path) -> None:
    """A secrets.log written before records carried a checksum resumes as before."""
    shutil.copytree(played, tmp_path / "g")
    table = next(d for d in (tmp_path / "g" / "d0").iterdir() if d.is_dir())
    recs = read_secrets(table)
    assert recs
    (table / SECRETS).write_bytes(b"".join(_pack(r) for r in recs.values()))   # old format
    peer = resume_peer(table, Identity.load_or_create(tmp_path / "g" / "s0.key"),
                       node_factory=_local_node)
    try:
        assert peer.finished and peer.local_damage is None
    finally:
        peer.close(flush=0)


@pytest.mark.parametrize("name", ["meta-seat-text", "meta-endpoints-list", "meta-folder",
                                  "transcript-folder", "secrets-missing", "secrets-flipped"])
def test_the_resume_verb_on_a_damaged_copy(played: Path, tmp_path: Path, name: str) -> None:
    data, table = _damaged_copy(played, tmp_path, name)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "cli", "resume", "--plain", "--data-dir",
                        str(data), "--identity", str(tmp_path / "g" / "s0.key")], input="",
                       capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"millebornes resume: this computer's copy of game "
                               f"{table.name[:8]} is damaged ({CASES[name][2]}:")
    assert "local damage" in lines[0] and "Traceback" not in r.stderr
    assert "unexpected error" not in r.stderr


def test_no_flipped_byte_in_secrets_is_ever_used(played: Path, tmp_path: Path) -> None:
    """Every single-byte change anywhere in secrets.log is refused as damage when the
    store is opened (a flipped length that makes the last record look torn included: the
    older record of that hand left standing does not cover what this seat published), so
    no changed key is ever used to sign shares this seat would be blamed for."""
    shutil.copytree(played, tmp_path / "g")
    table = next(d for d in (tmp_path / "g" / "d0").iterdir() if d.is_dir())
    raw = (table / SECRETS).read_bytes()
    transcript = read_transcript(table / TRANSCRIPT)
    assert load_secrets(table, transcript, 0)    # the intact copy is accepted
    for i in range(len(raw)):
        for mask in (0x01, 0x80):
            b = bytearray(raw)
            b[i] ^= mask
            (table / SECRETS).write_bytes(bytes(b))
            with pytest.raises(StoreDamaged, match="secrets.log"):
                load_secrets(table, transcript, 0)


def test_a_transcript_too_large_is_refused_before_it_is_read(
        played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store allowed a 1 TB transcript and read it whole: one bigger than any game
    writes is damage now, said before a byte is read (the limit is made small here)."""
    from p2p.table import store
    from p2p.transcript import file
    data, table = _damaged_copy(played, tmp_path, "transcript-junk-after")
    size = (table / TRANSCRIPT).stat().st_size
    monkeypatch.setattr(store, "MAX_TRANSCRIPT_BYTES", size - 1)
    monkeypatch.setattr(file, "MAX_TRANSCRIPT_BYTES", size - 1)
    with pytest.raises(StoreDamaged) as err:
        resume_peer(table, Identity.load_or_create(tmp_path / "g" / "s0.key"),
                    node_factory=_local_node)
    assert err.value.what_id == "too-large" and err.value.size == size
    assert f"({TRANSCRIPT}: too large ({size} bytes))" in str(err.value)
    assert not (table / (TRANSCRIPT + ".damaged")).exists()       # nothing was cut


def test_a_second_repair_keeps_what_the_first_kept_aside(played: Path, tmp_path: Path) -> None:
    """cut_aside wrote transcript.mbt.damaged over the one an earlier repair had kept."""
    data, table = _damaged_copy(played, tmp_path, "transcript-junk-after")
    ident = Identity.load_or_create(tmp_path / "g" / "s0.key")
    for _ in range(2):
        peer = resume_peer(table, ident, node_factory=_local_node, options=FAST)
        assert peer.local_damage is not None
        peer.close(flush=0)
        _junk_after(table / TRANSCRIPT)
    peer = resume_peer(table, ident, node_factory=_local_node, options=FAST)
    peer.close(flush=0)
    kept = [table / (TRANSCRIPT + s) for s in (".damaged", ".damaged.2", ".damaged.3")]
    assert [p.read_bytes() for p in kept] == [b"\xc1\xc1 junk"] * 3
    assert "kept aside in transcript.mbt.damaged.3" in str(peer.local_damage)
