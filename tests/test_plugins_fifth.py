"""Plug-in bots written from docs/bots.md alone by outside authors (fifth review of the
plug-ins): a bot that logs with ``logging`` at a networked table (its own process had no
log: every line was lost), one that logs without end there, and bots whose ``__del__``
prints at the full-screen table."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import millebornes_with_plugins

from engine import CLASSIC, Seating, apply_action, legal_actions, new_hand, view_of
from engine.bot_process import LOG_BYTES, BotProcess
from engine.testing import install_plugin

ROOT = Path(__file__).resolve().parent.parent
TMUX = shutil.which("tmux")

PLUGIN = '''
import logging
import os

log = logging.getLogger("mb_fifth.logger")


class Logs:
    """Says what it does with logging, as a careful author does."""

    def __init__(self, seed):
        log.warning("LOGGED made with seed %d", seed)

    def choose(self, view, legal):
        log.info("LOGGED chose among %d moves", len(legal))
        return legal[0]


class LogsWithoutEnd(Logs):
    """Logs a megabyte at each move (a debugging line left in a loop)."""

    def choose(self, view, legal):
        for i in range(1000):
            log.warning("FLOOD %d %s", i, "x" * 1000)
        return legal[0]


def make_logs(seed):
    return Logs(seed)


def make_floods(seed):
    return LogsWithoutEnd(seed)
'''


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    install_plugin(tmp_path, "mb_fifth", PLUGIN, {
        "vlogs": "make_logs", "vfloods": "make_floods"})
    return tmp_path


def _cli(plugin_dir: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return millebornes_with_plugins(plugin_dir, *argv)


def test_what_a_bot_logs_at_a_networked_table_is_in_the_log(plugins: Path) -> None:
    """At a networked table a plug-in thinks in a child process of its own, which had no
    log: what it said with ``logging`` (its making, its every move) was lost, where
    in ``simulate`` and at a table in this process it is in millebornes.log."""
    data = plugins / "table"
    res = _cli(plugins, "play", "--plain", "--auto", "--bots", "vlogs", "--seed", "3",
               "--rules", "modern", "--data-dir", str(data))
    assert res.returncode == 0, res.stderr
    assert "LOGGED" not in res.stdout + res.stderr
    log = (data / "millebornes.log").read_text(encoding="utf-8")
    assert "(bot vlogs, in its own process) LOGGED made with seed" in log, log
    assert "mb_fifth.logger INFO (bot vlogs, in its own process) LOGGED chose among" in log


def test_a_bot_that_logs_without_end_in_its_own_process_is_cut_short(
        plugins: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a bot in its own process logs is bounded (the parent rotates its log; the
    child never does), and the log says where it was cut."""
    monkeypatch.syspath_prepend(str(plugins))
    path = plugins / "bot.log"
    state = new_hand(CLASSIC, Seating.solo(2), list(CLASSIC.deck(Seating.solo(2))), 0)
    state = apply_action(state, legal_actions(state, 0)[0])      # drawn: now a play
    view, legal = view_of(state, 0), legal_actions(state, 0)
    bot = BotProcess("vfloods", 1, answer_within=20.0, log_path=str(path))
    try:
        for _ in range(2):
            assert bot.choose(view, legal) in legal
        assert not bot._broken
    finally:
        bot.close()
    text = path.read_text(encoding="utf-8")
    assert "FLOOD 0 x" in text
    assert len(text.encode()) <= LOG_BYTES + 1000
    assert text.rstrip().endswith(
        "bot vfloods logged more than 256 KB in its own process: the rest of its log is "
        "dropped"), text[-300:]
