"""Walking layer by layer forgets nothing it reports, and a model whose progress lies is caught.

With a model's `progress` the explorer hashes only the layer being reached, which is sound only if
a state of one depth is never met at another; it checks the progress of every state. Here the
layered walk is compared with the walk that keeps every state (asked for by a graph), and a model
whose transitions do not all add one to the progress is refused.
"""

from __future__ import annotations

from typing import Any

import pytest

from arbitro.model.escoba import EscobaModel, EscobaState
from arbitro.proofs.explore import ExploreError, explore_deal
from arbitro.proofs.explore_config import load_config


@pytest.mark.parametrize(("name", "seed"), [("escoba-12", 3), ("escoba-16", 1)])
def test_the_layered_walk_reports_what_the_whole_walk_does(name: str, seed: int) -> None:
    c = load_config(name)
    layered = explore_deal(c, seed)
    whole = explore_deal(c, seed, graph={})  # a graph keeps every state and its index
    for field in ("states", "orbits", "edges", "terminal", "depth", "per_depth", "clauses"):
        assert getattr(layered, field) == getattr(whole, field), field
    assert layered.scores == whole.scores and layered.deadlock_count == whole.deadlock_count == 0


class Lagging(EscobaModel):
    """Escoba whose progress, broken on purpose, lags by one once a side has captured."""

    def progress(self, state: EscobaState) -> int:
        return super().progress(state) - any(state.piles)


class Stuck(EscobaModel):
    """Escoba whose progress never grows: every state claims the deal's."""

    def progress(self, state: Any) -> int:
        return 0


@pytest.mark.parametrize("model", [Stuck(), Lagging()])
def test_a_progress_that_does_not_grow_by_one_is_refused(model: EscobaModel) -> None:
    with pytest.raises(ExploreError, match="progress"):
        explore_deal(load_config("escoba-12"), 3, model=model)
