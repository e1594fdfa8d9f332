"""Hostile review of the AWAY message and the lobby's move limit: a hostile peer on the
LAN, a hostile host, a hostile joiner. In process (real signatures, a fake clock) where
the log alone is under attack; ZeroMQ on 127.0.0.1 for the lobby."""

from __future__ import annotations

from test_lobby import _drive
from test_takeover import BOT_SEED, _agree_bot, _start_bot, _stopped

from engine import Seating, preset
from p2p.crypto.identity import Identity
from p2p.net.transport import Node
from p2p.table import wire
from p2p.table.lobby import LobbyClient, LobbyError, LobbyHost
from p2p.table.session import node_id_for


def _seat_writes(t, s: int) -> None:  # type: ignore[no-untyped-def]
    """Seat ``s`` writes whatever is its to write now."""
    rl = t.seats[s].rlog
    while not rl.done and rl.match.hand.expected_writer() == s:
        hp = rl.match.hand
        rl.secrets[hp.hand_no] = hp.export_secrets()
        rl.write(hp.next_body(t.seats[s].bot.choose))
    t.collect(s)


def _play_until_seat_is_due(t, seat: int, rounds: int = 60) -> None:  # type: ignore[no-untyped-def]
    """The seats other than ``seat`` write and tick (``seat`` only listens), until the
    log of each of them waits for ``seat`` (or stops)."""
    others = [s for s in range(t.cfg.n) if s != seat]
    for _ in range(rounds):
        for s in others:
            _seat_writes(t, s)
            t.seats[s].rlog.tick()
            t.collect(s)
        t.deliver()
        if all(t.seats[s].rlog.done or t.seats[s].rlog.match.hand.expected_writer() == seat
               for s in others):
            return


def test_the_bot_that_took_a_quit_seat_is_not_taken_for_the_player_who_quit() -> None:
    """A player quits (AWAY), the table pauses, the others agree to a bot for the seat. The
    AWAY was the player's word, not the bot's: kept after the takeover, the table paused on
    the bot's very first step at once, saying the player had quit, and wrote a timeout
    claim against the bot's slot (until the bot's transport happened to be heard after the
    takeover: a race with the bot starting up)."""
    t = _stopped(b"hostile-away/takeover")
    quitter = t.seats[2].rlog
    away = wire.encode_away(quitter.identity, t.cfg.table_id, b"session1",
                            (quitter.match.hand_no,
                             quitter.verifier.next_seq(quitter.identity.public_key)))
    for s in (0, 1):
        t.seats[s].rlog.on_message(t.node_of[2], away)
        t.collect(s)
        assert t.seats[s].rlog.quit_for_now(2)
    bot = Identity.from_seed(BOT_SEED)
    _agree_bot(t, 2, (0, 1), bot)
    _start_bot(t, runner=0, silent=2, bot=bot)
    for s in (0, 1):
        rl = t.seats[s].rlog
        assert rl.keys[2] == bot.public_key and rl.stopped is None
        assert not rl.quit_for_now(2)
    _play_until_seat_is_due(t, 2)
    for s in (0, 1):
        rl = t.seats[s].rlog
        assert rl.match.hand.expected_writer() == 2 and rl.hand_no == 1
        assert rl.stopped is None, rl.stop_why          # the bot has the usual time
        claims = [e for e in rl.side if e.body["k"] == "side.timeout" and e.hand == 1]
        assert claims == []
    t.run()
    for s in range(3):
        assert t.seats[s].rlog.finished and t.seats[s].rlog.error is None


def test_a_host_that_switches_the_move_limit_just_before_its_start_is_refused() -> None:
    """A joiner said ready at an untimed table; the host then shows a state with a 1 s move
    limit and starts at once (faster than the console shows a state: it shows one every
    few seconds). The joiner checked the start only against the host's last state, so it
    played with a limit it never saw, its own moves timed out and paused the table, and at
    two seats the host alone could then give the joiner's seat to a bot."""
    ids = [Identity.generate() for _ in range(2)]
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    try:
        host = LobbyHost(ids[0], "Ann", nodes[0], preset("modern"), Seating.solo(2))
        port = nodes[0].endpoint.rsplit(":", 1)[1]
        c = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{port}")
        _drive(host, [c], until="seated")
        assert c.state is not None and c.state.move_limit is None
        c.set_ready(True)
        for _ in range(200):
            host.pump(0.01)
            c.pump(0.01)
            seat = host.state.seats[1]
            if seat is not None and seat.ready:
                break
        assert host.state.seats[1] is not None and host.state.seats[1].ready
        host.state.move_limit = 1.0           # the switch, shown just before the start
        host._broadcast_state()
        host.set_ready(True)
        started = None
        refused: LobbyError | None = None
        for _ in range(400):
            started = started or host.pump(0.01)
            try:
                if c.pump(0.01) is not None:
                    break
            except LobbyError as exc:
                refused = exc
                break
        assert started is not None and started.cfg.decision_limit == 1.0
        assert c.state is not None and c.state.move_limit == 1.0   # it did see the state
        assert refused is not None and c.start is None, c.start
        assert refused.why == "bad-start" and "after this player said ready" in str(refused)
    finally:
        for n in nodes:
            n.close()


def test_a_joiner_ready_on_the_limit_it_was_shown_starts() -> None:
    """The check above refuses nothing honest: a joiner that said ready before the host
    showed the table agrees to the first state it sees, and a timed table starts."""
    ids = [Identity.generate() for _ in range(2)]
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    try:
        host = LobbyHost(ids[0], "Ann", nodes[0], preset("modern"), Seating.solo(2),
                         move_limit=30)
        port = nodes[0].endpoint.rsplit(":", 1)[1]
        c = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{port}")
        c.set_ready(True)                     # before any state (the console allows it)
        _drive(host, [c], until="seated")
        c._send({"k": "ready", "ready": True})   # (the first one went before the host was met)
        host.set_ready(True)
        hs, cs = _drive(host, [c])
        assert hs is not None and cs[0] is not None
        assert cs[0].cfg.decision_limit == 30.0
    finally:
        for n in nodes:
            n.close()


def test_an_entry_written_before_the_away_arriving_late_does_not_cancel_it() -> None:
    """Ben's last entry reaches Ann after his AWAY (it waited in flight): it was written
    before he left, so Ann keeps him away (it cleared the AWAY, and the table then waited
    for the transport's gone time and the step limit, saying "has gone silent"). An
    entry he writes after it does clear it, and the same AWAY replayed then is stale."""
    from test_replicated_log import _table

    t = _table(b"hostile-away/late-entry")
    ann, ben = t.seats[0].rlog, t.seats[1].rlog
    for _ in range(200):                       # until Ben's turn, well into the hand
        if ben.match.hand.expected_writer() == 1 and ben.verifier.next_seq(ben.keys[1]) > 8:
            break
        t.write_turns()
        t.deliver()
    assert ben.match.hand.expected_writer() == 1 and not ben.done
    _seat_writes(t, 1)
    withheld, t.wire = t.wire, []              # Ben's entries, still in flight to Ann
    assert withheld
    at = (ben.match.hand_no, ben.verifier.next_seq(ben.keys[1]))
    away = wire.encode_away(ben.identity, t.cfg.table_id, b"s", at)
    ann.on_message(t.node_of[1], away)
    t.collect(0)
    assert ann.quit_for_now(1)
    for src, dst, payload in withheld:         # now the entries written before he left
        t.seats[dst].rlog.on_message(t.node_of[src], payload)
        t.collect(dst)
    assert ann.quit_for_now(1)
    # he comes back and writes on: that clears it, and a replay of the AWAY is refused
    for _ in range(200):
        if ben.verifier.next_seq(ben.keys[1]) > at[1] or ben.match.hand_no > at[0]:
            break
        t.write_turns()
        t.deliver()
    t.write_turns()
    t.deliver()
    assert not ann.quit_for_now(1)
    ann.on_message(t.node_of[1], away)
    t.collect(0)
    assert not ann.quit_for_now(1)
    assert ann.drops.get((ann.label(t.node_of[1]), "stale-away"), 0) == 1


def test_a_replaced_players_transport_is_no_word_on_the_bots_seat(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """After a takeover the player who left may follow the table from his old node: his
    node going silent made the bot's moves timed, and his restart lifted the bot's own
    AWAY. Only the seat's current node speaks for the seat."""
    from test_session import FAST

    from p2p.net.interface import PeerEvent, PeerEventKind, PeerStatus
    from p2p.table.memory import make_table
    from p2p.testing import socket_peers

    cfg, ids = make_table(preset("classic"), Seating.solo(2), ["Ann", "Ben"], b"hostile/replaced")
    ann, ben = socket_peers(tmp_path, cfg, ids, FAST)
    try:
        old_node = b"m" + b"\x05" * 32          # Ben's node before a bot took his seat
        ann.rlog.seat_of_node[old_node] = 1
        events = [PeerEvent(PeerEventKind.STATUS, old_node, PeerStatus.GONE),
                  PeerEvent(PeerEventKind.RESTARTED, old_node)]
        ann.node.events = lambda: events  # type: ignore[method-assign]
        ann._handle_node_events()
        assert 1 not in ann.rlog._gone_since
        assert ann.peer_state(1) != "gone"
        events = [PeerEvent(PeerEventKind.STATUS, node_id_for(ids[1].public_key),
                            PeerStatus.GONE)]
        ann._handle_node_events()                  # the seat's own node does count
        assert 1 in ann.rlog._gone_since
    finally:
        ann.close(flush=0)
        ben.close(flush=0)
