"""The rule set in force: one frozen value, two named presets (RULES.md §6).

Every option of RULES.md is a field here and can be set on either preset; the whole value
round-trips through plain data so peers can agree on it and transcripts can record it.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Final

from .cards import ALL_CARDS, REMOVED_FOR_SMALL_TABLE

#: "No side": nobody has extended (R12) or completed the trip (R13), no side won the hand
#: (a tie), no side has won the match yet. Sides are ``0 .. n_teams - 1``, so a test for a
#: side reads ``side >= 0`` or ``side != NO_SIDE``; the value is -1 on the wire and on disk.
NO_SIDE: Final = -1

#: What a preset's name may look like (it is shown to every player at the table).
_PRESET_NAME: Final = re.compile(r"[a-z0-9_-]{1,24}")


class RuleOptionError(ValueError):
    """A rule option (or preset) refused. The message is English (logs, tracebacks);
    ``why`` (an id) and ``data`` say the same as data, for a console that words it in its
    player's language: ``not-bool``, ``not-int``, ``not-str`` (option, value),
    ``preset-name`` (value), ``choice`` (option, value, choices), ``target`` (value),
    ``range`` (option, value, low, high), ``unknown-options`` (options),
    ``unknown-preset`` (value), ``option-syntax`` (text), ``unknown-option`` (option,
    known), ``not-yes-no`` and ``not-number`` (option, value: the text given); a seating's
    ``players`` (value) and ``teams`` (players, teams). A value
    that came from elsewhere is in ``data`` as it came: the console cleans it."""

    def __init__(self, message: str, why: str, data: dict[str, Any]) -> None:
        super().__init__(message)
        self.why = why
        self.data = data


def _check_types(values: dict[str, Any]) -> None:
    """Each option's type, named when wrong: yes/no options are bools (a truthy "no" is
    not one), counts are whole numbers (a bool is not one), names are strings."""
    for f in fields(Rules):
        if f.name not in values:
            continue
        value = values[f.name]
        if f.type in ("bool", bool) and type(value) is not bool:
            raise RuleOptionError(f"{f.name} must be yes or no (true/false), not "
                                  f"{value!r:.40}", "not-bool",
                                  {"option": f.name, "value": value})
        if f.type in ("int", int) and type(value) is not int:
            raise RuleOptionError(f"{f.name} must be a whole number, not {value!r:.40}",
                                  "not-int", {"option": f.name, "value": value})
        if f.type in ("str", str) and type(value) is not str:
            raise RuleOptionError(f"{f.name} must be a name, not {value!r:.40}", "not-str",
                                  {"option": f.name, "value": value})


@dataclass(frozen=True, slots=True)
class Rules:
    """All options; field comments give the RULES.md id each one implements."""

    preset: str = "classic"
    draw_discard: bool = False          # O-draw-discard (R4a)
    exhaustion: str = "play_out"        # O-exhaustion (R4b): "play_out" | "reshuffle"
    roll_after_remedy: bool = True      # O-roll-after-remedy (R5, R7, R8)
    exact_finish: bool = True           # O-exact-finish (R5d)
    target: int = 0                     # R11: 0 = automatic (1000 for two teams, else 700)
    extension: bool = True              # R12: a 700 trip may be extended to 1000
    remove_hazards: bool = True         # R1a: 101 cards with 2-3 players
    scoring: str = "classic"            # R15 "classic" | R14 "modern"
    match_target: int = 5000            # R15: match to 5000; 0 = one hand (R14)
    stack_hazards: bool = False         # O-stack-hazards (R6)
    attacker_started: bool = False      # O-attacker-started (R6a)
    start_rolling: bool = False         # O-start-rolling (R5a)
    fast_play: bool = False             # O-fast-play (R10)
    extension_official: bool = False    # O-extension-official (R12)
    reshuffle_limit: int = 1            # R4b bound: idle reshuffles allowed (see docs/rules.md)
    max_turns: int = 1000               # R4b bound: a hand ends after this many turns

    def __post_init__(self) -> None:
        # Rules arrive from other players (a host's lobby, a transcript header): every
        # field is checked for its type and range, so a truthy "no" or a 10**9-turn hand
        # is refused here in words rather than played.
        _check_types({f.name: getattr(self, f.name) for f in fields(self)})
        if not _PRESET_NAME.fullmatch(self.preset):
            raise RuleOptionError(f"preset must be a short name (letters, digits, - or _), "
                                  f"not {self.preset!r:.40}", "preset-name",
                                  {"value": self.preset})
        for name, choices in (("exhaustion", ("play_out", "reshuffle")),
                              ("scoring", ("classic", "modern"))):
            value = getattr(self, name)
            if value not in choices:
                raise RuleOptionError(f"{name} must be {choices[0]} or {choices[1]}, not "
                                      f"{value!r:.40}", "choice",
                                      {"option": name, "value": value, "choices": choices})
        if self.target not in (0, 700, 1000):
            raise RuleOptionError(f"target must be 0 (automatic), 700 or 1000, not "
                                  f"{self.target!r}", "target", {"value": self.target})
        for name, low, high in (("match_target", 0, 1_000_000), ("max_turns", 10, 100_000),
                                ("reshuffle_limit", 0, 100)):
            value = getattr(self, name)
            if not low <= value <= high:
                raise RuleOptionError(f"{name} must be from {low} to {high}, not {value}",
                                      "range", {"option": name, "value": value, "low": low,
                                                "high": high})

    def __reduce__(self) -> tuple[type[Rules], tuple[Any, ...]]:
        """Pickled as a call with the field values: a bot in its own process gets the
        view through pickle, and the mypyc-compiled class (README, "compiled engine")
        has no ``__dict__``, so the default restore set each frozen field and failed
        (FrozenInstanceError): every plug-in in a process of its own ended at its first
        move with the compiled engine."""
        return (type(self), tuple(getattr(self, f.name) for f in fields(self)))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            names = sorted(map(str, unknown))
            raise RuleOptionError(f"unknown rule option(s): {', '.join(names)}",
                                  "unknown-options", {"options": names})
        # before construction: the compiled build (mypyc) checks types itself, with a
        # TypeError that does not name the option
        _check_types(data)
        return cls(**data)

    def with_options(self, **options: Any) -> Rules:
        return replace(self, **options)

    def target_for(self, seating: Seating) -> int:
        """R11: the trip length for this seating."""
        if self.target:
            return self.target
        return 1000 if seating.n_teams == 2 and seating.team_size > 1 else 700

    def deck(self, seating: Seating) -> tuple[int, ...]:
        """R1/R1a: the card ids in play for this seating."""
        if self.remove_hazards and seating.n_players <= 3:
            return _SMALL_TABLE_DECK
        return ALL_CARDS


#: R1a: the 101-card deck, built once (every hand asks for its deck).
_SMALL_TABLE_DECK: Final[tuple[int, ...]] = tuple(c for c in ALL_CARDS
                                           if c not in REMOVED_FOR_SMALL_TABLE)

CLASSIC: Final = Rules()
MODERN: Final = Rules(
    preset="modern", draw_discard=True, exhaustion="reshuffle", roll_after_remedy=False,
    exact_finish=False, target=1000, extension=False, remove_hazards=False, scoring="modern",
    match_target=0,
)
PRESETS: Final[dict[str, Rules]] = {"classic": CLASSIC, "modern": MODERN}


def preset(name: str, **options: Any) -> Rules:
    """A named preset with options changed, e.g. ``preset("classic", fast_play=True)``."""
    try:
        base = PRESETS[name]
    except KeyError:
        raise RuleOptionError(f"unknown preset {name!r}; choose classic or modern",
                              "unknown-preset", {"value": name}) from None
    return base.with_options(**options) if options else base


def parse_option(text: str) -> tuple[str, Any]:
    """Parse ``NAME=VALUE`` from a command line (``fast-play=yes`` works too)."""
    if "=" not in text:
        raise RuleOptionError(f"option {text!r} must look like NAME=VALUE", "option-syntax",
                              {"text": text})
    name, raw = text.split("=", 1)
    name = name.strip().lower().replace("-", "_")
    if name.startswith("o_"):
        name = name[2:]
    ftypes = {f.name: f.type for f in fields(Rules)}
    if name not in ftypes or name == "preset":
        known = sorted(n for n in ftypes if n != "preset")
        raise RuleOptionError(f"unknown rule option {name!r}; known: " + ", ".join(known)
                              + " (--option help says what each does)",
                              "unknown-option", {"option": name, "known": known})
    default = getattr(CLASSIC, name)
    raw = raw.strip()
    value: Any
    if isinstance(default, bool):
        low = raw.lower()
        if low in ("1", "yes", "true", "on"):
            value = True
        elif low in ("0", "no", "false", "off"):
            value = False
        else:
            raise RuleOptionError(f"option {name} takes yes/no, not {raw!r}", "not-yes-no",
                                  {"option": name, "value": raw})
    elif isinstance(default, int):
        try:
            value = int(raw)
        except ValueError:
            raise RuleOptionError(f"option {name} takes a number, not {raw!r}",
                                  "not-number", {"option": name, "value": raw}) from None
    else:
        value = raw.replace("-", "_")
    return name, value


@dataclass(frozen=True, slots=True)
class Seating:
    """R2/R2a: how many players and how they form sides.

    Seat ``s`` belongs to side ``s % n_teams``, so turns alternate between sides (R2a).
    Without teams every player is a side of one (``n_teams == n_players``).
    """

    n_players: int
    n_teams: int

    def __post_init__(self) -> None:
        if not 2 <= self.n_players <= 6:
            raise RuleOptionError(f"R2: 2 to 6 players, not {self.n_players}", "players",
                                  {"value": self.n_players})
        if self.n_teams != self.n_players:
            if (self.n_players, self.n_teams) not in ((4, 2), (6, 2), (6, 3)):
                raise RuleOptionError(
                    f"R2a: teams are 4 = 2x2, 6 = 2x3 or 3x2, not {self.n_players} players "
                    f"in {self.n_teams} teams", "teams",
                    {"players": self.n_players, "teams": self.n_teams})

    def __reduce__(self) -> tuple[type[Seating], tuple[int, int]]:
        """Pickled as a call, as :meth:`Rules.__reduce__` says why."""
        return (type(self), (self.n_players, self.n_teams))

    @property
    def team_size(self) -> int:
        return self.n_players // self.n_teams

    def side_of(self, seat: int) -> int:
        return seat % self.n_teams

    def seats_of(self, side: int) -> tuple[int, ...]:
        return tuple(range(side, self.n_players, self.n_teams))

    @classmethod
    def solo(cls, n_players: int) -> Seating:
        return cls(n_players, n_players)

    @classmethod
    def parse(cls, n_players: int, teams: str | None) -> Seating:
        """``teams`` is ``AxB``: A teams of B players (``2x2``, ``2x3``, ``3x2``)."""
        if not teams:
            return cls.solo(n_players)
        try:
            a, b = (int(x) for x in teams.lower().split("x"))
        except ValueError:
            raise ValueError(f"--teams takes 2x2, 2x3 or 3x2, not {teams!r}") from None
        if a * b != n_players:
            raise ValueError(f"--teams {teams} needs {a * b} players, not {n_players}")
        return cls(n_players, a)

    def label(self) -> str:
        return "solo" if self.n_teams == self.n_players else f"{self.n_teams}x{self.team_size}"
