"""Plug-in bots written from docs/bots.md alone by outside authors (seventh review of the
plug-ins): the documented test helper called as the docs write it (a folder name, and
again after an edit), a wrong answer at each kind of decision (a draw, the extension
question, a coup fourré's, a fast-play discard of several cards), a tournament that
names one bot twice under two spellings, and a player joining someone's table who wants
their own plug-in to play their seat (``--auto-bot``)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from engine import (
    CLASSIC,
    MODERN,
    BotFailed,
    Discard,
    Draw,
    Extend,
    FastDiscard,
    HandState,
    Play,
    Seating,
    apply_action,
    legal_actions,
    make_bot,
    new_hand,
    view_of,
)
from engine.simulate import checked_choice
from engine.testing import install_plugin

ROOT = Path(__file__).resolve().parent.parent

GREEDY = '''
class Greedy:
    def __init__(self, seed, mark="one"):
        self.mark = mark

    def choose(self, view, legal):
        return legal[0]


def make(seed, **options):
    return Greedy(seed, **options)
'''


def _cli(plugin_dir: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_dir), str(ROOT)]),
           "XDG_DATA_HOME": str(plugin_dir / "data")}
    return subprocess.run([sys.executable, "-m", "cli.main", *argv], capture_output=True,
                          text=True, env=env, cwd=str(plugin_dir), timeout=120,
                          stdin=subprocess.DEVNULL)


def test_the_test_helper_takes_a_folder_name_and_installs_again_after_an_edit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/bots.md: ``engine.testing.install_plugin(folder, "mybot", source, {"mybot":
    "make"})``. An author who passed the folder as a string (``"/tmp/plugins"``) got
    "TypeError: unsupported operand type(s) for /: 'str' and 'str'", and one who ran the
    same line again after changing the bot got FileExistsError: the new source is in."""
    folder = str(tmp_path / "plugins")
    os.mkdir(folder)
    install_plugin(folder, "mb_seventh_helper", GREEDY, {"seventhhelper": "make"})
    install_plugin(folder, "mb_seventh_helper", GREEDY.replace('"one"', '"two"'),
                   {"seventhhelper": "make", "seventhhelper2": "make"})
    monkeypatch.syspath_prepend(folder)
    sys.modules.pop("mb_seventh_helper", None)
    try:
        bot = make_bot("seventhhelper", 1)
        assert getattr(bot, "mark", None) == "two"
        assert getattr(make_bot("seventhhelper2", 1), "mark", None) == "two"
    finally:
        sys.modules.pop("mb_seventh_helper", None)


def _first(rules: object, seating: Seating, phase: str, seed: int = 1) -> HandState:
    """The first state of a heuristic-played hand at which the seat asked is at
    ``phase``."""
    for s in range(seed, seed + 200):
        order = list(rules.deck(seating))          # type: ignore[attr-defined]
        random.Random(s).shuffle(order)
        state = new_hand(rules, seating, order, 0, (0,) * seating.n_teams)  # type: ignore[arg-type]
        bots = [make_bot("heuristic", i) for i in range(seating.n_players)]
        while state.phase != "over":
            if state.phase == "reshuffle":
                break
            seat = state.actors()[0] if state.phase == "respond" else state.seat
            if state.phase == phase:
                return state
            state = apply_action(state, bots[seat].choose(view_of(state, seat),
                                                          legal_actions(state, seat)))
    raise AssertionError(f"no {phase} in 200 hands")


def _fault(state: HandState, answer: object) -> str:
    seat = state.actors()[0] if state.phase == "respond" else state.seat
    view = view_of(state, seat)
    with pytest.raises(BotFailed) as info:
        checked_choice(lambda v, moves: answer, view, legal_actions(view, seat), seat)
    return info.value.reason


def test_a_wrong_answer_names_the_decision_and_what_was_legal_there() -> None:
    """Bot author's review: a wrong answer at the extension question
    (``Extend(seat, "yes")``), at a draw (``Draw(seat, "discard", None)`` under classic
    rules, which have no draw from the discard pile) or a hazard's question was "chose
    Extend(seat=0, extend='yes'), which is not a legal move now": not which decision it
    was, nor what it could have answered, where two or three moves are all there is."""
    ext = _first(CLASSIC, Seating.solo(2), "extend")
    words = _fault(ext, Extend(ext.seat, "yes"))   # type: ignore[arg-type]
    assert "view.phase was 'extend'" in words, words
    assert f"Extend(seat={ext.seat}, extend=True)" in words, words
    assert f"Extend(seat={ext.seat}, extend=False)" in words, words
    draw = _first(CLASSIC, Seating.solo(2), "draw")
    words = _fault(draw, Draw(draw.seat, "discard", None))
    assert "view.phase was 'draw'" in words, words
    assert f"Draw(seat={draw.seat}, source='pile', card=None)" in words, words
    respond = _first(CLASSIC, Seating(4, 2), "respond")
    asked = respond.actors()[0]
    words = _fault(respond, Draw(asked, "pile", None))
    assert "view.phase was 'respond'" in words and f"Pass(seat={asked})" in words, words
    # at a play, with many moves, the phase and their number, not a list of them all
    play = _first(CLASSIC, Seating.solo(2), "play")
    n = len(legal_actions(view_of(play, play.seat), play.seat))
    words = _fault(play, Play(play.seat, 999, None))
    assert "view.phase was 'play'" in words and f"return one of the {n} moves of legal" in words, words
    # a card of its hand played where it cannot be: the moves of legal with that card
    view = view_of(play, play.seat)
    card = view.hand(play.seat)[0]
    words = _fault(play, Play(play.seat, card, 7))
    assert f"legal's moves with card {card} were [" in words, words
    assert f"Discard(seat={play.seat}, card={card})" in words, words


def test_a_fast_discard_names_its_cards_in_any_order() -> None:
    """O-fast-play (R10b): ``FastDiscard(seat, cards)``. The docs give no order for the
    cards, and a bot that threw away its two worst cards, worst first, was "not a legal
    move now": the same cards in another order are the same move. A list of cards is told
    that the move holds a tuple (it was told that moves hold "plain ints, strings and
    None")."""
    rules = replace(MODERN, fast_play=True)
    play = _first(rules, Seating.solo(2), "play")
    seat = play.seat
    view, legal = view_of(play, seat), legal_actions(play, seat)
    fast = next(a for a in legal if isinstance(a, FastDiscard) and len(a.cards) >= 2)
    turned = FastDiscard(seat, tuple(reversed(fast.cards)))
    assert checked_choice(lambda v, moves: turned, view, legal, seat) is fast
    words = _fault(play, FastDiscard(seat, list(fast.cards)))  # type: ignore[arg-type]
    assert "a tuple" in words and "plain ints, strings and None" not in words, words
    # one card is a Discard, not a fast discard: said so
    words = _fault(play, FastDiscard(seat, fast.cards[:1]))
    assert f"Discard(seat={seat}, card={fast.cards[0]})" in words, words
    for odd in (("x",), (True,), (fast.cards[0], "x")):   # plain values, but no cards
        assert "not a legal move" in _fault(play, FastDiscard(seat, odd))  # type: ignore[arg-type]
    assert isinstance(checked_choice(lambda v, moves: Discard(seat, fast.cards[0]), view, legal,
                                     seat), Discard)


@pytest.mark.parametrize("bots", ["tsev,TSev", "tsev:mark=a,tsev:Mark=a", "normal,heuristic",
                                  "hard,search", "expert,search:playouts=800"])
def test_a_tournament_refuses_one_bot_entered_twice_under_two_spellings(
        tmp_path: Path, bots: str) -> None:
    """docs/bots.md: names are read without case (``MyBot`` is ``mybot``) and a level
    stands for its spec (``normal`` is ``heuristic``). A tournament refuses a bot named
    twice, but ``mybot,MyBot`` or ``normal,heuristic`` played the bot against itself as
    two entrants, with an Elo rating for each."""
    install_plugin(tmp_path, "mb_seventh", GREEDY, {"tsev": "make"})
    done = _cli(tmp_path, "tournament", "--bots", bots, "--deals", "1", "--jobs", "1")
    assert done.returncode == 2, done.stdout[-1500:] + done.stderr[-1500:]
    first, second = bots.split(",")
    assert "names one bot twice" in done.stderr, done.stderr
    assert f"{first} and {second}" in done.stderr, done.stderr


JOINER = '''
import os
from engine import Play, make_bot


class Joiner:
    """Plays the joiner's own seat: the heuristic's moves, each call noted in a file; its
    third play raises (a bug of its author's)."""

    def __init__(self, seed):
        self.heuristic = make_bot("heuristic", seed)
        self.plays = 0

    def choose(self, view, legal):
        with open(os.environ["MB_SEVENTH_CALLS"], "a") as f:
            f.write(view.phase + "\\n")
        if view.phase == "play":
            self.plays += 1
            if self.plays == 3:
                raise RuntimeError("my bot broke at its third play")
        return self.heuristic.choose(view, legal)


def make(seed):
    return Joiner(seed)
'''


def test_a_joiner_has_their_own_plugin_play_their_seat(tmp_path: Path) -> None:
    """Bot author's review: a plug-in could sit at a networked table only in a seat its
    host filled (``host --bots mybot``); a player joining someone's table had ``--auto``,
    always the heuristic, and no way to let their own bot play their seat. ``join
    --auto-bot mybot`` does (in a process of its own, as every plug-in at a table), and
    when it fails the heuristic plays on, said once on the joiner's screen."""
    import socket

    from cli_helpers import Logged

    install_plugin(tmp_path, "mb_seventh_joiner", JOINER, {"tjoiner": "make"})
    calls = tmp_path / "calls"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
           "XDG_DATA_HOME": str(tmp_path / "data"), "MB_SEVENTH_CALLS": str(calls)}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    common = ["--plain", "--bind", "127.0.0.1", "--mdns", "loopback"]
    host = Logged([sys.executable, "-m", "cli.main", "host", *common, "--auto", "--name", "Ann",
                   "--players", "2", "--port", str(port), "--no-announce", "--option",
                   "match_target=1", "--data-dir", str(tmp_path / "h"), "--identity",
                   str(tmp_path / "h.key")], env=env, cwd=str(tmp_path),
                  stdin=subprocess.DEVNULL)
    try:
        join = Logged([sys.executable, "-m", "cli.main", "join", *common, "--auto-bot",
                       "tjoiner", "--name", "Ben", "--peer", f"127.0.0.1:{port}",
                       "--data-dir", str(tmp_path / "j"), "--identity",
                       str(tmp_path / "j.key")], env=env, cwd=str(tmp_path),
                      stdin=subprocess.DEVNULL)
        rc, out, err = join.finish(120)
        assert rc == 0, out[-2000:] + err[-2000:]
        hrc, hout, herr = host.finish(30)
        assert hrc == 0, hout[-2000:] + herr[-2000:]
    finally:
        host.kill()
    asked = calls.read_text().split()
    assert asked.count("play") == 3, asked     # then the heuristic: never asked again
    said = " ".join(out.split())
    assert said.count("Your bot (tjoiner) failed to move (raised RuntimeError: my bot broke "
                      "at its third play); a built-in bot plays your seat from now on.") == 1, \
        out[-3000:]
    assert "(auto)" in out and "Match over" in out, out[-2000:]
    assert "Traceback" not in err + herr, err[-2000:] + herr[-2000:]


def test_auto_bot_is_checked_before_the_table_is_joined(tmp_path: Path) -> None:
    """``--auto-bot`` is checked as ``--bots`` is, its flag named: a bot that is not
    installed, or options it does not take, end the command before it joins anyone."""
    install_plugin(tmp_path, "mb_seventh", GREEDY, {"tsev": "make"})
    done = _cli(tmp_path, "join", "--auto-bot", "tsevv", "--plain")
    assert done.returncode == 2
    assert "--auto-bot: there is no bot called 'tsevv'" in done.stderr, done.stderr
    assert "did you mean" in done.stderr.lower() or "tsev" in done.stderr, done.stderr
    done = _cli(tmp_path, "join", "--auto-bot", "tsev:depth=3", "--plain")
    assert done.returncode == 2
    assert "--auto-bot tsev:depth=3: bad options for bot 'tsev'" in done.stderr, done.stderr


SLOW = """
import time
from engine import make_bot


class Slow:
    def __init__(self, seed):
        self.inner = make_bot("heuristic", seed)

    def choose(self, view, legal):
        time.sleep(20)
        return self.inner.choose(view, legal)


def make(seed, **options):
    return Slow(seed)
"""


def test_leaving_the_full_screen_while_ones_own_bot_thinks_is_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--auto-bot thinks in a thread of the full screen (the keys answered meanwhile):
    q then y closed the screen, and the program then waited for that thread, up to the
    bot's whole time for the move (30 s at an untimed table), saying nothing (review,
    stop 50: 17 s). Leaving stops the bot's process, and the wait with it."""
    import asyncio
    import time

    from cli_helpers import run_headless, until

    from cli.app import TableApp
    from cli.driver import LocalDriver

    install_plugin(tmp_path, "mb_seventh_slow", SLOW, {"tslow": "make"})
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    d = LocalDriver(CLASSIC, Seating.solo(2), ["Ann", "Bo"], seed=3)
    asked: list[float] = []

    async def script(app: TableApp, inp: object) -> None:
        await asyncio.sleep(3)                  # its bot is thinking (for 20 s)
        asked.append(time.monotonic())
        inp.send_text("q")                      # type: ignore[attr-defined]
        await until(lambda: app.confirm_quit)
        inp.send_text("y")                      # type: ignore[attr-defined]

    run_headless(lambda inp, out: TableApp(d, auto=True, bot="tslow", input=inp,
                                           output=out, delay=0), script)
    took = time.monotonic() - asked[0]
    assert took < 5, took                        # was 17 s
