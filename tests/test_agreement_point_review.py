"""Hostile review of the agreement point (docs/protocol.md §6, "A signer holds the hand
at its point"): what an honest seat could suffer from it. Sans IO, fake clock, the
in-memory tables of tests/test_agreement_point.py."""

from __future__ import annotations

from pathlib import Path

from test_agreement_point import _both_sign_takeover, _clean, _offer, _paused, _settle
from test_replicated_log import Table, _table, _transcript
from test_slow_loris import STEP, _run

from p2p.audit import verify_game
from p2p.table import wire
from p2p.table.replicated_log import LogOptions, ReplicatedLog
from p2p.transcript.envelope import Envelope
from p2p.transcript.file import is_side


def _restart(t: Table, s: int) -> ReplicatedLog:
    """Seat ``s`` restarts from its store (what it persisted), as a Peer does: replay,
    then a FETCH from where it stands; what it had in flight is lost."""
    old = t.seats[s].rlog
    stored = list(t.seats[s].persisted)
    old.secrets[old.hand_no] = old.match.hand.export_secrets()   # a Peer stores them
    back = ReplicatedLog(t.cfg, old.identity,
                         seat_of_node={n: q for q, n in t.node_of.items()},
                         clock=t.clock, secrets=old.secrets, options=old.opts)
    back.replay([e for e in stored if not is_side(e.body)],
                [e for e in stored if is_side(e.body)])
    back.take_output()
    t.seats[s].rlog = back
    t.wire = [m for m in t.wire if s not in (m[0], m[1])]
    back.fetch_all()
    t.collect(s)
    return back


def test_a_signer_restarted_after_it_learned_its_point_was_passed_is_told_again(
        tmp_path: Path) -> None:
    """p0 signs a bot for p2 at its point; p2's late entry reaches p1 alone, which goes
    on (p0's step is next) and, reading p0's record, tells p0 that it stands past the
    point: p0 stops holding. p0 then restarts before it got p2's entry (its FETCH lost
    with it): from its store it holds the hand at its point again. The word was p1's
    only, said once: p0 would hold for good, p2's entry kept aside, while p1 waits for
    p0's step and, at the step limit, names p0 (honest) unresponsive. p1 must say it
    again when p0 asks from its point (the FETCH of a restarted peer)."""
    t, held = _paused(b"review/restart-after-word", 3)
    p0, p1, p2 = (s.rlog for s in t.seats)
    _offer(p0)
    assert p0.propose_takeover(2) is not None
    t.collect(0)
    proposal = [m for m in t.wire if m[1] == 1]
    t.wire = [m for m in held if m[1] == 1]
    t.deliver()                                  # p1 applies p2's entry: p0 is next
    assert len(p1.log[0]) == 3 and p1.match.hand.expected_writer() == 0
    t.wire = proposal
    t.deliver()                                  # p1 reads p0's record: says past
    t.deliver()                                  # p0 hears it: stops holding
    assert p0.holding() is None and "agreement-void" in t.seats[0].events
    back = _restart(t, 0)                        # ... and restarts before anything came
    assert back.holding() is not None and len(back.log[0]) == 2
    _run(t, lambda s, kind: 0.0, limit=2 * STEP,
         until=lambda: all(s.rlog.done for s in t.seats))
    for s in t.seats:
        assert s.rlog.error is None and s.rlog.unresponsive is None, s.rlog.stopped
        assert s.rlog.finished
    assert back.log == p1.log == p2.log and back.match.voided == []
    for s in (0, 1, 2):
        _clean(tmp_path, t, s, complete=True)


def _back_then_silent_again(name: bytes, again: int) -> Table:
    """Three seats: p2 falls silent at its point (p0, p1 pause on it), p0 signs a bot for
    it there, p2 comes back (an honest flaky seat: its entry reaches both), the hand goes
    on, and p2 falls silent again once its log holds ``again`` entries of the same hand
    (p0, p1 pause on it again, p0's record spent: a point passed)."""
    t, held = _paused(name, 3)
    p0, p1, p2 = (s.rlog for s in t.seats)
    _offer(p0)
    assert p0.propose_takeover(2) is not None
    t.collect(0)
    t.wire = held + t.wire
    _settle(t)
    assert p0.holding() is None and len(p0.log[0]) > 2
    _run(t, lambda s, kind: 0.0, limit=20000.0,
         until=lambda: p0.stopped is not None and p1.stopped is not None,
         hold=lambda src, dst: src == 2 and len(p2.log[0]) >= again)
    assert p0.hand_no == p1.hand_no == 0 and p0.unresponsive == p1.unresponsive == 2
    t.wire = [m for m in t.wire if m[0] != 2]
    return t


def test_a_seat_whose_point_was_passed_may_still_agree_to_end_when_the_seat_falls_silent_again(
        tmp_path: Path) -> None:
    """p0 signed a bot for p2 at a point that p2's return passed; p2 falls silent again
    later in the hand. p0's takeover record counts once for the hand (spent), but the
    end must still be possible (docs/protocol.md: "the end may still be agreed"): p0
    refused to sign an end in a hand where it had signed a bot, so nothing could ever
    be agreed in that hand and the table stayed paused until p2 came back."""
    t = _back_then_silent_again(b"review/back-then-silent", 8)
    p0, p1 = t.seats[0].rlog, t.seats[1].rlog
    assert p1.propose_end(2) is not None
    t.collect(1)
    assert p0.propose_end(2) is not None
    t.collect(0)
    _settle(t)
    for rl in (p0, p1):
        assert rl.agreed_end is not None and rl.agreed_end.at == len(rl.log[0])
        assert rl.done and rl.error is None
    for s in (0, 1):
        rep = verify_game(_transcript(tmp_path, t, s))
        assert rep.ok and rep.blamed_seat is None, rep.summary()
        assert rep.ended_by_agreement is not None and rep.voided == [0], rep.summary()


def test_an_entry_signed_with_a_replaced_seats_old_key_stops_no_peer() -> None:
    """After a takeover, the replaced player's key is still known (its side entries are
    read) but signs nothing of the game any more: its entry of the hand in play (an
    honest S back late, writing the next hand with its own key, or a hostile one on
    purpose) made every peer raise KeyError (the hand's verifier knows the bot's key,
    not the old one): a traceback from a network message. It is dropped, nobody
    blamed, and the peer goes on."""
    t, held = _paused(b"review/old-key", None)
    p0, p1, p2 = (s.rlog for s in t.seats)
    _both_sign_takeover(t)
    h = p0.hand_no
    assert p0.match.voided == [h - 1] and p0.keys[2] != p2.identity.public_key
    for seq in (0, 1, 7):
        env = Envelope.create(p2.identity, p0.table_id, h, seq, p0.header.genesis(h),
                              {"k": "deck.commit"})
        for m in wire.encode_push([env.encode()]):
            p0.on_message(t.node_of[2], m)
    t.collect(0)
    assert p0.error is None and p0.hand_no == h and not p0._early
    assert ("seat 2 (p2)", "replaced-key") in p0.drops


def test_a_signer_whose_store_lost_its_entries_past_its_point_does_not_hold_again(
        tmp_path: Path) -> None:
    """p0 signed at its point, learned it was passed, went on and wrote past it; then its
    store loses the end of the hand (a torn or damaged end: cut below the point) and it
    restarts. Fetching again, it reaches its point and would hold the hand there anew
    (the release is not stored), its own signed entries past the point kept aside as
    early ones. The others' entries past the point, fetched again, show that the
    agreement cannot hold (they never signed it): it goes on, and the match ends at
    every seat, nobody named unresponsive (a regression test: this holds today)."""
    t, held = _paused(b"review/cut-below-point", 3)
    p0, p1, p2 = (s.rlog for s in t.seats)
    _offer(p0)
    assert p0.propose_takeover(2) is not None
    point = len(p0.log[0])
    t.collect(0)
    t.wire = held + t.wire
    _settle(t)
    assert p0.holding() is None and len(p0.log[0]) > point
    own = sum(1 for e in t.seats[0].persisted
              if e.hand == 0 and not is_side(e.body) and e.author == p0.identity.public_key)
    _run(t, lambda s, kind: 0.0, limit=2000.0,
         until=lambda: sum(1 for e in t.seats[0].persisted if e.hand == 0
                           and not is_side(e.body)
                           and e.author == p0.identity.public_key) > own + 2)
    before = [e for e in t.seats[0].persisted if e.hand == 0 and not is_side(e.body)]
    keep = before[:point - 1]           # the store, cut below the point
    t.seats[0].persisted = keep + [e for e in t.seats[0].persisted if is_side(e.body)]
    back = _restart(t, 0)
    _run(t, lambda s, kind: 0.0, limit=STEP,
         until=lambda: len(back.log[0]) > len(before) + 2 or back.hand_no > 0
         or back.holding() is not None and len(back.log[0]) == point and bool(back._early))
    assert back.holding() is None, "holds again at a point it went past before"
    _run(t, lambda s, kind: 0.0, limit=2000.0,
         until=lambda: all(s.rlog.done for s in t.seats))
    for s in t.seats:
        assert s.rlog.finished and s.rlog.error is None and s.rlog.unresponsive is None
    for s in (0, 1, 2):
        _clean(tmp_path, t, s, complete=True)


def test_a_seat_proposing_with_its_own_step_due_is_never_named_unresponsive(
        tmp_path: Path) -> None:
    """p2 is past its budget of automatic steps (the table pauses at each of them); its
    late entry lifts the pause and p0's step is due. p0's player proposes a bot for p2
    then: before, p0 signed at that point and held its own step back until the others
    co-signed, and p1 (and p2), waiting for p0's step, named p0 unresponsive at the step
    limit, a signed claim in every transcript, while p0 waited for them: the table stuck,
    an honest seat named. A record is signed only where the silent seat's step is due:
    p0's proposal is refused then (its console says it is not possible now) and p0
    writes its step; at p2's next step p0 may propose, and p1 co-sign."""
    from test_slow_loris import _loris

    t = _table(b"review/own-step-due", n=3, options=LogOptions(step_limit=STEP))
    p0, p1, p2 = (s.rlog for s in t.seats)
    _run(t, _loris(2), until=lambda: p0.stopped is not None and p1.stopped is not None)
    _run(t, _loris(2), until=lambda: p0.stopped is None and p1.stopped is None)
    assert p0.match.hand.expected_writer() == 0 and p0.saw_silent(2)
    _offer(p0)
    assert p0.propose_takeover(2) is None and p0.propose_end(2) is None
    assert p0.holding() is None and p0.can_write
    _run(t, _loris(2), limit=3 * STEP,
         until=lambda: p0.match.hand.expected_writer() == p1.match.hand.expected_writer() == 2)
    for rl in (p0, p1, p2):
        assert rl.unresponsive != 0 and rl.error is None
    assert not any(e.body.get("k") == "side.timeout" and e.body["slot"][1] == 0
                   for s in t.seats for e in s.rlog.side)
    assert p0.propose_takeover(2) is not None
    t.collect(0)
    t.deliver()
    assert p1.saw_silent(2) and p1.propose_takeover(2) is not None
    t.collect(1)
    t.deliver()
    assert p0.match.voided == p1.match.voided == [0] and p0.hand_no == p1.hand_no == 1
    _settle(t)
    assert p2.match.voided == [0] and p2.error is None     # its own peer voids it too
    for s in (0, 1, 2):
        _clean(tmp_path, t, s, complete=False)


def test_a_record_sent_after_the_match_cannot_void_a_hand_in_the_winners_transcript(
        tmp_path: Path) -> None:
    """Two seats: p1 (hostile, the only other seat, so "every seat but the silent one")
    sends p0, once the match is over, a signed bot for p0's seat in the last hand, at a
    point after its own last entry there. p0's peer never applied it (the hand was
    over), but kept it: verify of p0's transcript then voided the hand p0 scored and
    waited for a bot in p0's seat ("broken by seat 0"). A record for a hand over at a
    peer is not kept (dropped as late-agreement): its transcript says what it said."""
    from test_replicated_log import _table as table
    from test_takeover import BOT_SEED

    from p2p.crypto.identity import Identity

    t = table(b"review/late-record", n=2)
    t.run()
    p0, p1 = t.seats[0].rlog, t.seats[1].rlog
    assert p0.finished and p1.finished
    h = p0.hand_no
    mine = [i for i, raw in enumerate(p1.log[h])
            if Envelope.decode(raw).author == p1.identity.public_key]
    body = {"k": "side.takeover", "hand": h, "seat": 0, "runner": 1, "at": mine[-1] + 1,
            "key": Identity.from_seed(BOT_SEED).public_key, "endpoint": "tcp://127.0.0.1:9"}
    env = Envelope.create(p1.identity, p1.table_id, h, 0, p1.verifier.head, body)
    for m in wire.encode_push([env.encode()]):
        p0.on_message(t.node_of[1], m)
    t.collect(0)
    assert p0.error is None and ("seat 1 (p1)", "late-agreement") in p0.drops
    rep = verify_game(_transcript(tmp_path, t, 0))
    assert rep.ok and rep.complete and rep.blamed_seat is None, rep.summary()
    assert rep.voided == [] and rep.takeovers == [], rep.summary()


def test_no_word_of_the_silent_seat_or_a_stranger_lifts_a_signers_hold() -> None:
    """The word that a seat went on past a signer's point is a remaining seat's own: a
    FETCH from past the point sent by the silent seat itself (its late entries are no
    evidence either), one for a later hand, or one from a node with no seat, leaves p0
    holding; nobody is named, nothing stops; p1's record at the same point then makes
    the takeover hold at both."""
    t, held = _paused(b"review/words", 3)
    p0, p1, p2 = (s.rlog for s in t.seats)
    _offer(p0)
    assert p0.propose_takeover(2) is not None
    t.collect(0)
    proposal = t.wire
    t.wire = []
    point = len(p0.log[0])
    stranger = b"\x01" * 32
    for sender, hand, index in ((t.node_of[2], 0, point + 5), (t.node_of[2], 0, 1 << 40),
                                (t.node_of[1], 1, 0), (stranger, 0, point + 5)):
        p0.on_message(sender, wire.encode_fetch(p0.table_id, hand, index))
    t.collect(0)
    t.wire = [m for m in held if m[1] == 0]
    t.deliver()
    assert p0.holding() is not None and len(p0.log[0]) == point and p0._early
    assert p0.error is None and p0.stopped is not None and p0.unresponsive == 2
    t.wire = [m for m in proposal if m[1] == 1]
    t.deliver()
    assert p1.propose_takeover(2) is not None
    t.collect(1)
    _settle(t)
    assert p0.match.voided == p1.match.voided == [0] and not p0._early


def test_two_seats_choosing_differently_let_the_silent_seat_come_back(
        tmp_path: Path) -> None:
    """p0 chooses a bot for p2, p1 the end, both at the point where p2 fell silent:
    neither agreement can hold while each keeps its choice. Both held the hand at the
    point all the same, so when p2 came back its entry was kept aside at both: the pause
    was never lifted, p2 soon waiting for p0's step and naming it unresponsive, the
    table stuck for good. A seat holds the hand only while no other remaining seat chose
    the other agreement: p2's entry lifts the pause at both, the match goes on to its
    end, nobody named, and verify of every transcript finds nothing wrong."""
    t, held = _paused(b"review/mixed-choices", 3)
    p0, p1, p2 = (s.rlog for s in t.seats)
    _offer(p0)
    assert p0.propose_takeover(2) is not None
    assert p1.propose_end(2) is not None
    t.collect(0)
    t.collect(1)
    for _ in range(20):                          # p2 still silent: it answers nothing
        t.wire = [m for m in t.wire if m[0] != 2]
        if not t.deliver():
            break
    assert p0.hand_no == p1.hand_no == 0 and p0.agreed_end is None is p1.agreed_end
    assert p0.stopped is not None and p1.stopped is not None       # still paused on p2
    t.wire = held
    before = t.clock.now
    _run(t, lambda s, kind: 0.0, limit=2000.0,
         until=lambda: all(s.rlog.done for s in t.seats))
    assert t.clock.now - before < STEP
    for s in t.seats:
        assert s.rlog.finished and s.rlog.error is None and s.rlog.unresponsive is None
    assert p0.log == p1.log == p2.log and p0.match.voided == []
    for s in (0, 1, 2):
        _clean(tmp_path, t, s, complete=True)
