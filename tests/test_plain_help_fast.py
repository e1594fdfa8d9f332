"""The line mode's help at a table with fast play names the command that discards
several cards at once (R10b): it was listed nowhere (newcomer pass 26's report)."""

from __future__ import annotations

import io

import pytest

from cli import i18n


@pytest.mark.parametrize("fast", [True, False])
def test_the_line_modes_help_names_the_fast_discard_where_the_rules_have_it(
        fast: bool) -> None:
    from cli.driver import LocalDriver
    from cli.plain import run_plain
    from engine import Seating, preset

    rules = preset("classic", fast_play=True) if fast else preset("classic")
    d = LocalDriver(rules, Seating.solo(2), ["Ann", "Bo"], seed=3)
    out = io.StringIO()
    with i18n.using("en"):
        run_plain(d, out=out, inp=io.StringIO("help\n"))
    said = out.getvalue()
    assert "play N on NAME" in said, said          # the help was said
    assert ("discard N M…     fast play: discard several cards at once, then draw back "
            "up" in said) is fast, said
