"""Hostile pass 22: a hostile seat's name, a hostile file in the data folder, ... Each
test failed before its fix.

* names that differ only by what a screen does not show (a variation selector, a
  combining grapheme joiner, the Hangul fillers: letters and marks to
  :func:`p2p.text.safe_text`, nothing on a screen) were two names to the lobby: a joiner
  named "Ann" and a variation selector sat as a second "Ann" at Ann's table, one named
  with a Hangul filler alone sat as a blank; and a seat named "You" and a combining
  grapheme joiner was "You" on every other player's screen and in their ``verify``
  ("broken by seat 1 (You)", read by the honest player at seat 0).
* a bare ``resume`` (no game named) checked every finished saved game whole on its way
  to the newest one not over (a second or more each), in silence, and again at every
  ``resume``: it says so now, as ``games`` does, and keeps what it found in the
  listing's memory.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cli.main import main
from cli.words import local_names, written_names
from engine import Seating, preset
from engine.bots import make_bot
from p2p.crypto.identity import Identity
from p2p.net.transport import Node
from p2p.table.lobby import LobbyClient, LobbyHost
from p2p.table.memory import make_table, stage_cheat
from p2p.table.session import node_id_for
from p2p.text import shown_key

pytestmark = pytest.mark.hostile


def test_names_that_differ_by_what_shows_nothing_are_told_apart_in_the_lobby() -> None:
    """A real host and real joiners on loopback: each joiner's name, as seated, shows
    as no other seat's, and none shows as nothing."""
    ids = [Identity.generate() for _ in range(4)]
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    host = LobbyHost(ids[0], "Ann", nodes[0], preset("classic"), Seating.solo(4))
    try:
        for i, name in ((1, "ANN\ufe00"), (2, "\u3164"), (3, "An\u034fn")):
            c = LobbyClient(ids[i], name, nodes[i],
                            f"127.0.0.1:{host.node.endpoint.rsplit(':', 1)[1]}")
            end = time.monotonic() + 8
            while time.monotonic() < end and c.seat is None:
                host.pump(0.01)
                c.pump(0.01)
            assert c.seat is not None, name
        names = [s.name for s in host.state.seats if s is not None]
        shown = [shown_key(n) for n in names]
        # before: ['ann', 'ann', '', 'ann'] (ANN︀, ㅤ, An͏n as asked)
        assert all(shown) and len(set(shown)) == 4, (names, shown)
    finally:
        for n in nodes:
            n.close()


def test_a_seat_named_you_with_a_mark_that_shows_nothing_is_not_you_on_screen(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The cheater at seat 1 chose "You" and a combining grapheme joiner (a header
    accepts it: printable text). Its ``verify`` report, the board's names at seat 0 and
    the replay's all say it with its seat's number, as a seat named "You" is."""
    cfg, ids = make_table(preset("modern"), Seating.parse(3, None),
                          ["Al", "You\u034f", "Cy"], b"hostile22/you")
    bots = [make_bot("heuristic", s).choose for s in range(3)]
    path = tmp_path / "cheat.mbt"
    o = stage_cheat(cfg, ids, bots, "card-not-held", 1, path)
    assert o.caught and o.blamed == [1], o
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "broken by seat 1 (You\u034f 2)" in out, out     # before: "(You͏)", shown "(You)"
    assert shown_key(local_names([p.name for p in cfg.players], 0)[1]) != "you"
    assert shown_key(written_names([p.name for p in cfg.players])[1]) != "you"
    # an honest table's names stay as they were
    assert local_names(("Al", "Bo", "You"), 2) == ("Al", "Bo", "You")
    assert local_names(("You", "Bo"), 1) == ("You 1", "Bo")


def _finished_games(data: Path, copies: int) -> tuple[Path, Path]:
    """A finished match saved in ``data`` (seat 0's, the newest) and ``copies`` older
    copies of it under other folders (any finished games: each is checked whole): its
    folder and seat 0's identity key file."""
    import os
    import shutil

    from cryptography.hazmat.primitives import serialization

    from p2p.table.memory import play_fair_match
    from p2p.table.store import Store
    cfg, ids = make_table(preset("modern"), Seating.parse(2, None), ["Al", "Bo"],
                          b"hostile22/finished")
    done = play_fair_match(cfg, ids, [make_bot("heuristic", s).choose for s in range(2)],
                           data.parent / "match.mbt")
    assert done is not None
    store = Store.create(data, cfg.header(), 0, port=0)
    store.close()
    shutil.copyfile(data.parent / "match.mbt", store.path / "transcript.mbt")
    for i in range(copies):
        copy = data / f"{i:032x}"
        shutil.copytree(store.path, copy)
        os.utime(copy / "transcript.mbt", (1e9 + i, 1e9 + i))
    key = data.parent / "al.key"
    key.write_bytes(ids[0]._sk.private_bytes(serialization.Encoding.Raw,
                                             serialization.PrivateFormat.Raw,
                                             serialization.NoEncryption()))
    key.chmod(0o600)
    return store.path, key


def test_a_bare_resume_among_finished_games_says_it_checks_them_and_keeps_what_it_found(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``resume`` with no game named looks for the newest game not over, and checked every
    finished game whole on the way (2.4 s each for a classic match of two on this
    machine: five of them kept it silent 12 s), without a word, and again at every
    ``resume``. It says so now, as ``games`` does, and keeps what it found in the
    listing's memory (``games-state.json``)."""
    import cli.games
    import cli.resume
    data = tmp_path / "data"
    table, key = _finished_games(data, 4)
    checked: list[str] = []
    real = cli.games.verify_game

    def counted(path: object) -> object:
        checked.append(str(path))
        return real(path)         # type: ignore[arg-type]
    monkeypatch.setattr(cli.games, "verify_game", counted)
    monkeypatch.setattr(cli.resume, "verify_game", counted, raising=False)  # (before)
    argv = ["resume", "--data-dir", str(data), "--identity", str(key), "--plain"]
    # every game is over: the newest is taken, and its store (a transcript copied in,
    # none of its seat's secrets) is said damaged, naming it
    assert main(argv) == 2
    cap = capsys.readouterr()
    assert "Checking 5 saved games (signatures, shuffles and moves)" in cap.out, cap
    assert f"copy of game {table.name[:8]} is damaged" in cap.err, cap
    first = len(checked)
    assert first == 5, checked
    assert main(argv) == 2
    cap = capsys.readouterr()
    assert "Checking" not in cap.out and table.name[:8] in cap.err, cap
    assert len(checked) == first, checked                       # before: 5 more
