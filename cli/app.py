"""The full-screen prompt_toolkit table.

Layout, top to bottom: the table (every side's zone), the human's hand (numbered,
coloured by family, playable cards marked), the log (or the scores when a hand is over),
a status line (what the table waits for, or the last error) and a command line with
completion. Single keys act on the selected card; ``:`` or ``/`` opens the command line,
which takes the same commands as the plain mode (both go through :mod:`cli.commands`).

Other seats move in a background asyncio task, one move every ``delay`` seconds, so the
human can follow. With ``auto`` a heuristic bot plays the human seat too (spectating).
No error ends in a traceback: it is shown in the status line.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition, has_focus
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    Dimension,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame, TextArea

from engine import Family, IllegalAction, Play, family
from engine.bots import make_bot
from engine.state import DRAW, EXTEND, PLAY, RESPOND

from . import render
from .commands import CommandCompleter, Commander, Context
from .driver import TableDriver
from .words import command_for, help_text, match_over_line, side_names, totals_line, with_names


class TableApp:
    def __init__(self, driver: TableDriver, *, auto: bool = False, lang: str = "en",
                 seed: int = 0, color: bool = True, delay: float = 0.4,
                 hand_pause: float = 4.0, input: Any = None, output: Any = None) -> None:
        self.driver = driver
        self.auto = auto
        self.lang = lang
        self.seed = seed
        self.color = color
        self.delay = delay
        self.hand_pause = hand_pause
        self.commander = Commander()
        self.bot = make_bot("heuristic", seed * 7919 + 5) if auto else None
        self.selected = 0
        self.target_side: int | None = None
        self.message = ""
        self.message_style = ""
        self.show_help = False
        self.moves = 0
        self._task: asyncio.Task[None] | None = None
        self._hand_over_since: float | None = None

        self.command = TextArea(height=1, prompt=[("class:prompt", ": ")], multiline=False,
                                completer=CommandCompleter(self.context),
                                complete_while_typing=True, accept_handler=self._accept,
                                style="class:command")
        self.hand_control = FormattedTextControl(_safe(self._hand_fragments), focusable=True,
                                                 show_cursor=False)
        self.hand_window = Window(self.hand_control, height=safe_dim(self._hand_height),
                                  wrap_lines=False)
        self.log_control = FormattedTextControl(_safe(self._log_fragments), focusable=False,
                                                show_cursor=False,
                                                get_cursor_position=self._log_cursor)
        help_window = Window(FormattedTextControl(_safe(self._help_fragments)), wrap_lines=True)
        body = HSplit([
            Window(FormattedTextControl(_safe(self._table_fragments)), height=safe_dim(self._table_height),
                   wrap_lines=False),
            Window(height=1, char="─", style="class:frame"),
            self.hand_window,
            Window(height=1, char="─", style="class:frame"),
            Window(self.log_control, wrap_lines=True, height=Dimension(min=1)),
            Window(FormattedTextControl(_safe(self._status_fragments)), height=1,
                   style="class:status"),
            self.command,
        ])
        root = FloatContainer(body, floats=[
            Float(xcursor=True, ycursor=True,
                  content=CompletionsMenu(max_height=8, scroll_offset=1)),
            Float(content=ConditionalContainer(Frame(help_window, title="Help"),
                                               filter=Condition(lambda: self.show_help)),
                  top=0, bottom=1, left=0, right=0),
        ])
        self.app: Application[int] = Application(
            layout=Layout(root, focused_element=self.hand_window),
            key_bindings=self._bindings(), full_screen=True, mouse_support=False,
            style=Style(render.style_rules(color)),
            color_depth=None if color else ColorDepth.DEPTH_1_BIT,
            input=input, output=output)

    # ----- state for the commands ----------------------------------------------------
    def context(self) -> Context:
        d = self.driver
        return Context(d.view(), d.seat, d.legal(), d.names, self.lang, d.hand_over, d.over)

    def cards(self) -> tuple[int, ...]:
        return render.hand_cards(self.driver.view(), self.driver.seat)

    def opponents(self) -> list[int]:
        seating = self.driver.seating
        mine = seating.side_of(self.driver.seat)
        return [s for s in range(seating.n_teams) if s != mine]

    def current_target(self) -> int:
        opp = self.opponents()
        if self.target_side not in opp:
            # default: the opponent furthest ahead
            zones = self.driver.view().zones
            self.target_side = max(opp, key=lambda s: (zones[s].km, -s))
        return self.target_side

    def _target_name(self, side: int) -> str:
        return side_names(self.driver.names, self.driver.seating)[side].split(" & ")[0]

    def _help_fragments(self) -> StyleAndTextTuples:
        d = self.driver
        seats = ", ".join(f"{p.name} ({p.kind}, {p.state})" for p in d.peers())
        rules = d.rules
        return [("class:help", help_text(self.color)),
                ("class:title", "\nAt this table: "), ("class:help", seats),
                ("class:title", "\nRules: "),
                ("class:help", f"{rules.preset}, trip {d.view().target} km, "
                               + (f"match to {rules.match_target}" if rules.match_target
                                  else "one hand")
                               + f", seed {self.seed}"),
                ("class:dim", "\nPress Esc, h or F1 to close this help.")]

    # ----- rendering -----------------------------------------------------------------
    def _rows(self) -> int:
        try:
            return self.app.output.get_size().rows
        except Exception:
            return 24

    def _table_lines(self) -> list[render.Line]:
        d = self.driver
        lines = render.table_lines(d.view(), d.names, d.seat, d.hand_no, self.lang,
                                   peers=d.peers())
        if d.hand_over:
            # the scores take the hand's place; on a small screen the zones give way too
            needed = len(lines) + len(self._score_block()) + 2 + 2 + 2
            if needed > self._rows():
                return lines[:1]
        return lines

    def _table_height(self) -> Dimension:
        return Dimension.exact(len(self._table_lines()))

    def _table_fragments(self) -> StyleAndTextTuples:
        return _join(self._table_lines())

    def _score_block(self) -> list[render.Line]:
        d = self.driver
        lines: list[render.Line] = [
            [("class:turn", e)] for e in d.events[-3:]
            if e.startswith((f"Hand {d.hand_no} over", "Match over"))]
        scores = d.last_scores()
        if scores is not None:
            lines += render.score_lines(scores, d.match, d.names, d.hand_no)
        lines += render.match_lines(d.match, d.names)
        return lines

    def _hand_lines(self) -> list[render.Line]:
        d = self.driver
        if d.hand_over:
            return self._score_block()
        view = d.view()
        n = len(self.cards())
        if n:
            self.selected = max(0, min(self.selected, n - 1))
        lines = render.hand_lines(view, d.seat, d.legal(), self.lang, self.selected,
                                  self.color)
        if len(self.opponents()) > 1:
            lines[0] = lines[0] + [("class:dim", "  target: "),
                                   ("class:you", self._target_name(self.current_target())),
                                   ("class:dim", " (t to change)")]
        return lines

    def _hand_height(self) -> Dimension:
        return Dimension.exact(max(3, len(self._hand_lines())))

    def _hand_fragments(self) -> StyleAndTextTuples:
        return _join(self._hand_lines())

    def _log_lines(self) -> list[render.Line]:
        intro = ("Spectating: a bot plays your seat. h help, q quit." if self.auto else
                 "Welcome! 1-7 or arrows pick a card, p plays it, d discards, ? why not, "
                 "h help.")
        return [[("class:dim", intro)]] + [[("class:log", e)] for e in self.driver.events[-200:]]

    def _log_fragments(self) -> StyleAndTextTuples:
        return _join(self._log_lines())

    def _log_cursor(self) -> Point:
        return Point(0, max(0, len(self._log_lines()) - 1))

    def status_text(self) -> str:
        d = self.driver
        if self.message:
            return self.message
        if d.over:
            return match_over_line(d.match, d.names) + " Press q to leave."
        if d.hand_over:
            if self.auto:
                return f"Hand {d.hand_no} over. Next hand in a few seconds (q to leave)."
            return f"Hand {d.hand_no} over. Press Enter for hand {d.hand_no + 1}."
        busy = d.activity()
        text = busy if busy else render.waiting_text(d.view(), d.seat, d.names, self.lang)
        if self.auto:
            text = "(spectating) " + text
        return text

    def _status_fragments(self) -> StyleAndTextTuples:
        style = self.message_style or "class:status"
        text = " " + self.status_text()
        hint = "  h help · : command · q quit "
        try:
            cols = self.app.output.get_size().columns
        except Exception:
            cols = render.WIDTH
        if len(text) + len(hint) > cols:
            hint = "  h help " if len(text) + 9 <= cols else ""
        pad = max(0, cols - len(text) - len(hint))
        return [(style, text), ("class:status", " " * pad + hint)]

    # ----- commands ------------------------------------------------------------------
    def say(self, text: str, error: bool = False) -> None:
        self.message = text
        self.message_style = "class:status class:error" if error else ""

    def execute(self, text: str) -> None:
        """Run one command line (typed, or made by a key); errors go to the status line."""
        try:
            self._execute(text)
        except Exception as exc:  # never a traceback on screen
            self.say(f"Error: {exc}", error=True)
        self.app.invalidate()

    def _execute(self, text: str) -> None:
        out = self.commander.handle(text, self.context())
        self.say("")
        if out.kind == "none":
            return
        if out.kind == "quit":
            self.app.exit(result=0)
            return
        if out.kind == "help":
            self.show_help = True
            return
        if out.kind in ("message", "confirm"):
            self.say(out.text)
            return
        if out.kind == "error":
            self.say(out.text[:1].upper() + out.text[1:] + ".", error=True)
            return
        if out.kind == "next":
            self.driver.next_hand()
            self.selected = 0
            return
        assert out.action is not None
        if self.auto:
            self.say("You are spectating (--auto): the bot plays your seat.", error=True)
            return
        try:
            self.driver.submit(out.action)
        except (IllegalAction, ValueError) as exc:
            self.say(with_names(str(exc), self.driver.names), error=True)
            return
        self.moves += 1

    def _accept(self, buffer: Any) -> bool:
        text = buffer.text
        self.app.layout.focus(self.hand_window)
        self.execute(text)
        return False

    def _selected_card(self) -> int | None:
        cards = self.cards()
        return cards[self.selected] if 0 <= self.selected < len(cards) else None

    def play_selected(self) -> None:
        card = self._selected_card()
        if card is None:
            self.say("Your hand is empty.", error=True)
            return
        n = self.selected + 1
        phase = self.driver.view().phase
        if phase == RESPOND:
            self.execute(f"play {n}")
            return
        if family(card) is Family.HAZARD and phase == PLAY:
            targets = [a.target for a in self.driver.legal()
                       if isinstance(a, Play) and a.card == card]
            t = self.current_target()
            if t in targets or len(targets) != 1:
                self.execute(f"play {n} on {self._target_name(t)}")
                return
        self.execute(f"play {n}")

    # ----- keys ----------------------------------------------------------------------
    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        on_hand = has_focus(self.hand_window) & Condition(lambda: not self.show_help)
        in_cmd = has_focus(self.command)
        confirming = Condition(lambda: self.commander.pending is not None)

        def phase() -> str:
            return self.driver.view().phase

        @kb.add("c-c")
        @kb.add("c-q")
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit(result=0)

        @kb.add("q", filter=on_hand)
        def _q(event: KeyPressEvent) -> None:
            event.app.exit(result=0)

        @kb.add("f1")
        def _f1(event: KeyPressEvent) -> None:
            self.show_help = not self.show_help

        @kb.add("h", filter=has_focus(self.hand_window))
        def _h(event: KeyPressEvent) -> None:
            self.show_help = not self.show_help

        @kb.add("escape", filter=Condition(lambda: self.show_help))
        def _close_help(event: KeyPressEvent) -> None:
            self.show_help = False

        @kb.add("escape", filter=on_hand & confirming)
        def _cancel(event: KeyPressEvent) -> None:
            self.execute("no")

        @kb.add("escape", filter=in_cmd)
        def _leave_cmd(event: KeyPressEvent) -> None:
            self.command.text = ""
            event.app.layout.focus(self.hand_window)

        @kb.add(":", filter=on_hand)
        @kb.add("/", filter=on_hand)
        @kb.add("tab", filter=on_hand)
        def _to_cmd(event: KeyPressEvent) -> None:
            event.app.layout.focus(self.command)

        for i in range(1, 10):
            @kb.add(str(i), filter=on_hand)
            def _select(event: KeyPressEvent, i: int = i) -> None:
                if i <= len(self.cards()):
                    self.selected = i - 1
                    self.say("")
                else:
                    self.say(f"There is no card {i} in your hand (you hold "
                             f"{len(self.cards())}).", error=True)

        @kb.add("left", filter=on_hand)
        @kb.add("up", filter=on_hand)
        def _prev(event: KeyPressEvent) -> None:
            n = len(self.cards())
            if n:
                self.selected = (self.selected - 1) % n

        @kb.add("right", filter=on_hand)
        @kb.add("down", filter=on_hand)
        def _next(event: KeyPressEvent) -> None:
            n = len(self.cards())
            if n:
                self.selected = (self.selected + 1) % n

        @kb.add("t", filter=on_hand)
        def _target(event: KeyPressEvent) -> None:
            opp = self.opponents()
            i = opp.index(self.current_target())
            self.target_side = opp[(i + 1) % len(opp)]
            self.say(f"Target: {side_names(self.driver.names, self.driver.seating)[self.target_side]}.")

        @kb.add("y", filter=on_hand)
        def _yes(event: KeyPressEvent) -> None:
            if self.commander.pending is not None:
                self.execute("yes")
            elif phase() == EXTEND:
                self.execute("extend yes")

        @kb.add("n", filter=on_hand)
        def _no(event: KeyPressEvent) -> None:
            if self.commander.pending is not None:
                self.execute("no")
            elif phase() == EXTEND:
                self.execute("extend no")
            elif phase() == RESPOND:
                self.execute("pass")

        @kb.add("p", filter=on_hand & ~confirming)
        def _play(event: KeyPressEvent) -> None:
            self.play_selected()

        @kb.add("d", filter=on_hand & ~confirming)
        def _discard(event: KeyPressEvent) -> None:
            self.execute(f"discard {self.selected + 1}")

        @kb.add("?", filter=on_hand)
        def _why(event: KeyPressEvent) -> None:
            self.execute(f"why {self.selected + 1}")

        @kb.add("c", filter=on_hand)
        def _coup(event: KeyPressEvent) -> None:
            self.execute("coup")

        @kb.add("space", filter=on_hand)
        def _draw(event: KeyPressEvent) -> None:
            self.execute("draw")

        @kb.add("g", filter=on_hand)
        def _draw_discard(event: KeyPressEvent) -> None:
            self.execute("draw discard")

        @kb.add("enter", filter=on_hand)
        def _enter(event: KeyPressEvent) -> None:
            d = self.driver
            if self.commander.pending is not None:
                self.execute("yes")
            elif d.hand_over:
                self.execute("next")
            elif phase() == DRAW:
                self.execute("draw")
            elif phase() == PLAY:
                self.play_selected()

        return kb

    # ----- the other seats -----------------------------------------------------------
    async def _others(self) -> None:
        loop = asyncio.get_running_loop()
        shown: tuple[object, ...] = ()
        while True:
            try:
                d = self.driver
                # A networked table moves on in the background (a draw's shares arrive,
                # the next hand is dealt): redraw whenever what the screen shows changed.
                now_showing = (d.my_move(), d.hand_over, len(d.events), d.activity())
                if now_showing != shown:
                    shown = now_showing
                    self.app.invalidate()
                if d.others_pending():
                    await asyncio.sleep(self.delay)
                    d.step_others()
                    self.app.invalidate()
                    continue
                if self.bot is not None and d.my_move() and not d.hand_over:
                    await asyncio.sleep(self.delay)
                    view = d.view()
                    action = self.bot.choose(view, d.legal())
                    self.say(f"(auto) {command_for(action, view, d.seat, d.names)}")
                    d.submit(action)
                    self.moves += 1
                    self.app.invalidate()
                    continue
                if d.hand_over and self._hand_over_since is None and self.message.startswith(
                        "(auto)"):
                    self.say("")
                    self.app.invalidate()
                if self.auto and d.hand_over and not d.over:
                    now = loop.time()
                    if self._hand_over_since is None:
                        self._hand_over_since = now
                        self.say("")
                        self.app.invalidate()
                    elif now - self._hand_over_since >= self.hand_pause:
                        self._hand_over_since = None
                        d.next_hand()
                        self.app.invalidate()
                        continue
                await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # shown, never a traceback
                self.say(f"Error: {exc}", error=True)
                self.app.invalidate()
                await asyncio.sleep(0.5)

    def _start(self) -> None:
        self._task = self.app.create_background_task(self._others())

    async def run_async(self) -> int:
        result = await self.app.run_async(pre_run=self._start)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        return result or 0

    def run(self) -> int:
        return asyncio.run(self.run_async())


def _safe(fn: Callable[[], StyleAndTextTuples]) -> Callable[[], StyleAndTextTuples]:
    """A display function that shows its own failure instead of ending the app."""
    def wrapped() -> StyleAndTextTuples:
        try:
            return fn()
        except Exception as exc:
            return [("class:error", f"(display error: {exc})")]
    return wrapped


def safe_dim(fn: Callable[[], Dimension]) -> Callable[[], Dimension]:
    def wrapped() -> Dimension:
        try:
            return fn()
        except Exception:
            return Dimension.exact(1)
    return wrapped


def _join(lines: list[render.Line]) -> StyleAndTextTuples:
    return list(render.join_lines(lines))


def run_app(driver: TableDriver, *, auto: bool = False, lang: str = "en", seed: int = 0,
            color: bool = True, delay: float = 0.4) -> int:
    app = TableApp(driver, auto=auto, lang=lang, seed=seed, color=color, delay=delay)
    rc = app.run()
    d = driver
    print(f"Match totals after {len(d.match.hands)} hand(s): {totals_line(d.match, d.names)}")
    return rc
