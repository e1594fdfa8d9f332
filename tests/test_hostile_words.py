"""Hostile values on their way into words (issue 9 under issue 13's i18n): reason ids and
data from another peer, a stored file or a hand-edited one must never raise, never carry a
terminal escape, bidi override or zero-width character to the screen, and never make an
unbounded line.  Real sockets where the data crosses the wire (the hostile host is a real
:class:`LobbyHost` whose messages are rewritten), unit tests on ``cli.words`` for data
made on this side.  Each test failed before its fix."""

from __future__ import annotations

import dataclasses
import os
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

import msgpack
import pytest
from test_hostile import _header_file, _lobby

from cli import i18n, words
from cli.seats import lobby_lines
from engine import Rules, preset
from p2p.audit import verify_game
from p2p.crypto.identity import Identity
from p2p.crypto.known import KeyChange, KnownPlayers
from p2p.table.lobby import LobbyClient, LobbyError
from p2p.table.session import node_id_for

#: what a terminal obeys or hides: ESC (CSI, OSC), BEL, C1 CSI, bidi override, zero width
INVISIBLE = ("\x1b", "\x07", "\x9b", "\u202e", "\u200b", "\n", "\r")
EVIL = "x\x1b[2J\x1b]0;pwned\x07\u202e\u200b\x9b31m\nforged line %(seat)s %s"


def _clean(text: str) -> bool:
    return not any(c in text for c in INVISIBLE)


# ------------------------------------------------------------- the host's rule preset
def _until_seated(host: Any, c: LobbyClient, limit: float = 10.0) -> None:
    """Pump the host and the client until the client has a seat and the lobby's state
    (at most ``limit`` s: a loaded machine is slow, a broken one fails the asserts)."""
    end = time.monotonic() + limit
    while time.monotonic() < end and (c.state is None or c.seat is None):
        host.pump(0.01)
        c.pump(0.01)


def _unchecked_rules(**fields: object) -> Rules:
    """Rules as a hostile host's own software may send them: ``Rules`` checks every field
    (types, ranges, the preset's name) since the hostile review, so the fields are set
    behind its back."""
    rules = dataclasses.replace(preset("classic"))    # a copy: presets are shared
    for name, value in fields.items():
        object.__setattr__(rules, name, value)
    return rules


def test_a_hostile_hosts_rule_preset_reaches_no_screen_raw() -> None:
    """The preset is a free string in the lobby state and the table header (the engine
    only checks the options it plays by): the joiner printed it raw in its lobby lines,
    and the board, plain mode and `games` show it too."""
    ids, nodes, host = _lobby()
    try:
        host.state.rules = _unchecked_rules(preset=EVIL + "y" * 900)
        c = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}")
        # the joiner refuses such a state outright (Rules checks the preset's name), in
        # words that name the fault, one clean bounded line
        with pytest.raises(LobbyError) as err:
            # bounded by time, not by a count of pumps: 300 of them (6 s) ran out on a
            # loaded machine before the host's state arrived
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                host.pump(0.01)
                c.pump(0.01)
        assert c.state is None and err.value.why == "invalid-message"
        assert _clean(str(err.value)) and len(str(err.value)) < 300
        said = words.lobby_refusal(err.value.why, err.value.data, "FALLBACK")
        assert "preset must be a short name" in said and _clean(said)
        with pytest.raises(ValueError, match="preset must be a short name"):
            Rules.from_dict(host.state.rules.to_dict())
    finally:
        for n in nodes:
            n.close()
    # every screen that names a preset: the board's first line, plain mode, `games`
    for name in (words.rules_name, words.rules_short):
        assert _clean(name(EVIL)) and len(name(EVIL + "y" * 900)) <= 40
        assert isinstance(name(5), str) and isinstance(name(None), str)   # type: ignore[arg-type]


# ------------------------------------------------------------------ the host's start
def test_a_host_cannot_present_other_rules_under_a_presets_name() -> None:
    """The lobby said only the preset's name ("classic rules"): a host could change any
    option (a 10-turn hand, stacked hazards, even a truthy "no") and the joiner agreed to
    "classic rules" all the same. Every option that differs from the preset is shown."""
    ids, nodes, host = _lobby()
    try:
        host.state.rules = Rules.from_dict({**preset("classic").to_dict(), "max_turns": 10,
                                            "stack_hazards": True, "draw_discard": True})
        c = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}")
        _until_seated(host, c)
        assert c.state is not None
        with i18n.using("fr"):
            line = lobby_lines(c.state)[0]
        assert "max_turns=10" in line and "stack_hazards=yes" in line, line
        assert "draw_discard=yes" in line and _clean(line)
        # a truthy "no" is not a rule anyone can agree to: Rules refuses it
        with pytest.raises(ValueError, match="draw_discard must be yes or no"):
            Rules.from_dict({**preset("classic").to_dict(), "draw_discard": "no"})
        assert words.rules_label(preset("modern")) == words.rules_name("modern")
    finally:
        for n in nodes:
            n.close()


def test_a_version_refusal_says_our_version_not_the_hosts_claim() -> None:
    """The host's refusal sentence names a version for us: the joiner knows its own and
    says that one (a host could otherwise make the player's program claim any version)."""
    ids, nodes, host = _lobby()
    try:
        c = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}")
        deadline = time.monotonic() + 30
        while c.seat is None and time.monotonic() < deadline:
            host.pump(0.01)
            c.pump(0.01)
        assert c.seat is not None
        host._send(node_id_for(ids[1].public_key),
                   {"k": "refused", "reason": "this table speaks lobby protocol version "
                    "%(host)s and you speak 777\x1b[2J: both players need the same millebornes "
                    "version"})
        with pytest.raises(LobbyError) as err:
            for _ in range(100):
                c.pump(0.01)
        assert err.value.why == "host-version"
        assert err.value.data["ours"] == c.version
        line = words.lobby_error_line(err.value.why, err.value.data, str(err.value))
        assert "777" not in line and _clean(line) and "%(host)s" in line
    finally:
        for n in nodes:
            n.close()


# ------------------------------------------------------------ a transcript to verify
def test_verify_of_a_header_with_an_escape_in_a_rule_name_shows_it_clean(
        tmp_path: Path) -> None:
    """A rule option's name in a transcript header reached verify's output raw (the
    engine's "unknown rule option(s): ..." sentence)."""
    def mutate(h: dict[str, Any]) -> None:
        h["rules"]["rules"][EVIL] = 1
    rep = verify_game(_header_file(tmp_path, mutate))
    assert not rep.ok and rep.check == "header"
    text = rep.summary() + " ".join(words.verify_lines(rep)).replace("\n", " ")
    assert "unknown rule option" in text and _clean(text), text


# ------------------------------------------------------------ words of reasons (local)
STOPS: list[dict[str, Any]] = [
    {"id": "catch-up-failed"}, {"id": "catch-up-failed", "seconds": "x"},
    {"id": "catch-up-failed", "seconds": float("nan")},
    {"id": "catch-up-failed", "seconds": float("inf")},
    {"id": "fell-behind"}, {"id": "fell-behind", "seconds": [1]},
    {"id": "agreed-end"}, {"id": "agreed-end", "hand": "x", "seat": 0},
    {"id": "agreed-end", "hand": 10 ** 400, "seat": 0}, {"id": "agreed-end", "hand": None},
    {"id": "abandoned", "seat": 0, "text": EVIL}, {"id": "abandoned", "seat": 1, "text": 7},
    {"id": "abandoned", "seat": 0, "text": "y" * 100_000},
    {"id": "protocol", "seat": 1, "check": EVIL, "by": 0},
    {"id": "broken-log", "seat": "0", "check": ["a"]},
    {"id": "unresponsive", "seat": -1, "step": EVIL},
    {"id": "own-step-failed", "error": EVIL}, {"id": "save-failed", "error": None},
    {"id": "unfounded-complaint", "seat": 10 ** 30}, {"id": ["x"]}, {"id": None},
]


@pytest.mark.parametrize("lang", ["en", "fr", "ug"])
@pytest.mark.parametrize("why", STOPS, ids=lambda w: str(w)[:40])
def test_a_stop_reason_from_odd_data_is_one_clean_bounded_line(why: dict[str, Any],
                                                                lang: str) -> None:
    """The log's reason data is made on this side, but a reason id whose data is missing,
    of another type or out of range raised KeyError/ValueError/OverflowError inside the
    board's loop, and text fields went to the terminal as they were."""
    with i18n.using(lang):
        line = words.stop_reason(why, ["Ann", "Bob"], "fallback")
        full = words.stopped_line("fallback", why, ["Ann", "Bob"])
    for text in (line, full):
        assert text and _clean(text) and len(text) < 700, text[:300]


@pytest.mark.parametrize("why", [{"count": 3}, {"count": "x", "index": 1},
                                 {"count": 3, "index": 1, "check": EVIL},
                                 {"count": 10 ** 400, "index": -5}, {"index": None}],
                         ids=str)
def test_local_damage_from_odd_data_is_one_clean_line(why: dict[str, Any]) -> None:
    line = words.local_damage_text(why, "fallback")
    assert line and _clean(line) and len(line) < 700


REFUSALS: list[tuple[str, dict[str, Any]]] = [
    ("host-said", {}), ("host-said", {"text": EVIL}), ("host-said", {"text": "y" * 100_000}),
    ("no-answer", {"seconds": "x"}), ("no-answer", {"seconds": float("nan")}),
    ("no-answer", {"seconds": float("inf"), "endpoint": EVIL}),
    ("host-version", {"host": EVIL}), ("version", {}), ("invalid-message", {"wrong": EVIL}),
    ("bad-start", {"detail": EVIL}), ("host-key-mismatch", {"endpoint": EVIL, "key": 5}),
    ("two-fingerprints", {"first": EVIL}), ("", {}), ("unknown-id", {"x": 1}),
]


@pytest.mark.parametrize("why,data", REFUSALS, ids=lambda v: str(v)[:30])
def test_a_lobby_refusal_from_odd_data_is_one_clean_bounded_line(why: str,
                                                                  data: dict[str, Any]) -> None:
    for text in (words.lobby_refusal(why, data, EVIL), words.lobby_error_line(why, data, EVIL)):
        assert text and _clean(text) and len(text) < 700, text[:300]


def test_a_key_change_names_the_player_cleanly() -> None:
    """``KeyChange.name`` is a header name (clean) today, but words put a peer's name on
    the screen only through the sanitiser."""
    change = KeyChange(EVIL + "y" * 1000, os.urandom(32), (os.urandom(32),) * 50)
    line = words.key_change_line(change)
    assert _clean(line) and len(line) < 1200


# ------------------------------------------------------------ the known-players file
def test_a_huge_known_players_file_is_not_read_whole(tmp_path: Path) -> None:
    """The file was read whole, whatever its size (a file swapped for a huge one filled
    the memory); a file far larger than 1,000 names with 8 keys each is damaged."""
    path = tmp_path / "known_players"
    with open(path, "wb") as f:
        f.write(msgpack.packb({"a": [b"k" * 32]}))
        f.truncate(64 * 1024 * 1024)           # sparse: 64 MiB that take no disk
    tracemalloc.start()
    try:
        known = KnownPlayers(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, peak
    assert known.problem_id == "damaged" and known.keys == {}
    line = words.known_problem_line(known)
    assert line is not None and _clean(line)
    assert (tmp_path / "known_players.bad").exists()


def test_a_known_players_fifo_does_not_block(tmp_path: Path) -> None:
    """A FIFO in the file's place blocked ``join``/``host`` forever at the start."""
    path = tmp_path / "known_players"
    os.mkfifo(path)
    got: list[KnownPlayers] = []
    t = threading.Thread(target=lambda: got.append(KnownPlayers(path)), daemon=True)
    t.start()
    t.join(3.0)
    blocked = not got
    if blocked:        # unblock the reader so the test process can end
        with open(path, "wb"):
            pass
        t.join(3.0)
    assert not blocked
    assert got[0].problem_id == "damaged" and got[0].keys == {}
    assert words.known_problem_line(got[0]) is not None


def test_known_players_round_trip_still_works(tmp_path: Path) -> None:
    path = tmp_path / "known_players"
    a, b = Identity.generate().public_key, Identity.generate().public_key
    assert KnownPlayers(path).meet("Ann", a) is None
    change = KnownPlayers(path).meet("Ann", b)
    assert change is not None and change.known == (a,)
    assert KnownPlayers(path).problem_id is None


# ------------------------------------------------------------------ the keyboard
@pytest.mark.parametrize("teams", ["²x2", "2x²", "1" * 5000 + "x2"])
def test_odd_teams_are_refused_in_the_players_language(teams: str) -> None:
    """``isdigit()`` let "²" and 5,000-digit numbers through to ``int()``, whose English
    ValueError was said instead of the sentence the catalogs translate."""
    from cli.args import seating_from
    with i18n.using("fr"), pytest.raises(ValueError) as err:
        seating_from(4, teams)
    assert "--teams" in str(err.value) and "invalid literal" not in str(err.value)
    assert "Exceeds" not in str(err.value)


@pytest.mark.hostile
def test_a_real_joiner_prints_a_hostile_hosts_lobby_clean(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A real `millebornes join` process against a hostile host (its lobby state names a
    rule preset full of escapes, 900 characters long): the joiner's screen gets one
    clean, short line for it — since Rules checks the preset, the line that says the host
    sent an invalid message (it used to wait and say "no answer")."""
    import time

    import zmq
    from test_hostile import _cli

    from engine import Seating
    from p2p.net.transport import Node
    from p2p.table.lobby import LobbyHost

    monkeypatch.setenv("PYTHONUNBUFFERED", "1")      # its lines, though it is stopped
    ident = Identity.generate()
    curve = ident.curve_keys() if zmq.has("curve") else None
    node = Node(node_id_for(ident.public_key), bind="127.0.0.1", curve=curve)
    host = LobbyHost(ident, "Ann", node, _unchecked_rules(preset=EVIL + "y" * 900),
                     Seating.solo(3))
    join = _cli(tmp_path, "join", "--auto", "--plain", "--bind", "127.0.0.1", "--peer",
                f"127.0.0.1:{node.port}", "--name", "Ben", "--data-dir", str(tmp_path / "j"),
                "--identity", str(tmp_path / "j.key"))
    try:
        end = time.monotonic() + 30
        while time.monotonic() < end and not (host.state.seats[1] is not None
                                               and host.state.seats[1].ready):
            host.pump(0.05)
        for _ in range(20):
            host.pump(0.05)
        code = join.wait(30)
    finally:
        _, out, err = join.finish(0)                   # (killed if it did not leave)
        node.close()
    assert code != 0                                   # it leaves, in words
    # the engine's fault, said from its id and data (it was "the host sent an invalid
    # message (lobby state: …)" in English before the joiner read the id)
    said = [line for line in (out + err).splitlines()
            if "the host's rules cannot be played" in line]
    assert said and "preset must be a short name" in said[0], (out + err)[-1500:]
    assert all(_clean(line) and len(line) < 400 for line in (out + err).splitlines())
    assert "no answer" not in out + err and "Traceback" not in err


def test_verify_lines_never_show_a_reports_detail_raw() -> None:
    """A report's check and detail can quote a crafted transcript (an unexpected error's
    text, an engine sentence naming the file's values): verify's words are the last gate."""
    from p2p.audit import GameReport
    from p2p.transcript.file import VerifyReport

    rep = GameReport(crypto=VerifyReport(), ok=False, check=EVIL, detail=EVIL + "y" * 5000)
    rep.names = ("Ann", "Bob")
    text = " ".join(words.verify_lines(rep)).replace("\n", " ")
    assert "forged line" in text and _clean(text) and len(text) < 1200, text[:300]


# ------------------------------------------------------------------ zeroconf records
@pytest.mark.parametrize("resolve", ["none", "raises"])
def test_an_announced_service_name_reaches_the_log_clean(
        resolve: str, caplog: pytest.LogCaptureFixture) -> None:
    """A service name is any machine's on the LAN; one that did not resolve, or not to
    one of our tables, was logged raw (a forged log line, escapes for `tail -f`)."""
    pytest.importorskip("zeroconf")
    from zeroconf import ServiceStateChange

    from p2p.net.discovery import SERVICE_TYPE, TableBrowser

    class FakeZeroconf:
        def get_service_info(self, *_: object, **__: object) -> None:
            if resolve == "raises":
                raise ValueError("no")
            return None

    b = TableBrowser.__new__(TableBrowser)
    b._callback, b._tables, b._cond = None, {}, threading.Condition()
    b._timeout_ms, b._closed = 1, False
    caplog.set_level("INFO", logger="p2p.discovery")
    b._on_change(FakeZeroconf(), SERVICE_TYPE,  # type: ignore[arg-type]
                 EVIL + "." + SERVICE_TYPE, ServiceStateChange.Added)
    logged = [r.getMessage() for r in caplog.records]
    assert logged and all(_clean(m) for m in logged), logged


# ------------------------------------------------------------------ unbounded output
@pytest.mark.hostile    # an attack, 2-5 s (the default run's 10-minute budget)
def test_a_flood_of_lobby_states_prints_a_bounded_number_of_lines() -> None:
    """`join` printed the lobby's seats at every state the host sent: a host toggling its
    ready flag in a loop scrolled thousands of lines a second through the joiner's
    terminal (and the host-key line out of sight). Now at most two a second."""
    import argparse
    import io
    import time

    from cli import join as join_mod
    from cli.seats import LineReader

    ids, nodes, host = _lobby(3)
    try:
        c = LobbyClient(ids[1], "Ben", nodes[1], f"127.0.0.1:{nodes[0].port}")
        _until_seated(host, c)
        assert c.seat is not None

        def flood() -> None:
            end, i = time.monotonic() + 2.0, 0
            while time.monotonic() < end:
                host.set_ready(i % 2 == 0)
                i += 1
                host.pump(0.001)
            host.kick(1, "enough")
            for _ in range(50):
                host.pump(0.01)

        th = threading.Thread(target=flood, daemon=True)
        th.start()
        out = io.StringIO()
        args = argparse.Namespace(not_ready=True, connect_timeout=10.0, auto=True)
        with pytest.raises(OSError, match="enough"):
            join_mod._lobby(c, args, f"127.0.0.1:{nodes[0].port}", out, LineReader(io.StringIO()))
        th.join(5.0)
        shown = [line for line in out.getvalue().splitlines() if "Ann's table" in line]
        assert 1 <= len(shown) <= 8, len(shown)
    finally:
        for n in nodes:
            n.close()


@pytest.mark.parametrize("preset_value", [5, EVIL])
def test_games_lists_a_table_whose_host_chose_an_odd_preset(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], preset_value: object) -> None:
    """The preset is in the signed header every seat stores: a number there made
    `millebornes games` fail ("unexpected error: AttributeError", in i18n.pad), escapes
    went to the terminal as they were. Now Rules refuses such a preset: the table cannot
    be read and is not listed."""
    from cli.main import main
    from engine import Seating
    from p2p.table.memory import make_table
    from p2p.table.store import Store

    rules = _unchecked_rules(preset=preset_value)
    cfg, _ids = make_table(rules, Seating.solo(2), ["Ann", "Bob"], b"odd-preset")
    Store.create(tmp_path, cfg.header(), 1, port=0).close()
    assert main(["games", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    # Rules refuses such a preset, so the stored table is one `games` cannot read: it is
    # left out (as every unreadable folder; `verify` names the fault), never shown raw
    assert "Ann, Bob*" not in out and _clean(out.replace("\n", " ")), out
