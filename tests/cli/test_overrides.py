"""`--override CLAUSE=JSON` in simulate and report: house rules are played, and said to be played.

The check reads the games back from the per-hand records: Escoba is played to a target score (21
in the book, escoba-es § "21 puntos"); a game ends after the first hand in which a side's total
reaches the target, so under `target-score=15` every game ends as soon as a side reaches 15."""

from __future__ import annotations

import html
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from arbitro.cli.main import main


def _game_ends(records: Path) -> list[tuple[list[int], list[int]]]:
    """For each game, the sides' totals before its last hand and after it."""
    hands: dict[int, list[list[int]]] = defaultdict(list)
    for line in records.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        hands[row["game"]].append(row["scores"])
    out = []
    for rows in hands.values():
        totals = [0] * len(rows[0])
        for scores in rows[:-1]:
            totals = [t + s for t, s in zip(totals, scores, strict=True)]
        last = [t + s for t, s in zip(totals, rows[-1], strict=True)]
        out.append((totals, last))
    return out


def _ends_at(target: int, ends: list[tuple[list[int], list[int]]]) -> bool:
    return all(max(before) < target <= max(after) for before, after in ends)


def test_simulate_plays_the_house_target_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    book, house = tmp_path / "book.jsonl", tmp_path / "house.jsonl"
    argv = ["simulate", "escoba-es", "--games", "12", "--json"]
    assert main([*argv, "--records", str(book)]) == 0
    capsys.readouterr()
    assert main([*argv, "--records", str(house), "--override", "escoba-es:target-score=15"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["overrides"] == {"escoba-es:target-score": 15}
    assert _ends_at(21, _game_ends(book))
    ends = _game_ends(house)
    assert _ends_at(15, ends)
    # the check tells the two apart: the house games are not the book's
    assert not _ends_at(21, ends)
    # the text output names the house rule before anything else
    assert main(["simulate", "escoba-es", "--games", "2", "--override", "target-score=15"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first == "with overrides, not the book's rules: escoba-es:target-score = 15"


def test_report_names_its_house_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "r.html"
    argv = ["report", "escoba-es", "--games", "3", "--output", str(page), "--json"]
    assert main([*argv, "--override", "escoba-es:target-score=15"]) == 0
    assert json.loads(capsys.readouterr().out)["overrides"] == {"escoba-es:target-score": 15}
    text = html.unescape(page.read_text(encoding="utf-8"))
    assert "with overrides, not the book's rules: escoba-es:target-score = 15" in text


@pytest.mark.parametrize(
    ("override", "words"),
    [
        ("escoba-es:target-scor=15", "escoba-es has no such clause"),
        ("samba-en:target-score=15", "not a clause of escoba-es"),
        ("escoba-es:target-score=21", "the book already says 21"),
        ('escoba-es:target-score="x"', "target_score: expected an integer"),
        ("target-score", "is not CLAUSE=JSON"),
    ],
)
def test_a_bad_override_is_one_line_and_exit_2(
    override: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in (["simulate"], ["report", "--output", str(tmp_path / "r.html")]):
        argv = [command[0], "escoba-es", *command[1:], "--games", "1", "--override", override]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err, err


def test_dead_end_transcripts_are_refused_under_house_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["simulate", "escoba-es", "--games", "1", "--dead-ends", str(tmp_path / "d")]
    assert main([*argv, "--override", "target-score=15"]) == 2
    assert "cannot be used with --override" in capsys.readouterr().err


def _explore(capsys: pytest.CaptureFixture[str], *more: str) -> dict[str, Any]:
    argv = ["explore", "escoba-es", "--config", "escoba-tiny", "--json", *more]
    assert main(argv) == 0
    return dict(json.loads(capsys.readouterr().out))


def test_explore_walks_the_house_rules(capsys: pytest.CaptureFixture[str]) -> None:
    """A scoring house rule (an escoba worth 2, not 1) leaves the moves, and so the walk, as they
    were, and changes the scores of the hands that hold an escoba."""
    book = _explore(capsys)
    house = _explore(capsys, "--override", "escoba-es:escoba-points=2")
    assert house["overrides"] == {"escoba-es:escoba-points": 2}
    assert "not the book's rules" in house["configuration"]
    for same in ("states", "edges", "terminal", "states_per_depth"):
        assert house[same] == book[same], same

    def scores(d: dict[str, Any]) -> dict[tuple[int, ...], int]:
        return {tuple(r["scores"]): r["terminal_states"] for r in d["score_distribution"]}

    assert scores(house) != scores(book)
    assert sum(scores(house).values()) == sum(scores(book).values()) == book["terminal"]
    # an escoba now adds one point more: no hand scores less, the best hand more
    assert max(max(s) for s in scores(house)) > max(max(s) for s in scores(book))


@pytest.mark.parametrize(
    ("more", "words"),
    [
        (["--override", "escoba-es:escoba-point=2"], "escoba-es has no such clause"),
        (["--option", "nonsense=1"], "nonsense"),
    ],
)
def test_explore_names_a_bad_house_rule_in_one_line(
    more: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["explore", "escoba-es", "--config", "escoba-tiny", *more]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err
