"""Group wrapper and Fiat–Shamir proofs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.crypto import group as g
from p2p.crypto.proofs import (
    Proof,
    ProofError,
    dleq_check,
    dleq_prove,
    dleq_verify,
    schnorr_check,
    schnorr_prove,
    schnorr_verify,
)

ORDER2 = bytes.fromhex("ec" + "ff" * 30 + "7f")  # (0, -1): the point of order 2
scalars = st.integers(min_value=1, max_value=g.L - 1)


def test_group_laws() -> None:
    a, b = g.random_scalar(), g.random_scalar()
    assert g.add(g.base(a), g.base(b)) == g.base(a + b)
    assert g.sub(g.base(a), g.base(b)) == g.base(a - b)
    assert g.mul(b, g.base(a)) == g.base(a * b)
    assert g.mul(a, g.G) == g.base(a)


def test_identity_results_raise() -> None:
    with pytest.raises(g.GroupError):
        g.mul(0, g.G)
    with pytest.raises(g.GroupError):
        g.mul(g.L, g.G)
    with pytest.raises(g.GroupError):
        g.base(0)


def test_point_validation_rejects_bad_encodings() -> None:
    p = g.base(7)
    assert g.is_valid_point(p)
    assert not g.is_valid_point(g.IDENTITY)
    assert not g.is_valid_point(ORDER2)
    mixed = g.add(p, ORDER2)  # prime-order part plus torsion
    assert not g.is_valid_point(mixed)
    assert not g.is_valid_point(p[:31])
    assert not g.is_valid_point("x" * 32)
    non_canonical = (2**255 - 19 + 1).to_bytes(32, "little")  # y = p + 1
    assert not g.is_valid_point(non_canonical)
    # variable-base multiplication refuses small-order and mixed-order inputs
    for bad in (ORDER2, mixed, g.IDENTITY):
        with pytest.raises(g.GroupError):
            g.mul(3, bad)
    with pytest.raises(g.GroupError):
        g.check_point(mixed)
    with pytest.raises(g.GroupError):
        g.add(p, p[:31])


def test_hash_to_point_is_deterministic_valid_and_distinct() -> None:
    pts = [g.hash_to_point(b"millebornes/card/v1", i.to_bytes(4, "big")) for i in range(106)]
    assert len(set(pts)) == 106
    assert all(g.is_valid_point(p) for p in pts)
    assert pts[3] == g.hash_to_point(b"millebornes/card/v1", (3).to_bytes(4, "big"))
    assert pts[3] != g.hash_to_point(b"other/domain", (3).to_bytes(4, "big"))


def test_drbg_is_deterministic_and_permutes() -> None:
    seed = bytes(range(32))
    a, b = g.Drbg(seed, b"x"), g.Drbg(seed, b"x")
    assert a.permutation(106) == b.permutation(106)
    assert a.scalar() == b.scalar()
    perm = g.Drbg(seed, b"y").permutation(106)
    assert sorted(perm) == list(range(106))
    assert perm != g.Drbg(bytes(32), b"y").permutation(106)
    assert all(0 <= g.Drbg(seed, b"z").randbelow(7) < 7 for _ in range(20))
    with pytest.raises(ValueError):
        g.Drbg(b"short", b"x")


def test_op_counter_counts() -> None:
    ops = g.OpCounter()
    g.add(g.base(2, ops), g.mul(3, g.G, ops), ops)
    g.is_valid_point(g.G, ops)
    assert ops.as_dict() == {"base": 1, "var": 1, "add": 1, "valid": 1, "h2p": 0}
    total = g.OpCounter()
    total += ops
    total += ops
    assert total.base == 2


@settings(max_examples=15, deadline=None)
@given(x=scalars)
def test_schnorr_roundtrip(x: int) -> None:
    h = g.base(x)
    proof = schnorr_prove(x, h, b"ctx")
    assert schnorr_verify(h, proof, b"ctx")
    assert Proof.from_bytes(proof.to_bytes()) == proof


def test_schnorr_rejects_wrong_context_key_or_tampering() -> None:
    x = g.random_scalar()
    h = g.base(x)
    proof = schnorr_prove(x, h, b"table|hand 1|seat 0")
    assert not schnorr_verify(h, proof, b"table|hand 1|seat 1")
    assert not schnorr_verify(g.base(x + 1), proof, b"table|hand 1|seat 0")
    assert not schnorr_verify(h, Proof(proof.c, (proof.z + 1) % g.L), b"table|hand 1|seat 0")
    assert not schnorr_verify(h, Proof(proof.c, 0), b"table|hand 1|seat 0")
    assert not schnorr_verify(ORDER2, proof, b"table|hand 1|seat 0")
    with pytest.raises(ProofError):
        schnorr_check(h, Proof((proof.c + 1) % g.L, proof.z), b"table|hand 1|seat 0")
    # a proof for a key whose secret the prover does not know cannot be made: using the
    # wrong secret fails
    assert not schnorr_verify(h, schnorr_prove(x + 1, h, b"c"), b"c")


@settings(max_examples=10, deadline=None)
@given(x=scalars, k=scalars)
def test_dleq_roundtrip(x: int, k: int) -> None:
    h, c1 = g.base(x), g.base(k)
    d = g.mul(x, c1)
    proof = dleq_prove(x, h, c1, d, b"pos 3|to 1")
    assert dleq_verify(h, c1, d, proof, b"pos 3|to 1")
    dleq_check(h, c1, d, proof, b"pos 3|to 1")


def test_dleq_rejects_wrong_share_context_and_torsion() -> None:
    x, k = g.random_scalar(), g.random_scalar()
    h, c1 = g.base(x), g.base(k)
    d = g.mul(x, c1)
    proof = dleq_prove(x, h, c1, d, b"pos 3|to 1")
    assert not dleq_verify(h, c1, d, proof, b"pos 3|to 2")  # other recipient
    assert not dleq_verify(h, c1, d, proof, b"pos 4|to 1")  # other position
    wrong = g.add(d, g.G)
    assert not dleq_verify(h, c1, wrong, proof, b"pos 3|to 1")
    # a cheater proving a wrong share with its real secret still fails
    assert not dleq_verify(h, c1, wrong, dleq_prove(x, h, c1, wrong, b"c"), b"c")
    mixed = g.add(d, ORDER2)
    for validate in (True, False):
        assert not dleq_verify(h, c1, mixed, dleq_prove(x, h, c1, mixed, b"c"), b"c",
                               validate_d=validate)
    with pytest.raises(ProofError):
        dleq_check(h, c1, wrong, proof, b"pos 3|to 1")


def test_proof_decoding_rejects_bad_bytes() -> None:
    with pytest.raises(ProofError):
        Proof.from_bytes(b"\x00" * 63)
    with pytest.raises(ProofError):
        Proof.from_bytes(b"\xff" * 64)  # non-canonical scalars
