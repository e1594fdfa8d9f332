"""Small files written whole: a game's metadata, the known players, a listing's memory,
the order of a hand on screen.

Another program may have left anything under a temporary file's name: a symbolic link
(written through, the file it named overwritten) or a named pipe (an ``open`` for writing
waits for a reader for ever: a match's start and a full screen were held so, hostile
pass 22). :func:`write_own` removes what is there and creates its own file.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["sync_folder", "write_own"]

_NEW_FILE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0))


def write_own(path: str | os.PathLike[str], data: bytes, *, mode: int = 0o600,
              sync: bool = False) -> None:
    """``data`` as the whole of ``path``, or nothing: written to a file of its own beside
    it (``NAME.tmpPID``, whatever was there removed first, then created new: O_EXCL, never
    through a link), which then takes ``path``'s place. ``sync``: on disk before it does,
    and the folder after (what a crash must not lose). Raises ``OSError``; the temporary
    file is not left behind."""
    target = Path(path)
    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, _NEW_FILE, mode)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    if sync:
        sync_folder(target.parent)


def sync_folder(folder: Path) -> None:
    """The folder's entries on disk (a rename is in the folder), where the system allows."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
