"""The points of a hand: cards, oros, the siete de velo, the setenta and escobas, per side.

A category led by one side alone gives that side its point; a lead shared by several sides gives
the point to nobody. The optional rules raise some of these points. Implements
escoba-es:cards-points, escoba-es:oros-points, escoba-es:velo-points, escoba-es:setenta-points,
escoba-es:escoba-points, escoba-es:category-tie and the variants escoba-es:variant-cards-double,
escoba-es:variant-cards-double-rule, escoba-es:variant-oros-all, escoba-es:variant-sevens-all.
"""

from __future__ import annotations

from typing import Final

from arbitro.model.escoba.cards import Tables, tables
from arbitro.model.escoba.setenta import setenta_leaders
from arbitro.model.escoba.state import hand_result
from arbitro.model.game import HandResult
from arbitro.model.schema import EscobaRules

CATEGORY_CLAUSES = {
    "cards": "cards_points",
    "oros": "oros_points",
    "velo": "velo_points",
    "setenta": "setenta_points",
    "escobas": "escoba_points",
}
"""The clause behind each scoring category."""

CARDS_DOUBLE_MORE_THAN = 30
"""The cards variant: more than this many cards captured ..."""
CARDS_DOUBLE_OPPONENTS_FEWER_THAN = 10
"""... while the opposition holds fewer than this many."""


def sole_leader(rules: EscobaRules, counts: list[int]) -> int | None:
    """The side with the highest count, or None when the lead is shared (category_tie)."""
    best = counts[0]
    for n in counts:
        if n > best:
            best = n
    leaders = [side for side in range(len(counts)) if counts[side] == best]
    if len(leaders) == 1:
        return leaders[0]
    if rules.category_tie == "nobody":
        return None
    raise ValueError(f"unknown category tie rule {rules.category_tie!r}")  # pragma: no cover


def cards_double(rules: EscobaRules, counts: list[int], side: int) -> bool:
    """Whether the optional rule doubles the cards point for ``side``."""
    if not rules.variant_cards_double or counts[side] <= CARDS_DOUBLE_MORE_THAN:
        return False
    others = [n for s, n in enumerate(counts) if s != side]
    if rules.variant_cards_double_rule == "each_opponent":
        return all(n < CARDS_DOUBLE_OPPONENTS_FEWER_THAN for n in others)
    return sum(others) < CARDS_DOUBLE_OPPONENTS_FEWER_THAN


def score_piles(
    rules: EscobaRules, piles: tuple[int, ...], escobas: tuple[int, ...]
) -> tuple[tuple[int, ...], ...]:
    """Each side's points in CATEGORIES order from its captured cards and its escobas."""
    t: Tables = tables(rules)
    sides = len(piles)
    cards = [0] * sides
    oros = [0] * sides
    velo = [0] * sides
    seventy = [0] * sides

    counts = [p.bit_count() for p in piles]
    lead = sole_leader(rules, counts)
    if lead is not None:
        double = t.variant_cards_double and cards_double(rules, counts, lead)
        cards[lead] = t.cards_points * (2 if double else 1)

    coins = [(p & t.oros).bit_count() for p in piles]
    lead = sole_leader(rules, coins)
    if lead is not None:
        all_coins = t.variant_oros_all and coins[lead] == t.oros.bit_count()
        oros[lead] = t.oros_points * (2 if all_coins else 1)

    if t.velo >= 0:
        for side, p in enumerate(piles):
            if p >> t.velo & 1:
                velo[side] = t.velo_points

    leaders = setenta_leaders(rules, t, piles)
    if len(leaders) == 1:
        seventy[leaders[0]] = t.setenta_points
    elif leaders and rules.category_tie != "nobody":  # pragma: no cover
        raise ValueError(f"unknown category tie rule {rules.category_tie!r}")

    if t.variant_sevens_all and t.sevens:
        for side, p in enumerate(piles):
            if p & t.sevens == t.sevens:
                # three points in all for the setenta and the seven of oros instead of two
                seventy[side] += 1

    points = t.escoba_points
    return tuple(
        [(cards[s], oros[s], velo[s], seventy[s], escobas[s] * points) for s in range(sides)]
    )


POINTS_LIMIT: Final = 1 << 14
"""The most hand outcomes remembered per rules object before they are forgotten all at once."""


def hand_points(
    rules: EscobaRules, t: Tables, piles: tuple[int, ...], escobas: tuple[int, ...]
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """`score_piles` and each side's total, remembered per rules object (bounded): many plays
    end a hand with the same piles."""
    key = (piles, escobas)
    hit = t.points.get(key)
    if hit is None:
        memo = t.points
        if len(memo) >= POINTS_LIMIT:
            memo.clear()
        points = score_piles(rules, piles, escobas)
        totals = [a + b + c + d + e for a, b, c, d, e in points]
        hit = memo[key] = (points, tuple(totals))
    return hit


def score_hand(rules: EscobaRules, piles: tuple[int, ...], escobas: tuple[int, ...]) -> HandResult:
    """The HandResult of a finished hand."""
    return hand_result(score_piles(rules, piles, escobas))
