"""``millebornes help [VERB]``: the usage, as ``--help`` shows it (a newcomer typed
``millebornes help`` and was answered "invalid choice")."""

from __future__ import annotations

import argparse

from .args import build_parser


def run(args: argparse.Namespace) -> int:
    parser, verbs = build_parser()
    topic = getattr(args, "topic", None)
    (verbs[topic] if topic else parser).print_help()
    return 0
