"""``millebornes verify FILE`` and ``millebornes simulate --fair-deck --transcript-dir DIR``.

The verb prints a short report: a line starting "OK" and exit status 0 for a good
transcript; otherwise a non-zero exit and a report naming the first failing entry, the check
it breaks and the seat to blame. A missing or garbage file is one plain sentence, never a
traceback (docs/verify.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from engine import Seating, preset
from engine.bots import make_bot
from p2p.table.memory import make_table, play_fair_match
from p2p.testing import seeded_entropy
from p2p.transcript.envelope import Envelope
from p2p.transcript.file import read_transcript

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The command as a user types it (``python -m cli`` is ``millebornes``)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd or ROOT, env=env)


def _verify(path: Path | str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["verify", str(path)])
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One honest 2-player modern game (one hand) and its transcript: its deal follows from
    a seed (a fresh deal's first hand may end in a tie, rarely, and bring a second)."""
    with seeded_entropy(b"verify-cli"):
        cfg, ids = make_table(preset("modern"), Seating(2, 2), ["ann", "bob"], b"verify-cli")
        path = tmp_path_factory.mktemp("cli") / "game.mbt"
        play_fair_match(cfg, ids, [make_bot("heuristic", s).choose for s in range(2)],
                        transcript=path)
    assert len({e.hand for e in read_transcript(path).entries}) == 1
    return {"cfg": cfg, "ids": ids, "path": path}


def _rewrite(src: Path, dst: Path, envs: list[Envelope]) -> Path:
    t = read_transcript(src)
    with open(dst, "wb") as f:
        f.write(t.header_bytes)
        for e in envs:
            f.write(e.encode())
    return dst


def _torn(src: Path) -> bytes:
    """The file cut two thirds in, in the middle of the entry found there. (A cut at
    exactly two thirds of the bytes fell between two entries once in ~250 deals: a file
    that only stops early, "fair so far" with exit 0, not a torn one.)"""
    data = src.read_bytes()
    ends = [*read_transcript(src).offsets, len(data)]
    k = max(i for i in range(len(ends) - 1) if ends[i] <= len(data) * 2 // 3)
    return data[:(ends[k] + ends[k + 1]) // 2]


def test_good_transcript_exits_0_with_ok(game: dict[str, Any]) -> None:
    r = _run("verify", str(game["path"]))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[0].startswith("OK"), r.stdout
    assert "Traceback" not in r.stdout + r.stderr
    # the report says what was checked and how the game ended
    assert "hand" in r.stdout and "winner" in r.stdout


def test_good_transcript_in_process(game: dict[str, Any],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _verify(game["path"], capsys)
    assert code == 0
    assert out.startswith("OK")


def test_equivocation_exits_nonzero_naming_entry_check_and_seat(
        tmp_path: Path, game: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    t = read_transcript(game["path"])
    envs = list(t.entries)
    i = 4
    e = envs[i]
    seat = next(p.seat for p in t.header.players if p.key == e.author)
    twin = Envelope.create(game["ids"][seat], e.table, e.hand, e.seq, e.prev,
                           {**e.body, "note": "second version"})
    bad = _rewrite(game["path"], tmp_path / "equiv.mbt", envs[:i + 1] + [twin] + envs[i + 1:])
    r = _run("verify", str(bad))
    out = r.stdout + r.stderr
    assert r.returncode != 0, out
    assert not r.stdout.startswith("OK")
    assert f"entry {i + 1}" in out
    assert "equivocation" in out
    assert f"seat {seat}" in out
    assert "Traceback" not in out
    code, out2 = _verify(bad, capsys)
    assert code != 0 and f"entry {i + 1}" in out2


def test_forged_signature_exits_nonzero(tmp_path: Path, game: dict[str, Any],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    t = read_transcript(game["path"])
    envs = list(t.entries)
    i = 20
    e = envs[i]
    seat = next(p.seat for p in t.header.players if p.key == e.author)
    envs[i] = Envelope(e.table, e.hand, e.author, e.seq, e.prev, {**e.body, "x": 0}, e.sig)
    code, out = _verify(_rewrite(game["path"], tmp_path / "forged.mbt", envs), capsys)
    assert code != 0
    assert f"entry {i}" in out and "bad-signature" in out and f"seat {seat}" in out


def test_withheld_reveal_names_the_seat(tmp_path: Path, game: dict[str, Any],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A transcript that stops before a reveal cannot tell a player who left from one who
    withholds: it is "fair so far" (issue 11: exit 0; 1 only for a cheat or a damaged
    file), and it names the seat whose entry is missing."""
    t = read_transcript(game["path"])
    envs = list(t.entries)
    k = max(i for i, e in enumerate(envs) if e.body.get("k") == "deck.reveal")
    seat = next(p.seat for p in t.header.players if p.key == envs[k].author)
    code, out = _verify(_rewrite(game["path"], tmp_path / "cut.mbt", envs[:k]), capsys)
    assert code == 0
    assert out.startswith("Fair so far")
    assert "reveal-missing" in out and f"seat {seat}" in out


@pytest.mark.parametrize("content", [
    b"",
    b"hello, this is not a transcript\n",
    bytes(range(256)) * 4,
    b"\x92\x01\x02",                # a msgpack array, not a header
], ids=["empty", "text", "binary", "msgpack"])
def test_garbage_file_exits_nonzero_without_traceback(
        tmp_path: Path, content: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "garbage.mbt"
    p.write_bytes(content)
    code, out = _verify(p, capsys)
    assert code != 0
    assert not out.startswith("OK")
    assert "Traceback" not in out
    assert out.strip(), "no explanation printed"


def test_truncated_transcript_exits_nonzero(tmp_path: Path, game: dict[str, Any],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "trunc.mbt"
    p.write_bytes(_torn(game["path"]))
    code, out = _verify(p, capsys)
    assert code != 0
    assert "byte" in out, out   # a torn file names the offset of the bad object
    assert "Traceback" not in out


def test_missing_file_and_directory(tmp_path: Path) -> None:
    missing = tmp_path / "nope.mbt"
    r = _run("verify", str(missing))
    out = r.stdout + r.stderr
    assert r.returncode != 0
    assert "Traceback" not in out
    assert str(missing) in out or "no such file" in out.lower()
    r = _run("verify", str(tmp_path))
    out = r.stdout + r.stderr
    assert r.returncode != 0
    assert "Traceback" not in out
    assert not r.stdout.startswith("OK")


def test_verify_without_a_file_and_no_saved_game_says_what_to_do(tmp_path: Path) -> None:
    """No file named: the newest saved game is checked (tests/test_cli_games.py); with
    none saved, a refusal that says what to do, exit status 2 (a usage error)."""
    r = _run("verify", "--data-dir", str(tmp_path / "nothing-saved"))
    assert r.returncode == 2
    assert "Traceback" not in r.stdout + r.stderr
    assert "there is no saved game yet" in r.stderr, r.stderr


def test_simulate_fair_deck_writes_transcripts_that_verify(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "transcripts"
    r = _run("simulate", "--rules", "modern", "--players", "2", "--games", "2",
             "--fair-deck", "--transcript-dir", str(out_dir))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    files = sorted(out_dir.iterdir())
    assert len(files) == 2, files
    assert files[0].read_bytes() != files[1].read_bytes()
    for f in files:
        code, out = _verify(f, capsys)
        assert code == 0, out
        assert out.startswith("OK")
        t = read_transcript(f)
        assert len(t.header.players) == 2
        assert t.header.rules["rules"]["preset"] == "modern"


def test_simulate_fair_deck_json_lists_its_transcripts(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    out_dir = tmp_path / "t"
    code = main(["simulate", "--rules", "modern", "--players", "2", "--games", "1",
                 "--fair-deck", "--transcript-dir", str(out_dir), "--json"])
    out = capsys.readouterr().out
    assert code == 0
    result = json.loads(out)
    listed = [Path(p) for p in result["transcripts"]]
    assert listed == sorted(out_dir.iterdir())
    code, text = _verify(listed[0], capsys)
    assert code == 0 and text.startswith("OK")


def test_a_file_bigger_than_any_transcript_is_refused_before_it_is_read(
        tmp_path: Path, game: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    """`cp good.mbt huge.mbt; truncate -s 3G huge.mbt; millebornes verify huge.mbt` took
    6.3 GB and 27 s: the whole file was read. Its size is checked first now."""
    from p2p.transcript.file import MAX_TRANSCRIPT_BYTES
    p = tmp_path / "huge.mbt"
    p.write_bytes(game["path"].read_bytes())
    os.truncate(p, MAX_TRANSCRIPT_BYTES + 1)          # sparse: nothing is written
    code, out = _verify(p, capsys)
    assert code == 2, out
    assert f"millebornes verify: {p}: too large for a transcript: " \
           f"{MAX_TRANSCRIPT_BYTES + 1} bytes" in out and str(MAX_TRANSCRIPT_BYTES) in out
    assert "FAILED" not in out and "Traceback" not in out


@pytest.mark.parametrize("version,words", [(4, "newer version"), (2, "older version")])
def test_a_transcript_of_another_version_is_not_called_damaged(
        tmp_path: Path, game: dict[str, Any], capsys: pytest.CaptureFixture[str],
        version: int, words: str) -> None:
    """verify said "no player can be blamed: the file was altered or damaged … ask the
    players for an intact copy" of a transcript another version wrote (resume said
    "update millebornes")."""
    import dataclasses
    t = read_transcript(game["path"])
    p = tmp_path / f"v{version}.mbt"
    p.write_bytes(dataclasses.replace(t.header, version=version).to_bytes()
                  + b"".join(e.encode() for e in t.entries))
    code, out = _verify(p, capsys)
    assert code == 2, out
    assert f"millebornes verify: {p}: a transcript written by an {words}" in out \
        or f"millebornes verify: {p}: a transcript written by a {words}" in out, out
    assert f"transcript format {version}" in out
    assert ("update millebornes" in out) == (version == 4)
    assert "altered" not in out and "damaged" not in out and "FAILED" not in out


def test_verify_lines_of_another_versions_transcript_blame_nothing(
        tmp_path: Path, game: dict[str, Any]) -> None:
    import dataclasses

    from cli.words import verify_lines
    from p2p.audit import verify_game
    t = read_transcript(game["path"])
    p = tmp_path / "v4.mbt"
    p.write_bytes(dataclasses.replace(t.header, version=4).to_bytes()
                  + b"".join(e.encode() for e in t.entries))
    text = " ".join(" ".join(verify_lines(verify_game(p))).split())
    assert text.startswith("This file was not checked: a transcript written by a newer "
                           "version of millebornes"), text
    assert "update millebornes" in text and "altered" not in text and "FAILED" not in text


def test_a_symlink_loop_is_said_as_such(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """It was "no saved game has the id 'loop1'"."""
    monkeypatch.chdir(tmp_path)
    os.symlink("loop1", "loop1")
    code, out = _verify("loop1", capsys)
    assert code == 2
    assert "millebornes verify: cannot read loop1: " in out and "symbolic links" in out, out
    assert "no saved game" not in out and "Traceback" not in out
