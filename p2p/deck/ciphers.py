"""The fair deck's cryptographic building blocks: card points, shuffle passes (permute and
re-encrypt), commitments and the joint random generator."""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from functools import lru_cache

from p2p.crypto import group as g
from p2p.crypto.parallel import both
from p2p.crypto.shuffle_proof import ShuffleProof, prove_shuffle, verify_shuffle
from p2p.deck.messages import CARD_DOMAIN, Ciphertext, Deck

SHUFFLE_LABEL = b"millebornes/shuffle/v1"
COMMIT_TAG = b"millebornes/shuffle-commit/v1"
CTX_TAG = b"millebornes/ctx/v1"


@lru_cache(maxsize=4096)
def card_point(card_id: int) -> bytes:
    """M_j = hash_to_point("millebornes/card/v1", j as 4-byte big-endian)."""
    return g.hash_to_point(CARD_DOMAIN, struct.pack(">I", card_id))


def context(kind: bytes, table_id: bytes, hand_no: int, *ints: int) -> bytes:
    out = CTX_TAG + struct.pack(">I", len(kind)) + kind + struct.pack(">I", len(table_id))
    out += table_id + struct.pack(">q", hand_no)
    for i in ints:
        out += struct.pack(">q", i)
    return out


def shuffle_commitment(seed: bytes, seat: int, table_id: bytes, hand_no: int,
                       round_no: int) -> bytes:
    """SHA-256(tag ‖ seed ‖ seat ‖ context(table, hand, round))."""
    return hashlib.sha256(COMMIT_TAG + seed + struct.pack(">I", seat)
                          + context(b"shuffle", table_id, hand_no, round_no)).digest()


def shuffle_pass(deck: Sequence[Ciphertext], seed: bytes, joint_key: bytes,
                 ops: g.OpCounter | None = None) -> Deck:
    """One pass: permutation and re-randomisation, both derived from ``seed``.

    out[j] = (C1 + r_j·G, C2 + r_j·H) of in[perm[j]]; raises GroupError if an input
    point does not decode.
    """
    return shuffle_pass_witness(deck, seed, joint_key, ops)[0]


def pass_witness(n: int, seed: bytes) -> tuple[list[int], list[int]]:
    """The permutation and re-randomisation scalars a pass over ``n`` ciphertexts derives
    from ``seed`` (no group operation): ``out[j] = in[perm[j]] + (rhos[j]·G, rhos[j]·H)``."""
    drbg = g.Drbg(seed, SHUFFLE_LABEL)
    perm = drbg.permutation(n)
    return perm, [drbg.scalar() for _ in range(n)]


def shuffle_pass_witness(deck: Sequence[Ciphertext], seed: bytes, joint_key: bytes,
                         ops: g.OpCounter | None = None) -> tuple[Deck, list[int], list[int]]:
    """:func:`shuffle_pass` with its witness (the permutation and the re-randomisation
    scalars), which the shuffler needs to prove the pass."""
    perm, rhos = pass_witness(len(deck), seed)
    moved = [deck[i] for i in perm]

    def firsts(o: g.OpCounter | None) -> list[bytes]:
        out = []
        for (c1, _), r in zip(moved, rhos, strict=True):
            rg = g.base(r, o)
            out.append(rg if c1 == g.IDENTITY else g.add(c1, rg, o))
        return out

    def seconds(o: g.OpCounter | None) -> list[bytes]:
        # C2 + r·H for the one joint key H: a fixed-base table (group.add_multiples)
        return g.add_multiples(joint_key, rhos, [c2 for _, c2 in moved], o)

    a, b = both(firsts, seconds, ops)  # two threads: see crypto.parallel
    return tuple(zip(a, b, strict=True)), perm, rhos


def shuffle_proof_context(table_id: bytes, hand_no: int, round_no: int, seat: int) -> bytes:
    """What a shuffle proof is bound to: context("shuffle-proof", table, hand, round, pass)
    (the pass index is the shuffler's seat: seats shuffle in seat order)."""
    return context(b"shuffle-proof", table_id, hand_no, round_no, seat)


def prove_pass(deck: Sequence[Ciphertext], seed: bytes, joint_key: bytes, table_id: bytes,
               hand_no: int, round_no: int, seat: int,
               ops: g.OpCounter | None = None) -> tuple[Deck, bytes]:
    """Shuffle ``deck`` with ``seed`` and prove it: (output deck, encoded proof)."""
    out, perm, rhos = shuffle_pass_witness(deck, seed, joint_key, ops)
    proof = prove_shuffle(deck, out, perm, rhos, joint_key,
                          shuffle_proof_context(table_id, hand_no, round_no, seat), seed, ops)
    return out, proof.to_bytes()


def verify_pass(deck: Sequence[Ciphertext], out: Sequence[Ciphertext], proof: bytes,
                joint_key: bytes, table_id: bytes, hand_no: int, round_no: int, seat: int,
                ops: g.OpCounter | None = None) -> None:
    """Raise ShuffleProofError unless ``proof`` shows ``out`` is a shuffle of ``deck``."""
    parsed = ShuffleProof.from_bytes(proof, len(deck))
    verify_shuffle(deck, out, parsed, joint_key,
                   shuffle_proof_context(table_id, hand_no, round_no, seat), ops)


def random_commitment(seed: bytes, seat: int, table_id: bytes, purpose: bytes) -> bytes:
    """Commitment for public randomness (seat order, first player): publish this first,
    the 32-byte ``seed`` once every seat's commitment is in."""
    if len(seed) != 32:
        raise ValueError("seed must be 32 bytes")
    return hashlib.sha256(b"millebornes/random-commit/v1" + seed + struct.pack(">I", seat)
                          + context(purpose, table_id, 0)).digest()


def joint_random(seeds: Sequence[bytes], table_id: bytes, purpose: bytes) -> g.Drbg:
    """Public random stream from every seat's revealed seed (in seat order): uniform as
    long as one seed is; a seat can only refuse to reveal (and is then named)."""
    h = hashlib.sha256(b"millebornes/joint-random/v1" + context(purpose, table_id, 0))
    for sd in seeds:
        if len(sd) != 32:
            raise ValueError("seed must be 32 bytes")
        h.update(sd)
    return g.Drbg(h.digest(), purpose)


def start_deck(cards: Sequence[int]) -> Deck:
    return tuple((g.IDENTITY, card_point(c)) for c in cards)


