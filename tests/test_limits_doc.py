"""docs/limits.md and the code agree: each bound's value in the table is the constant it names."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "limits.md"


def _rows() -> list[tuple[str, str]]:
    rows = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[4].startswith("`arbitro."):
            rows.append((cells[1], cells[4].strip("`")))
    return rows


def test_every_bound_in_the_table_is_the_value_of_its_constant() -> None:
    rows = _rows()
    assert len(rows) >= 25
    checked = 0
    for bound, name in rows:
        module, _, attr = name.rpartition(".")
        value = getattr(importlib.import_module(module), attr)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue  # a pattern or a function: named, not a number
        numbers = [float(n.replace(",", "")) for n in re.findall(r"-?[\d,]*\d", bound)]
        assert float(value) in numbers, (name, value, bound)
        checked += 1
    assert checked >= 20


def test_the_docs_promise_no_install_from_an_index() -> None:
    """arbitro is installed from a checkout: no doc says `pip install arbitro` or names an extra
    that does not exist."""
    import tomllib

    root = DOC.parents[1]
    extras = set(
        tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"][
            "optional-dependencies"
        ]
    )
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"pip install '?arbitro\b", text), path.name
        for extra in re.findall(r"\[(\w+)\]'", text):
            assert extra in extras, (path.name, extra)
