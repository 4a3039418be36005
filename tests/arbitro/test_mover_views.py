"""A mover's legal actions depend only on what it sees: on every state of random games of every
seating of every book, `legal` on the mover's own view (its hidden cards completed by the oracle)
equals `legal` on the full state, and `explain` agrees on each pile take.

Two ways a view used to guess: the completion put an unseen red three into a hand when the stock
was short (a state the rules never reach, so the view was refused), and a take of the pile to open
was judged with the covered cards of the pile, which the mover cannot see (model/rummy/pile.py:
`take_to_open` now judges the opening on what the taker sees)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arbitro.oracle import states
from arbitro.oracle.core import Oracle


def _seatings() -> list[tuple[str, str]]:
    """(rulebook, seating) with the seating as a layout name, or PLAYERS[-teams] for Escoba."""
    out = []
    for rb in ("canasta-es", "samba-en", "samba-es", "samba-fr", "escoba-es"):
        o = Oracle(rb)
        for s in o.model.seatings(o.rules):
            name = s.layout if s.layout and s.layout != "teams" else str(s.players)
            out.append((rb, name + ("-teams" if s.layout == "teams" else "")))
    return out


def _oracle(rulebook: str, seating: str) -> Oracle:
    if rulebook.startswith("escoba"):
        players, _, teams = seating.partition("-")
        return Oracle(rulebook, players=int(players), teams=bool(teams))
    return Oracle(rulebook, layout=seating)


def _mover(state: dict[str, Any]) -> int:
    return int(state["to_move"] if state["game"] == "escoba" else states.RUMMY.to_move(state))


def _walk_and_compare(rulebook: str, layout: str, games: int, steps: int, seed: int) -> int:
    oracle = _oracle(rulebook, layout)
    deck = oracle.describe()["deck"]
    rng = random.Random(seed)
    compared = 0
    for _ in range(games):
        state = oracle.deal(oracle.new_game(), rng.sample(deck, len(deck)))
        for _ in range(steps):
            if state["phase"] != "play":
                break
            full = oracle.legal_actions(state)
            view = oracle.view(state, _mover(state))
            completed = oracle.from_view(view)
            assert oracle.legal_actions(completed) == full, (rulebook, layout, state)
            for a in full:
                if a.get("type") == "take-pile":
                    assert oracle.explain(completed, a) == {"legal": True}
            compared += 1
            state = oracle.apply(state, full[rng.randrange(len(full))])
    return compared


# seatings where the guessing showed within three games of seed 0 (samba-fr 3-solo: an extra
# take to open; 6-pairs: red threes completed into hands; 8-pairs: a missing take to open)
SEEN = [("samba-fr", "3-solo"), ("samba-fr", "6-pairs"), ("samba-fr", "8-pairs")]


@pytest.mark.parametrize(("rulebook", "layout"), SEEN)
def test_the_views_that_used_to_guess(rulebook: str, layout: str) -> None:
    assert _walk_and_compare(rulebook, layout, 3, 300, 0) > 200


@pytest.mark.parametrize(("rulebook", "layout"), _seatings())
def test_every_seating_of_every_book(rulebook: str, layout: str) -> None:
    assert _walk_and_compare(rulebook, layout, 1, 120, 7) > 0


@pytest.mark.slow
@pytest.mark.parametrize(("rulebook", "layout"), _seatings())
def test_every_seating_of_every_book_long(rulebook: str, layout: str) -> None:
    assert _walk_and_compare(rulebook, layout, 20, 400, 1) > 0
