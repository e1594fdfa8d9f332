"""The sixteenth first-time-player pass: what a newcomer typed, read or saw and wondered.

A card refused while nothing could be played: the reason the player asked for was cut to
its first letter ("Out of Gas cannot be played now: B… (all of it in the log)"), the
status keeping the same reason once more on the line below. The question of b (a bot for
a player who left) was cut to one line under the pause's notice, itself cut silently.
y, o, j, n and Enter with no question open, or at a hazard's, said nothing at all; n at
the end of a hand did not go on. "no" typed at a hazard said "nothing to confirm". The
lobby answered nothing typed under it, and only Ctrl-C left it; "start" and "bots 2" in
a table's lobby were unknown commands. Keys were named in English on a French board,
"undo" was taken for "no", and French said "la main suivante" for the next hand.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_helpers import leave_by_keys, run_board, until
from prompt_toolkit.input.base import PipeInput

from cli import i18n, render
from cli.app import TableApp
from cli.driver import LocalDriver
from cli.words import silent_seat_line, stuck_reason
from engine import Seating, preset


def _stuck(seed: int = 4) -> LocalDriver:
    """Seed 4 deals the human no Roll and no Right of Way: nothing to play at once."""
    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=seed)
    d.run_others()
    assert render.nothing_to_play(d.view(), 0, d.legal()), "seed 4: nothing to play"
    return d


def _flat(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_card_refused_while_nothing_can_be_played_is_said_whole(lang: str) -> None:
    """p on each card of a hand with nothing playable: the refusal is said whole in the
    status, and whose turn it is under it (the why beside "Nothing to play" gives way)."""
    d = _stuck()
    seen: list[str] = []

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move())
        for n in range(len(app.cards())):
            inp.send_text(f"{n + 1}p")
            await until(lambda: bool(app.message))
            lines = app.status_lines()
            shown = _flat(lines)
            seen.append(shown)
            assert "…" not in shown, shown
            assert _flat([app.message]) in shown, shown
            assert len(lines) <= 4, lines
            why = stuck_reason(d.view(), 0, d.names)
            assert why is not None and shown.count(_flat([why])) <= 1, shown
            app.say("")
        await leave_by_keys(app, inp)

    with i18n.using(lang):
        assert run_board(d, script) == 0
    nothing = "Nothing to play" if lang == "en" else "Rien à jouer"
    assert seen and all(nothing in s for s in seen), seen


@pytest.mark.parametrize("lang, keys", [("en", "yn"), ("fr", "on"), ("sv", "jn")])
def test_yes_and_no_with_no_question_open_say_they_do_nothing(lang: str, keys: str) -> None:
    """y (o, j) and n in one's own turn, with no question open, said nothing at all."""
    d = _stuck()

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move())
        for key in keys:
            app.say("")
            inp.send_text(key)
            await until(lambda: bool(app.message))
            assert f" {key} " in f" {app.message} ", app.message
            assert d.my_move() and not app.confirm_quit
        await leave_by_keys(app, inp)

    with i18n.using(lang):
        assert run_board(d, script) == 0


class _SilentSeat(LocalDriver):
    """A local table where Bo's seat is silent (what a network driver reports while its
    player is away), its pause said as a network table says it."""

    def silent(self) -> int | None:
        return 1

    def my_move(self) -> bool:
        return False                        # the table waits on Bo

    def activity(self) -> str:
        return silent_seat_line("Bo")

    def agree(self, choice: str) -> str:
        return "You chose a bot for Bo."


@pytest.mark.parametrize("lang", ["en", "fr", "sv", "vi", "af"])
def test_the_question_of_a_bot_for_a_silent_seat_is_said_whole(lang: str) -> None:
    """b at a table paused on a player who left: the question ("b again: a bot plays
    root's seat to the end of the m… (all of it in the log)") was cut to one line under the
    pause's notice, itself cut mid-sentence at two lines ("…; either needs")."""
    d = _SilentSeat(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
    said: list[list[str]] = []

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.view().seat == 0)
        app.cards()
        app.say("")
        # the pause's notice alone: whole
        assert _flat(app.status_lines()) == _flat([silent_seat_line("Bo")])
        inp.send_text("x")                  # a stray key: its answer, and the pause under it
        await until(lambda: bool(app.message))
        lines = app.status_lines()
        said.append(lines)
        assert 1 < len(lines) <= app._status_room(), lines
        tail = _flat(lines[1:])
        assert _flat([silent_seat_line("Bo")]).startswith(tail.rstrip("…")), lines
        inp.send_text("b")
        await until(lambda: app.confirm_agree == "bot")
        lines = app.status_lines()
        said.append(lines)
        assert _flat(lines) == _flat([app.message]), lines       # the question, whole
        assert "…" not in _flat(lines), lines
        inp.send_text("x")        # another key meanwhile: the pause is said again under it
        await until(lambda: "x" in app.message)
        assert app.confirm_agree == "bot"
        lines = app.status_lines()
        assert len(lines) > 1, lines
        assert _flat([silent_seat_line("Bo")]).startswith(_flat(lines[1:]).rstrip("…")), lines
        inp.send_text("\x1b")
        await until(lambda: app.confirm_agree is None)
        await leave_by_keys(app, inp)

    with i18n.using(lang):
        assert run_board(d, script) == 0
    assert len(said) == 2, said


def test_french_says_the_next_hand_as_a_manche_everywhere() -> None:
    """"dès la main suivante" (the cards in one's hand) beside "dès la manche suivante"
    for the same next hand in the lines of a slow player's pause (the glossary's word for
    a hand of the match is "manche")."""
    from cli.i18n.tool import po_path, read_po

    catalog = read_po(po_path("fr"), "fr")
    wrong = [m.id for m in catalog if m.id and isinstance(m.id, str)
             and "next hand" in m.id and "manche" not in str(m.string)]
    assert not wrong, wrong


@pytest.mark.parametrize("lang, leave", [("en", "q"), ("en", "exit"), ("fr", "quitter")])
def test_the_lobby_answers_what_is_typed_and_q_leaves_it(lang: str, leave: str) -> None:
    """A newcomer typed "join" under a table in ``millebornes lobby``: nothing answered,
    and nothing but Ctrl-C left the list."""
    import argparse
    import io
    import time

    from cli import lobby

    out = io.StringIO()
    started = time.monotonic()
    with i18n.using(lang):
        rc = lobby.run(argparse.Namespace(seconds=8.0, mdns="loopback"), out=out,
                       inp=io.StringIO(f"join\n\n{leave}\n"))
    took = time.monotonic() - started
    said = " ".join(out.getvalue().split())
    assert rc == 0
    assert took < 5, (took, said)                  # left at the word, not at the 8 s
    answer = {"en": "This list only shows the tables: to sit at one, leave it (q and "
                    "Enter, Ctrl-D or Ctrl-C)",
              "fr": "Cette liste ne fait que montrer les tables"}[lang]
    assert said.count(answer) == 1, said           # once: the empty line is not answered


def test_start_or_bots_typed_in_a_tables_lobby_says_what_the_start_waits_for(
        tmp_path: Path) -> None:
    """The host typed "start", then "bots 2", and the joiner "start": each was "unknown
    command", with nothing of what the table waits for or how a bot fills a seat."""
    from test_newcomer_plain import ann_hosts_and_bea_joins

    with ann_hosts_and_bea_joins(tmp_path, 3) as (ann, bea):
        ann.until(r"Waiting for 1 more player to join \(no time limit\)")
        bea.until(r"Waiting for 1 more player to join \(no time limit\)\.")
        ann.type("start")
        ann.until(r"Waiting for 1 more player to join", count=2)
        ann.type("bots 2")
        ann.until(r"host again with --bots N", count=3)
        bea.type("Start")
        bea.until(r"Waiting for 1 more player to join", count=2)
        assert "unknown command" not in (ann.said() + bea.said()).lower()


def _hit(seed: int = 0) -> LocalDriver:
    """A table where Bo's hazard on the human waits for their answer (c or n)."""
    from engine.bots import make_bot
    from engine.state import RESPOND

    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=seed)
    bot = make_bot("heuristic", seed=1)
    d.run_others()
    for _ in range(300):
        v = d.view()
        if v.phase == RESPOND and v.attack is not None and 0 in v.attack.waiting_for():
            return d
        if d.my_move():
            d.submit(bot.choose(v, d.legal()))
        d.run_others()
    raise AssertionError("no hazard on the human")


def test_enter_and_y_at_a_hazards_question_say_they_do_not_answer_it() -> None:
    """"c for a coup fourré, n to let it stand": Enter, and y (yes, a coup?), said
    nothing, the question still there; n then lets the hazard stand."""
    from engine.state import RESPOND

    d = _hit()

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.view().phase == RESPOND)
        for key, name in (("\r", "Enter"), ("y", "y")):
            app.say("")
            inp.send_text(key)
            await until(lambda: bool(app.message))
            assert f"The key {name} does nothing here" in app.message, app.message
            assert d.view().phase == RESPOND
            assert "c for a coup fourré, n to let it stand" in _flat(app.status_lines())
        inp.send_text("n")
        await until(lambda: d.view().phase != RESPOND)
        await leave_by_keys(app, inp)

    assert run_board(d, script) == 0


@pytest.mark.parametrize("lang, no, yes", [("en", "no", "yes"), ("fr", "non", "oui"),
                                           ("sv", "nej", "ja"), ("en", "No", "y")])
def test_no_typed_at_a_hazards_question_lets_it_stand_and_yes_says_the_answers(
        lang: str, no: str, yes: str) -> None:
    """"c for a coup fourré, n to let it stand": "no" (and "non") said "there is nothing
    to confirm", and so did "yes", the hazard still waiting."""
    from cli.commands import Context, parse
    from engine import Pass

    d = _hit()
    with i18n.using(lang):
        ctx = Context(d.view(), d.seat, d.legal(), d.names, lang)
        out = parse(no, ctx)
        assert out.kind == "action" and isinstance(out.action, Pass), out
        out = parse(yes, ctx)
        assert out.kind == "error", out
        assert out.text == parse("draw", ctx).text, out.text    # c or n, said as for any move
        assert "c " in out.text and " n " in out.text, out.text


@pytest.mark.parametrize("key, fr", [("enter", "Entrée"), ("c-h", "Retour arrière"),
                                     ("home", "Début"), ("delete", "Suppr"),
                                     ("c-m", "Entrée")])
def test_a_key_that_does_nothing_is_named_in_the_players_language(key: str, fr: str) -> None:
    """The French board said "La touche Enter ne fait rien ici" (its help says Entrée),
    "La touche Home", "La touche Backspace"."""
    from cli.words import unknown_key_line

    with i18n.using("fr"):
        said = unknown_key_line(key, "qbehtynpdcg")
    assert said.startswith(f"La touche {fr} ne fait rien ici"), said
    english = unknown_key_line(key, "qbehtynpdcg")
    assert fr not in english and "does nothing here" in english, english


@pytest.mark.parametrize("typed, guess", [("undo", None), ("nope", "no"), ("plya", "play"),
                                          ("non", "no"), ("hlep", "help")])
def test_a_word_is_not_taken_for_a_much_shorter_command(typed: str, guess: str | None) -> None:
    """":undo" (a move taken back?) was "Unknown command 'undo': did you mean 'no'?"."""
    from cli.commands import VERBS
    from cli.i18n import close_match

    assert close_match(typed, VERBS) == guess
    d = _stuck()
    from cli.commands import Context, parse
    out = parse(typed, Context(d.view(), d.seat, d.legal(), d.names, "en"))
    if guess is None:
        assert out.kind == "error" and "did you mean" not in out.text, out.text


def test_n_at_the_end_of_a_hand_goes_on_to_the_next_as_enter_does() -> None:
    """n (next, on the command line) at "Hand 1 over. Press Enter for hand 2." said
    nothing; it deals the next hand, as Enter does."""
    from engine.bots import make_bot

    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=4)
    bot = make_bot("heuristic", seed=1)
    d.run_others()
    for _ in range(2000):
        if d.hand_over:
            break
        if d.my_move():
            d.submit(bot.choose(d.view(), d.legal()))
        d.run_others()
    assert d.hand_over and not d.over

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: "Press Enter for hand 2" in _flat(app.status_lines()))
        inp.send_text("n")
        await until(lambda: d.hand_no == 2 and not d.hand_over)
        await leave_by_keys(app, inp)

    assert run_board(d, script) == 0


@pytest.mark.parametrize("lang", ["en", "af", "fr", "sv", "ug", "vi"])
def test_look_stands_in_the_column_of_the_line_modes_other_commands(lang: str) -> None:
    """The line mode's help lists its commands in two columns; "look (or Enter)", added
    under them, stood one to three cells further right in French, Swedish, Uyghur and
    Vietnamese ("look (eller Enter)  säg…")."""
    from cli.plain import LOOK_HELP
    from cli.words import PLAIN_HELP

    def column(line: str) -> int:
        found = re.search(r"\S {2,}(?=\S)", line)
        assert found is not None, line
        return i18n.cells(line[:found.end()])

    with i18n.using(lang):
        first = next(line for line in i18n._(PLAIN_HELP).splitlines() if line.startswith("  "))
        assert column(i18n._(LOOK_HELP)) == column(first), (i18n._(LOOK_HELP), first)
