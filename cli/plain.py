"""Plain line mode: for screen readers and scripts.

Prints the log and the table (``cli.render`` lines, no colour, one card per line) every
time the human seat must act, reads one command per line from stdin (same commands as
the full-screen app), and prints the scores after every hand. With ``auto`` a heuristic
bot plays the human seat and its moves are printed. Ends with the final scores and exit
status 0; end of input leaves cleanly.

Input never waits for the player's turn: a line typed while the others play is answered
at once (look, help, rules, why; a move is refused, saying whose turn it is), and the
line mode says whose turn it is as it passes, and what else the table waits for, each
with its time limit. Scripts that pipe moves must wait for the prompt of each turn.
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import Literal, NamedTuple, TextIO

from engine import Action, HandState, IllegalAction, bot_guard
from engine.state import DRAW, OVER, RESPOND

from . import i18n, render
from .bot_process import auto_bot
from .commands import LOOK, NO, YES, Commander, Context, Outcome, is_look
from .driver import TableDriver, moved_on
from .i18n import N_, _
from .words import (
    FAST_DISCARD_HELP,
    NOT_SAVED,
    PLAIN_HELP,
    command_for,
    command_help_lines,
    final_line,
    key_lines,
    leave_question,
    move_limit_note,
    others_turn_line,
    own_bot_failed_line,
    peer_label,
    refused_line,
    reply,
    report_width,
    rules_commands,
    rules_name,
    sorry_line,
    waiting_text,
    wrap,
)

#: The longest command line read (characters); the rest of a longer line is dropped.
MAX_LINE = 4096

#: :meth:`PlainSession.read_turn`'s answer when the turn changed under the prompt.
CHANGED = "\x00changed"


#: The longest line kept from stdin (bytes); the rest of a longer line is dropped.
MAX_LINE_BYTES = 4096


class LineReader:
    """Lines typed on stdin without ever blocking the loops.

    A real file descriptor is polled with ``select`` and read with ``os.read`` into our
    own buffer (a text file's buffer would hide lines from ``select``), so nothing is
    left reading the terminal when the full-screen console takes over; other streams
    (tests) are read by a daemon thread. ``readline`` blocks, for the line mode.
    """

    def __init__(self, inp: TextIO | None = None) -> None:
        self.inp = inp if inp is not None else sys.stdin
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._buffer = b""
        self._skipping = False
        self._eof = False
        self._fd: int | None
        try:
            self._fd = self.inp.fileno()
        except (OSError, ValueError, AttributeError):
            self._fd = None
        if self._fd is None:
            threading.Thread(target=self._read_stream, daemon=True).start()

    def _read_stream(self) -> None:
        """Read lines until the end; a stream that fails to read (a closed terminal, a
        capture refusing reads) has ended, as at end of file, rather than raising in a
        thread nobody joins."""
        try:
            while True:
                line = self.inp.readline(MAX_LINE_BYTES)
                if not line:
                    break
                if not line.endswith("\n"):
                    while True:     # the end of an over-long line: dropped
                        rest = self.inp.readline(MAX_LINE_BYTES)
                        if not rest or rest.endswith("\n"):
                            break
                self._lines.put(line.rstrip("\r\n"))
        except (OSError, ValueError, UnicodeDecodeError):
            pass
        finally:
            self._lines.put(None)

    def _fill(self, timeout: float) -> None:
        assert self._fd is not None
        try:
            ready, _, _ = select.select([self._fd], [], [], timeout)
        except (OSError, ValueError):
            ready = []
        if not ready:
            return
        try:
            chunk = os.read(self._fd, 4096)
        except OSError:
            chunk = b""
        if not chunk:
            if self._buffer:
                self._lines.put(self._buffer.decode(errors="replace"))
                self._buffer = b""
            self._lines.put(None)
            self._eof = True
            return
        if self._skipping:
            # the end of an over-long line: dropped up to its newline
            nl = chunk.find(b"\n")
            if nl < 0:
                return
            chunk, self._skipping = chunk[nl:], False
        self._buffer += chunk
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            self._lines.put(line.decode(errors="replace").rstrip("\r"))
        if len(self._buffer) > MAX_LINE_BYTES:
            # no newline in sight: keep a command's worth, never a growing buffer
            self._buffer, self._skipping = self._buffer[:MAX_LINE_BYTES], True

    def get(self, timeout: float = 0.0) -> str | None | Literal[False]:
        """A line, None at end of input (then always), False when nothing was typed
        within ``timeout``."""
        if self._fd is not None and not self._eof and self._lines.empty():
            self._fill(timeout)
            timeout = 0.0
        try:
            line = self._lines.get(timeout=timeout) if timeout > 0 else \
                self._lines.get_nowait()
        except queue.Empty:
            return False
        if line is None:
            self._lines.put(None)          # end of input stays the end
        return line

    def readline(self, limit: int = -1) -> str:
        """A line with its newline, ``""`` at end of input (a file's ``readline``); the
        lines are already bounded (:data:`MAX_LINE_BYTES`), ``limit`` cuts them further."""
        while True:
            line = self.get(0.2)
            if line is None:
                return ""
            if isinstance(line, str):
                return (line[:limit] if limit >= 0 else line) + "\n"




LOOK_HELP = N_("  look (or Enter)  say the table and your hand again")


#: A player's connection states the line mode's opening line leaves unsaid: there and
#: answering (the help's list says them as they change)
ROUTINE_STATES = frozenset({"connected", "thinking", "waiting", "ready"})
#: Seconds a wait of a hand's set-up (the shuffle, the deal) lasts before the line mode
#: says it: each hand's start said ten lines ("Shuffling the deck: waiting for Bo",
#: "… for Cy", "Dealing: waiting for Bo", …) for steps of a few milliseconds each, under
#: "Hand 2: the players shuffle and deal the cards." which says what happens; a step
#: that takes longer is said, with its limit.
SETUP_QUIET = 1.0


class TurnKey(NamedTuple):
    """Where the table stands for this player's prompt: a prompt is said again when it
    changes under it (:meth:`PlainSession.read_turn`)."""

    my_move: bool
    hand_over: bool
    hand_no: int
    over: bool
    watching: str | None


class PlainSession:
    """The line mode's loop. Input is read without blocking the table: while the others
    play, a line is answered at once (look, help, rules, why; a move is refused, saying
    whose turn it is), never kept to be played later against a hand that has changed
    (``discard 1`` typed early threw away the card drawn next, unseen)."""

    def __init__(self, driver: TableDriver, *, auto: bool = False, bot: str | None = None,
                 lang: str | None = None, seed: int = 0, out: TextIO | None = None,
                 inp: TextIO | None = None) -> None:
        self.driver = driver
        self.auto = auto
        #: what the seat's bot (``--auto-bot``, one in a process of its own) failed with,
        #: said after its move (told from the thread that asked it)
        self.bot_faults: list[tuple[str, str]] = []
        self.lang = lang
        self.out = out or sys.stdout
        source = inp if inp is not None else sys.stdin
        self.reader: LineReader = source if isinstance(source, LineReader) or hasattr(
            source, "get") else LineReader(source)  # type: ignore[assignment]
        self.commander = Commander(extra=LOOK[:1])    # look: a typo of it is guessed too
        self.bot = auto_bot(bot, seed * 7919 + 5, getattr(driver, "decision_limit", None),
                            lambda spec, words: self.bot_faults.append((spec, words)),
                            getattr(driver, "seat", None)) if auto else None
        self.shown = 0
        self.last_activity: str | None = None
        # the waits said in this hand: each said once, not dozens of times ("Waiting for
        # Bo to help draw the next card" 37 times in one game); a wait that changes (Bo
        # slow, Bo gone) is another line
        self.waits_said: set[str] = set()
        self.waits_hand = 0
        #: a set-up wait not said yet, and since when it is seen (:data:`SETUP_QUIET`)
        self.quiet_wait: tuple[str, float] | None = None
        #: that a bot plays this player's seat was said (once, as soon as it is known)
        self.watching_said = False
        self.turn_said: object = None     # whose turn was last said
        #: the table as it stood when the console decided to ask for this player's move
        self.move_key: TurnKey | None = None
        self.eof = False
        self.asked_bot: set[int] = set()   # silent seats a new bot was asked for (--auto)
        #: Ctrl-C was pressed (read as quit: the question); a second one leaves at once
        self.ctrl_c = False
        self.asking = False                # the question before leaving is open

    def width(self) -> int:
        """The columns a line is kept within: :data:`WIDTH`, or a narrower terminal's own
        (at 40 columns the terminal cut the board mid-word: "Battle: not sta" / "rted")."""
        return report_width(self.out)

    def say(self, text: str = "") -> None:
        """Lines to the terminal, each within :meth:`width`: a longer one (an event, a
        reason in a wordy language, a board on a narrow terminal) is wrapped at spaces
        under its own indent or ``* `` (the boards are laid out to fit 80 columns)."""
        out: list[str] = []
        width = self.width()
        for line in text.split("\n"):
            if i18n.cells(line) <= width:
                out.append(line)
                continue
            body = line.lstrip(" ")
            indent = " " * (len(line) - len(body))
            if not body.startswith("* "):
                # a command and what it does stay side by side, or one under the other
                # (wrapped at spaces, "coup / pass answer a hazard" ran them together)
                out += key_lines(line, width)
                continue
            indent, body = indent + "  ", body[2:]
            first = line[:len(indent) - 2] + "* "
            wrapped = wrap(body, width, indent)
            out += [first + wrapped[0][len(indent):], *wrapped[1:]]
        self.out.write("\n".join(i18n.display(line) for line in out) + "\n")

    def say_table(self, lines: list[str]) -> None:
        """A table's lines (laid out to fit :meth:`width`) as one block: in Uyghur every
        row is laid out right to left, a row of Latin alone too. Said line by line, the
        score sheet's "Coup fourré  300  0" (the French term, kept in Uyghur) read left to
        right, its name on the left, under rows read from the right, names on the right."""
        self.out.write("".join(line + "\n" for line in i18n.display_paragraph(lines)))

    def flush_events(self) -> None:
        events = self.driver.events
        for line in events[self.shown:]:
            self.say("* " + line)
        self.shown = len(events)

    def watching(self) -> str | None:
        """Why this seat cannot move at all (a bot took it by agreement), or None."""
        return getattr(self.driver, "watching", lambda: None)()

    def context(self) -> Context:
        d = self.driver
        return Context(d.view(), d.seat, d.legal(), d.names, self.lang, d.hand_over, d.over,
                       watching=self.watching(),
                       paused=getattr(d, "paused_on", lambda: None)())

    def _get(self, timeout: float) -> str | None | Literal[False]:
        """A line, None at the end of input, False when none came within ``timeout``."""
        if self.ctrl_c and not self.asking:
            # before the end of input: a watcher whose input ended (--auto, a pipe) that
            # pressed Ctrl-C was never asked and played on to the end of the match
            self.out.write("\n")            # after the terminal's ^C, on a line of its own
            return "quit"
        if self.eof:
            time.sleep(timeout)
            return None
        line = self.reader.get(timeout)
        if line is None:
            self.eof = True
        return line[:MAX_LINE] if isinstance(line, str) else line

    def read(self) -> str | None:
        """A line typed (waiting as long as it takes: a question was asked)."""
        self.out.write("> ")
        self.out.flush()
        while True:
            line = self._get(0.2)
            if line is None or isinstance(line, str):
                return line

    def _turn_key(self) -> TurnKey:
        d = self.driver
        return TurnKey(d.my_move(), d.hand_over, d.hand_no, d.over, self.watching())

    def read_turn(self, key: TurnKey | None = None) -> str | None:
        """A line typed at this player's prompt, or :data:`CHANGED` when the table moved
        on under it (a bot took the seat, the hand was voided): the prompt is then said
        again as it now stands, and nothing typed before is played against it.

        ``key``: where the table stood when the console decided to ask (see
        :meth:`_turn_key`). Taken here, after the board was said, it could already be
        the moved-on table's: a resumed player's prompt for the move he had left was
        said, a bot took his seat meanwhile, and the key then taken never changed
        again (nothing is collected while the prompt waits): the console waited at that
        prompt for ever, never saying he was watching (CI, 2026-12-06)."""
        if key is None:
            key = self._turn_key()
        self.out.write("> ")
        self.out.flush()
        while True:
            line = self._get(0.1)
            if line is None or isinstance(line, str):
                return line
            if self._turn_key() != key:
                self.out.write("\n")
                return CHANGED

    def show_scores(self) -> None:
        d = self.driver
        scores = d.last_scores()
        if scores is not None:
            self.say("")
            self.say_table(render.plain(render.score_lines(scores, d.match, d.names,
                                                           d.hand_no, width=self.width(),
                                                           notes=True)))
        self.say("")
        for line in render.plain(render.match_lines(d.match, d.names, verbose=True)):
            self.say(line)

    def run(self) -> int:
        try:
            with self._ctrl_c_asks():
                if self.lang != i18n.active().language and self.lang in i18n.LANGUAGES:
                    with i18n.using(self.lang, i18n.active().bidi):
                        return self._run()
                return self._run()
        finally:
            close = getattr(self.bot, "close", None)
            if close is not None:       # a bot in a process of its own (--auto-bot)
                close()

    @contextlib.contextmanager
    def _ctrl_c_asks(self) -> Iterator[None]:
        """Ctrl-C asks before leaving, as the full screen does: the first is read as
        ``quit`` (the question: y leave · n stay), a second one before the answer leaves
        at once (KeyboardInterrupt, said with the game's resume line). It left at once: a
        newcomer who pressed it by reflex lost the table. Only where Ctrl-C is Python's
        default (the main thread, not ignored by a shell's background job)."""
        def take() -> bool:
            if self.ctrl_c or self.asking:   # Ctrl-C at the question: leave, as y does
                return False
            self.ctrl_c = True
            return True

        if threading.current_thread() is not threading.main_thread():
            yield
        elif bot_guard.counting():
            # SIGINTs are counted (a plug-in's own KeyboardInterrupt is its fault): the
            # counter asks this session first
            before = bot_guard.taking_interrupts(take)
            try:
                yield
            finally:
                bot_guard.taking_interrupts(before)
        elif signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            def ctrl_c(signum: int, frame: object) -> None:
                if not take():
                    raise KeyboardInterrupt

            signal.signal(signal.SIGINT, ctrl_c)
            try:
                yield
            finally:
                signal.signal(signal.SIGINT, signal.default_int_handler)
        else:
            yield

    def _run(self) -> int:
        d = self.driver
        levels = getattr(d, "bot_levels", None) or {}
        # a player's passing state is no news in the opening line: "Ann (thinking)" was
        # said to a joiner while Bot1 was to play first (Ann's computer dealt a card)
        seats = i18n.join_list(_("you") if p.kind == "you" and p.name == "You" else
                          p.name if p.kind == "peer" and p.state in ROUTINE_STATES else
                          peer_label(p.name, p.kind, p.state, levels.get(p.seat))
                          for p in d.peers())
        for line in i18n.wrap(_("Mille Bornes, %(rules)s: %(seats)s. Type help for the "
                                "commands.") % {"rules": rules_name(d.rules.preset),
                                                "seats": seats}, self.width()):
            self.say(line)
        while True:
            while d.others_pending():
                if not self._step_others():
                    # a network table waits: say what for (whose turn, a player who left,
                    # a slow peer, the shuffle), once each time it changes
                    self.flush_events()
                    self.show_turn()
                    self.show_activity()
                # what is typed meanwhile is answered at once, also while the others'
                # moves follow one another without a pause (bots; a seat being watched)
                if self._between_moves(0.0) is False:
                    return 0
            self.flush_events()
            self.say_watching()
            if d.hand_over:
                self.show_scores()
                if d.over:
                    self.say(final_line(d.match, d.names, d.ended_early))
                    self.out.flush()
                    return 0
                if self.auto or self.watching():
                    # a spectator, or a player whose seat a bot plays, reads no scores
                    # before the next hand: the table has gone on without them. What is
                    # typed meanwhile is answered at each hand's end: a console behind a
                    # fast table said every hand it missed, reading nothing, and a line
                    # typed then went unanswered if the match ended first
                    if self._between_moves(0.0) is False:
                        return 0
                    d.next_hand()
                    continue
                self.say(_("Press Enter (or type next) for hand %(hand)d.")
                         % {"hand": d.hand_no + 1})
                if not self._command():
                    return 0
                continue
            turn = self._turn_key()     # taken before the board: see read_turn
            if not turn.my_move:
                # Nothing to wait for in-process; a network driver is waiting on peers.
                self.show_turn()
                self.show_activity()
                if self._between_moves(0.05) is False:
                    return 0
                continue
            view, legal, hand_no = d.view(), d.legal(), d.hand_no
            if not legal:
                # this player's move with no move to make: a network table between two
                # states (a draw landing as the turn was read). The board said then had no
                # card marked playable under "Your turn: play or discard": read again
                if self._between_moves(0.05) is False:
                    return 0
                continue
            self.turn_said = None
            if self.bot is not None:
                # the move goes to the table first, then the board it was chosen on is
                # printed (a render is a pure function of the view): the peers play on
                # while this seat writes its lines
                action = self.bot.choose(view, legal)
                if moved_on(d, view):
                    continue     # while the bot thought (--auto-bot: up to 30 s): said next
                try:
                    d.submit(action)
                except IllegalAction:
                    if not moved_on(d, view):
                        raise
                    # the table moved on between that look and the move (a seat left, the
                    # table stopped): "R0: it is not your move" ended the session, and the
                    # line saying why the table stopped was never shown (review, stop 50)
                    continue
                self._show_board(view, legal, hand_no)
                self.say("> " + command_for(action, view, d.seat, d.names) + "   "
                         + _("(auto)"))
                while self.bot_faults:       # said once: the heuristic plays on
                    spec, words = self.bot_faults.pop(0)
                    self.say("* " + own_bot_failed_line(words, spec))
                continue
            self._show_board(view, legal, hand_no)
            limit = getattr(d, "decision_limit", None)
            if limit is not None and not self.watching():
                # a table that times moves: how long this one may take
                self.say(move_limit_note(limit))
            self.move_key = turn
            try:
                if not self._command():
                    return 0
            finally:
                self.move_key = None

    def _step_others(self) -> bool:
        """One move of the others (:meth:`TableDriver.step_others`), waited for a moment;
        a bot that thinks in its own process (a plug-in, the search bot) is waited for
        between the lines typed meanwhile, each answered at once (the driver says who
        thinks, for how long at most: :meth:`show_activity`)."""
        return self.driver.step_others(wait=0.05)

    def _show_board(self, view: HandState, legal: list[Action], hand_no: int) -> None:
        self.say("")
        for line in render.plain(render.screen_lines(view, self.driver.names,
                                                     self.driver.seat, legal, hand_no,
                                                     self.lang,
                                                     prompt=not self.watching(),
                                                     said=self.driver.said_names(),
                                                     width=self.width(),
                                                     watched=self.auto,
                                                     taken=self.watching() is not None,
                                                     match=self.driver.match)):
            self.say(line)

    def turn_text(self) -> str | None:
        """Whose turn it is when it is another player's, with the limit on their move (a
        bot's needs none), as the full screen's status line says it; None on this
        player's own move, between hands and in-process (where the bots never wait)."""
        d = self.driver
        if d.over or d.hand_over or d.my_move() or not hasattr(d, "decision_limit"):
            return None
        view = d.view()
        if view is None or getattr(d, "behind_log", lambda: False)():
            return None      # said once the view has the moves the log said (netdriver)
        if d.seat in view.actors() or view.phase == OVER:
            # this seat's own turn, the table finishing a step of it (the card it draws
            # being unlocked): its wait says that; its board says when it may play. A
            # bot's turn in the seat of a player who watches: its moves say it. A hand
            # over: its own line says so ("The hand is over." came twice, once as a turn)
            return None
        if getattr(d, "held_by", lambda: None)() is not None:
            # the table is paused on a seat that left or fell silent: its pause line says
            # so ("* Paused: Ben quit for now", then "* Ben is drawing (no time limit)."
            # read as Ben playing on); the turn is said again once the pause lifts. Only
            # a pause: a seat whose transport is gone a moment while the table still
            # waits for it (a bot thinking) kept its turn unsaid, and the turn then said
            # after that seat's own move ended it ("* Bo discarded Spare Tire." "* Bo's
            # turn (up to 30 s).", newcomer pass 21's test, 1 run in 4)
            return None
        names = getattr(d, "current_names", lambda: d.names)()
        others = [s for s in view.actors() if s != d.seat]
        is_bot = getattr(d, "is_bot", lambda s: True)
        bots = [s for s in others if is_bot(s)]
        # a wait on a bot says so ("Cy (a bot)"), unless its name does ("Ben's bot")
        # said once a turn: "Ann is drawing" stayed while Ann chose a card to play
        text = waiting_text(view, d.seat, names, self.lang, keys=False, bots=bots,
                            named_bots=[s for s in bots if names[s] == d.names[s]],
                            whole_turn=True)
        if not others:
            return text
        return others_turn_line(text, d.decision_limit,  # type: ignore[attr-defined]
                                all(is_bot(s) for s in others))

    def show_turn(self) -> None:
        """Say whose turn it is each time the turn passes to another player (the line mode
        said nothing while the others played)."""
        d = self.driver
        text = self.turn_text()
        if text is None:
            return
        view = d.view()
        key = (d.hand_no, tuple(s for s in view.actors() if s != d.seat),
               view.phase == RESPOND)
        if key == self.turn_said:
            return
        self.turn_said = key
        self.say("* " + text)
        self.out.flush()

    def _between_moves(self, timeout: float) -> bool | None:
        """A line typed while the table does not wait for this player, answered at once:
        the table and the hand (Enter, look), help, rules, why; ``bot``/``end`` while a
        seat is silent; quit; any move is refused with the reason (whose turn it is, or
        the bot that plays the seat). None when nothing was typed; False to leave."""
        d = self.driver
        silent = getattr(d, "silent", lambda: None)()
        line = self._get(timeout)
        if self.auto and silent is not None and silent in getattr(d, "broken", ()) \
                and silent not in self.asked_bot:
            # nobody at the keys, and waiting cannot bring this computer's damaged bot
            # back (it waited without end): a new bot is asked for, as a player would
            self.asked_bot.add(silent)
            answer = d.agree("bot", plain=True)  # type: ignore[attr-defined]
            if answer:
                self.say("* " + answer)
        if line is False:
            return None
        if line is None:
            if silent is not None and not self.auto and not self.watching():
                self.say(_("You left the table."))
                return False
            return None             # the end of the input is said at this player's turn
        self.flush_events()         # the answer comes after what has happened so far
        word = line.strip().lower()
        if silent is not None and word in ("b", "bot", "e", "end"):
            answer = d.agree("bot" if word in ("b", "bot") else "end", plain=True)  # type: ignore[attr-defined]
            if answer:
                self.say(answer)
            else:
                self.flush_events()     # it took effect: its event says what was agreed
            return True
        if not word or is_look(word):
            view = d.view()
            if view is not None:
                self._show_board(view, [], d.hand_no)
            self._say_waits(again=True)
            return True
        return self._answer(line)

    def _say_waits(self, again: bool = False) -> None:
        """What the table waits for, after a board said on request (the board's own last
        line says whose turn it is)."""
        watching = self.watching()
        busy = watching or self._activity_text()
        if busy and (again or busy not in self.waits_said):
            self.waits_said.add(busy)
            self.say("* " + busy)
        self.out.flush()

    def _activity_text(self) -> str | None:
        silent_words = getattr(self.driver, "silent_words", None)   # a network table
        if silent_words is None:
            return self.driver.activity()
        said: str | None = silent_words(plain=True)
        # a network table's wait in the line mode's words ("quit", not the key q)
        return said if said is not None else self.driver.activity(plain=True)  # type: ignore[call-arg]

    def say_watching(self) -> None:
        """Tell a player whose seat a bot took that they watch, once, as soon as the
        console knows it: it was said only when the table paused, and a table of bots
        that never paused said it never, over a whole match."""
        line = self.watching()
        if line and not self.watching_said:
            self.watching_said = True
            self.waits_said.add(line)
            self.say("* " + line)
            self.out.flush()

    def show_activity(self) -> None:
        """What the table waits for besides a move, said once each time it changes, and
        not again for the same wait in the same hand."""
        if self.waits_hand != self.driver.hand_no:
            self.waits_hand = self.driver.hand_no
            self.waits_said.clear()
        busy = self._activity_text()
        # what led to the wait first: the table pauses on a silent seat in another thread,
        # and "Bo stopped answering … type end" came before "Bo has gone silent" and
        # "Paused", the events read just before it had not seen them yet
        self.flush_events()
        if busy and busy != self.last_activity and busy not in self.waits_said \
                and self._setting_up_quietly(busy):
            return
        if busy and busy != self.last_activity and busy not in self.waits_said:
            self.waits_said.add(busy)
            self.say("* " + busy)
            self.out.flush()
        self.last_activity = busy

    def _setting_up_quietly(self, busy: str) -> bool:
        """Whether ``busy``, a wait of the hand's set-up, is kept unsaid a moment longer
        (:data:`SETUP_QUIET`): most such steps end in milliseconds."""
        if not getattr(self.driver, "setting_up", lambda: False)():
            self.quiet_wait = None
            return False
        now = time.monotonic()
        if self.quiet_wait is None or self.quiet_wait[0] != busy:
            self.quiet_wait = (busy, now)
        return now - self.quiet_wait[1] < SETUP_QUIET

    def _answer(self, text: str) -> bool:
        """One command line outside this player's move: answered at once; a move is
        refused with the reason it cannot be made now. False to leave."""
        out = self.commander.handle(text, self.context())
        if out.kind in ("action", "confirm", "next"):
            # a move the table does not wait for: refused, never kept for later
            self.commander.pending = None
            self.say(sorry_line(self.watching() or self._not_now(), self.driver.names))
            return True
        return out.kind == "none" or self._answer_outcome(out)

    def _not_now(self) -> str:
        view = self.driver.view()
        others = [s for s in view.actors() if s != self.driver.seat] if view else []
        if len(others) == 1:
            return reply("not-your-turn", name=self.driver.names[others[0]])
        return reply("not-your-move")

    def _help(self) -> None:
        # "look" among the commands, before the note that ends the list (it came after
        # the note)
        # the commands these rules have: no "draw discard" in classic, no "extend" where
        # no trip is extended ("at 700 km: play on to 1000" was said at a 1000 km table)
        rules = self.driver.rules
        lines = rules_commands(_(PLAIN_HELP), rules.draw_discard, rules.extension
                               and self.driver.view().target < 1000).splitlines()
        cut = 1 + max((i for i, line in enumerate(lines) if line.startswith(" ")),
                      default=len(lines) - 1)     # after the last command
        # the note after the commands is one paragraph, wrapped as one (a translation's
        # line break left a short line in its middle on a narrow terminal)
        note = " ".join(line.strip() for line in lines[cut:])
        fast = [_(FAST_DISCARD_HELP)] if self.driver.rules.fast_play else []
        lines = [*lines[:cut], *fast, _(LOOK_HELP), *([note] if note else [])]
        width = self.width()
        self.say("\n".join(part for line in lines for part in (
            command_help_lines(line, width) if line.startswith(" ") else [line]))
                 + ("" if getattr(self.driver, "saves_game", True)
                    else "\n" + _(NOT_SAVED)))

    def _command(self) -> bool:
        """Read and carry out one command; False to leave (quit or end of input). Returns
        (True) without a move when the table moved on under the prompt."""
        d = self.driver
        while True:
            text = self.read_turn(self.move_key)
            if text is None:
                self.say("")
                self.say(_("End of input: leaving the table."))
                return False
            if text == CHANGED:
                self.flush_events()
                return True
            if text and not text.strip() and d.my_move() and d.view().phase == DRAW:
                text = "draw"       # the prompt says "draw (space; draw)": space, Enter
            if is_look(text) or (not text.strip() and d.my_move()):
                # the table and the hand said again: a screen reader's user cannot scroll
                # back to them ("board", "hand" were unknown commands; Enter said nothing)
                self._show_board(d.view(), d.legal(), d.hand_no)
                continue
            if not (d.my_move() or d.hand_over):
                # the table moved on while the line was typed: not played against it
                if not self._answer(text):
                    return False
                return True
            out = self.commander.handle(text, self.context())
            if out.kind == "none":
                continue
            if out.kind in ("quit", "help", "message", "rules", "error"):
                if not self._answer_outcome(out):
                    return False
                continue
            if out.kind == "confirm":
                self.say(out.text)
                continue
            if out.kind == "next":
                d.next_hand()
                return True
            assert out.action is not None
            try:
                d.submit(out.action)
            except (IllegalAction, ValueError) as exc:
                # said as every other refusal (a network race: the table refused a move
                # the board showed as legal, in the engine's raw English)
                self.say(sorry_line(refused_line(str(exc), d.names), d.names))
                continue
            return True

    def _answer_outcome(self, out: Outcome) -> bool:
        """Say a command's answer that is not a move; False to leave."""
        kind, text = out.kind, out.text
        if kind == "quit":
            if not self._leave_confirmed():
                return True
            if not getattr(self.driver, "saves_game", True):
                self.say(_("You left the table."))
            return False
        if kind == "help":
            self._help()
        elif kind == "error":
            self.say(sorry_line(text, self.driver.names))
        else:
            self.say(text)
        return True

    def _leave_confirmed(self) -> bool:
        """``quit`` asks first, as the full screen does (one slip of a typed q ended an
        unsaved game at once); yes or the end of the input leaves, no stays."""
        d = self.driver
        self.say(leave_question(bool(getattr(d, "saves_game", True)), d.over))
        self.asking = True
        try:
            return self._leave_answer()
        finally:
            self.asking = self.ctrl_c = False

    def _leave_answer(self) -> bool:
        d = self.driver
        while True:
            answer = self.read()
            if answer is None:
                self.say("")
                return True
            word = answer.strip().lower()
            if word in YES or word in ("q", "quit"):
                return True
            if word in NO or not word:
                self.say(_("You stay at the table."))
                view = d.view()
                if d.my_move() and not d.over and not d.hand_over and view is not None \
                        and self.watching() is None:
                    # the move asked for, again: a bare "> " came back after "n" (and
                    # after a Ctrl-C answered n), and a newcomer wondered what it waited for
                    self.say(waiting_text(view, d.seat, d.names, self.lang, keys=False))
                return False
            self.say(leave_question(bool(getattr(d, "saves_game", True)), d.over))


def run_plain(driver: TableDriver, *, auto: bool = False, bot: str | None = None,
              lang: str | None = None, seed: int = 0, out: TextIO | None = None,
              inp: TextIO | None = None) -> int:
    return PlainSession(driver, auto=auto, bot=bot, lang=lang, seed=seed, out=out,
                        inp=inp).run()
