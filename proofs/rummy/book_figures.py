"""Property `book-figures`: the meld relation keeps the numbers the book writes out, no more, no less.

`meld-caps` proves the relation's meld guards against caps read from the same rules object, so a
changed clause value moves both and the property stays PROVED. Here the caps come from the book's
own words instead: the `stated_value` claims of its spec (`[[claim]]`, each anchored where the
book writes the number: "more than two wild cards", "un maximum de sept cartes"; the anchor is
checked against the book's text like every claim's). The caps are the rules with those numbers
put back (wild cap, meld minimums, the longest escalera, the finished size), and the guards are
the rules as loaded; proved over the same induction as `meld-caps` (`meld_caps.meld_caps`: every
meld laid, added to, merged or cleaned by the moves keeps the caps) and its converse
(`meld_caps.exact`: every meld within the caps is one the moves build). A clause value that
parts from the book's number (a wild cap raised: a set the moves grow past the book's cap; a
minimum raised: a meld the book allows that the moves never lay) comes out REFUTED, with the meld.

Implements, as a property, the book's *:wild-cap, *:set-min, *:sequence-min, *:sequence-max and
*:completed-size where it writes them out.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from typing import Any, cast

from arbitro.model.schema import RummyRules
from arbitro.model.spec import (
    load_rulebook,
    stated_clause_value,
    stated_reading_applies,
    stated_value_holds,
)
from arbitro.proofs.rummy import meld_caps
from arbitro.proofs.terms import Value, all_of
from arbitro.proofs.verdict import Check, Result, Witness, prove

NAME = "book-figures"
STATEMENT = (
    "every meld the moves build keeps the numbers the book writes out for its meld rules (wild "
    "cap, meld minimums, longest escalera, finished size), and every meld within them is built"
)
FIGURES = (
    "wild_cap",
    "set_min",
    "set_start_min_naturals",
    "wilds_at_most_naturals",
    "sequence_min",
    "sequence_max",
    "wild_meld_min_start",
    "completed_size",
)
"""The meld clause keys whose stated values the property reads (numbers, and whether wilds may
outnumber naturals)."""
SCORE_FIGURES = (
    "card_points",
    "bonus_samba",
    "bonus_clean_canasta",
    "bonus_dirty_canasta",
    "bonus_going_out",
    "red_three_each",
    "black_three_hand_penalty",
)
"""The score clause keys whose stated numbers the property reads."""


def figures(rules: Any, keys: tuple[str, ...] = FIGURES) -> dict[str, Any]:
    """The numbers the rulebook of `rules` states for `keys`, from its `stated_value` claims
    (none for a book that writes none out; a claim of one reading of a clause the book states
    twice only when the rules follow that reading)."""
    book = load_rulebook(rules.rulebook)
    out: dict[str, Any] = {}
    for c in book.claims:
        if c.kind != "stated_value" or c.fields["key"] not in keys:
            continue
        key = str(c.fields["key"])
        if not stated_reading_applies(book, c, getattr(rules, key)):
            continue
        value = stated_clause_value(c, rules)
        if isinstance(value, dict):  # a table priced sentence by sentence: its entries gathered
            out[key] = {**out.get(key, {}), **value}
        else:
            out[key] = value
    return out


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "(" + ", ".join(f"{k} {v}" for k, v in value.items()) + ")"
    return str(value)


def scores(rules: Any, stated: dict[str, Any], timeout: float) -> Check:
    """Every end-of-hand configuration of a side (`score.config`: its melds, hand, red threes,
    how the hand ended) scores the same in every category under the rules as under the rules
    with the book's stated score values: REFUTED with the configuration where they part."""
    from arbitro.proofs.rummy import score
    from arbitro.proofs.rummy.scoring import decode, describe

    cfg = score.config(cast(RummyRules, rules))
    book = score.config(cast(RummyRules, _Stated(rules, stated)))
    same = all_of(cfg.categories[c].eq(book.categories[c]) for c in cfg.categories)

    def dec(v: Mapping[str, Value]) -> Witness:
        data = decode(cfg, v)
        theirs = decode(book, v)["categories"]
        differ = {
            c: (data["categories"][c], theirs[c])
            for c in theirs
            if data["categories"][c] != theirs[c]
        }
        return Witness(f"scored (rules, book) {differ}: {describe(data)}", {**data, "book": theirs})

    return prove(
        "scores",
        "every configuration scores as the book's stated values score it",
        cfg.facts.items,
        same,
        dec,
        timeout,
        minimise=False,
    )


class _Stated:
    """The rules with the book's stated numbers in place of their fields' values; every other
    field read from `rules` (a `Recorder` notes it: the property's result under another reading
    is reused only when those fields agree)."""

    def __init__(self, rules: Any, stated: dict[str, Any]) -> None:
        self._rules = rules
        self._stated = stated

    def __getattr__(self, name: str) -> Any:
        stated = self.__dict__["_stated"]
        if name in stated:
            value = stated[name]
            if isinstance(value, dict):  # the entries the book prices, the rest as the rules
                return dataclasses.replace(getattr(self.__dict__["_rules"], name), **value)
            return value
        return getattr(self.__dict__["_rules"], name)


def run(rules: Any, timeout: float) -> Result:
    started = time.perf_counter()
    stated = figures(rules)
    book = cast(RummyRules, _Stated(rules, stated))
    guard = cast(RummyRules, rules)
    checks: tuple[Check, ...] = (
        *meld_caps.meld_caps(book, timeout, guard=guard),
        *meld_caps.exact(book, timeout, guard=guard),
    )
    points = figures(rules, SCORE_FIGURES)
    if points:
        checks = (*checks, scores(rules, points, timeout))
    stated = {**stated, **points}
    named = ", ".join(f"{k} {_shown(v)}" for k, v in stated.items()) or "none written out"
    differ = [k for k, v in stated.items() if not stated_value_holds(getattr(rules, k), v)]
    summary = f"the book's numbers: {named}" + (
        f"; the rules differ on {', '.join(differ)}" if differ else ""
    )
    return Result(
        NAME,
        rules.rulebook,
        {},
        STATEMENT,
        tuple(checks),
        summary,
        time.perf_counter() - started,
        values={"figures": stated},
    )


__all__ = ["FIGURES", "NAME", "SCORE_FIGURES", "STATEMENT", "figures", "run", "scores"]
