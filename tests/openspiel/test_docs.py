"""docs/openspiel.md: its generated tables are current and its examples run as written."""

from __future__ import annotations

import re
import runpy
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyspiel", reason="OpenSpiel (the open_spiel package) is not installed here")

from arbitro.openspiel import reference

DOC = Path(__file__).resolve().parents[2] / "docs" / "openspiel.md"


def test_the_generated_part_is_current() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert reference.generate() in text, "run: uv run python -m arbitro.openspiel.reference"


def test_the_check_notices_a_changed_table(tmp_path: Path, monkeypatch: Any) -> None:
    text = DOC.read_text(encoding="utf-8")
    stale = tmp_path / "openspiel.md"
    stale.write_text(text.replace("| 84,488 |", "| 84,487 |", 1), encoding="utf-8")
    monkeypatch.setattr(reference, "DOC", stale)
    assert reference.main(["--check"]) == 1
    stale.write_text(text, encoding="utf-8")
    assert reference.main(["--check"]) == 0


@pytest.mark.parametrize("index", [0, -1])
def test_the_examples_run(index: int, tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    script = tmp_path / "example.py"
    script.write_text(blocks[index], encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(script), run_name="__main__")
    if index == -1:
        assert "returns [" in capsys.readouterr().out
