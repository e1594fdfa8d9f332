"""The seventeenth first-time-player pass: around a game, and the less-travelled screens.

In Uyghur, the last line of ``millebornes games`` began ")سىز *(" (its parenthesis drawn
pointing outwards) and read "ID، millebornes replay ID" as one run of Latin words.
`--bost 2` named no option it meant; `millebornes --rules modern play` said "VERB: invalid
choice: 'modern'". A second console on one account waited 10 s at its own table, a friend
who came late was asked about multicast, a watcher who left was told to "come back". A
long `simulate` showed nothing for a minute, Ctrl-C in its first second printed a
traceback, and in its first match said "interrupted" alone; the cheat demonstration ran
past 80 columns. French counted "1 places prises"; verify said its budget of automatic
steps as if it had happened, and cut "60" from its "s"; `--bots easy,expert` never said
which bot was the expert; replay of a match stopped in hand 2 said "its first hand".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import TerminalStream

from cli import i18n
from cli.i18n.rtl import shape, visual

# ----- 1. Uyghur: brackets after a stretch of Latin text -------------------------------------


def test_a_uyghur_bracket_after_latin_words_points_inwards() -> None:
    """A line in visual order whose Latin words sit between Latin letters (a left-to-right
    stretch, its isolates not reversed): every bracket of the sentence after it was left
    unmirrored, ")ئىزاھ(" pointing outwards."""
    said = visual("(ئىزاھ) ئىسىمBo millebornes verify Boنىڭ")
    assert said.endswith(f"({shape('ئىزاھ')[::-1]})"), said
    assert "millebornes verify" in said, said


def test_the_uyghur_games_list_says_its_last_line_in_order() -> None:
    """`millebornes --lang ug games`: "(* سىز)" drawn as it is written, and each command
    with its ID read as one ("ID، millebornes replay ID" was one run of Latin words)."""
    with i18n.using("ug") as tr:
        footer = tr.gettext("(* you) Saved in %(path)s. Use an id with: millebornes verify "
                            "ID, millebornes replay ID, millebornes resume ID") % {
                                "path": "/tmp/games"}
        lines = [tr.display(line) for line in i18n.wrap(footer, 80)]
    first = lines[0].rstrip()
    assert first.endswith(f"({shape('سىز')[::-1]} *)"), lines
    said = " ".join(lines)
    for verb in ("verify", "replay", "resume"):
        assert f"millebornes {verb} ID" in said, lines


@pytest.mark.parametrize("text", ["قاراڭ: millebornes verify ID، millebornes replay ID؛ ئاندىن",
                                  "millebornes games ؟ (ئىزاھ)"])
def test_a_uyghur_comma_after_a_command_ends_its_run(text: str) -> None:
    """A Uyghur comma, semicolon or question mark written against a command belongs to the
    sentence: the command is one run, whole."""
    said = visual(text)
    assert "millebornes verify ID" in said or "millebornes games" in said, said
    assert "ID millebornes" not in said, said


# ----- 2. an option mistyped, or written before the verb ----------------------------------


@pytest.mark.parametrize("argv, meant", [
    (["play", "--bost", "2"], "'--bots'"),
    (["play", "-players", "3"], "'--players'"),
    (["host", "--move-limt", "30"], "'--move-limit'"),
    (["join", "--tabel=Ann"], "'--table'"),
])
def test_a_mistyped_option_says_the_one_it_likely_meant(
        argv: list[str], meant: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`millebornes play --bost 2` said "unrecognized arguments: --bost 2" and left the
    newcomer to find --bots in the help, where a mistyped choice is answered with the one
    it most likely meant."""
    from cli.main import main

    assert main(["--lang", "en", *argv]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "unrecognized arguments" in err and f"did you mean {meant}?" in err, err


def test_an_option_far_from_any_is_not_guessed(capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    assert main(["--lang", "en", "play", "--zzz"]) == 2
    err = capsys.readouterr().err
    assert "--zzz" in err and "did you mean" not in err, err


@pytest.mark.parametrize("argv, said", [
    (["--rules", "modern", "play"], "--rules goes after the verb: millebornes play --rules modern"),
    (["--lang", "en", "--teams", "2x2", "--bots=easy,hard,hard", "host", "--plain"],
     "--teams, --bots go after the verb: millebornes --lang en host --teams 2x2 "
     "--bots=easy,hard,hard --plain"),
    (["--players", "3"], "--players goes after a verb, as in: millebornes play --players 3"),
    (["--rules", "modern", "join"], "--rules: millebornes join has no such option"),
])
def test_a_verbs_option_before_the_verb_says_where_it_goes(
        argv: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`millebornes --rules modern play` answered "VERB: invalid choice: 'modern' (choose
    from 'play', 'host', …)": the option was never named. Where it goes is said, with the
    command put right."""
    from cli.main import main

    with i18n.using("en"):
        assert main(argv) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert said in err, err
    assert "invalid choice" not in err, err


@pytest.mark.parametrize("argv, said, not_said", [
    (["--rules", "modern", "plya"], "'plya' is not a verb of millebornes, and options such "
     "as --rules go after the verb; did you mean 'play'? This command lists the verbs: "
     "millebornes --help", "millebornes play --rules modern plya"),
    (["--rules", "modern", "nosuchverb"], "'nosuchverb' is not a verb of millebornes, and "
     "options such as --rules go after the verb This command lists the verbs: millebornes "
     "--help", "millebornes play"),
    (["--", "play"], "", "no such option"),
])
def test_a_word_after_a_moved_option_that_is_no_verb_is_said_so(
        argv: list[str], said: str, not_said: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`millebornes --rules modern plya` suggested "millebornes play --rules modern plya"
    (the misspelt verb taken for a second value of --rules). "--" (the end of the
    options) is left to argparse, never called an option of the verb."""
    from cli.main import main

    with i18n.using("en"):
        assert main(argv) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert said in err and not_said not in err, err


def test_the_top_levels_own_options_before_the_verb_still_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--lang, --bidi and --verbose belong before the verb too: nothing said of them."""
    from cli.main import main

    with i18n.using("en"):
        assert main(["--verbose", "--lang", "en", "--bidi", "shape", "games", "--data-dir",
                     str(tmp_path)]) == 0
    assert "goes after" not in capsys.readouterr().err


# ----- 3. two consoles on one account -----------------------------------------------------


def test_join_at_a_table_hosted_with_ones_own_key_says_so_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Two consoles on one account: `millebornes host`, then `millebornes join` found the
    table, waited 10 s and said "no answer … If the host plays on this account, a second
    player needs its own key". The table found is announced with the host's key: the
    joiner's own is known at once, and so is all a second player needs (a key and a data
    folder of their own, the command with both on a line of its own)."""
    import contextlib
    import time
    from types import SimpleNamespace
    from typing import Any

    from cli_helpers import free_port

    from cli.main import main
    from p2p.crypto.identity import Identity, fingerprint
    from p2p.net import discovery

    key = tmp_path / "id.key"
    mine = fingerprint(Identity.load_or_create(key).public_key)
    port = free_port()
    table = SimpleNamespace(name="Ann's table", service_name="a", fingerprint=mine,
                            curve_key=b"\0" * 32, endpoints=[f"tcp://127.0.0.1:{port}"],
                            endpoint=f"tcp://127.0.0.1:{port}")

    class Browser:
        ignored = 0

        def wait_for(self, predicate: Any, timeout: float) -> Any:
            return [table] if predicate([table]) else None

    @contextlib.contextmanager
    def browse_tables(**_kw: Any) -> Any:
        yield Browser()

    monkeypatch.setattr(discovery, "browse_tables", browse_tables)
    monkeypatch.setattr("cli.join.GATHER_SECONDS", 0.0)
    started = time.monotonic()
    assert main(["--lang", "en", "join", "--data-dir", str(tmp_path), "--identity",
                 str(key)]) != 0
    assert time.monotonic() - started < 5
    err = capsys.readouterr().err
    flat = " ".join(err.split())
    assert f"\"Ann's table\" is hosted with your own key [{mine}]" in flat, err
    assert "millebornes join --identity ~/second.key --data-dir ~/second-games" in err, err


# ----- 4. Ctrl-C early, and a long simulation ----------------------------------------------


def test_ctrl_c_while_the_command_loads_ends_it_without_a_traceback() -> None:
    """Ctrl-C in the first second of `millebornes simulate …` (a newcomer who saw they had
    typed the wrong thing) printed a traceback through the console's libraries as they
    loaded (``wcwidth``), before main() could answer "interrupted". The Ctrl-C is made
    to come at that import here, through the command's own entry point."""
    import subprocess
    import sys
    import tomllib

    root = Path(__file__).resolve().parent.parent
    target = tomllib.loads((root / "pyproject.toml").read_text())["project"]["scripts"][
        "millebornes"]
    module, func = target.split(":")
    child = ("import builtins\n"
             "real = builtins.__import__\n"
             "def ctrl_c(name, *a, **k):\n"
             "    if name == 'wcwidth':\n"
             "        raise KeyboardInterrupt\n"
             "    return real(name, *a, **k)\n"
             "builtins.__import__ = ctrl_c\n"
             f"from {module} import {func}\n"
             f"{func}()\n")
    out = subprocess.run([sys.executable, "-c", child, "games"], capture_output=True,
                         text=True, timeout=30, cwd=root)
    assert "Traceback" not in out.stderr, out.stderr
    assert out.returncode == 130, (out.returncode, out.stderr)


def test_simulate_shows_its_progress_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """`millebornes simulate --games 20 --bots easy,hard` stood a minute with nothing on the
    screen (``tournament`` shows a progress line): a line now says the matches played, the
    time gone and the time left, redrawn in place, and ends before the report."""
    from cli import simulate
    from engine import Seating, preset

    term = TerminalStream()
    monkeypatch.setattr(simulate.Progress, "EVERY", 0.0)
    with i18n.using("en"):
        progress = simulate.Progress(3, term)
        simulate.simulate(preset("modern"), Seating.solo(2), ["random", "random"], 3, 1,
                          progress)
        progress.close()
    shown = term.text.split("\r")
    assert "0/3 matches" in shown[1] and "3/3 matches" in shown[-1], shown
    # no estimate before a match has ended ("~0 s left" said at 0 was none)
    assert "the first is being played" in shown[1] and "left" not in shown[1], shown
    assert all("s elapsed, ~" in part for part in shown[2:]), shown
    assert term.text.endswith("\n") and term.text.count("\n") == 1, term.text


def test_simulate_says_no_progress_into_a_file(capsys: pytest.CaptureFixture[str]) -> None:
    """A log or a pipe gets the report alone."""
    from cli.main import main

    assert main(["--lang", "en", "simulate", "--games", "2", "--rules", "modern", "--bots",
                 "random"]) == 0
    said = capsys.readouterr()
    assert said.err == "" and "2 matches" in said.out, said


# ----- 5. the lobby in French: one seat taken ----------------------------------------------


@pytest.mark.parametrize("taken, said", [(1, "1 place prise sur 3"), (2, "2 places prises sur 3")])
def test_the_french_lobby_agrees_with_the_seats_taken(taken: int, said: str) -> None:
    """`millebornes --lang fr lobby` with a host alone at a table of three: "1 places prises
    sur 3". The count of seats taken (or free, in join's list) chooses the form."""
    from types import SimpleNamespace

    from cli import join, lobby

    t = SimpleNamespace(name="Friday", rules="classic", seats_taken=taken,
                        seats_free=3 - taken, fingerprint="TBCWH-5FOIB",
                        endpoint="tcp://192.0.2.2:38435", addresses=["192.0.2.2"], port=38435)
    with i18n.using("fr"):
        for sign in ("+", "-"):
            text = " ".join(" ".join(lobby._said(sign, t, 80)).split())    # type: ignore[arg-type]
            assert said in text, text
        listed = " ".join(join.several_tables_text([t, t]).split())
    free = 3 - taken
    assert (f"{free} place libre sur 3" if free == 1 else f"{free} places libres sur 3") \
        in listed, listed


# ----- 6. verify's report read by a newcomer -------------------------------------------------


def test_verify_says_what_automatic_steps_are_and_its_rule_in_the_present() -> None:
    """`millebornes verify` of any game said "a seat's automatic steps may keep the table
    waiting 60 s in all in a hand, beyond 1 s each; past that the table paused at each of
    them": a newcomer read it as something that happened in their game, and could not tell
    what an automatic step is. The rule is said as a rule, with what the steps are."""
    from types import SimpleNamespace

    from cli.words import budget_text

    with i18n.using("en"):
        said = budget_text(SimpleNamespace(step_limit=20.0))    # type: ignore[arg-type]
    assert "shuffles, deals, reveals" in said, said
    assert "1 s each, and 60 s more in all in a hand" in said, said
    assert "the table pauses" in said and "paused" not in said, said


def test_the_games_list_says_each_command_with_its_id_on_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`millebornes games` ended "Use an id with: millebornes verify" / "ID, millebornes
    replay ID": the command cut from its ID. Whatever the folder's length (and with
    --data-dir, whose footer cut "millebornes" / "resume ID"), each command is on one line
    with its ID."""
    import re
    import shutil
    import tempfile

    from cli.main import main
    from engine import Seating, preset
    from p2p.table.memory import make_table
    from p2p.table.store import Store

    cfg, _ids = make_table(preset("classic"), Seating(2, 2), ["Al", "Bo"], b"nc17-games")
    base = Path(tempfile.mkdtemp(prefix="nc17-", dir="/tmp"))   # short: the cut moves
    try:
        for n in range(12):
            home = base / ("d" * (n + 1))
            Store.create(home / "millebornes", cfg.header(), 0, port=0).close()
            for argv in (["games"], ["games", "--data-dir", str(home / "millebornes")]):
                monkeypatch.setenv("XDG_DATA_HOME", str(home))
                monkeypatch.setenv("XDG_CONFIG_HOME", str(base))    # no config file
                monkeypatch.setenv("LANGUAGE", "en")      # no --lang: no flags after ID
                with i18n.using("en"):
                    assert main(argv) == 0
                lines = capsys.readouterr().out.splitlines()
                foot = lines[next(i for i, line in enumerate(lines)
                                  if line.startswith("(* you)")):]
                assert not any(re.search(r"(^|\s)millebornes( (verify|replay|resume))?$",
                                         line.rstrip(",")) for line in foot), foot
                assert not any(line.startswith(("ID", "verify", "replay", "resume"))
                               for line in foot), foot
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("verb", ["simulate", "tournament"])
def test_ctrl_c_before_the_first_match_says_there_is_nothing_to_report(verb: str) -> None:
    """Ctrl-C in the first match of `simulate` or `tournament` said "interrupted" alone (a
    later one reports the matches played): the newcomer waited for a report."""
    import argparse

    from cli.main import interrupted_line

    with i18n.using("en"):
        said = interrupted_line(argparse.Namespace(verb=verb))
    assert said == "interrupted before the first match ended: no match to report", said


# ----- 7. a friend who left, whose seat a bot took, comes back to watch, and leaves ---------


@pytest.mark.slow    # a networked match, a player away, a bot by agreement (~20 s)
def test_a_watcher_who_leaves_is_told_how_to_watch_again_not_to_come_back(
        tmp_path: Path) -> None:
    """Ben left; Ann gave his seat to a bot; Ben came back with `resume` ("you are
    watching") and left again: he read "You left; the game is saved. Come back to it
    with: millebornes resume …", as if a seat were still his to play.

    The match must still be on when he leaves (a match that ended says "The match is
    over" instead, as it should): at 20,000 points the table of bots finished it first
    once in CI, the watcher's console still saying the hands it had missed. So the match
    is played to a million points, and Ann leaves once Ben has."""
    import argparse
    import io
    import os
    import threading

    from cli_helpers import HostedByAnn, free_port, start_joiner, wait_into_first_hand
    from cli_helpers import until_said as until

    from cli import resume as resume_verb

    hport, jport = free_port(), free_port()
    ann = HostedByAnn(tmp_path, hport, match_target=1_000_000)
    ann_out = ann.out
    jdir, jkey = tmp_path / "j", tmp_path / "j.key"
    ben = start_joiner(hport, jport, jdir, jkey)
    ben_out = io.StringIO()
    ben_r, ben_w = os.pipe()
    resumed: threading.Thread | None = None
    try:
        wait_into_first_hand(jdir)
        ben.kill()
        ben.wait(10)
        until(ann_out, "type bot")
        ann.type("bot")
        until(ann_out, "Ben's seat is played by a bot run by this computer")

        def resume() -> None:
            with os.fdopen(ben_r) as inp:
                resume_verb.run(argparse.Namespace(
                    data_dir=str(jdir), identity=str(jkey), plain=True,
                    peer=[f"127.0.0.1:{hport}"]), out=ben_out, inp=inp)

        resumed = threading.Thread(target=resume, daemon=True)
        resumed.start()
        until(ben_out, "you are watching")
        os.write(ben_w, b"quit\ny\n")
        text = until(ben_out, "Check it so far with:")
        flat = " ".join(text.split())
        assert "You left the game you were watching (a bot plays your seat to the end of " \
               "the match). Watch it again with: millebornes resume " in flat, flat[-1500:]
        assert "Come back to it with" not in flat, flat[-1500:]
    finally:
        os.close(ben_w)
        if ben.poll() is None:
            ben.kill()
        if resumed is not None:
            resumed.join(30)
        ann.leave()
    assert not ann.thread.is_alive(), ann_out.getvalue()[-2000:]   # she left: it ended


@pytest.mark.parametrize("verb, said", [
    ("join", "--seat SEAT the seat to take, by its number, 1 to 5 (seat 0 is the host's; "
             "default: the first free seat)"),
    ("lobby", "(default 0: until you leave the list, with q and Enter, Ctrl-D or Ctrl-C)"),
    ("tournament", "deals per pair of bots (default: 50)"),
])
def test_a_verbs_help_says_what_its_options_take_and_their_defaults(
        verb: str, said: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`join --help` said "--seat SEAT  the seat to take" (a name? a number? which?),
    `lobby --help` "0: until Ctrl-C" (q and Enter leave it too, the default left unsaid),
    `tournament --help` no default for --deals."""
    from cli.main import main

    with i18n.using("en"), pytest.raises(SystemExit):
        main(["--lang", "en", verb, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert said in out, out


def test_the_cheat_demonstration_is_said_within_80_columns(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`millebornes simulate --fair-deck --cheat shuffle-drop --cheater 1`, a curious
    player's first look at a cheat caught: lines of 100 to 170 columns, cut mid-word by
    the terminal ("before the d" / "eal (hand 1)", "ShufflePa" / "ss"). Each sentence is
    wrapped at spaces, its further lines indented."""
    from cli.main import main

    assert main(["--lang", "en", "simulate", "--fair-deck", "--cheat", "shuffle-drop",
                 "--cheater", "1", "--transcript-dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(i18n.cells(line) <= 80 for line in lines), lines
    said = " ".join(" ".join(lines).split())
    assert "before the deal (hand 1)" in said and "verify names the same seat." in said, said


def test_join_finding_no_table_says_a_started_table_is_no_longer_announced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A friend who came late typed `millebornes join` while Ann and Ben were playing: "no
    table found … is a table hosted, is multicast allowed here?", though the table was
    there. A table is announced only until its match starts: said."""
    import contextlib
    from typing import Any

    from cli.main import main
    from p2p.net import discovery

    class Browser:
        ignored = 0

        def wait_for(self, predicate: Any, timeout: float) -> Any:
            return None

    @contextlib.contextmanager
    def browse_tables(**_kw: Any) -> Any:
        yield Browser()

    monkeypatch.setattr(discovery, "browse_tables", browse_tables)
    assert main(["--lang", "en", "join", "--data-dir", str(tmp_path), "--identity",
                 str(tmp_path / "id.key")]) != 0
    err = " ".join(capsys.readouterr().err.split())
    assert "a table is announced only until its match starts: a started table takes no " \
           "one new" in err, err


# ----- 8. bots of chosen levels ------------------------------------------------------------


def test_the_levels_chosen_for_the_bots_are_named_at_the_table(tmp_path: Path) -> None:
    """`millebornes play --bots easy,expert`: the line mode's first line and the help's
    "At this table" said "Bo (bot), Cy (bot)": which opponent was the expert, nowhere."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root), MILLEBORNES_DELAY="0", LANGUAGE="en")
    out = subprocess.run([sys.executable, "-m", "cli", "--lang", "en", "play", "--in-process",
                          "--plain", "--seed", "3", "--bots", "easy,expert", "--data-dir",
                          str(tmp_path)], input="help\nquit\ny\n", capture_output=True,
                         text=True, timeout=60, cwd=root, env=env)
    said = " ".join(out.stdout.split())
    assert "you, Bo (bot: easy), Cy (bot: expert). Type help" in said, said[:600]


def test_the_full_screens_help_names_each_bots_level() -> None:
    from cli.words import peer_label

    with i18n.using("en"):
        assert peer_label("Cy", "bot", "ready", "expert") == "Cy (bot: expert)"
        assert peer_label("Cy", "bot", "ready") == "Cy (bot)"
    with i18n.using("fr"):
        assert peer_label("Cy", "bot", "ready", "expert") == "Cy (robot : expert)"


def test_simulates_progress_fits_a_narrow_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """At 60 columns the line (some 75 cells) wrapped and was redrawn on a new line at each
    match: its bar gives way."""
    from cli import simulate

    term = TerminalStream()
    monkeypatch.setattr(i18n, "terminal_width", lambda stream=None: 60)
    monkeypatch.setattr(simulate.Progress, "EVERY", 0.0)
    with i18n.using("en"):
        progress = simulate.Progress(300, term)
        for done in (1, 150, 300):
            progress.tick(done)
        progress.close()
    for part in term.text.strip("\n").split("\r")[1:]:
        assert i18n.cells(part) < 60, part


# ----- 9. replay of a match whose first hand was left without a score ----------------------


def test_replay_of_a_match_whose_first_hand_was_voided_says_where_it_stopped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Ben left in hand 1, a bot took his seat from hand 2, and the table stopped early in
    hand 2: `millebornes replay` printed verify's lines ("the match stopped in hand 2")
    then "the match stopped during its first hand"."""
    from types import SimpleNamespace

    from cli import replay
    from cli.main import main

    path = tmp_path / "transcript.mbt"
    path.write_bytes(b"x")
    report = SimpleNamespace(unfinished=True, ok=False, stopped_hand=1)
    monkeypatch.setattr(replay, "replay_steps", lambda p: (report, []))
    monkeypatch.setattr(replay, "refused", lambda *a: False)
    monkeypatch.setattr(replay, "verify_lines", lambda *a: ["(verify's lines)"])
    assert main(["--lang", "en", "replay", str(path)]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "it stopped in hand 2; a hand left without a score is not shown" in err, err
    assert "first hand" not in err, err


@pytest.mark.parametrize("lang", ["en", "fr", "sv", "af", "ug"])
def test_verify_keeps_each_number_with_its_seconds(lang: str) -> None:
    """The French report of every game read "… faire attendre la table 1 s, et 60" / "s de
    plus en tout": a number cut from its unit. At any width, no line of verify's report
    ends in a number whose "s" begins the next."""
    import re
    from types import SimpleNamespace

    from cli.words import verify_lines

    report = SimpleNamespace(
        check=None, crypto=SimpleNamespace(offset=None, entries_checked=629),
        version_unsupported=lambda: False, too_large=lambda: False, unreadable=None,
        names=("Ann", "Bo"), totals=(), ok=True, unfinished=False, hands=[], takeovers=[],
        ended_by_agreement=None, step_limit=20.0, decision_limit=120.0,
        limits_recorded=True)
    with i18n.using(lang):
        for width in range(30, 81):
            try:
                lines = verify_lines(report, None, width)    # type: ignore[arg-type]
            except AttributeError as exc:      # what this fake report lacks, said
                raise AssertionError(exc) from None
            for a, b in zip(lines, lines[1:], strict=False):
                assert not (re.search(r"\d$", a) and re.match(r"\s*s\b", b)), (width, lines)


@pytest.mark.parametrize("argv", [["--help", "play"], ["-h", "--rules", "modern", "play"]])
def test_help_before_the_verb_is_still_the_help(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """--help before a verb shows the help, as it always did (the check of options written
    before the verb took it for one of them)."""
    from cli.main import main

    with i18n.using("en"), pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0
    said = capsys.readouterr()
    assert said.out.startswith("usage: millebornes") and "no such option" not in said.err
