"""Fifth hostile pass (2026-12-05): a malicious peer on real ZeroMQ sockets, written with the
project's own classes (a :class:`~p2p.table.session.Peer` subclass, a bare
:class:`~p2p.net.transport.Node`), and a cheater editing a real game's transcript with his
own key. What must hold: no honest seat is ever blamed, live or by ``verify``; no input
stops a peer or ``verify`` with a traceback.

Findings (each test here failed before its fix):

* a game body whose kind ``k`` is a list or a map (signed or not, from any seated key)
  raised ``TypeError: unhashable type`` in ``is_side``: a traceback out of ``Peer.pump``
  (the peer's thread died), and ``verify`` said ``unexpected-error``, blaming nobody, for
  an entry its author signed;
* a writer that signs two legal moves for one slot, drawing from the pile for one peer and
  from the discard pile for another, was never caught: each honest peer went on along its
  own branch, held the other's next entry as "early" (chained on a version it never saw)
  and waited; the table stopped naming a seat unresponsive, one honest peer naming the
  other honest peer (and signing a timeout claim against it).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import replay_steps, verify_game
from p2p.crypto.identity import Identity
from p2p.net.transport import Node
from p2p.table import wire
from p2p.table.config import TableConfig
from p2p.table.memory import make_table, play_fair_match
from p2p.table.session import Peer, SessionOptions, node_id_for
from p2p.table.store import Store
from p2p.testing import seeded_entropy
from p2p.transcript.envelope import Envelope
from p2p.transcript.file import is_side, read_transcript

FAST = SessionOptions(response_delay=0.01, stall_after=0.3, step_limit=5.0)


# ------------------------------------------------------------- a kind that is no string
def test_is_side_of_a_kind_that_is_no_string() -> None:
    for kind in (["side.abandon"], {"k": 1}, None, 7, b"side.end"):
        assert is_side({"k": kind}) is False
    assert is_side({"k": "side.timeout"}) and not is_side(["side.end"])


def test_a_body_kind_that_is_no_string_stops_no_peer(tmp_path: Path) -> None:
    """Real sockets: seat 1 sends seat 0 an entry whose body kind is a list. Seat 0 keeps
    pumping (it raised TypeError out of ``pump`` before) and, when seat 1's turn comes,
    stops naming seat 1 (malformed body), never itself."""
    cfg, ids = make_table(preset("modern"), Seating.solo(2), ["ann", "mal"], b"kind-list")
    n0 = Node(node_id_for(ids[0].public_key))
    evil = Node(node_id_for(ids[1].public_key))
    evil.add_peer(n0.node_id, n0.endpoint)
    p0 = Peer(ids[0], cfg, n0, controller=make_bot("heuristic", 1),
              endpoints={1: evil.endpoint}, options=FAST,
              store=Store.create(tmp_path, cfg.header(), 0, port=n0.port))
    try:
        for _ in range(20):
            p0.pump(0.01)
        forged = Envelope(cfg.table_id, 0, ids[1].public_key, 1, p0.verifier.head,
                          {"k": {"side.abandon": 1}}, b"\x00" * 64)      # not even signed
        signed = Envelope.create(ids[1], cfg.table_id, 0, 0, p0.verifier.head,
                                 {"k": ["side.abandon"]})
        for env in (forged, signed):
            evil.send(n0.node_id, wire.encode_push([env.encode()])[0])
        for _ in range(100):
            p0.pump(0.02)
            if p0.stopped:
                break
        assert p0.error is not None and p0.error.seat == 1, (p0.stopped, p0.error)
        assert p0.error.check == "malformed-body"
        assert any(r == "bad-signature" for (_w, r, _d) in p0.drop_log)
    finally:
        p0.close(flush=0)
        evil.close()


# ------------------------------------------------------------- a cheater edits a transcript
@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real fair game (one modern hand, two seats, every secret from a seed); seat 1,
    "mal", keeps his copy and his key."""
    with seeded_entropy(b"hostile-fifth"):
        cfg, ids = make_table(preset("modern"), Seating(2, 2), ["ann", "mal"],
                              b"hostile-fifth")
        path = tmp_path_factory.mktemp("fifth") / "game.mbt"
        play_fair_match(cfg, ids, [make_bot("heuristic", s).choose for s in range(2)],
                        transcript=path)
    return {"cfg": cfg, "ids": ids, "path": path, "t": read_transcript(path)}


def _write(path: Path, header: bytes, items: list[Envelope | bytes]) -> Path:
    with open(path, "wb") as f:
        f.write(header)
        for e in items:
            f.write(e if isinstance(e, bytes) else e.encode())
    return path


def _resign(ident: Identity, e: Envelope, body: dict[str, Any]) -> Envelope:
    return Envelope.create(ident, e.table, e.hand, e.seq, e.prev, body)


def _judged(path: Path, cheater: int) -> Any:
    rep = verify_game(path)
    assert rep.check != "unexpected-error" and rep.crypto.check != "unexpected-error", \
        rep.summary()
    assert rep.blamed_seat in (None, cheater) or rep.unfinished, rep.summary()
    replay_steps(path)              # never raises either
    return rep


def test_verify_blames_the_signer_of_a_body_kind_that_is_no_string(
        tmp_path: Path, game: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    """The cheater signs one of his entries again with a list for its kind and cuts the
    file there: ``verify`` names him (malformed-body); it said ``unexpected-error``,
    nobody identified, before. The verbs exit 1 without a traceback."""
    t, mal = game["t"], game["ids"][1]
    i = next(k for k, e in enumerate(t.entries) if e.author == mal.public_key and k > 10)
    for kind in (["game.act"], {"k": "x"}):
        bad = _resign(mal, t.entries[i], {**t.entries[i].body, "k": kind})
        p = _write(tmp_path / "kind.mbt", t.header_bytes, [*t.entries[:i], bad])
        rep = _judged(p, 1)
        assert (rep.check, rep.blamed_seat, rep.failed_index) == ("malformed-body", 1, i)
        assert main(["verify", str(p)]) == 1
        assert main(["replay", str(p)]) != 0
        out = capsys.readouterr()
        assert "Traceback" not in out.out + out.err and "mal" in out.out + out.err


def _edits(t: Any, ann: Identity, mal: Identity) -> dict[str, list[Envelope | bytes]]:
    """A cheater's edits of his copy, as whole lists of entries after the header."""
    g = list(t.entries)
    n = len(g)
    cut = next(k for k in range(n // 2, n) if g[k].author == ann.public_key)
    pre = g[:cut]           # stops where the honest seat's entry is due
    h = pre[-1].hand
    honest = [e for e in pre if e.author == ann.public_key and e.hand == h]
    last_ann = honest[-1]
    ann_written = len(honest)

    def side(body: dict[str, Any]) -> Envelope:
        return Envelope.create(mal, t.header.table, h, 0, pre[-1].hash(), body)

    swapped = Envelope(g[5].table, g[5].hand, g[5].author, g[5].seq, g[5].prev, g[5].body,
                       g[6].sig)
    other = Identity.from_seed(b"\x07" * 32)        # a key with no seat here
    return {
        "forged-share-complaint": [*pre, side({"k": "side.complaint", "check": "share-proof",
                                               "entry": last_ann.encode()})],
        "forged-equivocation-complaint": [*pre, side({
            "k": "side.complaint", "check": "equivocation", "entry": honest[0].encode(),
            "other": last_ann.encode()})],
        "forged-timeout-claim": [*pre, side({"k": "side.timeout", "step": "game.act",
                                             "slot": [h, 0, ann_written]})],
        "forged-abandon-in-his-name": [*pre, side({"k": "side.abandon",
                                                   "reason": "\x1b[2Jann left"})],
        "complaint-of-wrong-types": [*pre, side({"k": "side.complaint", "check": ["x"],
                                                 "entry": {"a": [[[1]]]}, "other": 2**63})],
        "claim-of-wrong-types": [*pre, side({"k": "side.timeout", "step": 5,
                                             "slot": ["0", None, -1]})],
        "takeover-of-wrong-types": [*pre, side({"k": "side.takeover", "hand": "x",
                                                "seat": [0], "runner": None, "key": 1})],
        "reordered": [*g[:cut], g[cut + 1], g[cut], *g[cut + 2:]],
        "dropped-entry": [*g[:cut], *g[cut + 1:]],
        "duplicated-entry": [*g[:cut + 1], g[cut], *g[cut + 1:]],
        "swapped-signature": [*g[:5], swapped, *g[6:]],
        "end-dropped": pre,
        "spliced-foreign-entry": [*pre, Envelope.create(other, t.header.table, h, 0,
                                                        pre[-1].hash(), {"k": "game.act"})],
        "cut-mid-entry": [*pre, g[cut].encode()[:40]],
        "junk-after": [*g, b"\xc1" * 10],
    }


@pytest.mark.slow
def test_a_file_of_entries_dense_with_tiny_values_is_refused_without_its_memory(
        tmp_path: Path, game: dict[str, Any]) -> None:
    """Hostile pass 5: the cheater signs entries carrying a field of tiny nested lists (a
    byte of msgpack each, some 60 bytes each in memory once read): a 16 MB file of them
    took 950 MB and 12 s to verify, and a file at the size limit would have taken tens of
    gigabytes. An envelope holds at most one value per 8 bytes beyond 64 (a game's densest
    entry, a deck share, holds one per 18): such an entry is refused as it is read, live
    and from a file, blaming nobody (its signature is not even read), and the honest
    game's own entries all pass."""
    import tracemalloc

    from p2p.transcript.envelope import Envelope, EnvelopeError

    t, mal = game["t"], game["ids"][1]
    for e in [*t.entries, *t.side]:                   # an honest game's entries all pass
        Envelope.decode(e.encode())
    i = next(k for k, e in enumerate(t.entries) if e.author == mal.public_key and k > 10)
    dense = [[[[]] * 8] * 8] * 40                     # ~3,000 values in ~3 KB
    bad = _resign(mal, t.entries[i], {**t.entries[i].body, "pad": dense})
    with pytest.raises(EnvelopeError, match="one value per 8 bytes"):
        Envelope.decode(bad.encode())
    p = _write(tmp_path / "dense.mbt", t.header_bytes,
               [*t.entries[:i], *([bad.encode()] * 1000)])        # 3 MB of them
    tracemalloc.start()
    try:
        rep = _judged(p, 1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert rep.blamed_seat is None and not rep.ok, rep.summary()
    assert peak < 20 * 1024 * 1024, peak             # it was about 60 times the file's size
    assert main(["verify", str(p)]) != 0


def test_a_cheaters_edits_of_a_real_transcript_never_blame_the_honest_seat(
        tmp_path: Path, game: dict[str, Any]) -> None:
    t = game["t"]
    ann, mal = game["ids"]
    seen = {}
    for name, items in _edits(t, ann, mal).items():
        rep = _judged(_write(tmp_path / f"{name}.mbt", t.header_bytes, items), 1)
        seen[name] = (rep.check, rep.blamed_seat)
    # the forged complaints are his own signed words: they name him
    assert seen["forged-share-complaint"] == ("unfounded-complaint", 1)
    assert seen["forged-equivocation-complaint"] == ("unfounded-complaint", 1)
    # a claim that the honest seat timed out names nobody
    assert seen["forged-timeout-claim"] == ("unresponsive", None)
    for name in ("reordered", "dropped-entry", "duplicated-entry", "swapped-signature",
                 "cut-mid-entry", "junk-after"):
        assert seen[name][1] in (None,) or seen[name][0] == "bad-signature", (name, seen[name])


# ------------------------------------------------------------- equivocation on real sockets
class _Equivocator(Peer):
    """A writer that signs two legal moves for one slot at its first draw from the pile
    that had another choice (the discard pile): the pile draw goes to the lowest other
    seat, the other version to the rest. ``at``: at its ``at``-th move with a choice,
    whatever it is, instead; ``silent``: it says nothing more after that."""

    _alt: tuple[bytes, bytes] | None = None
    done = False
    at = 0
    silent = False
    _choices = 0

    def _write(self, body: dict[str, Any], reproducible: bool = False) -> None:
        hp = self.match.hand
        alt_body = None
        if not self.done and body.get("k") == "game.act" and (self.at or body["a"][0] == "draw"):
            alts = [hp.act_body(a) for a in hp.legal()]
            alts = [b for b in alts if b != body and (self.at or b["a"][0] == "draw")]
            self._choices += bool(alts)
            if alts and self._choices >= self.at:
                alt_body = alts[0]
                self.done = True
        super()._write(body, reproducible)
        if alt_body is not None:
            e = Envelope.decode(self.log[hp.hand_no][-1])
            self._alt = (e.encode(), Envelope.create(self.identity, e.table, e.hand, e.seq,
                                                     e.prev, alt_body).encode())

    def _broadcast(self, payload: bytes) -> None:
        alt = self._alt
        msg = wire.decode(payload)
        if alt is not None and isinstance(msg, wire.Push) and alt[0] in msg.entries:
            others = [node_id_for(k) for s, k in enumerate(self.rlog.keys) if s != self.me]
            self.node.send(others[0], payload)
            other = wire.encode_push([alt[1] if r == alt[0] else r for r in msg.entries])[0]
            for o in others[1:]:
                self.node.send(o, other)
            self._alt = None
            if self.silent:
                self.node.flush(1.0)
                self.node.close()
            return
        if not self.node.closed:
            super()._broadcast(payload)


def _three_peers_seat_1_equivocating(tmp_path: Path, cfg: TableConfig,
                                     ids: list[Identity]) -> list[Peer]:
    """Three real peers on loopback with heuristic bots and stores under ``tmp_path``;
    seat 1's is an :class:`_Equivocator`."""
    nodes = [Node(node_id_for(i.public_key)) for i in ids]
    eps = {s: nodes[s].endpoint for s in range(3)}
    return [(_Equivocator if s == 1 else Peer)(
        ids[s], cfg, nodes[s], controller=make_bot("heuristic", 11 + s), endpoints=eps,
        options=FAST, store=Store.create(tmp_path / f"seat{s}", cfg.header(), s,
                                         port=nodes[s].port, endpoints=eps))
        for s in range(3)]


@pytest.mark.hostile
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_draw_signed_twice_pile_and_discard_is_caught_by_every_honest_peer(
        tmp_path: Path, seed: int) -> None:
    """Three real peers on loopback, seat 1 equivocating a draw (modern rules, R4a: pile or
    discard). Every honest peer stops naming seat 1 (equivocation), and so does ``verify``
    of each honest transcript. Before, seat 0 (pile branch) waited for seat 2's share and
    seat 2 (discard branch) for seat 1's move: both stopped "unresponsive", seat 0 naming
    the honest seat 2."""
    with seeded_entropy(b"fifth-equivocation-%d" % seed):
        cfg, ids = make_table(preset("modern"), Seating.solo(3), ["ann", "mal", "cy"],
                              b"fifth-eq-%d" % seed)
        peers = _three_peers_seat_1_equivocating(tmp_path, cfg, ids)
        try:
            runs = [threading.Thread(target=p.run, kwargs={"timeout": 60}) for p in peers]
            for r in runs:
                r.start()
            for r in runs:
                r.join(90)
            assert peers[1].done, "the equivocator never had a draw with a choice"
            for s in (0, 2):
                p = peers[s]
                assert p.unresponsive is None and p.error is not None, (s, p.stopped)
                assert (p.error.seat, p.error.check) == (1, "equivocation"), (s, p.error)
        finally:
            for p in peers:
                p.close(flush=0)
    for s in (0, 2):
        path = peers[s].transcript_path
        assert path is not None
        rep = verify_game(path)
        assert (rep.check, rep.blamed_seat) == ("equivocation", 1), (s, rep.summary())


@pytest.mark.hostile
@pytest.mark.parametrize("at,seed", [(4, 4), (2, 2), (6, 6)])
def test_an_equivocator_gone_silent_at_once_is_named_by_every_honest_peer(
        tmp_path: Path, at: int, seed: int) -> None:
    """Seat 1 signs two legal moves for one slot, one to each honest peer, and is never
    heard again. Every honest peer stops in bounded time naming seat 1 only (as the
    equivocator, or unresponsive: with nothing written on top of the fork, nobody may see
    both versions). Before, in (4, 4) the two branches waited on different seats: seat 0
    paused on seat 1, and seat 2 waited, untimed, for honest seat 0's move on its branch,
    for ever. Now seat 0's timeout claim, which names the head of its branch, sends seat 2
    looking back, and the other version shows the equivocation."""
    with seeded_entropy(b"eq%d" % seed):
        cfg, ids = make_table(preset("modern"), Seating.solo(3), ["ann", "mal", "cy"],
                              b"equiv-live%d" % seed)
        peers = _three_peers_seat_1_equivocating(tmp_path, cfg, ids)
        bad = peers[1]
        assert isinstance(bad, _Equivocator)
        bad.at, bad.silent = at, True
        try:
            # the honest peers keep listening while paused (a paused table's console does)
            runs = [threading.Thread(target=p.run, kwargs={"timeout": 30, "pause_wait": 8})
                    for p in peers if p is not bad]
            for r in runs:
                r.start()
            while any(r.is_alive() for r in runs) and not bad.node.closed:
                bad.pump(0.05)
            for r in runs:
                r.join(40)
            assert bad.done
            for s in (0, 2):
                p = peers[s]
                named = p.error.seat if p.error is not None else p.unresponsive
                assert p.stopped and named == 1, (s, p.stopped, p.waiting_for())
        finally:
            for p in peers:
                if p is not bad:
                    p.close(flush=0)
            bad.store.close()
    for s in (0, 2):
        path = peers[s].transcript_path
        assert path is not None
        rep = verify_game(path)
        assert rep.blamed_seat in (None, 1) and rep.waiting_for in (None, 1), rep.summary()
