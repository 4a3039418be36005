"""The one door to Z3: satisfiability with named clauses, minimal unsat cores, and optima.

Nothing else in arbitro imports z3. Callers pass facts and goals written in
`arbitro.proofs.terms`; they get back an `Outcome` whose status is exactly what the solver said
(`sat`, `unsat` or `unknown` — a limit reached is `unknown`, never a proof), the values of every
unknown when `sat`, and when `unsat` the clause ids whose facts cannot hold together, minimised so
that dropping any one of them makes the rest satisfiable (or the solver could not tell).

Limits are deterministic: every solver call gets a budget of Z3 resource units (`rlimit`, see
`rlimit`/`use_rlimit`), counted in the solver's own steps, so the same question gets the same
answer on an idle or a loaded machine. The `timeout` each function takes is only a wall-clock
safety net per solver call; when it, rather than the budget, ends a call the reason says so (that
answer depends on the machine).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from arbitro.proofs.facts import Fact
from arbitro.proofs.terms import (
    _KIDS,
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
)


class _Z3:
    """The z3 module, imported at its first use. Every command of the CLI builds the whole
    parser, whose `prove` help names the properties and reaches this module: importing z3 there
    cost each `arbitro check`, `serve` or `conform` about half a second of CPU it never used."""

    def __getattr__(self, name: str) -> Any:
        import z3 as module

        globals()["z3"] = module
        return getattr(module, name)


z3: Any = _Z3()


def preload() -> None:
    """Import z3 now (a process about to fork workers that all ask the solver)."""
    z3.get_version_string()


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
    """The least or greatest value of an objective and an assignment reaching it.

    `status` is "proved" only when a check that anything goes beyond the value came back unsat,
    "infeasible" when the facts have no assignment at all (then `core` names the clauses),
    "unknown" otherwise (`value` is then the best found so far, if any).
    """

    status: Literal["proved", "infeasible", "unknown"]
    value: int | None = None
    values: dict[str, Value] = field(default_factory=dict)
    core: tuple[str, ...] = ()
    reason: str = ""
    seconds: float = 0.0


_SMT_OPS = {"<=": "<=", "<": "<", ">=": ">=", ">": ">", "==": "=", "!=": "distinct"}


def _num(n: int) -> str:
    return str(n) if n >= 0 else f"(- {-n})"


def _quote(name: str) -> str:
    if "|" in name or "\\" in name:
        raise ValueError(f"an unknown's name may not hold | or \\: {name!r}")
    return f"|{name}|"


def _context() -> Any:
    """A Z3 context of its own for one question: the answer (which model, which witness among
    equally good ones) then depends only on the question's text, never on what the process asked
    before, so a document of witnesses comes out the same in every run."""
    return z3.Context()


class _Script:
    """Terms as an SMT-LIB script for Z3's own parser: one declaration per unknown, sub-terms used
    once written inline, and one definition per sub-term shared by several parents, so the
    Python side does a single pass over the terms and the script stays small."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.ref: dict[int, str] = {}
        self.declared: dict[str, str] = {}
        self.count = 0
        self.parents: dict[int, int] = {}
        self.plan: list[tuple[Term, list[Term]]] = []
        self.at = 0

    def share(self, roots: Sequence[Term]) -> None:
        """Count each sub-term's parents over all the roots still to be written, and plan what
        each root writes when they are written in this order: the sub-terms it is the first to
        reach, children before parents (`terms.postorder` of the root, leaving out what the roots
        before it reached). One walk over the terms, where a count and then a walk per root took
        two; the script comes out the same."""
        parents = self.parents
        get = parents.get
        kids = _KIDS
        seen: set[int] = set(self.ref)
        mark = seen.add
        plan = self.plan
        for root in roots:
            out: list[Term] = []
            emit = out.append
            stack: list[tuple[Term, bool]] = [(root, False)]
            pop, push = stack.pop, stack.append
            while stack:
                t, expanded = pop()
                if expanded:
                    emit(t)
                    continue
                i = id(t)
                if i in seen:
                    continue
                mark(i)
                kids_of = kids.get(type(t))
                if kids_of is None:  # an unknown or a constant
                    emit(t)
                    continue
                push((t, True))
                below = kids_of(t)
                for c in below:
                    j = id(c)
                    parents[j] = get(j, 0) + 1
                for c in reversed(below):
                    if id(c) not in seen:
                        push((c, False))
            plan.append((root, out))

    def __call__(self, root: Term) -> str:
        ref = self.ref
        parents = self.parents
        plan = self.plan
        if self.at < len(plan) and plan[self.at][0] is root:
            nodes = plan[self.at][1]
            self.at += 1
        else:  # a root written out of the planned order: walked, and the plan given up
            self.at = len(plan)
            nodes = postorder((root,), ref)
        for t in nodes:
            if isinstance(t, IVar | BVar):
                name = _quote(t.name)
                if t.name not in self.declared:
                    sort = "Int" if isinstance(t, IVar) else "Bool"
                    self.lines.append(f"(declare-const {name} {sort})")
                    self.declared[t.name] = sort
                ref[id(t)] = name
                continue
            if isinstance(t, IConst):
                ref[id(t)] = _num(t.value)
                continue
            if isinstance(t, BConst):
                ref[id(t)] = "true" if t.value else "false"
                continue
            if isinstance(t, Linear):
                parts = [
                    ref[id(x)] if k == 1 else f"(* {_num(k)} {ref[id(x)]})" for x, k in t.items
                ]
                if t.const:
                    parts.append(_num(t.const))
                body = parts[0] if len(parts) == 1 else f"(+ {' '.join(parts)})"
                sort = "Int"
            elif isinstance(t, Ite):
                body = f"(ite {ref[id(t.cond)]} {ref[id(t.then)]} {ref[id(t.other)]})"
                sort = "Int"
            elif isinstance(t, Mod):
                body = f"(mod {ref[id(t.item)]} {t.k})"
                sort = "Int"
            elif isinstance(t, Cmp):
                body = f"({_SMT_OPS[t.op]} {ref[id(t.left)]} {ref[id(t.right)]})"
                sort = "Bool"
            elif isinstance(t, And):
                body = f"(and {' '.join(ref[id(x)] for x in t.items)})"
                sort = "Bool"
            elif isinstance(t, Or):
                body = f"(or {' '.join(ref[id(x)] for x in t.items)})"
                sort = "Bool"
            elif isinstance(t, Not):
                body = f"(not {ref[id(t.item)]})"
                sort = "Bool"
            elif isinstance(t, Implies):
                body = f"(=> {ref[id(t.cond)]} {ref[id(t.then)]})"
                sort = "Bool"
            else:  # pragma: no cover - every term class is handled above
                raise TypeError(f"unknown term {t!r}")
            if parents.get(id(t), 0) <= 1:
                ref[id(t)] = body
                continue
            name = f"|def!{self.count}|"
            self.count += 1
            self.lines.append(f"(define-fun {name} () {sort} {body})")
            ref[id(t)] = name
        return ref[id(root)]

    def assert_(self, root: Term, literal: str | None = None) -> None:
        e = self(root)
        self.lines.append(f"(assert (=> {literal} {e}))" if literal else f"(assert {e})")

    def text(self) -> str:
        return "\n".join(self.lines)


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


DEFAULT_RLIMIT = 250_000_000
"""Z3 resource units each solver call may use by default (about 10 to 40 s of this project's
machine, depending on the question): every property `arbitro prove` runs with the defaults is
decided within it (see docs/proofs.md)."""

_LIMIT = [DEFAULT_RLIMIT]
_USED = [0, 0]  # the most units one call used, and the units of every call, since `reset_usage`


def rlimit() -> int:
    """The resource units each solver call may use now (0: no limit)."""
    return _LIMIT[0]


def set_rlimit(units: int) -> None:
    """Every later solver call of this process gets `units` resource units (0: no limit)."""
    if units < 0:
        raise ValueError(f"a resource limit is a number of units, 0 or more; got {units}")
    _LIMIT[0] = units


@contextlib.contextmanager
def use_rlimit(units: int) -> Iterator[None]:
    """Solver calls within the block get `units` resource units each."""
    before = _LIMIT[0]
    set_rlimit(units)
    try:
        yield
    finally:
        _LIMIT[0] = before


def usage() -> tuple[int, int]:
    """The most resource units one solver call used, and the total, since `reset_usage`."""
    return _USED[0], _USED[1]


def reset_usage() -> None:
    _USED[0] = _USED[1] = 0


def _limit(solver: Any, timeout: float, units: int | None = None) -> None:
    """Give the next check of `solver` its resource budget and its wall-clock safety net."""
    solver.set("rlimit", _LIMIT[0] if units is None else units)
    solver.set("timeout", _ms(timeout))
    # Z3 would take SIGINT itself during a check and answer unknown ("canceled", the same word
    # as its limits): leave Ctrl-C to Python, which raises KeyboardInterrupt once the check returns
    solver.set("ctrl_c", False)


def _spent(solver: Any) -> int:
    """The resource units the solver has used so far (Z3 counts them cumulatively)."""
    try:
        return int(solver.statistics().get_key_value("rlimit count"))
    except z3.Z3Exception:
        return 0


def _run(solver: Any, timeout: float, *assumptions: Any, units: int | None = None) -> Any:
    """One check under the limits, its resource use recorded."""
    _limit(solver, timeout, units)
    before = _spent(solver)
    got = solver.check(*assumptions)
    used = _spent(solver) - before
    _USED[0] = max(_USED[0], used)
    _USED[1] += used
    _LAST[0], _LAST[1] = used, _LIMIT[0] if units is None else units
    return got


_LAST = [0, 0]  # the units the last call used, and the units it was given


_MODEL_ENTRY = re.compile(
    r"\(define-fun (\|[^|]*\||[^\s()]+) \(\) (Int|Bool)\s+(\(- \d+\)|\d+|true|false)\)"
)


def _values(model: Any, declared: dict[str, str] | None = None) -> dict[str, Value]:
    """Every unknown the model assigns (definitions and clause literals left out), read from the
    model's text: one call instead of several per unknown. Unknowns the solver eliminated are
    missing from that text; those of `declared` (name -> sort) are evaluated one by one."""
    out: dict[str, Value] = {}
    for name, sort, text in _MODEL_ENTRY.findall(model.sexpr()):
        name = name.strip("|")
        if "!" in name:  # definitions, clause and goal literals: not unknowns of the encoding
            continue
        if sort == "Bool":
            out[name] = text == "true"
        elif text.startswith("(-"):
            out[name] = -int(text[3:-1])
        else:
            out[name] = int(text)
    for name, sort in (declared or {}).items():
        if name not in out:
            ctx = model.ctx
            e = model.eval(
                z3.Int(name, ctx) if sort == "Int" else z3.Bool(name, ctx), model_completion=True
            )
            out[name] = bool(z3.is_true(e)) if sort == "Bool" else e.as_long()
    return out


def _reason(solver: Any, timeout: float, started: float) -> str:
    why = str(solver.reason_unknown())
    # Z3 says "canceled" for either limit when both are set: the units spent tell them apart
    used, given = _LAST
    if "resource limit" in why or (given and used >= given):
        return f"resource limit of {given or _LIMIT[0]:,} units reached (raise --rlimit)"
    if "timeout" in why or "canceled" in why or time.perf_counter() - started >= timeout * 0.98:
        return (
            f"the wall-clock safety net of {timeout:g} s ran out before the resource limit "
            "(an answer that depends on the machine; raise --timeout)"
        )
    return f"the solver gave up: {why}"


class _Session:
    """One z3 solver holding the structural facts hard, each clause behind a literal, and goals
    behind literals of their own so that one session answers with and without them."""

    def __init__(self, facts: Sequence[Fact], goals: Sequence[BoolTerm] = ()) -> None:
        script = _Script()
        script.share([f.term for f in facts] + list(goals))
        self.literals: dict[str, Any] = {}
        self.by_name: dict[str, str] = {}
        names: dict[str, str] = {}
        for f in facts:
            if not f.is_rule:
                script.assert_(f.term)
                continue
            lit = names.get(f.clause)
            if lit is None:
                lit = names[f.clause] = f"clause!{len(names)}"
                script.lines.append(f"(declare-const |{lit}| Bool)")
                self.by_name[lit] = f.clause
            script.assert_(f.term, f"|{lit}|")
        self.goal_literals: list[Any] = []
        for i, g in enumerate(goals):
            script.lines.append(f"(declare-const |goal!{i}| Bool)")
            script.assert_(g, f"|goal!{i}|")
        self.declared = script.declared
        self.text = script.text()
        self.goals = len(goals)
        self._solver: Any = None

    @property
    def solver(self) -> Any:
        """The z3 solver holding the script, made on first use: a question answered from memory
        (`check`) never pays for a context and a parse."""
        if self._solver is None:
            ctx = _context()
            self._solver = z3.SolverFor("QF_LIA", ctx=ctx)
            self._solver.from_string(self.text)
            self.literals = {c: z3.Bool(n, ctx) for n, c in self.by_name.items()}
            self.goal_literals = [z3.Bool(f"goal!{i}", ctx) for i in range(self.goals)]
        return self._solver

    def check(self, clauses: Sequence[str], timeout: float, goals: bool = True) -> Any:
        solver = self.solver  # made first: it makes the literals too
        assumptions = [self.literals[c] for c in clauses]
        if goals:
            assumptions += self.goal_literals
        return _run(solver, timeout, *assumptions)

    def core(self) -> list[str]:
        return [self.by_name[str(x)] for x in self.solver.unsat_core() if str(x) in self.by_name]


def check(
    facts: Sequence[Fact],
    goals: Sequence[BoolTerm] = (),
    *,
    timeout: float,
    minimise: bool = True,
    values: bool = True,
) -> Outcome:
    """Whether the facts and goals can all hold; the core names clause facts only (`values`:
    whether to read the assignment back when sat)."""
    started = time.perf_counter()
    s = _Session(facts, goals)
    # the same query is asked again under readings that leave its facts unchanged (the claims,
    # clashes and dead rules of each reading): answered once per process, under the same limits
    key = (_digest(s.text), _LIMIT[0], timeout, minimise, values)
    hit = _ANSWERED.get(key)
    if hit is None:
        if len(_ANSWERED) >= 2048:
            _ANSWERED.clear()  # a long-lived process keeps a bounded memory of answers
        got = _answer(s, True, started, timeout, minimise, want_values=values)
        _ANSWERED[key] = _as_literals(got, s)
        return replace(got, values=dict(got.values))
    return _as_asked(hit, s, started)


_ANSWERED: dict[tuple[str, int, float, bool, bool], Outcome] = {}
"""Answers of `check` by query text (its digest), limits and options, the core as clause
literals: a query's answer depends on nothing else, and each asker reads the literals as its own
clauses."""


def check_claim(
    facts: Sequence[Fact], claim: BoolTerm, *, timeout: float, minimise: bool = True
) -> tuple[Outcome, Outcome | None]:
    """Whether the facts force `claim`: the outcome for facts and not-claim and, when that is
    unsat, for the facts alone (unsat then: the claim holds vacuously). One solver session.
    `minimise`: whether the first outcome's core is minimised (the second's always is: it is the
    one a report shows)."""
    started = time.perf_counter()
    s = _Session(facts, [~claim])
    # asked again within a process when two properties state the same thing of the same rules
    # (`book-figures` under a book whose clauses keep its written numbers asks `meld-caps`'s
    # questions): answered once, cores kept as literals as `check` keeps them
    key = (_digest(s.text), _LIMIT[0], timeout, minimise)
    hit = _CLAIMED.get(key)
    if hit is not None:
        return _as_asked(hit[0], s, started), None if hit[1] is None else _as_asked(
            hit[1], s, started
        )
    first = _answer(s, True, started, timeout, minimise)
    second = None
    if first.status == "unsat":
        second = _answer(s, False, time.perf_counter(), timeout, True, want_values=False)
    if len(_CLAIMED) >= 2048:
        _CLAIMED.clear()
    _CLAIMED[key] = (_as_literals(first, s), None if second is None else _as_literals(second, s))
    return first, second


def _digest(text: str) -> str:
    """A query's text as a key to remember its answer by (the texts run to megabytes)."""
    return hashlib.blake2b(text.encode(), digest_size=32).hexdigest()


def _as_literals(got: Outcome, s: _Session) -> Outcome:
    """The outcome to remember: the text names clauses by literal only, so the core is kept as
    literals, and the same query asked for another book names that book's clauses, never the
    first asker's."""
    literal = {c: n for n, c in s.by_name.items()}
    return replace(got, values=dict(got.values), core=tuple(literal[c] for c in got.core))


def _as_asked(hit: Outcome, s: _Session, started: float) -> Outcome:
    return replace(
        hit,
        values=dict(hit.values),
        core=tuple(s.by_name[n] for n in hit.core),
        seconds=time.perf_counter() - started,
    )


_CLAIMED: dict[tuple[str, int, float, bool], tuple[Outcome, Outcome | None]] = {}
"""Answers of `check_claim` by query text and limits (both outcomes, cores as literals)."""


def _answer(
    s: _Session,
    goals: bool,
    started: float,
    timeout: float,
    minimise: bool,
    want_values: bool = True,
) -> Outcome:
    clauses = list(s.by_name.values())
    got = s.check(clauses, timeout, goals)
    if got == z3.sat:
        values = _values(s.solver.model(), s.declared) if want_values else {}
        return Outcome("sat", values=values, seconds=time.perf_counter() - started)
    if got == z3.unknown:
        return Outcome(
            "unknown",
            reason=_reason(s.solver, timeout, started),
            seconds=time.perf_counter() - started,
        )
    core = s.core()
    if minimise:
        core = _minimise(s, core, started, timeout, goals)
    order = {c: i for i, c in enumerate(clauses)}
    return Outcome(
        "unsat",
        core=tuple(sorted(core, key=order.__getitem__)),
        seconds=time.perf_counter() - started,
    )


def _minimise(
    s: _Session, core: list[str], started: float, timeout: float, goals: bool = True
) -> list[str]:
    """Deletion: drop each clause whose absence keeps the rest unsat (an unknown keeps it). Each
    trial gets the full resource budget, so the core does not depend on the machine's speed."""
    kept = list(core)
    for c in list(core):
        if c not in kept:
            continue
        trial = [x for x in kept if x != c]
        if s.check(trial, timeout, goals) == z3.unsat:
            # the solver's own core of the smaller set may be smaller still
            smaller = set(s.core())
            kept = [x for x in trial if x in smaller]
    return kept


INCREMENTAL_SHARE = 8
"""A question of an optimum search gets 1/INCREMENTAL_SHARE of the resource budget from the
incremental solver before a fresh one takes it over with the whole budget."""


class Problem:
    """Facts written once as a script, then asked many questions: optima of several objectives,
    satisfiability under several goals. Every fact is asserted outright (no cores here; `check`
    names clauses)."""

    def __init__(self, facts: Sequence[Fact], extra: Sequence[Term] = ()) -> None:
        self.facts = list(facts)
        self.script = _Script()
        self.script.share([f.term for f in facts] + list(extra))
        for f in facts:
            self.script.assert_(f.term)
        # later questions write other roots and then forget them (`_text`): walked each time
        self.script.at = len(self.script.plan)
        self.base = len(self.script.lines)

    def _text(
        self, more: Sequence[BoolTerm], objective: IntTerm | None
    ) -> tuple[str, dict[str, str]]:
        s = self.script
        keep = (dict(s.ref), dict(s.declared), s.count, len(s.lines))
        try:
            for g in more:
                s.assert_(g)
            if objective is not None:
                ref = s(objective)
                s.lines.append("(declare-const |objective!| Int)")
                s.lines.append(f"(assert (= |objective!| {ref}))")
            return s.text(), dict(s.declared)
        finally:
            s.ref, s.declared, s.count = keep[0], keep[1], keep[2]
            del s.lines[keep[3] :]

    def satisfiable(self, goals: Sequence[BoolTerm], timeout: float) -> Status:
        """Whether the facts and goals can all hold (no values read back)."""
        text, _ = self._text(goals, None)
        solver = z3.SolverFor("QF_LIA", ctx=_context())
        solver.from_string(text)
        got = _run(solver, timeout)
        return "sat" if got == z3.sat else "unsat" if got == z3.unsat else "unknown"

    def satisfiable_each(self, goals: Sequence[BoolTerm], timeout: float) -> list[Status]:
        """For each goal alone, whether the facts and it can hold: one solver, each goal behind a
        literal assumed in turn (no re-parsing per goal)."""
        s = self.script
        keep = (dict(s.ref), dict(s.declared), s.count, len(s.lines))
        try:
            for i, g in enumerate(goals):
                s.lines.append(f"(declare-const |each!{i}| Bool)")
                s.assert_(g, f"|each!{i}|")
            text = s.text()
        finally:
            s.ref, s.declared, s.count = keep[0], keep[1], keep[2]
            del s.lines[keep[3] :]
        ctx = _context()
        solver = z3.SolverFor("QF_LIA", ctx=ctx)
        solver.from_string(text)
        out: list[Status] = []
        for i in range(len(goals)):
            got = _run(solver, timeout, z3.Bool(f"each!{i}", ctx))
            out.append("sat" if got == z3.sat else "unsat" if got == z3.unsat else "unknown")
        return out

    def optimum(
        self,
        objective: IntTerm,
        *,
        maximise: bool,
        timeout: float,
        goals: Sequence[BoolTerm] = (),
        beyond: int | None = None,
    ) -> Optimum:
        """The greatest (or least) value of `objective` under the facts and goals, proved optimal.

        `beyond`, when given, is a value already proved unreachable-past (no assignment goes
        beyond it; e.g. a sum of proved bounds): it is asked first (reached, it is the optimum,
        one call), and the search then halves the gap at once. A first
        assignment gives a value; then "at least value + step" is asked, jumping to each
        new assignment's value and doubling the step, until a check is unsat; from there the gap
        is halved, the best found asked first as the optimum (is anything better?). The answer is
        proved by the last unsat check (nothing reaches one beyond it).
        A question the incremental solver cannot settle within its share of the budget gets a
        fresh solver over the same script: Z3 preprocesses a fresh problem far better than an
        incremental one. A constant objective is its own optimum. `timeout` is the wall-clock
        safety net of each solver call.
        """
        started = time.perf_counter()
        if isinstance(objective, IConst):
            return Optimum("proved", value=objective.value, seconds=0.0)

        sign = 1 if maximise else -1
        text, declared = self._text(goals, objective * sign)
        ctx = _context()
        obj = z3.Int("objective!", ctx)
        solver = z3.SolverFor("QF_LIA", ctx=ctx)
        solver.from_string(text)
        asked = [0]

        answered = [solver]

        share = _LIMIT[0] // INCREMENTAL_SHARE

        def ask(at_least: int | None, retry: bool = True) -> tuple[Any, int | None]:
            if at_least is None:
                got = _run(solver, timeout, units=share)
            else:
                lit = z3.Bool(f"at-least!{asked[0]}", ctx)
                asked[0] += 1
                solver.add(z3.Implies(lit, obj >= at_least))
                got = _run(solver, timeout, lit, units=share)
            answered[0] = solver
            if got == z3.unknown and retry:
                fresh = z3.SolverFor("QF_LIA", ctx=ctx)
                fresh.from_string(text)
                if at_least is not None:
                    fresh.add(obj >= at_least)
                got = _run(fresh, timeout)
                answered[0] = fresh
            value = None
            if got == z3.sat:
                value = answered[0].model().eval(obj, model_completion=True).as_long()
            return got, value

        ceiling: int | None = None if beyond is None else beyond * sign
        if ceiling is not None:
            # the proved bound itself is the first candidate: reached, it is the optimum at once
            # (asked of the incremental solver only: a bound past the optimum is often hard)
            got, value = ask(ceiling, retry=False)
            if got == z3.sat and value is not None:
                values = _values(answered[0].model(), declared)
                values.pop("objective!", None)
                seconds = time.perf_counter() - started
                return Optimum("proved", value=value * sign, values=values, seconds=seconds)
            if got == z3.unsat:
                ceiling -= 1
        got, best = ask(None)
        solver_of = answered
        if got == z3.unsat:
            out = check(self.facts, goals, timeout=timeout)
            core = out.core if out.status == "unsat" else ()
            return Optimum("infeasible", core=core, seconds=time.perf_counter() - started)
        if got != z3.sat or best is None:
            return Optimum(
                "unknown",
                reason=_reason(solver_of[0], timeout, started),
                seconds=time.perf_counter() - started,
            )
        model = solver_of[0].model()
        step = 1
        probe = False
        while ceiling is None or best < ceiling:
            if ceiling is None:
                target = best + step
            elif probe:
                # the best found is the candidate: only "nothing better" is left to prove, which
                # settles it in one call where the search already found the optimum
                target = best + 1
            else:
                target = (best + ceiling + 1) // 2
            got, value = ask(target)
            if got == z3.sat and value is not None:
                model = solver_of[0].model()
                best = value
                step *= 2
                probe = False
            elif got == z3.unsat:
                ceiling = target - 1
                probe = target > best + 1
            else:
                return Optimum(
                    "unknown",
                    value=best * sign,
                    values=_values(model, declared),
                    reason=_reason(solver_of[0], timeout, started),
                    seconds=time.perf_counter() - started,
                )
        values = _values(model, declared)
        values.pop("objective!", None)
        return Optimum(
            "proved", value=best * sign, values=values, seconds=time.perf_counter() - started
        )


def optimum(
    facts: Sequence[Fact],
    objective: IntTerm,
    *,
    maximise: bool,
    timeout: float,
    goals: Sequence[BoolTerm] = (),
) -> Optimum:
    """`Problem(facts).optimum(...)`, for a single question."""
    return Problem(facts).optimum(objective, maximise=maximise, timeout=timeout, goals=goals)


def version() -> str:
    """The Z3 version in use."""
    return str(z3.get_version_string())


__all__ = [
    "DEFAULT_RLIMIT",
    "Optimum",
    "Outcome",
    "Problem",
    "Status",
    "check",
    "check_claim",
    "optimum",
    "preload",
    "reset_usage",
    "rlimit",
    "set_rlimit",
    "usage",
    "use_rlimit",
    "version",
]
