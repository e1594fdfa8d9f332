"""``resume --plain`` by a player whose seat a bot took while they were away: the line
mode says so in the full screen's words, follows the hand the table is on, and refuses a
move with that reason (it showed hand 1, "Your turn", then "your hand is empty")."""

from __future__ import annotations

import argparse
import io
import os
import threading
from pathlib import Path

import pytest
from cli_helpers import HostedByAnn, free_port, said, start_joiner, wait_into_first_hand
from cli_helpers import until_said as until

from cli import resume as resume_verb


@pytest.mark.slow    # a networked match, a player away, a bot by agreement (~20 s)
def test_resume_plain_after_a_bot_took_the_seat_says_so_and_refuses_moves(
        tmp_path: Path) -> None:
    hport, jport = free_port(), free_port()
    # a million points: the match is still on whatever Ben's console is slow to say (at
    # 20,000 the table of bots could end it first under load); Ann leaves at the end
    ann = HostedByAnn(tmp_path, hport, match_target=1_000_000)
    ann_out = ann.out
    jdir, jkey = tmp_path / "j", tmp_path / "j.key"
    ben = start_joiner(hport, jport, jdir, jkey)
    ben_out = io.StringIO()
    ben_r, ben_w = os.pipe()
    resumed: threading.Thread | None = None
    try:
        wait_into_first_hand(jdir)
        ben.kill()
        ben.wait(10)
        until(ann_out, "type bot")
        ann.type("bot")
        until(ann_out, "Ben's seat is played by a bot run by this computer")
        until(ann_out, "Hand 2: the cards are dealt")   # the table goes on without Ben

        def resume() -> None:
            with os.fdopen(ben_r) as inp:
                resume_verb.run(argparse.Namespace(
                    data_dir=str(jdir), identity=str(jkey), plain=True,
                    peer=[f"127.0.0.1:{hport}"]), out=ben_out, inp=inp)

        resumed = threading.Thread(target=resume, daemon=True)
        resumed.start()
        text = until(ben_out, "A bot plays your seat from hand 2, run by Ann: the others "
                              "agreed, saying you had left.")
        assert "you are watching" in text
        os.write(ben_w, b"discard 1\n")
        text = until(ben_out, "Sorry: A bot plays your seat from hand 2")
        assert "your hand is empty" not in text
        # asked as soon as the console has moved past the hand Ben left (voided): the
        # refusal can come while it still shows that hand, whose board holds his old
        # cards (failed about once in three, on main too); not later: the console says
        # every hand it missed, and on a table of bots the match can be over (the line
        # mode gone) before a later "look" is read
        until(ben_out, "Hand 2: the cards are dealt")
        os.write(ben_w, b"look\n")
        # the hand the bot holds is not Ben's to see, and not empty (newcomer pass 26:
        # "Your hand is empty." was said here)
        until(ben_out, "No cards here: a bot plays your seat and holds its cards.")
        # the bot's moves in Ben's seat are the bot's, never "You …"
        until(ben_out, "* Ben's bot ")
        # the board Ben asked for is the hand the table is on, not the hand he left in
        board = " ".join(ben_out.getvalue().split()).rsplit("Sorry: A bot plays", 1)[-1]
        assert "Hand 1," not in board and "Hand " in board, board[-2000:]
        assert "c for a coup fourré" not in board    # no prompt for a seat the bot plays
    finally:
        os.write(ben_w, b"quit\ny\n")     # a watcher whose input ends watches on
        os.close(ben_w)
        if ben.poll() is None:
            ben.kill()
        if resumed is not None:
            resumed.join(30)
        ann.leave()
    assert not ann.thread.is_alive(), ann_out.getvalue()[-2000:]   # she left: it ended
    host_said = said(ann_out)
    # Ann's screen: the pause is a pause, the bot is not Ben coming back, and its moves
    # are the bot's
    assert "The match stopped" not in host_said, host_said[:3000]
    assert "Ben is connected again" not in host_said, host_said[:3000]
    assert "Ben's bot " in host_said
