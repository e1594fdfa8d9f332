"""``millebornes resume [ID]``: take your seat again in a saved game (after a crash, a
quit or a lost connection); the others' peers hand over what was played meanwhile."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from p2p.table import resume_peer

from .args import data_dir, with_defaults
from .games import find_game, saved_games
from .i18n import _
from .seats import LineReader, base_dir, identity, play_seat, resume_bots


def run(args: argparse.Namespace, out: TextIO | None = None,
        inp: TextIO | None = None) -> int:
    args = with_defaults("resume", args)
    say = out or sys.stdout
    ident = identity(args)
    base = data_dir(args)
    ref = args.game or args.table
    if ref:
        game = find_game(str(ref), base)
    else:
        games = saved_games(base)
        if not games:
            raise ValueError(_("there is no saved game to resume in %(path)s")
                             % {"path": base_dir(args)})
        game = games[0]
    path = game.path
    peer = resume_peer(path, ident)
    if peer.finished or peer.stopped:
        print(_("game %(id)s: %(state)s; millebornes replay %(id)s shows it") % {
            "id": game.short_id, "state": _("the match is over") if peer.finished else
            _("the match stopped: %(reason)s") % {"reason": peer.stopped}}, file=say)
        peer.close(flush=0)
        return 0 if peer.finished else 1
    print(_("resumed table %(id)s at entry %(entry)d; catching up with the others")
          % {"id": game.short_id, "entry": peer.entries_applied}, file=say)
    runners = resume_bots(peer.table_id, base)
    try:
        return play_seat(peer, args, LineReader(inp), out,
                         bots=[p.me for p in runners.peers])
    finally:
        runners.finish(10.0 if peer.finished else 0.5)
        peer.close(flush=1.0)
