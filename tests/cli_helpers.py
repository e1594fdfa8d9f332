"""Driving a prompt_toolkit application headless: a pipe for keys, a dummy screen."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

A = TypeVar("A")


def run_headless(make_app: Callable[[PipeInput, DummyOutput], A],
                 script: Callable[[A, PipeInput], Awaitable[None]]) -> int:
    """Run ``make_app(input, output).run_async()`` while ``script`` types into it;
    ctrl-q ends the app if the script leaves it running."""
    async def go() -> int:
        with create_pipe_input() as inp:
            app: Any = make_app(inp, DummyOutput())
            task = asyncio.ensure_future(app.run_async())
            try:
                await script(app, inp)
            finally:
                if not task.done():
                    inp.send_text("\x11")  # ctrl-q
            return int(await asyncio.wait_for(task, 10))
    return asyncio.run(go())


async def until(cond: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait (inside the app's event loop) until ``cond()`` holds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.01)
