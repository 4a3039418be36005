"""Check a spec against the text of its rulebook: digest, section headings, anchors, no copying."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from arbitro.model.spec import Rulebook, text_sha256

COPY_RUN = 8
"""A paraphrase sharing this many consecutive words with its book is a copy."""


@dataclass(frozen=True)
class TextIssue:
    """One way a spec does not match its book's text."""

    where: str
    problem: str

    def __str__(self) -> str:
        return f"{self.where}: {self.problem}"


def _norm(s: str) -> str:
    return " ".join(s.split())


def _words(s: str) -> list[str]:
    return re.findall(r"\w+", s.lower())


def section_spans(text: str, sections: tuple[str, ...]) -> dict[str, tuple[int, int]] | TextIssue:
    """Where each listed heading starts a line, in order; a section runs to the next heading."""
    starts: list[int] = []
    pos = 0
    for heading in sections:
        m = re.compile(r"^[ \t]*" + re.escape(heading), re.MULTILINE).search(text, pos)
        if m is None:
            return TextIssue(
                "rulebook.sections",
                f"heading {heading!r} does not start a line after the previous heading",
            )
        starts.append(m.start())
        pos = m.end()
    ends = [*starts[1:], len(text)]
    return {h: (s, e) for h, s, e in zip(sections, starts, ends, strict=True)}


def check_text(rb: Rulebook, rulebooks_dir: Path) -> list[TextIssue]:
    """Every way the spec does not match `rulebooks_dir/<text>`; empty when it matches."""
    path = rulebooks_dir / rb.text
    if not path.is_file():
        return [TextIssue("rulebook.text", f"no file {path}")]
    raw = path.read_bytes()
    issues: list[TextIssue] = []
    digest = text_sha256(raw)
    if digest != rb.sha256:
        issues.append(
            TextIssue(
                "rulebook.sha256",
                f"the text now has digest {digest}: re-read the book and update the spec",
            )
        )
    text = raw.decode("utf-8")
    spans = section_spans(text, rb.sections)
    if isinstance(spans, TextIssue):
        return [*issues, spans]
    book_words = _words(text)
    runs = {tuple(book_words[i : i + COPY_RUN]) for i in range(len(book_words) - COPY_RUN + 1)}
    for c in rb.clauses:
        places: list[tuple[str, str | None, str | None, str]] = [
            (c.key, c.section, c.anchor, c.paraphrase)
        ]
        places += [(f"{c.key}.{r.label}", r.section, r.anchor, r.paraphrase) for r in c.readings]
        for where, section, anchor, paraphrase in places:
            if anchor is not None and section is not None:
                s, e = spans[section]
                if _norm(anchor) not in _norm(text[s:e]):
                    issues.append(
                        TextIssue(where, f"anchor {anchor!r} is not in section {section!r}")
                    )
            pw = _words(paraphrase)
            for i in range(len(pw) - COPY_RUN + 1):
                if tuple(pw[i : i + COPY_RUN]) in runs:
                    issues.append(
                        TextIssue(
                            where, f"paraphrase copies the book: {' '.join(pw[i : i + COPY_RUN])!r}"
                        )
                    )
                    break
        for text_field in (c.basis, c.rationale):
            if text_field:
                tw = _words(text_field)
                for i in range(len(tw) - COPY_RUN + 1):
                    if tuple(tw[i : i + COPY_RUN]) in runs:
                        issues.append(TextIssue(c.key, "basis or rationale copies the book"))
                        break
    return issues
