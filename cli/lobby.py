"""``millebornes lobby``: list the tables on the LAN live, as they appear and vanish."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from typing import TextIO

from p2p.net.discovery import (
    MAX_TABLES,
    MAX_TABLES_PER_ADDRESS,
    TableChange,
    TableInfo,
    browse_tables,
)

from . import i18n
from .args import with_defaults
from .commands import ALIASES, typed_verbs
from .i18n import _, ngettext
from .plain import LineReader
from .program import program_name
from .words import (
    Command,
    announced_rules,
    command_lines,
    say_paragraph,
    table_label,
    wrap,
)

#: Seconds between two lines about the same table when only its details changed: a
#: machine changing its records all the time must not scroll the other tables away.
UPDATE_EVERY = 5.0
#: Seconds between two looks at what changed.
FLUSH_EVERY = 0.5
#: Seconds with no table listed before the lobby says so (once).
NONE_YET_AFTER = 5.0


def run(args: argparse.Namespace, out: TextIO | None = None, inp: TextIO | None = None) -> int:
    """``inp``: what the player types (default: the terminal, when stdin is one); the
    list answers each line (a newcomer typed "join" under a table and nothing came), and
    q, quit or exit leaves it."""
    args = with_defaults("lobby", args)
    say = out or sys.stdout
    if inp is None and _is_terminal(sys.stdin):
        inp = sys.stdin
    typed = _Typed(inp)
    seconds = float(args.seconds or 0)
    lock = threading.Lock()
    pending: dict[str, tuple[TableChange, TableInfo]] = {}   # the latest change per table
    shown: dict[str, tuple[str, float]] = {}                  # the line shown, and when
    gone: dict[str, float] = {}                               # when a listed table went

    def seen(change: TableChange, t: TableInfo) -> None:      # zeroconf's thread
        with lock:
            before = pending.get(t.service_name)
            if before is not None and before[0] is TableChange.ADDED \
                    and change is TableChange.UPDATED:
                change = TableChange.ADDED
            pending[t.service_name] = (change, t)

    def flush(now: float) -> None:
        with lock:
            changes = sorted(pending.items())
            pending.clear()
        for key in [k for k, at in gone.items() if now - at >= UPDATE_EVERY]:
            del gone[key]
        for key, (change, t) in changes:
            line = _line(t)
            last = shown.get(key)
            if change is not TableChange.REMOVED and last is None and key in gone:
                # back within UPDATE_EVERY s of going: listed again once that passed, if
                # still there. A table announced and withdrawn over and over said "+" and
                # "-" with its command at each look, scrolling the others away (hostile
                # pass 12)
                with lock:
                    pending.setdefault(key, (change, t))
                continue
            if change is TableChange.REMOVED and last is None:
                # never listed (it came and went between two looks): nothing to take off
                # the list. Said, a machine announcing and withdrawing tables filled the
                # screen with "- ... (no longer listed: ...)" about tables nobody saw
                # (hostile pass 12)
                continue
            if change is TableChange.UPDATED and last is not None:
                if last[0] == line:
                    continue                       # nothing a player sees changed
                if now - last[1] < UPDATE_EVERY:
                    with lock:                     # said again later, if still so
                        pending.setdefault(key, (change, t))
                    continue
            sign = {"added": "+", "updated": "~", "removed": "-"}[change.value]
            for shown_line in _said(sign, t, i18n.terminal_width(say)):
                print(i18n.display(shown_line), file=say, flush=True)
            if change is TableChange.REMOVED:
                shown.pop(key, None)
                gone[key] = now
            else:
                shown[key] = (line, now)

    said_ignored = 0

    def flush_ignored(ignored: int, now: float) -> None:
        """How many announcements are not listed (one machine announcing many tables),
        when that changes, at most every UPDATE_EVERY s: a flood hides no table silently."""
        nonlocal said_ignored
        last = shown.get("\0ignored")
        if ignored == said_ignored or (last is not None and now - last[1] < UPDATE_EVERY):
            return
        said_ignored = ignored
        shown["\0ignored"] = ("", now)
        # both limits: a flood from made-up addresses fills the list, not one address
        print(i18n.display(ngettext(
            "(%(n)d announced table not listed: at most %(all)d tables in all, %(most)d "
            "from one address)",
            "(%(n)d announced tables not listed: at most %(all)d tables in all, %(most)d "
            "from one address)",
            ignored) % {"n": ignored, "all": MAX_TABLES, "most": MAX_TABLES_PER_ADDRESS}),
            file=say, flush=True)

    said_forgotten = 0

    def flush_forgotten(forgotten: int, now: float) -> None:
        """How many changes the browser let go in a flood (more came than it can look at:
        :attr:`p2p.net.discovery.TableBrowser.forgotten`), when that grows, at most every
        UPDATE_EVERY s: the list said nothing, and a table announced meanwhile could be
        missing from it without a word (hostile pass 10)."""
        nonlocal said_forgotten
        last = shown.get("\0forgotten")
        if forgotten <= said_forgotten or (last is not None and now - last[1] < UPDATE_EVERY):
            return
        said_forgotten = forgotten
        shown["\0forgotten"] = ("", now)
        say_paragraph(ngettext(
            "(a flood of announcements: %(n)d change skipped so far, more than this list "
            "can look at; a table may show late or not at all: %(join)s --peer "
            "HOST:PORT reaches one by its address)",
            "(a flood of announcements: %(n)d changes skipped so far, more than this list "
            "can look at; a table may show late or not at all: %(join)s --peer "
            "HOST:PORT reaches one by its address)",
            forgotten) % {"n": forgotten, "join": f"{program_name()} join"}, say, flush=True)

    said_none = False

    def none_yet(now: float, started: float, end: float | None) -> None:
        """No table seen yet: said once (an empty list under its heading left a newcomer
        wondering whether the lobby worked, or what to do)."""
        nonlocal said_none
        if said_none or shown or (now - started < NONE_YET_AFTER
                                  and (end is None or now < end)):
            return
        said_none = True
        # the program as the player's shell finds it (newcomer pass 31: it was bare)
        say_paragraph(_("(no table seen yet: a table hosted on this LAN appears here as "
                        "soon as it is announced; %(host)s opens one)")
                      % {"host": f"{program_name()} host"}, say, flush=True)

    # what the signs before each table mean, and how long the list runs (a first-time
    # player read "+ 'Friday night' classic seats 1 taken" with no key to it)
    # every way out named ("Ctrl-C to stop" alone: a newcomer who typed q and Enter, or
    # Ctrl-D, did not know it would leave)
    if inp is not None:
        say_paragraph(_("Tables on the LAN for %(seconds)s s (+ appeared, ~ changed, - gone; "
                        "q and Enter, Ctrl-D or Ctrl-C leaves sooner):") % {
                            "seconds": f"{seconds:g}"} if seconds > 0
                      else _("Tables on the LAN (+ appeared, ~ changed, - gone; q and Enter, "
                             "Ctrl-D or Ctrl-C leaves the list):"), say)
    else:
        # nothing typed is read when the input is no terminal (a pipe, a file): "q and
        # Enter leaves" was said of `echo q | millebornes lobby`, which then ran on
        say_paragraph(_("Tables on the LAN for %(seconds)s s (+ appeared, ~ changed, - gone; "
                        "Ctrl-C leaves sooner):") % {"seconds": f"{seconds:g}"} if seconds > 0
                      else _("Tables on the LAN (+ appeared, ~ changed, - gone; Ctrl-C "
                             "leaves the list; the input is not a terminal, so nothing "
                             "typed is read: --seconds N ends the list by itself):"), say)
    with browse_tables(seen, interfaces=args.mdns) as browser:
        started = time.monotonic()
        end = started + seconds if seconds > 0 else None
        try:
            while end is None or time.monotonic() < end:
                lines = typed.take(FLUSH_EVERY if end is None else
                                   max(0.0, min(FLUSH_EVERY, end - time.monotonic())))
                for line in lines:
                    if _leaves(line):
                        return 0
                    say_paragraph(_("This list only shows the tables: to sit at one, "
                                    "leave it (q and Enter, Ctrl-D or Ctrl-C) and type the command "
                                    "under that table; %(join)s alone sits at the table it "
                                    "finds, or asks which.") % {"join": f"{program_name()} join"},
                                  say, flush=True)
                if typed.ended:
                    return 0         # Ctrl-D, or the terminal is gone: nothing more to read
                flush(time.monotonic())
                flush_ignored(browser.ignored, time.monotonic())
                # (a browser without the count, as tests' stand-ins are, forgot nothing)
                flush_forgotten(getattr(browser, "forgotten", 0), time.monotonic())
                none_yet(time.monotonic(), started, end)
        except KeyboardInterrupt:
            pass
    return 0


def _values(t: TableInfo) -> dict[str, object]:
    """A table's words: the announced rules are the preset's name and the options the
    host changed (``classic;match_target=3000``)."""
    key = t.fingerprint or "?"
    if t.fingerprint and getattr(t, "signed_seq", None) is None:
        # every host signs its record: one its key did not sign is another machine's
        # (a copy, at an address of its own) or an older release's
        key = _("%(key)s, not signed by that key") % {"key": key}
    return {"name": table_label(t.name), "rules": announced_rules(t.rules),
            "taken": t.seats_taken, "seats": t.seats_taken + t.seats_free, "key": key}


def _join_command(t: TableInfo) -> Command:
    """The command that joins ``t`` and checks its host's key. A record whose ``fp`` is
    no fingerprint (not this program's, or altered) is joined by its address alone (the
    key is shown at the join): "--peer @HOST:PORT" was refused, "not a key fingerprint"
    (hostile pass 16)."""
    key = f"{t.fingerprint}@" if t.fingerprint else ""
    return Command(f"millebornes join --peer {key}{_host_port(t.endpoint)}")


def _line(t: TableInfo) -> str:
    """What a player sees of a table, to tell whether it changed."""
    return _joinable(t) + " " + _join_command(t)


def _joinable(t: TableInfo) -> str:
    # counted by the seats taken: French agrees with them ("1 place prise sur 3", not
    # "1 places prises sur 3")
    return ngettext("%(name)s: %(rules)s, %(taken)d of %(seats)d seats taken, host "
                    "[%(key)s]; join it with:",
                    "%(name)s: %(rules)s, %(taken)d of %(seats)d seats taken, host "
                    "[%(key)s]; join it with:", t.seats_taken) % _values(t)


def _said(sign: str, t: TableInfo, width: int) -> list[str]:
    """A table as the list says it: its sign and its words, wrapped at ``width``, then
    (unless it is gone) the command that joins it, whole on lines of its own (on one line
    of some 120 columns an 80-column terminal cut it mid-word: "millebor|nes join")."""
    if sign == "-":
        text = ngettext("%(name)s: %(rules)s, %(taken)d of %(seats)d seats taken, host "
                        "[%(key)s]",
                        "%(name)s: %(rules)s, %(taken)d of %(seats)d seats taken, host "
                        "[%(key)s]", t.seats_taken) % _values(t)
        # why it went: a table whose match starts simply vanished ("-"), and a newcomer
        # watching for a seat could not tell a started match from a host who left
        text += " " + (_("(no longer listed: every seat was taken and its match has begun)")
                       if t.seats_free == 0 else
                       _("(no longer listed: its match has begun, or its host closed "
                         "the table)"))
    else:
        text = _joinable(t)
    first, *rest = wrap(text, width - 2)
    lines = [f"{sign} {first}", *("  " + line for line in rest)]
    return lines if sign == "-" else lines + command_lines(_join_command(t), width)


def _host_port(endpoint: str) -> str:
    return endpoint[len("tcp://"):] if endpoint.startswith("tcp://") else endpoint


def _is_terminal(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def _leaves(line: str) -> bool:
    """q, quit or exit, or the quit command in the player's language."""
    word = line.strip().casefold()
    return ALIASES.get(word, word) == "quit" or typed_verbs().get(word) == "quit"


class _Typed:
    """The lines typed under the list, read without blocking it (:class:`LineReader`:
    bytes from the terminal's descriptor, decoded with replacement, each line cut at
    :data:`cli.plain.MAX_LINE_BYTES`). A thread of its own iterated over ``sys.stdin``
    before: one byte that is not UTF-8 typed or pasted, where the locale decodes stdin
    strictly, ended it without a word, and q no longer left the list (hostile pass 10);
    a Ctrl-D ended it too, for good. The end of input (Ctrl-D, a terminal gone) now
    leaves the list (:attr:`ended`)."""

    #: Lines answered at most per look: a paste of a book gets one answer, not thousands.
    MOST = 20
    #: Lines read at most per look (the rest wait for the next): the list goes on.
    READ_MOST = 1000

    def __init__(self, inp: TextIO | None) -> None:
        self._reader = LineReader(inp) if inp is not None else None
        self.ended = False

    def take(self, seconds: float) -> list[str]:
        """The lines typed (at most :data:`MOST`, the rest of a burst dropped), waiting up
        to ``seconds`` for the first."""
        if self._reader is None or self.ended:
            time.sleep(seconds)
            return []
        lines: list[str] = []
        got = self._reader.get(seconds)
        for _k in range(self.READ_MOST):
            if got is False:
                break
            if got is None:
                self.ended = True
                break
            # q is taken wherever it is in a burst: past the first MOST lines it was
            # dropped with the rest, and the list went on (hostile pass 11)
            if got.strip() and (len(lines) < self.MOST or _leaves(got)):
                lines.append(got[:200])
            got = self._reader.get(0.0)
        return lines
