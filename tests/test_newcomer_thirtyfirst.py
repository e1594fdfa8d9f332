"""The thirty-first first-time-player pass: what the thirtieth left, and what a new player
met after it.

1. "Ben left; the game is saved. Wait for them (millebornes resume), or press b …": how
   long one may wait was said nowhere (a newcomer waited for a clock that never came):
   it says there is no time limit, and that Ben comes back with millebornes resume.
2. The helps' examples and notes said a bare "millebornes play" where the program is
   .venv/bin/millebornes, not on the PATH (every other command it prints names it as
   typed), and so did "(`millebornes play --help` shows the usage)" and the other
   usage errors' commands.
3. `millebornes play --name you`: "you (you)" on the board, in the help and the line mode.
4. The welcome line said "1-7 or arrows pick a card" beside a hand of six (before one's
   own draw): "7" then answered "there is no card 7". It names the cards held.
"""

from __future__ import annotations

import shlex

from cli_helpers import SizedOutput
from prompt_toolkit.input import create_pipe_input

from cli import render
from cli.app import TableApp
from cli.driver import LocalDriver
from engine import Seating, preset
from engine.actions import Discard

# ----- 2. the helps name the program as typed -----


def test_the_helps_and_usage_errors_name_the_program_as_typed() -> None:
    from test_newcomer_twentyninth import _run, _script

    script = _script()
    typed = shlex.quote(str(script))
    for argv in (["--help"], ["play", "--help"], ["join", "--help"], ["help", "host"]):
        r = _run(script, *argv)
        assert r.returncode == 0, r.stderr
        examples = r.stdout[r.stdout.index("examples:"):]
        commands = [line.strip() for line in examples.splitlines()
                    if line.startswith("  ") and not line.startswith("   ")]
        assert commands and all(c.startswith(f"{typed} ") for c in commands), (argv, commands)
        flat = " ".join(r.stdout.split())
        # the notes, as the examples (a friend's own program is theirs: "friends sit at
        # it with millebornes join" stays)
        assert "and millebornes resume" not in flat and "name millebornes lobby" not in flat
    flat = " ".join(_run(script, "play", "--help").stdout.split())
    assert f"the game is saved, and {typed} resume brings it back." in flat, flat
    for verb in ("resume", "verify", "replay"):
        flat = " ".join(_run(script, verb, "--help").stdout.split())
        assert f"`{typed} games`" in flat, (verb, flat)
    for argv, said in ((["play", "--bost", "2"], f"(`{typed} play --help` shows the usage)"),
                       (["--players", "3"], f"as in: {typed} play --players 3"),
                       (["--rules", "modern", "plya"], f"(`{typed} --help` lists them)"),
                       (["--seed", "3", "rules"], f"(`{typed} rules --help` lists its")):
        r = _run(script, *argv)
        flat = " ".join(r.stderr.split())
        assert r.returncode == 2 and said in flat, (argv, flat)


# ----- 3. a player named "you" is not "you (you)" -----


def test_a_player_named_you_is_not_you_you() -> None:
    from cli.words import peer_label

    for name in ("you", "YOU"):
        with create_pipe_input() as inp:
            d = LocalDriver(preset("classic"), Seating.solo(2), [name, "Bo"], seed=3)
            app = TableApp(d, input=inp, output=SizedOutput(80, 24), delay=0)
            board = " ".join(" ".join(t for _s, t in line) for line in app._table_lines())
            assert name in board and f"{name} (you)" not in board, board
            said = " ".join(render.plain(render.zone_lines(d.view(), 0, d.names, 0,
                                                           verbose=True))).strip()
            assert said.startswith(f"{name}, to move:") or said.startswith(f"{name}:"), said
            assert peer_label(name, "you", "ready") == name
    # another name is marked still
    assert peer_label("Ann", "you", "ready") == "Ann (you)"
    with create_pipe_input() as inp:
        d = LocalDriver(preset("classic"), Seating.solo(2), ["Ann", "Bo"], seed=3)
        app = TableApp(d, input=inp, output=SizedOutput(80, 24), delay=0)
        board = " ".join(" ".join(t for _s, t in line) for line in app._table_lines())
        assert "Ann (you)" in board, board


# ----- 4. the welcome names the cards held -----


def _intro(app: TableApp) -> str:
    return " ".join(" ".join(t for _s, t in line) for line in app._log_lines()[:2])


def test_the_welcome_names_the_cards_held() -> None:
    with create_pipe_input() as inp:
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
        d.run_others()
        assert d.my_move()
        app = TableApp(d, input=inp, output=SizedOutput(80, 24), delay=0)
        assert len(app.cards()) == 7
        assert "Welcome! 1-7 or arrows pick a card" in _intro(app), _intro(app)
        d.submit(next(a for a in d.legal() if isinstance(a, Discard)))
        assert not d.my_move() and len(app.cards()) == 6
        assert "Welcome! 1-6 or arrows pick a card" in _intro(app), _intro(app)
