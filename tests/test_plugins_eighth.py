"""Plug-in bots written from docs/bots.md alone by outside authors (eighth review of the
plug-ins): a bot whose ``choose`` raises, in every command that runs it (the author was
told "raised KeyError: 5" and nothing of where in their code, nor at which decision: the
log, which "has the whole reason", said the same line), one stopped by its time limit in
a loop, one whose making fails in its own code, one that asks ``zone.has_safety`` of the
hazard it fears, one whose ``KeyError`` is on a card's kind, one that puts
``sys.stderr`` aside, one that disables ``logging``, the test helper called again after
an edit in one process, an author's own test of a factory that fails, and the draws a
bot is asked at the player's own seat."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from cli_helpers import millebornes_with_plugins

from engine import make_bot
from engine.testing import install_plugin

#: A bot that fails deep in its own code, at its third play: the line that raises is
#: the one marked.
DEEP = '''
class Deep:
    def __init__(self, seed):
        self.plays = 0

    def choose(self, view, legal):
        if view.phase == "play":
            self.plays += 1
            if self.plays == 3:
                return self.pick(view, legal)
        return legal[0]

    def pick(self, view, legal):
        best = {}
        return best[len(legal)]  # THE LINE THAT RAISES


def make(seed):
    return Deep(seed)
'''


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    install_plugin(tmp_path, "deepbot", DEEP, {"deep": "make"})
    return tmp_path


def _raising_line() -> int:
    return next(i for i, line in enumerate(DEEP.splitlines(), start=1)
                if "THE LINE THAT RAISES" in line)


@pytest.mark.parametrize("argv", [
    ("simulate", "--bots", "deep,heuristic", "--games", "2"),
    ("tournament", "--bots", "deep,heuristic", "--deals", "1", "--jobs", "1", "--quiet"),
    ("play", "--in-process", "--plain", "--auto", "--bots", "deep", "--seed", "3"),
], ids=["simulate", "tournament", "play-in-process"])
def test_a_bot_that_raises_is_told_where_in_its_code_and_at_which_decision(
        plugins: Path, argv: tuple[str, ...]) -> None:
    """The log names the bot, the decision (``view.phase``) and the file, line and
    function of its own code that raised, innermost last: the lines of the program that
    called the bot are left out."""
    done = millebornes_with_plugins(plugins, *argv)
    assert "KeyError" in done.stdout + done.stderr, done.stdout[-2000:] + done.stderr[-2000:]
    log = (plugins / "data" / "millebornes" / "millebornes.log").read_text(encoding="utf-8")
    where = [line for line in log.splitlines() if "in its code" in line]
    assert where, log[-3000:]
    line = where[0]
    # named with its seat (plugins pass 9): its first fault is at seat 0 in simulate and
    # the tournament's first match, at seat 1 at the table (the player's is 0)
    at = " at seat 1" if argv[0] == "play" else " at seat 0"
    assert f"bot deep{at} raised KeyError: " in line, line
    assert "view.phase 'play'" in line, line
    module = str(plugins / "deepbot.py")
    assert re.search(rf'File "{re.escape(module)}", line \d+, in choose; '
                     rf'File "{re.escape(module)}", line {_raising_line()}, in pick$', line), line
    assert "bot_limit" not in line and "bot_guard" not in line and "engine" not in line, line


#: A bot that reads ``zone.has_safety(kind)`` as the docs list it, with the kind of the
#: hazard it fears ("is that side safe from a Stop?").
SAFE_FROM = '''
from engine import Kind, Play, family, Family


class SafeFrom:
    def choose(self, view, legal):
        for a in legal:
            if isinstance(a, Play) and a.target is not None:
                if not view.zones[a.target].has_safety(Kind.STOP):
                    return a
        return legal[0]


def make(seed):
    return SafeFrom()
'''


def test_has_safety_takes_a_safetys_kind_and_says_so_when_given_a_hazards() -> None:
    """``Zone.has_safety(kind)``: the docs did not say which kind, and a hazard's (the
    one a bot fears) raised ``KeyError``, in a fault's words "raised KeyError" and no
    more. A safety's kind answers; any other kind is told what to write."""
    from engine import Kind, Zone
    from engine.cards import SAFETY_CARD
    zone = Zone.from_cards(safeties=[SAFETY_CARD[Kind.RIGHT_OF_WAY]])
    assert zone.has_safety(Kind.RIGHT_OF_WAY) and not zone.has_safety(Kind.DRIVING_ACE)
    with pytest.raises(ValueError) as ei:
        zone.has_safety(Kind.STOP)
    assert str(ei.value) == ("has_safety takes a safety's kind (Kind.RIGHT_OF_WAY, "
                             "Kind.EXTRA_TANK, Kind.PUNCTURE_PROOF, Kind.DRIVING_ACE), not "
                             "Kind.STOP: the safety against a hazard is "
                             "engine.cards.SAFETY_FOR[Kind.STOP]")
    with pytest.raises(ValueError, match="not 5:"):
        zone.has_safety(5)  # type: ignore[arg-type]


def test_a_bot_that_asks_has_safety_of_a_hazard_is_told_what_to_write(tmp_path: Path) -> None:
    install_plugin(tmp_path, "safefrom", SAFE_FROM, {"safefrom": "make"})
    done = millebornes_with_plugins(tmp_path, "simulate", "--bots", "safefrom,heuristic",
                                    "--games", "1")
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("bot safefrom at seat 0 failed to move in game 1 of 1: raised ValueError: "
            "has_safety takes a safety's kind") in done.stdout + done.stderr, done.stderr


def test_a_key_error_on_a_cards_kind_names_the_kind() -> None:
    """A bot that looks a kind up where it is not (``REMEDY_FOR[Kind.ROLL]``: a Roll is
    no hazard) was told "raised KeyError", its key left out as "another object" (the
    engine's own ``Kind``, whose words run no code of the bot's)."""
    from engine import CLASSIC, Kind, Seating, legal_actions, new_hand, view_of
    from engine.cards import REMEDY_FOR
    from engine.errors import BotFailed
    from engine.simulate import checked_choice

    def lookup(view: object, legal: object) -> object:
        return REMEDY_FOR[Kind.ROLL]

    state = new_hand(CLASSIC, Seating.solo(2), list(CLASSIC.deck(Seating.solo(2))), 0)
    with pytest.raises(BotFailed) as ei:
        checked_choice(lookup, view_of(state, 0), legal_actions(state, 0), 0)
    assert ei.value.reason == "raised KeyError: <Kind.ROLL: 10>"


#: A bot that quiets what its libraries write by putting ``sys.stderr`` aside (as a
#: noisy toolkit's users do), then fails at its fifth move.
MUTED = '''
import io
import sys


class Muted:
    def __init__(self, seed):
        self.moves = 0

    def choose(self, view, legal):
        sys.stderr = io.StringIO()
        self.moves += 1
        if self.moves == 5:
            raise RuntimeError("broke with stderr muted")
        return legal[0]


def make(seed):
    return Muted(seed)
'''


def test_a_bot_that_replaces_sys_stderr_does_not_hide_why_simulate_stopped(
        tmp_path: Path) -> None:
    """``sys.stderr = io.StringIO()`` in a bot: simulate's "stopped:" line was written
    into the bot's own object, and the run ended with the empty report, status 1 and not
    a word of why (closing descriptor 2 was seen to; the object was not)."""
    install_plugin(tmp_path, "muted", MUTED, {"muted": "make"})
    done = millebornes_with_plugins(tmp_path, "simulate", "--bots", "muted,heuristic",
                                    "--games", "2")
    assert done.returncode == 1, done.stdout + done.stderr
    assert ("stopped: bot muted at seat 0 failed to move in game 1 of 2: raised "
            "RuntimeError: broke with stderr muted") in done.stderr, done.stderr


#: A bot that quiets its libraries' logging (``logging.disable``), then fails.
HUSHED = '''
import logging


class Hushed:
    def choose(self, view, legal):
        logging.disable(logging.CRITICAL)
        return self.think(legal)

    def think(self, legal):
        raise RuntimeError("hushed and broke")


def make(seed):
    return Hushed()
'''


@pytest.mark.parametrize("argv", [
    ("simulate", "--bots", "hushed,heuristic", "--games", "1"),
    ("play", "--in-process", "--plain", "--auto", "--bots", "hushed", "--seed", "3"),
], ids=["simulate", "play-in-process"])
def test_a_bot_that_disables_logging_still_has_its_fault_in_the_log(
        tmp_path: Path, argv: tuple[str, ...]) -> None:
    """``logging.disable(logging.CRITICAL)`` in a bot (its libraries quieted) dropped
    every record of the process from then on, the program's own about the bot's fault
    too: the program's log is put back after each of its calls, as its handlers are."""
    install_plugin(tmp_path, "hushed", HUSHED, {"hushed": "make"})
    millebornes_with_plugins(tmp_path, *argv)
    log = (tmp_path / "data" / "millebornes" / "millebornes.log").read_text(encoding="utf-8")
    # named with its seat (plugins pass 9): its first fault is at seat 0 in simulate and
    # the tournament's first match, at seat 1 at the table (the player's is 0)
    at = " at seat 1" if argv[0] == "play" else " at seat 0"
    assert re.search(rf"bot hushed{at} raised RuntimeError: hushed and broke at view\.phase "
                     r"'\w+', in its code \(innermost last\): File .*, in think$", log,
                     re.M), log[-2000:]


#: A bot whose making fails deep in its own code (a model file it expects).
UNMADE = '''
class Unmade:
    def __init__(self, seed):
        self.weights = self.load()

    def load(self):
        return {}["weights"]  # THE LINE THAT RAISES

    def choose(self, view, legal):
        return legal[0]


def make(seed):
    return Unmade(seed)
'''


def test_a_bot_that_fails_to_be_made_is_told_where_in_its_code(tmp_path: Path) -> None:
    """The check of ``--bots`` said "failed to make its bot: KeyError: 'weights'" and
    nothing of where; it names the file, line and function, innermost last."""
    install_plugin(tmp_path, "unmade", UNMADE, {"unmade": "make"})
    done = millebornes_with_plugins(tmp_path, "simulate", "--bots", "unmade,heuristic",
                                    "--games", "1")
    assert done.returncode != 0
    module = str(tmp_path / "unmade.py")
    line = next(i for i, text in enumerate(UNMADE.splitlines(), start=1)
                if "THE LINE THAT RAISES" in text)
    said = " ".join(done.stderr.split())
    assert (f"failed to make its bot: KeyError: 'weights' (in its code, innermost last: "
            f'File "{module}", line 14, in make; File "{module}", line 4, in __init__; '
            f'File "{module}", line {line}, in load)') in said, said


#: A bot that writes down each decision it is asked (its seat and ``view.phase``).
PHASES = '''
import os


class Phases:
    def choose(self, view, legal):
        with open(os.environ["PHASES_FILE"], "a") as f:
            print(view.viewer, view.phase, file=f)
        return legal[0]


def make(seed):
    return Phases()
'''


def test_at_your_own_seat_a_bot_is_not_asked_a_draw_it_cannot_choose(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As the docs now say (they listed ``draw`` among the decisions a bot is asked, and
    the same bot, entered with ``--auto-bot`` and with ``--bots``, was asked at every draw
    at one seat and at none at the other): in classic rules, where the pile is the only
    place to draw from, the bot playing the player's own seat is never asked to draw."""
    install_plugin(tmp_path, "phases", PHASES, {"phases": "make"})
    record = tmp_path / "phases.txt"
    monkeypatch.setenv("PHASES_FILE", str(record))
    done = millebornes_with_plugins(tmp_path, "play", "--in-process", "--plain",
                                    "--auto-bot", "phases", "--bots", "phases", "--seed", "3")
    assert done.returncode == 0, done.stderr
    asked = [tuple(line.split()) for line in record.read_text().splitlines()]
    assert ("1", "draw") in asked and ("0", "play") in asked, asked
    assert ("0", "draw") not in asked, asked
    docs = (Path(__file__).resolve().parent.parent / "docs" / "bots.md").read_text()
    assert "at your own seat the bot is asked to draw only when it may choose" in docs


def test_the_test_helper_installs_an_edit_that_the_same_process_then_makes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/bots.md: ``install_plugin`` "called again after an edit, it writes the new
    source over the old" and ``make_bot("mybot", 1)`` finds it; but in the process that
    had made the bot once (an author's test session) the module stayed imported, and
    ``make_bot`` made the old bot, silently (the seventh pass's test put it aside by
    hand)."""
    source = '''
class Marked:
    mark = "one"

    def choose(self, view, legal):
        return legal[0]


def make(seed):
    return Marked()
'''
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "mb_eighth_edited", raising=False)
    install_plugin(tmp_path, "mb_eighth_edited", source, {"eighthedited": "make"})
    assert getattr(make_bot("eighthedited", 1), "mark", None) == "one"
    install_plugin(tmp_path, "mb_eighth_edited", source.replace('"one"', '"two"'),
                   {"eighthedited": "make"})
    assert getattr(make_bot("eighthedited", 1), "mark", None) == "two"
    # a module new in a folder already read is found at once
    install_plugin(tmp_path, "mb_eighth_added", source.replace('"one"', '"three"'),
                   {"eighthadded": "make"})
    assert getattr(make_bot("eighthadded", 1), "mark", None) == "three"
    sys.modules.pop("mb_eighth_added", None)


def test_a_bot_out_of_time_is_told_where_in_its_code_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """"did not move within 30 s" said neither the decision nor where the bot was stuck
    (a loop that never ends): the log says both, as for a bot that raised, the timer's
    own lines left out."""
    import logging

    from cli import bot_limit
    from engine import CLASSIC, BotFailed, Seating
    from engine.simulate import play_match
    source = '''
class Stuck:
    def __init__(self, seed):
        self.plays = 0

    def choose(self, view, legal):
        if view.phase == "play":
            self.plays += 1
            if self.plays == 2:
                self.spin()
        return legal[0]

    def spin(self):
        while True:
            pass  # THE LINE IT IS STUCK ON
'''
    source += "\n\ndef make(seed):\n    return Stuck(seed)\n"
    install_plugin(tmp_path, "mb_eighth_stuck", source, {"eighthstuck": "make"})
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "mb_eighth_stuck", raising=False)
    bot = bot_limit.make_bounded_bot("eighthstuck", 1, seconds=0.3)
    with caplog.at_level(logging.WARNING, logger="cli.bots"), pytest.raises(BotFailed) as ei:
        play_match(CLASSIC, Seating.solo(2), [bot, make_bot("heuristic", 2)], seed=3)
    assert "did not move within 0.3 s" in ei.value.reason
    module = str(tmp_path / "mb_eighth_stuck.py")
    said = [r.getMessage() for r in caplog.records if "in its code" in r.getMessage()]
    assert len(said) == 1, caplog.text
    assert re.fullmatch(
        rf"bot eighthstuck did not move within 0\.3 s at view\.phase 'play', in its code "
        rf'\(innermost last\): File "{re.escape(module)}", line \d+, in choose; '
        rf'File "{re.escape(module)}", line 1[45], in spin', said[0]), said[0]


def test_an_authors_own_test_of_a_factory_that_fails_shows_its_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``make_bot("mybot", 1)`` in an author's test (docs/bots.md: the test helper) raised
    ``PluginFailed`` "from None": pytest showed "failed to make its bot: KeyError:
    'weights'" and not one line of the factory's traceback. The factory's error is its
    cause now, and where it was raised is kept."""
    from engine import PluginFailed
    install_plugin(tmp_path, "mb_eighth_unmade", UNMADE, {"eighthunmade": "make"})
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "mb_eighth_unmade", raising=False)
    with pytest.raises(PluginFailed) as ei:
        make_bot("eighthunmade", 1)
    cause = ei.value.__cause__
    assert isinstance(cause, KeyError) and cause.args == ("weights",)
    assert ei.value.where.endswith('mb_eighth_unmade.py", line 7, in load'), ei.value.where
