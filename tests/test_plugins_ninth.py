"""Plug-in bots written from docs/bots.md alone by outside authors (ninth review of the
plug-ins): two seats of one plug-in that fails, whose log lines at a networked table (and
in every other command) did not say which seat failed; one bot entered in a tournament
under two spellings of its options (``heuristic,heuristic:match=1``, the default written
out, was two entrants, while a plug-in's ``x=1`` and ``x=1.0`` were refused as one bot);
an old-style bot whose ``choose(self, state)`` takes one argument, which failed at its
first move instead of when it was loaded; and first tries and careless bots: a bot named
by its file, more bots than seats in ``simulate``, a bot that puts its own object (or
None) in ``sys.stdin``, one that sets its logging up with ``dictConfig`` (every logger
disabled), a quick built-in spelled in capitals, and answers that are a card, a card's
kind or a list of moves."""

from __future__ import annotations

import logging
import random
import sys
from pathlib import Path

import pytest
from cli_helpers import millebornes_with_plugins

from engine import CLASSIC, Seating, apply_action, legal_actions, new_hand, view_of
from engine.testing import install_plugin

CRASHY = '''
class Crashy:
    """Fails at its third play."""

    def __init__(self, seed):
        self.plays = 0

    def choose(self, view, legal):
        if view.phase == "play":
            self.plays += 1
            if self.plays == 3:
                raise KeyError("boom")
        return legal[0]


def make(seed):
    return Crashy(seed)
'''


@pytest.fixture
def plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    install_plugin(tmp_path, "crashbot", CRASHY, {"crashy": "make"})
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _a_play() -> tuple[object, list[object]]:
    """A seat's view and legal moves at a play (classic, two players)."""
    order = list(CLASSIC.deck(Seating.solo(2)))
    random.Random(4).shuffle(order)
    state = new_hand(CLASSIC, Seating.solo(2), order, 0)
    state = apply_action(state, legal_actions(state, 0)[0])      # drawn: now a play
    return view_of(state, 0), list(legal_actions(state, 0))


def _fault_lines(log: str) -> list[str]:
    return [line.split(" WARNING ", 1)[1] for line in log.splitlines()
            if "KeyError: 'boom'" in line]


def test_two_seats_of_one_failing_plugin_are_told_apart_in_the_log(plugins: Path) -> None:
    """``play --in-process --bots crashy,crashy``: both fail; the log said "bot crashy
    raised KeyError: 'boom'" twice, and which seat each line was of was nowhere (the
    screen says "Bo's bot", "Cy's bot"; the log, which has the whole reason, did not)."""
    done = millebornes_with_plugins(plugins, "play", "--in-process", "--plain", "--auto",
                                    "--bots", "crashy,crashy", "--seed", "3")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    log = (plugins / "data" / "millebornes" / "millebornes.log").read_text(encoding="utf-8")
    lines = _fault_lines(log)
    for seat in (1, 2):
        own = [line for line in lines if f"crashy at seat {seat}" in line]
        assert any(line.startswith(f"(bot crashy at seat {seat}, in its own process) bot "
                                   f"crashy at seat {seat} raised KeyError: 'boom' at "
                                   "view.phase") for line in own), lines
        assert f"bot crashy at seat {seat} raised KeyError: 'boom'; a built-in bot plays " \
               "for it from now on" in own, lines
    assert len(lines) == 4, lines


def test_a_networked_bots_fault_in_the_log_names_its_seat(
        plugins: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A bot seat of a networked table (``cli.seats.bot_controller``, as a bot's peer and
    a resumed bot make it): its fault's line in the log names its seat, as simulate's
    "bot crashy at seat 1 failed to move" does."""
    from cli.seats import bot_controller

    view, legal = _a_play()
    bot = bot_controller("crashy", 1, seat=2)
    try:
        with caplog.at_level(logging.WARNING):
            for _ in range(3):
                assert bot.choose(view, legal) in legal
    finally:
        bot.close()      # type: ignore[attr-defined]
    said = [r.getMessage() for r in caplog.records if "boom" in r.getMessage()]
    assert said == ["bot crashy at seat 2 raised KeyError: 'boom'; a quick bot moves for it "
                    "from now on"], caplog.text


@pytest.mark.slow
def test_two_seats_of_one_failing_plugin_at_a_networked_table(plugins: Path) -> None:
    """The same at a networked ``play`` (each bot in its peer's process): the log had
    "bot crashy raised KeyError: 'boom'; a quick bot moves for it from now on" twice."""
    done = millebornes_with_plugins(plugins, "play", "--plain", "--auto",
                                    "--bots", "crashy,crashy", "--seed", "3")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    log = (plugins / "data" / "millebornes" / "millebornes.log").read_text(encoding="utf-8")
    lines = _fault_lines(log)
    for seat in (1, 2):
        assert f"bot crashy at seat {seat} raised KeyError: 'boom'; a quick bot moves for " \
               "it from now on" in lines, lines
        assert any(line.startswith(f"(bot crashy at seat {seat}, in its own process)")
                   for line in lines), lines
    said = [line for line in done.stdout.replace("\n  ", " ").splitlines()
            if "failed to move" in line]
    # one line each, in the order they moved (who plays first is the table's fresh joint
    # random draw: Cy's came first in a CI run)
    assert sorted(line.split(" (crashy) failed to move")[0] for line in said) \
        == ["* Bo's bot", "* Cy's bot"], said


#: Bots whose ``choose`` takes other parameters than ``(view, legal)``, and ones that
#: are called that way all the same.
CHOOSERS = '''
class Old:
    """An old-style bot: it was handed the whole state."""

    def choose(self, state):
        return None


class Deeper:
    def choose(self, view, legal, depth):
        return legal[0]


class Named:
    def choose(self, *, view, legal):
        return legal[0]


class Fine:
    def choose(self, view, legal, depth=2):
        return legal[0]


class Loose:
    def choose(self, *args):
        return args[1][0]


class Static:
    @staticmethod
    def choose(view, legal):
        return legal[0]


def make(seed, kind="Old"):
    return globals()[kind]()
'''


@pytest.mark.parametrize("kind, found", [
    ("Old", "(state)"), ("Deeper", "(view, legal, depth)"), ("Named", "(*, view, legal)"),
    ("Fine", None), ("Loose", None), ("Static", None)])
def test_a_bot_whose_choose_takes_other_parameters_is_refused_as_it_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, found: str | None) -> None:
    """An old-style bot, ``def choose(self, state)``, was made, seated, and failed at its
    first move ("raised TypeError: Old.choose() takes 2 positional arguments but 3 were
    given"), a match under way; it is refused when it is made, naming the bot, the
    parameters found and the call expected. One that can be called as ``choose(view,
    legal)`` (a default, ``*args``, a static method) is made."""
    from engine import PluginFailed, make_bot

    install_plugin(tmp_path, "choosers", CHOOSERS, {"chooser": "make"})
    monkeypatch.syspath_prepend(str(tmp_path))
    if found is None:
        bot = make_bot(f"chooser:kind={kind}", 1)
        view, legal = _a_play()
        assert bot.choose(view, legal) is legal[0]   # type: ignore[arg-type]
        return
    with pytest.raises(PluginFailed) as caught:
        make_bot(f"chooser:kind={kind}", 1)
    assert str(caught.value) == (
        f"bot plug-in 'chooser' made a bot of type {kind} whose method is choose{found}; a "
        "bot's is called as choose(view, legal): write it as def choose(self, view, legal)")


@pytest.mark.parametrize("argv", [
    ("simulate", "--bots", "old,heuristic", "--games", "2"),
    pytest.param(("tournament", "--bots", "old,heuristic", "--deals", "1", "--jobs", "1"),
                 marks=pytest.mark.slow),
    pytest.param(("play", "--plain", "--auto", "--bots", "old", "--seed", "3"),
                 marks=pytest.mark.slow),
], ids=["simulate", "tournament", "play"])
def test_an_old_style_bot_is_refused_before_any_match(tmp_path: Path,
                                                      argv: tuple[str, ...]) -> None:
    """``simulate`` played on until the old-style bot's first move ("stopped: bot old at
    seat 0 failed to move in game 1 of 2: raised TypeError: ..."), status 1; every command
    now refuses it with its arguments, before a match starts (status 2)."""
    install_plugin(tmp_path, "oldbot", CHOOSERS, {"old": "make"})
    done = millebornes_with_plugins(tmp_path, *argv)
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    assert "--bots old: bot plug-in 'old' made a bot of type Old whose method is " \
        "choose(state); a bot's is called as choose(view, legal): write it as def " \
        "choose(self, view, legal)" in done.stderr.replace("\n", " "), done.stderr
    assert "match" not in done.stdout and "failed to move" not in done.stderr, done.stdout


#: Two factories: one that declares its option's default, one that hands its options on
#: (its defaults are its bot's, unseen by the program).
OPTBOTS = '''
class Echo:
    def __init__(self, seed, **options):
        self.options = options

    def choose(self, view, legal):
        return legal[0]


def declares(seed, x=1, word="yes", **options):
    return Echo(seed, x=x, word=word, **options)


def passes(seed, **options):
    return Echo(seed, **options)
'''


#: Two entrants of a tournament, and whether they are one bot.
ENTRANTS = [
    ("heuristic,heuristic:match=1", True),       # its default, written out
    ("heuristic,heuristic:match=1.0", True),
    ("normal,heuristic:Match=1", True),
    ("search,search:margin=2:playouts=400", True),
    ("expert,search:playouts=800", True),
    ("heuristic,heuristic:match=0", False),
    ("search,search:playouts=401", False),
    ("optbot:x=1,optbot:x=1.0", True),           # one number, whatever its type
    ("optbot,optbot:x=1", True),                 # the factory's own default
    ("optbot,optbot:word=yes:x=01", True),
    ("optbot,optbot:x=2", False),
    ("optbot:word=yes,optbot:word=Yes", False),  # two words
    ("optbot,optbot:y=1", False),
    ("handson,handson:x=1", False),              # defaults not declared by the factory
    ("handson:x=1,handson:x=1.0", True),
]


def test_a_tournaments_entrants_are_told_apart_by_the_options_their_bots_get(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``heuristic,heuristic:match=1`` (its default written out) was two entrants, each
    rated, while a plug-in's ``x=1`` and ``x=1.0`` were refused as one bot. A bot's
    identity is its name and the options its factory is called with, the defaults the
    factory declares counted (a plug-in's read where its check makes it, never here),
    values compared as Python compares them (1 and 1.0 are one number): both pairs are
    one bot."""
    from cli.args import check_bot_entrant
    from cli.bot_limit import declared
    from engine.bots import bot_identity

    install_plugin(tmp_path, "optbots", OPTBOTS, {"optbot": "declares", "handson": "passes"})
    monkeypatch.syspath_prepend(str(tmp_path))
    assert declared("optbot") is None               # not checked yet: nothing known
    for spec in ("optbot", "handson"):
        check_bot_entrant(spec)           # a plug-in is made in a child, never here
    assert "optbots" not in sys.modules
    assert declared("optbot:x=2") == {"x": 1, "word": "yes"} and declared("handson") == {}
    wrong = []
    for bots, same in ENTRANTS:
        first, second = bots.split(",")
        if (bot_identity(first, declared(first))
                == bot_identity(second, declared(second))) is not same:
            wrong.append(bots)
    assert not wrong, wrong


def test_a_tournament_refuses_a_bot_with_its_default_written_out(tmp_path: Path) -> None:
    """The command itself: refused before any match, both spellings named."""
    install_plugin(tmp_path, "optbots", OPTBOTS, {"optbot": "declares"})
    for bots in ("heuristic,heuristic:match=1", "optbot,optbot:x=1.0"):
        done = millebornes_with_plugins(tmp_path, "tournament", "--bots", bots, "--deals",
                                        "1", "--jobs", "1")
        first, second = bots.split(",")
        assert done.returncode == 2, done.stdout[-1500:] + done.stderr[-1500:]
        assert f"--bots names one bot twice ({first} and {second} are the same bot); give " \
            "each entrant once" in done.stderr, done.stderr


#: A bot that puts its own object in ``sys.stdin`` (a library's stand-in, or None).
STDIN = '''
import sys
from engine import make_bot


class Broken:
    def close(self):
        raise RuntimeError("NOT MINE TO CLOSE")


class Feeder:
    def __init__(self, seed, what="none"):
        self.heuristic = make_bot("heuristic", seed)
        self.what = what

    def choose(self, view, legal):
        sys.stdin = None if self.what == "none" else Broken()
        return self.heuristic.choose(view, legal)


def make(seed, **options):
    return Feeder(seed, **options)
'''


@pytest.mark.parametrize("what", ["none", pytest.param("broken", marks=pytest.mark.slow)])
def test_a_bot_that_replaces_sys_stdin_does_not_end_simulate_in_an_error(
        tmp_path: Path, what: str) -> None:
    """A bot's ``sys.stdin = None`` ended ``simulate`` after its report with "unexpected
    error: AttributeError: 'NoneType' object has no attribute 'close'" (status 1): the
    program closed whatever ``sys.stdin`` held at the end, the bot's object (and ran
    its ``close``), instead of its own null device."""
    install_plugin(tmp_path, "feeder", STDIN, {"feeder": "make"})
    done = millebornes_with_plugins(tmp_path, "simulate", "--bots",
                                    f"feeder:what={what},heuristic", "--games", "2")
    assert done.returncode == 0, done.stdout[-1500:] + done.stderr[-1500:]
    assert "2 matches" in done.stdout and "error" not in done.stderr, done.stderr
    assert "NOT MINE" not in done.stdout + done.stderr


@pytest.mark.parametrize("spec, guess", [
    ("./crashy.py", "crashy"), ("bots/crashy", "crashy"), ("their_first_bot.py", ""),
    ("/home/me/src/heuristic.py", "heuristic")])
def test_a_bot_named_by_its_file_is_told_how_bots_are_named(
        plugins: Path, spec: str, guess: str) -> None:
    """An author's first try, ``--bots ./mybot.py``, was told "there is no bot called
    './mybot.py'; choose from random, heuristic-v1, ...", nothing of how a bot gets a
    name; it is told that a bot is named by its package's entry point, and the bot its
    file's name is, if there is one."""
    import argparse

    from cli.args import check_bot_spec

    with pytest.raises(argparse.ArgumentTypeError) as caught:
        check_bot_spec(spec, "--bots")
    assert str(caught.value) == (
        f"--bots: there is no bot called {spec!r}: a bot is not named by its file but by "
        "the name its package declares in the entry-point group millebornes.bots, once it "
        "is installed (pip install; docs/bots.md, Writing a bot)"
        + (f"; did you mean {guess!r}?" if guess else ""))


def test_simulate_refuses_more_bots_than_seats(plugins: Path) -> None:
    """``simulate --bots crashy,heuristic,random`` (a comparison of three, as a
    tournament's) played two players: the list is cycled over the seats and was cut
    without a word, ``random`` neither seated nor even checked (``nosuchbot`` there
    passed too)."""
    import argparse

    from cli.simulate import table_from_args

    def args(bots: str, players: int = 2) -> argparse.Namespace:
        return argparse.Namespace(games=1, bots=bots, players=players, teams=None,
                                  rules="classic", option=[])

    for bots, left in (("crashy,heuristic,random", "random"),
                       ("heuristic,heuristic,nosuchbot,random", "nosuchbot, random")):
        with pytest.raises(ValueError) as caught:
            table_from_args(args(bots))
        assert str(caught.value) == (
            f"--bots names {len(bots.split(','))} bots for 2 seats: {left} would never "
            "play; seat them with --players, or name fewer bots")
    assert table_from_args(args("heuristic,random,heuristic", 3))[2] == [
        "heuristic", "random", "heuristic"]
    assert table_from_args(args("heuristic,random", 3))[2] == [
        "heuristic", "random", "heuristic"]          # fewer: cycled, as before


#: A bot that sets up its logging as many programs do, and fails at its third play.
CONFIGURED = '''
import logging
import logging.config


class Configured:
    def __init__(self, seed, how="dict"):
        if how == "dict":        # disables every logger that exists, by default
            logging.config.dictConfig({"version": 1})
        else:                    # its libraries' noise quieted, every logger by name
            for name in list(logging.root.manager.loggerDict):
                logging.getLogger(name).setLevel(logging.CRITICAL)
        self.plays = 0

    def choose(self, view, legal):
        if view.phase == "play":
            self.plays += 1
            if self.plays == 3:
                raise KeyError("configured")
        return legal[0]


def make(seed, **options):
    return Configured(seed, **options)
'''


@pytest.mark.parametrize("argv", [
    ("simulate", "--bots", "configured,heuristic", "--games", "1"),
    ("simulate", "--bots", "configured:how=names,heuristic", "--games", "1"),
    pytest.param(("play", "--in-process", "--plain", "--auto", "--bots", "configured",
                  "--seed", "3"), marks=pytest.mark.slow),
], ids=["simulate-dictconfig", "simulate-levels", "play-in-process"])
def test_a_bot_that_configures_logging_still_has_its_fault_in_the_log(
        tmp_path: Path, argv: tuple[str, ...]) -> None:
    """``logging.config.dictConfig({"version": 1})`` in a bot's factory disables every
    logger that exists (its default), the program's own among them, and a bot that
    quiets every logger by name does the same to them: its fault's "where in its code"
    line was never written, the log holding not a word of it."""
    install_plugin(tmp_path, "configured", CONFIGURED, {"configured": "make"})
    millebornes_with_plugins(tmp_path, *argv)
    log = (tmp_path / "data" / "millebornes" / "millebornes.log").read_text(encoding="utf-8")
    assert [line for line in log.splitlines()
            if "raised KeyError: 'configured' at view.phase 'play', in its code" in line], \
        log[-2000:]


@pytest.mark.parametrize("spec", ["Normal", "HEURISTIC", "Heuristic:match=0", " random"])
def test_a_quick_bot_spelled_in_capitals_plays_in_the_tables_own_process(spec: str) -> None:
    """Names are read without case (docs/bots.md), and a quick built-in bot thinks in
    the table's own process; ``--bots Normal`` (or ``HEURISTIC``) was started in a child
    process of its own, as a plug-in is, at a networked table and with ``play
    --in-process``: 0.4 s to start, and its moves written to disk before they were sent
    (a plug-in's ``pure`` is not taken), where ``normal`` was not."""
    from cli.driver import LocalDriver
    from cli.seats import bot_controller
    from engine.bot_process import BotProcess

    bot = bot_controller(spec, 1)
    try:
        assert not isinstance(bot, BotProcess), spec
    finally:
        if isinstance(bot, BotProcess):
            bot.close()
    driver = LocalDriver(CLASSIC, Seating.solo(2), ["You", "Bo"], bots=[None, spec])
    try:
        assert not isinstance(driver.bots[1], BotProcess), spec
    finally:
        driver.close()


def test_a_bot_that_answers_a_card_is_told_to_return_the_move_that_plays_it() -> None:
    """A stranger's first bot picks a card of its hand and returns it: "chose 9 (view.phase
    was 'play': return one of the 7 moves of legal)" did not say that 9 was taken for
    nothing but a number, nor which moves hold that card; a small card that is also an
    index of legal was said an index alone."""
    from engine import BotFailed
    from engine.simulate import checked_choice

    view, legal = _a_play()
    hand = view.hand(0)   # type: ignore[attr-defined]
    said = {}
    for card in hand:
        with pytest.raises(BotFailed) as caught:
            checked_choice(lambda v, moves, c=card: c, view, legal, 0)   # type: ignore[misc]
        said[card] = caught.value.reason
    for card in hand:
        moves = ", ".join(repr(a) for a in legal if getattr(a, "card", None) == card)
        card_words = f"a card (return one of legal's moves with card {card}: [{moves}])"
        if card < len(legal):
            assert said[card] == (f"chose {card}, an index (return the move itself, "
                                  f"legal[{card}]) or {card_words}, which is not a legal "
                                  "move now"), said[card]
        else:
            assert said[card] == f"chose {card}, {card_words}, which is not a legal move " \
                "now", said[card]
    assert any(card < len(legal) for card in hand) and any(card >= len(legal) for card in hand)


def test_a_bot_that_answers_a_kind_or_a_list_of_moves_is_told_what_it_answered() -> None:
    """Two more first tries: the kind of the card to play (``kind(card)``, "chose an object
    of type Kind" said no more) and ``legal`` itself or the moves a bot liked best ("chose
    a list holding other objects")."""
    from engine import BotFailed, Kind, kind
    from engine.simulate import checked_choice

    view, legal = _a_play()

    def said(answer: object) -> str:
        with pytest.raises(BotFailed) as caught:
            checked_choice(lambda v, moves: answer, view, legal, 0)
        return caught.value.reason

    card = view.hand(0)[3]   # type: ignore[attr-defined]
    moves = ", ".join(repr(a) for a in legal if getattr(a, "card", None) is not None
                      and kind(a.card) is kind(card))   # type: ignore[attr-defined]
    assert said(kind(card)) == (
        f"chose an object of type Kind (a card's kind, Kind.{kind(card).name}: return one "
        f"of legal's moves with a card of that kind: [{moves}]), which is not a legal move "
        "now")
    absent = next(k for k in Kind if all(kind(c) is not k for c in view.hand(0)))  # type: ignore[attr-defined]
    assert said(absent) == (f"chose an object of type Kind (a card's kind, Kind.{absent.name}"
                            ", and no move of legal holds one), which is not a legal move now")
    assert said(list(legal)).endswith(f"(a list of {len(legal)} moves of legal: return one of "
                                      "them), which is not a legal move now")
    assert said(tuple(legal[:2])).endswith("(a tuple of 2 moves of legal: return one of "
                                           "them), which is not a legal move now")
