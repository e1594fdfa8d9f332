"""The twentieth first-time-player pass: what the nineteenth left.

At a networked table (``play`` is one: its bots are peers) the line mode said of a bot
whose program was slow to answer "their computer counts as gone", as of a person, and
after the turn line's "Waiting for Bot1 to answer the hazard (up to 30 s)" it said the
table's "20 s": two figures for one wait, neither explained. A Uyghur match line read
"سىز &" and then "Cy 0 · Bo & Di 0" as one left-to-right run: the teams' names and scores
out of their reading order.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from cli_helpers import PeerStub, WaitingNetDriver

from cli import i18n

# ----- 1-2. a bot slow to answer: said as a bot, its runner named, its figures explained ----


class _SlowSeat(WaitingNetDriver):
    """A network console's driver whose table waits on seat 1's move while seat 1's
    program is slow to answer."""

    names = ["Ann", "Bot1"]

    def __init__(self, bot: bool, seat: int = 0, decision_limit: float | None = None,
                 takeovers: tuple[Any, ...] = ()) -> None:
        super().__init__("slow", bot, seat, decision_limit, takeovers)


@pytest.mark.parametrize("seat, runner", [(0, "this computer"), (2, "Ann")])
def test_a_slow_bot_is_said_as_a_bot_with_whose_computer_runs_it(seat: int,
                                                                 runner: str) -> None:
    """"Waiting for Bot1 (slow): … their computer counts as gone": Bot1 is a bot, run by
    this computer in `play`, by the host (seat 0) at a table one joined."""
    d = _SlowSeat(bot=True, seat=seat)
    if seat == 2:
        d.names = ["Ann", "Bot1", "Cy"]
    with i18n.using("en"):
        said = d.activity(plain=True)
    assert said is not None, said
    assert said.startswith(f"Waiting for Bot1 (a bot run by {runner}"), said
    assert "their computer" not in said and "them" not in said, said


def test_a_slow_person_is_still_said_as_a_person() -> None:
    with i18n.using("en"):
        said = _SlowSeat(bot=False).activity(plain=True)
    assert said is not None and "their computer" in said and "a bot" not in said, said


def test_a_slow_bots_figures_are_said_together() -> None:
    """The turn line said "(up to 30 s)", the bot's own time; the slow line said only
    "5 s" and "20 s": it now says the 30 s too, and what each of them is."""
    from cli.bot_process import bot_move_time

    with i18n.using("en"):
        said = _SlowSeat(bot=True).activity(plain=True) or ""
    move = f"{bot_move_time(None):g}"
    assert f"its {move} s for a move hold while its program answers" in said, said
    assert "after 5 s of silence" in said and "up to 20 s more" in said, said


def test_a_slow_bot_at_a_timed_table_says_the_tables_limit_beside_its_own() -> None:
    """At a table that times moves (60 s) the bot has 47 s of its own; the table pauses
    at 60 s: "Waiting for Bot1 (slow) (up to 60 s)" after "(up to 47 s)"."""
    from cli.bot_process import bot_move_time

    with i18n.using("en"):
        said = _SlowSeat(bot=True, decision_limit=60.0).activity(plain=True) or ""
    assert f"its {bot_move_time(60.0):g} s for a move" in said, said
    assert "pauses if the move has not come within 60 s" in said, said


def test_a_slow_bot_that_took_a_seat_is_named_as_such() -> None:
    """A bot that took Bo's seat by agreement, run by Ann: "Bot1's bot", run by Ann."""
    taken = SimpleNamespace(seat=1, hand=-1, runner=0)
    d = _SlowSeat(bot=True, seat=2, takeovers=(taken,))
    d.names = ["Ann", "Bo", "Cy"]
    with i18n.using("en"):
        said = d.activity(plain=True) or ""
    # named once as a bot: "Bo's bot (a bot run by Ann" said it twice (newcomer pass 25)
    assert said.startswith("Waiting for Bo's bot (run by Ann;"), said


@pytest.mark.parametrize("lang", ["af", "fr", "sv", "ug", "vi"])
def test_the_slow_bot_line_is_translated(lang: str) -> None:
    with i18n.using("en"):
        english = _SlowSeat(bot=True).activity(plain=True)
    with i18n.using(lang):
        said = _SlowSeat(bot=True).activity(plain=True)
    assert said and said != english and "30" in said and "20" in said, said
    assert "a bot run by" not in said and "slow to answer" not in said, said



@pytest.mark.parametrize("lang", ["en", "af", "fr", "sv", "ug", "vi"])
@pytest.mark.parametrize("gone", [5.0, None])
def test_the_slow_bot_line_fits_the_full_screens_status(lang: str, gone: float | None) -> None:
    """The full screen's status has three lines at 80 columns (78 for the text): a
    longer wait was cut with "… (all of it in the log)"."""
    from cli.app import MAX_STATUS
    from cli.words import slow_bot_move_line

    with i18n.using(lang):
        for name in ("Bot1", i18n._("%(name)s's bot") % {"name": "Bo"}):
            said = slow_bot_move_line(name, i18n._("this computer"), 30, gone, 20)
            assert len(i18n.wrap(said, 78)) <= MAX_STATUS, said
            said = slow_bot_move_line(name, i18n._("this computer"), 30, gone, 20,
                                      named_bot=True)
            assert len(i18n.wrap(said, 78)) <= MAX_STATUS, said

# ----- 3. Uyghur: each team's name and score together, in reading order ---------------------


def _match_line(names: list[str], teams: str | None) -> str:
    from cli import render
    from engine import Seating, preset
    from engine.scoring import Match

    match = Match(preset("classic"), Seating.parse(len(names), teams), 0)
    with i18n.using("ug"):
        line = render.match_line(match, names)
    return "".join(text for _style, text in line)


def test_a_uyghur_match_line_keeps_each_team_with_its_score() -> None:
    """"سىز &" and then "Cy 0 · Bo & Di 0", one left-to-right run: read from the right,
    Cy's team came first, Bo & Di's score last. Each item is its own unit: from the
    right, "سىز & Cy 0", then "Bo & Di 0"."""
    from cli.i18n.rtl import shape, visual

    shown = visual(_match_line(["You", "Bo", "Cy", "Di"], "2x2"))
    you = shape("سىز")[::-1]
    assert shown.startswith(f"Bo & Di 0 · Cy 0 & {you} "), shown


def test_a_uyghur_match_line_of_three_reads_from_the_right() -> None:
    """"سىز 0 · Bo 0 · Cy 0": "0 · Bo 0 · Cy 0" was one run, its first "0" (yours) at the
    far left, away from "سىز"."""
    from cli.i18n.rtl import shape, visual

    shown = visual(_match_line(["You", "Bo", "Cy"], None))
    assert shown.startswith(f"Cy 0 · Bo 0 · 0 {shape('سىز')[::-1]} "), shown


def test_a_dot_inside_a_latin_only_run_is_the_sentences() -> None:
    """The rule in general: a Latin list in a Uyghur sentence keeps its items' order from
    the right, each item as written."""
    from cli.i18n.rtl import shape, visual

    shown = visual("تاللاڭ: a b · c d · e")
    assert shown.startswith("e · c d · a b :"), shown
    assert shown.endswith(shape("تاللاڭ")[::-1]), shown


# ----- 4. `millebornes rules` and `millebornes help`: what a newcomer types first ----------


def test_millebornes_rules_says_how_to_play(capsys: pytest.CaptureFixture[str]) -> None:
    """"millebornes rules" was "VERB: invalid choice: 'rules'": the rules were in a game's
    help alone. It says the game in brief and the two rule sets."""
    from cli.main import main

    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("How to play, in brief:"), out
    assert "Coup fourré" in out and "--rules modern" in out and "--option help" in out, out
    assert max(len(line) for line in out.splitlines()) <= 80, out


def test_millebornes_rules_in_french(capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    assert main(["rules", "--lang", "fr"]) == 0
    out = capsys.readouterr().out
    assert "How to play" not in out and "Two rule sets" not in out and "--rules modern" in out


def test_millebornes_rules_at_60_columns_wraps_each_item_whole() -> None:
    """The page's lines are broken for 80 columns: wrapped one by one at 60, each left a
    stub of a line ("  200 km, at most" then "  two 200s a hand."). Each item is wrapped
    as one."""
    from cli.rules import rules_text

    with i18n.using("en"):
        page = rules_text(60).splitlines()
    assert all(i18n.cells(line) <= 60 for line in page), page
    assert "  two 200s a hand." not in page, page
    assert "at most two 200s a hand." in " ".join(line.strip() for line in page), page


@pytest.mark.parametrize("argv, start", [
    (["help"], "usage: millebornes [-h]"),
    (["help", "play"], "usage: millebornes play"),
    (["help", "Rules"], "usage: millebornes rules"),
])
def test_millebornes_help_shows_the_usage(argv: list[str], start: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """"millebornes help" was "VERB: invalid choice: 'help'"."""
    from cli.main import main

    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith(start), out
    if argv == ["help"]:
        assert "    rules " in out and "    help " in out, out


def test_millebornes_help_of_a_mistyped_verb_guesses(capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    assert main(["help", "plya"]) == 2
    assert "did you mean 'play'?" in capsys.readouterr().err


# ----- 5. a path too long for the line: its full stop does not begin the next line ---------


def test_a_full_stop_after_a_path_too_long_stays_with_a_letter() -> None:
    """At 60 columns the end of a match said "…/transcript.mbt" and then ". Anyone can
    check it with:": the sentence's full stop began a line of its own."""
    path = "/tmp/nc20/d5/906cca5544570b1d6a0cdf85c52d6ff3/transcript.mbt"
    assert len(path) == 60
    lines = i18n.wrap(f"The game is saved in {path}. Anyone can check it with:", 60)
    assert not any(line[:1] in ".,;:" for line in lines), lines
    assert "".join(lines[1:3]).startswith(path + "."), lines
    assert all(i18n.cells(line) <= 60 for line in lines), lines


# ----- 6. Uyghur: a hand's score table reads from the right, each side's points under it ----


def _score_table() -> tuple[list[Any], list[str]]:
    """A 2×2 hand's score table in Uyghur: its lines (fragments) and as the line mode
    shows them."""
    from cli import render
    from engine import Seating, preset
    from engine.scoring import Match, SideScore

    seating = Seating.parse(4, "2x2")
    zero = dict.fromkeys(SideScore._fields, 0)
    ours = SideScore(**{**zero, "distance": 400})
    theirs = SideScore(**{**zero, "distance": 1000, "safeties": 200})
    match = Match(preset("modern"), seating, 0, ((ours, theirs),))
    with i18n.using("ug"):
        lines = render.score_lines((ours, theirs), match, ["You", "Bo", "Cy", "Di"], 1)
        shown = [i18n.display(line) for line in render.plain(lines)]
    return lines, shown


def _columns_agree(rows: list[str]) -> None:
    """The first side ("سىز & Cy", 400 km) stands next to the items' names, on the
    right; "Bo & Di" (1000 km) left of it; each side's points under its name."""
    head, distance = rows[0], rows[1]
    assert head.startswith("Bo & Di "), rows
    assert distance.startswith("1000 "), rows
    assert distance.index("400") == head.index("Cy &"), rows


def test_a_uyghur_score_table_in_the_line_mode_reads_from_the_right() -> None:
    """`play --plain --lang ug --teams 2x2`: the header read "Cy     Bo & Di & سىز" and
    the points "400        1000", one left-to-right run each: read from the right, the
    first column under "سىز &" was Bo & Di's 1000."""
    _lines, shown = _score_table()
    _columns_agree(shown)


def test_a_uyghur_score_table_on_the_full_screen_reads_from_the_right() -> None:
    """The full screen lays a line's fragments out from the right: a row's points were
    one fragment, left to right, under names ordered from the right."""
    from cli.i18n.rtl import visual_fragments

    lines, _shown = _score_table()
    with i18n.using("ug"):
        rows = ["".join(t for _s, t in visual_fragments(line)) for line in lines]
    _columns_agree(rows)


def test_the_score_table_in_english_is_as_it_was() -> None:
    from cli import render
    from engine import Seating, preset
    from engine.scoring import Match, SideScore

    seating = Seating.parse(4, "2x2")
    zero = dict.fromkeys(SideScore._fields, 0)
    ours = SideScore(**{**zero, "distance": 400})
    theirs = SideScore(**{**zero, "distance": 1000, "safeties": 200})
    match = Match(preset("modern"), seating, 0, ((ours, theirs),))
    with i18n.using("en"):
        shown = render.plain(render.score_lines((ours, theirs), match,
                                                ["You", "Bo", "Cy", "Di"], 1))
    assert shown[:2] == ["Hand 1 scores               You & Cy     Bo & Di",
                         "Distance                         400        1000"], shown


# ----- 7. a side's row keeps within the board's 80 cells, safeties and all ------------------


def _long_row_view(safeties: int) -> Any:
    """2×2, modern: our side at 1000 km in fourteen cards (no 200) with ``safeties``."""
    from engine import Seating, position, preset
    from engine.cards import Kind, kind
    from engine.state import Zone

    rules, seating = preset("modern"), Seating.parse(4, "2x2")
    deck = rules.deck(seating)
    used: set[int] = set()

    def take(k: Kind, n: int) -> list[int]:
        out = [c for c in deck if kind(c) is k and c not in used][:n]
        used.update(out)
        return out

    dist = take(Kind.D25, 2) + take(Kind.D50, 3) + take(Kind.D75, 4) + take(Kind.D100, 5)
    safe = [c for k in (Kind.EXTRA_TANK, Kind.DRIVING_ACE, Kind.RIGHT_OF_WAY,
                        Kind.PUNCTURE_PROOF)[:safeties] for c in take(k, 1)]
    ours = Zone.from_cards(battle=take(Kind.ROLL, 1), distance=dist, safeties=safe,
                           coups=safe[:1])
    hands = [take(k, 2) for k in (Kind.REPAIRS, Kind.GASOLINE, Kind.SPARE_TIRE,
                                  Kind.END_OF_LIMIT)]
    return position(rules, seating, hands=hands, zones=[ours, Zone()], seat=0)


@pytest.mark.parametrize("lang", ["en", "af", "fr", "sv", "ug", "vi"])
@pytest.mark.parametrize("safeties", [2, 4])
def test_a_sides_row_fits_the_board(lang: str, safeties: int) -> None:
    """Uyghur, two safeties, 1000 km in 25s to 100s: the row was 84 cells, and the board
    (every line padded to the widest, laid out from the right) lost a letter of each
    line at the screen's edge ("مۇسابىقە" showed without its first letter). Four safeties
    did it in every language."""
    from cli import render

    view = _long_row_view(safeties)
    with i18n.using(lang):
        rows = render.zone_lines(view, 0, ["You", "Bo", "Cy", "Di"], 0, lang)
    widths = [render.width(row) for row in rows]
    assert max(widths) <= 80, (widths, ["".join(t for _s, t in r) for r in rows])
    assert "25×2 50×3 75×4 100×5" in "".join(t for _s, t in rows[1])


def test_the_200s_note_stays_where_there_is_room() -> None:
    from cli import render

    with i18n.using("en"):
        rows = render.zone_lines(_long_row_view(2), 0, ["You", "Bo", "Cy", "Di"], 0, "en")
    assert "200 km cards 0/2" in "".join(t for _s, t in rows[1])


# ----- 8. a networked table's set-up in one line, a slow step named ---------------------------


class _SettingUp:
    """A driver before its first deal: ``steps`` (activity, pumps it lasts) in turn, then
    the hand is dealt. NetDriver's own :meth:`wait_ready`."""

    _thread = None

    def __init__(self, steps: list[tuple[str, int]]) -> None:
        self.plan = [word for word, pumps in steps for _ in range(pumps)]
        self.peer = PeerStub(view=lambda: None if self.plan else object(),
                                    pump=self._pump)

    def _pump(self, timeout: float) -> bool:
        import time
        time.sleep(0.01)
        if self.plan:
            self.plan.pop(0)
        return True

    def activity(self) -> str | None:
        return self.plan[0] if self.plan else None

    def _collect(self) -> None:
        return None


def test_the_set_up_names_only_a_step_that_takes_long() -> None:
    """`host`/`join`: fourteen lines ("Publishing hand keys: waiting for Bot1 (up to 20 s)",
    "Committing to randomness: …") for a set-up of two seconds. A quick step is not said;
    one that lasts is, once."""
    from cli.netdriver import NetDriver

    said: list[str] = []
    d = _SettingUp([("keys: Bot1", 2), ("keys: Ben", 2), ("shuffle: Ben", 40),
                    ("deal: Bot1", 2)])
    assert NetDriver.wait_ready(d, 5.0, say=said.append, quiet_for=0.15)  # type: ignore[arg-type]
    assert said == ["shuffle: Ben"], said


def test_the_set_up_line_says_what_happens_and_the_threshold() -> None:
    from cli.words import deal_setup_line

    with i18n.using("en"):
        line = deal_setup_line(2.0)
    assert "shuffles the deck" in line and "more than 2 s is named" in line, line
    for lang in ("af", "fr", "sv", "ug", "vi"):
        with i18n.using(lang):
            assert deal_setup_line(2.0) != line and "2" in deal_setup_line(2.0), lang


# ----- 9. resume: the moves said again are said to be old ---------------------------------


@pytest.mark.parametrize("lang", ["en", "af", "fr", "sv", "ug", "vi"])
def test_resume_says_the_moves_so_far_are_said_again(lang: str) -> None:
    """`resume` of a game left after hand 1: "catching up with what the others played
    meanwhile", then hand 1's 130 moves, which the player had seen, read as news. The
    line names where the old moves end: the log's own line, in the same words."""
    from cli.words import back_at_table_line, resumed_line

    with i18n.using(lang):
        said, back = resumed_line("28be0882"), back_at_table_line()
    assert "28be0882" in said and back in said, said
    if lang == "en":
        assert said.startswith("Game 28be0882 resumed: catching up"), said
        assert "said again" in said and "after it are new" in said, said


# ----- 10. a bot gone silent while the table does not wait for it: said as a bot --------------


@pytest.mark.parametrize("bot", [True, False])
def test_a_bot_gone_silent_is_not_said_to_have_left(bot: bool) -> None:
    """"Bot1 has gone silent (they left, or lost the connection) … waits up to 20 s for
    them": a bot's program stopped, on the computer that runs it."""
    from cli.netdriver import NetDriver
    from p2p.table import TableStep

    d = _SlowSeat(bot=bot)
    d.peer.peer_state = lambda s: "gone"
    d.peer.waiting_on = lambda: SimpleNamespace(seat=0, step=TableStep.MOVE)
    for name in ("_bot_name", "bot_runner_name", "runner_name"):
        setattr(d, name, getattr(NetDriver, name).__get__(d))
    with i18n.using("en"):
        NetDriver._watch_peers(d)  # type: ignore[arg-type]
    assert len(d._events) == 1, d._events
    if bot:
        assert d._events[0].startswith("Bot1 (a bot run by this computer) has stopped "
                                       "answering"), d._events
        assert "they left" not in d._events[0] and "for them" not in d._events[0]
    else:
        assert "they left" in d._events[0], d._events


@pytest.mark.parametrize("lang", ["af", "fr", "sv", "ug", "vi"])
def test_the_bot_gone_silent_line_is_translated(lang: str) -> None:
    from cli.words import went_silent_bot_line

    with i18n.using(lang):
        said = went_silent_bot_line("Bot1", "Ann", 20)
    assert "a bot run by" not in said and "Ann" in said and "20" in said, said


# ----- 11. the line mode's opening line: a player's passing state is no news ------------------


@pytest.mark.parametrize("state, shown", [("thinking", "Ann"), ("connected", "Ann"),
                                          ("left", "Ann (left)")])
def test_the_opening_line_says_no_passing_state(state: str, shown: str) -> None:
    """A joiner read "Mille Bornes, classic rules: Ann (thinking), Bot1 (bot), Ben (you)"
    while Bot1 was to play first: Ann's computer was dealing a card. A player who left
    is still said."""
    import io

    from cli.driver import LocalDriver, PeerStatus
    from cli.plain import run_plain
    from engine import Seating, preset

    d = LocalDriver(preset("classic"), Seating.solo(3), ["Ben", "Ann", "Bot1"], seed=1)
    d.peers = lambda: [PeerStatus(0, "Ben", "you", "ready"),  # type: ignore[method-assign]
                       PeerStatus(1, "Ann", "peer", state),
                       PeerStatus(2, "Bot1", "bot", "connected")]
    out = io.StringIO()
    with i18n.using("en"):
        run_plain(d, out=out, inp=io.StringIO(""))
    first = " ".join(out.getvalue().split("\n")[:2])
    assert f"Ben (you), {shown}, Bot1 (bot)" in first, first
