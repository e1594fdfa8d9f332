"""Bounded decoding of untrusted msgpack, and strict schemas for what comes out of it.

Everything a peer or a file gives us goes through here before any deep processing
(signature checks, canonical re-encoding, the rules): msgpack's own limits bound every
string, binary, array and map while unpacking; a non-recursive walk then bounds the depth
and the total number of items, so no later recursive code (the canonical encoder, repr,
the rules) can be driven into a ``RecursionError`` or into work that grows with a hostile
number of items.  The schema checks turn "a map with these fields of these types and
ranges" into one call that raises :class:`DecodeError` with the path of the first bad
field; unknown fields are rejected, so a message cannot smuggle extra data past a check
that ignores it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import msgpack

from p2p.text import safe_text

__all__ = [
    "DecodeError",
    "Limits",
    "Check",
    "bounded_unpackb",
    "check_shape",
    "check_map",
    "is_bytes",
    "is_int",
    "is_str",
    "is_bool",
    "is_clean_str",
    "is_none_or",
    "is_list",
    "is_any_map",
    "one_of",
]


class DecodeError(ValueError):
    """Input that is not what it must be: undecodable, too big, too deep, or off-schema."""


@dataclass(frozen=True)
class Limits:
    """Bounds for one kind of input.  ``max_items`` counts every value in the tree."""

    max_bytes: int = 64 * 1024
    max_depth: int = 16
    max_str: int = 4096
    max_bin: int = 64 * 1024
    max_array: int = 4096
    max_map: int = 64
    max_items: int = 100_000
    #: At least this many bytes of input per value beyond :data:`ITEM_ALLOWANCE` (0: no
    #: such bound). A decoded value costs some 60 bytes of memory, and a byte of msgpack
    #: can be a value of its own: without it, a file of tiny nested maps took 60 times
    #: its size to read.
    bytes_per_item: int = 0


#: Values any input may hold whatever its size (see :attr:`Limits.bytes_per_item`).
ITEM_ALLOWANCE = 64


def bounded_unpackb(raw: bytes, limits: Limits) -> Any:
    """Unpack one msgpack object within ``limits`` (no ext types, str map keys only)."""
    if not isinstance(raw, bytes | bytearray | memoryview):
        raise DecodeError("not bytes")
    if len(raw) > limits.max_bytes:
        raise DecodeError(f"{len(raw)} bytes exceed the limit of {limits.max_bytes}")
    try:
        obj = msgpack.unpackb(
            raw, raw=False, strict_map_key=True, use_list=True,
            max_str_len=limits.max_str, max_bin_len=limits.max_bin,
            max_array_len=limits.max_array, max_map_len=limits.max_map, max_ext_len=0)
    except Exception as exc:  # msgpack raises many types (ValueError, StackError, ...)
        raise DecodeError(f"undecodable: {type(exc).__name__}") from None
    items = check_shape(obj, limits)
    if limits.bytes_per_item and items > ITEM_ALLOWANCE + len(raw) // limits.bytes_per_item:
        raise DecodeError(f"{items} values in {len(raw)} bytes: more than the limit of one "
                          f"value per {limits.bytes_per_item} bytes (beyond {ITEM_ALLOWANCE})")
    return obj


def check_shape(obj: Any, limits: Limits) -> int:
    """Depth and item count of a decoded tree, without recursion; map keys must be str.
    Returns the count.

    Also used before encoding locally built values, so our own encoder never recurses
    deeper than ``limits.max_depth``."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    items = 0
    while stack:
        v, depth = stack.pop()
        items += 1
        if items > limits.max_items:
            raise DecodeError(f"more than {limits.max_items} values")
        if isinstance(v, dict):
            if depth > limits.max_depth:
                raise DecodeError(f"nested deeper than {limits.max_depth}")
            for k, x in v.items():
                if not isinstance(k, str):
                    raise DecodeError("map keys must be str")
                stack.append((x, depth + 1))
        elif isinstance(v, list | tuple):
            if depth > limits.max_depth:
                raise DecodeError(f"nested deeper than {limits.max_depth}")
            stack.extend((x, depth + 1) for x in v)
    return items


# ----------------------------------------------------------------------------- schemas

#: A field check: returns the (possibly converted) value or raises DecodeError.
Check = Callable[[Any, str], Any]


def _fail(path: str, what: str) -> DecodeError:
    return DecodeError(f"{path or 'value'}: {what}")


def is_bytes(size: int | None = None, *, min_len: int = 0, max_len: int = 1 << 20) -> Check:
    def check(v: Any, path: str) -> bytes:
        if not isinstance(v, bytes):
            raise _fail(path, "must be bytes")
        if size is not None and len(v) != size:
            raise _fail(path, f"must be {size} bytes, not {len(v)}")
        if not min_len <= len(v) <= max_len:
            raise _fail(path, f"must be {min_len}..{max_len} bytes")
        return v
    return check


def is_int(lo: int, hi: int) -> Check:
    """An integer (never a bool) with ``lo <= v <= hi``."""
    def check(v: Any, path: str) -> int:
        if type(v) is not int:
            raise _fail(path, "must be an integer")
        if not lo <= v <= hi:
            raise _fail(path, f"must be in {lo}..{hi}")
        return v
    return check


def is_str(max_len: int = 256, *, min_len: int = 0) -> Check:
    def check(v: Any, path: str) -> str:
        if not isinstance(v, str):
            raise _fail(path, "must be a string")
        if not min_len <= len(v) <= max_len:
            raise _fail(path, f"must be {min_len}..{max_len} characters")
        return v
    return check


def is_clean_str(max_len: int = 256) -> Check:
    """A non-empty string that :func:`p2p.text.safe_text` leaves unchanged: no control,
    format or invisible characters, no line breaks (names other players will see)."""
    def check(v: Any, path: str) -> str:
        if not isinstance(v, str) or not 1 <= len(v) <= max_len:
            raise _fail(path, f"must be a string of 1..{max_len} characters")
        if safe_text(v, max_len, placeholder="") != v:
            raise _fail(path, "contains control or invisible characters")
        return v
    return check


def is_bool() -> Check:
    def check(v: Any, path: str) -> bool:
        if not isinstance(v, bool):
            raise _fail(path, "must be true or false")
        return v
    return check


def is_none_or(inner: Check) -> Check:
    def check(v: Any, path: str) -> Any:
        return None if v is None else inner(v, path)
    return check


def one_of(*values: Any) -> Check:
    def check(v: Any, path: str) -> Any:
        if type(v) not in {type(x) for x in values} or v not in values:
            raise _fail(path, f"must be one of {', '.join(map(repr, values))}")
        return v
    return check


def is_list(item: Check, *, max_len: int, min_len: int = 0) -> Check:
    """A list whose length is checked before any item is looked at."""
    def check(v: Any, path: str) -> list[Any]:
        if not isinstance(v, list):
            raise _fail(path, "must be a list")
        if not min_len <= len(v) <= max_len:
            raise _fail(path, f"must have {min_len}..{max_len} items, not {len(v)}")
        return [item(x, f"{path}[{i}]") for i, x in enumerate(v)]
    return check


def is_any_map(max_len: int = 64) -> Check:
    """A map checked elsewhere (e.g. by the rules' own parser); only its size here."""
    def check(v: Any, path: str) -> dict[str, Any]:
        if not isinstance(v, dict) or len(v) > max_len:
            raise _fail(path, f"must be a map of at most {max_len} fields")
        return v
    return check


def check_map(v: Any, required: Mapping[str, Check], optional: Mapping[str, Check] | None = None,
              path: str = "") -> dict[str, Any]:
    """A map with exactly the ``required`` fields and any of the ``optional`` ones, each
    checked; any other field is an error."""
    optional = optional or {}
    if not isinstance(v, dict):
        raise _fail(path, "must be a map")
    unknown = [k for k in v if k not in required and k not in optional]
    if unknown:
        raise _fail(path, f"unknown field {str(unknown[0])[:32]!r}")
    out: dict[str, Any] = {}
    for k, check in required.items():
        if k not in v:
            raise _fail(path, f"missing field {k!r}")
        out[k] = check(v[k], f"{path}.{k}" if path else k)
    for k, check in optional.items():
        if k in v:
            out[k] = check(v[k], f"{path}.{k}" if path else k)
    return out


def nested(required: Mapping[str, Check], optional: Mapping[str, Check] | None = None) -> Check:
    """A sub-map as a field check."""
    def check(v: Any, path: str) -> dict[str, Any]:
        return check_map(v, required, optional, path)
    return check


__all__ += ["nested"]


# ----------------------------------------------------------------- transcript header

#: A table has at most this many seats and its deck at most this many cards; a header
#: announcing more is refused by its length, before any item is looked at.
MAX_PLAYERS = 16
MAX_CARDS = 512
MAX_PLAYER_NAME = 64
#: Bounds for a header's bytes (in a file or in the lobby's start message).
HEADER_LIMITS = Limits(max_bytes=64 * 1024, max_depth=6, max_str=1024, max_bin=1024,
                       max_array=MAX_CARDS, max_map=64, max_items=4096)

_PLAYER = nested({"seat": is_int(0, MAX_PLAYERS - 1), "name": is_clean_str(MAX_PLAYER_NAME),
                  "key": is_bytes(32)})
#: The ``rules`` field of a table's header (p2p.table.config): rule set, seating, nonce.
TABLE_META_FIELDS: dict[str, Check] = {
    "rules": is_any_map(64), "seating": is_list(is_int(1, MAX_PLAYERS), min_len=2, max_len=2)}
TABLE_META_OPTIONAL: dict[str, Check] = {
    "nonce": is_bytes(max_len=64),
    # per seat: [CURVE public key, its certificate by the seat's signing key]
    "curve": is_list(is_list(is_bytes(max_len=64), min_len=2, max_len=2), min_len=2,
                     max_len=MAX_PLAYERS),
    # the table's time limits in ms: [every protocol step, a player's move (0: untimed)]
    "limits": is_list(is_int(0, 86_400_000), min_len=2, max_len=2)}


def check_header_obj(v: Any) -> dict[str, Any]:
    """The strict schema of a transcript header map (see p2p.transcript.file): exactly the
    known fields, bounded lists checked by length first, integers in range.  Cheap: it
    rejects a header announcing two million cards without looking at them."""
    return check_map(v, {
        "format": is_str(64), "version": is_int(0, 1 << 16),
        "table": is_bytes(min_len=1, max_len=64), "rules": is_any_map(64),
        "players": is_list(_PLAYER, min_len=2, max_len=MAX_PLAYERS),
        "cards": is_list(is_int(0, (1 << 32) - 1), min_len=1, max_len=MAX_CARDS),
    })


__all__ += ["MAX_PLAYERS", "MAX_CARDS", "MAX_PLAYER_NAME", "HEADER_LIMITS", "check_header_obj",
            "TABLE_META_FIELDS", "TABLE_META_OPTIONAL"]
