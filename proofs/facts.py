"""Constraints with their provenance: every fact of an encoding names the clause it comes from.

A `Fact` is a boolean term and the clause id (``samba-en:wild-cap``) whose rule it states, with a
few words saying which part of the rule. Facts that state no rule of the book — that a count is not
negative, how a meld is read off its cards — carry a `STRUCTURE` tag instead; the solver asserts
them outright, while clause facts are assumptions it can name in an unsat core.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from arbitro.proofs.terms import BoolTerm, Evaluator, Value, all_of

STRUCTURE = "structure"
"""The tag of facts that are definitions or well-formedness, not rules of a book."""


@dataclass(frozen=True)
class Fact:
    """One constraint, the clause it states, and which part of the clause (for messages)."""

    clause: str
    term: BoolTerm
    note: str = ""

    @property
    def is_rule(self) -> bool:
        """Whether the fact states a clause of a book (and may appear in an unsat core)."""
        return self.clause != STRUCTURE


def structure(term: BoolTerm, note: str = "") -> Fact:
    return Fact(STRUCTURE, term, note)


class Facts:
    """An ordered collection of facts, grown by encoders."""

    def __init__(self, items: Iterable[Fact] = ()) -> None:
        self.items: list[Fact] = list(items)

    def add(self, clause: str, term: BoolTerm | bool, note: str = "") -> None:
        t = all_of((term,))
        self.items.append(Fact(clause, t, note))

    def given(self, term: BoolTerm | bool, note: str = "") -> None:
        """A structural fact (definition or well-formedness)."""
        self.add(STRUCTURE, term, note)

    def extend(self, more: Iterable[Fact]) -> None:
        self.items.extend(more)

    def __iter__(self) -> Iterator[Fact]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def clauses(self) -> list[str]:
        """The clause ids the facts state, each once, in order."""
        out: dict[str, None] = {}
        for f in self.items:
            if f.is_rule:
                out.setdefault(f.clause)
        return list(out)

    def conjunction(self) -> BoolTerm:
        return all_of(f.term for f in self.items)


class FactChecker:
    """Evaluates facts on concrete values and names the ones that fail (refinement tests)."""

    def __init__(self, facts: Sequence[Fact], names: Sequence[str]) -> None:
        self.facts = tuple(facts)
        self.evaluator = Evaluator([f.term for f in self.facts], names)

    def failing(self, values: Sequence[Value]) -> list[Fact]:
        got = self.evaluator(values)
        return [f for f, ok in zip(self.facts, got, strict=True) if not ok]

    def holds(self, values: Sequence[Value]) -> bool:
        return all(self.evaluator(values))


__all__ = ["STRUCTURE", "Fact", "FactChecker", "Facts", "structure"]
