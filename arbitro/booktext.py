"""The book's own words around a clause's anchor, read at run time from a local copy of the texts.

The texts are not part of arbitro (they are cited, never copied). Where a copy is at hand, given by
$ARBITRO_RULEBOOKS or found as ``../shared/rulebooks`` beside a checkout, a rules editor can see
the sentence an anchor points into. A text whose digest differs from the one its spec was written
against is not used: its sentences may no longer be the ones the spec cites.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

from arbitro.model.provenance import section_spans
from arbitro.model.spec import Rulebook, spec_dir, text_sha256

MAX_CHARS = 400


def rulebooks_dir() -> Path | None:
    """Where the book texts are: $ARBITRO_RULEBOOKS, or ../shared/rulebooks beside the checkout."""
    env = os.environ.get("ARBITRO_RULEBOOKS")
    if env:
        return Path(env) if Path(env).is_dir() else None
    checkout = spec_dir().resolve().parent
    beside = checkout.parent / "shared" / "rulebooks"
    return beside if beside.is_dir() else None


@cache
def _text(path: str, sha256: str) -> str | None:
    try:
        raw = Path(path).read_bytes()
    except OSError:
        return None
    if text_sha256(raw) != sha256:
        return None
    return raw.decode("utf-8", errors="replace")


def book_text(book: Rulebook) -> str | None:
    """The book's text when a copy matching the spec's digest is at hand, else None."""
    d = rulebooks_dir()
    if d is None:
        return None
    return _text(str(d / book.text), book.sha256)


def sentence(book: Rulebook, section: str | None, anchor: str | None) -> str | None:
    """The sentence of the book holding `anchor` in `section`, whitespace collapsed, or None."""
    if not anchor or not section:
        return None
    text = book_text(book)
    if text is None:
        return None
    spans = section_spans(text, book.sections)
    if not isinstance(spans, dict) or section not in spans:
        return None
    s, e = spans[section]
    part = text[s:e]
    words = anchor.split()
    m = re.search(r"\s+".join(re.escape(w) for w in words), part)
    if m is None:
        return None
    start = m.start()
    # back to the end of the previous sentence, a blank line or a list item
    # (a separator not found is no boundary: rfind's -1 plus its length would cut mid-word)
    back = max(
        (
            at + len(sep)
            for sep in (". ", "! ", "? ", "\n\n", "\n- ", "\n• ")
            if (at := part.rfind(sep, 0, start)) >= 0
        ),
        default=0,
    )
    ahead = [
        i for i in (part.find(sep, m.end()) for sep in (". ", "! ", "? ", ".\n", "\n\n")) if i >= 0
    ]
    end = min(ahead) + 1 if ahead else len(part)
    found = " ".join(part[max(back, 0) : end].split())
    if len(found) > MAX_CHARS:
        # keep the anchor in view
        at = found.find(" ".join(words))
        lo = max(0, at - MAX_CHARS // 2)
        if lo:  # cut between words, never inside one
            lo = found.find(" ", lo) + 1 or lo
        piece = found[lo : lo + MAX_CHARS]
        if lo + MAX_CHARS < len(found) and " " in piece:
            piece = piece[: piece.rfind(" ")]
        found = ("…" if lo else "") + piece + "…"
    return found
