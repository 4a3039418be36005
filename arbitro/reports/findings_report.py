"""The findings as a rules editor reads them: plain text (100 columns), Markdown, JSON and HTML.

Each finding shows its kind and severity, the book's section and anchor words with the book's
sentence where the text is at hand, the clauses, the witness or unsat core, and the summary. A
closing block lists every claim of the books with its verdict, and the share of findings that
carry a machine-checked witness or core.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Sequence
from html import escape
from typing import Any

from arbitro.findings.core import KINDS, Finding, evidence_counts, evidence_share


def _wrap(text: str, indent: str, width: int | None = None) -> list[str]:
    from arbitro.reports.terminal import width as columns

    return textwrap.wrap(
        " ".join(text.split()),
        width=width or columns(),
        initial_indent=indent,
        subsequent_indent=indent,
        break_long_words=True,
        break_on_hyphens=False,
    ) or [indent]


def _witness_line(f: Finding) -> str:
    w = f.witness or {}
    if f.core and not w.get("text"):
        return "unsat core: " + ", ".join(f.core)
    text = str(w.get("text", ""))
    if f.core and "core" not in text:
        text += f" (core: {', '.join(f.core)})"
    return text


def _label(f: Finding) -> str:
    """What the witness line is: evidence that exhibits the defect, that supports it, or none."""
    if not f.checked:
        return "no machine-checked witness"
    return f"witness ({f.evidence})" if f.evidence else "witness"


def _totals(found: Sequence[Finding]) -> str:
    e = evidence_counts(found)
    counts = ", ".join(f"{sum(f.kind == k for f in found)} {k}" for k in KINDS)
    return (
        f"{e['total']} findings: {counts}. Evidence: {e['exhibits']} exhibit the defect in a case"
        f" the engine replays under each book named; {e['supports']} support it (an unsat core,"
        f" a clause that decides a move, a case shown with one rule swapped in); {e['none']}"
        " carry no machine-checked evidence."
    )


def text(found: Sequence[Finding], claims: Sequence[dict[str, Any]], source: str) -> str:
    """Plain text as wide as the terminal (100 columns when piped)."""
    out: list[str] = []
    for kind in KINDS:
        group = [f for f in found if f.kind == kind]
        if not group:
            continue
        out += [f"{kind} ({len(group)})", "=" * (len(kind) + 6)]
        for f in group:
            out += _wrap(f"[{f.severity}] {', '.join(f.rulebooks)} — {f.summary}", "")
            for p in f.places:
                where = f"§ {p.section}" + (f" «{p.anchor}»" if p.anchor else "")
                out += _wrap(f"{p.rulebook} {where}", "    ")
                if p.sentence:
                    out += _wrap(f"“{p.sentence}”", "      ")
            out += _wrap("clauses: " + ", ".join(f.clauses), "    ")
            w = _witness_line(f)
            if w:
                out += _wrap(f"{_label(f)}: {w}", "    ")
            elif not f.checked:
                out += _wrap("no machine-checked witness", "    ")
            out.append("")
    if claims:
        out += [f"claims checked ({len(claims)})", "=" * 19]
        for c in claims:
            how = c.get("witness", {}).get("text") or c.get("reason", "")
            out += _wrap(f"{c['verdict']:<8} {c['claim']} ({c['method']}): {how}", "")
        out.append("")
    out += _wrap(_totals(found), "")
    out += _wrap(f"derived results: {source}", "")
    return "\n".join(line.rstrip() for line in out) + "\n"


def _md(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def markdown(found: Sequence[Finding], claims: Sequence[dict[str, Any]], source: str) -> str:
    out = ["# Findings", ""]
    for kind in KINDS:
        group = [f for f in found if f.kind == kind]
        if not group:
            continue
        out += [f"## {kind} ({len(group)})", ""]
        for f in group:
            out.append(f"### {', '.join(f.rulebooks)}: {f.topic} ({f.severity})")
            out.append("")
            out.append(f'<a id="{f.id}"></a>{_md(f.summary)}')
            out.append("")
            for p in f.places:
                line = f"- {p.rulebook} § {p.section}" + (f" «{p.anchor}»" if p.anchor else "")
                if p.sentence:
                    line += f": “{_md(p.sentence)}”"
                out.append(line)
            out.append(f"- clauses: {', '.join(f'`{c}`' for c in f.clauses)}")
            w = _witness_line(f)
            label = _label(f)
            out.append(f"- {label}{': ' + _md(w) if w else ''}")
            out.append("")
    if claims:
        out += ["## Claims checked", "", "| verdict | claim | how | result |", "|---|---|---|---|"]
        for c in claims:
            how = c.get("witness", {}).get("text") or c.get("reason", "")
            out.append(f"| {c['verdict']} | `{c['claim']}` | {c['method']} | {_md(how)} |")
        out.append("")
    out += [_totals(found), "", f"Derived results: {source}.", ""]
    return "\n".join(out)


def as_json(
    found: Sequence[Finding],
    claims: Sequence[dict[str, Any]],
    timings: dict[str, Any] | str | None = None,
) -> str:
    """The findings as JSON: the same specs give the same bytes, so where the derived results
    came from and how long they took appear only when asked for (`timings`)."""
    checked, _ = evidence_share(found)
    data: dict[str, Any] = {
        "findings": [f.to_json() for f in found],
        "claims": [{k: v for k, v in c.items() if k != "seconds"} for c in claims],
        "evidence": {**evidence_counts(found), "checked": checked},
    }
    if isinstance(timings, dict):
        data["timings"] = timings
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _gist(text: str, width: int = 90) -> str:
    """The start of a summary, cut at a word, for a list of links."""
    if len(text) <= width:
        return text
    cut = text.rfind(" ", 0, width)
    return text[: cut if cut > 0 else width].rstrip(" ,;:") + "…"


def html(found: Sequence[Finding], claims: Sequence[dict[str, Any]], source: str) -> str:
    from arbitro.reports.html import page

    groups = [(kind, [f for f in found if f.kind == kind]) for kind in KINDS]
    groups = [(kind, group) for kind, group in groups if group]
    # navigation: every kind from the top, every finding from its kind, the way back from each
    nav = [f'<a href="#kind-{escape(kind)}">{escape(kind)} ({len(g)})</a>' for kind, g in groups]
    if claims:
        nav.append(f'<a href="#claims">claims checked ({len(claims)})</a>')
    parts = [
        '<h1 id="top">Findings</h1>',
        f'<p class="note">{escape(_totals(found))}</p>',
        '<nav class="toc">' + " · ".join(nav) + "</nav>",
    ]
    for kind, group in groups:
        parts.append(f'<h2 id="kind-{escape(kind)}">{escape(kind)} ({len(group)})</h2>')
        parts.append(
            '<ol class="toc">'
            + "".join(
                f'<li><a href="#{escape(f.id)}">{escape(f.topic)}</a>'
                f' <span class="sev">{escape(f.severity)}</span> {escape(_gist(f.summary))}</li>'
                for f in group
            )
            + "</ol>"
        )
        for f in group:
            parts.append(f'<section id="{escape(f.id)}">')
            parts.append(
                f"<h3>{escape(', '.join(f.rulebooks))}: {escape(f.topic)}"
                f' <span class="sec">severity: {escape(f.severity)}</span>'
                f' <a class="up" href="#kind-{escape(kind)}">↑ {escape(kind)}</a>'
                ' <a class="up" href="#top">↑ top</a></h3>'
            )
            parts.append(f"<p>{escape(f.summary)}</p><ul>")
            for p in f.places:
                where = f"{p.rulebook} § {p.section}" + (f" «{p.anchor}»" if p.anchor else "")
                quote = f"<blockquote>{escape(p.sentence)}</blockquote>" if p.sentence else ""
                parts.append(f"<li>{escape(where)}{quote}</li>")
            parts.append(
                "<li>clauses: "
                + ", ".join(f"<code>{escape(c)}</code>" for c in f.clauses)
                + "</li>"
            )
            w = _witness_line(f)
            label = _label(f)
            parts.append(f"<li>{label}{': ' + escape(w) if w else ''}</li></ul>")
            if f.witness and isinstance(f.witness.get("transcript"), str):
                parts.append(_witness_board(f.witness["transcript"]))
            if f.witness and len(f.witness) > 2:
                body = json.dumps(f.witness, ensure_ascii=False, indent=1)[:4000]
                parts.append(
                    f"<details><summary>witness data</summary><pre>{escape(body)}</pre></details>"
                )
            parts.append("</section>")
    if claims:
        parts.append(
            '<h2 id="claims">Claims checked</h2><table><tr><th>verdict</th><th>claim</th>'
            "<th>how</th><th>result</th></tr>"
        )
        for c in claims:
            how = c.get("witness", {}).get("text") or c.get("reason", "")
            parts.append(
                f"<tr><td>{escape(c['verdict'])}</td><td><code>{escape(c['claim'])}</code></td>"
                f"<td>{escape(c['method'])}</td><td>{escape(how)}</td></tr>"
            )
        parts.append("</table>")
    parts.append(f'<p class="note">Derived results: {escape(source)}.</p>')
    return page("arbitro findings", "\n".join(parts))


def _witness_board(transcript: str) -> str:
    """A witness game's last position and move, as `arbitro show` draws them ("" if it does not
    replay)."""
    from arbitro.oracle.show import transcript_report

    got = transcript_report(transcript)
    if got is None:
        return ""
    line, move, board = got
    return (
        f"<p>before the last move <code>{escape(str(move))}</code>: position "
        f"<code>{escape(line)}</code></p><pre class='board'>{escape(board)}</pre>"
    )


RENDER: dict[str, Callable[[Sequence[Finding], Sequence[dict[str, Any]], str], str]] = {
    "text": text,
    "md": markdown,
    "json": as_json,
    "html": html,
}

__all__ = ["RENDER", "as_json", "html", "markdown", "text"]
