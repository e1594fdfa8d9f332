"""The replicated game log of one seat, sans IO: entries and messages in, entries and
messages out.

A :class:`ReplicatedLog` is everything a seat does with the table's signed log except
talking to sockets and disks: it takes what peers sent (:meth:`ReplicatedLog.on_message`),
decodes and checks every entry (table, author, signature, chain), deduplicates it by its
slot (hand, author, seq), buffers it while it is early (bounded per author and in bytes),
applies it strictly in log order to its :class:`~p2p.table.match.MatchProtocol`, keeps the
evidence of a cheat, answers catch-up requests (FETCH/ENTRIES, rate-limited per peer) and
asks for what it misses when the log stalls (:meth:`ReplicatedLog.tick`). It signs this
seat's own entries (:meth:`ReplicatedLog.write`).

Everything it wants done in the world is queued and handed over by
:meth:`ReplicatedLog.take_output` as a :class:`LogOutput`: entries to persist (in log
order), evidence to keep, messages to send, events for the UI. The driver
(:class:`~p2p.table.session.Peer`) must persist ``persist`` *before* it sends ``messages``:
that is what keeps a restarted peer from signing a second entry for a slot it already
published. Time comes from an injected clock, so the class is tested without sockets,
threads or sleeps (tests/test_replicated_log.py).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import Reshuffle
from p2p.crypto.identity import Identity
from p2p.deck.messages import CheatDetected, DecryptShare, is_deck_body, message_from_body
from p2p.table import wire
from p2p.table.config import TableConfig
from p2p.table.hand_protocol import HandProtocol, ProtocolError
from p2p.table.match import MatchProtocol
from p2p.text import safe_text
from p2p.transcript.agreement import (
    END,
    TAKEOVER,
    Agreements,
    MatchEnd,
    Takeover,
    body_problem,
    keys_at,
    point_of,
    runner_for,
    seat_of_keys,
)
from p2p.transcript.envelope import (
    MAX_ENVELOPE_BYTES,
    Envelope,
    EnvelopeError,
    Equivocation,
    LogError,
    LogVerifier,
)
from p2p.transcript.file import StoredLog, is_side

__all__ = ["LogOptions", "LogOutput", "ReplicatedLog", "SessionEvent"]

log = logging.getLogger("p2p.session")

_LOG_LIMIT = 10
_SENDER_DROP_REASONS = frozenset({"unknown-author", "bad-signature", "wrong-table", "wrong-hand"})


def _side_problem(body: dict[str, Any], n: int) -> str:
    """What is wrong with a side entry's body ("" when nothing)."""
    if set(body) - {"k", "slot", "step", "reason", "check", "entry", "other"}:
        return "unknown fields"
    if "other" in body and not isinstance(body["other"], bytes):
        return "bad complaint"
    if body["k"] == "side.complaint":
        c, e = body.get("check"), body.get("entry")
        return "" if isinstance(c, str) and len(c) <= 60 and isinstance(e, bytes) \
            else "bad complaint"
    if body["k"] == "side.abandon":
        r = body.get("reason")
        return "" if isinstance(r, str) and len(r) <= wire.MAX_REASON else "bad reason"
    slot, step = body.get("slot"), body.get("step")
    if not (isinstance(slot, list) and len(slot) == 3 and all(type(x) is int for x in slot)
            and slot[0] >= 0 and 0 <= slot[1] < n and slot[2] >= 0):
        return "bad slot"
    return "" if isinstance(step, str) and len(step) <= 40 else "bad step"


def equivocator(body: dict[str, Any], seat_of_key: dict[bytes, int],
                table: bytes) -> int | None:
    """The seat an equivocation complaint proves signed two entries for one slot (its
    ``entry`` and ``other``: same table, hand, author and seq, both signed, different), or
    None when the evidence does not hold."""
    try:
        a = Envelope.decode(body["entry"])
        b = Envelope.decode(body["other"])
    except (EnvelopeError, KeyError, TypeError):
        return None
    if is_side(a.body) or is_side(b.body):
        return None  # side entries all carry seq 0: they never share a slot of the log
    if (a.table != table or b.table != table or a.author != b.author
            or (a.hand, a.seq) != (b.hand, b.seq) or a.encode() == b.encode()
            or a.author not in seat_of_key or not a.signature_ok() or not b.signature_ok()):
        return None
    return seat_of_key[a.author]


def deck_body_fault(body: dict[str, Any]) -> str | None:
    """Why ``body`` is a deck body no honest peer writes (its author is to blame), or None
    (not a deck body, or a well-formed one). Live peers and ``verify`` judge alike."""
    if not is_deck_body(body):
        return None
    try:
        message_from_body(body)
    except ValueError as exc:
        return str(exc)
    return None


def _evidence_hand(complaint: Envelope) -> int:
    """The hand of the entry an equivocation complaint carries (-1 when it is none: no
    key then has a seat, and :func:`equivocator` finds nothing either way)."""
    try:
        return Envelope.decode(complaint.body["entry"]).hand
    except (EnvelopeError, KeyError, TypeError):
        return -1


class _LocalDamage(Exception):
    """A stored entry fails a check it passed when it was stored."""

    def __init__(self, check: str) -> None:
        super().__init__(check)
        self.check = check


@dataclass(frozen=True)
class SessionEvent:
    """Something the UI may show: ``text`` in words, ``kind`` and ``data`` structured.

    Kinds: ``action`` (data: hand, seat, action, before, after), ``hand-start``,
    ``hand-end`` (scores), ``match-end`` (winner), ``status`` (seat, status), ``dropped``
    (sender, reason), ``stopped`` (reason, seat, why), ``resumed``,
    ``local-damage`` (index, check, count: this seat's own stored copy was damaged), ``timeout``
    (seat, step, hand, index: that seat's step passed its time limit; ``stopped`` follows;
    with slow, spent, budget when the seat's budget of automatic steps ran out), ``back``
    (seat, slow: the seat the table paused on wrote again)."""

    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LogOptions:
    """The log's limits and timings (a subset of the session's options)."""

    stall_after: float = 0.5          # no progress for this long: ask peers for entries
    stall_max: float = 4.0            # backoff ceiling of those requests
    fetch_min_interval: float = 0.02  # serve at most one FETCH per peer per this long
    fetch_bytes_per_s: int = 4 << 20  # ... and at most this many bytes of replies per peer
    fetch_burst: int = 8 << 20        # (a token bucket of this size: a whole match fits)
    #: ... and only while fewer bytes than this to it are unacknowledged (see _serve_fetch)
    fetch_max_unacked_bytes: int = wire.BATCH_BYTES + MAX_ENVELOPE_BYTES
    max_early: int = 4096             # entries buffered ahead of the log, per author
    max_early_bytes: int = 8 << 20    # ... and their bytes, per author
    record_times: bool = False        # keep apply times per entry (benchmarks)
    step_limit: float = 20.0          # a protocol step not written in this long: stop
    decision_limit: float | None = None  # a player's own move: untimed unless set
    #: a seat's automatic steps (keys, shuffles, shares, reveals) in one hand may keep this
    #: peer waiting this long in all, beyond ``auto_grace`` a step (None: no such budget);
    #: past it the seat is treated as silent at each such step (docs/network.md,
    #: "slow-loris"): the table pauses after ``auto_grace``, a late entry lifts the pause
    auto_budget: float | None = 60.0
    auto_grace: float = 1.0           # free per automatic step (a fetch after a lost push)


@dataclass
class LogOutput:
    """What the log wants done, in this order: ``rewrite`` (replace the stored transcript),
    ``persist`` (append, in log order), ``evidence`` (keep aside), then ``messages`` (send:
    ``(peer, payload)``, peer None = every peer) and ``events`` (show)."""

    rewrite: Sequence[Envelope] | None = None
    persist: list[Envelope] = field(default_factory=list)
    evidence: list[Envelope] = field(default_factory=list)
    messages: list[tuple[bytes | None, bytes]] = field(default_factory=list)
    events: list[SessionEvent] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.rewrite is not None or self.persist or self.evidence
                    or self.messages or self.events)


class ReplicatedLog:
    """One seat's copy of the table's signed log (see the module doc).

    ``seat_of_node`` maps transport ids to seats (to name senders and serve them);
    ``secrets`` holds this seat's stored hand secrets (imported into each hand before its
    first entry); ``clock`` is a monotonic clock."""

    def __init__(self, cfg: TableConfig, identity: Identity, *,
                 seat_of_node: Mapping[bytes, int], clock: Callable[[], float],
                 options: LogOptions | None = None,
                 secrets: Mapping[int, Mapping[str, Any]] | None = None,
                 seat: int | None = None,
                 in_flight: Callable[[bytes], int] | None = None,
                 session_of: Callable[[bytes], bytes | None] | None = None) -> None:
        """``seat``: a bot taking over that seat by agreement (its identity is not in the
        table header: the agreement, replayed before anything else, names its key).

        ``in_flight``: how many bytes of payloads the transport still holds
        unacknowledged for a peer (``Node.pending_bytes``). A FETCH is answered only while
        fewer than ``fetch_max_unacked_bytes`` are (see :meth:`_serve_fetch`): a rate alone
        let a peer that asks and never acknowledges make this one hold gigabytes of
        replies. None: no transport to ask (in-memory tests), only the rate limits apply.

        ``session_of``: the transport session a peer's frames come in now
        (``Node.remote_session``). An AWAY is believed only for that session: a copy
        replayed once the player is back would otherwise pause the table on them again."""
        keys = tuple(p.key for p in cfg.players)
        if identity.public_key not in keys and (seat is None or not 0 <= seat < cfg.n):
            raise ValueError("this identity has no seat at the table")
        self.cfg = cfg
        self.identity = identity
        self.table_id = cfg.table_id
        self.header = cfg.header()
        self.base_keys = keys
        #: the seats' signing keys in the hand in play (a takeover replaces one)
        self.keys = keys
        self.me = keys.index(identity.public_key) if identity.public_key in keys else \
            int(seat)  # type: ignore[arg-type]
        self.names = tuple(p.name for p in cfg.players)
        self.seat_of_key = {k: s for s, k in enumerate(keys)}
        self.seat_of_node = dict(seat_of_node)
        self.clock = clock
        self.opts = options or LogOptions()
        # a bot taking over plays its seat only from the hand after the agreement
        self.match = MatchProtocol(cfg, self.me,
                                   me_from=0 if identity.public_key in keys else 1 << 30)
        #: agreements of the remaining seats (takeovers, ends) and what they decided
        self.agreements = Agreements(cfg.n)
        #: why the last proposal was not signed (see :meth:`_propose`; None: it was)
        self.refused: str | None = None
        self.takeovers: list[Takeover] = []
        self.agreed_end: MatchEnd | None = None
        #: (kind, hand) of this seat's own records it stopped holding the hand for: the
        #: agreement can no longer hold (see :meth:`_review_hold`)
        self._released: set[tuple[str, int]] = set()
        #: (hand, point) of agreements that held at a point this peer had passed (said once)
        self._passed: set[tuple[int, int]] = set()
        self._abandoned = False
        #: the bot's key, endpoint and transport key this seat offers when it runs a bot
        self.bot_offer: tuple[bytes, str, tuple[bytes, bytes] | None] | None = None
        self.secrets: dict[int, Mapping[str, Any]] = dict(secrets or {})
        self._hand_obj: HandProtocol | None = None
        self.verifier = self._new_verifier(0)
        self.log: dict[int, list[bytes]] = {0: []}
        self._slots: dict[tuple[int, bytes, int], int] = {}
        self._early: dict[tuple[int, bytes, int], Envelope] = {}
        #: complaints this peer could not judge yet (it lags): (complainer seat, complaint,
        #: for one about a later hand the (hand, takeovers) it was set aside at, else None)
        self._pending_complaints: list[tuple[int, Envelope, tuple[int, int] | None]] = []
        #: a seat's later complaints of a hand it complained in already, set aside alike,
        #: one a (sender, author, hand): see :meth:`_another_complaint`
        self._later_complaints: dict[tuple[bytes, bytes, int],
                                     tuple[int, Envelope, tuple[int, int] | None]] = {}
        self._early_count: dict[bytes, int] = {}
        self._early_bytes: dict[bytes, int] = {}
        #: per author, the last signed entry dropped as a broken link: a second version of
        #: its slot, met later, proves an equivocation (one entry per seat: bounded)
        self._unchained: dict[bytes, Envelope] = {}
        self.drops: dict[tuple[str, str], int] = {}
        self.drop_log: deque[tuple[str, str, str]] = deque(maxlen=1000)
        self.error: ProtocolError | None = None
        self.stopped: str | None = None
        #: why, as data for a console's own words (``stopped`` is the English, for logs):
        #: ``{"id": ..., **values}``; ids: catch-up-failed (seconds), fell-behind (seconds:
        #: the whole wait), unresponsive (seat,
        #: step), abandoned (seat, text: the peer's own words), agreed-end (hand, seat),
        #: unfounded-complaint (seat), valid-share-complaint (seat), equivocation (seat),
        #: protocol (seat, check, by: the complainer's seat or None), malformed-share
        #: (seat), broken-log (seat, check). None: not stopped, or stopped by a caller of
        #: :meth:`stop` that gave no id.
        self.stop_why: dict[str, Any] | None = None
        self.finished = False
        #: transport ids that said they hold the whole match (DONE); a seat is done when
        #: the node of its key in play said so (a seat's player and the bot that took the
        #: seat over share the seat: each says it for itself)
        self._done_nodes: set[bytes] = set()
        #: players a bot replaced who were heard from here: they follow the table and may
        #: still need its entries from us
        self._replaced_heard: set[bytes] = set()
        now = clock()
        self.last_progress = now
        self._stall = self.opts.stall_after
        #: how far back of its position a stalled log asks from (see tick)
        self._look_back = 0
        #: the log head each seat's latest side entry of the hand in play names
        self._side_heads: dict[bytes, bytes] = {}
        self.next_fetch = now + self._stall
        self._fetch_served: dict[bytes, float] = {}
        self._fetch_budget: dict[bytes, tuple[float, float]] = {}   # peer -> (bytes, at)
        self.in_flight = in_flight
        #: the last FETCH of each seated peer not answered yet: (hand, index); served by
        #: :meth:`tick` once its earlier replies are acknowledged (one per peer: bounded)
        self._fetch_deferred: dict[bytes, tuple[int, int]] = {}
        self.entries_applied = 0
        self.applied_at: dict[tuple[int, int], float] = {}
        self.move_index: set[tuple[int, int]] = set()
        self._hands_reported = 0
        self._hashes: dict[bytes, tuple[int, int]] = {self.header.genesis(0): (0, -1)}
        self._replay_mode = False
        #: what was found damaged in this seat's own store on resume (None: nothing)
        self.local_damage: str | None = None
        #: the same as data: {"index": i, "count": n, "check": check}
        self.local_damage_why: dict[str, Any] | None = None
        self._catching_up = False
        self._catching_up_since = 0.0
        self._fetch_answers: set[int] = set()   # seats that answered a catch-up fetch
        self._catch_up_target = 0     # entries the damaged store held (when it knows)
        self._catch_up_failed = False
        #: per seat key, an entry it signed (checked) of a hand past the next, dropped as
        #: too far ahead: that seat has moved on, so a wait for its step here is a wait
        #: for our own catch-up (see :meth:`_moved_on`; one per key)
        self._heard_ahead: dict[bytes, Envelope] = {}
        #: ((position, seat), since): the step of ``seat`` awaited at ``position`` passed
        #: its limit here while that seat had signed further on; its delivery is waited
        #: for one more step limit from ``since``, then this computer stops, naming nobody
        self._behind: tuple[tuple[tuple[int, int], int], float] | None = None
        #: each other seat's latest FETCH from its own node: (hand, index, when). Another
        #: seat asking for the very entry this log waits for lacks it too: the table did
        #: not move on past it (see :meth:`_others_lack`; one per seat: bounded)
        self._asked: dict[int, tuple[int, int, float]] = {}
        #: the seat whose step timed out (the table stopped; nobody is blamed)
        self.unresponsive: int | None = None
        #: seats the transport reports gone (no heartbeat), with the clock time they went
        self._gone_since: dict[int, float] = {}
        #: seats whose player said they quit for now (AWAY), and when this peer heard it
        self._away: dict[int, float] = {}
        #: ... and the place in the log it left at (hand, its next entry's sequence number)
        self._away_at: dict[int, tuple[int, int]] = {}
        #: per seat, seconds this peer waited for its automatic steps in the hand
        #: ``_auto_hand`` beyond ``auto_grace`` each (see :meth:`auto_time`)
        self._auto_spent: dict[int, float] = {}
        self._auto_hand = 0
        #: time this peer heard no other seat at all (every other one's transport gone
        #: here, at three seats or more): its own network was down, which is no seat's
        #: slowness (since when, and in all before that); and that total when the log
        #: last made progress (a wait counts only what it held beyond it)
        self._deaf_since: float | None = None
        self._deaf_total = 0.0
        self._deaf_mark = 0.0
        self.session_of = session_of
        #: side entries (claims, abandons) written or accepted, in arrival order
        self.side: list[Envelope] = []
        self._side_seen: set[tuple[bytes, int, str]] = set()
        self._out = LogOutput()
        self._check_hand()

    # ===================================================================== reading
    @property
    def hand_no(self) -> int:
        return self.match.hand_no

    def position(self) -> tuple[int, int]:
        """(hand number, entries applied in it)."""
        h = self.match.hand_no
        return h, len(self.log.get(h, []))

    @property
    def done(self) -> bool:
        return self.finished or self.stopped is not None

    @property
    def catching_up(self) -> bool:
        """After local damage: write nothing until a peer answered a fetch. The wait is
        timed like a protocol step (``step_limit``): when no peer answers, the table stops
        saying so (nobody is blamed)."""
        return self._catching_up

    @catching_up.setter
    def catching_up(self, value: bool) -> None:
        if value and not self._catching_up:
            self._catching_up_since = self.clock()
            self._fetch_answers = set()
        self._catching_up = value

    @property
    def can_write(self) -> bool:
        """Does this identity sign for its seat in the hand in play? (Not a bot before its
        first hand, nor a player whose seat a bot took over.)"""
        return (self.keys[self.me] == self.identity.public_key
                and self.match.hand.me is not None and self.holding() is None)

    @property
    def resumable(self) -> bool:
        """Stopped for a seat's silence only (no cheat, no leave record, no end): the
        remaining seats may still agree to a bot for it, or to end the match."""
        return (self.stopped is not None and not self.finished and self.error is None
                and not self._abandoned and self.agreed_end is None
                and not self._catch_up_failed)

    def take_output(self) -> LogOutput:
        """What to do now (see :class:`LogOutput`); the queue starts empty again."""
        out, self._out = self._out, LogOutput()
        return out

    # ===================================================================== inputs
    def replay(self, entries: Sequence[Envelope], side: list[Envelope] | None = None) -> None:
        """Entries read back from this seat's own store (after a restart): applied without
        being persisted again.

        Every stored entry passed the signature and chain checks when it was stored, so
        one that fails them now was damaged on this disk: that is *local damage*, never
        an accusation (issue 9, finding 11). The replay stops before it, the store is cut
        back to the good prefix (``LogOutput.rewrite``), and this seat writes nothing until
        a peer has answered a fetch for the rest (its own lost entries among them: writing
        them again, differently, would be equivocation).

        Every stored side entry is this seat's record of what was said: claims,
        complaints and abandons go back into :attr:`side` and the duplicate filter (one of
        each kind per seat and hand), so an old claim sent again is not stored and
        announced a second time, and this seat does not sign a second claim of its own
        for a hand it claimed in before the restart (hostile review 6); a leave record
        stops the match again, for good, as it did when it came; agreements take effect
        again where they did; a stored complaint is judged again once the stored log is
        replayed, as ``verify`` judges it (its evidence may be in no stored entry: the
        other version of an equivocation, a share only its recipient checks).

        ``entries`` are taken one at a time (a :class:`~p2p.transcript.file.StoredLog`
        decodes each as it is read): the good ones are not held again here, only counted
        (a list of them held the whole log decoded, hostile pass 10)."""
        good = 0
        self._replay_mode = True
        # agreements are replayed where they took effect: before the next hand's entries
        pending = sorted((e for e in side or () if e.body.get("k") in (TAKEOVER, END)),
                         key=lambda e: e.hand)
        try:
            for i, env in enumerate(entries):
                while pending and pending[0].hand < env.hand:
                    self._on_side(None, pending.pop(0))
                try:
                    self._apply(env, persist=False, sender=None)
                except _LocalDamage as exc:
                    self.local_damage = (f"stored entry {i} of {len(entries)} is damaged "
                                         f"({exc.check}); the {len(entries) - i} entries "
                                         "from there are fetched again from the other peers")
                    self.local_damage_why = {"index": i, "count": len(entries),
                                             "check": exc.check}
                    self.catching_up = True
                    # our lost entries are among these: none is written again before
                    # as many entries as the store held are back (signed: none is forged)
                    self._catch_up_target = len(entries)
                    # the good part as it is held: a StoredLog's bytes, never all of
                    # them decoded at once (hostile pass 11)
                    self._out.rewrite = entries.head(i) if isinstance(entries, StoredLog) \
                        else list(entries[:i])
                    self._event("local-damage", f"this computer's copy of the game is "
                                f"damaged: {self.local_damage}", index=i, check=exc.check,
                                count=len(entries))
                    log.warning("seat %d: local damage: %s", self.me, self.local_damage)
                    break
                good += 1
                if self.stopped:
                    break
            else:
                for e in pending:
                    self._on_side(None, e)
        finally:
            self._replay_mode = False
        for env in side or ():          # after the agreements: a bot's key is known then
            kind = str(env.body.get("k"))
            key = (env.author, env.hand, kind)
            if (kind in (TAKEOVER, END)
                    or (key in self._side_seen and kind != "side.complaint")
                    or env.author not in self.seat_of_key
                    or _side_problem(env.body, self.cfg.n) or not env.signature_ok()):
                continue        # a damaged one is dropped: it is no link of the log
            self._side_seen.add(key)
            self.side.append(env)
            if kind == "side.abandon" and not self._abandoned:
                # a leave record stopped this seat for good when it came: so it does again
                # (the resumed seat played on, waiting for players who had all stopped)
                self._abandoned = True
                seat = self.seat_of_key[env.author]
                reason = safe_text(str(env.body["reason"]), 200, placeholder="")
                self._stop(f"{self.seat_name(seat)} abandoned the match: {reason}", None,
                           "abandoned", seat=seat, text=reason)
            elif kind == "side.complaint":
                # judged again, where the stored log stops (as ``verify`` judges it): its
                # evidence is often in no stored entry (the other version of an
                # equivocation; a share a third peer never checks), and the resumed seat
                # played on from a cheat it had proven, the table then waiting on the
                # cheat's victim (hostile pass 19)
                complainer = self._seat_of_key_in(env.hand).get(env.author)
                if complainer is not None:
                    self._on_complaint(complainer, env)
        self._event("resumed", f"resumed from {good} stored entries", entries=good)

    def on_message(self, sender: bytes, payload: bytes) -> None:
        """A payload from the transport (see :mod:`p2p.table.wire`)."""
        try:
            msg = wire.decode(payload)
        except wire.WireError as exc:
            self._drop(sender, exc.reason, exc.detail)
            return
        seat = self.seat_of_node.get(sender)
        if seat is not None and sender != wire.node_id_for(self.keys[seat]):
            self._replaced_heard.add(sender)   # a player a bot replaced, following along
        if isinstance(msg, (wire.Push, wire.Entries)):
            for raw in msg.entries:
                if not isinstance(raw, bytes):
                    self._drop(sender, "malformed", "entry is not bytes")
                    continue
                self._on_entry(sender, raw, solicited=isinstance(msg, wire.Entries))
                if self.stopped and not self.resumable:
                    return
            self.apply_ready()
            if isinstance(msg, wire.Entries) and msg.more:
                self.send_fetch(sender)
            elif isinstance(msg, wire.Entries):
                self._answered_fetch(sender)
        elif isinstance(msg, wire.Fetch):
            self._on_fetch(sender, msg.table, msg.hand, msg.index)
        elif isinstance(msg, wire.Away):
            self._on_away(sender, msg)
        elif isinstance(msg, wire.Done):
            seat = self.seat_of_node.get(sender)
            if seat is None or msg.table != self.table_id:
                self._drop(sender, "malformed", "done")
            else:
                self._done_nodes.add(sender)
        else:
            self._on_abandon(sender, msg)

    def _answered_fetch(self, sender: bytes) -> None:
        """A seat sent the last batch of its answer to our fetch. After local damage this
        seat writes again only once every other seat whose transport is up has answered:
        one answer alone (an empty one, say) may come from a seat that keeps our lost entry
        to show it beside the one we would write again (equivocation)."""
        seat = self.seat_of_node.get(sender)
        if seat is None or not self._catching_up:
            return
        self._fetch_answers.add(seat)
        if self.entries_applied < self._catch_up_target:
            return      # a seat that answers without our lost entries holds them back
        waiting = [s for s in range(len(self.keys))
                   if s != self.me and s not in self._fetch_answers and s not in self._gone_since]
        if not waiting:
            self.catching_up = False

    def everyone_done(self) -> bool:
        """The match is over here and every other seat said it holds the whole match too:
        nobody can still need an entry from this peer.  (A seat that says so falsely only
        loses its own chance to fetch from us.)"""
        return (self.finished and all(wire.node_id_for(self.keys[s]) in self._done_nodes
                                      for s in range(len(self.keys)) if s != self.me)
                # a player a bot replaced, back and following the table, may still need
                # our entries (left behind, his copy stayed unfinished for ever)
                and self._replaced_heard <= self._done_nodes)

    def write(self, body: dict[str, Any]) -> Envelope:
        """Sign ``body`` as this seat's next entry, apply it, queue it for persisting and
        then pushing. The caller has already persisted the secrets it depends on."""
        hand = self.match.hand_no
        env = Envelope.create(self.identity, self.table_id, hand,
                              self.verifier.next_seq(self.identity.public_key),
                              self.verifier.head, body)
        self._apply(env, persist=True, sender=None, signed_here=True)
        self._out.messages.extend((None, p) for p in wire.encode_push([env.encode()]))
        return env

    def stop(self, reason: str, blamed: int | None, why: str = "", /, **data: Any) -> None:
        """Stop the match here for good (e.g. this seat abandons); ``why``: the reason's id
        (see :attr:`stop_why`)."""
        self._stop(reason, blamed, why, **data)

    def deadline(self) -> tuple[int, float] | None:
        """(seat, clock time) by which the awaited seat's entry must be here (see
        :meth:`_step_deadline`); once the step's own limit passed while that seat had
        signed entries further on, one step limit more from then (:meth:`_moved_on`):
        the entry is on its way to a computer that fell behind."""
        due = self._step_deadline()
        behind = self._behind
        if due is not None and behind is not None and behind[0] == (self.position(), due[0]):
            return due[0], max(due[1], behind[1] + self.opts.step_limit)
        return due

    def _step_deadline(self) -> tuple[int, float] | None:
        """(seat, clock time) by which the seat the log waits for must have written its
        entry, or None when the step is untimed (a player's decision, unless the table set
        ``decision_limit``; once a later entry of the hand has arrived the decision was
        made, and the wait for its delivery is timed like any step; so is the decision of
        a seat whose transport is gone, see :meth:`seat_reachable`) or the match is over. Every peer relays what it holds before
        that (a stalled log fetches from every peer, with backoff well under the limit)."""
        if self.stopped or self.finished:
            return None
        if self._catching_up:
            return self.me, self._catching_up_since + self.opts.step_limit
        e = self.match.hand.expected()
        if e is None:
            return None
        if e.seat == self.me and self.holding() is not None:
            # this seat signed an agreement with its own step due (an older build did,
            # between two pauses of a seat past its budget; a record is now signed only
            # where the silent seat's step is due, see _propose): it writes nothing of
            # the hand until the others sign or show they will not
            return None
        decision = e.kind == "game.act" and not self._holds_later_entries()
        away = self._away.get(e.seat)
        if away is not None:
            # its player quit (signed AWAY): nothing of that seat's comes until a resume,
            # so the table pauses now instead of after the step limit
            return e.seat, away
        gone = self._gone_since.get(e.seat)
        if decision and gone is not None:
            # a player is given time to think, not a peer that stopped answering: once
            # its transport is gone the move is timed like any step, from that moment
            return e.seat, max(self.last_progress, gone) + self.opts.step_limit
        limit = self.opts.decision_limit if decision else self.opts.step_limit
        if limit is None:
            return None
        if e.kind != "game.act" and e.seat != self.me:
            # an automatic step: the seat's budget for the hand may be nearer than the
            # step's own limit (a seat that waits just under it before every step)
            limit = min(limit, self._auto_left(e.seat))
        return e.seat, self.last_progress + limit

    def _time_out(self, seat: int, now: float) -> None:
        """``seat``'s step passed its limit here: claim so (signed), stop, name the seat
        *unresponsive* (not blamed: non-delivery cannot be proven)."""
        e = self.match.hand.expected()
        what = e.kind if e is not None else "its entry"
        slow: dict[str, Any] = {}
        if (e is not None and e.kind != "game.act" and seat != self.me
                and self._auto_left(seat) < self.opts.step_limit):
            # its budget for the hand ran out, not the step's own limit: said so
            spent, budget = self.auto_time(seat)
            slow = {"slow": True, "spent": round(spent, 1), "budget": budget}
        self.unresponsive = seat
        h = self.match.hand_no
        mine = self.identity.public_key
        if (mine, h, "side.timeout") in self._side_seen:
            # claimed in this hand already (before a restart): that claim is sent
            # again, never a second one (one of each kind per seat and hand)
            self._out.messages.extend(
                (None, p) for env in self.side
                if (env.author, env.hand, env.body.get("k")) == (mine, h, "side.timeout")
                for p in wire.encode_push([env.encode()]))
        else:
            # A signed claim, not an accusation: a signed entry for that slot refutes it.
            self.write_side({"k": "side.timeout", "step": what,
                             "slot": [h, seat, self.verifier.next_seq(self.keys[seat])]})
        self._event("timeout", f"{self.seat_name(seat)} did not write {what} within "
                    f"{now - self.last_progress:.0f} s", seat=seat, step=what,
                    hand=self.match.hand_no, index=self.position()[1], **slow)
        if slow:
            self._stop(f"{self.seat_name(seat)} is slow: its automatic steps kept this "
                       f"computer waiting {slow['spent']:.0f} s in this hand, more than "
                       f"the table's limit of {slow['budget']:.0f} s; the table pauses "
                       "at each of them from now on", None, "unresponsive",
                       seat=seat, step=what, gone=seat in self._gone_since,
                       away=seat in self._away, **slow)
            return
        self._stop(f"{self.seat_name(seat)} is unresponsive: no {what} within the "
                   "table's time limit", None, "unresponsive", seat=seat, step=what,
                   gone=seat in self._gone_since, away=seat in self._away)

    def _moved_on(self, seat: int) -> bool:
        """``seat`` signed an entry of a later hand than the one this log is in (dropped as
        too far ahead, or buffered for the next hand): an honest seat signs nothing
        there before the step awaited here, so that step was
        made and this computer lags (its catch-up did not keep up with a fast table).
        Only the seat's own signature counts: another seat's entries far ahead may be
        made up by their author. Checked once, when the step's limit passes."""
        key, hand = self.keys[seat], self.match.hand_no
        heard = self._heard_ahead.get(key)
        if heard is not None and heard.hand > hand:
            return True                 # its signature was checked as it was kept
        # (an early entry's signature was checked as it was buffered)
        return any(author == key and h > hand for h, author, _seq in self._early)

    def _others_hold(self, seat: int) -> bool:
        """Could a seat other than ``seat`` and this one have sent what ``seat`` wrote?
        Only then can this computer be behind a table that moved on: with two players
        (this one still holding its seat), ``seat`` cannot sign a later hand without this
        seat's entries of the hand between, so an entry of it there proves nothing but
        its own making, and ``seat`` alone could have delivered its step. Unless a bot
        may have been agreed for this seat (a record of it is here: a player back after
        leaving, whose seat the bot plays on at a table far ahead of him)."""
        mine = self.identity.public_key
        return (any(s != seat and self.keys[s] != mine for s in range(len(self.keys)))
                or any(env.body.get("k") == TAKEOVER and env.body.get("seat") == self.me
                       for env in self.side))

    def _others_lack(self, seat: int) -> bool:
        """Does another seat (neither ``seat`` nor this one) lack ``seat``'s step this log
        waits for? Its signed ``side.timeout`` for that very slot, or a FETCH from its
        own node of this very position since this log got here. The table cannot have
        moved a hand on without that seat, so ``seat``'s entry of a later hand was made up
        for this peer: a seat that withholds its step from everyone is silent, not ahead
        (hostile pass 17). A seat whose own entry of a later hand is here counts not: it
        lacked the step once (its claim, its FETCH), then got it and moved on. (A hostile
        seat's word that it lacks the step costs an honest ``seat`` no more than the
        timeout this peer made before it looked for later entries.)"""
        h, i = self.position()
        slot = [h, seat, self.verifier.next_seq(self.keys[seat])]
        lacking = [s for s in range(len(self.keys))
                   if s not in (self.me, seat) and not self._moved_on(s)]
        others = {self.keys[s] for s in lacking}
        if any(env.author in others and env.hand == h and env.body.get("k") == "side.timeout"
               and list(env.body.get("slot", ())) == slot for env in self.side):
            return True
        return any(s in lacking and (hand, index) == (h, i) and when >= self.last_progress
                   for s, (hand, index, when) in self._asked.items())

    def _fell_behind(self, seat: int) -> None:
        """The wait for ``seat``'s step, which it made (:meth:`_moved_on`), passed a
        second step limit: stop here, naming nobody; a resume fetches what was missed."""
        self._catch_up_failed = True
        limit = self.opts.step_limit
        self._event("fell-behind", f"{self.seat_name(seat)} and the table moved on; the "
                    f"entries this computer missed did not come within {limit:.0f} s",
                    seat=seat, seconds=limit)
        self._stop("this computer fell behind the table: the other players moved on, and "
                   f"the entries it missed did not arrive within {2 * limit:.0f} s; resume "
                   "to catch up", None, "fell-behind", seconds=round(2 * limit))

    def sending_own(self) -> None:
        """This seat's entries just written go out now, after they were persisted (a
        choice is fsynced first): the wait for the next step starts here, not when they
        were signed. Before, a slow disk's fsync here (0.4 s, or seconds on a network
        folder) counted against the next seat's budget of automatic steps, at each of
        this seat's moves that it followed."""
        h = self.match.hand_no
        last = self.log.get(h) or []
        if not last or self.match.hand.expected_writer() == self.me:
            return
        if Envelope.decode(last[-1]).author != self.identity.public_key:
            return
        now = self.clock()
        if now > self.last_progress:
            self._progress(now)
            self.next_fetch = max(self.next_fetch, now + self._stall)

    # ----- the budget of a seat's automatic steps in a hand (slow-loris) -----------------
    def _auto_left(self, seat: int) -> float:
        """How long this peer may wait for ``seat``'s automatic step now: the grace of a
        step and what is left of the seat's budget for the hand (infinite: no budget)."""
        budget = self.opts.auto_budget
        if budget is None:
            return float("inf")
        return self.opts.auto_grace + max(0.0, budget - self._spent(seat))

    def _spent(self, seat: int) -> float:
        return self._auto_spent.get(seat, 0.0) if self._auto_hand == self.match.hand_no \
            else 0.0

    def _over_grace(self, waited: float) -> float:
        """What a wait of ``waited`` s for one automatic step counts against its seat's
        budget: beyond the grace, and never more than the step limit. A step that passed
        its limit was a silent seat's (a network down, a restart, a player who quit for
        now): the pause was its due, however long the seat stayed away; counted whole, an
        absence of a few minutes left an honest seat "slow" for the rest of the hand
        (each of its steps paused the table after the grace alone, and a bot's seat
        co-signed a bot for it) though it answered at once once back."""
        return max(0.0, min(waited, self.opts.step_limit) - self.opts.auto_grace)

    def _deaf_now(self) -> float:
        """Seconds this peer heard no other seat, in all, up to now."""
        since = self._deaf_since
        return self._deaf_total + (self.clock() - since if since is not None else 0.0)

    def _update_deaf(self) -> None:
        """Every other seat gone here (at three seats or more: at two, the other seat
        going quiet is that seat's doing as much as ours) starts an outage of this
        peer's own; any seat heard again ends it."""
        others = [s for s in range(self.cfg.n) if s != self.me]
        deaf = len(others) >= 2 and all(s in self._gone_since for s in others)
        if deaf and self._deaf_since is None:
            self._deaf_since = self.clock()
        elif not deaf and self._deaf_since is not None:
            self._deaf_total += self.clock() - self._deaf_since
            self._deaf_since = None

    def _waited(self, until: float) -> float:
        """How long the log waited for its next entry up to ``until``, this peer's own
        outages (it heard nobody) not counted."""
        return until - self.last_progress - max(0.0, self._deaf_now() - self._deaf_mark)

    def _progress(self, now: float) -> None:
        """The log made progress at ``now``: the next wait starts here."""
        self.last_progress = now
        self._deaf_mark = self._deaf_now()

    def _charge(self, seat: int, hand: int, waited: float) -> None:
        """``seat``'s automatic entry of ``hand`` kept this peer waiting ``waited`` s."""
        if hand != self._auto_hand:
            self._auto_hand, self._auto_spent = hand, {}
        over = self._over_grace(waited)
        if over:
            self._auto_spent[seat] = self._auto_spent.get(seat, 0.0) + over

    def auto_time(self, seat: int) -> tuple[float, float | None]:
        """(seconds, budget): how long ``seat``'s automatic steps kept this peer waiting in
        the hand in play, beyond the grace of each step and at most a step limit each
        (see :meth:`_over_grace`), the step awaited now included;
        and the budget of a seat's automatic steps in a hand (None: no budget). An honest
        computer answers such a step in well under a second (docs/network.md,
        "slow-loris", has the figures)."""
        spent = self._spent(seat)
        e = self.match.hand.expected()
        if (e is not None and e.seat == seat and e.kind != "game.act" and seat != self.me
                and not self.finished and (self.stopped is None or self.resumable)):
            spent += self._over_grace(self._waited(self.clock()))
        return spent, self.opts.auto_budget

    def over_budget(self, seat: int) -> bool:
        """Has ``seat`` spent its budget of automatic steps in the hand in play, as this
        peer measured it? (It is then treated as silent at each of its automatic steps.)"""
        spent, budget = self.auto_time(seat)
        return budget is not None and spent >= budget

    def seat_reachable(self, seat: int, reachable: bool, heard: bool = True) -> None:
        """The transport's word on ``seat`` (heartbeats lost: False; heard again: True).
        An untimed decision of a seat whose peer is gone becomes a timed step, so a table
        whose player's computer died stops (paused, nobody blamed) instead of waiting
        forever; a player who is only thinking keeps the heartbeats going. ``heard``: the
        seat was heard (not merely "slow"): only that brings back a seat that said it
        quit (AWAY)."""
        if reachable:
            if seat in self._away and not heard:
                return       # "slow" on the way to "gone" after its AWAY: not back
            self._gone_since.pop(seat, None)
            self._forget_away(seat)
        elif seat not in self._gone_since:
            self._gone_since[seat] = self.clock()
        self._update_deaf()

    def _forget_away(self, seat: int) -> None:
        """``seat`` is back (heard, restarted, wrote after its AWAY) or a bot took it."""
        self._away.pop(seat, None)
        self._away_at.pop(seat, None)

    def quit_for_now(self, seat: int) -> bool:
        """``seat``'s player said they quit (AWAY) and the seat has not answered since."""
        return seat in self._away

    def _holds_later_entries(self) -> bool:
        """Entries of this hand already arrived beyond the slot we wait for: whoever wrote
        them saw the missing entry, so the wait is for its delivery (timed like any step),
        not for a player's decision (an adversary's split delivery would otherwise leave
        this peer waiting, untimed, on a move already made).

        Only entries that can follow the awaited one count: later ones of its writer, or
        another seat's very next entry (a forgery of that one becomes evidence against its
        author: its real next entry will be a second version of the slot). A lone entry
        signed far ahead, whose author may have made it up, does not time a player who is
        still thinking."""
        hand = self.match.hand_no
        w = self.match.hand.expected_writer()
        awaited = self.keys[w] if w is not None else None
        return any(h == hand and (author == awaited or seq == self.verifier.next_seq(author))
                   for h, author, seq in self._early)

    def tick(self) -> None:
        """Time passed: when the log has stalled, ask every peer for what follows it
        (with exponential backoff up to ``stall_max``); when the step's time limit has
        passed, stop: the seat is *unresponsive* (not blamed: non-delivery cannot be
        proven). FETCHes set aside for want of acknowledgement are answered when they can
        be."""
        if self._fetch_deferred:
            self.serve_deferred_fetches()
        if self.stopped or self.finished:
            return
        now = self.clock()
        due = self.deadline()
        if self._catching_up and due is not None and now >= due[1]:
            self._catch_up_failed = True
            self._event("catch-up-timeout", "no other player sent the entries this computer "
                        f"lost within {self.opts.step_limit:.0f} s", seconds=self.opts.step_limit)
            self._stop("this computer's copy of the game was damaged and no other player sent "
                       f"the missing entries within {self.opts.step_limit:.0f} s (the table's "
                       "time limit); resume again when they are back", None,
                       "catch-up-failed", seconds=self.opts.step_limit)
            return
        behind = self._behind
        if (due is not None and behind is not None and behind[0] == (self.position(), due[0])
                and self._others_lack(due[0])):
            # waiting one step limit more for a seat that signed further on, while another
            # seat shows it lacks that very step (its claim, its FETCH): the later entry
            # was made up for this peer and the seat withholds its step from the table;
            # silent here too (a peer stopped as behind could not co-sign a bot for it or
            # the end, and a resume fell into the same wait again)
            self._time_out(due[0], now)
            return
        if due is not None and now >= due[1] and (due[0] != self.me or not self.can_write):
            seat = due[0]
            if self._behind is not None and self._behind[0] == (self.position(), seat):
                self._fell_behind(seat)
                return
            if (seat != self.me and self._others_hold(seat) and self._moved_on(seat)
                    and not self._others_lack(seat)):
                self._behind = ((self.position(), seat), now)
                self._event("behind", f"{self.seat_name(seat)} already signed entries of a "
                            "later hand: this computer fell behind; waiting up to "
                            f"{self.opts.step_limit:.0f} s more for what it missed",
                            seat=seat, seconds=self.opts.step_limit)
                self.next_fetch = now        # ask every peer for it at once
            else:
                self._time_out(seat, now)
                return
        if now < self.next_fetch:
            return
        if (self.match.hand.expected_writer() == self.me and self.can_write
                and not self._catching_up):
            self.next_fetch = now + self._stall
            return
        h, i = self.position()
        self._stall = min(self._stall * 2, self.opts.stall_max)
        self.next_fetch = now + self._stall
        if self._chained_elsewhere():
            # An entry waits here chained on one this log does not hold: we lag, or the
            # logs forked (a writer signed two versions of a slot, one to us and one to
            # the others, and an entry chained on the other version is all we got). Ask
            # again from further back each time: the other version of our own entries
            # then comes with the answer, and two signed versions of one slot are an
            # equivocation, named (before, each peer waited on the other's branch and
            # the table stopped naming an honest seat unresponsive).
            self._look_back = min(max(1, self._look_back * 4), i)
            i -= self._look_back
        self._out.messages.append((None, wire.encode_fetch(self.table_id, h, i)))

    def _chained_elsewhere(self) -> bool:
        """Does an entry of the hand in play wait in the buffer chained on an entry that
        is neither in this log nor in the buffer, or did a seat's side entry of this hand
        name such a head? (Checked only when the log stalls.)"""
        h = self.match.hand_no
        early = [e for (eh, _a, _q), e in self._early.items() if eh == h]
        heads = [p for p in self._side_heads.values() if p not in self._hashes]
        if not early and not heads:
            return False
        known = {e.hash() for e in early}
        # a side entry names its author's head: a seat that stopped on its branch (a claim
        # that the equivocator went silent) shows the fork by it, and it writes nothing more
        return any(p not in known for p in heads) or any(
            e.prev not in self._hashes and e.prev not in known for e in early)

    def fetch_all(self) -> None:
        """Ask every peer for what follows our log (after a restart)."""
        h, i = self.position()
        self._out.messages.append((None, wire.encode_fetch(self.table_id, h, i)))

    def send_fetch(self, peer: bytes) -> None:
        """Ask ``peer`` for what follows our log (it restarted, or frames were lost)."""
        h, i = self.position()
        self._out.messages.append((peer, wire.encode_fetch(self.table_id, h, i)))

    def apply_ready(self) -> None:
        """Apply every buffered entry that is now next in the log."""
        while not self.stopped and not self.finished and self.holding() is None:
            hp = self.match.hand
            w = hp.expected_writer()
            if w is None:
                return
            key = self.keys[w]
            env = self._early.pop((hp.hand_no, key, self.verifier.next_seq(key)), None)
            if env is None:
                return
            self._unbuffer(key, env)
            self._apply(env, persist=True, sender=None)

    # ===================================================================== internals
    def _event(self, kind: str, text: str, **data: Any) -> None:
        self._out.events.append(SessionEvent(kind, text, data))

    def _new_verifier(self, hand: int) -> LogVerifier:
        return LogVerifier(self.table_id, hand, self.keys, self.header.genesis(hand),
                           linear=True)

    def _check_hand(self) -> None:
        """A new hand object: import its stored secrets before it sees any entry."""
        hp = self.match.hand
        if hp is self._hand_obj:
            return
        self._hand_obj = hp
        rec = self.secrets.get(hp.hand_no)
        if rec is not None:
            hp.import_secrets({"deck": dict(rec["deck"]), "rand_seed": rec["rand_seed"]})
        if hp.hand_no not in self.log:
            self.log[hp.hand_no] = []
        if self.verifier.hand != hp.hand_no:
            self._side_heads = {}
            self.verifier = self._new_verifier(hp.hand_no)
            self._hashes[self.verifier.genesis] = (hp.hand_no, -1)
            self._event("hand-start", f"hand {hp.hand_no + 1} begins: shuffling",
                        hand=hp.hand_no)

    def label(self, sender: bytes | None) -> str:
        """A sender in words: its seat and name, or its transport id."""
        if sender is None:
            return "store"
        s = self.seat_of_node.get(sender)
        return f"seat {s} ({self.names[s]})" if s is not None else f"node {sender.hex()[:16]}"

    def _drop(self, sender: bytes | None, reason: str, detail: str = "") -> None:
        label = self.label(sender)
        k = (label, reason)
        n = self.drops.get(k, 0) + 1
        self.drops[k] = n
        self.drop_log.append((label, reason, detail))
        if n <= _LOG_LIMIT or n % 1000 == 0:
            log.warning("seat %d dropped a message from %s: %s %s (count %d)",
                        self.me, label, reason, detail, n)
            self._event("dropped", f"dropped a message from {label}: {reason}",
                        sender=label, reason=reason, detail=detail)

    def _stop(self, reason: str, blamed: int | None, why: str = "", /, **data: Any) -> None:
        if self.finished:
            return
        if self.stopped:
            # a pause for a seat's silence, or a player's leave record, blames nobody;
            # proof of a cheat found later replaces it (the silent seat may be the one the
            # cheat was aimed at). After a leave record the screen kept "Cy left" while
            # the peer's error and ``verify`` named the cheat (hostile pass 13's note)
            if blamed is None or not self._stop_gives_way():
                return
            self.unresponsive = None
        self.stopped = reason
        self.stop_why = {"id": why, **data} if why else None
        self._event("stopped", f"the match stopped: {reason}", reason=reason, seat=blamed,
                    why=self.stop_why)
        log.warning("seat %d: match stopped: %s", self.me, reason)

    def _stop_gives_way(self) -> bool:
        """Whether the stop in force blames nobody and a proven cheat replaces it: a pause
        for a seat's silence, or a leave record's."""
        return (self.unresponsive is not None
                or (self.stop_why or {}).get("id") == "abandoned")

    def seat_name(self, seat: int | None) -> str:
        return "an unknown seat" if seat is None else f"seat {seat} ({self.names[seat]})"

    def _who(self, env: Envelope) -> str:
        s = self.seat_of_key.get(env.author)
        return f"author seat {s}" if s is not None else "unknown author"

    # ----- receiving ---------------------------------------------------------------
    def _buffer(self, slot: tuple[int, bytes, int], env: Envelope) -> None:
        self._early[slot] = env
        a = slot[1]
        self._early_count[a] = self._early_count.get(a, 0) + 1
        self._early_bytes[a] = self._early_bytes.get(a, 0) + len(env.encode())

    def _unbuffer(self, author: bytes, env: Envelope) -> None:
        self._early_count[author] -= 1
        self._early_bytes[author] = max(0, self._early_bytes.get(author, 0)
                                        - len(env.encode()))

    def _on_entry(self, sender: bytes | None, raw: bytes, solicited: bool) -> None:
        if len(raw) > MAX_ENVELOPE_BYTES:
            self._drop(sender, "oversized", f"entry of {len(raw)} bytes")
            return
        try:
            env = Envelope.decode(raw)
        except EnvelopeError as exc:
            reason = "unsigned" if wire.looks_unsigned(raw) else "malformed"
            self._drop(sender, reason, str(exc))
            return
        if env.table != self.table_id:
            self._drop(sender, "foreign-table", env.table.hex()[:16])
            return
        if env.author not in self.seat_of_key:
            self._drop(sender, "unknown-author", env.author.hex()[:16])
            return
        if is_side(env.body):
            self._on_side(sender, env)
            return
        if self.error is not None:
            # stopped on a proven cheat: the verdict stands and the log ends there. Each
            # entry pushed as the log's next one was still applied: the log grew past the
            # stop, and another seat's bad entry then replaced the verdict (``error``
            # named it while the stop named the first), and ``verify`` of the transcript
            # named the later one (hostile pass 13)
            return
        cur = self.match.hand_no
        slot = (env.hand, env.author, env.seq)
        idx = self._slots.get(slot)
        if idx is not None or env.hand < cur or self.finished:
            # already in our log (or from a finished hand): a resend or a replay
            old = self.log.get(env.hand, [])
            if idx is not None and old[idx] != raw and env.signature_ok():
                first = Envelope.decode(old[idx])
                self._equivocation(Equivocation(first, env))
                return
            if not env.signature_ok():
                self._drop(sender, "bad-signature", f"{self._who(env)} seq {env.seq}")
            elif not solicited:
                self._drop(sender, "replayed", f"hand {env.hand} seq {env.seq}")
            return
        if env.hand > cur + 1:
            # proof that its author moved on, should this computer time out that seat's
            # step (see _moved_on): one checked entry per key is kept, and none is
            # checked while it still proves it (a fast table sends many; a forgery under
            # the seat's name replaced the real one when the latest was kept unchecked)
            proof = self._heard_ahead.get(env.author)
            if (proof is None or proof.hand <= cur + 1) and env.signature_ok():
                self._heard_ahead[env.author] = env
            self._drop(sender, "too-far-ahead", f"hand {env.hand} while {cur} runs")
            return
        if env.author not in self.keys:
            # a player a bot replaced (by agreement): its key is still known (its side
            # entries are read) but signs nothing of the game from the bot's first hand;
            # the hand's verifier does not know it (its entry raised KeyError here). An
            # honest one back late may write the next hand before it learns: nobody blamed
            self._drop(sender, "replaced-key", f"{self._who(env)} hand {env.hand}")
            return
        early = self._early.get(slot)
        if early is not None:
            if early.encode() == raw:
                return
            if env.signature_ok():
                if early.signature_ok():
                    self._equivocation(Equivocation(early, env))
                    return
                self._unbuffer(env.author, early)   # the buffered one was a forgery
                self._buffer(slot, env)
            else:
                self._drop(sender, "bad-signature", f"{self._who(env)} seq {env.seq}")
            return
        unchained = self._unchained.get(env.author)
        if (unchained is not None and (unchained.hand, unchained.seq) == (env.hand, env.seq)
                and unchained.encode() != raw and env.signature_ok()):
            # we dropped one version of this slot as a broken link; this is another
            self._equivocation(Equivocation(unchained, env))
            return
        held = self.holding()
        if held is not None and self._goes_on_past(env, *held) and env.signature_ok():
            self._release(held[0], f"{self._who(env)} wrote on past the point")
        if self._is_next(env):
            self._apply(env, persist=True, sender=sender)
            return
        # early: keep it (signature checked now so a forgery cannot squat the slot)
        if not env.signature_ok():
            self._drop(sender, "bad-signature", f"{self._who(env)} seq {env.seq}")
            return
        if (self._early_count.get(env.author, 0) >= self.opts.max_early
                or self._early_bytes.get(env.author, 0) + len(raw) > self.opts.max_early_bytes):
            self._drop(sender, "buffer-full", self._who(env))
            return
        self._buffer(slot, env)

    # ----- side entries: claims and records beside the game log -----------------------
    def write_side(self, body: dict[str, Any]) -> Envelope:
        """Sign a side entry (a timeout claim, an abandon): recorded in the transcript and
        pushed to every peer, but never a link of the game chain (no fork, no rebase)."""
        env = Envelope.create(self.identity, self.table_id, self.match.hand_no, 0,
                              self.verifier.head, body)
        self._side_seen.add((env.author, env.hand, str(body.get("k"))))
        self.side.append(env)
        self._persist(env)
        self._out.messages.extend((None, p) for p in wire.encode_push([env.encode()]))
        return env

    def _on_side(self, sender: bytes | None, env: Envelope) -> None:
        seat = self.seat_of_key[env.author]
        kind = str(env.body.get("k"))
        key = (env.author, env.hand, kind)
        if key in self._side_seen:
            if kind == "side.complaint" and sender is not None:
                self._another_complaint(sender, env)
            return                              # one of each kind per seat per hand
        if not 0 <= env.hand <= self.match.hand_no + 1:
            self._drop(sender, "wrong-hand", f"side entry for hand {env.hand}")
            return
        if not env.signature_ok():
            self._drop(sender, "bad-signature", f"{self._who(env)} {kind}")
            return
        if kind in (TAKEOVER, END):
            self._on_agreement(sender, env, kind)
            return
        if env.author not in self._seat_of_key_in(env.hand, kind == "side.timeout"):
            # a bot's key signs for its seat only from the hand after its takeover's (as
            # ``verify``'s ``_standing_side``): its runner's complaint signed with it for
            # a hand the player still played was taken as the player's, and live peers
            # blamed the honest player who left for it (hostile pass 13)
            self._drop(sender, "replaced-key", f"{self._who(env)} {kind} hand {env.hand}")
            return
        if (kind == "side.abandon" and env.author
                not in self._seat_of_key_in(max(env.hand, self.match.hand_no))):
            # a leave record counts only when its signer holds the seat in the hand in
            # play: the player a bot replaced dated one back to the hand he still played,
            # and it stopped the table the bot played at (hostile pass 14)
            self._drop(sender, "replaced-key", f"{self._who(env)} {kind} hand {env.hand}")
            return
        bad = _side_problem(env.body, self.cfg.n)
        if bad:
            self._drop(sender, "malformed", f"{kind}: {bad}")
            return
        self._side_seen.add(key)
        self.side.append(env)
        self._persist(env)
        if env.hand == self.match.hand_no and sender is not None:
            # its author's log head when it wrote it: one this log never held hints at a
            # fork under us (see _chained_elsewhere); one per seat is kept (bounded)
            self._side_heads[env.author] = env.prev
        if kind == "side.abandon":
            # a pause for a seat's silence gives way to the leave record, as to a proven
            # cheat: ``verify`` of this transcript says the seat left (a leave record
            # explains the end before any timeout claim), and the peer kept "is
            # unresponsive", over for good once the record came (hostile pass 15)
            paused = self.resumable and self.unresponsive is not None
            self._abandoned = True
            if paused:
                self.stopped = None
                self.unresponsive = None
            if sender is not None and not self._replay_mode:
                # a leave record this peer stops on goes to every peer, as a complaint it
                # stops on does: one sent to a single peer stopped it, and the others,
                # who never heard of it, waited for it and named it unresponsive (hostile
                # pass 14). One of each kind per seat and hand is kept: no echo
                self._out.messages.extend(
                    (None, p) for p in wire.encode_push([env.encode()]))
            reason = safe_text(str(env.body["reason"]), 200, placeholder="")
            self._event("abandoned", f"{self.names[seat]} left the table: {reason}",
                        seat=seat, reason=reason)
            self._stop(f"{self.seat_name(seat)} abandoned the match: {reason}", None,
                       "abandoned", seat=seat, text=reason)
        elif kind == "side.complaint":
            self._on_complaint(seat, env)
        elif kind == "side.timeout":
            h, s, q = env.body["slot"]
            self._event("claim", f"{self.names[seat]} did not receive {env.body['step']} "
                        f"from {self.names[s]} in time", seat=seat, about=s, hand=h, seq=q)

    # ----- agreements: a bot for a silent seat, or the end of the match ---------------------
    def propose_takeover(self, seat: int) -> Envelope | None:
        """Sign "from the next hand, a bot plays ``seat``" for the hand in play. The runner
        (the lowest other seat) must have set :attr:`bot_offer` first (its bot's key,
        endpoint, transport key). None when this seat signed one already in this hand, or
        may not (it is the silent seat, or the match is over)."""
        return self._propose(TAKEOVER, seat)

    def propose_end(self, seat: int) -> Envelope | None:
        """Sign "the match ends here, after ``seat`` left" for the hand in play."""
        return self._propose(END, seat)

    def _propose(self, kind: str, seat: int) -> Envelope | None:
        """The record signed, or None with why in :attr:`refused` (see :meth:`_refusal`;
        a console says which: the player was told "you already chose" when the others'
        records named a later point, hostile pass 9)."""
        self.refused = self._refusal(kind, seat)
        if self.refused is not None:
            return None
        h = self.match.hand_no
        # the point: how far this seat saw the hand before the seat fell silent
        body: dict[str, Any] = {"k": kind, "hand": h, "seat": seat, "at": len(self.log[h])}
        if kind == TAKEOVER:
            runner = runner_for(seat, self.cfg.n)
            body["runner"] = runner
            if runner == self.me and self.bot_offer is not None:
                key, endpoint, curve = self.bot_offer
                body.update(key=key, endpoint=endpoint)
                if curve is not None:
                    body["curve"] = [curve[0], curve[1]]
        env = self.write_side(body)
        self.agreements.add(kind, h, self.me, body)
        self._check_agreement(h)
        self._review_hold()
        return env

    def _refusal(self, kind: str, seat: int) -> str | None:
        """Why this seat may not sign ``kind`` about ``seat`` now, else None: ``over``
        (nothing to agree on: the hand or match is over, stopped for good, or ``seat`` is
        this one), ``chosen`` (this seat signed this kind, or the other, in the hand),
        ``not-due`` (``seat``'s step is not the one due), ``ahead`` (others signed this
        kind about ``seat`` at a later point of the hand than this peer has reached),
        ``no-bot`` (this seat runs the bot and has offered none)."""
        h = self.match.hand_no
        if (self.finished or self.agreed_end is not None or self._abandoned
                or self.error is not None or seat == self.me or not 0 <= seat < self.cfg.n
                or self.match.hand.done):
            return "over"
        if (self.identity.public_key, h, kind) in self._side_seen:
            return "chosen"
        if self.match.hand.expected_writer() != seat:
            # S is silent where its step is due: a record names that point. Signed where
            # this seat's own step was due (between two pauses of a seat past its
            # budget), it held its step back, and the others, waiting for it, named it
            # unresponsive at the step limit (a signed claim) unless they co-signed in
            # time; signed where another remaining seat's was due, that seat's entry
            # passed the point at once and the record was spent for the hand. So: only
            # where S's step is due (paused on it, or within its grace)
            return "not-due"
        other = END if kind == TAKEOVER else TAKEOVER
        if ((self.identity.public_key, h, other) in self._side_seen
                and not self._record_spent(other, h)):
            return "chosen"          # one choice per hand: never both a bot and an end
        if any(b["seat"] == seat and (point_of(b) or 0) > len(self.log[h])
               for b in self.agreements.votes.get((kind, h), {}).values()):
            return "ahead"           # the others signed further on: we lag, sign there
        if kind == TAKEOVER and runner_for(seat, self.cfg.n) == self.me \
                and self.bot_offer is None:
            return "no-bot"
        return None

    def holding(self) -> tuple[str, dict[str, Any]] | None:
        """(kind, body) of this seat's own agreement record for the hand in play while it
        is pending, else None. While it is, this seat applies and writes nothing more of
        the hand: it signed that the seat was silent at that point (``at``: the entries
        it had applied), and the agreement, if it holds, voids the hand from there. A
        late entry of the silent seat, sent to this peer alone after it signed, waits in
        the buffer (bounded, like any early entry): applied, it would have this peer
        score a hand that the others, co-signing, void. The wait ends when the agreement
        holds, or on evidence that it cannot (:meth:`_review_hold`); the table is paused
        on the silent seat meanwhile, as it was when this seat signed."""
        h = self.match.hand_no
        if self.finished or self.agreed_end is not None or self.match.hand.done:
            return None
        for kind in (TAKEOVER, END):
            mine = self.agreements.votes.get((kind, h), {}).get(self.me)
            at = point_of(mine) if mine is not None else None
            # only at the point: short of it (a store cut short by damage, fetched again)
            # the entries up to it come first; past it, it stopped holding before a
            # restart, which forgets that
            if (mine is not None and (kind, h) not in self._released and at is not None
                    and len(self.log[h]) == at):
                return kind, mine
        return None

    def _goes_on_past(self, env: Envelope, kind: str, mine: Mapping[str, Any]) -> bool:
        """Is ``env`` (a game entry) a sign that a remaining seat went on past this seat's
        point, so that the agreement ``mine`` cannot hold? An entry of the hand in play
        beyond the point (its author's next one here, or later) by a seat other than the
        silent one and this one, that has not signed the same record: an honest seat
        signs only the point where it stands, and one that went on stands past ours for
        good. (One that signed our point and wrote on anyway signed two contradicting
        things: its entry is no evidence, the records decide.) An entry of the next hand
        is none: a seat that voided the hand at our point deals the next one too, and its
        record may still be on its way here.)"""
        h = self.match.hand_no
        silent = int(mine["seat"])
        author = self.keys.index(env.author) if env.author in self.keys else None
        if author is None or author in (silent, self.me):
            return False
        if env.hand != h or env.seq < self.verifier.next_seq(env.author):
            return False
        return self._past_point(author, kind, mine)

    def _past_point(self, seat: int, kind: str, mine: Mapping[str, Any]) -> bool:
        """``seat``, seen going on past this seat's point, never signed the same record
        (an honest seat signs where it stands): its going on is evidence."""
        theirs = self.agreements.votes.get((kind, self.match.hand_no), {}).get(seat)
        return theirs is None or (int(theirs["seat"]), point_of(theirs)) != (
            int(mine["seat"]), point_of(mine))

    def _review_hold(self) -> None:
        """Stop holding the hand for this seat's own record when the agreement can no
        longer hold: another remaining seat signed a record naming another seat or point,
        or an entry kept aside shows one went on past the point (:meth:`_goes_on_past`).
        Both kinds are reviewed: a seat may hold both records at one point (the second
        signed once the first could not hold, see :meth:`_record_spent`), and a restart
        reads them again in any order."""
        for _ in (TAKEOVER, END):
            held = self.holding()
            if held is None:
                return
            kind, mine = held
            h = self.match.hand_no
            if self.agreements.cannot_hold(kind, h, mine, self.me):
                self._release(kind, "another seat signed another point")
                continue
            other = END if kind == TAKEOVER else TAKEOVER
            if any(s not in (self.me, int(mine["seat"])) and s not in
                   self.agreements.votes.get((kind, h), {})
                   for s in self.agreements.votes.get((other, h), {})):
                # another remaining seat chose the other agreement: it does not sign this
                # one (an honest seat signs a second kind only once its first is spent),
                # so held, the silent seat's entry, back, was kept aside at both and
                # lifted neither pause: the table stuck for good. Released, this seat
                # stays at its point while nothing comes (its record may still hold
                # there), and a late entry lifts the pause as for any silent seat
                self._release(kind, "another seat chose the other agreement")
                continue
            for env in list(self._early.values()):
                if self._goes_on_past(env, kind, mine):
                    self._release(kind, f"{self._who(env)} wrote on past the point")
                    break
            else:
                return

    def _release(self, kind: str, why: str) -> None:
        """The agreement of ``kind`` this seat signed in the hand in play cannot hold:
        apply the entries kept aside and go on (said as an event, with why), and ask the
        others for what follows (a paused log does not ask by itself)."""
        h = self.match.hand_no
        self._released.add((kind, h))
        self._event("agreement-void", f"the agreement ({kind}) cannot hold: {why}; the "
                    "hand goes on", record=kind, hand=h, why=why)
        if not self._replay_mode:
            w = self.match.hand.expected_writer()
            if self.stopped is not None and self.resumable and w is not None:
                # paused on the silent seat: its entry kept aside lifts the pause now, as
                # it would have on arrival (apply_ready applies nothing while stopped)
                key = self.keys[w]
                env = self._early.pop((h, key, self.verifier.next_seq(key)), None)
                if env is not None:
                    self._unbuffer(key, env)
                    self._apply(env, persist=True, sender=None)
            self.apply_ready()
            self.fetch_all()

    def _record_spent(self, kind: str, hand: int) -> bool:
        """Can this seat's own record of ``kind`` in ``hand`` never take effect here? When
        another seat signed another point (it can never hold: each seat counts once), or
        this peer has passed its point (an agreement takes effect only at its point; a
        seat past it never goes back). Then the other kind is still this seat's to sign:
        a seat that fell silent, came back (its entry passed the point) and fell silent
        again in the same hand could else never be agreed on (the end included) until it
        came back. Never both at one point: an agreement there may still hold, and a
        peer that took the bot first and the end later would differ from ``verify``,
        where the end wins. (A record with no point, an older release's, is never
        spent.)"""
        mine = self.agreements.votes.get((kind, hand), {}).get(self.me)
        at = point_of(mine) if mine is not None else None
        if mine is None or at is None:
            return False
        return (len(self.log.get(hand, [])) > at
                or self.agreements.cannot_hold(kind, hand, mine, self.me))

    def saw_silent(self, seat: int) -> bool:
        """Has this peer itself seen ``seat`` go silent in the hand in play (its step timed
        out here, or it said it abandoned)? What an honest seat needs before it signs a
        takeover or an end naming it: another seat's word alone would let one player, with
        the bots co-signing, end the match "after" an active player "left"."""
        why = self.stop_why or {}
        return (self.stopped is not None and (
            self.unresponsive == seat
            or (why.get("id") == "abandoned" and why.get("seat") == seat))) or (
            # a seat past its budget of automatic steps is silent at each of them: between
            # two (the pause lifted by its late entry) it is no less so
            not self.done and self.over_budget(seat))

    def proposals(self) -> dict[str, dict[int, dict[str, Any]]]:
        """The agreement records of the hand in play: kind -> {signer seat: body}."""
        h = self.match.hand_no
        return {k: self.agreements.signed(k, h) for k in (TAKEOVER, END)}

    def _on_agreement(self, sender: bytes | None, env: Envelope, kind: str) -> None:
        keys = keys_at(self.base_keys, self.takeovers, env.hand)
        seat = keys.index(env.author) if env.author in keys else None
        if seat is None:
            self._drop(sender, "unknown-author", f"{kind} by a key without a seat then")
            return
        bad = body_problem(env.body, env.hand, seat, self.cfg.n, keys)
        if bad:
            self._drop(sender, "malformed", f"{kind}: {bad}")
            return
        self._side_seen.add((env.author, env.hand, kind))
        at = point_of(env.body)
        if env.hand < self.match.hand_no or self.finished:
            # a hand over here (scored, or voided by an agreement already): the record can
            # no longer take effect at this peer, so it is not kept either. Kept, it had
            # `verify` of this transcript void a hand this peer scored (and swap the keys
            # of the next ones): the silent seat's own peer, scoring the hand with its
            # late last entry, was told "voided" by verify and "scored" live; a lone
            # opponent at two seats (or every other seat) could, after the match, send
            # one naming the winner and have its transcript say the hand was voided
            if at is not None and not self._replay_mode and \
                    len(self.log.get(env.hand, [])) > at:
                self._say_past(env.hand, seat)       # its signer may hold the hand there
            self._drop(sender, "late-agreement", f"{kind} for hand {env.hand}")
            return
        self.side.append(env)
        if not self._replay_mode:
            self._persist(env)
        self.agreements.add(kind, env.hand, seat, env.body)
        self._event("agreement", f"{self.names[seat]} agrees: {kind} for "
                    f"{self.names[int(env.body['seat'])]}", seat=seat, record=kind,
                    about=int(env.body["seat"]), hand=env.hand)
        self._check_agreement(env.hand)
        if env.hand == self.match.hand_no:
            self._review_hold()
        if at is not None and not self._replay_mode and len(self.log.get(env.hand, [])) > at:
            # a record naming a point this peer passed: its signer holds the hand there
            # until it learns that the agreement cannot hold
            self._say_past(env.hand, seat)

    def _check_agreement(self, hand: int) -> None:
        """An agreement that holds for the hand in play takes effect (see
        :mod:`p2p.transcript.agreement`): the end stops the match; a takeover voids the
        hand and deals the next one with the bot's key in the silent seat."""
        if hand != self.match.hand_no or self.finished or self.agreed_end is not None \
                or self._abandoned or self.error is not None:
            return
        end = self.agreements.end(hand)
        if end is not None and not self._at_point(hand, end.seat, end.at):
            return
        if end is not None and self.match.end_by_agreement(hand):
            self.agreed_end = end
            self._push_records(END, hand)
            reason = (f"the match was ended in hand {hand + 1} by "
                      f"{', '.join(self.names[x] for x in end.signers)}, saying "
                      f"{self.names[end.seat]} had left")
            self.stopped = None
            self._stop(reason, None, "agreed-end", hand=hand, seat=end.seat,
                       signers=list(end.signers))
            self._event("agreed-end", reason, hand=hand, seat=end.seat,
                        signers=list(end.signers))
            return
        t = self.agreements.takeover(hand)
        if t is None or self.match.hand.done or not self._at_point(hand, t.seat, t.at):
            return
        keys = list(self.keys)
        replaced = keys[t.seat]
        keys[t.seat] = t.key
        self.keys = tuple(keys)
        self.seat_of_key[t.key] = t.seat
        self.seat_of_node[wire.node_id_for(t.key)] = t.seat
        # what was said or seen of the player who left (an AWAY, a transport gone) is no
        # word on the bot: kept, the table paused on the bot's first step at once, saying
        # the player had quit (its transport speaks for it from now on)
        self._forget_away(t.seat)
        self._gone_since.pop(t.seat, None)
        self._update_deaf()
        if t.seat == self.me:
            if t.key == self.identity.public_key:
                self.match.me_from = hand + 1        # the bot plays from the next hand
            else:
                self.match.me = None                 # replaced: follow as a spectator
        self.takeovers.append(t)
        self._push_records(TAKEOVER, hand)
        for (_, later), votes in self.agreements.votes.items():
            if later > hand:
                # records of a later hand (one ahead is taken) signed by the replaced
                # key while it was still the seat's: no vote of the bot's. Kept, the
                # replaced player cast the bot's seat's one vote of the next hand (the
                # bot's own record ignored), and a peer differed from `verify` and from
                # itself resumed, which read that hand's records with the bot's key
                votes.pop(t.seat, None)
        # ... nor served to others (a FETCH reply carries the agreements first), who drop
        # them as a key without a seat then, as this peer resumed does
        self.side[:] = [e for e in self.side if not (
            e.author == replaced and e.hand > hand and e.body.get("k") in (TAKEOVER, END))]
        self.match.void(hand)
        self._drop_early(hand)
        if self.stopped is not None and self.error is None:
            self.stopped = None                      # the table waited for t.seat: go on
            self.unresponsive = None
        self._check_hand()
        now = self.clock()
        self._progress(now)
        self._stall = self.opts.stall_after
        self.next_fetch = now + self._stall
        self._event("takeover", f"from hand {hand + 2}, {self.names[t.seat]}'s seat is "
                    f"played by a bot run by {self.names[t.runner]}", hand=hand,
                    seat=t.seat, runner=t.runner, key=t.key, endpoint=t.endpoint,
                    curve=t.curve, signers=list(t.signers))
        if not self._replay_mode:
            self.apply_ready()

    def _push_records(self, kind: str, hand: int) -> None:
        """The records of an agreement that took effect here, sent to every peer: each
        signer sends its own, but a hostile one sent its record to one honest peer alone,
        which ended the match (or gave the seat to a bot) while the other stayed paused
        for ever, short of a signature it never got (a paused peer asks nobody for
        entries; hostile pass 23)."""
        if self._replay_mode:
            return
        records = [e.encode() for e in self.side
                   if e.hand == hand and e.body.get("k") == kind]
        self._out.messages.extend((None, p) for p in wire.encode_push(records))

    def _say_past(self, hand: int, seat: int) -> None:
        """Tell ``seat``, which signed an agreement naming a point of ``hand`` this peer
        has passed, how many entries of that hand this peer holds (a FETCH from there):
        it holds the hand at its point until it learns that the agreement cannot hold,
        and an honest seat never signs a point it passed. A peer that voided the hand at
        that point holds exactly as many entries of it, so the word is never sent by
        one."""
        node = wire.node_id_for(self.keys[seat]) if hand == self.match.hand_no else \
            wire.node_id_for(keys_at(self.base_keys, self.takeovers, hand)[seat])
        self._out.messages.append((node, wire.encode_fetch(self.table_id, hand,
                                                           len(self.log[hand]))))

    def _drop_early(self, hand: int) -> None:
        """Entries of ``hand`` kept aside (past an agreement's point) once it is voided:
        they are no part of the match and would never be applied."""
        for slot in [k for k in self._early if k[0] == hand]:
            self._unbuffer(slot[1], self._early.pop(slot))

    def _at_point(self, hand: int, silent: int, at: int | None) -> bool:
        """May an agreement that holds at point ``at`` of ``hand`` (the hand in play)
        take effect here now? When this peer has applied just that many entries of it;
        one that lags gets there first (checked again after each entry); the silent
        seat's own peer, back past the point with its late entries, voids the hand too
        (they are no part of the match). A remaining seat past the point never co-signed
        it (an honest one signs where it stands and holds there): the record set that
        holds then includes a contradicting signature, and this peer goes on (None: a
        record of an older release, which names no point, takes effect wherever)."""
        if at is None:
            return True
        have = len(self.log.get(hand, []))
        if have == at:
            return True
        if have > at and silent == self.me:
            return True
        if have > at and (hand, at) not in self._passed:
            self._passed.add((hand, at))
            self._event("agreement-passed", f"an agreement for hand {hand + 1} names a point "
                        f"({at} entries) this peer had passed ({have}); it goes on",
                        hand=hand, at=at, have=have)
        return False

    def _complain(self, env: Envelope, check: str) -> None:
        """This seat found a cheat in ``env`` that others may not see (a private share is
        checked by its recipient only): a signed complaint carrying the entry itself, so
        every peer checks the evidence and blames the same seat."""
        if (self.identity.public_key, env.hand, "side.complaint") in self._side_seen:
            return
        self.write_side({"k": "side.complaint", "check": check[:60], "entry": env.encode()})

    def _seat_of_key_in(self, hand: int, keep_replaced: bool = False) -> dict[bytes, int]:
        """:func:`~p2p.transcript.agreement.seat_of_keys` of this table in ``hand``
        (``seat_of_key`` holds a bot's key for every hand once its takeover took
        effect: evidence and records are judged by this, as ``verify`` judges them)."""
        return seat_of_keys(self.base_keys, self.takeovers, hand, keep_replaced)

    def _another_complaint(self, sender: bytes, env: Envelope) -> None:
        """A seat's complaint for a hand it complained in already: judged, and kept (and
        sent to every peer) only when this peer stops on it. One complaint per seat and
        hand was kept, every other dropped unjudged: a hostile seat sent one that decides
        nothing to one honest peer and an unfounded one to the other, who stopped on it
        and sent it on; the first peer dropped it, waited for the one that had stopped and
        named it unresponsive (hostile pass 23). One this peer cannot judge yet (about a
        later hand, or a round not shuffled here yet) is set aside as a first complaint
        is, one a sender, author and hand: a seat may send any number, and each peer
        sends on only the one it stopped on (dropped, it was never judged here, the same
        split: the review of pass 23). A transcript holds at most one more complaint of a
        seat and hand: the one its peer stopped on."""
        if self.finished or self.error is not None or env in self.side:
            return
        if not (0 <= env.hand <= self.match.hand_no + 1 and env.signature_ok()
                and env.author in self._seat_of_key_in(env.hand)
                and not _side_problem(env.body, self.cfg.n)):
            self._drop(sender, "malformed", "another complaint")
            return
        self._judge_another((sender, env.author, env.hand), self.seat_of_key[env.author], env)

    def _judge_another(self, key: tuple[bytes, bytes, int], complainer: int,
                       env: Envelope) -> None:
        """Judge a later complaint (:meth:`_another_complaint`): set aside under ``key``
        when it cannot be judged yet, recorded when this peer stops on it."""
        pending, judged = len(self._pending_complaints), self.error
        self._on_complaint(complainer, env)
        set_aside = self._pending_complaints[pending:]
        del self._pending_complaints[pending:]
        if set_aside:
            self._later_complaints[key] = set_aside[0]
        # only the one this peer stops on: others judged after it (set aside together,
        # the peer already stopped) were written too, three or more of a seat and hand
        if self.error is not None and self.error is not judged and env not in self.side:
            self.side.append(env)
            self._persist(env)

    def _on_complaint(self, complainer: int, complaint: Envelope) -> None:
        """Judge a complaint (:meth:`_judge_complaint`); one this peer stops on goes to
        every peer, as a bad entry it stops on does: a complaint its author sent to one
        honest peer alone stopped that peer, and the others, who never heard of it,
        waited for it and named it unresponsive (hostile pass 13). A peer that has it
        already keeps one copy (one of each kind per seat and hand)."""
        judged = self.error
        self._judge_complaint(complainer, complaint)
        if self.error is not None and self.error is not judged and not self._replay_mode:
            self._out.messages.extend(
                (None, p) for p in wire.encode_push([complaint.encode()]))

    def _judge_complaint(self, complainer: int, complaint: Envelope) -> None:
        """Check a complaint's evidence ourselves: a decryption share whose proof fails
        names its author; evidence that holds up names the complainer. Evidence of any
        other kind is in every peer's log already and judged there; a broken link alone is
        never evidence. A peer already stopped for silence (nobody blamed) still judges
        it: the verdict follows the evidence, never the order in which it arrived."""
        if self.finished or self.error is not None:
            return
        if complaint.body.get("check") == "equivocation":
            eq = equivocator(complaint.body, self._seat_of_key_in(_evidence_hand(complaint)),
                             self.table_id)
            if eq is None:
                self.error = ProtocolError(complainer, "unfounded-complaint",
                                           "its evidence shows no equivocation")
                self._stop(f"{self.seat_name(complainer)} complained without evidence",
                           complainer, "unfounded-complaint", seat=complainer)
            else:
                self.error = ProtocolError(eq, "equivocation", "shown by a complaint")
                self._stop(f"{self.seat_name(eq)} signed two different entries for one "
                           "slot (equivocation)", eq, "equivocation", seat=eq)
            return
        try:
            ev = Envelope.decode(complaint.body["entry"])
        except EnvelopeError:
            ev = None
        # the keys with a seat in the evidence's hand (a bot's only after its takeover,
        # as ``verify``'s): ``seat_of_key`` named the player who left for what the bot's
        # runner signed with the bot's key in a hand the player still played
        seats = {} if ev is None else self._seat_of_key_in(ev.hand)
        if (ev is None or ev.table != self.table_id or ev.author not in seats
                or not ev.signature_ok()):
            self.error = ProtocolError(complainer, "unfounded-complaint",
                                       "its evidence is not an entry signed at this table")
            self._stop(f"{self.seat_name(complainer)} complained without evidence", complainer,
                       "unfounded-complaint", seat=complainer)
            return
        accused = seats[ev.author]
        if is_side(ev.body):
            return                  # side entries are no link of the log: nothing to judge
        fault = deck_body_fault(ev.body)
        if fault is not None:
            # a signed body that no honest peer writes: its author is to blame, whatever
            # its hand (as ``verify`` judges it; one of another hand was set aside here)
            self.error = ProtocolError(accused, "malformed-body", fault)
            self._out.evidence.extend((ev, complaint))
            self._stop(f"{self.seat_name(accused)} broke the rules of the protocol "
                       f"(malformed-body, shown by {self.names[complainer]}'s complaint)",
                       accused, "protocol", seat=accused, check="malformed-body",
                       by=complainer)
            return
        if ev.body.get("k") != "deck.share":
            # Evidence judged as the entry itself: taken as if its author had sent it here.
            # A second version of a slot this log holds proves an equivocation; the next
            # entry is judged by this peer's own rules (a bad one stops it, naming its
            # author); a later one waits in the buffer as any early entry does.
            self._on_entry(None, complaint.body["entry"], solicited=True)
            self.apply_ready()
            return
        m = message_from_body(ev.body)      # well-formed: deck_body_fault found nothing
        if not isinstance(m, DecryptShare) or m.seat != accused:
            # a share naming another seat than its signer's: its signer's malformed body,
            # whatever its hand (as ``verify`` judges it)
            self.error = ProtocolError(accused, "malformed-body", "the complained-of share")
            self._stop(f"{self.seat_name(accused)} sent a malformed share", accused,
                       "malformed-share", seat=accused)
            return
        if ev.hand > self.match.hand_no:
            # about a hand this peer has not reached: judged when it gets there, looked at
            # again only when the hand or the seats' keys change (one complaint per seat
            # and hand is kept, but its evidence may name any later hand: a hostile seat's,
            # one a hand, about a hand no log reaches, were each judged again after every
            # entry applied, 0.3 ms each)
            self._pending_complaints.append(
                (complainer, complaint, (self.match.hand_no, len(self.takeovers))))
            return
        hand = self.match.hand_for_shares(ev.hand)
        if hand is None:
            return        # an older hand: ``verify`` sets it aside too
        if not hand.deck.can_judge_share(m):
            if hand is not self.match.hand:
                return    # a finished hand has every round it will have: nothing to judge
            # this peer lags (the share's round is not shuffled here yet): "no such
            # position" would blame an honest author; judge once the log gets there
            self._pending_complaints.append((complainer, complaint, None))
            return
        try:
            hand.deck.verify_share(m)
        except CheatDetected as cheat:
            self.error = ProtocolError(accused, cheat.check, str(cheat))
            self._out.evidence.extend((ev, complaint))
            self._stop(f"{self.seat_name(accused)} broke the rules of the protocol "
                       f"({cheat.check}, shown by {self.names[complainer]}'s complaint)",
                       accused, "protocol", seat=accused, check=cheat.check, by=complainer)
            return
        self.error = ProtocolError(complainer, "unfounded-complaint",
                                   f"the share of seat {accused} it complains about is valid")
        self._out.evidence.append(complaint)
        self._stop(f"{self.seat_name(complainer)} complained about a valid share "
                   "(unfounded complaint)", complainer, "valid-share-complaint",
                   seat=complainer)

    def _judge_pending_complaints(self) -> None:
        """Complaints set aside because this peer lagged: judge those it can now (called
        after each entry applied; a round is shuffled here before its hand can end, so a
        complaint is judged in its hand, or just after it with the deck of the hand
        finished last, as ``verify`` judges it: see ``MatchProtocol.hand_for_shares``)."""
        now = (self.match.hand_no, len(self.takeovers))
        waiting = [p for p in self._pending_complaints if p[2] != now]
        later = [k for k, p in self._later_complaints.items() if p[2] != now]
        if not waiting and not later:
            return
        self._pending_complaints = [p for p in self._pending_complaints if p[2] == now]
        for complainer, complaint, _at in waiting:
            self._on_complaint(complainer, complaint)
        for key in later:
            complainer, complaint, _at = self._later_complaints.pop(key)
            self._judge_another(key, complainer, complaint)

    def _on_abandon(self, sender: bytes, msg: wire.Abandon) -> None:
        seat = self.seat_of_node.get(sender)
        if seat is None:
            self._drop(sender, "malformed", "abandon")
            return
        try:
            reason = safe_text(wire.read_abandon(msg, self.keys[seat], self.table_id), 200,
                               placeholder="")
        except wire.WireError as exc:
            self._drop(sender, exc.reason, exc.detail)
            return
        self._stop(f"{self.seat_name(seat)} abandoned the match: {reason}", None,
                   "abandoned", seat=seat, text=reason)

    def _on_away(self, sender: bytes, msg: wire.Away) -> None:
        """A seat's player quit for now: said at once, and the table pauses as soon as it
        needs that seat (see :meth:`deadline`), not after the transport's silence and the
        step limit. Believed only when signed by the seat's key for this table and for
        the transport session its frames come in now (a replay after the player came
        back names an older session). Blames nobody: leaving is allowed."""
        seat = self.seat_of_node.get(sender)
        if seat is None:
            self._drop(sender, "unknown-sender", "away")
            return
        if sender != wire.node_id_for(self.keys[seat]):
            return       # a player a bot replaced, following along: the seat is the bot's
        if seat in self._away or self.finished or (self.stopped and not self.resumable):
            return       # said already (a repeat costs no signature check), or too late
        try:
            session, at = wire.read_away(msg, self.keys[seat], self.table_id)
        except wire.WireError as exc:
            self._drop(sender, exc.reason, exc.detail)
            return
        if self.session_of is not None and self.session_of(sender) != session:
            self._drop(sender, "stale-away", "another session's")
            return
        if at < (self.match.hand_no, self.verifier.next_seq(self.keys[seat])):
            # the seat has written past the place it said it left at: an old AWAY
            self._drop(sender, "stale-away", "the seat wrote since")
            return
        now = self.clock()
        self._away[seat] = now
        self._away_at[seat] = at
        self._gone_since.setdefault(seat, now)
        self._event("away", f"{self.seat_name(seat)} quit for now", seat=seat)

    def _is_next(self, env: Envelope) -> bool:
        hp = self.match.hand
        if self.match.done or env.hand != hp.hand_no or self.holding() is not None:
            return False
        if env.seq != self.verifier.next_seq(env.author):
            return False
        w = hp.expected_writer()
        return w is not None and self.keys[w] == env.author

    def _persist(self, env: Envelope) -> None:
        self._out.persist.append(env)

    def _secrets_differ(self, env: Envelope) -> bool:
        """An entry of this seat's that came back from the others (its stored copy was
        cut as damaged, or torn): do this computer's stored secrets for its hand match it?
        If not, stop here, naming nobody: the seat would sign shares, passes or a reveal
        its published entries contradict. A secrets record changed on this disk was
        checked on resume only against the entries still stored: with the transcript cut
        at its first entry, a shuffle seed edited (its checksum made again) had every peer
        name the honest player a cheat at the reveal (``reveal-commitment``), and a deck
        key edited had this seat call an unknown seat a cheat (hostile pass 25)."""
        from p2p.table.store import secret_mismatch

        wrong = secret_mismatch(env, self.secrets.get(env.hand), self.me, self.table_id)
        if wrong is None:
            return False
        self._catch_up_failed = True          # not a pause the others' agreements lift
        self._stop("this computer's stored secrets (secrets.log) do not match what this "
                   f"seat published ({wrong}); they exist nowhere else, so this seat cannot "
                   "go on at this table (nothing was sent; the others' time limit stops the "
                   "match, blaming nobody)", None, "secrets-lost", detail=wrong)
        return True

    def _apply(self, env: Envelope, persist: bool, sender: bytes | None,
               signed_here: bool = False) -> None:
        """Verify and apply the next entry of the log (it must be the expected one);
        ``signed_here``: this seat's own entry, just signed (see LogVerifier.accept)."""
        hand = self.match.hand_no
        started = self.clock()
        try:
            self.verifier.accept(env, signed_here=signed_here)
        except Equivocation as exc:
            if self._replay_mode:
                raise _LocalDamage("equivocation") from None
            self._equivocation(exc)
            return
        except LogError as exc:
            if self._replay_mode:
                raise _LocalDamage(exc.check) from None
            if exc.check in _SENDER_DROP_REASONS:
                self._drop(sender, exc.check, self._who(env))
            elif exc.check == "broken-link":
                # Never evidence by itself: the writer may have chained on a version of an
                # entry we never saw (someone equivocated to us). Fetch the hand from its
                # start; a second version of a slot then shows who signed two.
                self._drop(sender, "broken-link", self._who(env))
                # ... but it is signed (checked before the link): kept, so that another
                # version of its slot is judged as an equivocation by every peer alike,
                # whichever version it saw first or applied
                self._unchained[env.author] = env
                h = self.match.hand_no
                fetch = wire.encode_fetch(self.table_id, h, 0)
                self._out.messages.append((sender, fetch))
            else:
                seat = self.seat_of_key.get(env.author)
                self._stop(f"{self.seat_name(seat)} broke the log ({exc.check})", seat,
                           "broken-log", seat=seat, check=exc.check)
                self.error = ProtocolError(seat, exc.check, exc.detail)
            return
        if (env.author == self.identity.public_key and not signed_here
                and not self._replay_mode and self._secrets_differ(env)):
            return
        hp = self.match.hand
        before = hp.state
        acted = len(hp.actions)
        w = self.seat_of_key[env.author]
        try:
            self.match.receive(hand, w, env.body)
        except ProtocolError as exc:
            # the entry is signed and chained: it stays in the log (as in the reference
            # loop), so the transcript shows the auditor where the table stopped
            self.log[hand].append(env.encode())
            if persist:
                self._persist(env)
            self.error = exc
            self._out.evidence.append(env)
            # cheats that only this peer may see: a private share (its recipient checks
            # it) or a malformed body sent to this peer alone (equivocating with a valid one)
            if exc.seat == w and exc.seat != self.me and not self._replay_mode:
                if exc.check in ("share-proof", "malformed-body"):
                    self._complain(env, exc.check)
                else:
                    # any other bad entry is judged alike by every peer that gets it: it
                    # goes to them all, signed by its author. A peer that got another
                    # version of the slot (the bad one was for us alone) then holds two:
                    # without this it waited for us and named us silent. A peer that got
                    # this one stopped on it already (no transcript gains an entry).
                    self._out.messages.extend(
                        (None, p) for p in wire.encode_push([env.encode()]))
            self._stop(f"{self.seat_name(exc.seat)} broke the rules of the protocol "
                       f"({exc.check})", exc.seat, "protocol", seat=exc.seat, check=exc.check,
                       by=None)
            return
        raw = env.encode()
        idx = len(self.log[hand])
        self.log[hand].append(raw)
        self._slots[(hand, env.author, env.seq)] = idx
        if (not self._replay_mode and w != self.me and env.body.get("k") != "game.act"):
            # how long this seat's automatic step kept us waiting (from the entry before
            # it, here; our own check of it not counted)
            self._charge(w, hand, self._waited(started))
        if (hand, env.seq) >= self._away_at.get(w, (hand, env.seq)):
            # a seat that writes after its AWAY is not away (whatever it said); an entry
            # it wrote before leaving, arriving late, is no sign of it coming back
            self._forget_away(w)
        if self.unresponsive == w and self.resumable and not self._replay_mode:
            # the silent seat is back: its signed entry refutes the claims; go on
            slow = bool((self.stop_why or {}).get("slow"))
            self.stopped = None
            self.unresponsive = None
            self._event("back", f"{self.names[w]} is back: the match goes on", seat=w,
                        slow=slow)
        self._hashes[env.hash()] = (hand, idx)
        if persist:
            self._persist(env)
        now = self.clock()
        self._progress(now)
        self._stall = self.opts.stall_after
        self._look_back = 0
        self.next_fetch = now + self._stall
        self.entries_applied += 1
        if self.opts.record_times:
            self.applied_at[(hand, idx)] = now
        if env.body.get("k") == "game.act":
            if self.opts.record_times:
                self.move_index.add((hand, idx))
            after = hp.state
            try:
                action = hp.actions[-1]
            except IndexError:  # pragma: no cover - a game.act always records an action
                action = None
            self._event("action", f"{self.names[w]}: {action}", hand=hand, seat=w,
                        action=action, before=before, after=after, index=idx)
        elif len(hp.actions) > acted and isinstance(hp.actions[-1], Reshuffle):
            # R4b: the discard pile became the draw pile once its new shuffle was done,
            # with no move of anyone's: said like a move (the log never said it)
            self._event("action", "the discard pile is shuffled into a new draw pile",
                        hand=hand, seat=w, action=hp.actions[-1], before=before,
                        after=hp.state, index=idx)
        if self.match.hand is not hp or hp.done:
            if len(self.match.scores) > self._hands_reported:
                self._hands_reported = len(self.match.scores)
                sc = self.match.scores[-1]
                self._event("hand-end", f"hand {hand + 1} is over: scores "
                            f"{[s.total for s in sc]}", hand=hand, scores=sc,
                            final=hp.state, match=self.match.scored)
            if self.match.done:
                self.finished = True
                self._out.messages.append((None, wire.encode_done(self.table_id)))
                win = self.match.winner()
                self._event("match-end", "the match is over: "
                            + (f"side {win} wins" if win >= 0 else "no winner"), winner=win)
            else:
                self._check_hand()
        if self._pending_complaints or self._later_complaints:
            self._judge_pending_complaints()
        if self.agreements.votes and not self._replay_mode:
            for kind in (TAKEOVER, END):
                for s, b in self.agreements.votes.get((kind, hand), {}).items():
                    if s != self.me and point_of(b) == idx:
                        self._say_past(hand, s)      # we just passed the point it signed
        if self.agreements.votes and self.match.hand_no == hand and not hp.done:
            # a peer that lagged reaches the point an agreement names: it takes effect
            self._check_agreement(hand)

    def _equivocation(self, exc: Equivocation) -> None:
        if self.finished:
            # the match is over here and its transcript complete (verify: OK): a second
            # version arriving now changes nothing, and set as this peer's error it named
            # a seat that its own transcript, checked, does not (hostile pass 14's
            # takeover property, flaky in CI: the bot's late second version)
            self._drop(None, "late-equivocation", self._who(exc.second))
            return
        seat = self.seat_of_key.get(exc.first.author)
        self.error = ProtocolError(seat, "equivocation", exc.detail)
        self._out.evidence.extend((exc.first, exc.second))
        # a stop the proof replaces (the proof went unwritten after a leave record, and
        # ``verify`` of this peer's transcript said "Cy left, nobody is blamed" while the
        # peer named the cheat: hostile pass 14)
        if (not self.stopped or self._stop_gives_way()) and not self.finished:
            # both versions go to every peer and into the transcript: the proof is public
            self.write_side({"k": "side.complaint", "check": "equivocation",
                             "entry": exc.first.encode(), "other": exc.second.encode()})
        self._stop(f"{self.seat_name(seat)} signed two different entries for one slot "
                   "(equivocation)", seat, "equivocation", seat=seat)

    # ----- catching up -------------------------------------------------------------------
    def _on_fetch(self, sender: bytes, table: object, hand: object, index: object) -> None:
        if table != self.table_id:
            self._drop(sender, "foreign-table", "fetch")
            return
        if type(hand) is not int or type(index) is not int or hand < 0 or index < 0:
            self._drop(sender, "malformed", "bad fetch")
            return
        if sender not in self.seat_of_node:
            self._drop(sender, "unknown-sender", "fetch")
            return
        asking = self.seat_of_node[sender]
        if asking < len(self.keys) and sender == wire.node_id_for(self.keys[asking]):
            self._asked[asking] = (hand, index, self.clock())
        held = self.holding()
        if held is not None and hand == self.match.hand_no and index > self.position()[1]:
            # more entries of the hand than our point: a seat that voided the hand there
            # holds exactly as many, never more (a FETCH of a later hand says nothing)
            seat = self.seat_of_node[sender]
            if (sender == wire.node_id_for(self.keys[seat]) and self._past_point(seat, *held)
                    and seat not in (self.me, int(held[1]["seat"]))):
                # a remaining seat's own word that it stands past our point (see
                # _on_agreement: it says so on reading our record)
                self._release(held[0], f"{self.seat_name(seat)} went on past the point")
        now = self.clock()
        last = self._fetch_served.get(sender, -1e9)
        if now - last < self.opts.fetch_min_interval:
            # too soon after the last: the latest is set aside (one per peer) and answered
            # by tick (an honest peer asks at once for the rest of a long answer)
            self._fetch_deferred[sender] = (hand, index)
            self._count_quiet(sender, "fetch-rate")
            return
        self._fetch_served[sender] = now
        self._fetch_deferred.pop(sender, None)
        why = self._serve_fetch(sender, hand, index)
        if why:
            self._count_quiet(sender, why)

    def _count_quiet(self, sender: bytes, reason: str) -> None:
        """Count a FETCH not answered now (no log line, no event: a busy peer's)."""
        k = (self.label(sender), reason)
        self.drops[k] = self.drops.get(k, 0) + 1

    def _unacked(self, peer: bytes) -> int:
        if self.in_flight is None:
            return 0
        try:
            return int(self.in_flight(peer))
        except Exception:   # a peer the transport does not know: nothing can be queued
            return 0

    def _serve_fetch(self, sender: bytes, hand: int, index: int) -> str:
        """Answer ``sender``'s FETCH of what follows (hand, index) with ENTRIES, or set it
        aside (returns why: ``fetch-unacked``, ``fetch-budget``; "" when answered).

        Replies sit in the transport until acknowledged, and are sent again and again
        until they are: a peer asking for the whole log every 20 ms and never
        acknowledging made an honest one hold 4 MB more each second, up to 2 GB (hostile
        review 2; a byte rate, finding 7, bounded the pace, not the total). So a FETCH is
        answered only while fewer than ``fetch_max_unacked_bytes`` (a reply's most: one
        batch and one entry) wait for an acknowledgement to its sender: what this peer
        holds for it stays under two replies, whatever it asks. Bytes, not payloads: the
        live entries pushed to a peer behind the table count too, and at a table of bots
        (a push every few milliseconds) "fewer than two payloads" was seldom true, so a
        resumed player's catch-up starved while the table played on, and it stopped
        naming an honest seat unresponsive (CI, 2026-12-06). A FETCH set aside is
        answered by :meth:`tick` once its sender has acknowledged; an honest one
        acknowledges within a round trip. The byte rate still applies.

        Every FETCH answered gets ENTRIES, an empty one (``more`` False) included: it is
        how the asker learns that nothing follows (after a torn end of its own transcript,
        its catch-up ends on it; it waited for the step limit and stopped)."""
        now = self.clock()
        if self._unacked(sender) >= self.opts.fetch_max_unacked_bytes:
            self._fetch_deferred[sender] = (hand, index)
            return "fetch-unacked"
        budget, at = self._fetch_budget.get(sender, (float(self.opts.fetch_burst), now))
        budget = min(float(self.opts.fetch_burst),
                     budget + (now - at) * self.opts.fetch_bytes_per_s)
        if budget < wire.BATCH_BYTES:
            self._fetch_budget[sender] = (budget, now)
            self._fetch_deferred[sender] = (hand, index)
            return "fetch-budget"
        if (hand, index) > self.position() and not self.finished:
            self.send_fetch(sender)      # the asker is ahead of us: catch up from it
        out: list[bytes] = []
        size = 0
        # agreements first: a peer that missed them (it was away) needs them to read the
        # next hands (a bot's key) and to know a hand was voided
        for env in self.side:
            if env.body.get("k") in (TAKEOVER, END) and env.hand >= hand:
                out.append(env.encode())
                size += len(out[-1])
        more = False
        h, i = hand, index
        while h in self.log:
            entries = self.log[h]
            while i < len(entries):
                raw = entries[i]
                if out and size + len(raw) > wire.BATCH_BYTES:
                    more = True
                    break
                out.append(raw)
                size += len(raw)
                i += 1
            if more:
                break
            h, i = h + 1, 0
        self._fetch_budget[sender] = (budget - size, now)
        self._out.messages.append((sender, wire.encode_entries(out, more)))
        return ""

    def serve_deferred_fetches(self) -> None:
        """Answer the FETCHes set aside whose senders have acknowledged since, or that
        came too soon (called by :meth:`tick`, also once the match is over or stopped:
        others may still catch up). At most one per peer per ``fetch_min_interval``."""
        now = self.clock()
        for sender, (hand, index) in list(self._fetch_deferred.items()):
            if now - self._fetch_served.get(sender, -1e9) < self.opts.fetch_min_interval:
                continue
            del self._fetch_deferred[sender]
            self._fetch_served[sender] = now
            self._serve_fetch(sender, hand, index)    # set aside again if still unacked
