"""The fourteenth first-time-player pass: what a newcomer typed, read or saw and wondered."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from cli.main import main

# ----- 1. a choice mistyped: the valid ones, and the one it most likely meant --------------


@pytest.mark.parametrize("argv, said, meant", [
    (["play", "--rules", "modrn"], "'classic', 'modern'", "'modern'"),
    (["play", "--bots", "serch"], "easy, normal, hard, expert", "'search'"),
    (["play", "--bots", "normal,exprt", "--players", "3"], "easy, normal", "'expert'"),
    (["play", "--lang", "frr"], "en, fr, sv", "'fr'"),
    (["play", "--lang", "francais"], "en, fr, sv", "'fr'"),
    (["--bidi", "termnal", "play"], "'shape', 'terminal'", "'terminal'"),
    (["lobby", "--mdns", "loopbak"], "'all', 'default', 'loopback'", "'loopback'"),
    (["bench", "deks"], "'engine', 'deck'", "'deck'"),
    (["simulate", "--bots", "heuristik,random"], "choose from", "'heuristic'"),
])
def test_a_mistyped_choice_says_the_choices_and_the_one_it_likely_meant(
        argv: list[str], said: str, meant: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`millebornes play --rules modrn` listed 'classic', 'modern' and left the newcomer to
    spot the difference; every option that takes a choice or a name says the choices and,
    for a typo close to one, the one it most likely meant."""
    assert main(["--lang", "en", *argv] if argv[0] != "--bidi" else argv) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert said in err, err
    assert f"did you mean {meant}?" in err, err
    assert "Traceback" not in err


def test_nothing_close_is_guessed(capsys: pytest.CaptureFixture[str]) -> None:
    """No guess for a word close to no choice: the list alone."""
    assert main(["--lang", "en", "play", "--rules", "xyzzy"]) == 2
    err = capsys.readouterr().err
    assert "'classic', 'modern'" in err and "did you mean" not in err, err


@pytest.mark.parametrize("spec, meant", [("search:mss=100", "ms"), ("search:playout=9", "playouts"),
                                         ("heuristic:mtch=1", "match")])
def test_a_mistyped_bot_option_says_the_one_it_likely_meant(
        spec: str, meant: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`--bots search:mss=100` listed nine options; the typo's is named."""
    assert main(["--lang", "en", "play", "--bots", spec]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"did you mean {meant}?" in err, err


def test_a_mistyped_game_id_says_the_game_it_likely_meant(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`millebornes resume a3f9c1` (one letter wrong) said "no saved game has the id"."""
    from cli import games

    saved = [SimpleNamespace(path=Path("/x/a3f8c1d2e5f60718"), short_id="a3f8c1d2"),
             SimpleNamespace(path=Path("/x/77aa00bb11cc22dd"), short_id="77aa00bb")]
    monkeypatch.setattr(games, "saved_games", lambda base: saved)
    with pytest.raises(ValueError) as err:
        games.find_game("a3f9c1d2", None)
    assert "did you mean 'a3f8c1d2'?" in str(err.value), err.value


@pytest.mark.parametrize("lang", ["af", "fr", "sv", "ug", "vi"])
def test_did_you_mean_is_translated(lang: str) -> None:
    from cli import i18n

    with i18n.using(lang):
        said = i18n.did_you_mean("modrn", ["classic", "modern"])
    assert "'modern'" in said and "did you mean" not in said, said


# ----- 2. a player who left is not also "slow" ---------------------------------------------

def _paused_on_a_slow_seat(state: str) -> object:
    """Ann's console at a table paused on Bo, past his budget of automatic steps (76 s of
    60), whose computer is now ``state``."""
    from cli.netdriver import NetDriver
    from engine import Seating, new_hand, preset, view_of

    rules, seating = preset("classic"), Seating.solo(2)
    view = view_of(new_hand(rules, seating, list(rules.deck(seating)), 0), 0)
    peer = SimpleNamespace(
        me=0, names=["Ann", "Bo"], cfg=SimpleNamespace(rules=rules, seating=seating, n=2),
        hand_no=0, view=lambda: view, takeovers=[], finished=False,
        stopped="unresponsive", paused=True, stop_why={"slow": True, "seat": 1},
        agreed_end=None, drain_events=lambda: [], peer_state=lambda seat: state,
        quit_for_now=lambda seat: False, peers=lambda: [], silent_seat=lambda: 1,
        auto_time=lambda seat: (76.0, 60.0), agreement=lambda: {})
    return NetDriver(peer)                                   # type: ignore[arg-type]


@pytest.mark.parametrize("plain", [True, False])
def test_a_pause_on_a_slow_seat_whose_player_then_left_says_they_left(plain: bool) -> None:
    """The table paused on Bo as slow (his steps past their budget); then his computer
    went (transport gone). The console went on saying "Bo is slow: … Wait", as though
    he were there; he left: the words of a seat whose player left, and the same choices."""
    from cli import i18n

    with i18n.using("en"):
        there = _paused_on_a_slow_seat("connected").silent_words(plain=plain) or ""  # type: ignore[attr-defined]
        gone = _paused_on_a_slow_seat("gone").silent_words(plain=plain) or ""  # type: ignore[attr-defined]
    assert there.startswith("Bo is slow: 76 s of automatic steps"), there
    assert gone.startswith("Bo left; the game is saved."), gone
    assert "is slow" not in gone, gone
    assert ("type bot" if plain else "press b") in gone, gone
