"""The shared legality functions (R5-R6), building positions directly, the turn advance at the
turn bound, and what ``engine`` exports (rule ids refer to shared/RULES.md)."""

from __future__ import annotations

import itertools

import pytest
from engine_helpers import K, build, card, conserved, ids_of

import engine
from engine import (
    CLASSIC,
    KIND_OF,
    MODERN,
    NO_SIDE,
    Attack,
    CoupFourre,
    Draw,
    Play,
    Seating,
    Zone,
    apply_action,
    explain,
    legal_actions,
    position,
    preset,
    replace,
)
from engine.cards import DISTANCE_VALUE
from engine.legality import (
    LONGEST,
    DistanceLimit,
    distance_cap,
    distance_limits,
    distance_refusal,
    play_refusal,
)

TWO = Seating.solo(2)
DISTANCES = (K.D25, K.D50, K.D75, K.D100, K.D200)


def one(kind: K, nth: int = 0) -> int:
    return ids_of(kind)[nth]


# ----- one distance cap for refusal and listing (R5, R5a, R5b, R5c, R5d) ------------------

def test_R5a_a_zone_that_has_not_started_may_play_no_distance():
    st = build(CLASSIC, TWO, hands={0: [K.D25]}, fill_hands=True)
    assert distance_limits(st, st.zones[0]) == (DistanceLimit("R5a", 0),)
    assert distance_cap(st, st.zones[0]) == 0


def test_R5_a_zone_under_a_hazard_may_play_no_distance():
    st = build(CLASSIC, TWO, zones={0: dict(battle=[K.ROLL, K.STOP])}, fill_hands=True)
    assert distance_limits(st, st.zones[0]) == (DistanceLimit("R5", 0),)
    assert distance_refusal(st, st.zones[0], K.D25)[0] == "R5"


def test_R5b_R5c_R5d_limits_come_in_rule_order_and_the_first_exceeded_refuses():
    # Rolling, limited, two 200s played, 650 of 700 km: every limit at once.
    z = dict(battle=[K.ROLL], speed=[K.SPEED_LIMIT],
             distance=[K.D200, K.D200, K.D100, K.D75, K.D75])
    st = build(CLASSIC, TWO, zones={0: z}, fill_hands=True)
    zone = st.zones[0]
    assert zone.km == 650 and zone.n200 == 2
    assert distance_limits(st, zone) == (DistanceLimit("R5b", 50), DistanceLimit("R5c", 100),
                                         DistanceLimit("R5d", 50))
    assert distance_cap(st, zone) == 50
    assert distance_refusal(st, zone, K.D75)[0] == "R5b"
    assert distance_refusal(st, zone, K.D200)[0] == "R5b"
    assert distance_refusal(st, zone, K.D50) is None


def test_R5c_comes_before_R5d_when_both_refuse_a_200():
    z = dict(battle=[K.ROLL], distance=[K.D200, K.D200, K.D100, K.D100])  # 600 of 700
    st = build(CLASSIC, TWO, zones={0: z}, fill_hands=True)
    assert distance_limits(st, st.zones[0]) == (DistanceLimit("R5c", 100),
                                                DistanceLimit("R5d", 100))
    assert distance_refusal(st, st.zones[0], K.D200)[0] == "R5c"


def test_a_zone_no_rule_holds_back_may_play_the_longest_card():
    st = build(MODERN, TWO, zones={0: dict(battle=[K.ROLL])}, fill_hands=True)
    assert distance_limits(st, st.zones[0]) == ()
    assert distance_cap(st, st.zones[0]) == LONGEST == 200


ZONE_SHAPES = [
    dict(),
    dict(battle=[K.ROLL]),
    dict(battle=[K.ROLL, K.STOP]),
    dict(battle=[K.ROLL, K.FLAT_TIRE, K.SPARE_TIRE]),
    dict(battle=[K.ROLL], speed=[K.SPEED_LIMIT]),
    dict(battle=[K.ROLL], speed=[K.SPEED_LIMIT, K.END_OF_LIMIT]),
    dict(speed=[K.SPEED_LIMIT], safeties=[K.RIGHT_OF_WAY]),
    dict(battle=[K.ROLL], distance=[K.D200, K.D200]),
    dict(battle=[K.ROLL], distance=[K.D200, K.D100, K.D100, K.D100, K.D75, K.D50]),
    dict(battle=[K.ROLL], distance=[K.D200, K.D200, K.D100, K.D100, K.D75]),
]


@pytest.mark.parametrize("options", [{}, {"exact_finish": False}, {"start_rolling": True},
                                     {"roll_after_remedy": False}])
@pytest.mark.parametrize("shape", range(len(ZONE_SHAPES)))
def test_listing_and_refusal_agree_on_every_distance_card(shape, options):
    """The cap that ``legal_actions`` lists by and the refusal ``apply_action`` and
    ``explain`` give are the same limits: a card is listed exactly when it is not refused."""
    rules = preset("classic", **options)
    hand = [k for k in DISTANCES if k is not K.D200 or not ZONE_SHAPES[shape].get("distance")]
    st = build(rules, TWO, hands={0: hand}, zones={0: ZONE_SHAPES[shape]}, fill_hands=True)
    cap = distance_cap(st, st.zones[0])
    listed = {a.card for a in legal_actions(st, 0) if isinstance(a, Play)}
    for kind in hand:
        c = card(st, 0, kind)
        refusal = play_refusal(st, 0, c, None)
        assert (DISTANCE_VALUE[kind] <= cap) == (refusal is None) == (c in listed)
        why = explain(st, 0, c)
        assert (why is None) == (refusal is None)
        if refusal is not None:
            assert why.startswith(refusal[0] + ":")


def test_hazard_listing_and_refusal_agree_for_every_target():
    for options in ({}, {"stack_hazards": True}, {"attacker_started": True}):
        rules = preset("classic", **options)
        for shape in ZONE_SHAPES:
            st = build(rules, Seating.solo(3), hands={0: [K.STOP, K.SPEED_LIMIT, K.ACCIDENT]},
                       zones={1: shape, 2: dict(battle=[K.ROLL])}, fill_hands=True)
            listed = {(a.card, a.target) for a in legal_actions(st, 0) if isinstance(a, Play)}
            for kind, target in itertools.product((K.STOP, K.SPEED_LIMIT, K.ACCIDENT), (1, 2)):
                c = card(st, 0, kind)
                assert (play_refusal(st, 0, c, target) is None) == ((c, target) in listed)


# ----- positions built directly ----------------------------------------------------------

def test_position_lays_out_a_state_that_plays_like_any_other():
    roll, stop, d100 = one(K.ROLL), one(K.STOP, 1), one(K.D100)
    st = position(CLASSIC, TWO, hands=[(d100, roll), (one(K.D25),)],
                  zones=[Zone(), Zone.from_cards(battle=[one(K.ROLL, 1), stop])])
    assert conserved(st) and st.phase == "play" and st.seat == 0 and st.turns == 1
    assert st.zones[1].hazard_in_force() is K.STOP and st.zones[1].started
    assert {a.card for a in legal_actions(st, 0) if isinstance(a, Play)} == {roll}
    after = apply_action(st, Play(0, roll))
    assert after.zones[0].started and after.phase == "draw" and after.seat == 1


def test_position_pile_is_given_top_first_and_defaults_to_the_rest():
    d25, d50 = one(K.D25), one(K.D50)
    st = position(CLASSIC, TWO, hands=[(), ()], phase="draw", pile=None)
    assert st.pending == ("turn",) and st.pile_size() == len(CLASSIC.deck(TWO))
    rest = [c for c in CLASSIC.deck(TWO) if c not in (d25, d50)]
    st = position(CLASSIC, TWO, hands=[(), ()], phase="draw", pile=[d50, d25, *rest])
    assert apply_action(st, Draw(0)).hands[0] == (d50,)


def test_position_takes_further_fields_and_refuses_a_card_out_of_place():
    st = position(CLASSIC, TWO, hands=[(), ()], turns=7, extended_by=1)
    assert st.turns == 7 and st.extended_by == 1
    d25 = one(K.D25)
    with pytest.raises(ValueError, match="R1"):
        position(CLASSIC, TWO, hands=[(d25,), (d25,)])
    with pytest.raises(ValueError, match="R1"):
        position(CLASSIC, TWO, hands=[(), ()], pile=[d25])
    with pytest.raises(ValueError, match="R1"):  # removed from the 101-card deck (R1a)
        position(CLASSIC, TWO, hands=[(one(K.STOP, 0),), ()])
    with pytest.raises(ValueError):
        position(CLASSIC, TWO, hands=[()])


def test_position_docstring_example_runs():
    state = position(CLASSIC, Seating.solo(2), hands=[(40, 41, 60), (0, 1)],
                     zones=[Zone.from_cards(battle=[59]), Zone()], seat=0)
    assert KIND_OF[59] is K.FLAT_TIRE and state.zones[0].hazard_in_force() is K.FLAT_TIRE
    assert legal_actions(state, 0)


def test_zone_from_cards_works_out_km_200s_and_start():
    z = Zone.from_cards(distance=[one(K.D200), one(K.D75)])
    assert (z.km, z.n200, z.started) == (275, 1, True)
    assert not Zone.from_cards(battle=[one(K.STOP)]).started
    row = one(K.RIGHT_OF_WAY)
    z = Zone.from_cards(coups=[row])
    assert z.safeties == (row,) and z.coups == (row,) and z.started and z.has_safety(K.RIGHT_OF_WAY)


def test_replace_sets_named_fields_and_refuses_unknown_ones():
    st = build(CLASSIC, TWO, fill_hands=True)
    after = replace(st, turns=5, phase="draw")
    assert after == st._replace(turns=5, phase="draw") and type(after) is type(st)
    assert st.turns == 1  # states are values: the original is unchanged
    with pytest.raises(TypeError, match="no field 'turn'"):
        replace(st, turn=5)


# ----- the turn advance, written once ------------------------------------------------------

def test_R4b_bound_a_coup_fourre_at_the_turn_limit_ends_the_hand():
    """A coup fourre starts a turn (R9), and no turn starts past ``max_turns``: the hand ends
    with the safety laid and the hazard discarded. (Before the turn advance was written once,
    the coup fourre path skipped the bound and reached turn ``max_turns + 1``.)"""
    rules = CLASSIC.with_options(max_turns=10)
    st = build(rules, TWO, hands={1: [K.RIGHT_OF_WAY]}, zones={1: dict(battle=[K.ROLL, K.STOP])},
               fill_hands=True, turns=10)
    stop = st.zones[1].battle[-1]
    st = replace(st, phase="respond", seat=0, attack=Attack(0, stop, 1, (1,)))
    after = apply_action(st, CoupFourre(1, card(st, 1, K.RIGHT_OF_WAY)))
    assert after.over and after.end_reason == "turn_limit" and after.turns == 10
    assert after.zones[1].has_safety(K.RIGHT_OF_WAY) and after.zones[1].coups
    assert after.discard[-1] == stop and conserved(after)
    # One turn earlier the coup fourre player takes the turn as usual.
    early = apply_action(replace(st, turns=9), CoupFourre(1, card(st, 1, K.RIGHT_OF_WAY)))
    assert early.phase == "draw" and early.seat == 1 and early.turns == 10


# ----- names and exports ---------------------------------------------------------------------

def test_the_minus_ones_have_names_and_keep_their_wire_value():
    assert engine.CHANCE == engine.SPECTATOR == NO_SIDE == -1
    st = build(CLASSIC, TWO, fill_hands=True)
    assert st.extended_by == st.completed_by == NO_SIDE
    assert engine.Match(CLASSIC, TWO, 0).winner() == NO_SIDE


def test_engine_exports_what_a_caller_needs():
    for name in ("Match", "SideScore", "score_hand", "hand_winner", "play_hand", "play_match",
                 "replay_hand", "make_bot", "SeatController", "position", "Zone", "HandState",
                 "DRAW", "PLAY", "RESPOND", "EXTEND", "RESHUFFLE", "OVER", "HAND_SIZE",
                 "NO_SIDE", "CHANCE", "SPECTATOR", "view_of", "explain"):
        assert hasattr(engine, name), name
    assert engine.HAND_SIZE == 6
