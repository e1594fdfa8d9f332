"""A whole match as a sequence of :class:`~p2p.hand.HandProtocol` hands.

The first player of a hand with no scored hand before it (hand 0, and the next ones while
every hand before was voided by agreement) comes from the players' joint random seeds of
that hand; after that it rotates left from the last scored hand (R3), a voided hand in
between passing it on. Scores and the end of the match come from the engine (R14, R15).
"""

from __future__ import annotations

from typing import Any

from engine.scoring import Match, SideScore, score_hand
from p2p.table.config import TableConfig
from p2p.table.hand_protocol import HandProtocol, ProtocolError

MAX_HANDS = 200  # a tie at the top plays another hand (R15); this bounds a freak run


class MatchProtocol:
    """The log-driven state of a match for one peer (``me``), or for an observer
    (``me=None``): a spectator without ``decks``, the auditor with the revealed deck
    orders of each hand."""

    def __init__(self, cfg: TableConfig, me: int | None,
                 decks: dict[int, tuple[tuple[int, ...], ...]] | None = None,
                 me_from: int = 0) -> None:
        self.cfg = cfg
        self.me = me
        #: the first hand this peer plays as ``me``; earlier hands are followed as a
        #: spectator (a bot taking over a seat replays the match up to its first hand)
        self.me_from = me_from
        self.decks = decks
        self.scored: Match | None = None
        self.scores: list[tuple[SideScore, ...]] = []
        self.finished: list[dict[str, Any]] = []   # a summary of each finished hand
        #: hands that ended without a score by the remaining seats' agreement
        self.voided: list[int] = []
        #: the hand in which the match ended by agreement (None: it did not)
        self.ended_in: int | None = None
        #: the hand finished last, while the next one is in play (None after a void): a
        #: complaint about one of its shares may reach a peer that finished it while
        #: another honest peer has not, and both judge it (hostile pass 15)
        self.previous: HandProtocol | None = None
        self.hand = self._new_hand(0, None)

    def _new_hand(self, hand_no: int, first: int | None) -> HandProtocol:
        # The auditor replays with the revealed deck orders when it has them; without
        # them (a live observer, an unfinished hand) it follows as a spectator.
        me = self.me if hand_no >= self.me_from else None
        decks = None if me is not None or self.decks is None else self.decks.get(hand_no)
        totals = (self.scored.totals() if self.scored is not None
                  else (0,) * self.cfg.seating.n_teams)
        return HandProtocol(self.cfg, hand_no, first, me, decks, totals)

    def void(self, hand_no: int) -> bool:
        """End hand ``hand_no`` (the one in play) without a score, by the remaining seats'
        agreement, and deal the next one (its first player is the one the voided hand
        had: the rotation counts scored hands). False when that hand is not in play."""
        if self.done or hand_no != self.hand.hand_no or self.hand.done:
            return False
        self.voided.append(hand_no)
        first = self.scored.next_first_seat() if self.scored is not None else None
        self.previous = None
        self.hand = self._new_hand(hand_no + 1, first)
        return True

    def end_by_agreement(self, hand_no: int) -> bool:
        """The match ends in hand ``hand_no`` (the one in play) by agreement; that hand
        has no score. False when that hand is not in play."""
        if self.done or hand_no != self.hand.hand_no or self.hand.done:
            return False
        self.voided.append(hand_no)
        self.ended_in = hand_no
        return True

    def hand_for_shares(self, hand_no: int) -> HandProtocol | None:
        """The hand whose deck judges a share of hand ``hand_no``: the hand in play, or
        the one finished just before it (not a voided one); None for any other. One rule
        for live peers (``ReplicatedLog``) and ``verify``: a peer that had finished the
        hand set a complaint about its share aside while another, not there yet, judged
        it, and the two named different seats."""
        if hand_no == self.hand.hand_no:
            return self.hand
        if self.previous is not None and hand_no == self.previous.hand_no:
            return self.previous
        return None

    @property
    def hand_no(self) -> int:
        return self.hand.hand_no

    @property
    def done(self) -> bool:
        if self.ended_in is not None:
            return True
        return self.hand.done and (self.scored is not None and
                                   (self.scored.over or len(self.scored.hands) >= MAX_HANDS))

    def winner(self) -> int:
        return -1 if self.scored is None else self.scored.winner()

    def receive(self, hand_no: int, seat: int, body: Any) -> None:
        if self.done:
            raise ProtocolError(seat, "after-end", "the match is over")
        if hand_no != self.hand.hand_no:
            # An entry of a later hand is nobody's fault: the hand number is signed, so its
            # author wrote it in that hand; a peer's log takes an entry only in its own
            # hand, and only an edit of a file (a hand left out, or moved before an
            # earlier one) brings it here. Naming its author let whoever holds a copy
            # frame any seat (hostile pass 21). An entry of a hand that is over, in a
            # fresh slot linked to that hand's entries, only its author could sign.
            raise ProtocolError(seat if hand_no < self.hand.hand_no else None, "wrong-hand",
                                f"entry for hand {hand_no} while hand {self.hand.hand_no} runs")
        self.hand.receive(seat, body)
        if self.hand.done:
            self._hand_finished()

    def _hand_finished(self) -> None:
        hp = self.hand
        assert hp.state is not None and hp.first_seat is not None
        if self.scored is None:
            self.scored = Match(self.cfg.rules, self.cfg.seating, hp.first_seat)
        scores = score_hand(hp.state)
        self.scores.append(scores)
        # "hand": the hand's own number (a voided hand takes one: scored hands skip it)
        self.finished.append({"hand": hp.hand_no, "first_seat": hp.first_seat,
                              "turns": hp.state.turns,
                              "end": hp.state.end_reason, "digest": hp.state.digest()})
        self.scored = self.scored.record(scores)
        if not self.scored.over and len(self.scored.hands) < MAX_HANDS:
            self.previous = hp
            self.hand = self._new_hand(hp.hand_no + 1, self.scored.next_first_seat())
