"""A table: its agreed configuration, the hand and match protocols over the signed log, the
networked peer that drives them, the lobby that forms a table, and the on-disk store.

``config`` — :class:`TableConfig`; ``hand_protocol`` — :class:`HandProtocol`, one hand's game
log (keys, shuffle, deal, moves, reveals); ``match`` — :class:`MatchProtocol`, hands to the end
of a match; ``session`` — :class:`Peer`, one seat on the network; ``lobby`` — seats and
readiness before a table starts; ``store`` — a table's folder (transcript, secrets, meta);
``memory`` — a whole fair match in one process (simulator, tests).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from p2p.table.config import TableConfig as TableConfig
    from p2p.table.config import parse_header_bytes as parse_header_bytes
    from p2p.table.hand_protocol import HandProtocol as HandProtocol
    from p2p.table.hand_protocol import ProtocolError as ProtocolError
    from p2p.table.lobby import LobbyClient as LobbyClient
    from p2p.table.lobby import LobbyError as LobbyError
    from p2p.table.lobby import LobbyHost as LobbyHost
    from p2p.table.lobby import LobbyState as LobbyState
    from p2p.table.lobby import TableStart as TableStart
    from p2p.table.lobby import admit_table as admit_table
    from p2p.table.lobby import table_nonce as table_nonce
    from p2p.table.match import MatchProtocol as MatchProtocol
    from p2p.table.memory import make_table as make_table
    from p2p.table.memory import play_fair_match as play_fair_match
    from p2p.table.session import ListenAgainError as ListenAgainError
    from p2p.table.session import Peer as Peer
    from p2p.table.session import PeerInfo as PeerInfo
    from p2p.table.session import RunState as RunState
    from p2p.table.session import SessionEvent as SessionEvent
    from p2p.table.session import SessionOptions as SessionOptions
    from p2p.table.session import TableStep as TableStep
    from p2p.table.session import Waiting as Waiting
    from p2p.table.session import node_id_for as node_id_for
    from p2p.table.session import resume_peer as resume_peer
    from p2p.table.store import Store as Store
    from p2p.table.store import find_tables as find_tables
    from p2p.table.store import table_dir as table_dir

# The names are loaded on first use (PEP 562): ``verify`` needs the configuration and the
# protocols, not the networked peer or the lobby, and starts faster without them.
_WHERE = {
    "TableConfig": "p2p.table.config",
    "parse_header_bytes": "p2p.table.config",
    "HandProtocol": "p2p.table.hand_protocol",
    "ProtocolError": "p2p.table.hand_protocol",
    "LobbyClient": "p2p.table.lobby",
    "LobbyError": "p2p.table.lobby",
    "LobbyHost": "p2p.table.lobby",
    "LobbyState": "p2p.table.lobby",
    "TableStart": "p2p.table.lobby",
    "admit_table": "p2p.table.lobby",
    "table_nonce": "p2p.table.lobby",
    "MatchProtocol": "p2p.table.match",
    "make_table": "p2p.table.memory",
    "play_fair_match": "p2p.table.memory",
    "ListenAgainError": "p2p.table.session",
    "Peer": "p2p.table.session",
    "PeerInfo": "p2p.table.session",
    "RunState": "p2p.table.session",
    "SessionEvent": "p2p.table.session",
    "SessionOptions": "p2p.table.session",
    "TableStep": "p2p.table.session",
    "Waiting": "p2p.table.session",
    "node_id_for": "p2p.table.session",
    "resume_peer": "p2p.table.session",
    "Store": "p2p.table.store",
    "find_tables": "p2p.table.store",
    "table_dir": "p2p.table.store",
}


def __getattr__(name: str) -> Any:
    mod = _WHERE.get(name)
    if mod is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(mod), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
