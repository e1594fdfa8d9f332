"""cli.render: pure functions of constructed views."""

from __future__ import annotations

from cli import render
from cli.driver import LocalDriver
from engine import KIND_OF, Kind, Play, Seating, new_hand, preset, view_of
from engine.scoring import Match, SideScore
from engine.state import PLAY, RESPOND, Attack, HandState

NAMES = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo"]


def cards_of(k: Kind, n: int = 1, skip: int = 0) -> list[int]:
    ids = [i for i, kk in enumerate(KIND_OF) if kk is k]
    return ids[skip:skip + n]


def base_view(n_players: int = 2, preset_name: str = "classic", teams: str | None = None,
              hand: list[int] | None = None) -> HandState:
    rules = preset(preset_name)
    seating = Seating.parse(n_players, teams)
    deck = list(rules.deck(seating))
    state = new_hand(rules, seating, deck, 0)
    if hand is not None:
        state = state._replace(hands=(tuple(hand),) + state.hands[1:])
    state = state._replace(phase=PLAY, pending=())
    return view_of(state, 0)


def text(lines: list[render.Line]) -> str:
    return "\n".join(render.plain(lines))


def test_zone_shows_every_pile_and_progress() -> None:
    v = base_view(2)
    z = v.zones[0]._replace(
        battle=tuple(cards_of(Kind.ROLL)), speed=tuple(cards_of(Kind.SPEED_LIMIT)),
        distance=tuple(cards_of(Kind.D25, 2) + cards_of(Kind.D100, 1) + cards_of(Kind.D200)),
        km=350, n200=1, started=True,
        safeties=tuple(cards_of(Kind.DRIVING_ACE) + cards_of(Kind.EXTRA_TANK)),
        coups=tuple(cards_of(Kind.EXTRA_TANK)))
    v = v._replace(zones=(z, v.zones[1]))
    out = text(render.zone_lines(v, 0, NAMES, 0))
    assert "Ana (you)" in out
    # a Roll on top says what it means, in the word used for every moving side (a
    # newcomer saw "Roll" on one row and "rolling" on the next)
    assert "rolling" in out and "Roll " not in out and "Speed Limit" in out
    assert "350/700" in out
    assert "25×2 100×1 200×1" in out
    assert "200 km cards 1/2" in out     # not the cryptic "200s 1/2" (issue 11)
    assert "DA ET*" in out               # the coup fourré is starred
    assert "[#######.......]" in out     # 350 of 700 = half the bar
    assert all(len(line) <= 80 for line in out.splitlines())
    verbose = text(render.zone_lines(v, 0, NAMES, 0, verbose=True))
    words = " ".join(verbose.split())
    assert "Safeties: Driving Ace, Extra Tank (coup fourré)." in words
    assert words.startswith("Ana (you), to move: 6 cards. Battle: rolling. Speed: Speed Limit.")
    assert "350 of 700 km (25×2, 100×1, 200×1); 200s used 1 of 2." in words
    assert "│" not in verbose and "▶" not in verbose  # words only for screen readers
    other = text(render.zone_lines(v, 1, NAMES, 0))
    assert "not started" in other and "no limit" in other and "no distance yet" in other
    # a player who left is said whole within 80 columns (a stray "le" at the row's end)
    from cli.driver import PeerStatus
    for state, word in (("left", "left"), ("offline", "offline")):
        gone = text(render.zone_lines(v, 1, NAMES, 0, peers=[PeerStatus(1, "Bo", "peer",
                                                                         state)]))
        first = gone.splitlines()[0]
        assert len(first) <= 80 and f" {word} " in first, first


def test_a_long_distance_summary_is_said_whole_in_80_columns() -> None:
    """Five kinds of distance on a zone were cut to "25×2 50×2 75×1 100×…" (the summary had
    20 columns whatever the rest of the line left)."""
    v = base_view(2)
    for safeties, coups in ((), ()), ((Kind.DRIVING_ACE,), ()), \
            ((Kind.DRIVING_ACE, Kind.EXTRA_TANK), (Kind.EXTRA_TANK,)):
        z = v.zones[0]._replace(
            battle=tuple(cards_of(Kind.ROLL)), started=True, n200=2, km=1000,
            distance=tuple(cards_of(Kind.D25, 2) + cards_of(Kind.D50, 2) + cards_of(Kind.D75)
                           + cards_of(Kind.D100, 3) + cards_of(Kind.D200, 2)),
            safeties=tuple(c for k in safeties for c in cards_of(k)),
            coups=tuple(c for k in coups for c in cards_of(k)))
        line = text(render.zone_lines(v._replace(zones=(z, v.zones[1])), 0, NAMES, 0))
        second = line.splitlines()[1]
        assert "25×2 50×2 75×1 100×3 200×2" in second and "…" not in second, second
        assert len(second) <= 80, second
        assert all(render.safeties_text(v._replace(zones=(z, v.zones[1])), 0).split()
                   [i] in second for i in range(len(safeties)))


def test_hand_cards_coloured_by_family_and_playable_marked() -> None:
    hand = sorted(cards_of(Kind.STOP) + cards_of(Kind.ROLL) + cards_of(Kind.RIGHT_OF_WAY)
                  + cards_of(Kind.D100))
    v = base_view(2, hand=hand)
    from engine import legal_actions
    legal = legal_actions(v, 0)
    lines = render.hand_lines(v, 0, legal)
    styles = {t.strip(): s for line in lines for s, t in line}
    assert "class:hazard" in styles["Stop"]
    assert "class:remedy" in styles["Roll"]
    assert "class:safety" in styles["Right of Way"]
    assert "class:distance" in styles["100"]
    out = text(lines)
    # not started: Roll and Right of Way are playable, 100 and Stop (classic) are not
    roll_ix = hand.index(cards_of(Kind.ROLL)[0]) + 1
    d100_ix = hand.index(cards_of(Kind.D100)[0]) + 1
    assert f"{roll_ix} Roll+" in out       # the mark after the name: "1+25" read as a sum
    assert f"{d100_ix} 100 " in out
    assert "(+ playable now)" in out


def test_selected_card_is_reversed() -> None:
    hand = sorted(cards_of(Kind.D25, 3))
    v = base_view(2, hand=hand)
    lines = render.hand_lines(v, 0, [], selected=1)
    sel = [t for line in lines for s, t in line if "class:selected" in s]
    assert any("25" in t for t in sel)


def test_french_names() -> None:
    hand = sorted(cards_of(Kind.STOP) + cards_of(Kind.FLAT_TIRE) + cards_of(Kind.ROLL))
    v = base_view(2, hand=hand)
    out = text(render.hand_lines(v, 0, [], lang="fr"))
    assert "Feu rouge" in out and "Crevaison" in out and "Feu vert" in out
    verbose = text(render.hand_lines(v, 0, [], lang="fr", verbose=True))
    assert "(attaque)" in verbose and "(parade)" in verbose


def test_no_colour_keeps_family_letters_and_no_colour_rules() -> None:
    hand = sorted(cards_of(Kind.STOP) + cards_of(Kind.ROLL))
    v = base_view(2, hand=hand)
    out = text(render.hand_lines(v, 0, [], color=False))
    assert "H Stop" in out and "R Roll" in out
    for _, rule in render.style_rules(False):
        assert "ansi" not in rule and "#" not in rule
    assert any("ansired" in r for _, r in render.style_rules(True))


def test_everything_fits_80_columns_six_players_french() -> None:
    long_hand = sorted(cards_of(Kind.SPEED_LIMIT) + cards_of(Kind.OUT_OF_GAS)
                       + cards_of(Kind.END_OF_LIMIT) + cards_of(Kind.PUNCTURE_PROOF)
                       + cards_of(Kind.RIGHT_OF_WAY) + cards_of(Kind.SPARE_TIRE)
                       + cards_of(Kind.D200))
    for lang in ("en", "fr"):
        v = base_view(6, hand=long_hand)
        zones = list(v.zones)
        zones[2] = zones[2]._replace(
            battle=tuple(cards_of(Kind.OUT_OF_GAS, skip=1)),
            speed=tuple(cards_of(Kind.SPEED_LIMIT, skip=1)), km=975,
            distance=tuple(cards_of(Kind.D25, 3) + cards_of(Kind.D50, 3) + cards_of(Kind.D75, 3)
                           + cards_of(Kind.D100, 3) + cards_of(Kind.D200, 2)), n200=2,
            safeties=tuple(cards_of(Kind.DRIVING_ACE) + cards_of(Kind.EXTRA_TANK)),
            coups=tuple(cards_of(Kind.DRIVING_ACE)))
        v = v._replace(zones=tuple(zones), discard=tuple(cards_of(Kind.SPEED_LIMIT, skip=2)))
        names = ["Maximilienne", "Bo", "Cy", "Di", "Ed", "Flo"]
        lines = render.table_lines(v, names, 0, 12, lang) + \
            render.hand_lines(v, 0, [], lang) + \
            render.screen_lines(v, names, 0, [], 12, lang)
        lines.append([("", render.waiting_text(v, 0, names, lang))])
        for line in render.plain(lines):
            assert len(line) <= 80, line
        # 6 sides x 2 lines + header + hand (3) + status: fits 24 rows with the log
        assert len(render.table_lines(v, names, 0, 1, lang)) + 3 + 2 <= 24


def test_teams_zone_and_hand_counts() -> None:
    v = base_view(4, teams="2x2")
    out = text(render.table_lines(v, NAMES[:4], 0))
    assert "Ana & Cy (your side)" in out
    assert "Bo & Di" in out
    assert "6/6 cards" in out or "6/6" in out


def test_waiting_texts() -> None:
    v = base_view(3)
    assert render.waiting_text(v, 0, NAMES) .startswith("Your turn: play or discard")
    assert render.waiting_text(v._replace(seat=1), 0, NAMES) == "Bo's turn."
    stop = cards_of(Kind.STOP)[0]
    att = Attack(attacker=0, card=stop, side=2, responders=(2,))
    w = render.waiting_text(v._replace(phase=RESPOND, attack=att), 0, NAMES)
    assert w == "Waiting for Cy to answer the Stop hazard."


def test_coup_fourre_prompt_identical_with_or_without_safety() -> None:
    """R9: the answer window looks the same whether or not the safety is held."""
    stop = cards_of(Kind.STOP)[0]
    att = Attack(attacker=1, card=stop, side=0, responders=(0,))
    with_safety = sorted(cards_of(Kind.RIGHT_OF_WAY) + cards_of(Kind.D25, 5))
    without = sorted(cards_of(Kind.D50) + cards_of(Kind.D25, 5))
    from engine import legal_actions
    screens = []
    for hand in (with_safety, without):
        v = base_view(2, hand=hand)._replace(phase=RESPOND, attack=att, seat=1)
        legal = legal_actions(v, 0)
        prompt = render.waiting_text(v, 0, NAMES)
        assert prompt == "Bo played Stop on you: c for a coup fourré, n to let it stand " \
            "(coup / pass). c needs the card Right of Way in your hand."
        assert render.playable_cards(v, legal) == set()  # nothing marked in the window
        head = render.plain(render.hand_lines(v, 0, legal))[0]
        screens.append((prompt, head))
    assert screens[0] == screens[1]


def test_score_and_match_tables() -> None:
    rules = preset("classic")
    seating = Seating.solo(3)
    m = Match(rules, seating, 0)
    hand1 = (SideScore(distance=700, trip=400, safe_trip=300), SideScore(distance=200),
             SideScore(distance=0, safeties=100))
    hand2 = (SideScore(distance=300), SideScore(distance=700, trip=400),
             SideScore(distance=100))
    m = m.record(hand1).record(hand2)
    out = text(render.score_lines(hand2, m, NAMES[:3], 2))
    assert "Hand 2 scores" in out
    assert "Trip completed" in out
    assert "safe trip" not in out  # items nobody scored are left out
    assert "1700" in out  # match total for Ana: 1400 + 300
    chart = render.plain(render.match_lines(m, NAMES[:3]))
    assert chart[0].startswith("Match (2 hands scored, to 5000)")
    assert "Ana" in chart[1] and "1700" in chart[1] and "1400, 300" in chart[1]
    # after one hand its points are the total: said once ("550 [#…] 550" before)
    one = render.plain(render.match_lines(Match(rules, seating, 0).record(hand1), NAMES[:3]))
    assert one[1].count("1400") == 1, one[1]
    assert render.sparkline([1400, 300], 1400) == "█▂"
    assert render.sparkline([0, 1], 1400) == " ▁"
    # no hand scored yet (the first was left without a score by agreement): "hands 1-0"
    empty = render.plain(render.match_lines(Match(rules, seating, 0), NAMES[:3]))
    assert empty[0].startswith("Match (no hand scored yet, to 5000)"), empty[0]
    # a match of one hand (modern) said the hand twice: "Match (1 hand scored, one hand)"
    modern = preset("modern")
    once = Match(modern, seating, 0)
    assert render.plain(render.match_lines(once, NAMES[:3]))[0] == \
        "Match of one hand (no score yet)"
    assert render.plain(render.match_lines(once.record(hand1), NAMES[:3]))[0] == \
        "Match of one hand"
    # in words for line mode: every hand's points, wrapped, never cut with "…" (a screen
    # reader heard "1200, 1700, 1700, 15… wins")
    long = m
    for _ in range(9):
        long = long.record((SideScore(distance=550, trip=400, safe_trip=300),
                            SideScore(distance=125), SideScore(distance=75)))
    words = render.plain(render.match_lines(long, NAMES[:3], verbose=True))
    said = " ".join(" ".join(words).split())
    assert "…" not in said and all(len(line) <= 80 for line in words), words
    assert "Ana: 12950 points (hands: 1400, 300, " + ", ".join(["1250"] * 9) + \
        "); winner of the match." in said, said
    assert "Bo: 2425 points (hands: 200, 1100, " in said
    # the chart keeps the latest hands when the points do not all fit ("2400, 1500, 425,
    # 475…" had lost the last hand's 1400)
    big = Match(rules, Seating.solo(2), 0)
    for a, b in ((200, 2400), (750, 1500), (2300, 425), (1700, 475), (325, 1400)):
        big = big.record((SideScore(distance=a), SideScore(distance=b)))
    rows = render.plain(render.match_lines(big, ["You", "Bo"]))
    assert all(len(row) <= 80 for row in rows), rows
    assert rows[2].rstrip().endswith("475, 1400 wins"), rows[2]
    assert rows[1].rstrip().endswith("1700, 325"), rows[1]


def test_render_a_real_driver_state_fits() -> None:
    d = LocalDriver(preset("classic"), Seating.solo(4), NAMES[:4], seed=11)
    d.run_others()
    lines = render.screen_lines(d.view(), d.names, 0, d.legal(), d.hand_no, verbose=False)
    assert all(len(line) <= 80 for line in render.plain(lines))


def test_in_language_takes_lang_by_position_keyword_or_default():
    """``in_language`` finds the ``lang`` argument however it is passed (it once bound the
    whole signature on every call; now the position is found once)."""
    from cli import i18n
    from cli.render import in_language

    @in_language
    def active_lang(x: int, lang: str = "en", *, extra: int = 0) -> str:
        return i18n.active().language

    @in_language
    def kw_only(x: int, *, lang: str = "sv") -> str:
        return i18n.active().language

    before = i18n.active().language
    assert active_lang(1, "fr") == "fr"
    assert active_lang(1, lang="vi") == "vi"
    assert active_lang(1) == before            # "en" is English: active when nothing is set
    assert kw_only(1) == "sv"
    assert kw_only(1, lang="af") == "af"
    assert i18n.active().language == before


def test_a_hazard_its_safety_cancelled_is_not_shown_as_in_force() -> None:
    """R8, R5, R5b: Right of Way laid on a Stop: the Stop stays on top of the battle pile
    without effect, and the board said "Stop" (a newcomer read it as stopped). Puncture-Proof on
    a Flat Tire in classic: the side still needs a Roll, and the board says so."""
    v = base_view(2)
    stop, row = cards_of(Kind.STOP)[0], cards_of(Kind.RIGHT_OF_WAY)[0]
    z = v.zones[0]._replace(battle=(stop,), safeties=(row,), started=True)
    v = v._replace(zones=(z, v.zones[1]))
    grid = text(render.zone_lines(v, 0, NAMES, 0))
    assert "rolling" in grid and "Stop" not in grid
    words = " ".join(text(render.zone_lines(v, 0, NAMES, 0, verbose=True)).split())
    assert "Battle: rolling (the Stop on top has no effect: its safety is out)." in words
    flat, proof = cards_of(Kind.FLAT_TIRE)[0], cards_of(Kind.PUNCTURE_PROOF)[0]
    z = v.zones[0]._replace(battle=(flat,), safeties=(proof,), started=True)
    v = v._replace(zones=(z, v.zones[1]))
    assert not v.zones[0].rolling(v.rules)
    grid = text(render.zone_lines(v, 0, NAMES, 0))
    assert "needs a Roll" in grid and "Flat Tire" not in grid
    words = " ".join(text(render.zone_lines(v, 0, NAMES, 0, verbose=True)).split())
    assert "Battle: a Roll is needed (the Flat Tire on top has no effect: its safety is " \
           "out)." in words
    # nor a Speed Limit under Right of Way
    limit = cards_of(Kind.SPEED_LIMIT)[0]
    z = v.zones[0]._replace(battle=(), speed=(limit,), safeties=(row,), started=True)
    v = v._replace(zones=(z, v.zones[1]))
    assert "Speed Limit" not in text(render.zone_lines(v, 0, NAMES, 0))
    assert "Speed: no limit." in text(render.zone_lines(v, 0, NAMES, 0, verbose=True))
    # a hazard in force is still named
    z = v.zones[0]._replace(battle=(stop,), speed=(limit,), safeties=(), started=True)
    v = v._replace(zones=(z, v.zones[1]))
    assert "Stop" in text(render.zone_lines(v, 0, NAMES, 0))
    assert "Speed Limit" in text(render.zone_lines(v, 0, NAMES, 0))


def test_the_board_says_whether_a_side_rolls_not_just_the_top_card() -> None:
    """R7 under O-roll-after-remedy (classic): Gasoline on Out of Gas leaves the side
    stopped until a Roll; the board
    said "Gasoline" (a newcomer read it as moving). End of Limit showed as a card while
    another side showed "no limit" for the same state."""
    v = base_view(2, "classic")
    gas, end = cards_of(Kind.GASOLINE)[0], cards_of(Kind.END_OF_LIMIT)[0]
    z = v.zones[0]._replace(battle=(cards_of(Kind.OUT_OF_GAS)[0], gas), speed=(end,),
                            started=True)
    v = v._replace(zones=(z, v.zones[1]))
    assert v.rules.roll_after_remedy and not v.zones[0].rolling(v.rules)
    grid = text(render.zone_lines(v, 0, NAMES, 0))
    assert "needs a Roll" in grid and "Gasoline" not in grid
    assert "End of Limit" not in grid and "no limit" in grid
    words = " ".join(text(render.zone_lines(v, 0, NAMES, 0, verbose=True)).split())
    assert "Battle: Gasoline; a Roll is needed. Speed: no limit." in words, words
    # a Roll on top says "rolling", the one word for a side that may drive (newcomer,
    # round 4: "Roll" on one row and "rolling" on the next read as two states)
    roll = cards_of(Kind.ROLL)[0]
    z = z._replace(battle=(roll,))
    v = v._replace(zones=(z, v.zones[1]))
    grid = text(render.zone_lines(v, 0, NAMES, 0))
    assert "rolling" in grid and "Roll " not in grid


def test_a_coup_fourre_says_why_its_player_draws_twice() -> None:
    """R9: after a coup fourré its player draws a replacement, then takes a turn (another
    draw). A newcomer saw two draws in a row with nothing saying why: the log line and
    the prompt of each draw say it."""
    from cli.words import describe
    from engine import CoupFourre, Play, apply_action
    rules = preset("classic")
    seating = Seating.solo(2)
    state = new_hand(rules, seating, list(rules.deck(seating)), 0)
    row = cards_of(Kind.RIGHT_OF_WAY)[0]
    stop = cards_of(Kind.STOP)[0]
    mine = tuple(sorted(cards_of(Kind.D25, 5) + [row]))
    rolling = state.zones[0]._replace(battle=tuple(cards_of(Kind.ROLL)), started=True)
    state = state._replace(hands=(mine, (stop, *cards_of(Kind.D50, 6))), phase=PLAY,
                           pending=(), seat=1, turn_seat=1,
                           zones=(rolling, state.zones[1]))
    attacked = apply_action(state, Play(1, stop, 0))
    after = apply_action(attacked, CoupFourre(0, row))
    assert describe(attacked, CoupFourre(0, row), after, NAMES, 1) == (
        "Coup fourré! Ana answered with Right of Way and takes the next turn.")
    line = describe(attacked, CoupFourre(0, row), after, ["You", "Bo"], 0)
    assert line == ("Coup fourré! You answered with Right of Way: you draw a card in its "
                    "place, then take the next turn.")
    assert render.waiting_text(view_of(after, 0), 0, NAMES) == (
        "Draw a card in place of your safety (space, or type draw); then your turn: "
        "draw again and play.")
    assert render.waiting_text(view_of(after, 1), 1, NAMES) == "Ana is drawing."
    from engine import legal_actions
    replaced = apply_action(after, legal_actions(after, 0)[0])
    assert render.waiting_text(view_of(replaced, 0), 0, NAMES) == \
        "Your turn: draw a card (space, or type draw)."


def test_the_extension_question_says_what_is_at_stake() -> None:
    """R12: stopping ends the hand with the trip scored; going on stakes the trip bonus
    and 200 on reaching 1000 first (O-extension-official: 200 to the caller, or to each
    opponent). The question said only "go on or stop?"."""
    from dataclasses import replace
    v = base_view(2)._replace(phase="extend", target=700)
    said = render.waiting_text(v, 0, NAMES)
    assert said == ("700 km! n (extend no): stop, you score the trip. y (extend yes): on "
                    "to 1000; the first there scores the trip +200; if no one gets there, no "
                    "one scores it.")
    official = v._replace(rules=replace(v.rules, extension_official=True))
    assert render.waiting_text(official, 0, NAMES).endswith(
        "y (extend yes): on to 1000; 200 more if you get there first, else 200 to each "
        "opponent.")
    # below a message the status keeps two lines of what the table waits for: the
    # question and its keys fit them in every language
    from cli import i18n
    from cli.app import MAX_STATUS
    for lang in i18n.LANGUAGES:
        with i18n.using(lang):
            for view in (v, official):
                prompt = render.waiting_text(view, 0, NAMES, lang)
                assert len(i18n.wrap(prompt, 78)) <= MAX_STATUS - 1, (lang, prompt)
                assert "extend no" in prompt and "extend yes" in prompt, (lang, prompt)
    assert render.waiting_text(v._replace(seat=1), 0, NAMES) == \
        "Waiting for Bo to decide on the extension."


def test_right_of_way_alone_reads_as_rolling_in_words() -> None:
    """With Right of Way laid and nothing on the battle pile, the sentences said "Battle:
    empty." (read as not started) while the board said "rolling"."""
    v = base_view(2)
    z = v.zones[0]._replace(battle=(), started=True,
                            safeties=tuple(cards_of(Kind.RIGHT_OF_WAY)))
    v = v._replace(zones=(z, v.zones[1]))
    words = " ".join(text(render.zone_lines(v, 0, NAMES, 0, verbose=True)).split())
    assert "Battle: rolling." in words and "Battle: empty." not in words
    assert "rolling" in text(render.zone_lines(v, 0, NAMES, 0))


def test_a_wider_screen_gives_card_names_their_room() -> None:
    """At 100 columns the hand still cut "Puncture-Pro…"; at 80 the rows keep within."""
    hand = sorted(cards_of(Kind.PUNCTURE_PROOF) + cards_of(Kind.END_OF_LIMIT)
                  + cards_of(Kind.SPEED_LIMIT) + cards_of(Kind.D25, 4))
    v = base_view(2, hand=hand)
    for color in (True, False):
        wide = text(render.hand_lines(v, 0, [], color=color, width=100))
        assert "Puncture-Proof" in wide and "End of Limit" in wide and "…" not in wide, wide
        assert all(len(line) <= 100 for line in wide.splitlines()), wide
        narrow = text(render.hand_lines(v, 0, [], color=color, width=80))
        assert all(len(line) <= 80 for line in narrow.splitlines()), narrow
        assert narrow == text(render.hand_lines(v, 0, [], color=color))  # 80 is the default


def test_an_80_column_hand_shows_the_safeties_whole() -> None:
    """At 80 columns a row of four cards used 72: "Puncture-Pro…" (sv "Punkteringsf…", a
    safety a newcomer did not recognize) though the row had room for the whole name."""
    from cli import i18n
    hand = sorted(cards_of(Kind.PUNCTURE_PROOF) + cards_of(Kind.RIGHT_OF_WAY)
                  + cards_of(Kind.D25, 5))
    v = base_view(2, hand=hand)
    legal = [Play(0, c, None) for c in hand]
    for lang, name in (("en", "Puncture-Proof"), ("sv", "Punkteringsfri")):
        with i18n.using(lang):
            shown = text(render.hand_lines(v, 0, legal, lang=lang, width=80))
        assert f"{name}+" in shown and "…" not in shown, shown
        assert all(i18n.cells(line) <= 80 for line in shown.splitlines()), shown


def test_the_first_draw_of_a_later_hand_says_the_player_may_be_reading_scores() -> None:
    """At a network table the first player draws only once past the last hand's scores:
    "Ann is drawing." stood for a minute while Ann read them."""
    from cli.words import waiting_text
    from engine.state import DRAW
    v = base_view(2)._replace(phase=DRAW, seat=1)
    assert waiting_text(v, 0, NAMES) == "Bo is drawing."           # the match's first hand
    later = v._replace(match_scores=(1200, 850))
    assert waiting_text(later, 0, NAMES) == "Bo starts the hand: waiting for them to draw " \
        "(they may still be reading the last hand's scores)."
    # a replay (seat -1) has no one reading: the sentence ran past 80 cells there
    assert waiting_text(later, -1, NAMES) == "Bo is drawing."
    z = later.zones[0]._replace(battle=tuple(cards_of(Kind.ROLL)), started=True)
    assert waiting_text(later._replace(zones=(z, later.zones[1])), 0, NAMES) == \
        "Bo is drawing."                                              # the hand is under way


def test_the_rows_words_fit_their_columns_in_every_language() -> None:
    """"attend un Feu ve…": a zone's battle and speed words have 17 columns, the cards
    column 12; a translation longer than that was cut on the board."""
    from cli import i18n
    from cli.i18n import _
    for lang in i18n.LANGUAGES:
        with i18n.using(lang):
            for word, room in (("not started", 17), ("rolling", 17), ("needs a Roll", 17),
                               ("no limit", 17), ("left", 12), ("offline", 12)):
                assert i18n.cells(_(word)) <= room, (lang, _(word))


def test_the_fast_play_prompt_offers_the_remedy_only_when_it_can_be_played() -> None:
    """Newcomer, round 4 (R9, R10a): under fast_play the coup fourré's round said "or p plays the
    remedy", and p was refused there ("Answer the hazard first"); the same words came
    back for the round where it works. Each round now says what it takes."""
    from cli.words import waiting_text
    v = base_view(2, "classic")
    rules = preset("classic", fast_play=True)
    stop = cards_of(Kind.STOP)[0]
    first = v._replace(rules=rules, phase=RESPOND, attack=Attack(1, stop, 0, (0,), (), 1))
    said = waiting_text(first, 0, NAMES)
    assert "c for a coup fourré, n to let it stand" in said and "p" not in said.split()
    assert "remedy" not in said
    second = first._replace(attack=Attack(1, stop, 0, (0,), (), 2))
    assert waiting_text(second, 0, NAMES) == ("Bo played Stop on you: p plays its remedy at "
                                              "once (fast play), n to let it stand (pass).")


def test_a_replay_of_ones_own_game_says_you_in_grammar() -> None:
    """Newcomer review: replay said "next: You is drawing." (a replay has no seat of its
    own, and calls the player "You" in their own game)."""
    v = base_view(2)
    names = ("You", "Bo")
    assert render.waiting_text(v._replace(phase="draw", seat=0), -1, names) == \
        "You are drawing."
    assert render.waiting_text(v._replace(phase="play", seat=0), -1, names) == "Your turn."
    assert render.waiting_text(v._replace(phase="draw", seat=1), -1, names) == \
        "Bo is drawing."


def test_the_match_winner_line_agrees_with_a_team_and_with_you() -> None:
    """The line mode's totals said of the winning side "…; wins the match", in French
    "Bo & Di : … ; gagne la partie", the singular under a team of two (and "Vous : … ;
    gagne"): the side is now named the match's winner, a noun that agrees with anyone."""
    from cli import i18n

    rules, seating = preset("classic"), Seating(4, 2)
    m = Match(rules, seating, 0)
    for _ in range(6):
        m = m.record((SideScore(distance=100), SideScore(distance=700, trip=400)))
    assert m.winner() == 1
    for lang, winner in (("en", "Bo & Di: "), ("fr", "Bo & Di : ")):
        with i18n.using(lang):
            said = " ".join(" ".join(render.plain(render.match_lines(
                m, ["Ana", "Bo", "Cy", "Di"], verbose=True))).split())
        assert winner in said, said
        line = said[said.index(winner):]
        assert "winner of the match" in line if lang == "en" \
            else "vainqueur de la partie" in line, line
        assert "gagne" not in said and "wins" not in said, said
