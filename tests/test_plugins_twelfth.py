"""Plug-in bots written from docs/bots.md alone by outside authors (twelfth review of the
plug-ins): an exception class, or an answer, whose metaclass (or whose own
``__getattribute__``) never ends as the program reads it (``simulate`` and a tournament
hung for ever, past the bot's time limit); a crash from a raw ``_thread`` thread of one
plug-in while another moves (the one moving was named); a bot in a cycle of references
whose ``__del__`` hangs; a SIGPROF handler that turned off the end of a call held in C
code; ``os.umask``, ``sys.path`` emptied (an honest plug-in was named); a long option in
a tournament's report; two plug-ins of one name; a factory that needs an option; a bot's
daemons at a table; a tournament's workers after its ``kill -9``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import millebornes_with_plugins

from engine.testing import install_plugin

ROOT = Path(__file__).resolve().parent.parent


def _millebornes(plugin_dir: Path, *argv: str, timeout: float = 90,
                 limit: float | None = None, env: dict[str, str] | None = None,
                 cpu: float | None = None) -> Any:
    """``millebornes ARGV`` as :func:`millebornes_with_plugins` runs it, within
    ``timeout`` seconds (a run that hangs fails the test rather than the suite), a
    plug-in's time limit ``limit`` seconds when given, and ``cpu`` CPU seconds for a
    call that holds the interpreter."""
    full_env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_dir), str(ROOT)]),
                "XDG_DATA_HOME": str(plugin_dir / "data"), **(env or {})}
    code = ("import cli.bot_limit as b; b.DECISION_LIMIT = b.MAKE_LIMIT = "
            f"{limit if limit is not None else 'b.DECISION_LIMIT'}; "
            + (f"b.cpu_bound = lambda seconds: {cpu}; " if cpu is not None else "")
            + "from cli.main import console_script; console_script()")
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True,
                          text=True, env=full_env, cwd=str(plugin_dir), timeout=timeout,
                          stdin=subprocess.DEVNULL)


ODDCLASS = '''
import random


class Endless(type):
    """A metaclass that computes its classes' names lazily, and never finishes."""

    def __getattribute__(cls, name):
        if name.startswith("__"):
            while True:
                pass
        return super().__getattribute__(name)


class Odd(Exception, metaclass=Endless):
    pass


class Lazy(Exception):
    """Its fields computed on demand, never."""

    def __getattribute__(self, name):
        while True:
            pass


class Raiser:
    def __init__(self, seed, lazy):
        self.rng, self.moves, self.lazy = random.Random(seed), 0, lazy

    def choose(self, view, legal):
        self.moves += 1
        if self.moves == 5:
            raise Lazy("late") if self.lazy else Odd("odd")
        return self.rng.choice(legal)


def make(seed, lazy=0):
    return Raiser(seed, lazy)
'''


@pytest.mark.parametrize("lazy", [0, 1])
def test_an_exception_the_program_cannot_read_does_not_hang_simulate(
        tmp_path: Path, lazy: int) -> None:
    """A plug-in raised an exception whose class's metaclass (or whose own
    ``__getattribute__``) never ends: the program read its name and traceback after
    the bot's call, outside its time limit, and ``simulate`` hung for ever. It is
    named as the bot's fault, its class's name and where it raised said."""
    install_plugin(tmp_path, "oddclass", ODDCLASS, {"oddclass": "make"})
    done = _millebornes(tmp_path, "simulate", "--bots", f"heuristic,oddclass:lazy={lazy}",
                        "--games", "2", "--seed", "5", timeout=60)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    name = "Lazy: late" if lazy else "Odd: odd"
    assert (f"stopped: bot oddclass:lazy={lazy} at seat 1 failed to move in game 1 of 2: "
            f"raised {name}") in done.stderr, done.stderr
    log = (tmp_path / "data" / "millebornes" / "millebornes.log").read_text()
    assert f'raised {name} at view.phase ' in log and 'oddclass.py", line 3' in log, log


def test_an_exception_the_program_cannot_read_is_a_forfeit_in_a_tournament(
        tmp_path: Path) -> None:
    install_plugin(tmp_path, "oddclass", ODDCLASS, {"oddclass": "make"})
    done = _millebornes(tmp_path, "tournament", "--bots", "oddclass,random", "--deals",
                        "1", "--jobs", "1", "--seed", "5", "--json", "--quiet", timeout=60)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    by = {b["bot"]: b for b in json.loads(done.stdout)["bots"]}
    assert by["oddclass"]["forfeits"] == 2 and "forfeits" not in by["random"], by
    assert by["oddclass"]["first_fault"] == "raised Odd: odd", by


RAWSPOILER = '''
import _thread
import ctypes
import os
import time


class Spoiler:
    """Starts a raw thread at its first move (as a C library's binding does, below
    ``threading``) that crashes the interpreter as soon as the other plug-in thinks."""

    def __init__(self):
        self.started = False

    def choose(self, view, legal):
        if not self.started:
            self.started = True
            _thread.start_new_thread(self._later, ())
        return legal[0]

    def _later(self):
        while os.environ.get("HONEST_THINKS") != "1":
            time.sleep(0.001)
        ctypes.string_at(0)


class Honest:
    """Thinks a little at each move, saying so."""

    def choose(self, view, legal):
        os.environ["HONEST_THINKS"] = "1"
        try:
            time.sleep(0.05)
        finally:
            os.environ["HONEST_THINKS"] = "0"
        return legal[0]


def make_spoiler(seed):
    return Spoiler()


def make_honest(seed):
    return Honest()
'''


def test_a_raw_threads_crash_in_simulate_is_its_starters_not_the_movers(
        tmp_path: Path) -> None:
    """A thread started with ``_thread.start_new_thread``, which ``threading`` never
    lists, crashed ``simulate``'s matches process while the other plug-in moved: the
    honest one was named. Every thread says, as it starts, whose call started it."""
    install_plugin(tmp_path, "rawspoiler", RAWSPOILER,
                   {"rawspoiler": "make_spoiler", "honest": "make_honest"})
    done = millebornes_with_plugins(tmp_path, "simulate", "--bots", "rawspoiler,honest",
                                    "--games", "2", "--seed", "5")
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert "stopped: bot rawspoiler at seat 0 failed to move in game 1 of 2: ended the " \
        "process that plays the matches, from a thread it started (SIGSEGV" in done.stderr, \
        done.stderr
    assert "honest at seat 1 failed" not in done.stderr


CYCLIC = '''
import random
import time


class Cyclic:
    """Keeps a reference to itself (a search tree's root that points back at its bot);
    saves its statistics as it is freed, to a drive that never answers."""

    def __init__(self, seed):
        self.rng, self.me = random.Random(seed), self

    def choose(self, view, legal):
        return self.rng.choice(legal)

    def __del__(self):
        time.sleep(1000)


def make(seed):
    return Cyclic(seed)
'''


@pytest.mark.parametrize("verb", ["simulate", "tournament"])
def test_a_bot_in_a_cycle_whose_del_hangs_is_stopped_and_named(tmp_path: Path,
                                                                verb: str) -> None:
    """A bot caught in a cycle of references outlives its drop after the match, and was
    freed whenever Python collected its garbage, anywhere, with no time limit: its
    ``__del__`` held ``simulate`` (and a tournament) for ever. The garbage is collected
    after the match, within the plug-in's time, when its bot outlived its drop."""
    install_plugin(tmp_path, "cyclic", CYCLIC, {"cyclic": "make"})
    if verb == "simulate":
        done = _millebornes(tmp_path, "simulate", "--bots", "heuristic,cyclic", "--games",
                            "3", "--seed", "5", limit=1.0)
        assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
        assert "stopped: bot cyclic at seat 1 failed to move in game 1 of 3: was not " \
            "freed well after the match (its __del__ ran past 1 s and was stopped)" \
            in done.stderr, done.stderr
    else:
        done = _millebornes(tmp_path, "tournament", "--bots", "cyclic,heuristic",
                            "--deals", "1", "--jobs", "1", "--seed", "5", limit=1.0)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        assert "cyclic failed to move and forfeited 2 matches (first: was not freed well " \
            "after the match (its __del__ ran past 1 s" in done.stdout.replace("\n", " ")
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


PROFILED = '''
import random
import signal


class Profiled:
    """Samples its own search with a profiler of its own on SIGPROF (as a sampling
    profiler's library does), and at its third move sums in C for hours."""

    def __init__(self, seed, how):
        self.rng, self.moves, self.how = random.Random(seed), 0, how

    def choose(self, view, legal):
        self.moves += 1
        if self.moves == 1:
            signal.signal(signal.SIGPROF, signal.SIG_IGN if self.how == "ignore"
                          else lambda signum, frame: None)
        if self.moves == 3:
            sum(range(10 ** 13))
        return self.rng.choice(legal)


def make(seed, how="ignore"):
    return Profiled(seed, how)
'''


@pytest.mark.slow     # 8-25 s: a call that sums in C for CPU seconds
@pytest.mark.parametrize("how", ["ignore", "sample"])
def test_a_bot_that_takes_sigprof_is_still_ended_in_c_code(tmp_path: Path, how: str) -> None:
    """A call that holds the interpreter in C code past its limit is ended by SIGPROF
    (CPU time): a plug-in that had put a handler of its own on SIGPROF in an earlier
    call (or ignored it) turned that off, and ``simulate`` waited for ever. SIGPROF ends
    the process again before each call, saying where."""
    install_plugin(tmp_path, "profiled", PROFILED, {"profiled": "make"})
    done = _millebornes(tmp_path, "simulate", "--bots", f"profiled:how={how},heuristic",
                        "--games", "2", "--seed", "5", limit=1.0, cpu=2.0, timeout=60)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"stopped: bot profiled:how={how} at seat 0 failed to move in game 1 of 2: " \
        "ended the process that plays the matches (SIGPROF, stopped: it held the " \
        "interpreter in C code past its time limit)" in done.stderr, done.stderr
    assert 'profiled.py", line 19 in choose' in done.stderr, done.stderr


MASKED = '''
import os
import random


class Masked:
    """Writes its notes where nobody else may read them, with a mask for the whole
    process (``os.umask(0o777)``), never put back."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def choose(self, view, legal):
        os.umask(0o777)
        return self.rng.choice(legal)


def make(seed):
    return Masked(seed)
'''


@pytest.mark.slow     # 3-10 s: two matches on the fair deck
def test_a_bots_umask_does_not_make_the_transcripts_unreadable(tmp_path: Path) -> None:
    """A plug-in's ``os.umask(0o777)`` is the whole process's: ``simulate --fair-deck``
    wrote the transcripts of the matches after its first move with mode 000 (its player
    could neither verify nor replay them). The mask is put back after each call."""
    import stat

    install_plugin(tmp_path, "masked", MASKED, {"masked": "make"})
    done = _millebornes(tmp_path, "simulate", "--bots", "masked,heuristic", "--games", "2",
                        "--seed", "5", "--rules", "modern", "--fair-deck",
                        "--transcript-dir", "kept", timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    kept = sorted((tmp_path / "kept").iterdir())
    assert len(kept) == 2, kept
    modes = [stat.S_IMODE(f.stat().st_mode) for f in kept]
    assert all(mode & 0o600 == 0o600 for mode in modes), [oct(m) for m in modes]


WEIGHTED = '''
import random


class Weighted:
    """Reads its weights from its options, written out (base64, which holds neither
    ',' nor ':'): mybot:w=...."""

    def __init__(self, seed, w):
        self.rng, self.w = random.Random(seed), w

    def choose(self, view, legal):
        return self.rng.choice(legal)


def make(seed, w=""):
    return Weighted(seed, w)
'''


def test_a_long_option_keeps_the_tournaments_report_readable(tmp_path: Path) -> None:
    """Every line of the table, and every item of each bot's points by source (one a
    line, as the name's width left no room), was padded to the whole spec's width: a
    spec of 3,000 characters gave a report of about 100 lines of 3,000 columns (120,000
    characters: 18 MB). Long specs are shown by their start and end (``--json`` keeps
    them whole)."""
    install_plugin(tmp_path, "weighted", WEIGHTED, {"weighted": "make"})
    one, other = "weighted:w=" + "QUJD" * 750, "weighted:w=" + "QUJD" * 749 + "QUJE"
    done = _millebornes(tmp_path, "tournament", "--bots", f"{one},heuristic,{other}",
                        "--deals", "1", "--jobs", "1", "--seed", "5", "--quiet")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) < 160 and len(lines) < 30, lines
    assert "weighted:w=QUJDQUJDQUJDQU...QUJDQUJDQUJE" in done.stdout, lines


def test_two_long_options_alike_at_both_ends_keep_the_report_readable(tmp_path: Path) -> None:
    """Two long specs that differ only in their middle (a weight of many tuned, changed)
    read alike by their start and end, and were then shown whole: the report's lines
    were padded to 3,000 columns again. Each is told from the other by a digest of it."""
    install_plugin(tmp_path, "weighted", WEIGHTED, {"weighted": "make"})
    one = "weighted:w=" + "QUJD" * 375 + "QUJE" + "QUJD" * 374
    other = "weighted:w=" + "QUJD" * 750
    done = _millebornes(tmp_path, "tournament", "--bots", f"{one},heuristic,{other}",
                        "--deals", "1", "--jobs", "1", "--seed", "5", "--quiet")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert max(len(line) for line in lines) < 160 and len(lines) < 30, lines
    shown = {line.split()[0] for line in lines if line.startswith("weighted:w=")}
    assert len(shown) == 2, lines


TWIN = '''
import random


class Twin:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def choose(self, view, legal):
        return self.rng.choice(legal)


def make(seed):
    return Twin(seed)
'''


def test_two_plugins_of_one_name_are_said_on_the_terminal(tmp_path: Path) -> None:
    """Two installed distributions declare the bot ``twin`` (a renamed package whose old
    version stayed installed): the first sorted played, and only the log said that the
    other was not offered; its author, running their new version, measured the old."""
    install_plugin(tmp_path, "twin_new", TWIN, {"twin": "make"})
    install_plugin(tmp_path, "twin_old", TWIN, {"Twin": "make"})
    done = _millebornes(tmp_path, "simulate", "--bots", "twin,heuristic,TWIN", "--players",
                        "3", "--games", "1", "--seed", "5")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    said = [line for line in done.stderr.splitlines() if "installed plug-ins" in line]
    assert said == ["millebornes: 2 installed plug-ins are called 'twin': twin_old:make "
                    "plays, not twin_new:make; give the others' entry points another name "
                    "in the group millebornes.bots, or uninstall them"], done.stderr


DAEMON = '''
import os
import subprocess
import time


class Daemon:
    """Starts its helpers at its first move as daemons do: one in a session of its own,
    one by a double fork and setsid; writes their process ids to DAEMON_PIDS."""

    def __init__(self):
        self.started = False

    def choose(self, view, legal):
        if not self.started:
            self.started = True
            helper = subprocess.Popen(["sleep", "300"], start_new_session=True)
            r, w = os.pipe()
            if os.fork() == 0:                 # the double fork of a daemon
                os.setsid()
                if os.fork() == 0:
                    os.write(w, str(os.getpid()).encode())
                    time.sleep(300)
                os._exit(0)
            os.close(w)
            daemon = int(os.read(r, 32))
            with open(os.environ["DAEMON_PIDS"], "w") as f:
                f.write(f"{helper.pid} {daemon}")
        return legal[0]


def make(seed):
    return Daemon()
'''


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux: /proc")
def test_a_bots_daemons_end_with_its_process_at_a_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At a networked table (and ``play --in-process``) a bot thinks in a process of its
    own, whose group is ended with it: a helper started in a session of its own, or a
    daemon's double fork, left the group and outlived the table, the player's game over.
    The bot's process reaps its orphans, and everything under it is ended with it."""
    import time

    from test_plugins_eleventh import _a_play

    from cli.bot_process import BotProcess

    install_plugin(tmp_path, "daemon", DAEMON, {"daemon": "make"})
    monkeypatch.syspath_prepend(str(tmp_path))
    pids = tmp_path / "pids"
    monkeypatch.setenv("DAEMON_PIDS", str(pids))
    view, legal = _a_play()
    bot = BotProcess("daemon", 1, answer_within=20.0, seat=1)
    try:
        assert bot.choose(view, legal) in legal    # type: ignore[arg-type]
    finally:
        bot.close()
    helpers = [int(p) for p in pids.read_text().split()]
    deadline = time.monotonic() + 5
    while any(_running(p) for p in helpers) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [p for p in helpers if _running(p)]
    for pid in left:
        os.kill(pid, 9)
    assert not left, "left running: " + ", ".join(map(str, left))


THINKER = '''
import os
import random
import time


class Thinker:
    """Takes its time at every move (within its limit), saying in which process."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def choose(self, view, legal):
        with open(os.environ["THINKER_PIDS"], "a") as f:
            f.write(f"{os.getpid()}\\n")
        time.sleep(0.5)
        return self.rng.choice(legal)


def make(seed):
    return Thinker(seed)
'''


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux: /proc")
def test_a_tournaments_workers_end_with_it(tmp_path: Path) -> None:
    """``kill -9`` of a tournament left its workers playing their matches on, orphans (a
    plug-in taking its 30 s at every move kept one for the best part of an hour)."""
    import signal
    import time

    install_plugin(tmp_path, "thinker", THINKER, {"thinker": "make"})
    pids = tmp_path / "pids"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
           "XDG_DATA_HOME": str(tmp_path / "data"), "THINKER_PIDS": str(pids)}
    run = subprocess.Popen([sys.executable, "-m", "cli.main", "tournament", "--bots",
                            "thinker,heuristic", "--deals", "2", "--jobs", "1"], env=env,
                           cwd=str(tmp_path), stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not (pids.exists() and pids.read_text().strip()) \
                and time.monotonic() < deadline:
            time.sleep(0.1)
        worker = int(pids.read_text().split()[0])
        assert worker != run.pid
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()
    deadline = time.monotonic() + 5
    while _running(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = _running(worker)
    if left:
        os.kill(worker, signal.SIGKILL)
    assert not left, "the worker played on"


ODDANSWER = '''
import random


class Endless(type):
    def __getattribute__(cls, name):
        if name.startswith("__"):
            while True:
                pass
        return super().__getattribute__(name)


class Move(metaclass=Endless):
    """A move of its own, whose class computes its fields lazily, never."""


class Lazy:
    def __getattribute__(self, name):
        while True:
            pass


class Chooser:
    def __init__(self, seed, lazy):
        self.rng, self.moves, self.lazy = random.Random(seed), 0, lazy

    def choose(self, view, legal):
        self.moves += 1
        if self.moves == 5:
            return Lazy() if self.lazy else Move()
        return self.rng.choice(legal)


def make(seed, lazy=0):
    return Chooser(seed, lazy)
'''


@pytest.mark.parametrize("lazy", [0, 1])
def test_an_answer_the_program_cannot_read_does_not_hang_simulate(
        tmp_path: Path, lazy: int) -> None:
    """A bot answered an object whose class's metaclass (or whose own
    ``__getattribute__``) never ends: the program read its class and name after the
    bot's call, saying what it chose, and ``simulate`` hung for ever."""
    install_plugin(tmp_path, "oddanswer", ODDANSWER, {"oddanswer": "make"})
    done = _millebornes(tmp_path, "simulate", "--bots", f"oddanswer:lazy={lazy},heuristic",
                        "--games", "2", "--seed", "5", timeout=60)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    name = "Lazy" if lazy else "Move"
    assert (f"stopped: bot oddanswer:lazy={lazy} at seat 0 failed to move in game 1 of 2: "
            f"chose an object of type {name} (view.phase was ") in done.stderr, done.stderr


PATHLESS = '''
import random
import sys


class Tidy:
    """Imports what it needs at its first move, then tidies up: no more imports needed,
    so sys.path and sys.meta_path are emptied (a plug-in's idea of a sandbox)."""

    def __init__(self, seed):
        self.rng, self.moves = random.Random(seed), 0

    def choose(self, view, legal):
        self.moves += 1
        if self.moves == 1:
            sys.path[:] = []
            sys.meta_path.clear()
        return self.rng.choice(legal)


class Honest:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def choose(self, view, legal):
        return self.rng.choice(legal)


def make_tidy(seed):
    return Tidy(seed)


def make_honest(seed):
    return Honest(seed)
'''


@pytest.mark.parametrize("verb", ["simulate", "tournament"])
def test_a_bot_that_empties_sys_path_does_not_make_another_fail(tmp_path: Path,
                                                                verb: str) -> None:
    """A plug-in emptied ``sys.path`` (and ``sys.meta_path``) in its move: the next
    match's plug-ins could not be loaded, and the honest one was named for it, "could
    not be made (unknown bot 'honest')". What it took away is put back after its call."""
    install_plugin(tmp_path, "pathless", PATHLESS,
                   {"honest": "make_honest", "tidy": "make_tidy"})
    if verb == "simulate":
        done = _millebornes(tmp_path, "simulate", "--bots", "honest,tidy", "--games", "3",
                            "--seed", "5", "--rules", "modern")
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        assert done.stdout.startswith("3 matches, "), done.stdout
    else:
        done = _millebornes(tmp_path, "tournament", "--bots", "honest,tidy,heuristic",
                            "--deals", "1", "--jobs", "1", "--seed", "5", "--rules",
                            "modern", "--json", "--quiet")
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        bots = json.loads(done.stdout)["bots"]
        assert [b.get("first_fault") for b in bots] == [None, None, None], bots


NEEDY = '''
import random


class Deep:
    def __init__(self, seed, depth):
        self.rng, self.depth = random.Random(seed), depth

    def choose(self, view, legal):
        return self.rng.choice(legal)


def make(seed, depth, *, width):
    return Deep(seed, depth)
'''


def test_a_factory_that_needs_an_option_says_which(tmp_path: Path) -> None:
    """A factory with an option and no default, called with a spec that does not give
    it, was told "could not be made: TypeError: make() missing 1 required positional
    argument: 'depth'", as if the bot were broken; now the spec to write."""
    install_plugin(tmp_path, "needy", NEEDY, {"needy": "make"})
    done = _millebornes(tmp_path, "simulate", "--bots", "needy:width=2,heuristic",
                        "--games", "1")
    assert done.returncode != 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "bot plug-in 'needy' (needy:make) needs the option depth, which its spec " \
        "does not give: needy:width=2:depth=VALUE (or a default in its factory)" \
        in done.stderr, \
        done.stderr
    done = _millebornes(tmp_path, "simulate", "--bots", "needy:depth=3:width=2,heuristic",
                        "--games", "1")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


VENDORED = '''
import importlib.abc
import importlib.util
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class Hook(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """An import hook of the plug-in's own: its mbshadow is made here, before Python's
    own finders look for one on sys.path."""

    def find_spec(self, name, path, target=None):
        if name == "mbshadow":
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.WHERE = "vendored"


# the plug-in's own copy of a module, ahead of the one installed (its folder first on
# sys.path, or an import hook first on sys.meta_path), as a plug-in ships one
if os.environ.get("MB_HOW") == "meta_path":
    sys.meta_path.insert(0, Hook())
else:
    sys.path.insert(0, os.path.join(HERE, "vendor"))


class Vendored:
    def __init__(self, seed):
        self.rng, self.moves = random.Random(seed), 0

    def choose(self, view, legal):
        self.moves += 1
        if self.moves == 3:
            import mbshadow
            if mbshadow.WHERE != "vendored":
                raise RuntimeError(f"its own mbshadow was not found first: {mbshadow.WHERE}")
        return self.rng.choice(legal)


def make(seed):
    return Vendored(seed)
'''


@pytest.mark.parametrize("how", ["path", "meta_path"])
def test_a_bot_that_puts_its_own_folder_first_on_sys_path_keeps_it_first(
        tmp_path: Path, how: str) -> None:
    """A plug-in that put its own folder first on ``sys.path`` (or its import hook first
    on ``sys.meta_path``), as it was imported, found the installed copy of its module in
    its later moves, not its own: what it added was moved after what was there before
    its first call (it raised, and forfeited, for what the program did)."""
    install_plugin(tmp_path, "vendored", VENDORED, {"vendored": "make"})
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "mbshadow.py").write_text('WHERE = "vendored"\n', encoding="utf-8")
    (tmp_path / "mbshadow.py").write_text('WHERE = "installed"\n', encoding="utf-8")
    done = _millebornes(tmp_path, "simulate", "--bots", "vendored,heuristic", "--games", "2",
                        "--seed", "5", "--rules", "modern", env={"MB_HOW": how})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.stdout.startswith("2 matches, "), done.stdout


CYCLIC_MEMBER = '''
import random
import time


class Stats:
    """Saves the statistics as it is freed, to a drive that never answers."""

    def __del__(self):
        time.sleep(1000)


class Cyclic:
    """Keeps a reference to itself (a search tree's root that points back at its bot),
    and its statistics in an object of their own (its own class has no __del__)."""

    def __init__(self, seed):
        self.rng, self.me, self.stats = random.Random(seed), self, Stats()

    def choose(self, view, legal):
        return self.rng.choice(legal)


def make(seed):
    return Cyclic(seed)
'''


def test_a_bot_in_a_cycle_whose_members_del_hangs_is_stopped_and_named(
        tmp_path: Path) -> None:
    """The collection after a match was made only for a bot whose own class has a
    ``__del__``: a bot in a cycle that holds an object whose ``__del__`` never ends (its
    statistics saved to a drive that hangs) was freed whenever Python collected its
    garbage, anywhere, with no time limit, and ``simulate`` hung for ever."""
    install_plugin(tmp_path, "cyclicmember", CYCLIC_MEMBER, {"cyclicmember": "make"})
    done = _millebornes(tmp_path, "simulate", "--bots", "heuristic,cyclicmember", "--games",
                        "3", "--seed", "5", limit=1.0, timeout=60)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert "stopped: bot cyclicmember at seat 1 failed to move in game 1 of 3: was not " \
        "freed well after the match" in done.stderr, done.stderr
