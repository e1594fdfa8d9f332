"""Two players on one account who share a data folder are told at once (a second
``--identity`` without its own ``--data-dir``): they used to write the same table's folder,
the second to arrive stopped with "already holds this table" and the first found its copy
"damaged" on resume."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli import seats

HOLD = """
import sys, time
from pathlib import Path
from p2p.crypto.identity import Identity
from cli.seats import claim_data_folder
claim_data_folder(Identity.load_or_create(sys.argv[1]), Path(sys.argv[2]))
print("held", flush=True)
time.sleep(60)
"""


def _args(tmp: Path, key: str) -> argparse.Namespace:
    return argparse.Namespace(identity=str(tmp / key), data_dir=str(tmp / "data"))


def test_a_second_player_in_a_held_data_folder_is_told_at_once(tmp_path: Path) -> None:
    ann = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path / "ann.key"),
                            str(tmp_path / "data")], stdout=subprocess.PIPE, text=True,
                           cwd=Path(__file__).parent.parent)
    try:
        assert ann.stdout is not None and ann.stdout.readline().strip() == "held"
        with pytest.raises(ValueError) as err:
            seats.identity(_args(tmp_path, "ben.key"))
        text = str(err.value)
        assert "another player" in text and str(tmp_path / "data") in text
        assert "--data-dir" in text
        # Ann herself may run a second command from her folder (resume, games...)
        seats.identity(_args(tmp_path, "ann.key"))
        # and Ben with a folder of his own plays
        seats.identity(argparse.Namespace(identity=str(tmp_path / "ben.key"),
                                          data_dir=str(tmp_path / "ben")))
    finally:
        ann.kill()
        ann.wait()
    # once Ann has left, her lock file no longer stops anyone
    deadline = time.monotonic() + 5
    while True:
        try:
            seats.identity(_args(tmp_path, "cy.key"))
            break
        except ValueError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_a_named_pipe_under_a_lock_s_name_is_no_wait(tmp_path: Path) -> None:
    """A lock file is opened to be tested: a named pipe planted under a lock's name (or
    this player's own) must not hold the command at open() for ever."""
    import os
    import threading
    data = tmp_path / "data"
    data.mkdir()
    os.mkfifo(data / "player-AAAAA-BBBBB.lock")
    from p2p.crypto.identity import Identity, fingerprint
    me = Identity.load_or_create(tmp_path / "me.key")
    os.mkfifo(data / f"player-{fingerprint(me.public_key)}.lock")
    done: list[object] = []
    t = threading.Thread(target=lambda: done.append(
        seats.identity(argparse.Namespace(identity=str(tmp_path / "me.key"),
                                          data_dir=str(data)))), daemon=True)
    t.start()
    t.join(5)
    assert done, "identity() waited on a named pipe"
