"""Errors and status messages a new player meets first, in the player's language (issue 13):
a bad option, a refused seat, a stopped match. Each message still names what is wrong and
who (the option, the value, the seat), whatever the language."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from cli import i18n, words
from cli.main import main
from cli.words import error_line, store_damaged_line
from p2p.table.store import TRANSCRIPT, StoreDamaged

if TYPE_CHECKING:
    from p2p.table.lobby import LobbyState

LANGUAGES = ("en", "fr", "sv", "vi", "af", "ug")


pytestmark = pytest.mark.usefixtures("keep_language")


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().err


def test_a_bad_port_in_swedish_is_said_in_swedish(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _error(["host", "--lang", "sv", "--port", "x"], capsys)
    assert code == 2
    assert "--port: en port är ett tal från 1 till 65535, inte 'x'" in err
    assert "millebornes host" in err
    assert "a port is" not in err


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_bad_port_names_the_option_and_the_value_in_every_language(
        language: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _error(["join", "--lang", language, "--bidi", "terminal", "--port", "99999"],
                       capsys)
    assert code == 2
    assert "--port" in err and "99999" in err and "65535" in err
    assert ("a port is a number" in err) == (language == "en")


def test_an_unknown_bot_in_french_names_the_bot_and_the_choices(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _error(["play", "--lang", "fr", "--bots", "easy,nosuchbot"], capsys)
    assert code == 2
    assert "aucun robot ne s'appelle 'nosuchbot'" in err
    assert "--bots" in err and "heuristic" in err and "expert" in err


def test_too_many_bots_in_vietnamese(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _error(["play", "--lang", "vi", "--bots", "9"], capsys)
    assert code == 2
    assert "--bots phải từ 1 đến 5 (một bàn có từ 2 đến 6 người chơi), không phải 9" in err


def test_argparse_own_choice_error_is_translated(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _error(["play", "--lang", "af", "--rules", "odd"], capsys)
    assert code == 2
    assert "ongeldige keuse: 'odd'" in err and "'classic'" in err


def test_a_bad_name_in_afrikaans_names_the_name() -> None:
    from cli.args import check_name
    with i18n.using("af"), pytest.raises(ValueError) as exc:
        check_name("a b")
    assert str(exc.value) == "--name neem een woord (letters, syfers, - _ ' .), nie 'a b' nie"


def test_simulate_checks_its_bots_in_the_players_language(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _error(["simulate", "--lang", "sv", "--bots", "heuristic,robocop",
                        "--games", "1"], capsys)
    assert code == 2
    assert "--bots: det finns ingen bot som heter 'robocop'" in err


# ----- a damaged copy of a game, said from the store's data ---------------------------------

def _damaged_cases(path: Path) -> list[StoreDamaged]:
    from p2p.table.store import _secrets_todo
    return [StoreDamaged(path, "table.msgpack", "missing", what_id="missing"),
            StoreDamaged(path, "secrets.log", "too large (99 bytes)", what_id="too-large",
                         size=99),
            StoreDamaged(path, TRANSCRIPT, "at byte 9: bad length"),
            StoreDamaged(path, "secrets.log", "hand 1: junk", _secrets_todo(path),
                         "secrets-lost"),
            StoreDamaged(path, "table.msgpack", "not readable by this account",
                         f"check the permissions of {path / 'table.msgpack'}", "permissions",
                         what_id="unreadable"),
            StoreDamaged(path, TRANSCRIPT, "written in a format this version cannot read",
                         "update millebornes, then resume again", "update")]


def test_a_damaged_copy_reads_as_the_store_says_in_english(tmp_path: Path) -> None:
    """The words are the store's own sentence in English: nothing lost by the ids."""
    path = tmp_path / ("0123abcd" * 4)
    with i18n.using("en"):
        for exc in _damaged_cases(path):
            assert store_damaged_line(exc) == str(exc)
            assert error_line(exc) == str(exc)
        other = StoreDamaged(path, "secrets.log", "odd", "ask someone")
        assert error_line(other) == str(other)


@pytest.mark.parametrize("language", ["fr", "sv", "vi", "af", "ug"])
def test_a_damaged_copy_names_the_game_file_and_fault_in_every_language(
        tmp_path: Path, language: str) -> None:
    path = tmp_path / ("0123abcd" * 4)
    with i18n.using(language):
        for exc in _damaged_cases(path):
            text = store_damaged_line(exc)
            assert "0123abcd" in text and exc.file in text
            # a usual fault is said in the language, a technical detail kept as it is
            assert (exc.what in text) == (not exc.what_id), text
            assert str(exc.size or "") in text
            assert "local damage" not in text and "it cannot be resumed" not in text


def test_resume_of_a_damaged_copy_in_french(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / ("0123abcd" * 4)
    (table / "table.msgpack").mkdir(parents=True)       # a folder where a file should be
    code, err = _error(["resume", "--lang", "fr", "--data-dir", str(tmp_path), "0123"], capsys)
    assert code == 2
    assert ("la copie de la partie 0123abcd sur cet ordinateur est endommagée (table.msgpack : "
            "un dossier à la place d'un fichier) : dégât local, personne n'a triché ; ") in err
    assert "Traceback" not in err


# ----- network set-up lines --------------------------------------------------------------

def test_cannot_listen_names_the_address_and_port_in_swedish() -> None:
    from cli.seats import listen
    from p2p.crypto.identity import Identity
    with i18n.using("sv"), pytest.raises(OSError) as exc:
        listen(Identity.from_seed(b"\x01" * 32), "192.0.2.55", 4999)
    assert str(exc.value).startswith("kan inte lyssna på 192.0.2.55, port 4999: den här datorn "
                                     "har ingen sådan adress")


def test_the_host_key_line_in_vietnamese() -> None:
    from types import SimpleNamespace

    from cli.join import host_key_lines
    client = SimpleNamespace(host_key=b"\x02" * 32, host_fp=None)
    with i18n.using("vi"):
        sentence, command = host_key_lines(client, "10.0.0.7:4770")  # type: ignore[arg-type]
    assert sentence.startswith("Khóa của chủ bàn là ") and sentence.endswith(":")
    assert command.startswith("  --peer ") and command.endswith("@10.0.0.7:4770")


# ----- known players and the lobby: data in p2p, words in cli -------------------------------

def test_a_changed_key_is_data_in_p2p_and_words_in_every_language(tmp_path: Path) -> None:
    from cli.words import key_change_line
    from p2p.crypto.identity import Identity, fingerprint
    from p2p.crypto.known import KnownPlayers
    bob, mallory = Identity.generate(), Identity.generate()
    KnownPlayers(tmp_path / "known").observe("Bob", bob.public_key)
    change = KnownPlayers(tmp_path / "known").meet("Bob", mallory.public_key)
    assert change is not None and change.known == (bob.public_key,)
    with i18n.using("en"):
        assert key_change_line(change) == f"Warning: {change.english()}."
    for language in ("fr", "sv", "vi", "af", "ug"):
        with i18n.using(language):
            line = key_change_line(change)
        assert "Bob" in line and fingerprint(mallory.public_key) in line \
            and fingerprint(bob.public_key) in line and "warning" not in line.lower()
    with i18n.using("sv"):
        assert key_change_line(change).startswith("Varning: Bob [")


def test_a_damaged_known_players_file_in_french(tmp_path: Path) -> None:
    from cli.words import known_problem_line
    from p2p.crypto.known import KnownPlayers
    (tmp_path / "known").write_bytes(b"\xc1\xc1 damaged")
    known = KnownPlayers(tmp_path / "known")
    assert known.problem_id == "damaged"
    with i18n.using("en"):
        assert known_problem_line(known) == f"({known.problem})"
    with i18n.using("fr"):
        line = known_problem_line(known)
    assert line is not None and "était endommagé" in line and str(tmp_path / "known") in line


def _lobby_state(teams: bool) -> LobbyState:
    from engine import Seating, preset
    from p2p.crypto.identity import Identity
    from p2p.table.lobby import LobbyState, SeatInfo
    seating = Seating.parse(4, "2x2") if teams else Seating.solo(3)
    seats: list[SeatInfo | None] = [
        SeatInfo("Ann", Identity.generate().public_key, ready=True),
        SeatInfo("Bo", Identity.generate().public_key, bot=True, ready=True), None]
    seats += [None] * (seating.n_players - len(seats))
    return LobbyState("t", preset("classic"), seating, seats, b"h" * 32, b"l" * 16)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("teams", [False, True])
def test_the_lobby_seats_in_every_language(language: str, teams: bool) -> None:
    from cli.words import lobby_seat_lines
    st = _lobby_state(teams)
    with i18n.using(language):
        lines = lobby_seat_lines(st)
        ready, bot = i18n._("ready"), i18n._("bot")
    assert len(lines) == st.seating.n_players
    assert "Ann" in lines[0] and st.seats[0].fingerprint in lines[0]  # type: ignore[union-attr]
    assert ready in lines[0] and bot not in lines[0]
    assert bot in lines[1] and ready in lines[1]
    assert ("free" in lines[2]) == (language == "en")
    assert ("team" in " ".join(lines)) == (teams and language == "en")
    assert lines[0].startswith({"en": "seat 0", "fr": "place 0", "sv": "plats 0", "vi": "chỗ 0",
                                "af": "plek 0", "ug": "ئورۇن 0"}[language])


# ----- why the match stopped: reason ids from the replicated log, words here ----------------

STOPS = [{"id": "catch-up-failed", "seconds": 20.0},
         {"id": "fell-behind", "seconds": 40},
         {"id": "unresponsive", "seat": 1, "step": "deck.share"},
         {"id": "abandoned", "seat": 1, "text": "dinner"},
         {"id": "abandoned", "seat": 1, "text": ""},
         {"id": "agreed-end", "hand": 2, "seat": 1},
         {"id": "unfounded-complaint", "seat": 1},
         {"id": "valid-share-complaint", "seat": 1},
         {"id": "equivocation", "seat": 1},
         {"id": "protocol", "seat": 1, "check": "share-proof", "by": 0},
         {"id": "protocol", "seat": 1, "check": "card-not-held", "by": None},
         {"id": "malformed-share", "seat": 1},
         {"id": "broken-log", "seat": 1, "check": "bad-link"}]


def test_a_stop_reason_id_in_french() -> None:
    from cli.words import stop_reason, stopped_line
    why = {"id": "protocol", "seat": 1, "check": "share-proof", "by": 0}
    with i18n.using("fr"):
        # the check in words, its id in brackets (issue 13: the id alone was English)
        assert stop_reason(why, ["Ann", "Bo"]) == ("la place 1 (Bo) a enfreint les règles du "
                                                   "protocole (une part de déchiffrement qui "
                                                   "échoue à sa preuve [share-proof], montré "
                                                   "par la plainte d'Ann)")
        assert stopped_line("English from the log", why, ["Ann", "Bo"]).startswith(
            "La partie s'est arrêtée : la place 1 (Bo) a enfreint")
        # no id (a stop by a caller that gave none): the log's own text, never nothing
        assert stop_reason(None, ["Ann", "Bo"], "I left") == "I left"
        assert stop_reason({"id": "from-a-newer-version"}, ["Ann"], "x") == "x"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_stop_reason_names_who_in_every_language(language: str) -> None:
    from cli.words import player_step_words, stop_reason
    with i18n.using(language):
        for why in STOPS:
            text = stop_reason(why, ["You", "Bo"], "FALLBACK")
            assert text and text != "FALLBACK", why
            if why["id"] not in ("catch-up-failed", "fell-behind"):
                assert "Bo" in text, (why, text)
            for key in ("check", "text"):     # a check's id stays, in brackets
                assert str(why.get(key) or "") in text
            if "step" in why:                   # a step is said in words (issue 13), a
                # player's (newcomer pass 32: "its next step (decryption share)")
                assert player_step_words(why["step"]) in text and why["step"] not in text


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_local_failure_to_write_or_save_is_said_with_what_to_do(language: str) -> None:
    """The stops of a peer that cannot write or save its own step (a full disk): the
    system's error kept, and the command that goes on."""
    from cli.words import stop_reason
    with i18n.using(language):
        for kind in ("own-step-failed", "save-failed"):
            text = stop_reason({"id": kind, "error": "[Errno 28] No space left on device"},
                               ["You", "Bo"], "FALLBACK")
            assert text != "FALLBACK" and "No space left" in text, (kind, text)
            assert "millebornes resume" in text, (kind, text)


# ----- the lobby's refusals: fixed English codes on the wire, words here --------------------

REFUSALS = [("table-full", {}, "the table is full"),
            ("started-without-you", {}, "the table started without you"),
            ("asked-to-leave", {}, "the host asked you to leave"),
            ("transport-key-mismatch", {}, "your transport key does not match your connection"),
            ("host-said", {"text": "no strangers"}, "no strangers"),
            ("host-key-mismatch", {"endpoint": "tcp://10.0.0.7:4770", "key": "AAAAA-BBBBB",
                                   "expected": "CCCCC-DDDDD"}, "10.0.0.7"),
            ("no-answer", {"endpoint": "tcp://10.0.0.7:4770", "seconds": 10.0,
                           "with_key": True}, "10.0.0.7"),
            ("no-answer", {"endpoint": "tcp://10.0.0.7:4770", "seconds": 10.0,
                           "with_key": False}, "10.0.0.7"),
            ("invalid-message", {"wrong": "bad-signature"}, "bad-signature"),
            ("bad-start", {"detail": "the host changed our name"}, "the host changed our name"),
            ("two-fingerprints", {"first": "AAAAA-BBBBB", "second": "CCCCC-DDDDD"},
             "CCCCC-DDDDD"),
            ("version", {"host": 2, "ours": 1}, "2"),
            ("host-version", {"host": "1", "ours": "99"}, "99")]


def test_a_hosts_refusal_sentence_is_a_stable_code() -> None:
    from p2p.table.lobby import HOST_REFUSALS, refusal_why
    for sentence, why in HOST_REFUSALS.items():
        assert refusal_why(sentence) == (why, {})
    assert refusal_why("this table speaks lobby protocol version 1 and you speak 99: both "
                       "players need the same millebornes version") == \
        ("host-version", {"host": "1", "ours": "99"})
    assert refusal_why("go away") == ("host-said", {"text": "go away"})


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_lobby_refusal_is_said_with_its_names_in_every_language(language: str) -> None:
    from cli.words import lobby_refusal
    with i18n.using(language):
        for why, data, kept in REFUSALS:
            text = lobby_refusal(why, data, "FALLBACK")
            assert text and text != "FALLBACK", why
            fixed = why in ("table-full", "started-without-you", "asked-to-leave",
                            "transport-key-mismatch")
            if language == "en" and fixed:
                assert text == kept                  # the host's very sentence
            elif not fixed:
                assert kept in text, (why, text)     # the names, addresses and keys kept
        assert lobby_refusal("", {}, "FALLBACK") == "FALLBACK"


def test_a_full_table_in_swedish() -> None:
    from cli.words import lobby_refusal
    with i18n.using("sv"):
        assert i18n._("the host refused: %(reason)s") % {
            "reason": lobby_refusal("table-full", {}, "the table is full")} == \
            "värden vägrade: bordet är fullt"


# ----- simulate and tournament ------------------------------------------------------------

def test_tournament_progress_and_errors_in_swedish(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["tournament", "--lang", "sv", "--bots", "random,heuristic", "--deals", "1",
                 "--jobs", "1"])
    out = capsys.readouterr()
    assert code == 0
    assert "2/2 matcher" in out.err and "s kvar" in out.err and "matches" not in out.err
    code, err = _error(["tournament", "--lang", "sv", "--bots", "random,random"], capsys)
    assert code == 2 and "--bots anger en bot två gånger" in err
    code, err = _error(["tournament", "--lang", "sv", "--bots", "random,genius"], capsys)
    assert code == 2 and "det finns ingen bot som heter 'genius'" in err


@pytest.mark.slow    # 5-7 s: a whole fair-deck match (the French summary line is the point)
def test_simulate_fair_deck_line_in_french(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--lang", "fr", "--fair-deck", "--games", "1",
                 "--bots", "random"])
    out = capsys.readouterr().out
    assert code == 0
    assert "jeu équitable : " in out and " entrées signées" in out and "fair deck" not in out


def test_every_staged_cheat_has_its_words_the_same_in_english() -> None:
    from cli.words import CHEAT_WORDS
    from p2p.table.memory import CHEAT_KINDS
    assert set(CHEAT_WORDS) == set(CHEAT_KINDS)
    for kind, english in CHEAT_KINDS.items():
        assert CHEAT_WORDS[kind] == f"%(seat)s {english}."


def test_the_cheat_demo_in_vietnamese(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--lang", "vi", "--fair-deck", "--cheat", "withheld-reveal",
                 "--cheater", "1", "--transcript-dir", str(tmp_path)])
    # the report is wrapped at 80 columns, each sentence's further lines indented
    out = " ".join(capsys.readouterr().out.split())
    assert code == 0
    assert out.startswith("chỗ 1 (random2) không bao giờ tiết lộ bí mật của ván")
    assert "bị bắt: chỗ 1 (random2)" in out and "phán quyết: không phản hồi." in out
    assert "verify chỉ ra cùng chỗ đó." in out and "caught" not in out
    assert "; verify: THẤT BẠI ở cuối tệp: bí mật của một ván không bao giờ được tiết lộ " \
        "[reveal-missing], bị chỗ 1 (random2) vi phạm" in out and "FAILED" not in out


@pytest.mark.parametrize("argv, needle", [
    (["play", "--lang", "sv", "--bots", "3", "--teams", "2x3"],
     "--teams 2x3 behöver 6 spelare, inte 4"),
    (["play", "--lang", "sv", "--bots", "3", "--teams", "3x3"],   # not "behöver 9 spelare"
     "--teams tar 2x2, 2x3 eller 3x2, inte '3x3'"),
    (["play", "--lang", "fr", "--teams", "2y2"], "--teams prend 2x2, 2x3 ou 3x2, pas '2y2'"),
    (["simulate", "--lang", "af", "--option", "fastplay=yes"],
     "onbekende reëlkeuse 'fastplay'; bekend: "),
    (["tournament", "--lang", "vi", "--option", "fast_play"],
     "tùy chọn 'fast_play' phải có dạng TÊN=GIÁTRỊ"),
])
def test_rule_and_team_options_in_the_players_language(
        argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _error(argv, capsys)
    assert code == 2 and needle in err, err


def test_lobby_lines_are_shaped_for_uyghur(tmp_path: Path) -> None:
    """Lines printed outside the board (lobby, host, join, resume) go through
    ``i18n.display`` like the board's: shaped and ordered for a terminal without bidi."""
    import argparse
    import io

    from cli import join
    out = io.StringIO()
    args = argparse.Namespace(peer=["127.0.0.1:9"], auto=True, connect_timeout=0.3,
                              identity=str(tmp_path / "id.key"), lang="ug")
    with i18n.using("ug") as tr, pytest.raises(OSError):
        join.run(args, out=out, inp=io.StringIO(""))
    lines = out.getvalue().splitlines()
    asking = tr.gettext("Asking the table at %(address)s (waiting up to %(seconds)s s)") \
        % {"address": "127.0.0.1:9", "seconds": "0.3"}
    assert lines[0] == tr.display(asking) != asking      # what the first wait is for
    # the commands come with the seat the joiner got (round 6: "type 'sit N' to take
    # seat N" came first, before any seat); with no answer, no seat and no such line
    logical = tr.gettext(join.LOBBY_HELP)
    assert tr.display(logical) != logical and tr.display(logical) not in lines, lines


def test_only_the_hosts_own_answers_read_as_a_refusal() -> None:
    from cli.words import lobby_error_line
    with i18n.using("en"):
        assert lobby_error_line("table-full", {}, "x") == "the host refused: the table is " \
            "full. Every seat is taken: millebornes lobby lists the tables on the LAN; " \
            "millebornes host opens one of your own."
        assert lobby_error_line("", {}, "odd") == "the host refused: odd"
        line = lobby_error_line("no-answer", {"endpoint": "tcp://10.0.0.7:4770",
                                              "seconds": 10.0, "with_key": False}, "x")
        assert line.startswith("no table answered at tcp://10.0.0.7:4770 within 10 s")
    with i18n.using("fr"):
        assert lobby_error_line("host-said", {"text": "complet"}, "x") == \
            "l'hôte a refusé : « complet » (ses propres mots)"


# ----- the config file -----------------------------------------------------------------------

@pytest.mark.parametrize("content, said", [
    (b'language = "german"\n', "unknown language 'german'"),
    (b"language = \n", "not a TOML file"),
    (b'bidi = "x"\n', "bidi must be one of shape, terminal, not 'x'"),
    (b"language = 5\n", "unknown language 5"),
    (b'language = "\xff"\n', "not a TOML file"),
    (None, ""),                                     # a folder where the file should be
])
def test_a_bad_config_file_is_said_once_on_stderr(
        content: bytes | None, said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """It fell back to English in silence: the problems were collected, never shown."""
    config = tmp_path / "config.toml"
    if content is None:
        config.mkdir()
    else:
        config.write_bytes(content)
    monkeypatch.setenv("MILLEBORNES_CONFIG", str(config))
    assert main(["games", "--data-dir", str(tmp_path / "data")]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert len(lines) == 1, err                     # once, one line
    assert lines[0].startswith(f"millebornes: config file: {config}: ") and said in lines[0]
    assert lines[0].endswith("(ignored)")
    assert str(config) not in out                   # never in the game's output


def test_a_good_config_file_says_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"
    config.write_text('language = "sv"\n')
    monkeypatch.setenv("MILLEBORNES_CONFIG", str(config))
    assert main(["games", "--data-dir", str(tmp_path / "data")]) == 0
    assert capsys.readouterr().err == ""


def test_a_seat_in_a_french_sentence_has_its_article(
        capsys: pytest.CaptureFixture[str]) -> None:
    """French said "place 1 (Bo) a abandonné la partie", "(L'entrée suivante, attendue de
    place 1 (Bo), manque …)" and, under simulate, "place 0 random gagne 3 (30 %)": a seat
    number in a sentence now has its article ("la place 1 (Bo)", "à la place 0, …"), and
    what is said of the seat agrees with it ("s'est plainte", "qu'elle n'a pas en main")."""
    import re

    from cli.words import CAUGHT_AS, CHEAT_WORDS, seat_label, stop_reason

    names = ["Ana", "Bo", "Cy"]
    with i18n.using("fr"):
        seat = seat_label(names, 1)
        said = [stop_reason({"id": kind, "seat": 1}, names)
                for kind in ("abandoned", "unfounded-complaint", "valid-share-complaint",
                             "equivocation")]
        said += [i18n._(CHEAT_WORDS[k]) % {"seat": seat} for k in CHEAT_WORDS]
        said += [i18n._(CAUGHT_AS[k]) % {"seat": seat} for k in CAUGHT_AS]
    with i18n.using("fr"):      # a signer out of range (a hostile transcript's) is a seat too
        ended = stop_reason({"id": "agreed-end", "seat": 1, "hand": 0, "signers": [0, 7]},
                            names)
    assert "par Ana et la place 7," in ended, ended
    assert said[0] == "la place 1 (Bo) a abandonné la partie", said[0]
    assert said[1] == "la place 1 (Bo) s'est plainte sans preuve", said[1]
    text = "\n".join(said)
    assert "qu'elle n'a pas en main" in text and "qu'il" not in text, text
    assert "à laquelle elle s'était engagée" in text and " il " not in text, text
    assert re.search(r"\bplace \d", text)
    for before in re.findall(r"(\S*) place \d", text):
        assert before == "la", text

    # simulate's table of results, one line a seat
    assert main(["simulate", "--lang", "fr", "--rules", "modern", "--players", "2",
                 "--games", "1", "--seed", "1"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if "place" in line]
    assert len(rows) == 2, rows
    for n, row in enumerate(rows):
        assert row.startswith(f"  à la place {n}, "), row


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_cheat_caught_on_nobody_or_on_several_seats_is_said_in_grammar(lang: str) -> None:
    """``simulate --cheat``'s report put "nobody" (or a list of seats) in the place of
    one seat: French read "personne a été prise en faute" and "la place 0 (Ana), la place
    1 (Bo) a été prise en faute". Nobody blamed has a sentence of its own, several seats
    the plural."""
    from cli.words import cheat_demo_lines
    from p2p.table.memory import CheatOutcome

    def report(blamed: list[int]) -> str:
        o = CheatOutcome(kind=next(iter(words.CHEAT_WORDS)), cheater=1, caught=True,
                         blamed=blamed, verdict="unresponsive", stage="play",
                         detected_by=[2], check="timeout", detail="", hand=0,
                         transcript=Path("t.log"))
        with i18n.using(lang):
            return cheat_demo_lines(o, ["Ana", "Bo", "Cy"], True)[1]

    expect = {"en": ("nobody was blamed", "(Ana) and seat 1 (Bo) were caught"),
              "fr": ("personne n'a été mis en cause",
                     "(Ana) et la place 1 (Bo) ont été prises en faute")}
    nobody, several = expect[lang]
    assert nobody in report([]), report([])
    assert several in report([0, 1]), report([0, 1])
