"""Newcomer pass 24: `play --auto` said "Waiting for Cy to answer the hazard (Speed
Limit). (up to 30 s)" (nothing said Cy was a bot, where other waits say "Cy (a bot)",
and ". (" read oddly), and `resume` said again, move by move, a hand that was over
before the player left."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cli(*argv: str) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), MILLEBORNES_DELAY="0")
    return subprocess.Popen([sys.executable, "-m", "cli", *argv], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env=env)


def _until_then_quit(proc: subprocess.Popen[str], mark: str, answer: str) -> str:
    """The lines ``proc`` says up to one holding ``mark``, then ``answer`` typed; all it
    said."""
    assert proc.stdin is not None and proc.stdout is not None
    out: list[str] = []
    for line in proc.stdout:
        out.append(line)
        if mark in line:
            break
    rest, err = proc.communicate(answer, timeout=60)
    assert "Traceback" not in err, err
    return "".join(out) + rest


# ----- 1. resume: a hand over before the player left is said by its result ----------------


def test_resume_says_a_finished_hand_by_its_result_and_the_match_so_far(
        tmp_path: Path) -> None:
    """`resume` of a game left in hand 2: hand 1's deal and its 130 moves, every one seen
    already, came again before the hand the player had left; the match's totals did not
    come at all."""
    data = str(tmp_path)
    played = _until_then_quit(_cli("play", "--auto", "--plain", "--seed", "7",
                                   "--data-dir", data), "Hand 2", "quit\ny\n")
    assert "Hand 1 over" in played, played[-2000:]
    short = played.split("millebornes resume ", 1)[1].split()[0]
    started = time.monotonic()
    said = _until_then_quit(_cli("resume", short, "--data-dir", data, "--plain"),
                            "Your turn", "quit\ny\n")
    assert time.monotonic() - started < 30
    flat = " ".join(said.split())
    past = flat.split("Hand 1 over", 1)
    assert len(past) == 2, flat[:3000]
    # nothing of hand 1 but its end: no deal, no move
    assert "Hand 1:" not in past[0] and not re.search(
        r"\* (You|Bo) (drew|played|discarded|let)", past[0]), past[0]
    # where the match stands, right after
    assert re.search(r"The match so far \(1 hand played, to 5000 points\): You \d+, "
                     r"Bo \d+\.", past[1]), past[1][:600]
    # the hand left is said as before, up to the line where the new moves start
    assert "Hand 2: the cards are dealt" in past[1]
    assert "You are back at the table" in past[1]
