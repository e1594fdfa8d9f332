"""``millebornes verify``: the cryptographic checks, then a replay of the game through the engine.

:func:`verify_game` runs the checks of :func:`~p2p.transcript.verify_crypto` (signatures,
chain, commitments, every shuffle pass recomputed, every proof, every revealed card) hand
by hand as it reads the file (:func:`~p2p.transcript.file.verify_stream`), and replays each
hand once it passed, with its revealed deck orders, through the very protocol code the
players ran, with a full-information engine: every entry must come from the seat whose turn
it was, every move must be legal, every opened card must be the one the move names. About
one hand is held in memory, whatever the file's size. It never raises on a hostile file.
"""

from __future__ import annotations

import bisect
import copy
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from engine import apply_action
from p2p.deck.hand import HandResult
from p2p.deck.messages import CheatDetected, DecryptShare, message_from_body
from p2p.table.config import TableConfig, rules_fault
from p2p.table.hand_protocol import ProtocolError
from p2p.table.match import MatchProtocol
from p2p.table.replicated_log import deck_body_fault, equivocator
from p2p.text import safe_text
from p2p.transcript.agreement import MatchEnd, Takeover, agreements_of, seat_of_keys
from p2p.transcript.envelope import Envelope, EnvelopeError
from p2p.transcript.file import (
    DecodedEntry,
    Player,
    StreamHooks,
    Transcript,
    TranscriptHeader,
    VerifyReport,
    is_side,
    iter_log,
    iter_transcript,
    reached_by,
    read_failure,
    scan_transcript,
    verify_stream,
)


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
    #: the transcript just stops (a player left, a crash): every entry in it holds, the
    #: next one is missing. ``ok`` stays False (it does not prove a whole game); the
    #: console says "fair so far". ``stopped_hand`` is 0-based, ``waiting_for`` the seat
    #: whose entry is due (None: between hands).
    unfinished: bool = False
    stopped_hand: int = 0
    waiting_for: int | None = None
    #: the seat a signed, unrefuted timeout claim names (shown as unresponsive, not blamed)
    unresponsive: int | None = None
    #: the seat whose signed leave record the transcript holds
    abandoned_by: int | None = None
    side: list[Envelope] = field(default_factory=list)
    #: the log's entries' hashes by slot (hand, author, seq): a complaint's evidence is
    #: compared with them (a second version of a slot proves an equivocation)
    slots: dict[tuple[int, bytes, int], bytes] = field(default_factory=dict, repr=False)
    #: the file verified (read again for the slots a complaint names, and by replay)
    path: str = field(default="", repr=False)
    #: the table's agreed time limits, in words (from the header; English)
    limits: str = ""
    #: the same as data, for a console's own words: seconds per protocol step, per move
    #: (None: moves untimed), and whether the header recorded them (else: the defaults of
    #: the version that wrote it). ``step_limit`` None: no readable header.
    step_limit: float | None = None
    decision_limit: float | None = None
    limits_recorded: bool = True
    #: the step due when the transcript stops (``deck.reveal``, ``game.act``; "" when
    #: none is, or it does not stop early), for a console's own words
    waiting_step: str = ""
    #: ``detail`` as an id and data, for a console's own words, when it has them: a
    #: header whose rule set or seating the engine refuses (``rule-option``; data:
    #: ``why`` and ``data`` of :class:`engine.rules.RuleOptionError`)
    detail_why: str = ""
    detail_data: dict[str, Any] = field(default_factory=dict)
    #: seats taken over by a bot by agreement: {hand (voided), seat, runner, signers}
    takeovers: list[dict[str, Any]] = field(default_factory=list)
    #: the match ended by agreement: {hand, seat (who left), signers}, or None
    ended_by_agreement: dict[str, Any] | None = None
    #: hands ended without a score by agreement (0-based)
    voided: list[int] = field(default_factory=list)
    #: per voided hand, the point its agreement names (entries of it that are part of the
    #: match; later ones, a silent seat's entries that came after the point, are checked
    #: as signed links only); a hand missing here (an older record) is played as far as
    #: it went
    void_from: dict[int, int] = field(default_factory=dict)

    def agreement_lines(self) -> list[str]:
        """The agreements in words (English; the console words them in cli.words)."""
        def name(s: int) -> str:
            return self.names[s] if 0 <= s < len(self.names) else f"seat {s}"

        def joined(seats: list[int]) -> str:
            ns = [name(s) for s in seats]
            return ns[0] if len(ns) == 1 else ", ".join(ns[:-1]) + " and " + ns[-1]
        out = []
        for t in self.takeovers:
            out.append(f"hand {t['hand'] + 1} was left unfinished, without a score; from hand "
                       f"{t['hand'] + 2}, {name(t['seat'])}'s seat was played by a bot run by "
                       f"{name(t['runner'])} (agreed by {joined(t['signers'])})")
        e = self.ended_by_agreement
        if e is not None:
            out.append(f"the match was ended in hand {e['hand'] + 1} by "
                       f"{joined(e['signers'])}, saying {name(e['seat'])} had left")
        return out

    def version_unsupported(self) -> bool:
        return self.check == "unsupported-version"

    def blamed(self) -> str:
        if self.blamed_seat is None:
            return "nobody identified"
        name = self.names[self.blamed_seat] if self.blamed_seat < len(self.names) else "?"
        if self.check == "bad-signature":
            # An unsigned or altered entry proves nothing about its claimed author.
            return (f"nobody identified: the entry claims to be from seat {self.blamed_seat} "
                    f"({name}) but is not signed by it, so the file was altered or forged")
        bots = [t for t in self.takeovers if t["seat"] == self.blamed_seat]
        if bots:
            # the seat's key changed hands: say who signed for it from when
            t = bots[-1]
            runner = self.names[t["runner"]] if t["runner"] < len(self.names) else "?"
            return (f"seat {self.blamed_seat} ({name}; from hand {t['hand'] + 2} a bot run "
                    f"by {runner})")
        return f"seat {self.blamed_seat} ({name})"

    def summary(self) -> str:
        if self.version_unsupported():
            return self.detail
        extra = self.agreement_lines()
        return "\n".join([self._summary(), *extra]) if extra else self._summary()

    def _summary(self) -> str:
        if not self.ok and self.check == "unresponsive":
            return (f"INCOMPLETE: {self.detail} (unresponsive: nobody is blamed, since "
                    "non-delivery cannot be proven)")
        if not self.ok and self.abandoned_by is not None and self.blamed_seat is None:
            return f"INCOMPLETE: {self.detail} (a signed leave record; nobody is blamed)"
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


#: A hand's bytes past which its entries are followed by a spectator as they pass (an
#: entry no protocol step allows then stops the reading): a real hand takes under 1 MB
#: at six seats (some 350 KB in a measured six-seat match), and a smaller one is
#: replayed only once it passed whole, with its revealed decks (a spectator would do the
#: decryptions of the cryptographic pass again: twice the time).
SPECTATE_FROM_BYTES = 1 << 20
#: Entries (and bytes of them) read on past a protocol fault the spectator saw, looking
#: for the end of the hand, whose reveals let the full-information replay name an
#: earlier fault only it can see (a card not held); beyond these, the spectator's
#: verdict stands. The entries read on are held until the hand ends.
FAULT_READ_ON = 20_000
FAULT_READ_ON_BYTES = 256 << 10


def verify_game(path: str | os.PathLike[str], workers: int = 0) -> GameReport:
    """Verify a transcript file; the report names the first failing entry and whom to blame.
    ``workers``: processes that check the proofs of shuffle in parallel (see verify_crypto).

    The file is read twice, one entry at a time: a first pass for its header and side
    entries (the agreements, claims and complaints), then the checks hand by hand, each
    hand replayed once its cryptography passed, its entries then let go. A spectator
    follows the log as the entries pass, so an entry no protocol step allows stops the
    reading (a crafted file is not read on to its end). Memory stays about one hand's
    entries, whatever the file's size."""
    try:
        scanned = scan_transcript(path)
    except Exception as exc:  # corrupt or unreadable: said as verify_crypto says it
        crypto = VerifyReport()
        try:
            read_failure(crypto, exc)
        except Exception:
            crypto.fail(None, "unexpected-error", None, None, f"{type(exc).__name__}: {exc}")
        rep = GameReport(ok=False, crypto=crypto)
        return _fail_from(rep, crypto.failed_index, crypto.check, crypto.blamed_seat,
                          crypto.detail)
    transcript = scanned[0]
    hdr = transcript.header
    rep = GameReport(ok=False, crypto=VerifyReport())
    rep.names = tuple(p.name for p in hdr.players)
    takeovers, agreed_end, voided = agreements_of([p.key for p in hdr.players],
                                                  transcript.side, hdr.table,
                                                  reached_by(transcript))
    _set_agreements(rep, takeovers, agreed_end, voided)
    rep.side = _valid_side(transcript, [t.key for t in takeovers])
    rep.path = os.fspath(path)
    try:
        cfg = TableConfig.from_header(hdr)
    except ValueError as exc:
        rep.crypto = _crypto_only(path, scanned, workers)
        _fail_from(rep, None, "header", None, str(exc))
        fault = rules_fault(hdr.rules)
        if fault is not None:
            rep.detail_why, rep.detail_data = "rule-option", {"why": fault.why,
                                                              "data": fault.data}
        return rep
    rep.limits = cfg.limits_text() + ("" if cfg.limits_recorded else
                                      " (not recorded: this table's version's defaults)")
    rep.step_limit, rep.decision_limit = cfg.step_limit, cfg.decision_limit
    rep.limits_recorded = cfg.limits_recorded
    try:
        return _check(cfg, rep, path, scanned, workers)
    except Exception as exc:  # a verifier must not crash on a crafted file
        return _fail_from(rep, None, "unexpected-error", None, f"{type(exc).__name__}: {exc}")


def _set_agreements(rep: GameReport, takeovers: Sequence[Takeover], agreed_end: MatchEnd | None,
                    voided: Iterable[int]) -> None:
    """The report's agreements: the takeovers, the end by agreement, the voided hands and
    the point each voided hand stops at."""
    rep.takeovers = [{"hand": t.hand, "seat": t.seat, "runner": t.runner,
                      "signers": list(t.signers)} for t in takeovers]
    e = agreed_end
    rep.ended_by_agreement = (None if e is None else
                              {"hand": e.hand, "seat": e.seat, "signers": list(e.signers)})
    rep.voided = sorted(voided)
    rep.void_from = {t.hand: t.at for t in takeovers if t.at is not None}
    if e is not None and e.at is not None:
        rep.void_from[e.hand] = e.at


def _crypto_only(path: str | os.PathLike[str], scanned: tuple[Transcript, int],
                 workers: int) -> VerifyReport:
    """The cryptographic checks alone (no replay: the header names no table this version
    can play), stopped in a hand past :data:`SPECTATE_FROM_BYTES` (no spectator can follow
    it): a crafted hand is not held whole."""
    at = {"hand": -1, "bytes": 0}

    def on_entry(entry: DecodedEntry, size: int) -> bool:
        if entry.hand != at["hand"]:
            at["hand"], at["bytes"] = entry.hand, 0
        at["bytes"] += size
        return at["bytes"] > 2 * SPECTATE_FROM_BYTES

    hooks = StreamHooks(on_entry, lambda h, e, r: False, buffer=False)
    return verify_stream(path, scanned, hooks, workers)


def _fail_from(rep: GameReport, index: int | None, check: str | None, seat: int | None,
               detail: str) -> GameReport:
    rep.ok = False
    rep.failed_index, rep.check, rep.blamed_seat, rep.detail = index, check, seat, detail
    return rep


def _redeal(match: MatchProtocol, hand: int) -> None:
    """Deal hand ``hand`` again in ``match`` (in play, nothing received yet) with the
    decks now known: the match dealt it at the end of the previous hand, before this
    hand's reveals had been read."""
    hp = match.hand
    if hp.hand_no == hand and not match.done and not hp.done:
        match.hand = match._new_hand(hand, hp.first_seat)


class _Replay:
    """The checks of the game, fed by the streaming cryptographic pass: the auditor replays
    each hand with its revealed decks once the hand passed. A hand that grows past
    :data:`SPECTATE_FROM_BYTES` is followed by a spectator too (a copy of the auditor at
    the hand's start) as its entries pass: an entry no protocol step allows stops the pass
    at once, or within :data:`FAULT_READ_ON` entries when the hand's end may still come
    (its reveals let the auditor name an earlier fault only it can see)."""

    def __init__(self, cfg: TableConfig, rep: GameReport) -> None:
        self.rep = rep
        self.cfg = cfg
        self.decks: dict[int, tuple[tuple[int, ...], ...]] = {}
        self.auditor = MatchProtocol(cfg, None, self.decks)
        self.spectator: MatchProtocol | None = None
        self.hooks = StreamHooks(self.on_entry, self.on_hand)
        #: the spectator's first fault: (entry index, check, seat, detail)
        self.seen: tuple[int, str, int | None, str] | None = None
        #: the auditor's first fault
        self.fault: tuple[int, str, int | None, str] | None = None
        self.hand: int | None = None
        self.hand_bytes = 0
        self.read_on = 0
        self.read_on_bytes = 0
        #: the cryptographic pass's agreements when the last hand was handed on
        self.agreed: tuple[list[Takeover], MatchEnd | None, set[int]] | None = None

    def on_entry(self, entry: DecodedEntry, size: int) -> bool:
        if self.seen is not None:
            self.read_on += 1
            self.read_on_bytes += size
            return self.read_on >= FAULT_READ_ON or self.read_on_bytes >= FAULT_READ_ON_BYTES
        if entry.hand != self.hand:
            self.hand, self.hand_bytes, self.spectator = entry.hand, 0, None
        self.hand_bytes += size
        if self.spectator is not None:
            self._follow([entry])
        elif self.hand_bytes > SPECTATE_FROM_BYTES:
            # bigger than a real hand: follow it from its start (the auditor has not
            # received an entry of it yet) as a spectator
            self.spectator = copy.deepcopy(self.auditor, {id(self.cfg): self.cfg})
            assert self.hooks.report is not None
            self._follow(list(self.hooks.report.tail))
        return False

    def _follow(self, entries: list[DecodedEntry]) -> None:
        assert self.spectator is not None and self.hooks.report is not None
        for entry in entries:
            _agreed_until(self.spectator, self.rep, entry.hand)
            if self._left_after_end(self.spectator, entry):
                continue
            try:
                self.spectator.receive(entry.hand, entry.seat, entry.body)
            except ProtocolError as exc:
                self.seen = (entry.index, exc.check, exc.seat, exc.detail)
                # the auditor replays up to here, not further
                tail = self.hooks.report.tail
                tail[:] = [e for e in tail if e.index <= entry.index]
                self.hooks.buffer = False
                return

    def _left_after_end(self, match: MatchProtocol, entry: DecodedEntry) -> bool:
        """An entry, after the match ended by agreement, of the seat the end says left:
        no part of the match, and no fault of its author. The others alone sign an end
        (at two seats, the other player alone), and may keep it from that seat; it
        plays on, and its entries of the next hands were "after the end", blamed on it:
        at two seats, one player's record, written into the file it hands to `verify`,
        made the other player the cheat (hostile pass 18). A lone signer's own entry
        there is still its fault: its record alone ended the match, and it wrote on.
        Where several signed, one of them may have gone on, honestly, once it learnt
        that the end could not hold at its peer (another chose a bot), before the last
        record came: no one's fault either."""
        e = self.rep.ended_by_agreement
        return match.ended_in is not None and e is not None and (
            entry.seat == e["seat"] or len(e["signers"]) > 1)

    def on_hand(self, hand: int, entries: list[DecodedEntry], result: HandResult | None) -> bool:
        crypto = self.hooks.report
        if crypto is not None:
            agreed = (list(crypto.takeovers), crypto.agreed_end, set(crypto.voided))
            if agreed != self.agreed:
                # the cryptographic pass found a hand ended at a takeover's point (see
                # agreements_of's finished): its agreements are the report's now
                _set_agreements(self.rep, *agreed)
            self.agreed = agreed
        if result is not None:
            self.decks[hand] = result.decks
        stop = self.rep.void_from.get(hand)
        for n, entry in enumerate(entries):
            if stop is not None and n >= stop:
                break           # past the point of the agreement that voided the hand
            _agreed_until(self.auditor, self.rep, entry.hand)
            if self._left_after_end(self.auditor, entry):
                continue
            if n == 0 and result is not None:
                _redeal(self.auditor, hand)
            try:
                self.auditor.receive(entry.hand, entry.seat, entry.body)
            except ProtocolError as exc:
                self.fault = (entry.index, exc.check, exc.seat, exc.detail)
                return True
        return self.seen is not None


def _check(cfg: TableConfig, rep: GameReport, path: str | os.PathLike[str],
           scanned: tuple[Transcript, int], workers: int) -> GameReport:
    # Every hand that was revealed is replayed with its deck orders and a full-information
    # engine through the players' own protocol code: every entry must come from the seat
    # whose turn it was, every move must be legal with the real hands, every opened card
    # must be the one its move names.
    play = _Replay(cfg, rep)
    crypto = rep.crypto = verify_stream(path, scanned, play.hooks, workers)
    if not crypto.ok or play.fault is not None or play.seen is not None:
        fault = play.fault if play.fault is not None else play.seen
        if not crypto.ok or fault is None:
            rep = _check_broken(cfg, rep, play.auditor)
        else:
            rep = _fail_from(rep, *fault)
        # the checks stop in the auditor's hand: an agreement about a later one took
        # effect nowhere in what was checked (as for an incomplete transcript)
        _took_effect_by(rep, play.auditor.hand_no)
        return rep
    auditor = play.auditor
    _agreed_until(auditor, rep, None)
    if rep.ended_by_agreement is not None and auditor.ended_in is not None:
        # ended by agreement: everything there holds, the match has no winner
        rep.hands = [{"hand": i, "scores": [s.total for s in sc]}
                     for i, sc in enumerate(auditor.scores)]
        _describe_hands(auditor, rep)
        if auditor.scored is not None:
            rep.totals = auditor.scored.totals()
        rep.ok = True
        rep.stopped_hand = auditor.ended_in
        return rep
    if not auditor.done:
        judged = _judge_stop(cfg, rep, auditor, {})
        return judged if judged is not None else _incomplete(rep, auditor)
    # the match is over, and no agreement ended it: one about a hand it never reached (or
    # at a point past a hand's end) took effect nowhere. A peer keeps the records of the
    # next hand as they come (its hand may be over elsewhere), so every other seat could
    # sign, while the winner played the last hand, an end "after" the winner "left" of a
    # hand never dealt, and the winner's own report said so (hostile pass 9)
    _leave_out(rep, set(rep.voided) - set(auditor.voided))
    rep.ended_by_agreement = None
    for i, scores in enumerate(auditor.scores):
        rep.hands.append({"hand": i, "scores": [s.total for s in scores]})
    _describe_hands(auditor, rep)
    if auditor.scored is not None:
        rep.totals = auditor.scored.totals()
        rep.winner = auditor.scored.winner()
    rep.ok = True
    rep.complete = True
    return rep


def _check_broken(cfg: TableConfig, rep: GameReport, observer: MatchProtocol) -> GameReport:
    """The cryptographic checks failed (or the transcript stops early). Follow the game as
    a spectator up to that point: an earlier protocol fault (a move out of turn, a leaked
    draw, a bad seed) is the first failing entry; a transcript that just stops names the
    seat whose entry is due rather than a seat that could not reveal yet. ``observer``
    has followed every hand before the last one the pass reached (the auditor: those
    hands passed); it follows that hand's entries here as a spectator (its decks are not
    known)."""
    crypto = rep.crypto
    share_index: dict[tuple[int, int, int, int, int], int] = {}
    for entry in crypto.tail:
        if crypto.failed_index is not None and entry.index > crypto.failed_index:
            break
        _agreed_until(observer, rep, entry.hand)
        if isinstance(entry.deck, DecryptShare):
            m = entry.deck
            share_index[(entry.hand, m.round, m.pos, m.seat, m.recipient)] = entry.index
        try:
            observer.receive(entry.hand, entry.seat, entry.body)
        except ProtocolError as exc:
            return _fail_from(rep, entry.index, exc.check, exc.seat, exc.detail)
    stops_early = crypto.check in ("reveal-missing", "incomplete") and not observer.done
    if stops_early and (crypto.check == "reveal-missing" or rep.side):
        # (a leave record, a timeout claim or a complaint may explain the early stop)
        judged = _judge_stop(cfg, rep, observer, share_index)
        return judged if judged is not None else _incomplete(rep, observer)
    return _fail_from(rep, crypto.failed_index, crypto.check, crypto.blamed_seat,
                      crypto.detail)


def _judge_stop(cfg: TableConfig, rep: GameReport, observer: MatchProtocol,
                share_index: dict[tuple[int, int, int, int, int], int]) -> GameReport | None:
    """Why the transcript stops where ``observer`` stands, when its hand's shares or a
    complaint of ``rep.side`` say (None: neither does). The complaints are judged first,
    as the peer judged them: it stopped on the first that decided, whatever share of the
    hand it never checked (a peer checks a private share only when it is its recipient;
    ``verify`` checked every share first and named a bad share's author where the peer
    had named an unfounded complainer, two hostile seats: hostile pass 13). Then, before
    naming the seat whose entry is due, every share of the hand is checked in public
    (``share_index``: their entries' indexes, where known)."""
    judged = _judge_complaints(cfg, rep, observer)
    if judged is not None:
        return judged
    hp = observer.hand
    bad: list[tuple[int, CheatDetected]] = []
    for rd in hp.deck.rounds:
        for shares in rd.shares.values():
            for m in shares.values():
                try:
                    hp.deck.verify_share(m)
                except CheatDetected as cheat:
                    key = (hp.hand_no, m.round, m.pos, m.seat, m.recipient)
                    bad.append((share_index.get(key, -1), cheat))
    if bad:
        index, first = min(bad, key=lambda b: b[0])
        return _fail_from(rep, index if index >= 0 else None, first.check, first.seat,
                          str(first))
    return None


def _judge_complaints(cfg: TableConfig, rep: GameReport,
                      observer: MatchProtocol) -> GameReport | None:
    """The report a complaint of ``rep.side`` decides (its evidence shows a cheat, or it
    is unfounded), judged as live peers judge it; None when none decides. ``observer``
    has followed the transcript as far as it goes. Every live peer stops the match on a
    complaint, so a transcript that stops just after one, even before the next hand's
    first entry, is judged by it: it went to ``_incomplete`` at once, which named the
    seat whose entry was due (an honest one, the complainer's victim)."""
    # a bot that took a seat over by agreement signs with its own key: its evidence,
    # and its complaints, are that seat's (without them verify blamed the honest
    # seat that complained of the bot, or failed on its own KeyError); but only in
    # the hands it played (:func:`_seats_in`)
    upto = observer.hand_no
    _standing_side(rep, cfg.players, upto)
    if any(c.body.get("k") == "side.complaint" for c in rep.side):
        rep.slots = _slots_of(rep)

    def seat_of(c: Envelope) -> dict[bytes, int]:
        """The seats' keys for the entry the complaint ``c`` carries."""
        ev = _complained_entry(c)
        return {} if ev is None else _seats_in(rep, cfg.players, ev.hand, upto)

    def by(c: Envelope) -> int:
        return _seats_in(rep, cfg.players, c.hand, upto)[c.author]

    for c in rep.side:
        # in the transcript's order, which is the order its peer took them in: the first
        # complaint that decides there decided live (a peer stops on it and judges no
        # other). Before, every equivocation complaint went first, then every malformed
        # body, ...: with two complaints, verify and the peer named different seats
        if c.body.get("k") != "side.complaint":
            continue
        verdict = _complaint_verdict(c, seat_of(c), by(c), cfg.table_id, observer,
                                     rep.slots)
        if verdict is not None:
            return _fail_from(rep, None, *verdict)
    return None


def _complaint_verdict(c: Envelope, seat_of: dict[bytes, int], by: int, table: bytes,
                       observer: MatchProtocol,
                       slots: dict[tuple[int, bytes, int], bytes]
                       ) -> tuple[str, int, str] | None:
    """What the complaint ``c`` (by seat ``by``) decides, as
    ``ReplicatedLog._on_complaint`` decides it: (check, seat blamed, detail), or None
    when it decides nothing here. An equivocation complaint is judged on its pair alone;
    evidence that is no entry signed at this table by a key with a seat in its hand is
    unfounded; a signed body no honest peer writes (a malformed deck body, a share naming
    another seat) names its author, whatever its hand; another version of a slot the log
    holds is its author's equivocation; a share of the hand the checks stop in is checked
    (its author, or the complainer when it holds up). Any other entry is taken live as
    if its author had sent it: what the log made of it is in the log, and the complaint
    decides nothing (before, ``verify`` called a complaint about an entry it never held
    unfounded, whatever its check string: an honest recipient's complaint about a bad
    entry sent to it alone blamed it in the transcript of a peer that lagged)."""
    if c.body.get("check") == "equivocation":
        eq = equivocator(c.body, seat_of, table)
        if eq is not None:
            return ("equivocation", eq, f"seat {eq} signed two different entries for one "
                    f"slot (both in seat {by}'s complaint)")
        return ("unfounded-complaint", by,
                f"seat {by} complained (equivocation) but its evidence shows none")
    ev = _complained_entry(c)
    if ev is None or ev.table != table or ev.author not in seat_of or not ev.signature_ok():
        return ("unfounded-complaint", by, f"seat {by} complained but its evidence is not "
                "an entry signed at this table")
    if is_side(ev.body):
        return None
    accused = seat_of[ev.author]
    bad_body = _malformed_evidence(c, seat_of, table)
    if bad_body is not None:
        return ("malformed-body", accused, f"seat {accused} signed a malformed body "
                f"({bad_body[1]}; in seat {by}'s complaint)")
    if ev.body.get("k") != "deck.share":
        eq = _second_version(c, slots, seat_of, table)
        if eq is None:
            return None
        return ("equivocation", eq, f"seat {eq} signed two different entries for one slot "
                f"(one in this log, one in seat {by}'s complaint)")
    verdict = _share_verdict(c, seat_of, table, observer)
    if isinstance(verdict, CheatDetected):
        seat = accused if verdict.seat is None else verdict.seat
        return (verdict.check, seat, f"{verdict} (shown by seat {by}'s complaint)")
    if verdict is True:
        check = str(c.body.get("check"))[:60]
        return ("unfounded-complaint", by,
                f"seat {by} complained ({check}) but every share in the hand checks out")
    return None


def _slots_of(rep: GameReport) -> dict[tuple[int, bytes, int], bytes]:
    """The hashes of the log's entries in the slots the complaints name (the file read
    once more, one entry at a time)."""
    wanted = set()
    for c in rep.side:
        ev = _complained_entry(c)
        if ev is not None:
            wanted.add((ev.hand, ev.author, ev.seq))
    slots: dict[tuple[int, bytes, int], bytes] = {}
    if wanted:
        for e in iter_log(rep.path, rep.crypto.entries_checked or None):
            if (e.hand, e.author, e.seq) in wanted:
                slots[(e.hand, e.author, e.seq)] = e.hash()
    return slots


def _share_verdict(c: Envelope, seat_of: dict[bytes, int], table: bytes,
                   observer: MatchProtocol) -> CheatDetected | bool | None:
    """What the decryption share a complaint ``c`` carries shows, checked as live peers
    check it (its proof, whoever else got it): the cheat it proves; True when it is valid
    (the complaint is unfounded); False when it cannot be judged here (a share of a hand
    other than the one the checks stop in and the one finished just before it, whose
    deck live peers keep (``MatchProtocol.hand_for_shares``): they drop it; or of a
    round not shuffled here); None when ``c`` carries no signed share of a seat. Before,
    a share sent to its recipient alone was never checked: its recipient's complaint was
    called unfounded in the transcript of a third peer that never got the share, which
    blamed the honest recipient while every live peer blamed the share's author. A share
    whose body names another seat than its signer's is its signer's malformed body,
    whatever its hand (live peers blamed its author, ``verify`` the complainer)."""
    ev = _complained_entry(c)
    if (ev is None or ev.table != table or ev.body.get("k") != "deck.share"
            or ev.author not in seat_of or not ev.signature_ok()):
        return None
    try:
        m = message_from_body(ev.body)
    except (ValueError, KeyError, TypeError):
        return None                      # a malformed body: _malformed_evidence's
    if not isinstance(m, DecryptShare) or m.seat != seat_of[ev.author]:
        return CheatDetected(seat_of[ev.author], "malformed-body", "deck.share",
                             "a share naming another seat than its signer's")
    hand = observer.hand_for_shares(ev.hand)
    if hand is None or observer.done:
        return False
    deck = hand.deck
    if not deck.can_judge_share(m):
        return False
    try:
        deck.verify_share(m)
    except CheatDetected as cheat:
        return cheat
    return True


def _complained_entry(c: Envelope) -> Envelope | None:
    """The entry a complaint carries, decoded (None: no complaint, or no entry in it)."""
    if c.body.get("k") != "side.complaint" or not isinstance(c.body.get("entry"), bytes):
        return None
    try:
        return Envelope.decode(c.body["entry"])
    except EnvelopeError:
        return None


def _second_version(c: Envelope, slots: dict[tuple[int, bytes, int], bytes],
                    seat_of: dict[bytes, int], table: bytes) -> int | None:
    """The seat that signed the entry a complaint carries when the log holds a different
    entry of that author for the same slot (as live peers judge it), else None."""
    ev = _complained_entry(c)
    if ev is None or ev.table != table or ev.author not in seat_of or is_side(ev.body):
        return None
    have = slots.get((ev.hand, ev.author, ev.seq))
    if have is None or have == ev.hash() or not ev.signature_ok():
        return None
    return seat_of[ev.author]


def _malformed_evidence(c: Envelope, seat_of: dict[bytes, int],
                        table: bytes) -> tuple[int, str] | None:
    """A complaint carrying an entry signed at this table whose deck body no honest peer
    writes (as live peers judge it): its author's seat and why."""
    ev = _complained_entry(c)
    if ev is None or ev.table != table or ev.author not in seat_of or not ev.signature_ok():
        return None
    fault = deck_body_fault(ev.body)
    return None if fault is None else (seat_of[ev.author], fault[:80])


def _agreed_until(match: MatchProtocol, rep: GameReport, hand: int | None) -> None:
    """Apply the agreements to ``match`` before an entry of ``hand`` (None: at the end):
    a voided hand in play ends without a score; the agreed end ends the match."""
    while match.hand_no in rep.voided and (hand is None or hand > match.hand_no):
        e = rep.ended_by_agreement
        if e is not None and e["hand"] == match.hand_no:
            match.end_by_agreement(match.hand_no)
            return
        if not match.void(match.hand_no):
            return


def _valid_side(transcript: Transcript, bot_keys: list[bytes] | None = None) -> list[Envelope]:
    """The side entries (claims, leave records) signed by a seated player for this table
    (or by a bot that took a seat over by agreement)."""
    keys = {p.key for p in transcript.header.players} | set(bot_keys or ())
    return [e for e in transcript.side
            if e.author in keys and e.table == transcript.header.table and e.signature_ok()]


def _seats_in(rep: GameReport, players: Sequence[Player], hand: int,
              upto: int, keep_replaced: bool = False) -> dict[bytes, int]:
    """The seat of each key that may sign an entry or record of ``hand``: the players',
    and a bot's only from the hand after the one its takeover was agreed in, and only
    when that takeover took effect in what was checked (agreed in ``upto``, the hand the
    checks stop in, or before). At two seats the other seat alone agrees a takeover: a
    record of the next hand naming a bot of its own (its key) made the bot's signatures
    count as the honest seat's, and verify blamed that seat for the bot's equivocation,
    in a transcript that stops before the bot ever played (hostile pass 11). From then
    on the key the bot replaced signs nothing for the seat (``keep_replaced``: but a
    timeout claim, as live peers judge it; hostile pass 14)."""
    base = [p.key for p in sorted(players, key=lambda p: p.seat)]
    return seat_of_keys(base, [t for t in rep.crypto.takeovers if t.hand <= upto], hand,
                        keep_replaced)


def _standing_side(rep: GameReport, players: Sequence[Player], upto: int) -> None:
    """Leave out of ``rep.side`` the records signed by a key with no seat in their hand
    (:func:`_seats_in`): a bot's, before it played or when it never did."""
    rep.side = [c for c in rep.side
                if c.author in _seats_in(rep, players, c.hand, upto,
                                         c.body.get("k") == "side.timeout")]


def _leave_out(rep: GameReport, never: set[int]) -> None:
    """The agreements about the hands ``never`` took effect nowhere: not in the report."""
    rep.voided = sorted(set(rep.voided) - never)
    rep.takeovers = [t for t in rep.takeovers if t["hand"] not in never]
    rep.void_from = {h: at for h, at in rep.void_from.items() if h not in never}
    e = rep.ended_by_agreement
    if e is not None and e["hand"] in never:
        rep.ended_by_agreement = None


def _took_effect_by(rep: GameReport, hand: int) -> None:
    """An incomplete transcript stops in ``hand``: the agreements about a later hand took
    effect nowhere in it. A peer takes the records of the next hand as they come, so every
    other seat could sign one (an end "after" this seat "left") while this seat still
    played its hand, and its report of a transcript that stops there said "the match was
    ended in hand H+1 ..., saying you had left" under "the transcript stops in hand H"
    (hostile pass 10). Those of ``hand`` itself stay: they end or void it where they
    name, as they would once this peer got there (docs/protocol.md)."""
    _leave_out(rep, {h for h in rep.voided if h > hand}
               | {t["hand"] for t in rep.takeovers if t["hand"] > hand}
               | ({rep.ended_by_agreement["hand"]} if rep.ended_by_agreement is not None
                  and rep.ended_by_agreement["hand"] > hand else set()))


def _incomplete(rep: GameReport, observer: MatchProtocol) -> GameReport:
    """The transcript stops early: a signed leave record explains it (nobody blamed);
    a signed, unrefuted timeout claim names the seat due as *unresponsive* (nobody
    blamed: non-delivery cannot be proven); otherwise name the seat whose entry is due."""
    e = observer.hand.expected()
    rep.unfinished = True
    rep.stopped_hand = observer.hand_no
    _took_effect_by(rep, observer.hand_no)
    rep.waiting_for = e.seat if e is not None else None
    rep.waiting_step = e.kind if e is not None else ""
    rep.hands = [{"hand": i, "scores": [s.total for s in sc]}
                 for i, sc in enumerate(observer.scores)]
    _describe_hands(observer, rep)
    if observer.scored is not None:
        rep.totals = observer.scored.totals()
    _standing_side(rep, _players(rep, observer), observer.hand_no)
    seat_of = {p.key: p.seat for p in _players(rep, observer)}
    seat_of.update({t.key: t.seat for t in rep.crypto.takeovers})
    for side in rep.side:
        # a leave record counts when its signer holds the seat in the hand the transcript
        # stops in, as live peers take it (the player a bot replaced, dating one back to
        # the hand he still played, stopped the bot's table: hostile pass 14)
        if side.body.get("k") == "side.abandon" and side.author in _seats_in(
                rep, _players(rep, observer), max(side.hand, observer.hand_no),
                observer.hand_no):
            s = seat_of[side.author]
            rep.abandoned_by = s
            return _fail_from(rep, None, "incomplete", None,
                              f"seat {s} ({rep.names[s]}) left the table: "
                              f"{safe_text(str(side.body.get('reason', '')), 200, placeholder='')}")
    if e is None:
        return _fail_from(rep, None, "incomplete", None, "the transcript stops between hands")
    written = sum(1 for x in rep.crypto.tail
                  if x.hand == observer.hand_no and x.seat == e.seat)
    # the key that signs the seat's step in this hand never claims it timed out: a
    # stalling seat's own claim read "unresponsive, nobody blamed" (hostile pass 25). The
    # player a bot replaced may (he follows the table as a spectator, as live peers do)
    due = {k for k, s in _seats_in(rep, _players(rep, observer), observer.hand_no,
                                   observer.hand_no).items() if s == e.seat}
    claims = [seat_of[c.author] for c in rep.side if c.body.get("k") == "side.timeout"
              and c.body.get("slot") == [observer.hand_no, e.seat, written]
              and c.author not in due]
    if claims:
        rep.unresponsive = e.seat
        return _fail_from(rep, None, "unresponsive", None,
                          f"seat {e.seat} ({rep.names[e.seat]}) did not write {e.kind} in hand "
                          f"{observer.hand_no + 1} within the table's time limit (claimed, "
                          f"signed, by seat(s) {sorted(set(claims))})")
    check = "reveal-missing" if e.kind == "deck.reveal" else "incomplete"
    return _fail_from(rep, None, check, e.seat,
                      f"the transcript stops while waiting for seat {e.seat} to write {e.kind}"
                      f" in hand {observer.hand_no + 1}")


def _players(rep: GameReport, observer: MatchProtocol) -> tuple[Player, ...]:
    return observer.cfg.players


def _describe_hands(match: MatchProtocol, rep: GameReport) -> None:
    for h, info in zip(match.finished, rep.hands, strict=False):
        info.update(h)


def _header_of(path: str | os.PathLike[str]) -> TranscriptHeader:
    for _off, item in iter_transcript(path):
        if isinstance(item, TranscriptHeader):
            return item
        break
    raise ValueError("no header")


@dataclass(frozen=True)
class ReplayStep:
    """One step of a verified game, with every hand shown (full information)."""

    hand: int
    index: int            # entry index in the transcript
    seat: int             # who wrote the entry
    state: Any            # engine.HandState after the entry (full information)
    action: Any           # the engine action applied, or None for a crypto step


class ReplaySteps(Sequence[ReplayStep]):
    """The steps of :func:`replay_steps`, about one hand's states held at a time.

    A state holds the hand's history, so the states of a hand of n moves take memory in
    n squared, and every step's state kept (3.2 KB a step on a real game) made a valid
    transcript at the file limit take gigabytes to replay (hostile pass 20). A step is
    kept as its move; its state is worked out again from the hand's first state with
    the engine (:func:`engine.apply_action`) when asked for, and the states of the hand
    last asked for are kept. A state the engine does not give from the one before and
    the move is kept as it came (never seen in a verified game; the replay shows what
    the protocol made of the transcript either way)."""

    def __init__(self) -> None:
        #: (hand, entry index, seat, action, the state if not derived from the one before)
        self._steps: list[tuple[int, int, int, Any, Any]] = []
        self._starts: list[int] = []          # index of each hand's first step
        self._last: Any = None                # the state of the last step added
        self._cached: tuple[int, list[Any]] = (-1, [])   # hand position, its states

    def add(self, hand: int, index: int, seat: int, state: Any, action: Any) -> None:
        new_hand = not self._steps or self._steps[-1][0] != hand
        kept = state
        if not new_hand and action is not None:
            try:
                if apply_action(self._last, action) == state:
                    kept = None
            except Exception:   # IllegalAction or a move of another kind: kept as it came
                pass
        if new_hand:
            self._starts.append(len(self._steps))
        self._steps.append((hand, index, seat, action, kept))
        self._last = state

    def __len__(self) -> int:
        return len(self._steps)

    def _hand_states(self, k: int) -> list[Any]:
        if self._cached[0] != k:
            start = self._starts[k]
            end = self._starts[k + 1] if k + 1 < len(self._starts) else len(self._steps)
            states: list[Any] = []
            for _hand, _index, _seat, action, kept in self._steps[start:end]:
                states.append(kept if kept is not None
                              else apply_action(states[-1], action))
            self._cached = (k, states)
        return self._cached[1]

    @overload
    def __getitem__(self, i: int) -> ReplayStep: ...
    @overload
    def __getitem__(self, i: slice) -> list[ReplayStep]: ...

    def __getitem__(self, i: int | slice) -> ReplayStep | list[ReplayStep]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self._steps):
            raise IndexError("replay step out of range")
        k = bisect.bisect_right(self._starts, i) - 1
        hand, index, seat, action, _kept = self._steps[i]
        return ReplayStep(hand, index, seat, self._hand_states(k)[i - self._starts[k]],
                          action)


def replay_steps(path: str | os.PathLike[str]) -> tuple[GameReport, ReplaySteps]:
    """The game's states after each move, for ``millebornes replay``: every hand of a
    transcript that verifies, every finished hand of one that just stops (``unfinished``);
    nothing when a check fails (the report says why)."""
    rep = verify_game(path)
    steps = ReplaySteps()
    if not rep.ok and not rep.unfinished:
        return rep, steps
    cfg = TableConfig.from_header(_header_of(path))
    match = MatchProtocol(cfg, None, {h: r.decks for h, r in rep.crypto.hands.items()})
    in_hand: dict[int, int] = {}
    for entry in rep.crypto.entries:
        n = in_hand[entry.hand] = in_hand.get(entry.hand, -1) + 1
        if n >= rep.void_from.get(entry.hand, n + 1):
            continue        # past the point of the agreement that voided the hand
        _agreed_until(match, rep, entry.hand)
        if entry.hand in rep.voided:
            match.receive(entry.hand, entry.seat, entry.body)
            continue        # a hand voided by agreement: never revealed, nothing to show
        if entry.hand not in rep.crypto.hands:
            break           # an unfinished hand: its deck is not revealed, nothing to show
        hp = match.hand
        before = hp.state
        match.receive(entry.hand, entry.seat, entry.body)
        if hp.state is not None and hp.state is not before:
            # The state changes when a move takes effect (a pile draw once its shares are
            # in, a play once its card is opened): the move is then the last one logged.
            action = hp.actions[-1] if hp.actions else None
            steps.add(entry.hand, entry.index, entry.seat, hp.state, action)
    return rep, steps
