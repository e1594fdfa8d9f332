"""``millebornes simulate --fair-deck --cheat KIND``: every cheat the protocol handles is
caught, by the honest peers, at the stage the protocol promises, and the transcript the table
kept fails ``verify`` with the same blame."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.main import main
from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import verify_game
from p2p.table.memory import CHEAT_KINDS, make_table, stage_cheat

#: kind -> (stage, verdict, check at the table)
EXPECTED = {
    "shuffle-drop": ("shuffle", "cheat", "pass-length"),
    "shuffle-substitute": ("shuffle", "cheat", "shuffle-proof"),
    "shuffle-duplicate": ("shuffle", "cheat", "shuffle-proof"),
    "bad-shuffle-proof": ("shuffle", "cheat", "shuffle-proof"),
    "bad-share": ("deal", "cheat", "share-proof"),
    "card-not-held": ("play", "cheat", "card-not-held"),
    "equivocation": ("play", "cheat", "equivocation"),
    "withheld-reveal": ("reveal", "unresponsive", "reveal-missing"),
    "bad-reveal": ("reveal", "cheat", "reveal-commitment"),
}


def stage_of(kind: str) -> str:
    return EXPECTED[kind][0]


def test_every_kind_is_covered() -> None:
    assert set(EXPECTED) == set(CHEAT_KINDS)


@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_each_cheat_is_caught_blamed_and_verify_agrees(tmp_path: Path, kind: str) -> None:
    # a reveal cheat needs a whole hand: two players keep it quick
    n, cheater = (2 if stage_of(kind) == "reveal" else 3), 1
    cfg, ids = make_table(preset("modern"), Seating.parse(n, None),
                          ["Al", "Bo", "Cy"][:n], b"cheat-test/" + kind.encode())
    bots = [make_bot("heuristic", s).choose for s in range(n)]
    path = tmp_path / f"{kind}.mbt"
    o = stage_cheat(cfg, ids, bots, kind, cheater, path)
    stage, verdict, check = EXPECTED[kind]
    assert o.caught and o.blamed == [cheater], o
    assert (o.stage, o.verdict, o.check) == (stage, verdict, check), o
    assert o.hand == 0  # the first hand: nothing is dealt after a shuffle cheat
    # who can see it: a share is checked by its recipient only; everything else by everyone
    honest = [s for s in range(n) if s != cheater]
    if kind == "bad-share":  # its recipient (seat 0 or 2, depending on the first player)
        assert len(o.detected_by) == 1 and o.detected_by[0] in honest, o
    else:
        assert o.detected_by == honest, o
    rep = verify_game(path)
    assert not rep.ok and rep.blamed_seat == cheater, rep.summary()
    assert rep.check == check, rep.summary()


def test_cli_json_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["simulate", "--fair-deck", "--cheat", "shuffle-duplicate", "--cheater", "0",
               "--json", "--transcript-dir", str(tmp_path)])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert {k: out[k] for k in ("caught", "blamed", "verdict", "stage", "detected_by")} == {
        "caught": True, "blamed": [0], "verdict": "cheat", "stage": "shuffle",
        "detected_by": [1]}
    assert out["verify"]["blamed"] == 0 and not out["verify"]["ok"]
    assert main(["verify", out["transcript"]]) != 0
    rc = main(["simulate", "--fair-deck", "--cheat", "withheld-reveal", "--cheater", "1",
               "--transcript-dir", str(tmp_path)])
    text = capsys.readouterr().out
    assert rc == 0
    assert "seat 1" in text and "unresponsive" in text and "verify names the same seat" in text


@pytest.mark.parametrize("argv", [["--cheat", "x-ray"], ["--cheat", "bad-share", "--cheater", "5"],
                                  ["--cheat", "bad-share", "--network"]])
def test_cli_refuses_bad_cheat_arguments(capsys: pytest.CaptureFixture[str],
                                         argv: list[str]) -> None:
    assert main(["simulate", "--fair-deck", *argv]) == 2
    assert "millebornes simulate" in capsys.readouterr().err


def test_a_cheat_not_caught_still_says_where_its_transcript_is(tmp_path: Path) -> None:
    """A cheat that never took place (the match ended first) kept its transcript in the
    demonstration's folder and named it nowhere: the report now says where, as when caught."""
    from cli.words import cheat_demo_lines
    from p2p.table.memory import CheatOutcome

    path = tmp_path / "cheat-bad-share-seat1.mbt"
    o = CheatOutcome(kind="bad-share", cheater=1, caught=False, blamed=[], verdict="none",
                     stage=None, detected_by=[], check=None, detail="", hand=None,
                     transcript=path, verify_ok=True)
    lines = cheat_demo_lines(o, ["heuristic1", "random2"], same=False)
    assert lines[1] == "not caught: the match ended without the cheat taking place"
    assert lines[2] == f"transcript kept in {path}; verify: OK, a fair game"
