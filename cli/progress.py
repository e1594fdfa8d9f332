"""The progress line of ``simulate`` and ``tournament``: one place for both (each wrote its
own, and only one fitted a narrow terminal)."""

from __future__ import annotations

import sys
import time
from typing import Any

from . import i18n
from .i18n import _


class Progress:
    """A progress line on a terminal's standard error, redrawn at most four times a
    second: 20 matches of the hard bots took a minute with nothing on the screen, and a
    newcomer could not tell a slow run from a stuck one. On a stream that is no terminal
    (a log, a pipe), nothing, or with ``log`` one line at each tenth of the run (a
    tournament's log shows how far it got). Drawn at once (0 matches, "the first is
    being played": the tournament said nothing until its first match ended, 8 s and
    more with the hard bots, and "~0 s left" at 0 is no estimate)."""

    EVERY = 0.25

    def __init__(self, total: int, stream: Any = None, log: bool = False) -> None:
        self.total = max(1, total)
        self.stream = stream if stream is not None else sys.stderr
        try:
            self.tty = bool(self.stream.isatty())
        except (AttributeError, ValueError, OSError):
            self.tty = False
        self.shown = self.tty or log
        self.started = time.monotonic()
        self.drawn_at = -1.0
        self.drawn = False
        self.width = 0                   # the cells of the line drawn last
        self.logged = -1                 # the last tenth logged (not a terminal)
        self.tick(0)

    def line(self, done: int) -> str:
        elapsed = time.monotonic() - self.started
        if done:
            left = elapsed / done * (self.total - done)
            text = _("%(done)d/%(total)d matches %(elapsed)d s elapsed, ~%(left)d s left") % {
                "done": done, "total": self.total, "elapsed": round(elapsed),
                "left": round(left)}
        else:
            text = _("0/%(total)d matches: the first is being played") % {"total": self.total}
        if not self.tty:
            return i18n.display(text)
        # the bar gives way on a narrow terminal: a line wider than it is redrawn on a
        # new line at every match
        width = max(0, min(30, i18n.terminal_width(self.stream) - i18n.cells(text) - 5))
        filled = width * done // self.total
        bar = f"[{'#' * filled}{'.' * (width - filled)}] " if width >= 5 else ""
        return bar + i18n.display(text)

    def tick(self, done: int) -> None:
        """``done`` matches of the run played: the line redrawn (at most every
        :attr:`EVERY` s, and always at the last), or logged at each tenth."""
        if not self.shown:
            return
        if not self.tty:
            tenth = done * 10 // self.total
            if tenth != self.logged:
                self.logged = tenth
                self._write(self.line(done) + "\n")
            return
        now = time.monotonic()
        if now - self.drawn_at < self.EVERY and done < self.total:
            return
        self.drawn_at = now
        line = self.line(done)
        # spaces over what a longer line before it left: "0/40 matches: the first is
        # being played" redrawn as "4/40 matches 7 s elapsed, ~61 s left" left its "ed"
        cells = i18n.cells(line)
        self._write("\r" + line + " " * (max(0, self.width - cells) + 1))
        self.width = cells
        self.drawn = True

    def close(self) -> None:
        """The line ended: what follows (the report, a fault, Ctrl-C's words) starts on a
        line of its own."""
        if self.drawn:
            self._write("\n")
            self.drawn = False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.shown = False
