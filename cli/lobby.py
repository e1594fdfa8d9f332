"""``millebornes lobby``: list the tables on the LAN live, as they appear and vanish."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TextIO

from p2p.net.discovery import TableChange, TableInfo, browse_tables

from .args import with_defaults


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    args = with_defaults("lobby", args)
    say = out or sys.stdout
    seconds = float(args.seconds or 0)

    def show(change: TableChange, t: TableInfo) -> None:
        sign = {"added": "+", "updated": "~", "removed": "-"}[change.value]
        print(f"{sign} {t.name!r} {t.rules} seats {t.seats_taken} taken, {t.seats_free} free, "
              f"host [{t.fingerprint}]: millebornes join --peer {_host_port(t.endpoint)}",
              file=say, flush=True)

    print("tables on the LAN (Ctrl-C to stop):", file=say)
    with browse_tables(show, interfaces=args.mdns):
        end = time.monotonic() + seconds if seconds > 0 else None
        try:
            while end is None or time.monotonic() < end:
                time.sleep(0.2)
        except KeyboardInterrupt:
            pass
    return 0


def _host_port(endpoint: str) -> str:
    return endpoint[len("tcp://"):] if endpoint.startswith("tcp://") else endpoint
