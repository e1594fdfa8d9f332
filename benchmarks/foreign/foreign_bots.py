"""Adapter: the "Mille Borne AI Challenge" AIs (elliotkendall/mille-ai, ported to
Python 3 in ./mille) as millebornes plug-in bots (SeatController: choose(view, legal)).

Each call rebuilds their GameState from our view (hand, discardPile, us/opponents Team
objects, validMoves from our `legal`, target, cardsLeft), first feeding the AI
playerPlayed(player, move) for every new entry of view.history (every seat's plays,
discards and coups fourres, its own too, as their game.py notifies all players), and
handEnded(scoreSummary) when a new hand starts.  Their answer is mapped back to an
element of `legal`; an answer that is not one of their validMoves is replaced by a
discard of the first card of the hand, as their game.py does.

  draw    -> the pile draw of `legal` (their game has no choice there)
  play    -> ai.makeMove(state)
  respond -> ai.playCoupFourre(attackCard, state) when a CoupFourre is legal, else Pass
  extend  -> ai.goForExtension(state)

Deck composition: their Deck.composition (read by the card counters, joelai and
matthewgai) is set to the counts of view.deck, so with R1a (classic, 2-3 players, one of
each hazard removed) they count from the real 101-card deck.
"""

from __future__ import annotations

import logging
import os
from collections import Counter

from engine import Kind, kind
from engine.actions import CoupFourre, Discard, Draw, Extend, Pass, Play
from engine.cards import REMEDY_FOR

from mille.cards import Cards
from mille.deck import Deck
from mille.gamestate import GameState
from mille.move import Move
from mille.player import Player
from mille.team import Team

log = logging.getLogger("foreign_bots")

#: our Kind -> their card constant
K2C = {
    Kind.D25: Cards.MILEAGE_25, Kind.D50: Cards.MILEAGE_50, Kind.D75: Cards.MILEAGE_75,
    Kind.D100: Cards.MILEAGE_100, Kind.D200: Cards.MILEAGE_200,
    Kind.SPARE_TIRE: Cards.REMEDY_SPARE_TIRE, Kind.GASOLINE: Cards.REMEDY_GASOLINE,
    Kind.REPAIRS: Cards.REMEDY_REPAIRS, Kind.ROLL: Cards.REMEDY_GO,
    Kind.END_OF_LIMIT: Cards.REMEDY_END_OF_LIMIT,
    Kind.FLAT_TIRE: Cards.ATTACK_FLAT_TIRE, Kind.OUT_OF_GAS: Cards.ATTACK_OUT_OF_GAS,
    Kind.ACCIDENT: Cards.ATTACK_ACCIDENT, Kind.STOP: Cards.ATTACK_STOP,
    Kind.SPEED_LIMIT: Cards.ATTACK_SPEED_LIMIT,
    Kind.PUNCTURE_PROOF: Cards.SAFETY_PUNCTURE_PROOF, Kind.EXTRA_TANK: Cards.SAFETY_EXTRA_TANK,
    Kind.DRIVING_ACE: Cards.SAFETY_DRIVING_ACE, Kind.RIGHT_OF_WAY: Cards.SAFETY_RIGHT_OF_WAY,
}
assert len(K2C) == 19


def c(card: int) -> int:
    """our card id -> their card constant"""
    return K2C[kind(card)]


STATS = Counter()  # invalid answers etc., per process (logged)


class ForeignBot:
    """Wraps one of their AI classes as a SeatController."""

    def __init__(self, ai_class, name):
        self.ai_class = ai_class
        self.name = name
        self.ai = None
        self.hist = ()
        self.scores = None
        self.strict = os.environ.get("FOREIGN_STRICT") == "1"

    # ---- their picture of the table ------------------------------------------------
    def _team(self, view, side, zone):
        t = Team(side)
        t.playerNumbers = list(view.seating.seats_of(side))
        t.totalScore = view.match_scores[side] if view.match_scores else 0
        t.mileage = zone.km
        t.mileagePile = [c(x) for x in zone.distance]
        t.speedPile = [c(x) for x in zone.speed]
        t.battlePile = [c(x) for x in zone.battle]
        t.safeties = [c(x) for x in zone.safeties]
        t.coupFourres = len(zone.coups)
        t.moving = zone.moving(view.rules)
        t.speedLimit = zone.limited()
        hz = zone.hazard_in_force()
        if hz is not None:
            t.needRemedy = K2C[REMEDY_FOR[hz]]
        elif not zone.rolling(view.rules):
            t.needRemedy = Cards.REMEDY_GO
        else:
            t.needRemedy = None
        t.safeTrip = zone.n200 == 0
        t.twoHundredsPlayed = zone.n200
        t.handScore = 0
        return t

    def _state(self, view, legal=None):
        me = view.viewer
        my_side = view.side_of(me)
        zones = list(view.zones)
        if view.phase == "respond" and view.attack is not None:
            # their playCoupFourre is asked before the hazard is laid
            a = view.attack
            zones[a.side] = zones[a.side].without_top(a.card)
        s = GameState()
        hand = view.hand(me)
        s.hand = [c(x) for x in hand]
        s.discardPile = [c(x) for x in view.discard]
        s.us = self._team(view, my_side, zones[my_side])
        s.opponents = [self._team(view, side, zones[side])
                       for side in range(view.seating.n_teams) if side != my_side]
        s.target = view.target
        s.cardsLeft = view.pile_size()
        if legal is not None:
            # their findValidPlays order: per card of the hand, its discard, then its plays
            for card in hand:
                k = c(card)
                if Discard(me, card) in legal:
                    s.validMoves.append(Move(Move.DISCARD, k))
                plays = sorted((a for a in legal if type(a) is Play and a.card == card),
                               key=lambda a: -1 if a.target is None else a.target)
                for a in plays:
                    if Cards.cardToType(k) == Cards.ATTACK:
                        s.validMoves.append(Move(Move.PLAY, k, a.target))
                    else:
                        s.validMoves.append(Move(Move.PLAY, k))
        return s

    # ---- notifications ------------------------------------------------------------------
    def _catch_up(self, view):
        h = view.history
        n = len(self.hist)
        new_hand = self.ai is None or len(h) < n or h[:n] != self.hist or \
            (self.scores is not None and tuple(view.match_scores) != self.scores)
        if new_hand:
            comp = Counter(c(x) for x in view.deck)
            composition = {k: comp.get(k, 0) for k in range(19)}
            if Deck.composition != composition:
                Deck.composition = composition
            if self.ai is None:
                self.ai = self.ai_class()
            else:
                self.ai.handEnded(self._summary(view))
            n = 0
            self.scores = tuple(view.match_scores)
        for a in h[n:]:
            t = type(a)
            if t is Play:
                k = c(a.card)
                if Cards.cardToType(k) == Cards.ATTACK:
                    mv = Move(Move.PLAY, k, a.target)
                else:
                    mv = Move(Move.PLAY, k)
            elif t is Discard:
                mv = Move(Move.DISCARD, c(a.card))
            elif t is CoupFourre:
                mv = Move(Move.PLAY, c(a.card), None, True)
            else:
                continue
            p = Player()
            p.number = a.seat
            p.teamNumber = view.side_of(a.seat)
            self.ai.playerPlayed(p, mv)
        self.hist = h

    def _summary(self, view):
        # their handEnded gets game.py's score summary; only "Team i" / "Total: n" lines
        # are read (matthewgai); the hand's score is the change of the match totals.
        out = ""
        for side in range(view.seating.n_teams):
            before = self.scores[side] if self.scores else 0
            after = view.match_scores[side] if view.match_scores else 0
            out += "Team %d\n  Total: %d\n" % (side, after - before)
        return out

    # ---- SeatController ----------------------------------------------------------------
    def choose(self, view, legal):
        me = view.viewer
        phase = view.phase
        if phase == "draw":
            for a in legal:
                if type(a) is Draw and a.source == "pile":
                    return a
            return legal[0]
        self._catch_up(view)
        if phase == "respond":
            cf = [a for a in legal if type(a) is CoupFourre]
            if cf:
                state = self._state(view)
                if self.ai.playCoupFourre(c(view.attack.card), state):
                    return cf[0]
            for a in legal:
                if type(a) is Pass:
                    return a
            return legal[0]
        if phase == "extend":
            state = self._state(view)
            want = bool(self.ai.goForExtension(state))
            for a in legal:
                if type(a) is Extend and a.extend == want:
                    return a
            return legal[0]
        # play
        state = self._state(view, legal)
        valid = list(state.validMoves)
        by_key = {}
        for a in legal:
            if type(a) is Play:
                k = c(a.card)
                tgt = a.target if Cards.cardToType(k) == Cards.ATTACK else None
                by_key.setdefault((Move.PLAY, k, tgt), a)
            elif type(a) is Discard:
                by_key.setdefault((Move.DISCARD, c(a.card), None), a)
        try:
            move = self.ai.makeMove(state)
        except Exception:
            if self.strict:
                raise
            STATS["exception"] += 1
            log.exception("%s raised in makeMove", self.name)
            move = None
        if move is None or move not in valid or \
                (move.type, move.card, move.target) not in by_key:
            # their game.py: "Warning: invalid play", discard the first card of the hand
            STATS["invalid"] += 1
            log.warning("%s: invalid play %s, discarding the first card", self.name,
                        move if move is None else str(move))
            first = view.hand(me)[0]
            d = Discard(me, first)
            if d in legal:
                return d
            return next(a for a in legal if type(a) is Discard)
        return by_key[(move.type, move.card, move.target)]


def _factory(module, cls, name):
    def make(seed=0, **options):
        import importlib
        mod = importlib.import_module("mille." + module)
        return ForeignBot(getattr(mod, cls), name)
    return make


make_basic = _factory("sampleais", "BasicAI", "ext-basic")
make_elliot = _factory("elliotai", "ElliotAI", "ext-elliot")
make_joel = _factory("joelai", "JoelAI", "ext-joel")
make_kevin = _factory("kevin", "KevinAI", "ext-kevin")
make_matthewg = _factory("matthewgai", "MatthewgAI", "ext-matthewg")
make_jon = _factory("Jon_AI", "Jon_AI", "ext-jon")


if os.environ.get("FOREIGN_STATS") == "1":
    import atexit
    import sys

    @atexit.register
    def _report():
        print("foreign_bots stats (pid %d): %s" % (os.getpid(), dict(STATS)), file=sys.stderr)
