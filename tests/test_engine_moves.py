"""Scenario tests for turns and moves, R4-R8, in both presets (ids refer to shared/RULES.md)."""

from __future__ import annotations

import random

import pytest
from engine_helpers import (
    K,
    build,
    card,
    conserved,
    deal,
    discard,
    draw,
    kinds,
    legal_plays,
    play,
    refusal_of,
    refused,
)

import engine
from engine import (
    CLASSIC,
    KIND_OF,
    MODERN,
    Discard,
    Draw,
    Pass,
    Play,
    Reshuffle,
    Seating,
    apply_action,
    legal_actions,
    preset,
    reshuffle_action,
)

BOTH = pytest.mark.parametrize("rules", [CLASSIC, MODERN], ids=["classic", "modern"])
TWO = Seating.solo(2)
TEAMS = Seating(4, 2)
ROLLING = dict(battle=[K.ROLL])


def at_play(rules, hand0=(), zones=None, seating=TWO, **kw):
    """Seat 0 to play (7 cards), the others with 6."""
    return build(rules, seating, hands={0: list(hand0), **kw.pop("hands", {})},
                 zones=zones or {}, seat=0, fill_hands=True, **kw)


# ----- R4 turn -------------------------------------------------------------------------------

@BOTH
def test_R4_draw_then_play_or_discard(rules):
    st = deal(rules, TWO, hands={0: [K.ROLL]})
    assert st.phase == "draw" and st.actors() == (0,)
    roll = card(st, 0, K.ROLL)
    assert refused(st, Play(0, roll)) == "R4"           # draw first
    assert refused(st, Discard(0, roll)) == "R4"
    assert refused(st, Draw(1)) == "R4"                 # not seat 1's turn
    top = st.pile[-1]
    st = draw(st)
    assert top in st.hand(0) and len(st.hand(0)) == 7 and st.phase == "play"
    assert refused(st, Draw(0)) == "R4"                 # one draw per turn
    assert refused(st, Discard(1, st.hand(1)[0])) == "R4"
    st = apply_action(st, Play(0, roll))
    assert len(st.hand(0)) == 6
    assert (st.phase, st.seat) == ("draw", 1)
    assert conserved(st)


@BOTH
def test_R4_may_always_discard_even_with_a_legal_play(rules):
    st = at_play(rules, [K.ROLL, K.D100])
    roll = card(st, 0, K.ROLL)
    assert Play(0, roll, None) in legal_actions(st, 0)
    assert Discard(0, roll) in legal_actions(st, 0)
    after = apply_action(st, Discard(0, roll))
    assert after.discard[-1] == roll                   # face up, on top
    assert roll not in after.hand(0) and len(after.hand(0)) == 6
    assert after.seat == 1 and after.zones == st.zones
    # every card in hand may be discarded
    assert {a.card for a in legal_actions(st, 0) if isinstance(a, Discard)} == set(st.hand(0))


def test_R4_cannot_play_or_discard_a_card_not_held():
    st = at_play(CLASSIC, [K.ROLL], hands={1: [K.D25]})
    other = card(st, 1, K.D25)
    assert refused(st, Discard(0, other)) == "R4"
    assert refused(st, Play(0, other)) == "R4"
    assert refused(st, Play(7, other)) == "R2"


def test_R4a_classic_draws_only_from_the_pile():
    st = build(CLASSIC, TWO, discard=[K.ROLL], phase="draw", fill_hands=True)
    assert [a.source for a in legal_actions(st, 0)] == ["pile"]
    assert refused(st, Draw(0, "discard")) == "R4a"


def test_R4a_modern_may_take_the_discard_top():
    st = build(MODERN, TWO, discard=[K.D25, K.ROLL], phase="draw", fill_hands=True)
    roll = st.discard[-1]
    acts = legal_actions(st, 0)
    assert Draw(0, "discard", roll) in acts and Draw(0, "pile", st.pile[-1]) in acts
    assert refused(st, Draw(0, "discard", st.discard[0])) == "R4a"   # not the top
    after = apply_action(st, Draw(0, "discard"))
    assert roll in after.hand(0) and after.discard == st.discard[:-1]
    assert after.pile == st.pile and after.pile_drawn == st.pile_drawn
    assert conserved(after)
    empty = build(MODERN, TWO, phase="draw", fill_hands=True)
    assert [a.source for a in legal_actions(empty, 0)] == ["pile"]
    assert refused(empty, Draw(0, "discard")) == "R4a"


def test_R4a_option_on_classic_preset():
    rules = preset("classic", draw_discard=True)
    st = build(rules, TWO, discard=[K.ROLL], phase="draw", fill_hands=True)
    assert apply_action(st, Draw(0, "discard")).hand(0).count(st.discard[-1]) == 1


def _exhausting(rules, hands, pile_top):
    """Seat 0 to play; the draw pile holds exactly ``pile_top``."""
    return build(rules, TWO, hands=hands, pile_top=pile_top, pile_rest=False, seat=0)


def test_R4b_classic_play_out_no_draws_empty_hand_passes_and_hand_ends():
    st = _exhausting(CLASSIC, {0: [K.D75, K.D100], 1: [K.D25, K.D50]}, [K.REPAIRS])
    st = discard(st, 0, K.D75)
    assert st.phase == "draw" and st.seat == 1
    st = draw(st)                                   # the last card of the pile
    assert st.pile_size() == 0
    st = discard(st, 1, K.D25)
    # seat 0's turn: no draw, straight to play
    assert (st.phase, st.seat) == ("play", 0)
    assert not any(isinstance(a, Draw) for a in legal_actions(st, 0))
    assert refused(st, Draw(0)) == "R4"
    st = discard(st, 0, K.D100)                      # seat 0 now has no card
    assert (st.phase, st.seat) == ("play", 1)
    st = discard(st, 1, K.D50)
    # seat 0 has nothing: passes automatically; seat 1 plays on
    assert (st.phase, st.seat, st.over) == ("play", 1, False)
    assert len(st.hand(0)) == 0
    st = discard(st, 1, K.REPAIRS)
    assert st.over and st.end_reason == "exhausted"
    assert st.completed_by == -1
    assert conserved(st)


def test_R4b_R13_classic_exhausted_hand_ends_when_every_hand_is_empty():
    st = _exhausting(CLASSIC, {0: [K.D75], 1: []}, [])
    st = discard(st, 0, K.D75)
    assert st.over and st.end_reason == "exhausted"


def test_R4b_modern_reshuffle_phase_and_chance_action():
    st = _exhausting(MODERN, {0: [K.D75], 1: [K.D25]}, [K.REPAIRS])
    st = discard(st, 0, K.D75)
    st = draw(st, 1)
    st = discard(st, 1, K.D25)
    assert st.pile_size() == 0 and st.discard
    assert st.phase == "reshuffle" and st.actors() == (engine.CHANCE,)
    assert legal_actions(st, 0) == [] and legal_actions(st, engine.CHANCE) == []
    assert refused(st, Draw(0)) == "R4"
    assert refused(st, Reshuffle(engine.CHANCE, st.discard[1:])) == "R4b"   # not the pile
    action = reshuffle_action(st, random.Random(3))
    assert sorted(action.order) == sorted(st.discard)
    assert action.seat == engine.CHANCE
    after = apply_action(st, action)
    assert after.discard == () and after.pile_size() == len(st.discard)
    assert after.pile[-1] == action.order[0]          # order is top first
    assert after.reshuffles == 1 and after.phase == "draw" and after.seat == 0
    assert conserved(after)
    # a reshuffle outside the reshuffle phase is refused
    assert refused(after, Reshuffle(engine.CHANCE, ())) == "R4b"
    # the reshuffle order is the injected source's: same seed, same order
    assert reshuffle_action(st, random.Random(3)) == action


def test_R4b_modern_bound_after_idle_reshuffles_the_hand_is_played_out():
    # no distance since the last reshuffle and reshuffle_limit idle reshuffles used: final
    st = _exhausting(MODERN, {0: [K.D75], 1: [K.D25]}, [])
    st = st._replace(progress=False, idle_reshuffles=MODERN.reshuffle_limit, reshuffles=3)
    st = discard(st, 0, K.D75)
    assert (st.phase, st.seat) == ("play", 1)         # no reshuffle, no draw
    st = discard(st, 1, K.D25)
    assert st.over and st.end_reason == "exhausted"


def test_R4b_modern_idle_reshuffle_counts_and_limit_zero():
    st = _exhausting(MODERN, {0: [K.D75], 1: [K.D25]}, [])
    idle = st._replace(progress=False)
    nxt = discard(idle, 0, K.D75)
    assert nxt.phase == "reshuffle"                      # first idle reshuffle allowed
    after = apply_action(nxt, reshuffle_action(nxt, random.Random(0)))
    assert after.idle_reshuffles == 1 and after.progress is False
    strict = _exhausting(preset("modern", reshuffle_limit=0), {0: [K.D75], 1: [K.D25]}, [])
    strict = discard(strict._replace(progress=False), 0, K.D75)
    assert strict.phase == "play" and strict.seat == 1  # no idle reshuffle at all
    # a distance played restores the right to reshuffle
    moving = _exhausting(MODERN, {0: [K.D75], 1: [K.D25]}, [])
    moving = moving._replace(progress=False, idle_reshuffles=1,
                             zones=(moving.zones[0]._replace(started=True), moving.zones[1]))
    moved = play(moving, 0, K.D75)
    assert moved.progress is True and moved.phase == "reshuffle"


def test_R4b_max_turns_bound_ends_a_draw_discard_loop():
    # modern: taking the discard top and discarding it again forever is bounded by max_turns
    rules = preset("modern", max_turns=40)
    st = build(rules, TWO, discard=[K.D25], phase="draw", fill_hands=True)
    steps = 0
    while not st.over:
        seat = st.seat
        if st.phase == "draw":
            st = apply_action(st, Draw(seat, "discard") if st.discard else Draw(seat))
        else:
            st = apply_action(st, Discard(seat, max(st.hand(seat))))
        steps += 1
        assert steps < 1000
    assert st.end_reason == "turn_limit" and st.turns <= 40
    assert conserved(st)


# ----- R5 distance ---------------------------------------------------------------------------

@BOTH
def test_R5a_first_distance_needs_a_roll(rules):
    st = at_play(rules, [K.D25, K.ROLL])
    assert refusal_of(st, 0, K.D25) == "R5a"
    assert (K.D25, None) not in legal_plays(st, 0)
    assert (K.ROLL, None) in legal_plays(st, 0)
    st = play(st, 0, K.ROLL)
    assert st.zones[0].started and KIND_OF[st.zones[0].battle[-1]] is K.ROLL
    st = discard(draw(st, 1), 1, K.D75)
    st = draw(st, 0)
    st = play(st, 0, K.D25)
    assert st.zones[0].km == 25


@BOTH
def test_R5a_right_of_way_starts_a_zone(rules):
    st = at_play(rules, [K.RIGHT_OF_WAY, K.D100])
    st = play(st, 0, K.RIGHT_OF_WAY)
    assert st.zones[0].started
    st = draw(st, 0)                               # R8 extra turn
    st = play(st, 0, K.D100)
    assert st.zones[0].km == 100


@BOTH
def test_R5a_O_start_rolling_every_zone_starts_with_a_roll(rules):
    r = rules.with_options(start_rolling=True)
    st = deal(r, TWO, hands={0: [K.D100]})
    assert all(z.started for z in st.zones)
    st = draw(st)
    assert (K.D100, None) in legal_plays(st, 0)
    st = play(st, 0, K.D100)
    assert st.zones[0].km == 100


def test_R5_R7_classic_needs_a_roll_after_a_remedy():
    z = dict(battle=[K.ROLL, K.OUT_OF_GAS, K.GASOLINE])
    st = at_play(CLASSIC, [K.D25, K.ROLL], zones={0: z})
    assert refusal_of(st, 0, K.D25) == "R5"
    assert (K.ROLL, None) in legal_plays(st, 0)
    st = play(st, 0, K.ROLL)
    st = draw(discard(draw(st, 1), 1, K.D75), 0)
    assert play(st, 0, K.D25).zones[0].km == 25


def test_R5_R7_modern_the_remedy_suffices():
    z = dict(battle=[K.ROLL, K.OUT_OF_GAS, K.GASOLINE])
    st = at_play(MODERN, [K.D25, K.ROLL], zones={0: z})
    assert (K.D25, None) in legal_plays(st, 0)
    assert refusal_of(st, 0, K.ROLL) == "R7"        # already started: Roll only on Stop
    assert play(st, 0, K.D25).zones[0].km == 25


def test_R5_O_roll_after_remedy_is_an_option_on_either_preset():
    z = dict(battle=[K.ROLL, K.OUT_OF_GAS, K.GASOLINE])
    modern_strict = at_play(preset("modern", roll_after_remedy=True), [K.D25], zones={0: z})
    assert refusal_of(modern_strict, 0, K.D25) == "R5"
    classic_loose = at_play(preset("classic", roll_after_remedy=False), [K.D25], zones={0: z})
    assert play(classic_loose, 0, K.D25).zones[0].km == 25


@BOTH
def test_R5_a_stop_still_needs_a_roll(rules):
    st = at_play(rules, [K.D25, K.ROLL, K.GASOLINE], zones={0: dict(battle=[K.ROLL, K.STOP])})
    assert refusal_of(st, 0, K.D25) == "R5"
    assert refusal_of(st, 0, K.GASOLINE) == "R7"
    st = play(st, 0, K.ROLL)
    st = draw(discard(draw(st, 1), 1, K.D75), 0)
    assert play(st, 0, K.D25).zones[0].km == 25


@BOTH
def test_R5_hazard_showing_blocks_distance(rules):
    for hz in (K.OUT_OF_GAS, K.FLAT_TIRE, K.ACCIDENT):
        st = at_play(rules, [K.D25], zones={0: dict(battle=[K.ROLL, hz])})
        assert refusal_of(st, 0, K.D25) == "R5"


@BOTH
def test_R5b_speed_limit_allows_only_25_and_50(rules):
    st = at_play(rules, [K.D25, K.D50, K.D75, K.D100, K.D200],
                 zones={0: dict(battle=[K.ROLL], speed=[K.SPEED_LIMIT])})
    for k in (K.D75, K.D100, K.D200):
        assert refusal_of(st, 0, k) == "R5b"
    plays = legal_plays(st, 0)
    assert (K.D25, None) in plays and (K.D50, None) in plays
    assert (K.D75, None) not in plays
    assert play(st, 0, K.D50).zones[0].km == 50
    lifted = at_play(rules, [K.D100],
                     zones={0: dict(battle=[K.ROLL], speed=[K.SPEED_LIMIT, K.END_OF_LIMIT])})
    assert play(lifted, 0, K.D100).zones[0].km == 100


@BOTH
def test_R5b_R8_right_of_way_lifts_speed_limit(rules):
    st = at_play(rules, [K.D100, K.END_OF_LIMIT],
                 zones={0: dict(speed=[K.SPEED_LIMIT], safeties=[K.RIGHT_OF_WAY])})
    assert not st.zones[0].limited()
    assert play(st, 0, K.D100).zones[0].km == 100
    assert refusal_of(st, 0, K.END_OF_LIMIT) == "R7"   # nothing to cure


@BOTH
def test_R5c_at_most_two_200s(rules):
    st = at_play(rules, [K.D200], zones={0: dict(battle=[K.ROLL], distance=[K.D200, K.D200])})
    assert st.zones[0].n200 == 2
    assert refusal_of(st, 0, K.D200) == "R5c"
    one = at_play(rules, [K.D200], zones={0: dict(battle=[K.ROLL], distance=[K.D200])})
    z = play(one, 0, K.D200).zones[0]
    assert (z.n200, z.km) == (2, 400)


def _at_950(rules, hand, seating=TEAMS):
    return at_play(rules, hand, seating=seating,
                   zones={0: dict(battle=[K.ROLL],
                                  distance=[K.D200, K.D200, K.D100, K.D100, K.D100, K.D100,
                                            K.D100, K.D50])})


def test_R5d_exact_finish_at_950_classic():
    st = _at_950(CLASSIC, [K.D25, K.D50, K.D75, K.D100])
    assert st.target == 1000 and st.zones[0].km == 950
    a = play(st, 0, K.D25)
    assert a.zones[0].km == 975 and not a.over
    b = play(st, 0, K.D50)
    assert b.zones[0].km == 1000 and b.over and b.completed_by == 0
    assert b.end_reason == "trip"
    assert refusal_of(st, 0, K.D75) == "R5d"
    assert refusal_of(st, 0, K.D100) == "R5d"
    plays = legal_plays(st, 0)
    assert (K.D75, None) not in plays and (K.D50, None) in plays


def test_R5d_modern_overshoot_ends_the_hand():
    st = _at_950(MODERN, [K.D75, K.D25])
    st = play(st, 0, K.D75)
    assert st.over and st.completed_by == 0 and st.zones[0].km == 1025
    st2 = _at_950(MODERN, [K.D25])
    assert not play(st2, 0, K.D25).over


def test_R5d_exact_finish_at_700_target_classic_two_players():
    st = at_play(CLASSIC, [K.D100, K.D50],
                 zones={0: dict(battle=[K.ROLL],
                                 distance=[K.D200, K.D200, K.D100, K.D100, K.D50])})
    assert st.target == 700 and st.zones[0].km == 650
    assert refusal_of(st, 0, K.D100) == "R5d"
    assert play(st, 0, K.D50).phase == "extend"


@BOTH
def test_R5_R8_right_of_way_is_a_permanent_roll(rules):
    z = dict(battle=[K.ROLL, K.OUT_OF_GAS, K.GASOLINE], safeties=[K.RIGHT_OF_WAY])
    st = at_play(rules, [K.D100], zones={0: z})
    assert st.zones[0].moving(rules)
    assert play(st, 0, K.D100).zones[0].km == 100
    # but not while another hazard shows
    hit = at_play(rules, [K.D100],
                  zones={0: dict(battle=[K.ACCIDENT], safeties=[K.RIGHT_OF_WAY])})
    assert refusal_of(hit, 0, K.D100) == "R5"


@BOTH
def test_R5_distance_goes_on_your_own_zone(rules):
    st = at_play(rules, [K.D25], zones={0: ROLLING, 1: ROLLING})
    assert refused(st, Play(0, card(st, 0, K.D25), 1)) == "R5"


# ----- R6 hazards ----------------------------------------------------------------------------

@BOTH
def test_R6_hazards_go_on_an_opponent(rules):
    st = at_play(rules, [K.STOP, K.SPEED_LIMIT], zones={0: ROLLING, 1: ROLLING})
    stop = card(st, 0, K.STOP)
    assert refused(st, Play(0, stop, None)) == "R6"
    assert refused(st, Play(0, stop, 0)) == "R6"
    assert refused(st, Play(0, stop, 5)) == "R6"
    assert refused(st, Play(0, stop, -1)) == "R6"
    assert legal_plays(st, 0) >= {(K.STOP, 1), (K.SPEED_LIMIT, 1)}
    after = apply_action(st, Play(0, stop, 1))
    assert after.zones[1].battle[-1] == stop
    sl = apply_action(st, Play(0, card(st, 0, K.SPEED_LIMIT), 1))
    assert KIND_OF[sl.zones[1].speed[-1]] is K.SPEED_LIMIT and sl.zones[1].battle == \
        st.zones[1].battle


@BOTH
def test_R6_hazards_on_opponents_only_in_teams(rules):
    seating = Seating(6, 3)
    st = at_play(rules, [K.STOP], seating=seating,
                 zones={0: ROLLING, 1: ROLLING, 2: ROLLING})
    assert {t for k, t in legal_plays(st, 0) if k is K.STOP} == {1, 2}
    assert refusal_of(st, 0, K.STOP, 0) == "R6"


@BOTH
@pytest.mark.parametrize("hazard,safety", [
    (K.STOP, K.RIGHT_OF_WAY), (K.SPEED_LIMIT, K.RIGHT_OF_WAY), (K.OUT_OF_GAS, K.EXTRA_TANK),
    (K.FLAT_TIRE, K.PUNCTURE_PROOF), (K.ACCIDENT, K.DRIVING_ACE)])
def test_R6_never_against_the_matching_safety(rules, hazard, safety):
    st = at_play(rules, [hazard], zones={1: dict(battle=[K.ROLL], safeties=[safety])})
    assert refusal_of(st, 0, hazard, 1) == "R6"
    assert not any(k is hazard for k, _ in legal_plays(st, 0))


def test_R6_classic_battle_hazard_needs_a_moving_target():
    for z in (dict(), dict(battle=[K.ROLL, K.OUT_OF_GAS, K.GASOLINE])):
        st = at_play(CLASSIC, [K.STOP, K.ACCIDENT], zones={1: z})
        assert refusal_of(st, 0, K.STOP, 1) == "R6"
        assert refusal_of(st, 0, K.ACCIDENT, 1) == "R6"
    moving = at_play(CLASSIC, [K.ACCIDENT], zones={1: ROLLING})
    assert play(moving, 0, K.ACCIDENT, 1).phase == "respond"
    # Right of Way and no hazard showing is moving too
    row = at_play(CLASSIC, [K.ACCIDENT], zones={1: dict(safeties=[K.RIGHT_OF_WAY])})
    assert (K.ACCIDENT, 1) in legal_plays(row, 0)


def test_R6_modern_cured_zone_is_moving_and_may_be_attacked():
    st = at_play(MODERN, [K.ACCIDENT], zones={1: dict(battle=[K.ROLL, K.OUT_OF_GAS,
                                                               K.GASOLINE])})
    assert (K.ACCIDENT, 1) in legal_plays(st, 0)


@BOTH
def test_R6_speed_limit_on_unstarted_or_stopped_zone_not_already_limited(rules):
    st = at_play(rules, [K.SPEED_LIMIT, K.STOP])
    assert (K.SPEED_LIMIT, 1) in legal_plays(st, 0)              # not started
    assert refusal_of(st, 0, K.STOP, 1) == "R6"                  # only Speed Limit
    stopped = at_play(rules, [K.SPEED_LIMIT], zones={1: dict(battle=[K.ROLL, K.STOP])})
    assert play(stopped, 0, K.SPEED_LIMIT, 1).phase == "respond"
    limited = at_play(rules, [K.SPEED_LIMIT], zones={1: dict(battle=[K.ROLL],
                                                             speed=[K.SPEED_LIMIT])})
    assert refusal_of(limited, 0, K.SPEED_LIMIT, 1) == "R6"
    cured = at_play(rules, [K.SPEED_LIMIT], zones={1: dict(speed=[K.SPEED_LIMIT,
                                                                 K.END_OF_LIMIT])})
    assert (K.SPEED_LIMIT, 1) in legal_plays(cured, 0)


@BOTH
def test_R6_battle_hazard_and_speed_limit_together(rules):
    limited = at_play(rules, [K.STOP], zones={1: dict(battle=[K.ROLL], speed=[K.SPEED_LIMIT])})
    assert (K.STOP, 1) in legal_plays(limited, 0)
    stopped = at_play(rules, [K.SPEED_LIMIT], zones={1: dict(battle=[K.ROLL, K.STOP])})
    assert (K.SPEED_LIMIT, 1) in legal_plays(stopped, 0)


@BOTH
def test_R6_two_battle_hazards_may_not_be_in_force(rules):
    st = at_play(rules, [K.ACCIDENT, K.STOP], zones={1: dict(battle=[K.ROLL, K.FLAT_TIRE])})
    assert refusal_of(st, 0, K.ACCIDENT, 1) == "R6"
    assert refusal_of(st, 0, K.STOP, 1) == "R6"


@BOTH
def test_R6_O_stack_hazards_allows_a_hazard_on_a_hazard(rules):
    r = rules.with_options(stack_hazards=True)
    st = at_play(r, [K.ACCIDENT, K.FLAT_TIRE], zones={1: dict(battle=[K.ROLL, K.FLAT_TIRE])})
    assert (K.ACCIDENT, 1) in legal_plays(st, 0)
    after = play(st, 0, K.ACCIDENT, 1)
    assert after.zones[1].hazard_in_force() is K.ACCIDENT
    assert refusal_of(st, 0, K.FLAT_TIRE, 1) == "R6"          # the same hazard again


@BOTH
def test_R6a_may_attack_while_not_started_or_attacked(rules):
    st = at_play(rules, [K.ACCIDENT], zones={0: dict(battle=[K.ROLL, K.STOP]), 1: ROLLING})
    assert (K.ACCIDENT, 1) in legal_plays(st, 0)
    fresh = at_play(rules, [K.ACCIDENT], zones={1: ROLLING})
    assert not fresh.zones[0].started
    assert (K.ACCIDENT, 1) in legal_plays(fresh, 0)


@BOTH
def test_R6a_O_attacker_started(rules):
    r = rules.with_options(attacker_started=True)
    st = at_play(r, [K.ACCIDENT, K.SPEED_LIMIT], zones={1: ROLLING})
    assert refusal_of(st, 0, K.ACCIDENT, 1) == "R6a"
    assert (K.SPEED_LIMIT, 1) in legal_plays(st, 0)             # Speed Limit still allowed
    started = at_play(r, [K.ACCIDENT], zones={0: dict(battle=[K.ROLL, K.STOP]), 1: ROLLING})
    assert (K.ACCIDENT, 1) in legal_plays(started, 0)


# ----- R7 remedies ---------------------------------------------------------------------------

@BOTH
@pytest.mark.parametrize("hazard,remedy", [
    (K.STOP, K.ROLL), (K.OUT_OF_GAS, K.GASOLINE), (K.FLAT_TIRE, K.SPARE_TIRE),
    (K.ACCIDENT, K.REPAIRS)])
def test_R7_remedies_must_match_the_hazard(rules, hazard, remedy):
    all_remedies = [K.ROLL, K.GASOLINE, K.SPARE_TIRE, K.REPAIRS, K.END_OF_LIMIT]
    st = at_play(rules, all_remedies, zones={0: dict(battle=[K.ROLL, hazard])})
    for r in all_remedies:
        if r is remedy:
            assert (r, None) in legal_plays(st, 0)
        else:
            assert refusal_of(st, 0, r) == "R7"
    after = play(st, 0, remedy)
    assert after.zones[0].hazard_in_force() is None
    assert KIND_OF[after.zones[0].battle[-1]] is remedy


@BOTH
def test_R7_end_of_limit_needs_a_speed_limit(rules):
    st = at_play(rules, [K.END_OF_LIMIT], zones={0: ROLLING})
    assert refusal_of(st, 0, K.END_OF_LIMIT) == "R7"
    lim = at_play(rules, [K.END_OF_LIMIT], zones={0: dict(battle=[K.ROLL, K.STOP],
                                                           speed=[K.SPEED_LIMIT])})
    after = play(lim, 0, K.END_OF_LIMIT)
    assert not after.zones[0].limited()
    assert after.zones[0].hazard_in_force() is K.STOP      # the battle pile is untouched


@BOTH
def test_R7_remedy_with_nothing_to_cure_is_refused(rules):
    st = at_play(rules, [K.GASOLINE, K.SPARE_TIRE, K.REPAIRS], zones={0: ROLLING})
    for k in (K.GASOLINE, K.SPARE_TIRE, K.REPAIRS):
        assert refusal_of(st, 0, k) == "R7"
    assert refused(st, Play(0, card(st, 0, K.GASOLINE), 1)) == "R7"   # own zone only


def test_R7_classic_roll_when_already_rolling_is_refused():
    st = at_play(CLASSIC, [K.ROLL], zones={0: ROLLING})
    assert refusal_of(st, 0, K.ROLL) == "R7"


def test_R7_classic_roll_on_a_remedy_and_modern_not():
    z = {0: dict(battle=[K.ROLL, K.FLAT_TIRE, K.SPARE_TIRE])}
    assert (K.ROLL, None) in legal_plays(at_play(CLASSIC, [K.ROLL], zones=z), 0)
    assert refusal_of(at_play(MODERN, [K.ROLL], zones=z), 0, K.ROLL) == "R7"


# ----- R8 safeties ---------------------------------------------------------------------------

@BOTH
def test_R8_safety_any_time_on_your_turn_with_an_extra_turn(rules):
    st = at_play(rules, [K.DRIVING_ACE])
    assert (K.DRIVING_ACE, None) in legal_plays(st, 0)
    after = play(st, 0, K.DRIVING_ACE)
    z = after.zones[0]
    assert z.has_safety(K.DRIVING_ACE) and z.coups == ()
    assert (after.phase, after.seat) == ("draw", 0)           # extra turn: draw again
    assert len(after.hand(0)) == 6
    after = draw(after)
    assert (after.phase, after.seat, len(after.hand(0))) == ("play", 0, 7)
    after = discard(after, 0, KIND_OF[after.hand(0)[0]])
    assert after.seat == 1
    # not on someone else's turn
    other = at_play(rules, hands={1: [K.EXTRA_TANK]})
    assert refused(other, Play(1, card(other, 1, K.EXTRA_TANK))) == "R4"


@BOTH
def test_R8_safety_protects_for_the_rest_of_the_hand(rules):
    st = at_play(rules, [K.DRIVING_ACE], hands={1: [K.ACCIDENT]}, zones={0: ROLLING, 1: ROLLING})
    st = play(st, 0, K.DRIVING_ACE)
    st = discard(draw(st), 0, K.D75)
    st = draw(st, 1)
    assert refusal_of(st, 1, K.ACCIDENT, 0) == "R6"


def test_R8_classic_exhausted_safety_extra_turn_without_draw():
    st = build(CLASSIC, TWO, hands={0: [K.EXTRA_TANK, K.D75], 1: [K.D25]}, pile_rest=False)
    after = play(st, 0, K.EXTRA_TANK)
    assert (after.phase, after.seat) == ("play", 0)
    assert after.hand(0) == (card(st, 0, K.D75),)


@BOTH
@pytest.mark.parametrize("hazard,safety", [
    (K.OUT_OF_GAS, K.EXTRA_TANK), (K.FLAT_TIRE, K.PUNCTURE_PROOF),
    (K.ACCIDENT, K.DRIVING_ACE)])
def test_R8_safety_cancels_the_showing_hazard(rules, hazard, safety):
    st = at_play(rules, [safety, K.D25, K.ROLL], zones={0: dict(battle=[K.ROLL, hazard])})
    after = draw(play(st, 0, safety))
    z = after.zones[0]
    assert z.hazard_in_force() is None
    if rules.roll_after_remedy:
        # classic: a Roll is needed after a normally played safety
        assert refusal_of(after, 0, K.D25) == "R5"
        assert (K.ROLL, None) in legal_plays(after, 0)
    else:
        assert (K.D25, None) in legal_plays(after, 0)


def test_R8_classic_no_roll_needed_when_right_of_way_is_out():
    z = dict(battle=[K.ROLL, K.ACCIDENT], safeties=[K.RIGHT_OF_WAY])
    st = at_play(CLASSIC, [K.DRIVING_ACE, K.D25], zones={0: z})
    after = draw(play(st, 0, K.DRIVING_ACE))
    assert (K.D25, None) in legal_plays(after, 0)


@BOTH
def test_R8_right_of_way_cancels_stop_and_speed_limit(rules):
    z = dict(battle=[K.ROLL, K.STOP], speed=[K.SPEED_LIMIT])
    st = at_play(rules, [K.RIGHT_OF_WAY, K.D100, K.D75], zones={0: z})
    after = draw(play(st, 0, K.RIGHT_OF_WAY))
    zz = after.zones[0]
    assert zz.hazard_in_force() is None and not zz.limited() and zz.moving(rules)
    assert (K.D100, None) in legal_plays(after, 0)
    assert play(after, 0, K.D100).zones[0].km == 100


def test_R8_explain_names_the_rule():
    st = at_play(CLASSIC, [K.D25, K.ROLL])
    assert engine.explain(st, 0, card(st, 0, K.D25)).startswith("R5a")
    assert engine.explain(st, 0, card(st, 0, K.ROLL)) is None
    assert engine.explain(st, 1, card(st, 0, K.ROLL)).startswith("R4")


def test_R4_respond_phase_refuses_turn_actions():
    st = at_play(CLASSIC, [K.STOP], zones={1: ROLLING})
    st = play(st, 0, K.STOP, 1)
    assert st.phase == "respond"
    assert refused(st, Discard(1, st.hand(1)[0])) == "R9"
    assert refused(st, Pass(0)) == "R4"
    assert kinds(st.zones[1].battle)[-1] is K.STOP


@BOTH
@pytest.mark.parametrize("kind,zones", [
    (K.D25, {0: ROLLING}), (K.ROLL, {}), (K.DRIVING_ACE, {})],
    ids=["distance", "remedy", "safety"])
def test_R5_R7_R8_own_zone_card_has_one_encoding(rules, kind, zones):
    """Legal actions are exactly the actions that apply: a card for your own zone is listed
    with no target, so the same play with an explicit own-side target must be refused."""
    st = at_play(rules, [kind], zones=zones)
    c = card(st, 0, kind)
    assert Play(0, c, None) in legal_actions(st, 0)
    assert Play(0, c, 0) not in legal_actions(st, 0)
    assert refused(st, Play(0, c, 0)) in ("R5", "R7", "R8")


@pytest.mark.parametrize("limit", [0, 1, 3])
@pytest.mark.parametrize("seating", [TWO, TEAMS], ids=["2", "2x2"])
def test_R4b_modern_bound_reshuffles_without_distance_then_play_out(limit, seating):
    """Nobody ever plays: one reshuffle after the initial pile, then ``reshuffle_limit`` idle
    ones, then the hand is played out and ends when every hand is empty."""
    rules = preset("modern", reshuffle_limit=limit)
    deck = list(rules.deck(seating))
    random.Random(limit).shuffle(deck)
    st = engine.new_hand(rules, seating, deck, 0)
    dealer = random.Random(1)
    steps = 0
    while not st.over:
        if st.phase == "reshuffle":
            st = apply_action(st, reshuffle_action(st, dealer))
        elif st.phase == "draw":
            st = apply_action(st, Draw(st.seat))
        else:
            st = apply_action(st, Discard(st.seat, st.hand(st.seat)[0]))
        steps += 1
        assert steps < 5000
    assert st.end_reason == "exhausted"
    assert st.reshuffles == 1 + limit
    assert st.idle_reshuffles == limit
    assert conserved(st)
