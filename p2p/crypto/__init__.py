"""Cryptographic building blocks: the group (ristretto255), Schnorr and Chaum–Pedersen proofs,
the proof of shuffle, identity keys.

References for every construction are in docs/protocol.md.
"""

from p2p.crypto import group as group
from p2p.crypto.identity import PUBLIC_KEY_BYTES as PUBLIC_KEY_BYTES
from p2p.crypto.identity import SIGNATURE_BYTES as SIGNATURE_BYTES
from p2p.crypto.identity import CurveKeys as CurveKeys
from p2p.crypto.identity import Identity as Identity
from p2p.crypto.identity import IdentityError as IdentityError
from p2p.crypto.identity import default_identity_path as default_identity_path
from p2p.crypto.identity import fingerprint as fingerprint
from p2p.crypto.identity import verify_curve_certificate as verify_curve_certificate
from p2p.crypto.identity import verify_signature as verify_signature
from p2p.crypto.known import KnownPlayers as KnownPlayers
from p2p.crypto.proofs import Proof as Proof
from p2p.crypto.proofs import ProofError as ProofError
from p2p.crypto.proofs import dleq_check as dleq_check
from p2p.crypto.proofs import dleq_prove as dleq_prove
from p2p.crypto.proofs import dleq_verify as dleq_verify
from p2p.crypto.proofs import schnorr_check as schnorr_check
from p2p.crypto.proofs import schnorr_prove as schnorr_prove
from p2p.crypto.proofs import schnorr_verify as schnorr_verify
from p2p.crypto.shuffle_proof import ShuffleProof as ShuffleProof
from p2p.crypto.shuffle_proof import ShuffleProofError as ShuffleProofError
from p2p.crypto.shuffle_proof import prove_shuffle as prove_shuffle
from p2p.crypto.shuffle_proof import verify_shuffle as verify_shuffle
