"""The replicated log without sockets: ReplicatedLog objects wired by a list of messages.

Each seat's log signs its own entries and hands back what to persist and what to send; the
test delivers the messages itself (in order, shuffled, or not at all) and moves a fake
clock, so intake, ordering, evidence and catch-up are exercised deterministically.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from cli import i18n
from cli.words import local_damage_text, stop_reason
from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import verify_game
from p2p.table import wire
from p2p.table.config import TableConfig
from p2p.table.memory import make_table
from p2p.table.replicated_log import LogOptions, ReplicatedLog
from p2p.table.session import node_id_for
from p2p.testing import FakeClock
from p2p.transcript.envelope import Envelope, canonical_packb
from p2p.transcript.file import TranscriptWriter, is_side


@dataclass
class Seat:
    rlog: ReplicatedLog
    bot: object
    persisted: list[Envelope] = field(default_factory=list)
    evidence: list[Envelope] = field(default_factory=list)
    events: list[str] = field(default_factory=list)


class Table:
    """n seats and the messages in flight between them (sender, destination, payload)."""

    def __init__(self, cfg: TableConfig, ids: list, clock: FakeClock,
                 options: LogOptions | None = None, seed: int = 0) -> None:
        self.cfg = cfg
        self.clock = clock
        nodes = {node_id_for(i.public_key): s for s, i in enumerate(ids)}
        self.node_of = {s: n for n, s in nodes.items()}
        self.seats = [Seat(ReplicatedLog(cfg, ids[s], seat_of_node=nodes, clock=clock,
                                         options=options), make_bot("heuristic", 5 + s))
                      for s in range(cfg.n)]
        self.wire: list[tuple[int, int, bytes]] = []
        self.rng = random.Random(seed)

    def collect(self, s: int) -> None:
        out = self.seats[s].rlog.take_output()
        self.seats[s].persisted.extend(out.persist)
        self.seats[s].evidence.extend(out.evidence)
        self.seats[s].events.extend(e.kind for e in out.events)
        for dst, payload in out.messages:
            targets = [d for d in range(self.cfg.n) if d != s] if dst is None \
                else [self.seats_of(dst)]
            self.wire.extend((s, d, payload) for d in targets)

    def seats_of(self, node: bytes) -> int:
        return {n: s for s, n in self.node_of.items()}[node]

    def write_turns(self, seats: tuple[int, ...] | None = None) -> None:
        """Each seat (of ``seats``, by default all) writes what its turn asks."""
        for s, seat in enumerate(self.seats):
            if seats is not None and s not in seats:
                continue
            rl = seat.rlog
            while (not rl.done and not rl.catching_up
                   and rl.match.hand.expected_writer() == s):
                hp = rl.match.hand
                rl.secrets[hp.hand_no] = hp.export_secrets()
                rl.write(hp.next_body(seat.bot.choose))  # type: ignore[attr-defined]
            self.collect(s)

    def deliver(self, shuffle: bool = False, lose: set[int] | None = None) -> int:
        """Deliver every message in flight (to seats not in ``lose``); returns how many."""
        batch, self.wire = self.wire, []
        if shuffle:
            self.rng.shuffle(batch)
        for src, dst, payload in batch:
            if lose and dst in lose:
                continue
            self.seats[dst].rlog.on_message(self.node_of[src], payload)
            self.collect(dst)
        return len(batch)

    def run(self, rounds: int = 100_000, shuffle: bool = False) -> None:
        for _ in range(rounds):
            self.write_turns()
            if not self.wire:
                break
            self.deliver(shuffle)


def _said(rl: ReplicatedLog, french: str, english: str | None = None) -> None:
    """The stop's reason id and data (``stop_why``) say in English exactly ``english``
    (by default what the log says, ``stopped``; a console says a protocol check or step
    in words where the log names its id), and in French what ``french`` holds (issue 13:
    the log decides nothing in a language; each console words the id in its own)."""
    assert rl.stopped is not None and rl.stop_why is not None, rl.stopped
    with i18n.using("en"):
        assert stop_reason(rl.stop_why, rl.names) == (english or rl.stopped)
    with i18n.using("fr"):
        said = stop_reason(rl.stop_why, rl.names)
    assert french in said, said


def _table(name: bytes, n: int = 2, **kw: object) -> Table:
    cfg, ids = make_table(preset("modern", match_target=1), Seating.solo(n),
                          [f"p{s}" for s in range(n)], name)
    return Table(cfg, ids, FakeClock(), **kw)  # type: ignore[arg-type]


def test_whole_match_in_memory_messages_in_random_order() -> None:
    t = _table(b"rlog/order", n=3, seed=3)
    t.run(shuffle=True)
    logs = [s.rlog.log for s in t.seats]
    assert all(s.rlog.finished and s.rlog.stopped is None for s in t.seats)
    assert logs[0] == logs[1] == logs[2]
    # every seat persisted exactly its log, in log order
    for s in t.seats:
        assert [e.encode() for e in s.persisted] == [r for h in sorted(s.rlog.log)
                                                     for r in s.rlog.log[h]]
    assert "match-end" in t.seats[0].events


def test_a_seat_that_lost_messages_catches_up_by_fetching() -> None:
    t = _table(b"rlog/fetch")
    for _ in range(40):                 # seat 1 hears nothing for a while
        t.write_turns()
        t.deliver(lose={1})
    behind = t.seats[1].rlog.position()
    assert behind < t.seats[0].rlog.position() or t.seats[0].rlog.done
    t.clock.advance(1.0)                # stalled: it asks
    t.seats[1].rlog.tick()
    t.collect(1)
    assert any(wire.decode(p) == wire.Fetch(t.cfg.table_id, *behind) for _, _, p in t.wire)
    t.run()
    assert t.seats[0].rlog.log == t.seats[1].rlog.log
    assert t.seats[1].rlog.finished


def test_equivocation_is_caught_with_both_entries_kept_as_evidence() -> None:
    t = _table(b"rlog/equiv")
    t.write_turns()                     # seat 0 writes its key share
    first = t.seats[0].rlog.log[0][0]
    env = Envelope.decode(first)
    other = Envelope.create(t.seats[0].rlog.identity, env.table, env.hand, env.seq, env.prev,
                            {**env.body, "x": 1})
    t.deliver()
    t.seats[1].rlog.on_message(t.node_of[0], wire.encode_push([other.encode()])[0])
    t.collect(1)
    rl = t.seats[1].rlog
    assert rl.stopped is not None and rl.error is not None
    assert (rl.error.seat, rl.error.check) == (0, "equivocation")
    _said(rl, "place 0 (p0) a signé deux entrées différentes pour une même place")
    assert {e.encode() for e in t.seats[1].evidence} == {first, other.encode()}


def test_a_version_dropped_as_a_broken_link_then_another_is_an_equivocation() -> None:
    """Found by the long property run: seat 0 signs an entry for its next slot chained to
    the wrong place, then the right one. A peer that meets the first in its turn drops it
    as a broken link (never evidence by itself: the writer may have chained on a version we
    never saw); it used to apply the second and go on, while a peer holding both stopped on
    the equivocation. The dropped version is kept, so the second proves the equivocation
    to every peer alike (its complaint carries both)."""
    t = _table(b"rlog/unchained", n=3)
    t.write_turns()                     # seat 0 writes its key share
    rl0 = t.seats[0].rlog
    env = Envelope.decode(rl0.log[0][0])
    unchained = Envelope.create(rl0.identity, env.table, env.hand, env.seq, bytes(32),
                                env.body)
    rl = t.seats[1].rlog
    rl.on_message(t.node_of[0], wire.encode_push([unchained.encode()])[0])
    t.collect(1)
    assert rl.stopped is None and rl.drops[("seat 0 (p0)", "broken-link")] == 1
    t.wire = [m for m in t.wire if m[1] != 0]    # seat 1's fetch: no answer needed here
    t.deliver()                                  # the version seat 0 applied, to 1 and 2
    assert rl.error is not None and (rl.error.seat, rl.error.check) == (0, "equivocation")
    assert {e.encode() for e in t.seats[1].evidence} == {unchained.encode(), env.encode()}
    t.deliver()                                  # seat 1's complaint reaches seat 2
    rl2 = t.seats[2].rlog
    assert rl2.error is not None and (rl2.error.seat, rl2.error.check) == (0, "equivocation")


def test_early_entries_are_bounded_per_author_in_bytes() -> None:
    t = _table(b"rlog/early", options=LogOptions(max_early_bytes=4000))
    rl = t.seats[1].rlog
    ident = t.seats[0].rlog.identity
    sent = 0
    for seq in range(1, 40):            # far ahead of the log (seq 0 never comes)
        env = Envelope.create(ident, t.cfg.table_id, 0, seq, bytes(32), {"k": "x" * 300})
        rl.on_message(t.node_of[0], wire.encode_push([env.encode()])[0])
        sent += 1
    assert rl.drops[("seat 0 (p0)", "buffer-full")] > 0
    assert rl._early_bytes[ident.public_key] <= 4000


def test_fetches_from_strangers_and_too_often_are_refused() -> None:
    t = _table(b"rlog/fetchrate")
    t.run()
    rl = t.seats[0].rlog
    rl.take_output()
    rl.on_message(b"m" + bytes(32), wire.encode_fetch(t.cfg.table_id, 0, 0))
    assert not rl.take_output().messages
    rl.on_message(t.node_of[1], wire.encode_fetch(t.cfg.table_id, 0, 0))
    assert rl.take_output().messages
    rl.on_message(t.node_of[1], wire.encode_fetch(t.cfg.table_id, 0, 0))
    assert not rl.take_output().messages          # within fetch_min_interval
    t.clock.advance(0.1)
    rl.on_message(t.node_of[1], wire.encode_fetch(t.cfg.table_id, 0, 0))
    assert rl.take_output().messages


def test_wire_codec_refuses_what_is_not_a_session_message() -> None:
    for payload, reason in [(b"\xc1", "malformed"), (wire.pack({"a": 1}), "malformed"),
                            (wire.pack([9, 1]), "malformed"),
                            (b"\x00" * (wire.MAX_PAYLOAD + 1), "oversized"),
                            (wire.pack([wire.ABANDON, 1, 2]), "malformed")]:
        try:
            wire.decode(payload)
        except wire.WireError as exc:
            assert exc.reason == reason
        else:
            raise AssertionError(payload[:20])
    big = [b"x" * 100_000] * 6
    pushes = wire.encode_push(big)
    assert len(pushes) == 3 and all(len(p) <= wire.BATCH_BYTES + 100_010 for p in pushes)


def test_local_damage_on_resume_is_reported_as_such_and_repaired_from_a_peer() -> None:
    """Finding 11: one flipped bit in a stored entry of this seat's own transcript made
    ``resume`` announce that its own seat broke the log. It is local damage: the replay
    stops before it, blames nobody, cuts the store back, writes nothing of its own until a
    peer has sent the rest, then catches up."""
    t = _table(b"rlog/damage")
    for _ in range(30):
        t.write_turns()
        t.deliver()
    stored = list(t.seats[1].persisted)
    mine = t.seats[1].rlog.identity.public_key
    k = next(i for i, e in enumerate(stored) if i > 5 and e.author == mine)
    raw = bytearray(stored[k].encode())
    raw[-3] ^= 0x10                                   # a bit of its signature
    damaged = stored[:k] + [Envelope.decode(bytes(raw))] + stored[k + 1:]
    ident = t.seats[1].rlog.identity
    back = ReplicatedLog(t.cfg, ident, seat_of_node={n: s for s, n in t.node_of.items()},
                         clock=t.clock, secrets=t.seats[1].rlog.secrets)
    back.replay(damaged)
    out = back.take_output()
    assert back.stopped is None and back.error is None
    assert back.local_damage is not None and f"entry {k}" in back.local_damage
    assert out.rewrite is not None and [e.encode() for e in out.rewrite] == \
        [e.encode() for e in stored[:k]]
    assert "local-damage" in [e.kind for e in out.events]
    assert back.catching_up and back.position() == (0, k)
    t.seats[1].rlog = back
    back.fetch_all()
    t.collect(1)
    t.run()
    assert back.stopped is None and back.finished
    assert back.log == t.seats[0].rlog.log


def test_the_wait_to_catch_up_after_local_damage_is_timed_and_says_so() -> None:
    """After local damage a peer writes nothing until another peer sends back what it
    lost. When nobody answers, that wait is a protocol step like any other: it keeps
    asking, shows a countdown (``deadline``) and stops at the table's time limit, in
    words, blaming nobody; it was an unbounded silent wait."""
    t = _table(b"rlog/damage-alone")
    for _ in range(30):
        t.write_turns()
        t.deliver()
    stored = list(t.seats[1].persisted)
    raw = bytearray(stored[8].encode())
    raw[-3] ^= 0x10
    damaged = stored[:8] + [Envelope.decode(bytes(raw))] + stored[9:]
    back = ReplicatedLog(t.cfg, t.seats[1].rlog.identity,
                         seat_of_node={n: s for s, n in t.node_of.items()}, clock=t.clock,
                         secrets=t.seats[1].rlog.secrets, options=LogOptions(step_limit=20.0))
    back.replay(damaged)
    back.fetch_all()
    back.take_output()
    assert back.catching_up and back.deadline() == (1, t.clock.now + 20.0)
    start, fetches = t.clock.now, 0
    while back.stopped is None and t.clock.now - start < 60:
        t.clock.advance(0.5)
        back.tick()
        out = back.take_output()
        fetches += sum(1 for _, p in out.messages if isinstance(wire.decode(p), wire.Fetch))
    assert 20.0 <= t.clock.now - start <= 20.5
    assert fetches > 3                      # it kept asking the others meanwhile
    assert back.stopped is not None and "no other player sent the missing entries" in \
        back.stopped and back.error is None and not back.resumable
    _said(back, "aucun autre joueur n'a envoyé les entrées manquantes en 20 s")
    with i18n.using("en"):    # the log names the check, the console says it in words
        assert back.local_damage is not None and "(bad-signature)" in back.local_damage
        assert local_damage_text(back.local_damage_why) == back.local_damage.replace(
            "(bad-signature)", "(an entry whose signature does not verify [bad-signature])")
    with i18n.using("sv"):
        assert local_damage_text(back.local_damage_why).startswith(
            "den sparade posten 8 av ")


def test_a_peer_fetching_the_whole_log_again_and_again_gets_a_bounded_byte_rate() -> None:
    """Finding 7: a seated peer asking for the whole log every 21 ms without acknowledging
    grew an honest peer by hundreds of MB. Replies are now paid from a per-peer byte budget
    that refills at ``fetch_bytes_per_s``: over 45 s of such asking, the bytes served stay
    within the burst plus the rate."""
    opts = LogOptions(fetch_bytes_per_s=64_000, fetch_burst=300_000)
    t = _table(b"rlog/fetchflood", options=opts)
    t.run()
    rl = t.seats[0].rlog
    rl.take_output()
    served = 0
    for _ in range(int(45 / 0.021)):
        t.clock.advance(0.021)
        rl.on_message(t.node_of[1], wire.encode_fetch(t.cfg.table_id, 0, 0))
        served += sum(len(p) for _, p in rl.take_output().messages)
    assert served <= 300_000 + 64_000 * 45 + wire.BATCH_BYTES + 10_000, served
    assert rl.drops[("seat 1 (p1)", "fetch-budget")] > 0


def _silent_table(name: bytes, silent: int) -> Table:
    """Three seats; ``silent`` writes nothing and hears nothing; the others go on until
    the log waits for it."""
    t = _table(name, n=3, options=LogOptions(step_limit=20.0))
    for _ in range(200):
        for s in range(3):
            if s == silent:
                continue
            rl = t.seats[s].rlog
            while not rl.done and rl.match.hand.expected_writer() == s:
                hp = rl.match.hand
                rl.secrets[hp.hand_no] = hp.export_secrets()
                rl.write(hp.next_body(t.seats[s].bot.choose))  # type: ignore[attr-defined]
            t.collect(s)
        t.wire = [m for m in t.wire if m[0] != silent]
        if not t.deliver(lose={silent}):
            break
    return t


def _wait_for_stop(t: Table, honest: tuple[int, ...], silent: int) -> int:
    """Advance the clock in 0.5 s steps until every honest seat stopped (or 60 s); returns
    how many messages they sent meanwhile (kept in flight only at the very end)."""
    start = t.clock.now
    sent = 0
    while not all(t.seats[s].rlog.stopped for s in honest) and t.clock.now - start < 60:
        t.clock.advance(0.5)
        for s in honest:
            t.seats[s].rlog.tick()
            t.collect(s)
        sent += len(t.wire)
        if not all(t.seats[s].rlog.stopped for s in honest):
            t.wire.clear()
    return sent


def test_silence_ends_in_a_bounded_stop_naming_the_seat_unresponsive() -> None:
    """Finding 5: a peer that went silent (here: from the start, before its hand key) left
    the others waiting forever.
    Now every protocol step has a time limit: the others keep asking (fetch, with backoff)
    and, when it passes, stop with the silent seat named *unresponsive*, blaming nobody."""
    t = _silent_table(b"rlog/silence", silent=1)
    start = t.clock.now
    fetches = _wait_for_stop(t, honest=(0, 2), silent=1)
    waited = t.clock.now - start
    assert 20.0 <= waited <= 21.0, waited
    assert fetches > 3                                   # relay asked for before the limit
    for rl in (t.seats[0].rlog, t.seats[2].rlog):
        assert rl.unresponsive == 1 and rl.error is None
        assert rl.stopped is not None and "unresponsive" in rl.stopped
        _said(rl, "place 1 (p1) ne répond pas : ", "seat 1 (p1) is unresponsive: its "
              "computer's part of the shuffle did not come within the table's time limit")


def test_a_players_own_decision_is_not_timed_out_unless_the_table_chose_so() -> None:
    t = _table(b"rlog/decide")
    while not any(s.rlog.match.hand.needs_decision() for s in t.seats):
        t.write_turns()
        t.deliver()
    w = next(i for i, s in enumerate(t.seats) if s.rlog.match.hand.needs_decision())
    other = t.seats[1 - w].rlog
    assert other.deadline() is None
    t.clock.advance(3600)
    other.tick()
    assert other.stopped is None


def test_a_decision_of_a_seat_whose_computer_is_gone_is_timed_like_a_step() -> None:
    """A player thinking is not timed, but a peer that died on its own move (kill -9, a
    dead laptop) left every other peer — bots and ``--auto`` seats included — waiting
    forever (found by ``millebornes bench trust``: 3 runs in 4). Once the transport
    reports the seat gone, its move is timed like any step from that moment; the table
    stops with the seat named unresponsive, nobody blamed. Heard again: untimed again."""
    t = _table(b"rlog/gone-deciding", options=LogOptions(step_limit=20.0))
    while not any(s.rlog.match.hand.needs_decision() for s in t.seats):
        t.write_turns()
        t.deliver()
    w = next(i for i, s in enumerate(t.seats) if s.rlog.match.hand.needs_decision())
    other = t.seats[1 - w].rlog
    assert other.deadline() is None
    t.clock.advance(100)
    other.seat_reachable(w, False)           # the transport: no heartbeat from w
    gone_at = t.clock.now
    assert other.deadline() == (w, gone_at + 20.0)
    other.seat_reachable(w, True)            # heard again (it was only slow): untimed
    assert other.deadline() is None
    other.seat_reachable(w, False)
    t.clock.advance(19.5)
    other.tick()
    assert other.stopped is None
    t.clock.advance(1.0)
    other.tick()
    assert other.stopped is not None and other.unresponsive == w and other.error is None


def _transcript(tmp_path: Path, t: Table, seat: int) -> Path:
    path = tmp_path / f"seat{seat}.mbt"
    with TranscriptWriter(path, t.cfg.header()) as w:
        for env in t.seats[seat].persisted:
            w.append(env)
    return path


def test_timeout_claims_are_side_entries_verify_shows_unresponsive_never_blame(
        tmp_path: Path) -> None:
    """When a step's limit passes, each honest peer signs "I did not receive slot X from
    seat S" as a side entry (not a link of the game chain), every peer records the others'
    claims, and ``verify`` of any honest transcript says *unresponsive*, blaming nobody."""
    t = _silent_table(b"rlog/claims", silent=1)
    _wait_for_stop(t, honest=(0, 2), silent=1)
    t.deliver(lose={1})                        # the claims reach the other honest peer
    for s in (0, 2):
        kinds = [e.body["k"] for e in t.seats[s].persisted if is_side(e.body)]
        assert kinds == ["side.timeout", "side.timeout"], kinds
        rep = verify_game(_transcript(tmp_path, t, s))
        assert not rep.ok and rep.check == "unresponsive", rep.summary()
        assert rep.blamed_seat is None and rep.unresponsive == 1
        assert "INCOMPLETE" in rep.summary() and "unresponsive" in rep.summary()


def test_a_claim_refuted_by_the_signed_entry_is_not_shown() -> None:
    """A false timeout claim (the slot's entry exists, signed) says nothing: verify finds
    the entry and goes on; the claimer is not believed."""
    t = _table(b"rlog/falseclaim")
    t.run()
    rl = t.seats[1].rlog
    rl.write_side({"k": "side.timeout", "step": "deck.key", "slot": [0, 0, 0]})
    t.collect(1)
    t.deliver()
    assert t.seats[0].rlog.finished and t.seats[0].rlog.stopped is None
    assert [e.body["k"] for e in t.seats[0].rlog.side] == ["side.timeout"]


def test_a_leave_record_is_kept_in_every_transcript_and_blames_nobody(tmp_path: Path) -> None:
    t = _table(b"rlog/leave", n=3)
    for _ in range(5):
        t.write_turns()
        t.deliver()
    t.seats[2].rlog.write_side({"k": "side.abandon", "reason": "dinner"})
    t.seats[2].rlog.stop("I left", None)
    t.collect(2)
    t.deliver()
    for s in (0, 1):
        assert t.seats[s].rlog.stopped == "seat 2 (p2) abandoned the match: dinner"
        _said(t.seats[s].rlog, "place 2 (p2) a abandonné la partie : dinner")
        rep = verify_game(_transcript(tmp_path, t, s))
        assert rep.check == "incomplete" and rep.blamed_seat is None, rep.summary()
        assert rep.abandoned_by == 2 and "dinner" in rep.summary()


def test_a_transcript_of_another_version_is_refused_in_plain_words(tmp_path: Path) -> None:
    t = _table(b"rlog/v1")
    t.run()
    path = _transcript(tmp_path, t, 0)
    raw = path.read_bytes()
    hdr = t.cfg.header().to_obj()
    old = canonical_packb({**hdr, "version": 1})
    assert raw.startswith(canonical_packb(hdr))
    path.write_bytes(old + raw[len(canonical_packb(hdr)):])
    rep = verify_game(path)
    assert not rep.ok and rep.check == "unsupported-version"
    assert rep.summary() == ("this transcript is version 1; this release of millebornes "
                             "reads version 3 only and cannot check it")


def _play_with(t: Table, cheat: int, rewrite: Any, rounds: int = 400,
               wrote: Callable[[int, dict[str, Any], Envelope], None] | None = None,
               sent: Callable[[int], None] | None = None,
               until: Callable[[], bool] | None = None) -> None:
    """Play on; ``rewrite(body)`` changes seat ``cheat``'s bodies before it signs them;
    ``wrote(seat, body, entry)`` sees each entry signed, ``sent(seat)`` each seat's
    messages before they travel (it may change ``t.wire``); ``until()`` ends the play."""
    for _ in range(rounds):
        for s, seat in enumerate(t.seats):
            rl = seat.rlog
            while (not rl.done and not rl.catching_up
                   and rl.match.hand.expected_writer() == s):
                hp = rl.match.hand
                rl.secrets[hp.hand_no] = hp.export_secrets()
                body = hp.next_body(seat.bot.choose)  # type: ignore[attr-defined]
                env = rl.write(rewrite(body) if s == cheat else body)
                if wrote is not None:
                    wrote(s, body, env)
            t.collect(s)
            if sent is not None:
                sent(s)
        if not t.deliver() or (until is not None and until()):
            break


def bad_share_to(seat: int) -> tuple[Callable[[dict[str, Any]], dict[str, Any]], list[bool]]:
    """An entry mutator that spoils the proof of the first decryption share sent to
    ``seat`` (a cheat only that seat can see), and the flag saying it was spoiled."""
    done = [False]

    def bad_share(body: dict[str, Any]) -> dict[str, Any]:
        if not done[0] and body.get("k") == "deck.share" and body.get("to") == seat:
            done[0] = True
            pf = bytearray(body["proof"])
            pf[3] ^= 1
            return {**body, "proof": bytes(pf)}
        return body

    return bad_share, done


def test_a_bad_share_seen_by_its_recipient_only_stops_every_peer_blaming_its_author(
        tmp_path: Path) -> None:
    """Finding 2: a bad decryption share sent to one peer stopped that peer only; the
    others waited forever. Its recipient now broadcasts a signed complaint carrying the
    share's entry; every peer checks the proof itself and blames the same seat, and
    ``verify`` of any honest transcript agrees."""
    t = _table(b"rlog/badshare", n=3)
    bad_share, _done = bad_share_to(0)
    _play_with(t, 2, bad_share)
    for s in (0, 1):
        rl = t.seats[s].rlog
        assert rl.error is not None and rl.error.seat == 2, (s, rl.error)
        how = "" if s == 0 else ", shown by p0's complaint"     # seat 1 learns it from 0
        _said(rl, "place 2 (p2) a enfreint les règles du protocole (",
              "seat 2 (p2) broke the rules of the protocol (a decryption share that fails its "
              f"proof [share-proof]{how})")
        rep = verify_game(_transcript(tmp_path, t, s))
        assert not rep.ok and rep.blamed_seat == 2, rep.summary()
    assert [e.body["k"] for e in t.seats[1].rlog.side] == ["side.complaint"]


def test_a_bad_share_a_third_peer_never_got_is_judged_by_verify_from_the_complaint(
        tmp_path: Path) -> None:
    """Seat 2 sends a bad share to its recipient (seat 0) and nothing more to seat 1.
    Seat 0 complains; seat 1 checks the share the complaint carries and blames seat 2.
    ``verify`` of seat 1's transcript (which never held the share) blamed seat 0, the
    honest recipient: "complained (share-proof) but every share in the hand checks
    out". It checks the complaint's share as the live peers do."""
    t = _table(b"rlog/badshare-hidden", n=3)
    bad_share, done = bad_share_to(0)
    cut = [False]

    def sent(s: int) -> None:
        cut[0] = cut[0] or (s == 2 and done[0])
        if cut[0]:
            t.wire = [m for m in t.wire if not (m[0] == 2 and m[1] == 1)]

    _play_with(t, 2, bad_share, sent=sent)
    assert done[0]
    for s in (0, 1):
        rl = t.seats[s].rlog
        assert rl.error is not None and rl.error.seat == 2, (s, rl.error)
        rep = verify_game(_transcript(tmp_path, t, s))
        assert (rep.check, rep.blamed_seat) == ("share-proof", 2), rep.summary()


def _unfounded_complaint_by(t: Table, seat: int) -> None:
    """``seat`` complains of an equivocation with two entries a stranger signed (no seat
    signed them: unfounded), and every peer gets it."""
    from p2p.crypto.identity import Identity
    stranger = Identity.generate()
    a, b = (Envelope.create(stranger, t.cfg.table_id, 0, 0, bytes(32), {"k": "game.act", "i": i})
            for i in (0, 1))
    t.seats[seat].rlog.write_side({"k": "side.complaint", "check": "equivocation",
                                   "entry": a.encode(), "other": b.encode()})
    t.collect(seat)
    t.deliver()


@pytest.mark.parametrize("turns", [0, 1])
def test_a_complaint_before_a_hands_first_entry_is_judged_by_verify(
        tmp_path: Path, turns: int) -> None:
    """A complaint with nothing of the hand written yet (the table's first step, or a
    hand just dealt): every live peer stops on it, and ``verify`` named the seat whose
    entry was due ("the transcript stops while waiting for seat 0", blamed seat 0) in
    place of the complainer when the transcript held no entry of the hand (with one
    entry, it judged the complaint)."""
    t = _table(b"rlog/complaint-first", n=3)
    for _ in range(turns):
        t.write_turns()
        t.deliver()
    _unfounded_complaint_by(t, 1)
    for s in (0, 2):
        rl = t.seats[s].rlog
        assert rl.error is not None and (rl.error.seat, rl.error.check) == \
            (1, "unfounded-complaint"), rl.error
        rep = verify_game(_transcript(tmp_path, t, s))
        assert (rep.check, rep.blamed_seat) == ("unfounded-complaint", 1), rep.summary()


def test_a_cheat_proven_after_a_leave_record_is_what_the_stop_says(tmp_path: Path) -> None:
    """Cy left (a signed leave record: the table stops, nobody blamed), then Bo made an
    unfounded complaint: Ann's peer set its error on Bo while its stop, which the screen
    shows, still said "Cy left"; ``verify`` of her transcript named Bo. A cheat proven
    later replaces a leave record's stop as it replaces a pause for silence."""
    t = _table(b"rlog/left-then-complaint", n=3)
    for _ in range(3):
        t.write_turns()
        t.deliver()
    t.seats[2].rlog.write_side({"k": "side.abandon", "reason": "bye"})
    t.collect(2)
    t.deliver()
    assert t.seats[0].rlog.stop_why is not None \
        and t.seats[0].rlog.stop_why["id"] == "abandoned"
    _unfounded_complaint_by(t, 1)
    rl = t.seats[0].rlog
    assert rl.error is not None and rl.error.seat == 1, rl.error
    assert rl.stop_why is not None and rl.stop_why.get("seat") == 1, rl.stop_why
    rep = verify_game(_transcript(tmp_path, t, 0))
    assert (rep.check, rep.blamed_seat) == ("unfounded-complaint", 1), rep.summary()


def test_a_false_complaint_is_blamed_on_the_complainer(tmp_path: Path) -> None:
    """A complaint about a valid share: every peer checks it and blames the complainer."""
    t = _table(b"rlog/falsecomplaint", n=3)
    for _ in range(60):
        t.write_turns()
        t.deliver()
    rl1 = t.seats[1].rlog
    share = next(Envelope.decode(r) for r in rl1.log[rl1.hand_no]
                 if Envelope.decode(r).body.get("k") == "deck.share"
                 and Envelope.decode(r).author == t.seats[2].rlog.identity.public_key)
    rl1.write_side({"k": "side.complaint", "check": "share-proof", "entry": share.encode()})
    rl1.stop("lying", None)
    t.collect(1)
    t.deliver()
    for s in (0, 2):
        rl = t.seats[s].rlog
        assert rl.error is not None and (rl.error.seat, rl.error.check) == \
            (1, "unfounded-complaint"), rl.error
        _said(rl, "la place 1 (p1) s'est plainte d'une part de déchiffrement valide")
        rep = verify_game(_transcript(tmp_path, t, s))
        assert (rep.blamed_seat, rep.check) == (1, "unfounded-complaint"), rep.summary()


def test_a_later_entry_makes_the_wait_for_a_withheld_move_timed_and_fetched() -> None:
    """Found by the long property run: an adversary's move reached one peer only, and its
    next entry reached everybody. The peer without the move held the later entry yet
    waited, untimed, as for a player's decision, so the table never ended and ``verify``
    blamed the honest seat due next. Holding a later entry, the wait is for delivery: it is
    timed, and the peer fetches the move from the others."""
    t = _table(b"rlog/split-move", n=3)
    while True:                       # play until some seat is due to move, then let it
        t.write_turns()
        t.deliver()
        w = t.seats[0].rlog.match.hand.expected_writer()
        e = t.seats[0].rlog.match.hand.expected()
        if e is not None and e.kind == "game.act" and all(
                s.rlog.match.hand.expected_writer() == w for s in t.seats) and not t.wire:
            break
    t.write_turns()                        # the move, and whatever follows it
    nxt = t.seats[w].rlog.match.hand.expected_writer()
    blind = next(s for s in range(3) if s not in (w, nxt))
    blind_rl = t.seats[blind].rlog
    assert blind_rl.deadline() is None     # a player's own move: untimed by design
    t.wire = [m for m in t.wire if m[1] != blind]  # the move never reaches `blind`
    t.deliver()
    for _ in range(200):                   # the others go on until `blind` hears an entry
        t.write_turns()
        if any(d == blind for _, d, _ in t.wire):
            break
        t.deliver()
    t.wire = [m for m in t.wire if m[1] == blind]
    t.deliver()
    assert blind_rl.match.hand.expected_writer() == w and blind_rl.catching_up is False
    due = blind_rl.deadline()
    assert due is not None and due[0] == w, due
    before = blind_rl.position()
    for _ in range(10):                    # stall: it fetches, the others answer
        t.clock.advance(0.5)
        blind_rl.tick()
        t.collect(blind)
        t.deliver()
    assert blind_rl.stopped is None
    assert blind_rl.position()[1] >= before[1] + 2   # the move, then the held entry


def test_own_entries_are_not_verified_again_but_received_ones_are(monkeypatch: Any) -> None:
    """A seat's own entry was signed a moment ago by its own key: checking that signature
    again was an Ed25519 verification per own entry for nothing.  Every entry that comes
    from another seat is still checked, each once."""
    checked: list[bytes] = []
    real = Envelope.signature_ok

    def counting(self: Envelope) -> bool:
        checked.append(self.author)
        return real(self)

    monkeypatch.setattr(Envelope, "signature_ok", counting)
    t = _table(b"rlog/own-signatures", n=2, seed=1)
    for _ in range(6):
        t.write_turns()
        t.deliver()
    keys = [s.rlog.identity.public_key for s in t.seats]
    log = t.seats[0].rlog.log
    entries = [Envelope.decode(r) for h in sorted(log) for r in log[h]]
    assert entries
    by_author = {k: sum(1 for e in entries if e.author == k) for k in keys}
    # seat 0 checked only seat 1's entries and seat 1 only seat 0's: each entry once
    assert sorted(checked) == sorted(k for k in keys for _ in range(by_author[k]))


def test_each_seat_says_it_is_done_and_stops_waiting_for_the_others() -> None:
    """At the end every seat sends DONE ("I hold the whole match"); once every other seat
    said so, nobody can need an entry from it any more, so it stops serving late fetches
    at once instead of lingering (a second at the end of every game, before)."""
    t = _table(b"rlog/done", n=3, seed=5)
    t.run()
    assert all(s.rlog.finished for s in t.seats)
    assert all(s.rlog.everyone_done() for s in t.seats)
    # a DONE from someone not seated, or for another table, changes nothing
    fresh = _table(b"rlog/done", n=3, seed=5)
    fresh.run()
    rl = fresh.seats[0].rlog
    rl._done_nodes.clear()
    rl.on_message(b"stranger-node-id-000000000000000", wire.encode_done(rl.table_id))
    rl.on_message(fresh.node_of[1], wire.encode_done(b"another table"))
    assert not rl.everyone_done()
    assert ("malformed", "done") in {(r, d) for _, r, d in rl.drop_log}
    rl.on_message(fresh.node_of[1], wire.encode_done(rl.table_id))
    assert not rl.everyone_done()  # seat 2 has not said it
    rl.on_message(fresh.node_of[2], wire.encode_done(rl.table_id))
    assert rl.everyone_done()


def test_a_seat_not_finished_is_not_done_whatever_the_others_say() -> None:
    t = _table(b"rlog/done-early", n=2, seed=2)
    rl = t.seats[0].rlog
    rl.on_message(t.node_of[1], wire.encode_done(rl.table_id))
    assert not rl.finished and not rl.everyone_done()


# ----- framing an honest seat (hostile review of stop 24) ------------------------------

def test_a_side_entry_and_a_game_entry_of_one_seat_are_no_equivocation(
        tmp_path: Path) -> None:
    """Side entries all carry seq 0, as does a seat's first game entry of the hand. A
    complaint pairing the two (both honestly signed by the seat) named that honest seat
    an equivocator, live and in ``verify``: now the complaint is unfounded, and it is its
    author who is named."""
    t = _silent_table(b"rlog/fake-equivocation", silent=2)
    _wait_for_stop(t, honest=(0, 1), silent=2)      # 0 and 1 sign timeout claims
    t.deliver(lose={2})
    rl0 = t.seats[0].rlog
    first = Envelope.decode(rl0.log[0][0])          # seat 0's deck.key: hand 0, seq 0
    claim = next(e for e in rl0.side if e.author == rl0.identity.public_key)
    assert (first.author, first.hand, first.seq) == (claim.author, claim.hand, claim.seq)
    t.seats[2].rlog.write_side({"k": "side.complaint", "check": "equivocation",
                                "entry": first.encode(), "other": claim.encode()})
    t.collect(2)
    t.deliver()
    for s in (0, 1):
        rl = t.seats[s].rlog
        assert rl.error is not None and rl.error.seat == 2, rl.error
        assert rl.error.check == "unfounded-complaint"
        report = verify_game(_transcript(tmp_path, t, s))
        assert report.blamed_seat == 2 and report.check == "unfounded-complaint", \
            report.summary()


def _late_pass_push(payload: bytes) -> bool:
    msg = wire.decode(payload)
    return isinstance(msg, wire.Push) and any(
        Envelope.decode(r).body.get("k") == "deck.pass"
        and Envelope.decode(r).body.get("round", 0) >= 1 for r in msg.entries)


@pytest.mark.slow
def test_a_complaint_reaching_a_peer_that_lags_waits_until_it_can_be_judged() -> None:
    """Modern rules, three seats: the last shuffler of a reshuffle round (R4b) sends its
    pass to everybody but P, then complains to P about X's valid share of that round. P
    had not shuffled the round yet, so the share looked like one "for no shuffled
    position" and P blamed honest X. Now P sets the complaint aside, fetches the pass,
    and then finds the share valid: the complainer is named."""
    X, P, Y = 0, 1, 2
    share = None
    for seed in range(30):
        t = _table(b"rlog/lagging-complaint-%d" % seed, n=3)
        x_key = t.seats[X].rlog.identity.public_key
        rl_p = t.seats[P].rlog
        for _ in range(3000):
            t.write_turns()
            t.wire = [m for m in t.wire if not (m[0] == Y and m[1] == P
                                               and _late_pass_push(m[2]))]
            for raw in t.seats[Y].rlog.log.get(t.seats[Y].rlog.hand_no, []):
                e = Envelope.decode(raw)
                if (e.author == x_key and e.body.get("k") == "deck.share"
                        and e.body["round"] >= 1 and rl_p.hand_no == e.hand
                        and len(rl_p.match.hand.deck.rounds) > e.body["round"]
                        and rl_p.match.hand.deck.rounds[e.body["round"]].final is None):
                    share = e
            if share or not t.deliver():
                break
        if share:
            break
    assert share is not None, "no reshuffle round found whose pass P lacks"
    t.seats[Y].rlog.write_side({"k": "side.complaint", "check": "share-proof",
                                "entry": share.encode()})
    for dst, payload in t.seats[Y].rlog.take_output().messages:
        if dst is None:
            rl_p.on_message(t.node_of[Y], payload)
    assert rl_p.error is None and rl_p.stopped is None      # not judged yet
    for _ in range(20):                                      # P stalls and fetches
        t.clock.advance(0.5)
        rl_p.tick()
        t.collect(P)
        t.deliver()
        if rl_p.stopped:
            break
    assert rl_p.error is not None and rl_p.error.seat == Y, rl_p.error
    assert rl_p.error.check == "unfounded-complaint"


def test_after_local_damage_an_answer_without_the_lost_entries_does_not_end_the_wait(
        ) -> None:
    """After local damage a peer writes nothing until its lost entries are back (its own
    last move among them: a different one for that slot would be equivocation). Any
    ENTRIES message ended that wait, even an empty one: the other seat could keep the lost
    move, let the peer write its slot again and show both. Now the wait ends only once as
    many entries as the damaged store held are back and every other seat has answered."""
    t = _table(b"rlog/empty-answer")
    mine = t.seats[0].rlog.identity.public_key
    for _ in range(400):
        t.write_turns()
        t.deliver()
        p = t.seats[0].persisted
        if len(p) > 8 and p[-1].author == mine and p[-1].body.get("k") == "game.act" \
                and t.seats[1].rlog.position() == t.seats[0].rlog.position():
            break
    stored = list(t.seats[0].persisted)
    raw = bytearray(stored[-1].encode())
    raw[-3] ^= 0x10                                   # our last move, damaged on disk
    back = ReplicatedLog(t.cfg, t.seats[0].rlog.identity,
                         seat_of_node={n: s for s, n in t.node_of.items()}, clock=t.clock,
                         secrets=t.seats[0].rlog.secrets)
    back.replay(stored[:-1] + [Envelope.decode(bytes(raw))])
    back.take_output()
    assert back.catching_up and back.match.hand.expected_writer() == 0
    back.on_message(t.node_of[1], wire.encode_entries([], False))
    assert back.catching_up                          # the lost move is not back
    back.on_message(t.node_of[1], wire.encode_entries([stored[-1].encode()], False))
    assert not back.catching_up and back.position() == t.seats[1].rlog.position()


def test_an_entry_signed_far_ahead_does_not_time_a_player_who_is_thinking() -> None:
    """Hostile review: one entry of the hand in play from another seat, signed with a seq
    far ahead (any body, any link), made every peer treat a thinking player's untimed
    decision as a delivery wait: 20 s later they stopped, naming the player unresponsive.
    Such an entry cannot follow the awaited move; another seat's very next entry can (and
    still times the wait, as the split-delivery test above needs)."""
    t = _table(b"rlog/far-ahead", n=3, options=LogOptions(step_limit=20.0))
    while True:
        t.write_turns()
        t.deliver()
        e = t.seats[0].rlog.match.hand.expected()
        if e is not None and e.kind == "game.act" and not t.wire and all(
                s.rlog.match.hand.expected() == e for s in t.seats):
            break
    a = e.seat
    b, c = (a + 1) % 3, (a + 2) % 3
    rl_b, rl_c = t.seats[b].rlog, t.seats[c].rlog
    seq_b = rl_b.verifier.next_seq(rl_b.identity.public_key)
    far = Envelope.create(rl_b.identity, rl_b.table_id, rl_b.match.hand_no, seq_b + 7,
                          b"\x00" * 32, {"k": "game.act", "a": ["pass", b]})
    rl_c.on_message(t.node_of[b], wire.encode_push([far.encode()])[0])
    assert rl_c.deadline() is None                  # still the player's own time
    t.clock.advance(60)
    rl_c.tick()
    assert rl_c.stopped is None and rl_c.unresponsive is None
    nxt = Envelope.create(rl_b.identity, rl_b.table_id, rl_b.match.hand_no, seq_b,
                          b"\x00" * 32, {"k": "game.act", "a": ["pass", b]})
    rl_c.on_message(t.node_of[b], wire.encode_push([nxt.encode()])[0])
    due = rl_c.deadline()
    assert due is not None and due[0] == a           # a next entry: a delivery wait


def test_a_bad_move_sent_to_one_peer_alone_is_blamed_by_every_peer(tmp_path: Path) -> None:
    """Hostile review: seat 2 signed a malformed move for seat 0 alone and the valid one
    for seat 1. Seat 0 stopped, naming seat 2, but told nobody; seat 1 waited for seat 0's
    next entry and named the honest seat 0 silent (a bot could then take its seat). Seat 0
    now pushes the entry it stopped on to every peer; seat 1 holds another version of that
    slot: an equivocation by seat 2, live and by ``verify`` of both honest transcripts."""
    t = _table(b"rlog/onepeer", n=3)
    ident2 = t.seats[2].rlog.identity
    found: dict[str, Any] = {}

    def wrote(s: int, body: dict[str, Any], env: Envelope) -> None:
        if s == 2 and "bad" not in found and body.get("k") == "game.act":
            found["bad"] = Envelope.create(ident2, env.table, env.hand, env.seq, env.prev,
                                           {**body, "a": ["not", "a", "move"]})
            found["good"] = env.encode()

    def sent(s: int) -> None:
        if s == 2 and "bad" in found:
            # what seat 2 sent seat 0: the bad version instead of the good one
            bad_push = wire.encode_push([found["bad"].encode()])[0]
            t.wire = [(src, dst, bad_push if (src, dst) == (2, 0)
                       and isinstance(wire.decode(p), wire.Push)
                       and found["good"] in wire.decode(p).entries else p)  # type: ignore[union-attr]
                      for src, dst, p in t.wire]

    _play_with(t, -1, lambda body: body, wrote=wrote, sent=sent,
               until=lambda: "bad" in found and t.seats[0].rlog.stopped is not None)
    bad = found.get("bad")
    assert bad is not None
    for _ in range(5):           # the complaint travels; nobody writes any more
        t.deliver()
    for s in (0, 1):
        rl = t.seats[s].rlog
        assert rl.error is not None and rl.error.seat == 2, (s, rl.error, rl.stopped)
        assert rl.unresponsive is None and "unresponsive" not in (rl.stopped or "")
    assert t.seats[1].rlog.error.check == "equivocation"
    t.clock.advance(3600)        # no pause naming seat 0 comes later either
    for s in (0, 1):
        t.seats[s].rlog.tick()
        assert t.seats[s].rlog.unresponsive is None and t.seats[s].rlog.error.seat == 2
    for s in (0, 1):
        rep = verify_game(_transcript(tmp_path, t, s))
        assert not rep.ok and rep.blamed_seat == 2, (s, rep.summary())
    # without seat 1's own equivocation complaint, seat 0's complaint and seat 1's log
    # still show the two versions to the auditor
    kept = [e for e in t.seats[1].persisted
            if not (is_side(e.body) and e.author == t.seats[1].rlog.identity.public_key)]
    path = tmp_path / "seat1-alone.mbt"
    with TranscriptWriter(path, t.cfg.header()) as w:
        for env in kept:
            w.append(env)
    rep = verify_game(path)
    assert (rep.blamed_seat, rep.check) == (2, "equivocation"), rep.summary()


def test_copies_of_side_entries_are_read_once_and_far_hands_not_at_all(
        tmp_path: Path) -> None:
    """Hostile review, round 2: verify's cost grew with side entries nothing bounded (a
    crafted file of 100,000 took 25 s and 171 MB). A transcript keeps the first of each
    kind per author and hand, as live peers do, for hands at most two past the log."""
    from p2p.transcript.file import read_transcript
    t = _table(b"rlog/sidecopies")
    t.run()
    path = _transcript(tmp_path, t, 0)
    honest = read_transcript(path)
    ident = t.seats[0].rlog.identity
    with TranscriptWriter(path, t.cfg.header(), _append=True) as w:
        for i in range(3000):
            hand = 0 if i % 2 else 10 + i           # copies, and hands far past the log
            w.append(Envelope.create(ident, t.cfg.table_id, hand, 0, bytes(32),
                                     {"k": "side.timeout", "step": "move", "slot": [0, 1, i]}))
    crafted = read_transcript(path)
    assert len(crafted.entries) == len(honest.entries)
    assert len(crafted.side) <= len(honest.side) + 1
    report = verify_game(path)
    assert report.blamed_seat != 1


def test_a_move_that_never_came_from_a_gone_computer_is_not_said_as_timed() -> None:
    """Newcomer, round 4: "its next step (move) did not come within the table's time
    limit" read as if moves were timed (verify says they are not): a move is waited for
    until its player's computer stops answering, and that is what is said."""
    names = ("Ann", "Cy")
    gone = {"id": "unresponsive", "seat": 1, "step": "game.act", "gone": True}
    with i18n.using("en"):
        said = stop_reason(gone, names)
        assert said == ("seat 1 (Cy) is unresponsive: its computer stopped answering, and "
                        "its move did not come"), said
        timed = stop_reason({**gone, "gone": False}, names)   # a table with a move limit
        assert "did not come within the table's time limit" in timed


def _later_hand_entry(t: Table, author: int, ahead: int = 2, forged: bool = False) -> bytes:
    """A push of an entry signed by ``author`` for a hand ``ahead`` past the one seat 0
    is in (what a table that moved on sends a peer that fell behind)."""
    rl = t.seats[author].rlog
    env = Envelope.create(rl.identity, rl.table_id, t.seats[0].rlog.hand_no + ahead, 3,
                          b"\x00" * 32, {"k": "game.act", "a": ["pass", author]})
    raw = env.encode()
    if forged:                      # the signature's last byte changed: not the author's
        raw = raw[:-1] + bytes([raw[-1] ^ 1])
    return wire.encode_push([raw])[0]


def _tick_until(t: Table, seat: int, seconds: float) -> None:
    start = t.clock.now
    while t.clock.now - start < seconds and not t.seats[seat].rlog.stopped:
        t.clock.advance(0.5)
        t.seats[seat].rlog.tick()
        t.collect(seat)
        t.wire.clear()


def test_a_seat_that_signed_further_on_is_not_named_unresponsive_by_a_peer_behind() -> None:
    """Stop 46's note: a peer whose catch-up could not keep up with a fast table timed the
    awaited seat's step from its own last progress and, past the limit, named that seat
    unresponsive, while the seat's own entries of later hands kept arriving (dropped as too
    far ahead). Those entries prove the step was made: the wait is for its delivery to
    this computer. It now waits one step limit more (fetching), goes on when the entries
    come, and else stops for itself, naming nobody."""
    t = _silent_table(b"rlog/behind", silent=1)
    rl0 = t.seats[0].rlog
    due = rl0.deadline()
    assert due is not None and due[0] == 1
    rl0.on_message(t.node_of[1], _later_hand_entry(t, author=1))
    t.collect(0)
    t.wire.clear()
    _tick_until(t, 0, 25.0)                 # past the step's limit (20 s)
    assert rl0.stopped is None and rl0.unresponsive is None   # before: seat 1 named
    assert "behind" in t.seats[0].events
    due = rl0.deadline()
    assert due is not None and due[0] == 1 and due[1] > t.clock.now   # said, still timed
    # the entries it missed come now (seat 1 catches up from the others and writes; seat
    # 2 stands for the table that has them: it answers, it is not ticked into its own
    # timeout of seat 1, which it would have heard long ago at a real table)
    before = rl0.position()
    for _ in range(200):
        t.clock.advance(0.5)
        for s in (0, 1):
            t.seats[s].rlog.tick()
            t.collect(s)
        t.write_turns()
        t.deliver()
        if rl0.position() != before and rl0.match.hand.expected_writer() != 1:
            break
    assert rl0.stopped is None and rl0.position() > before


def test_a_peer_behind_that_never_gets_the_entries_stops_for_itself_naming_nobody() -> None:
    """The same, and the entries never come: one step limit more, then this computer
    stops, bounded, its words naming nobody (not resumable: a resume fetches again)."""
    t = _silent_table(b"rlog/behind-stuck", silent=1)
    rl0 = t.seats[0].rlog
    start = t.clock.now
    rl0.on_message(t.node_of[1], _later_hand_entry(t, author=1, ahead=3))
    _tick_until(t, 0, 60.0)
    waited = t.clock.now - start
    assert rl0.stopped is not None and 40.0 <= waited <= 41.0, (rl0.stopped, waited)
    assert rl0.unresponsive is None and rl0.error is None and not rl0.resumable
    assert rl0.stop_why == {"id": "fell-behind", "seconds": 40}
    assert "fell-behind" in t.seats[0].events
    _said(rl0, "cet ordinateur a pris du retard", "this computer fell behind the table: the "
          "other players moved on, and the entries it missed did not arrive within 40 s; "
          "resume to catch up")


@pytest.mark.parametrize("author, forged", [(2, False), (1, True)])
def test_only_the_awaited_seats_own_signature_far_ahead_delays_its_timeout(
        author: int, forged: bool) -> None:
    """Another seat's entry far ahead (its author may have made it up) or one that claims
    the awaited seat's name with a signature that is not its own proves nothing: the
    awaited seat is timed out at the step limit, as before."""
    t = _silent_table(b"rlog/behind-proof", silent=1)
    rl0 = t.seats[0].rlog
    start = t.clock.now
    rl0.on_message(t.node_of[author], _later_hand_entry(t, author=author, forged=forged))
    _tick_until(t, 0, 60.0)
    assert rl0.unresponsive == 1 and 20.0 <= t.clock.now - start <= 21.0
    assert "behind" not in t.seats[0].events


def test_a_seat_that_shows_one_peer_a_later_entry_and_withholds_its_step_is_paused_on(
        ) -> None:
    """The hostile side of the wait above: seat 1 withholds its step from everyone and
    shows seat 0 alone an entry of a later hand. Seat 2 lacks that step too (its FETCHes
    of that position, its claim at the limit): seat 0 takes that as the table's word and
    pauses on seat 1 at the limit, as seat 2 does (not a stop of its own that no resume
    could end), so both may agree a bot for it."""
    t = _silent_table(b"rlog/behind-hostile", silent=1)
    rl0, rl2 = t.seats[0].rlog, t.seats[2].rlog
    start = t.clock.now
    rl0.on_message(t.node_of[1], _later_hand_entry(t, author=1))
    t.collect(0)
    t.wire.clear()
    while t.clock.now - start < 60 and not (rl0.stopped and rl2.stopped):
        t.clock.advance(0.5)
        for s in (0, 2):
            t.seats[s].rlog.tick()
            t.collect(s)
        t.wire = [m for m in t.wire if 1 not in (m[0], m[1])]
        t.deliver()
    for rl in (rl0, rl2):
        assert rl.unresponsive == 1 and rl.resumable and rl.error is None, rl.stopped
    assert t.clock.now - start <= 21.5, t.clock.now - start      # not the 40 s of a lag
    # seat 2's FETCHes of that very position (it stalls there too) show the step missing
    # before seat 0's limit: no wait as one behind at all
    assert "fell-behind" not in t.seats[0].events


def test_a_forgery_under_the_seats_name_does_not_wipe_out_the_proof_it_moved_on() -> None:
    """The proof kept that a seat signed further on is a checked entry: a forgery under
    its name sent after the real one (the latest was kept unchecked) made the peer behind
    name the seat unresponsive again at the step limit."""
    t = _silent_table(b"rlog/behind-forged", silent=1)
    rl0 = t.seats[0].rlog
    rl0.on_message(t.node_of[1], _later_hand_entry(t, author=1))
    rl0.on_message(t.node_of[2], _later_hand_entry(t, author=1, ahead=3, forged=True))
    _tick_until(t, 0, 25.0)
    assert rl0.stopped is None and "behind" in t.seats[0].events


def test_at_two_seats_a_later_entry_of_the_other_proves_nothing() -> None:
    """Two players, this one holding its seat: the other cannot sign a later hand
    without this seat's entries of the hand between, and is the only one that could
    deliver its step. Its entry far ahead is its own making: the seat is timed out at
    the step limit as before (a pause, so a bot may take it or the match end), not
    waited for a second limit and stopped as behind, which a resume fell into again."""
    cfg, ids = make_table(preset("modern", match_target=1), Seating.solo(2), ["p0", "p1"],
                          b"rlog/behind-two")
    t = Table(cfg, ids, FakeClock(), options=LogOptions(step_limit=20.0))
    for _ in range(50):                       # seat 1 hears nothing, writes nothing
        t.write_turns(seats=(0,))
        t.wire = [m for m in t.wire if m[1] != 1]
        if not t.deliver():
            break
    rl0 = t.seats[0].rlog
    due = rl0.deadline()
    assert due is not None and due[0] == 1
    start = t.clock.now
    rl0.on_message(t.node_of[1], _later_hand_entry(t, author=1))
    _tick_until(t, 0, 60.0)
    assert rl0.unresponsive == 1 and rl0.resumable, rl0.stopped
    assert t.clock.now - start <= 21.0 and "behind" not in t.seats[0].events


def test_at_two_seats_a_player_whose_seat_a_bot_may_play_waits_as_one_behind() -> None:
    """Two players; seat 0 lost seat 1's step, seat 1 paused on it and signed a bot for
    seat 0 (the record reaches seat 0), and its table plays on: an entry of seat 1 two
    hands on comes. Seat 0's seat may be the bot's now, so that entry is no forgery by
    seat 1: seat 0 waits as a peer behind, not naming seat 1 unresponsive at the limit
    (the player back after leaving, whose catch-up was starved in stop 46's CI run)."""
    from p2p.crypto.identity import Identity

    cfg, ids = make_table(preset("modern", match_target=1), Seating.solo(2), ["p0", "p1"],
                          b"rlog/behind-replaced")
    t = Table(cfg, ids, FakeClock(), options=LogOptions(step_limit=20.0))
    rl0, rl1 = t.seats[0].rlog, t.seats[1].rlog
    for _ in range(100):               # play until seat 1 writes and seat 0 is due next
        t.write_turns(seats=(0,))
        t.deliver()
        if rl1.match.hand.expected_writer() == 1 and not t.wire:
            t.write_turns(seats=(1,))
            if rl1.match.hand.expected_writer() == 0:
                break
        t.write_turns(seats=(1,))
        t.deliver()
    t.wire = [m for m in t.wire if m[1] != 0]        # seat 1's step never reaches seat 0
    assert rl0.match.hand.expected_writer() == 1 and rl1.match.hand.expected_writer() == 0
    _tick_until(t, 1, 25.0)                           # seat 1 pauses on seat 0
    assert rl1.unresponsive == 0
    rl1.bot_offer = (Identity.generate().public_key, "tcp://127.0.0.1:9", None)
    assert rl1.propose_takeover(0) is not None
    t.collect(1)
    takeover = [m for m in t.wire if m[1] == 0]
    t.wire = []
    for _src, _dst, payload in takeover:              # the record reaches seat 0
        rl0.on_message(t.node_of[1], payload)
    rl0.on_message(t.node_of[1], _later_hand_entry(t, author=1))
    t.collect(0)
    t.wire.clear()
    start = t.clock.now
    _tick_until(t, 0, 30.0)
    assert "behind" in t.seats[0].events and rl0.unresponsive is None, rl0.stopped
    _tick_until(t, 0, 30.0)
    assert rl0.stop_why == {"id": "fell-behind", "seconds": 40}, rl0.stopped
    assert t.clock.now - start <= 41.0


@pytest.mark.parametrize("language", ["en", "fr", "sv", "af", "ug", "vi"])
def test_the_wait_of_a_computer_behind_is_said_with_its_limit(language: str) -> None:
    """The log's "behind" event (the seat's step passed its limit here, and the seat had
    signed further on) is said on the console, with how much longer this computer asks:
    the status line's countdown for the seat ran out and started again, unexplained."""
    from cli_helpers import PeerStub

    from cli.netdriver import NetDriver
    from p2p.table import SessionEvent

    t = _silent_table(b"rlog/behind-said", silent=1)
    rl0 = t.seats[0].rlog
    rl0.on_message(t.node_of[1], _later_hand_entry(t, author=1))
    events = []
    for _ in range(42):                               # 21 s
        t.clock.advance(0.5)
        rl0.tick()
        events += [e for e in rl0.take_output().events if e.kind == "behind"]
    assert len(events) == 1 and events[0].data["seconds"] == 20.0, events
    d = object.__new__(NetDriver)
    d.peer = PeerStub(agreed_end=None, paused=False, finished=False, takeovers=[])
    d.names = ("p0", "p1", "p2")
    d._shown_hand = 0
    with i18n.using(language):
        said = d._words(SessionEvent("behind", events[0].text, events[0].data))
    assert "20 s" in said and ("behind the table" not in said) == (language != "en"), said
    if language == "en":
        assert said == ("This computer fell behind the table: asking the others for what "
                        "it missed (up to 20 s more)."), said
