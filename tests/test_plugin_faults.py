"""Someone else's bot that breaks (raises, or answers a move that is not legal) is named as
a bot fault, never taken for a rule of the game: the engine raises ``BotFailed``; a
tournament forfeits that match and goes on; ``simulate`` stops naming the bot and the game;
the in-process console plays a built-in move for it and says so."""

from __future__ import annotations

import random
import sys
import textwrap
from pathlib import Path

import pytest

from cli.driver import LocalDriver
from cli.tournament import play_task, schedule, summarise
from engine import CLASSIC, BotFailed, Play, Seating, make_bot
from engine.simulate import play_hand

TWO = Seating.solo(2)

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


def make_illegal(seed, **options):
    return Illegal()


def make_crashy(seed, **options):
    return Crashy()
'''


@pytest.fixture
def faulty_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mb_faulty.py").write_text(textwrap.dedent(PLUGIN))
    dist = tmp_path / "mb_faulty-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mb-faulty\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[millebornes.bots]\nillegal = mb_faulty:make_illegal\ncrashy = mb_faulty:make_crashy\n"
        "hangs = mb_faulty:make_hangs\n")
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
    assert said and "a built-in bot moved for it" in said[0], d.events[-5:]


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
    assert by["hangs"]["forfeits"] == 2 and "no move within 0.2 s" in by["hangs"]["first_fault"]
    assert not isinstance(bot_limit.make_bounded_bot("expert", 1), bot_limit.Bounded)


def test_simulate_names_a_plugin_that_hangs(faulty_plugins: None,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from cli import bot_limit, simulate
    monkeypatch.setattr(bot_limit, "DECISION_LIMIT", 0.2)
    with pytest.raises(ValueError) as ei:
        simulate.simulate(CLASSIC, TWO, ["heuristic", "hangs"], 2, 1)
    assert "hangs" in str(ei.value) and "DecisionTimeout" in str(ei.value)


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
    assert "Bo's bot failed to move" in out and "KeyError" in out, out[-2000:]
