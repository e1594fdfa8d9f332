"""A table's fixed agreement: rules, seating, players' keys; the table id binds them all.

Peers agree on a :class:`TableConfig` in the lobby before the match; its ``table_id`` is a
hash of the whole agreement, so an entry signed for one table can never be replayed at a
table with other rules or other players.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from engine import Rules, Seating
from engine.rules import RuleOptionError
from p2p.crypto.identity import verify_curve_certificate
from p2p.text import safe_text
from p2p.transcript.decoding import (
    HEADER_LIMITS,
    TABLE_META_FIELDS,
    TABLE_META_OPTIONAL,
    DecodeError,
    bounded_unpackb,
    check_header_obj,
    check_map,
)
from p2p.transcript.envelope import canonical_packb
from p2p.transcript.file import Player, TranscriptHeader

_TABLE_TAG = b"millebornes/table/v1\x00"
#: The time limit of every protocol step (seconds), unless the table chose another.
DEFAULT_STEP_LIMIT = 20.0
#: A bot's answer in a response window (R9, R10a) and its R12 decision are sent this long
#: after the window reached it, whatever it holds (docs/network.md: why 10 ms is enough).
DEFAULT_RESPONSE_DELAY = 0.01
#: The budget of a seat's automatic steps in one hand, in step limits (60 s at the default
#: 20 s), and the grace of each such step, as a share of the step limit (1 s): past the
#: budget the seat is treated as silent at each of them (docs/network.md, "slow-loris",
#: has the figures: an honest seat spends well under a second a hand).
AUTO_BUDGET_STEPS = 3
AUTO_GRACE_SHARE = 0.05
#: Bounds of a table's limits (seconds): a step, a player's move.
STEP_LIMITS = (1.0, 3600.0)
DECISION_LIMITS = (1.0, 86400.0)


@dataclass(frozen=True)
class TableConfig:
    rules: Rules
    seating: Seating
    players: tuple[Player, ...]    # in seat order
    nonce: bytes = b""             # makes two tables of the same friends distinct
    #: per seat ``(CURVE public key, certificate)``: the transport keys the table admits
    #: (empty: a table on plain ZeroMQ)
    curve: tuple[tuple[bytes, bytes], ...] = ()
    #: the table's time limits, agreed by all (the table id hashes them): every protocol
    #: step must be written within ``step_limit`` s, else the table stops (nobody blamed);
    #: a player's own move within ``decision_limit`` s (None: untimed). Whole ms.
    step_limit: float = DEFAULT_STEP_LIMIT
    decision_limit: float | None = None
    #: False for a header written before the limits were recorded: read with the
    #: defaults above, and its table id stays what it was
    limits_recorded: bool = True

    def __post_init__(self) -> None:
        lo, hi = STEP_LIMITS
        if not (isinstance(self.step_limit, (int, float)) and lo <= self.step_limit <= hi):
            raise ValueError(f"a step's time limit is {lo:g} to {hi:g} s, not "
                             f"{self.step_limit!r}")
        object.__setattr__(self, "step_limit", round(float(self.step_limit) * 1000) / 1000)
        if self.decision_limit is not None:
            lo, hi = DECISION_LIMITS
            if not (isinstance(self.decision_limit, (int, float))
                    and lo <= self.decision_limit <= hi):
                raise ValueError(f"a move's time limit is {lo:g} to {hi:g} s, not "
                                 f"{self.decision_limit!r}")
            object.__setattr__(self, "decision_limit",
                               round(float(self.decision_limit) * 1000) / 1000)
        if len(self.players) != self.seating.n_players:
            raise ValueError(f"{self.seating.n_players} seats need {self.seating.n_players} "
                             f"players, not {len(self.players)}")
        for i, p in enumerate(self.players):
            if p.seat != i:
                raise ValueError(f"player {p.name!r} is listed at seat {i} but says {p.seat}")
        if len({p.key for p in self.players}) != len(self.players):
            raise ValueError("two seats have the same key")
        if self.curve:
            if len(self.curve) != len(self.players):
                raise ValueError("every seat needs a transport key")
            for p, (pub, cert) in zip(self.players, self.curve, strict=True):
                if not verify_curve_certificate(p.key, pub, cert):
                    raise ValueError(f"seat {p.seat}'s transport key is not signed by its key")
            if len({pub for pub, _ in self.curve}) != len(self.curve):
                raise ValueError("two seats have the same transport key")

    def agreement(self) -> dict[str, Any]:
        out = {"rules": self.rules.to_dict(),
               "seating": [self.seating.n_players, self.seating.n_teams],
               "players": [{"seat": p.seat, "name": p.name, "key": p.key}
                           for p in self.players],
               "nonce": self.nonce}
        if self.curve:
            out["curve"] = [list(c) for c in self.curve]
        if self.limits_recorded:
            out["limits"] = self._limits_ms()
        return out

    def _limits_ms(self) -> list[int]:
        return [round(self.step_limit * 1000),
                0 if self.decision_limit is None else round(self.decision_limit * 1000)]

    @property
    def auto_budget(self) -> float:
        """How long, in one hand, a seat's automatic steps (keys, shuffles, shares,
        reveals) may keep a peer waiting beyond :attr:`auto_grace` each: derived from the
        agreed step limit, so every peer keeps the same."""
        return AUTO_BUDGET_STEPS * self.step_limit

    @property
    def auto_grace(self) -> float:
        """The wait for each automatic step that is not counted against the budget."""
        return round(AUTO_GRACE_SHARE * self.step_limit, 3)

    def limits_text(self) -> str:
        """The time limits in words (``verify``, the lobby)."""
        moves = ("moves untimed" if self.decision_limit is None
                 else f"{self.decision_limit:g} s per move")
        return f"{self.step_limit:g} s per protocol step, {moves}"

    @property
    def table_id(self) -> bytes:
        return hashlib.sha256(_TABLE_TAG + canonical_packb(self.agreement())).digest()[:16]

    @property
    def cards(self) -> tuple[int, ...]:
        return self.rules.deck(self.seating)

    @property
    def n(self) -> int:
        return self.seating.n_players

    def header(self) -> TranscriptHeader:
        meta: dict[str, Any] = {"rules": self.rules.to_dict(),
                                "seating": [self.seating.n_players, self.seating.n_teams],
                                "nonce": self.nonce}
        if self.curve:
            meta["curve"] = [list(c) for c in self.curve]
        if self.limits_recorded:
            meta["limits"] = self._limits_ms()
        return TranscriptHeader(self.table_id, meta, self.players, self.cards)

    @classmethod
    def from_header(cls, header: TranscriptHeader) -> TableConfig:
        """The agreement recorded in a transcript; checks that it hashes to its table id.

        The rules field is schema-checked first (exact fields, a nonce of at most 64
        bytes: an integer nonce of 2**62 once made ``bytes(n)`` allocate 4 EiB)."""
        try:
            meta = check_map(header.rules, TABLE_META_FIELDS, TABLE_META_OPTIONAL, "rules")
            rules = Rules.from_dict(dict(meta["rules"]))
            seating = Seating(*meta["seating"])
            nonce = meta.get("nonce", b"")
            curve = tuple((c[0], c[1]) for c in meta.get("curve", []))
            limits = meta.get("limits")
        except (KeyError, TypeError, ValueError) as exc:
            # the engine's sentence can quote the header's own text (an unknown option's
            # name): a file from elsewhere, so one clean line
            raise ValueError(f"transcript header has no valid rule set: "
                             f"{safe_text(str(exc), 300)}") from None
        if limits is None:        # written before the limits were recorded
            cfg = cls(rules, seating, header.players, nonce, curve, limits_recorded=False)
        else:
            cfg = cls(rules, seating, header.players, nonce, curve, limits[0] / 1000,
                      limits[1] / 1000 if limits[1] else None)
        if cfg.table_id != header.table:
            raise ValueError("the header's table id does not match its rules and players")
        if cfg.cards != header.cards:
            raise ValueError("the header's card list does not match the rules")
        return cfg


def rules_fault(meta: object) -> RuleOptionError | None:
    """Why the engine refuses a header's rule set or seating (None: it does not, or the
    header is not even a map of them), as its id and data: the same check as
    :meth:`TableConfig.from_header`'s, whose English sentence is all a caller had, so that a
    report or a damaged game can say it in the player's language."""
    try:
        if isinstance(meta, dict):
            Rules.from_dict(dict(meta["rules"]))
            Seating(*meta["seating"])
    except RuleOptionError as exc:
        return exc
    except Exception:       # another fault: the header's English detail says it
        return None
    return None


def parse_header_bytes(raw: object) -> tuple[TranscriptHeader, TableConfig]:
    """A table header received from another peer (the lobby's start message): bounded
    decode, strict schema, canonical encoding, then the agreement it must hash to.
    Raises ValueError saying what is wrong."""
    if not isinstance(raw, bytes):
        raise ValueError("the table header is not bytes")
    try:
        obj = bounded_unpackb(raw, HEADER_LIMITS)
        check_header_obj(obj)
        header = TranscriptHeader.from_obj(obj)
    except (DecodeError, TypeError, KeyError) as exc:
        raise ValueError(f"bad table header: {exc}") from None
    if header.to_bytes() != raw:
        raise ValueError("bad table header: not canonically encoded")
    return header, TableConfig.from_header(header)
