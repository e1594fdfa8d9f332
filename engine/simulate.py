"""Bot-only hands and matches in memory, from a seed (simulations, tests, benchmarks).

Every seat decides from its own view; the full state is kept here, never shown to bots.
Randomness (the deck order, the first player, R4b reshuffles) comes from one
``random.Random(seed)`` owned by the dealer, separate from each bot's own generator.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NamedTuple

from .actions import Action
from .bots import SeatController
from .game import apply_action, legal_actions, new_hand, reshuffle_action
from .rules import Rules, Seating
from .scoring import Match, SideScore, hand_winner, score_hand
from .state import RESHUFFLE, HandState, view_of


class HandRecord(NamedTuple):
    deck_order: tuple[int, ...]
    first_seat: int
    actions: tuple[Action, ...]
    final: HandState
    scores: tuple[SideScore, ...]
    winner: int


def play_hand(rules: Rules, seating: Seating, bots: Sequence[SeatController],
              dealer: random.Random, first_seat: int) -> HandRecord:
    deck = list(rules.deck(seating))
    dealer.shuffle(deck)
    state = new_hand(rules, seating, deck, first_seat)
    history: list[Action] = []
    while not state.over:
        if state.phase == RESHUFFLE:
            action: Action = reshuffle_action(state, dealer)
        else:
            seat = state.actors()[0]
            view = view_of(state, seat)
            action = bots[seat].choose(view, legal_actions(view, seat))
            if action.seat != seat:
                raise ValueError(f"bot for seat {seat} chose an action for seat {action.seat}")
        state = apply_action(state, action)
        history.append(action)
    return HandRecord(tuple(deck), first_seat, tuple(history), state, score_hand(state),
                      hand_winner(state))


class MatchRecord(NamedTuple):
    match: Match
    hands: tuple[HandRecord, ...]

    @property
    def winner(self) -> int:
        return self.match.winner()


def play_match(rules: Rules, seating: Seating, bots: Sequence[SeatController],
               seed: int, max_hands: int = 200) -> MatchRecord:
    """A whole match (R15: to 5000; R14: one hand), ties playing on (bounded by max_hands)."""
    if len(bots) != seating.n_players:
        raise ValueError(f"{seating.n_players} seats need {seating.n_players} bots")
    dealer = random.Random(seed)
    match = Match(rules, seating, dealer.randrange(seating.n_players))
    hands: list[HandRecord] = []
    while not match.over and len(hands) < max_hands:
        rec = play_hand(rules, seating, bots, dealer, match.next_first_seat())
        hands.append(rec)
        match = match.record(rec.scores)
    return MatchRecord(match, tuple(hands))


def replay_hand(rules: Rules, seating: Seating, deck_order: Sequence[int], first_seat: int,
                actions: Sequence[Action]) -> HandState:
    """A hand is reproducible from its initial deck order and its action list."""
    state = new_hand(rules, seating, tuple(deck_order), first_seat)
    for a in actions:
        state = apply_action(state, a)
    return state
