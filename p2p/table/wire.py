"""The table session's wire codec: what peers of one table say to each other.

Payloads are msgpack arrays carried inside the transport's reliable frames::

    [0, [entry, ...]]                 PUSH: entries the sender just wrote
    [1, table, hand, index]           FETCH: "send me hand `hand` from log index `index`"
    [2, [entry, ...], more]           ENTRIES: a reply, possibly spanning the next hands
    [3, inner, sig]                   ABANDON: the sender stops the match for good (signed)
    [4, table]                        DONE: the sender holds the whole match
    [5, inner, sig]                   AWAY: the sender's player quit for now (signed; a
                                      resume brings the seat back)

Each ``entry`` is a signed envelope (:mod:`p2p.transcript.envelope`), decoded and checked
by :class:`~p2p.table.replicated_log.ReplicatedLog`; this module only frames them. Decoding
is bounded before anything else (payload size, string, array and binary lengths; no maps
and no extension types at this level), so no payload can cost more than its size.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import msgpack

from p2p.crypto.identity import Identity, verify_signature
from p2p.transcript.envelope import canonical_packb

__all__ = ["PUSH", "FETCH", "ENTRIES", "ABANDON", "AWAY", "MAX_PAYLOAD", "BATCH_BYTES",
           "WireError", "Push", "Fetch", "Entries", "Abandon", "Away", "decode", "pack",
           "looks_unsigned", "encode_push", "encode_fetch", "encode_entries",
           "encode_abandon", "read_abandon", "encode_away", "read_away", "node_id_for"]

def node_id_for(key: bytes) -> bytes:
    """The transport id of the player with public key ``key`` (never starts with 0x00)."""
    return b"m" + key


PUSH = 0
FETCH = 1
ENTRIES = 2
ABANDON = 3
#: "I hold the whole match": sent by a peer once its match is over, so that the others
#: stop serving late fetches as soon as every seat has it (see Peer.linger)
DONE = 4
ABANDON_TAG = b"millebornes/abandon/v1\x00"
#: "My player quit for now": sent by a peer as its player leaves a match that is not over,
#: so that the others say so at once and need not wait for the transport to give the seat
#: up (the table pauses when it needs that seat; ``resume`` brings it back)
AWAY = 5
AWAY_TAG = b"millebornes/away/v1\x00"

#: Messages this layer refuses outright, before any decoding (a PUSH or ENTRIES reply).
MAX_PAYLOAD = 1 << 20
#: A PUSH or ENTRIES message carries at most about this many bytes of entries.
BATCH_BYTES = 256 * 1024
#: The longest reason an abandon may give (longer ones are cut).
MAX_REASON = 200


class WireError(ValueError):
    """A payload that is not a session message; ``reason`` is the drop reason."""

    def __init__(self, reason: str, detail: str = "") -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(f"{reason}: {detail}" if detail else reason)


@dataclass(frozen=True)
class Push:
    entries: list[object]        # each should be bytes; the log drops any other item


@dataclass(frozen=True)
class Entries:
    entries: list[object]
    more: bool


@dataclass(frozen=True)
class Fetch:
    table: object
    hand: object
    index: object


@dataclass(frozen=True)
class Abandon:
    inner: bytes
    sig: bytes


@dataclass(frozen=True)
class Done:
    table: object


@dataclass(frozen=True)
class Away:
    inner: bytes
    sig: bytes


Message = Push | Entries | Fetch | Abandon | Done | Away


def pack(v: Any) -> bytes:
    out = msgpack.packb(v, use_bin_type=True)
    assert isinstance(out, bytes)
    return out


def decode(payload: bytes) -> Message:
    """One session message, or :class:`WireError` (oversized, malformed, unknown kind)."""
    if len(payload) > MAX_PAYLOAD:
        raise WireError("oversized", f"{len(payload)} bytes")
    try:
        msg = msgpack.unpackb(payload, raw=False, use_list=True, max_bin_len=MAX_PAYLOAD,
                              max_str_len=256, max_array_len=4096, max_map_len=0,
                              max_ext_len=0)
    except Exception as exc:
        raise WireError("malformed", type(exc).__name__) from None
    if not isinstance(msg, list) or not msg or not isinstance(msg[0], int):
        raise WireError("malformed", "not a session message")
    kind = msg[0]
    if kind in (PUSH, ENTRIES) and len(msg) >= 2 and isinstance(msg[1], list):
        if kind == PUSH:
            return Push(msg[1])
        return Entries(msg[1], len(msg) >= 3 and msg[2] is True)
    if kind == FETCH and len(msg) == 4:
        return Fetch(msg[1], msg[2], msg[3])
    if kind == ABANDON and len(msg) == 3:
        if not isinstance(msg[1], bytes) or not isinstance(msg[2], bytes):
            raise WireError("malformed", "abandon")
        return Abandon(msg[1], msg[2])
    if kind == DONE and len(msg) == 2:
        return Done(msg[1])
    if kind == AWAY and len(msg) == 3:
        if not isinstance(msg[1], bytes) or not isinstance(msg[2], bytes):
            raise WireError("malformed", "away")
        return Away(msg[1], msg[2])
    raise WireError("malformed", f"unknown message kind {kind}")


def looks_unsigned(raw: bytes) -> bool:
    """Does ``raw`` look like an envelope's fields without a signature (a 7-item array)?"""
    try:
        v = msgpack.unpackb(raw, raw=False, max_array_len=16)
    except Exception:
        return False
    return isinstance(v, list) and len(v) == 7


def _batches(entries: Iterable[bytes]) -> Iterable[list[bytes]]:
    batch: list[bytes] = []
    size = 0
    for raw in entries:
        if batch and size + len(raw) > BATCH_BYTES:
            yield batch
            batch, size = [], 0
        batch.append(raw)
        size += len(raw)
    if batch:
        yield batch


def encode_push(entries: Iterable[bytes]) -> list[bytes]:
    """PUSH payloads for ``entries``, split so that none exceeds :data:`BATCH_BYTES`
    (beyond a single large entry)."""
    return [pack([PUSH, b]) for b in _batches(entries)]


def encode_fetch(table: bytes, hand: int, index: int) -> bytes:
    return pack([FETCH, table, hand, index])


def encode_entries(entries: list[bytes], more: bool) -> bytes:
    return pack([ENTRIES, entries, more])


def encode_done(table: bytes) -> bytes:
    return pack([DONE, table])


def encode_abandon(identity: Identity, table: bytes, reason: str) -> bytes:
    """A signed ABANDON: the sender stops the match for good, giving ``reason``."""
    inner = canonical_packb({"k": "abandon", "table": table, "key": identity.public_key,
                             "reason": reason[:MAX_REASON]})
    return pack([ABANDON, inner, identity.sign(ABANDON_TAG + inner)])


def read_abandon(msg: Abandon, key: bytes, table: bytes) -> str:
    """The reason of an ABANDON signed by ``key`` for ``table``; :class:`WireError` if it
    is not one (bad signature, malformed, another table)."""
    if not verify_signature(key, msg.sig, ABANDON_TAG + msg.inner):
        raise WireError("bad-signature", "abandon")
    try:
        v = msgpack.unpackb(msg.inner, raw=False, max_str_len=512, max_bin_len=64,
                            max_array_len=0, max_map_len=8, max_ext_len=0)
    except Exception:
        raise WireError("malformed", "abandon") from None
    if not isinstance(v, dict) or v.get("k") != "abandon":
        raise WireError("malformed", "abandon")
    if v.get("table") != table:
        raise WireError("foreign-table", "abandon")
    reason = v.get("reason", "")
    if not isinstance(reason, str):
        # text, as encode_abandon writes it: a reason nested a thousand deep, signed by a
        # seat, raised RecursionError out of the receiving peer's pump (str() of it)
        raise WireError("malformed", "abandon reason")
    return reason[:MAX_REASON]


def encode_away(identity: Identity, table: bytes, session: bytes,
                at: tuple[int, int] = (0, 0)) -> bytes:
    """A signed AWAY: the sender's player quit ``table`` for now. ``session`` is the
    sender's transport session (it changes when the peer restarts), ``at`` the sender's
    own place in the log (hand, sequence number of its next entry): everything it wrote
    before it left comes before ``at``, so such an entry arriving late does not cancel
    the AWAY, and a copy replayed once the seat has written past ``at`` is refused (see
    :func:`read_away`)."""
    inner = canonical_packb({"k": "away", "table": table, "key": identity.public_key,
                             "session": session, "at": [int(at[0]), int(at[1])]})
    return pack([AWAY, inner, identity.sign(AWAY_TAG + inner)])


def read_away(msg: Away, key: bytes, table: bytes) -> tuple[bytes, tuple[int, int]]:
    """The transport session and log place named by an AWAY signed by ``key`` for
    ``table``; :class:`WireError` if it is not one (bad signature, malformed, another
    table)."""
    if not verify_signature(key, msg.sig, AWAY_TAG + msg.inner):
        raise WireError("bad-signature", "away")
    try:
        v = msgpack.unpackb(msg.inner, raw=False, max_str_len=64, max_bin_len=64,
                            max_array_len=2, max_map_len=8)
    except Exception:
        raise WireError("malformed", "away") from None
    if not isinstance(v, dict) or v.get("k") != "away":
        raise WireError("malformed", "away")
    if v.get("table") != table:
        raise WireError("foreign-table", "away")
    session, at = v.get("session"), v.get("at")
    if (not isinstance(session, bytes) or not isinstance(at, list) or len(at) != 2
            or not all(type(x) is int and 0 <= x < 1 << 32 for x in at)):
        raise WireError("malformed", "away")
    return session, (at[0], at[1])
