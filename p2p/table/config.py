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
from p2p.crypto.identity import verify_curve_certificate
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


@dataclass(frozen=True)
class TableConfig:
    rules: Rules
    seating: Seating
    players: tuple[Player, ...]    # in seat order
    nonce: bytes = b""             # makes two tables of the same friends distinct
    #: per seat ``(CURVE public key, certificate)``: the transport keys the table admits
    #: (empty: a table on plain ZeroMQ)
    curve: tuple[tuple[bytes, bytes], ...] = ()

    def __post_init__(self) -> None:
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
        return out

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
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"transcript header has no valid rule set: {exc}") from None
        cfg = cls(rules, seating, header.players, nonce, curve)
        if cfg.table_id != header.table:
            raise ValueError("the header's table id does not match its rules and players")
        if cfg.cards != header.cards:
            raise ValueError("the header's card list does not match the rules")
        return cfg


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
