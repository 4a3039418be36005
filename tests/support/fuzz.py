"""Hypothesis values for fuzzing the oracle: JSON values, card names, states and actions from real
play, and a state mutated at a few places."""

from __future__ import annotations

import copy
import json
import random
from functools import cache
from typing import Any

from hypothesis import strategies as st

from arbitro import Oracle

BOOKS = [("escoba-es", {"players": 2}), ("canasta-es", {"players": 2}), ("samba-en", {})]


@cache
def played(book: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """States (as JSON text) of a few hands of real play, and legal actions met on the way."""
    rulebook, kw = BOOKS[book]
    oracle = Oracle(rulebook, **kw)
    deck = oracle.describe()["deck"]
    rng = random.Random(book)
    states: list[str] = []
    actions: list[str] = []
    state = oracle.new_game()
    for _ in range(2):
        if state["phase"] != "deal":
            break
        state = oracle.deal(state, rng.sample(deck, len(deck)))
        while state["phase"] == "play" and len(states) < 60 * (1 + len(states) // 60):
            legal = oracle.legal_actions(state)
            action = legal[rng.randrange(len(legal))]
            if rng.random() < 0.3:
                states.append(json.dumps(state))
                actions.append(json.dumps(action))
            state = oracle.apply(state, action)
        states.append(json.dumps(state))
    return tuple(states), tuple(actions)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
names = st.sampled_from(["2C", "QH", "JK", "10S", "3D", "7o", "Rc", "1e", "Sb", "XX", ""])


def paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out += paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += paths(v, (*here, i))
    return out


def mutate_state(state: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    s = copy.deepcopy(state)
    for _ in range(data.draw(st.integers(1, 3))):
        places = paths(s)[1:]
        if not places:
            break
        path = data.draw(st.sampled_from(places))
        parent = s
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        old = parent[key]
        how = data.draw(st.sampled_from(["value", "card", "drop", "copy", "int", "extra"]))
        if how == "value":
            parent[key] = data.draw(json_values)
        elif how == "card":
            parent[key] = data.draw(names)
        elif how == "drop":
            del parent[key]
        elif how == "copy" and isinstance(old, list) and old:
            parent[key] = [*old, old[0]]
        elif how == "int":
            parent[key] = data.draw(st.sampled_from([-1, 0, 1, 2, 7, 999, 2**62]))
        elif how == "extra" and isinstance(parent, dict):
            parent["surplus"] = 1
    return s
