"""Who is a bot, after `resume`: a joiner's resume listed the host's bots as "Bot1
(connected)" (it knew its own bots only), and a player whose seat a bot took by the
others' agreement was listed as "Binh (you)" while the bot played it (newcomer pass 26's
report, left to the main session)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from cli import seats


def _start(bots: list[int]) -> Any:
    from engine import Seating, preset
    from p2p.table.memory import make_table

    cfg, _ids = make_table(preset("classic"), Seating.solo(3), ["Anna", "Bot1", "Binh"],
                           b"bot-seats-table")
    return SimpleNamespace(cfg=cfg, seat=2, endpoints={}, bots=bots, alternatives={})


def test_a_seats_store_keeps_which_seats_bots_play_and_resume_reads_them(
        tmp_path: Path) -> None:
    args = SimpleNamespace(data_dir=str(tmp_path), bind=None, identity=None)
    store = seats.my_store(_start([1]), SimpleNamespace(port=1), args)  # type: ignore[arg-type]
    store.close()
    assert seats.stored_bot_seats(store.path, 3) == [1]
    assert seats.stored_bot_seats(store.path, 1) == []          # not a seat of that table
    assert seats.stored_bot_seats(tmp_path / "nowhere", 3) == []


def test_a_damaged_list_of_bot_seats_names_no_seat(tmp_path: Path) -> None:
    from p2p.table.store import Store

    start = _start([])
    for stored, seen in [([1, "2", -1, 7, True, 2.0, 2], [1, 2]), ("1", []), (None, []),
                         ({"1": 1}, [])]:
        store = Store.create(tmp_path / repr(stored)[:20].replace("/", "_"),
                             start.cfg.header(), 2, port=0,
                             extra={seats.BOT_SEATS: stored})
        store.close()
        assert seats.stored_bot_seats(store.path, 3) == seen, stored


def test_the_roster_lists_bots_a_resumed_seat_learned_of_and_its_own_seat_taken() -> None:
    """A resumed driver knows the seats bots took by agreement from its stored log (their
    events came before it was made), and its own seat, taken, is the bot's."""
    from cli.netdriver import NetDriver
    from p2p.transcript.agreement import Takeover

    taken = [Takeover(seat=s, hand=h, runner=1, key=bytes(32), endpoint="", curve=None,
                      signers=(1,)) for s, h in ((0, 0), (2, 1))]
    players = [SimpleNamespace(seat=s, name=n, status="connected", writing=False)
               for s, n in enumerate(["Anna", "Bot1", "Binh"])]
    d = object.__new__(NetDriver)
    d.peer = SimpleNamespace(peers=lambda: players, finished=False,  # type: ignore[assignment]
                             takeovers=taken)
    d.seat = 2
    d.bots = {1} | {t.seat for t in taken}
    kinds = {p.seat: p.kind for p in d.peers()}
    assert kinds == {0: "bot", 1: "bot", 2: "bot"}, kinds
    d.peer.takeovers = taken[:1]
    d.bots = {1, 0}
    assert {p.seat: p.kind for p in d.peers()} == {0: "bot", 1: "bot", 2: "you"}
