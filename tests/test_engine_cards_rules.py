"""Cards (R1, R1a), seating (R2, R2a), deal (R3), targets (R11), rule options and presets
(RULES.md §6), serialisation of states and actions, and replay from deck order + actions."""

from __future__ import annotations

import random
from collections import Counter

import msgpack
import pytest
from engine_helpers import K, deal, ids_of

import engine
from engine import (
    CLASSIC,
    KIND_OF,
    MODERN,
    CoupFourre,
    Discard,
    Draw,
    Extend,
    Family,
    FastDiscard,
    FastRemedy,
    HandState,
    Pass,
    Play,
    Reshuffle,
    Rules,
    Seating,
    action_from_data,
    action_to_data,
    new_hand,
    preset,
)
from engine.bots import RandomBot
from engine.cards import COUNTS, FAMILY, REMOVED_FOR_SMALL_TABLE
from engine.scoring import Match
from engine.simulate import play_hand, replay_hand

SEATINGS = [Seating.solo(2), Seating.solo(3), Seating.solo(4), Seating.solo(5), Seating.solo(6),
            Seating(4, 2), Seating(6, 2), Seating(6, 3)]


# ----- R1 / R1a ----------------------------------------------------------------------------

def test_R1_card_counts_and_families():
    assert len(KIND_OF) == 106 == len(engine.ALL_CARDS)
    c = Counter(KIND_OF)
    assert c == Counter({k: n for k, n in COUNTS.items()})
    fam = Counter(FAMILY[k] for k in KIND_OF)
    assert fam[Family.DISTANCE] == 46
    assert fam[Family.HAZARD] == 18
    assert fam[Family.REMEDY] == 38
    assert fam[Family.SAFETY] == 4
    assert (c[K.D25], c[K.D50], c[K.D75], c[K.D100], c[K.D200]) == (10, 10, 10, 12, 4)
    assert (c[K.STOP], c[K.SPEED_LIMIT], c[K.OUT_OF_GAS], c[K.FLAT_TIRE], c[K.ACCIDENT]) == \
        (5, 4, 3, 3, 3)
    assert c[K.ROLL] == 14
    assert all(c[k] == 6 for k in (K.END_OF_LIMIT, K.GASOLINE, K.SPARE_TIRE, K.REPAIRS))
    assert all(c[k] == 1 for k in (K.RIGHT_OF_WAY, K.EXTRA_TANK, K.PUNCTURE_PROOF,
                                   K.DRIVING_ACE))


def test_R1_card_names_both_languages():
    assert engine.card_name(ids_of(K.ROLL)[0]) == "Roll"
    assert engine.card_name(ids_of(K.ROLL)[0], "fr") == "Feu vert"
    assert engine.kind_name(K.RIGHT_OF_WAY, "fr") == "Véhicule prioritaire"


@pytest.mark.parametrize("seating", SEATINGS, ids=lambda s: f"{s.n_players}p{s.n_teams}t")
def test_R1_R1a_deck_size_by_preset_and_players(seating):
    classic = CLASSIC.deck(seating)
    modern = MODERN.deck(seating)
    assert len(modern) == 106
    if seating.n_players <= 3:
        assert len(classic) == 101
        removed = set(engine.ALL_CARDS) - set(classic)
        assert removed == set(REMOVED_FOR_SMALL_TABLE)
        # R1a: one of each of the five hazards
        assert sorted(KIND_OF[c] for c in removed) == sorted(
            [K.STOP, K.SPEED_LIMIT, K.OUT_OF_GAS, K.FLAT_TIRE, K.ACCIDENT])
    else:
        assert len(classic) == 106


def test_R1a_option_can_be_set_on_either_preset():
    two = Seating.solo(2)
    assert len(preset("classic", remove_hazards=False).deck(two)) == 106
    assert len(preset("modern", remove_hazards=True).deck(two)) == 101
    assert len(preset("modern", remove_hazards=True).deck(Seating.solo(4))) == 106


@pytest.mark.parametrize("rules", [CLASSIC, MODERN], ids=["classic", "modern"])
def test_R1_new_hand_rejects_a_wrong_deck(rules):
    seating = Seating.solo(2)
    deck = list(rules.deck(seating))
    with pytest.raises(ValueError):
        new_hand(rules, seating, deck[:-1], 0)
    with pytest.raises(ValueError):
        new_hand(rules, seating, deck[:-1] + [deck[0]], 0)
    with pytest.raises(ValueError):
        new_hand(rules, seating, deck, 2)


@pytest.mark.parametrize("scores", [(0,), (0, 0, 0), (0, "5000"), (0, 1.5), (0, None)])
def test_R15_a_hand_rejects_match_scores_that_are_not_one_number_per_side(scores):
    seating = Seating.solo(2)
    deck = list(CLASSIC.deck(seating))
    with pytest.raises(ValueError, match="one whole number per side"):
        new_hand(CLASSIC, seating, deck, 0, scores)
    with pytest.raises(ValueError, match="one whole number per side"):
        engine.new_view(CLASSIC, seating, 0, deck[:6], 0, scores)
    assert new_hand(CLASSIC, seating, deck, 0, [1200, 0]).match_scores == (1200, 0)


# ----- R2 / R2a ----------------------------------------------------------------------------

def test_R2_two_to_six_players():
    for n in range(2, 7):
        assert Seating.solo(n).n_teams == n
    for bad in (1, 7):
        with pytest.raises(ValueError):
            Seating.solo(bad)


def test_R2a_team_seatings_and_side_of():
    s22 = Seating.parse(4, "2x2")
    assert (s22.n_teams, s22.team_size) == (2, 2)
    assert [s22.side_of(i) for i in range(4)] == [0, 1, 0, 1]
    assert s22.seats_of(0) == (0, 2) and s22.seats_of(1) == (1, 3)
    s23 = Seating.parse(6, "2x3")
    assert (s23.n_teams, s23.team_size) == (2, 3)
    assert [s23.side_of(i) for i in range(6)] == [0, 1, 0, 1, 0, 1]
    assert s23.seats_of(1) == (1, 3, 5)
    s32 = Seating.parse(6, "3x2")
    assert (s32.n_teams, s32.team_size) == (3, 2)
    assert [s32.side_of(i) for i in range(6)] == [0, 1, 2, 0, 1, 2]
    assert s32.seats_of(2) == (2, 5)
    assert Seating.parse(3, None) == Seating.solo(3)
    for n, t in ((4, "4x1x"), (5, "2x2"), (6, "2x2"), (4, "abc")):
        with pytest.raises(ValueError):
            Seating.parse(n, t)
    for n, teams in ((4, 1), (5, 2), (6, 4), (3, 1)):
        with pytest.raises(ValueError):
            Seating(n, teams)


@pytest.mark.parametrize("seating", [Seating(4, 2), Seating(6, 2), Seating(6, 3)],
                         ids=["2x2", "2x3", "3x2"])
@pytest.mark.parametrize("rules", [CLASSIC, MODERN], ids=["classic", "modern"])
def test_R2a_partners_share_a_zone_and_turns_alternate_sides(rules, seating):
    state = deal(rules, seating, first_seat=1)
    assert len(state.zones) == seating.n_teams
    assert len(state.hands) == seating.n_players
    sides = []
    # play discards only: turns go left and alternate sides
    for _ in range(2 * seating.n_players):
        seat = state.seat
        sides.append(state.side_of(seat))
        state = engine.apply_action(state, Draw(seat))
        state = engine.apply_action(state, Discard(seat, state.hand(seat)[0]))
        assert state.seat == (seat + 1) % seating.n_players
    assert all(a != b for a, b in zip(sides, sides[1:], strict=False))
    # partners address the same zone object
    for side in range(seating.n_teams):
        for s in seating.seats_of(side):
            assert state.zone_of(s) is state.zones[side]


# ----- R3 ----------------------------------------------------------------------------------

@pytest.mark.parametrize("seating", SEATINGS, ids=lambda s: f"{s.n_players}p{s.n_teams}t")
def test_R3_deal_six_each_one_at_a_time_from_first_seat(seating):
    rules = CLASSIC
    deck = list(rules.deck(seating))
    random.Random(7).shuffle(deck)
    n = seating.n_players
    first = n - 1
    st = new_hand(rules, seating, deck, first)
    for s in range(n):
        assert len(st.hand(s)) == 6
        expect = sorted(deck[i] for i in range(6 * n) if (first + i) % n == s)
        assert list(st.hand(s)) == expect
    assert st.pile_size() == len(deck) - 6 * n
    assert st.pile[-1] == deck[6 * n]          # drawn next
    assert st.pile[0] == deck[-1]
    assert (st.seat, st.phase, st.first_seat) == (first, "draw", first)
    assert st.discard == ()


def test_R3_first_seat_rotates_left_each_hand():
    from engine.scoring import SideScore
    m = Match(CLASSIC, Seating.solo(3), first_seat=2)
    seen = []
    for _ in range(5):
        seen.append(m.next_first_seat())
        m = m.record((SideScore(), SideScore(), SideScore()))
    assert seen == [2, 0, 1, 2, 0]
    m4 = Match(CLASSIC, Seating(4, 2), first_seat=3)
    assert m4.record((SideScore(), SideScore())).next_first_seat() == 0


# ----- R11 ---------------------------------------------------------------------------------

@pytest.mark.parametrize("seating,classic_target", [
    (Seating.solo(2), 700), (Seating.solo(3), 700), (Seating.solo(4), 700),
    (Seating.solo(5), 700), (Seating.solo(6), 700), (Seating(4, 2), 1000),
    (Seating(6, 2), 1000), (Seating(6, 3), 700)])
def test_R11_target_per_seating_and_preset(seating, classic_target):
    assert CLASSIC.target_for(seating) == classic_target
    assert MODERN.target_for(seating) == 1000
    assert deal(CLASSIC, seating).target == classic_target
    assert deal(MODERN, seating).target == 1000
    assert preset("classic", target=1000).target_for(seating) == 1000
    assert preset("modern", target=700).target_for(seating) == 700


# ----- presets and options (§6) --------------------------------------------------------------

def test_presets_match_the_table_of_RULES_section_6():
    """§6 presets: O-draw-discard, O-exhaustion, O-roll-after-remedy, O-exact-finish, R1a, R11, R12, R14/R15."""
    c, m = CLASSIC, MODERN
    assert (c.draw_discard, m.draw_discard) == (False, True)                  # R4a
    assert (c.exhaustion, m.exhaustion) == ("play_out", "reshuffle")          # R4b
    assert (c.roll_after_remedy, m.roll_after_remedy) == (True, False)        # R7
    assert (c.exact_finish, m.exact_finish) == (True, False)                  # R5d
    assert (c.remove_hazards, m.remove_hazards) == (True, False)              # R1a
    assert (c.scoring, m.scoring) == ("classic", "modern")                    # R14/R15
    assert (c.match_target, m.match_target) == (5000, 0)
    assert (c.extension, m.extension) == (True, False)                        # R12
    for r in (c, m):
        assert not (r.stack_hazards or r.attacker_started or r.start_rolling or r.fast_play
                    or r.extension_official)
    assert engine.PRESETS == {"classic": CLASSIC, "modern": MODERN}


def test_every_option_can_be_set_on_either_preset():
    """§6: every option (O-stack-hazards, O-attacker-started, O-start-rolling, O-fast-play, O-extension-official, R4b bounds...) on either preset."""
    opts = dict(draw_discard=True, exhaustion="reshuffle", roll_after_remedy=False,
                exact_finish=False, target=1000, extension=False, remove_hazards=False,
                scoring="modern", match_target=0, stack_hazards=True, attacker_started=True,
                start_rolling=True, fast_play=True, extension_official=True, reshuffle_limit=3,
                max_turns=50)
    for name in ("classic", "modern"):
        r = preset(name, **opts)
        for k, v in opts.items():
            assert getattr(r, k) == v
        assert r.preset == name
    assert preset("classic", fast_play=True).fast_play
    assert preset("classic", fast_play=True) != CLASSIC
    with pytest.raises(ValueError):
        preset("nope")
    with pytest.raises(TypeError):
        preset("classic", nope=1)


def test_rules_round_trip_and_validation():
    """§6: the rule set round-trips through plain data (recorded in transcripts); bad values rejected."""
    r = preset("modern", fast_play=True, stack_hazards=True)
    assert Rules.from_dict(r.to_dict()) == r
    with pytest.raises(ValueError):
        Rules.from_dict({**r.to_dict(), "bogus": 1})
    for bad in (dict(exhaustion="x"), dict(scoring="x"), dict(target=800),
                dict(max_turns=1), dict(reshuffle_limit=-1), dict(match_target=-5)):
        with pytest.raises(ValueError):
            Rules(**bad)


def test_parse_option_cli_spellings():
    """§6: options by name on the command line (O-... spellings accepted)."""
    assert engine.parse_option("fast-play=yes") == ("fast_play", True)
    assert engine.parse_option("o-stack-hazards=on") == ("stack_hazards", True)
    assert engine.parse_option("o_exact_finish=no") == ("exact_finish", False)
    assert engine.parse_option("max_turns=200") == ("max_turns", 200)
    assert engine.parse_option("exhaustion=play-out") == ("exhaustion", "play_out")
    for bad in ("nope=1", "fast_play", "fast_play=maybe", "max_turns=x", "preset=modern"):
        with pytest.raises(ValueError):
            engine.parse_option(bad)


# ----- serialisation ------------------------------------------------------------------------

ALL_ACTIONS = [
    Draw(0), Draw(1, "discard", 5), Draw(2, "pile", None), Play(0, 3), Play(1, 60, 0),
    Discard(0, 7), CoupFourre(1, 102), FastRemedy(0, 70), Pass(3),
    FastDiscard(0, (1, 2, 3)), Extend(0, True), Extend(1, False), Reshuffle(),
    Reshuffle(engine.CHANCE, (4, 5, 6)),
]


@pytest.mark.parametrize("action", ALL_ACTIONS, ids=repr)
def test_serialisation_action_round_trip_json_and_msgpack(action):
    """Every action kind (R4 Draw/Play/Discard, R9 CoupFourre, R10 FastRemedy/FastDiscard, R12 Extend, R4b Reshuffle) round-trips."""
    data = action_to_data(action)
    assert action_from_data(data) == action
    assert type(action_from_data(data)) is type(action)
    packed = msgpack.packb(data)
    assert action_from_data(msgpack.unpackb(packed)) == action


@pytest.mark.parametrize("data", [
    None, [], {}, "play", [1, 2], ["nope", 1], ["play"], ["play", "0", 3], ["play", 0, 3.0],
    ["play", 0, True], ["play", 0, 3, "x"], ["play", 0, 3, 1, 2], ["draw", 0, "hand"],
    ["draw", 0, "pile", "x"], ["discard", None, 3], ["fastdiscard", 0, [1, "2"]],
    ["fastdiscard", 0, 5], ["extend", 0, 1], ["extend", 0], ["reshuffle", -1, [1, None]],
    ["coup", 0], ["pass"], [["play"], 0, 1],
])
def test_serialisation_malformed_action_data_raises_valueerror(data):
    """Malformed wire actions are rejected with ValueError before reaching the rules (R4...)."""
    with pytest.raises(ValueError):
        action_from_data(data)


def _random_states(rules, seating, seed, every=7):
    rng = random.Random(seed)
    deck = list(rules.deck(seating))
    rng.shuffle(deck)
    st = new_hand(rules, seating, deck, rng.randrange(seating.n_players))
    bot = RandomBot(seed)
    out = [st]
    i = 0
    while not st.over:
        if st.phase == "reshuffle":
            a = engine.reshuffle_action(st, rng)
        else:
            seat = st.actors()[0]
            a = bot.choose(engine.view_of(st, seat), engine.legal_actions(st, seat))
        st = engine.apply_action(st, a)
        i += 1
        if i % every == 0 or st.phase in ("respond", "extend", "reshuffle"):
            out.append(st)
    out.append(st)
    return out


@pytest.mark.parametrize("rules", [CLASSIC, MODERN, preset("classic", fast_play=True)],
                         ids=["classic", "modern", "classic-fast"])
@pytest.mark.parametrize("seating", [Seating.solo(2), Seating(4, 2), Seating(6, 3)],
                         ids=["2", "2x2", "3x2"])
def test_serialisation_state_round_trip_json_msgpack_and_views(rules, seating):
    """HandState (full and views, R2a hidden hands) round-trips through JSON-friendly data and msgpack."""
    for st in _random_states(rules, seating, seed=11):
        data = st.to_data()
        assert HandState.from_data(data) == st
        back = HandState.from_data(msgpack.unpackb(msgpack.packb(data)))
        assert back == st and back.digest() == st.digest()
        for s in range(seating.n_players):
            v = engine.view_of(st, s)
            assert HandState.from_data(msgpack.unpackb(msgpack.packb(v.to_data()))) == v


def test_serialisation_state_digest_changes_with_content():
    """State digests (R3 deal) are stable and change with the content."""
    st = deal(CLASSIC)
    st2 = engine.apply_action(st, Draw(0))
    assert st.digest() != st2.digest()
    assert st.digest() == deal(CLASSIC).digest()
    assert len(st.digest()) == 64


@pytest.mark.parametrize("rules", [CLASSIC, MODERN, preset("modern", fast_play=True)],
                         ids=["classic", "modern", "modern-fast"])
def test_replay_hand_reproduces_a_game_from_deck_order_and_actions(rules):
    """R3 deal + R4 actions: a hand is reproducible from its deck order, first seat and actions."""
    seating = Seating.solo(3)
    rec = play_hand(rules, seating, [RandomBot(i) for i in range(3)], random.Random(5), 1)
    final = replay_hand(rules, seating, rec.deck_order, rec.first_seat, rec.actions)
    assert final == rec.final
    assert final.digest() == rec.final.digest()
    # through the wire format
    wire = msgpack.unpackb(msgpack.packb([action_to_data(a) for a in rec.actions]))
    again = replay_hand(rules, seating, rec.deck_order, rec.first_seat,
                        [action_from_data(d) for d in wire])
    assert again.digest() == rec.final.digest()


# ----- hidden information: views (R2a, R9) ---------------------------------------------------

def test_R2a_partners_never_see_each_other_s_hand():
    st = deal(CLASSIC, Seating(4, 2))
    v = engine.view_of(st, 0)
    assert v.hands[0] == st.hands[0]
    assert v.hands[1] == v.hands[2] == v.hands[3] == 6
    assert v.pile == st.pile_size() and v.viewer == 0
    with pytest.raises(ValueError):
        v.hand(2)
    with pytest.raises(ValueError):
        engine.legal_actions(engine.view_of(engine.apply_action(st, Draw(0)), 1), 0)
    with pytest.raises(ValueError):
        engine.view_of(v, 1)


@pytest.mark.parametrize("rules", [CLASSIC, MODERN], ids=["classic", "modern"])
def test_new_view_equals_the_view_of_the_dealt_hand(rules):
    """R3 deal seen by one seat (R2a: others' hands hidden): new_view == view_of(new_hand)."""
    seating = Seating(6, 3)
    deck = list(rules.deck(seating))
    random.Random(2).shuffle(deck)
    st = new_hand(rules, seating, deck, 4)
    for s in range(6):
        assert engine.new_view(rules, seating, s, st.hand(s), 4) == engine.view_of(st, s)
    with pytest.raises(ValueError):
        engine.new_view(rules, seating, 0, st.hand(0)[:5], 4)
    with pytest.raises(ValueError):
        engine.new_view(rules, seating, 0, (0, 0, 1, 2, 3, 4), 4)


def test_views_check_what_can_be_checked():
    """R1/R4 in a view: another seat cannot play a card known to be elsewhere or no card at all."""
    st = deal(CLASSIC, Seating.solo(2), hands={0: [K.ROLL]})
    v1 = engine.view_of(st, 1)
    # seat 0 draws: in seat 1's view the card is hidden
    v1 = engine.apply_action(v1, Draw(0))
    st = engine.apply_action(st, Draw(0))
    assert v1 == engine.view_of(st, 1)
    mine = st.hand(1)[0]
    # seat 0 cannot play a card seat 1 holds, nor a card that is no card
    for bad, rule in ((mine, "R4"), (999, "R1")):
        with pytest.raises(engine.IllegalAction) as exc:
            engine.apply_action(v1, Discard(0, bad))
        assert exc.value.rule == rule
    # the drawer's own view needs the revealed card, and it must be possible
    v0 = engine.view_of(deal(CLASSIC, Seating.solo(2)), 0)
    with pytest.raises(ValueError):
        engine.apply_action(v0, Draw(0))
    with pytest.raises(engine.IllegalAction) as exc:
        engine.apply_action(v0, Draw(0, "pile", v0.hand(0)[0]))
    assert exc.value.rule == "R1"


def test_R4_full_state_draw_must_name_the_top_card_if_any():
    st = deal(CLASSIC, Seating.solo(2))
    with pytest.raises(engine.IllegalAction) as exc:
        engine.apply_action(st, Draw(0, "pile", st.pile[0]))
    assert exc.value.rule == "R4"
    assert engine.apply_action(st, Draw(0, "pile", st.pile[-1])) == \
        engine.apply_action(st, Draw(0))


@pytest.mark.parametrize("seat,first", [(0, 5), (0, -1), (4, 0), (-1, 0)])
def test_R3_new_view_rejects_seats_that_are_not_seats(seat, first):
    """R2/R3: the viewer and the first player must be seats of the table (as in new_hand)."""
    seating = Seating.solo(2)
    mine = CLASSIC.deck(seating)[:6]
    with pytest.raises(ValueError):
        engine.new_view(CLASSIC, seating, seat, mine, first)


def test_rules_from_other_players_are_checked_for_type_and_range() -> None:
    """Rules come from a host's lobby and a transcript header: a truthy "no", a
    billion-turn hand (the R4b bound `max_turns`), endless idle reshuffles (R4b
    `reshuffle_limit`), a preset name full of escapes were accepted (hostile review of
    issue 9); each is refused in words naming the field."""
    from engine import Rules
    base = preset("classic").to_dict()
    for bad, field in (({"draw_discard": "no"}, "draw_discard"),
                       ({"fast_play": 1}, "fast_play"),
                       ({"max_turns": 10**9}, "max_turns"),
                       ({"max_turns": True}, "max_turns"),
                       ({"reshuffle_limit": 10**6}, "reshuffle_limit"),
                       ({"match_target": 2.5}, "match_target"),
                       ({"preset": "x\x1b[2J"}, "preset"),
                       ({"preset": 5}, "preset"),
                       ({"preset": "y" * 25}, "preset")):
        with pytest.raises(ValueError, match=field):
            Rules.from_dict({**base, **bad})
    assert Rules.from_dict({**base, "max_turns": 100_000, "preset": "my-house_rules2"})
