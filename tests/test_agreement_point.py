"""An agreement about a silent seat names the point where its signers saw the seat silent.

Each ``side.takeover`` / ``side.end`` record names ``at``, the entries of the hand its
signer had applied; an agreement holds only when every seat but the silent one signed
the same point, and a seat that signed holds the hand there (applies and writes nothing
more of it) until the agreement holds or cannot. So the silent seat's late entry, sent to
one peer alone after it signed, cannot have that peer score the hand while another voids
it (docs/protocol.md §6, "Agreements about a silent seat"). Sans IO, fake clock.
"""

from __future__ import annotations

from pathlib import Path

from test_replicated_log import Table, _table, _transcript
from test_slow_loris import STEP, _run
from test_takeover import BOT_SEED

from p2p.audit import verify_game
from p2p.crypto.identity import Identity
from p2p.table.replicated_log import LogOptions, ReplicatedLog
from p2p.transcript.agreement import Agreements, body_problem


def _paused(name: bytes, at: int | None) -> tuple[Table, list[tuple[int, int, bytes]]]:
    """Three seats; p2 holds back what it sends once its log has ``at`` entries of the
    hand (None: once it applied the hand's last entry, its own) until p0 and p1 paused
    on it. Returns the table and p2's messages held back (nothing else is in flight)."""
    t = _table(name, n=3, options=LogOptions(step_limit=STEP))
    p0, p1, p2 = (s.rlog for s in t.seats)

    def holding() -> bool:
        return p2.finished if at is None else len(p2.log[0]) >= at

    _run(t, lambda s, kind: 0.0, limit=20000.0,
         until=lambda: p0.stopped is not None and p1.stopped is not None,
         hold=lambda src, dst: src == 2 and holding())
    assert p0.unresponsive == p1.unresponsive == 2
    held = [m for m in t.wire if m[0] == 2]
    t.wire = []
    return t, held


def _offer(rl: ReplicatedLog) -> None:
    rl.bot_offer = (Identity.from_seed(BOT_SEED).public_key, "tcp://127.0.0.1:9", None)


def _both_sign_takeover(t: Table) -> None:
    """p0 (the runner, its bot offered) and p1 both sign a takeover of p2's seat where
    they stand, and the table settles."""
    p0, p1 = t.seats[0].rlog, t.seats[1].rlog
    _offer(p0)
    assert p0.propose_takeover(2) is not None
    assert p1.propose_takeover(2) is not None
    t.collect(0)
    t.collect(1)
    _settle(t)


def _settle(t: Table, rounds: int = 50) -> None:
    for _ in range(rounds):
        if not t.deliver():
            return


def _clean(tmp_path: Path, t: Table, seat: int, *, complete: bool) -> None:
    """``verify`` of seat ``seat``'s transcript finds nothing wrong: the whole match
    (``complete``), or, after the takeover (no bot plays here), every entry good up to
    where the transcript stops, in the hand after the voided one (the seat it waits for
    is named as any stopped transcript names it; no check failed)."""
    rep = verify_game(_transcript(tmp_path, t, seat))
    if complete:
        assert rep.ok and rep.complete and rep.blamed_seat is None, rep.summary()
        assert rep.voided == [], rep.summary()
    else:
        assert rep.crypto.ok and rep.check == "incomplete", rep.summary()
        # the hand voided at the live peer (the first, or the match's last: the deck's
        # secrets are fresh each run, so a match runs one or two hands here)
        live = t.seats[seat].rlog
        assert len(live.match.voided) == 1, live.match.voided
        assert rep.voided == live.match.voided and rep.stopped_hand == live.hand_no, \
            rep.summary()
        assert [x["signers"] for x in rep.takeovers] == [[0, 1]], rep.summary()


def test_a_record_names_its_point_and_records_at_other_points_agree_on_nothing() -> None:
    """The point is part of what must be the same; records without one (an older
    release's) still agree among themselves; a point of the wrong type is refused."""
    keys = [bytes([s]) * 32 for s in range(3)]
    for kind, extra in (("side.takeover", {"runner": 0}), ("side.end", {})):
        body = {"k": kind, "hand": 0, "seat": 2, **extra}
        assert body_problem({**body, "at": "3"}, 0, 1, 3, keys)
        assert body_problem({**body, "at": -1}, 0, 1, 3, keys)
        assert not body_problem({**body, "at": 3}, 0, 1, 3, keys)
        ag = Agreements(3)
        runner = {"key": b"\x09" * 32, "endpoint": "tcp://127.0.0.1:9"} if extra else {}
        ag.add(kind, 0, 0, {**body, **runner, "at": 3})
        ag.add(kind, 0, 1, {**body, "at": 4})
        assert ag.end(0) is None and ag.takeover(0) is None
        assert ag.cannot_hold(kind, 0, {**body, "at": 3}, 0)
        old = Agreements(3)
        old.add(kind, 0, 0, {**body, **runner})
        old.add(kind, 0, 1, dict(body))
        held = old.takeover(0) if extra else old.end(0)
        assert held is not None and held.at is None


def test_a_late_last_entry_reaching_both_before_any_signature_is_scored_at_both(
        tmp_path: Path) -> None:
    """p2's held-back last entry reaches p0 and p1 before either signs: the hand is
    scored at both (here the match is over), and a proposal comes too late."""
    t, held = _paused(b"split/both-before", None)
    p0, p1 = t.seats[0].rlog, t.seats[1].rlog
    t.wire = held
    _settle(t)
    _offer(p0)
    assert p0.propose_takeover(2) is None          # the hand is over: nothing to sign
    assert p0.finished and p1.finished and p0.match.voided == p1.match.voided == []
    assert p0.match.scores == p1.match.scores
    for s in (0, 1):
        _clean(tmp_path, t, s, complete=True)


def test_a_late_last_entry_reaching_one_after_it_signed_and_the_other_before_converges(
        tmp_path: Path) -> None:
    """p0 signs a bot for p2 at its point; p2's last entry then reaches p0 (which keeps
    it aside: it signed) and p1 (which has not signed: it applies it, the hand and the
    match end there). p1 never signs that point; p0 learns it (p1, reading p0's record,
    says it holds more entries of the hand) and goes on: both end the match alike, scored,
    nobody blamed, nothing kept."""
    t, held = _paused(b"split/one-after", None)
    p0, p1 = t.seats[0].rlog, t.seats[1].rlog
    _offer(p0)
    assert p0.propose_takeover(2) is not None
    t.collect(0)
    proposal, t.wire = t.wire, [m for m in held if m[1] == 0]
    t.deliver()                         # p0 signed: p2's entry is kept aside
    assert not p0.finished and p0.holding() is not None and p0._early
    t.wire = [m for m in held if m[1] == 1]
    t.deliver()                         # p1 has not signed: it applies it
    assert p1.finished and p1.propose_takeover(2) is None
    t.wire = proposal
    _settle(t)
    assert p0.finished and p1.finished and p0.match.voided == p1.match.voided == []
    assert p0.match.scores == p1.match.scores
    assert p0.error is None and p1.error is None and not p0._early
    assert "agreement-void" in t.seats[0].events
    for s in (0, 1):
        _clean(tmp_path, t, s, complete=True)


def test_a_late_entry_mid_hand_reaching_one_after_it_signed_lets_the_table_go_on(
        tmp_path: Path) -> None:
    """The same in the middle of the hand: p2's key reaches p1 first (it goes on: p0's
    step is next) and p0 after it signed. p0 holds the hand at its point and p1 waits
    for p0; p1's answer to p0's record (its position, past the point) tells p0 that the
    agreement cannot hold: p0 applies the kept entry and the match goes on to its end
    at every seat, before any step limit passed, nobody named unresponsive."""
    t, held = _paused(b"split/mid-hand", 3)
    p0, p1, p2 = (s.rlog for s in t.seats)
    _offer(p0)
    assert p0.propose_takeover(2) is not None
    t.collect(0)
    proposal = t.wire
    t.wire = held
    t.deliver()
    assert p0.holding() is not None and len(p0.log[0]) == 2 and len(p1.log[0]) >= 3
    t.wire = proposal
    _settle(t)
    assert p0.holding() is None and p0.stopped is None and len(p0.log[0]) > 2
    before = t.clock.now
    _run(t, lambda s, kind: 0.0, limit=2000.0,
         until=lambda: all(s.rlog.done for s in t.seats))
    assert all(s.rlog.finished and s.rlog.error is None for s in t.seats)
    assert p0.log == p1.log == p2.log and p0.match.voided == []
    assert t.clock.now - before < STEP
    for s in (0, 1, 2):
        _clean(tmp_path, t, s, complete=True)


def test_a_hostile_remaining_seat_signing_a_point_and_writing_past_it_splits_nobody(
        tmp_path: Path) -> None:
    """p0 signs a bot for p2 at its point, then (ignoring its own record) applies p2's
    late entry and signs its next step past the point, sent to every seat after its
    record. p1 signed the point too: the records decide, the takeover holds at p1 (p0's
    entry past the point, kept aside, is dropped), and at p2, back honestly late (its own
    entry is past the point: no part of the match). Both honest peers void the hand
    alike; verify of their transcripts blames nobody and plays the hand up to the point
    only (p2's holds entries past it)."""
    t, held = _paused(b"split/hostile-p0", 3)
    p0, p1, p2 = (s.rlog for s in t.seats)
    _offer(p0)
    assert p0.propose_takeover(2) is not None
    t.collect(0)
    proposal, t.wire = t.wire, [m for m in held if m[1] == 0]
    p0._released.add(("side.takeover", 0))      # hostile: p0 goes on anyway
    t.deliver()
    t.wire = []
    t.write_turns()                              # p0 signs its step past the point
    assert len(p0.log[0]) > 3
    past = [m for m in t.wire if m[0] == 0]
    assert p1.saw_silent(2) and p1.propose_takeover(2) is not None
    t.collect(1)
    from_p1 = t.wire[len(past):]
    t.wire = [m for m in proposal if m[1] == 1] + past + [m for m in held if m[1] == 1]
    t.deliver()
    assert (p1.match.voided, p1.hand_no) == ([0], 1) and len(p1.log[0]) == 2
    t.wire = [m for m in proposal if m[1] == 2] + from_p1 + [m for m in held if m[1] == 2]
    _settle(t)
    assert (p1.match.voided, p1.hand_no) == (p2.match.voided, p2.hand_no) == ([0], 1)
    assert p1.error is None and p2.error is None and len(p2.log[0]) > 2
    assert not p1._early and not p2._early
    for s in (1, 2):
        _clean(tmp_path, t, s, complete=False)


def test_a_peer_that_passes_a_point_it_read_says_so_to_its_signer() -> None:
    """p1 reads p0's record first, standing at the same point (it does not sign), and
    only then gets p2's late entry: passing the point, it tells p0 how many entries of
    the hand it holds; p0, holding the hand there, goes on with it."""
    t, held = _paused(b"split/read-then-pass", 3)
    p0, p1 = t.seats[0].rlog, t.seats[1].rlog
    _offer(p0)
    assert p0.propose_takeover(2) is not None
    t.collect(0)
    t.deliver()                                  # p1 reads it at the same point
    assert len(p1.log[0]) == 2 and p0.holding() is not None
    t.wire = [m for m in held if m[1] == 1]
    t.deliver()                                  # p1 passes the point: says so
    t.wire += [m for m in held if m[1] == 0]
    _settle(t)
    assert p0.holding() is None and p0.stopped is None and len(p0.log[0]) > 2
    assert p0.log[0] == p1.log[0][:len(p0.log[0])] and p0.match.voided == []


def test_verify_plays_a_hand_voided_at_a_point_up_to_the_point_only(tmp_path: Path) -> None:
    """The silent seat's own transcript holds its late entry, past the point the others
    agreed on (its peer, still in the hand, voids it with them): verify, by the records,
    voids the hand at the point (the entry past it is checked as a signed link only), as
    at the others."""
    t, held = _paused(b"split/verify-silent-mid", 3)
    p0, p1, p2 = (s.rlog for s in t.seats)
    _both_sign_takeover(t)
    assert p0.match.voided == p1.match.voided == p2.match.voided == [0]
    assert len(p2.log[0]) > len(p0.log[0])          # p2's own late entry, past the point
    rep = verify_game(_transcript(tmp_path, t, 2))
    assert rep.crypto.ok and rep.voided == [0] and rep.void_from == {0: len(p0.log[0])}
    assert rep.check == "incomplete" and rep.stopped_hand == 1, rep.summary()


def test_the_silent_seat_that_scored_the_hand_keeps_that_view_in_its_transcript(
        tmp_path: Path) -> None:
    """p2's late last entry ended the hand and the match at its own peer (scored) before
    the others' agreement came: the records can no longer take effect there, so they are
    not kept, and verify of p2's transcript says what its peer said (the match complete,
    scored), where before it said the hand was voided (and a lone opponent at two seats
    could have a winner's transcript say so, sending a record after the match). The
    others void the hand alike, by the records in their transcripts."""
    t, held = _paused(b"split/verify-silent", None)
    p0, p1, p2 = (s.rlog for s in t.seats)
    h = p0.hand_no                      # the match's last hand (a hand may score nobody)
    _both_sign_takeover(t)
    assert p0.match.voided == p1.match.voided == [h]
    assert p2.finished and len(p2.log[h]) == len(p0.log[h]) + 1 and p2.match.voided == []
    rep = verify_game(_transcript(tmp_path, t, 2))
    assert rep.ok and rep.complete and rep.voided == [], rep.summary()
    assert rep.blamed_seat is None, rep.summary()
    for s in (0, 1):
        _clean(tmp_path, t, s, complete=False)


def test_a_seat_behind_the_point_the_others_signed_does_not_sign_yet() -> None:
    """Signing where it stands, behind the point another seat signed, would only spend
    the agreement for the hand (the points differ): a seat that lags signs once there."""
    t, _held = _paused(b"split/behind", 3)
    p0, p1 = t.seats[0].rlog, t.seats[1].rlog
    _offer(p0)
    ahead = {"k": "side.takeover", "hand": 0, "seat": 2, "runner": 0, "at": 5}
    p1.agreements.add("side.takeover", 0, 0, ahead)
    assert p1.propose_takeover(2) is None
    assert p0.propose_takeover(2) is not None    # at its own point: nobody signed further


def test_a_signer_restarted_from_its_store_still_holds_the_hand_at_its_point() -> None:
    """p0 signs at its point and restarts from its store (its record among the side
    entries): it holds the hand there again, so p2's late entry is kept aside, and p1's
    record at the same point makes the takeover hold at it, voiding the hand alike."""
    from p2p.transcript.file import is_side

    t, held = _paused(b"split/restart", 3)
    p0, p1 = t.seats[0].rlog, t.seats[1].rlog
    _offer(p0)
    assert p0.propose_takeover(2) is not None
    t.collect(0)
    t.wire = []
    stored = list(t.seats[0].persisted)
    back = ReplicatedLog(t.cfg, p0.identity, seat_of_node={n: s for s, n in t.node_of.items()},
                         clock=t.clock, secrets=p0.secrets, options=p0.opts)
    back.replay([e for e in stored if not is_side(e.body)],
                [e for e in stored if is_side(e.body)])
    back.take_output()
    t.seats[0].rlog = back
    assert back.holding() is not None and len(back.log[0]) == 2
    t.wire = [m for m in held if m[1] == 0]
    t.deliver()
    assert len(back.log[0]) == 2 and back._early       # kept aside
    assert p1.propose_takeover(2) is not None
    t.collect(1)
    _settle(t)
    assert (back.match.voided, back.hand_no) == (p1.match.voided, p1.hand_no) == ([0], 1)
    assert not back._early
