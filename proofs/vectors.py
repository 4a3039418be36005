"""Piles of cards as count vectors: one integer term per card kind.

A pile of indistinguishable copies is a multiset, so a symbolic pile is one count per card kind;
moving cards is adding and subtracting vectors. Used by both games' encodings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence

from arbitro.proofs.terms import BoolTerm, IntTerm, Value, all_of, const, lift, total, weighted


class Vec(Sequence[IntTerm]):
    """A vector of integer terms indexed by card kind."""

    __slots__ = ("items",)

    def __init__(self, items: Iterable[IntTerm | int]) -> None:
        self.items: tuple[IntTerm, ...] = tuple(lift(x) for x in items)

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[IntTerm]:
        return iter(self.items)

    def __getitem__(self, i: int) -> IntTerm:  # type: ignore[override]
        return self.items[i]

    def __add__(self, other: Vec) -> Vec:
        _same(self, other)
        return Vec(a + b for a, b in zip(self.items, other.items, strict=True))

    def __sub__(self, other: Vec) -> Vec:
        _same(self, other)
        return Vec(a - b for a, b in zip(self.items, other.items, strict=True))

    def size(self) -> IntTerm:
        return total(self.items)

    def over(self, kinds: Iterable[int]) -> IntTerm:
        """The number of cards of these kinds."""
        return total(self.items[k] for k in kinds)

    def points(self, table: Sequence[int]) -> IntTerm:
        """The card points of the pile, given each kind's points."""
        return weighted((p, x) for p, x in zip(table, self.items, strict=True) if p)

    def eq(self, other: Vec) -> BoolTerm:
        _same(self, other)
        return all_of(a.eq(b) for a, b in zip(self.items, other.items, strict=True))

    def le(self, other: Sequence[IntTerm | int]) -> BoolTerm:
        """Componentwise at most (a sub-multiset)."""
        return all_of(a <= b for a, b in zip(self.items, other, strict=True))

    def nonneg(self) -> BoolTerm:
        return all_of(a >= 0 for a in self.items)

    def zero(self) -> BoolTerm:
        return all_of(a.eq(0) for a in self.items)


def _same(a: Vec, b: Vec) -> None:
    if len(a) != len(b):
        raise ValueError(f"vectors of {len(a)} and {len(b)} card kinds")


def unknowns(prefix: str, kinds: int) -> Vec:
    """A vector of fresh unknowns named ``prefix[k]``."""
    from arbitro.proofs.terms import Int

    return Vec(Int(f"{prefix}[{k}]") for k in range(kinds))


def zeros(kinds: int) -> Vec:
    return Vec(const(0) for _ in range(kinds))


def concrete(counts: Sequence[int]) -> Vec:
    return Vec(const(c) for c in counts)


def names_of(prefix: str, kinds: int) -> list[str]:
    """The unknown names `unknowns(prefix, kinds)` uses, in kind order."""
    return [f"{prefix}[{k}]" for k in range(kinds)]


def read(values: Mapping[str, Value], prefix: str, kinds: int) -> list[int]:
    """The counts of a vector of unknowns in a solver's assignment."""
    return [int(values.get(f"{prefix}[{k}]", 0)) for k in range(kinds)]


__all__ = ["Vec", "concrete", "names_of", "read", "unknowns", "zeros"]
