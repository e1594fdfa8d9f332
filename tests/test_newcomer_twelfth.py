"""The twelfth first-time-player pass: what a newcomer typed, read or saw and wondered."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_helpers import unfold
from test_cli_commands import cards_of, make, pos, rolling
from test_cli_plain import _cli

from cli import i18n
from cli.commands import Context, parse
from cli.driver import LocalDriver
from engine import Discard, Kind, Play, Seating, legal_actions, preset

HAND = sorted(cards_of(Kind.D25, 2) + cards_of(Kind.D200) + cards_of(Kind.STOP)
              + cards_of(Kind.ROLL) + cards_of(Kind.SPARE_TIRE) + cards_of(Kind.SPEED_LIMIT))


@pytest.mark.parametrize("line, kind", [
    ("play roll", Kind.ROLL), ("play ROLL", Kind.ROLL), ("Play Roll", Kind.ROLL),
    ("play 200", Kind.D200), ("play 25", Kind.D25), ("play spare tire", Kind.SPARE_TIRE),
    ("play spare", Kind.SPARE_TIRE)])
def test_a_card_typed_by_its_name_or_its_km_is_that_card(line: str, kind: Kind) -> None:
    """A newcomer typed "play roll" holding a Roll and read "'roll' is not a card
    number"; "play 200" said "there is no card 200 in your hand"."""
    ctx = rolling(make(HAND))
    out = parse(line, ctx)
    if kind in (Kind.ROLL, Kind.SPARE_TIRE):
        # cannot be played while rolling: the answer is why, naming that card
        assert out.kind == "error"
        assert out.text.startswith(("Roll cannot be played now", "Spare Tire cannot be"))
        assert parse(f"why {line.split(' ', 1)[1]}", ctx).text == out.text + "."
    else:
        assert out.kind == "action" and isinstance(out.action, Play)
        assert out.action.card in cards_of(kind, 2)


def test_a_hazard_typed_by_its_name_goes_on_the_name_after_it() -> None:
    ctx = rolling(make(HAND))
    out = parse("play speed limit on bo", ctx)
    assert out.kind == "action"
    assert out.action == Play(0, cards_of(Kind.SPEED_LIMIT)[0], 1)
    assert parse("play stop on cy", ctx).action == Play(0, cards_of(Kind.STOP)[0], 2)
    # several targets and no name: the way to say it is by the card's number
    said = parse("play stop", ctx).text
    assert f"play {pos(ctx, Kind.STOP)} on Bo" in said


def test_discard_by_names_takes_each_card_held_once() -> None:
    ctx = make(HAND)
    out = parse("discard spare tire", ctx)
    assert out.action == Discard(0, cards_of(Kind.SPARE_TIRE)[0])
    # two 25s held: "25 25" is both (refused as two cards at once, not as one card twice)
    assert parse("discard 25 25", ctx).text.startswith("discard one card at a time")
    assert parse("discard 200 200", ctx).text == "name each card once"


@pytest.mark.parametrize("line, said", [
    ("play gasoline", "you hold no Gasoline"),
    ("play 75", "you hold no 75"),
    ("why accident", "you hold no Accident"),
    ("discard extra tank", "you hold no Extra Tank"),
    ("play 9", "there is no card 9 in your hand (you hold 7)"),
    ("play x", "'x' is not a card number: use 1 to 7")])
def test_a_card_named_but_not_held_is_said_not_held(line: str, said: str) -> None:
    assert parse(line, make(HAND)).text == said


def test_a_card_alone_says_the_command_to_type() -> None:
    """The line mode's player typed "3" (the full screen's digits pick a card) and read
    "unknown command '3'"."""
    ctx = make(HAND)
    n = pos(ctx, Kind.ROLL)
    assert parse(str(n), ctx).text == (
        f"to play Roll, type play {n}; to discard it, discard {n}")
    assert parse("roll", ctx).text == parse(str(n), ctx).text
    assert parse("9", ctx).text == "unknown command '9': type help for the list"


def test_names_in_the_players_language_and_without_accents() -> None:
    previous = i18n.activate(i18n.Translator("fr"))
    try:
        ctx = rolling(make(HAND))
        assert parse("jouer", ctx).kind == "error"      # words of commands stay English
        assert parse("play feu vert", ctx).text.startswith("La carte Feu vert")
        out = parse("discard roue de secours", ctx)
        assert out.action == Discard(0, cards_of(Kind.SPARE_TIRE)[0])
        assert parse("discard ROUE DE SECOURS", ctx).action == out.action
        assert parse("play limite de vitesse on bo", ctx).action == Play(
            0, cards_of(Kind.SPEED_LIMIT)[0], 1)
        assert parse("play roll", ctx).text.startswith("La carte Feu vert")   # English too
        assert parse("play panne d’essence", ctx).text == "vous n'avez pas de Panne d'essence"
    finally:
        i18n.activate(previous)


def test_the_end_of_a_match_says_how_to_replay_it_and_the_command_works(tmp_path: Path) -> None:
    """After a match the newcomer read how to verify it, and nothing on how to see the
    others' cards again: the replay command is said, with what finds this game (its
    --data-dir, the line mode it was played in), and works as shown."""
    data = tmp_path / "games"
    proc = _cli("play", "--plain", "--auto", "--seed", "3", "--data-dir", str(data),
                "--option", "match_target=1", timeout=120)
    assert proc.returncode == 0, proc.stderr
    said = unfold(proc.stdout)
    found = re.search(r"Step through it again, every player's cards face up, with: "
                      r"millebornes replay (\S+) --data-dir (\S+) --plain$", said.rstrip())
    assert found is not None and found[2] == str(data), said[-400:]
    shown = _cli("replay", found[1], "--data-dir", found[2], "--plain")
    assert shown.returncode == 0, shown.stderr
    # The deal is shuffled by the table, not by --seed: a tie plays another hand (RULES.md,
    # scoring: "a tie plays another hand"), so the replay is held to the hands the match dealt.
    hands = len(re.findall(r"\* Hand \d+: the cards are dealt", said))
    assert hands >= 1, said[:400]
    header = "1 hand" if hands == 1 else f"{hands} hands"
    assert shown.stdout.startswith(f"Replay of a verified game: You, Bo; {header}")


def test_the_full_screen_says_who_won_the_match_as_it_closes(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The line mode's last line names the winner; the full screen, once closed, said
    "Match totals after 1 hand: You 875, Bo 1300" and nothing of who had won."""
    from cli import app
    from engine.bots import make_bot

    d = LocalDriver(preset("modern"), Seating.solo(2), ["You", "Bo"], seed=5)
    me = make_bot("heuristic", 1)
    while not d.hand_over:
        d.run_others()
        if not d.hand_over:
            d.submit(me.choose(d.view(), d.legal()))
    assert d.over
    monkeypatch.setattr(app.TableApp, "run", lambda self: 0)
    assert app.run_app(d) == 0
    out = " ".join(capsys.readouterr().out.split())
    winner = "You" if d.match.winner() == 0 else "Bo"
    assert out == (f"Final scores: You {d.match.totals()[0]}, Bo {d.match.totals()[1]}. "
                   f"Winner: {winner}.")


def _zone1(ctx: Context, **cards: tuple[int, ...]) -> Context:
    """``ctx`` with the first opponent's side (Bo's) showing ``cards`` besides its Roll."""
    zones = list(ctx.view.zones)
    zones[1] = zones[1]._replace(**cards)
    view = ctx.view._replace(zones=tuple(zones))
    return ctx._replace(view=view, legal=legal_actions(view, 0))


@pytest.mark.parametrize("teams, lang, said", [
    (None, "en", "Flat Tire cannot be played now: Bo has Puncture-Proof, which protects them "
                 "from this hazard [R6]"),
    ("2x2", "en", "Flat Tire cannot be played now: Bo & Di have Puncture-Proof, which "
                  "protects them from this hazard [R6]"),
    (None, "fr", "La carte Crevaison ne peut pas être jouée maintenant : Bo a Increvable, "
                 "qui le protège de cette attaque [R6]")])
def test_a_hazard_refused_for_its_targets_safety_names_the_target(
        teams: str | None, lang: str, said: str) -> None:
    """"That zone has Puncture-Proof, which protects it" was said of "play flat tire on
    ann": a newcomer asked which zone, and what a zone is."""
    ctx = rolling(make(HAND + cards_of(Kind.FLAT_TIRE), n_players=4 if teams else 3,
                       teams=teams))
    ctx = _zone1(ctx, safeties=tuple(cards_of(Kind.PUNCTURE_PROOF)))
    with i18n.using(lang):
        assert " ".join(parse(f"play {pos(ctx, Kind.FLAT_TIRE)} on bo", ctx).text.split()) == said
        assert "zone" not in parse(f"why {pos(ctx, Kind.FLAT_TIRE)} on bo", ctx).text


@pytest.mark.parametrize("card, hazards, said", [
    (Kind.SPEED_LIMIT, {"speed": "SPEED_LIMIT"}, "Bo is already under a Speed Limit"),
    (Kind.STOP, {"battle": "ACCIDENT"},
     "Bo already has Accident in force; two battle hazards may not be in force together"),
    (Kind.STOP, {"battle": "GASOLINE"},
     "Bo is not moving: a battle hazard needs a moving target (Speed Limit is the only "
     "attack on a player who is not)")])
def test_every_hazard_refused_for_its_target_names_it(
        card: Kind, hazards: dict[str, str], said: str) -> None:
    ctx = rolling(make(HAND))
    ctx = _zone1(ctx, **{pile: (*getattr(ctx.view.zones[1], pile),
                                *cards_of(Kind[k], 1, skip=2))
                         for pile, k in hazards.items()})
    text = " ".join(parse(f"play {pos(ctx, card)} on bo", ctx).text.split())
    assert said in text and "zone" not in text, text


def _helps(lang: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Each help a newcomer reads first, as ``--help`` prints it at 80 columns in ``lang``."""
    from cli.args import build_parser

    monkeypatch.setenv("COLUMNS", "80")
    with i18n.using(lang):
        parser, verbs = build_parser()
        return {"": parser.format_help(),
                **{v: verbs[v].format_help() for v in ("play", "host", "join")}}


def test_the_helps_give_examples_that_work_as_typed(monkeypatch: pytest.MonkeyPatch) -> None:
    """`millebornes --help` and `play --help` listed options and no example of a whole
    command; `--rules {classic,modern}` was "rule preset" and two names."""
    import shlex

    from cli.args import build_parser

    helps = _helps("en", monkeypatch)
    parser, _verbs = build_parser()
    for verb, text in helps.items():
        assert "\nexamples:\n" in text, verb
        commands = [line.strip() for line in text.split("\nexamples:\n")[1].splitlines()
                    if line.startswith("  millebornes ")]
        assert len(commands) >= 3, (verb, commands)
        for command in commands:
            words = shlex.split(command)[1:]
            if "--help" in words:
                continue
            args = parser.parse_args(words)
            assert args.verb == (verb or words[0]), command
    play = " ".join(helps["play"].split())
    assert "classic (a trip of 700 km that may be extended to 1000" in play
    assert "the game is not saved" in play


@pytest.mark.parametrize("lang", ["en", "fr", "sv", "af", "vi", "ug"])
def test_the_helps_examples_fit_80_columns(lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for verb, text in _helps(lang, monkeypatch).items():
        examples = text.split("\n\n")[-2:]
        assert any(part.splitlines()[0].endswith(":") and "millebornes" in part
                   for part in examples), (lang, verb)
        for line in "\n".join(examples).splitlines():
            assert i18n.cells(line) <= 80, (lang, verb, line)


@pytest.mark.parametrize("lang", ["en", "fr", "sv", "af", "vi", "ug"])
@pytest.mark.parametrize("width", [80, 60])
def test_the_lobby_says_each_table_within_the_width_and_its_command_whole(
        lang: str, width: int) -> None:
    """`millebornes lobby` said each table on one line of some 120 columns: an 80-column
    terminal cut the command to type mid-word ("millebor" / "nes join --peer …")."""
    from cli.lobby import _said
    from p2p.net.discovery import TableInfo

    t = TableInfo("a._millebornes._tcp.local.", "Ann's table", "classic;match_target=3000", 2,
                  1, "UN2KD-LVPJF", 43603, ("192.168.10.20",))
    command = "millebornes join --peer UN2KD-LVPJF@192.168.10.20:43603"
    with i18n.using(lang):
        for sign in "+~":
            lines = _said(sign, t, width)
            assert all(i18n.cells(line) <= width for line in lines), lines
            assert lines[0].startswith(f'{sign} "Ann\'s table"'), lines
            assert " ".join(" ".join(lines).replace(" \\", "").split()).endswith(command)
            assert "UN2KD-LVPJF@" not in "".join(lines[:-1]), lines
        gone = _said("-", t, width)
        assert "millebornes" not in "".join(gone) and gone[0].startswith('- "Ann\'s table"')


@pytest.mark.parametrize("lang, said", [
    ("en", "Sorry: unknown command 'aide': type help for the list."),
    ("fr", "* Vous avez joué Feu vert.")])
def test_commands_typed_in_the_players_language_work(lang: str, said: str) -> None:
    """A French newcomer typed "aide", "jouer 1" and "pourquoi 1" in the line mode and
    read "commande inconnue" each time; in another's turn "why" said the engine's
    English "It is Bo's move, not You's [R4]"."""
    import io

    from cli.plain import run_plain

    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=2, lang=lang)
    out = io.StringIO()
    with i18n.using(lang):
        run_plain(d, lang=lang, out=out, inp=io.StringIO(
            "aide\njouer feu vert\npourquoi 1\nQUITTER\noui\n"))
    text = " ".join(out.getvalue().split())
    assert said in text
    if lang == "fr":
        assert "commande inconnue" not in text
        assert "Commandes (N = numéro d'une carte comme listé, ou son nom : play feu vert)" \
            in text
        assert "La carte 25 ne peut pas être jouée maintenant" in text
        assert "It is" not in text and "Vous avez quitté la table." in text


def test_why_in_anothers_turn_says_whose_turn_it_is() -> None:
    from engine.state import HandState

    ctx = rolling(make(HAND))
    view: HandState = ctx.view._replace(seat=1)
    ctx = ctx._replace(view=view, legal=legal_actions(view, 0))
    assert parse("why 1", ctx).text == (
        "25 cannot be played now: it is Bo's turn: wait for your turn.")


def test_a_preset_or_a_choice_in_capitals_is_taken() -> None:
    """`play --rules Modern` was refused: "invalid choice: 'Modern'"."""
    from cli.args import build_parser

    parser, _verbs = build_parser()
    assert parser.parse_args(["play", "--rules", "Modern"]).rules == "modern"
    assert parser.parse_args(["host", "--rules", "CLASSIC"]).rules == "classic"
    assert parser.parse_args(["tournament", "--rules", "Modern"]).rules == "modern"
    assert parser.parse_args(["lobby", "--mdns", "Loopback"]).mdns == "loopback"


def test_the_lobbies_take_their_commands_in_any_case(tmp_path: Path) -> None:
    """The joiner typed "Ready" in the lobby and read "unknown command 'Ready': did you
    mean 'ready'?"; the host's lobby answered alike."""
    import io
    import os
    import threading

    from cli_helpers import free_port
    from test_lobby import _ns

    from cli import host as host_verb
    from cli import join as join_verb

    port = free_port()
    host = _ns(name="Ann", bots=0, players=3, rules="classic", option=[], teams=None,
               bind="127.0.0.1", port=port, no_announce=True, data_dir=str(tmp_path / "h"),
               identity=str(tmp_path / "h.key"), auto=False, peer=[], not_ready=True)
    read_end, write_end = os.pipe()
    host_in = os.fdopen(read_end, "r")
    host_out = io.StringIO()
    rc: list[int | None] = [None]

    def hosting() -> None:
        rc[0] = host_verb.run(host, out=host_out, inp=host_in)

    hosting_thread = threading.Thread(target=hosting)
    hosting_thread.start()
    try:
        os.write(write_end, b"Ready\nHELP\n")
        join = _ns(name="Ben", peer=[f"127.0.0.1:{port}"], bind="127.0.0.1", port=0,
                   data_dir=str(tmp_path / "j"), identity=str(tmp_path / "j.key"),
                   auto=False, not_ready=True)
        join_out = io.StringIO()
        join_verb.run(join, out=join_out, inp=io.StringIO("Ready\nUnready\nHelp\nLeave\n"))
    finally:
        os.write(write_end, b"QUIT\n")
        os.close(write_end)
        hosting_thread.join(30)
    said = " ".join(join_out.getvalue().split())
    assert "Unknown command" not in said, said
    assert "You are ready" in said and "You are not ready" in said \
        and "Commands: 'sit N'" in said, said
    assert "You left the table" in said, said
    hosted = " ".join(host_out.getvalue().split())
    assert "unknown command" not in hosted.lower() and "Table closed" in hosted, hosted
    assert "Type 'ready' or 'unready'; 'quit' closes the table." in hosted
    assert rc[0] is not None


def test_joins_list_of_tables_says_rules_in_words_and_keeps_its_indents(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`join` with several tables on the LAN listed "classic;match_targe…" (the announced
    rules, raw and cut, where the lobby says them in words) and, at a terminal, lost its
    indents: each command to type flush left under the table's words."""
    import io
    import os
    import shutil
    import sys

    from cli import main
    from cli.join import several_tables_text
    from p2p.net.discovery import TableInfo

    tables = [TableInfo("a._millebornes._tcp.local.", "Ann's table", "classic", 1, 2,
                        "UN2KD-LVPJF", 43603, ("127.0.0.1",)),
              TableInfo("b._millebornes._tcp.local.", "Friday night",
                        "classic;match_target=3000;fast_play=yes", 1, 1, "V4UDH-Q25M2",
                        24233, ("192.168.10.20",))]
    text = several_tables_text(tables, "loopback")
    assert "Friday night' [V4UDH-Q25M2], classic rules (match_target=3000, fast_play=yes), " \
           "1 of 2 seats free" in text, text

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(shutil, "get_terminal_size",
                        lambda *a, **k: os.terminal_size((80, 24)))
    main.say_error(text)
    lines = err.getvalue().splitlines()
    assert all(i18n.cells(line) <= 80 for line in lines), lines
    assert "    millebornes join --table UN2KD-LVPJF --mdns loopback" in lines, lines
    assert "    millebornes join --table V4UDH-Q25M2 --mdns loopback" in lines, lines
    assert lines[1].startswith("  \"Ann's table\" [UN2KD-LVPJF], classic rules"), lines
    assert all(line.startswith("  ") for line in lines[1:]), lines


def test_ctrl_d_in_the_full_screen_asks_to_leave_as_q_does() -> None:
    """Ctrl-D leaves the line mode (the end of its input) and a shell; the full screen
    said "The key Ctrl-D does nothing here"."""
    from cli_helpers import run_board, until
    from prompt_toolkit.input.base import PipeInput

    from cli.app import TableApp

    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move())
        inp.send_text("\x04")
        await until(lambda: app.confirm_quit)
        assert "does nothing" not in app.message
        inp.send_text("y")

    assert run_board(d, script) == 0


def _stuck(seed: int = 4) -> LocalDriver:
    """Seed 4 deals the human no Roll and no Right of Way: nothing to play at once."""
    from cli import render

    d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=seed)
    d.run_others()
    assert render.nothing_to_play(d.view(), 0, d.legal()), "seed 4: nothing to play"
    return d


@pytest.mark.parametrize("lang, said", [
    ("en", "No card can be played now: discard one. You need a Roll (or Right of Way) "
           "before your first distance [R5a]."),
    ("fr", "Aucune carte ne peut être jouée maintenant : défaussez-en une. Il vous faut un "
           "Feu vert (ou Véhicule prioritaire) avant vos premières bornes [R5a].")])
def test_nothing_to_play_says_why_when_no_distance_can_go_down(lang: str, said: str) -> None:
    """The first hand of a newcomer opened with 25s and a 100, no Roll: "Nothing to play:
    discard a card", and nothing of why (the reason was one ? away, on each card)."""
    from cli import render

    d = _stuck()
    with i18n.using(lang):
        lines = render.plain(render.screen_lines(d.view(), d.names, 0, d.legal()))
    assert said in " ".join(" ".join(lines).split())


def test_the_full_screen_says_why_nothing_can_be_played_where_it_fits() -> None:
    from cli_helpers import leave_by_keys, run_board, until
    from prompt_toolkit.input.base import PipeInput

    from cli.app import TableApp

    d = _stuck()

    async def script(app: TableApp, inp: PipeInput) -> None:
        await until(lambda: d.my_move())
        shown = " ".join(" ".join(app.status_lines()).split())
        assert "Nothing to play: discard a card (select it, then d). You need a Roll (or " \
               "Right of Way) before your first distance [R5a]." in shown, shown
        app._size = lambda: (24, 40)              # type: ignore[method-assign]
        # no room beside a message: said without the reason, never cut
        app.message = "You drew 25 (card 7, marked ★)."
        assert "You need a Roll" not in " ".join(app.status_lines())
        app._size = lambda: (24, 80)              # type: ignore[method-assign]
        await leave_by_keys(app, inp)

    assert run_board(d, script) == 0


def test_resume_with_no_saved_game_says_what_to_do_instead(tmp_path: Path) -> None:
    """verify and replay with no saved game said "play one with `millebornes play`";
    resume said only that there was none."""
    proc = _cli("resume", "--data-dir", str(tmp_path / "none"))
    assert proc.returncode != 0
    assert "there is no saved game to resume in" in proc.stderr
    # with the folder the player gave, where the game played will be found (pass 29)
    # (its command on lines of its own: pass 33)
    assert f"play one with: millebornes play --data-dir {tmp_path / 'none'}" in \
        unfold(proc.stderr), proc.stderr


def test_lang_before_the_verb_comes_back_with_resume(tmp_path: Path) -> None:
    """`millebornes --lang fr play` showed French and, on leaving, hinted a resume without
    --lang (the verb's own --lang, left out, stood None over the one before it): the
    game came back in English."""
    proc = _cli("--lang", "fr", "play", "--plain", "--data-dir", str(tmp_path / "g"),
                stdin="quit\ny\n", timeout=120)
    said = unfold(proc.stdout)
    assert "Vous avez quitté la table" in said, said[-600:]
    found = re.search(r"millebornes resume (\S+) --data-dir (\S+) --plain --lang fr\b", said)
    assert found is not None, said[-600:]
    assert re.search(r"millebornes verify \S+ --data-dir \S+ --lang fr\b", said), said[-600:]
