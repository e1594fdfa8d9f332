"""The search bot's fast path (:mod:`engine._rollout_sim`) against the engine, move by move.

Hands of every supported rule set and seating are played through both at once: at every
step the fast simulator's legal moves must be the engine's legal actions, the same list
in the same order (the rollout policy draws one random number per legal play and discard,
in that order, so the order is part of what must agree), and its state, turned back into a
``HandState``, must equal the engine's field for field (hands, piles, zones, phase, seat,
pending draws, attack, turn count, extension and end of hand). Moves are chosen at
random, by the heuristic bot and by the rollout policy, so that coups fourres, the
extension question (R12), exhausted piles and reshuffles (R4b) and the turn bound all
come up; the options the presets leave off are switched on at random as well.
"""

from __future__ import annotations

import random

import pytest

from engine import (
    CLASSIC,
    MODERN,
    OVER,
    Draw,
    HandState,
    Rules,
    Seating,
    apply_action,
    legal_actions,
    new_hand,
    reshuffle_action,
    score_hand,
    view_of,
)
from engine.bots import (
    RandomBot,
    RolloutSim,
    make_bot,
    move_of,
    outcome,
    play_on,
    random_hand,
    rollout,
    rollout_choice,
    supported,
    to_action,
)
from engine.simulate import play_hand

SEATINGS = [Seating.solo(2), Seating.solo(3), Seating(4, 2)]
RULE_SETS = [CLASSIC, MODERN, MODERN.with_options(fast_play=True)]
#: Tables the search bot rarely sits at, played in the mixed rule sets.
BIG_TABLES = [Seating.solo(5), Seating.solo(6), Seating(6, 2), Seating(6, 3)]
#: The options neither preset uses, switched on at random in the "mixed" rule sets.
OPTIONS = ("stack_hazards", "attacker_started", "start_rolling", "extension_official")


def _game(state):
    """The position without its record (``history``): the fast simulator plays the game and
    keeps the history of the state it started from, which no rule and no rollout reads."""
    return state._replace(history=())


def _mixed(rng: random.Random) -> Rules:
    """A rule set with every supported option drawn at random (and a low turn bound now
    and then, so that hands end at it)."""
    base = rng.choice([CLASSIC, MODERN])
    changes: dict[str, object] = {name: rng.random() < 0.5 for name in OPTIONS}
    # (random moves under O-fast-play are mostly fast discards, R10b: hands that rarely
    # reach the trip; a third of the rule sets is enough)
    changes["fast_play"] = rng.random() < 0.3
    for name in ("draw_discard", "roll_after_remedy", "exact_finish", "extension",
                 "remove_hazards"):
        changes[name] = rng.random() < 0.5
    changes["exhaustion"] = rng.choice(["play_out", "reshuffle"])
    changes["target"] = rng.choice([0, 700, 1000])
    changes["reshuffle_limit"] = rng.choice([0, 1, 2])
    changes["max_turns"] = rng.choice([1000, 1000, rng.randrange(10, 80)])
    return base.with_options(**changes)


def _engine_move(state: HandState, seat: int, how: str, rng: random.Random,
                 bots: dict[int, object]) -> object:
    legal = legal_actions(state, seat)
    if how == "random":
        return legal[rng.randrange(len(legal))]
    if how == "rollout":
        return rollout_choice(state, legal, rng)
    bot = bots.setdefault(seat, make_bot("heuristic", seat))
    view = view_of(state, seat)
    return bot.choose(view, legal_actions(view, seat))  # type: ignore[attr-defined]


def _blank(action: object) -> object:
    """The engine names the card of a draw from the pile in a full state; a move does not."""
    if isinstance(action, Draw):
        return action._replace(card=None)
    return action


def play_both(rules: Rules, seating: Seating, seed: int,
              how: str) -> tuple[int, HandState, set[str]]:
    """One hand through the engine and the fast simulator side by side (see the module
    docstring); the number of moves compared and the final state."""
    rng = random.Random(seed)
    deck = list(rules.deck(seating))
    rng.shuffle(deck)
    return play_on_both(new_hand(rules, seating, deck, seed % seating.n_players), how, rng)


def play_on_both(state: HandState, how: str,
                 rng: random.Random) -> tuple[int, HandState, set[str]]:
    """The hand from ``state`` to its end through both, compared at every move; the number
    of moves, the final state and the kinds of action played."""
    assert supported(state)
    sim = RolloutSim(state)
    bots: dict[int, object] = {}
    steps = 0
    kinds: set[str] = set()
    while state.phase != OVER:
        if state.phase == "reshuffle":
            assert sim.actor() == -1
            action = reshuffle_action(state, rng)
            assert action.order is not None
            sim.reshuffle(list(action.order))
        else:
            seat = state.actors()[0]
            assert sim.actor() == seat
            moves = sim.legal_moves(seat)
            legal = legal_actions(state, seat)
            assert moves == [move_of(a) for a in legal], (steps, state)
            assert [to_action(seat, m) for m in moves] == [_blank(a) for a in legal]
            action = _engine_move(state, seat, how, rng, bots)  # type: ignore[assignment]
            sim.apply(seat, move_of(action))
        state = apply_action(state, action)
        kinds.add(type(action).__name__)
        assert _game(sim.to_state()) == _game(state), (steps, action)
        if steps % 7 == 0:  # a simulator started anywhere in the hand agrees too
            assert RolloutSim(state).to_state() == state
        steps += 1
    assert score_hand(sim.to_state()) == score_hand(state)
    return steps, state, kinds


CASES = [(name, rules, seating) for name, rules in (
    ("classic", CLASSIC), ("modern", MODERN), ("modern-fast", RULE_SETS[2]))
    for seating in SEATINGS]


@pytest.mark.parametrize(("name", "rules", "seating"), CASES,
                         ids=[f"{n}-{s.label()}{s.n_players}" for n, _, s in CASES])
@pytest.mark.parametrize("how", ["random", "heuristic", "rollout"])
def test_the_presets_play_move_by_move_as_the_engine(name: str, rules: Rules,
                                                     seating: Seating, how: str) -> None:
    """Every move of whole hands of both presets (and modern with O-fast-play), in 2, 3 and
    4 (2x2) player games."""
    ends: set[str] = set()
    for seed in range(6 if how != "heuristic" else 2):
        steps, final, _ = play_both(rules, seating, seed, how)
        assert steps > 20
        ends.add(final.end_reason)
    assert ends <= {"trip", "exhausted", "turn_limit"}


def test_mixed_rule_sets_play_move_by_move_as_the_engine() -> None:
    """Rule sets with the options drawn at random, at every table size (teams of 2 and 3
    too); between them they reach coups fourres, fast remedies and discards, extensions,
    reshuffles and every way a hand ends."""
    rng = random.Random(2024)
    seen: set[str] = set()
    for seed in range(60):
        rules = _mixed(rng)
        seating = rng.choice(SEATINGS + BIG_TABLES)
        how = rng.choice(["random", "random", "rollout"])
        _, final, kinds = play_both(rules, seating, seed, how)
        seen.add(final.end_reason)
        seen.update(kinds)
        if final.extended_by >= 0:
            seen.add("extended")
        if final.reshuffles:
            seen.add("reshuffled")
        if any(z.coups for z in final.zones):
            seen.add("coup")
    assert seen >= {"trip", "exhausted", "turn_limit", "extended", "reshuffled", "coup",
                    "FastRemedy", "FastDiscard"}


def _positions(rules: Rules, seating: Seating, seed: int) -> list[HandState]:
    """Every state of a random hand."""
    rng = random.Random(seed)
    deck = list(rules.deck(seating))
    rng.shuffle(deck)
    state = new_hand(rules, seating, deck, 0)
    out = [state]
    while state.phase != OVER:
        if state.phase == "reshuffle":
            state = apply_action(state, reshuffle_action(state, rng))
        else:
            legal = legal_actions(state, state.actors()[0])
            state = apply_action(state, legal[rng.randrange(len(legal))])
        out.append(state)
    return out


def test_the_policy_chooses_and_draws_as_rollout_choice() -> None:
    """At every play of many hands the fast policy picks ``rollout_choice``'s move and
    leaves the random generator in the same state."""
    plays = 0
    for i, (rules, seating) in enumerate([(r, s) for r in RULE_SETS for s in SEATINGS]):
        for seed in range(4):
            for state in _positions(rules, seating, 100 * i + seed):
                if state.phase != "play":
                    continue
                a, b = random.Random(plays), random.Random(plays)
                expected = rollout_choice(state, legal_actions(state, state.seat), a)
                move = RolloutSim(state).policy_play(state.seat, b.random)
                assert to_action(state.seat, move) == expected
                assert a.getstate() == b.getstate()
                plays += 1
    assert plays > 500


@pytest.mark.slow    # 14 s: every rule set and seating at three horizons (the default run's budget)
def test_rollouts_end_where_the_engine_rollout_ends() -> None:
    """The search's rollout from a state: the fast path and the engine path reach the same
    state with the same random generator state, at every horizon the search uses."""
    for i, (rules, seating) in enumerate([(r, s) for r in RULE_SETS for s in SEATINGS]):
        for state in _positions(rules, seating, 7 + i)[::5]:
            for horizon in (20, 30, 600):
                a, b = random.Random(horizon), random.Random(horizon)
                sim = RolloutSim(state)
                sim.rollout(b, horizon)
                assert _game(sim.to_state()) == _game(play_on(state, a, horizon))
                assert a.getstate() == b.getstate()
                side = state.seat % seating.n_teams
                for fitted in (False, True):
                    a = random.Random(1)
                    assert rollout(state, side, random.Random(1), horizon, fitted) == \
                        outcome(play_on(state, a, horizon), side, fitted)


def test_what_the_fast_path_leaves_to_the_engine() -> None:
    """A seat's view (hidden hands, a pile of unknown order) is not played by the
    simulator."""
    state = _positions(CLASSIC, Seating.solo(2), 1)[3]
    assert supported(state)
    assert not supported(view_of(state, 0))
    with pytest.raises(ValueError):
        RolloutSim(view_of(state, 0))


@pytest.mark.parametrize(("rules", "seating"), [(CLASSIC, Seating.solo(2)),
                                                (MODERN, Seating.solo(4)), (MODERN, Seating(4, 2))])
def test_the_benchmark_plays_the_engine_benchmark_hands(rules: Rules, seating: Seating) -> None:
    """``random_hand`` (the fast path's figure in ``millebornes bench engine``) plays the
    very hands ``play_hand`` plays with random bots from the same generators."""
    dealer, dealer2 = random.Random(1), random.Random(1)
    bots = [RandomBot(1 + s) for s in range(seating.n_players)]
    rngs = [random.Random(1 + s) for s in range(seating.n_players)]
    for i in range(8):
        rec = play_hand(rules, seating, bots, dealer, i % seating.n_players)
        final, moves = random_hand(rules, seating, rngs, dealer2, i % seating.n_players)
        assert _game(final) == _game(rec.final) and moves == len(rec.actions)


def test_exhausted_piles_play_on_as_the_engine() -> None:
    """Positions with the draw pile nearly gone (its cards moved under the discard pile),
    with and without progress since the last reshuffle and at every count of idle
    reshuffles: the pile runs out, is reshuffled or not (R4b), and hands end exhausted."""
    rng = random.Random(77)
    ends: set[str] = set()
    reshuffled = 0
    for i in range(80):
        rules = MODERN.with_options(reshuffle_limit=rng.choice([0, 1, 2]),
                                    exhaustion=rng.choice(["reshuffle", "reshuffle",
                                                           "play_out"]))
        seating = rng.choice(SEATINGS)
        states = [s for s in _positions(rules, seating, 300 + i) if s.phase in ("draw", "play")]
        state = rng.choice(states[: len(states) // 2 + 1])
        pile = state.pile
        assert isinstance(pile, tuple)
        keep = rng.randrange(0, 3)
        state = state._replace(
            pile=pile[len(pile) - keep:], discard=pile[:len(pile) - keep] + state.discard,
            progress=rng.random() < 0.3,
            idle_reshuffles=rng.randrange(0, rules.reshuffle_limit + 2))
        if not state.pile and state.phase == "draw":
            continue  # (the engine settles such a state before anyone sees it)
        _, final, _ = play_on_both(state, rng.choice(["random", "rollout"]), rng)
        ends.add(final.end_reason)
        reshuffled += final.reshuffles > state.reshuffles
    assert "exhausted" in ends and reshuffled > 10


def test_bench_engine_reports_the_fast_path_beside_the_engine(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``millebornes bench engine --json`` keeps its keys and adds the fast path's figure."""
    import json

    from cli.main import main

    assert main(["bench", "engine", "--seconds", "0.05", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"classic_2p", "modern_4p", "classic_2p_fast_path", "engine_build"} <= set(data)
    assert data["classic_2p_fast_path"]["hands_per_second"] > 0
