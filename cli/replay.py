"""``millebornes replay GAME``: step through a verified game, every player's cards shown.

The transcript is verified first (:func:`p2p.audit.replay_steps`); of a game that stopped
(a player left) every finished hand is shown; a transcript that does not verify is not
replayed: its report is printed and the exit status is 1. A missing
file, or one that is not a transcript (or of another format version), exits 2, as with
``verify``. Full screen by default (the table's look, every player's cards face up); ``--plain``,
``MILLEBORNES_PLAIN=1`` or output that is not a terminal print every step as text lines
and the final report, then exit 0.

Keys: → space n next step, ← p previous, ] [ next/previous hand, PageDown/PageUp ten
steps, Home/End first/last step, h help, q quit.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
from typing import Any, TextIO

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
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
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame

from p2p.audit import replay_steps

from . import i18n, render
from .app import (
    _TERMINAL_REPORTS,
    ALT_KEY_WAIT,
    ESCAPE_WAIT,
    MIN_COLS,
    MIN_ROWS,
    ignore_mouse_reports,
    safe_dim,
)
from .args import data_dir, plain_wanted, resume_flags, use_color, with_defaults
from .commands import command_of
from .games import (
    _is_path,
    base_dir,
    games_command,
    own_seat,
    saved_game_at,
    transcript_of,
)
from .i18n import N_, _, ngettext
from .program import as_typed
from .replay_view import ReplayModel, all_hands_lines, step_lines
from .verify import refused, say_checking, unreadable_path
from .words import (
    Command,
    error_line,
    key_lines,
    report_width,
    say_paragraph,
    say_paragraphs,
    unknown_key_line,
    verify_lines,
    wrap,
    you_label,
)

REPLAY_HELP = N_("""\
Replay of a game: every finished hand, step by step, with every player's
cards face up.

  →  space  n     next step
  ←  p            previous step
  ]  [            next / previous hand
  PageDown PageUp ten steps forward / back
  Home  End       first / last step of the game
  h  F1           this help (Esc closes it)
  q  Ctrl-C       quit

The status line says where you are: the hand, the step (one move that
took effect) and the transcript entry that completed it, numbered as
the report of this command numbers the entries:
  %(verify)s
A card just drawn is shown reversed; ▶ marks who moves next.""")


def replay_help(verify: str | None = None) -> str:
    """The replay's help, the command it names as the player types it (a bare
    "`millebornes verify`" was "command not found" to a player of the README's quick
    start, where every other help and message names ``.venv/bin/millebornes``); ``verify``:
    the one for the game replayed (a bare "millebornes verify" reported on the newest
    game, another than the one replayed)."""
    return _(REPLAY_HELP) % {"verify": verify or as_typed("millebornes verify")}


def _resume_command(args: argparse.Namespace) -> str:
    """The command that plays on the game being replayed, with the options that find it
    ("`millebornes resume` plays on" found nothing in a game kept with --data-dir)."""
    ref = args.transcript
    ident = f" {ref[:8]}" if ref and not _is_path(ref) else ""
    game = saved_game_at(ref) if ref and _is_path(ref) else None
    if game is not None:
        # a game named by its folder (or the transcript in it): resumed by its id, in the
        # folder that holds it (a bare "resume --plain" took the newest game, another)
        ident = f" {game.short_id}"
        folder = game.path.parent
        default = folder.resolve() == base_dir(argparse.Namespace()).resolve()
        args = argparse.Namespace(**{**vars(args), "data_dir": None if default
                                     else str(folder)})
    return as_typed(f"millebornes resume{ident}{resume_flags(args)[0]}")


def _verify_command(args: argparse.Namespace, path: str) -> Command:
    """The command that reports on the game being replayed: by its id with the options
    that find it, or by its file."""
    ref = args.transcript
    if ref and not _is_path(ref):
        return Command(f"millebornes verify {ref[:8]}{resume_flags(args)[1]}")
    return Command(f"millebornes verify {shlex.quote(path)}")


def run(args: argparse.Namespace) -> int:
    args = with_defaults("replay", args)
    path = transcript_of(args.transcript, args)
    # a message naming a path stays one line (a path is not cut: it is copied, grepped)
    if not os.path.lexists(path):
        # the path on a line of its own; the commands too (inside the sentence, a narrow
        # terminal cut them)
        print(i18n.display(_("millebornes replay: no such file: %(path)s") % {"path": path}),
              file=sys.stderr)
        say_paragraphs([_("Transcripts are written by network games, and by simulate with "
                          "--fair-deck and --transcript-dir. This command lists your games, "
                          "each with its short id:"), Command(games_command(data_dir(args)))],
                       sys.stderr)
        return 2
    if unreadable_path(path, "replay"):
        return 2
    if not os.path.isfile(path):
        print(i18n.display(_("millebornes replay: %(path)s is not a file: give one transcript "
                             "(a .mbt file written by simulate --transcript-dir or a network "
                             "game)") % {"path": path}), file=sys.stderr)
        return 2
    say_checking(path)
    try:
        report, steps = replay_steps(path)
    except Exception as exc:  # the verifier should not raise; never show a traceback
        print(i18n.display(_("millebornes replay: cannot read %(path)s: %(error)s")
                           % {"path": path, "error": error_line(exc)}), file=sys.stderr)
        return 1
    if refused(report, path, "replay"):   # not a transcript, another version: as verify
        return 2
    me = own_seat(args.transcript, args)
    # the seats named as the steps name them ("You" in one's own game, else "You 1")
    summary = "\n".join(verify_lines(report, me, report_width(sys.stdout)))
    if report.unfinished and not steps:
        for line in summary.split("\n"):
            print(i18n.display(line))
        if (report.stopped_hand or 0) > 0:
            # hand 1 left without a score (a bot took a seat from hand 2): "during its
            # first hand" was said of a match the verify lines above say stopped in hand 2
            # the command on lines of its own (inside the sentence, a narrow terminal
            # cut it)
            say_paragraphs([_("millebornes replay: no hand of this match was played to "
                              "its end (it stopped in hand %(hand)d; a hand left without a "
                              "score is not shown): there is no finished hand to show yet. "
                              "This command plays on:")
                            % {"hand": (report.stopped_hand or 0) + 1},
                            Command(_resume_command(args))], sys.stderr)
            return 1
        say_paragraphs([_("millebornes replay: the match stopped during its first hand: "
                          "there is no finished hand to show yet. This command plays on:"),
                        Command(_resume_command(args))], sys.stderr)
        return 1
    if report.ok and not steps:     # ended by the players' agreement before a hand ended
        for line in summary.split("\n"):
            print(i18n.display(line))
        say_paragraph(_("millebornes replay: the match ended before any hand was finished: there is "
               "no hand to show"), sys.stderr)
        return 1
    if not steps:
        for line in summary.split("\n"):
            print(i18n.display(line))
        if report.blamed_seat is None and report.failed_index is None:
            # a damaged file names no entry nor seat ("the entry and the seat named above"
            # pointed at nothing)
            say_paragraph(_("millebornes replay: this transcript does not verify, so it is not "
                   "replayed: the file is damaged where said above. Ask the players for an "
                   "intact copy of it."), sys.stderr)
            return 1
        # the command to type for the report on a line of its own (pasted whole), the
        # program as the player's shell finds it and the game as they named it (a bare
        # "run `millebornes verify` on it")
        say_paragraphs([_("millebornes replay: this transcript does not verify, so it is "
                          "not replayed: the moves after the failure cannot be trusted. The "
                          "entry and the seat named above are where it breaks; ask the "
                          "players for an intact copy of the file. The whole report:"),
                        _verify_command(args, path)], sys.stderr)
        return 1
    # one of this player's own games: their seat is "You", as it was at the table (it
    # was "You 1" here and "You" in verify's summary)
    model = ReplayModel(steps, report.names, me, report.takeovers)
    plain = plain_wanted(args)
    if not plain and not (sys.stdin.isatty() and sys.stdout.isatty()):
        say_paragraph(_("millebornes replay: not a terminal, using --plain line mode"), sys.stderr)
        plain = True
    if plain:
        # at a terminal, hand by hand (a match of four hands poured 5000 lines at once,
        # its start far out of the terminal's memory); piped or redirected, all at once
        pager = sys.stdin if sys.stdin.isatty() and sys.stdout.isatty() else None
        try:
            return run_plain_replay(model, summary, lang=i18n.active().language,
                                    pager=pager)
        except BrokenPipeError:  # `millebornes replay --plain F | head`: the reader left
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 0
    rc = ReplayApp(model, lang=i18n.active().language, color=use_color(args),
                   verify_command=_verify_command(args, path)).run()
    print(i18n.display(summary))
    return rc


def run_plain_replay(model: ReplayModel, summary: str, out: TextIO | None = None,
                     lang: str | None = None, pager: TextIO | None = None) -> int:
    """Every step as text lines, then ``summary`` (the check's report). ``pager``: where
    the player answers between hands (a terminal's input): after each hand but the last
    the replay waits for Enter, and q (or Ctrl-D) skips to the report; ``None`` prints
    everything at once (a pipe, a file)."""
    out = out or sys.stdout
    names = i18n.join_list(you_label(n) for n in model.names)   # "Vous" as on the board
    # "1 hand, 116 steps, every hand shown": "hand" said a deal of the match and then the
    # cards held; "hand" is now only a deal, and each count has its own plural
    # Translators: a hand is one deal of the match (not the cards a player holds)
    hands = ngettext("%(n)d hand", "%(n)d hands", model.n_hands) % {"n": model.n_hands}
    # Translators: a step is one move of the replay that took effect
    steps = ngettext("%(n)d step", "%(n)d steps", len(model)) % {"n": len(model)}
    head = _("Replay of a verified game: %(names)s; %(hands)s, %(steps)s; every player's "
             "cards face up.") % {"names": names, "hands": hands, "steps": steps}
    # within 80 columns, or a narrower terminal's (at 40 the terminal cut every board line
    # mid-word: "Battle: not star" / "ted."): broken at spaces, a table between columns
    width = report_width(out)

    def write(line: str) -> None:
        out.write("".join(i18n.display(w) + "\n" for w in key_lines(line, width)))

    for line in i18n.wrap(head, width):
        write(line)
    for i in range(len(model)):
        out.write("\n")
        for line in render.plain(step_lines(model, i, lang, width)):
            write(line)
        k = model.hand_pos(i)
        if pager is not None and i + 1 == model.hand_end(k) and k + 1 < model.n_hands:
            out.write("\n")
            for line in i18n.wrap(_("End of hand %(hand)d. Press Enter for hand %(next)d, "
                                    "or q and Enter to skip to the end.")
                                  % {"hand": model.hand_no(i),
                                     "next": model.hand_no(i + 1)}, width):
                write(line)
            out.flush()
            try:
                answer = pager.readline()
            except KeyboardInterrupt:
                answer = ""
            typed = answer.split()
            # Ctrl-D, or q, quit, fr "quitter": the report
            if not answer or (typed and command_of(typed[0]) == "quit"):
                break
    out.write("\n")
    for line in summary.split("\n"):
        write(line)
    return 0


#: the replay's letter keys (a capital one asks about Caps Lock)
REPLAY_LETTERS = "qhnp"


class ReplayApp:
    """The full-screen replay: the table, every hand, the log, a status line."""

    def __init__(self, model: ReplayModel, *, lang: str | None = None, color: bool = True,
                 input: Any = None, output: Any = None,
                 verify_command: str | None = None) -> None:
        self.model = model
        self.lang = lang
        self.color = color
        self.index = 0
        self.show_help = False
        #: what the last key that means nothing here said, on the status line until the
        #: next key (a wrong key said nothing: the board's says so)
        self.notice = ""
        # the report's command names this game (a bare "verify" took the newest)
        help_window = Window(FormattedTextControl(_safe(
            lambda: [("class:help", replay_help(verify_command))])), wrap_lines=True)
        self.log_control = FormattedTextControl(_safe(self._log_fragments), focusable=True,
                                                show_cursor=False)
        body = HSplit([
            Window(FormattedTextControl(_safe(self._table_fragments)),
                   height=_safe_dim(lambda: len(self._table_lines())), wrap_lines=False),
            Window(height=1, char="─", style="class:frame"),
            Window(FormattedTextControl(_safe(self._hands_fragments)),
                   height=_safe_dim(lambda: len(self._hands_lines())), wrap_lines=False),
            Window(height=1, char="─", style="class:frame"),
            Window(self.log_control, wrap_lines=True, height=Dimension(min=1),
                   get_vertical_scroll=self._log_scroll),
            Window(FormattedTextControl(_safe(self._status_fragments)),
                   height=_safe_dim(lambda: self._status_fragments()[0][1].count("\n") + 1),
                   style="class:status"),
        ])
        small = Condition(self.too_small)
        body = HSplit([
            ConditionalContainer(body, filter=~small),
            # clipped mid-word at 60×20 ("200 km c", "the trip i"), with no word on why
            ConditionalContainer(Window(FormattedTextControl(_safe(self._too_small_fragments)),
                                        wrap_lines=False), filter=small),
        ])
        root = FloatContainer(body, floats=[
            Float(content=ConditionalContainer(Frame(help_window, title=lambda: i18n.display(_("Help"))),
                                               filter=Condition(lambda: self.show_help)),
                  top=0, bottom=1, left=0, right=0),
        ])
        self.app: Application[int] = Application(
            layout=Layout(root), key_bindings=self._bindings(), full_screen=True,
            mouse_support=False, style=Style(render.style_rules(color)),
            color_depth=None if color else ColorDepth.DEPTH_1_BIT,
            input=input, output=output)
        self.app.ttimeoutlen, self.app.timeoutlen = ESCAPE_WAIT, ALT_KEY_WAIT

    # ----- what is shown ---------------------------------------------------------------
    def status_text(self) -> str:
        return self.model.status(self.index)

    def _size(self) -> tuple[int, int]:
        try:
            size = self.app.output.get_size()
            return size.rows, size.columns
        except Exception:
            return 24, render.WIDTH

    def too_small(self) -> bool:
        rows, cols = self._size()
        return rows < MIN_ROWS or cols < MIN_COLS

    def _too_small_fragments(self) -> StyleAndTextTuples:
        rows, cols = self._size()
        text = _("The replay needs a terminal of at least %(need)s; this one is %(size)s. "
                 "Please make it larger. q leaves; replay --plain prints every step as "
                 "text, which fits any terminal.") % {
                     "need": f"{MIN_COLS}×{MIN_ROWS}", "size": f"{cols}×{rows}"}
        return [("class:title", i18n.display("Mille Bornes") + "\n\n"),
                ("", "\n".join(i18n.display(w) for w in wrap(text, max(10, cols - 1))))]

    def _table_lines(self) -> list[render.Line]:
        m = self.model
        lines = render.table_lines(m.state(self.index), m.names, None, m.hand_no(self.index),
                                   self.lang)
        block = m.score_block(self.index)
        if block:
            # at a hand's end the scores come first: on a small screen the zones give way
            needed = len(lines) + len(m.names) + len(block) + 2 + 2 + 1
            if needed > self._size()[0]:
                return lines[:1]
        return lines

    def _table_fragments(self) -> StyleAndTextTuples:
        return _join(self._table_lines())

    def _hands_lines(self) -> list[render.Line]:
        m = self.model
        i = self.index
        rows, _ = self._size()
        # two rows of four cards per seat when the screen is tall enough, else one row
        log = max(3, len(m.score_block(i)) + 2)
        tall = len(self._table_lines()) + 2 * len(m.names) + 2 + log + 1 <= rows
        return all_hands_lines(m.state(i), m.names, self.lang, self.color,
                               per_row=4 if tall else 99, before=m.before(i))

    def _hands_fragments(self) -> StyleAndTextTuples:
        return _join(self._hands_lines())

    def _log_lines(self) -> list[render.Line]:
        m = self.model
        i = self.index
        lines: list[render.Line] = []
        block = m.score_block(i)
        if block:
            lines = [[("class:turn", t)] for t in m.action_lines(i, self.lang)] + block
            return lines
        log = m.log_lines(i, self.lang, last=30)
        now = len(m.action_lines(i, self.lang))
        for j, text in enumerate(log):
            current = j >= len(log) - now
            lines.append([("class:turn" if current else "class:dim",
                           ("▶ " if current else "  ") + text)])
        waiting = render.waiting_text(m.state(i), -1, m.names, self.lang)
        lines.append([("class:dim", "  " + _("next: %(what)s") % {"what": waiting})])
        return lines

    def _log_fragments(self) -> StyleAndTextTuples:
        return _join(self._log_lines())

    def _log_scroll(self, window: Window) -> int:
        """Scores from their top; a running log scrolled to its end."""
        if self.model.score_block(self.index):
            return 0
        info = window.render_info
        height = info.window_height if info is not None else 5
        return max(0, len(self._log_lines()) - height)

    def _status_fragments(self) -> StyleAndTextTuples:
        # measured in terminal cells as shown: shaped and ordered like every other line
        # (Uyghur's replay status came in logical order, unshaped)
        _rows, cols = self._size()
        if self.notice:
            # a long one on two lines (French's Caps Lock question is 86 columns)
            lines = [i18n.display(" " + w) for w in wrap(self.notice, max(10, cols - 1))]
            return [("class:error", "\n".join(t + " " * max(0, cols - i18n.cells(t))
                                               for t in lines))]
        text = i18n.display(" " + self.status_text())
        hint = "  " + i18n.display(_("←/→ step · [/] hand · h help · q quit")) + " "
        short = "  " + i18n.display(_("h help")) + " "
        if i18n.cells(text) + i18n.cells(hint) > cols:
            hint = short if i18n.cells(text) + i18n.cells(short) <= cols else ""
        pad = max(0, cols - i18n.cells(text) - i18n.cells(hint))
        return [("class:status", text + " " * pad + hint)]

    # ----- moving ----------------------------------------------------------------------
    def go(self, i: int) -> None:
        self.notice = ""
        self.index = self.model.clamp(i)
        self.app.invalidate()

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        ignore_mouse_reports(kb)
        browsing = Condition(lambda: not self.show_help)

        @kb.add("c-c")
        @kb.add("c-q")
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit(result=0)

        @kb.add("q")
        def _q(event: KeyPressEvent) -> None:
            event.app.exit(result=0)

        @kb.add("h")
        @kb.add("f1")
        @kb.add("?")
        def _help(event: KeyPressEvent) -> None:
            self.notice = ""
            self.show_help = not self.show_help

        @kb.add("escape", filter=Condition(lambda: self.show_help))
        def _close_help(event: KeyPressEvent) -> None:
            self.show_help = False

        @kb.add("right", filter=browsing)
        @kb.add("space", filter=browsing)
        @kb.add("n", filter=browsing)
        @kb.add("enter", filter=browsing)
        def _next(event: KeyPressEvent) -> None:
            self.go(self.index + 1)

        @kb.add("left", filter=browsing)
        @kb.add("p", filter=browsing)
        @kb.add("backspace", filter=browsing)
        def _prev(event: KeyPressEvent) -> None:
            self.go(self.index - 1)

        @kb.add("]", filter=browsing)
        def _next_hand(event: KeyPressEvent) -> None:
            self.go(self.model.next_hand(self.index))

        @kb.add("[", filter=browsing)
        def _prev_hand(event: KeyPressEvent) -> None:
            self.go(self.model.prev_hand(self.index))

        @kb.add("pagedown", filter=browsing)
        def _ten_forward(event: KeyPressEvent) -> None:
            self.go(self.index + 10)

        @kb.add("pageup", filter=browsing)
        def _ten_back(event: KeyPressEvent) -> None:
            self.go(self.index - 10)

        @kb.add("home", filter=browsing)
        def _home(event: KeyPressEvent) -> None:
            self.go(0)

        @kb.add("end", filter=browsing)
        def _end(event: KeyPressEvent) -> None:
            self.go(len(self.model) - 1)

        # any other key says it does nothing (a binding naming the key wins over this one)
        @kb.add("<any>", filter=browsing)
        def _unknown(event: KeyPressEvent) -> None:
            key = event.key_sequence[0].key
            if key in _TERMINAL_REPORTS:
                return
            self.notice = unknown_key_line(str(getattr(key, "value", key)), REPLAY_LETTERS)

        return kb

    async def run_async(self) -> int:
        return (await self.app.run_async()) or 0

    def run(self) -> int:
        return asyncio.run(self.run_async())


def _safe(fn: Any) -> Any:
    """A display function that shows its own failure instead of ending the app."""
    def wrapped() -> StyleAndTextTuples:
        try:
            return fn()  # type: ignore[no-any-return]
        except Exception as exc:
            return [("class:error", f"(display error: {exc})")]
    return wrapped


def _safe_dim(rows: Any) -> Any:
    """A window height of ``rows()`` lines that never breaks the screen."""
    return safe_dim(lambda: Dimension.exact(max(1, rows())))


def _join(lines: list[render.Line]) -> StyleAndTextTuples:
    return list(render.join_lines(lines))
