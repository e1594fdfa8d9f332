"""``millebornes`` entry point: parses the verb and hands over to the module that does it.

Every error a user can meet ends as one plain sentence on stderr and a non-zero exit,
never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _add_rules_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", default="classic", choices=["classic", "modern"],
                   help="rule preset (default: classic)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="change one rule option, e.g. fast_play=yes (repeatable)")
    p.add_argument("--teams", default=None, metavar="AxB",
                   help="A teams of B players: 2x2, 2x3 or 3x2")


class BotsArg(int):
    """``--bots`` of play/host: a number of bots, or bot specs / levels per seat
    (``expert``, ``hard,easy``, ``search:ms=200``). The value is the number of bots (an
    ``int``, as before); ``.specs`` holds the specs, ``None`` for the default bot."""

    specs: list[str] | None = None


def bots_arg(text: str) -> BotsArg:
    text = text.strip()
    if text.isdigit():
        return BotsArg(int(text))
    from engine.bots import make_bot
    specs = [t.strip() for t in text.split(",") if t.strip()]
    try:
        for spec in specs:
            make_bot(spec, 0)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    value = BotsArg(len(specs))
    value.specs = specs
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="millebornes",
        description="Mille Bornes on a LAN with no server: fair, verifiable, peer to peer.")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")

    play = verbs.add_parser("play", help="play against bots on this machine")
    _add_rules_args(play)
    play.add_argument("--bots", type=bots_arg, default=1,
                      help="number of bot opponents (1-5), or a level per opponent "
                           "(easy, normal, hard, expert) or bot specs, comma-separated")
    play.add_argument("--name", default=None, help="your name at the table")
    play.add_argument("--seed", type=int, default=None, help="seed for the bots")
    play.add_argument("--auto", action="store_true", help="a bot plays your seat too")
    play.add_argument("--plain", action="store_true", help="line mode (screen readers, scripts)")
    play.add_argument("--lang", default="en", choices=["en", "fr"], help="card names")
    play.add_argument("--in-process", action="store_true",
                      help="no sockets or cryptography: the table runs in this process")

    def net_common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--data-dir", default=None, help="where logs and secrets are kept")
        p.add_argument("--identity", default=None, help="identity key file (default: config dir)")
        p.add_argument("--mdns", default=None, choices=["all", "default", "loopback"],
                       help="interfaces for LAN discovery")

    def seat_common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--name", default=None, help="your name at the table")
        p.add_argument("--bind", default=None, help="address to listen on (default: all)")
        p.add_argument("--port", type=int, default=None, help="port to listen on (default: any)")
        p.add_argument("--interface", default=None, help="network interface to listen on")
        p.add_argument("--not-ready", action="store_true", help="do not declare ready at once")
        p.add_argument("--auto", action="store_true", help="a bot plays your seat")
        p.add_argument("--plain", action="store_true", help="line mode")
        p.add_argument("--lang", default="en", choices=["en", "fr"], help="card names")
        p.add_argument("--peer", action="append", default=[], metavar="HOST:PORT",
                       help="reach a peer by address (VPNs: no discovery needed; repeatable)")

    host = verbs.add_parser("host", help="host a table on the LAN")
    _add_rules_args(host)
    seat_common(host)
    net_common(host)
    host.add_argument("--players", type=int, default=None, help="seats at the table (2-6)")
    host.add_argument("--bots", type=bots_arg, default=None,
                      help="seats filled by bots: a number, or a level/bot spec per seat")
    host.add_argument("--table-name", default=None, help="the name shown in the lobby")
    host.add_argument("--seed", type=int, default=None, help="seed for the bots")
    host.add_argument("--no-announce", action="store_true", help="do not announce on the LAN")

    join = verbs.add_parser("join", help="join a table")
    seat_common(join)
    net_common(join)
    join.add_argument("--seat", type=int, default=None, help="the seat to take")
    join.add_argument("--table", default=None, help="table name or host fingerprint")

    lobby = verbs.add_parser("lobby", help="browse tables on the LAN")
    net_common(lobby)
    lobby.add_argument("--seconds", type=float, default=None,
                       help="browse this long (0: until Ctrl-C)")

    resume = verbs.add_parser("resume", help="resume a game after a crash")
    net_common(resume)
    resume.add_argument("--table", default=None, help="table id prefix (default: the latest)")
    resume.add_argument("--auto", action="store_true")
    resume.add_argument("--plain", action="store_true")
    resume.add_argument("--lang", default="en", choices=["en", "fr"])
    resume.add_argument("--peer", action="append", default=[], metavar="HOST:PORT")

    sim = verbs.add_parser("simulate", help="bot-only matches with statistics")
    _add_rules_args(sim)
    sim.add_argument("--players", type=int, default=2)
    sim.add_argument("--bots", default="heuristic,random",
                     help="bot per seat, comma-separated, cycled: random, heuristic-v1, "
                          "heuristic, search[:playouts=N|:ms=N], a level (easy, normal, "
                          "hard, expert) or a plug-in bot")
    sim.add_argument("--games", type=int, default=100)
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--json", action="store_true", help="one JSON object on stdout")
    sim.add_argument("--fair-deck", action="store_true",
                     help="deal through the mental-poker protocol (in memory)")
    sim.add_argument("--network", action="store_true", help="one peer process per seat")
    sim.add_argument("--transcript-dir", default=None)

    from .tournament import add_parser as add_tournament_parser
    add_tournament_parser(verbs)

    ver = verbs.add_parser("verify", help="audit a finished game's transcript")
    ver.add_argument("transcript")

    rep = verbs.add_parser("replay", help="step through a finished game")
    rep.add_argument("transcript")
    rep.add_argument("--plain", action="store_true", help="print every step as text")

    bench = verbs.add_parser("bench", help="benchmarks")
    bench.add_argument("what", choices=["engine", "deck", "net"])
    bench.add_argument("--json", action="store_true")
    bench.add_argument("--seconds", type=float, default=3.0,
                       help="time budget per measurement (engine)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.verb == "simulate":
            from ._simulate import run_simulate
            return run_simulate(args)
        if args.verb == "tournament":
            from .tournament import run_tournament
            return run_tournament(args)
        if args.verb == "bench":
            from ._bench import run_bench
            return run_bench(args)
        if args.verb == "play":
            from ._play import run_play
            return run_play(args)
        if args.verb == "verify":
            from ._verify import run_verify
            return run_verify(args)
        if args.verb in ("host", "join", "lobby", "resume"):
            from . import _net
            return int(getattr(_net, f"run_{args.verb}")(args))
        if args.verb == "replay":
            from ._replay import run_replay
            return run_replay(args)
        if args.verb is None:
            parser.print_help()
            return 0
        print(f"millebornes {args.verb}: not available yet in this version. "
              "Try `millebornes simulate` to watch bots play.", file=sys.stderr)
        return 2
    except (ValueError, OSError) as exc:
        print(f"millebornes {args.verb}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; nothing was lost", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
