"""The full screen's order of the hand, kept beside a saved game so that ``resume`` numbers
the cards as they were.

The engine keeps a hand sorted; the full screen keeps each card's number while it stays
in the hand and puts a card drawn last, marked ``★`` (:meth:`cli.app.TableApp.sync_hand`).
A resumed game came back sorted, the numbers changed and the mark lost. The order is a
convenience, never part of the game: it is written to ``hand-order.json`` in the table's
folder (beside ``table.msgpack`` and ``transcript.mbt``) when it changes, and read back
defensively: a missing, unreadable, corrupt or stale file is ignored without a word and
the hand comes back sorted as before.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from p2p.files import write_own

#: The file's name in a table's folder.
HAND_ORDER_FILE = "hand-order.json"

#: The most of the file read (a hand is a few card ids; anything bigger is not ours).
_MAX_BYTES = 4096

log = logging.getLogger("cli.hand_order")


class SavedOrder(NamedTuple):
    """The hand as the screen numbered it: ``order`` the card ids, ``fresh`` the card just
    drawn (marked ``★``) or None."""

    order: tuple[int, ...]
    fresh: int | None


def save(path: Path, hand_no: int, seat: int, order: Sequence[int],
         fresh: int | None) -> None:
    """Write the hand's order for ``hand_no`` (atomically: a crash leaves the old file or
    the new one). Never raises: the order is a convenience, the game goes on without it."""
    data = {"format": "millebornes-hand-order", "version": 1, "hand": hand_no, "seat": seat,
            "order": list(order), "fresh": fresh}
    try:
        # a file of its own: whatever was left under the temporary name goes first (a
        # named pipe another program put there held the screen for ever, waiting for a
        # reader)
        write_own(path, json.dumps(data).encode("utf-8"))
    except (OSError, ValueError, TypeError) as exc:
        log.info("could not keep the hand's order in %s: %s", path, exc)


def load(path: Path, hand_no: int, seat: int) -> SavedOrder | None:
    """The order kept for ``hand_no`` at ``seat``, or None when there is none to trust (no
    file, another hand or seat, anything unreadable or malformed)."""
    try:
        # never waits (a named pipe put there), never follows a link, reads a regular
        # file's first bytes only
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_NOFOLLOW", 0))
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ValueError("not a regular file")
            raw = os.read(fd, _MAX_BYTES + 1)
        finally:
            os.close(fd)
        if len(raw) > _MAX_BYTES:
            raise ValueError("too large")
        data = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, RecursionError) as exc:   # missing, unreadable, not JSON
        if not isinstance(exc, FileNotFoundError):
            log.info("ignoring the hand's order in %s: %s", path, exc)
        return None
    if not isinstance(data, dict) or type(data.get("hand")) is not int \
            or type(data.get("seat")) is not int \
            or data["hand"] != hand_no or data["seat"] != seat:
        return None
    order, fresh = data.get("order"), data.get("fresh")
    if not isinstance(order, list) or not all(type(c) is int for c in order) \
            or len(set(order)) != len(order) or len(order) > 64:
        return None
    if fresh is not None and (type(fresh) is not int or fresh not in order):
        fresh = None
    return SavedOrder(tuple(order), fresh)


def restore(saved: SavedOrder | None, held: Sequence[int]) -> SavedOrder:
    """The hand ``held`` (the engine's order) numbered as ``saved`` had it: its cards still
    held keep their places, any other card goes last; the mark stays only on a hand
    unchanged since it was saved. ``saved`` None: the engine's order, no mark."""
    if saved is None:
        return SavedOrder(tuple(held), None)
    kept = [c for c in saved.order if c in held]
    new = [c for c in held if c not in kept]
    same = not new and len(kept) == len(saved.order)
    return SavedOrder((*kept, *new), saved.fresh if same else None)
