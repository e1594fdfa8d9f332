"""End of a hand, the trip and the extension (R11-R13), scoring (R14 modern, R15 classic)
and the match (R3 rotation, R15 to 5000 with the tie rule)."""

from __future__ import annotations

import pytest
from engine_helpers import K, build, card, draw, play, refused

from engine import (
    CLASSIC,
    MODERN,
    CoupFourre,
    Discard,
    Extend,
    Pass,
    Seating,
    apply_action,
    legal_actions,
    preset,
)
from engine.bots import HeuristicBot, RandomBot
from engine.scoring import Match, SideScore, hand_winner, score_hand
from engine.simulate import play_match

TWO = Seating.solo(2)
THREE = Seating.solo(3)
D650 = [K.D100] * 6 + [K.D50]                 # 650 km without a 200
D950 = [K.D200, K.D200, K.D100, K.D100, K.D100, K.D100, K.D100, K.D50]


def at_650(rules=CLASSIC, seating=TWO, hand0=(K.D50,), **kw):
    zones = kw.pop("zones", {0: dict(battle=[K.ROLL], distance=D650),
                             **{s: dict(battle=[K.ROLL], distance=[K.D25])
                                for s in range(1, seating.n_teams)}})
    return build(rules, seating, hands={0: list(hand0)}, zones=zones, seat=0, fill_hands=True,
                 **kw)


def over(rules, seating=TWO, completed_by=-1, exhausted=False, extended_by=-1, **kw):
    """A finished hand built directly."""
    st = build(rules, seating, **kw)
    return st._replace(phase="over", completed_by=completed_by, extended_by=extended_by,
                       completed_after_exhaustion=exhausted,
                       target=1000 if extended_by >= 0 else st.target,
                       end_reason="trip" if completed_by >= 0 else "exhausted")


# ----- R12 extension -------------------------------------------------------------------------

def test_R12_extension_decision_phase():
    st = play(at_650(), 0, K.D50)
    assert st.zones[0].km == 700
    assert (st.phase, st.seat, st.actors()) == ("extend", 0, (0,))
    assert legal_actions(st, 0) == [Extend(0, True), Extend(0, False)]
    assert legal_actions(st, 1) == []
    assert refused(st, Discard(0, st.hand(0)[0])) == "R12"
    assert refused(st, Extend(1, True)) == "R4"


def test_R12_R15_extension_declined_ends_the_hand_with_the_trip():
    st = apply_action(play(at_650(), 0, K.D50), Extend(0, False))
    assert st.over and st.completed_by == 0 and st.end_reason == "trip"
    assert st.extended_by == -1
    s0, s1 = score_hand(st)
    assert s0 == SideScore(distance=700, trip=400, safe_trip=300)
    assert s1 == SideScore(distance=25)
    assert hand_winner(st) == 0


def test_R12_extension_called_then_caller_reaches_1000_default_scoring():
    st = play(at_650(hand0=(K.D50, K.D100, K.D100, K.D100)), 0, K.D50)
    st = apply_action(st, Extend(0, True))
    assert not st.over and st.target == 1000 and st.extended_by == 0
    assert (st.phase, st.seat) == ("draw", 1)
    for _ in range(3):
        st = draw(st, 1)
        st = apply_action(st, Discard(1, st.hand(1)[0]))
        st = play(draw(st, 0), 0, K.D100)
    assert st.over and st.completed_by == 0 and st.zones[0].km == 1000
    s0, s1 = score_hand(st)
    assert s0 == SideScore(distance=1000, trip=400, safe_trip=300, extension=200)
    assert s1.extension == 0 and s1.trip == 0


def _extended(rules, seating=TWO, winner=None, exhausted=False):
    """Side 0 called the extension at 700; ``winner`` (side) reached 1000, or nobody."""
    zones = {0: dict(battle=[K.ROLL], distance=D650 + [K.D50])}
    for s in range(1, seating.n_teams):
        zones[s] = dict(battle=[K.ROLL], distance=[K.D25, K.D25])
    if winner is not None:
        zones[winner] = dict(battle=[K.ROLL],
                             distance=[K.D100] * 6 + [K.D75] * 4 + [K.D50] * 2)
    return over(rules, seating, completed_by=-1 if winner is None else winner,
                extended_by=0, exhausted=exhausted, zones=zones)


def test_R12_after_extension_trip_and_bonus_go_to_whoever_reaches_1000():
    st = _extended(CLASSIC, winner=1)
    s0, s1 = score_hand(st)
    assert s0 == SideScore(distance=700)
    assert s1 == SideScore(distance=1000, trip=400, safe_trip=300, extension=200)
    assert hand_winner(st) == 1


def test_R12_caller_success_default_and_official():
    for rules in (CLASSIC, preset("classic", extension_official=True)):
        s0, s1 = score_hand(_extended(rules, winner=0))
        assert s0.extension == 200 and s0.trip == 400
        assert s1.extension == 0


def test_R12_O_extension_official_failure_each_opponent_scores_200():
    rules = preset("classic", extension_official=True)
    for winner in (None, 1):
        scores = score_hand(_extended(rules, THREE, winner=winner))
        assert scores[0].extension == 0 and scores[0].trip == 0
        assert scores[1].extension == 200 and scores[2].extension == 200
    # default rule: nobody reached 1000, nobody gets the extension bonus
    scores = score_hand(_extended(CLASSIC, THREE, winner=None))
    assert all(s.extension == 0 and s.trip == 0 for s in scores)


def test_R12_extension_not_offered_at_1000_or_when_off():
    teams = build(CLASSIC, Seating(4, 2), hands={0: [K.D50]},
                  zones={0: dict(battle=[K.ROLL], distance=D950)}, seat=0, fill_hands=True)
    st = play(teams, 0, K.D50)
    assert st.over and st.phase == "over"
    off = play(at_650(preset("classic", extension=False)), 0, K.D50)
    assert off.over and off.completed_by == 0


def test_R12_extension_in_a_three_team_game():
    seating = Seating(6, 3)
    st = at_650(CLASSIC, seating)
    assert st.target == 700
    st = play(st, 0, K.D50)
    assert st.phase == "extend"
    st = apply_action(st, Extend(0, True))
    assert st.target == 1000 and st.seat == 1


# ----- R13 end and the closest ---------------------------------------------------------------

def test_R13_trip_ends_the_hand_at_once():
    st = apply_action(play(at_650(), 0, K.D50), Extend(0, False))
    assert st.over and st.actors() == () and legal_actions(st, 1) == []
    assert refused(st, Discard(1, st.hand(1)[0])) == "R13"


def _cards_for(km):
    out = []
    for kind, value, most in ((K.D200, 200, 2), (K.D100, 100, 3), (K.D75, 75, 9),
                              (K.D50, 50, 9), (K.D25, 25, 9)):
        while km >= value and out.count(kind) < most:
            out.append(kind)
            km -= value
    assert km == 0
    return out


@pytest.mark.parametrize("kms,winner", [
    ((500, 650), 1), ((650, 500), 0), ((650, 650), -1), ((0, 0), -1),
    ((650, 650, 100), -1), ((100, 650, 600), 1), ((1050, 600), 1)])
def test_R13_closest_without_passing_wins_ties_nobody(kms, winner):
    seating = Seating.solo(len(kms))
    zones = {side: dict(distance=_cards_for(km)) for side, km in enumerate(kms)}
    st = over(preset("classic", target=1000), seating, zones=zones)
    assert hand_winner(st) == winner


def test_R13_hand_winner_needs_a_finished_hand():
    with pytest.raises(ValueError):
        hand_winner(at_650())
    with pytest.raises(ValueError):
        score_hand(at_650())


# ----- R14 modern ----------------------------------------------------------------------------

def test_R14_modern_worked_example_1300_by_play():
    # side 0 at 900 with Right of Way; seat 1 attacks Out of Gas, seat 0 answers with Extra Tank
    st = build(MODERN, TWO, hands={0: [K.EXTRA_TANK, K.D100], 1: [K.OUT_OF_GAS]},
               zones={0: dict(battle=[K.ROLL], distance=[K.D100] * 9, safeties=[K.RIGHT_OF_WAY]),
                      1: dict(battle=[K.ROLL])},
               seat=1, fill_hands=True)
    st = play(st, 1, K.OUT_OF_GAS, 0)
    st = apply_action(st, CoupFourre(0, card(st, 0, K.EXTRA_TANK)))
    st = draw(draw(st, 0), 0)
    st = play(st, 0, K.D100)
    assert st.over and st.completed_by == 0
    s0, s1 = score_hand(st)
    assert s0.total == 1300
    assert (s0.distance, s0.safeties, s0.coups_fourres) == (1000, 100, 200)
    assert s0.trip == s0.safe_trip == s0.shut_out == 0      # no classic bonuses
    assert s1.total == 0
    assert hand_winner(st) == 0


def test_R14_modern_every_safety_100_no_all_four_bonus():
    st = over(MODERN, zones={0: dict(distance=[K.D100] * 3,
                                     safeties=[K.RIGHT_OF_WAY, K.EXTRA_TANK, K.PUNCTURE_PROOF,
                                               K.DRIVING_ACE])})
    s0, s1 = score_hand(st)
    assert s0.total == 300 + 400 and s0.all_safeties == 0
    assert s1 == SideScore()


def test_R14_modern_match_is_one_hand_highest_wins_tie_plays_again():
    m = Match(MODERN, TWO, 0)
    assert m.winner() == -1
    m1 = m.record((SideScore(distance=900), SideScore(distance=1000)))
    assert m1.winner() == 1 and m1.over
    tie = m.record((SideScore(distance=500), SideScore(distance=500)))
    assert tie.winner() == -1 and not tie.over
    assert tie.record((SideScore(distance=100), SideScore())).winner() == 0


# ----- R15 classic ---------------------------------------------------------------------------

def test_R15_distance_counts_even_without_the_trip():
    st = over(CLASSIC, zones={0: dict(distance=[K.D200, K.D100]), 1: dict(distance=[K.D25])})
    s0, s1 = score_hand(st)
    assert s0 == SideScore(distance=300) and s1 == SideScore(distance=25)


def test_R15_safeties_all_four_and_coups_fourres():
    st = over(CLASSIC, zones={
        0: dict(safeties=[K.RIGHT_OF_WAY, K.EXTRA_TANK], coups=[K.PUNCTURE_PROOF, K.DRIVING_ACE]),
        1: dict()})
    s0 = score_hand(st)[0]
    assert (s0.safeties, s0.all_safeties, s0.coups_fourres) == (400, 300, 600)
    assert s0.total == 1300
    one = score_hand(over(CLASSIC, zones={0: dict(coups=[K.EXTRA_TANK])}))[0]
    assert (one.safeties, one.coups_fourres, one.all_safeties) == (100, 300, 0)


def test_R15_trip_safe_trip_shut_out_and_delayed_action():
    full = dict(battle=[K.ROLL], distance=D650 + [K.D50])
    st = over(CLASSIC, completed_by=0, zones={0: full})
    s0 = score_hand(st)[0]
    assert s0 == SideScore(distance=700, trip=400, safe_trip=300, shut_out=500)
    with200 = over(CLASSIC, completed_by=0,
                   zones={0: dict(distance=[K.D200, K.D200, K.D100, K.D100, K.D100]),
                          1: dict(distance=[K.D25])})
    assert score_hand(with200)[0] == SideScore(distance=700, trip=400)
    late = over(CLASSIC, completed_by=0, exhausted=True, zones={0: full,
                                                                 1: dict(distance=[K.D25])})
    assert score_hand(late)[0] == SideScore(distance=700, trip=400, delayed_action=300,
                                            safe_trip=300)


def test_R15_shut_out_when_any_opposing_side_has_no_distance():
    full = dict(distance=D650 + [K.D50])
    three = over(CLASSIC, THREE, completed_by=0,
                 zones={0: full, 1: dict(distance=[K.D25]), 2: dict()})
    assert score_hand(three)[0].shut_out == 500
    none = over(CLASSIC, THREE, completed_by=0,
                zones={0: full, 1: dict(distance=[K.D25]), 2: dict(distance=[K.D50])})
    assert score_hand(none)[0].shut_out == 0
    assert score_hand(three)[1].shut_out == 0             # only the side that completed


def test_R15_every_classic_item_at_once():
    st = over(CLASSIC, completed_by=0, exhausted=True, extended_by=0,
              zones={0: dict(distance=[K.D100] * 10,
                             safeties=[K.RIGHT_OF_WAY, K.EXTRA_TANK],
                             coups=[K.PUNCTURE_PROOF, K.DRIVING_ACE])})
    s0 = score_hand(st)[0]
    assert s0 == SideScore(distance=1000, safeties=400, all_safeties=300, coups_fourres=600,
                           trip=400, delayed_action=300, safe_trip=300, extension=200,
                           shut_out=500)
    assert s0.total == 4000
    assert dict(s0.items())["extension"] == 200


def test_R15_delayed_action_by_play_after_the_pile_ran_out():
    st = build(CLASSIC, TWO, hands={0: [K.D50, K.D75], 1: [K.D25]},
               zones={0: dict(battle=[K.ROLL], distance=D650)}, pile_rest=False, seat=0)
    assert st.pile_size() == 0
    st = apply_action(play(st, 0, K.D50), Extend(0, False))
    s0 = score_hand(st)[0]
    assert st.completed_after_exhaustion and s0.delayed_action == 300


def test_R15_no_delayed_action_while_cards_remain():
    st = apply_action(play(at_650(), 0, K.D50), Extend(0, False))
    assert not st.completed_after_exhaustion and score_hand(st)[0].delayed_action == 0


def test_R15_teams_partners_score_one_zone():
    seating = Seating(4, 2)
    st = build(CLASSIC, seating, hands={2: [K.D50]},
               zones={0: dict(battle=[K.ROLL], distance=D950), 1: dict(distance=[K.D25])},
               seat=2, fill_hands=True)
    st = play(st, 2, K.D50)
    assert st.over and st.completed_by == 0
    scores = score_hand(st)
    assert len(scores) == 2 and scores[0].trip == 400 and scores[0].distance == 1000


# ----- match ---------------------------------------------------------------------------------

def test_R15_match_to_5000_and_tie_rule():
    m = Match(CLASSIC, TWO, 1)
    m = m.record((SideScore(distance=4900), SideScore(distance=4000)))
    assert m.winner() == -1 and not m.over
    assert m.totals() == (4900, 4000)
    m2 = m.record((SideScore(distance=100), SideScore(distance=200)))
    assert m2.totals() == (5000, 4200) and m2.winner() == 0
    # several sides pass 5000 in the same hand: the higher total wins
    both = m.record((SideScore(distance=200), SideScore(distance=1500)))
    assert both.totals() == (5100, 5500) and both.winner() == 1
    # a tie for the highest total plays another hand
    tie = m.record((SideScore(distance=600), SideScore(distance=1500)))
    assert tie.totals() == (5500, 5500) and tie.winner() == -1 and not tie.over
    assert tie.next_first_seat() == 1                      # rotation continues (R3)
    assert tie.record((SideScore(), SideScore(distance=25))).winner() == 1


def test_R15_match_three_sides_tie_between_two_leaders():
    m = Match(CLASSIC, THREE, 0).record(
        (SideScore(distance=5200), SideScore(distance=5200), SideScore(distance=6000)))
    assert m.winner() == 2
    m = Match(CLASSIC, THREE, 0).record(
        (SideScore(distance=5200), SideScore(distance=5200), SideScore(distance=3000)))
    assert m.winner() == -1


@pytest.mark.parametrize("rules", [CLASSIC, MODERN], ids=["classic", "modern"])
def test_R15_R14_bot_match_runs_to_its_end(rules):
    rec = play_match(rules, TWO, [HeuristicBot(1), RandomBot(2)], seed=3)
    assert rec.match.over
    totals = rec.match.totals()
    if rules.match_target:
        assert max(totals) >= 5000
    else:
        assert len(rec.hands) >= 1
    # R3: the first player rotates left each hand
    firsts = [h.first_seat for h in rec.hands]
    assert all((b - a) % 2 == 1 for a, b in zip(firsts, firsts[1:], strict=False))
    assert totals == tuple(sum(h.scores[s].total for h in rec.hands) for s in range(2))


def test_R9_R15_coup_fourre_scored_by_play_classic():
    st = build(CLASSIC, TWO, hands={0: [K.ACCIDENT], 1: [K.DRIVING_ACE]},
               zones={0: dict(battle=[K.ROLL]), 1: dict(battle=[K.ROLL])}, seat=0,
               fill_hands=True)
    st = play(st, 0, K.ACCIDENT, 1)
    st = apply_action(st, CoupFourre(1, card(st, 1, K.DRIVING_ACE)))
    st = st._replace(phase="over", end_reason="exhausted")
    assert score_hand(st)[1] == SideScore(safeties=100, coups_fourres=300)
    # a pass scores nothing
    st2 = build(CLASSIC, TWO, hands={0: [K.ACCIDENT]},
                zones={0: dict(battle=[K.ROLL]), 1: dict(battle=[K.ROLL])}, seat=0,
                fill_hands=True)
    st2 = apply_action(play(st2, 0, K.ACCIDENT, 1), Pass(1))._replace(phase="over")
    assert score_hand(st2)[1] == SideScore()
