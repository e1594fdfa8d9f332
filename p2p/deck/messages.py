"""The fair deck's messages and their plain-data (msgpack body) form, and the error a
failed check raises.  See docs/protocol.md."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from p2p.crypto.shuffle_proof import MAX_N as MAX_DECK
from p2p.crypto.shuffle_proof import proof_size

#: Recipient value of a share that opens a position to everybody.
PUBLIC = -1
CARD_DOMAIN = b"millebornes/card/v1"

Ciphertext = tuple[bytes, bytes]
Deck = tuple[Ciphertext, ...]


class CheatDetected(Exception):
    """A check failed.  ``seat`` is the peer to blame (None: unknown until reveal)."""

    def __init__(self, seat: int | None, check: str, step: str, detail: str = "",
                 ref: object = None) -> None:
        self.seat = seat
        self.ref = ref  #: the offending message when known (a DeckMessage)
        self.check = check
        self.step = step
        self.detail = detail
        who = "unknown peer (reveal seeds to find out)" if seat is None else f"seat {seat}"
        super().__init__(f"{who}: check {check!r} failed at {step}" + (f": {detail}" if detail else ""))


# --------------------------------------------------------------------------- messages

@dataclass(frozen=True)
class KeyShare:
    """h = x·G for this hand, with a Schnorr proof bound to (table, hand, seat)."""

    seat: int
    h: bytes
    proof: bytes


@dataclass(frozen=True)
class ShuffleCommit:
    """SHA-256 commitment to the seed of this seat's pass in shuffle round ``round``."""

    seat: int
    round: int
    commitment: bytes


@dataclass(frozen=True)
class ShufflePass:
    """The permuted and re-randomised deck produced by ``seat`` in ``round``, with its
    zero-knowledge proof of shuffle (p2p.crypto.shuffle_proof; empty only in a hand run
    without proofs, which the benchmark uses to measure their cost)."""

    seat: int
    round: int
    deck: Deck
    proof: bytes = b""


@dataclass(frozen=True)
class ReshuffleStart:
    """Start a new shuffle round over the given public card ids (discard pile)."""

    seat: int
    round: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class DecryptShare:
    """D = x_seat·C1 of position (round, pos) for ``recipient`` (PUBLIC = everyone).

    ``card`` is the card the author claims is there (set when a holder plays it).
    """

    seat: int
    round: int
    pos: int
    recipient: int
    share: bytes
    proof: bytes
    card: int | None = None


@dataclass(frozen=True)
class SecretReveal:
    """After the hand: the hand's secret key and the seed of every shuffle pass."""

    seat: int
    x: bytes
    seeds: tuple[bytes, ...]


DeckMessage = (KeyShare | ShuffleCommit | ShufflePass | ReshuffleStart | DecryptShare
               | SecretReveal)

_KINDS: dict[type, str] = {
    KeyShare: "deck.key",
    ShuffleCommit: "deck.commit",
    ShufflePass: "deck.pass",
    ReshuffleStart: "deck.reshuffle",
    DecryptShare: "deck.share",
    SecretReveal: "deck.reveal",
}


def is_deck_body(body: object) -> bool:
    return isinstance(body, dict) and isinstance(body.get("k"), str) and body["k"].startswith("deck.")


def message_to_body(m: DeckMessage) -> dict[str, Any]:
    """Plain msgpack-friendly dict (str keys; ints, bytes, lists)."""
    k = _KINDS[type(m)]
    if isinstance(m, KeyShare):
        return {"k": k, "seat": m.seat, "h": m.h, "proof": m.proof}
    if isinstance(m, ShuffleCommit):
        return {"k": k, "seat": m.seat, "round": m.round, "c": m.commitment}
    if isinstance(m, ShufflePass):
        return {"k": k, "seat": m.seat, "round": m.round, "deck": [a + b for a, b in m.deck],
                "proof": m.proof}
    if isinstance(m, ReshuffleStart):
        return {"k": k, "seat": m.seat, "round": m.round, "cards": list(m.cards)}
    if isinstance(m, DecryptShare):
        return {"k": k, "seat": m.seat, "round": m.round, "pos": m.pos, "to": m.recipient,
                "d": m.share, "proof": m.proof, "card": m.card}
    return {"k": k, "seat": m.seat, "x": m.x, "seeds": list(m.seeds)}


def _int(v: object) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not -(2**63) <= v < 2**63:
        raise ValueError("expected a 64-bit int")
    return v


def _bytes(v: object, n: int) -> bytes:
    if not isinstance(v, bytes) or len(v) != n:
        raise ValueError(f"expected {n} bytes")
    return v


#: The exact fields of each body kind: anything more or less is malformed (strict schema).
_FIELDS: dict[str, frozenset[str]] = {
    "deck.key": frozenset({"k", "seat", "h", "proof"}),
    "deck.commit": frozenset({"k", "seat", "round", "c"}),
    "deck.pass": frozenset({"k", "seat", "round", "deck", "proof"}),
    "deck.reshuffle": frozenset({"k", "seat", "round", "cards"}),
    "deck.share": frozenset({"k", "seat", "round", "pos", "to", "d", "proof", "card"}),
    "deck.reveal": frozenset({"k", "seat", "x", "seeds"}),
}


def message_from_body(body: object) -> DeckMessage:
    """Parse a body; raises ValueError if malformed (the caller blames the author)."""
    if not isinstance(body, dict):
        raise ValueError("body is not a map")
    k = body.get("k")
    fields = _FIELDS.get(k) if isinstance(k, str) else None
    if fields is not None and set(body) != fields:
        extra = sorted(str(f) for f in set(body) - fields)
        missing = sorted(fields - set(body))
        raise ValueError(f"{k}: unexpected fields {extra}" if extra
                         else f"{k}: missing fields {missing}")
    try:
        if k == "deck.key":
            return KeyShare(_int(body["seat"]), _bytes(body["h"], 32), _bytes(body["proof"], 64))
        if k == "deck.commit":
            return ShuffleCommit(_int(body["seat"]), _int(body["round"]), _bytes(body["c"], 32))
        if k == "deck.pass":
            raw = body["deck"]
            if not isinstance(raw, list):
                raise ValueError("deck is not a list")
            if len(raw) > MAX_DECK:
                raise ValueError("deck too long")
            deck = tuple((e[:32], e[32:]) for e in (_bytes(x, 64) for x in raw))
            proof = body["proof"]
            if not isinstance(proof, bytes) or len(proof) > proof_size(MAX_DECK):
                raise ValueError("proof is not a byte string of a possible size")
            return ShufflePass(_int(body["seat"]), _int(body["round"]), deck, proof)
        if k == "deck.reshuffle":
            cards = body["cards"]
            if not isinstance(cards, list):
                raise ValueError("cards is not a list")
            return ReshuffleStart(_int(body["seat"]), _int(body["round"]),
                                  tuple(_int(c) for c in cards))
        if k == "deck.share":
            card = body["card"]
            if card is not None and body["to"] != PUBLIC:
                raise ValueError("a private share names no card")
            return DecryptShare(_int(body["seat"]), _int(body["round"]), _int(body["pos"]),
                                _int(body["to"]), _bytes(body["d"], 32),
                                _bytes(body["proof"], 64), None if card is None else _int(card))
        if k == "deck.reveal":
            seeds = body["seeds"]
            if not isinstance(seeds, list):
                raise ValueError("seeds is not a list")
            return SecretReveal(_int(body["seat"]), _bytes(body["x"], 32),
                                tuple(_bytes(s, 32) for s in seeds))
    except KeyError as e:
        raise ValueError(f"missing field {e}") from None
    raise ValueError(f"unknown deck message kind {k!r}")


# --------------------------------------------------------------------------- primitives

