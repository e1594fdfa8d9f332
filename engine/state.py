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
from typing import Any, NamedTuple

from .actions import Action, action_from_data, action_to_data
from .cards import BATTLE_HAZARDS, DISTANCE_OF, FAMILY, KIND_OF, SAFETY_FOR, Family, Kind
from .rules import Rules, Seating

_new_tuple = tuple.__new__

# Enum member lookups such as ``Kind.ROLL`` cost about 75 ns each on CPython 3.11 (the
# enum metaclass is involved); the hot paths compare against these module constants.
_ROLL = Kind.ROLL
_SPEED_LIMIT = Kind.SPEED_LIMIT
_RIGHT_OF_WAY = Kind.RIGHT_OF_WAY
_D200 = Kind.D200
_RIGHT_OF_WAY_BIT = 1 << Kind.RIGHT_OF_WAY

#: Card id -> the shield bit of the safety that covers it if it is a battle hazard, else 0:
#: a zone's top battle card is "in force" when its bit is set here and not in the shields.
_BATTLE_GUARD: tuple[int, ...] = tuple(1 << SAFETY_FOR[k] if k in BATTLE_HAZARDS else 0
                                       for k in KIND_OF)

# Phases of a hand.
DRAW = "draw"            # ``seat`` must draw (``pending`` lists the draws still due)
PLAY = "play"            # ``seat`` must play or discard a card
RESPOND = "respond"      # the attacked side answers a hazard (R9, R10a)
EXTEND = "extend"        # ``seat`` decides on the extension (R12)
RESHUFFLE = "reshuffle"  # chance: the discard pile becomes the draw pile (R4b)
OVER = "over"            # the hand has ended (R13)

#: ``viewer`` of a view in which no hand is known (a spectator, a live auditor).
SPECTATOR = -1

# Kinds of draw in ``pending``.
TURN_DRAW = "turn"                # the draw that starts a turn: pile or, R4a, discard
REPLACEMENT_DRAW = "replacement"  # after a coup fourre, fast remedy or R10b: pile only


class Zone(NamedTuple):
    """One side's tableau (R2). Piles list card ids bottom first."""

    battle: tuple[int, ...] = ()
    speed: tuple[int, ...] = ()
    distance: tuple[int, ...] = ()
    safeties: tuple[int, ...] = ()
    coups: tuple[int, ...] = ()     # the safeties (ids) that were played as coups fourres
    started: bool = False           # R5a: a Roll or Right of Way has been played (or R5a option)
    km: int = 0
    n200: int = 0

    @property
    def shields(self) -> int:
        """Bit ``1 << kind`` set for each safety kind in ``safeties`` (memoised: hot path)."""
        s = _SHIELDS.get(self.safeties)
        if s is None:
            s = 0
            for c in self.safeties:
                s |= 1 << KIND_OF[c]
            _SHIELDS[self.safeties] = s
        return s

    def has_safety(self, k: Kind) -> bool:
        return bool(self.shields >> k & 1)

    def hazard_in_force(self) -> Kind | None:
        """The battle hazard showing and not covered by a safety (R6, R8), if any."""
        battle = self.battle
        if battle:
            guard = _BATTLE_GUARD[battle[-1]]
            if guard and not self.shields & guard:
                return KIND_OF[battle[-1]]
        return None

    def limited(self) -> bool:
        """R5b: a Speed Limit shows and Right of Way is not out."""
        return bool(self.speed) and KIND_OF[self.speed[-1]] is _SPEED_LIMIT and \
            not self.shields & _RIGHT_OF_WAY_BIT

    def moving(self, rules: Rules) -> bool:
        """R5: may this zone play distance (and, R6, be attacked by a battle hazard)?"""
        if self.hazard_in_force() is not None:
            return False
        if self.shields & _RIGHT_OF_WAY_BIT:
            return True
        if rules.roll_after_remedy:
            if not self.battle:
                return rules.start_rolling
            return KIND_OF[self.battle[-1]] is _ROLL
        return self.started

    # The builders below make the next zone with ``tuple.__new__`` and positional values:
    # ``_replace`` costs about ten times as much, and a play changes one zone every time.
    def add_safety(self, card: int, coup: bool) -> Zone:
        """R8/R9: the zone with ``card`` in its safety area (sideways when ``coup``)."""
        b, sp, d, sa, co, started, km, n200 = self
        return _new_tuple(Zone, (b, sp, d, sa + (card,), co + (card,) if coup else co,
                                 started or KIND_OF[card] is _RIGHT_OF_WAY, km, n200))

    def add_battle(self, card: int) -> Zone:
        """A hazard or remedy on the battle pile; a Roll starts the zone (R5a)."""
        b, sp, d, sa, co, started, km, n200 = self
        return _new_tuple(Zone, (b + (card,), sp, d, sa, co,
                                 started or KIND_OF[card] is _ROLL, km, n200))

    def add_speed(self, card: int) -> Zone:
        """A Speed Limit or End of Limit on the speed pile."""
        b, sp, d, sa, co, started, km, n200 = self
        return _new_tuple(Zone, (b, sp + (card,), d, sa, co, started, km, n200))

    def add_distance(self, card: int) -> Zone:
        """A distance card: its pile, the km total and the R5c count of 200s."""
        b, sp, d, sa, co, started, km, n200 = self
        return _new_tuple(Zone, (b, sp, d + (card,), sa, co, started,
                                 km + DISTANCE_OF[card], n200 + (KIND_OF[card] is _D200)))

    def drop_top(self, card: int) -> Zone:
        """R9: the hazard ``card`` (just played on this zone) leaves it for the discard."""
        b, sp, d, sa, co, started, km, n200 = self
        if KIND_OF[card] is _SPEED_LIMIT:
            sp = sp[:-1]
        else:
            b = b[:-1]
        return _new_tuple(Zone, (b, sp, d, sa, co, started, km, n200))

    def cards(self) -> tuple[int, ...]:
        return self.battle + self.speed + self.distance + self.safeties


# Safety tuples are few (at most four ids in some order), so this stays tiny.
_SHIELDS: dict[tuple[int, ...], int] = {}


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
    extended_by: int = -1                # side that called the extension (R12)
    completed_by: int = -1               # side that completed the trip (R13)
    completed_after_exhaustion: bool = False  # R15 delayed action
    end_reason: str = ""
    viewer: int | None = None
    deck: tuple[int, ...] = ()           # the card ids in play (R1, R1a)

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
        """Who may act now (``CHANCE`` = -1 for the reshuffle)."""
        if self.phase == OVER:
            return ()
        if self.phase == RESPOND:
            assert self.attack is not None
            return self.attack.waiting_for()
        if self.phase == RESHUFFLE:
            return (-1,)
        return (self.seat,)

    def public_cards(self) -> tuple[int, ...]:
        """Every card id face up: zones and discard pile."""
        out: list[int] = list(self.discard)
        for z in self.zones:
            out.extend(z.cards())
        return tuple(out)

    # ----- serialisation ---------------------------------------------------------------
    def to_data(self) -> dict[str, Any]:
        def seq(x: tuple[int, ...] | int) -> list[int] | int:
            return x if isinstance(x, int) else list(x)

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
        }

    @classmethod
    def from_data(cls, d: dict[str, Any]) -> HandState:
        def seq(x: Any) -> tuple[int, ...] | int:
            return x if isinstance(x, int) else tuple(x)

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
        )

    def digest(self) -> str:
        """SHA-256 of the canonical JSON encoding: identical on every machine and run."""
        blob = json.dumps(self.to_data(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()


_FIELD_INDEX = {name: i for i, name in enumerate(HandState._fields)}
_HANDS, _PILE, _VIEWER = _FIELD_INDEX["hands"], _FIELD_INDEX["pile"], _FIELD_INDEX["viewer"]


def replace_state(state: HandState, **changes: Any) -> HandState:
    """``state._replace(**changes)``, about twice as fast (the engine's hottest call)."""
    values = list(state)
    for name, value in changes.items():
        values[_FIELD_INDEX[name]] = value
    return _new_tuple(HandState, values)


def view_of(state: HandState, seat: int) -> HandState:
    """``seat``'s view of a state: other hands and the draw pile become counts."""
    viewer = state.viewer
    if viewer is not None and viewer != seat:
        raise ValueError(f"cannot derive seat {seat}'s view from seat {viewer}'s view")
    if not SPECTATOR <= seat < state.seating.n_players:
        raise ValueError(f"{seat} is neither a seat nor SPECTATOR")
    hands = state.hands
    counts: list[tuple[int, ...] | int]
    if viewer is None:  # full information (the usual case): every hand is a tuple
        counts = list(map(len, hands))  # type: ignore[arg-type]
    else:
        counts = [h if isinstance(h, int) else len(h) for h in hands]
    if seat != SPECTATOR:
        counts[seat] = hands[seat]
    # Built without replace_state's keyword arguments: every bot move starts from a view.
    values = list(state)
    values[_HANDS] = tuple(counts)
    pile = state.pile
    values[_PILE] = pile if isinstance(pile, int) else len(pile)
    values[_VIEWER] = seat
    return _new_tuple(HandState, values)


def is_family(card: int, fam: Family) -> bool:
    return FAMILY[KIND_OF[card]] is fam
