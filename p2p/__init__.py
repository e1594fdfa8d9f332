"""Peer-to-peer layer: identity, wire format, fair deck, transcript, transport, discovery."""

__all__: list[str] = []

# transport (p2p/transport.py)
from p2p.transport import Node, PeerEvent, PeerEventKind, PeerStatus, TransportConfig  # noqa: E402

__all__ += ["Node", "PeerEvent", "PeerEventKind", "PeerStatus", "TransportConfig"]

# discovery (p2p/discovery.py)
from p2p.discovery import TableBrowser, TableInfo, announce_table, browse_tables  # noqa: E402

__all__ += ["TableBrowser", "TableInfo", "announce_table", "browse_tables"]

# fair deck, identity, envelopes, transcripts (p2p/deck.py, identity.py, envelope.py, transcript.py)
from p2p.deck import (  # noqa: E402
    PUBLIC,
    CheatDetected,
    DeckHand,
    DeckMessage,
    DeckTable,
    HandResult,
    message_from_body,
    message_to_body,
    run_hand_in_memory,
)
from p2p.envelope import (  # noqa: E402
    MAX_ENVELOPE_BYTES,
    DuplicateEntry,
    Envelope,
    EnvelopeError,
    Equivocation,
    LogError,
    LogVerifier,
    OutOfOrder,
    genesis_hash,
)
from p2p.identity import Identity, IdentityError, fingerprint  # noqa: E402
from p2p.transcript import (  # noqa: E402
    LogRecorder,
    Player,
    Transcript,
    TranscriptCorrupt,
    TranscriptHeader,
    TranscriptWriter,
    VerifyReport,
    read_transcript,
    verify_crypto,
)

__all__ += [
    "PUBLIC", "CheatDetected", "DeckHand", "DeckMessage", "DeckTable", "HandResult",
    "message_from_body", "message_to_body", "run_hand_in_memory",
    "MAX_ENVELOPE_BYTES", "DuplicateEntry", "Envelope", "EnvelopeError", "Equivocation",
    "LogError", "LogVerifier", "OutOfOrder", "genesis_hash",
    "Identity", "IdentityError", "fingerprint",
    "LogRecorder", "Player", "Transcript", "TranscriptCorrupt", "TranscriptHeader",
    "TranscriptWriter", "VerifyReport", "read_transcript", "verify_crypto",
]
from p2p.discovery import TableChange  # noqa: E402
from p2p.transport import QueueFull, TransportError, parse_endpoint  # noqa: E402

__all__ += ["QueueFull", "TableChange", "TransportError", "parse_endpoint"]
