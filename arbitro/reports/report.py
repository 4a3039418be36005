"""Reports for people: the clauses of a book, rulebooks side by side, the comparison document."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arbitro.findings.compare import Row, deck_size, diff, player_counts, show_value
from arbitro.findings.witnesses import diff_witnesses, witness_details, witness_text
from arbitro.model.spec import STATUSES, Clause, Reading, Rulebook

MARK = {"stated": "", "inferred": " ~", "unspecified": " ?", "conflicting": " !"}
TERMINAL_LEGEND = (
    "≠ the rulebooks differ on this row; after a value, ~ inferred (the book implies it), "
    "? unspecified (the book is silent; the value is the model's flagged default), "
    "! conflicting (the book says two things; every reading is shown, the default named); "
    "— the rule does not apply to that game; § the section of the book each value comes from."
)
LEGEND = (
    "Marks: `≠` the rulebooks differ on this row; after a value, `~` inferred (the book implies it), "
    "`?` unspecified (the book is silent; the value is the model's flagged default), "
    "`!` conflicting (the book says two things; every reading is shown and the model's default named); "
    "`—` the rule does not apply to that game. `§` names the section of the book the value comes from."
)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def cell_text(row: Row, i: int, sections: bool = False) -> str:
    cell = row.cells[i]
    c = cell.clause
    if c is None:
        return "—"
    text = cell.text() + MARK[c.status]
    if sections:
        where = sorted({r.section for r in c.readings if r.section} | {c.section})
        text += " <br>§ " + "; ".join(where)
    return text


def diff_markdown(
    books: Sequence[Rulebook],
    rows: Sequence[Row] | None = None,
    only_differences: bool = False,
    sections: bool = False,
    links: dict[str, str] | None = None,
) -> str:
    """A Markdown table per topic; differing rows marked ≠, the mark linked to the row's
    witnesses where `links` gives their anchor (rule key to anchor)."""
    rows = list(rows if rows is not None else diff(books))
    out: list[str] = []
    topic = None
    for row in rows:
        if only_differences and not row.differs:
            continue
        if row.topic != topic:
            topic = row.topic
            out.append("")
            out.append(f"### {topic}")
            out.append("")
            out.append("| | rule | " + " | ".join(b.id for b in books) + " |")
            out.append("|---|---|" + "---|" * len(books))
        mark = "≠" if row.differs else ""
        if mark and links and row.key in links:
            mark = f"[≠](#{links[row.key]})"
        cells = " | ".join(_md(cell_text(row, i, sections)) for i in range(len(books)))
        out.append(f"| {mark} | {row.key.replace('_', ' ')} | {cells} |")
    return "\n".join(out).lstrip("\n") + "\n"


def comparison_groups(books: Sequence[Rulebook]) -> tuple[list[Rulebook], list[Rulebook]]:
    """The books of the comparison's two sections, by their spec's game: the Samba books, then
    the Samba and Canasta books together; in the published document's column order (the Spanish
    Samba book first, then its English and French counterparts), any other book after them."""
    order = {"samba-es": 0, "samba-en": 1, "samba-fr": 2}
    samba = sorted((b for b in books if b.game == "samba"), key=lambda b: order.get(b.id, 3))
    return samba, [*samba, *(b for b in books if b.game == "canasta")]


Witnesses = dict[str, list[dict[str, Any]]]
"""The witnesses of the ≠ rows of one table, by rule key (`findings.witnesses.diff_witnesses`)."""


def witness_anchor(section: str, key: str) -> str:
    """The anchor of a row's witnesses: the slug of its heading (`witness_markdown`)."""
    return f"witness-{section}-{key.replace('_', '-')}"


def comparison_witnesses(
    books: Sequence[Rulebook], known: dict[str, Any] | None = None
) -> dict[str, Witnesses]:
    """The witnesses of every ≠ row of the comparison's Samba and Samba-and-Canasta tables: from
    `known` (derived witnesses by label), else from the findings' derivation (cached per spec
    content; derived now on a first run, a few minutes)."""
    if known is None:
        import sys

        from arbitro.findings.core import load_or_derive, progress_to_stderr
        from arbitro.model.spec import load_all

        # the findings' derivation holds every witness the comparison shows, cached per spec
        derived, _ = load_or_derive(
            load_all(), progress=progress_to_stderr if sys.stderr.isatty() else None
        )
        known = derived.get("witnesses", {})
    samba, rummy = comparison_groups(books)
    out: dict[str, Witnesses] = {}
    # the second section is shown when Canasta books join the Samba books
    for name, group, shown in (("samba", samba, True), ("rummy", rummy, len(rummy) > len(samba))):
        if len(group) > 1 and shown:
            out[name] = diff_witnesses(group, diff(group), known)
    return out


def witness_markdown(section: str, title: str, found: Witnesses) -> str:
    """A section listing, for each ≠ row, the case telling each pair of values apart and each
    book's result; each row under a heading whose slug is `witness_anchor`."""
    out = [f"### Witnesses of the ≠ rows: {title}", ""]
    for key, ws in found.items():
        out += [f"#### Witness {section} {key.replace('_', ' ')}", ""]
        for w in ws:
            out.append(f"- **{' / '.join(w['books'])}**: {_md(witness_text(w))}")
            out += [f"  - {_md(line)}" for line in witness_details(w)]
        out.append("")
    return "\n".join(out)


def comparison_document(
    books: Sequence[Rulebook], witnesses: dict[str, Witnesses] | None = None
) -> str:
    """docs/rules-comparison.md: Samba three ways, Samba and Canasta, and what applies to all five;
    with `witnesses` (`comparison_witnesses`), each ≠ mark links to the row's witnesses, listed
    after its table."""
    samba, rummy = comparison_groups(books)
    witnesses = witnesses or {}

    def links(section: str) -> dict[str, str]:
        return {k: witness_anchor(section, k) for k in witnesses.get(section, {})}

    out = [
        "# The rulebooks compared",
        "",
        "Generated by `uv run arbitro rules comparison --output docs/rules-comparison.md --force` from the specs in",
        "`spec/`; do not edit by hand (a test fails when this file is stale). Every value comes from a clause",
        "of the spec, which cites the section of its book; `uv run arbitro rules show ID` gives the sections,",
        "paraphrases and reasons behind each one.",
        "",
        LEGEND,
        "",
        "## What applies to all five",
        "",
        "| rule | " + " | ".join(b.id for b in books) + " |",
        "|---|" + "---|" * len(books),
        "| cards in the deck | " + " | ".join(str(deck_size(b)) for b in books) + " |",
        "| players | " + " | ".join(_md(player_counts(b)) for b in books) + " |",
    ]
    for key in ("play_direction", "dealer_rotation", "target_score"):
        rows = [r for r in diff(books) if r.key == key]
        for row in rows:
            out.append(
                f"| {key.replace('_', ' ')} | "
                + " | ".join(_md(cell_text(row, i)) for i in range(len(books)))
                + " |"
            )
    if samba:
        differing = sum(r.differs for r in diff(samba))
        out += [
            "",
            "## Samba: the three rulebooks",
            "",
            f"{differing} of {len(diff(samba))} rules differ between the three Samba rulebooks.",
            "",
            diff_markdown(samba, sections=True, links=links("samba")).rstrip("\n"),
        ]
        if witnesses.get("samba"):
            out += ["", witness_markdown("samba", "Samba", witnesses["samba"]).rstrip("\n")]
    if len(rummy) > len(samba):
        out += [
            "",
            "## Samba and Canasta: the four rummy rulebooks",
            "",
            "Only the rules on which the four books differ; the Samba books are those above.",
            "",
            diff_markdown(rummy, only_differences=True, sections=True, links=links("rummy")).rstrip(
                "\n"
            ),
        ]
        if witnesses.get("rummy"):
            out += [
                "",
                witness_markdown("rummy", "Samba and Canasta", witnesses["rummy"]).rstrip("\n"),
            ]
    return "\n".join(out) + "\n"


def without_witnesses(text: str) -> str:
    """The comparison document without its witness sections and ≠ links: what the specs alone
    decide, checked quickly; the witnesses need the derivation (the findings' slow tests)."""
    import re

    text = re.sub(r"\[≠\]\(#[^)]*\)", "≠", text)
    return re.sub(r"\n\n### Witnesses of the ≠ rows: .*?(?=\n\n## |\n*\Z)", "", text, flags=re.S)


# ---------------------------------------------------------------- for the terminal (rich)


def _where(section: str | None, anchor: str | None) -> str:
    out = f"§ {section}" if section else ""
    if anchor:
        out += f" «{anchor}»"
    return out


def list_rows(books: Sequence[Rulebook]) -> tuple[list[str], list[list[str]]]:
    header = ["id", "game", "lang", "title", "clauses", *STATUSES]
    rows = [
        [
            b.id,
            b.game,
            b.language,
            b.title,
            str(len(b.clauses)),
            *(str(b.status_counts()[s]) for s in STATUSES),
        ]
        for b in books
    ]
    return header, rows


def list_table(books: Sequence[Rulebook]) -> Any:
    from arbitro.reports.terminal import table

    header, rows = list_rows(books)
    cols: list[str | tuple[str, dict[str, Any]]] = [
        h if i < 4 else (h, {"justify": "right"}) for i, h in enumerate(header)
    ]
    return table(cols, rows)


def list_markdown(books: Sequence[Rulebook]) -> str:
    header, rows = list_rows(books)
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_md(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def _reading_lines(c: Clause, book: Rulebook | None, words: bool) -> list[tuple[str, Reading]]:
    """(label line, reading) for each reading worth showing."""
    out: list[tuple[str, Reading]] = []
    for r in c.readings:
        if c.status == "conflicting":
            mark = " (default)" if r.label == c.default else ""
            out.append((f"{r.label}{mark}: {show_value(r.value)}", r))
        elif r.label != c.default:
            out.append((f"or {r.label}: {show_value(r.value)}", r))
    return out


def clause_cells(c: Clause, book: Rulebook, sentences: bool = False) -> list[Any]:
    """A clause as table cells: its key, status and place in the book; its value; its meaning."""
    from rich.text import Text

    from arbitro.booktext import sentence
    from arbitro.reports.terminal import STATUS_STYLE

    head = Text(c.key.replace("_", "-"), style="bold")
    head.append("\n" + c.status, style=STATUS_STYLE[c.status])
    value = Text()
    meaning = Text()
    if c.status == "conflicting":
        for i, (line, r) in enumerate(_reading_lines(c, book, True)):
            value.append(("\n" if i else "") + line)
            meaning.append(("\n" if i else "") + f"{r.label}: {r.paraphrase}")
            meaning.append("\n  " + _where(r.section, r.anchor), style="dim")
            if sentences:
                said = sentence(book, r.section, r.anchor)
                if said:
                    meaning.append(f"\n  book: {said}", style="italic")
    else:
        value.append(show_value(c.value))
        meaning.append(c.paraphrase)
        meaning.append("\n" + _where(c.section, c.anchor), style="dim")
        for line, _ in _reading_lines(c, book, True):
            value.append("\n" + line, style="dim")
        if sentences:
            said = sentence(book, c.section, c.anchor)
            if said:
                meaning.append(f"\nbook: {said}", style="italic")
    if c.basis:
        meaning.append(f"\ninferred from: {c.basis}", style="dim")
    if c.rationale:
        meaning.append(f"\ndefault because: {c.rationale}", style="dim")
    if c.follows:
        meaning.append(f"\nchosen with {c.follows}", style="dim")
    if c.optional:
        meaning.append("\noptional rule: off unless --option KEY=true", style="dim")
    return [head, value, meaning]


def show_tables(book: Rulebook, clauses: Sequence[Clause] | None = None) -> list[Any]:
    """The clauses of a book by topic, as rich tables; with chosen clauses, the book's sentences."""
    from rich.text import Text

    from arbitro.reports.terminal import plural, table

    chosen = {id(c) for c in clauses} if clauses is not None else None
    counts = ", ".join(f"{n} {s}" for s, n in book.status_counts().items())
    out: list[Any] = [
        Text(
            f"{book.id}: {book.title} ({book.game}, {book.language}), "
            f"{plural(len(book.clauses), 'clause')}: {counts}",
            style="bold",
        )
    ]
    key_width = max(len(c.key) for c in book.clauses)
    sentences = clauses is not None
    for topic, group in book.by_topic():
        picked = [c for c in group if chosen is None or id(c) in chosen]
        if not picked:
            continue
        out.append(Text(""))
        out.append(
            table(
                [
                    ("clause, status", {"min_width": key_width}),
                    ("value", {"max_width": 28}),
                    ("what it means, § section «anchor words»", {"ratio": 1}),
                ],
                [clause_cells(c, book, sentences) for c in picked],
                title=topic,
            )
        )
    if clauses is None and book.claims:
        out.append(Text(""))
        out.append(
            table(
                [
                    ("claim", {"min_width": max(len(c.name) for c in book.claims)}),
                    ("as a checkable statement", {"max_width": 40}),
                    ("what the book asserts, § section «anchor words»", {"ratio": 1}),
                ],
                [
                    [c.name, c.statement(), f"{c.paraphrase} § {c.section} «{c.anchor}»"]
                    for c in book.claims
                ],
                title="claims (what the book asserts about itself)",
            )
        )
    return out


def show_markdown(book: Rulebook, clauses: Sequence[Clause] | None = None) -> str:
    chosen = set(id(c) for c in clauses) if clauses is not None else None
    counts = ", ".join(f"{n} {s}" for s, n in book.status_counts().items())
    out = [f"# {book.id}: {book.title} ({book.game}, {book.language})", "", f"{counts}."]
    for topic, group in book.by_topic():
        picked = [c for c in group if chosen is None or id(c) in chosen]
        if not picked:
            continue
        out += [
            "",
            f"## {topic}",
            "",
            "| clause | value | status | section «anchor» | what it means |",
        ]
        out.append("|---|---|---|---|---|")
        for c in picked:
            if c.status == "conflicting":
                value = "<br>".join(line for line, _ in _reading_lines(c, book, True))
                where = "<br>".join(_where(r.section, r.anchor) for r in c.readings)
                meaning = "<br>".join(f"{r.label}: {r.paraphrase}" for r in c.readings)
            else:
                value = "<br>".join(
                    [show_value(c.value), *(line for line, _ in _reading_lines(c, book, True))]
                )
                where = _where(c.section, c.anchor)
                meaning = c.paraphrase
            if c.basis:
                meaning += f"<br>inferred from: {c.basis}"
            if c.rationale:
                meaning += f"<br>default because: {c.rationale}"
            out.append(f"| `{c.id}` | {_md(value)} | {c.status} | {_md(where)} | {_md(meaning)} |")
    if chosen is None and book.claims:
        out += ["", "## claims (what the book asserts about itself)", ""]
        out += ["| claim | as a checkable statement | section «anchor» | what the book asserts |"]
        out.append("|---|---|---|---|")
        for cl in book.claims:
            where = _where(cl.section, cl.anchor)
            out.append(
                f"| `{cl.id}` | {_md(cl.statement())} | {_md(where)} | {_md(cl.paraphrase)} |"
            )
    return "\n".join(out) + "\n"


def diff_tables(
    books: Sequence[Rulebook], rows: Sequence[Row], only_differences: bool = False
) -> list[Any]:
    """Rulebooks side by side, one rich table per topic; each cell its value and § section."""
    from rich.text import Text

    from arbitro.reports.terminal import STATUS_STYLE, table

    out: list[Any] = []
    by_topic: dict[str, list[Row]] = {}
    for row in rows:
        if only_differences and not row.differs:
            continue
        by_topic.setdefault(row.topic, []).append(row)
    for topic, group in by_topic.items():
        cells: list[list[Any]] = []
        for row in group:
            line: list[Any] = [
                Text("≠" if row.differs else "", style="bold red"),
                Text(row.key.replace("_", " ")),
            ]
            for cell in row.cells:
                c = cell.clause
                if c is None:
                    line.append(Text("—", style="dim"))
                    continue
                t = Text(cell.text() + MARK[c.status], style=STATUS_STYLE[c.status])
                where = sorted({r.section for r in c.readings if r.section} | {c.section})
                t.append("\n§ " + "; ".join(where), style="dim")
                line.append(t)
            cells.append(line)
        columns: list[str | tuple[str, dict[str, Any]]] = [
            ("", {"width": 1}),
            ("rule", {"style": "bold", "max_width": 22}),
        ]
        columns += [(b.id, {"ratio": 1}) for b in books]
        out.append(
            table(
                columns,
                cells,
                title=topic,
            )
        )
        out.append(Text(""))
    return out


def clause_index(books: Sequence[Rulebook]) -> dict[str, tuple[Rulebook, Clause]]:
    """Every clause of the books by id."""
    return {c.id: (b, c) for b in books for c in b.clauses}
