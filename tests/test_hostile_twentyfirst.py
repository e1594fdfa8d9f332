"""Hostile pass 21: a hostile seat of a 2x2 team table hands ``verify`` its copy of an
honest match with whole hands moved, dropped or repeated across the hand boundaries.
Every entry in it is genuinely signed where its author wrote it; only the holder of the
copy edited the order. What must hold: ``verify`` blames no honest seat and never stops
with a traceback.

Then the same seat live, on real sockets: in hand 1 it signs, at its slots, its own
deck entries of hand 0 again (well-formed, for the same round and position): every honest
peer names it, and so does ``verify`` of each honest transcript (no bug found there).

Finding (the test failed before its fix): a hand left out or moved before an earlier one
(hand 1's entries first, or hand 0 dropped, or hand 1 dropped) passed the cryptographic
checks hand by hand (each hand's links start at its own genesis), and the game replay then
met an entry "for hand 1 while hand 0 runs": ``wrong-hand``, blamed on the seat that wrote
the moved hand's first entry (here Ann, seat 0, honest). ``docs/verify.md`` says an entry
of another hand blames nobody.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import replay_steps, verify_game
from p2p.table.memory import make_table, play_fair_match
from p2p.table.session import SessionOptions
from p2p.testing import seeded_entropy, socket_peers
from p2p.transcript.envelope import Envelope
from p2p.transcript.file import read_transcript

NAMES = ["ann", "mal", "bo", "cy"]
MAL = 1


@pytest.fixture(scope="module")
def match(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real fair match of three hands at a 2x2 team table (modern rules, every secret
    from a seed); seat 1, "mal", keeps his copy."""
    with seeded_entropy(b"hostile-21"):
        cfg, ids = make_table(preset("modern", match_target=2500), Seating(4, 2), NAMES,
                              b"hostile-21")
        path = tmp_path_factory.mktemp("twentyfirst") / "match.mbt"
        play_fair_match(cfg, ids, [make_bot("heuristic", s).choose for s in range(4)],
                        transcript=path)
    t = read_transcript(path)
    hands = [e.hand for e in t.entries]
    assert sorted(set(hands)) == [0, 1, 2], set(hands)
    return {"t": t, "ids": ids, "b1": hands.index(1), "b2": hands.index(2)}


def _write(path: Path, header: bytes, items: list[Envelope]) -> Path:
    with open(path, "wb") as f:
        f.write(header)
        for e in items:
            f.write(e.encode())
    return path


def _edits(m: dict[str, Any]) -> dict[str, list[Envelope]]:
    g, b1, b2 = list(m["t"].entries), m["b1"], m["b2"]
    return {
        "hand-0-dropped": g[b1:],
        "hand-1-dropped": g[:b1] + g[b2:],
        "hand-1-before-hand-0": g[b1:b2] + g[:b1] + g[b2:],
        "hand-2-before-hand-1": g[:b1] + g[b2:] + g[b1:b2],
        "hand-0-twice": g[:b1] + g[:b1] + g[b1:],
        "hand-1-at-the-end-again": g + g[b1:b2],
    }


def test_a_copy_with_whole_hands_moved_or_dropped_blames_no_honest_seat(
        tmp_path: Path, match: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    t = match["t"]
    first = {h: t.entries[i].author for h, i in ((1, match["b1"]), (2, match["b2"]))}
    assert first[1] == first[2] == match["ids"][0].public_key   # Ann opens hands 1 and 2
    seen = {}
    for name, items in _edits(match).items():
        path = _write(tmp_path / f"{name}.mbt", t.header_bytes, items)
        rep = verify_game(path)
        seen[name] = (rep.check, rep.blamed_seat)
        assert not rep.ok and rep.check != "unexpected-error", (name, rep.summary())
        assert rep.blamed_seat is None, (name, rep.summary())
        replay_steps(path)                                  # never raises
        assert main(["verify", str(path)]) == 1, name
        out = capsys.readouterr()
        assert "Traceback" not in out.out + out.err, name
    # the order of the hands is what broke, said so, and nobody is named
    assert all(check in ("wrong-hand", "hand-order", "duplicate")
               for check, _seat in seen.values()), seen


def test_an_entry_the_cheater_signs_in_a_hand_already_over_still_names_him(
        tmp_path: Path, match: dict[str, Any]) -> None:
    """The other side of the fix: Mal signs, after hand 0's last entry, one more entry of
    hand 0 (the body of his second entry of hand 1, in his next slot of hand 0, linked to
    its last entry). No edit makes that of an honest seat's entries (its slot is fresh,
    its link holds): only he could sign it, and ``verify`` names him."""
    t, mal = match["t"], match["ids"][MAL]
    g, b1 = list(t.entries), match["b1"]
    his = [e for e in g[b1:match["b2"]] if e.author == mal.public_key]
    slot = sum(1 for e in g[:b1] if e.author == mal.public_key)
    extra = Envelope.create(mal, t.header.table, 0, slot, g[b1 - 1].hash(), his[1].body)
    path = _write(tmp_path / "extra.mbt", t.header_bytes, [*g[:b1], extra, *g[b1:b1 + 40]])
    rep = verify_game(path)
    assert (rep.check, rep.blamed_seat, rep.failed_index) == ("wrong-hand", MAL, b1), \
        rep.summary()


@pytest.mark.hostile
@pytest.mark.parametrize("kind", ["deck.key", "deck.pass", "deck.share", "deck.reveal"])
def test_a_seat_replaying_its_deck_entries_of_the_last_hand_is_named_by_every_honest_peer(
        tmp_path: Path, kind: str) -> None:
    """Four real peers on loopback, 2x2 teams; Mal's software signs, in hand 1, the body
    of his ``kind`` entries of hand 0 in their place (a hand key, a shuffle pass, a
    decryption share for the same position and recipient, a reveal): correctly signed,
    well-formed, for another hand. Every honest peer stops naming seat 1, and ``verify``
    of its transcript names seat 1 too."""
    with seeded_entropy(b"live21"):
        cfg, ids = make_table(preset("modern", match_target=5000), Seating(4, 2), NAMES,
                              b"live21")
    peers = socket_peers(tmp_path, cfg, ids,
                         SessionOptions(response_delay=0.01, stall_after=0.3, step_limit=5.0))
    old: list[dict[str, Any]] = []
    replayed = [0]

    def tamper(hand: int, body: dict[str, Any]) -> dict[str, Any]:
        if body.get("k") != kind:
            return body
        if hand == 0:
            old.append(body)
        elif hand == 1 and replayed[0] < len(old):
            replayed[0] += 1
            return old[replayed[0] - 1]
        return body

    peers[MAL].tamper = tamper
    try:
        runs = [threading.Thread(target=p.run, kwargs={"timeout": 60}) for p in peers]
        for r in runs:
            r.start()
        for r in runs:
            r.join(90)
        assert replayed[0] > 0, "the match never reached hand 1"
        for s in (0, 2, 3):
            p = peers[s]
            assert p.unresponsive is None and p.error is not None, (s, p.stopped)
            assert p.error.seat == MAL, (s, p.error)
    finally:
        for p in peers:
            p.close(flush=0)
    for s in (0, 2, 3):
        path = peers[s].transcript_path
        assert path is not None
        rep = verify_game(path)
        assert rep.blamed_seat == MAL and not rep.unfinished, (s, rep.summary())
