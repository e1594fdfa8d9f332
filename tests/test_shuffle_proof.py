"""The proof of shuffle: every honest pass verifies; every change to the proof, to the input
deck or to the output deck, and every replay into another context, is refused."""

from __future__ import annotations

import dataclasses
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.crypto import group as g
from p2p.crypto.shuffle_proof import (
    ShuffleProof,
    ShuffleProofError,
    generators,
    proof_size,
    prove_shuffle,
    verify_shuffle,
)
from p2p.deck.ciphers import (
    card_point,
    prove_pass,
    shuffle_pass_witness,
    shuffle_proof_context,
    start_deck,
    verify_pass,
)

TABLE = b"table-proof"
Deck = tuple[tuple[bytes, bytes], ...]


def _key() -> bytes:
    return g.base(g.random_scalar())


def _setup(n: int, passes: int = 1, seed: bytes | None = None
           ) -> tuple[bytes, Deck, Deck, bytes, bytes]:
    """A deck of n cards after ``passes - 1`` honest passes, then one more pass and its
    proof (seat ``passes - 1``, round 0): (joint key, input, output, proof, seed)."""
    joint = _key()
    deck: Deck = start_deck(range(n))
    for s in range(passes):
        sd = seed if seed is not None and s == passes - 1 else os.urandom(32)
        out, proof = prove_pass(deck, sd, joint, TABLE, 1, 0, s)
        if s == passes - 1:
            return joint, deck, out, proof, sd
        deck = out
    raise AssertionError("unreachable")


def _rejects(inp: Deck, out: Deck, proof: bytes, joint: bytes, seat: int = 1,
             table: bytes = TABLE, hand: int = 1, round_no: int = 0) -> bool:
    try:
        verify_pass(inp, out, proof, joint, table, hand, round_no, seat)
    except ShuffleProofError:
        return True
    return False


@settings(max_examples=12, deadline=None)
@given(n=st.integers(min_value=2, max_value=106), seed=st.binary(min_size=32, max_size=32),
       first=st.booleans())
def test_every_honest_pass_verifies(n: int, seed: bytes, first: bool) -> None:
    """Deck sizes 2..106, any seed, the first pass (input components the identity) or a
    later one."""
    joint, inp, out, proof, _ = _setup(n, 1 if first else 2, seed)
    assert len(proof) == proof_size(n)
    verify_pass(inp, out, proof, joint, TABLE, 1, 0, 0 if first else 1)


def test_proof_is_deterministic_per_statement() -> None:
    """Re-making a pass (after a restart) gives the same proof: the nonces come from the
    secret seed and the statement, so no two challenges ever share a nonce."""
    joint = _key()
    deck = start_deck(range(8))
    sd = os.urandom(32)
    assert prove_pass(deck, sd, joint, TABLE, 1, 0, 0) == prove_pass(deck, sd, joint, TABLE, 1, 0, 0)
    assert prove_pass(deck, sd, joint, TABLE, 1, 0, 0)[1] != \
        prove_pass(deck, sd, joint, TABLE, 2, 0, 0)[1]


def test_every_single_word_of_the_proof_matters() -> None:
    """Flip one bit in each 32-byte word of the encoding (each point and scalar, in turn):
    the proof no longer parses or no longer verifies."""
    n = 5
    joint, inp, out, proof, _ = _setup(n, 2)
    assert not _rejects(inp, out, proof, joint)
    for k in range(len(proof) // 32):
        for bit in (0, 137):  # low bit of the first byte, a bit in the middle of the word
            b = bytearray(proof)
            b[32 * k + bit // 8] ^= 1 << (bit % 8)
            assert _rejects(inp, out, bytes(b), joint), f"word {k} bit {bit}"


def test_every_field_replaced_by_a_valid_value_is_refused() -> None:
    """Field by field (each element of the vectors too), a well-formed but different value:
    a point plus G, a scalar plus one."""
    n = 4
    joint, inp, out, raw, _ = _setup(n, 2)
    proof = ShuffleProof.from_bytes(raw, n)
    ctx = shuffle_proof_context(TABLE, 1, 0, 1)
    verify_shuffle(inp, out, proof, joint, ctx)
    count = 0
    for f in dataclasses.fields(ShuffleProof):
        v = getattr(proof, f.name)
        variants: list[object] = []
        if isinstance(v, bytes):
            variants = [g.add(v, g.G)]
        elif isinstance(v, int):
            variants = [(v + 1) % g.L]
        else:
            for i in range(len(v)):
                w = list(v)
                w[i] = g.add(w[i], g.G) if isinstance(w[i], bytes) else (w[i] + 1) % g.L
                variants.append(tuple(w))
            variants.append(tuple(reversed(v)))
        for x in variants:
            count += 1
            with pytest.raises(ShuffleProofError):
                verify_shuffle(inp, out, dataclasses.replace(proof, **{f.name: x}), joint, ctx)
    assert count == 5 * (n + 1) + 5 + 4  # 5 vectors (each element, reversed), 5 points, 4 scalars


def _bump(deck: Deck, i: int, part: int) -> Deck:
    d = list(deck)
    ct = list(d[i])
    ct[part] = g.add(ct[part], g.G)
    d[i] = (ct[0], ct[1])
    return tuple(d)


def test_every_change_to_the_input_or_output_deck_is_refused() -> None:
    n = 4
    joint, inp, out, proof, _ = _setup(n, 2)
    for i in range(n):
        for part in (0, 1):
            assert _rejects(_bump(inp, i, part), out, proof, joint), ("input", i, part)
            assert _rejects(inp, _bump(out, i, part), proof, joint), ("output", i, part)
    undecodable = bytes.fromhex("ec" + "ff" * 30 + "7f")
    assert _rejects(inp, ((out[0][0], undecodable),) + out[1:], proof, joint)
    assert _rejects(inp, ((g.IDENTITY, out[0][1]),) + out[1:], proof, joint)


def test_swapped_dropped_substituted_and_duplicated_cards_are_refused() -> None:
    n = 6
    joint, inp, out, proof, _ = _setup(n, 2)
    swapped = (out[1], out[0]) + out[2:]
    assert _rejects(inp, swapped, proof, joint)
    assert _rejects(inp, out[:-1], proof, joint)  # dropped: the sizes no longer match
    assert _rejects(inp, out + (out[0],), proof, joint)
    r = g.random_scalar()
    fresh = (g.base(r), g.add(card_point(999), g.mul(r, joint)))
    assert _rejects(inp, (fresh,) + out[1:], proof, joint)  # substituted
    assert _rejects(inp, (out[1],) + out[1:], proof, joint)  # duplicated
    # and the cheater cannot prove such a deck either: no witness fits, the proof of a
    # pass that duplicates a card (claiming a non-permutation) is refused to be made
    out2, perm, rhos = shuffle_pass_witness(inp, os.urandom(32), joint)
    with pytest.raises(ValueError):
        prove_shuffle(inp, out2, [0] * n, rhos, joint, b"ctx", bytes(32))
    # a proof made with a lying witness does not verify
    bad_perm = [perm[1], perm[0]] + perm[2:]
    lie = prove_shuffle(inp, out2, bad_perm, rhos, joint, b"ctx", bytes(32))
    with pytest.raises(ShuffleProofError):
        verify_shuffle(inp, out2, lie, joint, b"ctx")


def test_a_proof_replayed_into_another_context_is_refused() -> None:
    n = 5
    joint, inp, out, proof, _ = _setup(n, 2)
    assert not _rejects(inp, out, proof, joint, seat=1)
    assert _rejects(inp, out, proof, joint, seat=2)          # another pass
    assert _rejects(inp, out, proof, joint, round_no=1)      # another shuffle round
    assert _rejects(inp, out, proof, joint, hand=2)          # another hand
    assert _rejects(inp, out, proof, joint, table=b"table-other")  # another table
    assert _rejects(inp, out, proof, _key())                 # another joint key
    # another pass's proof at this position
    joint2, inp2, out2, proof2, _ = _setup(n, 2)
    assert _rejects(inp, out, proof2, joint)
    assert _rejects(inp2, out2, proof, joint2)


def test_malformed_proofs_are_refused_without_a_traceback() -> None:
    n = 3
    joint, inp, out, proof, _ = _setup(n, 2)
    for bad in (b"", proof[:-1], proof + b"\0", bytes(len(proof))):
        assert _rejects(inp, out, bad, joint)
    non_canonical = proof[:-32] + (g.L).to_bytes(32, "little")
    with pytest.raises(ShuffleProofError, match="non-canonical"):
        ShuffleProof.from_bytes(non_canonical, n)
    with pytest.raises(ShuffleProofError):
        ShuffleProof.from_bytes("not bytes", n)
    with pytest.raises(ShuffleProofError):
        ShuffleProof.from_bytes(proof, 0)


def test_generators_are_fixed_distinct_and_independent_of_the_deck_size() -> None:
    hs, h0 = generators(10)
    hs2, h02 = generators(4)
    assert hs[:4] == hs2 and h0 == h02
    assert len({*hs, h0, g.G}) == 12
    assert all(g.is_valid_point(p) for p in (*hs, h0))


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize("first", [True, False])
def test_operation_counts_match_the_documented_cost(first: bool, native: bool) -> None:
    """docs/protocol.md §8: prove 3N+4 base and 5N+1 var (2N+1 var and 3N terms of the
    compiled constant-time sum); verify 5 base and 7 var, plus its
    public sums: 9N+1 terms of the compiled sum, or with libsodium 8N+1 var (7N+1 on the
    first pass, whose input components A_j are the identity)."""
    if native and not g.native_sums():
        pytest.skip("the compiled sums (p2p/crypto/_msm.c) are not built here")
    n = 10
    joint = _key()
    inp: Deck = start_deck(range(n))
    if not first:
        inp = prove_pass(inp, os.urandom(32), joint, TABLE, 1, 0, 0)[0]
    out, perm, rhos = shuffle_pass_witness(inp, os.urandom(32), joint)
    ops = g.OpCounter()
    with g.use_native_sums(native):
        proof = prove_shuffle(inp, out, perm, rhos, joint, b"ctx", bytes(32), ops)
    if native:  # the three sums over ω' in the compiled constant-time routine
        assert (ops.base, ops.var, ops.ct) == (3 * n + 4, 2 * n + 1, 3 * n)
    else:
        assert (ops.base, ops.var, ops.ct) == (3 * n + 4, 5 * n + 1, 0)
    ops = g.OpCounter()
    with g.use_native_sums(native):
        verify_shuffle(inp, out, proof, joint, b"ctx", ops)
    if native:
        assert (ops.base, ops.var, ops.msm) == (5, 7, 9 * n + 1)
    else:
        assert (ops.base, ops.var, ops.msm) == (5, 7 + (7 if first else 8) * n + 1, 0)
