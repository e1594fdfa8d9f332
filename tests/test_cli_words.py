"""cli.words: one wording for every screen (issue 11's wording list)."""

from __future__ import annotations

from cli.driver import LocalDriver
from cli.words import (
    command_for,
    describe,
    match_over_line,
    peer_label,
    replay_step_text,
    rule_last,
    verb,
)
from engine import Family, Pass, Play, Seating, apply_action, family, legal_actions, preset
from engine.scoring import Match, SideScore
from engine.state import PLAY


def test_verbs_agree_with_their_subject() -> None:
    assert verb("Bo", "wins", "win") == "Bo wins"
    assert verb("You", "wins", "win") == "You win"
    assert verb("Bo & Di", "wins", "win") == "Bo & Di win"       # not "Bo & Di wins"


def test_match_over_for_partners_and_ties() -> None:
    rules = preset("classic", match_target=100)
    seating = Seating.parse(4, "2x2")
    names = ["You", "Bo", "Cy", "Di"]
    zero = SideScore()
    won = SideScore(distance=200)
    m = Match(rules, seating, 0).record((zero, won))
    assert match_over_line(m, names) == "Match over: Bo & Di win."
    m = Match(rules, seating, 0).record((won, zero))
    assert match_over_line(m, names) == "Match over: You & Cy win."


def test_rule_ids_come_last() -> None:
    assert rule_last("R9: only the matching safety (or, R10, remedy) can answer") == \
        "Only the matching safety (or remedy) can answer [R9, R10]"
    assert rule_last("nothing to cite") == "Nothing to cite"


def test_a_pass_in_a_replay_and_peers_in_the_help() -> None:
    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=1)
    st = d.state
    assert replay_step_text(st, Pass(0), st, ["You", "Bo"], 1) == "You let the hazard stand."
    assert replay_step_text(st, Pass(1), st, ["You", "Bo"], 1) == "Bo lets the hazard stand."
    assert peer_label("Ben", "you", "ready") == "Ben (you)"          # not "Ben (you, you)"
    assert peer_label("Bo", "bot", "connected") == "Bo (bot)"        # not "(peer, connected)"
    assert peer_label("Ann", "peer", "left") == "Ann (left)"
    # the player's own default name in their language (fr help said "You (vous)")
    from cli import i18n
    with i18n.using("fr"):
        assert peer_label("You", "you", "") == "Vous"
        assert peer_label("You", "peer", "left").startswith("You ")   # another's chosen name


def test_a_safety_says_it_gives_another_turn() -> None:
    for seed in range(400):
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=seed)
        d.run_others()
        st = d.state
        if st.phase != PLAY or st.seat != 0:
            continue
        plays = [a for a in legal_actions(st, 0) if isinstance(a, Play)
                 and family(a.card) is Family.SAFETY]
        if not plays:
            continue
        after = apply_action(st, plays[0])
        line = describe(st, plays[0], after, ["You", "Bo"], 0)
        assert line is not None and line.endswith("A safety gives you another turn.")
        assert command_for(plays[0], st, 0, ["You", "Bo"]).startswith("play ")
        return
    raise AssertionError("no seed lets the human play a safety")


def test_another_player_called_you_never_reads_as_this_seat() -> None:
    """Hostile review: a remote player who named himself "You" was shown as the local
    "You" ("Vous", "Du"): "seat 2 (Vous) broke the rules" read as if the player at this
    screen were blamed. "You" now only ever names this seat."""
    from cli import i18n
    from cli.words import local_names, stop_reason

    names = local_names(["Ann", "You", "you"], 0)
    assert names == ("Ann", "You 2", "you 3")
    assert local_names(["You", "Bo"], 0) == ("You", "Bo")       # this seat keeps it
    why = {"id": "protocol", "seat": 1, "check": "share-proof", "by": None}
    with i18n.using("fr"):
        said = stop_reason(why, names)
    assert "You 2" in said and "Vous" not in said, said


def test_a_refusal_ends_with_one_mark() -> None:
    """`play 1 on` was answered "Sorry: play 1 on whom?." in plain mode."""
    from cli import i18n
    from cli.words import sorry_line

    assert sorry_line("play 1 on whom?") == "Sorry: play 1 on whom?"
    assert sorry_line("no such card") == "Sorry: no such card."
    assert sorry_line("the hand is over.") == "Sorry: the hand is over."
    with i18n.using("fr"):
        assert sorry_line("jouer 1 sur qui ?") == "Désolé : jouer 1 sur qui ?"


def test_the_help_of_a_network_game_names_the_pause_keys() -> None:
    """b and e were said on the status line when a player left, and nowhere in the help;
    a local game's help does not mention them."""
    from cli.words import help_text, silent_seat_line

    assert "b asks for a bot in their seat" in " ".join(help_text(True, True, True).split())
    assert "b asks for a bot" not in " ".join(help_text(True).split())
    # what b or e costs is said before the key is pressed
    line = silent_seat_line("Ben")
    assert line.endswith("either needs all here to agree and leaves this hand unscored.")
    # whole in the three status lines of an 80-column screen (it was cut off before what
    # the keys cost), with a long name too
    from cli.app import MAX_STATUS
    from cli.words import wrap
    assert len(wrap(silent_seat_line("Bartholomew"), 78)) <= MAX_STATUS


def test_the_end_of_a_hand_won_by_you_agrees_with_you() -> None:
    """French said "Manche 1 finie : Vous a terminé le voyage" (the name's verb with
    "Vous"); the player's own side takes the "you" sentence."""
    from cli import i18n
    from cli.words import end_line
    from engine import Seating, new_hand, preset

    rules = preset("classic")
    state = new_hand(rules, Seating.solo(2), list(rules.deck(Seating.solo(2))), 0)
    state = state._replace(completed_by=0)
    assert end_line(state, ["You", "Bo"], 1) == "Hand 1 over: you completed the trip."
    assert end_line(state, ["Ann", "Bo"], 1) == "Hand 1 over: Ann completed the trip."
    with i18n.using("fr"):
        assert "Vous a" not in end_line(state, ["You", "Bo"], 1)


def test_a_networked_player_s_own_moves_are_said_as_you() -> None:
    """At a networked table the log said "Ann drew Roll." of Ann herself, right above
    "You drew Roll (card 7…)"; the others' moves keep their names."""
    from cli.netdriver import event_words
    from engine import Seating, apply_action, legal_actions, new_hand, preset, view_of
    from p2p.table.replicated_log import SessionEvent

    rules = preset("classic")
    state = new_hand(rules, Seating.solo(2), list(rules.deck(Seating.solo(2))), 0)
    said: dict[int, list[str]] = {0: [], 1: []}
    for _ in range(8):                        # four turns: draws, plays or discards
        seat = state.actors()[0]
        action = legal_actions(state, seat)[-1]
        after = apply_action(state, action)
        ev = SessionEvent("action", "", {"hand": 0, "seat": seat, "action": action,
                                         "before": view_of(state, 0),
                                         "after": view_of(after, 0)})
        line = event_words(["Ann", "Ben"], 0, ev)
        if line:
            said[seat].append(line)
        state = after
    assert said[0] and all(line.startswith("You ") for line in said[0]), said
    assert said[1] and all(line.startswith("Ben ") for line in said[1]), said
    assert not any("Ann" in line for line in said[0] + said[1]), said


def test_a_hazard_on_ones_team_is_said_on_your_side_as_the_prompt_says() -> None:
    """`play --teams 2x2`: the log said "Bo played Speed Limit on You & Cy." right above
    the prompt "Bo played Speed Limit on your side: c for a coup fourré…"."""
    import random

    from engine import KIND_OF, new_hand
    from engine.cards import NAMES_EN

    rules = preset("modern")
    seating = Seating.parse(4, "2x2")
    names = ["You", "Bo", "Cy", "Di"]
    for seed in range(200):
        deck = list(rules.deck(seating))
        random.Random(seed).shuffle(deck)
        state = new_hand(rules, seating, deck, 1)
        while tuple(state.actors()) == (1,) and state.phase != PLAY:
            state = apply_action(state, legal_actions(state, 1)[0])
        hazards = [a for a in legal_actions(state, 1) if isinstance(a, Play)
                   and a.target == seating.side_of(0)]
        if not hazards:
            continue
        line = describe(state, hazards[0], apply_action(state, hazards[0]), names, 0,
                        you=True)
        card = NAMES_EN[KIND_OF[hazards[0].card]]
        assert line == f"Bo played {card} on your side.", line
        # a replay, whose viewer is nobody's "You", names the side
        line = describe(state, hazards[0], apply_action(state, hazards[0]),
                        ["Ann", "Bo", "Cy", "Di"], 0)
        assert line == f"Bo played {card} on Ann & Cy.", line
        return
    raise AssertionError("no deal lets Bo attack the first team at once")


def test_verify_keeps_each_score_on_the_line_of_its_name() -> None:
    """verify said "…ended by a completed trip; You 125, Bo" and "1300" on the next line."""
    from cli import i18n
    from cli.words import verify_lines
    from p2p.audit import GameReport, VerifyReport

    report = GameReport(ok=True, crypto=VerifyReport(), names=("You", "Bo"), complete=True,
                        hands=[{"hand": 0, "first_seat": 1, "turns": 57, "end": "trip",
                                "scores": [125, 1300]}], totals=(125, 1300), winner=1)
    lines = verify_lines(report)
    start = next(i for i, line in enumerate(lines) if line.startswith("  hand 1: "))
    assert lines[start:start + 2] == [
        "  hand 1: Bo played first, 57 turns, ended by a completed trip; You 1 125,",
        "    Bo 1300"], lines
    assert all(i18n.NO_BREAK not in line and len(line) <= 80 for line in lines), lines
    assert i18n.wrap(f"a b{i18n.NO_BREAK}c", 3) == ["a", "b c"]


def test_ones_own_pass_is_said_in_the_past_as_the_moves_around_it() -> None:
    """The French log read "Vous avez pioché Feu rouge. / Vous laissez passer l'attaque."
    (Swedish "Du drog … / Du låter attacken stå", Afrikaans "Jy het … getrek / Jy laat die
    gevaar staan"): the pass, a move made, in the present among moves in the past."""
    from cli import i18n
    from cli.i18n import _
    said = {"fr": "Vous avez laissé passer l'attaque.", "sv": "Du lät attacken stå.",
            "af": "Jy het die gevaar laat staan."}
    for lang, line in said.items():
        with i18n.using(lang):
            assert _("You let the hazard stand.") == line, lang
