"""What the rulebooks leave open or say twice, inside one book and between books of one game.

Each finding is one JSON object with `kind` (internal-contradiction, gap, cross-rulebook-difference),
`game`, `rulebooks`, `topic`, `clauses`, `summary`, and, where a concrete situation shows it, a
`witness`. The shape is open: later checks add witnesses found by the solver.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arbitro.compare import Cell, canonical, diff, show_value
from arbitro.model.spec import Clause, Rulebook

KINDS = ("internal-contradiction", "gap", "cross-rulebook-difference")


@dataclass(frozen=True)
class Finding:
    """One thing a rules editor should look at, with the clauses involved."""

    kind: str
    game: str
    rulebooks: tuple[str, ...]
    topic: str
    clauses: tuple[str, ...]
    summary: str
    details: dict[str, Any] = field(default_factory=dict)
    witness: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "game": self.game,
            "rulebooks": list(self.rulebooks),
            "topic": self.topic,
            "clauses": list(self.clauses),
            "summary": self.summary,
        }
        out.update(self.details)
        if self.witness is not None:
            out["witness"] = self.witness
        return out


def _readings_json(c: Clause) -> list[dict[str, Any]]:
    return [
        {"label": r.label, "section": r.section, "paraphrase": r.paraphrase, "value": r.value}
        for r in c.readings
    ]


def _about(
    book: Rulebook,
    c: Clause,
    kind: str,
    summary: str,
    details: dict[str, Any] | None = None,
    witness: dict[str, Any] | None = None,
) -> Finding:
    """A finding inside one book about one of its clauses."""
    return Finding(
        kind=kind,
        game=book.game,
        rulebooks=(book.id,),
        topic=c.topic,
        clauses=(c.id,),
        summary=summary,
        details=details or {},
        witness=witness,
    )


def internal(book: Rulebook) -> list[Finding]:
    """Every conflicting and unspecified clause of one book, plus table checks with witnesses."""
    out: list[Finding] = []
    for c in book.clauses:
        if c.status == "conflicting":
            readings = "; ".join(f"{r.label} ({r.section}): {r.paraphrase}" for r in c.readings)
            out.append(
                _about(
                    book,
                    c,
                    "internal-contradiction",
                    f"{book.id} says two things on {c.key.replace('_', ' ')}: {readings}; the model follows {c.default!r}",
                    details={"default": c.default, "readings": _readings_json(c)},
                )
            )
        elif c.status == "unspecified":
            alternatives = [r for r in c.readings if r.label != c.default]
            alt = (
                "; alternatives: "
                + "; ".join(f"{r.label}: {show_value(r.value)}" for r in alternatives)
                if alternatives
                else ""
            )
            out.append(
                _about(
                    book,
                    c,
                    "gap",
                    f"{book.id} is silent on {c.key.replace('_', ' ')}; the model uses {show_value(c.value)} because {c.rationale}{alt}",
                    details={"default": c.value, "readings": _readings_json(c)},
                )
            )
    out.extend(_band_findings(book))
    return out


def _band_findings(book: Rulebook) -> list[Finding]:
    """Opening-minimum tables, checked over every side score below the target.

    Within one reading, a score in two rows or in none is a contradiction or a gap; between the
    readings of a conflicting table, each score where they give different minimums is a witness.
    """
    if not book.has("opening_minimums"):
        return []
    c = book.clause("opening_minimums")
    target = int(book.clause("target_score").value)
    out: list[Finding] = []
    edges: set[int] = {-1, 0, target - 1}
    for r in c.readings:
        for b in r.value:
            if b.get("low") is not None:
                edges |= {int(b["low"]) - 1, int(b["low"])}
            if b.get("high") is not None:
                edges |= {int(b["high"]), int(b["high"]) + 1}
    step = score_step(book)
    scores = sorted(
        {m for e in edges for m in (e // step * step, -(-e // step) * step) if m < target}
    )
    for r in c.readings:
        label = "" if len(c.readings) == 1 else f" (reading {r.label!r})"
        for score in scores:
            hits = [b for b in r.value if _in_band(score, b)]
            if len({h["minimum"] for h in hits}) > 1:
                out.append(
                    _about(
                        book,
                        c,
                        "internal-contradiction",
                        f"{book.id}{label}: a side scoring {score} falls in two rows of the opening table, with minimums {', '.join(str(h['minimum']) for h in hits)}",
                        witness={"side_score": score, "minimums": [h["minimum"] for h in hits]},
                    )
                )
            elif not hits:
                out.append(
                    _about(
                        book,
                        c,
                        "gap",
                        f"{book.id}{label}: no row of the opening table covers a side score of {score}",
                        witness={"side_score": score},
                    )
                )
    if c.status == "conflicting":
        for score in scores:
            by_reading = {r.label: _minimum(r.value, score) for r in c.readings}
            if len(set(by_reading.values())) > 1:
                shown = ", ".join(f"{k}: {v}" for k, v in by_reading.items())
                out.append(
                    _about(
                        book,
                        c,
                        "internal-contradiction",
                        f"{book.id}: for a side scoring {score} the readings of the opening table ask for different minimums ({shown})",
                        witness={"side_score": score, "minimum_by_reading": by_reading},
                    )
                )
    return out


SCORING_TOPICS = (
    "card-values",
    "scoring",
    "red-threes",
    "black-threes",
    "special-melds",
    "penalties",
)


def score_step(book: Rulebook) -> int:
    """The step in which side scores move: the gcd of every point value the book gives."""
    values: list[int] = []

    def walk(v: Any) -> None:
        if isinstance(v, bool):
            return
        if isinstance(v, int):
            values.append(abs(v))
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)

    for c in book.clauses:
        if c.topic in SCORING_TOPICS and not c.key.endswith(("_count", "_completed", "_min_start")):
            for r in c.readings:
                walk(r.value)
    return math.gcd(*values) or 1


def _minimum(rows: list[dict[str, Any]], score: int) -> int | None:
    hits = [b["minimum"] for b in rows if _in_band(score, b)]
    return int(hits[0]) if len(hits) == 1 else None


def _in_band(score: int, band: dict[str, Any]) -> bool:
    low, high = band.get("low"), band.get("high")
    return (low is None or score >= low) and (high is None or score <= high)


def cross(books: Sequence[Rulebook]) -> list[Finding]:
    """Every rule on which rulebooks of one game give different values."""
    out: list[Finding] = []
    by_game: dict[str, list[Rulebook]] = {}
    for b in books:
        by_game.setdefault(b.game, []).append(b)
    for game, group in by_game.items():
        if len(group) < 2:
            continue
        for row in diff(group):
            if not row.differs:
                continue
            present = [
                (b, cell.clause) for b, cell in zip(group, row.cells, strict=True) if cell.clause
            ]
            values = {
                b.id: (
                    cl.value
                    if cl.status != "conflicting"
                    else {r.label: r.value for r in cl.readings}
                )
                for b, cl in present
            }
            groups: dict[str, list[str]] = {}
            texts: dict[str, str] = {}
            for b, cl in present:
                k = canonical(values[b.id])
                groups.setdefault(k, []).append(b.id)
                texts[k] = Cell(cl).text()
            summary = "; ".join(f"{', '.join(ids)}: {texts[k]}" for k, ids in groups.items())
            out.append(
                Finding(
                    kind="cross-rulebook-difference",
                    game=game,
                    rulebooks=tuple(b.id for b, _ in present),
                    topic=row.topic,
                    clauses=tuple(cl.id for _, cl in present),
                    summary=f"{row.key.replace('_', ' ')} — {summary}",
                    details={
                        "values": values,
                        "statuses": {b.id: cl.status for b, cl in present},
                    },
                )
            )
    return out


def findings(books: Sequence[Rulebook], game: str | None = None) -> list[Finding]:
    """All findings for the books (of one game if given): internal ones first, then cross-book."""
    chosen = [b for b in books if game is None or b.game == game]
    out: list[Finding] = []
    for b in chosen:
        out.extend(internal(b))
    out.extend(cross(chosen))
    return out
