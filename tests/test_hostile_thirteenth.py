"""Hostile pass 13: live peers and ``verify`` judge complaints alike, and no complaint
makes either blame an honest seat (docs/protocol.md, the complaint paragraphs). Each test
failed before its fix."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from test_replicated_log import Table, _play_with, _table, _transcript, bad_share_to
from test_takeover import BOT_SEED, _agree_bot, _start_bot, _stopped

from p2p.audit import GameReport, verify_game
from p2p.crypto.identity import Identity
from p2p.table import wire
from p2p.transcript.envelope import Envelope


def test_a_complaint_signed_by_a_bots_key_for_a_hand_before_its_takeover_blames_nobody(
        tmp_path: Path) -> None:
    """The bot's key is its seat's only in the hands after its takeover, for the
    complaints it signs as for the entries it carries: its runner (seat 0) signs with it
    an unfounded complaint of hand 1, which the player of seat 2 still played. Live peers
    took it as seat 2's and blamed the player who left ("p2 complained without
    evidence"); ``verify`` sets it aside (a record of a key with no seat in its hand)."""
    t = _stopped(b"h13/bot-complains-early")
    bot = Identity.from_seed(BOT_SEED)
    _agree_bot(t, 2, (0, 1), bot)
    _start_bot(t, runner=0, silent=2, bot=bot)
    t.run(rounds=3)
    runner = t.seats[0].rlog
    junk = Envelope.create(bot, runner.table_id, 0, 0, bytes(32), {"k": "game.act", "i": 0})
    early = Envelope.create(bot, runner.table_id, 0, 0, runner.verifier.head,
                            {"k": "side.complaint", "check": "equivocation",
                             "entry": junk.encode(), "other": junk.encode()})
    t.wire.append((2, 1, wire.encode_push([early.encode()])[0]))
    t.deliver()
    rl = t.seats[1].rlog
    assert rl.error is None or rl.error.seat != 2, (rl.error, rl.stopped)
    rep = verify_game(_transcript(tmp_path, t, 1))
    assert rep.blamed_seat != 2, rep.summary()


def _hand_entries(t: Table, s: int) -> int:
    return len(t.seats[s].rlog.log.get(0, []))


def _verify(tmp_path: Path, t: Table, s: int, name: str) -> GameReport:
    """``verify`` of seat ``s``'s transcript as it stands now."""
    d = tmp_path / name
    d.mkdir()
    return verify_game(_transcript(d, t, s))


def test_a_complaint_about_a_bad_move_sent_to_its_recipient_alone_never_blames_it(
        tmp_path: Path) -> None:
    """Seat 2 signs a random commitment of 31 bytes (a malformed body, not a deck one) and
    sends it to seat 1 alone; seat 0 lags (seat 1's commitment did not reach it). Seat 1
    stops on it and complains. Seat 0 takes the complaint's entry as seat 2's, to judge
    when its log gets there; ``verify`` of its transcript meanwhile said the complaint
    was unfounded (a ``malformed-body`` complaint about an entry it never held) and
    blamed seat 1, the honest recipient. It now decides nothing from it (the transcript
    just stops, as any does), and once seat 0 caught up every verdict names seat 2."""
    t = _table(b"h13/bad-commit-to-one", n=3)
    for _ in range(40):
        t.write_turns()
        if _hand_entries(t, 1) >= 5:        # seat 1 wrote its commitment
            break
        t.deliver()
    t.wire = [m for m in t.wire if not (m[0] == 1 and m[1] == 0)]
    t.deliver()
    z = t.seats[2].rlog
    assert z.match.hand.expected_writer() == 2
    bad = Envelope.create(z.identity, z.table_id, 0, z.verifier.next_seq(z.identity.public_key),
                          z.verifier.head, {"k": "game.rcommit", "c": bytes(31)})
    t.wire.append((2, 1, wire.encode_push([bad.encode()])[0]))
    t.deliver()
    a = t.seats[1].rlog
    assert a.error is not None and a.error.seat == 2 and a.error.check == "malformed-body"
    assert [e.body["k"] for e in a.side] == ["side.complaint"]
    t.deliver()
    b = t.seats[0].rlog
    assert [e.body["k"] for e in b.side] == ["side.complaint"] and b.error is None
    rep = _verify(tmp_path, t, 0, "lagging")
    # (the transcript stops waiting for the entry it lost: named as any transcript that
    # just stops is, not blamed for a complaint)
    assert rep.check == "incomplete" and rep.unfinished, rep.summary()
    for _ in range(40):                     # seat 0 asks for what it missed
        t.clock.advance(1.0)
        for s in range(3):
            t.seats[s].rlog.tick()
            t.collect(s)
        t.deliver()
        if b.error is not None:
            break
    assert b.error is not None and (b.error.seat, b.error.check) == (2, "malformed-body")
    for s in (0, 1):
        rep = _verify(tmp_path, t, s, f"end{s}")
        assert (rep.blamed_seat, rep.check) == (2, "malformed-body"), rep.summary()


def _run_until(t: Table, done: Callable[[], bool], rounds: int = 400) -> None:
    """Deliver and move the clock until ``done()`` (or ``rounds`` went by)."""
    for _ in range(rounds):
        if done():
            return
        t.write_turns()
        if not t.deliver():
            t.clock.advance(0.5)
            for s in range(t.cfg.n):
                t.seats[s].rlog.tick()
                t.collect(s)


def test_a_complaint_sent_to_one_honest_peer_alone_reaches_every_peer(
        tmp_path: Path) -> None:
    """Seat 2 complains about a valid share of seat 0 and sends the complaint to seat 0
    alone. Seat 0 stops on it, blaming seat 2; seat 1 never heard of it, waited for seat
    0's next entry and named seat 0 unresponsive: the honest peers' verdicts differed.
    The peer that stops on a complaint now pushes it to every peer, as it pushes a bad
    entry it stops on, so every peer judges it alike."""
    t = _table(b"h13/complaint-to-one", n=3)
    z = t.seats[2].rlog

    def share_of_0() -> Envelope | None:
        k0 = t.seats[0].rlog.identity.public_key
        shares = [e for e in (Envelope.decode(r) for r in z.log.get(z.hand_no, []))
                  if e.author == k0 and e.body.get("k") == "deck.share"]
        return shares[-1] if shares else None

    _run_until(t, lambda: share_of_0() is not None)
    ev = share_of_0()
    assert ev is not None
    z.write_side({"k": "side.complaint", "check": "share-proof", "entry": ev.encode()})
    out = z.take_output()
    t.wire.extend((2, 0, p) for _, p in out.messages)
    _run_until(t, lambda: all(t.seats[s].rlog.stopped for s in (0, 1)))
    for s in (0, 1):
        rl = t.seats[s].rlog
        assert rl.error is not None and (rl.error.seat, rl.error.check) == \
            (2, "unfounded-complaint"), (s, rl.stopped)
        rep = _verify(tmp_path, t, s, f"seat{s}")
        assert (rep.blamed_seat, rep.check) == (2, "unfounded-complaint"), rep.summary()


def _entries_of(t: Table, reader: int, author: int, kind: str) -> list[Envelope]:
    """``author``'s entries of kind ``kind`` in ``reader``'s log of the current hand."""
    rl = t.seats[reader].rlog
    key = t.seats[author].rlog.identity.public_key
    return [e for e in (Envelope.decode(r) for r in rl.log.get(rl.hand_no, []))
            if e.author == key and e.body.get("k") == kind]


def _verdicts_agree(tmp_path: Path, t: Table, honest: tuple[int, ...],
                    want: tuple[int | None, str]) -> None:
    """Every honest peer's live verdict and ``verify`` of its transcript: ``want``
    (seat blamed, check)."""
    for s in honest:
        rl = t.seats[s].rlog
        live = (None, "unresponsive") if rl.error is None and rl.unresponsive is not None \
            else (None if rl.error is None else rl.error.seat,
                  "" if rl.error is None else rl.error.check)
        assert live == want, (s, rl.stopped)
        rep = _verify(tmp_path, t, s, f"v{s}-{len(list(tmp_path.iterdir()))}")
        assert (rep.blamed_seat, rep.check) == want, rep.summary()


def _deal_shares(t: Table) -> None:
    """Play until seat 0 wrote a private share (the deal is under way)."""
    _run_until(t, lambda: any(e.body.get("to") != "pub"
                              for e in _entries_of(t, 2, 0, "deck.share")))


def test_a_complaint_whose_check_names_no_fault_of_its_entry_decides_nothing(
        tmp_path: Path) -> None:
    """Seat 2 complains "share-proof" about seat 0's random commitment (no share: live
    peers take it as seat 0's entry, which they hold, and go on), then falls silent.
    The live peers named seat 2 unresponsive; ``verify`` of their transcripts called the
    complaint unfounded (its check string picked the rule) and blamed seat 2."""
    t = _table(b"h13/check-mismatch", n=3)
    _deal_shares(t)
    ev = _entries_of(t, 2, 0, "game.rcommit")[0]
    t.seats[2].rlog.write_side({"k": "side.complaint", "check": "share-proof",
                                "entry": ev.encode()})
    t.collect(2)
    t.deliver()
    assert all(t.seats[s].rlog.error is None for s in (0, 1))
    for _ in range(200):                 # seat 2 writes nothing more
        if all(t.seats[s].rlog.stopped for s in (0, 1)):
            break
        t.write_turns((0, 1))
        t.wire = [m for m in t.wire if m[0] != 2]
        if not t.deliver():
            t.clock.advance(0.5)
            for s in (0, 1):
                t.seats[s].rlog.tick()
                t.collect(s)
    _verdicts_agree(tmp_path, t, (0, 1), (None, "unresponsive"))


def test_two_complaints_are_judged_in_the_order_the_peer_took_them(tmp_path: Path) -> None:
    """Seats 1 and 2 are hostile. Seat 1 complains about a valid share of seat 0 (seat 0
    stops, blaming seat 1), then seat 2 complains with two versions of one of its own
    entries. ``verify`` of seat 0's transcript judged every equivocation complaint first
    and blamed seat 2; it now takes them in the transcript's order, as seat 0 did."""
    t = _table(b"h13/two-complaints", n=3)
    _deal_shares(t)
    share = [e for e in _entries_of(t, 1, 0, "deck.share") if e.body.get("to") != "pub"][-1]
    t.seats[1].rlog.write_side({"k": "side.complaint", "check": "share-proof",
                                "entry": share.encode()})
    t.collect(1)
    z = t.seats[2].rlog
    own = _entries_of(t, 2, 2, "game.rcommit")[0]
    alt = Envelope.create(z.identity, own.table, own.hand, own.seq, own.prev,
                          {**own.body, "c": bytes(32)})
    z.write_side({"k": "side.complaint", "check": "equivocation", "entry": own.encode(),
                  "other": alt.encode()})
    t.collect(2)
    t.wire = [m for m in t.wire if m[1] == 0]
    t.deliver()
    _verdicts_agree(tmp_path, t, (0,), (1, "unfounded-complaint"))


def test_a_share_naming_another_seat_is_its_signers_fault_in_verify_too(
        tmp_path: Path) -> None:
    """Seat 2 signs a well-formed share whose body names seat 0; seat 1 (hostile too)
    complains about it. Live peers blamed seat 2, its signer (a malformed share);
    ``verify`` blamed seat 1 ("every share in the hand checks out")."""
    t = _table(b"h13/share-of-another", n=3)
    _deal_shares(t)
    share = [e for e in _entries_of(t, 2, 0, "deck.share") if e.body.get("to") != "pub"][-1]
    z = t.seats[2].rlog
    forged = Envelope.create(z.identity, z.table_id, z.hand_no, 999, bytes(32), share.body)
    t.seats[1].rlog.write_side({"k": "side.complaint", "check": "share-proof",
                                "entry": forged.encode()})
    t.collect(1)
    t.wire = [m for m in t.wire if m[1] == 0]
    t.deliver()
    _verdicts_agree(tmp_path, t, (0,), (2, "malformed-body"))


def test_a_malformed_deck_body_of_the_next_hand_is_judged_at_once(tmp_path: Path) -> None:
    """Seat 2 signs a malformed key entry for the next hand and complains about it itself.
    Live peers set it aside until they reached that hand (the match went on), while
    ``verify`` of their transcripts, which judges a signed malformed body whatever its
    hand, blamed seat 2 at once: a transcript that stopped there said so and live peers
    did not. Live peers now judge it at once, as ``verify`` does."""
    t = _table(b"h13/malformed-next-hand", n=3)
    _deal_shares(t)
    z = t.seats[2].rlog
    bad = Envelope.create(z.identity, z.table_id, z.hand_no + 1, 0, bytes(32),
                          {"k": "deck.key", "seat": 2, "h": bytes(31), "proof": bytes(64)})
    z.write_side({"k": "side.complaint", "check": "malformed-body", "entry": bad.encode()})
    t.collect(2)
    t.deliver()
    _verdicts_agree(tmp_path, t, (0, 1), (2, "malformed-body"))


def test_a_complaint_a_peer_stopped_on_is_judged_before_a_share_it_never_checked(
        tmp_path: Path) -> None:
    """Seats 1 and 2 are hostile. Seat 2 sends a bad share to seat 1, which keeps quiet
    about it and complains instead about a valid share of seat 0. Seat 0 (which never
    checks a share for another seat during the hand) stops on the complaint, blaming seat
    1; ``verify`` of its transcript checked every share of the hand first and named seat
    2. A complaint the peer stopped on is judged first, as the peer judged it."""
    t = _table(b"h13/complaint-before-shares", n=3)
    bad_share, done = bad_share_to(1)

    def sent(s: int) -> None:
        if s == 1 and done[0]:
            t.wire = [m for m in t.wire if m[0] != 1]

    _play_with(t, 2, bad_share, sent=sent, until=lambda: t.seats[1].rlog.error is not None)
    assert done[0] and t.seats[1].rlog.error is not None
    a = t.seats[1].rlog
    share = [e for e in _entries_of(t, 0, 0, "deck.share") if e.body.get("to") != "pub"][-1]
    lie = Envelope.create(a.identity, a.table_id, a.hand_no, 0, a.verifier.head,
                          {"k": "side.complaint", "check": "share-proof",
                           "entry": share.encode()})
    t.wire = [(1, 0, wire.encode_push([lie.encode()])[0])]
    t.deliver()
    _verdicts_agree(tmp_path, t, (0,), (1, "unfounded-complaint"))


def test_a_peer_stopped_on_a_cheat_takes_no_more_entries(tmp_path: Path) -> None:
    """Seats 1 and 2 are hostile. Seat 1 complains about a valid share of seat 0 to seat 0
    alone: seat 0 stops, blaming seat 1. The others play on, and seat 0 still applied
    each entry pushed to it as its log's next one: its log grew past its stop, and a bad
    entry of seat 2 then replaced its verdict (its error named seat 2 while it said seat
    1) and ``verify`` of its transcript named seat 2. A peer stopped on a proven cheat
    now takes no entry more: its verdict stands and its log ends where it stopped."""
    t = _table(b"h13/stopped-for-good", n=3)
    _deal_shares(t)
    share = [e for e in _entries_of(t, 1, 0, "deck.share") if e.body.get("to") != "pub"][-1]
    t.seats[1].rlog.write_side({"k": "side.complaint", "check": "share-proof",
                                "entry": share.encode()})
    out = t.seats[1].rlog.take_output()
    t.wire.extend((1, 0, p) for _, p in out.messages)
    t.deliver()
    b = t.seats[0].rlog
    assert b.error is not None and b.error.seat == 1
    at_stop = len(b.log[b.hand_no])
    z, k2 = t.seats[2].rlog, t.seats[2].rlog.identity.public_key
    for _ in range(60):                  # seats 1 and 2 play on
        if b.match.hand.expected_writer() == 2:
            break
        t.write_turns((1, 2))
        t.wire = [m for m in t.wire if m[0] != 0]
        t.deliver()
    wrong = Envelope.create(z.identity, z.table_id, b.hand_no, b.verifier.next_seq(k2),
                            b.verifier.head, {"k": "game.act", "a": ["discard", 2, 0, None]})
    t.wire = [(2, 0, wire.encode_push([wrong.encode()])[0])]
    t.deliver()
    assert b.error is not None and b.error.seat == 1, (b.error, b.stopped)
    assert len(b.log[b.hand_no]) == at_stop
    _verdicts_agree(tmp_path, t, (0,), (1, "unfounded-complaint"))
