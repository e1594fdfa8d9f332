"""A peer's durable state for one table: the signed log, its own secrets, where peers are.

Layout of a table directory (``<data-dir>/<table-id-hex>/``, the data dir defaulting to
``$XDG_DATA_HOME/millebornes`` or ``~/.local/share/millebornes``)::

    table.msgpack    who I am at this table: header bytes, my seat, my port, peer endpoints
    transcript.mbt   every accepted entry in log order (a valid transcript; see below for fsync)
    secrets.log      my hand secrets and random seeds (mode 0600, fsynced per record):
                     ``{hand, deck, rand_seed}`` = ``HandProtocol.export_secrets()``

The ordering rules that make ``resume`` lose nothing (see docs/network.md, "Sessions"):

* my own secrets are appended to ``secrets.log`` *before* any entry that depends on them
  is signed and published;
* my own entry is appended to ``transcript.mbt`` *before* it is broadcast, and fsynced
  first too when it was a choice (a move with alternatives, a side record), so a restarted
  peer never signs a second, different entry for the same slot (that would be equivocation);
  an automatic step is reproducible (the same bytes again from the log and the saved
  secrets: ``HandProtocol.reproducible``) and goes with the next group commit;
* entries of others are appended (handed to the OS) as they are accepted but fsynced in
  groups (group commit: at the latest with this seat's next own entry, or after a short
  delay); a kill -9 loses none of them, and anything a power cut loses is fetched again
  from any peer.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from p2p.files import sync_folder, write_own
from p2p.net import MAX_ALTERNATIVES
from p2p.transcript.agreement import MAX_HANDS as MAX_AGREED_HANDS
from p2p.transcript.decoding import MAX_PLAYERS
from p2p.transcript.envelope import Envelope, EnvelopeError, canonical_packb
from p2p.transcript.file import (
    MAX_TRANSCRIPT_BYTES,
    NotRegularFile,
    StoredLog,
    Transcript,
    TranscriptCorrupt,
    TranscriptHeader,
    TranscriptVersionError,
    TranscriptWriter,
    cut_aside,
    open_own,
    open_regular,
)

__all__ = ["Store", "StoreDamaged", "StoredTable", "default_data_dir", "table_dir",
           "find_tables"]

META = "table.msgpack"
TRANSCRIPT = "transcript.mbt"
SECRETS = "secrets.log"
#: The first record of a secrets.log written by this version: from it on, every record
#: carries ``sum`` (a hash of the rest), so a flipped bit is found, never used.
_SECRETS_HEAD = {"format": "millebornes-secrets", "version": 2}
_MAX_META = 256 * 1024
#: The largest secrets.log read. A record is some 200 bytes, written again as a hand's
#: secrets grow (a few times a hand, a little more with each reshuffle): the longest match
#: (400 hands, counting those voided) writes some 2 MB. A crafted file of 64 MiB (the
#: limit before) of well-formed records took a resume from 61 to 314 MB and 0.2 to 6 s,
#: in silence (hostile pass 24).
_MAX_SECRETS = 16 * 1024 * 1024
#: A record's hand is one the longest match can reach, as agreements bound it (0 to 400
#: inclusive: 100,000 were taken, each kept; 400 was refused, which an agreement names).
_MAX_HANDS = MAX_AGREED_HANDS
#: The most of a damaged transcript's tail kept aside in ``transcript.mbt.damaged``: the
#: bytes from the damage on up to this (a whole entry is at most 64 KiB; a tail of 500 MB
#: of junk, sparse on disk, was copied whole, as 500 MB of real disk).
_DAMAGED_KEEP = 4 << 20


class StoreDamaged(ValueError):
    """This computer's own copy of a game is damaged or unreadable: local damage, never an
    accusation.  The message is one plain sentence: which file, what is wrong, what to
    do.

    ``todo_id`` names the advice for a console that words it in the player's language
    (nothing language-dependent is decided here): ``keep`` (the default: the copy is left
    as it is), ``permissions``, ``update`` or ``secrets-lost``; ``what_id`` the fault when
    it is one of a file's usual ones (``missing``, ``folder``, ``unreadable``, ``too-large``
    with ``size``) or ``rules`` (the header's rules, refused by this version's engine, with
    ``rule_fault``), "" when ``what`` is a technical detail."""

    def __init__(self, path: Path, file: str, what: str, todo: str = "",
                 todo_id: str = "", what_id: str = "", size: int = 0,
                 rule_fault: tuple[str, dict[str, Any]] | None = None) -> None:
        self.path = path
        self.file = file
        self.what = what
        self.what_id = what_id
        self.size = size
        #: with ``what_id`` "rules": the engine's refusal of the header's rules (id, data)
        self.rule_fault = rule_fault
        self.todo_id = todo_id or ("keep" if not todo else "other")
        if not todo:
            todo = ("it cannot be resumed from this copy, which is left as it is; the other "
                    "players keep theirs"
                    + (f" (`millebornes verify {path / TRANSCRIPT}` shows what was played)"
                       if file != TRANSCRIPT else ""))
        super().__init__(f"this computer's copy of game {path.name[:8]} is damaged "
                         f"({file}: {what}): local damage, nobody cheated; {todo}")


def _read_file(path: Path, name: str, limit: int, missing_ok: bool = False,
               read: bool = True) -> bytes | None:
    """The file's bytes (None: missing and ``missing_ok``); ``read=False``: only check
    that it is a readable regular file of at most ``limit`` bytes. A named pipe or a device
    in its place is refused without being waited on, and so is a symbolic link (the store
    writes only files of its own: see :func:`~p2p.transcript.file.open_own`)."""
    f = path / name
    try:
        if f.is_dir() and not f.is_symlink():
            raise StoreDamaged(path, name, "a folder where a file should be",
                               what_id="folder")
        with open_regular(f, follow=False) as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > limit:
                raise StoreDamaged(path, name, f"too large ({size} bytes)",
                                   what_id="too-large", size=size)
            if not read:
                return b""
            data = fh.read(limit + 1)
        if len(data) > limit:       # it grew meanwhile
            raise StoreDamaged(path, name, f"too large ({len(data)} bytes)",
                               what_id="too-large", size=len(data))
        return data
    except FileNotFoundError:
        if missing_ok:
            return None
        raise StoreDamaged(path, name, "missing", what_id="missing") from None
    except PermissionError:
        raise StoreDamaged(path, name, "not readable by this account",
                           f"check the permissions of {f}", "permissions",
                           what_id="unreadable") from None
    except NotRegularFile as exc:
        raise StoreDamaged(path, name, f"not a regular file ({exc.kind}) where a file "
                           "should be") from None
    except OSError as exc:
        raise StoreDamaged(path, name, f"cannot be read ({exc.strerror or exc})") from None


def _secret_sum(rec: dict[str, Any]) -> bytes:
    body = {k: v for k, v in rec.items() if k != "sum"}
    return hashlib.sha256(b"millebornes/secrets/v2\0" + canonical_packb(body)).digest()[:16]


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "millebornes"


def table_dir(base: str | os.PathLike[str] | None, table_id: bytes) -> Path:
    return (Path(base) if base is not None else default_data_dir()) / table_id.hex()


def find_tables(base: str | os.PathLike[str] | None = None) -> list[Path]:
    """Table directories under a data dir, most recently changed first."""
    root = Path(base) if base is not None else default_data_dir()
    if not root.is_dir():
        return []
    out = [p for p in root.iterdir() if (p / META).is_file()]
    return sorted(out, key=lambda p: (p / TRANSCRIPT).stat().st_mtime
                  if (p / TRANSCRIPT).exists() else 0.0, reverse=True)


def _write_atomic(path: Path, data: bytes, mode: int = 0o600) -> None:
    """``data`` in ``path``, whole or not at all, on disk (see :func:`p2p.files.write_own`)."""
    write_own(path, data, mode=mode, sync=True)


def _pack(v: Any) -> bytes:
    out = msgpack.packb(v, use_bin_type=True)
    assert isinstance(out, bytes)
    return out


@dataclass
class StoredTable:
    """What a table directory holds, read back for ``resume``."""

    path: Path
    header: TranscriptHeader
    seat: int
    port: int
    bind: str
    endpoints: dict[int, str]
    transcript: Transcript
    secrets: dict[int, dict[str, Any]] = field(default_factory=dict)   # hand -> last record
    extra: dict[str, Any] = field(default_factory=dict)
    torn_bytes: int = 0
    #: other addresses each seat signed itself at the lobby (tried when ``endpoints``
    #: answers nothing; see :meth:`p2p.net.transport.Node.also_reach`)
    alternatives: dict[int, tuple[str, ...]] = field(default_factory=dict)
    #: local damage found in the middle of the transcript (the rest kept aside and cut
    #: off: it is fetched again from the other peers); None: none
    damage: str | None = None


class Store:
    """Appends a peer's accepted entries and secrets to its table directory."""

    def __init__(self, path: Path, writer: TranscriptWriter, meta: dict[str, Any]) -> None:
        self.path = path
        self.writer = writer
        self.meta = meta
        # never through a symbolic link, and the mode set on the file opened (a link in
        # its place made resume append to, and chmod, whatever file it pointed at)
        self._secrets = open_own(path / SECRETS, chmod=True)
        if self._secrets.tell() == 0:
            self._secrets.write(_pack(_SECRETS_HEAD))
            self._secrets.flush()
        self._last_secret: dict[int, bytes] = {}
        self.entries_written = 0

    # ----- creating / opening ----------------------------------------------------------
    @classmethod
    def create(cls, base: str | os.PathLike[str] | None, header: TranscriptHeader, seat: int,
               *, port: int, bind: str = "127.0.0.1", endpoints: dict[int, str] | None = None,
               extra: dict[str, Any] | None = None,
               alternatives: Mapping[int, Sequence[str]] | None = None) -> Store:
        """A fresh table directory (fails if the table already has one: use :meth:`open`)."""
        path = table_dir(base, header.table)
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        if (path / TRANSCRIPT).exists():
            raise FileExistsError(f"{path} already holds this table; resume it instead")
        meta = {"header": header.to_bytes(), "seat": seat, "port": port, "bind": bind,
                "endpoints": {str(k): v for k, v in (endpoints or {}).items()},
                "extra": dict(extra or {})}
        if alternatives:
            meta["alternatives"] = {str(k): list(v) for k, v in alternatives.items()}
        _write_atomic(path / META, _pack(meta))
        writer = TranscriptWriter(path / TRANSCRIPT, header)
        sync_folder(path)
        return cls(path, writer, meta)

    @classmethod
    def open(cls, path: str | os.PathLike[str],
             key: bytes | None = None) -> tuple[Store, StoredTable]:
        """Reopen a table directory after a crash: a torn last entry is cut off.

        Anything else wrong with the files is :class:`StoreDamaged` (one sentence), except
        an entry damaged in the middle of the transcript: the entries from there are kept
        aside in ``transcript.mbt.damaged``, cut off, and said in ``StoredTable.damage``
        (the caller fetches them again from the other peers before writing anything).
        ``key``: this player's signing key, which the stored seat must have."""
        p = Path(path)
        meta = read_meta(p)
        damage: str | None = None
        # missing, a folder, a named pipe, unreadable, too large: said before it is read
        _read_file(p, TRANSCRIPT, MAX_TRANSCRIPT_BYTES, read=False)
        try:
            try:
                writer, transcript, cut = TranscriptWriter.resume(p / TRANSCRIPT)
            except TranscriptCorrupt as exc:
                if isinstance(exc, TranscriptVersionError) or exc.offset == 0:
                    raise
                damage = _cut_damaged(p / TRANSCRIPT, exc)
                writer, transcript, cut = TranscriptWriter.resume(p / TRANSCRIPT)
        except TranscriptVersionError as exc:
            raise StoreDamaged(p, TRANSCRIPT, f"written in a format this version cannot "
                               f"read ({exc.plain})", "update millebornes, then resume "
                               "again", "update") from None
        except TranscriptCorrupt as exc:
            raise StoreDamaged(p, TRANSCRIPT, exc.reason if exc.offset == 0 else
                               f"at byte {exc.offset}: {exc.reason}") from None
        except OSError as exc:
            raise StoreDamaged(p, TRANSCRIPT, f"cannot be read or repaired "
                               f"({exc.strerror or exc})") from None
        if transcript.header.to_bytes() != meta["header"]:
            writer.close()
            from p2p.table.config import TableConfig, rules_fault
            try:      # which one is damaged: the one whose table id does not add up
                TableConfig.from_header(transcript.header)
            except ValueError as exc:
                fault = rules_fault(transcript.header.rules)  # said in words by a console
                raise StoreDamaged(p, TRANSCRIPT, f"bad header: {exc}",
                                   what_id="" if fault is None else "rules",
                                   rule_fault=None if fault is None else (fault.why, fault.data)
                                   ) from None
            raise StoreDamaged(p, META, "its table header does not match the transcript's")
        header = transcript.header
        seat = meta["seat"]
        keys = [pl.key for pl in header.players]
        if seat >= len(keys) or (key is not None and key in keys and keys[seat] != key):
            writer.close()
            raise StoreDamaged(p, META, f"seat {seat} is not this player's seat")
        # a bot that took a seat by agreement signs with a key of its own, not the
        # header's: its secrets are checked against what *it* published (checked against
        # the replaced player's entries, every bot store read as damaged on resume)
        signer = key if key is not None and key not in keys else None
        try:
            secrets = load_secrets(p, transcript, seat, signer)
        except StoreDamaged:
            writer.close()
            raise
        st = StoredTable(p, header, seat, meta["port"], meta["bind"],
                         {int(k): v for k, v in meta["endpoints"].items()},
                         transcript, secrets, dict(meta["extra"]), cut,
                         {int(k): tuple(v) for k, v in meta.get("alternatives", {}).items()},
                         damage)
        try:
            store = cls(p, writer, meta)
        except NotRegularFile as exc:
            writer.close()
            raise StoreDamaged(p, SECRETS, f"not a regular file ({exc.kind}) where a file "
                               "should be") from None
        except OSError as exc:
            writer.close()
            raise StoreDamaged(p, SECRETS, f"cannot be opened for writing "
                               f"({exc.strerror or exc})") from None
        store.entries_written = len(transcript.entries)
        for h, rec in st.secrets.items():
            store._last_secret[h] = _pack(rec)
        return store, st

    # ----- writing -----------------------------------------------------------------------
    def append(self, env: Envelope, sync: bool = True) -> None:
        """One accepted entry, fsynced before returning unless ``sync`` is False (then it
        waits for :meth:`sync`: group commit of entries that can be fetched again)."""
        self.writer.append(env, sync)
        self.entries_written += 1

    def sync(self) -> None:
        """fsync the entries appended without ``sync`` (one fsync for all of them)."""
        self.writer.sync()

    @property
    def unsynced(self) -> int:
        """Entries written to the OS but not fsynced yet."""
        return self.writer.unsynced

    def save_secrets(self, hand: int, secrets: dict[str, Any]) -> bool:
        """Persist this hand's secrets (``HandProtocol.export_secrets()``: ``deck`` and
        ``rand_seed``) if they changed since last time (fsynced). Returns True when a
        record was written."""
        rec = {"hand": hand, **secrets}
        rec["sum"] = _secret_sum(rec)
        raw = _pack(rec)
        if self._last_secret.get(hand) == raw:
            return False
        self._secrets.write(raw)
        self._secrets.flush()
        os.fsync(self._secrets.fileno())
        self._last_secret[hand] = raw
        return True

    def rewrite(self, entries: Sequence[Envelope]) -> None:
        """Replace the transcript by ``entries`` (the good part of a log damaged on this
        disk): a new file is written and fsynced, then renamed over the old one. One fsync
        for the file: one per entry made a long match's resume take from 30 s to minutes
        (hostile pass 11)."""
        path = self.path / TRANSCRIPT
        tmp = path.with_name(path.name + ".rewrite")
        tmp.unlink(missing_ok=True)     # a dangling link too (exists() says False)
        w = TranscriptWriter(tmp, self.writer.header)
        for e in entries:
            w.append(e, sync=False)
        w.sync()
        w.close()
        self.writer.close()
        os.replace(tmp, path)
        sync_folder(self.path)
        self.writer, _t, _cut = TranscriptWriter.resume(path)
        self.entries_written = len(entries)

    def set_endpoints(self, endpoints: dict[int, str]) -> None:
        self.meta["endpoints"] = {str(k): v for k, v in endpoints.items()}
        self._write_meta()

    def set_extra(self, name: str, value: Any) -> None:
        """Keep ``value`` under ``name`` in the table's ``extra`` (None: forget it), for
        the program that stores what this player chose (:meth:`create`'s ``extra``)."""
        extra = dict(self.meta.get("extra") or {})
        if value is None:
            extra.pop(name, None)
        else:
            extra[name] = value
        if extra == self.meta.get("extra"):
            return
        self.meta["extra"] = extra
        self._write_meta()

    def _write_meta(self) -> None:
        """``table.msgpack`` replaced by :attr:`meta` at once (a crash leaves the old or
        the new record, never half of one)."""
        _write_atomic(self.path / META, _pack(self.meta))

    @property
    def transcript_path(self) -> Path:
        return self.path / TRANSCRIPT

    def close(self) -> None:
        self.writer.sync()
        self.writer.close()
        self._secrets.close()


def read_meta(path: Path) -> dict[str, Any]:
    """``table.msgpack``, every field checked (types, ranges): :class:`StoreDamaged` in
    words, never a KeyError or a TypeError further on."""
    raw = _read_file(path, META, _MAX_META)
    assert raw is not None
    try:
        meta = msgpack.unpackb(raw, raw=False, strict_map_key=False, max_bin_len=_MAX_META,
                               max_str_len=4096, max_array_len=1024, max_map_len=1024,
                               max_ext_len=0)
    except Exception as exc:
        raise StoreDamaged(path, META, f"undecodable ({type(exc).__name__})") from None

    def bad(what: str) -> StoreDamaged:
        return StoreDamaged(path, META, what)

    if not isinstance(meta, dict):
        raise bad("not a table record")
    for k, typ, what in (("header", bytes, "bytes"), ("seat", int, "a number"),
                         ("port", int, "a number"), ("bind", str, "text"),
                         ("endpoints", dict, "a map"), ("extra", dict, "a map")):
        v = meta.get(k, {} if k == "extra" else "127.0.0.1" if k == "bind" else None)
        if not isinstance(v, typ) or isinstance(v, bool):
            raise bad(f"{k} is missing or not {what}")
        meta[k] = v
    if not 0 <= meta["seat"] < MAX_PLAYERS:
        raise bad(f"seat {meta['seat']} is out of range")
    if not 0 <= meta["port"] <= 65535:
        raise bad(f"port {meta['port']} is out of range")
    bind = meta["bind"]
    if not bind or len(bind) > 64 or any(c.isspace() or not c.isprintable() for c in bind):
        raise bad("the listening address is not an address")
    def address(a: object) -> bool:
        return isinstance(a, str) and len(a) <= 300

    def by_seat(m: object, value_ok: Callable[[object], bool]) -> bool:
        return isinstance(m, dict) and len(m) <= MAX_PLAYERS and all(
            isinstance(k, str) and k.isascii() and k.isdigit() and int(k) < MAX_PLAYERS
            and value_ok(v) for k, v in m.items())

    if not by_seat(meta["endpoints"], address):
        raise bad("the peers' addresses are not a seat → address map")
    if not all(isinstance(k, str) for k in meta["extra"]):
        raise bad("extra is not a map of names")
    if not by_seat(meta.get("alternatives", {}), lambda v: isinstance(v, list) and len(
            v) <= MAX_ALTERNATIVES and all(address(a) for a in v)):
        raise bad("the peers' other addresses are not a seat → addresses map")
    return meta


def _cut_damaged(path: Path, exc: TranscriptCorrupt) -> str:
    """Keep the transcript's bytes from a damaged entry on aside (at most
    :data:`_DAMAGED_KEEP` of them, said when there were more) and cut them off."""
    tail = os.lstat(path).st_size - exc.offset
    aside = cut_aside(path, exc.offset, ".damaged", keep=_DAMAGED_KEEP)
    kept = (f"kept aside in {aside.name}" if tail <= _DAMAGED_KEEP else
            f"the first {_DAMAGED_KEEP >> 20} MiB of their {tail} bytes kept aside in "
            f"{aside.name}")
    return (f"{TRANSCRIPT} is damaged at byte {exc.offset} ({exc.reason}); the entries from "
            f"there ({kept}) are fetched again from the other peers")


def read_secrets(path: Path, header: TranscriptHeader | None = None,
                 seat: int | None = None) -> dict[int, dict[str, Any]]:
    """hand -> the last complete secrets record (a torn last record is ignored: it was
    never followed by a publication).  Anything else wrong (junk, a record of the wrong
    shape, another table's or seat's secrets, a record whose ``sum`` does not match) is
    :class:`StoreDamaged`: these secrets exist nowhere else, so a damaged one is never
    used (it would make this seat publish wrong shares)."""
    out: dict[int, dict[str, Any]] = {}
    data = _read_file(path, SECRETS, _MAX_SECRETS, missing_ok=True)
    if not data:
        return out
    todo = _secrets_todo(path)

    def bad(what: str) -> StoreDamaged:
        return StoreDamaged(path, SECRETS, what, todo, "secrets-lost")

    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=len(data),
                                max_ext_len=0)
    unpacker.feed(data)
    summed = False
    n = 0
    while True:
        try:
            rec = unpacker.unpack()
        except msgpack.OutOfData:
            break                          # the end, or a torn last record: ignored
        except Exception as exc:
            raise bad(f"undecodable after record {n} ({type(exc).__name__})") from None
        n += 1
        if n == 1 and rec == _SECRETS_HEAD:
            summed = True
            continue
        if not isinstance(rec, dict):
            raise bad(f"record {n} is not a record")
        if "sum" in rec or summed:
            try:
                ok = isinstance(rec.get("sum"), bytes) and rec["sum"] == _secret_sum(rec)
            except EnvelopeError:
                ok = False
            if not ok:
                raise bad(f"record {n} does not match its checksum")
            rec = {k: v for k, v in rec.items() if k != "sum"}
        hand = rec.get("hand")
        if not isinstance(hand, int) or isinstance(hand, bool) or not 0 <= hand <= _MAX_HANDS:
            raise bad(f"record {n} names no hand")
        why = _secret_problem(rec, header, seat)
        if why is not None:
            raise bad(f"record {n} (hand {hand + 1}) {why}")
        out[hand] = rec
    return out


def _secret_problem(rec: dict[str, Any], header: TranscriptHeader | None,
                    seat: int | None) -> str | None:
    """What is wrong with one record's shape (None: nothing)."""
    seed = rec.get("rand_seed")
    if not isinstance(seed, bytes) or len(seed) != 32:
        return "has no valid random seed"
    deck = rec.get("deck")
    if not isinstance(deck, dict):
        return "has no deck secrets"
    x = deck.get("x")
    if x is not None and not (isinstance(x, bytes) and len(x) == 32):
        return "has a deck key of the wrong size"
    from p2p.crypto.group import L
    if x is not None and not 0 < int.from_bytes(x, "little") < L:
        # a zero key (its checksum made again) was used: the seat signed a deck key every
        # peer names a cheat (key-proof); one past the group's order stopped resume with
        # "GroupError: non-canonical scalar" (hostile pass 25)
        return "has a deck key that is no key"
    seeds = deck.get("seeds", {})
    # a round number in ASCII digits (str.isdigit also took '²', and 5,000 digits, which
    # int() then refused: "invalid literal for int()" was all resume said), and the
    # 32-byte seed each round is shuffled with
    if not isinstance(seeds, dict) or not all(
            isinstance(k, str) and _ROUND.fullmatch(k) and isinstance(v, bytes)
            and len(v) == 32 for k, v in seeds.items()):
        return "has malformed deck seeds"
    if not isinstance(deck.get("revealed", False), bool):
        return "has a malformed reveal flag"
    if deck.get("hand") != rec.get("hand"):
        return "belongs to another hand"
    if header is not None and deck.get("table") != header.table:
        return "belongs to another table"
    if seat is not None and deck.get("seat") != seat:
        return "belongs to another seat"
    return None


#: A shuffle round's number as secrets.log keys it (a hand has a few rounds).
_ROUND = re.compile(r"[0-9]{1,6}")


def load_secrets(path: Path, transcript: Transcript, seat: int,
                 signer: bytes | None = None) -> dict[int, dict[str, Any]]:
    """:func:`read_secrets`, checked against what this seat published in ``transcript``
    (:class:`StoreDamaged` when they do not cover it). ``signer``: the key the seat signs
    with when it is not the header's (a bot that took the seat by agreement)."""
    secrets = read_secrets(path, transcript.header, seat)
    _check_secrets_cover(path, transcript,
                         signer if signer is not None else transcript.header.players[seat].key,
                         secrets, seat)
    return secrets


def _check_secrets_cover(path: Path, transcript: Transcript, my_key: bytes,
                         secrets: dict[int, dict[str, Any]], seat: int) -> None:
    """The stored secrets are the ones this seat's published entries were made with (they
    are written before any entry that depends on them): every hand with a deck entry of
    ours has a record, its deck key is the one our ``deck.key`` published, it holds the
    seed of every shuffle round we committed to (the very seed: its commitment is
    checked), and says revealed once we revealed; its random seed is the one our
    ``game.rcommit`` committed to (a record edited to hold another one, its checksum made
    again, was used: the seat revealed a seed that did not match its commitment, and every
    peer named the honest player a cheat, ``random-reveal``; hostile pass 24).  So
    a record lost or changed on this disk (even one that looks like a torn end) is found
    here, never used to sign wrong shares (:func:`secret_mismatch`; a resumed peer checks
    the entries of this seat it fetches back after local damage the same way)."""
    entries = transcript.entries
    for env in entries.by(my_key) if isinstance(entries, StoredLog) else entries:
        if env.author != my_key or not isinstance(env.body, dict):
            continue
        k = str(env.body.get("k", ""))
        if not (k.startswith("deck.") or k == "game.rcommit") or not env.signature_ok():
            # an entry whose signature fails is damage on this disk, not what this seat
            # published: the resume cuts it and fetches it again from the others
            continue
        wrong = secret_mismatch(env, secrets.get(env.hand), seat, transcript.header.table)
        if wrong is not None:
            raise StoreDamaged(path, SECRETS, wrong, _secrets_todo(path), "secrets-lost")


def secret_mismatch(env: Envelope, rec: Mapping[str, Any] | None, seat: int,
                    table: bytes) -> str | None:
    """What in ``rec``, this seat's stored secrets record of ``env``'s hand, does not match
    ``env``, an entry this seat published (None: it matches, or ``env`` depends on no
    secret). The seat would sign shares, passes or reveals its published entries
    contradict, and be named a cheat for them."""
    from p2p.crypto import group as g
    from p2p.deck.ciphers import random_commitment, shuffle_commitment
    from p2p.table.hand_protocol import random_purpose

    body = env.body
    k = str(body.get("k", ""))
    if not (k.startswith("deck.") or k == "game.rcommit"):
        return None
    if rec is None:
        return f"this seat's card keys for hand {env.hand + 1} are missing"
    deck = rec["deck"]
    wrong = None
    if k == "deck.key":
        x = deck.get("x")
        try:
            if x is None or g.base(g.scalar_from_bytes(x)) != body.get("h"):
                wrong = "its deck key is not the one this seat published"
        except Exception:
            wrong = "its deck key is not a key"
    elif k == "deck.commit":
        seed = deck.get("seeds", {}).get(str(body.get("round")))
        if seed is None:
            wrong = f"the seed of shuffle round {body.get('round')} is missing"
        elif (type(body.get("round")) is not int or shuffle_commitment(
                seed, seat, table, env.hand, body["round"]) != body.get("c")):
            # a seed changed on this disk (a file of an older version has no sums):
            # the reveal at the hand's end would not match what this seat committed
            # to, and the others would name it a cheat
            wrong = (f"the seed of shuffle round {body.get('round')} is not the one this "
                     "seat committed to")
    elif k == "deck.reveal" and not deck.get("revealed", False):
        wrong = "it does not know that this seat revealed its secrets"
    elif k == "game.rcommit" and (not isinstance(rec.get("rand_seed"), bytes) or
                                  random_commitment(rec["rand_seed"], seat, table,
                                                    random_purpose(env.hand)) != body.get("c")):
        wrong = "its random seed is not the one this seat committed to"
    return None if wrong is None else f"hand {env.hand + 1}: {wrong}"


def _secrets_todo(path: Path) -> str:
    return ("they exist nowhere else, so this seat cannot go on at this table (nothing was "
            "sent; the others' time limit stops the match, blaming nobody); "
            f"`millebornes verify {path / TRANSCRIPT}` shows what was played")
