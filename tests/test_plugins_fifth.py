"""Plug-in bots written from docs/bots.md alone by outside authors (fifth review of the
plug-ins): a bot that logs with ``logging`` at a networked table (its own process had no
log: every line was lost), one that logs without end there, bots whose leftovers print
or raise as they are freed (``__del__``, ``weakref.finalize``) at the full-screen table
and into a report, a module with a syntax error, a ``choose`` that returns nothing, a
bot that reads the keyboard in a run, an entry point in a mistyped group, factories
that take no seed or return nothing, and one that fails for the table's seed."""

from __future__ import annotations

import logging
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import in_process_table_in_tmux, millebornes_with_plugins

from engine import CLASSIC, Seating, apply_action, legal_actions, new_hand, view_of
from engine.bot_process import LOG_BYTES, BotProcess
from engine.testing import install_plugin

PLUGIN = '''
import logging
import os

log = logging.getLogger("mb_fifth.logger")


class Logs:
    """Says what it does with logging, as a careful author does."""

    def __init__(self, seed):
        log.warning("LOGGED made with seed %d", seed)

    def choose(self, view, legal):
        log.info("LOGGED chose among %d moves", len(legal))
        log.warning("LOGGED two lines\\n2026-01-01 00:00:00,000 p2p.table WARNING forged"
                    "\\x1b[2J\\r")
        return legal[0]


class LogsWithoutEnd(Logs):
    """Logs a megabyte at each move (a debugging line left in a loop)."""

    def choose(self, view, legal):
        for i in range(1000):
            log.warning("FLOOD %d %s", i, "x" * 1000)
        return legal[0]


class Leftover:
    """Something a bot made and dropped: it says goodbye when it is freed."""

    def __init__(self, owner):
        self.me, self.owner = self, owner      # a cycle: freed by the garbage collector

    def __del__(self):
        print("FREED-PRINT", flush=True)
        if self.owner.raises:
            raise ValueError("FREED-RAISE")
        # outside the bot's call (or any, with FREED_ANY: see Cycles.choose)
        if not self.owner.calling or os.environ.get("FREED_ANY"):
            Cycles.outside += 1
            if Cycles.outside == 5 and os.environ.get("FREED"):
                with open(os.environ["FREED"], "w") as f:
                    f.write("5")


class Cycles(Logs):
    """Leaves a cycle with a __del__ that prints at every move (a cache of nodes that
    point at each other, as a tree search keeps)."""

    outside = 0

    def __init__(self, seed, raises=0):
        self.calling, self.raises = False, raises

    def choose(self, view, legal):
        self.calling = True
        Leftover(self)
        self.calling = False
        if os.environ.get("FREED_ANY"):
            # in a process of its own, idle between its calls, the collector seldom
            # runs within a match: it is run here, its leftovers freed (and printing)
            import gc
            gc.collect()
        return legal[0]


class BreaksAndSaysGoodbye(Logs):
    """Breaks at its third move; says goodbye when it is freed, and raises there."""

    def __init__(self, seed):
        self.n = 0

    def choose(self, view, legal):
        self.n += 1
        if self.n == 3:
            raise RuntimeError("broke at its third move")
        return legal[0]

    def __del__(self):
        print("GOODBYE-PRINT", flush=True)
        os.write(1, b"GOODBYE-WRITE\\n")
        raise ValueError("GOODBYE-RAISE")


class AsksTheKeyboard(Logs):
    """Asks its author what to play, as it did while they tried it out by hand."""

    def __init__(self, seed):
        pass

    def choose(self, view, legal):
        import sys
        typed = sys.stdin.readline() + os.read(0, 16).decode()
        return legal[int(typed)] if typed.strip().isdigit() else legal[0]


def make_asks(seed):
    return AsksTheKeyboard(seed)


class Stats(Logs):
    """Says its statistics as it is freed (weakref.finalize) and in its __del__, as a
    researcher's bot does."""

    def __init__(self, seed):
        import weakref
        weakref.finalize(self, print, "STATS-FINALIZED")

    def __del__(self):
        print("STATS-DEL")


def make_stats(seed):
    return Stats(seed)


def make_cycles(seed, raises=0):
    return Cycles(seed, raises)


def make_goodbye(seed):
    return BreaksAndSaysGoodbye(seed)


def make_logs(seed):
    return Logs(seed)


def make_floods(seed):
    return LogsWithoutEnd(seed)
'''


TYPO = '''
class Typo:
    def choose(self, view, legal):
        return legal[0]


def make(seed):
    return Typo(
'''


GROUP = '''
class Fine:
    def choose(self, view, legal):
        return legal[0]


def make(seed):
    return Fine()


def make_without_seed(**options):
    return Fine()


def make_nothing(seed):
    Fine()


def make_needs_depth(seed, *, depth):
    return Fine()


def make_picky(seed):
    if seed != 0:
        raise RuntimeError(f"no model for seed {seed}")
    return Fine()
'''


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    install_plugin(tmp_path, "mb_fifth", PLUGIN, {
        "vlogs": "make_logs", "vfloods": "make_floods", "vcycles": "make_cycles",
        "vgoodbye": "make_goodbye", "vasks": "make_asks",
        "vstats": "make_stats"})
    install_plugin(tmp_path, "mb_fifth_typo", TYPO, {"vtypo": "make"})
    # an author's typo in pyproject.toml: the group is not millebornes.bots
    dist = install_plugin(tmp_path, "mb_fifth_group", GROUP, {})
    (dist / "entry_points.txt").write_text(
        "[millebornes_bots]\nvgroup = mb_fifth_group:make\n\n[millebornes.bots]\n"
        "vnoseed = mb_fifth_group:make_without_seed\nvnothing = mb_fifth_group:make_nothing\n"
        "vdepth = mb_fifth_group:make_needs_depth\nvpicky = mb_fifth_group:make_picky\n",
        encoding="utf-8")
    return tmp_path


def _cli(plugin_dir: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return millebornes_with_plugins(plugin_dir, *argv)


@pytest.mark.slow
def test_what_a_bot_logs_at_a_networked_table_is_in_the_log(plugins: Path) -> None:
    """At a networked table a plug-in thinks in a child process of its own, which had no
    log: what it said with ``logging`` (its making, its every move) was lost, where
    in ``simulate`` and at a table in this process it is in millebornes.log. So was
    what a ``__del__`` raises there ("Exception ignored in ...", Python's words on its
    stderr, the null device)."""
    data = plugins / "table"
    res = _cli(plugins, "play", "--plain", "--auto", "--bots", "vlogs,vcycles:raises=1",
               "--seed", "3", "--rules", "modern", "--data-dir", str(data))
    assert res.returncode == 0, res.stderr
    assert "LOGGED" not in res.stdout + res.stderr and "FREED" not in res.stdout + res.stderr
    log = (data / "millebornes.log").read_text(encoding="utf-8")
    assert "(bot vlogs at seat 1, in its own process) LOGGED made with seed" in log, log
    assert "mb_fifth.logger INFO (bot vlogs at seat 1, in its own process) LOGGED chose " \
        "among" in log
    # a line of its message is its own, never one of the table's log
    assert "LOGGED two lines\n    (bot) 2026-01-01 00:00:00,000 p2p.table WARNING " \
        "forged?[2J?\n" in log
    assert "\n2026-01-01" not in log and "\x1b" not in log
    assert "(bot vcycles:raises=1 at seat 2, in its own process) Exception ignored in: " \
        "<function " \
        "Leftover.__del__ at" in log, log[-2000:]
    assert ">: ValueError: FREED-RAISE" in log


def test_a_bot_that_logs_without_end_in_its_own_process_is_cut_short(
        plugins: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a bot in its own process logs goes to the log file of the process that asks
    it (it was lost), bounded (the parent rotates its log; the child never does), and
    the log says where it was cut."""
    monkeypatch.syspath_prepend(str(plugins))
    path = plugins / "bot.log"
    state = new_hand(CLASSIC, Seating.solo(2), list(CLASSIC.deck(Seating.solo(2))), 0)
    state = apply_action(state, legal_actions(state, 0)[0])      # drawn: now a play
    view, legal = view_of(state, 0), legal_actions(state, 0)
    ours = logging.FileHandler(path, encoding="utf-8")          # as cli.logs sets it up
    logging.getLogger().handlers.insert(0, ours)      # first (other tests leave theirs)
    try:
        bot = BotProcess("vfloods", 1, answer_within=20.0)
    finally:
        logging.getLogger().removeHandler(ours)
        ours.close()
    try:
        for _ in range(2):
            assert bot.choose(view, legal) in legal
        assert not bot._broken
    finally:
        bot.close()
    text = path.read_text(encoding="utf-8")
    assert "FLOOD 0 x" in text
    assert len(text.encode()) <= LOG_BYTES + 1000
    assert text.rstrip().endswith(
        "bot vfloods logged more than 256 KB in its own process: the rest of its log is "
        "dropped"), text[-300:]


def test_what_a_bot_prints_as_it_is_freed_is_not_on_the_table(plugins: Path) -> None:
    """``play --in-process`` writes the screen through a descriptor of its own and the
    main thread's ``sys.stdout``: what a bot's leftovers printed from ``__del__`` (freed
    by the garbage collector between its calls, or the bot itself at the end) came out
    with the table's own lines, after the final scores; the error a ``__del__`` raised,
    "Exception ignored in: ...", on stderr. Neither is the table's: the error goes to
    millebornes.log."""
    data = plugins / "table"
    res = _cli(plugins, "play", "--in-process", "--plain", "--auto", "--bots",
               "vcycles,vgoodbye", "--seed", "3", "--data-dir", str(data))
    assert res.returncode == 0, res.stderr
    assert "Final scores" in res.stdout
    said = res.stdout + res.stderr
    assert "FREED" not in said and "GOODBYE" not in said and "Exception" not in said, said
    log = (data / "millebornes.log").read_text(encoding="utf-8")
    # the bot thinks in a process of its own, as at a networked table: once broken it is
    # stopped there (its __del__ never runs in this process); its fault is in the log
    assert "bot vgoodbye at seat 2 raised RuntimeError: broke at its third move" in log, log


@pytest.mark.slow
def test_a_bots_leftovers_freed_between_its_moves_print_nothing_on_the_board(
        plugins: Path) -> None:
    """At the full-screen table the garbage collector ran in the main thread, between
    the bot's calls too: a ``__del__`` that prints wrote over the board. (The bot now
    thinks in a process of its own, whose output is the null device.)"""
    marker = plugins / "freed"                 # 5 frees, then the marker
    screen, seen = in_process_table_in_tmux(plugins, "vcycles",
                                            {"FREED": str(marker), "FREED_ANY": "1"},
                                            marker, shown="FREED")
    assert "Match to 5000" in screen, screen
    assert "FREED" not in screen + seen and "EXITED" not in screen, screen + seen


def test_a_bot_with_a_syntax_error_is_told_where_it_is(plugins: Path) -> None:
    """A plug-in whose module does not compile was told "failed to load: SyntaxError",
    and nothing of which line (SyntaxError's arguments are not plain words, so its
    message was left out): its author had to import it by hand to find out."""
    res = _cli(plugins, "simulate", "--bots", "vtypo,heuristic", "--games", "1")
    assert res.returncode == 2, res.stderr
    assert "failed to load: SyntaxError: '(' was never closed (mb_fifth_typo.py, line 8)" \
        in res.stderr, res.stderr


@pytest.mark.parametrize(("answer", "said"), [
    (lambda view, legal: None,
     "chose None (its choose returned nothing when view.phase was 'draw': every way "
     "through it must return one of legal), which is not a legal move now"),
    (lambda view, legal: None if view.phase == "play" else legal[0],
     "chose None (its choose returned nothing when view.phase was 'play': every way "
     "through it must return one of legal), which is not a legal move now"),
    (lambda view, legal: [legal[0]],
     "chose a list holding other objects (a list holding a legal move: return the move "
     "itself), which is not a legal move now"),
])
def test_a_bot_that_answers_no_move_is_told_what_it_missed(answer: object, said: str) -> None:
    """A stranger's first bot handles the plays and forgets that ``choose`` is asked to
    draw too: "chose None, which is not a legal move now" did not say when; one that
    answered ``[move]`` was told it chose "a list holding other objects"."""
    from engine import BotFailed
    from engine.simulate import play_hand
    bot = type("Careless", (), {"choose": staticmethod(answer)})()
    with pytest.raises(BotFailed) as caught:
        play_hand(CLASSIC, Seating.solo(2), [bot, bot], random.Random(3), 0)
    assert caught.value.reason == said


@pytest.mark.parametrize("verb", [["simulate", "--games", "2"],
                                  ["tournament", "--deals", "1", "--jobs", "1"]])
def test_a_bot_that_reads_the_keyboard_in_a_run_finds_nothing_there(
        plugins: Path, verb: list[str]) -> None:
    """``simulate`` and ``tournament`` read nothing from their standard input, and a bot
    that did (``input()``, ``sys.stdin.readline()``) waited for the terminal, the run
    silent, until its 30 s were up and it forfeited: its read finds the end of the
    input at once. (The test's stdin is a pipe kept open with nothing in it, as a
    terminal where nobody types.)"""
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugins), str(root)]),
           "XDG_DATA_HOME": str(plugins / "data")}
    keyboard, typing = os.pipe()          # nobody types, and the input never ends
    try:
        with subprocess.Popen([sys.executable, "-m", "cli.main", *verb, "--bots",
                               "vasks,heuristic"], stdin=keyboard, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env,
                              cwd=str(plugins)) as proc:
            try:
                out, err = proc.communicate(timeout=150)
            finally:
                proc.kill()
    finally:
        os.close(keyboard)
        os.close(typing)
    assert proc.returncode == 0, err
    assert "did not move within" not in out + err and "forfeit" not in out, out + err


def test_a_bot_declared_in_a_mistyped_group_is_told_the_group(
        plugins: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An author who wrote ``[project.entry-points."millebornes_bots"]`` installed their
    bot and was told "there is no bot called 'vgroup'; choose from ..." (a list without
    it), and nothing of why: the group's name is said, and the right one."""
    res = _cli(plugins, "simulate", "--bots", "vgroup,heuristic", "--games", "1")
    assert res.returncode == 2, res.stderr
    assert ("--bots: there is no bot called 'vgroup': the package 'mb-fifth-group' declares "
            "it in the entry-point group 'millebornes_bots', which millebornes does not "
            "read; the group is millebornes.bots") in res.stderr, res.stderr
    monkeypatch.syspath_prepend(str(plugins))
    from engine import make_bot
    with pytest.raises(ValueError, match="declares it in the entry-point group "
                                         "'millebornes_bots'"):
        make_bot("vgroup", 1)
    with pytest.raises(ValueError, match="unknown bot 'vnowhere'; choose from random"):
        make_bot("vnowhere", 1)


def test_a_factory_that_takes_no_seed_or_returns_nothing_is_told_what_to_write(
        plugins: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``def make(**options)`` was told "TypeError: make_without_seed() takes 0
    positional arguments but 1 was given", and a factory that forgot its ``return``
    "made an object of type NoneType": each is told how it is called, or what to return.
    A factory whose option is required still works when the spec gives it."""
    from engine import PluginFailed, make_bot
    monkeypatch.syspath_prepend(str(plugins))
    with pytest.raises(PluginFailed) as caught:
        make_bot("vnoseed", 1)
    assert str(caught.value) == (
        "bot plug-in 'vnoseed' (mb_fifth_group:make_without_seed) cannot be called as "
        "factory(seed, **options) (it takes no seed): write it as def make(seed, **options)")
    with pytest.raises(PluginFailed) as caught:
        make_bot("vnothing", 1)
    assert str(caught.value) == ("bot plug-in 'vnothing' made nothing: its factory "
                                 "returned None (return the bot it makes)")
    assert make_bot("vdepth:depth=2", 1).choose is not None
    from cli.args import bot_problem
    said = bot_problem("vdepth:depth=2:x=1")       # an option it does not take: the player's
    assert "bad options" in said and said.count("bad options") == 1, said
    assert "got an unexpected keyword argument 'x'" in said, said


def test_a_bot_that_cannot_be_made_in_its_own_process_is_said_in_plain_words(
        plugins: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A factory that fails for the table's seed (the check of --bots makes it with seed
    0) at a networked table: its player read "could not be made (PluginFailed: bot
    plug-in ...)", the name of an exception class of this program in the middle."""
    monkeypatch.syspath_prepend(str(plugins))
    state = new_hand(CLASSIC, Seating.solo(2), list(CLASSIC.deck(Seating.solo(2))), 0)
    view, legal = view_of(state, 0), legal_actions(state, 0)
    said: list[str] = []
    bot = BotProcess("vpicky", 3, answer_within=20.0,
                     on_fault=lambda spec, words: said.append(words))
    try:
        assert bot.choose(view, legal) in legal
    finally:
        bot.close()
    assert said == ["could not be made (bot plug-in 'vpicky' (mb_fifth_group:make_picky) "
                    "failed to make its bot: RuntimeError: no model for seed 3)"]
    # a plug-in no longer installed (a resumed table): "(ValueError: unknown bot ...)"
    said.clear()
    bot = BotProcess("vgone", 3, answer_within=20.0,
                     on_fault=lambda spec, words: said.append(words))
    try:
        assert bot.choose(view, legal) in legal
    finally:
        bot.close()
    assert said[0].startswith("could not be made (unknown bot 'vgone'; choose from random"), said


@pytest.mark.parametrize("verb", [["simulate", "--games", "2"],
                                  ["tournament", "--deals", "1", "--jobs", "1"]])
def test_what_a_bot_prints_as_it_is_freed_is_not_in_the_report(
        plugins: Path, verb: list[str]) -> None:
    """A bot freed after its match (the last match's bots in ``simulate``, every match's
    in a tournament's worker, as the match's function returns) printed from its
    ``weakref.finalize`` callback or ``__del__`` into the report: "STATS-FINALIZED"
    came before ``--json``'s object (json.loads failed). It goes to stderr, with
    everything else a bot prints."""
    import json
    res = _cli(plugins, *verb, "--bots", "vstats,heuristic", "--json")
    assert res.returncode == 0, res.stderr
    json.loads(res.stdout)
    assert "STATS" not in res.stdout
    assert "STATS-FINALIZED" in res.stderr and "STATS-DEL" in res.stderr
