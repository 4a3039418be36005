"""GameModel.view: what one seat sees, and nothing hidden from it."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arbitro.games import model_for
from arbitro.model.errors import MalformedInput
from arbitro.model.schema import rules_for
from arbitro.model.spec import load_rulebook
from tests.support.openspiel_cases import seating_id, seatings, shuffled, swap_hidden

CASES = seatings()


def _dealt(rb: str, seating: Any, seed: int) -> tuple[Any, Any, Any, list[int]]:
    rules = rules_for(rb)
    model = model_for(load_rulebook(rb).game)
    order = shuffled(tuple(model.deck(rules, seating)), seed)
    state = model.deal(rules, model.new_game(rules, seating), order)
    return model, rules, state, order


@pytest.mark.parametrize("case", CASES, ids=seating_id)
def test_a_view_shows_no_card_hidden_from_its_seat(case: Any) -> None:
    rb, seating = case
    model, rules, state, order = _dealt(rb, seating, 1)
    other = swap_hidden(model, rules, seating, order, 1)
    state2 = model.deal(rules, model.new_game(rules, seating), other)
    for seat in range(seating.players):
        a, b = model.view(rules, state, seat), model.view(rules, state2, seat)
        if seat == 1:
            assert a != b  # its own hand differs: the comparison can tell
            assert a["hand"] != b["hand"]
        else:
            assert a == b


@pytest.mark.parametrize("rb", ["escoba-es", "samba-fr", "canasta-es"])
def test_a_view_holds_the_seats_own_hand_and_counts_of_the_others(rb: str) -> None:
    seating = model_for(load_rulebook(rb).game).seatings(rules_for(rb))[0]
    model, rules, state, _ = _dealt(rb, seating, 2)
    full = model.state_to_json(state)
    for seat in range(seating.players):
        v = model.view(rules, state, seat)
        assert v["viewer"] == seat
        assert v["hand"] == full["hands"][seat]
        assert v["hand_sizes"] == [len(h) for h in full["hands"]]
        assert v["stock_size"] == len(full["stock"])
        assert "hands" not in v and "stock" not in v
        assert set(model.view_private) <= set(v)


def test_the_rummy_view_shows_the_pile_top_size_and_freezing_not_the_covered_cards() -> None:
    rb = "canasta-es"
    seating = model_for("canasta").seatings(rules_for(rb))[0]
    model, rules, state, _ = _dealt(rb, seating, 3)
    full = model.state_to_json(state)
    v = model.view(rules, state, 0)
    assert "pile" not in v
    assert v["pile_top"] == full["pile"][-1]
    assert v["pile_size"] == len(full["pile"])
    # canasta-es freezes the pile with a wild or a red three in it (EL POZO)
    assert v["pile_frozen"] == any(
        (c[0] in "23" and c != "3C" and c != "3S") or c == "JK" for c in full["pile"]
    )


@pytest.mark.parametrize("rb", ["escoba-es", "samba-en"])
@pytest.mark.parametrize("seat", [-1, 4, True, "0"])
def test_a_seat_out_of_range_is_malformed(rb: str, seat: Any) -> None:
    seating = model_for(load_rulebook(rb).game).seatings(rules_for(rb))[0]
    model, rules, state, _ = _dealt(rb, seating, 4)
    with pytest.raises(MalformedInput, match="seat"):
        model.view(rules, state, seat)


def test_a_view_is_json() -> None:
    import json

    for rb, seating in CASES[:: max(1, len(CASES) // 5)]:
        model, rules, state, _ = _dealt(rb, seating, 5)
        rng = random.Random(5)
        for _ in range(20):
            step = model.random_step(rules, state, rng)
            if step is None or model.phase(step[1]) != "play":
                break
            state = step[1]
        v = model.view(rules, state, 0)
        assert json.loads(json.dumps(v)) == v
