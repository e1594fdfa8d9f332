"""Immutable hand state: zones, hands, piles and the phase the hand is in.

A :class:`HandState` is either *full information* (``viewer is None``: every hand and the
draw-pile order are known; simulations and tests) or a *seat's view* (``viewer`` is a
seat: only that seat's hand is a tuple of card ids, other hands and the draw pile are
counts), or a *spectator's view* (``viewer == SPECTATOR``: every hand is a count; an
auditor follows a game live this way). The same functions in :mod:`engine.game` apply actions to both.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, Final, NamedTuple

from .actions import CHANCE, Action, action_from_data, action_to_data
from .cards import (
    _BATTLE_HAZARD_GUARD,
    DISTANCE_OF,
    FAMILY_OF,
    KIND_OF,
    SAFETIES,
    SAFETY_CARD,
    SAFETY_FOR,
    Family,
    Kind,
)
from .rules import NO_SIDE, Rules, Seating

# Enum member lookups such as ``Kind.ROLL`` cost about 75 ns each on CPython 3.11 (the
# enum metaclass is involved); the hot paths compare against these module constants.
_ROLL: Final = Kind.ROLL
_SPEED_LIMIT: Final = Kind.SPEED_LIMIT
_END_OF_LIMIT: Final = Kind.END_OF_LIMIT
_D200: Final = Kind.D200
_DISTANCE: Final = Family.DISTANCE
_SAFETY: Final = Family.SAFETY
_RIGHT_OF_WAY_CARD: Final = SAFETY_CARD[Kind.RIGHT_OF_WAY]

# Phases of a hand.
DRAW: Final = "draw"            # ``seat`` must draw (``pending`` lists the draws still due)
PLAY: Final = "play"            # ``seat`` must play or discard a card
RESPOND: Final = "respond"      # the attacked side answers a hazard (R9, R10a)
EXTEND: Final = "extend"        # ``seat`` decides on the extension (R12)
RESHUFFLE: Final = "reshuffle"  # chance: the discard pile becomes the draw pile (R4b)
OVER: Final = "over"            # the hand has ended (R13)

#: ``viewer`` of a view in which no hand is known (a spectator, a live auditor). Not a seat;
#: ``viewer is None`` is the full-information state.
SPECTATOR: Final = -1

# Kinds of draw in ``pending``.
TURN_DRAW: Final = "turn"                # the draw that starts a turn: pile or, R4a, discard
REPLACEMENT_DRAW: Final = "replacement"  # after a coup fourre, fast remedy or R10b: pile only

# What happens once the pending draws are made (``after``).
# PLAY: the drawer plays. NEXT_TURN: the turn passes on (R10a fast remedy, R10b refill).
NEXT_TURN: Final = "next"

#: R3: cards dealt to each seat, and the hand an R10b fast discard draws back up to.
HAND_SIZE: Final = 6


class Zone(NamedTuple):
    """One side's tableau (R2). Piles list card ids bottom first.

    ``km`` and ``n200`` sum up ``distance`` and ``started`` records R5a; build a zone from
    its cards with :meth:`from_cards`, which works them out.
    """

    battle: tuple[int, ...] = ()
    speed: tuple[int, ...] = ()
    distance: tuple[int, ...] = ()
    safeties: tuple[int, ...] = ()
    coups: tuple[int, ...] = ()     # the safeties (ids) that were played as coups fourres
    started: bool = False           # R5a: a Roll or Right of Way has been played (or R5a option)
    km: int = 0
    n200: int = 0

    @classmethod
    def from_cards(cls, battle: Sequence[int] = (), speed: Sequence[int] = (),
                   distance: Sequence[int] = (), safeties: Sequence[int] = (),
                   coups: Sequence[int] = (), started: bool | None = None) -> Zone:
        """A zone holding these cards (bottom first); ``coups`` are safeties played as coups
        fourres (put in ``safeties`` too if not listed there). ``started`` (R5a) defaults to
        what the cards show: a Roll, Right of Way or any distance."""
        safe = tuple(safeties) + tuple(c for c in coups if c not in safeties)
        if started is None:
            started = (any(KIND_OF[c] is _ROLL for c in battle) or _RIGHT_OF_WAY_CARD in safe
                       or bool(distance))
        return cls(tuple(battle), tuple(speed), tuple(distance), safe, tuple(coups), started,
                   sum(DISTANCE_OF[c] for c in distance),
                   sum(1 for c in distance if KIND_OF[c] is _D200))

    def has_safety(self, k: Kind) -> bool:
        """Is the safety of kind ``k`` (``Kind.RIGHT_OF_WAY`` ...) laid here? Any other kind
        raises ``ValueError`` saying what to write (a bot asking with the hazard it fears
        was told "raised KeyError" and no more)."""
        try:
            return SAFETY_CARD[k] in self.safeties
        except (KeyError, TypeError):
            raise ValueError(_not_a_safety(k)) from None

    def hazard_in_force(self) -> Kind | None:
        """The battle hazard showing and not covered by a safety (R6, R8), if any."""
        battle = self.battle
        if battle:
            guard = _BATTLE_HAZARD_GUARD.get(battle[-1])  # the dict: a hot path
            if guard is not None and guard not in self.safeties:
                return KIND_OF[battle[-1]]
        return None

    def limited(self) -> bool:
        """R5b: a Speed Limit shows and Right of Way is not out."""
        speed = self.speed
        return bool(speed) and KIND_OF[speed[-1]] is _SPEED_LIMIT and \
            _RIGHT_OF_WAY_CARD not in self.safeties

    def moving(self, rules: Rules) -> bool:
        """R5: may this zone play distance (and, R6, be attacked by a battle hazard)?"""
        return self.hazard_in_force() is None and self.rolling(rules)

    def rolling(self, rules: Rules) -> bool:
        """R5 once no battle hazard is in force: Right of Way, or a Roll on top (under
        O-roll-after-remedy), or started. The legality checks that have just asked
        :meth:`hazard_in_force` ask this rather than :meth:`moving`, which would ask again."""
        if _RIGHT_OF_WAY_CARD in self.safeties:
            return True
        if rules.roll_after_remedy:
            if not self.battle:
                return rules.start_rolling
            return KIND_OF[self.battle[-1]] is _ROLL
        return self.started

    def lay(self, card: int, coup: bool = False) -> Zone:
        """The zone with ``card`` laid where it goes: a distance card on the distance pile
        (adding to ``km`` and, R5c, the count of 200s); a Speed Limit or End of Limit on the
        speed pile; any other hazard or remedy on the battle pile (a Roll starts the zone,
        R5a); a safety in the safety area (R8; sideways when ``coup``, R9; Right of Way
        starts the zone)."""
        family = FAMILY_OF[card]
        k = KIND_OF[card]
        if family is _DISTANCE:
            return self._replace(distance=self.distance + (card,), km=self.km + DISTANCE_OF[card],
                                 n200=self.n200 + (k is _D200))
        if family is _SAFETY:
            return self._replace(safeties=self.safeties + (card,),
                                 coups=self.coups + (card,) if coup else self.coups,
                                 started=self.started or card == _RIGHT_OF_WAY_CARD)
        if k is _SPEED_LIMIT or k is _END_OF_LIMIT:
            return self._replace(speed=self.speed + (card,))
        return self._replace(battle=self.battle + (card,), started=self.started or k is _ROLL)

    def without_top(self, card: int) -> Zone:
        """R9: the hazard ``card``, just laid on this zone, leaves it for the discard pile."""
        if KIND_OF[card] is _SPEED_LIMIT:
            return self._replace(speed=self.speed[:-1])
        return self._replace(battle=self.battle[:-1])

    def cards(self) -> tuple[int, ...]:
        return self.battle + self.speed + self.distance + self.safeties


def _not_a_safety(k: object) -> str:
    """Words for :meth:`Zone.has_safety` asked of ``k``, which is no safety's kind."""
    if isinstance(k, Kind):
        what = f"Kind.{k.name}"
    elif type(k) is int and abs(k) < 10**6:
        what = str(k)
    else:
        what = f"an object of type {type(k).__name__[:60]}"
    words = (f"has_safety takes a safety's kind "
             f"({', '.join(f'Kind.{s.name}' for s in SAFETIES)}), not {what}")
    if isinstance(k, int) and k in SAFETY_FOR:
        words += f": the safety against a hazard is engine.cards.SAFETY_FOR[{what}]"
    return words


class Attack(NamedTuple):
    """A hazard waiting for the attacked side's answers (R9, R10a)."""

    attacker: int
    card: int
    side: int
    responders: tuple[int, ...]
    answers: tuple[Action, ...] = ()
    stage: int = 1   # 1: everyone, Pass/CoupFourre; 2 (R10a): one at a time, Pass/FastRemedy

    def waiting_for(self) -> tuple[int, ...]:
        done = {a.seat for a in self.answers}
        left = tuple(s for s in self.responders if s not in done)
        return left if self.stage == 1 else left[:1]


class HandState(NamedTuple):
    rules: Rules
    seating: Seating
    target: int
    first_seat: int
    hands: tuple[tuple[int, ...] | int, ...]
    pile: tuple[int, ...] | int          # top is the LAST element; a count in a view
    discard: tuple[int, ...]             # top is the last element
    zones: tuple[Zone, ...]
    phase: str
    seat: int                            # who draws / plays / decides now
    turn_seat: int                       # whose turn it is (play resumes at its left)
    pending: tuple[str, ...] = ()
    after: str = PLAY                    # after the pending draws: PLAY or "next" (turn ends)
    attack: Attack | None = None
    turns: int = 1
    pile_drawn: int = 0                  # cards drawn from the current pile: deck position
    reshuffles: int = 0
    idle_reshuffles: int = 0
    progress: bool = True                # distance played since the last reshuffle (R4b)
    extended_by: int = NO_SIDE           # side that called the extension (R12)
    completed_by: int = NO_SIDE          # side that completed the trip (R13)
    completed_after_exhaustion: bool = False  # R15 delayed action
    end_reason: str = ""
    viewer: int | None = None
    deck: tuple[int, ...] = ()           # the card ids in play (R1, R1a)
    #: Each side's match total before this hand (R15), as the score sheet shows it to
    #: everyone; ``()`` for a hand played on its own. No rule reads it: bots weigh it.
    match_scores: tuple[int, ...] = ()
    #: Every move of this hand so far, oldest first, as every seat saw it
    #: (:func:`engine.game.public_action`: a draw from the pile hides its card, a draw from
    #: the discard pile names it, a reshuffle hides the order). The same in every seat's
    #: view, kept across a reshuffle: who discarded what, who passed at a coup fourré
    #: question, who took from the discard pile. No rule reads it: bots weigh it.
    history: tuple[Action, ...] = ()

    # ----- small queries -------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.phase == OVER

    def side_of(self, seat: int) -> int:
        return seat % self.seating.n_teams

    def zone_of(self, seat: int) -> Zone:
        return self.zones[seat % self.seating.n_teams]

    def hand_size(self, seat: int) -> int:
        h = self.hands[seat]
        return h if isinstance(h, int) else len(h)

    def hand(self, seat: int) -> tuple[int, ...]:
        """The cards of ``seat``; raises ``ValueError`` when they are hidden in this view."""
        h = self.hands[seat]
        if isinstance(h, int):
            raise ValueError(f"seat {seat}'s hand is hidden in seat {self.viewer}'s view")
        return h

    def pile_size(self) -> int:
        return self.pile if isinstance(self.pile, int) else len(self.pile)

    def actors(self) -> tuple[int, ...]:
        """Who may act now (``CHANCE`` for the reshuffle)."""
        if self.phase == OVER:
            return ()
        if self.phase == RESPOND:
            assert self.attack is not None
            return self.attack.waiting_for()
        if self.phase == RESHUFFLE:
            return (CHANCE,)
        return (self.seat,)

    def public_cards(self) -> tuple[int, ...]:
        """Every card id face up: zones and discard pile."""
        out: list[int] = list(self.discard)
        for z in self.zones:
            out.extend(z.cards())
        return tuple(out)

    def unseen(self) -> dict[Kind, int]:
        """Each kind's cards of :attr:`deck` that the viewer has not seen where they are:
        not face up (zones, discard pile) and not in its own hand, so in the draw pile or
        a hidden hand. Counted from this hand's deck, which has fewer hazards than
        ``engine.cards.COUNTS`` at two or three players (R1a); a card seen earlier and
        reshuffled into the pile (R4b) is unseen again. Every kind is a key."""
        out = dict.fromkeys(Kind, 0)
        for c in self.deck:
            out[KIND_OF[c]] += 1
        seen = list(self.public_cards())
        viewer = self.viewer
        if viewer is not None and viewer >= 0:
            seen.extend(self.hand(viewer))
        for c in seen:
            out[KIND_OF[c]] -= 1
        return out

    # ----- serialisation ---------------------------------------------------------------
    def to_data(self) -> dict[str, Any]:
        seq = _list_or_count
        return {
            "rules": self.rules.to_dict(),
            "seating": [self.seating.n_players, self.seating.n_teams],
            "target": self.target, "first_seat": self.first_seat,
            "hands": [seq(h) for h in self.hands],
            "pile": seq(self.pile), "discard": list(self.discard),
            "zones": [[list(z.battle), list(z.speed), list(z.distance), list(z.safeties),
                       list(z.coups), z.started, z.km, z.n200] for z in self.zones],
            "phase": self.phase, "seat": self.seat, "turn_seat": self.turn_seat,
            "pending": list(self.pending), "after": self.after,
            "attack": None if self.attack is None else [
                self.attack.attacker, self.attack.card, self.attack.side,
                list(self.attack.responders), [action_to_data(a) for a in self.attack.answers],
                self.attack.stage],
            "turns": self.turns, "pile_drawn": self.pile_drawn,
            "reshuffles": self.reshuffles, "idle_reshuffles": self.idle_reshuffles,
            "progress": self.progress, "extended_by": self.extended_by,
            "completed_by": self.completed_by,
            "completed_after_exhaustion": self.completed_after_exhaustion,
            "end_reason": self.end_reason, "viewer": self.viewer, "deck": list(self.deck),
            # only when kept, so a hand on its own encodes (and digests) as it always has
            **({"match_scores": list(self.match_scores)} if self.match_scores else {}),
            **({"history": [action_to_data(a) for a in self.history]} if self.history else {}),
        }

    @classmethod
    def from_data(cls, d: dict[str, Any]) -> HandState:
        seq = _tuple_or_count
        att = d["attack"]
        return cls(
            rules=Rules.from_dict(d["rules"]), seating=Seating(*d["seating"]),
            target=d["target"], first_seat=d["first_seat"],
            hands=tuple(seq(h) for h in d["hands"]), pile=seq(d["pile"]),
            discard=tuple(d["discard"]),
            zones=tuple(Zone(tuple(z[0]), tuple(z[1]), tuple(z[2]), tuple(z[3]), tuple(z[4]),
                             bool(z[5]), int(z[6]), int(z[7])) for z in d["zones"]),
            phase=d["phase"], seat=d["seat"], turn_seat=d["turn_seat"],
            pending=tuple(d["pending"]), after=d["after"],
            attack=None if att is None else Attack(att[0], att[1], att[2], tuple(att[3]),
                                                   tuple(action_from_data(a) for a in att[4]),
                                                   att[5] if len(att) > 5 else 1),
            turns=d["turns"], pile_drawn=d["pile_drawn"], reshuffles=d["reshuffles"],
            idle_reshuffles=d["idle_reshuffles"], progress=d["progress"],
            extended_by=d["extended_by"], completed_by=d["completed_by"],
            completed_after_exhaustion=d["completed_after_exhaustion"],
            end_reason=d["end_reason"], viewer=d["viewer"], deck=tuple(d["deck"]),
            match_scores=tuple(d.get("match_scores", ())),
            history=tuple(action_from_data(a) for a in d.get("history", ())),
        )

    def digest(self) -> str:
        """SHA-256 of the canonical JSON encoding: identical on every machine and run.

        The :attr:`history` is left out: it records how the position was reached, not the
        position, so two orders of answers to one attack digest alike, and every digest
        recorded before the history was kept (golden games, pinned matches) still holds."""
        data = self.to_data()
        data.pop("history", None)
        blob = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()


def _list_or_count(x: tuple[int, ...] | int) -> list[int] | int:
    return x if isinstance(x, int) else list(x)


def _tuple_or_count(x: Any) -> tuple[int, ...] | int:
    return x if isinstance(x, int) else tuple(x)


_tuple_new: Final = tuple.__new__
#: Field name -> position, for :func:`replace`.
_FIELD_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(HandState._fields)}


def replace(state: HandState, /, **changes: Any) -> HandState:
    """``state`` with the fields named in ``changes`` set, like ``dataclasses.replace``: the
    one way the engine builds the next state. The same result as ``state._replace``, in
    about half the time: every move builds at least one state, so this is the engine's
    hottest call."""
    values = list(state)
    for name, value in changes.items():
        try:
            values[_FIELD_INDEX[name]] = value
        except KeyError:
            raise TypeError(f"HandState has no field {name!r}") from None
    return _tuple_new(HandState, values)  # ``_make`` without its length check


def view_of(state: HandState, seat: int) -> HandState:
    """``seat``'s view of a state: other hands and the draw pile become counts."""
    viewer = state.viewer
    if viewer is not None and viewer != seat:
        raise ValueError(f"cannot derive seat {seat}'s view from seat {viewer}'s view")
    if seat != SPECTATOR and not 0 <= seat < state.seating.n_players:
        raise ValueError(f"{seat} is neither a seat nor SPECTATOR")
    hands = state.hands
    counts: list[tuple[int, ...] | int]
    if viewer is None:  # full information (the usual case): every hand is a tuple
        counts = list(map(len, hands))  # type: ignore[arg-type]
    else:
        counts = [h if isinstance(h, int) else len(h) for h in hands]
    if seat != SPECTATOR:
        counts[seat] = hands[seat]
    pile = state.pile
    return replace(state, hands=tuple(counts), pile=pile if isinstance(pile, int) else len(pile),
                   viewer=seat)


def is_family(card: int, fam: Family) -> bool:
    return FAMILY_OF[card] is fam
