"""What a plug-in bot does to the process it runs in, in ``simulate`` and ``tournament``:
a fork, a KeyboardInterrupt in a worker, a closed stderr, a fault in the first game,
and the person's own Ctrl-C, each said in words with the matches played so far
(review of the bot plug-ins, MEDIUM 3 and 4, LOW 5)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PLUGIN = '''
import os
import signal

MADE = [0]


class _Base:
    def __init__(self):
        self.n = 0

    def choose(self, view, legal):
        self.n += 1
        if self.n == 5:
            self.act()
        return legal[0]


class Fork(_Base):
    def act(self):
        os.fork()


class Interrupt(_Base):
    def act(self):
        raise KeyboardInterrupt


class CloseErr(_Base):
    def act(self):
        os.close(2)
        raise RuntimeError("closed")


class CtrlC(_Base):
    """The person's Ctrl-C, as the terminal sends it, in the third match made here."""

    def __init__(self, nth):
        super().__init__()
        self.nth = nth

    def act(self):
        if self.nth == 3:
            os.kill(os.getpid(), signal.SIGINT)


class Rules(_Base):
    def act(self):
        object.__setattr__(self.view.rules, "match_target", 100)

    def choose(self, view, legal):
        self.view = view
        return super().choose(view, legal)


def make_fork(seed, **options):
    return Fork()


def make_interrupt(seed, **options):
    return Interrupt()


def make_closeerr(seed, **options):
    return CloseErr()


def make_ctrlc(seed, **options):
    MADE[0] += 1
    return CtrlC(MADE[0])


def make_rules(seed, **options):
    return Rules()
'''


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "mb_botfix2.py").write_text(textwrap.dedent(PLUGIN))
    dist = tmp_path / "mb_botfix2-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mb-botfix2\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[millebornes.bots]\ntforkin = mb_botfix2:make_fork\n"
        "tkbint = mb_botfix2:make_interrupt\ntcloseerr = mb_botfix2:make_closeerr\n"
        "tctrlc = mb_botfix2:make_ctrlc\ntrules = mb_botfix2:make_rules\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    monkeypatch.delitem(sys.modules, "mb_botfix2", raising=False)


def _cli(plugin_dir: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_dir), str(ROOT)])}
    return subprocess.run([sys.executable, "-m", "cli.main", *argv], capture_output=True,
                          text=True, env=env, cwd=str(ROOT), timeout=120,
                          stdin=subprocess.DEVNULL)


def test_a_bot_that_forks_in_simulate_is_a_fault_and_the_run_is_not_copied(
        plugin_dir: Path) -> None:
    """``os.fork()`` in ``choose``: the copy played the whole run on (32 reports). The
    copy ends as it comes back; the bot is named; the report is printed once, exit 1
    (a fault in game 1 was exit 2 with no report)."""
    r = _cli(plugin_dir, "simulate", "--bots", "tforkin,heuristic", "--games", "3",
             "--seed", "1")
    assert r.returncode == 1, r.stderr
    assert r.stdout.count("0 matches, 0 hands") == 1, r.stdout
    assert r.stderr.count("stopped: bot tforkin at seat 0 failed to move in game 1 of 3: "
                          "forked its process (os.fork): the copy was stopped") == 1, r.stderr


def test_a_keyboard_interrupt_in_a_tournament_worker_is_the_bots_forfeit(
        plugin_dir: Path) -> None:
    """In a worker process a bot's KeyboardInterrupt cannot be the person's Ctrl-C (the
    main process got none): it ended the whole tournament (exit 130, no report). Now the
    bot forfeits its matches, named, and the round robin goes on."""
    r = _cli(plugin_dir, "tournament", "--bots", "tkbint,heuristic,random", "--deals", "2",
             "--jobs", "2", "--seed", "2", "--json", "--quiet")
    assert r.returncode == 0, r.stderr
    by = {b["bot"]: b for b in json.loads(r.stdout)["bots"]}
    assert by["tkbint"]["forfeits"] == by["tkbint"]["matches"] == 8
    assert by["tkbint"]["first_fault"] == "raised KeyboardInterrupt"
    assert "forfeits" not in by["heuristic"] and "forfeits" not in by["random"]


@pytest.mark.parametrize("verb", [
    ["simulate", "--bots", "tctrlc,heuristic", "--games", "5"],
    ["tournament", "--bots", "tctrlc,heuristic", "--deals", "3", "--jobs", "1"],
])
def test_ctrl_c_reports_the_matches_played_so_far(plugin_dir: Path, verb: list[str]) -> None:
    """A real Ctrl-C (SIGINT to the process) in the third match: the run ends (130),
    after the report of the matches played before it (they were all thrown away)."""
    r = _cli(plugin_dir, *verb, "--seed", "3")
    assert r.returncode == 130, (r.stdout, r.stderr)
    assert "stopped: interrupted after 2 of " in r.stderr, r.stderr
    assert "2 matches" in r.stdout, r.stdout
    assert "Traceback" not in r.stderr


def test_a_bot_that_closes_stderr_does_not_hide_why_simulate_stopped(plugin_dir: Path) -> None:
    """``os.close(2)`` in a bot: simulate's "stopped:" line went to the closed stderr."""
    r = _cli(plugin_dir, "simulate", "--bots", "tcloseerr,heuristic", "--games", "2",
             "--seed", "1")
    assert r.returncode == 1
    assert ("stopped: bot tcloseerr at seat 0 failed to move in game 1 of 2: raised "
            "RuntimeError: closed") in r.stderr, r.stderr


def test_a_keyboard_interrupt_in_a_worker_outside_a_bots_call_is_its_forfeit(
        plugin_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``_thread.interrupt_main()`` from a bot's thread lands anywhere in the worker's
    main thread: outside a bot's call it is still the match's plug-in's forfeit."""
    import engine.simulate as engine_simulate
    from cli import tournament
    from engine import CLASSIC, Seating
    monkeypatch.setattr(engine_simulate, "INTERRUPT_IS_BOT_FAULT", True)
    task = tournament.schedule(["heuristic", "tforkin"], CLASSIC, Seating.solo(2), 1, 1)[0]

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(tournament, "play_match", interrupted)
    res = tournament.play_task(task)
    assert task.specs[res.faulty_bot] == "tforkin"
    assert res.fault == "raised KeyboardInterrupt in its worker process (not a Ctrl-C)"
