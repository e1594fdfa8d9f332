"""An eighth first-time player: what they typed is what the screen quotes back, and it
says what to type instead."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("lang, players, bots, said, example", [
    ("en", "4", "expert", "--players 4 and --bots expert disagree",
     "that is you and 3 bots, one level or spec each (e.g. --bots expert,expert,expert)"),
    ("en", "4", "2", "--players 4 and --bots 2 disagree",
     "that is you and 3 bots, one level or spec each (e.g. --bots easy,easy,easy)"),
    ("fr", "4", "expert", "--players 4 et --bots expert ne concordent pas",
     "--bots expert,expert,expert"),
    ("en", "2", "hard,easy", "--players 2 and --bots hard,easy disagree",
     "that is you and 1 bot, one level or spec (e.g. --bots hard)"),
])
def test_players_and_bots_quote_what_was_typed(lang: str, players: str, bots: str, said: str, example: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`play --players 4 --teams 2x2 --bots expert` said "--players 4 and --bots 1
    disagree: --bots counts the seats other than yours": the player never typed
    "--bots 1", and was not told what to type (the --teams sentence says it)."""
    assert main(["play", "--plain", "--lang", lang, "--players", players,
                 *(["--teams", "2x2"] if players == "4" else []), "--bots", bots]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert said in err, err
    assert "--bots 1 " not in err, err
    assert example in err, err


def test_plain_team_hand_counts_name_you_in_the_language(tmp_path: Path) -> None:
    """French line mode at 2x2 said "Vous & Cy, à jouer : 7 cartes (You), 6 cartes (Cy)":
    the English "You" in a French sentence, beside the "Vous" of the same line."""
    env = dict(os.environ, HOME=str(tmp_path), LANGUAGE="en", LC_ALL="C.UTF-8")
    env.pop("NO_COLOR", None)
    proc = subprocess.run(
        [sys.executable, "-m", "cli", "play", "--plain", "--lang", "fr", "--teams", "2x2",
         "--in-process", "--seed", "3", "--data-dir", str(tmp_path / "d")],
        cwd=ROOT, input="look\nquit\ny\n", capture_output=True, text=True, timeout=60, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    text = " ".join(proc.stdout.split())
    assert "Vous & Cy" in text, text
    assert "cartes (Vous)" in text or "carte (Vous)" in text, text
    assert "(You)" not in text, text
