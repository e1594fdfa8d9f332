"""The compiled public sums (p2p/crypto/_msm.c) against libsodium: same results, same
refusals, on random and edge inputs; and a shuffle proof's verdict with and without them."""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.crypto import group as g
from p2p.deck.ciphers import prove_pass, start_deck, verify_pass

pytestmark = pytest.mark.skipif(not g.native_sums(),
                                reason="the compiled sums (p2p/crypto/_msm.c) are not built")

P = 2**255 - 19


def _libsodium_sum(pairs: list[tuple[int, bytes]]) -> bytes:
    with g.use_native_sums(False):
        return g.public_sum(pairs)


def _point(rng: random.Random) -> bytes:
    return g.base(rng.randrange(1, g.L))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 31, 106, 213, 600])
def test_sums_equal_libsodium(n: int) -> None:
    rng = random.Random(n)
    pairs = [(rng.randrange(g.L), _point(rng)) for _ in range(n)]
    assert g.public_sum(pairs) == _libsodium_sum(pairs)


def test_edge_scalars_and_points() -> None:
    rng = random.Random(7)
    p, q = _point(rng), _point(rng)
    for k in (0, 1, 2, g.L - 1, g.L - 2, 2**252, 2**252 - 1, g.L, g.L + 5, -1):
        assert g.public_sum([(k, p)]) == g.mul(k, p), k
        assert g.public_sum([(k, p), (1, q)]) == g.add(g.mul(k, p), q), k
    assert g.public_sum([(5, g.IDENTITY), (3, p)]) == g.mul(3, p)
    assert g.public_sum([(1, p), (g.L - 1, p)]) == g.IDENTITY
    assert g.public_sum([(1, p), (1, g.neg(p))]) == g.IDENTITY
    assert g.public_sum([(1, g.IDENTITY)]) == g.IDENTITY
    # a point added to itself many times (buckets receiving equal points: doubling inside add)
    assert g.public_sum([(1, p)] * 64) == g.mul(64, p)


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=32, max_size=32))
def test_random_strings_are_refused_exactly_when_libsodium_refuses(b: bytes) -> None:
    ok = g.is_element(b)
    if ok:
        assert g.public_sum([(3, b), (1, g.G)]) == g.add(g.mul(3, b), g.G)
    else:
        with pytest.raises(g.GroupError):
            g.public_sum([(1, g.G), (3, b)])


def test_non_canonical_and_negative_encodings_are_refused() -> None:
    rng = random.Random(3)
    good = _point(rng)
    s = int.from_bytes(good, "little")
    bad = [
        (s + P).to_bytes(32, "little") if s + P < 2**256 else None,  # s ≥ p
        (P - 1).to_bytes(32, "little"),                                # negative (odd)
        (s | (1 << 255)).to_bytes(32, "little"),                       # top bit set
        (P).to_bytes(32, "little"),                                    # p itself
        (1).to_bytes(32, "little"),                                    # negative
        bytes([0xFF] * 32),
    ]
    for b in bad:
        if b is None:
            continue
        assert not g.is_element(b)
        with pytest.raises(g.GroupError, match="point 1"):
            g.public_sum([(1, good), (1, b)])


def test_wrong_lengths_and_types_are_group_errors() -> None:
    with pytest.raises(g.GroupError):
        g.public_sum([(1, g.G[:31])])
    with pytest.raises(g.GroupError):
        g.public_sum([(1, "x" * 32)])  # type: ignore[list-item]


def test_a_proof_gets_the_same_verdict_with_and_without_the_compiled_sums() -> None:
    joint = g.base(g.random_scalar())
    deck = start_deck(range(12))
    deck = prove_pass(deck, os.urandom(32), joint, b"t", 1, 0, 0)[0]
    out, proof = prove_pass(deck, os.urandom(32), joint, b"t", 1, 0, 1)
    for native in (True, False):
        with g.use_native_sums(native):
            verify_pass(deck, out, proof, joint, b"t", 1, 0, 1)
    swapped = list(out)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    errors = []
    for native in (True, False):
        with g.use_native_sums(native), pytest.raises(Exception) as e:
            verify_pass(deck, swapped, proof, joint, b"t", 1, 0, 1)
        errors.append(str(e.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("native", [True, False])
def test_a_wrong_link_is_named_after_the_batched_check_fails(native: bool) -> None:
    """The links are checked as one weighted sum; when it fails, the first wrong link is
    named, as when they were checked one by one."""
    import dataclasses

    from p2p.crypto.shuffle_proof import ShuffleProof, ShuffleProofError, verify_shuffle
    from p2p.deck.ciphers import shuffle_proof_context

    joint = g.base(g.random_scalar())
    deck = prove_pass(start_deck(range(9)), os.urandom(32), joint, b"t", 1, 0, 0)[0]
    out, proof = prove_pass(deck, os.urandom(32), joint, b"t", 1, 0, 1)
    parsed = ShuffleProof.from_bytes(proof, len(deck))
    ctx = shuffle_proof_context(b"t", 1, 0, 1)
    s_hat = list(parsed.s_hat)
    s_hat[4] = (s_hat[4] + 1) % g.L
    bad = dataclasses.replace(parsed, s_hat=tuple(s_hat))
    with g.use_native_sums(native), pytest.raises(ShuffleProofError, match="t̂_4"):
        verify_shuffle(deck, out, bad, joint, ctx)
    # two wrong links whose errors would cancel with weights known in advance still fail
    s_hat = list(parsed.s_hat)
    s_hat[2] = (s_hat[2] + 1) % g.L
    s_hat[6] = (s_hat[6] - 1) % g.L
    bad = dataclasses.replace(parsed, s_hat=tuple(s_hat))
    with g.use_native_sums(native), pytest.raises(ShuffleProofError, match="t̂_2"):
        verify_shuffle(deck, out, bad, joint, ctx)


@pytest.mark.parametrize("n", [3, 4, 17, 106])
def test_secret_sums_equal_libsodium(n: int) -> None:
    """The prover's constant-time sums: every digit pattern of the signed radix-16
    recoding (0, ±8, carries through 15 and 16), the largest scalar, identity points."""
    rng = random.Random(100 + n)
    specials = [0, 1, 8, 9, 15, 16, 17, 0x88, 0xF8, 2**252, g.L - 1, 2**252 - 1]
    for trial in range(4):
        ks = [rng.randrange(g.L) if trial == 0 else rng.choice(specials) for _ in range(n)]
        ps = [_point(rng) if rng.random() < 0.9 else g.IDENTITY for _ in range(n)]
        pairs = list(zip(ks, ps, strict=True))
        with g.use_native_sums(False):
            want = g.secret_sum(pairs)
        assert g.secret_sum(pairs) == want
    with pytest.raises(g.GroupError, match="point 2"):
        g.secret_sum([(1, g.G), (2, g.G), (3, bytes([0xFF] * 32))])


def test_fixed_base_reencryption_equals_libsodium() -> None:
    """A pass's C2 + r·H through the precomputed table of H (a hand's joint key): the same
    points as libsodium's, for edge scalars, the identity as addend and a second key."""
    rng = random.Random(11)
    for _ in range(2):
        h = _point(rng)
        ks = [0, 1, 8, 16, g.L - 1, 2**252] + [rng.randrange(g.L) for _ in range(30)]
        adds = [g.IDENTITY] + [_point(rng) for _ in range(len(ks) - 1)]
        with g.use_native_sums(False):
            want = g.add_multiples(h, ks, adds)
        assert g.add_multiples(h, ks, adds) == want
    with pytest.raises(g.GroupError, match="point 1"):
        g.add_multiples(h, [1, 2], [g.G, bytes([0xFF] * 32)])
    with pytest.raises(g.GroupError):
        g.add_multiples(bytes([0xFF] * 32), [1], [g.G])
