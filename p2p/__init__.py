"""Peer-to-peer layer: identity, wire format, fair deck, transcript, transport, discovery."""

__all__: list[str] = []

# transport (p2p/transport.py)
from p2p.transport import Node, PeerEvent, PeerEventKind, PeerStatus, TransportConfig  # noqa: E402

__all__ += ["Node", "PeerEvent", "PeerEventKind", "PeerStatus", "TransportConfig"]

# discovery (p2p/discovery.py)
from p2p.discovery import TableBrowser, TableInfo, announce_table, browse_tables  # noqa: E402

__all__ += ["TableBrowser", "TableInfo", "announce_table", "browse_tables"]
