"""Hostile pass 16: hostile files in the data folder and given to ``verify`` and
``resume``, hostile discovery records (docs/protocol.md, docs/network.md). Each test
failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.main import main
from engine import Seating, preset
from p2p.table.memory import make_table
from p2p.table.store import Store


def _saved_game(data: Path) -> Path:
    """A saved game in the data folder ``data`` (its header, no entry yet): its folder."""
    cfg, _ids = make_table(preset("classic"), Seating(2, 2), ["Al", "Bo"], b"hostile-16")
    store = Store.create(data, cfg.header(), 0, port=0)
    store.close()
    return store.path


def test_games_ignores_a_state_record_nested_too_deep_for_json(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``games-state.json`` (the listing's memory, in the data folder) of 200,000 ``[``:
    json cannot decode it (RecursionError, not a ValueError), and ``games`` stopped with
    "unexpected error: RecursionError" (exit 1) instead of ignoring it as it ignores any
    other record it cannot read; the listing is the one without it."""
    data = tmp_path / "data"
    table = _saved_game(data)
    (data / "games-state.json").write_text("[" * 200_000)
    assert main(["games", "--data-dir", str(data)]) == 0
    out = capsys.readouterr()
    assert "unexpected" not in out.err, out.err
    row = next(line for line in out.out.splitlines() if line.startswith(table.name[:8]))
    assert "in progress (hand 1)" in row, out.out
    assert (data / "games-state.json").read_text().startswith("{")   # written anew


@pytest.mark.parametrize("nested", ["a = " + "[" * 5000, "a = " + "{b = " * 5000])
def test_a_config_file_nested_too_deep_is_a_problem_said_not_a_stop(
        tmp_path: Path, nested: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The player's config file (``config.toml``, 5 KB) of arrays or inline tables nested
    5000 deep: tomllib recurses, and every command stopped with "millebornes: unexpected
    error: RecursionError". It is a config file that is not TOML: said, and ignored."""
    from cli import i18n

    config = tmp_path / "config.toml"
    config.write_text(nested)
    settings = i18n.resolve(None, None, environ={}, config=config)
    assert settings.language == i18n.resolve(None, None, environ={},
                                             config=tmp_path / "none").language
    assert any("not a TOML file (nested too deeply)" in p for p in settings.problems)
    monkeypatch.setenv("MILLEBORNES_CONFIG", str(config))
    data = tmp_path / "data"
    table = _saved_game(data)
    assert main(["games", "--data-dir", str(data)]) == 0
    out = capsys.readouterr()
    assert "unexpected" not in out.err, out.err
    assert table.name[:8] in out.out


def test_verify_of_an_entry_nested_too_deep_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A transcript's header, then one msgpack array nested 3000 deep: msgpack refuses it
    (StackError, whose message is empty) and the report said "undecodable object:" and
    nothing more. It names what is wrong; nobody is blamed (file-corrupt, exit 1)."""
    table = _saved_game(tmp_path / "data")
    path = tmp_path / "nested.mbt"
    path.write_bytes((table / "transcript.mbt").read_bytes() + b"\x91" * 3000 + b"\x00")
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr()
    said = " ".join((out.out + out.err).split())
    assert "[file-corrupt]" in said and "undecodable object: nested too deeply" in said, said
