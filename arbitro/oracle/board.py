"""`arbitro.Board`: a game as a stack of moves over the immutable engine (python-chess's Board).

    board = Board("escoba-es", seed=1)   # a new game, its first hand dealt from seed 1
    board.legal_moves                    # ['1@4ox1o3b', …], moves in notation
    board.push("1@4ox1o3b"); board.pop()
    board.notation()                     # the position line; Board.from_notation reads it back

Every position is an engine state; `push` applies one move (a move in notation or an action's
JSON) and keeps the state before it, `pop` returns to it. Between hands the next hand is dealt
with `deal` (a deck order or a seed). Illegal moves raise the oracle's `Refused` error.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from arbitro.model.errors import MalformedInput
from arbitro.oracle.core import Oracle
from arbitro.oracle.notation import move_text


class Board:
    """A game being played: its position, its legal moves, and the moves pushed so far."""

    def __init__(
        self,
        rulebook: str = "escoba-es",
        *,
        seed: int | None = None,
        position: str | Mapping[str, Any] | None = None,
        oracle: Oracle | None = None,
        **seating: Any,
    ) -> None:
        """A new game of `rulebook` (first hand dealt from `seed` when given), or `position` (a
        position line or a state's JSON). `seating` goes to Oracle: players, teams, layout,
        options, overrides."""
        self.oracle = oracle if oracle is not None else Oracle(rulebook, **seating)
        start: Any = position if position is not None else self.oracle.new_game()
        self._state: Hashable = self.oracle.read_state(start)
        self._stack: list[tuple[Hashable, str]] = []
        if seed is not None and position is None:
            self.deal(seed=seed)

    @classmethod
    def from_notation(cls, line: str, rulebook: str = "escoba-es", **seating: Any) -> Board:
        """The board of a position line under `rulebook` (and seating)."""
        return cls(rulebook, position=line, **seating)

    # ------------------------------------------------------------ reading the position

    @property
    def state(self) -> dict[str, Any]:
        """The position as the protocol's state JSON."""
        return self.oracle.write(self._state)

    def notation(self) -> str:
        """The position line (docs/protocol.md, notation)."""
        return self.oracle.position_line(self._state)

    @property
    def turn(self) -> int | None:
        """The seat to move, or None between hands and once the game is over."""
        model = self.oracle.model
        return model.to_move(self._state) if model.phase(self._state) == "play" else None

    @property
    def legal_moves(self) -> list[str]:
        """Every legal move in notation, in the engine's canonical order (none between hands)."""
        model = self.oracle.model
        if model.phase(self._state) != "play":
            return []
        return [
            move_text(model.action_to_json(a))
            for a in model.legal_actions(self.oracle.rules, self._state)
        ]

    @property
    def move_stack(self) -> list[str]:
        """The moves pushed, oldest first (deals are shown as `deal`)."""
        return [m for _, m in self._stack]

    def is_over(self) -> bool:
        """Whether a side has won the game."""
        return self.oracle.model.phase(self._state) == "over"

    def result(self) -> dict[str, Any]:
        """The last finished hand, the totals and the winner (the `score` op's answer)."""
        return self.oracle.score_of(self._state)

    # ------------------------------------------------------------ moving

    def push(self, move: str | Mapping[str, Any]) -> None:
        """Play one move (notation, or an action's JSON); `Refused` if the rules forbid it."""
        new = self.oracle.apply_to(self._state, move)
        shown = move if isinstance(move, str) else move_text(move)
        self._stack.append((self._state, shown))
        self._state = new

    def pop(self) -> str:
        """Take back the last move (or deal) and return it."""
        if not self._stack:
            raise IndexError("pop from an empty move stack")
        self._state, move = self._stack.pop()
        return move

    def deal(self, order: Sequence[str] | None = None, seed: int | None = None) -> None:
        """Deal the next hand from a deck order of card names, or from `random.Random(seed)`."""
        if (order is None) == (seed is None):
            raise MalformedInput("deal: give either order (a deck order) or seed")
        if order is None:
            deck = self.oracle.describe()["deck"]
            order = random.Random(seed).sample(deck, len(deck))
        dealt = self.oracle.deal(self.oracle.write(self._state), list(order))
        self._stack.append((self._state, "deal"))
        self._state = self.oracle.read_state(dealt)

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"Board({self.oracle.book.id!r}, position={self.notation()!r})"


__all__ = ["Board"]
