"""How the commands this program prints for the player to type name the program."""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import sys

NAME = "millebornes"


@functools.cache
def program_name() -> str:
    """``millebornes`` when that name finds this very program on the ``PATH``; else the
    path it was started as, absolute (and quoted for a shell). The README's quick start
    installs into ``.venv/bin``, which is not on the ``PATH``: a newcomer told "Come back
    to it with: millebornes resume 7a74f8f2" typed it and got "command not found".
    Started some other way (``python -m cli``, a test), ``millebornes`` as ever."""
    started = sys.argv[0] if sys.argv else ""
    if os.path.basename(started) != NAME:
        return NAME
    here = shutil.which(started) if os.sep not in started else started
    found = shutil.which(NAME)
    if found is not None and here is not None \
            and os.path.realpath(found) == os.path.realpath(here):
        return NAME
    return shlex.quote(os.path.abspath(here or started))


def as_typed(command: str) -> str:
    """``command`` ("millebornes resume 7a74f8f2") with the program named as
    :func:`program_name` says."""
    if command == NAME or command.startswith(NAME + " "):
        return program_name() + command[len(NAME):]
    return command
