"""Catch-up requests (FETCH/ENTRIES) of the replicated log, without sockets: what a peer
that asks and never acknowledges can make an honest one hold, and the answer to a FETCH
when nothing follows (hostile review of 2026-12-03, findings 2 and 3).

The transport is stood in for by a counter of the bytes each peer has not acknowledged
(what ``Node.pending_bytes`` reports): a reply counts until the test says its sender
acknowledged it.
"""

from __future__ import annotations

from test_replicated_log import Table

from engine import Seating, preset
from p2p.table import wire
from p2p.table.memory import make_table
from p2p.table.replicated_log import LogOptions, ReplicatedLog
from p2p.table.session import node_id_for
from p2p.testing import FakeClock
from p2p.transcript.envelope import MAX_ENVELOPE_BYTES


def _played(name: bytes, options: LogOptions | None = None) -> Table:
    """A finished two-seat match (every seat holds the whole log)."""
    cfg, ids = make_table(preset("modern", match_target=1), Seating.solo(2), ["p0", "p1"], name)
    t = Table(cfg, ids, FakeClock(), options=options)
    t.run()
    assert all(s.rlog.finished for s in t.seats)
    return t


class Unacked:
    """Bytes sent to each peer and not acknowledged yet (a transport's
    ``pending_bytes``)."""

    def __init__(self) -> None:
        self.n: dict[bytes, int] = {}

    def __call__(self, peer: bytes) -> int:
        return self.n.get(peer, 0)

    def sent(self, rl: ReplicatedLog) -> list[tuple[bytes | None, bytes]]:
        out = rl.take_output().messages
        for peer, payload in out:
            if peer is not None:
                self.n[peer] = self.n.get(peer, 0) + len(payload)
        return out


#: The most one reply to a FETCH carries: a batch and the entry that overflows it.
ONE_REPLY = wire.BATCH_BYTES + MAX_ENVELOPE_BYTES


def test_a_peer_that_fetches_and_never_acknowledges_gets_two_replies_not_gigabytes() -> None:
    """Finding 2: a seated peer sending FETCH(0, 0) every 20 ms and never acknowledging
    grew an honest peer by 4 MB a second, up to 2 GB: the byte budget (finding 7) bounded
    the pace, not what waits for acknowledgement. Now a FETCH is answered only while
    fewer than ``fetch_max_unacked`` payloads to its sender are unacknowledged: over 60 s
    of asking, at most two replies' bytes wait (a reply is answered only while less than
    one reply's worth is unacknowledged), whatever the rate budget allows. Once the peer
    acknowledges, the FETCH set aside is answered (an honest one is served)."""
    opts = LogOptions(fetch_bytes_per_s=1 << 30, fetch_burst=1 << 30)  # no rate limit
    t = _played(b"fetchbound/noack", opts)
    rl = t.seats[0].rlog
    unacked = Unacked()
    rl.in_flight = unacked
    rl.take_output()
    mallory = t.node_of[1]
    replies = []
    for _ in range(int(60 / 0.02)):
        t.clock.advance(0.02)
        rl.on_message(mallory, wire.encode_fetch(t.cfg.table_id, 0, 0))
        rl.tick()
        replies += [p for _, p in unacked.sent(rl)]
    assert opts.fetch_max_unacked_bytes == ONE_REPLY
    held = sum(len(p) for p in replies)
    assert 0 < held <= 2 * ONE_REPLY, held
    assert held - len(replies[-1]) < ONE_REPLY       # the last one came under the bound
    assert rl.drops[("seat 1 (p1)", "fetch-unacked")] > 1000
    # it acknowledges: the FETCH it sent last is answered at the next tick, no new asking
    unacked.n[mallory] = 0
    t.clock.advance(0.02)
    rl.tick()
    again = unacked.sent(rl)
    assert [type(wire.decode(p)) for _, p in again] == [wire.Entries]


def test_an_honest_catch_up_goes_on_at_the_pace_of_its_acknowledgements() -> None:
    """A peer fetching the whole log batch by batch gets every entry, though each FETCH
    overtakes the acknowledgement of the reply before it (nothing may be unacknowledged
    here): it is set aside and answered once the acknowledgement arrives, never
    dropped."""
    t = _played(b"fetchbound/honest", LogOptions(fetch_max_unacked_bytes=1))
    rl = t.seats[0].rlog
    unacked = Unacked()
    rl.in_flight = unacked
    rl.take_output()
    asker = t.node_of[1]
    got: list[bytes] = []
    hand, index = 0, 0
    for _ in range(1000):
        t.clock.advance(0.05)
        # the FETCH comes first, the acknowledgement of the reply before it second
        rl.on_message(asker, wire.encode_fetch(t.cfg.table_id, hand, index))
        unacked.n[asker] = 0
        rl.tick()
        out = [wire.decode(p) for _, p in unacked.sent(rl)]
        replies = [m for m in out if isinstance(m, wire.Entries)]
        assert len(replies) <= 1
        if not replies:
            continue
        got += [e for e in replies[0].entries]
        if not replies[0].more:
            break
        # where the next FETCH starts: after the last entry received
        hand, index = _position_after(t, got)
    want = [raw for h in sorted(rl.log) for raw in rl.log[h]]
    assert got == want


def _position_after(t: Table, got: list[bytes]) -> tuple[int, int]:
    log = t.seats[0].rlog.log
    n = len(got)
    for h in sorted(log):
        if n < len(log[h]):
            return h, n
        n -= len(log[h])
    return max(log) + 1, 0


def test_a_fetch_with_nothing_to_send_is_answered_empty() -> None:
    """Finding 3: a FETCH of what follows the end of the log got no answer at all, so a
    peer catching up after a torn end of its own transcript (nothing lost anywhere)
    waited for an answer that never came. Every FETCH served gets ENTRIES: here an empty
    one, ``more`` False."""
    t = _played(b"fetchbound/empty")
    rl = t.seats[0].rlog
    rl.take_output()
    h, i = rl.position()
    rl.on_message(t.node_of[1], wire.encode_fetch(t.cfg.table_id, h, i))
    out = [(peer, wire.decode(p)) for peer, p in rl.take_output().messages]
    assert out == [(t.node_of[1], wire.Entries([], False))]


def test_catching_up_after_a_torn_end_ends_on_empty_answers() -> None:
    """A seat resumed from a transcript whose torn end was cut off (a crash while it wrote
    its own next entry, before sending it) writes nothing until every other seat has
    answered its FETCH. When nobody holds more than it does, the answers are empty: the
    catch-up ends on them and the seat writes its step (it waited 20 s and stopped saying
    "no other player sent the missing entries ... resume again when they are back")."""
    cfg, ids = make_table(preset("modern", match_target=1), Seating.solo(3),
                          ["p0", "p1", "p2"], b"fetchbound/torn")
    t = Table(cfg, ids, FakeClock())
    while True:          # play until the table waits for seat 1 to choose a move
        for s, seat in enumerate(t.seats):
            rl = seat.rlog
            while (not rl.done and rl.match.hand.expected_writer() == s
                   and not (s == 1 and rl.match.hand.needs_decision())):
                hp = rl.match.hand
                rl.secrets[hp.hand_no] = hp.export_secrets()
                rl.write(hp.next_body(seat.bot.choose))  # type: ignore[attr-defined]
            t.collect(s)
        if not t.wire:
            break
        t.deliver()
    assert t.seats[1].rlog.match.hand.needs_decision()
    # seat 1's turn to choose: it restarts from its (complete) store, torn end cut off
    old = t.seats[1].rlog
    stored = list(t.seats[1].persisted)
    back = ReplicatedLog(cfg, old.identity,
                         seat_of_node={node_id_for(i.public_key): s for s, i in enumerate(ids)},
                         clock=t.clock, secrets=old.secrets)
    back.replay([e for e in stored if not e.body["k"].startswith("side.")])
    back.catching_up = True              # what resume_peer does after a torn end
    back.fetch_all()
    t.seats[1].rlog = back
    t.collect(1)
    assert back.catching_up
    t.deliver()                          # the others get the FETCH...
    t.deliver()                          # ... and answer: nothing follows
    assert not back.catching_up and back.stopped is None
    t.run()                              # and the match goes on to its end
    assert all(s.rlog.finished for s in t.seats)
    assert back.log == t.seats[0].rlog.log


def test_a_fetch_too_soon_after_the_last_is_answered_later_not_dropped() -> None:
    """A peer asks at once for the rest of a long answer; a FETCH within
    ``fetch_min_interval`` of the last was dropped, and the asker waited for its stall
    timer (0.5 s to 4 s). It is set aside now (the latest, one per peer) and answered at
    the first tick after the interval."""
    t = _played(b"fetchbound/toosoon")
    rl = t.seats[0].rlog
    rl.take_output()
    asker = t.node_of[1]
    rl.on_message(asker, wire.encode_fetch(t.cfg.table_id, 0, 0))
    assert len(rl.take_output().messages) == 1
    t.clock.advance(0.005)
    rl.on_message(asker, wire.encode_fetch(t.cfg.table_id, 0, 3))
    rl.on_message(asker, wire.encode_fetch(t.cfg.table_id, 0, 5))    # the latest counts
    rl.tick()
    assert rl.take_output().messages == []
    t.clock.advance(0.02)
    rl.tick()
    out = [wire.decode(p) for _, p in rl.take_output().messages]
    assert len(out) == 1 and isinstance(out[0], wire.Entries)
    assert out[0].entries[0] == rl.log[0][5]
    rl.tick()
    assert rl.take_output().messages == []


def test_a_session_sets_the_bound_on_unacknowledged_replies() -> None:
    """The bound is a session option like the fetch rate (a node on a slow link may want
    more replies in flight); it was only reachable by building the log's options."""
    from p2p.table.session import SessionOptions

    assert SessionOptions().log_options().fetch_max_unacked_bytes \
        == LogOptions().fetch_max_unacked_bytes == ONE_REPLY
    assert SessionOptions(fetch_max_unacked_bytes=5).log_options() \
        .fetch_max_unacked_bytes == 5


def test_a_fetch_is_answered_while_the_live_pushes_to_its_asker_wait_for_acks() -> None:
    """A player back at a table of bots asks for the hands he missed while the table
    pushes him each new entry as it is written (a push every few milliseconds). The
    bound counted payloads: with two of those pushes unacknowledged, which was most of
    the time, his FETCH was set aside again and again; under load his catch-up starved
    and his computer stopped naming an honest seat unresponsive (CI, 2026-12-06: "seat 0
    (Ann) is unresponsive: no deck.key", 10 pushes dropped as too far ahead). Live
    pushes are small: forty of them waiting leave the FETCH answered at once."""
    t = _played(b"fetchbound/pushes")
    rl = t.seats[0].rlog
    unacked = Unacked()
    rl.in_flight = unacked
    rl.take_output()
    asker = t.node_of[1]
    pushes = [raw for h in sorted(rl.log) for raw in rl.log[h]][-40:]
    unacked.n[asker] = sum(len(wire.encode_push([raw])[0]) for raw in pushes)
    rl.on_message(asker, wire.encode_fetch(t.cfg.table_id, 0, 0))
    out = [wire.decode(p) for _, p in unacked.sent(rl)]
    assert [type(m) for m in out] == [wire.Entries], rl.drops
    assert out[0].entries[0] == rl.log[0][0]
