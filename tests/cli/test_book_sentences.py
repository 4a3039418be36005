"""The book's sentence shown for a clause starts at a word's start, never mid-word (with the book
texts at hand; skipped without them)."""

from __future__ import annotations

import re

import pytest

from arbitro.booktext import book_text, sentence
from arbitro.model.spec import load_all


def test_every_sentence_starts_at_a_word() -> None:
    checked = 0
    for book in load_all():
        text = book_text(book)
        if text is None:
            continue
        flat = " ".join(text.split())
        for c in book.clauses:
            got = sentence(book, c.section, c.anchor)
            if not got:
                continue
            head = got.lstrip("…")[:20]
            at = [m.start() for m in re.finditer(re.escape(head), flat)]
            assert at, (book.id, c.key, got)
            # the character before the sentence is not a letter: it begins a word
            assert any(i == 0 or not flat[i - 1].isalnum() for i in at), (book.id, c.key, got)
            checked += 1
    if not checked:
        pytest.skip("no book text at hand")
    assert checked > 50


def test_samba_en_frozen_by_begins_with_its_heading() -> None:
    book = next(b for b in load_all() if b.id == "samba-en")
    if book_text(book) is None:
        pytest.skip("no book text at hand")
    c = next(c for c in book.clauses if c.key == "frozen_by")
    got = sentence(book, c.section, c.anchor)
    assert got is not None and got.startswith("Freezing the discard pile"), got
