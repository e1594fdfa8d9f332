"""``verify`` keeps about one hand's entries in memory, whatever the file's size.

A crafted file: a real game's first entries, then entries signed with the players' real
keys, each linked to the one before, whose bodies are as dense in tiny values as an
envelope may be (one value per 8 bytes; some 9 bytes of memory per byte of file). Every
signature and link checks out; no protocol step allows a body. ``verify`` read the whole
file into memory before it replayed the game: 160 MB traced for 16 MB of file, 1.26 GB
for 128 MB (a file at the 512 MiB cap: gigabytes). It now reads the file hand by hand and
stops at the first entry no step allows (benchmarks/verify_memory.py measures it).
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import replay_steps, verify_game
from p2p.table.memory import make_table, play_fair_match
from p2p.testing import craft_dense_transcript, seeded_entropy
from p2p.transcript.file import read_transcript


def _fair_match(rules: str, seed: bytes, path: Path) -> list[Any]:
    """A match of two heuristic bots, fairly dealt, written to ``path``; its identities."""
    with seeded_entropy(seed):
        cfg, ids = make_table(preset(rules), Seating(2, 2), ["ann", "mal"], seed)
        play_fair_match(cfg, ids, [make_bot("heuristic", s).choose for s in range(2)],
                        transcript=path)
    return list(ids)


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("vm") / "game.mbt"
    return {"ids": _fair_match("modern", b"verify-memory", path), "path": path}


def _traced_verify(path: Path) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        rep = verify_game(path)
        return rep, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_a_crafted_file_of_signed_dense_entries_is_verified_in_bounded_memory(
        tmp_path: Path, game: dict[str, Any]) -> None:
    """2 MB and 4 MB of such entries: the same verdict as before (the signer of the
    first one wrote out of turn), and the memory does not grow with the file (before:
    about 10 times the file's size, 42 MB traced for the 4 MB one)."""
    small, big = tmp_path / "dense-2.mbt", tmp_path / "dense-4.mbt"
    craft_dense_transcript(game["path"], small, game["ids"], 2 << 20)
    craft_dense_transcript(game["path"], big, game["ids"], 4 << 20)
    verdicts, peaks = [], []
    for p in (small, big):
        rep, peak = _traced_verify(p)
        verdicts.append((rep.ok, rep.check, rep.blamed_seat, rep.failed_index))
        peaks.append(peak)
    assert verdicts[0] == verdicts[1] == (False, "out-of-turn", 0, 40), verdicts
    assert peaks[1] < 28 << 20, peaks                  # was 42 MB
    assert peaks[1] < peaks[0] + (4 << 20), peaks      # was twice the small file's
    assert main(["verify", str(big)]) != 0


def test_an_honest_game_verifies_hand_by_hand_with_every_entry_still_readable(
        game: dict[str, Any]) -> None:
    """The report of a streaming verify still lists every entry (read from the file again)
    and replays to the same steps; verify holds far less than the whole log."""
    path = game["path"]
    t = read_transcript(path)
    rep, _peak = _traced_verify(path)
    assert rep.ok and rep.complete, rep.summary()
    entries = list(rep.crypto.entries)
    assert len(entries) == len(rep.crypto.entries) == rep.crypto.entries_checked \
        == len(t.entries)
    assert [(e.hand, e.body) for e in entries] == [(e.hand, e.body) for e in t.entries]
    assert rep.crypto.entries[-1] == entries[-1]
    rep2, steps = replay_steps(path)
    assert rep2.ok and len(steps) > 10


@pytest.mark.slow
def test_side_entries_dense_with_tiny_values_are_not_kept(
        tmp_path: Path, game: dict[str, Any]) -> None:
    """Side entries are held whole while a transcript is checked: a crafted file of signed
    side entries (every kind, from the seats and 64 other keys, each as dense as an
    envelope may be) took some 9 times its size; one whose body holds more values than any
    honest side entry (:data:`MAX_SIDE_VALUES`) is dropped as live peers drop it, and the
    honest game still verifies."""
    from p2p.crypto.identity import Identity
    from p2p.testing import dense_body
    from p2p.transcript.envelope import Envelope
    from p2p.transcript.file import SIDE_KINDS, TranscriptHeader, iter_transcript

    items = list(iter_transcript(game["path"]))
    header = items[0][1]
    assert isinstance(header, TranscriptHeader)
    authors = [*game["ids"], *(Identity.from_seed(bytes([i]) * 32) for i in range(64))]
    p = tmp_path / "side.mbt"
    with open(p, "wb") as f:
        f.write(header.to_bytes())
        for _off, e in items[1:]:
            assert isinstance(e, Envelope)
            f.write(e.encode())
        n = 0
        for ident in authors:
            for kind in sorted(SIDE_KINDS):
                if n >= 30:                        # 1.8 MB
                    break
                body = {**dense_body(60_000), "k": kind}
                f.write(Envelope.create(ident, header.table, 0, 0, b"\0" * 32, body).encode())
                n += 1
    rep, peak = _traced_verify(p)
    assert rep.ok and rep.complete, rep.summary()
    assert peak < 10 << 20, peak          # was about 10 times the 1.8 MB


@pytest.fixture(scope="module")
def match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A classic match of several hands between two heuristic bots, fairly dealt."""
    path = tmp_path_factory.mktemp("rm") / "match.mbt"
    _fair_match("classic", b"replay-memory", path)
    return path


def test_replay_holds_about_one_hands_states(match: Path) -> None:
    """``replay`` kept every step's state, and a state holds its hand's history: 1.4 KB a
    step on this match, growing with the square of a hand's length (a valid transcript at
    the file limit: gigabytes; hostile pass 20). The steps now keep their moves and work
    the states out again, a hand at a time, with the engine: the same states, in a
    fraction of the memory."""
    import gc

    from cli.replay_view import ReplayModel
    from engine import apply_action

    rep, steps = replay_steps(match)
    assert rep.ok and rep.complete, rep.summary()
    model = ReplayModel(steps, rep.names)
    assert model.n_hands >= 3 and len(model) > 300
    # the states the steps give are the engine's, move after move, and each hand ends over
    for i in range(len(steps)):
        before = model.before(i)
        if before is not None:
            assert apply_action(before, steps[i].action) == steps[i].state
        if i + 1 == len(steps) or steps[i + 1].hand != steps[i].hand:
            assert steps[i].state.over

    gc.collect()
    tracemalloc.start()
    try:
        _, steps = replay_steps(match)
        model = ReplayModel(steps, rep.names)
        for i in range(len(model)):          # every step looked at, in order and back
            model.state(i)
        for i in reversed(range(len(model))):
            model.before(i)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
        n = len(steps)
        del model, steps
        gc.collect()
        held -= tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held < 700 * n, (held, n)          # was 1,390 bytes a step (572 KB)
