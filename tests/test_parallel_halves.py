"""p2p.crypto.parallel: two halves of a proof's arithmetic at once, same results as in one."""

from __future__ import annotations

import os
import threading
import time

import pytest

from p2p.crypto import group as g
from p2p.crypto.parallel import both, each_half


def test_both_halves_run_and_the_left_one_in_another_thread() -> None:
    here = threading.get_ident()
    (a, ta), (b, tb) = both(lambda o: (g.base(2, o), threading.get_ident()),
                            lambda o: (g.base(3, o), threading.get_ident()), None)
    assert a == g.base(2) and b == g.base(3)
    assert ta != here and tb == here


def test_every_operation_is_counted_once() -> None:
    ops = g.OpCounter()

    def half(o: g.OpCounter | None) -> None:
        for k in range(1, 200):
            g.mul(k, g.G, o)
            g.base(k, o)

    both(half, half, ops)
    assert (ops.var, ops.base) == (2 * 199, 2 * 199)


def test_each_half_runs_every_step_once_for_any_size() -> None:
    for n in (0, 1, 2, 7, 106):
        seen: list[int] = []
        ops = g.OpCounter()

        def step(i: int, o: g.OpCounter | None, seen: list[int] = seen) -> None:
            g.base(i + 1, o)
            seen.append(i)

        each_half(n, step, ops)
        assert sorted(seen) == list(range(n)) and ops.base == n


def test_the_left_error_wins_and_both_halves_finish() -> None:
    """The same input gives the same error, whichever half fails first in time."""
    done: list[str] = []

    def slow_left(o: g.OpCounter | None) -> None:
        time.sleep(0.05)
        done.append("left")
        raise ValueError("left")

    def right(o: g.OpCounter | None) -> None:
        done.append("right")
        raise KeyError("right")

    with pytest.raises(ValueError, match="left"):
        both(slow_left, right, None)
    assert sorted(done) == ["left", "right"]
    with pytest.raises(KeyError):
        both(lambda o: 1, right, None)


def test_a_forked_child_gets_its_own_worker() -> None:
    """A child forked after the pool's thread started (the bots of `play` are forked) has
    no such thread: it must not hand work to it and wait forever."""
    both(lambda o: 1, lambda o: 2, None)   # the parent's worker exists now
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        ok = False
        try:
            ok = both(lambda o: g.base(5, o), lambda o: 2, None) == (g.base(5), 2)
        finally:
            os._exit(0 if ok else 1)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.01)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child waited for the parent's worker thread")
