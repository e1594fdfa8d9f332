"""An eleventh first-time player: a watcher's full screen behind a fast table moves on by
itself, a table of bots lists no pause keys, a bot's wait says its limit at once, a help
frame of a sensible size on a large terminal, score tables at 40 columns, and the teams
line kept whatever the names."""

from __future__ import annotations

import argparse
import io
import os
import re
import shlex
import threading
import time
from pathlib import Path

import pytest
from cli_helpers import SizedOutput, free_port, start_joiner, wait_into_first_hand
from prompt_toolkit.input import create_pipe_input

from cli import i18n
from cli.app import TableApp
from cli.driver import LocalDriver
from engine import Seating, preset

ROOT = Path(__file__).resolve().parent.parent
LANGS = ["en", "fr", "sv", "af", "ug", "vi"]


def said(out: io.StringIO) -> str:
    return " ".join(out.getvalue().split())


def until_said(out: io.StringIO, text: str, timeout: float = 60.0) -> str:
    end = time.monotonic() + timeout
    while text not in said(out) and time.monotonic() < end:
        time.sleep(0.05)
    assert text in said(out), out.getvalue()[-6000:]
    return said(out)


# ----- 1. a watcher behind the table is not held at each hand's scores ---------------------

def _header_hand(screen: str) -> int | None:
    m = re.search(r"Mille Bornes · \w+ · hand (\d+)", screen)
    return int(m[1]) if m else None


@pytest.mark.slow    # a networked match, a player away, a bot by agreement (~40 s)
def test_a_watcher_behind_the_table_moves_on_by_itself_in_the_full_screen(
        tmp_path: Path) -> None:
    """Ben left; a bot took his seat by agreement and the table played on at the bots'
    pace. Ben's full screen (resume) held each hand's scores until Enter: "Hand 2 over.
    Press Enter for hand 3." stood while the table was hands ahead, and he pressed Enter
    once per hand to catch up (the line mode moves on by itself). It now moves on by
    itself, and says so."""
    from test_cli_tmux import TMUX, _command, _tmux

    from cli import host as host_verb

    if TMUX is None:
        pytest.skip("tmux is not installed")
    hport, jport = free_port(), free_port()
    ann_out = io.StringIO()
    ann_r, ann_w = os.pipe()
    args = argparse.Namespace(name="Ann", bots=0, players=2, rules="classic",
                              option=["match_target=15000"], bind="127.0.0.1", port=hport,
                              no_announce=True, data_dir=str(tmp_path / "h"),
                              identity=str(tmp_path / "h.key"), auto=True)

    def host() -> None:
        with os.fdopen(ann_r) as inp:
            host_verb.run(args, out=ann_out, inp=inp)

    ann = threading.Thread(target=host, daemon=True)
    ann.start()
    jdir, jkey = tmp_path / "j", tmp_path / "j.key"
    ben = start_joiner(hport, jport, jdir, jkey)
    session = f"mb-watch-{os.getpid()}"
    try:
        wait_into_first_hand(jdir)
        ben.kill()
        ben.wait(10)
        until_said(ann_out, "type bot")
        os.write(ann_w, b"bot\n")
        until_said(ann_out, "Hand 2: the cards are dealt")    # the table goes on
        exports = f"MILLEBORNES_DELAY=0 TERM=xterm-256color XDG_DATA_HOME={shlex.quote(str(tmp_path))}"
        shell = (f"cd {shlex.quote(str(ROOT))} && env {exports} "
                 f"{_command('resume', '--data-dir', str(jdir), '--identity', str(jkey), '--peer', f'127.0.0.1:{hport}')}"
                 "; echo EXITED $?; sleep 60")
        started = _tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24", shell)
        if started.returncode != 0:
            pytest.skip(f"tmux cannot start a session: {started.stderr.strip()}")
        seen: list[int] = []
        screens: list[str] = []
        said_behind = False
        end = time.monotonic() + 90
        while time.monotonic() < end:
            screen = _tmux("capture-pane", "-p", "-t", session).stdout
            assert "Traceback" not in screen, screen
            said_behind |= "the table is already on hand" in " ".join(screen.split())
            hand = _header_hand(screen)
            if hand is not None and (not seen or seen[-1] != hand):
                seen.append(hand)
                screens.append(screen)
            if len(seen) >= 3 or "Match over" in screen or "EXITED" in screen:
                break
            time.sleep(0.1)
        # no key was pressed: the screen went from hand to hand by itself
        assert len(seen) >= 3 or "Match over" in screen, (seen, screen)
        assert seen == sorted(seen), seen
        assert said_behind, screens
    finally:
        _tmux("kill-session", "-t", session)
        os.close(ann_w)
        ann.join(90)
