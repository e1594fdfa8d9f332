"""``heuristic``: a bot that plays like a good human, from its seat's view only.

It counts cards (what is unseen, which safeties may still be out, how many remedies of
each kind remain), keeps the attacks and remedies it will need and throws dead cards away
first, holds safeties for the coup fourré (R9) and lays them when no coup can come any
more, when the pile runs short, when it is about to win the hand (a safety gives an extra
turn, R8) or when it has nothing better; it attacks the leader (and the match leader),
decides the extension from the match score first and never makes a move that changes
nothing. docs/bots.md describes the behaviour in prose.

Only the public engine API is used, so the bot keeps working while the engine's insides
change.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from . import (
    Action,
    CoupFourre,
    Discard,
    Draw,
    Extend,
    FastRemedy,
    HandState,
    Pass,
    Play,
    Zone,
    apply_action,
    match_winner,
    score_hand,
)
from .cards import (
    BATTLE_HAZARDS,
    DISTANCE_VALUE,
    FAMILY,
    HAZARD_FOR_REMEDY,
    HAZARDS,
    KIND_OF,
    REMEDY_FOR,
    SAFETY_FOR,
    Family,
    Kind,
)

# The phases of a hand, as HandState.phase spells them.
DRAW, PLAY, RESPOND, EXTEND = "draw", "play", "respond", "extend"

#: The weights of the rules of thumb (tuned against heuristic-v1 with ``tournament``).
W: dict[str, float] = {
    "safety_idle": 5.0,     # a safety laid when the cheapest discard is worth more than 15
    "end_near": 200.0,      # lay safeties when an opponent moving is this close to the end
    "attack": 93.0, "stop": 85.0, "limit": 85.0,        # playing a hazard
    "coup_risk": 120.0,     # times the chance that the victim holds the safety
    "cure": 75.0,           # a remedy that lets us move again (below an attack: attack first)
    "km": 40.0, "km_div": 5.0,                           # playing distance
    "km_keep": 10.0, "km_keep_div": 5.0, "many_km": 4, "many_km_cut": 6.0,
    "roll1": 55.0, "roll2": 30.0, "remedy_keep": 42.0, "eol_keep": 25.0,
    "ext_hand_km": 200, "ext_pile": 15, "ext_opp": 500, "ext_prot": 0, "ext_threats": 0.08,
    "match_lead": 20.0,     # attack merit per 1000 points the victim leads the match by
    "attack_keep": 58.0, "stop_keep": 50.0, "limit_keep": 28.0,
    "scarce": 30.0,         # times the chance that the victim holds no remedy
    "safe_trip": 8.0,       # reluctance to play a first 200 (classic safe trip bonus)
    "endgame": 300,         # km from the end where the exact finish (R5d) is planned
    "waste": 40.0,          # per turn a distance play adds to the expected finish
    "finish_keep": 12.0,    # per turn a distance card in hand takes off the finish
}

#: The hazards each safety protects against (Right of Way covers Stop and Speed Limit).
COVERS: dict[Kind, tuple[Kind, ...]] = {
    s: tuple(h for h in HAZARDS if SAFETY_FOR[h] is s) for s in set(SAFETY_FOR.values())}


class Knowledge(NamedTuple):
    """What one seat knows at a decision, computed once from its view."""

    seat: int
    side: int
    hand: tuple[int, ...]
    held: dict[Kind, int]        # kinds in my hand
    unseen: dict[Kind, int]      # kinds in hidden hands or the draw pile
    hidden_total: int            # cards in hidden hands and the draw pile
    zone: Zone
    opponents: tuple[int, ...]   # opposing sides
    finish: tuple[float, ...]    # finish[i]: turns to cover 25*i km exactly from draws alone


def knowledge(view: HandState, seat: int) -> Knowledge:
    """Card counting from the view: the deck minus everything face up minus my hand."""
    unseen = dict(_deck_kinds(view.deck))
    for c in view.public_cards():
        unseen[KIND_OF[c]] -= 1
    hand = view.hand(seat)
    held = dict.fromkeys(_KINDS, 0)
    for c in hand:
        unseen[KIND_OF[c]] -= 1
        held[KIND_OF[c]] += 1
    side = view.side_of(seat)
    zone = view.zones[side]
    hidden = sum(unseen.values())
    left = max(0, view.target - zone.km) if view.rules.exact_finish else 0
    # The finish is planned only within W["endgame"] km of the target (finish_waste,
    # finish_loss): farther away it is never read, so it is not worked out (this runs at
    # every move of the bot, of the search bot's shortlists and of every tournament).
    finish = (draws_to_finish(unseen, hidden, zone.n200, left)
              if left <= W["endgame"] else ())
    return Knowledge(seat, side, hand, held, unseen, hidden, zone,
                     tuple(s for s in range(view.seating.n_teams) if s != side), finish)


_KINDS: tuple[Kind, ...] = tuple(Kind)
_DECK_KINDS: dict[tuple[int, ...], dict[Kind, int]] = {}


def _deck_kinds(deck: tuple[int, ...]) -> dict[Kind, int]:
    """How many cards of each kind ``deck`` holds (a deck depends on the rules and seating
    only, so a handful are ever seen: remembered, at most 32)."""
    counts = _DECK_KINDS.get(deck)
    if counts is None:
        counts = dict.fromkeys(_KINDS, 0)
        for c in deck:
            counts[KIND_OF[c]] += 1
        if len(_DECK_KINDS) >= 32:
            _DECK_KINDS.clear()
        _DECK_KINDS[deck] = counts
    return counts


#: Turns counted for a distance no card left unseen can cover (the hand will end first).
NEVER = 30.0


def draws_to_finish(unseen: dict[Kind, int], hidden_total: int, n200: int,
                    max_left: int) -> tuple[float, ...]:
    """Expected turns to cover exactly 0, 25, 50, ... ``max_left`` km (R5d) with no distance
    card in hand, drawing one unseen card a turn and playing it only when that brings the
    finish closer (optimal stopping: accept the draws that lead somewhere better).

    A crude model (cards drawn are never kept for later), but it ranks remainders the way
    a player does: 25 short with few 25s unseen is a trap, 100 short is easy."""
    share = {v: unseen[k] / max(1, hidden_total) for k, v in DISTANCE_VALUE.items()
             if unseen[k] and not (k is Kind.D200 and n200 >= 2)}
    turns = [0.0]
    for i in range(1, max_left // 25 + 1):
        options = sorted((turns[i - v // 25], q) for v, q in share.items() if v <= 25 * i)
        best, spent, chance = NEVER, 1.0, 0.0
        for after, q in options:
            if after >= best:
                break
            spent += q * after
            chance += q
            best = min(NEVER, spent / chance)
        turns.append(best)
    return tuple(turns)


def turns_to_finish(left: int, values: list[int], finish: tuple[float, ...]) -> float:
    """Expected turns to cover exactly ``left`` km with the distance ``values`` in hand:
    play some of them (a turn each), then draw for the rest (:func:`draws_to_finish`)."""
    fewest = {0: 0}
    for v in sorted(values):
        for s, n in list(fewest.items()):
            if s + v <= left and fewest.get(s + v, 99) > n + 1:
                fewest[s + v] = n + 1
    return min(n + finish[(left - s) // 25] if (left - s) // 25 < len(finish) else n + NEVER
               for s, n in fewest.items())


def lacks_remedy(view: HandState, know: Knowledge, remedy: Kind, side: int) -> float:
    """The chance that ``side`` holds no ``remedy`` now: every unseen copy lies elsewhere
    (1 when every copy is in sight, so only drawing the safety can save them)."""
    share = cards_held_by_side(view, side) / max(1, know.hidden_total)
    return float((1.0 - min(1.0, share)) ** know.unseen[remedy])


def cards_held_by_side(view: HandState, side: int) -> int:
    return sum(view.hand_size(s) for s in view.seating.seats_of(side))


class HeuristicBot:
    """Rule-of-thumb play from card counting (see the module docstring and docs/bots.md)."""

    name = "heuristic"
    pure = True      # a function of (view, legal): see engine.bots.SeatController

    def __init__(self, seed: int = 0, match: int = 1) -> None:
        self.rng = random.Random(seed)  # kept for symmetry with other bots: choices are pure
        if match not in (0, 1):
            raise TypeError(f"match must be 0 or 1, not {match!r}")
        #: weigh the match score (1) or play every hand as if it stood alone (0, to measure)
        self.match = bool(match)

    def choose(self, view: HandState, legal: list[Action]) -> Action:
        if not self.match and view.match_scores:
            view = view._replace(match_scores=())
        seat = legal[0].seat
        if view.phase == RESPOND:
            for a in legal:
                if isinstance(a, CoupFourre):
                    return a  # 300 (classic) or 200 (modern) points and the turn: always
            for a in legal:
                if isinstance(a, FastRemedy):
                    return a
            return Pass(seat)
        if view.phase == EXTEND:
            return Extend(seat, self.extend(view, seat))
        if view.phase == DRAW:
            return self.draw(view, legal)
        ranked = self.ranked(view, legal)
        return ranked[0][1] if ranked else legal[0]

    # ----- the play phase ---------------------------------------------------------------
    def ranked(self, view: HandState, legal: list[Action]) -> list[tuple[float, Action]]:
        """Plays and discards of ``legal`` by decreasing merit (the search bot's candidates).

        Fast discards (R10b) are left out: a single discard is never worse for this bot."""
        know = knowledge(view, legal[0].seat)
        finishing = any(isinstance(a, Play) and FAMILY[KIND_OF[a.card]] is Family.DISTANCE
                        and know.zone.km + DISTANCE_VALUE[KIND_OF[a.card]] == view.target
                        for a in legal)
        out: list[tuple[float, Action]] = []
        for a in legal:
            if isinstance(a, Play):
                out.append((self.play_value(view, know, a, finishing), a))
            elif isinstance(a, Discard):
                out.append((20.0 - self.keep_value(view, know, a.card), a))
        out.sort(key=lambda sa: (-sa[0], _order(sa[1])))
        return out

    def play_value(self, view: HandState, know: Knowledge, a: Play, finishing: bool) -> float:
        k = KIND_OF[a.card]
        fam = FAMILY[k]
        zone = know.zone
        rules = view.rules
        hazard = zone.hazard_in_force()
        if fam is Family.SAFETY:
            if finishing:
                return 250.0  # lay every safety before the last distance: each one is a turn
            covers = COVERS[k]
            if hazard in covers and not know.held[REMEDY_FOR[hazard]]:
                return 95.0
            if k is Kind.RIGHT_OF_WAY and (zone.limited() and not know.held[Kind.END_OF_LIMIT]
                                           or not zone.moving(rules) and hazard is None
                                           and not know.held[Kind.ROLL]):
                return 92.0
            if all(know.unseen[h] == 0 for h in covers):
                return 85.0  # no hazard it covers is left unseen: no coup fourré can come
            if view.pile_size() <= 2 * view.seating.n_players:
                return 85.0  # the hand may end before a coup fourré: take the points
            if any(view.target - view.zones[s].km <= W["end_near"]
                   and view.zones[s].moving(rules) for s in know.opponents):
                return 85.0  # an opponent may end the hand soon: a safety in hand scores 0
            return W["safety_idle"]  # better than throwing away a card worth more
        if fam is Family.REMEDY:
            if k is Kind.END_OF_LIMIT:
                if not zone.limited():
                    return -100.0
                big = any(DISTANCE_VALUE.get(KIND_OF[c], 0) > 50 for c in know.hand)
                return 60.0 if big else 35.0
            if k is Kind.ROLL:
                if hazard is Kind.STOP or (hazard is None and not zone.moving(rules)):
                    return W["cure"]
                return -100.0  # a Roll that changes nothing (e.g. with Right of Way down)
            if hazard is HAZARD_FOR_REMEDY[k]:
                return W["cure"]
            return -100.0
        if fam is Family.DISTANCE:
            v = DISTANCE_VALUE[k]
            left = view.target - zone.km - v
            if left == 0:
                return 200.0
            score = W["km"] + v / W["km_div"]
            if rules.exact_finish and left + v <= W["endgame"]:
                score -= W["waste"] * finish_waste(view, know, a.card)
            if k is Kind.D200 and rules.scoring == "classic" and zone.n200 == 0:
                score -= W["safe_trip"]  # the 300-point safe trip bonus is gone
            return score
        # A hazard on side a.target.
        assert a.target is not None
        target = view.zones[a.target]
        score = W["limit"] if k is Kind.SPEED_LIMIT else (W["stop"] if k is Kind.STOP else W["attack"])
        if k is Kind.SPEED_LIMIT:
            if view.target - target.km <= 50:
                score -= 30.0  # a limit hardly slows someone this close
        elif rules.roll_after_remedy and k is not Kind.STOP:
            score += 4.0  # the victim needs the remedy and then a Roll
        if k in BATTLE_HAZARDS and not target.moving(rules):
            score -= 40.0
        # Attack the leader: the farther ahead, the more it pays to slow them down.
        others = [s for s in know.opponents if s != a.target]
        score += target.km / 25 + (target.km - max((view.zones[s].km for s in others),
                                                   default=target.km)) / 50
        if others and view.match_scores and view.rules.match_target:
            # the match leader too (three sides or more): its lead is the danger
            ms = view.match_scores
            score += W["match_lead"] * (ms[a.target] - max(ms[s] for s in others)) / 1000
        remedy = REMEDY_FOR[k]
        score += W["scarce"] * lacks_remedy(view, know, remedy, a.target)
        safety = SAFETY_FOR[k]
        if know.unseen[safety]:
            # The chance that the victim holds the safety (a coup fourré: the victim scores
            # and takes the turn): its hidden cards over all the cards hidden from me.
            p = min(1.0, cards_held_by_side(view, a.target) / max(1, know.hidden_total))
            score -= W["coup_risk"] * p
        return score

    def keep_value(self, view: HandState, know: Knowledge, card: int) -> float:
        """How much the hand loses without ``card``: dead cards are worth 0."""
        k = KIND_OF[card]
        fam = FAMILY[k]
        zone = know.zone
        rules = view.rules
        if fam is Family.SAFETY:
            return 1000.0
        if fam is Family.DISTANCE:
            v = DISTANCE_VALUE[k]
            if rules.exact_finish and zone.km + v > view.target \
                    and not (rules.extension and view.extended_by < 0 and view.target < 1000
                             and zone.km + v <= 1000 and zone.km + v - view.target < 100):
                return 0.0  # cannot fit the exact finish
            if k is Kind.D200 and zone.n200 + know.held[Kind.D200] > 2:
                return 2.0  # a third 200 (R5c)
            value = W["km_keep"] + v / W["km_keep_div"]
            left = view.target - zone.km
            if rules.exact_finish and left <= W["endgame"]:
                value += W["finish_keep"] * finish_loss(view, know, card)
            n_distance = sum(know.held[d] for d in DISTANCE_VALUE)
            if n_distance >= W["many_km"]:
                value -= W["many_km_cut"]
            return value
        if fam is Family.REMEDY:
            if k is Kind.ROLL:
                guard = zone.has_safety(Kind.RIGHT_OF_WAY)
                if guard:
                    return 0.0
                if know.held[Kind.RIGHT_OF_WAY]:
                    return 6.0
                copies = know.held[k]
                if rules.roll_after_remedy:
                    return W["roll1"] if copies == 1 else W["roll2"] if copies == 2 else 12.0
                if know.unseen[Kind.STOP] == 0 and zone.moving(rules):
                    return 1.0
                return 45.0 if copies == 1 else 15.0
            hazard = HAZARD_FOR_REMEDY[k]
            safety = SAFETY_FOR[hazard]
            if zone.has_safety(safety):
                return 0.0
            if know.held[safety]:
                return 6.0  # the safety will answer (coup fourré or laid): the remedy is spare
            needed = zone.hazard_in_force() is hazard or (hazard is Kind.SPEED_LIMIT
                                                           and zone.limited())
            if not needed and know.unseen[hazard] == 0:
                return 1.0  # every such hazard is in sight: this remedy is dead
            copies = know.held[k]
            base = W["eol_keep"] if k is Kind.END_OF_LIMIT else W["remedy_keep"]
            return base if copies == 1 else base / 3
        # A hazard: dead when every opponent is protected against it.
        safety = SAFETY_FOR[k]
        if all(view.zones[s].has_safety(safety) for s in know.opponents):
            return 0.0
        value = W["limit_keep"] if k is Kind.SPEED_LIMIT else W["stop_keep"] if k is Kind.STOP else W["attack_keep"]
        if know.held[k] > 1:
            value -= 12.0
        return value

    # ----- draws and the extension ------------------------------------------------------
    def draw(self, view: HandState, legal: list[Action]) -> Action:
        """R4a: take the discard pile's top card when it is a card this hand wants now."""
        for a in legal:
            if isinstance(a, Draw) and a.source == "discard" and a.card is not None:
                know = knowledge(view, a.seat)
                k = KIND_OF[a.card]
                hazard = know.zone.hazard_in_force()
                if FAMILY[k] is Family.SAFETY:
                    return a
                if hazard is not None and REMEDY_FOR[hazard] is k and not know.held[k]:
                    return a
                if k is Kind.ROLL and hazard is None and not know.zone.moving(view.rules) \
                        and not know.held[k]:
                    return a
        return legal[0]

    def extend(self, view: HandState, seat: int) -> bool:
        """R12: extend to 1000 only when the remaining 300 look safe: the sure points of
        completing now (trip, safe trip, shut-out) are lost if nobody completes. The match
        score decides first: never extend when ending the hand now wins the match, always
        when ending it now loses it."""
        settled = self.match_if_ended(view, seat)
        if settled is not None:
            return not settled
        know = knowledge(view, seat)
        zone = know.zone
        if not zone.moving(view.rules):
            return False
        hand_km = sum(DISTANCE_VALUE.get(KIND_OF[c], 0) for c in know.hand)
        opp_best = max((view.zones[s].km for s in know.opponents), default=0)
        protection = len(zone.safeties) + sum(know.held[s] for s in COVERS)
        threats = sum(know.unseen[h] for h in BATTLE_HAZARDS) / max(1, know.hidden_total)
        return (hand_km >= W["ext_hand_km"] and view.pile_size() >= W["ext_pile"]
                and opp_best < W["ext_opp"]
                and (protection >= W["ext_prot"] or threats < W["ext_threats"]))

    def match_if_ended(self, view: HandState, seat: int) -> bool | None:
        """At the extension question (R12): ``True`` when ending the hand now wins the
        match for ``seat``'s side (R15), ``False`` when it makes another side the winner,
        ``None`` when the match would go on (or the view keeps no match score)."""
        if not view.match_scores or not view.rules.match_target:
            return None
        final = apply_action(view, Extend(seat, False))
        totals = [t + s.total for t, s in zip(view.match_scores, score_hand(final),
                                               strict=True)]
        winner = match_winner(view.rules, totals)
        return None if winner < 0 else winner == view.side_of(seat)


def _distance_in_hand(know: Knowledge, without: int = -1) -> list[int]:
    return [DISTANCE_VALUE[KIND_OF[c]] for c in know.hand
            if c != without and FAMILY[KIND_OF[c]] is Family.DISTANCE]


def finish_waste(view: HandState, know: Knowledge, card: int) -> float:
    """Turns a distance play near the end (R5d exact finish) costs over a perfect one: how
    much longer the finish will take than if this play were one step of the quickest way.
    Playing a 75 when 100 short with a 50 and no 25 in hand strands us 25 short."""
    left = view.target - know.zone.km
    v = DISTANCE_VALUE[KIND_OF[card]]
    before = turns_to_finish(left, _distance_in_hand(know), know.finish)
    after = turns_to_finish(left - v, _distance_in_hand(know, card), know.finish)
    return max(0.0, 1.0 + after - before)


def finish_loss(view: HandState, know: Knowledge, card: int) -> float:
    """Turns the finish (R5d) would take longer without this distance card in hand."""
    left = view.target - know.zone.km
    return (turns_to_finish(left, _distance_in_hand(know, card), know.finish)
            - turns_to_finish(left, _distance_in_hand(know), know.finish))


def _order(a: Action) -> tuple[int, int, int]:
    """A total order on plays and discards, for ties (never dict or set order)."""
    if isinstance(a, Play):
        return (0, a.card, -1 if a.target is None else a.target)
    if isinstance(a, Discard):
        return (1, a.card, 0)
    return (2, 0, 0)

