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
* every received entry is decoded, checked (table, author, signature), deduplicated by
  its slot (hand, author, seq), buffered if it is early and applied strictly in log order
  (:class:`~p2p.envelope.LogVerifier` then :meth:`MatchProtocol.receive`);
* a peer that is stuck (no progress for ``stall_after``), or that hears that a peer
  restarted or that frames were lost, asks peers for the missing range (FETCH); any peer
  can serve it because every entry is signed by its author.

Wire payloads (msgpack arrays, inside the transport's reliable frames)::

    [0, [entry, ...]]                 PUSH: entries the sender just wrote
    [1, table, hand, index]           FETCH: "send me hand `hand` from log index `index`"
    [2, [entry, ...], more]           ENTRIES: a reply, possibly spanning the next hands
    [3, inner, sig]                   ABANDON: the sender stops the match for good (signed)

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import msgpack

from engine import Action, HandState, IllegalAction
from engine.scoring import Match, SideScore
from engine.state import EXTEND, RESPOND
from p2p.crypto.identity import Identity, fingerprint, verify_signature
from p2p.net.interface import PeerEventKind, Transport
from p2p.table.config import TableConfig
from p2p.table.hand_protocol import HandProtocol, ProtocolError
from p2p.table.match import MatchProtocol
from p2p.text import safe_text
from p2p.transcript.envelope import (
    MAX_ENVELOPE_BYTES,
    Envelope,
    EnvelopeError,
    Equivocation,
    LogError,
    LogVerifier,
    canonical_packb,
)

__all__ = ["Peer", "PeerInfo", "SessionEvent", "SessionOptions", "Transport", "node_id_for",
           "PUSH", "FETCH", "ENTRIES", "ABANDON"]

log = logging.getLogger("p2p.session")

PUSH = 0
FETCH = 1
ENTRIES = 2
ABANDON = 3
_ABANDON_TAG = b"millebornes/abandon/v1\x00"

#: Messages this layer refuses outright, before any decoding (a PUSH or ENTRIES reply).
MAX_PAYLOAD = 1 << 20
_BATCH_BYTES = 256 * 1024
_LOG_LIMIT = 10
_SENDER_DROP_REASONS = frozenset({"unknown-author", "bad-signature", "wrong-table", "wrong-hand"})


def node_id_for(key: bytes) -> bytes:
    """The transport id of the player with public key ``key`` (never starts with 0x00)."""
    return b"m" + key


class Chooser(Protocol):
    def choose(self, view: HandState, legal: list[Action]) -> Action: ...


@dataclass(frozen=True)
class SessionOptions:
    response_delay: float = 0.03    # a bot's answer in a response window, after this long
    stall_after: float = 0.5        # no progress for this long: ask peers for entries
    stall_max: float = 4.0          # backoff ceiling of those requests
    fetch_min_interval: float = 0.02  # serve at most one FETCH per peer per this long
    max_early: int = 4096           # entries buffered ahead of the log, per author
    recv_batch: int = 256           # messages handled per pump
    record_times: bool = False      # keep send/apply times per entry (benchmarks)
    abort_delay: float = 0.05       # game.abort waits (1 + seat) × this: the lowest seat wins


@dataclass(frozen=True)
class SessionEvent:
    """Something the UI may show: ``text`` in words, ``kind`` and ``data`` structured.

    Kinds: ``action`` (data: hand, seat, action, before, after), ``hand-start``,
    ``hand-end`` (scores), ``match-end`` (winner), ``status`` (seat, status), ``dropped``
    (sender, reason), ``stopped`` (reason, seat), ``resumed``."""

    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)


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
    ABORT = "aborting the hand"


_STEP_OF_KIND = {
    "deck.key": TableStep.KEYS, "game.rcommit": TableStep.RANDOM_COMMIT,
    "deck.commit": TableStep.SHUFFLE_COMMIT, "deck.pass": TableStep.SHUFFLE,
    "game.rreveal": TableStep.FIRST_PLAYER, "deck.reveal": TableStep.REVEAL,
    "deck.reshuffle": TableStep.RESHUFFLE, "game.abort": TableStep.ABORT,
    "game.act": TableStep.MOVE, "deck.share": TableStep.SHARE, "open": TableStep.SHARE,
}


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
                 options: SessionOptions | None = None,
                 replay: list[Envelope] | None = None,
                 secrets: Mapping[int, Mapping[str, Any]] | None = None) -> None:
        keys = [p.key for p in cfg.players]
        if identity.public_key not in keys:
            raise ValueError("this identity has no seat at the table")
        self.identity = identity
        self.cfg = cfg
        self.table_id = cfg.table_id
        self.header = cfg.header()
        self.me = keys.index(identity.public_key)
        self.names = tuple(p.name for p in cfg.players)
        self.keys = tuple(keys)
        self.seat_of_key = {k: s for s, k in enumerate(keys)}
        self.seat_of_node = {node_id_for(k): s for s, k in enumerate(keys)}
        self.node = node
        self.controller = controller
        self.store = store
        self.opts = options or SessionOptions()
        self.match = MatchProtocol(cfg, self.me)
        self._secrets: dict[int, Mapping[str, Any]] = dict(secrets or {})
        self._hand_obj: HandProtocol | None = None
        self.verifier = self._new_verifier(0)
        self.log: dict[int, list[bytes]] = {0: []}
        self._slots: dict[tuple[int, bytes, int], int] = {}
        self._early: dict[tuple[int, bytes, int], Envelope] = {}
        self._early_count: dict[bytes, int] = {}
        self._lock = threading.RLock()
        self._events: deque[SessionEvent] = deque(maxlen=10_000)
        self.drops: dict[tuple[str, str], int] = {}
        self.drop_log: deque[tuple[str, str, str]] = deque(maxlen=1000)
        self.error: ProtocolError | None = None
        self.stopped: str | None = None
        self.finished = False
        self._last_progress = time.monotonic()
        self._stall = self.opts.stall_after
        self._next_fetch = self._last_progress + self._stall
        self._fetch_served: dict[bytes, float] = {}
        self._respond_at: dict[tuple[int, int], float] = {}
        self._status: dict[int, str] = {}
        self.entries_applied = 0
        self.sent_at: dict[tuple[int, int], float] = {}
        self.applied_at: dict[tuple[int, int], float] = {}
        self.move_index: set[tuple[int, int]] = set()
        self._outbox: list[bytes] = []
        self._hands_reported = 0
        self._hashes: dict[bytes, tuple[int, int]] = {self.header.genesis(0): (0, -1)}
        self._abort_at: tuple[int, int] | None = None    # (hand, index) of the applied abort
        self._abort_prev: bytes | None = None               # ... and the entry it follows
        self._branch: dict[tuple[int, bytes, int], Envelope] = {}
        self._superseded: set[bytes] = set()
        self._replaying = False
        self.rebases = 0
        #: test hook for cheat tests: rewrites this seat's body before it is signed
        self.tamper: Callable[[int, dict[str, Any]], dict[str, Any]] | None = None
        self._check_hand()
        if replay:
            for env in replay:
                self._apply(env, persist=False, sender=None)
                if self.stopped:
                    break
            self._event("resumed", f"resumed from {len(replay)} stored entries",
                        entries=len(replay))
        for s, ep in (endpoints or {}).items():
            if s != self.me:
                node.add_peer(node_id_for(self.keys[s]), ep)

    # ===================================================================== UI interface
    @property
    def hand_no(self) -> int:
        return self.match.hand_no

    def view(self) -> HandState | None:
        """This seat's view of the hand in play (None before the deal completes)."""
        with self._lock:
            return self.match.hand.state

    def needs_decision(self) -> bool:
        """Does the table wait for a move from this seat's (human) controller?"""
        with self._lock:
            return (self.controller is None and not self.finished and not self.stopped
                    and self.match.hand.needs_decision())

    def legal(self) -> list[Action]:
        with self._lock:
            if not self.match.hand.needs_decision() or self.stopped or self.finished:
                return []
            return self.match.hand.legal()

    def submit(self, action: Action) -> None:
        """Play this seat's move; raises :class:`engine.IllegalAction` if it is refused."""
        with self._lock:
            if not self.match.hand.needs_decision() or self.stopped:
                raise IllegalAction("R0", "it is not your move", action)
            if action not in self.match.hand.legal():
                raise IllegalAction("R0", "that move is not legal now", action)
            self._write(self.match.hand.act_body(action))
            self._write_while_my_turn()
        self._flush_outbox()

    def waiting_for(self) -> int | None:
        """The seat the log waits for (None when the match is over or stopped)."""
        with self._lock:
            if self.finished or self.stopped:
                return None
            return self.match.hand.expected_writer()

    def waiting_on(self) -> Waiting | None:
        """The seat the log waits for and the step it is at (None: over or stopped)."""
        with self._lock:
            if self.finished or self.stopped:
                return None
            hp = self.match.hand
            e = hp.expected()
            if e is None:
                return None
            step = _STEP_OF_KIND.get(e.kind, TableStep.MOVE)
            if step is TableStep.SHARE and hp.state is None:
                step = TableStep.DEAL
            return Waiting(e.seat, step)

    def progress(self) -> tuple[int, int]:
        """(hand number, entries applied in it): changes whenever the table moves on."""
        with self._lock:
            return self.hand_no, len(self.log.get(self.hand_no, []))

    def match_so_far(self) -> Match:
        """The match as scored so far (hands played, totals, first seat)."""
        with self._lock:
            m = self.match.match
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

    def drain_events(self) -> list[SessionEvent]:
        with self._lock:
            out = list(self._events)
            self._events.clear()
            return out

    def abandon(self, reason: str = "abandoned", tell: bool = True) -> None:
        """Declare the match over for good (e.g. a peer is gone): the log is kept. With
        ``tell`` the other peers get a signed ABANDON and stop too."""
        with self._lock:
            if self.stopped or self.finished:
                return
            self._stop(reason, None)
        if tell:
            inner = canonical_packb({"k": "abandon", "table": self.table_id,
                                     "key": self.identity.public_key, "reason": reason[:200]})
            self._broadcast(_pack([ABANDON, inner,
                                   self.identity.sign(_ABANDON_TAG + inner)]))
            self.node.flush(1.0)

    # ===================================================================== running
    def pump(self, timeout: float = 0.05) -> bool:
        """Handle what arrived (waiting up to ``timeout``), write if it is our turn.
        Returns False once the match is over or stopped."""
        self._step()
        if self.finished or self.stopped:
            return False
        wait = max(0.0, min(timeout, self._next_deadline() - time.monotonic()))
        msg = self.node.recv(wait)
        n = 0
        while msg is not None:
            self._on_payload(msg[0], msg[1])
            n += 1
            if n >= self.opts.recv_batch:
                break
            msg = self.node.recv(0)
        self._step()
        return not (self.finished or self.stopped)

    def run(self, timeout: float | None = None) -> bool:
        """Pump until the match is over or stopped (or ``timeout``); True if finished."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.pump(0.05):
            if deadline is not None and time.monotonic() > deadline:
                return False
        return self.finished

    def linger(self, seconds: float = 1.0) -> None:
        """After the end: keep serving late FETCH requests while our frames drain."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            msg = self.node.recv(min(0.05, max(0.0, end - time.monotonic())))
            if msg is not None:
                self._on_payload(msg[0], msg[1])
            self._handle_node_events()

    def close(self, flush: float = 2.0) -> None:
        if flush > 0:
            self.node.flush(flush)
        self.node.close()
        if self.store is not None:
            self.store.close()

    def fetch(self) -> None:
        """Ask every peer for what follows our log (after a restart, or when stuck)."""
        with self._lock:
            h = self.match.hand_no
            payload = _pack([FETCH, self.table_id, h, len(self.log.get(h, []))])
        try:
            self.node.broadcast(payload)
        except Exception as exc:
            log.debug("fetch broadcast failed: %s", exc)

    # ===================================================================== internals
    def _next_deadline(self) -> float:
        t = self._next_fetch
        for due in self._respond_at.values():
            t = min(t, due)
        return t

    def _step(self) -> None:
        with self._lock:
            self._handle_node_events()
            self._apply_ready()
            self._write_while_my_turn()
            self._maybe_fetch()
        self._flush_outbox()

    def _event(self, kind: str, text: str, **data: Any) -> None:
        if not self._replaying:
            self._events.append(SessionEvent(kind, text, data))

    def _new_verifier(self, hand: int) -> LogVerifier:
        return LogVerifier(self.table_id, hand, self.keys, self.header.genesis(hand),
                           linear=True)

    def _check_hand(self) -> None:
        """A new hand object: import its stored secrets before it sees any entry."""
        hp = self.match.hand
        if hp is self._hand_obj:
            return
        self._hand_obj = hp
        rec = self._secrets.get(hp.hand_no)
        if rec is not None:
            hp.import_secrets({"deck": dict(rec["deck"]), "rand_seed": rec["rand_seed"]})
        if hp.hand_no not in self.log:
            self.log[hp.hand_no] = []
        if self.verifier.hand != hp.hand_no:
            self.verifier = self._new_verifier(hp.hand_no)
            self._hashes[self.verifier.genesis] = (hp.hand_no, -1)
            self._event("hand-start", f"hand {hp.hand_no + 1} begins: shuffling",
                        hand=hp.hand_no)

    def _label(self, sender: bytes | None) -> str:
        if sender is None:
            return "store"
        s = self.seat_of_node.get(sender)
        return f"seat {s} ({self.names[s]})" if s is not None else f"node {sender.hex()[:16]}"

    def _drop(self, sender: bytes | None, reason: str, detail: str = "") -> None:
        label = self._label(sender)
        k = (label, reason)
        n = self.drops.get(k, 0) + 1
        self.drops[k] = n
        self.drop_log.append((label, reason, detail))
        if n <= _LOG_LIMIT or n % 1000 == 0:
            log.warning("seat %d dropped a message from %s: %s %s (count %d)",
                        self.me, label, reason, detail, n)
            self._event("dropped", f"dropped a message from {label}: {reason}",
                        sender=label, reason=reason, detail=detail)

    def _stop(self, reason: str, seat: int | None) -> None:
        if self.stopped or self.finished:
            return
        self.stopped = reason
        self._respond_at.clear()
        self._event("stopped", f"the match stopped: {reason}", reason=reason, seat=seat)
        log.warning("seat %d: match stopped: %s", self.me, reason)

    # ----- receiving ---------------------------------------------------------------
    def _on_payload(self, sender: bytes, payload: bytes) -> None:
        if len(payload) > MAX_PAYLOAD:
            self._drop(sender, "oversized", f"{len(payload)} bytes")
            return
        try:
            msg = msgpack.unpackb(payload, raw=False, use_list=True, max_bin_len=MAX_PAYLOAD,
                                  max_str_len=256, max_array_len=4096, max_map_len=0,
                                  max_ext_len=0)
        except Exception as exc:
            self._drop(sender, "malformed", type(exc).__name__)
            return
        if not isinstance(msg, list) or not msg or not isinstance(msg[0], int):
            self._drop(sender, "malformed", "not a session message")
            return
        kind = msg[0]
        with self._lock:
            if kind in (PUSH, ENTRIES) and len(msg) >= 2 and isinstance(msg[1], list):
                for raw in msg[1]:
                    if not isinstance(raw, bytes):
                        self._drop(sender, "malformed", "entry is not bytes")
                        continue
                    self._on_entry(sender, raw, solicited=kind == ENTRIES)
                    if self.stopped:
                        return
                self._apply_ready()
                if kind == ENTRIES and len(msg) >= 3 and msg[2] is True:
                    self._send_fetch(sender)
            elif kind == FETCH and len(msg) == 4:
                self._on_fetch(sender, msg[1], msg[2], msg[3])
            elif kind == ABANDON and len(msg) == 3:
                self._on_abandon(sender, msg[1], msg[2])
            else:
                self._drop(sender, "malformed", f"unknown message kind {kind}")
        self._flush_outbox()

    def _on_entry(self, sender: bytes, raw: bytes, solicited: bool) -> None:
        if len(raw) > MAX_ENVELOPE_BYTES:
            self._drop(sender, "oversized", f"entry of {len(raw)} bytes")
            return
        try:
            env = Envelope.decode(raw)
        except EnvelopeError as exc:
            reason = "unsigned" if _looks_unsigned(raw) else "malformed"
            self._drop(sender, reason, str(exc))
            return
        if env.table != self.table_id:
            self._drop(sender, "foreign-table", env.table.hex()[:16])
            return
        if env.author not in self.seat_of_key:
            self._drop(sender, "unknown-author", env.author.hex()[:16])
            return
        cur = self.match.hand_no
        if (env.body.get("k") == "game.abort" and env.hand == cur and not self.finished
                and self._abort_fork(sender, env)):
            return          # (before the void check: a lower seat's abort may win)
        if self._is_void(env):
            return          # from the branch an abort cut off: late, harmless
        slot = (env.hand, env.author, env.seq)
        idx = self._slots.get(slot)
        if idx is not None or env.hand < cur or self.finished:
            # already in our log (or from a finished hand): a resend or a replay
            old = self.log.get(env.hand, [])
            if idx is not None and old[idx] != raw and env.signature_ok():
                if env.hand == cur and env.prev not in self._hashes:
                    self._keep_branch(slot, env)   # may follow an abort we have not seen
                    return
                first = Envelope.decode(old[idx])
                self._equivocation(Equivocation(first, env))
                return
            if not env.signature_ok():
                self._drop(sender, "bad-signature", f"{self._who(env)} seq {env.seq}")
            elif not solicited:
                self._drop(sender, "replayed", f"hand {env.hand} seq {env.seq}")
            return
        if env.hand > cur + 1:
            self._drop(sender, "too-far-ahead", f"hand {env.hand} while {cur} runs")
            return
        early = self._early.get(slot)
        if early is not None:
            if early.encode() == raw:
                return
            if env.signature_ok():
                if early.signature_ok():
                    if env.prev not in self._hashes or early.prev not in self._hashes:
                        self._keep_branch(slot, env)
                        return
                    self._equivocation(Equivocation(early, env))
                    return
                self._early[slot] = env   # the buffered one was a forgery
            else:
                self._drop(sender, "bad-signature", f"{self._who(env)} seq {env.seq}")
            return
        if self._is_next(env):
            self._apply(env, persist=True, sender=sender)
            return
        # early: keep it (signature checked now so a forgery cannot squat the slot)
        if not env.signature_ok():
            self._drop(sender, "bad-signature", f"{self._who(env)} seq {env.seq}")
            return
        if self._early_count.get(env.author, 0) >= self.opts.max_early:
            self._drop(sender, "buffer-full", self._who(env))
            return
        self._early[slot] = env
        self._early_count[env.author] = self._early_count.get(env.author, 0) + 1

    def _on_abandon(self, sender: bytes, inner: object, sig: object) -> None:
        seat = self.seat_of_node.get(sender)
        if seat is None or not isinstance(inner, bytes) or not isinstance(sig, bytes):
            self._drop(sender, "malformed", "abandon")
            return
        if not verify_signature(self.keys[seat], sig, _ABANDON_TAG + inner):
            self._drop(sender, "bad-signature", "abandon")
            return
        try:
            v = msgpack.unpackb(inner, raw=False, max_str_len=512, max_bin_len=64)
        except Exception:
            self._drop(sender, "malformed", "abandon")
            return
        if not isinstance(v, dict) or v.get("table") != self.table_id:
            self._drop(sender, "foreign-table", "abandon")
            return
        self._stop(f"{self._seat_name(seat)} abandoned the match: "
                   f"{safe_text(v.get('reason', ''), 200, placeholder='')}",
                   None)

    def _who(self, env: Envelope) -> str:
        s = self.seat_of_key.get(env.author)
        return f"author seat {s}" if s is not None else "unknown author"

    def _is_next(self, env: Envelope) -> bool:
        hp = self.match.hand
        if self.match.done or env.hand != hp.hand_no:
            return False
        if env.seq != self.verifier.next_seq(env.author):
            return False
        w = hp.expected_writer()
        if w is not None and self.keys[w] == env.author:
            return True
        return self._is_abort(env)

    def _is_abort(self, env: Envelope) -> bool:
        """A ``game.abort`` (any seat, any time) that extends our head: apply it now."""
        return (env.body.get("k") == "game.abort" and env.prev == self.verifier.head
                and self.match.hand.aborted_by is None)

    def _apply_ready(self) -> None:
        while not self.stopped and not self.finished:
            hp = self.match.hand
            w = hp.expected_writer()
            if w is None:
                return
            key = self.keys[w]
            env = self._early.pop((hp.hand_no, key, self.verifier.next_seq(key)), None)
            if env is None:
                env = self._early_abort()
                if env is None:
                    return
                key = env.author
            self._early_count[key] -= 1
            self._apply(env, persist=True, sender=None)

    def _early_abort(self) -> Envelope | None:
        hand = self.match.hand_no
        for (h, author, seq), env in self._early.items():
            if h == hand and seq == self.verifier.next_seq(author) and self._is_abort(env):
                del self._early[(h, author, seq)]
                return env
        return None

    def _apply(self, env: Envelope, persist: bool, sender: bytes | None) -> None:
        """Verify and apply the next entry of the log (it must be the expected one)."""
        hand = self.match.hand_no
        try:
            self.verifier.accept(env)
        except Equivocation as exc:
            self._equivocation(exc)
            return
        except LogError as exc:
            if exc.check in _SENDER_DROP_REASONS:
                self._drop(sender, exc.check, self._who(env))
            elif self._is_void(env):
                self._superseded.add(env.hash())
            elif env.body.get("k") == "game.abort":
                self._abort_race(env)
            else:
                seat = self.seat_of_key.get(env.author)
                self._stop(f"{self._seat_name(seat)} broke the log ({exc.check})", seat)
                self.error = ProtocolError(seat, exc.check, exc.detail)
            return
        hp = self.match.hand
        before = hp.state
        w = self.seat_of_key[env.author]
        try:
            self.match.receive(hand, w, env.body)
        except ProtocolError as exc:
            # the entry is signed and chained: it stays in the log (as in the reference
            # loop), so the transcript shows the auditor where the table stopped
            self.log[hand].append(env.encode())
            if persist and self.store is not None:
                self.store.append(env)
            self.error = exc
            self._keep_evidence(env)
            self._stop(f"{self._seat_name(exc.seat)} broke the rules of the protocol "
                       f"({exc.check})", exc.seat)
            return
        raw = env.encode()
        idx = len(self.log[hand])
        self.log[hand].append(raw)
        self._slots[(hand, env.author, env.seq)] = idx
        self._hashes[env.hash()] = (hand, idx)
        if env.body.get("k") == "game.abort":
            self._abort_at = (hand, idx)
            self._abort_prev = env.prev
        if persist and self.store is not None:
            self.store.append(env)
        now = time.monotonic()
        self._last_progress = now
        self._stall = self.opts.stall_after
        self._next_fetch = now + self._stall
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
        if env.body.get("k") == "game.abort" and not self._replaying:
            self._purge_void()
        if self.match.hand is not hp or hp.done:
            if len(self.match.scores) > self._hands_reported:
                self._hands_reported = len(self.match.scores)
                sc = self.match.scores[-1]
                self._event("hand-end", f"hand {hand + 1} is over: scores "
                            f"{[s.total for s in sc]}", hand=hand, scores=sc,
                            final=hp.state)
            if self.match.done:
                self.finished = True
                self._respond_at.clear()
                win = self.match.winner()
                self._event("match-end", "the match is over: "
                            + (f"side {win} wins" if win >= 0 else "no winner"), winner=win)
            else:
                self._check_hand()

    # ----- an abort that raced with the log ------------------------------------------------
    def _keep_branch(self, slot: tuple[int, bytes, int], env: Envelope) -> None:
        if len(self._branch) < self.opts.max_early:
            self._branch[slot] = env

    def _abort_fork(self, sender: bytes, env: Envelope) -> bool:
        """A ``game.abort`` chained on an entry *before* our head: whoever saw the cheat
        wrote it while the writer of the moment went on. The abort wins: every peer cuts
        the hand's log back to the abort's ``prev`` and applies the abort there (two aborts:
        the earlier point wins, then the lower seat), so all logs converge. Returns True
        when handled here."""
        hand = self.match.hand_no
        where = self._hashes.get(env.prev)
        if where is None or where[0] != hand:
            return False                     # unknown prev: buffered like any early entry
        p = where[1]
        if p == len(self.log[hand]) - 1:
            return False                     # it extends our head: the normal path
        if not env.signature_ok():
            self._drop(sender, "bad-signature", f"{self._who(env)} abort")
            return True
        seat = self.seat_of_key[env.author]
        if self._slots.get((hand, env.author, env.seq)) is not None:
            return False                     # that slot is taken: equivocation path
        if sum(1 for r in self.log[hand][:p + 1]
               if Envelope.decode(r).author == env.author) != env.seq:
            self._drop(sender, "bad-abort-seq", self._who(env))
            return True
        if self._abort_at is not None and self._abort_at[0] == hand:
            i1 = self._abort_at[1]
            s1 = self.match.hand.aborted_by
            if not (p + 1 < i1 or (p + 1 == i1 and s1 is not None and seat < s1)):
                self._drop(None, "late-abort", f"{self._seat_name(seat)} also aborted")
                return True
        self._rebase(hand, p, env, sender)
        return True

    def _rebase(self, hand: int, p: int, abort: Envelope, sender: bytes) -> None:
        hp = self.match.hand
        self._secrets[hand] = hp.export_secrets()
        cut = [Envelope.decode(r) for r in self.log[hand][p + 1:]]
        keep = [Envelope.decode(r) for h in sorted(self.log) if h < hand
                for r in self.log[h]]
        keep += [Envelope.decode(r) for r in self.log[hand][:p + 1]]
        self._superseded.update(e.hash() for e in cut)
        self.match = MatchProtocol(self.cfg, self.me)
        self._hand_obj = None
        self.verifier = self._new_verifier(0)
        self.log = {0: []}
        self._slots = {}
        self._hashes = {self.header.genesis(0): (0, -1)}
        self._abort_at = None
        self._abort_prev = None
        self._respond_at.clear()
        self._replaying = True
        try:
            self._check_hand()
            for e in keep:
                self._apply(e, persist=False, sender=None)
        finally:
            self._replaying = False
        if self.store is not None:
            self.store.rewrite(keep)
        self.rebases += 1
        seat = self.seat_of_key[abort.author]
        self._event("rebased", f"{self._seat_name(seat)} aborted the hand; {len(cut)} "
                    "later entries are void", seat=seat, cut=len(cut))
        log.warning("seat %d: abort by seat %d at entry %d; %d later entries void",
                    self.me, seat, p + 1, len(cut))
        self._apply(abort, persist=True, sender=sender)

    def _is_void(self, env: Envelope) -> bool:
        """Is ``env`` on a branch that an applied abort cut off (it follows the same entry
        as the abort, or a void entry)?"""
        if env.prev in self._superseded or (self._superseded and
                                            env.hash() in self._superseded):
            return True
        return (self._abort_prev is not None and env.prev == self._abort_prev
                and self._abort_at is not None and env.hand == self._abort_at[0]
                and env.hash() not in self._hashes)

    def _purge_void(self) -> None:
        """After an abort: drop buffered entries of the void branch, and take in the
        entries that waited for the abort (they collided with void slots)."""
        changed = True
        while changed:
            changed = False
            for slot, e in list(self._early.items()):
                if self._is_void(e):
                    self._superseded.add(e.hash())
                    del self._early[slot]
                    self._early_count[slot[1]] -= 1
                    changed = True
        for slot, e in self._branch.items():
            if slot not in self._slots and not self._is_void(e):
                if slot not in self._early:
                    self._early_count[slot[1]] = self._early_count.get(slot[1], 0) + 1
                self._early[slot] = e
        self._branch.clear()

    def _abort_race(self, env: Envelope) -> None:
        """An abort written on an older head than ours: it raced with the log."""
        seat = self.seat_of_key.get(env.author)
        hp = self.match.hand
        if hp.aborted_by is not None:
            self._drop(None, "late-abort", f"{self._seat_name(seat)} also aborted")
            return
        reason = str(env.body.get("reason", ""))[:200]
        self.error = ProtocolError(None, "abort-race", reason)
        self._keep_evidence(env)
        self._stop(f"{self._seat_name(seat)} aborted the hand ({reason}) while the log "
                   "went on; the hand cannot be settled here", None)

    def _seat_name(self, seat: int | None) -> str:
        return "an unknown seat" if seat is None else f"seat {seat} ({self.names[seat]})"

    def _equivocation(self, exc: Equivocation) -> None:
        seat = self.seat_of_key.get(exc.first.author)
        self.error = ProtocolError(seat, "equivocation", exc.detail)
        self._keep_evidence(exc.first, exc.second)
        self._stop(f"{self._seat_name(seat)} signed two different entries for one slot "
                   "(equivocation)", seat)

    def _keep_evidence(self, *envs: Envelope) -> None:
        if self.store is None:
            return
        try:
            with open(self.store.path / "evidence.bin", "ab") as f:
                for e in envs:
                    f.write(e.encode())
        except OSError as exc:  # pragma: no cover - evidence is best effort
            log.warning("could not keep evidence: %s", exc)

    # ----- writing ---------------------------------------------------------------------
    def _write_while_my_turn(self) -> None:
        while not self.stopped and not self.finished:
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
            else:
                e = hp.expected()
                if e is not None and e.kind == "game.abort":
                    # everyone who saw the cheat aborts; the lowest seat's abort wins and
                    # the others apply it instead of writing their own
                    key = (hp.hand_no, -1 - len(self.log[hp.hand_no]))
                    due = self._respond_at.setdefault(
                        key, time.monotonic() + self.opts.abort_delay * (1 + self.me))
                    if time.monotonic() < due:
                        return
                    self._respond_at.pop(key, None)
                body = hp.auto_body()
            self._write(body)

    def _write(self, body: dict[str, Any]) -> None:
        hp = self.match.hand
        hand = hp.hand_no
        if self.tamper is not None:
            body = self.tamper(hand, body)
        secrets = hp.export_secrets()
        self._secrets[hand] = secrets
        if self.store is not None:
            self.store.save_secrets(hand, secrets)
        env = Envelope.create(self.identity, self.table_id, hand,
                              self.verifier.next_seq(self.identity.public_key),
                              self.verifier.head, body)
        idx = len(self.log[hand])
        self._apply(env, persist=True, sender=None)
        if self.opts.record_times:
            self.sent_at[(hand, idx)] = time.monotonic()
        self._outbox.append(env.encode())

    def _flush_outbox(self) -> None:
        with self._lock:
            out, self._outbox = self._outbox, []
        batch: list[bytes] = []
        size = 0
        for raw in out:
            if batch and size + len(raw) > _BATCH_BYTES:
                self._broadcast(_pack([PUSH, batch]))
                batch, size = [], 0
            batch.append(raw)
            size += len(raw)
        if batch:
            self._broadcast(_pack([PUSH, batch]))

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

    # ----- catching up -------------------------------------------------------------------
    def _position(self) -> tuple[int, int]:
        h = self.match.hand_no
        return h, len(self.log.get(h, []))

    def _send_fetch(self, peer: bytes) -> None:
        h, i = self._position()
        self._send(peer, _pack([FETCH, self.table_id, h, i]))

    def _maybe_fetch(self) -> None:
        if self.stopped or self.finished:
            return
        now = time.monotonic()
        if now < self._next_fetch:
            return
        hp = self.match.hand
        if hp.expected_writer() == self.me:
            self._next_fetch = now + self._stall
            return
        h, i = self._position()
        self._stall = min(self._stall * 2, self.opts.stall_max)
        self._next_fetch = now + self._stall
        self._broadcast(_pack([FETCH, self.table_id, h, i]))

    def _on_fetch(self, sender: bytes, table: object, hand: object, index: object) -> None:
        if table != self.table_id:
            self._drop(sender, "foreign-table", "fetch")
            return
        if type(hand) is not int or type(index) is not int or hand < 0 or index < 0:
            self._drop(sender, "malformed", "bad fetch")
            return
        now = time.monotonic()
        last = self._fetch_served.get(sender, -1e9)
        if now - last < self.opts.fetch_min_interval:
            self.drops[(self._label(sender), "fetch-rate")] = \
                self.drops.get((self._label(sender), "fetch-rate"), 0) + 1
            return
        self._fetch_served[sender] = now
        mine = self._position()
        if (hand, index) > mine and not self.finished:
            self._send_fetch(sender)      # the asker is ahead of us: catch up from it
        out: list[bytes] = []
        size = 0
        more = False
        h, i = hand, index
        while h in self.log:
            entries = self.log[h]
            while i < len(entries):
                raw = entries[i]
                if out and size + len(raw) > _BATCH_BYTES:
                    more = True
                    break
                out.append(raw)
                size += len(raw)
                i += 1
            if more:
                break
            h, i = h + 1, 0
        if out:
            self._send(sender, _pack([ENTRIES, out, more]))

    def _handle_node_events(self) -> None:
        try:
            evs = self.node.events()
        except Exception:
            return
        for ev in evs:
            seat = self.seat_of_node.get(ev.peer_id)
            if seat is None:
                continue
            if ev.kind in (PeerEventKind.RESTARTED, PeerEventKind.GAP):
                # it may have lost what we sent, or we lost what it sent: compare logs
                self._send_fetch(ev.peer_id)
                if ev.kind is PeerEventKind.RESTARTED:
                    self._event("status", f"{self.names[seat]} restarted", seat=seat,
                                status="restarted")
            elif ev.kind is PeerEventKind.STATUS and ev.status is not None:
                self._status[seat] = ev.status.value
                self._event("status", f"{self.names[seat]} is {ev.status.value}", seat=seat,
                            status=ev.status.value)


def _pack(v: Any) -> bytes:
    out = msgpack.packb(v, use_bin_type=True)
    assert isinstance(out, bytes)
    return out


def _looks_unsigned(raw: bytes) -> bool:
    try:
        v = msgpack.unpackb(raw, raw=False, max_array_len=16)
    except Exception:
        return False
    return isinstance(v, list) and len(v) == 7


def bot_controller(choose: Callable[[HandState, list[Action]], Action]) -> Chooser:
    """Wrap a bare ``choose`` function as a seat controller."""

    class _C:
        def choose(self, view: HandState, legal: list[Action]) -> Action:
            return choose(view, legal)

    return _C()


def resume_peer(path: Any, identity: Identity, *, controller: Chooser | None = None,
                options: SessionOptions | None = None,
                node_factory: Callable[[bytes, str, int], Transport] | None = None) -> Peer:
    """Reopen a table directory after a crash: replay the stored entries (with this seat's
    secrets imported into each hand before its first entry), listen on the same port again,
    reconnect to the stored endpoints and ask every peer for what we missed."""
    from p2p.table.store import Store

    store, st = Store.open(path)
    try:
        cfg = TableConfig.from_header(st.header)
        if cfg.players[st.seat].key != identity.public_key:
            raise ValueError(f"{path} belongs to another identity (seat {st.seat})")
        nid = node_id_for(identity.public_key)
        if node_factory is None:
            from p2p.net.transport import Node
            node: Transport = Node(nid, bind=st.bind, port=st.port)
        else:
            node = node_factory(nid, st.bind, st.port)
    except Exception:
        store.close()
        raise
    peer = Peer(identity, cfg, node, controller=controller, store=store,
                endpoints=st.endpoints, options=options, replay=st.transcript.entries,
                secrets=st.secrets)
    peer.fetch()
    return peer
