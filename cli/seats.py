"""What every networked verb (``play``, ``host``, ``join``, ``resume``) needs to seat
someone at a table: an identity, a listening node (with plain-words errors), a store in
the data folder, the host's bot peers, and a line reader that never blocks the loops.
"""

from __future__ import annotations

import argparse
import errno
import fcntl
import ipaddress
import logging
import math
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TextIO

import zmq

from engine.bots import SeatController, bot_name_key, make_bot
from p2p.crypto.identity import Identity, fingerprint
from p2p.net import literal_host, parse_endpoint
from p2p.net.transport import Node
from p2p.table import (
    LobbyState,
    Peer,
    Store,
    TableConfig,
    TableStart,
    admit_table,
    resume_peer,
)
from p2p.table import node_id_for as node_id_for
from p2p.table.store import default_data_dir, read_meta, table_dir
from p2p.text import safe_text

from . import i18n
from .args import (
    auto_flags,
    bind_address,
    data_dir,
    move_delay,
    plain_wanted,
    remember_game,
    resume_flags,
)
from .bot_process import ANSWER_WITHIN, BotProcess, bot_move_time, log_bot_fault
from .console import run_console
from .games import auto_extra
from .i18n import _
from .netdriver import NetDriver
from .plain import MAX_LINE_BYTES as MAX_LINE_BYTES
from .plain import LineReader as LineReader
from .words import (
    deal_setup_line,
    error_line,
    key_change_line,
    known_problem_line,
    lobby_seat_lines,
    local_names,
    move_limit_note,
    paused_line,
    peer_stop_reason,
    peer_stopped_line,
    rules_label,
    saved_line,
    say_paragraph,
    say_paragraphs,
    seating_words,
    table_name_text,
    watcher_left_line,
    with_you,
    wrap,
    you_label,
)

#: the error numbers ZeroMQ reports for an address that cannot be listened on
_IN_USE = {errno.EADDRINUSE}
_NO_ADDR = {errno.EADDRNOTAVAIL, errno.ENODEV}


def base_dir(args: argparse.Namespace) -> Path:
    """The data folder: ``--data-dir`` or the default one."""
    return data_dir(args) or default_data_dir()


def identity(args: argparse.Namespace) -> Identity:
    """The player's key (``--identity``), with the data folder claimed for it."""
    ident = Identity.load_or_create(getattr(args, "identity", None))
    claim_data_folder(ident, base_dir(args))
    return ident


#: Open claims of data folders (kept for the life of the process: closing one releases it).
_CLAIMS: dict[tuple[Path, str], int] = {}


def claim_data_folder(ident: Identity, base: Path) -> None:
    """One player at a time per data folder. Two players on one account who share it (a
    second ``--identity`` without its own ``--data-dir``) both write the same table's folder:
    the second to arrive stopped with "already holds this table" and the first found its
    copy "damaged" on resume. So each player holds a lock file of its own key in the folder
    while it plays (shared: the same player may run two commands), and a player whose folder
    is held by another key is told at once, before it sits down."""
    mine = fingerprint(ident.public_key)
    if (base, mine) in _CLAIMS:
        return
    try:
        base.mkdir(parents=True, exist_ok=True, mode=0o700)
        for lock in sorted(base.glob("player-*.lock")):
            other = lock.name[len("player-"):-len(".lock")]
            if other == mine or any(b == base and k == other for b, k in _CLAIMS):
                continue
            try:      # never a wait: a named pipe planted under a lock's name opens at once
                fd = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise ValueError(_(
                    "another player (key %(key)s) is playing from the data folder %(dir)s "
                    "right now; a second player on this computer needs a folder of their own: "
                    "add --data-dir DIR (with --identity FILE)") % {
                        "key": other, "dir": base}) from None
            except OSError:
                continue      # not a lock at all (a pipe, a folder's oddity): nobody's claim
            finally:
                os.close(fd)
        fd = os.open(base / f"player-{mine}.lock",
                     os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
        _lock_shared(fd)
    except OSError as exc:
        # a read-only folder, say: what fails with it is said where it is written
        logging.getLogger("cli.seats").info("data folder %s not claimed: %s", base, exc)
        return
    _CLAIMS[(base, mine)] = fd


#: Seconds a claim waits for its own lock file: another player's look at it holds it a
#: moment; a program that holds it longer gets the claim given up (never a wait for ever)
CLAIM_WAIT = 1.0


def _lock_shared(fd: int) -> None:
    """A shared lock on ``fd`` within :data:`CLAIM_WAIT` s, else ``OSError`` (and ``fd``
    closed). Another program holding the player's lock file exclusively held every
    command that seats the player for ever, before a word (hostile pass 22)."""
    end = time.monotonic() + CLAIM_WAIT
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= end:
                os.close(fd)
                raise OSError(errno.EWOULDBLOCK, "its lock file is held by another "
                              "program") from None
            time.sleep(0.05)
        except OSError:
            os.close(fd)
            raise


def listen(ident: Identity, bind: str, port: int, secure: bool = False) -> Node:
    """A node listening on ``bind:port``; ``secure``: authenticated with the player's CURVE
    key, signed by its identity (where libzmq has CURVE). A port in use or a wrong address
    becomes one sentence saying what to do (``OSError``), never a traceback."""
    try:
        return Node(node_id_for(ident.public_key), bind=bind, port=port,
                    curve=ident.curve_keys() if secure and zmq.has("curve") else None)
    except Exception as exc:
        code = getattr(exc, "errno", None)
        where = (_("all addresses, port %(port)d") % {"port": port} if bind in ("*", "") else
                 _("%(address)s, port %(port)d") % {"address": bind, "port": port})
        if code in _IN_USE:
            raise OSError(_("port %(port)d is already in use on this machine (another "
                            "millebornes, or another program): choose another with --port, "
                            "or leave --port out to take any free port")
                          % {"port": port}) from None
        if code in _NO_ADDR:
            raise OSError(_("cannot listen on %(where)s: this machine has no such address "
                            "or interface (check --bind / --interface)")
                          % {"where": where}) from None
        raise OSError(_("cannot listen on %(where)s: %(error)s")   # the system's own words
                      % {"where": where, "error": exc}) from None


def seat_node(ident: Identity, args: argparse.Namespace) -> Node:
    """The node of a seat formed in the lobby (host, join): CURVE, so strangers get no
    further than HELLO and, once the table is formed, only the seated keys get in."""
    return listen(ident, bind_address(args), int(getattr(args, "port", 0) or 0), secure=True)


def my_store(start: TableStart, node: Node, args: argparse.Namespace) -> Store:
    bind = bind_address(args)
    chosen = getattr(args, "identity", None)
    # the key file this seat plays with, when not the default: resume finds it again (a
    # player whose computer crashed had only `games`' hint, which cannot know it, and
    # resume said "belongs to another identity")
    extra: dict[str, object] = {REMEMBERED_IDENTITY: str(Path(chosen).resolve())} \
        if chosen else {}
    # the seats bots play (the host's, this player's): resume names them as bots (a
    # joiner's resume listed the host's bots as "Bot1 (connected)")
    extra[BOT_SEATS] = sorted({int(s) for s in getattr(start, "bots", ())})
    extra.update(auto_extra(args))
    store = Store.create(data_dir(args), start.cfg.header(), start.seat, port=node.port,
                         bind="0.0.0.0" if bind == "*" else bind, endpoints=start.endpoints,
                         extra=extra, alternatives=start.alternatives)
    # from here on, Ctrl-C leaves a game to resume, and its resume command names it (said
    # before the store existed, a Ctrl-C in between named "resume" with no id: the newest
    # game of the folder, another one)
    remember_game(args, getattr(store, "path", None))
    return store


#: The ``extra`` entry of a table's store naming the identity key file it was played with.
REMEMBERED_IDENTITY = "identity"
#: The ``extra`` entry of a table's store listing the seats bots played from the start.
BOT_SEATS = "bot_seats"
#: (the entry naming the bot that played the player's own seat: ``cli.games.AUTO_BOT``)


def stored_bot_seats(table: Path, players: int) -> list[int]:
    """The seats bots played from the start of a saved table (see :func:`my_store`); none
    for a store that does not say (an earlier release's) or says it wrongly (a file on
    this computer: only seats of the table are taken)."""
    try:
        seats = read_meta(table)["extra"].get(BOT_SEATS)
    except (OSError, ValueError):
        return []
    if not isinstance(seats, list):
        return []
    return sorted({s for s in seats[:64] if type(s) is int and 0 <= s < players})


def remembered_identity(table: Path) -> str | None:
    """The identity key file a saved table was played with (``--identity``), if it was
    not the default one and the file is still there; None otherwise (or when the store's
    meta cannot be read: resume then says what is wrong with it)."""
    try:
        chosen = read_meta(table)["extra"].get(REMEMBERED_IDENTITY)
    except (OSError, ValueError):
        return None
    # printable: a path holding a terminal's control sequences, written there by another
    # program, reached the terminal in resume's "(with the identity key ...)" (hostile
    # pass 24); this program stores the path the player typed, or resolved
    if (isinstance(chosen, str) and 0 < len(chosen) < 4096 and chosen.isprintable()
            and Path(chosen).is_file()):
        return chosen
    return None


BotSeat = tuple[Identity, bytes, Node]


def new_bot_seat(bind: str, secure: bool = False) -> BotSeat:
    """A bot's identity (from a seed kept in its store, so it can resume) and node."""
    id_seed = os.urandom(32)
    bid = Identity.from_seed(id_seed)
    return bid, id_seed, listen(bid, bind, 0, secure)


#: Bots quick enough to think in the peer's own process; any other thinks in a child
#: process (:class:`cli.bot_process.BotProcess`) so the peers' threads never starve.
QUICK_BOTS = frozenset({"random", "heuristic", "heuristic-v1", "easy", "normal"})


def bot_controller(spec: str, seed: int,
                   on_fault: Callable[[str, str], None] | None = None,
                   move_limit: float | None = None,
                   seat: int | None = None) -> SeatController:
    """The seat controller for a bot spec (``heuristic``, ``expert``, ``search:ms=200``, …);
    ``on_fault``: told (spec, words) when a bot in its own process fails (default: logged);
    ``move_limit``: the table's time for a move, if it has one (:func:`bot_move_time`);
    ``seat``: the seat it plays, named in the log."""
    # its name as it is looked up: "Normal" or "HEURISTIC" is the quick bot too (it was
    # started in a process of its own, as a plug-in is, its moves written to disk first)
    if bot_name_key(spec.split(":", 1)[0].strip()) in QUICK_BOTS:
        return make_bot(spec, seed)
    return BotProcess(spec, seed, on_fault=on_fault, answer_within=bot_move_time(move_limit),
                      make_within=ANSWER_WITHIN, seat=seat)


class BotRunners:
    """Bot peers in this process (resumed ones, and bots that take a silent seat), each
    pumped by a daemon thread until its match ends."""

    def __init__(self, peers: list[Peer],
                 failed: list[tuple[int | None, str]] | None = None) -> None:
        self.peers = peers
        #: the bots that could not be resumed: (seat if known, why in words)
        self.failed = failed if failed is not None else []
        self._faults: list[tuple[int, str, str]] = []
        self._faults_lock = threading.Lock()
        self.threads: list[threading.Thread] = []
        #: the bot (spec) each resumed bot's seat plays, as `play --bots` named it
        self.levels: dict[int, str] = {}
        #: set when their player leaves: they leave too, and say so (a resumed bot, or one
        #: that took a silent seat, went silent instead, and the others waited out the
        #: transport's and the table's limits to hear it had stopped answering)
        self.leave = threading.Event()

    def start(self) -> None:
        """One daemon thread pumps each bot's peer."""
        self.threads = [threading.Thread(target=run_bot, args=(p,), kwargs={"until": self.leave},
                                         daemon=True, name=f"bot-{p.me}") for p in self.peers]
        for t in self.threads:
            t.start()

    def fault_reporter(self, seat: int) -> Callable[[str, str], None]:
        """What a bot of ``seat`` in its own process calls when it fails: kept (and logged)
        for :meth:`faults`, so its player's screen says it, as at the table it left."""
        def report(spec: str, words: str) -> None:
            log_bot_fault(spec, words, seat)
            with self._faults_lock:
                if len(self._faults) < 64:
                    self._faults.append((seat, spec, words))
        return report

    def faults(self) -> list[tuple[int, str, str]]:
        """The bots that failed since the last call, ``(seat, spec, words)`` (as
        :meth:`cli.bot_peers.BotPeers.faults`). Never waits."""
        with self._faults_lock:
            out, self._faults = self._faults, []
        return out

    def finish(self, timeout: float) -> None:
        """Give the bots up to ``timeout`` seconds to write their last entries and close
        their stores (the process must not end under them after a finished match)."""
        end = time.monotonic() + timeout
        for t in self.threads:
            t.join(max(0.0, end - time.monotonic()))
        self.leave.set()               # a match not over: they quit with their player
        for t in self.threads:
            t.join(3.0)
        for p in self.peers:
            close = getattr(p.controller, "close", None)
            if close is not None:
                close()


def run_bot(p: Peer, until: threading.Event | None = None) -> None:
    """Pump a bot's peer to the end of its match (or until ``until`` is set: its player
    left), then serve late requests a moment and close it."""
    try:
        # paused: the bot goes with the others' choice, and waits as long as its player's
        # console does (it leaves with it: ``until``, or its daemon thread): after 600 s
        # it left for good, and a player told to wait for one who left, with no time
        # limit, found the host's bot gone too when they came back
        p.run(pause_wait=math.inf, until=until)
        if until is None or not until.is_set():
            p.linger(1.0)
        else:
            say_away(p, flush=0.3)     # its player left: the others hear the bot go too
    finally:
        p.close(flush=1.0)


def resume_bots(table_id: bytes, base: Path | None) -> BotRunners:
    """The host's in-process bots of that table, if any, restarted from their stores."""
    root = base or default_data_dir()
    out: list[Peer] = []
    failed: list[tuple[int | None, str]] = []
    runners = BotRunners(out, failed)      # its threads start with start()
    if not root.is_dir():
        return runners
    for d in sorted(root.glob("bot-*")):
        tdir = table_dir(d, table_id)
        if not (tdir / "table.msgpack").exists():
            continue
        try:
            meta = read_meta(tdir)
            extra = dict(meta.get("extra", {}))
            id_seed = extra.get("identity_seed")
            if not isinstance(id_seed, bytes):
                continue
            seed = extra.get("seed", 0)
            bot_seat = meta.get("seat")
            spec = str(extra.get("bot", "heuristic"))
            controller = bot_controller(
                spec, seed if isinstance(seed, int) else 0,
                on_fault=runners.fault_reporter(bot_seat) if isinstance(bot_seat, int)
                else None, seat=bot_seat if isinstance(bot_seat, int) else None)
            try:
                peer = resume_peer(tdir, Identity.from_seed(id_seed), controller=controller)
            except BaseException:
                close = getattr(controller, "close", None)
                if close is not None:
                    close()                # its child would wait for questions for ever
                raise
            if isinstance(controller, BotProcess):
                # the table's move limit, read from its header (a resumed plug-in kept its
                # own 30 s and paused a timed table at its every slow move)
                controller.answer_within = bot_move_time(peer.cfg.decision_limit)
            out.append(peer)
            # named as `play` named it ("Bo (bot: expert)"; resume said "Bo (bot)"): a spec
            # the bot was made from, so one that parses, read from this computer's file
            runners.levels[peer.me] = safe_text(spec, 40)
        except (ValueError, OSError) as exc:   # a bot's damaged copy: its seat waits
            logging.getLogger("cli.seats").warning("bot at %s not resumed: %s", d, exc)
            try:
                seat: int | None = int(read_meta(tdir)["seat"])
            except (ValueError, OSError):
                seat = None
            failed.append((seat, error_line(exc)))
    runners.start()
    return runners


def on_this_machine(endpoint: str) -> str:
    """A seat's endpoint as a bot on the same machine reaches it: one bound to every
    address (``tcp://0.0.0.0:PORT``, the host's default) is reached on the loopback (a
    wildcard is no address to connect to)."""
    addr, sep, port = endpoint.removeprefix("tcp://").rpartition(":")
    local = {"0.0.0.0": "127.0.0.1", "*": "127.0.0.1", "[::]": "[::1]"}.get(addr)
    return f"tcp://{local}:{port}" if sep and local else endpoint


def _endpoint_host(endpoint: str) -> str | None:
    """The IP address of ``endpoint`` (``tcp://HOST:PORT``) when another machine can
    connect to it (:func:`p2p.net.literal_host`); None for a wildcard or a name."""
    try:
        return parse_endpoint(endpoint, literal_only=True)[len("tcp://"):].rsplit(":", 1)[0]
    except ValueError:
        return None


def _route_source(endpoint: str) -> str | None:
    """The local address this machine sends from to reach ``endpoint`` (a datagram
    socket's connect picks the route; nothing is sent)."""
    host = _endpoint_host(endpoint)
    if host is None:
        return None
    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect((bare, 9))
            return literal_host(str(s.getsockname()[0]))
    except OSError:
        return None


def address_others_reach(bind: str, own: str, others: Collection[str]) -> str:
    """The address of this machine that the other seats can connect to, for a node bound to
    ``bind`` (an address, or ``*``/``0.0.0.0``: every address): the bound address itself,
    else the one this machine reaches the others from (a LAN address rather than the
    loopback when some seat is elsewhere), else this seat's own recorded endpoint. A
    wildcard is never an answer: no peer may connect to tcp://0.0.0.0 (it was offered as
    a bot's address, every peer refused it and the match stopped). OSError when there is
    none."""
    fixed = literal_host(bind)
    if fixed is not None:
        return fixed
    routes = [r for r in (_route_source(ep) for ep in others) if r is not None]
    outside = [r for r in routes if not ipaddress.ip_address(r.strip("[]")).is_loopback]
    for found in (outside, routes, [h for h in [_endpoint_host(own)] if h is not None]):
        if found:
            return found[0]
    raise OSError(_("this computer has no address the other players can reach a bot at"))


class TakeoverBots:
    """The bots this seat runs for silent seats, by the others' agreement (issue 9): a
    fresh identity and node offered before this seat signs the takeover
    (:meth:`prepare`), started from a copy of this seat's log once every other seat
    agreed (:meth:`start`, called by the peer). Each keeps its own store beside the
    host's bots (``bot-SEAT``), so ``resume`` brings it back like them."""

    def __init__(self, peer: Peer, args: argparse.Namespace) -> None:
        self.peer = peer
        self.args = args
        self.base = data_dir(args) or default_data_dir()
        self.bind = bind_address(args)
        self.ready: dict[int, BotSeat] = {}
        self.runners: list[BotRunners] = []
        peer.on_takeover = self.start

    def _endpoints(self) -> dict[int, str]:
        raw = getattr(self.peer.store, "meta", {}).get("endpoints", {}) or {}
        return {int(k): str(v) for k, v in raw.items()}

    def prepare(self, seat: int) -> None:
        """A bot identity and node for ``seat``, offered to the peer (its key, where it
        listens: this machine's address as the others reach it). OSError when this
        machine has no address the others can reach."""
        eps = self._endpoints()
        host = address_others_reach(self.bind, eps.get(self.peer.me, ""),
                                    [ep for s, ep in sorted(eps.items()) if s != self.peer.me])
        if seat not in self.ready:
            self.ready[seat] = new_bot_seat("127.0.0.1" if self.bind == "127.0.0.1" else
                                            self.bind, secure=bool(self.peer.cfg.curve))
        ident, _seed, node = self.ready[seat]
        curve = None
        if self.peer.cfg.curve and node.curve is not None:
            ck = ident.curve_keys()
            curve = (ck.public, ck.certificate)
        self.peer.offer_bot(ident.public_key, f"tcp://{host}:{node.port}", curve)

    def start(self, data: Mapping[str, object]) -> None:
        """The takeover is agreed: start the bot peer for that seat from this seat's log."""
        seat = int(data["seat"])  # type: ignore[call-overload]
        bot = self.ready.pop(seat, None)
        if bot is None or bot[0].public_key != data["key"]:
            logging.getLogger("cli.seats").warning("no bot ready for seat %d", seat)
            return
        ident, id_seed, node = bot
        cfg = self.peer.cfg
        admit_table(node, cfg)
        for t in self.peer.takeovers:
            if t.curve is not None and t.seat != seat:
                node.expect_key(node_id_for(t.key), t.curve[0])
        eps = self._endpoints()
        if self.peer.me in eps:       # the bot reaches its runner on this machine
            eps[self.peer.me] = on_this_machine(eps[self.peer.me])
        chain, side = self.peer.log_so_far()
        # a second takeover of the seat (its first bot's computer left) gets a folder of
        # its own: the first one's holds this table already, and the new bot never started
        folder = self.base / f"bot-{seat}"
        if table_dir(folder, cfg.table_id).exists():
            folder = self.base / f"bot-{seat}-hand{int(data['hand']) + 2}"  # type: ignore[call-overload]
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)   # private, like every folder
        store = Store.create(folder, cfg.header(), seat, port=node.port,
                             bind="127.0.0.1" if self.bind == "127.0.0.1" else "0.0.0.0",
                             endpoints=eps, extra={"bot": "heuristic", "seed": seat,
                                                   "identity_seed": id_seed},
                             alternatives=self.peer.alternatives)
        for env in chain + side:
            store.append(env, sync=False)
        store.sync()
        p = Peer(ident, cfg, node, controller=bot_controller("heuristic", seat), store=store,
                 endpoints=eps, alternatives=self.peer.alternatives, options=self.peer.opts,
                 replay=chain, side=side, seat=seat)
        p.fetch()
        runners = BotRunners([p])
        runners.start()
        self.runners.append(runners)

    def finish(self, timeout: float) -> None:
        for r in self.runners:
            r.finish(timeout)


#: Words a newcomer typed in a table's lobby to have it start, or to add a bot to it:
#: answered with the help and what the start waits for (it was "unknown command 'start'").
START_WORDS = ("start", "go", "begin", "play", "bot", "bots", "deal")


def asks_to_start(line: object) -> bool:
    """Does ``line``, typed in a lobby (host's or joiner's), ask to start the table or to
    seat a bot?"""
    if not isinstance(line, str) or not line.split():
        return False
    return line.split()[0].casefold() in START_WORDS


def lobby_lines(st: LobbyState, me: int | None = None,
                width: int | None = None) -> list[str]:
    """The table as the lobby shows it: name, rules and seats, and each move's time limit
    when the host set one (a player who sits down agrees to it); ``me``: this screen's
    seat (see lobby_seat_lines). ``width``: the terminal's, each line wrapped at spaces
    (at 60 columns the head was cut mid-word by the terminal: "(eac" / "h move: up to
    60 s, then the table pauses)"), a seat's further lines under its first."""
    head = _("Table %(name)s: %(rules)s, %(n)d seats (%(seating)s)") % {
        "name": repr(table_name_text(st)), "rules": rules_label(st.rules),
        "n": st.seating.n_players, "seating": seating_words(st.seating)}
    if st.move_limit is not None:
        head += " " + move_limit_note(st.move_limit)
    seats = lobby_seat_lines(st, me)
    if width is None:
        return [head, *("  " + line for line in seats)]
    out = wrap(head, width)
    for line in seats:
        first, *rest = wrap(line, width - 2)
        out += ["  " + first, *("    " + w for w in rest)]
    return out


def players_lines(cfg: TableConfig, me: int) -> list[str]:
    out = [_("The match starts: table %(id)s") % {"id": cfg.table_id.hex()[:16]}]
    # this seat's default name "You" is said in the player's language, once ("You (you)"
    # in English, "You (vous)" in French); another player so named is "You N"
    names = local_names([p.name for p in cfg.players], me)
    for p, name in zip(cfg.players, names, strict=True):
        mine = p.seat == me
        out.append("  " + _("seat %(seat)d: %(name)s [%(key)s]")
                   % {"seat": p.seat, "name": you_label(name) if mine else name,
                      "key": fingerprint(p.key)}
                   + (with_you(name)[len(name):] if mine and name != "You" else ""))
    return out


def known_lines(args: argparse.Namespace, cfg: TableConfig, me: int,
                bots: Collection[int] = ()) -> list[str]:
    """Remember the other players' keys by name (next to the identity file; bots, whose
    keys are new each table, are not players); a warning for each name we knew with
    another key (a new machine, or someone using the name)."""
    from p2p.crypto.known import KnownPlayers, default_known_path
    ident = getattr(args, "identity", None)
    known = KnownPlayers(Path(ident).with_name("known_players") if ident
                         else default_known_path())
    problem = known_problem_line(known)
    out = [problem] if problem else []
    for p in cfg.players:
        if p.seat != me and p.seat not in bots:
            change = known.meet(p.name, p.key)
            if change is not None:
                out.append(key_change_line(change))
    known.save_order()
    return out


#: Seconds a step of the set-up before the first deal (a seat's keys, its shuffle) may
#: take before the wait is named with its seat and its limit
SETUP_QUIET = 2.0


def say_away(peer: Peer, flush: float = 0.5) -> None:
    """This player (or a bot of theirs) leaves a match that is not over: tell the others
    (never raises: the player is leaving, whatever the network does)."""
    try:
        peer.leave_for_now(flush=flush)
    except Exception as exc:      # a closed node, a broken network: they find out anyway
        logging.getLogger("cli.seats").info("could not tell the others this player left: "
                                            "%s", exc)


def play_seat(peer: Peer, args: argparse.Namespace, reader: LineReader,
              out: TextIO | None = None, bots: Collection[int] = (),
              broken: Collection[int] = (),
              bot_faults: Callable[[], list[tuple[int, str, str]]] | None = None,
              bot_levels: Mapping[int, str] | None = None) -> int:
    """The console for a networked seat until the match ends or the player leaves; then
    where the game is kept. ``out`` given (tests, scripts): the line mode on it.
    ``bot_faults``: this player's bots that failed (:meth:`NetDriver.__init__`).
    ``bot_levels``: the bot each of this player's bot seats plays, as `--bots` named it
    ("Cy (bot: expert)")."""
    say = out or sys.stdout
    takeover = TakeoverBots(peer, args)
    driver = NetDriver(peer, lang=str(getattr(args, "lang", None) or "en"), background=True,
                       bots=bots, bot_maker=takeover.prepare, broken=broken,
                       bot_faults=bot_faults)
    driver.bot_levels = dict(bot_levels or {})
    try:
        if peer.view() is None:
            # the set-up in one line; a step that takes longer is named as it waits
            say_paragraph(deal_setup_line(SETUP_QUIET), say, flush=True)
        if not driver.wait_ready(120, say=lambda line: print(i18n.display(f"* {line}"), file=say,
                                                                flush=True),
                                 quiet_for=SETUP_QUIET):
            print(i18n.display(_("the match did not start: %(reason)s")
                  % {"reason": peer_stop_reason(peer) or _("no deal from the others")}),
                  file=say)
            return 1
        # the line mode reads through the lobby's reader (never blocking: a line typed in
        # another's turn is answered at once), the full screen from the terminal itself
        inp = reader if out is not None or not sys.stdin.isatty() or plain_wanted(args) \
            else None
        kept = peer.transcript_path
        try:
            code = run_console(driver, args, seed=int(getattr(args, "seed", 0) or 0),
                               out=out, inp=inp,  # type: ignore[arg-type]
                               delay=min(move_delay(False), 0.2),
                               table_dir=None if kept is None else kept.parent)
        except KeyboardInterrupt:
            # Ctrl-C: leaving, said with this game's own resume line (see cli.play)
            print(file=say)
            code = 130
    finally:
        # Leaving is a pause, not an end: nothing is signed into the game; the others are
        # told (a signed AWAY: they say so at once and pause when they need this seat),
        # and `millebornes resume` brings this seat back.
        driver.close()
        say_away(peer)
        takeover.finish(5.0 if peer.finished else 0.5)
    path = peer.transcript_path
    short = path.parent.name[:8] if path is not None else None
    # wrapped at the terminal's width (at 80 it broke the resume command of a wide window
    # in two); 80 in a file or a pipe
    st = peer.state         # one look: finished, stopped and paused of the same instant
    if st.finished:
        said = saved_line(str(path), short, resume_flags(args)[1], plain_wanted(args))
        say_paragraphs([_("The match is over.") + " " + said[0], *said[1:]], say)
        return 0
    if st.over:
        say_paragraph(peer_stopped_line(peer), say)
        return code if code else 1
    # left while the table waited for a silent seat: a pause like any other, resumable
    # (it said "the match stopped" with no resume line, and exit code 1)
    if any(t.seat == peer.me for t in peer.takeovers):
        say_paragraphs(watcher_left_line(short, *resume_flags(args)), say)
    else:
        again, check = resume_flags(args)
        say_paragraphs(paused_line(short, again + auto_flags(args), check), say)
    return code
