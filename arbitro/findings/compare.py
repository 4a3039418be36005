"""Rulebooks side by side: one row per rule, one cell per rulebook, differences and doubts marked."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arbitro.model.schema import schema_keys
from arbitro.model.spec import TOPICS, Clause, Rulebook


def canonical(value: Any) -> str:
    """A value as canonical JSON, for deciding whether two rulebooks say the same thing."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _unordered_keys() -> frozenset[str]:
    """The rules whose value is a set of card classes written as a list (`tuple[CardClass, ...]`):
    the model asks only whether a class is in it, so the order the spec lists them in says
    nothing."""
    from typing import get_args, get_origin, get_type_hints

    from arbitro.model.schema import CardClass, EscobaRules, RummyRules

    out = set()
    for tp in (RummyRules, EscobaRules):
        for name, hint in get_type_hints(tp).items():
            if get_origin(hint) is tuple and get_args(hint) == (CardClass, ...):
                out.add(name)
    return frozenset(out)


UNORDERED = _unordered_keys()


def rule_value(key: str, value: Any) -> str:
    """`value` of rule `key` as canonical JSON, a set of card classes in sorted order: equal
    exactly when two rulebooks give the rule the same meaning."""
    if key in UNORDERED and isinstance(value, list):
        value = sorted(value)
    return canonical(value)


VOCABULARY = {
    "take_what_remains": "the player takes what is left of the stock",
    "hand_ends": "the hand ends",
    "forced_take_if_matches_meld": "the next player must take the pile when its top card fits a meld",
    "take_pile_if_able": "play goes on while players can take the pile",
    "going_out_only": "only when going out",
    "side_opened": "once the side has opened",
    "at_deal": "at the deal",
    "on_turn": "on the player's first turn",
    "one_natural_if_clean": "one more natural card, on a clean canasta only",
    "higher_wins_else_play_on": "the higher total wins, level totals play on",
    "play_on": "play goes on",
    "no_setenta": "no setenta",
}
"""The model's names for values, in the words a rules editor reads."""


def show_value(value: Any) -> str:
    """A value written for a person: short, with the common table shapes spelt out, and the
    model's names for values in words (`take_what_remains`: the player takes what is left of
    the stock; `black_three`: black three)."""
    if isinstance(value, str):
        return VOCABULARY.get(value, value.replace("_", " "))
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        if not value:
            return "none"
        if all(isinstance(v, dict) for v in value):
            return "; ".join(_show_row(v) for v in value)
        return ", ".join(show_value(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {show_value(v)}" for k, v in value.items())
    return str(value)


def _show_row(row: dict[str, Any]) -> str:
    if "minimum" in row:
        low, high = row.get("low"), row.get("high")
        if low is None and high is None:
            span = "any score"
        elif low is None:
            span = f"≤ {high}"
        elif high is None:
            span = f"≥ {low}"
        else:
            span = f"{low}–{high}"
        return f"{span}: {row['minimum']}"
    if {"players", "sides", "hand_size"} <= row.keys():
        packs = f", {row['packs']} packs" if row.get("packs") else ""
        return f"{row['name']} ({row['players']} players, {row['sides']} sides, {row['hand_size']} cards{packs})"
    if {"act", "points"} <= row.keys():
        return f"{row['act'].replace('_', ' ')} {row['points']}"
    if {"total", "escobas"} <= row.keys():
        return f"{row['total']} → {row['escobas']}"
    if {"players", "deals"} <= row.keys():
        return f"{row['players']} players → {row['deals']}"
    return ", ".join(f"{k} {show_value(v)}" for k, v in row.items())


@dataclass(frozen=True)
class Cell:
    """What one rulebook says on one row, or nothing when the rule does not apply to its game."""

    clause: Clause | None

    @property
    def applies(self) -> bool:
        return self.clause is not None

    def text(self) -> str:
        c = self.clause
        if c is None:
            return "—"
        if c.status == "conflicting":
            return " / ".join(
                f"{r.label}: {show_value(r.value)}" + (" (default)" if r.label == c.default else "")
                for r in c.readings
            )
        return show_value(c.value)

    def to_json(self) -> dict[str, Any] | None:
        c = self.clause
        if c is None:
            return None
        return {
            "clause": c.id,
            "status": c.status,
            "section": c.section,
            "value": c.value,
            "readings": [
                {"label": r.label, "value": r.value, "section": r.section} for r in c.readings
            ]
            if len(c.readings) > 1
            else [],
        }


@dataclass(frozen=True)
class Row:
    """One rule across rulebooks."""

    topic: str
    key: str
    cells: tuple[Cell, ...]

    @property
    def differs(self) -> bool:
        """True when rulebooks that have this rule say different things.

        A book says its value (stated, inferred, or our flagged default where it is silent), or, where
        it says two things, every one of its readings; the alternatives we offer to a silent book's
        default are ours, not the book's, and do not count.
        """
        said = {tuple(sorted(_said(c.clause))) for c in self.cells if c.clause is not None}
        return len(said) > 1

    @property
    def doubtful(self) -> bool:
        """True when some rulebook is silent on it or says two things."""
        return any(
            c.clause is not None and c.clause.status in ("unspecified", "conflicting")
            for c in self.cells
        )


def _said(c: Clause) -> set[str]:
    if c.status == "conflicting":
        return {rule_value(c.key, r.value) for r in c.readings}
    return {rule_value(c.key, c.value)}


def _key_order(books: Sequence[Rulebook]) -> list[str]:
    order: list[str] = []
    for game in dict.fromkeys(b.game for b in books):
        for k in schema_keys(game):
            if k not in order:
                order.append(k)
    return order


def diff(books: Sequence[Rulebook]) -> list[Row]:
    """Every rule of the given rulebooks as a row, topics in canonical order."""
    keys = _key_order(books)
    topic_of: dict[str, str] = {}
    for b in books:
        for c in b.clauses:
            topic_of.setdefault(c.key, c.topic)
    rows: list[Row] = []
    for topic in TOPICS:
        for key in keys:
            if topic_of.get(key) != topic:
                continue
            cells = tuple(Cell(_find(b, key)) for b in books)
            rows.append(Row(topic, key, cells))
    return rows


def _find(b: Rulebook, key: str) -> Clause | None:
    for c in b.clauses:
        if c.key == key:
            return c
    return None


def deck_size(book: Rulebook) -> int:
    """Cards in the book's default deck, computed from its deck clauses."""
    if book.has("suits"):
        return len(book.clause("suits").value) * len(book.clause("capture_values").value)
    packs = book.clause("packs").value
    jokers = book.clause("jokers_per_pack").value
    return int(packs) * (52 + int(jokers))


def player_counts(book: Rulebook) -> str:
    """The player counts (and partnerships) a book allows, from its player clauses."""
    if book.has("player_counts"):
        counts = book.clause("player_counts").value
        teams = book.clause("team_player_counts").value
        return ", ".join(str(n) + (" (or two teams)" if n in teams else "") for n in counts)
    layouts = book.clause("layouts").value
    return "; ".join(
        f"{lay['players']}"
        + (f" in {lay['sides']} sides" if lay["sides"] != lay["players"] else " alone")
        for lay in layouts
    )
