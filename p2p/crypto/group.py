"""Thin typed wrapper of the ristretto255 prime-order group (libsodium through ``rbcl``).

Why ristretto255: it is a prime-order group built on edwards25519 (RFC 9496), so there is no
cofactor to clear and no small-order point to reject: every 32-byte string either decodes to a
group element or is refused.  Point validation is a decode (~4 µs instead of a ~30 µs subgroup
check on Ed25519) and a variable-base multiplication skips the subgroup re-check that
``crypto_scalarmult_ed25519_noclamp`` performs on every call.

Conventions
-----------
* A **point** is its canonical 32-byte ristretto255 encoding (``bytes``); the neutral element
  encodes as 32 zero bytes (:data:`IDENTITY`).
* A **scalar** is a Python ``int`` in ``[0, L)``; scalar arithmetic is done on ints and
  converted to 32 little-endian bytes only to call libsodium.
* :func:`add`, :func:`sub`, :func:`mul`, :func:`base` accept the identity and may return it
  (libsodium's return code -1 for an all-zero result is turned back into :data:`IDENTITY`,
  the ``_allow_scalar_zero`` behaviour of rbcl); they raise :class:`GroupError` only when an
  *input* is not a valid encoding — that is the one library failure that points at whoever
  supplied the bytes.  Callers decide whether the identity is acceptable where it matters
  (keys, shares): :func:`is_valid_point` refuses it.

Everything calls the ctypes library object of rbcl's libsodium directly (skipping rbcl's per-call
argument checks).  An optional :class:`OpCounter` counts group operations (no global state).
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import hmac
import importlib.util
import os
import sys
import tempfile
import threading
import types
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path


def _forget_rbcl_temp_copy() -> None:
    """rbcl writes its bundled libsodium to a fresh temporary file on every import and
    never removes it (2.7 MB per process).  The library is loaded by now, so the file can
    go: the mapping stays valid after the unlink."""
    mod = sys.modules.get("rbcl._sodium")
    path = getattr(mod, "lib_path", None)
    if isinstance(path, str) and os.path.basename(path).startswith("tmp") \
            and os.path.dirname(path) == tempfile.gettempdir():
        with contextlib.suppress(OSError):
            os.unlink(path)


def _cache_dir() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(root) / "millebornes"


def _rbcl_stamp() -> str | None:
    """Identifies the installed rbcl's bundled libsodium (size and mtime of the module that
    carries it) without importing it."""
    spec = importlib.util.find_spec("rbcl")
    if spec is None or not spec.submodule_search_locations:
        return None
    try:
        st = os.stat(os.path.join(list(spec.submodule_search_locations)[0], "_sodium.py"))
    except OSError:
        return None
    return f"{st.st_size}-{st.st_mtime_ns}"


def _load_cached(stamp: str) -> ctypes.CDLL | None:
    """The copy of rbcl's libsodium kept in the cache folder, if it is there and intact
    (its SHA-256 is in its name)."""
    with contextlib.suppress(OSError):
        for path in _cache_dir().glob(f"libsodium-rbcl-{stamp}-*.so"):
            digest = path.name[len(f"libsodium-rbcl-{stamp}-"):-3]
            if hashlib.sha256(path.read_bytes()).hexdigest() != digest:
                continue
            lib = ctypes.CDLL(str(path))
            if lib.sodium_init() in (0, 1):  # 0: initialised now, 1: already
                return lib
    return None


def _store_cached(stamp: str) -> None:
    mod = sys.modules.get("rbcl._sodium")
    data = getattr(mod, "sodium_bs", None)
    if not isinstance(data, bytes):
        return
    d = _cache_dir()
    name = f"libsodium-rbcl-{stamp}-{hashlib.sha256(data).hexdigest()}.so"
    with contextlib.suppress(OSError):
        d.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".libsodium-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, d / name)
        except OSError:
            os.unlink(tmp)


def _load_sodium() -> ctypes.CDLL:
    """rbcl's bundled libsodium.  Importing rbcl decodes its 5.5 MB hex copy of the library
    and writes it to a new temporary file (~60 ms, on every start of the program); the
    first start keeps a copy in the cache folder (``$XDG_CACHE_HOME/millebornes``), checked
    by its SHA-256 and loaded directly by the next ones.  The very same library either way."""
    stamp = _rbcl_stamp()
    if stamp is not None and os.environ.get("MILLEBORNES_NO_LIB_CACHE") != "1":
        cached = _load_cached(stamp)
        if cached is not None:
            return cached
    from rbcl import rbcl  # loads the library and calls sodium_init()

    lib: ctypes.CDLL = rbcl._sodium
    if stamp is not None and os.environ.get("MILLEBORNES_NO_LIB_CACHE") != "1":
        _store_cached(stamp)
    _forget_rbcl_temp_copy()
    return lib


_lib = _load_sodium()

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
    "is_element",
    "neg",
    "from_hash",
    "check_point",
    "hash_to_point",
    "random_scalar",
    "entropy",
    "use_entropy_source",
    "scalar_from_hash",
    "scalar_to_bytes",
    "scalar_from_bytes",
    "public_sum",
    "secret_sum",
    "add_multiples",
    "native_sums",
    "use_native_sums",
]

#: Order of ristretto255 (the prime order of the edwards25519 main subgroup).
L = 2**252 + 27742317777372353535851937790883648493
POINT_BYTES = 32
#: Canonical encoding of the neutral element (legitimate in arithmetic, refused as a key or
#: share by :func:`is_valid_point`).
IDENTITY = bytes(32)


class GroupError(ValueError):
    """An encoding is not a valid ristretto255 point."""


@dataclass
class OpCounter:
    """Counts group operations; pass one to any function taking ``ops=``."""

    base: int = 0  #: fixed-base scalar multiplications k·G
    var: int = 0  #: variable-base scalar multiplications k·P
    add: int = 0  #: point additions and subtractions
    valid: int = 0  #: point validations (a ristretto255 decode)
    h2p: int = 0  #: hash-to-point (crypto_core_ristretto255_from_hash)
    msm: int = 0  #: terms of public sums of 8 terms or more (:func:`public_sum`, native)
    msm_small: int = 0  #: terms of public sums of 2 to 7 terms (same; a DLEQ check's)
    ct: int = 0  #: terms of secret sums computed at once (:func:`secret_sum`, native)
    fixed: int = 0  #: A + k·H with H's table precomputed (:func:`add_multiples`, native)

    def as_dict(self) -> dict[str, int]:
        return {"base": self.base, "var": self.var, "add": self.add, "valid": self.valid,
                "h2p": self.h2p, "msm": self.msm, "msm_small": self.msm_small, "ct": self.ct,
                "fixed": self.fixed}

    def __iadd__(self, other: OpCounter) -> OpCounter:
        self.base += other.base
        self.var += other.var
        self.add += other.add
        self.valid += other.valid
        self.h2p += other.h2p
        self.msm += other.msm
        self.msm_small += other.msm_small
        self.ct += other.ct
        self.fixed += other.fixed
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


def _buf() -> ctypes.Array[ctypes.c_char]:
    return ctypes.create_string_buffer(32)  # per call: thread-safe


def _shaped(p: object) -> bool:
    """32 bytes with the top bit clear: what may go to libsodium as a point.  The bundled
    libsodium ignores that bit (it decodes s and s + 2^255 alike); RFC 9496 §4.3.1 refuses
    any non-canonical s, and so does everything here, the compiled sums included: one
    point, one encoding."""
    return isinstance(p, bytes) and len(p) == 32 and p[31] < 0x80


def _decodes(p: bytes) -> bool:
    return _shaped(p) and bool(_lib.crypto_core_ristretto255_is_valid_point(p) == 1)


def add(p: bytes, q: bytes, ops: OpCounter | None = None) -> bytes:
    if ops is not None:
        ops.add += 1
    if not (_shaped(p) and _shaped(q)):
        raise GroupError("point must be a canonical 32-byte encoding")
    out = _buf()
    if _lib.crypto_core_ristretto255_add(out, p, q) != 0:
        raise GroupError("point addition on an invalid encoding")
    return out.raw


def sub(p: bytes, q: bytes, ops: OpCounter | None = None) -> bytes:
    if ops is not None:
        ops.add += 1
    if not (_shaped(p) and _shaped(q)):
        raise GroupError("point must be a canonical 32-byte encoding")
    out = _buf()
    if _lib.crypto_core_ristretto255_sub(out, p, q) != 0:
        raise GroupError("point subtraction on an invalid encoding")
    return out.raw


def neg(p: bytes, ops: OpCounter | None = None) -> bytes:
    """−P."""
    return sub(IDENTITY, p, ops)


def mul(s: int, p: bytes, ops: OpCounter | None = None) -> bytes:
    """s·P for a variable point P; the identity is a legitimate result (s = 0 mod L or
    P = identity).  Raises GroupError only when P is not a valid encoding."""
    if ops is not None:
        ops.var += 1
    if not _shaped(p):
        raise GroupError("point must be a canonical 32-byte encoding")
    out = _buf()
    if _lib.crypto_scalarmult_ristretto255(out, (s % L).to_bytes(32, "little"), p) != 0:
        # libsodium returns -1 both for an undecodable P and for an identity result
        if not _decodes(p):
            raise GroupError("scalar multiplication of an invalid encoding")
        return IDENTITY
    return out.raw


def base(s: int, ops: OpCounter | None = None) -> bytes:
    """s·G for the standard base point G (the identity when s = 0 mod L)."""
    if ops is not None:
        ops.base += 1
    out = _buf()
    if _lib.crypto_scalarmult_ristretto255_base(out, (s % L).to_bytes(32, "little")) != 0:
        return IDENTITY
    return out.raw


#: The standard base point (RFC 9496).
G = base(1)


def _load_native_sums() -> types.ModuleType | None:
    """The compiled module (p2p/crypto/_msm.c), if it was built and is not switched off."""
    if os.environ.get("MILLEBORNES_NO_NATIVE") == "1":
        return None
    try:
        from p2p.crypto import _msm
    except ImportError:  # no C compiler at install time: libsodium does it, slower
        return None
    return _msm


_native = _load_native_sums()


def native_sums() -> bool:
    """Whether :func:`public_sum` runs the compiled multi-scalar multiplication."""
    return _native is not None


@contextlib.contextmanager
def use_native_sums(on: bool) -> Iterator[None]:
    """Switch the compiled sums off (or back on, if built) for a test that compares both."""
    global _native
    saved = _native
    _native = _load_native_sums() if on else None
    try:
        yield
    finally:
        _native = saved


def public_sum(pairs: Sequence[tuple[int, bytes]], ops: OpCounter | None = None) -> bytes:
    """Σ k·P for **public** scalars and points: a verifier's checks, never a secret.

    Why: a shuffle proof's checks are sums of a hundred terms or more.  The compiled
    routine (``p2p/crypto/_msm.c``: points decoded once, the doublings shared by all terms,
    the interpreter lock released) computes a 106-term sum about 3.9 times faster than a
    libsodium multiplication and addition per term, and a two-term one 1.6 times, but in
    variable time, hence public inputs only.  Terms on the base point ``G`` are gathered into
    one fixed-base multiplication (libsodium's is the fastest way to make k·G), and a single
    remaining term is left to libsodium too.  Without the compiled routine (no C compiler at
    install, or ``MILLEBORNES_NO_NATIVE=1``) libsodium makes the whole sum: the same result
    either way.  Raises :class:`GroupError` if a point is not a valid encoding.
    """
    on_g = 0
    rest: list[tuple[int, bytes]] = []
    for k, p in pairs:
        if p == G:
            on_g += k
        else:
            rest.append((k, p))
    acc = _sum_of_terms(rest, ops)
    if on_g % L:
        term = base(on_g, ops)
        acc = term if acc == IDENTITY else add(acc, term, ops)
    return acc


def secret_sum(pairs: Sequence[tuple[int, bytes]], ops: OpCounter | None = None) -> bytes:
    """Σ k·P for **secret** scalars (a prover's nonces) and public points.

    The compiled routine (``ct_sum`` in ``p2p/crypto/_msm.c``) runs in time independent of
    the scalars (fixed signed windows, tables read whole with masks) and shares the
    doublings between the terms: a 106-term sum about 2.5 times faster than a libsodium
    multiplication and addition per term; under three terms libsodium is as fast and does
    it.  Same result either way.  Raises :class:`GroupError` if a point does not decode."""
    native = _native
    if native is None or len(pairs) < 3:
        return _libsodium_sum(pairs, ops, public=False)
    if ops is not None:
        ops.ct += len(pairs)
    return _call_native(native.ct_sum, pairs)


_fixed_tables: dict[bytes, bytes] = {}
_fixed_tables_lock = threading.Lock()  # the two halves of a pass may ask at once
_FIXED_TABLES_KEPT = 4  # a table is 80 KB; a hand has one joint key


def _fresh_fixed_tables_lock() -> None:
    """A forked child gets a free lock (the parent's might be held by a thread the child
    does not have)."""
    global _fixed_tables_lock
    _fixed_tables_lock = threading.Lock()


os.register_at_fork(after_in_child=_fresh_fixed_tables_lock)


def add_multiples(h: bytes, scalars: Sequence[int], addends: Sequence[bytes],
                  ops: OpCounter | None = None) -> list[bytes]:
    """``[A_i + k_i·H]`` for secret ``k_i`` (a pass's re-encryption randomness) and one
    point ``H`` (the hand's joint key).

    The compiled routine precomputes 512 multiples of ``H`` once (0.1 ms, kept for the
    last few points) and then needs no doubling: each term is 64 masked table reads and 64
    additions, in time independent of ``k_i``, about 2.4 times faster than libsodium's
    multiplication and addition.  Same results without it.  Raises :class:`GroupError` if
    ``H`` or an ``A_i`` does not decode."""
    if len(scalars) != len(addends):
        raise ValueError("as many scalars as addends")
    native = _native
    if native is None:
        return [add(a, mul(k, h, ops), ops) for k, a in zip(scalars, addends, strict=True)]
    with _fixed_tables_lock:
        table = _fixed_tables.get(h)
        if table is None:
            try:
                table = native.fixed_table(h)
            except (ValueError, TypeError) as e:
                raise GroupError(f"fixed-base point: {e}") from None
            if len(_fixed_tables) >= _FIXED_TABLES_KEPT:
                _fixed_tables.pop(next(iter(_fixed_tables)))
            _fixed_tables[h] = table
    if ops is not None:
        ops.fixed += len(scalars)
    try:
        raw = native.fixed_mul_add(table, _scalars_bytes(scalars), _points_bytes(addends))
    except ValueError as e:
        raise GroupError(str(e)) from None
    return [raw[i:i + 32] for i in range(0, len(raw), 32)]


def _scalars_bytes(scalars: Iterable[int]) -> bytes:
    return b"".join([(k % L).to_bytes(32, "little") for k in scalars])


def _points_bytes(points: Iterable[object]) -> bytes:
    # a malformed item becomes b"": the lengths then disagree and the module refuses
    return b"".join([p if isinstance(p, bytes) and len(p) == 32 else b"" for p in points])


def _call_native(fn: Callable[[bytes, bytes], bytes],
                 pairs: Sequence[tuple[int, bytes]]) -> bytes:
    try:
        return fn(_scalars_bytes(k for k, _ in pairs), _points_bytes(p for _, p in pairs))
    except ValueError as e:
        raise GroupError(str(e)) from None


def _libsodium_sum(pairs: Sequence[tuple[int, bytes]], ops: OpCounter | None,
                   public: bool) -> bytes:
    """Σ k·P a term at a time.  Public scalars may skip the multiplication by 0 or 1 (the
    point is then checked here); a secret one is always multiplied (no branch on it)."""
    acc = IDENTITY
    for k, p in pairs:
        trivial = public and k % L in (0, 1)
        if p == IDENTITY or trivial:
            if not is_element(p):
                raise GroupError("sum of an invalid encoding")
            if p == IDENTITY or k % L == 0:
                continue
        term = p if trivial else mul(k, p, ops)
        acc = term if acc == IDENTITY else add(acc, term, ops)
    return acc


def _sum_of_terms(pairs: list[tuple[int, bytes]], ops: OpCounter | None) -> bytes:
    native = _native
    if native is None or len(pairs) == 1:  # one term: libsodium's multiplication is faster
        return _libsodium_sum(pairs, ops, public=True)
    if ops is not None:
        if len(pairs) >= 8:
            ops.msm += len(pairs)
        else:  # the shared doublings weigh more per term in a small sum
            ops.msm_small += len(pairs)
    return _call_native(native.msm, pairs)


def is_valid_point(p: object, ops: OpCounter | None = None) -> bool:
    """A canonical ristretto255 encoding of an element other than the identity."""
    if ops is not None:
        ops.valid += 1
    if not isinstance(p, bytes) or len(p) != 32 or p == IDENTITY:
        return False
    return _decodes(p)


def is_element(p: object) -> bool:
    """A canonical ristretto255 encoding, the identity included."""
    return isinstance(p, bytes) and len(p) == 32 and _decodes(p)


def check_point(p: object, what: str = "point", ops: OpCounter | None = None) -> bytes:
    if not is_valid_point(p, ops):
        raise GroupError(f"invalid {what}")
    assert isinstance(p, bytes)
    return p


def from_hash(h: bytes, ops: OpCounter | None = None) -> bytes:
    """crypto_core_ristretto255_from_hash: 64 uniform bytes to an element (RFC 9496 §4.3.4)."""
    if ops is not None:
        ops.h2p += 1
    if len(h) != 64:
        raise ValueError("from_hash takes 64 bytes")
    out = _buf()
    _lib.crypto_core_ristretto255_from_hash(out, h)
    return out.raw


def hash_to_point(domain: bytes, data: bytes, ops: OpCounter | None = None) -> bytes:
    """Deterministic point with unknown discrete log.

    ``from_hash(SHA-512(len(domain) as 1 byte ‖ domain ‖ data))`` (the one-way map of
    RFC 9496 applied to 64 hash bytes).  Nobody knows the discrete log of the result, which
    is what card points and commitment generators need: no relation between two of them
    can be exploited.
    """
    if len(domain) > 255:
        raise ValueError("domain too long")
    p = from_hash(hashlib.sha512(bytes([len(domain)]) + domain + data).digest(), ops)
    if p == IDENTITY:  # pragma: no cover - probability ~2^-252
        raise GroupError("hash_to_point produced the identity")
    return p


def scalar_from_hash(data: bytes) -> int:
    """Uniform scalar from 64 bytes of hash output (bias ~2^-259)."""
    return int.from_bytes(data, "little") % L


_entropy_source: Callable[[int], bytes] = os.urandom


def entropy(n: int) -> bytes:
    """``n`` fresh random bytes for a seat's secrets (its deck key, its shuffle and
    randomness seeds): the OS's generator, except inside ``p2p.testing.seeded_entropy``,
    where a test's whole deal follows from its seed so that a failing example replays."""
    return _entropy_source(n)


def use_entropy_source(source: Callable[[int], bytes] | None) -> Callable[[int], bytes]:
    """Replace where :func:`entropy` reads from (None: the OS's generator again); returns
    the previous source. For ``p2p.testing`` only: a seat's secrets must never be
    predictable in play."""
    global _entropy_source
    previous = _entropy_source
    _entropy_source = os.urandom if source is None else source
    return previous


def random_scalar() -> int:
    """Fresh non-zero scalar from :func:`entropy`."""
    while True:
        s = int.from_bytes(entropy(64), "little") % L
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
