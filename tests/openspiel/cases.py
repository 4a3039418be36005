"""The rulebooks and seatings the OpenSpiel tests sweep, and small helpers they share."""

from __future__ import annotations

import random
from typing import Any

from arbitro.games import model_for
from arbitro.model.game import Seating
from arbitro.model.schema import rules_for
from arbitro.model.spec import load_rulebook, rulebook_ids


def seatings() -> list[tuple[str, Seating]]:
    """Every (rulebook, seating) the books allow under their default readings."""
    out = []
    for rb in rulebook_ids():
        model = model_for(load_rulebook(rb).game)
        out += [(rb, s) for s in model.seatings(rules_for(rb))]
    return out


def seating_id(case: tuple[str, Seating]) -> str:
    rb, s = case
    return f"{rb}-{s.layout or s.players}"


def seat_params(s: Seating) -> dict[str, Any]:
    return {"players": s.players, "layout": s.layout}


def shuffled(deck: tuple[int, ...], seed: int) -> list[int]:
    order = list(deck)
    random.Random(seed).shuffle(order)
    return order


def deal(state: Any, order: list[int]) -> None:
    """Apply a deck order to a pyspiel state as its chance outcomes, top of the stock first."""
    for card in order:
        assert state.is_chance_node()
        state.apply_action(card)
