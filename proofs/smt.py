"""The one door to Z3: satisfiability with named clauses, minimal unsat cores, and optima.

Nothing else in arbitro imports z3. Callers pass facts and goals written in
`arbitro.proofs.terms`; they get back an `Outcome` whose status is exactly what the solver said
(`sat`, `unsat` or `unknown` — a timeout is `unknown`, never a proof), the values of every unknown
when `sat`, and when `unsat` the clause ids whose facts cannot hold together, minimised so that
dropping any one of them makes the rest satisfiable (or the solver could not tell).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import z3

from arbitro.proofs.facts import Fact
from arbitro.proofs.terms import (
    And,
    BConst,
    BoolTerm,
    BVar,
    Cmp,
    IConst,
    Implies,
    IntTerm,
    Ite,
    IVar,
    Linear,
    Mod,
    Not,
    Or,
    Term,
    Value,
    postorder,
    variables,
)

Status = Literal["sat", "unsat", "unknown"]


@dataclass(frozen=True)
class Outcome:
    """What one solver call established."""

    status: Status
    values: dict[str, Value] = field(default_factory=dict)  # every unknown, when sat
    core: tuple[str, ...] = ()  # clause ids that cannot hold together, when unsat
    reason: str = ""  # why the solver gave no answer, when unknown
    seconds: float = 0.0


@dataclass(frozen=True)
class Optimum:
    """The least or greatest value of an objective, established in two steps: the optimiser finds
    a value and an assignment reaching it, then a plain check proves nothing goes beyond it.

    `status` is "proved" only when that check came back unsat, "infeasible" when the facts have no
    assignment at all (then `core` names the clauses), "unknown" otherwise.
    """

    status: Literal["proved", "infeasible", "unknown"]
    value: int | None = None
    values: dict[str, Value] = field(default_factory=dict)
    core: tuple[str, ...] = ()
    reason: str = ""
    seconds: float = 0.0


_CMP = {
    "<=": lambda a, b: a <= b,
    "<": lambda a, b: a < b,
    ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


class _Translator:
    """Terms to z3 expressions, each distinct sub-term translated once."""

    def __init__(self) -> None:
        self.memo: dict[int, Any] = {}
        self.vars: dict[str, Any] = {}

    def var(self, t: IVar | BVar) -> Any:
        got = self.vars.get(t.name)
        if got is None:
            got = z3.Int(t.name) if isinstance(t, IVar) else z3.Bool(t.name)
            self.vars[t.name] = got
        return got

    def __call__(self, root: Term) -> Any:
        memo = self.memo
        for t in postorder((root,)):
            if id(t) in memo:
                continue
            if isinstance(t, IVar | BVar):
                e = self.var(t)
            elif isinstance(t, IConst):
                e = z3.IntVal(t.value)
            elif isinstance(t, BConst):
                e = z3.BoolVal(t.value)
            elif isinstance(t, Linear):
                parts = [memo[id(x)] if k == 1 else k * memo[id(x)] for x, k in t.items]
                if t.const:
                    parts.append(z3.IntVal(t.const))
                e = parts[0] if len(parts) == 1 else z3.Sum(parts)
            elif isinstance(t, Ite):
                e = z3.If(memo[id(t.cond)], memo[id(t.then)], memo[id(t.other)])
            elif isinstance(t, Mod):
                e = memo[id(t.item)] % t.k
            elif isinstance(t, Cmp):
                e = _CMP[t.op](memo[id(t.left)], memo[id(t.right)])
            elif isinstance(t, And):
                e = z3.And([memo[id(x)] for x in t.items])
            elif isinstance(t, Or):
                e = z3.Or([memo[id(x)] for x in t.items])
            elif isinstance(t, Not):
                e = z3.Not(memo[id(t.item)])
            elif isinstance(t, Implies):
                e = z3.Implies(memo[id(t.cond)], memo[id(t.then)])
            else:  # pragma: no cover - every term class is handled above
                raise TypeError(f"unknown term {t!r}")
            memo[id(t)] = e
        return memo[id(root)]


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


def _values(model: Any, tr: _Translator, roots: Sequence[Term]) -> dict[str, Value]:
    out: dict[str, Value] = {}
    for v in variables(roots):
        e = model.eval(tr.var(v), model_completion=True)
        out[v.name] = bool(z3.is_true(e)) if isinstance(v, BVar) else e.as_long()
    return out


def _reason(solver: Any, timeout: float, started: float) -> str:
    why = str(solver.reason_unknown())
    if "timeout" in why or "canceled" in why or time.perf_counter() - started >= timeout * 0.98:
        return f"timeout after {timeout:g} s"
    return f"the solver gave up: {why}"


class _Session:
    """One z3 solver holding the structural facts and goals hard, each clause behind a literal."""

    def __init__(self, facts: Sequence[Fact], goals: Sequence[BoolTerm]) -> None:
        self.tr = _Translator()
        self.solver = z3.SolverFor("QF_LIA")
        self.literals: dict[str, Any] = {}
        self.by_name: dict[str, str] = {}
        for f in facts:
            e = self.tr(f.term)
            if not f.is_rule:
                self.solver.add(e)
                continue
            lit = self.literals.get(f.clause)
            if lit is None:
                name = f"clause!{len(self.literals)}"
                lit = self.literals[f.clause] = z3.Bool(name)
                self.by_name[name] = f.clause
            self.solver.add(z3.Implies(lit, e))
        for g in goals:
            self.solver.add(self.tr(g))
        self.roots: list[Term] = [f.term for f in facts]
        self.roots.extend(goals)

    def check(self, clauses: Sequence[str], timeout: float) -> Any:
        self.solver.set("timeout", _ms(timeout))
        return self.solver.check(*[self.literals[c] for c in clauses])

    def core(self) -> list[str]:
        return [self.by_name[str(x)] for x in self.solver.unsat_core()]


def check(
    facts: Sequence[Fact],
    goals: Sequence[BoolTerm] = (),
    *,
    timeout: float,
    minimise: bool = True,
) -> Outcome:
    """Whether the facts and goals can all hold; the core names clause facts only."""
    started = time.perf_counter()
    s = _Session(facts, goals)
    clauses = list(s.literals)
    got = s.check(clauses, timeout)
    if got == z3.sat:
        return Outcome(
            "sat",
            values=_values(s.solver.model(), s.tr, s.roots),
            seconds=time.perf_counter() - started,
        )
    if got == z3.unknown:
        return Outcome(
            "unknown",
            reason=_reason(s.solver, timeout, started),
            seconds=time.perf_counter() - started,
        )
    core = s.core()
    if minimise:
        core = _minimise(s, core, started, timeout)
    order = {c: i for i, c in enumerate(clauses)}
    return Outcome(
        "unsat",
        core=tuple(sorted(core, key=order.__getitem__)),
        seconds=time.perf_counter() - started,
    )


def _minimise(s: _Session, core: list[str], started: float, timeout: float) -> list[str]:
    """Deletion: drop each clause whose absence keeps the rest unsat (an unknown keeps it)."""
    kept = list(core)
    for c in list(core):
        left = timeout - (time.perf_counter() - started)
        if left <= 0:
            break
        trial = [x for x in kept if x != c]
        if s.check(trial, left) == z3.unsat:
            # the solver's own core of the smaller set may be smaller still
            smaller = set(s.core())
            kept = [x for x in trial if x in smaller]
    return kept


def optimum(
    facts: Sequence[Fact],
    objective: IntTerm,
    *,
    maximise: bool,
    timeout: float,
    goals: Sequence[BoolTerm] = (),
) -> Optimum:
    """The greatest (or least) value of `objective` under the facts and goals, proved optimal."""
    started = time.perf_counter()

    def left() -> float:
        return timeout - (time.perf_counter() - started)

    tr = _Translator()
    opt = z3.Optimize()
    opt.set("timeout", _ms(timeout))
    for f in facts:
        opt.add(tr(f.term))
    for g in goals:
        opt.add(tr(g))
    obj = tr(objective)
    if maximise:
        opt.maximize(obj)
    else:
        opt.minimize(obj)
    got = opt.check()
    if got == z3.unsat:
        out = check(facts, goals, timeout=max(left(), 0.001))
        core = out.core if out.status == "unsat" else ()
        return Optimum("infeasible", core=core, seconds=time.perf_counter() - started)
    if got != z3.sat:
        return Optimum(
            "unknown",
            reason=_reason(opt, timeout, started),
            seconds=time.perf_counter() - started,
        )
    roots: list[Term] = [f.term for f in facts] + [*goals, objective]
    model = opt.model()
    value = model.eval(obj, model_completion=True).as_long()
    values = _values(model, tr, roots)
    # the optimiser's word is not a proof: ask a plain solver for anything beyond the value
    beyond = objective > value if maximise else objective < value
    proof = check(facts, [*goals, beyond], timeout=max(left(), 0.001), minimise=False)
    seconds = time.perf_counter() - started
    if proof.status == "unsat":
        return Optimum("proved", value=value, values=values, seconds=seconds)
    if proof.status == "sat":
        return Optimum(
            "unknown",
            value=value,
            values=values,
            reason="the optimiser stopped short of the optimum (unbounded or not converged)",
            seconds=seconds,
        )
    return Optimum("unknown", value=value, values=values, reason=proof.reason, seconds=seconds)


def version() -> str:
    """The Z3 version in use."""
    return str(z3.get_version_string())


__all__ = ["Optimum", "Outcome", "Status", "check", "optimum", "version"]
