"""The sixteenth first-time-player pass: what a newcomer typed, read or saw and wondered.

A card refused while nothing could be played: the reason the player asked for was cut to
its first letter ("Out of Gas cannot be played now: B… (all of it in the log)"), the
status keeping the same reason once more on the line below. y, o, j and n with no
question open said nothing at all.
"""

from __future__ import annotations

import pytest
from cli_helpers import run_headless, until
from prompt_toolkit.input.base import PipeInput

from cli import i18n, render
from cli.app import TableApp
from cli.driver import LocalDriver
from cli.words import stuck_reason
from engine import Seating, preset


def _stuck(seed: int = 4) -> LocalDriver:
    """Seed 4 deals the human no Roll and no Right of Way: nothing to play at once."""
    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=seed)
    d.run_others()
    assert render.nothing_to_play(d.view(), 0, d.legal()), "seed 4: nothing to play"
    return d


def _flat(lines: list[str]) -> str:
    return " ".join(" ".join(lines).split())


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_card_refused_while_nothing_can_be_played_is_said_whole(lang: str) -> None:
    """p on each card of a hand with nothing playable: the refusal is said whole in the
    status, and whose turn it is under it (the why beside "Nothing to play" gives way)."""
    d = _stuck()
    seen: list[str] = []

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move())
        for n in range(len(app.cards())):
            inp.send_text(f"{n + 1}p")
            await until(lambda: bool(app.message))
            lines = app.status_lines()
            shown = _flat(lines)
            seen.append(shown)
            assert "…" not in shown, shown
            assert _flat([app.message]) in shown, shown
            assert len(lines) <= 4, lines
            why = stuck_reason(d.view(), 0, d.names)
            assert why is not None and shown.count(_flat([why])) <= 1, shown
            app.say("")
        inp.send_text("q")
        await until(lambda: app.confirm_quit)
        inp.send_text("y")

    with i18n.using(lang):
        assert run_headless(
            lambda inp, out: TableApp(d, input=inp, output=out, delay=0),  # type: ignore[arg-type]
            script) == 0
    nothing = "Nothing to play" if lang == "en" else "Rien à jouer"
    assert seen and all(nothing in s for s in seen), seen


@pytest.mark.parametrize("lang, keys", [("en", "yn"), ("fr", "on"), ("sv", "jn")])
def test_yes_and_no_with_no_question_open_say_they_do_nothing(lang: str, keys: str) -> None:
    """y (o, j) and n in one's own turn, with no question open, said nothing at all."""
    d = _stuck()

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move())
        for key in keys:
            app.say("")
            inp.send_text(key)
            await until(lambda: bool(app.message))
            assert f" {key} " in f" {app.message} ", app.message
            assert d.my_move() and not app.confirm_quit
        inp.send_text("q")
        await until(lambda: app.confirm_quit)
        inp.send_text("y")

    with i18n.using(lang):
        assert run_headless(
            lambda inp, out: TableApp(d, input=inp, output=out, delay=0),  # type: ignore[arg-type]
            script) == 0
