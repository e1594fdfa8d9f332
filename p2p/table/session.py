"""The networked peer: one seat of a table, driving the match protocol from real messages.

A :class:`Peer` owns one seat: its :class:`~p2p.identity.Identity`, the agreed
:class:`~p2p.table.TableConfig`, a transport node (:class:`p2p.transport.Node`, or
``p2p.testing.MemoryNode`` in unit tests), a seat controller (a bot's
``choose(view, legal)``, or nothing: then a UI drives the seat through
:meth:`Peer.needs_decision`, :meth:`Peer.view`, :meth:`Peer.legal`, :meth:`Peer.submit`)
and its :class:`~p2p.match.MatchProtocol`.

The game log of a hand is linear with exactly one writer at a time (``expected_writer``):

* when it is this seat's turn to write, the peer makes the body, persists the secrets it
  depends on, signs the entry, appends it to its own store, applies it, and only then
  pushes it to every peer;
* every received entry goes to the seat's :class:`~p2p.table.replicated_log.ReplicatedLog`
  (sans IO: intake, verification, evidence, ordering, catch-up), which hands back what to
  persist and what to send; ``Peer`` persists, then sends (:mod:`p2p.table.wire` is the
  codec of those messages);
* a peer that is stuck (no progress for ``stall_after``), or that hears that a peer
  restarted or that frames were lost, asks peers for the missing range (FETCH); any peer
  can serve it because every entry is signed by its author.

``Peer`` keeps the rest: the UI facade, the pump over the transport, the writing policy
(when this seat writes, and what) and the store.

Response windows (R9 coup fourré, R10a fast remedy) are ordinary ``game.act`` entries
from the responders in seat order. A bot's answer in such a window (and its extension
decision, R12) is sent ``response_delay`` seconds after the window reached it, whatever
it holds, so the timing of an answer says nothing about the hand (see docs/network.md,
"Sessions").
"""

from __future__ import annotations

import enum
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from engine import Action, HandState, IllegalAction
from engine.scoring import Match, SideScore
from engine.state import EXTEND, RESPOND
from p2p.crypto.identity import Identity, fingerprint, verify_signature
from p2p.net.interface import (
    PeerEvent,
    PeerEventKind,
    PeerStatus,
    Transport,
    TransportConfig,
    parse_endpoint,
)
from p2p.table import wire
from p2p.table.config import (
    AUTO_BUDGET_STEPS,
    AUTO_GRACE_SHARE,
    DEFAULT_RESPONSE_DELAY,
    DEFAULT_STEP_LIMIT,
    TableConfig,
)
from p2p.table.hand_protocol import ProtocolError
from p2p.table.match import MatchProtocol
from p2p.table.replicated_log import LogOptions, LogOutput, ReplicatedLog, SessionEvent
from p2p.table.wire import ABANDON, ENTRIES, FETCH, PUSH, node_id_for
from p2p.text import safe_text
from p2p.transcript.agreement import open_kinds
from p2p.transcript.envelope import MAX_ENVELOPE_BYTES, Envelope, LogVerifier
from p2p.transcript.file import is_side, open_own

__all__ = ["Peer", "PeerInfo", "RunState", "SessionEvent", "SessionOptions", "Transport", "node_id_for",
           "PUSH", "FETCH", "ENTRIES", "ABANDON"]

log = logging.getLogger("p2p.session")


class Chooser(Protocol):
    def choose(self, view: HandState, legal: list[Action]) -> Action: ...


@dataclass(frozen=True)
class SessionOptions:
    response_delay: float = DEFAULT_RESPONSE_DELAY  # a bot's answer in a window, this late
    stall_after: float = 0.5        # no progress for this long: ask peers for entries
    stall_max: float = 4.0          # backoff ceiling of those requests
    fetch_min_interval: float = 0.02  # serve at most one FETCH per peer per this long
    #: ... and only while fewer bytes than this to it are unacknowledged
    fetch_max_unacked_bytes: int = wire.BATCH_BYTES + MAX_ENVELOPE_BYTES
    fetch_bytes_per_s: int = 4 << 20  # ... and at most this many reply bytes per peer
    max_early: int = 4096           # entries buffered ahead of the log, per author
    max_early_bytes: int = 8 << 20  # ... and their bytes, per author
    recv_batch: int = 256           # messages handled per pump
    record_times: bool = False      # keep send/apply times per entry (benchmarks)
    #: the time limits are the table's (TableConfig.step_limit / decision_limit, in the
    #: header, agreed by all); these override them for this peer only (tests, tools)
    step_limit: float | None = None
    decision_limit: float | None = None
    #: the budget of a seat's automatic steps per hand and their grace each (seconds):
    #: the table's (derived from its step limit) unless set here
    auto_budget: float | None = None
    auto_grace: float | None = None
    sync_interval: float = 0.25     # others' entries are fsynced in groups, this often at most

    def log_options(self, cfg: TableConfig | None = None) -> LogOptions:
        """The log's options: the time limits from the table ``cfg`` unless overridden."""
        step = self.step_limit if self.step_limit is not None else \
            cfg.step_limit if cfg is not None else DEFAULT_STEP_LIMIT
        decision = self.decision_limit if self.decision_limit is not None else \
            cfg.decision_limit if cfg is not None else None
        budget = self.auto_budget if self.auto_budget is not None else \
            AUTO_BUDGET_STEPS * step
        grace = self.auto_grace if self.auto_grace is not None else \
            round(AUTO_GRACE_SHARE * step, 3)
        return LogOptions(stall_after=self.stall_after, stall_max=self.stall_max,
                          fetch_min_interval=self.fetch_min_interval,
                          fetch_bytes_per_s=self.fetch_bytes_per_s,
                          fetch_max_unacked_bytes=self.fetch_max_unacked_bytes,
                          max_early=self.max_early, max_early_bytes=self.max_early_bytes,
                          record_times=self.record_times, step_limit=step,
                          decision_limit=decision, auto_budget=budget, auto_grace=grace)


@dataclass(frozen=True)
class PeerInfo:
    seat: int
    name: str
    fingerprint: str
    status: str        # "you", "connecting", "connected", "slow", "gone"
    writing: bool      # the log waits for this seat


class TableStep(enum.Enum):
    """What the table's log waits for next, in words a console can use."""

    KEYS = "publishing hand keys"
    RANDOM_COMMIT = "committing to randomness"
    SHUFFLE_COMMIT = "committing to shuffles"
    SHUFFLE = "shuffling the deck"
    FIRST_PLAYER = "drawing the first player"
    DEAL = "dealing"
    SHARE = "a card share"
    MOVE = "a move"
    RESHUFFLE = "reshuffling"
    REVEAL = "revealing secrets"


_STEP_OF_KIND = {
    "deck.key": TableStep.KEYS, "game.rcommit": TableStep.RANDOM_COMMIT,
    "deck.commit": TableStep.SHUFFLE_COMMIT, "deck.pass": TableStep.SHUFFLE,
    "game.rreveal": TableStep.FIRST_PLAYER, "deck.reveal": TableStep.REVEAL,
    "deck.reshuffle": TableStep.RESHUFFLE,
    "game.act": TableStep.MOVE, "deck.share": TableStep.SHARE, "open": TableStep.SHARE,
}


@dataclass(frozen=True)
class RunState:
    """Where the match stands, from one look at the log (taken at each drain): why it
    stopped (None: it did not), that reason as an id and data, whether the stop is a
    pause (a silent seat: the others may still agree), and whether the match is over.

    Why one object: a reader on another thread (the test pump, a console) that read
    :attr:`Peer.stopped`, then :attr:`Peer.paused`, saw the old stop and the new
    "not paused" when an agreement (or the silent seat's late step) lifted the pause
    between its two reads: "stopped and not paused", over for good, while the match went
    on (the pump's thread ended there). One read of :attr:`Peer.state` cannot mix two
    instants."""

    stopped: str | None = None
    why: dict[str, Any] | None = None
    paused: bool = False
    finished: bool = False

    @property
    def over(self) -> bool:
        """Over for good: finished, or stopped and not a pause."""
        return self.finished or (self.stopped is not None and not self.paused)


@dataclass(frozen=True)
class Waiting:
    """The next entry of the log: which seat writes it and what step it is."""

    seat: int
    step: TableStep


class Peer:
    """One seat of a networked table (see the module doc)."""

    def __init__(self, identity: Identity, cfg: TableConfig, node: Transport, *,
                 controller: Chooser | None = None, store: Any = None,
                 endpoints: Mapping[int, str] | None = None,
                 alternatives: Mapping[int, Sequence[str]] | None = None,
                 options: SessionOptions | None = None,
                 replay: Sequence[Envelope] | None = None,
                 secrets: Mapping[int, Mapping[str, Any]] | None = None,
                 side: list[Envelope] | None = None, seat: int | None = None) -> None:
        """``side``: the stored side entries (agreements are replayed with the log);
        ``seat``: a bot taking over that seat by agreement (see ReplicatedLog);
        ``alternatives``: other addresses each seat signed itself (its lobby join), tried
        when the one in ``endpoints`` answers nothing."""
        keys = [p.key for p in cfg.players]
        if identity.public_key not in keys and seat is None:
            raise ValueError("this identity has no seat at the table")
        self.identity = identity
        self.cfg = cfg
        self.table_id = cfg.table_id
        self.header = cfg.header()
        self.names = tuple(p.name for p in cfg.players)
        self.node = node
        self.controller = controller
        self.store = store
        #: other addresses each seat signed itself (its lobby join), tried when the one in
        #: ``endpoints`` answers nothing (a bot this seat starts for another is given them)
        self.alternatives = {int(k): tuple(v) for k, v in (alternatives or {}).items()}
        self.opts = options or SessionOptions()
        self.rlog = ReplicatedLog(cfg, identity,
                                  seat_of_node={node_id_for(k): s for s, k in enumerate(keys)},
                                  clock=time.monotonic, options=self.opts.log_options(cfg),
                                  secrets=secrets, seat=seat,
                                  in_flight=getattr(node, "pending_bytes", None),
                                  session_of=getattr(node, "remote_session", None))
        self.me = self.rlog.me
        #: called with each agreed takeover this seat runs the bot for (the CLI starts it)
        self.on_takeover: Callable[[Any], None] | None = None
        self._lock = threading.RLock()
        # "the log moved": a console thread waits on it instead of polling the pump thread
        self._news = threading.Condition(threading.Lock())
        self._news_count = 0
        self._events: deque[SessionEvent] = deque(maxlen=10_000)
        self._respond_at: dict[tuple[int, int], float] = {}
        self._status: dict[int, str] = {}
        self.sent_at: dict[tuple[int, int], float] = {}
        self._state = RunState()
        self._synced_at = time.monotonic()
        self._sync_before_send = False      # an entry of ours that is not reproducible
        #: test hook for cheat tests: rewrites this seat's body before it is signed
        self.tamper: Callable[[int, dict[str, Any]], dict[str, Any]] | None = None
        if replay or side:
            # (the stored log as it was read: one entry decoded at a time, see StoredLog)
            self.rlog.replay(replay if replay is not None else [], side)
            self._drain()
        prove = getattr(node, "prove_endpoint", None)
        if callable(prove):
            # plain ZeroMQ: our HELLO carries our signature of where we listen, so the
            # others follow this seat to a new address (resumed after a DHCP or VPN change);
            # they follow a seat only on its own signature (under CURVE: its bound key)
            prove(identity.sign, _signed_by_node)
        for s, ep in (endpoints or {}).items():
            if node_id_for(cfg.players[s].key) == node.node_id:
                continue          # this player's own seat (a player a bot replaced, too)
            # the player of every seat is reached at its stored address: a seat a bot took
            # over is played at the address the agreement says (see _on_takeover), and its
            # player, back, follows the table from there, the bot's entries too (a resumed
            # runner, and the bot, dropped his frames as an unknown peer's: he waited in the
            # voided hand for ever)
            node.add_peer(node_id_for(cfg.players[s].key), ep)
            also = getattr(node, "also_reach", None)
            if self.alternatives.get(s) and callable(also) \
                    and getattr(node, "curve_key", None) is not None:
                # where the seat's player said (signed) it listens, tried when the address
                # the host gave answers nothing: a host giving dead addresses had two
                # joiners name each other unresponsive (hostile pass 23). Under CURVE
                # only: a frame names no receiver, and on plain ZeroMQ a connection that
                # reached another player's node would mix our frames into his stream
                # from us (the review); the wrong node's key fails the handshake instead
                also(node_id_for(cfg.players[s].key), list(self.alternatives[s]))

    def reach(self, key: bytes, endpoint: str) -> int:
        """Reach the seat that signs with ``key`` at ``endpoint`` from now on (its player
        is at another address than the one this seat stored: ``resume --peer``), and ask
        it for what this seat missed. Returns the seat; ValueError when no seat of the
        table signs with ``key``, or it is this seat's own, or ``endpoint`` is no address."""
        endpoint = parse_endpoint(endpoint)
        keys = self.keys
        if key not in keys:
            raise ValueError("no player of this table has that key")
        seat = keys.index(key)
        if seat == self.me:
            raise ValueError("that is this seat's own key")
        self.node.add_peer(node_id_for(key), endpoint)
        self._remember_endpoint(seat, endpoint)
        self.fetch()
        return seat

    def _remember_endpoint(self, seat: int, endpoint: str) -> None:
        """Store where ``seat`` listens now (``reach``, or it proved a move): the next
        resume of this seat looks for it there first, not at the address it left."""
        if self.store is None or not endpoint:
            return
        eps = {int(k): str(v) for k, v in self.store.meta.get("endpoints", {}).items()}
        if eps.get(seat) == endpoint:
            return
        eps[seat] = endpoint
        try:
            self.store.set_endpoints(eps)
        except OSError as exc:     # the game goes on; only the next resume looks elsewhere
            log.warning("seat %d: cannot store %s's new address: %s", self.me,
                        self.names[seat], exc)

    def _reach_unlisted(self, seat: int, ev: PeerEvent) -> None:
        """A seat this peer holds no address for (its ``table.msgpack`` lost it: another
        program edited it) says hello: reach it where it proves it listens, and remember
        that for the next resume. Before, its frames were dropped as an unknown peer's,
        and each side named the other, honest, unresponsive (hostile pass 26). Proven: under
        CURVE the connection holds the seat's transport key from the table header; on plain
        ZeroMQ the HELLO carries the seat's signature of that address, this session."""
        if seat == self.me or not ev.endpoint or ev.peer_id in self.node.peers():
            return
        if self.cfg.curve:
            proven = ev.curve_key is not None and ev.curve_key == self.cfg.curve[seat][0]
        else:
            proven = ev.signed_endpoint
        if not proven:
            return
        try:
            self.node.add_peer(ev.peer_id, ev.endpoint)
        except Exception as exc:   # a bound reached (max_peers), or refused: as before
            log.warning("seat %d: cannot reach %s at %s: %s", self.me, self.names[seat],
                        ev.endpoint, exc)
            return
        log.warning("seat %d: this computer's copy of the game held no address for seat %d "
                    "(%s); %s reached this seat from %s", self.me, seat, "table.msgpack",
                    self.names[seat], ev.endpoint)
        self._remember_endpoint(seat, ev.endpoint)
        self.rlog.send_fetch(ev.peer_id)

    # ===================================================================== the log's state
    @property
    def keys(self) -> tuple[bytes, ...]:
        """The seats' signing keys in the hand in play (a takeover replaces one)."""
        return self.rlog.keys

    @property
    def seat_of_node(self) -> dict[bytes, int]:
        return self.rlog.seat_of_node

    @property
    def paused(self) -> bool:
        """Stopped because a seat fell silent (no cheat): the others may still agree to a
        bot for it or to end the match (:meth:`agree_bot`, :meth:`agree_end`). Set with
        :attr:`stopped`, from one look at the log: read live beside it, "stopped and not
        paused" (over for good) held for the instant between an agreement lifting the
        pause and the drain that says so (a bot started meanwhile): the test pump's
        thread for the runner ended there, and the table waited on it for ever. Two reads
        still see two instants: a reader that needs both reads :attr:`state` once."""
        return self._state.paused

    @property
    def state(self) -> RunState:
        """:attr:`stopped`, :attr:`stop_why`, :attr:`paused` and :attr:`finished` from one
        look at the log (see :class:`RunState`): what a thread other than the pump's reads
        to decide whether the match is over for good (``state.over``)."""
        return self._state

    # ----- agreements --------------------------------------------------------------------
    def silent_seat(self) -> int | None:
        """The seat the table waits for in vain: unresponsive (its step passed the time
        limit), or gone on the transport while the log waits for it (None: nobody)."""
        with self._lock:
            if self.rlog.unresponsive is not None:
                return self.rlog.unresponsive
            if self.rlog.done:
                return None
            w = self.match.hand.expected_writer()
            if w is not None and w != self.me and self._peer_state(w) == "gone":
                return w
            return None

    def bot_runner(self, seat: int) -> int:
        """The seat that would run a bot for ``seat`` (the lowest other seat)."""
        from p2p.transcript.agreement import runner_for
        return runner_for(seat, self.cfg.n)

    def offer_bot(self, key: bytes, endpoint: str,
                  curve: tuple[bytes, bytes] | None = None) -> None:
        """As the runner: the bot this seat would run (its new key, where it listens).
        ValueError when ``endpoint`` is not an IP address and port every peer may connect
        to (the others would refuse the takeover record that carries it)."""
        parse_endpoint(endpoint, literal_only=True)
        with self._lock:
            self.rlog.bot_offer = (key, endpoint, curve)

    def agree_bot(self, seat: int) -> bool:
        """Sign "from the next hand a bot plays ``seat``" (False: not possible now)."""
        with self._lock:
            ok = self.rlog.propose_takeover(seat) is not None
        self._drain()
        return ok

    def agree_end(self, seat: int) -> bool:
        """Sign "the match ends here after ``seat`` left" (False: not possible now)."""
        with self._lock:
            ok = self.rlog.propose_end(seat) is not None
        self._drain()
        return ok

    @property
    def agreement_refused(self) -> str | None:
        """Why this seat's last :meth:`agree_bot` or :meth:`agree_end` signed nothing
        (``ReplicatedLog.refused``: over, chosen, not-due, ahead, no-bot)."""
        return self.rlog.refused

    def agreement(self) -> dict[str, dict[int, dict[str, Any]]]:
        """Who signed what in the hand in play: ``{"side.takeover": {seat: body}, ...}``."""
        with self._lock:
            return self.rlog.proposals()

    def agreements_open(self) -> frozenset[str] | None:
        """Which agreements about the silent seat (``side.takeover``, ``side.end``) may
        still hold where this peer stands (:func:`p2p.transcript.agreement.open_kinds`);
        None when no seat is silent. One look under the lock: the silent seat taken in
        one and the hand's point and records in another could belong to two states of
        the table (a pause lifted, a hand dealt between them)."""
        with self._lock:
            seat = self.silent_seat()
            if seat is None:
                return None
            point = len(self.rlog.log.get(self.rlog.match.hand_no, []))
            return open_kinds(self.rlog.proposals(), seat, point)

    @property
    def agreed_end(self) -> Any:
        return self.rlog.agreed_end

    @property
    def takeovers(self) -> list[Any]:
        return list(self.rlog.takeovers)

    @property
    def match(self) -> MatchProtocol:
        return self.rlog.match

    @property
    def log(self) -> dict[int, list[bytes]]:
        return self.rlog.log

    @property
    def verifier(self) -> LogVerifier:
        return self.rlog.verifier

    @property
    def error(self) -> ProtocolError | None:
        return self.rlog.error

    @property
    def stopped(self) -> str | None:
        """Why the match stopped (None: it did not). Set once the events that led there are
        in :meth:`drain_events`, so a UI that sees it has the whole story."""
        return self._state.stopped

    @property
    def finished(self) -> bool:
        """The match is over (set, like :attr:`stopped`, after its events)."""
        return self._state.finished

    @property
    def drops(self) -> dict[tuple[str, str], int]:
        return self.rlog.drops

    @property
    def drop_log(self) -> deque[tuple[str, str, str]]:
        return self.rlog.drop_log

    @property
    def entries_applied(self) -> int:
        return self.rlog.entries_applied

    @property
    def applied_at(self) -> dict[tuple[int, int], float]:
        return self.rlog.applied_at

    @property
    def move_index(self) -> set[tuple[int, int]]:
        return self.rlog.move_index

    @property
    def local_damage(self) -> str | None:
        """What was found damaged in this computer's own copy of the game on resume, in
        words (None: nothing). Never an accusation: the rest is fetched from the peers."""
        return self.rlog.local_damage

    # ===================================================================== UI interface
    @property
    def hand_no(self) -> int:
        return self.match.hand_no

    def view(self) -> HandState | None:
        """This seat's view of the hand in play (None before the deal completes)."""
        with self._lock:
            return self.match.hand.state

    def needs_decision(self) -> bool:
        """Does the table wait for a move from this seat's (human) controller? Never for a
        player whose seat a bot took over: they watch."""
        with self._lock:
            return (self.controller is None and not self.rlog.finished and not self.rlog.stopped
                    and self.rlog.can_write
                    and not self.rlog.catching_up and self.match.hand.needs_decision())

    def legal(self) -> list[Action]:
        with self._lock:
            if (not self.match.hand.needs_decision() or self.rlog.stopped
                    or not self.rlog.can_write
                    or self.rlog.finished or self.rlog.catching_up):
                return []
            return self.match.hand.legal()

    def submit(self, action: Action) -> None:
        """Play this seat's move; raises :class:`engine.IllegalAction` if it is refused."""
        with self._lock:
            if not self.match.hand.needs_decision() or self.rlog.stopped:
                raise IllegalAction("R0", "it is not your move", action)
            if self.rlog.catching_up:
                # after local damage our last move may be among the entries being fetched
                # again: a different one for the same slot would be equivocation
                raise IllegalAction("R0", "this computer is still getting back the moves its "
                                    "damaged copy lost from the other players; wait", action)
            if action not in self.match.hand.legal():
                raise IllegalAction("R0", "that move is not legal now", action)
            self._write(self.match.hand.act_body(action))
            self._write_while_my_turn()
        self._drain()

    def waiting_for(self) -> int | None:
        """The seat the log waits for (None when the match is over or stopped)."""
        with self._lock:
            if self.rlog.finished or self.rlog.stopped:
                return None
            return self.match.hand.expected_writer()

    def waiting_on(self) -> Waiting | None:
        """The seat the log waits for and the step it is at (None: over or stopped)."""
        with self._lock:
            if self.rlog.finished or self.rlog.stopped:
                return None
            hp = self.match.hand
            e = hp.expected()
            if e is None:
                return None
            step = _STEP_OF_KIND.get(e.kind, TableStep.MOVE)
            if step is TableStep.SHARE and hp.state is None:
                step = TableStep.DEAL
            return Waiting(e.seat, step)

    def time_left(self) -> tuple[int, float] | None:
        """(seat, seconds) before the step the table waits for passes its time limit (a
        console's countdown); None when the step is untimed or the match is over. When it
        runs out the table stops with that seat *unresponsive* (see :attr:`unresponsive`)."""
        with self._lock:
            due = self.rlog.deadline()
            if due is None:
                return None
            return due[0], max(0.0, due[1] - time.monotonic())

    def log_so_far(self) -> tuple[list[Envelope], list[Envelope]]:
        """Every game entry applied so far (hand by hand, in log order) and the side
        entries (claims, agreements): what a bot started for a seat this peer runs replays
        to catch up, without the console reading the log's insides."""
        with self._lock:
            chain = [Envelope.decode(raw) for h in sorted(self.rlog.log)
                     for raw in self.rlog.log[h]]
            return chain, list(self.rlog.side)

    @property
    def stop_why(self) -> dict[str, Any] | None:
        """Why the match stopped as a reason id and data (for a console to put in its own
        words; :attr:`stopped` is the same in English). Taken with :attr:`stopped`, from
        the same look at the log: read live beside it, a console's line put the words of
        one stop (or of none) under the reason of another."""
        return self._state.why

    @property
    def unresponsive(self) -> int | None:
        """The seat whose step passed its time limit (the table stopped; not a blame)."""
        return self.rlog.unresponsive

    def wait_limit(self) -> float | None:
        """How long in all the table waits for the step it waits for now before it
        pauses (seconds; None: untimed, or nothing awaited): the step limit, or less for
        a seat near or past its budget of automatic steps."""
        with self._lock:
            due = self.rlog.deadline()
            if due is None:
                return None
            return max(0.0, due[1] - self.rlog.last_progress)

    def auto_time(self, seat: int) -> tuple[float, float | None]:
        """(seconds, budget): how long ``seat``'s automatic steps kept this peer waiting in
        the hand in play beyond their grace, the step awaited now included, and the
        budget past which the seat is treated as silent at each of them (None: none)."""
        with self._lock:
            return self.rlog.auto_time(seat)

    def quit_for_now(self, seat: int) -> bool:
        """Whether ``seat``'s player said they quit (a signed AWAY) and has not answered
        since: the console says that, not "has gone silent"."""
        with self._lock:
            return self.rlog.quit_for_now(seat)

    def progress(self) -> tuple[int, int]:
        """(hand number, entries applied in it): changes whenever the table moves on."""
        with self._lock:
            return self.hand_no, len(self.log.get(self.hand_no, []))

    def match_so_far(self) -> Match:
        """The match as scored so far (hands played, totals, first seat)."""
        with self._lock:
            m = self.match.scored
            if m is not None:
                return m
            first = self.match.hand.first_seat
            return Match(self.cfg.rules, self.cfg.seating, first if first is not None else 0)

    @property
    def transcript_path(self) -> Path | None:
        """Where this peer keeps the game's transcript (None: not stored)."""
        path = getattr(self.store, "transcript_path", None)
        return Path(path) if path is not None else None

    def waiting_text(self) -> str:
        w = self.waiting_for()
        if w is None:
            return ""
        if w == self.me:
            return "your move" if self.needs_decision() else ""
        st = self._peer_state(w)
        return f"waiting for {self.names[w]}" + ("" if st == "connected" else f" ({st})")

    def peers(self) -> list[PeerInfo]:
        w = self.waiting_for()
        return [PeerInfo(s, self.names[s], fingerprint(self.keys[s]),
                         "you" if s == self.me else self._peer_state(s), w == s)
                for s in range(self.cfg.n)]

    @property
    def step_limit(self) -> float:
        """The limit this peer keeps on each protocol step (seconds): the table's, unless
        the session's options set another."""
        return float(self.rlog.opts.step_limit)

    def silence_limit(self) -> float:
        """At most how long the table waits, once it needs a seat, for a seat whose
        computer stopped answering: the transport calls it gone after ``gone_after``, and
        then even an untimed move is timed by the step limit (see
        :meth:`ReplicatedLog.deadline`); past it the table pauses."""
        config = getattr(self.node, "config", None) or TransportConfig()
        return float(config.gone_after) + self.step_limit

    def peer_state(self, seat: int) -> str:
        """The transport's view of a seat: connecting, connected, slow or gone."""
        return self._peer_state(seat)

    def _peer_state(self, seat: int) -> str:
        try:
            return self.node.peer_status(node_id_for(self.keys[seat])).value
        except Exception:
            return "unknown"

    @property
    def scores(self) -> list[tuple[SideScore, ...]]:
        return self.match.scores

    def winner(self) -> int:
        return self.match.winner()

    def wait_for_news(self, seen: int, timeout: float) -> int:
        """Block until something happened past ``seen`` (a count an earlier call
        returned; 0 at first) or ``timeout`` seconds passed; returns the count now.

        Why: a console whose peer is pumped by another thread learns of the other seats'
        moves at once, instead of a sleep-and-poll that adds its period to every turn."""
        with self._news:
            if self._news_count == seen:
                self._news.wait(timeout)
            return self._news_count

    def _tell_news(self) -> None:
        with self._news:
            self._news_count += 1
            self._news.notify_all()

    def drain_events(self) -> list[SessionEvent]:
        with self._lock:
            out = list(self._events)
            self._events.clear()
            return out

    def abandon(self, reason: str = "abandoned", tell: bool = True) -> None:
        """Declare the match over for good (e.g. a peer is gone): the log is kept. With
        ``tell`` the other peers get a signed ABANDON and stop too."""
        with self._lock:
            if self.rlog.stopped or self.rlog.finished:
                return
            if tell:
                # the leave record: in every transcript, so verify blames nobody for it
                self.rlog.write_side({"k": "side.abandon", "reason": reason[:200]})
            self.rlog.stop(reason, None)
        self._drain()
        if tell:
            self._broadcast(wire.encode_abandon(self.identity, self.table_id, reason))
            self.node.flush(1.0)

    def leave_for_now(self, flush: float = 0.5) -> bool:
        """This seat's player quits a match that is not over (a pause, not an end:
        ``resume`` brings the seat back). The others get a signed AWAY, so they say so at
        once and pause when they need this seat, instead of waiting for the transport to
        give it up and then for the step limit. Returns whether it was sent (not once the
        match is over or stopped for good, nor by a player a bot replaced)."""
        with self._lock:
            if self.rlog.finished or (self.rlog.stopped and not self.rlog.resumable):
                return False
            if self.identity.public_key not in self.keys:
                return False
            # where this seat leaves the log: its entries so far all come before it
            at = (self.rlog.match.hand_no,
                  self.rlog.verifier.next_seq(self.identity.public_key))
            payload = wire.encode_away(self.identity, self.table_id,
                                       getattr(self.node, "session", b""), at)
        self._broadcast(payload)
        if flush > 0:
            self.node.flush(flush)
        return True

    # ===================================================================== running
    def pump(self, timeout: float = 0.05) -> bool:
        """Handle what arrived (waiting up to ``timeout``), write if it is our turn.
        Returns False once the match is over or stopped."""
        self._step()
        st = self._state      # one look (the console's thread may lift a pause meanwhile)
        paused = st.paused
        if st.over:
            return False
        # paused on a silent seat: still listen (the others' agreements), without a deadline
        wait = timeout if paused else \
            max(0.0, min(timeout, self._next_deadline() - time.monotonic()))
        msg = self.node.recv(wait)
        n = 0
        while msg is not None:
            self._on_payload(msg[0], msg[1])
            n += 1
            if n >= self.opts.recv_batch:
                break
            msg = self.node.recv(0)
        self._step()
        st = self._state
        return not (st.finished or st.stopped)

    def run(self, timeout: float | None = None, pause_wait: float = 0.0,
            until: threading.Event | None = None) -> bool:
        """Pump until the match is over or stopped (or ``timeout``, or ``until`` is set);
        True if finished. ``pause_wait``: on a table paused on a silent seat, go on this
        long (a bot's seat signs what the others agree on: a bot for the silent seat, or
        the end)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        paused_since: float | None = None
        while True:
            self.pump(0.05)
            # one look: "pump() or paused" read two instants, and a pause lifted between
            # them (the others' agreement, taken on a console's thread) ended the loop
            st = self.state
            if st.over:
                break
            now = time.monotonic()
            if (deadline is not None and now > deadline) or (until is not None and until.is_set()):
                return False
            if st.paused:
                # a bot's seat waits a bounded time for the others to agree (a bot for the
                # silent seat, or the end), signing what they propose
                paused_since = now if paused_since is None else paused_since
                if now - paused_since > pause_wait:
                    return False
            else:
                paused_since = None
        return self.rlog.finished

    def linger(self, seconds: float = 1.0) -> None:
        """After the end: keep serving late FETCH requests while our frames drain, for
        ``seconds`` at most — less once every other seat said it holds the whole match
        (it sends DONE when its match is over): then nobody can need us any more."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            with self._lock:
                if self.rlog.everyone_done():
                    return
            msg = self.node.recv(min(0.05, max(0.0, end - time.monotonic())))
            if msg is not None:
                self._on_payload(msg[0], msg[1])
            with self._lock:
                self._handle_node_events()
                # a FETCH set aside (too soon, or its sender had not acknowledged) is
                # answered here too: after the end nothing else ticks the log
                self.rlog.tick()
            self._drain()

    def close(self, flush: float = 2.0) -> None:
        with self._lock:
            if self.rlog.everyone_done():  # our last frames matter little: wait less
                flush = min(flush, 0.2)
        if flush > 0:
            self.node.flush(flush)
        self.node.close()
        if self.store is not None:
            self.store.close()

    def fetch(self) -> None:
        """Ask every peer for what follows our log (after a restart, or when stuck)."""
        with self._lock:
            self.rlog.fetch_all()
        self._drain()

    # ===================================================================== internals
    def _next_deadline(self) -> float:
        t = self.rlog.next_fetch
        limit = self.rlog.deadline()
        if limit is not None:
            t = min(t, limit[1])
        if self.store is not None and self.store.unsynced:
            t = min(t, self._synced_at + self.opts.sync_interval)
        for due in self._respond_at.values():
            t = min(t, due)
        return t

    def _step(self) -> None:
        with self._lock:
            self._handle_node_events()
            self.rlog.apply_ready()
            self._follow_agreements()
            try:
                self._write_while_my_turn()
            except (OSError, ValueError) as exc:
                # our own step cannot be made (a full disk, secrets this computer lost, a
                # bot that failed): stop here in words, never a dead thread and a traceback;
                # nothing was signed, so the others see a silent seat, and resume goes on
                log.error("seat %d: cannot write its own step", self.me, exc_info=True)
                why = safe_text(str(exc), 300)
                self.rlog.stop(f"this computer could not write its own step ({why}); the "
                               "game is saved: millebornes resume continues it", None,
                               "own-step-failed", error=why)
            self.rlog.tick()
        self._drain()
        self._sync_if_due()

    def _on_payload(self, sender: bytes, payload: bytes) -> None:
        with self._lock:
            self.rlog.on_message(sender, payload)
        self._drain()

    def _drain(self) -> None:
        """Carry out what the log asked for: persist first, then send (so nothing of ours
        is published before it is on disk), then keep the events for the UI."""
        with self._lock:
            out = self.rlog.take_output()
            if not out:
                # nothing to tell: the look is taken all the same (``pump`` answers from
                # it), a change of the log's state with no event never goes unseen
                self._state = self._look()
                return
            try:
                self._persist(out)
                if out.messages and any(e.author == self.identity.public_key
                                        and not is_side(e.body) for e in out.persist):
                    # sent only now: the next seat's wait starts here (a slow fsync of
                    # ours is not its time)
                    self.rlog.sending_own()
            except OSError as exc:
                # not on disk, so not sent either (an entry of ours published and then lost
                # would look like equivocation after a restart): stop here, in words
                log.error("seat %d: cannot save the game", self.me, exc_info=True)
                why = safe_text(str(exc), 300)
                self.rlog.stop(f"this computer could not save the game ({why}); free some "
                               "space or fix the folder, then millebornes resume", None,
                               "save-failed", error=why)
                out.events.extend(self.rlog.take_output().events)
                out.messages.clear()
            self._events.extend(out.events)
            for ev in out.events:
                if ev.kind == "takeover":
                    self._on_takeover(ev)
            # one object, assigned at once: a reader never sees half of this look
            self._state = self._look()
            if self._state.stopped or self._state.finished:
                self._respond_at.clear()
        for peer, payload in out.messages:
            if peer is None:
                self._broadcast(payload)
            else:
                self._send(peer, payload)
        self._tell_news()

    def _look(self) -> RunState:
        """Where the log stands now (under the lock): see :class:`RunState`."""
        return RunState(self.rlog.stopped, self.rlog.stop_why, self.rlog.resumable,
                        self.rlog.finished)

    def _persist(self, out: LogOutput) -> None:
        """Group commit: every entry goes to the OS at once (a kill -9 loses nothing), but
        one fsync covers a batch. A batch holding a move of ours that was a choice, or a
        side record of ours, is fsynced before ``_drain`` sends it; our reproducible
        entries (``HandProtocol.reproducible``: made again byte for byte after a power cut)
        and others' entries wait at most ``sync_interval`` (what a power cut loses is made
        again or fetched again)."""
        if self.store is None:
            return
        if out.rewrite is not None:
            self.store.rewrite(out.rewrite)
        mine = self.identity.public_key
        own = self._sync_before_send
        for env in out.persist:
            self.store.append(env, sync=False)
            own = own or (env.author == mine and is_side(env.body))
        if own or self.rlog.done:
            self._sync_store()
        self._sync_before_send = False
        if out.evidence:
            self._keep_evidence(out.evidence)

    def _on_takeover(self, ev: SessionEvent) -> None:
        """An agreed takeover: reach the bot's node (its transport key admitted at a CURVE
        table); the runner starts the bot (``on_takeover``)."""
        key, endpoint, curve = ev.data["key"], ev.data["endpoint"], ev.data["curve"]
        nid = node_id_for(key)
        if nid != self.node.node_id:
            try:
                if curve is not None:
                    self.node.expect_key(nid, curve[0])
                if endpoint:
                    self.node.add_peer(nid, endpoint)
            except Exception as exc:   # a bad endpoint: that seat is silent again
                log.warning("seat %d: cannot reach the bot at %r: %s", self.me, endpoint, exc)
        if ev.data["runner"] == self.me and self.on_takeover is not None:
            try:
                self.on_takeover(ev.data)
            except Exception as exc:  # pragma: no cover - the bot's seat waits, timed
                log.warning("seat %d: the bot did not start: %s", self.me, exc)

    def _sync_store(self) -> None:
        if self.store is not None and self.store.unsynced:
            self.store.sync()
        self._synced_at = time.monotonic()

    def _sync_if_due(self) -> None:
        if (self.store is not None and self.store.unsynced
                and time.monotonic() >= self._synced_at + self.opts.sync_interval):
            with self._lock:
                self._sync_store()

    def _keep_evidence(self, envs: list[Envelope]) -> None:
        try:
            # a file of the game's own, as its transcript: a named pipe left in its place
            # held this thread for ever (waiting for a reader), a link was appended
            # through (hostile pass 22)
            with open_own(self.store.path / "evidence.bin") as f:
                for e in envs:
                    f.write(e.encode())
        except OSError as exc:  # evidence is best effort (the transcript has the verdict)
            log.warning("could not keep evidence: %s", exc)

    def _event(self, kind: str, text: str, **data: Any) -> None:
        self._events.append(SessionEvent(kind, text, data))

    # ----- writing ---------------------------------------------------------------------
    def _follow_agreements(self) -> None:
        """A bot's seat goes with its table: it signs the same record as a proposal of
        the hand in play, once it saw the named seat go silent itself (a bot of the
        runner's is never the runner: see cli.seats)."""
        if self.controller is None or self.rlog.finished:
            return
        for kind, votes in self.rlog.proposals().items():
            if self.me in votes or not votes:
                continue
            # every record of the hand is read, not the first alone: the silent seat
            # itself, before it fell silent, could sign one naming another seat (valid:
            # it is not about itself), and a bot's seat that read only that one never
            # co-signed the others' records about it (hostile pass 9): no bot, no end
            for body in votes.values():
                silent = int(body["seat"])
                if not self.rlog.saw_silent(silent):
                    continue     # only what this seat saw itself: never another's word alone
                at = body.get("at")
                if at is not None and at != self.rlog.position()[1]:
                    # signed at another point of the hand: behind it, this seat signs once
                    # it gets there; past it, it never does (and has said so, see
                    # ReplicatedLog)
                    continue
                if kind == "side.takeover":
                    signed = self.rlog.propose_takeover(silent)
                else:
                    signed = self.rlog.propose_end(silent)
                if signed is not None:
                    break        # one record of a kind per seat and hand

    def _write_while_my_turn(self) -> None:
        if self.rlog.catching_up or not self.rlog.can_write:
            return      # after local damage: our lost entries come back from a peer first
        while not self.rlog.stopped and not self.rlog.finished:
            hp = self.match.hand
            if hp.expected_writer() != self.me:
                return
            if hp.needs_decision():
                if self.controller is None:
                    return       # a human decides: submit() writes
                assert hp.state is not None
                if hp.state.phase in (RESPOND, EXTEND) and self.opts.response_delay > 0:
                    key = (hp.hand_no, len(self.log[hp.hand_no]))
                    due = self._respond_at.setdefault(
                        key, time.monotonic() + self.opts.response_delay)
                    if time.monotonic() < due:
                        return
                    self._respond_at.pop(key, None)
                body = hp.act_body(self.controller.choose(hp.state, hp.legal()))
                # a pure controller (its move a function of the view alone, e.g. the
                # heuristic bot) makes the same move again after a restart
                self._write(body, reproducible=bool(getattr(self.controller, "pure", False)))
            else:
                self._write(hp.auto_body())

    def _write(self, body: dict[str, Any], reproducible: bool = False) -> None:
        hp = self.match.hand
        hand = hp.hand_no
        if self.tamper is not None:
            body = self.tamper(hand, body)
        secrets = hp.export_secrets()
        self.rlog.secrets[hand] = secrets
        if self.store is not None:
            self.store.save_secrets(hand, secrets)
        idx = len(self.log[hand])
        # an entry this peer could not make again identically is on disk before it is sent
        # (it would otherwise equivocate after a power cut); a reproducible one goes with
        # the next group commit (``_persist``)
        self._sync_before_send |= not (reproducible or hp.reproducible(body))
        self.rlog.write(body)
        if self.opts.record_times:
            self.sent_at[(hand, idx)] = time.monotonic()

    def _broadcast(self, payload: bytes) -> None:
        try:
            self.node.broadcast(payload)
        except Exception as exc:  # closed node, etc.: peers will fetch it
            log.warning("seat %d: broadcast failed: %s", self.me, exc)

    def _send(self, peer: bytes, payload: bytes) -> None:
        try:
            self.node.send(peer, payload)
        except Exception as exc:
            log.debug("send to %s failed: %s", peer.hex()[:16], exc)

    def _handle_node_events(self) -> None:
        try:
            evs = self.node.events()
        except Exception:
            return
        for ev in evs:
            seat = self.seat_of_node.get(ev.peer_id)
            if seat is None:
                continue
            if ev.peer_id != node_id_for(self.rlog.keys[seat]):
                # a player a bot replaced, following along: we may still serve them (a
                # fetch), but their comings and goings are no word on the bot's seat
                if ev.kind in (PeerEventKind.RESTARTED, PeerEventKind.GAP):
                    self.rlog.send_fetch(ev.peer_id)
                continue
            if ev.kind is PeerEventKind.HELLO:
                self._reach_unlisted(seat, ev)
            elif ev.kind in (PeerEventKind.RESTARTED, PeerEventKind.GAP):
                # it may have lost what we sent, or we lost what it sent: compare logs
                self.rlog.send_fetch(ev.peer_id)
                if ev.kind is PeerEventKind.RESTARTED:
                    # a new session: whoever said they quit is back (the transport may
                    # never have called them gone)
                    self.rlog.seat_reachable(seat, True)
                    self._event("status", f"{self.names[seat]} restarted", seat=seat,
                                status="restarted")
            elif ev.kind is PeerEventKind.MOVED:
                # the seat proved it listens elsewhere now (the transport re-pointed our
                # connection): ask it for what we may have missed while we sent elsewhere
                log.info("seat %d: %s now listens at %s", self.me, self.names[seat],
                         ev.endpoint)
                self._event("status", f"{self.names[seat]} is now at {ev.endpoint}",
                            seat=seat, status="moved", endpoint=ev.endpoint)
                self.rlog.send_fetch(ev.peer_id)
                if ev.endpoint:
                    self._remember_endpoint(seat, ev.endpoint)
            elif ev.kind is PeerEventKind.STATUS and ev.status is not None:
                self._status[seat] = ev.status.value
                self.rlog.seat_reachable(seat, ev.status is not PeerStatus.GONE,
                                         heard=ev.status is PeerStatus.CONNECTED)
                self._event("status", f"{self.names[seat]} is {ev.status.value}", seat=seat,
                            status=ev.status.value)


def _signed_by_node(node_id: bytes, statement: bytes, signature: bytes) -> bool:
    """Whether the player whose transport id is ``node_id`` signed ``statement``."""
    key = node_id[1:]
    return node_id_for(key) == node_id and verify_signature(key, signature, statement)


def bot_controller(choose: Callable[[HandState, list[Action]], Action]) -> Chooser:
    """Wrap a bare ``choose`` function as a seat controller."""

    class _C:
        def choose(self, view: HandState, legal: list[Action]) -> Action:
            return choose(view, legal)

    return _C()


class ListenAgainError(OSError):
    """``resume`` cannot listen again where the other players reach this seat (``bind``,
    ``port``): the port is taken, most often by this very game still open in another
    terminal. ``reason``: the system's own words. The console says it in the player's
    language (the English sentence reached a French screen whole)."""

    def __init__(self, bind: str, port: int, reason: str) -> None:
        super().__init__(f"cannot listen on {bind} port {port} again (the other players "
                         f"reach this seat there): {reason}; close the program that uses "
                         "it, then resume again")
        self.bind, self.port, self.reason = bind, port, reason


def admit_table(node: Transport, cfg: TableConfig) -> None:
    """Close a CURVE node to everyone but the seated players: each seat's routing id is
    bound to its transport key from the table header.  A table on plain ZeroMQ (no
    ``cfg.curve``) is left as it is.  ``resume`` calls this too, on a new node."""
    if not cfg.curve:
        return
    for p, (pub, _cert) in zip(cfg.players, cfg.curve, strict=True):
        nid = node_id_for(p.key)
        if nid != node.node_id:
            node.expect_key(nid, pub)
    node.set_admission(False)


def _check_stored(node: Transport, cfg: TableConfig, path: Path,
                  endpoints: Mapping[int, str]) -> None:
    """The other seats' stored addresses (``table.msgpack``), checked before
    :class:`Peer` dials them: one for a seat the table does not have, or that is no
    address, is this computer's damaged copy, said as such
    (:class:`~p2p.table.store.StoreDamaged`, naming the file and the seat). A hand-edited
    file stopped ``resume`` with "unexpected error: IndexError" (an address for seat 5 at
    a table of 2), or with "not HOST:PORT: 'x'" naming neither the file nor the seat
    (hostile pass 24)."""
    from p2p.table.store import META, StoreDamaged

    for s, ep in endpoints.items():
        if not 0 <= s < cfg.n:
            raise StoreDamaged(path, META, f"it holds an address for seat {s}, at a table "
                               f"of {cfg.n} seats")
        if node_id_for(cfg.players[s].key) == node.node_id:
            continue          # this player's own seat (see Peer.__init__)
        try:
            parse_endpoint(ep)            # what the node's add_peer refuses
        except ValueError as exc:
            raise StoreDamaged(path, META, f"seat {s}'s address is not one "
                               f"({safe_text(str(exc), 120)})") from None
    for s in range(cfg.n):
        if s not in endpoints and node_id_for(cfg.players[s].key) != node.node_id:
            # this computer's copy lost it (another program edited the file): the seat is
            # reached once it proves where it is (Peer._reach_unlisted), or by --peer
            log.warning("%s holds no address for seat %d (%s): it is reached only when it "
                        "reaches this seat, or with resume --peer HOST:PORT", path / META, s,
                        cfg.players[s].name)


def resume_peer(path: Any, identity: Identity, *, controller: Chooser | None = None,
                options: SessionOptions | None = None,
                node_factory: Callable[[bytes, str, int], Transport] | None = None) -> Peer:
    """Reopen a table directory after a crash: replay the stored entries (with this seat's
    secrets imported into each hand before its first entry), listen on the same port again,
    reconnect to the stored endpoints and ask every peer for what we missed."""
    from p2p.table.store import TRANSCRIPT, Store, StoreDamaged

    store, st = Store.open(path, identity.public_key)
    try:
        try:
            cfg = TableConfig.from_header(st.header)
        except ValueError as exc:
            raise StoreDamaged(st.path, TRANSCRIPT, str(exc)) from None
        if cfg.players[st.seat].key != identity.public_key:
            # a bot that took a seat over by agreement: its key is in the agreement
            from p2p.transcript.agreement import agreements_of
            agreed, _end, _void = agreements_of([p.key for p in cfg.players],
                                                st.transcript.side, cfg.table_id)
            if not any(t.key == identity.public_key and t.seat == st.seat for t in agreed):
                raise ValueError(f"{path} belongs to another identity (seat {st.seat}): "
                                 "resume it with --identity FILE, the key file it was "
                                 "played with")
        nid = node_id_for(identity.public_key)
        if node_factory is None:
            from p2p.net.transport import Node  # ZeroMQ only when a real node is made
            try:
                node: Transport = Node(nid, bind=st.bind, port=st.port,
                                       curve=identity.curve_keys() if cfg.curve else None)
            except Exception as exc:
                raise ListenAgainError(st.bind, st.port, str(exc)) from None
        else:
            node = node_factory(nid, st.bind, st.port)
    except Exception:
        store.close()
        raise
    try:
        admit_table(node, cfg)
        _check_stored(node, cfg, st.path, st.endpoints)
        peer = Peer(identity, cfg, node, controller=controller, store=store,
                    endpoints=st.endpoints, alternatives=st.alternatives, options=options,
                    replay=st.transcript.entries,
                    secrets=st.secrets, side=st.transcript.side, seat=st.seat)
    except Exception:
        node.close()
        store.close()
        raise
    if st.damage is not None or st.torn_bytes:
        # entries cut off the store (damage, or a torn end that may be a truncation): ours
        # may be among them, so write nothing before a peer has handed them back (writing
        # them again, differently, would be equivocation)
        peer.rlog.catching_up = True
    if st.damage is not None:
        if peer.rlog.local_damage is None:
            peer.rlog.local_damage = st.damage
        peer._event("local-damage", "this computer's copy of the game is damaged: "
                    + st.damage)
    peer.fetch()
    return peer
