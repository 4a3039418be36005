"""House rules as data: a named override of a clause, so a game played by other rules can be judged.

An engine that deliberately plays a rule differently from the book (Escoba to 15 points instead of
21, classic Canasta's single canasta to go out) says so with `overrides`: clause id → new value,
e.g. ``{"escoba-es:target-score": 15}``. Each override names a clause of the rulebook and gives a
value of the clause's type; the rules are then built from the book with those values, through the
same typed loading as the specs (so a value the model cannot take is refused the same way). What
is judged under overrides is not the book's game: every answer and verdict carries the overrides,
and the command line prints them.

A value that one of the clause's recorded readings already gives is refused: that reading is an
option (`options`), which stays within what the book can be read to say.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from arbitro.model.errors import OptionError, SpecError
from arbitro.model.schema import Options, Rules, rules_for
from arbitro.model.spec import Clause, Rulebook
from arbitro.oracle.jsonio import shorten

Overrides = Mapping[str, Any]
"""Clause id (or key) → the value that replaces the book's."""

_BOOKS: dict[tuple[str, str], Rulebook] = {}
_MAX_BOOKS = 64


def _clause(book: Rulebook, name: str) -> Clause:
    key = name.split(":", 1)[1] if name.startswith(book.id + ":") else name
    key = key.replace("-", "_")
    if ":" in name and not name.startswith(book.id + ":"):
        raise OptionError(
            f"override {shorten(name, 60)!r}: not a clause of {book.id} (ids start {book.id}:)"
        )
    if not book.has(key):
        raise OptionError(
            f"override {shorten(name, 60)!r}: {book.id} has no such clause; "
            f"`arbitro rules show {book.id}` lists them"
        )
    return book.clause(key)


def normalise(book: Rulebook, overrides: Overrides | None) -> dict[str, Any]:
    """The overrides keyed by clause id, each checked to name a clause and to change it."""
    if overrides is None:
        return {}
    if not isinstance(overrides, Mapping):
        raise OptionError("overrides: an object of clause id → value")
    out: dict[str, Any] = {}
    for name, value in overrides.items():
        if not isinstance(name, str):
            raise OptionError("overrides: clause ids are strings")
        c = _clause(book, name)
        if c.id in out:
            raise OptionError(f"override {c.id}: given twice")
        if value == c.value and type(value) is type(c.value):
            raise OptionError(f"override {c.id}: the book already says {_show(value)}")
        for r in c.readings:
            if r.value == value and r.label != c.default:
                raise OptionError(
                    f"override {c.id}: the value {_show(value)} is the book's reading "
                    f"{r.label!r}; choose it as an option ({c.key}={r.label}) instead"
                )
        out[c.id] = value
    return dict(sorted(out.items()))


def _show(value: Any) -> str:
    return shorten(json.dumps(value, ensure_ascii=False), 60)


def with_overrides(book: Rulebook, overrides: Mapping[str, Any]) -> Rulebook:
    """The rulebook with the overridden clauses' values replaced (overrides keyed by clause id)."""
    if not overrides:
        return book
    key = (book.id, json.dumps(overrides, sort_keys=True))
    hit = _BOOKS.get(key)
    if hit is not None:
        return hit
    by_id = dict(overrides)
    clauses = tuple(
        dataclasses.replace(c, value=by_id[c.id]) if c.id in by_id else c for c in book.clauses
    )
    changed = dataclasses.replace(book, clauses=clauses)
    if len(_BOOKS) >= _MAX_BOOKS:
        _BOOKS.clear()
    _BOOKS[key] = changed
    return changed


def rules_with(book: Rulebook, options: Options | None, overrides: Mapping[str, Any]) -> Rules:
    """The typed rules of a book with options and overrides (keyed by clause id) applied.

    OptionError names the override whose value the rules cannot take."""
    for cid in overrides:
        key = cid.split(":", 1)[1].replace("-", "_")
        if options and key in options:
            raise OptionError(
                f"override {cid}: the option {key!r} chooses a reading of the same clause"
            )
    try:
        return rules_for(with_overrides(book, overrides), options)
    except SpecError as e:
        if not overrides:
            raise
        raise OptionError(f"override of {book.id}: {e.key}: {e.problem}") from None


def describe(overrides: Mapping[str, Any]) -> str:
    """One line for people: the overrides, marked as not the book's."""
    if not overrides:
        return ""
    listed = ", ".join(f"{k} = {_show(v)}" for k, v in overrides.items())
    return f"with overrides, not the book's rules: {listed}"
