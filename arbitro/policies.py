"""How simulated players choose: the playout policies `simulate --policy` offers, in one registry.

A policy plays one hand: from a state waiting for its deal and a deck order, it deals and chooses
every action until the hand ends, and returns the state after the hand (still in play if the
player to move had no legal action) with the actions chosen when asked to record them. Every
action is the engine's own: a policy only chooses among legal moves.

- ``uniform``: each action drawn uniformly from the legal actions (`GameModel.random_step`); every
  state on the way is built, so `--check every` can look at each.
- ``fast``: the fast playouts. Samba/Canasta's follows its own fixed random policy (see
  docs/guide.md), and only the dealt state and the state after the hand are built. Escoba has no
  playout beside its engine, so there ``fast`` is ``uniform``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from arbitro.model.errors import OptionError
from arbitro.model.game import GameModel

Watch = Callable[[Hashable], None]
"""Called with each state a policy builds (to check it)."""

HandPlayer = Callable[
    [GameModel, Any, Hashable, Sequence[int], random.Random, Watch | None, bool],
    tuple[Hashable, list[Hashable], int],
]
"""(model, rules, state before the deal, deck order, rng, watch, record) -> (state, actions, count):
the actions when recording, and how many actions the hand took (-1 when the policy cannot tell
without recording)."""


def uniform(
    model: GameModel,
    rules: Any,
    state: Hashable,
    order: Sequence[int],
    rng: random.Random,
    watch: Watch | None,
    record: bool,
) -> tuple[Hashable, list[Hashable], int]:
    """Every action drawn uniformly from the legal ones; every state built and watched."""
    s = model.deal(rules, state, order)
    actions: list[Hashable] = []
    phase, step = model.phase, model.random_step
    n = 0
    if watch is not None:
        watch(s)
    while phase(s) == "play":
        got = step(rules, s, rng)
        if got is None:
            break  # a dead end: the caller sees a hand still in play
        a, s = got
        n += 1
        if record:
            actions.append(a)
        if watch is not None:
            watch(s)
    return s, actions, n


def fast_rummy(
    model: GameModel,
    rules: Any,
    state: Hashable,
    order: Sequence[int],
    rng: random.Random,
    watch: Watch | None,
    record: bool,
) -> tuple[Hashable, list[Hashable], int]:
    """The Samba/Canasta fast playout's fixed random policy; the dealt and final states watched."""
    from arbitro.model.rummy.fast import play_hand

    s = model.deal(rules, state, order)
    if watch is not None:
        watch(s)
    end, actions = play_hand(rules, s, rng, record=record)  # type: ignore[arg-type]
    if watch is not None:
        watch(end)
    return end, list(actions), len(actions) if record else -1


POLICIES: dict[str, dict[str, HandPlayer]] = {
    "uniform": {"rummy": uniform, "escoba": uniform},
    # Escoba has no separate playout: its engine is the fast way to play a hand
    "fast": {"rummy": fast_rummy, "escoba": uniform},
}
"""Policy name -> game model (`GameModel.game`) -> how it plays a hand. Moving a playout means
changing its one import above."""


def builds_every_state(name: str, game: str) -> bool:
    """Whether a policy builds every state of a hand, so that each can be checked."""
    return policy_for(name, game) is uniform


def policy_for(name: str, game: str) -> HandPlayer:
    """The hand player of a policy for a game; OptionError names the policies there are."""
    by_game = POLICIES.get(name)
    if by_game is None:
        raise OptionError(f"unknown policy {name!r}; policies: {', '.join(POLICIES)}")
    player = by_game.get(game)
    if player is None:
        raise OptionError(f"policy {name!r} does not play {game}")
    return player
