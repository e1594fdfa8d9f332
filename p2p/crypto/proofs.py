"""Non-interactive zero-knowledge proofs over the ristretto255 group.

* :func:`schnorr_prove` / :func:`schnorr_verify`: knowledge of ``x`` with ``h = x·G``.
* :func:`dleq_prove` / :func:`dleq_verify`: Chaum–Pedersen proof that
  ``log_G h = log_C1 D`` (used for decryption shares ``D = x·C1``).

Both are made non-interactive with Fiat–Shamir over SHA-512.  The challenge is

    c = SHA-512( "millebornes/fs/v1" ‖ lp(tag) ‖ lp(context) ‖ statement points ‖
                 commitment points ) mod L

where ``lp(b)`` is a 4-byte big-endian length followed by ``b``.  The statement points
include G, so the proof is bound to the domain tag, the whole statement, the prover's
commitments and the caller's context bytes (table id, hand, deck position, recipient…);
a proof made for one context never verifies for another.

The prover's nonce ``k`` is derived, as Ed25519's is (RFC 8032 §5.1.6), from the secret and
the statement: ``k = HMAC-SHA-512(x, "millebornes/nonce/v1" ‖ lp(tag) ‖ lp(context) ‖
statement points) mod L`` (:func:`derived_nonce`). Making the same proof again (a peer that
lost an entry it had sent, in a power cut) gives the same bytes, so it can never look like
two different entries; two different statements never share a nonce.

A proof is the pair ``(c, z)`` (64 bytes).  The verifier recomputes the commitments
from ``(c, z)`` and checks the challenge, so commitments are never parsed from the wire.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from dataclasses import dataclass

from p2p.crypto import group as g

__all__ = [
    "ProofError",
    "Proof",
    "schnorr_prove",
    "schnorr_verify",
    "schnorr_check",
    "dleq_prove",
    "dleq_verify",
    "dleq_verify_known_logs",
    "dleq_check",
    "SCHNORR_TAG",
    "DLEQ_TAG",
    "derived_nonce",
]

SCHNORR_TAG = b"millebornes/schnorr/v1"
DLEQ_TAG = b"millebornes/dleq/v1"
_FS = b"millebornes/fs/v1"
_NONCE = b"millebornes/nonce/v1"


class ProofError(ValueError):
    """A proof failed to verify (or was malformed)."""


@dataclass(frozen=True)
class Proof:
    """Fiat–Shamir proof ``(c, z)``: challenge and response, both scalars."""

    c: int
    z: int

    def to_bytes(self) -> bytes:
        return g.scalar_to_bytes(self.c) + g.scalar_to_bytes(self.z)

    @classmethod
    def from_bytes(cls, b: bytes) -> Proof:
        if not isinstance(b, bytes) or len(b) != 64:
            raise ProofError("proof must be 64 bytes")
        try:
            return cls(g.scalar_from_bytes(b[:32]), g.scalar_from_bytes(b[32:]))
        except g.GroupError as e:
            raise ProofError(str(e)) from None


def _lp(b: bytes) -> bytes:
    return struct.pack(">I", len(b)) + b


def _challenge(tag: bytes, context: bytes, points: tuple[bytes, ...]) -> int:
    h = hashlib.sha512(_FS + _lp(tag) + _lp(context))
    for p in points:
        h.update(p)
    return g.scalar_from_hash(h.digest())


def derived_nonce(x: int, tag: bytes, context: bytes, points: tuple[bytes, ...]) -> int:
    """The nonce of a proof by the holder of ``x`` of the statement ``points`` in
    ``context``: secret (keyed by ``x``), never zero, and the same every time."""
    key = g.scalar_to_bytes(x)
    msg = b"".join((_NONCE, _lp(tag), _lp(context), *map(_lp, points)))
    counter = 0
    while True:
        k = g.scalar_from_hash(hmac.digest(key, msg + struct.pack(">I", counter), "sha512"))
        if k:
            return k
        counter += 1      # pragma: no cover - probability 2^-252


def schnorr_prove(x: int, h: bytes, context: bytes, ops: g.OpCounter | None = None,
                  nonce: int | None = None) -> Proof:
    """Prove knowledge of x with h = x·G."""
    k = nonce if nonce is not None else derived_nonce(x, SCHNORR_TAG, context, (g.G, h))
    a = g.base(k, ops)
    c = _challenge(SCHNORR_TAG, context, (g.G, h, a))
    return Proof(c, (k + c * x) % g.L)


def schnorr_verify(h: bytes, proof: Proof, context: bytes,
                   ops: g.OpCounter | None = None) -> bool:
    """True iff proof shows knowledge of log_G h.  h must be a valid point."""
    if not g.is_valid_point(h, ops) or proof.c == 0 or proof.z == 0:
        return False
    try:  # public values: the verifier's compiled two-term sum (g.public_sum)
        a = g.public_sum([(proof.z, g.G), (-proof.c, h)], ops)
    except g.GroupError:
        return False
    return _challenge(SCHNORR_TAG, context, (g.G, h, a)) == proof.c


def schnorr_check(h: bytes, proof: Proof, context: bytes,
                  ops: g.OpCounter | None = None) -> None:
    if not schnorr_verify(h, proof, context, ops):
        raise ProofError("Schnorr proof of key knowledge does not verify")


def dleq_prove(x: int, h: bytes, c1: bytes, d: bytes, context: bytes,
               ops: g.OpCounter | None = None, nonce: int | None = None) -> Proof:
    """Prove log_G h = log_C1 D (= x)."""
    k = nonce if nonce is not None else derived_nonce(x, DLEQ_TAG, context, (g.G, h, c1, d))
    a1 = g.base(k, ops)
    a2 = g.mul(k, c1, ops)
    c = _challenge(DLEQ_TAG, context, (g.G, h, c1, d, a1, a2))
    return Proof(c, (k + c * x) % g.L)


def dleq_verify(h: bytes, c1: bytes, d: bytes, proof: Proof, context: bytes,
                ops: g.OpCounter | None = None, validate_d: bool = True) -> bool:
    """True iff the proof shows log_G h = log_C1 d.

    ``h`` and ``c1`` are assumed already validated by the caller (they come from the
    caller's own state).  ``d`` is validated unless ``validate_d`` is False; see
    docs/protocol.md for the one place where the check is deferred safely.
    """
    if proof.c == 0 or proof.z == 0:
        return False
    if validate_d and not g.is_valid_point(d, ops):
        return False
    try:  # public values: the verifier's compiled two-term sums (g.public_sum)
        a1 = g.public_sum([(proof.z, g.G), (-proof.c, h)], ops)
        a2 = g.public_sum([(proof.z, c1), (-proof.c, d)], ops)
    except g.GroupError:
        return False
    return _challenge(DLEQ_TAG, context, (g.G, h, c1, d, a1, a2)) == proof.c


def dleq_verify_known_logs(x: int, h: bytes, r: int, c1: bytes, d: bytes, proof: Proof,
                           context: bytes, ops: g.OpCounter | None = None) -> bool:
    """:func:`dleq_verify` for a verifier who knows both discrete logs: ``h = x·G``,
    ``c1 = r·G`` and ``d = x·c1``, which the caller must have checked (the end-of-hand
    audit does, from the revealed secrets and the passes recomputed from their seeds).

    The verifier's commitments are then ``a1 = z·G − c·h = (z − c·x)·G`` and
    ``a2 = z·c1 − c·d = r·(z − c·x)·G``: the very points :func:`dleq_verify` computes
    (canonical encodings, so the same bytes are hashed and the verdict is the same), with
    two fixed-base multiplications instead of one fixed-base and three variable-base."""
    if proof.c == 0 or proof.z == 0:
        return False
    k = (proof.z - proof.c * x) % g.L
    a1 = g.base(k, ops)
    a2 = g.base(k * r % g.L, ops)
    return _challenge(DLEQ_TAG, context, (g.G, h, c1, d, a1, a2)) == proof.c


def dleq_check(h: bytes, c1: bytes, d: bytes, proof: Proof, context: bytes,
               ops: g.OpCounter | None = None) -> None:
    if not dleq_verify(h, c1, d, proof, context, ops):
        raise ProofError("Chaum-Pedersen (DLEQ) proof does not verify")
