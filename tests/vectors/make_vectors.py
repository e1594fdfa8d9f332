"""Regenerate the test vectors in this directory (``python -m tests.vectors.make_vectors``).

Written for independent verifiers (docs/protocol.md §2.1, §3.3): a proof of shuffle with
every input needed to recompute it byte for byte, a small transcript of a fair hand, and
transcripts of cheats with the verdict ``millebornes verify`` must give (``verdicts.json``).
Transcripts carry fresh random secrets, so regenerating gives other files with the same
verdicts; regenerate whenever the transcript format version changes.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine import Seating, preset
from engine.bots import make_bot
from p2p.audit import verify_game
from p2p.crypto import group as g
from p2p.deck.ciphers import prove_pass, start_deck
from p2p.table.memory import make_table, play_fair_match, stage_cheat

HERE = Path(__file__).parent
CHEATS = ("shuffle-substitute", "bad-shuffle-proof", "bad-share", "card-not-held",
          "equivocation", "withheld-reveal", "bad-reveal")


def proof_vector() -> dict[str, object]:
    """Cards 0..5, joint key x·G for a fixed x, pass of seat 0 in round 0 of hand 1."""
    x = int.from_bytes(bytes(range(1, 33)), "little") % g.L
    joint = g.base(x)
    seed = bytes(range(100, 132))
    table = b"vector-table"
    deck = start_deck(range(6))
    out, proof = prove_pass(deck, seed, joint, table, 1, 0, 0)
    return {
        "about": "deck = start deck of cards 0..5 (C1 = identity, C2 = card point); "
                 "out, proof = the pass of seat 0, round 0, hand 1, computed from seed "
                 "(docs/protocol.md §3.3 and §2.1); hex strings",
        "table": table.hex(), "hand": 1, "round": 0, "seat": 0,
        "joint_secret": g.scalar_to_bytes(x).hex(), "joint_key": joint.hex(),
        "seed": seed.hex(),
        "input": [a.hex() + b.hex() for a, b in deck],
        "output": [a.hex() + b.hex() for a, b in out],
        "proof": proof.hex(),
    }


def main() -> None:
    (HERE / "shuffle_proof.json").write_text(json.dumps(proof_vector(), indent=1) + "\n")
    rules = preset("modern")
    seating = Seating.parse(2, None)
    verdicts: dict[str, dict[str, object]] = {}
    cfg, ids = make_table(rules, seating, ["Al", "Bo"], b"vectors/fair")
    for f in HERE.glob("*.mbt"):
        f.unlink()
    fair = HERE / "fair-hand.mbt"
    play_fair_match(cfg, ids, [make_bot("heuristic", s).choose for s in range(2)], fair)
    data = bytearray(fair.read_bytes())
    data[len(data) // 2] ^= 0x01
    (HERE / "fair-hand-flipped-byte.mbt").write_bytes(bytes(data))
    (HERE / "fair-hand-truncated.mbt").write_bytes(fair.read_bytes()[:-7])
    for kind in CHEATS:
        cfg, ids = make_table(rules, seating, ["Al", "Bo"], b"vectors/" + kind.encode())
        stage_cheat(cfg, ids, [make_bot("heuristic", s).choose for s in range(2)], kind, 1,
                    HERE / f"cheat-{kind}.mbt")
    for f in sorted(HERE.glob("*.mbt")):
        rep = verify_game(f)
        verdicts[f.name] = {"ok": rep.ok, "check": rep.check, "blamed": rep.blamed_seat,
                            "entry": rep.failed_index}
    (HERE / "verdicts.json").write_text(json.dumps(verdicts, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
