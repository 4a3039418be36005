"""An independent referee for the Escoba tests, written from the book and not from the model.

It knows the card values, the sums, the forced capture, the setenta order and the points, and it
follows a hand play by play with its own piles, so the model's piles and scores can be compared
against it.
"""

from __future__ import annotations

from collections.abc import Sequence

from arbitro.model.escoba import EscobaState, Play, cards_of
from arbitro.model.schema import EscobaRules
from tests.support.escoba_helpers import value

SETENTA = ["7", "6", "1", "5", "4", "3", "2", "figures"]  # Puntuación: best first


def _rank_label(c: int) -> str:
    r = c % 10
    return str(r + 1) if r < 7 else "figures"


def _reachable(table: set[int]) -> set[int]:
    sums = {0}
    for c in table:
        sums |= {s + value(c) for s in sums}
    return sums


def _setenta(pile: set[int], lowest: bool) -> tuple[int, ...] | None:
    best = []
    for suit in range(4):
        ranks = [SETENTA.index(_rank_label(c)) for c in pile if c // 10 == suit]
        if not ranks and not lowest:
            return None
        best.append(min(ranks) if ranks else len(SETENTA))
    return tuple(sorted(best))  # smaller index is better, so compare ascending tuples


def _sole_best(values: Sequence[int]) -> int | None:
    top = max(values)
    return values.index(top) if list(values).count(top) == 1 else None


def recount(r: EscobaRules, piles: list[set[int]], escobas: list[int]) -> list[dict[str, int]]:
    n = len(piles)
    pts = [dict.fromkeys(("cards", "oros", "velo", "setenta", "escobas"), 0) for _ in range(n)]
    counts = [len(p) for p in piles]
    w = _sole_best(counts)
    if w is not None:
        others = [counts[s] for s in range(n) if s != w]
        few = (
            sum(others) < 10
            if r.variant_cards_double_rule == "opponents_together"
            else all(x < 10 for x in others)
        )
        double = r.variant_cards_double and counts[w] > 30 and few
        pts[w]["cards"] = 2 if double else 1
    oros = [sum(1 for c in p if c // 10 == 0) for p in piles]
    w = _sole_best(oros)
    if w is not None:
        pts[w]["oros"] = 2 if r.variant_oros_all and oros[w] == 10 else 1
    for s, p in enumerate(piles):
        if 6 in p:  # the 7 of oros
            pts[s]["velo"] = 1
    lowest = r.setenta_missing_suit == "lowest"
    shown = [_setenta(p, lowest) for p in piles]
    candidates = [x for x in shown if x is not None]
    if candidates:
        best = min(candidates)
        if shown.count(best) == 1:
            pts[shown.index(best)]["setenta"] = 1
    for s, p in enumerate(piles):
        if r.variant_sevens_all and {6, 16, 26, 36} <= p:
            pts[s]["setenta"] += 1
        pts[s]["escobas"] = escobas[s]
    return pts


class Referee:
    """Follows a hand play by play, checking each play and keeping its own piles."""

    def __init__(self, r: EscobaRules, s: EscobaState) -> None:
        self.r = r
        self.sides = s.seating.sides
        self.table = set(cards_of(s.table))
        self.piles = [set(cards_of(p)) for p in s.piles]
        self.escobas = list(s.escobas)
        self.last = s.last_capturer
        self.dealer_side = s.dealer % self.sides
        self.opening_total = sum(value(c) for c in self.table | self.piles[self.dealer_side])

    def play(self, a: Play) -> None:
        need = 15 - value(a.card)
        taken = set(cards_of(a.capture))
        if taken:
            assert taken <= self.table
            assert sum(value(c) for c in taken) == need
            self.table -= taken
            side = a.seat % self.sides
            self.piles[side] |= taken | {a.card}
            if not self.table:
                self.escobas[side] += 1
            self.last = side
        else:
            assert need not in _reachable(self.table) - {0}  # forced capture
            self.table.add(a.card)

    def finish(self) -> int:
        """Give the rest to the last capturer; return the table's value before that."""
        left = sum(value(c) for c in self.table)
        if self.last >= 0:
            self.piles[self.last] |= self.table
            self.table = set()
        elif self.r.rest_without_capturer == "dealer":
            self.piles[self.dealer_side] |= self.table
            self.table = set()
        return left
