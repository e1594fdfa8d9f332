"""The table's time limits are fields of the table header (issue 9, "bounded stops"):
agreed by all (the table id hashes them), shown by `verify`, used by every peer; a header
written before they were recorded stays readable under the same table id."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import msgpack
import pytest

from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import verify_game
from p2p.crypto.identity import Identity
from p2p.net.transport import Node
from p2p.table.config import DEFAULT_STEP_LIMIT, TableConfig, parse_header_bytes
from p2p.table.lobby import LobbyClient, LobbyError, LobbyHost
from p2p.table.session import Peer, SessionOptions, node_id_for
from p2p.table.store import Store
from p2p.transcript.envelope import canonical_packb
from p2p.transcript.file import Player, TranscriptHeader

ROOT = Path(__file__).resolve().parent.parent


def _cfg(**kw: Any) -> tuple[TableConfig, list[Identity]]:
    ids = [Identity.generate(), Identity.generate()]
    cfg = TableConfig(preset("classic", match_target=1), Seating.solo(2),
                      tuple(Player(i, f"p{i}", ids[i].public_key) for i in range(2)),
                      b"n" * 16, **kw)
    return cfg, ids


def test_limits_are_in_the_header_and_the_table_id() -> None:
    cfg, _ = _cfg()
    assert cfg.step_limit == DEFAULT_STEP_LIMIT == 20.0 and cfg.decision_limit is None
    header, back = parse_header_bytes(cfg.header().to_bytes())
    assert back == cfg and header.rules["limits"] == [20000, 0]
    other = dataclasses.replace(cfg, step_limit=5.0, decision_limit=90.0)
    assert other.table_id != cfg.table_id                 # every member signs for them
    assert parse_header_bytes(other.header().to_bytes())[1] == other
    assert other.limits_text() == "5 s per protocol step, 90 s per move"


def test_a_header_from_before_the_limits_stays_readable_under_its_table_id() -> None:
    cfg, _ = _cfg()
    old = dataclasses.replace(cfg, limits_recorded=False)
    raw = old.header().to_bytes()
    assert b"limits" not in raw
    header, back = parse_header_bytes(raw)
    assert back == old and back.table_id == header.table
    assert back.step_limit == DEFAULT_STEP_LIMIT and back.decision_limit is None


@pytest.mark.parametrize("limits", [[0, 0], [999, 0], [3_600_001, 0], [20000, 500],
                                    [20000, 86_400_001], [20000], "x", [1.5, 0]])
def test_a_header_with_hostile_limits_is_refused(limits: object) -> None:
    cfg, _ = _cfg()
    obj = cfg.header().to_obj()
    obj["rules"]["limits"] = limits
    with pytest.raises(ValueError):
        parse_header_bytes(canonical_packb(obj))
    with pytest.raises(ValueError):
        TableConfig.from_header(TranscriptHeader(cfg.table_id, obj["rules"], cfg.players,
                                                 cfg.cards))


def test_every_peer_stops_within_the_tables_limit(tmp_path: Path) -> None:
    """A seat that never shows up: the peer stops after the table's own 1 s limit (no
    session option says so), blaming nobody; `verify` shows the limits."""
    cfg, ids = _cfg(step_limit=1.0)
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    try:
        peer = Peer(ids[0], cfg, nodes[0], controller=make_bot("heuristic", 1),
                    endpoints={1: nodes[1].endpoint}, options=SessionOptions(),
                    store=Store.create(tmp_path, cfg.header(), 0, port=nodes[0].port))
        t = time.monotonic()
        while peer.stopped is None and time.monotonic() - t < 15:
            peer.pump(0.05)
        took = time.monotonic() - t
        assert peer.stopped is not None and "unresponsive" in peer.stopped, peer.stopped
        assert took < 5, took
        path = peer.transcript_path
        peer.close(flush=0)
        assert path is not None
        rep = verify_game(path)
        assert rep.limits == "1 s per protocol step, moves untimed"
        assert rep.blamed_seat is None
        from cli.words import verify_lines
        assert "  time limits: 1 s per protocol step, moves untimed" in verify_lines(rep)
        from cli import i18n
        with i18n.using("fr"):       # said from the report's data, in the player's language
            assert "  délais : 1 s par étape du protocole, coups sans limite de temps" in \
                verify_lines(rep)
    finally:
        nodes[1].close()


def test_a_host_starting_with_other_limits_than_agreed_is_refused() -> None:
    ids = [Identity.generate(), Identity.generate()]
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    try:
        host = LobbyHost(ids[0], "Ann", nodes[0], preset("classic"), Seating.solo(2))
        c = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}")
        real_send = host._send

        def send(nid: bytes, obj: dict[str, Any]) -> None:
            if obj.get("k") == "start":        # the same table, with a 1 s step limit
                hdr = msgpack.unpackb(obj["header"], raw=False)
                cfg = TableConfig.from_header(TranscriptHeader.from_obj(hdr))
                obj = dict(obj, header=dataclasses.replace(cfg, step_limit=1.0)
                           .header().to_bytes())
            real_send(nid, obj)

        host._send = send  # type: ignore[method-assign]
        with pytest.raises(LobbyError, match="other time limits"):
            for _ in range(400):
                host.pump(0.01)
                c.pump(0.01)
                if c.seat is not None and not c.ready:
                    c.set_ready(True)
                    host.set_ready(True)
        assert c.start is None
    finally:
        for n in nodes:
            n.close()
