"""Bounded decoding and strict schemas (p2p.transcript.decoding)."""

from __future__ import annotations

import time

import msgpack
import pytest

from p2p.transcript.decoding import (
    DecodeError,
    Limits,
    bounded_unpackb,
    check_header_obj,
    check_map,
    check_shape,
    is_bool,
    is_bytes,
    is_clean_str,
    is_int,
    is_list,
    is_none_or,
    nested,
    one_of,
)

SMALL = Limits(max_bytes=1000, max_depth=3, max_str=10, max_bin=10, max_array=5, max_map=5,
               max_items=20)


def test_bounded_unpack_limits() -> None:
    assert bounded_unpackb(msgpack.packb([1, [2, [3]]]), SMALL) == [1, [2, [3]]]
    bad = [
        b"x" * 1001,                                  # too many bytes
        msgpack.packb([[[[1]]]]),                      # too deep
        msgpack.packb("x" * 11),                       # string too long
        msgpack.packb(b"x" * 11),                      # binary too long
        msgpack.packb(list(range(6))),                 # array too long
        msgpack.packb({str(i): i for i in range(6)}),  # map too long
        msgpack.packb([[1, 2, 3, 4, 5]] * 5),          # too many values in all
        msgpack.packb({1: 2}),                         # non-str map key
        msgpack.packb(msgpack.ExtType(1, b"x")),       # ext type
        b"\xc1",                                       # never-used byte
        b"\x92\x01",                                   # truncated
        b"\x91" * 5000 + b"\xc0",                      # deeper than msgpack's own stack
    ]
    for raw in bad:
        with pytest.raises(DecodeError):
            bounded_unpackb(raw, SMALL)


def test_shape_walk_is_not_recursive() -> None:
    v: list[object] = []
    for _ in range(100_000):         # far past Python's recursion limit
        v = [v]
    with pytest.raises(DecodeError, match="deeper"):
        check_shape(v, Limits(max_depth=50))


def test_schema_checks() -> None:
    schema = {"a": is_int(0, 10), "b": is_bytes(2), "c": is_list(is_bool(), max_len=2)}
    assert check_map({"a": 3, "b": b"xy", "c": [True]}, schema) == {"a": 3, "b": b"xy",
                                                                 "c": [True]}
    for bad, what in [({"a": 3, "b": b"xy", "c": [], "d": 1}, "unknown field"),
                      ({"a": 3, "b": b"xy"}, "missing field"),
                      ({"a": True, "b": b"xy", "c": []}, "integer"),   # bool is no int
                      ({"a": 2**62, "b": b"xy", "c": []}, "in 0..10"),
                      ({"a": 1, "b": b"x", "c": []}, "2 bytes"),
                      ({"a": 1, "b": b"xy", "c": [1]}, r"c\[0\]"),
                      ({"a": 1, "b": b"xy", "c": [True] * 3}, "items")]:
        with pytest.raises(DecodeError, match=what):
            check_map(bad, schema)
    sub = nested({"x": one_of("p", "q")}, {"y": is_none_or(is_clean_str(5))})
    assert sub({"x": "p", "y": None}, "s") == {"x": "p", "y": None}
    with pytest.raises(DecodeError, match="s.y"):
        sub({"x": "q", "y": "a\x1bb"}, "s")
    with pytest.raises(DecodeError):
        sub({"x": "r"}, "s")


def test_list_length_is_checked_before_any_item() -> None:
    huge = list(range(2_000_000))
    t = time.perf_counter()
    with pytest.raises(DecodeError):
        is_list(is_int(0, 1), max_len=512)(huge, "cards")
    assert time.perf_counter() - t < 0.01


def test_header_schema_rejects_extra_fields_and_bad_players() -> None:
    header = {"format": "millebornes-transcript", "version": 1, "table": b"t" * 16,
              "rules": {}, "cards": [1, 2],
              "players": [{"seat": 0, "name": "a", "key": b"k" * 32},
                          {"seat": 1, "name": "b", "key": b"l" * 32}]}
    check_header_obj(header)
    for change in ({"extra": 1}, {"version": "1"}, {"cards": []},
                   {"players": header["players"][:1]},
                   {"players": [dict(header["players"][0], card=3), header["players"][1]]},
                   {"players": [dict(header["players"][0], name=""), header["players"][1]]}):
        with pytest.raises(DecodeError):
            check_header_obj({**header, **change})
