"""The refiner's fast paths answer exactly as the plain evaluation does.

`facts.SlotChecker` remembers each group's failing facts by its slots' values (the last ones, and
by identity); `terms.Evaluator(..., exact=True)` unpacks its values at once, and with `slots`
takes them a slot at a time; the rummy refiner's vector sums are remembered by their operands. Each is compared here with the plain
computation on random values, with objects reused, rebuilt equal and changed, so that an answer
remembered for other values, or a stale one, fails the test."""

from __future__ import annotations

import random

import pytest

from arbitro.proofs.facts import Fact, FactChecker, SlotChecker
from arbitro.proofs.rummy import abstract
from arbitro.proofs.terms import Evaluator, Int, all_of, evaluate, ite, total


def _facts() -> tuple[list[Fact], list[list[str]]]:
    xs = [Int(f"x[{k}]") for k in range(3)]
    zs = [Int(f"z[{k}]") for k in range(3)]
    y = Int("y")
    facts = [
        Fact("c:domain", all_of(x >= 0 for x in xs), "x is a count"),
        Fact("c:sum", (xs[0] + xs[1]).eq(y), "the first two make y"),
        Fact("c:cap", xs[2] <= y, "the third at most y"),
        Fact("c:moved", total(z - x for x, z in zip(xs, zs, strict=True)).eq(0), "z moves x"),
        Fact("c:ite", ite(y > 2, zs[0], zs[1]) >= 1, "a branch of z"),
        Fact("c:none", all_of([y.eq(y)]), "no slot"),
    ]
    return facts, [[f"x[{k}]" for k in range(3)], [f"z[{k}]" for k in range(3)], ["y"]]


def test_slot_checker_answers_as_the_plain_evaluation() -> None:
    facts, slots = _facts()
    plain = FactChecker(facts, [n for s in slots for n in s])
    fast = SlotChecker(facts, slots)
    rng = random.Random(3)
    pool = [tuple(rng.randrange(-1, 3) for _ in range(3)) for _ in range(6)]
    values: list[object] = [pool[0], pool[1], 1]
    failures = 0
    for _ in range(3000):
        slot = rng.randrange(3)
        how = rng.random()
        if slot == 2:
            values[2] = rng.randrange(-1, 5)
        elif how < 0.4:
            values[slot] = rng.choice(pool)  # an object met before
        elif how < 0.7:
            values[slot] = tuple(values[slot])  # type: ignore[arg-type]  # the same object again
        else:  # an equal vector rebuilt, or a new one
            old = values[slot]
            values[slot] = (
                tuple(list(old))
                if rng.random() < 0.5
                # type: ignore[call-overload]
                else (tuple(rng.randrange(-1, 3) for _ in range(3)))
            )
        flat = [*values[0], *values[1], values[2]]  # type: ignore[misc]
        want = [f.clause for f in plain.failing(flat)]
        assert [f.clause for f in fast.failing(values)] == want, values
        assert fast.holds(values) == (not want)
        failures += bool(want)
    assert 0 < failures < 3000  # both verdicts were met


def test_exact_evaluator_unpacks_one_value_per_name() -> None:
    facts, slots = _facts()
    names = [n for s in slots for n in s]
    fc = FactChecker(facts, names)
    rng = random.Random(5)
    for _ in range(200):
        flat = [rng.randrange(-1, 4) for _ in names]
        env = dict(zip(names, flat, strict=True))
        want = [f.clause for f in facts if not evaluate(f.term, env)]
        assert [f.clause for f in fc.failing(flat)] == want
        # a longer list (one value past the names) is read one by one, as before
        assert [f.clause for f in fc.failing([*flat, 99])] == want
    with pytest.raises(ValueError):
        fc.evaluator(flat[:-1])


def test_vector_sums_remembered_by_their_operands_are_right() -> None:
    rng = random.Random(11)
    kept: list[tuple[int, ...]] = []
    for _ in range(2000):
        if kept and rng.random() < 0.5:
            a = rng.choice(kept)
        else:
            a = tuple(rng.randrange(0, 4) for _ in range(abstract.K))
            kept.append(a)
        b = (
            rng.choice(kept)
            if rng.random() < 0.5
            else tuple(rng.randrange(0, 2) for _ in range(abstract.K))
        )
        assert abstract.plus(a, b) == tuple(x + y for x, y in zip(a, b, strict=True))
        assert abstract.minus(a, b) == tuple(x - y for x, y in zip(a, b, strict=True))
        if len(kept) > 50:
            kept.pop(0)  # freed objects: their identities may be used again
    # a list is never remembered (it could change in place)
    v = [1] * abstract.K
    w = abstract.plus(v, v)
    v[0] = 5
    assert abstract.plus(v, v)[0] == 10 and w[0] == 2


def test_vector_totals_remembered_by_their_operands_are_right() -> None:
    rng = random.Random(13)
    kept: list[tuple[int, ...]] = []
    for _ in range(2000):
        n = rng.randrange(0, 5)
        vectors = []
        for _ in range(n):
            if kept and rng.random() < 0.6:
                vectors.append(rng.choice(kept))
            else:
                v = tuple(rng.randrange(0, 3) for _ in range(abstract.K))
                kept.append(v)
                vectors.append(v)
        want = tuple(sum(v[k] for v in vectors) for k in range(abstract.K))
        assert abstract.total_of(vectors) == want
        assert abstract.total_of([list(v) for v in vectors]) == want
        if len(kept) > 40:
            kept.pop(0)  # freed objects: their identities may be used again


def test_evaluator_by_slots_answers_as_the_flat_one() -> None:
    facts, slots = _facts()
    names = [n for s in slots for n in s]
    flat = FactChecker(facts, names)
    by_slots = Evaluator([f.term for f in facts], names, slots=[len(s) for s in slots])
    rng = random.Random(17)
    for _ in range(300):
        x = tuple(rng.randrange(-1, 4) for _ in range(3))
        z = tuple(rng.randrange(-1, 4) for _ in range(3))
        y = rng.randrange(-1, 5)
        want = [f.clause for f in flat.failing([*x, *z, y])]
        got = by_slots.fn(x, z, y)
        assert [f.clause for f, ok in zip(facts, got, strict=True) if not ok] == want
    with pytest.raises(ValueError):
        Evaluator([f.term for f in facts], names, slots=[3, 3])  # one name left over
    with pytest.raises(ValueError):
        by_slots.fn((1, 2), z, y)  # a slot of three given two values
