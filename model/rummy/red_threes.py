"""Red threes: laid out as soon as a player holds one, and replaced from the stock.

Implements *:red-three-initial-replacement (the deal and the owner's first turn, see `deal` and
`stock`), *:red-threes-meld (red threes never reach a hand, so a red-three meld cannot arise) and the
scoring clauses *:red-three-each, *:red-three-all, *:red-three-positive-min-completed,
*:red-three-negative-below-completed, *:red-three-negative-all and *:red-three-undeclared-penalty.
Red threes found in a taken pile are laid out for the taker's side without replacement.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from arbitro.model.rummy.state import Side, State, replaced
from arbitro.model.schema import RummyRules

_new: Final[Any] = tuple.__new__
"""`Side(...)` without the Python call of a NamedTuple's constructor."""


def lay_out(state: State, side: int, cards: Iterable[int]) -> State:
    """The state with these red threes added to a side's row."""
    new = tuple(cards)
    if not new:
        return state
    return replaced(state, table=with_reds(state.table, side, new))


def with_reds(
    table: tuple[Side, ...], side: int, cards: list[int] | tuple[int, ...]
) -> tuple[Side, ...]:
    """The table with these red threes added to a side's row (the same table when there are
    none)."""
    if not cards:
        return table
    sd = table[side]
    row = tuple(sorted((*sd.red_threes, *cards)))
    new_side: Side = _new(Side, (sd.melds, row, sd.opened))
    return (*table[:side], new_side, *table[side + 1 :])


def red_three_score(rules: RummyRules, count: int, completed: int, total: int) -> int:
    """What a side's `count` red threes are worth with `completed` finished melds.

    Plus with at least red_three_positive_min_completed finished melds, minus with fewer than
    red_three_negative_below_completed, nothing in between; holding all `total` of the deck
    scores red_three_all (or red_three_negative_all when they count minus, unless that is 0: then
    each costs red_three_each, however many there are).
    """
    if not count:
        return 0
    if completed >= rules.red_three_positive_min_completed:
        return rules.red_three_all if count == total else count * rules.red_three_each
    if completed < rules.red_three_negative_below_completed:
        if count == total and rules.red_three_negative_all:
            return rules.red_three_negative_all
        return -count * rules.red_three_each
    return 0
