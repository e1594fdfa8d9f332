"""Plug-in bots written from docs/bots.md alone by outside authors (tenth review of the
plug-ins): a bot that closes the program's file descriptors (``simulate`` ended with "Bad
file descriptor", no report and no word of the bot; a tournament forfeited its matches as
"ended its worker process"); an ``async def choose`` (or one that yields), which failed
at its first move where it can be refused as it is made; an answer that is an int too
big for Python to write ("<int whose repr raised ValueError>"); ``simulate --network``,
which made a seat's plug-in process without its seat; a bot that silences
``builtins.print`` (the report with it) or deletes a built-in (``simulate`` hung); a
plug-in named as a level (the built-in played, unsaid) or with a name a spec cannot hold
("there is no bot called 'my bot'"); a bot that asks for its move with ``input()`` or
gives up with ``sys.exit``; one that crashes the interpreter (``simulate`` ended without
a word); one that takes SIGINT for itself (Ctrl-C no longer stopped ``simulate``); and a
plain ``def choose`` that returns a coroutine (told "its choose is an async def")."""

from __future__ import annotations

import random
import resource
from pathlib import Path

import pytest
from cli_helpers import millebornes_with_plugins

from engine import CLASSIC, BotFailed, Play, Seating, legal_actions, new_hand, view_of
from engine.simulate import checked_choice
from engine.testing import install_plugin

CLOSER = '''
import os


class Closer:
    """Closes every descriptor but the standard three at its third move (a daemon's
    habit: "close what we do not need"), below 1024, or up to any limit with how=all."""

    def __init__(self, seed, how=1024):
        self.moves, self.how = 0, how

    def choose(self, view, legal):
        self.moves += 1
        if self.moves == 3:
            os.closerange(3, 2 ** 20 if self.how == "all" else self.how)
        return legal[0]


def make(seed, **options):
    return Closer(seed, **options)
'''


@pytest.fixture
def closer(tmp_path: Path) -> Path:
    install_plugin(tmp_path, "closer", CLOSER, {"closer": "make"})
    return tmp_path


def _copies_fit() -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 1024 + 64:
        pytest.skip("no room above 1024 descriptors for the program's copies")


def test_a_bot_that_closes_the_programs_descriptors_is_named_and_the_report_made(
        closer: Path) -> None:
    """``simulate`` ended with "millebornes simulate: the system says "Bad file
    descriptor"" (exit status 2): no report, and no word of the bot or its seat. The
    descriptors are put back, the bot is at fault by the documented rule (the run stops
    with the report of the matches before it, exit status 1), and the log still takes
    records."""
    _copies_fit()
    done = millebornes_with_plugins(closer, "simulate", "--bots", "closer,heuristic",
                                    "--games", "2", "--seed", "5")
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Bad file descriptor" not in done.stderr
    assert done.stdout.startswith("0 matches, 0 hands"), done.stdout
    assert "stopped: bot closer at seat 0 failed to move in game 1 of 2: closed " in done.stderr
    assert "of the program's file descriptors (the log and " in done.stderr
    assert "they were put back): a bot closes only the files it opened itself" in done.stderr


def test_a_bot_that_closes_every_descriptor_still_leaves_a_report(closer: Path) -> None:
    """Past any limit, the program's copies too: the report goes to the standard error,
    whose descriptor is the bot's to leave (it ended with "Bad file descriptor")."""
    done = millebornes_with_plugins(closer, "simulate", "--bots", "closer:how=all,heuristic",
                                    "--games", "2", "--seed", "5")
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Bad file descriptor" not in done.stderr
    assert "0 matches, 0 hands" in done.stderr
    assert "bot closer:how=all at seat 0 failed to move in game 1 of 2: closed " in done.stderr
    assert "they could not all be put back" in done.stderr


def test_a_tournament_bot_that_closes_its_workers_descriptors_is_told_what_it_did(
        closer: Path) -> None:
    """Its worker's pipes closed, the worker died and the forfeit said "ended its worker
    process in the middle of the match", which it had not done."""
    _copies_fit()
    done = millebornes_with_plugins(closer, "tournament", "--bots", "closer,heuristic",
                                    "--deals", "1", "--jobs", "1", "--seed", "5")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "closer failed to move and forfeited 2 matches (first: closed " in done.stdout
    assert "ended its worker process" not in done.stdout

#: A bot whose ``choose`` is an ``async def``, as a stranger used to asyncio writes it,
#: and one that yields its move.
ASYNC = '''
class Waits:
    async def choose(self, view, legal):
        return legal[0]


class Yields:
    def choose(self, view, legal):
        yield legal[0]


def make(seed, kind="Waits"):
    return globals()[kind]()
'''


@pytest.mark.parametrize("kind, said", [
    ("Waits", "is an async def: write it as a plain def choose(self, view, legal) that "
              "returns one of legal (with asyncio.run inside if it awaits)"),
    ("Yields", "yields: write it as a plain def choose(self, view, legal) that returns one "
               "of legal")])
def test_an_async_choose_is_refused_as_the_bot_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, said: str) -> None:
    """It was made and seated, and failed at its first move ("chose an object of type
    coroutine (its choose is an async def: ...)"), a match under way: ``simulate`` played
    its other seats' games to that point, a tournament forfeited every match of it."""
    from engine import PluginFailed, make_bot

    install_plugin(tmp_path, "asyncbot", ASYNC, {"asyncbot": "make"})
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PluginFailed) as caught:
        make_bot(f"asyncbot:kind={kind}", 1)
    assert str(caught.value) == (
        f"bot plug-in 'asyncbot' made a bot of type {kind} whose choose {said}")


def test_an_async_bot_is_refused_before_a_tournament(tmp_path: Path) -> None:
    """A tournament forfeited every match of the bot, each at its first move."""
    install_plugin(tmp_path, "asyncbot", ASYNC, {"asyncbot": "make"})
    done = millebornes_with_plugins(tmp_path, "tournament", "--bots", "asyncbot,heuristic",
                                    "--deals", "1", "--jobs", "1")
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    assert "--bots asyncbot: bot plug-in 'asyncbot' made a bot of type Waits whose choose " \
        "is an async def" in done.stderr.replace("\n", " "), done.stderr
    assert "forfeited" not in done.stdout

def _a_draw() -> tuple[object, list[object]]:
    """Seat 0's view and legal moves at its first draw (classic, two players)."""
    order = list(CLASSIC.deck(Seating.solo(2)))
    random.Random(4).shuffle(order)
    state = new_hand(CLASSIC, Seating.solo(2), order, 0)
    return view_of(state, 0), list(legal_actions(state, 0))


@pytest.mark.parametrize("answer, said", [
    (10 ** 5000, "chose an int of about 5001 digits (view.phase was 'draw'"),
    ([10 ** 9000], "chose a list holding an int of about 9001 digits (view.phase"),
    (Play(0, 10 ** 5000, None), "chose a Play holding an int of about 5001 digits (view")],
    ids=["int", "list", "move"])
def test_a_huge_int_answer_is_said_as_its_size(answer: object, said: str) -> None:
    """An int past Python's 4300 digits (a score, a hash) was said "chose <int whose
    repr raised ValueError>": neither what the bot answered nor what to fix."""
    view, legal = _a_draw()

    class Huge:
        def choose(self, view: object, legal: object) -> object:
            return answer

    with pytest.raises(BotFailed) as caught:
        checked_choice(Huge().choose, view, legal, 0)  # type: ignore[arg-type]
    assert said in str(caught.value), str(caught.value)
    assert "repr raised" not in str(caught.value)

NAMER = '''
import multiprocessing
import os


class Namer:
    """Writes the name of the process it thinks in, once, where it is told to."""

    def __init__(self):
        self.said = False

    def choose(self, view, legal):
        if not self.said:
            self.said = True
            with open(os.environ["NAMER_OUT"], "a", encoding="utf-8") as out:
                out.write(multiprocessing.current_process().name + "\\n")
        return legal[0]


def make(seed):
    return Namer()
'''


@pytest.mark.slow     # about 10 s: a networked match, a process a seat
def test_a_networked_simulations_bot_process_knows_its_seat(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """``simulate --network`` made a seat's plug-in process without its seat (pass 9 gave
    it to every other runner: two seats of one plug-in were one name in its log); its
    process is named with its spec and seat, as at a table."""
    install_plugin(tmp_path, "namer", NAMER, {"namer": "make"})
    out = tmp_path / "names"
    monkeypatch.setenv("NAMER_OUT", str(out))
    done = millebornes_with_plugins(tmp_path, "simulate", "--network", "--bots",
                                    "heuristic,namer", "--games", "1", "--seed", "5")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert out.read_text(encoding="utf-8").splitlines() == ["bot namer at seat 1"]


QUIET = '''
import builtins

builtins.print = lambda *args, **kwargs: None     # "my libraries print too much"


class Quiet:
    def choose(self, view, legal):
        del builtins.len                          # and worse, at its second match
        return legal[0]


def make(seed):
    return Quiet()
'''


def test_a_bot_that_silences_print_leaves_the_report(tmp_path: Path) -> None:
    """A plug-in that replaced ``builtins.print`` (its libraries quieted) silenced
    ``simulate``'s report: status 0 and not a line. Python's built-in names are put back
    after each of a plug-in's calls (what it adds stays)."""
    install_plugin(tmp_path, "quiet", QUIET, {"quiet": "make"})
    done = millebornes_with_plugins(tmp_path, "simulate", "--bots", "quiet,heuristic",
                                    "--games", "2", "--seed", "5")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.stdout.startswith("2 matches, "), done.stdout
    assert "seat 0 quiet" in done.stdout and "seat 1 heuristic" in done.stdout


def test_a_plugin_named_as_a_level_is_said_not_offered_where_it_is_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    """An author who named their plug-in ``hard`` ran ``simulate --bots hard`` and the
    search bot played: their code never ran, and only the log said why. It is said on
    stderr where the name is used (the built-in still plays)."""
    from cli.args import check_bot_entrant

    install_plugin(tmp_path, "hardbot", "def make(seed):\n    return None\n",
                   {"hard": "make", "Heuristic": "make"})
    monkeypatch.syspath_prepend(str(tmp_path))
    check_bot_entrant("hard:playouts=10")
    check_bot_entrant("HEURISTIC")
    check_bot_entrant("hard")              # said once
    said = capsys.readouterr().err.replace("\n", " ")
    assert said.count("not offered") == 2, said
    assert "millebornes: the plug-in bot 'hard' (hardbot:make) is not offered: 'hard' is a " \
        "built-in bot's name, and the built-in one plays; give the plug-in's entry point " \
        "another name in the group millebornes.bots" in said
    assert "the plug-in bot 'Heuristic' (hardbot:make) is not offered: 'heuristic' is" in said


@pytest.mark.parametrize("declared", ["my bot", "a" * 30, "007"])
def test_a_plugin_whose_name_cannot_be_offered_is_told_why_when_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, declared: str) -> None:
    """``--bots "my bot"`` said "there is no bot called 'my bot'; choose from ...", of the
    plug-in its author had just installed under that name."""
    from cli.args import check_bot_entrant

    install_plugin(tmp_path, "oddname", "def make(seed):\n    return None\n",
                   {declared: "make"})
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError) as caught:
        check_bot_entrant(f"{declared}:x=1")
    assert str(caught.value) == (
        f"--bots: there is no bot called {declared!r}: the plug-in {declared!r} (oddname:make)"
        " is not offered under that name (a bot's name holds no space, colon, comma or "
        "equals sign, is not digits alone and has 24 characters at most); give its entry "
        "point another name in the group millebornes.bots")


@pytest.mark.parametrize("raised, said", [
    (EOFError("EOF when reading a line"), "raised EOFError: EOF when reading a line (a bot "
     "has no keyboard: its standard input is empty, so input() finds its end at once)"),
    (SystemExit(0), "raised SystemExit: 0 (sys.exit ends a program, not a move: return one "
     "of legal)")], ids=["input", "exit"])
def test_a_bot_that_reads_its_input_or_exits_is_told_why_that_fails(
        raised: BaseException, said: str) -> None:
    """A stranger's first bot asks for a move with ``input()``, or gives up the match with
    ``sys.exit``: "raised EOFError: EOF when reading a line" said nothing of why."""
    view, legal = _a_draw()

    class Asks:
        def choose(self, view: object, legal: object) -> object:
            raise raised

    with pytest.raises(BotFailed) as caught:
        checked_choice(Asks().choose, view, legal, 0)  # type: ignore[arg-type]
    assert caught.value.reason == said


CRASHER = '''
import ctypes


class Crasher:
    """Reads memory that is not there at its third move, as a C extension with a bug
    does: the interpreter cannot go on."""

    def __init__(self):
        self.moves = 0

    def choose(self, view, legal):
        self.moves += 1
        if self.moves == 3:
            ctypes.string_at(0)
        return legal[0]


def make(seed):
    return Crasher()
'''


def test_a_bot_that_crashes_the_interpreter_in_simulate_is_shown_where(tmp_path: Path
                                                                      ) -> None:
    """``simulate`` ended with not a word (status 139 in a shell: "Segmentation fault"):
    Python's fatal error is shown, with the bot's own file and line."""
    install_plugin(tmp_path, "crasher", CRASHER, {"crasher": "make"})
    done = millebornes_with_plugins(tmp_path, "simulate", "--bots", "crasher,heuristic",
                                    "--games", "2", "--seed", "5")
    assert done.returncode != 0
    assert "Fatal Python error: Segmentation fault" in done.stderr, done.stderr
    assert f'File "{tmp_path / "crasher.py"}", line 15 in choose' in done.stderr, done.stderr


DEAF = '''
import os
import signal


class Deaf:
    """Takes Ctrl-C for itself (to save its work, say) at its first move, or ignores it;
    says where it is at its tenth."""

    def __init__(self, how):
        self.moves, self.how = 0, how

    def choose(self, view, legal):
        self.moves += 1
        if self.moves == 1:
            signal.signal(signal.SIGINT, signal.SIG_IGN if self.how == "ignore"
                          else lambda signum, frame: None)
        if self.moves == 10:
            open(os.environ["DEAF_MARK"], "w").close()
        return legal[0]


def make(seed, how="ignore"):
    return Deaf(how)
'''


@pytest.mark.parametrize("how", ["ignore", "catch"])
def test_ctrl_c_stops_simulate_after_a_bot_took_sigint(tmp_path: Path, how: str) -> None:
    """A bot that ignored SIGINT, or caught it with a handler of its own, made ``simulate``
    deaf to Ctrl-C for the rest of the run (400 matches: kill it, or wait). The program's
    handlers are put back after each call of a plug-in; the run stops as at any Ctrl-C."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from cli_helpers import ctrl_c_as_a_terminal_gives_it

    install_plugin(tmp_path, "deaf", DEAF, {"deaf": "make"})
    mark = tmp_path / "mark"
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(root)]),
           "XDG_DATA_HOME": str(tmp_path / "data"), "DEAF_MARK": str(mark)}
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", "simulate", "--bots",
                             f"deaf:how={how},heuristic", "--games", "400", "--seed", "5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=str(tmp_path), stdin=subprocess.DEVNULL,
                            preexec_fn=ctrl_c_as_a_terminal_gives_it)
    try:
        deadline = time.monotonic() + 60
        while not mark.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert mark.exists(), proc.stderr.read() if proc.stderr else ""
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert "interrupted" in err, err


def test_a_choose_that_returns_a_coroutine_is_told_what_it_returned() -> None:
    """A plain ``def choose`` that returns a call of an ``async def`` (its ``await``
    forgotten) was told "its choose is an async def", which it is not."""
    view, legal = _a_draw()

    class Forgets:
        async def think(self, view: object, legal: list[object]) -> object:
            return legal[0]

        def choose(self, view: object, legal: list[object]) -> object:
            return self.think(view, legal)

    with pytest.raises(BotFailed) as caught:
        checked_choice(Forgets().choose, view, legal, 0)  # type: ignore[arg-type]
    assert caught.value.reason.startswith(
        "chose an object of type coroutine (a coroutine, what calling an async def gives: "
        "return the move itself, with asyncio.run(...) to wait for it)"), caught.value.reason


HOLDER = '''
class Holder:
    """Adds up a trillion numbers in one call of C code at its third move: the
    interpreter is never free to run the ring of its time limit."""

    def __init__(self):
        self.moves = 0

    def choose(self, view, legal):
        self.moves += 1
        if self.moves == 3:
            sum(range(10 ** 12))
        return legal[0]


def make(seed):
    return Holder()
'''


@pytest.mark.slow     # some 5 s of CPU on every core, by design
def test_a_bot_that_holds_the_interpreter_does_not_hold_simulate_for_ever(
        tmp_path: Path) -> None:
    """Python's ring of the time limit waits for C code to return: ``simulate`` (and a
    tournament's worker) waited for ever. Past every ring, in CPU time, the process ends
    saying where the bot was (its limit and rings shortened here)."""
    import os
    import subprocess
    import sys

    install_plugin(tmp_path, "holder", HOLDER, {"holder": "make"})
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(root)]),
           "XDG_DATA_HOME": str(tmp_path / "data")}
    code = ("import sys, cli.bot_limit as b; b.DECISION_LIMIT = 0.5; b.GRACE_RINGS = 0; "
            "from cli.main import console_script; console_script()")
    done = subprocess.run([sys.executable, "-c", code, "simulate", "--bots",
                           "holder,heuristic", "--games", "2"], capture_output=True,
                          text=True, env=env, cwd=str(tmp_path), timeout=240,
                          stdin=subprocess.DEVNULL)
    assert f'File "{tmp_path / "holder.py"}", line 12 in choose' in done.stderr, done.stderr
    # the matches in a child process (plugins pass 11): the report, and the bot named
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stdout.startswith("0 matches, 0 hands"), done.stdout
    assert "stopped: bot holder at seat 0 failed to move in game 1 of 2: ended the process " \
        "that plays the matches (SIGPROF, stopped: it held the interpreter in C code past " \
        "its time limit)" in done.stderr, done.stderr[-2000:]
