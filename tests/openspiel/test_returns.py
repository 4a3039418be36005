"""Returns: zero-sum win/loss per side at the end, shared by partners, ties split evenly."""

from __future__ import annotations

from typing import Any

import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel (the open_spiel package) is not installed here"
)

import arbitro.openspiel as aos  # noqa: E402
from tests.support.openspiel_cases import deal, shuffled  # noqa: E402


@pytest.mark.parametrize(
    ("rb", "params", "winners", "expected"),
    [
        # two sides: the winner +1, the loser -1
        ("escoba-es", {}, [1], [-1.0, 1.0]),
        # three sides alone: the winner +1, each loser -1/2
        ("escoba-es", {"players": 3}, [2], [-0.5, -0.5, 1.0]),
        # three sides, two tied on top: each (3/2 - 1)/2 = 1/4, the third -1/2
        ("escoba-es", {"players": 3}, [0, 2], [0.25, -0.5, 0.25]),
        # every side tied: nothing to anyone
        ("escoba-es", {"players": 4}, [0, 1, 2, 3], [0.0] * 4),
        # partners (seat s on side s % 2) share their side's return
        ("escoba-es", {"players": 4, "layout": "teams"}, [1], [-1.0, 1.0, -1.0, 1.0]),
        ("samba-fr", {"layout": "6-pairs"}, [2], [-0.5, -0.5, 1.0, -0.5, -0.5, 1.0]),
    ],
)
def test_returns_follow_the_documented_zero_sum_convention(
    rb: str, params: dict[str, Any], winners: list[int], expected: list[float]
) -> None:
    game = aos.load(rb, **params)
    got = game.variant.utilities(winners)
    assert got == pytest.approx(expected)
    assert sum(got) == pytest.approx(0.0)
    assert game.min_utility() == pytest.approx(
        min(-1.0 / (game.variant.seating.sides - 1), *expected)
    )
    assert game.max_utility() == 1.0


def test_a_truncated_game_goes_to_the_sides_ahead_and_the_book_end_to_the_books_winner() -> None:
    game = aos.load("escoba-es", max_hands=1)
    v = game.variant
    for seed in range(6):
        state = game.new_initial_state()
        deal(state, shuffled(v.deck, seed))
        while not state.is_terminal():
            state.apply_action(state.legal_actions()[0])
        assert state.end_reason == "max-hands"
        scores = v.model.game_scores(state.model_state)
        ahead = [s for s, x in enumerate(scores) if x == max(scores)]
        assert state.winners() == ahead
        assert state.returns() == pytest.approx(v.utilities(ahead))
        assert state.rewards() == state.returns()
    full = aos.load("escoba-es")
    state = full.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])  # every hand dealt in card order
        else:
            assert state.returns() == [0.0, 0.0]
            state.apply_action(state.legal_actions()[-1])
    totals = full.variant.model.game_scores(state.model_state)
    assert state.end_reason == "over"
    assert max(totals) >= 21  # escoba-es:target-score
    assert state.winners() == [totals.index(max(totals))]
