"""A table: its agreed configuration, the hand and match protocols over the signed log, the
networked peer that drives them, the lobby that forms a table, and the on-disk store.

``config`` — :class:`TableConfig`; ``hand_protocol`` — :class:`HandProtocol`, one hand's game
log (keys, shuffle, deal, moves, reveals); ``match`` — :class:`MatchProtocol`, hands to the end
of a match; ``session`` — :class:`Peer`, one seat on the network; ``lobby`` — seats and
readiness before a table starts; ``store`` — a table's folder (transcript, secrets, meta);
``memory`` — a whole fair match in one process (simulator, tests).
"""

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
from p2p.table.session import Peer as Peer
from p2p.table.session import PeerInfo as PeerInfo
from p2p.table.session import SessionEvent as SessionEvent
from p2p.table.session import SessionOptions as SessionOptions
from p2p.table.session import TableStep as TableStep
from p2p.table.session import Waiting as Waiting
from p2p.table.session import node_id_for as node_id_for
from p2p.table.session import resume_peer as resume_peer
from p2p.table.store import Store as Store
from p2p.table.store import find_tables as find_tables
from p2p.table.store import table_dir as table_dir
