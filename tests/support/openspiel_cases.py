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


def swap_hidden(model: Any, rules: Any, seating: Any, order: list[int], seat: int) -> list[int]:
    """A deck order that deals the same as `order` except one card of `seat`'s hand, swapped
    with the bottom card of the stock (found by trying, not from the dealing convention)."""
    base = model.deal(rules, model.new_game(rules, seating), order)
    want = model.state_to_json(base)
    bottom = len(order) - 1
    for i in range(bottom):
        if order[i] == order[bottom]:
            continue
        other = list(order)
        other[i], other[bottom] = other[bottom], other[i]
        got = model.state_to_json(model.deal(rules, model.new_game(rules, seating), other))
        changed = {k for k in want if want[k] != got[k]} - {"hands", "stock"}
        same_others = all(
            got["hands"][q] == want["hands"][q] for q in range(seating.players) if q != seat
        )
        if not changed and same_others and got["hands"][seat] != want["hands"][seat]:
            return other
    raise AssertionError("no card of that seat could be swapped with the stock's bottom card")
