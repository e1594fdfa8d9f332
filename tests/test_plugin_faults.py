"""Someone else's bot that breaks (raises, or answers a move that is not legal) is named as
a bot fault, never taken for a rule of the game: the engine raises ``BotFailed``; a
tournament forfeits that match and goes on; ``simulate`` stops naming the bot and the game;
the in-process console plays a built-in move for it and says so."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from cli.driver import LocalDriver
from cli.tournament import play_task, schedule, summarise
from engine import CLASSIC, BotFailed, Play, Seating, make_bot, preset
from engine.simulate import play_hand
from engine.testing import install_plugin

TWO = Seating.solo(2)
ROOT = Path(__file__).resolve().parent.parent

PLUGIN = '''
from engine import Play


class Illegal:
    """Plays the first card of its hand at every play, legal or not."""

    def choose(self, view, legal):
        if view.phase == "play":
            seat = legal[0].seat
            return Play(seat, view.hand(seat)[0], None)
        return legal[0]


class Crashy:
    def choose(self, view, legal):
        raise KeyError("boom")


class Hangs:
    """Never answers a play (a busy loop that swallows ordinary exceptions)."""

    def choose(self, view, legal):
        while view.phase == "play":
            try:
                pass
            except Exception:
                pass
        return legal[0]


def make_hangs(seed, **options):
    return Hangs()


class Swapped:
    """Answers a discard as a coup fourré with the same fields (equal as tuples)."""

    def choose(self, view, legal):
        from engine import CoupFourre, Discard
        for a in legal:
            if isinstance(a, Discard):
                return CoupFourre(*a)
        return legal[0]


class AppendsIllegal:
    """Adds a move of its own to the legal list it was given, and plays it."""

    def choose(self, view, legal):
        from engine import Play
        if view.phase == "play":
            legal.append(Play(legal[0].seat, 999, None))
            return legal[-1]
        return legal[0]


class PlainTuple:
    def choose(self, view, legal):
        return tuple(legal[0]) if view.phase == "play" else legal[0]


class Exits:
    def choose(self, view, legal):
        import sys
        sys.exit(3)


class Swallows:
    """Catches every stop, forever."""

    def choose(self, view, legal):
        import time
        while view.phase == "play":
            try:
                time.sleep(3600)
            except BaseException:
                pass
        return legal[0]


class Chatty:
    def __init__(self):
        self.decision_seconds = 0.5       # its own budget: not a list of times

    def choose(self, view, legal):
        print("BOT SAYS", view.phase)
        return legal[0]


class Picky:
    """Made only for seed 0."""

    def __init__(self, seed):
        if seed != 0:
            raise RuntimeError(f"cannot be made for seed {seed}")

    def choose(self, view, legal):
        return legal[0]


def make_slow(seed, **options):
    import time
    time.sleep(3600)             # a factory that never returns


class Odd(BaseException):
    """Not an Exception: a plug-in's own class of error."""


class RaisesOdd:
    def choose(self, view, legal):
        if view.phase == "play":
            raise Odd("odd")
        return legal[0]


def make_odd(seed, **options):
    return RaisesOdd()


class Hog:
    """Allocates (3 GB at most: a bound of the test, not of the program) at its first play."""

    def __init__(self):
        self.kept = []

    def choose(self, view, legal):
        if view.phase == "play":
            for _ in range(60):
                self.kept.append(bytearray(50 << 20))
        return legal[0]


def make_hog(seed, **options):
    return Hog()


class Noisy:
    def choose(self, view, legal):
        import os
        import sys
        os.write(1, b"NOISE BELOW STDOUT\\n")
        sys.__stdout__.write("NOISE ON __STDOUT__\\n")
        sys.__stdout__.flush()
        return legal[0]


def make_noisy(seed, **options):
    import os
    os.write(1, b"NOISE FROM THE FACTORY\\n")
    print("NOISE PRINTED BY THE FACTORY")
    return Noisy()


class HardExit:
    def choose(self, view, legal):
        import os
        os._exit(9)


def make_hardexit(seed, **options):
    return HardExit()


class Crashes:
    """Its process dies in its move, as in a crash of the interpreter."""

    def choose(self, view, legal):
        import os
        import signal
        os.kill(os.getpid(), signal.SIGKILL)


def make_crashes(seed, **options):
    return Crashes()


class ThreadExit:
    """A thread of its own ends the process (os._exit(9)) while it thinks."""

    def choose(self, view, legal):
        import os
        import threading
        import time
        threading.Thread(target=os._exit, args=(9,), daemon=True).start()
        time.sleep(5)
        return legal[0]


def make_threadexit(seed, **options):
    return ThreadExit()


def make_swapped(seed, **options):
    return Swapped()


def make_appends(seed, **options):
    return AppendsIllegal()


def make_tuple(seed, **options):
    return PlainTuple()


def make_exits(seed, **options):
    return Exits()


def make_swallows(seed, **options):
    return Swallows()


def make_chatty(seed, **options):
    return Chatty()


def make_picky(seed, **options):
    return Picky(seed)


def make_illegal(seed, **options):
    return Illegal()


def make_crashy(seed, **options):
    return Crashy()


def make_typeerr(seed, **options):
    return Crashy(1, 2, 3)      # the plug-in's own bug: Crashy takes no arguments


def make_noseed():
    return Crashy()


class SleepyStr(Exception):
    """An exception whose message is code that never ends."""

    def __str__(self):
        import time
        time.sleep(3600)
        return "never"


class RaisesSleepyStr:
    def choose(self, view, legal):
        if view.phase == "play":
            raise SleepyStr()
        return legal[0]


def make_sleepystr(seed, **options):
    return RaisesSleepyStr()


class Sly:
    """Unpickling it, or showing it, runs its code (and that never ends)."""

    def __reduce__(self):
        import time
        return (time.sleep, (3600,))

    def __repr__(self):
        import time
        time.sleep(3600)
        return "sly"


class AnswersSly:
    def choose(self, view, legal):
        return Sly() if view.phase == "play" else legal[0]


def make_sly(seed, **options):
    return AnswersSly()


class Threader:
    """Leaves a thread of its own (not a daemon) running for ever."""

    def __init__(self):
        import threading
        import time
        threading.Thread(target=lambda: [time.sleep(0.2) for _ in iter(int, 1)],
                         name="plugin-forever").start()

    def choose(self, view, legal):
        return legal[0]


def make_threader(seed, **options):
    return Threader() if seed else Picky(0)


class ThreadNoise:
    """A daemon thread of its own prints all the time."""

    def __init__(self):
        import threading
        import time

        def noise():
            while True:
                print("THREAD-NOISE")
                time.sleep(0.001)

        threading.Thread(target=noise, daemon=True).start()

    def choose(self, view, legal):
        return legal[0]


def make_threadnoise(seed, **options):
    return ThreadNoise()


class StdinReader:
    """Reads the standard input at each move: what the player typed is not its to take."""

    def choose(self, view, legal):
        import os
        import sys
        data = sys.stdin.read() or os.read(0, 100).decode()
        if data:
            raise RuntimeError("stole " + data.strip())
        return legal[0]


def make_stdinreader(seed, **options):
    return StdinReader()


class Wanderer:
    """Changes the working directory at its first move (to where MB_WANDER says)."""

    def choose(self, view, legal):
        import os
        os.chdir(os.environ["MB_WANDER"])
        return legal[0]


def make_wanderer(seed, **options):
    return Wanderer()


def make_second(seed, **options):
    """Made for simulate's first match only (seed 0: match g, seat s get 17 g + s)."""
    if seed >= 17:
        raise RuntimeError("not for a second match")
    return Picky(0)


class Gambler:
    """A fair bot that draws from the global random module (as docs/bots.md asks it not to)."""

    def choose(self, view, legal):
        import random
        return random.choice(legal)


def make_gambler(seed, **options):
    return Gambler()


class Forger:
    """Finds its own channel to the peer (any object of its process is in reach) and
    writes on it what the peer's reading would trust: a frame that promises a megabyte
    and never sends it (MB_FORGE=partial), or a pickle whose loading runs its code in
    the peer (MB_FORGE=pickle: it makes the file MB_FORGED)."""

    def choose(self, view, legal):
        import gc
        import os
        import pickle
        import time
        from multiprocessing.connection import Connection

        class Payload:
            def __reduce__(self):
                return (open, (os.environ["MB_FORGED"], "w"))

        for conn in [o for o in gc.get_objects() if isinstance(o, Connection)]:
            if os.environ.get("MB_FORGE") == "words":     # words of its own, in its reply
                import engine.bot_process
                engine.bot_process._reply(conn, "error", "forged\\nseat 0 (Ann) cheated\\x1b[2J")
            elif os.environ.get("MB_FORGE") == "partial":
                os.write(conn.fileno(), b"\\x00\\x10\\x00\\x00" + b"x" * 10)
            else:
                conn.send_bytes(pickle.dumps(Payload()))
        time.sleep(3600)


def make_forger(seed, **options):
    return Forger()


class Deaf:
    """Answers every question at once from a thread of its own, and never reads another:
    the questions pile up in the channel until a writer would wait."""

    def choose(self, view, legal):
        import gc
        import threading
        import time
        from multiprocessing.connection import Connection

        import engine.bot_process
        conns = [o for o in gc.get_objects() if isinstance(o, Connection)]
        # in the words its peer reads (the child's own reply, where there is one)
        reply = getattr(engine.bot_process, "_reply", lambda c, k, v: c.send((k, v)))

        def answer():
            while True:
                for conn in conns:
                    reply(conn, "move", 0)
                time.sleep(0.001)

        threading.Thread(target=answer, daemon=True).start()
        time.sleep(3600)


def make_deaf(seed, **options):
    return Deaf()


class Forges:
    """Raises with a message that would start a line of its own in the log, and clear
    the screen of whoever reads it there (--verbose)."""

    def choose(self, view, legal):
        if view.phase == "play":
            raise RuntimeError("boom\\x1b[2J\\n2026-01-01 00:00:00,000 p2p.table WARNING "
                               "seat 0 (Ann) signed two different moves\\u202e")
        return legal[0]


def make_forges(seed, **options):
    return Forges()


class SlowStart:
    """Takes MB_SLOW seconds to be made, and as long again for its first move: each
    within its own limit (MB_SLOW_MOVE: only its first move is slow)."""

    def __init__(self):
        import os
        import time
        self.wait = float(os.environ.get("MB_SLOW_MOVE") or os.environ.get("MB_SLOW", "0"))
        time.sleep(float(os.environ.get("MB_SLOW", "0")))

    def choose(self, view, legal):
        import time
        time.sleep(self.wait)
        self.wait = 0
        return legal[0]


def make_slowstart(seed, **options):
    return SlowStart()


class Terminal:
    """Writes on the terminal itself (below any redirection of its output), and reads
    what is typed there; the factory too."""

    def __init__(self):
        self.tty("FACTORY")

    @staticmethod
    def tty(what):
        import os
        try:
            fd = os.open("/dev/tty", os.O_RDWR | os.O_NONBLOCK)
        except OSError:
            return
        os.write(fd, f"TTY-NOISE-{what}\\n".encode())
        try:
            os.read(fd, 100)
        except OSError:
            pass
        os.close(fd)

    def choose(self, view, legal):
        self.tty("CHOOSE")
        return legal[0]


def make_terminal(seed, **options):
    return Terminal()


def _square(x):
    return x * x


class Pooled:
    """Thinks with a ``multiprocessing`` pool of its own (made with the bot), and hangs at
    its first play when MB_POOL_HANG is set; says where its workers are in MB_POOL_PIDS."""

    def __init__(self):
        import multiprocessing
        import os
        self.pool = multiprocessing.get_context("fork").Pool(2)
        with open(os.environ["MB_POOL_PIDS"], "w") as f:
            f.write(" ".join(str(p.pid) for p in self.pool._pool))

    def choose(self, view, legal):
        import os
        import time
        assert self.pool.map(_square, range(3)) == [0, 1, 4]
        while os.environ.get("MB_POOL_HANG") and view.phase == "play":
            time.sleep(1)
        return legal[0]


def make_pooled(seed, **options):
    return Pooled()


class StuckInC:
    """Thinks in one call of C code that never lets another thread of its process run
    (the GIL is held for the whole sum)."""

    def choose(self, view, legal):
        return legal[sum(range(10 ** 13)) % len(legal)]


def make_stuckinc(seed, **options):
    return StuckInC()


def make_flood(seed, **options):
    """Writes 200 MB on every descriptor it holds while it is made: the check's channel
    to its parent among them."""
    import os
    for fd in range(3, 64):
        try:
            for _ in range(200):
                os.write(fd, b"x" * (1 << 20))
        except OSError:
            pass
    return Hangs()
'''


@pytest.fixture
def faulty_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_plugin(tmp_path, "mb_faulty", PLUGIN, {
        "illegal": "make_illegal", "crashy": "make_crashy", "hangs": "make_hangs",
        "swapped": "make_swapped", "appends": "make_appends", "tuple": "make_tuple",
        "exits": "make_exits", "swallows": "make_swallows", "chatty": "make_chatty",
        "picky": "make_picky", "tslow": "make_slow", "todd": "make_odd", "thog": "make_hog",
        "tnoisy": "make_noisy", "thardexit": "make_hardexit", "tcrashes": "make_crashes",
        "tthreadexit": "make_threadexit", "ttypeerr": "make_typeerr",
        "tnoseed": "make_noseed", "gambler": "make_gambler", "tsecond": "make_second",
        "tsleepystr": "make_sleepystr", "tsly": "make_sly", "tthreader": "make_threader",
        "tnoise": "make_threadnoise", "treader": "make_stdinreader", "twander": "make_wanderer",
        "tforger": "make_forger", "tdeaf": "make_deaf", "tforges": "make_forges",
        "tslowstart": "make_slowstart", "tterminal": "make_terminal",
        "tpooled": "make_pooled", "tstuckc": "make_stuckinc", "tflood": "make_flood",
        "heuristic": "make_crashy"})
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    monkeypatch.delitem(sys.modules, "mb_faulty", raising=False)


def test_the_engine_names_a_bot_fault_with_its_seat(faulty_plugins: None) -> None:
    with pytest.raises(BotFailed) as ei:
        play_hand(CLASSIC, TWO, [make_bot("heuristic", 1), make_bot("illegal", 2)],
                  random.Random(3), 0)
    assert ei.value.seat == 1 and "not a legal move" in ei.value.reason
    with pytest.raises(BotFailed) as ei:
        play_hand(CLASSIC, TWO, [make_bot("crashy", 1), make_bot("heuristic", 2)],
                  random.Random(3), 0)
    assert ei.value.seat == 0 and "KeyError" in ei.value.reason


def test_a_tournament_forfeits_the_faulty_bots_matches_and_goes_on(faulty_plugins: None) -> None:
    specs = ["illegal", "heuristic", "random"]
    tasks = schedule(specs, CLASSIC, TWO, 2, 5)
    results = [play_task(t) for t in tasks]
    report = summarise(specs, TWO, results)
    by = {b["bot"]: b for b in report["bots"]}
    assert by["illegal"]["forfeits"] == by["illegal"]["matches"] == 8
    assert by["illegal"]["score"] == 0 and "not a legal move" in by["illegal"]["first_fault"]
    assert "forfeits" not in by["heuristic"] and "forfeits" not in by["random"]
    assert by["heuristic"]["matches"] == 8      # its real matches against random were played
    pair = next(p for p in report["pairs"] if p["bot"] == "heuristic"
                and p["opponent"] == "random")
    assert pair["matches"] == 4 and pair["score"] > 0


def test_simulate_stops_naming_the_bot_and_the_game(faulty_plugins: None) -> None:
    from cli import simulate
    with pytest.raises(ValueError) as ei:
        simulate.simulate(CLASSIC, TWO, ["heuristic", "crashy"], 3, 1)
    text = str(ei.value)
    assert "crashy" in text and "seat 1" in text and "game 1 of 3" in text, text
    assert "KeyError" in text


def test_the_console_plays_a_built_in_move_for_a_bot_that_fails(faulty_plugins: None) -> None:
    d = LocalDriver(CLASSIC, TWO, ["Ann", "Bo"], seat=0, seed=4,
                    bots=[None, make_bot("illegal", 1)])
    for _ in range(200):                  # the human passes its turns by discarding
        if d.hand_over:
            break
        if d.my_move():
            legal = d.legal()
            d.submit(next((a for a in legal if not isinstance(a, Play)), legal[0]))
        else:
            d.step_others()
    said = [e for e in d.events if "Bo's bot failed to move" in e]
    assert said and "a built-in bot plays for it from now on" in said[0], d.events[-5:]
    # said once: the broken bot is not asked again (it was, at every move: 223 times a
    # match for a bot that always fails, its time limit each time for one that hangs)
    assert len(said) == 1, said
    assert d.bots[1] is not None and type(d.bots[1]).__name__ != "Illegal"


def test_a_plugin_that_hangs_forfeits_its_tournament_match(faulty_plugins: None,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A plug-in bot that never answers is bounded per decision (cli.bot_limit, as a
    networked table bounds it by its child process): the match is forfeited, the
    tournament goes on, and built-in bots are never wrapped."""
    import time

    from cli import bot_limit
    monkeypatch.setattr(bot_limit, "DECISION_LIMIT", 0.2)
    specs = ["hangs", "heuristic"]
    started = time.monotonic()
    results = [play_task(t) for t in schedule(specs, CLASSIC, TWO, 1, 5)]
    assert time.monotonic() - started < 10
    report = summarise(specs, TWO, results)
    by = {b["bot"]: b for b in report["bots"]}
    assert by["hangs"]["forfeits"] == 2 and "did not move within 0.2 s" in by["hangs"]["first_fault"]
    assert not isinstance(bot_limit.make_bounded_bot("expert", 1), bot_limit.Bounded)


def test_simulate_names_a_plugin_that_hangs(faulty_plugins: None,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from cli import bot_limit, simulate
    monkeypatch.setattr(bot_limit, "DECISION_LIMIT", 0.2)
    with pytest.raises(ValueError) as ei:
        simulate.simulate(CLASSIC, TWO, ["heuristic", "hangs"], 2, 1)
    assert "hangs" in str(ei.value) and "did not move within 0.2 s" in str(ei.value)
    assert "raised" not in str(ei.value)    # the time limit stopped it: the bot raised nothing


def test_play_in_process_seats_the_bots_it_is_given(faulty_plugins: None,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Hostile review: ``play --in-process`` ignored ``--bots`` (every seat got the
    heuristic), so a plug-in entered there never moved. The failing plug-in's seat is
    now played, and named when it fails."""
    from cli.main import main
    code = main(["play", "--in-process", "--plain", "--auto", "--bots", "crashy",
                 "--seed", "3", "--rules", "modern"])
    out = capsys.readouterr().out
    assert code == 0
    # named as entered: which plug-in it was (the seat's name alone did not say)
    assert "Bo's bot (crashy) failed to move" in out and "KeyError" in out, out[-2000:]


def test_play_in_process_keeps_a_factorys_prints_off_the_screen(
        faulty_plugins: None, capfd: pytest.CaptureFixture[str]) -> None:
    """Plug-in review: ``play --in-process`` made its bots outside the silencing that
    simulate and tournament use: the factory's prints came out above the board."""
    from cli.main import main
    code = main(["play", "--in-process", "--plain", "--auto", "--bots", "tnoisy",
                 "--seed", "3", "--rules", "modern"])
    out = capfd.readouterr().out
    assert code == 0, out[-2000:]
    assert "NOISE FROM THE FACTORY" not in out and "NOISE PRINTED BY THE FACTORY" not in out
    # nor do its moves' prints (plug-in review, round 2: 200 KB lines on the player's screen)
    assert "NOISE BELOW STDOUT" not in out and "NOISE ON __STDOUT__" not in out
    assert "Final scores" in out


def test_play_in_process_keeps_what_the_player_types_from_the_bots(
        faulty_plugins: None, tmp_path: Path) -> None:
    """Plug-in review: a bot reading stdin took the player's typed commands."""
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "play", "--in-process", "--plain", "--auto",
         "--bots", "treader", "--seed", "3", "--rules", "modern"],
        input="typed by the player\n" * 50, capture_output=True, text=True, timeout=120,
        env={**__import__("os").environ,
             "PYTHONPATH": __import__("os").pathsep.join([str(_plugin_dir()), str(ROOT)])},
        cwd=str(ROOT))
    assert "stole" not in done.stdout + done.stderr
    assert "Final scores" in done.stdout, done.stdout[-1000:] + done.stderr[-1000:]


@pytest.mark.parametrize("name", ["swapped", "appends", "tuple", "exits"])
def test_an_answer_equal_to_a_legal_move_but_not_one_is_a_bot_fault(
        faulty_plugins: None, name: str) -> None:
    """Hostile review: actions are named tuples, so a coup fourré with a discard's fields,
    a plain tuple, or a move the bot added to the list it was given passed the legality
    check and surfaced as a rule error, or an internal one; ``sys.exit`` in a bot ended
    the whole run. Each is a bot fault now, named with its seat."""
    with pytest.raises(BotFailed) as ei:
        play_hand(CLASSIC, TWO, [make_bot("heuristic", 1), make_bot(name, 2)],
                  random.Random(3), 0)
    assert ei.value.seat == 1
    assert "not a legal move" in ei.value.reason or "SystemExit" in ei.value.reason


def test_a_tournament_in_worker_processes_forfeits_faulty_bots_and_never_hangs(
        faulty_plugins: None, capfd: pytest.CaptureFixture[str]) -> None:
    """Hostile review: with ``--jobs 2`` a bot fault could not be sent back from the
    worker (the errors did not pickle) and the tournament waited forever; a bot that
    printed broke ``--json``; a factory that fails for some seeds only, or a plug-in's own
    ``decision_seconds`` attribute, ended the run with an internal error."""
    import json

    from cli.main import main
    code = main(["tournament", "--bots", "swapped,picky,chatty,heuristic", "--deals", "1",
                 "--seed", "2", "--jobs", "2", "--json", "--quiet"])
    captured = capfd.readouterr()
    assert code == 0, captured.err
    report = json.loads(captured.out)            # stdout holds the report alone
    by = {b["bot"]: b for b in report["bots"]}
    assert "not a legal move" in by["swapped"]["first_fault"]
    assert "could not be made" in by["picky"]["first_fault"]
    assert "forfeits" not in by["chatty"] and "BOT SAYS" in captured.err


def test_a_worker_that_dies_costs_only_its_own_match(faulty_plugins: None) -> None:
    """A bot that ends its worker process outright (a crash) forfeits that match;
    the other pairs' matches are played and reported (the pool used to wait for ever, then
    the whole tournament ended, every result lost)."""
    from cli.tournament import run_matches
    specs = ["tcrashes", "heuristic", "random"]
    tasks = schedule(specs, CLASSIC, TWO, 1, 5)
    results = list(run_matches(tasks, 2))
    assert [r.task for r in results] == tasks               # schedule order, none lost
    report = summarise(specs, TWO, results)
    by = {b["bot"]: b for b in report["bots"]}
    assert by["tcrashes"]["forfeits"] == by["tcrashes"]["matches"] == 4
    assert "ended its worker process" in by["tcrashes"]["first_fault"]
    pair = next(p for p in report["pairs"] if p["bot"] == "heuristic"
                and p["opponent"] == "random")
    assert pair["matches"] == 2 and "forfeits" not in by["random"]


def test_with_one_job_a_plugin_that_ends_its_process_costs_only_its_own_matches(
        faulty_plugins: None) -> None:
    """``--jobs 1`` played every match in the tournament's own process: a plug-in calling
    ``os._exit`` ended the whole run there, every result before it lost and no report.
    With a plug-in entered, one job is one worker process, as two jobs are two."""
    from cli.tournament import run_matches
    specs = ["heuristic", "random", "tcrashes"]
    tasks = schedule(specs, CLASSIC, TWO, 1, 5)
    results = list(run_matches(tasks, 1))
    assert [r.task for r in results] == tasks               # schedule order, none lost
    by = {b["bot"]: b for b in summarise(specs, TWO, results)["bots"]}
    assert by["tcrashes"]["forfeits"] == by["tcrashes"]["matches"] == 4
    pair = next(p for p in summarise(specs, TWO, results)["pairs"]
                if p["bot"] == "heuristic" and p["opponent"] == "random")
    assert pair["matches"] == 2 and "forfeits" not in by["heuristic"]


@pytest.mark.slow          # 6 s: eight matches whose worker dies, each played again alone
def test_a_pool_that_breaks_between_two_results_loses_nothing(faulty_plugins: None) -> None:
    """Plug-in review: a worker dying while the caller read a result (a slow consumer, a
    loaded machine) broke the pool before the next match was handed in, and that
    submit's BrokenProcessPool ended the whole tournament."""
    import time

    from cli.tournament import run_matches
    specs = ["random", "heuristic-v1", "tcrashes"]
    tasks = schedule(specs, CLASSIC, TWO, 2, 1)
    results = []
    for r in run_matches(tasks, 2):
        results.append(r)
        time.sleep(0.5)             # the workers die meanwhile
    assert [r.task for r in results] == tasks                # schedule order, none lost
    by = {b["bot"]: b for b in summarise(specs, TWO, results)["bots"]}
    assert by["tcrashes"]["forfeits"] == by["tcrashes"]["matches"] == 8


def test_of_two_plugins_the_one_whose_move_ends_its_worker_forfeits(
        faulty_plugins: None) -> None:
    """Of two plug-ins, the one in whose own move the worker ended, twice over (its match
    played alone), forfeits; the other is not blamed. (Before, which of the two did it
    was never told and the tournament ended; when it cannot be told, a thread ending the
    process, see tests/test_plugins_third.py: said, not guessed.)"""
    from cli.tournament import run_matches
    tasks = schedule(["tcrashes", "chatty"], CLASSIC, TWO, 1, 5)
    results = list(run_matches(tasks, 2))
    assert [r.task for r in results] == tasks                # schedule order, none lost
    assert [(r.faulty_bot, r.fault) for r in results] == [
        (0, "ended its worker process in the middle of the match (SIGKILL, killed: by the "
            "system, short of memory, or by someone)")] * len(tasks)
    by = {b["bot"]: b for b in summarise(["tcrashes", "chatty"], TWO, results)["bots"]}
    assert by["chatty"]["wins"] == by["chatty"]["matches"] == len(tasks)
    assert "forfeits" not in by["chatty"]


def test_a_child_process_bot_that_fails_is_stopped_and_a_quick_bot_moves(
        faulty_plugins: None, capfd: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    """At a networked table: a plug-in that raises had its traceback printed over the
    player's screen and its prints too; one that answered late kept a core busy."""
    from cli.bot_process import BotProcess
    from engine import apply_action, legal_actions, new_hand, view_of
    order = list(CLASSIC.deck(TWO))
    random.Random(4).shuffle(order)
    state = new_hand(CLASSIC, TWO, order, 0)
    state = apply_action(state, legal_actions(state, 0)[0])      # drawn: now a play
    view, legal = view_of(state, 0), legal_actions(state, 0)
    for name in ("crashy", "chatty", "swapped"):
        bot = BotProcess(name, 1, answer_within=10.0)
        try:
            assert bot.choose(view, legal) in legal
            assert bot._broken == (name != "chatty")
            if name != "chatty":
                assert not bot._proc.is_alive()
        finally:
            bot.close()
    out, err = capfd.readouterr()
    assert "BOT SAYS" not in out + err and "Traceback" not in out + err
    assert "raised KeyError" in caplog.text and "not a legal move" in caplog.text


@pytest.mark.parametrize("name", ["crashy", "swapped"])
def test_simulate_with_the_fair_deck_names_the_bot_that_failed(faulty_plugins: None,
                                                             name: str) -> None:
    """Hostile review: ``simulate --fair-deck`` called the bots bare: a plug-in that raised
    was an "unexpected error", one that answered a wrong move was a protocol break of its
    seat. Its seat now signs nothing for it, and simulate names the bot."""
    from cli import simulate
    with pytest.raises(ValueError) as ei:
        simulate.simulate_fair(CLASSIC, TWO, ["heuristic", name], 1, 4, None)
    text = str(ei.value)
    assert f"bot {name} at seat 1 failed to move in game 1 of 1" in text, text


@pytest.mark.parametrize("name", ["crashy"])
def test_the_cheat_demonstration_names_the_bot_that_failed(
        faulty_plugins: None, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Plug-in review: ``simulate --fair-deck --cheat`` called the bots bare: a plug-in
    that answered None ended it with "unexpected error: KeyError: <class 'NoneType'>".
    (A cheat at the hand's end: every bot has moved by then, whoever starts.)"""
    from cli.main import main
    code = main(["simulate", "--fair-deck", "--cheat", "withheld-reveal", "--cheater", "0",
                 "--bots", f"heuristic,{name}", "--seed", "2"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"bot {name} at seat 1 failed to move" in err and "unexpected" not in err, err


def test_a_cheat_demonstration_that_fails_leaves_no_folder_behind(
        faulty_plugins: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The demonstration writes its transcript into a temporary folder of its own and names
    it in its report; one that stopped on a bot's fault left that folder behind, named
    nowhere, at every run (66 of them in this machine's /tmp after a day of tests)."""
    import tempfile

    from cli.main import main
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    code = main(["simulate", "--fair-deck", "--cheat", "withheld-reveal", "--cheater", "0",
                 "--bots", "heuristic,crashy", "--seed", "2"])
    assert code == 2, capsys.readouterr().err
    assert not list(tmp_path.glob("millebornes-cheat-*"))
    # a demonstration that ends keeps its folder: the report names it
    assert main(["simulate", "--fair-deck", "--cheat", "withheld-reveal", "--cheater", "1",
                 "--seed", "2"]) == 0
    kept = list(tmp_path.glob("millebornes-cheat-*/*.mbt"))
    assert len(kept) == 1 and str(kept[0]) in "".join(capsys.readouterr().out.split())


@pytest.mark.parametrize(("spec", "said"), [
    ("random:seed=abc", "the seed comes from --seed"),
    ("heuristic:x=1", "bot 'heuristic' has no option x (in 'heuristic:x=1'); it takes match"),
    ("heuristic-v1:a=2", "it takes none"),
    ("search:ms=1:ms=2", "bot option 'ms' is given twice"),
    ("search:margin=nan", "margin must be a number of standard errors from 0 to 100"),
    ("picky", "bot plug-in 'picky' (mb_faulty:make_picky) failed to make its bot: "
              "RuntimeError"),
])
def test_a_bad_bot_spec_is_named_in_words(faulty_plugins: None, spec: str, said: str) -> None:
    """Hostile review: bot options surfaced Python's own messages ("RandomBot.__init__() got
    multiple values for argument 'seed'"), a repeated option or a margin of nan passed
    unnoticed, and a plug-in's failing constructor was an "unexpected error"."""
    with pytest.raises(ValueError) as ei:
        make_bot(spec, 7)
    assert said in str(ei.value), str(ei.value)


def test_an_answer_whose_comparison_raises_is_no_legal_move() -> None:
    """A bot's object may make ``==`` raise: the check says "not a legal move", it does
    not raise itself."""
    from engine import Discard
    from engine.simulate import legal_choice

    class Rude:
        def __eq__(self, other: object) -> bool:
            raise RuntimeError("no")

        __hash__ = object.__hash__

    legal = [Discard(0, 5), Discard(0, 6)]
    assert legal_choice(Discard(0, Rude()), legal) is None   # type: ignore[arg-type]
    assert legal_choice(Rude(), legal) is None
    assert legal_choice(Discard(0, 6), legal) is legal[1]


def test_an_answers_own_code_is_never_run_to_check_or_name_it() -> None:
    """Plug-in review: the time limit covers ``choose`` only, and the check of its answer
    called the answer's ``__eq__`` and the message its ``__repr__``: a bot whose answer's
    ``__eq__`` (or ``__repr__``) sleeps hung simulate, tournament and play for ever. An
    answer is compared and shown only as the engine's actions and plain values."""
    from engine import Discard, view_of
    from engine.simulate import checked_choice

    ran: list[str] = []

    class Sly:
        def __eq__(self, other: object) -> bool:
            ran.append("eq")
            return False

        def __repr__(self) -> str:
            ran.append("repr")
            return "Sly"

        __hash__ = object.__hash__

    class SlyInt(int):
        def __eq__(self, other: object) -> bool:
            ran.append("int-eq")
            return False

        __hash__ = int.__hash__

    rules, seating = CLASSIC, Seating.solo(2)
    from engine import new_hand
    state = new_hand(rules, seating, list(rules.deck(seating)), 0)
    legal = [Discard(0, 5), Discard(0, 6)]
    for answer, said in ((Sly(), "an object of type Sly"),
                         (Discard(0, Sly()), "a Discard holding other objects"),
                         (Discard(0, SlyInt(6)), "a Discard holding other objects"),
                         ([Sly()], "a list holding other objects"),
                         (list(range(10_000)), "a list of 10000 items")):
        with pytest.raises(BotFailed) as ei:
            checked_choice(lambda v, lg, a=answer: a, view_of(state, 0), legal, 0)
        assert said in ei.value.reason, ei.value.reason
    assert ran == []
    assert checked_choice(lambda v, lg: Discard(0, 6), view_of(state, 0), legal, 0) \
        is legal[1]


def test_a_factorys_own_type_error_is_not_called_bad_options(faulty_plugins: None) -> None:
    """Plug-in review: any TypeError of a factory was said as "bad options for this bot",
    options or none: the player looked for options they never gave."""
    from cli.args import bot_problem
    said = bot_problem("ttypeerr")
    assert "could not be made: TypeError" in said and "bad options" not in said, said
    # a factory that takes no seed is told how it is called (fifth review: it was
    # "could not be made: TypeError: make_noseed() takes 0 positional arguments but 1
    # was given"), options given or not: the fault is its author's, never the player's
    for spec in ("tnoseed", "tnoseed:x=1"):
        said = bot_problem(spec)
        assert said.endswith("bot plug-in 'tnoseed' (mb_faulty:make_noseed) cannot be "
                             "called as factory(seed, **options) (it takes no seed): write "
                             "it as def make(seed, **options)"), said
        assert "bad options" not in said, said
    said = bot_problem("ttypeerr:x=1")
    assert "bad options" in said                           # options given: theirs to fix
    assert said.count("bad options") == 1, said            # (it was said twice)


def _plugin_dir() -> Path:
    """Where the ``faulty_plugins`` fixture wrote the plug-ins (on sys.path)."""
    return next(Path(p) for p in sys.path if (Path(p) / "mb_faulty.py").exists())


def _cli_with_plugins(tmp_path: Path, *argv: str, input_text: str = "",
                      **env: str) -> subprocess.CompletedProcess[str]:
    """``millebornes ARGV`` in a child process that sees the test's plug-ins."""
    import os
    full = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]), **env}
    return subprocess.run([sys.executable, "-m", "cli.main", *argv], capture_output=True,
                          text=True, env=full, cwd=str(ROOT), timeout=120, input=input_text)


def _said_once_that_crashy_failed(done: subprocess.CompletedProcess[str]) -> None:
    """The match ran to its end, and its screen said once that Bo's plug-in failed."""
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    said = [line for line in done.stdout.replace("\n  ", " ").splitlines()
            if "failed to move" in line]
    assert said == ["* Bo's bot (crashy) failed to move (raised KeyError: 'boom'); a "
                    "built-in bot plays for it from now on."], done.stdout[-3000:]
    assert "Final scores" in done.stdout and "Traceback" not in done.stderr


def test_a_factory_that_never_returns_is_bounded(faulty_plugins: None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Plug-in review: a factory that never returned was a wait without end before any
    match (``simulate``, ``tournament``, and ``play``'s check of ``--bots``)."""
    import time

    from cli import bot_limit, simulate
    from cli.args import bot_problem, check_bot_entrant
    monkeypatch.setattr(bot_limit, "MAKE_LIMIT", 0.2)
    started = time.monotonic()
    with pytest.raises(ValueError) as ei:
        check_bot_entrant("tslow")
    assert str(ei.value) == "--bots tslow: the bot was not made within 0.2 s"
    assert bot_problem("tslow") == "--bots tslow: the bot was not made within 0.2 s"
    with pytest.raises(ValueError) as ei:
        simulate.simulate(CLASSIC, TWO, ["heuristic", "tslow"], 1, 1)
    assert "bot tslow at seat 1" in str(ei.value) and "not made within 0.2 s" in str(ei.value)
    assert time.monotonic() - started < 10


def test_a_bot_that_raises_a_base_exception_is_a_bot_fault(faulty_plugins: None) -> None:
    """Plug-in review: a bot raising its own BaseException subclass ended simulate,
    tournament and the in-process console with a traceback (and the game was lost)."""
    from cli import simulate
    with pytest.raises(ValueError) as ei:
        simulate.simulate(CLASSIC, TWO, ["todd", "heuristic"], 1, 1)
    assert "bot todd at seat 0 failed to move" in str(ei.value)
    assert "raised Odd: odd" in str(ei.value)
    d = LocalDriver(CLASSIC, TWO, ["Ann", "Bo"], seat=0, seed=4,
                    bots=[None, make_bot("todd", 1)])
    for _ in range(300):
        if d.hand_over:
            break
        if d.my_move():
            d.submit(d.legal()[0])
        else:
            d.step_others()
    assert d.hand_over
    assert sum("Bo's bot failed to move (raised Odd: odd)" in e for e in d.events) == 1


@pytest.mark.parametrize("verb", [
    ["simulate", "--bots", "tnoisy,heuristic", "--games", "1", "--json"],
    ["tournament", "--bots", "tnoisy,heuristic", "--deals", "1", "--jobs", "1", "--json",
     "--quiet"],
])
def test_what_a_bot_writes_below_sys_stdout_never_breaks_the_report(
        faulty_plugins: None, tmp_path: Path, verb: list[str]) -> None:
    """Plug-in review: a factory's or a bot's writes to descriptor 1 (``os.write``,
    ``sys.__stdout__``) went into the ``--json`` report, which no longer parsed."""
    import json
    r = _cli_with_plugins(_plugin_dir(), *verb)
    assert r.returncode == 0, r.stderr
    assert "NOISE" not in r.stdout
    json.loads(r.stdout)                           # the report alone
    assert "NOISE BELOW STDOUT" in r.stderr and "NOISE FROM THE FACTORY" in r.stderr
    assert "NOISE ON __STDOUT__" in r.stderr and "NOISE PRINTED BY THE FACTORY" in r.stderr


def test_a_bot_that_takes_memory_without_end_is_stopped_as_a_fault(faulty_plugins: None) -> None:
    """Plug-in review: a bot that allocated without end took the whole machine's memory
    and the run was killed without a word. Its process's data is bounded
    (MILLEBORNES_BOT_MEMORY_MB here): the allocation fails and the bot is named."""
    r = _cli_with_plugins(_plugin_dir(), "simulate", "--bots", "thog,heuristic", "--games", "1",
                          MILLEBORNES_BOT_MEMORY_MB="300")
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)   # a report, then why
    assert "bot thog at seat 0 failed to move" in r.stderr and "MemoryError" in r.stderr
    assert "Traceback" not in r.stderr


def test_a_bot_calling_os_exit_in_simulate_is_named_and_the_report_made(
        faulty_plugins: None) -> None:
    """``os._exit(9)`` in a plug-in's move ended ``simulate`` at once: exit code 9, not
    a word on either output, every match played lost. The call stops there, as a fault
    of the bot, named, and the report of the matches played is made."""
    r = _cli_with_plugins(_plugin_dir(), "simulate", "--bots", "heuristic,thardexit",
                          "--games", "3", "--seed", "2")
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)   # a report, then why
    assert ("stopped: bot thardexit at seat 1 failed to move in game 1 of 3: called "
            "os._exit(9), which ends a program at once: stopped") in r.stderr, r.stderr
    assert "0 matches, 0 hands" in r.stdout and "Traceback" not in r.stderr


def test_a_bot_calling_os_exit_in_a_tournament_forfeits_in_its_worker(
        faulty_plugins: None) -> None:
    """The same in a tournament's worker: its own matches are forfeited, named, and the
    worker is not lost (the call is stopped before it ends the process)."""
    from cli.tournament import run_matches
    specs = ["thardexit", "random"]
    tasks = schedule(specs, CLASSIC, TWO, 1, 5)
    results = list(run_matches(tasks, 2))
    assert [(r.faulty_bot, r.fault) for r in results] == [
        (0, "called os._exit(9), which ends a program at once: stopped")] * len(tasks)


@pytest.mark.slow    # 6.5 s: a networked simulate (the default run's 10-minute budget)
def test_simulate_on_the_network_replaces_a_bot_that_fails_and_says_so(
        faulty_plugins: None) -> None:
    """Plug-in review: with ``--network`` a bot that raised killed its seat's process (a
    traceback as the report); a bot's prints broke the child's channel to the parent."""
    r = _cli_with_plugins(_plugin_dir(), "simulate", "--network", "--bots", "crashy,chatty",
                          "--games", "1")
    assert r.returncode == 0, r.stderr
    assert ("bot crashy at seat 0 failed to move in game 1 (raised KeyError: 'boom'); the "
            "heuristic played its seat from then on") in r.stderr
    assert "transcripts of each game identical on every peer and verified" in r.stdout
    assert "Traceback" not in r.stderr and "BOT SAYS" not in r.stdout
    # a factory that fails for a game's seed only: the seat's process ended with a
    # traceback and the run lost every game (plug-in review, round 2)
    r = _cli_with_plugins(_plugin_dir(), "simulate", "--network", "--bots", "heuristic,picky",
                          "--games", "1", "--seed", "0")
    assert r.returncode == 0, r.stderr
    assert "bot picky at seat 1 failed to move in game 1 (could not be made (" in r.stderr
    assert "cannot be made for seed 1" in r.stderr
    assert "Traceback" not in r.stderr and "1 match," in r.stdout
    assert "thread left running" not in r.stderr      # our own thread pools end at exit


def test_a_child_process_bot_that_ends_its_process_is_said_with_its_exit_code(
        faulty_plugins: None, caplog: pytest.LogCaptureFixture) -> None:
    """Plug-in review: a bot that ended its process was logged "stopped (EOFError: )"."""
    from cli.bot_process import BotProcess
    from engine import apply_action, legal_actions, new_hand, view_of
    order = list(CLASSIC.deck(TWO))
    random.Random(4).shuffle(order)
    state = new_hand(CLASSIC, TWO, order, 0)
    state = apply_action(state, legal_actions(state, 0)[0])
    view, legal = view_of(state, 0), legal_actions(state, 0)
    bot = BotProcess("tthreadexit", 1, answer_within=10.0)
    try:
        assert bot.choose(view, legal) in legal
    finally:
        bot.close()
    assert "bot tthreadexit ended its process (exit code 9)" in caplog.text, caplog.text


def test_a_plugin_that_is_not_offered_is_said_once(faulty_plugins: None,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    """Plug-in review: "not offered" was said at every reading of the entry points (twice
    on the terminal at each `play`, before logging began)."""
    import logging

    from engine.bots import plugin_bots
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            assert "heuristic" not in plugin_bots()
    said = [r for r in caplog.records if "'heuristic'" in r.getMessage()
            and "not offered" in r.getMessage()]
    assert len(said) <= 1, said


@pytest.mark.parametrize(("spec", "said"), [
    ("heuristic:match=1:match=2", "--bots 'heuristic:match=1:match=2': bot option 'match' is "
                                  "given twice"),
    ("heuristic:seed=3", "--bots 'heuristic:seed=3': a bot's seed is not an option"),
])
def test_simulate_says_which_option_of_a_spec_is_wrong(spec: str, said: str) -> None:
    """Plug-in review: an option given twice, or a seed, was said as the generic "a bot
    spec is a name, then options as :NAME=VALUE"."""
    from cli.args import check_bot_entrant
    with pytest.raises(ValueError) as ei:
        check_bot_entrant(spec)
    assert str(ei.value).startswith(said), str(ei.value)


def test_a_bot_whose_allocation_fails_is_said_without_an_empty_reason() -> None:
    """Plug-in review: "raised MemoryError:" ended with a colon and nothing after it."""
    from engine.simulate import checked_choice

    def hog(view: object, legal: object) -> object:
        raise MemoryError()

    order = list(CLASSIC.deck(TWO))
    from engine import legal_actions, new_hand, view_of
    state = new_hand(CLASSIC, TWO, order, 0)
    with pytest.raises(BotFailed) as ei:
        checked_choice(hog, view_of(state, 0), legal_actions(state, 0), 0)
    assert ei.value.reason == "raised MemoryError"


@pytest.mark.slow
def test_simulate_on_the_network_bounds_a_bot_that_never_moves(faulty_plugins: None) -> None:
    """Recheck of the plug-in review: with ``--network`` a bot that never answered held
    its seat's process (and the run) until the table's own deadline, minutes later, and
    the report named the seat, not the bot. It has 30 s a move, as everywhere else."""
    import time
    started = time.monotonic()
    r = _cli_with_plugins(_plugin_dir(), "simulate", "--network", "--bots", "hangs,heuristic",
                          "--games", "1")
    assert r.returncode == 0, r.stderr
    assert ("bot hangs at seat 0 failed to move in game 1 (did not move within 30 s); the "
            "heuristic played its seat from then on") in r.stderr
    assert time.monotonic() - started < 120


def test_a_plugin_drawing_from_the_global_random_module_repeats_for_a_seed(
        faulty_plugins: None) -> None:
    """The same --seed plays the same matches even for a plug-in that uses ``random``
    itself (it got whatever state the process had: two runs differed)."""
    from cli.simulate import simulate

    random.seed(1)
    first = simulate(CLASSIC, TWO, ["gambler", "heuristic"], 3, 5)
    random.seed(2)
    second = simulate(CLASSIC, TWO, ["gambler", "heuristic"], 3, 5)
    for run in (first, second):
        run.pop("hands_per_second", None)
        run.pop("seconds", None)
    assert first == second
    task = schedule(["gambler", "heuristic"], CLASSIC, TWO, 1, 9)[0]
    random.seed(3)
    a = play_task(task)
    random.seed(4)
    b = play_task(task)
    assert (a.winner_side, a.side_points, a.hands) == (b.winner_side, b.side_points, b.hands)


def test_simulate_keeps_the_matches_played_before_a_bot_fails(
        faulty_plugins: None, capsys: pytest.CaptureFixture[str]) -> None:
    """A bot failing in match 2 of 3 lost match 1's statistics with the run: the report
    now covers the matches before the fault, which is said after it (exit 1)."""
    import json

    from cli.main import main

    assert main(["simulate", "--bots", "heuristic,tsecond", "--games", "3", "--seed", "0",
                 "--json"]) == 1
    out = capsys.readouterr()
    result = json.loads(out.out)
    assert result["games"] == 1 and result["hands"] >= 1
    assert "tsecond" in result["stopped"] and "game 2 of 3" in result["stopped"]
    assert main(["simulate", "--bots", "heuristic,tsecond", "--games", "3", "--seed", "0"]) == 1
    out = capsys.readouterr()
    assert "1 match," in out.out and "seat 1 tsecond" in out.out
    assert "stopped: bot tsecond at seat 1 failed to move in game 2 of 3" in out.err
    assert "not for a second match" in out.err
    assert main(["simulate", "--fair-deck", "--bots", "heuristic,tsecond", "--games", "2",
                 "--seed", "0", "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 1 and result["fair_deck"] and result["entries"] > 0
    assert "game 2 of 2" in result["stopped"]


def test_a_bot_exception_whose_message_never_ends_is_named_by_its_class(
        faulty_plugins: None) -> None:
    """Plug-in review: the fault's words called the exception's own ``__str__`` outside any
    time limit: one that sleeps hung simulate (one that raises ended it, naming nobody)."""
    from cli import simulate
    with pytest.raises(ValueError) as ei:
        simulate.simulate(CLASSIC, TWO, ["heuristic", "tsleepystr"], 1, 1)
    assert "tsleepystr" in str(ei.value) and "raised SleepyStr" in str(ei.value)


def test_a_networked_bots_answer_comes_back_as_plain_data(
        faulty_plugins: None, caplog: pytest.LogCaptureFixture) -> None:
    """Plug-in review: the child sent the bot's own answer object, which the peer
    unpickled (its ``__reduce__`` ran there) and showed with its ``__repr__``: one that
    sleeps held a networked table, unsaid. The child now sends an index or words."""
    import time

    from cli.bot_process import BotProcess
    from engine import apply_action, legal_actions, new_hand, view_of
    order = list(CLASSIC.deck(TWO))
    random.Random(4).shuffle(order)
    state = new_hand(CLASSIC, TWO, order, 0)
    state = apply_action(state, legal_actions(state, 0)[0])      # drawn: now a play
    view, legal = view_of(state, 0), legal_actions(state, 0)
    for name, said in (("tsly", "an object of type Sly"), ("tsleepystr", "raised SleepyStr")):
        bot = BotProcess(name, 1, answer_within=20.0)
        try:
            started = time.monotonic()
            assert bot.choose(view, legal) in legal
            assert time.monotonic() - started < 15 and bot._broken
        finally:
            bot.close()
        assert said in caplog.text, caplog.text
    good = BotProcess("chatty", 1, answer_within=20.0)       # a legal answer: by index
    try:
        draw_state = new_hand(CLASSIC, TWO, order, 0)
        dl = legal_actions(draw_state, 0)
        assert good.choose(view_of(draw_state, 0), dl) is dl[0] and not good._broken
    finally:
        good.close()


@pytest.mark.slow
def test_a_thread_a_bot_left_running_does_not_keep_the_program_alive(
        faulty_plugins: None, tmp_path: Path) -> None:
    """Plug-in review: a bot's own (non-daemon) thread kept simulate alive for ever after
    its report; the command now ends, naming the thread."""
    done = _cli_with_plugins(tmp_path, "simulate", "--bots", "tthreader,heuristic",
                             "--games", "1", "--seed", "3")
    assert done.returncode == 0, done.stderr
    assert "1 match," in done.stdout and "plugin-forever" in done.stderr


def test_one_broken_distribution_leaves_the_other_plugins_offered(
        faulty_plugins: None, caplog: pytest.LogCaptureFixture) -> None:
    """Plug-in review: one installed distribution whose entry_points.txt did not parse
    made every plug-in name "unexpected error: TypeError" (and --bots refused them)."""
    from engine.bots import plugin_bots
    broken = _plugin_dir() / "mbbroken-0.1.dist-info"
    broken.mkdir()
    (broken / "METADATA").write_text("Metadata-Version: 2.1\nName: mbbroken\nVersion: 0.1\n")
    (broken / "entry_points.txt").write_text("[millebornes.bots]\nthis is not an entry point\n")
    bots = plugin_bots()
    assert "crashy" in bots and "tsly" in bots
    assert "mbbroken-0.1.dist-info" in caplog.text and "not offered" in caplog.text
    assert make_bot("chatty", 1).choose is not None


def test_a_bots_thread_printing_after_the_games_stays_out_of_the_report(
        faulty_plugins: None, tmp_path: Path) -> None:
    """Plug-in review: a bot's own thread printing while the report was written put its
    lines inside --json's output (json.loads failed: "Extra data")."""
    import json
    for verb in (["simulate", "--games", "2"], ["tournament", "--deals", "1", "--jobs", "1"]):
        done = _cli_with_plugins(tmp_path, *verb, "--bots", "tnoise,heuristic", "--json")
        assert done.returncode == 0, done.stderr[-500:]
        assert "THREAD-NOISE" not in done.stdout and "THREAD-NOISE" in done.stderr
        json.loads(done.stdout)


def test_a_bot_that_changes_directory_does_not_move_the_transcripts(
        faulty_plugins: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Plug-in review, round 2: a bot calling os.chdir sent a relative --transcript-dir
    elsewhere: "tr/game-0-0001-….mbt: No such file or directory", naming no bot."""
    from cli import simulate
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("MB_WANDER", str(elsewhere))
    monkeypatch.chdir(tmp_path)
    result = simulate.simulate_fair(preset("modern"), TWO, ["twander", "heuristic"], 2, 1, "tr")
    assert len(list((tmp_path / "tr").glob("*.mbt"))) == 2 == len(result["transcripts"])


def _a_play() -> tuple[object, list[object]]:
    """A seat's view and legal moves at a play (classic, two players)."""
    from engine import apply_action, legal_actions, new_hand, view_of
    order = list(CLASSIC.deck(TWO))
    random.Random(4).shuffle(order)
    state = new_hand(CLASSIC, TWO, order, 0)
    state = apply_action(state, legal_actions(state, 0)[0])      # drawn: now a play
    return view_of(state, 0), list(legal_actions(state, 0))


def _bounded_choose(bot: object, view: object, legal: list[object],
                    within: float) -> object:
    """``bot.choose(view, legal)`` in a thread, given ``within`` seconds (a hang fails the
    test instead of holding it)."""
    import threading
    result: list[object] = []
    t = threading.Thread(target=lambda: result.append(bot.choose(view, legal)),  # type: ignore[attr-defined]
                         daemon=True)
    t.start()
    t.join(within)
    assert result, f"choose did not return within {within} s"
    return result[0]


@pytest.mark.parametrize("forge", ["partial", "pickle"])
def test_what_a_bots_child_writes_on_its_channel_runs_nothing_and_holds_nobody(
        faulty_plugins: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture, forge: str) -> None:
    """Hostile plug-in review: a bot reaches the pipe of its own process. A frame that
    promised more than it sent held the peer in its read for ever, past the bot's 30 s (a
    networked table said "Bo is drawing." with no end), and a pickle written there ran its
    code in the peer's process, which the plug-in never may. The peer reads a short plain
    reply, within the bot's time: anything else is the bot's fault."""
    from cli.bot_process import BotProcess
    forged = tmp_path / "forged"
    monkeypatch.setenv("MB_FORGE", forge)
    monkeypatch.setenv("MB_FORGED", str(forged))
    view, legal = _a_play()
    bot = BotProcess("tforger", 1, answer_within=10.0)
    try:
        assert _bounded_choose(bot, view, legal, 40.0) in legal
        assert bot._broken
    finally:
        bot.close()
    assert not forged.exists()              # its pickle's code never ran here
    assert "bot tforger" in caplog.text and "quick bot moves for it" in caplog.text
    assert "could not be made" not in caplog.text, caplog.text     # it played, then forged


@pytest.mark.slow
def test_a_bots_child_that_never_reads_its_questions_holds_nobody(
        faulty_plugins: None, caplog: pytest.LogCaptureFixture) -> None:
    """Hostile plug-in review: a child that answered from a thread of its own and never
    read the questions filled the channel, and the peer's next question waited for room
    for ever. Asking has the same limit as the answer."""
    import time

    from cli.bot_process import BotProcess
    view, legal = _a_play()
    bot = BotProcess("tdeaf", 1, answer_within=5.0)
    started = time.monotonic()
    try:
        for _ in range(200):                 # far more questions than the channel holds
            assert _bounded_choose(bot, view, legal, 30.0) in legal
            if bot._broken or time.monotonic() - started > 60:
                break
        assert bot._broken, "the bot that reads no question is never stopped"
    finally:
        bot.close()
    assert "did not move within 5 s" in caplog.text, caplog.text


#: the start of a script that asks a bot in its own process: a hand one move in
_A_HAND_SCRIPT = '''
import random, sys, threading, time
from cli.args import bot_problem
from cli.bot_process import BotProcess
from engine import CLASSIC, Seating, apply_action, legal_actions, new_hand, view_of

if __name__ == "__main__":
    two = Seating.solo(2)
    order = list(CLASSIC.deck(two))
    random.Random(4).shuffle(order)
    state = new_hand(CLASSIC, two, order, 0)
    state = apply_action(state, legal_actions(state, 0)[0])
'''

_ASKER = _A_HAND_SCRIPT + '''\
    bot = BotProcess(sys.argv[1], 1)
    threading.Thread(target=bot.choose, args=(view_of(state, 0), legal_actions(state, 0)),
                     daemon=True).start()
    print(bot._proc.pid, flush=True)
    time.sleep(3600)
'''


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie no one reaps has ended too)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("plugin", ["hangs", "tstuckc", "tpooled"])
def test_a_busy_bots_child_ends_with_the_process_that_asked_it(
        faulty_plugins: None, tmp_path: Path, plugin: str) -> None:
    """Hostile plug-in review: a player who quit while a plug-in thought (Ctrl-C in
    ``play``) had its bot's peer killed, and the plug-in's child, busy in ``choose`` and
    never reading its channel again, went on for ever at a full core. The child ends
    once the process that asks it is gone, whatever its bot is doing, and so do the
    processes its bot started (``tpooled``, hanging with a pool). A bot stuck in C code
    that holds the interpreter (``tstuckc``) let no watching thread run and outlived the
    player; on Linux a watching process ends it."""
    import os
    import signal
    import time
    script = tmp_path / "asker.py"
    script.write_text(_ASKER)
    pids_file = tmp_path / "pids"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(_plugin_dir()), str(ROOT)]),
           "MB_POOL_PIDS": str(pids_file), "MB_POOL_HANG": "1"}
    asker = subprocess.Popen([sys.executable, str(script), plugin], stdout=subprocess.PIPE,
                             text=True, env=env, cwd=str(ROOT))
    ours: list[int] = []
    try:
        assert asker.stdout is not None
        ours.append(int(asker.stdout.readline()))
        time.sleep(3)                         # made, and busy in its first choose
        if plugin == "tpooled":
            ours += [int(p) for p in pids_file.read_text().split()]
        assert not any(_gone(p) for p in ours)
        asker.send_signal(signal.SIGKILL)     # as BotPeerProcesses.finish ends a bot's peer
        asker.wait(10)
        end = time.monotonic() + 10
        while not all(_gone(p) for p in ours) and time.monotonic() < end:
            time.sleep(0.1)
        assert all(_gone(p) for p in ours), \
            "the plug-in's child or its processes outlived the process that asked it"
    finally:
        asker.kill()
        for p in ours:
            if not _gone(p):
                os.kill(p, signal.SIGKILL)


def test_the_check_of_a_bot_reads_no_more_than_an_answer(faulty_plugins: None) -> None:
    """Hostile plug-in review: the check of ``--bots`` read all its child wrote, in
    time only (60 s): a plug-in that wrote on the check's own channel while it was made
    filled the player's process (200 MB here, more given the time). The check reads one
    answer's worth and names the bot."""
    import resource

    from cli.args import bot_problem
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    problem = bot_problem("tflood")
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert problem is not None and "'tflood' wrote more than its answer" in problem, problem
    assert grown < 50 * 1024, f"the check grew this process by {grown} KiB"


def test_what_a_bot_says_is_one_plain_line_in_the_log(
        faulty_plugins: None, capfd: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hostile plug-in review: a bot's exception message went into millebornes.log as it
    was, line breaks and terminal controls too: a line of its own there could blame an
    honest player ("seat 0 (Ann) signed two different moves"), and --verbose cleared the
    player's screen. What a bot says is one line of printable text wherever it is logged:
    the in-process console's log, and a networked bot's, whose child's words are its
    own to write."""
    import logging

    from cli.bot_process import BotProcess
    from cli.main import main
    monkeypatch.setenv("MB_FORGE", "words")
    with caplog.at_level(logging.WARNING):
        assert main(["play", "--in-process", "--plain", "--auto", "--bots", "tforges",
                     "--seed", "3", "--rules", "modern"]) == 0
        view, legal = _a_play()
        for name in ("tforges", "tforger"):
            bot = BotProcess(name, 1, answer_within=20.0)
            try:
                assert bot.choose(view, legal) in legal and bot._broken
            finally:
                bot.close()
    capfd.readouterr()
    said = [r.getMessage() for r in caplog.records if "tforges" in r.getMessage()]
    assert len(said) == 2, said
    for message in said:
        assert "RuntimeError: boom" in message and "signed two different moves" in message
        assert all(ch.isprintable() for ch in message), repr(message)
    forged = [r.getMessage() for r in caplog.records if "tforger" in r.getMessage()]
    assert len(forged) == 1 and "forged seat 0 (Ann) cheated" in forged[0], forged
    assert all(ch.isprintable() for ch in forged[0]), repr(forged[0])


def test_a_plugin_name_with_controls_or_invisible_characters_is_not_offered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """Hostile plug-in review: an entry point named with terminal controls was offered,
    and every list of the bots (``--bots nosuch`` says "choose from …") wrote them on
    the player's terminal: it cleared the screen and set the window's title. One with a
    zero-width space showed as another bot's name. Neither can be typed in a spec: both
    are refused, in the log, and the list of names stays printable."""
    import logging

    from engine.bots import bot_names, plugin_bots
    install_plugin(tmp_path, "mb_oddnames", "def make(seed, **o):\n    return None\n",
                   {"x\x1b]0;TITLE\x07\x1b[2Jy": "make", "my\u200bbot": "make",
                    "fine": "make"})
    monkeypatch.syspath_prepend(str(tmp_path))
    with caplog.at_level(logging.WARNING):
        offered = plugin_bots()
    assert "fine" in offered
    assert not [n for n in offered if "TITLE" in n.upper() or "\u200b" in n], list(offered)
    assert all(name.isprintable() for name in bot_names())
    assert "cannot be written in a bot spec" in caplog.text


def test_a_networked_table_tells_the_player_that_their_plugin_failed(
        faulty_plugins: None, tmp_path: Path) -> None:
    """Bot author's review: ``play --in-process`` says on the screen that the plug-in
    failed and who plays for it; the networked ``play`` said nothing (only the log knew),
    and its author played a whole match against the heuristic believing it was theirs."""
    done = _cli_with_plugins(_plugin_dir(), "play", "--bots", "crashy", "--auto", "--plain",
                             "--seed", "3", "--data-dir", str(tmp_path / "data"))
    _said_once_that_crashy_failed(done)


@pytest.mark.slow
def test_a_networked_bot_has_its_time_to_be_made_and_then_its_time_to_move(
        faulty_plugins: None, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """Bot author's review: docs/bots.md gives a bot 30 s to be made and 30 s a move, as
    simulate and tournament do; in its own process (a networked table) the making, the
    start of its interpreter and the first move shared one 30 s: a bot that loads a model
    for 20 s and thinks 15 s was replaced at its first move. Each has its own limit."""
    import logging

    from cli.bot_process import BotProcess
    monkeypatch.setenv("MB_SLOW", "2.5")
    view, legal = _a_play()
    with caplog.at_level(logging.WARNING):
        bot = BotProcess("tslowstart", 1, answer_within=4.0)
        try:
            assert bot.choose(view, legal) is legal[0]
            assert not bot._broken, caplog.text
        finally:
            bot.close()
    monkeypatch.setenv("MB_SLOW", "6")
    with caplog.at_level(logging.WARNING):
        bot = BotProcess("tslowstart", 1, answer_within=4.0)
        try:
            assert bot.choose(view, legal) in legal and bot._broken
        finally:
            bot.close()
    assert "bot tslowstart was not made within 4 s" in caplog.text, caplog.text


_TERMINAL_ASKER = _A_HAND_SCRIPT + '''\
    print("CHECKED", repr(bot_problem("tterminal")), flush=True)
    bot = BotProcess("tterminal", 1, answer_within=20.0)
    legal = legal_actions(state, 0)
    print("ANSWERED", bot.choose(view_of(state, 0), legal) is legal[0], bot._broken, flush=True)
    bot.close()
'''


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="a pseudo-terminal")
def test_a_plugin_out_of_process_never_reaches_the_players_terminal(
        faulty_plugins: None, tmp_path: Path) -> None:
    """Hostile plug-in review: at a networked table a plug-in's prints go to the null
    device, but its process kept the player's terminal: opening /dev/tty wrote over the
    full-screen console (and read what the player typed), from the check of --bots and
    from its moves alike. Out of process, it has no terminal at all."""
    import os
    import pty
    import select
    import time
    script = tmp_path / "asker.py"
    script.write_text(_TERMINAL_ASKER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(_plugin_dir()), str(ROOT)])}
    pid, fd = pty.fork()
    if pid == 0:                     # the player's process, with the terminal as its own
        try:
            os.chdir(str(ROOT))
            os.execve(sys.executable, [sys.executable, str(script)], env)
        finally:
            os._exit(99)
    out = b""
    end = time.monotonic() + 90
    try:
        while time.monotonic() < end:
            if select.select([fd], [], [], 1.0)[0]:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:      # the other end closed: it ended
                    break
                if not chunk:
                    break
                out += chunk
    finally:
        os.close(fd)
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    text = out.decode("utf-8", "replace")
    assert "CHECKED ''" in text and "ANSWERED True False" in text, text
    assert "TTY-NOISE" not in text, text


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("hang", ["", "1"])
def test_a_networked_bot_may_think_with_processes_of_its_own_and_they_end_with_it(
        faulty_plugins: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture, hang: str) -> None:
    """Bot author's review: a bot thinking with a ``multiprocessing`` pool plays in
    simulate and tournament (docs/bots.md: no fault), but in its own process at a
    networked table it could not be made ("daemonic processes are not allowed to have
    children") and the heuristic played every match for it. It is made there too; and
    when its process is stopped (it hung) or ends, its own processes end with it."""
    import logging
    import time
    pids_file = tmp_path / "pids"
    monkeypatch.setenv("MB_POOL_PIDS", str(pids_file))
    monkeypatch.setenv("MB_POOL_HANG", hang)
    from cli.bot_process import BotProcess
    view, legal = _a_play()
    with caplog.at_level(logging.WARNING):
        bot = BotProcess("tpooled", 1, answer_within=8.0)
        try:
            assert bot.choose(view, legal) in legal
            assert bot._broken == bool(hang), caplog.text
        finally:
            bot.close()
    if hang:
        assert "bot tpooled did not move within 8 s" in caplog.text, caplog.text
    workers = [int(p) for p in pids_file.read_text().split()]
    end = time.monotonic() + 10
    while time.monotonic() < end and not all(_gone(p) for p in workers):
        time.sleep(0.1)
    assert all(_gone(p) for p in workers), "the bot's own processes outlived it"


@pytest.mark.slow          # about 15 s: a hosted match of a bot against the host
def test_a_plugin_at_a_table_with_a_move_limit_moves_within_it(
        faulty_plugins: None, tmp_path: Path) -> None:
    """Bot author's review: at a table whose host set a move limit (``--move-limit``) a
    plug-in had its own 30 s a move all the same: one slower than the table's limit
    paused the table at its move, and the others were asked to give its seat to a bot.
    Its time is now within the table's: past it the heuristic moves in time, said once
    on its player's screen."""
    done = _cli_with_plugins(_plugin_dir(), "host", "--name", "Ann", "--players", "2",
                             "--bots", "tslowstart", "--move-limit", "3", "--bind",
                             "127.0.0.1", "--no-announce", "--mdns", "loopback", "--auto",
                             "--plain", "--seed", "3", "--data-dir", str(tmp_path / "data"),
                             "--identity", str(tmp_path / "key"), MB_SLOW_MOVE="5")
    out = done.stdout.replace("\n  ", " ")
    assert done.returncode == 0, out[-2000:] + done.stderr[-1000:]
    assert "Paused" not in out and "took longer than the table's time" not in out, out[-3000:]
    assert "Bot1's bot (tslowstart) failed to move (did not move within 2 s)" in out, \
        out[-3000:]
    assert "The match is over." in out


@pytest.mark.slow          # about 15 s: a hosted match of a bot against the host
def test_a_bot_that_thinks_long_at_a_networked_table_is_said_to_think(
        faulty_plugins: None, tmp_path: Path) -> None:
    """Newcomer's review, left by the bots review: a plug-in may take its 30 s a move at a
    networked table, and all that time the screen said only "Bot1's turn." (a bot's move
    shows no limit: a built-in one moves at once). After 3 s it says that the bot thinks,
    and for how long at most; once, and not for a quick bot's moves."""
    done = _cli_with_plugins(_plugin_dir(), "host", "--name", "Ann", "--players", "2",
                             "--bots", "tslowstart", "--bind", "127.0.0.1", "--no-announce",
                             "--mdns", "loopback", "--auto", "--plain", "--seed", "3",
                             "--data-dir", str(tmp_path / "data"),
                             "--identity", str(tmp_path / "key"), MB_SLOW_MOVE="5")
    out = done.stdout.replace("\n  ", " ")
    assert done.returncode == 0, out[-2000:] + done.stderr[-1000:]
    said = [line for line in out.splitlines() if "is thinking" in line]
    assert said == ["* Bot1 (a bot) is thinking (up to 30 s)."], out[-3000:]
    assert "failed to move" not in out and "The match is over." in out, out[-3000:]


@pytest.mark.slow    # a networked game quit at once, then resumed to the match's end
def test_a_resumed_plugin_that_fails_is_said_on_its_players_screen(
        faulty_plugins: None, tmp_path: Path) -> None:
    """Bot author's review, left there: ``play`` and ``host`` said on the screen that a
    plug-in failed, but a game resumed with ``resume`` (its bots restarted in the
    player's process) told only the log."""
    data = str(tmp_path / "data")
    first = _cli_with_plugins(_plugin_dir(), "play", "--bots", "crashy", "--plain",
                              "--seed", "3", "--data-dir", data, input_text="q\ny\n")
    assert "Traceback" not in first.stderr, first.stderr[-2000:]
    game = next(Path(data).glob("bot-1/*/secrets.log")).parent.name[:8]
    done = _cli_with_plugins(_plugin_dir(), "resume", game, "--auto", "--plain",
                             "--data-dir", data)
    _said_once_that_crashy_failed(done)


@pytest.mark.slow    # a hosted match quit at once, then resumed to its end (about 15 s)
@pytest.mark.alone   # a 3 s move limit: failed beside another test worker (load 4.5)
def test_a_resumed_plugin_at_a_timed_table_moves_within_the_tables_limit(
        faulty_plugins: None, tmp_path: Path) -> None:
    """Bot author's review, left there: a plug-in restarted by ``resume`` had its own 30 s
    a move at a table with a move limit (as at ``host`` before), so a slow one paused the
    table at its every move."""
    data, key = str(tmp_path / "data"), str(tmp_path / "key")
    first = _cli_with_plugins(_plugin_dir(), "host", "--name", "Ann", "--players", "2",
                              "--bots", "tslowstart", "--move-limit", "3", "--bind",
                              "127.0.0.1", "--no-announce", "--mdns", "loopback", "--plain",
                              "--seed", "3", "--data-dir", data, "--identity", key,
                              input_text="q\ny\n")
    assert "Traceback" not in first.stderr, first.stderr[-2000:]
    game = next(Path(data).glob("bot-*/*/secrets.log")).parent.name[:8]
    done = _cli_with_plugins(_plugin_dir(), "resume", game, "--auto", "--plain",
                             "--data-dir", data, "--identity", key, MB_SLOW_MOVE="5")
    out = done.stdout.replace("\n  ", " ")
    assert done.returncode == 0, out[-2000:] + done.stderr[-1000:]
    assert "Paused" not in out and "took longer than the table's time" not in out, out[-3000:]
    assert "(tslowstart) failed to move (did not move within 2 s)" in out, out[-3000:]
    assert "The match is over." in out or "Final scores" in out, out[-2000:]


def test_the_programs_own_exceptions_are_never_taken_for_a_plugins_hooked_ones() -> None:
    """A plug-in's exception whose class the program cannot read without running its code
    is replaced by a plain stand-in (pass 12); with the engine compiled (mypyc, CI's last
    part), the engine's own classes list their instances' ``__dict__`` field, and
    ``PluginFailed`` was replaced too: ``except PluginFailed`` missed it, and a plug-in
    that takes no seed was said to have "bad options" (the compiled run failed)."""
    import engine.errors as errors
    from engine.bot_guard import tamed
    own = [v for v in vars(errors).values()
           if isinstance(v, type) and issubclass(v, BaseException)
           and v.__module__ == "engine.errors"]
    assert errors.PluginFailed in own and errors.BotFailed in own
    for kind in own:
        try:
            exc = kind("words")
        except TypeError:           # one that wants other arguments
            continue
        assert tamed(exc) is None, kind
