"""A plug-in bot's code never runs in the player's process at a networked table, nor in
the process a built-in bot's peer comes from; in ``simulate --network`` it thinks in a
child of its seat's process, so what it does there (``os.fork``, ``os._exit``,
``KeyboardInterrupt``) is its own fault, named, and the heuristic takes over.

Review of the bot plug-ins (HIGH 1 and 2): ``play``'s check of ``--bots`` imported the
plug-in in the player's process, whose forked bot peers inherited it: a plug-in whose
import patched the heuristic made the other seats throw the game, and one that started
a thread read the player's hand. With ``simulate --network`` a bot that forked got the
honest seat called unresponsive."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.testing import install_plugin

ROOT = Path(__file__).resolve().parent.parent

PLUGIN = '''
import os
import time
import engine.bots as hh
from engine import make_bot

MARK = os.environ.get("MB_BOTFIX_MARK")


def _say(words):
    if MARK:
        with open(MARK, "a") as f:
            f.write(f"{words} {os.getpid()}\\n")


_say("imported")
_init = hh.HeuristicBot.__init__


def _made(self, *args, **kwargs):
    _say("made-heuristic")
    _init(self, *args, **kwargs)


def _thrown(self, view, legal):
    _say("patched-choose")
    return legal[-1]


# what a careless or hostile plug-in may do at import: throw every heuristic's game
hh.HeuristicBot.__init__ = _made
hh.HeuristicBot.choose = _thrown


def make_patch(seed, **options):
    return make_bot("random", seed)


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


class Exit(_Base):
    def act(self):
        os._exit(0)


class Interrupt(_Base):
    def act(self):
        raise KeyboardInterrupt


def make_fork(seed, **options):
    return Fork()


def make_exit(seed, **options):
    return Exit()


def make_interrupt(seed, **options):
    return Interrupt()


def make_dies(seed, **options):
    os._exit(3)


def make_kb(seed, **options):
    raise KeyboardInterrupt
'''


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The plug-ins of PLUGIN on sys.path (this process's and its children's); yields
    the file each import and each patched call writes a line to, with its pid."""
    import engine.bots as hh
    install_plugin(tmp_path, "mb_botfix", PLUGIN, {
        "tpatch": "make_patch", "tfork": "make_fork", "texit": "make_exit",
        "tinterrupt": "make_interrupt", "tdies": "make_dies", "tkb": "make_kb"})
    mark = tmp_path / "mark.txt"
    monkeypatch.setenv("MB_BOTFIX_MARK", str(mark))
    monkeypatch.syspath_prepend(str(tmp_path))
    # should the plug-in run here after all, the heuristic is mended after the test
    monkeypatch.setattr(hh.HeuristicBot, "choose", hh.HeuristicBot.choose)
    monkeypatch.setattr(hh.HeuristicBot, "__init__", hh.HeuristicBot.__init__)
    yield mark
    monkeypatch.delitem(sys.modules, "mb_botfix", raising=False)


def _marks(mark: Path) -> list[tuple[str, int]]:
    if not mark.exists():
        return []
    return [(w, int(p)) for w, p in (line.split() for line in mark.read_text().splitlines())]


def _cli(plugin_dir: Path, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_dir), str(ROOT)])}
    return subprocess.run([sys.executable, "-m", "cli.main", *argv], capture_output=True,
                          text=True, env=env, cwd=str(ROOT), timeout=timeout,
                          stdin=subprocess.DEVNULL)


def test_the_check_of_a_plugin_spec_runs_it_in_a_child_never_here(plugins: Path) -> None:
    """``--bots`` is checked by making the bot, in a throwaway child process: the check
    says the same, and the plug-in's import ran there, not in this process."""
    import engine.bots as hh
    from cli.args import bot_problem, bot_seats
    before = hh.HeuristicBot.choose
    assert bot_problem("tpatch") == ""
    assert bot_seats(1, 5)("tpatch,heuristic").specs == ("tpatch", "heuristic")
    assert "mb_botfix" not in sys.modules
    assert hh.HeuristicBot.choose is before
    imported = [pid for word, pid in _marks(plugins) if word == "imported"]
    assert imported and os.getpid() not in imported


def test_a_check_whose_plugin_ends_or_interrupts_its_process_is_said_in_words(
        plugins: Path) -> None:
    """A factory that ends its process, or raises KeyboardInterrupt, in the check: the
    spec is refused naming the bot (the interrupt was re-raised here as the user's)."""
    from cli.args import bot_problem
    assert bot_problem("tdies") == ("--bots tdies: bot plug-in 'tdies' (mb_botfix:make_dies) "
                                    "failed to make its bot: called os._exit(3), which ends "
                                    "a program at once: stopped")
    assert bot_problem("tkb") == "--bots tkb: bot 'tkb' could not be made: KeyboardInterrupt"


_TABLE = """
import sys
from cli.play import LoopbackTable
from engine import Seating, make_bot, preset
make_bot("tpatch", 0)     # a plug-in ran in this process (as play's check once did)
t = LoopbackTable(preset("classic"), Seating.solo(3), ["Ana", "Bo", "Cy"], seed=5,
                  base=sys.argv[1])
assert t.peer.view() is not None                 # the bots' peers made their bots
print(*[p.pid for p in t.bots.procs.values()], flush=True)
t.close()
t.peer.close(flush=0.2)
"""


@pytest.mark.slow     # about 5 s: two spawned bot peers
def test_a_bot_peer_never_comes_from_a_process_a_plugin_ran_in(plugins: Path,
                                                                 tmp_path: Path) -> None:
    """Bot peers were forked from the player's process: whatever a plug-in's import did
    there (patching the heuristic) lived on in every built-in bot's peer. Once a plug-in
    has run in a process, its bot peers are spawned fresh."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugins.parent), str(ROOT)])}
    r = subprocess.run([sys.executable, "-c", _TABLE, str(tmp_path / "data")], env=env,
                       capture_output=True, text=True, timeout=120, cwd=str(ROOT))
    assert r.returncode == 0, r.stderr
    peers = {int(p) for p in r.stdout.split()}
    assert len(peers) == 2
    marks = _marks(plugins)
    assert not [m for m in marks if m[1] in peers], marks


@pytest.mark.slow     # about 25 s: a networked match of three seats
def test_a_plugins_import_changes_no_other_seat_at_a_networked_play(plugins: Path,
                                                                    tmp_path: Path) -> None:
    """The review's repro: ``play --bots tpatch,heuristic --players 3 --auto``. The
    plug-in's import ran only in its own processes (the check's, its bot's): no
    heuristic anywhere was made or played with its patch."""
    r = _cli(plugins.parent, "play", "--bots", "tpatch,heuristic", "--players", "3",
             "--auto", "--plain", "--data-dir", str(tmp_path / "data"), "--seed", "5")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Final scores" in r.stdout
    marks = _marks(plugins)
    assert [w for w, _p in marks] == ["imported", "imported"], marks   # the check, its bot
    assert len({p for _w, p in marks}) == 2


def test_a_bot_in_its_own_process_that_forks_is_a_named_fault(plugins: Path) -> None:
    """A bot that forks in its child process: the copy ends as it comes back, and the
    bot's fault is said ("forked its process"), then the fallback moves."""
    import random

    from engine import CLASSIC, Seating, apply_action, legal_actions, new_hand, view_of
    from engine.bot_process import BotProcess
    said: list[str] = []
    two = Seating.solo(2)
    order = list(CLASSIC.deck(two))
    random.Random(4).shuffle(order)
    state = new_hand(CLASSIC, two, order, 0)
    bot = BotProcess("tfork", 1, answer_within=20.0,
                     on_fault=lambda spec, words: said.append(f"{spec} {words}"))
    try:
        for _ in range(8):
            seat = state.actors()[0] if state.phase == "respond" else state.seat
            legal = legal_actions(state, seat)
            action = bot.choose(view_of(state, seat), legal)
            assert action in legal
            state = apply_action(state, action)
    finally:
        bot.close()
    assert said == ["tfork forked its process (os.fork): the copy was stopped"]


@pytest.mark.slow     # about 15 s: a networked match of three seats
def test_simulate_network_names_a_bot_that_forks_exits_or_interrupts(plugins: Path) -> None:
    """``simulate --network``: a bot that forked got the honest seat called unresponsive,
    ``os._exit`` gave an empty reason, KeyboardInterrupt a traceback, and the game was
    lost. Each is now its bot's fault, named, and the heuristic plays on."""
    r = _cli(plugins.parent, "simulate", "--network", "--players", "3", "--bots",
             "tfork,texit,tinterrupt", "--games", "1", "--seed", "5")
    assert r.returncode == 0, r.stderr
    for said in ("bot tfork at seat 0 failed to move in game 1 (forked its process (os.fork):"
                 " the copy was stopped)",
                 "bot texit at seat 1 failed to move in game 1 (called os._exit(0), which "
                 "ends a program at once: stopped)",
                 "bot tinterrupt at seat 2 failed to move in game 1 (raised "
                 "KeyboardInterrupt)"):
        assert said in r.stderr, r.stderr
    assert "unresponsive" not in r.stderr and "Traceback" not in r.stderr
    assert "transcripts of each game identical on every peer and verified" in r.stdout
