"""Twelfth hostile pass (2026-12-06). What must hold: an honest player is never blamed;
no input stops a peer (no traceback, no unbounded wait, no unbounded memory); a
first-time player never wonders what happened.

Findings (each test here failed before its fix):

* ``millebornes lobby`` said "- 'x': ... (no longer listed: its match has begun, or its
  host closed the table)" for a table that came and went between two looks at the
  changes, one it had never listed: a machine announcing and withdrawing tables filled
  the screen with lines about tables nobody saw, each saying why it was no longer listed.
  A table never listed is taken off nothing now, and said nowhere.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import threading
import time
from collections.abc import Callable, Iterator

import pytest


def test_the_lobby_says_nothing_of_a_table_it_never_listed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cli import lobby as lobby_verb
    from p2p.net.discovery import TableChange, TableInfo

    def table(name: str) -> TableInfo:
        return TableInfo(f"{name}._millebornes._tcp.local.", name, "classic", 1, 3,
                         "S4SE5-YZL6Q" if name == "friend" else "27D3Q-R4U7Z", 4321,
                         ("10.0.0.7",))

    @contextlib.contextmanager
    def fake_browse(callback: Callable[..., None],
                    interfaces: object = None) -> Iterator[argparse.Namespace]:
        def flood() -> None:
            callback(TableChange.ADDED, table("friend"))
            for i in range(300):      # each one announced and withdrawn at once
                callback(TableChange.ADDED, table(f"ghost{i}"))
                callback(TableChange.REMOVED, table(f"ghost{i}"))
                time.sleep(0.002)
        th = threading.Thread(target=flood)
        th.start()
        yield argparse.Namespace(ignored=0)
        th.join()

    monkeypatch.setattr(lobby_verb, "browse_tables", fake_browse)
    out = io.StringIO()
    assert lobby_verb.run(argparse.Namespace(seconds=1.5, mdns="loopback"), out=out) == 0
    lines = out.getvalue().splitlines()
    assert any(line.startswith("+ 'friend'") for line in lines), lines[:5]
    assert not [line for line in lines if "ghost" in line or "no longer listed" in line], \
        [line for line in lines if "ghost" in line][:5]
