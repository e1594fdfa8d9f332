"""Tenth hostile pass (2026-12-06): hostile input at the lobby's prompt, a hostile flood of
zeroconf names, hostile files for ``resume``, ``verify`` and ``games``. What must hold: an
honest player is never blamed; no input stops a peer (no traceback, no unbounded wait, no
unbounded memory); a first-time player never wonders what happened.

Findings (each test here failed before its fix):

* ``millebornes lobby`` read what is typed on a thread iterating over ``sys.stdin``: one
  byte that is not UTF-8, typed or pasted where the locale decodes stdin strictly (the
  usual ``LANG=en_US.UTF-8``), ended the thread without a word, and q and Enter no longer
  left the list (only Ctrl-C did); Ctrl-D ended it the same way. It reads the terminal's
  bytes now (``cli.plain.LineReader``: decoded with replacement, lines bounded), and the
  end of input (Ctrl-D, a terminal gone) leaves the list.
* a plain browser (``millebornes lobby``) under a flood forgets changes (the latest 256
  names kept, hostile pass 8) and said nothing of it: a table announced meanwhile could be
  missing from the list without a word. It says how many it skipped, at most every 5 s,
  with ``join --peer HOST:PORT``.
* the report of an incomplete transcript (it stops in hand H) listed the agreements about
  hand H+1, which took effect nowhere in it: every other seat could sign, while S still
  played H, an end "after S left" of H+1, and S's ``verify`` said "the match was ended in
  hand H+1 by ..., saying S had left" under "the transcript stops ... in hand H"; so did
  a report naming a faulty entry of hand H. As a complete match's report (hostile pass
  9), they leave them out.
* ``millebornes play``: a bot's peer (a child process) that dies leaves its seat silent,
  and the screen offers a bot or the end. The player's seat runs the bot for it, but
  play's console has no way to start one: the log refused the record (``no-bot``) and the
  console said "You already chose for this hand" to a player who had chosen nothing
  (seen with a real ``play --plain`` whose bot child was killed). It says that no bot
  can be started here, and that the end or ``resume`` (which restarts the bots) can; and
  the pause no longer offers "type bot: a bot takes the seat" there.
* a plug-in in its own process at a table with a move limit waited at its first move for
  its making whole (up to 30 s): one that takes 10 s to load paused a 3 s table there
  ("Paused: seat 1 (Bot1) is unresponsive", "Bot1 took longer than the table's time for
  a move"), the plug-in's doing, said as the seat's. The making is waited for through
  half of the move's time; then the built-in bot makes the move, and the plug-in is
  asked again at the next (``engine.bot_process.BotProcess._ask``).
* ``resume`` read its own store's log whole, decoded (about 3.8 times its size, 5.5 for
  small crafted entries: a 53 MB tail of entries with broken signatures, appended by
  whoever can write the file, took a resume from 47 to 406 MB before the replay cut it
  as local damage), and the replay kept every good entry decoded again. The log is
  held as its entries' bytes (``p2p.transcript.file.StoredLog``), each decoded as the
  replay takes it: 121 MB.

Probed and found holding (no change): a 10 MB line at the lobby's prompt (cut at a
command's worth, answered once, q still leaves); a plug-in that answers after its cut (the
late reply is never read: the child is stopped, the heuristic moves; the existing
``test_a_plugin_at_a_table_with_a_move_limit_moves_within_it``), twice (by reading: the
second reply is read as the next move's, an index into that move's legal list, the
plug-in's own choice or "not a legal move"); ``bot_move_time`` at 1, 2 and 3 s tables
(0.5, 1 and 2 s).
"""

from __future__ import annotations

import argparse
import io
import os
import re
import threading
import time
from pathlib import Path

import pytest
from test_plugin_faults import faulty_plugins  # noqa: F401 - a fixture
from test_store_damage import played  # noqa: F401 - a fixture

from cli import lobby


def _lobby_typing(chunks: list[bytes], seconds: float = 8.0,
                  errors: str = "strict", close: bool = False) -> tuple[int, float, str]:
    """``millebornes lobby`` for ``seconds`` on loopback, its terminal a pipe decoded as a
    UTF-8 locale does (``errors``): ``chunks`` typed half a second apart, then the pipe
    closed when ``close``. (return code, seconds it ran, what it said)."""
    r, w = os.pipe()
    inp = io.TextIOWrapper(io.FileIO(r, "r"), encoding="utf-8", errors=errors)
    out = io.StringIO()

    def typing() -> None:
        for chunk in chunks:
            time.sleep(0.5)
            os.write(w, chunk)
        if close:
            os.close(w)

    th = threading.Thread(target=typing, daemon=True)
    th.start()
    started = time.monotonic()
    try:
        rc = lobby.run(argparse.Namespace(seconds=seconds, mdns="loopback"), out=out, inp=inp)
    finally:
        th.join(10)
        if not close:
            os.close(w)
        inp.close()
    return rc, time.monotonic() - started, " ".join(out.getvalue().split())


def test_a_byte_that_is_not_utf8_typed_in_the_lobby_leaves_q_working() -> None:
    """A pasted byte that is not UTF-8 (a terminal in Latin-1, a binary paste) killed the
    lobby's input thread where stdin is decoded strictly: the line was never answered and q
    never left the list (it ran its whole 8 s)."""
    rc, took, said = _lobby_typing([b"\xe9t\xe9 \xff\xfe\x00\x1b[2J\n", b"q\n"])
    assert rc == 0
    assert took < 5, (took, said)                       # left at q, not at the 8 s
    assert said.count("This list only shows the tables") == 1, said


def test_ctrl_d_in_the_lobby_leaves_it() -> None:
    """The end of input (Ctrl-D, or a terminal gone) ended the reading thread for good: q
    was never read again and the list ran on until Ctrl-C (here its whole 8 s)."""
    rc, took, said = _lobby_typing([b"join\n"], close=True)
    assert rc == 0
    assert took < 5, (took, said)
    assert said.count("This list only shows the tables") == 1, said


def test_a_10_mb_line_in_the_lobby_is_answered_once_and_q_still_leaves() -> None:
    """A line of 10 MB with no newline until its end, then q: bounded (cut at a command's
    worth), answered once, and q leaves."""
    rc, took, said = _lobby_typing([b"x" * (10 << 20) + b"\n", b"q\n"], errors="strict")
    assert rc == 0
    assert took < 6, (took, said)
    assert said.count("This list only shows the tables") == 1, said


def test_a_plain_lobby_says_when_a_flood_makes_it_skip_announcements(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A flood of made-up names, more than the browser can look at (it keeps the latest
    256 and forgets the rest, hostile pass 8): ``millebornes lobby`` said nothing of it, so
    a table announced meanwhile could be missing from the list without a word. The flood
    enters the real browser where zeroconf's event loop hands it changes (its inbox), as
    a flood on the wire would (one on loopback would reach every other test's browser)."""
    from zeroconf import ServiceStateChange

    from p2p.net import discovery

    real = lobby.browse_tables
    stop = threading.Event()
    floods: list[threading.Thread] = []

    def flooded(*args: object, **kwargs: object) -> discovery.TableBrowser:
        browser = real(*args, **kwargs)  # type: ignore[arg-type]

        def flood() -> None:
            k = 0
            while not stop.is_set() and k < 20_000:
                for _ in range(500):
                    browser._queue_change(browser._zc, discovery.SERVICE_TYPE,
                                          f"flood-{k}.{discovery.SERVICE_TYPE}",
                                          ServiceStateChange.Added)
                    k += 1
                time.sleep(0.02)
        floods.append(threading.Thread(target=flood, daemon=True))
        floods[-1].start()
        return browser

    monkeypatch.setattr(lobby, "browse_tables", flooded)
    out = io.StringIO()
    try:
        assert lobby.run(argparse.Namespace(seconds=2.5, mdns="loopback"), out=out) == 0
    finally:
        stop.set()
        for th in floods:
            th.join(10)
    said = " ".join(out.getvalue().split())
    skipped = [int(n) for n in re.findall(r"a flood of announcements: (\d+) changes? "
                                          r"skipped so far", said)]
    assert skipped and skipped[0] > 0, said
    assert len(skipped) == 1, said          # at most every 5 s: not a line per look
    assert "millebornes join --peer HOST:PORT" in said, said


def test_an_incomplete_transcripts_report_leaves_out_agreements_about_a_later_hand(
        tmp_path: Path) -> None:
    """p1 and p2 (every seat but p0) sign, while p0 plays hand 1, an end of the match "after
    p0 left" for hand 2 (a peer takes records up to a hand ahead) and send it to p0 alone;
    p0's transcript stops in hand 1 (p0 quit, or crashed). ``verify`` said "the transcript
    stops while waiting for ... in hand 1" and, under it, "the match was ended in hand 2 by
    p1 and p2, saying p0 had left": of a hand this transcript never reached, where the
    agreement took effect nowhere."""
    from test_replicated_log import _table, _transcript
    from test_takeover import _games_state

    from p2p.audit import verify_game
    from p2p.table import wire
    from p2p.transcript.envelope import Envelope

    t = _table(b"hostile10/incomplete-next-hand", n=3)
    p0 = t.seats[0].rlog
    sent = False
    for _ in range(40):
        if not sent and p0.log.get(0):
            sent = True
            for s in (1, 2):
                rl = t.seats[s].rlog
                for kind in ("side.end", "side.takeover"):
                    body = {"k": kind, "hand": 1, "seat": 0, "at": 3}
                    if kind == "side.takeover":
                        body["runner"] = 1
                    rec = Envelope.create(rl.identity, t.cfg.table_id, 1, 0,
                                          t.cfg.header().genesis(1), body)
                    for payload in wire.encode_push([rec.encode()]):
                        p0.on_message(t.node_of[s], payload)
            t.collect(0)
        t.write_turns()
        t.deliver()
    assert sent and p0.hand_no == 0 and not p0.finished
    path = _transcript(tmp_path, t, 0)
    rep = verify_game(path)
    assert not rep.ok and rep.unfinished and rep.stopped_hand == 0, rep.summary()
    assert rep.ended_by_agreement is None and rep.voided == [] and rep.takeovers == [], \
        rep.summary()
    assert "had left" not in rep.summary() and "bot run by" not in rep.summary(), \
        rep.summary()
    assert "agreement" not in _games_state(tmp_path, path)
    # the same transcript with an entry of hand 1 altered: a report that names a faulty
    # entry leaves them out as well
    from p2p.transcript.file import read_transcript
    offsets = read_transcript(path).offsets
    data = bytearray(path.read_bytes())
    data[offsets[11] - 5] ^= 0xFF                      # entry 10's signature
    bad = tmp_path / "altered.mbt"
    bad.write_bytes(bytes(data))
    rep = verify_game(bad)
    assert not rep.ok and rep.check == "bad-signature" and rep.failed_index == 10, \
        rep.summary()
    assert rep.ended_by_agreement is None and rep.voided == [], rep.summary()
    assert "had left" not in rep.summary(), rep.summary()


def test_a_player_who_may_run_no_bot_is_not_told_they_already_chose() -> None:
    """``millebornes play``: the bots are peers in child processes, started with the match;
    one that dies leaves its seat silent, and the screen offers b (a bot) or e (the end).
    The player's seat runs the bot for it (the lowest other seat), but play gives its
    console no way to start one: the log refuses the record (``no-bot``) and the console
    said "You already chose for this hand (a bot or the end, not both)" to a player who
    had chosen nothing. It says that no bot can be started here, and what can be done."""
    from test_takeover import _stopped

    from cli.netdriver import NetDriver
    from cli.words import cannot_agree_line, no_bot_here_line
    from p2p.transcript.agreement import runner_for

    t = _stopped(b"hostile10/no-bot", silent=2)
    ann = t.seats[0].rlog
    assert runner_for(2, 3) == 0 and ann.bot_offer is None

    class Peer:
        """The console's view of Ann's peer (``Peer``'s calls, on her real log)."""

        def bot_runner(self, seat: int) -> int:
            return runner_for(seat, 3)

        def agree_bot(self, seat: int) -> bool:
            return ann.propose_takeover(seat) is not None

        @property
        def agreement_refused(self) -> str | None:
            return ann.refused

    class Driver:
        seat, bot_maker, peer = 0, None, Peer()     # as play's NetDriver: no bot_maker

        def silent(self) -> int:
            return 2

        def _collect(self) -> None:
            pass

        def no_agreement(self, plain: bool) -> None:
            return None    # an agreement may still hold (nobody else gone, no split)

    said = NetDriver.agree(Driver(), "bot")       # type: ignore[arg-type]
    assert ann.refused == "no-bot"
    assert said != cannot_agree_line(), said
    assert said == no_bot_here_line()
    assert ann.proposals()["side.takeover"] == {}   # nothing signed: e is still open
    assert ann.propose_end(2) is not None


@pytest.mark.usefixtures("faulty_plugins")
def test_a_plugin_still_being_made_leaves_a_timed_move_to_the_builtin_bot(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A plug-in in its own process at a table with a move limit (its move cut at
    ``bot_move_time``) waited for its making whole (up to 30 s) at its first move: one
    that takes 3 s to load paused a 3 s table there, "unresponsive", with nothing said of
    the plug-in. The move keeps its limit: the built-in bot makes it, the plug-in is not
    failed, and once made it is asked again."""
    from test_plugin_faults import _a_play

    from cli.bot_process import ANSWER_WITHIN, BotProcess, bot_move_time

    monkeypatch.setenv("MB_SLOW", "2")            # 2 s to be made,
    monkeypatch.setenv("MB_SLOW_MOVE", "0")       # then quick
    view, legal = _a_play()
    limit = bot_move_time(2.0)
    bot = BotProcess("tslowstart", 1, answer_within=limit, make_within=ANSWER_WITHIN)
    try:
        started = time.monotonic()
        assert bot.choose(view, legal) in legal
        took = time.monotonic() - started
        assert took < limit, took                          # within the move's own time
        assert not bot._broken and bot.fault is None, bot.fault
        time.sleep(3.5)                                    # made meanwhile
        assert bot.choose(view, legal) is legal[0]         # its own move (legal[0])
        assert bot._made and not bot._broken, bot.fault
    finally:
        bot.close()


@pytest.mark.hostile       # a hosted match of a plug-in against the host (about 20 s)
@pytest.mark.usefixtures("faulty_plugins")
def test_a_plugin_that_loads_for_10_s_does_not_pause_a_3_s_table(tmp_path: Path) -> None:
    """``host --bots tslowstart --move-limit 3``, the plug-in 10 s in the making: the table
    paused at its first move ("Paused: seat 1 (Bot1) is unresponsive", "Bot1 took longer
    than the table's time for a move"), the plug-in's doing, said as the seat's. The
    built-in bot now moves for it until it is made."""
    from test_plugin_faults import _cli_with_plugins, _plugin_dir

    done = _cli_with_plugins(_plugin_dir(), "host", "--name", "Ann", "--players", "2",
                             "--bots", "tslowstart", "--move-limit", "3", "--bind",
                             "127.0.0.1", "--no-announce", "--mdns", "loopback", "--auto",
                             "--plain", "--seed", "3", "--data-dir", str(tmp_path / "data"),
                             "--identity", str(tmp_path / "key"), MB_SLOW="10",
                             MB_SLOW_MOVE="0")
    out = done.stdout.replace("\n  ", " ")
    assert done.returncode == 0, out[-2000:] + done.stderr[-1000:]
    assert "Paused" not in out and "took longer than the table's time" not in out, out[-3000:]
    assert "failed to move" not in out, out[-3000:]
    assert "The match is over." in out, out[-2000:]


def test_resume_holds_a_crafted_tail_of_its_store_as_bytes(
        played: Path, tmp_path: Path) -> None:  # noqa: F811 - the fixture
    """A store whose transcript had 8,000 small entries appended (a hostile file author;
    each entry well formed, its signature broken): ``resume`` read the whole log decoded
    before its replay cut the tail as local damage (about 7 times the tail's size: a
    53 MB tail took a resume from 47 to 406 MB), and the replay held every good entry
    decoded again. The log is held as its entries' bytes now (``StoredLog``), each
    decoded as the replay takes it."""
    import shutil
    import tracemalloc

    from test_store_damage import _local_node

    from p2p.crypto.identity import Identity
    from p2p.table.session import resume_peer
    from p2p.transcript.file import read_transcript

    shutil.copytree(played, tmp_path / "g")
    ident = Identity.load_or_create(tmp_path / "g" / "s0.key")
    clean = next(d for d in (tmp_path / "g" / "d0").iterdir() if d.is_dir())
    crafted = tmp_path / "crafted" / clean.name
    shutil.copytree(clean, crafted)
    log = read_transcript(crafted / "transcript.mbt").entries
    entry = bytearray(min((e.encode() for e in log if e.author == ident.public_key), key=len))
    entry[-5] ^= 0xFF                                       # its signature broken
    tail = bytes(entry) * 8_000
    with open(crafted / "transcript.mbt", "ab") as f:
        f.write(tail)

    def peak(table: Path) -> tuple[int, str | None]:
        tracemalloc.start()
        try:
            peer = resume_peer(table, ident, node_factory=_local_node)
            top = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        damage = peer.rlog.local_damage
        peer.close(flush=0.0)
        return top, damage

    base, none = peak(clean)
    top, damage = peak(crafted)
    assert none is None and damage is not None and "bad-signature" in damage, damage
    assert top - base < 2 * len(tail), (base, top, len(tail))


@pytest.mark.hostile       # a play match whose bot's process is killed: the 20 s step limit
def test_play_whose_bot_process_died_offers_what_it_can_do(tmp_path: Path) -> None:
    """``millebornes play --plain``: the bot's peer (a child process) is killed. The table
    paused on it and offered "type bot: a bot takes the seat from the next hand", which
    this console cannot do; typing bot answered "You already chose for this hand" to a
    player who had chosen nothing. The pause offers the end and ``resume``; bot, typed
    anyway, says why not; end ends the match."""
    import fcntl
    import signal
    import subprocess
    import sys

    from cli import i18n
    from cli.words import no_bot_here_line, no_bot_silent_line

    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg"),
           "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "HOME": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", "play", "--plain", "--bots", "1",
                             "--seed", "3", "--data-dir", str(tmp_path / "data")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stdin is not None
    fcntl.fcntl(proc.stdout, fcntl.F_SETFL, os.O_NONBLOCK)
    said = b""

    def until(text: str, limit: float) -> str:
        nonlocal said
        end = time.monotonic() + limit
        while time.monotonic() < end:
            chunk = proc.stdout.read()  # type: ignore[union-attr]
            if chunk:
                said += chunk
            flat = " ".join(said.decode(errors="replace").split())
            if text in flat:
                return flat
            time.sleep(0.1)
        raise AssertionError(f"{text!r} not said within {limit} s: {flat[-3000:]}")

    def type_line(line: str) -> None:
        proc.stdin.write(line.encode() + b"\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    def first_turn(limit: float) -> None:
        """Until this player's first turn, letting a hazard stand when asked about a coup
        fourré (the deal is the table's shuffle, not --seed: Bo may attack first, and the
        question came where "Your turn" was awaited, 1 run in a few)."""
        nonlocal said
        asked = 0
        end = time.monotonic() + limit
        while True:
            chunk = proc.stdout.read()  # type: ignore[union-attr]
            if chunk:
                said += chunk
            flat = " ".join(said.decode(errors="replace").split())
            turn, question = flat.rfind("Your turn"), flat.rfind("for a coup fourré")
            if turn >= 0 and turn > question:
                return
            if question >= 0 and flat.count("for a coup fourré") > asked:
                asked = flat.count("for a coup fourré")
                type_line("n")
            if time.monotonic() > end:
                raise AssertionError(f"no turn of mine within {limit} s: {flat[-3000:]}")
            time.sleep(0.1)

    try:
        first_turn(120)
        for child in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split():
            cmd = Path(f"/proc/{child}/cmdline").read_bytes()
            if b"resource_tracker" not in cmd:
                os.kill(int(child), signal.SIGKILL)        # the bot's peer
        type_line("discard 1")                             # now the bot's turn
        with i18n.using("en"):
            line, why = no_bot_silent_line("Bo", plain=True), no_bot_here_line()
        until(" ".join(line.split()), 60)
        type_line("bot")
        flat = until(" ".join(why.split()), 10)
        assert "You already chose" not in flat, flat[-3000:]
        assert "type bot: a bot takes the seat" not in flat, flat[-3000:]
        type_line("end")
        until("ended the match", 20)
        type_line("quit")
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert b"Traceback" not in proc.stderr.read(), said[-2000:]  # type: ignore[union-attr]
