"""Fast uniform random play: one legal action drawn without listing them all.

`random_step` draws uniformly among the legal actions, like choosing from `legal_actions`, but
tries the candidate actions in random order and stops at the first legal one: each legal action
is exactly one candidate, so every legal action is equally likely. It returns the action with
the state it leads to. Used by the benchmark and by simulations that only need random play.
Implements no clause of its own.
"""

from __future__ import annotations

import random

from model.rummy import engine
from model.rummy.actions import Action
from model.rummy.refusal import Refusal
from model.rummy.state import State
from model.rummy.tables import tables
from model.schema import RummyRules


def random_step(rules: RummyRules, state: State, rng: random.Random) -> tuple[Action, State]:
    """A uniformly random legal action of the player to move and the state after it."""
    t = tables(rules)
    specs = engine._specs(t, state)
    simple = engine._simple(state)
    n = len(specs)
    while n:
        i = rng.randrange(n)
        spec = specs[i]
        if engine._quick(t, state, spec, simple) is not False:
            a: Action = spec[0](*spec[1:])
            try:
                return a, engine._transition(t, state, a)
            except Refusal:
                pass
        n -= 1
        specs[i] = specs[n]
    raise ValueError("no legal action in this state")


def random_action(rules: RummyRules, state: State, rng: random.Random) -> Action:
    """A uniformly random legal action of the player to move."""
    return random_step(rules, state, rng)[0]
