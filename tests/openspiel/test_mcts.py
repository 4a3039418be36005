"""An OpenSpiel algorithm on an arbitro game: MCTS against uniform random play, one Escoba hand."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel (the open_spiel package) is not installed here"
)

from open_spiel.python.algorithms import mcts  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402

import arbitro.openspiel as aos  # noqa: E402

GAMES = 4


def mcts_margin(game: Any) -> tuple[int, int]:
    """MCTS (20 simulations, random rollouts) against a random bot over `GAMES` hands, taking
    each seat in turn: the hand points MCTS scored minus its opponent's, and its wins."""
    margin = wins = 0
    for g in range(GAMES):
        rng = np.random.RandomState(g)
        seat = g % 2
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
        bots: list[Any] = [None, None]
        bots[seat] = mcts.MCTSBot(
            game, uct_c=2, max_simulations=20, evaluator=evaluator, random_state=rng, solve=False
        )
        bots[1 - seat] = uniform_random.UniformRandomBot(1 - seat, rng)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                cards, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(cards, p=probs)))
            else:
                state.apply_action(bots[state.current_player()].step(state))
        scores = game.variant.model.game_scores(state.model_state)
        margin += scores[seat] - scores[1 - seat]
        wins += scores[seat] > scores[1 - seat]
    return margin, wins


def test_mcts_beats_random_play_and_loses_when_its_returns_are_turned_around(
    monkeypatch: Any,
) -> None:
    game = aos.load("escoba-es", max_hands=1)
    margin, wins = mcts_margin(game)
    assert margin > 0 and wins >= GAMES - 1
    # the same search told that losing is winning must play to lose: the returns steer it
    honest = aos.ArbitroState.returns
    monkeypatch.setattr(aos.ArbitroState, "returns", lambda self: [-x for x in honest(self)])
    margin, wins = mcts_margin(game)
    assert margin < 0 and wins <= 1
