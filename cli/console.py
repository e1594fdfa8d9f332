"""Which console shows a table: full screen on a terminal, the line mode otherwise.

Every verb that seats a person (``play``, ``host``, ``join``, ``resume``) hands its
:class:`cli.driver.TableDriver` (local or networked) to :func:`run_console`; the two
consoles never know where the table runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from . import i18n
from .args import auto_flags, move_delay, plain_wanted, resume_flags, use_color
from .driver import TableDriver
from .hand_order import HAND_ORDER_FILE
from .i18n import _
from .plain import run_plain
from .program import as_typed


def run_console(driver: TableDriver, args: argparse.Namespace, *, seed: int = 0,
                out: TextIO | None = None, inp: TextIO | None = None,
                delay: float | None = None, table_dir: Path | None = None) -> int:
    """Full screen when stdin and stdout are a terminal (and no ``--plain``), else the
    line mode on ``out``/``inp``. ``table_dir``: the saved game's folder, where the full
    screen keeps the order of the hand for ``resume`` (the line mode numbers the cards
    in the engine's order, which the game itself restores)."""
    bot = getattr(args, "auto_bot", None)      # --auto-bot SPEC: --auto with that bot
    auto = bool(getattr(args, "auto", False)) or bot is not None
    lang = str(getattr(args, "lang", None) or "en")
    tty = out is None and inp is None and sys.stdin.isatty() and sys.stdout.isatty()
    if plain_wanted(args) or not tty:
        if not plain_wanted(args) and out is None:
            print(i18n.display(_("millebornes %(verb)s: not a terminal, using --plain line "
                                 "mode") % {"verb": args.verb}), file=sys.stderr)
        return run_plain(driver, auto=auto, bot=bot, lang=lang, seed=seed, out=out, inp=inp)
    from .app import run_app  # prompt_toolkit only for the full screen (see test_imports)

    return run_app(driver, auto=auto, bot=bot, lang=lang, seed=seed, color=use_color(args),
                   delay=move_delay(auto) if delay is None else delay,
                   hand_file=None if table_dir is None else table_dir / HAND_ORDER_FILE,
                   resume_command=None if table_dir is None else as_typed(
                       f"millebornes resume {table_dir.name[:8]}{resume_flags(args)[0]}"
                       f" --plain{auto_flags(args)}"))
