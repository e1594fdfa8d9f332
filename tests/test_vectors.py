"""The shipped test vectors (tests/vectors/, docs/protocol.md): the proof of shuffle is
recomputed byte for byte and verifies, and ``verify`` gives every transcript its recorded
verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2p.audit import verify_game
from p2p.crypto import group as g
from p2p.crypto.shuffle_proof import ShuffleProofError
from p2p.deck.ciphers import prove_pass, start_deck, verify_pass

VECTORS = Path(__file__).parent / "vectors"
VERDICTS = json.loads((VECTORS / "verdicts.json").read_text())


def _deck(hexes: list[str]) -> tuple[tuple[bytes, bytes], ...]:
    return tuple((bytes.fromhex(h[:64]), bytes.fromhex(h[64:])) for h in hexes)


def test_shuffle_proof_vector() -> None:
    v = json.loads((VECTORS / "shuffle_proof.json").read_text())
    x = g.scalar_from_bytes(bytes.fromhex(v["joint_secret"]))
    joint = g.base(x)
    assert joint.hex() == v["joint_key"]
    table = bytes.fromhex(v["table"])
    inp = _deck(v["input"])
    assert inp == start_deck(range(len(inp)))
    out, proof = prove_pass(inp, bytes.fromhex(v["seed"]), joint, table, v["hand"], v["round"],
                            v["seat"])
    assert out == _deck(v["output"])
    assert proof.hex() == v["proof"]
    verify_pass(inp, out, proof, joint, table, v["hand"], v["round"], v["seat"])
    with pytest.raises(ShuffleProofError):
        verify_pass(inp, out, proof, joint, table, v["hand"], v["round"] + 1, v["seat"])


@pytest.mark.parametrize("name", sorted(VERDICTS))
def test_transcript_vector_verdict(name: str) -> None:
    rep = verify_game(VECTORS / name)
    want = VERDICTS[name]
    got = {"ok": rep.ok, "check": rep.check, "blamed": rep.blamed_seat,
           "entry": rep.failed_index}
    assert got == want, rep.summary()


@pytest.mark.parametrize("name", sorted(VERDICTS))
def test_parallel_proof_check_gives_the_same_report(name: str) -> None:
    """``verify`` checks the proofs of shuffle in a worker process: same verdict, same
    entry, same detail and the same checked prefix as the one-process verifier."""
    one = verify_game(VECTORS / name)
    two = verify_game(VECTORS / name, workers=1)
    assert (two.ok, two.check, two.blamed_seat, two.failed_index, two.detail) == \
        (one.ok, one.check, one.blamed_seat, one.failed_index, one.detail)
    c1, c2 = one.crypto, two.crypto
    assert (c2.ok, c2.check, c2.blamed_seat, c2.blamed_key, c2.failed_index, c2.detail,
            c2.entries_checked, sorted(c2.hands), [e.index for e in c2.entries]) == \
        (c1.ok, c1.check, c1.blamed_seat, c1.blamed_key, c1.failed_index, c1.detail,
         c1.entries_checked, sorted(c1.hands), [e.index for e in c1.entries])
