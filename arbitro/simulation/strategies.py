"""Public Hypothesis strategies: rulebooks, variants, seatings, deck orders, reachable states, actions.

Another Python implementation can reuse these in its own tests, e.g. to draw a reachable state of
any rulebook and compare its legal moves with arbitro's::

    @given(arbitro.simulation.strategies.positions())
    def test_my_engine(position): ...
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, TypeVar

from hypothesis import strategies as st

from arbitro.games import model_for
from arbitro.model.game import Game, GameModel, Seating
from arbitro.model.schema import rules_for
from arbitro.model.spec import load_rulebook, rulebook_ids

R = TypeVar("R")
S = TypeVar("S", bound=Hashable)
A = TypeVar("A", bound=Hashable)


def rulebooks(game: str | None = None) -> st.SearchStrategy[str]:
    """Rulebook ids, of one game if given."""
    ids = [i for i in rulebook_ids() if game is None or load_rulebook(i).game == game]
    return st.sampled_from(ids)


def variants(rulebook: str) -> st.SearchStrategy[dict[str, str | bool]]:
    """Options of a rulebook: any reading of each clause with readings, any optional rule on or off.

    A clause that follows another takes its reading from that one, so it is never drawn itself."""
    book = load_rulebook(rulebook)
    parts: dict[str, st.SearchStrategy[Any]] = {}
    for c in book.clauses:
        if c.follows is not None:
            continue
        if c.optional:
            parts[c.key] = st.booleans()
        elif len(c.readings) > 1:
            parts[c.key] = st.sampled_from(c.labels())
    return st.fixed_dictionaries({}, optional=parts)


def seatings(model: Game[R, S, A], rules: R) -> st.SearchStrategy[Seating]:
    """Every seating the rulebook allows."""
    return st.sampled_from(list(model.seatings(rules)))


def deck_orders(model: Game[R, S, A], rules: R, seating: Seating) -> st.SearchStrategy[list[int]]:
    """Deck orders (permutations of the deck) for one hand."""
    return st.permutations(list(model.deck(rules, seating)))


@dataclass(frozen=True)
class Position:
    """A reachable state with everything needed to continue from it."""

    rulebook: str
    options: dict[str, str | bool]
    rules: Any
    model: GameModel
    seating: Seating
    state: Hashable
    history: tuple[Hashable, ...]  # the actions that led here, after the deal


@st.composite
def positions(
    draw: st.DrawFn,
    rulebook: str | None = None,
    with_variants: bool = False,
    max_actions: int = 200,
) -> Position:
    """A state reached from a drawn deck order by drawn legal actions (in phase play unless over)."""
    rb = rulebook if rulebook is not None else draw(rulebooks())
    options = draw(variants(rb)) if with_variants else {}
    book = load_rulebook(rb)
    rules = rules_for(book, options)
    model = model_for(book.game)
    seating = draw(seatings(model, rules))
    state: Hashable = model.new_game(
        rules, seating, dealer=draw(st.integers(0, seating.players - 1))
    )
    state = model.deal(rules, state, draw(deck_orders(model, rules, seating)))
    history: list[Hashable] = []
    for _ in range(draw(st.integers(0, max_actions))):
        if model.phase(state) != "play":
            break
        legal = model.legal_actions(rules, state)
        if not legal:
            break
        action = draw(st.sampled_from(legal))
        state = model.apply(rules, state, action)
        history.append(action)
    return Position(rb, options, rules, model, seating, state, tuple(history))


def actions(position: Position) -> st.SearchStrategy[Hashable]:
    """A legal action of the position (requires phase play with some legal action)."""
    return st.sampled_from(list(position.model.legal_actions(position.rules, position.state)))
