"""Hypothesis properties of the engine over random seeds, rule options and seatings, with bots
choosing from views: termination (R4b, R13), card conservation (R1), legal = applicable,
hidden information (R9 no leak, views), determinism and serialisation."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import msgpack
from engine_helpers import leaked
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from engine import (
    CHANCE,
    KIND_OF,
    CoupFourre,
    Discard,
    Draw,
    Extend,
    FastRemedy,
    HandState,
    IllegalAction,
    Pass,
    Play,
    Reshuffle,
    Seating,
    apply_action,
    legal_actions,
    new_hand,
    preset,
    reshuffle_action,
    view_of,
)
from engine.bots import make_bot
from engine.cards import REMEDY_FOR, SAFETY_FOR
from engine.scoring import hand_winner, score_hand

SEATINGS = [Seating.solo(2), Seating.solo(3), Seating.solo(4), Seating.solo(5),
            Seating.solo(6), Seating(4, 2), Seating(6, 2), Seating(6, 3)]
BOOL_OPTIONS = ("draw_discard", "roll_after_remedy", "exact_finish", "extension",
                "remove_hazards", "stack_hazards", "attacker_started", "start_rolling",
                "fast_play", "extension_official")

FAST = settings(max_examples=120, deadline=None, derandomize=True,
                phases=[Phase.explicit, Phase.reuse, Phase.generate],
                suppress_health_check=[HealthCheck.too_slow])


@st.composite
def rule_sets(draw):
    """Either plain preset or a preset with a random combination of every option."""
    base = draw(st.sampled_from(["classic", "modern"]))
    if draw(st.booleans()):
        return preset(base)
    opts = {name: draw(st.booleans()) for name in BOOL_OPTIONS}
    opts["exhaustion"] = draw(st.sampled_from(["play_out", "reshuffle"]))
    opts["target"] = draw(st.sampled_from([0, 700, 1000]))
    opts["reshuffle_limit"] = draw(st.integers(0, 2))
    opts["max_turns"] = draw(st.sampled_from([40, 300, 1000]))
    return preset(base, **opts)


games = st.tuples(rule_sets(), st.sampled_from(SEATINGS), st.integers(0, 2**32 - 1),
                  st.lists(st.sampled_from(["random", "heuristic"]), min_size=6, max_size=6))


def step_bound(rules, seating):
    # every turn: a draw, a play, a response per partner, up to 7 refill draws, safety
    # extra turns (4) and automatic passes; generous but finite
    return rules.max_turns * (12 + seating.team_size) + 100


def play_out(rules, seating, seed, bot_names, on_step=None):
    """One bot hand; ``on_step(before, action, after)`` after every action."""
    dealer = random.Random(seed)
    deck = list(rules.deck(seating))
    dealer.shuffle(deck)
    state = new_hand(rules, seating, deck, dealer.randrange(seating.n_players))
    bots = [make_bot(bot_names[s], seed + 101 * s) for s in range(seating.n_players)]
    steps = 0
    actions = []
    while not state.over:
        if state.phase == "reshuffle":
            action = reshuffle_action(state, dealer)
        else:
            seat = state.actors()[0]
            view = view_of(state, seat)
            action = bots[seat].choose(view, legal_actions(view, seat))
        after = apply_action(state, action)
        if on_step is not None:
            on_step(state, action, after)
        state = after
        actions.append(action)
        steps += 1
        assert steps <= step_bound(rules, seating), "the hand does not terminate"
    return state, actions, deck


def all_cards(state: HandState) -> list[int]:
    out: list[int] = []
    for h in state.hands:
        out.extend(h)
    out.extend(state.pile)
    out.extend(state.discard)
    for z in state.zones:
        out.extend(z.battle + z.speed + z.distance + z.safeties)
    return out


# ----- termination and conservation ----------------------------------------------------------

@FAST
@given(games)
def test_prop_R4b_R13_every_hand_ends_and_R1_cards_are_conserved(game):
    rules, seating, seed, names = game
    deck_sorted = sorted(rules.deck(seating))

    def check(before, action, after):
        assert sorted(all_cards(after)) == deck_sorted, f"cards lost or doubled by {action}"
        for z in after.zones:
            assert set(z.coups) <= set(z.safeties)
            assert z.n200 <= 2
            if rules.exact_finish:
                assert z.km <= after.target
        assert after.turns <= rules.max_turns
        if not after.over:
            assert after.actors(), "a live state must have someone to act"

    final, actions, _ = play_out(rules, seating, seed, names, check)
    assert final.over and final.end_reason in ("trip", "exhausted", "turn_limit")
    if final.end_reason == "trip":
        assert final.zones[final.completed_by].km >= final.target
    if final.end_reason == "exhausted":
        assert all(final.hand_size(s) == 0 for s in range(seating.n_players))
    # R13-R15: the result and the points agree with the final zones
    winner = hand_winner(final)
    if final.completed_by >= 0:
        assert winner == final.completed_by
    else:
        assert -1 <= winner < seating.n_teams
    scores = score_hand(final)
    assert len(scores) == seating.n_teams
    for side, (z, sc) in enumerate(zip(final.zones, scores, strict=True)):
        assert sc.distance == z.km
        if rules.scoring == "modern":
            assert sc.total == z.km + 100 * len(z.safeties) + 100 * len(z.coups)
        else:
            assert sc.safeties == 100 * len(z.safeties)
            assert sc.coups_fourres == 300 * len(z.coups)
            assert (sc.trip == 400) == (side == final.completed_by)
            assert sc.all_safeties == (300 if len(z.safeties) == 4 else 0)


# ----- legal = applicable --------------------------------------------------------------------

def _plausible(state: HandState, seat: int) -> list:
    """Every card x target Play/Discard, answer and draw a seat might try now."""
    out: list = [Pass(seat), Extend(seat, True), Extend(seat, False)]
    top = state.pile[-1] if state.pile else None
    out.append(Draw(seat, "pile", top))
    if state.discard:
        out.append(Draw(seat, "discard", state.discard[-1]))
    else:
        out.append(Draw(seat, "discard", None))
    for c in state.hand(seat):
        out.append(Discard(seat, c))
        out.append(CoupFourre(seat, c))
        out.append(FastRemedy(seat, c))
        for t in (None, *range(len(state.zones))):
            out.append(Play(seat, c, t))
    return out


def _sampled_states(game, every=4):
    rules, seating, seed, names = game
    picked: list[HandState] = []
    counter = [0]

    def keep(before, action, after):
        counter[0] += 1
        if counter[0] % every == 0 or before.phase in ("respond", "extend"):
            picked.append(before)

    play_out(rules, seating, seed, names, keep)
    return picked


@FAST
@given(games)
def test_prop_listed_actions_all_apply(game):
    """R4-R12: every listed legal action applies without error (and views list as many)."""
    for state in _sampled_states(game):
        for seat in state.actors():
            if seat == CHANCE:
                continue
            for a in legal_actions(state, seat):
                apply_action(state, a)   # must not raise
            # the same lists in the seat's own view
            view = view_of(state, seat)
            listed = legal_actions(view, seat)
            assert len(listed) == len(legal_actions(state, seat))


@settings(FAST, max_examples=40)
@given(games)
def test_prop_unlisted_plausible_actions_are_refused(game):
    """R4-R12: every card x target Play/Discard (and answer, draw, extension) that the actor's legal
    list does not hold raises IllegalAction; so does anything by a seat that may not act."""
    for state in _sampled_states(game, every=9):
        before = state.digest()
        actors = [s for s in state.actors() if s != CHANCE]
        idle = [s for s in range(state.seating.n_players) if s not in actors][:1]
        for seat in actors + idle:
            listed = set(legal_actions(state, seat)) if seat in actors else set()
            for a in _plausible(state, seat):
                if a in listed:
                    continue
                try:
                    apply_action(state, a)
                except IllegalAction:
                    continue
                raise AssertionError(f"{a} applies in phase {state.phase} but is not listed")
        assert state.digest() == before


@FAST
@given(games)
def test_prop_R9_response_window_lists_pass_for_every_responder(game):
    rules = game[0]
    for state in _sampled_states(game, every=10**9):
        if state.phase != "respond":
            continue
        hazard = KIND_OF[state.attack.card]
        assert set(state.actors()) <= set(state.seating.seats_of(state.attack.side))
        for seat in state.actors():
            acts = legal_actions(state, seat)
            assert acts[0] == Pass(seat)
            hand = state.hand(seat)
            holds = any(KIND_OF[c] is SAFETY_FOR[hazard] for c in hand)
            has_remedy = any(KIND_OF[c] is REMEDY_FOR[hazard] for c in hand)
            for a in acts[1:]:
                assert (isinstance(a, CoupFourre) and KIND_OF[a.card] is SAFETY_FOR[hazard]) \
                    or (isinstance(a, FastRemedy) and rules.fast_play
                        and KIND_OF[a.card] is REMEDY_FOR[hazard])
            if not holds and not (rules.fast_play and has_remedy):
                assert acts == [Pass(seat)]        # nothing to answer with: exactly Pass
            if not rules.fast_play:
                assert any(isinstance(a, CoupFourre) for a in acts) == holds


# ----- hidden information --------------------------------------------------------------------

def _redact(action, viewer, before):
    if isinstance(action, Draw) and action.source == "pile":
        if action.seat == viewer:
            return Draw(viewer, "pile", before.pile[-1])
        return Draw(action.seat, "pile", None)
    if isinstance(action, Reshuffle):
        return Reshuffle(action.seat, None)
    return action


@FAST
@given(games)
def test_prop_views_evolve_like_the_full_state(game):
    """R2a/R9 hidden information: a view updated with redacted actions (others' pile draws without the card, reshuffles
    without the order) equals the view of the full state at every step."""
    rules, seating, seed, names = game
    n = seating.n_players
    views: list[HandState] = []

    def check(before, action, after):
        if not views:
            views.extend(view_of(before, s) for s in range(n))
        for s in range(n):
            views[s] = apply_action(views[s], _redact(action, s, before))
            expect = view_of(after, s)
            if views[s] != expect:
                diff = [f for f in HandState._fields
                        if getattr(views[s], f) != getattr(expect, f)]
                raise AssertionError(f"seat {s}'s view differs after {action}: {diff}")

    play_out(rules, seating, seed, names, check)


@FAST
@given(games)
def test_prop_R9_views_never_leak(game):
    """No view shows a card id of another seat's hand or of the draw pile."""
    rules, seating, seed, names = game

    def check(before, action, after):
        assert leaked(after) == {}, f"hidden cards visible after {action}"

    play_out(rules, seating, seed, names, check)


# ----- determinism and serialisation ---------------------------------------------------------

@settings(max_examples=15, deadline=None, derandomize=True,
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(games)
def test_prop_determinism_same_seed_same_digests(game):
    """R3/R4b determinism: the same seed gives the same digest after every action."""
    rules, seating, seed, names = game
    trail1: list[str] = []
    trail2: list[str] = []
    play_out(rules, seating, seed, names, lambda b, a, s: trail1.append(s.digest()))
    play_out(rules, seating, seed, names, lambda b, a, s: trail2.append(s.digest()))
    assert trail1 == trail2


@settings(FAST, max_examples=50)
@given(games)
def test_prop_serialisation_round_trip_at_random_states(game):
    """Serialisation (full states and R2a views) round-trips at random states of every option set."""
    for state in _sampled_states(game, every=6):
        data = msgpack.unpackb(msgpack.packb(state.to_data()))
        back = HandState.from_data(data)
        assert back == state and back.digest() == state.digest()
        assert HandState.from_data(json.loads(json.dumps(state.to_data()))) == state
        for s in state.actors():
            if s == CHANCE:
                continue
            v = view_of(state, s)
            assert HandState.from_data(msgpack.unpackb(msgpack.packb(v.to_data()))) == v


_DIGEST_SCRIPT = """
import json, random, sys
sys.path.insert(0, {tests!r})
from engine import preset, Seating
from test_engine_properties import play_out
out = []
for name, seating, seed in [("classic", Seating.solo(2), 1), ("modern", Seating(4, 2), 2),
                            ("classic", Seating(6, 3), 3), ("modern", Seating.solo(3), 4)]:
    rules = preset(name, fast_play=seed % 2 == 0)
    final, actions, deck = play_out(rules, seating, seed, ["heuristic", "random"] * 3)
    out.append(final.digest())
print(json.dumps(out))
"""


def test_prop_digest_independent_of_PYTHONHASHSEED():
    """R3/R4b determinism across processes: digests do not depend on PYTHONHASHSEED."""
    tests_dir = str(Path(__file__).parent)
    root = str(Path(__file__).parent.parent)
    script = _DIGEST_SCRIPT.format(tests=tests_dir)
    results = []
    for hs in ("0", "12345", "987654"):
        env = {**os.environ, "PYTHONHASHSEED": hs,
               "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              env=env, cwd=root, timeout=120, check=False)
        assert proc.returncode == 0, proc.stderr
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert results[0] == results[1] == results[2]
