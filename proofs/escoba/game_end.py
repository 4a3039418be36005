"""The end of an Escoba game as constraints: whether the game is over when a hand ends.

Looked at only between hands, from the sides' running totals: the game is over when a side has
*:target-score points or more and more than every other side (*:target-tie: sides level in front
play more hands). The refiner's hand-end row (`proofs/escoba/refine.py`) evaluates this very
term on every hand the engine finishes and compares it with the engine's phase, and
`book-numbers` proves the book's own number (Ganar el juego: "21 o más puntos") of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from arbitro.model.schema import EscobaRules
from arbitro.proofs.terms import BoolTerm, Evaluator, Int, IntTerm, all_of, any_of
from arbitro.proofs.verdict import known


def totals(sides: int) -> list[IntTerm]:
    """The sides' running totals at the end of a hand, as unknowns."""
    return [Int(f"side {i} total") for i in range(sides)]


def over(rules: EscobaRules, scores: Sequence[IntTerm]) -> BoolTerm:
    """The game is over with these running totals at a hand's end: some side has the target or
    more and is alone in front. *:target-score, *:target-tie."""
    known("target_tie", rules.target_tie, ("higher_wins_else_play_on",))
    t = rules.target_score
    return any_of(
        (x >= t) & all_of(x > y for j, y in enumerate(scores) if j != i)
        for i, x in enumerate(scores)
    )


@lru_cache(maxsize=32)
def evaluator(rules: EscobaRules, sides: int) -> Evaluator:
    """`over` compiled, for concrete totals in side order."""
    xs = totals(sides)
    return Evaluator([over(rules, xs)], [x.name for x in xs])  # type: ignore[attr-defined]


__all__ = ["evaluator", "over", "totals"]
