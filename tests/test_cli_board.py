"""Issue 11 on the full-screen board, headless (pipe input + DummyOutput): the screen
redraws after one's own draw, the target picker is obeyed, leaving asks first, a drawn
card is said and keeps every other card's number, the board fits 80×24 (and asks for a
larger terminal below that), the help explains the letters that replace colours."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from cli_helpers import SizedOutput, run_headless, until
from prompt_toolkit.input.base import PipeInput
from prompt_toolkit.output import DummyOutput

from cli import render
from cli.app import TableApp
from cli.driver import LocalDriver
from engine import KIND_OF, Draw, Family, Kind, Seating, apply_action, family, preset
from engine.state import DRAW, PLAY

NAMES = ["Ana", "Bo", "Cy", "Di"]

Script = Callable[[TableApp, PipeInput], Awaitable[None]]


def run(driver: LocalDriver, script: Script, columns: int = 80, rows: int = 24,
        **kw: object) -> int:
    return run_headless(
        lambda inp, out: TableApp(driver, input=inp, output=SizedOutput(columns, rows),  # type: ignore[arg-type]
                                  delay=0, **kw),
        script)


def text(lines: list[render.Line]) -> str:
    return "\n".join(render.plain(lines))


def test_the_screen_key_changes_with_ones_own_draw_alone() -> None:
    """Bug 1: after one's own pile draw (completed when the shares arrive) nothing the
    refresh watched changed, and the screen kept showing six cards."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=3, auto_draw=False)
    d.run_others()
    assert d.my_move() and d.view().phase == DRAW
    app = TableApp(d, output=DummyOutput(), delay=0)
    before = app.screen_key()
    # the draw takes effect without a log line, as a network draw does
    d.state = apply_action(d.state, Draw(0, "pile", None))
    assert app.screen_key() != before


def _stop_with_one_target() -> LocalDriver:
    """Four players; Ana to play holding a Stop; only Bo is rolling, so the Stop can go
    on Bo only (classic R6)."""
    for seed in range(300):
        d = LocalDriver(preset("classic"), Seating.solo(4), NAMES, seed=seed)
        d.run_others()
        st = d.state
        if not (d.my_move() and st.phase == PLAY):
            continue
        if not any(KIND_OF[c] is Kind.STOP for c in st.hands[0]):  # type: ignore[union-attr]
            continue
        roll = next((c for c in st.pile if KIND_OF[c] is Kind.ROLL), None)  # type: ignore[union-attr]
        if roll is None:
            continue
        zones = list(st.zones)
        zones[1] = zones[1]._replace(battle=(roll,), started=True)
        zones[2] = zones[2]._replace(battle=(), started=False)
        zones[3] = zones[3]._replace(battle=(), started=False)
        d.state = st._replace(zones=tuple(zones),
                              pile=tuple(c for c in st.pile if c != roll))  # type: ignore[union-attr]
        return d
    raise AssertionError("no seed deals Ana a Stop")


def test_the_target_picker_is_obeyed() -> None:
    """Bug 2: with "target: Di" chosen, p played "Stop on Bo"; `?` said it could be
    played. Now both speak of Di and nothing is played."""
    d = _stop_with_one_target()
    stop = next(c for c in d.view().hand(0) if KIND_OF[c] is Kind.STOP)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move() and not d.others_pending())
        inp.send_text(str(app.cards().index(stop) + 1))
        await until(lambda: app._selected_card() == stop)
        assert "can go on: Bo" in text(app._hand_lines())
        # t goes round the sides the Stop can go on (only Bo): it stays on Bo, marked on
        # the board ("Target: Bo." alone left a newcomer looking for the row)
        inp.send_text("t")
        await until(lambda: app.message.startswith("Target:"))
        assert app._target_name(app.current_target()) == "Bo"
        board = text(app._table_lines())
        assert "→ Bo" in board and "→ Cy" not in board and "→ Di" not in board
        # a target chosen while it could be hit, which can no longer be: p and ? speak of it
        app.target_side = d.seating.side_of(3)
        assert "→ Di" in text(app._table_lines())
        n = len(d.events)
        inp.send_text("?")
        await until(lambda: "cannot be played now" in app.message)
        assert "[R6]" in app.message
        inp.send_text("p")
        await until(lambda: "cannot be played now" in app.message)
        assert len(d.events) == n and stop in d.view().hand(0)
        inp.send_text("\x11")

    assert run(d, script) == 0


def test_the_default_target_is_one_the_hazard_can_go_on() -> None:
    """The default target was the opponent furthest ahead even when the selected hazard
    could not go on them (Di, stopped, 500 km ahead): `p` was refused until the player
    found `t`. The default is the furthest ahead of those it can go on (Bo); the words
    around it are in the player's language and kept within the screen's width."""
    d = _stop_with_one_target()
    zones = list(d.state.zones)
    zones[3] = zones[3]._replace(km=500)             # Di leads, but is not rolling
    d.state = d.state._replace(zones=tuple(zones))  # type: ignore[union-attr]
    stop = next(c for c in d.view().hand(0) if KIND_OF[c] is Kind.STOP)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move() and not d.others_pending())
        inp.send_text(str(app.cards().index(stop) + 1))
        await until(lambda: app._selected_card() == stop)
        assert app._target_name(app.current_target()) == "Bo"
        shown = text(app._hand_lines())
        assert "target: Bo (t changes; can go on: Bo)" in shown
        assert max(len(line) for line in shown.splitlines()) <= 80
        n = len(d.events)
        inp.send_text("p")
        await until(lambda: len(d.events) > n)
        assert "You played Stop on Bo." in d.events[n:], d.events[n:]
        inp.send_text("\x11")

    assert run(d, script) == 0


def test_quitting_asks_first() -> None:
    """q and Ctrl-C left at once (and, on a network, ended the match for everyone)."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=3)
    left: list[bool] = []

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move() and not d.others_pending())
        inp.send_text("q")
        # (in this process the game is kept nowhere, and the question says so)
        await until(lambda: app.status_text().startswith("Leave the game? It is not saved"))
        inp.send_text("n")
        await until(lambda: not app.confirm_quit)
        assert not app.app.is_done
        inp.send_text("\x03")                     # Ctrl-C asks too
        await until(lambda: app.confirm_quit)
        assert not app.app.is_done
        left.append(True)
        inp.send_text("y")

    assert run(d, script) == 0 and left


def test_a_drawn_card_is_said_marked_and_numbers_stay() -> None:
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=3, auto_draw=False)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move() and d.view().phase == DRAW)
        before = app.cards()
        inp.send_text(" ")
        await until(lambda: d.view().phase == PLAY and len(app.cards()) == 7)
        after = app.cards()
        assert after[:6] == before                  # nobody's number moved
        drawn = after[6]
        assert app.fresh == drawn
        assert app.message.startswith("You drew ") and "card 7, marked ★" in app.message
        assert "7★" in text(app._hand_lines())
        # "Your turn" stays under the message
        assert any(line.startswith("Your turn") for line in app.status_lines())
        inp.send_text("\x11")

    assert run(d, script) == 0


def test_the_board_fits_80_by_24_with_six_players() -> None:
    d = LocalDriver(preset("modern"), Seating.solo(6), ["Ana", "Bo", "Cy", "Di", "Ed", "Flo"],
                    seed=1)
    d.run_others()
    app = TableApp(d, output=SizedOutput(80, 24), delay=0)
    table = app._table_lines()
    hand = app._hand_lines()
    assert any(line.startswith("Match") for line in render.plain(table))   # match scores
    assert all(render.width(line) <= 80 for line in table + hand)
    rows = len(table) + 1 + max(3, len(hand)) + 1 + 1 + 1 + len(app.status_lines())
    assert rows <= 24, rows
    assert not app.too_small()


def test_a_small_terminal_is_asked_to_grow() -> None:
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1)
    app = TableApp(d, output=SizedOutput(60, 20), delay=0)
    assert app.too_small()
    shown = "".join(t for _, t in app._too_small_fragments())
    words = " ".join(shown.split())           # wrapped at spaces, within the 60 columns
    assert "at least 80×24" in words and "this one is 60×20" in words
    assert all(len(line) <= 60 for line in shown.splitlines()), shown


def test_help_without_colour_explains_the_letters() -> None:
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1)
    mono = "".join(t for _, t in TableApp(d, color=False, output=DummyOutput())
                   ._help_fragments())
    assert "D distance, H hazard, R remedy, S safety" in mono
    assert "hazards red" not in mono
    color = "".join(t for _, t in TableApp(d, color=True, output=DummyOutput())
                    ._help_fragments())
    assert "hazards red" in color
    assert "Esc, h or F1 closes this help" in color


def test_nothing_to_play_says_discard() -> None:
    for seed in range(300):
        d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=seed)
        d.run_others()
        if d.my_move() and d.view().phase == PLAY and not any(
                type(a).__name__ == "Play" for a in d.legal()):
            app = TableApp(d, output=DummyOutput(), delay=0)
            # and why no distance can go down (newcomer pass 12)
            assert app.status_text() == "Nothing to play: discard a card (select it, then " \
                "d). You need a Roll (or Right of Way) before your first distance [R5a]."
            return
    raise AssertionError("no seed leaves Ana with nothing to play")


def test_safety_family_is_known() -> None:
    assert family(next(c for c in range(106) if KIND_OF[c] is Kind.RIGHT_OF_WAY)) \
        is Family.SAFETY


def test_the_completion_menu_never_covers_the_status_line() -> None:
    """Bug 11: the menu (`:` `w` Tab) opens above the command line; with the command line
    below the status, it drew over the status. The status is now the last line."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1)
    app = TableApp(d, output=DummyOutput(), delay=0)
    children = [c for c in app.board.children]
    command = next(i for i, c in enumerate(children) if c is app.command.window)
    status = next(i for i, c in enumerate(children) if c is app.status_window)
    assert command < status == len(children) - 1


def _help_lines(app: TableApp) -> list[str]:
    return "".join(t for _, t in app._help_fragments()).split("\n")


def test_help_at_60_by_20_wraps_at_spaces_and_keeps_its_close_line() -> None:
    """Bug 11: at 60×20 the help wrapped mid-word and lost its "Press Esc" line; the board
    itself asks for a larger terminal below 80×24."""
    from cli.i18n import cells
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1)
    for color in (True, False):
        whole = _help_lines(TableApp(d, color=color, output=SizedOutput(300, 100), delay=0))
        words = set(" ".join(whole).split())
        for cols, rows in ((60, 20), (80, 24), (40, 12)):
            app = TableApp(d, color=color, output=SizedOutput(cols, rows), delay=0)
            lines = _help_lines(app)
            assert app.too_small() == (cols < 80 or rows < 24)
            assert all(cells(line) <= cols - 2 for line in lines), lines
            assert len(lines) <= rows - 3, (cols, rows, len(lines))
            assert "Esc, h or F1 closes this help" in " ".join(lines[-2:])
            # a help too tall scrolls, and says so between its body and its close line
            # (newcomer pass 13: it was cut with "…", its last lines out of reach)
            note = next((i for i, line in enumerate(lines) if line.startswith("Lines ")),
                        len(lines) - 1)
            if note < len(lines) - 1:
                assert re.fullmatch(r"Lines \d+ to \d+ of \d+: the arrows or PgUp and "
                                    r"PgDn show the rest\. r: how to play\. Esc, h or F1 "
                                    r"closes this help\.", " ".join(lines[note:])), lines
            for line in lines[:note]:     # every word shown is a whole word of the help
                assert all(w in words for w in line.split()), line
    # at 80×24 nothing of the help is cut
    app = TableApp(d, color=True, output=SizedOutput(80, 24), delay=0)
    assert "…" not in _help_lines(app)
    assert "DA Driving Ace." in "\n".join(_help_lines(app))


def test_the_log_cursor_stays_on_the_lines_drawn() -> None:
    """Found by the tmux game: the log's cursor was computed from the log as it was at the
    second call; events added in between (a network table's thread) put it below the
    content and prompt_toolkit ended the app with "list index out of range"."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1)
    app = TableApp(d, output=DummyOutput(), delay=0)
    drawn = len(app._log_lines())
    app._log_fragments()
    d.events.extend(["one more line"] * 5)       # arrives between the two calls
    assert app._log_cursor().y == drawn - 1


def test_a_target_chosen_with_t_lasts_for_that_turn_only() -> None:
    """t chose Bo for Out of Gas; next turn an Accident, which only Cy could take, still
    showed "target: Bo" and p was refused. Each turn starts from the default."""
    d = _stop_with_one_target()
    app = TableApp(d, output=DummyOutput(), delay=0)
    app.cards()
    app.target_side = 3                                   # Di, chosen with t
    assert app._target_name(app.current_target()) == "Di"
    hand = list(d.state.hands[0])                         # the turn moves on: a card goes
    d.state = d.state._replace(hands=(tuple(hand[1:]),) + d.state.hands[1:])  # type: ignore[union-attr]
    app.cards()
    assert app.target_side is None


def test_whose_turn_stays_on_the_status_line_under_a_long_message() -> None:
    """A three-line reason took every status row: "Your turn…" was cut off."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=3)
    d.run_others()
    assert d.my_move()
    app = TableApp(d, output=SizedOutput(80, 24), delay=0)
    app.say("word " * 60)
    lines = app.status_lines()
    # three lines, or four where the log keeps three lines beside them (two players)
    assert app._status_room() == 4
    assert len(lines) <= app._status_room() and lines[-1] == app._waiting(), lines
    assert lines[-2].endswith("… (all of it in the log)") and len(lines[-2]) <= 78, lines
    # the log has the message whole (a newcomer could not read the end of a long reason)
    log = render.plain(app._log_lines())
    assert " ".join(" ".join(log).split()).endswith(" ".join(("word " * 60).split())), log
    app.say("A short one.")
    assert "A short one." not in " ".join(render.plain(app._log_lines()))


def test_whose_turn_stays_on_the_status_line_in_another_players_turn() -> None:
    """t (or ?) pressed while another player thinks: "Target: Bo." took the status line
    until Bo had moved; nothing said whose turn it was meanwhile."""
    d = next(d for seed in range(20) if not (d := LocalDriver(
        preset("classic"), Seating.solo(2), NAMES[:2], seed=seed)).my_move())
    app = TableApp(d, output=SizedOutput(80, 24), delay=0)
    app.say("Target: Bo.")
    lines = app.status_lines()
    assert lines[0] == "Target: Bo." and lines[-1] == app._table_status() != lines[0], lines
    assert lines[-1].startswith(NAMES[1]), lines


def test_the_log_is_wrapped_at_spaces() -> None:
    """The log window wrapped long events mid-word ("within t / he table's")."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=3)
    app = TableApp(d, output=SizedOutput(40, 24), delay=0)
    d.events.append("The match stopped: seat 0 (Ann) is unresponsive: its next step "
                    "(move) did not come within the table's time limit.")
    lines = render.plain(app._log_lines())
    assert all(len(line) <= 39 for line in lines), lines
    tail = lines[-4:]
    words = " ".join(" ".join(tail).split())
    assert "within the table's time limit." in words, tail   # no word cut in two


def test_the_status_lines_are_shaped_like_the_rest_of_a_right_to_left_screen() -> None:
    """Newcomer, round 4: in Uyghur the board was shaped and ordered for the terminal,
    but the two status lines (whose turn it is) came in logical order, unshaped."""
    import unicodedata

    from cli import i18n
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=3, auto_draw=False)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move())
        status = "".join(t for _s, t in app._status_fragments())
        assert any("\ufb50" <= c <= "\ufeff" for c in status), status
        assert not any("\u0600" <= c <= "\u06ff" and unicodedata.category(c) == "Lo"
                       for c in status), status      # letters all in their shaped forms
        inp.send_text("\x11")

    with i18n.using("ug"):
        assert run(d, script, lang="ug") == 0


def test_the_help_names_the_teams_and_explains_their_card_counts() -> None:
    """Newcomer, round 4: "You & Cy  7/6 cards" on the board was explained nowhere."""
    d = LocalDriver(preset("classic"), Seating.parse(4, "2x2"), ["You", "Bo", "Cy", "Di"],
                    seed=3, auto_draw=False)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move())
        help_text = " ".join("".join(t for _s, t in app._help_fragments()).split())
        assert "Teams: You & Cy; Bo & Di." in help_text, help_text
        assert "as 7/6, are each partner's hand in that order" in help_text
        inp.send_text("\x11")

    assert run(d, script) == 0


def test_the_help_says_the_options_changed_from_the_preset() -> None:
    """Newcomer, round 4: with --option fast_play=yes nothing in the game said fast play
    was on (the prompt's second round surprised the player)."""
    d = LocalDriver(preset("classic", fast_play=True, attacker_started=True), Seating.solo(2),
                    NAMES[:2], seed=3, auto_draw=False)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move())
        help_text = " ".join("".join(t for _s, t in app._help_fragments()).split())
        assert "options: attacker_started=yes, fast_play=yes" in help_text, help_text
        inp.send_text("\x11")

    assert run(d, script) == 0
