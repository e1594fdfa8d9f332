"""The strong bots of issue 12: ``heuristic`` (card counting), ``search`` (determinized
rollouts), the frozen ``heuristic-v1``, bot specs with options, levels and plug-in bots."""

from __future__ import annotations

import random
import sys
from importlib.metadata import entry_points

import pytest
from engine_helpers import K, build, card, kinds
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    CLASSIC,
    MODERN,
    Discard,
    Draw,
    Extend,
    HandState,
    Play,
    Seating,
    apply_action,
    legal_actions,
    new_hand,
    reshuffle_action,
    view_of,
)
from engine.bots import (
    LEVELS,
    HeuristicBot,
    HeuristicV1Bot,
    SearchBot,
    bot_names,
    make_bot,
    parse_bot_spec,
)
from engine.simulate import play_hand, play_match
from engine.testing import install_plugin

TWO = Seating.solo(2)
SPECS = ["random", "heuristic-v1", "heuristic", "search:playouts=8"]


def _other_world(state: HandState, seat: int, rng: random.Random) -> HandState:
    """A full state that gives ``seat`` exactly the same view as ``state``: the cards
    hidden from the seat (other hands, the draw pile) dealt differently."""
    mine = state.hand(seat)
    hidden = [c for s, h in enumerate(state.hands) if s != seat for c in h]  # type: ignore[union-attr]
    hidden += list(state.pile)  # type: ignore[arg-type]
    rng.shuffle(hidden)
    hands, at = [], 0
    for s, h in enumerate(state.hands):
        if s == seat:
            hands.append(mine)
        else:
            hands.append(tuple(sorted(hidden[at:at + len(h)])))  # type: ignore[arg-type]
            at += len(h)  # type: ignore[arg-type]
    return state._replace(hands=tuple(hands), pile=tuple(hidden[at:]))


class ViewOnly:
    """Checks a bot is only ever shown its own seat's view, and that what it decides is a
    function of that view: the same bot, copied, decides the same in a world where every
    hidden card is elsewhere."""

    def __init__(self, spec: str, seat: int, seed: int) -> None:
        self.spec, self.seat, self.seed = spec, seat, seed
        self.bot = make_bot(spec, seed)
        self.calls = 0

    def choose(self, view: HandState, legal):
        assert view.viewer == self.seat and isinstance(view.pile, int)
        assert all(isinstance(h, int) == (s != self.seat) for s, h in enumerate(view.hands))
        self.calls += 1
        action = self.bot.choose(view, legal)
        assert action in legal
        return action


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), spec=st.sampled_from(SPECS),
       rules=st.sampled_from([CLASSIC, MODERN]))
def test_bots_decide_from_their_view_alone(seed, spec, rules):
    """Property: at any decision of a hand, a fresh bot with the same seed makes the same
    choice from the view of two full states that differ only in what the seat cannot
    see (R2a hidden hands, R3 hidden pile), so no hidden card can steer it."""
    rng = random.Random(seed)
    deck = list(rules.deck(TWO))
    rng.shuffle(deck)
    state = new_hand(rules, TWO, deck, seed % 2)
    driver = HeuristicBot(seed)
    checked = 0
    for _ in range(400):
        if state.over:
            break
        if state.phase == "reshuffle":
            state = apply_action(state, reshuffle_action(state, rng))
            continue
        seat = state.actors()[0]
        view = view_of(state, seat)
        legal = legal_actions(view, seat)
        if state.phase == "play" and checked < 3 and rng.random() < 0.2:
            twin = view_of(_other_world(state, seat, rng), seat)
            assert twin == view
            a = make_bot(spec, seed).choose(view, legal)
            b = make_bot(spec, seed).choose(twin, legal_actions(twin, seat))
            assert a == b
            checked += 1
        action = driver.choose(view, legal)
        if isinstance(action, Draw):  # the full state names the card drawn
            action = next(d for d in legal_actions(state, seat)
                          if isinstance(d, Draw) and d.source == action.source)
        state = apply_action(state, action)


@pytest.mark.parametrize("spec", SPECS + ["expert"])
@pytest.mark.parametrize("seating", [TWO, Seating(4, 2)], ids=["2", "2x2"])
def test_bots_are_shown_views_only_and_pick_legal_actions(spec, seating):
    if spec == "expert":
        spec = "search:playouts=6"  # the expert level's bot, on a small budget
    watchers = [ViewOnly(spec if s % 2 == 0 else "heuristic", s, s)
                for s in range(seating.n_players)]
    rec = play_hand(CLASSIC, seating, watchers, random.Random(4), 0)
    assert rec.final.over and all(w.calls for w in watchers)


@pytest.mark.parametrize("spec", ["heuristic", "search:playouts=10"])
def test_same_seed_and_budget_same_match(spec):
    """The search bot is deterministic for a given seed and playout budget."""
    def run(seed):
        bots = [make_bot(spec, seed), make_bot("heuristic-v1", seed + 1)]
        rec = play_match(CLASSIC, TWO, bots, seed=seed, max_hands=1)
        return [h.actions for h in rec.hands]

    assert run(3) == run(3)


def _roll_with_right_of_way() -> HandState:
    # Right of Way laid after a Stop: a Roll is legal (R7) but changes nothing.
    return build(CLASSIC, TWO, hands={0: [K.ROLL, K.D25, K.D50, K.D75, K.D100, K.ROLL, K.D25]},
                 zones={0: dict(battle=[K.ROLL, K.STOP], safeties=[K.RIGHT_OF_WAY], distance=[K.D100]),
                        1: dict(battle=[K.ROLL])}, seat=0)


def test_no_move_that_changes_nothing():
    """A Roll with Right of Way down is listed by the engine (R7) but never chosen."""
    st0 = _roll_with_right_of_way()
    view = view_of(st0, 0)
    legal = legal_actions(view, 0)
    roll = card(st0, 0, K.ROLL)
    assert Play(0, roll) in legal or Play(0, roll, None) in legal
    for spec in ["heuristic", "search:playouts=20"]:
        choice = make_bot(spec, 1).choose(view, legal)
        assert not (isinstance(choice, Play) and choice.card in
                    [c for c in st0.hand(0) if c in (roll,)]), spec
        assert not (isinstance(choice, Play) and st0.zones[0] ==
                    apply_action(st0, choice).zones[0]), spec


def test_heuristic_throws_dead_cards_first_and_keeps_attacks():
    """A remedy whose safety is down is dead: it goes before a hazard or distance."""
    st0 = build(CLASSIC, TWO,
                hands={0: [K.GASOLINE, K.ACCIDENT, K.D75, K.D100, K.REPAIRS, K.D50, K.D25]},
                zones={0: dict(battle=[K.ROLL, K.STOP], safeties=[K.EXTRA_TANK]),
                       1: dict(battle=[K.STOP])}, seat=0)  # nobody to attack now
    view = view_of(st0, 0)
    choice = HeuristicBot(0).choose(view, legal_actions(view, 0))
    assert choice == Discard(0, card(st0, 0, K.GASOLINE))


def test_heuristic_attacks_the_moving_leader():
    st0 = build(CLASSIC, Seating.solo(3),
                hands={0: [K.ACCIDENT, K.D25, K.D25, K.D25, K.D25, K.D25, K.D25]},
                zones={0: dict(battle=[K.ROLL, K.STOP]), 1: dict(battle=[K.ROLL], distance=[K.D100, K.D100]),
                       2: dict(battle=[K.ROLL], distance=[K.D200, K.D200, K.D100])}, seat=0)
    view = view_of(st0, 0)
    choice = HeuristicBot(0).choose(view, legal_actions(view, 0))
    assert choice == Play(0, card(st0, 0, K.ACCIDENT), 2)


def test_heuristic_attacks_before_it_cures():
    """Not yet rolling, with a Roll and a hazard in hand while the opponent rolls: the
    attack goes first (the opponent loses a turn sooner; the Roll waits a turn). The first
    version of this heuristic rolled first."""
    st0 = build(CLASSIC, TWO,
                hands={0: [K.ROLL, K.OUT_OF_GAS, K.D25, K.D50, K.D75, K.D100, K.GASOLINE]},
                zones={0: dict(), 1: dict(battle=[K.ROLL])}, seat=0, fill_hands=True)
    view = view_of(st0, 0)
    legal = legal_actions(view, 0)
    assert Play(0, card(st0, 0, K.ROLL)) in legal
    choice = HeuristicBot(0).choose(view, legal)
    assert choice == Play(0, card(st0, 0, K.OUT_OF_GAS), 1)


def test_heuristic_plans_the_exact_finish():
    """R5d: 100 km short with a 75 and a 50 and seven 25s already discarded, the 75 would
    strand the zone 25 short with three 25s left in the deck: never that (the previous
    version played it, the bigger card). With a second 50 in hand, 50 + 50 finishes."""
    zones = {0: dict(battle=[K.ROLL], distance=[K.D200, K.D200, K.D100, K.D100]),
             1: dict(battle=[K.ROLL, K.STOP])}
    rest = [K.GASOLINE, K.SPARE_TIRE, K.REPAIRS, K.END_OF_LIMIT, K.ROLL]
    st0 = build(CLASSIC, TWO, hands={0: [K.D75, K.D50, *rest]}, zones=zones,
                discard=[K.D25] * 7, seat=0, fill_hands=True)
    view = view_of(st0, 0)
    assert view.target - view.zones[0].km == 100
    legal = legal_actions(view, 0)
    assert Play(0, card(st0, 0, K.D75)) in legal
    assert HeuristicBot(0).choose(view, legal) != Play(0, card(st0, 0, K.D75))
    st1 = build(CLASSIC, TWO, hands={0: [K.D75, K.D50, K.D50, *rest[:4]]}, zones=zones,
                discard=[K.D25] * 7, seat=0, fill_hands=True)
    view = view_of(st1, 0)
    choice = HeuristicBot(0).choose(view, legal_actions(view, 0))
    assert isinstance(choice, Play) and kinds([choice.card]) == [K.D50]


def test_search_rollouts_throw_dead_cards_away_first():
    """The rollout policy discards a remedy whose safety is in its own zone before any
    live card (here Gasoline with Extra Tank down, among distance it cannot play)."""
    from engine.bots import rollout_choice
    st0 = build(CLASSIC, TWO,
                hands={0: [K.GASOLINE, K.D25, K.D50, K.D75, K.D100, K.D200, K.D25]},
                zones={0: dict(battle=[K.ROLL, K.STOP], safeties=[K.EXTRA_TANK]),
                       1: dict(battle=[K.STOP])}, seat=0, fill_hands=True)
    legal = legal_actions(st0, 0)
    gas = card(st0, 0, K.GASOLINE)
    for seed in range(20):
        assert rollout_choice(st0, legal, random.Random(seed)) == Discard(0, gas)


def test_heuristic_holds_a_safety_but_lays_it_before_the_winning_distance():
    hand = [K.DRIVING_ACE, K.D25, K.D50, K.D75, K.GASOLINE, K.SPARE_TIRE, K.REPAIRS]
    early = build(CLASSIC, TWO, hands={0: hand}, zones={0: dict(battle=[K.ROLL], distance=[K.D100]),
                                                        1: dict(battle=[K.ROLL])}, seat=0)
    v = view_of(early, 0)
    assert HeuristicBot(0).choose(v, legal_actions(v, 0)) == Play(0, card(early, 0, K.D75))
    late = build(CLASSIC, TWO, hands={0: hand}, zones={0: dict(battle=[K.ROLL], distance=[K.D200, K.D200, K.D100, K.D100, K.D25]),
                                                       1: dict(battle=[K.ROLL])}, seat=0)
    v = view_of(late, 0)
    assert HeuristicBot(0).choose(v, legal_actions(v, 0)) == \
        Play(0, card(late, 0, K.DRIVING_ACE))


def test_heuristic_v1_is_frozen():
    """heuristic-v1 keeps the first heuristic's choices: a fixed yardstick (issue 12)."""
    bots = [HeuristicV1Bot(1), HeuristicV1Bot(2)]
    rec = play_match(CLASSIC, TWO, bots, seed=11)
    assert rec.match.totals() == FROZEN_V1_TOTALS and len(rec.hands) == 5


#: What the first HeuristicBot (commit 1bd48d0) scored in this match.
FROZEN_V1_TOTALS = (5075, 4400)


# ----- specs, levels, plug-ins ----------------------------------------------------------

def test_bot_specs_parse_options_and_levels():
    assert parse_bot_spec("search:playouts=500") == ("search", {"playouts": 500})
    assert parse_bot_spec("search:ms=100") == ("search", {"ms": 100})
    assert parse_bot_spec("Search:playouts=5:margin=0.5") == \
        ("search", {"playouts": 5, "margin": 0.5})
    assert parse_bot_spec("expert") == parse_bot_spec(LEVELS["expert"])
    assert parse_bot_spec("hard:playouts=7")[1]["playouts"] == 7
    bot = make_bot("search:playouts=500", 1)
    assert isinstance(bot, SearchBot) and bot.playouts == 500
    assert isinstance(make_bot("search:ms=100"), SearchBot)
    assert make_bot("search:ms=100").ms == 100
    for level in LEVELS:
        assert callable(make_bot(level, 0).choose)
    assert isinstance(make_bot("normal"), HeuristicBot)
    assert isinstance(make_bot("easy"), HeuristicV1Bot)
    assert {"random", "heuristic-v1", "heuristic", "search", "easy", "expert"} <= \
        set(bot_names())


@pytest.mark.parametrize("spec,needle", [
    ("genius", "genius"), ("search:playouts", "NAME=VALUE"),
    ("search:playouts=many", "playouts"), ("search:playouts=0", "playouts"),
    ("search:depth=3", "depth"), ("heuristic:x=1", "heuristic"), (":x=1", "name"),
    ("search:ms=-5", "ms"), ("search:discards=2", "discards"), ("search:fresh=2", "fresh"),
])
def test_bad_bot_specs_are_one_clear_error(spec, needle):
    with pytest.raises(ValueError, match=needle):
        make_bot(spec, 0)


PLUGIN = '''
class Cautious:
    """Always the last legal action."""

    def __init__(self, seed, patience=1):
        self.patience = patience

    def choose(self, view, legal):
        return legal[-1]


def make(seed, **options):
    return Cautious(seed, **options)
'''


def test_plugin_bot_from_an_entry_point(tmp_path, monkeypatch):
    """A distribution with a ``millebornes.bots`` entry point enters the bot by name."""
    install_plugin(tmp_path, "mb_cautious", PLUGIN, {
        "cautious": "make", "broken": "mb_nowhere:make", "heuristic": "make"})
    monkeypatch.syspath_prepend(str(tmp_path))
    assert any(ep.name == "cautious" for ep in entry_points(group="millebornes.bots"))
    bot = make_bot("cautious:patience=3", 5)
    assert type(bot).__name__ == "Cautious" and bot.patience == 3
    assert "cautious" in bot_names()
    assert isinstance(make_bot("heuristic"), HeuristicBot)  # a plug-in cannot shadow it
    with pytest.raises(ValueError, match="broken"):
        make_bot("broken", 0)
    rec = play_hand(CLASSIC, TWO, [bot, make_bot("heuristic", 1)], random.Random(2), 0)
    assert rec.final.over
    monkeypatch.delitem(sys.modules, "mb_cautious", raising=False)


def test_search_considers_the_extension():
    """R12: at the extension question the search bot answers with an Extend."""
    st0 = build(CLASSIC, TWO, hands={0: [K.D25, K.D50, K.D75, K.D100, K.D100, K.ROLL]},
                zones={0: dict(battle=[K.ROLL], distance=[K.D200, K.D200, K.D100, K.D100, K.D100]), 1: dict(battle=[K.ROLL], distance=[K.D100])},
                seat=0, phase="extend")
    view = view_of(st0, 0)
    choice = SearchBot(0, playouts=8).choose(view, legal_actions(view, 0))
    assert isinstance(choice, Extend) and choice.seat == 0


def _at_the_extension(opponent_km: int, match_scores: tuple[int, ...]) -> HandState:
    """Seat 0 has just reached 700 km (classic, no shut-out, no safe trip) holding 300 km."""
    opponent = {100: [K.D100], 600: [K.D200, K.D200, K.D100, K.D100]}[opponent_km]
    st0 = build(CLASSIC, TWO, hands={0: [K.D25, K.D50, K.D75, K.D100, K.D100, K.ROLL]},
                zones={0: dict(battle=[K.ROLL], distance=[K.D200, K.D200, K.D100, K.D100,
                                                          K.D100]),
                       1: dict(battle=[K.ROLL], distance=opponent)},
                seat=0, phase="extend")
    return view_of(st0._replace(match_scores=match_scores), 0)


@pytest.mark.parametrize(("opponent_km", "match_scores", "extends"), [
    # the hand alone: 300 km in hand, the opponent far behind: worth extending
    (100, (), True),
    (100, (0, 0), True),
    # ending now (700 + 400 trip) takes seat 0 past 5000 ahead: the match is won, end it
    (100, (4000, 0), False),
    # ending now gives the opponent 4950 + 100 > 5000 and the match: extend, however risky
    (600, (0, 4950), True),
    # the same hand without the match at stake: the opponent at 600 km, too close to extend
    (600, (0, 0), False),
    # ending now leaves both under 5000: the hand decides as usual
    (600, (0, 4000), False),
])
@pytest.mark.parametrize("spec", ["heuristic", "search:playouts=8"])
def test_the_extension_weighs_the_match_score(spec, opponent_km, match_scores, extends):
    """R12 and R15: the extension is decided from the match score first (issue 12)."""
    view = _at_the_extension(opponent_km, match_scores)
    choice = make_bot(spec, 3).choose(view, legal_actions(view, 0))
    if spec.startswith("search") and HeuristicBot().match_if_ended(view, 0) is None:
        assert isinstance(choice, Extend)  # searched: either answer may win
    else:
        assert choice == Extend(0, extends)


def test_heuristic_match_option_plays_each_hand_alone():
    """``heuristic:match=0`` ignores the score (to measure what weighing it is worth)."""
    view = _at_the_extension(100, (4000, 0))
    assert make_bot("heuristic:match=0").choose(view, legal_actions(view, 0)) == Extend(0, True)
    with pytest.raises(ValueError, match="match must be 0 or 1"):
        make_bot("heuristic:match=2")


def test_heuristic_attacks_the_match_leader_between_equal_hands():
    """Three players, the two opponents level in the hand: the attack goes to the one
    leading the match (with the match score unknown, to the first in seat order)."""
    st0 = build(CLASSIC, Seating.solo(3),
                hands={0: [K.ACCIDENT, K.D25, K.D25, K.D25, K.D25, K.D25, K.D25]},
                zones={0: dict(battle=[K.ROLL, K.STOP]),
                       1: dict(battle=[K.ROLL], distance=[K.D100, K.D100]),
                       2: dict(battle=[K.ROLL], distance=[K.D100, K.D100])}, seat=0)
    accident = card(st0, 0, K.ACCIDENT)
    for scores, victim in [((0, 3000, 1000), 1), ((0, 1000, 3000), 2)]:
        view = view_of(st0._replace(match_scores=scores), 0)
        assert HeuristicBot(0).choose(view, legal_actions(view, 0)) == Play(0, accident, victim)


def test_docs_example_plugin_bot_is_short_and_plays(tmp_path, monkeypatch):
    """docs/bots.md's example bot is under 30 lines and enters a game as a plug-in."""
    from pathlib import Path
    doc = (Path(__file__).parent.parent / "docs" / "bots.md").read_text()
    code = doc.split("```python\n# mybot.py", 1)[1].split("```", 1)[0]
    code = "# mybot.py" + code
    assert len(code.strip().splitlines()) < 30
    install_plugin(tmp_path, "mybot", code, {"mybot": "make"})
    monkeypatch.syspath_prepend(str(tmp_path))
    rec = play_match(CLASSIC, TWO, [make_bot("mybot", 1), make_bot("heuristic", 2)], seed=1)
    assert rec.match.over
    # and it plays the game (the first example never rolled, so it scored 0 every match)
    wins = sum(play_match(CLASSIC, TWO, [make_bot("mybot", g), make_bot("random", g)],
                          seed=g).winner == 0 for g in range(6))
    assert wins >= 5
    # its option, after a colon as for every bot; an unknown one is said, not a crash
    assert play_match(CLASSIC, TWO, [make_bot("mybot:coups=no", 1), make_bot("heuristic", 2)],
                      seed=1).match.over
    with pytest.raises(ValueError, match="bad options for bot 'mybot'"):
        make_bot("mybot:speed=9", 1)
    # "Trying a bot out": the snippet that plays it from Python runs as written
    import contextlib
    import io
    snippet = doc.split("### Trying a bot out", 1)[1].split("```python\n", 1)[1]
    with contextlib.redirect_stdout(io.StringIO()) as said:
        exec(snippet.split("```", 1)[0], {})
    winner, totals = said.getvalue().split(" ", 1)
    import ast
    assert winner in ("0", "1") and max(ast.literal_eval(totals)) >= 5000
    monkeypatch.delitem(sys.modules, "mybot", raising=False)


def test_search_with_a_time_budget_thinks_about_that_long():
    """``search:ms=N`` keeps to its budget (one deal of rollouts at least)."""
    import time
    st0 = build(CLASSIC, TWO, hands={0: [K.ACCIDENT, K.D25, K.D50, K.D75, K.D100, K.STOP,
                                         K.REPAIRS]},
                zones={0: dict(battle=[K.ROLL]), 1: dict(battle=[K.ROLL])}, seat=0)
    view = view_of(st0, 0)
    bot = make_bot("search:ms=40", 0)
    started = time.perf_counter()
    choice = bot.choose(view, legal_actions(view, 0))
    elapsed = time.perf_counter() - started
    assert choice in legal_actions(view, 0)
    assert 0.04 <= elapsed < 1.0
    assert bot.decision_seconds and bot.decision_seconds[-1] >= 0.04


def test_is_bot_name_knows_built_ins_levels_and_nothing_else() -> None:
    from engine.bots import BOTS, LEVELS, is_bot_name, plugin_bots

    assert all(is_bot_name(n) for n in [*BOTS, *LEVELS, *plugin_bots()])
    assert not is_bot_name("no-such-bot")
    assert not is_bot_name("")
