"""The network: a reliable transport over ZeroMQ and table discovery over DNS-SD.

``interface`` — the :class:`Transport` protocol the table layer drives, its events, errors and
limits; ``frames`` — the transport's frame codec; ``reliable`` — :class:`ReliableCore`, the
sans-I/O reliability protocol; ``transport`` — :class:`Node`, real ZeroMQ sockets;
``discovery`` — announce and browse tables with python-zeroconf.

ZeroMQ and zeroconf are imported only when :class:`Node` or a discovery name is first used,
so offline tools (``verify``, ``replay``) never load them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from p2p.net._netutil import local_ipv4_addresses as local_ipv4_addresses
from p2p.net.interface import PeerEvent as PeerEvent
from p2p.net.interface import PeerEventKind as PeerEventKind
from p2p.net.interface import PeerStatus as PeerStatus
from p2p.net.interface import QueueFull as QueueFull
from p2p.net.interface import Transport as Transport
from p2p.net.interface import TransportConfig as TransportConfig
from p2p.net.interface import TransportError as TransportError
from p2p.net.interface import WireFilter as WireFilter
from p2p.net.interface import literal_host as literal_host
from p2p.net.interface import normal_fingerprint as normal_fingerprint
from p2p.net.interface import parse_endpoint as parse_endpoint
from p2p.net.interface import parse_peer as parse_peer
from p2p.net.interface import validate_peer_id as validate_peer_id
from p2p.net.reliable import MAX_ALTERNATIVES as MAX_ALTERNATIVES
from p2p.net.reliable import ReliableCore as ReliableCore

if TYPE_CHECKING:
    from p2p.net.discovery import TableAnnouncement as TableAnnouncement
    from p2p.net.discovery import TableBrowser as TableBrowser
    from p2p.net.discovery import TableChange as TableChange
    from p2p.net.discovery import TableInfo as TableInfo
    from p2p.net.discovery import announce_table as announce_table
    from p2p.net.discovery import browse_tables as browse_tables
    from p2p.net.transport import Node as Node
    from p2p.net.transport import ask_key_doors as ask_key_doors
    from p2p.net.transport import fetch_key_card as fetch_key_card

_LAZY = {
    "Node": "p2p.net.transport",
    "fetch_key_card": "p2p.net.transport",
    "ask_key_doors": "p2p.net.transport",
    "TableAnnouncement": "p2p.net.discovery",
    "TableBrowser": "p2p.net.discovery",
    "TableChange": "p2p.net.discovery",
    "TableInfo": "p2p.net.discovery",
    "announce_table": "p2p.net.discovery",
    "browse_tables": "p2p.net.discovery",
}


def __getattr__(name: str) -> Any:
    """Load the ZeroMQ node or the zeroconf discovery on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'p2p.net' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
