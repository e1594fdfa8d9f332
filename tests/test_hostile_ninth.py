"""Ninth hostile pass (2026-12-06): hostile peers and plug-ins against real millebornes
peers (real ZeroMQ sockets on loopback, real processes). What must hold: an honest player
is never blamed; no input stops a peer (no traceback, no unbounded wait, no unbounded
memory); every wait has a limit.

Findings (each test here failed before its fix):

* a bot's seat co-signed a proposal only by the *first* record of the hand it had read
  (``Peer._follow_agreements``): the silent seat itself, before it fell silent, could
  sign a record naming another seat (a record about someone else is a valid one), and a
  bot's seat never co-signed the honest players' records about the silent seat: no bot,
  no end, the table paused on the hostile seat for good; the console's agreement line
  likewise took the seat from the first record ("Ending the match after Ann left", to
  Ann, who plays, with her own signature about Cy counted in);
* a seat's player, silent in hand H, could sign with its own key a record for hand H+1
  (a peer takes records up to a hand ahead), read as the seat's vote while its key still
  signed there; once a bot took the seat over from H+1 the record stayed the bot's
  seat's one vote of H+1 (the bot's own ignored), while ``verify`` and the same peer
  resumed, reading H+1's records with the bot's key, rejected it;
* a remaining seat's record naming a point of the hand nobody reaches kept the others
  from signing that kind about the silent seat (they lag, they sign there): no more than
  its never signing does, but the console told each "You already chose for this hand";
  the log now says why it signed nothing (``ReplicatedLog.refused``), the console that;
* every seat but the winner signed, while the winner played the match's last hand, an
  end "after" the winner "left" of the next hand: the winner's peer kept it (records of
  the next hand are taken), and ``verify`` and ``games`` of the winner's transcript said
  the match was won *and* ended by agreement after the winner left. A complete match's
  report leaves out the agreements that took effect nowhere;
* a plug-in bot in a process of its own (``engine.bot_process``) raised its own bound on
  memory with one ``resource.setrlimit`` call: only the soft ``RLIMIT_DATA`` was set,
  the hard one stayed unlimited. Both are set now.

Probed and found holding (no change): a plug-in whose copy outside its process group
keeps the channel to the console open while the console closes it under a thread that
asks (the asker's wait, on the old file, ends at its deadline: it does not read the
channel's file number again once another file has it); a record naming a point the
others never reach, or another seat than the one they name, moves no hold of an honest
signer's (only remaining seats' records count against it).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_replicated_log import _transcript

from engine import Seating, preset
from engine.bots import make_bot
from p2p.net.transport import Node
from p2p.table import wire
from p2p.table.memory import make_table
from p2p.table.session import Peer, SessionOptions
from p2p.table.wire import node_id_for
from p2p.testing import Pumping, wait_for
from p2p.transcript.envelope import Envelope


@pytest.mark.hostile
def test_the_silent_seats_own_record_about_another_seat_does_not_stop_a_bot_cosigning(
        ) -> None:
    """Cy (seat 2) is connected and never writes a step; at once it signs an end and a
    takeover naming Ann (seat 0), who plays. Ann proposes to end the match after Cy left;
    Bo (a bot's seat) saw Cy silent too and must co-sign Ann's record: before the fix it
    read only Cy's record (the first of the hand), about a seat it saw active, and never
    signed, the table paused on Cy for good."""
    cfg, ids = make_table(preset("modern", match_target=1), Seating.solo(3),
                          ["Ann", "Bo", "Cy"], b"hostile9/first-record")
    opts = SessionOptions(response_delay=0.0, stall_after=0.3, step_limit=1.0)
    nodes = [Node(node_id_for(ids[s].public_key)) for s in range(3)]
    eps = {s: nodes[s].endpoint for s in range(3)}
    for s in (0, 1):
        nodes[2].add_peer(node_id_for(ids[s].public_key), eps[s])
    peers = [Peer(ids[s], cfg, nodes[s], endpoints=eps, options=opts,
                  controller=make_bot("heuristic", 3 + s)) for s in range(2)]
    genesis = cfg.header().genesis(0)
    records = [Envelope.create(ids[2], cfg.table_id, 0, 0, genesis, body).encode()
               for body in ({"k": "side.end", "hand": 0, "seat": 0, "at": 0},
                            {"k": "side.takeover", "hand": 0, "seat": 0, "runner": 1,
                             "at": 0})]

    def sent() -> bool:
        for s in (0, 1):
            for payload in wire.encode_push(records):
                nodes[2].send(node_id_for(ids[s].public_key), payload)
        return all(2 in p.agreement()["side.end"] for p in peers)

    pumps = Pumping(peers, through_pauses=True)
    try:
        assert wait_for(sent, 20)
        assert wait_for(lambda: all(p.paused for p in peers), 30), [p.stopped for p in peers]
        assert all(p.silent_seat() == 2 for p in peers)
        assert peers[0].agree_end(2)
        assert wait_for(lambda: all(p.agreed_end is not None for p in peers), 10), \
            [p.agreement() for p in peers]
        for p in peers:
            assert p.agreed_end.seat == 2 and p.agreed_end.signers == (0, 1)
    finally:
        pumps.stop()
        for p in peers:
            p.close(flush=0.2)
        nodes[2].close()


def test_the_agreement_line_names_the_seat_the_table_waits_for_and_its_signers() -> None:
    """The console's agreement line took the seat from the first record of the hand and
    every signer as agreeing: with Cy's own record about Ann read first, Ann (who plays)
    read "The end of the match after Ann left: agreed by Ann, Cy" once she had signed
    the end after Cy left."""
    from types import SimpleNamespace

    from cli.netdriver import NetDriver

    class Driver:
        names = ["Ann", "Bo", "Cy"]
        step_limit = 20.0
        is_bot = NetDriver.is_bot

        def __init__(self, votes: dict[int, dict[str, int]], silent: int | None) -> None:
            self.bots: set[int] = set()
            self.peer = SimpleNamespace(agreement=lambda: {"side.end": votes},
                                        silent_seat=lambda: silent)

        def current_names(self) -> list[str]:
            return self.names

    status = NetDriver.agreement_status
    votes = {2: {"seat": 0}, 0: {"seat": 2}}
    said = status(Driver(votes, 2))                          # type: ignore[arg-type]
    assert said is not None and "Cy" in said.split(":")[0] and "Ann" not in said.split(":")[0]
    assert "agreed by Ann;" in said and "waiting for Bo." in said, said
    # not paused (Cy came back): the seat most signers named
    votes = {2: {"seat": 0}, 0: {"seat": 2}, 1: {"seat": 2}}
    said = status(Driver(votes, None))                       # type: ignore[arg-type]
    assert said is not None and "agreed by Ann and Bo;" in said, said


def test_a_replaced_players_record_for_the_next_hand_is_not_the_bots_vote(
        tmp_path: Path) -> None:
    """Cy (seat 2), silent in hand 1, signs with its own key a record for hand 2 (the next
    one: a peer takes records up to a hand ahead) ending the match "after Bo left". Its
    key still signed for seat 2 then, so the record counted; once the others agreed that
    a bot plays Cy's seat from hand 2, it stayed seat 2's vote of hand 2: the console
    said the bot (run by Ann) agreed Bo had left, and the bot's own record, one per seat
    and hand, was ignored (an agreement naming Bo at another point could never hold
    live), while ``verify`` and a resumed peer read hand 2's records with the bot's key
    and rejected Cy's. The replaced key's records for later hands are dropped when the
    takeover takes effect."""
    from test_takeover import BOT_SEED, _agree_bot, _start_bot, _stopped

    from p2p.audit import verify_game
    from p2p.crypto.identity import Identity

    t = _stopped(b"hostile9/stale-vote")
    cy = t.seats[2].rlog.identity
    genesis = t.cfg.header().genesis(1)
    record = Envelope.create(cy, t.cfg.table_id, 1, 0, genesis,
                             {"k": "side.end", "hand": 1, "seat": 1, "at": 7})
    for s in (0, 1):
        for payload in wire.encode_push([record.encode()]):
            t.seats[s].rlog.on_message(t.node_of[2], payload)
        t.collect(s)
    t.wire = [m for m in t.wire if m[1] != 2]
    bot = Identity.from_seed(BOT_SEED)
    _agree_bot(t, 2, (0, 1), bot)
    for s in (0, 1):
        rl = t.seats[s].rlog
        assert rl.hand_no == 1 and rl.keys[2] == bot.public_key
        assert rl.proposals() == {"side.takeover": {}, "side.end": {}}, rl.proposals()
        assert record.encode() not in [e.encode() for e in rl.side]   # nor served
    b = _start_bot(t, runner=0, silent=2, bot=bot)
    assert b.proposals() == {"side.takeover": {}, "side.end": {}}
    for s in (0, 1):
        t.collect(s)
        rep = verify_game(_transcript(tmp_path, t, s))
        # (it stops in hand 2, which nobody played here: no check failed)
        assert rep.crypto.ok and rep.check == "incomplete", rep.summary()
        assert rep.ended_by_agreement is None and rep.voided == [0], rep.summary()


UNBOUND = '''
import resource


class Unbound:
    """Raises its own bound on memory before it thinks: a bot that then allocates without
    end would take the machine's memory."""

    def choose(self, view, legal):
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        try:
            resource.setrlimit(resource.RLIMIT_DATA, (hard, hard))
        except (ValueError, OSError):
            return legal[0]
        if resource.getrlimit(resource.RLIMIT_DATA)[0] == soft:
            return legal[0]
        raise RuntimeError(f"raised its memory bound from {soft} to {hard}")


def make(seed=0):
    return Unbound()
'''


@pytest.mark.hostile
def test_a_plugin_in_its_own_process_cannot_raise_its_memory_bound(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """engine.bot_process bounds the data of a plug-in's process (``RLIMIT_DATA``), so
    that one that allocates without end fails with ``MemoryError`` rather than take the
    machine's memory; but only the soft limit was set, and the plug-in could raise it
    to the hard one (unlimited) with one call. The hard limit is set too now."""
    import random as stdlib_random

    from engine import CLASSIC, legal_actions, new_hand, view_of
    from engine.bot_process import BotProcess
    from engine.testing import install_plugin

    install_plugin(tmp_path, "mb_unbound9", UNBOUND, {"tunbound9": "make"})
    monkeypatch.syspath_prepend(str(tmp_path))
    seating = Seating.solo(2)
    order = list(CLASSIC.deck(seating))
    stdlib_random.Random(4).shuffle(order)
    state = new_hand(CLASSIC, seating, order, 0)
    view, legal = view_of(state, 0), legal_actions(state, 0)
    bot = BotProcess("tunbound9", 1, answer_within=20.0)
    try:
        assert bot.choose(view, legal) in legal
        assert bot.fault is None, bot.fault
    finally:
        bot.close()



def test_a_player_whose_record_is_refused_is_told_why_not_that_they_chose() -> None:
    """Bo (a remaining seat, hostile) signs the end "after Cy left" at a point of the hand
    nobody reaches: Ann's own proposal is then refused ("the others signed further on:
    this peer lags"), and her console said "You already chose for this hand" though she
    had not chosen. The log says why it signed nothing; the console says that."""
    from types import SimpleNamespace

    from test_takeover import _stopped

    from cli.netdriver import NetDriver
    from cli.words import agree_later_line, cannot_agree_line

    t = _stopped(b"hostile9/refused")
    ann, bo = t.seats[0].rlog, t.seats[1].rlog
    record = Envelope.create(bo.identity, t.cfg.table_id, 0, 0, bo.verifier.head,
                             {"k": "side.end", "hand": 0, "seat": 2, "at": 999})
    for payload in wire.encode_push([record.encode()]):
        ann.on_message(t.node_of[1], payload)
    t.collect(0)
    assert 1 in ann.proposals()["side.end"]
    assert ann.propose_end(2) is None and ann.refused == "ahead"
    assert ann.propose_takeover(1) is None and ann.refused == "not-due"

    class Driver:
        seat, bot_maker = 0, None

        def __init__(self, refused: str | None) -> None:
            self.peer = SimpleNamespace(agree_end=lambda seat: False,
                                        agreement_refused=refused)

        def silent(self) -> int:
            return 2

        def _collect(self) -> None:
            pass

        def no_agreement(self, plain: bool) -> None:
            return None    # the others' choices do not all differ from this one's

    said = NetDriver.agree(Driver("ahead"), "end")            # type: ignore[arg-type]
    assert said == agree_later_line() and said != cannot_agree_line()
    assert NetDriver.agree(Driver("chosen"), "end") == cannot_agree_line()  # type: ignore[arg-type]


def test_an_end_for_a_hand_the_match_never_reached_is_not_in_the_winners_report(
        tmp_path: Path) -> None:
    """p1 and p2 (every seat but p0) sign, while p0 still plays the match's last hand, an
    end "after p0 left" for the next hand (a peer takes records up to a hand ahead) and
    send it to p0 alone. The match ends in its hand and p0 keeps the records (they came
    before the end): ``verify`` of p0's transcript said the match was won *and* "the
    match was ended in hand N by p1 and p2, saying p0 had left", of a hand never dealt.
    An agreement about a hand the match never reached takes effect nowhere (live, it
    never did), so the report leaves it out."""
    from test_replicated_log import _table
    from test_takeover import _games_state

    from p2p.audit import verify_game

    t = _table(b"hostile9/never-reached", n=3)
    p0 = t.seats[0].rlog
    sent: set[int] = set()
    for _ in range(100_000):
        h = p0.hand_no
        if h not in sent and p0.log.get(h):
            sent.add(h)
            for s in (1, 2):
                rl = t.seats[s].rlog
                rec = Envelope.create(rl.identity, t.cfg.table_id, h + 1, 0,
                                      t.cfg.header().genesis(h + 1),
                                      {"k": "side.end", "hand": h + 1, "seat": 0, "at": 999})
                for payload in wire.encode_push([rec.encode()]):
                    p0.on_message(t.node_of[s], payload)
            t.collect(0)
        t.write_turns()
        if not t.wire:
            break
        t.deliver()
    assert all(s.rlog.finished for s in t.seats)
    assert p0.agreed_end is None and p0.match.voided == []
    path = _transcript(tmp_path, t, 0)
    rep = verify_game(path)
    assert rep.ok and rep.complete and rep.blamed_seat is None, rep.summary()
    assert rep.ended_by_agreement is None and rep.voided == [], rep.summary()
    assert "had left" not in rep.summary(), rep.summary()
    assert rep.winner == p0.match.winner()
    # `games` read the same report: "ended in hand 2 by agreement (you had left)"
    assert "agreement" not in _games_state(tmp_path, path)
