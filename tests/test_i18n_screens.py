"""Issue 13 on the real screens: a whole plain-mode match in Swedish (``--lang sv``) and in
Vietnamese (chosen by ``LANG=vi_VN.UTF-8``) shows no English card name and no English
sentence of the game, every line within 80 columns; the full-screen board (table, hand,
status, help) fits 80×24 in every language."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import SizedOutput
from i18n_helpers import english_card_names_in, screen_faults

from cli import i18n, render
from cli.app import TableApp
from cli.driver import LocalDriver
from engine import Seating, preset

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "cli" / "locale" / "millebornes.pot"


def _english_phrases() -> list[str]:
    """Every run of three or more words of fixed English text in the template's messages
    (what an untranslated sentence would show), commands and placeholders left out."""
    text = TEMPLATE.read_text(encoding="utf-8")
    ids = re.findall(r'^msgid(?:_plural)? "(.*(?:"\n".*)*)"', text, flags=re.M)
    out = set()
    for mid in ids:
        mid = mid.replace('"\n"', "").replace("\\n", "\n").replace('\\"', '"')
        for piece in re.split(r"%\(\w+\)[a-z]|\{[^}]*\}|[\n:;()\[\]]", mid):
            words = piece.strip(" .,!?'`").split()
            if len(words) >= 3 and not any(w in ("play", "discard", "draw", "extend",
                                                 "millebornes", "coup", "pass")
                                           for w in words):
                out.add(" ".join(words))
    return sorted(out)


def _play(env: dict[str, str], *argv: str, tmp: Path | None = None) -> str:
    """A plain auto match: in this process's bots, or (``tmp``: its data folder) a
    networked table of real peers, as ``millebornes play`` alone starts."""
    base = {k: v for k, v in os.environ.items()
            if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")}
    base.update(PYTHONPATH=str(ROOT), MILLEBORNES_DELAY="0",
                MILLEBORNES_CONFIG=str(ROOT / "no-such-config.toml"), **env)
    where = ["--in-process", "--bots", "2"] if tmp is None else \
        ["--bots", "1", "--data-dir", str(tmp)]
    r = subprocess.run([sys.executable, "-m", "cli", "play", "--plain", "--auto",
                        *where, "--seed", "5", *argv],
                       capture_output=True, text=True, timeout=240, cwd=ROOT, env=base)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr
    assert "Traceback" not in r.stderr
    return r.stdout


@pytest.mark.parametrize(("language", "env", "argv", "networked"), [
    ("sv", {}, ["--lang", "sv"], False),
    ("vi", {"LANG": "vi_VN.UTF-8"}, [], False),
    ("fr", {}, ["--lang", "fr"], True),
], ids=["sv-option", "vi-LANG", "fr-networked"])
def test_a_plain_match_speaks_the_language_to_the_end(language: str, env: dict[str, str],
                                                        argv: list[str], networked: bool,
                                                        tmp_path: Path) -> None:
    """In the player's language to the end, the moves of the log too: at a networked table
    (``play`` alone) they named the cards in English ("Bo a joué Speed Limit")."""
    out = _play(env, *argv, tmp=tmp_path if networked else None)
    with i18n.using(language):
        final = i18n._("Final scores: %(totals)s. Winner: %(winner)s.").split("%(")[0]
    assert final.strip() and final in out             # played to the end, in the language
    assert english_card_names_in(out, language) == []
    leaks = [p for p in _english_phrases() if p in out]
    assert leaks == [], leaks[:10]
    for word in ("played", "Your turn", "Hand 1", "Match over", "drew"):
        assert word not in out, word
    assert screen_faults(out.splitlines(), language, 80, 10 ** 6) == []


@pytest.mark.parametrize("language", list(i18n.LANGUAGES))
def test_the_board_fits_80_by_24_in_every_language(language: str) -> None:
    names = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo"]
    with i18n.using(language):
        d = LocalDriver(preset("modern"), Seating.solo(6), names, seed=1)
        d.run_others()
        app = TableApp(d, output=SizedOutput(80, 24), delay=0, lang=language)
        assert not app.too_small()
        table = render.plain(app._table_lines())
        hand = render.plain(app._hand_lines())
        status = app.status_lines()
        help_lines = "".join(t for _, t in app._help_fragments()).split("\n")
        rows = len(table) + 1 + max(3, len(hand)) + 1 + 1 + 1 + len(status)
        assert rows <= 24, rows
        assert screen_faults(table + hand + [" " + s for s in status], language) == []
        assert screen_faults(help_lines, language, 78, 21) == []
        close = i18n._("r: how to play. Esc, h or F1 closes this help.")
        assert close.split()[0] in " ".join(help_lines[-2:])
        # a network table's help (its pause keys too) keeps the table's rules in sight:
        # the log's keys give way first (the rules line was cut off with "…")
        d.silent = lambda: None                      # type: ignore[attr-defined]
        net = "".join(t for _, t in app._help_fragments()).split("\n")
        assert "…" not in net and i18n._("Rules: %(rules)s").split("%(")[0].strip() in \
            "\n".join(net), net
        del d.silent                                 # type: ignore[attr-defined]
        # the second page, how to play, whole on the same screen (nothing cut with "…")
        app.help_page = "rules"
        rules_lines = "".join(t for _, t in app._help_fragments()).split("\n")
        assert screen_faults(rules_lines, language, 78, 21) == []
        assert "…" not in "\n".join(rules_lines), rules_lines
        # written to the frame's width: a longer line was wrapped again (a lone "exactly,")
        from cli.words import how_to_play
        assert max(i18n.cells(line) for line in how_to_play().splitlines()) <= 78
        # the word the reasons use ("your zone shows Accident") is said there too
        # (its line, the page's last of the rules: "[R5] after a reason: the id of its
        # rule"; it named "[O-name]" ids until newcomer pass 22)
        from cli.words import RULE_WORDS
        assert "[R5]" in "\n".join(rules_lines), rules_lines
        assert i18n._(RULE_WORDS).strip()[:12] in "\n".join(rules_lines), rules_lines
        # and why every hazard asks c or n (a newcomer asked, holding no safety)
        from cli.words import ALWAYS_ASKED
        assert i18n._(ALWAYS_ASKED).strip()[:12] in "\n".join(rules_lines), rules_lines
        assert i18n._("r: the keys. Esc, h or F1 closes this help.").split()[0] in \
            " ".join(rules_lines[-2:])
        if language != "en":
            assert "Your hand" not in "\n".join(hand)
            assert english_card_names_in("\n".join(table + hand), language) == []


def test_the_engines_reasons_are_said_in_the_players_language() -> None:
    """Every refusal the engine gives over a few bot games (each card in hand, each target)
    matches one of the console's reason messages, so it is said in Swedish, the rule id
    last; card names in it are Swedish too."""
    from cli.words import rule_last
    from engine import explain, make_bot
    from engine.state import PLAY
    seen: set[str] = set()
    with i18n.using("sv"):
        said = rule_last("R6: a battle hazard needs the target zone to be moving "
                         "(Speed Limit is the only attack on a zone that is not)")
        assert said == ("En stridsattack kräver att målzonen rullar (Hastighetsgräns är den "
                        "enda attacken mot en zon som inte rullar) [R6]")
        for seed in range(6):
            d = LocalDriver(preset("modern" if seed % 2 else "classic"), Seating.solo(3),
                            ["Ana", "Bo", "Cy"], seed=seed)
            bot = make_bot("heuristic", seed)
            for _ in range(400):
                d.run_others()
                if d.hand_over:
                    break
                view = d.view()
                if view.phase == PLAY:
                    for card in render.hand_cards(view, d.seat):
                        for target in (None, 1, 2):
                            why = explain(d.state, d.seat, card, target)
                            if why is not None:
                                seen.add(why)
                d.submit(bot.choose(view, d.legal()))
        assert len(seen) >= 5
        for why in sorted(seen):
            said = rule_last(why)
            assert english_card_names_in(said, "sv") == [], (why, said)
            with i18n.using("en"):
                english = rule_last(why)
            assert said != english, why


@pytest.mark.parametrize("language", list(i18n.LANGUAGES))
def test_the_match_standings_fit_80_columns_with_long_scores(language: str) -> None:
    """The standings line (name, bars, total, progress, the last hands' points, "wins")
    was 81 cells in Swedish after four hands of four-digit scores ("vinner" is longer
    than "wins"): the hands' points now take what the line has left."""
    from engine import CLASSIC, Match, Seating
    from engine.scoring import SideScore

    match = Match(CLASSIC, Seating.solo(2), 0)
    for a, b in ((2500, 300), (1150, 1200), (650, 1100), (700, 1400)):
        match = match.record((SideScore(distance=a), SideScore(distance=b)))
    with i18n.using(language):
        lines = render.plain(render.match_lines(match, ["You", "Bo"]))
    assert not screen_faults(lines, language, height=99), lines


@pytest.mark.parametrize("language", [lang for lang in i18n.LANGUAGES if lang != "en"])
@pytest.mark.parametrize("teams", [False, True])
def test_the_players_own_name_you_is_said_in_their_language(language: str,
                                                             teams: bool) -> None:
    """A player who kept the default name saw "Match to 5000: You 0 · Bo 0" on a French
    board (the match line took the name as written), and "You & Cy" for a team; every
    label of the board now says "You" in the player's language, and no count is cut
    ("7 cart…": the cards column was narrower than the French words)."""
    from engine import Match
    from engine.scoring import SideScore

    names = ["You", "Bo", "Cy", "Di"] if teams else ["You", "Bo"]
    seating = Seating(4, 2) if teams else Seating.solo(2)
    with i18n.using(language):
        d = LocalDriver(preset("classic"), seating, names, seed=3)
        d.run_others()
        app = TableApp(d, output=SizedOutput(80, 24), delay=0, lang=language)
        match = Match(preset("classic"), seating, 0).record(
            (SideScore(distance=300), SideScore(distance=450)))
        lines = (render.plain(app._table_lines())
                 + render.plain(render.match_lines(match, names))
                 + render.plain(render.score_lines(match.hands[-1], match, names, 1)))
        you = i18n._("You")
    assert you != "You"
    board = "\n".join(lines)
    assert not re.search(r"\bYou\b", board), board
    assert you in lines[0] + lines[1] + lines[2], lines[:3]
    assert "…" not in board, board
