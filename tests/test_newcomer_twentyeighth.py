"""The twenty-eighth first-time-player pass: what the twenty-seventh left.

Played at 80×24, 60×20 and 120×40, in English, French and Swedish, the full screen and
the line mode, against bots and between two terminals.

1. `play --auto --lang fr` (a bot plays the seat, the player watches) ended the match with
   "(automatique) play 3" still above "Partie finie : Cy gagne.": the bot's last move of a
   hand over was cleared by an English test of the status ("(auto)"), in English alone.
"""

from __future__ import annotations

import asyncio

import pytest
from cli_helpers import run_headless, until
from prompt_toolkit.input.base import PipeInput
from test_cli_app import NAMES

from cli.app import TableApp
from cli.driver import LocalDriver
from engine import Seating, preset

# ----- 1. a watcher's last automatic move is not left above the match's end -----


@pytest.mark.parametrize("lang, over", [("en", "Match over"), ("fr", "Partie finie"),
                                        ("sv", "Matchen är slut")])
def test_a_watchers_last_move_goes_when_the_match_is_over_in_every_language(
        lang: str, over: str) -> None:
    d = LocalDriver(preset("modern"), Seating.solo(2), NAMES[:2], seed=3)
    seen: list[list[str]] = []

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.over, 60)
        await asyncio.sleep(0.3)
        seen.append(app.status_lines())
        inp.send_text("q")

    run_headless(lambda inp, out: TableApp(d, input=inp, output=out, delay=0, auto=True,
                                           lang=lang), script)
    [lines] = seen
    assert over in lines[0], (lang, lines)
    assert not any("auto" in line for line in lines), (lang, lines)
