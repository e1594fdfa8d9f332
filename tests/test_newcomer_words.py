"""What a first-time player read wrong, in words: a distance card "on zz", the discard key
listed in classic rules, "You drew" of a card taken from the discard pile, a raw English
peer state, and another player's turn said without its time limit."""

from __future__ import annotations

import shlex

import pytest
from cli_helpers import PeerStub
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_cli_commands import HAND, make, pos, rolling

from cli.app import TableApp
from cli.commands import parse
from cli.driver import LocalDriver
from cli.words import PEER_STATES, help_text, limit_note, waiting_text
from engine import Discard, Draw, Kind, Seating, card_name, preset
from engine.state import DRAW, PLAY


def test_a_name_after_a_distance_card_is_refused_when_nobody_has_it() -> None:
    ctx = rolling(make(HAND))
    n = pos(ctx, Kind.D25)
    assert parse(f"play {n} on zz", ctx).text == \
        "nobody at the table is called zz (opponents: Bo, Cy)"
    assert parse(f"play {n} 2", ctx).kind == "error"
    assert parse(f"play {n} on bo", ctx).text.startswith("25 is not a hazard")


def test_the_discard_key_is_listed_only_where_the_rules_allow_it() -> None:
    assert "g  take the top of the discard pile" not in help_text(True, draw_discard=False)
    assert "g  take the top of the discard pile" in help_text(True, draw_discard=True)


def test_the_line_modes_prompt_names_only_commands_that_work() -> None:
    ctx = make(HAND)
    text = waiting_text(ctx.view, 0, ctx.names, keys=False)
    assert text == "Your turn: play or discard a card (play N, discard N)."


def test_every_transport_state_has_words_and_waits_say_their_limit() -> None:
    assert {"connecting", "slow", "unknown"} <= set(PEER_STATES)
    assert limit_note(None) == "(no time limit)"
    assert limit_note(20.0) == "(up to 20 s)"


class _Peers(LocalDriver):
    """An in-process table whose other seats count as people (as at a network table)."""

    decision_limit = None

    def is_bot(self, seat: int) -> bool:
        return False


def _to_my_draw_with_a_discard(d: LocalDriver) -> None:
    for _ in range(400):
        d.run_others()
        view = d.view()
        if view.phase == DRAW and any(isinstance(a, Draw) and a.source == "discard"
                                      for a in d.legal()):
            return
        legal = d.legal()
        move = next((a for a in legal if isinstance(a, Discard)), legal[0])
        d.submit(move)
    raise AssertionError("no discard to take")


def test_taking_the_discard_is_said_so_and_anothers_turn_says_its_limit() -> None:
    d = _Peers(preset("modern"), Seating.solo(2), ["Ann", "Bo"], seed=4)
    _to_my_draw_with_a_discard(d)
    with create_pipe_input() as inp:
        app = TableApp(d, input=inp, output=DummyOutput(), delay=0)
        app.sync_hand()
        top = d.view().discard[-1]
        app.execute("draw discard")
        app.sync_hand()
        assert app.message.startswith(f"You took {card_name(top)} from the discard pile"), \
            app.message
        assert d.view().phase == PLAY
        legal = d.legal()
        d.submit(next((a for a in legal if isinstance(a, Discard)), legal[0]))
        assert not d.my_move()
        assert app._waiting().endswith("(no time limit)."), app._waiting()


def test_a_pause_for_silence_is_said_as_a_pause_even_once_the_table_resumed() -> None:
    """The host's log said "The match stopped: seat 2 (Bea) is unresponsive" when the
    event was read after the agreed bot had resumed the table (no longer paused)."""

    from cli.netdriver import NetDriver
    from p2p.table import SessionEvent

    d = object.__new__(NetDriver)
    d.peer = PeerStub(agreed_end=None, paused=False, finished=False, takeovers=[])
    d.names = ("Ann", "Bo", "Bea")
    d._shown_hand = 1
    why = {"id": "unresponsive", "seat": 2, "step": "game.act", "gone": True}
    ev = SessionEvent("stopped", "the match stopped", {"reason": "seat 2 (Bea) is "
                                                       "unresponsive", "why": why})
    words = d._words(ev)
    assert words.startswith("Paused: "), words


def test_an_agreed_takeover_is_said_before_the_deal_of_the_hand_it_starts() -> None:
    from cli.netdriver import agreed_first
    from p2p.table import SessionEvent

    evs = [SessionEvent("stopped", "", {}), SessionEvent("hand-start", "", {"hand": 1}),
           SessionEvent("takeover", "", {"hand": 0, "seat": 1, "runner": 0})]
    assert [e.kind for e in agreed_first(evs)] == ["stopped", "takeover", "hand-start"]
    later = [SessionEvent("hand-start", "", {"hand": 0}),
             SessionEvent("takeover", "", {"hand": 0, "seat": 1, "runner": 0})]
    assert [e.kind for e in agreed_first(later)] == ["hand-start", "takeover"]


def test_a_quiet_players_untimed_move_says_when_the_table_pauses() -> None:
    """Newcomer review: "Waiting for Jo (slow) (no time limit)." while Jo's computer had
    stopped answering, and the table paused 25 s later on its own; "Jo left … Waiting for
    Jo to come back (millebornes resume)" said no limit and read as a command for the
    reader to run. Both now say the bound, and whose computer resume runs on."""
    from types import SimpleNamespace

    from cli.netdriver import NetDriver
    from p2p.table import TableStep

    class Driver:
        names = ["Ann", "Jo"]
        seat, over, hand_no = 0, False, 1
        broken: set[int] = set()
        bots: set[int] = set()
        step_limit, decision_limit = 20.0, None
        silent_words = NetDriver.silent_words
        held_by = NetDriver.held_by

        def __init__(self, state: str) -> None:
            self.peer = PeerStub(
                stopped=None, silence_limit=lambda: 25.0, peer_state=lambda seat: state,
                waiting_on=lambda: SimpleNamespace(seat=1, step=TableStep.MOVE))

        def replaced(self) -> None:
            return None

        def silent(self) -> None:
            return None

        def current_names(self) -> list[str]:
            return self.names

    def said(state: str) -> str | None:
        return NetDriver.activity(Driver(state))            # type: ignore[arg-type]

    assert said("connected") is None                        # a player thinking: untimed
    assert said("slow") == ("Waiting for Jo (slow): after 5 s of silence their computer "
                            "counts as gone; then the table waits up to 20 s for them, and "
                            "pauses."), said("slow")
    gone = said("gone")
    assert gone is not None and ("Waiting for Jo to come back (millebornes resume on their "
                                 "computer) for up to 20 s, then the table pauses") in gone


class _PausedOn:
    """A network console's driver paused on seat 1, as far as the pause's words need one
    (NetDriver's own methods for them): the seat's transport ``state``, the table's
    ``stop_why``, and whether the seat said it quit (a signed AWAY)."""

    seat, over, hand_no = 0, False, 1
    bots: frozenset[int] = frozenset()      # no bot of this computer's (as a player's)
    bot_maker = None

    def __init__(self, names: list[str], state: str, stop_why: dict[str, object],
                 quit: bool) -> None:

        from cli.netdriver import NetDriver
        self.names = names
        self.broken: set[int] = set()
        self.peer = PeerStub(peer_state=lambda seat: state, stop_why=stop_why,
                                    quit_for_now=lambda seat: quit, paused=True,
                                    takeovers=[])
        for name in ("_bot_name", "bot_runner_name", "runner_name"):
            setattr(self, name, getattr(NetDriver, name).__get__(self))
        self.silent_is_back = lambda: NetDriver.silent_is_back(self)  # type: ignore[arg-type]
        self.silent_words = lambda plain: NetDriver.silent_words(self, plain)  # type: ignore[arg-type]
        self.held_by = lambda: NetDriver.held_by(self)  # type: ignore[arg-type]

    def replaced(self) -> None:
        return None

    def silent(self) -> int:
        return 1

    def agreement_status(self) -> None:
        return None

    def no_agreement(self, plain: bool) -> None:
        return None

    def current_names(self) -> list[str]:
        return self.names


def test_a_paused_seat_whose_player_is_back_is_said_back_not_left() -> None:
    """Newcomer review: Jo resumed and his screen said "You are back at the table", yet
    the host's still said "Jo left … press b: a bot takes the seat" until Jo moved (his
    signed move lifts the pause), inviting the others to replace a player who was back."""
    from cli.netdriver import NetDriver

    def Driver(state: str) -> _PausedOn:
        # the table paused once Jo's computer had gone (it stopped answering)
        return _PausedOn(["Ann", "Jo"], state, {"id": "unresponsive", "step": "game.act",
                                                "gone": True}, quit=False)

    back = NetDriver.activity(Driver("connected"))           # type: ignore[arg-type]
    assert back is not None and back.startswith(
        "Jo is connected again: the table goes on once their move arrives."), back
    assert "press b" in back                                 # if the move never comes
    gone = NetDriver.activity(Driver("gone"))                # type: ignore[arg-type]
    assert gone is not None and gone.startswith("Jo left; the game is saved."), gone


def test_a_player_who_quit_is_not_said_back_while_their_computer_closes() -> None:
    """Played over the network: Ben typed quit; Ann's screen said "Ben quit for now",
    then "Ben is connected again: the table goes on once their move arrives", then "Ben
    left". His computer was still connected for a moment after his signed AWAY, and the
    pause read that as his return. Until he answers again, he has left."""
    from cli.netdriver import NetDriver

    def Driver(quit: bool) -> _PausedOn:
        return _PausedOn(["Ann", "Ben"], "connected", {"id": "unresponsive",
                                                       "step": "game.act", "away": True},
                         quit=quit)

    closing = NetDriver.activity(Driver(quit=True))          # type: ignore[arg-type]
    assert closing is not None and closing.startswith("Ben left; the game is saved."), closing
    assert "connected again" not in closing
    answered = NetDriver.activity(Driver(quit=False))        # type: ignore[arg-type]
    assert answered is not None and answered.startswith("Ben is connected again"), answered


def test_a_player_with_a_name_of_their_own_is_you_in_every_sentence() -> None:
    """`play --name Zoé` (and every network player): the log said "You drew Roll." of
    the player's moves, but "Hand 1: the cards are dealt; Zoé plays first", "Hand 1 over:
    Zoé completed the trip." and "Match over: Zoé wins." of the same player, and the
    status line said so too. Every sentence on this screen says "you"."""
    from engine.bots import make_bot

    said: list[str] = []
    for seed in range(4):
        d = LocalDriver(preset("modern"), Seating.solo(2), ["Zoé", "Bo"], seed=seed)
        me = make_bot("heuristic", seed)
        while not d.over:
            if d.hand_over:
                d.next_hand()
            elif d.my_move():
                d.submit(me.choose(d.view(), d.legal()))
            else:
                d.step_others()
        said += d.events
        said.append(TableApp(d, output=DummyOutput())._table_status())
    assert not [x for x in said if "Zoé" in x], [x for x in said if "Zoé" in x]
    assert any(" you play first;" in x for x in said), said
    assert any(x.startswith(("Match over: you win.", "Hand 1 over: you completed")) for x in said)


def test_a_resumed_players_voided_hand_is_held_with_its_own_cards() -> None:
    """Newcomer pass 10: Ben resumed after a bot took his seat; the takeover (hand 1 left
    without a score) was read before the screen had drawn anything, and the hand held
    under "Hand 1 over. Press Enter for hand 2" showed hand 2's cards."""
    from types import SimpleNamespace

    from cli.netdriver import NetDriver
    from engine import Seating, new_hand, preset, view_of
    from p2p.table import SessionEvent

    rules, seating = preset("classic"), Seating.solo(2)
    deck = list(rules.deck(seating))
    hand1 = view_of(new_hand(rules, seating, deck, 0), 1)
    hand2 = view_of(new_hand(rules, seating, deck[::-1], 1), 1)
    shown = [hand1]
    events: list[SessionEvent] = []
    peer = PeerStub(
        me=1, names=["Ann", "Ben"], cfg=SimpleNamespace(rules=rules, seating=seating, n=2),
        hand_no=0, view=lambda: shown[0], takeovers=[], finished=False, stopped=None,
        paused=False, agreed_end=None, drain_events=lambda: [events.pop(0) for _ in events[:]],
        peer_state=lambda seat: "connected", quit_for_now=lambda seat: False)
    d = NetDriver(peer)                                      # type: ignore[arg-type]
    # the saved log was hand 1's; the table has agreed the takeover and dealt hand 2
    shown[0], peer.hand_no = hand2, 1
    peer.takeovers = [SimpleNamespace(seat=1, hand=0, runner=0)]
    events += [SessionEvent("takeover", "", {"hand": 0, "seat": 1, "runner": 0}),
               SessionEvent("hand-start", "", {"hand": 1})]
    said = d.events
    assert d.hand_over and d.hand_no == 1, said
    assert d.view().hands == hand1.hands and d.view().hands != hand2.hands


@pytest.mark.parametrize("width", [30, 50, 80])
def test_a_command_said_over_lines_pastes_into_a_shell_as_one(width: int) -> None:
    """After leaving, "Come back to it with: millebornes resume 2aa19056 --data-dir …" was
    wrapped like a sentence: cut at a space, the lines pasted into a shell as two
    commands, the first without the folder it needs. A command is said in lines that a
    shell reads back as the one command (and within the width where its words allow)."""
    import shutil
    import subprocess

    from cli import i18n
    from cli.words import command_lines

    command = ("millebornes resume 2aa19056 --data-dir '/home/zoé/My Games/mille bornes/a "
               "folder name longer than any line of a terminal' --identity "
               "/home/zoe/.config/millebornes/second-player-with-a-long-name.key --plain "
               "--lang fr")
    lines = command_lines(command, width)
    assert len(lines) > 1 and lines[0].startswith("  millebornes resume")
    assert all(i18n.cells(line) <= width for line in lines), (width, lines)
    assert all(line.endswith("\\") for line in lines[:-1]), lines
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash here")
    pasted = "printf '%s\\n' " + "\n".join(lines).lstrip()
    out = subprocess.run([bash, "-c", pasted], capture_output=True, text=True, timeout=10)
    assert out.stdout.splitlines() == shlex.split(command), (lines, out.stdout)


@pytest.mark.parametrize("width", [40, 60, 80])
def test_a_path_cut_at_its_very_end_keeps_the_space_before_the_next_option(width: int) -> None:
    """CI's temporary folder was one character longer than usual, and the resume hint's
    path filled its line exactly: it was cut after its last character with an empty
    piece left, so the next option followed it with no space ("…/g\\" then
    "--plain --lang fr": pasted, the shell read the folder "…/g--plain"). Every length
    around a line's width reads back as the command."""
    from cli.words import command_lines

    for n in range(width - 12, width + 12):
        path = "/tmp/" + "p" * n
        command = f"millebornes resume 5890df33 --data-dir {path} --plain --lang fr"
        lines = command_lines(command, width)
        pasted = "\n".join(lines).replace("\\\n", "")
        assert shlex.split(pasted) == shlex.split(command), (n, lines)


def test_the_full_screens_status_names_a_bot_that_took_a_seat_as_the_log_does() -> None:
    """Played over the network: Ben quit, a bot took his seat by agreement, and the log
    said "Ben's bot played Stop on you." while the status line under it said "Ben played
    Stop on you: c for a coup fourré…", as if Ben were back. The status names the seats
    as the log does."""
    class TookOver(LocalDriver):
        def said_names(self) -> tuple[str, ...]:
            return ("You", "Bo's bot")

    d = TookOver(preset("classic"), Seating.solo(2), ["Ann", "Bo"], seed=3)
    app = TableApp(d, output=DummyOutput())
    while d.my_move():                          # to Bo's turn
        d.submit(d.legal()[0])
    assert not d.my_move() and d.view().seat == 1
    assert app._waiting() == "Bo's bot is drawing.", app._waiting()


def test_the_line_modes_prompt_names_a_bot_that_took_a_seat_as_the_log_does() -> None:
    """The same in the line mode: "* Ben's bot played Stop on you." and, under the board,
    "Ben played Stop on you: c for a coup fourré…"."""
    import io

    from cli.plain import PlainSession

    class TookOver(LocalDriver):
        def said_names(self) -> tuple[str, ...]:
            return ("You", "Bo's bot")

    d = TookOver(preset("classic"), Seating.solo(2), ["Ann", "Bo"], seed=3)
    while d.my_move():                          # to Bo's turn
        d.submit(d.legal()[0])
    out = io.StringIO()
    PlainSession(d, out=out, inp=io.StringIO(""))._show_board(d.view(), [], 1)
    said = " ".join(out.getvalue().split())
    assert "Bo's bot is drawing." in said and "Bo is drawing." not in said, said
