"""An eighth first-time player: what they typed is what the screen quotes back, and it
says what to type instead."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("lang, players, bots, said, example", [
    ("en", "4", "expert", "--players 4 and --bots expert disagree",
     "that is you and 3 bots, one level or spec each (e.g. --bots expert,expert,expert)"),
    ("en", "4", "2", "--players 4 and --bots 2 disagree",
     "that is you and 3 bots, one level or spec each (e.g. --bots easy,easy,easy)"),
    ("fr", "4", "expert", "--players 4 et --bots expert ne concordent pas",
     "--bots expert,expert,expert"),
    ("en", "2", "hard,easy", "--players 2 and --bots hard,easy disagree",
     "that is you and 1 bot, one level or spec (e.g. --bots hard)"),
])
def test_players_and_bots_quote_what_was_typed(lang: str, players: str, bots: str, said: str, example: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`play --players 4 --teams 2x2 --bots expert` said "--players 4 and --bots 1
    disagree: --bots counts the seats other than yours": the player never typed
    "--bots 1", and was not told what to type (the --teams sentence says it)."""
    assert main(["play", "--plain", "--lang", lang, "--players", players,
                 *(["--teams", "2x2"] if players == "4" else []), "--bots", bots]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert said in err, err
    assert "--bots 1 " not in err, err
    assert example in err, err


def test_plain_team_hand_counts_name_you_in_the_language(tmp_path: Path) -> None:
    """French line mode at 2x2 said "Vous & Cy, à jouer : 7 cartes (You), 6 cartes (Cy)":
    the English "You" in a French sentence, beside the "Vous" of the same line."""
    env = dict(os.environ, HOME=str(tmp_path), LANGUAGE="en", LC_ALL="C.UTF-8")
    env.pop("NO_COLOR", None)
    proc = subprocess.run(
        [sys.executable, "-m", "cli", "play", "--plain", "--lang", "fr", "--teams", "2x2",
         "--in-process", "--seed", "3", "--data-dir", str(tmp_path / "d")],
        cwd=ROOT, input="look\nquit\ny\n", capture_output=True, text=True, timeout=60, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    text = " ".join(proc.stdout.split())
    assert "Vous & Cy" in text, text
    assert "cartes (Vous)" in text or "carte (Vous)" in text, text
    assert "(You)" not in text, text


def test_a_key_the_replay_does_not_know_says_so() -> None:
    """In `millebornes replay` a wrong key (x, Caps Lock's Q) did nothing and said
    nothing; the board says "The key x does nothing here: press h for the keys"."""
    from cli_helpers import run_headless, until
    from prompt_toolkit.input.base import PipeInput
    from test_cli_replay import bot_game

    from cli.replay import ReplayApp
    from cli.replay_view import ReplayModel

    m = ReplayModel(bot_game(hands=1, seed=9), ["Ana", "Bo", "Cy"])
    said: list[str] = []

    def bar(app: ReplayApp) -> str:
        return "".join(t for _s, t in app._status_fragments())

    async def script(app: ReplayApp, inp: PipeInput) -> None:
        inp.send_text("x")
        await until(lambda: "does nothing" in bar(app), 3)
        said.append(bar(app))
        inp.send_text("\x1b[C")
        await until(lambda: app.index == 1, 3)
        said.append(bar(app))
        inp.send_text("Q")
        await until(lambda: "Caps Lock" in bar(app), 3)
        said.append(bar(app))
        inp.send_text("q")

    assert run_headless(lambda inp, out: ReplayApp(m, input=inp, output=out), script) == 0
    assert "The key x does nothing here: press h for the keys." in said[0], said
    assert "does nothing" not in said[1] and "step 2/" in said[1], said
    assert len(said[2].rstrip()) <= 80, said


def test_the_replays_wrong_key_sentence_fits_80_columns_in_every_language() -> None:
    """French's Caps Lock question is 86 columns: on the replay's status line it is
    wrapped onto a second line, not cut."""
    from cli_helpers import SizedOutput as Sized
    from test_cli_replay import bot_game

    from cli import i18n
    from cli.replay import ReplayApp
    from cli.replay_view import ReplayModel
    from cli.words import unknown_key_line

    m = ReplayModel(bot_game(hands=1, seed=9), ["Ana", "Bo", "Cy"])
    for lang in ("en", "fr", "sv", "vi", "af", "ug"):
        with i18n.using(lang):
            app = ReplayApp(m, output=Sized(80, 24))
            for key in ("x", "Q", "escape"):
                app.notice = unknown_key_line(key, "qhnp")
                text = "".join(t for _s, t in app._status_fragments())
                lines = text.split("\n")
                assert all(i18n.cells(line) <= 80 for line in lines), (lang, lines)
                words = " ".join(" ".join(lines).split())
                assert words == i18n.display(app.notice) or lang == "ug", (lang, words)


def test_a_bare_resume_comes_back_to_the_game_in_progress(tmp_path: Path) -> None:
    """Left a game with `q`, then watched one to its end (`play --auto`): a bare
    `millebornes resume` said "game 72ebe087: the match is over; millebornes replay …
    shows it", the finished one, and never came back to the game in progress."""
    from test_cli_games import cli, quit_at_first_move

    data = str(tmp_path / "d")
    r = quit_at_first_move("play", "--plain", "--seed", "4", "--data-dir", data)
    assert r.returncode == 0, r.stdout + r.stderr
    left = " ".join(r.stdout.split()).split("millebornes resume ", 1)[1].split()[0]
    r = cli("play", "--plain", "--auto", "--rules", "modern", "--data-dir", data)
    assert r.returncode == 0 and "Final scores:" in r.stdout, r.stdout + r.stderr
    r = quit_at_first_move("resume", "--data-dir", data, "--plain")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "the match is over" not in r.stdout, r.stdout
    assert f"Game {left} resumed" in r.stdout, r.stdout


def test_play_n_on_with_no_name_says_who_or_that_no_one_is_needed() -> None:
    """`:play 1 on` with a 25 as card 1 said "Play 1 on whom?" (a 25 goes on no one),
    and with a hazard it named no one to choose from."""
    from test_cli_commands import HAND, make, pos, rolling

    from cli.commands import parse
    from engine import Kind

    ctx = rolling(make(HAND))
    d25 = pos(ctx, Kind.D25)
    out = parse(f"play {d25} on", ctx)
    assert out.kind == "error"
    assert "whom" not in out.text, out.text
    assert f"25 is not a hazard: it goes on your own side, type play {d25}" in out.text
    stop = pos(ctx, Kind.STOP)
    out = parse(f"play {stop} on", ctx)
    assert out.kind == "error"
    assert f"play {stop} on whom? e.g. play {stop} on Bo (opponents: Bo, Cy)" in out.text, \
        out.text


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_line_mode_says_when_nothing_can_be_played(lang: str) -> None:
    """Newcomer pass 8, left there: the full screen says "Nothing to play: discard a
    card", but the line mode asked "play or discard a card" when no card could be played,
    and a newcomer tried each card in turn. Its prompt says it too, after the usual
    question; on a turn with a card to play it asks as before."""
    import random

    from cli import i18n, render
    from engine import CLASSIC, Play, Seating, apply_action, legal_actions, new_hand
    from engine.state import PLAY

    two = Seating.solo(2)
    order = list(CLASSIC.deck(two))
    random.Random(5).shuffle(order)
    state, rng = new_hand(CLASSIC, two, order, 0), random.Random(5)
    seen = {True: "", False: ""}
    while state.phase != "over" and not all(seen.values()):
        actor = state.actors()[0]
        legal = legal_actions(state, actor)
        if state.phase == PLAY and actor == 0:
            with i18n.using(lang):
                lines = render.plain(render.screen_lines(state, ["You", "Bo"], 0, legal))
            # the prompt's lines (three where it says why no distance can go down: pass 12)
            seen[any(isinstance(a, Play) for a in legal)] = " ".join(lines[-3:])
        state = apply_action(state, rng.choice(legal))
    expect = {"en": "Your turn: play or discard a card (play N, discard N). No card can "
                    "be played now: discard one.",
              "fr": "À vous : jouez ou défaussez une carte (play N, discard N). Aucune "
                    "carte ne peut être jouée maintenant : défaussez-en une."}
    assert expect[lang] in seen[False], seen[False]
    assert expect[lang] not in seen[True] and seen[True], seen[True]
