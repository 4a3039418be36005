"""Information states: what a seat has seen, no more; two histories it cannot tell apart agree."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel (the open_spiel package) is not installed here"
)

import arbitro.openspiel as aos  # noqa: E402
from tests.support.openspiel_cases import deal, shuffled, swap_hidden  # noqa: E402


def _pair(rb: str, layout: str, seed: int) -> tuple[Any, Any, Any]:
    """Two states of one game after deals that differ only in a card of seat 1's hand."""
    game = aos.load(rb, layout=layout, max_hands=1)
    v = game.variant
    order = shuffled(v.deck, seed)
    other = swap_hidden(v.model, v.rules, v.seating, order, 1)
    a, b = game.new_initial_state(), game.new_initial_state()
    deal(a, order)
    deal(b, other)
    return game, a, b


def differing_seats(game: Any, a: Any, b: Any) -> list[int]:
    """The seats whose information state, observation string or tensor differ between a and b."""
    out = []
    for p in range(game.num_players()):
        if (
            a.information_state_string(p) != b.information_state_string(p)
            or a.observation_string(p) != b.observation_string(p)
            or not np.array_equal(a.observation_tensor(p), b.observation_tensor(p))
        ):
            out.append(p)
    return out


def _play_alike(a: Any, b: Any, steps: int) -> int:
    """Apply to both the same actions (the lowest id legal in both) while they agree publicly."""
    done = 0
    while done < steps and not a.is_terminal() and not a.is_chance_node():
        common = sorted(set(a.legal_actions()) & set(b.legal_actions()))
        if not common or a.current_player() != b.current_player():
            break
        a.apply_action(common[0])
        b.apply_action(common[0])
        done += 1
    return done


@pytest.mark.parametrize(
    ("rb", "layout"),
    [
        ("escoba-es", ""),
        ("escoba-es", "teams"),
        ("samba-es", ""),
        ("samba-fr", "3-solo"),
        ("canasta-es", "two-pairs"),
    ],
)
def test_only_the_seat_whose_cards_differ_can_tell_the_two_deals_apart(
    rb: str, layout: str
) -> None:
    game, a, b = _pair(rb, layout, 21)
    assert differing_seats(game, a, b) == [1]
    played = _play_alike(a, b, 12)
    assert played >= 3
    assert differing_seats(game, a, b) == [1]


def test_a_view_that_leaked_another_hand_would_be_caught(monkeypatch: Any) -> None:
    game, a, b = _pair("escoba-es", "", 22)
    model = game.variant.model
    honest = type(model).view

    def leaky(self: Any, rules: Any, state: Any, seat: int) -> dict[str, Any]:
        out = honest(self, rules, state, seat)
        out["peek"] = self.state_to_json(state)["hands"][(seat + 1) % state.seating.players]
        return out

    monkeypatch.setattr(type(model), "view", leaky)
    game2 = aos.load("escoba-es", layout="", max_hands=1, dealer=0)
    a2, b2 = game2.new_initial_state(), game2.new_initial_state()
    deal(a2, list(a.history()))
    deal(b2, list(b.history()))
    assert differing_seats(game2, a2, b2) == [0, 1]


def test_the_information_state_grows_by_what_each_step_shows() -> None:
    game = aos.load("samba-en", max_hands=1)
    state = game.new_initial_state()
    deal(state, shuffled(game.variant.deck, 5))
    before = [state.information_state_string(p) for p in range(4)]
    assert len(set(before)) == 4  # every seat's own: its seat and its hand
    mover = state.current_player()
    draw = state.legal_actions()[0]
    state.apply_action(draw)
    after = [state.information_state_string(p) for p in range(4)]
    for p in range(4):
        assert after[p].startswith(before[p] + "\n")
        assert '"type":"draw"' in after[p].splitlines()[-1]
    # the drawer sees its new cards; the others see its hand grow by a count
    assert '"hand":[' in after[mover].splitlines()[-1]
    assert '"hand":[' not in after[(mover + 1) % 4].splitlines()[-1]


def test_a_seat_forgets_nothing_over_a_whole_game() -> None:
    """Perfect recall: each information state extends the one before it by one line per deal
    or action, so histories a seat could tell apart stay apart to the end of the game."""
    game = aos.load("escoba-es", players=3)
    state = game.new_initial_state()
    rng = np.random.default_rng(4)
    previous = [state.information_state_string(p) for p in range(3)]
    events = 0
    while not state.is_terminal():
        if state.is_chance_node():
            cards, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(cards, p=probs)))
            if state.is_chance_node():
                continue  # a deal is seen once it is complete
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
        events += 1
        now = [state.information_state_string(p) for p in range(3)]
        for p in range(3):
            assert now[p].startswith(previous[p] + "\n")
            assert now[p].count("\n") == previous[p].count("\n") + 1
        previous = now
    assert previous[0].count("\n") == events + 1  # the header line and the view before play
    assert state.end_reason == "over"
