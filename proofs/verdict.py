"""Verdicts and the records a property check returns.

A verdict is one of three words and never anything else:

- `PROVED`: the solver found the negation of the statement unsatisfiable under the encoding;
- `REFUTED`: the solver (or a search) found a concrete counterexample, given as a witness in the
  book's own terms;
- `UNKNOWN`: no answer — a timeout, the solver giving up, or a part of the rules the encoding does
  not cover (`reason` says which).

A proof is about the encoding; the refinement tests (tests/proofs/) tie the encoding to the model.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from arbitro.proofs import smt
from arbitro.proofs.facts import Fact
from arbitro.proofs.terms import BoolTerm, Value, all_of


class Verdict(StrEnum):
    PROVED = "PROVED"
    REFUTED = "REFUTED"
    UNKNOWN = "UNKNOWN"


@dataclass(frozen=True)
class Witness:
    """A counterexample or an extreme case: a one-line summary and the data, both in book terms."""

    text: str
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Check:
    """One statement, checked once.

    `core` is the minimal set of clauses the proof rests on (those that together rule out every
    counterexample); when `vacuous`, the statement's premises cannot hold at all and `core` names
    the clauses that clash. `values` holds computed numbers (bounds, steps) for reports.
    """

    name: str
    statement: str
    verdict: Verdict
    seconds: float
    witness: Witness | None = None
    core: tuple[str, ...] = ()
    vacuous: bool = False
    reason: str = ""
    values: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "statement": self.statement,
            "verdict": self.verdict.value,
            "seconds": round(self.seconds, 3),
        }
        if self.witness is not None:
            out["witness"] = {"text": self.witness.text, **dict(self.witness.data)}
        if self.core:
            out["core"] = list(self.core)
        if self.vacuous:
            out["vacuous"] = True
        if self.reason:
            out["reason"] = self.reason
        if self.values:
            out["values"] = dict(self.values)
        return out


def combine(verdicts: Sequence[Verdict]) -> Verdict:
    """A statement made of parts: refuted if any part is, unknown if any is, else proved."""
    if Verdict.REFUTED in verdicts:
        return Verdict.REFUTED
    if Verdict.UNKNOWN in verdicts or not verdicts:
        return Verdict.UNKNOWN
    return Verdict.PROVED


@dataclass(frozen=True)
class Result:
    """A property of one rulebook under one set of options."""

    name: str
    rulebook: str
    options: Mapping[str, str | bool]
    statement: str
    checks: tuple[Check, ...]
    summary: str
    seconds: float
    values: Mapping[str, Any] = field(default_factory=dict)
    cached: bool = False

    @property
    def verdict(self) -> Verdict:
        return combine([c.verdict for c in self.checks])

    def failing(self) -> list[Check]:
        """The checks that are not PROVED (refuted first)."""
        bad = [c for c in self.checks if c.verdict is not Verdict.PROVED]
        return sorted(bad, key=lambda c: c.verdict is not Verdict.REFUTED)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "property": self.name,
            "rulebook": self.rulebook,
            "options": dict(self.options),
            "verdict": self.verdict.value,
            "statement": self.statement,
            "summary": self.summary,
            "seconds": round(self.seconds, 3),
            "checks": [c.to_json() for c in self.checks],
        }
        if self.values:
            out["values"] = dict(self.values)
        return out


Decode = Callable[[Mapping[str, Value]], Witness]


def prove(
    name: str,
    statement: str,
    facts: Sequence[Fact],
    claim: BoolTerm | Sequence[Fact],
    decode: Decode,
    timeout: float,
    values: Mapping[str, Any] | None = None,
    premises: Sequence[Fact] | None = None,
    minimise: bool = True,
) -> Check:
    """Check that every assignment satisfying `facts` satisfies `claim`.

    PROVED when facts and not-claim are unsatisfiable; then the premises alone are checked too
    (`premises` when given — a superset of `facts`, such as a move's guards with its effects),
    and if they cannot hold the check is marked vacuous with the clauses that clash (a minimised
    core; `minimise=False` leaves a proof's own core as the solver gives it). REFUTED with
    the decoded assignment when facts and not-claim are satisfiable. UNKNOWN otherwise.
    """
    started = time.perf_counter()
    target = claim if isinstance(claim, BoolTerm) else all_of(f.term for f in claim)
    if premises is None:
        out, after = smt.check_claim(facts, target, timeout=timeout, minimise=minimise)
    else:
        out = smt.check(facts, [~target], timeout=timeout)
        after = None
        if out.status == "unsat":
            after = smt.check(premises, timeout=timeout, values=False)
    if out.status == "sat":
        return Check(
            name,
            statement,
            Verdict.REFUTED,
            time.perf_counter() - started,
            witness=decode(out.values),
            values=values or {},
        )
    if out.status == "unknown":
        return Check(
            name,
            statement,
            Verdict.UNKNOWN,
            time.perf_counter() - started,
            reason=out.reason,
            values=values or {},
        )
    vacuous = after is not None and after.status == "unsat"
    return Check(
        name,
        statement,
        Verdict.PROVED,
        time.perf_counter() - started,
        core=after.core if vacuous and after is not None else out.core,
        vacuous=vacuous,
        values=values or {},
    )


def end_text(value: int | None, proved: bool) -> str:
    """One end of a range for a report: the number when proved; otherwise no bound is stated, only
    the best value found so far, said to be unproved."""
    if proved and value is not None:
        return str(value)
    if value is None:
        return "? (no value found)"
    return f"? (best found so far: {value}, not proved)"


def range_text(pair: Sequence[int | None], proved: Sequence[bool]) -> str:
    """`lo to hi`, each end as `end_text` gives it."""
    return f"{end_text(pair[0], proved[0])} to {end_text(pair[1], proved[1])}"


class NotEncoded(Exception):
    """An encoder met a rule value it has no constraints for; the property is then UNKNOWN."""

    def __init__(self, field: str, value: object) -> None:
        self.field = field
        self.value = value
        super().__init__(f"{field} = {value!r}")


def known(field: str, value: object, allowed: tuple[object, ...]) -> None:
    """Raise NotEncoded unless `value` is one the encoder handles."""
    if value not in allowed:
        raise NotEncoded(field, value)


def not_covered(name: str, statement: str, what: str) -> Check:
    """UNKNOWN because the encoding does not cover a part of the rules (named in `what`)."""
    return Check(name, statement, Verdict.UNKNOWN, 0.0, reason=f"not encoded: {what}")


__all__ = [
    "Check",
    "Decode",
    "NotEncoded",
    "Result",
    "Verdict",
    "Witness",
    "combine",
    "end_text",
    "known",
    "not_covered",
    "prove",
    "range_text",
]
