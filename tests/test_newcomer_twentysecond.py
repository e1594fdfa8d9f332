"""The twenty-second first-time-player pass: what the twenty-first left.

"Waiting for Bo (a bot) to unlock the next card" asked a newcomer which card, and what
lock; option ids ("O-attacker-started") reached the reasons a player reads; the line mode
said what the table waited for at a hand's end before the hand's result; the Uyghur score
table's "Coup fourré" row read left to right; the modern hand-over page at 80×24. Played
at 80×24 (modern, 2x2 teams against hard bots, the line mode): "cure it before driving"
named no card; the set-up's steps said as the protocol names them ("Publishing hand
keys"), ten lines at each hand's start in the line mode; the rules page explained an
"[O-name]" id no reason shows.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cli_helpers import WaitingNetDriver
from test_cli_render import cards_of

from cli import i18n

# ----- 1. the fair deck's step before a draw, in plain words -----


class _DrawWait(WaitingNetDriver):
    """A network console's driver waiting on seat 1's part of the next draw."""

    def __init__(self, bot: bool, state: str = "connected") -> None:
        from p2p.table import TableStep

        super().__init__(state, bot)
        self.peer.waiting_on = lambda: SimpleNamespace(seat=1, step=TableStep.SHARE)
        self.peer.auto_time = lambda seat: (0.0, None)

    def slow_note(self, seat: int) -> str:
        return ""


@pytest.mark.parametrize("plain", [True, False])
@pytest.mark.parametrize("bot", [True, False])
def test_the_wait_before_a_draw_says_what_for_in_plain_words(bot: bool, plain: bool) -> None:
    """"to unlock the next card": what card, what lock? The table waits for Bo's part of
    the next draw, which every player takes part in so that nobody can see the deck."""
    with i18n.using("en"):
        said = _DrawWait(bot).activity(plain=plain)
    assert said is not None
    assert "unlock" not in said and "lock" not in said, said
    who = "Bo (a bot)" if bot else "Bo's computer"
    assert said.startswith(f"Waiting for {who} to help draw the next card (up to 20 s): "), said
    assert "takes part in each draw, so that nobody can peek at the deck." in said, said


@pytest.mark.parametrize("lang, draw", [("af", "trek"), ("fr", "pioch"), ("sv", "dra"),
                                        ("ug", "سىزىش"), ("vi", "rút")])
def test_the_wait_before_a_draw_is_translated(lang: str, draw: str) -> None:
    """Each language says the draw (its own word for it), not a lock."""
    for bot in (True, False):
        with i18n.using(lang):
            said = _DrawWait(bot, "slow").activity(plain=True) or ""
        assert "draw" not in said and "Bo" in said and "20" in said, (lang, said)
        assert draw in said, (lang, said)


# ----- 2. an option's id is said as the option's name, as `--option help` names it -----


def _reasons_of_options() -> list[str]:
    """The engine's refusals that lead with an option's id, each as the engine gives it."""
    from engine import Draw, IllegalAction, Kind, Seating, apply_action, explain, new_hand, preset

    out = []
    # R6a under attacker_started: a Stop from a player whose zone has not started
    rules = preset("classic", attacker_started=True)
    seating = Seating.parse(2, None)
    state = new_hand(rules, seating, list(rules.deck(seating)), 0)
    stop = cards_of(Kind.STOP)[0]
    hands = list(state.hands)
    hands[0] = (stop,) + tuple(hands[0][1:])
    state = state._replace(hands=tuple(hands))
    reason = explain(state._replace(phase="play", pending=()), 0, stop, 1)
    assert reason is not None and "O-attacker-started" in reason, reason
    out.append(reason)
    # R4a: the discard pile's top card, where the rules do not allow it
    try:
        apply_action(state._replace(discard=tuple(cards_of(Kind.D25)[:1])),
                     Draw(0, "discard"))
    except IllegalAction as exc:
        out.append(str(exc))
    assert "O-draw-discard" in out[-1], out
    # R10 (fast_play off), as the engine words them
    out += ["R10: O-fast-play is off: no remedy out of turn",
            "R10: O-fast-play is off: discard one card at a time"]
    return out


@pytest.mark.parametrize("lang", ["en", "af", "fr", "sv", "ug", "vi"])
def test_no_option_id_reaches_a_reason(lang: str) -> None:
    """"O-attacker-started: you may attack only once…" was said as the engine wrote it:
    an id a newcomer met nowhere. Each reason names the option as ``--option help`` does
    (attacker_started, fast_play, draw_discard), in words."""
    from cli.words import rule_last

    names = {"O-attacker-started": "attacker_started", "O-draw-discard": "draw_discard",
             "O-fast-play": "fast_play"}
    for reason in _reasons_of_options():
        with i18n.using(lang):
            said = rule_last(reason)
        assert "O-" not in said, (lang, said)
        option = next(v for k, v in names.items() if k in reason)
        assert option in said, (lang, said)
        assert said.endswith("]"), said            # the rule id still last


def test_classics_roll_after_a_remedy_names_the_option_as_typed() -> None:
    from cli.words import rule_last

    reason = ("R7: your zone is not moving: play a Roll first (a remedy is not enough "
              "under O-roll-after-remedy)")
    for lang in ("en", "af", "fr", "sv", "ug", "vi"):
        with i18n.using(lang):
            said = rule_last(reason)
        assert "O-roll" not in said and "roll_after_remedy" in said, (lang, said)


# ----- 3. a hand's end: its result first, then what the table waits for -----


def test_a_hands_result_is_said_before_the_proof_the_table_waits_for(
        tmp_path: Path) -> None:
    """`play --plain` said "* Proving the deal was fair: waiting for Bo (up to 20 s)."
    and then "* Hand 1 over: Bo completed the trip.": the result waited for the proof's
    end (the hand-end event). Here the proof is held back (the hand-end events kept from
    the console) once the last move is applied: the hand's result is said already, right
    after that move, and said once when the proof comes."""
    import time

    from cli.play import LoopbackTable
    from engine import Seating, preset
    from engine.bots import make_bot

    table = LoopbackTable(preset("modern", match_target=2000), Seating.solo(2),
                          ["Ana", "Bo"], seed=5, base=tmp_path)
    try:
        d, peer = table.driver, table.peer
        drain = peer.drain_events
        held: list[Any] = []

        def withheld() -> list[Any]:
            out = []
            for ev in drain():
                (held if ev.kind == "hand-end" else out).append(ev)
            return out

        peer.drain_events = withheld            # type: ignore[method-assign]
        me = make_bot("heuristic", 1)
        deadline = time.monotonic() + 30
        while peer.hand_no == 0 and time.monotonic() < deadline:
            if d.my_move():
                d.submit(me.choose(d.view(), d.legal()))
            elif not d.step_others(0.01):
                time.sleep(0.002)
            if any(line.startswith("Hand 1 over") for line in d.events):
                break
        assert not d.hand_over
        overs = [i for i, line in enumerate(d.events) if line.startswith("Hand 1 over")]
        assert len(overs) == 1, d.events[-6:]
        assert overs[0] == len(d.events) - 1, d.events[-6:]   # just after the last move
        assert d.events[-2].startswith(("Ana ", "You ", "Bo ")), d.events[-6:]
        peer.drain_events = lambda: held + drain()  # type: ignore[method-assign]
        while not d.hand_over and time.monotonic() < deadline:
            d.step_others(0.01)
        assert d.hand_over
        assert sum(line.startswith("Hand 1 over") for line in d.events) == 1, d.events[-6:]
    finally:
        table.close()
        table.peer.close(flush=0.2)


# ----- 4. Uyghur: the score sheet's "Coup fourré" row read from the right as the others -----


@pytest.mark.parametrize("rules", ["classic", "modern"])
def test_the_uyghur_score_sheet_reads_every_row_from_the_right(rules: str) -> None:
    """`play --plain --lang ug`: the row "Coup fourré  300  0" (Latin letters alone: the
    French term is kept) was left as written, left to right, while every other row of the
    sheet is laid out right to left (its name at the right end, the sides' points to its
    left, the first side's nearest). Every row now reads from the right."""
    import io

    from cli.plain import PlainSession
    from engine import Seating, preset
    from engine.scoring import Match, SideScore

    zero = dict.fromkeys(SideScore._fields, 0)
    ours = SideScore(**{**zero, "distance": 700, "safeties": 100, "coups_fourres": 300})
    theirs = SideScore(**{**zero, "distance": 500})
    match = Match(preset(rules), Seating.parse(2, None), 0, ((ours, theirs),))
    driver = SimpleNamespace(last_scores=lambda: (ours, theirs), match=match,
                             names=["You", "Bo"], hand_no=1)
    out = io.StringIO()
    with i18n.using("ug"):
        PlainSession(driver, out=out, inp=io.StringIO()).show_scores()  # type: ignore[arg-type]
    rows = out.getvalue().split("\n")
    coup = next(line for line in rows if "Coup" in line)
    assert coup.rstrip().endswith("Coup fourré"), rows
    assert coup.split() == ["0", "300", "Coup", "fourré"], coup
    distance = next(line for line in rows if "700" in line and "500" in line)
    assert distance.split()[:2] == ["500", "700"], distance     # the same layout
    assert len(coup.rstrip()) == len(distance.rstrip()), (coup, distance)


# ----- 5. modern rules: the hand-over page with the coup-fourré note fits 80×24 -----


def _modern_hand_over(players: int, teams: str | None, target: int, lang: str) -> Any:
    """A modern hand played to its end by bots, this seat's too, in which a coup fourré
    scored (the note's two lines under the score sheet)."""
    from cli.driver import LocalDriver
    from engine import Seating, preset
    from engine.bots import make_bot

    names = ["You", "Bo", "Cy", "Di", "Ed", "Flo"][:players]
    with i18n.using(lang):
        for seed in range(1, 40):
            d = LocalDriver(preset("modern", match_target=target),
                            Seating.parse(players, teams), names, seed=seed)
            me = make_bot("heuristic", seed)
            while not d.hand_over:
                if d.others_pending():
                    d.step_others()
                else:
                    d.submit(me.choose(d.view(), d.legal()))
            if any(s.coups_fourres for s in d.last_scores()):
                return d
    raise AssertionError("no coup fourré in 40 hands")


@pytest.mark.parametrize("lang", ["en", "fr", "vi"])
@pytest.mark.parametrize("players, teams, target", [
    (2, None, 0), (3, None, 0), (4, "2x2", 5000), (6, "3x2", 5000)])
def test_the_modern_hand_over_page_keeps_the_prompt_and_totals_at_80_by_24(
        lang: str, players: int, teams: str | None, target: int) -> None:
    """The score sheet's coup-fourré note adds two lines (three in a wordy language) to
    the hand-over page: at 80×24 the page keeps everything the player needs, the hand's
    and the match's totals, the note and the prompt (what to press), every line within
    80 columns."""
    from cli_helpers import SizedOutput

    from cli import render
    from cli.app import TableApp

    d = _modern_hand_over(players, teams, target, lang)
    with i18n.using(lang):
        app = TableApp(d, output=SizedOutput(80, 24), delay=0, lang=lang)
        assert not app.too_small()
        table, hand, status = app._table_lines(), app._hand_lines(), app.status_lines()
        shown = render.plain(table + hand)
        words = {k: i18n._(k) for k in ("hand total", "match total")}
        prompt = (i18n._("Press q to leave.") if d.over else
                  i18n._("Hand %(hand)d over. Press Enter for hand %(next)d.")
                  % {"hand": 1, "next": 2})
    # the frame's two rules, the log (one line at least), the command line
    rows = len(table) + 1 + max(3, len(hand)) + 1 + 1 + 1 + len(status)
    assert rows <= 24, (rows, shown, status)
    assert all(render.width(line) <= 80 for line in table + hand)
    assert any(line.startswith(words["hand total"]) for line in shown), shown
    assert any(line.startswith(words["match total"]) for line in shown), shown
    joined = " ".join(" ".join(shown).split())
    assert "200" in joined and ("Coup" in joined or "coup" in joined), joined  # the note
    assert prompt in " ".join(status), status


# ----- 6. (played) "cure it before driving": with what? -----


@pytest.mark.parametrize("lang, said", [
    ("en", "Your zone shows Accident: cure it with Repairs (or play Driving Ace) before "
           "driving [R5]"),
    ("fr", "Votre zone montre Accident : parez avec Réparations (ou jouez As du volant) "
           "avant de rouler [R5]"),
    ("af", "genees dit met Herstel (of speel Ry-aas)"),
    ("sv", "bota den med Reparation (eller spela Mästerförare)"),
    ("vi", "khắc phục bằng Sửa chữa (hoặc chơi Át lái xe)"),
])
def test_a_hazard_in_force_names_its_remedy_and_its_safety(lang: str, said: str) -> None:
    """Modern rules, under an Accident, ? on a 25: "Your zone shows Accident: cure it
    before driving" left a newcomer asking with which card."""
    from test_cli_render import base_view

    from cli.words import rule_last, stuck_reason
    from engine import Kind, explain

    v = base_view(2, "modern")
    z = v.zones[0]._replace(battle=tuple(cards_of(Kind.ROLL) + cards_of(Kind.ACCIDENT)),
                            started=True)
    hand = list(v.hands[0])
    hand[0] = cards_of(Kind.D25)[0]
    v = v._replace(zones=(z,) + v.zones[1:], hands=(tuple(hand),) + v.hands[1:])
    reason = explain(v, 0, hand[0])
    assert reason is not None and "cure it before driving" in reason, reason
    with i18n.using(lang):
        assert said in rule_last(reason), rule_last(reason)
        if lang == "en":
            assert "cure it with Repairs" in (stuck_reason(v, 0, ["You", "Bo"]) or "")


# ----- 7. (played) a hand's set-up steps in plain words -----


@pytest.mark.parametrize("step", ["KEYS", "RANDOM_COMMIT", "SHUFFLE_COMMIT"])
def test_the_steps_before_the_shuffle_are_said_in_plain_words(step: str) -> None:
    """`play --plain --teams 2x2`, each hand: "Publishing hand keys: waiting for Bo",
    "Committing to shuffles: waiting for Bo": what keys, what commitment? They are what
    the shuffle needs first, and are said so."""
    from p2p.table import TableStep

    d = _DrawWait(bot=True)
    d.peer.waiting_on = lambda: SimpleNamespace(seat=1, step=TableStep[step])
    with i18n.using("en"):
        said = d.activity(plain=True)
    assert said == "Getting ready to shuffle: waiting for Bo (a bot), up to 20 s.", said
    with i18n.using("fr"):
        said = d.activity(plain=True)
    assert said is not None and said.startswith("Préparation du mélange"), said


# ----- 8. (played) the line mode: a hand's set-up is not ten lines of waits -----


def test_the_line_mode_says_a_set_up_wait_only_once_it_lasts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`play --plain`, each hand's start: "Publishing hand keys: waiting for Bo", "… for
    Di", "Shuffling the deck: waiting for Bo", "… for Cy", "… for Di", "Dealing: waiting
    for Bo" (ten lines, each step a few milliseconds) under "Hand 2: the players shuffle
    and deal the cards.". A set-up wait is said once it lasts (with its limit); any other
    wait at once."""
    import io
    import time

    from cli import plain
    from cli.plain import PlainSession

    monkeypatch.setattr(plain, "SETUP_QUIET", 0.2)
    state = {"busy": "Shuffling the deck: waiting for Bo (up to 20 s).", "setup": True}
    driver = SimpleNamespace(hand_no=1, events=[], activity=lambda: state["busy"],
                             setting_up=lambda: state["setup"])
    out = io.StringIO()
    session = PlainSession(driver, out=out, inp=io.StringIO())  # type: ignore[arg-type]
    session.show_activity()
    state["busy"] = "Shuffling the deck: waiting for Cy (up to 20 s)."
    session.show_activity()
    assert out.getvalue() == "", out.getvalue()           # each gone within a moment
    time.sleep(0.25)
    session.show_activity()                               # Cy's lasts: said
    assert out.getvalue() == "* Shuffling the deck: waiting for Cy (up to 20 s).\n"
    state.update(busy="Proving the deal was fair: waiting for Bo (up to 20 s).",
                 setup=False)
    session.show_activity()                               # not a set-up step: at once
    assert out.getvalue().endswith("* Proving the deal was fair: waiting for Bo (up to "
                                   "20 s).\n"), out.getvalue()


def test_a_network_table_says_which_waits_are_its_set_up() -> None:
    from cli.netdriver import NetDriver
    from p2p.table import TableStep

    d = _DrawWait(bot=True)
    for step in TableStep:
        d.peer.waiting_on = lambda step=step: SimpleNamespace(seat=1, step=step)
        setup = NetDriver.setting_up(d)  # type: ignore[arg-type]
        assert setup is (step not in (TableStep.SHARE, TableStep.MOVE, TableStep.REVEAL)), step


@pytest.mark.parametrize("lang", ["en", "af", "fr", "sv", "ug", "vi"])
def test_the_rules_page_explains_no_option_id_a_reason_never_shows(lang: str) -> None:
    """The rules page said "[R5], [O-name]: rule ids (O: an option)": no reason shows an
    option's id any more (they name the option as ``--option help`` does), and none showed
    one in brackets ever; the page says what "[R5]" after a reason is."""
    from cli.rules import rules_text
    from cli.words import CLEARER_REASONS

    with i18n.using(lang):
        page = rules_text(80)
        clearer = [i18n._(t) for t in CLEARER_REASONS.values()]
    assert "O-" not in page, page
    assert "[R5]" in page, page
    assert not [t for t in clearer if "O-" in t], clearer
