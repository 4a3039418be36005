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

import importlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from arbitro.model.family import family_of_rules
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


SCORING = {"escoba": "arbitro.proofs.escoba.scoring", "rummy": "arbitro.proofs.rummy.scoring"}
"""Each game family's (`GameFamily.name`) score encoding: a module with `bounds(rules, timeout)`
(imported when first asked for)."""


@lru_cache(maxsize=16)
def score_facts(rules: Any) -> ProvedScores | None:
    """The proved facts about a side's hand score under these rules, or None when the encodings
    do not cover them."""
    scoring = importlib.import_module(SCORING[family_of_rules(rules).name])
    try:
        return from_result(scoring.bounds(rules, TIMEOUT))
    except NotEncoded:
        return None
