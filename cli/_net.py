"""The network verbs: ``host``, ``join``, ``lobby``, ``resume`` and ``simulate --network``.

Each ``run_*`` takes the argparse Namespace of its verb. Flags that ``cli.main`` may not
define yet are read with ``getattr(args, name, default)``.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import queue
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from engine import Action, Draw, Seating, card_name, parse_option, preset
from engine.bots import make_bot
from p2p.crypto.identity import Identity
from p2p.net.transport import Node
from p2p.table.config import TableConfig
from p2p.table.lobby import LobbyClient, LobbyError, LobbyHost, LobbyState, TableStart
from p2p.table.session import (
    Peer,
    SessionEvent,
    SessionOptions,
    TableStep,
    node_id_for,
    resume_peer,
)
from p2p.table.store import Store, find_tables, table_dir


def _g(args: argparse.Namespace, name: str, default: Any) -> Any:
    v = getattr(args, name, None)
    return default if v is None else v


# ===================================================================== simulate --network
def run_network_simulate(args: argparse.Namespace) -> int:
    from p2p.netsim import simulate_network

    from ._simulate import table_from_args

    rules, seating, bot_names = table_from_args(args)
    result = simulate_network(rules, seating, bot_names, args.games, args.seed,
                              args.transcript_dir)
    if args.json:
        print(json.dumps(result))
        return 0 if not result["failures"] else 1
    print(f"{result['games']} matches, {result['hands']} hands, rules {args.rules} "
          f"({seating.n_players} players, {seating.label()}), one peer process per seat")
    for p in result["players"]:
        print(f"  seat {p['seat']} {p['bot']:<10} wins {p['wins']:>5} "
              f"({100 * p['win_rate']:.1f}%)  avg score {p['avg_score']:.0f}")
    print(f"average turns per hand {result['avg_turns_per_hand']}, "
          f"{result['hands_per_second']} hands/s")
    print(f"network: {result['entries']} signed entries; transcripts of each game "
          + ("identical on every peer and verified"
             if not result["failures"] else "FAILED")
          + (f", in {args.transcript_dir}" if args.transcript_dir else ""))
    for f in result["failures"]:
        print(f"  {f}", file=sys.stderr)
    return 0 if not result["failures"] else 1


# ===================================================================== shared helpers
def _identity(args: argparse.Namespace) -> Identity:
    return Identity.load_or_create(_g(args, "identity", None))


def _name(args: argparse.Namespace) -> str:
    n = _g(args, "name", None)
    if n:
        return str(n)
    try:
        return getpass.getuser()[:12] or "player"
    except Exception:
        return "player"


def _data_dir(args: argparse.Namespace) -> Path | None:
    d = _g(args, "data_dir", None)
    return Path(d) if d else None


def _bind(args: argparse.Namespace) -> str:
    iface = _g(args, "interface", None)
    return str(iface or _g(args, "bind", "*"))


def _node(identity: Identity, args: argparse.Namespace) -> Node:
    return Node(node_id_for(identity.public_key), bind=_bind(args),
                port=int(_g(args, "port", 0)))


def action_text(a: Action) -> str:
    """A short line for a legal action (plain mode)."""
    kind = type(a).__name__
    card = getattr(a, "card", None)
    parts = [kind]
    if isinstance(card, int):
        parts.append(card_name(card))
    cards = getattr(a, "cards", None)
    if isinstance(cards, tuple):
        parts.append(", ".join(card_name(c) for c in cards))
    target = getattr(a, "target", None)
    if isinstance(target, int):
        parts.append(f"-> seat {target}")
    src = getattr(a, "source", None)
    if isinstance(src, str):
        parts.append(f"from the {src}")
    ext = getattr(a, "extend", None)
    if isinstance(ext, bool):
        parts.append("yes" if ext else "no")
    return " ".join(parts)


class _Input:
    """Lines typed on stdin without ever blocking the loops: a real file descriptor is
    polled with select() (so nothing is left reading the terminal when the console takes
    over); other streams (tests) are read by a daemon thread."""

    def __init__(self, inp: TextIO | None = None) -> None:
        self.inp = inp or sys.stdin
        self.q: queue.Queue[str | None] = queue.Queue()
        self._fd: int | None = None
        try:
            self._fd = self.inp.fileno()
        except (OSError, ValueError, AttributeError):
            self._fd = None
        self._eof = False
        if self._fd is None:
            threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.inp:
            self.q.put(line.strip())
        self.q.put(None)

    def get(self) -> str | None | bool:
        """A line, None at end of input, False when nothing was typed."""
        if self._fd is not None:
            if self._eof:
                return None
            import select
            try:
                ready, _, _ = select.select([self._fd], [], [], 0)
            except (OSError, ValueError):
                return False
            if not ready:
                return False
            line = self.inp.readline()
            if not line:
                self._eof = True
                return None
            return line.strip()
        try:
            return self.q.get_nowait()
        except queue.Empty:
            return False


def _words(peer: Peer, ev: SessionEvent) -> str:
    if ev.kind == "action" and ev.data.get("before") is not None:
        try:
            from .driver import describe
            line = describe(ev.data["before"], ev.data["action"], ev.data["after"],
                            peer.names, peer.me)
            return line or ""
        except Exception:  # the words are a nicety; the structured event is the truth
            pass
    return ev.text


def _quiet() -> None:
    """Dropped messages are shown as events in words; keep library warnings off stderr."""
    import logging
    logging.getLogger("p2p").setLevel(logging.ERROR)


def _print_state(st: LobbyState, out: TextIO) -> None:
    print(f"table {st.table_name!r}: {st.rules.preset} rules, {st.seating.n_players} seats "
          f"({st.seating.label()})", file=out)
    for line in st.describe():
        print("  " + line, file=out)


def _print_players(cfg: TableConfig, me: int, out: TextIO) -> None:
    from p2p.crypto.identity import fingerprint
    print(f"the match starts: table {cfg.table_id.hex()[:16]}", file=out)
    for p in cfg.players:
        print(f"  seat {p.seat}: {p.name} [{fingerprint(p.key)}]"
              + (" (you)" if p.seat == me else ""), file=out)


def play_plain(peer: Peer, inp: _Input | None, out: TextIO, auto: bool = False,
               bots: Sequence[Peer] = ()) -> int:
    """A minimal line-mode table: events in words, numbered moves; ``quit`` abandons."""
    last_wait = ""
    asked: tuple[int, int] | None = None
    legal: list[Action] = []
    while peer.pump(0.05):
        for ev in peer.drain_events():
            if ev.kind in ("action", "hand-start", "hand-end", "match-end", "stopped",
                           "dropped") or (ev.kind == "status" and ev.data.get("seat") is not None):
                words = _words(peer, ev)
                if words:
                    print(words, file=out)
        if peer.needs_decision():
            key = peer.progress()
            if asked != key:
                asked = key
                view = peer.view()
                legal = peer.legal()
                if view is not None:
                    hand = view.hands[peer.me]
                    if isinstance(hand, tuple):
                        print("your hand: " + ", ".join(card_name(c) for c in hand), file=out)
                print("your move:", file=out)
                for i, a in enumerate(legal):
                    print(f"  {i + 1}. {action_text(a)}", file=out)
                out.flush()
            if inp is not None:
                line = inp.get()
                if line is None or line == "quit":
                    peer.abandon("left by the player")
                    break
                if isinstance(line, str) and line:
                    if line.isdigit() and 1 <= int(line) <= len(legal):
                        try:
                            peer.submit(legal[int(line) - 1])
                        except Exception as exc:
                            print(f"refused: {exc}", file=out)
                            asked = None
                    else:
                        print(f"type a number from 1 to {len(legal)}, or quit", file=out)
        else:
            w = peer.waiting_text()
            if w and w != last_wait and "waiting" in w:
                last_wait = w
                print(w + ("; type 'abandon' to stop the match for good (the transcript "
                           "keeps what was played)" if w.endswith("(gone)") else ""), file=out)
            line = inp.get() if inp is not None and not auto else False
            if line == "quit":
                peer.abandon("left by the player")
                break
            if line == "abandon":
                peer.abandon(f"abandoned while {w or 'waiting'}")
                break
    for ev in peer.drain_events():
        print(ev.text, file=out)
    peer.linger(0.5)
    for b in bots:
        b.linger(0.1)
    if peer.finished:
        totals = peer.match_so_far().totals()
        print(f"final totals {list(totals)}; transcript: "
              f"{peer.transcript_path or '-'}", file=out)
        return 0
    print(f"the match stopped: {peer.stopped}", file=out)
    return 1


def _play(peer: Peer, args: argparse.Namespace, reader: _Input, out: TextIO,
          bots: Sequence[Peer] = ()) -> int:
    """The console for a networked seat: the full-screen app on a terminal, ``cli.plain``
    with ``--plain`` or without a terminal, the minimal loop for --auto and tests."""
    if peer.controller is not None or out is not sys.stdout:
        return play_plain(peer, None if peer.controller is not None else reader, out,
                          bots=bots)
    driver = NetDriver(peer, lang=_g(args, "lang", "en"), background=True)
    try:
        if not driver.wait_ready(120):
            print(f"the match did not start: {peer.stopped or 'no deal'}", file=out)
            return 1
        tty = sys.stdin.isatty() and sys.stdout.isatty()
        if _g(args, "plain", False) or not tty:
            from .plain import run_plain
            return run_plain(driver, lang=_g(args, "lang", "en"))
        from ._play import move_delay, use_color
        from .app import run_app
        return run_app(driver, lang=_g(args, "lang", "en"), color=use_color(args),
                       delay=min(move_delay(False), 0.2))
    finally:
        if not (peer.finished or peer.stopped):
            peer.abandon("left by the player")
        driver.close()


def _start_bots(start: TableStart, bots: dict[int, tuple[Identity, bytes, Node]],
                base: Path | None, opts: SessionOptions, seed: int,
                bind: str = "127.0.0.1") -> list[Peer]:
    peers: list[Peer] = []
    for seat, (ident, id_seed, node) in bots.items():
        bbase = (base or _default_base()) / f"bot-{seat}"
        store = Store.create(bbase, start.cfg.header(), seat, port=node.port, bind=bind,
                             endpoints=start.endpoints,
                             extra={"bot": "heuristic", "seed": seed + seat,
                                    "identity_seed": id_seed})
        p = Peer(ident, start.cfg, node, controller=make_bot("heuristic", seed + seat),
                 store=store, endpoints=start.endpoints, options=opts)
        peers.append(p)
    for p in peers:
        threading.Thread(target=_run_bot, args=(p,), daemon=True).start()
    return peers


def _run_bot(p: Peer) -> None:
    try:
        p.run()
        p.linger(1.0)
    finally:
        p.close(flush=1.0)


def _default_base() -> Path:
    from p2p.table.store import default_data_dir
    return default_data_dir()


def _my_store(start: TableStart, node: Node, args: argparse.Namespace) -> Store:
    return Store.create(_data_dir(args), start.cfg.header(), start.seat, port=node.port,
                        bind=_bind(args) if _bind(args) != "*" else "0.0.0.0",
                        endpoints=start.endpoints)


# ===================================================================== host
def run_host(args: argparse.Namespace, out: TextIO | None = None,
             inp: TextIO | None = None) -> int:
    out = out or sys.stdout
    _quiet()
    ident = _identity(args)
    options = dict(parse_option(o) for o in (_g(args, "option", []) or []))
    rules = preset(_g(args, "rules", "classic"), **options)
    n_bots = int(_g(args, "bots", 0))
    players = int(_g(args, "players", 0)) or max(2, 1 + n_bots)
    seating = Seating.parse(players, _g(args, "teams", None))
    if n_bots >= seating.n_players:
        raise ValueError("--bots must leave a seat for you")
    node = _node(ident, args)
    host = LobbyHost(ident, _name(args), node, rules, seating,
                     _g(args, "table_name", "") or "")
    seed = int(_g(args, "seed", 0))
    bots: dict[int, tuple[Identity, bytes, Node]] = {}
    for i in range(n_bots):
        id_seed = os.urandom(32)
        bid = Identity.from_seed(id_seed)
        bnode = Node(node_id_for(bid.public_key), bind=_bind(args))
        seat = host.add_bot(bid, f"Bot{i + 1}", _reachable(bnode.endpoint, node.endpoint))
        bots[seat] = (bid, id_seed, bnode)
    announcement = None
    if not _g(args, "no_announce", False):
        try:
            from p2p.net.discovery import announce_table
            announcement = announce_table(
                name=host.state.table_name, fingerprint=ident.fingerprint,
                rules=";".join([rules.preset, *(_g(args, "option", []) or [])]),
                seats_taken=seating.n_players - len(host.state.free()),
                seats_free=len(host.state.free()), port=node.port,
                interfaces=_g(args, "mdns", "all"))
        except Exception as exc:  # no multicast here: --peer still works
            print(f"(not announced on the LAN: {exc})", file=out)

    def changed(st: LobbyState) -> None:
        _print_state(st, out)
        if announcement is not None:
            try:
                announcement.update_seats(seating.n_players - len(st.free()), len(st.free()))
            except Exception:
                pass

    host.on_change = changed
    print(f"hosting on port {node.port} as {host.state.seats[0].name} "  # type: ignore[union-attr]
          f"[{ident.fingerprint}]; others join with: millebornes join --peer HOST:{node.port}",
          file=out)
    print("type 'ready' / 'unready', 'quit' to close the table", file=out)
    reader = _Input(inp)
    host.set_ready(not _g(args, "not_ready", False))
    start: TableStart | None = None
    try:
        while start is None:
            start = host.pump(0.1)
            line = reader.get()
            if line == "quit":
                print("table closed", file=out)
                return 1
            if line == "ready":
                host.set_ready(True)
            elif line == "unready":
                host.set_ready(False)
    finally:
        if announcement is not None:
            announcement.close()
    _print_players(start.cfg, start.seat, out)
    opts = SessionOptions()
    bind = _bind(args)
    bot_peers = _start_bots(start, bots, _data_dir(args), opts, seed,
                            "0.0.0.0" if bind == "*" else bind)
    store = _my_store(start, node, args)
    ctrl = make_bot("heuristic", seed) if _g(args, "auto", False) else None
    peer = Peer(ident, start.cfg, node, controller=ctrl, store=store,
                endpoints=start.endpoints, options=opts)
    try:
        return _play(peer, args, reader, out, bots=bot_peers)
    finally:
        peer.close(flush=1.0)


def _reachable(bot_ep: str, host_ep: str) -> str:
    """A bot bound to a wildcard is reached at the host's address."""
    host = host_ep[len("tcp://"):].rsplit(":", 1)[0]
    port = bot_ep.rsplit(":", 1)[1]
    if host in ("0.0.0.0", "*", "[::]"):
        return f"tcp://127.0.0.1:{port}"
    return f"tcp://{host}:{port}"


# ===================================================================== join
def run_join(args: argparse.Namespace, out: TextIO | None = None,
             inp: TextIO | None = None) -> int:
    out = out or sys.stdout
    _quiet()
    ident = _identity(args)
    peers = list(_g(args, "peer", []) or [])
    fp = None
    if not peers:
        from p2p.net.discovery import browse_tables
        want = _g(args, "table", None)
        print("looking for tables on the LAN...", file=out)
        with browse_tables(interfaces=_g(args, "mdns", "all")) as b:
            tables = b.wait_for(lambda ts: any(want in (None, t.name, t.fingerprint)
                                               for t in ts), 10.0)
        tables = [t for t in (tables or []) if want in (None, t.name, t.fingerprint)]
        if not tables:
            raise ValueError("no table found on the LAN; use --peer HOST:PORT")
        t = tables[0]
        peers, fp = [t.endpoint], t.fingerprint
        print(f"joining {t.name!r} at {t.endpoint}", file=out)
    node = _node(ident, args)
    seat = _g(args, "seat", None)
    client = LobbyClient(ident, _name(args), node, peers[0], host_fingerprint=fp,
                         seat=None if seat is None else int(seat))
    reader = _Input(inp)
    start: TableStart | None = None
    shown = None
    print("type 'sit N', 'ready', 'unready', 'leave'", file=out)
    auto_ready = not _g(args, "not_ready", False)
    try:
        while start is None:
            try:
                start = client.pump(0.1)
            except LobbyError as exc:
                print(f"the host refused: {exc}", file=out)
                return 1
            st = client.state
            if st is not None and st.to_obj() != shown:
                shown = st.to_obj()
                _print_state(st, out)
                if auto_ready and client.seat is not None and not client.ready:
                    client.set_ready(True)
            line = reader.get()
            if line in ("leave", "quit"):
                client.leave()
                node.flush(1.0)
                print("left the table", file=out)
                return 1
            if isinstance(line, str) and line.startswith("sit ") and line[4:].isdigit():
                client.sit(int(line[4:]))
            elif line == "ready":
                client.set_ready(True)
            elif line == "unready":
                auto_ready = False
                client.set_ready(False)
    except BaseException:
        node.close()
        raise
    _print_players(start.cfg, start.seat, out)
    store = _my_store(start, node, args)
    ctrl = make_bot("heuristic", int(_g(args, "seed", 0))) if _g(args, "auto", False) else None
    peer = Peer(ident, start.cfg, node, controller=ctrl, store=store,
                endpoints=start.endpoints)
    try:
        return _play(peer, args, reader, out)
    finally:
        peer.close(flush=1.0)


# ===================================================================== lobby
def run_lobby(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """List tables on the LAN live, as they appear and vanish (Ctrl-C to stop)."""
    from p2p.net.discovery import TableChange, TableInfo, browse_tables

    out = out or sys.stdout
    seconds = float(_g(args, "seconds", 0))

    def show(change: TableChange, t: TableInfo) -> None:
        verb = {"added": "+", "updated": "~", "removed": "-"}[change.value]
        print(f"{verb} {t.name!r} {t.rules} seats {t.seats_taken} taken, {t.seats_free} free, "
              f"host [{t.fingerprint}] at {t.endpoint}", file=out, flush=True)

    print("tables on the LAN (join with: millebornes join --peer HOST:PORT):", file=out)
    with browse_tables(show, interfaces=_g(args, "mdns", "all")):
        end = time.monotonic() + seconds if seconds > 0 else None
        try:
            while end is None or time.monotonic() < end:
                time.sleep(0.2)
        except KeyboardInterrupt:
            pass
    return 0


# ===================================================================== resume
def run_resume(args: argparse.Namespace, out: TextIO | None = None,
               inp: TextIO | None = None) -> int:
    """Resume a table after a crash: the most recent one, or the one named by id prefix."""
    out = out or sys.stdout
    _quiet()
    ident = _identity(args)
    base = _data_dir(args)
    want = _g(args, "table", None)
    tables = [p for p in find_tables(base) if want is None or p.name.startswith(str(want))]
    if not tables:
        raise ValueError("no table to resume in " + str(base or _default_base()))
    path = tables[0]
    ctrl = make_bot("heuristic", int(_g(args, "seed", 0))) if _g(args, "auto", False) else None
    peer = resume_peer(path, ident, controller=ctrl)
    if peer.finished or peer.stopped:
        print(f"table {path.name[:16]}: " + ("the match is over" if peer.finished else
                                             f"the match stopped: {peer.stopped}")
              + f"; transcript {path / 'transcript.mbt'}", file=out)
        peer.close(flush=0)
        return 0 if peer.finished else 1
    print(f"resumed table {path.name[:16]} at entry {peer.entries_applied}; catching up",
          file=out)
    bots = _resume_bots(peer.table_id, base)
    reader = _Input(inp)
    try:
        return _play(peer, args, reader, out, bots=bots)
    finally:
        peer.close(flush=1.0)


def _resume_bots(table_id: bytes, base: Path | None) -> list[Peer]:
    """The host's in-process bots of that table, if any, restarted from their stores."""
    root = base or _default_base()
    out: list[Peer] = []
    if not root.is_dir():
        return out
    for d in root.glob("bot-*"):
        tdir = table_dir(d, table_id)
        if not (tdir / "table.msgpack").exists():
            continue
        from p2p.table.store import read_meta
        extra = dict(read_meta(tdir).get("extra", {}))
        id_seed = extra.get("identity_seed")
        if not isinstance(id_seed, bytes):
            continue
        p = resume_peer(tdir, Identity.from_seed(id_seed),
                        controller=make_bot(str(extra.get("bot", "heuristic")),
                                            int(extra.get("seed", 0))))
        threading.Thread(target=_run_bot, args=(p,), daemon=True).start()
        out.append(p)
    return out


# ===================================================================== console driver
from .driver import end_line, side_names  # noqa: E402  (the console's wording)


class NetDriver:
    """:class:`cli.driver.TableDriver` over a networked :class:`p2p.session.Peer` (the
    human's seat), for the full-screen console and ``cli.plain``.

    The peer's protocol moves on to the next hand by itself (keys, shuffle, deal need no
    decision); the driver keeps showing the finished hand until the console calls
    :meth:`next_hand`. ``step_others`` never blocks: it handles what has arrived.
    """

    def __init__(self, peer: Peer, lang: str = "en", background: bool = False) -> None:
        """``background``: a thread pumps the peer (the console then only reads it), so
        this seat's automatic entries (shares, shuffle) never wait for the screen."""
        self.peer = peer
        self.seat = peer.me
        self.names = peer.names
        self.rules = peer.cfg.rules
        self.seating = peer.cfg.seating
        self.lang = lang
        self.events: list[str] = []
        self._shown_hand = 0                     # protocol hand number on screen
        self._held: Any = None                   # final view of a finished hand
        self._held_scores: Any = None
        self._last_view: Any = None
        self._seen = 0
        self._thread: threading.Thread | None = None
        if background:
            self._thread = threading.Thread(target=self._pump_forever, daemon=True,
                                            name=f"peer-{peer.me}")
            self._thread.start()

    def _pump_forever(self) -> None:
        while self.peer.pump(0.05):
            pass
        self.peer.linger(1.0)

    def close(self) -> None:
        if self._thread is not None:
            self._thread.join(5)

    # ----- lifecycle ---------------------------------------------------------------------
    def wait_ready(self, timeout: float = 60.0) -> bool:
        """Pump until the first hand is dealt (the console needs a view to show)."""
        end = time.monotonic() + timeout
        while self.peer.view() is None and time.monotonic() < end:
            if self._thread is not None:
                time.sleep(0.02)
                if self.peer.stopped or self.peer.finished:
                    break
            elif not self.peer.pump(0.05):
                break
            self._collect()
        return self.peer.view() is not None

    @property
    def hand_no(self) -> int:
        return self._shown_hand + 1

    @hand_no.setter
    def hand_no(self, value: int) -> None:
        raise AttributeError("the hand number follows the network log")

    @property
    def match(self) -> Any:
        return self.peer.match_so_far()

    @match.setter
    def match(self, value: Any) -> None:
        raise AttributeError("the match follows the network log")

    # ----- the human seat ----------------------------------------------------------------
    def view(self) -> Any:
        if self._held is not None:
            return self._held
        v = self.peer.view()
        if v is None:
            return self._last_view
        self._last_view = v
        return v

    def _current(self) -> bool:
        return self._held is None and self.peer.hand_no == self._shown_hand

    def legal(self) -> list[Action]:
        return self.peer.legal() if self._current() else []

    def my_move(self) -> bool:
        return self._current() and self.peer.needs_decision()

    def submit(self, action: Action) -> None:
        if not self._current():
            from engine import IllegalAction
            raise IllegalAction("R0", "the hand is over", action)
        self.peer.submit(action)
        self._collect()

    # ----- everyone else -----------------------------------------------------------------
    def _forced_draw(self) -> Action | None:
        """The human's draw when the pile is the only place to draw from (as LocalDriver)."""
        if not self.my_move():
            return None
        legal = self.peer.legal()
        if len(legal) == 1 and isinstance(legal[0], Draw):
            return legal[0]
        return None

    def others_pending(self) -> bool:
        if self.over or self._held is not None:
            return False
        return not self.my_move() or self._forced_draw() is not None

    def step_others(self) -> bool:
        forced = self._forced_draw()
        if forced is not None:
            self.peer.submit(forced)
        if self._thread is None:
            self.peer.pump(0.01)     # returns as soon as something arrives
        else:
            time.sleep(0.005)
        self._collect()
        now = self.peer.entries_applied
        moved, self._seen = now != self._seen, now
        return moved

    def _collect(self) -> None:
        for ev in self.peer.drain_events():
            if ev.kind == "hand-end" and ev.data.get("hand") == self._shown_hand:
                final = ev.data.get("final")
                self._held = final if final is not None else (
                    self._last_view if self._last_view is not None else self.view())
                self._held_scores = ev.data.get("scores")
            if ev.kind == "action" and ev.data.get("after") is not None:
                if ev.data.get("hand") == self._shown_hand and self._held is None:
                    self._last_view = ev.data["after"]
            words = _words(self.peer, ev) if ev.kind != "dropped" else ev.text
            if ev.kind == "hand-end" and self._held is not None and self._held.over:
                words = end_line(self._held, self.names, int(ev.data.get("hand", 0)) + 1)
            elif ev.kind == "match-end" and self.peer.winner() >= 0:
                who = side_names(self.names, self.seating)[self.peer.winner()]
                words = f"Match over: {who} {'win' if who == 'You' else 'wins'}."
            if words and ev.kind not in ("status",):
                self.events.append(words)

    @property
    def hand_over(self) -> bool:
        return self._held is not None or self.peer.stopped is not None

    @property
    def over(self) -> bool:
        return self.peer.finished or self.peer.stopped is not None

    def next_hand(self) -> None:
        if not self.hand_over:
            raise ValueError("the hand is still in play")
        if self.over:
            raise ValueError("the match is over")
        self._held = None
        self._held_scores = None
        self._shown_hand += 1
        self._last_view = None

    def last_scores(self) -> Any:
        return self._held_scores

    def peers(self) -> list[Any]:
        from .driver import PeerStatus

        out = []
        for p in self.peer.peers():
            state = p.status if p.status != "you" else "you"
            if p.writing and p.seat != self.seat:
                state = "thinking" if p.status == "connected" else p.status
            out.append(PeerStatus(p.seat, p.name, "you" if p.seat == self.seat else "peer",
                                  state))
        return out

    def activity(self) -> str | None:
        if self.peer.stopped:
            return f"stopped: {self.peer.stopped}"
        w = self.peer.waiting_on()
        if w is None or self.over:
            return None
        who = self.names[w.seat]
        kind = None if w.step in (TableStep.MOVE, TableStep.SHARE) else w.step.value
        if kind is None:
            if self.my_move():
                return None  # the console says what to do (render.waiting_text)
            w = self.peer.waiting_text()
            return w or None
        st = "" if w.seat == self.seat else self.peer.peer_state(w.seat)
        return f"{kind}: {who}" + (f" ({st})" if st and st != "connected" else "")
