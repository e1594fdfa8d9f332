"""Hostile pass 22: a hostile seat's name, hostile files in the data folder. Each test
failed before its fix.

* names that differ only by what a screen does not show (a variation selector, a
  combining grapheme joiner, the Hangul fillers: letters and marks to
  :func:`p2p.text.safe_text`, nothing on a screen) were two names to the lobby: a joiner
  named "Ann" and a variation selector sat as a second "Ann" at Ann's table, one named
  with a Hangul filler alone sat as a blank; and a seat named "You" and a combining
  grapheme joiner was "You" on every other player's screen and in their ``verify``
  ("broken by seat 1 (You)", read by the honest player at seat 0); and someone else
  named "Bob" and a variation selector was a name never met to the known-players file,
  which says when a name met before comes with another key.
* a bare ``resume`` (no game named) checked every finished saved game whole on its way
  to the newest one not over (a second or more each), in silence, and again at every
  ``resume``: it says so now, as ``games`` does, and keeps what it found in the
  listing's memory.
* files another program leaves in the data folder under the names this program writes
  through: a named pipe as ``hand-order.json.tmp`` beside a game being played froze the
  full screen for ever at its next draw (opened to write, it waits for a reader); as
  ``games-state.json.tmp`` it held ``games`` for ever, and a symbolic link there made
  ``games`` overwrite the file it named; a named pipe as ``evidence.bin`` in a game's
  folder held a peer's thread for ever once it caught a cheat (the evidence appended); one
  as ``known_players.tmpPID`` held a match's start; a program holding the player's lock
  file (``player-KEY.lock``) exclusively held every command that seats the player; a
  folder named ``millebornes.log.1`` (or a full disk) put a traceback on stderr, over
  the full screen, for every record logged once the log reached 1 MB.
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
from p2p.table.memory import make_table, stage_cheat
from p2p.text import shown_key

pytestmark = pytest.mark.hostile


def test_names_that_differ_by_what_shows_nothing_are_told_apart_in_the_lobby() -> None:
    """A real host and real joiners on loopback: each joiner's name, as seated, shows
    as no other seat's, and none shows as nothing."""
    from test_hostile import _join_one, _lobby

    ids, nodes, host = _lobby(4)
    try:
        for i, name in ((1, "ANN\ufe00"), (2, "\u3164"), (3, "An\u034fn\u2800")):
            assert _join_one(host, ids[i], nodes[i], name=name) is not None, name
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
    # (no count: the first game not over ends the checks, review of stop 51)
    assert ("Looking for the newest saved game not over: checking the games (signatures, "
            "shuffles and moves)") in " ".join(cap.out.split()), cap
    assert f"copy of game {table.name[:8]} is damaged" in cap.err, cap
    first = len(checked)
    assert first == 5, checked
    assert main(argv) == 2
    cap = capsys.readouterr()
    assert "checking the games" not in cap.out and table.name[:8] in cap.err, cap
    assert len(checked) == first, checked                       # before: 5 more


def _in_a_thread(fn: object, seconds: float) -> bool:
    """Whether ``fn()`` returned within ``seconds`` (run on a daemon thread: one that
    hangs is left behind, blocked)."""
    import threading
    t = threading.Thread(target=fn, daemon=True)      # type: ignore[arg-type]
    t.start()
    t.join(seconds)
    return not t.is_alive()


def _release(fifo: Path) -> None:
    """Open ``fifo`` for reading a moment, so that a writer blocked on it goes on."""
    import os
    try:
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        time.sleep(0.2)
        os.close(fd)
    except OSError:
        pass


def test_a_named_pipe_left_under_the_hand_orders_temporary_name_does_not_stop_the_screen(
        tmp_path: Path) -> None:
    """Another program made ``hand-order.json.tmp`` a named pipe beside a game being
    played: the console, keeping its hand's order at each draw, opened it to write and
    waited for a reader for ever (the full screen frozen, the table waiting for its
    moves). The order is written as before now, the pipe put aside."""
    import os

    from cli import hand_order
    kept = tmp_path / hand_order.HAND_ORDER_FILE
    fifo = kept.with_name(f"{kept.name}.tmp{os.getpid()}")   # (this process writes)
    os.mkfifo(fifo)
    try:
        assert _in_a_thread(lambda: hand_order.save(kept, 2, 1, [5, 3, 9], 9), 5.0)
    finally:
        _release(fifo)
    assert hand_order.load(kept, 2, 1) == hand_order.SavedOrder((5, 3, 9), 9)


@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_the_listings_memory_is_written_through_no_link_and_into_no_pipe(
        tmp_path: Path, kind: str) -> None:
    """``games`` (and a bare ``resume`` now) keep what they found in
    ``games-state.json``, written as ``games-state.json.tmpPID`` first: a symbolic link left
    under that name made them overwrite the file it named (the data folder's log and
    stores are never written through one: hostile passes 16 and 18), and a named pipe
    held ``games`` for ever, before it listed anything."""
    import os
    data = tmp_path / "data"
    _finished_games(data, 0)
    victim = tmp_path / "victim.txt"
    victim.write_text("someone else's file\n")
    tmp = data / f"games-state.json.tmp{os.getpid()}"       # (this process writes)
    if kind == "fifo":
        os.mkfifo(tmp)
    else:
        tmp.symlink_to(victim)
    from cli.main import main
    done: list[int] = []
    try:
        assert _in_a_thread(lambda: done.append(main(["games", "--data-dir", str(data)])),
                            20.0), "games waited for the named pipe"
        assert done == [0]
    finally:
        if kind == "fifo":
            _release(tmp)
    assert victim.read_text() == "someone else's file\n"
    state = data / "games-state.json"
    assert state.is_file() and not state.is_symlink()
    assert "finished" in state.read_text()


def test_a_named_pipe_left_as_the_evidence_file_does_not_hold_a_peer_that_caught_a_cheat(
        tmp_path: Path) -> None:
    """Two real peers on loopback. Another program left a named pipe as
    ``evidence.bin`` in Ann's game folder; Bo (hostile) complains with an entry he signed
    that no honest peer writes. Ann's peer names him and keeps the evidence aside:
    opened to append, the pipe held her peer's thread for ever (waiting for a reader),
    the table's verdict never said. Now the evidence is kept only in a file of its own
    (never through a link, never a pipe), said in the log when it cannot be."""
    import os
    import threading

    from p2p.table.session import SessionOptions
    from p2p.testing import socket_peers
    from p2p.transcript.envelope import Envelope
    cfg, ids = make_table(preset("modern"), Seating.parse(2, None), ["Ann", "Bo"],
                          b"hostile22/evidence")
    peers = socket_peers(tmp_path, cfg, ids, SessionOptions())
    ann, bo = peers
    assert ann.store is not None
    fifo = ann.store.path / "evidence.bin"
    os.mkfifo(fifo)
    done = threading.Event()

    def run() -> None:
        ann.run(20.0)
        done.set()
    t = threading.Thread(target=run, daemon=True)
    t.start()
    try:
        bad = Envelope.create(ids[1], cfg.table_id, 0, 3, bytes(32),
                              {"k": "deck.key", "seat": 1, "h": b"x", "proof": b"y"})
        with bo._lock:
            bo.rlog.write_side({"k": "side.complaint", "check": "malformed-body",
                                "entry": bad.encode()})
        end = time.monotonic() + 15
        while time.monotonic() < end and not done.is_set():
            bo.pump(0.05)
        assert done.wait(5.0), "Ann's peer is held by the named pipe"
        assert ann.rlog.stopped and ann.rlog.error is not None, ann.state
        assert ann.rlog.error.seat == 1, ann.rlog.error
    finally:
        _release(fifo)
        t.join(5.0)
        for p in peers:
            p.close(flush=0.2)


def test_a_name_known_with_another_key_is_noticed_whatever_invisible_marks_it_carries(
        tmp_path: Path) -> None:
    """The known-players file warns when a name met before comes with another key
    ("a new machine, or someone else using the name"). Someone else taking the name
    "Bob" and a variation selector, shown "Bob", passed unsaid: a name never met."""
    from cli.words import key_change_line
    from p2p.crypto.known import KnownPlayers
    bob, other = Identity.generate().public_key, Identity.generate().public_key
    path = tmp_path / "known_players"
    assert KnownPlayers(path).meet("Bob", bob) is None
    known = KnownPlayers(path)
    change = known.meet("Bob\ufe00", other)
    assert change is not None and change.known == (bob,)       # before: None
    assert "Bob" in key_change_line(change)
    assert known.meet("Bob", bob) is None                       # the real Bob: as before
    assert KnownPlayers(path).meet("Bob\ufe00", other) is None  # met now, remembered


def test_a_named_pipe_under_the_known_players_temporary_name_does_not_hold_a_start(
        tmp_path: Path) -> None:
    """A match's start remembers the other players' keys (``known_players``, written as
    ``known_players.tmpPID`` first): a named pipe left under that name held the start for
    ever, waiting for a reader, and a link there was written through."""
    import os

    from p2p.crypto.known import KnownPlayers
    path = tmp_path / "known_players"
    tmp = path.with_name(f"known_players.tmp{os.getpid()}")
    os.mkfifo(tmp)
    key = Identity.generate().public_key
    try:
        assert _in_a_thread(lambda: KnownPlayers(path).meet("Bob", key), 5.0)
    finally:
        _release(tmp)
    assert KnownPlayers(path).keys == {"Bob": [key]}
    victim = tmp_path / "victim.txt"
    victim.write_text("someone else's file\n")
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(victim)
    assert KnownPlayers(path).meet("Cy", key) is None
    assert victim.read_text() == "someone else's file\n"
    assert set(KnownPlayers(path).keys) == {"Bob", "Cy"}


def test_a_program_holding_the_players_lock_does_not_hold_the_command(tmp_path: Path) -> None:
    """Each command that seats the player claims the data folder with a lock file of the
    player's key (shared: the same player may run two commands at once). Another program
    holding that file locked exclusively held ``play``, ``host``, ``join`` and ``resume``
    for ever, before a word; the claim is now waited for a moment, then given up (the
    log says so)."""
    import fcntl
    import os

    from cli.seats import _CLAIMS, claim_data_folder
    from p2p.crypto.identity import fingerprint
    ident = Identity.generate()
    data = tmp_path / "data"
    data.mkdir()
    lock = data / f"player-{fingerprint(ident.public_key)}.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        assert _in_a_thread(lambda: claim_data_folder(ident, data), 5.0)
        assert (data, fingerprint(ident.public_key)) not in _CLAIMS
    finally:
        os.close(fd)


@pytest.mark.parametrize("kind", ["folder", "full"])
def test_a_log_that_cannot_be_rotated_or_written_puts_no_traceback_on_the_screen(
        tmp_path: Path, capfd: pytest.CaptureFixture[str], kind: str) -> None:
    """``millebornes.log`` is rotated at 1 MB into ``millebornes.log.1``. A folder another
    program made under that name (or a disk that is full) failed each record's write:
    Python's logging printed "--- Logging error ---" and a traceback on stderr for every
    record, over the full screen of a game in play. Now the log starts afresh when it
    cannot be set aside (it stays bounded), and a record that cannot be written is lost
    without a word on the screen."""
    import argparse
    import contextlib
    import logging
    import os

    from cli.logs import LOG_NAME, setup_logging
    data = tmp_path / "data"
    data.mkdir()
    (data / LOG_NAME).write_bytes(b"x" * 1_000_100)
    (data / (LOG_NAME + ".1")).mkdir()
    root = logging.getLogger()
    saved = (root.handlers[:], root.level, logging.lastResort)
    try:
        assert setup_logging(argparse.Namespace(data_dir=str(data), verbose=False))
        if kind == "full":
            # a disk that is full, as the file's writes see it
            full = os.open("/dev/full", os.O_WRONLY)
            handler = next(h for h in root.handlers if getattr(h, "_millebornes", False))
            assert isinstance(handler, logging.FileHandler) and handler.stream is not None
            (data / (LOG_NAME + ".1")).rmdir()
            handler.maxBytes = 0
            os.dup2(full, handler.stream.fileno())
            os.close(full)
        for i in range(3):
            logging.getLogger("p2p.session").warning("record %d", i)
        err = capfd.readouterr().err
        assert "Traceback" not in err and "Logging error" not in err, err
        if kind == "folder":
            text = (data / LOG_NAME).read_text()
            assert "record 2" in text and len(text) < 1_000_000, len(text)
    finally:
        for h in root.handlers[:]:
            if getattr(h, "_millebornes", False):
                root.removeHandler(h)
                with contextlib.suppress(OSError):      # the full disk's last flush
                    h.close()
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
        logging.lastResort = saved[2]


def test_a_blank_braille_pattern_shows_nothing() -> None:
    """U+2800, a braille pattern drawn as an empty cell, is no letter a reader sees:
    "Ann⠀" sat as a second "Ann", "⠀" alone as a blank seat, "You⠀" read as You on the
    others' screens (review of stop 51)."""
    from cli.words import local_names

    assert shown_key("Ann\u2800") == shown_key("Ann") and shown_key("\u2800") == ""
    assert local_names(["Ann", "Ann\u2800", "You\u2800"], 0) == \
        ("Ann", "Ann\u2800 2", "You\u2800 3")


def test_a_bare_resume_says_no_count_of_games_it_may_not_check(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten saved games unknown to the listing's memory, the newest not over: "Checking 10
    saved games" was said and one was checked (review of stop 51). It says what it looks
    for, with no count, and stops at the first game not over."""
    import io
    import types

    import cli.resume
    checked: list[str] = []

    class Memory:
        def __init__(self, base: Path) -> None:
            pass

        def known(self, game: object) -> None:
            return None

        def facts(self, game: types.SimpleNamespace) -> types.SimpleNamespace:
            checked.append(game.path.name)
            return types.SimpleNamespace(kind="progress" if game.path.name == "g0"
                                         else "finished")

        def save(self, games: object) -> None:
            pass

    monkeypatch.setattr(cli.resume, "_StateCache", Memory)
    games = [types.SimpleNamespace(path=Path(f"/x/g{i}")) for i in range(10)]
    said = io.StringIO()
    assert cli.resume._newest_not_over(games, Path("/x"), said) == Path("/x/g0")  # type: ignore[arg-type]
    assert checked == ["g0"] and "10" not in said.getvalue(), said.getvalue()
