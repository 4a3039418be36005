"""The witnesses that tell two readings apart, as `rules diff` and the reports show them.

A witness is a small case (a meld, a deal and its moves, the end of a hand) on which two books give
different answers; `findings.core.value_pairs` finds them and the findings cache keeps them.
"""

from __future__ import annotations

import json
from typing import Any


def diff_witnesses(
    books: Any, rows: Any, known: dict[str, Any] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """For each differing row of `rules diff`, the witness telling each pair of values apart
    (`findings.value_pairs`): taken from `known` (the derived witnesses, by label) when given,
    else read from the findings cache when it holds these specs, else searched now."""
    from arbitro.findings import cache as findings_cache
    from arbitro.findings.core import cache_path, value_pairs
    from arbitro.model.spec import load_all

    cached: dict[str, Any] = dict(known or {})
    if known is None:
        path, key = cache_path(load_all())
        try:
            cached = findings_cache.read(path, key)["witnesses"]
        except (OSError, findings_cache.CacheMismatch):
            cached = {}
    out: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if not row.differs:
            continue
        present = [b for b, cell in zip(books, row.cells, strict=True) if cell.clause is not None]
        for job in value_pairs(present, row.key):
            w = cached.get(job.label)
            if w is None:
                w = job.run(10.0).to_json()
            out.setdefault(row.key, []).append(w)
    return out


def witness_lines(found: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The witnesses of `diff_witnesses`, one entry per row and pair, for text and Markdown."""
    lines: list[str] = []
    for key, ws in found.items():
        for w in ws:
            lines.append(f"{key.replace('_', ' ')} ({' / '.join(w['books'])}): {witness_text(w)}")
    return lines


def witness_text(w: dict[str, Any]) -> str:
    """What a witness shows, in one line: its sentence, or that the search found none."""
    return str(w["text"]) if w.get("found") else "no witness found: " + str(w["text"])


def witness_details(w: dict[str, Any]) -> list[str]:
    """The case itself and each book's result, one line each: the meld and each rule set's
    verdict, the end of a hand and both scores, the deal and the moves, the refused action and
    its penalties, or the proofs a rule that never applies rests on."""
    out: list[str] = []
    if "meld" in w:
        out.append("meld: " + " ".join(w["meld"]))
        out += [f"{book}: {verdict}" for book, verdict in _by_book(w, "model")]
    if "melds" in w:
        out.append(f"melds: {_short(w['melds'])}; in hand: {_short(w.get('hand'))}")
        if isinstance(w.get("ended"), str):
            out.append(f"the hand ended: {w['ended']}")
    for book, got in _by_book(w, "scores"):
        if isinstance(got, dict):
            parts = ", ".join(f"{k} {v}" for k, v in got.items() if v)
            out.append(f"{book}: {sum(got.values())} ({parts or 'nothing'})")
        else:
            out.append(f"{book}: scores {', '.join(map(str, got))}")
    for book, got in _by_book(w, "minimums"):
        out.append(f"{book}: opening minimum {got}")
    for book, got in _by_book(w, "results"):
        said = "game over" if got == "over" else "no minimum" if got is None else f"minimum {got}"
        out.append(f"{book}: both sides on {w.get('side_score')}: {said}")
    for book, got in _by_book(w, "over"):
        out.append(f"{book}: {'game over' if got else 'play goes on'}")
    for book, got in _by_book(w, "penalties"):
        out.append(f"{book}: penalty {', '.join(map(str, got)) or 'none'}")
    for book, got in _by_book(w, "ended"):
        out.append(f"{book}: {got}")
    if isinstance(w.get("deck"), dict):
        out += [
            f"{book}: {n} cards, hands of {w['hand_size'][book]}, stock"
            f" {w['stock_after_deal'][book]} after the deal"
            for book, n in w["deck"].items()
        ]
    for part, got in _by_book(w, "differs_in"):
        out.append(f"dealt {part}: " + "; ".join(f"{b}: {_cut(v)}" for b, v in got.items()))
    if "action" in w:
        out.append(f"action: {_short(w['action'])}")
    if w.get("only_first") or w.get("only_second"):
        a, b = w["books"]
        out.append(f"legal under {a} only: {_short(w.get('only_first', []))}")
        out.append(f"legal under {b} only: {_short(w.get('only_second', []))}")
    if "deal" in w:
        moves = w.get("moves", [])
        out.append(
            f"{w.get('layout', 'the deal')}: deck order {' '.join(w['deal'])}"
            + (f"; then {len(moves)} moves" if moves else "")
        )
    for clause, core in _by_book(w, "cores"):
        out.append(f"{clause} never applies: unsat core {', '.join(core)}")
    if w.get("core") and w.get("how") == "never-arises":
        out.append("rests on " + ", ".join(w["core"]))
    if w.get("checked"):
        out.append(f"checked by {w['checked']}")
    return out


def _by_book(w: dict[str, Any], key: str) -> list[tuple[str, Any]]:
    """The entries of a witness's per-book mapping `key`; nothing when it is not one (a solver's
    end of a hand says how it ended in one word)."""
    got = w.get(key)
    return list(got.items()) if isinstance(got, dict) else []


def _cut(value: Any, most: int = 8) -> str:
    """A dealt part for reading: a long list shown by its first cards and its length."""
    if isinstance(value, list) and len(value) > most:
        return _short(value[:most])[:-1] + f", … ({len(value)} in all)]"
    return _short(value)


def _short(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


__all__ = ["diff_witnesses", "witness_details", "witness_lines", "witness_text"]
