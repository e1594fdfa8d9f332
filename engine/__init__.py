"""The Mille Bornes rules engine: pure, deterministic, no I/O, no clock, no global random.

Rule ids (R…, O…) refer to ../shared/RULES.md and docs/rules.md.

A hand is a :class:`HandState`: :func:`new_hand` deals one (:func:`new_view` is a seat's
view of the deal, :func:`view_of` any state's), :func:`legal_actions` lists what a seat may
do, :func:`apply_action` returns the next state or raises :class:`IllegalAction` naming the
rule, :func:`explain` says why a card may not be played. The phase of a hand is one of
``DRAW PLAY RESPOND EXTEND RESHUFFLE OVER``. A finished hand is scored by
:func:`score_hand`; a :class:`Match` adds hands up. :func:`position` builds any position
directly (tests, tools). Bots are seat controllers (``choose(view, legal)``); the
simulation functions play bot hands and matches in memory.
"""

from .actions import CHANCE as CHANCE
from .actions import Action as Action
from .actions import CoupFourre as CoupFourre
from .actions import Discard as Discard
from .actions import Draw as Draw
from .actions import Extend as Extend
from .actions import FastDiscard as FastDiscard
from .actions import FastRemedy as FastRemedy
from .actions import Pass as Pass
from .actions import Play as Play
from .actions import Reshuffle as Reshuffle
from .actions import action_from_data as action_from_data
from .actions import action_to_data as action_to_data
from .cards import ALL_CARDS as ALL_CARDS
from .cards import KIND_OF as KIND_OF
from .cards import Family as Family
from .cards import Kind as Kind
from .cards import card_name as card_name
from .cards import family as family
from .cards import kind as kind
from .cards import kind_name as kind_name
from .errors import BotFailed as BotFailed
from .errors import BotOptionError as BotOptionError
from .errors import BotTooSlow as BotTooSlow
from .errors import IllegalAction as IllegalAction
from .errors import PluginFailed as PluginFailed
from .errors import exception_words as exception_words
from .game import apply_action as apply_action
from .game import explain as explain
from .game import legal_actions as legal_actions
from .game import new_hand as new_hand
from .game import new_view as new_view
from .game import public_action as public_action
from .game import reshuffle_action as reshuffle_action
from .position import position as position
from .rules import CLASSIC as CLASSIC
from .rules import MODERN as MODERN
from .rules import NO_SIDE as NO_SIDE
from .rules import PRESETS as PRESETS
from .rules import Rules as Rules
from .rules import Seating as Seating
from .rules import parse_option as parse_option
from .rules import preset as preset
from .scoring import Match as Match
from .scoring import SideScore as SideScore
from .scoring import hand_winner as hand_winner
from .scoring import match_winner as match_winner
from .scoring import score_hand as score_hand
from .state import DRAW as DRAW
from .state import EXTEND as EXTEND
from .state import HAND_SIZE as HAND_SIZE
from .state import OVER as OVER
from .state import PLAY as PLAY
from .state import REPLACEMENT_DRAW as REPLACEMENT_DRAW
from .state import RESHUFFLE as RESHUFFLE
from .state import RESPOND as RESPOND
from .state import SPECTATOR as SPECTATOR
from .state import TURN_DRAW as TURN_DRAW
from .state import Attack as Attack
from .state import HandState as HandState
from .state import Zone as Zone
from .state import replace as replace
from .state import view_of as view_of

# isort: split
# Last: the bots and the simulations may import the names above from ``engine`` itself.
from .bots import BOTS as BOTS
from .bots import HeuristicBot as HeuristicBot
from .bots import RandomBot as RandomBot
from .bots import SeatController as SeatController
from .bots import make_bot as make_bot
from .simulate import HandRecord as HandRecord
from .simulate import MatchRecord as MatchRecord
from .simulate import MatchTally as MatchTally
from .simulate import play_hand as play_hand
from .simulate import play_match as play_match
from .simulate import replay_hand as replay_hand
