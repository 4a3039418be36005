"""What the proofs establish about one side's hand score, for the explorer's cross-check.

`score_facts(rules)` runs the score-bounds property on the same rules object the explorer plays
(a shipped configuration changes only sizes: packs, jokers, players, hand size, ranks) and keeps
only what is PROVED: the least and greatest hand score of a side, and for Escoba the totals the
encoding admits when every total between the bounds was decided (each one shown by a configuration
or proved impossible), a superset of what play can reach. Anything not proved is None, so the
explorer says the check was not made rather than checking against a guess.

The Escoba scoring encoding takes any pack of the four suits (a configuration's missing ranks are
cards nobody holds); for rules it does not encode (suits removed, a reading it has no constraints
for) `score_facts` returns None and the explorer says the check was not made.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from arbitro.model.family import family_of_rules
from arbitro.model.schema import EscobaRules, RummyRules
from arbitro.proofs.verdict import NotEncoded, Result, Verdict

TIMEOUT = 20.0
"""Seconds the solver gets for each optimum; a timeout leaves that fact unproved (None)."""


@dataclass(frozen=True)
class ProvedScores:
    """A side's hand score as proved: bounds, and (Escoba) the admitted totals."""

    rulebook: str
    low_high: tuple[int, int] | None
    admitted: frozenset[int] | None

    def bounds(self) -> tuple[int, int] | None:
        return self.low_high

    def reachable(self) -> frozenset[int] | None:
        return self.admitted


def from_result(result: Result) -> ProvedScores:
    """The proved part of a score-bounds result: nothing from a result that is not PROVED."""
    low_high: tuple[int, int] | None = None
    admitted: frozenset[int] | None = None
    if result.verdict is Verdict.PROVED:
        lo, hi = result.values["bounds"]["total"]
        if lo is not None and hi is not None:
            low_high = (int(lo), int(hi))
            totals = result.values.get("admitted_totals")
            # only a range whose every total came out sat is known exactly: a total the solver
            # left undecided would otherwise read as impossible
            if totals is not None and len(totals) == hi - lo + 1:
                admitted = frozenset(int(t) for t in totals)
    return ProvedScores(result.rulebook, low_high, admitted)


def with_most(rules: EscobaRules, facts: ProvedScores) -> ProvedScores:
    """Escoba's greatest hand score cut down to what play reaches: the categories' points and
    the most escobas a side makes in a hand of each of the rules' seatings, an exhausted search
    over the relation's plays (`proofs/escoba/hand_scores.py`). The score encoding alone counts
    escobas by an upper bound (one per card a side plays), which play does not reach; without
    the cut an engine scoring too many escobas would pass the check."""
    from arbitro.proofs.escoba import hand_scores

    if facts.low_high is None:
        return facts
    try:
        tops = []
        for players, sides in hand_scores.seatings_of(rules):
            most = hand_scores.most_escobas(rules, players, sides)
            if not most.proved:
                return facts
            tops.append(hand_scores.category_most(rules) + rules.escoba_points * most.value)
    except NotEncoded:
        return facts
    lo, hi = facts.low_high
    hi = min(hi, max(tops))
    admitted = facts.admitted
    if admitted is not None:
        admitted = frozenset(t for t in admitted if t <= hi)
    return ProvedScores(facts.rulebook, (lo, hi), admitted)


def _escoba_facts(rules: EscobaRules) -> ProvedScores:
    from arbitro.proofs.escoba import scoring

    return with_most(rules, from_result(scoring.bounds(rules, TIMEOUT)))


def _rummy_facts(rules: RummyRules) -> ProvedScores:
    from arbitro.proofs.rummy import scoring

    return from_result(scoring.bounds(rules, TIMEOUT))


FACTS: dict[str, Callable[[Any], ProvedScores]] = {"escoba": _escoba_facts, "rummy": _rummy_facts}
"""Each game family's (`GameFamily.name`) proved score facts, from its score encoding."""


@lru_cache(maxsize=16)
def score_facts(rules: Any) -> ProvedScores | None:
    """The proved facts about a side's hand score under these rules, or None when the encodings
    do not cover them."""
    try:
        return FACTS[family_of_rules(rules).name](rules)
    except NotEncoded:
        return None
