"""Side entries read back from a seat's own store on resume (hostile review of
2026-12-03, finding 6): claims, complaints and abandons go back into the log's side
entries and its duplicate filter, as agreements already did."""

from __future__ import annotations

from pathlib import Path

from test_replicated_log import _silent_table, _transcript, _wait_for_stop

from p2p.audit import verify_game
from p2p.table import wire
from p2p.table.replicated_log import ReplicatedLog
from p2p.transcript.envelope import Envelope
from p2p.transcript.file import is_side


def test_a_resumed_seat_keeps_its_claims_and_signs_no_second_one(tmp_path: Path) -> None:
    """Seat 2 goes silent; seats 0 and 1 each sign a timeout claim and store both. Seat 1
    restarts from its store. Seat 0's claim sent again is neither stored nor announced a
    second time (it was, and the resumed seat's transcript grew a copy each time), and
    when the step's limit passes again the resumed seat sends its stored claim again
    instead of signing a second one (its transcript held three claims, two distinct)."""
    t = _silent_table(b"sidereplay/claims", silent=2)
    _wait_for_stop(t, honest=(0, 1), silent=2)
    t.deliver(lose={2})                              # each honest seat gets the other's claim
    stored = list(t.seats[1].persisted)
    me = t.seats[1].rlog.identity.public_key
    claims = [e for e in stored if is_side(e.body)]
    assert sorted(e.author == me for e in claims) == [False, True]
    old = t.seats[1].rlog
    back = ReplicatedLog(t.cfg, old.identity, seat_of_node={n: s for s, n in t.node_of.items()},
                         clock=t.clock, secrets=old.secrets, options=old.opts)
    back.replay([e for e in stored if not is_side(e.body)], claims)
    back.take_output()
    assert [e.encode() for e in back.side] == [e.encode() for e in claims]
    # seat 0 sends its old claim again
    theirs = next(e for e in claims if e.author != me)
    back.on_message(t.node_of[0], wire.encode_push([theirs.encode()])[0])
    out = back.take_output()
    assert out.persist == [] and not [e for e in out.events if e.kind == "claim"]
    # the step's limit passes again for the resumed seat: its own claim goes out again
    pushed: list[bytes] = []
    persisted: list[bytes] = []
    for _ in range(60):
        t.clock.advance(0.5)
        back.tick()
        o = back.take_output()
        persisted += [e.encode() for e in o.persist]
        pushed += [raw for _, p in o.messages if isinstance(m := wire.decode(p), wire.Push)
                   for raw in m.entries]
    assert back.stopped is not None and back.unresponsive == 2
    mine = next(e for e in claims if e.author == me)
    assert persisted == [] and pushed == [mine.encode()]
    # its transcript: the same two claims, and verify still blames nobody
    t.seats[1].persisted = stored
    rep = verify_game(_transcript(tmp_path, t, 1))
    assert rep.check == "unresponsive" and rep.blamed_seat is None and rep.unresponsive == 2


def test_a_stored_side_entry_damaged_on_disk_is_left_out() -> None:
    """A stored claim whose signature no longer verifies (a flipped bit on this disk) is
    not taken back: it is no link of the log, nothing else depends on it."""
    t = _silent_table(b"sidereplay/damaged", silent=2)
    _wait_for_stop(t, honest=(0, 1), silent=2)
    stored = list(t.seats[1].persisted)
    claims = [e for e in stored if is_side(e.body)]
    assert claims
    raw = bytearray(claims[0].encode())
    raw[-3] ^= 0x10
    bad = Envelope.decode(bytes(raw))
    old = t.seats[1].rlog
    back = ReplicatedLog(t.cfg, old.identity, seat_of_node={n: s for s, n in t.node_of.items()},
                         clock=t.clock, secrets=old.secrets, options=old.opts)
    back.replay([e for e in stored if not is_side(e.body)], [bad])
    assert back.side == [] and back.stopped is None


def test_a_stored_leave_record_stops_the_resumed_seat_for_good() -> None:
    """A signed leave record (``side.abandon``) stopped every seat for good when it came;
    a seat resumed from its store played on, waiting for players who had all stopped."""
    t = _silent_table(b"sidereplay/abandon", silent=2)
    t.seats[0].rlog.write_side({"k": "side.abandon", "reason": "gone fishing"})
    t.seats[0].rlog.stop("abandoned", None)
    t.collect(0)
    t.deliver(lose={2})
    assert t.seats[1].rlog.stopped == "seat 0 (p0) abandoned the match: gone fishing"
    stored = list(t.seats[1].persisted)
    old = t.seats[1].rlog
    back = ReplicatedLog(t.cfg, old.identity, seat_of_node={n: s for s, n in t.node_of.items()},
                         clock=t.clock, secrets=old.secrets, options=old.opts)
    back.replay([e for e in stored if not is_side(e.body)],
                [e for e in stored if is_side(e.body)])
    assert back.stopped == "seat 0 (p0) abandoned the match: gone fishing"
    assert back.stop_why == {"id": "abandoned", "seat": 0, "text": "gone fishing"}
    assert not back.resumable and back.propose_end(2) is None
