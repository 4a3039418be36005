"""The internal form of a refusal: which clause an action breaks, why, and which priced act it is.

Rule modules raise `Refusal` with a RummyRules field name; the engine turns it into
`model.errors.IllegalAction` carrying the clause id and the book's penalty.
"""

from __future__ import annotations


class Refusal(Exception):
    """An action the rules forbid, before it is given its clause id."""

    def __init__(self, key: str, reason: str, act: str | None = None) -> None:
        self.key = key
        self.reason = reason
        self.act = act
        super().__init__(reason)
