"""Group wrapper and Fiat–Shamir proofs."""

from __future__ import annotations

import hashlib

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
    dleq_verify_known_logs,
    schnorr_check,
    schnorr_prove,
    schnorr_verify,
)

scalars = st.integers(min_value=1, max_value=g.L - 1)

# RFC 9496 Appendix A.1: encodings of k·B for k = 0..15 (B the ristretto255 generator).
MULTIPLES = """
0000000000000000000000000000000000000000000000000000000000000000
e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76
6a493210f7499cd17fecb510ae0cea23a110e8d5b901f8acadd3095c73a3b919
94741f5d5d52755ece4f23f044ee27d5d1ea1e2bd196b462166b16152a9d0259
da80862773358b466ffadfe0b3293ab3d9fd53c5ea6c955358f568322daf6a57
e882b131016b52c1d3337080187cf768423efccbb517bb495ab812c4160ff44e
f64746d3c92b13050ed8d80236a7f0007c3b3f962f5ba793d19a601ebb1df403
44f53520926ec81fbd5a387845beb7df85a96a24ece18738bdcfa6a7822a176d
903293d8f2287ebe10e2374dc1a53e0bc887e592699f02d077d5263cdd55601c
02622ace8f7303a31cafc63f8fc48fdc16e1c8c8d234b2f0d6685282a9076031
20706fd788b2720a1ed2a5dad4952b01f413bcf0e7564de8cdc816689e2db95f
bce83f8ba5dd2fa572864c24ba1810f9522bc6004afe95877ac73241cafdab42
e4549ee16b9aa03099ca208c67adafcafa4c3f3e4e5303de6026e3ca8ff84460
aa52e000df2e16f55fb1032fc33bc42742dad6bd5a8fc0be0167436c5948501f
46376b80f409b29dc2b5f6f0c52591990896e5716f41477cd30085ab7f10301e
e0c418f7c8d9c4cdd7395b93ea124f3ad99021bb681dfc3302a9d99a2e53e64e
""".split()

# RFC 9496 Appendix A.3: 64 uniform bytes -> element (the one-way map behind from_hash).
FROM_HASH = [
    ("5d1be09e3d0c82fc538112490e35701979d99e06ca3e2b5b54bffe8b4dc772c1"
     "4d98b696a1bbfb5ca32c436cc61c16563790306c79eaca7705668b47dffe5bb6",
     "3066f82a1a747d45120d1740f14358531a8f04bbffe6a819f86dfe50f44a0a46"),
    ("f116b34b8f17ceb56e8732a60d913dd10cce47a6d53bee9204be8b44f6678b27"
     "0102a56902e2488c46120e9276cfe54638286b9e4b3cdb470b542d46c2068d38",
     "f26e5b6f7d362d2d2a94c5d0e7602cb4773c95a2e5c31a64f133189fa76ed61b"),
    ("8422e1bbdaab52938b81fd602effb6f89110e1e57208ad12d9ad767e2e25510c"
     "27140775f9337088b982d83d7fcf0b2fa1edffe51952cbe7365e95c86eaf325c",
     "006ccd2a9e6867e6a2c5cea83d3302cc9de128dd2a9a57dd8ee7b9d7ffe02826"),
    ("ac22415129b61427bf464e17baee8db65940c233b98afce8d17c57beeb7876c2"
     "150d15af1cb1fb824bbd14955f2b57d08d388aab431a391cfc33d5bafb5dbbaf",
     "f8f0c87cf237953c5890aec3998169005dae3eca1fbb04548c635953c817f92a"),
    ("165d697a1ef3d5cf3c38565beefcf88c0f282b8e7dbd28544c483432f1cec767"
     "5debea8ebb4e5fe7d6f6e5db15f15587ac4d4d4a1de7191e0c1ca6664abcc413",
     "ae81e7dedf20a497e10c304a765c1767a42d6e06029758d2d7e8ef7cc4c41179"),
    ("a836e6c9a9ca9f1e8d486273ad56a78c70cf18f0ce10abb1c7172ddd605d7fd2"
     "979854f47ae1ccf204a33102095b4200e5befc0465accc263175485f0e17ea5c",
     "e2705652ff9f5e44d3e841bf1c251cf7dddb77d140870d1ab2ed64f1a9ce8628"),
]

P25519 = 2**255 - 19
# Encodings every ristretto255 decoder must refuse (RFC 9496 §4.3.1): a negative s (odd),
# s >= p, all ones, and an Ed25519 encoding that is not a ristretto255 one.
BAD_ENCODINGS = [
    (1).to_bytes(32, "little"),
    P25519.to_bytes(32, "little"),
    (P25519 + 2).to_bytes(32, "little"),
    b"\xff" * 32,
    bytes.fromhex("ec" + "ff" * 30 + "7f"),
]


def test_known_answers_rfc9496() -> None:
    for k, enc in enumerate(MULTIPLES):
        assert g.base(k).hex() == enc, k
        assert g.mul(k, g.G).hex() == enc, k
        if k:
            assert g.is_valid_point(bytes.fromhex(enc))
    for k in range(1, 15):
        assert g.add(g.base(k), g.G).hex() == MULTIPLES[k + 1]
    for inp, out in FROM_HASH:
        assert g.from_hash(bytes.fromhex(inp)).hex() == out


def test_group_laws() -> None:
    a, b = g.random_scalar(), g.random_scalar()
    assert g.add(g.base(a), g.base(b)) == g.base(a + b)
    assert g.sub(g.base(a), g.base(b)) == g.base(a - b)
    assert g.mul(b, g.base(a)) == g.base(a * b)
    assert g.mul(a, g.G) == g.base(a)
    assert g.neg(g.base(a)) == g.base(-a)


def test_identity_is_a_legitimate_result_not_an_error() -> None:
    """libsodium reports an all-zero result as a failure; the wrapper returns the identity
    (the ``_allow_scalar_zero`` behaviour), so a legitimate computation never looks like a
    peer's fault."""
    assert g.mul(0, g.G) == g.IDENTITY
    assert g.mul(g.L, g.G) == g.IDENTITY
    assert g.base(0) == g.IDENTITY
    assert g.mul(5, g.IDENTITY) == g.IDENTITY
    assert g.add(g.IDENTITY, g.G) == g.G
    assert g.sub(g.G, g.G) == g.IDENTITY
    assert g.is_element(g.IDENTITY)
    assert not g.is_valid_point(g.IDENTITY)


def test_point_validation_rejects_bad_encodings() -> None:
    p = g.base(7)
    assert g.is_valid_point(p)
    assert not g.is_valid_point(g.IDENTITY)
    assert not g.is_valid_point(p[:31])
    assert not g.is_valid_point("x" * 32)
    for bad in BAD_ENCODINGS:
        assert not g.is_valid_point(bad)
        assert not g.is_element(bad)
        with pytest.raises(g.GroupError):
            g.mul(3, bad)
        with pytest.raises(g.GroupError):
            g.mul(0, bad)
        with pytest.raises(g.GroupError):
            g.add(p, bad)
        with pytest.raises(g.GroupError):
            g.sub(bad, p)
        with pytest.raises(g.GroupError):
            g.check_point(bad)
    with pytest.raises(g.GroupError):
        g.add(p, p[:31])


def test_hash_to_point_is_deterministic_valid_and_distinct() -> None:
    pts = [g.hash_to_point(b"millebornes/card/v1", i.to_bytes(4, "big")) for i in range(106)]
    assert len(set(pts)) == 106
    assert all(g.is_valid_point(p) for p in pts)
    assert pts[3] == g.hash_to_point(b"millebornes/card/v1", (3).to_bytes(4, "big"))
    assert pts[3] != g.hash_to_point(b"other/domain", (3).to_bytes(4, "big"))
    raw = hashlib.sha512(bytes([19]) + b"millebornes/card/v1" + (3).to_bytes(4, "big")).digest()
    assert pts[3] == g.from_hash(raw)


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
    assert ops.as_dict() == {"base": 1, "var": 1, "add": 1, "valid": 1, "h2p": 0, "msm": 0,
                             "msm_small": 0, "ct": 0, "fixed": 0}
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
    for bad in (*BAD_ENCODINGS, g.IDENTITY):
        assert not schnorr_verify(bad, proof, b"table|hand 1|seat 0")
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


def test_dleq_rejects_wrong_share_context_and_bad_encodings() -> None:
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
    for bad in BAD_ENCODINGS:  # an undecodable share fails even with validation deferred
        for validate in (True, False):
            assert not dleq_verify(h, c1, bad, dleq_prove(x, h, c1, bad, b"c"), b"c",
                                   validate_d=validate)
    with pytest.raises(ProofError):
        dleq_check(h, c1, wrong, proof, b"pos 3|to 1")


@settings(max_examples=10, deadline=None)
@given(x=scalars, k=scalars, nonce=scalars)
def test_dleq_with_known_logs_agrees_with_dleq_verify(x: int, k: int, nonce: int) -> None:
    """The end-of-hand audit checks share proofs with both discrete logs known: the same
    verdict as dleq_verify on an honest proof and on every mutated one."""
    h, c1 = g.base(x), g.base(k)
    d = g.mul(x, c1)
    proof = dleq_prove(x, h, c1, d, b"ctx", nonce=nonce)
    assert dleq_verify_known_logs(x, h, k, c1, d, proof, b"ctx")
    mutants = [Proof(proof.c, (proof.z + 1) % g.L), Proof((proof.c + 1) % g.L, proof.z),
               Proof(0, proof.z), Proof(proof.c, 0)]
    for bad in mutants:
        assert not dleq_verify(h, c1, d, bad, b"ctx")
        assert not dleq_verify_known_logs(x, h, k, c1, d, bad, b"ctx")
    assert not dleq_verify_known_logs(x, h, k, c1, d, proof, b"other context")
    # a proof made with another secret (for a share that is not x·c1) fails both ways
    other = dleq_prove((x + 1) % g.L, h, c1, d, b"ctx", nonce=nonce)
    assert not dleq_verify(h, c1, d, other, b"ctx")
    assert not dleq_verify_known_logs(x, h, k, c1, d, other, b"ctx")


def test_proof_decoding_rejects_bad_bytes() -> None:
    with pytest.raises(ProofError):
        Proof.from_bytes(b"\x00" * 63)
    with pytest.raises(ProofError):
        Proof.from_bytes(b"\xff" * 64)  # non-canonical scalars


def test_library_cache_is_used_checked_and_gives_the_same_group(tmp_path: object) -> None:
    """rbcl's libsodium is kept in the cache folder after the first start and loaded from
    there by the next ones; a damaged copy (its SHA-256 no longer matches its name) is
    ignored and replaced."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    cache = Path(str(tmp_path))
    code = ("import sys; from p2p.crypto import group as g; "
            "print(g.base(7).hex(), 'rbcl._sodium' in sys.modules)")
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    env.pop("MILLEBORNES_NO_LIB_CACHE", None)

    def run() -> list[str]:
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=60, check=True)
        return out.stdout.split()

    want = g.base(7).hex()
    assert run() == [want, "True"]           # first start: from rbcl, copy kept
    copies = list((cache / "millebornes").glob("libsodium-rbcl-*.so"))
    assert len(copies) == 1
    assert run() == [want, "False"]          # next start: the copy, rbcl not imported
    data = bytearray(copies[0].read_bytes())
    data[-1] ^= 1
    copies[0].write_bytes(bytes(data))
    assert run() == [want, "True"]           # damaged copy ignored


def test_an_encoding_with_its_top_bit_set_is_refused_everywhere() -> None:
    """RFC 9496 §4.3.1: only the canonical encoding decodes.  The bundled libsodium ignores
    the top bit, which gave every point a second encoding (a peer could send either, and
    hashes and byte comparisons would disagree with the group)."""
    p = g.base(12345)
    twin = p[:31] + bytes([p[31] | 0x80])
    assert g._lib.crypto_core_ristretto255_is_valid_point(twin) == 1  # the library's view
    assert not g.is_element(twin) and not g.is_valid_point(twin)
    for op in (lambda: g.add(twin, p), lambda: g.sub(p, twin), lambda: g.mul(3, twin),
               lambda: g.public_sum([(2, twin)])):
        with pytest.raises(g.GroupError):
            op()
    with g.use_native_sums(False), pytest.raises(g.GroupError):
        g.public_sum([(2, twin)])


def test_a_point_that_is_not_bytes_is_a_group_error_in_every_operation() -> None:
    """Before, add and sub handed any 32-long object to libsodium (a str went through
    ctypes as a wide string); every operation now refuses it the same way."""
    for bad in ("x" * 32, [0] * 32, bytearray(32)):
        with pytest.raises(g.GroupError):
            g.add(bad, g.G)  # type: ignore[arg-type]
        with pytest.raises(g.GroupError):
            g.sub(g.G, bad)  # type: ignore[arg-type]
        with pytest.raises(g.GroupError):
            g.mul(2, bad)  # type: ignore[arg-type]
        assert not g.is_element(bad)
