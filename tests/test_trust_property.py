"""The invariant of issue 9 as a property, in process and without sockets: an adversary
controls k < n seats (with their keys and secrets) and may withhold, equivocate (different
versions to different peers), send a bad share to one peer, replay, and make false
complaints or timeout claims. Whatever it does: every seat blamed (live or by ``verify``) is
the adversary's, the honest peers give the same verdict, and every stop comes within its
time limit."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_replicated_log import Table, _table, _transcript

from p2p.audit import verify_game
from p2p.table import wire
from p2p.testing import seeded_entropy
from p2p.transcript.envelope import Envelope

STEP_LIMIT = 20.0
ATTACKS = ("withhold", "equivocate", "bad-share", "replay", "false-complaint",
           "false-claim", "out-of-turn", "mutate", "abort", "honest",
           # hostile pass 13: complaints live peers and verify judged differently
           "share-to-one", "complaint-to-one", "odd-complaint", "next-hand-complaint",
           # hostile pass 14: leave records and timeout claims with complaints and bad
           # entries, in every order
           "leave-to-one", "leave-then-cheat", "cheat-then-leave", "claim-then-cheat",
           "complaint-then-leave", "leave-next-hand",
           # hostile pass 15: a leave record once the table paused on the silent seat
           "silent-then-leave",
           # stop 47: silent to the table, and one peer shown an entry of a later hand
           # (the proof a peer behind waits on: it must not keep that peer from pausing)
           "ahead-to-one")
#: the check strings an odd complaint carries, whatever its entry shows
CHECKS = ("share-proof", "malformed-body", "equivocation", "out-of-turn")


def _attack(t: Table, bad: set[int], attack: str, at: int) -> None:
    """Play until every honest seat finished or stopped, the adversary doing ``attack``
    once its seats have written ``at`` entries; the clock moves 0.5 s whenever nothing
    moves. Records, per honest seat, the clock time of its stop."""
    written = 0
    honest = [s for s in range(t.cfg.n) if s not in bad]
    silent = attack in ("withhold", "silent-then-leave", "ahead-to-one")
    left = attack != "silent-then-leave"
    old_push: list[bytes] = []
    t.stop_at: dict[int, float] = {}  # type: ignore[attr-defined]
    for _ in range(3000):
        for s, seat in enumerate(t.seats):
            rl = seat.rlog
            if s in bad and silent and written >= at:
                t.collect(s)
                continue
            while (not rl.done and not rl.catching_up
                   and rl.match.hand.expected_writer() == s):
                hp = rl.match.hand
                rl.secrets[hp.hand_no] = hp.export_secrets()
                body = hp.next_body(seat.bot.choose)  # type: ignore[attr-defined]
                if s in bad:
                    written += 1
                    if written == at:
                        body = _cheat(t, s, attack, body, old_push)
                rl.write(body)
                if s in bad and written == at and attack == "out-of-turn":
                    _out_of_turn(t, s)
            t.collect(s)
            if s in bad and written == at and attack == "equivocate":
                _split_versions(t, s)
        for s in honest:
            if t.seats[s].rlog.stopped and s not in t.stop_at:  # type: ignore[attr-defined]
                t.stop_at[s] = t.clock.now  # type: ignore[attr-defined]
        stopped = all(t.seats[s].rlog.done for s in honest)
        if stopped and (left or written < at):
            return
        if silent and written >= at:
            t.wire = [m for m in t.wire if m[0] not in bad]
            ahead = getattr(t, "ahead_push", None)
            if ahead is not None:      # ahead-to-one: once, past the silence's filter
                t.wire.append(ahead)
                t.ahead_push = None  # type: ignore[attr-defined]
        if stopped and not left:
            # every honest seat paused on the silence: now the leave record (pass 15)
            _send_side(t, min(bad), {"k": "side.abandon", "reason": "bye"})
            left = True
        only = getattr(t, "only_to", None)
        if only is not None:       # share-to-one: nothing more to the others
            t.wire = [m for m in t.wire if m[0] != only[0] or m[1] == only[1]]
        old_push.extend(p for src, _, p in t.wire if src in bad)
        if not t.deliver():
            if all(t.seats[s].rlog.deadline() is None for s in honest):
                return      # waiting on a player's own move: untimed by design
            t.clock.advance(0.5)
            for s in range(t.cfg.n):
                t.seats[s].rlog.tick()
                t.collect(s)
    raise AssertionError("the table neither finished nor stopped")


def _cheat(t: Table, s: int, attack: str, body: dict[str, Any],
           old_push: list[bytes]) -> dict[str, Any]:
    rl = t.seats[s].rlog
    if attack in ("bad-share", "share-to-one") and body.get("k") == "deck.share" \
            and body.get("to") != "pub":
        pf = bytearray(body["proof"])
        pf[3] ^= 1
        if attack == "share-to-one":
            # the bad share to its recipient alone, and nothing more to the others
            t.only_to = (s, body["to"])  # type: ignore[attr-defined]
        return {**body, "proof": bytes(pf)}
    if attack in ("complaint-to-one", "odd-complaint", "next-hand-complaint"):
        _odd_complaint(t, s, attack, old_push)
    if attack in LEAVES:
        body = _leave(t, s, attack, body, old_push)
    if attack == "ahead-to-one":
        others = [d for d in range(t.cfg.n) if d != s]
        env = Envelope.create(rl.identity, rl.table_id, rl.hand_no + 2, 0,
                              rl.verifier.head, {"k": "game.act", "a": ["pass", s]})
        t.ahead_push = (s, others[len(old_push) % len(others)],  # type: ignore[attr-defined]
                        wire.encode_push([env.encode()])[0])
    if attack == "replay":
        for p in old_push[:20]:
            for d in range(t.cfg.n):
                if d != s:
                    t.wire.append((s, d, p))
    if attack == "abort":       # the old game.abort, then the honest body (two versions)
        _send_unapplied(t, s, {"k": "game.abort", "reason": "a card seen twice"})
    if attack == "mutate":      # sent as signed, then the honest body (two versions)
        _send_unapplied(t, s, _mutated(body))
    if attack in ("false-complaint", "false-claim"):
        victim = next(v for v in range(t.cfg.n) if v != s)
        vkey = t.seats[victim].rlog.identity.public_key
        theirs = [Envelope.decode(r) for r in rl.log[rl.hand_no]]
        theirs = [e for e in theirs if e.author == vkey]
        if theirs:
            e = theirs[-1]
            side = {"k": "side.complaint", "check": "share-proof", "entry": e.encode()} \
                if attack == "false-complaint" else \
                {"k": "side.timeout", "step": "deck.key", "slot": [e.hand, victim, e.seq]}
            rl.write_side(side)
    return body


def _odd_complaint(t: Table, s: int, attack: str, old_push: list[bytes]) -> None:
    """A complaint live peers and ``verify`` once judged apart: one whose check string
    does not match its entry (a victim's, its own, one of an earlier hand), one sent to
    a single peer, one for the next hand (at a hand's boundary)."""
    rl = t.seats[s].rlog
    t.collect(s)                     # what it wrote so far goes to everyone
    n = len(old_push)
    pool = [Envelope.decode(r) for h in sorted(rl.log) for r in rl.log[h]]
    if not pool:
        return
    entry = pool[n % len(pool)]
    body: dict[str, Any] = {"k": "side.complaint", "check": CHECKS[n % len(CHECKS)],
                            "entry": entry.encode()}
    if body["check"] == "equivocation":
        body["other"] = pool[(n + 1) % len(pool)].encode()
    hand = rl.hand_no + (attack == "next-hand-complaint")
    env = Envelope.create(rl.identity, rl.table_id, hand, 0, rl.verifier.head, body)
    others = [d for d in range(t.cfg.n) if d != s]
    to = others[n % len(others):][:1] if attack == "complaint-to-one" else others
    for d in to:
        t.wire.append((s, d, wire.encode_push([env.encode()])[0]))


LEAVES = ("leave-to-one", "leave-then-cheat", "cheat-then-leave", "claim-then-cheat",
          "complaint-then-leave", "leave-next-hand")


def _send_side(t: Table, s: int, body: dict[str, Any], to: list[int] | None = None,
               hand: int | None = None) -> None:
    """Sign a side record as seat ``s`` and send it to ``to`` (every other seat by
    default) without recording it in ``s``'s own log (a hostile peer plays on)."""
    rl = t.seats[s].rlog
    env = Envelope.create(rl.identity, rl.table_id, rl.hand_no if hand is None else hand, 0,
                          rl.verifier.head, body)
    for d in (to if to is not None else [d for d in range(t.cfg.n) if d != s]):
        t.wire.append((s, d, wire.encode_push([env.encode()])[0]))


def _leave(t: Table, s: int, attack: str, body: dict[str, Any],
           old_push: list[bytes]) -> dict[str, Any]:
    """A leave record or a timeout claim, with a bad entry or a complaint before or after
    it (hostile pass 14); the adversary plays on. Returns the body it signs in its turn."""
    rl = t.seats[s].rlog
    t.collect(s)
    others = [d for d in range(t.cfg.n) if d != s]
    leave = {"k": "side.abandon", "reason": "bye"}
    if attack == "leave-to-one":
        _send_side(t, s, leave, others[len(old_push) % len(others):][:1])
    elif attack == "leave-next-hand":
        _send_side(t, s, leave, hand=rl.hand_no + 1)
    elif attack == "leave-then-cheat":      # (then the honest body: two versions)
        _send_side(t, s, leave)
        _send_unapplied(t, s, _mutated(body))
    elif attack == "cheat-then-leave":
        _send_unapplied(t, s, _mutated(body))
        _send_side(t, s, leave)
    elif attack == "claim-then-cheat":
        victim = others[len(old_push) % len(others)]
        _send_side(t, s, {"k": "side.timeout", "step": "deck.key",
                          "slot": [rl.hand_no, victim,
                                   rl.verifier.next_seq(rl.keys[victim])]})
        _send_unapplied(t, s, _mutated(body))
    elif attack == "complaint-then-leave":
        _odd_complaint(t, s, "odd-complaint", old_push)
        _send_side(t, s, leave)
    return body


def _mutated(body: dict[str, Any]) -> dict[str, Any]:
    """A signed body with one value changed: an illegal move, a wrong card, a broken
    proof or share, a wrong type."""
    k = sorted(f for f in body if f != "k")
    if not k:
        return {**body, "k": "game.act"}
    f = k[len(body) % len(k)]
    v = body[f]
    if isinstance(v, bytes):
        new: Any = bytes([v[0] ^ 1]) + v[1:] if v else b"\x00"
    elif isinstance(v, int) and not isinstance(v, bool):
        new = v + 1
    elif isinstance(v, list) and v:
        new = v[:-1] + [7] if v[-1] != 7 else v[:-1] + [3]
    else:
        new = "x"
    return {**body, f: new}


def _out_of_turn(t: Table, s: int) -> None:
    """The adversary signs one more entry, chained to its head, when the turn is another
    seat's, and sends it to everybody (without applying it itself)."""
    _send_unapplied(t, s, {"k": "game.act", "a": ["discard", s, 0, None]})


def _send_unapplied(t: Table, s: int, body: dict[str, Any]) -> None:
    """Sign ``body`` as seat ``s``'s next entry, chained to its head, and send it to every
    other seat without applying it to ``s``'s own log (a hostile peer runs its own code)."""
    rl = t.seats[s].rlog
    head = rl.verifier.head
    entry = Envelope.create(rl.identity, rl.table_id, rl.hand_no,
                            rl.verifier.next_seq(rl.identity.public_key), head, body)
    for d in range(t.cfg.n):
        if d != s:
            t.wire.append((s, d, wire.encode_push([entry.encode()])[0]))


def _split_versions(t: Table, s: int) -> None:
    """Equivocation: the adversary's last entry goes to the first other seat as written
    and, re-signed with another body, to the rest."""
    rl = t.seats[s].rlog
    last = Envelope.decode(rl.log[rl.hand_no][-1]) if rl.log[rl.hand_no] else None
    if last is None or last.author != rl.identity.public_key:
        return
    alt = Envelope.create(rl.identity, last.table, last.hand, last.seq, last.prev,
                          {**last.body, "x": 1})
    others = [d for d in range(t.cfg.n) if d != s]
    t.wire = [(src, d, wire.encode_push([alt.encode()])[0])
              if src == s and d in others[1:] else (src, d, p) for src, d, p in t.wire]


def _check(tmp_path: Path, t: Table, bad: set[int]) -> None:
    honest = [s for s in range(t.cfg.n) if s not in bad]
    verdicts = set()
    for s in honest:
        rl = t.seats[s].rlog
        blamed = rl.error.seat if rl.error is not None else None
        assert blamed is None or blamed in bad, (s, rl.stopped, rl.error)
        verdicts.add((rl.finished, blamed))
        rep = verify_game(_transcript(tmp_path, t, s))
        assert rep.blamed_seat is None or rep.blamed_seat in bad, rep.summary()
        if blamed is not None:
            # verify of its transcript names the seat the peer named live (hostile pass 13)
            assert rep.blamed_seat == blamed, (s, rl.stopped, rep.summary())
        elif not rl.finished:
            # what the peer's stop says is what verify says: a seat left (a leave record),
            # or not (hostile pass 15: "unresponsive" live, "p2 left" by verify)
            why = (rl.stop_why or {}) if rl.stopped else {}
            said = why.get("seat") if why.get("id") == "abandoned" else None
            assert said == rep.abandoned_by, (s, rl.stopped, rep.summary())
            if why.get("id") == "unresponsive":
                # a pause on a silent seat: verify names the same seat unresponsive
                assert rep.unresponsive == why.get("seat"), (s, rl.stopped, rep.summary())
        stop = t.stop_at.get(s)  # type: ignore[attr-defined]
        if stop is not None and rl.unresponsive is not None:
            assert stop - rl.last_progress <= STEP_LIMIT + 0.5 + 1e-9
    assert len(verdicts) == 1, verdicts


def _run(tmp_path: Path, seed: int, n: int, bad: set[int], attack: str, at: int) -> Table:
    # every secret of the deal follows from the example: a failure replays exactly
    with seeded_entropy(repr((seed, n, sorted(bad), attack, at)).encode()):
        t = _table(b"prop/%d/%d" % (seed, n), n=n)
        _attack(t, bad, attack, at)
    _check(Path(tempfile.mkdtemp(dir=tmp_path)), t, bad)
    return t


@pytest.mark.parametrize("attack", ["honest", "bad-share"])
def test_an_example_replays_from_its_seed(tmp_path: Path, attack: str) -> None:
    """The property's examples are replayable: the same example twice gives the same
    log, entry for entry (before, decks came from the OS's generator and a failure found
    by hypothesis could not be reproduced)."""
    logs = [_run(tmp_path, 1, 2, {1}, attack, 5).seats[0].rlog.log for _ in range(2)]
    assert logs[0] == logs[1] and logs[0]
    other = _run(tmp_path, 2, 2, {1}, attack, 5).seats[0].rlog.log
    assert other != logs[0]


@settings(max_examples=5, deadline=None,        # LONG_EXAMPLES in the slow run
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 3), n=st.sampled_from([2, 3]), attack=st.sampled_from(ATTACKS),
       at=st.integers(1, 40), data=st.data())
def test_honest_seats_are_never_blamed(tmp_path: Path, seed: int, n: int, attack: str,
                                       at: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(1, n - 1))
    bad = set(data.draw(st.permutations(range(n)))[:k])
    _run(tmp_path, seed, n, bad, attack, at)


#: The long run's examples: 100 keep .ci/run under its 30 minutes (150 took 325 s of it);
#: MILLEBORNES_LONG_EXAMPLES=1000 for a deeper search.
LONG_EXAMPLES = int(os.environ.get("MILLEBORNES_LONG_EXAMPLES", "100"))


@pytest.mark.slow
@settings(max_examples=LONG_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 1000), n=st.sampled_from([2, 3, 4]),
       attack=st.sampled_from(ATTACKS), at=st.integers(1, 200), data=st.data())
def test_honest_seats_are_never_blamed_long(tmp_path: Path, seed: int, n: int, attack: str,
                                            at: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(1, n - 1))
    bad = set(data.draw(st.permutations(range(n)))[:k])
    _run(tmp_path, seed, n, bad, attack, at)


@pytest.mark.parametrize("bad", [0, 1, 2])
def test_a_malformed_body_sent_to_one_peer_is_judged_alike_by_all(tmp_path: Path,
                                                                 bad: int) -> None:
    """Found by the long property run: one seat sends a well-formed entry to one peer and a
    signed but malformed version (an extra field) to another. The peer that sees it complains
    with the entry as evidence, so every honest peer and verify blame the same seat (before,
    the other peer timed out blaming nobody, and verify blamed the complainer)."""
    _run(tmp_path, 0, 3, {bad}, "equivocate", 1)


@pytest.mark.parametrize("at", [1, 2, 9])
def test_an_abort_entry_is_blamed_on_its_writer_and_crashes_nobody(tmp_path: Path,
                                                                    at: int) -> None:
    """Issue 9, finding 4: ``game.abort`` before every hand key was out crashed an honest
    bot ("no hand secret"), or raced the first key so that the rebase dropped the host's
    key and the honest host was blamed. Every pass and share now proves itself, so no
    honest peer aborts and the log never forks: an abort is a wrong entry of its writer
    (here sent in its turn in place of its entry, then its honest entry: two versions)."""
    t = _table(b"prop/abort/%d" % at, n=3)
    _attack(t, {1}, "abort", at)
    _check(tmp_path, t, {1})
    for s in (0, 2):
        rl = t.seats[s].rlog
        assert rl.error is not None and rl.error.seat == 1, (s, rl.error)
        d = tmp_path / f"again{s}"
        d.mkdir()
        assert verify_game(_transcript(d, t, s)).blamed_seat == 1


@pytest.mark.slow
def test_an_out_of_turn_write_late_in_a_match_is_judged_alike_by_all(tmp_path: Path) -> None:
    """Found by the long property run on 2026-12-04: seat 2 signs an entry out of turn, then
    another version of its slot in its turn. Seat 0 tried the first from its buffer when the
    turn came, dropped it as a broken link and applied the second; seat 1 held both and
    stopped on the equivocation. The dropped version is now kept, so both stop alike."""
    _run(tmp_path, 80, 3, {2}, "out-of-turn", 177)


#: hostile pass 14: after a takeover by agreement, who acts (the player who left, with
#: his old key; the bot's key, its runner hostile) and what it signs, for which hand
TAKEOVER_ACTS = ("complaint", "equivocation-complaint", "abandon", "claim", "entry")


def _after_takeover(tmp_path: Path, seed: int, actor: str, act: str, hand: int,
                    rounds: int) -> None:
    """Seat 2 fell silent; seats 0 and 1 agreed a bot run by seat 0 plays it from hand 2
    (index 1). After ``rounds`` rounds of the bot's hand, ``actor`` ("away": the player
    who left; "bot": the bot's key, its runner hostile) signs ``act`` for ``hand`` and
    sends it to every seat. Every honest seat's verdict (seats 0 and 1, or 1 alone when
    the runner is hostile) blames seat 2 or nobody, alike, and ``verify`` agrees."""
    from test_takeover import BOT_SEED, _agree_bot, _start_bot, _stopped

    from p2p.crypto.identity import Identity
    with seeded_entropy(repr((seed, actor, act, hand, rounds)).encode()):
        t = _stopped(b"prop/takeover/%d" % seed)
    away = t.seats[2].rlog.identity
    bot = Identity.from_seed(BOT_SEED)
    _agree_bot(t, 2, (0, 1), bot)
    _start_bot(t, runner=0, silent=2, bot=bot)
    t.run(rounds=rounds)
    key = away if actor == "away" else bot
    rl = t.seats[0].rlog
    pool = [Envelope.decode(r) for h in sorted(rl.log) for r in rl.log[h]]
    victim = pool[(seed + rounds) % len(pool)]
    mine = [e for e in pool if e.author == key.public_key] or [victim]
    last = mine[-1]
    if act == "complaint":
        body: dict[str, Any] = {"k": "side.complaint", "check": CHECKS[seed % len(CHECKS)],
                                "entry": victim.encode()}
    elif act == "equivocation-complaint":
        a = Envelope.create(key, rl.table_id, hand, last.seq, last.prev, {"k": "game.act"})
        b = Envelope.create(key, rl.table_id, hand, last.seq, last.prev, {"k": "game.x"})
        body = {"k": "side.complaint", "check": "equivocation", "entry": a.encode(),
                "other": b.encode()}
    elif act == "abandon":
        body = {"k": "side.abandon", "reason": "bye"}
    elif act == "claim":
        body = {"k": "side.timeout", "step": "deck.key",
                "slot": [hand, 1, rl.verifier.next_seq(rl.keys[1])]}
    else:
        body = {}
    if body:
        env = Envelope.create(key, rl.table_id, hand, 0, rl.verifier.head, body)
    else:       # another version of its last entry (the bot's: an equivocation)
        env = Envelope.create(key, rl.table_id, last.hand, last.seq, last.prev,
                              {**last.body, "x": 1})
    for d in (0, 1):
        t.wire.append((2, d, wire.encode_push([env.encode()])[0]))
    honest = [0, 1] if actor == "away" else [1]
    for _ in range(3000):
        t.write_turns()
        if t.deliver():
            continue
        if all(t.seats[s].rlog.done or t.seats[s].rlog.stopped for s in honest):
            break
        t.clock.advance(0.5)
        for s in range(3):
            t.seats[s].rlog.tick()
            t.collect(s)
    verdicts = set()
    for s in honest:
        r = t.seats[s].rlog
        blamed = r.error.seat if r.error is not None else None
        assert blamed in (None, 2), (s, r.stopped)
        verdicts.add((r.finished, blamed))
        d = Path(tempfile.mkdtemp(dir=tmp_path))
        rep = verify_game(_transcript(d, t, s))
        assert rep.blamed_seat in (None, 2), rep.summary()
        if blamed is not None:
            assert rep.blamed_seat == blamed, (s, r.stopped, rep.summary())
    assert len(verdicts) == 1, verdicts


@settings(max_examples=3, deadline=None,        # TAKEOVER_EXAMPLES in the slow run
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 3), actor=st.sampled_from(["away", "bot"]),
       act=st.sampled_from(TAKEOVER_ACTS), hand=st.integers(0, 1), rounds=st.integers(0, 30))
def test_after_a_takeover_honest_seats_are_never_blamed(
        tmp_path: Path, seed: int, actor: str, act: str, hand: int, rounds: int) -> None:
    _after_takeover(tmp_path, seed, actor, act, hand, rounds)


@pytest.mark.slow
@settings(max_examples=max(1, LONG_EXAMPLES // 4), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 1000), actor=st.sampled_from(["away", "bot"]),
       act=st.sampled_from(TAKEOVER_ACTS), hand=st.integers(0, 2),
       rounds=st.integers(0, 400))
def test_after_a_takeover_honest_seats_are_never_blamed_long(
        tmp_path: Path, seed: int, actor: str, act: str, hand: int, rounds: int) -> None:
    _after_takeover(tmp_path, seed, actor, act, hand, rounds)
