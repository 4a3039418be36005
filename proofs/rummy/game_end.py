"""The end of a Samba/Canasta game as constraints: whether the game is over when a hand ends.

Looked at only between hands, from the sides' running totals: a side has reached the target when
its total is *:target-score or more (*:target-rule `reach`) or more than it (`exceed`); the game
is over when a side that reached it is alone in front, or level in front where the book shares the
win (*:target-tie `shared`; with `play_on` sides level in front play another hand). The refiner's
game-end row (`proofs/rummy/refine.py`) evaluates this very term on every hand the engine
finishes and compares it with the engine's phase.

`minimum` reads the opening table (*:opening-minimums, *:opening-rule) for the running totals a
built game starts from: a hand dealt from other totals with the same minimums is the same hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from arbitro.model.schema import RummyRules
from arbitro.proofs.terms import BoolTerm, Evaluator, Int, IntTerm, all_of, any_of
from arbitro.proofs.verdict import known


def totals(sides: int) -> list[IntTerm]:
    """The sides' running totals at the end of a hand, as unknowns."""
    return [Int(f"side {i} total") for i in range(sides)]


def over(rules: RummyRules, scores: Sequence[IntTerm]) -> BoolTerm:
    """The game is over with these running totals at a hand's end: some side has reached the
    target and is in front, alone or (where the book shares the win) level with others.
    *:target-score, *:target-rule, *:target-tie."""
    known("target_rule", rules.target_rule, ("reach", "exceed"))
    known("target_tie", rules.target_tie, ("play_on", "shared"))
    t = rules.target_score
    alone = rules.target_tie == "play_on"

    def reached(x: IntTerm) -> BoolTerm:
        return x >= t if rules.target_rule == "reach" else x > t

    return any_of(
        reached(x) & all_of((x > y) if alone else (x >= y) for j, y in enumerate(scores) if j != i)
        for i, x in enumerate(scores)
    )


@lru_cache(maxsize=32)
def evaluator(rules: RummyRules, sides: int) -> Evaluator:
    """`over` compiled, for concrete totals in side order."""
    xs = totals(sides)
    return Evaluator([over(rules, xs)], [f"side {i} total" for i in range(sides)])


def minimum(rules: RummyRules, total: int) -> int | None:
    """The opening minimum of a side starting a hand on `total`: the table's row that covers it
    (one more where the opening must go past it, *:opening-rule), the value past the table where
    the book gives one, else None. *:opening-minimums."""
    extra = 1 if rules.opening_rule == "exceed" else 0
    for band in rules.opening_minimums:
        if (band.low is None or total >= band.low) and (band.high is None or total <= band.high):
            return band.minimum + extra
    if rules.opening_minimum_past_table >= 0:
        return rules.opening_minimum_past_table + extra
    return None


__all__ = ["evaluator", "minimum", "over", "totals"]
