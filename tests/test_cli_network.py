"""The console over networked seats (real sockets and cryptography on 127.0.0.1)."""

from __future__ import annotations

import time
from pathlib import Path

from cli.netdriver import NetDriver
from cli.play import LoopbackTable
from engine import Seating, preset
from engine.bots import make_bot


def test_a_console_opened_mid_match_shows_the_hand_in_play(tmp_path: Path) -> None:
    """Bug 8: `resume` in the middle of hand 2 opened on hand 1's scores and "Press Enter
    for hand 2". A driver made for a peer already in hand 2 shows hand 2."""
    table = LoopbackTable(preset("modern", match_target=2000), Seating.solo(2), ["Ana", "Bo"],
                          seed=3, base=tmp_path)
    try:
        d = table.driver
        me = make_bot("heuristic", 1)
        deadline = time.monotonic() + 90
        while not d.hand_over and time.monotonic() < deadline:
            if d.my_move():
                d.submit(me.choose(d.view(), d.legal()))
            elif not d.step_others():
                time.sleep(0.002)
        assert d.hand_over and not d.over
        d.next_hand()
        while table.peer.view() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert table.peer.hand_no == 1
        fresh = NetDriver(table.peer)          # what `resume` builds for this seat
        assert fresh.hand_no == 2
        assert not fresh.hand_over
        assert fresh.view() is table.peer.view()
        assert fresh.match.hands and len(fresh.match.hands) == 1
    finally:
        table.close()
        table.peer.close(flush=0.2)
