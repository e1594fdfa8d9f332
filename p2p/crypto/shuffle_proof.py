"""Non-interactive zero-knowledge proof that one deck is a shuffle of another.

Statement (public): the joint key ``H``, an input deck ``e_j = (A_j, B_j)`` and an output
deck ``e'_i = (A'_i, B'_i)`` of ``N`` ElGamal ciphertexts on ristretto255, and a context
(table, hand, round, pass, seat).  Witness (the shuffler's): a permutation ``π`` and scalars
``ρ_i`` with ``e'_i = e_{π(i)} + (ρ_i·G, ρ_i·H)`` for every ``i`` — the output is the input
permuted and re-encrypted under ``H``, and nothing else (no card dropped, added, duplicated
or changed).

The protocol is the Terelius–Wikström proof of a shuffle (AFRICACRYPT 2010) in the form
specified step by step for the CHVote verifier (Haenni, Locher, Koenig, Dubuis: "Pseudo-Code
Algorithms for Verifiable Re-Encryption Mix-Nets", FC 2017 workshops; CHVote protocol
specification §8.4, GenShuffleProof/CheckShuffleProof), written additively, with responses
``s = ω + c·w``.  Made non-interactive with Fiat–Shamir (SHA-512) over the whole context, the
commitment generators and every prover message before each challenge.  docs/protocol.md
gives every byte of the encoding, every hash input in order and every check.

Commitment generators ``h_i`` and ``h`` (the chain's start) come from
:func:`group.hash_to_point` on a fixed domain tag and an index: nobody, prover included,
knows a relation between them and ``G``.

Cost for ``N`` ciphertexts (var = variable-base multiplication): prove ``3N`` base + ``5N``
var; verify ``N`` base + ``8N`` var (``7N`` on the first pass, whose ``A_j`` are the
identity); proof size ``160·N + 288`` bytes.  With the compiled sums of
:mod:`p2p.crypto.group` the prover's three sums over its secret nonces are constant-time
multi-scalar sums (``secret_sum``) and the verifier's checks are public ones
(``public_sum``, the chain links batched into one): a 106-card verification about a third
of the cost, same verdicts.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from p2p.crypto import group as g
from p2p.crypto.parallel import both, each_half
from p2p.crypto.proofs import ProofError

__all__ = [
    "ShuffleProof",
    "ShuffleProofError",
    "generators",
    "proof_size",
    "prove_shuffle",
    "verify_shuffle",
    "GEN_DOMAIN",
    "PROOF_TAG",
    "MAX_N",
]

Ciphertext = tuple[bytes, bytes]

GEN_DOMAIN = b"millebornes/shuffle-generator/v1"
PROOF_TAG = b"millebornes/shuffle-proof/v1"
_NONCE_TAG = b"millebornes/shuffle-proof-nonce/v1"
#: Largest deck a proof may cover (bounds the memory a hostile proof can claim).
MAX_N = 4096


class ShuffleProofError(ProofError):
    """The shuffle proof is malformed or does not verify; ``reason`` says which check."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"shuffle proof: {reason}")


def proof_size(n: int) -> int:
    """Bytes of an encoded proof over ``n`` ciphertexts."""
    return 160 * n + 288


@dataclass(frozen=True)
class ShuffleProof:
    """The prover's messages and responses (field names follow CHVote's π = (t, s, c, ĉ))."""

    c: tuple[bytes, ...]        #: permutation commitment c_j, one per input position
    c_hat: tuple[bytes, ...]    #: commitment chain ĉ_i, one per output position
    t1: bytes
    t2: bytes
    t3: bytes
    t4a: bytes
    t4b: bytes
    t_hat: tuple[bytes, ...]    #: t̂_i
    s1: int
    s2: int
    s3: int
    s4: int
    s_hat: tuple[int, ...]      #: ŝ_i
    s_prime: tuple[int, ...]    #: s'_i

    def to_bytes(self) -> bytes:
        """c ‖ ĉ ‖ t1 ‖ t2 ‖ t3 ‖ t4a ‖ t4b ‖ t̂ ‖ s1 ‖ s2 ‖ s3 ‖ s4 ‖ ŝ ‖ s' (points 32 bytes,
        scalars 32 bytes little-endian)."""
        sc = g.scalar_to_bytes
        return b"".join((
            *self.c, *self.c_hat, self.t1, self.t2, self.t3, self.t4a, self.t4b, *self.t_hat,
            sc(self.s1), sc(self.s2), sc(self.s3), sc(self.s4),
            *(sc(s) for s in self.s_hat), *(sc(s) for s in self.s_prime)))

    @classmethod
    def from_bytes(cls, b: object, n: int) -> ShuffleProof:
        """Parse a proof over ``n`` ciphertexts; scalars must be canonical.  Points are only
        decoded when used (an undecodable one fails verification)."""
        if not isinstance(b, bytes) or not 1 <= n <= MAX_N or len(b) != proof_size(n):
            raise ShuffleProofError(f"a proof over {n} ciphertexts is {proof_size(n)} bytes")
        words = [b[k:k + 32] for k in range(0, len(b), 32)]
        try:
            scalars = [g.scalar_from_bytes(w) for w in words[3 * n + 5:]]
        except g.GroupError:
            raise ShuffleProofError("non-canonical scalar") from None
        return cls(
            c=tuple(words[:n]), c_hat=tuple(words[n:2 * n]),
            t1=words[2 * n], t2=words[2 * n + 1], t3=words[2 * n + 2],
            t4a=words[2 * n + 3], t4b=words[2 * n + 4], t_hat=tuple(words[2 * n + 5:3 * n + 5]),
            s1=scalars[0], s2=scalars[1], s3=scalars[2], s4=scalars[3],
            s_hat=tuple(scalars[4:4 + n]), s_prime=tuple(scalars[4 + n:]))


# --------------------------------------------------------------------------- generators

@lru_cache(maxsize=8)
def _gens(n: int) -> tuple[tuple[bytes, ...], bytes, bytes]:
    hs = tuple(g.hash_to_point(GEN_DOMAIN, struct.pack(">I", i)) for i in range(n))
    h0 = g.hash_to_point(GEN_DOMAIN, b"chain")
    total = g.IDENTITY
    for p in hs:
        total = g.add(total, p)
    return hs, h0, total


def generators(n: int) -> tuple[tuple[bytes, ...], bytes]:
    """``(h_0..h_{n-1}, h)``: h_i = hash_to_point(GEN_DOMAIN, i as 4-byte big-endian),
    h = hash_to_point(GEN_DOMAIN, "chain")."""
    hs, h0, _ = _gens(n)
    return hs, h0


# --------------------------------------------------------------------------- Fiat–Shamir

def _lp(b: bytes) -> bytes:
    return struct.pack(">I", len(b)) + b


def _deck_digest(deck: Sequence[Ciphertext]) -> bytes:
    h = hashlib.sha512(struct.pack(">I", len(deck)))
    for a, b in deck:
        h.update(a)
        h.update(b)
    return h.digest()


def _seed_u(context: bytes, joint: bytes, inp: Sequence[Ciphertext],
            out: Sequence[Ciphertext], c: Sequence[bytes]) -> bytes:
    n = len(inp)
    hs, h0, _ = _gens(n)
    h = hashlib.sha512(PROOF_TAG + b"/u")
    h.update(_lp(context))
    h.update(struct.pack(">I", n))
    h.update(g.G)
    h.update(joint)
    h.update(h0)
    for p in hs:
        h.update(p)
    h.update(_deck_digest(inp))
    h.update(_deck_digest(out))
    for p in c:
        h.update(p)
    return h.digest()


def _challenges_u(seed: bytes, n: int) -> list[int]:
    return [g.scalar_from_hash(hashlib.sha512(seed + struct.pack(">I", j)).digest())
            for j in range(n)]


def _challenge_c(seed: bytes, c_hat: Sequence[bytes], t: Sequence[bytes],
                 t_hat: Sequence[bytes]) -> int:
    h = hashlib.sha512(PROOF_TAG + b"/c")
    h.update(seed)
    for p in c_hat:
        h.update(p)
    for p in t:
        h.update(p)
    for p in t_hat:
        h.update(p)
    return g.scalar_from_hash(h.digest())


# --------------------------------------------------------------------------- prove

def prove_shuffle(inp: Sequence[Ciphertext], out: Sequence[Ciphertext], perm: Sequence[int],
                  rhos: Sequence[int], joint: bytes, context: bytes, nonce_key: bytes,
                  ops: g.OpCounter | None = None) -> ShuffleProof:
    """Prove ``out[i] = inp[perm[i]] + (rhos[i]·G, rhos[i]·joint)``.

    The prover's random values come from HMAC-SHA-512 keyed by ``nonce_key`` (the pass's
    secret seed) over the statement, so re-making the proof of the same pass (after a
    restart) gives the same proof and two different statements never share a nonce.
    """
    n = len(inp)
    L = g.L
    if not 1 <= n <= MAX_N or len(out) != n or sorted(perm) != list(range(n)) or len(rhos) != n:
        raise ValueError("not a shuffle witness")
    hs, h0, _ = _gens(n)
    mac = hmac.new(nonce_key, _NONCE_TAG + _lp(context) + joint + _deck_digest(inp)
                   + _deck_digest(out), hashlib.sha512)
    counter = 0

    def rnd() -> int:
        nonlocal counter
        m = mac.copy()
        m.update(struct.pack(">Q", counter))
        counter += 1
        return g.scalar_from_hash(m.digest())

    # Every nonce is drawn first, in a fixed order (r by output position, r̂, ω1..ω4, ω̂,
    # ω'), so that the group arithmetic below may run in two threads (see crypto.parallel).
    r = [0] * n
    for i in range(n):
        r[perm[i]] = rnd()
    r_hat = [rnd() for _ in range(n)]
    w1, w2, w3, w4 = rnd(), rnd(), rnd(), rnd()
    w_hat = [rnd() for _ in range(n)]
    w_p = [rnd() for _ in range(n)]
    # permutation commitment: c_{π(i)} = r_{π(i)}·G + h_i; with it, the fixed-base parts
    # r̂_i·G of the chain (independent of everything else), so that the chain below is
    # only its sequential multiplications
    c = [b""] * n
    r_hat_g = [b""] * n

    def commit(i: int, o: g.OpCounter | None) -> None:
        j = perm[i]
        c[j] = g.add(g.base(r[j], o), hs[i], o)
        r_hat_g[i] = g.base(r_hat[i], o)

    each_half(n, commit, ops)
    seed = _seed_u(context, joint, inp, out, c)
    u = _challenges_u(seed, n)
    u_p = [u[perm[i]] for i in range(n)]
    r_bar = sum(r) % L
    v = [1] * n
    for i in range(n - 2, -1, -1):
        v[i] = u_p[i + 1] * v[i + 1] % L
    r_hat_sum = sum(a * b for a, b in zip(r_hat, v, strict=True)) % L
    r_tilde = sum(a * b for a, b in zip(r, u, strict=True)) % L
    r_prime = sum(a * b for a, b in zip(rhos, u_p, strict=True)) % L

    def chain(o: g.OpCounter | None) -> list[bytes]:
        # commitment chain ĉ_i = r̂_i·G + u'_i·ĉ_{i-1} (ĉ_{-1} = h): one multiplication
        # after another, the longest sequence of the proof
        c_hat: list[bytes] = []
        prev = h0
        for i in range(n):
            prev = g.add(r_hat_g[i], g.mul(u_p[i], prev, o), o)
            c_hat.append(prev)
        return c_hat

    def sums(o: g.OpCounter | None) -> tuple[bytes, bytes, bytes, list[bytes]]:
        # the nonces ω' are secret: constant-time sums (g.secret_sum); and the fixed-base
        # parts ω̂_i·G of the links' commitments
        t3 = g.add(g.base(w3, o), g.secret_sum(list(zip(w_p, hs, strict=True)), o), o)
        t4a = g.sub(g.secret_sum([(w_p[i], out[i][0]) for i in range(n)], o), g.base(w4, o), o)
        t4b = g.sub(g.secret_sum([(w_p[i], out[i][1]) for i in range(n)], o),
                    g.mul(w4, joint, o), o)
        return t3, t4a, t4b, [g.base(w, o) for w in w_hat]

    c_hat, (t3, t4a, t4b, w_hat_g) = both(chain, sums, ops)
    # the links' commitments t̂_i = ω̂_i·G + ω'_i·ĉ_{i-1}, independent once ĉ is known
    t_hat = [b""] * n

    def link(i: int, o: g.OpCounter | None) -> None:
        t_hat[i] = g.add(w_hat_g[i], g.mul(w_p[i], c_hat[i - 1] if i else h0, o), o)

    each_half(n, link, ops)
    t1 = g.base(w1, ops)
    t2 = g.base(w2, ops)
    ch = _challenge_c(seed, c_hat, (t1, t2, t3, t4a, t4b), t_hat)
    return ShuffleProof(
        c=tuple(c), c_hat=tuple(c_hat), t1=t1, t2=t2, t3=t3, t4a=t4a, t4b=t4b,
        t_hat=tuple(t_hat),
        s1=(w1 + ch * r_bar) % L, s2=(w2 + ch * r_hat_sum) % L,
        s3=(w3 + ch * r_tilde) % L, s4=(w4 + ch * r_prime) % L,
        s_hat=tuple((w_hat[i] + ch * r_hat[i]) % L for i in range(n)),
        s_prime=tuple((w_p[i] + ch * u_p[i]) % L for i in range(n)))


# --------------------------------------------------------------------------- verify

def verify_shuffle(inp: Sequence[Ciphertext], out: Sequence[Ciphertext], proof: ShuffleProof,
                   joint: bytes, context: bytes, ops: g.OpCounter | None = None) -> None:
    """Raise :class:`ShuffleProofError` unless ``proof`` shows that ``out`` is a permutation
    and re-encryption under ``joint`` of ``inp`` in this ``context``.

    ``inp`` and ``joint`` are the verifier's own accepted state; everything else comes from
    the prover, so an undecodable point anywhere in ``out`` or ``proof`` is the prover's
    fault and fails the proof.
    """
    n = len(inp)
    if not 1 <= n <= MAX_N or len(out) != n or len(proof.c) != n or len(proof.c_hat) != n \
            or len(proof.t_hat) != n or len(proof.s_hat) != n or len(proof.s_prime) != n:
        raise ShuffleProofError("sizes do not match the deck")
    try:
        _verify(inp, out, proof, joint, context, ops)
    except g.GroupError as e:
        raise ShuffleProofError(f"undecodable point ({e})") from None


def _link_weights(seed: bytes, ch: int, p: ShuffleProof) -> list[int]:
    """Weights of the batched chain-link check, from a hash of the whole proof.

    They must depend on everything the prover chose, the responses included: with weights
    known before ŝ and s' are fixed, a prover could make two wrong links cancel in the sum.
    Derived like this, a wrong link passes the sum with probability about 2^-252 per
    attempt (Bellare, Garay, Rabin, "Fast batch verification", EUROCRYPT 1998, with the
    random weights made by a hash as in Fiat–Shamir)."""
    h = hashlib.sha512(PROOF_TAG + b"/link-weights")
    h.update(seed)
    h.update(g.scalar_to_bytes(ch))
    for a, b in zip(p.s_hat, p.s_prime, strict=True):
        h.update(g.scalar_to_bytes(a))
        h.update(g.scalar_to_bytes(b))
    d = h.digest()
    return [g.scalar_from_hash(hashlib.sha512(d + struct.pack(">I", i)).digest())
            for i in range(len(p.s_hat))]


def _verify(inp: Sequence[Ciphertext], out: Sequence[Ciphertext], p: ShuffleProof,
            joint: bytes, context: bytes, ops: g.OpCounter | None) -> None:
    n = len(inp)
    L = g.L
    add, sub, mul, base, public_sum = g.add, g.sub, g.mul, g.base, g.public_sum
    hs, h0, h_sum = _gens(n)
    seed = _seed_u(context, joint, inp, out, p.c)
    u = _challenges_u(seed, n)
    ch = _challenge_c(seed, p.c_hat, (p.t1, p.t2, p.t3, p.t4a, p.t4b), p.t_hat)
    if ch == 0:  # pragma: no cover - probability 2^-252
        raise ShuffleProofError("zero challenge")
    neg_c = (-ch) % L
    # Everything checked here is public, so the sums are made by g.public_sum (variable
    # time, compiled when built).
    # c̄ = Σ c_j − Σ h_i  (= r̄·G):  t1 = s1·G − c·c̄
    c_bar = sub(public_sum([(1, cj) for cj in p.c], ops), h_sum, ops)
    if add(base(p.s1, ops), mul(neg_c, c_bar, ops), ops) != p.t1:
        raise ShuffleProofError("check t1 fails (permutation commitment sum)")
    # ĉ = ĉ_{N-1} − (Π u_j)·h  (= r̂·G):  t2 = s2·G − c·ĉ
    u_prod = 1
    for x in u:
        u_prod = u_prod * x % L
    c_hat_end = sub(p.c_hat[-1], mul(u_prod, h0, ops), ops)
    if add(base(p.s2, ops), mul(neg_c, c_hat_end, ops), ops) != p.t2:
        raise ShuffleProofError("check t2 fails (commitment chain end)")
    # The remaining sums are independent: computed in two threads (see crypto.parallel), then
    # checked in a fixed order, so the first failing check is always the same one.

    def over_inputs(o: g.OpCounter | None) -> tuple[bytes, bytes, bytes, bytes]:
        # c̃ = Σ u_j·c_j, Σ s'_i·h_i, and (A*, B*) = Σ u_j·e_j
        return (public_sum(list(zip(u, p.c, strict=True)), o),
                public_sum(list(zip(p.s_prime, hs, strict=True)), o),
                public_sum([(u[j], inp[j][0]) for j in range(n)], o),
                public_sum([(u[j], inp[j][1]) for j in range(n)], o))

    def over_outputs(o: g.OpCounter | None) -> tuple[bytes, bytes, bool]:
        # Σ s'_i·e'_i, and every link t̂_i = ŝ_i·G + s'_i·ĉ_{i-1} − c·ĉ_i checked at once:
        # Σ z_i·(ŝ_i·G + s'_i·ĉ_{i-1} − c·ĉ_i − t̂_i) = 0 with the weights z_i of
        # _link_weights (one sum of 2N + 2 terms instead of N sums of three).
        z = _link_weights(seed, ch, p)
        terms = [(sum(zi * si for zi, si in zip(z, p.s_hat, strict=True)) % L, g.G),
                 (z[0] * p.s_prime[0] % L, h0)]
        for i in range(n):
            after = z[i + 1] * p.s_prime[i + 1] if i + 1 < n else 0
            terms.append(((after - z[i] * ch) % L, p.c_hat[i]))
        terms.extend(((-z[i]) % L, p.t_hat[i]) for i in range(n))
        links_hold = public_sum(terms, o) == g.IDENTITY
        return (public_sum([(p.s_prime[i], out[i][0]) for i in range(n)], o),
                public_sum([(p.s_prime[i], out[i][1]) for i in range(n)], o), links_hold)

    (c_tilde, s_h, a_star, b_star), (s_out_a, s_out_b, links_hold) = both(
        over_inputs, over_outputs, ops)
    # t3 = s3·G + Σ s'_i·h_i − c·c̃
    t3 = add(add(base(p.s3, ops), s_h, ops), mul(neg_c, c_tilde, ops), ops)
    if t3 != p.t3:
        raise ShuffleProofError("check t3 fails (permutation commitment opening)")
    # t4 = Σ s'_i·e'_i − s4·(G, H) − c·(A*, B*)
    t4a = add(sub(s_out_a, base(p.s4, ops), ops), mul(neg_c, a_star, ops), ops)
    if t4a != p.t4a:
        raise ShuffleProofError("check t4a fails (re-encryption, first components)")
    t4b = add(sub(s_out_b, mul(p.s4, joint, ops), ops), mul(neg_c, b_star, ops), ops)
    if t4b != p.t4b:
        raise ShuffleProofError("check t4b fails (re-encryption, second components)")
    if links_hold:
        return
    # t̂_i = ŝ_i·G + s'_i·ĉ_{i-1} − c·ĉ_i, one by one to name the first link that fails
    prev = h0
    for i in range(n):
        link = public_sum([(p.s_hat[i], g.G), (p.s_prime[i], prev), (neg_c, p.c_hat[i])], ops)
        if link != p.t_hat[i]:
            raise ShuffleProofError(f"check t̂_{i} fails (commitment chain link)")
        prev = p.c_hat[i]
    raise ShuffleProofError("check t̂ fails (commitment chain links)")  # pragma: no cover
