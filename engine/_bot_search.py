"""``search``: determinized Monte Carlo rollouts from the seat's own view.

At a play (and at the extension question) the bot lets :class:`HeuristicBot` shortlist a
few candidate moves, then repeatedly *determinizes* its view (deals the cards it cannot
see at random among the hidden hands and the draw pile, consistently with everything face
up, its own hand and what it has inferred about the hidden hands, :class:`Inference`),
tries every candidate on that same deal (common random numbers: the candidates are
compared on identical futures), plays the hand on with a cheap rollout policy for a few
turns and scores it with :func:`engine.scoring.score_hand` if it ended, else with a leaf
evaluation fitted to final scores (:func:`fitted_value`). Sequential halving spends the
second half of the budget on the heuristic's choice and the best challenger. Draws,
answers to hazards (always a coup fourré, R9) and, by default, which card to throw away
are left to the heuristic.

The budget is per decision: ``playouts`` rollouts (deterministic for a given seed), or
``ms`` milliseconds of thinking (then the number of rollouts depends on the machine).
"""

from __future__ import annotations

import random
import time
from typing import Any

from . import (
    Action,
    Discard,
    Draw,
    Extend,
    HandState,
    Play,
    Zone,
    apply_action,
    legal_actions,
    reshuffle_action,
)
from ._bot_heuristic import HeuristicBot
from ._rollout_policy import DEAD_WITH, KEEP, PLAY_SCORE
from ._rollout_sim import RolloutSim, supported
from .cards import (
    FAMILY_OF,
    KIND_OF,
    REMEDY_FOR,
    SAFETY_FOR,
    Family,
    Kind,
)
from .errors import meant
from .scoring import score_hand

PLAY, EXTEND, RESHUFFLE, RESPOND, DRAW, OVER = (
    "play", "extend", "reshuffle", "respond", "draw", "over")

DEFAULT_PLAYOUTS = 400
#: Candidates the heuristic shortlists for the search (the rest are never tried).
DEFAULT_CANDIDATES = 4
#: Standard errors by which a candidate must beat the heuristic's first choice. At 400
#: playouts a margin of 2 measured no worse than 1 (and than 0.5) and overrides the
#: heuristic less often on noise (docs/bots.md, the search's results).
DEFAULT_MARGIN = 2.0
#: A rollout that has not ended after this many actions is scored as it stands.
ROLLOUT_ACTIONS = 600
#: Actions a rollout simulates per player by default before scoring the hand as it stands
#: (20 at two players: about five turns each): short rollouts are less noisy (and cheaper)
#: than playing every hand out.
HORIZON_PER_PLAYER = 10


def determinize(view: HandState, seat: int, rng: random.Random,
                lacks: dict[int, dict[Kind, int]] | None = None,
                holds: dict[int, set[int]] | None = None) -> HandState:
    """A full-information state that ``seat``'s view could be: the cards it has not seen
    are dealt at random to the hidden hands (their sizes kept) and the draw pile.

    ``lacks`` narrows the deal to what the seat has inferred (:class:`Inference`): hidden
    seat ``s`` holds at most ``lacks[s][kind]`` cards of ``kind`` (the cards it may have
    drawn since it showed it had none); when the unseen cards cannot satisfy that (an
    inference was wrong), the hand is filled with what is left. ``holds[s]`` are cards the
    seat saw ``s`` take (from the discard pile, R4a): they are dealt to ``s`` first.

    The one place a full state is built from a view (re-point it here if the engine's
    state changes shape)."""
    mine = view.hand(seat)
    seen = set(view.public_cards())
    seen.update(mine)
    pinned: dict[int, list[int]] = {}
    if holds:
        for s, cards in holds.items():
            pinned[s] = sorted(c for c in cards if c not in seen)[:view.hand_size(s)]
            seen.update(pinned[s])
    pool = [c for c in view.deck if c not in seen]
    rng.shuffle(pool)
    hands: list[tuple[int, ...]] = []
    for s, h in enumerate(view.hands):
        if s == seat:
            hands.append(mine)
            continue
        known = pinned.get(s, [])
        n = (h if isinstance(h, int) else len(h)) - len(known)
        limits = lacks.get(s) if lacks else None
        if not limits:
            hands.append(tuple(sorted(known + pool[:n])))
            del pool[:n]
            continue
        taken: list[int] = list(known)
        n += len(known)
        left: list[int] = []
        count: dict[Kind, int] = {}
        for c in pool:
            k = KIND_OF[c]
            cap = limits.get(k)
            if len(taken) < n and (cap is None or count.get(k, 0) < cap):
                taken.append(c)
                count[k] = count.get(k, 0) + 1
            else:
                left.append(c)
        if len(taken) < n:  # an inference the unseen cards contradict: fill the hand
            more = n - len(taken)
            taken.extend(left[:more])
            del left[:more]
        hands.append(tuple(sorted(taken)))
        pool = left
    pile = tuple(pool)
    if len(pile) != view.pile_size():
        raise ValueError("the view's card counts do not add up to its deck")
    return view._replace(hands=tuple(hands), pile=pile, viewer=None)


class Inference:
    """What a seat has learnt about hidden hands from the play it has seen, hand by hand.

    Two things betray a hand's contents to a watcher, assuming (as every built-in bot
    does, and any sensible player) that a coup fourré is never refused and that a stopped
    player cures itself unless it would rather attack:

    * a hazard played on a side and **not answered by a coup fourré**: none of that
      side's seats held the safety then;
    * a side that was stopped (a hazard in force, or waiting for its Roll) and whose turn
      went by **without any change to its zone and without an attack** (a discard): that
      seat held neither the remedy nor the safety that would have got it moving.

    Each such fact is kept per hidden seat and kind as "at most N such cards", N counting
    the cards the seat has drawn since (any of which may be one); it is forgotten when N
    reaches a hand. At two players, a card that left the discard pile for no zone was
    drawn by the opponent (R4a): it is in its hand until it shows up again. The search
    deals the hidden cards accordingly (:func:`determinize`). Only the seat's own views
    (and its own moves) are used."""

    def __init__(self) -> None:
        self.lacks: dict[int, dict[Kind, int]] = {}
        self.holds: dict[int, set[int]] = {}
        self._last: HandState | None = None   # my view at my last play...
        self._move: Action | None = None      # ... and what I played then

    def observe(self, view: HandState, seat: int) -> None:
        """Update from ``seat``'s view at a play decision (call once per decision)."""
        last, move = self._last, self._move
        self._last, self._move = view, None
        if last is None or view.turns < last.turns or view.deck != last.deck \
                or view.first_seat != last.first_seat:
            self.lacks, self.holds = {}, {}  # a new hand
            return
        n = view.seating.n_players
        drawn = last.pile_size() - view.pile_size() - 1  # my own draw this turn
        if drawn < 0 or view.reshuffles != last.reshuffles:
            self.lacks, self.holds = {}, {}  # the pile was rebuilt (R4b): draws are lost
            return
        per_seat = -(-drawn // max(1, n - 1))
        visible = set(view.public_cards())
        visible.update(view.hand(seat))
        for s in list(self.holds):
            self.holds[s] -= visible
            if not self.holds[s]:
                del self.holds[s]
        if n == 2:
            thrown = set(last.discard)
            if type(move) is Discard:
                thrown.add(move.card)
            taken = thrown - visible
            if taken:
                self.holds.setdefault(1 - seat, set()).update(taken)
        for s in list(self.lacks):
            limits = {k: m + per_seat for k, m in self.lacks[s].items()
                      if m + per_seat < view.hand_size(s)}
            if limits:
                self.lacks[s] = limits
            else:
                del self.lacks[s]
        if move is None or type(move) is not Play:
            return
        my_side = view.side_of(seat)
        rules = view.rules
        after = list(last.zones)  # the zones just after my move
        hazard_on = move.target if FAMILY_OF[move.card] is _HAZARD else None
        if hazard_on is not None:
            after[hazard_on] = after[hazard_on].lay(move.card)
            if len(view.zones[hazard_on].coups) == len(after[hazard_on].coups):
                for s in view.seating.seats_of(hazard_on):
                    self._lack(s, SAFETY_FOR[KIND_OF[move.card]], per_seat)
        else:
            after[my_side] = after[my_side].lay(move.card)
        if FAMILY_OF[move.card] is _SAFETY:
            return  # my extra turn (R8): nobody else has played since
        if any(_hazards(view.zones[x]) > _hazards(after[x]) for x in range(len(after))):
            return  # someone attacked: a stopped side may have preferred that to its cure
        for x in range(len(after)):
            now, then = view.zones[x], after[x]
            if x == my_side or now.moving(rules) or now.battle != then.battle \
                    or now.speed != then.speed or now.distance != then.distance \
                    or now.safeties != then.safeties:
                continue
            hazard = now.hazard_in_force()
            need = REMEDY_FOR[hazard] if hazard is not None else _ROLL
            guard = SAFETY_FOR[hazard] if hazard is not None else _RIGHT_OF_WAY
            for s in view.seating.seats_of(x):
                self._lack(s, need, 0)
                self._lack(s, guard, 0)

    def played(self, action: Action) -> None:
        """Remember my move at the play just observed."""
        self._move = action

    def _lack(self, s: int, kind: Kind, most: int) -> None:
        limits = self.lacks.setdefault(s, {})
        limits[kind] = min(most, limits.get(kind, most))


def _hazards(zone: Zone) -> int:
    """Hazard cards showing in a zone (a coup fourré takes its hazard away)."""
    return sum(1 for c in zone.battle + zone.speed if FAMILY_OF[c] is _HAZARD)


# ----- the rollout policy: cheap, greedy, a little noisy ------------------------------

_DISTANCE, _HAZARD, _REMEDY, _SAFETY = Family.DISTANCE, Family.HAZARD, Family.REMEDY, Family.SAFETY
_ROLL, _RIGHT_OF_WAY, _SPEED_LIMIT = Kind.ROLL, Kind.RIGHT_OF_WAY, Kind.SPEED_LIMIT
# The policy's numbers (how much it wants to play a card, how readily it throws one away,
# which safety kills a card) live in ``_rollout_policy``, shared with the fast simulator.


def _dead(state: HandState, seat: int, card: int) -> bool:
    """A remedy whose safety is in its own zone, or a hazard every opponent is safe from."""
    safety = DEAD_WITH[card]
    if safety is None:
        return False
    n_teams = state.seating.n_teams
    side = seat % n_teams
    if FAMILY_OF[card] is _REMEDY:
        return state.zones[side].has_safety(safety)
    return all(z.has_safety(safety) for i, z in enumerate(state.zones) if i != side)


def rollout_choice(state: HandState, legal: list[Action], rng: random.Random) -> Action:
    """The rollout policy for whoever acts in a full-information state: coups fourrés and
    fast remedies always, never an extension, otherwise the greedy best play with noise
    or the least useful card thrown away."""
    phase = state.phase
    if phase != PLAY:
        if phase == RESPOND:
            return legal[-1]  # Pass is listed first, a coup fourré or fast remedy after it
        if phase == EXTEND:
            return legal[1]   # Extend(False): end the hand at the trip
        return legal[0]       # draw from the pile
    best: Action | None = None
    best_score = 0.0
    worst: Action | None = None
    worst_keep = 1e9
    rand = rng.random
    for a in legal:
        if type(a) is Play:
            c = a.card
            score = PLAY_SCORE[c] + 10.0 * rand()
            if KIND_OF[c] is _ROLL and state.zones[a.seat % state.seating.n_teams].has_safety(
                    _RIGHT_OF_WAY):
                continue  # a Roll that changes nothing
            if score > best_score:
                best, best_score = a, score
        elif type(a) is Discard:
            keep = KEEP[a.card] + 10.0 * rand()
            if keep > 20.0 and DEAD_WITH[a.card] is not None and _dead(state, a.seat, a.card):
                keep = rand()  # a dead card goes first
            if keep < worst_keep:
                worst, worst_keep = a, keep
    if best is not None and (best_score > 20.0 or worst is None or worst_keep > 60.0):
        return best
    if worst is not None:
        return worst
    return legal[0]


def rollout(state: HandState, side: int, rng: random.Random,
            horizon: int = ROLLOUT_ACTIONS, fitted: bool = False) -> float:
    """Play the hand on for at most ``horizon`` actions; ``side``'s points minus the best
    other side's (the hand's score if it ended, else :func:`standing`).

    The rollouts are nearly all of the search's time, so a state the fast simulator
    supports (:mod:`engine._rollout_sim`: the same rules in place, on ints) is played on
    there; the others go through the engine (:func:`play_on`). Both make the same moves
    and draw the same random numbers, so the choice never changes a decision."""
    if supported(state):
        sim = RolloutSim(state)
        sim.rollout(rng, horizon)
        state = sim.to_state()
    else:
        state = play_on(state, rng, horizon)
    return outcome(state, side, fitted)


def outcome(state: HandState, side: int, fitted: bool = False) -> float:
    """Where a rollout stopped, for ``side``: its points minus the best other side's (the
    hand's score if it ended, else :func:`fitted_value` or :func:`standing`)."""
    if state.phase == OVER:
        totals: list[float] = [float(s.total) for s in score_hand(state)]
    else:
        totals = fitted_value(state) if fitted else standing(state)
    mine = totals[side]
    return float(mine - max(t for i, t in enumerate(totals) if i != side))


def play_on(state: HandState, rng: random.Random, horizon: int = ROLLOUT_ACTIONS) -> HandState:
    """The rollout through the engine: at most ``horizon`` actions of :func:`rollout_choice`
    (every state, and the reference the fast simulator is tested against)."""
    n = 0
    pile_only = not state.rules.draw_discard
    while n < horizon:
        phase = state.phase
        if phase == OVER:
            break
        if phase == DRAW and pile_only and state.pile:
            # The only legal draw (R4): listing the legal actions would build the same one.
            action: Action = Draw(state.seat, "pile", state.pile[-1])  # type: ignore[index]
        elif phase == RESHUFFLE:
            action = reshuffle_action(state, rng)
        else:
            seat = state.seat if phase != RESPOND else state.actors()[0]
            action = rollout_choice(state, legal_actions(state, seat), rng)
        state = apply_action(state, action)
        n += 1
    return state


#: Weights of :func:`fitted_value` (classic scoring), fitted by least squares to the final
#: point difference of ~21,000 rollout positions (classic, 2 players: positions from
#: heuristic hands, played on by the rollout policy; ``benchmarks/fit_search_leaf.py``).
#: Per feature of one side: per 100 km; 200 km or less to go; per safety laid (its 100
#: points and the protection); per coup fourré (on top of its safety); per safety in hand
#: early, and what the empty pile takes off it (a safety still in hand at the end scores
#: nothing); stopped, and what a cure in hand gives back; limited; no 200 played yet (the
#: safe trip); per 100 km, scaled by how much of the pile is gone. Held-out R² 0.54 against
#: the hand-made :func:`standing`'s 0.46. Hazards and remedies in hand are left out (0):
#: the fit gave them small negative weights (a hand that holds them was held back), which
#: would teach the search to throw cures away. Safeties in hand are not fitted either: the
#: rollout policy lays a safety only when it has nothing else to do, so the fit saw held
#: safeties die in hand (262 early, 90 at the end, below a laid one's 216) and the search
#: laid its safeties instead of keeping them for a coup fourré (in modern rules its coups
#: fell to a quarter of the heuristic's). The bots themselves lay a safety before the hand
#: ends, so one in hand is worth a laid one plus a coup-fourré premium (60 points, 30 in
#: modern scoring, the coup's extra points times a guessed one chance in five) that fades
#: as the pile empties.
FITTED_CLASSIC: tuple[float, ...] = (
    192.8, 57.1, 216.2, 210.9, 216.2 + 60.0, -60.0, -323.3, 202.1, -203.6, 0.0, 0.0, 141.9,
    -85.0)
#: The same for modern scoring (R14: no trip bonuses, so distance weighs less and a side
#: is hurt less by a stop), ~23,000 positions.
FITTED_MODERN: tuple[float, ...] = (
    75.6, -11.4, 262.1, 15.0, 262.1 + 30.0, -30.0, -174.0, 116.8, -138.9, 0.0, 0.0, -8.3, 10.9)


def fitted_value(state: HandState) -> list[float]:
    """Each side's expected final points in an unfinished hand, up to a constant: a linear
    function of a few features (weights :data:`FITTED_CLASSIC`) fitted to the points the
    rollout policy goes on to score from such positions (a short rollout's evaluation, on
    the same scale as :func:`engine.scoring.score_hand`)."""
    rules = state.rules
    w = FITTED_CLASSIC if rules.scoring == "classic" else FITTED_MODERN
    n_teams = state.seating.n_teams
    gone = 1.0 - state.pile_size() / 100.0
    out = []
    for side, z in enumerate(state.zones):
        hazard = z.hazard_in_force()
        need = (_ROLL, _RIGHT_OF_WAY) if hazard is None else (REMEDY_FOR[hazard],
                                                               SAFETY_FOR[hazard])
        held = hazards = remedies = 0
        cure = False
        for seat in range(side, len(state.hands), n_teams):
            hand = state.hands[seat]
            if isinstance(hand, int):
                continue
            for c in hand:
                fam = FAMILY_OF[c]
                if fam is _SAFETY:
                    held += 1
                elif fam is _HAZARD:
                    hazards += 1
                elif fam is _REMEDY:
                    remedies += 1
                if not cure and KIND_OF[c] in need:
                    cure = True
        stopped = not z.moving(rules)
        km = z.km / 100.0
        out.append(w[0] * km + (w[1] if state.target - z.km <= 200 else 0.0)
                   + w[2] * len(z.safeties) + w[3] * len(z.coups)
                   + held * (w[4] + w[5] * gone)
                   + ((w[6] + (w[7] if cure else 0.0)) if stopped else 0.0)
                   + (w[8] if z.limited() else 0.0)
                   + w[9] * hazards + w[10] * remedies
                   + (w[11] if z.n200 == 0 else 0.0) + w[12] * km * gone)
    return out


def standing(state: HandState) -> list[float]:
    """Points each side has banked in an unfinished hand (safeties still in hand count),
    less a turn's worth of distance for a side that cannot move (a short rollout's
    evaluation)."""
    rules = state.rules
    coup = 100.0 if rules.scoring == "modern" else 300.0
    held = [0] * len(state.zones)
    cure = [False] * len(state.zones)
    n_teams = state.seating.n_teams
    needs: list[tuple[Kind, Kind]] = []  # (remedy, safety) that would get each side moving
    for z in state.zones:
        hazard = z.hazard_in_force()
        if hazard is None:
            needs.append((_ROLL, _RIGHT_OF_WAY))
        else:
            needs.append((REMEDY_FOR[hazard], SAFETY_FOR[hazard]))
    for seat, hand in enumerate(state.hands):
        if not isinstance(hand, int):
            side = seat % n_teams
            held[side] += sum(1 for c in hand if FAMILY_OF[c] is _SAFETY)
            need = needs[side]
            cure[side] = cure[side] or any(KIND_OF[c] in need for c in hand)
    out = []
    for side, z in enumerate(state.zones):
        # A safety still in hand will be laid (100) or make a coup fourré: about as good
        # as laid, so that rollouts do not push the bot into laying safeties early.
        value = z.km + 100.0 * len(z.safeties) + coup * len(z.coups) + 110.0 * held[side]
        if not z.moving(rules):
            # Stopped: a side that holds the cure is a turn or two from moving again.
            value -= 45.0 if cure[side] else 75.0
        elif z.limited():
            value -= 25.0
        out.append(value)
    return out


#: The options of ``search:NAME=VALUE`` (for the "did you mean" of a typo).
_SEARCH_OPTIONS = ("playouts", "ms", "candidates", "margin", "horizon", "infer", "leaf",
                   "halve", "discards")


class SearchBot:
    """Determinized rollouts over the heuristic's shortlist (see the module docstring)."""

    name = "search"

    def __init__(self, seed: int = 0, playouts: int = DEFAULT_PLAYOUTS, ms: float = 0,
                 candidates: int = DEFAULT_CANDIDATES,
                 margin: float = DEFAULT_MARGIN, horizon: int = 0, infer: int = 1, leaf: int = 1,
                 halve: int = 1, discards: int = 0,
                 **unknown: Any) -> None:
        if unknown:
            raise ValueError(f"unknown option(s) {', '.join(sorted(unknown))}"
                             f"{meant(unknown, _SEARCH_OPTIONS)}; search takes playouts=N, ms=N, candidates=N, margin=X, horizon=N, "
                             "infer=0|1, leaf=0|1, halve=0|1, discards=0|1")
        if not isinstance(playouts, int) or not 1 <= playouts <= 1_000_000:
            raise ValueError(f"playouts must be a whole number from 1 to 1000000, "
                             f"not {playouts!r}")
        if not isinstance(ms, (int, float)) or not 0 <= ms <= 600_000:
            raise ValueError(f"ms must be a number of milliseconds from 0 to 600000, not {ms!r}")
        if not isinstance(candidates, int) or not 2 <= candidates <= 64:
            raise ValueError(f"candidates must be a whole number from 2 to 64, "
                             f"not {candidates!r}")
        if not isinstance(margin, (int, float)) or not 0 <= margin <= 100:
            raise ValueError(f"margin must be a number of standard errors from 0 to 100, "
                             f"not {margin!r}")
        self.rng = random.Random(seed)
        self.playouts = playouts
        self.ms = float(ms)
        self.candidates = candidates
        self.margin = float(margin)
        if not isinstance(horizon, int) or not 0 <= horizon <= ROLLOUT_ACTIONS:
            raise ValueError(f"horizon must be a whole number from 0 (automatic: "
                             f"{HORIZON_PER_PLAYER} per player) to {ROLLOUT_ACTIONS}")
        self.horizon = horizon
        if infer not in (0, 1):
            raise ValueError(f"infer must be 0 or 1, not {infer!r}")
        #: What the seat has inferred about hidden hands (used when ``infer`` is 1).
        self.inference = Inference()
        self.infer = bool(infer)
        if leaf not in (0, 1):
            raise ValueError(f"leaf must be 0 (the standing) or 1 (fitted), not {leaf!r}")
        self.fitted = bool(leaf)
        if halve not in (0, 1):
            raise ValueError(f"halve must be 0 or 1, not {halve!r}")
        self.halve = bool(halve)
        if discards not in (0, 1):
            raise ValueError(f"discards must be 0 or 1, not {discards!r}")
        self.discards = bool(discards)
        self.heuristic = HeuristicBot(seed)
        self._rollouts = 0
        #: Seconds spent on each searched decision (for percentiles; never read by the bot).
        self.decision_seconds: list[float] = []
        #: (rollouts, horizon) of each searched decision (statistics; never read by the bot).
        self.decision_rollouts: list[tuple[int, int]] = []

    def choose(self, view: HandState, legal: list[Action]) -> Action:
        if view.phase != PLAY:
            return self._choose(view, legal)
        self.inference.observe(view, legal[0].seat)
        action = self._choose(view, legal)
        self.inference.played(action)
        return action

    def _choose(self, view: HandState, legal: list[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        seat = legal[0].seat
        if view.phase == PLAY:
            ranked = self.heuristic.ranked(view, legal)
            if not ranked:
                return legal[0]
            if ranked[0][0] >= 150.0:
                return ranked[0][1]  # completing the trip (or a safety just before): no doubt
            shortlist = [a for v, a in ranked if v > -50.0][:self.candidates]
            if not self.discards and shortlist:
                # Which card to throw away is the heuristic's call (discards=0, the default):
                # two thirds of the search's overrides were one discard for another, and
                # searching them spent 60% of its time for no measured gain.
                shortlist = shortlist[:1] + [a for a in shortlist[1:] if type(a) is not Discard]
            if not shortlist:
                return ranked[0][1]
        elif view.phase == EXTEND:
            first = self.heuristic.extend(view, seat)
            shortlist = [Extend(seat, first)]
            if self.heuristic.match_if_ended(view, seat) is None:
                shortlist.append(Extend(seat, not first))  # the match score does not decide
        else:
            return self.heuristic.choose(view, legal)
        if len(shortlist) == 1:
            return shortlist[0]
        started = time.perf_counter()
        choice = self._search(view, seat, shortlist, started)
        self.decision_seconds.append(time.perf_counter() - started)
        self.decision_rollouts.append((self._rollouts, self._horizon(view)))
        return choice

    def _search(self, view: HandState, seat: int, shortlist: list[Action],
                started: float) -> Action:
        """Every candidate on every deal; the heuristic's first choice stands unless another
        candidate beats it on the same deals by more than ``self.margin`` standard errors
        (rollouts are noisy: the search must not throw a good prior away on noise)."""
        side = view.side_of(seat)
        k = len(shortlist)
        results: list[list[float]] = [[] for _ in range(k)]
        active = list(range(k))
        self._rollouts = 0
        if self.ms > 0:
            deadline = started + self.ms / 1000
            while True:
                self._round(view, seat, side, shortlist, active, results)
                if time.perf_counter() >= deadline:
                    break
        elif self.halve and k > 2:
            # Sequential halving: half the budget on every candidate, the other half on
            # the heuristic's choice and the best challenger so far.
            for _ in range(max(2, self.playouts // (2 * k))):
                self._round(view, seat, side, shortlist, active, results)
            means = [sum(r) / len(r) for r in results]
            active = [0, max(range(1, k), key=lambda i: (means[i], -i))]
            for _ in range(max(2, self.playouts // 4)):
                self._round(view, seat, side, shortlist, active, results)
        else:
            for _ in range(max(2, self.playouts // k)):
                self._round(view, seat, side, shortlist, active, results)
        base = results[0]
        n = len(base)
        best, best_z = 0, 0.0
        for i in active[1:]:
            diffs = [x - y for x, y in zip(results[i], base, strict=True)]
            mean = sum(diffs) / n
            var = sum((d - mean) ** 2 for d in diffs) / max(1, n - 1)
            stderr = (var / n) ** 0.5
            z = mean / stderr if stderr > 0 else (1e9 if mean > 0 else 0.0)
            if z > self.margin and (best == 0 or z > best_z):
                best, best_z = i, z
        return shortlist[best]

    def _horizon(self, view: HandState) -> int:
        """Actions per rollout before the leaf evaluation."""
        if view.phase == EXTEND:
            # Extending (R12) stakes the trip bonuses on the next 300 km: only playing the
            # hand out shows whether that pays (the leaf evaluation knows nothing of it).
            return ROLLOUT_ACTIONS
        return self.horizon or HORIZON_PER_PLAYER * view.seating.n_players

    def _round(self, view: HandState, seat: int, side: int, shortlist: list[Action],
               active: list[int], results: list[list[float]]) -> None:
        """One deal of the hidden cards; every candidate played out on it."""
        inf = self.inference
        deal = (determinize(view, seat, self.rng, inf.lacks, inf.holds) if self.infer
                else determinize(view, seat, self.rng))
        horizon = self._horizon(view)
        rollout_seed = self.rng.getrandbits(64)
        self._rollouts += len(active)
        for i in active:
            state = apply_action(deal, shortlist[i])
            results[i].append(rollout(state, side, random.Random(rollout_seed), horizon,
                                     self.fitted))
