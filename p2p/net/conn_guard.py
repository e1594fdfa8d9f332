"""A guard on the ROUTER's inbound connections against a message that never ends.

Why it exists: libzmq keeps every part of a multipart message until its last part comes
(the parts wait in the connection's pipe, where nobody can read them), ``ZMQ_MAXMSGSIZE``
limits one part and ``RCVHWM`` counts whole messages.  A hand-written ZMTP client (a
stranger at a lobby, or anyone who can reach a plain :class:`~p2p.net.transport.Node`)
that sends parts with the MORE flag forever made the process grow by ~200 MB/s, below
anything the application sees.  libzmq 4.3 offers no cap on a message's parts together
(CLIENT/SERVER sockets, single-part only, are draft and not in the usual builds), and it
has no call to close one inbound connection of a ROUTER.

Our own DEALERs send single-frame messages only, so on an honest connection at most one
frame (at most ``ZMQ_MAXMSGSIZE``) is ever in progress.  The guard therefore compares,
per accepted TCP connection, the bytes libzmq has read from the kernel (``TCP_INFO``'s
``tcpi_bytes_received`` less the bytes still queued, ``FIONREAD``) with the messages the
ROUTER delivered from that connection (each message names its connection:
``ZMQ_SRCFD``).  When the ROUTER has been drained, no message came from a connection since
the last turn, and libzmq has read more than ``limit`` bytes from it since its last
message, the connection is holding an unfinished message bigger than any honest one: the
guard shuts the socket down (libzmq then drops the connection and frees the parts, see
``pipe_t::rollback``) and reports it with its address and, if it ever sent a complete
message, the node id it used.

The connections are learnt from the ROUTER's monitor (``ACCEPTED`` / ``DISCONNECTED``
carry the file descriptor).  A descriptor number can be reused after libzmq closes it, so
every look at one first checks that it still is the TCP connection from the same remote
address and port that was accepted; otherwise the guard forgets it until its next
``ACCEPTED``.  It never closes a descriptor, only shuts down a verified one.

The same watch bounds how many connections strangers hold open at once: a machine that
opened a thousand idle TCP connections took every file descriptor a player's process may
have (the usual soft limit is 1,024), so that it could no longer save the game, start a
bot or reach a peer, while the connections themselves never sent a byte. At most
:data:`MAX_SILENT` inbound connections that never delivered a message stay open (the
oldest of the address that holds the most of them goes first: an honest peer speaks at
once, and a flood pushes out its own connections, not a newcomer's still in its
handshake), and at most
:data:`MAX_FROM_ONE_ADDRESS` from one address of another machine that are not our peers'
(the oldest silent one goes first, then the oldest stranger's, so that a joiner from
there still gets in); an IPv6 address counts as its /64, which one machine holds whole.
A peer's connections are its :data:`MAX_PER_PEER` that finished a message the most
recently (under CURVE, over the peer's proven key); any other it opens is judged as a
stranger's, for both bounds.

Linux only (``tcpi_bytes_received``, Linux 4.1); elsewhere :attr:`ConnGuard.enabled` is
False and the attack stays open (docs/network.md, threat model).
"""

from __future__ import annotations

import ipaddress
import logging
import os
import socket
import struct
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import zmq
from zmq.utils.monitor import parse_monitor_message

log = logging.getLogger("p2p.transport")

#: How often (seconds) :meth:`ConnGuard.rescan` looks for connections the monitor missed.
RESCAN_EVERY = 1.0

#: Inbound connections from one remote address kept open at once (a table has at most a
#: few peers per machine; a lobby one connection per stranger).
MAX_FROM_ONE_ADDRESS = 32

#: Inbound connections that never delivered a message kept open at once, from anyone.
MAX_SILENT = 128

#: Connections of one peer judged as that peer's (the ones that finished a message the
#: most recently): an honest peer has one DEALER to us, and for a moment a second one
#: (a re-opened DEALER, a restart, a move before the old connection times out). Its
#: others are judged as strangers' (a seated peer that opened ten connections, each
#: holding just under the limit of unfinished parts, held 200 MB: hostile pass 7).
MAX_PER_PEER = 2

#: offset of ``tcpi_bytes_received`` (u64) in Linux's ``struct tcp_info``
_BYTES_RECEIVED_AT = 128
_TCP_INFO = getattr(socket, "TCP_INFO", None)


@dataclass
class _Conn:
    peer: tuple[str, int]
    mark: int                      # bytes read by libzmq at this connection's last message
    sample: int = 0                # bytes read by libzmq before this turn's drain
    delivered: bool = False        # a message came from it during this turn
    node: bytes | None = None      # the node id its last message claimed
    cut: bool = False
    spoke: bool = False            # it delivered a message once
    order: int = 0                 # when it was learnt: the oldest silent one goes first
    source: str = ""               # its address as the cap on one address counts it
    last: int = 0                  # when it last finished a message (the guard's count)


#: Addresses a report of crowded-out connections names one by one (the rest: "elsewhere").
CROWD_ADDRESSES = 8


@dataclass(frozen=True)
class Cut:
    """A connection the guard shut down for a message that never ended: who, and how
    much of it came. (Connections shut down for crowding are only counted, by address:
    see :meth:`ConnGuard.take_crowding`.)"""

    address: str
    node: bytes | None
    unfinished: int                # bytes read since its last complete message
    #: cut for what several connections held together, not for its own: ``"strangers"``
    #: (every connection that is not a peer's, ``strangers_limit``), ``"peer"`` (the
    #: connections of the one peer ``node``, ``limit``) or ``"peers"`` (every peer's
    #: connections on a plain node, ``peers_limit``); ``""``: for its own
    together: str = ""


def _read_state(fd: int, port: int = 0) -> tuple[tuple[str, int], int] | None:
    """``(remote address, bytes libzmq has read)`` of the TCP socket ``fd``, or None when
    it is not one (closed, reused for something else, or the kernel lacks the field);
    ``port``: also None unless the socket's own port is that one (an accepted connection
    of our listener, not a DEALER's outgoing one)."""
    if _TCP_INFO is None:
        return None
    import fcntl  # here: the guard runs on Linux only, and these modules are POSIX's
    import termios
    try:
        s = socket.socket(fileno=fd)
    except OSError:
        return None
    try:
        if s.type != socket.SOCK_STREAM or s.family not in (socket.AF_INET, socket.AF_INET6):
            return None
        if port and s.getsockname()[1] != port:
            return None
        peer = s.getpeername()
        info = s.getsockopt(socket.IPPROTO_TCP, _TCP_INFO, 256)
        queued = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
    except OSError:
        return None
    finally:
        s.detach()
    if len(info) < _BYTES_RECEIVED_AT + 8:
        return None
    (received,) = struct.unpack_from("Q", info, _BYTES_RECEIVED_AT)
    return (str(peer[0]), int(peer[1])), max(0, received - queued)


def _on_this_machine(address: str) -> bool:
    """Whether ``address`` is a loopback one: every bot and peer that ``play`` starts is
    on it, and whoever connects from this machine could do worse than connect."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback


def _source(address: str) -> str:
    """The machine ``address`` stands for, as the cap on one address counts it: an IPv4
    address, or an IPv6 one's /64 (a machine of its own picks any address in its /64: one
    connection from each of a thousand took every descriptor as from a thousand)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def _kernel_counts_bytes() -> bool:
    """Whether this system's TCP_INFO has ``tcpi_bytes_received`` (Linux 4.1 and later)."""
    if not sys.platform.startswith("linux") or _TCP_INFO is None:
        return False
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            info = probe.getsockopt(socket.IPPROTO_TCP, _TCP_INFO, 256)
    except OSError:
        return False
    return len(info) >= _BYTES_RECEIVED_AT + 8


def _shutdown(fd: int) -> None:
    try:
        s = socket.socket(fileno=fd)
    except OSError:
        return
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    finally:
        s.detach()


class ConnGuard:
    """See the module docstring.  Used only by the Node's I/O thread."""

    def __init__(self, router: zmq.Socket[bytes], limit: int,
                 known: Callable[[bytes], bool] = lambda node: False,
                 strangers_limit: int | None = None,
                 peers_limit: int | None = None) -> None:
        """Call before the ROUTER binds, so that no connection escapes the monitor.
        ``known``: whether a node id is one of our peers (its connection is the last to
        go when its address holds too many). ``strangers_limit``: unfinished bytes all
        connections that are not our peers' may hold together (default ``limit``).
        ``peers_limit``: unfinished bytes every peer's connections may hold together
        (None: no such bound, each peer's alone bounded by ``limit``). A plain node sets
        it: there a peer's id is only what a connection claims, and a machine that
        claimed each of a table's ids held ``limit`` for each (some 32 MB of libzmq's
        memory an id, hostile pass 26)."""
        self.limit = limit
        self.strangers_limit = limit if strangers_limit is None else strangers_limit
        self.peers_limit = peers_limit
        self._known = known
        self.enabled = _kernel_counts_bytes()
        self.monitor: zmq.Socket[bytes] | None = None
        self._router = router
        self._conns: dict[int, _Conn] = {}
        #: descriptors that finished a message before the guard learnt of them (see _learn)
        self._spoke_unknown: set[int] = set()
        self.cuts = 0
        self._learnt = 0
        self._finished = 0             # messages finished, all connections (``_Conn.last``)
        #: connections shut down for crowding and not yet reported, by address (at most
        #: :data:`CROWD_ADDRESSES` named, the rest "elsewhere"; see :meth:`take_crowding`)
        self._crowded: dict[str, int] = {}
        #: the ROUTER's port, once bound: a connection found by :meth:`rescan` must be on it
        self.port = 0
        self._scanned = 0.0
        if self.enabled:
            self.monitor = router.get_monitor_socket(
                zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED)

    @staticmethod
    def supported() -> bool:
        """Whether the guard can work here (Linux's TCP_INFO byte counts)."""
        return _kernel_counts_bytes()

    def close(self) -> None:
        if self.monitor is not None:
            try:
                self._router.disable_monitor()
            except zmq.ZMQError:
                pass
            self.monitor.close(0)
            self.monitor = None
        self._conns.clear()

    def on_events(self) -> None:
        """Learn accepted and closed connections from the monitor."""
        if self.monitor is None:
            return
        for _ in range(256):
            try:
                msg = self.monitor.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            try:
                ev = parse_monitor_message(msg)
            except Exception:  # a malformed monitor message: nothing to learn from it
                continue
            fd = int(ev["value"])
            if ev["event"] == zmq.EVENT_DISCONNECTED:
                self._conns.pop(fd, None)
                self._spoke_unknown.discard(fd)
                continue
            state = _read_state(fd, self.port)
            if state is None:
                self._conns.pop(fd, None)
                continue
            self._learn(fd, state)

    def _learn(self, fd: int, state: tuple[tuple[str, int], int]) -> None:
        """A new inbound connection: watched, unless it is one too many (then shut down).
        One known already (the rescan found it before its ACCEPTED came) stays as it was:
        learnt again, a peer's that had spoken was a silent stranger's, and a cut one open."""
        old = self._conns.get(fd)
        if old is not None and old.peer == state[0]:
            return
        self._learnt += 1
        # Counted from its first byte unless it finished a message before: what libzmq read
        # before the guard learnt of it was forgiven, and on a busy machine that was a
        # stranger's whole burst of parts sent at once after its handshake (hostile pass 8).
        # Its handshake (a few hundred bytes) counts until its first message.
        mark = state[1] if fd in self._spoke_unknown else 0
        self._spoke_unknown.discard(fd)
        conn = _Conn(peer=state[0], mark=mark, order=self._learnt,
                     source=_source(state[0][0]))
        self._conns[fd] = conn
        open_ = [(f, c) for f, c in self._conns.items() if not c.cut]
        spared = self._peers_own()
        same = [(c.spoke, c.order, f, c) for f, c in open_ if c.source == conn.source
                and f not in spared]
        if len(same) > MAX_FROM_ONE_ADDRESS and not _on_this_machine(conn.peer[0]):
            # the oldest that never spoke goes, else the oldest stranger's; never the new
            # one, which may be a peer reconnecting or a joiner (it speaks at once)
            *_, gone_fd, gone = min(x for x in same if x[3] is not conn)
            self._crowd_out(gone_fd, gone)
            return
        silent = [(c.order, f, c) for f, c in open_ if not c.spoke]
        if len(silent) > MAX_SILENT:
            # the oldest of the address that holds the most silent ones: a flood pushes
            # out its own, not a newcomer still in its handshake (silent until done)
            per_source = Counter(c.source for _, _, c in silent)
            most = max(per_source.values())
            _, oldest_fd, oldest = min(x for x in silent if per_source[x[2].source] == most)
            self._crowd_out(oldest_fd, oldest)

    def _crowd_out(self, fd: int, conn: _Conn) -> None:
        conn.cut = True
        self.cuts += 1
        _shutdown(fd)
        address = conn.peer[0]
        if address not in self._crowded and len(self._crowded) >= CROWD_ADDRESSES:
            address = "elsewhere"
        self._crowded[address] = self._crowded.get(address, 0) + 1

    def take_crowding(self) -> dict[str, int]:
        """How many connections were shut down for crowding since the last call, by
        address: a flood's report stays one line, however many it sent."""
        counts, self._crowded = self._crowded, {}
        return counts

    def rescan(self, now: float) -> None:
        """Once every :data:`RESCAN_EVERY` seconds, find accepted connections the monitor
        did not tell of (its queue holds 1,000 events: a flood of connections can overflow
        it) among this process's descriptors: TCP sockets on our port with a remote end.
        A connection found so is judged from the bytes it had sent by then."""
        if self.port == 0 or now - self._scanned < RESCAN_EVERY:
            return
        self._scanned = now
        try:
            names = os.listdir("/proc/self/fd")
        except OSError:
            return
        for name in names:
            if not name.isdigit() or int(name) in self._conns:
                continue
            try:
                if not os.readlink(f"/proc/self/fd/{name}").startswith("socket:"):
                    continue
            except OSError:
                continue
            state = _read_state(int(name), self.port)
            if state is not None:
                self._learn(int(name), state)

    def sample(self) -> None:
        """Before the ROUTER is drained: what libzmq has read from each connection."""
        for fd, c in list(self._conns.items()):
            state = _read_state(fd)
            if state is None or state[0] != c.peer:
                del self._conns[fd]        # closed or reused: its ACCEPTED comes again
                continue
            c.sample = state[1]

    def credit(self, fd: int, node: bytes | None) -> None:
        """A complete message came from connection ``fd``, claiming ``node``."""
        c = self._conns.get(fd)
        if c is None:
            if len(self._spoke_unknown) >= 4096:       # bounded: forgets, never grows
                self._spoke_unknown.clear()
            self._spoke_unknown.add(fd)
        if c is not None:
            c.delivered = True
            c.spoke = True
            self._finished += 1
            c.last = self._finished
            if node is not None:
                c.node = node

    def _peers_own(self) -> dict[int, bytes]:
        """The connections judged as a peer's, with the peer's node id: of each peer's,
        the :data:`MAX_PER_PEER` that finished a message the most recently."""
        by_node: dict[bytes, list[tuple[int, int]]] = {}
        for fd, c in self._conns.items():
            if not c.cut and c.node is not None and self._known(c.node):
                by_node.setdefault(c.node, []).append((c.last, fd))
        own: dict[int, bytes] = {}
        for node, conns in by_node.items():
            for _, fd in sorted(conns, reverse=True)[:MAX_PER_PEER]:
                own[fd] = node
        return own

    def judge(self, drained: bool) -> list[Cut]:
        """After the drain: shut down each connection that holds an unfinished message
        larger than ``limit``, then the biggest holders among a peer's connections while
        they hold more than ``limit`` together, and among every other connection while
        they hold more than ``strangers_limit`` together.  ``drained``: no complete
        message of a connection that gave none this turn can still wait in the ROUTER
        (else nobody is judged this turn)."""
        cuts: list[Cut] = []
        own = self._peers_own()
        strangers: list[tuple[int, int, _Conn]] = []
        peers: dict[bytes, list[tuple[int, int, _Conn]]] = {}
        for fd, c in self._conns.items():
            if c.delivered:
                c.delivered = False
                state = _read_state(fd)
                # bytes read after this turn's messages may already be the next message:
                # at most what libzmq read during the drain is forgiven, once
                c.mark = state[1] if state is not None and state[0] == c.peer else c.sample
                continue
            if not drained or c.cut:
                continue
            if c.sample - c.mark > self.limit:
                self._cut(fd, c, cuts)
            elif c.sample > c.mark:
                node = own.get(fd)
                held = (c.sample - c.mark, fd, c)
                if node is None:
                    strangers.append(held)
                else:
                    peers.setdefault(node, []).append(held)
        # A part of a message costs libzmq some 60 bytes of memory however small it is on
        # the wire (2 bytes; 35 under CURVE, 200 bytes of memory), so each connection
        # that held just under the limit in empty parts held 130 MB (26 MB under CURVE;
        # half that since the limits follow max_frame, hostile pass 8),
        # and 16 of them 2 GB, for as long as they stayed open: what connections hold is
        # bounded together, one peer's and all strangers', the biggest holders first.
        for held_by_one in peers.values():
            self._cut_biggest(held_by_one, self.limit, "peer", cuts)
        if self.peers_limit is not None:
            # every claimed peer's connections together, the biggest holders first. Not
            # "those that are not the latest of their id first": on a plain node being the
            # latest is a claim too (a stranger naming a seat's id, finishing a 1-byte
            # message every 20 ms, had that seat's own DEALER cut each time its big frame
            # on a slow link passed the slack, while its own connection under an absent
            # seat's id kept just under a peer's limit: the review of hostile pass 26)
            left = [x for held_by_one in peers.values() for x in held_by_one if not x[2].cut]
            self._cut_biggest(left, self.peers_limit, "peers", cuts)
        self._cut_biggest(strangers, self.strangers_limit, "strangers", cuts)
        return cuts

    def _cut_biggest(self, conns: list[tuple[int, int, _Conn]], limit: int, together: str,
                     cuts: list[Cut]) -> None:
        held = sum(x[0] for x in conns)
        for unfinished, fd, c in sorted(conns, key=lambda x: -x[0]):
            if held <= limit:
                break
            held -= unfinished
            self._cut(fd, c, cuts, together)

    def _cut(self, fd: int, c: _Conn, cuts: list[Cut], together: str = "") -> None:
        c.cut = True
        self.cuts += 1
        _shutdown(fd)
        cuts.append(Cut(f"{c.peer[0]}:{c.peer[1]}", c.node, c.sample - c.mark, together))

    def count(self) -> int:
        """Inbound connections watched."""
        return len(self._conns)

    def tracking(self) -> bool:
        """Whether any inbound connection is open (and not already cut)."""
        return any(not c.cut for c in self._conns.values())

    def suspect(self) -> bool:
        """Some connection has read 64 KiB without a message: look again soon, so that the
        memory it can make us hold stays near the limit."""
        return sum(c.sample - c.mark for c in self._conns.values()
                   if not c.cut and c.sample > c.mark) > 64 << 10
