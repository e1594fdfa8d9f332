"""Crash and resume: a peer's store (transcript, secrets) rebuilds it; the game goes on."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from cli_helpers import free_port, start_joiner, wait_into_first_hand
from test_session import FAST, check_transcripts, make_peers

from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import verify_game
from p2p.net.transport import Node
from p2p.netsim import run_network_game
from p2p.table.memory import make_table
from p2p.table.session import Peer, node_id_for, resume_peer
from p2p.table.store import Store, find_tables, read_secrets, table_dir
from p2p.testing import run_peers


def test_peer_restarts_in_process_and_catches_up(tmp_path: Path) -> None:
    cfg, ids = make_table(preset("modern"), Seating.solo(3), ["a", "b", "c"], b"resume")
    peers = make_peers(tmp_path, cfg, ids)
    crashed = peers[1]
    port = crashed.node.port  # type: ignore[attr-defined]
    others = [peers[0], peers[2]]
    res = {0: False, 2: False}
    waiting_seen: list[str] = []

    def go(i: int) -> None:
        res[i] = peers[i].run(90)
        peers[i].linger(0.5)

    th = [threading.Thread(target=go, args=(i,)) for i in (0, 2)]
    for t in th:
        t.start()
    while crashed.entries_applied < 120:          # well into the play of the hand
        crashed.pump(0.02)
    crashed.node.close()                           # crash: no flush, no goodbye
    crashed.store.close()
    for _ in range(30):
        w = others[0].waiting_text()
        if w:
            waiting_seen.append(w)
        if "waiting for b" in w:
            break
        threading.Event().wait(0.02)
    assert any("waiting for b" in w for w in waiting_seen), waiting_seen
    back = resume_peer(table_dir(tmp_path / "seat1", cfg.table_id), ids[1],
                       controller=make_bot("heuristic", 99), options=FAST)
    assert back.entries_applied >= 120 and back.node.port == port  # type: ignore[attr-defined]
    ok = back.run(90)
    back.linger(0.5)
    for t in th:
        t.join()
    for p in others:
        p.close(flush=1.0)
    back.close(flush=1.0)
    assert ok and res == {0: True, 2: True}
    check_transcripts([peers[0], back, peers[2]])


def test_store_holds_secrets_and_replays_a_finished_match(tmp_path: Path) -> None:
    cfg, ids = make_table(preset("modern"), Seating.solo(2), ["a", "b"], b"store")
    peers = make_peers(tmp_path, cfg, ids)
    assert run_peers(peers) == [True, True]
    d = table_dir(tmp_path / "seat0", cfg.table_id)
    assert find_tables(tmp_path / "seat0") == [d]
    sec = read_secrets(d)
    assert sec[0]["deck"]["x"] is not None and len(sec[0]["rand_seed"]) == 32
    assert oct((d / "secrets.log").stat().st_mode & 0o777) == "0o600"
    store, st = Store.open(d)
    node = Node(node_id_for(ids[0].public_key))
    again = Peer(ids[0], cfg, node, store=store, replay=st.transcript.entries,
                 secrets=st.secrets)
    assert again.finished and again.winner() == peers[0].winner()
    again.close(flush=0)
    assert verify_game(d / "transcript.mbt").ok


@pytest.mark.parametrize("after", [8, 60], ids=["during-setup", "during-play"])
def test_kill_dash_nine_mid_hand_and_resume(tmp_path: Path, after: int) -> None:
    """Three peer processes; seat 1 gets SIGKILL (while its key and commitments are out
    but the shuffle is not done, or during play) and is restarted with --resume; the
    match ends with identical transcripts that verify."""
    run = run_network_game(preset("modern"), Seating.solo(3), ["heuristic"] * 3, seed=5,
                           work_dir=tmp_path, kill=(1, after), timeout=90)
    assert run.restarts == 1
    assert run.ok, (run.errors, run.summary)
    assert run.identical and run.verified


def test_resume_verb_after_kill_dash_nine_of_a_joiner(tmp_path: Path) -> None:
    """`join` runs in its own process and is killed with SIGKILL mid-hand; `resume` (the
    verb's function, same data dir and identity) rejoins and the match ends with identical
    transcripts that verify."""
    import argparse
    import io
    import signal

    from cli import host as host_verb
    from cli import resume as resume_verb

    hport, jport = free_port(), free_port()
    host = argparse.Namespace(name="Ann", bots=0, players=2, rules="modern", option=[],
                              teams=None, bind="127.0.0.1", port=hport, no_announce=True,
                              data_dir=str(tmp_path / "h"), identity=str(tmp_path / "h.key"),
                              auto=True, peer=[])
    rc: list[int | None] = [None]
    out = io.StringIO()

    def run_host() -> None:
        rc[0] = host_verb.run(host, out=out, inp=io.StringIO(""))

    th = threading.Thread(target=run_host)
    th.start()
    jdir, jkey = tmp_path / "j", tmp_path / "j.key"
    proc = start_joiner(hport, jport, jdir, jkey)
    try:
        wait_into_first_hand(jdir)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    from p2p.transcript.file import read_transcript
    [kept] = list(jdir.glob("*/transcript.mbt"))
    at = len(read_transcript(kept).entries)          # where the killed joiner's copy ends
    rout = io.StringIO()
    res = resume_verb.run(argparse.Namespace(data_dir=str(jdir), identity=str(jkey),
                                             auto=True, peer=[]),
                          out=rout, inp=io.StringIO(""))
    th.join(60)
    assert res == 0 and rc[0] == 0, out.getvalue()[-500:]
    paths = list(jdir.glob("*/transcript.mbt")) + list((tmp_path / "h").glob("*/transcript.mbt"))
    assert len(paths) == 2 and paths[0].read_bytes() == paths[1].read_bytes()
    rep = verify_game(paths[0])
    assert rep.ok
    assert "resumed: catching up" in rout.getvalue()
    assert 20 < at < rep.crypto.entries_checked - 20, (at, rep.crypto.entries_checked)
