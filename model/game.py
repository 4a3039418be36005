"""The shape every game model shares, so that simulation, the oracle and the explorer drive any game.

A game module (arbitro.model.escoba, model.rummy) provides an object satisfying `GameModel`. States and
actions are immutable hashable values; chance enters only through `deal`, which takes an explicit deck
order, so a transcript that records deck orders replays exactly.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias, TypeVar

from arbitro.model.errors import IllegalAction

Phase = Literal["deal", "play", "over"]
"""`deal`: the next step is a deal from a deck order; `play`: a player acts; `over`: the game is won."""


@dataclass(frozen=True)
class Seating:
    """Who plays: the number of players and how they form sides (seat s belongs to side s % sides)."""

    players: int
    sides: int
    layout: str = ""

    def side_of(self, seat: int) -> int:
        return seat % self.sides


@dataclass(frozen=True)
class HandResult:
    """How a hand ended and what each side scored in it, by category."""

    reason: str  # e.g. "went-out", "stock-out", "cards-played"
    scores: tuple[int, ...]  # per side, the hand's total
    categories: tuple[Mapping[str, int], ...]  # per side, category -> points


R = TypeVar("R", contravariant=True)
"""A family's typed rules (a class of arbitro.model.schema)."""
S = TypeVar("S", bound=Hashable)
"""A family's state."""
A = TypeVar("A", bound=Hashable)
"""A family's action."""


class Game(Protocol[R, S, A]):
    """What a game module exposes, typed by its rules, state and action; every function is pure.
    Code that drives any game holds a `GameModel`; a family's own entry holds its engine as a
    `Game` of its own types (`GameFamily.engine`)."""

    game: str
    view_private: tuple[str, ...]
    """The fields of a `view` that only the viewing seat sees (its own cards)."""

    def seatings(self, rules: R) -> Sequence[Seating]:
        """Every seating the rulebook allows."""
        ...

    def new_game(self, rules: R, seating: Seating, dealer: int = 0) -> S:
        """A game before its first deal."""
        ...

    def deck(self, rules: R, seating: Seating) -> tuple[int, ...]:
        """The cards of the deck as a sorted tuple; a deck order is a permutation of it."""
        ...

    def phase(self, state: S) -> Phase: ...

    def deal(self, rules: R, state: S, order: Sequence[int]) -> S:
        """Start the next hand from this deck order (top of the stock first)."""
        ...

    def to_move(self, state: S) -> int:
        """The seat that acts next (phase `play`)."""
        ...

    def legal_actions(self, rules: R, state: S) -> tuple[A, ...]:
        """Every legal action, exactly, in canonical order."""
        ...

    def apply(self, rules: R, state: S, action: A) -> S:
        """The next state, or IllegalAction naming the clause."""
        ...

    def refusals(self, rules: R, state: S, action: A) -> tuple[IllegalAction, ...]:
        """Every clause that refuses this well-formed action, the most specific first; empty when
        the action is legal. `apply` raises the first of them. MalformedInput for a bad action."""
        ...

    def clauses_used(self, rules: R, state: S, action: A) -> frozenset[str]:
        """The clause ids whose values decided what this legal action does or whether it was
        allowed: the clauses whose case arose in it. In phase `deal` the action is a deck order.
        IllegalAction when the action is not legal."""
        ...

    def random_step(self, rules: R, state: S, rng: random.Random) -> tuple[A, S] | None:
        """A legal action drawn uniformly from `legal_actions` and the state after it, or None when
        there is none; a model may draw it without listing every action first."""
        ...

    def violations(self, rules: R, state: S) -> list[str]:
        """Clause ids that the whole state breaks (conservation, wild limits, meld sizes...)."""
        ...

    def last_hand(self, state: S) -> HandResult | None:
        """The result of the hand most recently finished, if any."""
        ...

    def game_scores(self, state: S) -> tuple[int, ...]:
        """Each side's running total."""
        ...

    def winner(self, state: S) -> int | None:
        """The winning side once the game is over."""
        ...

    def card_name(self, card: int) -> str:
        """The protocol's name of a card (see docs/protocol.md), e.g. ``7o`` or ``10H``."""
        ...

    def parse_card(self, name: str) -> int:
        """The card with this name; MalformedInput names what is wrong."""
        ...

    def state_to_json(self, state: S) -> dict[str, Any]: ...

    def state_from_json(self, rules: R, data: Mapping[str, Any]) -> S: ...

    def action_to_json(self, action: A) -> dict[str, Any]: ...

    def action_from_json(self, data: Mapping[str, Any]) -> A: ...

    def view(self, rules: R, state: S, seat: int) -> dict[str, Any]:
        """What seat ``seat`` sees of the state, as JSON: its own cards, what lies face up, and
        counts of what is face down (the other hands, the stock). The fields named in
        `view_private` are seen by that seat alone; two states that differ only in cards hidden
        from the seat give equal views. MalformedInput for a seat out of range."""
        ...


GameModel: TypeAlias = Game[Any, Any, Any]
"""A game model whose family the code does not know: rules, states and actions unchecked."""
