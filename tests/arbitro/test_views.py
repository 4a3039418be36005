"""One definition of what a seat sees: the oracle's `view` is the model's `GameModel.view`
written in the state's shape. The books say what is hidden: hands are held and the stock lies
face down (every book); the discard pile's top card covers the others, but a card that freezes
the pile is turned crosswise and sticks out (canasta-es EL POZO, samba-en Discard pile); Escoba's
captured cards are kept face down by their side (escoba-es Puntuación counts them at the end)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from arbitro.oracle import states
from arbitro.oracle.core import Oracle
from arbitro.oracle.states import HIDDEN

WILD_OR_RED_THREE = {"JK", "2C", "2D", "2H", "2S", "3D", "3H"}
FREEZING = {
    # each book's frozen-by clause: canasta-es EL POZO and samba-en Freezing the discard pile
    # (wilds and red threes); samba-fr Compte des points (threes of either colour as well)
    "canasta-es": WILD_OR_RED_THREE,
    "samba-en": WILD_OR_RED_THREE,
    "samba-fr": WILD_OR_RED_THREE | {"3C", "3S"},
}


def _walk(oracle: Oracle, seed: int, steps: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    deck = oracle.describe()["deck"]
    state = oracle.deal(oracle.new_game(), rng.sample(deck, len(deck)))
    seen = []
    for _ in range(steps):
        if state["phase"] != "play":
            break
        seen.append(state)
        legal = oracle.legal_actions(state)
        state = oracle.apply(state, legal[rng.randrange(len(legal))])
    return seen


def _mover(state: dict[str, Any]) -> int:
    return int(state["to_move"] if state["game"] == "escoba" else states.RUMMY.to_move(state))


@pytest.mark.parametrize("rulebook", ["canasta-es", "samba-en", "samba-fr"])
def test_the_pile_shows_its_top_and_the_cards_that_stick_out(rulebook: str) -> None:
    oracle = Oracle(rulebook)
    covered_freezer = 0
    for state in _walk(oracle, 11, 400):
        seat = _mover(state)
        view = oracle.view(state, seat)
        model_view = oracle.model.view(oracle.rules, oracle.read_state(state), seat)
        assert view["pile"] == model_view["pile_shown"]
        pile = state["pile"]
        for i, (real, shown) in enumerate(zip(pile, view["pile"], strict=True)):
            sticks_out = i == len(pile) - 1 or real in FREEZING[rulebook]
            assert shown == (real if sticks_out else HIDDEN)
            covered_freezer += i < len(pile) - 1 and shown != HIDDEN
        # the rest of a pile taken to open is its taker's
        if state["held"] and state["seat"] != seat:
            assert view["held"] == [HIDDEN] * len(state["held"])
        # what the seat to move may do does not depend on what it cannot see
        assert oracle.legal_actions(oracle.from_view(view)) == oracle.legal_actions(state)
    assert covered_freezer  # the walk met a frozen pile with its freezing card covered


def test_escoba_captured_piles_are_face_down() -> None:
    oracle = Oracle("escoba-es")
    for state in _walk(oracle, 3, 30):
        seat = _mover(state)
        view = oracle.view(state, seat)
        assert view["piles"] == [[HIDDEN] * len(p) for p in state["piles"]]
        assert view["table"] == state["table"] and view["escobas"] == state["escobas"]
        assert oracle.legal_actions(oracle.from_view(view)) == oracle.legal_actions(state)


def test_completing_a_view_keeps_the_pile_as_frozen_as_it_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without keeping the unseen freezing cards out from under the pile's top, a completed view
    can freeze a pile the seat sees unfrozen, and its legal actions change: the check fails."""
    oracle = Oracle("canasta-es")
    walk = [s for seed in (11, 12, 13) for s in _walk(oracle, seed, 400)]
    views = [(s, oracle.view(s, _mover(s))) for s in walk]
    monkeypatch.setattr(states, "_freezing", lambda ctx: frozenset())
    differs = 0
    for state, view in views:
        fresh = Oracle("canasta-es")  # its own cache
        full = fresh.from_view(view)
        froze = Counter(full["pile"][:-1]) & Counter(WILD_OR_RED_THREE)
        if froze and fresh.legal_actions(full) != fresh.legal_actions(state):
            differs += 1
    assert differs
