"""A player whose seat a bot played (``--auto``, ``--auto-bot SPEC``) is shown a resume
command that brings the bot back: the hint dropped it, and the player who typed it as shown
came back to a seat to play by hand."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _leave_early(tmp_path: Path, *flags: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT), MILLEBORNES_DELAY="0.3")
    proc = subprocess.Popen([sys.executable, "-m", "cli", "play", "--plain", "--seed", "4",
                             "--data-dir", str(tmp_path), *flags],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    assert proc.stdout is not None
    seen: list[str] = []
    for line in proc.stdout:
        seen.append(line)
        if line.startswith("Hand 1"):
            break
    rest, err = proc.communicate("quit\ny\n", timeout=60)
    text = "".join(seen) + rest
    assert "Traceback" not in text + err, text + err
    return text


@pytest.mark.parametrize(("flags", "expected"), [
    (("--auto-bot", "normal"), " --auto-bot normal"),
    (("--auto",), " --auto"),
])
def test_the_resume_hint_keeps_the_bot_that_played_the_seat(
        tmp_path: Path, flags: tuple[str, ...], expected: str) -> None:
    text = _leave_early(tmp_path, *flags)
    lines = text.splitlines()
    # (after the prompt "> " the answer y got)
    at = next(i for i, line in enumerate(lines)
              if line.endswith("You left; the game is saved. Come back to it with:"))
    command, nxt = _command_at(lines, at + 1)
    assert command.startswith("millebornes resume ") and command.endswith(
        f"--data-dir {tmp_path} --plain{expected}"), command
    # the verify line is not a console: no bot flag there
    check, _ = _command_at(lines, nxt + 2)     # under "Check it so far with:"
    assert check.startswith("millebornes verify ") and "--auto" not in check, check


def _command_at(lines: list[str], at: int) -> tuple[str, int]:
    """The command starting at line ``at`` (wrapped with a backslash at a narrow width)
    and the index of its last line."""
    parts = [lines[at].strip()]
    while parts[-1].endswith("\\"):
        at += 1
        parts[-1] = parts[-1][:-1].rstrip()
        parts.append(lines[at].strip())
    return " ".join(parts), at


def test_a_player_who_played_by_hand_gets_no_bot_in_the_hint(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), MILLEBORNES_DELAY="0")
    r = subprocess.run([sys.executable, "-m", "cli", "play", "--plain", "--seed", "4",
                        "--data-dir", str(tmp_path)], input="quit\ny\n", text=True,
                       capture_output=True, cwd=ROOT, env=env, timeout=60)
    assert "Come back to it with:" in r.stdout, r.stdout[-2000:]
    assert "--auto" not in r.stdout.split("Come back to it with:")[1], r.stdout[-800:]


@pytest.mark.parametrize(("flags", "bot"), [(("--auto-bot", "normal"), "normal"),
                                            (("--auto",), "")])
def test_resume_without_the_flag_says_a_bot_played_the_seat_and_how_to_let_it_on(
        tmp_path: Path, flags: tuple[str, ...], bot: str) -> None:
    """After a crash the player types `millebornes resume` (as `games` says it): the game a
    bot played for them came back as a seat to play by hand, without a word."""
    _leave_early(tmp_path, *flags)
    env = dict(os.environ, PYTHONPATH=str(ROOT), MILLEBORNES_DELAY="0")
    r = subprocess.run([sys.executable, "-m", "cli", "resume", "--plain", "--data-dir",
                        str(tmp_path)], input="quit\ny\n", text=True, capture_output=True,
                       cwd=ROOT, env=env, timeout=90)
    assert "Traceback" not in r.stdout + r.stderr, r.stdout + r.stderr
    said = " ".join(r.stdout.split())
    named = f"a bot ({bot}) played your seat" if bot else "a bot played your seat"
    assert f"When you left, {named}; now you play it yourself." in said, said[:1500]
    lines = r.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.endswith("come back with:"))
    command, _ = _command_at(lines, at + 1)
    assert command.startswith("millebornes resume ") and command.endswith(
        f"--data-dir {tmp_path} --plain" + (f" --auto-bot {bot}" if bot else " --auto")), \
        command


def _resume(tmp_path: Path, *flags: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT), MILLEBORNES_DELAY="0")
    r = subprocess.run([sys.executable, "-m", "cli", "resume", "--plain", "--data-dir",
                        str(tmp_path), *flags], input="quit\ny\n", text=True,
                       capture_output=True, cwd=ROOT, env=env, timeout=90)
    assert "Traceback" not in r.stdout + r.stderr, r.stdout + r.stderr
    return r.stdout


def test_resume_with_the_flag_says_nothing_of_it(tmp_path: Path) -> None:
    _leave_early(tmp_path, "--auto-bot", "normal")
    assert "When you left" not in _resume(tmp_path, "--auto-bot", "normal")


def test_a_seat_played_by_hand_is_said_nothing_of(tmp_path: Path) -> None:
    _leave_early(tmp_path)
    assert "When you left" not in _resume(tmp_path)


def test_the_store_keeps_how_the_last_resume_played(tmp_path: Path) -> None:
    """A game begun with --auto-bot and resumed by hand was said, after a second crash, to
    be a bot's again; and one begun by hand and resumed with a bot said nothing (the
    review)."""
    _leave_early(tmp_path, "--auto-bot", "normal")
    assert "When you left, a bot (normal)" in " ".join(_resume(tmp_path).split())
    assert "When you left" not in _resume(tmp_path)          # by hand, the last time
    _resume(tmp_path, "--auto")
    assert "When you left, a bot played your seat" in " ".join(_resume(tmp_path).split())


def test_a_bot_no_longer_to_be_had_is_said_and_the_built_in_one_offered(
        tmp_path: Path) -> None:
    """The plug-in that played the seat was uninstalled since: the command shown said
    --auto-bot mybot, which then failed with "there is no bot called 'mybot'" (the
    review)."""
    from p2p.table.store import Store

    _leave_early(tmp_path, "--auto-bot", "normal")
    table = next(p for p in tmp_path.iterdir() if p.is_dir() and len(p.name) == 32)
    store, _ = Store.open(table)
    store.set_extra("auto_bot", "nosuchbot")
    store.close()
    out = _resume(tmp_path)
    said = " ".join(out.split())
    assert "When you left, a bot (nosuchbot) played your seat; it cannot play now" in said, \
        said[:1500]
    assert "(unknown bot 'nosuchbot'" in said, said[:1500]
    lines = out.splitlines()
    at = next((i for i, line in enumerate(lines) if line.startswith("  millebornes resume")),
              None)
    assert at is not None, out[:1500]
    command, _ = _command_at(lines, at)
    assert command.endswith(f"--data-dir {tmp_path} --plain --auto"), command


@pytest.mark.parametrize("stored", ["heuristic:oops", "heuristic:seed=1", " "])
def test_a_stored_bot_that_is_no_bot_spec_does_not_stop_resume(
        tmp_path: Path, stored: str) -> None:
    """An edited or damaged store whose auto bot is no spec this program writes stopped
    every resume of the game with the bot's option error, naming no file (the second
    review): it is not offered, and the game resumes."""
    from p2p.table.store import Store

    _leave_early(tmp_path, "--auto-bot", "normal")
    table = next(p for p in tmp_path.iterdir() if p.is_dir() and len(p.name) == 32)
    store, _ = Store.open(table)
    store.set_extra("auto_bot", stored)
    store.close()
    out = _resume(tmp_path)
    assert "resumed" in out and "You left; the game is saved" in " ".join(out.split()), \
        out[:1500]


def _games(tmp_path: Path) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "cli", "games", "--data-dir", str(tmp_path)],
                       text=True, capture_output=True, cwd=ROOT, env=env, timeout=60)
    assert r.returncode == 0 and "Traceback" not in r.stdout + r.stderr, r.stdout + r.stderr
    return " ".join(r.stdout.split())


def test_games_says_which_games_a_bot_played_for_the_player(tmp_path: Path) -> None:
    """`games` listed a game a bot had played for the player (--auto, --auto-bot) as any
    other: the player learnt it only by resuming it. Said under the game, until the
    player resumes it by hand."""
    _leave_early(tmp_path / "bot", "--auto-bot", "normal")
    _leave_early(tmp_path / "auto", "--auto")
    assert "a bot (normal) played your seat" in _games(tmp_path / "bot")
    said = _games(tmp_path / "auto")
    assert "a bot played your seat" in said and "a bot (" not in said, said
    _resume(tmp_path / "bot")                                  # by hand this time
    assert "played your seat" not in _games(tmp_path / "bot")
