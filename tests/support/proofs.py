"""Shared helpers for the proof tests: rules by book, hands of play through the model's protocol.

Play goes through the `GameModel` methods only (`deal`, `legal_actions`, `apply`, `random_step`,
`state_to_json`, `action_to_json`, `last_hand`): the refinement tests tie the encodings to the
code users run, through its stable entry points.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from arbitro.games import model_for
from arbitro.model.game import GameModel, Seating
from arbitro.model.schema import EscobaRules, RummyRules, rules_for
from arbitro.model.spec import load_rulebook

RUMMY_BOOKS = ("samba-es", "samba-en", "samba-fr", "canasta-es")
ALL_BOOKS = (*RUMMY_BOOKS, "escoba-es")

# the kind of each step, most wanted first, for a player that melds eagerly
EAGER = {
    "finish-opening": 6,
    "lay": 5,
    "add": 5,
    "merge": 4,
    "replace-wild": 4,
    "take-pile": 3,
    "answer": 2,
}


def rummy(book: str, **options: Any) -> RummyRules:
    r = rules_for(book, options or None)
    assert isinstance(r, RummyRules)
    return r


def escoba(**options: Any) -> EscobaRules:
    r = rules_for("escoba-es", options or None)
    assert isinstance(r, EscobaRules)
    return r


def model(book: str) -> GameModel:
    return model_for(load_rulebook(book).game)


def step(m: GameModel, rules: Any, state: Any, rng: random.Random, eager: bool) -> Any:
    """One legal action and the state after it: uniform, or preferring to meld."""
    if not eager:
        return m.random_step(rules, state, rng)
    acts = m.legal_actions(rules, state)
    if not acts:
        return None
    kinds = [m.action_to_json(a)["type"] for a in acts]
    best = max(EAGER.get(k, 1) for k in kinds)
    pick = [a for a, k in zip(acts, kinds, strict=True) if EAGER.get(k, 1) == best]
    if rng.random() < 0.15:
        pick = list(acts)
    a = rng.choice(pick)
    return a, m.apply(rules, state, a)


def hands(
    book: str,
    rules: Any,
    seatings: list[Seating],
    per_seating: int,
    seed: int,
    eager: bool = False,
) -> Iterator[tuple[Seating, list[tuple[Any, Any, Any]], Any]]:
    """Whole hands: for each seating, `per_seating` hands, each as (seating, steps, end state)
    where a step is (state before, action, state after)."""
    m = model(book)
    rng = random.Random(seed)
    for seat in seatings:
        for _ in range(per_seating):
            s = m.new_game(rules, seat, rng.randrange(seat.players))
            order = list(m.deck(rules, seat))
            rng.shuffle(order)
            s = m.deal(rules, s, order)
            steps = []
            while m.phase(s) == "play":
                got = step(m, rules, s, rng, eager)
                if got is None:
                    break
                a, s2 = got
                steps.append((s, a, s2))
                s = s2
            yield seat, steps, s
