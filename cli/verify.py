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
from .args import with_defaults
from .games import own_seat, transcript_of
from .i18n import _
from .words import file_refusal, report_width, say_paragraph, verify_lines


def run(args: argparse.Namespace) -> int:
    args = with_defaults("verify", args)
    path = transcript_of(args.transcript, args)
    # a message naming a path stays one line (a path is not cut: it is copied, grepped)
    if not os.path.lexists(path):
        # and what verify takes ("no such file" alone, to a newcomer guessing at a name)
        print(i18n.display(_("millebornes verify: no such file: %(path)s; give a game's "
                             "transcript (a .mbt file) or its short id from `millebornes "
                             "games`") % {"path": path}), file=sys.stderr)
        return 2
    if unreadable_path(path, "verify"):
        return 2
    if not os.path.isfile(path):
        print(i18n.display(_("millebornes verify: %(path)s is not a file: give one transcript "
                             "(a .mbt file) or a short id from `millebornes games`")
                           % {"path": path}), file=sys.stderr)
        return 2
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
