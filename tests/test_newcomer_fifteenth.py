"""Newcomer review, fifteenth pass: the console answers keys while a plug-in bot (or the
search bot) thinks at ``play --in-process``; the too-small screen says only keys that work.

The bot thought on the screen's own thread (``LocalDriver.step_others``): help, the log,
q to leave, all dead until it moved, for up to its 30 s; its time limit (``SIGALRM``) held
on the main thread only. It now thinks in a process of its own
(:class:`engine.bot_process.BotProcess`), as at a networked table."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from engine.testing import install_plugin

PLUGIN = """
import os
import signal
import time

from engine.bots import make_bot


class Gated:
    \"\"\"Thinks until the test opens its gate (a file), saying it was asked.\"\"\"

    def __init__(self, seed):
        self.inner = make_bot("heuristic", seed)

    def choose(self, view, legal):
        with open(os.environ["MB15_ASKED"], "a") as f:
            f.write("asked\\n")
        end = time.monotonic() + 60
        while not os.path.exists(os.environ["MB15_GATE"]) and time.monotonic() < end:
            time.sleep(0.02)
        return self.inner.choose(view, legal)


class Hangs:
    def __init__(self, seed):
        pass

    def choose(self, view, legal):
        time.sleep(1000)


class Raises:
    def __init__(self, seed):
        pass

    def choose(self, view, legal):
        raise ValueError("no idea what to play")


class Dies:
    def __init__(self, seed):
        pass

    def choose(self, view, legal):
        os.kill(os.getpid(), signal.SIGKILL)


def make_gated(seed):
    return Gated(seed)


def make_hangs(seed):
    return Hangs(seed)


def make_raises(seed):
    return Raises(seed)


def make_dies(seed):
    return Dies(seed)
"""


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's plug-in bots installed (on this process's path, which a spawned bot's
    process inherits), with the gated bot's files."""
    folder = tmp_path / "plugins"
    folder.mkdir()
    install_plugin(folder, "mb15", PLUGIN, {"mb15gated": "make_gated",
                                            "mb15hangs": "make_hangs",
                                            "mb15raises": "make_raises",
                                            "mb15dies": "make_dies"})
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setenv("MB15_ASKED", str(tmp_path / "asked"))
    monkeypatch.setenv("MB15_GATE", str(tmp_path / "gate"))
    return tmp_path


def _driver(bot: str, seed: int = 5) -> Any:
    """A two-player table (you and Bo, who plays ``bot``) whose first move is Bo's."""
    from cli.driver import LocalDriver
    from engine import Seating, preset

    for s in range(seed, seed + 50):
        probe = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=s)
        if probe.state.actors() == (1,):
            return LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=s,
                               bots=[None, bot], lang="en")
    raise AssertionError("no seed deals Bo the first move")


def _asked(plugins: Path) -> int:
    path = plugins / "asked"
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_the_full_screen_answers_keys_while_a_plugin_bot_thinks_and_q_leaves(
        plugins: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot thinks (its gate shut): h opens the help, the status says who thinks and
    for how long at most, q asks and y leaves, all before the bot has moved; leaving
    stops the bot's process."""
    from cli_helpers import SizedOutput, run_headless, until

    from cli import driver as driver_module
    from cli import i18n
    from cli.app import TableApp

    monkeypatch.setattr(driver_module, "THINKING_SAID_AFTER", 0.1)
    apps: list[TableApp] = []
    seen: dict[str, Any] = {}
    with i18n.using("en"):
        d = _driver("mb15gated")
        events_before = len(d.events)

        async def script(app: TableApp, inp: Any) -> None:
            await until(lambda: _asked(plugins) == 1 and d.activity() is not None, 30)
            inp.send_text("h")
            await until(lambda: app.show_help, 5)
            seen["status"] = app.status_text()
            seen["moved"] = len(d.events) != events_before
            inp.send_text("h")
            await until(lambda: not app.show_help, 5)
            inp.send_text("q")
            await until(lambda: app.confirm_quit, 5)
            inp.send_text("y")

        def make(inp: Any, out: Any) -> TableApp:
            apps.append(TableApp(d, input=inp, output=SizedOutput(100, 30), delay=0.0))
            return apps[0]

        try:
            started = time.monotonic()
            code = run_headless(make, script)
            left_after = time.monotonic() - started
        finally:
            d.close()
    assert code == 0
    assert seen["moved"] is False, "the key was answered only after the bot's move"
    assert "Bo (a bot) is thinking (up to 30 s)." in seen["status"], seen["status"]
    assert _asked(plugins) == 1 and len(d.events) == events_before
    assert left_after < 20, left_after        # the gate never opened: it waited no 60 s
    proc = d.bots[1]._proc
    proc.join(5)
    assert not proc.is_alive(), (proc.exitcode, d.bots[1]._broken, d._thinking)


def test_the_bot_moves_once_it_has_thought_and_the_game_goes_on(
        plugins: Path) -> None:
    """The gate opens: the bot's move is applied and the next one asked."""
    d = _driver("mb15gated")
    try:
        before = d.state
        assert d.step_others(wait=0.05) is False       # it thinks
        assert d.others_pending() and not d.my_move() and d.state is before
        (plugins / "gate").touch()
        end = time.monotonic() + 30
        while not d.step_others(wait=0.05):
            assert time.monotonic() < end
        assert _asked(plugins) == 1 and d.state is not before    # its draw
        while not d.my_move():                                   # then its play
            d.step_others(wait=0.05)
            assert time.monotonic() < end
        assert _asked(plugins) == 2
        assert any(e.startswith("Bo ") for e in d.events[1:]), d.events
        assert not any("failed" in e for e in d.events), d.events
    finally:
        d.close()


def test_the_line_mode_answers_what_is_typed_while_a_plugin_bot_thinks(
        plugins: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``help`` typed while the bot thinks is answered before its move; the thinking line
    is said once, then quit and y leave (the bot never moved)."""
    import io

    from cli import driver as driver_module
    from cli import i18n, plain

    monkeypatch.setattr(driver_module, "THINKING_SAID_AFTER", 0.1)
    d = _driver("mb15gated")
    events_before = len(d.events)
    out = io.StringIO()
    script = ["help", "quit", "y"]
    moved_at_help: list[bool] = []

    class Keys:
        def get(self, timeout: float = 0.0) -> str | None | bool:
            time.sleep(min(timeout, 0.01))
            if not script or _asked(plugins) < 1 or "is thinking" not in out.getvalue():
                return False if script else None
            if script[0] == "help":
                moved_at_help.append(len(d.events) != events_before)
            return script.pop(0)

    try:
        with i18n.using("en"):
            code = plain.PlainSession(d, out=out, inp=Keys()).run()  # type: ignore[arg-type]
    finally:
        d.close()
    said = " ".join(out.getvalue().split())
    assert code == 0
    assert moved_at_help == [False]
    assert "* Bo (a bot) is thinking (up to 30 s)." in said, said
    assert said.count("Bo (a bot) is thinking") == 1, said
    assert "Commands" in said or "help" in said.lower()
    assert len(d.events) == events_before          # left before the bot moved


def test_a_plugin_that_hangs_is_stopped_at_its_limit_and_a_built_in_bot_moves(
        plugins: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its time limit holds off the main thread too (SIGALRM did not): past it the bot is
    said, by its name, and a built-in bot moves for it. (A plug-in made during its first
    timed move leaves that move to the built-in bot and has its whole limit from the next,
    hostile pass 11: the move it hangs in may be its second.)"""
    from cli import driver as driver_module

    monkeypatch.setattr(driver_module, "BOT_MOVE_LIMIT", 1.0)
    d = _driver("mb15hangs")
    failed = "Bo's bot (mb15hangs) failed to move (did not move within 1 s); a built-in " \
        "bot plays for it from now on."
    try:
        end = time.monotonic() + 15
        while failed not in d.events:
            started = time.monotonic()
            while not d.step_others(wait=0.05):
                assert time.monotonic() < end, d.events
                if d.my_move():
                    # the plug-in made late (a loaded machine) left Bo's first move to
                    # the built-in bot: then it is You's turn, which the test plays
                    d.submit(d.legal()[0])
                    started = time.monotonic()
            took = time.monotonic() - started
        assert took >= 0.9, took            # the move it hung in: stopped at its limit
        for _ in range(20):                      # the game goes on, the seat quick now
            if d.others_pending():
                assert d.step_others(wait=2.0)
        assert sum("failed to move" in e for e in d.events) == 1
    finally:
        d.close()


@pytest.mark.parametrize("bot, words", [
    ("mb15raises", "raised ValueError: no idea what to play"),
    ("mb15dies", "ended its process (SIGKILL, killed: by the system, short of memory, or "
                 "by someone)")])
def test_a_plugin_that_crashes_or_ends_its_process_is_said_by_name(
        plugins: Path, bot: str, words: str) -> None:
    d = _driver(bot)
    try:
        end = time.monotonic() + 30
        while not d.step_others(wait=0.05):
            assert time.monotonic() < end
        assert f"Bo's bot ({bot}) failed to move ({words}); a built-in bot plays for it " \
            "from now on." in d.events, d.events
    finally:
        d.close()


def test_the_search_bot_in_its_own_process_plays_the_same_game_for_a_seed() -> None:
    """Determinism: a seed deals and plays the same game whether the search bot thinks in
    this process (a driver given the spec alone) or in its own (play --in-process)."""
    from cli.driver import LocalDriver
    from engine import Seating, preset
    from engine.bot_process import BotProcess
    from engine.bots import make_bot

    def game(bots: Any) -> list[str]:
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=11,
                        bots=bots, lang="en")
        me = make_bot("heuristic", 99)
        try:
            for _ in range(300):
                if d.hand_over:
                    break
                if d.others_pending():
                    d.step_others(wait=10.0)
                elif d.my_move():
                    d.submit(me.choose(d.view(), d.legal()))
            return list(d.events)
        finally:
            d.close()

    apart = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=11,
                        bots=[None, "search:playouts=30"])
    assert isinstance(apart.bots[1], BotProcess)
    apart.close()
    assert game([None, "search:playouts=30"]) == game("search:playouts=30")


def test_quick_built_in_bots_stay_in_this_process() -> None:
    """A heuristic bot moves in microseconds; its own process would cost 0.4 s to start
    and 0.2 ms a move: it plays here."""
    from cli.driver import LocalDriver
    from engine import Seating, preset
    from engine.bot_process import BotProcess

    d = LocalDriver(preset("classic"), Seating.solo(3), ["You", "Bo", "Cy"], seed=1,
                    bots=[None, "heuristic", "random"])
    assert not any(isinstance(b, BotProcess) for b in d.bots)
    d.close()


# ----- 2. the too-small screen names no key that does nothing there ------------------------

def _small_screen(d: Any, lang: str = "en") -> str:
    from cli_helpers import SizedOutput

    from cli import i18n
    from cli.app import TableApp

    with i18n.using(lang):
        app: Any = TableApp(d, output=SizedOutput(60, 20), lang=lang)
        return " ".join("".join(t for _s, t, *_r in app._too_small_fragments()).split())


def test_the_too_small_screen_says_the_keys_it_names_work_only_once_it_is_larger() -> None:
    """At 60×20 the board is hidden and no key plays ("no key plays meanwhile (q leaves,
    h helps)"), yet the status under it said "play or discard a card (p or d …)", or
    "c for a coup fourré, n to let it stand": keys that did nothing there."""
    from cli.driver import LocalDriver
    from engine import Seating, preset
    from engine.bots import make_bot

    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
    d.run_others()
    assert d.my_move()
    mine = _small_screen(d)
    assert "(p or d" in mine, mine          # the status, as the board says it
    assert "Those keys work once the terminal is larger; until then only q (leave) and " \
        "h (help) do." in mine, mine
    assert "Ces touches marchent dès que le terminal est plus grand" in _small_screen(d, "fr")
    me = make_bot("heuristic", 4)
    while not d.hand_over:                  # the hand's end: "Press Enter for hand 2."
        if d.others_pending():
            d.step_others()
        else:
            d.submit(me.choose(d.view(), d.legal()))
    over = _small_screen(d)
    assert "Press Enter for hand 2" in over and "Those keys work once" in over, over


def test_the_too_small_screen_says_nothing_of_keys_when_its_status_names_none() -> None:
    """Bo's turn: the status names no key, and nothing is added."""
    from cli.driver import LocalDriver
    from engine import Seating, preset

    for seed in range(1, 50):
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=seed)
        if d.state.actors() == (1,):
            break
    assert not d.my_move()
    text = _small_screen(d)
    assert "Those keys work" not in text, text


def test_on_a_real_terminal_h_and_q_are_answered_while_a_plugin_bot_thinks(
        plugins: Path) -> None:
    """`millebornes play --in-process --bots mb15gated` in tmux: while the plug-in thinks
    (its gate shut), the screen says so, h opens the help and q then y leave, the bot
    never having moved (the screen was frozen until its move, up to its 30 s)."""
    import os
    import shlex
    import shutil
    import subprocess
    import sys

    tmux_path = shutil.which("tmux")
    if tmux_path is None:
        pytest.skip("tmux is not installed")
    root = Path(__file__).resolve().parent.parent
    folder = plugins / "plugins"
    server = f"mb15-{os.getpid()}"
    env = {"PYTHONPATH": os.pathsep.join([str(folder), str(root)]),
           "XDG_DATA_HOME": str(plugins / "data"), "LANG": "C.UTF-8",
           "MB15_ASKED": str(plugins / "asked"), "MB15_GATE": str(plugins / "gate")}
    command = " ".join(shlex.quote(a) for a in [
        "env", *(f"{k}={v}" for k, v in env.items()), sys.executable, "-m", "cli",
        "play", "--in-process", "--auto", "--bots", "mb15gated", "--seed", "3"])

    def tmux(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([tmux_path, "-L", server, "-f", os.devnull, *args],
                              capture_output=True, text=True, timeout=10)

    def screen_within(seconds: float, text: str) -> str:
        end = time.monotonic() + seconds
        while True:
            screen = tmux("capture-pane", "-p", "-t", "table").stdout
            if text in " ".join(screen.split()) or time.monotonic() > end:
                return screen
            time.sleep(0.1)

    started = tmux("new-session", "-d", "-s", "table", "-x", "100", "-y", "30",
                   f"cd {shlex.quote(str(plugins))} && {command}; echo EXITED $?; sleep 60")
    if started.returncode != 0:
        pytest.skip(f"tmux cannot start a session: {started.stderr.strip()}")
    try:
        end = time.monotonic() + 30
        while _asked(plugins) < 1:
            assert time.monotonic() < end, tmux("capture-pane", "-p", "-t", "table").stdout
            time.sleep(0.1)
        screen = screen_within(5, "Bo (a bot) is thinking (up to 30 s).")
        assert "Bo (a bot) is thinking (up to 30 s)." in " ".join(screen.split()), screen
        tmux("send-keys", "-t", "table", "h")
        screen = screen_within(3, "closes this help")
        assert "closes this help" in " ".join(screen.split()), screen   # the help
        tmux("send-keys", "-t", "table", "Escape")
        time.sleep(0.3)
        tmux("send-keys", "-t", "table", "q")
        screen = screen_within(3, "Leave the game?")
        assert "Leave the game?" in screen, screen
        tmux("send-keys", "-t", "table", "y")
        screen = screen_within(5, "EXITED")
        assert "EXITED 0" in screen, screen
        assert _asked(plugins) == 1          # it never moved: left while it thought
    finally:
        subprocess.run([tmux_path, "-L", server, "kill-server"], capture_output=True,
                       timeout=10)


# ----- 3. the Uyghur board's columns: flush right ---------------------------------------

@pytest.mark.parametrize("lang, flush", [("ug", "right"), ("fr", "left"), ("en", "left")])
def test_a_uyghur_board_column_is_flush_right_and_others_flush_left(lang: str,
                                                                     flush: str) -> None:
    """On the Uyghur board (right to left) the words of a column (the cards in hand, the
    top of the battle pile, the speed limit) were flush left, read from the column's far
    side, as in a left-to-right language."""
    from cli import i18n, render
    from cli.app import _join
    from cli.driver import LocalDriver
    from engine import Seating, preset

    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3, lang=lang)
    with i18n.using(lang, "shape"):
        # as shown (the eighteenth pass orders a Uyghur line as a whole, from the right)
        line1 = _join([render.zone_lines(d.view(), 0, d.names, d.seat, lang)[0]])
    columns = [text for style, text, *_r in line1 if style.startswith("class:dim")]
    assert len(columns) == 3, line1          # cards, battle pile, speed
    for text in columns:
        words = text.strip(" ")
        assert words and len(text) > len(words) + 2, text
        # (the cards' column has a space of its own on each side)
        edge = len(text) - len((text.rstrip if flush == "right" else text.lstrip)(" "))
        assert edge <= 1, repr(text)


def test_run_others_waits_for_a_bot_in_its_own_process() -> None:
    """``run_others`` (the others' moves until the human's) stopped at the first move of
    a bot in its own process: it was still thinking."""
    d = _driver("search:playouts=20")       # Bo moves first
    try:
        assert d.run_others() >= 2             # his draw and his play
        assert d.my_move() or d.hand_over
    finally:
        d.close()
