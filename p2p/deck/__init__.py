"""The fair deck without a dealer (Barnett–Smart mental poker), as a pure state machine.

``messages`` — what peers exchange and its plain-data form; ``ciphers`` — card points, shuffle
passes, commitments; ``hand`` — :class:`DeckHand`, one hand's state machine; ``memory`` — every
seat of a hand in one process (tests, simulator); ``bench`` — ``millebornes bench deck``.
"""

from p2p.deck.ciphers import card_point as card_point
from p2p.deck.ciphers import joint_random as joint_random
from p2p.deck.ciphers import prove_pass as prove_pass
from p2p.deck.ciphers import random_commitment as random_commitment
from p2p.deck.ciphers import shuffle_commitment as shuffle_commitment
from p2p.deck.ciphers import shuffle_pass as shuffle_pass
from p2p.deck.ciphers import shuffle_proof_context as shuffle_proof_context
from p2p.deck.ciphers import verify_pass as verify_pass
from p2p.deck.hand import DeckHand as DeckHand
from p2p.deck.hand import HandResult as HandResult
from p2p.deck.memory import DeckTable as DeckTable
from p2p.deck.memory import run_hand_in_memory as run_hand_in_memory
from p2p.deck.messages import CARD_DOMAIN as CARD_DOMAIN
from p2p.deck.messages import PUBLIC as PUBLIC
from p2p.deck.messages import CheatDetected as CheatDetected
from p2p.deck.messages import DeckMessage as DeckMessage
from p2p.deck.messages import DecryptShare as DecryptShare
from p2p.deck.messages import KeyShare as KeyShare
from p2p.deck.messages import ReshuffleStart as ReshuffleStart
from p2p.deck.messages import SecretReveal as SecretReveal
from p2p.deck.messages import ShuffleCommit as ShuffleCommit
from p2p.deck.messages import ShufflePass as ShufflePass
from p2p.deck.messages import is_deck_body as is_deck_body
from p2p.deck.messages import message_from_body as message_from_body
from p2p.deck.messages import message_to_body as message_to_body
