"""Constraints with their provenance: every fact of an encoding names the clause it comes from.

A `Fact` is a boolean term and the clause id (``samba-en:wild-cap``) whose rule it states, with a
few words saying which part of the rule. Facts that state no rule of the book — that a count is not
negative, how a meld is read off its cards — carry a `STRUCTURE` tag instead; the solver asserts
them outright, while clause facts are assumptions it can name in an unsat core.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from arbitro.proofs.terms import BoolTerm, Evaluator, Value, all_of, variables

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
        self.names = tuple(names)
        # one value per name, unpacked at once: the usual call (another number of values goes
        # through an evaluator that reads them one by one, built when first needed)
        self.evaluator = Evaluator([f.term for f in self.facts], names, exact=True)
        self._loose: Evaluator | None = None

    def _values(self, values: Sequence[Value]) -> tuple[Value, ...]:
        if len(values) == len(self.names):
            return self.evaluator(values)
        if self._loose is None:
            self._loose = Evaluator([f.term for f in self.facts], self.names)
        return self._loose(values)

    def failing(self, values: Sequence[Value]) -> list[Fact]:
        got = self._values(values)
        return [f for f, ok in zip(self.facts, got, strict=True) if not ok]

    def holds(self, values: Sequence[Value]) -> bool:
        return all(self._values(values))


class _Group:
    """Facts that read the same slots: compiled together (one argument per slot), their
    failures remembered by the slots' values — the last ones, compared first (often the very
    same objects); then by the slots' identities (an entry keeps its objects alive, so an
    identity found there is of the same object); any other value is evaluated."""

    __slots__ = ("bits", "byid", "fn", "key", "last", "one", "used", "which")

    def __init__(
        self, used: tuple[int, ...], which: tuple[int, ...], fn: Callable[..., Any]
    ) -> None:
        self.used = used
        self.which = which
        self.fn = fn
        self.one = used[0] if len(used) == 1 else -1  # the slot of a group of one slot
        self.key: Callable[[Sequence[Any]], Any] = (
            operator.itemgetter(*used) if len(used) > 1 else _no_key
        )
        # a group of no slot is evaluated at the first call, when every slot is new
        self.bits = sum(1 << i for i in used) or -1
        self.last: tuple[int, ...] = ()
        self.byid: dict[Any, tuple[Any, tuple[int, ...]]] = {}


def _no_key(values: Sequence[Any]) -> tuple[()]:
    return ()


_UNSEEN = object()
"""No value: the last values of a checker not called yet."""


class SlotChecker:
    """Facts whose unknowns are read in *slots* (a zone's count per card kind, or one scalar),
    evaluated on concrete values a group at a time and remembered: the facts that read the same
    vector slots form a group (with the scalars they read), compiled on its own, and a group's failing facts are kept by the values
    of its slots. A refiner checks many steps whose zones mostly repeat (every successor of a
    state has the same state before, most zones of a step are unchanged), so most groups are
    answered from memory; every fact is still evaluated on every value it has not met.

    `slots[i]` names the unknowns of slot i; `failing(values)` takes one value per slot: a tuple
    of ints for a slot of several unknowns, an int (or bool) for a slot of one."""

    MEMORY = 1 << 15
    """Values remembered per group (then forgotten at once: a long walk meets new ones)."""

    def __init__(self, facts: Sequence[Fact], slots: Sequence[Sequence[str]]) -> None:
        self.facts = tuple(facts)
        self.slots = tuple(tuple(s) for s in slots)
        where = {name: i for i, names in enumerate(self.slots) for name in names}
        # grouped by the slots of several unknowns (vectors) they read, the scalars they read
        # joining the group: a group is a step of Python whatever its size, and a scalar
        # (a count of sets, a seat) changes more rarely than the vectors it is read with
        grouped: dict[tuple[int, ...], list[int]] = {}
        reads: dict[tuple[int, ...], set[int]] = {}
        for j, f in enumerate(self.facts):
            read = {where[v.name] for v in variables((f.term,))}
            vectors = tuple(sorted(i for i in read if len(self.slots[i]) > 1))
            grouped.setdefault(vectors, []).append(j)
            reads.setdefault(vectors, set()).update(read)
        self.groups: list[_Group] = []
        for by, which in grouped.items():
            used = tuple(sorted(reads[by]))
            names = [n for i in used for n in self.slots[i]]
            sizes = [len(self.slots[i]) for i in used]
            ev = Evaluator([self.facts[j].term for j in which], names, slots=sizes)
            self.groups.append(_Group(used, tuple(which), ev.fn))
        self.last: tuple[Any, ...] = (_UNSEEN,) * len(self.slots)
        self._bits = tuple(1 << i for i in range(len(self.slots)))

    def failing_at(self, values: Sequence[Any]) -> list[int]:
        """The places (in `facts`) of the facts that do not hold, in order."""
        # the slots whose value is not the very object of the last call (a state's zones are
        # read once for all its successors and candidates, a pile's counts are shared): the
        # groups reading none of them answer as they did
        values = tuple(values)
        if len(values) != len(self.slots):
            raise ValueError(f"{len(values)} values for {len(self.slots)} slots")
        changed = sum(itertools.compress(self._bits, map(operator.is_not, values, self.last)))
        self.last = values
        bad: list[int] = []
        for g in self.groups:
            if changed & g.bits:
                one = g.one
                if one >= 0:
                    v = values[one]
                    ident: Any = id(v)
                else:
                    v = g.key(values)
                    ident = tuple(map(id, v))
                hit = g.byid.get(ident)
                if hit is not None:
                    got = hit[1]
                else:
                    # (remembered by identity only: a value met again in another object was
                    # about one evaluation in twenty, not worth hashing every value twice)
                    out = g.fn(v) if one >= 0 else g.fn(*v)
                    got = (
                        ()
                        if all(out)
                        else tuple(itertools.compress(g.which, map(operator.not_, out)))
                    )
                    if len(g.byid) >= self.MEMORY:
                        g.byid.clear()
                    g.byid[ident] = (v, got)
                g.last = got
            else:
                got = g.last
            if got:
                bad += got
        bad.sort()
        return bad

    def failing(self, values: Sequence[Any]) -> list[Fact]:
        return [self.facts[j] for j in self.failing_at(values)]

    def holds(self, values: Sequence[Any]) -> bool:
        return not self.failing_at(values)


__all__ = ["STRUCTURE", "Fact", "FactChecker", "Facts", "SlotChecker", "structure"]
