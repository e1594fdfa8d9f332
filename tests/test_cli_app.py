"""cli.app driven headless: create_pipe_input() + DummyOutput(), keys in, driver state out."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable

import pytest
from cli_helpers import run_headless, until
from prompt_toolkit.input.base import PipeInput
from prompt_toolkit.output import ColorDepth, DummyOutput

from cli import i18n
from cli.app import TableApp
from cli.args import use_color
from cli.driver import LocalDriver
from cli.words import help_text
from engine import KIND_OF, Family, Kind, Play, Seating, family, preset
from engine.state import PLAY, RESPOND, Attack

NAMES = ["Ana", "Bo", "Cy"]

Script = Callable[[TableApp, PipeInput], Awaitable[None]]


def run(driver: LocalDriver, script: Script, **kw: object) -> int:
    return run_headless(
        lambda inp, out: TableApp(driver, input=inp, output=out, delay=0, **kw),  # type: ignore[arg-type]
        script)


def my_play_phase(d: LocalDriver) -> bool:
    return d.my_move() and d.view().phase == PLAY and not d.others_pending()


def test_select_with_a_digit_and_play_with_p() -> None:
    d = LocalDriver(preset("classic"), Seating.solo(3), NAMES, seed=3)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: my_play_phase(d))
        hand = app.cards()
        plays = [a for a in d.legal() if isinstance(a, Play) and a.target is None]
        assert plays, "seed 3 deals a playable card to the human"
        card = plays[0].card
        n = len(d.events)
        inp.send_text(f"{hand.index(card) + 1}p")
        await until(lambda: len(d.events) > n)
        assert d.events[n].startswith(f"You played {_name(card)}")
        inp.send_text("q")

    assert run(d, script) == 0


def _name(card: int) -> str:
    from engine import card_name
    return card_name(card)


def test_command_line_discard_and_errors_in_status() -> None:
    d = LocalDriver(preset("classic"), Seating.solo(3), NAMES, seed=3)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: my_play_phase(d))
        first = app.cards()[0]
        n = len(d.events)
        inp.send_text(":discard 1\r")
        await until(lambda: len(d.events) > n)
        assert d.events[n] == f"You discarded {_name(first)}."
        await until(lambda: my_play_phase(d) or d.view().phase == RESPOND)
        if d.view().phase == RESPOND:   # a bot attacked Ana meanwhile: let it stand
            inp.send_text("n")
            await until(lambda: my_play_phase(d))
        inp.send_text("9")
        await until(lambda: "no card 9" in app.message)
        assert app.message == "There is no card 9 in your hand (you hold 7)."
        assert "class:error" in app.message_style
        inp.send_text(":frobnicate\r")
        await until(lambda: "Unknown command" in app.message)
        inp.send_text("q")

    assert run(d, script) == 0


def test_a_key_that_does_nothing_says_so() -> None:
    """A first-time player pressing a key the board does not know saw nothing happen
    (was it taken? is the game stuck?): it now says the key does nothing and where the
    keys are, and an upper-case letter asks about Caps Lock. Nothing is played."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=3)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: my_play_phase(d))
        n = len(d.events)
        inp.send_text("x")
        await until(lambda: "does nothing" in app.message)
        assert app.message == "The key x does nothing here: press h for the keys."
        assert "class:error" in app.message_style
        inp.send_text("P")
        await until(lambda: "Caps Lock" in app.message)
        assert app.message == ("The key P does nothing: the keys are lower case "
                               "(is Caps Lock on?).")
        inp.send_text("\x1b[15~")          # F5
        await until(lambda: "F5" in app.message)
        inp.send_text("\x06")              # Ctrl-F
        await until(lambda: "Ctrl-F" in app.message)
        assert len(d.events) == n and my_play_phase(d)
        inp.send_text("2")                  # a known key still does what it did
        await until(lambda: app.selected == 1)
        assert app.message == ""
        inp.send_text("q")

    assert run(d, script) == 0


def test_help_toggles_with_h() -> None:
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move())
        inp.send_text("h")
        await until(lambda: app.show_help)
        shown = "".join(t for _, t in app._help_fragments())
        assert "play N on NAME" in shown and "Bo (bot)" in shown and "seed 0" in shown
        # the keys keep their columns (wrapping used to run them together)
        assert "select a card      p  play it      d  discard it" in shown
        inp.send_text("h")
        await until(lambda: not app.show_help)
        inp.send_text(":help\r")
        await until(lambda: app.show_help)
        inp.send_text("q")  # q does not quit while the help is shown...
        await asyncio.sleep(0.1)
        inp.send_text("h")
        await until(lambda: not app.show_help)
        inp.send_text("q")  # ...but does once it is closed

    assert run(d, script) == 0


def _with_safety_in_hand(seed_from: int = 0) -> tuple[LocalDriver, int]:
    for seed in range(seed_from, seed_from + 200):
        d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=seed)
        d.run_others()
        if d.view().phase == PLAY and d.my_move():
            cards = d.view().hand(0)
            for i, c in enumerate(cards):
                if family(c) is Family.SAFETY:
                    return d, i
    raise AssertionError("no seed deals a safety")


def test_discarding_a_safety_asks_first() -> None:
    d, i = _with_safety_in_hand()
    safety = d.view().hand(0)[i]

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: my_play_phase(d))
        inp.send_text(f"{i + 1}d")
        await until(lambda: "is a safety" in app.message)
        inp.send_text("n")
        await until(lambda: "nothing discarded" in app.message)
        assert safety in d.view().hand(0)
        n = len(d.events)
        inp.send_text(f"{i + 1}d")
        await until(lambda: "is a safety" in app.message)
        inp.send_text("y")
        await until(lambda: len(d.events) > n)
        assert d.events[n] == f"You discarded {_name(safety)}."
        inp.send_text("q")

    assert run(d, script) == 0


def _attacked(hold_safety: bool) -> LocalDriver:
    """A driver whose human seat is answering a Stop, holding Right of Way or not."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=2)
    st = d.state
    row = next(c for c in st.deck if KIND_OF[c] is Kind.RIGHT_OF_WAY)
    stop = next(c for c in st.deck if KIND_OF[c] is Kind.STOP and c not in st.hands[0]
                and c not in st.hands[1])
    special = (row, stop)
    hands = [[c for c in h if c not in special] for h in st.hands]  # type: ignore[union-attr]
    pile = [c for c in st.pile if c not in special]  # type: ignore[union-attr]
    pile += hands[0][5:]  # every card stays somewhere (conservation)
    hands[0] = hands[0][:5] + ([row] if hold_safety else [pile.pop()])
    while len(hands[1]) < 6:
        hands[1].append(pile.pop())
    if not hold_safety:
        pile.insert(0, row)
    zone = st.zones[0]._replace(battle=(stop,))
    d.state = st._replace(hands=tuple(tuple(sorted(h)) for h in hands), pile=tuple(pile),
                          zones=(zone, st.zones[1]), phase=RESPOND, seat=1, turn_seat=1,
                          pending=(), attack=Attack(1, stop, 0, (0,)))
    return d


def test_coup_fourre_prompt_identical_with_or_without_the_safety() -> None:
    statuses = []
    for hold in (True, False):
        d = _attacked(hold)

        async def script(app: TableApp, inp: PipeInput, d: LocalDriver = d,
                         hold: bool = hold) -> None:
            await asyncio.sleep(0.05)
            assert d.view().phase == RESPOND  # the window is shown, never skipped
            statuses.append((app.status_text(), app._hand_lines()[0]))
            inp.send_text("c")
            if hold:
                await until(lambda: d.view().phase != RESPOND)
                assert any("Coup fourré" in e for e in d.events)
            else:
                await until(lambda: "no coup fourré" in app.message.lower())
                assert d.view().phase == RESPOND  # refused, still asked
                inp.send_text("n")  # pass
                await until(lambda: d.view().phase != RESPOND)
            inp.send_text("q")

        assert run(d, script) == 0
    assert statuses[0] == statuses[1]
    assert statuses[0][0] == "Bo played Stop on you: c for a coup fourré, n to let it stand " \
        "(coup / pass). c needs the card Right of Way in your hand."


def test_auto_spectates_a_whole_match() -> None:
    d = LocalDriver(preset("modern"), Seating.solo(2), NAMES[:2], seed=3)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.over, timeout=30)
        await until(lambda: app.status_text().startswith("Match over"))
        # the scores take the hand's place on screen
        assert any("Hand 1 scores" in "".join(t for _, t in line)
                   for line in app._hand_lines())
        inp.send_text("q")

    assert run(d, script, auto=True, hand_pause=0.0) == 0
    assert d.match.winner() >= 0


def test_background_errors_show_in_the_status_line() -> None:
    class Flaky(LocalDriver):
        boom = True

        def step_others(self) -> bool:
            if self.boom:
                self.boom = False
                raise RuntimeError("the network hiccuped")
            return super().step_others()

    d = Flaky(preset("classic"), Seating.solo(2), NAMES[:2], seed=4)
    d.state = d.state._replace(seat=1, turn_seat=1)  # make a bot move first

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: "hiccuped" in app.message)
        assert app.message == "Error: the network hiccuped"
        await until(lambda: d.my_move() and not d.others_pending())  # and play goes on
        inp.send_text("q")

    assert run(d, script) == 0


def _first_hand_played(seed: int) -> LocalDriver:
    """A two-player classic driver whose first hand the heuristic played to its end."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=seed)
    from engine.bots import make_bot
    bot = make_bot("heuristic", 0)
    while not d.hand_over:
        if not d.step_others():
            d.submit(bot.choose(d.view(), d.legal()))
    return d


def test_hand_over_then_enter_deals_the_next_hand() -> None:
    d = _first_hand_played(seed=6)

    async def script(app: TableApp, inp: PipeInput) -> None:
        assert "Press Enter for hand 2" in app.status_text()
        inp.send_text("\r")
        await until(lambda: d.hand_no == 2)
        inp.send_text("q")

    assert run(d, script) == 0


def test_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1)
    app = TableApp(d, color=False, output=DummyOutput())
    assert app.app.color_depth == ColorDepth.DEPTH_1_BIT
    ns = argparse.Namespace()
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(ns) is True
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_color(ns) is False


def test_a_display_failure_is_shown_not_raised() -> None:
    class Broken(LocalDriver):
        def peers(self):  # type: ignore[no-untyped-def]
            raise RuntimeError("peer list unavailable")

    d = Broken(preset("classic"), Seating.solo(2), NAMES[:2], seed=1)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move() and not d.others_pending())
        inp.send_text("q")

    assert run(d, script) == 0


def test_extension_answered_with_y() -> None:
    from engine.bots import make_bot
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=0)
    me = make_bot("heuristic", 1)
    while not (d.my_move() and d.view().phase == "extend"):
        assert not d.hand_over, "seed 0 reaches 700 for the human"
        if not d.step_others():
            d.submit(me.choose(d.view(), d.legal()))

    async def script(app: TableApp, inp: PipeInput) -> None:
        assert app.status_text().startswith(
            "700 km! n (extend no): stop, you score the trip. y (extend yes)")
        inp.send_text("y")
        await until(lambda: any("You extend the trip to 1000" in e for e in d.events))
        assert d.view().target == 1000
        inp.send_text("q")

    assert run(d, script) == 0


def test_a_pending_safety_question_is_answered_no_by_another_card_or_enter() -> None:
    """New-player review: "discard this safety?" was hidden by pressing a number, p and d
    went dead, and Enter (meant as "play the selected card") answered the hidden question
    yes: the safety was thrown away. Choosing another card, or Enter, keeps the safety."""
    d, i = _with_safety_in_hand()
    safety = d.view().hand(0)[i]
    other = 1 if i == 0 else 0

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: my_play_phase(d))
        n = len(d.events)
        inp.send_text(f"{i + 1}d")
        await until(lambda: "is a safety" in app.message)
        inp.send_text(f"{other + 1}")
        await until(lambda: "nothing discarded" in app.message)
        assert app.commander.pending is None and app.selected == other
        inp.send_text(f"{i + 1}d")
        await until(lambda: "is a safety" in app.message)
        inp.send_text("\r")
        await until(lambda: "nothing discarded" in app.message)
        assert safety in d.view().hand(0) and len(d.events) == n
        inp.send_text("q")

    assert run(d, script) == 0


def test_leaving_a_game_kept_nowhere_says_so() -> None:
    """New-player review: ``play --in-process`` keeps no game, yet the leave question, the
    help and the too-small screen said "the game is saved"."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=3)

    async def script(app: TableApp, inp: PipeInput) -> None:
        inp.send_text("q")
        await until(lambda: app.confirm_quit)
        assert "not saved" in app.status_text() and "resume" not in app.status_text()
        from cli.words import help_text
        assert "This game is not saved" in help_text(True, app.saved)
        # and the keys above it do not say the opposite ("q  leave (asks first; the game
        # is saved and can be resumed)"), in any language
        assert "q  leave (asks first; the game is not saved)" in help_text(True, app.saved)
        for lang in i18n.LANGUAGES:
            with i18n.using(lang):
                kept, lost = help_text(True, True), help_text(True, False)
                leave = [x for x in kept.splitlines() if x not in lost.splitlines()]
                instead = [x for x in lost.splitlines()[:12] if x not in kept.splitlines()]
                assert len(leave) == len(instead) == 1 and "q  " in instead[0], (lang, leave)
                assert i18n.cells(instead[0]) <= 76, (lang, instead)
        inp.send_text("y")

    assert run(d, script) == 0


def test_the_end_of_a_hand_shows_under_a_message_left_from_the_last_move() -> None:
    """New-player review: a message shown just before the hand ended hid "Hand 1 over.
    Press Enter for hand 2": the player waited for nothing."""
    d = _first_hand_played(seed=6)

    async def script(app: TableApp, inp: PipeInput) -> None:
        app.say("It is not your move: wait for the others.", error=True)
        assert any("Press Enter for hand 2" in line for line in app.status_lines())
        inp.send_text("q")

    assert run(d, script) == 0


def test_why_during_the_extension_question_says_to_answer_it() -> None:
    from engine import EXTEND, explain
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=3)
    v = d.view()._replace(phase=EXTEND, seat=0)
    assert explain(v, 0, v.hand(0)[0]) == "R12: decide first whether to extend the trip to 1000"


def test_a_reason_ending_in_a_full_stop_gets_no_second_one() -> None:
    from cli.words import sentence
    assert sentence("no coup fourré. Type pass.") == "No coup fourré. Type pass."
    assert sentence("draw first") == "Draw first."


def test_the_selection_follows_its_card_not_its_place() -> None:
    """After the selected card is discarded, the cards after it moved up: the selection
    stayed at its place, on a card the player never chose, and the next `p` or `d` took
    it. It goes to the card just drawn; a selected card still held keeps it."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=3)

    async def my_turn_again() -> None:
        for _ in range(50):
            if my_play_phase(d):
                return
            if d.my_move() and d.view().phase == RESPOND:
                app_ref[0].execute("pass")      # Bo attacked: let it stand
            await asyncio.sleep(0.05)
        raise AssertionError("the turn never came back")

    app_ref: list[TableApp] = []

    async def script(app: TableApp, inp: PipeInput) -> None:
        app_ref.append(app)
        await until(lambda: my_play_phase(d))
        hand = app.cards()
        assert family(hand[0]) is not Family.SAFETY
        n = len(d.events)
        inp.send_text("1d")                       # select card 1 and discard it
        await until(lambda: len(d.events) > n)
        await my_turn_again()
        cards = app.cards()
        assert hand[0] not in cards and app.fresh == cards[-1]
        assert app._selected_card() == cards[-1]  # the drawn card, not the old card 2
        # select card 2, discard card 1 by command: the selection stays on its card
        keep = cards[1]
        inp.send_text("2")
        await until(lambda: app._selected_card() == keep)
        n = len(d.events)
        app.execute("discard 1")
        await until(lambda: len(d.events) > n)
        app.cards()
        assert app._selected_card() == keep
        inp.send_text("q")

    assert run(d, script) == 0


def test_a_card_picked_while_waiting_for_the_draw_stays_picked() -> None:
    """Card 1 discarded, then card 1 (the old card 2) picked while the others moved: the
    draw that followed took the selection, and the next `d` threw away the card just
    drawn (a newcomer lost a 100 that way). A card the player picks is theirs."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=3)
    app_ref: list[TableApp] = []

    async def script(app: TableApp, inp: PipeInput) -> None:
        app_ref.append(app)
        await until(lambda: my_play_phase(d))
        hand = app.cards()
        n = len(d.events)
        inp.send_text("1d")                       # select card 1 and discard it
        await until(lambda: len(d.events) > n)
        assert d.others_pending()                 # the bot, then the draw, are to come
        inp.send_text("1")                        # the old card 2, picked meanwhile
        await until(lambda: app._selected_card() == hand[1])
        for _ in range(100):
            if my_play_phase(d) and app.fresh is not None:
                break
            if d.my_move() and d.view().phase == RESPOND:
                app.execute("pass")
            await asyncio.sleep(0.05)
        assert my_play_phase(d) and app.fresh is not None, "the draw never came"
        assert app._selected_card() == hand[1], (app._selected_card(), app.fresh)
        inp.send_text("q")

    assert run_headless(lambda inp, out: TableApp(d, input=inp, output=out, delay=0.4),
                        script) == 0


class _SilentSeatDriver(LocalDriver):
    """A local table where seat 1 is "silent" until the test says otherwise (what a
    network driver reports while a player is away), and agreeing says where it stands."""

    silent_seat: int | None = 1

    def silent(self) -> int | None:
        return self.silent_seat

    def agree(self, choice: str) -> str:
        return f"You chose {choice} for Bo; waiting for Cy."


def test_the_agreement_line_goes_once_no_seat_is_silent() -> None:
    """`b` said "You chose bot for Bo; waiting for Cy." and the line stayed on after Bo
    came back (or the bot took the seat): a stale wait on the status line."""
    d = _SilentSeatDriver(preset("classic"), Seating.solo(3), NAMES, seed=3)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: my_play_phase(d))
        app.cards()                     # the draw is said first ("You drew …")
        inp.send_text("b")
        # a first b asks (a stray key left the hand unscored and the seat to a bot for good)
        await until(lambda: app.message.startswith("b again: a bot plays Bo's seat to the "
                                                   "end of the match"))
        inp.send_text("\x1b")                       # Esc: nothing agreed
        await until(lambda: app.message == "Nothing agreed: the table still waits.")
        inp.send_text("e")
        await until(lambda: app.message.startswith("e again: the match ends here"))
        inp.send_text("b")                          # the other key asks its own question
        await until(lambda: app.message.startswith("b again:"))
        inp.send_text("b")
        await until(lambda: app.message == "You chose bot for Bo; waiting for Cy.")
        await asyncio.sleep(0.2)
        assert app.message == "You chose bot for Bo; waiting for Cy."   # still silent
        d.silent_seat = None                                             # Bo is back
        await until(lambda: app.message == "")
        inp.send_text("q")

    assert run(d, script) == 0


def test_a_terminal_too_small_takes_no_move_blind() -> None:
    """At 60×16 the board is hidden behind a notice, yet 3 p played a card the player
    could not see; the notice broke words ("q l" / "eaves") and q's question was hidden."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=3)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: my_play_phase(d))
        app._size = lambda: (16, 60)              # type: ignore[method-assign]
        n, hand = len(d.events), list(app.cards())
        inp.send_text("1p")
        inp.send_text("d")
        inp.send_text(":discard 1\r")
        await asyncio.sleep(0.2)
        assert len(d.events) == n and list(app.cards()) == hand and my_play_phase(d)
        notice = "".join(t for _s, t, *_ in app._too_small_fragments())
        assert all(len(line) <= 60 for line in notice.splitlines()), notice
        assert "60×16" in " ".join(notice.split())
        assert all(not line.endswith(" l") for line in notice.splitlines()), notice
        inp.send_text("q")
        await until(lambda: app.confirm_quit)
        assert "Leave the game?" in "".join(t for _s, t, *_ in app._too_small_fragments())
        inp.send_text("n")
        await until(lambda: not app.confirm_quit)
        app._size = lambda: (24, 80)              # type: ignore[method-assign]
        inp.send_text("q")
        inp.send_text("y")

    assert run(d, script) == 0


def test_help_has_a_page_on_how_to_play() -> None:
    """h shows the keys; r there turns to how to play (a newcomer found nothing on what a
    Roll or a coup fourré is), r again back; `:rules` opens it directly."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=1)

    def shown(app: TableApp) -> str:
        return "".join(t for _s, t, *_ in app._help_fragments())

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move())
        inp.send_text("h")
        await until(lambda: app.show_help)
        assert "Keys (N = a card's number" in shown(app) and "r: how to play" in shown(app)
        inp.send_text("r")
        await until(lambda: app.help_page == "rules")
        assert "How to play, in brief:" in shown(app) and "r: the keys" in shown(app)
        inp.send_text("r")
        await until(lambda: app.help_page == "help")
        inp.send_text("\x1b")
        await until(lambda: not app.show_help)
        await asyncio.sleep(0.6)                 # Esc's timeout, before the next key
        inp.send_text(":rules\r")
        await until(lambda: app.show_help and app.help_page == "rules")
        inp.send_text("\x11")

    assert run(d, script) == 0


def test_page_up_scrolls_the_log_back() -> None:
    """With six players at 80×24 two or three log lines show: a turn of the others did not
    fit, and PageUp said "The key Pageup does nothing here"."""
    d = LocalDriver(preset("modern"), Seating.solo(6), ["Ana", "Bo", "Cy", "Di", "Ed", "Flo"],
                    seed=2)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: my_play_phase(d))
        d.events.extend(f"Event {i}." for i in range(30))
        app.app.invalidate()
        await asyncio.sleep(0.2)
        bottom = app._log_cursor().y
        info = app.log_window.render_info
        assert info is not None
        shown = info.vertical_scroll
        inp.send_text("\x1b[5~")                  # PageUp
        await until(lambda: app._log_cursor().y < bottom)
        assert "does nothing" not in app.message
        # the first press already shows earlier lines (it only moved the cursor to the
        # top row of the lines shown, and nothing moved on screen)
        app.app.invalidate()
        await until(lambda: app.log_window.render_info is not None
                    and app.log_window.render_info.vertical_scroll < shown)
        inp.send_text("\x1b[5~")
        await until(lambda: app.log_back >= 2)
        # scrolled back, the status line says so (newcomer, round 4: old moves showed
        # under an unchanged status line), above what the table waits for
        app.message = ""
        assert app.status_lines()[0].startswith("The log shows earlier moves: PgDn")
        inp.send_text("\x1b[6~\x1b[6~\x1b[6~")    # PageDown, back to the end
        await until(lambda: app.log_back == 0)
        assert app._log_cursor().y == bottom
        # scrolled back, a move of the player's brings the log back to the newest line
        # (it stayed on old lines, and the next hand's moves were not seen)
        inp.send_text("\x1b[5~")
        await until(lambda: app.log_back > 0)
        discard = next(a for a in d.legal() if type(a).__name__ == "Discard")
        n = len(d.events)
        app.execute(f"discard {app.cards().index(discard.card) + 1}")
        await until(lambda: len(d.events) > n)
        assert app.log_back == 0
        inp.send_text("\x11")

    assert run(d, script) == 0
    help_words = " ".join(help_text(True).split())
    assert "PgUp / PgDn scroll the log of moves" in help_words


@pytest.mark.parametrize("typed", ["look", "Board", "hand"])
def test_the_line_modes_look_typed_on_the_full_screen_says_where_things_are(
        typed: str) -> None:
    """A player used to the line mode typed `:look` on the full screen and read "unknown
    command 'look'": it says where the table, the hand and the log are; nothing played."""
    d = LocalDriver(preset("classic"), Seating.solo(2), NAMES[:2], seed=3)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: my_play_phase(d))
        n = len(d.events)
        inp.send_text(f":{typed}\r")
        await until(lambda: "Everything is on the screen" in app.message)
        assert app.message == ("Everything is on the screen: the table at the top, your "
                               "hand under it, the log below ('look' is the line mode's "
                               "command).")
        assert "class:error" not in app.message_style and len(d.events) == n
        inp.send_text("q")

    assert run(d, script) == 0


@pytest.mark.parametrize("lang, said", [
    ("en", "Hand 1 over. Next hand in 4 s (q to leave)."),
    ("fr", "Manche 1 finie. Manche suivante dans 4 s (q pour quitter)."),
])
def test_a_watched_table_says_how_long_it_waits_before_the_next_hand(
        lang: str, said: str) -> None:
    """Newcomer pass 25: `play --auto` said "Next hand in a few seconds" at the end of a
    hand: a wait that did not say its limit. It says the pause, 4 s."""
    from cli import i18n

    d = _first_hand_played(seed=6)

    async def script(app: TableApp, inp: PipeInput) -> None:
        with i18n.using(lang):
            assert app._table_status() == said
        inp.send_text("q")

    assert run(d, script, auto=True, hand_pause=4.0) == 0
