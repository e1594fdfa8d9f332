"""``millebornes join``: find a table (by ``--peer HOST:PORT`` or on the LAN), take a
seat, get ready, then play."""

from __future__ import annotations

import argparse
import re
import shlex
import socket
import sys
import time
from typing import Any, TextIO

from p2p.crypto.identity import fingerprint as key_fingerprint
from p2p.net.interface import TransportError
from p2p.table import LobbyClient, LobbyError, LobbyState, Peer, TableStart
from p2p.table.lobby import namesakes_name
from p2p.text import safe_text

from . import i18n
from .args import auto_flags, player_name, resume_flags, with_defaults
from .i18n import N_, _, close_match, did_you_mean, ngettext
from .program import as_typed
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
from .words import (
    announced_rules,
    command_lines,
    detail_text,
    lobby_error_line,
    lobby_refusal,
    lobby_wait_line,
    reply,
    say_paragraph,
    sentence,
    start_wait_line,
    table_label,
)

SAME_KEY = N_("this key is already seated at the table; use --identity FILE for a second "
            "player on one account")
#: A key's fingerprint as players read it (p2p.crypto.identity.fingerprint: XXXXX-XXXXX).
FINGERPRINT = re.compile(r"[A-Z2-7]{5}-[A-Z2-7]{5}")
#: Seconds ``join`` without ``--peer`` looks for tables on the LAN (said as it starts).
LOOK_SECONDS = 10.0
#: Seconds ``join`` asks the key doors of a table's announced addresses at once before
#: it tries them in turn, the one answering with the host's key first (answering_first).
KEY_DOORS_SECONDS = 2.0
#: Seconds between two prints of the lobby's seats (the latest state is shown).
SHOW_EVERY = 0.5
#: Seconds at a full, ready table with no start before the wait and its limit are said.
SAY_START_WAIT = 2.0
#: The most addresses of one announced table that ``join`` tries, each for the
#: ``--connect-timeout``.
MAX_TRIED = 4
#: The most tables announced with the fingerprint ``--table`` names that ``join`` tries
#: (one is the table; the others copied its public announcement).
MAX_SAME_KEY = 4
#: The most tables announced with that fingerprint whose addresses ``join --table FP``
#: ranks by the key doors' proof before it tries the first ``MAX_SAME_KEY`` tables'
#: worth of them (the browser lists at most p2p.net.discovery.MAX_WANTED, 16).
MAX_RANKED = 16
#: Seconds ``join`` (without ``--table``) goes on listening once a first table answered,
#: to learn whether it is the only one; with ``--table FINGERPRINT``, at most, for the
#: host's own signed record when only others answered first (copies of it).
GATHER_SECONDS = 1.5
#: The most tables listed when the player must choose.
MAX_LISTED = 12
#: The lobby's commands. The joiner is seated at once (the first free seat, or --seat's):
#: "type 'sit N' to take seat N" came first and read as if no seat was taken yet.
LOBBY_HELP = N_("commands: 'sit N' moves you to free seat N, 'ready', 'unready', 'leave'")
#: Tables named at most when the one named by --table is not among them.
MAX_NAMES_SAID = 10

#: The commands the lobby knows, for the "did you mean" of a typo.
LOBBY_COMMANDS = ("sit", "ready", "unready", "leave", "quit", "help")


def run(args: argparse.Namespace, out: TextIO | None = None,
        inp: TextIO | None = None) -> int:
    args = with_defaults("join", args)
    say = out or sys.stdout
    ident = identity(args)
    peers = list(args.peer or [])
    fingerprint = None
    user_fp: str | None = None      # a fingerprint the player gave (--table FP, FP@HOST)
    curve_keys: list[bytes | None] = []      # the announced CURVE key of each of peers
    if not peers:
        from p2p.net.discovery import browse_tables, instance_matcher
        want = args.table
        if want is not None and is_fingerprint(want):
            user_fp = want

        def wanted(t: Any) -> bool:
            return table_matches(t, want)

        print(i18n.display(_("Looking for tables on the LAN (waiting up to %(seconds)s s)")
                           % {"seconds": f"{LOOK_SECONDS:g}"}), file=say)
        # the table named is listed even when a flood of announcements fills the list
        with browse_tables(interfaces=args.mdns,
                           wanted=None if want is None else wanted,
                           wanted_names=None if want is None else instance_matcher(
                               **({"fingerprint": want.strip().upper()} if user_fp
                                  else {"name": want}))) as b:
            tables = b.wait_for(lambda ts: any(wanted(t) for t in ts), LOOK_SECONDS)
            # the tables there when none is the one named (for a mistyped name)
            seen = [] if tables else (b.wait_for(lambda ts: True, 0.0) or [])
            if tables and user_fp is None:
                # the other tables answer within moments of the first: joining whichever
                # answered first would seat the player at a stranger's table (or at one
                # that took a friend's table's name)
                time.sleep(GATHER_SECONDS)
                tables = b.wait_for(lambda ts: True, 0.0)
            elif tables and not any(host_signed(t, want) for t in tables):
                # named by its key, and only records its key did not sign yet: copies
                # of the host's record (another machine's) can answer first; the host's
                # own, signed, a moment later (zeroconf answers after 20-120 ms)
                tables = (b.wait_for(lambda ts: any(host_signed(t, want) for t in ts),
                                     GATHER_SECONDS) or b.wait_for(lambda ts: True, 0.0))
            left_out = b.ignored
        # what the host's key signed first, its latest record first (sorted is stable)
        tables = sorted((t for t in (tables or []) if wanted(t)), key=signed_first)
        if not tables and left_out:
            # not "is a table hosted?": tables were announced, more than can be listed
            raise OSError(_("no table found on the LAN after 10 s, and %(n)d other "
                            "announced tables were left out (too many: a machine on the "
                            "LAN may be flooding announcements). Give the table's address "
                            "with --peer HOST:PORT") % {"n": left_out})
        if not tables and want is not None and user_fp is None and seen:
            # a table name mistyped ("Anns tabel"): the tables there, and the one it
            # most likely meant
            names = sorted({str(t.name) for t in seen})
            raise OSError(_("no table called %(name)s on the LAN after 10 s; the tables "
                            "there: %(names)s") % {
                                "name": repr(want),
                                "names": i18n.join_list(map(table_label, names[:MAX_NAMES_SAID]))
                                + (", …" if len(names) > MAX_NAMES_SAID else "")}
                          + did_you_mean(want, names))
        if not tables:
            # a friend who comes late looked for a table whose match had begun: a table
            # is announced only until then, and nothing said so
            raise OSError(_("no table found on the LAN after 10 s: is a table hosted (a "
                            "table is announced only until its match starts: a started "
                            "table takes no one new), is multicast allowed here? Or give "
                            "its address with --peer HOST:PORT"))
        if len({t.service_name for t in tables}) > 1 and user_fp is None:
            raise OSError(several_tables_text(tables, args.mdns, own_flags(args),
                                              i18n.terminal_width(sys.stderr)))
        t = tables[0]
        if t.fingerprint == key_fingerprint(ident.public_key):
            # the host plays on this account with this very key: its lobby never answers
            # a second connection under its own key (the wait was 10 s, then "if the host
            # plays on this account…"); said at once, with everything a second player needs
            raise OSError(_("%(table)s is hosted with your own key [%(key)s]: its host "
                            "plays on this account. A second player here needs a key and a "
                            "data folder of their own, both made on first use:\n  %(command)s")
                          % {"table": table_label(t.name), "key": t.fingerprint,
                             "command": "millebornes join --identity ~/second.key "
                                        "--data-dir ~/second-games"})
        # every address the host announced, in turn: a host on a LAN and a VPN (or with
        # a container bridge) announces some this computer cannot reach. Named by its
        # key, every table announced with that fingerprint, in turn: a TXT record is
        # public, and a copy of it announced at another machine's address (found
        # first) was the only one asked, the real table never (hostile pass 16); the
        # host's key (and its CURVE key) decides which one it is
        # Every table announced with it is ranked, not only the first MAX_SAME_KEY: the
        # browser lists tables by name, a copy's name is its announcer's choice, and four
        # copies named to come first kept the table from ever being asked (hostile pass
        # 18); each address once (copies share one)
        same = tables[:MAX_RANKED] if user_fp is not None else [t]
        announced = list({ep: (ep, o.curve_key) for o in reversed(same)
                          for ep in reversed(list(o.endpoints[:MAX_TRIED]) or [o.endpoint])
                          }.values())[::-1]
        if len(announced) > 1 and t.fingerprint and any(k for _ep, k in announced):
            mine = ident.curve_keys()
            announced = answering_first(announced, t.fingerprint, (mine.public, mine.secret))
        announced = announced[:MAX_SAME_KEY * MAX_TRIED]
        named = {ep: o for o in reversed(same) for ep in o.endpoints}
        t = named.get(announced[0][0], t)       # the table asked first, by its own name
        peers = [ep for ep, _key in announced]
        curve_keys = [key for _ep, key in announced]
        fingerprint = t.fingerprint
        say_paragraph(_("Joining %(table)s at %(address)s") % {"table": table_label(t.name),
                                                 "address": peers[0]}, say)
    reader = LineReader(inp)
    if "@" in peers[0]:
        user_fp = peers[0].partition("@")[0]
    for i, address in enumerate(peers):
        node = seat_node(ident, args)
        client: LobbyClient | None = None
        try:
            try:
                client = LobbyClient(ident, player_name(args), node, address,
                                     host_fingerprint=fingerprint, seat=args.seat,
                                     host_curve_key=curve_keys[i] if curve_keys else None)
            except LobbyError as exc:  # e.g. two fingerprints for the host: said, no traceback
                # an address this computer cannot ask is that address's fault: the next
                # one announced may be the table (two fingerprints is the player's own)
                raise (OSError if exc.why == "two-fingerprints" else NoAnswer)(
                    lobby_refusal(exc.why, exc.data, str(exc))) from None
            start = _lobby(client, args, address, say, reader, user_fp is not None)
            break
        except NoAnswer as exc:
            node.close()
            if i + 1 == len(peers):
                raise
            print(i18n.display(str(exc)), file=say)
            say_paragraph(_("Trying the table's next address, %(address)s")
                          % {"address": peers[i + 1]}, say)
        except BaseException:
            node.close()
            raise
        finally:
            if client is not None:
                client.close()
    if start is None:
        node.flush(1.0)
        node.close()
        return 1
    assert client is not None
    st = client.state
    bot_seats = [i for i, seat in enumerate(st.seats) if seat is not None and seat.bot] \
        if st is not None else []
    for line in players_lines(start.cfg, start.seat):
        print(i18n.display(line), file=say)
    for line in known_lines(args, start.cfg, start.seat, bots=bot_seats):
        say_paragraph(line, say)    # wrapped at words: a key was cut in two
    peer = Peer(ident, start.cfg, node, store=my_store(start, node, args),
                endpoints=start.endpoints, alternatives=start.alternatives)
    try:
        return play_seat(peer, args, reader, out, bots=bot_seats)
    finally:
        peer.close(flush=1.0)


def answering_first(announced: list[tuple[str, bytes | None]], fingerprint: str,
                    client: tuple[bytes, bytes] | None = None
                    ) -> list[tuple[str, bytes | None]]:
    """``announced`` (endpoint, CURVE key) in the order ``join`` tries them. A copy of
    the table's record announced at an address that takes a connection and never
    answers was asked first, in turn, and cost the whole connect limit (up to 16 of
    them) before the real table was asked. So, first, every address's key door is asked
    at once (at most :data:`KEY_DOORS_SECONDS`, ending at the first answer with the
    host's key, ``fingerprint``); a card is public, so a copy may answer with the
    host's, but it tells the host's CURVE key (certified by its signing key), and a
    CURVE handshake with that key, tried at every address at once, succeeds only where
    its secret is held (``client``: our key pair, as the lobby will see it). The order:
    the address that proved it, then those whose door answered with the host's key,
    silent ones, and those answering with another key last (kept: their refusal is
    said if nothing else works)."""
    from p2p.net.transport import ask_key_doors, first_curve_handshake

    def is_host(card: tuple[bytes, bytes]) -> bool:
        return key_fingerprint(card[0]) == fingerprint

    endpoints = [ep for ep, _key in announced]
    cards = ask_key_doors(endpoints, KEY_DOORS_SECONDS, lambda key: is_host((key, b"")))
    host_cards = [card for card in cards.values() if is_host(card)]
    proven = first_curve_handshake(endpoints, host_cards[0][1], KEY_DOORS_SECONDS,
                                   client) if host_cards else None

    def rank(item: tuple[str, bytes | None]) -> int:
        if item[0] == proven:
            return 0
        card = cards.get(item[0])
        return 2 if card is None else 1 if is_host(card) else 3

    return sorted(announced, key=rank)


def own_flags(args: argparse.Namespace) -> str:
    """The options a player gave ``join`` that a command printed for them to type must
    keep (each with its leading space): who they are (``--name``, ``--identity``), where
    their games go (``--data-dir``), how they play (``--plain``, ``--lang``, ``--auto``,
    ``--auto-bot``, ``--not-ready``, ``--seat``), and how they reach the network
    (``--interface``, ``--bind``, ``--port``, ``--peer``, ``--connect-timeout``,
    ``--bidi``: the review of newcomer pass 29, a player who needed ``--interface`` was
    offered a command without it). A second player on one account typed ``join
    --identity ~/ben.key --data-dir ~/ben`` and was offered ``millebornes join --table
    FP`` alone: typed, it joined with the host's own key, and was refused."""
    def flag(name: str, value: object) -> str:
        return f" {name} {shlex.quote(str(value))}" if value not in (None, "", False) else ""

    timeout = getattr(args, "connect_timeout", None)
    return (flag("--name", getattr(args, "name", None)) + resume_flags(args)[0]
            + auto_flags(args)
            + (" --not-ready" if getattr(args, "not_ready", False) else "")
            + flag("--seat", getattr(args, "seat", None))
            + flag("--interface", getattr(args, "interface", None))
            + flag("--bind", getattr(args, "bind", None))
            + flag("--port", getattr(args, "port", None) or None)
            + "".join(flag("--peer", p) for p in getattr(args, "peer", None) or ())
            + flag("--connect-timeout", f"{timeout:g}" if timeout not in (None, 10.0) else None)
            + flag("--bidi", "terminal" if getattr(args, "bidi", None) == "terminal" else None))


def several_tables_text(tables: list[Any], mdns: str | None = None, flags: str = "",
                        width: int = 80) -> str:
    """More than one table answers to what the player asked: which one to join is theirs
    to say (by name, or by the host's key when two tables share a name). Each with what
    tells them apart (rules, seats, address) and the command that joins it, with the
    player's own ``--mdns`` (without it, that command would not find the table) and their
    other options (``flags``: :func:`own_flags`), the program named as their shell finds
    it, broken into lines of ``width`` that paste as one command."""
    shown = tables[:MAX_LISTED]
    extra = (f" --mdns {mdns}" if mdns and mdns != "default" else "") + flags
    lines = [_("%(n)d tables on the LAN; choose one with --table NAME or --table "
               "FINGERPRINT:") % {"n": len(tables)}]
    for t in shown:
        where = t.addresses[0] if t.addresses else "?"
        lines.append("  " + ngettext("%(name)s [%(key)s], %(rules)s, %(free)d of %(seats)d "
                                     "seats free, at %(address)s:",
                                     "%(name)s [%(key)s], %(rules)s, %(free)d of %(seats)d "
                                     "seats free, at %(address)s:", t.seats_free) % {
            "name": table_label(t.name), "key": t.fingerprint or "?",
            "rules": safe_text(announced_rules(t.rules), 60), "free": t.seats_free,
            "seats": t.seats_taken + t.seats_free, "address": f"{where}:{t.port}"})
        # a record whose fp is no fingerprint: by its address ("--table" alone, without
        # one, was a usage error; hostile pass 16)
        command = (f"millebornes join --table {t.fingerprint}{extra}" if t.fingerprint
                   else f"millebornes join --peer {where}:{t.port}{flags}")
        lines += ["  " + line for line in command_lines(as_typed(command), width - 2)]
    if len(tables) > len(shown):
        lines.append(f"  (+{len(tables) - len(shown)})")
    return "\n".join(lines)


class NoAnswer(OSError):
    """Nobody answered at an address within the limit (the next one may answer)."""


#: Seconds after asking before ``join`` checks that something listens at the address,
#: and between two checks (a refused connection ends the wait at once).
PROBE_AFTER = 0.3
PROBE_EVERY = 2.0


def nothing_listens(endpoint: str, timeout: float = 0.5) -> bool:
    """Whether a TCP connection to ``endpoint`` (tcp://HOST:PORT) is refused: nothing
    listens there (a mistyped port, a closed table). A timeout or an unreachable network
    is not a refusal: the wait goes on to its limit (a slow VPN may answer yet)."""
    host, _sep, port = endpoint.removeprefix("tcp://").rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            return False
    except ConnectionRefusedError:
        return True
    except (OSError, ValueError):
        return False


def is_fingerprint(text: str) -> bool:
    return FINGERPRINT.fullmatch(text.strip().upper()) is not None


def host_signed(table: Any, want: str | None) -> bool:
    """Is ``table`` the record of the host ``--table FINGERPRINT`` names, signed by its key
    (discovery checked the signature; a copy of it may still be elsewhere)?"""
    return (want is not None and is_fingerprint(want) and table_matches(table, want)
            and getattr(table, "signed_seq", None) is not None)


def signed_first(table: Any) -> int:
    """Sort key: the records their host's key signed first, its latest record first, then
    the others (unsigned: a copy's, or an earlier release's)."""
    seq = getattr(table, "signed_seq", None)
    return -1 if seq is None else -2 - int(seq)


def table_matches(table: Any, want: str | None) -> bool:
    """Is ``table`` (a discovered one) the one ``--table`` names? A fingerprint names the
    host's key, anything else the table's name: a table that calls itself by a friend's
    fingerprint must not pass for the friend's."""
    if want is None:
        return True
    if is_fingerprint(want):
        return bool(table.fingerprint == want.strip().upper())
    return bool(table.name == want)


def waiting_since(client: LobbyClient, asked: float) -> float:
    """When the wait for a lobby (and a seat in it) began: when the join was ``asked``,
    or later, when the client followed its host, restarted, to a new lobby. Measured
    from ``asked`` alone, a seated joiner whose host ran its program again minutes into
    the wait was ended at once ("... did not let this computer in within 10 s"), and the
    new lobby showed a seat held by a program that had stopped (the review of hostile
    pass 28)."""
    lost = client.lobby_lost_at
    return asked if lost is None else max(asked, lost)


def _lobby(client: LobbyClient, args: argparse.Namespace, address: str, say: TextIO,
           reader: LineReader, checked: bool = False) -> TableStart | None:
    """Seat and readiness until the host starts the match; None if we leave."""
    shown = None
    shown_at = -SHOW_EVERY
    shown_key = False
    limit = float(args.connect_timeout)
    # the first wait says what it waits for and for how long, before any lobby line
    print(i18n.display(_("Asking the table at %(address)s (waiting up to %(seconds)s s)")
                       % {"address": address, "seconds": f"{limit:g}"}), file=say)
    auto_ready = not args.not_ready
    seat_said = False
    start_said = False
    asked = time.monotonic()
    probe_at = asked + min(PROBE_AFTER, limit)
    while True:
        try:
            start = client.pump(0.1)
        except LobbyError as exc:
            data = dict(exc.data)
            if exc.why == "match-running":   # its commands find this player's copy
                again, check = resume_flags(args)
                data.update(resume_flags=again + auto_flags(args), games_flags=check)
            line = lobby_error_line(exc.why, data, str(exc))
            # another key at the address: a copy of the table's announcement, or a
            # machine that took its address; the next one announced may be the table.
            # So is any refusal heard before this player is seated there: the host's
            # messages are signed, but not to whom, and at a plain table (no CURVE, an
            # id is a claim) a copy replayed a refusal the host signed for someone else
            # ("the table is full") and the join ended there, the table never asked
            # (hostile pass 18). Said, then the next address; the last one's is final.
            raise (NoAnswer(line) if exc.why in ("no-answer", "host-key-mismatch")
                   or client.seat is None else OSError(line)) from None
        except TransportError as exc:
            raise OSError(_(SAME_KEY) + " " + detail_text(exc)) from None
        if start is not None:
            return start
        if client.host_key is not None and client.state is not None and not shown_key:
            # only once a lobby state signed with that key came: the key a connection
            # claims is no key until it signed something
            shown_key = True
            say_host_key(client, address, checked, say)
        st = client.state
        if st is None and client.host_signing_key == client.identity.public_key:
            # the table is this very key's: a second player on this account (said as soon
            # as the key door answers: its lobby never will, and the wait was 10 s)
            raise OSError(_("the table at %(address)s is hosted with your own key; a "
                            "second player on one account needs its own: "
                            "--identity FILE") % {"address": address})
        if st is None and time.monotonic() >= probe_at:
            probe_at = time.monotonic() + PROBE_EVERY
            if nothing_listens(client.host_endpoint):
                # said at once: the whole wait (10 s by default) was spent on a typo
                raise NoAnswer(_("nothing listens at %(address)s (the connection was "
                                 "refused): is the table open, is the address and port "
                                 "right? (the host prints them)") % {"address": address})
        if st is None and time.monotonic() - waiting_since(client, asked) > limit:
            if client.key_only:      # the table is there, playing with its own players
                # (or a copy of it replays the host's public key card at another address,
                # its handshake never done: the next address is asked, as for no answer)
                raise NoAnswer(lobby_error_line("no-answer", {
                    "endpoint": address, "seconds": limit, "door": True}, ""))
            raise NoAnswer(_("no answer from %(address)s after %(seconds)s s: is the table "
                            "open, is the address and port right? (the host prints them) If "
                            "the host plays on this account, a second player needs its own "
                            "key: --identity FILE") % {"address": address,
                                                       "seconds": f"{limit:g}"})
        if st is not None and not seat_said and client.seat is None \
                and time.monotonic() - waiting_since(client, asked) > limit:
            # a table that shows its seats and never seats this player: at a plain table
            # (an id is only a claim) a copy of the table's announcement replayed the
            # host's signed lobby state, which the host sends to any machine that knocks,
            # and the limit ran only until a first state came: the join waited there for
            # ever, the table never asked (hostile pass 18). An honest host seats a
            # joiner in its first state after the join, or refuses it.
            raise NoAnswer(_("the table at %(address)s shows its seats but did not seat "
                             "you within %(seconds)s s: it may be a copy of the table's "
                             "announcement, at another machine")
                           % {"address": address, "seconds": f"{limit:g}"})
        now = time.monotonic()
        if st is not None and now - shown_at >= SHOW_EVERY and st.to_obj() != shown:
            # the latest state, at most every SHOW_EVERY s: a host sending states in a
            # loop cannot scroll the joiner's terminal (and the host's key) out of sight
            shown, shown_at = st.to_obj(), now
            for line in lobby_lines(st, client.seat, i18n.terminal_width(say)):
                print(i18n.display(line), file=say)
            mine = st.seats[client.seat] if client.seat is not None \
                and 0 <= client.seat < len(st.seats) else None
            # (this player's own ready comes at once unless --not-ready: "type ready"
            # was said to them a moment before it)
            waiting = None if auto_ready and mine is not None and not mine.ready \
                else lobby_wait_line(st, host=False, mine=client.seat)
            if waiting:      # what the table waits for: more players, or someone's ready
                say_paragraph(waiting, say)      # wrapped ("everyone sea" / "ted")
        left = client.start_wait_left()
        if left is None:
            start_said = False
        elif not start_said and client.start_wait - left >= SAY_START_WAIT:
            # an honest host starts at once: a wait this long is said, with its limit
            start_said = True
            say_paragraph(start_wait_line(left), say)
        if st is not None and client.seat is not None and not seat_said:
            seat_said = True
            wanted = getattr(args, "seat", None)
            if wanted is not None and client.seat != wanted and not 0 < wanted < len(st.seats):
                # --seat 5 at a table of three: "Seat 5 was not free" (there is none)
                say_paragraph(_("There is no seat %(wanted)d to sit at (seats 1 to %(last)d "
                                "are the players', seat 0 the host's): you sit at seat "
                                "%(seat)d (sit N moves you to a free seat)") % {
                    "wanted": wanted, "last": len(st.seats) - 1, "seat": client.seat}, say)
            elif wanted is not None and client.seat != wanted:
                print(i18n.display(_("Seat %(wanted)d was not free: you sit at seat "
                                     "%(seat)d (sit N moves you to a free seat)")
                                   % {"wanted": wanted, "seat": client.seat}), file=say)
            else:
                # the seat it got and how to change it, once it has one (the first line
                # said "type 'sit N' to take seat N" to a player seated already)
                say_paragraph(_("You sit at seat %(seat)d ('sit N' moves you to free "
                                "seat N; also 'ready', 'unready', 'leave')")
                              % {"seat": client.seat}, say)
            renamed = name_at_table(st, client.seat, player_name(args))
            if renamed is not None:
                say_paragraph(sentence(renamed), say)
        if st is not None and auto_ready and client.seat is not None and not client.ready:
            client.set_ready(True)
        typed = reader.get()
        if isinstance(typed, str):
            # in any case: "Ready" was "unknown command 'Ready': did you mean 'ready'?"
            typed = typed.strip().lower()
        if typed in ("leave", "quit", "q", "exit") or (typed is None and not args.auto):
            client.leave()
            print(i18n.display(_("You left the table.") if typed is not None else
                               _("The input ended (nothing more to read): you left the table; "
                                 "--auto joins and plays without a keyboard")), file=say)
            return None
        if not isinstance(typed, str) or not typed.strip():
            continue
        line = typed.strip()
        words = line.split()
        wanted = seat_number(words[1]) if words[0] == "sit" and len(words) == 2 else None
        if words[0] == "sit" and len(words) == 2 and wanted is None:
            # "sit ²" (a digit to str.isdigit, not to int) ended the joiner with int()'s
            # words, and so did 5000 digits
            print(i18n.display(_("%(text)s is not a seat number: sit N, N a seat from the "
                                 "list") % {"text": safe_text(words[1][:20])}), file=say)
        elif wanted is not None:
            if st is None:
                print(i18n.display(_("Not connected to the host yet: wait a moment.")), file=say)
                client.sit(wanted)
                continue
            refusal = sit_refusal(st, wanted, client.seat)
            if refusal:          # the host would ignore it: said here, nothing sent
                say_paragraph(sentence(refusal), say)     # wrapped (it ran to 81 columns)
            else:
                client.sit(wanted)
        elif line == "ready":
            client.set_ready(True)
            print(i18n.display(_("You are ready.") if st is not None
                               else _("You are ready (once the host answers).")), file=say)
        elif line == "unready":
            auto_ready = False
            client.set_ready(False)
            print(i18n.display(_("You are not ready.")), file=say)
        elif line in ("help", "h", "?") or asks_to_start(line):
            print(i18n.display(sentence(_(LOBBY_HELP))), file=say)
            waiting = lobby_wait_line(st, host=False, mine=client.seat) \
                if st is not None else None
            if waiting:
                say_paragraph(waiting, say)
        else:
            # a typo ("redy") was answered with the help line alone, as if nothing was
            # wrong; one close to a command is said with it ("did you mean 'ready'?")
            guess = close_match(words[0], LOBBY_COMMANDS)
            if guess:
                say_paragraph(sentence(reply("did-you-mean", word=line, guess=guess)), say)
            else:
                say_paragraph(_("Unknown command %(command)s: %(help)s") % {
                    "command": repr(safe_text(line, 40)), "help": _(LOBBY_HELP)}, say)


def seat_number(text: str) -> int | None:
    """``text`` as a seat number (ASCII digits, a few of them), else None."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 3 else None


def sit_refusal(state: LobbyState, wanted: int, mine: int | None) -> str:
    """Why ``sit WANTED`` cannot be done at this lobby ("" when it can): the host ignores a
    move to a seat that is not there or not free, and the player heard nothing."""
    n = len(state.seats)
    if wanted == mine:
        return _("you sit at seat %(seat)d already") % {"seat": wanted}
    if not 0 < wanted < n:
        return _("there is no seat %(seat)d to sit at: seats 1 to %(last)d are the "
                 "players' (seat 0 is the host's)") % {"seat": wanted, "last": n - 1}
    taken = state.seats[wanted]
    if taken is not None:
        free = i18n.join_list(str(i) for i in state.free()) or _("none")
        return _("seat %(seat)d is taken by %(name)s; free seats: %(free)s") % {
            "seat": wanted, "name": safe_text(taken.name), "free": free}
    return ""


def name_at_table(state: Any, seat: int, asked: str) -> str | None:
    """What to say when the host seated this player under another name than the one
    asked for (a namesake already sat there: "Ann 2"; or the name was cleaned): the
    player saw "seat 1: Ann 2" in the list and no word of why. None: the name as asked."""
    seats = getattr(state, "seats", [])
    info = seats[seat] if 0 <= seat < len(seats) else None
    if info is None or info.name == asked:
        return None
    if namesakes_name(info.name, asked):
        return _("the name %(asked)s is taken at this table: you play as %(name)s (for "
                 "another name: leave, then join again with --name NAME)") % {
            "asked": asked, "name": info.name}
    return _("the table shows your name as %(name)s") % {"name": info.name}


def host_key_lines(client: LobbyClient, address: str, checked: bool = True) -> list[str]:
    """The host's key as the player should see it: checked against the fingerprint the
    player gave (``checked``), or trusted on first use, then the ``--peer`` form that checks
    it next time on a line of its own (a sentence is wrapped at the terminal's width, and
    a command cut at a space would not paste): a fingerprint from a LAN announcement is the
    announcer's word, not the player's."""
    fp = key_fingerprint(client.host_key or b"")
    if client.host_fp is not None and checked:
        return [_("The host's key is %(key)s, as expected.") % {"key": fp}]
    host = address.rpartition("@")[2].removeprefix("tcp://")   # the --peer form
    return [_("The host's key is %(key)s (trusted on first use: compare it with the host's "
              "screen); next time, this address checks it:") % {"key": fp},
            f"  --peer {fp}@{host}"]


def say_host_key(client: LobbyClient, address: str, checked: bool, say: TextIO) -> None:
    """:func:`host_key_lines` said: the sentence wrapped, the command whole."""
    sentence, *command = host_key_lines(client, address, checked)
    say_paragraph(sentence, say)
    for line in command:
        print(line, file=say)
