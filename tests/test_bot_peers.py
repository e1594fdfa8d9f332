"""The bots of ``millebornes play`` are peers in child processes (cli/bot_peers.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from cli.play import LoopbackTable
from engine import Seating, preset


def _table(tmp_path: Path) -> LoopbackTable:
    return LoopbackTable(preset("classic"), Seating.solo(3), ["Ana", "Bo", "Cy"], seed=5,
                         base=tmp_path)


def test_bots_are_peers_in_their_own_processes_and_a_pause_stops_them(tmp_path: Path) -> None:
    """Each bot's peer runs in its own process (its own interpreter lock), ignores the
    Ctrl-C the terminal sends to the whole process group, and leaves with its player,
    keeping its store for `millebornes resume`."""
    table = _table(tmp_path)
    procs = list(table.bots.procs.values())
    try:
        assert len(procs) == 2
        assert all(p.is_alive() and p.pid not in (None, os.getpid()) for p in procs)
        assert table.peer.view() is not None        # the bots dealt a hand with this seat
        pid = procs[0].pid
        assert pid is not None
        os.kill(pid, signal.SIGINT)
        time.sleep(0.5)
        assert procs[0].is_alive()
    finally:
        table.close()                                # a pause in the middle of hand 1
        table.peer.close(flush=0.2)
    assert not any(p.is_alive() for p in procs)
    assert sorted(d.name for d in tmp_path.glob("bot-*")) == ["bot-1", "bot-2"]
    assert all(any(d.glob("*/transcript.mbt")) for d in tmp_path.glob("bot-*"))


_PLAYER = """
import sys, time
from cli.play import LoopbackTable
from engine import Seating, preset
t = LoopbackTable(preset("classic"), Seating.solo(3), ["Ana", "Bo", "Cy"], seed=5,
                  base=sys.argv[1])
print(*[p.pid for p in t.bots.procs.values()], flush=True)
time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"   # a zombie has exited
    except FileNotFoundError:
        return False


def test_bots_leave_when_their_player_is_killed(tmp_path: Path) -> None:
    """A player's process killed with -9 says nothing to its bots: they must notice and
    leave, not play on as orphans."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    player = subprocess.Popen([sys.executable, "-c", _PLAYER, str(tmp_path)], env=env,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert player.stdout is not None
        pids = [int(x) for x in player.stdout.readline().split()]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
        player.kill()
        player.wait(10)
        deadline = time.monotonic() + 15
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(p) for p in pids)
    finally:
        player.kill()


def test_a_bot_that_thinks_in_its_own_process_can_sit_at_a_loopback_table(
        tmp_path: Path) -> None:
    """Hostile review: the bots' peers were daemon processes, and a daemon may not start a
    process, so every bot that thinks in a process of its own (the search bot behind
    ``hard`` and ``expert``, any plug-in) failed to start: the player read "Bo is
    unresponsive" twenty seconds later. The peer processes are no daemons now (an exit
    handler stops any left over)."""
    table = LoopbackTable(preset("modern"), Seating.solo(2), ["Ana", "Bo"], seed=5,
                          base=tmp_path, bot_specs=["search:playouts=20"])
    procs = list(table.bots.procs.values())
    try:
        assert table.peer.view() is not None         # the search bot's peer dealt a hand
    finally:
        table.close()
        table.peer.close(flush=0.2)
    assert not any(p.is_alive() for p in procs)
