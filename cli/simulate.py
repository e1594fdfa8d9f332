"""``millebornes simulate``: bot-only matches in-process, with statistics."""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine import Action, BotFailed, HandState, Rules, SeatController, Seating
from engine.bot_guard import keep_descriptor, release_descriptor
from engine.bots import BOTS, parse_bot_spec
from engine.simulate import MatchTally, checked_choice, play_match
from p2p.netsim import simulate_network
from p2p.table.memory import CHEAT_KINDS, make_table, play_fair_match, stage_cheat
from p2p.text import safe_text

from . import bot_limit, i18n
from .args import MAX_MATCHES, check_bot_entrant, rules_from, seating_from
from .bot_limit import free_bots, let_go, make_seat_bots, report_to_stdout, say_where_held
from .bot_process import exit_words
from .i18n import _, ngettext
from .progress import Progress
from .supervise import Ended, Watch, can_fork, fork_matches
from .words import cheat_demo_lines, report_width, rules_name, seating_words


def table_from_args(args: argparse.Namespace) -> tuple[Rules, Seating, list[str]]:
    """Rules, seating and one bot name per seat from simulate's arguments, all checked
    before any game starts (shared by the in-process and the network simulation)."""
    if not 1 <= args.games <= MAX_MATCHES:   # the parser's bound, for a Namespace built in code
        raise ValueError(_("%(what)s must be %(low)d to %(high)d, not %(text)s")
                         % {"what": "--games", "low": 1, "high": MAX_MATCHES, "text": args.games})
    rules = rules_from(args)
    seating = seating_from(args.players, args.teams)
    names = [b.strip() for b in args.bots.split(",") if b.strip()]
    if not names:
        raise ValueError(_("--bots needs at least one bot name"))
    if len(names) > seating.n_players:
        # cycled over the seats, the list was cut without a word: --bots mybot,heuristic,
        # random played two players, random neither seated nor checked
        raise ValueError(_("--bots names %(n)d bots for %(seats)d seats: %(left)s would "
                           "never play; seat them with --players, or name fewer bots")
                         % {"n": len(names), "seats": seating.n_players,
                            "left": i18n.join_list(names[seating.n_players:])})
    bot_names = [names[s % len(names)] for s in range(seating.n_players)]
    for b in bot_names:
        check_bot_entrant(b)
    return rules, seating, bot_names


def simulate(rules: Rules, seating: Seating, bot_names: list[str], games: int,
             seed: int, progress: Progress | None = None,
             watch: Watch | None = None) -> dict[str, Any]:
    """Play ``games`` matches; seat ``s`` gets ``bot_names[s]``. Pure statistics, no printing
    (but ``progress``'s line, told of each match played; and ``watch``, in a child process
    that plays the matches, told of each match and of the plug-in that moves)."""
    tally = MatchTally(seating)
    started = time.perf_counter()
    bots: list[SeatController] = []
    for g in range(games):
        try:
            with contextlib.redirect_stdout(sys.stderr):   # stdout is the report's
                bots = _made(bot_names, seed * 1_000_003 + g * 17, watch)
                rec = play_match(rules, seating, bots, seed * 1_000_003 + g)
                # freed here (what a bot prints as it goes is not the report's), each
                # plug-in's __del__ within its time
                free_bots(bots, bot_names)
        except BotFailed as exc:
            with contextlib.redirect_stdout(sys.stderr):
                let_go(exc, bots, bot_names)
            fault = _bot_fault(exc, bot_names, g, games)
            if g == 0:
                raise fault from None
            # the matches already played are kept: they were lost with the run before
            return {"rules": rules.to_dict(), "seating": seating.label(), "games": g,
                    "stopped": str(fault),
                    **tally.summary(bot_names, time.perf_counter() - started)}
        except KeyboardInterrupt:
            if g == 0:
                raise
            # Ctrl-C: the matches played so far are reported (they were lost)
            return {"rules": rules.to_dict(), "seating": seating.label(), "games": g,
                    "stopped": _interrupted(g, games), "interrupted": True,
                    **tally.summary(bot_names, time.perf_counter() - started)}
        tally.add(rec.match.totals(), rec.winner, len(rec.hands),
                  sum(h.final.turns for h in rec.hands))
        if watch is not None:
            watch.played(rec.match.totals(), rec.winner, len(rec.hands),
                         sum(h.final.turns for h in rec.hands))
        if progress is not None:
            progress.tick(g + 1)
    return {"rules": rules.to_dict(), "seating": seating.label(), "games": games,
            **tally.summary(bot_names, time.perf_counter() - started)}


def _made(bot_names: list[str], seed: int, watch: Watch | None) -> list[SeatController]:
    """The bots of a match (:func:`make_seat_bots`); with ``watch``, the plug-ins marked
    as they are made and as they move."""
    if watch is None:
        return make_seat_bots(bot_names, seed)
    bots = make_seat_bots(bot_names, seed, watch=watch.seat)
    return watch.watched(bots, [parse_bot_spec(b)[0] not in BOTS for b in bot_names])


class BotFault(ValueError):
    """A bot failed in the first game: no match to report (``simulate`` still shows the
    empty report and exits 1, as after a later game's fault)."""


def _bot_fault(exc: BotFailed, bot_names: list[str], game: int, games: int) -> BotFault:
    """A bot's fault in words, naming the bot, its seat and the game."""
    return BotFault(_("bot %(bot)s at seat %(seat)d failed to move in game %(game)d of "
                        "%(games)d: %(reason)s")
                      % {"bot": bot_names[exc.seat], "seat": exc.seat, "game": game + 1,
                         "games": games, "reason": safe_text(exc.reason, 200)})


def _interrupted(done: int, games: int) -> str:
    """Ctrl-C after ``done`` matches, in words (the same as ``tournament``'s)."""
    return _("stopped: interrupted after %(done)d of %(total)d matches; the report "
             "covers them") % {"done": done, "total": games}


def simulate_fair(rules: Rules, seating: Seating, bot_names: list[str], games: int,
                  seed: int, transcript_dir: str | None,
                  progress: Progress | None = None,
                  watch: Watch | None = None) -> dict[str, Any]:
    """Like :func:`simulate`, but every deal goes through the mental-poker protocol, one
    protocol object (with its own secrets and view) per seat, and each game is written
    to a transcript file."""
    n = seating.n_players
    tally = MatchTally(seating)
    entries = 0
    # absolute now: a bot that changes the working directory (os.chdir) sent the next
    # game's transcript to "tr/..." under its own folder, "No such file or directory"
    out_dir = Path(transcript_dir).absolute() if transcript_dir else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    files: list[str] = []
    started = time.perf_counter()
    bots: list[SeatController] = []
    for g in range(games):
        names = [f"{bot_names[s]}{s + 1}" for s in range(n)]
        cfg, ids = make_table(rules, seating, names, b"simulate/%d/%d" % (seed, g))
        path = None
        if out_dir is not None:
            path = out_dir / f"game-{seed}-{g:04d}-{cfg.table_id.hex()[:12]}.mbt"
        try:
            with contextlib.redirect_stdout(sys.stderr):   # a factory's prints too
                bots = _made(bot_names, seed * 1_000_003 + g * 17, watch)
                if path is not None:
                    files.append(str(path))
                res = play_fair_match(cfg, ids, [b.choose for b in bots], path)
                free_bots(bots, bot_names)     # (as in simulate)
        except BotFailed as exc:
            with contextlib.redirect_stdout(sys.stderr):
                let_go(exc, bots, bot_names)
            fault = _bot_fault(exc, bot_names, g, games)
            if g == 0:
                raise fault from None
            return {"rules": rules.to_dict(), "seating": seating.label(), "games": g,
                    "fair_deck": True, "entries": entries, "transcripts": files,
                    "stopped": str(fault),
                    **tally.summary(bot_names, time.perf_counter() - started, rate_digits=2)}
        except KeyboardInterrupt:
            if g == 0:
                raise
            return {"rules": rules.to_dict(), "seating": seating.label(), "games": g,
                    "fair_deck": True, "entries": entries, "transcripts": files[:g],
                    "stopped": _interrupted(g, games), "interrupted": True,
                    **tally.summary(bot_names, time.perf_counter() - started, rate_digits=2)}
        proto = res.protocols[0]
        assert proto.scored is not None
        tally.add(proto.scored.totals(), res.winner, len(proto.scores),
                  sum(int(h["turns"]) for h in proto.finished))
        entries += res.entries
        if watch is not None:
            watch.played(proto.scored.totals(), res.winner, len(proto.scores),
                         sum(int(h["turns"]) for h in proto.finished), res.entries,
                         None if path is None else str(path))
        if progress is not None:
            progress.tick(g + 1)
    return {"rules": rules.to_dict(), "seating": seating.label(), "games": games,
            "fair_deck": True, "entries": entries, "transcripts": files,
            **tally.summary(bot_names, time.perf_counter() - started, rate_digits=2)}


def _checked(bot: SeatController, seat: int) -> Callable[[HandState, list[Action]], Action]:
    """``bot``'s choices, each one checked to be legal (:class:`engine.BotFailed` if not)."""
    def choose(view: HandState, legal: list[Action]) -> Action:
        return checked_choice(bot.choose, view, legal, seat)
    return choose


def run_cheat(args: argparse.Namespace) -> int:
    """One match in memory where seat ``--cheater`` commits the cheat ``--cheat`` once:
    print who cheated, how, when and by whom it was caught, and what verify says."""
    if not args.fair_deck or args.network:
        raise ValueError(_("--cheat needs --fair-deck (the in-memory table)"))
    if args.cheat not in CHEAT_KINDS:
        raise ValueError(_("unknown cheat %(cheat)s; one of: %(kinds)s")
                         % {"cheat": repr(args.cheat), "kinds": i18n.join_list(CHEAT_KINDS)}
                         + i18n.did_you_mean(str(args.cheat), list(CHEAT_KINDS)))
    rules, seating, bot_names = table_from_args(args)
    n = seating.n_players
    if not 0 <= args.cheater < n:
        raise ValueError(_("--cheater must be a seat 0..%(last)d") % {"last": n - 1})
    names = [f"{bot_names[s]}{s + 1}" for s in range(n)]
    cfg, ids = make_table(rules, seating, names, b"cheat/%d" % args.seed)
    made_dir = not args.transcript_dir
    out_dir = Path(args.transcript_dir).absolute() if args.transcript_dir else Path(tempfile.mkdtemp(
        prefix="millebornes-cheat-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"cheat-{args.cheat}-seat{args.cheater}.mbt"
    # the bots as simulate makes them (bounded, their answers checked): a plug-in's bad
    # answer ended the demonstration with "unexpected error: KeyError", no bot named
    try:
        with contextlib.redirect_stdout(sys.stderr):
            made = make_seat_bots(bot_names, args.seed * 1_000_003)
            choosers = [_checked(bot, s) for s, bot in enumerate(made)]
            o = stage_cheat(cfg, ids, choosers, args.cheat, args.cheater, path)
    except BotFailed as exc:
        _drop_made_dir(out_dir, made_dir)
        raise _bot_fault(exc, bot_names, 0, 1) from None
    except BaseException:
        # a demonstration that stopped (Ctrl-C, an error) left a folder of its own in the
        # temporary directory, named nowhere, at every run
        _drop_made_dir(out_dir, made_dir)
        raise
    if args.json:
        print(json.dumps(o.as_dict()))
        return 0

    same = (not o.verify_ok) and [o.verify_blamed] == o.blamed
    # within the terminal's width, each sentence's further lines indented (the terminal
    # cut them mid-word: "before the d" / "eal", "ShufflePa" / "ss"); 80 in a pipe
    width = report_width(sys.stdout)
    for line in cheat_demo_lines(o, names, same):
        first, *rest = i18n.wrap(line, max(20, width - 2))
        for part in (first, *("  " + r for r in rest)):
            print(i18n.display(part))
    return 0 if same and o.caught else 1


def _drop_made_dir(out_dir: Path, made: bool) -> None:
    """Remove the temporary folder the cheat demonstration made, when it ends without a
    report that names the transcript in it (a folder the player named stays)."""
    if made:
        shutil.rmtree(out_dir, ignore_errors=True)


class _Stderr:
    """The standard error as it was when the run began: a bot that closes descriptor 2
    (or points it elsewhere) hid why the run stopped, and so did one that put
    ``sys.stderr`` aside (``sys.stderr = io.StringIO()``, its libraries quieted). Lines
    go to the ``sys.stderr`` of the start while descriptor 2 is still the one it was,
    else to a copy of it saved at the start."""

    def __init__(self) -> None:
        self.stream = sys.stderr
        self.saved: int | None = None
        self.stat: tuple[int, int] | None = None
        try:
            if sys.stderr.fileno() == 2:
                st = os.fstat(2)
                self.stat = (st.st_dev, st.st_ino)
                self.saved = os.dup(2)
                keep_descriptor(self.saved, "a copy of the standard error")
        except (OSError, ValueError, AttributeError):
            pass     # a test's capture: sys.stderr is used as it is

    def line(self, text: str) -> None:
        if self.saved is not None:
            try:
                st = os.fstat(2)
                same = (st.st_dev, st.st_ino) == self.stat
            except OSError:
                same = False
            if not same:
                os.write(self.saved, (text + "\n").encode("utf-8", "replace"))
                return
        try:
            print(text, file=self.stream)
        except (OSError, ValueError, AttributeError):
            if self.saved is not None:       # the bot closed it: its descriptor stays
                with contextlib.suppress(OSError):
                    os.write(self.saved, (text + "\n").encode("utf-8", "replace"))

    def close(self) -> None:
        if self.saved is not None:
            release_descriptor(self.saved)
            with contextlib.suppress(OSError):    # a bot closed it, and its copy too
                os.close(self.saved)
            self.saved = None


def run(args: argparse.Namespace) -> int:
    # bots run here: what they write below sys.stdout must not break the report
    err = _Stderr()
    crash_words = _say_crashes(err)
    try:
        with report_to_stdout():
            return _run(args, err)
    finally:
        if crash_words:
            faulthandler.disable()
            with contextlib.suppress(AttributeError, ValueError):
                faulthandler.unregister(signal.SIGPROF)
        err.close()


def _say_crashes(err: _Stderr) -> bool:
    """Where the interpreter crashes (a plug-in's C extension that reads past its memory,
    ``os.abort``: SIGSEGV, SIGABRT...), Python's fatal error and the calls it was in, the
    bot's own file and line among them, on the standard error as it was at the start:
    ``simulate`` ended with not a word (status 139 in a shell, "Segmentation fault").
    Whether it is set up."""
    if err.saved is None:
        return False
    try:
        faulthandler.enable(file=err.saved, all_threads=False)
    except (OSError, ValueError, RuntimeError):
        return False
    say_where_held(err.saved)     # a bot that holds the interpreter in C past its time
    return True


def _run(args: argparse.Namespace, err: _Stderr | None = None) -> int:
    if getattr(args, "cheat", None):
        return run_cheat(args)
    err = err or _Stderr()
    rules, seating, bot_names = table_from_args(args)
    started = time.perf_counter()
    if args.transcript_dir and not (args.network or args.fair_deck):
        raise ValueError(_("--transcript-dir needs --fair-deck or --network "
                           "(plain simulations keep no transcript)"))
    watch = None
    if (bot_limit.STDOUT_ENDS_WITH_REPORT and not args.network and can_fork()
            and any(parse_bot_spec(b)[0] not in BOTS for b in bot_names)):
        # a plug-in: the matches in a child process, so that one that crashes it is
        # named and the matches before it reported (the program ends after the report:
        # a test's main() in its own process is not forked)
        tally = MatchTally(seating)
        fair: dict[str, Any] = {"fair_deck": True, "entries": 0, "transcripts": []}

        def played(match: list[Any]) -> bool:
            totals, winner, hands, turns, entries, path = match
            if not (type(totals) is list and len(totals) == seating.n_teams
                    and all(type(v) is int for v in (*totals, winner, hands, turns, entries))):
                return False     # not the program's line (a bot wrote on its descriptor)
            tally.add(totals, winner, hands, turns)
            fair["entries"] += int(entries)
            if isinstance(path, str):
                fair["transcripts"].append(path)
            return True

        got = fork_matches(played)
        if isinstance(got, Ended):
            return _after_child(args, rules, seating, bot_names, got, started, err, tally,
                                fair if args.fair_deck else {})
        watch = got
    progress = Progress(args.games)
    try:
        if args.network:
            result = simulate_network(rules, seating, bot_names, args.games, args.seed,
                                      args.transcript_dir, progress.tick)
        elif args.fair_deck:
            result = simulate_fair(rules, seating, bot_names, args.games, args.seed,
                                   args.transcript_dir, progress, watch)
        else:
            result = simulate(rules, seating, bot_names, args.games, args.seed, progress,
                              watch)
    except BotFault as fault:
        # a fault in the first game: the (empty) report and the fault, exit 1 as later
        result = {"rules": rules.to_dict(), "seating": seating.label(), "games": 0,
                  **({"fair_deck": True, "entries": 0, "transcripts": []}
                     if args.fair_deck else {}),
                  "stopped": str(fault),
                  **MatchTally(seating).summary(bot_names, time.perf_counter() - started)}
    finally:
        progress.close()
        if watch is not None:
            watch.done()
    return _report(args, rules, seating, bot_names, result, err)


def _after_child(args: argparse.Namespace, rules: Rules, seating: Seating,
                 bot_names: list[str], ended: Ended, started: float, err: _Stderr,
                 tally: MatchTally, fair: dict[str, Any]) -> int:
    """The end of a run whose matches a child process played (:mod:`cli.supervise`): its
    exit status when it said its matches were over (the report is its own); else the
    report of the matches it played, and the bot at fault named with how the process
    ended ("SIGSEGV, a crash: ..."): it ended ``simulate`` with Python's fatal error alone."""
    if ended.done:
        return ended.code if ended.code >= 0 else 128 - ended.code
    if ended.code < 0 and -ended.code in ended.signals:
        # a signal this process received too (kill, the terminal's hangup): the run
        # ends as it would have, no bot blamed
        signal.signal(-ended.code, signal.SIG_DFL)
        os.kill(os.getpid(), -ended.code)
        return 128 - ended.code
    g = ended.played
    how = exit_words(ended.code)
    # a crash from a thread a plug-in's call started is that plug-in's, whoever moved
    # (a thread whose starter is not known, -1, is nobody's: the plug-in moving then
    # was named for a raw ``_thread`` thread of another's)
    seat, thread = ((ended.thread_seat, ", from a thread it started")
                    if ended.thread_seat is not None else (ended.seat, ""))
    if 0 <= seat < len(bot_names):
        fault = str(_bot_fault(BotFailed(seat, f"ended the process that plays the "
                                               f"matches{thread} ({how})"),
                               bot_names, g, args.games))
    else:
        plugins = sorted({b for b in bot_names if parse_bot_spec(b)[0] not in BOTS})
        words = {"game": g + 1, "games": args.games, "how": how,
                 "bots": i18n.join_list(plugins)}
        fault = (_("the process that plays the matches ended in game %(game)d of %(games)d "
                   "(%(how)s) while no plug-in was moving: a thread of %(bots)s, perhaps")
                 % words if ended.seat < 0 or ended.thread_seat is None else
                 _("the process that plays the matches ended in game %(game)d of %(games)d "
                   "(%(how)s) from a thread that no plug-in's call is known to have "
                   "started: a thread of %(bots)s, perhaps") % words)
    result = {"rules": rules.to_dict(), "seating": seating.label(), "games": g, **fair,
              "stopped": fault,
              **tally.summary(bot_names, time.perf_counter() - started,
                              rate_digits=2 if args.fair_deck else 1)}
    return _report(args, rules, seating, bot_names, result, err)


def _report(args: argparse.Namespace, rules: Rules, seating: Seating, bot_names: list[str],
            result: dict[str, Any], err: _Stderr) -> int:
    """The report of ``result`` on stdout, what stopped the run on stderr; the exit
    status."""
    failures = list(result.get("failures", []))
    if result.get("interrupted") and not result.get("stopped"):   # --network's
        result["stopped"] = _interrupted(result["games"], args.games)
    if result.get("interrupted"):
        failures.append(result["stopped"])
    elif result.get("stopped"):
        # a bot failed after some matches were played: they are reported, then the fault
        failures.append(_("stopped: %(fault)s; the report covers the matches before it")
                        % {"fault": result["stopped"]})
    for replaced in result.get("bot_faults", []):
        # a peer process replaced a bot that failed (someone's plug-in): the run went on
        err.line(i18n.display(_("bot %(bot)s at seat %(seat)d failed to move in game "
                                "%(game)d (%(reason)s); the heuristic played its seat from "
                                "then on")
                              % {"bot": bot_names[replaced["seat"]], "seat": replaced["seat"],
                                 "game": replaced["game"] + 1,
                                 "reason": safe_text(replaced["reason"], 200)}))
    code = 130 if result.get("interrupted") else 0 if not failures else 1
    if args.json:
        print(json.dumps(result))
        for f in failures if result.get("interrupted") else ():
            err.line(i18n.display(f"  {f}"))
        return code
    # each count with its own plural ("1 parties" in French said one sentence for both)
    games = ngettext("%(n)d match", "%(n)d matches", result["games"]) % {"n": result["games"]}
    hands = ngettext("%(n)d hand", "%(n)d hands", result["hands"]) % {"n": result["hands"]}
    head = (_("%(games)s, %(hands)s, %(rules)s (%(players)d players, %(seating)s)")
            % {"games": games, "hands": hands,
               "rules": rules_name(args.rules), "players": seating.n_players,
               "seating": seating_words(seating)})
    if args.network:
        head += _(", one peer process per seat")
    print(i18n.display(head))
    # columns by padding in a language written left to right; a right-to-left line starts
    # at the terminal's left edge wherever its words end, so its padding aligned nothing
    # and ran the Uyghur seat lines past 60 columns
    t = i18n.active()
    aligned = not (t.rtl and t.bidi == "shape")
    for p in result["players"]:
        print(i18n.display("  " + _("seat %(seat)d %(bot)s wins %(wins)s (%(rate)s)  avg score "
                                    "%(score)s")
                           % {"seat": p["seat"], "bot": f"{p['bot']:<10}" if aligned else p["bot"],
                              "wins": f"{p['wins']:>5}" if aligned else str(p["wins"]),
                              "rate": f"{100 * p['win_rate']:.1f}%",
                              "score": f"{p['avg_score']:.0f}"}))
    print(i18n.display(_("average turns per hand %(turns)s, %(speed)s hands/s")
                       % {"turns": result["avg_turns_per_hand"],
                          "speed": result["hands_per_second"]}))
    values = {"entries": result.get("entries", 0), "dir": args.transcript_dir}
    if args.network:
        if failures:
            line = (_("network: %(entries)d signed entries; transcripts of each game FAILED, "
                      "in %(dir)s") if args.transcript_dir else
                    _("network: %(entries)d signed entries; transcripts of each game FAILED"))
        else:
            line = (_("network: %(entries)d signed entries; transcripts of each game identical "
                      "on every peer and verified, in %(dir)s") if args.transcript_dir else
                    _("network: %(entries)d signed entries; transcripts of each game identical "
                      "on every peer and verified"))
        print(i18n.display(line % values))
    elif result.get("fair_deck"):
        print(i18n.display((_("fair deck: %(entries)d signed entries; transcripts, in %(dir)s")
                            if args.transcript_dir else
                            _("fair deck: %(entries)d signed entries")) % values))
    for f in failures:
        err.line(i18n.display(f"  {f}"))
    return code
