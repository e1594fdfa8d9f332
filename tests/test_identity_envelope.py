"""Long-term identity files, signed envelopes and the game-log verifier."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import msgpack
import pytest

from p2p.crypto.identity import Identity, IdentityError, default_identity_path, fingerprint
from p2p.transcript.envelope import (
    MAX_ENVELOPE_BYTES,
    DuplicateEntry,
    Envelope,
    EnvelopeError,
    Equivocation,
    LogError,
    LogVerifier,
    OutOfOrder,
    genesis_hash,
)

# ------------------------------------------------------------------ identity


def test_identity_created_with_mode_0600_and_reloaded(tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "millebornes" / "identity.key"
    a = Identity.load_or_create(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.stat().st_size == 32
    b = Identity.load_or_create(path)
    assert a.public_key == b.public_key
    assert a.fingerprint == b.fingerprint
    assert b.verify(a.sign(b"hello"), b"hello")
    assert not b.verify(a.sign(b"hello"), b"hellO")


def test_identity_default_location_follows_xdg(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_identity_path() == tmp_path / "millebornes" / "identity.key"
    ident = Identity.load_or_create()
    assert ident.path == tmp_path / "millebornes" / "identity.key"
    assert stat.S_IMODE(os.stat(tmp_path / "millebornes" / "identity.key").st_mode) == 0o600


def test_identity_refuses_unsafe_mode_or_bad_file(tmp_path: Path) -> None:
    path = tmp_path / "identity.key"
    Identity.load_or_create(path)
    os.chmod(path, 0o644)
    with pytest.raises(IdentityError):
        Identity.load_or_create(path)
    os.chmod(path, 0o600)
    path.write_bytes(b"short")
    with pytest.raises(IdentityError):
        Identity.load_or_create(path)


def test_fingerprint_is_stable_and_short() -> None:
    ident = Identity.from_seed(b"alice")
    fp = ident.fingerprint
    assert re.fullmatch(r"[A-Z2-7]{5}-[A-Z2-7]{5}", fp)
    assert fp == Identity.from_seed(b"alice").fingerprint == fingerprint(ident.public_key)
    assert fp != Identity.from_seed(b"bob").fingerprint
    # pinned: the fingerprint of a given key must never change between versions
    assert fingerprint(bytes(32)) == "MZUHV-LPYMK"  # base32(sha256(32 zero bytes))[:10]


# ------------------------------------------------------------------ envelopes

A, B, C = (Identity.from_seed(s) for s in (b"a", b"b", b"c"))
TABLE = b"table-1"
G1 = genesis_hash(TABLE, 1)


def _verifier(hand: int = 1, **kw: bool) -> LogVerifier:
    return LogVerifier(TABLE, hand, [A.public_key, B.public_key], genesis_hash(TABLE, hand),
                       **kw)


def test_envelope_roundtrip_and_canonical() -> None:
    e = Envelope.create(A, TABLE, 1, 0, G1, {"z": 1, "a": [b"\x00", "x", None]})
    raw = e.encode()
    assert Envelope.decode(raw) == Envelope(TABLE, 1, A.public_key, 0, G1,
                                            {"a": [b"\x00", "x", None], "z": 1}, e.sig)
    assert e.signature_ok()
    # same content, keys in another order: not canonical, rejected
    fields = msgpack.unpackb(raw, raw=False)
    fields[6] = {"z": 1, "a": [b"\x00", "x", None]}
    with pytest.raises(EnvelopeError):
        Envelope.decode(msgpack.packb(fields, use_bin_type=True))
    with pytest.raises(EnvelopeError):
        Envelope.decode(raw[:-1])
    with pytest.raises(EnvelopeError):
        Envelope.decode(b"\x00" * (MAX_ENVELOPE_BYTES + 1))
    with pytest.raises(EnvelopeError):
        Envelope.create(A, TABLE, 1, 0, G1, {"blob": b"x" * MAX_ENVELOPE_BYTES})


def test_log_accepts_chain_and_shares_hanging_off_entries() -> None:
    v = _verifier()
    e0 = v.accept(Envelope.create(A, TABLE, 1, 0, G1, {"k": "move"}))
    e1 = v.accept(Envelope.create(B, TABLE, 1, 0, e0.hash(), {"k": "move"}))
    # a share answering e0 (not the head) is fine in the default mode
    v.accept(Envelope.create(A, TABLE, 1, 1, e0.hash(), {"k": "share"}).encode())
    assert [x.seq for x in v.entries] == [0, 0, 1]
    assert v.next_seq(A.public_key) == 2 and e1.hash() in v._known


def test_forged_signature_names_author() -> None:
    v = _verifier()
    e = Envelope.create(A, TABLE, 1, 0, G1, {"k": "move", "card": 3})
    forged = Envelope(e.table, e.hand, e.author, e.seq, e.prev, {"k": "move", "card": 4}, e.sig)
    with pytest.raises(LogError) as ex:
        v.accept(forged)
    assert ex.value.check == "bad-signature" and ex.value.author == A.public_key
    # B signing as A is the same forgery
    impostor = Envelope(TABLE, 1, A.public_key, 0, G1, {"k": "m"},
                        B.sign(Envelope(TABLE, 1, A.public_key, 0, G1, {"k": "m"}, b"").signed_bytes()))
    with pytest.raises(LogError) as ex:
        v.accept(impostor)
    assert ex.value.check == "bad-signature" and ex.value.author == A.public_key


def test_unknown_author() -> None:
    with pytest.raises(LogError) as ex:
        _verifier().accept(Envelope.create(C, TABLE, 1, 0, G1, {}))
    assert ex.value.check == "unknown-author" and ex.value.author == C.public_key


def test_replay_from_other_table_or_old_hand() -> None:
    v = _verifier(hand=2)
    other = Envelope.create(A, b"table-2", 2, 0, genesis_hash(TABLE, 2), {})
    with pytest.raises(LogError) as ex:
        v.accept(other)
    assert ex.value.check == "wrong-table" and ex.value.author == A.public_key
    old = Envelope.create(B, TABLE, 1, 0, G1, {})
    with pytest.raises(LogError) as ex:
        v.accept(old)
    assert ex.value.check == "wrong-hand" and ex.value.author == B.public_key


def test_replay_within_hand_duplicate_and_equivocation() -> None:
    v = _verifier()
    e0 = Envelope.create(A, TABLE, 1, 0, G1, {"k": "move", "card": 1})
    v.accept(e0)
    with pytest.raises(DuplicateEntry):
        v.accept(e0.encode())
    assert len(v.entries) == 1
    e0b = Envelope.create(A, TABLE, 1, 0, G1, {"k": "move", "card": 2})
    with pytest.raises(Equivocation) as ex:
        v.accept(e0b)
    assert ex.value.author == A.public_key
    assert ex.value.first == e0 and ex.value.second == e0b
    assert v.evidence == [ex.value]
    # both pieces of evidence verify on their own
    assert ex.value.first.signature_ok() and ex.value.second.signature_ok()


def test_out_of_order_seq_and_broken_link() -> None:
    v = _verifier()
    with pytest.raises(OutOfOrder) as ex:
        v.accept(Envelope.create(A, TABLE, 1, 1, G1, {}))
    assert ex.value.author == A.public_key
    with pytest.raises(LogError) as ex2:
        v.accept(Envelope.create(B, TABLE, 1, 0, bytes(32), {}))
    assert ex2.value.check == "broken-link" and ex2.value.author == B.public_key
    lin = _verifier(linear=True)
    e0 = lin.accept(Envelope.create(A, TABLE, 1, 0, G1, {}))
    lin.accept(Envelope.create(B, TABLE, 1, 0, e0.hash(), {}))
    with pytest.raises(LogError) as ex3:
        lin.accept(Envelope.create(A, TABLE, 1, 1, e0.hash(), {}))  # not the head
    assert ex3.value.check == "broken-link"


def test_cached_encoding_gives_the_same_signed_bytes() -> None:
    """An envelope keeps its canonical encoding; the signed bytes derived from it are the
    ones computed from the fields, for a made and for a decoded envelope."""
    from p2p.transcript.envelope import _SIGN_TAG, canonical_packb

    ident = Identity.generate()
    for body in ({}, {"k": "x"}, {"k": "deck.pass", "v": [1, b"ab" * 300, {"z": None}]}):
        env = Envelope.create(ident, b"table-id", 3, 5, bytes(32), body)
        direct = _SIGN_TAG + canonical_packb(env._fields())
        again = Envelope.decode(env.encode())
        assert env.signed_bytes() == direct == again.signed_bytes()
        assert again.encode() == env.encode() and again.signature_ok()
        forged = Envelope(env.table, env.hand, env.author, env.seq + 1, env.prev, env.body,
                          env.sig)
        forged.encode()
        assert not forged.signature_ok()
