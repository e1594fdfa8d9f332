"""Helpers for testing bots, shipped with the package (as ``trio.testing`` is): a plug-in
bot's author, and this project's tests, install a bot the way ``pip install`` leaves one
on ``sys.path`` without building a wheel."""

from __future__ import annotations

import importlib
import os
import re
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path

from .bots import ENTRY_POINT_GROUP

__all__ = ["install_plugin"]


def install_plugin(directory: str | os.PathLike[str], module: str, source: str,
                   factories: Mapping[str, str]) -> Path:
    """Write ``module``.py (``source``, dedented) and a ``.dist-info`` beside it whose
    entry points put each bot name of ``factories`` in the ``millebornes.bots`` group,
    mapped to a factory of that module (``{"mybot": "make"}``) or, with a colon, of
    another (``{"broken": "nowhere:make"}``). Once ``directory`` is on ``sys.path``
    (``monkeypatch.syspath_prepend``, or ``PYTHONPATH`` for a child process) every
    command offers the bots by name, as after ``pip install``. ``directory`` is a path or
    a folder's name; called again for the same module (the bot edited), it writes the
    new source and entry points over the old, as ``pip install`` of a new version does
    (a second call raised FileExistsError, and a folder given as a string TypeError);
    the module is forgotten if it was imported, so that the next bot made is the new one.
    Returns the dist-info."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", module):
        raise ValueError(f"not a module name: {module!r}")
    directory = Path(directory)
    (directory / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    for cached in (directory / "__pycache__").glob(f"{module}.*.pyc"):
        cached.unlink()    # an edit of the same size within a second read as unchanged
    project = module.replace("_", "-")
    dist = directory / f"{module}-1.0.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project}\nVersion: 1.0\n", encoding="utf-8")
    lines = [f"[{ENTRY_POINT_GROUP}]"]
    for name, factory in factories.items():
        target = factory if ":" in factory else f"{module}:{factory}"
        lines.append(f"{name} = {target}")
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    # the next import reads the new source: a process that had made the bot (a test
    # session) kept the module imported, and made the old bot after an edit, unsaid
    sys.modules.pop(module, None)
    importlib.invalidate_caches()
    return dist
