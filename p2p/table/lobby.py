"""The lobby: players gather at a table, take seats, get ready; then the match starts.

The lobby runs over the same :class:`~p2p.transport.Node` the match will use (node id =
``node_id_for(key)``). Every lobby message is signed by its sender's identity key, and
the key must be the one its routing id names, so nobody can speak for another player.

* The **host** creates the table (rules, seating) and holds seat 0; it accepts joiners,
  keeps the seat list and sends the lobby state to every member after each change.
* A **joiner** knows only ``HOST:PORT`` (from ``--peer`` or DNS-SD). It opens a
  connection there under a placeholder id that only carries heartbeats; the host hears
  an unknown peer, adds it, and answers; the joiner hears the host's heartbeats, learns
  its real id (and checks its fingerprint when discovery gave one), then sends ``join``.
* Members ``sit`` (any free seat: a team seat is just a seat, side = seat mod teams),
  ``ready`` / unready, ``leave``. When every seat is taken and ready, the host sends
  ``start``: the table header (rules, seating, every player's name and key, a nonce;
  the table id hashes them all) and every seat's endpoint. Each member checks that it is
  seated as agreed before it plays.

Wire: ``[10, inner, sig]`` with ``inner`` = canonical msgpack of ``{"k": kind, "key":
sender key, "lobby": lobby id, ...}`` and ``sig`` = Ed25519 over
``b"millebornes/lobby/v1\\0" + inner``. Kinds 0..2 are the session's (p2p.session).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack

from engine import Rules, Seating
from p2p.crypto.identity import Identity, fingerprint, verify_signature
from p2p.net.interface import PeerEventKind, Transport, parse_endpoint
from p2p.table.config import TableConfig
from p2p.table.session import node_id_for
from p2p.transcript.envelope import canonical_packb
from p2p.transcript.file import Player, TranscriptHeader

__all__ = ["LOBBY", "LobbyClient", "LobbyError", "LobbyHost", "LobbyState", "SeatInfo",
           "TableStart"]

log = logging.getLogger("p2p.lobby")

LOBBY = 10
_TAG = b"millebornes/lobby/v1\x00"
_PLACEHOLDER = b"?host"
MAX_NAME = 24


class LobbyError(Exception):
    """The host refused us, or the start does not match what was agreed."""


@dataclass
class SeatInfo:
    name: str
    key: bytes
    ready: bool = False
    bot: bool = False
    endpoint: str = ""

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


@dataclass
class LobbyState:
    table_name: str
    rules: Rules
    seating: Seating
    seats: list[SeatInfo | None]
    host_key: bytes
    lobby_id: bytes

    def free(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s is None]

    def describe(self) -> list[str]:
        out = []
        for i, s in enumerate(self.seats):
            team = (f" team {self.seating.side_of(i) + 1}"
                    if self.seating.n_teams != self.seating.n_players else "")
            if s is None:
                out.append(f"seat {i}{team}: free")
            else:
                out.append(f"seat {i}{team}: {s.name} [{s.fingerprint}]"
                           + (" (bot)" if s.bot else "") + (" ready" if s.ready else ""))
        return out

    def to_obj(self) -> dict[str, Any]:
        return {"name": self.table_name, "rules": self.rules.to_dict(),
                "seating": [self.seating.n_players, self.seating.n_teams],
                "host": self.host_key, "lobby": self.lobby_id,
                "seats": [None if s is None else {"name": s.name, "key": s.key,
                                                  "ready": s.ready, "bot": s.bot}
                          for s in self.seats]}

    @classmethod
    def from_obj(cls, v: Any) -> LobbyState:
        seats: list[SeatInfo | None] = []
        for s in v["seats"]:
            seats.append(None if s is None else SeatInfo(str(s["name"]), bytes(s["key"]),
                                                         bool(s["ready"]), bool(s["bot"])))
        return cls(str(v["name"]), Rules.from_dict(dict(v["rules"])), Seating(*v["seating"]),
                   seats, bytes(v["host"]), bytes(v["lobby"]))


@dataclass
class TableStart:
    """The agreed table: what a member needs to create its :class:`~p2p.session.Peer`."""

    cfg: TableConfig
    seat: int
    endpoints: dict[int, str]
    bots: list[int] = field(default_factory=list)


def _sign(identity: Identity, obj: dict[str, Any]) -> bytes:
    inner = canonical_packb(obj)
    out = msgpack.packb([LOBBY, inner, identity.sign(_TAG + inner)], use_bin_type=True)
    assert isinstance(out, bytes)
    return out


def parse_lobby(sender: bytes, payload: bytes) -> dict[str, Any] | None:
    """A verified lobby message from ``sender`` (None: not a lobby message or forged)."""
    try:
        v = msgpack.unpackb(payload, raw=False, max_bin_len=1 << 20, max_array_len=64,
                            max_map_len=64)
    except Exception:
        return None
    if not (isinstance(v, list) and len(v) == 3 and v[0] == LOBBY
            and isinstance(v[1], bytes) and isinstance(v[2], bytes)):
        return None
    try:
        obj = msgpack.unpackb(v[1], raw=False, max_array_len=64, max_map_len=64)
    except Exception:
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("key"), bytes):
        return None
    key = obj["key"]
    if node_id_for(key) != sender or not verify_signature(key, v[2], _TAG + v[1]):
        log.warning("dropped a lobby message from %s: bad signature or key", sender.hex()[:16])
        return None
    return obj


def _clean_name(name: str) -> str:
    n = "".join(ch for ch in name if ch.isprintable()).strip()[:MAX_NAME]
    return n or "player"


class LobbyHost:
    """The host side: seat list, joins, readiness, the start."""

    def __init__(self, identity: Identity, name: str, node: Transport, rules: Rules,
                 seating: Seating, table_name: str = "", advertise: str | None = None) -> None:
        self.identity = identity
        self.node = node
        self.lobby_id = os.urandom(16)
        self.state = LobbyState(table_name or f"{name}'s table", rules, seating,
                                [None] * seating.n_players, identity.public_key, self.lobby_id)
        self.state.seats[0] = SeatInfo(_clean_name(name), identity.public_key, False, False,
                                       advertise or node.endpoint)
        self.members: dict[bytes, str] = {}     # node id -> endpoint (joiners not yet seated too)
        self.log: list[str] = []
        self.started: TableStart | None = None
        self.on_change: Callable[[LobbyState], None] | None = None

    # ----- the host's own actions ------------------------------------------------------
    def add_bot(self, identity: Identity, name: str, endpoint: str) -> int:
        free = self.state.free()
        if not free:
            raise LobbyError("no free seat for a bot")
        s = free[0]
        self.state.seats[s] = SeatInfo(_clean_name(name), identity.public_key, True, True,
                                       endpoint)
        self._changed(f"{name} (bot) sits at seat {s}")
        return s

    def set_ready(self, ready: bool = True) -> None:
        seat = self.state.seats[0]
        assert seat is not None
        seat.ready = ready
        self._changed(f"{seat.name} is {'ready' if ready else 'not ready'}")

    def all_ready(self) -> bool:
        return all(s is not None and s.ready for s in self.state.seats)

    # ----- running -----------------------------------------------------------------------
    def pump(self, timeout: float = 0.05) -> TableStart | None:
        """Handle joins and lobby messages; returns the start once everyone is ready."""
        if self.started is not None:
            return self.started
        for ev in self.node.events():
            if ev.kind is PeerEventKind.HELLO and ev.endpoint and len(ev.peer_id) == 33 \
                    and ev.peer_id[:1] == b"m" and ev.peer_id not in self.members:
                self.members[ev.peer_id] = ev.endpoint
                self.node.add_peer(ev.peer_id, ev.endpoint)
                self._send(ev.peer_id, {"k": "welcome"})
        msg = self.node.recv(timeout)
        while msg is not None:
            self._on(msg[0], msg[1])
            msg = self.node.recv(0)
        if self.all_ready():
            return self._start()
        return None

    def _on(self, sender: bytes, payload: bytes) -> None:
        obj = parse_lobby(sender, payload)
        if obj is None or obj.get("lobby") not in (self.lobby_id, None):
            return
        key: bytes = obj["key"]
        k = obj.get("k")
        seat = self._seat_of(key)
        if k == "join":
            if seat is None:
                free = self.state.free()
                want = obj.get("seat")
                if not free:
                    self._send(sender, {"k": "refused", "reason": "the table is full"})
                    return
                s = want if isinstance(want, int) and want in free else free[0]
                self.state.seats[s] = SeatInfo(_clean_name(str(obj.get("name", ""))), key,
                                               False, False, self.members.get(sender, ""))
                self._changed(f"{self.state.seats[s].name} sits at seat {s}")  # type: ignore[union-attr]
            else:
                self._broadcast_state()
        elif k == "sit" and seat is not None:
            want = obj.get("seat")
            if isinstance(want, int) and want in self.state.free():
                info = self.state.seats[seat]
                assert info is not None
                info.ready = False
                self.state.seats[seat], self.state.seats[want] = None, info
                self._changed(f"{info.name} moves to seat {want}")
        elif k == "ready" and seat is not None:
            info = self.state.seats[seat]
            assert info is not None
            info.ready = bool(obj.get("ready"))
            self._changed(f"{info.name} is {'ready' if info.ready else 'not ready'}")
        elif k == "leave" and seat is not None:
            info = self.state.seats[seat]
            self.state.seats[seat] = None
            self._changed(f"{info.name if info else '?'} leaves")

    def _seat_of(self, key: bytes) -> int | None:
        for i, s in enumerate(self.state.seats):
            if s is not None and s.key == key:
                return i
        return None

    def _changed(self, what: str) -> None:
        self.log.append(what)
        self._broadcast_state()
        if self.on_change is not None:
            self.on_change(self.state)

    def _targets(self) -> list[bytes]:
        return [nid for nid in self.members]

    def _broadcast_state(self) -> None:
        for nid in self._targets():
            self._send(nid, {"k": "state", "state": self.state.to_obj()})

    def _send(self, nid: bytes, obj: dict[str, Any]) -> None:
        obj = dict(obj, key=self.identity.public_key, lobby=self.lobby_id)
        try:
            self.node.send(nid, _sign(self.identity, obj))
        except Exception as exc:
            log.warning("lobby send failed: %s", exc)

    def _start(self) -> TableStart:
        st = self.state
        seats = [s for s in st.seats if s is not None]
        players = tuple(Player(i, s.name, s.key) for i, s in enumerate(seats))
        cfg = TableConfig(st.rules, st.seating, players, self.lobby_id)
        eps: dict[int, str] = {}
        for i, s in enumerate(seats):
            ep = s.endpoint or self.members.get(node_id_for(s.key), "")
            eps[i] = ep
        header = cfg.header().to_bytes()
        seated = {node_id_for(s.key) for s in seats}
        for nid in self._targets():
            if nid in seated:
                self._send(nid, {"k": "start", "header": header,
                                 "endpoints": {str(k): v for k, v in eps.items()}})
            else:
                self._send(nid, {"k": "refused", "reason": "the table started without you"})
        self.started = TableStart(cfg, 0, eps, [i for i, s in enumerate(seats) if s.bot])
        self.log.append("the match starts")
        return self.started


class LobbyClient:
    """A joiner: finds the host at ``HOST:PORT``, joins, sits, readies, waits for the start."""

    def __init__(self, identity: Identity, name: str, node: Transport, host: str,
                 host_fingerprint: str | None = None, seat: int | None = None) -> None:
        self.identity = identity
        self.name = _clean_name(name)
        self.node = node
        self.host_endpoint = parse_endpoint(host)
        self.host_fp = host_fingerprint
        self.want_seat = seat
        self.host_id: bytes | None = None
        self.state: LobbyState | None = None
        self.start: TableStart | None = None
        self.refused: str | None = None
        self.ready = False
        self.log: list[str] = []
        node.add_peer(_PLACEHOLDER, self.host_endpoint)   # heartbeats only: "I am here"

    def _port(self, ep: str) -> str:
        return ep.rsplit(":", 1)[-1]

    def pump(self, timeout: float = 0.05) -> TableStart | None:
        if self.start is not None:
            return self.start
        if self.refused is not None:
            raise LobbyError(self.refused)
        for ev in self.node.events():
            if (self.host_id is None and ev.kind is PeerEventKind.HELLO and ev.endpoint
                    and len(ev.peer_id) == 33 and ev.peer_id[:1] == b"m"
                    and self._port(ev.endpoint) == self._port(self.host_endpoint)):
                key = ev.peer_id[1:]
                if self.host_fp is not None and fingerprint(key) != self.host_fp:
                    log.warning("a peer at %s has fingerprint %s, not the announced %s",
                                ev.endpoint, fingerprint(key), self.host_fp)
                    continue
                self.host_id = ev.peer_id
                self.node.add_peer(ev.peer_id, self.host_endpoint)
                try:
                    self.node.remove_peer(_PLACEHOLDER)
                except Exception:
                    pass
                self._send({"k": "join", "name": self.name, "seat": self.want_seat,
                            "endpoint": self.node.endpoint})
        msg = self.node.recv(timeout)
        while msg is not None:
            if self._on(msg[0], msg[1]):
                break
            msg = self.node.recv(0)
        if self.refused is not None:
            raise LobbyError(self.refused)
        return self.start

    def _send(self, obj: dict[str, Any]) -> None:
        if self.host_id is None:
            return
        lobby = self.state.lobby_id if self.state is not None else None
        obj = dict(obj, key=self.identity.public_key, lobby=lobby)
        self.node.send(self.host_id, _sign(self.identity, obj))

    def sit(self, seat: int) -> None:
        self._send({"k": "sit", "seat": seat})

    def set_ready(self, ready: bool = True) -> None:
        self.ready = ready
        self._send({"k": "ready", "ready": ready})

    def leave(self) -> None:
        self._send({"k": "leave"})

    @property
    def seat(self) -> int | None:
        if self.state is None:
            return None
        for i, s in enumerate(self.state.seats):
            if s is not None and s.key == self.identity.public_key:
                return i
        return None

    def _on(self, sender: bytes, payload: bytes) -> bool:
        if sender != self.host_id:
            return False
        obj = parse_lobby(sender, payload)
        if obj is None:
            return False
        k = obj.get("k")
        if k == "state":
            try:
                self.state = LobbyState.from_obj(obj["state"])
            except (KeyError, TypeError, ValueError) as exc:
                log.warning("bad lobby state from the host: %s", exc)
                return False
            self.log.append("state")
        elif k == "refused":
            self.refused = str(obj.get("reason", "refused"))
            return True
        elif k == "start":
            self.start = self._check_start(obj)
            return True
        return False

    def _check_start(self, obj: dict[str, Any]) -> TableStart:
        raw = obj.get("header")
        if not isinstance(raw, bytes):
            raise LobbyError("the start carries no table")
        header = TranscriptHeader.from_obj(msgpack.unpackb(raw, raw=False))
        cfg = TableConfig.from_header(header)   # checks that the table id binds it all
        keys = [p.key for p in cfg.players]
        if self.identity.public_key not in keys:
            raise LobbyError("the table started without us")
        seat = keys.index(self.identity.public_key)
        if cfg.players[seat].name != self.name:
            raise LobbyError("the host changed our name")
        st = self.state
        if st is not None and (cfg.rules != st.rules or cfg.seating != st.seating
                               or cfg.nonce != st.lobby_id):
            raise LobbyError("the host started with other rules than agreed")
        eps = {int(k): str(v) for k, v in dict(obj.get("endpoints", {})).items()}
        eps[0] = self.host_endpoint
        # the host's in-process bots listen on the host's machine: reach them at its address
        host_addr = self.host_endpoint[len("tcp://"):].rsplit(":", 1)[0]
        for s, ep in eps.items():
            addr, _, port = ep[len("tcp://"):].rpartition(":")
            if addr in ("127.0.0.1", "0.0.0.0", "*", "[::]", "localhost") and s != seat:
                eps[s] = f"tcp://{host_addr}:{port}"
        return TableStart(cfg, seat, eps)


def wait_for(pump: Callable[[float], TableStart | None], timeout: float) -> TableStart | None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = pump(0.05)
        if got is not None:
            return got
    return None
