"""Chance nodes deal card by card: the outcomes of a hand are its deck order, top first."""

from __future__ import annotations

from typing import Any

import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel (the open_spiel package) is not installed here"
)

import arbitro.openspiel as aos  # noqa: E402
from arbitro.model.errors import MalformedInput  # noqa: E402
from arbitro.oracle.transcript import ActionLine, HandLine, ResultLine  # noqa: E402
from arbitro.simulation.play import play_transcript  # noqa: E402
from tests.support.openspiel_cases import deal, shuffled  # noqa: E402


@pytest.mark.parametrize(
    ("rb", "layout"), [("escoba-es", ""), ("samba-es", ""), ("canasta-es", "three-pairs")]
)
def test_the_chance_outcomes_of_a_hand_are_the_deck_order_the_model_deals(
    rb: str, layout: str
) -> None:
    game = aos.load(rb, layout=layout)
    v = game.variant
    order = shuffled(v.deck, 11)
    state = game.new_initial_state()
    deal(state, order)
    expected = v.model.deal(v.rules, v.model.new_game(v.rules, v.seating), order)
    assert state.model_state == expected
    assert not state.is_chance_node()
    assert state.history()[: len(order)] == order


def test_chance_probabilities_are_copies_left_over_cards_left() -> None:
    game = aos.load("samba-en")
    # samba-en:packs 3, samba-en:jokers-per-pack 2: 162 cards, six jokers, three of each other card
    assert game.max_chance_outcomes() == 53
    state = game.new_initial_state()
    first = dict(state.chance_outcomes())
    assert len(first) == 53
    assert first[52] == pytest.approx(6 / 162)
    assert first[0] == pytest.approx(3 / 162)
    assert sum(first.values()) == pytest.approx(1.0)
    state.apply_action(52)
    after = dict(state.chance_outcomes())
    assert after[52] == pytest.approx(5 / 161)
    assert after[0] == pytest.approx(3 / 161)
    escoba = aos.load("escoba-es").new_initial_state()
    # escoba-es:suits, escoba-es:capture-values: forty cards, one of each
    assert dict(escoba.chance_outcomes()) == {c: pytest.approx(1 / 40) for c in range(40)}


def test_a_card_not_left_to_deal_is_refused() -> None:
    state = aos.load("escoba-es").new_initial_state()
    state.apply_action(7)
    with pytest.raises(MalformedInput, match="card 7 is not left to deal"):
        state.apply_action(7)
    with pytest.raises(MalformedInput, match="card 40 is not left to deal"):
        state.apply_action(40)


@pytest.mark.parametrize(("rb", "seed"), [("escoba-es", 3), ("samba-en", 1)])
def test_a_transcript_replays_as_chance_outcomes_and_action_ids(rb: str, seed: int) -> None:
    game = aos.load(rb)
    v = game.variant
    transcript = play_transcript(v.model, v.rules, v.seating, seed, {})
    state = game.new_initial_state()
    deals = iter(transcript.header.deals)
    hand = -1
    scores: Any = None
    for line in transcript.body:
        if isinstance(line, ActionLine):
            if line.hand != hand:
                hand = line.hand
                deal(state, [v.model.parse_card(c) for c in next(deals)])
            assert state.current_player() == line.seat
            action = v.model.action_from_json(line.action)
            state.apply_action(v.codec.encode(action))
        elif isinstance(line, HandLine):
            assert v.model.last_hand(state.model_state).scores == line.scores
        elif isinstance(line, ResultLine):
            scores = line.scores
            winner = line.winner
    assert state.is_terminal() and state.end_reason == "over"
    assert v.model.game_scores(state.model_state) == scores
    assert state.winners() == [winner]
    n = v.seating.sides
    assert state.returns() == [
        1.0 if v.seating.side_of(p) == winner else -1 / (n - 1) for p in range(v.seating.players)
    ]
