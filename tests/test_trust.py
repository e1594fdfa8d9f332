"""Trust under attack (issue 9), in process and without sockets: whoever cheats is named,
an honest seat never is."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import verify_game
from p2p.table.hand_protocol import ProtocolError
from p2p.table.memory import make_table, play_fair_match

Body = dict[str, Any]


def _copy_dealt_cards_into_pile(rng: random.Random) -> Any:
    """A tamper: seat 1's first shuffle pass copies three dealt cards into the draw pile."""
    done = False

    def tamper(h: int, s: int, b: Body) -> Body:
        nonlocal done
        if not done and s == 1 and b.get("k") == "deck.pass":
            done = True
            d = list(b["deck"])
            for _ in range(3):
                d[rng.randrange(12, 30)] = d[rng.randrange(0, 12)]
            return {**b, "deck": d}
        return b

    return tamper


def test_duplicated_card_is_blamed_on_the_shuffler_never_on_its_holder(tmp_path: Path) -> None:
    """Finding 3: the last shuffler (seat 1 of 2) copies three dealt cards' ciphertexts into
    the draw pile, so copies of cards in hands are drawn and played. A copy played after its
    twin is public used to be refused by the engine as an illegal move (R4) of the honest
    seat that drew it (about one trial in five); the duplicate must instead be pinned on the
    shuffle: the holder's open shows a card seen twice, the hand goes to the reveals, which
    name seat 1's pass — live and by ``verify``."""
    blamed = []
    for trial in range(8):
        tamper = _copy_dealt_cards_into_pile(random.Random(trial))
        cfg, ids = make_table(preset("modern"), Seating.solo(2), ["p0", "p1"],
                              b"dup/%d" % trial)
        path = tmp_path / f"dup{trial}.mbt"
        bots = [make_bot("heuristic", 3 * trial + s).choose for s in range(2)]
        with pytest.raises(ProtocolError) as ei:
            play_fair_match(cfg, ids, bots, transcript=path, tamper=tamper)
        blamed.append((trial, ei.value.seat, ei.value.check))
        if trial < 3:
            rep = verify_game(path)
            assert not rep.ok and rep.blamed_seat == 1, rep.summary()
    # the shuffler, by its proof of shuffle at once or (second line) by its revealed seed
    assert all(seat == 1 and check in ("shuffle-proof", "pass-mismatch")
               for _, seat, check in blamed), blamed
