"""A lobby that can never start by itself (a free seat, everyone seated ready) says what
it waits for, that the wait has no time limit, and how a bot could fill the seat; help
works in the host's lobby (it was an unknown command)."""

from __future__ import annotations

from pathlib import Path

from test_newcomer_plain import ann_hosts_and_bea_joins


def test_a_lobby_with_a_free_seat_says_it_waits_without_limit(tmp_path: Path) -> None:
    with ann_hosts_and_bea_joins(tmp_path, 3) as (ann, bea):
        ann.until(r"Waiting for 1 more player to join \(no time limit\)\. To have a bot "
                  r"play a free seat instead: quit, then host again with --bots N")
        bea.until(r"Waiting for 1 more player to join \(no time limit\)\.")
        ann.type("help")
        ann.until(r"Waiting for 1 more player to join", count=2)
        assert "unknown command 'help'" not in ann.said().lower()
