"""Long-term player identity: one Ed25519 signing key per player.

The key lives in ``$XDG_CONFIG_HOME/millebornes/identity.key`` (default
``~/.config/millebornes/identity.key``), mode 0600, created on first use as the
32-byte raw private key.  A path argument overrides the location.
"""

from __future__ import annotations

import base64
import ctypes
import functools
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

__all__ = [
    "Identity",
    "IdentityError",
    "default_identity_path",
    "fingerprint",
    "verify_signature",
    "is_strict_public_key",
    "PUBLIC_KEY_BYTES",
    "SIGNATURE_BYTES",
    "CurveKeys",
    "verify_curve_certificate",
]

PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 64


_CURVE_KEY_TAG = b"millebornes/curve-key/v1\x00"
_CURVE_CERT_TAG = b"millebornes/curve-cert/v1\x00"


@dataclass(frozen=True)
class CurveKeys:
    """A player's transport key: X25519 for ZeroMQ CURVE, separate from the Ed25519
    signing key and certified by it (``certificate`` = Ed25519 signature over the CURVE
    public key), so a peer that knows the signing key can check the transport key."""

    public: bytes
    secret: bytes = field(repr=False)
    signing_key: bytes
    certificate: bytes


def verify_curve_certificate(signing_key: bytes, curve_public: bytes, certificate: bytes) -> bool:
    """Does ``signing_key`` vouch for ``curve_public`` as its transport key?"""
    return (len(curve_public) == 32
            and verify_signature(signing_key, certificate, _CURVE_CERT_TAG + curve_public))


class IdentityError(ValueError):
    """The identity file is unreadable, malformed or has unsafe permissions (a ValueError,
    so a command reports it as one line). The message is English (logs); ``why`` and
    ``path`` say the same as data, for a console that words it in its player's language:
    ``not-a-file``, ``mode`` (``mode``: the file's permission bits), ``size`` (``size``:
    the bytes read, 33 for longer), ``system`` (``error``: the system's own words)."""

    def __init__(self, message: str, why: str = "", path: Path | None = None,
                 mode: int = 0, size: int = 0, error: str = "") -> None:
        super().__init__(message)
        self.why = why
        self.path = path
        self.mode = mode
        self.size = size
        self.error = error


def default_identity_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "millebornes" / "identity.key"


def fingerprint(public_key: bytes) -> str:
    """Short human fingerprint: first 10 base32 chars of SHA-256(key), as ``XXXXX-XXXXX``."""
    b32 = base64.b32encode(hashlib.sha256(public_key).digest()).decode("ascii")[:10]
    return f"{b32[:5]}-{b32[5:]}"


def is_strict_public_key(public_key: bytes) -> bool:
    """Is ``public_key`` the canonical encoding of an Ed25519 point of the prime-order
    subgroup, other than the identity?  Every key an Ed25519 implementation derives from a
    private key is (``a·B`` for the prime-order base ``B``).

    Why: the ``cryptography`` package (OpenSSL) checks ``S < L`` but not the key's order.
    Under a key of small order, the identity (``01 00…00``) above all, a signature
    ``(R, S) = (S·B, S)`` verifies for **every** message (``S·B = R + k·A`` with ``k·A`` the
    identity), so whoever registered such a key could deny any entry in its name and anyone
    could write entries, statements and certificates in it.  A key with a small-order
    component (``A + T``) allows no forgery, but makes the verdict depend on the verifier's
    equation (with or without the cofactor): refused too.

    libsodium's ``crypto_core_ed25519_is_valid_point`` refuses a non-canonical encoding and
    a point of small order, but its subgroup test only looks at ``X`` of ``L·A``, which an
    order-2 component passes; ``(L + 1)·A = A`` holds exactly when ``L·A`` is the identity."""
    if not (isinstance(public_key, bytes) and len(public_key) == PUBLIC_KEY_BYTES):
        return False
    lib = _sodium()
    if lib.crypto_core_ed25519_is_valid_point(public_key) != 1:
        return False
    out = ctypes.create_string_buffer(32)
    return bool(lib.crypto_scalarmult_ed25519_noclamp(out, _L_PLUS_1, public_key) == 0
                and out.raw == public_key)


_L_PLUS_1 = (2**252 + 27742317777372353535851937790883648493 + 1).to_bytes(32, "little")


def _sodium() -> Any:
    from p2p.crypto import group  # rbcl's libsodium, loaded once by the group module

    return group._lib


@functools.lru_cache(maxsize=64)
def _public_key(public_key: bytes) -> Ed25519PublicKey | None:
    """A table has a few authors and checks every entry's signature: decoding the same key
    (and checking that it is a strict key, :func:`is_strict_public_key`) each time was a
    fifth of a check (bounded cache; a hostile stream of keys only evicts).  None: a key
    nothing may verify under."""
    if not is_strict_public_key(public_key):
        return None
    return Ed25519PublicKey.from_public_bytes(public_key)


def verify_signature(public_key: bytes, signature: bytes, data: bytes) -> bool:
    """Does ``signature`` verify for ``data`` under ``public_key``?  Never under a key of
    small order or a non-canonical one (:func:`is_strict_public_key`), never with a
    non-canonical ``S`` (OpenSSL's check)."""
    if len(public_key) != PUBLIC_KEY_BYTES or len(signature) != SIGNATURE_BYTES:
        return False
    key = _public_key(bytes(public_key))
    if key is None:
        return False
    try:
        key.verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True


class Identity:
    """A player's long-term signing key."""

    def __init__(self, private_key: Ed25519PrivateKey, path: Path | None = None) -> None:
        self._sk = private_key
        self.path = path
        self._curve: CurveKeys | None = None
        self.public_key: bytes = private_key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw)

    @classmethod
    def generate(cls) -> Identity:
        """An ephemeral identity (tests, bots): never written to disk."""
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_seed(cls, seed: bytes) -> Identity:
        """Deterministic identity from 32 bytes (tests, reproducible simulations)."""
        return cls(Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed).digest()))

    @classmethod
    def load_or_create(cls, path: str | os.PathLike[str] | None = None) -> Identity:
        """Load the key at ``path`` (default location if None), creating it on first use.

        Every problem with the file (a directory, unsafe mode, wrong size, unreadable, a
        parent that cannot be created) is one :class:`IdentityError` saying what to do."""
        p = Path(path) if path is not None else default_identity_path()
        try:
            if p.exists() or p.is_symlink():
                return cls._load(p)
            return cls._create(p)
        except IdentityError:
            raise
        except OSError as exc:
            raise IdentityError(f"cannot use the identity key {p}: "
                                f"{exc.strerror or exc}", "system", p,
                                error=str(exc.strerror or exc)) from None

    @classmethod
    def _create(cls, p: Path) -> Identity:
        p.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        sk = Ed25519PrivateKey.generate()
        raw = sk.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                               serialization.NoEncryption())
        tmp = p.with_name(p.name + f".tmp{os.getpid()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, raw)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, 0o600)
        try:
            os.link(tmp, p)  # atomic; fails if another process created it meanwhile
        except FileExistsError:
            os.unlink(tmp)
            return cls._load(p)
        except OSError:  # no hard links on this filesystem
            os.replace(tmp, p)
        else:
            os.unlink(tmp)
        return cls(sk, p)

    @classmethod
    def _load(cls, p: Path) -> Identity:
        if not p.is_file():
            raise IdentityError(f"{p} is not a regular file; move it away to create a new "
                                f"identity, or pass --identity FILE", "not-a-file", p)
        mode = p.stat().st_mode & 0o777
        if os.name == "posix" and mode & 0o077:
            raise IdentityError(f"{p} has mode {mode:04o}; it must be 0600 (run chmod 600 {p})",
                                "mode", p, mode=mode)
        with open(p, "rb") as f:
            raw = f.read(33)   # never read more than a key's worth of an unexpected file
        if len(raw) != 32:
            raise IdentityError(f"{p} is not a 32-byte Ed25519 private key "
                                f"({'longer' if len(raw) > 32 else f'{len(raw)} bytes'}); "
                                f"restore it from a backup or move it away", "size", p,
                                size=len(raw))
        return cls(Ed25519PrivateKey.from_private_bytes(raw), p)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    def curve_keys(self) -> CurveKeys:
        """This player's transport key pair, derived from the signing key with a domain
        separated hash (a different key, not the Ed25519 point itself; nothing more to
        store, and a resumed table finds the same key), with its certificate."""
        if self._curve is None:
            seed = self._sk.private_bytes(serialization.Encoding.Raw,
                                          serialization.PrivateFormat.Raw,
                                          serialization.NoEncryption())
            secret = hashlib.sha256(_CURVE_KEY_TAG + seed).digest()
            public = X25519PrivateKey.from_private_bytes(secret).public_key().public_bytes(
                serialization.Encoding.Raw, serialization.PublicFormat.Raw)
            self._curve = CurveKeys(public, secret, self.public_key,
                                    self.sign(_CURVE_CERT_TAG + public))
        return self._curve

    def sign(self, data: bytes) -> bytes:
        return self._sk.sign(data)

    def verify(self, signature: bytes, data: bytes) -> bool:
        return verify_signature(self.public_key, signature, data)
