"""No keyboard input stops the full screen: seeded random typing (every key the board
binds, and keys it does not: control keys, escape sequences, a paste, mouse reports,
wide and right-to-left text, combining marks) into a whole match against bots, with the
terminal resized at random, small to large. The app must still be running and answering
at the end (q asks to leave, y leaves), with no exception raised in its loop."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from cli_helpers import until
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cli.app import TableApp
from cli.driver import LocalDriver
from engine import Seating, preset

#: what a player's fingers can send, the app's own keys first (q, Ctrl-C and Ctrl-D ask
#: to leave: they are always followed by "n", stay)
_KEYS = (list("0123456789pdtcgnyojbeh?:/ r") + ["\r", "\t", " ", "\x7f", "\x08"]
         + ["\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D", "\x1b[H", "\x1b[F", "\x1b[5~", "\x1b[6~",
            "\x1b[3~", "\x1bOP", "\x1b[15~", "\x1b", "\x1bx", "\x1b\r"])
_TEXT = ["play 1", "discard 2", "play 9 on Bo", "draw", "why", "help", "next", "extend yes",
         "coup", "pass", "jouer 1", "aide", "玩 牌", "ئويۇن", "\u202eevil\u202c", "e\u0301\u0301",
         "💥" * 30, "x" * 500, "%s %(name)s {0}", "\x00\x01\x02", "\x1b[31mred\x1b[0m"]
_REPORTS = ["\x1b[<0;10;5M", "\x1b[<0;10;5m", "\x1b[M !!", "\x1b[12;40R",
            "\x1b[200~pasted play 1\nq\ny\n\x1b[201~", "\x1b[I", "\x1b[O"]
_LEAVE_THEN_STAY = ["q", "\x03", "\x04"]


class ResizableOutput(DummyOutput):
    """A screen whose size a test changes (DummyOutput's is fixed at 40×80)."""

    def __init__(self) -> None:
        super().__init__()
        self.size = Size(rows=24, columns=80)

    def get_size(self) -> Size:
        return self.size


#: what moves the match on: a card chosen and played or discarded, a draw, an answer
_MOVES = ["1p", "2p", "3p", "4p", "5p", "6p", "7p", "1d", "2d", "3d", "7d", " ", "\r", "n",
          "y", "c", "g", "pp", "dd", "\x1b"]


def _chunk(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.75:
        return rng.choice(_MOVES)
    r = rng.random()
    if r < 0.70:
        return "".join(rng.choice(_KEYS) for _ in range(rng.randint(1, 6)))
    if r < 0.85:
        return rng.choice(_TEXT)
    if r < 0.95:
        return rng.choice(_REPORTS)
    return rng.choice(_LEAVE_THEN_STAY) + "n"


@pytest.mark.parametrize(("rules", "seating", "names", "seed"), [
    ("classic", Seating.solo(2), ["Ann", "Bo"], 1),
    ("modern", Seating.solo(3), ["Ann", "Bo", "Cy"], 2),
    # (the default run's slowest test, 30 s: with the slow ones)
    pytest.param("classic", Seating(4, 2), ["Ann", "Bo", "Cy", "Di"], 3,
                 marks=pytest.mark.slow),
])
def test_random_typing_never_stops_the_board(rules: str, seating: Seating,
                                              names: list[str], seed: int) -> None:
    _type_at_random(rules, seating, names, seed, steps=1500)


@pytest.mark.slow     # 8 matches typed into, about 2 minutes (1 on 2 workers)
@pytest.mark.parametrize("seed", range(10, 18))
def test_random_typing_never_stops_the_board_many_seeds(seed: int) -> None:
    rules = ("classic", "modern")[seed % 2]
    seating = (Seating.solo(2), Seating.solo(3), Seating(4, 2))[seed % 3]
    _type_at_random(rules, seating, ["Ann", "Bo", "Cy", "Di"][:seating.n_players], seed,
                    steps=3000)


async def _closed(task: asyncio.Future[int], inp: Any) -> None:
    """Whatever happened, the screen ends (Ctrl-Q) and its task is awaited (10 s)."""
    if not task.done():
        inp.send_text("\x11")
        await asyncio.wait_for(task, 10)


async def _leave(app: TableApp, task: asyncio.Future[int], inp: Any, driver: Any) -> None:
    """After the typing: the board still answers. Only the q of a match over may have
    left already (it leaves without asking); else, back at a normal size, Esc closes what
    the keys opened, q asks to leave (or, the match over, leaves) and y leaves."""
    if task.done():
        assert driver.over, f"the board stopped mid-match: {task.result()!r}"
        return
    out = app.app.output
    if isinstance(out, ResizableOutput):
        out.size = Size(rows=24, columns=80)
        app.app._on_resize()
    # a lone Esc waits (ttimeoutlen, then timeoutlen) for what may follow it: Esc q is
    # Alt-q, so q waits until the Esc has done its work (under load a fixed 0.4 s read
    # Esc q as Alt-q with the help open, seed 13 in a CI run)
    settle = (app.app.ttimeoutlen or 0.5) + (app.app.timeoutlen or 1.0) + 0.3
    for _ in range(5):
        inp.send_text("\x1b")
        await asyncio.sleep(settle)
        if not app.show_help and app.app.layout.has_focus(app.hand_window):
            break
    inp.send_text("q")
    try:
        await until(lambda: app.confirm_quit or task.done(), timeout=10)
    except AssertionError:
        raise AssertionError(
            f"q did not ask to leave: help {app.show_help}, small {app.too_small()}, "
            f"pending {app.commander.pending}, message {app.message!r}") from None
    if not task.done():
        inp.send_text("y")
    assert await asyncio.wait_for(task, 10) == 0


def _type_at_random(rules: str, seating: Seating, names: list[str], seed: int,
                    steps: int) -> None:
    rng = random.Random(seed)
    driver = LocalDriver(preset(rules), seating, names, seed=seed)
    errors: list[dict[str, Any]] = []

    async def go() -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda _loop, ctx: errors.append(ctx))
        with create_pipe_input() as inp:
            out = ResizableOutput()
            app = TableApp(driver, input=inp, output=out, delay=0)
            task = asyncio.ensure_future(app.run_async())
            try:
                for step in range(steps):
                    if task.done() or driver.over:
                        break
                    if step % 100 == 0:
                        # now and then too small for the board (it hides, and says so)
                        small = rng.random() < 0.25
                        out.size = Size(rows=rng.choice([8, 16] if small else [24, 40, 60]),
                                        columns=rng.choice([20, 50] if small
                                                           else [80, 132, 200]))
                        app.app._on_resize()
                    inp.send_text(_chunk(rng))
                    await asyncio.sleep(0.002)
                await _leave(app, task, inp, driver)
            finally:
                await _closed(task, inp)

    asyncio.run(go())
    assert not errors, errors


#: mouse reports prompt_toolkit's own handler raised on (Esc [ 1 M typed fast is one)
MALFORMED_MOUSE = ["\x1b[1M", "\x1b[<5M", "\x1b[1;2M", "\x1b[<0;1m", "\x1b[M\x7f\x7f\x7f"]


def test_malformed_mouse_reports_leave_the_replay_viewer_running() -> None:
    from test_cli_replay import bot_game, run_app

    from cli.replay import ReplayApp
    from cli.replay_view import ReplayModel

    model = ReplayModel(bot_game(), ["Ana", "Bo", "Cy"])

    async def script(app: ReplayApp, inp: Any) -> None:
        for report in MALFORMED_MOUSE:
            inp.send_text(report)
        inp.send_text("\x1b[C")                 # and the keys still work
        await until(lambda: app.index == 1, timeout=10)
        inp.send_text("q")

    assert run_app(model, script) == 0


def test_malformed_mouse_reports_leave_the_board_running() -> None:
    from cli_helpers import leave_by_keys, run_board

    driver = LocalDriver(preset("classic"), Seating.solo(2), ["Ann", "Bo"], seed=1)

    async def script(app: TableApp, inp: Any) -> None:
        for report in MALFORMED_MOUSE:
            inp.send_text(report)
        inp.send_text("h")                      # and the keys still work
        await until(lambda: app.show_help, timeout=10)
        inp.send_text("h")
        await until(lambda: not app.show_help, timeout=10)
        await leave_by_keys(app, inp)

    assert run_board(driver, script) == 0


_WORDS = ["play", "p", "discard", "d", "draw", "coup", "c", "pass", "why", "help", "h",
          "next", "extend", "yes", "no", "y", "n", "on", "jouer", "aide",
          "oui", "sur", "scores", "hand", "look", "1", "2", "7", "9", "0", "-1", "999999999999",
          "Bo", "Cy", "Di", "Ann", "You", "me", "all", "Ⅻ", "١", "٣", "玩", "\u202e",
          "\u200b", "e\u0301", "💥", "%s", "%(name)s", "{0}", "\x1b[2J", "\t", "\x00"]


def _line(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.45:
        return rng.choice(["play 1", "play 2", "play 3", "discard 1", "discard 7", "draw",
                           "", "y", "n", "coup", "next", "extend no", "1p", "2d"])
    if r < 0.95:
        return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 5)))
    if r < 0.97:
        return rng.choice(["quit", "q", "Quit"]) + "\nn"    # asks to leave: stay
    return rng.choice(["x" * 10_000, "play " + "9" * 5000, "\x1b" * 200, "\r\r\r"])


@pytest.mark.parametrize(("rules", "seating", "seed"), [
    ("classic", Seating.solo(2), 4), ("modern", Seating.solo(3), 5),
    ("classic", Seating(4, 2), 6)] + [
    pytest.param(("classic", "modern")[s % 2], (Seating.solo(2), Seating.solo(3),
                                                 Seating(4, 2), Seating(6, 3))[s % 4], s,
                 marks=pytest.mark.slow) for s in range(100, 140)])
def test_random_lines_never_stop_the_line_mode(rules: str, seating: Seating,
                                               seed: int) -> None:
    """The line mode (``--plain``, or input from a pipe) read random lines (commands
    with any words, numbers, wide, right-to-left and control characters, 10,000
    characters in a line) to their end: it answers each, and at the end of its input
    it ends, with no traceback."""
    import io

    from cli.plain import run_plain

    rng = random.Random(seed)
    names = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"][:seating.n_players]
    driver = LocalDriver(preset(rules), seating, names, seed=seed)
    text = "\n".join(_line(rng) for _ in range(1500)) + "\n"
    out = io.StringIO()
    assert run_plain(driver, out=out, inp=io.StringIO(text)) == 0
    said = out.getvalue()
    assert "Traceback" not in said and said.count("Sorry") > 10, said[-2000:]
    # the lines took the match a long way: to its end, or 100 events or more into it
    assert driver.over or len(driver.events) >= 100, said[-2000:]


def test_esc_closes_the_command_line_and_the_help_at_once() -> None:
    """Esc closed the command line 1.5 s after it was pressed (prompt_toolkit's 0.5 s
    for an escape sequence, then 1 s for an Alt-key, Esc being their prefix) and the
    help 0.5 s after: the player pressed it again. Now about 0.1 s (the bound here is
    loose for a loaded machine, and far under the 1.5 s it was)."""
    import time

    from cli_helpers import leave_by_keys, run_board

    driver = LocalDriver(preset("classic"), Seating.solo(2), ["Ann", "Bo"], seed=1)
    took: dict[str, float] = {}

    async def script(app: TableApp, inp: Any) -> None:
        inp.send_text(":")
        await until(lambda: app.app.layout.current_window is not app.hand_window)
        start = time.monotonic()
        inp.send_text("\x1b")
        await until(lambda: app.app.layout.current_window is app.hand_window)
        took["command line"] = time.monotonic() - start
        inp.send_text("h")
        await until(lambda: app.show_help)
        start = time.monotonic()
        inp.send_text("\x1b")
        await until(lambda: not app.show_help)
        took["help"] = time.monotonic() - start
        await leave_by_keys(app, inp)

    assert run_board(driver, script) == 0
    assert took["command line"] < 0.8 and took["help"] < 0.8, took


@pytest.mark.slow     # a 3-seat table on real sockets typed into, 15-30 s
@pytest.mark.parametrize("seed", [7, 8])
def test_random_typing_at_a_networked_table_blames_nobody(tmp_path: Any, seed: int) -> None:
    """The full screen of a networked table (real ZeroMQ peers on 127.0.0.1, two bots),
    typed into at random while one bot's player quits for now mid-match (the table then
    pauses, and the pause's keys, b and e, offer a bot or the end): the board keeps
    running, no exception reaches its loop, and no peer blames anyone (the human's
    keys only ever make legal moves and proposals)."""
    import threading

    from test_session import FAST

    from cli.netdriver import NetDriver
    from p2p.table.memory import make_table
    from p2p.testing import socket_peers

    rng = random.Random(seed)
    cfg, ids = make_table(preset("classic"), Seating.solo(3),
                          ["You", "Bo", "Cy"], b"keyboard-monkey-%d" % seed)
    peers = socket_peers(tmp_path, cfg, ids, FAST)
    peers[0].controller = None
    stop = {1: threading.Event(), 2: threading.Event()}

    def pump(s: int) -> None:
        while not stop[s].is_set() and (peers[s].pump(0.05) or peers[s].paused):
            pass
    threads = {s: threading.Thread(target=pump, args=(s,), daemon=True) for s in (1, 2)}
    for t in threads.values():
        t.start()
    driver = NetDriver(peers[0], background=True)
    errors: list[dict[str, Any]] = []

    async def go() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda _l, ctx: errors.append(ctx))
        with create_pipe_input() as inp:
            app = TableApp(driver, input=inp, output=ResizableOutput(), delay=0)
            task = asyncio.ensure_future(app.run_async())
            try:
                for step in range(2500):
                    if task.done() or driver.over:
                        break
                    if step == 600:          # Cy quits for now, as the console's quit does
                        stop[2].set()
                        await asyncio.to_thread(threads[2].join, 10)
                        await asyncio.to_thread(peers[2].leave_for_now, 1.0)
                    inp.send_text(rng.choice(["b", "e", "y", "n"]) if rng.random() < 0.1
                                  else _chunk(rng))
                    await asyncio.sleep(0.004)
                await _leave(app, task, inp, driver)
            finally:
                await _closed(task, inp)

    try:
        assert driver.wait_ready(30)
        asyncio.run(go())
    finally:
        driver.close()
        stop[1].set()
        stop[2].set()
        for t in threads.values():
            t.join(10)
        for p in peers:
            p.close(flush=0.0)
    assert not errors, errors
    for p in peers[:2]:
        assert p.error is None, p.error
        assert p.stopped is None or "seat 0" not in p.stopped, p.stopped


def test_random_typing_never_stops_the_replay_viewer() -> None:
    """The replay viewer typed into at random (its keys, others, escape sequences,
    resizes): it keeps running, no exception reaches its loop, and q still leaves."""
    from test_cli_replay import bot_game

    from cli.replay import ReplayApp
    from cli.replay_view import ReplayModel

    rng = random.Random(21)
    model = ReplayModel(bot_game(), ["Ana", "Bo", "Cy"])
    keys = [*_KEYS, "n", "p", "]", "[", "]]", "[[", "h", "r"]      # (q leaves)
    errors: list[dict[str, Any]] = []

    async def go() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda _l, ctx: errors.append(ctx))
        with create_pipe_input() as inp:
            out = ResizableOutput()
            app = ReplayApp(model, input=inp, output=out)
            task = asyncio.ensure_future(app.run_async())
            try:
                for step in range(500):
                    assert not task.done(), f"the viewer stopped: {task.result()!r}"
                    if step % 100 == 0:
                        out.size = Size(rows=rng.choice([5, 24, 50]),
                                        columns=rng.choice([30, 80, 160]))
                        app.app._on_resize()
                    r = rng.random()
                    inp.send_text(rng.choice(keys) if r < 0.8 else
                                  rng.choice(_TEXT) if r < 0.9 else rng.choice(_REPORTS))
                    await asyncio.sleep(0.002)
                assert 0 <= app.index < len(model)
                inp.send_text("\x1b")
                await asyncio.sleep(0.4)
                inp.send_text("h")              # the help, if the keys left it closed
                await asyncio.sleep(0.2)
                inp.send_text("\x1b")
                await asyncio.sleep(0.4)
                inp.send_text("q")
                assert await asyncio.wait_for(task, 10) == 0
            finally:
                await _closed(task, inp)

    asyncio.run(go())
    assert not errors, errors


def test_a_paste_of_a_megabyte_into_the_command_line_is_cut_and_keys_stay_quick() -> None:
    """A paste of megabytes into the command line was held whole: every key after it took
    seconds (1.8 s at 5 MB, hostile pass 22), its completion reading it all. The command
    line holds :data:`cli.app.COMMAND_MAX` characters."""
    import time

    from cli_helpers import leave_by_keys, run_board

    from cli.app import COMMAND_MAX

    driver = LocalDriver(preset("classic"), Seating.solo(2), ["Ann", "Bo"], seed=1)
    took: list[float] = []

    async def script(app: TableApp, inp: Any) -> None:
        inp.send_text(":")
        await until(lambda: app.app.layout.current_window is not app.hand_window)
        # from a thread: the pipe holds 64 KiB, and the board reads it on this one
        paste = asyncio.ensure_future(asyncio.to_thread(
            inp.send_text, "\x1b[200~" + "play 1 " * 150_000 + "\x1b[201~"))
        await until(lambda: len(app.command.text) > 0, timeout=60)
        await asyncio.wait_for(paste, 60)
        assert len(app.command.text) <= COMMAND_MAX
        start = time.monotonic()
        inp.send_text("\x7f")                   # Backspace: one key, answered at once
        await until(lambda: len(app.command.text) < COMMAND_MAX, timeout=30)
        took.append(time.monotonic() - start)
        inp.send_text("\x1b")
        await until(lambda: app.app.layout.current_window is app.hand_window)
        await leave_by_keys(app, inp)

    assert run_board(driver, script) == 0
    assert took and took[0] < 1.0, took


def test_alt_keys_in_the_command_line_stay_there() -> None:
    """Alt-b and Alt-d (a terminal sends Esc and the letter in one read) edit the command
    line. With Esc made eager to close it at once (review of stop 51), Alt-d closed the
    line at its Esc and its d discarded the selected card, a move that cannot be taken
    back; Alt-b's b went to the board."""
    from cli_helpers import leave_by_keys, run_board

    driver = LocalDriver(preset("classic"), Seating.solo(2), ["Ann", "Bo"], seed=1)
    seen: dict[str, object] = {}

    async def script(app: TableApp, inp: Any) -> None:
        await until(lambda: driver.my_move() and driver.view().phase == "play")
        moves = len(driver.events)
        inp.send_text(":")
        await until(lambda: app.app.layout.current_window is not app.hand_window)
        inp.send_text("play 1 on Bo")
        await until(lambda: app.command.text == "play 1 on Bo")
        inp.send_text("\x1bb")                  # Alt-b: back a word
        await asyncio.sleep(0.6)
        inp.send_text("\x1bd")                  # Alt-d: delete the word after the cursor
        await asyncio.sleep(0.6)
        seen.update(line=app.app.layout.current_window is not app.hand_window,
                    text=app.command.text, moves=len(driver.events) - moves)
        inp.send_text("\x1b")
        await until(lambda: app.app.layout.current_window is app.hand_window)
        await leave_by_keys(app, inp)

    assert run_board(driver, script) == 0
    assert seen == {"line": True, "text": "play 1 on ", "moves": 0}, seen
