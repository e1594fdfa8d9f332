"""Networked simulation: every seat a separate OS process, real sockets on 127.0.0.1.

``millebornes simulate --network`` and the tests use :func:`run_network_game`: it makes a
table of bots (keys derived from a seed, like the in-memory simulator), starts one
``python -m p2p.netsim peer SPEC SEAT`` process per seat, tells every process where the
others listen, waits for every peer to finish, then checks that the transcripts of the
game are byte-identical and pass :func:`p2p.audit.verify_game`.

A child speaks line by line on stdout: ``ENDPOINT tcp://...``, ``PROGRESS n`` (entries
applied, every ``progress_every``), ``RESULT {json}``; it reads the endpoints of all seats
as one JSON line on stdin. ``kill`` (seat, after n entries) kills a peer with SIGKILL and
restarts it with ``--resume``: it rebuilds its state from its store and catches up.

:func:`run_net_bench` measures a complete 2-, 4- and 6-peer bot hand on loopback and the
per-move latency (entry sent by its writer → applied on every other peer).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from engine import MatchTally, Rules, Seating
from p2p.table.config import DEFAULT_RESPONSE_DELAY

__all__ = ["GameRun", "run_network_game", "run_net_bench", "percentile", "main"]

_ROOT = Path(__file__).resolve().parent.parent


def percentile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))
    return s[k]


@dataclass
class GameRun:
    ok: bool
    results: list[dict[str, Any]]
    transcripts: list[Path]
    identical: bool
    verified: bool
    summary: str
    seconds: float
    restarts: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def winner(self) -> int:
        return int(self.results[0].get("winner", -1)) if self.results else -1


# ============================================================================ the child
def _identity_for(key_seed: bytes, seat: int) -> Any:
    from p2p.crypto.identity import Identity
    return Identity.from_seed(hashlib.sha256(key_seed + bytes([seat])).digest())


#: Seconds a seat's bot may think about one move here (the networked table's bound).
DECISION_LIMIT = 30.0


def _die_with_parent() -> None:
    """This child ends when its coordinator does (Linux ``PR_SET_PDEATHSIG``): a
    coordinator stopped by ``timeout`` left its seats' processes running."""
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)             # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return                                    # not Linux: the deadline still ends it
    if os.getppid() == 1:                         # the coordinator already left
        os._exit(1)


class _Late(BaseException):
    """A bot's time is up (raised by the timer of :meth:`_FaultTolerant._bounded`)."""


class _FaultTolerant:
    """A seat's bot that, once it fails (raises, answers a move that is not legal, is too
    slow, ends or forks its process: someone else's plug-in), is replaced by the heuristic
    for the rest of the game, said once on stderr: the peer, and the table, go on.

    A plug-in thinks in a child process of its own (:class:`engine.bot_process.BotProcess`,
    as at a networked ``play``): what it does there (``os.fork``, ``os._exit``,
    ``KeyboardInterrupt``) is its fault, named, never this seat's silence. A built-in bot
    plays here, checked and timed."""

    def __init__(self, spec: str, seed: int, seat: int) -> None:
        from engine import exception_words
        from engine.bot_process import BotProcess
        from engine.bots import BOTS, make_bot, parse_bot_spec
        self.spec, self.seat, self.seed = spec, seat, seed
        #: what the bot did wrong (reported with the result), None while it plays
        self.fault: str | None = None
        self.isolated = False
        try:
            if parse_bot_spec(spec)[0] not in BOTS:
                self.bot: Any = BotProcess(spec, seed, answer_within=DECISION_LIMIT,
                                           on_fault=self._failed, seat=seat)
                self.isolated = True
            else:
                self.bot = make_bot(spec, seed)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - a spec that fails for this seed
            # (the seat's process ended with a traceback and the run lost every game)
            self.fault = f"could not be made ({exception_words(exc)})"[:300]
            sys.stderr.write(f"bot {spec} at seat {seat} {self.fault}; the heuristic "
                             "plays its seat\n")
            self.bot = make_bot("heuristic", seed)

    def _failed(self, spec: str, words: str) -> None:
        """Told once by the bot's child process when it fails (it then moves with the
        heuristic itself)."""
        self.fault = words[:300]
        sys.stderr.write(f"bot {self.spec} at seat {self.seat} failed to move "
                         f"({self.fault}); the heuristic moves for it from now on\n")

    def _bounded(self, view: Any, legal: list[Any]) -> Any:
        """The bot's move within :data:`DECISION_LIMIT` seconds (a ``SIGALRM`` timer: the
        peer asks in this process's main thread)."""
        from engine import BotTooSlow

        def late(signum: int, frame: Any) -> None:
            raise _Late       # not an Exception: a bot's ``except Exception`` lets it pass

        before = signal.signal(signal.SIGALRM, late)
        # rings again every second: a bot that catches one stop gets the next
        signal.setitimer(signal.ITIMER_REAL, DECISION_LIMIT, 1.0)
        try:
            return self.bot.choose(view, legal)
        except _Late:
            raise BotTooSlow(f"did not move within {DECISION_LIMIT:g} s") from None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, before)

    def choose(self, view: Any, legal: list[Any]) -> Any:
        from engine import BotFailed
        from engine.bots import make_bot
        from engine.simulate import checked_choice
        if self.isolated:
            return self.bot.choose(view, legal)   # its own checks, limit and fallback
        if self.fault is None:
            try:
                return checked_choice(self._bounded, view, legal, self.seat)
            except BotFailed as exc:
                self.fault = exc.reason[:300]
                sys.stderr.write(f"bot {self.spec} at seat {self.seat} failed to move "
                                 f"({exc.reason[:300]}); the heuristic moves for it from "
                                 f"now on\n")
                self.bot = make_bot("heuristic", self.seed)
        return self.bot.choose(view, legal)

    def close(self) -> None:
        """Stop the bot's child process, if it has one."""
        close = getattr(self.bot, "close", None) if self.isolated else None
        if close is not None:
            close()


def _child(spec_path: str, seat: int, resume: bool) -> int:
    from p2p.table.config import TableConfig
    from p2p.table.session import Peer, SessionOptions, node_id_for, resume_peer
    from p2p.table.store import Store, table_dir
    from p2p.transcript.file import TranscriptHeader

    _die_with_parent()
    # the standard output is this child's channel to the parent (ENDPOINT, progress,
    # the result): a bot's prints, even below sys.stdout, go to stderr instead
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    spec = json.loads(Path(spec_path).read_text())
    import msgpack
    header = TranscriptHeader.from_obj(msgpack.unpackb(bytes.fromhex(spec["header"]),
                                                       raw=False))
    cfg = TableConfig.from_header(header)
    ident = _identity_for(bytes.fromhex(spec["key_seed"]), seat)
    bot = _FaultTolerant(spec["bots"][seat],
                         int(spec["bot_seeds"][seat]) + (1000 if resume else 0), seat)
    opts = SessionOptions(record_times=bool(spec.get("record_times")),
                          response_delay=float(spec.get("response_delay", DEFAULT_RESPONSE_DELAY)))
    base = Path(spec["data_dir"]) / f"seat-{seat}"
    every = int(spec.get("progress_every", 0))

    def say(line: str) -> None:
        out.write(line + "\n")
        out.flush()

    if resume:
        peer = resume_peer(table_dir(base, cfg.table_id), ident, controller=bot, options=opts)
        say(f"ENDPOINT {peer.node.endpoint}")
    else:
        from p2p.net.transport import Node
        node = Node(node_id_for(ident.public_key), bind="127.0.0.1", port=0)
        say(f"ENDPOINT {node.endpoint}")
        line = sys.stdin.readline()
        eps = {int(k): str(v) for k, v in json.loads(line).items()}
        store = Store.create(base, header, seat, port=node.port, endpoints=eps)
        peer = Peer(ident, cfg, node, controller=bot, store=store, endpoints=eps,
                    options=opts)
    deadline = time.monotonic() + float(spec.get("timeout", 300))
    last = 0
    while peer.pump(0.05):
        if every and peer.entries_applied - last >= every:
            last = peer.entries_applied
            say(f"PROGRESS {peer.entries_applied}")
        if time.monotonic() > deadline:
            peer.abandon("timeout")
            break
    peer.linger(float(spec.get("linger", 0.5)))
    m = peer.match
    res: dict[str, Any] = {
        "seat": seat, "finished": peer.finished, "stopped": peer.stopped,
        "winner": peer.winner(), "entries": peer.entries_applied,
        "totals": list(m.scored.totals()) if m.scored is not None else [],
        "hands": len(m.scores), "turns": [int(h["turns"]) for h in m.finished],
        "transcript": str(peer.store.transcript_path) if peer.store is not None else None,
        "drops": {f"{k[0]}: {k[1]}": v for k, v in peer.drops.items()},
        "bot_fault": bot.fault,
    }
    if opts.record_times:
        res["sent"] = [[h, i, t] for (h, i), t in peer.sent_at.items()]
        res["applied"] = [[h, i, t] for (h, i), t in peer.applied_at.items()]
        res["moves"] = [[h, i] for (h, i) in peer.move_index]
    peer.close(flush=1.0)
    bot.close()
    say("RESULT " + json.dumps(res))
    return 0 if peer.finished else 1


# ======================================================================= the coordinator
class _Proc:
    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env, cwd=str(_ROOT))
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: list[str] = []
        assert self.p.stdout is not None and self.p.stderr is not None
        threading.Thread(target=self._read, args=(self.p.stdout, True), daemon=True).start()
        threading.Thread(target=self._read, args=(self.p.stderr, False), daemon=True).start()

    def _read(self, f: IO[str], main: bool) -> None:
        for line in f:
            if main:
                self.lines.put(line.rstrip("\n"))
            elif len(self.stderr) < 200:
                self.stderr.append(line.rstrip("\n"))
        if main:
            self.lines.put(None)

    def write(self, text: str) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(text)
        self.p.stdin.flush()

    def kill(self) -> None:
        try:
            self.p.send_signal(signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.p.wait(10)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(_ROOT) + (os.pathsep + env["PYTHONPATH"]
                                      if env.get("PYTHONPATH") else "")
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def run_network_game(rules: Rules, seating: Seating, bot_names: list[str], seed: int = 0,
                     game: int = 0, work_dir: str | os.PathLike[str] | None = None,
                     transcript_dir: str | os.PathLike[str] | None = None,
                     kill: tuple[int, int] | None = None, timeout: float = 300.0,
                     record_times: bool = False, response_delay: float = DEFAULT_RESPONSE_DELAY,
                     keep_work: bool = False) -> GameRun:
    """One match of bots, one OS process per seat over 127.0.0.1 (see the module doc).

    Peers keep their stores under ``work_dir`` (default: a temporary directory, removed
    afterwards unless ``keep_work``); ``transcript_dir`` receives a copy of every peer's
    transcript."""
    from p2p.table.memory import make_table

    from .audit import verify_game

    n = seating.n_players
    names = [f"{bot_names[s]}{s + 1}" for s in range(n)]
    key_seed = b"netsim/%d/%d" % (seed, game)
    cfg, _ids = make_table(rules, seating, names, key_seed,
                           nonce=hashlib.sha256(key_seed).digest()[:8])
    own_tmp = work_dir is None
    wd = Path(tempfile.mkdtemp(prefix="mb-netsim-")) if work_dir is None else Path(work_dir)
    wd.mkdir(parents=True, exist_ok=True)
    spec = {"header": cfg.header().to_bytes().hex(), "key_seed": key_seed.hex(),
            "bots": bot_names[:n],
            "bot_seeds": [seed * 1_000_003 + game * 17 + s for s in range(n)],
            "data_dir": str(wd), "timeout": timeout, "record_times": record_times,
            "response_delay": response_delay,
            "progress_every": 1 if kill is not None else 0}
    spec_path = wd / f"spec-{game}.json"
    spec_path.write_text(json.dumps(spec))
    env = _env()
    cmd = [sys.executable, "-m", "p2p.netsim", "peer", str(spec_path)]
    started = time.perf_counter()
    procs = [_Proc(cmd + [str(s)], env) for s in range(n)]
    errors: list[str] = []
    restarts = 0
    results: list[dict[str, Any] | None] = [None] * n
    try:
        eps: dict[int, str] = {}
        for s, p in enumerate(procs):
            line = _next_line(p, timeout=30)
            if line is None or not line.startswith("ENDPOINT "):
                raise RuntimeError(f"seat {s} did not start: {line!r} {p.stderr[-5:]}")
            eps[s] = line.split(" ", 1)[1]
        for p in procs:
            p.write(json.dumps(eps) + "\n")
        deadline = time.monotonic() + timeout + 30
        pending = set(range(n))
        killed = False
        while pending and time.monotonic() < deadline:
            for s in sorted(pending):
                p = procs[s]
                while True:
                    try:
                        line = p.lines.get_nowait()
                    except queue.Empty:
                        break
                    if line is None:
                        if results[s] is None:
                            errors.append(f"seat {s} exited without a result: "
                                          + " | ".join(p.stderr[-5:]))
                        pending.discard(s)
                        break
                    if line.startswith("RESULT "):
                        results[s] = json.loads(line[7:])
                    elif (line.startswith("PROGRESS ") and kill is not None and not killed
                          and s == kill[0] and int(line.split()[1]) >= kill[1]):
                        killed = True
                        p.kill()
                        restarts += 1
                        procs[s] = _Proc(cmd + [str(s), "--resume"], env)
                        break
            time.sleep(0.01)
        for s in pending:
            errors.append(f"seat {s} timed out")
    finally:
        for p in procs:
            if p.p.poll() is None:
                p.kill()
    seconds = time.perf_counter() - started
    done = [r for r in results if r is not None]
    paths = [Path(r["transcript"]) for r in done if r.get("transcript")]
    blobs = [p.read_bytes() for p in paths if p.exists()]
    identical = len(blobs) == n and all(b == blobs[0] for b in blobs)
    rep = verify_game(paths[0]) if paths else None
    verified = bool(rep is not None and rep.ok)
    out_paths: list[Path] = []
    if transcript_dir is not None and paths:
        td = Path(transcript_dir)
        td.mkdir(parents=True, exist_ok=True)
        for r, src in zip(done, paths, strict=False):
            dst = td / f"game-{seed}-{game:04d}-{cfg.table_id.hex()[:12]}-seat{r['seat']}.mbt"
            shutil.copyfile(src, dst)
            out_paths.append(dst)
    else:
        out_paths = paths
    for r in done:
        if not r.get("finished"):
            errors.append(f"seat {r['seat']} did not finish: {r.get('stopped')}")
    ok = (not errors and len(done) == n and identical and verified)
    run = GameRun(ok, [r for r in results if r is not None], out_paths, identical, verified,
                  rep.summary() if rep is not None else "no transcript", seconds, restarts,
                  errors)
    if own_tmp and (transcript_dir is not None or not keep_work):
        shutil.rmtree(wd, ignore_errors=True)   # (without transcript_dir: files are gone)
    return run


def _next_line(p: _Proc, timeout: float) -> str | None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            line = p.lines.get(timeout=0.1)
        except queue.Empty:
            continue
        if line is None or not line.startswith("PROGRESS"):
            return line
    return None


# ======================================================================= simulate
def simulate_network(rules: Rules, seating: Seating, bot_names: list[str], games: int,
                     seed: int, transcript_dir: str | None,
                     on_game: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Like ``simulate_fair`` (same statistics), one peer process per seat per game.
    ``on_game(n)``: told after each game, ``n`` games played (the console's progress
    line: a network game takes seconds, and the run said nothing until its report)."""
    tally = MatchTally(seating)
    entries = 0
    files: list[str] = []
    failures: list[str] = []
    bot_faults: list[dict[str, Any]] = []
    started = time.perf_counter()
    played = games
    for g in range(games):
        try:
            run = run_network_game(rules, seating, bot_names, seed, g,
                                   transcript_dir=transcript_dir)
        except KeyboardInterrupt:
            if g == 0:
                raise
            # Ctrl-C: the games played so far are reported (the caller says it)
            played = g
            break
        bot_faults += [{"game": g, "seat": int(r["seat"]), "reason": str(r["bot_fault"])}
                       for r in run.results if isinstance(r, dict) and r.get("bot_fault")]
        if on_game is not None:
            on_game(g + 1)
        if not run.ok:
            # counted from 1, as the other simulations say "game 2 of 3"
            failures.append(f"game {g + 1} of {games}: " + "; ".join(
                run.errors or [("transcripts differ" if not run.identical else run.summary)]))
            continue
        r0 = run.results[0]
        tally.add(r0["totals"], r0["winner"], int(r0["hands"]), sum(r0["turns"]))
        entries += int(r0["entries"])
        if transcript_dir is not None:
            files.extend(str(p) for p in run.transcripts)
    return {"rules": rules.to_dict(), "seating": seating.label(), "games": played,
            "fair_deck": True, "network": True, "entries": entries, "transcripts": files,
            "identical_transcripts": not failures, "failures": failures,
            "bot_faults": bot_faults, **({"interrupted": True} if played < games else {}),
            **tally.summary(bot_names, time.perf_counter() - started, rate_digits=2)}


# ======================================================================= benchmark
def _latencies(run: GameRun) -> tuple[list[float], list[float]]:
    sent: dict[tuple[int, int], float] = {}
    applied: dict[tuple[int, int], list[float]] = {}
    moves: set[tuple[int, int]] = set()
    for r in run.results:
        for h, i, t in r.get("sent", []):
            sent[(h, i)] = t
        for h, i, t in r.get("applied", []):
            applied.setdefault((h, i), []).append(t)
        moves.update((h, i) for h, i in r.get("moves", []))
    n = len(run.results)
    all_lat: list[float] = []
    move_lat: list[float] = []
    for k, t0 in sent.items():
        ts = applied.get(k, [])
        if len(ts) < n:
            continue
        lat = max(ts) - t0      # the writer's own apply precedes its send
        all_lat.append(lat)
        if k in moves:
            move_lat.append(lat)
    return all_lat, move_lat


def run_net_bench(json_out: bool = False, sizes: tuple[int, ...] = (2, 4, 6),
                  rules_name: str = "modern") -> dict[str, Any]:
    """Wall time of a complete bot hand with 2, 4 and 6 peer processes on loopback and
    per-move latency p50/p99 (ms). Prints a table (or one JSON object) and returns it."""
    from engine import preset

    rules = preset(rules_name)
    out: dict[str, Any] = {"rules": rules_name, "cores": os.cpu_count(), "peers": {}}
    for n in sizes:
        run = run_network_game(rules, Seating.solo(n), ["heuristic"] * n, seed=7, game=n,
                               record_times=True)
        all_lat, move_lat = _latencies(run)
        r0 = run.results[0] if run.results else {}
        out["peers"][str(n)] = {
            "ok": run.ok, "wall_seconds": round(run.seconds, 2),
            "entries": r0.get("entries"), "turns": sum(r0.get("turns", [])),
            "move_latency_ms": {"n": len(move_lat),
                                "p50": round(1000 * percentile(move_lat, 50), 2),
                                "p99": round(1000 * percentile(move_lat, 99), 2)},
            "entry_latency_ms": {"n": len(all_lat),
                                 "p50": round(1000 * percentile(all_lat, 50), 2),
                                 "p99": round(1000 * percentile(all_lat, 99), 2)},
        }
    if json_out:
        print(json.dumps(out))
    else:
        print(f"complete {rules_name} bot hand, one process per peer, loopback "
              f"({out['cores']} cores); wall time includes process start")
        for n, r in out["peers"].items():
            m, e = r["move_latency_ms"], r["entry_latency_ms"]
            print(f"  {n} peers: {r['wall_seconds']:6.2f} s, {r['entries']} entries, "
                  f"move latency p50 {m['p50']} ms p99 {m['p99']} ms (n={m['n']}); "
                  f"all entries p50 {e['p50']} ms p99 {e['p99']} ms"
                  + ("" if r["ok"] else "  [FAILED]"))
    return out


# ======================================================================= entry point
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m p2p.netsim")
    sub = ap.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("peer", help="run one seat (used by run_network_game)")
    pp.add_argument("spec")
    pp.add_argument("seat", type=int)
    pp.add_argument("--resume", action="store_true")
    bp = sub.add_parser("bench")
    bp.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.cmd == "peer":
        import logging
        logging.basicConfig(level=logging.ERROR)
        return _child(a.spec, a.seat, a.resume)
    run_net_bench(a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
