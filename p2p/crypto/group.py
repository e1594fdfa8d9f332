"""Thin typed wrapper of the Ed25519 prime-order group (libsodium through PyNaCl).

Conventions
-----------
* A **point** is its canonical 32-byte Ed25519 encoding (``bytes``).
* A **scalar** is a Python ``int`` in ``[0, L)`` where ``L`` is the prime order of the
  main subgroup; scalar arithmetic is done on ints (fast for 253-bit numbers) and
  converted to 32 little-endian bytes only to call libsodium.
* Points received from other peers are checked with :func:`is_valid_point`: canonical
  encoding, on the curve, in the prime-order subgroup, not of small order (this also
  rejects the identity).  The cofactor-8 torsion of edwards25519 therefore never
  reaches a secret scalar.
* ``crypto_scalarmult_ed25519_noclamp`` refuses an identity result and small-order or
  non-canonical inputs; :func:`mul` turns that into :class:`GroupError`.

Everything goes through the cffi ``lib`` object directly (skipping PyNaCl's argument
checking), which roughly halves the Python overhead of the cheap operations.  An
optional :class:`OpCounter` can be passed to count group operations (no global state).
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass

from nacl._sodium import ffi, lib

__all__ = [
    "L",
    "POINT_BYTES",
    "IDENTITY",
    "G",
    "GroupError",
    "OpCounter",
    "Drbg",
    "add",
    "sub",
    "mul",
    "base",
    "is_valid_point",
    "check_point",
    "hash_to_point",
    "random_scalar",
    "scalar_from_hash",
    "scalar_to_bytes",
    "scalar_from_bytes",
]

#: Order of the prime-order subgroup of edwards25519.
L = 2**252 + 27742317777372353535851937790883648493
POINT_BYTES = 32
#: Canonical encoding of the neutral element (never accepted from the wire).
IDENTITY = bytes([1]) + bytes(31)


class GroupError(ValueError):
    """An encoding is not a valid point, or an operation produced the identity."""


@dataclass
class OpCounter:
    """Counts group operations; pass one to any function taking ``ops=``."""

    base: int = 0  #: fixed-base scalar multiplications k·G
    var: int = 0  #: variable-base scalar multiplications k·P
    add: int = 0  #: point additions and subtractions
    valid: int = 0  #: full point validations (subgroup check)
    h2p: int = 0  #: hash-to-point (Elligator 2 + cofactor clearing)

    def as_dict(self) -> dict[str, int]:
        return {"base": self.base, "var": self.var, "add": self.add,
                "valid": self.valid, "h2p": self.h2p}

    def __iadd__(self, other: OpCounter) -> OpCounter:
        self.base += other.base
        self.var += other.var
        self.add += other.add
        self.valid += other.valid
        self.h2p += other.h2p
        return self


def scalar_to_bytes(s: int) -> bytes:
    return (s % L).to_bytes(32, "little")


def scalar_from_bytes(b: bytes) -> int:
    """Decode a 32-byte scalar; it must be canonical (< L)."""
    if len(b) != 32:
        raise GroupError("scalar must be 32 bytes")
    s = int.from_bytes(b, "little")
    if s >= L:
        raise GroupError("non-canonical scalar")
    return s


def _buf() -> object:
    return ffi.new("unsigned char[]", 32)  # per call: thread-safe


def add(p: bytes, q: bytes, ops: OpCounter | None = None) -> bytes:
    if ops is not None:
        ops.add += 1
    if len(p) != 32 or len(q) != 32:
        raise GroupError("point must be 32 bytes")
    _out = _buf()
    if lib.crypto_core_ed25519_add(_out, p, q) != 0:
        raise GroupError("point addition on invalid encoding")
    return bytes(ffi.buffer(_out, 32))


def sub(p: bytes, q: bytes, ops: OpCounter | None = None) -> bytes:
    if ops is not None:
        ops.add += 1
    if len(p) != 32 or len(q) != 32:
        raise GroupError("point must be 32 bytes")
    _out = _buf()
    if lib.crypto_core_ed25519_sub(_out, p, q) != 0:
        raise GroupError("point subtraction on invalid encoding")
    return bytes(ffi.buffer(_out, 32))


def mul(s: int, p: bytes, ops: OpCounter | None = None) -> bytes:
    """s·P for a variable point P (raises GroupError on identity result or bad P)."""
    if ops is not None:
        ops.var += 1
    if len(p) != 32:
        raise GroupError("point must be 32 bytes")
    _out = _buf()
    if lib.crypto_scalarmult_ed25519_noclamp(_out, (s % L).to_bytes(32, "little"), p) != 0:
        raise GroupError("scalar multiplication failed (identity result or invalid point)")
    return bytes(ffi.buffer(_out, 32))


def base(s: int, ops: OpCounter | None = None) -> bytes:
    """s·G for the standard base point G (s must be non-zero mod L)."""
    if ops is not None:
        ops.base += 1
    _out = _buf()
    if lib.crypto_scalarmult_ed25519_base_noclamp(_out, (s % L).to_bytes(32, "little")) != 0:
        raise GroupError("base multiplication by zero")
    return bytes(ffi.buffer(_out, 32))


#: The standard base point.
G = base(1)


def is_valid_point(p: object, ops: OpCounter | None = None) -> bool:
    """Canonical, on the curve, in the prime-order subgroup and not of small order."""
    if ops is not None:
        ops.valid += 1
    if not isinstance(p, bytes) or len(p) != 32:
        return False
    return bool(lib.crypto_core_ed25519_is_valid_point(p) == 1)


def check_point(p: object, what: str = "point", ops: OpCounter | None = None) -> bytes:
    if not is_valid_point(p, ops):
        raise GroupError(f"invalid {what}")
    assert isinstance(p, bytes)
    return p


def hash_to_point(domain: bytes, data: bytes, ops: OpCounter | None = None) -> bytes:
    """Deterministic point with unknown discrete log.

    ``r = SHA-512(len(domain) as 1 byte ‖ domain ‖ data)[:32]`` is fed to
    ``crypto_core_ed25519_from_uniform`` (Elligator 2; the top bit of ``r`` picks the
    sign of x; the result is multiplied by the cofactor so it lies in the prime-order
    subgroup).  Nobody knows the discrete log of the result, which is what card points
    need: no relation between two cards can be exploited.
    """
    if ops is not None:
        ops.h2p += 1
    if len(domain) > 255:
        raise ValueError("domain too long")
    r = hashlib.sha512(bytes([len(domain)]) + domain + data).digest()[:32]
    _out = _buf()
    if lib.crypto_core_ed25519_from_uniform(_out, r) != 0:  # pragma: no cover
        raise GroupError("from_uniform failed")
    p = bytes(ffi.buffer(_out, 32))
    if not is_valid_point(p):  # pragma: no cover - probability ~2^-250
        raise GroupError("hash_to_point produced a small-order point")
    return p


def scalar_from_hash(data: bytes) -> int:
    """Uniform scalar from 64 bytes of hash output (bias ~2^-259)."""
    return int.from_bytes(data, "little") % L


def random_scalar() -> int:
    """Fresh non-zero scalar from the OS random generator."""
    while True:
        s = int.from_bytes(os.urandom(64), "little") % L
        if s:
            return s


class Drbg:
    """Deterministic random bit generator: HMAC-SHA-512(seed, label ‖ counter).

    A shuffle pass draws its permutation and re-randomisation scalars from a Drbg
    seeded with the pass's 32-byte seed, so the pass can be recomputed from the seed
    once it is revealed.
    """

    def __init__(self, seed: bytes, label: bytes) -> None:
        if len(seed) != 32:
            raise ValueError("seed must be 32 bytes")
        self._mac = hmac.new(seed, label, hashlib.sha512)
        self._counter = 0
        self._buf = b""

    def block(self) -> bytes:
        m = self._mac.copy()
        m.update(self._counter.to_bytes(8, "big"))
        self._counter += 1
        return m.digest()

    def read(self, n: int) -> bytes:
        while len(self._buf) < n:
            self._buf += self.block()
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def scalar(self) -> int:
        """Non-zero scalar (one 64-byte block, reduced mod L)."""
        while True:
            s = int.from_bytes(self.block(), "little") % L
            if s:
                return s

    def randbelow(self, n: int) -> int:
        """Unbiased integer in [0, n) by rejection sampling on 64-bit words."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            v = int.from_bytes(self.read(8), "big")
            if v < limit:
                return v % n

    def permutation(self, n: int) -> list[int]:
        """Fisher–Yates shuffle of range(n)."""
        perm = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.randbelow(i + 1)
            perm[i], perm[j] = perm[j], perm[i]
        return perm
