"""A table whose peers all live in this process: the full protocol, no sockets.

Every seat is a separate :class:`~p2p.match.MatchProtocol` with its own secrets and its
own view; entries are really signed and chained, checked by a :class:`LogVerifier`, and
written to a transcript file. ``millebornes simulate --fair-deck`` and the tests use it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine import Action, HandState, Rules, Seating
from p2p.crypto.identity import Identity
from p2p.table.config import TableConfig
from p2p.table.match import MatchProtocol
from p2p.transcript.envelope import Envelope, LogVerifier
from p2p.transcript.file import Player, TranscriptWriter

Chooser = Callable[[HandState, list[Action]], Action]


@dataclass
class FairMatchResult:
    protocols: list[MatchProtocol]
    entries: int
    transcript: Path | None

    @property
    def winner(self) -> int:
        return self.protocols[0].winner()


def make_table(rules: Rules, seating: Seating, names: Sequence[str], key_seed: bytes,
               nonce: bytes | None = None) -> tuple[TableConfig, list[Identity]]:
    """A table of in-process players with keys derived from ``key_seed`` (tests, simulator)."""
    ids = [Identity.from_seed(hashlib.sha256(key_seed + bytes([s])).digest())
           for s in range(seating.n_players)]
    players = tuple(Player(s, names[s], ids[s].public_key) for s in range(seating.n_players))
    cfg = TableConfig(rules, seating, players, os.urandom(8) if nonce is None else nonce)
    return cfg, ids


def play_fair_match(cfg: TableConfig, ids: Sequence[Identity], choosers: Sequence[Chooser],
                    transcript: str | os.PathLike[str] | None = None,
                    tamper: Callable[[int, int, dict[str, object]], dict[str, object]] | None
                    = None) -> FairMatchResult:
    """Play a whole match through the fair-deck protocol, one protocol object per seat.

    ``tamper(hand, seat, body)`` may rewrite a body before it is signed (cheat tests).
    Raises :class:`~p2p.hand.ProtocolError` naming the seat when a check fails.
    """
    n = cfg.n
    peers = [MatchProtocol(cfg, s) for s in range(n)]
    header = cfg.header()
    writer = TranscriptWriter(transcript, header) if transcript is not None else None
    count = 0
    try:
        hand_no = -1
        verifier: LogVerifier | None = None
        seqs = [0] * n
        prev = b""
        while not peers[0].done:
            hp = peers[0].hand
            if hp.hand_no != hand_no:
                hand_no = hp.hand_no
                verifier = LogVerifier(cfg.table_id, hand_no, header.keys,
                                       header.genesis(hand_no), linear=True)
                seqs = [0] * n
                prev = header.genesis(hand_no)
            # A peer that saw a cheat it cannot pin yet writes game.abort at once.
            aborting = [s for s, p in enumerate(peers) if p.hand.suspicion is not None
                        and p.hand.aborted_by is None]
            w = aborting[0] if aborting else hp.expected_writer()
            assert w is not None and verifier is not None
            body = peers[w].hand.next_body(choosers[w])
            if tamper is not None:
                body = tamper(hand_no, w, body)
            env = Envelope.create(ids[w], cfg.table_id, hand_no, seqs[w], prev, body)
            verifier.accept(env)
            seqs[w] += 1
            prev = env.hash()
            if writer is not None:
                writer.append(env)
            for p in peers:
                p.receive(hand_no, w, body)
            count += 1
    finally:
        if writer is not None:
            writer.close()
    return FairMatchResult(peers, count, Path(transcript) if transcript is not None else None)
