"""Plug-in bots written from docs/bots.md alone by outside authors (eighth review of the
plug-ins): a bot whose ``choose`` raises, in every command that runs it (the author
was told "raised KeyError: 5" and nothing of where in their code, nor at which decision:
the log, which "has the whole reason", said the same line)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_helpers import millebornes_with_plugins

from engine.testing import install_plugin

#: A bot that fails deep in its own code, at its third play: the line that raises is
#: the one marked.
DEEP = '''
class Deep:
    def __init__(self, seed):
        self.plays = 0

    def choose(self, view, legal):
        if view.phase == "play":
            self.plays += 1
            if self.plays == 3:
                return self.pick(view, legal)
        return legal[0]

    def pick(self, view, legal):
        best = {}
        return best[len(legal)]  # THE LINE THAT RAISES


def make(seed):
    return Deep(seed)
'''


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    install_plugin(tmp_path, "deepbot", DEEP, {"deep": "make"})
    return tmp_path


def _raising_line() -> int:
    return next(i for i, line in enumerate(DEEP.splitlines(), start=1)
                if "THE LINE THAT RAISES" in line)


@pytest.mark.parametrize("argv", [
    ("simulate", "--bots", "deep,heuristic", "--games", "2"),
    ("tournament", "--bots", "deep,heuristic", "--deals", "1", "--jobs", "1", "--quiet"),
    ("play", "--in-process", "--plain", "--auto", "--bots", "deep", "--seed", "3"),
], ids=["simulate", "tournament", "play-in-process"])
def test_a_bot_that_raises_is_told_where_in_its_code_and_at_which_decision(
        plugins: Path, argv: tuple[str, ...]) -> None:
    """The log names the bot, the decision (``view.phase``) and the file, line and
    function of its own code that raised, innermost last: the lines of the program that
    called the bot are left out."""
    done = millebornes_with_plugins(plugins, *argv)
    assert "KeyError" in done.stdout + done.stderr, done.stdout[-2000:] + done.stderr[-2000:]
    log = (plugins / "data" / "millebornes" / "millebornes.log").read_text(encoding="utf-8")
    where = [line for line in log.splitlines() if "in its code" in line]
    assert where, log[-3000:]
    line = where[0]
    assert "bot deep raised KeyError: " in line, line
    assert "view.phase 'play'" in line, line
    module = str(plugins / "deepbot.py")
    assert re.search(rf'File "{re.escape(module)}", line \d+, in choose; '
                     rf'File "{re.escape(module)}", line {_raising_line()}, in pick$', line), line
    assert "bot_limit" not in line and "bot_guard" not in line and "engine" not in line, line
