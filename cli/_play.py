"""``millebornes play``: a table of the human against bots, full screen or line mode.

The table runs in-process (:class:`cli.driver.LocalDriver`); when the peer-to-peer
session is ready, a network driver implementing :class:`cli.driver.TableDriver` takes
its place and nothing else here changes.
"""

from __future__ import annotations

import argparse
import os
import random
import sys

from engine import Rules, Seating, parse_option, preset

from .driver import BOT_NAMES, LocalDriver

MAX_NAME = 12


def rules_from(args: argparse.Namespace) -> Rules:
    options = dict(parse_option(o) for o in (args.option or []))
    return preset(args.rules, **options)


def table_names(name: str | None, n: int) -> list[str]:
    """The human's name first, then bot names that no prefix of it could confuse."""
    me = (name or "You").strip()
    if not me:
        raise ValueError("--name must not be empty")
    if len(me) > MAX_NAME:
        raise ValueError(f"--name is at most {MAX_NAME} characters, not {len(me)}")
    if not all(ch.isalnum() or ch in "-_'." for ch in me):
        raise ValueError("--name takes one word (letters, digits, - _ ' .), "
                         f"not {me!r}")
    low = me.lower()
    pool = [b for b in BOT_NAMES if not (b.lower().startswith(low) or
                                         low.startswith(b.lower()))]
    pool += [f"Bot{i}" for i in range(1, 7)]
    return [me, *pool[:n - 1]]


def use_color(args: argparse.Namespace) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    return not getattr(args, "no_color", False)


def run_play(args: argparse.Namespace) -> int:
    bots = args.bots
    if not 1 <= bots <= 5:
        raise ValueError(f"--bots must be 1 to 5 (a table seats 2 to 6 players), not {bots}")
    players = 1 + bots
    seating = Seating.parse(players, args.teams)
    rules = rules_from(args)
    names = table_names(args.name, players)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    lang = args.lang or "en"
    driver = LocalDriver(rules, seating, names, seat=0, seed=seed, lang=lang)
    plain = args.plain
    if not plain and not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("millebornes play: not a terminal, using --plain line mode", file=sys.stderr)
        plain = True
    if plain:
        from .plain import run_plain
        if args.seed is None:
            print(f"(seed {seed}: --seed {seed} replays this deal)")
        return run_plain(driver, auto=args.auto, lang=lang, seed=seed)
    from .app import run_app
    return run_app(driver, auto=args.auto, lang=lang, seed=seed, color=use_color(args),
                   delay=move_delay(args.auto))


def move_delay(auto: bool) -> float:
    """Seconds between two moves of other seats: ``MILLEBORNES_DELAY`` overrides."""
    raw = os.environ.get("MILLEBORNES_DELAY")
    if raw:
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(f"MILLEBORNES_DELAY must be a number of seconds, not {raw!r}")\
                from None
        if not 0 <= value <= 10:
            raise ValueError("MILLEBORNES_DELAY must be between 0 and 10 seconds")
        return value
    return 0.25 if auto else 0.4
