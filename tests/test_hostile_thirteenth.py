"""Hostile pass 13: live peers and ``verify`` judge complaints alike, and no complaint
makes either blame an honest seat (docs/protocol.md, the complaint paragraphs). Each test
failed before its fix."""

from __future__ import annotations

from pathlib import Path

from test_replicated_log import _table, _transcript
from test_takeover import BOT_SEED, _agree_bot, _start_bot, _stopped

from p2p.audit import verify_game
from p2p.crypto.identity import Identity
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
    from p2p.table import wire
    t.wire.append((2, 1, wire.encode_push([early.encode()])[0]))
    t.deliver()
    rl = t.seats[1].rlog
    assert rl.error is None or rl.error.seat != 2, (rl.error, rl.stopped)
    rep = verify_game(_transcript(tmp_path, t, 1))
    assert rep.blamed_seat != 2, rep.summary()
