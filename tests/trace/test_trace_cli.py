"""`arbitro rules trace CLAUSE`: what a user reads, and one-line errors. Each book's value and
status is read from the spec files here with tomllib, apart from the loader."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

from arbitro.cli.main import main
from arbitro.model.spec import spec_dir

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def spec_clauses(key: str) -> dict[str, dict[str, Any]]:
    """book id -> the raw [[clause]] table with this key, for every spec file that has it."""
    out = {}
    for path in sorted(spec_dir().glob("*.toml")):
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        for c in raw["clause"]:
            if c["key"] == key:
                out[raw["rulebook"]["id"]] = c
    return out


def test_a_key_traces_every_book_that_has_it(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "rules", "trace", "draw-count", "--json")
    assert code == 0, err
    data = json.loads(out)
    [fam] = data["families"]
    expected = spec_clauses("draw_count")
    assert {b["id"]: (b["value"], b["status"]) for b in fam["books"]} == {
        f"{book}:draw-count": (c["value"], c["status"]) for book, c in expected.items()
    }
    assert fam["field"]["class"] == "RummyRules" and fam["field"]["type"] == "int"
    assert any(s["function"].startswith("arbitro.model.rummy.") for s in fam["code"])
    for s in fam["code"]:  # each site is where it says it is
        assert (ROOT / s["file"]).is_file()
    assert any(t["plays_engine"] for t in fam["tests"])


def test_a_key_shared_by_two_games_is_traced_in_each_engine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "rules", "trace", "target_score", "--json")
    assert code == 0
    fams = {tuple(f["games"]): f for f in json.loads(out)["families"]}
    assert set(fams) == {("escoba",), ("samba", "canasta")}
    for games, fam in fams.items():
        package = "escoba" if games == ("escoba",) else "rummy"
        assert all(
            f"model/{package}/" in s["file"] or s["file"] == "model/game.py" for s in fam["code"]
        )


def test_one_book_and_either_spelling(capsys: pytest.CaptureFixture[str]) -> None:
    a = run(capsys, "rules", "trace", "samba-fr:pile_wild_pair_after", "--json")
    b = run(capsys, "rules", "trace", "samba-fr:pile-wild-pair-after", "--json")
    assert a[0] == b[0] == 0
    assert json.loads(a[1])["families"] == json.loads(b[1])["families"]
    [fam] = json.loads(a[1])["families"]
    assert [bk["id"] for bk in fam["books"]] == ["samba-fr:pile-wild-pair-after"]


def test_the_text_says_how_each_book_stands(capsys: pytest.CaptureFixture[str]) -> None:
    # a clause some book leaves unspecified and another states twice, found in the spec files
    key = next(
        k
        for k in ("pile_wild_pair_after", "bonus_going_out", "draw_short_stock")
        if {c["status"] for c in spec_clauses(k).values()} & {"conflicting", "unspecified"}
    )
    code, out, _ = run(capsys, "rules", "trace", key)
    assert code == 0
    assert all(len(line) <= 100 for line in out.splitlines())
    said = " ".join(out.split())  # lines are wrapped to the terminal
    for book, c in spec_clauses(key).items():
        assert f"{book}:{key.replace('_', '-')} = " in said
        if c["status"] == "unspecified":
            assert "our default" in said
        if c["status"] == "conflicting":
            assert f"played as reading {c['default']!r}" in said
    assert "code: " in out and "tests: " in out


def test_a_claim_is_data_only(capsys: pytest.CaptureFixture[str]) -> None:
    raw = tomllib.loads((spec_dir() / "samba-en.toml").read_text(encoding="utf-8"))
    claim = raw["claim"][0]["id"]
    code, out, _ = run(capsys, "rules", "trace", f"samba-en:claim:{claim}")
    assert code == 0
    assert f"claim samba-en:claim:{claim}: data only" in out
    assert "no rule reads it" in out
    assert "checked by: " in out and "proofs/" in out


def test_without_tests_at_hand_the_trace_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    shutil.copytree(ROOT / "model", tmp_path / "model")
    code, out, _ = run(capsys, "rules", "trace", "wild-cap", "--root", str(tmp_path))
    assert code == 0
    assert "tests: not at hand" in out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["no-such-rule"], "no rulebook has a clause 'no-such-rule'"),
        (["draw"], "did you mean"),
        (["samba-xx:draw-count"], "unknown rulebook 'samba-xx'"),
        (["escoba-es:draw-count"], "escoba-es has no clause 'draw-count'"),
        (["samba-en:claim:nope"], "samba-en has no claim 'nope'"),
        (
            ["draw-count", "--root", "/nonexistent/arbitro"],
            "--root /nonexistent/arbitro: not a folder",
        ),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], says: str
) -> None:
    code, out, err = run(capsys, "rules", "trace", *argv)
    assert code == 2
    assert out == ""
    assert says in err
    assert len(err.strip().splitlines()) == 1


def test_a_root_without_a_model_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "rules", "trace", "draw-count", "--root", str(tmp_path))
    assert code == 2
    assert "no model/ folder under" in err
