"""Property `meld-caps`: every meld laid, and every meld grown by admitted moves, keeps the caps.

An inductive invariant over a single meld: the caps (`cap_facts`: wild limits, sizes, escalera
shape, how far a canasta may grow) hold of every meld the lay rules accept, and are kept by every
addition, merge and cleaning the rules accept — proved for all melds the deck allows, not sampled.
The rules that admit a move (the *guard*) and the caps are both read from the rules; a test breaks
one of them alone (a wild cap raised in the addition rule only) and gets a counterexample.

Also reported: the largest meld of each kind the caps allow (proved by an optimum) and the
largest one reachable by the moves (with the steps that build it).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from arbitro.model.schema import RummyRules
from arbitro.proofs import smt
from arbitro.proofs.facts import FactChecker, Facts
from arbitro.proofs.rummy.cards import KINDS, largest_deck, names
from arbitro.proofs.rummy.melds import (
    MeldTerms,
    add_facts,
    cap_facts,
    clean_facts,
    deck_facts,
    lay_facts,
    merge_facts,
    one_card,
)
from arbitro.proofs.rummy.shapes import Step, reachable_shapes, shape_cards
from arbitro.proofs.terms import BoolTerm, Value, all_of, any_of
from arbitro.proofs.vectors import names_of, read, unknowns
from arbitro.proofs.verdict import Check, Result, Verdict, Witness, prove

NAME = "meld-caps"
STATEMENT = (
    "every meld laid, and every meld grown by admitted additions, merges and cleanings, keeps "
    "the book's caps: wild limits, sizes, escaleras of one suit in sequence without wilds"
)


def _broken(rules: RummyRules, caps: Facts, values: Mapping[str, Value], prefix: str) -> list[str]:
    """The cap facts the vector `prefix` breaks, as 'clause (note)'."""
    ck = FactChecker(caps.items, names_of(prefix, KINDS))
    return [f"{f.clause} ({f.note})" for f in ck.failing(read(values, prefix, KINDS))]


def meld_caps(
    rules: RummyRules, timeout: float, guard: RummyRules | None = None
) -> tuple[Check, ...]:
    """The four induction steps (lay, add, merge, clean), each a Check."""
    g = guard or rules
    d = largest_deck(rules)
    out: list[Check] = []

    # laying
    m = unknowns("m", KINDS)
    tm = MeldTerms(m, rules)
    gm = MeldTerms(m, g)
    f = Facts()
    deck_facts(f, rules, m, d, "the meld")
    f.extend(lay_facts(g, gm))
    caps_m = cap_facts(rules, tm)

    def dec_lay(v: Mapping[str, Value]) -> Witness:
        cards = names(read(v, "m", KINDS))
        broken = _broken(rules, caps_m, v, "m")
        return Witness(
            f"the lay rules accept {' '.join(cards)}, which breaks {'; '.join(broken)}",
            {"meld": cards, "breaks": broken},
        )

    out.append(
        prove(
            "lay",
            "a meld as laid keeps the caps",
            f.items,
            caps_m.items,
            dec_lay,
            timeout,
            minimise=False,
        )
    )

    # adding one card, one meld kind at a time (each query is smaller and says which kind)
    c = unknowns("c", KINDS)
    grown = m + c
    t_grown = MeldTerms(grown, rules)
    caps_grown = cap_facts(rules, t_grown)

    def dec_add(v: Mapping[str, Value]) -> Witness:
        before, card = read(v, "m", KINDS), read(v, "c", KINDS)
        after = names([x + y for x, y in zip(before, card, strict=True)])
        ck = FactChecker(caps_grown.items, names_of("m", KINDS) + names_of("c", KINDS))
        broken = [f"{x.clause} ({x.note})" for x in ck.failing(before + card)]
        return Witness(
            f"{' '.join(names(card))} may join {' '.join(names(before))}, giving "
            f"{' '.join(after)}, which breaks {'; '.join(broken)}",
            {"meld": names(before), "card": names(card), "after": after, "breaks": broken},
        )

    for label, indicator in (
        ("set", tm.is_set),
        ("escalera", tm.is_seq),
        ("wild", tm.is_wild),
        ("black-three", tm.is_black3),
    ):
        f = Facts()
        deck_facts(f, rules, grown, d, "the meld with the card")
        f.given(m.nonneg(), "counts are not negative")
        f.given(indicator, f"the meld is a {label} meld")
        one_card(f, c, "the card added")
        f.extend(cap_facts(rules, tm))
        f.extend(add_facts(g, gm, c))
        out.append(
            prove(
                f"add/{label}",
                f"adding an admitted card to a {label} meld within the caps keeps it within them",
                f.items,
                caps_grown.items,
                dec_add,
                timeout,
                minimise=False,
            )
        )

    # merging two sets
    a, b = unknowns("a", KINDS), unknowns("b", KINDS)
    u = a + b
    ta, tb, tu = MeldTerms(a, rules), MeldTerms(b, rules), MeldTerms(u, rules)
    ga, gb, gu = MeldTerms(a, g), MeldTerms(b, g), MeldTerms(u, g)
    f = Facts()
    deck_facts(f, rules, u, d, "the two melds")
    f.given(a.nonneg() & b.nonneg(), "counts are not negative")
    f.extend(cap_facts(rules, ta))
    f.extend(cap_facts(rules, tb))
    f.extend(merge_facts(g, ga, gb, gu))
    caps_u = cap_facts(rules, tu)

    def dec_merge(v: Mapping[str, Value]) -> Witness:
        x, y = read(v, "a", KINDS), read(v, "b", KINDS)
        union = [p + q for p, q in zip(x, y, strict=True)]
        ck = FactChecker(caps_u.items, names_of("a", KINDS) + names_of("b", KINDS))
        broken = [f"{z.clause} ({z.note})" for z in ck.failing(x + y)]
        return Witness(
            f"{' '.join(names(x))} and {' '.join(names(y))} may be joined into "
            f"{' '.join(names(union))}, which breaks {'; '.join(broken)}",
            {"melds": [names(x), names(y)], "after": names(union), "breaks": broken},
        )

    out.append(
        prove(
            "merge",
            "joining two admitted sets keeps the caps",
            f.items,
            caps_u.items,
            dec_merge,
            timeout,
            minimise=False,
        )
    )

    # cleaning: a wild swapped for a natural from the hand
    n, w = unknowns("n", KINDS), unknowns("w", KINDS)
    after = m - w + n
    t_after = MeldTerms(after, rules)
    f = Facts()
    deck_facts(f, rules, m + n, d, "the meld and the natural")
    f.given(m.nonneg(), "counts are not negative")
    one_card(f, n, "the natural put in")
    one_card(f, w, "the wild taken out")
    f.extend(cap_facts(rules, tm))
    f.extend(clean_facts(g, gm, n, w))
    caps_after = cap_facts(rules, t_after)

    def dec_clean(v: Mapping[str, Value]) -> Witness:
        before = read(v, "m", KINDS)
        nat, wild = read(v, "n", KINDS), read(v, "w", KINDS)
        res = [p - q + r for p, q, r in zip(before, wild, nat, strict=True)]
        return Witness(
            f"swapping {' '.join(names(wild))} out of {' '.join(names(before))} for "
            f"{' '.join(names(nat))} gives {' '.join(names(res))}, outside the caps",
            {
                "meld": names(before),
                "natural": names(nat),
                "wild": names(wild),
                "after": names(res),
            },
        )

    out.append(
        prove(
            "clean",
            "swapping a wild of a set for a natural keeps the caps",
            f.items,
            caps_after.items,
            dec_clean,
            timeout,
            minimise=False,
        )
    )
    return tuple(out)


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def exact(rules: RummyRules, timeout: float, guard: RummyRules | None = None) -> tuple[Check, ...]:
    """The other half of `meld_caps`: every meld within the caps is one the moves build. The
    shapes the relation's meld guards reach (laid, then grown by additions, merges and
    cleanings: `reachable_shapes`, closing `lay_facts`, `add_facts`, `merge_facts` and
    `clean_facts` — the meld guards of the lay, add, merge and replace-wild moves) are a finite
    table; proved: no meld of the deck within the caps has a shape outside it (for sets, the
    (naturals, wilds) pair; for escaleras, the stretch of positions; wild melds, their size;
    black-three melds, their black threes and wilds). A guard stricter than the caps (a wild
    limit halved, a meld minimum raised) is REFUTED here, with a meld the moves never build."""
    g = guard or rules
    d = largest_deck(rules)
    shapes = reachable_shapes(g, d)
    m = unknowns("m", KINDS)
    tm = MeldTerms(m, rules)
    base = Facts()
    deck_facts(base, rules, m, d, "the meld")
    caps = cap_facts(rules, tm)
    base.extend(caps)
    pos = tm.positions

    def span(lo: int, hi: int) -> BoolTerm:
        return all_of(
            tm.nat[r] >= 1 if lo <= i <= hi else tm.nat[r].eq(0) for i, r in enumerate(pos)
        )

    tables: list[tuple[str, BoolTerm, BoolTerm]] = [
        (
            "set",
            tm.is_set,
            any_of(all_of((tm.naturals.eq(n), tm.wilds.eq(w))) for n, w in shapes.sets),
        ),
        ("escalera", tm.is_seq, any_of(span(lo, hi) for lo, hi in shapes.runs)),
        ("wild", tm.is_wild, any_of(tm.size.eq(n) for (n,) in shapes.wilds)),
        (
            "black-three",
            tm.is_black3,
            any_of(all_of((tm.blacks.eq(b), tm.wilds.eq(w))) for b, w in shapes.blacks),
        ),
    ]
    out: list[Check] = []
    for label, indicator, built in tables:

        def dec(v: Mapping[str, Value], label: str = label) -> Witness:
            cards = names(read(v, "m", KINDS))
            return Witness(
                f"{' '.join(cards)} is {_a(label)} meld within the caps that no lay, addition, "
                "merge or cleaning the moves admit builds",
                {"meld": cards},
            )

        f = Facts([*base])
        f.given(indicator, f"the meld is a {label} meld")
        out.append(
            prove(
                f"exact/{label}",
                f"every {label} meld within the caps is built by the moves",
                f.items,
                built,
                dec,
                timeout,
                minimise=False,
            )
        )
    return tuple(out)


KIND_TERMS = ("set", "escalera", "wild", "black-three")


def largest(rules: RummyRules, timeout: float) -> tuple[Check, dict[str, object]]:
    """The largest meld of each kind the caps allow (a proved optimum) against the largest the
    moves reach (a built example); a Check PROVED when every optimum is proved."""
    started = time.perf_counter()
    d = largest_deck(rules)
    shapes = reachable_shapes(rules, d)
    m = unknowns("m", KINDS)
    tm = MeldTerms(m, rules)
    base = Facts()
    deck_facts(base, rules, m, d, "the meld")
    base.extend(cap_facts(rules, tm))
    values: dict[str, object] = {}
    verdicts: list[Verdict] = []
    reasons: list[str] = []
    tables: dict[str, tuple[BoolTerm, dict[Any, Step]]] = {
        "set": (tm.is_set, shapes.sets),
        "escalera": (tm.is_seq, shapes.runs),
        "wild": (tm.is_wild, shapes.wilds),
        "black-three": (tm.is_black3, shapes.blacks),
    }
    for label, (indicator, table) in tables.items():
        entry: dict[str, object] = {}
        best = max(table, key=lambda s: _size(label, s)) if table else None
        if best is not None:
            entry["reached"] = _size(label, best)
            entry["reached_example"] = shape_cards(label, best, d, rules)
            entry["built_by"] = shapes.path(table, best)
        # the caps' own bound: from the size reached, ask for anything bigger until none is
        bound = _size(label, best) if best is not None else 0
        example: list[str] = list(entry.get("reached_example", []))  # type: ignore[call-overload]
        while True:
            out = smt.check(
                base.items, [indicator, tm.size > bound], timeout=timeout, minimise=False
            )
            if out.status == "sat":
                bigger = read(out.values, "m", KINDS)
                bound = sum(bigger)
                example = names(bigger)
                continue
            if out.status == "unknown":
                verdicts.append(Verdict.UNKNOWN)
                reasons.append(f"{label}: {out.reason}")
                entry["caps_allow"] = None
            else:
                verdicts.append(Verdict.PROVED)
                entry["caps_allow"] = bound if best is not None or bound else None
                if entry["caps_allow"] is not None:
                    entry["example"] = example
            break
        values[label] = entry
    verdict = Verdict.UNKNOWN if Verdict.UNKNOWN in verdicts else Verdict.PROVED
    check = Check(
        "sizes",
        "no meld of any kind exceeds the largest size the caps allow (each optimum proved)",
        verdict,
        time.perf_counter() - started,
        reason="; ".join(reasons),
        values=values,
    )
    return check, values


def _size(label: str, shape: tuple[int, ...]) -> int:
    if label == "escalera":
        return shape[1] - shape[0] + 1
    if label == "wild":
        return shape[0]
    return shape[0] + shape[1]


def summary(values: Mapping[str, object]) -> str:
    """Largest melds in words: 'sets 14, escaleras 7, black threes 8'."""
    parts = []
    for label in KIND_TERMS:
        e = values.get(label)
        if not isinstance(e, dict) or e.get("caps_allow") is None:
            continue
        reached = e.get("reached")
        cap = e["caps_allow"]
        shown = f"{cap}" if reached == cap else f"{reached} reached, {cap} allowed"
        parts.append(f"{label} ≤ {shown}")
    return "largest: " + ", ".join(parts) if parts else "no meld can be laid"


def run(rules: RummyRules, timeout: float, guard: RummyRules | None = None) -> Result:
    started = time.perf_counter()
    checks = [*meld_caps(rules, timeout, guard), *exact(rules, timeout, guard)]
    size_check, values = largest(rules, timeout)
    checks.append(size_check)
    return Result(
        NAME,
        rules.rulebook,
        {},
        STATEMENT,
        tuple(checks),
        summary(values),
        time.perf_counter() - started,
        values=values,
    )


__all__ = ["NAME", "STATEMENT", "exact", "largest", "meld_caps", "run"]
