"""``millebornes replay TRANSCRIPT``: not available yet."""

from __future__ import annotations

import argparse
import sys


def run_replay(args: argparse.Namespace) -> int:
    print(f"millebornes replay: cannot replay {args.transcript!r} yet: game transcripts come "
          "with the fair-deck (peer-to-peer) release. Meanwhile `millebornes play --auto` "
          "shows a whole match.", file=sys.stderr)
    return 2
