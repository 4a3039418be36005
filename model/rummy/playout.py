"""Fast uniform random play: one legal action drawn without listing them all, and whole hands.

`random_step` draws uniformly among the legal actions, like choosing from `legal_actions`, but
tries the candidate actions in random order and stops at the first legal one: each legal action
is exactly one candidate, so every legal action is equally likely. It returns the action with
the state it leads to. `play_hand` plays a dealt hand to its end that way and returns the final
state with the actions played, so that any of it can be replayed through `apply` (the tests do).
Used by the benchmark and by simulations that only need random play. Implements no clause of its
own: every state comes from the engine's own transition.
"""

from __future__ import annotations

import random

from arbitro.model.errors import MalformedInput
from arbitro.model.rummy import engine
from arbitro.model.rummy.actions import Action
from arbitro.model.rummy.refusal import Refusal
from arbitro.model.rummy.state import State
from arbitro.model.rummy.tables import Tables, tables
from arbitro.model.schema import RummyRules


def random_step(rules: RummyRules, state: State, rng: random.Random) -> tuple[Action, State]:
    """A uniformly random legal action of the player to move and the state after it."""
    return _step(tables(rules), state, rng)


def random_action(rules: RummyRules, state: State, rng: random.Random) -> Action:
    """A uniformly random legal action of the player to move."""
    return _step(tables(rules), state, rng)[0]


def play_hand(rules: RummyRules, state: State, rng: random.Random) -> tuple[State, list[Action]]:
    """Play the hand in `state` to its end with `random_step`: the state after the hand (its
    `result` is the hand's) and the actions played, in order."""
    if state.phase != "play":
        raise MalformedInput(f"no hand is being played in phase {state.phase!r}")
    t = tables(rules)
    actions: list[Action] = []
    s = state
    while s.phase == "play":
        a, s = _step(t, s, rng)
        actions.append(a)
    return s, actions


def _step(t: Tables, state: State, rng: random.Random) -> tuple[Action, State]:
    # Every candidate is played through the transition, which refuses exactly the candidates
    # that `legal_actions` leaves out (its cheap `_quick` test only saves listing them all).
    specs = engine._specs(t, state)
    transition = engine._transition
    n = len(specs)
    while n:
        i = rng.randrange(n)
        spec = specs[i]
        a: Action = spec[0](*spec[1:])
        try:
            return a, transition(t, state, a)
        except Refusal:
            pass
        n -= 1
        specs[i] = specs[n]
    raise ValueError("no legal action in this state")
