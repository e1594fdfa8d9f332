"""Two independent halves of a proof's group arithmetic at once, on two cores.

Why: a shuffle proof is hundreds of independent scalar multiplications, and libsodium runs
each with the interpreter lock released (ctypes releases it around every foreign call), so a
second thread does real work in parallel. At a table the seat proving or verifying a pass is
usually the only one busy (the others wait for its pass), so its other core is idle: one
worker thread halves the wait of every seat.

Results never depend on the threads: group arithmetic is exact, both halves always run to
the end, and the caller decides in a fixed order what an error means. Each half counts its
operations in its own :class:`~p2p.crypto.group.OpCounter`, added to the caller's afterwards
(an ``ops.var += 1`` from two threads at once could lose a count).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from p2p.crypto import group as g

A = TypeVar("A")
B = TypeVar("B")

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="proof-half")
        return _pool


def _forget_pool() -> None:
    """A forked child has no worker thread: it makes its own pool when it needs one (the
    parent's would take work that nobody ever does)."""
    global _pool, _lock
    _pool = None
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_pool)


def both(left: Callable[[g.OpCounter | None], A], right: Callable[[g.OpCounter | None], B],
         ops: g.OpCounter | None) -> tuple[A, B]:
    """``(left(ops), right(ops))``, ``left`` in the worker thread while ``right`` runs here.

    Both always finish; if either raised, ``left``'s exception is raised first (a fixed order:
    the same input gives the same error whatever the timing)."""
    ops_left = None if ops is None else g.OpCounter()
    ops_right = None if ops is None else g.OpCounter()
    future: Future[A] = _executor().submit(left, ops_left)

    def count() -> None:
        if ops is not None:
            assert ops_left is not None and ops_right is not None
            ops.__iadd__(ops_left)
            ops.__iadd__(ops_right)

    try:
        b = right(ops_right)
    except BaseException:
        try:
            future.result()  # the worker's half is done first; its error, if any, wins
        finally:
            count()
        raise
    try:
        a = future.result()
    finally:
        count()
    return a, b


def each_half(n: int, step: Callable[[int, g.OpCounter | None], None],
              ops: g.OpCounter | None) -> None:
    """``step(i, ops)`` for every ``i`` in ``range(n)``, the first half in the worker thread
    and the second here (the steps must be independent of each other)."""
    def over(lo: int, hi: int) -> Callable[[g.OpCounter | None], None]:
        def run(o: g.OpCounter | None) -> None:
            for i in range(lo, hi):
                step(i, o)
        return run

    both(over(0, n // 2), over(n // 2, n), ops)
