"""Property `opening-table`: every side score a hand can start from has exactly one opening minimum.

The book's table (*:opening-minimums) gives a minimum per band of scores. A side starts a hand
from any running total that is a multiple of the score step (every hand score is one, see
`score-step`), negative totals included, below the target — and at or past it too when two
sides level at the top play on (*:target-score, *:target-rule, *:target-tie). The solver looks
for a total that no band covers, or that two bands with different minimums cover.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from arbitro.model.schema import RummyRules
from arbitro.proofs.facts import Facts
from arbitro.proofs.terms import BoolTerm, Int, Value, all_of, any_of, blift, count, implies
from arbitro.proofs.verdict import Result, Witness, prove

NAME = "opening-table"
STATEMENT = "every running total a side can start a hand from has exactly one opening minimum"


def run(rules: RummyRules, timeout: float, step: int = 1) -> Result:
    started = time.perf_counter()
    r = rules
    s = Int("side score")
    f = Facts()
    f.given((s % step).eq(0), f"running totals are multiples of {step}")
    target = r.target_score
    over = s >= target if r.target_rule == "reach" else s > target
    f.add(
        r.cid("target_tie"),
        implies(over, r.target_tie == "play_on"),
        "a side at or past the target starts a hand only when the top is level and play goes on",
    )
    inside: list[BoolTerm] = []
    for b in r.opening_minimums:
        conds: list[BoolTerm] = []
        if b.low is not None:
            conds.append(s >= b.low)
        if b.high is not None:
            conds.append(s <= b.high)
        inside.append(all_of(conds))
    # a total past the table takes opening_minimum_past_table, when the spec gives one
    covered = count(inside) >= 1 if r.opening_minimum_past_table < 0 else blift(True)
    clash = any_of(
        all_of((inside[i], inside[j]))
        for i in range(len(inside))
        for j in range(i + 1, len(inside))
        if r.opening_minimums[i].minimum != r.opening_minimums[j].minimum
    )
    tables = Facts()
    tables.add(r.cid("opening_minimums"), covered, "some row covers the total")
    tables.add(r.cid("opening_minimums"), ~clash, "rows that cover it agree")

    def decode(v: Mapping[str, Value]) -> Witness:
        score = int(v["side score"])
        rows = [
            b.minimum
            for b in r.opening_minimums
            if (b.low is None or score >= b.low) and (b.high is None or score <= b.high)
        ]
        past = score >= target if r.target_rule == "reach" else score > target
        where = " (both sides level at the top, so play goes on)" if past else ""
        text = (
            f"a side on {score}{where} has no opening minimum"
            if not rows
            else f"a side on {score} falls in rows with minimums {', '.join(map(str, rows))}"
        )
        return Witness(text, {"side_score": score, "minimums": rows})

    check = prove("table", STATEMENT, f.items, tables.items, decode, timeout)
    summary = "every total has one minimum" if check.witness is None else check.witness.text
    return Result(NAME, r.rulebook, {}, STATEMENT, (check,), summary, time.perf_counter() - started)


__all__ = ["NAME", "STATEMENT", "run"]
