"""Dead rules: a bonus, penalty, scoring row or permission whose condition the book's other rules
make unreachable, proved unreachable by the solver.

- A scoring category the book prices (a penalty for red threes left in a hand, a bonus for black
  threes) that is zero in every end-of-hand configuration the rules admit
  (`proofs/rummy/score.py`): the core names the clauses that keep it at zero.
- A row of the opening table whose minimum is no more than the least meld the book allows: every
  opening already reaches it, so the row never refuses anything (the least meld is a proved
  optimum over `lay_facts`).
- A bonus for a kind of canasta no meld can become (a wild-only canasta where wild-only melds are
  not allowed or cannot grow to a canasta; a samba holding a wild card where escaleras take none).

Implements the checks of *:red-three-undeclared-penalty, *:black-three-hand-penalty,
*:black-threes-all-melded-bonus, *:black-threes-all-in-hand-penalty, *:canaston-bonus,
*:canasta-de-canastas-bonus, *:opening-minimums, *:wild-canasta-bonus, *:bonus-dirty-canasta.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arbitro.model.rummy.family import FAMILY as RUMMY
from arbitro.model.schema import RummyRules
from arbitro.model.spec import Rulebook
from arbitro.proofs import smt
from arbitro.proofs.facts import Facts


@dataclass(frozen=True)
class DeadRule:
    """A rule that never applies: which clause, what of it, why (the core), and a witness when the
    proof rests on an optimum (the least meld)."""

    rulebook: str
    clause: str
    what: str  # the rule, in the book's words
    why: str  # the condition that cannot be met
    core: tuple[str, ...]
    witness: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, str | bool] = field(default_factory=dict)
    whole: bool = True
    """Whether the whole clause never applies (False: one row of it, as of an opening table)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rulebook": self.rulebook,
            "clause": self.clause,
            "what": self.what,
            "why": self.why,
            "core": list(self.core),
            "options": dict(self.options),
            "whole": self.whole,
        }
        if self.witness:
            out["witness"] = dict(self.witness)
        return out


CATEGORY_RULES: dict[str, tuple[tuple[str, str], ...]] = {
    "penalties": (
        ("red_three_undeclared_penalty", "the penalty for each red three left in a hand"),
    ),
    "black-threes": (
        ("black_three_hand_penalty", "the penalty for black threes held at the end"),
        ("black_threes_all_melded_bonus", "the bonus for melding every black three"),
        ("black_threes_all_in_hand_penalty", "the penalty for holding every black three"),
    ),
    "canaston": (
        ("canaston_bonus", "the bonus for a canastón"),
        ("canasta_de_canastas_bonus", "the bonus for a canasta of canastas"),
    ),
}
"""The scoring categories a dead rule can hide in, with the clauses that price them."""


def _priced(r: RummyRules, key: str) -> bool:
    v = getattr(r, key)
    return isinstance(v, int) and not isinstance(v, bool) and v != 0


def dead_rules(r: RummyRules, timeout: float = 30.0) -> list[DeadRule]:
    """Every dead rule of one rule set."""
    from arbitro.proofs.rummy import cards as C
    from arbitro.proofs.rummy import score
    from arbitro.proofs.rummy.melds import MeldTerms, cap_facts, deck_facts, lay_facts
    from arbitro.proofs.vectors import read, unknowns

    out: list[DeadRule] = []
    cfg = score.config(r)
    for cat, rules in CATEGORY_RULES.items():
        priced = [(k, w) for k, w in rules if _priced(r, k)]
        if not priced:
            continue
        got = smt.check(cfg.facts.items, [cfg.categories[cat].ne(0)], timeout=timeout, values=False)
        if got.status == "unsat":
            for key, what in priced:
                out.append(
                    DeadRule(
                        r.rulebook,
                        r.cid(key),
                        what,
                        f"no end of a hand the rules admit scores anything under {cat}",
                        got.core,
                    )
                )

    m = unknowns("m", C.KINDS)
    t = MeldTerms(m, r)
    lay = Facts()
    deck_facts(lay, r, m, C.largest_deck(r), "the meld")
    lay.extend(lay_facts(r, t))
    # black threes are laid only when going out, never to open
    least = smt.optimum(
        lay.items, m.points(C.points(r)), maximise=False, timeout=timeout, goals=[~t.is_black3]
    )
    if least.status == "proved" and least.value is not None:
        meld = C.names(read(least.values, "m", C.KINDS))
        for band in r.opening_minimums:
            if band.minimum <= least.value:
                span = _span(band.low, band.high)
                out.append(
                    DeadRule(
                        r.rulebook,
                        r.cid("opening_minimums"),
                        f"the opening minimum of {band.minimum} for a side on {span}",
                        f"the least meld the book allows is already worth {least.value}",
                        (r.cid("opening_minimums"),),
                        {"least_meld": meld, "points": least.value},
                        whole=False,
                    )
                )

    table = Facts()
    deck_facts(table, r, m, C.largest_deck(r), "the meld")
    table.extend(cap_facts(r, t))
    if _priced(r, "wild_canasta_bonus"):
        if not r.wild_canasta:
            out.append(
                DeadRule(
                    r.rulebook,
                    r.cid("wild_canasta_bonus"),
                    "the bonus for a canasta of wild cards",
                    "no meld of wild cards only may be laid",
                    (r.cid("wild_canasta"),),
                )
            )
        else:
            got = smt.check(
                table.items, [t.is_wild, t.size >= r.completed_size], timeout=timeout, values=False
            )
            if got.status == "unsat":
                out.append(
                    DeadRule(
                        r.rulebook,
                        r.cid("wild_canasta_bonus"),
                        "the bonus for a canasta of wild cards",
                        "no meld of wild cards grows to a canasta",
                        got.core,
                    )
                )
    return out


def escalera_wild_core(r: RummyRules, timeout: float = 30.0) -> tuple[str, ...] | None:
    """The clauses that keep every wild card out of every escalera on the table (so no samba is
    mixed), or None when some escalera may hold one or the book has none."""
    from arbitro.proofs.rummy import cards as C
    from arbitro.proofs.rummy.melds import MeldTerms, cap_facts, deck_facts
    from arbitro.proofs.vectors import unknowns

    if not r.sequences:
        return None
    m = unknowns("m", C.KINDS)
    t = MeldTerms(m, r)
    f = Facts()
    deck_facts(f, r, m, C.largest_deck(r), "the meld")
    f.extend(cap_facts(r, t))
    got = smt.check(f.items, [t.is_seq, t.wilds >= 1], timeout=timeout, values=False)
    return got.core if got.status == "unsat" else None


def _span(low: int | None, high: int | None) -> str:
    if low is None and high is None:
        return "any score"
    if low is None:
        return f"{high} or less"
    if high is None:
        return f"{low} or more"
    return f"{low} to {high}"


KEPT_ALIVE_BY: dict[str, tuple[str, str]] = {
    # red threes melded from the hand when the hand ends: a red three is then held in the hand,
    # and the penalty for one left there prices a situation of the book's own play
    "red_three_undeclared_penalty": ("red_threes_meld", "never"),
}
"""Dead-rule clause key -> (key, value): a clause of the book that, stated or inferred with any
other value, gives the thing the dead rule prices a place in the book's own play."""


def _contradicts_book(book: Rulebook, d: DeadRule) -> bool:
    """Whether the proof that `d` never applies rests on a default the book is silent on
    (`unspecified`) while the book's own stated or inferred clauses keep the rule alive: it is
    then dead only under the model's default, which contradicts the book, not under the book."""
    key = d.clause.split(":", 1)[1].replace("-", "_")
    alive = KEPT_ALIVE_BY.get(key)
    if alive is None or not book.has(alive[0]):
        return False
    silent = any(
        book.has(c.split(":", 1)[1].replace("-", "_"))
        and book.clause(c.split(":", 1)[1].replace("-", "_")).status == "unspecified"
        for c in d.core
        if c.startswith(book.id + ":")
    )
    c = book.clause(alive[0])
    return silent and c.status in ("stated", "inferred") and c.value != alive[1]


def book_dead_rules(book: Rulebook, timeout: float = 30.0) -> list[DeadRule]:
    """`dead_rules` under the default reading and each other reading, one at a time; a dead rule
    found under several readings is listed once, with the first reading that shows it."""
    from arbitro.proofs.runner import distinct_readings

    out: list[DeadRule] = []
    seen: set[tuple[str, str]] = set()
    # the meld clauses are Samba's and Canasta's: none in another book
    for opts, r in distinct_readings(book, RUMMY):
        for d in dead_rules(r, timeout):
            if (d.clause, d.what) in seen:
                continue
            seen.add((d.clause, d.what))
            if _contradicts_book(book, d):
                continue
            out.append(
                DeadRule(
                    d.rulebook, d.clause, d.what, d.why, d.core, d.witness, dict(opts), d.whole
                )
            )
    return out


__all__ = ["CATEGORY_RULES", "DeadRule", "book_dead_rules", "dead_rules", "escalera_wild_core"]
