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
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition, has_focus
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import (
    ConditionalContainer,
    Dimension,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    Window,
    WindowAlign,
)
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame, TextArea

from engine import Draw, Family, FastRemedy, IllegalAction, Play, family
from engine.state import DRAW, EXTEND, PLAY, RESPOND

from . import hand_order, i18n, render
from .bot_process import BotProcess, auto_bot
from .commands import Commander, Context, is_look
from .completion import CommandCompleter
from .driver import TableDriver, moved_on
from .i18n import N_, _, ngettext
from .program import as_typed
from .words import (
    FAST_PLAY_NOTE,
    agreement_question,
    bonus_notes,
    card_name,
    changed_options,
    command_for,
    command_lines,
    error_line,
    final_line,
    help_scroll_line,
    help_text,
    how_to_play,
    key_lines,
    leave_question,
    match_over_line,
    move_limit_note,
    no_hand_scored_line,
    nothing_to_agree_line,
    others_turn_line,
    over_prefixes,
    overdue_move_line,
    own_bot_failed_line,
    peer_label,
    refused_line,
    reply,
    rules_name,
    say_paragraph,
    sentence,
    side_labels,
    side_names,
    stuck_reason,
    totals_line,
    unknown_key_line,
    wrap,
)

#: the smallest terminal the board is laid out for
MIN_COLS, MIN_ROWS = 80, 24
#: the help frame's widest (its key lines fit 78 cells in every language)
HELP_COLS = 80
#: the fewest rows under which the too-small screen has no title ("Mille Bornes")
TITLE_ROWS = 10
#: the smallest screen the help shows in its frame (below: the whole screen, no frame)
HELP_FRAMED_ROWS = 10
HELP_FRAMED_COLS = 30
#: status lines at most (a long explanation is wrapped, never cut)
MAX_STATUS = 3


class TableApp:
    def __init__(self, driver: TableDriver, *, auto: bool = False, bot: str | None = None,
                 lang: str | None = None, seed: int = 0, color: bool = True, delay: float = 0.4,
                 hand_pause: float = 4.0, input: Any = None, output: Any = None,
                 hand_file: Path | None = None, resume_command: str | None = None) -> None:
        self.driver = driver
        #: the command that plays this saved game on in line mode (its id, its folder)
        self.resume_command = resume_command
        #: where the hand's order is kept for ``resume`` (:mod:`cli.hand_order`; None: a
        #: game kept nowhere)
        self.hand_file = hand_file
        self._order_saved: tuple[object, ...] | None = None
        self.auto = auto
        self.lang = lang
        self.seed = seed
        self.color = color
        self.delay = delay
        self.hand_pause = hand_pause
        self.commander = Commander()
        #: what the seat's bot (``--auto-bot``, one in a process of its own) failed with
        self.bot_faults: list[tuple[str, str]] = []
        self.bot = auto_bot(bot, seed * 7919 + 5, getattr(driver, "decision_limit", None),
                            lambda spec, words: self.bot_faults.append((spec, words)),
                            getattr(driver, "seat", None)) if auto else None
        self.selected = 0
        self.target_side: int | None = None
        self.message = ""
        self.message_style = ""
        self.show_help = False
        #: the help's page: "help" (keys and commands) or "rules" (how to play)
        self.help_page = "help"
        #: the first line of the help's body shown, on a screen too short for all of it
        #: (at 60×20 its last lines were cut with "…", out of reach); and the last first
        #: line there is, as the help was last laid out (None: it fits)
        self.help_top = 0
        self._help_last_top: int | None = None
        self.moves = 0
        self._task: asyncio.Task[None] | None = None
        self._hand_over_since: float | None = None
        self.confirm_quit = False
        # the hand in the order it is numbered on screen: cards keep their number, a new
        # card goes last and is marked (``fresh``) until the next one is played
        self.order: list[int] = []
        self.fresh: int | None = None
        #: the agreement line last said (b / e / :bot / :end), cleared once it is stale
        self._agreement_said: str | None = None
        #: the automatic move last said (--auto), cleared once its hand is over
        self._auto_said: str | None = None
        #: "bot" or "end" once b or e was pressed, until pressed again (or Esc): either
        #: leaves the hand in play unscored, and a stray key did it at once
        self.confirm_agree: str | None = None
        #: where the selection was left when its card went (the next card drawn takes it)
        self._lost_at: int | None = None
        self._order_of: tuple[int, int] | None = None
        #: the discard pile at the last look at the hand: a card from it was taken, not
        #: drawn
        self._discard_seen: frozenset[int] = frozenset()
        #: the card this player took from the discard pile, until it shows in the hand: a
        #: network table applies the draw before the card is unlocked, and the pile seen
        #: meanwhile (without it) said "You drew 25" of a 25 taken from the discard pile
        self._taking: int | None = None
        self._log_shown = 1
        #: lines the log is scrolled back from its end (PageUp, PageDown): with six players
        #: at 80×24 two or three lines show, and a turn of the others did not fit
        self.log_back = 0

        self.command = TextArea(height=1, prompt=[("class:prompt", ": ")], multiline=False,
                                completer=CommandCompleter(self.context),
                                complete_while_typing=True, accept_handler=self._accept,
                                style="class:command")
        self.command.buffer.on_text_changed += _bounded
        self.hand_control = FormattedTextControl(_safe(self._hand_fragments), focusable=True,
                                                 show_cursor=False)
        self.hand_window = Window(self.hand_control, height=safe_dim(self._hand_height),
                                  wrap_lines=False)
        self.log_control = FormattedTextControl(_safe(self._log_fragments), focusable=False,
                                                show_cursor=False,
                                                get_cursor_position=self._log_cursor)
        self.log_window = Window(self.log_control, wrap_lines=True, height=Dimension(min=1))
        self.help_window = help_window = Window(
            FormattedTextControl(_safe(_shown(self._help_fragments))), wrap_lines=False)
        self.status_window = Window(FormattedTextControl(_safe(self._status_fragments)),
                                    height=safe_dim(self._status_height), style="class:status")
        # the command line sits above the status: its completion menu opens upwards over
        # the log, never over the status line
        self.board = board = HSplit([
            Window(FormattedTextControl(_safe(self._table_fragments)), height=safe_dim(self._table_height),
                   wrap_lines=False),
            Window(height=1, char="─", style="class:frame"),
            self.hand_window,
            Window(height=1, char="─", style="class:frame"),
            self.log_window,
            self.command,
            self.status_window,
        ])
        # right-aligned in a language read right to left, as the board is (:func:`_join`):
        # in Uyghur the title "Mille Bornes" stood on the left, over lines read from the right
        self.too_small_window = too_small = Window(
            FormattedTextControl(_safe(_shown(self._too_small_fragments))), wrap_lines=True,
            align=lambda: WindowAlign.RIGHT if i18n.active().rtl else WindowAlign.LEFT)
        body = HSplit([
            ConditionalContainer(board, filter=~Condition(self.too_small)),
            ConditionalContainer(too_small, filter=Condition(self.too_small)),
        ])
        # the completion menu stands on the command line, over the log: placed at the
        # cursor, it opened downwards when two rows were free there, over the status
        # lines ("Your turn" hidden while a command was typed); its ``bottom`` follows the
        # status's height (:meth:`_status_height`)
        self.menu_float = Float(xcursor=True, bottom=2,
                                content=CompletionsMenu(max_height=8, scroll_offset=1))
        root = FloatContainer(body, floats=[
            self.menu_float,
            # as wide as the help's lines and as tall as they are, centred: at 160×50 a
            # frame over the whole screen was mostly empty, its lines far from its edges
            Float(content=ConditionalContainer(Frame(help_window, title=lambda: i18n.display(_("Help"))),
                                               filter=Condition(lambda: self.show_help
                                                                and self._help_framed())),
                  top=0, width=self._help_frame_width, height=self._help_frame_height),
            # on a tiny screen (20×5) the frame's four lines left two for the help, its
            # closing line ("Esc … closes") cut off and the screen behind showing under
            # it: the help takes the whole screen, without a frame
            Float(content=ConditionalContainer(Window(
                FormattedTextControl(_safe(_shown(self._help_fragments))), wrap_lines=False,
                style="class:help"),
                filter=Condition(lambda: self.show_help and not self._help_framed())),
                top=0, left=0, width=lambda: max(1, self._size()[1]),
                height=lambda: max(1, self._size()[0])),
        ])
        self.app: Application[int] = Application(
            layout=Layout(root, focused_element=self.hand_window),
            key_bindings=self._bindings(), full_screen=True, mouse_support=False,
            style=Style(render.style_rules(color)),
            color_depth=None if color else ColorDepth.DEPTH_1_BIT,
            input=input, output=output)
        self.app.ttimeoutlen, self.app.timeoutlen = ESCAPE_WAIT, ALT_KEY_WAIT

    # ----- state for the commands ----------------------------------------------------
    def context(self) -> Context:
        d = self.driver
        # a seat a bot plays by agreement: a move is answered with that, not "your hand is
        # empty" (the line mode's words)
        return Context(d.view(), d.seat, d.legal(), d.names, self.lang, d.hand_over, d.over,
                       self.cards(), watching=getattr(d, "watching", lambda: None)(),
                       prompt_below=True, paused=getattr(d, "paused_on", lambda below: None)(below=True))

    def cards(self) -> tuple[int, ...]:
        """The hand as numbered on screen (see :meth:`sync_hand`)."""
        self.sync_hand()
        return tuple(self.order)

    def sync_hand(self) -> None:
        """Keep each card's number while it stays in the hand; a drawn card goes last,
        is marked, and is said ("You drew 75 km") — nothing shifts under the finger. The
        order is kept beside a saved game (``hand_file``), so that a resumed game numbers
        the cards as they were, the mark included."""
        self._sync_hand()
        if self.hand_file is not None and self._order_of is not None:
            now = (self._order_of, tuple(self.order), self.fresh)
            if now != self._order_saved:
                self._order_saved = now
                hand_order.save(self.hand_file, self.driver.hand_no, self.driver.seat,
                                self.order, self.fresh)

    def _sync_hand(self) -> None:
        d = self.driver
        view = d.view()
        if view is None:            # a network table before its first deal: nothing held
            return
        held = render.hand_cards(view, d.seat)
        key = (d.hand_no, 0)
        if key != self._order_of:
            self._order_of = key
            self.order = list(held)
            self.fresh = self._lost_at = None
            self._discard_seen = frozenset(view.discard)
            self._taking = None
            if self.hand_file is not None:
                # a hand this screen has not shown yet: kept on disk only if an earlier
                # screen showed it (a resumed game: it came back sorted, the numbers
                # changed, ★ lost); a hand dealt now has nothing kept, and stays sorted
                back = hand_order.restore(
                    hand_order.load(self.hand_file, d.hand_no, d.seat), held)
                self.order, self.fresh = list(back.order), back.fresh
                if self.fresh is not None:
                    self.selected = self.order.index(self.fresh)
            return
        kept = [c for c in self.order if c in held]
        new = [c for c in held if c not in kept]
        if new or len(kept) < len(self.order):
            # a target chosen with t was for that turn's card: it stayed on a side the
            # next hazard could not go on (p refused); each turn starts from the default
            self.target_side = None
        chosen = self.order[self.selected] if 0 <= self.selected < len(self.order) else None
        if len(kept) < len(self.order):
            self.fresh = None           # a card was played: the mark has done its job
        self.order = kept + new
        # the selection stays on its card, not on its place: once the selected card was
        # played, the cards after it moved up and `p` played the next one unasked
        if self._lost_at is not None and self._lost_at != self.selected:
            self._lost_at = None     # the player chose another card meanwhile
        if self._lost_at is not None:
            if not new:
                return               # still waiting for the draw
            chosen, self._lost_at = None, None    # the card just drawn takes the selection
        if chosen in self.order:
            self.selected = self.order.index(chosen)
        elif new:
            self.selected = len(self.order) - 1      # the card just drawn
        elif chosen is not None:
            self._lost_at = self.selected = max(0, min(self.selected, len(self.order) - 1))
        if new and kept:
            self.fresh = new[-1]
            if not self.auto:
                # a card taken from the discard pile is said so, as the log says it ("You
                # drew 25" stood beside "You took 25 from the discard pile")
                taken = self.fresh in self._discard_seen or self.fresh == self._taking
                self._taking = None
                self.say((_("You took %(card)s from the discard pile (card %(n)d, marked ★).")
                          if taken else _("You drew %(card)s (card %(n)d, marked ★)."))
                         % {"card": card_name(self.fresh, self.lang), "n": len(self.order)})
        self._discard_seen = frozenset(view.discard)

    def pick(self, index: int) -> None:
        """The player picks the card at ``index``: it stays picked when a card is drawn
        (the draw took over a selection that only looked unchanged: card 1 picked again
        after card 1 was played, and `d` then threw away the card just drawn)."""
        self.selected = index
        self._lost_at = None

    def too_small(self) -> bool:
        rows, cols = self._size()
        return rows < MIN_ROWS or cols < MIN_COLS

    def _too_small_fragments(self) -> StyleAndTextTuples:
        rows, cols = self._size()
        # a terminal that cannot grow (a phone's, a split pane) had no way on: line mode
        # fits any width
        d = self.driver
        # at the player's own turn (or a hand's end that waits for Enter) nothing goes on:
        # the table waits for them, and "the game goes on meanwhile" said otherwise
        waits = not self.auto and not d.over and (
            d.hand_over and not self.moves_on_alone() or not d.hand_over and d.my_move())
        limit = getattr(d, "decision_limit", None)
        if waits and limit is not None and not d.hand_over and self.saved:
            # a timed move waits no longer than its limit: "the game waits for you" let a
            # player take their time, and the table paused on them (the others offered
            # to give the seat to a bot)
            text = _("The board needs a terminal of at least %(need)s; this one is "
                     "%(size)s. Please make it larger soon: your move is timed, up to "
                     "%(seconds)s s, then the table pauses. q leaves; the game is saved, and "
                     "this command goes on with it in line mode, which fits any terminal:")
        elif waits:
            text = (_("The board needs a terminal of at least %(need)s; this one is "
                      "%(size)s. Please make it larger: the game waits for you meanwhile. q "
                      "leaves; the game is saved, and this command goes on with it in line "
                      "mode, which fits any terminal:") if self.saved else
                    _("The board needs a terminal of at least %(need)s; this one is "
                      "%(size)s. Please make it larger: the game waits for you meanwhile. q "
                      "leaves (this game is not saved); this command starts a game in line "
                      "mode, which fits any terminal:"))
        else:
            text = (_("The board needs a terminal of at least %(need)s; this one is "
                      "%(size)s. Please make it larger (the game goes on meanwhile). q "
                      "leaves; the game is saved, and this command goes on with it in line "
                      "mode, which fits any terminal:") if self.saved else
                    _("The board needs a terminal of at least %(need)s; this one is "
                      "%(size)s. Please make it larger (the game goes on meanwhile). q "
                      "leaves (this game is not saved); this command starts a game in line "
                      "mode, which fits any terminal:"))
        # the command on lines of its own, under its sentence, as the other hints say
        # them (inside the sentence a narrow terminal cut it in two); the program as the
        # player's shell finds it (a bare "resume --plain" was "command not found" to a
        # player of the README's quick start), and the game by its id and folder (the
        # newest game of the default folder was another)
        command = (self.resume_command or as_typed("millebornes resume --plain")) \
            if self.saved else as_typed("millebornes play --plain")
        if self.driver.over:
            # the match is over: nothing goes on, and resume has nothing to play
            text = _("The board needs a terminal of at least %(need)s; this one is "
                     "%(size)s: make it larger to see the final scores.")
            command = ""
        text %= {"need": f"{MIN_COLS}×{MIN_ROWS}", "size": f"{cols}×{rows}",
                 "seconds": f"{limit or 0:g}"}
        # (wrapped at spaces: the window's own wrapping broke words, "q l" / "eaves")
        head = wrap(text, max(10, cols - 1)) + (
            command_lines(command, max(10, cols - 1)) if command else [])
        # what the table is at, under it: the board hid whose turn it was, the end of the
        # match and who won (at 60×20 the match ended unseen)
        text = "\n" + self.status_text()
        under = self._under_message()
        if under:      # and under a message, what the table waits for, as on the board
            text += "\n" + under
        # a seat silent: the status offers b and e ("press b: a bot takes the seat"),
        # which the hidden board takes no more than a card's keys
        silent = getattr(d, "silent", lambda: None)() is not None
        if (waits or silent) and self.message != _(BOARD_HIDDEN):
            # the status names the keys of the board ("c for a coup fourré, n to let it
            # stand", "Press Enter"), which do nothing while it is hidden: said so, and
            # which keys do (it read as keys to press, beside "no key plays meanwhile")
            text += "\n" + _(KEYS_WHEN_LARGER)
        lines = head + wrap(text, max(10, cols - 1))
        if self.confirm_quit:      # q was pressed: the question, since the board is hidden
            lines = wrap(leave_question(self.saved, self.driver.over), max(10, cols - 1))
        if rows >= TITLE_ROWS and not self.confirm_quit:
            return [("class:title", "Mille Bornes\n\n"), ("", "\n".join(lines))]
        # a tiny screen (20×5): no title over the words, and the question before leaving
        # shows its first line and its keys ("y leave · n stay" was cut off below)
        if self.confirm_quit and len(lines) > rows > 1:
            lines = [lines[0], *lines[len(lines) - rows + 1:]]
        return [("", "\n".join(lines))]

    @property
    def saved(self) -> bool:
        """Is the game kept (a table's store: ``millebornes resume``)? Not in-process."""
        return bool(getattr(self.driver, "saves_game", True))

    def _size(self) -> tuple[int, int]:
        try:
            size = self.app.output.get_size()
            return size.rows, size.columns
        except Exception:
            return MIN_ROWS, MIN_COLS

    def opponents(self) -> list[int]:
        seating = self.driver.seating
        mine = seating.side_of(self.driver.seat)
        return [s for s in range(seating.n_teams) if s != mine]

    def current_target(self) -> int:
        """The side a hazard goes on: the one chosen with ``t``, else the opponent furthest
        ahead among those the selected card can go on now (furthest ahead of all when it
        can go on none: the default was a side the card could not go on, and ``p``
        refused)."""
        opp = self.opponents()
        if self.target_side in opp:
            return self.target_side
        zones = self.driver.view().zones
        can = self._legal_targets() or opp
        return max(can, key=lambda s: (zones[s].km, -s))

    def _marked_target(self) -> int | None:
        """The side p would put the selected hazard on, when there is a choice to show: at
        the human's play, with a hazard selected and more than one opposing side."""
        card = self._selected_card()
        if card is None or len(self.opponents()) < 2 or self.auto or not self.driver.my_move() \
                or self.driver.view().phase != PLAY or family(card) is not Family.HAZARD:
            return None
        return self.current_target()

    def _legal_targets(self) -> list[int]:
        """The sides the selected card can be played on now (none unless a hazard)."""
        card = self._selected_card()
        if card is None:
            return []
        return sorted({a.target for a in self.driver.legal() if isinstance(a, Play)
                       and a.card == card and a.target is not None})

    def _target_name(self, side: int) -> str:
        return side_names(self.driver.names, self.driver.seating)[side].split(" & ")[0]

    def pause_keys(self) -> bool:
        """Are b and e (a bot for a player who left, the end) for this table? A network
        table's, unless every other seat is a bot (``millebornes play``: they were listed
        in its help, and pressing them said "does nothing here"); always while a seat is
        silent (a bot's computer can go)."""
        d = self.driver
        silent = getattr(d, "silent", None)
        if silent is None:
            return False
        if silent() is not None:
            return True
        is_bot = getattr(d, "is_bot", None)
        return is_bot is None or any(not is_bot(s) for s in range(len(d.names))
                                     if s != d.seat)

    def _help_framed(self) -> bool:
        """Whether the help has room for its frame (else it fills a tiny screen)."""
        rows, cols = self._size()
        return rows >= HELP_FRAMED_ROWS and cols >= HELP_FRAMED_COLS

    def _help_frame_width(self) -> int:
        """The help frame's columns: the terminal's, at most :data:`HELP_COLS`."""
        return max(1, min(self._size()[1], HELP_COLS))

    def _help_frame_height(self) -> int:
        """The help frame's rows: its lines and the frame's two, at most the screen's
        (less the status line's row)."""
        rows = max(1, self._size()[0] - 1)
        if not self.show_help:
            return rows          # asked at every redraw: no help laid out while it is shut
        try:
            text = "".join(t for _s, t, *_r in self._help_fragments())
        except Exception:
            return rows
        return max(3, min(rows, text.count("\n") + 1 + 2))

    def _help_fragments(self) -> StyleAndTextTuples:
        """The help wrapped at spaces to the frame's width; on a short screen its body is
        cut (with "…") so that the "Press Esc" line always shows."""
        d = self.driver
        levels = getattr(d, "bot_levels", None) or {}
        seats = i18n.join_list(peer_label(p.name, p.kind, p.state, levels.get(p.seat))
                          for p in d.peers())
        rules = d.rules
        network = hasattr(self.driver, "silent")       # a network table can pause
        pause = self.pause_keys()          # b and e: a network table with people at it
        extension = rules.extension and d.view().target < 1000     # extend yes|no (R12)
        values = {"rules": rules_name(rules.preset), "target": d.view().target,
                  "match": rules.match_target or 0, "seed": self.seed}
        if network:
            # the players' shuffle deals a network game: no seed of this screen's decides
            # it (a resumed game said "seed 0", another game's seed as it looked)
            rules_text = (_("%(rules)s, trip %(target)d km, match to %(match)d")
                          if rules.match_target else
                          _("%(rules)s, trip %(target)d km, one hand")) % values
        else:
            rules_text = (_("%(rules)s, trip %(target)d km, match to %(match)d, seed %(seed)d")
                          if rules.match_target else
                          _("%(rules)s, trip %(target)d km, one hand, seed %(seed)d")) % values
        changed = changed_options(rules)
        if changed:
            # options changed from the preset were shown nowhere in the game (fast play)
            rules_text += _("; options: %(options)s") % {"options": changed}
        if rules.fast_play:
            # and what fast play lets one type: "fast_play=yes" beside "discard N", and the
            # several cards a turn may discard were said nowhere on the full screen
            rules_text += " " + _(FAST_PLAY_NOTE)
        rows, cols = self._size()
        framed = self._help_framed()
        if framed:
            width = max(20, self._help_frame_width() - 2)     # the frame's two sides
            height = max(3, rows - 1 - 2)         # the float leaves a row; the frame's two
        else:
            width, height = max(1, cols), max(1, rows)      # the whole tiny screen
        closing = (_("r: the keys. Esc, h or F1 closes this help.")
                   if self.help_page == "rules" else
                   _("r: how to play. Esc, h or F1 closes this help."))
        close = [("class:dim", w) for w in wrap(closing, width, "")]
        # the way out always shows, whatever else gives way
        close = close[:max(1, height - 1)]
        room = height - len(close)
        whole: list[tuple[str, str]] = []
        for log_keys, who, short in ((True, True, None), (False, True, None),
                                     (False, False, None), (False, False, 10),
                                     (False, False, 6)):
            # on a full screen the log's keys give way first, then who sits where (the
            # board names them; the teams line does too), then the teams line shortens
            # its names, never goes: a network table's pause keys pushed the table's rules
            # out of an 80×24 help, at six players in three teams the French help lost the
            # teams line with the seats, and long names (or wide letters) lost it still
            page = (how_to_play() if self.help_page == "rules"
                    else help_text(self.color, self.saved, pause, log_keys,
                                   self.driver.rules.draw_discard, extension))
            body: list[tuple[str, str]] = []
            for line in page.splitlines():
                # the spaces between a key and the next are its columns: kept, a narrow
                # screen's line broken between them (wrapping ran them together)
                body += [("class:help", w) for w in key_lines(line, width)]
            if self.help_page != "rules" and who:   # the rules page fills 24 rows alone
                body += [("class:title", w) for w in wrap(_("At this table: %(seats)s")
                                                          % {"seats": seats}, width, "")]
            if self.help_page != "rules":
                if d.seating.team_size > 1:
                    # "You & Cy  7/6 cards" on the board was explained nowhere
                    names = d.names if short is None else \
                        [i18n.fit(n, short) for n in d.names]
                    teams = "; ".join(side_labels(names, d.seating))
                    body += [("class:title", w) for w in wrap(
                        _("Teams: %(teams)s. A team's cards, as 7/6, are each partner's "
                          "hand in that order.") % {"teams": teams}, width, "")]
            if self.help_page != "rules":
                body += [("class:title", w) for w in wrap(_("Rules: %(rules)s")
                                                          % {"rules": rules_text}, width, "")]
            if len(body) <= room:
                break
            whole = whole or body
        self._help_last_top = None
        if len(body) > room:
            body = whole         # it scrolls: nothing need give way
            # too short for all of it: a window on it that the arrows and PgUp / PgDn
            # move, and a line that says which lines show and how to see the rest
            shown = max(1, room - 1)
            for _round in range(2):
                last_top = max(0, len(body) - shown)
                top = max(0, min(self.help_top, last_top))
                more = [("class:dim", w) for w in wrap(help_scroll_line(
                    top + 1, min(len(body), top + shown), len(body)), width, "")]
                if len(more) > max(0, room - 1) // 2:
                    # no room for the sentence: which lines show, in figures ("1-2/63")
                    more = [("class:dim", i18n.fit(
                        f"{top + 1}-{min(len(body), top + shown)}/{len(body)}", width))]
                    if room < 2:
                        more = []
                shown = max(1, room - len(more))
            self._help_last_top = last_top
            body = body[top:top + shown] + more
        out: StyleAndTextTuples = []
        for style, text in body + close:
            out += [(style, text), ("", "\n")]
        return out[:-1]

    # ----- rendering -----------------------------------------------------------------
    def _rows(self) -> int:
        return self._size()[0]

    def _table_lines(self) -> list[render.Line]:
        d = self.driver
        lines = render.table_lines(d.view(), d.names, d.seat, d.hand_no, self.lang,
                                   peers=d.peers(), target=self._marked_target())
        lines.insert(1, render.match_line(d.match, d.names))
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
        # wrapped: "… Bo got closest. Bo had extended the trip to 1000 km and nobody got
        # there: …" ran past the screen's edge
        width = max(20, self._size()[1] - 1)
        lines: list[render.Line] = [
            [("class:turn", w)] for e in d.events[-3:]
            if e.startswith(over_prefixes(d.hand_no)) for w in wrap(e, width)]
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
                                  self.color, cards=self.cards(), fresh=self.fresh,
                                  width=self._size()[1],
                                  taken=getattr(d, "watching", lambda: None)() is not None)
        card = self._selected_card()
        if len(self.opponents()) > 1 and card is not None and family(card) is Family.HAZARD \
                and view.phase == PLAY:
            labels = side_names(d.names, d.seating)
            can = i18n.join_list(labels[t] for t in self._legal_targets()) or _("nobody now")
            # in another's turn nothing can be played: "can go on: nobody now" beside a
            # target read as if the hazard could go on no one at all
            note = (_("(t changes; can go on: %(names)s)") % {"names": can} if d.my_move()
                    else _("(t changes; you play it in your turn)"))
            target: render.Line = [
                ("class:dim", _("target:") + " "),
                # the whole side a hazard goes on ("target: Bo" beside "can go on: Bo & Ed")
                ("class:you", labels[self.current_target()]),
                ("class:dim", " " + note)]
            width = self._size()[1]
            if i18n.cells("".join(frag[1] for frag in lines[0] + target)) + 2 <= width:
                lines[0] = lines[0] + [("class:dim", "  ")] + target
            else:                  # its own line rather than cut at the screen's edge
                lines.insert(1, [("class:dim", "  ")] + target)
        return lines

    def _hand_height(self) -> Dimension:
        return Dimension.exact(max(3, len(self._hand_lines())))

    def _hand_fragments(self) -> StyleAndTextTuples:
        return _join(self._hand_lines())

    def _log_lines(self) -> list[render.Line]:
        held = len(self.cards())
        # the numbers of the cards held now: "1-7" was said beside a hand of six (the
        # others' turn, before one's own draw), and "7" answered "no card 7"
        intro = (_("Spectating: a bot plays your seat. h help, q quit.") if self.auto else
                 _("Welcome! %(keys)s or arrows pick a card, p plays it, d discards, ? why "
                   "not, h help.") % {"keys": f"1-{held}" if held > 1 else "1"})
        if self.driver.seating.team_size > 1:
            # the board's "7/6 cards" on a team's row read as a fraction: said where a
            # newcomer reads first (the help says it too, unopened)
            intro += " " + _("A team's cards, as 7/6, are each partner's hand, in the order "
                             "of the names.")
        # wrapped at spaces here: the window's own wrapping cut words in two ("by a b/ot")
        width = max(20, self._size()[1] - 1)
        out: list[render.Line] = [[("class:dim", line)] for line in wrap(intro, width)]
        for e in self.driver.events[-200:]:
            lines = wrap(e, width, "  ")        # the lines after the first are indented
            lines[0] = lines[0][2:]
            out += [[("class:log", line)] for line in lines]
        scores = self.driver.last_scores() if self.driver.hand_over else None
        if scores is not None:
            # what each bonus on the score sheet above is for, under the hand's result
            # (the line mode says it under its sheet; "Safe trip 300" was unexplained here)
            for note in bonus_notes(scores):
                lines = wrap(note, width, "  ")
                lines[0] = lines[0][2:]
                out += [[("class:dim", line)] for line in lines]
        if self._status_layout()[1]:
            # the status line cut this message: here it is whole, last, where the log
            # stands unless scrolled back
            style = "class:error" if self.message_style else "class:log"
            out += [[(style, line)] for line in wrap(self.message, width)]
        return out

    def _log_fragments(self) -> StyleAndTextTuples:
        lines = self._log_lines()
        self._log_shown = len(lines)
        return _join(lines)

    def _log_cursor(self) -> Point:
        # the last line of what was drawn, not of the log now: a network table's events
        # grow in another thread between the two calls, and a cursor below the content
        # ended the app ("list index out of range" in prompt_toolkit's scrolling)
        return Point(0, max(0, self._log_shown - 1 - self.log_back))

    def scroll_log(self, pages: int) -> None:
        """PageUp (``pages`` < 0) and PageDown: the log a window's height back or on.

        The window scrolls only as far as keeps the cursor in sight, so the cursor goes to
        the first line above the lines shown (PageUp) or the last below them (PageDown):
        moved by a window's height from the bottom row, it only reached the top row and
        the first press showed nothing."""
        info = self.log_window.render_info
        last = self._log_shown - 1
        if info is None:
            self.log_back = max(0, min(last, self.log_back - pages * 3))
            return
        height = max(1, info.window_height)
        top = info.vertical_scroll
        if pages < 0:
            line = max(0, top - max(1, height - 1))        # a page up, one line kept
        else:
            line = min(last, top + height - 1 + max(1, height - 1))
        self.log_back = max(0, min(last, last - line))

    def status_text(self) -> str:
        d = self.driver
        if self.confirm_quit:
            return leave_question(self.saved, d.over)
        if self.message:
            return self.message
        if self.log_back > 0:
            # the log showed old moves under an unchanged status line, unsaid
            return _("The log shows earlier moves: PgDn comes back to the latest.")
        return self._table_status()

    def _table_status(self) -> str:
        """What the table is at, without the last message."""
        d = self.driver
        if d.over:
            return match_over_line(d.match, d.said_names(), d.ended_early) + " " + \
                _("Press q to leave.")
        if d.hand_over:
            if self.moves_on_alone() and self._behind() and not self.auto:
                # a watcher behind the table: it goes on by itself (each hand waited for
                # Enter, however far the table had gone), or at once with Enter
                return _("Hand %(hand)d over; the table is already on hand %(live)d. Hand "
                         "%(next)d follows in %(seconds)s s (Enter: at once).") % {
                    "hand": d.hand_no, "next": d.hand_no + 1, "seconds": self._pause_said(),
                    "live": getattr(d, "table_hand", lambda: d.hand_no + 1)()}
            if self.auto:
                # the pause itself ("in a few seconds" was a wait that did not say its
                # limit; newcomer pass 25)
                return _("Hand %(hand)d over. Next hand in %(seconds)s s (q to leave).") % {
                    "hand": d.hand_no, "seconds": self._pause_said()}
            # the table dealt the next hand meanwhile and waits for this player's move,
            # whose time limit runs while this screen holds the last hand's end
            move = getattr(d, "next_hand_move", lambda: None)()
            values = {"hand": d.hand_no, "next": d.hand_no + 1,
                      "seconds": f"{getattr(d, 'decision_limit', 0) or 0:g}"}
            if move == "overdue":
                return _("Hand %(hand)d over. Your move in hand %(next)d is past the "
                         "table's %(seconds)s s: the others may now give your seat to a bot "
                         "or end the match. Press Enter to play it.") % values
            if move == "running":
                return _("Hand %(hand)d over. Press Enter for hand %(next)d: your move "
                         "there has begun (each move: up to %(seconds)s s, then the table "
                         "pauses).") % values
            return _("Hand %(hand)d over. Press Enter for hand %(next)d.") % {
                "hand": d.hand_no, "next": d.hand_no + 1}
        busy = d.activity()
        text = busy if busy else self._waiting()
        if self.auto:
            text = _("(spectating) %(text)s") % {"text": text}
        return text

    def _behind(self) -> bool:
        """Has the table gone on past the hand on screen (a network table's console)?"""
        return bool(getattr(self.driver, "behind", lambda: False)())

    def _pause_said(self) -> str:
        """The pause between two hands that move on by themselves, as said: whole seconds,
        at least 1 (a test's 0 s pause is over before it is read)."""
        return f"{max(1, round(self.hand_pause)):d}"

    def moves_on_alone(self) -> bool:
        """Does the end of a hand move on by itself? For a spectator (``--auto``), and for
        a player whose seat a bot took once the table has gone on past the hand on screen
        (the line mode moved on by itself; the full screen held each hand until Enter, so a
        watcher behind a fast table pressed Enter once per hand to catch up). A player at
        their seat keeps the pause until Enter."""
        if self.auto:
            return True
        watching = getattr(self.driver, "watching", lambda: None)()
        return watching is not None and self._behind()

    def _waiting(self) -> str:
        """What the table waits for; when it is the human's play and nothing can be
        played, say so and how to go on."""
        d = self.driver
        view = d.view()
        if d.my_move() and not d.hand_over and not self.auto and render.nothing_to_play(
                view, d.seat, d.legal()):
            # on a table that times moves, how long the player has, or that the others'
            # tables paused on them: with nothing to play neither was said, and the
            # player read "Nothing to play" while the others were offered their seat
            limit = getattr(d, "decision_limit", None)
            if limit is not None and getattr(d, "move_overdue", lambda: False)():
                return overdue_move_line(limit)
            text = _("Nothing to play: discard a card (select it, then d).")
            if limit is not None:
                text = f"{text} {move_limit_note(limit)}"
            # and why no distance can go down (a Roll first, a hazard to cure), where the
            # status has room for it beside a message
            why = stuck_reason(view, d.seat, d.names)
            width = max(20, self._size()[1] - 2)
            # a message above it keeps its lines: the why is said again in full there (a
            # card refused, "?"), and beside it the message was cut to "Out of Gas cannot
            # be played now: B… (all of it in the log)"
            above = len(wrap(self.message, width)) if self.message else 0
            if why and len(wrap(f"{text} {why}", width)) <= MAX_STATUS - max(1, above):
                text = f"{text} {why}"
            return text
        others = [s for s in view.actors() if s != d.seat]
        is_bot = getattr(d, "is_bot", None)
        # the names as the log says them: a seat a bot took is "Ben's bot" there, and the
        # status under it said "Ben played Stop on you" of the bot's move
        said = d.said_names()
        bots = [s for s in others if is_bot is not None and is_bot(s)]
        # a wait on a bot says so ("Cy (a bot)"), unless its name does ("Ben's bot")
        # a table in this process (no is_bot: ``play --in-process``) has bots in every
        # other seat: none reads the last hand's scores ("Bo starts the hand: … (they may
        # still be reading the last hand's scores)" at each hand's start)
        text = render.waiting_text(view, d.seat, said, self.lang,
                                   bots=bots if is_bot is not None else others,
                                   watched=self.auto,
                                   named_bots=[s for s in bots if said[s] == d.names[s]])
        if others and d.seat not in view.actors() and not d.hand_over \
                and is_bot is not None and hasattr(d, "decision_limit"):
            # another player's move: how long it may take ("Bea's turn." alone left a
            # newcomer wondering whether the table had hung); a bot's too, from the start,
            # as the line mode says it (said only after 3 s, as the bot's thinking)
            text = others_turn_line(text, d.decision_limit,  # type: ignore[attr-defined]
                                    all(is_bot(s) for s in others))
        elif d.my_move() and not self.auto and getattr(d, "decision_limit", None) is not None:
            # this player's own move on a table that times moves: how long they have, or
            # that it is late (the others' tables have paused on it)
            if getattr(d, "move_overdue", lambda: False)():
                return overdue_move_line(d.decision_limit)  # type: ignore[attr-defined]
            text = f"{text} {move_limit_note(d.decision_limit)}"  # type: ignore[attr-defined]
        return text

    def status_lines(self) -> list[str]:
        """The status: the message (or what the table waits for) wrapped at spaces, and
        below a message what the table waits for, so "Your turn" (or whose turn it is)
        never disappears."""
        return self._status_layout()[0]

    def _status_layout(self) -> tuple[list[str], bool]:
        """The status lines, and whether the message had to be cut (then the log shows it
        whole: a newcomer's long reason ended in "…" with no way to read the rest)."""
        _rows, cols = self._size()
        lines = wrap(self.status_text(), max(20, cols - 2))
        under = self._under_message()
        below = wrap(under, max(20, cols - 2)) if under else []
        most = self._status_room()
        if len(below) > most - 1:
            # cut, it says so (a pause's three lines ended "…; either needs" at 80×24)
            below = below[:most - 1]
            below[-1] = below[-1][:max(1, cols - 4)].rstrip() + "…"
        room = most - len(below)
        cut = len(lines) > room
        if cut:
            # the message gives way, never what the table waits for (whose turn it is
            # was cut off below a three-line reason); the log has it in full
            more = _("(all of it in the log)")
            lines = lines[:room]
            lines[-1] = lines[-1][:max(1, cols - 6 - len(more))].rstrip() + "… " + more
        return lines + below, cut

    def _status_room(self) -> int:
        """The status's lines at most: MAX_STATUS, and one more where the log keeps three
        lines beside it (a French reason of three lines, with whose turn it is under it,
        was cut at "… (all of it in the log)")."""
        rows, _cols = self._size()
        # the table and the hand as laid out, the two rules and the command line
        others = self._table_height().preferred + self._hand_height().preferred + 3
        return MAX_STATUS + 1 if rows - others - (MAX_STATUS + 1) >= 3 else MAX_STATUS

    def _under_message(self) -> str:
        """What the status says under a message: what the table waits for ("" when there
        is no message, or nothing to say under it)."""
        d = self.driver
        if not self.message or self.confirm_quit or (
                self.confirm_agree is not None and self.message == self._agreement_said):
            # a question open (leave? a bot in the silent seat?) is about what the table
            # waits for: said under it, the pause cut the question to one line
            return ""
        if d.hand_over or d.over:
            # a message left over from the last move must not hide that the hand (or
            # the match) is over and what to press
            return self._table_status()
        if d.my_move() and not self.auto:
            return self._waiting()
        # another's turn: whose (an answer to t or ? pressed meanwhile, "Target: Bea.",
        # hid it until that player had moved); a spectator's too: "(auto) play 7" stood
        # while Bo attacked and the bot in the watcher's seat decided how to answer, and
        # said neither what the table waited for nor whose turn it was
        return self._table_status()

    def _status_height(self) -> Dimension:
        rows = len(self.status_lines())
        self.menu_float.bottom = rows + 1      # the status lines and the command line
        return Dimension.exact(rows)

    def _status_fragments(self) -> StyleAndTextTuples:
        style = self.message_style or "class:status"
        _rows, cols = self._size()
        lines = self.status_lines()
        hint = _("h help · : command · q quit") + " "
        out: StyleAndTextTuples = []
        for i, line in enumerate(lines):
            text = " " + line
            tail = hint if i == len(lines) - 1 and len(text) + len(hint) + 2 <= cols else ""
            if i:
                out.append(("", "\n"))
            # shaped and ordered like every other line (Uyghur's status lines were the
            # only ones left in logical order)
            out.append((style if i == 0 else "class:status", i18n.display(text)))
            out.append(("class:status", " " * max(0, cols - len(text) - len(tail))
                        + i18n.display(tail)))
        return out

    # ----- commands ------------------------------------------------------------------
    def ask_agreement(self, choice: str) -> None:
        """b or e about a silent seat: the first press asks (what it costs, for good),
        the same key again signs the agreement, Esc takes it back."""
        silent = getattr(self.driver, "silent", lambda: None)()
        if silent is None:
            return
        stuck = getattr(self.driver, "no_agreement", lambda plain: None)(False)
        if stuck is not None:
            # nothing b or e could sign would hold: say so, not "b again: ..." and then
            # "you already chose"
            self.confirm_agree = None
            self.say_agreement(stuck)
            return
        if self.confirm_agree != choice or self.message != self._agreement_said:
            # asked, or asked again once another key's answer hid the question (b, a
            # stray key, then b signed at once, with no question on the screen)
            self.confirm_agree = choice
            names = getattr(self.driver, "current_names", lambda: self.driver.names)()
            name = names[silent]
            self.say_agreement(agreement_question(choice, name))   # moot once it is back
            return
        self.confirm_agree = None
        self.say_agreement(self.driver.agree(choice))  # type: ignore[attr-defined]

    def agreement_asked(self) -> bool:
        """Is the question of b or e on the screen (the next b, e or y signs it)?"""
        return self.confirm_agree is not None and self.message == self._agreement_said \
            and getattr(self.driver, "silent", lambda: None)() is not None

    def say_agreement(self, text: str) -> None:
        """Where the agreement about a silent seat stands: said until the table stops
        waiting for that seat (then it is over, and the line would be stale)."""
        self.say(text)
        self._agreement_said = text

    def drop_stale_agreement(self) -> bool:
        """Clear the agreement's line once no seat is silent any more; True if cleared."""
        if self._agreement_said is None:
            return False
        if getattr(self.driver, "silent", lambda: None)() is not None:
            return False
        if self.message == self._agreement_said:
            self.say("")
        self._agreement_said = None
        self.confirm_agree = None
        return True

    def say(self, text: str, error: bool = False) -> None:
        self.message = text
        self.message_style = "class:status class:error" if error else ""

    def execute(self, text: str) -> None:
        """Run one command line (typed, or made by a key); errors go to the status line."""
        try:
            self._execute(text)
        except Exception as exc:  # never a traceback on screen
            self.say(_("Error: %(error)s") % {"error": error_line(exc)}, error=True)
        self.app.invalidate()

    def toggle_help(self) -> None:
        """Open or close the help; closed, the status line's "the help is open" goes."""
        self.show_help = not self.show_help
        self.help_top = 0
        if not self.show_help and self.message == _(HELP_IS_OPEN):
            self.say("")

    def scroll_help(self, lines: int) -> None:
        """Move the help's window by ``lines``; a help that fits says how to close it."""
        last = self._help_last_top
        if last is None:
            self.say(_(HELP_IS_OPEN), error=True)
            return
        self.help_top = max(0, min(last, min(self.help_top, last) + lines))

    def ask_to_leave(self) -> None:
        """q (or quit): the question before leaving, except once the match is over: the
        status line already said "Press q to leave", the game is kept as it is, and a
        second "Leave? y / n" made the player confirm twice."""
        if self.driver.over:
            self.app.exit(result=0)
            return
        self.confirm_quit = True

    def _execute(self, text: str) -> None:
        if is_look(text) and self.commander.pending is None:
            # the line mode's "look" typed here (it was "unknown command 'look'")
            self.say(_("Everything is on the screen: the table at the top, your hand under "
                       "it, the log below ('look' is the line mode's command)."))
            return
        out = self.commander.handle(text, self.context())
        self.say("")
        if out.kind == "none":
            return
        if out.kind == "quit":
            self.ask_to_leave()
            return
        if out.kind in ("help", "rules"):
            self.show_help, self.help_page = True, out.kind
            return
        if out.kind in ("message", "confirm"):
            self.say(out.text)
            return
        if out.kind == "error":
            self.say(sentence(out.text), error=True)
            return
        if out.kind == "next":
            self.driver.next_hand()
            self._hand_over_since = None     # the next hand's end pauses in its turn
            self.selected = 0
            self.log_back = 0     # a log scrolled back hid the new hand's moves, unsaid
            return
        assert out.action is not None
        if self.auto:
            self.say(_("You are spectating (--auto): the bot plays your seat."), error=True)
            return
        top = self.driver.view().discard[-1:] if isinstance(out.action, Draw) \
            and out.action.source == "discard" else ()
        try:
            self.driver.submit(out.action)
        except (IllegalAction, ValueError) as exc:
            # said as every other refusal (a network race: the table refused a move the
            # screen showed as legal, and its raw English reached the screen)
            self.say(sentence(refused_line(str(exc), self.driver.names)), error=True)
            return
        if top:
            self._taking = top[0]
        self.moves += 1
        self.log_back = 0         # the log follows the game again once the player moves

    def _accept(self, buffer: Any) -> bool:
        text = buffer.text
        self.app.layout.focus(self.hand_window)
        if self.too_small():
            return False           # typed blind: the board is hidden (see _bindings)
        self.execute(text)
        return False

    def _selected_card(self) -> int | None:
        cards = self.cards()
        return cards[self.selected] if 0 <= self.selected < len(cards) else None

    def play_selected(self) -> None:
        card = self._selected_card()
        if card is None:
            self.say(_("Your hand is empty."), error=True)
            return
        n = self.selected + 1
        view = self.driver.view()
        phase = view.phase
        if phase == RESPOND:
            if view.attack is not None and view.attack.stage == 2 and not any(
                    isinstance(a, FastRemedy) and a.card == card for a in self.driver.legal()):
                # fast play's remedy round: "p plays its remedy at once", whichever card is
                # picked (another was refused with "answer it first", again and again)
                self.execute("play")
                return
            self.execute(f"play {n}")
            return
        if family(card) is Family.HAZARD and phase == PLAY and len(self.opponents()) > 1:
            # the picker's target, always: if it cannot take the hazard, say why
            self.execute(f"play {n} on {self._target_name(self.current_target())}")
            return
        self.execute(f"play {n}")

    def why_selected(self) -> None:
        card = self._selected_card()
        n = self.selected + 1
        if card is not None and family(card) is Family.HAZARD and len(self.opponents()) > 1 \
                and self.driver.view().phase == PLAY:
            self.execute(f"why {n} on {self._target_name(self.current_target())}")
            return
        self.execute(f"why {n}")

    # ----- keys ----------------------------------------------------------------------
    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        ignore_mouse_reports(kb)
        # while the terminal is too small the board is hidden: no key makes a move blind
        # (a newcomer at 60×16 pressed 3 p and played a 75 he could not see); q still asks
        on_hand = has_focus(self.hand_window) & Condition(
            lambda: not self.show_help and not self.too_small())
        in_cmd = has_focus(self.command)
        confirming = Condition(lambda: self.commander.pending is not None)

        def phase() -> str:
            return self.driver.view().phase

        quitting = Condition(lambda: self.confirm_quit)

        @kb.add("c-q")
        def _quit_now(event: KeyPressEvent) -> None:
            event.app.exit(result=0)

        @kb.add("c-c")
        def _ctrl_c(event: KeyPressEvent) -> None:
            if self.confirm_quit:      # Ctrl-C twice leaves
                event.app.exit(result=0)
            self.confirm_quit = True

        @kb.add("q", filter=on_hand | Condition(lambda: self.too_small() and not self.show_help))
        # Ctrl-D ends the input of a shell, and of the line mode: a newcomer pressed it to
        # leave and read "the key Ctrl-D does nothing here"; it asks, as q does
        @kb.add("c-d", filter=has_focus(self.hand_window))
        def _q(event: KeyPressEvent) -> None:
            self.ask_to_leave()


        # a seat fell silent in a network game: b a bot by agreement, e the end by agreement
        silent = Condition(lambda: getattr(self.driver, "silent", lambda: None)() is not None)

        @kb.add("b", filter=on_hand & silent)
        def _bot_seat(event: KeyPressEvent) -> None:
            self.ask_agreement("bot")

        @kb.add("e", filter=on_hand & silent)
        def _end_match(event: KeyPressEvent) -> None:
            self.ask_agreement("end")

        # the same keys with nobody missing, where the help lists them: what they are for
        # (they said "the key b does nothing here", beside a help that listed them)
        @kb.add("b", filter=on_hand & ~silent & Condition(self.pause_keys))
        @kb.add("e", filter=on_hand & ~silent & Condition(self.pause_keys))
        def _nobody_missing(event: KeyPressEvent) -> None:
            self.say(nothing_to_agree_line())

        @kb.add("escape", filter=on_hand & Condition(lambda: self.confirm_agree is not None))
        def _no_agreement(event: KeyPressEvent) -> None:
            self.confirm_agree = self._agreement_said = None
            self.say(_("Nothing agreed: the table still waits."))

        @kb.add("pageup", filter=on_hand)
        def _log_up(event: KeyPressEvent) -> None:
            self.scroll_log(-1)

        @kb.add("pagedown", filter=on_hand)
        def _log_down(event: KeyPressEvent) -> None:
            self.scroll_log(1)

        @kb.add("f1")
        def _f1(event: KeyPressEvent) -> None:
            self.toggle_help()

        @kb.add("h", filter=has_focus(self.hand_window))
        def _h(event: KeyPressEvent) -> None:
            self.toggle_help()

        @kb.add("escape", filter=Condition(lambda: self.show_help))
        def _close_help(event: KeyPressEvent) -> None:
            self.toggle_help()

        @kb.add("r", filter=Condition(lambda: self.show_help))
        def _help_page(event: KeyPressEvent) -> None:
            self.help_page = "help" if self.help_page == "rules" else "rules"
            self.help_top = 0

        # a help taller than the screen scrolls (its last lines were cut at 60×20)
        for key, lines in (("down", 1), ("up", -1), ("pagedown", 8), ("pageup", -8),
                           ("space", 8)):
            @kb.add(key, filter=Condition(lambda: self.show_help))
            def _help_scroll(event: KeyPressEvent, lines: int = lines) -> None:
                self.scroll_help(lines)

        # any other key in the help says so on the status line (q, or a card's key, did
        # nothing without a word; on a screen too small for the board q asked to leave
        # behind the help, where the question could not be seen)
        @kb.add("<any>", filter=Condition(lambda: self.show_help) & has_focus(self.hand_window))
        def _key_in_help(event: KeyPressEvent) -> None:
            if event.key_sequence[0].key in _TERMINAL_REPORTS:
                return
            self.say(_(HELP_IS_OPEN), error=True)

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
                if self.commander.pending is not None:
                    self.execute("no")     # another card: the question is answered no
                    if i <= len(self.cards()):
                        self.pick(i - 1)
                    return
                if i <= len(self.cards()):
                    self.pick(i - 1)
                    self.say("")
                else:
                    text = reply("no-such-card", n=i, held=len(self.cards()))
                    self.say(sentence(text), error=True)

        @kb.add("left", filter=on_hand)
        @kb.add("up", filter=on_hand)
        def _prev(event: KeyPressEvent) -> None:
            if self.commander.pending is not None:
                self.execute("no")
            n = len(self.cards())
            if n:
                self.pick((self.selected - 1) % n)

        @kb.add("right", filter=on_hand)
        @kb.add("down", filter=on_hand)
        def _next(event: KeyPressEvent) -> None:
            if self.commander.pending is not None:
                self.execute("no")
            n = len(self.cards())
            if n:
                self.pick((self.selected + 1) % n)

        @kb.add("t", filter=on_hand)
        def _target(event: KeyPressEvent) -> None:
            # among the sides the selected hazard can go on now, when there are any (t
            # went round to sides it could not go on, and p refused)
            opp = self._legal_targets() or self.opponents()
            now = self.current_target()
            i = opp.index(now) if now in opp else -1
            self.target_side = opp[(i + 1) % len(opp)]
            self.say(_("Target: %(name)s.") % {
                "name": side_names(self.driver.names, self.driver.seating)[self.target_side]})

        @kb.add("y", filter=on_hand)
        @kb.add("o", filter=on_hand)     # "oui": French players answer o
        @kb.add("j", filter=on_hand)     # "ja": Swedish and Afrikaans players answer j
        def _yes(event: KeyPressEvent) -> None:
            if self.agreement_asked():
                # "b again: a bot plays Bo's seat …": y answered "the key y does nothing
                # here" (y answers every other question), and the question was gone
                self.ask_agreement(str(self.confirm_agree))
            elif self.commander.pending is not None:
                self.execute("yes")
            elif phase() == EXTEND:
                self.execute("extend yes")
            else:
                # no question open (a hazard on one's side asks c or n, not y): it said
                # nothing at all, and a newcomer pressed it again and again
                self.say(unknown_key_line(event.data or "y", BOARD_LETTERS), error=True)

        @kb.add("n", filter=on_hand)
        def _no(event: KeyPressEvent) -> None:
            if self.agreement_asked():          # n takes it back, as Esc
                self.confirm_agree = self._agreement_said = None
                self.say(_("Nothing agreed: the table still waits."))
            elif self.commander.pending is not None:
                self.execute("no")
            elif phase() == EXTEND:
                self.execute("extend no")
            elif phase() == RESPOND:
                self.execute("pass")
            elif self.driver.hand_over:
                self.execute("next")       # n is next on the command line too
            else:
                self.say(unknown_key_line("n", BOARD_LETTERS), error=True)

        @kb.add("p", filter=on_hand & ~confirming)
        def _play(event: KeyPressEvent) -> None:
            self.play_selected()

        @kb.add("d", filter=on_hand & ~confirming)
        def _discard(event: KeyPressEvent) -> None:
            self.execute(f"discard {self.selected + 1}")

        @kb.add("?", filter=on_hand)
        def _why(event: KeyPressEvent) -> None:
            self.why_selected()

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
                self.execute("no")         # only y throws a safety away, never a stray Enter
            elif d.hand_over:
                self.execute("next")
            elif phase() == DRAW:
                self.execute("draw")
            elif phase() == PLAY:
                self.play_selected()
            else:
                # the extension's question or a hazard's (y or n, c or n): Enter answers
                # neither, and it said nothing
                self.say(unknown_key_line("enter", BOARD_LETTERS), error=True)

        # any other key says it does nothing (prompt_toolkit prefers a binding naming the
        # key to this one, whatever the order); the terminal's own reports stay silent
        @kb.add("<any>", filter=on_hand)
        def _unknown(event: KeyPressEvent) -> None:
            key = event.key_sequence[0].key
            if key in _TERMINAL_REPORTS or self.commander.pending is not None:
                return                     # a question on the screen stays, unanswered
            self.say(unknown_key_line(str(getattr(key, "value", key)), BOARD_LETTERS),
                     error=True)

        # a key on a screen too small for the board: it was ignored without a word (a
        # newcomer pressed n, then p, and nothing happened); q still asks, h still helps
        @kb.add("<any>", filter=has_focus(self.hand_window) & Condition(
            lambda: self.too_small() and not self.show_help and not self.confirm_quit))
        def _board_hidden(event: KeyPressEvent) -> None:
            if event.key_sequence[0].key in _TERMINAL_REPORTS:
                return
            self.say(_(BOARD_HIDDEN), error=True)

        # added last, so they win over the same keys above while the question is open
        @kb.add("y", filter=quitting)
        def _leave(event: KeyPressEvent) -> None:
            event.app.exit(result=0)

        @kb.add("n", filter=quitting)
        @kb.add("escape", filter=quitting)
        def _stay(event: KeyPressEvent) -> None:
            self.confirm_quit = False
            self.say("")

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
                if self.drop_stale_agreement():
                    self.app.invalidate()
                if self.message == _(BOARD_HIDDEN) and not self.too_small():
                    self.say("")          # the board is back: the notice has done its job
                    self.app.invalidate()
                # the hand as numbered, and "You drew …" said, as soon as the draw lands:
                # said at the next redraw, it overwrote the answer to a key pressed since
                self.sync_hand()
                now_showing = self.screen_key()
                if now_showing != shown:
                    shown = now_showing
                    self.app.invalidate()
                if d.others_pending():
                    if not getattr(d, "bot_thinking", False):
                        await asyncio.sleep(self.delay)     # the pace of the moves
                    # a bot that thinks in its own process (a plug-in, the search bot) is
                    # polled for its move, the keys answered meanwhile; the driver says
                    # who thinks, and up to how long, after a second
                    if not d.step_others() and getattr(d, "bot_thinking", False):
                        await asyncio.sleep(0.05)
                        continue
                    self.sync_hand()
                    self.app.invalidate()
                    continue
                if self.bot is not None and d.my_move() and not d.hand_over:
                    await asyncio.sleep(self.delay)
                    view = d.view()
                    if isinstance(self.bot, BotProcess):
                        # a bot in a process of its own (--auto-bot) thinks up to its
                        # time: the keys are answered meanwhile (help, the log, q)
                        action = await asyncio.to_thread(self.bot.choose, view, d.legal())
                        if moved_on(d, view):
                            continue      # the table went on meanwhile (the seat taken)
                    else:
                        action = self.bot.choose(view, d.legal())
                    self._auto_said = _("(auto) %(command)s") % {
                        "command": command_for(action, view, d.seat, d.names, self.cards())}
                    self.say(self._auto_said)
                    while self.bot_faults:      # said once: the heuristic plays on
                        spec, words = self.bot_faults.pop(0)
                        line = own_bot_failed_line(words, spec)
                        d.events.append(line)   # the log keeps it, past the next move
                        self.say(line, error=True)
                    d.submit(action)
                    self.moves += 1
                    self.app.invalidate()
                    continue
                if d.hand_over and self._hand_over_since is None and \
                        self.message == self._auto_said:
                    # compared with the line said, in the screen's language: a test of
                    # "(auto)" left "(automatique) play 3" above the French match's end
                    self.say("")
                    self.app.invalidate()
                if not d.hand_over:
                    self._hand_over_since = None
                elif self.moves_on_alone() and not d.over:
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
                self.say(_("Error: %(error)s") % {"error": error_line(exc)}, error=True)
                self.app.invalidate()
                await asyncio.sleep(0.5)

    def screen_key(self) -> tuple[object, ...]:
        """Everything the screen shows that can change without a key press. The view is
        part of it: one's own pile draw completes when the others' shares arrive, and
        changes nothing else the console watches (the screen looked hung)."""
        d = self.driver
        return (d.my_move(), d.hand_over, d.hand_no, len(d.events), d.activity(), d.view(),
                getattr(d, "move_overdue", lambda: False)(),
                getattr(d, "next_hand_move", lambda: None)())

    def _start(self) -> None:
        self._task = self.app.create_background_task(self._others())

    async def run_async(self) -> int:
        if self.lang != i18n.active().language and self.lang in i18n.LANGUAGES:
            with i18n.using(self.lang, i18n.active().bidi):
                return await self._run_async()
        return await self._run_async()

    async def _run_async(self) -> int:
        result = await self.app.run_async(pre_run=self._start)
        if isinstance(self.bot, BotProcess):
            # a bot in a process of its own (--auto-bot) may be thinking in a thread:
            # asyncio.run waited for that thread, up to the bot's whole time for a move
            # (30 s at an untimed table), with the screen already closed
            self.bot.stop()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        return result or 0

    def run(self) -> int:
        return asyncio.run(self.run_async())


#: The letters the board answers to (``Caps Lock`` turns them into ones it does not).
BOARD_LETTERS = "qbehtynpdcg"

#: Said when a key is pressed while the terminal is too small for the board.
BOARD_HIDDEN = N_("The board is hidden until the terminal is larger: no key plays meanwhile "
                  "(q leaves, h helps).")
#: Under the status of the too-small screen, when that status names keys of the board.
KEYS_WHEN_LARGER = N_("Those keys work once the terminal is larger; until then only q "
                      "(leave) and h (help) do.")

#: Key presses that are the terminal's reports, not the player's keys.
#: Said when a key that does nothing there is pressed in the help.
HELP_IS_OPEN = N_("The help is open: Esc, h or F1 closes it; r turns its page.")

_TERMINAL_REPORTS = frozenset({Keys.Ignore, Keys.SIGINT, Keys.CPRResponse,
                               Keys.Vt100MouseEvent, Keys.WindowsMouseEvent,
                               Keys.BracketedPaste, Keys.ScrollUp, Keys.ScrollDown})


#: Seconds a lone Esc waits for the rest of an escape sequence (an arrow key's "\x1b[A"
#: comes whole in one read, even over ssh; Vim's defaults.vim takes 0.1 too), and then,
#: where Esc begins an Alt-key of the command line's (Alt-b, Alt-d: Esc and the key, sent
#: in one read), for that key: prompt_toolkit's 0.5 and 1 s held Esc 1.5 s before the
#: command line closed, and the player pressed it again. The Esc bindings are not eager:
#: an eager one closed the command line at Alt-d's Esc and its d discarded a card.
ESCAPE_WAIT = 0.1
ALT_KEY_WAIT = 0.3


#: The most characters the command line holds (a command is a few words): a paste of
#: megabytes there made every key after it take seconds (its completion read it all).
COMMAND_MAX = 500


def _bounded(buffer: Buffer) -> None:
    """The command line cut to :data:`COMMAND_MAX` as it changes (a paste, a key held)."""
    if len(buffer.text) > COMMAND_MAX:
        buffer.text = buffer.text[:COMMAND_MAX]
        buffer.cursor_position = COMMAND_MAX


def ignore_mouse_reports(kb: KeyBindings) -> None:
    """Mouse reports go nowhere (the screens ask for none): a terminal left in mouse mode
    by another program still sends them, and prompt_toolkit's own handler raised on a
    malformed one ("\\x1b[1M": Esc, [, 1, M typed fast), which left the board behind
    "Press ENTER to continue..." for good."""
    @kb.add(Keys.Vt100MouseEvent, eager=True)
    @kb.add(Keys.WindowsMouseEvent, eager=True)
    def _mouse(event: KeyPressEvent) -> None:
        return


def _safe(fn: Callable[[], StyleAndTextTuples]) -> Callable[[], StyleAndTextTuples]:
    """A display function that shows its own failure instead of ending the app."""
    def wrapped() -> StyleAndTextTuples:
        try:
            return fn()
        except Exception as exc:
            return [("class:error", f"(display error: {exc})")]
    return wrapped


def _shown(fn: Callable[[], StyleAndTextTuples]) -> Callable[[], StyleAndTextTuples]:
    """``fn``'s lines as the terminal must receive them (:func:`i18n.display`): the help and
    the too-small notice went out in logical order, their Uyghur unshaped and reversed for
    the reader, under a shaped frame title and above a shaped status line."""
    def shown() -> StyleAndTextTuples:
        return [(style, "\n".join(i18n.display(line) for line in text.split("\n")))
                for style, text, *_rest in fn()]
    return shown


def safe_dim(fn: Callable[[], Dimension]) -> Callable[[], Dimension]:
    def wrapped() -> Dimension:
        try:
            return fn()
        except Exception:
            return Dimension.exact(1)
    return wrapped


def _join(lines: list[render.Line]) -> StyleAndTextTuples:
    """Lines of styled fragments as the terminal must receive them. In Uyghur each line is
    ordered as a whole, right to left (:func:`i18n.display_fragments`), every line first
    padded to the widest so that they all end at the same right edge and the columns of the
    seat rows stay aligned; ordered fragment by fragment, the top line read "Mille Bornes"
    on the left and the columns ran name, cards, state from the left."""
    widest = max((render.width(line) for line in lines), default=0)
    ordered: list[render.Line] = []
    for line in lines:
        pad = widest - render.width(line)
        shown = i18n.display_fragments(list(line) + ([("", " " * pad)] if pad > 0 else []))
        if shown is None:
            return [(style, _display_in_place(text) if text != "\n" else text)
                    for style, text in render.join_lines(lines)]
        ordered.append(shown)
    return list(render.join_lines(ordered))


def _display_in_place(text: str) -> str:
    """A fragment as the terminal shows it, the spaces at its edges kept where they are:
    they lay the line out, left to right ("Your hand  (+ playable now)"). Ordered with the
    words, a right-to-left fragment's leading spaces went to its right end, and in Uyghur
    the hand's title read glued to its note, "قولىڭىز(…"."""
    core = text.strip(" ")
    if not core:
        return text
    lead = len(text) - len(text.lstrip(" "))
    return text[:lead] + i18n.display(core) + " " * (len(text) - lead - len(core))


def run_app(driver: TableDriver, *, auto: bool = False, bot: str | None = None,
            lang: str | None = None, seed: int = 0, color: bool = True, delay: float = 0.4,
            hand_file: Path | None = None, resume_command: str | None = None) -> int:
    app = TableApp(driver, auto=auto, bot=bot, lang=lang, seed=seed, color=color, delay=delay,
                   hand_file=hand_file, resume_command=resume_command)
    try:
        rc = app.run()
    finally:
        close = getattr(app.bot, "close", None)
        if close is not None:           # a bot in a process of its own (--auto-bot)
            close()
    d = driver
    # at the terminal's width (80 in a file or a pipe)
    if not d.match.hands:       # no hand scored: no totals to speak of
        say_paragraph(no_hand_scored_line(int(getattr(d, "hand_no", 1) or 1)), sys.stdout)
        return rc
    # a match played to its end says who won, as the line mode does (it said the totals
    # alone, and the winner was on the screen just closed)
    say_paragraph(final_line(d.match, d.names, d.ended_early) if d.over else
                  ngettext("Match totals after %(n)d hand: %(totals)s",
                           "Match totals after %(n)d hands: %(totals)s",
                           len(d.match.hands))
                  % {"n": len(d.match.hands), "totals": totals_line(d.match, d.names)},
                  sys.stdout)
    return rc
