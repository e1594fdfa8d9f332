"""``millebornes host``: open a table on the LAN, wait for players, then play."""

from __future__ import annotations

import argparse
import logging
import socket
import sys
import threading
from collections.abc import Sequence
from typing import Any, TextIO

from engine import Seating
from p2p.crypto.identity import Identity
from p2p.net.interface import TransportError
from p2p.table import LobbyHost, LobbyState, Peer, SessionOptions, TableStart
from p2p.text import safe_text

from . import i18n
from .args import (
    bind_address,
    data_dir,
    player_name,
    rules_from,
    seating_from,
    teams_players,
    with_defaults,
)
from .bot_peers import BotPeerProcesses, bot_identities
from .i18n import N_, _, close_match
from .seats import (
    LineReader,
    asks_to_start,
    identity,
    known_lines,
    lobby_lines,
    my_store,
    play_seat,
    players_lines,
    seat_node,
)
from .words import lobby_wait_line, reply, say_paragraph, sentence

#: The commands the host's lobby knows, for the "did you mean" of a typo.
HOST_COMMANDS = ("ready", "unready", "kick", "quit", "help")
#: How the host sends a joiner away (one who sits and never gets ready holds the table).
KICK_HELP = N_("Type 'kick N' to ask the player at seat N to leave (their key cannot join "
               "this table again).")
#: What closes the table from its lobby: quit, and the game's q, exit and leave (the
#: joiner's word) as well ("unknown command 'q'")
QUIT_WORDS = ("quit", "q", "exit", "leave")

log = logging.getLogger("cli.host")


def join_command_lines(addresses: Sequence[str], port: int, width: int) -> list[str]:
    """The command friends type to join, on lines of at most ``width`` cells: the command
    first, then each other address ("(or --peer 127.0.0.1:4770)") whole on the line that
    has room for it. At 60 columns the terminal cut the line mid-address ("127.0.0" /
    ".1:37131")."""
    units = [f"millebornes join --peer {addresses[0]}:{port}"] + [
        _(" (or --peer %(address)s)").strip() % {"address": f"{a}:{port}"}
        for a in addresses[1:3]]
    lines = ["  " + units[0]]
    for unit in units[1:]:
        if i18n.cells(lines[-1] + " " + unit) < width:
            lines[-1] += " " + unit
        else:
            lines.append("    " + unit)
    return lines


def run(args: argparse.Namespace, out: TextIO | None = None,
        inp: TextIO | None = None) -> int:
    args = with_defaults("host", args)
    say = out or sys.stdout
    ident = identity(args)
    rules = rules_from(args)
    n_bots = int(args.bots or 0)
    players = int(args.players or 0) or teams_players(args.teams) or max(2, 1 + n_bots)
    seating = seating_from(players, args.teams)
    if n_bots >= seating.n_players:
        raise ValueError(_("--bots %(bots)d leaves no seat for you at a table of %(players)d")
                         % {"bots": n_bots, "players": seating.n_players})
    name = player_name(args)
    seeds = bot_identities(range(n_bots))
    # The bots' peers in child processes (their work overlaps ours on another core, and a
    # bot's thinking never holds our interpreter lock), started first, while this process
    # has no other thread: they may be forked.
    bot_peers = BotPeerProcesses(seeds, bind_address(args), secure=True)
    try:
        node = seat_node(ident, args)
    except BaseException:
        bot_peers.finish(0.0)
        raise
    try:
        host = LobbyHost(ident, name, node, rules, seating, args.table_name or "",
                         move_limit=getattr(args, "move_limit", None))
        seed = int(args.seed or 0)
        bot_peers.wait_ready()
        bot_seats: list[int] = []
        specs: dict[int, str] = {}
        bot_specs = tuple(getattr(args.bots, "specs", ()))
        for i in range(n_bots):
            seat = host.add_bot(Identity.from_seed(seeds[i]), f"Bot{i + 1}",
                                reachable(bot_peers.endpoints[i], node.endpoint))
            bot_seats.append(seat)
            specs[seat] = bot_specs[i] if i < len(bot_specs) else "heuristic"
        reader = LineReader(inp)
        start = _gather(host, args, ident, node.port, seating, say, reader)
    except BaseException:
        node.close()
        bot_peers.finish(0.0)
        raise
    if start is None:
        node.close()
        bot_peers.finish(0.0)
        return 1
    for line in players_lines(start.cfg, start.seat):
        print(i18n.display(line), file=say)
    for line in known_lines(args, start.cfg, start.seat, bots=start.bots):
        say_paragraph(line, say)    # wrapped at words: a key was cut in two
    opts = SessionOptions()
    bot_peers.start(start, data_dir(args), opts, seed, specs)
    peer = Peer(ident, start.cfg, node, store=my_store(start, node, args),
                endpoints=start.endpoints, alternatives=start.alternatives, options=opts)
    try:
        return play_seat(peer, args, reader, out, bots=bot_seats,
                         bot_faults=bot_peers.faults, bot_levels=specs)
    finally:
        bot_peers.finish(10.0 if peer.finished else 0.5)
        peer.close(flush=1.0)


def _gather(host: LobbyHost, args: argparse.Namespace, ident: Identity, port: int,
            seating: Seating, say: TextIO, reader: LineReader) -> TableStart | None:
    """The lobby until every seat is taken and ready; None if the host closes it."""
    announcement = None
    if not args.no_announce:
        try:
            from p2p.net.discovery import announce_table
            announcement = announce_table(
                name=host.state.table_name, fingerprint=ident.fingerprint,
                rules=";".join([host.state.rules.preset, *(args.option or [])]),
                seats_taken=seating.n_players - len(host.state.free()),
                seats_free=len(host.state.free()), port=port, interfaces=args.mdns,
                curve_key=host.node.curve_key, signer=ident)
        except Exception as exc:  # no multicast here: --peer still works
            say_paragraph(_("(not announced on the LAN: %(error)s; others can still join with "
                            "--peer)") % {"error": exc}, say)

    seats_update = _SeatsAnnouncer(announcement) if announcement is not None else None

    def changed(st: LobbyState) -> None:
        for line in lobby_lines(st, 0, i18n.terminal_width(say)):  # the host: seat 0
            print(i18n.display(line), file=say)
        waiting = lobby_wait_line(st, host=True, mine=0)
        if waiting:          # what the table still waits for: players, or someone's ready
            say_paragraph(waiting, say)
        if seats_update is not None:
            seats_update.set(seating.n_players - len(st.free()), len(st.free()))

    host.on_change = changed
    addresses = reachable_addresses(bind_address(args))
    say_paragraph(_("Hosting on port %(port)d as %(name)s [%(key)s]; others join with:")
                  % {"port": port, "key": ident.fingerprint,
                     "name": host.state.seats[0].name}, say)  # type: ignore[union-attr]
    # the command on a line of its own: wrapped inside a sentence, it could not be copied
    for shown in join_command_lines(addresses, port, i18n.terminal_width(say)):
        print(i18n.display(shown), file=say)
    print(i18n.display(_("Type 'ready' or 'unready'; 'quit' closes the table.")), file=say)
    say_paragraph(_(KICK_HELP), say)
    host.set_ready(not args.not_ready)
    warned = False
    try:
        while True:
            try:
                start = host.pump(0.1)
            except TransportError as exc:
                # a joiner with our own key: the transport refuses to add ourselves
                if not warned:
                    say_paragraph(_("(refused a player who uses your own key: %(error)s. A "
                                    "second player on one account needs its own: "
                                    "millebornes join --identity FILE)") % {"error": exc}, say)
                    warned = True
                log.warning("lobby: %s", exc)
                continue
            if start is not None:
                return start
            typed = reader.get()
            line = typed.strip() if isinstance(typed, str) else typed
            command = line.lower() if isinstance(line, str) else None   # "Ready" is ready
            if command in QUIT_WORDS or (line is None and not args.auto):
                host.close()                     # the joiners are told, not left waiting
                print(i18n.display(_("Table closed")), file=say)
                return None
            if command == "ready":
                host.set_ready(True)
            elif command == "unready":
                host.set_ready(False)
            elif command in ("help", "h", "?", "bot", "b") or asks_to_start(line):
                # help in the lobby (it was an unknown command), and what a bot needs;
                # "start" or "bots 2" too: what the start waits for, and how a bot comes
                print(i18n.display(_("Type 'ready' or 'unready'; 'quit' closes the table.")),
                      file=say)
                say_paragraph(_(KICK_HELP), say)
                say_paragraph(lobby_wait_line(host.state, host=True, mine=0) or _(
                    "A bot plays a seat only if the table was hosted with --bots N."), say)
            elif command is not None and command.split()[:1] == ["kick"]:
                kick(host, command.split()[1:], say)
            elif command is not None and command.split()[:1] == ["sit"]:
                # the joiner's command, typed by the host: "unknown command 'sit 2'"
                say_paragraph(_("You host this table: you sit at seat 0 ('sit N' is for a "
                                "player who joins); type 'ready' or 'unready'; 'quit' "
                                "closes the table."), say)
            elif isinstance(line, str) and line:     # said, never ignored in silence
                # wrapped at the terminal's width (it ran to 96 columns), and a typo close
                # to a command said with it ("did you mean 'ready'?"), as the joiner's is
                guess = close_match(line.split()[0], HOST_COMMANDS)
                if guess:
                    say_paragraph(sentence(reply("did-you-mean", word=line, guess=guess)), say)
                else:
                    say_paragraph(_("Unknown command %(command)s: type 'ready' or 'unready'; "
                                    "'quit' closes the table.")
                                  % {"command": repr(safe_text(line, 40))}, say)
    except BaseException:
        host.close(flush=0.5)         # Ctrl-C in the lobby: the joiners are told as well
        raise
    finally:
        if seats_update is not None:
            seats_update.stop()
        if announcement is not None:
            announcement.close()


def kick(host: LobbyHost, words: list[str], say: TextIO) -> None:
    """``kick N``: the player who joined at seat N is asked to leave, and its key turned
    away for the rest of this lobby (``LobbyHost.kick``). The host's console had no way to
    do it: a joiner (or a stranger) who sat down and never said ready held the table,
    which the host could only close and host again (hostile pass 27)."""
    seats = host.state.seats
    word = words[0] if len(words) == 1 else ""
    seat = int(word) if word.isascii() and word.isdigit() and len(word) <= 3 else None
    info = seats[seat] if seat is not None and 0 < seat < len(seats) else None
    if seat is None or info is None or info.bot:
        say_paragraph(_("Type 'kick N' with the seat number N of a player who joined: that "
                        "player is asked to leave, and their key cannot join this table "
                        "again."), say)
        return
    name = info.name
    host.kick(seat)
    say_paragraph(_("%(name)s was asked to leave seat %(seat)d; their key cannot join this "
                    "table again.") % {"name": safe_text(name), "seat": seat}, say)


class _SeatsAnnouncer:
    """Keeps the LAN announcement's seat counts up to date from a thread of its own: an
    update waits on the network (about half a second), and the lobby must not (a joiner
    sitting down and up again would hold the host's keyboard). Only the latest counts are
    sent, and only when they changed."""

    def __init__(self, announcement: Any) -> None:
        self._announcement = announcement
        self._wanted: tuple[int, int] | None = None
        self._sent: tuple[int, int] | None = None
        self._wake = threading.Event()
        self._done = False
        self._thread = threading.Thread(target=self._run, daemon=True, name="announce-seats")
        self._thread.start()

    def set(self, taken: int, free: int) -> None:
        self._wanted = (taken, free)
        self._wake.set()

    def stop(self) -> None:
        self._done = True
        self._wake.set()
        self._thread.join(2.0)

    def _run(self) -> None:
        while not self._done:
            self._wake.wait()
            self._wake.clear()
            wanted = self._wanted
            if self._done or wanted is None or wanted == self._sent:
                continue
            try:
                self._announcement.update_seats(*wanted)
                self._sent = wanted
            except Exception as exc:
                log.info("could not update the LAN announcement: %s", exc)


def reachable_addresses(bind: str) -> list[str]:
    """The addresses others can reach this table at: the bound one, or this machine's
    (the route to the outside first, then the host name's), loopback last."""
    if bind not in ("*", "0.0.0.0", "::", ""):
        return [bind]
    found: list[str] = []
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))        # TEST-NET: nothing is sent, a route is chosen
            found.append(s.getsockname()[0])
    except OSError:
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    except OSError:
        pass
    ordered = [a for a in dict.fromkeys(found) if not a.startswith("127.")]
    return ordered + ["127.0.0.1"]


def reachable(bot_ep: str, host_ep: str) -> str:
    """A bot bound to a wildcard is reached at the host's address."""
    host = host_ep[len("tcp://"):].rsplit(":", 1)[0]
    port = bot_ep.rsplit(":", 1)[1]
    if host in ("0.0.0.0", "*", "[::]"):
        return f"tcp://127.0.0.1:{port}"
    return f"tcp://{host}:{port}"
