"""A first-time player's line mode (``--plain``) at a real network table, driven through
pipes: what is typed while another player has the turn is answered at once (look, help)
or refused in words (a move), never kept and played later against a changed hand; the
line mode says whose turn it is when the turn passes, with the limit on that move."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from cli_helpers import free_port

ROOT = Path(__file__).resolve().parent.parent


class Player:
    """A ``millebornes`` process in line mode, its stdin and stdout pipes; what it says is
    collected by a thread (so its pipe never fills)."""

    def __init__(self, argv: list[str], home: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(home), COLUMNS="80",
                   LANGUAGE="en", LC_ALL="C.UTF-8", PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen([sys.executable, "-m", "cli", *argv], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.text = ""
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._lock:
                self.text += line

    def said(self) -> str:
        with self._lock:
            return " ".join(self.text.split())     # lines wrapped at 80 columns, joined

    def type(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, pattern: str, count: int = 1, timeout: float = 60.0) -> str:
        """Wait until ``pattern`` (a regular expression) was said ``count`` times."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            text = self.said()
            if len(re.findall(pattern, text)) >= count:
                return text
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"never said {pattern!r} x{count}:\n{self.text[-3000:]}")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


YOUR_TURN = r"Your turn: play or discard a card \(play N, discard N\)\."


@contextlib.contextmanager
def ann_hosts_and_bea_joins(tmp_path: Path, players: int) -> Iterator[tuple[Player, Player]]:
    """Ann hosts a table of ``players`` seats on 127.0.0.1 (not announced) in line mode,
    and Bea joins it by address once Ann says how others join; both closed afterwards."""
    port = free_port()
    ann = Player(["host", "--plain", "--name", "Ann", "--bind", "127.0.0.1", "--port",
                  str(port), "--no-announce", "--players", str(players), "--data-dir",
                  str(tmp_path / "a"), "--identity", str(tmp_path / "a.key")], tmp_path)
    bea: Player | None = None
    try:
        ann.until("others join with")
        bea = Player(["join", "--plain", "--name", "Bea", "--peer", f"127.0.0.1:{port}",
                      "--port", str(free_port()), "--data-dir", str(tmp_path / "b"),
                      "--identity", str(tmp_path / "b.key")], tmp_path)
        yield ann, bea
    finally:
        for p in (bea, ann):
            if p is not None:
                p.close()


def first_turn_to(bea: Player, ann: Player, timeout: float = 90.0) -> None:
    """Whoever has the first turn moves once if it is Ann, so that it is Bea's turn."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if re.search(YOUR_TURN, bea.said()):
            return
        if re.search(YOUR_TURN, ann.said()):
            ann.type("discard 1")
            bea.until(YOUR_TURN)
            return
        time.sleep(0.05)


def test_lines_typed_in_anothers_turn_are_answered_at_once_never_kept(tmp_path: Path) -> None:
    with ann_hosts_and_bea_joins(tmp_path, 2) as (ann, bea):
        # whoever has the first turn moves once, so that it is Bea's turn next, then Ann's
        first_turn_to(bea, ann)
        bea.until(YOUR_TURN)
        bea.type("discard 1")
        bea.until(r"\* You discarded")
        # Ann's turn now (she waits for the test): Bea is told so, with its limit
        said = bea.until(r"\* Ann's turn \(no time limit\)\.")
        # typed in Ann's turn: a move refused at once in words, help and look answered
        bea.type("discard 1")
        bea.until(r"Sorry: it is Ann's turn: wait for your turn\.")
        bea.type("help")
        bea.until(r"look \(or Enter\)")
        bea.type("")
        bea.until(r"Your hand:", count=2)
        assert len(re.findall(r"\* You discarded", bea.said())) == 1
        # Ann moves: Bea's turn comes, and the early "discard 1" was not played on it
        ann.until(YOUR_TURN)
        ann.type("discard 1")
        bea.until(YOUR_TURN, count=2)
        # a line typed now is read after any kept one: its answer shows that none ran
        bea.type("look")
        said = bea.until(r"Your hand:", count=4)
        assert len(re.findall(r"\* You discarded", said)) == 1, said[-2000:]
        assert "Traceback" not in said and "Traceback" not in ann.said()
        # each wait said once in the hand, with the table's step limit
        waits = [line for line in bea.text.splitlines() if line.startswith("* Waiting for")]
        assert len(waits) == len(set(waits)), waits
        assert all("(up to 20 s)" in w or "(no time limit)" in w for w in waits), waits
