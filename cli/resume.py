"""``millebornes resume [ID]``: take your seat again in a saved game (after a crash, a
quit or a lost connection); the others' peers hand over what was played meanwhile."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import TextIO

from p2p.crypto.identity import fingerprint as key_fingerprint
from p2p.net.interface import TransportError, parse_peer
from p2p.net.transport import fetch_key_card
from p2p.table import ListenAgainError, Peer, resume_peer

from . import i18n
from .args import auto_flags, data_dir, remember_game, resume_flags, with_defaults
from .bot_limit import try_make
from .games import (
    AUTO_BOT,
    SHORT,
    SavedGame,
    _StateCache,
    auto_extra,
    find_game,
    play_command,
    remembered_auto_bot,
    saved_games,
)
from .i18n import _
from .seats import (
    LineReader,
    base_dir,
    identity,
    play_seat,
    remembered_identity,
    resume_bots,
    stored_bot_seats,
)
from .words import (
    Command,
    auto_bot_left_line,
    bot_not_resumed_line,
    command_block,
    error_line,
    listen_again_line,
    peer_local_damage,
    peer_stopped_line,
    resumed_line,
    say_paragraph,
    say_paragraphs,
)

log = logging.getLogger("cli.resume")

#: How long ``--peer HOST:PORT`` waits for the key door there.
REACH_SECONDS = 3.0
#: From this size of its transcript on, ``resume`` says it is reading the game before it
#: does (a long six-seat match is some 6 MB; a small one reads in a moment).
SAY_READING_BYTES = 2 << 20


def reach_line(peer: Peer, address: str, timeout: float) -> str:
    """``--peer HOST:PORT``: a player of the table now at that address (theirs changed
    since the game was stored). Who it is comes from its key door (a CURVE table): the
    key must be a seat's, so a stranger there is refused. The outcome in words."""
    if not peer.cfg.curve:
        return _("--peer %(address)s: this table runs without transport keys, so the "
                 "player there cannot be recognized; the others find this computer again "
                 "when they resume") % {"address": address}
    try:
        # the FINGERPRINT@HOST:PORT form join shows ("next time --peer ... checks it") too
        expected, endpoint = parse_peer(address)
        signing, _curve = fetch_key_card(endpoint, timeout)
        if expected is not None and key_fingerprint(signing) != expected:
            raise ValueError(_("the key there is %(key)s, not %(expected)s")
                             % {"key": key_fingerprint(signing), "expected": expected})
        seat = peer.reach(signing, endpoint)
    except (TransportError, ValueError) as exc:
        return _("--peer %(address)s: not used (%(error)s)") % {
            "address": address, "error": error_line(exc)}
    return _("reaching %(name)s at %(address)s") % {
        "name": peer.cfg.players[seat].name, "address": address}


def run(args: argparse.Namespace, out: TextIO | None = None,
        inp: TextIO | None = None) -> int:
    args = with_defaults("resume", args)
    say = out or sys.stdout
    base = data_dir(args)
    ref = args.game or args.table
    path = _damaged(str(ref or ""), base_dir(args))   # a damaged copy: said in words
    if path is None:
        if ref:
            path = find_game(str(ref), base).path
        else:
            games = saved_games(base)
            if not games:
                # what to do instead, as verify and replay say it
                raise ValueError(_("there is no saved game to resume in %(path)s; play one "
                                   "with:") % {"path": base_dir(args)}
                                 + command_block(play_command(base)))
            # the newest game not over: a game watched to its end after one was left
            # hid it ("the match is over; replay shows it"); none: the newest says so
            path = _newest_not_over(games, base_dir(args), say)
    short_id = path.name[:SHORT]
    remember_game(args, path)     # Ctrl-C from here says how to take this game up again
    remembered = None if args.identity else remembered_identity(path)
    if remembered is not None:
        # the key file the game was played with: a bare `resume ID` (as `games` says it)
        # said "belongs to another identity" after a crash
        args.identity = remembered
        print(i18n.display(_("(with the identity key this game was played with: %(file)s)")
                           % {"file": remembered}), file=say)
    ident = identity(args)
    size = _transcript_bytes(path)
    if size >= SAY_READING_BYTES:
        # every entry is decoded and checked again before anything else is said: 100,000
        # small ones (17 MB) took 10 s, minutes at the 512 MiB a transcript may
        # have, and the terminal said nothing meanwhile (hostile pass 16)
        say_paragraph(_("reading this computer's copy of game %(id)s (%(size)s MB): "
                        "every entry is checked again before play goes on")
                      % {"id": short_id, "size": f"{size / 1e6:.1f}"}, say, flush=True)
    try:
        peer = resume_peer(path, ident)
    except ListenAgainError as exc:
        raise OSError(listen_again_line(exc.bind, exc.port, exc.reason)) from None
    if peer.local_damage:
        print(i18n.display(_("this computer's copy of game %(id)s is damaged (local damage, not "
                "cheating): %(damage)s") % {"id": short_id, "damage": peer_local_damage(peer)}),
              file=say)
    if peer.finished or peer.stopped:
        # with the options that find this copy (a bare "replay ID" found no game)
        # each command on a line of its own, pasted whole (inside the sentence the
        # terminal cut "…/.venv/bin/millebornes" / "replay 8dbea451" in two)
        replay = Command(f"millebornes replay {short_id}{resume_flags(args)[1]}")
        if peer.finished:
            # and how to play again: a player back for a second match read only how to
            # watch the first
            say_paragraphs([_("Game %(id)s: the match is over. Step through it again, "
                              "every player's cards face up, with:") % {"id": short_id},
                            replay, _("Start a new one with:"),
                            Command(play_command(base))], say)
        else:
            say_paragraphs([_("Game %(id)s: %(state)s. Step through it, every player's "
                              "cards face up, with:") % {
                                  "id": short_id, "state": peer_stopped_line(peer)},
                            replay], say)
        peer.close(flush=0)
        return 0 if peer.finished else 1
    say_paragraph(resumed_line(short_id, peer.hand_no), say)
    say_auto_bot(peer, path, args, say)
    for address in args.peer or ():
        print(i18n.display(reach_line(peer, address, REACH_SECONDS)), file=say)
    runners = resume_bots(peer.table_id, base)
    for seat, reason in runners.failed:
        # said here: only the log had it, and the table then waited for the bot as for a
        # player who left ("wait for them (millebornes resume)")
        say_paragraph(bot_not_resumed_line(seat, reason), say)
    broken = [seat for seat, _reason in runners.failed if seat is not None]
    try:
        others = [s for s in stored_bot_seats(path, len(peer.cfg.players)) if s != peer.me]
        return play_seat(peer, args, LineReader(inp), out,
                         bots=[*(p.me for p in runners.peers), *broken, *others],
                         broken=broken,
                         bot_faults=runners.faults, bot_levels=runners.levels)
    finally:
        runners.finish(10.0 if peer.finished else 0.5)
        peer.close(flush=1.0)


def say_auto_bot(peer: Peer, path: Path, args: argparse.Namespace, say: TextIO) -> None:
    """A game a bot played for this player (``--auto``, ``--auto-bot``) resumed without
    the flag (after a crash, as `games` says it): said, with the command that lets the
    bot play on (a bot no longer to be had: the built-in one's). The store then keeps
    how this resume plays, for the next one (it kept how the game began, and a game
    resumed by hand was said to be a bot's again after a second crash)."""
    bot = remembered_auto_bot(path)
    taken = any(t.seat == peer.me for t in peer.takeovers)   # a bot by agreement: watched
    if bot is not None and not args.auto and not args.auto_bot and not taken:
        try:
            made = try_make(bot) if bot else None      # (a plug-in: in a child process)
        except ValueError as exc:                      # its options refused
            made = ("options", str(exc))
        problem = made[1] if made is not None else ""
        again = f"millebornes resume {path.name[:SHORT]}{resume_flags(args)[0]}" + (
            auto_flags(argparse.Namespace(auto=True, auto_bot=None if problem else bot)))
        say_paragraphs([auto_bot_left_line(bot, problem), Command(again)], say)
    if peer.store is not None:
        try:
            peer.store.set_extra(AUTO_BOT, auto_extra(args).get(AUTO_BOT))
        except OSError as exc:     # the game goes on; the next resume may say it wrongly
            log.warning("could not keep --auto-bot in the store: %s", exc)


def _transcript_bytes(table: Path) -> int:
    """The size of the table's transcript (0 when it cannot be looked at: the store's
    own checks then say what is wrong with it)."""
    try:
        return os.lstat(table / "transcript.mbt").st_size   # (a link is refused)
    except OSError:
        return 0


def _newest_not_over(games: list[SavedGame], base: Path, say: TextIO) -> Path:
    """The newest of ``games`` whose match is not over (finished, or ended by agreement:
    what its transcript proves, as `millebornes games` says it; a damaged one is not),
    else the newest. Each is checked whole (a second or more a game): said first when
    several are, and kept in the listing's memory (`games` keeps it too) for the next
    time; it checked every finished game again, without a word (hostile pass 22)."""
    cache = _StateCache(base)
    fresh = 0
    for game in games:
        known = cache.known(game)
        if known is not None and known.kind not in _OVER:
            break
        fresh += known is None
    if fresh > 1:
        # no count: the first one not over ends the checks, however many are left (it
        # said "Checking 10 saved games" and checked one, review of stop 51)
        say_paragraph(_("Looking for the newest saved game not over: checking the games "
                        "(signatures, shuffles and moves)…"), say, flush=True)
    path = next((g.path for g in games if cache.facts(g).kind not in _OVER), games[0].path)
    cache.save(games)
    return path


#: the kinds of :class:`GameFacts` whose match is over
_OVER = ("finished", "agreed")


def _damaged(ref: str, base: Path) -> Path | None:
    """The table folder ``resume`` would pick (``ref``: the one whose id starts with it;
    none: the most recent) when it is one that `games` cannot list because it is damaged;
    :func:`resume_peer` then says what is wrong with it."""
    want = ref.strip().lower()
    try:
        dirs = [d for d in base.iterdir() if len(d.name) == 32 and d.is_dir()
                and all(c in "0123456789abcdef" for c in d.name)]
    except OSError:
        return None
    if want:
        dirs = [d for d in dirs if d.name.startswith(want)]
        if len(dirs) != 1:
            return None
    if not dirs:
        return None

    def changed(d: Path) -> float:
        try:
            return max((f.stat().st_mtime for f in d.iterdir()), default=0.0)
        except OSError:
            return 0.0

    newest = max(dirs, key=changed)
    if newest in {g.path for g in saved_games(base)}:
        return None
    return newest
