"""Can an outsider check a game from the documents alone?

``tests/spec_verifier.py`` is a verifier of transcripts written from docs/protocol.md and
docs/verify.md only (msgpack, hashlib, ``cryptography``, PyNaCl and libsodium's
ristretto255; nothing of ``p2p`` or ``engine``). These tests make transcripts with the
product (fair matches and staged cheats) and assert that the independent verifier reaches
``millebornes verify``'s verdict: the same check and the same seat blamed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import spec_verifier as spec

from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import verify_game
from p2p.table.memory import make_table, play_fair_match, stage_cheat
from p2p.testing import seeded_entropy
from p2p.transcript import verify_crypto

VECTORS = Path(__file__).parent / "vectors"

#: checks that blame nobody in ``millebornes verify``'s words (docs/verify.md), although
#: its report keeps the seat the entry claims in ``blamed_seat``
NOBODY = {"bad-signature"}


def product(path: Path) -> tuple[bool, str | None, int | None]:
    rep = verify_game(path)
    blamed = None if rep.check in NOBODY else rep.blamed_seat
    return rep.ok, rep.check, blamed


def independent(path: Path) -> tuple[bool, str | None, int | None]:
    v = spec.verify_file(str(path))
    return v.ok, None if v.ok else v.check, v.blamed


def agree(path: Path) -> tuple[bool, str | None, int | None]:
    """``verify``'s verdict (ok, check, blamed seat), asserting that the independent
    verifier reaches it, at the same entry."""
    rep = verify_game(path)
    want = (rep.ok, rep.check, None if rep.check in NOBODY else rep.blamed_seat)
    v = spec.verify_file(str(path))
    assert (v.ok, None if v.ok else v.check, v.blamed) == want, v
    if not rep.ok:
        assert v.entry == rep.failed_index, (v, rep.failed_index)
    return want


def test_the_shuffle_proof_vector_verifies_and_its_pass_derives_from_its_seed() -> None:
    v = json.loads((VECTORS / "shuffle_proof.json").read_text())

    def deck(hexes: list[str]) -> list[tuple[bytes, bytes]]:
        return [(bytes.fromhex(x)[:32], bytes.fromhex(x)[32:]) for x in hexes]

    inp, out = deck(v["input"]), deck(v["output"])
    joint = bytes.fromhex(v["joint_key"])
    assert spec.base(int.from_bytes(bytes.fromhex(v["joint_secret"]), "little")) == joint
    assert inp == [(spec.ZERO, spec.card_point(c)) for c in range(len(inp))]
    ctx = spec.ctx("shuffle-proof", bytes.fromhex(v["table"]), v["hand"], v["round"],
                   v["seat"])
    proof = bytes.fromhex(v["proof"])
    assert spec.shuffle_proof_fault(inp, out, proof, joint, ctx) is None
    assert spec.recompute_pass(inp, bytes.fromhex(v["seed"]), joint) == out
    # and it is refused for another context or with a word of the proof changed
    other = spec.ctx("shuffle-proof", bytes.fromhex(v["table"]), v["hand"], v["round"], 1)
    assert spec.shuffle_proof_fault(inp, out, proof, joint, other) is not None
    bad = bytearray(proof)
    bad[-40] ^= 1
    assert spec.shuffle_proof_fault(inp, out, bytes(bad), joint, ctx) is not None


@pytest.mark.parametrize("name", sorted(json.loads((VECTORS / "verdicts.json").read_text())))
def test_the_committed_vectors_get_verifys_verdict(name: str) -> None:
    want = json.loads((VECTORS / "verdicts.json").read_text())[name]
    got = spec.verify_file(str(VECTORS / name))
    assert got.ok == want["ok"]
    if not want["ok"]:
        blamed = None if want["check"] in NOBODY else want["blamed"]
        assert (got.check, got.blamed, got.entry) == (want["check"], blamed, want["entry"])


def _table(name: str, rules: str, n: int, teams: str | None = None) -> tuple[Any, Any]:
    return make_table(preset(rules), Seating.parse(n, teams), ["Al", "Bo", "Cy", "Di"][:n],
                      b"specaudit/" + name.encode())


def _bots(n: int) -> list[Any]:
    return [make_bot("heuristic", s).choose for s in range(n)]


@pytest.fixture(scope="module")
def fair3(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    path = tmp_path_factory.mktemp("spec") / "fair3.mbt"
    with seeded_entropy(b"specaudit/fair3"):
        cfg, ids = _table("fair3", "modern", 3)
        play_fair_match(cfg, ids, _bots(3), path)
    return path, ids


def test_a_fair_match_is_fair_to_both_and_the_drawn_cards_agree(fair3: tuple[Path, Any]
                                                                 ) -> None:
    path, _ = fair3
    assert product(path) == (True, None, None)
    v = spec.verify_file(str(path))
    assert v.ok and v.check is None, v
    # the cards each seat drew, recomputed from the documents, are the ones the product's
    # audit gives to each seat
    hands = verify_crypto(str(path)).hands
    for h, res in hands.items():
        theirs = {s: sorted(res.decks[r][p] for r, rec in enumerate(res.recipients)
                            for p, t in rec.items() if t == s) for s in range(3)}
        assert {s: sorted(cs) for s, cs in v.drawn[h].items()} == theirs
        assert all(len(cs) >= 6 for cs in theirs.values())
    assert v.plays_checked > 20 and v.passes_checked >= 3


def test_a_log_that_forks_from_its_head_is_no_fair_game(fair3: tuple[Path, Any],
                                                        tmp_path: Path) -> None:
    """docs/protocol.md §4.1: a hand's log is linear, every entry extends the head. An
    entry signed on an earlier entry than the head (a fork its author made) is refused
    live; ``verify`` said 'OK: a fair game' of such a transcript."""
    path, ids = fair3
    forked = tmp_path / "forked.mbt"
    _relink(path, forked, ids, at=30, back=2)
    assert independent(forked)[:2] == (False, "broken-link")
    ok, check, _ = product(forked)
    assert (ok, check) == (False, "broken-link")


def _relink(src: Path, dst: Path, ids: Any, at: int, back: int = 1,
            body: Any = None) -> None:
    """Copy ``src`` with entry ``at`` chained on the entry ``back`` before it (and its body
    rewritten by ``body``), that entry and every later one signed again by its own author
    (re-chained)."""
    import hashlib

    objs = spec._objects(src.read_bytes())
    by_key = {i.public_key: i for i in ids}
    out = [objs[0][1]]
    hashes = [hashlib.sha256(raw).digest() for _, raw, _ in objs[1:]]
    renamed: dict[bytes, bytes] = {}
    for i, (_, _, env) in enumerate(objs[1:]):
        env = list(env)
        if i == at:
            env[5] = renamed.get(hashes[at - back], hashes[at - back])
            if body is not None:
                env[6] = body(dict(env[6]))
        else:
            env[5] = renamed.get(env[5], env[5])
        if i >= at:
            env[7] = by_key[env[3]].sign(b"millebornes/envelope/v1\0" + spec.pack(env[:7]))
        raw = spec.pack(env)
        renamed[hashes[i]] = hashlib.sha256(raw).digest()
        out.append(raw)
    dst.write_bytes(b"".join(out))


def _top_bit(body: dict[str, Any]) -> dict[str, Any]:
    d = bytearray(body["d"])
    d[31] |= 0x80
    return dict(body, d=bytes(d))


def _z_plus_l(body: dict[str, Any]) -> dict[str, Any]:
    p = body["proof"]
    z = int.from_bytes(p[32:], "little") + spec.L
    return dict(body, proof=p[:32] + z.to_bytes(32, "little"))


@pytest.mark.parametrize("change", [_top_bit, _z_plus_l])
def test_a_share_signed_with_a_second_encoding_is_refused_alike(
        fair3: tuple[Path, Any], tmp_path: Path, change: Any) -> None:
    """protocol.md §1: one encoding per point (the top bit set is refused, though the
    library would decode it) and per scalar (``z + L`` is refused, though it reduces to
    ``z``): a share so written, signed by its author, is that author's fault."""
    path, ids = fair3
    objs = spec._objects(path.read_bytes())
    at = next(i for i, (_, _, e) in enumerate(objs[1:])
              if e[6]["k"] == "deck.share" and e[6]["to"] != -1)
    seat = objs[1 + at][2][6]["seat"]
    bad = tmp_path / "bad-share.mbt"
    _relink(path, bad, ids, at, body=change)
    want = agree(bad)
    assert want == (False, "share-proof", seat)


def test_a_true_shuffle_not_drawn_from_its_seed_is_blamed_alike(tmp_path: Path) -> None:
    """Seat 1 publishes a valid pass with its proof, made from another seed than the one
    it committed: only the end-of-hand recomputation (protocol.md §3.3 step 4) sees it."""
    from p2p.deck.ciphers import prove_pass

    path = tmp_path / "chosen-pass.mbt"
    with seeded_entropy(b"specaudit/chosen-pass"):
        cfg, ids = _table("chosen-pass", "modern", 2)
    keys: dict[int, bytes] = {}
    first: list[tuple[bytes, bytes]] = []

    def tamper(hand: int, seat: int, body: dict[str, Any]) -> dict[str, Any]:
        if body.get("k") == "deck.key":
            keys[seat] = body["h"]
        if body.get("k") == "deck.pass" and hand == 0 and body["round"] == 0:
            if seat == 0:
                first.extend((c[:32], c[32:]) for c in body["deck"])
            else:
                joint = spec.add(keys[0], keys[1])
                out, proof = prove_pass(first, bytes(range(32)), joint, cfg.table_id, 0, 0, 1)
                body = dict(body, deck=[a + b for a, b in out], proof=proof)
        return body

    with seeded_entropy(b"specaudit/chosen-pass"), pytest.raises(Exception,
                                                                  match="pass-mismatch"):
        play_fair_match(cfg, ids, _bots(2), path, tamper=tamper)
    want = agree(path)
    assert want == (False, "pass-mismatch", 1)


FAST_CHEATS = ("shuffle-substitute", "bad-share", "card-not-held")
SLOW_CHEATS = ("shuffle-drop", "shuffle-duplicate", "bad-shuffle-proof", "equivocation",
               "withheld-reveal", "bad-reveal")


def _staged(kind: str, tmp_path: Path, n: int, cheater: int, rules: str) -> Path:
    path = tmp_path / f"cheat-{kind}.mbt"
    # every secret from a seeded generator: the same deal, and so the same match, each run
    with seeded_entropy(f"specaudit/{kind}/{n}/{cheater}".encode()):
        cfg, ids = _table(f"cheat/{kind}/{n}", rules, n)
        out = stage_cheat(cfg, ids, _bots(n), kind, cheater, path)
    assert out.caught and out.check
    _checks[path] = out.check
    return path


#: the check the table caught each staged cheat with, by its transcript
_checks: dict[Path, str] = {}


@pytest.mark.parametrize("kind", FAST_CHEATS)
def test_a_staged_cheat_is_caught_and_blamed_alike(kind: str, tmp_path: Path) -> None:
    path = _staged(kind, tmp_path, 2, 0, "classic")
    want = agree(path)
    assert want == (False, _checks[path], 0)     # the check the table caught it with


@pytest.mark.slow
@pytest.mark.parametrize("cheater", [0, 2])
@pytest.mark.parametrize("kind", FAST_CHEATS + SLOW_CHEATS)
def test_a_staged_cheat_at_three_seats_is_caught_and_blamed_alike(kind: str, cheater: int,
                                                                  tmp_path: Path) -> None:
    # a withheld reveal by seat 0 leaves a hand that nobody revealed: the independent
    # verifier tells that it was over by its trip (docs/rules.md R11, R12)
    path = _staged(kind, tmp_path, 3, cheater, "modern")
    want = agree(path)
    assert want == (False, _checks[path], cheater)


@pytest.mark.slow
def test_a_withheld_first_reveal_is_blamed_alike(tmp_path: Path) -> None:
    path = _staged("withheld-reveal", tmp_path, 2, 0, "modern")
    want = agree(path)
    assert want == (False, "reveal-missing", 0)


@pytest.mark.slow
def test_a_game_of_play_against_bots_is_fair_to_both(tmp_path: Path) -> None:
    """The transcript `millebornes play` keeps (real bot processes, a CURVE table's
    header), where docs/verify.md says it is."""
    import subprocess
    import sys

    data = tmp_path / "d"
    run = subprocess.run([sys.executable, "-m", "cli", "play", "--auto", "--plain", "--rules",
                          "modern", "--bots", "2", "--data-dir", str(data)],
                         capture_output=True, text=True, timeout=240,
                         cwd=Path(__file__).parent.parent)
    assert run.returncode == 0, run.stderr[-2000:]
    found = list(data.glob("*/transcript.mbt"))
    assert len(found) == 1 and len(found[0].parent.name) == 32
    assert sorted(p.parent.parent.name for p in data.glob("bot-*/*/transcript.mbt")) == [
        "bot-1", "bot-2"]
    assert product(found[0]) == (True, None, None)
    v = spec.verify_file(str(found[0]))
    assert v.ok and v.check is None, v
    assert v.plays_checked > 10


@pytest.fixture(scope="module")
def classic2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("spec") / "classic2.mbt"
    with seeded_entropy(b"specaudit/classic2"):
        cfg, ids = _table("classic2", "classic", 2)
        play_fair_match(cfg, ids, _bots(2), path)
    return path


def _hands_cut(path: Path, dst: Path, how: str) -> None:
    objs = spec._objects(path.read_bytes())
    by_hand: dict[int, list[bytes]] = {}
    for _, raw, env in objs[1:]:
        by_hand.setdefault(env[2], []).append(raw)
    assert len(by_hand) >= 2
    if how == "hand-left-out":
        entries = [r for h, rs in by_hand.items() if h != 1 for r in rs]
    elif how == "hands-swapped":
        entries = by_hand[1] + by_hand[0] + [r for h in sorted(by_hand)[2:] for r in by_hand[h]]
    elif how == "earlier-entry-again":
        entries = [r for h in sorted(by_hand) for r in by_hand[h]] + [by_hand[0][-1]]
    else:                                   # the next hand before the last reveal
        entries = by_hand[0][:-1] + by_hand[1]
    dst.write_bytes(objs[0][1] + b"".join(entries))


@pytest.mark.slow
def test_a_whole_classic_match_is_fair_to_both(classic2: Path) -> None:
    assert product(classic2) == (True, None, None)
    v = spec.verify_file(str(classic2))
    assert v.ok and v.check is None and v.hands >= 2, v


@pytest.mark.slow
@pytest.mark.parametrize("how", ["hand-left-out", "hands-swapped", "earlier-entry-again",
                                 "next-hand-early"])
def test_hands_moved_in_the_file_blame_nobody_alike(classic2: Path, tmp_path: Path,
                                                    how: str) -> None:
    edited = tmp_path / f"{how}.mbt"
    _hands_cut(classic2, edited, how)
    want = agree(edited)
    assert want[0] is False and want[1] in ("wrong-hand", "hand-order") and want[2] is None


def _with_header(path: Path, dst: Path, ids: Any, header: dict[str, Any]) -> None:
    """Copy ``path`` under another header: every hand's genesis follows it, every entry
    signed again by its own author (as a writer of that header would have)."""
    import hashlib

    objs = spec._objects(path.read_bytes())
    old_hdr, new_hdr = objs[0][1], spec.pack(header)
    table, new_table = objs[0][2]["table"], header["table"]
    by_key = {i.public_key: i for i in ids}
    out, renamed = [new_hdr], {}
    for _, raw, env in objs[1:21]:         # the header decides: the first entries do
        env = list(env)
        env[1] = new_table
        if env[5] == spec.genesis(table, env[2], old_hdr):
            env[5] = spec.genesis(new_table, env[2], new_hdr)
        else:
            env[5] = renamed[env[5]]
        env[7] = by_key[env[3]].sign(b"millebornes/envelope/v1\0" + spec.pack(env[:7]))
        new = spec.pack(env)
        renamed[hashlib.sha256(raw).digest()] = hashlib.sha256(new).digest()
        out.append(new)
    dst.write_bytes(b"".join(out))


@pytest.mark.parametrize("where", ["top", "rules"])
def test_a_header_with_a_field_more_is_refused_alike(fair3: tuple[Path, Any], tmp_path: Path,
                                                     where: str) -> None:
    """protocol.md §6: the header has exactly its fields. A field more in the rules map
    comes with the table id that hashes it (and every entry signed for that id), so that
    it is refused for itself, not for an id that no longer matches (the review: the old
    id alone made that case fail at the header)."""
    path, ids = fair3
    header = dict(spec._objects(path.read_bytes())[0][2])
    if where == "top":
        header["extra"] = 1
    else:
        header["rules"] = dict(header["rules"], extra=1)
        header["table"] = spec.table_id(header)
        assert header["table"] != spec._objects(path.read_bytes())[0][2]["table"]
    edited = tmp_path / "header.mbt"
    _with_header(path, edited, ids, header)
    want = agree(edited)
    assert want == (False, "file-corrupt" if where == "top" else "header", None)
    if where == "rules":            # the field refused, not the table id
        detail = verify_game(edited).summary()
        assert "extra" in detail and "table id" not in detail, detail


@pytest.mark.parametrize("kind", ["game.act", "game.rcommit", "game.rreveal"])
def test_a_game_body_with_a_field_more_is_its_authors_fault(fair3: tuple[Path, Any],
                                                            tmp_path: Path, kind: str) -> None:
    """protocol.md §4: every body has exactly its fields (network.md, "Hardened decoding":
    unknown fields are refused, so an entry cannot smuggle data past a check that ignores
    it). A game body with one more, signed by its author, was taken as fair."""
    path, ids = fair3
    objs = spec._objects(path.read_bytes())
    at = next(i for i, (_, _, e) in enumerate(objs[1:]) if e[6]["k"] == kind)
    seat = next(p["seat"] for p in objs[0][2]["players"] if p["key"] == objs[1 + at][2][3])
    edited = tmp_path / "extra.mbt"
    _relink(path, edited, ids, at, body=lambda b: dict(b, note=b"\x00" * 100))
    want = agree(edited)
    assert want == (False, "malformed-body", seat)


def test_live_peers_refuse_a_move_with_a_field_more(tmp_path: Path) -> None:
    """The same rule at the table: the honest peers stop on the first such move, naming
    its author (before, every peer applied it)."""
    from p2p.table import ProtocolError

    def tamper(hand: int, seat: int, body: dict[str, Any]) -> dict[str, Any]:
        if seat == 1 and body.get("k") == "game.act":
            return dict(body, note=b"hidden")
        return body

    with seeded_entropy(b"specaudit/live-extra"):
        cfg, ids = _table("live-extra", "modern", 2)
        with pytest.raises(ProtocolError) as caught:
            play_fair_match(cfg, ids, _bots(2), tmp_path / "t.mbt", tamper=tamper)
    assert (caught.value.seat, caught.value.check) == (1, "malformed-body")


def _rechained(path: Path, dst: Path, ids: Any, change: Any) -> None:
    """Copy ``path`` with its list of envelopes changed by ``change``, each entry then
    chained on the one before it in its hand and signed again by its own author."""
    import hashlib

    objs = spec._objects(path.read_bytes())
    header, table = objs[0][1], objs[0][2]["table"]
    by_key = {i.public_key: i for i in ids}
    out, head = [header], {}
    for env in change([list(e) for _, _, e in objs[1:]]):
        env[5] = head.get(env[2], spec.genesis(table, env[2], header))
        env[7] = by_key[env[3]].sign(b"millebornes/envelope/v1\0" + spec.pack(env[:7]))
        raw = spec.pack(env)
        head[env[2]] = hashlib.sha256(raw).digest()
        out.append(raw)
    dst.write_bytes(b"".join(out))


def _swap(at: Any) -> Any:
    def change(envs: list[list[Any]]) -> list[list[Any]]:
        i, j = at(envs)
        envs[i], envs[j] = envs[j], envs[i]
        return envs
    return change


WRITER_ORDER = {
    # protocol.md §4.1: keys, then randomness commitments, ... each in seat order
    "first-key-left-out": (lambda envs: envs[1:40], 0),
    "commitments-swapped": (_swap(lambda envs: (3, 4)), 3),
    "reveals-swapped": (_swap(lambda envs: tuple(
        i for i, e in enumerate(envs) if e[6]["k"] == "deck.reveal")[:2]), None),
}


@pytest.mark.parametrize("case", sorted(WRITER_ORDER))
def test_an_entry_out_of_its_writers_turn_is_blamed_alike(fair3: tuple[Path, Any],
                                                          tmp_path: Path, case: str) -> None:
    change, at = WRITER_ORDER[case]
    path, ids = fair3
    edited = tmp_path / f"{case}.mbt"
    _rechained(path, edited, ids, change)
    want = agree(edited)
    assert want[:2] == (False, "out-of-turn") and want[2] is not None
    if at is not None:
        assert verify_game(edited).failed_index == at
