"""Property `conservation`: no atomic move creates, loses or copies a card.

For every relation of `arbitro.proofs.rummy.moves` — drawing (red threes laid out and replaced),
an exhausted stock, a turn's owed replacements, taking the pile, laying, adding, merging, cleaning,
finishing an opening, discarding, and the moves that touch no card — and for the deal of every
layout, the solver proves that the count of every card kind summed over all zones is the same
after the move as before, for every pre-state the relation admits: an inductive invariant (the
deal starts from the deck; every move keeps each kind's total), not a sample of plays.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from arbitro.model.schema import RummyRules
from arbitro.proofs.rummy import cards as C
from arbitro.proofs.rummy.moves import (
    DealRelation,
    Relation,
    conserved,
    deal_relation,
    relations,
)
from arbitro.proofs.terms import Value
from arbitro.proofs.vectors import read
from arbitro.proofs.verdict import Check, Result, Witness, prove

NAME = "conservation"
STATEMENT = (
    "every atomic move (deal, draw, red-three replacement, pile take, lay, add, merge, clean, "
    "opening, discard…) keeps the count of every card kind summed over all zones"
)

Tamper = Callable[[Relation], Relation]


def _zones_text(values: Mapping[str, Value], prefixes: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for p in prefixes:
        cards = C.names(read(values, p, C.KINDS))
        if cards:
            out[p] = cards
    return out


def _differences(values: Mapping[str, Value], pre: list[str], post: list[str]) -> list[str]:
    """The kinds whose totals differ, as 'QH: 3 before, 2 after'."""
    out = []
    for k in range(C.KINDS):
        before = sum(int(values.get(f"{p}[{k}]", 0)) for p in pre)
        after = sum(int(values.get(f"{p}[{k}]", 0)) for p in post)
        if before != after:
            out.append(f"{C.name(k)}: {before} before, {after} after")
    return out


def move_check(rel: Relation, timeout: float) -> Check:
    pre = [f"pre:{z}" for z in rel.pre]
    post = [f"post:{z}" for z in rel.post]

    def decode(v: Mapping[str, Value]) -> Witness:
        diff = _differences(v, pre, post)
        zones = _zones_text(v, [*pre, *post, *(f"param:{p}" for p in rel.params)])
        scal = {n: v.get(n) for n in rel.scalars}
        return Witness(
            f"{rel.move} changes the totals: {'; '.join(diff)}",
            {"differences": diff, "zones": zones, "scalars": scal},
        )

    claim = conserved(list(rel.pre.values()), list(rel.post.values()))
    statement = f"{rel.move} keeps every card kind's total"
    # one session: the claim under every fact of the move, then (proved) the facts alone, whose
    # unsat says the move never happens under the book's clauses
    return prove(rel.move, statement, rel.facts.items, claim, decode, timeout, minimise=False)


def deal_check(deal: DealRelation, timeout: float) -> Check:
    name = f"deal/{deal.layout.name or deal.layout.players}"

    def decode(v: Mapping[str, Value]) -> Witness:
        post = [f"hand{s}" for s in range(deal.layout.players)]
        post += [f"reds{i}" for i in range(deal.layout.sides)] + ["upcard", "stock"]
        full = deal.deck.counts()
        diff = []
        for k in range(C.KINDS):
            after = sum(int(v.get(f"{p}[{k}]", 0)) for p in post)
            if after != full[k]:
                diff.append(f"{C.name(k)}: {full[k]} in the deck, {after} after the deal")
        return Witness(
            f"the deal changes the totals: {'; '.join(diff)}",
            {"differences": diff, "zones": _zones_text(v, post)},
        )

    return prove(
        name,
        f"the deal of layout {deal.layout.name or deal.layout.players} puts every card somewhere once",
        deal.facts.items,
        conserved(deal.pre_total(), deal.post_zones()),
        decode,
        timeout,
        minimise=False,
    )


def run(rules: RummyRules, timeout: float, tamper: Tamper | None = None) -> Result:
    started = time.perf_counter()
    checks: list[Check] = []
    seen: set[tuple[int, int, int, int]] = set()
    for lay in rules.layouts:
        d = C.deck(rules, lay)
        key = (lay.players, lay.sides, lay.hand_size, d.packs)
        if key in seen:
            continue
        seen.add(key)
        checks.append(deal_check(deal_relation(rules, lay), timeout))
    for rel in relations(rules).values():
        if tamper is not None:
            rel = tamper(rel)
        checks.append(move_check(rel, timeout))
    moves = len(checks)
    return Result(
        NAME,
        rules.rulebook,
        {},
        STATEMENT,
        tuple(checks),
        f"{moves} moves and deals keep every card kind's total",
        time.perf_counter() - started,
    )


__all__ = ["NAME", "STATEMENT", "Tamper", "deal_check", "move_check", "run"]
