"""Random play of whole games as a stream of events, shared by simulate, play and the tests."""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterator
from dataclasses import dataclass

from arbitro.model.game import GameModel, HandResult, Seating
from arbitro.model.schema import Rules

MAX_HANDS_PER_GAME = 2000
"""A game that has not ended after this many hands is reported unfinished rather than played on."""


@dataclass(frozen=True)
class Dealt:
    """A hand was dealt from this deck order."""

    order: tuple[int, ...]
    state: Hashable


@dataclass(frozen=True)
class Acted:
    """`seat` took `action`, giving `state`."""

    seat: int
    action: Hashable
    state: Hashable


@dataclass(frozen=True)
class HandOver:
    """A hand ended with this result."""

    result: HandResult
    state: Hashable


@dataclass(frozen=True)
class DeadEnd:
    """A state in phase play with no legal action: a finding about the rules, not a crash."""

    state: Hashable


@dataclass(frozen=True)
class Unfinished:
    """The game reached its limit of hands without ending."""

    state: Hashable


Event = Dealt | Acted | HandOver | DeadEnd | Unfinished


def random_game(
    model: GameModel,
    rules: Rules,
    seating: Seating,
    rng: random.Random,
    dealer: int = 0,
    max_hands: int = MAX_HANDS_PER_GAME,
) -> Iterator[Event]:
    """Play one game with uniformly random deck orders and legal actions, yielding what happens."""
    state: Hashable = model.new_game(rules, seating, dealer=dealer)
    deck = list(model.deck(rules, seating))
    hands = 0
    while True:
        phase = model.phase(state)
        if phase == "over":
            return
        if hands >= max_hands:
            yield Unfinished(state)
            return
        if phase == "deal":
            order = list(deck)
            rng.shuffle(order)
            state = model.deal(rules, state, order)
            yield Dealt(tuple(order), state)
        else:
            seat = model.to_move(state)
            step = model.random_step(rules, state, rng)
            if step is None:
                yield DeadEnd(state)
                return
            action, state = step
            yield Acted(seat, action, state)
        # a hand is over when an action ends play; two hands with equal results may share one
        # result value, so the result's identity does not tell hands apart
        result = model.last_hand(state)
        if phase == "play" and model.phase(state) != "play" and result is not None:
            hands += 1
            yield HandOver(result, state)
