"""How simulated players choose: the playout policies `simulate --policy` offers, in one registry.

A policy never decides what is legal: it chooses among `model.legal_actions` (or lets the model
draw uniformly among them), and the next state is always the engine's `model.apply`. A policy
plays one hand: from a state waiting for its deal and a deck order, it deals and chooses every
action until the hand ends, and returns the state after the hand (still in play if the player to
move had no legal action) with the actions chosen when asked to record them.

- ``uniform``: each action drawn uniformly from the legal actions (`GameModel.random_step`).
- ``fast``: for Samba and Canasta, a player who plays to go out rather than at random, so that
  most hands end by someone going out: take the pile when a legal take uses no wild, else draw;
  finish an opening as soon as that is legal; lay melds of naturals only, then add naturals to
  melds, then wilds to sets one card short of a canasta; otherwise discard (which goes out when
  it is the last card and going out is legal). It never asks the partner, cleans or merges sets,
  or lays wild-only or black-three melds. Each choice among equals is uniform. Escoba has no such
  policy, so there ``fast`` is ``uniform``.

Both build every state of a hand through `apply`, so `--check every` can look at each.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from arbitro.model.errors import OptionError
from arbitro.model.game import GameModel
from arbitro.model.rummy.actions import (
    AddToMeld,
    Discard,
    Draw,
    FinishOpening,
    LayMeld,
    TakePile,
)
from arbitro.model.rummy.cards import is_natural, is_wild
from arbitro.model.rummy.melds import SET
from arbitro.model.rummy.state import State
from arbitro.model.schema import RummyRules

Watch = Callable[[Hashable], None]
"""Called with each state a policy builds (to check it)."""

HandPlayer = Callable[
    [GameModel, Any, Hashable, Sequence[int], random.Random, Watch | None, bool],
    tuple[Hashable, list[Hashable], int],
]
"""(model, rules, state before the deal, deck order, rng, watch, record) -> (state, actions, count):
the actions when recording, and how many actions the hand took (-1 when the policy cannot tell
without recording)."""

Step = Callable[[GameModel, Any, Any, random.Random], "tuple[Hashable, Hashable] | None"]
"""(model, rules, state, rng) -> the chosen action and the state `apply` gives, or None."""


def _uniform_step(
    model: GameModel, rules: Any, state: Any, rng: random.Random
) -> tuple[Hashable, Hashable] | None:
    return model.random_step(rules, state, rng)


def _rummy_fast_step(
    model: GameModel, rules: RummyRules, state: State, rng: random.Random
) -> tuple[Hashable, Hashable] | None:
    acts = model.legal_actions(rules, state)
    if not acts:
        return None
    a = _rummy_pick(rules, state, acts, rng)
    return a, model.apply(rules, state, a)


FAST_STEPS: dict[str, Step] = {"rummy": _rummy_fast_step}
"""A game family's (`GameFamily.name`) own `fast` choice; a family without one chooses uniformly."""


def _fast_step(
    model: GameModel, rules: Any, state: Any, rng: random.Random
) -> tuple[Hashable, Hashable] | None:
    return FAST_STEPS.get(model.game, _uniform_step)(model, rules, state, rng)


STEPS: dict[str, Step] = {"uniform": _uniform_step, "fast": _fast_step}


def choose(
    policy: str, model: GameModel, rules: Any, state: Any, rng: random.Random
) -> tuple[Hashable, Hashable] | None:
    """The action `policy` picks in `state` (phase `play`) and the state after it; None when no
    action is legal. OptionError names an unknown policy."""
    step = STEPS.get(policy)
    if step is None:
        raise OptionError(f"unknown policy {policy!r}; policies: {', '.join(STEPS)}")
    return step(model, rules, state, rng)


def _rummy_pick(rules: RummyRules, state: State, acts: Sequence[Any], rng: random.Random) -> Any:
    """The `fast` choice among the legal actions of a Samba or Canasta state."""
    side = state.table[state.seat % state.sides]
    prefers: tuple[Callable[[Any], bool], ...] = (
        lambda a: type(a) is TakePile and not any(is_wild(c) for c in a.cards),
        lambda a: type(a) is FinishOpening,
        lambda a: type(a) is LayMeld and all(is_natural(c) for c in a.cards),
        lambda a: type(a) is AddToMeld and is_natural(a.card),
        lambda a: (
            type(a) is AddToMeld
            and is_wild(a.card)
            and side.melds[a.meld].kind == SET
            and len(side.melds[a.meld].cards) == rules.completed_size - 1
        ),
        lambda a: type(a) in (Draw, Discard),
    )
    for prefer in prefers:
        pool = [a for a in acts if prefer(a)]
        if pool:
            return pool[rng.randrange(len(pool))]
    return acts[rng.randrange(len(acts))]


def _hand_player(step: Step) -> HandPlayer:
    def play(
        model: GameModel,
        rules: Any,
        state: Hashable,
        order: Sequence[int],
        rng: random.Random,
        watch: Watch | None,
        record: bool,
    ) -> tuple[Hashable, list[Hashable], int]:
        s = model.deal(rules, state, order)
        actions: list[Hashable] = []
        phase = model.phase
        n = 0
        if watch is not None:
            watch(s)
        while phase(s) == "play":
            got = step(model, rules, s, rng)
            if got is None:
                break  # a dead end: the caller sees a hand still in play
            a, s = got
            n += 1
            if record:
                actions.append(a)
            if watch is not None:
                watch(s)
        return s, actions, n

    play.__doc__ = f"Every action chosen by {step.__name__}, every state built by `apply`."
    return play


uniform = _hand_player(_uniform_step)
fast = _hand_player(_fast_step)

POLICIES: dict[str, dict[str, HandPlayer]] = {
    "uniform": {"rummy": uniform, "escoba": uniform},
    # Escoba has no policy of its own: its fast choice is the uniform one
    "fast": {"rummy": fast, "escoba": uniform},
}
"""Policy name -> game model (`GameModel.game`) -> how it plays a hand."""


def builds_every_state(name: str, game: str) -> bool:
    """Whether a policy builds every state of a hand, so that each can be checked."""
    return policy_for(name, game) in (uniform, fast)


def policy_for(name: str, game: str) -> HandPlayer:
    """The hand player of a policy for a game; OptionError names the policies there are."""
    by_game = POLICIES.get(name)
    if by_game is None:
        raise OptionError(f"unknown policy {name!r}; policies: {', '.join(POLICIES)}")
    player = by_game.get(game)
    if player is None:
        raise OptionError(f"policy {name!r} does not play {game}")
    return player
