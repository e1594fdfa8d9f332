"""Plug-in bots written the way strangers would, from docs/bots.md alone (third review
of the plug-ins): the documented example as it stands, a bot that raises
``KeyboardInterrupt`` itself (no Ctrl-C was pressed), two plug-ins in one tournament
match whose worker process ends, options that only look like numbers, a bot that changes
its view's seating, an entry point that names no factory, and a bot that leaves a thread
and a process running. (Slow, ``-m slow``: the same with the fair deck and with
``tournament --jobs 1``.)"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import ctrl_c_as_a_terminal_gives_it, millebornes_with_plugins

from engine.testing import install_plugin

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")

PLUGIN = '''
import os
import threading


class Plain:
    """A correct bot: the first legal move."""

    def __init__(self, seed):
        self.seed = seed

    def choose(self, view, legal):
        return legal[0]


class Interrupts(Plain):
    """Raises KeyboardInterrupt itself at its ``at``-th decision (nobody pressed Ctrl-C)."""

    def __init__(self, seed, at=1):
        super().__init__(seed)
        self.n, self.at = 0, at

    def choose(self, view, legal):
        self.n += 1
        if self.n == self.at:
            raise KeyboardInterrupt
        return legal[0]


class Exits(Plain):
    """Its process dies (a crash of the interpreter) in its 30th decision."""

    def __init__(self, seed):
        super().__init__(seed)
        self.n = 0

    def choose(self, view, legal):
        import signal
        self.n += 1
        if self.n == 30:
            os.kill(os.getpid(), signal.SIGKILL)
        return legal[0]


class ThreadExits(Plain):
    """A thread of its own ends the process, whoever is thinking then."""

    def choose(self, view, legal):
        threading.Thread(target=os._exit, args=(4,), daemon=True).start()
        return legal[0]


class RawThreadExits(Plain):
    """The same from a thread that ``threading`` does not know (``_thread``'s)."""

    def choose(self, view, legal):
        import _thread
        _thread.start_new_thread(os._exit, (4,))
        return legal[0]


class Seats(Plain):
    """Changes the seating of its view, frozen as it is, at its third decision."""

    def __init__(self, seed, field="n_teams", value=1):
        super().__init__(seed)
        self.n, self.field, self.value = 0, field, value

    def choose(self, view, legal):
        self.n += 1
        if self.n == 3:
            object.__setattr__(view.seating, self.field, self.value)
        return legal[0]


def make_seats(seed, **options):
    return Seats(seed, **options)


NOT_A_FACTORY = 42


class LeavesWork(Plain):
    """Starts, at its first decision, a thread that never ends (not a daemon) and a
    process that sleeps for ten minutes, and leaves both running."""

    def __init__(self, seed):
        super().__init__(seed)
        self.n = 0

    def choose(self, view, legal):
        import subprocess
        import sys
        self.n += 1
        if self.n == 1:
            threading.Thread(target=threading.Event().wait).start()
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
            with open(os.environ["MB_THIRD_PIDS"], "a") as f:
                f.write(f"{child.pid} ")
        return legal[0]


MADE = [0]


class Swallows(Plain):
    """From the third match made here on, thinks 0.2 s a move inside a bare ``except``
    (which swallows a Ctrl-C), and says so in a file."""

    def __init__(self, seed, nth):
        super().__init__(seed)
        self.nth = nth

    def choose(self, view, legal):
        import time
        if self.nth >= 3:
            with open(os.environ["MB_THIRD_PIDS"], "a") as f:
                f.write("thinking ")
            try:
                time.sleep(0.2)
            except BaseException:
                pass
        return legal[0]


def make_swallows(seed, **options):
    MADE[0] += 1
    return Swallows(seed, MADE[0])


def make_leaves_work(seed, **options):
    return LeavesWork(seed)


def make_plain(seed, **options):
    return Plain(seed)


def make_interrupts(seed, **options):
    return Interrupts(seed, **options)


def make_interrupts_made(seed, **options):
    raise KeyboardInterrupt


def make_exits(seed, **options):
    return Exits(seed)


def make_thread_exits(seed, **options):
    return ThreadExits(seed)


def make_raw_thread_exits(seed, **options):
    return RawThreadExits(seed)
'''


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    install_plugin(tmp_path, "mb_third", PLUGIN, {
        "tplain": "make_plain", "tplain2": "make_plain", "tkiself": "make_interrupts",
        "tkimade": "make_interrupts_made", "texits": "make_exits",
        "tthreadexit": "make_thread_exits", "trawexit": "make_raw_thread_exits",
        "tseats": "make_seats",
        "tconstant": "NOT_A_FACTORY", "tleaves": "make_leaves_work",
        "tswallows": "make_swallows"})
    return tmp_path


def _cli(plugin_dir: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return millebornes_with_plugins(plugin_dir, *argv)


def _doc_block(starts: str) -> str:
    blocks = [b for b in re.findall(r"```\w*\n(.*?)```", DOC, re.S) if b.startswith(starts)]
    assert len(blocks) == 1, starts
    return blocks[0]


def test_the_documented_example_bot_works_as_written(tmp_path: Path) -> None:
    """The example of docs/bots.md, copied as it stands, with the entry point its
    pyproject.toml declares: short, found by name, its option taken, and it plays."""
    source = _doc_block("# mybot.py")
    assert len(source.splitlines()) <= 30
    toml = tomllib.loads(_doc_block("# pyproject.toml of the plug-in"))
    points = toml["project"]["entry-points"]["millebornes.bots"]
    assert points == {"mybot": "mybot:make"}
    assert toml["tool"]["setuptools"]["py-modules"] == ["mybot"]
    install_plugin(tmp_path, "mybot", source, {"mybot": "make"})
    for spec in ("mybot", "mybot:coups=no", "MyBot"):
        res = _cli(tmp_path, "simulate", "--bots", f"{spec},heuristic", "--games", "2",
                   "--json")
        assert res.returncode == 0, res.stderr
        report = json.loads(res.stdout)
        assert report["games"] == 2 and "stopped" not in report


def test_a_bot_that_raises_keyboard_interrupt_itself_is_named_in_simulate(
        plugins: Path) -> None:
    """Nobody pressed Ctrl-C: the bot's own ``raise KeyboardInterrupt`` is its fault,
    named with its seat and game, the matches before it reported (it was taken for the
    person's Ctrl-C: "interrupted", exit 130, no bot named)."""
    res = _cli(plugins, "simulate", "--bots", "tkiself:at=300,tplain", "--games", "4",
               "--json")
    assert res.returncode == 1, res.stderr
    report = json.loads(res.stdout)
    assert report["stopped"].startswith("bot tkiself:at=300 at seat 0 failed to move in "
                                        "game ")
    assert report["stopped"].endswith("raised KeyboardInterrupt")
    assert "interrupted" not in report
    res = _cli(plugins, "simulate", "--bots", "tkiself,heuristic", "--games", "2")
    assert res.returncode == 1
    assert ("stopped: bot tkiself at seat 0 failed to move in game 1 of 2: raised "
            "KeyboardInterrupt") in res.stderr
    assert "interrupted" not in res.stderr


def test_a_factory_that_raises_keyboard_interrupt_is_named(plugins: Path) -> None:
    """Made for a match, a factory's own KeyboardInterrupt is its fault (the check of
    ``--bots`` happens in a child process that ignores Ctrl-C, and names it too)."""
    res = _cli(plugins, "simulate", "--bots", "tkimade,heuristic", "--games", "2")
    assert res.returncode == 2
    assert "tkimade" in res.stderr and "KeyboardInterrupt" in res.stderr
    assert "interrupted" not in res.stderr


def test_a_tournament_in_one_process_forfeits_a_bot_that_raises_keyboard_interrupt(
        plugins: Path) -> None:
    """``tournament --jobs 1``: the bot forfeits its matches, the round robin is played
    whole (it stopped as if the person had pressed Ctrl-C)."""
    res = _cli(plugins, "tournament", "--bots", "tkiself:at=40,heuristic,tplain",
               "--deals", "1", "--jobs", "1", "--json", "--quiet")
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["matches"] == 6 and "stopped" not in report
    by = {b["bot"]: b for b in report["bots"]}
    assert by["tkiself:at=40"]["forfeits"] == 4
    assert by["tkiself:at=40"]["first_fault"] == "raised KeyboardInterrupt"
    assert "forfeits" not in by["heuristic"] and "forfeits" not in by["tplain"]


def test_of_two_plugins_the_one_that_ends_its_worker_in_its_move_forfeits(
        plugins: Path) -> None:
    """Both bots of the match are plug-ins: the one in whose move the worker ended (its
    match played alone, twice) forfeits, the honest one is not blamed, and the round
    robin goes on (it ended, "cannot go on", every match played lost)."""
    res = _cli(plugins, "tournament", "--bots", "tplain,texits,heuristic", "--deals", "2",
               "--jobs", "2", "--json", "--quiet")
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["matches"] == 12 and "stopped" not in report
    by = {b["bot"]: b for b in report["bots"]}
    assert by["texits"]["forfeits"] == 8
    assert by["texits"]["first_fault"] == ("ended its worker process in the middle of the "
                                           "match (SIGKILL, killed: by the system, short of "
                                           "memory, or by someone)")
    assert "forfeits" not in by["tplain"] and "forfeits" not in by["heuristic"]
    pairs = {(p["bot"], p["opponent"]): p for p in report["pairs"]}
    assert pairs[("tplain", "texits")]["score"] == 4


def test_when_which_plugin_ended_the_worker_cannot_be_told_the_played_are_reported(
        plugins: Path) -> None:
    """A plug-in's thread ends the worker in a match of two plug-ins: which did it cannot
    be told, so the tournament stops, but it reports the matches played before (exit 1;
    it printed only an error, exit 2). (A thread ``threading`` knows is its plug-in's
    since plugins pass 11, tests/test_plugins_eleventh: a raw ``_thread``'s here.)"""
    res = _cli(plugins, "tournament", "--bots", "tplain,heuristic,trawexit,tplain2",
               "--deals", "1", "--jobs", "2", "--json", "--quiet")
    assert res.returncode == 1, res.stderr
    report = json.loads(res.stdout)
    assert report["stopped"].startswith("stopped: a worker process ended in the middle of "
                                        "a match of tplain and trawexit")
    assert "cannot be told" in report["stopped"]
    # the pair played before it is reported whole; the bots are not blamed
    pairs = {(p["bot"], p["opponent"]): p for p in report["pairs"]}
    assert pairs[("tplain", "heuristic")]["matches"] == 2
    assert report["matches"] >= 2
    assert all("forfeits" not in b or b["bot"] == "trawexit" for b in report["bots"])
    assert report["stopped"] in res.stderr


@pytest.mark.parametrize(("text", "value"), [
    ("3", 3), ("-3", -3), ("0.5", 0.5), ("1e-3", 0.001), ("007", 7),
    ("Nan", "Nan"), ("nan", "nan"), ("inf", "inf"), ("-Infinity", "-Infinity"),
    ("1_000", "1_000"), ("\u0663", "\u0663"), ("0x10", "0x10"), ("1" * 5000, "1" * 5000)])
def test_an_option_is_a_number_only_when_written_in_plain_digits(text: str,
                                                                  value: object) -> None:
    """docs/bots.md: an option arrives as a number when written as one; ``player=Nan``
    reached the bot as the float nan, ``n=1_000`` as 1000, five thousand digits raised."""
    from engine.bots import parse_bot_spec
    got = parse_bot_spec(f"mybot:opt={text}")[1]["opt"]
    assert got == value and type(got) is type(value)


def _same(report: dict[str, Any]) -> dict[str, Any]:
    """A report but for the time it took and the bots' names."""
    out = {k: v for k, v in report.items() if k not in ("hands_per_second", "seconds",
                                                       "transcripts", "players")}
    out["players"] = [{k: v for k, v in p.items() if k != "bot"} for p in report["players"]]
    return out


@pytest.mark.parametrize("how", [[], pytest.param(["--fair-deck"], marks=pytest.mark.slow)])
def test_a_bot_that_changes_its_views_seating_changes_no_match(plugins: Path,
                                                                how: list[str]) -> None:
    """``object.__setattr__(view.seating, "n_teams", 1)``: the view held the engine's own
    seating, and simulate ended in "unexpected error: IndexError", naming no bot, every
    match lost. A plug-in's view holds a copy: the matches are those of a bot that
    changes nothing."""
    runs = {}
    for spec in ("tseats", "tseats:field=n_players:value=6", "tplain"):
        res = _cli(plugins, "simulate", "--bots", f"{spec},heuristic", "--games", "2",
                   "--json", *how)
        assert res.returncode == 0, res.stderr
        runs[spec] = json.loads(res.stdout)
    for report in runs.values():
        assert report["games"] == 2 and "stopped" not in report
    if not how:   # a fair deck's shuffle is the players' (their names): other cards
        assert _same(runs["tseats"]) == _same(runs["tplain"])
        assert _same(runs["tseats:field=n_players:value=6"]) == _same(runs["tplain"])


def test_an_entry_point_that_names_no_factory_is_said_so(plugins: Path) -> None:
    """An entry point naming a constant: said as the plug-in's mistake, with its entry
    point (it was "could not be made: TypeError: 'int' object is not callable")."""
    res = _cli(plugins, "simulate", "--bots", "tconstant,heuristic", "--games", "1")
    assert res.returncode == 2
    assert ("bot plug-in 'tconstant' (mb_third:NOT_A_FACTORY) is not a factory of bots: its "
            "entry point names an object of type int, not a function or a class"
            ) in " ".join(res.stderr.split())


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux: /proc, prctl")
@pytest.mark.parametrize("argv", [
    ["tournament", "--bots", "tplain,tleaves", "--deals", "1", "--jobs", "2", "--quiet"],
    pytest.param(["tournament", "--bots", "tplain,tleaves", "--deals", "1", "--jobs", "1",
                  "--quiet"], marks=pytest.mark.slow),
    ["simulate", "--bots", "tleaves,tplain", "--games", "2"]])
def test_what_a_bot_leaves_running_ends_with_the_command(plugins: Path,
                                                         argv: list[str]) -> None:
    """A bot's thread that never ends and its child process: the command's output ends
    with the command, and nothing the bot started runs on (a tournament's workers stayed,
    held by the thread, and the children of the bots everywhere, holding the output
    open: ``millebornes tournament ... | tail`` waited ten minutes)."""
    pids = plugins / "pids"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugins), str(ROOT)]),
           "XDG_DATA_HOME": str(plugins / "data"), "MB_THIRD_PIDS": str(pids)}
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=str(plugins), stdin=subprocess.DEVNULL,
                            start_new_session=True)   # all of it can be stopped at the end
    try:
        out, err = proc.communicate(timeout=30)   # until the output's end: every writer gone
        assert proc.returncode == 0, err
        assert "mb_third" not in err and "Traceback" not in err
        left = [int(p) for p in pids.read_text().split()]
        assert left
        assert not [p for p in left if _alive(p)]
    finally:
        try:
            os.killpg(proc.pid, 9)   # had it failed: the workers too, not left behind
        except OSError:
            pass
        proc.wait()
        for p in (pids.read_text().split() if pids.exists() else []):
            try:
                os.kill(int(p), 9)
            except OSError:
                pass


def test_a_ctrl_c_that_a_bot_swallows_still_stops_simulate(plugins: Path) -> None:
    """A bot that thinks inside a bare ``except:`` caught the person's Ctrl-C and moved
    on: simulate never stopped. The Ctrl-C (a SIGINT came during the bot's call) stops
    it all the same, with the matches played so far."""
    said = plugins / "said"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugins), str(ROOT)]),
           "XDG_DATA_HOME": str(plugins / "data"), "MB_THIRD_PIDS": str(said)}
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", "simulate", "--bots",
                             "tswallows,tplain", "--games", "500", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=str(plugins), stdin=subprocess.DEVNULL,
                            preexec_fn=ctrl_c_as_a_terminal_gives_it)
    try:
        for _ in range(300):                      # the third match has begun
            if said.exists() and said.read_text():
                break
            time.sleep(0.1)
        assert said.read_text()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    report = json.loads(out)
    assert report["interrupted"] is True and report["games"] == 2
    assert report["stopped"] == ("stopped: interrupted after 2 of 500 matches; the report "
                                 "covers them")
