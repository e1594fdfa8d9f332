"""The thirtieth first-time-player pass: what the twenty-ninth left, and what a new player
met after it.

1. The lobby's lines began in small letters, beside the host's and the table's own
   capitals: "you sit at seat 1 (…)", "the host's key is …", "ready", "not ready",
   "left the table", "unknown command 'redy': …", "seat 7 …"; and the host's
   "Type 'ready' / 'unready', 'quit' to close the table" read as three words that close
   the table. Each is a sentence now.
2. The notice of a terminal too small for the board said "Please make it larger (the game
   goes on meanwhile)" at the player's own turn, when nothing goes on without them: it
   says the game waits for them then, and goes on only while others play.
3. A team's row on the board shows "7/6 cards": read as a fraction (seven of six?) by a
   player who had not opened the help, the one place that said it. The log's first line
   at a team table says it.
4. "millebornes join: the host refused: the table is full" and the join ended, no next
   step said: it says every seat is taken, and the commands that find another table or
   open one's own.
5. Modern rules shuffle the discards into a new draw pile when it runs out, but not after
   the idle reshuffles allowed (no distance played since the last one, R4b): the draws
   then stopped with nothing said, where a newcomer waited for one. The draw that took
   the last card says it, and what happens now.
6. `verify` of a game left at a move ended "(The next entry, due from seat 0 (You), is
   missing: move.)", the protocol's words: "(The file ends before your next move.)", or
   "… the next move of Bo, at seat 1." when another player's was due. A player who quit
   (the others signed that the move did not come) was "move [unresponsive]": it says
   what the others signed, and that nobody is blamed.
7. A player known by another key: "warning: Ben [PVJID-CVLRM] has a key we have not seen
   for this name (known: GSMM" / "L-G5RIZ): …" — printed as one long line, the terminal
   cut the known key in two. Wrapped at words now, and a sentence.
8. `games` ended "Use an id with: millebornes verify ID, …" where the program is
   .venv/bin/millebornes (not on the PATH; every other command names it as typed), and
   `resume` of a match over said only how to watch it: it says how to play a new one.
9. Three players, a hazard picked in another's turn: "target: Ann (t changes; can go on:
   nobody now)", as if the hazard could go on no one: it says the card is played in the
   player's turn.
10. French verify of one's own game stopped at one's own shuffle step: "en attente de
    vous … (L'entrée suivante, attendue de la place 0 (Vous), …)": "vous (place 0)" now.
11. `verify` and `replay` of a file that is not there, or not a transcript, said "its
    short id from `millebornes games`": the program as typed, with the player's
    --data-dir (the default folder's games were listed, or "command not found").
12. Teams of two, a hazard picked: "target: Bo (t changes; can go on: Bo & Ed, Cy &
    Flo)": the target is the side, "Bo & Ed", as the list beside it and the log say.
13. `join --seat 5` at a table of three: "Seat 5 was not free: you sit at seat 1": there
    is no seat 5; it says so, and which seats there are.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import SizedOutput, free_port
from prompt_toolkit.input import create_pipe_input
from test_newcomer_plain import Player

from cli import i18n, words
from cli.app import TableApp
from cli.driver import LocalDriver
from engine import Action, Family, Seating, family, preset
from engine.actions import Discard, Draw

# ----- 1. The lobby speaks in sentences -----


#: How the lobby's lines began (at a line's start, not wrapped on from one before).
_SMALL = re.compile(r"^(you |the host's|ready|not ready|left the table|unknown command|"
                    r"seat \d+ (was|is)|there is no|commands:|the input ended)", re.M)


def test_the_lobby_speaks_in_sentences(tmp_path: Path) -> None:
    """Host and joiner on loopback at a table of three (the match does not start): every
    line either says, after the joiner types a typo, a seat that is not there, unready,
    ready, help and leave, begins with a capital."""
    port = free_port()
    ann = Player(["host", "--plain", "--name", "Ann", "--bind", "127.0.0.1", "--port",
                  str(port), "--no-announce", "--players", "3", "--data-dir",
                  str(tmp_path / "a"), "--identity", str(tmp_path / "a.key")], tmp_path)
    bea: Player | None = None
    try:
        ann.until("others join with")
        bea = Player(["join", "--plain", "--name", "Bea", "--peer", f"127.0.0.1:{port}",
                      "--port", str(free_port()), "--data-dir", str(tmp_path / "b"),
                      "--identity", str(tmp_path / "b.key")], tmp_path)
        bea.until(r"moves you to free seat N")
        for typed, answer in (("redy", r"did you mean 'ready'\?"),
                              ("sit 7", r"There is no seat 7"),
                              ("sit 1", r"You sit at seat 1 already\."),
                              ("unready", r"You are not ready\."),
                              ("ready", r"You are ready\."),
                              ("xyzzy", r"Unknown command 'xyzzy'"),
                              ("help", r"Commands: 'sit N'")):
            bea.type(typed)
            bea.until(answer)
        ann.type("sit 1")
        ann.until(r"You host this table")
        ann.type("start")
        ann.until(r"Type 'ready' or 'unready'; 'quit' closes the table\.", count=2)
        bea.type("leave")
        bea.until(r"You left the table\.")
        for who in (ann, bea):
            assert not _SMALL.search(who.text), (_SMALL.search(who.text), who.text)
        assert "The host's key is" in bea.said(), bea.text
    finally:
        for p in (bea, ann):
            if p is not None:
                p.close()


def test_join_with_a_seat_the_table_does_not_have_says_so(tmp_path: Path) -> None:
    port = free_port()
    ann = Player(["host", "--plain", "--name", "Ann", "--bind", "127.0.0.1", "--port",
                  str(port), "--no-announce", "--players", "3", "--data-dir",
                  str(tmp_path / "a"), "--identity", str(tmp_path / "a.key")], tmp_path)
    bea: Player | None = None
    try:
        ann.until("others join with")
        bea = Player(["join", "--plain", "--name", "Bea", "--seat", "5", "--peer",
                      f"127.0.0.1:{port}", "--port", str(free_port()), "--data-dir",
                      str(tmp_path / "b"), "--identity", str(tmp_path / "b.key")], tmp_path)
        said = bea.until(r"you sit at seat 1 \(sit N")
        assert "There is no seat 5 to sit at (seats 1 to 2 are the players', seat 0 the " \
            "host's): you sit at seat 1" in said, said
        assert "was not free" not in said, said
    finally:
        for p in (bea, ann):
            if p is not None:
                p.close()


# ----- 2. a terminal too small at one's own turn: the game waits -----


def _notice(app: TableApp) -> str:
    return " ".join("".join(t for _s, t in app._too_small_fragments()).split())


def test_a_terminal_too_small_at_ones_turn_says_the_game_waits() -> None:
    """60×20 at the player's turn: "the game goes on meanwhile" was said while the game
    waited for them; once the bots play (the player's turn done), it does go on."""
    with create_pipe_input() as inp:
        d = LocalDriver(preset("modern"), Seating.solo(2), ["You", "Bo"], seed=3)
        d.run_others()
        assert d.my_move()
        app = TableApp(d, input=inp, output=SizedOutput(60, 20), delay=0)
        notice = _notice(app)
        assert "goes on meanwhile" not in notice, notice
        assert "the game waits for you meanwhile" in notice, notice
        d.submit(d.legal()[0])
        assert not d.my_move()          # Bo's turn: the game goes on without the player
        notice = _notice(app)
        assert "goes on meanwhile" in notice and "waits for you" not in notice, notice


# ----- 3. a team's "7/6 cards" said where a newcomer reads first -----


def test_a_team_tables_first_log_line_says_what_7_6_cards_is() -> None:
    with create_pipe_input() as inp:
        d = LocalDriver(preset("classic"), Seating(4, 2), ["You", "Bo", "Cy", "Di"], seed=3)
        app = TableApp(d, input=inp, output=SizedOutput(80, 24), delay=0)
        log = " ".join(" ".join(t for _s, t in line) for line in app._log_lines()).split()
        assert "A team's cards, as 7/6, are each partner's hand, in the order of the " \
            "names." in " ".join(log), log
    with create_pipe_input() as inp:       # a table of one-player sides: nothing to say
        d = LocalDriver(preset("classic"), Seating.solo(2), ["You", "Bo"], seed=3)
        app = TableApp(d, input=inp, output=SizedOutput(80, 24), delay=0)
        log = " ".join(" ".join(t for _s, t in line) for line in app._log_lines()).split()
        assert "7/6" not in " ".join(log)


# ----- 4. a full table says what next -----


def test_a_full_table_says_where_to_go_next(tmp_path: Path) -> None:
    """Ann hosts two seats, one a bot's, not ready yet: the table is full. Bea's join is
    refused, and told how to find another table or open her own."""
    port = free_port()
    ann = Player(["host", "--plain", "--not-ready", "--name", "Ann", "--bind", "127.0.0.1",
                  "--port", str(port), "--no-announce", "--players", "2", "--bots", "1",
                  "--data-dir", str(tmp_path / "a"), "--identity", str(tmp_path / "a.key")],
                 tmp_path)
    bea: Player | None = None
    try:
        ann.until("others join with")
        bea = Player(["join", "--plain", "--name", "Bea", "--peer", f"127.0.0.1:{port}",
                      "--port", str(free_port()), "--data-dir", str(tmp_path / "b"),
                      "--identity", str(tmp_path / "b.key")], tmp_path)
        assert bea.proc.wait(30) != 0
        said = bea.until(r"the host refused: the table is full")
        assert "the table is full. Every seat is taken: millebornes lobby lists the tables " \
            "on the LAN; millebornes host opens one of your own." in said, said
    finally:
        for p in (bea, ann):
            if p is not None:
                p.close()


def test_a_table_that_started_without_you_says_where_to_go_next() -> None:
    from cli.words import lobby_error_line

    line = lobby_error_line("started-without-you", {}, "x")
    assert line == "the host refused: the table started without you. Another table? " \
        "millebornes lobby lists the tables on the LAN; millebornes host opens one of " \
        "your own.", line


# ----- 5. modern rules: the last reshuffle used up is said -----


class _NoDistance:
    """Discards whatever it can, draws from the pile: no distance is ever played."""

    def choose(self, view: object, legal: list[Action]) -> Action:
        return ([a for a in legal if isinstance(a, Discard)]
                or [a for a in legal if isinstance(a, Draw) and a.source != "discard"]
                or legal)[0]


def test_modern_rules_say_when_the_discards_are_not_shuffled_back_any_more() -> None:
    """Two players who never play distance: the pile is reshuffled twice (the second idle,
    reshuffle_limit 1), then runs out for good. That draw says so, once; the earlier
    reshuffles said theirs."""
    me = _NoDistance()
    d = LocalDriver(preset("modern"), Seating.solo(2), ["You", "Bo"], seed=1,
                    bots=[None, _NoDistance()])
    while not d.hand_over:
        if d.others_pending():
            d.step_others()
        else:
            d.submit(me.choose(d.view(), d.legal()))
    said = i18n._(words.LAST_RESHUFFLE_USED)
    assert d.view().reshuffles == 2 and d.view().pile_size() == 0
    lines = [e for e in d.events if said in e]
    assert len(lines) == 1, d.events
    assert said.startswith("That was the last card of the draw pile, and the discards are "
                           "not shuffled into a new one")
    # after the two reshuffles said
    assert d.events.index(lines[0]) > max(
        i for i, e in enumerate(d.events) if e == "The discard pile is shuffled into a new "
        "draw pile.")


# ----- 6. verify says a missing move in a player's words -----


def _a_few_moves(tmp_path: Path) -> tuple[Path, list[Any], dict[int, bytes]]:
    """A real two-seat table's transcript, Ann and Bo, a dozen moves into its first hand:
    the file, its entries, each seat's key."""
    from engine.bots import make_bot
    from engine.errors import BotFailed
    from p2p.table.memory import make_table, play_fair_match
    from p2p.testing import seeded_entropy
    from p2p.transcript.file import read_transcript

    class Enough(Exception):
        pass

    moves = [0]

    def chooser(seat: int) -> Any:
        bot = make_bot("heuristic", seat)

        def choose(view: Any, legal: list[Action]) -> Action:
            moves[0] += 1
            if moves[0] > 12:           # a few moves of each seat are enough
                raise Enough
            return bot.choose(view, legal)
        return choose

    with seeded_entropy(b"newcomer-30-verify"):
        cfg, ids = make_table(preset("modern"), Seating.solo(2), ["Ann", "Bo"], b"nc30")
        path = tmp_path / "whole.mbt"
        with pytest.raises(BotFailed):
            play_fair_match(cfg, ids, [chooser(s) for s in range(2)], transcript=path)
    return path, list(read_transcript(path).entries), {p.seat: p.key for p in cfg.players}


def test_verify_says_the_move_a_file_ends_before_in_a_players_words(tmp_path: Path) -> None:
    from test_verify_cli import _rewrite

    from cli.words import verify_lines
    from p2p.audit import verify_game

    path, envs, keys = _a_few_moves(tmp_path)
    for seat, mine, said in ((0, 0, "(The file ends before your next move.)"),
                             (1, 0, "(The file ends before the next move of Bo, at seat 1.)"),
                             (0, None, "(The file ends before the next move of Ann, at seat "
                                       "0.)")):
        k = max(i for i in range(len(envs)) if envs[i].author == keys[seat]
                and envs[i].body.get("k") == "game.act")
        cut = _rewrite(path, tmp_path / f"cut{seat}{mine}.mbt", envs[:k])
        text = " ".join(" ".join(verify_lines(verify_game(cut), me=mine)).split())
        assert said in text, text
        assert "is missing" not in text and "due from" not in text, text


def test_verify_says_ones_own_missing_step_in_the_you_form_in_french(tmp_path: Path) -> None:
    """A file that stops at one's own shuffle step: French said "en attente de vous …
    (L'entrée suivante, attendue de la place 0 (Vous), manque : …)", "vous" and the name
    "Vous" in one sentence."""
    from test_verify_cli import _rewrite

    from cli.words import verify_lines
    from p2p.audit import verify_game

    path, envs, keys = _a_few_moves(tmp_path)
    k = next(i for i in range(1, len(envs)) if envs[i].author == keys[0]
             and str(envs[i].body.get("k", "")).startswith("deck."))
    report = verify_game(_rewrite(path, tmp_path / "cut.mbt", envs[:k]))
    assert report.waiting_for == 0 and report.waiting_step.startswith("deck."), report
    with i18n.using("fr"):
        text = " ".join(" ".join(verify_lines(report, me=0)).split())
    assert "en attente de vous" in text and "attendue de vous (place 0)" in text, text
    assert "(Vous)" not in text and "(Ann)" not in text, text


def test_verify_says_a_move_the_others_signed_did_not_come_in_a_players_words(
        tmp_path: Path) -> None:
    """A seat gone at its own move: the other signs that the move did not come (a
    timeout claim), and verify of its copy said "(The next entry, due from seat 1 (p1), is
    missing: move [unresponsive].)"."""
    from test_replicated_log import _table, _transcript

    from cli.words import verify_lines
    from p2p.audit import verify_game
    from p2p.table.replicated_log import LogOptions

    t = _table(b"nc30/gone-deciding", options=LogOptions(step_limit=20.0))
    while not any(s.rlog.match.hand.needs_decision() for s in t.seats):
        t.write_turns()
        t.deliver()
    w = next(i for i, s in enumerate(t.seats) if s.rlog.match.hand.needs_decision())
    other = t.seats[1 - w].rlog
    other.seat_reachable(w, False)
    t.clock.advance(21.0)
    other.tick()
    assert other.stopped is not None and other.unresponsive == w
    t.collect(1 - w)                       # its claim, signed, goes to its copy
    report = verify_game(_transcript(tmp_path, t, 1 - w))
    assert report.check == "unresponsive" and report.waiting_step == "game.act"
    name = report.names[w]
    text = " ".join(" ".join(verify_lines(report, me=1 - w)).split())
    assert f"(The file ends before the next move of {name}, at seat {w}, which the other " \
        f"players signed did not come: {name} left, or their computer stopped answering. " \
        "Nobody is blamed for it.)" in text, text
    assert "[unresponsive]" not in text and "is missing" not in text, text
    mine = " ".join(" ".join(verify_lines(report, me=w)).split())
    assert "(The file ends before your next move, which the other players signed did not " \
        "come: you left, or your computer stopped answering." in mine, mine


# ----- 7. a changed key's warning, wrapped at words -----


def test_a_changed_keys_warning_is_wrapped_at_words(tmp_path: Path) -> None:
    """Bea knew an "Ann" by another key: the warning on joining Ann's table ran past 80
    columns in one line, a fingerprint cut in two by the terminal."""
    from p2p.crypto.identity import Identity, fingerprint
    from p2p.crypto.known import KnownPlayers

    (tmp_path / "b").mkdir()
    old = Identity.generate()
    KnownPlayers(tmp_path / "b" / "known_players").observe("Ann", old.public_key)
    port = free_port()
    ann = Player(["host", "--plain", "--name", "Ann", "--bind", "127.0.0.1", "--port",
                  str(port), "--no-announce", "--players", "2", "--data-dir",
                  str(tmp_path / "a"), "--identity", str(tmp_path / "a.key")], tmp_path)
    bea: Player | None = None
    try:
        ann.until("others join with")
        bea = Player(["join", "--plain", "--name", "Bea", "--peer", f"127.0.0.1:{port}",
                      "--port", str(free_port()), "--data-dir", str(tmp_path / "b"),
                      "--identity", str(tmp_path / "b" / "b.key")], tmp_path)
        bea.until(r"Warning: Ann \[")
        bea.until(r"a new machine, or someone else using the name\.")
        lines = bea.text.splitlines()
        assert all(len(line) <= 80 for line in lines), lines
        assert any(fingerprint(old.public_key) in line for line in lines), lines
    finally:
        for p in (bea, ann):
            if p is not None:
                p.close()


# ----- 9. a target in another's turn -----


def test_a_hazard_picked_in_anothers_turn_does_not_say_it_goes_on_nobody() -> None:
    for seed in range(1, 30):
        with create_pipe_input() as inp:
            d = LocalDriver(preset("classic"), Seating.solo(3), ["You", "Bo", "Cy"],
                            seed=seed)
            d.run_others()
            if not d.my_move():
                continue
            d.submit(next(a for a in d.legal() if isinstance(a, Discard)))
            while d.others_pending() and d.view().phase != "play":
                d.step_others()
            if d.my_move() or d.view().phase != "play":
                continue
            app = TableApp(d, input=inp, output=SizedOutput(80, 24), delay=0)
            hazards = [i for i, c in enumerate(app.cards()) if family(c) is Family.HAZARD]
            if not hazards:
                continue
            app.pick(hazards[0])
            shown = " ".join(" ".join(t for _s, t in line) for line in app._hand_lines())
            assert "target:" in shown, shown
            assert "nobody now" not in shown, shown
            assert "(t changes; you play it in your turn)" in shown, shown
            return
    raise AssertionError("no seed gave a hazard in hand in another's turn")


def test_a_teams_target_is_named_as_its_side() -> None:
    for seed in range(1, 40):
        with create_pipe_input() as inp:
            d = LocalDriver(preset("classic"), Seating(6, 3),
                            ["You", "Bo", "Cy", "Di", "Ed", "Flo"], seed=seed)
            d.run_others()
            if not d.my_move() or d.view().phase != "play":
                continue
            app = TableApp(d, input=inp, output=SizedOutput(80, 24), delay=0)
            hazards = [i for i, c in enumerate(app.cards()) if family(c) is Family.HAZARD]
            if not hazards:
                continue
            app.pick(hazards[0])
            if not app._legal_targets():
                continue
            shown = " ".join(" ".join("".join(t for _s, t in line)
                                      for line in app._hand_lines()).split())
            assert re.search(r"target: (Bo & Ed|Cy & Flo) \(t changes", shown), shown
            return
    raise AssertionError("no seed gave a playable hazard at the player's turn")


# ----- 8. games names the program as typed; resume of a match over, how to play again ---


@pytest.mark.slow        # a whole (one-hand) match through the installed script
def test_games_and_resume_of_a_match_over_name_the_program_and_a_new_match(
        tmp_path: Path) -> None:
    import shlex

    from test_newcomer_twentyninth import _run, _script

    script = _script()
    typed = shlex.quote(str(script))
    data = str(tmp_path / "d")
    r = _run(script, "play", "--plain", "--auto", "--rules", "modern", "--data-dir", data)
    assert r.returncode == 0 and "Final scores:" in r.stdout, r.stdout + r.stderr
    r = _run(script, "games", "--data-dir", data)
    said = " ".join(r.stdout.replace("\u00a0", " ").split())
    for verb in ("verify", "replay", "resume"):
        assert f"{typed} {verb} ID" in said, said
    assert "millebornes verify" not in said.replace(f"{typed} verify", ""), said
    r = _run(script, "resume", "--data-dir", data)
    # each command on lines of its own (newcomer pass 32: inside the sentence the
    # terminal cut it in two)
    said = " ".join(r.stdout.replace("\\\n", "").split())
    assert re.search(rf"Game [0-9a-f]{{8}}: the match is over\. Step through it again, "
                     rf"every player's cards face up, with: {re.escape(typed)} replay "
                     rf"[0-9a-f]{{8}} --data-dir {re.escape(data)} Start a new one with: "
                     rf"{re.escape(typed)} play --data-dir {re.escape(data)}$", said), said


# ----- 11. verify and replay of a wrong file name the games command as typed -----


def test_verify_and_replay_of_a_wrong_file_name_the_games_command_as_typed(
        tmp_path: Path) -> None:
    import shlex

    from test_newcomer_twentyninth import _run, _script

    script = _script()
    typed = shlex.quote(str(script))
    data = str(tmp_path / "my games")
    # (the command on lines of its own, continued with a backslash: pass 34; a path
    # longer than a line is cut inside its quotes, closed and opened again around the
    # cut — the shell reads it back whole, which is what is checked: the words it reads)
    games = "This command lists your games, each with its short id:"
    missing = str(tmp_path / "nothere.mbt")
    for argv, said in ((["verify", missing], games), (["replay", missing], games),
                       (["verify", __file__], f"`{typed} games`")):
        r = _run(script, *argv, *(["--data-dir", data] if said == games else []))
        text = " ".join(r.stderr.replace("\\\n", "").split())
        assert r.returncode == 2 and said in text, (argv, text)
        if said == games:
            # the command's first line is indented under the sentence; the rest of
            # what is said is the command
            command = r.stderr[r.stderr.index(f"\n  {typed} games"):].replace("\\\n", "")
            assert shlex.split(command) == [str(script), "games", "--data-dir", data], \
                (argv, r.stderr)
