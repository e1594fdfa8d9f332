"""Shared test setup: no test writes into the real home directory, and none reads the
tester's own language or settings.

Identities (``$XDG_CONFIG_HOME/millebornes``) and game logs (``$XDG_DATA_HOME/millebornes``)
go to a temporary directory for the whole run, subprocesses included (they inherit it).
The locale variables say English (``C.UTF-8``) and the game's own variables (a config file,
a delay, plain mode, no colour) are unset: with ``LANG=fr_FR.UTF-8`` in the tester's shell,
every test that reads a report in English failed (``main`` speaks the locale's language).
A test that wants a language or a setting says so itself.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator

import pytest

#: Set for the whole run (the XDG folders are set to temporary ones below).
_SET = {"LANG": "C.UTF-8"}
#: Unset for the whole run: the other locale variables, which gettext reads before LANG,
#: and what the game reads from its environment.
_UNSET = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "MILLEBORNES_CONFIG", "MILLEBORNES_DELAY",
          "MILLEBORNES_PLAIN", "NO_COLOR")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """How many pytest-xdist workers ``-n auto`` (pyproject's addopts) starts: two for the
    whole suite (no path named: the README's test command), the cores its ten-minute budget
    is set for; most tests wait on sockets, subprocesses and timers, so two workers took
    314 s where one took 563 s. None (every test in this process, as ``-n 0`` says) where
    the command names files or tests (one test, a debugger, a suite of someone else's run
    against this tree, which may not expect to share the machine with itself), on a
    one-core machine, or where the run selects benchmarks (pytest-benchmark times nothing
    under xdist)."""
    marks = config.getoption("markexpr") or ""
    if (config.args_source != pytest.Config.ArgsSource.TESTPATHS
            or (os.cpu_count() or 1) < 2 or re.search(r"(?<!not )\bbench\b", marks)):
        return 0
    return 2


@pytest.fixture(autouse=True, scope="session")
def _private_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    base = tmp_path_factory.mktemp("home")
    names = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", *_SET, *_UNSET)
    saved = {k: os.environ.get(k) for k in names}
    os.environ["XDG_CONFIG_HOME"] = str(base / "config")
    os.environ["XDG_DATA_HOME"] = str(base / "data")
    os.environ.update(_SET)
    for k in _UNSET:
        os.environ.pop(k, None)
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(autouse=True)
def keep_language() -> Iterator[None]:
    """``main`` activates the language it is given: the test run's is put back after
    every test (it was a module's choice, and a French test leaked its language into the
    lobby tests after it in one worker: 17 of them read French, a run of a few files)."""
    from cli import i18n

    before = i18n.active()
    yield
    i18n.activate(before)


@pytest.fixture
def namespaces() -> Iterator[list[str]]:
    """Names of the network namespaces a test made (the root-only suites add each one it
    creates); all deleted afterwards, whatever the test did."""
    made: list[str] = []
    try:
        yield made
    finally:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
