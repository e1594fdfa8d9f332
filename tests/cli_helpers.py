"""Driving a prompt_toolkit application headless (a pipe for keys, a dummy screen), a
joiner in its own process for the network tests, and free ports for processes to bind."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

A = TypeVar("A")

_port_rng = random.Random(os.getpid())


def _ephemeral_range() -> tuple[int, int]:
    try:
        lo, hi = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(lo), int(hi)
    except (OSError, ValueError):
        return 32768, 60999


def free_port() -> int:
    """A port free on 127.0.0.1 for TCP and UDP (a table's key door uses the same number),
    for a process under test to bind. Drawn below the kernel's ephemeral range: a port taken
    with bind(0) and closed could be handed to some outgoing connection again before the
    process binds it (about 1 bind in 28,000)."""
    lo = _ephemeral_range()[0]
    for _ in range(200):
        port = _port_rng.randrange(max(1024, lo - 12000), lo)
        try:
            with socket.socket() as t, socket.socket(type=socket.SOCK_DGRAM) as u:
                t.bind(("127.0.0.1", port))
                u.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue
    with socket.socket() as t:
        t.bind(("127.0.0.1", 0))
        return int(t.getsockname()[1])


def run_headless(make_app: Callable[[PipeInput, DummyOutput], A],
                 script: Callable[[A, PipeInput], Awaitable[None]]) -> int:
    """Run ``make_app(input, output).run_async()`` while ``script`` types into it;
    ctrl-q ends the app if the script leaves it running."""
    async def go() -> int:
        with create_pipe_input() as inp:
            app: Any = make_app(inp, DummyOutput())
            task = asyncio.ensure_future(app.run_async())
            try:
                await script(app, inp)
            finally:
                if not task.done():
                    inp.send_text("\x11")  # ctrl-q
            return int(await asyncio.wait_for(task, 10))
    return asyncio.run(go())


async def leave_by_keys(app: Any, inp: PipeInput) -> None:
    """q, then y to "Leave the game?": how a player leaves the full screen."""
    inp.send_text("q")
    await until(lambda: app.confirm_quit)
    inp.send_text("y")


def run_board(driver: Any, script: Callable[[Any, PipeInput], Awaitable[None]]) -> int:
    """``script`` typing into the full screen (``cli.app.TableApp``) of ``driver``, moves
    said with no delay."""
    from cli.app import TableApp

    return run_headless(
        lambda inp, out: TableApp(driver, input=inp, output=out, delay=0), script)


async def until(cond: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait (inside the app's event loop) until ``cond()`` holds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.01)


def ctrl_c_as_a_terminal_gives_it() -> None:
    """``preexec_fn`` for a child that a test sends SIGINT (the person's Ctrl-C): a shell's
    background job (CI under nohup or ``&``) starts its children with SIGINT ignored, and
    Python then never raises KeyboardInterrupt. A terminal gives the default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_joiner(hport: int, jport: int, jdir: Path, jkey: Path) -> subprocess.Popen[bytes]:
    """``millebornes join --auto`` as Ben, in its own process (so it can be killed like a
    player closing the terminal), joining the table at 127.0.0.1:``hport``."""
    code = ("import argparse, io, sys; from cli import join; "
            f"a = argparse.Namespace(name='Ben', peer=['127.0.0.1:{hport}'], bind='127.0.0.1', "
            f"port={jport}, data_dir={str(jdir)!r}, identity={str(jkey)!r}, auto=True); "
            "sys.exit(join.run(a, out=io.StringIO(), inp=io.StringIO('')))")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    return subprocess.Popen([sys.executable, "-c", code], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=ctrl_c_as_a_terminal_gives_it)


class HostedByAnn:
    """``millebornes host --auto`` as Ann, in a thread of this process (two seats,
    classic, to ``match_target``, on 127.0.0.1:``port``, not announced): ``out`` is what
    her console says, ``keys`` the write end of her keyboard (``type("bot")``), ``rc``
    her exit code once the thread ends. Tests start Ben with :func:`start_joiner`."""

    def __init__(self, tmp_path: Path, port: int, match_target: int) -> None:
        import argparse
        import threading

        from cli import host as host_verb

        self.out = io.StringIO()
        read_end, self.keys = os.pipe()
        self.rc: list[int] = []
        args = argparse.Namespace(name="Ann", bots=0, players=2, rules="classic",
                                  option=[f"match_target={match_target}"], bind="127.0.0.1",
                                  port=port, no_announce=True, data_dir=str(tmp_path / "h"),
                                  identity=str(tmp_path / "h.key"), auto=True)

        def host() -> None:
            with os.fdopen(read_end) as inp:
                self.rc.append(host_verb.run(args, out=self.out, inp=inp))

        self.thread = threading.Thread(target=host, daemon=True)
        self.thread.start()

    def type(self, line: str) -> None:
        os.write(self.keys, line.encode() + b"\n")

    def leave(self, timeout: float = 60.0) -> None:
        """Ann quits (``quit``, then ``y``), her console ends and her keyboard is closed:
        a test whose match must still be on when it looks (a long ``match_target``) need
        not wait for its end."""
        self.type("quit")
        self.type("y")
        self.join(timeout)
        os.close(self.keys)

    def join(self, timeout: float) -> None:
        self.thread.join(timeout)


class TerminalStream:
    """A standard error that is a terminal (``isatty``), keeping what is written."""

    def __init__(self) -> None:
        self.text = ""

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass


def wait_into_first_hand(jdir: Path, limit: float = 30.0) -> None:
    """Wait (at most ``limit`` s) until the joiner's transcript is well into the first
    hand: past the shuffle and its proofs and the deal (the first move is at about 55 KB,
    entry 23 of two players), some 40 entries into the play (65 KB); AssertionError if the
    joiner never gets going. (It waited for 80 KB, entry ~128: a random deal gives a
    modern hand of under 150 entries about once in 200, which left the tests killing the
    joiner too near the end of the match, or after it.)"""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        ts = list(jdir.glob("*/transcript.mbt"))
        if ts and ts[0].stat().st_size > 65_000:
            return
        time.sleep(0.01)
    raise AssertionError(f"the joiner never got going within {limit:.0f} s")


class Logged:
    """A child process whose output goes to files, not pipes. A pipe read only at the end
    fills (64 KiB) during a long match and blocks the writer mid-game: a host whose own
    seat stopped in a print left its joiner waiting for its move (failed in CI)."""

    def __init__(self, args: list[str], **popen: Any) -> None:
        self._out = tempfile.TemporaryFile("w+", encoding="utf-8")
        self._err = tempfile.TemporaryFile("w+", encoding="utf-8")
        self.proc = subprocess.Popen(args, stdout=self._out, stderr=self._err, text=True,
                                     **popen)

    def poll(self) -> int | None:
        return self.proc.poll()

    def wait(self, timeout: float) -> int:
        """The exit code; ``subprocess.TimeoutExpired`` if still running after ``timeout``
        s (it keeps running: :meth:`finish` or :meth:`kill` ends it)."""
        return self.proc.wait(timeout=timeout)

    def finish(self, timeout: float) -> tuple[int, str, str]:
        """Wait at most ``timeout`` s (then kill); the exit code and both outputs."""
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        texts = []
        for f in (self._out, self._err):
            f.seek(0)
            texts.append(f.read())
            f.close()
        return self.proc.returncode, texts[0], texts[1]

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class StillWaiting(BaseException):
    """Raised out of a block that hangs (no ``except Exception`` of the code swallows it)."""


@contextlib.contextmanager
def within(seconds: int) -> Iterator[None]:
    """Fail (instead of waiting forever) when the block takes longer than ``seconds``."""
    def timeout(signum: int, frame: object) -> None:
        raise StillWaiting(f"still waiting after {seconds} s")
    old = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


class SizedOutput(DummyOutput):
    """A dummy screen of a given size (DummyOutput says 40×80)."""

    def __init__(self, columns: int, rows: int) -> None:
        super().__init__()
        self.size = Size(rows=rows, columns=columns)

    def get_size(self) -> Size:
        return self.size


def unfold(text: str) -> str:
    """What the console said, in one line of words: a command said over several lines
    with the shell's line continuation (``words.command_lines``) back in one piece, as a
    shell reads it when pasted."""
    return " ".join(text.replace("\\\n", "").split())


def commands_in(text: str) -> list[list[str]]:
    """The ``millebornes`` commands ``text`` shows on lines of their own
    (``words.command_lines``: indented under their sentence, continued with `` \\``, a
    word longer than a line cut inside its quotes), each as the words a shell reads when
    it is pasted. Unlike :func:`unfold`, the same whatever the lines' width: a long path
    (pytest's folder under xdist) is cut where a short one is not."""
    import shlex
    found = []
    for line in text.replace("\\\n", "").splitlines():
        if not line.startswith("  ") or line.startswith("   "):
            continue
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        if words and Path(words[0]).name == "millebornes":
            found.append(words)
    return found


def said(out: io.StringIO) -> str:
    """What a console wrote into ``out`` so far, in one line of words."""
    return " ".join(out.getvalue().split())


def until_said(out: io.StringIO, text: str, timeout: float = 60.0) -> str:
    """Wait (up to ``timeout`` s) until ``out`` has said ``text``; all it said by then."""
    end = time.monotonic() + timeout
    while text not in said(out) and time.monotonic() < end:
        time.sleep(0.05)
    assert text in said(out), out.getvalue()[-6000:]
    return said(out)


def millebornes_with_plugins(plugin_dir: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``millebornes ARGV`` in a child process run from ``plugin_dir``, which holds the
    test's plug-in bots (on its path) and its data (XDG_DATA_HOME), as a terminal starts
    it (SIGINT at its default); its outputs captured, stdin empty."""
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_dir), str(root)]),
           "XDG_DATA_HOME": str(plugin_dir / "data")}
    return subprocess.run([sys.executable, "-m", "cli.main", *argv], capture_output=True,
                          text=True, env=env, cwd=str(plugin_dir), timeout=240,
                          stdin=subprocess.DEVNULL, preexec_fn=ctrl_c_as_a_terminal_gives_it)


def in_process_table_in_tmux(plugin_dir: Path, bot: str, env: dict[str, str], marker: Path,
                             shown: str = "") -> tuple[str, str]:
    """`millebornes play --in-process --auto --bots BOT --seed 3` on a real terminal
    (tmux, 100×30), with the plug-in packages of ``plugin_dir`` importable and ``env``
    added, until the bot writes ``marker`` (up to a minute; the test fails otherwise).
    Returns the screen half a second later (tmux's own refresh) and every screen seen
    meanwhile that showed ``shown`` (empty: none kept). Skips without a working tmux."""
    import shlex
    import shutil

    import pytest

    tmux_path = shutil.which("tmux")
    if tmux_path is None:
        pytest.skip("tmux is not installed")
    root = Path(__file__).resolve().parent.parent
    server = f"mb-plugin-{os.getpid()}-{marker.name}"
    full_env = {"PYTHONPATH": os.pathsep.join([str(plugin_dir), str(root)]),
                "XDG_DATA_HOME": str(plugin_dir / "data"), "LANG": "C.UTF-8", **env}
    command = " ".join(shlex.quote(a) for a in [
        "env", *(f"{k}={v}" for k, v in full_env.items()), sys.executable, "-m", "cli",
        "play", "--in-process", "--auto", "--bots", bot, "--seed", "3"])

    def tmux(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([tmux_path, "-L", server, "-f", os.devnull, *args],
                              capture_output=True, text=True, timeout=10)

    started = tmux("new-session", "-d", "-s", "table", "-x", "100", "-y", "30",
                   f"cd {shlex.quote(str(plugin_dir))} && {command}; echo EXITED $?; "
                   "sleep 60")
    if started.returncode != 0:
        pytest.skip(f"tmux cannot start a session: {started.stderr.strip()}")
    seen = ""
    try:
        for _ in range(240):
            screen = tmux("capture-pane", "-p", "-t", "table").stdout
            seen += screen if shown and shown in screen else ""
            if marker.exists():
                break
            time.sleep(0.25)
        assert marker.exists(), tmux("capture-pane", "-p", "-t", "table").stdout
        time.sleep(0.5)
        return tmux("capture-pane", "-p", "-t", "table").stdout, seen
    finally:
        subprocess.run([tmux_path, "-L", server, "kill-server"], capture_output=True,
                       timeout=10)


class AnnouncedTables:
    """A stand-in for ``p2p.net.discovery.browse_tables``'s browser that has heard
    ``tables`` announced (the LAN's answers, made up by a test)."""

    ignored = 0

    def __init__(self, tables: list[Any]) -> None:
        self.tables = tables

    def __enter__(self) -> AnnouncedTables:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def wait_for(self, pred: object, timeout: float) -> list[Any]:
        return list(self.tables)


def join_until_seated(monkeypatch: Any, tmp_path: Any, capsys: Any, tables: Any,
                      fingerprint: str, pumped: list[Any], seating: Any,
                      connect_timeout: str = "20") -> tuple[int, str, bool, float]:
    """``join --table FINGERPRINT --auto`` on loopback with the LAN's announcements
    ``tables`` (:class:`AnnouncedTables`, or a browser stand-in of the test's), the lobbies ``pumped`` driven in a thread until
    ``seating`` (a ``LobbyHost``) has seated the joiner, which that host then closes (the
    joiner hears it and stops). Returns the exit code, what was said (on one line),
    whether the joiner was seated and the seconds the join took; the caller closes the
    lobbies' nodes."""
    import threading
    import time

    import p2p.net.discovery as discovery
    from cli.main import main

    seated = threading.Event()
    stop = threading.Event()

    def pump() -> None:
        while not stop.is_set():
            for lobby in pumped:
                lobby.pump(0.01)
            if not seated.is_set() and seating.state.seats[1] is not None:
                seated.set()
                seating.close(flush=1.0)       # the joiner hears it and stops
    pumping = threading.Thread(target=pump, daemon=True)
    pumping.start()
    # a list of tables, or a stand-in browser of the test's own
    browser = tables if hasattr(tables, "wait_for") else AnnouncedTables(tables)
    monkeypatch.setattr(discovery, "browse_tables", lambda **kw: browser)
    start = time.monotonic()
    try:
        code = main(["join", "--table", fingerprint, "--bind", "127.0.0.1", "--auto",
                     "--connect-timeout", connect_timeout, "--data-dir",
                     str(tmp_path / "data"), "--identity", str(tmp_path / "id.key")])
        took = time.monotonic() - start
    finally:
        stop.set()
        pumping.join(10)
    out = capsys.readouterr()
    return code, " ".join((out.out + out.err).split()), seated.is_set(), took


class PeerStub(SimpleNamespace):
    """A stand-in for a console's ``Peer`` (:class:`p2p.table.Peer`): the fields a test
    gives, and ``state`` (the console reads where the match stands from one look,
    ``Peer.state``) made from its ``stopped``, ``stop_why``, ``paused`` and ``finished``
    as they are at the read."""

    @property
    def state(self) -> Any:
        from p2p.table import RunState

        return RunState(getattr(self, "stopped", None), getattr(self, "stop_why", None),
                        bool(getattr(self, "paused", False)),
                        bool(getattr(self, "finished", False)))


class WaitingNetDriver:
    """A network console's driver whose table waits on seat 1's move, seat 1's transport
    in ``state`` ("slow", "gone", ...), a bot or not: NetDriver's own methods put the wait
    into words (newcomer passes 19-21 each wrote this stand-in)."""

    names = ["Ann", "Bo"]
    seat, over, hand_no = 0, False, 1
    broken: set[int] = set()
    step_limit = 20.0

    def __init__(self, state: str = "slow", bot: bool = False, seat: int = 0,
                 decision_limit: float | None = None, takeovers: tuple[Any, ...] = (),
                 names: list[str] | None = None) -> None:
        import threading
        from types import SimpleNamespace

        from cli.netdriver import NetDriver
        from p2p.table import TableStep

        if names is not None:
            self.names = names
        self.seat = seat
        self.decision_limit = decision_limit
        self.bots = {1} if bot else set()
        for name in ("silent_words", "held_by", "_bot_name", "bot_runner_name", "runner_name",
                     "_waits_on", "current_names", "_taken"):
            if hasattr(NetDriver, name):
                setattr(self, name, getattr(NetDriver, name).__get__(self))
        self.peer = PeerStub(
            stopped=None, finished=False, paused=False, silence_limit=lambda: 25.0,
            peer_state=lambda s: state, quit_for_now=lambda s: False,
            takeovers=list(takeovers), silent_seat=lambda: None,
            wait_limit=lambda: None, cfg=SimpleNamespace(n=2),
            waiting_on=lambda: SimpleNamespace(seat=1, step=TableStep.MOVE))
        self._events: list[str] = []
        self._silent_said: dict[int, bool] = {1: False}
        self._back_said: set[int] = set()
        self._watch_lock = threading.Lock()

    def replaced(self) -> None:
        return None

    def silent(self) -> None:
        return None

    def activity(self, plain: bool = False) -> str | None:
        from cli.netdriver import NetDriver
        return NetDriver.activity(self, plain=plain)  # type: ignore[arg-type]


def run_main(argv: list[str], capsys: Any) -> tuple[int, str, str]:
    """``millebornes ARGV`` in this process: its exit code (``--help``'s SystemExit too),
    stdout and stderr as captured by pytest's ``capsys``."""
    from cli.main import main

    try:
        rc = main(argv)
    except SystemExit as exc:           # --help
        rc = int(exc.code or 0)
    out, err = capsys.readouterr()
    return rc, out, err
