"""Every seat of one fair-deck hand in one process: tests, benchmarks and the simulator."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from p2p.crypto import group as g
from p2p.deck.hand import DeckHand, HandResult
from p2p.deck.messages import PUBLIC, DeckMessage

# --------------------------------------------------------------------------- driver

class DeckTable:
    """All seats of one hand in memory (tests, benchmarks, simulator).

    Every message goes through :meth:`broadcast`, which applies it to every peer (and to
    an observer); ``cpu[seat]`` accumulates process CPU per peer and ``ops[seat]`` its
    group operations.  ``tamper(msg) -> msg`` may replace any message before delivery
    (cheat tests).
    """

    def __init__(self, n_seats: int, card_ids: Sequence[int], table_id: bytes = b"table",
                 hand_no: int = 1, observer: bool = True,
                 tamper: Callable[[DeckMessage], DeckMessage] | None = None,
                 sink: Callable[[DeckMessage], None] | None = None,
                 shuffle_proofs: bool = True) -> None:
        self.n = n_seats
        self.ops = [g.OpCounter() for _ in range(n_seats)]
        self.cpu = [0.0] * n_seats
        self.peers = [DeckHand(table_id, hand_no, n_seats, card_ids, s, self.ops[s],
                               shuffle_proofs) for s in range(n_seats)]
        self.observer = (DeckHand(table_id, hand_no, n_seats, card_ids,
                                  shuffle_proofs=shuffle_proofs) if observer else None)
        self.messages: list[DeckMessage] = []
        self.tamper = tamper
        self.sink = sink

    def _timed(self, seat: int, fn: Callable[[], Any]) -> Any:
        t0 = time.process_time()
        try:
            return fn()
        finally:
            self.cpu[seat] += time.process_time() - t0

    def broadcast(self, m: DeckMessage) -> None:
        if self.tamper is not None:
            m = self.tamper(m)
        self.messages.append(m)
        if self.sink is not None:
            self.sink(m)
        for s, p in enumerate(self.peers):
            self._timed(s, partial(p.receive, m))
        if self.observer is not None:
            self.observer.receive(m)

    @property
    def round(self) -> int:
        return len(self.peers[0].rounds) - 1

    def setup(self) -> None:
        """Keys, then the first shuffle."""
        for s, p in enumerate(self.peers):
            self.broadcast(self._timed(s, p.make_key_share))
        self.shuffle()

    def shuffle(self) -> None:
        for s, p in enumerate(self.peers):
            self.broadcast(self._timed(s, p.make_commit))
        for s, p in enumerate(self.peers):
            self.broadcast(self._timed(s, p.make_pass))

    def reshuffle(self, cards: Sequence[int], by: int = 0) -> int:
        self.broadcast(self._timed(by, lambda: self.peers[by].make_reshuffle(cards)))
        self.shuffle()
        return self.round

    def deal(self, pos: int, seat: int, r: int | None = None) -> int:
        """Draw position ``pos`` to ``seat``; returns the card only that seat learns."""
        r = self.round if r is None else r
        for s, p in enumerate(self.peers):
            if s != seat:
                self.broadcast(self._timed(s, partial(p.make_share, r, pos, seat)))
        card = self.peers[seat].my_card(r, pos)
        assert card is not None
        return card

    def play(self, seat: int, pos: int, r: int | None = None) -> int:
        """The holder opens its card at ``pos``; returns the card everyone now sees."""
        r = self.round if r is None else r
        self.broadcast(self._timed(seat, lambda: self.peers[seat].make_open(r, pos)))
        card = self.peers[(seat + 1) % self.n].public_card(r, pos)
        assert card is not None
        return card

    def reveal(self, pos: int, r: int | None = None) -> int:
        """Open a position nobody holds to everyone (a face-up card)."""
        r = self.round if r is None else r
        for s, p in enumerate(self.peers):
            self.broadcast(self._timed(s, partial(p.make_share, r, pos, PUBLIC)))
        card = self.peers[0].public_card(r, pos)
        assert card is not None
        return card

    def finish(self, withhold: Sequence[int] = ()) -> HandResult:
        """Every seat reveals; every peer (and the observer) verifies the whole hand."""
        for s, p in enumerate(self.peers):
            if s not in withhold:
                self.broadcast(self._timed(s, p.make_reveal))
        result: HandResult | None = None
        for s, p in enumerate(self.peers):
            result = self._timed(s, partial(p.verify_end, check_proofs=False))
        if self.observer is not None:
            result = self.observer.verify_end()
        assert result is not None
        return result


def run_hand_in_memory(n_peers: int, card_ids: Sequence[int], deal_each: int = 6,
                       draws: int = 0, plays: int = 0, table_id: bytes = b"table",
                       hand_no: int = 1) -> tuple[DeckTable, HandResult, dict[int, list[int]]]:
    """Shuffle, deal ``deal_each`` cards to every seat round-robin, ``draws`` more draws
    round-robin, ``plays`` plays (each seat opens its oldest card in turn), then reveal
    and verify.  Returns the table, the verified result and each seat's drawn cards."""
    t = DeckTable(n_peers, card_ids, table_id, hand_no)
    t.setup()
    hands: dict[int, list[tuple[int, int]]] = {s: [] for s in range(n_peers)}
    drawn: dict[int, list[int]] = {s: [] for s in range(n_peers)}
    pos = 0
    total = min(len(card_ids), deal_each * n_peers + draws)
    for i in range(total):
        seat = i % n_peers
        card = t.deal(pos, seat)
        hands[seat].append((pos, card))
        drawn[seat].append(card)
        pos += 1
    for i in range(plays):
        seat = i % n_peers
        if hands[seat]:
            p, _ = hands[seat].pop(0)
            t.play(seat, p)
    return t, t.finish(), drawn
