"""``verify``, ``replay`` and the rule checks in the player's language (issue 13): what the
engine and p2p hand over as ids and data (a rule option's fault, a protocol check, a
protocol step, how a hand ended) is put into words by ``cli.words``, and the names of a
transcript are shown as their players wrote them ("You" is a name there, never this
screen's player)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from i18n_helpers import english_card_names_in

from cli import i18n
from cli.main import main
from engine import Seating, preset
from engine.bots import make_bot
from p2p.table.memory import make_table, play_fair_match
from p2p.transcript.envelope import Envelope
from p2p.transcript.file import read_transcript

LANGUAGES = ("fr", "sv", "vi", "af", "ug")


@pytest.fixture(autouse=True)
def _keep_language() -> Iterator[None]:
    """``main`` activates the language it is given: put the test run's back afterwards."""
    before = i18n.active()
    yield
    i18n.activate(before)


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One honest 2-player game whose first player chose the name "You"."""
    cfg, ids = make_table(preset("modern"), Seating(2, 2), ["You", "Bo"], b"i18n-reports")
    path = tmp_path_factory.mktemp("reports") / "you.mbt"
    play_fair_match(cfg, ids, [make_bot("heuristic", s).choose for s in range(2)],
                    transcript=path)
    return {"cfg": cfg, "ids": ids, "path": path}


def _rewrite(src: Path, dst: Path, envs: list[Envelope]) -> Path:
    t = read_transcript(src)
    with open(dst, "wb") as f:
        f.write(t.header_bytes)
        for e in envs:
            f.write(e.encode())
    return dst


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


# ----- names as written -------------------------------------------------------------------

@pytest.mark.parametrize("language", ["en", "fr", "sv"])
def test_verify_shows_a_seat_named_you_as_written(
        game: dict[str, Any], language: str, capsys: pytest.CaptureFixture[str]) -> None:
    """verify has no seat of this screen's: "You" is a player's name, shown as written (it
    was translated: "manche 1 : Vous a commencé ; Vous 100, Bo 1450")."""
    code, out, _err = _run(["verify", "--lang", language, str(game["path"])], capsys)
    assert code == 0
    with i18n.using(language):
        translated = i18n._("You")
    assert any(line.strip().startswith(("hand 1", "manche 1", "giv 1")) and "You" in line
               for line in out.splitlines()), out
    if language != "en":
        assert translated not in out, out


def test_verify_names_a_blamed_seat_called_you_as_written(
        tmp_path: Path, game: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    """"cassée par place 0 (Vous)" read as if the reader were blamed."""
    envs = list(read_transcript(game["path"]).entries)
    e = envs[4]
    seat = next(p.seat for p in game["cfg"].players if p.key == e.author)
    assert seat == 0
    twin = Envelope.create(game["ids"][seat], e.table, e.hand, e.seq, e.prev,
                           {**e.body, "note": "second version"})
    bad = _rewrite(game["path"], tmp_path / "equiv.mbt", envs[:5] + [twin] + envs[5:])
    code, out, _err = _run(["verify", "--lang", "fr", str(bad)], capsys)
    assert code == 1
    assert "place 0 (You)" in out and "Vous" not in out, out


@pytest.mark.parametrize("language", LANGUAGES)
def test_replay_speaks_the_players_language_and_names_you_as_a_player(
        game: dict[str, Any], language: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``replay --plain`` rendered the table and the hands in English whatever --lang said
    ("Hand 1, modern rules, trip 1000 km. Draw pile: 94 cards", "End of Limit"), said the
    player called "You" in the "You" form, translated, and let step lines run past 80."""
    code, out, _err = _run(["replay", "--lang", language, "--plain", str(game["path"])],
                           capsys)
    assert code == 0
    assert english_card_names_in(out, language) == []
    assert "Draw pile" not in out and "modern rules" not in out
    with i18n.using(language):
        you = i18n._("You")
        you_drew = i18n._("You drew %(card)s.").split("%(")[0]
    lines = out.splitlines()
    assert "You 1" in out
    assert not any(line.startswith(("* " + you_drew, "* " + you + " ")) for line in lines)
    assert i18n.overflowing(lines, 80, 10**6) == []   # as the terminal gets them
