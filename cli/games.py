"""Saved games: ``millebornes games`` lists them; ``verify``, ``replay`` and ``resume``
find one by its short id (the first characters of its table id).

Games live in the data folder, one folder per table named by the table id in hex; the
host's bots keep theirs under ``bot-N/``.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import shlex
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack

from p2p.audit import GameReport, verify_game
from p2p.files import write_own
from p2p.table import TableConfig
from p2p.table.store import default_data_dir, find_tables, read_meta
from p2p.text import safe_text
from p2p.transcript.file import TranscriptHeader

from . import i18n
from .args import data_dir, resume_flags
from .i18n import _, did_you_mean, ngettext
from .program import as_typed
from .words import (
    Command,
    command_block,
    local_names,
    rules_label,
    rules_name,
    rules_short,
    say_paragraph,
    say_paragraphs,
    side_label,
    wrap,
    you_label,
)


def base_dir(args: argparse.Namespace) -> Path:
    """The data folder: ``--data-dir`` or the default one (as cli.seats.base_dir, without
    loading the network and the console: ``verify`` uses this module)."""
    return data_dir(args) or default_data_dir()

SHORT = 8   # characters of the table id shown and accepted
#: the fewest cells the list of players gets in ``games``' table (else: a game a block)
PLAYERS_ROOM = 12


@dataclass(frozen=True)
class SavedGame:
    path: Path              # the table folder
    short_id: str
    when: datetime.datetime
    players: tuple[str, ...]
    seat: int
    rules: str
    #: the rule set and its options as the table agreed them ("" when the preset's own):
    #: a match to 5000 or with fast play was listed as plain "classic"
    options: str = ""
    #: the bot that played the player's seat when they left (:data:`AUTO_BOT`; "": the
    #: ``--auto`` default), None when they played it themselves
    auto_bot: str | None = None

    @property
    def transcript(self) -> Path:
        return self.path / "transcript.mbt"


#: the key of ``table.msgpack``'s ``extra`` that keeps the bot that played the player's
#: own seat (``--auto``, ``--auto-bot``)
AUTO_BOT = "auto_bot"


def auto_extra(args: argparse.Namespace) -> dict[str, object]:
    """What a table's store keeps of ``--auto``/``--auto-bot``: ``resume`` after a crash
    tells the player which bot played their seat and how to let it play on (a player
    who watched a bot play came back to a seat to play by hand, and no word of it), and
    ``games`` says it of the game."""
    if not getattr(args, "auto", False) and not getattr(args, "auto_bot", None):
        return {}
    return {AUTO_BOT: str(getattr(args, "auto_bot", None) or "")}


def remembered_auto_bot(table: Path) -> str | None:
    """The bot that played the player's own seat of a saved table ("" for ``--auto``'s
    default), None when the player played it (or the store does not say, or says it in a
    way this program would not have written)."""
    try:
        return _auto_bot_in(read_meta(table))
    except (OSError, ValueError):
        return None


def _auto_bot_in(meta: dict[str, Any]) -> str | None:
    """:func:`remembered_auto_bot` of a table record already read."""
    extra = meta.get("extra")
    spec = extra.get(AUTO_BOT) if isinstance(extra, dict) else None
    if not isinstance(spec, str) or len(spec) > 200 or not spec.isprintable():
        return None
    if spec:
        from engine.bots import parse_bot_spec
        try:
            parse_bot_spec(spec)
        except ValueError:
            # not a spec this program writes ("heuristic:oops"): resume stopped with the
            # bot's option error, every time, naming no file (the second review)
            return None
    return spec


def saved_games(base: Path | None, skipped: list[Path] | None = None) -> list[SavedGame]:
    """This account's games in the data folder, most recent first. Unreadable folders
    are left out, and added to ``skipped`` when given (``games`` says how many; ``verify``
    reports on one when named). ValueError when the data folder is a file."""
    root = base if base is not None else default_data_dir()
    if root.exists() and not root.is_dir():
        raise ValueError(_("%(path)s is not a folder: the data folder (--data-dir) is the "
                           "folder that holds the saved games") % {"path": root})
    out = []
    for path in find_tables(base):
        try:
            meta = read_meta(path)
            header = TranscriptHeader.from_obj(msgpack.unpackb(meta["header"], raw=False))
            cfg = TableConfig.from_header(header)
            if safe_text(path.name, len(path.name) + 1) != path.name:
                # a game's folder is named by its table's id, and the listing shows that
                # name as the game's id: a folder named with a terminal's control
                # sequences (a crafted store) wrote them to the player's terminal (and
                # `verify`'s "your newest saved game") (hostile pass 18)
                raise ValueError("the folder's name is not printable")
            t = path / "transcript.mbt"
            stamp = t.stat().st_mtime if t.exists() else \
                (path / "table.msgpack").stat().st_mtime
        except Exception:
            if skipped is not None:
                skipped.append(path)
            continue
        out.append(SavedGame(path, path.name[:SHORT],
                             datetime.datetime.fromtimestamp(stamp),
                             tuple(p.name for p in cfg.players), int(meta.get("seat", 0)),
                             cfg.rules.preset,
                             rules_label(cfg.rules) if rules_label(cfg.rules)
                             != rules_name(cfg.rules.preset) else "", _auto_bot_in(meta)))
    return out


def find_game(ref: str, base: Path | None) -> SavedGame:
    """The saved game whose id starts with ``ref``; ``ValueError`` naming the choices."""
    want = ref.strip().lower()
    games = saved_games(base)
    hits = [g for g in games if g.path.name.startswith(want)] if want else []
    if len(hits) == 1:
        return hits[0]
    if not hits:
        # the command that lists this folder's games, as the player types it ("millebornes
        # games" listed the default folder's to a player who had given --data-dir)
        command = games_command(base)
        # each command on lines of its own (inside the sentence, a narrow terminal cut
        # it); with no game at all, the one that plays one ("`millebornes games` lists
        # them (there are none yet)" sent the player to a list that said nothing more)
        if not games:
            folder = base if base is not None else default_data_dir()
            raise ValueError(_("no saved game has the id %(id)s: there is no saved game in "
                               "%(path)s yet; play one with:") % {
                                   "id": repr(ref), "path": folder}
                             + command_block(play_command(base)))
        raise ValueError(
            _("no saved game has the id %(id)s") % {"id": repr(ref)}
            # an id mistyped: the saved game it most likely meant
            + did_you_mean(want, [g.path.name[:max(len(want), len(g.short_id))]
                                  for g in games])
            + "\n" + _("This command lists the saved games:") + command_block(command))
    raise ValueError(_("%(id)s matches %(n)d games (%(ids)s): type more of the id")
                     % {"id": repr(ref), "n": len(hits),
                        "ids": i18n.join_list(g.short_id for g in hits[:5])})


def _is_path(ref: str) -> bool:
    # lexists: a symbolic link that loops or leads nowhere is a file the user named,
    # said as such (never "no saved game has the id")
    return os.path.lexists(ref) or os.sep in ref or ref.endswith(".mbt")


def games_command(base: Path | None) -> str:
    """``millebornes games`` as the player types it to list the games where they keep them
    (the program as their shell finds it, with their ``--data-dir``)."""
    return as_typed("millebornes games") + (
        f" --data-dir {shlex.quote(str(base))}" if base is not None else "")


def play_command(base: Path | None) -> str:
    """``millebornes play`` as the player types it to keep a game where they look for it:
    the program as their shell finds it, with their ``--data-dir`` (``base``; None: the
    default folder). Said where no game is found ("play one with `millebornes play`" kept
    it in another folder than the one given)."""
    return as_typed("millebornes play") + (
        f" --data-dir {shlex.quote(str(base))}" if base is not None else "")


def newest_game(base: Path | None) -> SavedGame:
    """The saved game played last (``verify`` and ``replay`` with no game named: a player
    who just finished one should not have to look its id up); ``ValueError`` when there
    is none."""
    games = saved_games(base)
    if not games:
        raise ValueError(_("there is no saved game yet: name a transcript file, or play a "
                           "game with:") + command_block(play_command(base)))
    return games[0]


def newest_line(game: SavedGame) -> str:
    """Which game ``verify`` or ``replay`` took when none was named."""
    return _("Your newest saved game: %(id)s (%(players)s, %(when)s).") % {
        # the names as `games` lists them (this computer's seat "You" in the language
        # shown: "(You, Bo, Cy" under French words, where `games` said "Vous")
        "id": game.short_id, "players": i18n.join_list(
            you_label(n) for n in local_names(game.players, game.seat)),
        "when": f"{game.when:%Y-%m-%d %H:%M}"}


def transcript_of(ref: str | None, args: argparse.Namespace) -> str:
    """A transcript path, or a saved game's short id turned into its transcript's path.
    None (no game named): the newest saved game's, said on stdout (once: a game played
    meanwhile in another window could be the newest by the next look)."""
    if ref is None:
        game = newest_game(data_dir(args))
        say_paragraph(newest_line(game), sys.stdout)     # at the terminal's width
        args.transcript = game.path.name      # its id from now on (own_seat, replay)
        return str(game.transcript)
    if _is_path(ref):
        return _folders_transcript(ref, str(getattr(args, "verb", None) or "verify"))
    return str(find_game(ref, data_dir(args)).transcript)


def _folders_transcript(ref: str, verb: str) -> str:
    """``ref`` itself, unless it is a folder: a game's folder stands for the transcript in
    it; a data folder is said to be one, with the commands that take it (`verify
    ~/games` answered "is not a file: give one transcript", and the player who had read
    "The game is saved in …/7a6c…/transcript.mbt" typed the folder)."""
    folder = Path(ref)
    if not folder.is_dir():        # (a link to a folder is the folder: the second review)
        return ref
    if (folder / "transcript.mbt").is_file():
        return str(folder / "transcript.mbt")
    try:
        games = saved_games(folder)
    except (OSError, ValueError):
        return ref
    if not games:
        return ref
    quoted = shlex.quote(ref)
    # each command on lines of its own: inside the sentence, a narrow terminal cut them
    raise ValueError(_("%(path)s is a folder of saved games, not one game: the first "
                       "command below takes its newest, the second lists them with their "
                       "ids:") % {"path": ref}
                     + command_block(f"millebornes {verb} --data-dir {quoted}")
                     + command_block(f"millebornes games --data-dir {quoted}"))


def own_seat(ref: str, args: argparse.Namespace) -> int | None:
    """This player's seat in the game ``ref`` names when it is one of their saved games
    (by its id, its folder or the transcript in it), else None (a file elsewhere: anyone's
    game). `verify` of the folder "The game is saved in …/7a6c…" names, or of the
    transcript in it, named the player's own seat "You 1" (as a stranger's), where the
    same game by its id said "you"."""
    if _is_path(ref):
        return _own_folders_seat(ref)
    try:
        return find_game(ref, data_dir(args)).seat
    except ValueError:
        return None


def _own_folders_seat(ref: str) -> int | None:
    """This computer's seat when ``ref`` is a saved game's folder, or the transcript in it
    (where the game keeps the seat it plays); a bot's folder (``bot-N…``, the host's
    bots keep theirs there) is the bot's: None, as for a file elsewhere."""
    game = saved_game_at(ref)
    return None if game is None else game.seat


def saved_game_at(ref: str) -> SavedGame | None:
    """The saved game whose folder ``ref`` is, or whose transcript (not a bot's: see
    :func:`_own_folders_seat`); None for any other path."""
    try:
        path = Path(ref).resolve()
        folder = path if path.is_dir() else path.parent
        if path.is_file() and path.name != "transcript.mbt" \
                or folder.parent.name.startswith("bot-"):
            return None
        for game in saved_games(folder.parent):
            if game.path.name == folder.name:
                return game
    except (OSError, ValueError):
        return None
    return None


#: ``games`` says that it checks games first when at least this many are new to it
CHECKS_SAID = 5


@dataclass(frozen=True)
class GameFacts:
    """What a game's transcript proves, as ``games`` says it: the verdict of
    :func:`p2p.audit.verify_game` boiled down to the state column (kept between runs by
    :class:`_StateCache`)."""
    #: "finished", "agreed" (ended by agreement), "progress" or "damaged"
    kind: str
    names: tuple[str, ...] = ()
    sides: int = 1
    winner: int = -1        # finished: the winning side (-1: a tie)
    seat: int = -1          # agreed: the seat that had left
    hand: int = 0           # agreed: the hand it ended in; progress: the hand in play (1-based)
    #: finished: each seat a bot took by agreement, (seat, first hand it played, 1-based,
    #: the seat that ran it): "finished, you won" was said to a player who had left in
    #: hand 1, and learnt only from verify that a bot had played their seat since
    taken: tuple[tuple[int, int, int], ...] = ()

    @classmethod
    def of(cls, report: GameReport) -> GameFacts:
        names, sides = tuple(report.names), max(1, len(report.totals))
        if report.ok and report.complete:
            taken = tuple((int(t["seat"]), int(t["hand"]) + 2, int(t["runner"]))
                          for t in report.takeovers)
            return cls("finished", names, sides, winner=report.winner, taken=taken)
        if report.ok and report.ended_by_agreement is not None:   # not to be resumed: over
            e = report.ended_by_agreement
            return cls("agreed", names, sides, seat=int(e["seat"]), hand=int(e["hand"]) + 1)
        if report.ok or report.unfinished or report.check in ("incomplete", "reveal-missing"):
            # fair so far, waiting for a seat's next entry (someone left): resumable, not
            # "damaged" (it said so of every game a player had left); the hand it stopped
            # in (a hand left without a score counts: "hand 1" was said of a game in hand 3)
            hand = max(len(report.hands), report.stopped_hand if report.unfinished else 0) + 1
            return cls("progress", names, sides, hand=hand)
        return cls("damaged", names, sides)

    def to_plain(self) -> list[object]:
        return [self.kind, list(self.names), self.sides, self.winner, self.seat, self.hand,
                [list(t) for t in self.taken]]

    @classmethod
    def from_plain(cls, obj: object) -> GameFacts | None:
        """None for anything :meth:`to_plain` did not write (a damaged or edited cache):
        a name there with a terminal's control sequences reached the terminal in the
        state column of a narrow listing, "(ESC[2J... had left)" (hostile pass 18);
        the names :meth:`of` keeps are the header's, printable text already."""
        # (six: written before the takeovers were kept; checked again, once)
        if not (isinstance(obj, list) and len(obj) == 7):
            return None
        kind, names, sides, winner, seat, hand, taken = obj
        if kind not in ("finished", "agreed", "progress", "damaged") \
                or not isinstance(names, list) or len(names) > 64 \
                or not all(isinstance(n, str) and len(n) <= 200 and safe_text(n, 201) == n
                           for n in names) \
                or not all(type(v) is int and -1 <= v <= 10_000
                           for v in (sides, winner, seat, hand)) \
                or sides < 1 or seat >= len(names):
            return None
        # what each kind names must be there: an "agreed" of seat -1 among no names
        # stopped the whole listing ("unexpected error: IndexError"), a winner past the
        # sides said "finished,  won" (hostile pass 11)
        if (kind == "agreed" and not 0 <= seat < len(names)) or (
                kind == "finished" and not (sides <= len(names) and winner < sides)):
            return None
        # each takeover names seats of the table (checked after the names are)
        if not (isinstance(taken, list) and len(taken) <= 64 and all(
                isinstance(t, list) and len(t) == 3
                and all(type(v) is int and 0 <= v <= 10_000 for v in t)
                and t[0] < len(names) and t[2] < len(names) for t in taken)):
            return None
        return cls(kind, tuple(names), sides, winner, seat, hand,
                   tuple((t[0], t[1], t[2]) for t in taken))


def game_state(game: SavedGame, facts: GameFacts | None = None) -> str:
    """Finished (and who won), in progress, or damaged: what the transcript proves
    (``facts``: as :class:`_StateCache` kept them; checked afresh when None)."""
    if facts is None:
        facts = GameFacts.of(verify_game(game.transcript))
    # the names as the players column shows them: this computer's seat is "you" (a
    # French list said "terminée, You a gagné" beside "Vous*"), another player who
    # chose the name "You" is "You N"
    names = local_names(facts.names, game.seat)
    if facts.kind == "finished":
        w = facts.winner
        if w >= 0 and 0 <= game.seat < len(names) and game.seat % facts.sides == w:
            return _("finished, you won")
        return (_("finished, %(side)s won") % {"side": side_label(names, facts.sides, w)}
                if w >= 0 else _("finished, a tie"))
    if facts.kind == "agreed":
        if facts.seat == game.seat:
            return _("ended in hand %(hand)d by agreement (you had left)") % {
                "hand": facts.hand}
        return _("ended in hand %(hand)d by agreement (%(name)s had left)") % {
            "hand": facts.hand, "name": names[facts.seat]}
    if facts.kind == "progress":
        return _("in progress (hand %(hand)d)") % {"hand": facts.hand}
    return _("damaged (see verify)")


def taken_note(game: SavedGame, facts: GameFacts) -> str:
    """The listing's word that a bot played the player's own seat from some hand on, by
    the others' agreement after they had left: "finished, you won" alone read as the
    player's own win of a match they had left in hand 1. Empty otherwise."""
    names = local_names(facts.names, game.seat)
    for seat, hand, runner in facts.taken:
        if seat == game.seat and 0 <= runner < len(names):
            return _("from hand %(hand)d, a bot run by %(runner)s played your seat") % {
                "hand": hand, "runner": names[runner]}
    return ""


def auto_bot_note(game: SavedGame) -> str:
    """The listing's word that a bot played the player's seat when they left (``play
    --auto``, ``join --auto-bot mybot``): such a game looked like one played by hand, and
    the player learnt it only from ``resume``. Empty when they played it."""
    if game.auto_bot is None:
        return ""
    if game.auto_bot:
        return _("a bot (%(bot)s) played your seat") % {"bot": safe_text(game.auto_bot, 60)}
    return _("a bot played your seat")


class _StateCache:
    """What ``games`` found in each saved game, kept in the data folder beside them
    (``games-state.json``) with the size and change time of the transcript it read.

    Why: ``games`` checks every game's transcript (signatures, shuffles, moves) to say
    its state, about 0.1 s a game: 30 games kept the terminal blank for 3 s, every time.
    A finished game's transcript never changes, so it is checked once; one that grew or
    changed (same size and time to the nanosecond aside) is checked again. ``verify``
    never reads this file: it is a listing's memory, not a verdict. A file that is
    unreadable, too big or not as written is ignored and written anew; a data folder that
    cannot be written keeps nothing (the listing is the same)."""

    NAME = "games-state.json"
    MAX_BYTES = 4 << 20

    def __init__(self, base: Path) -> None:
        self.path = base / self.NAME
        self.kept: dict[str, list[object]] = {}
        self.changed = False
        try:
            if self.path.is_file() and self.path.stat().st_size <= self.MAX_BYTES:
                obj = json.loads(self.path.read_text(encoding="utf-8"))
                if isinstance(obj, dict):
                    self.kept = {k: v for k, v in obj.items() if isinstance(k, str)}
        except (OSError, ValueError, RecursionError):
            # RecursionError: arrays nested some thousands deep ("[[[[..."), which json
            # cannot decode (it was `games`' "unexpected error", hostile pass 16)
            self.kept = {}

    @staticmethod
    def _stamp(game: SavedGame) -> list[int] | None:
        try:
            st = os.stat(game.transcript)        # never opened here: a named pipe waits
        except OSError:
            return None
        return [st.st_size, st.st_mtime_ns] if stat.S_ISREG(st.st_mode) else None

    def _kept(self, game: SavedGame, stamp: list[int] | None) -> GameFacts | None:
        entry = self.kept.get(game.path.name)
        if stamp is not None and isinstance(entry, list) and len(entry) == 2 \
                and entry[0] == stamp:
            return GameFacts.from_plain(entry[1])
        return None

    def known(self, game: SavedGame) -> GameFacts | None:
        """What is kept of ``game`` while its transcript is unchanged, else None."""
        return self._kept(game, self._stamp(game))

    def unknown(self, games: Sequence[SavedGame]) -> int:
        """How many of ``games`` must be checked afresh."""
        return sum(self._kept(g, self._stamp(g)) is None for g in games)

    def facts(self, game: SavedGame) -> GameFacts:
        stamp = self._stamp(game)
        kept = self._kept(game, stamp)
        if kept is not None:
            return kept
        facts = GameFacts.of(verify_game(game.transcript))
        if stamp is not None:
            self.kept[game.path.name] = [stamp, facts.to_plain()]
            self.changed = True
        return facts

    def save(self, games: Sequence[SavedGame]) -> None:
        """Write what is known of ``games`` (the games gone from the folder go)."""
        live = {g.path.name for g in games}
        if not self.changed and set(self.kept) <= live:
            return
        kept = {k: v for k, v in self.kept.items() if k in live}
        # a file of its own: a link left under the temporary name was written through
        # (the file it named overwritten), a named pipe waited for a reader for ever
        with contextlib.suppress(OSError):
            write_own(self.path, json.dumps(kept).encode("utf-8"))


def run(args: argparse.Namespace) -> int:
    width = min(80, i18n.terminal_width(sys.stdout))     # 80 in a file or a pipe
    skipped: list[Path] = []
    games = saved_games(data_dir(args), skipped)
    if skipped:
        # said, not left out in silence: a damaged game is still the player's
        for line in i18n.wrap(ngettext(
                "(%(n)d folder in %(path)s is not a readable game, left out: %(names)s; "
                "millebornes verify FOLDER/transcript.mbt says what is wrong with it)",
                "(%(n)d folders in %(path)s are not readable games, left out: %(names)s; "
                "millebornes verify FOLDER/transcript.mbt says what is wrong with them)",
                len(skipped)) % {"n": len(skipped), "path": base_dir(args),
                                 "names": i18n.join_list(safe_text(p.name[:SHORT])
                                                         for p in skipped[:5])
                                 + (", …" if len(skipped) > 5 else "")}, width):
            print(i18n.display(line))
    if not games:
        # wrapped at spaces, as the lines above (the terminal cut the command mid-word),
        # the command on lines of its own (in the sentence, cut before its --data-dir)
        say_paragraphs([_("No saved games in %(path)s. Play one with:")
                        % {"path": base_dir(args)}, Command(play_command(data_dir(args)))],
                       sys.stdout)
        return 0
    pad = i18n.pad
    head = [pad(_("id"), SHORT), pad(_("date"), 16), pad(_("rules"), 9), pad(_("state"), 24),
            _("players")]
    cache = _StateCache(base_dir(args))
    fresh = cache.unknown(games)
    if fresh >= CHECKS_SAID and sys.stderr.isatty():
        # each is checked whole (about 0.1 s a game): the terminal stood blank meanwhile
        print(i18n.display(ngettext(
            "Checking %(n)d saved game (signatures, shuffles and moves)…",
            "Checking %(n)d saved games (signatures, shuffles and moves)…", fresh)
            % {"n": fresh}), file=sys.stderr, flush=True)
    rows = []
    notes: dict[str, str] = {}
    for g in games:
        facts = cache.facts(g)
        state = game_state(g, facts)
        notes[g.path.name] = taken_note(g, facts)
        # "You" (translated) only for this computer's seat; another player so named
        # is "You N"
        players = i18n.join_list(you_label(n) + ("*" if s == g.seat else "")
                            for s, n in enumerate(local_names(g.players, g.seat)))
        rows.append((g, state, players))
    cache.save(games)
    # the state column as wide as its widest (24 cells left the players 15: a game of
    # four's were 16)
    states = max([i18n.cells(_("state"))] + [i18n.cells(state) for _g, state, _p in rows])
    head[3] = pad(_("state"), states)
    starts = [f"{g.short_id:<{SHORT}}  {g.when:%Y-%m-%d %H:%M}  {pad(rules_short(g.rules), 9)}  "
              f"{pad(state, states)}  " for g, state, _players in rows]
    # the players wrapped in their column when a row is wider than the terminal (a game of
    # four, "You*, Bo, Cy, Di", made a row of 81 columns, and every game of the list went
    # to the stacked layout)
    room = min(width - i18n.cells(start) for start in starts)
    if i18n.cells("  ".join(head)) <= width and room >= PLAYERS_ROOM:
        print(i18n.display("  ".join(head)))
        for start, (g, _state, players) in zip(starts, rows, strict=True):
            lines = i18n.wrap(players, width - i18n.cells(start))
            print(i18n.display(start + lines[0]))
            for w in lines[1:]:
                print(i18n.display(" " * i18n.cells(start) + w))
            for part in (g.options, notes[g.path.name], auto_bot_note(g)):
                for w in (i18n.wrap(part, width - SHORT - 2) if part else []):
                    print(i18n.display(" " * (SHORT + 2) + w))
    else:
        # a terminal narrower than the table (which it cut mid-word, "s" / "tate"): each
        # game on lines of its own, its id and date first
        for g, state, players in rows:
            print(i18n.display(f"{g.short_id}  {g.when:%Y-%m-%d %H:%M}"))
            for part in (f"{rules_short(g.rules)}, {state}", players, g.options,
                         notes[g.path.name], auto_bot_note(g)):
                for w in (wrap(part, width, "  ") if part else []):
                    print(i18n.display(w))
    # with the options that find these games again (a bare "replay ID" looked in the
    # default folder and found none)
    flags = resume_flags(args)[1].strip()
    if i18n.cells(flags) <= width:
        # kept on one line: wrapped inside the sentence, "--data-dir '/home/a/my" / "games'"
        # was cut inside its quoted folder, which pasted as another folder
        flags = flags.replace(" ", i18n.NO_BREAK)
    footer = (_("(* you) Use an id with: millebornes verify ID, millebornes replay ID, "
                "millebornes resume ID, each followed by %(flags)s") % {"flags": flags}
              if flags else
              _("(* you) Saved in %(path)s. Use an id with: millebornes verify ID, "
                "millebornes replay ID, millebornes resume ID") % {"path": base_dir(args)})
    # each command with its ID on one line ("millebornes verify" / "ID" read as two)
    # and the program as the player's shell finds it ("millebornes verify ID" was "command
    # not found" where it is .venv/bin/millebornes, as every other command here says it)
    for verb in ("verify", "replay", "resume"):
        footer = footer.replace(f"millebornes {verb} ID",
                                i18n.NO_BREAK.join((as_typed("millebornes"), verb, "ID")))
    for line in i18n.wrap(footer, width):
        print(i18n.display(line))
    return 0
