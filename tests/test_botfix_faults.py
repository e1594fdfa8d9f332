"""What a plug-in bot does to the process it runs in, in ``simulate`` and ``tournament``:
a fork, a KeyboardInterrupt in a worker, a closed stderr, a fault in the first game,
and the person's own Ctrl-C, each said in words with the matches played so far
(review of the bot plug-ins, MEDIUM 3 and 4, LOW 5)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import ctrl_c_as_a_terminal_gives_it

from engine.testing import install_plugin

ROOT = Path(__file__).resolve().parent.parent

PLUGIN = '''
import os
import time
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
        if os.fork():
            time.sleep(0.2)   # the parent: its copy has come back out of choose meanwhile


class Interrupt(_Base):
    def act(self):
        raise KeyboardInterrupt


class Crash(_Base):
    def act(self):
        raise KeyError("boom")


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
        if self.nth == 3:       # to every process of the foreground job, as a terminal does
            os.killpg(_the_commands_group(), signal.SIGINT)


def _the_commands_group():
    """The process group of the command the test started (its foreground job): the
    process under the test's own, up from this one (a tournament's workers lead groups
    of their own, which a terminal's Ctrl-C does not reach: the command stops them)."""
    pid, test = os.getpid(), int(os.environ["MB_TEST_PID"])
    while True:
        with open(f"/proc/{pid}/stat") as stat:
            parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        if parent == test:
            return os.getpgid(pid)
        pid = parent


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


def make_crash(seed, **options):
    return Crash()


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
    install_plugin(tmp_path, "mb_botfix2", PLUGIN, {
        "tforkin": "make_fork", "tkbint": "make_interrupt", "tcloseerr": "make_closeerr",
        "tctrlc": "make_ctrlc", "trules": "make_rules", "tcrash": "make_crash"})
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    monkeypatch.delitem(sys.modules, "mb_botfix2", raising=False)


def _cli(plugin_dir: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_dir), str(ROOT)]),
           "MB_TEST_PID": str(os.getpid())}
    return subprocess.run([sys.executable, "-m", "cli.main", *argv], capture_output=True,
                          text=True, env=env, cwd=str(ROOT), timeout=120,
                          stdin=subprocess.DEVNULL, preexec_fn=_own_job_as_a_terminal_runs_it)


def _own_job_as_a_terminal_runs_it() -> None:
    """The command in a process group of its own, as a terminal's foreground job (a
    Ctrl-C reaches the whole group: a tournament's workers have groups of their own, and
    the command stops them), with SIGINT's default."""
    os.setpgid(0, 0)
    ctrl_c_as_a_terminal_gives_it()


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
    import engine.bot_guard as bot_guard
    from cli import tournament
    from engine import CLASSIC, Seating
    monkeypatch.setattr(bot_guard, "INTERRUPT_IS_BOT_FAULT", True)
    task = tournament.schedule(["heuristic", "tforkin"], CLASSIC, Seating.solo(2), 1, 1)[0]

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(tournament, "play_match", interrupted)
    res = tournament.play_task(task)
    assert task.specs[res.faulty_bot] == "tforkin"
    assert res.fault == "raised KeyboardInterrupt in its worker process (not a Ctrl-C)"


def test_a_bot_that_changes_its_views_rules_changes_no_match(plugin_dir: Path) -> None:
    """``object.__setattr__(view.rules, "match_target", 100)``: the view held the
    engine's own rules, and every match became one hand. A plug-in's view holds a copy."""
    from cli.simulate import simulate
    from engine import CLASSIC, Rules, Seating
    rules = Rules.from_dict(CLASSIC.to_dict())
    out = simulate(rules, Seating.solo(2), ["trules", "heuristic"], 2, 1)
    assert rules.match_target == CLASSIC.match_target
    assert out["games"] == 2 and out["hands"] > 2


@pytest.fixture
def odd_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    install_plugin(tmp_path, "mb_botfix3", "from engine import make_bot\n\n"
                   "def make(seed, **options):\n    return make_bot('random', seed)\n",
                   {name: "make" for name in ("2", "abotwhosenameisfartoolongforatable",
                                              "\ufb00bot", "\u0130stanbul")})
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    monkeypatch.delitem(sys.modules, "mb_botfix3", raising=False)


def test_plugin_names_that_cannot_be_chosen_are_refused_and_typed_ones_found(
        odd_names: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A plug-in called ``2`` was offered, but ``play --bots 2`` means two bots; a
    300-character name widened every column of a tournament; "\ufb00bot" could not be
    typed back as "ffbot". Names are looked up NFKC-folded; digits alone and names over
    24 characters are refused, with the reason in the log."""
    import logging

    from engine import make_bot
    from engine.bots import plugin_bots
    with caplog.at_level(logging.WARNING):
        offered = plugin_bots()
    assert "2" not in offered
    assert not [n for n in offered if n.startswith("abotwhose")]
    assert "a name of digits alone reads as a number of bots" in caplog.text
    assert "its name is longer than 24 characters" in caplog.text
    for typed in ("ffbot", "FFBOT", "\ufb00bot", "\u0130stanbul", "\u0130STANBUL"):
        assert make_bot(typed, 1).choose is not None, typed


def test_play_in_process_logs_a_plugin_not_offered_and_keeps_it_off_the_screen(
        odd_names: Path, tmp_path: Path) -> None:
    """The plug-in warnings were printed on the player's terminal before the log began,
    and the log never had them."""
    data = tmp_path / "data"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(odd_names), str(ROOT)])}
    r = subprocess.run([sys.executable, "-m", "cli.main", "play", "--in-process", "--plain",
                        "--auto", "--bots", "ffbot", "--seed", "3", "--rules", "modern",
                        "--data-dir", str(data)], capture_output=True, text=True, env=env,
                       cwd=str(ROOT), timeout=120, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    assert "not offered" not in r.stderr + r.stdout
    log = (data / "millebornes.log").read_text(encoding="utf-8")
    assert "a name of digits alone reads as a number of bots" in log


def test_ctrl_c_in_simulate_network_reports_the_games_played_so_far(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``simulate --network`` interrupted in its second game reports the first."""
    from cli.main import main
    from p2p import netsim

    def game(rules: object, seating: object, bots: object, seed: int, g: int,
             **kwargs: object) -> netsim.GameRun:
        if g == 1:
            raise KeyboardInterrupt
        result = {"seat": 0, "totals": [700, 0], "winner": 0, "hands": 1, "turns": [30],
                  "entries": 99}
        return netsim.GameRun(True, [result, {**result, "seat": 1}], [], True, True, "ok", 0.1)

    monkeypatch.setattr(netsim, "run_network_game", game)
    assert main(["simulate", "--network", "--games", "3", "--bots", "heuristic"]) == 130
    out = capsys.readouterr()
    assert "1 match, 1 hand" in out.out, out.out
    assert "stopped: interrupted after 1 of 3 matches; the report covers them" in out.err


def test_play_in_process_logs_a_bots_fault(plugin_dir: Path, tmp_path: Path) -> None:
    """``play --in-process``: a bot's fault was said on the screen only, the log empty."""
    data = tmp_path / "data"
    r = _cli(plugin_dir, "play", "--in-process", "--plain", "--auto", "--bots", "tcrash",
             "--seed", "3", "--rules", "modern", "--data-dir", str(data))
    assert r.returncode == 0, r.stderr
    assert "tcrash" in r.stdout                      # the screen says it, in a line
    log = (data / "millebornes.log").read_text(encoding="utf-8")
    assert ("bot tcrash at seat 1 raised KeyError: 'boom'; a built-in bot plays for it from "
            "now on"
            in log), log
