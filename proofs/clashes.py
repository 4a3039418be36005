"""Clause clashes: a permission of a book that the book's other clauses make impossible.

A book that allows a kind of meld, or going out, must leave some way to do it. For each such
permission the solver is asked for one meld (or one end-of-hand configuration) that uses it under
all of the book's meld (or scoring) clauses; unsat means the clauses cannot all hold at once, and the
minimised unsat core names them. A clash may show only through a consequence: a wild-only meld that
must be started with more wild cards than a meld may hold is not two rules in one sentence, but the
core names both. Each permission is checked under every reading of the book (`readings`), since a
clash often belongs to one reading only.

Implements the check of *:sequences, *:wild-canasta, *:black-threes-meld, *:go-out-min-completed
against the meld and scoring clauses (proofs/rummy/melds.py, proofs/rummy/score.py).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from arbitro.model.rummy.family import FAMILY as RUMMY
from arbitro.model.schema import RummyRules
from arbitro.model.spec import Rulebook
from arbitro.proofs import smt
from arbitro.proofs.facts import Facts


@dataclass(frozen=True)
class Clash:
    """A permission the other clauses rule out, under one reading: what, and the clauses' core."""

    rulebook: str
    permission: str  # what the book allows, in its words
    clause: str  # the clause granting the permission
    core: tuple[str, ...]
    options: Mapping[str, str | bool] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "rulebook": self.rulebook,
            "permission": self.permission,
            "clause": self.clause,
            "core": list(self.core),
            "options": dict(self.options),
        }


def _permissions(r: RummyRules) -> Iterator[tuple[str, str, str]]:
    """(what, clause key, meld kind) for each kind of meld the book allows to be laid."""
    yield "a set of one rank", "set_min", "set"
    if r.sequences:
        yield "an escalera", "sequences", "seq"
    if r.wild_canasta:
        yield "a meld of wild cards only", "wild_canasta", "wild"
    if r.black_threes_meld != "never":
        yield "a meld of black threes when going out", "black_threes_meld", "black3"


def clashes(r: RummyRules, timeout: float = 30.0) -> list[Clash]:
    """Every permission of the rules that its other clauses make impossible, with the core."""
    from arbitro.proofs.rummy import cards as C
    from arbitro.proofs.rummy import score
    from arbitro.proofs.rummy.melds import MeldTerms, cap_facts, deck_facts, lay_facts
    from arbitro.proofs.vectors import unknowns

    out: list[Clash] = []
    m = unknowns("m", C.KINDS)
    t = MeldTerms(m, r)
    f = Facts()
    deck_facts(f, r, m, C.largest_deck(r), "the meld")
    f.extend(lay_facts(r, t))
    kinds = {"set": t.is_set, "seq": t.is_seq, "wild": t.is_wild, "black3": t.is_black3}
    for what, key, kind in _permissions(r):
        got = smt.check(f.items, [kinds[kind]], timeout=timeout, values=False)
        if got.status == "unsat":
            out.append(Clash(r.rulebook, f"{what} may be laid", r.cid(key), got.core))
    # a kind that may be laid but never completed: the bonus for its canasta is out of reach
    g = Facts()
    deck_facts(g, r, m, C.largest_deck(r), "the meld")
    g.extend(cap_facts(r, t))
    for what, key, kind in _permissions(r):
        if kind == "black3":
            continue
        goal = [kinds[kind], t.size >= r.completed_size]
        got = smt.check(g.items, goal, timeout=timeout, values=False)
        if got.status == "unsat":
            out.append(
                Clash(r.rulebook, f"{what} may be completed as a canasta", r.cid(key), got.core)
            )
    cfg = score.config(r)
    got = smt.check(cfg.facts.items, [cfg.went], timeout=timeout, values=False)
    if got.status == "unsat":
        out.append(Clash(r.rulebook, "a side may go out", r.cid("go_out_min_completed"), got.core))
    return out


def book_clashes(book: Rulebook, timeout: float = 30.0) -> list[Clash]:
    """`clashes` under the default reading and each alternative reading, one at a time; a clash
    found under several readings is listed once, with the first reading that shows it."""
    from arbitro.proofs.runner import distinct_readings

    out: list[Clash] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    # the meld clauses are Samba's and Canasta's: none in another book
    for opts, r in distinct_readings(book, RUMMY):
        for c in clashes(r, timeout):
            key = (c.permission, c.core)
            if key in seen:
                continue
            seen.add(key)
            out.append(Clash(c.rulebook, c.permission, c.clause, c.core, dict(opts)))
    return out


__all__ = ["Clash", "book_clashes", "clashes"]
