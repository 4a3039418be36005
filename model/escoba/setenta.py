"""The setenta: each side's best card of every suit, compared best card first.

A side's setenta is the strongest card it captured in each suit under the book's order (7, 6, 1,
5, 4, 3, 2, figures). Two setentas are compared as their cards sorted strongest first, card by
card: 7-7-6-5 beats 7-7-1-1, 7-7-6-1 beats 7-7-6-5, equal ones tie. Implements
escoba-es:setenta-order and escoba-es:setenta-missing-suit.
"""

from __future__ import annotations

from arbitro.model.escoba.cards import RANKS, Tables
from arbitro.model.schema import EscobaRules

RANK_BITS = (1 << RANKS) - 1
MISSING = 0
"""The strength a missing suit has under the "lowest" reading: below every card."""


def setenta(rules: EscobaRules, t: Tables, pile: int) -> tuple[int, ...] | None:
    """The pile's setenta as strengths, strongest first; None when it has none to show."""
    table = t.suit_best
    best = sorted([table[(pile >> shift) & RANK_BITS] for shift in t.suit_shifts], reverse=True)
    if best[-1] == MISSING and rules.setenta_missing_suit == "no_setenta":
        return None
    return tuple(best)


def setenta_leaders(rules: EscobaRules, t: Tables, piles: tuple[int, ...]) -> list[int]:
    """The sides whose setenta is best (several when tied, none when nobody has one)."""
    shown = [setenta(rules, t, p) for p in piles]
    best = max((s for s in shown if s is not None), default=None)
    if best is None:
        return []
    return [side for side, s in enumerate(shown) if s == best]
