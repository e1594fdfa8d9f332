"""``resume`` of a game whose local bot's copy is damaged: the bot's damage is said on the
terminal (it was only in millebornes.log), the seat is not said as a player who left
("wait for them (millebornes resume)"), and under ``--auto`` the table does not wait
without end: a new bot is asked for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def cli(home: Path, *argv: str, stdin: str = "", timeout: float = 120) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(home), LANGUAGE="en",
               LC_ALL="C.UTF-8", XDG_CONFIG_HOME=str(home / ".config"))
    proc = subprocess.run([sys.executable, "-m", "cli", *argv], env=env, input=stdin,
                          capture_output=True, text=True, timeout=timeout)
    return proc.stdout + proc.stderr


@pytest.mark.slow    # a networked game against a bot, then a resume to the match's end
def test_a_damaged_local_bot_is_said_and_auto_asks_for_a_new_bot(tmp_path: Path) -> None:
    data = tmp_path / "dd"
    (tmp_path / "home").mkdir()
    cli(tmp_path / "home", "play", "--plain", "--data-dir", str(data), stdin="q\ny\n")
    secrets = list(data.glob("bot-1/*/secrets.log"))
    assert secrets, list(data.rglob("*"))
    secrets[0].unlink()
    game = secrets[0].parent.name[:8]
    out = cli(tmp_path / "home", "resume", "--plain", "--auto", game, "--data-dir",
              str(data))
    said = " ".join(out.split())
    assert "The bot at seat 1 could not be resumed on this computer: this computer's copy " \
           f"of game {game} is damaged (secrets.log" in said, out[-3000:]
    assert "Bo, a bot of this computer, cannot come back" in said, out[-3000:]
    assert "for them to type millebornes resume" not in said
    assert "Bo's seat is played by a bot run by" in said, out[-3000:]
    assert "Traceback" not in out
