"""The fair deck: Barnett–Smart mental poker as a pure state machine over messages.

Every peer runs one :class:`DeckHand` per hand (an observer, e.g. a transcript
verifier, runs one with ``my_seat=None``).  ``make_*`` methods create this peer's
messages *without* applying them; every message (including one's own) is applied by
:meth:`DeckHand.receive` in the order of the signed game log.  No sockets, no clock:
the session layer carries the messages, the :class:`DeckTable` helper below carries
them in memory for tests, benchmarks and the simulator.

Any failed check raises :class:`CheatDetected` naming the seat to blame (or ``None``
when a cheat is certain but its author is only known after the end-of-hand reveal),
the check that failed and the step.  See docs/protocol.md for the full protocol.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from p2p.crypto import group as g
from p2p.crypto.proofs import (
    Proof,
    ProofError,
    dleq_prove,
    dleq_verify,
    dleq_verify_known_logs,
    schnorr_prove,
    schnorr_verify,
)
from p2p.crypto.shuffle_proof import MAX_N, ShuffleProofError
from p2p.deck.ciphers import (
    card_point,
    context,
    pass_witness,
    prove_pass,
    shuffle_commitment,
    shuffle_pass,
    start_deck,
    verify_pass,
)
from p2p.deck.messages import (
    PUBLIC,
    CheatDetected,
    Deck,
    DeckMessage,
    DecryptShare,
    KeyShare,
    ReshuffleStart,
    SecretReveal,
    ShuffleCommit,
    ShufflePass,
    message_from_body,
)

# --------------------------------------------------------------------------- state

@dataclass
class _Round:
    cards: tuple[int, ...]
    commits: dict[int, bytes] = field(default_factory=dict)
    passes: list[Deck] = field(default_factory=list)
    final: Deck | None = None
    assigned: dict[int, int] = field(default_factory=dict)  # pos -> recipient or PUBLIC
    shares: dict[int, dict[int, DecryptShare]] = field(default_factory=dict)  # draw shares
    opens: dict[int, dict[int, DecryptShare]] = field(default_factory=dict)  # PUBLIC shares
    verified: set[tuple[int, int, int]] = field(default_factory=set)  # (pos, seat, recipient)
    mine: dict[int, int] = field(default_factory=dict)  # pos -> card, decrypted by me
    public: dict[int, int] = field(default_factory=dict)  # pos -> card, opened to all

    def start(self) -> Deck:
        return start_deck(self.cards)


@dataclass(frozen=True)
class HandResult:
    """Outcome of the end-of-hand verification: the full deck order of every round."""

    decks: tuple[tuple[int, ...], ...]  #: per round, card id at each position
    recipients: tuple[dict[int, int], ...]  #: per round, pos -> seat (or PUBLIC)
    public: tuple[dict[int, int], ...]  #: per round, pos -> card opened to everyone


class DeckHand:
    """One hand of the fair deck, seen by ``my_seat`` (None: a pure observer)."""

    def __init__(self, table_id: bytes, hand_no: int, n_seats: int, card_ids: Sequence[int],
                 my_seat: int | None = None, ops: g.OpCounter | None = None,
                 shuffle_proofs: bool = True, proofs_checked: bool = False,
                 speculate: bool = False) -> None:
        """``shuffle_proofs=False`` makes and checks passes without their proofs: only the
        benchmark uses it, to measure what the proofs cost; a table never does.

        ``proofs_checked=True`` is for the auditor's replay of a transcript whose
        cryptographic pass (:func:`p2p.transcript.verify_crypto`) has already checked every
        proof of it, shuffle and share: the replay follows the state without checking them
        a second time (it implies ``shuffle_proofs=False``).

        ``speculate=True`` (a seat at a table): when the pass just before this seat's own
        arrives, this seat's pass and its proof are computed in a background thread while
        the arriving pass's proof is checked (libsodium runs outside the GIL, so on two cores
        the two overlap); :meth:`make_pass` uses that work only if the input it shuffles is
        the very deck it was computed from, and the pass is never published before the
        check succeeded (the caller only asks for it once :meth:`receive` returned)."""
        if proofs_checked:
            shuffle_proofs = False
        if not 2 <= n_seats <= 16:
            raise ValueError("2..16 seats")
        if not 0 <= hand_no < 2**63:
            raise ValueError("hand number out of range")
        cards = tuple(card_ids)
        if len(set(cards)) != len(cards) or not cards or len(cards) > MAX_N:
            raise ValueError(f"card ids must be distinct, 1..{MAX_N} of them")
        self.shuffle_proofs = shuffle_proofs
        self.proofs_checked = proofs_checked
        self.table_id = table_id
        self.hand_no = hand_no
        self.n = n_seats
        self.card_ids = cards
        self.my_seat = my_seat
        self.ops = ops
        self._lookup = {card_point(c): c for c in cards}
        self.keys: dict[int, bytes] = {}
        self.joint: bytes | None = None
        self.rounds: list[_Round] = [_Round(cards)]
        self.reveals: dict[int, SecretReveal] = {}
        self.log: list[DeckMessage] = []
        self._x: int | None = None
        self._seeds: dict[int, bytes] = {}
        self._revealed_mine = False
        self.result: HandResult | None = None
        #: When set, a pass's proof is handed to this callable (with the pass and its
        #: input deck) instead of being checked here: the transcript verifier checks
        #: proofs in worker processes and reports a failure at the pass's entry
        #: (p2p.transcript.file).  A table never sets it.
        self.pass_check: Callable[[ShufflePass, Deck], None] | None = None
        self.speculate = speculate and ops is None and shuffle_proofs and my_seat is not None
        #: round -> (input deck, worker thread, [(output deck, proof)] once computed)
        self._spec: dict[int, tuple[Deck, threading.Thread, list[tuple[Deck, bytes]]]] = {}

    # ------------------------------------------------------------------ helpers
    def _cheat(self, seat: int | None, check: str, m: object, detail: str = "") -> CheatDetected:
        return CheatDetected(seat, check, type(m).__name__, detail, m)

    def _me(self) -> int:
        if self.my_seat is None:
            raise ValueError("an observer makes no messages")
        return self.my_seat

    def _round(self, r: int) -> _Round:
        if not 0 <= r < len(self.rounds):
            raise ValueError(f"no shuffle round {r}")
        return self.rounds[r]

    def _deck(self, r: int) -> Deck:
        d = self._round(r).final
        if d is None:
            raise ValueError(f"round {r} is not shuffled yet")
        return d

    def share_context(self, r: int, pos: int, recipient: int) -> bytes:
        return context(b"share", self.table_id, self.hand_no, r, pos, recipient)

    def key_context(self, seat: int) -> bytes:
        return context(b"key", self.table_id, self.hand_no, seat)

    @property
    def shuffled(self) -> bool:
        return self.rounds[-1].final is not None

    def next_shuffler(self, r: int | None = None) -> int | None:
        """Seat whose pass is expected next in round r (None once all commits are not in
        or the round is done)."""
        rd = self.rounds[-1 if r is None else r]
        if len(rd.commits) < self.n or rd.final is not None:
            return None
        return len(rd.passes)

    def deck_size(self, r: int) -> int:
        return len(self._round(r).cards)

    def my_card(self, r: int, pos: int) -> int | None:
        return self._round(r).mine.get(pos)

    def public_card(self, r: int, pos: int) -> int | None:
        return self._round(r).public.get(pos)

    def share_authors(self, r: int, pos: int) -> frozenset[int]:
        """The seats whose share of (r, pos) for its drawer was received."""
        return frozenset(self._round(r).shares.get(pos, {}))

    def holder(self, r: int, pos: int) -> int | None:
        return self._round(r).assigned.get(pos)

    # ------------------------------------------------------------------ make
    def make_key_share(self) -> KeyShare:
        me = self._me()
        if self._x is None:
            self._x = g.random_scalar()
        h = g.base(self._x, self.ops)
        proof = schnorr_prove(self._x, h, self.key_context(me), self.ops)
        return KeyShare(me, h, proof.to_bytes())

    def make_commit(self, r: int | None = None) -> ShuffleCommit:
        me = self._me()
        r = len(self.rounds) - 1 if r is None else r
        self._round(r)
        if r not in self._seeds:
            self._seeds[r] = g.entropy(32)
        return ShuffleCommit(me, r, shuffle_commitment(self._seeds[r], me, self.table_id,
                                                       self.hand_no, r))

    def make_pass(self, r: int | None = None) -> ShufflePass:
        me = self._me()
        r = len(self.rounds) - 1 if r is None else r
        rd = self._round(r)
        if self.joint is None or self.next_shuffler(r) != me:
            raise ValueError("not this seat's turn to shuffle")
        inp = rd.passes[-1] if rd.passes else rd.start()
        spec = self._spec.pop(r, None)
        if spec is not None and self.shuffle_proofs:
            spec_inp, worker, box = spec
            worker.join()
            if box and spec_inp == inp:
                return ShufflePass(me, r, box[0][0], box[0][1])
        if self.shuffle_proofs:  # the input was proved (or is the start deck): it decodes
            out, proof = prove_pass(inp, self._seeds[r], self.joint, self.table_id,
                                    self.hand_no, r, me, self.ops)
            return ShufflePass(me, r, out, proof)
        try:
            out = shuffle_pass(inp, self._seeds[r], self.joint, self.ops)
        except g.GroupError as e:
            raise CheatDetected(me - 1, "pass-points", "ShufflePass", str(e)) from None
        return ShufflePass(me, r, out)

    def make_reshuffle(self, cards: Sequence[int]) -> ReshuffleStart:
        return ReshuffleStart(self._me(), len(self.rounds), tuple(sorted(cards)))

    def make_share(self, r: int, pos: int, recipient: int, card: int | None = None) -> DecryptShare:
        """This seat's decryption share of (r, pos) for recipient (PUBLIC to open)."""
        me = self._me()
        # (whether this seat revealed its key says nothing here: a share made after the
        # reveal shows no more than the key itself, and a stored record edited to say
        # "revealed" mid-hand, its checksum made again, stopped the resumed seat at its
        # next share, "resume continues it" said of a resume that stopped again: hostile
        # pass 25)
        if self._x is None:
            raise ValueError("no usable hand secret")
        if recipient == me:
            raise ValueError("a seat never sends a share to itself")
        rd = self._round(r)
        c1 = self._deck(r)[pos][0]
        held = rd.assigned.get(pos)
        if recipient != PUBLIC and held is not None and held != recipient:
            raise ValueError(f"position {pos} already went to seat {held}")
        d = g.mul(self._x, c1, self.ops)
        proof = dleq_prove(self._x, self.keys[me], c1, d, self.share_context(r, pos, recipient),
                           self.ops)
        return DecryptShare(me, r, pos, recipient, d, proof.to_bytes(), card)

    def make_open(self, r: int, pos: int) -> DecryptShare:
        """Holder's share that opens its own card at (r, pos) to everyone (play/discard)."""
        card = self._round(r).mine.get(pos)
        if card is None:
            raise ValueError("this seat does not hold that position")
        return self.make_share(r, pos, PUBLIC, card)

    def make_reveal(self) -> SecretReveal:
        me = self._me()
        if self._x is None:
            raise ValueError("no hand secret")
        self._revealed_mine = True
        seeds = tuple(self._seeds.get(r, bytes(32)) for r in range(len(self.rounds)))
        return SecretReveal(me, g.scalar_to_bytes(self._x), seeds)

    # ------------------------------------------------------------------ persistence
    def export_secrets(self) -> dict[str, Any]:
        """This seat's hand secrets as a plain dict, to persist (fsynced, private) so a
        restarted peer can resume: rebuild the DeckHand, :meth:`import_secrets`, then
        replay the log through :meth:`receive`."""
        return {"seat": self.my_seat, "table": self.table_id, "hand": self.hand_no,
                "x": None if self._x is None else g.scalar_to_bytes(self._x),
                "seeds": {str(r): s for r, s in self._seeds.items()},
                "revealed": self._revealed_mine}

    def import_secrets(self, d: dict[str, Any]) -> None:
        if (d.get("seat") != self.my_seat or d.get("table") != self.table_id
                or d.get("hand") != self.hand_no):
            raise ValueError("secrets belong to another seat, table or hand")
        x = d.get("x")
        self._x = None if x is None else g.scalar_from_bytes(x)
        self._seeds = {int(r): bytes(s) for r, s in d.get("seeds", {}).items()}
        self._revealed_mine = bool(d.get("revealed", False))

    # ------------------------------------------------------------------ receive
    def receive_body(self, author_seat: int, body: object) -> DeckMessage:
        """Parse an envelope body authored by ``author_seat`` and apply it."""
        try:
            m = message_from_body(body)
        except ValueError as e:
            raise CheatDetected(author_seat, "malformed-body", "body", str(e)) from None
        if m.seat != author_seat:
            raise CheatDetected(author_seat, "seat-mismatch", type(m).__name__,
                                f"message names seat {m.seat}", m)
        self.receive(m)
        return m

    def can_judge_share(self, m: DecryptShare) -> bool:
        """Does this peer hold what :meth:`verify_share` needs (the share's round shuffled
        here and its author's key)? A peer that lags must wait, not judge: "no shuffled
        position" here may only mean the pass has not reached it yet."""
        return (0 <= m.round < len(self.rounds) and self.rounds[m.round].final is not None
                and 0 <= m.seat < self.n and m.seat in self.keys)

    def verify_share(self, m: DecryptShare) -> None:
        """Check any share's proof now (e.g. when its recipient complains about it).
        Raises CheatDetected naming its author."""
        rd = self._round_for(m, m.round)
        if (rd.final is None or not 0 <= m.pos < len(rd.final) or m.seat not in self.keys
                or not (m.recipient == PUBLIC or 0 <= m.recipient < self.n)):
            raise self._cheat(m.seat, "share-proof", m, "share for no shuffled position")
        try:
            proof = Proof.from_bytes(m.proof)
        except ProofError as e:
            raise self._cheat(m.seat, "share-proof", m, str(e)) from None
        if not dleq_verify(self.keys[m.seat], rd.final[m.pos][0], m.share, proof,
                           self.share_context(m.round, m.pos, m.recipient), self.ops):
            raise self._cheat(m.seat, "share-proof", m, "decryption share proof fails")

    def receive(self, m: DeckMessage) -> None:
        """Apply one message (in log order).  Raises CheatDetected on any failed check."""
        if not 0 <= m.seat < self.n:
            raise self._cheat(None, "seat-range", m, f"seat {m.seat}")
        if self.reveals and isinstance(m, (KeyShare, ShuffleCommit, ShufflePass,
                                           ReshuffleStart)):
            # Once a hand secret is public the deck is being opened: a new round could
            # never be checked (its seeds would never be revealed; verify_end indexed a
            # seed that was not there and crashed the transcript verifier).
            raise self._cheat(m.seat, "phase", m, "deck message after the reveals began")
        if isinstance(m, KeyShare):
            self._on_key(m)
        elif isinstance(m, ShuffleCommit):
            self._on_commit(m)
        elif isinstance(m, ShufflePass):
            self._on_pass(m)
        elif isinstance(m, ReshuffleStart):
            self._on_reshuffle(m)
        elif isinstance(m, DecryptShare):
            self._on_share(m)
        elif isinstance(m, SecretReveal):
            self._on_reveal(m)
        else:  # pragma: no cover
            raise TypeError(type(m))
        self.log.append(m)

    def _mine(self, m: DeckMessage) -> bool:
        return m.seat == self.my_seat

    def _on_key(self, m: KeyShare) -> None:
        if m.seat in self.keys:
            raise self._cheat(m.seat, "duplicate-key", m)
        if not self._mine(m):
            try:
                proof = Proof.from_bytes(m.proof)
            except ProofError as e:
                raise self._cheat(m.seat, "key-proof", m, str(e)) from None
            if not schnorr_verify(m.h, proof, self.key_context(m.seat), self.ops):
                raise self._cheat(m.seat, "key-proof", m)
        self.keys[m.seat] = m.h
        if len(self.keys) == self.n:
            pts = [self.keys[s] for s in range(self.n)]
            joint = pts[0]
            for p in pts[1:]:
                joint = g.add(joint, p, self.ops)
            if not g.is_valid_point(joint):
                raise self._cheat(self.n - 1, "joint-key", m, "joint key is degenerate")
            self.joint = joint

    def _on_commit(self, m: ShuffleCommit) -> None:
        if self.joint is None:
            raise self._cheat(m.seat, "phase", m, "commit before all keys")
        rd = self._round_for(m, m.round)
        if rd.passes or rd.final is not None:
            raise self._cheat(m.seat, "phase", m, "commit after the passes began")
        if m.seat in rd.commits:
            raise self._cheat(m.seat, "duplicate-commit", m)
        rd.commits[m.seat] = m.commitment

    def _round_for(self, m: DeckMessage, r: int) -> _Round:
        if not 0 <= r < len(self.rounds):
            raise self._cheat(m.seat, "round", m, f"no round {r}")
        return self.rounds[r]

    def _on_pass(self, m: ShufflePass) -> None:
        rd = self._round_for(m, m.round)
        if self.next_shuffler(m.round) != m.seat:
            raise self._cheat(m.seat, "pass-order", m, "not this seat's turn to shuffle")
        if len(m.deck) != len(rd.cards):
            raise self._cheat(m.seat, "pass-length", m,
                              f"{len(m.deck)} ciphertexts, expected {len(rd.cards)}")
        for c1, c2 in m.deck:
            if len(c1) != 32 or len(c2) != 32:
                raise self._cheat(m.seat, "pass-points", m, "bad encoding")
        if self._mine(m):
            self._spec.pop(m.round, None)  # (a replay after a restart: the log has it)
        if self.shuffle_proofs and not self._mine(m):
            # The pass proves itself before the next one is accepted: a bad shuffle is
            # caught here, before any card is dealt, and blamed on its author.
            assert self.joint is not None  # commits (hence passes) need every key
            inp = rd.passes[-1] if rd.passes else rd.start()
            if self.speculate and self.my_seat == m.seat + 1 and m.round in self._seeds \
                    and m.round not in self._spec:
                self._start_speculation(m.round, m.deck)
            if self.pass_check is not None:
                self.pass_check(m, inp)
            else:
                self._verify_pass(m, inp)
        rd.passes.append(m.deck)
        if len(rd.passes) == self.n:
            self._finalise(m, rd)

    def _start_speculation(self, r: int, inp: Deck) -> None:
        """Compute this seat's pass of round ``r`` over ``inp`` in a background thread (see
        ``speculate``); an error (an undecodable point: the arriving pass's proof fails
        too) leaves no result and make_pass computes as usual."""
        assert self.joint is not None and self.my_seat is not None
        seed, joint, me = self._seeds[r], self.joint, self.my_seat
        table, hand = self.table_id, self.hand_no
        box: list[tuple[Deck, bytes]] = []

        def work() -> None:
            with contextlib.suppress(Exception):
                box.append(prove_pass(inp, seed, joint, table, hand, r, me))

        worker = threading.Thread(target=work, name="deck-next-pass", daemon=True)
        worker.start()
        self._spec[r] = (inp, worker, box)

    def pass_proof_error(self, m: ShufflePass, reason: str) -> CheatDetected:
        """The verdict on a pass whose proof fails."""
        return self._cheat(m.seat, "shuffle-proof", m, f"round {m.round} pass {m.seat}: {reason}")

    def _verify_pass(self, m: ShufflePass, inp: Deck) -> None:
        assert self.joint is not None
        try:
            verify_pass(inp, m.deck, m.proof, self.joint, self.table_id, self.hand_no,
                        m.round, m.seat, self.ops)
        except ShuffleProofError as e:
            raise self.pass_proof_error(m, e.reason) from None

    def _finalise(self, m: ShufflePass, rd: _Round) -> None:
        # Intermediate passes never meet a secret scalar, so only the final deck needs
        # every point validated (without proofs); if one fails, the first pass holding a bad
        # point is blamed (an honest pass maps valid points to valid points).
        ops = self.ops
        if self.shuffle_proofs:
            # Every pass is proved, so every point decodes; the last shuffler alone chose
            # the final re-encryption, so an identity component (a card left in the clear)
            # is its doing.
            if any(g.IDENTITY in ct for ct in m.deck):
                raise self._cheat(m.seat, "pass-points", m, "identity point in the final deck")
            rd.final = m.deck
            return
        if all(g.is_valid_point(c1, ops) and g.is_valid_point(c2, ops) for c1, c2 in m.deck):
            rd.final = m.deck
            return
        for seat, deck in enumerate(rd.passes):
            if not all(g.is_valid_point(c1) and g.is_valid_point(c2) for c1, c2 in deck):
                raise self._cheat(seat, "pass-points", m, "invalid point in shuffle output")
        raise AssertionError("unreachable")  # pragma: no cover

    def _on_reshuffle(self, m: ReshuffleStart) -> None:
        if m.round != len(self.rounds) or not self.shuffled:
            raise self._cheat(m.seat, "phase", m, "reshuffle out of order")
        if (not m.cards or list(m.cards) != sorted(set(m.cards))
                or not set(m.cards) <= set(self.card_ids)):
            raise self._cheat(m.seat, "reshuffle-cards", m,
                              "cards must be known ids, distinct, in ascending order")
        self.rounds.append(_Round(m.cards))

    def _verify_share(self, m: DecryptShare, rd: _Round) -> None:
        key = (m.pos, m.seat, m.recipient)
        if key in rd.verified or self._mine(m) or self.proofs_checked:
            return
        assert rd.final is not None
        try:
            proof = Proof.from_bytes(m.proof)
        except ProofError as e:
            raise self._cheat(m.seat, "share-proof", m, str(e)) from None
        # d is not validated on its own (validate_d=False): the proof's sum decodes it (an
        # undecodable d fails the proof; ristretto255 has no torsion to slip past it), and
        # the identity satisfies no proof under a valid key (log_G h = log_C1 d = 0).
        if not dleq_verify(self.keys[m.seat], rd.final[m.pos][0], m.share, proof,
                           self.share_context(m.round, m.pos, m.recipient), self.ops,
                           validate_d=False):
            raise self._cheat(m.seat, "share-proof", m, "decryption share proof fails")
        rd.verified.add(key)

    def _verify_share_known(self, m: DecryptShare, rd: _Round, x: int, r_log: int,
                            c1: bytes) -> None:
        """:meth:`_verify_share` at the end of the hand, once ``x`` (the author's revealed
        secret) and ``r_log`` (log_G c1, from the recomputed passes) are known and
        ``m.share == x·c1`` was checked."""
        key = (m.pos, m.seat, m.recipient)
        if key in rd.verified or self._mine(m):
            return
        try:
            proof = Proof.from_bytes(m.proof)
        except ProofError as e:
            raise self._cheat(m.seat, "share-proof", m, str(e)) from None
        if not dleq_verify_known_logs(x, self.keys[m.seat], r_log, c1, m.share, proof,
                                      self.share_context(m.round, m.pos, m.recipient),
                                      self.ops):
            raise self._cheat(m.seat, "share-proof", m, "decryption share proof fails")
        rd.verified.add(key)

    def _is_encryption(self, deck: Deck, cards: Sequence[int], logs: Sequence[int],
                       xsum: int) -> bool:
        """deck[j] == (logs[j]·G, M_{cards[j]} + (logs[j]·xsum)·G) for every j."""
        if len(deck) != len(cards):
            return False
        base, add, L, ops = g.base, g.add, g.L, self.ops
        for (c1, c2), card, k in zip(deck, cards, logs, strict=False):
            if c1 != base(k, ops):
                return False
            if c2 != add(card_point(card), base(k * xsum % L, ops), ops):
                return False
        return True

    def _on_share(self, m: DecryptShare) -> None:
        rd = self._round_for(m, m.round)
        if rd.final is None:
            raise self._cheat(m.seat, "phase", m, "share before the deck is shuffled")
        if not 0 <= m.pos < len(rd.final):
            raise self._cheat(m.seat, "position", m, f"no position {m.pos}")
        if m.seat in self.reveals:
            raise self._cheat(m.seat, "phase", m, "share after own reveal")
        held = rd.assigned.get(m.pos)
        if m.recipient == PUBLIC:
            if held is not None and held != PUBLIC and held != m.seat:
                raise self._cheat(m.seat, "not-holder", m,
                                  f"position {m.pos} is held by seat {held}")
            opens = rd.opens.setdefault(m.pos, {})
            if m.seat in opens:
                raise self._cheat(m.seat, "duplicate-share", m)
            if held is None:
                rd.assigned[m.pos] = PUBLIC
            elif held == m.seat:
                draw = rd.shares.get(m.pos, {})
                if len(draw) != self.n - 1:
                    raise self._cheat(m.seat, "not-holder", m, "draw not complete")
            opens[m.seat] = m
            try:
                self._try_public(m, rd)
            except CheatDetected:
                del opens[m.seat]  # a rejected message leaves no trace in the state
                if held is None:
                    del rd.assigned[m.pos]
                raise
            return
        if not 0 <= m.recipient < self.n or m.recipient == m.seat:
            raise self._cheat(m.seat, "recipient", m, f"bad recipient {m.recipient}")
        if held is not None and held != m.recipient:
            raise self._cheat(m.seat, "position-reassigned", m,
                              f"position {m.pos} already went to {held}")
        draw = rd.shares.setdefault(m.pos, {})
        if m.seat in draw:
            raise self._cheat(m.seat, "duplicate-share", m)
        if m.recipient == self.my_seat:
            self._verify_share(m, rd)
        rd.assigned[m.pos] = m.recipient
        draw[m.seat] = m
        if m.recipient == self.my_seat and len(draw) == self.n - 1:
            assert self._x is not None
            own = g.mul(self._x, rd.final[m.pos][0], self.ops)
            card = self._combine(m, rd, list(draw.values()), own)
            if card in rd.mine.values() or card in rd.public.values():
                raise self._cheat(None, "duplicate-card", m, f"card {card} seen twice")
            rd.mine[m.pos] = card

    def _try_public(self, m: DecryptShare, rd: _Round) -> None:
        opens = rd.opens[m.pos]
        held = rd.assigned[m.pos]
        if held == PUBLIC:
            if len(opens) < self.n:
                return
            shares = list(opens.values())
        else:
            shares = list(rd.shares[m.pos].values()) + [opens[held]]
        for s in shares:
            self._verify_share(s, rd)
        card = self._combine(m, rd, shares, None)
        claim = opens[held].card if held != PUBLIC else None
        if held != PUBLIC and claim != card:
            raise self._cheat(held, "wrong-card", m, f"claimed {claim}, position holds {card}")
        mine_here = rd.mine.get(m.pos)
        if mine_here is not None and mine_here != card:  # pragma: no cover - proofs forbid it
            raise self._cheat(None, "inconsistent-open", m)
        others = {p: c for p, c in rd.public.items() if p != m.pos}
        if card in others.values() or card in {c for p, c in rd.mine.items() if p != m.pos}:
            raise self._cheat(None, "duplicate-card", m, f"card {card} seen twice")
        rd.public[m.pos] = card

    def _combine(self, m: DecryptShare, rd: _Round, shares: list[DecryptShare],
                 own: bytes | None) -> int:
        assert rd.final is not None
        total = own
        try:
            for s in shares:
                total = s.share if total is None else g.add(total, s.share, self.ops)
            assert total is not None
            pt = g.sub(rd.final[m.pos][1], total, self.ops)
        except g.GroupError:        # a share that is no point: found and named below
            pt = b""
        card = self._lookup.get(pt)
        if card is not None and card in rd.cards:
            return card
        # Failure: find the share to blame before suspecting the deck (this also checks
        # the shares skipped above, e.g. one's own or ones verified without validation).
        for s in shares:
            if not g.is_valid_point(s.share, self.ops):
                raise self._cheat(s.seat, "share-point", s, "share is not in the prime-order group")
            try:
                proof = Proof.from_bytes(s.proof)
            except ProofError:
                raise self._cheat(s.seat, "share-proof", s, "malformed proof") from None
            if not dleq_verify(self.keys[s.seat], rd.final[s.pos][0], s.share, proof,
                               self.share_context(s.round, s.pos, s.recipient), self.ops):
                raise self._cheat(s.seat, "share-proof", s, "decryption share proof fails")
        raise self._cheat(None, "card-not-in-deck", m,
                          f"position {m.pos} of round {m.round} decrypts to no card of this deck")

    def _on_reveal(self, m: SecretReveal) -> None:
        if m.seat in self.reveals:
            raise self._cheat(m.seat, "duplicate-reveal", m)
        try:
            x = g.scalar_from_bytes(m.x)
        except g.GroupError:
            raise self._cheat(m.seat, "reveal-key", m, "non-canonical scalar") from None
        h = self.keys.get(m.seat)
        if h is None or x == 0 or g.base(x, self.ops) != h:
            raise self._cheat(m.seat, "reveal-key", m, "revealed secret does not match key")
        if len(m.seeds) != len(self.rounds):
            raise self._cheat(m.seat, "reveal-seeds", m, "wrong number of seeds")
        for r, (seed, rd) in enumerate(zip(m.seeds, self.rounds, strict=True)):
            c = rd.commits.get(m.seat)
            if c is not None and shuffle_commitment(seed, m.seat, self.table_id, self.hand_no, r) != c:
                raise self._cheat(m.seat, "reveal-commitment", m,
                                  f"seed of round {r} does not match its commitment")
        self.reveals[m.seat] = m

    # ------------------------------------------------------------------ end of hand
    def _find(self, kind: type, seat: int, r: int) -> DeckMessage | None:
        for m in self.log:
            if isinstance(m, kind) and m.seat == seat and getattr(m, "round", None) == r:
                return m
        return None

    def verify_end(self, check_proofs: bool = True) -> HandResult:
        """Full verification once every seat revealed: recompute every pass from its seed,
        check every share and every opened card.  Names the seat to blame on failure."""
        step = "verify_end"
        for s in range(self.n):
            if s not in self.reveals:
                raise CheatDetected(s, "reveal-missing", step, "seat withheld its reveal")
        if self.joint is None:
            raise CheatDetected(None, "incomplete", step, "keys never completed")
        xs = [g.scalar_from_bytes(self.reveals[s].x) for s in range(self.n)]
        xsum = sum(xs) % g.L
        decks: list[tuple[int, ...]] = []
        recips: list[dict[int, int]] = []
        pubs: list[dict[int, int]] = []
        # Every key h_s = x_s·G was checked against its reveal, so the joint key is
        # xsum·G.  Recomputing each pass from its seed tracks, for every ciphertext, its card
        # and the sum R of the re-randomisers applied so far: the honest ciphertext is then
        # (R·G, M + (R·xsum)·G) — the very points the pass-by-pass recomputation
        # (C1 + ρ·G, C2 + ρ·H) gives, with fixed-base multiplications only.  The card at each
        # final position is the composed permutation (decrypting the final deck with xsum
        # gives the same), each share x_s·C1 is (x_s·R)·G, and each share proof is checked
        # with its two discrete logs known (proofs.dleq_verify_known_logs).
        L = g.L
        for r, rd in enumerate(self.rounds):
            for s in range(self.n):
                if s not in rd.commits and (rd.passes or rd.final is not None):
                    raise CheatDetected(s, "commit-missing", step, f"round {r}")
            size = len(rd.cards)
            cards = list(rd.cards)
            logs = [0] * size
            for s, published in enumerate(rd.passes):
                perm, rhos = pass_witness(size, self.reveals[s].seeds[r])
                cards = [cards[i] for i in perm]
                logs = [(logs[i] + rho) % L for i, rho in zip(perm, rhos, strict=True)]
                if not self._is_encryption(published, cards, logs, xsum):
                    raise CheatDetected(s, "pass-mismatch", step,
                                        f"round {r}: pass differs from the one its seed derives",
                                        self._find(ShufflePass, s, r))
            if rd.final is None:
                decks.append(())
                recips.append(dict(rd.assigned))
                pubs.append(dict(rd.public))
                continue
            order = cards
            for groups in (rd.shares, rd.opens):
                for pos, by_seat in groups.items():
                    c1 = rd.final[pos][0]
                    for s, sh in by_seat.items():
                        if sh.share != g.base(xs[s] * logs[pos] % L, self.ops):
                            raise CheatDetected(s, "share-mismatch", step,
                                                f"round {r} position {pos}", sh)
                        if check_proofs and not self.proofs_checked:
                            self._verify_share_known(sh, rd, xs[s], logs[pos], c1)
            for pos, card in rd.public.items():
                if order[pos] != card:  # pragma: no cover - guaranteed by the checks above
                    raise CheatDetected(None, "open-mismatch", step)
            decks.append(tuple(order))
            recips.append(dict(rd.assigned))
            pubs.append(dict(rd.public))
        self.result = HandResult(tuple(decks), tuple(recips), tuple(pubs))
        return self.result


