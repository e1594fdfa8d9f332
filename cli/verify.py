"""``millebornes verify GAME``: is this a fair game? A short report.

Exit 0 when everything that is there holds (a finished match, or an unfinished one that
is fair so far), 1 for a cheat or a damaged file, 2 for a usage error or a file that is
not a transcript.
"""

from __future__ import annotations

import argparse
import os
import sys

from p2p.audit import verify_game

from .args import with_defaults
from .games import transcript_of


def run(args: argparse.Namespace) -> int:
    args = with_defaults("verify", args)
    path = transcript_of(args.transcript, args)
    if not os.path.exists(path):
        print(f"millebornes verify: no such file: {path}", file=sys.stderr)
        return 2
    report = verify_game(path)
    print(report.summary())
    if not report.ok:
        print("This transcript does not prove a fair game. The entry and the seat named above "
              "are where it breaks; see docs/verify.md.", file=sys.stderr)
        return 1
    return 0
