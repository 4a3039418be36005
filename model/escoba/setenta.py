"""The setenta: each side's best card of every suit, compared best card first.

A side's setenta is the strongest card it captured in each suit under the book's order (7, 6, 1,
5, 4, 3, 2, figures). Two setentas are compared as their cards sorted strongest first, card by
card: 7-7-6-5 beats 7-7-1-1, 7-7-6-1 beats 7-7-6-5, equal ones tie. Implements
escoba-es:setenta-order and escoba-es:setenta-missing-suit.
"""

from __future__ import annotations

from typing import Final

from arbitro.model.escoba.cards import RANKS, Tables
from arbitro.model.schema import EscobaRules

RANK_BITS: Final = (1 << RANKS) - 1
MISSING: Final = 0
"""The strength a missing suit has under the "lowest" reading: below every card."""


def setenta(rules: EscobaRules, t: Tables, pile: int) -> tuple[int, ...] | None:
    """The pile's setenta as strengths, strongest first; None when it has none to show."""
    table = t.suit_best
    best = sorted([table[(pile >> shift) & RANK_BITS] for shift in t.suit_shifts], reverse=True)
    if best[-1] == MISSING and rules.setenta_missing_suit == "no_setenta":
        return None
    return tuple(best)


def setenta_key(t: Tables, pile: int) -> int:
    """The pile's setenta as one int that orders setentas as `setenta` does; -1 when it has none.

    Digit s (3 bits) counts the suits whose best card has strength s: comparing two setentas
    strongest card first is comparing these counts from the strongest down, and a digit never
    exceeds the four suits, so the int compares the same way.
    """
    best = t.suit_best
    key = 0
    for shift in t.suit_shifts:
        key += 1 << 3 * best[(pile >> shift) & RANK_BITS]
    if key & 7 and t.setenta_needs_all:  # a suit missing (strength MISSING) and no setenta then
        return -1
    return key


def setenta_leaders(rules: EscobaRules, t: Tables, piles: tuple[int, ...]) -> list[int]:
    """The sides whose setenta is best (several when tied, none when nobody has one)."""
    keys = [setenta_key(t, p) for p in piles]
    best = -1
    for k in keys:
        if k > best:
            best = k
    if best < 0:
        return []
    return [side for side in range(len(keys)) if keys[side] == best]
