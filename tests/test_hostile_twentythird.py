"""Hostile pass 23: hostile files handed to ``verify`` and ``replay``. Each test failed
before its fix.

* ``verify`` and ``replay`` checked a large transcript with nothing on the screen: every
  signature, share proof and shuffle is checked, some 2 s a megabyte (a six-seat classic
  match of 8 MB took 19 s; a file at the 512 MiB a transcript may have, some 20 minutes),
  and the terminal stayed blank until the report. They now say first that they check it,
  with its size, as ``resume`` says it reads a large copy (hostile pass 16).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from engine import Seating, preset
from engine.bots import make_bot
from p2p.table.memory import make_table, play_fair_match
from p2p.testing import seeded_entropy


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real fair match of one hand at a table of two (modern rules)."""
    with seeded_entropy(b"hostile-23"):
        cfg, ids = make_table(preset("modern"), Seating(2, 2), ["ann", "bo"], b"hostile-23")
        path = tmp_path_factory.mktemp("twentythird") / "match.mbt"
        play_fair_match(cfg, ids, [make_bot("heuristic", s).choose for s in range(2)],
                        transcript=path)
    return path


@pytest.mark.parametrize("verb", ["verify", "replay"])
def test_verify_and_replay_say_they_check_a_large_file_before_they_do(
        tmp_path: Path, honest: Path, verb: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import cli.replay
    import cli.verify

    module: Any = cli.verify if verb == "verify" else cli.replay
    name = "verify_game" if verb == "verify" else "replay_steps"
    real = getattr(module, name)
    said: list[str] = []

    def checking(path: Any, *a: Any, **kw: Any) -> Any:
        said.append(capsys.readouterr().err)     # what was said before the check began
        return real(path, *a, **kw)

    monkeypatch.setattr(module, name, checking)
    small = tmp_path / "small.mbt"
    small.write_bytes(honest.read_bytes())
    main([verb, str(small), "--plain"] if verb == "replay" else [verb, str(small)])
    assert said and "checking" not in said[0], said
    # the same match, and 3 MB more (what it is does not matter: what is said before)
    large = tmp_path / "large.mbt"
    large.write_bytes(honest.read_bytes() + b"\xc0" * (3 << 20))
    main([verb, str(large), "--plain"] if verb == "replay" else [verb, str(large)])
    assert len(said) == 2
    assert (f"checking {large} (3.3 MB): every signature, shuffle, card and move, which "
            "takes a while for a file this large") in " ".join(said[1].split()), said[1]
