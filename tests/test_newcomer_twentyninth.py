"""The twenty-ninth first-time-player pass: what the twenty-eighth left.

1. French said "Feu rouge ne peut pas être jouée maintenant", "Accident peut être jouée",
   "Feu vert n'est pas une attaque : elle va …" and "le Crevaison du dessus": the words
   agreed with "carte", which the sentence did not say, or with no card at all. They say
   "la carte …" now, right for every card; and the line mode's "Désolé : La carte …"
   goes on in small letters after its colon.
2. The full screen's score page between hands showed "Safe trip 300", "Extension 200",
   "Shut-out 500" with nothing to say what they were for (the line mode says it under its
   sheet): the log under the page says it now, in the same words (cli.words.bonus_notes).
   Both replays say them too (the full screen's zones give way at 80×24).
3. `replay --plain` poured a whole match at once (5000 lines for four hands): at a
   terminal it waits after each hand for Enter (q skips to the report); piped, all at once.
4. Both helps offered "draw discard" in classic rules (typed, it was refused) and
   "extend yes|no" where no trip is extended; the line mode's said "at 700 km: play on to
   1000" at a table of 1000 km (modern rules, two teams).
5. `join --name Ben --identity ~/ben.key --data-dir ~/ben` found two tables and offered
   "millebornes join --table FP" alone: typed, it joined with the account's own key (the
   host's, refused) and the host's data folder; and it named the program as no other
   command did (`.venv/bin/millebornes` where it is not on the PATH).
6. Classic rules, the draw pile ran out: the draws stopped with nothing said ("pile 0"
   on the top line the only sign), and a newcomer waited for one. The log says it with
   the draw that took the last card, and what happens now.
7. `resume nothere --data-dir D` said "`millebornes games` lists them", which listed the
   default folder's games ("play one with `millebornes play`" where there were none, kept
   in the default folder); `resume` of a match over said "millebornes replay ID --data-dir
   D shows it": "millebornes" where the program is .venv/bin/millebornes, not on the PATH.
8. The line mode's board never said where the match stood (the full screen's second line
   does): only the last hand's score sheet did, scrolled far away by hand 3.
9. French usage said "options :" but "arguments positionnels:".
10. The line mode says a turn once: at a network table "* Ann is drawing (no time
    limit)." stood there while Ann, her draw made (hidden), chose a card. It says "Ann's
    turn", true throughout; the full screen's status, redrawn live, still says the draw.
11. "play3" was answered "did you mean 'play'?", "d3" and French "jouer3" were unknown
    commands: the command with its space is guessed.
12. A full table whose host was not ready: the joiner read the seats ("seat 0: Ann",
    no "(ready)") and nothing else, and the match did not start. The lobby says whom it
    waits for, and to the one not ready, to type ready.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import unfold
from test_cli_commands import cards_of, make, pos
from test_cli_render import NAMES, base_view, text

from cli import i18n, render, words
from cli.commands import parse
from cli.driver import LocalDriver
from engine import Kind, Seating, preset

# ----- 1. French: "la carte X ne peut pas être jouée", whatever X's gender -----


@pytest.mark.parametrize("k", list(Kind))
def test_french_says_whether_a_card_can_be_played_in_words_right_for_every_card(
        k: Kind) -> None:
    """Feu rouge, Feu vert, Accident, 25 … are masculine, Crevaison feminine: "X ne peut
    pas être jouée" was wrong for half the deck. "La carte X …" is right for all."""
    ctx = make(sorted(set(cards_of(k) + cards_of(Kind.D25) + cards_of(Kind.ROLL))))
    with i18n.using("fr"):
        name = i18n.kind_name(k)
        said = " ".join(parse(f"why {pos(ctx, k)}", ctx).text.split())
    assert said.startswith((f"La carte {name} ne peut pas être jouée maintenant : ",
                            f"La carte {name} peut être jouée maintenant.")), said


def test_french_calls_a_card_that_is_not_a_hazard_la_carte() -> None:
    """"play 3 on bo" with a Roll: "Feu vert n'est pas une attaque : elle va de votre
    côté" (elle: a Feu vert is masculine)."""
    ctx = make(sorted(cards_of(Kind.ROLL) + cards_of(Kind.D25)))
    with i18n.using("fr"):
        said = " ".join(parse(f"play {pos(ctx, Kind.ROLL)} on bo", ctx).text.split())
    assert "la carte Feu vert n'est pas une attaque : elle va de votre côté" in said, said


@pytest.mark.parametrize("hazard, safety", [
    (Kind.FLAT_TIRE, Kind.PUNCTURE_PROOF), (Kind.OUT_OF_GAS, Kind.EXTRA_TANK),
    (Kind.ACCIDENT, Kind.DRIVING_ACE), (Kind.STOP, Kind.RIGHT_OF_WAY)])
def test_french_names_a_cured_hazard_on_top_as_la_carte(hazard: Kind, safety: Kind) -> None:
    """"Bataille : il faut un Feu vert (le Crevaison du dessus est sans effet …)"."""
    v = base_view(2)
    z = v.zones[0]._replace(battle=tuple(cards_of(hazard)), safeties=tuple(cards_of(safety)),
                            started=True)
    v = v._replace(zones=(z, v.zones[1]))
    with i18n.using("fr"):
        name = i18n.kind_name(hazard)
        words = " ".join(text(render.zone_lines(v, 0, NAMES, 0, verbose=True)).split())
    assert f"(la carte {name} du dessus est sans effet : sa botte est posée)" in words, words


def test_the_french_line_mode_goes_on_in_small_letters_after_desole() -> None:
    """The line mode's refusal is "Désolé : REASON": "Désolé : La carte 50 …" had a
    capital after the colon; a name keeps its own ("Désolé : Feu rouge ne répond pas")."""
    import io

    from cli.plain import run_plain

    out = io.StringIO()
    with i18n.using("fr"):
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=2, lang="fr")
        run_plain(d, lang="fr", out=out, inp=io.StringIO("jouer 50\nquitter\noui\n"))
    said = " ".join(out.getvalue().split())
    assert "Désolé : la carte 50 ne peut pas être jouée maintenant : il vous faut un Feu " \
           "vert" in said, said


# ----- 2. the full screen says what each bonus on its score sheet is for -----


def _classic_hand_over(lang: str, item: str) -> LocalDriver:
    """A classic two-player hand played to its end by bots, this seat's too, in which a
    side scored the bonus ``item``."""
    from engine.bots import make_bot

    with i18n.using(lang):
        for seed in range(1, 60):
            d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=seed)
            me = make_bot("heuristic", seed)
            while not d.hand_over:
                if d.others_pending():
                    d.step_others()
                else:
                    d.submit(me.choose(d.view(), d.legal()))
            scores = d.last_scores()
            if scores is not None and any(getattr(s, item) for s in scores):
                return d
    raise AssertionError(f"no {item} in 60 hands")


@pytest.mark.parametrize("lang, item, said", [
    ("en", "safe_trip", "Safe trip: the trip completed without a 200 km card."),
    ("fr", "safe_trip", "le voyage terminé sans carte 200 km."),
    ("en", "extension", "the bonus of a trip extended from 700 to 1000 km [R12]."),
    ("en", "shut_out", "the trip completed while an opponent covered no distance.")])
def test_the_full_screens_hand_over_page_says_what_each_bonus_is_for(
        lang: str, item: str, said: str) -> None:
    """"Safe trip 300", "Extension 200", "Shut-out 500" stood on the full screen's score
    page with nothing to say what they were for (the line mode says it under its sheet):
    the log under the page says it, last, where the log shows at 80×24."""
    from cli_helpers import SizedOutput

    from cli.app import TableApp

    d = _classic_hand_over(lang, item)
    with i18n.using(lang):
        app = TableApp(d, output=SizedOutput(80, 24), delay=0, lang=lang)
        table, hand, status = app._table_lines(), app._hand_lines(), app.status_lines()
        log = [" ".join(render.plain([line])) for line in app._log_lines()]
        scores = d.last_scores()
        assert scores is not None
        notes = [n for n in (i18n._(m) % {"row": i18n.score_item_name(k)}
                             for k, m in words.BONUS_NOTES.items()
                             if any(getattr(s, k) for s in scores))]
    # the frame's two rules and the command line; the rest is the log's
    room = 24 - (len(table) + 1 + max(3, len(hand)) + 1 + 1 + len(status))
    shown = " ".join(" ".join(log[-room:]).split())
    assert said in shown, (room, log)
    assert all(n in shown for n in notes), (notes, log)


# ----- 3. replay --plain at a terminal: hand by hand -----


def _plain_replay(pager: str | None, lang: str = "en") -> str:
    import io

    from test_cli_replay import bot_game

    from cli.replay import run_plain_replay
    from cli.replay_view import ReplayModel

    out = io.StringIO()
    with i18n.using(lang):
        model = ReplayModel(bot_game(3), ["Ana", "Bo", "Cy"])
        assert run_plain_replay(model, "THE REPORT", out=out, lang=lang,
                                pager=None if pager is None else io.StringIO(pager)) == 0
    return out.getvalue()


def test_the_plain_replay_at_a_terminal_waits_after_each_hand() -> None:
    """`replay --plain` poured a whole match (5000 lines for four hands) at once: at a
    terminal the first hands were gone past its memory before one could be read. It waits
    for Enter after each hand but the last, then says the report."""
    said = _plain_replay("\n\n")
    assert said.count("End of hand") == 2, said[-2000:]
    first, second = said.index("End of hand 1. Press Enter for hand 2"), \
        said.index("End of hand 2. Press Enter for hand 3")
    assert said.index("Hand 1 scores") < first < said.index("hand 2/3 · step") < second
    assert second < said.index("Hand 3 scores") < said.index("THE REPORT")


@pytest.mark.parametrize("lang, typed", [("en", "q\n"), ("en", ""), ("fr", "quitter\n")])
def test_q_or_ctrl_d_at_the_plain_replays_wait_skips_to_the_report(
        lang: str, typed: str) -> None:
    said = _plain_replay(typed, lang)
    assert re.search(r" 1/3[ ·,]", said) and not re.search(r" 2/3[ ·,]", said)
    assert said.rstrip().endswith("THE REPORT")


def test_the_plain_replay_piped_says_it_all_at_once() -> None:
    said = _plain_replay(None)
    assert "End of hand" not in said and "hand 3/3" in said
    assert said.rstrip().endswith("THE REPORT")


def test_the_plain_replay_says_what_each_bonus_is_for() -> None:
    """The replay's score sheet showed "Safe trip 300" as the table's did, unexplained."""
    from test_cli_replay import bot_game

    from cli.replay_view import ReplayModel, step_lines

    model = ReplayModel(bot_game(3, seed=1), ["Ana", "Bo", "Cy"])     # five bonuses
    ends = [model.hand_end(k) - 1 for k in range(model.n_hands)]
    for i in ends:
        said = " ".join(" ".join(render.plain(step_lines(model, i))).split())
        for note in words.bonus_notes(model.scores[model.hand_pos(i)]):
            assert note in said, (note, said[-1500:])
    assert any(words.bonus_notes(model.scores[k]) for k in range(model.n_hands))


@pytest.mark.slow
def test_replay_plain_in_a_real_terminal_waits_and_q_ends_it(tmp_path: Path) -> None:
    """Through a pseudo-terminal, as a player runs it: `replay --plain` of a match stops
    after hand 1, and q shows the check's report."""
    import os
    import pty
    import subprocess
    import sys
    import time

    from cli.main import main

    assert main(["simulate", "--rules", "classic", "--players", "2", "--games", "1",
                 "--bots", "heuristic,heuristic", "--fair-deck", "--transcript-dir",
                 str(tmp_path)]) == 0       # a match to 5000: two hands at least
    [mbt] = tmp_path.iterdir()
    leader, follower = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "cli", "replay", "--plain", str(mbt)],
                            stdin=follower, stdout=follower, stderr=follower,
                            env={**os.environ, "LANG": "C.UTF-8", "COLUMNS": "80"})
    os.close(follower)
    seen = b""

    def read_until(text: bytes, limit: float = 30) -> None:
        nonlocal seen
        deadline = time.monotonic() + limit
        while text not in seen and time.monotonic() < deadline:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            seen += chunk
        assert text in seen, seen[-1500:]

    try:
        read_until(b"End of hand 1. Press Enter for hand 2")
        assert b"hand 2/" not in seen
        os.write(leader, b"q\n")
        read_until(b"a fair game")
        assert proc.wait(30) == 0
    finally:
        proc.kill()
        os.close(leader)
    assert b"hand 2/" not in seen


# ----- 4. the helps list the commands the table's rules have -----


TABLES = [("classic", None, False, True),       # 700 km, extended to 1000; no discard draw
          ("modern", None, True, False),        # one hand of 1000 km, the discard drawn
          ("classic", "2x2", False, False)]     # two teams: 1000 km from the start


@pytest.mark.parametrize("lang", ["en", "fr", "sv", "vi", "af", "ug"])
@pytest.mark.parametrize("rules, teams, discard, extend", TABLES)
def test_the_full_screens_help_lists_only_the_commands_of_these_rules(
        rules: str, teams: str | None, discard: bool, extend: bool, lang: str) -> None:
    """(R4a, O-draw-discard; R12.) The help's commands offered "draw discard" in classic
    rules (typed, it was refused: "these rules do not allow taking the discard pile") and
    "extend yes|no" where no trip is extended; its keys already left out g there."""
    from cli_helpers import SizedOutput

    from cli.app import TableApp

    with i18n.using(lang, bidi="terminal"):
        d = LocalDriver(preset(rules), Seating.parse(4 if teams else 2, teams),
                        ["You", "Bo", "Cy", "Di"][:4 if teams else 2], seed=1)
        app = TableApp(d, output=SizedOutput(100, 40), delay=0, lang=lang)
        shown = "".join(t for _s, t, *_r in app._help_fragments())
    assert ("draw discard" in shown) is discard, shown
    assert ("extend yes|no" in shown) is extend, shown
    assert "play N on" in shown and "why N (? N)" in shown and "coup" in shown


@pytest.mark.parametrize("lang", ["en", "fr", "ug"])
@pytest.mark.parametrize("rules, teams, discard, extend", TABLES)
def test_the_line_modes_help_lists_only_the_commands_of_these_rules(
        rules: str, teams: str | None, discard: bool, extend: bool, lang: str) -> None:
    """`help` in the line mode said "extend yes|no    at 700 km: play on to 1000, or end
    the hand" at a table of 1000 km (modern rules, two teams), and "draw discard: take
    the discard's top" in classic rules, where it is refused."""
    import io

    from cli.plain import run_plain

    out = io.StringIO()
    with i18n.using(lang, bidi="terminal"):
        d = LocalDriver(preset(rules), Seating.parse(4 if teams else 2, teams),
                        ["You", "Bo", "Cy", "Di"][:4 if teams else 2], seed=1, lang=lang)
        run_plain(d, lang=lang, out=out, inp=io.StringIO("help\nquit\ny\n"))
    said = out.getvalue()
    assert ("draw discard" in said) is discard, said
    assert ("extend yes|no" in said) is extend, said
    assert re.search(r"(?m)^  draw( |$)", said) and re.search(r"(?m)^  why N", said), said


# ----- 5. join's list of tables: commands that keep the player's own options -----


def test_joins_list_of_tables_keeps_the_players_options_in_each_command() -> None:
    """A second player on one account typed `join --name Ben --identity ~/ben.key
    --data-dir ~/ben --mdns loopback`, found two tables, and was offered `millebornes join
    --table FP --mdns loopback` alone: typed, it joined with the account's own key (the
    host's: refused) and kept the game in the host's folder. Each command now keeps them,
    and breaks into lines that paste as one command."""
    import shlex

    from cli.args import build_parser
    from cli.join import own_flags, several_tables_text
    from p2p.net.discovery import TableInfo

    _parser, sub = build_parser()
    args = sub["join"].parse_args(["--name", "Ben", "--identity", "/home/ben/keys/ben.key",
                                   "--data-dir", "/home/ben/Mille Bornes games",
                                   "--mdns", "loopback", "--plain", "--lang", "fr"])
    args.lang_chosen = args.lang        # as cli.main marks a language typed
    tables = [TableInfo("a._millebornes._tcp.local.", "Ann's table", "classic", 1, 2,
                        "UN2KD-LVPJF", 43603, ("127.0.0.1",)),
              TableInfo("b._millebornes._tcp.local.", "Friday night", "modern", 1, 1,
                        "V4UDH-Q25M2", 24233, ("192.168.10.20",))]
    with i18n.using("en"):
        text = several_tables_text(tables, args.mdns, own_flags(args), 80)
    # the commands' lines (the tables' words are wrapped where they are said)
    assert all(i18n.cells(line) <= 80 for line in text.splitlines()
               if line.startswith("    ")), text
    commands = [shlex.split(line) for line in text.replace(" \\\n", " ").splitlines()
                if line.lstrip().startswith("millebornes ")]
    assert [c[:4] for c in commands] == [["millebornes", "join", "--table", "UN2KD-LVPJF"],
                                         ["millebornes", "join", "--table", "V4UDH-Q25M2"]]
    for typed in commands:
        pairs = {(a, b) for a, b in zip(typed, typed[1:], strict=False)}
        assert {("--mdns", "loopback"), ("--name", "Ben"),
                ("--identity", "/home/ben/keys/ben.key"),
                ("--data-dir", "/home/ben/Mille Bornes games"), ("--lang", "fr")} <= pairs, \
            typed
        assert "--plain" in typed


# ----- 6. the draw pile runs out: said -----


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_last_card_of_the_draw_pile_is_said_with_what_happens_next(lang: str) -> None:
    """Classic rules (R4b, O-exhaustion: play out), the draw pile ran out: the draws
    stopped, "pile 0" on the top line the only sign, and a newcomer waited for one. The log
    says it once, with the draw that took the last card, the player's own or another's
    (whose card stays hidden)."""
    from engine.bots import make_bot

    with i18n.using(lang):
        said = i18n._(words.LAST_CARD)
        mine = others = 0
        for seed in range(1, 40):
            d = LocalDriver(preset("classic"), Seating.solo(3), ["You", "Bo", "Cy"],
                            seed=seed)
            me = make_bot("random", seed)
            while not d.hand_over:
                if d.others_pending():
                    d.step_others()
                else:
                    d.submit(me.choose(d.view(), d.legal()))
            lines = [e for e in d.events if said in e]
            if d.view().pile_size() > 0:
                assert not lines, d.events
                continue
            assert len(lines) == 1, d.events
            if lines[0] == said:
                others += 1             # another's draw: the sentence alone
            else:
                assert lines[0].startswith(i18n._("You drew %(card)s.").split("%")[0])
                mine += 1
            if mine and others:
                return
    raise AssertionError(f"{mine} hands ended with the player's draw, {others} another's")


@pytest.mark.parametrize("rules, said", [("classic", True), ("modern", False)])
def test_the_last_card_is_not_said_where_the_discards_are_shuffled_back(
        rules: str, said: bool) -> None:
    """Modern rules shuffle the discard pile into a new draw pile (said so): the draws go
    on, and "nobody draws" would be wrong."""
    from engine import Draw

    v = base_view(2, rules)
    line = words.describe(v._replace(pile=1), Draw(1), v._replace(pile=0), NAMES, 0)
    assert (line == i18n._(words.LAST_CARD)) is said, line


@pytest.mark.parametrize("seed", [1, 3, 10])
def test_the_full_screen_replay_says_what_each_bonus_is_for_at_80_by_24(seed: int) -> None:
    """The replay's full screen showed "Safe trip 300" at a hand's end, unexplained: the
    notes come under the sheet, and at 80×24 the zones give way for them (the hands and
    the sheet stay)."""
    from cli_helpers import SizedOutput
    from test_cli_replay import bot_game

    from cli.replay import ReplayApp
    from cli.replay_view import ReplayModel

    model = ReplayModel(bot_game(3, seed=seed), ["Ana", "Bo", "Cy"])
    app = ReplayApp(model, output=SizedOutput(80, 24))
    for k in range(model.n_hands):
        app.index = model.hand_end(k) - 1
        table, hands = app._table_lines(), app._hands_lines()
        room = 24 - len(table) - len(hands) - 2 - 1     # the two rules, the status line
        shown = " ".join(" ".join(render.plain(app._log_lines()[:room])).split())
        for note in words.bonus_notes(model.scores[k]):
            assert note in shown, (k, note, shown)
        assert "hand total" in shown and "match total" in shown


# ----- 7. commands said for a game kept with --data-dir: with it, named as typed -----


def _script() -> Path:
    script = Path(sys.executable).parent / "millebornes"
    if not script.exists():
        pytest.skip("no millebornes script beside this Python")
    return script


def _run(script: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    # the program started by its path, which is not on the PATH (the README's quick start)
    env = dict(os.environ, PATH="/usr/bin:/bin", MILLEBORNES_DELAY="0")
    return subprocess.run([str(script), *argv], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=120)


def test_an_unknown_id_names_the_command_that_lists_that_folders_games(
        tmp_path: Path) -> None:
    """`verify nothere --data-dir D` said "`millebornes games` lists them": typed, that
    listed the default folder's games (and "millebornes" was not found, the program being
    .venv/bin/millebornes): the command has the folder, and the program as typed."""
    script = _script()
    data = str(tmp_path / "my games")
    typed = shlex.quote(str(script))
    # a game in the folder (with none, the command that plays one is said: pass 34)
    from test_newcomer_thirtysecond import _saved_game
    games = tmp_path / "kept"
    _saved_game(games, ["You", "Bo"])
    for verb in ("resume",):      # verify and replay share its words (cli.games.find_game)
        r = _run(script, verb, "nothere", "--data-dir", str(games))
        said = " ".join(r.stderr.replace("\\\n", "").split())
        # (its command on lines of its own: pass 34)
        assert f"This command lists the saved games: {typed} games --data-dir {games}" \
            in said, (verb, said)
        assert "`" not in said, said
    # and no game at all: "play one with `millebornes play`" kept it in the default folder
    r = _run(script, "resume", "--data-dir", data)
    # (its command on lines of its own: pass 33)
    command = unfold(r.stderr).split("play one with: ", 1)[1]
    assert shlex.split(command) == [str(script), "play", "--data-dir", data], r.stderr
    # and no game at all: "play one with `millebornes play`" kept it in the default folder
    r = _run(script, "resume", "--data-dir", data)
    # (its command on lines of its own: pass 33)
    command = unfold(r.stderr).split("play one with: ", 1)[1]
    assert shlex.split(command) == [str(script), "play", "--data-dir", data], r.stderr


@pytest.mark.slow
def test_resume_of_a_finished_game_names_replay_as_typed(tmp_path: Path) -> None:
    """`resume` of a match over: "millebornes replay ID --data-dir D shows it", the program
    as no shell here finds it."""
    script = _script()
    data = str(tmp_path / "d")
    r = _run(script, "play", "--plain", "--auto", "--rules", "modern", "--data-dir", data)
    assert r.returncode == 0 and "Final scores:" in r.stdout, r.stdout + r.stderr
    r = _run(script, "resume", "--data-dir", data)
    said = " ".join(r.stdout.replace("\\\n", "").split())
    assert re.search(rf"the match is over\. Step through it again, every player's cards "
                     rf"face up, with: {re.escape(shlex.quote(str(script)))} replay "
                     rf"[0-9a-f]{{8}} --data-dir {re.escape(data)} ", said), said


# ----- 8. the line mode says where the match stands during a hand -----


@pytest.mark.parametrize("lang, said", [
    ("en", "The match so far (1 hand played, to 5000 points): You "),
    ("fr", "La partie jusqu'ici (1 manche jouée, en 5000 points) : Vous ")])
def test_the_line_modes_board_says_the_match_so_far(lang: str, said: str) -> None:
    """The full screen's second line is "Match to 5000: You 275 · Bo 1100"; the line
    mode's board said the hand, the piles and the zones, and the match's totals only under
    the last hand's scores: in hand 3, scrolled far out of reach. Its header says them
    once a hand is scored; in hand 1 there is nothing to say."""
    import io

    from cli.plain import run_plain

    out = io.StringIO()
    with i18n.using(lang):
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=2, lang=lang)
        run_plain(d, auto=True, lang=lang, out=out, inp=io.StringIO(""))
        hands = len(d.match.hands)
        head = [i18n._("Hand %(hand)d, %(rules)s, trip %(target)d km. Draw pile: "
                       "%(pile)s. Discard pile: %(top)s.").split("%(hand)d")[0] + f"{n},"
                for n in (1, 2)]
    assert hands >= 2, hands
    boards = [" ".join(b.split()) for b in out.getvalue().split("\n\n")]
    first = [b for b in boards if b.startswith(head[0])]
    second = [b for b in boards if b.startswith(head[1])]
    assert first and second, boards[:3]
    assert not any(said in b for b in first), first[0]
    assert all(said in b for b in second), second[0]


# ----- 9. French usage: a space before every colon -----


@pytest.mark.parametrize("verb", ["replay", "verify", "resume", "help"])
def test_the_french_usage_puts_a_space_before_each_colon(
        verb: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`millebornes help replay` in French: "options :" but "arguments positionnels:"."""
    from cli.main import main

    assert main(["--lang", "fr", "help", verb]) == 0
    said = capsys.readouterr().out
    heads = [line for line in said.splitlines() if line and not line.startswith(" ")
             and line.rstrip().endswith(":")]
    assert heads, said
    assert all(line.rstrip().endswith(" :") for line in heads), heads


# ----- 10. the line mode says another's turn as a turn, not as a draw -----


def test_the_line_mode_says_anothers_turn_once_as_a_turn(tmp_path: Path) -> None:
    """Host and join in the line mode, modern rules: Bea discarded, and her screen said
    "* Ann is drawing (no time limit)." Ann drew (from the pile or the discard, hidden to
    Bea) and then thought about her card for a minute: the line mode says a turn once,
    and "is drawing" stood there all that time. It says "Ann's turn", true all along."""
    from cli_helpers import free_port
    from test_newcomer_plain import YOUR_TURN, Player

    port = free_port()
    ann = Player(["host", "--plain", "--name", "Ann", "--bind", "127.0.0.1", "--port",
                  str(port), "--no-announce", "--players", "2", "--rules", "modern",
                  "--data-dir", str(tmp_path / "a"), "--identity", str(tmp_path / "a.key")],
                 tmp_path)
    bea: Player | None = None
    try:
        ann.until("others join with")
        bea = Player(["join", "--plain", "--name", "Bea", "--peer", f"127.0.0.1:{port}",
                      "--port", str(free_port()), "--data-dir", str(tmp_path / "b"),
                      "--identity", str(tmp_path / "b.key")], tmp_path)

        def move(p: Player, seen: int) -> None:
            """``p``'s turn, after ``seen`` characters of what it said: a draw when it is
            asked for (modern: the pile or the discard), then a discard."""
            p.until(r"Your turn: (draw|play)", timeout=90)
            while not re.search(r"Your turn: (draw|play)", p.said()[seen:]):
                time.sleep(0.05)
            if re.search(r"Your turn: draw", p.said()[seen:]):
                p.type("draw")
                while not re.search(YOUR_TURN, p.said()[seen:]):
                    time.sleep(0.05)
            p.type("discard 1")

        end = time.monotonic() + 90
        while not re.search("Your turn", bea.said() + ann.said()) \
                and time.monotonic() < end:
            time.sleep(0.05)
        if re.search("Your turn", ann.said()):
            move(ann, 0)                # Ann plays first
        move(bea, 0)
        bea.until(r"\* You discarded")
        after = bea.said().index("* You discarded")
        # Ann's draw waits for her (the pile or Bea's discard): her turn, said as a turn
        deadline = time.monotonic() + 60
        while "* Ann's turn (no time limit)." not in bea.said()[after:] \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        said = bea.said()[after:]
        assert "* Ann's turn (no time limit)." in said, said[-1500:]
        assert "Ann is drawing" not in said, said[-1500:]
    finally:
        for p in (bea, ann):
            if p is not None:
                p.close()


# ----- 11. a card's number glued to its command -----


@pytest.mark.parametrize("lang, typed, said", [
    ("en", "play3", "unknown command 'play3': did you mean 'play 3'?"),
    ("en", "d3", "unknown command 'd3': did you mean 'd 3'?"),
    ("en", "play2 on bo", "unknown command 'play2 on bo': did you mean 'play 2 on bo'?"),
    ("fr", "jouer3", "commande inconnue 'jouer3' : vouliez-vous dire 'jouer 3' ?")])
def test_a_number_glued_to_its_command_is_answered_with_the_command_spaced(
        lang: str, typed: str, said: str) -> None:
    """"play3" was answered "did you mean 'play'?" (typed, "play" asked which card), and
    "d3" and French "jouer3" were unknown commands: the command with its space."""
    ctx = make(sorted(cards_of(Kind.D25) + cards_of(Kind.ROLL) + cards_of(Kind.STOP)))
    with i18n.using(lang):
        out = parse(typed, ctx)
    assert out.kind == "error" and out.text == said, out


# ----- 12. a full table whose match does not start: who it waits for -----


def _lobby(*ready: bool) -> object:
    from engine import preset as rules
    from p2p.table import LobbyState
    from p2p.table.lobby import SeatInfo

    names = ["Ann", "Ben", "Cy"]
    seats: list[SeatInfo | None] = [SeatInfo(names[i], bytes([i]) * 32, r)
                                    for i, r in enumerate(ready)]
    return LobbyState("Ann's table", rules("classic"), Seating.solo(3), seats,
                      bytes(32), bytes(16))


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_full_lobby_says_who_the_match_waits_for(lang: str) -> None:
    """Ann hosted with --not-ready; Ben joined the last seat and read the seats, "seat 0:
    Ann" without "(ready)", and nothing else: the match did not start and nothing said
    why. The lobby says who it waits for; to the one not ready, to type ready."""
    with i18n.using(lang):
        state = _lobby(False, True, True)
        to_ben = words.lobby_wait_line(state, host=False, mine=1)
        to_ann = words.lobby_wait_line(state, host=True, mine=0)
        both = words.lobby_wait_line(_lobby(False, False, True), host=False, mine=2)
        ready = words.lobby_wait_line(_lobby(True, True, True), host=False, mine=1)
    if lang == "en":
        assert to_ben == "Every seat is taken: the match starts once Ann is ready (no time " \
            "limit).", to_ben
        assert both is not None and "once Ann and Ben are ready" in both, both
        assert to_ann is not None and "type ready when you are" in to_ann, to_ann
    else:
        assert to_ben is not None and "dès qu'Ann aura tapé ready" in to_ben, to_ben
        assert to_ann is not None and "tapez ready" in to_ann, to_ann
    assert ready is None            # everyone ready: the match starts, nothing to wait for


def test_a_joiner_at_a_full_table_reads_who_the_match_waits_for(tmp_path: Path) -> None:
    """Host and join on loopback, the host not ready: the joiner reads whom the match
    waits for, and is not told to type ready (their own ready is sent at once)."""
    from cli_helpers import free_port
    from test_newcomer_plain import Player

    port = free_port()
    ann = Player(["host", "--plain", "--not-ready", "--name", "Ann", "--bind", "127.0.0.1",
                  "--port", str(port), "--no-announce", "--players", "2", "--data-dir",
                  str(tmp_path / "a"), "--identity", str(tmp_path / "a.key")], tmp_path)
    bea: Player | None = None
    try:
        ann.until("others join with")
        bea = Player(["join", "--plain", "--name", "Bea", "--peer", f"127.0.0.1:{port}",
                      "--port", str(free_port()), "--data-dir", str(tmp_path / "b"),
                      "--identity", str(tmp_path / "b.key")], tmp_path)
        said = bea.until(r"Every seat is taken: the match starts once Ann is ready \(no "
                         r"time limit\)\.")
        assert "type ready when you are" not in said, said
        ann.until(r"Every seat is taken: type ready when you are")
        ann.type("ready")
        bea.until(r"Hand 1: the cards are dealt")
    finally:
        for p in (bea, ann):
            if p is not None:
                p.close()


def test_joins_list_of_tables_keeps_how_the_player_reaches_the_network() -> None:
    """The review of this pass: a player who needed ``--interface`` (or ``--peer``, a
    port, a longer ``--connect-timeout``) to reach the tables was offered commands
    without it. Each option typed comes back, and parses to what was typed."""
    import shlex

    from cli.args import build_parser
    from cli.join import own_flags

    _parser, sub = build_parser()
    typed = ["--interface", "eth1", "--port", "47000", "--peer", "10.0.0.5:4000",
             "--peer", "10.0.0.6:4000", "--connect-timeout", "25", "--name", "Ben"]
    args = sub["join"].parse_args(typed)
    again = sub["join"].parse_args(["--table", "UN2KD-LVPJF", *shlex.split(own_flags(args))])
    for name in ("interface", "port", "peer", "connect_timeout", "name"):
        assert getattr(again, name) == getattr(args, name), name     # before: interface…
    bare = sub["join"].parse_args([])
    assert own_flags(bare) == ""            # the defaults need no option
