"""A lobby that can never start by itself (a free seat, everyone seated ready) says what
it waits for, that the wait has no time limit, and how a bot could fill the seat; help
works in the host's lobby (it was an unknown command)."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import free_port
from test_newcomer_plain import Player


def test_a_lobby_with_a_free_seat_says_it_waits_without_limit(tmp_path: Path) -> None:
    port = free_port()
    ann = Player(["host", "--plain", "--name", "Ann", "--bind", "127.0.0.1", "--port",
                  str(port), "--no-announce", "--players", "3", "--data-dir",
                  str(tmp_path / "a"), "--identity", str(tmp_path / "a.key")], tmp_path)
    bea: Player | None = None
    try:
        ann.until("others join with")
        bea = Player(["join", "--plain", "--name", "Bea", "--peer", f"127.0.0.1:{port}",
                      "--port", str(free_port()), "--data-dir", str(tmp_path / "b"),
                      "--identity", str(tmp_path / "b.key")], tmp_path)
        ann.until(r"Waiting for 1 more player to join \(no time limit\)\. To have a bot "
                  r"play a free seat instead: quit, then host again with --bots N")
        bea.until(r"Waiting for 1 more player to join \(no time limit\)\.")
        ann.type("help")
        ann.until(r"Waiting for 1 more player to join", count=2)
        assert "unknown command 'help'" not in ann.said()
    finally:
        for p in (bea, ann):
            if p is not None:
                p.close()
