"""The signed record of a game: hash-chained envelopes and the self-contained transcript file.

``decoding`` — bounded msgpack decoding and strict schemas for anything a peer or a file
gives us; ``envelope`` — one signed entry, its canonical encoding and the log verifier (order, replays,
equivocation); ``file`` — the transcript file (header, entries), its writer and reader, and
the cryptographic check of a whole transcript (``verify_crypto``).
"""

from p2p.transcript.decoding import DecodeError as DecodeError
from p2p.transcript.decoding import Limits as Limits
from p2p.transcript.decoding import bounded_unpackb as bounded_unpackb
from p2p.transcript.decoding import check_header_obj as check_header_obj
from p2p.transcript.decoding import check_map as check_map
from p2p.transcript.envelope import MAX_ENVELOPE_BYTES as MAX_ENVELOPE_BYTES
from p2p.transcript.envelope import DuplicateEntry as DuplicateEntry
from p2p.transcript.envelope import Envelope as Envelope
from p2p.transcript.envelope import EnvelopeError as EnvelopeError
from p2p.transcript.envelope import Equivocation as Equivocation
from p2p.transcript.envelope import LogError as LogError
from p2p.transcript.envelope import LogVerifier as LogVerifier
from p2p.transcript.envelope import OutOfOrder as OutOfOrder
from p2p.transcript.envelope import canonical_packb as canonical_packb
from p2p.transcript.envelope import genesis_hash as genesis_hash
from p2p.transcript.file import TRANSCRIPT_FORMAT as TRANSCRIPT_FORMAT
from p2p.transcript.file import TRANSCRIPT_VERSION as TRANSCRIPT_VERSION
from p2p.transcript.file import LogRecorder as LogRecorder
from p2p.transcript.file import Player as Player
from p2p.transcript.file import StoredLog as StoredLog
from p2p.transcript.file import Transcript as Transcript
from p2p.transcript.file import TranscriptCorrupt as TranscriptCorrupt
from p2p.transcript.file import TranscriptHeader as TranscriptHeader
from p2p.transcript.file import TranscriptWriter as TranscriptWriter
from p2p.transcript.file import VerifyReport as VerifyReport
from p2p.transcript.file import iter_transcript as iter_transcript
from p2p.transcript.file import read_transcript as read_transcript
from p2p.transcript.file import verify_crypto as verify_crypto
