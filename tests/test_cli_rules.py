"""The rules commands: list, show, diff, comparison, findings; errors without tracebacks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arbitro.cli.main import main
from arbitro.model.spec import STATUSES, load_all, load_rulebook, rulebook_ids
from arbitro.reports.report import comparison_document, without_witnesses

ROOT = Path(__file__).resolve().parent.parent


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_json_counts_clauses_by_status(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "list", "--json")
    assert code == 0
    listed = json.loads(out)
    assert [b["id"] for b in listed] == rulebook_ids()
    for entry in listed:
        book = load_rulebook(entry["id"])
        assert entry["clauses"] == len(book.clauses)
        assert sum(entry["by_status"].values()) == len(book.clauses)
        assert set(entry["by_status"]) == set(STATUSES)


def test_list_text_has_a_line_per_rulebook(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "list")
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0].split()[:5] == ["id", "game", "lang", "title", "clauses"]
    assert [line.split()[0] for line in lines[1:]] == rulebook_ids()


@pytest.mark.parametrize("rb_id", rulebook_ids())
def test_show_groups_every_clause_by_topic(capsys: pytest.CaptureFixture[str], rb_id: str) -> None:
    code, out, _ = run(capsys, "rules", "show", rb_id, "--json")
    assert code == 0
    shown = json.loads(out)
    ids = [c["id"] for t in shown["topics"] for c in t["clauses"]]
    book = load_rulebook(rb_id)
    assert sorted(ids) == sorted(c.id for c in book.clauses)
    for t in shown["topics"]:
        for c in t["clauses"]:
            assert c["section"] in book.sections
            if c["status"] == "conflicting":
                assert len(c["readings"]) >= 2 and c["default"]
    code, text, _ = run(capsys, "rules", "show", rb_id, "--format", "md")
    assert all(c.id in text for c in book.clauses)
    code, text, _ = run(capsys, "rules", "show", rb_id)
    # the terminal tables name each clause by its key with dashes, under its topic
    assert all(c.key.replace("_", "-") in text for c in book.clauses)


def test_diff_marks_rows_that_differ(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "diff", "samba-es", "samba-en", "samba-fr", "--json")
    assert code == 0
    rows = {r["key"]: r for r in json.loads(out)["rows"]}
    # samba-es and samba-fr: two cards from the stock; samba-en: one (see each spec's draw_count clause)
    draw = rows["draw_count"]
    assert draw["differs"]
    assert {k: v["value"] for k, v in draw["cells"].items()} == {
        "samba-es": 2,
        "samba-en": 1,
        "samba-fr": 2,
    }
    # every book agrees on the size that completes a canasta or samba: seven
    assert not rows["completed_size"]["differs"]
    code, text, _ = run(capsys, "rules", "diff", "samba-es", "samba-en", "--only-differences")
    assert "draw count" in text and "completed size" not in text
    code, text, _ = run(capsys, "rules", "diff", "samba-es", "samba-en", "--format", "md")
    assert "| ≠ | draw count |" in text


def test_diff_across_games_marks_rules_that_do_not_apply(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "rules", "diff", "samba-en", "escoba-es", "--json")
    assert code == 0
    rows = {r["key"]: r for r in json.loads(out)["rows"]}
    assert rows["draw_count"]["cells"]["escoba-es"] is None
    assert rows["capture_sum"]["cells"]["samba-en"] is None


def test_comparison_document_is_current() -> None:
    path = ROOT / "docs" / "rules-comparison.md"
    # the tables and marks; the witnesses of the ≠ rows are checked against a fresh derivation in
    # tests/findings/test_findings_report.py
    fresh = comparison_document(load_all())
    assert without_witnesses(path.read_text(encoding="utf-8")) == fresh, (
        "docs/rules-comparison.md is stale: uv run arbitro rules comparison --output docs/rules-comparison.md --force"
    )


def test_comparison_check_flag(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    stale = tmp_path / "cmp.md"
    stale.write_text("old\n", encoding="utf-8")
    bare = "--no-witnesses"  # the witnesses need the findings' derivation: not here
    code, _, err = run(capsys, "rules", "comparison", "--check", "--output", str(stale), bare)
    assert code == 1 and "is stale" in err
    code, _, err = run(capsys, "rules", "comparison", "--output", str(stale), bare)
    assert code == 2 and "exists; pass --force" in err
    assert stale.read_text(encoding="utf-8") == "old\n"
    code, _, _ = run(capsys, "rules", "comparison", "--output", str(stale), "--force", bare)
    assert code == 0
    code, out, _ = run(capsys, "rules", "comparison", "--check", "--output", str(stale), bare)
    assert code == 0 and "up to date" in out


def test_findings_have_the_promised_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "findings", "--declared-only", "--json")
    assert code == 0
    found = json.loads(out)["findings"]
    assert found
    for f in found:
        assert {"kind", "game", "rulebooks", "topic", "clauses", "summary", "severity"} <= f.keys()


def test_findings_filter_by_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "findings", "--declared-only", "--game", "escoba", "--json")
    assert code == 0
    found = json.loads(out)["findings"]
    assert {f["game"] for f in found} <= {"escoba"}
    assert not [f for f in found if f["kind"] == "cross-rulebook-difference"]


def test_unknown_rulebook_is_a_clear_error_without_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "arbitro.cli", "rules", "show", "samba-de"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("arbitro: error: unknown rulebook 'samba-de'; known: ")
    assert "Traceback" not in proc.stderr


def test_diff_needs_two_rulebooks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "diff", "samba-es"]) == 2
    assert "at least two rulebook ids" in capsys.readouterr().err
