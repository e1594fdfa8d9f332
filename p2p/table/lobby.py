"""The lobby: players gather at a table, take seats, get ready; then the match starts.

The lobby runs over the same :class:`~p2p.net.transport.Node` the match will use (node id =
``node_id_for(key)``). Every lobby message is signed by its sender's identity key, and
the key must be the one its routing id names, so nobody can speak for another player.

* The **host** creates the table (rules, seating) and holds seat 0; it accepts joiners,
  keeps the seat list and sends the lobby state to every member after each change.
  Strangers get this far only: a HELLO makes one a *waiting* member (at most
  :data:`MAX_WAITING`, each for :data:`WAIT_FOR_JOIN` s), the transport rate-limits
  HELLOs, and the host can :meth:`LobbyHost.kick` a joiner.
* A **joiner** knows only ``[FINGERPRINT@]HOST:PORT`` (from ``--peer`` or DNS-SD). It
  opens a connection there under a placeholder id that only carries heartbeats; the host
  hears an unknown peer, adds it, and answers; the joiner hears the host's heartbeats,
  learns its real id (checking the fingerprint when it has one), then sends ``join`` with
  the lobby protocol version and a fresh random share of the table nonce. No answer in
  :data:`HOST_TIMEOUT` s is an error in words.
* Members ``sit`` (any free seat: a team seat is just a seat, side = seat mod teams),
  ``ready`` / unready, ``leave``. When every seat is taken and ready, the host sends
  ``start``: the table header (rules, seating, every player's name and key, the nonce
  that hashes every member's share — :func:`table_nonce` —; the table id hashes them all),
  the shares, and every seat's endpoint. Each member checks that it is seated as agreed,
  under the rules it saw and with its own share in the nonce, before it plays.
* Under CURVE (the node has a transport key) the joiner learns the host's key from its key
  door (or discovery), each ``join`` carries the joiner's certified transport key, which
  must be the one its connection proved, the header records every seat's key, and
  :func:`admit_table` closes the node to all but the seated keys.

Wire: ``[10, inner, sig]`` with ``inner`` = canonical msgpack of ``{"k": kind, "key":
sender key, "lobby": lobby id, ...}`` (exactly the fields of the kind: ``_KINDS``) and
``sig`` = Ed25519 over ``b"millebornes/lobby/v1\\0" + inner``. Kinds 0..3 are the session's
(p2p.table.session). Everything a peer sends is decoded within bounds and checked against
its schema before use (p2p.transcript.decoding); names and reasons go through
:func:`p2p.text.safe_text`.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import os
import re
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgpack

from engine import Rules, Seating
from engine.rules import RuleOptionError
from p2p.crypto.identity import (
    Identity,
    fingerprint,
    verify_curve_certificate,
    verify_signature,
)
from p2p.net import MAX_ALTERNATIVES, local_ipv4_addresses
from p2p.net.budget import TokenBucket
from p2p.net.interface import (
    PeerEventKind,
    PeerStatus,
    Transport,
    TransportError,
    parse_endpoint,
    parse_peer,
)
from p2p.table.config import (
    DECISION_LIMITS,
    DEFAULT_STEP_LIMIT,
    TableConfig,
    parse_header_bytes,
)
from p2p.table.session import admit_table as admit_table
from p2p.table.session import node_id_for
from p2p.table.wire import decode as wire_decode
from p2p.text import safe_text, shown_key, shown_keys
from p2p.transcript.decoding import (
    MAX_PLAYERS,
    Check,
    DecodeError,
    Limits,
    bounded_unpackb,
    check_map,
    is_any_map,
    is_bool,
    is_bytes,
    is_int,
    is_list,
    is_none_or,
    is_str,
    nested,
)
from p2p.transcript.envelope import canonical_packb
from p2p.transcript.file import Player

if TYPE_CHECKING:
    from p2p.net.transport import KeyDoorAsk

__all__ = ["LOBBY", "PROTOCOL_VERSION", "LobbyClient", "LobbyError", "LobbyHost", "LobbyState",
           "SeatInfo", "TableStart", "admit_table", "table_nonce"]

log = logging.getLogger("p2p.lobby")

LOBBY = 10
_TAG = b"millebornes/lobby/v1\x00"
_NONCE_TAG = b"millebornes/nonce/v1\x00"
_PLACEHOLDER = b"?host"
MAX_NAME = 24
#: The lobby protocol spoken; a joiner with another version is refused in words.
#: 2: the shares of a forced pile draw come before the draw (transcript version 3): peers
#: of version 1 would find each other's entries out of turn, so they must not sit together.
#: 3: each ``join`` carries the addresses its sender listens on (``addrs``, signed with
#: the join) and the ``start`` relays every joiner's last join (``joins``): a member
#: tries a seat at its own addresses too, not only at the one the host says
#: 4: the host follows its ``welcome`` with a ``challenge`` (a fresh nonce for that
#: member); a joiner sends nothing before it, and signs every message with the lobby id,
#: that nonce and a counter (``nonce``, ``n``): the host takes none signed for another
#: lobby, another connection, or older than the last it took from that member. A join
#: signed before the joiner knew the lobby, replayed at another lobby on plain ZeroMQ,
#: seated its player there (hostile pass 26's leftover)
PROTOCOL_VERSION = 4
#: Bytes of the host's challenge to each member (see PROTOCOL_VERSION 4).
CHALLENGE_BYTES = 16
#: How long a member whose transport says it restarted has to acknowledge the host's new
#: challenge where the host reaches it; past that its connection is dropped (its seat
#: kept), and its next HELLO says where it listens now.
RESTART_ANSWER = 3.0
#: How long a seated joiner on plain ZeroMQ waits, before it follows its host to a new
#: lobby, for a frame of the host's earlier session (one means the host still lives
#: there: the "new" one was a stranger's under its id).
SWITCH_QUIET = 2.0
#: A joiner whose join went out and that has no state of its lobby after this many
#: seconds says its join again (the host answers a repeated join with its state): on
#: plain ZeroMQ a frame injected into the host's own transport session, numbered as the
#: host's next, took the place of the state that seated it, and the joiner read "no table
#: answered" after 15 s while the host showed it seated (the review of pass 28)
JOIN_AGAIN = 3.0
#: Random bytes every member adds to the table nonce (see :func:`table_nonce`).
CONTRIB_BYTES = 16
#: Joiners the host keeps without a seat, and how long one may stay without joining.
MAX_WAITING = 8
WAIT_FOR_JOIN = 5.0
#: Lobby changes (sit, ready, leave) one member may make: a burst, then so many a second.
CHANGES_BURST = 10
CHANGES_PER_S = 2.0
#: Messages one pump of the host or a joiner handles at most, whatever arrives.
MAX_PER_PUMP = 256
#: Lines of a lobby's log kept (for whoever investigates; the screen shows the state).
LOG_KEPT = 200
#: How long a joiner waits for the host to answer before saying so.
HOST_TIMEOUT = 15.0
#: How long a seated joiner waits for a host its transport lost (no heartbeat: its player
#: left, or its computer is gone) before saying so; waiting for the others to sit and get
#: ready is the players' own time, but a host that is gone will never start the match.
HOST_LOST = 30.0
#: How long a joiner waits for the start once the host's own signed state shows every seat
#: taken and every player ready: an honest host starts in that very pump (or, when the
#: seats cannot make a table, says why and asks everyone to get ready again), so a host
#: that shows a full, ready table and starts nothing is stuck or holding the joiner there.
START_WAIT = 20.0
#: At least this long is left of that wait when the host comes back from gone (a start it
#: sent meanwhile is delivered once the connection is back).
BACK_GRACE = 5.0

_LOBBY_LIMITS = Limits(max_bytes=128 * 1024, max_depth=8, max_str=1024, max_bin=64 * 1024,
                       max_array=64, max_map=64, max_items=4096)
_MAX_REASON = 200
_LOCAL_ADDRS = ("127.0.0.1", "[::1]", "0.0.0.0", "[::]", "*", "localhost")


class LobbyError(Exception):
    """The host refused us, or the start does not match what was agreed.

    The message is English (logs); ``why`` and ``data`` say the same as data, for a console
    that words it in the player's language: ``table-full``, ``started-without-you``,
    ``asked-to-leave``, ``host-closed`` (the host quit its lobby), ``transport-key-mismatch``, ``transport-key-taken``, ``host-version`` (host, ours: the host
    refused our version), ``version`` (host, ours: we refuse the host's), ``host-said``
    (text: a refusal in the host's own words), ``host-key-mismatch`` (endpoint, key,
    expected), ``no-answer`` (endpoint, seconds, with_key), ``invalid-message`` (wrong),
    ``bad-start`` (detail: how the start differs from what was agreed, English), ``host-gone``
(endpoint, seconds: the seated joiner's transport lost the host),
    ``two-fingerprints`` (first, second); "" for the rest."""

    def __init__(self, message: str, why: str = "", /, **data: Any) -> None:
        super().__init__(message)
        self.why = why
        self.data = data


#: The host's refusals are fixed English sentences on the wire (protocol version 1): each
#: is a stable code, so a joiner can say it in its player's language (nothing else on the
#: wire depends on a language).
HOST_REFUSALS = {"the table is full": "table-full",
                 "the table started without you": "started-without-you",
                 "the host asked you to leave": "asked-to-leave",
                 "your transport key does not match your connection":
                     "transport-key-mismatch",
                 "your transport key is already another seat's": "transport-key-taken",
                 "the host closed the table": "host-closed"}
_HOST_VERSION = re.compile(r"this table speaks lobby protocol version (\S+) and you speak "
                           r"(\S+): both players need the same millebornes version")


def refusal_why(reason: str) -> tuple[str, dict[str, Any]]:
    """A host's refusal (its fixed English sentence) as a reason id and data."""
    if reason in HOST_REFUSALS:
        return HOST_REFUSALS[reason], {}
    m = _HOST_VERSION.fullmatch(reason)
    if m:
        return "host-version", {"host": m.group(1), "ours": m.group(2)}
    return "host-said", {"text": reason}


@dataclass
class SeatInfo:
    name: str
    key: bytes
    ready: bool = False
    bot: bool = False
    endpoint: str = ""
    contrib: bytes = b""
    curve: tuple[bytes, bytes] | None = None   # transport key and its certificate
    #: the joiner's last ``join`` as it signed it (the start relays it: its addresses)
    signed_join: bytes = b""

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


_SEAT = nested({"name": is_str(MAX_NAME * 4), "key": is_bytes(32), "ready": is_bool(),
                "bot": is_bool()})
_STATE = nested({"name": is_str(240), "rules": is_any_map(64),
                 "seating": is_list(is_int(1, MAX_PLAYERS), min_len=2, max_len=2),
                 "host": is_bytes(32), "lobby": is_bytes(16),
                 "seats": is_list(is_none_or(_SEAT), min_len=2, max_len=MAX_PLAYERS)},
                # a time limit for each player's move, in ms (absent: moves untimed)
                {"move_limit": is_int(round(DECISION_LIMITS[0] * 1000),
                                      round(DECISION_LIMITS[1] * 1000))})
_COMMON = {"k": is_str(16), "key": is_bytes(32), "lobby": is_none_or(is_bytes(16))}
#: What binds a joiner's message to one connection to one lobby (protocol 4): the host's
#: challenge to that member and the message's place in what the member sent under it.
#: (Optional to the schema: a join the host signs for its own bot carries none; the host
#: takes no message of a member without them.)
_FRESH: dict[str, Check] = {"nonce": is_bytes(CHALLENGE_BYTES), "n": is_int(1, 1 << 62)}
#: What binds a host's message to one joiner (protocol 4; all but the welcome): that
#: joiner's key and the message's place in what the host sent (a joiner takes none for
#: another player, and none older than the last it took)
_TO: dict[str, Check] = {"to": is_bytes(32), "n": is_int(1, 1 << 62)}
#: Every lobby message kind and its exact fields (besides k, key, lobby).
_KINDS: dict[str, tuple[dict[str, Check], dict[str, Check]]] = {
    "welcome": ({"v": is_int(0, 1 << 16)}, {}),
    # (a kind of its own, after the welcome: a joiner of an older version reads the
    # welcome's version first and says so in words, never "an invalid message")
    "challenge": ({"nonce": is_bytes(CHALLENGE_BYTES), **_TO}, {}),
    "join": ({"name": is_str(MAX_NAME * 4), "v": is_int(0, 1 << 16),
              "contrib": is_bytes(CONTRIB_BYTES)},
             {"seat": is_none_or(is_int(0, MAX_PLAYERS - 1)), "endpoint": is_str(300),
              "curve": is_list(is_bytes(max_len=64), min_len=2, max_len=2),
              # (an IPv6 literal endpoint has 53 characters at most)
              "addrs": is_list(is_str(64), max_len=MAX_ALTERNATIVES), **_FRESH}),
    "sit": ({"seat": is_int(0, MAX_PLAYERS - 1)}, _FRESH),
    "ready": ({"ready": is_bool()}, _FRESH),
    "leave": ({}, _FRESH),
    "state": ({"state": _STATE}, _TO),
    "refused": ({"reason": is_str(1000)}, _TO),
    "start": ({"header": is_bytes(max_len=64 * 1024),
               "endpoints": is_any_map(MAX_PLAYERS),
               "contribs": is_list(is_bytes(CONTRIB_BYTES), min_len=2, max_len=MAX_PLAYERS)},
              {"joins": is_any_map(MAX_PLAYERS), **_TO}),
}


def table_nonce(lobby_id: bytes, contribs: list[bytes]) -> bytes:
    """The table nonce: the host's lobby id and every seat's own random contribution, in
    seat order, hashed.  A member that sees its fresh contribution in the list knows the
    table id is new, so a hostile host cannot reuse an old table id to turn that member's
    old signed entries into a fake equivocation."""
    h = hashlib.sha256(_NONCE_TAG + lobby_id)
    for c in contribs:
        h.update(c)
    return h.digest()[:16]


@dataclass
class LobbyState:
    table_name: str
    rules: Rules
    seating: Seating
    seats: list[SeatInfo | None]
    host_key: bytes
    lobby_id: bytes
    #: seconds each player has for a move (None: untimed), shown to whoever joins and
    #: written into the table's header at the start: a player who stops moving while
    #: their computer still answers then pauses the table instead of holding it for ever
    move_limit: float | None = None

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
                out.append(f"seat {i}{team}: {safe_text(s.name)} [{s.fingerprint}]"
                           + (" (bot)" if s.bot else "") + (" ready" if s.ready else ""))
        return out

    def to_obj(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.table_name, "rules": self.rules.to_dict(),
            "seating": [self.seating.n_players, self.seating.n_teams],
            "host": self.host_key, "lobby": self.lobby_id,
            "seats": [None if s is None else {"name": s.name, "key": s.key,
                                              "ready": s.ready, "bot": s.bot}
                      for s in self.seats]}
        if self.move_limit is not None:
            out["move_limit"] = round(self.move_limit * 1000)
        return out

    @classmethod
    def from_obj(cls, v: Any) -> LobbyState:
        """A state received from the host: schema-checked, names sanitised.  Raises
        ValueError."""
        v = _STATE(v, "state")
        seating = Seating(*v["seating"])
        if len(v["seats"]) != seating.n_players:
            raise ValueError("the seat list does not match the seating")
        seats: list[SeatInfo | None] = []
        for s in v["seats"]:
            seats.append(None if s is None else SeatInfo(_clean_name(s["name"]), s["key"],
                                                         s["ready"], s["bot"]))
        # the host sits at seat 0 and a key at one seat (its lobby seats nobody twice): a
        # state listing the joiner's own key at two seats, or the host's seat free, was
        # shown as it came, a table no start could match, and waited on without limit
        # (hostile pass 27)
        if seats[0] is None or seats[0].key != v["host"]:
            raise ValueError("seat 0 is not the host's")
        keys = [s.key for s in seats if s is not None]
        if len(set(keys)) != len(keys):
            twice = next(i for i, s in enumerate(seats)
                         if s is not None and keys.count(s.key) > 1)
            raise ValueError(f"seat {twice}'s key sits at another seat too")
        try:
            rules = Rules.from_dict(dict(v["rules"]))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"bad rules: {exc}") from None
        limit = v.get("move_limit")
        return cls(safe_text(v["name"], 60), rules, seating, seats, v["host"], v["lobby"],
                   None if limit is None else limit / 1000)


@dataclass
class TableStart:
    """The agreed table: what a member needs to create its :class:`~p2p.session.Peer`."""

    cfg: TableConfig
    seat: int
    endpoints: dict[int, str]
    bots: list[int] = field(default_factory=list)
    #: other addresses each seat signed itself (its join): tried when the one in
    #: ``endpoints`` answers nothing (a host cannot cut two joiners off by lying)
    alternatives: dict[int, tuple[str, ...]] = field(default_factory=dict)


def _sign(identity: Identity, obj: dict[str, Any]) -> bytes:
    inner = canonical_packb(obj)
    out = msgpack.packb([LOBBY, inner, identity.sign(_TAG + inner)], use_bin_type=True)
    assert isinstance(out, bytes)
    return out


def parse_lobby(sender: bytes, payload: bytes) -> dict[str, Any] | None:
    """A verified lobby message from ``sender`` (None: not a lobby message, forged, or
    not exactly the fields of its kind).  Bounded decode first, the signature next, the
    schema last."""
    return _parse_lobby(sender, payload)[0]


def _parse_lobby(sender: bytes, payload: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """``(message, None)``, ``(None, None)`` for anything unsigned or forged, or
    ``(None, what is wrong)`` for a message its sender did sign but that is off-schema:
    from the host, that is a broken or hostile host, and the joiner stops in words."""
    try:
        v = bounded_unpackb(payload, _LOBBY_LIMITS)
    except DecodeError:
        return None, None
    if not (isinstance(v, list) and len(v) == 3 and v[0] == LOBBY
            and isinstance(v[1], bytes) and isinstance(v[2], bytes)):
        return None, None
    try:
        obj = bounded_unpackb(v[1], _LOBBY_LIMITS)
    except DecodeError:
        return None, None
    if not isinstance(obj, dict) or not isinstance(obj.get("key"), bytes):
        return None, None
    key = obj["key"]
    if node_id_for(key) != sender or not verify_signature(key, v[2], _TAG + v[1]):
        log.warning("dropped a lobby message from %s: bad signature or key", sender.hex()[:16])
        return None, None
    kind = obj.get("k")
    spec = _KINDS.get(kind) if isinstance(kind, str) else None
    if spec is None:
        log.warning("dropped a lobby message from %s: unknown kind", sender.hex()[:16])
        return None, f"unknown message kind {safe_text(kind, 16)!r}"
    try:
        checked = check_map(obj, {**_COMMON, **spec[0]}, spec[1])
    except DecodeError as exc:
        log.warning("dropped a lobby %s from %s: %s", kind, sender.hex()[:16], exc)
        return None, f"{kind}: {safe_text(str(exc))}"
    if canonical_packb(obj) != v[1]:
        # only its one encoding is signed: a join padded with a repeated key decoded as
        # the join, but the start that relays it (lobby protocol 3) grew past what a
        # member reads, and every member dropped the start in silence (the review)
        log.warning("dropped a lobby %s from %s: not in canonical form", kind,
                    sender.hex()[:16])
        return None, f"{kind}: not in canonical form"
    return checked, None


def _clean_name(name: object) -> str:
    name = safe_text(name, MAX_NAME, placeholder="player")
    # a name of Hangul fillers alone shows nothing, a blank seat (hostile pass 22)
    return name if shown_key(name) else "player"


def _unique_name(name: str, taken: list[str]) -> str:
    """``name``, or ``name 2``, ``name 3``… when a seated player has it already (case
    aside): two "Hosty" made "Final scores: Hosty 4300, Hosty 5750. Winner: Hosty." say
    nothing of who won. Names are compared as a screen shows them (:func:`shown_keys`):
    "Ann" followed by a variation selector sat as a second "Ann" (hostile pass 22), and
    "Аnn" written with a Cyrillic "А" as another (stop 52)."""
    used = frozenset().union(*(shown_keys(t) for t in taken))
    if used.isdisjoint(shown_keys(name)):
        return name
    for n in range(2, 100):
        tail = f" {n}"
        candidate = name[:MAX_NAME - len(tail)].rstrip() + tail
        if used.isdisjoint(shown_keys(candidate)):
            return candidate
    return name     # 98 namesakes: a table seats 16 at most, so never


def namesakes_name(seated: str, asked: str) -> bool:
    """Is ``seated`` a name :func:`_unique_name` gives a player who asked for ``asked``
    while namesakes sat at the table ("Ann 2", "Ann 3"…, cut to fit)? The joiner checks the
    start against it (it refused a start that seated it as "Ann 2" at Ann's table), and
    ``cli.join`` says why a player was seated so."""
    name = _clean_name(asked)
    taken = [name]
    for _n in range(100):          # the lobby numbers up to 99
        given = _unique_name(name, taken)
        if given in taken:
            return False
        if given == seated:
            return True
        taken.append(given)
    return False


class LobbyHost:
    """The host side: seat list, joins, readiness, the start.

    Strangers are only let in this far: a HELLO from an unknown id makes it a *waiting*
    member (at most :data:`MAX_WAITING`, the longest waiting one dropped to make room,
    and any dropped after :data:`WAIT_FOR_JOIN` s without a valid ``join``); the
    transport already rate-limits HELLOs from unknown ids and refuses endpoints that are
    not IP addresses."""

    def __init__(self, identity: Identity, name: str, node: Transport, rules: Rules,
                 seating: Seating, table_name: str = "", advertise: str | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 move_limit: float | None = None) -> None:
        """``move_limit``: seconds each player has for a move (None: untimed); shown in
        the lobby and written into the table's header. ValueError outside
        :data:`~p2p.table.config.DECISION_LIMITS`."""
        if move_limit is not None:
            lo, hi = DECISION_LIMITS
            if not lo <= move_limit <= hi:
                raise ValueError(f"a move's time limit is {lo:g} to {hi:g} s, not "
                                 f"{move_limit:g}")
            move_limit = round(move_limit * 1000) / 1000
        self.identity = identity
        self.node = node
        self.lobby_id = os.urandom(16)
        self.clock = clock
        self.state = LobbyState(safe_text(table_name, 60, placeholder="")
                                or f"{_clean_name(name)}'s table", rules, seating,
                                [None] * seating.n_players, identity.public_key, self.lobby_id,
                                move_limit)
        self.secure = node.curve_key is not None   # CURVE: every connection has a proven key
        if self.secure and node.curve_key != identity.curve_keys().public:
            raise LobbyError("the node's CURVE key is not this identity's transport key")
        self.state.seats[0] = SeatInfo(_clean_name(name), identity.public_key, False, False,
                                       advertise or node.endpoint, os.urandom(CONTRIB_BYTES),
                                       _curve_of(identity) if self.secure else None)
        self.members: dict[bytes, str] = {}     # node id -> endpoint (joiners not yet seated too)
        self._member_keys: dict[bytes, bytes] = {}   # node id -> CURVE key its connection proved
        self._waiting_since: dict[bytes, float] = {}   # members without a seat yet
        #: the latest things that happened, for whoever investigates (bounded)
        self.log: deque[str] = deque(maxlen=LOG_KEPT)
        self._budget: dict[bytes, TokenBucket] = {}   # member -> its change budget
        #: member -> the nonce its messages must carry, and the last counter taken with it
        self._challenges: dict[bytes, bytes] = {}
        self._last_n: dict[bytes, int] = {}
        # the challenge of a member dropped for never joining, and when: still taken for
        # :data:`WAIT_FOR_JOIN` s from that member met again (a slow link's join, bound
        # to it, arrived after the drop: each meeting gave a new nonce and the join never
        # converged at a one-way delay of 2.4 s: the review of pass 28)
        self._expired_challenge: dict[bytes, tuple[bytes, float]] = {}
        #: members whose transport restarted -> since when the host waits for their ack,
        #: and how many frames of an earlier session of theirs the transport had dropped
        self._restarted: dict[bytes, tuple[float, int]] = {}
        self._sent = 0          # the host's messages so far (each carries its number)
        self.ignored: dict[str, int] = {}   # strangers turned away, by reason
        self.banned: set[bytes] = set()      # keys kicked out of this lobby
        self.started: TableStart | None = None
        self.on_change: Callable[[LobbyState], None] | None = None

    # ----- the host's own actions ------------------------------------------------------
    def add_bot(self, identity: Identity, name: str, endpoint: str) -> int:
        free = self.state.free()
        if not free:
            raise LobbyError("no free seat for a bot")
        s = free[0]
        contrib = os.urandom(CONTRIB_BYTES)
        # the bot's own join, signed with its key as a joiner's is: every member requires
        # one for each seat but the host's, whatever the state says of the seat (a host
        # that told Ann Bo's seat was a bot's, and Bo the same of Ann's, left both joins
        # out and cut them off again: the review of lobby protocol 3)
        join = {"k": "join", "name": _clean_name(name), "v": PROTOCOL_VERSION,
                "contrib": contrib, "endpoint": endpoint, "addrs": own_addresses(endpoint),
                "key": identity.public_key, "lobby": self.lobby_id}
        self.state.seats[s] = SeatInfo(_clean_name(name), identity.public_key, True, True,
                                       endpoint, contrib,
                                       _curve_of(identity) if self.secure else None,
                                       _sign(identity, join))
        self._changed(f"{_clean_name(name)} (bot) sits at seat {s}")
        return s

    def set_ready(self, ready: bool = True) -> None:
        seat = self.state.seats[0]
        assert seat is not None
        seat.ready = ready
        self._changed(f"{seat.name} is {'ready' if ready else 'not ready'}")

    def all_ready(self) -> bool:
        return all(s is not None and s.ready for s in self.state.seats)

    def kick(self, seat: int, reason: str = "the host asked you to leave") -> None:
        """Free a joiner's seat and turn its key away for the rest of this lobby (a
        stranger squatting seats, an unwanted player: only the host can tell)."""
        info = self.state.seats[seat] if 0 < seat < len(self.state.seats) else None
        if info is None or info.bot:
            raise LobbyError(f"no joiner at seat {seat}")
        nid = node_id_for(info.key)
        self.banned.add(info.key)
        self.state.seats[seat] = None
        self._send(nid, {"k": "refused", "reason": safe_text(reason, _MAX_REASON)})
        self._waiting_since[nid] = self.clock() - WAIT_FOR_JOIN + 1.0   # dropped soon
        self._changed(f"{info.name} was asked to leave")

    def close(self, flush: float = 1.0) -> None:
        """Tell every member the table is closed before the match (its host quit the
        lobby), waiting at most ``flush`` seconds for their acknowledgements: a seated
        joiner otherwise heard nothing and said the table had stopped answering only
        after ``host_lost`` seconds of silence."""
        for nid in self._targets():
            self._send(nid, {"k": "refused", "reason": "the host closed the table"})
        try:
            self.node.flush(flush)
        except Exception as exc:                   # a closed node: nothing more to tell
            log.warning("lobby close: %s", exc)

    # ----- running -----------------------------------------------------------------------
    def pump(self, timeout: float = 0.05) -> TableStart | None:
        """Handle joins and lobby messages; returns the start once everyone is ready."""
        if self.started is not None:
            return self.started
        for ev in self.node.events():
            if ev.kind is PeerEventKind.HELLO:
                self._on_hello(ev.peer_id, ev.endpoint, ev.curve_key, ev.proof)
            elif ev.kind is PeerEventKind.RESTARTED and ev.peer_id in self.members:
                self._restarted[ev.peer_id] = (self.clock(), self._stale_frames(ev.peer_id))
                self._welcome(ev.peer_id)
        self._check_restarted()
        self._expire_waiting()
        msg = self.node.recv(timeout)
        handled = 0
        while msg is not None:
            self._on(msg[0], msg[1])
            handled += 1
            if handled >= MAX_PER_PUMP:      # bounded work per pump, whatever arrives
                break
            msg = self.node.recv(0)
        if self.all_ready():
            try:
                return self._start()
            except ValueError as exc:
                # seats this table cannot be made of (checked by TableConfig): nobody
                # starts, everyone is asked to get ready again, the host says why
                for info in self.state.seats:
                    if info is not None and info.key != self.identity.public_key:
                        info.ready = False
                self._changed(f"the table cannot start: {exc}")
        return None

    def _ignore(self, why: str) -> None:
        self.ignored[why] = self.ignored.get(why, 0) + 1

    def _on_hello(self, nid: bytes, endpoint: str | None, curve_key: bytes | None = None,
                  proof: bytes | None = None) -> None:
        if not endpoint or len(nid) != 33 or nid[:1] != b"m":
            self._ignore("not a player id")
            return
        if nid == self.node.node_id or nid[1:] == self.identity.public_key:
            self._ignore("our own id")
            return
        if nid in self.members:
            return
        if len(self._waiting_since) >= MAX_WAITING:
            # make room by dropping the stranger that has waited longest: a flood of fresh
            # ids then cannot keep the door shut, since an honest joiner needs only one
            # round trip between welcome and join
            oldest = min(self._waiting_since, key=lambda k: self._waiting_since[k])
            self._drop_member(oldest)
            self._ignore("evicted while waiting")
        if self.secure and curve_key is None:
            self._ignore("no transport key")
            return
        if self.secure and (proof is None or curve_key is None
                            or not verify_curve_certificate(nid[1:], curve_key, proof)):
            # the id is bound to the connection's key below: only to a key the id's owner
            # certified. A stranger that said HELLO every 50 ms under a known player's id
            # (public keys are in every lobby state) got it bound to its own key first,
            # and the player's frames were dropped as spoofed: kept out for as long as it
            # went on
            self._ignore("unproven id")
            return
        try:
            if curve_key is not None:
                self.node.expect_key(nid, curve_key)
                self._member_keys[nid] = curve_key
            self.node.add_peer(nid, endpoint)
        except (TransportError, ValueError) as exc:
            self._ignore("bad endpoint")
            log.warning("lobby: cannot add %s at %s: %s", nid.hex()[:16], endpoint[:60], exc)
            return
        self.members[nid] = endpoint
        self._waiting_since[nid] = self.clock()
        self._welcome(nid)

    def _welcome(self, nid: bytes) -> None:
        """Say the lobby's version, then a fresh challenge: what this member sends from
        now on must carry it (with this lobby's id and a rising counter), so nothing it
        signed for another lobby, or on another connection, is taken here."""
        self._challenges[nid] = os.urandom(CHALLENGE_BYTES)
        self._last_n[nid] = 0
        old = self._expired_challenge.pop(nid, None)
        if old is not None and self.clock() - old[1] <= WAIT_FOR_JOIN:
            self._expired_challenge[nid] = old       # (taken again for a while: above)
        self._send(nid, {"k": "welcome", "v": PROTOCOL_VERSION})
        self._send(nid, {"k": "challenge", "nonce": self._challenges[nid]})

    def _check_restarted(self) -> None:
        """A member whose transport restarted (a new session under its id) was told a new
        challenge where the host reaches it. Acknowledged there: it lives there (a
        stranger's HELLO under its id changes nothing). Not within
        :data:`RESTART_ANSWER` s: its player ran ``join`` again, maybe on another port,
        and the host's connection goes to a program that is gone; dropped, its seat kept,
        so that its next HELLO, an unknown peer's, is answered where it listens now. (The
        host had kept dialling the old port: a joiner restarted on a new port read "no
        table answered" after 15 s, and its seat stayed taken by nobody: the review of
        pass 33.)"""
        pending = getattr(self.node, "pending", None)
        now = self.clock()
        for nid, (since, stale) in list(self._restarted.items()):
            if nid not in self.members or not callable(pending) or pending(nid) == 0:
                del self._restarted[nid]
            elif now - since > RESTART_ANSWER:
                del self._restarted[nid]
                if self._stale_frames(nid) > stale:
                    # its earlier session still talks: the "restart" was a stranger's
                    # HELLO under its id (plain ZeroMQ), and the player's program lives
                    # where we reach it (the transport takes its session back once the
                    # stranger stops); dropped, the player heard nothing more from us
                    continue
                log.info("lobby: %s restarted and does not answer where we reach it: "
                         "waiting for its HELLO", nid.hex()[:16])
                self._drop_member(nid)

    def _stale_frames(self, nid: bytes) -> int:
        """Frames of an earlier session of ``nid`` its transport dropped so far."""
        stats = getattr(self.node, "stats", None)
        if not callable(stats):
            return 0
        return int(stats().get(nid, {}).get("stale_session", 0))

    def _expire_waiting(self) -> None:
        now = self.clock()
        for nid, since in list(self._waiting_since.items()):
            if now - since > WAIT_FOR_JOIN:
                nonce = self._challenges.get(nid)
                self._drop_member(nid)
                self._ignore("never joined")
                if nonce is not None:
                    self._expired_challenge[nid] = (nonce, now)
        for nid, (_, at) in list(self._expired_challenge.items()):
            if now - at > WAIT_FOR_JOIN:
                del self._expired_challenge[nid]

    def _drop_member(self, nid: bytes) -> None:
        self._waiting_since.pop(nid, None)
        self.members.pop(nid, None)
        self._member_keys.pop(nid, None)
        self._budget.pop(nid, None)
        self._challenges.pop(nid, None)
        self._last_n.pop(nid, None)
        self._restarted.pop(nid, None)
        try:
            self.node.remove_peer(nid)
        except (TransportError, ValueError):
            pass

    def _on(self, sender: bytes, payload: bytes) -> None:
        obj = parse_lobby(sender, payload)
        if obj is None:
            return
        key: bytes = obj["key"]
        k = obj["k"]
        if k == "join" and obj["v"] != PROTOCOL_VERSION and sender in self.members:
            if self._seat_of(key) is not None or self._last_n.get(sender, 0) != 0:
                # a seated player's, or one whose connection sent a valid message: not
                # an older program's first word but a replay (a join of another version
                # Ben once signed stopped him, his seat left ready: the review of pass 28)
                self._ignore("stale or replayed")
                return
            # an older (or newer) program: told in words, whatever else it carries (it
            # knows no challenge); sent where this member's connection goes, and nothing
            # changes here
            self._send(sender, {"k": "refused", "reason":
                                f"this table speaks lobby protocol version "
                                f"{PROTOCOL_VERSION} and you speak {obj['v']}: "
                                f"both players need the same millebornes version"})
            self._drop_member(sender)
            return
        if not self._fresh(sender, obj):
            return
        if key in self.banned:
            if k == "join" and self._spend(sender):
                # told again, not ignored: a player sent away who ran join again waited
                # 15 s for "no table answered ... is the table still open?" (the review
                # of hostile pass 27)
                self._send(sender, {"k": "refused", "reason": "the host asked you to leave"})
                self._drop_member(sender)
            return
        seat = self._seat_of(key)
        # a first join is free (a newcomer always gets a seat's answer); a join from a key
        # that sits already is a change like any other: 600 of them, each with a fresh
        # contribution, made 600 redraws, announcements and broadcasts
        if (k != "join" or seat is not None) and not self._spend(sender):
            self._ignore("too many changes")   # the host's screen and announcement follow
            return                            # every change: one member may not flood them
        if k == "join":
            curve: tuple[bytes, bytes] | None = None
            if self.secure:
                c = obj.get("curve")
                if (c is None or c[0] != self._member_keys.get(sender)
                        or not verify_curve_certificate(key, c[0], c[1])):
                    self._send(sender, {"k": "refused", "reason":
                                        "your transport key does not match your connection"})
                    return
                if any(s is not None and s.key != key and s.curve is not None
                       and s.curve[0] == c[0] for s in self.state.seats):
                    # two seats on one transport key make no table (TableConfig refuses it)
                    self._send(sender, {"k": "refused", "reason":
                                        "your transport key is already another seat's"})
                    return
                curve = (c[0], c[1])
            if seat is None:
                free = self.state.free()
                want = obj.get("seat")
                if not free:
                    self._send(sender, {"k": "refused", "reason": "the table is full"})
                    return
                s = want if isinstance(want, int) and want in free else free[0]
                self._waiting_since.pop(sender, None)
                name = _unique_name(_clean_name(obj["name"]),
                                    [x.name for x in self.state.seats if x is not None])
                self.state.seats[s] = SeatInfo(name, key, False, False,
                                               self.members.get(sender, ""), obj["contrib"],
                                               curve, payload)
                self._changed(f"{self.state.seats[s].name} sits at seat {s}")  # type: ignore[union-attr]
            else:
                # (a seated player's new connection: met as a newcomer, it must not expire)
                self._waiting_since.pop(sender, None)
                info = self.state.seats[seat]
                assert info is not None
                info.signed_join = payload       # its contribution and addresses with it
                if info.contrib != obj["contrib"]:
                    info.contrib = obj["contrib"]
                    info.ready = False
                    self._changed(f"{info.name} joined again")
                else:
                    self._broadcast_state()
        elif k == "sit" and seat is not None:
            want = obj["seat"]
            if want in self.state.free():
                info = self.state.seats[seat]
                assert info is not None
                info.ready = False
                self.state.seats[seat], self.state.seats[want] = None, info
                self._changed(f"{info.name} moves to seat {want}")
        elif k == "ready" and seat is not None:
            info = self.state.seats[seat]
            assert info is not None
            if info.ready != obj["ready"]:     # the same again changes nothing
                info.ready = obj["ready"]
                self._changed(f"{info.name} is {'ready' if info.ready else 'not ready'}")
        elif k == "leave" and seat is not None and seat != 0:
            info = self.state.seats[seat]
            self.state.seats[seat] = None
            self._waiting_since[sender] = self.clock()   # may join again, else expires
            self._changed(f"{info.name if info else '?'} leaves")

    def _fresh(self, sender: bytes, obj: dict[str, Any]) -> bool:
        """Was ``obj`` signed for this lobby, under the challenge this member's connection
        was given, and after the last message taken from it? Anything else is a replay
        (plain ZeroMQ: frames travel in the clear, and an id is a claim): a join Bo signed
        for another table seated him at this one, an old ``ready`` made him ready again
        after he said unready, an old ``join`` seated him again after he left."""
        nonce = self._challenges.get(sender)
        n = obj.get("n")
        old = self._expired_challenge.get(sender)
        taken = nonce is not None and (obj.get("nonce") == nonce or (
            old is not None and obj.get("nonce") == old[0]
            and self.clock() - old[1] <= WAIT_FOR_JOIN))
        if (obj["lobby"] != self.lobby_id or not taken
                or not isinstance(n, int) or n <= self._last_n.get(sender, 0)):
            self._ignore("stale or replayed")
            log.warning("lobby: dropped a %s from %s signed for another lobby, connection "
                        "or moment", obj["k"], sender.hex()[:16])
            return False
        self._last_n[sender] = n
        return True

    def _spend(self, sender: bytes) -> bool:
        """One lobby change from ``sender`` if its budget allows (a burst of
        :data:`CHANGES_BURST`, then :data:`CHANGES_PER_S` a second)."""
        budget = self._budget.setdefault(sender, TokenBucket(CHANGES_PER_S, CHANGES_BURST))
        return budget.take(self.clock())

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
        if obj["k"] != "welcome":
            # to that member, in order (protocol 4): on plain ZeroMQ a machine on the LAN
            # replayed the host's state, or a refusal, sent to another member or earlier,
            # to a joiner under the host's id (an old state made the joiner refuse the
            # honest start as not what the lobby showed, blaming the host)
            self._sent += 1
            obj.update(to=nid[1:], n=self._sent)
        try:
            self.node.send(nid, _sign(self.identity, obj))
        except Exception as exc:
            log.warning("lobby send failed: %s", exc)

    def _start(self) -> TableStart:
        st = self.state
        seats = [s for s in st.seats if s is not None]
        players = tuple(Player(i, s.name, s.key) for i, s in enumerate(seats))
        contribs = [s.contrib for s in seats]
        curve = tuple(s.curve for s in seats if s.curve is not None) if self.secure else ()
        cfg = TableConfig(st.rules, st.seating, players, table_nonce(self.lobby_id, contribs),
                          curve, decision_limit=st.move_limit)
        eps: dict[int, str] = {}
        for i, s in enumerate(seats):
            ep = s.endpoint or self.members.get(node_id_for(s.key), "")
            eps[i] = ep
        header = cfg.header().to_bytes()
        seated = {node_id_for(s.key) for s in seats}
        joins = {str(i): s.signed_join for i, s in enumerate(seats) if s.signed_join}
        for nid in self._targets():
            if nid in seated:
                self._send(nid, {"k": "start", "header": header, "contribs": contribs,
                                 "endpoints": {str(k): v for k, v in eps.items()},
                                 "joins": joins})
            else:
                self._send(nid, {"k": "refused", "reason": "the table started without you"})
        if self.secure:
            self.node.flush(0.5)          # the start reaches every member first
            admit_table(self.node, cfg)
        own = {i: addresses_beside(eps[i], addrs=_signed_addresses(s.signed_join, s.key,
                                                                   s.contrib) or ())
               for i, s in enumerate(seats) if s.signed_join}
        self.started = TableStart(cfg, 0, eps, [i for i, s in enumerate(seats) if s.bot],
                                  {i: a for i, a in own.items() if a})
        self.log.append("the match starts")
        return self.started


class LobbyClient:
    """A joiner: finds the host at ``[FINGERPRINT@]HOST:PORT``, joins, sits, readies, waits
    for the start.

    ``host_fingerprint`` (from ``FINGERPRINT@HOST:PORT`` or discovery) must match the key
    that answers there; without one the first key met is trusted and shown
    (:attr:`host_key`).  No answer within ``host_timeout`` seconds is a
    :class:`LobbyError` (a dead or spoofed announcement is never waited on forever)."""

    def __init__(self, identity: Identity, name: str, node: Transport, host: str,
                 host_fingerprint: str | None = None, seat: int | None = None,
                 host_timeout: float = HOST_TIMEOUT,
                 clock: Callable[[], float] = time.monotonic,
                 host_curve_key: bytes | None = None) -> None:
        self.identity = identity
        self.name = _clean_name(name)
        self.node = node
        fp, self.host_endpoint = parse_peer(host)     # [FINGERPRINT@]HOST:PORT
        if fp is not None and host_fingerprint is not None and fp != host_fingerprint:
            raise LobbyError(f"two fingerprints for the host: {fp} and {host_fingerprint}",
                             "two-fingerprints", first=fp, second=host_fingerprint)
        self.host_fp = host_fingerprint or fp
        self.want_seat = seat
        self.host_id: bytes | None = None
        self.state: LobbyState | None = None
        self.start: TableStart | None = None
        self.refused: str | None = None
        #: why, as data (see :class:`LobbyError`)
        self.refused_why: tuple[str, dict[str, Any]] = ("", {})
        self.ready = False
        #: the table's terms (rules, seating, move limit) as shown when this player last
        #: said ready: a start on other terms is refused, even when the host's very last
        #: state showed them (a hostile host switched them just before its start, faster
        #: than the console shows a state)
        self._ready_terms: tuple[Any, ...] | None = None
        self.log: deque[str] = deque(maxlen=LOG_KEPT)
        self.clock = clock
        self.host_timeout = host_timeout
        self.host_lost = HOST_LOST
        self._since = clock()
        self._host_gone_since: float | None = None   # the host's transport said GONE
        #: since when the host's last state showed every seat taken and ready (None: not)
        self._ready_since: float | None = None
        self._back_at: float | None = None         # the host's last return from gone
        self._drained_at = clock()                  # the queue was last read to its end
        self.start_wait = START_WAIT
        #: messages from the host that were no signed lobby message (plain ZeroMQ only:
        #: there a frame's sender is a claim anyone can make, so they are counted, not held
        #: against the host)
        self.unreadable = 0
        self.contrib = os.urandom(CONTRIB_BYTES)   # my share of the table nonce
        #: the lobby and the host's challenge to this connection (protocol 4): nothing is
        #: sent before them, everything after carries them and a rising counter
        self.lobby_id: bytes | None = None
        self._nonce: bytes | None = None
        self._n = 0
        self._host_n = 0        # the number of the host's last message taken
        #: the host's transport session when its last challenge was taken (another one
        #: since: its program ran again, and a challenge of a new lobby is followed, even
        #: by a seated joiner)
        self._host_session: bytes | None = None
        #: a new lobby's challenge waiting to be followed (plain ZeroMQ): the message,
        #: since when, and the host's stale frames then
        self._switch: tuple[dict[str, Any], float, int] | None = None
        # when this seated joiner last left its lobby for a restarted host's new one:
        # a caller's limits for a seat run from then, not from when the join began
        self.lobby_lost_at: float | None = None
        self._joined_at: float | None = None    # when the last join went out
        self.version = PROTOCOL_VERSION
        #: the host's signing key as its key door told us (CURVE; None: not asked)
        self.host_signing_key: bytes | None = None
        self.host_curve_key = host_curve_key
        self.secure = node.curve_key is not None
        self._door: KeyDoorAsk | None = None   # being asked (CURVE, host key unknown)
        if self.secure:
            if node.curve_key != identity.curve_keys().public:
                raise LobbyError("the node's CURVE key is not this identity's transport key")
            if host_curve_key is None:
                # asked from pump(), inside the caller's connect loop and its limits
                from p2p.net.transport import KeyDoorAsk
                try:
                    self._door = KeyDoorAsk(self.host_endpoint,
                                            own_key=identity.curve_keys().public)
                except TransportError as exc:
                    raise LobbyError(str(exc)) from None
                return
        self._connect()

    def _connect(self) -> None:
        """Open the placeholder connection to the host (heartbeats only: "I am here")."""
        if self.secure:
            self.node.expect_key(_PLACEHOLDER, self.host_curve_key)  # type: ignore[arg-type]
        self.node.add_peer(_PLACEHOLDER, self.host_endpoint)

    def _ask_key_door(self, timeout: float) -> bool:
        """Ask the host's key door once more (at most ``timeout`` s); True once its keys
        are known and the connection is opened.  Its fingerprint must be the one we were
        given (``FINGERPRINT@HOST:PORT`` or discovery), else it is trusted on first use
        and the player sees it (:attr:`host_signing_key`)."""
        assert self._door is not None
        card = self._door.poll(timeout)
        if card is None:
            return False
        signing, curve = card
        if self.host_fp is not None and fingerprint(signing) != self.host_fp:
            self._refuse(f"the table at {self.host_endpoint} has key {fingerprint(signing)}, "
                         f"not the expected {self.host_fp}: not joining", "host-key-mismatch",
                         endpoint=self.host_endpoint, key=fingerprint(signing),
                         expected=self.host_fp)
            raise self._error()
        self._door.close()
        self._door = None
        self.host_signing_key, self.host_curve_key = signing, curve
        self._connect()
        return True

    def close(self) -> None:
        """Stop asking the key door (the node is the caller's to close)."""
        if self._door is not None:
            self._door.close()
            self._door = None

    @property
    def key_only(self) -> bool:
        """The host's key door answered, its lobby has not let us in: a table whose match
        started (or a game, not a lobby) admits its own players' keys only."""
        return self.secure and self.host_signing_key is not None and self.state is None

    @property
    def host_key(self) -> bytes | None:
        return None if self.host_id is None else self.host_id[1:]

    def _port(self, ep: str) -> str:
        return ep.rsplit(":", 1)[-1]

    def pump(self, timeout: float = 0.05) -> TableStart | None:
        if self.start is not None:
            return self.start
        if self.refused is not None:
            raise self._error()
        if self._door is not None:
            if not self._ask_key_door(timeout):
                self._check_timeout()
                return None
            timeout = 0.0
        for ev in self.node.events():
            if (ev.kind is PeerEventKind.STATUS and self.host_id is not None
                    and ev.peer_id == self.host_id):
                gone = ev.status is PeerStatus.GONE
                if gone and self._host_gone_since is None:
                    self._host_gone_since = self.clock()
                elif not gone and ev.status is PeerStatus.CONNECTED:
                    if self._host_gone_since is not None:
                        # back from gone: a start sent meanwhile has a moment to arrive
                        # (a mere slow spell gives none: a host pausing now and then
                        # restarted the whole wait each time, the second review)
                        self._back_at = self.clock()
                    self._host_gone_since = None
                continue
            if (self.host_id is None and ev.kind is PeerEventKind.HELLO and ev.endpoint
                    and len(ev.peer_id) == 33 and ev.peer_id[:1] == b"m"
                    and ev.peer_id != self.node.node_id
                    and self._port(ev.endpoint) == self._port(self.host_endpoint)):
                key = ev.peer_id[1:]
                if self.host_fp is not None and fingerprint(key) != self.host_fp:
                    log.warning("a peer at %s has fingerprint %s, not the announced %s",
                                ev.endpoint, fingerprint(key), self.host_fp)
                    continue
                if self.secure and (ev.curve_key != self.host_curve_key or (
                        self.host_signing_key is not None and key != self.host_signing_key)):
                    log.warning("a peer at %s is not the key the host announced", ev.endpoint)
                    continue
                self.host_id = ev.peer_id
                if self.secure:
                    self.node.expect_key(ev.peer_id, self.host_curve_key)  # type: ignore[arg-type]
                self.node.add_peer(ev.peer_id, self.host_endpoint)
                try:
                    self.node.remove_peer(_PLACEHOLDER)
                except Exception:
                    pass
                # the join waits for the host's challenge (it names the lobby): a join
                # signed before the joiner knew the lobby could be replayed at another
        self._check_switch()
        self._check_timeout()
        msg = self.node.recv(timeout)
        handled = 0
        while msg is not None:
            if self._on(msg[0], msg[1]):
                break
            handled += 1
            if handled >= MAX_PER_PUMP:
                # bounded work per pump, as the host's: a host sending one signed state
                # again and again, as fast as this joiner reads, held it here for ever
                # (no line shown, 'leave' never read, no time limit checked)
                break
            msg = self.node.recv(0)
        if self.refused is not None:
            raise self._error()
        if msg is None:
            self._drained_at = self.clock()
        # with something left to read, the start may be in it: a joiner stopped for
        # longer than the limit (a laptop asleep) left a host whose start was waiting
        # (the review); but a host that keeps the queue full for longer than the limit
        # (its state again and again) is flooding, and waited on for ever (the second)
        if msg is None or self.clock() - self._drained_at > self.start_wait:
            self._check_start_wait()
        return self.start

    def start_wait_left(self) -> float | None:
        """Seconds left of the wait for the start at a full, ready table (None: the table
        is not full and ready, or the host is away, whose own limit then runs)."""
        ready = self._ready_since
        if self.start is not None or ready is None or self._host_gone_since is not None:
            return None
        deadline = ready + self.start_wait
        if self._back_at is not None:
            deadline = max(deadline, self._back_at + BACK_GRACE)
        return max(0.0, deadline - self.clock())

    def _check_start_wait(self) -> None:
        left = self.start_wait_left()
        ready = self._ready_since
        # whatever the host's connection does (gone and back, again and again), a full,
        # ready table is left once the start and the host's own limits are both spent
        capped = ready is not None and self.start is None \
            and self.clock() - ready > self.start_wait + self.host_lost
        if not capped and (left is None or left > 0):
            return
        self.close()
        self._leave_quietly()
        self._refuse(f"every seat at the table at {self.host_endpoint} was taken and every "
                     f"player ready for {self.start_wait:.0f} s, yet no start came from the "
                     "host (its program may be stuck, or it holds the table)",
                     "no-start", endpoint=self.host_endpoint, seconds=self.start_wait)
        raise self._error()

    def _leave_quietly(self) -> None:
        """Tell the host this joiner is gone (best effort): its seat stayed taken and
        ready, and the next ready started a table with a player who had left."""
        try:
            self.leave()
        except Exception as exc:        # the node may be closing: nothing more to do
            log.debug("could not say leave: %s", exc)

    def _check_timeout(self) -> None:
        if self.state is None and self._joined_at is not None \
                and self.clock() - self._joined_at > JOIN_AGAIN:
            self.join()                    # (its answer lost: above)
        gone = self._host_gone_since
        if self.state is not None and gone is not None \
                and self.clock() - gone > self.host_lost:
            self.close()
            self._refuse(f"the table at {self.host_endpoint} stopped answering: nothing "
                         f"from it for {self.host_lost:.0f} s (its player left, or its "
                         "computer is gone)", "host-gone", endpoint=self.host_endpoint,
                         seconds=self.host_lost)
            raise self._error()
        if self.state is None and self.clock() - self._since > self.host_timeout:
            self.close()
            if self.key_only:
                self._refuse(f"the table at {self.host_endpoint} gave its key but did not "
                             f"let this computer in within {self.host_timeout:.0f} s: its "
                             "match has probably started (a started table takes no one new)",
                             "no-answer", endpoint=self.host_endpoint,
                             seconds=self.host_timeout, with_key=self.host_fp is not None,
                             door=True)
                raise self._error()
            self._refuse(f"no table answered at {self.host_endpoint} within "
                         f"{self.host_timeout:.0f} s"
                         + (" with the announced key" if self.host_fp else "")
                         + ": is the table still open? (check HOST:PORT)", "no-answer",
                         endpoint=self.host_endpoint, seconds=self.host_timeout,
                         with_key=self.host_fp is not None)
            raise self._error()

    def _refuse(self, text: str, why: str, /, **data: Any) -> None:
        self.refused = text
        self.refused_why = (why, data)

    def _error(self) -> LobbyError:
        return LobbyError(self.refused or "refused", self.refused_why[0], **self.refused_why[1])

    def _switch_lobby(self, obj: dict[str, Any]) -> None:
        """Join the lobby of the host's challenge ``obj`` (in place of the one shown)."""
        if self.seat is not None:
            log.warning("the host's program started again: joining its new lobby")
            self.log.append("the host started its table again")
            self.ready = False         # (its rules may differ: said ready again)
            self._since = self.clock()     # its own limit to answer
            self.lobby_lost_at = self.clock()   # and the caller's for a seat
        self._switch = None
        self.state = None
        self._ready_since = None
        self._ready_terms = None
        self._host_n = obj["n"]        # (that lobby's numbering)
        self._take_challenge(obj["lobby"], obj["nonce"])

    def _check_switch(self) -> None:
        """A seated joiner's host restarted, it seems, with a new lobby (plain ZeroMQ):
        followed once :data:`SWITCH_QUIET` s passed without a frame of the host's earlier
        session; not at all when that session still talks (a stranger's frames under the
        host's id, replaying an old challenge, would have taken the joiner away from a
        live table)."""
        if self._switch is None or self.clock() - self._switch[1] < SWITCH_QUIET:
            return
        obj, _, stale = self._switch
        self._switch = None
        if self._stale_of_host() > stale:
            log.warning("a new lobby under the host's id while its earlier session still "
                        "talks: not followed")
            return
        if self._joined() and obj["lobby"] != self.lobby_id:
            self._switch_lobby(obj)

    def _joined(self) -> bool:
        """Seated, or a join went out under a challenge of the host's."""
        return self.seat is not None or self._n > 0

    def _stale_of_host(self) -> int:
        """Frames of an earlier session of the host's our transport dropped so far."""
        stats = getattr(self.node, "stats", None)
        if self.host_id is None or not callable(stats):
            return 0
        return int(stats().get(self.host_id, {}).get("stale_session", 0))

    def _session_of_host(self) -> bytes | None:
        """The host's current transport session (None: unknown, or a transport that does
        not say)."""
        session = getattr(self.node, "remote_session", None)
        if self.host_id is None or not callable(session):
            return None
        try:
            got = session(self.host_id)
        except Exception:           # (not a peer any more)
            return None
        return got if isinstance(got, bytes) else None

    def _take_challenge(self, lobby: bytes | None, nonce: bytes) -> None:
        """The host's challenge for this connection: join under it, and say ready again
        when this player already said so (before the host answered, or before a new
        challenge)."""
        self.lobby_id, self._nonce = lobby, nonce
        self._host_session = self._session_of_host()
        self.join()
        if self.ready:
            self._send({"k": "ready", "ready": True})

    def join(self) -> None:
        """Ask the host for a seat (again: a repeated join keeps the seat)."""
        msg: dict[str, Any] = {"k": "join", "name": self.name, "seat": self.want_seat,
                               "v": self.version, "contrib": self.contrib,
                               "endpoint": self.node.endpoint,
                               "addrs": own_addresses(self.node.endpoint)}
        if self.secure:
            msg["curve"] = list(_curve_of(self.identity))
        self._send(msg)
        if self._nonce is not None:
            self._joined_at = self.clock()

    def _send(self, obj: dict[str, Any]) -> None:
        if self.host_id is None or self._nonce is None:
            return       # the join and the readiness wanted go when the challenge comes
        self._n += 1
        obj = dict(obj, key=self.identity.public_key, lobby=self.lobby_id,
                   nonce=self._nonce, n=self._n)
        self.node.send(self.host_id, _sign(self.identity, obj))

    def sit(self, seat: int) -> None:
        if self._nonce is None:
            self.want_seat = seat          # asked for in the join
            return
        self._send({"k": "sit", "seat": seat})

    def set_ready(self, ready: bool = True) -> None:
        self.ready = ready
        # ready before the host showed the table: the first state it shows is agreed
        self._ready_terms = _terms(self.state) if ready and self.state is not None else None
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
        obj, wrong = _parse_lobby(sender, payload)
        if obj is None and wrong is None:
            return self._on_unreadable(payload)
        if wrong is not None:
            self._refuse(f"the host sent an invalid message ({wrong})", "invalid-message",
                         wrong=wrong)
            return True
        if obj is None:
            return False
        k = obj["k"]
        if k != "welcome" and obj.get("to") != self.identity.public_key:
            # the host's message to another member (or of an older version, whose welcome
            # has stopped this joiner already), replayed to this one under the host's id
            log.warning("dropped a lobby %s the host sent to another player", k)
            return False
        if k == "challenge" and obj["lobby"] is None:
            return False
        joined = self._joined()
        if k == "challenge" and obj["lobby"] != self.lobby_id \
                and (not joined or self._host_session != self._session_of_host()):
            # the lobby this joiner joins: the latest the host names until a join went
            # out under one (a challenge, and a state, the host signed at an earlier
            # table of its, replayed first on plain ZeroMQ, held the joiner at that table);
            # and a seated joiner's host that ran its program again (on its fixed port)
            # has a new lobby: the joiner sat on at the old one, shown there for ever,
            # while the new one never heard of it. Once a join went out under a challenge,
            # the same holds before a seat (another lobby's challenge followed at once,
            # from any session, held a joiner the host was seating at a dead lobby: "no
            # table answered", the host showing him seated: the review of pass 28)
            if joined and not self.secure:
                # plain ZeroMQ: a "new session" may be a stranger's under the host's id,
                # replaying a challenge of an earlier table: followed only once the
                # host's earlier session has gone quiet (:meth:`_check_switch`)
                self._switch = (obj, self.clock(), self._stale_of_host())
                return False
            self._switch_lobby(obj)
            return False
        if k != "welcome" and (self.lobby_id is None or obj["lobby"] != self.lobby_id):
            # the host signed it at another table of its own (on plain ZeroMQ anyone may
            # replay one under its id): an old full, ready table's state blamed this host
            # for a start it never owed, and this joiner's messages then went out under
            # that table's id, which the host ignores; an old start or refusal ended the
            # join (the review). Before the host's challenge named the lobby, nothing but
            # its welcome is taken.
            log.warning("dropped a lobby %s of another table of the host's", obj["k"])
            return False
        if k != "welcome":
            if not isinstance(obj.get("n"), int) or obj["n"] <= self._host_n:
                # sent before the last one taken: a replay (an old state, shown again just
                # before the start, made this joiner refuse the honest start)
                log.warning("dropped a lobby %s older than the host's last", k)
                return False
            self._host_n = obj["n"]
        if k == "challenge":
            if obj["nonce"] != self._nonce:
                # a new challenge of our lobby (the host took this joiner for a new
                # connection): what it has is said again under it
                self._take_challenge(obj["lobby"], obj["nonce"])
            return False
        if k == "welcome":
            if self._nonce is not None:
                # the host's challenge came: it speaks protocol 4 (a welcome of another
                # version, replayed from an older program under the same key, stopped
                # a joiner already seated)
                return False
            if obj["v"] != self.version:
                self._refuse(f"the host speaks lobby protocol version {obj['v']} and we "
                             f"speak {self.version}: both players need the same "
                             f"millebornes version", "version", host=obj["v"],
                             ours=self.version)
                return True
        elif k == "state":
            try:
                state = LobbyState.from_obj(obj["state"])
            except (KeyError, TypeError, ValueError) as exc:
                # the host's own signed word for its table, and nothing we can sit at (rules
                # this program refuses, a malformed seat list): say so now, not "no answer"
                wrong = f"lobby state: {safe_text(str(exc), 160)}"
                log.warning("bad lobby state from the host: %s", wrong)
                # the engine's id and data too, so the console says the fault in its words
                fault = ({"rule": exc.why, "rule_data": exc.data}
                         if isinstance(exc, RuleOptionError) else {})
                self._refuse(f"the host sent an invalid message ({wrong})", "invalid-message",
                             wrong=wrong, **fault)
                return True
            if state.host_key != self.host_key:
                log.warning("a lobby state names another host key")
                return False
            if state.lobby_id != obj["lobby"]:
                log.warning("a lobby state sent as another table's")
                return False
            self.state = state
            if state.free() or not all(info is not None and info.ready
                                       for info in state.seats):
                self._ready_since = None
            elif self._ready_since is None:
                self._ready_since = self.clock()
            if self.ready and self._ready_terms is None:
                self._ready_terms = _terms(state)
            self.log.append("state")   # (bounded: a host sending states in a loop)
        elif k == "refused":
            reason = safe_text(obj["reason"], _MAX_REASON, placeholder="refused")
            why, data = refusal_why(reason)
            if why == "host-version":
                # the host's sentence names a version for us: we know our own, and a
                # console says that one, never the host's claim about us
                data["ours"] = self.version
            self._refuse(reason, why, **data)
            return True
        elif k == "start":
            try:
                self.start = self._check_start(obj)
            except LobbyError as exc:
                self._refuse(str(exc), "bad-start", detail=str(exc))
            return True
        return False

    def _on_unreadable(self, payload: bytes) -> bool:
        """A frame from the host that is no signed lobby message. On plain ZeroMQ a
        frame's sender is a claim anyone can make: counted, nothing more. Under CURVE it
        came over the host's own authenticated connection: before the host showed a
        lobby, a message of a running match (this key is one of its seats: the player
        typed ``join`` for a match of their own), said with the way back; in the lobby, a
        start too large or mangled to read (it was dropped in silence, and the joiner
        waited for a start that had come: hostile pass 23's leftover)."""
        if not self.secure:
            self.unreadable += 1
            log.warning("dropped an unreadable lobby message said to be the host's "
                        "(%d so far)", self.unreadable)
            return False
        if self.state is None:
            try:
                wire_decode(payload)
            except ValueError:
                self.unreadable += 1      # not a lobby yet: its own limit says so
                return False
            self._refuse(f"the table at {self.host_endpoint} is playing a match where this "
                         "key has a seat: take it again with millebornes resume",
                         "match-running", endpoint=self.host_endpoint)
            return True
        kib = _LOBBY_LIMITS.max_bytes // 1024
        self._leave_quietly()
        self._refuse(f"the host sent a message this program cannot read (not a signed "
                     f"lobby message, or more than {kib} KiB)", "unreadable-message",
                     kib=kib)
        return True

    def _check_start(self, obj: dict[str, Any]) -> TableStart:
        try:
            _, cfg = parse_header_bytes(obj["header"])   # bounded, schema, table id
        except ValueError as exc:
            raise LobbyError(f"the host started an invalid table: "
                             f"{safe_text(str(exc))}") from None
        keys = [p.key for p in cfg.players]
        if self.identity.public_key not in keys:
            raise LobbyError("the table started without us")
        seat = keys.index(self.identity.public_key)
        if cfg.players[seat].name != self.name \
                and not namesakes_name(cfg.players[seat].name, self.name):
            raise LobbyError("the host changed our name")
        contribs: list[bytes] = obj["contribs"]
        if len(contribs) != cfg.n or contribs[seat] != self.contrib:
            raise LobbyError("the host left our share out of the table nonce "
                             "(it could be replaying an old table)")
        st = self.state
        if st is None:
            raise LobbyError("the host started before showing the table")
        if (cfg.rules != st.rules or cfg.seating != st.seating
                or cfg.nonce != table_nonce(st.lobby_id, contribs)):
            raise LobbyError("the host started with other rules than agreed")
        shown = [(info.key, info.name) if info is not None and info.ready else None
                 for info in st.seats]
        for p in cfg.players:
            # the players the lobby showed, every one ready: a host that replaced a ready
            # joiner with a key of its own (told "the table started without you") started
            # the others with a player the lobby never showed them (hostile pass 27)
            if p.seat >= len(shown) or shown[p.seat] != (p.key, _clean_name(p.name)):
                raise LobbyError(f"the host started seat {p.seat} with a player the lobby "
                                 f"did not show there ready")
        if (not cfg.limits_recorded or cfg.step_limit != DEFAULT_STEP_LIMIT
                or cfg.decision_limit != st.move_limit):
            raise LobbyError(f"the host started with other time limits than agreed "
                             f"({cfg.limits_text()})")
        if self._ready_terms is not None and _terms(st) != self._ready_terms:
            raise LobbyError(f"the host changed the rules or time limits after this player "
                             f"said ready ({cfg.limits_text()})")
        if self.secure:
            if not cfg.curve or cfg.curve[seat][0] != self.identity.curve_keys().public \
                    or cfg.curve[0][0] != self.host_curve_key:
                raise LobbyError("the host started a table without our transport keys")
        elif cfg.curve:
            raise LobbyError("the host started a CURVE table; we run without CURVE")
        raw_eps = obj["endpoints"]
        if sorted(raw_eps) != sorted(str(s) for s in range(cfg.n)):
            raise LobbyError("the host's address list does not match the seats")
        # the host's in-process bots listen on the host's machine: reach them at its address
        host_addr = self.host_endpoint[len("tcp://"):].rsplit(":", 1)[0]
        eps: dict[int, str] = {0: self.host_endpoint}
        for s in range(1, cfg.n):
            ep = raw_eps[str(s)]
            try:
                if not isinstance(ep, str):
                    raise ValueError("not a string")
                addr, _, port = ep.removeprefix("tcp://").rpartition(":")
                # (the literal set, not every loopback: a seat bound to 127.0.0.2 on
                # this computer is reached there, not at the host's 127.0.0.1)
                if addr in _LOCAL_ADDRS and s != seat:
                    eps[s] = parse_endpoint(f"{host_addr}:{port}")
                else:
                    eps[s] = parse_endpoint(ep, literal_only=True)
            except ValueError:
                if s != seat:
                    raise LobbyError(f"the host gave seat {s} no usable address") from None
                eps[s] = self.node.endpoint
        alternatives = self._relayed_addresses(obj.get("joins") or {}, cfg, seat, contribs,
                                               {s: str(raw_eps[str(s)]) for s in range(cfg.n)})
        if self.secure:
            admit_table(self.node, cfg)
        return TableStart(cfg, seat, eps, alternatives=alternatives)

    def _relayed_addresses(self, joins: dict[Any, Any], cfg: TableConfig, seat: int,
                           contribs: list[bytes], joins_at: dict[int, str]
                           ) -> dict[int, tuple[str, ...]]:
        """Each other joiner's own addresses, from its join as it signed it: the host
        relays it, and can neither change it (the seat's key signed it) nor pass off an
        old one (it carries the seat's share of this table's nonce). A seat the lobby
        showed as a player's must have one: without it, the host alone would say where
        that player listens, and could cut two joiners off from each other with dead
        addresses (each then named the other, honest, unresponsive: hostile pass 23).
        The host signs its bots' joins with their keys: every seat but the host's has
        one (the lobby state, the host's word, cannot excuse a seat by calling it a bot).
        A seat's loopback addresses are kept only when both the host and that seat, by
        the host's word, are on this computer (:func:`addresses_beside`)."""
        out: dict[int, tuple[str, ...]] = {}
        for s in range(1, cfg.n):
            if s == seat:
                continue
            raw = joins.get(str(s))
            if raw is None:
                raise LobbyError(f"the host left out seat {s}'s own signed addresses "
                                 f"(its join)")
            addrs = _signed_addresses(raw, cfg.players[s].key, contribs[s]) \
                if isinstance(raw, bytes) else None
            if addrs is None:
                raise LobbyError(f"the host relayed a join for seat {s} that its player "
                                 f"did not sign for this table")
            addrs = addresses_beside(self.host_endpoint, joins_at.get(s, ""), addrs=addrs)
            if addrs:
                out[s] = addrs
        return out


def own_addresses(endpoint: str) -> list[str]:
    """Where a node bound at ``endpoint`` can be reached, as it says so itself in its
    join: that address, or, bound to every address, each of this computer's IPv4
    addresses (loopback too: players on one computer) with its port."""
    addr, _, port = endpoint.removeprefix("tcp://").rpartition(":")
    if addr not in ("0.0.0.0", "[::]", "*"):
        try:
            return [parse_endpoint(endpoint, literal_only=True)]
        except ValueError:
            return []
    out: list[str] = []
    # the LAN's first: a computer with many bridges (containers) keeps 8 at most
    every = local_ipv4_addresses(include_loopback=True)
    for ip in sorted(every, key=lambda a: (a.startswith("127."), a.startswith("169.254."))):
        try:
            out.append(parse_endpoint(f"{ip}:{port}", literal_only=True))
        except ValueError:
            continue
    return out[:MAX_ALTERNATIVES]


def addresses_beside(*known: str, addrs: Sequence[str]) -> tuple[str, ...]:
    """Those of a seat's own ``addrs`` worth trying from here: its loopback ones only when
    every one of ``known`` (where we reach the host; where the host says the seat is) is
    on this computer too. Elsewhere they name the dialler's own computer: with every
    player on one fixed ``--port``, this computer's own node."""
    here = all(_on_this_computer(k) for k in known)
    return tuple(a for a in addrs if here or not _on_this_computer(a))


def _on_this_computer(endpoint: str) -> bool:
    """Does ``endpoint`` name whatever computer dials it: a loopback address (all of
    127/8, ``::1``, an IPv4-mapped loopback), an unspecified one, ``*`` or localhost?
    (Compared as strings, ``127.0.0.2`` and ``[::ffff:127.0.0.1]`` passed for remote:
    hostile pass 25.)"""
    addr = endpoint.removeprefix("tcp://").rpartition(":")[0]
    if addr in _LOCAL_ADDRS:
        return True
    try:
        ip = ipaddress.ip_address(addr.removeprefix("[").removesuffix("]"))
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_unspecified


def _signed_addresses(raw: bytes, key: bytes, contrib: bytes) -> tuple[str, ...] | None:
    """The addresses in ``raw``, a join signed by ``key`` with the share ``contrib``
    (None when it is not one: forged, another player's, or of another table)."""
    obj = parse_lobby(node_id_for(key), raw)
    if obj is None or obj["k"] != "join" or obj["key"] != key or obj["contrib"] != contrib:
        return None
    return tuple(a for a in obj.get("addrs", ()) if isinstance(a, str))[:MAX_ALTERNATIVES]


def _terms(st: LobbyState) -> tuple[Any, ...]:
    """What a player agrees to by saying ready: the rules, the seating, the move limit."""
    return (st.rules, st.seating, st.move_limit)


def _curve_of(identity: Identity) -> tuple[bytes, bytes]:
    ck = identity.curve_keys()
    return ck.public, ck.certificate


def wait_for(pump: Callable[[float], TableStart | None], timeout: float) -> TableStart | None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = pump(0.05)
        if got is not None:
            return got
    return None
