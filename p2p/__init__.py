"""Peer-to-peer layer: identity, wire format, fair deck, transcript, transport, discovery."""

__all__: list[str] = []

# transport (p2p/transport.py)
from p2p.transport import Node, PeerEvent, PeerEventKind, PeerStatus, TransportConfig  # noqa: E402

__all__ += ["Node", "PeerEvent", "PeerEventKind", "PeerStatus", "TransportConfig"]
