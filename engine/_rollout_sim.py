"""A rollout-only fast path: one hand played on in place, on plain ints and lists.

The engine (:mod:`engine.game`) is written to be read: every action builds a new immutable
:class:`~engine.state.HandState`, checks the action and names the rule it breaks. The
search bot's rollouts need none of that (the actions come from the rules themselves, no
one watches the states in between), and they are nearly all of its thinking time. So a
rollout copies the full-information state once into a :class:`RolloutSim` (hands, piles
and zones as lists, kinds and families as ints, safeties as a bit mask per side), plays on by
changing it in place, and turns it back into a ``HandState`` only at the end for the
evaluation. The same rules, written a second time for speed: ``tests/test_rollout_sim.py``
plays random and heuristic hands of every supported rule set through both, step by step,
and checks that the legal moves (same list, same order) and the whole state after each
move are the engine's.

Supported (:func:`supported`): full-information states of every rule set and seating.
Seats' views (hidden hands, a pile of unknown order) go through the engine.

A move is an ``int`` (:data:`DISCARD`, :data:`ATTACK` ... plus a card id); it converts
to and from the engine's actions with :func:`to_action` and :func:`move_of`.
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Final

from ._rollout_policy import DEAD_WITH, KEEP, PLAY_SCORE
from .actions import Action, CoupFourre, Discard, Draw, Extend, FastDiscard, FastRemedy, Pass, Play
from .cards import (
    BATTLE_HAZARD_GUARD,
    DISTANCE_OF,
    FAMILY_OF,
    HAZARD_FOR_REMEDY,
    KIND_OF,
    REMEDY_FOR,
    SAFETY_FOR,
    Family,
    Kind,
)
from .game import new_hand
from .rules import NO_SIDE, Rules, Seating
from .state import (
    DRAW,
    EXTEND,
    HAND_SIZE,
    NEXT_TURN,
    OVER,
    PLAY,
    REPLACEMENT_DRAW,
    RESHUFFLE,
    RESPOND,
    TURN_DRAW,
    Attack,
    HandState,
    Zone,
)

# ----- cards as plain ints ------------------------------------------------------------
# (IntEnum members compare and hash slower than ints: the tables below hold ints.)

_KIND: Final = tuple(int(k) for k in KIND_OF)
_FAM: Final = tuple(int(f) for f in FAMILY_OF)
_DIST: Final = DISTANCE_OF
_D_DISTANCE, _D_HAZARD, _D_REMEDY, _D_SAFETY = (int(f) for f in Family)
_ROLL: Final = int(Kind.ROLL)
_STOP: Final = int(Kind.STOP)
_SPEED_LIMIT: Final = int(Kind.SPEED_LIMIT)
_END_OF_LIMIT: Final = int(Kind.END_OF_LIMIT)
_D200: Final = int(Kind.D200)
_FIRST_SAFETY: Final = int(Kind.RIGHT_OF_WAY)


def _bit(k: Kind | None) -> int:
    """A safety kind's bit in a side's safety mask (0 for no safety)."""
    return 0 if k is None else 1 << (int(k) - _FIRST_SAFETY)


_ROW_BIT: Final = _bit(Kind.RIGHT_OF_WAY)
#: Card id -> its bit in the safety mask when it is a safety (R8), else 0.
_SAFE_BIT: Final = tuple(_bit(k) if _FAM[c] == _D_SAFETY else 0 for c, k in enumerate(KIND_OF))
#: Card id -> the bit of the safety that covers it on top of a battle pile (R6, R8), 0 for
#: a card that is no battle hazard.
_GUARD_BIT: Final = tuple(_bit(KIND_OF[BATTLE_HAZARD_GUARD[c]]) if c in BATTLE_HAZARD_GUARD
                          else 0 for c in range(len(KIND_OF)))
#: Card id -> the bit of the safety that protects a zone from it, for every hazard (R6).
_PROTECT_BIT: Final = tuple(_bit(SAFETY_FOR[k]) if _FAM[c] == _D_HAZARD else 0
                            for c, k in enumerate(KIND_OF))
#: Remedy kind -> the hazard kind it cures (R7); -1 for the others.
_CURES: Final = tuple(int(HAZARD_FOR_REMEDY[Kind(k)]) if Kind(k) in HAZARD_FOR_REMEDY else -1
                      for k in range(len(Kind)))
#: Hazard kind -> the kind of the safety that answers it as a coup fourre (R9); -1 else.
_ANSWER: Final = tuple(int(SAFETY_FOR[Kind(k)]) if Kind(k) in SAFETY_FOR else -1
                       for k in range(len(Kind)))
#: Hazard kind -> the kind of the remedy that answers it out of turn (R10a); -1 else.
_REMEDY: Final = tuple(int(REMEDY_FOR[Kind(k)]) if Kind(k) in REMEDY_FOR else -1
                       for k in range(len(Kind)))
#: Card id -> the bit of the safety that makes it dead to the rollout policy, 0 for none.
_DEAD_BIT: Final = tuple(_bit(k) for k in DEAD_WITH)
_LONGEST: Final = max(DISTANCE_OF)

# ----- moves as ints ------------------------------------------------------------------

#: A play on the player's own zone is the card id; a hazard on side ``t`` is
#: ``ATTACK * (t + 1) + card``; the others add the card id (if any) to these bases.
ATTACK: Final = 128
DISCARD: Final = 1024
DRAW_PILE: Final = 2048
DRAW_DISCARD: Final = 2049
PASS: Final = 3072
COUP: Final = 3200
FAST_REMEDY: Final = 3328
EXTEND_NO: Final = 4096
EXTEND_YES: Final = 4097
#: R10b: a fast discard is ``FAST_DISCARD`` plus its cards, 7 bits each (card id + 1),
#: the first card lowest.
FAST_DISCARD: Final = 1 << 64
_CARD_BITS: Final = 7
_CARD_MASK: Final = (1 << _CARD_BITS) - 1

_TURN_START: Final = (TURN_DRAW,)
_AFTER_COUP: Final = (REPLACEMENT_DRAW, TURN_DRAW)


def supported(state: HandState) -> bool:
    """Whether :class:`RolloutSim` plays this state by the engine's rules: a full-information
    state (in a seat's view the hidden hands and pile are counts, which only the engine
    follows)."""
    return state.viewer is None and not isinstance(state.pile, int)


def _fast_discard(cards: tuple[int, ...]) -> int:
    """The move that throws ``cards`` away at once (R10b)."""
    packed = 0
    for i, c in enumerate(cards):
        packed |= (c + 1) << (_CARD_BITS * i)
    return FAST_DISCARD + packed


def _fast_discarded(move: int) -> tuple[int, ...]:
    """The cards of a fast discard move (the inverse of :func:`_fast_discard`)."""
    packed = move - FAST_DISCARD
    cards: list[int] = []
    while packed:
        cards.append((packed & _CARD_MASK) - 1)
        packed >>= _CARD_BITS
    return tuple(cards)


def to_action(seat: int, move: int) -> Action:
    """The engine's action for ``seat``'s ``move`` (a draw from the pile names no card)."""
    if move < DISCARD:
        target, card = divmod(move, ATTACK)
        return Play(seat, card, target - 1 if target else None)
    if move < DRAW_PILE:
        return Discard(seat, move - DISCARD)
    if move < PASS:
        return Draw(seat, "pile" if move == DRAW_PILE else "discard")
    if move == PASS:
        return Pass(seat)
    if move < FAST_REMEDY:
        return CoupFourre(seat, move - COUP)
    if move < EXTEND_NO:
        return FastRemedy(seat, move - FAST_REMEDY)
    if move < FAST_DISCARD:
        return Extend(seat, move == EXTEND_YES)
    return FastDiscard(seat, _fast_discarded(move))


def move_of(action: Action) -> int:
    """The move for one of the engine's actions (the inverse of :func:`to_action`)."""
    if isinstance(action, Play):
        return action.card + (0 if action.target is None else ATTACK * (action.target + 1))
    if isinstance(action, Discard):
        return DISCARD + action.card
    if isinstance(action, Draw):
        return DRAW_PILE if action.source == "pile" else DRAW_DISCARD
    if isinstance(action, Pass):
        return PASS
    if isinstance(action, CoupFourre):
        return COUP + action.card
    if isinstance(action, FastRemedy):
        return FAST_REMEDY + action.card
    if isinstance(action, Extend):
        return EXTEND_YES if action.extend else EXTEND_NO
    if isinstance(action, FastDiscard):
        return _fast_discard(action.cards)
    raise ValueError(f"{action!r} has no move in the fast path")


class RolloutSim:
    """One hand, changed in place. The fields mirror :class:`HandState`'s (see there);
    a zone is spread over per-side lists (``battle[side]`` ...), with ``safe[side]`` the
    mask of its safeties; the hazard waiting for answers is ``attack_card`` (-1: none),
    played by ``attacker`` on ``attack_side`` (whose seats are ``responders``; those that
    passed are in ``passed``; ``stage`` 2 is O-fast-play's remedy round, R10a)."""

    __slots__ = ("state", "rules", "n", "n_teams", "target", "hands", "pile", "discard",
                 "battle", "speed", "distance", "safeties", "coups", "started", "km", "n200",
                 "safe", "phase", "seat", "turn_seat", "pending", "after", "attacker",
                 "attack_card", "attack_side", "responders", "passed", "stage", "turns",
                 "pile_drawn", "reshuffles", "idle_reshuffles", "progress", "extended_by",
                 "completed_by", "completed_after_exhaustion", "end_reason",
                 "roll_after_remedy", "start_rolling", "exact_finish", "stack_hazards",
                 "attacker_started", "draw_discard", "may_reshuffle", "reshuffle_limit",
                 "max_turns", "extension", "fast_play")

    def __init__(self, state: HandState) -> None:
        if not supported(state):
            raise ValueError("the fast path plays full-information states only")
        self.state = state  # for what never changes (rules, seating, deck...) in to_state
        rules = self.rules = state.rules
        self.n = state.seating.n_players
        self.n_teams = state.seating.n_teams
        self.target = state.target
        self.hands = [list(h) for h in state.hands]  # type: ignore[arg-type]
        self.pile = list(state.pile)  # type: ignore[arg-type]
        self.discard = list(state.discard)
        zones = state.zones
        self.battle = [list(z.battle) for z in zones]
        self.speed = [list(z.speed) for z in zones]
        self.distance = [list(z.distance) for z in zones]
        self.safeties = [list(z.safeties) for z in zones]
        self.coups = [list(z.coups) for z in zones]
        self.started = [z.started for z in zones]
        self.km = [z.km for z in zones]
        self.n200 = [z.n200 for z in zones]
        self.safe = [sum(_SAFE_BIT[c] for c in z.safeties) for z in zones]
        self.phase = state.phase
        self.seat = state.seat
        self.turn_seat = state.turn_seat
        self.pending = state.pending
        self.after = state.after
        a = state.attack
        if a is None:
            self.attacker = self.attack_card = self.attack_side = -1
            self.responders: tuple[int, ...] = ()
            self.passed: list[int] = []
            self.stage = 1
        else:
            # (any other answer settles the window at once: only passes are ever stored)
            self.attacker, self.attack_card, self.attack_side = a.attacker, a.card, a.side
            self.responders = a.responders
            self.passed = [x.seat for x in a.answers]
            self.stage = a.stage
        self.turns = state.turns
        self.pile_drawn = state.pile_drawn
        self.reshuffles = state.reshuffles
        self.idle_reshuffles = state.idle_reshuffles
        self.progress = state.progress
        self.extended_by = state.extended_by
        self.completed_by = state.completed_by
        self.completed_after_exhaustion = state.completed_after_exhaustion
        self.end_reason = state.end_reason
        # The options, read at every move, as attributes.
        self.roll_after_remedy = rules.roll_after_remedy
        self.start_rolling = rules.start_rolling
        self.exact_finish = rules.exact_finish
        self.stack_hazards = rules.stack_hazards
        self.attacker_started = rules.attacker_started
        self.draw_discard = rules.draw_discard
        self.may_reshuffle = rules.exhaustion == "reshuffle"
        self.reshuffle_limit = rules.reshuffle_limit
        self.max_turns = rules.max_turns
        self.extension = rules.extension
        self.fast_play = rules.fast_play

    def to_state(self) -> HandState:
        """The engine's state for where the hand is now (its ``history`` is the one of the
        state the simulator started from: no rule and no rollout reads it)."""
        zones = tuple(
            Zone(tuple(self.battle[s]), tuple(self.speed[s]), tuple(self.distance[s]),
                 tuple(self.safeties[s]), tuple(self.coups[s]), self.started[s], self.km[s],
                 self.n200[s]) for s in range(self.n_teams))
        attack = None if self.attack_card < 0 else Attack(
            self.attacker, self.attack_card, self.attack_side, self.responders,
            tuple(Pass(s) for s in self.passed), self.stage)
        return self.state._replace(
            target=self.target, hands=tuple(tuple(h) for h in self.hands),
            pile=tuple(self.pile), discard=tuple(self.discard), zones=zones, phase=self.phase,
            seat=self.seat, turn_seat=self.turn_seat, pending=self.pending, after=self.after,
            attack=attack,
            turns=self.turns, pile_drawn=self.pile_drawn, reshuffles=self.reshuffles,
            idle_reshuffles=self.idle_reshuffles, progress=self.progress,
            extended_by=self.extended_by, completed_by=self.completed_by,
            completed_after_exhaustion=self.completed_after_exhaustion,
            end_reason=self.end_reason)

    # ----- a zone (R5-R8): the engine's Zone queries and legality rules ----------------

    def _in_force(self, side: int) -> int:
        """The kind of the battle hazard in force on ``side`` (R6, R8), -1 for none."""
        battle = self.battle[side]
        if battle:
            top = battle[-1]
            guard = _GUARD_BIT[top]
            if guard and not self.safe[side] & guard:
                return _KIND[top]
        return -1

    def _rolling(self, side: int) -> bool:
        """R5 once no battle hazard is in force (``Zone.rolling``)."""
        if self.safe[side] & _ROW_BIT:
            return True
        if self.roll_after_remedy:
            battle = self.battle[side]
            return _KIND[battle[-1]] == _ROLL if battle else self.start_rolling
        return self.started[side]

    def _limited(self, side: int) -> bool:
        """R5b: a Speed Limit shows and Right of Way is not out."""
        speed = self.speed[side]
        return bool(speed) and _KIND[speed[-1]] == _SPEED_LIMIT \
            and not self.safe[side] & _ROW_BIT

    def _cap(self, side: int) -> int:
        """The longest distance card ``side`` may play now, 0 for none (R5-R5d)."""
        if self._in_force(side) >= 0 or not self._rolling(side):
            return 0
        cap = 50 if self._limited(side) else _LONGEST
        if self.n200[side] >= 2 and cap > 100:
            cap = 100
        if self.exact_finish:
            left = self.target - self.km[side]
            if left < _LONGEST and left < cap:
                cap = left
        return cap

    def _remedy_ok(self, side: int, k: int) -> bool:
        """R7: may remedy kind ``k`` go on ``side``'s own zone?"""
        if k == _END_OF_LIMIT:
            return self._limited(side)
        in_force = self._in_force(side)
        if k == _ROLL:
            if in_force >= 0:
                return in_force == _STOP
            if self.roll_after_remedy:
                if not self._rolling(side):
                    return True
                battle = self.battle[side]  # R8: Right of Way over a cured hazard
                return bool(self.safe[side] & _ROW_BIT and battle
                            and _KIND[battle[-1]] != _ROLL)
            return not self.started[side]
        return in_force == _CURES[k]

    def _hazard_ok(self, side: int, card: int, may_attack: bool) -> bool:
        """R6, R6a: may hazard ``card`` go on ``side`` (an opponent's)?"""
        if self.safe[side] & _PROTECT_BIT[card]:
            return False
        k = _KIND[card]
        if k == _SPEED_LIMIT:
            return not self._limited(side)
        if not may_attack:
            return False
        in_force = self._in_force(side)
        if in_force >= 0:
            return self.stack_hazards and in_force != k
        return self._rolling(side)

    def _may_attack(self, side: int) -> bool:
        """R6a (O-attacker-started)."""
        return not self.attacker_started or self.started[side]

    # ----- legal moves -----------------------------------------------------------------

    def actor(self) -> int:
        """Who acts now (the first seat still to answer a hazard); -1 at a reshuffle (chance)
        or when the hand is over."""
        phase = self.phase
        if phase == RESPOND:
            for s in self.responders:
                if s not in self.passed:
                    return s
        if phase == RESHUFFLE or phase == OVER:
            return -1
        return self.seat

    def legal_moves(self, seat: int) -> list[int]:
        """``seat``'s legal moves (it must be :meth:`actor`), in ``legal_actions``' order:
        plays in hand order (a hazard by target side), then discards, then (R10b) fast
        discards, smallest first; a draw from the pile, then from the discard pile (R4a);
        pass, then coup fourre (R9) or, in the second round, remedy (R10a); extend, then
        not."""
        phase = self.phase
        hand = self.hands[seat]
        if phase == PLAY:
            side = seat % self.n_teams
            cap = self._cap(side)
            may_attack = self._may_attack(side)
            out: list[int] = []
            judged = -1
            ok = False
            targets: list[int] = []
            for c in hand:
                fam = _FAM[c]
                if fam == _D_DISTANCE:
                    if _DIST[c] <= cap:
                        out.append(c)
                elif fam == _D_SAFETY:
                    out.append(c)
                elif fam == _D_REMEDY:
                    k = _KIND[c]
                    if k != judged:
                        judged, ok = k, self._remedy_ok(side, k)
                    if ok:
                        out.append(c)
                else:
                    k = _KIND[c]
                    if k != judged:
                        judged = k
                        targets = [ATTACK * (t + 1) for t in range(self.n_teams)
                                   if t != side and self._hazard_ok(t, c, may_attack)]
                    out.extend(t + c for t in targets)
            out.extend(DISCARD + c for c in hand)
            if self.fast_play:
                out.extend(_fast_discard(cards) for size in range(2, len(hand) + 1)
                           for cards in combinations(hand, size))
            return out
        if phase == DRAW:
            if self.pending[0] == TURN_DRAW and self.draw_discard and self.discard:
                return [DRAW_PILE, DRAW_DISCARD]
            return [DRAW_PILE]
        if phase == EXTEND:
            return [EXTEND_YES, EXTEND_NO]
        hazard = _KIND[self.attack_card]  # RESPOND
        if self.stage == 1:
            return [PASS] + [COUP + c for c in hand if _KIND[c] == _ANSWER[hazard]]
        remedy = _REMEDY[hazard]
        side = seat % self.n_teams
        return [PASS] + [FAST_REMEDY + c for c in hand
                         if _KIND[c] == remedy and self._remedy_ok(side, remedy)]

    # ----- moves -----------------------------------------------------------------------

    def apply(self, seat: int, move: int) -> None:
        """Make ``seat``'s legal ``move`` (not checked: the moves come from
        :meth:`legal_moves` or the rollout policy)."""
        if move < DISCARD:
            target, card = divmod(move, ATTACK)
            self._play(seat, card, target - 1)
        elif move < DRAW_PILE:
            self.hands[seat].remove(move - DISCARD)
            self.discard.append(move - DISCARD)
            self._next_turn(seat + 1)
        elif move < PASS:
            self._draw(seat, move == DRAW_DISCARD)
        elif move == PASS:
            self._pass(seat)
        elif move < FAST_REMEDY:
            self._coup_fourre(seat, move - COUP)
        elif move < EXTEND_NO:
            self._fast_remedy(seat, move - FAST_REMEDY)
        elif move >= FAST_DISCARD:
            self._fast_discard(seat, _fast_discarded(move))
        elif move == EXTEND_YES:
            self.target = 1000
            self.extended_by = seat % self.n_teams
            self._next_turn(seat + 1)
        else:
            self._end("trip", seat % self.n_teams)

    def reshuffle(self, order: list[int]) -> None:
        """R4b: the discard pile, in ``order`` (top first), becomes the draw pile."""
        order.reverse()
        self.pile = order
        self.discard = []
        self.pile_drawn = 0
        self.reshuffles += 1
        if not self.progress:
            self.idle_reshuffles += 1
        self.progress = False
        self.phase = DRAW
        self._settle()

    def _draw(self, seat: int, from_discard: bool) -> None:
        if from_discard:  # R4a
            card = self.discard.pop()
        else:
            card = self.pile.pop()
            self.pile_drawn += 1
        insort(self.hands[seat], card)  # hands are kept sorted
        pending = self.pending = self.pending[1:]
        if pending:  # more draws due: the pile may have run out (R4b)
            self._settle()
        elif self.after == NEXT_TURN:  # R10: drawn back up, the turn passes on
            self._next_turn(self.turn_seat + 1)
        else:
            self.phase = PLAY

    def _play(self, seat: int, card: int, target: int) -> None:
        self.hands[seat].remove(card)
        fam = _FAM[card]
        if fam == _D_HAZARD:  # R6: on an opponent's zone, which may answer (R9)
            self._lay(target, card)
            self.phase = RESPOND
            self.attacker, self.attack_card, self.attack_side = seat, card, target
            self.responders = tuple(range(target, self.n, self.n_teams))
            self.passed = []
            self.stage = 1
            return
        side = seat % self.n_teams
        self._lay(side, card)
        if fam == _D_DISTANCE:  # R5; R11: the trip may be done
            self.progress = True
            if self.km[side] >= self.target:
                if self.target < 1000 and self.extension and self.extended_by == NO_SIDE:
                    self.phase = EXTEND  # R12
                    self.seat = seat
                else:
                    self._end("trip", side)
                return
            self._next_turn(seat + 1)
        elif fam == _D_REMEDY:  # R7
            self._next_turn(seat + 1)
        else:  # R8: a safety, then an extra turn (not counted as a new one)
            self.phase = DRAW
            self.pending = _TURN_START
            self._settle()

    def _lay(self, side: int, card: int) -> None:
        """``Zone.lay`` in place (not as a coup fourre)."""
        fam = _FAM[card]
        k = _KIND[card]
        if fam == _D_DISTANCE:
            self.distance[side].append(card)
            self.km[side] += _DIST[card]
            if k == _D200:
                self.n200[side] += 1
        elif fam == _D_SAFETY:
            self.safeties[side].append(card)
            self.safe[side] |= _SAFE_BIT[card]
            if _SAFE_BIT[card] == _ROW_BIT:
                self.started[side] = True
        elif k == _SPEED_LIMIT or k == _END_OF_LIMIT:
            self.speed[side].append(card)
        else:
            self.battle[side].append(card)
            if k == _ROLL:
                self.started[side] = True

    def _pass(self, seat: int) -> None:
        self.passed.append(seat)
        if len(self.passed) < len(self.responders):
            return
        if self.stage == 1 and self.fast_play:
            # R10a: the remedy round asks one seat at a time, from the attacker's left.
            n, attacker = self.n, self.attacker
            self.responders = tuple(sorted(self.responders, key=lambda s: (s - attacker) % n))
            self.passed = []
            self.stage = 2
            return
        self._next_turn(self.attacker + 1)  # the hazard stands

    def _fast_remedy(self, seat: int, card: int) -> None:
        """R10a: the remedy lies on the hazard, its player draws a replacement card, and play
        goes on from the attacker's left."""
        self.hands[seat].remove(card)
        self._lay(self.attack_side, card)
        self.attack_card = -1
        self.phase = DRAW
        self.seat = seat
        self.turn_seat = self.attacker
        self.pending = (REPLACEMENT_DRAW,)
        self.after = NEXT_TURN
        self._settle()

    def _fast_discard(self, seat: int, cards: tuple[int, ...]) -> None:
        """R10b: several cards to the discard pile, then draw back up to six; the turn ends."""
        hand = self.hands[seat]
        for c in cards:
            hand.remove(c)
        self.discard.extend(cards)
        need = HAND_SIZE - len(hand)
        if need <= 0:
            self._next_turn(seat + 1)
            return
        self.phase = DRAW
        self.pending = (REPLACEMENT_DRAW,) * need
        self.after = NEXT_TURN
        self._settle()

    def _coup_fourre(self, seat: int, card: int) -> None:
        """R9: the hazard goes to the discard pile, the safety lies sideways, and the turn
        passes to the answering seat (a replacement draw, then its turn's)."""
        hazard, side = self.attack_card, self.attack_side
        self.hands[seat].remove(card)
        (self.speed if _KIND[hazard] == _SPEED_LIMIT else self.battle)[side].pop()
        self._lay(side, card)
        self.coups[side].append(card)
        self.discard.append(hazard)
        self._next_turn(seat, _AFTER_COUP)

    # ----- turn flow (R4, R4b, R13) ------------------------------------------------------

    def _can_reshuffle(self) -> bool:
        return self.may_reshuffle and bool(self.discard) and (
            self.progress or self.idle_reshuffles < self.reshuffle_limit)

    def _next_turn(self, seat: int, pending: tuple[str, ...] = _TURN_START) -> None:
        """The turn passes to ``seat`` (or the hand ends at the turn bound, R4b)."""
        if self.turns >= self.max_turns:
            self._end("turn_limit", NO_SIDE)
            return
        seat %= self.n
        self.phase = DRAW
        self.seat = self.turn_seat = seat
        self.pending = pending
        self.after = PLAY
        self.attack_card = -1  # no hazard waiting (the other attack fields are stale)
        self.turns += 1
        if not self.pile:
            self._settle()

    def _settle(self) -> None:
        """The automatic steps: an exhausted pile, an empty hand (``engine.game._settle``)."""
        while True:
            phase = self.phase
            if phase == DRAW:
                if self.pile:
                    return
                if self._can_reshuffle():
                    self.phase = RESHUFFLE
                    return
                if self.after == PLAY:  # R4b: no more drawing; the pending draws lapse
                    self.pending = ()
                    self.phase = PLAY
                else:
                    self._next_turn(self.turn_seat + 1)
                continue
            if phase == PLAY and not self.hands[self.seat]:
                if not any(self.hands) and not self._can_reshuffle():
                    self._end("exhausted", NO_SIDE)
                else:
                    self._next_turn(self.seat + 1)  # a player with no card passes
                continue
            return

    def _end(self, reason: str, completed_by: int) -> None:
        """R13: the hand is over (``completed_by``: the side that made the trip, if any)."""
        self.phase = OVER
        self.end_reason = reason
        self.completed_by = completed_by
        self.completed_after_exhaustion = completed_by != NO_SIDE and not self.pile
        self.pending = ()
        self.attack_card = -1  # no hazard waiting (the other attack fields are stale)

    # ----- the search bot's rollout ----------------------------------------------------

    def rollout(self, rng: random.Random, horizon: int) -> None:
        """Play on for at most ``horizon`` moves with the search bot's rollout policy
        (``engine._bot_search.rollout``): the same moves, and the same numbers drawn from
        ``rng`` in the same order, as that loop over the engine."""
        rand = rng.random
        n = 0
        while n < horizon:
            phase = self.phase
            if phase == PLAY:
                seat = self.seat
                self.apply(seat, self.policy_play(seat, rand))
            elif phase == DRAW:
                self._draw(self.seat, False)
            elif phase == RESPOND:
                seat = self.actor()
                moves = self.legal_moves(seat)
                self.apply(seat, moves[-1])  # a coup fourre whenever the seat holds one
            elif phase == RESHUFFLE:
                order = list(self.discard)
                rng.shuffle(order)
                self.reshuffle(order)
            elif phase == EXTEND:
                self.apply(self.seat, EXTEND_NO)
            else:
                return
            n += 1

    def policy_play(self, seat: int, rand: Callable[[], float]) -> int:
        """``rollout_choice`` at a play, on the fast representation: the greedy best play
        (with noise) or the least useful card thrown away. It draws one number per legal
        play and per discard (and one more per dead card) in the order of
        :meth:`legal_moves`, as ``rollout_choice`` does over ``legal_actions``."""
        side = seat % self.n_teams
        hand = self.hands[seat]
        cap = self._cap(side)
        may_attack = self._may_attack(side)
        row = self.safe[side] & _ROW_BIT
        best = -1
        best_score = 0.0
        judged = -1
        ok = False
        targets: list[int] = []
        for c in hand:
            fam = _FAM[c]
            if fam == _D_HAZARD:
                k = _KIND[c]
                if k != judged:
                    judged = k
                    targets = [ATTACK * (t + 1) for t in range(self.n_teams)
                               if t != side and self._hazard_ok(t, c, may_attack)]
                for t in targets:
                    score = PLAY_SCORE[c] + 10.0 * rand()
                    if score > best_score:
                        best, best_score = t + c, score
                continue
            if fam == _D_DISTANCE:
                if _DIST[c] > cap:
                    continue
            elif fam == _D_REMEDY:
                k = _KIND[c]
                if k != judged:
                    judged, ok = k, self._remedy_ok(side, k)
                if not ok:
                    continue
                if k == _ROLL and row:
                    rand()
                    continue  # a Roll that changes nothing
            score = PLAY_SCORE[c] + 10.0 * rand()
            if score > best_score:
                best, best_score = c, score
        worst = -1
        worst_keep = 1e9
        # A remedy is dead once its safety is in its own zone; a hazard once every
        # opponent has the safety against it (the safeties all opponents have, as a mask).
        mine = self.safe[side]
        theirs = -1
        for t, mask in enumerate(self.safe):
            if t != side:
                theirs &= mask
        for c in hand:
            keep = KEEP[c] + 10.0 * rand()
            dead = _DEAD_BIT[c]
            if keep > 20.0 and dead & (mine if _FAM[c] == _D_REMEDY else theirs):
                keep = rand()  # a dead card goes first
            if keep < worst_keep:
                worst, worst_keep = c, keep
        if best >= 0 and (best_score > 20.0 or worst < 0 or worst_keep > 60.0):
            return best
        if worst >= 0:
            return DISCARD + worst
        return self.legal_moves(seat)[0]


def random_hand(rules: Rules, seating: Seating, rngs: Sequence[random.Random],
                dealer: random.Random, first_seat: int) -> tuple[HandState, int]:
    """A hand of uniformly random moves played through the fast path, and its number of
    moves: the hand ``engine.simulate.play_hand`` plays with ``RandomBot``s whose
    generators are ``rngs`` (the same deal, moves and reshuffles, drawn from the same
    generators), so that ``millebornes bench engine`` times both on the same hands."""
    deck = list(rules.deck(seating))
    dealer.shuffle(deck)
    sim = RolloutSim(new_hand(rules, seating, deck, first_seat))
    moves = 0
    while True:
        seat = sim.actor()
        if seat >= 0:
            legal = sim.legal_moves(seat)
            sim.apply(seat, legal[rngs[seat].randrange(len(legal))])
        elif sim.phase == OVER:
            return sim.to_state(), moves
        else:  # R4b: chance reshuffles with the dealer's generator (``reshuffle_action``)
            order = list(sim.discard)
            dealer.shuffle(order)
            sim.reshuffle(order)
        moves += 1
