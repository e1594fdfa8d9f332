"""The commands a game prints for the player to type name the program as the player's
shell will find it (cli/program.py)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from cli import program
from cli.words import Command, command_lines


def _as_the_shell_reads(lines: list[str]) -> list[str]:
    """The words a shell makes of ``lines`` pasted (continuations and quotes)."""
    out = subprocess.run(["sh", "-c", 'printf "%s\\n" ' + "\n".join(lines)],
                         capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def test_a_long_quoted_path_with_a_space_pastes_as_the_path(tmp_path: Path) -> None:
    """A command whose quoted word holds a space and is longer than a line: that word was
    cut at its own space (taken for an option and its value), a backslash and a newline
    put inside the quotes, and the shell read another path. Each piece is quoted now."""
    path = "/home/ann/My Games/a folder with a long name/game.mbt"
    command = f"millebornes verify {shlex.quote(path)}"
    for width in (30, 40, 60):
        assert _as_the_shell_reads(command_lines(command, width)) == [
            "millebornes", "verify", path], width


def _script(folder: Path) -> Path:
    folder.mkdir(parents=True)
    script = folder / "millebornes"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    return script


@pytest.fixture(autouse=True)
def _fresh() -> object:
    program.program_name.cache_clear()
    yield
    program.program_name.cache_clear()


def test_a_program_not_on_the_path_is_named_by_its_whole_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's quick start leaves the program in .venv/bin, off the PATH: "Come back
    to it with: millebornes resume ID" answered "command not found"."""
    script = _script(tmp_path / "my games" / ".venv" / "bin")
    monkeypatch.setattr(sys, "argv", [str(script), "play"])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    said = Command("millebornes resume 7a74f8f2")
    assert said == f"{shlex.quote(str(script))} resume 7a74f8f2"
    assert _as_the_shell_reads(command_lines(said, 40)) == [str(script), "resume", "7a74f8f2"]
    monkeypatch.setenv("PATH", f"{script.parent}:/usr/bin:/bin")
    program.program_name.cache_clear()
    assert Command("millebornes resume 7a74f8f2") == "millebornes resume 7a74f8f2"


def test_started_otherwise_the_program_is_millebornes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["/usr/lib/python3/site-packages/pytest/__main__.py"])
    assert Command("millebornes verify 7a") == "millebornes verify 7a"
    assert Command("not millebornes") == "not millebornes"


def test_a_game_left_says_the_command_to_come_back_with_the_programs_path(
        tmp_path: Path) -> None:
    """The installed program, started by its path with its folder off the PATH (as the
    README's quick start leaves it): the come-back command it prints is one the shell
    runs."""
    exe = Path(sys.executable).parent / "millebornes"
    if not exe.exists():
        pytest.skip("no installed millebornes script beside this Python")
    env = {**os.environ, "PATH": "/usr/bin:/bin", "MILLEBORNES_CONFIG": str(tmp_path / "none")}
    run = subprocess.run([str(exe), "play", "--plain", "--data-dir", str(tmp_path / "data")],
                         input="q\ny\n", capture_output=True, text=True, env=env, timeout=120,
                         cwd=tmp_path)
    said = run.stdout + run.stderr
    assert f"{exe} resume" in said, said[-2000:]
    assert "\n  millebornes resume" not in said, said[-2000:]


def test_the_empty_lobby_names_the_program_as_typed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`millebornes lobby` with no table said a bare "millebornes host opens one" where
    the program is .venv/bin/millebornes (newcomer pass 31's leftover)."""
    import contextlib
    import io

    from cli import lobby as lobby_verb
    from p2p.net import discovery

    class _Nothing:
        ignored = 0

        def wait_for(self, pred: object, timeout: float) -> list[object]:
            return []

    @contextlib.contextmanager
    def no_table(*args: object, **kw: object):  # type: ignore[no-untyped-def]
        yield _Nothing()

    script = _script(tmp_path / ".venv" / "bin")
    monkeypatch.setattr(sys, "argv", [str(script), "lobby"])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setattr(lobby_verb, "browse_tables", no_table)
    monkeypatch.setattr(discovery, "browse_tables", no_table)
    out = io.StringIO()
    import argparse
    assert lobby_verb.run(argparse.Namespace(seconds=0.6, mdns="loopback"), out=out) == 0
    # (a long path is wrapped at its slashes: compared without the line breaks)
    said = "".join(out.getvalue().split())
    assert f"{script}hostopensone" in said, said
