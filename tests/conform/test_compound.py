"""Compound moves (arbitro-adapter/2): an engine whose move is a whole turn (draw then discard,
adapters/canasta_turns.py, under 120 lines) conforms; the same engine listing one turn too few
or one too many is caught inside the compound move, after the draw."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arbitro.conformance.conform import conform, text

HERE = Path(__file__).parent
TURNS = [sys.executable, str(HERE.parent.parent / "adapters" / "canasta_turns.py")]
WRONG = [sys.executable, str(HERE / "turns_bug.py")]
NO_MELDS = {"canasta-es:set-min": 20, "canasta-es:completed-size": 20}


def test_the_coarse_example_is_short_and_conforms() -> None:
    lines = (HERE.parent.parent / "adapters" / "canasta_turns.py").read_text().splitlines()
    assert len(lines) < 120
    run = conform("canasta-es", TURNS, games=1, seed=1, overrides=NO_MELDS)
    assert run.status == "conforms", text(run)
    assert run.declared["moves"] == "compound"
    # one step a turn: 108 cards, 30 dealt, at least one turned up: at most 77 draws, and one
    # more that finds the stock exhausted
    assert 50 < run.steps <= 78


@pytest.mark.slow
def test_a_turn_left_out_is_too_strict_after_the_draw() -> None:
    run = conform(
        "canasta-es", [*WRONG, "strict"], games=1, seed=1, overrides=NO_MELDS, budget=1,
        blame_budget=1,
    )  # fmt: skip
    assert run.status == "disagrees"
    d = run.disagreements[0]
    assert d.kind == "legal" and d.detail["too_strict"] and not d.detail["too_lax"]
    missing = d.detail["too_strict"][0]
    assert missing["action"]["type"] == "discard" and missing["after"][0]["type"] == "draw"
    assert "after seat" in text(run)


@pytest.mark.slow
def test_a_turn_too_many_is_too_lax_after_the_draw() -> None:
    run = conform(
        "canasta-es", [*WRONG, "lax"], games=1, seed=1, overrides=NO_MELDS, budget=1,
        blame_budget=1,
    )  # fmt: skip
    d = run.disagreements[0]
    assert d.kind == "legal" and d.detail["too_lax"] and not d.detail["too_strict"]
    extra = d.detail["too_lax"][0]
    assert extra["action"] == {"type": "discard", "seat": extra["action"]["seat"], "card": "JK"}
    assert extra["after"][0]["type"] == "draw"
