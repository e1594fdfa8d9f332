"""Plain line mode: for screen readers and scripts.

Prints the log and the table (``cli.render`` lines, no colour, one card per line) every
time the human seat must act, reads one command per line from stdin (same commands as
the full-screen app), and prints the scores after every hand. With ``auto`` a heuristic
bot plays the human seat and its moves are printed. Ends with the final scores and exit
status 0; end of input leaves cleanly.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from engine import Action, HandState, IllegalAction
from engine.bots import make_bot
from engine.state import DRAW

from . import i18n, render
from .commands import NO, YES, Commander, Context
from .driver import TableDriver
from .i18n import N_, _
from .words import (
    NOT_SAVED,
    PLAIN_HELP,
    WIDTH,
    command_for,
    final_line,
    leave_question,
    peer_label,
    rules_name,
    silent_seat_plain_line,
    sorry_line,
    with_names,
    wrap,
)

#: The longest command line read (characters); the rest of a longer line is dropped.
MAX_LINE = 4096


#: The words that say the table and the hand again (and Enter on one's turn).
LOOK = ("look", "l", "board", "hand", "status")
LOOK_HELP = N_("  look (or Enter)  say the table and your hand again")


class PlainSession:
    def __init__(self, driver: TableDriver, *, auto: bool = False, lang: str | None = None,
                 seed: int = 0, out: TextIO | None = None, inp: TextIO | None = None) -> None:
        self.driver = driver
        self.auto = auto
        self.lang = lang
        self.out = out or sys.stdout
        self.inp = inp or sys.stdin
        self.commander = Commander()
        self.bot = make_bot("heuristic", seed * 7919 + 5) if auto else None
        self.shown = 0
        self.last_activity: str | None = None

    def say(self, text: str = "") -> None:
        """Lines to the terminal, each within :data:`WIDTH`: a longer one (an event, a
        reason in a wordy language) is wrapped at spaces under its own indent or ``* ``
        (the boards are laid out to fit and pass untouched)."""
        out: list[str] = []
        for line in text.split("\n"):
            if i18n.cells(line) <= WIDTH:
                out.append(line)
                continue
            body = line.lstrip(" ")
            indent = " " * (len(line) - len(body))
            if body.startswith("* "):
                indent, body = indent + "  ", body[2:]
                first = line[:len(indent) - 2] + "* "
            else:
                first = indent
            wrapped = wrap(body, WIDTH, indent)
            out += [first + wrapped[0][len(indent):], *wrapped[1:]]
        self.out.write("\n".join(i18n.display(line) for line in out) + "\n")

    def flush_events(self) -> None:
        events = self.driver.events
        for line in events[self.shown:]:
            self.say("* " + line)
        self.shown = len(events)

    def context(self) -> Context:
        d = self.driver
        return Context(d.view(), d.seat, d.legal(), d.names, self.lang, d.hand_over, d.over)

    def read(self) -> str | None:
        self.out.write("> ")
        self.out.flush()
        line = self.inp.readline(MAX_LINE)
        if not line:
            return None
        if not line.endswith("\n"):
            # a line longer than any command: its end is read and dropped, so a pasted
            # megabyte (or a stream with no newline) never grows without bound
            while True:
                rest = self.inp.readline(MAX_LINE)
                if not rest or rest.endswith("\n"):
                    break
        return line.rstrip("\n")

    def show_scores(self) -> None:
        d = self.driver
        scores = d.last_scores()
        if scores is not None:
            self.say("")
            for line in render.plain(render.score_lines(scores, d.match, d.names, d.hand_no)):
                self.say(line)
        self.say("")
        for line in render.plain(render.match_lines(d.match, d.names, verbose=True)):
            self.say(line)

    def run(self) -> int:
        if self.lang != i18n.active().language and self.lang in i18n.LANGUAGES:
            with i18n.using(self.lang, i18n.active().bidi):
                return self._run()
        return self._run()

    def _run(self) -> int:
        d = self.driver
        seats = ", ".join(_("you") if p.kind == "you" and p.name == "You" else
                          peer_label(p.name, p.kind, p.state) for p in d.peers())
        for line in i18n.wrap(_("Mille Bornes, %(rules)s: %(seats)s. Type help for the "
                                "commands.") % {"rules": rules_name(d.rules.preset),
                                                "seats": seats}, WIDTH):
            self.say(line)
        while True:
            while d.others_pending():
                if not d.step_others(wait=0.05):
                    # a network table waits: say what for (a player who left, a slow
                    # peer, the shuffle), once each time it changes
                    self.flush_events()
                    self.show_activity()
                    if self._silent_seat_command() is False:
                        return 0
            self.flush_events()
            if d.hand_over:
                self.show_scores()
                if d.over:
                    self.say(final_line(d.match, d.names, d.ended_early))
                    self.out.flush()
                    return 0
                if self.auto:
                    d.next_hand()
                    continue
                self.say(_("Press Enter (or type next) for hand %(hand)d.")
                         % {"hand": d.hand_no + 1})
                if not self._command():
                    return 0
                continue
            if not d.my_move():
                # Nothing to wait for in-process; a network driver is waiting on peers.
                self.show_activity()
                time.sleep(0.05)
                continue
            view, legal, hand_no = d.view(), d.legal(), d.hand_no
            if self.bot is not None:
                # the move goes to the table first, then the board it was chosen on is
                # printed (a render is a pure function of the view): the peers play on
                # while this seat writes its lines
                action = self.bot.choose(view, legal)
                try:
                    d.submit(action)
                finally:
                    self._show_board(view, legal, hand_no)
                    self.say("> " + command_for(action, view, d.seat, d.names) + "   "
                             + _("(auto)"))
                continue
            self._show_board(view, legal, hand_no)
            if not self._command():
                return 0

    def _show_board(self, view: HandState, legal: list[Action], hand_no: int) -> None:
        self.say("")
        for line in render.plain(render.screen_lines(view, self.driver.names,
                                                     self.driver.seat, legal, hand_no,
                                                     self.lang)):
            self.say(line)

    def _silent_seat_command(self) -> bool | None:
        """While a seat is silent in a network game, the player may type ``bot`` (a bot
        takes the seat from the next hand, by agreement), ``end`` (end the match, by
        agreement), ``wait`` or ``quit``. None when nothing was typed; False to leave."""
        d = self.driver
        silent = getattr(d, "silent", None)
        get = getattr(self.inp, "get", None)
        if silent is None or get is None or silent() is None:
            return None
        line = get(0.1)
        if line is False:
            return None
        if line is None and self.auto:
            return None                 # a spectator with no input waits
        if line is None or str(line).strip().lower() in ("q", "quit"):
            self.say(_("You left the table."))
            return False
        word = str(line).strip().lower()
        if word in ("b", "bot"):
            self.say(d.agree("bot"))  # type: ignore[attr-defined]
        elif word in ("e", "end"):
            self.say(d.agree("end"))  # type: ignore[attr-defined]
        elif word:
            names = d.current_names()  # type: ignore[attr-defined]
            self.say(silent_seat_plain_line(names[silent()]))
        return True

    def show_activity(self) -> None:
        busy = self.driver.activity()
        silent = getattr(self.driver, "silent", lambda: None)()
        if silent is not None:
            status = self.driver.agreement_status()  # type: ignore[attr-defined]
            names = self.driver.current_names()  # type: ignore[attr-defined]
            busy = silent_seat_plain_line(names[silent]) + (f" {status}" if status else "")
        if busy and busy != self.last_activity:
            self.say("* " + busy)
            self.out.flush()
        self.last_activity = busy

    def _command(self) -> bool:
        """Read and carry out one command; False to leave (quit or end of input)."""
        d = self.driver
        while True:
            text = self.read()
            if text is None:
                self.say("")
                self.say(_("End of input: leaving the table."))
                return False
            if text and not text.strip() and d.my_move() and d.view().phase == DRAW:
                text = "draw"       # the prompt says "draw (space; draw)": space, Enter
            if text.strip().lower() in LOOK or (not text.strip() and d.my_move()):
                # the table and the hand said again: a screen reader's user cannot scroll
                # back to them ("board", "hand" were unknown commands; Enter said nothing)
                self._show_board(d.view(), d.legal(), d.hand_no)
                continue
            out = self.commander.handle(text, self.context())
            if out.kind == "none":
                continue
            if out.kind == "quit":
                if not self._leave_confirmed():
                    continue
                if not getattr(d, "saves_game", True):
                    # a saved game's verb says "You left; the game is saved…" next
                    self.say(_("You left the table."))
                return False
            if out.kind == "help":
                # "look" among the commands, before the note that ends the list (it came
                # after the note)
                lines = _(PLAIN_HELP).splitlines()
                cut = 1 + max((i for i, line in enumerate(lines) if line.startswith(" ")),
                              default=len(lines) - 1)     # after the last command
                self.say("\n".join([*lines[:cut], _(LOOK_HELP), *lines[cut:]])
                         + ("" if getattr(self.driver, "saves_game", True)
                            else "\n" + _(NOT_SAVED)))
                continue
            if out.kind in ("message", "confirm", "rules"):
                self.say(out.text)
                continue
            if out.kind == "error":
                self.say(sorry_line(out.text))
                continue
            if out.kind == "next":
                d.next_hand()
                return True
            assert out.action is not None
            try:
                d.submit(out.action)
            except (IllegalAction, ValueError) as exc:
                self.say(sorry_line(with_names(str(exc), d.names)))
                continue
            return True


    def _leave_confirmed(self) -> bool:
        """``quit`` asks first, as the full screen does (one slip of a typed q ended an
        unsaved game at once); yes or the end of the input leaves, no stays."""
        d = self.driver
        self.say(leave_question(bool(getattr(d, "saves_game", True)), d.over))
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
                return False
            self.say(leave_question(bool(getattr(d, "saves_game", True)), d.over))


def run_plain(driver: TableDriver, *, auto: bool = False, lang: str | None = None, seed: int = 0,
              out: TextIO | None = None, inp: TextIO | None = None) -> int:
    return PlainSession(driver, auto=auto, lang=lang, seed=seed, out=out, inp=inp).run()
