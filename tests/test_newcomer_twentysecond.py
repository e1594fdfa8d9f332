"""The twenty-second first-time-player pass: what the twenty-first left.

"Waiting for Bo (a bot) to unlock the next card" asked a newcomer which card, and what
lock; option ids ("O-attacker-started") reached the reasons a player reads; the line mode
said what the table waited for at a hand's end before the hand's result; the Uyghur score
table's "Coup fourré" row read left to right; the modern hand-over page at 80×24.
"""

from __future__ import annotations

from types import SimpleNamespace

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
