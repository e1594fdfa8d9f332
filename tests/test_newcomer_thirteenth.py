"""The thirteenth first-time-player pass: what a newcomer typed, read or saw and wondered."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cli_helpers import PeerStub
from prompt_toolkit.output import DummyOutput

from cli.driver import LocalDriver
from engine import Discard, Draw, Match, Seating, SideScore, new_hand, preset, view_of
from engine.state import DRAW

# ----- 1. a watcher behind the table, on a voided hand ---------------------------------


def _behind_on_a_voided_hand() -> Any:
    """A console on hand 1, which a takeover voided, while the table has dealt, played
    and scored hand 2 (its events wait until the console moves on): the live match has
    one hand scored, 700 to 0."""
    from cli.netdriver import NetDriver
    from p2p.table import SessionEvent

    rules, seating = preset("classic"), Seating.solo(2)
    deck = list(rules.deck(seating))
    hand1 = view_of(new_hand(rules, seating, deck, 0), 1)
    hand2 = view_of(new_hand(rules, seating, deck[::-1], 1), 1)
    live = Match(rules, seating, 0).record((SideScore(distance=700), SideScore()))
    shown = [hand1]
    events: list[SessionEvent] = []
    peer = PeerStub(
        me=1, names=["Ann", "Ben"], cfg=SimpleNamespace(rules=rules, seating=seating, n=2),
        hand_no=0, view=lambda: shown[0], takeovers=[], finished=False, stopped=None,
        paused=False, agreed_end=None, drain_events=lambda: [events.pop(0) for _ in events[:]],
        peer_state=lambda seat: "connected", quit_for_now=lambda seat: False,
        peers=lambda: [], match_so_far=lambda: live if peer.hand_no >= 2 else Match(rules, seating, 0))
    d = NetDriver(peer)                                      # type: ignore[arg-type]
    shown[0], peer.hand_no = hand2, 2
    peer.takeovers = [SimpleNamespace(seat=0, hand=0, runner=1)]
    events += [SessionEvent("takeover", "", {"hand": 0, "seat": 0, "runner": 1}),
               SessionEvent("hand-start", "", {"hand": 1}),
               SessionEvent("hand-end", "", {"hand": 1, "final": hand2, "match": live,
                                             "scores": live.hands[0]})]
    return d, live


def test_a_watcher_behind_on_a_voided_hand_sees_the_totals_of_that_hand() -> None:
    """Played over the network: Ben's console was still on hand 1, voided when a bot
    took Ann's seat, while the table had scored hand 2; his header read "Match to 5000:
    Ann 700 · You 0" over hand 1, which nobody had scored."""
    from cli_helpers import SizedOutput

    from cli.app import TableApp
    from cli.render import plain

    d, live = _behind_on_a_voided_hand()
    said = d.events
    assert d.hand_no == 1 and d.hand_over and d.behind(), said
    assert d.match.totals() == (0, 0)
    app = TableApp(d, output=SizedOutput(100, 30))
    header = plain(app._table_lines())[1]
    assert header.startswith("Match to 5000:") and "700" not in header, header
    d.next_hand()                                  # on to hand 2: its end, its score
    assert d.hand_no == 2 and d.hand_over
    assert d.match.totals() == live.totals() == (700, 0)


# ----- 2. the help at 60×20 --------------------------------------------------------------

def _help_shown(app: Any) -> list[str]:
    return "".join(t for _s, t, *_r in app._help_fragments()).split("\n")


@pytest.mark.parametrize("lang, rules", [("en", "modern"), ("fr", "classic"), ("ug", "modern")])
def test_the_help_on_a_short_screen_scrolls_to_its_last_line(lang: str, rules: str) -> None:
    """At 60×20 (4 players in teams) the help ended in "…" above its closing line: the
    commands, the marks, the teams and the rules were out of reach. It says which lines
    show and scrolls with the arrows and PgDn; every line of the whole help is read."""
    from cli_helpers import SizedOutput, run_headless, until
    from prompt_toolkit.input import create_pipe_input

    from cli import i18n
    from cli.app import TableApp
    from cli.driver import LocalDriver

    def driver() -> LocalDriver:
        return LocalDriver(preset(rules), Seating.parse(4, "2x2"), ["You", "Bo", "Cy", "Di"],
                           seed=2)

    with i18n.using(lang), create_pipe_input() as inp:
        tall = TableApp(driver(), input=inp, output=SizedOutput(60, 60), lang=lang)
        tall.show_help = True
        whole = _help_shown(tall)[:-1]                 # less its closing line
    seen: list[list[str]] = []

    async def script(app: TableApp, inp: Any) -> None:
        inp.send_text("h")
        await until(lambda: app.show_help)
        for key in ["\x1b[B"] * 3 + ["\x1b[6~"] * 6:   # Down ×3, then PgDn
            seen.append(_help_shown(app))
            inp.send_text(key)
            await asyncio.sleep(0.05)
        seen.append(_help_shown(app))
        inp.send_text("\x1b[5~")                        # PgUp: back up
        await asyncio.sleep(0.05)
        seen.append(_help_shown(app))
        inp.send_text("q")
        await asyncio.sleep(0.05)
        inp.send_text("\x1b")                           # Esc closes it
        await until(lambda: not app.show_help)

    with i18n.using(lang):
        run_headless(lambda inp, out: TableApp(driver(), input=inp, output=SizedOutput(60, 20),
                                               lang=lang), script)
        scroll_word = i18n._("Lines %(first)d to %(last)d of %(count)d: the arrows or PgUp "
                             "and PgDn show the rest.").split("%")[0].strip()
    assert "…" not in [line for shown in seen for line in shown]
    read: list[str] = []
    bodies = []
    for shown in seen:
        assert len(shown) <= 20 - 3, shown
        at = next(i for i, line in enumerate(shown) if line.startswith(scroll_word))
        bodies.append(shown[:at])
        read += [line for line in shown[:at] if line not in read]
    assert bodies[0][0] == whole[0] and bodies[1][0] == whole[1]  # Down: one line on
    assert bodies[-2][-1] == whole[-1]                            # PgDn: to the last line
    assert seen[-1] != seen[-2]                                   # PgUp: back
    assert sorted(read) == sorted(set(whole)), set(whole) - set(read)


# ----- 3. a bot's time limit, from the start of its turn ---------------------------------

class _TableOfBots(LocalDriver):
    """A networked table as the screens see it (`millebornes play`): its bots' moves are
    timed, the table's moves are untimed (or ``decision_limit`` s)."""

    decision_limit: float | None = None

    def is_bot(self, seat: int) -> bool:
        return seat != self.seat


@pytest.mark.parametrize("limit, said", [(None, "(up to 30 s)"), (20.0, "(up to 16 s)")])
def test_the_full_screen_says_a_bots_limit_as_soon_as_its_turn_comes(
        limit: float | None, said: str) -> None:
    """`millebornes play`: the status said "Bo's turn." alone, and "Bo (a bot) is
    thinking (up to 30 s)." only 3 s later; the line mode said "(up to 30 s)" at once.
    Both screens say the same from the start."""
    from cli.app import TableApp
    from cli.plain import PlainSession

    d = _TableOfBots(preset("modern"), Seating.solo(2), ["You", "Bo"], seed=3)
    d.decision_limit = limit
    while d.my_move():                                  # to Bo's turn
        d.submit(d.legal()[0])
    assert not d.hand_over and tuple(d.view().actors()) == (1,)
    status = TableApp(d, output=DummyOutput())._table_status()
    assert status == f"Bo is drawing {said}.", status
    # the line mode says the turn once, true through its draw and its play (pass 29)
    assert PlainSession(d, out=io.StringIO(), inp=io.StringIO("")).turn_text() == \
        f"Bo's turn {said}."


# ----- 4. a card, or a draw, while a hazard must be answered -----------------------------

@pytest.mark.parametrize("lang", ["en", "fr", "sv", "af", "ug", "vi"])
def test_a_move_refused_while_a_hazard_is_answered_is_said_whole(lang: str) -> None:
    """80×24, French: a Stop on the player, p on a 25 said "25 ne répond pas à l'attaque :
    répondez-y d'abo… (en entier dans le journal)" above the prompt that said the keys
    to answer it anyway. The refusal says what is wrong; the line under it, how to
    answer (the line mode, with no such line, says both)."""
    from cli_helpers import SizedOutput
    from test_cli_app import _attacked

    from cli import i18n
    from cli.app import TableApp
    from cli.commands import parse

    with i18n.using(lang):
        for keys in ("play 1", "play 6", "discard 1", "draw", "draw discard", "why 1", "why 6"):
            d = _attacked(False)
            app = TableApp(d, output=SizedOutput(80, 24), lang=lang)
            app.execute(keys)
            lines, cut = app._status_layout()
            assert not cut, (lang, keys, lines)
            asked = i18n.wrap(app._waiting(), 78)
            assert lines[-len(asked):] == asked and len(lines) > len(asked), lines
            # the line mode has no prompt under its answer: it says how to answer, and
            # why the card cannot answer in the engine's words
            said = parse(keys, app.context()._replace(prompt_below=False)).text
            if keys.startswith("why"):
                assert len(said) > len(parse(keys, app.context()).text), said
            else:
                assert "c" in said.split() and "n" in said.split(), said


# ----- 5. the name a joiner is seated under: the lobby's rule, in one place --------------

def test_join_reads_a_namesakes_seat_by_the_lobbys_own_rule(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`cli.join.name_at_table` told a renamed joiner why by matching the lobby's "Ann 2"
    with a pattern of its own: a lobby that numbered namesakes otherwise ("ann (2)") left
    Ann told only "the table shows your name as ann (2)". It asks the lobby's rule."""
    from test_lobby import _drive

    from cli.join import name_at_table
    from p2p.crypto.identity import Identity
    from p2p.net.transport import Node
    from p2p.table import lobby
    from p2p.table.lobby import LobbyClient, LobbyHost
    from p2p.table.session import node_id_for

    def numbered(name: str, taken: list[str]) -> str:
        used = {t.casefold() for t in taken}
        n = 2
        while name.casefold() in used:
            name, n = f"{name.split(' (')[0]} ({n})", n + 1
        return name

    monkeypatch.setattr(lobby, "_unique_name", numbered)
    ids = [Identity.generate() for _ in range(2)]
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    try:
        host = LobbyHost(ids[0], "Ann", nodes[0], preset("classic"), Seating.solo(2))
        port = nodes[0].endpoint.rsplit(":", 1)[1]
        twin = LobbyClient(ids[1], "ann", nodes[1], f"127.0.0.1:{port}")
        _drive(host, [twin], until="seated")
        for _ in range(100):
            host.pump(0.01)
            twin.pump(0.01)
            if twin.state is not None and twin.state.seats[1] is not None:
                break
        assert twin.state is not None and twin.seat is not None
        assert twin.state.seats[twin.seat].name == "ann (2)"
        assert name_at_table(twin.state, twin.seat, "ann") == (
            "the name ann is taken at this table: you play as ann (2) (for another name: "
            "leave, then join again with --name NAME)")
        assert name_at_table(twin.state, twin.seat, "Bea") == (
            "the table shows your name as ann (2)")
    finally:
        for n in nodes:
            n.close()


# ----- 6. Uyghur --help --------------------------------------------------------------------

def test_uyghur_help_is_shaped_as_every_other_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`millebornes --lang ug play --help` printed its Uyghur in logical order, the letters
    unjoined (argparse prints it), while every other line of the cli is shaped; with
    `--bidi terminal` (a terminal that orders it itself) it stays logical."""
    from cli import i18n
    from cli.main import main

    with i18n.using("ug") as ug:
        words = ug.gettext("play against bots on this machine")
        shaped = ug.display(words)
    assert shaped != words
    previous = i18n.active()
    try:
        for argv in (["--lang", "ug", "play", "--help"],
                     ["--lang", "ug", "--bidi", "terminal", "play", "--help"]):
            with pytest.raises(SystemExit) as ended:
                main(argv)
            assert ended.value.code == 0
            said = capsys.readouterr().out
            if "terminal" in argv:
                assert words in said and shaped not in said
            else:
                assert shaped in said and words not in said, said[:400]
    finally:
        i18n.activate(previous)


# ----- newcomer play: keys ------------------------------------------------------------------

def test_backspace_is_named_backspace() -> None:
    """A newcomer pressed Backspace on the board (to take back a card's number) and read
    "The key Ctrl-H does nothing here": the terminal sends Backspace as Ctrl-H."""
    from cli_helpers import run_headless, until

    from cli.app import TableApp

    d = LocalDriver(preset("modern"), Seating.solo(2), ["You", "Bo"], seed=3)

    async def script(app: TableApp, inp: Any) -> None:
        await until(lambda: d.my_move())
        for key in ("\x7f", "\x08"):             # DEL and BS: terminals send either
            app.say("")
            inp.send_text(key)
            await until(lambda: bool(app.message))
            assert app.message == "The key Backspace does nothing here: press h for the keys."
        inp.send_text("q")
        await until(lambda: app.confirm_quit)
        inp.send_text("y")

    assert run_headless(lambda inp, out: TableApp(d, input=inp, output=out), script) == 0


def test_a_screen_too_small_says_whose_turn_under_the_last_message() -> None:
    """At 60×20 the board is hidden and its place says what the table is at; but once a
    message stood ("You drew 75 (card 7, marked ★).", the answer to a key), that was all
    it said: whose turn it was went unsaid, as on the board it never does."""
    from cli_helpers import SizedOutput

    from cli.app import TableApp

    d = LocalDriver(preset("modern"), Seating.solo(2), ["You", "Bo"], seed=3)
    d.run_others()
    assert d.my_move()
    app = TableApp(d, output=SizedOutput(60, 20))
    assert app.too_small()
    app.say("You drew 75 (card 7, marked ★).")
    said = " ".join("".join(t for _s, t, *_r in app._too_small_fragments()).split())
    turn = " ".join(app._waiting().split())
    # then, since the fifteenth pass, which of the keys that line names work here
    assert said.endswith("You drew 75 (card 7, marked ★). " + turn + " Those keys work once "
                         "the terminal is larger; until then only q (leave) and h (help) "
                         "do."), said
    assert turn.startswith("Your turn")


class _UnlockedLater(LocalDriver):
    """A table that shows a draw before its card (a network table: the draw is applied,
    then the others unlock the card): the first look after a draw from the discard pile
    sees the pile without the card and the hand without it yet."""

    between: Any = None

    def submit(self, action: Any) -> None:
        before = self.view()
        super().submit(action)
        if isinstance(action, Draw) and action.source == "discard":
            self.between = before._replace(discard=before.discard[:-1])

    def view(self) -> Any:
        if self.between is not None:
            between, self.between = self.between, None
            return between
        return super().view()


def test_a_card_taken_from_the_discard_pile_is_said_taken_when_it_comes_late() -> None:
    """`play --rules modern`, g on the 25 Cy had just discarded: the log said "You took
    25 from the discard pile." and the status under it "You drew 25 (card 7, marked ★)."
    (the screen looked while the card was still being unlocked, the pile already
    without it)."""
    from cli.app import TableApp

    for seed in range(60):
        d = _UnlockedLater(preset("modern"), Seating.solo(2), ["You", "Bo"], seed=seed)
        for _turn in range(40):
            d.run_others()
            if d.hand_over or any(isinstance(a, Draw) and a.source == "discard"
                                  for a in d.legal()):
                break
            d.submit(next(a for a in d.legal() if not isinstance(a, Draw)
                          or a.source == "pile"))
        if not d.hand_over and d.my_move():
            break
    else:
        raise AssertionError("no draw from the discard pile in 60 deals")
    app = TableApp(d, output=DummyOutput())
    app.sync_hand()
    top = d.view().discard[-1]
    app.execute("draw discard")
    app.sync_hand()                   # the look between the draw and its card
    app.sync_hand()
    assert app.message.startswith("You took "), app.message
    assert app.fresh == top


# ----- the line mode on a narrow terminal ----------------------------------------------------

def test_the_line_modes_board_is_wrapped_once_at_the_terminals_width() -> None:
    """`play --plain --teams 2x2` at 60 columns: each side's sentences, wrapped at 80,
    were wrapped again at 60, in ragged lines ("… 6 cards (Cy). Battle:" / "not started.
    Speed:" / "no limit. 0 of 1000 km."). They are wrapped once, at the terminal's width."""
    from cli import i18n, render
    from cli.plain import PlainSession

    d = LocalDriver(preset("modern"), Seating.parse(4, "2x2"), ["You", "Bo", "Cy", "Di"], seed=5)
    d.run_others()
    out = io.StringIO()
    session = PlainSession(d, out=out, inp=io.StringIO(""))
    session.width = lambda: 60                                   # type: ignore[method-assign]
    view = d.view()
    session._show_board(view, d.legal(), d.hand_no)
    said = out.getvalue().splitlines()
    assert all(i18n.cells(line) <= 60 for line in said), said
    for side in range(2):
        text = " ".join(line.strip() for line in
                        render.plain(render.zone_sentences(view, side, d.names, d.seat)))
        lines = i18n.wrap(text, 56)
        whole = ["  " + lines[0]] + ["    " + w for w in lines[1:]]
        at = said.index(whole[0])
        assert said[at:at + len(whole)] == whole, said


@pytest.mark.parametrize("line", ["play", "discard"])
def test_play_alone_before_a_draw_says_to_draw_first(line: str) -> None:
    """The line mode's newcomer typed "play" at the draw, read "play which card? e.g.
    play 3", typed "play 3" and only then read that a card must be drawn first (and
    "play" with a hazard to answer asked which card too)."""
    from test_cli_app import _attacked

    from cli.commands import Context, parse

    d = LocalDriver(preset("modern"), Seating.solo(2), ["You", "Bo"], seed=3)
    d.run_others()
    while d.view().phase != DRAW:           # on to a turn that starts with a draw
        d.submit(next(a for a in d.legal() if isinstance(a, Discard)))
        d.run_others()
    ctx = Context(d.view(), d.seat, d.legal(), d.names)
    assert parse(line, ctx).text == parse(f"{line} 1", ctx).text == parse("discard 1", ctx).text
    assert parse(line, ctx).text.startswith("draw first"), parse(line, ctx).text
    a = _attacked(False)
    ctx = Context(a.view(), a.seat, a.legal(), a.names)
    assert parse(line, ctx).text == parse("discard 1", ctx).text
    assert parse(line, ctx).text.startswith("answer the hazard first")


def test_the_line_modes_help_puts_what_a_command_does_under_it() -> None:
    """`help` in the line mode at 60 columns: "play card N on your side (distance,
    remedy, safety)" stood under "play N" at the same indent, read as one more command.
    What a command does goes under it, further in."""
    from cli import i18n
    from cli.plain import PlainSession

    d = LocalDriver(preset("modern"), Seating.solo(2), ["You", "Bo"], seed=3)
    out = io.StringIO()
    session = PlainSession(d, out=out, inp=io.StringIO(""))
    session.width = lambda: 60                                   # type: ignore[method-assign]
    session._help()
    said = out.getvalue().splitlines()
    assert all(i18n.cells(line) <= 60 for line in said), said
    at = said.index("  play N")
    assert said[at + 1:at + 4] == ["      play card N on your side (distance, remedy, safety)",
                                   "  play N on NAME",
                                   "      play hazard N on an opponent (a name prefix is enough)"]
    assert "  why N  (? N)     why card N can or cannot be played now" in said  # it fits
    wide = io.StringIO()
    PlainSession(d, out=wide, inp=io.StringIO(""))._help()       # 80 columns: as written
    assert "  play N           play card N on your side (distance, remedy, safety)" in \
        wide.getvalue().splitlines()


# ----- the wait before the first card ------------------------------------------------------

@pytest.mark.parametrize("plain", [True, False])
def test_play_says_what_it_waits_for_before_the_first_card(
        plain: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`millebornes play` at six players: the terminal stayed blank for seconds while the
    bots started and every seat shuffled, with no word of what was happening or for how
    long. It is said first, with its limit (the bots' start and the deal's)."""
    from cli import play
    from cli.args import build_parser

    class Stop(Exception):
        pass

    def table(*args: Any, **kwargs: Any) -> Any:
        said = capsys.readouterr().out
        assert " ".join(said.split()) == (
            "Setting up the table: the bots start, then every seat shuffles and the cards are "
            "dealt (a few seconds, at most 90 s).")
        raise Stop

    monkeypatch.setattr(play, "LoopbackTable", table)
    parser, _verbs = build_parser()
    args = parser.parse_args(["play", "--players", "6", *(["--plain"] if plain else [])])
    with pytest.raises(Stop):
        play.run(args)


def test_a_card_played_on_me_is_answered_as_on_oneself() -> None:
    """`play 2 on me` (a hazard) said "nobody at the table is called me (opponents: Bo,
    Di)"; "me" is the player, as "you" was already."""
    from cli.commands import Context, parse
    from cli.render import hand_cards
    from cli.words import card_name

    def ctx_for(names: list[str]) -> Context:
        d = LocalDriver(preset("modern"), Seating.parse(4, "2x2"), names, seed=9)
        d.run_others()
        d.submit(next(a for a in d.legal() if isinstance(a, Draw)))
        return Context(d.view(), d.seat, d.legal(), d.names)

    ctx = ctx_for(["You", "Bo", "Cy", "Di"])
    held = [card_name(c) for c in hand_cards(ctx.view, 0)]
    hazard, roll = held.index("Out of Gas") + 1, held.index("Roll") + 1
    assert parse(f"play {hazard} on me", ctx).text == parse(f"play {hazard} on you", ctx).text \
        == "a hazard goes on an opponent, not on you"
    assert parse(f"play {roll} on me", ctx).text == (
        f"Roll is not a hazard: it goes on your own side, type play {roll}")
    # a player who is called Me is that player
    ctx = ctx_for(["Ann", "Me", "Cy", "Di"])
    out = parse(f"play {hazard} on me", ctx)
    assert (out.kind == "action" and out.action.target == 1) or "Me & Di" in out.text, out


def test_a_joiner_seated_under_a_namesakes_name_plays(tmp_path: Path) -> None:
    """Played over the network: Ann joined Ann's table, was told she played as "Ann 2",
    said ready, and as the host started her join ended: "the host started another table
    than the one agreed: the host changed our name" (two players with one login name
    never got to play). A name the lobby's rule gives a namesake is agreed; any other
    name is still refused."""
    from test_lobby import _drive

    from p2p.crypto.identity import Identity
    from p2p.net.transport import Node
    from p2p.table.lobby import LobbyClient, LobbyHost, namesakes_name
    from p2p.table.session import node_id_for

    ids = [Identity.generate() for _ in range(2)]
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    try:
        host = LobbyHost(ids[0], "Ann", nodes[0], preset("modern"), Seating.solo(2))
        port = nodes[0].endpoint.rsplit(":", 1)[1]
        twin = LobbyClient(ids[1], "Ann", nodes[1], f"127.0.0.1:{port}")
        _drive(host, [twin], until="seated")
        host.set_ready(True)
        hs, (cs,) = _drive(host, [twin])
        assert twin.refused is None, twin.refused
        assert hs is not None and cs is not None and cs.seat == 1
        assert [p.name for p in cs.cfg.players] == ["Ann", "Ann 2"]
    finally:
        for n in nodes:
            n.close()
    assert namesakes_name("Ann 2", "Ann") and namesakes_name("Ann 3", "Ann")
    assert not namesakes_name("Bob", "Ann") and not namesakes_name("Ann", "Ann")
    assert not namesakes_name("Ann 2 2", "Ann") and not namesakes_name("Anne 2", "Ann")


def test_the_line_modes_help_note_is_one_paragraph_in_french() -> None:
    """French `aide` at 60 columns ended "…entre parenthèses ;" / "« jouable » marque ce
    que" / "vous pouvez jouer maintenant.": the translation's line break kept a short line
    in the middle of the sentence. The note is wrapped as one paragraph."""
    from cli import i18n
    from cli.plain import PlainSession

    d = LocalDriver(preset("modern"), Seating.solo(2), ["You", "Bo"], seed=3)
    with i18n.using("fr"):
        out = io.StringIO()
        session = PlainSession(d, lang="fr", out=out, inp=io.StringIO(""))
        session.width = lambda: 60                               # type: ignore[method-assign]
        session._help()
    said = out.getvalue().splitlines()
    at = next(i for i, line in enumerate(said) if line.startswith("La famille"))
    note = " ".join(said[at:]).split(" Cette partie")[0]
    assert said[at:at + 2] == i18n.wrap(note, 60)[:2], said[at:]
