"""Game transcripts: one self-contained, append-only file per table.

Format (see docs/protocol.md): a msgpack stream.  The first object is the header map
(canonical msgpack)::

    {"format": "millebornes-transcript", "version": 2, "table": bin, "rules": map,
     "players": [{"seat": int, "name": str, "key": bin32}, ...], "cards": [int, ...]}

followed by the signed envelopes (p2p.envelope wire encoding) in log order. Version 2
adds *side entries* (body kinds in :data:`SIDE_KINDS`: ``side.timeout``, a signed "I did
not receive slot (hand, seat, seq) in time"; ``side.abandon``, a signed leave record):
signed envelopes like the others, written where they happened, but never links of the
game chain (readers set them apart in ``Transcript.side``); ``side.complaint`` carries
the evidence (the offending signed entry) of a cheat only its recipient could see. A file of another version is
refused with a plain message (:class:`UnsupportedVersion`).  The
header is bound to the log: the first entry of hand ``h`` has
``prev = genesis_hash(table, h, SHA-256(header bytes))``, so a changed header byte
breaks the chain.  The writer fsyncs after every entry unless asked to batch (group
commit: :meth:`TranscriptWriter.sync`); the reader reports a truncated
or corrupt file with the byte offset of the bad object.

The reader streams the file (one object's bytes in memory at a time, besides what it
returns) and reads only a regular file of at most :data:`MAX_TRANSCRIPT_BYTES`: a named
pipe, a device or a bigger file is refused before a byte is read
(:class:`TranscriptUnreadable`), never waited on or loaded whole.
"""

from __future__ import annotations

import array
import bisect
import hashlib
import multiprocessing
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, overload

import msgpack

from p2p.crypto.identity import Identity
from p2p.crypto.shuffle_proof import ShuffleProofError
from p2p.deck.ciphers import verify_pass
from p2p.deck.hand import DeckHand, HandResult
from p2p.deck.messages import (
    CheatDetected,
    Deck,
    DeckMessage,
    ShufflePass,
    is_deck_body,
    message_from_body,
    message_to_body,
)
from p2p.transcript.agreement import MAX_HANDS as MAX_AGREED_HANDS
from p2p.transcript.agreement import agreements_of, keys_at, signed_records
from p2p.transcript.decoding import (
    MAX_CARDS,
    MAX_PLAYERS,
    DecodeError,
    Limits,
    check_header_obj,
    check_shape,
)
from p2p.transcript.envelope import (
    MAX_ENVELOPE_BYTES,
    MAX_HAND,
    DuplicateEntry,
    Envelope,
    EnvelopeError,
    Equivocation,
    LogError,
    LogVerifier,
    canonical_packb,
    genesis_hash,
)

__all__ = [
    "TRANSCRIPT_FORMAT",
    "TRANSCRIPT_VERSION",
    "SIDE_KINDS",
    "is_side",
    "UnsupportedVersion",
    "TranscriptVersionError",
    "TranscriptUnreadable",
    "NotRegularFile",
    "MAX_TRANSCRIPT_BYTES",
    "open_regular",
    "open_own",
    "Player",
    "TranscriptHeader",
    "Transcript",
    "TranscriptCorrupt",
    "TranscriptWriter",
    "read_transcript",
    "scan_transcript",
    "iter_transcript",
    "iter_log",
    "LogRecorder",
    "DecodedEntry",
    "VerifyReport",
    "verify_crypto",
    "verify_stream",
    "StreamHooks",
    "EntryLog",
    "read_failure",
]

TRANSCRIPT_FORMAT = "millebornes-transcript"
#: 2: side entries (timeout claims, abandons) may sit between the entries of the game log;
#: 3: the shares of a forced pile draw come before the draw (hand_protocol.forced_pile_draw)
TRANSCRIPT_VERSION = 3
#: Body kinds of side entries: signed like every entry but never links of the game chain.
SIDE_KINDS = frozenset({"side.timeout", "side.abandon", "side.complaint", "side.takeover",
                        "side.end"})


def is_side(body: object) -> bool:
    """Is ``body`` a side entry's (a claim or record beside the game log, not in it)?
    (A kind that is no string is a game body's, malformed: a list or a map there raised
    ``TypeError`` here, a traceback that stopped a peer and broke ``verify``.)"""
    if not isinstance(body, dict):
        return False
    kind = body.get("k")
    return isinstance(kind, str) and kind in SIDE_KINDS


class UnsupportedVersion(ValueError):
    """A transcript of another format version than this release reads."""

    def __init__(self, version: object) -> None:
        self.version = version
        super().__init__(f"this transcript is version {version!r}; this release of millebornes "
                         f"reads version {TRANSCRIPT_VERSION} only and cannot check it")


_MAX_HEADER_BYTES = 1 << 20
#: The biggest transcript file read, checked before a byte of it is: 512 MiB. The longest
#: match is 200 scored hands (p2p.table.match.MAX_HANDS), 400 counting the hands voided by
#: agreement (p2p.transcript.agreement.MAX_HANDS); a hand at the biggest table (six seats)
#: takes under 1 MB (~750 KB), so a real transcript stays under 400 MB, and most are
#: under 2 MB. A bigger file is no game's: it is refused, never loaded.
MAX_TRANSCRIPT_BYTES = 512 << 20
#: No object of a transcript is bigger (the header is at most this, an entry at most
#: MAX_ENVELOPE_BYTES): a longer one is refused as it is read, never buffered whole.
_MAX_OBJECT_BYTES = _MAX_HEADER_BYTES
#: The size of the chunks a :class:`StoredLog` holds its entries' bytes in (the last one
#: grows, the others are exact): any size holds the log, this one keeps a chunk's copy
#: when it is full, and the room a growing buffer keeps spare, small.
_LOG_CHUNK = 1 << 20
_READ_CHUNK = 1 << 16


def _file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "a special file"


class NotRegularFile(OSError):
    """A path that names no regular file (a folder, a named pipe, a device, a socket, or a
    symbolic link where one is refused): it is never read, since reading one can wait
    forever or never end. ``kind`` says which, in English ("a named pipe")."""

    def __init__(self, path: str | os.PathLike[str], mode: int) -> None:
        self.kind = _file_kind(mode)
        super().__init__(f"{os.fspath(path)!s} is not a regular file ({self.kind})")
        self.filename = os.fspath(path)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def open_regular(path: str | os.PathLike[str], *, follow: bool = True) -> BinaryIO:
    """``path`` opened for reading when it is a regular file; :class:`NotRegularFile`
    otherwise (checked before it is opened, and again on what was opened, without waiting:
    a named pipe put there meanwhile is opened non-blocking, then refused).
    ``follow=False``: a symbolic link is refused too (a game's own store: see
    :func:`open_own`)."""
    st_mode = (os.stat(path) if follow else os.lstat(path)).st_mode
    if not stat.S_ISREG(st_mode):
        raise NotRegularFile(path, st_mode)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC
    fd = _open_nofollow(path, flags) if not follow else os.open(path, flags)
    try:
        st_mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(st_mode):
            raise NotRegularFile(path, st_mode)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _open_nofollow(path: str | os.PathLike[str], flags: int, mode: int = 0o600) -> int:
    """``os.open`` with O_NOFOLLOW: a symbolic link put in the file's place is
    :class:`NotRegularFile` (the kernel says only "too many levels of links")."""
    try:
        return os.open(path, flags | _NOFOLLOW, mode)
    except OSError as exc:
        try:
            st_mode = os.lstat(path).st_mode
        except OSError:
            raise exc from None
        if stat.S_ISLNK(st_mode):
            raise NotRegularFile(path, st_mode) from None
        raise


def open_own(path: str | os.PathLike[str], *, create: bool = True,
             mode: int = 0o600, chmod: bool = False) -> BinaryIO:
    """A file of a game's own store (its transcript, its secrets) opened for appending,
    created when missing and ``create``: never through a symbolic link, and only a regular
    file (:class:`NotRegularFile` otherwise, raised before a byte is written). A link in
    its place made ``resume`` append to, and chmod, whatever file it pointed at (hostile
    review 7), as ``millebornes.log`` already refuses. ``chmod``: set ``mode`` on what was
    opened (never on a path, which a link could redirect)."""
    try:
        st_mode = os.lstat(path).st_mode
    except FileNotFoundError:
        st_mode = stat.S_IFREG
    if not stat.S_ISREG(st_mode):       # said before it is opened (a pipe: ENXIO, else)
        raise NotRegularFile(path, st_mode)
    flags = (os.O_WRONLY | os.O_APPEND | (os.O_CREAT if create else 0)
             | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC)
    fd = _open_nofollow(path, flags, mode)
    try:
        st_mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(st_mode):
            raise NotRegularFile(path, st_mode)
        os.set_blocking(fd, True)
        if chmod and hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        return os.fdopen(fd, "ab")
    except BaseException:
        os.close(fd)
        raise


class TranscriptCorrupt(ValueError):
    """The file is truncated or corrupt at byte ``offset``."""

    def __init__(self, offset: int, reason: str) -> None:
        self.offset = offset
        self.reason = reason
        super().__init__(f"transcript corrupt at byte {offset}: {reason}")


class TranscriptVersionError(TranscriptCorrupt):
    """The file is a transcript of a format version this release cannot check
    (``version``: the one its header says, when it says one)."""

    def __init__(self, exc: ValueError) -> None:
        super().__init__(0, str(exc))
        self.plain = str(exc)
        v = getattr(exc, "version", None)
        self.version = v if type(v) is int else None


class TranscriptUnreadable(TranscriptCorrupt):
    """The file is not read at all: ``what_id`` ``too-large`` (``size`` bytes, more than
    :data:`MAX_TRANSCRIPT_BYTES`) or ``not-regular`` (a named pipe, a device: ``plain``
    says which). Never a cheat, never "damaged at byte 0"."""

    def __init__(self, what_id: str, plain: str, size: int = 0) -> None:
        super().__init__(0, plain)
        self.what_id = what_id
        self.plain = plain
        self.size = size


@dataclass(frozen=True)
class Player:
    seat: int
    name: str
    key: bytes


@dataclass(frozen=True)
class TranscriptHeader:
    table: bytes
    rules: dict[str, Any]
    players: tuple[Player, ...]
    cards: tuple[int, ...]
    version: int = TRANSCRIPT_VERSION

    def to_obj(self) -> dict[str, Any]:
        return {"format": TRANSCRIPT_FORMAT, "version": self.version, "table": self.table,
                "rules": self.rules,
                "players": [{"seat": p.seat, "name": p.name, "key": p.key} for p in self.players],
                "cards": list(self.cards)}

    def to_bytes(self) -> bytes:
        return canonical_packb(self.to_obj())

    def digest(self) -> bytes:
        return hashlib.sha256(self.to_bytes()).digest()

    def genesis(self, hand: int) -> bytes:
        return genesis_hash(self.table, hand, self.digest())

    @property
    def keys(self) -> tuple[bytes, ...]:
        return tuple(p.key for p in self.players)

    @classmethod
    def from_obj(cls, v: object) -> TranscriptHeader:
        if not isinstance(v, dict) or v.get("format") != TRANSCRIPT_FORMAT:
            raise ValueError("not a millebornes transcript header")
        check_header_obj(v)   # exact fields, bounded lengths (checked first), ranges
        if v.get("version") != TRANSCRIPT_VERSION:
            raise UnsupportedVersion(v.get("version"))
        table, rules, players, cards = v.get("table"), v.get("rules"), v.get("players"), v.get("cards")
        if not isinstance(table, bytes) or not isinstance(rules, dict):
            raise ValueError("bad table or rules")
        if not isinstance(players, list) or not isinstance(cards, list):
            raise ValueError("bad players or cards")
        ps = []
        for i, p in enumerate(players):
            if not (isinstance(p, dict) and p.get("seat") == i and isinstance(p.get("name"), str)
                    and isinstance(p.get("key"), bytes) and len(p["key"]) == 32):
                raise ValueError(f"bad player entry {i}")
            ps.append(Player(i, p["name"], p["key"]))
        if len({p.key for p in ps}) != len(ps) or not 2 <= len(ps) <= 16:
            raise ValueError("repeated player key or bad number of players")
        if (not cards or not all(type(c) is int and 0 <= c < 2**32 for c in cards)
                or len(set(cards)) != len(cards)):
            raise ValueError("card ids must be distinct 32-bit ints")
        return cls(table, rules, tuple(ps), tuple(cards))


class StoredLog(Sequence[Envelope]):
    """A transcript's game log held as the bytes of its entries, each decoded again as it
    is read (they were decoded, and checked as envelopes, as the file was read).
    ``resume`` reads its own store so (:meth:`TranscriptWriter.resume`): decoded, an
    entry takes about 3.8 times its size in memory (a body's dicts, lists and ints), a
    crafted small one 5.5, and a store whose transcript had 300,000 entries of 177 bytes
    appended (53 MB) took 406 MB to resume (hostile pass 10). The bytes are held in
    chunks of :data:`_LOG_CHUNK` (whole entries, the last one growing) and the entries'
    ends in an array (8 bytes an entry): a ``bytes`` object per entry took 41 bytes more
    each: 20,000 crafted entries of 171 bytes took 1.29 times their size (traced, with
    the file offsets read beside them), 1.10 times now (hostile pass 16). The replay
    takes them one at a time."""

    __slots__ = ("_chunks", "_starts", "_ends", "_own_last")

    def __init__(self) -> None:
        self._chunks: list[bytes | bytearray] = [bytearray()]
        self._starts: list[int] = [0]      # where each chunk starts in the log's bytes
        self._ends: array.array[int] = array.array("Q")
        self._own_last = True              # False: a head() sharing its last chunk

    def _held(self) -> int:
        return self._ends[-1] if self._ends else 0

    def append(self, env: Envelope) -> None:
        raw = env.encode()   # (the bytes it was decoded from: kept by decode)
        held = self._held()
        last = self._chunks[-1]
        if not self._own_last or not isinstance(last, bytearray):
            last = bytearray(last[:held - self._starts[-1]])
            self._chunks[-1] = last
            self._own_last = True
        if last and len(last) + len(raw) > _LOG_CHUNK:
            self._chunks[-1] = bytes(last)           # a full chunk: exact size from now
            last = bytearray()
            self._chunks.append(last)
            self._starts.append(held)
        last += raw
        self._ends.append(held + len(raw))

    def __len__(self) -> int:
        return len(self._ends)

    def _where(self, i: int) -> tuple[bytes | bytearray, int, int]:
        """Entry ``i``'s chunk and its span there."""
        start, end = (self._ends[i - 1] if i else 0), self._ends[i]
        c = bisect.bisect_right(self._starts, start) - 1
        return self._chunks[c], start - self._starts[c], end - self._starts[c]

    def _raw(self, i: int) -> bytes:
        chunk, start, end = self._where(i)
        return bytes(chunk[start:end])

    @overload
    def __getitem__(self, i: int) -> Envelope: ...

    @overload
    def __getitem__(self, i: slice) -> list[Envelope]: ...

    def __getitem__(self, i: int | slice) -> Envelope | list[Envelope]:
        if isinstance(i, slice):
            return [Envelope.decode(self._raw(k)) for k in range(*i.indices(len(self)))]
        n = len(self)
        if not -n <= i < n:
            raise IndexError("StoredLog index out of range")
        return Envelope.decode(self._raw(i % n))

    def __iter__(self) -> Iterator[Envelope]:
        for i in range(len(self)):
            yield Envelope.decode(self._raw(i))

    def raw(self) -> Iterator[bytes]:
        """Every entry's bytes, in order."""
        for i in range(len(self)):
            yield self._raw(i)

    def __eq__(self, other: object) -> bool:
        """Equal to a log of the same entries, held either way."""
        if isinstance(other, StoredLog):
            return len(self) == len(other) and all(
                a == b for a, b in zip(self.raw(), other.raw(), strict=True))
        if isinstance(other, Sequence):
            return len(self) == len(other) and all(
                isinstance(e, Envelope) and e.encode() == r
                for e, r in zip(other, self.raw(), strict=True))
        return NotImplemented

    __hash__ = None     # type: ignore[assignment]  # (mutable, as a list)

    def head(self, n: int) -> StoredLog:
        """The first ``n`` entries, still as bytes (the good part a resume keeps when the
        rest is damaged: ``list(log[:n])`` decoded them all at once, hostile pass 11). It
        shares this log's chunks (a copy of the good part of a long log doubled what a
        resume holds), its last one until an entry is appended to it."""
        out = StoredLog()
        out._ends = self._ends[:max(0, n)]
        held = out._held()
        c = max(1, bisect.bisect_left(self._starts, held))   # the chunks up to ``held``
        out._chunks, out._starts = self._chunks[:c], self._starts[:c]
        out._own_last = False
        return out

    def by(self, author: bytes) -> Iterator[Envelope]:
        """The entries ``author`` signed, in order: only those whose bytes hold the
        author field as it is encoded (bin 8 of 32 bytes) are decoded."""
        field = b"\xc4\x20" + author
        for i in range(len(self)):
            chunk, start, end = self._where(i)
            if chunk.find(field, start, end) >= 0:
                env = Envelope.decode(bytes(chunk[start:end]))
                if env.author == author:
                    yield env


@dataclass
class Transcript:
    header: TranscriptHeader
    #: the game log, in order (a :class:`StoredLog` when read by ``resume``)
    entries: list[Envelope] | StoredLog
    offsets: Sequence[int]  #: byte offset of each entry in the file
    header_bytes: bytes = b""
    side: list[Envelope] = field(default_factory=list)   #: side entries (claims, abandons)
    #: entries of the log in each hand an agreement may name (at most
    #: :data:`MAX_AGREED_HANDS`), and the last hand it has entries of: which agreements'
    #: points the log reached (:func:`p2p.transcript.agreement.agreements_of`)
    hand_sizes: dict[int, int] = field(default_factory=dict)
    last_hand: int = -1


def _iter_objects(f: BinaryIO, limit: int) -> Iterator[tuple[int, bytes, object]]:
    """``(offset, bytes, object)`` of every msgpack object of ``f``, read in chunks: at
    most one object's bytes (:data:`_MAX_OBJECT_BYTES`) are held, and at most ``limit``
    bytes are read in all (a file that grows past it is refused)."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=True, use_list=True,
                                max_buffer_size=_MAX_OBJECT_BYTES + _READ_CHUNK)
    buf = bytearray()      # the file's bytes from ``start`` on (the object being read)
    start = 0
    eof = False
    while True:
        try:
            obj = unpacker.unpack()
        except msgpack.OutOfData:
            if eof:
                if buf:
                    raise TranscriptCorrupt(start, "truncated object at end of file") from None
                return
            chunk = f.read(_READ_CHUNK)
            if not chunk:
                eof = True
                continue
            if start + len(buf) + len(chunk) > limit:
                raise TranscriptUnreadable(
                    "too-large", f"larger than {limit} bytes, the most a transcript may "
                    "have", start + len(buf) + len(chunk)) from None
            if len(buf) + len(chunk) > _MAX_OBJECT_BYTES + _READ_CHUNK:
                raise TranscriptCorrupt(start, f"an object of more than {_MAX_OBJECT_BYTES} "
                                        "bytes (no transcript has one)") from None
            unpacker.feed(chunk)
            buf += chunk
            continue
        except msgpack.StackError:
            # (its message is empty: the report said "undecodable object:" and no more)
            raise TranscriptCorrupt(start, "undecodable object: nested too deeply (no "
                                    "transcript nests more than a few levels)") from None
        except Exception as e:
            raise TranscriptCorrupt(start, f"undecodable object: {e or type(e).__name__}"
                                    ) from None
        end = unpacker.tell()
        raw = bytes(buf[:end - start])
        del buf[:end - start]
        yield start, raw, obj
        start = end


def cut_aside(path: str | os.PathLike[str], offset: int, suffix: str,
              keep: int | None = None) -> Path:
    """Move a transcript's bytes from ``offset`` on into ``<path><suffix>`` (kept for
    inspection) and cut the file there, durably: the one way a torn or damaged tail is
    taken off. A file set aside before is kept: the next one is ``<path><suffix>.2``,
    ``.3``... ``keep``: at most that many bytes are kept aside (a tail of 500 MB of junk,
    sparse on disk, was copied whole, as 500 MB of real disk). The transcript is never
    opened through a symbolic link. Returns the file the bytes went to."""
    aside = Path(str(path) + suffix)
    n = 1
    while True:
        try:
            out = open(aside, "xb")  # noqa: SIM115 - closed below
            break
        except FileExistsError:
            n += 1
            aside = Path(f"{path}{suffix}.{n}")
    left = float("inf") if keep is None else keep
    with out, open_regular(path, follow=False) as f:
        f.seek(offset)
        while left > 0 and (chunk := f.read(int(min(1 << 20, left)))):
            out.write(chunk)
            left -= len(chunk)
        out.flush()
        os.fsync(out.fileno())
    fd = _open_nofollow(path, os.O_RDWR | _CLOEXEC)
    try:
        os.ftruncate(fd, offset)
        os.fsync(fd)
    finally:
        os.close(fd)
    return aside


def _header_first(objects: Iterator[tuple[int, bytes, object]]
                  ) -> Iterator[tuple[int, bytes, object]]:
    """``objects``, a first one that cannot be decoded said as a bad header (one that
    announces more items than any header has is refused by its length, unread)."""
    try:
        yield next(objects)
    except StopIteration:
        return
    except TranscriptCorrupt as e:
        if isinstance(e, TranscriptUnreadable) or "truncated" in e.reason:
            raise
        raise TranscriptCorrupt(0, f"bad header: {e.reason} (a header holds at most "
                                f"{MAX_PLAYERS} players and {MAX_CARDS} cards)") from None
    yield from objects


def iter_transcript(path: str | os.PathLike[str]) -> Iterator[tuple[int, TranscriptHeader | Envelope]]:
    """Yield ``(offset, header)`` then ``(offset, envelope)`` for every entry, reading the
    file as a stream. A file that is not a regular one, or is bigger than
    :data:`MAX_TRANSCRIPT_BYTES`, is refused before a byte is read
    (:class:`TranscriptUnreadable`)."""
    for off, item in _iter_items(path, light=False):
        assert not isinstance(item, int)
        yield off, item


def _iter_items(path: str | os.PathLike[str], light: bool
                ) -> Iterator[tuple[int, TranscriptHeader | Envelope | int]]:
    """:func:`iter_transcript`; ``light``: an entry of the game log (an 8-item array whose
    body is a map of no side entry's kind) is given as its hand number only, not checked
    further (its field types, canonical encoding and density are checked when it is read
    again, as an envelope). The first pass of a streaming verify reads so."""
    try:
        f = open_regular(path)
    except NotRegularFile as e:
        raise TranscriptUnreadable("not-regular", f"not a regular file ({e.kind})") from None
    with f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_TRANSCRIPT_BYTES:
            raise TranscriptUnreadable("too-large", f"{size} bytes, more than the "
                                       f"{MAX_TRANSCRIPT_BYTES} a transcript may have", size)
        if size == 0:
            raise TranscriptCorrupt(0, "empty file")
        first = True
        for start, raw, obj in _header_first(_iter_objects(f, MAX_TRANSCRIPT_BYTES)):
            if first:
                first = False
                try:
                    header = TranscriptHeader.from_obj(obj)
                except UnsupportedVersion as e:
                    raise TranscriptVersionError(e) from None
                except (ValueError, TypeError, KeyError) as e:
                    raise TranscriptCorrupt(start, f"bad header: {e}") from None
                if header.to_bytes() != raw:
                    raise TranscriptCorrupt(start, "non-canonical header")
                yield start, header
                continue
            if (light and isinstance(obj, list) and len(obj) == 8 and isinstance(obj[6], dict)
                    and type(obj[2]) is int and 0 <= obj[2] < MAX_HAND and not is_side(obj[6])):
                yield start, obj[2]
                continue
            try:
                env = Envelope.decode(raw)
            except EnvelopeError as e:
                raise TranscriptCorrupt(start, f"bad entry: {e}") from None
            yield start, env
        if first:
            raise TranscriptCorrupt(0, "empty file")


#: Authors of side entries other than the seated players a transcript is read with (bots
#: that took a seat over sign their own): more is a crafted file's.
MAX_OTHER_SIDE_AUTHORS = 64
#: Values a side entry's body may hold: no honest one holds more than a dozen (a takeover
#: record with its certificate; live peers drop one with other fields), so one of tiny
#: values cannot take some 9 bytes of memory per byte of file.
MAX_SIDE_VALUES = 32
#: Side entries kept, and their bytes: an honest match writes at most a timeout claim per
#: seat and hand (400 hands, six seats), a leave record, a few agreements and complaints
#: (a complaint carries one entry): some 3,000 entries and 2 MB at most. The side entries
#: are held whole while a transcript is checked: past these, more are a crafted file's.
MAX_SIDE_ENTRIES = 16_384
MAX_SIDE_BYTES = 16 << 20
_SIDE_SHAPE = Limits(max_items=MAX_SIDE_VALUES, max_depth=4)


def read_transcript(path: str | os.PathLike[str], lean: bool = False) -> Transcript:
    """The file's header, game log and side entries. Side entries are kept as live peers
    keep them: the first of each kind per author and hand, for a hand at most two past
    the log so far, from the seated players and at most :data:`MAX_OTHER_SIDE_AUTHORS`
    other keys (and a second complaint of an author and hand: the one its peer stopped
    on). A crafted file of 100,000 copies took 25 s and 171 MB to verify (a file
    at the size limit would have taken minutes and gigabytes); an honest one loses
    nothing. A side entry whose body holds more than :data:`MAX_SIDE_VALUES` values, of
    a hand past the longest match (:data:`p2p.transcript.agreement.MAX_HANDS`), or past
    :data:`MAX_SIDE_ENTRIES` or :data:`MAX_SIDE_BYTES` kept, is dropped too. ``lean``:
    the log is kept as its entries' bytes (:class:`StoredLog`), the offsets as an array
    of machine ints."""
    return _read(path, keep=True, lean=lean)[0]


def scan_transcript(path: str | os.PathLike[str]) -> tuple[Transcript, int]:
    """:func:`read_transcript` without the game log: the header and the side entries
    (kept by the same rules), and how many entries the log holds (its ``entries`` and
    ``offsets`` are empty). One entry at a time is held while the file is read: the
    first pass of a streaming verify (:func:`verify_stream`), whatever the file's size.
    Raises as :func:`read_transcript` does, except that an entry of the log is only
    read as msgpack here (the rest of its checks are the second pass's)."""
    return _read(path, keep=False)


def _read(path: str | os.PathLike[str], keep: bool,
          lean: bool = False) -> tuple[Transcript, int]:
    header: TranscriptHeader | None = None
    entries: list[Envelope] | StoredLog = StoredLog() if lean else []
    offsets: list[int] | array.array[int] = array.array("q") if lean else []
    side: list[Envelope] = []
    seen: set[tuple[bytes, int, object]] = set()
    players: set[bytes] = set()
    others: set[bytes] = set()
    last_hand = 0
    count = 0
    side_bytes = 0
    sizes: dict[int, int] = {}
    for off, item in _iter_items(path, light=not keep):
        if isinstance(item, int):           # an entry of the log, not kept
            count += 1
            last_hand = max(last_hand, item)
            if item <= MAX_AGREED_HANDS:
                sizes[item] = sizes.get(item, 0) + 1
        elif isinstance(item, TranscriptHeader):
            header = item
            players = {p.key for p in item.players}
        elif is_side(item.body):
            key = (item.author, item.hand, item.body.get("k"))
            if key in seen and key[2] == "side.complaint":
                # a second one: the complaint its peer stopped on (ReplicatedLog keeps
                # a seat's later complaint of a hand only then)
                key = (item.author, item.hand, ("side.complaint", 2))
            if (key in seen or item.hand > last_hand + 2 or item.hand > MAX_AGREED_HANDS
                    or len(side) >= MAX_SIDE_ENTRIES):
                continue
            size = len(item.encode())
            if side_bytes + size > MAX_SIDE_BYTES:
                continue
            try:
                check_shape(item.body, _SIDE_SHAPE)
            except DecodeError:
                continue
            if item.author not in players and item.author not in others:
                if len(others) >= MAX_OTHER_SIDE_AUTHORS:
                    continue
                others.add(item.author)
            seen.add(key)
            side.append(item)
            side_bytes += size
        else:
            if keep:
                entries.append(item)
                offsets.append(off)
            count += 1
            last_hand = max(last_hand, item.hand)
            if item.hand <= MAX_AGREED_HANDS:
                sizes[item.hand] = sizes.get(item.hand, 0) + 1
    assert header is not None
    return Transcript(header, entries, offsets, header.to_bytes(), side, sizes,
                      last_hand if count else -1), count


def reached_by(transcript: Transcript) -> tuple[dict[int, int], int] | None:
    """``(entries of each hand, last hand)`` of ``transcript``'s log, for
    :func:`p2p.transcript.agreement.agreements_of` (None: a transcript made by hand,
    whose sizes were not counted)."""
    if transcript.last_hand < 0 and transcript.entries:
        return None
    return transcript.hand_sizes, transcript.last_hand


def iter_log(path: str | os.PathLike[str], count: int | None = None) -> Iterator[Envelope]:
    """The game log's entries of a transcript file, one at a time (side entries skipped),
    at most ``count`` of them (the number a first pass counted: entries appended since
    are not read)."""
    n = 0
    for _off, item in iter_transcript(path):
        if count is not None and n >= count:
            return
        if isinstance(item, Envelope) and not is_side(item.body):
            n += 1
            yield item


class TranscriptWriter:
    """Append-only transcript file, fsynced after the header and after every entry."""

    def __init__(self, path: str | os.PathLike[str], header: TranscriptHeader,
                 _append: bool = False) -> None:
        self.path = Path(path)
        self.header = header
        self.unsynced = 0        # entries written but not fsynced yet
        if _append:
            # never through a symbolic link (a game's own store: see open_own)
            self._f: BinaryIO = open_own(self.path, create=False)
        else:
            self._f = open(self.path, "xb")  # noqa: SIM115
            self._write(header.to_bytes())

    @classmethod
    def resume(cls, path: str | os.PathLike[str]) -> tuple[TranscriptWriter, Transcript, int]:
        """Reopen a transcript after a crash: an incomplete last entry (torn write) is cut
        off (and kept in ``<path>.torn``).  Returns the writer, what the file holds, and how many bytes were cut.
        Corruption anywhere else raises TranscriptCorrupt."""
        p = Path(path)
        size = p.stat().st_size
        try:
            t = read_transcript(p, lean=True)
            cut = 0
        except TranscriptCorrupt as e:
            # only a torn last write is repaired: at most one envelope's worth of bytes,
            # kept aside in "<path>.torn" for inspection
            if (e.offset == 0 or "truncated" not in e.reason
                    or size - e.offset > MAX_ENVELOPE_BYTES + 16):
                raise
            cut_aside(p, e.offset, ".torn")
            t = read_transcript(p, lean=True)
            cut = size - e.offset
        return cls(p, t.header, _append=True), t, cut

    def _write(self, b: bytes, sync: bool = True) -> None:
        self._f.write(b)
        self._f.flush()          # in the OS's hands: survives a kill -9 of this process
        if sync:
            os.fsync(self._f.fileno())
            self.unsynced = 0
        else:
            self.unsynced += 1

    def append(self, env: Envelope, sync: bool = True) -> None:
        """Append one entry; with ``sync`` (the default) it is on disk when this returns.
        Without, it is written but not fsynced until :meth:`sync` (group commit)."""
        raw = env.encode()
        if len(raw) > MAX_ENVELOPE_BYTES:
            raise EnvelopeError("envelope too large")
        self._write(raw, sync)

    def sync(self) -> None:
        """fsync every entry appended so far (one fsync for a whole batch)."""
        if self.unsynced:
            os.fsync(self._f.fileno())
            self.unsynced = 0

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LogRecorder:
    """Signs bodies for in-memory seats as a linear log (tests, simulator, benchmarks).

    Each hand's log starts at the header-bound genesis; every entry extends the head.
    Entries go to ``writer`` when given and are kept in ``entries``.
    """

    def __init__(self, identities: Sequence[Identity], header: TranscriptHeader,
                 writer: TranscriptWriter | None = None) -> None:
        self.ids = list(identities)
        self.header = header
        self.writer = writer
        self.entries: list[Envelope] = []
        self.hand = 0
        self.head = b""
        self._seq: list[int] = []

    def start_hand(self, hand: int) -> None:
        self.hand = hand
        self.head = self.header.genesis(hand)
        self._seq = [0] * len(self.ids)

    def record(self, seat: int, body: dict[str, Any]) -> Envelope:
        env = Envelope.create(self.ids[seat], self.header.table, self.hand, self._seq[seat],
                              self.head, body)
        self._seq[seat] += 1
        self.head = env.hash()
        self.entries.append(env)
        if self.writer is not None:
            self.writer.append(env)
        return env

    def record_deck(self, m: DeckMessage) -> None:
        self.record(m.seat, message_to_body(m))


@dataclass(frozen=True)
class DecodedEntry:
    index: int
    hand: int
    seat: int
    body: dict[str, Any]
    deck: DeckMessage | None  #: parsed deck message, None for game-level bodies


@dataclass
class VerifyReport:
    """Result of :func:`verify_crypto`.  A later layer (engine replay) reads
    ``game_bodies`` and stores its own result in ``extra``."""

    ok: bool = True
    entries_checked: int = 0
    failed_index: int | None = None  #: index of the first failing entry (None: header/file)
    check: str | None = None
    blamed_seat: int | None = None
    blamed_key: bytes | None = None
    detail: str = ""
    offset: int | None = None  #: byte offset, for a corrupt file
    #: check ``unsupported-version``: the format version the file's header says
    version: int | None = None
    #: check ``file-too-large``: the file's size (more than MAX_TRANSCRIPT_BYTES)
    file_size: int | None = None
    hands: dict[int, HandResult] = field(default_factory=dict)
    #: the entries that passed, in order (a list, or :class:`EntryLog` after a streaming
    #: pass, which reads them from the file again)
    entries: Sequence[DecodedEntry] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    #: agreements in the side entries (p2p.transcript.agreement): takeovers, the end,
    #: and the hands they voided (checked as far as they went, never revealed)
    takeovers: list[Any] = field(default_factory=list)
    agreed_end: Any = None
    voided: set[int] = field(default_factory=set)
    #: the entries of the last hand the pass reached that passed (all of them, in a
    #: streaming pass: :func:`verify_stream`), up to where the pass stopped
    tail: list[DecodedEntry] = field(default_factory=list, repr=False)
    #: a streaming pass's hooks asked it to stop (``ok`` stays True: every entry up to
    #: ``entries_checked`` passed)
    stopped: bool = False

    @property
    def game_bodies(self) -> list[DecodedEntry]:
        return [e for e in self.entries if e.deck is None]

    def fail(self, index: int | None, check: str, seat: int | None, key: bytes | None,
             detail: str) -> VerifyReport:
        self.ok = False
        self.failed_index, self.check, self.blamed_seat, self.blamed_key = index, check, seat, key
        self.detail = detail
        return self

    def summary(self) -> str:
        if self.ok:
            return f"OK: {self.entries_checked} entries, {len(self.hands)} hand(s) verified"
        who = "nobody identified" if self.blamed_seat is None else f"seat {self.blamed_seat}"
        where = f"entry {self.failed_index}" if self.failed_index is not None else (
            f"byte {self.offset}" if self.offset is not None else "end of hand")
        return f"FAILED at {where}: {self.check} ({who}) {self.detail}"


def _check_pass_proof(inp: Deck, out: Deck, proof: bytes, joint: bytes, table: bytes,
                      hand: int, round_no: int, seat: int) -> str | None:
    """Worker side of :class:`_ProofPool`: the failed check's reason, or None."""
    try:
        verify_pass(inp, out, proof, joint, table, hand, round_no, seat)
    except ShuffleProofError as e:
        return e.reason
    return None


@dataclass
class _PendingProof:
    index: int              #: entry index of the pass
    hand: int
    key: bytes              #: the shuffler's identity key
    deck: DeckHand
    msg: ShufflePass
    job: Future[str | None] | None
    args: tuple[Any, ...]


class _ProofPool:
    """Checks the proofs of shuffle of a transcript in worker processes while the main
    process goes on with the signatures, the share proofs and the reveals.

    The verdict is the sequential one: every proof submitted before the point where the
    main pass stopped (a failure or the end) is resolved in submission order, and the
    first failing one is the verdict, exactly where the one-process verifier would have
    stopped (it checks each pass's proof as the pass's entry is applied)."""

    def __init__(self, workers: int) -> None:
        ctx = multiprocessing.get_context("fork")
        self.executor: ProcessPoolExecutor | None = ProcessPoolExecutor(workers, mp_context=ctx)
        self.pending: list[_PendingProof] = []

    def submit(self, index: int, hand: int, key: bytes, deck: DeckHand, m: ShufflePass,
               inp: Deck) -> None:
        assert deck.joint is not None
        args = (inp, m.deck, m.proof, deck.joint, deck.table_id, deck.hand_no, m.round, m.seat)
        job = None
        if self.executor is not None:
            try:
                job = self.executor.submit(_check_pass_proof, *args)
            except Exception:  # a broken pool: check here instead
                job = None
        self.pending.append(_PendingProof(index, hand, key, deck, m, job, args))

    def first_failure(self) -> tuple[_PendingProof, CheatDetected] | None:
        for p in self.pending:
            reason: str | None
            try:
                reason = p.job.result() if p.job is not None else _check_pass_proof(*p.args)
            except Exception:  # the worker died: check here
                reason = _check_pass_proof(*p.args)
            if reason is not None:
                return p, p.deck.pass_proof_error(p.msg, reason)
        return None

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)
            self.executor = None


def _submitter(pool: _ProofPool, at: list[int], hand: int, deck: DeckHand,
               hdr: TranscriptHeader) -> Callable[[ShufflePass, Deck], None]:
    def submit(m: ShufflePass, inp: Deck) -> None:
        pool.submit(at[0], hand, hdr.players[m.seat].key, deck, m, inp)
    return submit


def verify_crypto(transcript: Transcript | str | os.PathLike[str],
                  workers: int = 0) -> VerifyReport:
    """Check signatures, chain links, every proof, commitments against reveals, every
    shuffle pass recomputed from its seed and every revealed card.

    ``workers > 0`` checks the proofs of shuffle in that many worker processes, in
    parallel with the rest (same verdict; the ``verify`` command uses it).

    Never raises on hostile input: every problem becomes a failed report."""
    rep = VerifyReport()

    def check(pool: _ProofPool | None) -> VerifyReport:
        try:
            return _verify(transcript, rep, pool)
        except Exception as e:  # defensive: a verifier must not crash on a crafted file
            return rep.fail(rep.entries_checked, "unexpected-error", None, None,
                            f"{type(e).__name__}: {e}")
    return _checked_with_proof_pool(rep, workers, check)


def _checked_with_proof_pool(rep: VerifyReport, workers: int,
                             check: Callable[[_ProofPool | None], VerifyReport]
                             ) -> VerifyReport:
    """``check(pool)``, the proofs of shuffle checked meanwhile by ``workers`` processes
    (none where processes cannot be made: one process it is); a proof that fails is the
    report's failure (every proof submitted came before where ``check`` stopped)."""
    pool: _ProofPool | None = None
    if workers > 0:
        try:
            pool = _ProofPool(workers)
        except Exception:  # no processes here: one process it is
            pool = None
    try:
        out = check(pool)
        if pool is not None:
            bad = pool.first_failure()
            if bad is not None:
                out = _proof_failed(rep, *bad)
        return out
    finally:
        if pool is not None:
            pool.close()


def _proof_failed(rep: VerifyReport, p: _PendingProof, cheat: CheatDetected) -> VerifyReport:
    # every proof submitted came before the point where the main pass stopped
    if not isinstance(rep.entries, EntryLog):
        rep.entries = [d for d in rep.entries if d.index < p.index]
    rep.tail = [d for d in rep.tail if d.index < p.index]
    rep.hands = {h: r for h, r in rep.hands.items() if h < p.hand}
    rep.entries_checked = p.index
    rep.stopped = False
    return rep.fail(p.index, cheat.check, cheat.seat, p.key, str(cheat))


def read_failure(rep: VerifyReport, exc: Exception) -> VerifyReport:
    """``rep`` failed for a file that cannot be read as a transcript (``exc``: what
    :func:`read_transcript` raised); an unexpected exception is re-raised."""
    if isinstance(exc, TranscriptVersionError):
        rep.version = exc.version
        return rep.fail(None, "unsupported-version", None, None, exc.plain)
    if isinstance(exc, TranscriptUnreadable):
        if exc.what_id == "too-large":
            rep.file_size = exc.size
            return rep.fail(None, "file-too-large", None, None, exc.plain)
        return rep.fail(None, "file-unreadable", None, None, exc.plain)
    if isinstance(exc, OSError):   # gone meanwhile, no permission: said, never a crash
        return rep.fail(None, "file-unreadable", None, None, exc.strerror or str(exc))
    if isinstance(exc, TranscriptCorrupt):
        rep.offset = exc.offset
        return rep.fail(None, "file-corrupt", None, None, str(exc))
    raise exc


@dataclass
class StreamHooks:
    """What a streaming pass (:func:`verify_stream`) tells its caller as it goes.

    ``on_entry``: each entry that passed, as soon as it did, with its size in bytes;
    True stops the pass there.
    ``on_hand``: a hand's entries once the whole hand passed (its result: the revealed
    decks; None for a hand voided by agreement or with no deck); True stops the pass.
    ``buffer``: keep the current hand's entries for ``on_hand`` (``VerifyReport.tail``);
    a caller that knows it will stop within the hand turns it off."""

    on_entry: Callable[[DecodedEntry, int], bool]
    on_hand: Callable[[int, list[DecodedEntry], HandResult | None], bool]
    buffer: bool = True
    #: the report the pass fills (set by the pass): its ``tail`` is the current hand's
    report: VerifyReport | None = None


class EntryLog(Sequence[DecodedEntry]):
    """The first ``count`` entries of a transcript file's game log as
    :class:`DecodedEntry`, read again from the file each time it is iterated (one entry
    in memory at a time): ``VerifyReport.entries`` of a streaming pass. Indexing reads
    up to the entry asked for. A file changed since it was verified raises
    :class:`TranscriptCorrupt` when read."""

    def __init__(self, path: str | os.PathLike[str], header: TranscriptHeader,
                 takeovers: Sequence[Any], count: int) -> None:
        self.path = path
        self.header = header
        self.takeovers = list(takeovers)
        self.size = count

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[DecodedEntry]:
        base = [p.key for p in self.header.players]
        hand: int | None = None
        seat_of: dict[bytes, int] = {}
        i = -1
        try:
            for i, env in enumerate(iter_log(self.path, self.size)):
                if env.hand != hand:
                    hand = env.hand
                    seat_of = {k: s for s, k in enumerate(keys_at(base, self.takeovers, hand))}
                msg = message_from_body(env.body) if is_deck_body(env.body) else None
                yield DecodedEntry(i, env.hand, seat_of[env.author], env.body, msg)
        except (KeyError, ValueError) as e:
            raise TranscriptCorrupt(0, f"the file changed since it was verified ({e})") from None
        if i + 1 < self.size:
            raise TranscriptCorrupt(0, "the file changed since it was verified (shorter)")

    def __getitem__(self, k: Any) -> Any:
        if isinstance(k, slice):
            return list(self)[k]
        if k < 0:
            k += self.size
        if not 0 <= k < self.size:
            raise IndexError(k)
        for d in self:
            if d.index == k:
                return d
        raise IndexError(k)


def verify_stream(path: str | os.PathLike[str], scanned: tuple[Transcript, int],
                  hooks: StreamHooks | None = None, workers: int = 0) -> VerifyReport:
    """:func:`verify_crypto` of a file read a second time, entry by entry, after a first
    pass (``scanned``: :func:`scan_transcript`'s answer) gave its header, side entries
    and length: only the current hand's entries are held (``VerifyReport.tail``), each
    hand is handed to ``hooks.on_hand`` once it passed, and the report's ``entries`` read
    the file again when iterated (:class:`EntryLog`). Same verdicts as
    :func:`verify_crypto` where it runs to the end; never raises on hostile input."""
    transcript, count = scanned
    rep = VerifyReport()
    stream = Transcript(transcript.header, [], [], transcript.header_bytes, transcript.side,
                        transcript.hand_sizes, transcript.last_hand)

    def check(pool: _ProofPool | None) -> VerifyReport:
        try:
            return _verify_entries(stream, enumerate(iter_log(path, count)), rep, pool,
                                   hooks or StreamHooks(lambda d, n: False,
                                                        lambda h, e, r: False))
        except Exception as e:
            try:
                return read_failure(rep, e)   # the file changed between the passes
            except Exception:
                return rep.fail(rep.entries_checked, "unexpected-error", None, None,
                                f"{type(e).__name__}: {e}")
    out = _checked_with_proof_pool(rep, workers, check)
    rep.entries = EntryLog(path, transcript.header, rep.takeovers, rep.entries_checked)
    return out


def _verify(transcript: Transcript | str | os.PathLike[str], rep: VerifyReport,
            pool: _ProofPool | None = None) -> VerifyReport:
    if not isinstance(transcript, Transcript):
        try:
            transcript = read_transcript(transcript)
        except Exception as e:
            return read_failure(rep, e)
    return _verify_entries(transcript, enumerate(transcript.entries), rep, pool, None)


def _verify_entries(transcript: Transcript, entries: Iterable[tuple[int, Envelope]],
                    rep: VerifyReport, pool: _ProofPool | None,
                    hooks: StreamHooks | None) -> VerifyReport:
    """The checks of :func:`verify_crypto` over ``entries``. Without ``hooks`` every
    entry that passed is kept in ``rep.entries``; with them only the current hand's are
    (``rep.tail``), each hand going to ``hooks.on_hand`` once it passed (its proofs of
    shuffle resolved first)."""
    hdr = transcript.header
    base = [p.key for p in hdr.players]
    rep.takeovers, rep.agreed_end, rep.voided = agreements_of(
        base, transcript.side, hdr.table, reached_by(transcript))
    kept: list[DecodedEntry] = []
    if hooks is None:
        rep.entries = kept
    else:
        hooks.report = rep
    seat_of = {p.key: p.seat for p in hdr.players}
    hand: int | None = None
    log: LogVerifier | None = None
    deck: DeckHand | None = None
    n = len(hdr.players)
    index_of: dict[int, int] = {}  # id(deck message) -> entry index
    last_index = -1

    # A cheat nobody can be blamed for yet (a card seen twice) is remembered: the hand's
    # reveals name the shuffler; only if they do not is the suspicion itself reported.
    suspicion: list[tuple[int, CheatDetected]] = []

    def end_hand() -> VerifyReport | None:
        if hand is None:
            return None
        result: HandResult | None = None
        if not (deck is None or not deck.log or hand in rep.voided):
            try:
                result = rep.hands[hand] = deck.verify_end()
            except CheatDetected as e:
                idx = index_of.get(id(e.ref), last_index) if e.ref is not None else last_index
                key = hdr.players[e.seat].key if e.seat is not None else None
                return rep.fail(idx, e.check, e.seat, key, str(e))
            if suspicion:
                idx, first = suspicion[0]
                return rep.fail(idx, first.check, None, None, str(first))
        if hooks is None:
            return None
        if pool is not None:
            # the hand's proofs of shuffle are resolved before it is handed on
            bad = pool.first_failure()
            pool.pending.clear()
            if bad is not None:
                return _proof_failed(rep, *bad)
        if hooks.on_hand(hand, rep.tail, result):
            rep.stopped = True
            return rep
        return None

    cur = [0]  # the entry being applied (for the proofs checked by the pool)
    reached = reached_by(transcript)
    finished: set[int] = set()
    signed: list[Envelope] | None = None
    def hand_ended() -> None:
        """The hand ended at its last entry: a takeover or an end at that point took effect
        nowhere (see agreements_of), and the keys of the hands after it are the table's
        again."""
        nonlocal signed
        if (reached is not None and hand is not None and deck is not None
                and len(deck.reveals) >= n and hand not in finished
                and (any(t.hand == hand and t.at is not None for t in rep.takeovers)
                     or (rep.agreed_end is not None and rep.agreed_end.hand == hand
                         and rep.agreed_end.at is not None))):
            finished.add(hand)
            if signed is None:
                signed = signed_records(transcript.side, hdr.table)
            rep.takeovers, rep.agreed_end, rep.voided = agreements_of(
                base, signed, hdr.table, reached, finished, signed=True)

    for i, env in entries:
        cur[0] = i
        if env.hand != hand:
            hand_ended()
            # authenticate the entry before letting it close the previous hand (with the
            # keys of its hand: a takeover agreed earlier replaced one)
            seat_of = {k: s for s, k in enumerate(keys_at(base, rep.takeovers, env.hand))}
            if env.author not in seat_of:
                return rep.fail(i, "unknown-author", None, env.author, "not a seated player")
            if not env.signature_ok():
                return rep.fail(i, "bad-signature", seat_of[env.author], env.author,
                                "signature does not verify")
            if hand is not None and env.hand < hand:
                # a genuinely signed entry of an earlier hand, placed here: an honest
                # writer never stores it so, its author signed it only there; nobody
                return rep.fail(i, "hand-order", None, None,
                                f"hand {env.hand} after hand {hand}")
            if (deck is not None and hand is not None and len(deck.reveals) < n
                    and hand not in rep.voided):
                # A new hand may start only once every seat has revealed the last one.
                return rep.fail(i, "hand-order", None, None,
                                f"an entry of hand {env.hand} inside unfinished hand {hand}")
            bad = end_hand()
            if bad is not None:
                return bad
            if hooks is not None:
                rep.tail = []
                index_of.clear()
            hand = env.hand
            # linear, as live (protocol.md §4.1): an entry chained on an earlier entry than
            # the head forks the log; live peers drop it, and ``verify`` called it fair
            log = LogVerifier(hdr.table, hand, seat_of, hdr.genesis(hand), linear=True)
            deck = DeckHand(hdr.table, hand, n, hdr.cards)
            if pool is not None:
                deck.pass_check = _submitter(pool, cur, hand, deck, hdr)
        assert log is not None
        try:
            log.accept(env)
        except DuplicateEntry as e:
            # the very same signed entry again: a replay by whoever wrote the file
            return rep.fail(i, e.check, None, None, str(e))
        except Equivocation as e:
            # two different entries signed for one slot: only their author can make that
            return rep.fail(i, e.check, seat_of.get(env.author), env.author, str(e))
        except LogError as e:
            if e.check == "bad-signature":   # the seat it claims is shown; nobody blamed
                return rep.fail(i, e.check, seat_of.get(env.author), env.author, str(e))
            # a genuinely signed entry out of place (another table's, a gap before it, a
            # `prev` naming no entry here): peers check each link on receipt, so no honest
            # writer stores one; the file was edited (entries left out, moved or spliced
            # in) and its author, who signed it where it belonged, is not blamed
            return rep.fail(i, e.check, None, None, str(e))
        seat = seat_of[env.author]
        msg: DeckMessage | None = None
        if is_deck_body(env.body):
            try:
                msg = message_from_body(env.body)
            except ValueError as e:
                return rep.fail(i, "malformed-body", seat, env.author, str(e))
            if msg.seat != seat:
                return rep.fail(i, "seat-mismatch", seat, env.author,
                                f"deck message names seat {msg.seat}")
            index_of[id(msg)] = i
            assert deck is not None
            try:
                deck.receive(msg)
            except CheatDetected as e:
                s = e.seat
                if s is None and not suspicion:
                    suspicion.append((i, e))
                else:
                    # blame the entry that carried the bad message (a share checked late)
                    at = index_of.get(id(e.ref), i) if e.ref is not None else i
                    return rep.fail(at, e.check, s,
                                    hdr.players[s].key if s is not None else None, str(e))
        decoded = DecodedEntry(i, env.hand, seat, env.body, msg)
        rep.entries_checked = i + 1
        last_index = i
        if hooks is None:
            kept.append(decoded)
            continue
        if hooks.buffer:
            rep.tail.append(decoded)
        if hooks.on_entry(decoded, len(env.encode())):
            rep.stopped = True
            return rep
    hand_ended()
    bad = end_hand()
    if bad is not None:
        return bad
    return rep
