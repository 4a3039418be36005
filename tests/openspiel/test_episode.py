"""How an episode ends besides the book's end: max_hands, a gap in the rules, no legal action."""

from __future__ import annotations

from typing import Any

import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel (the open_spiel package) is not installed here"
)

import arbitro.openspiel as aos  # noqa: E402
from arbitro.model.rummy import RuleGap  # noqa: E402
from tests.support.openspiel_cases import deal, shuffled  # noqa: E402


def test_max_hands_stops_after_that_many_hands() -> None:
    game = aos.load("escoba-es", max_hands=2)
    state = game.new_initial_state()
    deals = 0
    while not state.is_terminal():
        if state.is_chance_node():
            deals += 1
            deal(state, shuffled(game.variant.deck, deals))
        else:
            state.apply_action(state.legal_actions()[0])
    assert deals == 2
    assert state.end_reason == "max-hands"
    assert max(state.model_state.scores) < 21  # escoba-es:target-score not reached
    assert game.max_game_length() == 2 * 40


def test_a_deal_the_book_cannot_make_ends_the_episode_naming_the_clause(monkeypatch: Any) -> None:
    game = aos.load("samba-fr", max_hands=1)
    model = game.variant.model

    def gap(self: Any, rules: Any, state: Any, order: Any) -> Any:
        raise RuleGap("samba-fr:opening-minimums", "no opening minimum is given for a side")

    monkeypatch.setattr(type(model), "deal", gap)
    state = game.new_initial_state()
    deal(state, shuffled(game.variant.deck, 1))
    assert state.is_terminal()
    assert state.end_reason == "rule-gap samba-fr:opening-minimums"
    assert state.returns() == [0.0, 0.0]  # nobody ahead at 0 to 0


def test_a_state_without_legal_actions_ends_the_episode(monkeypatch: Any) -> None:
    game = aos.load("escoba-es", max_hands=1)
    model = game.variant.model
    monkeypatch.setattr(type(model), "legal_actions", lambda self, rules, state: ())
    state = game.new_initial_state()
    deal(state, shuffled(game.variant.deck, 2))
    assert state.is_terminal()
    assert state.end_reason == "no-legal-action"
