"""Fuzzing what peers and files feed us: envelope decoding, lobby messages and `verify`.

Whatever the bytes, the only outcomes allowed are a decoded value or the module's own
error (EnvelopeError / None / a failing report): never another exception, never a hang.
The default run is short; ``-m slow`` runs many more examples.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import verify_game
from p2p.table.lobby import parse_lobby
from p2p.table.memory import make_table, play_fair_match
from p2p.table.session import node_id_for
from p2p.transcript.envelope import Envelope, EnvelopeError
from p2p.transcript.file import read_transcript

_CFG, _IDS = make_table(preset("classic"), Seating.solo(2), ["ann", "bob"], b"fuzz")
_GOOD = Envelope.create(_IDS[0], _CFG.table_id, 0, 3, b"p" * 32,
                        {"k": "deck.pass", "deck": [b"x" * 64] * 3, "round": 0, "seat": 0})
_RAW = _GOOD.encode()


def _mutate(raw: bytes, edits: list[tuple[int, int]], cut: int | None, junk: bytes) -> bytes:
    b = bytearray(raw)
    for pos, val in edits:
        b[pos % len(b)] = val
    if cut is not None:
        b = b[: cut % (len(b) + 1)]
    return bytes(b) + junk


def _decode_ok(raw: bytes) -> None:
    try:
        env = Envelope.decode(raw)
    except EnvelopeError:
        return
    assert env.encode() == raw       # anything accepted is canonical


_edits = st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=8)
_junk = st.binary(max_size=16)
_cut = st.none() | st.integers(0, 10_000)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=3000))
def test_envelope_decode_of_random_bytes(raw: bytes) -> None:
    _decode_ok(raw)


@settings(max_examples=150, deadline=None)
@given(_edits, _cut, _junk)
def test_envelope_decode_of_mutated_entries(edits: list[tuple[int, int]], cut: int | None,
                                            junk: bytes) -> None:
    _decode_ok(_mutate(_RAW, edits, cut, junk))


_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**64), 2**64) | st.binary(max_size=40)
    | st.text(max_size=20) | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner,
                                                                 max_size=5),
    max_leaves=30)


@settings(max_examples=150, deadline=None)
@given(_values)
def test_lobby_parse_of_arbitrary_signed_shapes(value: object) -> None:
    """Validly signed lobby messages of any shape: parsed or dropped, never a crash."""
    from p2p.table.lobby import _sign
    obj = {"k": "join", "key": _IDS[1].public_key, "lobby": None, "x": value}
    if isinstance(value, dict):
        obj = dict(value, key=_IDS[1].public_key)
    try:
        payload = _sign(_IDS[1], obj)
    except (EnvelopeError, ValueError, OverflowError):
        return                              # our own encoder refused it: fine
    got = parse_lobby(node_id_for(_IDS[1].public_key), payload)
    assert got is None or got["k"] in ("join", "sit", "ready", "leave", "welcome", "state",
                                       "refused", "start")
    raw = msgpack.packb(value, use_bin_type=True) if not isinstance(value, float) else b"\xc1"
    assert parse_lobby(b"m" + b"\x00" * 32, raw) is None


@pytest.fixture(scope="module")
def short_transcript(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The header and the first entries of a real fair hand (verify reads it quickly)."""
    path = tmp_path_factory.mktemp("fuzz") / "t.mbt"
    cfg, ids = make_table(preset("classic", match_target=1), Seating.solo(2), ["ann", "bob"],
                          b"fuzz-verify")
    play_fair_match(cfg, ids, [make_bot("heuristic", 1).choose, make_bot("heuristic", 2).choose],
                    path)
    t = read_transcript(path)
    data = path.read_bytes()
    return data[: t.offsets[12]] if len(t.offsets) > 12 else data


def _verify(tmp: Path, data: bytes) -> None:
    p = tmp / "f.mbt"
    p.write_bytes(data)
    t = time.monotonic()
    rep = verify_game(p)                      # must return, whatever the file holds
    text = rep.summary()
    assert time.monotonic() - t < 5
    assert "\x1b" not in text and "\x07" not in text


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=_edits, cut=_cut, junk=_junk)
def test_verify_of_mutated_transcripts(tmp_path: Path, short_transcript: bytes,
                                       edits: list[tuple[int, int]], cut: int | None,
                                       junk: bytes) -> None:
    _verify(tmp_path, _mutate(short_transcript, edits, cut, junk))


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(_edits, _cut, _junk)
def test_envelope_decode_of_mutated_entries_long(edits: list[tuple[int, int]], cut: int | None,
                                                 junk: bytes) -> None:
    _decode_ok(_mutate(_RAW, edits, cut, junk))


@pytest.mark.slow
@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=_edits, cut=_cut, junk=_junk)
def test_verify_of_mutated_transcripts_long(tmp_path: Path, short_transcript: bytes,
                                            edits: list[tuple[int, int]], cut: int | None,
                                            junk: bytes) -> None:
    _verify(tmp_path, _mutate(short_transcript, edits, cut, junk))


_kinds = st.sampled_from(["join", "sit", "ready", "leave", "welcome", "state", "refused",
                          "start", "other"])
_field_values = st.none() | st.booleans() | st.integers(-3, 2**70) | st.binary(max_size=40) \
    | st.text(max_size=30) | st.lists(st.integers(0, 20), max_size=4) \
    | st.dictionaries(st.sampled_from(["0", "1", "x"]), st.text(max_size=8), max_size=3)
_fields = st.dictionaries(st.sampled_from(["name", "v", "contrib", "seat", "endpoint", "ready",
                                           "state", "reason", "header", "endpoints",
                                           "contribs", "curve", "lobby", "addrs", "joins",
                                           "zz"]),
                          _field_values, max_size=6)


_NODES: list[Any] = []


def _lobby_nodes() -> tuple[Any, Any]:
    """Two real nodes shared by every example (closed at exit: daemon I/O threads)."""
    if not _NODES:
        from p2p.net.transport import Node
        _NODES.extend(Node(node_id_for(i.public_key)) for i in _IDS[:2])
    return _NODES[0], _NODES[1]


@pytest.fixture(scope="module", autouse=True)
def _close_lobby_nodes() -> Any:
    yield
    for n in _NODES:
        n.close()
    _NODES.clear()


def _valid_fields(kind: str) -> dict[str, object]:
    """A well-formed message of each kind, for the fuzzer to bend one field at a time."""
    from p2p.table.lobby import table_nonce
    cfg, _ = make_table(preset("classic"), Seating.solo(2), ["ann", "bob"], b"fuzz",
                        table_nonce(b"l" * 16, [b"a" * 16, b"b" * 16]))
    state = {"name": "t", "rules": preset("classic").to_dict(), "seating": [2, 2],
             "host": _IDS[0].public_key, "lobby": b"l" * 16,
             "seats": [{"name": "ann", "key": _IDS[0].public_key, "ready": True, "bot": False},
                       {"name": "bob", "key": _IDS[1].public_key, "ready": True, "bot": False}]}
    return {"join": {"name": "bob", "v": 1, "contrib": b"b" * 16, "seat": 1,
                     "addrs": ["tcp://127.0.0.1:2"]},
            "sit": {"seat": 1}, "ready": {"ready": True}, "leave": {}, "welcome": {"v": 1},
            "state": {"state": state}, "refused": {"reason": "no"},
            "start": {"header": cfg.header().to_bytes(), "contribs": [b"a" * 16, b"b" * 16],
                      "endpoints": {"0": "tcp://127.0.0.1:1", "1": "tcp://127.0.0.1:2"},
                      "joins": {"1": b"not a join"}},
            "other": {}}[kind]


@settings(max_examples=150, deadline=None)
@given(_kinds, _fields, st.booleans())
def test_lobby_host_and_joiner_survive_any_signed_message(kind: str, fields: dict[str, object],
                                                          from_valid: bool) -> None:
    """The host handles any signed message from a member, the joiner any from its host:
    whatever the fields, no exception escapes (a joiner may stop, in words)."""
    from p2p.table.lobby import LobbyClient, LobbyError, LobbyHost, _sign

    host_node, client_node = _lobby_nodes()
    host = LobbyHost(_IDS[0], "ann", host_node, preset("classic"), Seating.solo(2))
    if from_valid:
        fields = {**_valid_fields(kind), **dict(list(fields.items())[:1])}
    obj = dict(fields, k=kind, key=_IDS[1].public_key)
    obj.setdefault("lobby", None)
    try:
        payload = _sign(_IDS[1], obj)
    except (EnvelopeError, ValueError, OverflowError):
        return
    host._on(node_id_for(_IDS[1].public_key), payload)

    client = LobbyClient(_IDS[1], "bob", client_node, "127.0.0.1:9")
    client.host_id = host_node.node_id
    obj = dict(fields, k=kind, key=_IDS[0].public_key)
    obj.setdefault("lobby", host.lobby_id)
    try:
        payload = _sign(_IDS[0], obj)
    except (EnvelopeError, ValueError, OverflowError):
        return
    client._on(host_node.node_id, payload)
    if client.refused is not None:
        assert "\x1b" not in client.refused
    try:
        client.pump(0)
    except LobbyError:
        pass
