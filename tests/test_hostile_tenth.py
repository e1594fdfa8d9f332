"""Tenth hostile pass (2026-12-06): hostile input at the lobby's prompt, a hostile flood of
zeroconf names, hostile files for ``resume``, ``verify`` and ``games``. What must hold: an
honest player is never blamed; no input stops a peer (no traceback, no unbounded wait, no
unbounded memory); a first-time player never wonders what happened.

Findings (each test here failed before its fix):

* ``millebornes lobby`` read what is typed on a thread iterating over ``sys.stdin``: one
  byte that is not UTF-8, typed or pasted where the locale decodes stdin strictly (the
  usual ``LANG=en_US.UTF-8``), ended the thread without a word, and q and Enter no longer
  left the list (only Ctrl-C did); Ctrl-D ended it the same way. It reads the terminal's
  bytes now (``cli.plain.LineReader``: decoded with replacement, lines bounded), and the
  end of input (Ctrl-D, a terminal gone) leaves the list.
"""

from __future__ import annotations

import argparse
import io
import os
import threading
import time

from cli import lobby


def _lobby_typing(chunks: list[bytes], seconds: float = 8.0,
                  errors: str = "strict", close: bool = False) -> tuple[int, float, str]:
    """``millebornes lobby`` for ``seconds`` on loopback, its terminal a pipe decoded as a
    UTF-8 locale does (``errors``): ``chunks`` typed half a second apart, then the pipe
    closed when ``close``. (return code, seconds it ran, what it said)."""
    r, w = os.pipe()
    inp = io.TextIOWrapper(io.FileIO(r, "r"), encoding="utf-8", errors=errors)
    out = io.StringIO()

    def typing() -> None:
        for chunk in chunks:
            time.sleep(0.5)
            os.write(w, chunk)
        if close:
            os.close(w)

    th = threading.Thread(target=typing, daemon=True)
    th.start()
    started = time.monotonic()
    try:
        rc = lobby.run(argparse.Namespace(seconds=seconds, mdns="loopback"), out=out, inp=inp)
    finally:
        th.join(10)
        if not close:
            os.close(w)
        inp.close()
    return rc, time.monotonic() - started, " ".join(out.getvalue().split())


def test_a_byte_that_is_not_utf8_typed_in_the_lobby_leaves_q_working() -> None:
    """A pasted byte that is not UTF-8 (a terminal in Latin-1, a binary paste) killed the
    lobby's input thread where stdin is decoded strictly: the line was never answered and q
    never left the list (it ran its whole 8 s)."""
    rc, took, said = _lobby_typing([b"\xe9t\xe9 \xff\xfe\x00\x1b[2J\n", b"q\n"])
    assert rc == 0
    assert took < 5, (took, said)                       # left at q, not at the 8 s
    assert said.count("This list only shows the tables") == 1, said


def test_ctrl_d_in_the_lobby_leaves_it() -> None:
    """The end of input (Ctrl-D, or a terminal gone) ended the reading thread for good: q
    was never read again and the list ran on until Ctrl-C (here its whole 8 s)."""
    rc, took, said = _lobby_typing([b"join\n"], close=True)
    assert rc == 0
    assert took < 5, (took, said)
    assert said.count("This list only shows the tables") == 1, said


def test_a_10_mb_line_in_the_lobby_is_answered_once_and_q_still_leaves() -> None:
    """A line of 10 MB with no newline until its end, then q: bounded (cut at a command's
    worth), answered once, and q leaves."""
    rc, took, said = _lobby_typing([b"x" * (10 << 20) + b"\n", b"q\n"], errors="strict")
    assert rc == 0
    assert took < 6, (took, said)
    assert said.count("This list only shows the tables") == 1, said
