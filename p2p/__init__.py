"""The peer-to-peer layer: everything between the rules engine and the console.

Sub-packages, from the bottom up (each imports only those above it in this list):

* :mod:`p2p.crypto` — the prime-order group, zero-knowledge proofs, the player's identity key;
* :mod:`p2p.deck` — the mental-poker deck: messages, the pure state machine, an in-memory driver;
* :mod:`p2p.transcript` — signed hash-chained entries and the self-contained transcript file;
* :mod:`p2p.net` — the reliable ZeroMQ transport and DNS-SD discovery (ZeroMQ and zeroconf are
  loaded only when a node or a browser is actually made);
* :mod:`p2p.table` — a table: its configuration, the hand and match protocols, the networked
  peer (session), the lobby and the on-disk store;
* :mod:`p2p.audit` — ``verify`` and ``replay`` of a transcript (offline: no network code).

``p2p.text`` is the one sanitiser for every string another player gave us (before it reaches
a terminal or a log).  ``p2p.testing`` holds test helpers (in-memory network, fault injection),
``p2p.hostile`` a hostile peer with its own sockets, ``p2p.netsim`` the multi-process network
simulator.
"""

from p2p.crypto.identity import Identity as Identity
from p2p.crypto.identity import IdentityError as IdentityError
from p2p.crypto.identity import fingerprint as fingerprint
from p2p.table.config import TableConfig as TableConfig
from p2p.text import safe_text as safe_text
from p2p.transcript.file import Player as Player
from p2p.transcript.file import TranscriptHeader as TranscriptHeader
from p2p.transcript.file import read_transcript as read_transcript
