"""What an outside bot author needs from the view, and gets (review as a bot author).

A bot that counts cards, reads a refusal of a coup fourré or remembers who discarded what
had only snapshots at its own decisions: a Pass at a coup fourré question, a partner's
discard before a reshuffle or a draw from the discard pile were nowhere in its view, and
``engine.cards.COUNTS`` (the documented deck) is not this hand's deck at two or three
players (R1a). The view now carries the hand's public history and the unseen counts."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from engine import (
    CLASSIC,
    MODERN,
    Draw,
    Kind,
    Pass,
    Reshuffle,
    Seating,
    apply_action,
    kind,
    legal_actions,
    make_bot,
    new_hand,
    new_view,
    public_action,
    reshuffle_action,
    view_of,
)
from engine.cards import COUNTS
from engine.testing import install_plugin

TWO = Seating.solo(2)
TEAMS = Seating(4, 2)


def _hand(rules, seating, seed, steps=10_000):
    """A full-information hand played by heuristics; yields (state, action) per move."""
    rng = random.Random(seed)
    order = list(rules.deck(seating))
    rng.shuffle(order)
    state = new_hand(rules, seating, order, seed % seating.n_players)
    bots = [make_bot("heuristic", s) for s in range(seating.n_players)]
    for _ in range(steps):
        if state.over:
            return
        if state.phase == "reshuffle":
            action = reshuffle_action(state, rng)
        else:
            seat = state.actors()[0]
            action = bots[seat].choose(view_of(state, seat), legal_actions(state, seat))
        yield state, action
        state = apply_action(state, action)


@pytest.mark.parametrize("rules,seating", [(CLASSIC, TWO), (MODERN, TEAMS)])
def test_every_seats_view_holds_the_hands_public_history(rules, seating) -> None:
    """Every move of the hand so far is in every seat's view, the same for all, a draw
    from the pile without its card (it was hidden), a reshuffle without its order."""
    played = []
    for state, action in _hand(rules, seating, 5):
        views = [view_of(state, s) for s in range(seating.n_players)]
        assert all(v.history == tuple(played) for v in views)
        played.append(public_action(state, action))
    assert len(played) > 30
    draws = [a for a in played if isinstance(a, Draw) and a.source == "pile"]
    assert draws and all(a.card is None for a in draws)


def test_a_pass_at_a_coup_fourre_question_and_a_discard_draw_stay_in_the_history() -> None:
    """A refusal (Pass) tells that seat held no safety then, and a card taken from the
    discard pile (R4a) is in the taker's hand: both public, both kept, after a
    reshuffle (R4b) too, which empties the discard pile the bot could read before."""
    rules = replace(MODERN, draw_discard=True, exhaustion="reshuffle")
    for seed in range(40):
        moves = list(_hand(rules, TEAMS, seed))
        last_state, last = moves[-1]
        final = apply_action(last_state, last)
        kinds = {type(a) for a in final.history}
        if Pass in kinds and Reshuffle in kinds and any(
                isinstance(a, Draw) and a.source == "discard" for a in final.history):
            break
    else:
        pytest.skip("no hand with a pass, a reshuffle and a discard draw")
    taken = [(s, a) for s, a in moves if isinstance(a, Draw) and a.source == "discard"]
    for s, a in taken:   # the discard draw names the card that was on top
        assert public_action(s, a).card == s.discard[-1]
    discards = [a.card for a in final.history if type(a).__name__ == "Discard"]
    assert len(discards) > len(final.discard)     # more than the discard pile still shows
    assert view_of(final, 1).history == final.history


def test_a_seats_own_view_followed_move_by_move_has_the_same_history() -> None:
    """A networked peer never holds the full state: it applies each move to its own
    view (another seat's draw without its card). Its history is the same as everyone's."""
    rules = replace(MODERN, exhaustion="reshuffle")
    moves = list(_hand(rules, TWO, 11))
    first, _ = moves[0]
    view = new_view(rules, TWO, 1, first.hand(1), first.first_seat)
    for _state, action in moves:
        if isinstance(action, Draw) and action.seat != 1:
            action = action._replace(card=None) if action.source == "pile" else action
        if isinstance(action, Reshuffle):
            action = Reshuffle(action.seat, None)
        view = apply_action(view, action)
    final = apply_action(*moves[-1])
    assert view.history == final.history


@pytest.mark.parametrize("rules,seating", [(CLASSIC, TWO), (CLASSIC, Seating.solo(3)),
                                           (MODERN, TWO), (MODERN, TEAMS)])
def test_unseen_counts_this_hands_deck_not_the_full_one(rules, seating) -> None:
    """R1a: at two or three players in classic rules the deck has fewer hazards than
    COUNTS; ``unseen()`` counts what is in the pile or a hidden hand, exactly."""
    for state, _ in _hand(rules, seating, 3, steps=25):
        view = view_of(state, 0)
        unseen = view.unseen()
        hidden = Counter(kind(c) for c in state.pile) if not isinstance(state.pile, int) \
            else Counter()
        for s in range(1, seating.n_players):
            hidden.update(kind(c) for c in state.hand(s))
        assert unseen == {k: hidden.get(k, 0) for k in Kind}
    deal = view_of(next(_hand(rules, seating, 3))[0], 0)
    fewer = sum(deal.unseen().values()) + 6 < sum(COUNTS.values())
    assert fewer == (rules.remove_hazards and seating.n_players <= 3)


RECORDER = '''
from engine import Pass

class Reader:
    """Plays legal[...] by the history's length: the view must carry it."""
    def choose(self, view, legal):
        if view.turns > 3 and not view.history:
            raise RuntimeError("no history in the view")
        return legal[len(view.history) % len(legal)]

def make(seed, **options):
    return Reader()
'''


def test_a_plugin_in_its_own_process_reads_the_history(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """At a networked table a plug-in thinks in a child process sent only its view: the
    history goes with it."""
    from cli.bot_process import BotProcess
    install_plugin(tmp_path, "mb_reader", RECORDER, {"histreader": "make"})
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    moves = list(_hand(CLASSIC, TWO, 2, steps=12))
    state = apply_action(*moves[-1])
    seat = state.actors()[0]
    view, legal = view_of(state, seat), legal_actions(state, seat)
    bot = BotProcess("histreader", 1, answer_within=20.0)
    try:
        got = bot.choose(view, legal)
        assert bot.fault is None, bot.fault
        assert got == legal[len(state.history) % len(legal)]
        assert bot.fault is None
    finally:
        bot.close()


ALIASER = '''
from engine import Family, Kind, Play, family, kind
from engine.cards import COUNTS, DISTANCE_VALUE

class Aliaser:
    """Counts cards down in what it takes for a copy of COUNTS (the engine's own table,
    named, not copied), and sets the 200s it will not play to 0 km in DISTANCE_VALUE."""
    def choose(self, view, legal):
        left = COUNTS
        for c in view.public_cards():
            left[kind(c)] = max(0, left[kind(c)] - 1)
        values = DISTANCE_VALUE
        values[Kind.D200] = 0
        plays = [a for a in legal if isinstance(a, Play) and a.target is None
                 and family(a.card) is Family.DISTANCE]
        return max(plays, key=lambda a: values[kind(a.card)]) if plays else legal[-1]

def make(seed, **options):
    return Aliaser()
'''


def _millebornes(tmp_path: Path, *argv: str):
    import os
    import subprocess
    import sys
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(root)]),
           "XDG_DATA_HOME": str(tmp_path / "data")}
    return subprocess.run([sys.executable, "-m", "cli.main", *argv], capture_output=True,
                          text=True, env=env, cwd=str(root), timeout=120)


def test_a_bot_that_writes_into_the_engines_card_tables_is_the_one_named(
        tmp_path: Path) -> None:
    """The documented tables (COUNTS, DISTANCE_VALUE, ...) were the engine's own dicts: a
    bot that counted down in ``left = COUNTS`` changed the rules of its process, and
    ``simulate`` stopped saying the built-in heuristic "raised IndexError". The tables are
    read-only: the plug-in's own call raises, and it alone is named."""
    import engine.cards as cards
    with pytest.raises(TypeError):
        cards.COUNTS[Kind.D25] = 0  # type: ignore[index]
    with pytest.raises(TypeError):
        cards.DISTANCE_VALUE[Kind.D200] = 0  # type: ignore[index]
    install_plugin(tmp_path, "mb_aliaser", ALIASER, {"aliaser": "make"})
    done = _millebornes(tmp_path, "simulate", "--bots", "aliaser,heuristic", "--games", "3")
    assert "bot aliaser at seat 0 failed to move" in done.stderr + done.stdout, done.stderr
    assert "heuristic at seat 1 failed" not in done.stderr + done.stdout
    assert "Traceback" not in done.stderr
    done = _millebornes(tmp_path, "tournament", "--bots", "aliaser,heuristic", "--deals", "2")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "aliaser failed to move and forfeited" in done.stdout, done.stdout
    assert "heuristic failed" not in done.stdout


class _Counter:
    """A card-counting bot written from docs/bots.md alone: it reads what a seat may know
    from its view (no memory of its own), checking on every call that the view adds up."""

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, view, legal):
        from engine import CoupFourre, Discard, Extend, FastDiscard, FastRemedy, Play, family
        from engine.cards import DISTANCE_VALUE, Family
        self.calls += 1
        me = view.viewer
        side = view.side_of(me)
        assert me in view.seating.seats_of(side)
        unseen = view.unseen()
        hidden = sum(view.hand_size(s) for s in range(view.seating.n_players) if s != me)
        assert sum(unseen.values()) == view.pile_size() + hidden
        named = set()
        for a in view.history:
            if isinstance(a, (Discard, Play)):
                named.add(a.card)
            elif isinstance(a, FastDiscard):
                named.update(a.cards)
        assert set(view.discard) <= named       # every face-up discard was seen played
        if view.phase == "respond":
            last = [a for a in view.history if isinstance(a, Play)][-1]
            assert view.attack is not None and view.attack.card == last.card
            coup = [a for a in legal if isinstance(a, (CoupFourre, FastRemedy))]
            return coup[0] if coup else legal[0]
        if view.phase == "extend":
            pile_rich = view.pile_size() > 15
            return next(a for a in legal if isinstance(a, Extend) and a.extend == pile_rich)
        plays = [a for a in legal if isinstance(a, Play)]
        for a in plays:
            if a.target is None and family(a.card) is Family.REMEDY:
                return a
        attacks = [a for a in plays if a.target is not None]
        if attacks:
            return max(attacks, key=lambda a: view.zones[a.target].km)
        dist = [a for a in plays if a.target is None and family(a.card) is Family.DISTANCE]
        if dist:
            return max(dist, key=lambda a: DISTANCE_VALUE[kind(a.card)])
        discards = [a for a in legal if isinstance(a, Discard)
                    and family(a.card) is not Family.SAFETY]   # safeties held for a coup
        return discards[0] if discards else legal[0]


@pytest.mark.parametrize("rules,seating", [(CLASSIC, TWO), (CLASSIC, TEAMS), (MODERN, TWO),
                                           (MODERN, TEAMS)])
def test_a_card_counting_bot_reads_a_consistent_view_in_every_format(rules, seating) -> None:
    """Classic and modern, two players and 2x2 teams: the history, the unseen counts, the
    attack being answered and the partners agree with what the view shows, every call."""
    from engine.simulate import play_match
    counters = [_Counter() for _ in range(seating.n_players // 2)]
    bots = []
    for s in range(seating.n_players):
        bots.append(counters[s // 2] if s % 2 == 0 else make_bot("heuristic", s))
    rules = replace(rules, match_target=min(rules.match_target, 2000))
    rec = play_match(rules, seating, bots, seed=21, max_hands=3)
    assert rec.hands and all(c.calls > 20 for c in counters)


def test_a_look_alike_of_a_legal_move_is_told_what_it_is() -> None:
    """A plain tuple with a legal move's fields (a move kept as data) and a move built for
    seat 0 by a bot that plays seat 1 were "not a legal move now", the fields looking
    right: the fault now says what the answer was and what to return."""
    from engine import BotFailed, Discard, Play
    from engine.simulate import checked_choice
    states = [s for s, a in _hand(CLASSIC, TWO, 4) if s.phase == "play" and s.seat == 1]
    state = states[2]
    view, legal = view_of(state, 1), legal_actions(state, 1)
    move = next(a for a in legal if isinstance(a, (Discard, Play)))
    for answer, words in [
            (tuple(move), f"a plain tuple with the fields of {type(move).__name__}: "
                          "return the move itself"),
            (list(move), f"a plain list with the fields of {type(move).__name__}"),
            (move._replace(seat=0), "the move of seat 0: this bot plays seat 1, view.viewer")]:
        with pytest.raises(BotFailed) as caught:
            checked_choice(lambda v, lg, a=answer: a, view, legal, 1)
        assert words in str(caught.value), str(caught.value)
    # a move of another seat that would not be legal for this one either: no such hint
    with pytest.raises(BotFailed) as caught:
        checked_choice(lambda v, lg: Play(0, 200, None), view, legal, 1)
    assert "the move of seat" not in str(caught.value)
    assert checked_choice(lambda v, lg: move._replace(), view, legal, 1) is move
