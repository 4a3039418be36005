"""Edges of the command line a daily user hits: a JSON comparison written where asked, a spec
folder that is not there, a clause named after --spec."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arbitro.cli.main import main
from arbitro.model.spec import spec_dir


def test_comparison_json_goes_to_the_output_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cmp.json"
    assert main(["rules", "comparison", "--format", "json", "--output", str(out)]) == 0
    assert capsys.readouterr().out == ""
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["rulebooks"] and data["rows"]
    assert main(["rules", "comparison", "--format", "json", "--output", str(out)]) == 2
    assert "exists; pass --force" in capsys.readouterr().err


def test_a_spec_folder_that_is_not_there_is_an_error_not_an_empty_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("ARBITRO_SPEC_DIR", str(tmp_path / "nonexistent"))
    assert main(["rules", "list"]) == 2
    err = capsys.readouterr().err
    assert "ARBITRO_SPEC_DIR" in err and "not a directory" in err and err.count("\n") == 1


def test_rules_show_spec_file_then_a_clause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mine.toml"
    text = (spec_dir() / "samba-en.toml").read_text(encoding="utf-8")
    path.write_text(text.replace('id = "samba-en"', 'id = "mine"', 1), encoding="utf-8")
    assert main(["rules", "show", "--spec", str(path), "frozen-by", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    keys = [c["key"] for t in data["topics"] for c in t["clauses"]]
    assert data["id"] == "mine" and keys == ["frozen_by"]


def test_the_html_comparison_has_every_row_of_what_applies_to_all_five(tmp_path: Path) -> None:
    from arbitro.model.spec import load_all
    from arbitro.reports.html import comparison_html

    page = comparison_html(load_all())
    section = page.split("<h2>What applies to all five</h2>", 1)[1].split("</table>", 1)[0]
    for rule in ("cards in the deck", "players", "play direction", "dealer rotation"):
        assert f"<td>{rule}</td>" in section, rule
    assert "<td>target score</td>" in section
    assert str(tmp_path.anchor + "work") not in page and "/shared/rulebooks" not in page


def test_no_message_prints_a_placeholder_for_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "mine.toml"
    bad.write_bytes(b"\xff\xfe not utf-8")
    assert main(["rules", "show", "--spec", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "<file>" not in err and "mine.toml" in err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    assert main(["check", str(empty)]) == 2
    err = capsys.readouterr().err
    assert "<file>" not in err and "empty" in err
