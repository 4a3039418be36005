"""HTML pages for people: the rules comparison, each cell linked to its clause with the book's words.

Pages are one self-contained file (styles inline, plots as embedded PNG) that a browser opens from
disk. The book's sentences appear only when the texts are at hand at run time (see
`arbitro.booktext`); the page says so when they are not.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from arbitro.booktext import book_text, sentence
from arbitro.findings.compare import Row, deck_size, diff, player_counts, show_value
from arbitro.findings.witnesses import witness_details, witness_text
from arbitro.model.spec import Clause, Rulebook
from arbitro.reports.report import (
    MARK,
    Witnesses,
    cell_text,
    comparison_groups,
    witness_anchor,
)

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 80em; padding: 0 1em;
       color: #1d1d1f; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { margin-top: 1.5em; color: #444; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; width: 100%; }
th, td { border: 1px solid #d0d0d0; padding: 0.3em 0.5em; vertical-align: top; text-align: left; }
th { background: #f3f3f3; }
tr.differs td:first-child { color: #b00020; font-weight: bold; }
td.stated { } td.inferred { background: #eef8fb; } td.unspecified { background: #fff8e1; }
td.conflicting { background: #fdecea; }
.words { display: block; color: #555; font-size: 0.85em; font-style: italic; }
.sec { display: block; color: #777; font-size: 0.8em; }
.legend, .note { color: #555; font-size: 0.9em; }
a { color: #0b57d0; text-decoration: none; } a:hover { text-decoration: underline; }
dl.clause { margin: 0.3em 0 1.2em; } dl.clause dt { font-weight: bold; margin-top: 0.6em; }
dl.clause dd { margin-left: 1.5em; }
blockquote { margin: 0.3em 0 0.3em 1em; padding-left: 0.8em; border-left: 3px solid #ccc;
             color: #333; }
figure { margin: 1em 0; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.9em; }
nav.toc { margin: 0.5em 0 1em; line-height: 1.8; } ol.toc { font-size: 0.9em; columns: 2 24em; column-gap: 3em; }
ol.toc li { break-inside: avoid; list-style-position: inside; }
.sev { color: #777; font-size: 0.85em; } a.up { font-size: 0.7em; font-weight: normal; margin-left: 0.6em; }
div.witness code { white-space: pre-wrap; word-break: break-all; font-size: 0.85em; }
"""


def page(title: str, body: str) -> str:
    """A whole HTML page."""
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"{body}\n</body>\n</html>\n"
    )


def anchor_id(clause_id: str) -> str:
    """The HTML id of a clause's entry: ``samba-en:draw-count`` -> ``samba-en--draw-count``."""
    return clause_id.replace(":", "--")


def _words(c: Clause) -> str:
    """The anchor words a clause cites (the default reading's, or each reading's)."""
    anchors = [r.anchor for r in c.readings if r.anchor] or ([c.anchor] if c.anchor else [])
    return " · ".join(f"«{escape(a)}»" for a in dict.fromkeys(anchors))


def _cell(row: Row, i: int) -> str:
    c = row.cells[i].clause
    if c is None:
        return '<td class="na">—</td>'
    sections = sorted({r.section for r in c.readings if r.section} | {c.section})
    words = _words(c)
    return (
        f'<td class="{c.status}"><a href="#{anchor_id(c.id)}" title="{escape(c.paraphrase)}">'
        f"{escape(row.cells[i].text())}{escape(MARK[c.status])}</a>"
        f'<span class="sec">§ {escape("; ".join(sections))}</span>'
        + (f'<span class="words">{words}</span>' if words else "")
        + "</td>"
    )


def _table(
    books: Sequence[Rulebook],
    rows: Sequence[Row],
    only_differences: bool,
    links: dict[str, str] | None = None,
) -> str:
    out: list[str] = []
    topic = None
    for row in rows:
        if only_differences and not row.differs:
            continue
        if row.topic != topic:
            if topic is not None:
                out.append("</table>")
            topic = row.topic
            out.append(f"<h3>{escape(topic)}</h3>")
            out.append(
                "<table><tr><th></th><th>rule</th>"
                + "".join(f"<th>{escape(b.id)}</th>" for b in books)
                + "</tr>"
            )
        cls = ' class="differs"' if row.differs else ""
        mark = "≠" if row.differs else ""
        if mark and links and row.key in links:
            mark = f'<a href="#{links[row.key]}" title="the witness of this difference">≠</a>'
        out.append(
            f"<tr{cls}><td>{mark}</td>"
            f"<td>{escape(row.key.replace('_', ' '))}</td>"
            + "".join(_cell(row, i) for i in range(len(books)))
            + "</tr>"
        )
    if topic is not None:
        out.append("</table>")
    return "\n".join(out)


def _clause_entry(book: Rulebook, c: Clause) -> str:
    parts = [
        f'<dt id="{anchor_id(c.id)}">{escape(c.id)} <small>({c.status}, '
        f"§ {escape(c.section)})</small></dt>"
    ]
    readings = c.readings if len(c.readings) > 1 else c.readings[:1]
    for r in readings:
        label = f"{escape(r.label)}: " if len(c.readings) > 1 else ""
        default = (
            " <small>(default)</small>" if len(c.readings) > 1 and r.label == c.default else ""
        )
        dd = f"<dd>{label}<b>{escape(show_value(r.value))}</b>{default} — {escape(r.paraphrase)}"
        where = r.section or c.section
        anchor = r.anchor or (c.anchor if r.label == c.default else None)
        if anchor:
            dd += f'<span class="sec">§ {escape(where)}, anchor «{escape(anchor)}»</span>'
            said = sentence(book, where, anchor)
            if said:
                dd += f'<blockquote lang="{escape(book.language)}">{escape(said)}</blockquote>'
        parts.append(dd + "</dd>")
    if c.basis:
        parts.append(f"<dd>inferred from: {escape(c.basis)}</dd>")
    if c.rationale:
        parts.append(f"<dd>default because: {escape(c.rationale)}</dd>")
    return "\n".join(parts)


def _witnesses(section: str, title: str, found: Witnesses) -> str:
    """Each ≠ row's witnesses, under the id its ≠ mark links to."""
    out = [f"<h3>Witnesses of the ≠ rows: {escape(title)}</h3>"]
    for key, ws in found.items():
        out.append(f'<div class="witness" id="{witness_anchor(section, key)}">')
        out.append(f"<h4>{escape(key.replace('_', ' '))}</h4><ul>")
        for w in ws:
            details = "".join(
                f"<li><code>{escape(line)}</code></li>" for line in witness_details(w)
            )
            out.append(
                f"<li><b>{escape(' / '.join(w['books']))}</b>: {escape(witness_text(w))}"
                + (f"<ul>{details}</ul>" if details else "")
                + "</li>"
            )
        out.append("</ul></div>")
    return "\n".join(out)


def comparison_html(
    books: Sequence[Rulebook], witnesses: dict[str, Witnesses] | None = None
) -> str:
    """The rules comparison as one HTML page; every cell links to its clause below, and with
    `witnesses` (`report.comparison_witnesses`) every ≠ mark to the row's witnesses."""
    samba, rummy = comparison_groups(books)
    witnesses = witnesses or {}

    def links(section: str) -> dict[str, str]:
        return {k: witness_anchor(section, k) for k in witnesses.get(section, {})}

    have = [b.id for b in books if book_text(b) is not None]
    if have:
        note = (
            f"The book's sentences around each anchor are read from the book texts at hand "
            f"({', '.join(have)}); they are quoted from the books, not part of arbitro."
        )
    else:
        note = (
            "The book texts are not at hand, so only the anchor words are shown: set "
            "ARBITRO_RULEBOOKS to a folder holding them to see each sentence."
        )
    body = [
        "<h1>The rulebooks compared</h1>",
        '<p class="legend">≠ the rulebooks differ on this row; after a value, ~ inferred, '
        "? unspecified (the book is silent; our flagged default), ! conflicting (the book says "
        "two things). Each cell gives the section (§) and the anchor words («…») it cites, and "
        "links to the clause, where our paraphrase and the reasons are.</p>",
        f'<p class="note">{note}</p>',
        "<h2>What applies to all five</h2>",
        "<table><tr><th>rule</th>" + "".join(f"<th>{escape(b.id)}</th>" for b in books) + "</tr>",
        "<tr><td>cards in the deck</td>"
        + "".join(f"<td>{deck_size(b)}</td>" for b in books)
        + "</tr>",
        "<tr><td>players</td>"
        + "".join(f"<td>{escape(player_counts(b))}</td>" for b in books)
        + "</tr>",
    ]
    # the rows the Markdown document has too (docs/rules-comparison.md)
    everyone = diff(books)
    for key in ("play_direction", "dealer_rotation", "target_score"):
        for row in (r for r in everyone if r.key == key):
            body.append(
                f"<tr><td>{escape(key.replace('_', ' '))}</td>"
                + "".join(f"<td>{escape(cell_text(row, i))}</td>" for i in range(len(books)))
                + "</tr>"
            )
    body.append("</table>")
    if samba:
        rows = diff(samba)
        body += [
            "<h2>Samba: the three rulebooks</h2>",
            f"<p>{sum(r.differs for r in rows)} of {len(rows)} rules differ.</p>",
            _table(samba, rows, False, links("samba")),
        ]
        if witnesses.get("samba"):
            body.append(_witnesses("samba", "Samba", witnesses["samba"]))
    if len(rummy) > len(samba):
        body += [
            "<h2>Samba and Canasta: the four rummy rulebooks</h2>",
            "<p>Only the rules on which the four books differ.</p>",
            _table(rummy, diff(rummy), True, links("rummy")),
        ]
        if witnesses.get("rummy"):
            body.append(_witnesses("rummy", "Samba and Canasta", witnesses["rummy"]))
    others = [b for b in books if b not in rummy]
    for b in others:
        body += [f"<h2>{escape(b.id)}</h2>", _table([b], diff([b]), False)]
    body.append("<h2>The clauses</h2>")
    for b in books:
        body.append(f'<h3 id="{escape(b.id)}">{escape(b.id)}: {escape(b.title)}</h3>')
        body.append('<dl class="clause">')
        body += [_clause_entry(b, c) for _, group in b.by_topic() for c in group]
        body.append("</dl>")
    return page("The rulebooks compared", "\n".join(body))
