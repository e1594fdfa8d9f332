"""Hostile pass 16: hostile files in the data folder and given to ``verify`` and
``resume``, hostile discovery records (docs/protocol.md, docs/network.md). Each test
failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import AnnouncedTables, join_until_seated
from test_cli_games import _saved_game

from cli.main import main
from engine import Seating, preset
from p2p.transcript.envelope import Envelope


def test_games_ignores_a_state_record_nested_too_deep_for_json(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``games-state.json`` (the listing's memory, in the data folder) of 200,000 ``[``:
    json cannot decode it (RecursionError, not a ValueError), and ``games`` stopped with
    "unexpected error: RecursionError" (exit 1) instead of ignoring it as it ignores any
    other record it cannot read; the listing is the one without it."""
    data = tmp_path / "data"
    table = _saved_game(data)
    (data / "games-state.json").write_text("[" * 200_000)
    assert main(["games", "--data-dir", str(data)]) == 0
    out = capsys.readouterr()
    assert "unexpected" not in out.err, out.err
    row = next(line for line in out.out.splitlines() if line.startswith(table.name[:8]))
    assert "in progress (hand 1)" in row, out.out
    assert (data / "games-state.json").read_text().startswith("{")   # written anew


@pytest.mark.parametrize("nested", ["a = " + "[" * 5000, "a = " + "{b = " * 5000])
def test_a_config_file_nested_too_deep_is_a_problem_said_not_a_stop(
        tmp_path: Path, nested: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The player's config file (``config.toml``, 5 KB) of arrays or inline tables nested
    5000 deep: tomllib recurses, and every command stopped with "millebornes: unexpected
    error: RecursionError". It is a config file that is not TOML: said, and ignored."""
    from cli import i18n

    config = tmp_path / "config.toml"
    config.write_text(nested)
    settings = i18n.resolve(None, None, environ={}, config=config)
    assert settings.language == i18n.resolve(None, None, environ={},
                                             config=tmp_path / "none").language
    assert any("not a TOML file (nested too deeply)" in p for p in settings.problems)
    monkeypatch.setenv("MILLEBORNES_CONFIG", str(config))
    data = tmp_path / "data"
    table = _saved_game(data)
    assert main(["games", "--data-dir", str(data)]) == 0
    out = capsys.readouterr()
    assert "unexpected" not in out.err, out.err
    assert table.name[:8] in out.out
    assert "config file: " in out.err and "not a TOML file (nested too deeply) (ignored)" \
        in out.err, out.err


def test_verify_of_an_entry_nested_too_deep_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A transcript's header, then one msgpack array nested 3000 deep: msgpack refuses it
    (StackError, whose message is empty) and the report said "undecodable object:" and
    nothing more. It names what is wrong; nobody is blamed (file-corrupt, exit 1)."""
    table = _saved_game(tmp_path / "data")
    path = tmp_path / "nested.mbt"
    path.write_bytes((table / "transcript.mbt").read_bytes() + b"\x91" * 3000 + b"\x00")
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr()
    said = " ".join((out.out + out.err).split())
    assert "[file-corrupt]" in said and "undecodable object: nested too deeply" in said, said


def test_join_by_fingerprint_tries_every_table_announced_with_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A table's TXT record is public: a machine on the LAN announces a copy of it (the
    same fingerprint, name, CURVE key) at an address of its own. ``join --table FP`` took
    the first table announced with that fingerprint and stopped at its refusal (no
    answer, or "the table at ... has key ..."): the real table, announced too, was never
    asked. Every table announced with the fingerprint is tried in turn (the host's key
    decides which is the one); here neither listens, and both are said."""
    import socket

    import p2p.net.discovery as discovery
    from p2p.net.discovery import TableInfo

    ports = []
    for _ in range(2):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.append(s.getsockname()[1])      # closed again: nothing listens there
    fp = "UN2KD-LVPJF"
    tables = [TableInfo(f"{name}._millebornes._tcp.local.", "Ann's table", "classic", 1, 1,
                        fp, port, ("127.0.0.1",))
              for name, port in (("copy", ports[0]), ("Ann's table", ports[1]))]

    monkeypatch.setattr(discovery, "browse_tables", lambda **kw: AnnouncedTables(tables))
    code = main(["join", "--table", fp, "--bind", "127.0.0.1", "--auto",
                 "--connect-timeout", "20", "--data-dir", str(tmp_path / "data"),
                 "--identity", str(tmp_path / "id.key")])
    out = capsys.readouterr()
    said = " ".join((out.out + out.err).split())
    assert code == 2, said
    assert f"nothing listens at tcp://127.0.0.1:{ports[0]}" in said, said
    assert f"Trying the table's next address, tcp://127.0.0.1:{ports[1]}" in said, said
    assert f"nothing listens at tcp://127.0.0.1:{ports[1]}" in said, said


def test_join_by_fingerprint_passes_a_copy_answering_with_another_key_to_the_table(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Real lobbies on loopback: a machine announces a copy of Ann's table's record (her
    fingerprint) at its own lobby, found first. ``join --table HER_FP`` asked only it and
    stopped at "the table at ... has key ..., not the expected ...". It says so, then
    asks the next table announced with her fingerprint, and is seated at hers."""

    from cli.seats import listen
    from p2p.crypto.identity import Identity
    from p2p.net.discovery import TableInfo
    from p2p.table.lobby import LobbyHost

    ann, eve = Identity.generate(), Identity.generate()
    hosts = [LobbyHost(i, name, listen(i, "127.0.0.1", 0, secure=True), preset("classic"),
                       Seating.solo(2)) for i, name in ((eve, "Eve"), (ann, "Ann"))]
    tables = [TableInfo(f"{name}._millebornes._tcp.local.", "Ann's table", "classic", 1, 1,
                        ann.fingerprint, h.node.port, ("127.0.0.1",))
              for name, h in zip(("copy", "Ann's table"), hosts, strict=True)]

    try:
        code, said, seated, _took = join_until_seated(
            monkeypatch, tmp_path, capsys, tables, ann.fingerprint, hosts, hosts[1])
    finally:
        for h in hosts:
            h.node.close()
    assert seated, said
    assert code != 0, said                      # Ann closed her table
    assert (f"the table at tcp://127.0.0.1:{hosts[0].node.port} has key {eve.fingerprint}, "
            f"not the expected {ann.fingerprint}") in said, said
    assert "the host closed the table before the match started" in said, said
    assert f"Trying the table's next address, tcp://127.0.0.1:{hosts[1].node.port}" in said, \
        said
    assert "Traceback" not in said


def test_resume_holds_a_crafted_log_in_little_more_than_its_size(tmp_path: Path) -> None:
    """``resume`` holds its whole stored log as bytes (bounded by the transcript's 512 MiB
    limit): a ``bytes`` object per entry added 41 bytes to each, and 20,000 well-formed
    entries of some 180 bytes were held in 1.28 times their size (traced), 1.19 without
    the offsets. One buffer and an array of ends: under 1.15 times."""
    import tracemalloc

    from p2p.crypto.identity import Identity
    from p2p.transcript.file import StoredLog, read_transcript

    table = _saved_game(tmp_path / "data")
    path = table / "transcript.mbt"
    header = read_transcript(path).header
    eve = Identity.generate()
    entry = Envelope.create(eve, header.table, 0, 1, bytes(32), {"k": "game.act", "a": 1})
    with open(path, "ab") as f:
        f.write(entry.encode() * 20_000)
    size = path.stat().st_size
    tracemalloc.start()
    try:
        held = read_transcript(path, lean=True)
        now = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert isinstance(held.entries, StoredLog) and len(held.entries) == 20_000
    assert held.entries[-1] == entry and list(held.entries.head(2)) == [entry, entry]
    assert now < 1.15 * size, (now, size, now / size)


def test_resume_says_it_reads_a_large_copy_before_it_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``resume`` decodes and checks every stored entry before it says anything: 100,000
    crafted entries (17 MB) kept the terminal blank for 10 s, minutes at the
    512 MiB limit. A copy of 2 MiB or more is said first, with its size; a small one
    is not."""
    import cli.resume as resume

    data = tmp_path / "data"
    table = _saved_game(data)
    short = table.name[:8]
    said: list[str] = []

    def reading(path: Path, ident: object, **kw: object) -> None:
        said.append(capsys.readouterr().out)    # what was said before the reading
        raise ValueError("stopped here by the test")

    monkeypatch.setattr(resume, "resume_peer", reading)
    argv = ["resume", short, "--data-dir", str(data), "--plain",
            "--identity", str(tmp_path / "id.key")]
    main(argv)
    assert said and "reading this computer's copy" not in said[0], said
    with open(table / "transcript.mbt", "ab") as f:
        f.write(b"\xc0" * (3 << 20))
    main(argv)
    assert len(said) == 2
    assert (f"reading this computer's copy of game {short} (3.1 MB): every entry is "
            "checked again before play goes on") in " ".join(said[1].split()), said[1]


def test_a_table_announced_without_a_fingerprint_is_listed_with_a_command_that_works(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A TXT record whose ``fp`` is no fingerprint (a machine that is not this program,
    or one that altered it) is kept without one. ``lobby`` listed it with "host []" and
    "millebornes join --peer @HOST:PORT", which join refuses ("not a key fingerprint"),
    and ``join``'s list of tables with "millebornes join --table" and nothing after it.
    Each offers the address instead, a command join takes."""
    import socket

    from cli.join import several_tables_text
    from cli.lobby import _join_command, _said
    from p2p.net.discovery import TableInfo
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]                 # closed again: nothing listens there
    nofp = TableInfo("x._millebornes._tcp.local.", "Eve", "classic", 1, 1, "", port,
                     ("127.0.0.1",))
    real = TableInfo("a._millebornes._tcp.local.", "Ann", "classic", 1, 1, "UN2KD-LVPJF",
                     4322, ("127.0.0.1",))
    command = str(_join_command(nofp))
    assert command == f"millebornes join --peer 127.0.0.1:{port}", command
    assert str(_join_command(real)) == "millebornes join --peer UN2KD-LVPJF@127.0.0.1:4322"
    listed = " ".join(" ".join(_said("+", nofp, 200)).split())
    assert "host [?]" in listed and f"--peer 127.0.0.1:{port}" in listed, listed
    text = several_tables_text([nofp, real])
    assert f"    millebornes join --peer 127.0.0.1:{port}" in text.splitlines(), text
    assert "    millebornes join --table UN2KD-LVPJF" in text.splitlines(), text
    assert "'Eve' [?]" in text, text
    # the command offered is one join takes: it asks that address
    code = main(["join", "--peer", f"127.0.0.1:{port}", "--bind", "127.0.0.1", "--auto",
                 "--connect-timeout", "5", "--data-dir", str(tmp_path / "data"),
                 "--identity", str(tmp_path / "id.key")])
    err = capsys.readouterr().err
    assert code == 2 and "nothing listens at" in err and "fingerprint" not in err, err
