"""The exit's watchdog (``cli.main.console_script``): when the normal exit takes longer
than its grace, the program ends anyway and says why in words that fit what held it.

Plug-ins pass 13 found an exit handler a bot registered (``atexit``) that never returns:
the watchdog ended the program after its grace but said "(a thread left running, by a
bot perhaps, was stopped at the exit: ?)" — no thread was left running, and "?" named
nothing. An exit handler holding the exit is said as such."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.testing import install_plugin

ROOT = Path(__file__).resolve().parents[1]

PLUGIN = """
    import atexit, time
    from engine import HeuristicBot

    def _stall():
        time.sleep(3600)

    atexit.register(_stall)

    def make(seed=0):
        return HeuristicBot(seed)
"""


@pytest.mark.slow    # 9 s: a match, then the exit's 3 s grace
def test_an_exit_handler_that_never_returns_is_said_as_one(tmp_path: Path) -> None:
    install_plugin(tmp_path, "mb_exitstall", PLUGIN, {"exitstall": "make"})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    start = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "cli.main", "simulate", "--bots",
                        "exitstall,heuristic", "--games", "1", "--seed", "3"],
                       capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=90)
    took = time.monotonic() - start
    assert r.returncode == 0, r.stderr[-2000:]
    assert "1 match," in r.stdout, r.stdout
    assert took < 60, took                       # the grace, not the handler's hour
    assert "thread left running" not in r.stderr, r.stderr
    assert ": ?)" not in r.stderr, r.stderr
    assert ("(the program's exit waited over 3 s on an exit handler, by a bot perhaps: "
            "ended without it)") in r.stderr.replace("\n", " "), r.stderr
    assert "Traceback" not in r.stderr
