"""Issue 11, outside the board: leaving is a pause (a quit game verifies "fair so far" and
resumes by its short id), `millebornes games`, `--version`, usage errors naming the
verb, network errors in plain words with a time limit, logs kept off the terminal."""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import ctrl_c_as_a_terminal_gives_it, unfold
from cli_helpers import within as _within

from cli.logs import LOG_NAME, setup_logging
from cli.main import main

ROOT = Path(__file__).resolve().parent.parent


def cli(*argv: str, stdin: str = "", timeout: float = 90) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), MILLEBORNES_DELAY="0")
    return subprocess.run([sys.executable, "-m", "cli", *argv], input=stdin, text=True,
                          capture_output=True, timeout=timeout, cwd=ROOT, env=env)


def quit_at_first_move(*argv: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    """``millebornes ARGV`` in line mode, left with ``quit`` once it asks for the player's
    first decision (a line typed before then is answered at once, in the bots' turn: the
    game would stop waiting for a bot, not for the player)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), MILLEBORNES_DELAY="0")
    proc = subprocess.Popen([sys.executable, "-m", "cli", *argv], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, env=env)
    assert proc.stdout is not None
    out: list[str] = []
    for line in proc.stdout:
        out.append(line)
        if "Your turn" in line or "c for a coup fourré" in line:
            break
    rest, err = proc.communicate("quit\n", timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, "".join(out) + rest, err)


@pytest.fixture(scope="module")
def quit_game(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A `play` over loopback peers, left with `quit` at the first move."""
    data = tmp_path_factory.mktemp("data")
    r = quit_at_first_move("play", "--plain", "--seed", "4", "--data-dir", str(data))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    lines = r.stdout.strip().splitlines()
    start = max(i for i, text in enumerate(lines) if text.startswith("You left;"))
    said = lines[start:]
    # the sentences wrapped at 80 columns; each command in lines that paste into a shell
    # as one command (wrapped like a sentence, it was cut at a space and pasted as two)
    assert all(len(text) <= 80 for text in said), said
    assert said[0] == "You left; the game is saved. Come back to it with:", said
    assert said[1].startswith("  millebornes resume "), said
    short = said[1].split()[2]
    commands = "\n".join(said[1:]).replace(" \\\n    ", " ").replace("\\\n", "").splitlines()
    # the command as shown finds this copy again, in the mode it was played in (without
    # --data-dir a second player on the account resumed the first one's seat; without
    # --plain a screen-reader user came back to the full screen)
    assert commands == [f"  millebornes resume {short} --data-dir {data} --plain",
                        "Check it so far with:",
                        f"  millebornes verify {short} --data-dir {data}"], said
    return data, short


def test_a_quit_game_is_fair_so_far(quit_game: tuple[Path, str]) -> None:
    """Bug 7: after `q`, verify said FAILED … broken by seat 0 (You)."""
    data, short = quit_game
    r = cli("verify", short, "--data-dir", str(data))
    assert r.returncode == 0, r.stdout + r.stderr
    said = " ".join(r.stdout.split())
    # no hand ended: no shuffle was shown, and verify does not claim to have checked one
    # one's own game: "waiting for you" (the player's own seat, the "you" form)
    assert said.startswith("Fair so far; the match stopped in hand 1, waiting for you, "
                           "before any hand ended.")
    assert "no shuffle was shown yet" in said and "finished hand" not in said
    assert "FAILED" not in r.stdout
    # the missing move is named without the check's id ("move [incomplete]" read as a
    # fault in a game saved on purpose: newcomer review)
    assert "[incomplete]" not in said and "(The file ends before your next move.)" in said, \
        said


def test_verify_and_replay_with_no_game_named_take_the_newest(quit_game: tuple[Path, str],
                                                              tmp_path: Path) -> None:
    """A player who has just played checks the game with `millebornes verify`: it said
    only "the following arguments are required: transcript". It takes the newest saved
    game now, and says which."""
    data, short = quit_game
    r = cli("verify", "--data-dir", str(data))
    assert r.returncode == 0, r.stdout + r.stderr
    said = " ".join(r.stdout.split())
    assert said.startswith(f"Your newest saved game: {short} (You, Bo, "), said
    # one's own game, as by its id: the player's seat is "you"
    assert "Fair so far; the match stopped in hand 1, waiting for you, " in said, said
    r = cli("replay", "--plain", "--data-dir", str(data))
    assert r.stdout.startswith(f"Your newest saved game: {short} (You, Bo, "), r.stdout[:300]
    # (left in its first hand: replay has no finished hand to show, and says so)
    assert r.returncode == 1 and "there is no finished hand to show yet" in \
        " ".join(r.stderr.split()), r.stdout + r.stderr
    r = cli("verify", "--data-dir", str(tmp_path / "none-here"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    # the command on lines of its own (pass 33)
    assert "there is no saved game yet: name a transcript file, or play a game with: " \
        f"millebornes play --data-dir {tmp_path / 'none-here'}" in unfold(r.stderr), \
        r.stderr


def test_games_lists_saved_games_with_short_ids(quit_game: tuple[Path, str],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    data, short = quit_game
    assert main(["games", "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith(short))
    assert "classic" in row and "in progress (hand 1)" in row and "You*, Bo" in row
    assert "millebornes resume ID" in out
    assert out.count(str(data)) == 1             # the data folder is said once
    # in the options the commands need to find these games (newcomer, round 4: a bare
    # "replay ID" looked in the default folder)
    assert f"each followed by --data-dir {data}" in " ".join(out.split())


def test_resume_by_short_id_and_unknown_ids(quit_game: tuple[Path, str]) -> None:
    data, short = quit_game
    r = quit_at_first_move("resume", short, "--data-dir", str(data), "--plain")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"Game {short} resumed: catching up" in r.stdout
    # its bot named as `play` named it ("Bo (bot)" after "Bo (bot: normal)", the level the
    # default bot stands for)
    assert "Bo (bot: normal)" in r.stdout, r.stdout
    # the deal is random (mental poker; --seed does not fix it): the player's first
    # decision is its turn, or the answer to the bot's first attack
    assert "Your turn" in r.stdout or "c for a coup fourré, n to let it stand" in r.stdout, \
        r.stdout
    r = cli("resume", "--table", "zzzz", "--data-dir", str(data))
    assert r.returncode == 2
    assert "no saved game has the id 'zzzz'" in r.stderr and "millebornes games" in r.stderr
    r = cli("verify", "zzzz", "--data-dir", str(data))
    assert r.returncode == 2 and "no saved game has the id" in r.stderr


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.startswith("millebornes ")


@pytest.mark.parametrize("argv, needle", [
    (["play", "--foo"], "millebornes play: unrecognized arguments: --foo"),
    (["host", "--port", "80000"], "millebornes host: --port: a port is a number from 1 to "
                                  "65535, not 80000"),
    (["join", "--peer", "nowhere"], "millebornes join: --peer takes HOST:PORT"),
    # said later, in English, after the command had started (an IPv6 address read as
    # host 'fe80:', port 1)
    (["join", "--peer", "fe80::1"], "millebornes join: --peer 'fe80::1': an IPv6 address "
                                    "goes in brackets, then the port: [fe80::1]:PORT"),
    (["join", "--peer", "ab@1.2.3.4:5"], "'ab' is not a key fingerprint (XXXXX-XXXXX"),
    (["resume", "--peer", "224.0.0.1:5"], "--peer: '224.0.0.1' is not a host name or "
                                          "address"),
])
def test_usage_errors_name_the_verb(argv: list[str], needle: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Bug 5 (--port 80000 listened on 14464) and bug 12 (`play --foo` printed the
    top-level usage)."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err
    assert f"This command shows the usage:\n  millebornes {argv[0]} --help" in err
    assert "usage: millebornes VERB" not in err and "Traceback" not in err


def test_an_error_at_a_terminal_is_wrapped_at_spaces(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A long error on an 80-column terminal was cut by it mid-word ("is mu" / "lticast
    allowed", "(the connection was refused" / "):"). At a terminal it is wrapped at
    spaces to the terminal's width; elsewhere (a script, a log) it stays one line."""
    import io

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True
    argv = ["play", "--option", "fastplay=yes", "--data-dir", str(tmp_path)]
    said = ("millebornes play: unknown rule option 'fastplay'; known: attacker_started, "
            "draw_discard, exact_finish")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith(said), err
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(argv) == 2
    lines = terminal.getvalue().splitlines()
    assert len(lines) > 1 and all(len(line) <= 80 for line in lines), lines
    assert " ".join(terminal.getvalue().split()) == " ".join(err.split())


def test_a_mistyped_verb_is_answered_with_the_one_it_likely_meant(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`millebornes plya` listed every verb after "VERB: invalid choice"; a typo at the
    table was already answered "did you mean 'play'?"."""
    assert main(["plya"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("millebornes: unknown command 'plya': did you mean 'play'?\n"
                          "This command shows the usage:\n  millebornes --help"), err
    assert main(["xyz"]) == 2                       # nothing close: the list, as before
    assert "invalid choice: 'xyz' (choose from 'play', 'host'" in capsys.readouterr().err


def _busy_port() -> socket.socket:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s


@pytest.mark.parametrize("verb", ["host", "join"])
def test_port_in_use_is_a_sentence(verb: str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Bug 3: `host --port P` twice (or `join --port P`) ended in a traceback."""
    with _busy_port() as s:
        port = s.getsockname()[1]
        argv = [verb, "--bind", "127.0.0.1", "--port", str(port), "--data-dir",
                str(tmp_path), "--identity", str(tmp_path / "id.key")]
        if verb == "host":
            argv.append("--no-announce")
        else:
            argv += ["--peer", "127.0.0.1:9"]
        assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"port {port} is already in use" in err and "--port" in err


def test_a_wrong_peer_is_given_up_in_words(tmp_path: Path) -> None:
    """Bug 6: `--peer 127.0.0.1:1` waited forever in silence. Here something takes the
    connection and never answers (a port that refuses it is said at once: below)."""
    started = time.monotonic()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    port = silent.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli", "join", "--peer", f"127.0.0.1:{port}", "--bind",
         "127.0.0.1", "--connect-timeout", "1.5", "--data-dir", str(tmp_path), "--identity",
         str(tmp_path / "id.key")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    assert proc.stdin is not None
    proc.stdin.write("sit 1\nready\nhelp\n")   # the input stays open: no end-of-input exit
    proc.stdin.flush()
    try:
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.stdout is not None and proc.stderr is not None
    r = subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.read(),
                                    proc.stderr.read())
    proc.stdin.close()
    assert time.monotonic() - started < 20
    assert r.returncode == 2, r.stdout + r.stderr
    silent.close()
    assert f"no answer from 127.0.0.1:{port} after 1.5 s" in r.stderr
    # the wait said what it waited for and how long, before anything else
    assert r.stdout.startswith(f"Asking the table at 127.0.0.1:{port} (waiting up to 1.5 s)"), \
        r.stdout[:200]
    assert "Not connected to the host yet" in r.stdout     # `sit 1` says something
    assert "ready (once the host answers)" in r.stdout     # so does `ready`
    assert "Commands: 'sit N' moves you to free seat N" in r.stdout   # so does `help`
    assert "Traceback" not in r.stderr


def test_a_port_where_nothing_listens_is_said_at_once(tmp_path: Path) -> None:
    """A mistyped port (the connection refused) waited the whole connect limit (10 s by
    default) before "no answer": it is said as soon as the connection is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]          # closed again: nothing listens there now
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    started = time.monotonic()
    r = subprocess.run(
        [sys.executable, "-m", "cli", "join", "--peer", f"127.0.0.1:{port}", "--bind",
         "127.0.0.1", "--connect-timeout", "60", "--auto", "--data-dir", str(tmp_path),
         "--identity",
         str(tmp_path / "id.key")], stdin=subprocess.DEVNULL, capture_output=True, text=True,
        cwd=ROOT, env=env, timeout=60)
    assert r.returncode == 2, r.stdout + r.stderr
    assert (f"nothing listens at 127.0.0.1:{port} (the connection was refused): is the "
            "table open, is the address and port right?") in " ".join(r.stderr.split())
    assert time.monotonic() - started < 30       # not the 60 s limit
    assert "Traceback" not in r.stderr


def test_end_of_input_leaves_the_lobby(tmp_path: Path) -> None:
    with socket.socket() as silent:        # takes the connection, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        r = cli("join", "--peer", f"127.0.0.1:{silent.getsockname()[1]}", "--bind",
                "127.0.0.1", "--data-dir", str(tmp_path), "--identity",
                str(tmp_path / "id.key"), stdin="", timeout=30)
    assert r.returncode == 1 and "you left the table" in r.stdout
    # why, and how to join without a keyboard: it said only "left the table"
    assert "The input ended (nothing more to read): you left the table; --auto joins and " \
        "plays without a keyboard" in " ".join(r.stdout.split())


def test_logs_go_to_a_file_not_the_terminal(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Bug 10: `dropped frame from …` warnings were written over the console."""
    root = logging.getLogger()
    saved = (list(root.handlers), root.level, logging.lastResort)
    try:
        for h in list(root.handlers):     # as in a fresh process (pytest adds its own)
            root.removeHandler(h)
        path = setup_logging(argparse.Namespace(data_dir=str(tmp_path), verbose=False))
        logging.getLogger("p2p.transport").warning("dropped frame from abc: unknown_peer")
        assert capsys.readouterr().err == ""
        assert path == tmp_path / LOG_NAME
        for h in root.handlers:
            h.flush()
        assert "dropped frame from abc" in path.read_text()
        setup_logging(argparse.Namespace(data_dir=str(tmp_path), verbose=True))
        logging.getLogger("p2p.transport").warning("shown with --verbose")
        assert "shown with --verbose" in capsys.readouterr().err
    finally:
        for h in list(root.handlers):
            root.removeHandler(h)
            h.close()
        for h in saved[0]:
            root.addHandler(h)
        root.setLevel(saved[1])
        logging.lastResort = saved[2]


@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_a_log_name_that_is_no_regular_file_is_left_alone(tmp_path: Path, kind: str) -> None:
    """A named pipe planted as millebornes.log held every verb at the log's open for ever,
    before it said anything; a symbolic link made the log chmod and append to the file it
    named. Now the log is off for that run and the verb goes on."""
    data = tmp_path / "data"
    data.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("someone else's file\n")
    victim.chmod(0o644)
    if kind == "fifo":
        os.mkfifo(data / LOG_NAME)
    else:
        (data / LOG_NAME).symlink_to(victim)
    r = cli("games", "--data-dir", str(data), "--verbose", timeout=30)
    assert r.returncode == 0, r.stdout + r.stderr
    assert " ".join(r.stdout.split()).startswith("No saved games in "), r.stdout  # wrapped
    assert "Traceback" not in r.stdout + r.stderr
    assert victim.read_text() == "someone else's file\n"
    assert victim.stat().st_mode & 0o777 == 0o644


def _saved_game(data: Path) -> Path:
    """A saved game in the data folder ``data`` (its header, no entry yet): its folder."""
    from engine import Seating, preset
    from p2p.table.memory import make_table
    from p2p.table.store import Store
    cfg, _ids = make_table(preset("classic"), Seating(2, 2), ["Al", "Bo"], b"games-fifo")
    store = Store.create(data, cfg.header(), 0, port=0)
    store.close()
    return store.path


def test_a_named_pipe_for_a_transcript_is_damage_not_a_hang(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`rm T/transcript.mbt; mkfifo T/transcript.mbt` made `games` and `resume ID` wait
    forever (the pipe was opened and read)."""
    data = tmp_path / "data"
    table = _saved_game(data)
    short = table.name[:8]
    (table / "transcript.mbt").unlink()
    os.mkfifo(table / "transcript.mbt")
    with _within(10):
        assert main(["games", "--data-dir", str(data)]) == 0
        out = capsys.readouterr().out
        row = next(line for line in out.splitlines() if line.startswith(short))
        assert "damaged (see verify)" in row
        assert main(["resume", short, "--data-dir", str(data), "--plain"]) == 2
        err = capsys.readouterr().err
        assert f"this computer's copy of game {short} is damaged (transcript.mbt: not a " \
               "regular file (a named pipe)" in err, err
        assert main(["verify", short, "--data-dir", str(data)]) == 2
        assert "is not a file" in capsys.readouterr().err


def test_games_in_a_data_dir_that_is_a_file(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """It said "No saved games in /etc/passwd"."""
    f = tmp_path / "passwd"
    f.write_text("root:x:0:0::/root:/bin/sh\n")
    assert main(["games", "--data-dir", str(f)]) == 2
    cap = capsys.readouterr()
    assert f"millebornes games: {f} is not a folder" in cap.err
    assert "No saved games" not in cap.out


def test_a_reader_that_leaves_early_is_no_error(quit_game: tuple[Path, str]) -> None:
    """`millebornes games | head -0`: the pipe closes before the list is written, and
    the command said 'the system says "Broken pipe"' and failed."""
    data, _short = quit_game
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "cli", "games", "--data-dir", str(data)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()                 # the reader is gone before a line is written
    err = proc.stderr.read().decode()
    assert proc.wait(60) == 0, err
    assert "Broken pipe" not in err and "Traceback" not in err, err


def test_games_says_how_many_folders_it_leaves_out(
        tmp_path: Path, quit_game: tuple[Path, str],
        capsys: pytest.CaptureFixture[str]) -> None:
    """A game folder whose table file is damaged was left out of `games` in silence:
    the player's game seemed lost."""
    import shutil

    data, short = quit_game
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    broken = copy / ("ab" * 16)
    shutil.copytree(next(p for p in copy.iterdir() if p.name.startswith(short)), broken)
    (broken / "table.msgpack").write_bytes(b"\x00garbage")
    assert main(["games", "--data-dir", str(copy)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"(1 folder in {copy} is not a readable game, left out: abababab; millebornes " \
        "verify FOLDER/transcript.mbt says what is wrong with it)" in out, out
    assert short in out


def _interrupt_at_prompt(*argv: str) -> tuple[int, str]:
    """Run ``millebornes ARGV``, press Ctrl-C (SIGINT) at its first "> " prompt, and again
    at the question it asks (a first Ctrl-C asks before leaving, as the full screen does);
    the exit code and everything it printed."""
    import select
    import signal
    env = dict(os.environ, PYTHONPATH=str(ROOT), MILLEBORNES_DELAY="0")
    proc = subprocess.Popen([sys.executable, "-m", "cli", *argv], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env,
                            preexec_fn=ctrl_c_as_a_terminal_gives_it)
    assert proc.stdout is not None
    seen = b""
    deadline = time.monotonic() + 60
    try:
        def read_until(marker: bytes) -> None:
            nonlocal seen
            assert proc.stdout is not None
            while marker not in seen and time.monotonic() < deadline:
                ready, _, _ = select.select([proc.stdout], [], [], 1.0)
                if ready:
                    chunk = os.read(proc.stdout.fileno(), 4096)
                    if not chunk:
                        break
                    seen += chunk

        read_until(b"> ")
        assert b"> " in seen, seen
        proc.send_signal(signal.SIGINT)
        read_until(b"y leave")
        assert b"Leave the game? It is saved" in seen, seen
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, (seen + out + err).decode()


def test_ctrl_c_in_line_mode_leaves_with_the_games_own_resume_line(tmp_path: Path) -> None:
    """Ctrl-C at the prompt of `play --plain` (and of `resume`) said a generic
    "interrupted; the game is saved (millebornes resume)": no game id, no --data-dir, so the
    command as shown found another game or none. It is leaving, said like `quit` says it
    (exit 130)."""
    code, text = _interrupt_at_prompt("play", "--plain", "--seed", "4",
                                      "--data-dir", str(tmp_path))
    said = unfold(text)
    assert code == 130, text
    assert "Traceback" not in text and "interrupted" not in text, text
    assert "You left; the game is saved. Come back to it with: millebornes resume " in said
    short = said.split("millebornes resume ", 1)[1].split()[0]
    assert f"millebornes resume {short} --data-dir {tmp_path} --plain" in said, said
    # the same at a resumed seat (host, join and resume share it)
    code, text = _interrupt_at_prompt("resume", short, "--data-dir", str(tmp_path), "--plain")
    said = unfold(text)
    assert code == 130, text
    assert f"Game {short} resumed" in said, said
    assert "Traceback" not in text and "interrupted" not in text, text
    assert f"millebornes resume {short} --data-dir {tmp_path} --plain" in said, said


def test_resume_peer_takes_the_form_join_shows_and_checks_its_key(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Newcomer, round 4: join says "next time --peer KEY@tcp://HOST:PORT checks it" (a
    LAN-found table); resume refused that form ("not an IP address or host name"). Both
    forms are taken now, and the key at the address must be the one named."""
    from types import SimpleNamespace

    from cli import resume
    from p2p.crypto.identity import Identity, fingerprint

    bo = Identity.from_seed(b"\x05" * 32)
    asked: list[str] = []
    monkeypatch.setattr(resume, "fetch_key_card",
                        lambda ep, timeout: (asked.append(ep), (bo.public_key, b"c"))[1])
    reached: list[tuple[bytes, str]] = []
    peer = SimpleNamespace(cfg=SimpleNamespace(curve=True, players=[None, SimpleNamespace(
        name="Bo")]), reach=lambda key, ep: (reached.append((key, ep)), 1)[1])
    fp = fingerprint(bo.public_key)
    for form in (f"{fp}@tcp://127.0.0.1:35399", f"{fp.lower()}@127.0.0.1:35399"):
        assert resume.reach_line(peer, form, 1.0) == f"reaching Bo at {form}"  # type: ignore[arg-type]
    assert asked == ["tcp://127.0.0.1:35399"] * 2
    assert reached == [(bo.public_key, "tcp://127.0.0.1:35399")] * 2
    said = resume.reach_line(peer, "AAAAA-AAAAA@127.0.0.1:35399", 1.0)  # type: ignore[arg-type]
    assert f"not used (the key there is {fp}, not AAAAA-AAAAA)" in said and len(reached) == 2


def test_an_agreed_end_is_said_once_not_as_the_match_stopped_twice() -> None:
    """Newcomer, round 4: "the match stopped: the match was ended in hand 1 by Cy,
    saying Ann had left" said the match twice."""
    from types import SimpleNamespace

    from cli.words import peer_stopped_line
    why = {"id": "agreed-end", "hand": 0, "seat": 0, "signers": [1]}
    peer = SimpleNamespace(stopped="ended", rlog=SimpleNamespace(stop_why=why,
                                                                 names=["Ann", "Cy"]))
    assert peer_stopped_line(peer) == ("The match was ended in hand 1 by Cy, saying Ann "
                                       "had left.")
    peer.rlog.stop_why = {"id": "abandoned", "seat": 1}
    assert peer_stopped_line(peer).startswith("the match stopped: ")


def test_the_resume_hint_keeps_the_language_asked_for(tmp_path: Path) -> None:
    """A game played with --lang fr was resumed in English: the hint printed on leaving
    dropped --lang (it kept --plain and --data-dir)."""
    r = cli("play", "--plain", "--lang", "fr", "--seed", "4", "--data-dir", str(tmp_path),
            stdin="quit\n")
    assert r.returncode == 0, r.stdout + r.stderr
    said = unfold(r.stdout)
    short = said.split("millebornes resume ", 1)[1].split()[0]
    assert f"millebornes resume {short} --data-dir {tmp_path} --plain --lang fr" in said, said
    r = cli("resume", short, "--data-dir", str(tmp_path), "--plain", "--lang", "fr",
            stdin="quit\n")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "--plain --lang fr" in unfold(r.stdout), r.stdout


@pytest.mark.slow
def test_games_names_the_options_a_table_changed(tmp_path: Path) -> None:
    """`games` listed a match to 3000 with fast play as plain "classic": the options a
    table agreed are on the line under it, as the lobby said them; a preset's own rules
    add no line."""
    r = cli("play", "--plain", "--seed", "4", "--option", "match_target=3000",
            "--option", "fast_play=true", "--data-dir", str(tmp_path / "a"), stdin="quit\n")
    assert r.returncode == 0, r.stdout + r.stderr
    r = cli("play", "--plain", "--seed", "4", "--data-dir", str(tmp_path / "b"),
            stdin="quit\n")
    assert r.returncode == 0, r.stdout + r.stderr
    out = cli("games", "--data-dir", str(tmp_path / "a")).stdout
    lines = out.splitlines()
    row = next(i for i, line in enumerate(lines) if "in progress" in line)
    # a yes-or-no option as --option's help writes it (the player typed true)
    assert lines[row + 1].split() == ["classic", "rules", "(match_target=3000,",
                                      "fast_play=yes)"], out
    out = cli("games", "--data-dir", str(tmp_path / "b")).stdout
    lines = out.splitlines()
    row = next(i for i, line in enumerate(lines) if "in progress" in line)
    assert lines[row + 1].startswith("(* you)"), out


def test_resume_finds_the_identity_a_game_was_played_with(tmp_path: Path) -> None:
    """Newcomer review: a player who joined with --identity and whose computer crashed had
    only `games`' hint ("millebornes resume ID --data-dir …"), and resume said the game
    "belongs to another identity". The table's store remembers the key file it was
    played with, and resume uses it when --identity is not given."""
    data, key = tmp_path / "d", tmp_path / "mine.key"
    r = quit_at_first_move("host", "--plain", "--players", "2", "--bots", "1",
                           "--bind", "127.0.0.1", "--port", "0", "--no-announce",
                           "--identity", str(key), "--data-dir", str(data))
    assert r.returncode == 0, r.stdout + r.stderr
    said = " ".join(r.stdout.split())
    short = said.split("millebornes resume ", 1)[1].split()[0]
    r = quit_at_first_move("resume", short, "--data-dir", str(data), "--plain")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"(with the identity key this game was played with: {key})" in r.stdout, r.stdout
    assert f"Game {short} resumed" in r.stdout, r.stdout
    # and the hint on leaving again names it
    assert f"--identity {key}" in unfold(r.stdout), r.stdout


def test_a_typo_in_the_joiners_lobby_is_said_unknown(tmp_path: Path) -> None:
    """Newcomer review: "redy" in the joiner's lobby was answered with the help line alone,
    as if nothing was wrong; help works and says the same. (A host that takes the
    connection and never answers: the lobby waits, reading what is typed.)"""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        r = cli("join", "--peer", f"127.0.0.1:{silent.getsockname()[1]}", "--bind",
                "127.0.0.1", "--data-dir", str(tmp_path), "--identity",
                str(tmp_path / "id.key"), stdin="redy\nxyzzy\nhelp\nleave\n", timeout=30)
    said = " ".join(r.stdout.split())
    assert r.returncode == 1 and "You left the table" in said, r.stdout + r.stderr
    # a typo close to a command is said with it (round 6); another one with the commands
    assert "Unknown command 'redy': did you mean 'ready'?" in said, said
    assert "Unknown command 'xyzzy': commands: 'sit N' moves you to free seat N, 'ready', " \
        "'unready', 'leave'" in said, said
    # typo, help; not at the start: the joiner is seated at once, and no seat is said
    # before the host answers ("type 'sit N' to take seat N" read as if none was taken)
    assert said.count("'sit N' moves you to free seat N") == 2, said
    assert "take seat" not in said, said


def test_option_help_says_what_each_rule_option_does() -> None:
    """`--option` was explained nowhere: a wrong one was refused with the names alone, and
    `--option help` was refused too. It lists every option, its value in each preset and
    what it does, as --help does; the refusal points to it."""
    import dataclasses

    from cli.words import RULE_OPTION_WORDS
    from engine import Rules

    names = [f.name for f in dataclasses.fields(Rules) if f.name != "preset"]
    assert sorted(RULE_OPTION_WORDS) == sorted(names)      # a new option needs its words
    for verb in ("play", "host", "simulate", "tournament"):
        r = cli(verb, "--option", "help")
        assert r.returncode == 0 and "Traceback" not in r.stderr, (verb, r.stderr)
        lines = r.stdout.splitlines()
        assert all(len(line) <= 80 for line in lines), lines
        for name in names:
            assert any(line.startswith(f"{name} (classic: ") for line in lines), (verb, name)
    said = " ".join(cli("play", "--option", "help").stdout.split())
    assert "draw_discard (classic: no, modern: yes) a player may draw the top card of the " \
        "discard pile instead of the draw pile" in said, said
    assert "exhaustion (classic: play_out, modern: reshuffle)" in said
    r = cli("play", "--option", "fastplay=yes")
    assert r.returncode == 2 and "(--option help says what each does)" in r.stderr, r.stderr
    r = cli("--lang", "fr", "play", "--option", "help")
    assert r.returncode == 0 and "draw_discard (classiques : no, modernes : yes)" in r.stdout


def test_games_checks_a_game_again_only_when_its_transcript_changed(
        quit_game: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`games` checked every saved game's whole transcript each time it listed them
    (about 0.1 s a game: 30 games, 3 s of a blank terminal). It keeps what it found in
    the data folder with each transcript's size and change time: an unchanged game is
    not checked again, a changed one is, and a damaged or edited record of it changes
    nothing of what is listed."""
    import shutil

    import cli.games as games

    src, short = quit_game
    data = tmp_path / "data"
    shutil.copytree(src, data)
    (data / "games-state.json").unlink(missing_ok=True)    # other tests listed src
    other = _saved_game(data)
    checked: list[str] = []
    real = games.verify_game

    def counting(path: Path | str) -> object:
        checked.append(Path(path).parent.name)
        return real(path)

    monkeypatch.setattr(games, "verify_game", counting)

    def listed() -> str:
        checked.clear()
        assert main(["games", "--data-dir", str(data)]) == 0
        return capsys.readouterr().out

    first = listed()
    assert len(checked) == 2, checked
    row = next(line for line in first.splitlines() if line.startswith(short))
    assert "in progress (hand 1)" in row and "You*, Bo" in row, first
    assert listed() == first and checked == []             # nothing checked again
    # a record edited to say more than the transcript proves is not believed
    record = data / "games-state.json"
    mine = next(data.glob(short + "*"))
    kept = json.loads(record.read_text())
    assert set(kept) == {mine.name, other.name}, kept
    for entry in kept.values():
        entry[1] = ["finished", ["x"], 1, 0, -1, 0, "more"]
    record.write_text(json.dumps(kept))
    assert listed() == first and len(checked) == 2
    # garbage in the record: the same listing, everything checked afresh
    record.write_bytes(b"\xff{not json")
    assert listed() == first and len(checked) == 2
    assert listed() == first and checked == []
    # a transcript that changed is checked again: junk appended makes it damaged
    with open(other / "transcript.mbt", "ab") as f:
        f.write(b"\xc1junk")
    again = listed()
    assert checked == [other.name], checked
    row = next(line for line in again.splitlines() if line.startswith(other.name[:8]))
    assert "damaged (see verify)" in row, again
    # a game gone from the folder leaves the record
    shutil.rmtree(other)
    listed()
    assert set(json.loads(record.read_text())) == {mine.name}


def test_games_says_it_checks_many_new_games_before_the_wait(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Five games new to `games` at a terminal: it says it checks them before it does
    (the terminal stood blank); known ones, or a pipe, are listed without a word more."""
    from engine import Seating, preset
    from p2p.table.memory import make_table
    from p2p.table.store import Store

    data = tmp_path / "data"
    for i in range(5):
        cfg, _ids = make_table(preset("classic"), Seating(2, 2), ["Al", "Bo"],
                               b"games-many-%d" % i)
        Store.create(data, cfg.header(), 0, port=0).close()
    assert main(["games", "--data-dir", str(data)]) == 0        # not a terminal: no word
    assert "Checking" not in capsys.readouterr().err
    (data / "games-state.json").unlink()
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["games", "--data-dir", str(data)]) == 0
    cap = capsys.readouterr()
    assert cap.err == "Checking 5 saved games (signatures, shuffles and moves)…\n", cap.err
    assert main(["games", "--data-dir", str(data)]) == 0        # all known now
    assert capsys.readouterr().err == ""


def test_a_word_out_of_its_choices_is_not_named_by_an_internal_name(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Newcomer pass 25: `millebornes bench foo` answered "what: invalid choice: 'foo'",
    "what" being the argument's name inside the program. A word in its place is named by
    the verb alone; the choices and the likely one are said as before."""
    assert main(["bench", "foo"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert err.startswith("millebornes bench: invalid choice: 'foo' (choose from 'engine', "
                          "'deck', 'net', 'trust')"), err
    assert main(["bench", "engin"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert err.startswith("millebornes bench: invalid choice: 'engin'"), err
    assert "did you mean 'engine'?" in err, err
    assert main(["help", "foo"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("millebornes help: invalid choice: 'foo'"), err
