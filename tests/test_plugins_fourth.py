"""Plug-in bots of kinds the earlier reviews did not try, written from docs/bots.md alone
(fourth review of the plug-ins): a bot that thinks with ``asyncio.run`` at the
full-screen table (which runs an event loop of its own), a bot whose ``choose``
registers ``os._exit`` as an exit handler, a bot that thinks with a ``spawn`` process
pool (``simulate``, ``tournament``), a factory that makes a plain function or a callable
instead of a bot, a factory that is slow (a bot warming up before its first game),
options past a float's range or typed in compatibility characters, a bot that sets up
logging for itself (``basicConfig(force=True)``), one that answers an index, an ``async
def choose`` or a ``choose`` that yields, a bot whose own thread prints while the player
thinks, and one whose leftovers make Python warn outside its call."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import in_process_table_in_tmux, millebornes_with_plugins

from cli.bot_limit import make_bounded_bot
from cli.driver import LocalDriver
from engine import CLASSIC, Play, Seating
from engine.testing import install_plugin

PLUGIN = '''
import asyncio
import atexit
import concurrent.futures
import multiprocessing
import os


class Async:
    """Thinks with asyncio, as a stranger might: a coroutine run by asyncio.run."""

    def __init__(self, seed):
        self.seed = seed

    async def _think(self, legal):
        await asyncio.sleep(0)
        return legal[0]

    def choose(self, view, legal):
        return asyncio.run(self._think(legal))


class OwnLoop(Async):
    """Keeps an event loop of its own and runs it at each move."""

    def __init__(self, seed):
        super().__init__(seed)
        self.loop = asyncio.new_event_loop()

    def choose(self, view, legal):
        return self.loop.run_until_complete(self._think(legal))


class AtExit(Async):
    """Registers os._exit(7) as an exit handler in its first move."""

    def choose(self, view, legal):
        if not getattr(self, "done", False):
            self.done = True
            atexit.register(os._exit, 7)
        return legal[0]


def neg(i):
    return -i


class Spawned(Async):
    """Scores its moves in a pool of the spawn kind, never shut down."""

    def __init__(self, seed):
        super().__init__(seed)
        ctx = multiprocessing.get_context("spawn")
        self.pool = concurrent.futures.ProcessPoolExecutor(2, mp_context=ctx)

    def choose(self, view, legal):
        scores = list(self.pool.map(neg, range(len(legal))))
        return legal[scores.index(max(scores))]


def choose(view, legal):
    return legal[0]


def make_async(seed):
    return Async(seed)


def make_own_loop(seed):
    return OwnLoop(seed)


def make_at_exit(seed):
    return AtExit(seed)


def make_spawned(seed):
    return Spawned(seed)


class SlowToMake(Async):
    """Warms up in its factory (a model to load): 2.5 s, at the check of --bots alone."""

    def __init__(self, seed):
        super().__init__(seed)
        if seed == 0:
            import time
            time.sleep(2.5)


def make_slow(seed):
    return SlowToMake(seed)


class TakesTheLog(Async):
    """Sets up logging as a script would (basicConfig, force=True), then breaks."""

    def __init__(self, seed):
        super().__init__(seed)
        import logging
        logging.basicConfig(force=True, level=logging.WARNING)
        self.n = 0

    def choose(self, view, legal):
        self.n += 1
        if self.n == 3:
            raise RuntimeError("broke at its third move")
        return legal[0]


def make_takes_log(seed):
    return TakesTheLog(seed)


class Index(Async):
    """Answers the index of its move, as a stranger's first bot might."""

    def choose(self, view, legal):
        return len(legal) - 1


def make_index(seed):
    return Index(seed)


class AsyncChoose(Async):
    """Its choose is an async def, as a stranger used to asyncio might write it."""

    async def choose(self, view, legal):
        return legal[0]


class Yields(Async):
    def choose(self, view, legal):
        yield legal[0]


def make_async_choose(seed):
    return AsyncChoose(seed)


def make_yields(seed):
    return Yields(seed)


class Ponders(Async):
    """Starts a thread of its own that ponders aloud while the player thinks (between its
    calls); once it has printed 5 times outside a call, it says so in PONDERED (a file)."""

    def choose(self, view, legal):
        self.calling = True
        if not getattr(self, "thread", None):
            import sys
            import threading
            import time

            def ponder():
                outside = 0
                while True:
                    if not self.calling:
                        print("PONDERING ALOUD", flush=True)
                        sys.stderr.write("PONDERING TO STDERR\\n")
                        os.write(1, b"PONDERING BELOW\\n")
                        outside += 1
                        if outside == 5:
                            with open(os.environ["PONDERED"], "w") as f:
                                f.write("5")
                    time.sleep(0.02)
            self.thread = threading.Thread(target=ponder, daemon=True)
            self.thread.start()
        self.calling = False
        return legal[0]


def make_ponders(seed):
    return Ponders(seed)


class LeavesACoroutine(Async):
    """Breaks with a coroutine of its own never awaited, freed with the fault's
    traceback (outside its call): Python warns "coroutine ... was never awaited"."""

    def choose(self, view, legal):
        pending = self._think(legal)
        raise RuntimeError(f"broke, {pending.__name__} left pending")


def make_leaves_coroutine(seed):
    return LeavesACoroutine(seed)


def make_function(seed):
    return choose


class Calls:
    def __call__(self, view, legal):
        return legal[0]


def make_callable(seed):
    return Calls()
'''


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    install_plugin(tmp_path, "mb_fourth", PLUGIN, {
        "fasync": "make_async", "fownloop": "make_own_loop", "fatexit": "make_at_exit",
        "fspawned": "make_spawned", "ffunction": "make_function",
        "fcallable": "make_callable", "fslow": "make_slow",
        "ftakeslog": "make_takes_log", "findex": "make_index",
        "fasyncdef": "make_async_choose", "fyields": "make_yields",
        "fponders": "make_ponders", "fleavescoro": "make_leaves_coroutine"})
    return tmp_path


def _cli(plugin_dir: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return millebornes_with_plugins(plugin_dir, *argv)


@pytest.mark.parametrize("name", ["fasync", "fownloop"])
def test_a_bot_that_thinks_with_asyncio_moves_where_an_event_loop_runs(
        plugins: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """The full-screen table (``play --in-process``) asks its bots from inside its event
    loop: ``asyncio.run`` in ``choose`` raised "cannot be called from a running event
    loop" there, a bot fault (the heuristic took the seat), though the same bot played
    everywhere else. Its table's driver, made as ``play`` makes it, in a running loop:
    the bot moves to the hand's end, and the table's loop runs on, as it was."""
    monkeypatch.syspath_prepend(str(plugins))
    bot = make_bounded_bot(name, 1, quiet=True)
    d = LocalDriver(CLASSIC, Seating.solo(2), ["Ann", "Bo"], seat=0, seed=4,
                    bots=[None, bot])

    async def table() -> None:
        loop = asyncio.get_running_loop()
        for _ in range(300):
            if d.hand_over:
                break
            if d.my_move():
                legal = d.legal()
                d.submit(next((a for a in legal if not isinstance(a, Play)), legal[0]))
            else:
                d.step_others()
            assert asyncio.get_running_loop() is loop
            assert asyncio.get_event_loop() is loop
            await asyncio.sleep(0)
        assert d.hand_over

    asyncio.run(table())
    assert not [e for e in d.events if "failed to move" in e], d.events[-5:]
    assert d.bots[1] is bot


def test_an_exit_handler_a_bot_registers_with_os_exit_raises_nothing_after_the_report(
        plugins: Path) -> None:
    """``atexit.register(os._exit, 7)`` in ``choose`` held the guard's stand-in for
    ``os._exit``, which raised ``BotExited`` at the exit: a traceback per match after
    the report ("Exception ignored in atexit callback"). Out of its call it is
    ``os._exit``: the program ends with the status the plug-in chose, the report whole."""
    res = _cli(plugins, "simulate", "--bots", "fatexit,heuristic", "--games", "2")
    assert "Traceback" not in res.stderr and "Exception ignored" not in res.stderr, \
        res.stderr
    assert res.stdout.startswith("2 matches"), res.stdout
    assert res.returncode == 7


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="stop_children: Linux")
def test_a_bot_with_a_spawn_pool_leaves_no_traceback_after_the_report(
        plugins: Path) -> None:
    """A bot that thinks in a ``spawn`` process pool starts multiprocessing's resource
    tracker in the command's process; the end of the command stopped it with the
    bot's processes, the pool's exit handlers started another, which printed
    "KeyError: '/mp-...'" tracebacks after the report. The tracker is left to end with
    the command, the bot's pool is stopped."""
    res = _cli(plugins, "simulate", "--bots", "fspawned,heuristic", "--games", "2")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("2 matches"), res.stdout
    assert "Traceback" not in res.stderr and "died unexpectedly" not in res.stderr, \
        res.stderr


@pytest.mark.parametrize(("name", "said"), [
    ("ffunction", "made a function, not an object with a choose(view, legal) method"),
    ("fcallable", "made an object of type Calls, which has no choose(view, legal) method"),
])
def test_a_factory_that_makes_a_function_is_told_what_a_bot_is(
        plugins: Path, name: str, said: str) -> None:
    """A factory that returns the bot's function (or a callable) instead of an object
    with ``choose``: the message said "made no object with choose()", not what it made
    nor what ``choose`` takes."""
    res = _cli(plugins, "simulate", "--bots", f"{name},heuristic", "--games", "1")
    assert res.returncode == 2
    assert f"bot plug-in {name!r} {said}" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="stop_children: Linux")
@pytest.mark.parametrize("jobs", ["1", pytest.param("2", marks=pytest.mark.slow)])
def test_a_bot_with_a_spawn_pool_in_a_tournament_leaves_no_traceback(
        plugins: Path, jobs: str) -> None:
    """In a tournament's worker, the worker's end unlinked the semaphores of a bot's
    ``spawn`` pool whose processes were still starting: each printed a traceback
    ("FileNotFoundError" in ``SemLock._rebuild``) after the report. The worker stops
    what its bots left running before its own exit handlers."""
    res = _cli(plugins, "tournament", "--bots", "fspawned,heuristic", "--deals", "2",
               "--jobs", jobs)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("4 matches"), res.stdout
    assert "Traceback" not in res.stderr, res.stderr


@pytest.mark.slow
@pytest.mark.alone   # a quick bot's making is said slow past 2 s: it was so at load 10 (CI)
def test_a_bot_slow_to_make_is_said_while_the_player_waits(plugins: Path) -> None:
    """The check of ``--bots`` makes the bot once in a child process before anything is
    shown: a factory that warms up (loads a model) left the terminal blank for up to a
    minute, in ``play`` too. After 2 s the player is told what runs and for how long."""
    res = _cli(plugins, "simulate", "--bots", "fslow,heuristic", "--games", "1")
    assert res.returncode == 0, res.stderr
    assert ("Starting the bot fslow: it is slow to start (it may take up to 30 "
            "seconds)...") in res.stderr
    assert res.stdout.startswith("1 match"), res.stdout
    quick = _cli(plugins, "simulate", "--bots", "fasync,heuristic", "--games", "1")
    assert "slow to start" not in quick.stderr


@pytest.mark.parametrize(("text", "value"), [
    ("1e999", "1e999"), ("-1e999", "-1e999"), ("1e308", 1e308), ("2.5e3", 2500.0)])
def test_an_option_past_a_floats_range_stays_words(text: str, value: object) -> None:
    """docs/bots.md: ``limit=inf`` arrives as the string "inf", never the float; but
    ``depth=1e999``, plain digits, arrived as the float inf ("depth must be an int, not
    inf", a value the player never wrote)."""
    from engine.bots import parse_bot_spec
    got = parse_bot_spec(f"mybot:opt={text}")[1]["opt"]
    assert got == value and type(got) is type(value)


def test_a_bot_that_sets_up_logging_for_itself_leaves_the_log_whole(plugins: Path) -> None:
    """A bot's ``logging.basicConfig(force=True)`` removed the program's own log from
    the root logger: at the in-process table its fault was said on the screen "(the log
    has the whole reason)", and millebornes.log had no word of it."""
    data = plugins / "table"
    res = _cli(plugins, "play", "--in-process", "--plain", "--auto", "--bots", "ftakeslog",
               "--seed", "3", "--data-dir", str(data))
    assert res.returncode == 0, res.stderr
    assert "failed to move" in res.stdout
    log = (data / "millebornes.log").read_text(encoding="utf-8")
    assert ("bot ftakeslog at seat 1 raised RuntimeError: broke at its third move; a "
            "built-in bot "
            "plays for it from now on") in log, log


@pytest.mark.parametrize("how", [[], pytest.param(["--network"], marks=pytest.mark.slow)])
def test_a_bot_that_answers_an_index_is_told_to_return_the_move(
        plugins: Path, how: list[str]) -> None:
    """A bot that returns ``i`` for ``legal[i]`` was told "chose 0, which is not a legal
    move now": the stranger who wrote it could not tell why 0 was not."""
    res = _cli(plugins, "simulate", *how, "--bots", "findex,heuristic", "--games", "1")
    assert re.search(r"(chose|answered) (\d+), an index \(return the move itself, "
                     r"legal\[\2\]\), which is not a legal move", res.stderr), res.stderr
    assert "Traceback" not in res.stderr


def test_an_options_name_is_read_as_python_reads_a_parameters(
        plugins: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Python reads a parameter's name in NFKC (``def make(seed, ﬁle=1)`` takes
    ``file``), and the factory is called with the option's name as typed: ``ﬁle=3`` (a
    ligature, as a word processor writes it) or a full-width ``ｄｅｐｔｈ=2`` were
    "bad options", unexpected keyword arguments the factory named differently."""
    from engine.bots import parse_bot_spec
    assert parse_bot_spec("mybot:\ufb01le=3:\uff44\uff45\uff50\uff54\uff48=2")[1] == {
        "file": 3, "depth": 2}
    assert parse_bot_spec("mybot:Max-Depth=1")[1] == {"max_depth": 1}


@pytest.mark.parametrize(("name", "said"), [
    ("fasyncdef", "made a bot of type AsyncChoose whose choose is an async def: write it "
                  "as a plain def choose(self, view, legal) that returns one of legal "
                  "(with asyncio.run inside if it awaits)"),
    ("fyields", "made a bot of type Yields whose choose yields: write it as a plain def "
                "choose(self, view, legal) that returns one of legal")])
def test_a_choose_that_is_async_or_yields_is_told_what_to_write(
        plugins: Path, name: str, said: str) -> None:
    """``async def choose`` answered a coroutine: "chose an object of type coroutine",
    and then Python's "RuntimeWarning: coroutine 'AsyncChoose.choose' was never awaited"
    after the report. The fault says what to write; the coroutine, never started, is
    closed without a word. (Since plugins pass 10 it is said as the bot is made, before
    any match: status 2.)"""
    res = _cli(plugins, "simulate", "--bots", f"{name},heuristic", "--games", "1")
    assert res.returncode == 2
    assert said in res.stderr.replace("\n", " "), res.stderr
    assert "never awaited" not in res.stderr and "Warning" not in res.stderr, res.stderr


def test_a_bots_own_thread_prints_nothing_on_the_players_screen(plugins: Path) -> None:
    """``play --in-process`` seats the plug-in in the player's process: its prints were
    silenced during its calls only, and a thread of its own (pondering while the player
    thinks, a progress bar) printed over the board. The board is written by the table
    alone; what the thread writes goes nowhere."""
    marker = plugins / "pondered"              # 5 prints outside a call, then the marker
    screen, _seen = in_process_table_in_tmux(plugins, "fponders",
                                             {"PONDERED": str(marker)}, marker)
    assert "Match to 5000" in screen, screen
    assert "PONDERING" not in screen and "EXITED" not in screen, screen


def test_a_warning_about_a_bots_leftovers_goes_to_the_log_not_the_screen(
        plugins: Path) -> None:
    """A bot that broke leaving a coroutine never awaited: Python's RuntimeWarning came
    as the fault was handled, outside the bot's call, and was written on the player's
    terminal (over the board, in the full screen). At a table that seats a plug-in,
    warnings go to millebornes.log."""
    data = plugins / "table"
    res = _cli(plugins, "play", "--in-process", "--plain", "--auto", "--bots",
               "fleavescoro", "--seed", "3", "--data-dir", str(data))
    assert res.returncode == 0, res.stderr
    assert "failed to move" in res.stdout
    assert "never awaited" not in res.stdout + res.stderr, res.stderr
    log = (data / "millebornes.log").read_text(encoding="utf-8")
    # the bot thinks in a process of its own (as at a networked table), stopped once it
    # broke: its leftovers warn nowhere here; its fault is in the log
    assert "bot fleavescoro at seat 1 raised RuntimeError: broke, _think left pending" \
        in log, log
