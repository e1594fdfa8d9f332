"""``millebornes verify``: the cryptographic checks, then a replay of the game through the engine.

:func:`verify_game` first runs :func:`~p2p.transcript.verify_crypto` (signatures, chain,
commitments, every shuffle pass recomputed, every proof, every revealed card), then replays
every hand with the revealed deck orders through the very protocol code the players ran,
with a full-information engine: every entry must come from the seat whose turn it was,
every move must be legal, every opened card must be the one the move names. It never
raises on a hostile file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from .hand import ProtocolError
from .match import MatchProtocol
from .table import TableConfig
from .transcript import VerifyReport, read_transcript, verify_crypto


@dataclass
class GameReport:
    ok: bool
    crypto: VerifyReport
    names: tuple[str, ...] = ()
    failed_index: int | None = None
    check: str | None = None
    blamed_seat: int | None = None
    detail: str = ""
    hands: list[dict[str, Any]] = field(default_factory=list)
    totals: tuple[int, ...] = ()
    winner: int = -1
    complete: bool = False

    def blamed(self) -> str:
        if self.blamed_seat is None:
            return "nobody identified"
        name = self.names[self.blamed_seat] if self.blamed_seat < len(self.names) else "?"
        if self.check == "bad-signature":
            # An unsigned or altered entry proves nothing about its claimed author.
            return (f"nobody identified: the entry claims to be from seat {self.blamed_seat} "
                    f"({name}) but is not signed by it, so the file was altered or forged")
        return f"seat {self.blamed_seat} ({name})"

    def summary(self) -> str:
        if not self.ok:
            where = f"entry {self.failed_index}" if self.failed_index is not None else \
                (f"byte {self.crypto.offset}" if self.crypto.offset is not None else "the end")
            return (f"FAILED at {where}: check '{self.check}' broken by {self.blamed()}"
                    + (f" — {self.detail}" if self.detail else ""))
        lines = [f"OK: {self.crypto.entries_checked} signed entries, {len(self.hands)} hand(s); "
                 "every signature, link, commitment, shuffle, proof and move checks out."]
        for h in self.hands:
            lines.append(f"  hand {h['hand'] + 1}: first player seat {h['first_seat']}, "
                         f"{h['turns']} turns, ended by {h['end']}, scores {h['scores']}")
        if self.totals:
            lines.append(f"  totals {list(self.totals)}; winner: "
                         + (f"side {self.winner}" if self.winner >= 0 else "none yet"))
        return "\n".join(lines)


def verify_game(path: str | os.PathLike[str]) -> GameReport:
    crypto = verify_crypto(path)
    rep = GameReport(ok=False, crypto=crypto)
    if not crypto.ok:
        rep.failed_index, rep.check, rep.blamed_seat = (crypto.failed_index, crypto.check,
                                                        crypto.blamed_seat)
        rep.detail = crypto.detail
        try:
            rep.names = tuple(p.name for p in read_transcript(path).header.players)
        except Exception:  # the file may be too broken to name anyone
            pass
        return rep
    try:
        return _replay(path, rep)
    except ProtocolError as exc:
        rep.check, rep.blamed_seat, rep.detail = exc.check, exc.seat, exc.detail
        return rep
    except Exception as exc:  # a verifier must not crash on a crafted file
        rep.check, rep.detail = "unexpected-error", f"{type(exc).__name__}: {exc}"
        return rep


def _replay(path: str | os.PathLike[str], rep: GameReport) -> GameReport:
    crypto = rep.crypto
    transcript = read_transcript(path)
    rep.names = tuple(p.name for p in transcript.header.players)
    try:
        cfg = TableConfig.from_header(transcript.header)
    except ValueError as exc:
        rep.check, rep.detail = "header", str(exc)
        return rep
    decks = {h: res.decks for h, res in crypto.hands.items()}
    match = MatchProtocol(cfg, None, decks)
    for entry in crypto.entries:
        try:
            match.receive(entry.hand, entry.seat, entry.body)
        except ProtocolError as exc:
            rep.failed_index = entry.index
            rep.check, rep.blamed_seat, rep.detail = exc.check, exc.seat, exc.detail
            return rep
        if match.hand.done or (match.hand.hand_no != entry.hand):
            pass
    for i, scores in enumerate(match.scores):
        rep.hands.append({"hand": i, "scores": [s.total for s in scores]})
    _describe_hands(match, rep)
    if match.match is not None:
        rep.totals = match.match.totals()
        rep.winner = match.match.winner()
    if not match.done:
        e = match.hand.expected()
        rep.check = "incomplete"
        rep.blamed_seat = None if e is None else e.seat
        rep.detail = ("the transcript stops while waiting for "
                      + ("nobody" if e is None else f"seat {e.seat} to write {e.kind}"))
        return rep
    rep.ok = True
    rep.complete = True
    return rep


def _describe_hands(match: MatchProtocol, rep: GameReport) -> None:
    for h, info in zip(match.finished, rep.hands, strict=False):
        info.update(h)


@dataclass(frozen=True)
class ReplayStep:
    """One step of a verified game, with every hand shown (full information)."""

    hand: int
    index: int            # entry index in the transcript
    seat: int             # who wrote the entry
    state: Any            # engine.HandState after the entry (full information)
    action: Any           # the engine action applied, or None for a crypto step


def replay_steps(path: str | os.PathLike[str]) -> tuple[GameReport, list[ReplayStep]]:
    """The game's states after each move, for ``millebornes replay``; only for a transcript
    that verifies (the report says why not otherwise, and the list is then empty)."""
    rep = verify_game(path)
    if not rep.ok:
        return rep, []
    transcript = read_transcript(path)
    cfg = TableConfig.from_header(transcript.header)
    match = MatchProtocol(cfg, None, {h: r.decks for h, r in rep.crypto.hands.items()})
    steps: list[ReplayStep] = []
    for entry in rep.crypto.entries:
        hp = match.hand
        before = hp.state
        match.receive(entry.hand, entry.seat, entry.body)
        if hp.state is not None and hp.state is not before:
            # The state changes when a move takes effect (a pile draw once its shares are
            # in, a play once its card is opened): the move is then the last one logged.
            action = hp.actions[-1] if hp.actions else None
            steps.append(ReplayStep(entry.hand, entry.index, entry.seat, hp.state, action))
    return rep, steps
