"""cli.commands: command lines to engine actions, errors in words, confirmation, R9."""

from __future__ import annotations

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from cli.commands import Commander, Context, parse
from cli.completion import CommandCompleter
from cli.driver import LocalDriver
from cli.words import command_for, reply
from engine import (
    KIND_OF,
    CoupFourre,
    Discard,
    Draw,
    Extend,
    Kind,
    Pass,
    Play,
    Seating,
    legal_actions,
    new_hand,
    preset,
    view_of,
)
from engine.state import DRAW, EXTEND, OVER, PLAY, RESPOND, Attack, HandState

NAMES = ["Ana", "Bo", "Cy", "Di"]


def cards_of(k: Kind, n: int = 1, skip: int = 0) -> list[int]:
    ids = [i for i, kk in enumerate(KIND_OF) if kk is k]
    return ids[skip:skip + n]


def make(hand: list[int], n_players: int = 3, phase: str = PLAY, preset_name: str = "classic",
         teams: str | None = None, **changes: object) -> Context:
    rules = preset(preset_name)
    seating = Seating.parse(n_players, teams)
    state = new_hand(rules, seating, list(rules.deck(seating)), 0)
    state = state._replace(hands=(tuple(sorted(hand)),) + state.hands[1:], phase=phase,
                           pending=() if phase != DRAW else ("turn",), **changes)
    view = view_of(state, 0)
    return Context(view, 0, legal_actions(view, 0), NAMES[:n_players])


def rolling(ctx: Context) -> Context:
    """Every zone started with a Roll on top, so hazards have targets."""
    rolls = cards_of(Kind.ROLL, len(ctx.view.zones), skip=5)
    zones = tuple(z._replace(battle=(r,), started=True) for z, r in zip(ctx.view.zones, rolls,
                                                                          strict=True))
    view: HandState = ctx.view._replace(zones=zones)
    return ctx._replace(view=view, legal=legal_actions(view, 0))


HAND = sorted(cards_of(Kind.D25) + cards_of(Kind.D100) + cards_of(Kind.STOP)
              + cards_of(Kind.ROLL) + cards_of(Kind.GASOLINE) + cards_of(Kind.DRIVING_ACE)
              + cards_of(Kind.D50))


def pos(ctx: Context, k: Kind) -> int:
    hand = ctx.view.hand(0)
    return next(i for i, c in enumerate(hand, 1) if KIND_OF[c] is k)


def test_play_a_card_by_number() -> None:
    ctx = make(HAND)
    out = parse(f"play {pos(ctx, Kind.ROLL)}", ctx)
    assert out.kind == "action"
    assert out.action == Play(0, cards_of(Kind.ROLL)[0], None)


@pytest.mark.parametrize("line, message", [
    ("play 9", "there is no card 9 in your hand (you hold 7)"),
    ("play 0", "there is no card 0 in your hand (you hold 7)"),
    ("play x", "'x' is not a card number: use 1 to 7"),
    ("play", "play which card? e.g. play 3"),
    ("dance", "unknown command 'dance': type help for the list"),
    ("yes", "there is nothing to confirm"),
    ("y", "there is nothing to confirm"),   # was "unknown command 'y'" (newcomer pass 16)
    ("oui", "there is nothing to confirm"),
    ("pass", "there is no hazard to answer now: play or discard a card"),
    ("draw", "you have drawn already: play or discard a card"),
    ("extend yes", "there is no extension to decide now"),
])
def test_errors_are_plain_sentences(line: str, message: str) -> None:
    out = parse(line, make(HAND))
    assert out.kind == "error"
    assert out.text == message


def test_refused_play_explains_with_the_rule() -> None:
    ctx = make(HAND)
    out = parse(f"play {pos(ctx, Kind.D100)}", ctx)
    assert out.kind == "error"
    # plain words first, the rule id last in brackets (issue 11)
    assert out.text.startswith("100 cannot be played now: You need a Roll")
    assert out.text.endswith("[R5a]")


def test_hazard_target_by_name_prefix() -> None:
    ctx = rolling(make(HAND))
    n = pos(ctx, Kind.STOP)
    stop = cards_of(Kind.STOP)[0]
    assert parse(f"play {n} on bo", ctx).action == Play(0, stop, 1)
    assert parse(f"play {n} on C", ctx).action == Play(0, stop, 2)
    assert parse(f"p {n} cy", ctx).action == Play(0, stop, 2)
    many = parse(f"play {n}", ctx)
    assert many.kind == "error"
    assert many.text == "say whom to attack with Stop: play 3 on Bo or play 3 on Cy" \
        .replace("3", str(n))
    from cli import i18n
    with i18n.using("sv"):      # the choices joined in the player's language, commands as typed
        assert parse(f"play {n}", ctx).text.endswith(f": play {n} on Bo eller play {n} on Cy")
    nobody = parse(f"play {n} on zed", ctx)
    assert nobody.text == "nobody at the table is called zed (opponents: Bo, Cy)"
    me = parse(f"play {n} on ana", ctx)
    assert me.text == "a hazard goes on an opponent, not on you"
    team = rolling(make(HAND, n_players=4, teams="2x2"))
    mate = next(name for s, name in enumerate(team.names)
                if s and team.view.seating.side_of(s) == team.view.seating.side_of(0))
    assert parse(f"play {n} on {mate.lower()}", team).text == \
        f"{mate.lower()} is on your side: hazards go on an opponent"
    not_hazard = parse(f"play {pos(ctx, Kind.D25)} on bo", ctx)
    assert not_hazard.text == f"25 is not a hazard: it goes on your own side, type play {pos(ctx, Kind.D25)}"
    # the hint is given only when "play N" would work; else why the card cannot be played
    # (it said "type play 5" of a Spare Tire with no Flat Tire, and of distance before a Roll)
    idle = make(HAND)
    assert parse(f"play {pos(idle, Kind.D25)} on bo", idle).text.startswith(
        "25 cannot be played now: You need a Roll")
    assert parse(f"play {pos(idle, Kind.GASOLINE)} on bo", idle).text.startswith(
        "Gasoline cannot be played now")


def test_a_hazard_on_oneself_is_said_plainly() -> None:
    ctx = rolling(make(HAND))
    me = ctx._replace(names=("You", *ctx.names[1:]))
    assert parse(f"play {pos(me, Kind.STOP)} on you", me).text == \
        "a hazard goes on an opponent, not on you"


def test_single_opponent_needs_no_target() -> None:
    ctx = rolling(make(HAND, n_players=2))
    out = parse(f"play {pos(ctx, Kind.STOP)}", ctx)
    assert out.action == Play(0, cards_of(Kind.STOP)[0], 1)


def test_target_refused_explains() -> None:
    ctx = make(HAND)  # nobody is rolling: classic Stop needs a moving target
    out = parse(f"play {pos(ctx, Kind.STOP)} on bo", ctx)
    # Bo has not started: said so, by name (newcomer pass 9; it said the rule alone)
    assert out.kind == "error" and "Stop cannot be played now: Bo has not played a Roll " \
        "yet" in out.text and out.text.endswith("[R6]")
    # started, but a remedy on top (classic: a Roll is needed again): the rule itself, with
    # whose side is not moving (newcomer pass 12)
    gas = cards_of(Kind.GASOLINE, 1, skip=3)[0]
    zones = list(ctx.view.zones)
    zones[1] = zones[1]._replace(battle=(gas,), started=True)
    view = ctx.view._replace(zones=tuple(zones))
    out = parse(f"play {pos(ctx, Kind.STOP)} on bo",
                ctx._replace(view=view, legal=legal_actions(view, 0)))
    assert out.kind == "error" and "Stop cannot be played now: Bo is not moving: a battle " \
        "hazard needs a moving target" in out.text and out.text.endswith("[R6]")


def test_teams_target_and_partner() -> None:
    ctx = rolling(make(HAND, n_players=4, teams="2x2"))
    n = pos(ctx, Kind.STOP)
    assert parse(f"play {n} on di", ctx).action == Play(0, cards_of(Kind.STOP)[0], 1)
    assert parse(f"play {n} on cy", ctx).text == "cy is on your side: hazards go on an opponent"


def test_discard_and_safety_confirmation() -> None:
    ctx = make(HAND)
    plain = parse(f"discard {pos(ctx, Kind.D25)}", ctx)
    assert plain.action == Discard(0, cards_of(Kind.D25)[0])
    cmd = Commander()
    ace = pos(ctx, Kind.DRIVING_ACE)
    ask = cmd.handle(f"discard {ace}", ctx)
    assert ask.kind == "confirm"
    assert "Driving Ace is a safety" in ask.text and "(yes/no)" in ask.text
    done = cmd.handle("yes", ctx)
    assert done.action == Discard(0, cards_of(Kind.DRIVING_ACE)[0])
    # declining keeps the card
    assert cmd.handle(f"d {ace}", ctx).kind == "confirm"
    kept = cmd.handle("no", ctx)
    assert kept.kind == "message" and "nothing discarded" in kept.text
    assert cmd.pending is None
    # another command instead of yes cancels the question and is carried out
    assert cmd.handle(f"discard {ace}", ctx).kind == "confirm"
    assert cmd.handle(f"play {pos(ctx, Kind.ROLL)}", ctx).kind == "action"
    assert cmd.pending is None


def test_draw_commands() -> None:
    ctx = make(HAND[:6], phase=DRAW, preset_name="modern",
               discard=tuple(cards_of(Kind.REPAIRS)))
    assert parse("draw", ctx).action == Draw(0, "pile", None)
    assert parse("draw discard", ctx).action == Draw(0, "discard", cards_of(Kind.REPAIRS)[0])
    assert parse("draw d", ctx).action == Draw(0, "discard", cards_of(Kind.REPAIRS)[0])
    assert parse("play 1", ctx).text == "draw first: type draw"
    classic = make(HAND[:6], phase=DRAW, discard=tuple(cards_of(Kind.REPAIRS)))
    assert parse("draw discard", classic).text == \
        "these rules do not allow taking the discard pile: type draw"


def respond_ctx(hand: list[int]) -> Context:
    stop = cards_of(Kind.STOP, skip=1)[0]
    att = Attack(attacker=1, card=stop, side=0, responders=(0,))
    return make(hand, phase=RESPOND, attack=att, seat=1)


def test_coup_fourre_prompt_behaves_alike_with_or_without_safety() -> None:
    """R9: coup and pass are offered either way; a coup without the safety is refused
    only once asked for, and the window stays open."""
    with_row = sorted(cards_of(Kind.RIGHT_OF_WAY) + cards_of(Kind.D25, 5))
    without = sorted(cards_of(Kind.D50) + cards_of(Kind.D25, 5))
    a, b = respond_ctx(with_row), respond_ctx(without)
    assert parse("pass", a).action == Pass(0) and parse("pass", b).action == Pass(0)
    # "n to let it stand", as the prompt says: typed n was "next", "the hand is still
    # in play"
    assert parse("n", a).action == Pass(0) and parse("N", b).action == Pass(0)
    assert parse("coup", a).action == CoupFourre(0, cards_of(Kind.RIGHT_OF_WAY)[0])
    refused = parse("coup", b)
    assert refused.kind == "error"
    assert refused.text == "no coup fourré: you hold no Right of Way (the safety against Stop)"
    # one line of an 80-column status at the longest names, as the two-line prompt below it
    # takes the rest ("…the safety against Speed Limit: no coup fourré. n…" was cut off)
    assert len(reply("no-coup", safety="Right of Way", hazard="Speed Limit")) <= 78
    # and in every language, as said on the status line (in French it was cut: "…vous
    # n'avez pas Citerne d'essence (la botte contre Pann…")
    from cli import i18n
    from cli.words import card_name, sentence
    from engine.cards import SAFETY_FOR
    for lang in i18n.LANGUAGES:
        with i18n.using(lang):
            for hazard, safety in SAFETY_FOR.items():
                said = sentence(reply("no-coup", safety=card_name(KIND_OF.index(safety)),
                                      hazard=i18n.kind_name(hazard)))
                assert i18n.cells(said) <= 78, (lang, said)
    # the same completions and the same refusal of other commands in both cases
    for ctx in (a, b):
        assert parse("play 2", ctx).kind == "error"
        assert parse("draw", ctx).text == "answer the hazard first: c for a coup fourré or n to let it stand (coup / pass)"
        done = CommandCompleter(lambda ctx=ctx: ctx)
        assert [c.text for c in done.get_completions(Document("c"), CompleteEvent())] == \
            ["coup"]


def test_extension() -> None:
    ctx = make(HAND, phase=EXTEND)
    assert parse("extend yes", ctx).action == Extend(0, True)
    assert parse("extend no", ctx).action == Extend(0, False)
    assert "extend yes" in parse("extend maybe", ctx).text
    # the prompt says "n (extend no) … y (extend yes)": a bare y or n answers it in plain
    # mode too (y was an unknown command and n meant "next")
    for yes in ("y", "Y", "yes", "o", "j"):
        assert parse(yes, ctx).action == Extend(0, True), yes
    for no in ("n", "no", "non"):
        assert parse(no, ctx).action == Extend(0, False), no


def test_why_help_quit_next() -> None:
    ctx = make(HAND)
    why = parse(f"why {pos(ctx, Kind.D100)}", ctx)
    assert why.kind == "message" and why.text.startswith("100 cannot be played now: You need")
    # a sentence, as p says the same reason: "…first distance [R5a]." (? left it without
    # its full stop)
    assert why.text.endswith(" [R5a].") and why.text.count(".") == 1, why.text
    assert parse(f"? {pos(ctx, Kind.ROLL)}", ctx).text == "Roll can be played now."
    assert parse(f"?{pos(ctx, Kind.ROLL)}", ctx).text == "Roll can be played now."
    assert parse("help", ctx).kind == "help" and "play N on NAME" in parse("h", ctx).text
    assert parse("quit", ctx).kind == "quit" and parse("q", ctx).kind == "quit"
    assert parse("next", ctx).text == ("the hand is still in play (next deals the next "
                                       "hand once it is over): play or discard a card")
    over = make(HAND, phase=OVER)._replace(hand_over=True)
    assert parse("", over).kind == "next" and parse("next", over).kind == "next"
    assert "next" in parse("play 1", over).text
    done = over._replace(match_over=True)
    assert parse("next", done).text == "the match is over: type quit to leave"


def test_not_your_move() -> None:
    ctx = make(HAND, seat=1)
    ctx = ctx._replace(legal=[])
    assert parse("play 1", ctx).text == "it is Bo's turn: wait for your turn"
    # whose turn it is, in the console's words (newcomer pass 12: the engine's English "It
    # is Bo's move, not Ana's [R4]" was said in every language)
    assert parse("why 1", ctx).text == "25 cannot be played now: it is Bo's turn: wait for " \
        "your turn."


def test_completer() -> None:
    ctx = rolling(make(HAND))
    comp = CommandCompleter(lambda: ctx)

    def words(text: str) -> list[str]:
        return [c.text for c in comp.get_completions(Document(text), CompleteEvent())]

    assert words("pl") == ["play"]
    assert words("d") == ["discard", "draw"]
    assert words("play ") == [str(i) for i in range(1, 8)]
    metas = [c.display_meta_text for c in comp.get_completions(Document("play "),
                                                               CompleteEvent())]
    assert "Roll" in metas
    assert words("play 3 ") == ["on"]
    assert words("play 3 on ") == ["Bo", "Cy"]
    assert words("play 3 on c") == ["Cy"]
    assert words("extend ") == ["yes", "no"]


def test_command_for_round_trips_through_parse() -> None:
    """Every move a bot makes for the human can be typed as a command that parses back."""
    d = LocalDriver(preset("modern"), Seating.solo(3), NAMES[:3], seed=5, auto_draw=False)
    from engine.bots import make_bot
    bot = make_bot("heuristic", 1)
    checked = 0
    while not d.hand_over and checked < 300:
        if d.step_others():
            continue
        ctx = Context(d.view(), 0, d.legal(), d.names)
        for a in ctx.legal:
            line = command_for(a, ctx.view, ctx.seat, ctx.names)
            out = parse(line, ctx)
            if out.kind == "confirm":  # discarding a safety asks first; yes confirms it
                cmd = Commander()
                cmd.handle(line, ctx)
                out = cmd.handle("yes", ctx)
            assert out.kind == "action", (a, line, out)
            if isinstance(a, Draw):
                assert out.action is not None and out.action.source == a.source
            elif isinstance(a, Play) and a.target is not None:
                assert out.action == a
            else:
                assert out.action == a, (line, out)
            checked += 1
        d.submit(bot.choose(d.view(), d.legal()))
    assert checked > 50


def test_yes_and_no_in_the_players_words() -> None:
    """A French player answered the safety question with "o" (oui): nothing happened."""
    ctx = make(HAND)
    ace = pos(ctx, Kind.DRIVING_ACE)
    for word in ("o", "oui", "j", "ja", "Y"):
        cmd = Commander()
        assert cmd.handle(f"discard {ace}", ctx).kind == "confirm"
        assert cmd.handle(word, ctx).action == Discard(0, cards_of(Kind.DRIVING_ACE)[0])
    for word in ("non", "nej", "nee"):
        cmd = Commander()
        assert cmd.handle(f"discard {ace}", ctx).kind == "confirm"
        assert cmd.handle(word, ctx).kind == "message"


def test_a_move_typed_by_a_watcher_at_a_hands_end_says_a_bot_plays_the_seat() -> None:
    """Ben resumed after a bot took his seat; his line mode caught up with a fast table
    and answered what he typed at each hand's end. "discard 1" there said "the hand is
    over", as to a player at the live hand, not that a bot plays his seat."""
    watching = ("A bot plays your seat from hand 2, run by Ann: the others agreed, "
                "saying you had left.")
    ctx = make([], phase=OVER)._replace(hand_over=True, watching=watching)
    for typed in ("discard 1", "play 2", "draw", "coup"):
        out = parse(typed, ctx)
        assert (out.kind, out.text) == ("error", watching), (typed, out)
    plain = ctx._replace(watching=None)
    assert parse("discard 1", plain).text == reply("hand-over")    # a seated player's


@pytest.mark.parametrize("line", ["play ²", "discard ²", "why ²", "discard 1 ²", "²",
                                  "play " + "9" * 5000, "discard 1 " + "9" * 5000])
def test_digits_int_refuses_are_answered_not_raised(line: str) -> None:
    """"²" passes ``str.isdigit`` and ``int`` refuses it, as it refuses 5,000 digits: a
    line typed so raised ValueError out of the parser (a card typed by its name or km
    read numbers with isdigit and int). It is answered as any word that is no card."""
    out = parse(line, make(HAND))
    assert out.kind == "error"
    assert "is not a card number: use 1 to 7" in out.text or "unknown command" in out.text
