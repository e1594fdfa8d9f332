"""The search bot's determinization: it deals only cards the seat has not seen, and what
it has inferred about hidden hands (:class:`engine._bot_search.Inference`) narrows it."""

from __future__ import annotations

import random

from engine_helpers import K, build, card

from engine import (
    CLASSIC,
    MODERN,
    Discard,
    HandState,
    Pass,
    Play,
    Seating,
    apply_action,
    legal_actions,
    new_hand,
    reshuffle_action,
    view_of,
)
from engine.bots import Inference, determinize, make_bot
from engine.cards import KIND_OF

TWO = Seating.solo(2)


def _states(rules, seating, seed: int, n: int) -> list[HandState]:
    """Play positions of heuristic hands (full states)."""
    rng = random.Random(seed)
    deck = list(rules.deck(seating))
    rng.shuffle(deck)
    state = new_hand(rules, seating, deck, 0)
    bots = [make_bot("heuristic", s) for s in range(seating.n_players)]
    out = []
    while not state.over and len(out) < n:
        if state.phase == "reshuffle":
            state = apply_action(state, reshuffle_action(state, rng))
            continue
        seat = state.actors()[0]
        if state.phase == "play":
            out.append(state)
        view = view_of(state, seat)
        state = apply_action(state, bots[seat].choose(view, legal_actions(view, seat)))
    return out


def test_determinize_deals_only_unseen_cards_and_keeps_every_count():
    """Never a card the seat holds or has seen face up (zones, discard pile) in a hidden
    hand or the pile; every hidden hand keeps its size; the seat's own hand is untouched."""
    rng = random.Random(5)
    for rules, seating in [(CLASSIC, TWO), (MODERN, TWO), (CLASSIC, Seating(4, 2))]:
        for state in _states(rules, seating, 7, 40):
            seat = state.seat
            view = view_of(state, seat)
            seen = set(view.public_cards()) | set(view.hand(seat))
            unseen = sorted(c for c in view.deck if c not in seen)
            for _ in range(3):
                deal = determinize(view, seat, rng)
                assert deal.viewer is None and deal.hands[seat] == view.hand(seat)
                dealt = [c for s, h in enumerate(deal.hands) if s != seat for c in h]
                dealt += list(deal.pile)
                assert sorted(dealt) == unseen
                for s, h in enumerate(deal.hands):
                    assert len(h) == view.hand_size(s)
                    if s != seat:
                        assert not seen & set(h)


def test_determinize_respects_what_a_hidden_hand_lacks_and_holds():
    """``lacks[s][kind] = m``: seat s is dealt at most m cards of that kind; ``holds[s]``:
    seat s is dealt those cards."""
    state = _states(CLASSIC, TWO, 3, 6)[-1]
    view = view_of(state, state.seat)
    other = 1 - state.seat
    rng = random.Random(1)
    for _ in range(200):
        deal = determinize(view, state.seat, rng, {other: {K.ROLL: 0, K.D25: 1}})
        kinds = [KIND_OF[c] for c in deal.hands[other]]
        assert K.ROLL not in kinds and kinds.count(K.D25) <= 1
        assert len(deal.hands[other]) == view.hand_size(other)
    pool = [c for c in view.deck if c not in set(view.public_cards()) | set(view.hand(state.seat))]
    pins = {pool[0], pool[-1]}
    for _ in range(50):
        deal = determinize(view, state.seat, rng, {other: {K.ROLL: 0}}, {other: pins})
        assert pins <= set(deal.hands[other])
        assert len(deal.hands[other]) == view.hand_size(other)
        assert sorted(deal.hands[other] + deal.pile) == sorted(pool)


def _after_stop(seat1_hand, answer_with_roll: bool) -> tuple[Inference, HandState]:
    """Seat 0 stops seat 1, who does not make a coup fourré; at its turn seat 1 either
    cures with a Roll or discards; seat 0 draws and observes."""
    st = build(CLASSIC, TWO,
               hands={0: [K.STOP, K.D25, K.D50, K.D75, K.D100, K.GASOLINE, K.SPARE_TIRE],
                      1: seat1_hand},
               zones={0: dict(battle=[K.ROLL]), 1: dict(battle=[K.ROLL])},
               pile_top=[K.D25, K.D50, K.D75], seat=0)
    inference = Inference()
    inference.observe(view_of(st, 0), 0)
    move = Play(0, card(st, 0, K.STOP), 1)
    inference.played(move)
    st = apply_action(st, move)
    st = apply_action(st, Pass(1))                       # no coup fourré
    st = apply_action(st, legal_actions(st, 1)[0])       # seat 1 draws
    if answer_with_roll:
        st = apply_action(st, Play(1, card(st, 1, K.ROLL)))
    else:
        st = apply_action(st, Discard(1, card(st, 1, K.D25)))
    st = apply_action(st, legal_actions(st, 0)[0])       # seat 0 draws
    assert st.phase == "play" and st.seat == 0
    inference.observe(view_of(st, 0), 0)
    return inference, st


def test_inference_a_stop_not_answered_and_a_stopped_seat_that_discards():
    inference, st = _after_stop([K.D25, K.D50, K.D75, K.D100, K.GASOLINE, K.REPAIRS], False)
    # no Right of Way then (the coup fourré was not made), none now (it would have cured),
    # and no Roll (it would have played it)
    assert inference.lacks == {1: {K.RIGHT_OF_WAY: 0, K.ROLL: 0}}
    view = view_of(st, 0)
    rng = random.Random(2)
    for _ in range(100):
        deal = determinize(view, 0, rng, inference.lacks)
        assert not {KIND_OF[c] for c in deal.hands[1]} & {K.ROLL, K.RIGHT_OF_WAY}


def test_inference_a_cured_seat_only_showed_it_had_no_safety_then():
    inference, _ = _after_stop([K.ROLL, K.D50, K.D75, K.D100, K.GASOLINE, K.REPAIRS], True)
    # it has drawn one card since it passed the coup fourré: at most one Right of Way
    assert inference.lacks == {1: {K.RIGHT_OF_WAY: 1}}


def test_inference_is_never_wrong_about_the_built_in_bots():
    """Every fact inferred during search-vs-heuristic hands holds in the full state: what
    a hidden hand lacks, and the cards it took from the discard pile (modern, R4a)."""
    for rules, seating, opponent in [(CLASSIC, TWO, "heuristic"), (MODERN, TWO, "heuristic-v1"),
                                     (CLASSIC, Seating(4, 2), "heuristic")]:
        rng = random.Random(11)
        deck = list(rules.deck(seating))
        rng.shuffle(deck)
        state = new_hand(rules, seating, deck, 1)
        bots = [make_bot("search:playouts=4" if s % 2 == 0 else opponent, s)
                for s in range(seating.n_players)]
        facts = 0
        while not state.over:
            if state.phase == "reshuffle":
                state = apply_action(state, reshuffle_action(state, rng))
                continue
            seat = state.actors()[0]
            view = view_of(state, seat)
            action = bots[seat].choose(view, legal_actions(view, seat))
            if seat % 2 == 0 and state.phase == "play":
                for s, limits in bots[seat].inference.lacks.items():
                    for kind, most in limits.items():
                        facts += 1
                        assert sum(KIND_OF[c] is kind for c in state.hands[s]) <= most
                for s, cards in bots[seat].inference.holds.items():
                    assert cards <= set(state.hands[s])
            state = apply_action(state, action)
        assert facts > 0


def test_inference_a_card_taken_from_the_discard_pile_is_in_that_hand():
    """R4a (modern): seat 1 takes the card seat 0 threw away; seat 0 deals it to seat 1
    until it shows up again."""
    st = build(MODERN, TWO,
               hands={0: [K.D50, K.D25, K.D75, K.D100, K.GASOLINE, K.SPARE_TIRE, K.REPAIRS],
                      1: [K.D25, K.D75, K.D100, K.GASOLINE, K.REPAIRS, K.SPARE_TIRE]},
               zones={0: dict(battle=[K.ROLL]), 1: dict(battle=[K.ROLL])},
               pile_top=[K.D25, K.D50, K.D75], seat=0)
    inference = Inference()
    inference.observe(view_of(st, 0), 0)
    fifty = card(st, 0, K.D50)
    inference.played(Discard(0, fifty))
    st = apply_action(st, Discard(0, fifty))
    take = next(a for a in legal_actions(st, 1) if getattr(a, "source", "") == "discard")
    st = apply_action(st, take)
    assert fifty in st.hands[1]
    st = apply_action(st, Discard(1, card(st, 1, K.REPAIRS)))
    st = apply_action(st, legal_actions(st, 0)[0])
    inference.observe(view_of(st, 0), 0)
    assert inference.holds == {1: {fifty}}
    rng = random.Random(4)
    for _ in range(20):
        assert fifty in determinize(view_of(st, 0), 0, rng, inference.lacks,
                                    inference.holds).hands[1]


def test_fitted_value_keeps_a_safety_for_the_coup_fourre():
    """The leaf evaluation values a safety in hand at least as much as laid (a coup fourré
    may come; the bot lays it before the hand ends), more so early; and being stopped
    costs, less with the cure in hand."""
    from engine.bots import fitted_value
    for rules in (CLASSIC, MODERN):
        moving = dict(battle=[K.ROLL])
        held = build(rules, TWO, hands={0: [K.RIGHT_OF_WAY, K.D25, K.D50, K.D75, K.D100,
                                            K.GASOLINE, K.REPAIRS]},
                     zones={0: moving, 1: moving}, seat=0)
        laid = build(rules, TWO, hands={0: [K.D25, K.D25, K.D50, K.D75, K.D100,
                                            K.GASOLINE, K.REPAIRS]},
                     zones={0: dict(battle=[K.ROLL], safeties=[K.RIGHT_OF_WAY]), 1: moving},
                     seat=0)
        assert fitted_value(held)[0] > fitted_value(laid)[0]
        stopped = build(rules, TWO, hands={0: [K.D25, K.D50, K.D75, K.D100, K.GASOLINE,
                                               K.REPAIRS, K.D25]},
                        zones={0: dict(battle=[K.ROLL, K.STOP]), 1: moving}, seat=0)
        cure = build(rules, TWO, hands={0: [K.D25, K.D50, K.D75, K.D100, K.GASOLINE,
                                            K.REPAIRS, K.ROLL]},
                     zones={0: dict(battle=[K.ROLL, K.STOP]), 1: moving}, seat=0)
        assert fitted_value(stopped)[0] < fitted_value(cure)[0] < fitted_value(laid)[0]


def test_search_budget_halving_and_full_rollouts_at_the_extension():
    """``playouts=N`` spends about N rollouts on a searched play, with sequential halving
    (half on every candidate, half on the heuristic's choice and one challenger) or
    without; at the extension question (R12) every rollout plays the hand to its end."""
    searched = 0
    for state in _states(CLASSIC, TWO, 3, 30):
        view = view_of(state, state.seat)
        legal = legal_actions(view, state.seat)
        for halve in (0, 1):
            bot = make_bot(f"search:playouts=80:halve={halve}", 1)
            bot.choose(view, legal)
            for rollouts, horizon in bot.decision_rollouts:
                searched += 1
                assert 70 <= rollouts <= 80 and horizon == 20
    assert searched
    st = build(CLASSIC, TWO, hands={0: [K.D25, K.D50, K.D75, K.D100, K.GASOLINE, K.REPAIRS]},
               zones={0: dict(battle=[K.ROLL], distance=[K.D200, K.D200, K.D100, K.D100,
                                                         K.D100]),
                      1: dict(battle=[K.ROLL])}, phase="extend", seat=0)
    view = view_of(st, 0)
    bot = make_bot("search:playouts=8", 1)
    bot.choose(view, legal_actions(view, 0))
    assert [h for _, h in bot.decision_rollouts] == [600]


def test_search_without_discard_candidates_keeps_the_heuristics_discard():
    """``discards=0``: no discard challenges the heuristic's choice, so when that choice is
    a discard and nothing else made the shortlist, it is played without a search; when it
    is a play, the search never picks a discard instead."""
    from engine.bots import HeuristicBot

    checked = {"discard": 0, "play": 0}
    for state in _states(CLASSIC, TWO, 5, 60):
        view = view_of(state, state.seat)
        legal = legal_actions(view, state.seat)
        ranked = [(v, a) for v, a in HeuristicBot(1).ranked(view, legal) if v > -50.0][:4]
        if not ranked or ranked[0][0] >= 150.0:
            continue
        bot = make_bot("search:playouts=16:discards=0", 1)
        choice = bot.choose(view, legal)
        top = ranked[0][1]
        if type(top) is Discard and all(type(a) is Discard for _, a in ranked):
            checked["discard"] += 1
            assert choice == top and bot.decision_rollouts == []
        elif type(top) is Play:
            checked["play"] += 1
            assert type(choice) is Play
    assert checked["discard"] and checked["play"]
