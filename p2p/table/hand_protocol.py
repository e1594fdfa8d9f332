"""One hand of a table as a pure state machine over signed-log bodies (no sockets, no clock).

The game log of a hand is linear and has exactly one writer at a time. Which seat must
write next, and what, is a pure function of the log so far (:meth:`HandProtocol.expected`):

1. every seat publishes its hand key (``deck.key``), then a commitment for public
   randomness (``game.rcommit``), then its shuffle commitment (``deck.commit``);
2. every seat shuffles in seat order (``deck.pass``), then reveals its random seed
   (``game.rreveal``): the first player of the match comes from those seeds;
3. the deal: each seat publishes its decryption shares for the other seats' six cards;
4. play: the seat the engine waits for writes ``game.act``; a card leaving a hand is opened
   by its holder's share (``deck.share`` to PUBLIC, naming the card); a reshuffle (R4b) is a
   new shuffle round (``deck.reshuffle``, commits, passes). A draw from the pile needs the
   other seats' decryption shares of the next pile position for the drawer. When the rules
   leave the seat due to draw no other choice (:func:`forced_pile_draw`), those shares are
   written *before* its draw, starting with the seat that wrote last (it is still writing:
   no wait), so the drawer reads its card the moment it draws and plays on at once: one
   network round trip per turn instead of two. Otherwise (R4a's choice of the discard pile)
   they answer the draw, in seat order. A share is only ever published for a position its
   author cannot draw, so no card is opened to more than its drawer;
5. after the hand every seat reveals its secrets (``deck.reveal``) and the whole deck is
   verified.

The same class runs on a peer (``me`` = its seat: the engine state is that seat's view), on a
live observer (``me=None``: a spectator's view, every hand a count) and in the auditor
(``me=None`` with the revealed deck orders: full-information engine), so the verifier
replays exactly the code the players ran.

Every shuffle pass carries a proof of shuffle and every decryption share a proof of
correct decryption, both checked before the entry is accepted, so a card seen twice or a
card not in the deck cannot arise from entries that passed their checks. There is no
``game.abort`` any more (it made the log fork and rebase, the cause of issue 9's finding
4): an entry of that kind is a wrong entry of its writer, and an inconsistency nobody can
be blamed for stops the hand with nobody blamed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine import (
    Action,
    CoupFourre,
    Discard,
    Draw,
    FastDiscard,
    FastRemedy,
    HandState,
    IllegalAction,
    Play,
    Reshuffle,
    action_from_data,
    action_to_data,
    apply_action,
    legal_actions,
    new_hand,
    new_view,
)
from engine.simulate import checked_choice
from engine.state import DRAW, OVER, RESHUFFLE, SPECTATOR, TURN_DRAW
from p2p.crypto import group as g
from p2p.deck.ciphers import joint_random, random_commitment
from p2p.deck.hand import DeckHand, HandResult
from p2p.deck.messages import PUBLIC, CheatDetected, DecryptShare, message_to_body
from p2p.table.config import TableConfig

HAND_SIZE = 6

#: Entry kinds a peer makes again byte for byte from the log so far and the secrets it
#: saved before making them (proofs with derived nonces, Ed25519's deterministic
#: signatures): publishing one before it is fsynced cannot make the peer equivocate after
#: a power cut, so the session's group commit need not wait for the disk (issue 10 item 4).
REPRODUCIBLE_KINDS = frozenset({"deck.key", "deck.commit", "deck.pass", "deck.reshuffle",
                                "deck.share", "deck.reveal", "game.rcommit", "game.rreveal"})

#: The game layer's bodies and their fields (docs/protocol.md §4): no other field.
_GAME_FIELDS: dict[str, frozenset[str]] = {
    "game.act": frozenset({"k", "a"}), "game.rcommit": frozenset({"k", "c"}),
    "game.rreveal": frozenset({"k", "seed"})}


def _no_other_field(seat: int, body: dict[str, Any]) -> None:
    """A game body that is right in every field it must have still has no other, as every
    decoded message (deck bodies: message_from_body; network.md, "Hardened decoding"): a
    signed move carrying one more field passed live and in `verify`."""
    kind = body["k"]
    extra = set(body) - _GAME_FIELDS[kind]
    if extra:
        raise ProtocolError(seat, "malformed-body",
                            f"{kind} has no field {sorted(str(f) for f in extra)[0][:32]!r}")


class ProtocolError(Exception):
    """An entry broke the protocol; ``seat`` is the author to blame (None: unknown)."""

    def __init__(self, seat: int | None, check: str, detail: str = "") -> None:
        self.seat = seat
        self.check = check
        self.detail = detail
        who = "an unknown seat" if seat is None else f"seat {seat}"
        super().__init__(f"{who} broke the rules of the protocol ({check})"
                         + (f": {detail}" if detail else ""))


@dataclass(frozen=True)
class Expect:
    """The next entry of the log: who writes it and what it must be."""

    seat: int
    kind: str          # a body kind, or "open" (a deck.share opening ``card`` to everyone)
    round: int = 0
    pos: int = -1
    recipient: int = -1
    card: int = -1


def forced_pile_draw(st: HandState) -> int | None:
    """The seat whose next move can only be a draw from the pile (None if there is none):
    the shares of that pile card may then be published before the draw, since nobody else
    can draw it. Not when R4a lets the seat take the discard instead (the card would stay
    in the pile for a later drawer, possibly one who had published its share)."""
    if st.phase != DRAW or st.pile_size() == 0:
        return None
    if st.pending and st.pending[0] == TURN_DRAW and st.rules.draw_discard and st.discard:
        return None
    return st.seat


def _cards_leaving_hand(action: Action) -> tuple[int, ...]:
    if isinstance(action, (Play, Discard, CoupFourre, FastRemedy)):
        return (action.card,)
    if isinstance(action, FastDiscard):
        return action.cards
    return ()


def random_purpose(hand_no: int) -> bytes:
    """What a seat's public randomness of hand ``hand_no`` is for (its ``game.rcommit``
    commits to its seed for it: :func:`p2p.deck.ciphers.random_commitment`)."""
    return b"first-player/%d" % hand_no


class HandProtocol:
    """The log-driven state of one hand, for one peer or for the auditor."""

    def __init__(self, cfg: TableConfig, hand_no: int, first_seat: int | None,
                 me: int | None, decks: tuple[tuple[int, ...], ...] | None = None,
                 match_scores: tuple[int, ...] = ()) -> None:
        self.cfg = cfg
        self.hand_no = hand_no
        #: each side's match total before this hand: part of every seat's view (bots weigh it)
        self.match_scores = match_scores
        self.me = me
        self.decks = decks
        self.n = cfg.n
        # The auditor's replay with the decks known comes after its cryptographic pass over
        # the same transcript checked every proof (of shuffle and of decryption shares): it
        # need not check them twice.
        self.deck = DeckHand(cfg.table_id, hand_no, self.n, cfg.cards, my_seat=me,
                             proofs_checked=me is None and decks is not None,
                             speculate=me is not None)
        self.first_seat = first_seat
        self.state: HandState | None = None
        self.result: HandResult | None = None
        self.round = 0
        self.taken: list[set[int]] = [set() for _ in range(self.n)]
        self.rand_commits: dict[int, bytes] = {}
        self.rand_seeds: dict[int, bytes] = {}
        self._my_rand_seed = g.entropy(32)
        self._stage = "setup"
        self._pending_draw: tuple[int, int, int] | None = None   # (seat, round, pos)
        self._pending_state: HandState | None = None             # after opens complete
        self._deferred_illegal: ProtocolError | None = None  # refused, until its card opens
        self.actions: list[Action] = []                            # public actions, in order
        self._last_writer = 0                                      # author of the last entry
        q: deque[Expect] = deque()
        for kind in ("deck.key", "game.rcommit", "deck.commit"):
            q.extend(Expect(s, kind) for s in range(self.n))
        q.extend(Expect(s, "deck.pass") for s in range(self.n))
        q.extend(Expect(s, "game.rreveal") for s in range(self.n))
        self.queue = q

    # ----- queries ------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self._stage == "done"

    def expected(self) -> Expect | None:
        return self.queue[0] if self.queue else None

    def expected_writer(self) -> int | None:
        e = self.expected()
        return None if e is None else e.seat

    def needs_decision(self) -> bool:
        """Is the next entry this peer's move in the game (not an automatic crypto step)?"""
        e = self.expected()
        return e is not None and e.seat == self.me and e.kind == "game.act"

    def legal(self) -> list[Action]:
        assert self.state is not None and self.me is not None
        return legal_actions(self.state, self.me)

    def _purpose(self) -> bytes:
        return random_purpose(self.hand_no)

    # ----- making this peer's entries -------------------------------------------------
    def auto_body(self) -> dict[str, Any]:
        """The body of this peer's next entry when it needs no decision."""
        e = self.expected()
        if e is None or e.seat != self.me or self.me is None:
            raise ValueError("it is not this peer's turn to write")
        d = self.deck
        if e.kind == "deck.key":
            return message_to_body(d.make_key_share())
        if e.kind == "deck.commit":
            return message_to_body(d.make_commit(e.round))
        if e.kind == "deck.pass":
            return message_to_body(d.make_pass(e.round))
        if e.kind == "deck.reshuffle":
            assert self.state is not None
            return message_to_body(d.make_reshuffle(self.state.discard))
        if e.kind == "deck.share":
            return message_to_body(d.make_share(e.round, e.pos, e.recipient))
        if e.kind == "open":
            r, pos = self._position_of(e.card)
            return message_to_body(d.make_open(r, pos))
        if e.kind == "deck.reveal":
            return message_to_body(d.make_reveal())
        if e.kind == "game.rcommit":
            return {"k": "game.rcommit", "c": random_commitment(
                self._my_rand_seed, self.me, self.cfg.table_id, self._purpose())}
        if e.kind == "game.rreveal":
            return {"k": "game.rreveal", "seed": self._my_rand_seed}
        raise ValueError(f"{e.kind} needs a decision: use act_body")

    def act_body(self, action: Action) -> dict[str, Any]:
        """The body for this peer's move (checked against the engine first)."""
        if not self.needs_decision():
            raise ValueError("it is not this peer's move")
        if isinstance(action, Draw) and action.source == "pile":
            action = Draw(action.seat, "pile", None)  # never publish a drawn card
        return {"k": "game.act", "a": action_to_data(action)}

    def reproducible(self, body: dict[str, Any]) -> bool:
        """Would this peer write exactly ``body`` again at this point after losing it? True
        for the automatic steps (:data:`REPRODUCIBLE_KINDS`) and for a move that was the
        only legal one (a forced draw); a choice could come out differently next time, so
        it must be on disk before anyone sees it. Ask before the body is applied."""
        if body.get("k") in REPRODUCIBLE_KINDS:
            return True
        return body.get("k") == "game.act" and self.needs_decision() and len(self.legal()) == 1

    def next_body(self, choose: Callable[[HandState, list[Action]], Action],
                  check: bool = True) -> dict[str, Any]:
        """This peer's next body, asking ``choose(view, legal)`` when it is a move. A
        chooser that raises or answers anything but one of the legal moves (someone's
        plug-in bot) raises :class:`engine.BotFailed`, a ValueError: this seat signs
        nothing for it (it would be an illegal move of its own). ``check=False`` signs
        whatever it answers: a cheater's software, for the tests and demos that stage one."""
        if self.needs_decision():
            assert self.state is not None and self.me is not None
            if not check:
                return self.act_body(choose(self.state, self.legal()))
            return self.act_body(checked_choice(choose, self.state, self.legal(), self.me))
        return self.auto_body()

    # ----- persistence ----------------------------------------------------------------
    def export_secrets(self) -> dict[str, Any]:
        """This seat's secrets for the hand (deck key and seeds, random seed): persist them,
        fsynced and private, before publishing anything that depends on them."""
        return {"deck": self.deck.export_secrets(), "rand_seed": self._my_rand_seed}

    def import_secrets(self, secrets: dict[str, Any]) -> None:
        """Restore :meth:`export_secrets` in a restarted peer, before replaying the log."""
        seed = secrets.get("rand_seed")
        if not isinstance(seed, bytes) or len(seed) != 32:
            raise ValueError("stored secrets have no valid random seed")
        self.deck.import_secrets(secrets["deck"])
        self._my_rand_seed = seed

    def _position_of(self, card: int) -> tuple[int, int]:
        for r in range(len(self.deck.rounds) - 1, -1, -1):
            rd = self.deck.rounds[r]
            for pos, c in rd.mine.items():
                if c == card and pos not in rd.public:
                    return r, pos
        raise ValueError(f"card {card} was never dealt to this seat")

    # ----- receiving entries ---------------------------------------------------------
    def receive(self, seat: int, body: Any) -> None:
        """Apply one entry (signature and chain already checked) written by ``seat``."""
        e = self.expected()
        if e is None:
            raise ProtocolError(seat, "after-end", "the hand is over; no entry expected")
        if seat != e.seat:
            raise ProtocolError(seat, "out-of-turn",
                                f"seat {e.seat} was to write {e.kind}, not seat {seat}")
        if not isinstance(body, dict) or not isinstance(body.get("k"), str):
            raise ProtocolError(seat, "malformed-body", "an entry body is a map with a kind")
        kind = body["k"]
        want = "deck.share" if e.kind == "open" else e.kind
        if kind != want:
            raise ProtocolError(seat, "wrong-entry", f"expected {want}, got {kind}")
        try:
            if kind.startswith("deck."):
                self._on_deck(seat, body, e)
            elif kind == "game.rcommit":
                c = body.get("c")
                if not isinstance(c, bytes) or len(c) != 32:
                    raise ProtocolError(seat, "malformed-body", "commitment is 32 bytes")
                _no_other_field(seat, body)
                self.rand_commits[seat] = c
            elif kind == "game.rreveal":
                sd = body.get("seed")
                if not isinstance(sd, bytes) or len(sd) != 32 or random_commitment(
                        sd, seat, self.cfg.table_id, self._purpose()) != self.rand_commits[seat]:
                    raise ProtocolError(seat, "random-reveal",
                                        "the revealed seed does not match its commitment")
                _no_other_field(seat, body)
                self.rand_seeds[seat] = sd
            else:
                self._on_act(seat, body)
        except CheatDetected as exc:
            # exc.seat is None (a card seen twice, none of the deck) only if a proof was
            # forged: the hand stops with nobody blamed rather than guess.
            raise ProtocolError(exc.seat, exc.check, str(exc)) from None
        self.queue.popleft()
        self._last_writer = seat
        if not self.queue:
            self._advance()

    def _on_deck(self, seat: int, body: dict[str, Any], e: Expect) -> None:
        m = self.deck.receive_body(seat, body)
        if e.kind in ("deck.commit", "deck.pass") and getattr(m, "round", None) != e.round:
            raise ProtocolError(seat, "wrong-round", f"expected round {e.round}")
        if e.kind == "deck.share":
            assert isinstance(m, DecryptShare)
            if (m.round, m.pos, m.recipient) != (e.round, e.pos, e.recipient):
                raise ProtocolError(seat, "wrong-share",
                                    f"expected the share of position {e.pos} for seat "
                                    f"{e.recipient}, got position {m.pos} for {m.recipient}")
        if e.kind == "open":
            assert isinstance(m, DecryptShare)
            if m.recipient != PUBLIC or m.card != e.card or \
                    self.deck.public_card(m.round, m.pos) != e.card or \
                    self.deck.holder(m.round, m.pos) != seat:
                raise ProtocolError(seat, "card-not-held",
                                    f"seat {seat} did not open card {e.card} from its hand")
        if e.kind == "deck.reshuffle":
            assert self.state is not None
            if tuple(getattr(m, "cards", ())) != tuple(sorted(self.state.discard)):
                raise ProtocolError(seat, "reshuffle-cards",
                                    "a reshuffle must use exactly the discard pile (R4b)")

    def _on_act(self, seat: int, body: dict[str, Any]) -> None:
        assert self.state is not None
        try:
            action = action_from_data(body.get("a"))
        except ValueError as exc:
            raise ProtocolError(seat, "malformed-action", str(exc)) from None
        if action.seat != seat:
            raise ProtocolError(seat, "wrong-seat", f"seat {seat} wrote a move for seat "
                                                   f"{action.seat}")
        _no_other_field(seat, body)
        st = self.state
        if isinstance(action, Draw) and action.source == "pile":
            if action.card is not None:
                raise ProtocolError(seat, "leaked-draw", "a pile draw never names its card")
            if st.phase != DRAW or st.seat != seat or st.pile_size() == 0:
                raise ProtocolError(seat, "illegal-move", "R4: no draw from the pile is due")
            r, pos = self._pile_position(st)
            self._pending_draw = (seat, r, pos)
            self.actions.append(action)
            given = self.deck.share_authors(r, pos)   # written before the draw, if forced
            self.queue.extend(Expect(s, "deck.share", r, pos, seat)
                              for s in range(self.n) if s != seat and s not in given)
            return
        try:
            after = apply_action(st, action)
        except (IllegalAction, ValueError) as exc:
            illegal = ProtocolError(seat, f"illegal-move {exc.rule}", exc.reason) \
                if isinstance(exc, IllegalAction) else \
                ProtocolError(seat, "illegal-move", str(exc))
            opens = [Expect(seat, "open", card=c) for c in _cards_leaving_hand(action)
                     if c not in self.taken[seat]]
            if not opens or self.decks is not None:
                raise illegal from None   # (the auditor sees every hand: no copy to fear)
            # A card the engine refuses may be a copy made by a bad shuffle (the same
            # card id already public): the seat's own open share decides. If it opens a
            # card seen before, the deck raises duplicate-card and the shuffle is to blame
            # (finding 3); if it opens the card honestly, the move was illegal after all.
            self._deferred_illegal = illegal
            self.queue.extend(opens)
            return
        self.actions.append(action)
        if isinstance(action, Draw):  # face up from the discard pile (R4a)
            assert action.card is not None or st.discard
            self.taken[seat].add(st.discard[-1])
            self.state = after
            return
        opens = []
        for c in _cards_leaving_hand(action):
            if c in self.taken[seat]:
                self.taken[seat].discard(c)
            else:
                opens.append(Expect(seat, "open", card=c))
        if opens:
            self._pending_state = after
            self.queue.extend(opens)
        else:
            self.state = after

    def _pile_position(self, st: HandState) -> tuple[int, int]:
        """(round, deck position) of the next card of the pile."""
        r = self.round
        return r, (HAND_SIZE * self.n if r == 0 else 0) + st.pile_drawn

    # ----- moving on -----------------------------------------------------------------
    def _advance(self) -> None:
        if self._stage == "setup":
            if self.first_seat is None:
                rng = joint_random([self.rand_seeds[s] for s in range(self.n)],
                                   self.cfg.table_id, self._purpose())
                self.first_seat = int.from_bytes(rng.read(8), "big") % self.n
            first = self.first_seat
            for s in range(self.n):
                self.queue.extend(Expect(s, "deck.share", 0, p, (first + p) % self.n)
                                  for p in range(HAND_SIZE * self.n) if (first + p) % self.n != s)
            self._stage = "deal"
            return
        if self._stage == "deal":
            assert self.first_seat is not None
            first = self.first_seat
            if self.me is None and self.decks is not None:
                self.state = new_hand(self.cfg.rules, self.cfg.seating, self.decks[0], first,
                                      self.match_scores)
            elif self.me is None:
                self.state = new_view(self.cfg.rules, self.cfg.seating, SPECTATOR, (), first,
                                      self.match_scores)
            else:
                mine = [self.deck.my_card(0, p) for p in range(HAND_SIZE * self.n)
                        if (first + p) % self.n == self.me]
                if any(c is None for c in mine):
                    raise ProtocolError(None, "deal-incomplete", "a dealt card did not decrypt")
                self.state = new_view(self.cfg.rules, self.cfg.seating, self.me,
                                      [c for c in mine if c is not None], first,
                                      self.match_scores)
            self._stage = "play"
            self._next_move()
            return
        if self._stage == "play":
            assert self.state is not None
            if self._deferred_illegal is not None:
                raise self._deferred_illegal
            if self._pending_draw is not None:
                seat, r, pos = self._pending_draw
                self._pending_draw = None
                card = self.deck.my_card(r, pos) if seat == self.me else None
                self.state = apply_action(self.state, Draw(seat, "pile", card))
            elif self._pending_state is not None:
                self.state, self._pending_state = self._pending_state, None
            self._next_move()
            return
        if self._stage == "reshuffle":
            assert self.state is not None
            order = None
            if self.me is None and self.decks is not None:
                order = self.decks[self.round]
            self.state = apply_action(self.state, Reshuffle(order=order))
            self.actions.append(Reshuffle())
            self._stage = "play"
            self._next_move()
            return
        if self._stage == "end":
            try:
                self.result = self.deck.verify_end()
            except CheatDetected as exc:
                raise ProtocolError(exc.seat, exc.check, str(exc)) from None
            self._stage = "done"

    def _next_move(self) -> None:
        st = self.state
        assert st is not None
        if st.phase == OVER:
            self._stage = "end"
            self.queue.extend(Expect(s, "deck.reveal") for s in range(self.n))
            return
        if st.phase == RESHUFFLE:
            self.round += 1
            r = self.round
            self._stage = "reshuffle"
            self.queue.append(Expect(st.seat, "deck.reshuffle", r))
            self.queue.extend(Expect(s, "deck.commit", r) for s in range(self.n))
            self.queue.extend(Expect(s, "deck.pass", r) for s in range(self.n))
            return
        drawer = forced_pile_draw(st)
        if drawer is not None:
            r, pos = self._pile_position(st)
            self.queue.extend(Expect(s, "deck.share", r, pos, drawer)
                              for s in ((self._last_writer + i) % self.n for i in range(self.n))
                              if s != drawer)
        self.queue.append(Expect(st.actors()[0], "game.act"))
