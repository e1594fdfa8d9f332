"""Signed envelopes and the game-log verifier.

Wire format (msgpack, canonical: maps with str keys sorted, bin for bytes, smallest
integer encodings, no ext types)::

    [1, table: bin, hand: int, author: bin32, seq: int, prev: bin32, body: map, sig: bin64]

``sig`` is the author's Ed25519 signature over ``b"millebornes/envelope/v1\\0"`` followed
by the canonical msgpack of the first seven fields.  The hash of an entry is SHA-256 of
its whole wire encoding; the encoding being canonical, an entry has exactly one hash.
A decoder rejects any non-canonical encoding.

``prev`` is the hash of the game-log entry this one follows (or answers: decryption
shares hang off the entry they answer); the first entry of a hand points at the
hand's genesis hash (:func:`genesis_hash`).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import msgpack

from p2p.crypto.identity import Identity, verify_signature
from p2p.transcript.decoding import DecodeError, Limits, bounded_unpackb, check_shape

__all__ = [
    "ENVELOPE_VERSION",
    "MAX_ENVELOPE_BYTES",
    "Envelope",
    "EnvelopeError",
    "LogError",
    "Equivocation",
    "DuplicateEntry",
    "OutOfOrder",
    "LogVerifier",
    "canonical_packb",
    "genesis_hash",
]

ENVELOPE_VERSION = 1
#: Largest accepted wire encoding (a 106-card shuffle pass is ~7 KiB).
MAX_ENVELOPE_BYTES = 64 * 1024
#: Largest hand number and per-author sequence number an envelope may carry.
MAX_HAND = 1 << 31
MAX_SEQ = 1 << 31
#: Bounds while unpacking an envelope: nothing a deck or game body needs comes close
#: (a 6-player deck pass is a list of ~200 binaries at depth 3). The densest entry of a
#: game is a deck share: 17 values in 306 bytes, one per 18 bytes (classic and modern,
#: 2 to 6 seats, teams); one per 8 bytes beyond 64 is refused, so that a file of
#: envelopes of tiny nested values (signed by a cheater, 60 times their size in memory
#: as read) costs about as much to check as a game's file of its size.
ENVELOPE_LIMITS = Limits(max_bytes=MAX_ENVELOPE_BYTES, max_depth=12, max_str=4096,
                         max_bin=MAX_ENVELOPE_BYTES, max_array=4096, max_map=64,
                         max_items=20_000, bytes_per_item=8)
#: Bounds checked (without recursion) before the canonical encoder recurses into a value.
CANONICAL_LIMITS = Limits(max_bytes=1 << 30, max_depth=32, max_items=1 << 20)
_SIGN_TAG = b"millebornes/envelope/v1\x00"
_GENESIS_TAG = b"millebornes/genesis/v1\x00"


class EnvelopeError(ValueError):
    """Malformed, oversized or non-canonical encoding."""


def _canon(v: Any) -> Any:
    if isinstance(v, dict):
        for k in v:
            if not isinstance(k, str):
                raise EnvelopeError("map keys must be str")
        return {k: _canon(v[k]) for k in sorted(v)}
    if isinstance(v, (list, tuple)):
        return [_canon(x) for x in v]
    if v is None or isinstance(v, (bool, int, str, bytes, float)):
        return v
    raise EnvelopeError(f"type {type(v).__name__} cannot be encoded")


def canonical_packb(v: Any) -> bytes:
    """Canonical msgpack: sorted str keys, bin type for bytes.

    The depth and size are checked first without recursion (EnvelopeError beyond
    :data:`CANONICAL_LIMITS`), so a hostile nested value cannot exhaust the stack."""
    try:
        check_shape(v, CANONICAL_LIMITS)
    except DecodeError as exc:
        raise EnvelopeError(f"cannot encode: {exc}") from None
    return msgpack.packb(_canon(v), use_bin_type=True)  # type: ignore[no-any-return]


def genesis_hash(table_id: bytes, hand: int, setup_digest: bytes = b"") -> bytes:
    """``prev`` of a hand's first entry: binds table, hand and the table setup digest
    (for transcripts: SHA-256 of the header bytes)."""
    return hashlib.sha256(_GENESIS_TAG + struct.pack(">I", len(table_id)) + table_id
                          + struct.pack(">q", hand) + setup_digest).digest()


@dataclass(frozen=True)
class Envelope:
    table: bytes
    hand: int
    author: bytes
    seq: int
    prev: bytes
    body: dict[str, Any]
    sig: bytes

    def _fields(self) -> list[Any]:
        return [ENVELOPE_VERSION, self.table, self.hand, self.author, self.seq, self.prev,
                self.body]

    def signed_bytes(self) -> bytes:
        enc = self.__dict__.get("_encoded")
        tail = b"\xc4\x40" + self.sig
        if isinstance(enc, bytes) and len(self.sig) == 64 and enc[:1] == b"\x98" \
                and enc.endswith(tail):
            # encode() is the fixarray of the 7 signed fields and the signature (bin8 of
            # 64 bytes): the signed fields' own fixarray is the same bytes minus the last
            # element, under a 7-item header (saves a canonical re-encoding per entry)
            return _SIGN_TAG + b"\x97" + enc[1:-len(tail)]
        return _SIGN_TAG + canonical_packb(self._fields())

    @classmethod
    def create(cls, identity: Identity, table: bytes, hand: int, seq: int, prev: bytes,
               body: dict[str, Any]) -> Envelope:
        if len(prev) != 32:
            raise EnvelopeError("prev must be 32 bytes")
        unsigned = cls(table, hand, identity.public_key, seq, prev, body, b"")
        fields = canonical_packb(unsigned._fields())     # the fixarray of the 7 fields
        sig = identity.sign(_SIGN_TAG + fields)
        env = cls(table, hand, identity.public_key, seq, prev, body, sig)
        # encode() would give the same bytes: the 8-item fixarray is the 7 fields and the
        # signature as bin8 (one canonical encoding per entry instead of two)
        if len(sig) == 64 and fields[:1] == b"\x97":
            object.__setattr__(env, "_encoded", b"\x98" + fields[1:] + b"\xc4\x40" + sig)
        if len(env.encode()) > MAX_ENVELOPE_BYTES:
            raise EnvelopeError("envelope too large")
        return env

    def encode(self) -> bytes:
        """Canonical encoding (computed once: an envelope and its body are never changed
        after they are made)."""
        enc = self.__dict__.get("_encoded")
        if enc is None:
            enc = canonical_packb(self._fields() + [self.sig])
            object.__setattr__(self, "_encoded", enc)
        assert isinstance(enc, bytes)
        return enc

    def hash(self) -> bytes:
        return hashlib.sha256(self.encode()).digest()

    def signature_ok(self) -> bool:
        return verify_signature(self.author, self.sig, self.signed_bytes())

    @classmethod
    def decode(cls, raw: bytes) -> Envelope:
        """Bounded decode (size, depth, item count, field types and ranges) before the
        canonical re-encoding; the caller checks the signature next."""
        try:
            v = bounded_unpackb(raw, ENVELOPE_LIMITS)
        except DecodeError as e:
            raise EnvelopeError(f"undecodable envelope: {e}") from None
        if not isinstance(v, list) or len(v) != 8 or v[0] != ENVELOPE_VERSION:
            raise EnvelopeError("not a version-1 envelope")
        _, table, hand, author, seq, prev, body, sig = v
        if not (isinstance(table, bytes) and 1 <= len(table) <= 64
                and type(hand) is int and 0 <= hand < MAX_HAND
                and isinstance(author, bytes) and len(author) == 32
                and type(seq) is int and 0 <= seq < MAX_SEQ
                and isinstance(prev, bytes) and len(prev) == 32 and isinstance(body, dict)
                and isinstance(sig, bytes) and len(sig) == 64):
            raise EnvelopeError("envelope fields have wrong types")
        env = cls(table, hand, author, seq, prev, body, sig)
        try:
            canonical = env.encode()
        except EnvelopeError:
            raise
        if canonical != raw:
            raise EnvelopeError("non-canonical envelope encoding")
        return env


class LogError(Exception):
    """An entry was rejected; ``author`` is the key to blame (None if unknown)."""

    def __init__(self, author: bytes | None, check: str, detail: str = "",
                 entry: Envelope | None = None) -> None:
        self.author = author
        self.check = check
        self.detail = detail
        self.entry = entry
        who = author.hex()[:16] if author else "unknown author"
        super().__init__(f"{check} by {who}" + (f": {detail}" if detail else ""))


class Equivocation(LogError):
    """Two different signed entries for one slot (author, seq): both kept as evidence."""

    def __init__(self, first: Envelope, second: Envelope) -> None:
        super().__init__(first.author, "equivocation",
                         f"two different entries signed for seq {first.seq}", second)
        self.first = first
        self.second = second


class DuplicateEntry(LogError):
    """The very same entry again (a resend or replay): ignore it, nobody is to blame."""


class OutOfOrder(LogError):
    """A sequence gap: the entry may be buffered and offered again later."""


class LogVerifier:
    """Accepts the signed entries of one hand of one table, in order.

    * ``authors``: the seated players' public keys (anyone else is rejected);
    * ``linear``: when True every entry must extend the current head; otherwise
      ``prev`` may be any accepted entry (decryption shares answer an earlier entry).
    """

    def __init__(self, table: bytes, hand: int, authors: Iterable[bytes], genesis: bytes,
                 linear: bool = False) -> None:
        self.table = table
        self.hand = hand
        self.authors = frozenset(authors)
        self.genesis = genesis
        self.linear = linear
        self.entries: list[Envelope] = []
        self.head = genesis
        self._known: set[bytes] = {genesis}
        self._slots: dict[tuple[bytes, int], Envelope] = {}
        self._next: dict[bytes, int] = {a: 0 for a in self.authors}
        self.evidence: list[Equivocation] = []

    def next_seq(self, author: bytes) -> int:
        return self._next[author]

    def accept(self, entry: Envelope | bytes, signed_here: bool = False) -> Envelope:
        """Check ``entry`` against everything accepted so far and append it.

        ``signed_here``: the caller has just made the signature itself (its own entry, from
        :meth:`Envelope.create`), so it is not checked again — an Ed25519 verification
        per own entry was about 4 % of a peer's CPU in a match.  Anything read from the wire
        or from a file is checked."""
        env = Envelope.decode(entry) if isinstance(entry, bytes) else entry
        a = env.author
        if a not in self.authors:
            raise LogError(a, "unknown-author", "not a seated player", env)
        if not signed_here and not env.signature_ok():
            raise LogError(a, "bad-signature", "signature does not verify", env)
        if env.table != self.table:
            raise LogError(a, "wrong-table", f"entry for table {env.table.hex()[:16]}", env)
        if env.hand != self.hand:
            raise LogError(a, "wrong-hand", f"entry for hand {env.hand}, this is {self.hand}",
                           env)
        old = self._slots.get((a, env.seq))
        if old is not None:
            if old.encode() == env.encode():
                raise DuplicateEntry(a, "duplicate", f"seq {env.seq} again", env)
            eq = Equivocation(old, env)
            self.evidence.append(eq)
            raise eq
        if env.seq != self._next[a]:
            if env.seq < self._next[a]:  # pragma: no cover - slot would exist
                raise LogError(a, "replayed-seq", f"seq {env.seq} already used", env)
            raise OutOfOrder(a, "out-of-order", f"seq {env.seq}, expected {self._next[a]}", env)
        if self.linear and env.prev != self.head:
            raise LogError(a, "broken-link", "prev is not the log head", env)
        if env.prev not in self._known:
            raise LogError(a, "broken-link", "prev names no accepted entry", env)
        h = env.hash()
        self._slots[(a, env.seq)] = env
        self._next[a] += 1
        self._known.add(h)
        self.entries.append(env)
        self.head = h
        return env
