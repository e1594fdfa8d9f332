"""The thirty-second first-time-player pass: what the thirty-first left, and what a new
player met after it.

1. `verify` (and `replay`) of a game's folder, as "The game is saved in …/7a6c…" names
   it, or of the transcript in it, named the player's own seat "You 1" (a stranger's
   "You"), where the same game by its id said "you".
2. The replay's help said a bare "`millebornes verify`", its refusal of a broken
   transcript "run `millebornes verify` on it", and the board's notice at 60 columns
   "resume --plain goes on with it": "command not found" after the README's quick start.
3. The pause line said "its next step (decryption share) did not come": the step in a
   player's words now ("its computer's part in drawing the next card"); verify keeps the
   protocol's names.
4. "discard tire" with a Spare Tire held, "play ace" with a Driving Ace: "'tire' is not a
   card number"; a later word of a card's name names it.
5. The question of b at a pause: y answered "the key y does nothing here" and a hidden
   question was signed by the next b at once.
6. The bot of one's own seat quit with its runner, and its takeover: said of the player
   ("Ann quit for now", "Ben's seat is played by a bot") on their own screen.
7. Leaving after hand 1 was left without a score: "No hand was finished yet."
8. A card typed alone with a hazard to answer: "to play Roll, type play 3", then refused.
9. The host's join command at 60 columns was cut mid-address.
10. A timed move with nothing to play, and the next hand's timed move under the last
    hand's end, said nothing of the limit, nor that the table had paused on the player;
    a watcher read that a late player had to "come back (millebornes resume)".
11. `resume` of a match over cut its commands inside a sentence; `replay` of a game's
    folder said a bare "resume --plain plays on" (the newest game, not that one).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import commands_in, run_main, unfold

# ----- 1. verify of one's own game's folder says "you" -----


def _said(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc, out, err = run_main(argv, capsys)
    return rc, " ".join(out.split()), " ".join(err.split())


def _saved_game(data: Path, names: list[str], seat: int = 0) -> Path:
    """A saved game (its header, no entry yet) in the data folder ``data``: its folder."""
    from engine import Seating, preset
    from p2p.table.memory import make_table
    from p2p.table.store import Store
    cfg, _ids = make_table(preset("classic"), Seating(2, 2), names, b"newcomer-32")
    store = Store.create(data, cfg.header(), seat, port=0)
    store.close()
    return store.path


def test_verify_of_ones_own_games_folder_says_you(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`play` names the player "You": `verify ~/.local/share/millebornes/7ecf…` said
    "waiting for You 1 … (The file ends before the next move of You 1, at seat 0.)"."""
    data = tmp_path / "data"
    table = _saved_game(data, ["You", "Bo"])
    for ref in (table.name[:8], str(table), str(table / "transcript.mbt")):
        rc, out, err = _said(["verify", ref, "--data-dir", str(data)], capsys)
        assert rc == 0, err
        assert "waiting for you" in out and "You 1" not in out, (ref, out)
    # without --data-dir: the folder is the game's wherever it is
    rc, out, err = _said(["verify", str(table)], capsys)
    assert "waiting for you" in out and "You 1" not in out, out
    # a bot's folder is the bot's, a copy of a transcript anyone's: no "you" there
    bots = data / "bot-1"
    bot_table = _saved_game(bots, ["You", "Bo"], seat=1)
    rc, out, err = _said(["verify", str(bot_table)], capsys)
    assert "waiting for You 1" in out, out
    copy = tmp_path / "friend.mbt"
    copy.write_bytes((table / "transcript.mbt").read_bytes())
    rc, out, err = _said(["verify", str(copy)], capsys)
    assert "waiting for You 1" in out, out


# ----- 2. the replay's help, its refusal and the small screen name the program as typed


@pytest.fixture
def typed_program(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The program started by its path, its folder off the PATH (the README's quick
    start): the command as the player types it. A short folder: a path longer than a
    line is cut with a continuation, as it would be for anyone."""
    import shutil
    import sys
    import tempfile

    from cli import program

    home = Path(tempfile.mkdtemp(prefix="nc32"))
    script = home / ".venv" / "bin" / "millebornes"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [str(script)])
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    program.program_name.cache_clear()
    yield shlex.quote(str(script))
    program.program_name.cache_clear()
    shutil.rmtree(home)


def test_the_replays_help_names_verify_as_typed(typed_program: str) -> None:
    from cli.replay import replay_help

    said = " ".join(replay_help().split())
    assert f"{typed_program} verify" in said and "`millebornes verify`" not in said, said


def test_a_replay_refused_names_the_verify_command_as_typed(
        typed_program: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """"run `millebornes verify` on it for the report": "command not found", and which
    file?"""
    from cli.main import main

    assert main(["--lang", "en", "simulate", "--fair-deck", "--cheat", "shuffle-drop",
                 "--cheater", "1", "--transcript-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    cheat = next(tmp_path.glob("*.mbt"))
    assert main(["replay", "--plain", str(cheat)]) == 1
    err = unfold(capsys.readouterr().err)
    assert f"The whole report: {typed_program} verify {shlex.quote(str(cheat))}" in err, err


def test_the_small_screen_names_resume_and_play_as_typed(typed_program: str) -> None:
    """At 60 columns: "q leaves; the game is saved, and resume --plain goes on with it":
    typed, "resume: command not found"."""
    from cli_helpers import SizedOutput
    from prompt_toolkit.input import create_pipe_input

    from cli.app import TableApp
    from cli.driver import LocalDriver
    from engine import Seating, preset

    for saved, command in ((True, "resume --plain"), (False, "play --plain")):
        with create_pipe_input() as inp:
            d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
            d.saves_game = saved  # type: ignore[misc]
            d.run_others()
            app = TableApp(d, input=inp, output=SizedOutput(60, 24), delay=0)
            assert app.too_small()
            said = " ".join("".join(t for _s, t in app._too_small_fragments()).split())
            assert f"{typed_program} {command}" in said, said


# ----- 3. the pause line says the missing step in a player's words -----


def test_the_pause_line_says_the_missing_step_in_a_players_words() -> None:
    """"Paused: seat 1 (Ben) is unresponsive: its next step (decryption share) did not
    come within the table's time limit.": what is a decryption share? The table says what
    Ben's computer had to do; verify keeps the protocol's names, where they belong."""
    from cli import i18n
    from cli.words import STEP_WORDS, table_paused_line, verify_lines
    from p2p.audit import GameReport
    from p2p.transcript.file import VerifyReport

    names = ["Ann", "Ben"]
    with i18n.using("en"):
        jargon = [STEP_WORDS[k] for k in STEP_WORDS if k != "game.act"]
        for step in STEP_WORDS:
            said = table_paused_line("", {"id": "unresponsive", "seat": 1, "step": step},
                                     names)
            assert said.startswith("Paused: seat 1 (Ben) is unresponsive: its "), said
            assert not any(j in said for j in jargon) and "next step" not in said, said
        said = table_paused_line("", {"id": "unresponsive", "seat": 1,
                                      "step": "deck.share"}, names)
        assert said == ("Paused: seat 1 (Ben) is unresponsive: its computer's part in "
                        "drawing the next card did not come within the table's time "
                        "limit."), said
        # a step this version does not know: named as it is
        said = table_paused_line("", {"id": "unresponsive", "seat": 1, "step": "deck.new"},
                                 names)
        assert "its next step (deck.new) did not come" in said, said
    with i18n.using("fr"):
        said = table_paused_line("", {"id": "unresponsive", "seat": 1,
                                      "step": "deck.share"}, names)
        assert "piocher la carte suivante" in said and "part de déchiffrement" not in said, said
    # verify's report keeps the protocol's name of the missing entry
    report = GameReport(ok=False, crypto=VerifyReport(entries_checked=40), unfinished=True,
                        names=tuple(names), waiting_for=1,
                        waiting_step="deck.share", check="unresponsive")
    with i18n.using("en"):
        said = " ".join(verify_lines(report, None, 80))
    assert "decryption share [unresponsive]" in said, said


# ----- 4. a card named by a later word of its name -----


def _context(kinds: list[Any]) -> Any:
    from cli.commands import Context
    from engine import KIND_OF, Seating, legal_actions, new_hand, preset, view_of
    from engine.state import PLAY

    rules = preset("classic")
    seating = Seating.parse(2, None)
    hand = tuple(sorted(next(i for i, k in enumerate(KIND_OF) if k is kind and i not in used)
                        for used in [set()] for kind in kinds))
    state = new_hand(rules, seating, list(rules.deck(seating)), 0)
    state = state._replace(hands=(hand,) + state.hands[1:], phase=PLAY, pending=())
    view = view_of(state, 0)
    return Context(view, 0, legal_actions(view, 0), ["Ana", "Bo"])


def test_a_card_named_by_a_later_word_of_its_name() -> None:
    """"discard tire" with a Spare Tire held, "play ace" with a Driving Ace: "'tire' is
    not a card number: use 1 to 7". A word of a card's name names it, when one kind held
    has it; two kinds held are said, and a word that names no card held is said to be
    no card's name, not "not a card number"."""
    from cli.commands import parse
    from engine import KIND_OF, Discard, Kind, Play

    ctx = _context([Kind.D25, Kind.SPARE_TIRE, Kind.DRIVING_ACE, Kind.SPEED_LIMIT,
                    Kind.END_OF_LIMIT, Kind.PUNCTURE_PROOF, Kind.STOP])
    hand = ctx.view.hand(0)
    for line, kind, cls in (("discard tire", Kind.SPARE_TIRE, Discard),
                            ("play ace", Kind.DRIVING_ACE, Play),
                            ("play proof", Kind.PUNCTURE_PROOF, Play),
                            ("discard of limit", Kind.END_OF_LIMIT, Discard)):
        out = parse(line, ctx)
        assert out.kind in ("action", "confirm") and isinstance(out.action, cls), (line, out)
        assert KIND_OF[out.action.card] is kind, (line, out)
        assert out.action.card in hand
    out = parse("discard limit", ctx)
    assert out.kind == "error" and out.text == \
        "limit could be Speed Limit or End of Limit: type more of the name", out
    out = parse("play banana", ctx)
    assert out.kind == "error" and out.text == "'banana' is not the name of a card in your " \
        "hand: type the card's number (1 to 7) or its name", out
    assert parse("play x", ctx).text == "'x' is not a card number: use 1 to 7"


# ----- 5. the question of b: y answers it, n takes it back, a hidden one is asked again


def test_y_answers_the_question_of_b_and_a_hidden_question_is_asked_again() -> None:
    """Ben pressed b at the pause ("b again: a bot plays Ann's seat …  Esc: no."), then y
    as every other question takes: "The key y does nothing here", and the question was
    gone from the screen, yet the next b signed at once."""
    from cli_helpers import run_headless, until
    from prompt_toolkit.input.base import PipeInput

    from cli.app import TableApp
    from cli.driver import LocalDriver
    from engine import Seating, preset

    class Silent(LocalDriver):
        silent_seat: int | None = 1
        agreed: list[str] = []

        def silent(self) -> int | None:
            return self.silent_seat

        def agree(self, choice: str) -> str:
            self.agreed.append(choice)
            return f"You chose {choice} for Bo; waiting for Cy."

    d = Silent(preset("classic"), Seating.solo(3), ["Ana", "Bo", "Cy"], seed=3)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move() and not d.others_pending())
        app.cards()
        inp.send_text("b")
        await until(lambda: app.message.startswith("b again: a bot plays Bo's seat"))
        inp.send_text("n")                          # n: no, as Esc
        await until(lambda: app.message == "Nothing agreed: the table still waits.")
        inp.send_text("b")
        await until(lambda: app.message.startswith("b again:"))
        inp.send_text("x")                          # a stray key hides the question
        await until(lambda: not app.message.startswith("b again:"))
        inp.send_text("b")                          # asked again, not signed
        await until(lambda: app.message.startswith("b again:"))
        assert d.agreed == []
        inp.send_text("y")                          # y: yes
        await until(lambda: app.message == "You chose bot for Bo; waiting for Cy.")
        assert d.agreed == ["bot"]
        inp.send_text("q")

    assert run_headless(lambda inp, out: TableApp(d, input=inp, output=out, delay=0),
                        script) == 0


# ----- 6. the bot of one's own seat left with its runner: said to the player, not of them


class _AnnWatching:
    """Ann's console (seat 0) at a table of two where the others agreed a bot, run by
    Ben's computer, plays her seat from hand 2 (she is watching): NetDriver's own methods
    say the events."""

    names = ["Ann", "Ben"]
    seat, over, hand_no, _shown_hand = 0, False, 2, 2
    broken: set[int] = set()
    bots = {0}
    bot_maker = None

    def __init__(self, paused: bool) -> None:
        from types import SimpleNamespace

        from cli_helpers import PeerStub

        from cli.netdriver import NetDriver

        for name in ("_words", "current_names", "_bot_name", "bot_runner_name",
                     "runner_name", "_taken", "silent", "is_bot"):
            if hasattr(NetDriver, name):
                setattr(self, name, getattr(NetDriver, name).__get__(self))
        self.peer = PeerStub(
            stopped="seat 0 quit for now" if paused else None,
            stop_why={"id": "unresponsive", "seat": 0, "away": True} if paused else None,
            finished=False, paused=paused, agreed_end=None, step_limit=20.0,
            takeovers=[SimpleNamespace(seat=0, hand=0, runner=1)])


def test_the_bot_of_ones_own_seat_leaving_is_said_to_the_player() -> None:
    """Ben ran the bot that played Ann's seat, and quit: Ann, watching, read "Ann quit
    for now; the game is saved. When the table needs Ann, it pauses until they come
    back (millebornes resume on their computer)" — of herself."""
    from p2p.table.replicated_log import SessionEvent

    d = _AnnWatching(paused=False)
    said = d._words(SessionEvent("away", "seat 0 quit for now", {"seat": 0}))
    assert said == ("The bot that plays your seat quit with Ben's computer, which runs "
                    "it; the game is saved. When the table needs your seat, it pauses "
                    "until Ben comes back (millebornes resume on their computer)."), said
    d = _AnnWatching(paused=True)
    said = d._words(SessionEvent("stopped", "seat 0 quit for now",
                                 {"reason": "seat 0 quit for now",
                                  "why": {"id": "unresponsive", "seat": 0, "away": True}}))
    assert said.startswith("Paused: the bot that plays your seat quit with Ben's "
                           "computer"), said
    assert "Ann" not in said, said


# ----- 7. leaving with no hand scored after hand 1 was left without a score -----


def test_leaving_after_an_unscored_hand_does_not_say_no_hand_was_finished() -> None:
    """Ben played hand 1 to its end, left without a score when a bot took Ann's seat, and
    quit in hand 2: "No hand was finished yet."."""
    from cli import i18n
    from cli.words import no_hand_scored_line

    with i18n.using("en"):
        assert no_hand_scored_line(1) == "No hand was finished yet."
        assert no_hand_scored_line(2) == ("No hand was scored yet: hand 1 was left without "
                                          "a score.")
        assert no_hand_scored_line(4) == ("No hand was scored yet: hands 1 to 3 were left "
                                          "without a score.")
    with i18n.using("fr"):
        assert "manche 1" in no_hand_scored_line(2), no_hand_scored_line(2)


# ----- 8. a card typed alone while a hazard waits for an answer -----


def test_a_card_typed_alone_with_a_hazard_to_answer_says_to_answer_it() -> None:
    """Line mode, Bo's Accident on the player: "3" said "to play Roll, type play 3; to
    discard it, discard 3", and "play 3" was then refused ("answer the hazard first")."""
    from cli.commands import Context, parse
    from cli.driver import LocalDriver
    from engine import Discard, Seating, preset

    for seed in range(1, 80):
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=seed)
        for _ in range(200):
            if d.hand_over or d.view().phase == "respond" and not d.others_pending():
                break
            if d.others_pending():
                d.step_others()
            else:
                legal = d.legal()
                d.submit(next((a for a in legal if isinstance(a, Discard)), legal[0]))
        if d.view().phase == "respond":
            break
    else:
        raise AssertionError("no hazard on this seat in 80 deals")
    ctx = Context(d.view(), 0, d.legal(), d.names)
    out = parse("3", ctx)
    assert out.kind == "error" and "answer the hazard first" in out.text, out
    assert "type play 3" not in out.text, out


# ----- 9. the host's join command at 60 columns -----


def test_the_hosts_join_command_is_cut_between_addresses_not_inside_one() -> None:
    """A host at 60 columns read "millebornes join --peer 192.0.2.2:37131 (or --peer
    127.0.0" / ".1:37131)": the terminal cut the address a friend was to type."""
    from cli import i18n
    from cli.host import join_command_lines

    with i18n.using("en"):
        lines = join_command_lines(["192.0.2.2", "127.0.0.1"], 37131, 60)
        assert lines == ["  millebornes join --peer 192.0.2.2:37131",
                         "    (or --peer 127.0.0.1:37131)"], lines
        wide = join_command_lines(["192.0.2.2", "127.0.0.1"], 37131, 80)
        assert wide == ["  millebornes join --peer 192.0.2.2:37131 (or --peer "
                        "127.0.0.1:37131)"], wide
        assert all(i18n.cells(line) < 60 for line in join_command_lines(
            ["fd00:1234:5678::1", "192.168.100.200", "10.0.0.5"], 47111, 60))


# ----- 10. one's own timed move with nothing to play -----


def test_a_timed_move_with_nothing_to_play_says_its_limit_and_when_it_is_late() -> None:
    """`host --move-limit 15`: Ben, with no Roll, read "Nothing to play: discard a card"
    and nothing of the 15 s; past them Ann's table paused and offered her Ben's seat,
    while Ben's screen still said "Nothing to play"."""
    from cli_helpers import SizedOutput
    from prompt_toolkit.input import create_pipe_input

    from cli import render
    from cli.app import TableApp
    from cli.driver import LocalDriver
    from engine import Seating, preset

    class Timed(LocalDriver):
        decision_limit = 15.0
        late = False

        def move_overdue(self) -> bool:
            return self.late

    for seed in range(1, 60):
        d = Timed(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=seed)
        d.run_others()
        if d.my_move() and render.nothing_to_play(d.view(), d.seat, d.legal()):
            break
    else:
        raise AssertionError("no deal with nothing to play")
    with create_pipe_input() as inp:
        app = TableApp(d, input=inp, output=SizedOutput(80, 24), delay=0)
        said = " ".join(" ".join(app.status_lines()).split())
        assert "Nothing to play" in said and "(each move: up to 15 s, then the table " \
            "pauses)" in said, said
        d.late = True
        said = " ".join(" ".join(app.status_lines()).split())
        assert "Your move is past the table's 15 s: the others may now give your seat " \
            "to a bot or end the match." in said, said


def test_the_takeover_of_ones_own_seat_is_said_to_the_player() -> None:
    """Ben, slow past the move limit, read on his own screen "Agreed: hand 1 is left
    without a score; from hand 2, Ben's seat is played by a bot run by Ann."."""
    from p2p.table.replicated_log import SessionEvent

    d = _AnnWatching(paused=False)
    said = d._words(SessionEvent("takeover", "seat 0 taken over",
                                 {"seat": 0, "runner": 1, "hand": 0}))
    assert said == ("Agreed: hand 1 is left without a score; from hand 2, your seat is "
                    "played by a bot run by Ben."), said


# ----- 11. the next hand's timed move while the last hand's end is on the screen -----


def test_the_hands_end_says_the_next_hands_timed_move_has_begun() -> None:
    """`host --move-limit 15`: Ann read hand 1's scores ("Hand 1 over. Press Enter for
    hand 2.") while the table had dealt hand 2 and waited for her move; 15 s later Ben's
    table paused on her and offered him her seat, and her screen still said "Press Enter
    for hand 2."."""
    from cli_helpers import SizedOutput
    from prompt_toolkit.input import create_pipe_input

    from cli.app import TableApp
    from cli.driver import LocalDriver
    from engine import Seating, preset

    class Timed(LocalDriver):
        decision_limit = 15.0
        move: str | None = None

        def next_hand_move(self) -> str | None:
            return self.move

    d = Timed(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=5)
    for _ in range(400):
        if d.hand_over:
            break
        if d.others_pending():
            d.step_others()
        else:
            d.submit(d.legal()[0])
    assert d.hand_over and not d.over
    with create_pipe_input() as inp:
        app = TableApp(d, input=inp, output=SizedOutput(80, 24), delay=0)
        assert app._table_status() == "Hand 1 over. Press Enter for hand 2."
        d.move = "running"
        assert app._table_status() == ("Hand 1 over. Press Enter for hand 2: your move "
                                       "there has begun (each move: up to 15 s, then the "
                                       "table pauses).")
        d.move = "overdue"
        assert app._table_status().startswith(
            "Hand 1 over. Your move in hand 2 is past the table's 15 s: the others may now "
            "give your seat to a bot or end the match."), app._table_status()


def test_the_console_knows_the_next_hands_move_is_timed_and_late() -> None:
    """NetDriver.next_hand_move reads the live table under the last hand's end."""
    from types import SimpleNamespace

    from cli_helpers import PeerStub

    from cli.netdriver import NetDriver

    class Ann:
        seat, _held, _shown_hand = 0, None, 0
        decision_limit = 15.0

        def __init__(self, left: float | None, hand_no: int = 1) -> None:
            for name in ("next_hand_move", "_current"):
                setattr(self, name, getattr(NetDriver, name).__get__(self))
            self.peer = PeerStub(stopped=None, stop_why=None, paused=False, finished=False,
                                 hand_no=hand_no, needs_decision=lambda: True,
                                 time_left=lambda: None if left is None else (0, left),
                                 cfg=SimpleNamespace(decision_limit=15.0))

    assert Ann(7.0).next_hand_move() == "running"      # type: ignore[attr-defined]
    assert Ann(0.0).next_hand_move() == "overdue"      # type: ignore[attr-defined]
    assert Ann(None).next_hand_move() is None          # type: ignore[attr-defined]
    assert Ann(7.0, hand_no=0).next_hand_move() is None  # the hand on screen: its own line


def test_a_watcher_is_told_a_late_player_is_there_not_gone() -> None:
    """Ben, watching the bot that took his seat, read "The table waits for Ann to come
    back (millebornes resume on their computer)" while Ann sat at her table, late past
    the move limit."""
    from types import SimpleNamespace

    from cli_helpers import PeerStub

    from cli.netdriver import NetDriver

    class Ben:
        names = ["Ann", "Ben"]
        seat, over, hand_no = 1, False, 2

        def __init__(self, state: str, quit: bool = False) -> None:
            for name in ("activity", "replaced"):
                setattr(self, name, getattr(NetDriver, name).__get__(self))
            self.peer = PeerStub(stopped=None, stop_why=None, paused=True, finished=False,
                                 takeovers=[SimpleNamespace(seat=1, hand=0, runner=0)],
                                 silent_seat=lambda: 0, peer_state=lambda s: state,
                                 quit_for_now=lambda s: quit)

    said = Ben("connected").activity()  # type: ignore[attr-defined]
    assert said.endswith("The table waits for Ann, who took longer than the table's time "
                         "for a move."), said
    for state, quit in (("gone", False), ("connected", True)):
        said = Ben(state, quit).activity()  # type: ignore[attr-defined]
        assert said.endswith("The table waits for Ann to come back (millebornes resume on "
                             "their computer)."), said


# ----- 12. resume of a match over: each command on lines of its own -----


@pytest.mark.slow        # a whole (one-hand) match through the installed script
def test_resume_of_a_match_over_says_each_command_on_lines_of_its_own(
        tmp_path: Path) -> None:
    """"Game 8dbea451: the match is over; /work/…/.venv/bin/millebornes" / "replay 8dbea451
    shows it, and …": the terminal cut the command in two, and pasted it ran
    `.venv/bin/millebornes` alone. Each command is said whole, under its sentence, as
    `play` says them when a game ends."""
    import re

    from test_newcomer_twentyninth import _run, _script

    script = _script()
    typed = shlex.quote(str(script))
    data = str(tmp_path / "d")
    r = _run(script, "play", "--plain", "--auto", "--rules", "modern", "--data-dir", data)
    assert r.returncode == 0 and "Final scores:" in r.stdout, r.stdout + r.stderr
    r = _run(script, "resume", "--data-dir", data)
    lines = r.stdout.splitlines()
    assert not any("the match is over" in line and "replay" in line for line in lines), lines
    commands = [line for line in lines if line.startswith(f"  {typed} ")]
    assert [c.split()[1] for c in commands] == ["replay", "play"], lines
    assert re.search(rf"Start a new one with: {re.escape(typed)} play --data-dir "
                     rf"{re.escape(data)}$", unfold(r.stdout)), r.stdout


# ----- 13. replay of a game's folder names that game in the command that plays on -----


def test_replay_of_a_games_folder_names_that_game_to_play_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`replay --plain ~/games/7ecf…` of a game in its first hand: "(`millebornes resume
    --plain` plays on)", which takes the newest game not over (another, or none in the
    default folder)."""
    from cli.main import main

    data = tmp_path / "my games"
    table = _saved_game(data, ["You", "Bo"])
    assert main(["replay", "--plain", str(table)]) == 1
    raw = capsys.readouterr().err
    err = " ".join(raw.split())
    assert "This command plays on: millebornes resume" in err, err
    assert commands_in(raw) == [["millebornes", "resume", table.name[:8], "--data-dir",
                                 str(data), "--plain"]], raw


@pytest.mark.parametrize("verb", ["verify", "replay"])
def test_the_help_says_a_games_folder_is_taken(verb: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`verify` and `replay` take a game's folder (pass 31), and their help said only "a
    transcript file, or a short id" (pass 32's leftover)."""
    from cli.main import main
    with pytest.raises(SystemExit):
        main(["--lang", "en", verb, "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "a transcript file, a game's folder, or a short id" in said, said
