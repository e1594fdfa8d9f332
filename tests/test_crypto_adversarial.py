"""Adversarial review of the cryptography (p2p/crypto, p2p/deck): each test tries a classic
way such systems fail against the real verifier.

* Ed25519 keys of small order: under the identity key (and the other small-order points) a
  signature verifies for every message with the ``cryptography`` package alone; the
  project's ``verify_signature`` must refuse them (it did not).
* Weak Fiat–Shamir ("Frozen Heart"): a proof of shuffle moved to an output deck chosen
  after its challenges (a card substituted), with the algebra that passes every check were
  the output deck missing from the hash: accepted by a verifier whose challenge omits it,
  refused by the real one.
* Scalars: a value and the same value plus ``L`` are one scalar but two encodings; every
  place a peer sends a scalar refuses the second.
* Commitments: a shuffle commitment opens for one seed, seat, table, hand and round only,
  and a public-randomness commitment is never a shuffle commitment.
* Statements: a key proof, a decryption share and a shuffle's generators cannot be moved to
  another seat, position or recipient, or chosen by anyone.
* Phases: no new shuffle round once the reveals began (verify_end crashed on one).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from p2p.crypto import group as g
from p2p.crypto import shuffle_proof as sp
from p2p.crypto.identity import Identity, is_strict_public_key, verify_signature
from p2p.crypto.proofs import Proof, ProofError, dleq_prove, schnorr_prove
from p2p.deck.ciphers import (
    card_point,
    prove_pass,
    random_commitment,
    shuffle_commitment,
    start_deck,
    verify_pass,
)
from p2p.deck.hand import DeckHand
from p2p.deck.memory import DeckTable
from p2p.deck.messages import CheatDetected, KeyShare, ReshuffleStart, SecretReveal
from p2p.transcript.envelope import Envelope, LogError, LogVerifier, genesis_hash

# ------------------------------------------------------------------ edwards25519 by hand
# Just enough of RFC 8032 §5.1 to build the small-order keys and a signature under them,
# independently of the libraries under test.

P = 2**255 - 19
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
Point = tuple[int, int, int, int]  # extended coordinates (X, Y, Z, T)
IDENT: Point = (0, 1, 1, 0)


def _add(p: Point, q: Point) -> Point:
    x1, y1, z1, t1 = p
    x2, y2, z2, t2 = q
    a = (y1 - x1) * (y2 - x2) % P
    b = (y1 + x1) * (y2 + x2) % P
    c = 2 * t1 * t2 * D % P
    d = 2 * z1 * z2 % P
    e, f, gg, h = b - a, d - c, d + c, b + a
    return (e * f % P, gg * h % P, f * gg % P, e * h % P)


def _mul(k: int, p: Point) -> Point:
    acc = IDENT
    while k:
        if k & 1:
            acc = _add(acc, p)
        p = _add(p, p)
        k >>= 1
    return acc


def _affine(p: Point) -> tuple[int, int]:
    zi = pow(p[2], P - 2, P)
    return p[0] * zi % P, p[1] * zi % P


def _encode(p: Point) -> bytes:
    x, y = _affine(p)
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def _decode_loose(b: bytes) -> Point | None:
    """RFC 8032 decoding without the canonicity checks (y may be >= p, "-0" allowed): the
    points a lax decoder makes of an encoding."""
    v = int.from_bytes(b, "little")
    sign, y = v >> 255, (v & ((1 << 255) - 1)) % P
    u, w = (y * y - 1) % P, (D * y * y + 1) % P
    x = u * pow(w, 3, P) * pow(u * pow(w, 7, P), (P - 5) // 8, P) % P
    if w * x * x % P == (-u) % P:
        x = x * SQRT_M1 % P
    if w * x * x % P != u % P:
        return None
    if x & 1 != sign:
        x = (-x) % P
    return (x, y, 1, x * y % P)


def _is_identity(p: Point) -> bool:
    x, y = _affine(p)
    return x == 0 and y == 1


BY = 4 * pow(5, P - 2, P) % P
BASE = _decode_loose(BY.to_bytes(32, "little"))
L = g.L


def _order(p: Point) -> int:
    for o in (1, 2, 4, 8):
        if _is_identity(_mul(o, p)):
            return o
    raise AssertionError("not a small-order point")


def _small_order_encodings() -> list[bytes]:
    """Every encoding a lax decoder reads as a point of order 1, 2, 4 or 8: the 8 torsion
    points, the "-0" forms of those with x = 0 and the non-canonical y = p, p + 1 (14)."""
    for y in range(2, 100):  # L·P is a torsion point; one of order 8 generates them all
        pt = _decode_loose(y.to_bytes(32, "little"))
        if pt is not None and _order(_mul(L, pt)) == 8:
            t = _mul(L, pt)
            break
    else:  # pragma: no cover
        raise AssertionError("no point with an order-8 component")
    found = set()
    for q in (_mul(i, t) for i in range(8)):
        x, y = _affine(q)
        for yy in ({y, y + P} if y + P < 2**255 else {y}):
            for sign in ((0, 1) if x == 0 else (x & 1,)):
                found.add((yy | (sign << 255)).to_bytes(32, "little"))
    return sorted(found)


def _universal_signature(key: bytes, message: bytes) -> bytes:
    """(R, S) = (S·B, S) with k = SHA-512(R ‖ A ‖ M) a multiple of the key's order: then
    S·B = R + k·A holds for a key of small order, whatever the message."""
    a = _decode_loose(key)
    assert BASE is not None and a is not None
    order = _order(a)
    for s in range(1, 10_000):
        r = _encode(_mul(s, BASE))
        k = int.from_bytes(hashlib.sha512(r + key + message).digest(), "little") % L
        if k % order == 0:
            return r + s.to_bytes(32, "little")
    raise AssertionError("no S found")  # pragma: no cover - 1 in 8 tries succeeds


# ------------------------------------------------------------------ signatures


def test_a_key_of_small_order_verifies_nothing() -> None:
    """The forgery: under the identity key, ``(S·B, S)`` is a signature of every message,
    and ``cryptography``'s Ed25519 accepts it (it checks ``S < L``, not the key's order);
    the same with every small-order key for the messages whose ``k`` its order divides.
    ``verify_signature`` accepted them: a player who registered such a key could deny any
    entry in its name, and anyone could write one."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    keys = _small_order_encodings()
    assert len(keys) >= 12
    library_accepted = 0
    for key in keys:
        for message in (b"millebornes/envelope/v1\x00anything", b"something else"):
            sig = _universal_signature(key, message)
            try:
                Ed25519PublicKey.from_public_bytes(key).verify(sig, message)
                library_accepted += 1
            except Exception:  # noqa: BLE001 - the library may refuse some (it should)
                pass
            assert not verify_signature(key, sig, message), key.hex()
        assert not is_strict_public_key(key)
    assert library_accepted > 0  # the attack is real with this library: the check matters


def test_an_honest_key_plus_a_point_of_small_order_is_refused() -> None:
    """A key outside the prime-order subgroup (an honest key plus a torsion point) is no
    key any Ed25519 implementation makes: refused too, so no implementation's choice of
    verification equation (with or without the cofactor) can matter."""
    honest = Identity.from_seed(b"mixed")
    assert is_strict_public_key(honest.public_key)
    a = _decode_loose(honest.public_key)
    assert a is not None
    for t in _small_order_encodings():
        tp = _decode_loose(t)
        assert tp is not None
        if _is_identity(tp):
            continue
        mixed = _encode(_add(a, tp))
        assert not is_strict_public_key(mixed)
        assert not verify_signature(mixed, honest.sign(b"m"), b"m")
    for bad in (b"", b"\x00" * 31, honest.public_key + b"\x00"):
        assert not is_strict_public_key(bad)


def test_honest_signatures_still_verify_and_a_malleated_s_does_not() -> None:
    ident = Identity.from_seed(b"strict")
    sig = ident.sign(b"entry")
    assert verify_signature(ident.public_key, sig, b"entry")
    s_plus_l = int.from_bytes(sig[32:], "little") + L
    assert not verify_signature(ident.public_key, sig[:32] + s_plus_l.to_bytes(32, "little"),
                                b"entry")
    for i in range(20):  # keys of many seeds: every honest key is strict
        assert is_strict_public_key(Identity.from_seed(bytes([i])).public_key)


def test_an_entry_forged_under_a_small_order_seat_key_is_refused_by_the_log() -> None:
    """End to end: a seat registered with the identity key.  Before, the log accepted an
    entry anyone wrote in its name (a universal signature)."""
    weak = (1).to_bytes(32, "little")
    honest = Identity.from_seed(b"honest")
    table = b"table-weak-key"
    genesis = genesis_hash(table, 1)
    unsigned = Envelope(table, 1, weak, 0, genesis, {"k": "game.act", "a": "forged"}, b"")
    forged = Envelope(table, 1, weak, 0, genesis, unsigned.body,
                      _universal_signature(weak, unsigned.signed_bytes()))
    verifier = LogVerifier(table, 1, [weak, honest.public_key], genesis)
    with pytest.raises(LogError) as ex:
        verifier.accept(forged)
    assert ex.value.check == "bad-signature" and ex.value.author == weak


# ------------------------------------------------------------------ weak Fiat–Shamir

TABLE = b"table-adversarial"
N = 6


Deck = tuple[tuple[bytes, bytes], ...]


def _pass(first: bool = True) -> tuple[bytes, Deck, Deck, bytes]:
    """(joint key, input, output, proof) of seat 1's pass, round 0 (its input the start
    deck, or seat 0's pass if not ``first``)."""
    joint = g.base(g.random_scalar())
    deck = start_deck(range(N))
    if not first:
        deck, _ = prove_pass(deck, os.urandom(32), joint, TABLE, 1, 0, 0)
    out, proof = _prove(deck, joint)
    return joint, deck, out, proof


def _prove(inp: Deck, joint: bytes) -> tuple[Deck, bytes]:
    return prove_pass(inp, os.urandom(32), joint, TABLE, 1, 0, 1)


def _accepts(inp: Deck, out: Deck, proof: bytes, joint: bytes) -> bool:
    try:
        verify_pass(inp, out, proof, joint, TABLE, 1, 0, 1)
    except sp.ShuffleProofError:
        return False
    return True


@contextmanager
def _seed_u_without(part: str) -> Iterator[None]:
    """A verifier (and prover) whose first challenge omits one part of the statement: the
    weak Fiat–Shamir of [BPW12]."""
    real = sp._seed_u

    def weak(context: bytes, joint: bytes, inp: object, out: object, c: object) -> bytes:
        if part == "out":
            return real(context, joint, inp, (), c)  # type: ignore[arg-type]
        raise AssertionError(part)

    sp._seed_u = weak  # type: ignore[assignment]
    try:
        yield
    finally:
        sp._seed_u = real  # type: ignore[assignment]


def _substitute_first_card(out: Deck, proof: bytes, new_card: int) -> Deck:
    """The Frozen Heart forgery on the output deck: change what ``out[0]`` decrypts to (any
    card, here ``new_card``'s point in place of the old card's, as far as the forger knows
    it: it adds ``Δ = M_new − M_old`` for a guessed old card) and cancel the change in the
    only check that reads it, ``Σ s'_i·B'_i``, with ``out[1]``: ``B'_1 −= (s'_0/s'_1)·Δ``.
    Every check then holds for the old challenges; only the hash of the output deck
    moves them."""
    parsed = sp.ShuffleProof.from_bytes(proof, len(out))
    delta = g.sub(card_point(new_card), card_point(0))
    s0, s1 = parsed.s_prime[0], parsed.s_prime[1]
    k = s0 * pow(s1, -1, L) % L
    b0 = g.add(out[0][1], delta)
    b1 = g.sub(out[1][1], g.mul(k, delta))
    return ((out[0][0], b0), (out[1][0], b1), *out[2:])


def test_an_output_deck_chosen_after_the_challenge_is_refused() -> None:
    """The first challenge hashes the output deck; without it, a shuffler could change
    cards after the proof was made (here: the deck is no longer a shuffle of the input)."""
    joint, inp, out, proof = _pass()
    with _seed_u_without("out"):
        weak_out, weak_proof = _prove(inp, joint)
        assert _accepts(inp, weak_out, weak_proof, joint)
        assert _accepts(inp, _substitute_first_card(weak_out, weak_proof, 5), weak_proof,
                        joint), "the forgery works against a weak Fiat–Shamir"
    assert _accepts(inp, out, proof, joint)
    assert not _accepts(inp, _substitute_first_card(out, proof, 5), proof, joint)


# ------------------------------------------------------------------ scalars and encodings


def _plus_l(b: bytes) -> bytes:
    """The same scalar, plus L: still 32 bytes (a scalar is below 2^253)."""
    return (int.from_bytes(b, "little") + L).to_bytes(32, "little")


def test_a_scalar_plus_l_is_refused_wherever_a_peer_sends_one() -> None:
    x = g.random_scalar()
    h = g.base(x)
    schnorr = schnorr_prove(x, h, b"ctx").to_bytes()
    dleq = dleq_prove(x, h, g.G, h, b"ctx").to_bytes()
    for raw in (schnorr, dleq):
        for at in (0, 32):
            with pytest.raises(ProofError):
                Proof.from_bytes(raw[:at] + _plus_l(raw[at:at + 32]) + raw[at + 32:])
    joint, inp, out, proof = _pass()
    first_scalar = 32 * (3 * N + 5)
    for at in range(first_scalar, len(proof), 32):
        assert not _accepts(inp, out, proof[:at] + _plus_l(proof[at:at + 32]) + proof[at + 32:],
                            joint)
    # the end-of-hand reveal of a hand key: x + L is refused, x is accepted
    hand = DeckHand(TABLE, 1, 2, range(4), my_seat=None)
    for seat in (0, 1):
        xs = g.random_scalar() if seat else x
        key = g.base(xs)
        hand.receive(KeyShare(seat, key, schnorr_prove(xs, key, hand.key_context(seat))
                              .to_bytes()))
    with pytest.raises(CheatDetected) as ex:
        hand.receive(SecretReveal(0, _plus_l(g.scalar_to_bytes(x)), (bytes(32),)))
    assert ex.value.check == "reveal-key" and ex.value.seat == 0
    hand.receive(SecretReveal(0, g.scalar_to_bytes(x), (bytes(32),)))


def test_a_point_with_its_top_bit_set_is_refused_in_a_pass() -> None:
    """The bundled libsodium decodes ``s`` and ``s + 2^255`` alike; an output ciphertext
    sent with the top bit set (the same point under another encoding) must fail the proof,
    not be carried into the deck under two encodings."""
    joint, inp, out, proof = _pass(first=False)
    a, b = out[2]
    flipped = ((a, b[:31] + bytes([b[31] | 0x80])), )
    assert not _accepts(inp, (*out[:2], *flipped, *out[3:]), proof, joint)


# ------------------------------------------------------------------ commitments


def test_a_shuffle_commitment_opens_for_its_own_statement_only() -> None:
    seed = os.urandom(32)
    c = shuffle_commitment(seed, 1, TABLE, 3, 0)
    assert c == shuffle_commitment(seed, 1, TABLE, 3, 0)
    others = [shuffle_commitment(seed, 0, TABLE, 3, 0), shuffle_commitment(seed, 1, TABLE, 4, 0),
              shuffle_commitment(seed, 1, TABLE, 3, 1),
              shuffle_commitment(seed, 1, TABLE + b"x", 3, 0),
              # a length moved between the table id and the hand number
              shuffle_commitment(seed, 1, TABLE[:-1], 3, 0),
              random_commitment(seed, 1, TABLE, b"shuffle")]
    assert c not in others and len(set(others)) == len(others)


# ------------------------------------------------------------------ the deck's phases


def test_no_new_shuffle_round_once_the_reveals_began() -> None:
    """After every seat revealed, a reshuffle, its commitments and passes were accepted;
    the new round's seeds are never revealed, and verify_end then crashed on a missing
    seed (IndexError: the transcript verifier's "unexpected-error" instead of naming the
    seat).  The message that starts it is refused, blaming its author."""
    t = DeckTable(2, list(range(8)))
    t.setup()
    t.deal(0, 0)
    obs = t.observer
    assert obs is not None
    reveal = t.peers[0].make_reveal()
    for q in (*t.peers, obs):
        q.receive(reveal)
    with pytest.raises(CheatDetected) as ex:
        obs.receive(ReshuffleStart(1, 1, (2, 3, 4)))
    assert (ex.value.seat, ex.value.check) == (1, "phase")
    reveal = t.peers[1].make_reveal()
    for q in (*t.peers, obs):
        q.receive(reveal)
    assert obs.verify_end().decks[0][0] == t.peers[0].my_card(0, 0)


# ------------------------------------------------------------------ proofs bound to their statement


def test_a_key_proof_copied_to_another_seat_hand_or_table_or_a_degenerate_key_is_refused() -> None:
    """The Schnorr proof of a hand key is bound to (table, hand, seat): copying another
    seat's key (a rogue-key attack's first step) or one from another hand or table fails,
    and so do the identity and a second encoding of a key."""
    x = g.random_scalar()
    h = g.base(x)
    good = DeckHand(TABLE, 1, 3, range(8))
    own = KeyShare(0, h, schnorr_prove(x, h, good.key_context(0)).to_bytes())
    elsewhere = [DeckHand(TABLE, 2, 3, range(8)), DeckHand(TABLE + b"2", 1, 3, range(8))]
    attempts = [KeyShare(1, h, own.proof)]
    attempts += [KeyShare(0, h, schnorr_prove(x, h, d.key_context(0)).to_bytes())
                 for d in elsewhere]
    attempts += [KeyShare(0, g.IDENTITY, schnorr_prove(0, g.IDENTITY, good.key_context(0))
                          .to_bytes()),
                 KeyShare(0, h[:31] + bytes([h[31] | 0x80]), own.proof)]
    for m in attempts:
        hand = DeckHand(TABLE, 1, 3, range(8))
        with pytest.raises(CheatDetected) as ex:
            hand.receive(m)
        assert (ex.value.seat, ex.value.check) == (m.seat, "key-proof")
    good.receive(own)


def test_a_decryption_share_relabelled_or_degenerate_is_refused_by_its_recipient() -> None:
    """A share's DLEQ proof is bound to its position and recipient: a share made for one
    recipient and sent to another, one moved to another position, and the identity as a
    share all fail at the recipient, blaming the share's author."""
    t = DeckTable(3, list(range(8)))
    t.setup()
    honest = t.peers[1].make_share(0, 1, 0)   # seat 1's share of position 1 for seat 0
    to_two = t.peers[1].make_share(0, 2, 2)   # and of position 2 for seat 2
    for forged in (dataclasses.replace(honest, recipient=2),
                   dataclasses.replace(honest, pos=2, recipient=2),
                   dataclasses.replace(to_two, share=g.IDENTITY)):
        fresh = t.peers[2]
        with pytest.raises(CheatDetected) as ex:
            fresh.receive(forged)
        assert (ex.value.seat, ex.value.check) == (1, "share-proof")
    t.peers[2].receive(to_two)  # the genuine one is accepted


def test_public_randomness_commitments_are_bound_to_seat_and_purpose() -> None:
    """A seat copying another's commitment cannot open it as its own (the seat is in it),
    nor reuse one of another hand's first-player draw (the purpose names the hand)."""
    seed = os.urandom(32)
    c = random_commitment(seed, 0, TABLE, b"first-player/1")
    assert c != random_commitment(seed, 1, TABLE, b"first-player/1")
    assert c != random_commitment(seed, 0, TABLE, b"first-player/2")
    assert c != random_commitment(seed, 0, TABLE + b"x", b"first-player/1")
    with pytest.raises(ValueError):
        random_commitment(seed[:31], 0, TABLE, b"first-player/1")


def test_the_shuffle_generators_are_hashes_nobody_chose() -> None:
    """The commitment generators are exactly the documented hashes (so nobody, the authors
    included, can know a discrete log between them and G), distinct from every card point."""
    hs, h0 = sp.generators(106)
    domain = b"millebornes/shuffle-generator/v1"

    def h2p(data: bytes) -> bytes:
        return g.from_hash(hashlib.sha512(bytes([len(domain)]) + domain + data).digest())

    assert list(hs) == [h2p(i.to_bytes(4, "big")) for i in range(106)]
    assert h0 == h2p(b"chain")
    assert not {*hs, h0} & {card_point(c) for c in range(106)}
