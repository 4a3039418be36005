"""Playout policies: how a simulated player picks one of the legal actions the engine lists.

A policy never decides what is legal: it chooses among `model.legal_actions` (or lets the model
draw uniformly among them), and the next state is always the engine's `model.apply`.

- `uniform`: every legal action equally likely (`model.random_step`).
- `fast`: for Samba and Canasta, a player who plays to go out rather than at random, so that
  most hands end by someone going out: take the pile when a legal take uses no wild, else draw;
  finish an opening as soon as that is legal; lay melds of naturals only, then add naturals to
  melds, then wilds to sets one card short of a canasta; otherwise discard (which goes out when
  it is the last card and going out is legal). It never asks the partner, cleans or merges sets,
  or lays wild-only or black-three melds. Each choice among equals is uniform. For a game
  without such a policy (Escoba) it is `uniform`.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
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

POLICIES = ("uniform", "fast")
"""The policy names `choose` and `arbitro simulate --policy` take."""


def choose(
    policy: str, model: GameModel, rules: Any, state: Any, rng: random.Random
) -> tuple[Hashable, Hashable] | None:
    """The action `policy` picks in `state` (phase `play`) and the state after it; None when no
    action is legal. OptionError names an unknown policy."""
    if policy == "uniform" or (policy == "fast" and model.game != "rummy"):
        return model.random_step(rules, state, rng)
    if policy != "fast":
        raise OptionError(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}")
    acts = model.legal_actions(rules, state)
    if not acts:
        return None
    a = _rummy_pick(rules, state, acts, rng)
    return a, model.apply(rules, state, a)


def _rummy_pick(rules: Any, state: Any, acts: Sequence[Any], rng: random.Random) -> Any:
    """The `fast` choice among the legal actions of a Samba or Canasta state."""
    side = state.table[state.seat % state.sides]
    for prefer in (
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
    ):
        pool = [a for a in acts if prefer(a)]
        if pool:
            return pool[rng.randrange(len(pool))]
    return acts[rng.randrange(len(acts))]
