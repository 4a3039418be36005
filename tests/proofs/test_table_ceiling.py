"""`table-ceiling`: the most an Escoba hand leaves on the table, proved on the guarded relation.

FREE (`proofs/escoba/table_rest.py`): at most the opening table's four cards are set apart, and
every group of table cards worth 15 is made of those alone — a card laid in play never completes
a group worth 15, or it would have had to capture it (*Captura*: a player who can capture must).
The expected ceiling, 115, is what a kept hand leaves on the table, replayed through the engine
here; asked to stay at 100, the end steps are not unsat (the claim can fail). A relation
without forced capture breaks FREE at a lay: REFUTED.
"""

from __future__ import annotations

import dataclasses

import pytest

from arbitro.model.schema import EscobaRules, rules_for
from arbitro.proofs.escoba import relation as R
from arbitro.proofs.escoba import search
from arbitro.proofs.escoba import table_rest as TR
from arbitro.proofs.terms import Int
from arbitro.proofs.verdict import Check, Verdict

BOOK = rules_for("escoba-es")
assert isinstance(BOOK, EscobaRules)
T = 600.0
VALUES = sorted(set(BOOK.capture_values))
GHOST = {v: Int(f"{TR.GHOST} {v}") for v in VALUES}


def _lay(rules: EscobaRules | None) -> list[Check]:
    vals = R.values(BOOK)
    return TR.ceiling_step(BOOK, R.Seating(2, 2), "lay", "pass", 115, GHOST, vals, T, rules)


def test_a_card_laid_never_completes_a_group_of_fifteen_and_without_forced_capture_it_can() -> None:
    (ok,) = _lay(None)
    assert ok.verdict is Verdict.PROVED
    (bad,) = _lay(dataclasses.replace(BOOK, capture_forced=False))
    assert bad.verdict is Verdict.REFUTED and bad.witness is not None
    data = bad.witness.data
    assert data["taken"] == []  # a lay, onto a table where its card completes a group of 15


@pytest.mark.slow
def test_the_ceiling_is_what_a_kept_hand_leaves_and_no_more() -> None:
    left = max(search.replay(BOOK, h) for h in search.stored())
    assert left == 115
    checks = TR.ceiling_checks(BOOK, left, T)
    assert all(c.verdict is Verdict.PROVED for c in checks), [c.name for c in checks]
    lower = [c for c in TR.ceiling_checks(BOOK, left - 15, T) if c.name.startswith("ceiling/")]
    assert any(c.verdict is Verdict.UNKNOWN for c in lower)
