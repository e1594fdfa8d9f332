"""Hostile pass 25: hostile transcripts handed to ``verify``, hostile files in the data
folder, a hostile seat's other addresses. Each test failed before its fix.

* a seat that stalls the table, its own step due, and signs a time-out claim about that
  very step (slot: its own seat and entry): ``verify`` read "INCOMPLETE ... unresponsive:
  nobody is blamed" — the stalling seat escaped as a seat nobody heard from, as if
  another seat had claimed it. The key that signs a seat's step in a hand never claims
  that step timed out; its claim counts for nothing now (the player a bot replaced still
  may: he follows the table as a spectator, as live peers take it). Without another
  seat's claim the transcript stops waiting for that seat, as any other stop.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import verify_game
from p2p.table.memory import make_table, play_fair_match
from p2p.testing import seeded_entropy
from p2p.transcript.envelope import Envelope
from p2p.transcript.file import read_transcript


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real fair match of one hand at a table of two (modern rules): "ann" honest,
    "mal" keeps his copy and his key."""
    with seeded_entropy(b"hostile-25"):
        cfg, ids = make_table(preset("modern"), Seating(2, 2), ["ann", "mal"],
                              b"hostile-25")
        path = tmp_path_factory.mktemp("twentyfifth") / "match.mbt"
        play_fair_match(cfg, ids, [make_bot("heuristic", s).choose for s in range(2)],
                        transcript=path)
    return {"cfg": cfg, "ids": ids, "path": path, "t": read_transcript(path)}


def _write(path: Path, header: bytes, items: list[Envelope]) -> Path:
    with open(path, "wb") as f:
        f.write(header)
        for e in items:
            f.write(e.encode())
    return path


def _cut_where_due(t: Any, key: bytes) -> tuple[list[Envelope], int, int]:
    """The entries up to where ``key``'s seat's next entry is due (a move, mid-hand),
    the hand and how many entries that seat wrote in it."""
    g = list(t.entries)
    cut = next(k for k in range(len(g) // 2, len(g))
               if g[k].author == key and g[k].body.get("k") == "game.act")
    pre = g[:cut]
    h = pre[-1].hand
    return pre, h, sum(1 for e in pre if e.author == key and e.hand == h)


@pytest.mark.parametrize("who", ["mal", "ann and mal"])
def test_a_seats_claim_that_its_own_step_timed_out_does_not_hide_its_stall(
        tmp_path: Path, game: dict[str, Any], who: str) -> None:
    t = game["t"]
    ann, mal = game["ids"]
    pre, h, written = _cut_where_due(t, mal.public_key)

    def claim(by: Any) -> Envelope:
        return Envelope.create(by, t.header.table, h, 0, pre[-1].hash(), {
            "k": "side.timeout", "step": "game.act", "slot": [h, 1, written]})

    claims = [claim(mal)] if who == "mal" else [claim(ann), claim(mal)]
    rep = verify_game(_write(tmp_path / "claim.mbt", t.header_bytes, [*pre, *claims]))
    if who == "mal":
        # before: ("unresponsive", None): the staller's word that it was not heard from
        assert (rep.check, rep.blamed_seat) == ("incomplete", 1), rep.summary()
        assert rep.unresponsive is None
    else:                     # the other seat's claim stands: nobody blamed, as before
        assert (rep.check, rep.blamed_seat, rep.unresponsive) == ("unresponsive", None, 1)
        assert "seat(s) [0]" in rep.detail, rep.detail
