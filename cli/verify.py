"""``millebornes verify GAME``: is this a fair game? A short report.

Exit 0 when everything that is there holds (a finished match, or an unfinished one that
is fair so far), 1 for a cheat or a damaged file, 2 for a usage error or a file that is
not a transcript (or one of another format version, too large, unreadable).
"""

from __future__ import annotations

import argparse
import os
import sys

from p2p.audit import GameReport, verify_game

from . import i18n
from .args import data_dir, with_defaults
from .games import games_command, own_seat, transcript_of
from .i18n import _
from .words import (
    Command,
    file_refusal,
    report_width,
    say_paragraph,
    say_paragraphs,
    verify_lines,
)

#: From this size of a transcript on, ``verify`` and ``replay`` say that they check it
#: before they do (every signature, share and shuffle is checked: some 2 s a MB, so a
#: long six-seat match of 8 MB took 19 s, and a file at the 512 MiB a transcript may have
#: some 20 minutes, with nothing on the screen meanwhile).
SAY_CHECKING_BYTES = 2 << 20


def run(args: argparse.Namespace) -> int:
    args = with_defaults("verify", args)
    path = transcript_of(args.transcript, args)
    # a message naming a path stays one line (a path is not cut: it is copied, grepped)
    if not os.path.lexists(path):
        # and what verify takes ("no such file" alone, to a newcomer guessing at a name)
        # (the command on lines of its own: inside the sentence, a narrow terminal cut it)
        print(i18n.display(_("millebornes verify: no such file: %(path)s") % {"path": path}),
              file=sys.stderr)
        say_paragraphs([_("Give a game's transcript (a .mbt file) or its short id. This "
                          "command lists your games, each with its short id:"),
                        Command(games_command(data_dir(args)))], sys.stderr)
        return 2
    if unreadable_path(path, "verify"):
        return 2
    if not os.path.isfile(path):
        print(i18n.display(_("millebornes verify: %(path)s is not a file") % {"path": path}),
              file=sys.stderr)
        say_paragraphs([_("Give one transcript (a .mbt file) or a game's short id. This "
                          "command lists your games, each with its short id:"),
                        Command(games_command(data_dir(args)))], sys.stderr)
        return 2
    say_checking(path)
    # the proofs of shuffle are checked in worker processes beside the rest (same verdict)
    report = verify_game(path, workers=min(3, (os.cpu_count() or 1) - 1))
    if refused(report, path, "verify"):
        return 2
    # seats named as replay names them: "You" in one's own game (by its id), else "You 1"
    # within the terminal's width (at 60 the terminal cut the 80-column lines mid-word)
    width = report_width(sys.stdout)
    for line in verify_lines(report, own_seat(args.transcript, args), width):
        print(i18n.display(line))
    if report.ok or report.unfinished:
        return 0
    say_paragraph(_("This transcript does not prove a fair game: the entry and the seat named above "
           "are where it breaks (an altered copy blames nobody: ask the players for theirs)."), sys.stderr)
    return 1


def say_checking(path: str) -> None:
    """Say on stderr, before it starts, that a large transcript is being checked, with its
    size: the check takes some seconds a megabyte (hostile pass 23). A small one is
    checked in a moment, without a word."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return
    if size >= SAY_CHECKING_BYTES:
        # one line: a path is not cut (it is copied, grepped)
        print(i18n.display(_("checking %(path)s (%(size)s MB): every signature, shuffle, "
                             "card and move, which takes a while for a file this large")
                           % {"path": path, "size": f"{size / 1e6:.1f}"}),
              file=sys.stderr, flush=True)


def unreadable_path(path: str, command: str) -> bool:
    """Say so (one line on stderr) when ``path`` cannot even be looked at: a symbolic link
    that loops or leads nowhere, a folder on the way this account may not enter. For
    ``verify`` and ``replay``, which then exit 2."""
    try:
        os.stat(path)
    except OSError as exc:
        print(i18n.display(_("millebornes %(command)s: cannot read %(path)s: %(error)s")
                           % {"command": command, "path": path,
                              "error": exc.strerror or exc}), file=sys.stderr)
        return True
    return False


def refused(report: GameReport, path: str, command: str) -> bool:
    """Say so (one line on stderr) when the file named ``path`` could not be checked at
    all: not a transcript, a transcript of another format version (and what to do), too
    large, unreadable (:func:`cli.words.file_refusal`). ``verify`` and ``replay`` then
    exit 2, as for a usage error: nothing in it was checked, nobody is blamed."""
    why = file_refusal(report)
    if why is None:
        return False
    # the program and the verb, the file, then why, each colon as the language writes it
    print(i18n.display(_("%(prog)s: %(error)s") % {
        "prog": f"millebornes {command}", "error": _("%(prog)s: %(error)s") % {
            "prog": path, "error": why}}), file=sys.stderr)
    return True
