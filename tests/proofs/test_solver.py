"""The term language and the Z3 bridge: both back ends agree, cores are minimal, a timeout is
UNKNOWN, optima are right (checked by brute force)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbitro.proofs import smt
from arbitro.proofs.facts import Facts
from arbitro.proofs.terms import (
    Bool,
    BoolTerm,
    Evaluator,
    Int,
    IntTerm,
    Term,
    all_of,
    any_of,
    children,
    implies,
    ite,
    substitute,
    total,
    values_of,
    variables,
)
from arbitro.proofs.verdict import Verdict, Witness, prove

X, Y, Z = Int("x"), Int("y"), Int("z")
B = Bool("b")


@st.composite
def int_terms(draw: st.DrawFn, depth: int = 3) -> IntTerm:
    if depth == 0 or draw(st.booleans()):
        leaf = draw(st.sampled_from(["x", "y", "z", "c"]))
        return {"x": X, "y": Y, "z": Z}.get(leaf) or (X * 0 + draw(st.integers(-6, 6)))
    op = draw(st.sampled_from(["add", "sub", "mul", "ite", "mod"]))
    a = draw(int_terms(depth - 1))
    if op == "mul":
        return a * draw(st.integers(-3, 3))
    if op == "mod":
        return a % draw(st.integers(1, 5))
    b = draw(int_terms(depth - 1))
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    return ite(draw(bool_terms(depth - 1)), a, b)


@st.composite
def bool_terms(draw: st.DrawFn, depth: int = 2) -> BoolTerm:
    if depth == 0 or draw(st.booleans()):
        a, b = draw(int_terms(0)), draw(int_terms(0))
        op = draw(st.sampled_from(["<=", "<", "==", "!="]))
        return {"<=": a <= b, "<": a < b, "==": a.eq(b), "!=": a.ne(b)}[op]
    op = draw(st.sampled_from(["and", "or", "not", "implies"]))
    a = draw(bool_terms(depth - 1))
    if op == "not":
        return ~a
    c = draw(bool_terms(depth - 1))
    return {"and": a & c, "or": a | c, "implies": implies(a, c)}[op]


@settings(max_examples=60)  # two solver calls an example
@given(int_terms(), st.integers(-9, 9), st.integers(-9, 9), st.integers(-9, 9))
def test_compiled_python_and_z3_give_one_value(t: IntTerm, x: int, y: int, z: int) -> None:
    """The refinement tests evaluate terms as Python; the proofs hand them to Z3: same value."""
    got = Evaluator([t], ["x", "y", "z"])([x, y, z])[0]
    f = Facts()
    f.given(all_of((X.eq(x), Y.eq(y), Z.eq(z))))
    assert smt.check(f.items, [t.eq(got)], timeout=10).status == "sat"
    assert smt.check(f.items, [t.ne(got)], timeout=10).status == "unsat"


@settings(max_examples=200)
@given(bool_terms(3), st.integers(-9, 9), st.integers(-9, 9), st.integers(-9, 9), st.booleans())
def test_walking_a_term_and_putting_terms_in_give_the_compiled_value(
    t: BoolTerm, x: int, y: int, z: int, b: bool
) -> None:
    """The proofs evaluate terms met once by walking them (`values_of`) and ask the solver with
    defined unknowns put in (`substitute`): both give the compiled function's value, and putting
    y := x + z in gives the value at y = x + z."""
    env = {"x": x, "y": y, "z": z, "b": b}
    names = list(env)
    compiled = Evaluator([t], names)
    assert values_of([t], env) == [compiled(list(env.values()))[0]]
    (put,) = substitute([t], {"y": X + Z})
    at = {**env, "y": x + z}
    assert values_of([put], at) == [compiled(list(at.values()))[0]]
    assert "y" not in {v.name for v in variables([put])}


def test_a_sum_of_thousands_of_terms_compiles_and_adds_up() -> None:
    """samba-fr's score encoding sums thousands of unknowns in one term: the evaluator must
    compile it (Python's compiler recurses on a long `a + b + ...`) and give the sum."""
    xs = [Int(f"x{i}") for i in range(5000)]
    ev = Evaluator([total(3 * x for x in xs) + 7], [x.name for x in xs])
    values = [i % 11 for i in range(5000)]
    assert ev(values) == (3 * sum(values) + 7,)


def test_an_unsat_core_names_only_the_clauses_needed() -> None:
    """Of four clauses, x >= 3 and y >= 4 and x + y <= 5 cannot hold together; 'bk:d' is idle."""
    f = Facts()
    f.given(X >= 0)
    f.add("bk:a", X + Y <= 5)
    f.add("bk:b", Y >= 4)
    f.add("bk:c", X >= 3)
    f.add("bk:d", B | (X > 100))
    out = smt.check(f.items, timeout=10)
    assert out.status == "unsat"
    assert out.core == ("bk:a", "bk:b", "bk:c")


def test_a_timeout_is_unknown_never_proved() -> None:
    """A subset-sum instance too big for a millisecond: the claim comes out UNKNOWN."""
    weights = [(i * 7919 + 104729) % 99991 + 100000 for i in range(60)]
    xs = [Int(f"x{i}") for i in range(60)]
    f = Facts()
    for x in xs:
        f.given(all_of((x >= 0, x <= 1)))
    target = sum(weights) // 2 + 1
    claim = total(w * x for w, x in zip(weights, xs, strict=True)).ne(target)
    check = prove("hard", "no subset hits the target", f.items, claim, lambda v: Witness(""), 0.001)
    assert check.verdict is Verdict.UNKNOWN
    assert "timeout" in check.reason


def test_optimum_matches_brute_force() -> None:
    """Maximise and minimise 3x - 2y + z over a small box with a disjunction, by the solver and
    by trying every point."""
    f = Facts()
    f.given(all_of((X >= -4, X <= 5, Y >= -3, Y <= 6, Z >= 0, Z <= 4)))
    f.given(any_of((X + Y <= 3, Z.eq(0))))
    f.given(implies(B, X > Y))
    obj = 3 * X - 2 * Y + Z
    points = [
        3 * x - 2 * y + z
        for x, y, z in itertools.product(range(-4, 6), range(-3, 7), range(0, 5))
        if (x + y <= 3 or z == 0)
    ]
    hi = smt.optimum(f.items, obj, maximise=True, timeout=10)
    lo = smt.optimum(f.items, obj, maximise=False, timeout=10)
    assert (hi.status, hi.value) == ("proved", max(points))
    assert (lo.status, lo.value) == ("proved", min(points))


def test_an_infeasible_optimum_names_the_clash() -> None:
    f = Facts()
    f.add("bk:low", X <= 1)
    f.add("bk:high", X >= 2)
    out = smt.optimum(f.items, X, maximise=True, timeout=10)
    assert out.status == "infeasible"
    assert out.core == ("bk:low", "bk:high")


def test_a_vacuous_proof_is_marked_with_its_clash() -> None:
    f = Facts()
    f.add("bk:low", X <= 1)
    f.add("bk:high", X >= 2)
    check = prove("v", "x is 7", f.items, X.eq(7), lambda v: Witness(""), 10)
    assert check.verdict is Verdict.PROVED and check.vacuous
    assert check.core == ("bk:low", "bk:high")


def test_a_refutation_carries_the_decoded_assignment() -> None:
    f = Facts()
    f.given(all_of((X >= 0, X <= 3)))
    check = prove("r", "x is below 3", f.items, X < 3, lambda v: Witness(f"x={v['x']}"), 10)
    assert check.verdict is Verdict.REFUTED
    assert check.witness is not None and check.witness.text == "x=3"


def test_a_name_the_script_cannot_quote_is_refused() -> None:
    with pytest.raises(ValueError, match="may not hold"):
        smt.check([], [Int("a|b") >= 0], timeout=1)


def _walked(facts: list[BoolTerm]) -> str:
    """The script written root by root, each walked on its own (`terms.postorder` leaving out
    what was written), with each sub-term's parents counted by a walk of their own: what the
    one-walk plan must reproduce."""
    script = smt._Script()
    seen: set[int] = set()
    todo: list[Term] = list(facts)
    while todo:
        t = todo.pop()
        if id(t) not in seen:
            seen.add(id(t))
            for c in children(t):
                script.parents[id(c)] = script.parents.get(id(c), 0) + 1
                todo.append(c)
    for f in facts:
        script.assert_(f)
    assert not script.plan  # nothing planned: every root walked
    return script.text()


def _planned(facts: list[BoolTerm]) -> str:
    script = smt._Script()
    script.share(facts)
    for f in facts:
        script.assert_(f)
    return script.text()


@settings(max_examples=60, deadline=None)
@given(st.lists(bool_terms(), min_size=1, max_size=6), st.randoms(use_true_random=False))
def test_the_planned_script_is_the_one_walked_root_by_root(
    roots: list[BoolTerm], rnd: object
) -> None:
    """Roots sharing sub-terms (the same objects used again, some roots twice): the script planned
    in one walk is the text of one walk per root, definitions and all."""
    import random

    assert isinstance(rnd, random.Random)
    facts = list(roots)
    pick = rnd.choice
    facts += [pick(roots) & pick(roots), ~pick(roots), implies(pick(roots), pick(roots))]
    facts += [pick(roots) | ~pick(facts)]
    facts.append(facts[0])
    assert _planned(facts) == _walked(facts)
    # written out of the planned order, the plan is given up and the text is still a whole script
    script = smt._Script()
    script.share(facts)
    script.assert_(facts[-2])
    for f in facts:
        script.assert_(f)
    assert script.at == len(script.plan)
