"""Every property `arbitro prove` checks, per game, in the order they run.

A property is a function of a rules object (`RummyRules` or `EscobaRules`, as
`arbitro.model.schema.rules_for` builds it for a rulebook and options), a per-query timeout, and
the results of the properties before it for the same rules; it returns a `Result`. The encodings
read the rules' fields only, never the rulebook's name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from arbitro.model.family import family_of_rules
from arbitro.model.schema import EscobaRules, RummyRules
from arbitro.proofs.verdict import Result, Verdict

Run = Callable[[Any, float, Mapping[str, Result]], Result]


@dataclass(frozen=True)
class Property:
    name: str
    family: str  # "rummy" (Samba, Canasta) or "escoba"
    statement: str
    run: Run
    default: bool = True
    """Whether `arbitro prove` runs it without `--property` (a dear proof is asked for by name)."""


def _rummy_conservation(rules: RummyRules, timeout: float, _: Mapping[str, Result]) -> Result:
    from arbitro.proofs.rummy import conservation

    return conservation.run(rules, timeout)


def _meld_caps(rules: RummyRules, timeout: float, _: Mapping[str, Result]) -> Result:
    from arbitro.proofs.rummy import meld_caps

    return meld_caps.run(rules, timeout)


def _book_figures(rules: RummyRules, timeout: float, _: Mapping[str, Result]) -> Result:
    from arbitro.proofs.rummy import book_figures

    return book_figures.run(rules, timeout)


def _score_bounds(rules: RummyRules, timeout: float, _: Mapping[str, Result]) -> Result:
    from arbitro.proofs.rummy import scoring

    return scoring.bounds(rules, timeout)


def _score_step(rules: RummyRules, timeout: float, _: Mapping[str, Result]) -> Result:
    from arbitro.proofs.rummy import scoring

    return scoring.step(rules, timeout)


def _opening_table(rules: RummyRules, timeout: float, before: Mapping[str, Result]) -> Result:
    from arbitro.proofs.rummy import opening

    step = before.get("score-step")
    unit = 1
    if step is not None and step.verdict is Verdict.PROVED:
        unit = int(step.values.get("unit", 1))
    return opening.run(rules, timeout, step=unit)


def _escoba_conservation(rules: EscobaRules, timeout: float, _: Mapping[str, Result]) -> Result:
    from arbitro.proofs.escoba import invariants

    return invariants.conservation(rules, timeout)


def _table_rest(rules: EscobaRules, timeout: float, _: Mapping[str, Result]) -> Result:
    from arbitro.proofs.escoba import table_rest

    return table_rest.run(rules, timeout)


def _table_ceiling(rules: EscobaRules, timeout: float, _: Mapping[str, Result]) -> Result:
    from arbitro.proofs.escoba import table_rest

    return table_rest.run(rules, timeout, ceiling=True)


def _escoba_bounds(rules: EscobaRules, timeout: float, _: Mapping[str, Result]) -> Result:
    from arbitro.proofs.escoba import scoring

    return scoring.score_bounds(rules, timeout, solver=True)


def _hand_scores(rules: EscobaRules, timeout: float, _: Mapping[str, Result]) -> Result:
    from arbitro.proofs.escoba import hand_scores

    return hand_scores.run(rules, timeout)


def _most_escobas(rules: EscobaRules, timeout: float, _: Mapping[str, Result]) -> Result:
    from arbitro.proofs.escoba import hand_scores

    return hand_scores.run(rules, timeout, solver=True)


def _book_numbers(rules: EscobaRules, timeout: float, _: Mapping[str, Result]) -> Result:
    from arbitro.proofs.escoba import book_numbers

    return book_numbers.run(rules, timeout)


def _deal_arithmetic(rules: EscobaRules, timeout: float, _: Mapping[str, Result]) -> Result:
    from arbitro.proofs.escoba import scoring

    return scoring.deal_arithmetic(rules, timeout)


PROPERTIES: tuple[Property, ...] = (
    Property(
        "conservation",
        "rummy",
        "every atomic move and every deal keeps each card kind's total over all zones",
        _rummy_conservation,
    ),
    Property(
        "meld-caps",
        "rummy",
        "every meld laid or grown by admitted moves keeps the wild limits and sizes",
        _meld_caps,
    ),
    Property(
        "book-figures",
        "rummy",
        "every meld the moves build keeps the numbers the book writes out, and every meld "
        "within them is built",
        _book_figures,
    ),
    Property(
        "score-bounds",
        "rummy",
        "each scoring category keeps its sign; least and greatest hand scores, proved",
        _score_bounds,
    ),
    Property(
        "score-step",
        "rummy",
        "every hand score is a multiple of the unit cards are counted in",
        _score_step,
    ),
    Property(
        "opening-table",
        "rummy",
        "every running total a hand can start from has exactly one opening minimum",
        _opening_table,
    ),
    Property(
        "conservation",
        "escoba",
        "every card in exactly one place after the deal and every step of the guarded relation "
        "(an inductive invariant), the stock holding what the deals to come need",
        _escoba_conservation,
    ),
    Property(
        "table-rest",
        "escoba",
        "what is left on the table at the end is the pack's total less a multiple of the "
        "capture sum, and at most what forced capture allows",
        _table_rest,
    ),
    Property(
        "score-bounds",
        "escoba",
        "no category is negative; each category's least and greatest values, proved; a side's "
        "hand score per seating: none above the most (unsat on the guarded relation), each up "
        "to it played by a replayed hand",
        _escoba_bounds,
    ),
    Property(
        "hand-scores",
        "escoba",
        "for every seating, the exact set of a side's hand scores: the most escobas from an "
        "exhausted search over the guarded relation's plays, and a replayed hand for every score "
        "up to the most (not run by default: --property hand-scores; most-escobas proves the "
        "same most unsat on the relation)",
        _hand_scores,
        default=False,
    ),
    Property(
        "table-ceiling",
        "escoba",
        "table-rest with its ceiling proved on the guarded relation too: no group worth the "
        "capture sum on the table holds a card laid in play (an inductive invariant), so the "
        "hand's last play leaves no more than the ceiling (not run by default: --property "
        "table-ceiling)",
        _table_ceiling,
        default=False,
    ),
    Property(
        "most-escobas",
        "escoba",
        "for every seating, the exact set of a side's hand scores: the most escobas unsat above "
        "on the guarded relation (an inductive invariant over its steps), and a replayed hand for "
        "every score up to the most",
        _most_escobas,
    ),
    Property(
        "book-numbers",
        "escoba",
        "the numbers the book's text states (a capture's total, each point's value) hold of the "
        "guarded relation and the score encoding built from the rules",
        _book_numbers,
    ),
    Property(
        "deal-arithmetic",
        "escoba",
        "for every player count the deals of a hand use the pack exactly",
        _deal_arithmetic,
    ),
)


def family(rules: object) -> str:
    """Which family of properties applies to a rules object (the registry's name for it)."""
    return family_of_rules(rules).name


def for_family(name: str) -> list[Property]:
    return [p for p in PROPERTIES if p.family == name]


def names(default: bool = False) -> list[str]:
    """Every property name, each once, in order (`default`: only those run without
    `--property`)."""
    out: dict[str, None] = {}
    for p in PROPERTIES:
        if p.default or not default:
            out.setdefault(p.name)
    return list(out)


__all__ = ["PROPERTIES", "Property", "family", "for_family", "names"]
