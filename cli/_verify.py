"""``millebornes verify TRANSCRIPT``: a short report; exit 0 only when everything holds."""

from __future__ import annotations

import argparse
import os
import sys

from p2p.audit import verify_game


def run_verify(args: argparse.Namespace) -> int:
    path = args.transcript
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
