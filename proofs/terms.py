"""A small typed language of integer and boolean terms, in which every rule encoding is written.

Encodings never touch the solver: they build these terms, which `arbitro.proofs.smt` hands to Z3
and `Evaluator` runs as compiled Python on concrete values (the refinement tests run the very
constraints the proofs are about against the model, millions of times, without a solver call).

Terms are immutable trees compared by identity; a term used in several places is one object, so
both back ends translate it once. Arithmetic is linear integer arithmetic plus if-then-else and the
remainder by a constant. Equality is spelled `a.eq(b)` (``==`` keeps its Python meaning).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import CodeType
from typing import Any, Union

Value = int | bool
IntLike = Union["IntTerm", int]


class Term:
    """A term of either sort."""

    __slots__ = ()


class IntTerm(Term):
    """An integer-valued term; `+`, `-`, `*` by a constant and comparisons build new terms."""

    __slots__ = ()

    def __add__(self, other: IntLike) -> IntTerm:
        return add(self, other)

    def __radd__(self, other: int) -> IntTerm:
        return add(other, self)

    def __sub__(self, other: IntLike) -> IntTerm:
        return add(self, scale(-1, other))

    def __rsub__(self, other: int) -> IntTerm:
        return add(other, scale(-1, self))

    def __neg__(self) -> IntTerm:
        return scale(-1, self)

    def __mul__(self, k: int) -> IntTerm:
        return scale(k, self)

    def __rmul__(self, k: int) -> IntTerm:
        return scale(k, self)

    def __mod__(self, k: int) -> IntTerm:
        if k <= 0:
            raise ValueError(f"a remainder is taken by a positive constant, got {k}")
        return Mod(self, k)

    def __le__(self, other: IntLike) -> BoolTerm:
        return compare("<=", self, other)

    def __lt__(self, other: IntLike) -> BoolTerm:
        return compare("<", self, other)

    def __ge__(self, other: IntLike) -> BoolTerm:
        return compare(">=", self, other)

    def __gt__(self, other: IntLike) -> BoolTerm:
        return compare(">", self, other)

    def eq(self, other: IntLike) -> BoolTerm:
        return compare("==", self, other)

    def ne(self, other: IntLike) -> BoolTerm:
        return compare("!=", self, other)


class BoolTerm(Term):
    """A boolean-valued term; `&`, `|` and `~` build new terms."""

    __slots__ = ()

    def __and__(self, other: BoolTerm | bool) -> BoolTerm:
        return all_of((self, blift(other)))

    def __rand__(self, other: bool) -> BoolTerm:
        return all_of((blift(other), self))

    def __or__(self, other: BoolTerm | bool) -> BoolTerm:
        return any_of((self, blift(other)))

    def __ror__(self, other: bool) -> BoolTerm:
        return any_of((blift(other), self))

    def __invert__(self) -> BoolTerm:
        if isinstance(self, BConst):
            return BConst(not self.value)
        if isinstance(self, Not):
            return self.item
        return Not(self)


@dataclass(frozen=True, eq=False, slots=True)
class IVar(IntTerm):
    name: str


@dataclass(frozen=True, eq=False, slots=True)
class IConst(IntTerm):
    value: int


@dataclass(frozen=True, eq=False, slots=True)
class Linear(IntTerm):
    """``const + sum(coef * term)``."""

    items: tuple[tuple[IntTerm, int], ...]
    const: int


@dataclass(frozen=True, eq=False, slots=True)
class Ite(IntTerm):
    cond: BoolTerm
    then: IntTerm
    other: IntTerm


@dataclass(frozen=True, eq=False, slots=True)
class Mod(IntTerm):
    """The remainder of `item` by the positive constant `k`, always in ``0 .. k-1``."""

    item: IntTerm
    k: int


@dataclass(frozen=True, eq=False, slots=True)
class BVar(BoolTerm):
    name: str


@dataclass(frozen=True, eq=False, slots=True)
class BConst(BoolTerm):
    value: bool


@dataclass(frozen=True, eq=False, slots=True)
class Cmp(BoolTerm):
    op: str  # "<=", "<", ">=", ">", "==", "!="
    left: IntTerm
    right: IntTerm


@dataclass(frozen=True, eq=False, slots=True)
class And(BoolTerm):
    items: tuple[BoolTerm, ...]


@dataclass(frozen=True, eq=False, slots=True)
class Or(BoolTerm):
    items: tuple[BoolTerm, ...]


@dataclass(frozen=True, eq=False, slots=True)
class Not(BoolTerm):
    item: BoolTerm


@dataclass(frozen=True, eq=False, slots=True)
class Implies(BoolTerm):
    cond: BoolTerm
    then: BoolTerm


TRUE = BConst(True)
FALSE = BConst(False)
ZERO = IConst(0)


_FOLD = {
    "<=": lambda a, b: a <= b,
    "<": lambda a, b: a < b,
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


def compare(op: str, left: IntLike, right: IntLike) -> BoolTerm:
    """A comparison; one between two constants (or of a term with itself) is folded at once."""
    a, b = lift(left), lift(right)
    if a is b:
        return TRUE if op in ("<=", ">=", "==") else FALSE
    if isinstance(a, IConst) and isinstance(b, IConst):
        return TRUE if _FOLD[op](a.value, b.value) else FALSE
    return Cmp(op, a, b)


def lift(x: IntLike) -> IntTerm:
    """An int as a constant term; a term unchanged."""
    if isinstance(x, IntTerm):
        return x
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"expected an integer term or int, got {x!r}")
    return IConst(x)


def blift(x: BoolTerm | bool) -> BoolTerm:
    if isinstance(x, BoolTerm):
        return x
    if not isinstance(x, bool):
        raise TypeError(f"expected a boolean term or bool, got {x!r}")
    return TRUE if x else FALSE


def Int(name: str) -> IVar:
    """An integer unknown."""
    return IVar(name)


def Bool(name: str) -> BVar:
    """A boolean unknown."""
    return BVar(name)


def const(n: int) -> IConst:
    return IConst(n)


def _linear_parts(x: IntTerm, k: int, acc: dict[int, tuple[IntTerm, int]]) -> int:
    """Add ``k * x`` into `acc` (keyed by term id); return the constant part."""
    if isinstance(x, IConst):
        return k * x.value
    if isinstance(x, Linear):
        c = k * x.const
        for t, coef in x.items:
            c += _linear_parts(t, k * coef, acc)
        return c
    got = acc.get(id(x))
    acc[id(x)] = (x, (got[1] if got else 0) + k)
    return 0


def _linear(parts: Iterable[tuple[IntLike, int]]) -> IntTerm:
    acc: dict[int, tuple[IntTerm, int]] = {}
    c = 0
    for x, k in parts:
        c += _linear_parts(lift(x), k, acc)
    items = tuple((t, k) for t, k in acc.values() if k != 0)
    if not items:
        return IConst(c)
    if c == 0 and len(items) == 1 and items[0][1] == 1:
        return items[0][0]
    return Linear(items, c)


def add(a: IntLike, b: IntLike) -> IntTerm:
    return _linear(((a, 1), (b, 1)))


def scale(k: int, x: IntLike) -> IntTerm:
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"terms are multiplied by integer constants only, got {k!r}")
    return _linear(((x, k),))


def total(xs: Iterable[IntLike]) -> IntTerm:
    """The sum of the terms (0 for none)."""
    return _linear((x, 1) for x in xs)


def weighted(pairs: Iterable[tuple[int, IntLike]]) -> IntTerm:
    """``sum(k * x)`` over (k, x) pairs."""
    return _linear((x, k) for k, x in pairs)


def ite(cond: BoolTerm | bool, then: IntLike, other: IntLike) -> IntTerm:
    c = blift(cond)
    if isinstance(c, BConst):
        return lift(then) if c.value else lift(other)
    return Ite(c, lift(then), lift(other))


def count(conds: Iterable[BoolTerm]) -> IntTerm:
    """How many of the conditions hold."""
    return total(ite(c, 1, 0) for c in conds)


def maximum(xs: Sequence[IntLike]) -> IntTerm:
    """The largest of the terms (at least one)."""
    if not xs:
        raise ValueError("the maximum of no terms")
    best = lift(xs[0])
    for x in xs[1:]:
        t = lift(x)
        best = ite(t > best, t, best)
    return best


def minimum(xs: Sequence[IntLike]) -> IntTerm:
    if not xs:
        raise ValueError("the minimum of no terms")
    best = lift(xs[0])
    for x in xs[1:]:
        t = lift(x)
        best = ite(t < best, t, best)
    return best


def all_of(xs: Iterable[BoolTerm | bool]) -> BoolTerm:
    items: list[BoolTerm] = []
    for x in xs:
        b = blift(x)
        if isinstance(b, BConst):
            if not b.value:
                return FALSE
            continue
        if isinstance(b, And):
            items.extend(b.items)
        else:
            items.append(b)
    if not items:
        return TRUE
    return items[0] if len(items) == 1 else And(tuple(items))


def any_of(xs: Iterable[BoolTerm | bool]) -> BoolTerm:
    items: list[BoolTerm] = []
    for x in xs:
        b = blift(x)
        if isinstance(b, BConst):
            if b.value:
                return TRUE
            continue
        if isinstance(b, Or):
            items.extend(b.items)
        else:
            items.append(b)
    if not items:
        return FALSE
    return items[0] if len(items) == 1 else Or(tuple(items))


def implies(cond: BoolTerm | bool, then: BoolTerm | bool) -> BoolTerm:
    c, t = blift(cond), blift(then)
    if isinstance(c, BConst):
        return t if c.value else TRUE
    if isinstance(t, BConst) and t.value:
        return TRUE
    return Implies(c, t)


def divisible(x: IntLike, k: int) -> BoolTerm:
    """`x` is a multiple of `k`, with the test pushed into the branches of an if-then-else and
    the parts of a sum that are multiples already (the same statement, easier for a solver)."""
    t = lift(x)
    if isinstance(t, IConst):
        return TRUE if t.value % k == 0 else FALSE
    if isinstance(t, Ite):
        return all_of(
            (implies(t.cond, divisible(t.then, k)), implies(~t.cond, divisible(t.other, k)))
        )
    if isinstance(t, Linear):
        rest = [(x, c) for x, c in t.items if c % k]
        if not rest and t.const % k == 0:
            return TRUE
        if len(rest) < len(t.items):
            return divisible(_linear(((x, c) for x, c in rest)) + t.const, k)
        if len(t.items) == 1 and isinstance(t.items[0][0], Ite) and t.const % k == 0:
            inner, c = t.items[0]
            if c == 1 or c == -1:
                return divisible(inner, k)
    return compare("==", Mod(t, k), 0)


def divisible_parts(x: IntLike, k: int) -> BoolTerm:
    """Every summand of `x` (into the branches of each if-then-else) is a multiple of `k`: a
    stronger statement than `divisible(x, k)` that implies it — to prove with, never to refute
    with (summands may cancel)."""
    t = lift(x)
    if isinstance(t, Linear):
        return all_of(
            (
                *(divisible_parts(item, k) for item, c in t.items if c % k),
                TRUE if t.const % k == 0 else FALSE,
            )
        )
    if isinstance(t, Ite):
        return all_of(
            (
                implies(t.cond, divisible_parts(t.then, k)),
                implies(~t.cond, divisible_parts(t.other, k)),
            )
        )
    return divisible(t, k)


def between(x: IntLike, lo: int, hi: int) -> BoolTerm:
    t = lift(x)
    return all_of((t >= lo, t <= hi))


def one_of(x: IntLike, values: Iterable[int]) -> BoolTerm:
    t = lift(x)
    return any_of(t.eq(v) for v in values)


# ---------------------------------------------------------------- walking terms


def _linear_kids(t: Linear) -> tuple[Term, ...]:
    return tuple([x for x, _ in t.items])


_KIDS: dict[type, Callable[[Any], tuple[Term, ...]]] = {
    Linear: _linear_kids,
    Ite: lambda t: (t.cond, t.then, t.other),
    Mod: lambda t: (t.item,),
    Cmp: lambda t: (t.left, t.right),
    And: lambda t: t.items,
    Or: lambda t: t.items,
    Not: lambda t: (t.item,),
    Implies: lambda t: (t.cond, t.then),
}
"""Each compound term class's children, looked up by the term's class (one dictionary lookup
where a chain of isinstance tests took up to seven: walking terms is most of what building a
solver query costs)."""


def children(t: Term) -> tuple[Term, ...]:
    kids = _KIDS.get(type(t))
    return kids(t) if kids is not None else ()


def postorder(roots: Iterable[Term], done: Container[int] = ()) -> list[Term]:
    """Every distinct sub-term (by identity), children before parents; sub-terms whose id is in
    `done` are left out with everything below them."""
    seen: set[int] = set()
    out: list[Term] = []
    kids = _KIDS
    stack: list[tuple[Term, bool]] = [(r, False) for r in reversed(list(roots))]
    pop, push, emit, mark = stack.pop, stack.append, out.append, seen.add
    while stack:
        t, expanded = pop()
        if expanded:
            emit(t)
            continue
        i = id(t)
        if i in seen or i in done:
            continue
        mark(i)
        get = kids.get(type(t))
        if get is None:  # an unknown or a constant
            emit(t)
            continue
        push((t, True))
        for c in reversed(get(t)):
            j = id(c)
            if j not in seen and j not in done:
                push((c, False))
    return out


def mentions(t: Term, which: Callable[[str], bool], memo: dict[int, bool]) -> bool:
    """Whether some unknown of `t` has a name `which` accepts; `memo` (by term id) is shared by
    the calls of one walk over many terms, and a walk stops at the first such unknown."""
    got = memo.get(id(t))
    if got is None:
        if isinstance(t, IVar | BVar):
            got = which(t.name)
        else:
            got = any(mentions(c, which, memo) for c in children(t))
        memo[id(t)] = got
    return got


def variables(roots: Iterable[Term]) -> list[IVar | BVar]:
    """The unknowns the terms mention, each once, in first-seen order."""
    names: dict[str, IVar | BVar] = {}
    for t in postorder(roots):
        if isinstance(t, IVar | BVar) and t.name not in names:
            names[t.name] = t
    return list(names.values())


# ---------------------------------------------------------------- concrete evaluation

_CHUNK = 200
"""The most summands the evaluator writes on one line."""

_INLINE_DEPTH = 24
"""The deepest nesting of sub-terms the evaluator writes inside one expression (Python's parser
refuses very deep ones)."""

_PY_OPS = {"<=": "<=", "<": "<", ">=": ">=", ">": ">", "==": "==", "!=": "!="}


class Evaluator:
    """The roots compiled to one Python function of the unknowns, for fast concrete evaluation.

    `Evaluator(roots, names)(values)` returns the value of every root, where `values[i]` is the
    value of the unknown called `names[i]`; an unknown missing from `names` is an error at build.
    With `exact`, the caller promises exactly one value per name (the function unpacks them at
    once; another number of values raises ValueError).

    With `slots` (a number of names per slot, adding up to the names), the values come in slots
    instead, one argument each: `Evaluator(roots, names, slots=(3, 1)).fn(v, y)` for a slot of
    three values (a sequence of exactly three, unpacked at once) and a slot of one (the value
    itself) — no flat list of the values is built.

    A sub-term used once is written inside the expression that uses it (up to a nesting depth
    of `_INLINE_DEPTH`), others once on their own line: the same values, fewer steps of Python.
    """

    def __init__(
        self,
        roots: Sequence[Term],
        names: Sequence[str],
        *,
        exact: bool = False,
        slots: Sequence[int] | None = None,
    ) -> None:
        if slots is not None:
            if sum(slots) != len(names) or any(n < 1 for n in slots):
                raise ValueError(f"slots of {list(slots)} values for {len(names)} names")
            exact = True
        index = {n: i for i, n in enumerate(names)}
        order = postorder(roots)
        uses: dict[int, int] = {}
        for t in order:
            for c in children(t):
                uses[id(c)] = uses.get(id(c), 0) + 1
        for r in roots:
            uses[id(r)] = uses.get(id(r), 0) + 1
        lines: list[str] = []
        local: dict[int, str] = {}
        depth: dict[int, int] = {}
        counter = itertools.count()
        loaded: set[int] = set()

        def ref(t: Term) -> str:
            return local[id(t)]

        def deep(*ts: Term) -> int:
            return 1 + max((depth.get(id(t), 0) for t in ts), default=0)

        for t in order:
            kids: tuple[Term, ...] = ()
            if isinstance(t, IVar | BVar):
                if t.name not in index:
                    raise KeyError(f"no value is given for the unknown {t.name!r}")
                i = index[t.name]
                loaded.add(i)
                local[id(t)] = f"u{i}" if exact else f"x[{i}]"
                continue
            elif isinstance(t, IConst):
                local[id(t)] = repr(t.value)
                continue
            elif isinstance(t, BConst):
                local[id(t)] = "True" if t.value else "False"
                continue
            elif isinstance(t, Linear):
                parts = [repr(t.const)] if t.const else []
                parts += [ref(x) if k == 1 else f"{k}*{ref(x)}" for x, k in t.items]
                # a sum is a left-nested tree to Python's compiler, which recurses on it: a long
                # one is added up over several lines
                chunks = [parts[i : i + _CHUNK] for i in range(0, len(parts), _CHUNK)] or [["0"]]
                name = f"v{next(counter)}"
                local[id(t)] = name
                lines.append(f"    {name} = " + " + ".join(chunks[0]))
                lines.extend(f"    {name} += " + " + ".join(c) for c in chunks[1:])
                continue
            elif isinstance(t, Ite):
                code = f"({ref(t.then)} if {ref(t.cond)} else {ref(t.other)})"
                kids = (t.then, t.cond, t.other)
            elif isinstance(t, Mod):
                code = f"({ref(t.item)} % {t.k})"
                kids = (t.item,)
            elif isinstance(t, Cmp):
                code = f"({ref(t.left)} {_PY_OPS[t.op]} {ref(t.right)})"
                kids = (t.left, t.right)
            elif isinstance(t, And):
                code = "(" + " and ".join(ref(x) for x in t.items) + ")"
                kids = t.items
            elif isinstance(t, Or):
                code = "(" + " or ".join(ref(x) for x in t.items) + ")"
                kids = t.items
            elif isinstance(t, Not):
                code = f"(not {ref(t.item)})"
                kids = (t.item,)
            elif isinstance(t, Implies):
                code = f"((not {ref(t.cond)}) or {ref(t.then)})"
                kids = (t.cond, t.then)
            else:  # pragma: no cover - every term class is handled above
                raise TypeError(f"unknown term {t!r}")
            d = deep(*kids)
            if uses.get(id(t), 0) == 1 and d < _INLINE_DEPTH:
                local[id(t)] = code
                depth[id(t)] = d
                continue
            name = f"v{next(counter)}"
            local[id(t)] = name
            lines.append(f"    {name} = {code}")
        params = "x"
        if slots is not None:
            params = ", ".join(f"s{j}" for j in range(len(slots)))
            head: list[str] = []
            at = 0
            for j, n in enumerate(slots):
                if n == 1:
                    if at in loaded:
                        head.append(f"    u{at} = s{j}")
                else:
                    targets = ", ".join(f"u{i}" if i in loaded else "_" for i in range(at, at + n))
                    head.append(f"    ({targets},) = s{j}")
                at += n
            lines[:0] = head
        elif exact and names:
            targets = ", ".join(f"u{i}" if i in loaded else "_" for i in range(len(names)))
            lines.insert(0, f"    ({targets},) = x")
        body = "\n".join(lines) or "    pass"
        result = ", ".join(ref(r) for r in roots)
        comma = "," if len(roots) == 1 else ""
        src = f"def _evaluate({params}):\n{body}\n    return ({result}{comma})\n"
        scope: dict[str, object] = {}
        exec(_compiled(src), scope)  # the source is generated above
        self._fn: Callable[..., tuple[Value, ...]] = scope["_evaluate"]  # type: ignore[assignment]
        self.fn = self._fn
        """The compiled function itself: of the values (`x`), or of one argument per slot."""
        self.names = tuple(names)
        self.size = len(lines)

    def __call__(self, values: Sequence[Value]) -> tuple[Value, ...]:
        return self._fn(values)


@lru_cache(maxsize=4096)
def _compiled(src: str) -> CodeType:
    """The code of an `Evaluator`'s generated source: the same terms, built again (a book's
    relation encoded by another test, another property of one encoding), are not compiled again.
    Each `Evaluator` still runs it in a scope of its own."""
    return compile(src, "<arbitro.proofs.terms>", "exec")


def substitute(roots: Sequence[Term], mapping: Mapping[str, Term]) -> list[Term]:
    """The roots with every unknown named in `mapping` replaced by its term (of the same sort),
    rebuilt through the constructors above, so sums are flattened and constants folded again.
    Sub-terms shared by several roots are rebuilt once."""
    done: dict[int, Term] = {}
    for t in postorder(roots):
        if isinstance(t, IVar | BVar):
            new: Term = mapping.get(t.name, t)
        elif isinstance(t, IConst | BConst):
            new = t
        elif isinstance(t, Linear):
            new = weighted((k, done[id(x)]) for x, k in t.items) + t.const  # type: ignore[misc]
        elif isinstance(t, Ite):
            new = ite(done[id(t.cond)], done[id(t.then)], done[id(t.other)])  # type: ignore[arg-type]
        elif isinstance(t, Mod):
            item = done[id(t.item)]
            new = item if item is t.item else Mod(item, t.k)  # type: ignore[arg-type]
        elif isinstance(t, Cmp):
            new = compare(t.op, done[id(t.left)], done[id(t.right)])  # type: ignore[arg-type]
        elif isinstance(t, And):
            new = all_of(done[id(x)] for x in t.items)  # type: ignore[misc]
        elif isinstance(t, Or):
            new = any_of(done[id(x)] for x in t.items)  # type: ignore[misc]
        elif isinstance(t, Not):
            new = ~done[id(t.item)]  # type: ignore[operator]
        elif isinstance(t, Implies):
            new = implies(done[id(t.cond)], done[id(t.then)])  # type: ignore[arg-type]
        else:  # pragma: no cover - every term class is handled above
            raise TypeError(f"unknown term {t!r}")
        done[id(t)] = new
    return [done[id(r)] for r in roots]


def values_of(roots: Sequence[Term], env: Mapping[str, Value]) -> list[Value]:
    """Every root's value under an assignment of its unknowns, by walking the terms once (no
    compilation: the quick way for terms evaluated once; `Evaluator` for terms evaluated many
    times). An unknown the assignment leaves out raises KeyError."""
    val: dict[int, Value] = {}
    for t in postorder(roots):
        if isinstance(t, IVar | BVar):
            v: Value = env[t.name]
        elif isinstance(t, IConst | BConst):
            v = t.value
        elif isinstance(t, Linear):
            v = t.const + sum(k * val[id(x)] for x, k in t.items)
        elif isinstance(t, Ite):
            v = val[id(t.then)] if val[id(t.cond)] else val[id(t.other)]
        elif isinstance(t, Mod):
            v = val[id(t.item)] % t.k
        elif isinstance(t, Cmp):
            v = bool(_FOLD[t.op](val[id(t.left)], val[id(t.right)]))
        elif isinstance(t, And):
            v = all(val[id(x)] for x in t.items)
        elif isinstance(t, Or):
            v = any(val[id(x)] for x in t.items)
        elif isinstance(t, Not):
            v = not val[id(t.item)]
        elif isinstance(t, Implies):
            v = (not val[id(t.cond)]) or bool(val[id(t.then)])
        else:  # pragma: no cover - every term class is handled above
            raise TypeError(f"unknown term {t!r}")
        val[id(t)] = v
    return [val[id(r)] for r in roots]


def evaluate(term: Term, env: Mapping[str, Value]) -> Value:
    """One term's value under an assignment (slow path, for messages and decoding)."""
    names = [v.name for v in variables((term,))]
    return Evaluator((term,), names)([env[n] for n in names])[0]


__all__ = [
    "FALSE",
    "TRUE",
    "ZERO",
    "And",
    "BConst",
    "BVar",
    "Bool",
    "BoolTerm",
    "Cmp",
    "Evaluator",
    "IConst",
    "IVar",
    "Implies",
    "Int",
    "IntTerm",
    "Ite",
    "Linear",
    "Mod",
    "Not",
    "Or",
    "Term",
    "Value",
    "add",
    "all_of",
    "any_of",
    "between",
    "blift",
    "compare",
    "const",
    "count",
    "divisible",
    "divisible_parts",
    "evaluate",
    "implies",
    "ite",
    "lift",
    "maximum",
    "mentions",
    "minimum",
    "one_of",
    "postorder",
    "scale",
    "substitute",
    "total",
    "values_of",
    "variables",
    "weighted",
]
