"""``millebornes lobby``: list the tables on the LAN live, as they appear and vanish."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TextIO

from p2p.net.discovery import TableChange, TableInfo, browse_tables

from . import i18n
from .args import with_defaults
from .i18n import _


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    args = with_defaults("lobby", args)
    say = out or sys.stdout
    seconds = float(args.seconds or 0)

    def show(change: TableChange, t: TableInfo) -> None:
        sign = {"added": "+", "updated": "~", "removed": "-"}[change.value]
        print(i18n.display(sign + " " + _("%(name)s %(rules)s seats %(taken)d taken, %(free)d free, host "
                             "[%(key)s]: millebornes join --peer %(address)s")
              % {"name": repr(t.name), "rules": t.rules, "taken": t.seats_taken,
                 "free": t.seats_free, "key": t.fingerprint,
                 "address": _host_port(t.endpoint)}), file=say, flush=True)

    print(i18n.display(_("tables on the LAN (Ctrl-C to stop):")), file=say)
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
