"""Eleventh hostile pass (2026-12-06). What must hold: an honest player is never blamed;
no input stops a peer (no traceback, no unbounded wait, no unbounded memory); a
first-time player never wonders what happened.

Findings (each test here failed before its fix):

* a remaining seat that signs both a bot and the end for a silent seat at one point (a
  hostile one; an honest one does so only once its first record is spent) made every
  other player's console say that nothing could be agreed any more and that the table
  waited for the silent seat alone (``open_kinds`` took each of its records as closing
  the other kind), with b and e no longer offered: yet either record of the honest
  player would have made an agreement. A seat that signed both closes neither now.
* ``resume`` of a store whose log is damaged after N good entries rewrote the good N with
  one fsync each (1.6 ms each on this machine's ext4, some 10 ms on a spinning disk: a
  long match's 20,000 entries took from 30 s to minutes, the peer silent meanwhile), and
  decoded them all at once first (``list(entries[:i])`` of the lean ``StoredLog``: the
  memory pass 10 saved, spent again). The good prefix is handed over as bytes and
  written with one fsync.
* ``verify`` of a transcript that stops in hand H blamed an honest seat for what a bot
  that never played it signed: at two seats the other seat alone agrees a takeover, so
  Hal signs, while Ann plays H, "from H+2 a bot (his own key K) plays Ann's seat" (a
  record of H+1), has K sign two entries for one slot, and complains of them: "equivocation:
  seat 0 (Ann)" (the takeover left out of the report, as one that took effect nowhere);
  a leave record by K said "Ann left the table". A bot's key counts as its seat's only
  for the records and entries of the hands after its takeover's, and only for a
  takeover that took effect in what was checked.
* ``verify`` of an honest player's complete match failed ("unknown-author ... not a
  seated player", no result) when the other player of a two-seat table had signed, during
  hand 1, a takeover of the honest seat at a point the hand never reached (10,000): the
  honest peer kept the record (the point might come), finished the hand and played on
  with its own key, and ``verify`` applied the takeover all the same, swapping the seat's
  key from hand 2. An agreement at a point a hand never reached, in a log that went on to
  a later hand, took effect nowhere: ``agreements_of`` leaves it out given the log's
  entries per hand (counted by the first pass, ``Transcript.hand_sizes``).
* ``games`` read its state cache (``games-state.json`` in the data folder) with facts that
  name no seat ("agreed" of seat -1 among no names) as written, and stopped whole:
  "unexpected error: IndexError", no game listed; a winner past the sides said
  "finished,  won". Such facts are not as written: the game is checked afresh.
* a plug-in at a timed table made during its first move's wait for the making (before
  the half) was asked at once with what was left of the move, and one that thinks longer
  than that was failed for good ("did not move within 4 s" after 2.5 s), the built-in bot
  playing its seat to the end. That move is the built-in bot's; the plug-in has its whole
  time from the next.
* ``millebornes lobby`` answers at most 20 lines of a pasted burst: a q after them was
  dropped with the rest, and the list went on. A quit word is taken wherever it is.
* ``millebornes --verb games`` (argparse's --verbose) was refused as "--verb: millebornes
  games has no such option" by the check of a verb's options written before the verb,
  which took whole names only; "--ru modern play" so, while "play --ru modern" plays.

Probed and found holding (no change): ``StoredLog.by(author)`` (the author is always
encoded as bin 8 of 32 bytes in a canonical entry, so none of the author's is skipped;
another's entry holding those bytes in its body is decoded and left out by its author);
``StoredLog`` slices and equality with a list; a plug-in never made (the built-in bot
moves, half a move's time spent waiting, until its 30 s are over, then it is a fault),
made then crashed ("ended its process"); 30,000 random lines of Arabic, Latin, brackets
and Uyghur commas through ``cli.i18n.rtl.visual`` (no exception, no isolate mark left);
non-UTF-8 bytes and a 100,000-character word in argv (said with repr, in half a second). Also fixed, though no line from the wire comes near it (names of at
most 64 characters): ``rtl._isolate_run`` split a left-to-right run at each bracket of the
sentence by recursion, and a Uyghur line holding some 1,000 of them raised RecursionError.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from test_plugin_faults import faulty_plugins  # noqa: F401 - a fixture
from test_store_damage import played  # noqa: F401 - a fixture

from engine import Seating, preset
from p2p.net.transport import Node
from p2p.table.session import Peer, SessionOptions
from p2p.table.wire import node_id_for
from p2p.testing import Pumping, two_players_and_an_absent_third, wait_for
from p2p.transcript.agreement import END, TAKEOVER, open_kinds


def test_a_seat_that_signed_both_kinds_at_the_point_closes_neither() -> None:
    bot = {"seat": 2, "at": 5, "runner": 0}
    end = {"seat": 2, "at": 5}
    assert open_kinds({TAKEOVER: {1: bot}, END: {1: end}}, 2, 5) == {TAKEOVER, END}
    # four seats: Bo's bot was spent (Cy signed another point), Bo then chose the end:
    # the end still holds if Ann and Cy sign it
    assert open_kinds({TAKEOVER: {1: bot, 3: {"seat": 2, "at": 4, "runner": 0}},
                       END: {1: end}}, 2, 5) == {END}
    # as before: two seats that chose differently close both
    assert open_kinds({TAKEOVER: {1: bot}, END: {0: end}}, 2, 5) == frozenset()


def test_a_hostile_seat_signing_both_choices_does_not_tell_the_others_nothing_can_hold(
        ) -> None:
    """Over real sockets: Cy never comes; Hal (seat 1) signs a bot and the end for Cy at
    the same point. Ann is offered both still, and her end ends the match."""
    from cli.netdriver import NetDriver

    peers = two_players_and_an_absent_third(b"hostile11/both", ("Ann", "Hal", "Cy"))
    peers[1].rlog._refusal = lambda kind, seat: None  # type: ignore[method-assign]
    pumps = Pumping(peers, through_pauses=True)
    drivers = [NetDriver(p, background=True) for p in peers]
    try:
        assert wait_for(lambda: all(p.paused and p.silent_seat() == 2 for p in peers), 30), \
            [p.stopped for p in peers]
        assert peers[1].agree_bot(2) and peers[1].agree_end(2)
        assert wait_for(lambda: 1 in peers[0].agreement()[TAKEOVER]
                     and 1 in peers[0].agreement()[END], 10)
        assert peers[0].agreements_open() == {TAKEOVER, END}
        assert drivers[0].no_agreement(False) is None
        words = drivers[0].silent_words(plain=False)
        assert "waits for Cy to come back" not in words, words
        drivers[0].agree("end")
        assert wait_for(lambda: peers[0].agreed_end is not None, 10)
        assert peers[0].agreed_end.signers == (0, 1) and peers[0].agreed_end.seat == 2
    finally:
        pumps.stop()
        for d in drivers:
            d.close()
        for p in peers:
            p.close(flush=0.1)


def test_a_resume_that_cuts_local_damage_rewrites_the_good_entries_with_one_fsync(
        played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """Seat 0's store with its last entry's signature flipped: the resume keeps the good
    entries (rewritten, same bytes) and does not fsync once per entry."""
    from p2p.crypto.identity import Identity
    from p2p.net.transport import Node
    from p2p.table.session import resume_peer
    from p2p.table.store import TRANSCRIPT
    from p2p.transcript.file import read_transcript

    shutil.copytree(played, tmp_path / "g")
    table = next(d for d in (tmp_path / "g" / "d0").iterdir() if d.is_dir())
    path = table / TRANSCRIPT
    before = read_transcript(path)
    n = len(before.entries)
    # enough entries that one fsync each would break the bound of 20 below: a hand of the
    # fixture has 80 to 200 of them, by the deal (the mental-poker deck is not seeded:
    # "> 100" failed on a hand of 81 in CI)
    assert n > 40
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 0x55                   # the last entry's signature
    path.write_bytes(bytes(raw))
    syncs = []
    real = os.fsync

    def fsync(fd: int) -> None:
        # only this store's: a peer of an earlier test, its threads still closing in this
        # process, fsyncs its own files meanwhile (the count failed once so, in a long run)
        try:
            mine = Path(os.readlink(f"/proc/self/fd/{fd}")).parent == table
        except OSError:
            mine = True
        if mine:
            syncs.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    ident = Identity.load_or_create(tmp_path / "g" / "s0.key")
    peer = resume_peer(table, ident, node_factory=lambda nid, bind, port: Node(
        nid, bind="127.0.0.1"), options=SessionOptions(response_delay=0.01, stall_after=0.3))
    try:
        assert peer.local_damage is not None and f"entry {n - 1} of {n}" in \
            peer.local_damage, peer.local_damage
        peer.close(flush=0)
        assert len(syncs) < 20, f"{len(syncs)} fsyncs to resume {n} entries"
        after = read_transcript(path)
        assert [e.encode() for e in after.entries] == \
            [e.encode() for e in before.entries[:n - 1]]
    finally:
        peer.close(flush=0)


def _cut_with_records(played: Path, tmp_path: Path, records: Any) -> Path:  # noqa: F811
    """Seat 0's transcript of the played match, cut in the middle of its first hand, with
    the side records ``records(ids, table)`` gives appended (signed by whom it says)."""
    from p2p.crypto.identity import Identity
    from p2p.table.store import TRANSCRIPT
    from p2p.transcript.file import read_transcript

    table = next(d for d in (played / "d0").iterdir() if d.is_dir())
    t = read_transcript(table / TRANSCRIPT)
    ids = [Identity.load_or_create(played / f"s{s}.key") for s in range(2)]
    n0 = sum(1 for e in t.entries if e.hand == 0)
    out = tmp_path / "cut.mbt"
    with open(table / TRANSCRIPT, "rb") as f:
        head = f.read(t.offsets[n0 // 2])
    out.write_bytes(head + b"".join(e.encode() for e in records(ids, t.header.table)))
    return out


def test_verify_never_blames_a_seat_for_what_a_bot_that_never_played_it_signed(
        played: Path, tmp_path: Path) -> None:  # noqa: F811
    """At two seats the other seat alone agrees a takeover: while Ann plays hand 1, Hal
    signs "from hand 3 a bot (key K, his own) plays Ann's seat" (a record of hand 2), K
    signs two different entries for one slot, and Hal complains of them. The transcript
    stops in hand 1, so the takeover took effect nowhere (the report leaves it out, pass
    10), yet K counted as seat 0's key: verify said "equivocation: seat 0 (Ann)"."""
    from p2p.audit import verify_game
    from p2p.crypto.identity import Identity
    from p2p.transcript.envelope import Envelope

    bot = Identity.generate()

    def records(ids: list[Identity], table: bytes) -> list[Envelope]:
        take = Envelope.create(ids[1], table, 1, 0, bytes(32), {
            "k": "side.takeover", "hand": 1, "seat": 0, "runner": 1, "at": 0,
            "key": bot.public_key, "endpoint": "tcp://127.0.0.1:5555"})
        a = Envelope.create(bot, table, 2, 0, bytes(32), {"k": "game.act", "i": 0})
        b = Envelope.create(bot, table, 2, 0, bytes(32), {"k": "game.act", "i": 1})
        complaint = Envelope.create(ids[1], table, 0, 0, bytes(32), {
            "k": "side.complaint", "check": "equivocation", "entry": a.encode(),
            "other": b.encode()})
        unfounded = Envelope.create(bot, table, 2, 0, bytes(32), {
            "k": "side.complaint", "check": "bad-share", "entry": a.encode()})
        return [take, complaint, unfounded]

    rep = verify_game(_cut_with_records(played, tmp_path, records))
    # K had no seat: Hal's complaint shows nothing, and is his own doing
    assert (rep.check, rep.blamed_seat) == ("unfounded-complaint", 1), \
        (rep.check, rep.blamed(), rep.crypto.detail)


def test_verify_never_says_a_seat_left_for_a_bot_that_never_played_it(
        played: Path, tmp_path: Path) -> None:  # noqa: F811
    """As above, K signs a leave record: verify said "seat 0 (Ann) left the table"."""
    from p2p.audit import verify_game
    from p2p.crypto.identity import Identity
    from p2p.transcript.envelope import Envelope

    bot = Identity.generate()

    def records(ids: list[Identity], table: bytes) -> list[Envelope]:
        return [Envelope.create(ids[1], table, 1, 0, bytes(32), {
                    "k": "side.takeover", "hand": 1, "seat": 0, "runner": 1, "at": 0,
                    "key": bot.public_key, "endpoint": "tcp://127.0.0.1:5555"}),
                Envelope.create(bot, table, 2, 0, bytes(32), {
                    "k": "side.abandon", "reason": "I quit"})]

    rep = verify_game(_cut_with_records(played, tmp_path, records))
    assert rep.abandoned_by is None and "left the table" not in rep.crypto.detail, \
        (rep.check, rep.crypto.detail)


@pytest.mark.parametrize("argv, said", [
    (["--verb", "games"], None),                         # argparse's --verbose
    (["--la", "en", "games"], None),                     # argparse's --lang
    (["--ru", "modern", "play"], "--ru goes after the verb: millebornes play --ru modern"),
    (["--ver", "games"], "ambiguous option: --ver could match"),
])
def test_an_option_before_the_verb_is_read_as_argparse_reads_it(
        argv: list[str], said: str | None, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The check of a verb's options written before the verb took only whole names:
    "millebornes --verb games", which argparse reads as --verbose, was refused with
    "--verb: millebornes games has no such option", and "millebornes --ru modern play"
    so, while "millebornes play --ru modern" plays."""
    from cli import i18n
    from cli.main import main

    with i18n.using("en"):
        code = main([*argv, "--data-dir", str(tmp_path)])
    err = " ".join(capsys.readouterr().err.split())
    if said is None:
        assert code == 0 and "no such option" not in err, err
    else:
        assert code == 2 and said in err, err


@pytest.fixture(scope="module")
def played_hands(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished two-seat match of more than one hand (``s0.key``, ``s1.key``, ``d0``)."""
    from engine.bots import make_bot
    from p2p.crypto.identity import Identity
    from p2p.table.config import TableConfig
    from p2p.table.store import Store
    from p2p.testing import run_peers
    from p2p.transcript.file import Player

    base = tmp_path_factory.mktemp("hands")
    ids = [Identity.load_or_create(base / f"s{s}.key") for s in range(2)]
    cfg = TableConfig(preset("classic", match_target=4000), Seating.solo(2),
                      tuple(Player(s, f"p{s}", ids[s].public_key) for s in range(2)),
                      os.urandom(16))
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    eps = {s: nodes[s].endpoint for s in range(2)}
    peers = [Peer(ids[s], cfg, nodes[s], controller=make_bot("heuristic", 11 + s),
                  endpoints=eps, options=SessionOptions(response_delay=0.01, stall_after=0.3),
                  store=Store.create(base / f"d{s}", cfg.header(), s, port=0, endpoints=eps))
             for s in range(2)]
    assert run_peers(peers, 60, flush=0.5) == [True, True]
    return base


@pytest.mark.parametrize("past", [10_000, 1])
def test_an_agreement_at_a_point_a_finished_hand_never_reached_leaves_verify_alone(
        played_hands: Path, tmp_path: Path, past: int) -> None:
    """At two seats Hal alone signs, while Ann plays hand 1, "from hand 2 a bot of mine
    plays Ann's seat" at point 10,000 (or one past the hand's last entry). Ann's peer keeps
    it (the point may yet come) and finishes the hand: the agreement never takes effect.
    `verify` of her complete match swapped her key from hand 2 all the same and failed it:
    "unknown-author ... not a seated player", no result."""
    from p2p.audit import verify_game
    from p2p.crypto.identity import Identity
    from p2p.table.store import TRANSCRIPT
    from p2p.transcript.envelope import Envelope
    from p2p.transcript.file import read_transcript

    table = next(d for d in (played_hands / "d0").iterdir() if d.is_dir())
    t = read_transcript(table / TRANSCRIPT)
    assert len({e.hand for e in t.entries}) >= 2
    first = sum(1 for e in t.entries if e.hand == 0)
    honest = verify_game(table / TRANSCRIPT)
    assert honest.ok and honest.complete
    hal = Identity.load_or_create(played_hands / "s1.key")
    at = past if past > 1 else first + 1
    for kind, extra in (("side.takeover", {"runner": 1, "key": Identity.generate().public_key,
                                           "endpoint": "tcp://127.0.0.1:5555"}),
                        ("side.end", {})):
        rec = Envelope.create(hal, t.header.table, 0, 0, bytes(32),
                              {"k": kind, "hand": 0, "seat": 0, "at": at, **extra})
        path = tmp_path / f"{kind}.mbt"
        shutil.copy(table / TRANSCRIPT, path)
        with open(path, "ab") as f:
            f.write(rec.encode())
        rep = verify_game(path)
        assert rep.ok and rep.complete, (kind, rep.check, rep.crypto.detail)
        assert (rep.winner, rep.totals) == (honest.winner, honest.totals)
        assert not rep.takeovers and rep.ended_by_agreement is None and not rep.voided


@pytest.mark.parametrize("facts", [
    ["agreed", [], 1, -1, -1, 1],
    ["agreed", ["a", "b"], 2, -1, -1, 1],
    ["finished", [], 1, 5, -1, 0],
    ["finished", ["a"], 3, 2, -1, 0],
])
def test_games_reads_a_crafted_state_cache_as_none(
        played: Path, tmp_path: Path, facts: list[object],  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    """``games-state.json`` (the listing's memory, in the data folder) holding facts that
    name no seat or side there: "agreed" of seat -1 among no names stopped ``games``
    whole ("unexpected error: IndexError", no game listed); a winner past the sides said
    "finished,  won". Such facts are not as written: the game is checked afresh."""
    import json

    from cli import i18n
    from cli.main import main

    data = tmp_path / "d"
    shutil.copytree(played / "d0", data)
    with i18n.using("en"):
        assert main(["games", "--data-dir", str(data)]) == 0
    capsys.readouterr()
    cache = data / "games-state.json"
    kept = json.loads(cache.read_text())
    (name,) = kept
    kept[name][1] = facts
    cache.write_text(json.dumps(kept))
    with i18n.using("en"):
        assert main(["games", "--data-dir", str(data)]) == 0
    out = capsys.readouterr()
    assert "unexpected error" not in out.err and name[:8] in out.out, out
    assert "finished, you won" in out.out or "finished, p1 won" in out.out, out.out


@pytest.mark.usefixtures("faulty_plugins")
def test_a_plugin_made_during_its_first_timed_move_is_not_failed_for_the_time_left(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A plug-in at a 5 s table (4 s a move) made 1 s after its start, during its first
    move's wait for the making, and taking 3 s for that move: asked then, with what was
    left of the move, it was failed for good, "did not move within 4 s", and the built-in
    bot played its seat to the end. That move is the built-in bot's now; the next is the
    plug-in's, with its whole time."""
    from test_plugin_faults import _a_play

    from cli.bot_process import ANSWER_WITHIN, BotProcess, bot_move_time

    monkeypatch.setenv("MB_SLOW", "1")            # 1 s to be made,
    monkeypatch.setenv("MB_SLOW_MOVE", "3")       # 3 s for its first move
    view, legal = _a_play()
    limit = bot_move_time(5.0)
    bot = BotProcess("tslowstart", 1, answer_within=limit, make_within=ANSWER_WITHIN)
    try:
        started = time.monotonic()
        assert bot.choose(view, legal) in legal
        assert time.monotonic() - started < limit
        assert not bot._broken and bot.fault is None, bot.fault
        assert bot.choose(view, legal) is legal[0]         # its own move, in 3 s
        assert bot._made and not bot._broken and bot.fault is None, bot.fault
    finally:
        bot.close()


def test_a_uyghur_line_with_a_thousand_brackets_in_a_latin_stretch_is_ordered() -> None:
    """``rtl._isolate_run`` split a left-to-right run at each bracket of the sentence by
    recursion: a line holding some 1,000 of them raised RecursionError."""
    from cli.i18n.rtl import visual

    line = "ئا " + "a " + "(a " * 1500 + "ئا"
    shown = visual(line)
    assert shown.count("(") + shown.count(")") == 1500


def test_q_at_the_end_of_a_pasted_burst_leaves_the_lobby() -> None:
    """The lobby answers at most 20 lines of a burst (a paste of a book gets one answer,
    not thousands): a q after them was dropped with the rest, and the list went on."""
    import io

    from cli import i18n
    from cli.lobby import _leaves, _Typed

    typed = _Typed(io.StringIO("join\n" * 30 + "q\n"))
    lines: list[str] = []
    end = time.monotonic() + 5
    while time.monotonic() < end and not typed.ended:
        lines += typed.take(0.2)
    with i18n.using("en"):
        assert any(_leaves(line) for line in lines), lines
    assert len(lines) <= _Typed.MOST + 1
