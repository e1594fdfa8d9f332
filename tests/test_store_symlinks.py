"""A game's own files replaced by symbolic links (hostile review of 2026-12-03, finding
7): ``resume`` appended to the files ``secrets.log`` and ``transcript.mbt`` pointed at
(a transcript elsewhere grew from 53 KB to 523 KB) and chmodded the secrets' target.
The store now opens its files without following links and refuses one in words naming
the file, as ``millebornes.log`` already did. Real links on a real disk."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from engine import Seating, preset
from p2p.table.memory import make_table
from p2p.table.store import Store, StoreDamaged
from p2p.transcript.file import NotRegularFile, open_own, read_transcript

NAMES = ["table.msgpack", "transcript.mbt", "secrets.log"]


def _saved(tmp_path: Path) -> tuple[Path, bytes]:
    cfg, ids = make_table(preset("classic", match_target=1), Seating.solo(2), ["ann", "bo"],
                          b"store-symlinks")
    store = Store.create(tmp_path / "data", cfg.header(), 0, port=1)
    store.close()
    return store.path, ids[0].public_key


@pytest.mark.parametrize("name", NAMES)
def test_a_store_file_that_is_a_symbolic_link_is_refused_and_its_target_untouched(
        tmp_path: Path, name: str) -> None:
    table, key = _saved(tmp_path)
    target = tmp_path / f"elsewhere-{name}"
    os.replace(table / name, target)
    target.chmod(0o644)
    before = target.read_bytes()
    (table / name).symlink_to(target)
    with pytest.raises(StoreDamaged) as err:
        Store.open(table, key)
    text = str(err.value)
    assert f"({name}: not a regular file (a symbolic link) where a file should be)" in text
    assert "\n" not in text and "local damage, nobody cheated" in text
    assert target.read_bytes() == before                         # nothing appended
    assert stat.S_IMODE(target.stat().st_mode) == 0o644          # nor chmodded
    assert not list(tmp_path.glob("elsewhere-*.torn")) and not list(table.glob("*.damaged"))


def test_a_dangling_link_for_the_secrets_creates_nothing_where_it_points(
        tmp_path: Path) -> None:
    """A missing secrets.log is a fresh one (a seat that dealt nothing yet); a link to a
    missing file is refused, never followed to create its target."""
    table, key = _saved(tmp_path)
    (table / "secrets.log").unlink()
    target = tmp_path / "nowhere" / ".." / "created-by-resume"
    (table / "secrets.log").symlink_to(target)
    with pytest.raises(StoreDamaged, match=r"\(secrets.log: not a regular file \(a symbolic"):
        Store.open(table, key)
    assert not (tmp_path / "created-by-resume").exists()


def test_the_store_still_opens_and_appends_to_its_own_files(tmp_path: Path) -> None:
    table, key = _saved(tmp_path)
    store, st = Store.open(table, key)
    store.save_secrets(0, {"deck": {"hand": 0, "table": st.header.table, "seat": 0},
                           "rand_seed": bytes(32)})
    store.close()
    assert stat.S_IMODE((table / "secrets.log").stat().st_mode) == 0o600
    assert read_transcript(table / "transcript.mbt").entries == []


def test_open_own_refuses_what_is_no_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile) as err:
        open_own(fifo)                  # said at once, never waited on
    assert err.value.kind == "a named pipe"
    (tmp_path / "dir").mkdir()
    with pytest.raises(NotRegularFile) as err:
        open_own(tmp_path / "dir")
    assert err.value.kind == "a folder"
