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
from typing import Any

from engine import Action, HandState, Rules, Seating
from p2p.crypto import group as g
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
    cfg = TableConfig(rules, seating, players, g.entropy(8) if nonce is None else nonce)
    return cfg, ids


def play_fair_match(cfg: TableConfig, ids: Sequence[Identity], choosers: Sequence[Chooser],
                    transcript: str | os.PathLike[str] | None = None,
                    tamper: Callable[[int, int, dict[str, object]], dict[str, object]] | None
                    = None, check_moves: bool = True) -> FairMatchResult:
    """Play a whole match through the fair-deck protocol, one protocol object per seat.

    ``tamper(hand, seat, body)`` may rewrite a body before it is signed (cheat tests);
    ``check_moves=False`` lets a chooser's illegal move be signed (a cheater's software:
    see :meth:`HandProtocol.next_body`).
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
            w = hp.expected_writer()
            assert w is not None and verifier is not None
            body = peers[w].hand.next_body(choosers[w], check_moves)
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


# --------------------------------------------------------------------------- cheat demo

#: Every cheat ``millebornes simulate --fair-deck --cheat KIND`` can stage, and what the
#: cheater does.
CHEAT_KINDS: dict[str, str] = {
    "shuffle-drop": "drops a card from its shuffle pass",
    "shuffle-substitute": "swaps a card of its shuffle pass for a fresh encryption of a "
                          "card of its choice",
    "shuffle-duplicate": "copies one card of its shuffle pass over another",
    "bad-shuffle-proof": "shuffles honestly but publishes a forged proof of shuffle",
    "bad-share": "sends a wrong decryption share for a card dealt to another seat",
    "card-not-held": "plays or discards a card it does not hold",
    "equivocation": "signs two different entries for one place in the log",
    "withheld-reveal": "never reveals its hand secrets after the hand",
    "bad-reveal": "reveals a shuffle seed other than the one it committed to",
}

_STAGES = {"setup": "shuffle", "reshuffle": "shuffle", "deal": "deal", "play": "play",
           "end": "reveal", "done": "reveal"}


@dataclass
class CheatOutcome:
    """What happened to a staged cheat: who caught it, when, and what ``verify`` says of
    the transcript the table kept."""

    kind: str
    cheater: int
    caught: bool
    blamed: list[int]
    verdict: str                 #: "cheat", "unresponsive", or "none" (not caught)
    stage: str | None            #: "shuffle", "deal", "play" or "reveal"
    detected_by: list[int]
    check: str | None
    detail: str
    hand: int | None
    transcript: Path
    verify_ok: bool = True
    verify_blamed: int | None = None
    verify_check: str | None = None
    verify_summary: str = ""
    #: where verify found the break (None: at the end, or nowhere), for a console's words
    verify_index: int | None = None

    def as_dict(self) -> dict[str, object]:
        return {"cheat": self.kind, "cheater": self.cheater, "caught": self.caught,
                "blamed": self.blamed, "verdict": self.verdict, "stage": self.stage,
                "detected_by": self.detected_by, "check": self.check, "detail": self.detail,
                "hand": self.hand, "transcript": str(self.transcript),
                "verify": {"ok": self.verify_ok, "blamed": self.verify_blamed,
                           "check": self.verify_check, "summary": self.verify_summary}}


class _Cheat:
    """The cheater's modified software: rewrites its own bodies (once) for one kind."""

    def __init__(self, kind: str, cheater: int, cfg: TableConfig) -> None:
        if kind not in CHEAT_KINDS:
            raise ValueError(f"unknown cheat {kind!r}; one of {', '.join(CHEAT_KINDS)}")
        self.kind = kind
        self.cheater = cheater
        self.cfg = cfg
        self.done = False
        self.swap: tuple[int, int] | None = None

    def rewrite(self, body: dict[str, Any], peer: MatchProtocol) -> dict[str, Any] | None:
        """The body the cheater publishes instead of ``body`` (None: no cheat here)."""
        from engine.actions import Discard, Play, action_from_data, action_to_data
        from engine.cards import Kind, kind
        from p2p.deck.ciphers import card_point
        from p2p.deck.messages import PUBLIC

        k = body.get("k")
        c = self.kind
        if c.startswith("shuffle-") and k == "deck.pass":
            deck = list(body["deck"])
            if c == "shuffle-drop":
                deck = deck[:-1]
            elif c == "shuffle-duplicate":
                deck[-1] = deck[-2]
            else:
                joint = peer.hand.deck.joint
                assert joint is not None
                aces = [x for x in self.cfg.cards if kind(x) == Kind.DRIVING_ACE]
                r = g.random_scalar()
                card = (aces or list(self.cfg.cards))[0]
                deck[-1] = g.base(r) + g.add(card_point(card), g.mul(r, joint))
            return {**body, "deck": deck}
        if c == "bad-shuffle-proof" and k == "deck.pass":
            proof, n = body["proof"], len(body["deck"])
            t1 = proof[64 * n:64 * n + 32]  # after the n commitments and the n chain links
            forged = proof[:64 * n] + g.add(t1, g.G) + proof[64 * n + 32:]
            return {**body, "proof": forged}
        if c == "bad-share" and k == "deck.share" and body["to"] not in (PUBLIC, self.cheater):
            return {**body, "d": g.add(body["d"], g.G)}
        if c == "bad-reveal" and k == "deck.reveal":
            return {**body, "seeds": [bytes(32)] + list(body["seeds"][1:])}
        if c == "equivocation" and k == "game.act":
            return body  # published as is; the second version is signed by the driver
        if c == "card-not-held":
            st = peer.hand.state
            if k == "game.act" and self.swap is None and st is not None:
                a = action_from_data(body["a"])
                if not isinstance(a, (Play, Discard)):
                    return None
                real = a.card
                held = set(st.hand(self.cheater)) | set(st.public_cards())
                fakes = [x for x in self.cfg.cards if x not in held and kind(x) == kind(real)]
                if not fakes:
                    return None
                self.swap = (real, fakes[0])
                return {**body, "a": action_to_data(a._replace(card=fakes[0]))}
            if (k == "deck.share" and self.swap is not None and body["to"] == PUBLIC
                    and body["card"] == self.swap[0]):
                return {**body, "card": self.swap[1]}
            return None
        return None

    @property
    def final_step(self) -> bool:
        """True once the rewrite just returned completes the cheat (card-not-held takes
        two: the move, then the open that claims the card)."""
        return self.kind != "card-not-held" or self.swap is not None


def stage_cheat(cfg: TableConfig, ids: Sequence[Identity], choosers: Sequence[Chooser],
                kind: str, cheater: int, transcript: str | os.PathLike[str]) -> CheatOutcome:
    """Play a match in which seat ``cheater`` runs modified software that commits the cheat
    ``kind`` once; stop when an honest peer catches it (or, for a withheld reveal, when
    the table would wait on the cheater for ever).  The cheater's own peer goes on believing
    what it meant to write; the honest peers get, and the transcript keeps, what it
    published.  Then ``verify`` the transcript."""
    from p2p.audit import verify_game
    from p2p.table.hand_protocol import ProtocolError
    from p2p.transcript.envelope import LogError

    n = cfg.n
    if not 0 <= cheater < n:
        raise ValueError(f"--cheater must be a seat 0..{n - 1}")
    cheat = _Cheat(kind, cheater, cfg)
    peers = [MatchProtocol(cfg, s) for s in range(n)]
    honest = [s for s in range(n) if s != cheater]
    watch = peers[honest[0]]
    header = cfg.header()
    path = Path(transcript)
    out = CheatOutcome(kind, cheater, False, [], "none", None, [], None, "", None, path)
    with TranscriptWriter(path, header) as writer:
        hand_no = -1
        verifiers: list[LogVerifier] = []
        seqs = [0] * n
        prev = b""
        while not watch.done:
            hp = watch.hand
            if hp.hand_no != hand_no:
                hand_no = hp.hand_no
                verifiers = [LogVerifier(cfg.table_id, hand_no, header.keys,
                                         header.genesis(hand_no), linear=True)
                             for _ in range(n)]
                seqs = [0] * n
                prev = header.genesis(hand_no)
            w = hp.expected_writer()
            assert w is not None
            stage = _STAGES.get(watch.hand._stage, "play")
            meant = peers[w].hand.next_body(choosers[w], check=w != cheater)
            body = meant
            second: dict[str, Any] | None = None
            if w == cheater and not cheat.done:
                if kind == "withheld-reveal" and meant.get("k") == "deck.reveal":
                    out.caught, out.blamed, out.verdict = True, [cheater], "unresponsive"
                    out.stage, out.detected_by, out.check = "reveal", honest, "reveal-missing"
                    out.detail = "the table waits on its reveal and times out"
                    out.hand = hand_no
                    break
                new = cheat.rewrite(dict(meant), peers[w])
                if new is not None:
                    body = new
                    cheat.done = cheat.final_step
                    if kind == "equivocation":
                        second = {**meant, "note": "another version of this entry"}
            envs = [Envelope.create(ids[w], cfg.table_id, hand_no, seqs[w], prev, body)]
            if second is not None:
                envs.append(Envelope.create(ids[w], cfg.table_id, hand_no, seqs[w], prev,
                                            second))
            seqs[w] += 1
            prev = envs[0].hash()
            caught: list[tuple[int, str, str, int | None]] = []
            for env in envs:
                writer.append(env)
                for s, p in enumerate(peers):
                    if s == cheater and w == cheater:  # its own software believes `meant`
                        if env is envs[0]:
                            verifiers[s].accept(env)
                            p.receive(hand_no, w, meant)
                        continue
                    try:
                        verifiers[s].accept(env)
                        p.receive(hand_no, w, body)
                    except ProtocolError as e:
                        caught.append((s, e.check, e.detail or str(e), e.seat))
                    except LogError as e:
                        seat = next((pl.seat for pl in header.players if pl.key == e.author),
                                    None)
                        caught.append((s, e.check, e.detail, seat))
                if caught:
                    break
            if caught:
                out.caught = True
                out.detected_by = sorted({c[0] for c in caught})
                out.check, out.detail = caught[0][1], caught[0][2]
                out.blamed = sorted({c[3] for c in caught if c[3] is not None})
                out.verdict = "cheat"
                out.stage, out.hand = stage, hand_no
                break
    rep = verify_game(path)
    out.verify_ok, out.verify_blamed, out.verify_check = rep.ok, rep.blamed_seat, rep.check
    out.verify_summary = rep.summary()
    out.verify_index = rep.failed_index
    return out
