"""Coup fourré (R9) and fast play (R10) scenarios, in both presets."""

from __future__ import annotations

import pytest
from engine_helpers import (
    K,
    build,
    card,
    conserved,
    draw,
    kinds,
    leaked,
    legal_plays,
    play,
    refused,
)

from engine import (
    CLASSIC,
    KIND_OF,
    MODERN,
    CoupFourre,
    Discard,
    Draw,
    FastDiscard,
    FastRemedy,
    Pass,
    Play,
    Seating,
    apply_action,
    legal_actions,
    view_of,
)

BOTH = pytest.mark.parametrize("rules", [CLASSIC, MODERN], ids=["classic", "modern"])
FAST = pytest.mark.parametrize("rules", [CLASSIC.with_options(fast_play=True),
                                         MODERN.with_options(fast_play=True)],
                               ids=["classic-fast", "modern-fast"])
TWO = Seating.solo(2)
ROLLING = dict(battle=[K.ROLL])


def attacked(rules, hazard, hands1=(), seating=TWO, victim_side=1, zones=None, hands=None,
             **kw):
    """Seat 0 plays ``hazard`` on ``victim_side`` (rolling); returns the respond state."""
    hs = {0: [hazard], **(hands or {})}
    if hands1:
        hs[1] = list(hands1)
    zs = zones or {s: ROLLING for s in range(seating.n_teams)}
    st = build(rules, seating, hands=hs, zones=zs, seat=0, fill_hands=True, **kw)
    return play(st, 0, hazard, victim_side)


def eager(state, seat, legal):
    """A responder's preference: coup fourre, else fast remedy, else pass."""
    for kind in (CoupFourre, FastRemedy):
        for act in legal:
            if isinstance(act, kind):
                return act
    return Pass(seat)


def run_window(state, choose=eager):
    """Answer the response window seat by seat (first listed actor first); returns the state
    after the window and every action that was offered on the way."""
    offered = []
    while state.phase == "respond":
        seat = state.actors()[0]
        legal = legal_actions(state, seat)
        offered.extend(legal)
        state = apply_action(state, choose(state, seat, legal))
    return state, offered


def window_outcomes(state, choose=eager, check=None):
    """Every state the response window can close in, over every order in which the seats
    listed by ``actors()`` may answer (each answering with ``choose``)."""
    if state.phase != "respond":
        return {state.digest(): state}
    out = {}
    for seat in state.actors():
        nxt = apply_action(state, choose(state, seat, legal_actions(state, seat)))
        if check is not None:
            check(nxt)
        out.update(window_outcomes(nxt, choose, check))
    return out


# ----- R9 window ----------------------------------------------------------------------------

@BOTH
def test_R9_window_opens_after_every_hazard_and_pass_keeps_the_hazard(rules):
    st = attacked(rules, K.STOP)
    assert st.phase == "respond" and st.actors() == (1,)
    assert legal_actions(st, 1) == [Pass(1)]
    assert legal_actions(st, 0) == []
    assert refused(st, Pass(0)) == "R4"
    assert refused(st, Draw(1)) == "R9"
    after = apply_action(st, Pass(1))
    assert after.zones[1].hazard_in_force() is K.STOP
    assert (after.phase, after.seat, after.attack) == ("draw", 1, None)


@BOTH
def test_R9_no_leak_window_identical_whether_or_not_the_safety_is_held(rules):
    # same deal except that seat 1's Right of Way and a filler card swap places with the pile
    with_row = attacked(rules, K.STOP, hands1=[K.RIGHT_OF_WAY, K.D75, K.D75, K.D75, K.D75,
                                               K.D75],
                        pile_top=[K.D100])
    without = attacked(rules, K.STOP, hands1=[K.D100, K.D75, K.D75, K.D75, K.D75, K.D75],
                       pile_top=[K.RIGHT_OF_WAY])
    for st in (with_row, without):
        assert st.phase == "respond" and st.actors() == (1,)
    # nobody but seat 1 can tell the two apart
    assert view_of(with_row, 0) == view_of(without, 0)
    assert view_of(with_row, 0).digest() == view_of(without, 0).digest()
    # a responder without the safety may only pass
    assert legal_actions(without, 1) == [Pass(1)]
    row = card(with_row, 1, K.RIGHT_OF_WAY)
    assert legal_actions(with_row, 1) == [Pass(1), CoupFourre(1, row)]


@BOTH
@pytest.mark.parametrize("hazard,safety", [
    (K.STOP, K.RIGHT_OF_WAY), (K.SPEED_LIMIT, K.RIGHT_OF_WAY), (K.OUT_OF_GAS, K.EXTRA_TANK),
    (K.FLAT_TIRE, K.PUNCTURE_PROOF), (K.ACCIDENT, K.DRIVING_ACE)])
def test_R9_coup_fourre_hazard_to_discard_safety_sideways_replacement_and_turn(
        rules, hazard, safety):
    st = attacked(rules, hazard, hands1=[safety], discard=[K.D25])
    before_zone = st.zones[1]
    saf = card(st, 1, safety)
    hz = st.attack.card
    assert CoupFourre(1, saf) in legal_actions(st, 1)
    after = apply_action(st, CoupFourre(1, saf))
    z = after.zones[1]
    assert after.discard[-1] == hz
    assert hz not in z.battle + z.speed
    assert saf in z.safeties and z.coups == (saf,)
    assert z.battle == before_zone.battle[:-1] if hazard is not K.SPEED_LIMIT else \
        z.speed == before_zone.speed[:-1]
    assert not z.limited() and z.hazard_in_force() is None
    assert saf not in after.hand(1) and len(after.hand(1)) == 5
    # replacement draw (from the pile only), then a normal turn
    assert (after.phase, after.seat, after.turn_seat) == ("draw", 1, 1)
    assert [a.source for a in legal_actions(after, 1)] == ["pile"]
    assert refused(after, Draw(1, "discard")) == "R4a"
    top = after.pile[-1]
    after = draw(after, 1)
    assert top in after.hand(1) and len(after.hand(1)) == 6 and after.phase == "draw"
    after = draw(after, 1)
    assert (after.phase, after.seat, len(after.hand(1))) == ("play", 1, 7)
    # classic: the Roll is back on top, no new Roll needed
    assert z.moving(rules)
    assert conserved(after)


def test_R9_modern_turn_draw_after_coup_may_take_the_discard():
    st = attacked(MODERN, K.ACCIDENT, hands1=[K.DRIVING_ACE])
    after = apply_action(st, CoupFourre(1, card(st, 1, K.DRIVING_ACE)))
    after = draw(after, 1)                                # replacement: pile
    acts = legal_actions(after, 1)
    assert Draw(1, "discard", after.discard[-1]) in acts   # the turn draw (R4a)
    after = apply_action(after, Draw(1, "discard"))
    assert after.phase == "play"


@BOTH
def test_R9_wrong_safety_or_card_not_held_is_refused(rules):
    st = attacked(rules, K.STOP, hands1=[K.EXTRA_TANK], hands={0: [K.STOP, K.DRIVING_ACE]})
    assert refused(st, CoupFourre(1, card(st, 1, K.EXTRA_TANK))) == "R9"
    assert refused(st, CoupFourre(1, card(st, 0, K.DRIVING_ACE))) == "R4"
    assert refused(st, FastRemedy(1, st.hand(1)[0])) == "R10"       # fast play is off
    assert not any(isinstance(a, FastRemedy) for a in legal_actions(st, 1))


@BOTH
def test_R9_right_of_way_answers_stop_and_speed_limit(rules):
    for hz in (K.STOP, K.SPEED_LIMIT):
        st = attacked(rules, hz, hands1=[K.RIGHT_OF_WAY])
        after = apply_action(st, CoupFourre(1, card(st, 1, K.RIGHT_OF_WAY)))
        z = after.zones[1]
        assert z.coups and KIND_OF[z.coups[0]] is K.RIGHT_OF_WAY
        assert not z.limited() and z.hazard_in_force() is None and z.started
        assert KIND_OF[after.discard[-1]] is hz


@BOTH
def test_R9_turn_skip_of_seats_between_attacker_and_coup_player(rules):
    seating = Seating.solo(4)
    st = attacked(rules, K.ACCIDENT, seating=seating, victim_side=3,
                  hands={3: [K.DRIVING_ACE]})
    assert st.actors() == (3,)
    st = apply_action(st, CoupFourre(3, card(st, 3, K.DRIVING_ACE)))
    assert st.seat == 3
    st = draw(draw(st, 3), 3)
    st = apply_action(st, Discard(3, st.hand(3)[0]))
    # seats 1 and 2 lost their turn; play continues left of seat 3
    assert (st.phase, st.seat) == ("draw", 0)


@BOTH
def test_R9_no_skip_when_the_next_seat_makes_the_coup(rules):
    seating = Seating.solo(3)
    st = attacked(rules, K.ACCIDENT, seating=seating, victim_side=1, hands1=[K.DRIVING_ACE])
    st = apply_action(st, CoupFourre(1, card(st, 1, K.DRIVING_ACE)))
    st = draw(draw(st, 1), 1)
    st = apply_action(st, Discard(1, st.hand(1)[0]))
    assert st.seat == 2


@BOTH
@pytest.mark.parametrize("holder", [1, 3])
def test_R9_teams_both_partners_are_asked(rules, holder):
    seating = Seating(4, 2)
    st = attacked(rules, K.FLAT_TIRE, seating=seating, hands={holder: [K.PUNCTURE_PROOF]})
    assert st.actors() == (1, 3)
    other = 4 - holder
    assert legal_actions(st, other) == [Pass(other)]
    saf = card(st, holder, K.PUNCTURE_PROOF)
    assert legal_actions(st, holder) == [Pass(holder), CoupFourre(holder, saf)]
    # the partner without the safety passes first
    st1 = apply_action(st, Pass(other))
    assert st1.phase == "respond" and st1.actors() == (holder,)
    st1 = apply_action(st1, CoupFourre(holder, saf))
    assert st1.zones[1].coups == (saf,) and st1.seat == holder
    assert conserved(st1)


@BOTH
def test_R9_teams_coup_answered_first_does_not_leak_before_the_window_closes(rules):
    seating = Seating(4, 2)
    st = attacked(rules, K.FLAT_TIRE, seating=seating, hands={1: [K.PUNCTURE_PROOF]})
    saf = card(st, 1, K.PUNCTURE_PROOF)
    st = apply_action(st, CoupFourre(1, saf))
    # Either the coup resolves at once, or, while seat 3 still has to answer, no other
    # seat's view may show the safety that is still in seat 1's hand.
    assert leaked(st) == {}
    if st.phase == "respond":
        st = apply_action(st, Pass(3))
    assert st.zones[1].coups == (saf,)


@BOTH
def test_R9_a_safety_drawn_later_cannot_make_a_coup_fourre(rules):
    st = attacked(rules, K.ACCIDENT, pile_top=[K.DRIVING_ACE])
    st = apply_action(st, Pass(1))
    st = draw(st, 1)                                   # draws the Driving Ace now
    ace = card(st, 1, K.DRIVING_ACE)
    assert not any(isinstance(a, CoupFourre) for a in legal_actions(st, 1))
    assert refused(st, CoupFourre(1, ace)) == "R4"
    # it is an ordinary safety now: no coup fourre recorded
    after = apply_action(st, Play(1, ace))
    assert after.zones[1].coups == () and after.zones[1].has_safety(K.DRIVING_ACE)
    assert after.zones[1].hazard_in_force() is None


@BOTH
def test_R9_coup_fourre_with_an_exhausted_pile(rules):
    r = rules.with_options(exhaustion="play_out")
    st = build(r, TWO, hands={0: [K.STOP, K.D75], 1: [K.RIGHT_OF_WAY, K.D25]},
               zones={0: ROLLING, 1: ROLLING}, pile_rest=False)
    st = play(st, 0, K.STOP, 1)
    st = apply_action(st, CoupFourre(1, card(st, 1, K.RIGHT_OF_WAY)))
    # no draws possible: straight to the coup player's play
    assert (st.phase, st.seat) == ("play", 1)
    assert conserved(st)


# ----- R10 fast play ------------------------------------------------------------------------

@FAST
@pytest.mark.parametrize("hazard,remedy", [
    (K.STOP, K.ROLL), (K.SPEED_LIMIT, K.END_OF_LIMIT), (K.OUT_OF_GAS, K.GASOLINE),
    (K.FLAT_TIRE, K.SPARE_TIRE), (K.ACCIDENT, K.REPAIRS)])
def test_R10a_remedy_out_of_turn_replacement_and_play_resumes_left_of_attacker(
        rules, hazard, remedy):
    seating = Seating.solo(3)
    st = attacked(rules, hazard, seating=seating, victim_side=2, hands={2: [remedy]})
    rem = card(st, 2, remedy)
    after, offered = run_window(st)
    assert FastRemedy(2, rem) in offered
    assert all(isinstance(a, (Pass, FastRemedy)) for a in offered)
    z = after.zones[2]
    assert rem in (z.speed if hazard is K.SPEED_LIMIT else z.battle)
    assert z.coups == () and z.hazard_in_force() is None and not z.limited()
    assert (after.phase, after.seat, len(after.hand(2))) == ("draw", 2, 5)
    assert [a.source for a in legal_actions(after, 2)] == ["pile"]
    after = draw(after, 2)
    assert len(after.hand(2)) == 6
    # play resumes left of the attacker (seat 0): seat 1
    assert (after.phase, after.seat) == ("draw", 1)
    assert conserved(after)


@FAST
def test_R10a_wrong_remedy_refused_and_pass_keeps_hazard(rules):
    st = attacked(rules, K.ACCIDENT, hands1=[K.GASOLINE, K.REPAIRS])
    assert refused(st, FastRemedy(1, card(st, 1, K.GASOLINE))) == "R10"
    after = apply_action(st, Pass(1))
    assert after.zones[1].hazard_in_force() is K.ACCIDENT


@FAST
def test_R9_R10a_coup_fourre_wins_over_a_fast_remedy_in_any_answer_order(rules):
    """R9: the partner holding the safety keeps the coup fourré whatever the other partner
    answers (docs/rules.md: a coup fourré wins over a fast remedy)."""
    seating = Seating(4, 2)
    st = attacked(rules, K.ACCIDENT, seating=seating,
                  hands={1: [K.REPAIRS], 3: [K.DRIVING_ACE]})
    ace = card(st, 3, K.DRIVING_ACE)
    outcomes = window_outcomes(st)
    for end in outcomes.values():
        z = end.zones[1]
        assert z.coups == (ace,) and end.seat == 3
        assert not any(KIND_OF[c] is K.REPAIRS for c in z.battle)
        assert any(KIND_OF[c] is K.REPAIRS for c in end.hand(1))
    assert len(outcomes) == 1


@FAST
def test_R10b_fast_discard_refills_to_six(rules):
    st = build(rules, TWO, seat=0, fill_hands=True, discard=[K.D25])
    h = st.hand(0)
    three = tuple(h[:3])
    assert FastDiscard(0, three) in legal_actions(st, 0)
    after = apply_action(st, FastDiscard(0, three))
    assert after.discard[-3:] == three
    assert (after.phase, after.seat, len(after.hand(0))) == ("draw", 0, 4)
    assert [a.source for a in legal_actions(after, 0)] == ["pile"]
    assert refused(after, Draw(0, "discard")) == "R4a"
    after = draw(draw(after, 0), 0)
    assert len(after.hand(0)) == 6
    assert (after.phase, after.seat) == ("draw", 1)          # the turn has ended
    assert conserved(after)


@FAST
def test_R10b_fast_discard_of_the_whole_hand(rules):
    st = build(rules, TWO, seat=0, fill_hands=True)
    after = apply_action(st, FastDiscard(0, st.hand(0)))
    assert len(after.hand(0)) == 0 and after.pending == ("replacement",) * 6
    for _ in range(6):
        after = draw(after, 0)
    assert len(after.hand(0)) == 6 and after.seat == 1


@FAST
def test_R10b_invalid_fast_discards(rules):
    st = build(rules, TWO, seat=0, fill_hands=True, hands={1: [K.D25]})
    h = st.hand(0)
    assert refused(st, FastDiscard(0, (h[0],))) == "R10"
    assert refused(st, FastDiscard(0, (h[0], h[0]))) == "R10"
    assert refused(st, FastDiscard(0, (h[0], card(st, 1, K.D25)))) == "R4"
    assert refused(st, FastDiscard(1, (h[0], h[1]))) == "R4"


@BOTH
def test_R10_fast_play_off_by_default(rules):
    st = build(rules, TWO, seat=0, fill_hands=True)
    assert not any(isinstance(a, FastDiscard) for a in legal_actions(st, 0))
    assert refused(st, FastDiscard(0, st.hand(0)[:2])) == "R10"


def test_R10b_classic_exhausted_pile_refill_lapses():
    r = CLASSIC.with_options(fast_play=True)
    st = build(r, TWO, hands={0: [K.D25, K.D50, K.D75], 1: [K.D100]}, pile_top=[K.REPAIRS],
               pile_rest=False)
    after = apply_action(st, FastDiscard(0, st.hand(0)[:2]))
    after = draw(after, 0)                                  # the last card
    assert after.pile_size() == 0
    assert (after.phase, after.seat) == ("play", 1)         # the second draw lapsed
    assert kinds(after.hand(0)) == [K.D75, K.REPAIRS]


def test_R10a_legal_plays_unchanged_for_the_attacker_after_the_window():
    r = MODERN.with_options(fast_play=True)
    st = attacked(r, K.STOP, hands1=[K.ROLL])
    after, offered = run_window(st)
    assert FastRemedy(1, card(st, 1, K.ROLL)) in offered
    after = draw(after, 1)
    assert after.seat == 1 and after.phase == "draw"        # 2 players: left of seat 0
    after = draw(after, 1)
    assert after.zones[1].moving(r)
    assert any(k in (K.D75, K.D100, K.D25, K.D50) for k, _ in legal_plays(after, 1))


@FAST
def test_R9_R10a_teams_fast_remedy_answer_does_not_leak_while_partner_answers(rules):
    seating = Seating(4, 2)
    st = attacked(rules, K.ACCIDENT, seating=seating, hands={1: [K.REPAIRS]})

    def no_leak(nxt):
        assert leaked(nxt) == {}

    outcomes = window_outcomes(st, check=no_leak)
    for end in outcomes.values():
        assert end.zones[1].hazard_in_force() is None        # the remedy was played


@FAST
def test_R10a_teams_first_fast_remedy_left_of_the_attacker_plays_in_any_answer_order(rules):
    """docs/rules.md: among fast remedies the first seat to the attacker's left plays; the
    outcome must not depend on the order in which partners happen to answer."""
    seating = Seating(6, 2)                       # side 1 = seats 1, 3, 5
    st = attacked(rules, K.FLAT_TIRE, seating=seating,
                  hands={3: [K.SPARE_TIRE], 5: [K.SPARE_TIRE]})
    assert set(st.actors()) <= {1, 3, 5}
    r3 = card(st, 3, K.SPARE_TIRE)
    r5 = card(st, 5, K.SPARE_TIRE)
    outcomes = window_outcomes(st)
    for end in outcomes.values():
        assert end.zones[1].battle[-1] == r3 and r5 in end.hand(5)
        assert (end.phase, end.seat) == ("draw", 3)
        assert draw(end, 3).seat == 1             # play resumes left of the attacker
    assert len(outcomes) == 1
