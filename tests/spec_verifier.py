"""An independent verifier of millebornes transcripts, written from docs/protocol.md and
docs/verify.md alone (tests/test_spec_verifier.py).

It imports nothing of ``p2p`` or ``engine``: only msgpack, hashlib/hmac, ``cryptography``
(Ed25519), PyNaCl (the Ed25519 strict-key check) and libsodium's ristretto255 functions
through ctypes (the system's libsodium, or the copy the ``rbcl`` wheel bundles). It is an
auditor's check that the documents are enough to check a game, not a second product: it
stops at the first fault and names the seat to blame, as ``millebornes verify`` does.

What it checks: the header (canonical, its table id), every envelope (canonical, strict
Ed25519 key and signature, table, hand order, seq, a linear chain from each hand's
genesis, equivocation), every deck body (Schnorr key proofs, commitments, each pass's
proof of shuffle, each share's DLEQ proof in its context, the deal's recipients, the pile
positions drawn, reshuffles against the discard pile, opens against the move's card and
the holder), and after each hand the reveals (keys, seed commitments), every pass
recomputed from its seed, every share against the revealed key and the whole deck
decrypted: the cards each seat drew (``Verdict.drawn``). What it does not (it would need
the rules engine, not the protocol): whose turn it was and whether a move is legal, the
scores and whether the match is over, a hand ended otherwise than by its trip; nor the
side entries (agreements, complaints, claims), which it skips.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import hashlib
import hmac
import struct
from dataclasses import dataclass, field
from typing import Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from nacl import bindings as nb

# --------------------------------------------------------------------------- group (§1)

L = 2**252 + 27742317777372353535851937790883648493
ZERO = bytes(32)


def _load_sodium() -> Any:
    name = ctypes.util.find_library("sodium")
    if name:
        try:
            lib = ctypes.CDLL(name)
            lib.crypto_core_ristretto255_add  # noqa: B018 (present since 1.0.18)
            return lib
        except (OSError, AttributeError):
            pass
    import rbcl  # the libsodium the product's dependency bundles

    return rbcl._sodium


_na = _load_sodium()
if _na.sodium_init() < 0:  # pragma: no cover
    raise RuntimeError("libsodium failed to initialise")


class Undecodable(ValueError):
    pass


def scalar_bytes(k: int) -> bytes:
    return (k % L).to_bytes(32, "little")


def read_scalar(b: bytes) -> int | None:
    """A canonical scalar (< L) or None."""
    k = int.from_bytes(b, "little")
    return k if k < L else None


@functools.lru_cache(maxsize=1 << 16)
def decodes(p: bytes) -> bool:
    """RFC 9496 §4.3.1 decoding, the top bit refused (§1 'One encoding per point')."""
    if len(p) != 32 or p[31] & 0x80:
        return False
    if p == ZERO:
        return True
    return bool(_na.crypto_core_ristretto255_is_valid_point(p))


def valid_point(p: bytes) -> bool:
    return decodes(p) and p != ZERO


def add(p: bytes, q: bytes) -> bytes:
    if not (decodes(p) and decodes(q)):
        raise Undecodable("undecodable point")
    r = ctypes.create_string_buffer(32)
    if _na.crypto_core_ristretto255_add(r, p, q) != 0:
        raise Undecodable("undecodable point")
    return r.raw


def sub(p: bytes, q: bytes) -> bytes:
    if not (decodes(p) and decodes(q)):
        raise Undecodable("undecodable point")
    r = ctypes.create_string_buffer(32)
    if _na.crypto_core_ristretto255_sub(r, p, q) != 0:
        raise Undecodable("undecodable point")
    return r.raw


def mul(k: int, p: bytes) -> bytes:
    if not decodes(p):
        raise Undecodable("undecodable point")
    k %= L
    if k == 0 or p == ZERO:
        return ZERO
    r = ctypes.create_string_buffer(32)
    _na.crypto_scalarmult_ristretto255(r, scalar_bytes(k), p)  # -1 only for the identity
    return r.raw


def base(k: int) -> bytes:
    k %= L
    if k == 0:
        return ZERO
    r = ctypes.create_string_buffer(32)
    _na.crypto_scalarmult_ristretto255_base(r, scalar_bytes(k))
    return r.raw


G = base(1)


def from_hash(h64: bytes) -> bytes:
    r = ctypes.create_string_buffer(32)
    _na.crypto_core_ristretto255_from_hash(r, h64)
    return r.raw


def hash_to_point(domain: bytes, data: bytes) -> bytes:
    return from_hash(hashlib.sha512(bytes([len(domain)]) + domain + data).digest())


def msum(terms: list[tuple[int, bytes]]) -> bytes:
    acc = ZERO
    for k, p in terms:
        acc = add(acc, mul(k, p))
    return acc


def u32(n: int) -> bytes:
    return struct.pack(">I", n)


def i64(n: int) -> bytes:
    return struct.pack(">q", n)


def u64(n: int) -> bytes:
    return struct.pack(">Q", n)


def lp(b: bytes) -> bytes:
    return u32(len(b)) + b


class Drbg:
    """§1 'Deterministic randomness'."""

    def __init__(self, seed: bytes, label: bytes) -> None:
        self.seed, self.label, self.counter = seed, label, 0
        self.words: list[int] = []

    def block(self) -> bytes:
        b = hmac.new(self.seed, self.label + u64(self.counter), hashlib.sha512).digest()
        self.counter += 1
        return b

    def scalar(self) -> int:
        return int.from_bytes(self.block(), "little") % L

    def word(self) -> int:
        if not self.words:
            b = self.block()
            self.words = [int.from_bytes(b[i:i + 8], WORD_ORDER) for i in range(0, 64, 8)]
        return self.words.pop(0)

    def randbelow(self, n: int) -> int:
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            w = self.word()
            if w < limit:
                return w % n

    def permutation(self, n: int) -> list[int]:
        p = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.randbelow(i + 1)
            p[i], p[j] = p[j], p[i]
        return p


WORD_ORDER = "big"

# --------------------------------------------------------------------------- proofs (§2)


def ctx(kind: str, table: bytes, hand: int, *ints: int) -> bytes:
    return b"millebornes/ctx/v1" + lp(kind.encode()) + lp(table) + i64(hand) + b"".join(
        i64(i) for i in ints)


def _fs(tag: bytes, context: bytes, points: list[bytes]) -> int:
    return int.from_bytes(hashlib.sha512(b"millebornes/fs/v1" + lp(tag) + lp(context)
                                         + b"".join(points)).digest(), "little") % L


def _read_cz(proof: bytes) -> tuple[int, int] | None:
    if len(proof) != 64:
        return None
    c, z = read_scalar(proof[:32]), read_scalar(proof[32:])
    if c is None or z is None or c == 0 or z == 0:
        return None
    return c, z


def schnorr_ok(h: bytes, proof: bytes, context: bytes) -> bool:
    cz = _read_cz(proof)
    if cz is None or not valid_point(h):
        return False
    c, z = cz
    a = sub(base(z), mul(c, h))
    return _fs(b"millebornes/schnorr/v1", context, [G, h, a]) == c


def dleq_ok(h: bytes, c1: bytes, d: bytes, proof: bytes, context: bytes) -> bool:
    cz = _read_cz(proof)
    if cz is None or not valid_point(d):
        return False
    c, z = cz
    a1 = sub(base(z), mul(c, h))
    a2 = sub(mul(z, c1), mul(c, d))
    return _fs(b"millebornes/dleq/v1", context, [G, h, c1, d, a1, a2]) == c


# ------------------------------------------------------------------ shuffle proof (§2.1)

_GEN: dict[int, bytes] = {}


def generator(i: int) -> bytes:
    if i not in _GEN:
        _GEN[i] = hash_to_point(b"millebornes/shuffle-generator/v1", u32(i))
    return _GEN[i]


H_CHAIN = hash_to_point(b"millebornes/shuffle-generator/v1", b"chain")


def deck_digest(deck: list[tuple[bytes, bytes]]) -> bytes:
    return hashlib.sha512(u32(len(deck)) + b"".join(a + b for a, b in deck)).digest()


def shuffle_proof_fault(deck: list[tuple[bytes, bytes]], out: list[tuple[bytes, bytes]],
                        proof: bytes, joint: bytes, context: bytes) -> str | None:
    """None when the proof holds, else which check failed (§2.1 'Verifier')."""
    n = len(deck)
    if len(proof) != 160 * n + 288:
        return "length"
    words = [proof[i:i + 32] for i in range(0, len(proof), 32)]
    cs, chat = words[:n], words[n:2 * n]
    t1, t2, t3, t4a, t4b = words[2 * n:2 * n + 5]
    that = words[2 * n + 5:3 * n + 5]
    sc = [read_scalar(w) for w in words[3 * n + 5:]]
    if any(s is None for s in sc):
        return "non-canonical scalar"
    s1, s2, s3, s4 = sc[:4]
    shat, sprime = sc[4:4 + n], sc[4 + n:4 + 2 * n]
    hs = [generator(i) for i in range(n)]
    seed_u = hashlib.sha512(b"millebornes/shuffle-proof/v1/u" + lp(context) + u32(n) + G + joint
                            + H_CHAIN + b"".join(hs) + deck_digest(deck) + deck_digest(out)
                            + b"".join(cs)).digest()
    u = [int.from_bytes(hashlib.sha512(seed_u + u32(j)).digest(), "little") % L
         for j in range(n)]
    c = int.from_bytes(hashlib.sha512(
        b"millebornes/shuffle-proof/v1/c" + seed_u + b"".join(chat) + t1 + t2 + t3 + t4a + t4b
        + b"".join(that)).digest(), "little") % L
    try:
        sum_c = ZERO
        for cj in cs:
            sum_c = add(sum_c, cj)
        sum_h = ZERO
        for h in hs:
            sum_h = add(sum_h, h)
        if sub(base(s1), mul(c, sub(sum_c, sum_h))) != t1:
            return "t1"
        prod_u = 1
        for x in u:
            prod_u = prod_u * x % L
        if sub(base(s2), mul(c, sub(chat[-1], mul(prod_u, H_CHAIN)))) != t2:
            return "t2"
        lhs = add(base(s3), msum(list(zip(sprime, hs, strict=True))))
        if sub(lhs, mul(c, msum(list(zip(u, cs, strict=True))))) != t3:
            return "t3"
        a_out = msum([(sprime[i], out[i][0]) for i in range(n)])
        a_in = msum([(u[j], deck[j][0]) for j in range(n)])
        if sub(sub(a_out, base(s4)), mul(c, a_in)) != t4a:
            return "t4a"
        b_out = msum([(sprime[i], out[i][1]) for i in range(n)])
        b_in = msum([(u[j], deck[j][1]) for j in range(n)])
        if sub(sub(b_out, mul(s4, joint)), mul(c, b_in)) != t4b:
            return "t4b"
        prev = H_CHAIN
        for i in range(n):
            if sub(add(base(shat[i]), mul(sprime[i], prev)), mul(c, chat[i])) != that[i]:
                return f"t-hat {i}"
            prev = chat[i]
    except Undecodable:
        return "undecodable point"
    return None


def recompute_pass(deck: list[tuple[bytes, bytes]], seed: bytes, joint: bytes
                   ) -> list[tuple[bytes, bytes]]:
    """§3.3 step 2: the pass a seed derives."""
    d = Drbg(seed, b"millebornes/shuffle/v1")
    perm = d.permutation(len(deck))
    out = []
    for j in range(len(deck)):
        rho = d.scalar()
        c1, c2 = deck[perm[j]]
        out.append((add(c1, base(rho)), add(c2, mul(rho, joint))))
    return out


@functools.cache
def card_point(card: int) -> bytes:
    return hash_to_point(b"millebornes/card/v1", u32(card))


# --------------------------------------------------------------- encoding (§5, §6)


def _canon(o: Any) -> Any:
    if isinstance(o, dict):
        return {k: _canon(o[k]) for k in sorted(o)}
    if isinstance(o, (list, tuple)):
        return [_canon(x) for x in o]
    return o


def pack(o: Any) -> bytes:
    return msgpack.packb(_canon(o), use_bin_type=True)


def strict_key(pk: bytes) -> bool:
    """§5 'Strict keys'."""
    if len(pk) != 32 or not nb.crypto_core_ed25519_is_valid_point(pk):
        return False
    try:
        return nb.crypto_scalarmult_ed25519_noclamp((L + 1).to_bytes(32, "little"), pk) == pk
    except Exception:
        return False


def sig_ok(pk: bytes, sig: bytes, msg: bytes) -> bool:
    if not strict_key(pk) or len(sig) != 64:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(pk).verify(sig, msg)
        return True
    except InvalidSignature:
        return False


def genesis(table: bytes, hand: int, header_bytes: bytes) -> bytes:
    return hashlib.sha256(b"millebornes/genesis/v1\0" + lp(table) + i64(hand)
                          + hashlib.sha256(header_bytes).digest()).digest()


# ------------------------------------------------------------------------ verdict


@dataclass
class Verdict:
    ok: bool
    check: str | None = None
    blamed: int | None = None
    entry: int | None = None
    detail: str = ""
    hands: int = 0
    drawn: dict[int, dict[int, list[int]]] = field(default_factory=dict)  # hand → seat → cards
    plays_checked: int = 0
    passes_checked: int = 0


class Fault(Exception):
    def __init__(self, check: str, blamed: int | None, entry: int | None, detail: str = ""):
        super().__init__(f"{check} (seat {blamed}, entry {entry}): {detail}")
        self.check, self.blamed, self.entry, self.detail = check, blamed, entry, detail


# ------------------------------------------------------------------- the transcript

HAND_SIZE = 6
PUBLIC = -1
TABLE_TAG = b"millebornes/table/v1\0"


def table_id(header: dict[str, Any]) -> bytes:
    """§6: SHA-256(tag ‖ canonical msgpack of the agreement), first 16 bytes."""
    meta = header["rules"]
    agreement = dict(meta)
    agreement["players"] = header["players"]
    agreement.setdefault("nonce", b"")
    return hashlib.sha256(TABLE_TAG + pack(agreement)).digest()[:16]


def random_commitment(seed: bytes, seat: int, table: bytes, hand: int) -> bytes:
    return hashlib.sha256(b"millebornes/random-commit/v1" + seed + u32(seat)
                          + ctx(f"first-player/{hand}", table, 0)).digest()


def first_player(seeds: list[bytes], table: bytes, hand: int, n: int) -> int:
    purpose = b"first-player/%d" % hand
    h = hashlib.sha256(b"millebornes/joint-random/v1" + ctx(purpose.decode(), table, 0)
                       + b"".join(seeds)).digest()
    return int.from_bytes(Drbg(h, purpose).block()[:8], "big") % n


def distance_of(card: int) -> int:
    """protocol.md §4's card ids: the distance cards' kilometres (0 for any other card)."""
    for last, km in ((9, 25), (19, 50), (29, 75), (41, 100), (45, 200)):
        if card <= last:
            return km
    return 0


class _Hand:
    def __init__(self, no: int, n: int, cards: list[int], first: int | None,
                 meta: dict[str, Any] | None = None) -> None:
        self.no, self.n = no, n
        # the trip (docs/rules.md R5d, R11, R12): enough to tell a hand ended by a trip
        meta = meta or {}
        rules = meta.get("rules", {})
        players, sides = meta.get("seating", [n, n])
        self.sides = sides
        self.target = rules.get("target") or (
            1000 if sides == 2 and players // sides > 1 else 700)
        self.extension = bool(rules.get("extension")) and self.target < 1000
        self.km = [0] * sides
        self.over = False
        self.keys: dict[int, bytes] = {}
        self.rcommit: dict[int, bytes] = {}
        self.rseed: dict[int, bytes] = {}
        self.first = first
        self.round_cards: list[list[int]] = [list(cards)]
        self.commits: list[dict[int, bytes]] = [{}]
        self.decks: list[list[tuple[bytes, bytes]]] = [
            [(ZERO, card_point(c)) for c in cards]]
        self.passes: list[list[tuple[int, list[tuple[bytes, bytes]], int]]] = [[]]
        self.holder: dict[tuple[int, int], int] = {}
        self.shares: dict[tuple[int, int], dict[int, tuple[bytes, int]]] = {}
        self.opened: dict[tuple[int, int], int] = {}
        self.held: dict[int, set[tuple[int, int]]] = {s: set() for s in range(n)}
        self.faceup: dict[int, set[int]] = {s: set() for s in range(n)}
        self.discard: list[int] = []
        self.last_attack: int | None = None
        self.pile_drawn = [0]
        self.pending_open: dict[int, list[int]] = {}  # seat → cards its move named
        self.reveals: dict[int, tuple[int, list[bytes]]] = {}
        self.reveal_entry: dict[int, int] = {}
        self.drawn_positions: dict[int, list[tuple[int, int]]] = {s: [] for s in range(n)}
        # protocol.md §4.1: the writers of the hand's setup, in order (the deal's are added
        # once the first player is known)
        self.setup: list[tuple[int, str]] = [
            (s, kind) for kind in ("deck.key", "game.rcommit", "deck.commit", "deck.pass",
                                   "game.rreveal") for s in range(n)]

    @property
    def joint(self) -> bytes:
        j = ZERO
        for s in range(self.n):
            j = add(j, self.keys[s])
        return j

    def shuffled(self, r: int) -> bool:
        return len(self.passes[r]) == self.n


def _need(cond: bool, check: str, seat: int | None, entry: int | None, detail: str = "") -> None:
    if not cond:
        raise Fault(check, seat, entry, detail)


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def verify_file(path: str) -> Verdict:
    """Check a transcript from the documents alone; stop at the first fault."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        return _verify(data)
    except Fault as exc:
        return Verdict(False, exc.check, exc.blamed, exc.entry, exc.detail)


def _objects(data: bytes) -> list[tuple[int, bytes, Any]]:
    up = msgpack.Unpacker(raw=False, strict_map_key=False, use_list=True)
    up.feed(data)
    out = []
    start = 0
    while True:
        try:
            obj = up.unpack()
        except msgpack.OutOfData:
            if start != len(data):
                raise Fault("file-corrupt", None, None,
                            f"truncated object at byte {start}") from None
            return out
        except Exception as exc:
            raise Fault("file-corrupt", None, None, f"at byte {start}: {exc}") from None
        end = up.tell()
        out.append((start, data[start:end], obj))
        start = end


def _verify(data: bytes) -> Verdict:
    objs = _objects(data)
    if not objs:
        raise Fault("file-corrupt", None, None, "empty")
    _, header_bytes, header = objs[0]
    if (not isinstance(header, dict) or header.get("format") != "millebornes-transcript"
            or pack(header) != header_bytes):
        raise Fault("file-corrupt", None, None, "no canonical transcript header")
    if set(header) != {"format", "version", "table", "rules", "players", "cards"} or not all(
            isinstance(p, dict) and set(p) == {"seat", "name", "key"}
            for p in header.get("players", [None])):
        raise Fault("file-corrupt", None, None, "a header field missing or unknown")
    if header.get("version") != 3:
        raise Fault("unsupported-version", None, None, str(header.get("version")))
    meta = header["rules"]
    if (not isinstance(meta, dict) or not {"rules", "seating"} <= set(meta)
            or not set(meta) <= {"rules", "seating", "nonce", "limits", "curve"}):
        raise Fault("header", None, None, "the rules map's fields")
    table = header["table"]
    if table_id(header) != table:
        raise Fault("header", None, None, "table id does not hash the agreement")
    players = header["players"]
    n = len(players)
    seat_of = {p["key"]: p["seat"] for p in players}
    cards = list(header["cards"])
    verdict = Verdict(True)

    hand: _Hand | None = None
    seen: dict[tuple[int, bytes, int], bytes] = {}
    next_seq: dict[bytes, int] = {}
    head = b""
    hands_done: list[_Hand] = []
    first_of_next: int | None = None
    for idx, (_, raw, env) in enumerate(objs[1:]):
        # ---- envelope (§5) --------------------------------------------------------
        if (not isinstance(env, list) or len(env) != 8 or env[0] != 1
                or pack(env) != raw):
            raise Fault("file-corrupt", None, idx, "not a canonical envelope")
        _, etable, hno, author, seq, prev, body, sig = env
        seat = seat_of.get(author)
        _need(seat is not None, "unknown-author", None, idx)
        signed = b"millebornes/envelope/v1\0" + pack(env[:7])
        _need(sig_ok(author, sig, signed), "bad-signature", None, idx)
        _need(etable == table, "wrong-table", None, idx)
        if not isinstance(body, dict) or not isinstance(body.get("k"), str):
            raise Fault("malformed-body", seat, idx)
        if body["k"].startswith("side."):
            continue            # never a link of the game chain (§6)
        if hand is None or hno != hand.no:
            # a genuinely signed entry of an earlier hand placed here: the file was edited
            _need(hand is None or not _int(hno) or hno > hand.no, "hand-order", None, idx)
            # ... or a new hand's before every seat revealed the last one's secrets
            _need(hand is None or len(hand.reveals) == n, "hand-order", None, idx)
            if hand is not None:
                _end_of_hand(hand, verdict, idx)
                hands_done.append(hand)
                first_of_next = (hand.first + 1) % n  # type: ignore[operator]
            _need(hno == len(hands_done), "wrong-hand", None, idx, f"hand {hno}")
            hand = _Hand(hno, n, cards, first_of_next, header["rules"])
            head = genesis(table, hno, header_bytes)
            next_seq = {}
        h = hashlib.sha256(raw).digest()
        slot = (hno, author, seq)
        if slot in seen:
            _need(seen[slot] != h, "duplicate", None, idx)
            raise Fault("equivocation", seat, idx, f"two entries for seq {seq}")
        _need(seq == next_seq.get(author, 0), "out-of-order", None, idx)
        _need(prev == head, "broken-link", None, idx)
        seen[slot] = h
        next_seq[author] = seq + 1
        head = h
        _apply(hand, seat, body, idx, table, verdict)
        verdict.hands = len(hands_done) + 1
    if hand is not None:
        _end_of_hand(hand, verdict, None, last=True)
    return verdict


def _points(ls: Any) -> list[tuple[bytes, bytes]] | None:
    if not isinstance(ls, list) or not all(isinstance(b, bytes) and len(b) == 64 for b in ls):
        return None
    return [(b[:32], b[32:]) for b in ls]


def _decrypt_with_shares(hand: _Hand, r: int, pos: int) -> int | None:
    c2 = hand.decks[r][pos][1]
    m = c2
    for d, _ in hand.shares[(r, pos)].values():
        m = sub(m, d)
    for c in hand.round_cards[r]:
        if card_point(c) == m:
            return c
    return None


#: protocol.md §4: every body has exactly its fields
BODY_FIELDS = {
    "deck.key": {"k", "seat", "h", "proof"}, "deck.commit": {"k", "seat", "round", "c"},
    "deck.pass": {"k", "seat", "round", "deck", "proof"},
    "deck.reshuffle": {"k", "seat", "round", "cards"},
    "deck.share": {"k", "seat", "round", "pos", "to", "d", "proof", "card"},
    "deck.reveal": {"k", "seat", "x", "seeds"},
    "game.rcommit": {"k", "c"}, "game.rreveal": {"k", "seed"}, "game.act": {"k", "a"},
}


def _apply(hand: _Hand, seat: int, body: dict[str, Any], idx: int, table: bytes,
           verdict: Verdict) -> None:
    k = body["k"]
    n = hand.n
    if hand.setup:                      # §4.1: who writes, and what, while the deal is due
        want_seat, want_kind = hand.setup.pop(0)
        _need(seat == want_seat, "out-of-turn", seat, idx, f"seat {want_seat} was to write")
        _need(k == want_kind, "wrong-entry", seat, idx, f"expected {want_kind}, got {k}")
    elif k == "deck.reveal":            # the reveals, in seat order
        _need(all(s in hand.reveals for s in range(seat)), "out-of-turn", seat, idx)
    fields = BODY_FIELDS.get(k)
    _need(fields is None or set(body) == fields, "malformed-body", seat, idx,
          f"{k} has the fields {sorted(body)}")
    if k.startswith("deck."):
        _need(body.get("seat") == seat, "seat-mismatch", seat, idx)
        _need(not hand.reveals or k in ("deck.reveal", "deck.share"), "phase", seat, idx)
    if k == "deck.key":
        h = body.get("h")
        _need(isinstance(h, bytes) and seat not in hand.keys, "malformed-body", seat, idx)
        _need(schnorr_ok(h, body.get("proof", b""), ctx("key", table, hand.no, seat)),
              "key-proof", seat, idx)
        hand.keys[seat] = h
    elif k == "game.rcommit":
        c = body.get("c")
        _need(isinstance(c, bytes) and len(c) == 32 and seat not in hand.rcommit,
              "malformed-body", seat, idx, "commitment is 32 bytes")
        hand.rcommit[seat] = c
    elif k == "game.rreveal":
        sd = body.get("seed")
        _need(isinstance(sd, bytes) and len(sd) == 32
              and random_commitment(sd, seat, table, hand.no) == hand.rcommit.get(seat),
              "random-reveal", seat, idx)
        hand.rseed[seat] = sd
        if len(hand.rseed) == n:
            if hand.first is None:
                hand.first = first_player([hand.rseed[s] for s in range(n)], table, hand.no, n)
            first = hand.first
            hand.setup = [(s, "deck.share") for s in range(n)
                          for p in range(HAND_SIZE * n) if (first + p) % n != s]
    elif k == "deck.commit":
        r = body.get("round")
        c = body.get("c")
        _need(_int(r) and r == len(hand.commits) - 1 and seat not in hand.commits[r]
              and isinstance(c, bytes) and len(c) == 32, "malformed-body", seat, idx, "commit")
        hand.commits[r][seat] = body["c"]
    elif k == "deck.pass":
        r = body.get("round")
        _need(_int(r) and r == len(hand.passes) - 1, "pass-order", seat, idx)
        _need(len(hand.passes[r]) == seat and len(hand.commits[r]) == n, "pass-order", seat, idx)
        out = _points(body.get("deck"))
        _need(out is not None, "pass-points", seat, idx)
        assert out is not None
        inp = hand.decks[r]
        _need(len(out) == len(inp), "pass-length", seat, idx)
        _need(all(decodes(a) and decodes(b) for a, b in out), "shuffle-proof", seat, idx,
              "undecodable point")
        fault = shuffle_proof_fault(inp, out, body.get("proof", b""), hand.joint,
                                    ctx("shuffle-proof", table, hand.no, r, seat))
        _need(fault is None, "shuffle-proof", seat, idx, str(fault))
        verdict.passes_checked += 1
        hand.passes[r].append((seat, inp, idx))
        hand.decks[r] = out
        if len(hand.passes[r]) == n:
            _need(all(a != ZERO and b != ZERO for a, b in out), "pass-points", seat, idx,
                  "identity in the final deck")
    elif k == "deck.share":
        r, pos, to, d, card = (body.get(f) for f in ("round", "pos", "to", "d", "card"))
        _need(_int(r) and _int(pos) and _int(to) and 0 <= r < len(hand.decks)
              and hand.shuffled(r) and 0 <= pos < len(hand.decks[r])
              and (to == PUBLIC or 0 <= to < n) and isinstance(d, bytes),
              "malformed-body", seat, idx)
        _need(to != seat, "recipient", seat, idx)
        c1 = hand.decks[r][pos][0]
        _need(dleq_ok(hand.keys[seat], c1, d, body.get("proof", b""),
                      ctx("share", table, hand.no, r, pos, to)), "share-proof", seat, idx)
        key = (r, pos)
        got = hand.shares.setdefault(key, {})
        _need(seat not in got, "duplicate-share", seat, idx)
        if to == PUBLIC:
            holder = hand.holder.get(key)
            if holder is None:              # a face-up card: every seat opens it
                got[seat] = (d, to)
                return
            _need(holder == seat, "not-holder", seat, idx)
            _need(len(got) == n - 1, "not-holder", seat, idx, "not drawn yet")
            got[seat] = (d, to)
            found = _decrypt_with_shares(hand, r, pos)
            _need(found is not None and found == card, "wrong-card", seat, idx,
                  f"claimed {card}, decrypts to {found}")
            queue = hand.pending_open.get(seat) or [None]
            named = queue.pop(0)
            if not queue:
                hand.pending_open.pop(seat, None)
            _need(named == card, "card-not-held", seat, idx,
                  f"the move named {named}, the card opened is {card}")
            hand.held[seat].discard(key)
            hand.opened[key] = card
            verdict.plays_checked += 1
            return
        _need(card is None, "leaked-draw", seat, idx)
        old = hand.holder.setdefault(key, to)
        _need(old == to, "position-reassigned", seat, idx)
        if r == 0 and pos < HAND_SIZE * n:
            _need(hand.first is not None and to == (hand.first + pos) % n,
                  "wrong-share", seat, idx, "deal position to the wrong seat")
            hand.held[to].add(key)
            if key not in hand.drawn_positions[to]:
                hand.drawn_positions[to].append(key)
        got[seat] = (d, to)
    elif k == "deck.reshuffle":
        cs = body.get("cards")
        r = body.get("round")
        _need(isinstance(cs, list) and cs == sorted(set(cs)) and r == len(hand.decks)
              and sorted(cs) == sorted(hand.discard), "reshuffle-cards", seat, idx,
              f"{cs} against the discard pile {sorted(hand.discard)}")
        hand.round_cards.append(list(cs))
        hand.commits.append({})
        hand.decks.append([(ZERO, card_point(c)) for c in cs])
        hand.passes.append([])
        hand.pile_drawn.append(0)
        hand.discard = []
    elif k == "deck.reveal":
        x, seeds = body.get("x"), body.get("seeds")
        _need(isinstance(x, bytes) and read_scalar(x) is not None
              and base(int.from_bytes(x, "little")) == hand.keys.get(seat),
              "reveal-key", seat, idx)
        _need(isinstance(seeds, list) and len(seeds) == len(hand.commits), "reveal-seeds",
              seat, idx)
        for r, sd in enumerate(seeds):
            _need(isinstance(sd, bytes) and hashlib.sha256(
                b"millebornes/shuffle-commit/v1" + sd + u32(seat)
                + ctx("shuffle", table, hand.no, r)).digest() == hand.commits[r].get(seat),
                "reveal-commitment", seat, idx, f"round {r}")
        hand.reveals[seat] = (int.from_bytes(x, "little"), seeds)
        hand.reveal_entry[seat] = idx
    elif k == "game.act":
        _act(hand, seat, body.get("a"), idx)
    else:
        raise Fault("wrong-entry", seat, idx, k)


def _act(hand: _Hand, seat: int, a: Any, idx: int) -> None:
    _need(isinstance(a, list) and a and isinstance(a[0], str) and len(a) >= 2
          and a[1] == seat, "malformed-action", seat, idx, repr(a))
    _need(seat not in hand.pending_open, "out-of-turn", seat, idx, "a move before its open")
    verb = a[0]
    if verb == "draw":
        src = a[2]
        if src == "pile":
            _need(a[3] is None, "leaked-draw", seat, idx)
            r = len(hand.decks) - 1
            pos = (HAND_SIZE * hand.n if r == 0 else 0) + hand.pile_drawn[r]
            hand.pile_drawn[r] += 1
            key = (r, pos)
            old = hand.holder.setdefault(key, seat)
            _need(old == seat, "position-reassigned", seat, idx)
            hand.held[seat].add(key)
            hand.drawn_positions[seat].append(key)
        elif src == "discard":
            _need(bool(hand.discard) and hand.discard[-1] == a[3], "illegal-move", seat, idx,
                  "not the top of the discard pile")
            hand.discard.pop()
            hand.faceup[seat].add(a[3])
        else:
            raise Fault("malformed-action", seat, idx, repr(a))
    elif verb == "fastdiscard":         # R10b: each card opened in turn
        _need(isinstance(a[2], list) and len(a[2]) >= 2 and all(_int(c) for c in a[2]),
              "malformed-action", seat, idx)
        for card in a[2]:
            hand.discard.append(card)
            if card in hand.faceup[seat]:
                hand.faceup[seat].discard(card)
            else:
                hand.pending_open.setdefault(seat, []).append(card)
    elif verb in ("play", "discard", "coup", "remedy"):
        card = a[2]
        _need(_int(card), "malformed-action", seat, idx)
        if verb == "play" and a[3] is None and distance_of(card):
            side = seat % hand.sides
            hand.km[side] += distance_of(card)
            if hand.km[side] >= hand.target:
                if hand.extension:
                    hand.extension = False      # the extend move decides
                else:
                    hand.over = True
        if verb == "discard":
            hand.discard.append(card)
        elif verb == "play" and len(a) > 3 and a[3] is not None:
            hand.last_attack = card
        elif verb == "coup":            # docs/rules.md: its hazard goes to the discard pile
            _need(hand.last_attack is not None, "illegal-move", seat, idx, "coup fourré")
            hand.discard.append(hand.last_attack)  # type: ignore[arg-type]
            hand.last_attack = None
        if card in hand.faceup[seat]:
            hand.faceup[seat].discard(card)
        else:
            hand.pending_open[seat] = [card]
    elif verb == "extend":
        if a[2] is True:
            hand.target = 1000
        else:
            hand.over = True
    elif verb == "pass":
        pass
    else:
        raise Fault("malformed-action", seat, idx, repr(a))


def _end_of_hand(hand: _Hand, verdict: Verdict, idx: int | None, last: bool = False) -> None:
    n = hand.n
    if last and not hand.reveals and (not hand.over or hand.pending_open):
        # stopped in play (a hand ended by exhaustion or the turn limit is not followed:
        # that needs the whole rules engine)
        verdict.check = "incomplete"
        return
    for s in range(n):
        _need(s in hand.reveals, "reveal-missing", s, None)
    xs = [hand.reveals[s][0] for s in range(n)]
    joint = hand.joint
    # §3.7 step 2: every pass recomputed from its input and its revealed seed
    for r, passes in enumerate(hand.passes):
        deck = [(ZERO, card_point(c)) for c in hand.round_cards[r]]
        for s, inp, pidx in passes:
            _need(inp == deck, "pass-mismatch", s, pidx, "input")
            deck = recompute_pass(deck, hand.reveals[s][1][r], joint)
            nxt = hand.decks[r] if s == n - 1 else (
                passes[s + 1][1] if s + 1 < len(passes) else hand.decks[r])
            _need(deck == nxt, "pass-mismatch", s, pidx)
    # step 3: every share is x_i·C1
    for (r, pos), got in hand.shares.items():
        c1 = hand.decks[r][pos][0]
        for s, (d, _) in got.items():
            _need(mul(xs[s], c1) == d, "share-mismatch", s, None)
    # step 4: the whole deck decrypted
    X = sum(xs) % L
    for r, deck in enumerate(hand.decks):
        table = {card_point(c): c for c in hand.round_cards[r]}
        seen: set[int] = set()
        for pos, (c1, c2) in enumerate(deck):
            c = table.get(sub(c2, mul(X, c1)))
            _need(c is not None, "card-not-in-deck", None, None, f"round {r} pos {pos}")
            _need(c not in seen, "duplicate-card", None, None)
            seen.add(c)  # type: ignore[arg-type]
            if (r, pos) in hand.opened:
                _need(hand.opened[(r, pos)] == c, "wrong-card", None, None)
        hand.round_cards[r] = [table[sub(c2, mul(X, c1))] for c1, c2 in deck]
    verdict.drawn[hand.no] = {
        s: [hand.round_cards[r][p] for r, p in hand.drawn_positions[s]] for s in range(n)}
    # every drawn position's holder got a share from every other seat
    for s in range(n):
        for key in hand.drawn_positions[s]:
            got = hand.shares.get(key, {})
            _need(all(o in got for o in range(n) if o != s), "incomplete", None, None,
                  f"position {key} of seat {s} lacks shares")
