"""The transport's frame codec: three msgpack arrays (DATA, ACK, HELLO), validated on the
way in.  See docs/network.md, "Frames"."""

from __future__ import annotations

from typing import Any

import msgpack

# Frame kinds (first element of the msgpack array).
DATA = 0  # [0, session, seq, base, payload]
ACK = 1  # [1, session, acked_session, cumulative_seq, sack_bitmap]
HELLO = 2  # [2, session, port, host-or-None]   (also the heartbeat)

SESSION_LEN = 8


def pack_frame(obj: Any) -> bytes:
    out = msgpack.packb(obj, use_bin_type=True)
    assert isinstance(out, bytes)
    return out



def sack_bits(ooo: dict[int, bytes], expected: int) -> bytes:
    if not ooo:
        return b""
    bits = bytearray((max(ooo) - expected) // 8 + 1)
    for k in ooo:
        i = k - expected
        bits[i >> 3] |= 1 << (i & 7)
    return bytes(bits)


#: Largest proof a HELLO may carry (an Ed25519 signature is 64 bytes).
MAX_PROOF = 128


def parse_frame(msg: Any, max_payload: int) -> tuple[Any, ...] | None:
    """Validate a decoded frame; returns a tuple or None if malformed."""
    if not isinstance(msg, list) or len(msg) < 2:
        return None
    kind, session = msg[0], msg[1]
    if not isinstance(kind, int) or not isinstance(session, bytes) or len(session) != SESSION_LEN:
        return None
    if kind == DATA and len(msg) == 5:
        _, _, seq, base, payload = msg
        if (
            isinstance(seq, int)
            and isinstance(base, int)
            and isinstance(payload, bytes)
            and 1 <= base <= seq < 1 << 62
        ):
            return (DATA, session, seq, base, payload)
        return None
    if kind == ACK and len(msg) == 5:
        _, _, acked, cum, sack = msg
        if (
            isinstance(acked, bytes)
            and isinstance(cum, int)
            and 0 <= cum < 1 << 62
            and isinstance(sack, bytes)
            and len(sack) <= 1024
        ):
            return (ACK, session, acked, cum, sack)
        return None
    if kind == HELLO and len(msg) in (4, 5):
        # [HELLO, session, port, host(, proof)]: under CURVE the proof is the sender's
        # certificate of its CURVE key (see ReliableCore.hello_proof)
        port, host = msg[2], msg[3]
        proof = msg[4] if len(msg) == 5 else None
        if (isinstance(port, int) and 0 <= port < 65536 and (host is None or isinstance(host, str))
                and (proof is None or (isinstance(proof, bytes) and len(proof) <= MAX_PROOF))):
            return (HELLO, session, port, host, proof)
        return None
    return None

