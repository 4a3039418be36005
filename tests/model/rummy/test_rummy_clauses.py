"""Every rule parameter of RummyRules is cited by at least one rummy test, for every book.

A test cites a clause in its docstring or comments as ``<book>:<key-with-dashes>`` or, for all four
books at once, ``*:<key-with-dashes>``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arbitro.model.schema import schema_keys
from tests.support.rummy_helpers import BOOKS

HERE = Path(__file__).parent
TEXT = "\n".join(p.read_text(encoding="utf-8") for p in sorted(HERE.glob("test_rummy_*.py")))


@pytest.mark.parametrize("book", BOOKS)
def test_every_clause_is_cited(book: str) -> None:
    missing = [
        k
        for k in schema_keys("samba")
        if f"{book}:{k.replace('_', '-')}" not in TEXT and f"*:{k.replace('_', '-')}" not in TEXT
    ]
    assert not missing, f"no test cites {', '.join(missing)} for {book}"
