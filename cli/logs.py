"""Logging: always to a file in the data folder, on the terminal only with ``--verbose``.

Library warnings (a dropped frame, a slow peer) must never write over the full-screen
console; they are kept in ``millebornes.log`` for whoever investigates.
"""

from __future__ import annotations

import argparse
import errno
import io
import logging
import logging.handlers
import os
import stat
import sys
from pathlib import Path

from engine.bot_guard import keep_descriptor
from engine.bot_process import own_loggers_back
from p2p.table.store import default_data_dir

LOG_NAME = "millebornes.log"


class _LogFile(logging.handlers.RotatingFileHandler):
    """The rotated log, opened only as a regular file of its own: a named pipe under its
    name held every verb at the open for ever (before anything was said), and a symbolic
    link made the log append to, and chmod, whatever file it pointed at."""

    def _open(self) -> io.TextIOWrapper:
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
                     | os.O_NONBLOCK | os.O_CLOEXEC, 0o600)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(errno.EINVAL, "not a regular file", self.baseFilename)
            os.set_blocking(fd, True)
            os.fchmod(fd, 0o600)
            stream = open(fd, "a", encoding=self.encoding, errors=self.errors)  # noqa: SIM115
        except BaseException:
            os.close(fd)
            raise
        # a bot that closes it (in simulate, in a tournament's worker) has it put back
        # (the one kept before, set aside as this one was opened, is let go)
        keep_descriptor(fd, "the log", lambda: self._holds(stream, fd))
        return stream

    def _holds(self, stream: io.TextIOWrapper, fd: int) -> bool:
        """Whether this handler still writes to ``stream`` on ``fd`` (not when a bot
        closed the handler, ``logging.basicConfig(force=True)``: no fault of its)."""
        return self.stream is stream and not stream.closed and stream.fileno() == fd

    def doRollover(self) -> None:
        """The log set aside as ``millebornes.log.1``, or, when it cannot be (a folder
        another program made under that name, a file that cannot be removed), started
        afresh: it stays bounded either way (hostile pass 22)."""
        try:
            super().doRollover()
        except OSError:
            if self.stream is None:
                self.stream = self._open()
            self.stream.truncate(0)

    def handleError(self, record: logging.LogRecord) -> None:
        """A record this file cannot take (a disk that is full, a log that cannot be
        opened again) is lost without a word: Python's logging printed "--- Logging
        error ---" and a traceback on stderr for each one, over a game's full screen
        (hostile pass 22). Any other fault (a record made badly) is said as Python
        says it."""
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handleError(record)


#: The handlers :func:`setup_logging` put on the root logger (see :func:`keep_log`).
_OURS: list[logging.Handler] = []


def keep_log() -> None:
    """Put this program's log back as :func:`setup_logging` left it, after a plug-in's
    code ran here: a bot's ``logging.basicConfig(force=True)`` removed (and closed) the
    handlers of the root logger, and a bot's fault, whose whole reason is said in
    ``millebornes.log``, was never written there; its ``logging.disable(...)`` (its
    libraries quieted) dropped every record after it; and the program's own loggers
    (:func:`engine.bot_process.own_loggers_back`). The bot's own handlers stay."""
    own_loggers_back()
    if logging.root.manager.disable:
        logging.disable(logging.NOTSET)
    root = logging.getLogger()
    for handler in _OURS:
        if handler not in root.handlers:
            root.addHandler(handler)
        if handler.level != logging.NOTSET:       # a bot's loop over the root's handlers
            handler.setLevel(logging.NOTSET)
    if _OURS and root.level != logging.INFO:
        root.setLevel(logging.INFO)


def log_path(args: argparse.Namespace) -> Path:
    base = getattr(args, "data_dir", None)
    return (Path(base) if base else default_data_dir()) / LOG_NAME


def setup_logging(args: argparse.Namespace) -> Path | None:
    """Route every log record to the data folder's log file (rotated at 1 MB); with
    ``--verbose`` to stderr too. Returns the file, or None if it cannot be written."""
    root = logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "_millebornes", False):
            root.removeHandler(h)
            h.close()
    root.setLevel(logging.INFO)
    path: Path | None = log_path(args)
    assert path is not None
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handler: logging.Handler = _LogFile(path, maxBytes=1_000_000, backupCount=1,
                                            encoding="utf-8")
    except OSError:
        handler, path = logging.NullHandler(), None
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    handler._millebornes = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    if getattr(args, "verbose", False):
        term = logging.StreamHandler()
        term.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        term._millebornes = True  # type: ignore[attr-defined]
        root.addHandler(term)
    _OURS[:] = [h for h in root.handlers if getattr(h, "_millebornes", False)]
    # Python's last-resort handler writes warnings to stderr when no handler exists;
    # with ours installed nothing reaches the terminal unless --verbose asked for it.
    logging.lastResort = None
    return path
