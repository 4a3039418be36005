"""report --compare reads its two runs game by game: both draw game g from the same seed, so the
per-game differences (paired) are read beside the two runs taken as independent samples."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from arbitro.cli.main import main
from arbitro.games import model_for
from arbitro.model.schema import rules_for
from arbitro.model.spec import load_rulebook
from arbitro.reports.html_report import mean_interval, paired, unpaired_interval
from arbitro.simulation.simulate import simulate


def test_the_intervals_by_hand() -> None:
    # differences 1, 1, 1, 1: mean 1, standard deviation 0, so the paired interval is [1, 1]
    assert mean_interval([1, 1, 1, 1]) == (1.0, 1.0, 1.0)
    # 2, 4, 6: mean 4, sample variance 4, standard error 2/√3; 1.96·2/√3 = 2.2632
    m, lo, hi = mean_interval([2, 4, 6])
    assert m == 4 and math.isclose(hi - m, 1.96 * 2 / math.sqrt(3)) and lo == 2 * m - hi
    # a = 1..4, b = 2..5: mean difference 1; each variance 5/3, so 1.96·√(5/3/4 + 5/3/4)
    d, lo, hi = unpaired_interval([1, 2, 3, 4], [2, 3, 4, 5])
    assert d == 1 and math.isclose(hi - d, 1.96 * math.sqrt(5 / 6))


def _run(seed: int, options: dict[str, str]) -> object:
    book = load_rulebook("escoba-es")
    model = model_for(book.game)
    rules = rules_for(book, options)
    return simulate(model, rules, model.seatings(rules)[0], 40, seed, options, policy="fast")


@pytest.mark.slow
def test_same_seeds_pair_game_by_game_and_other_seeds_do_not() -> None:
    """A reading that changes no game of these (the rest of the table with no capturer, which
    two players with the fast policy never meet here) gives every paired difference 0 exactly,
    where the unpaired view still sees the spread of the games; runs of different seeds, which
    are not pairs, do not."""
    a = _run(0, {})
    b = _run(0, {"rest_without_capturer": "default"})
    p = paired(a, b, 2)  # type: ignore[arg-type]
    assert p["games"] == 40
    for side in p["sides"]:
        assert side["final_score"]["paired"] == (0.0, 0.0, 0.0)
        _, lo, hi = side["final_score"]["unpaired"]
        assert hi - lo > 1
    other = paired(a, _run(1, {}), 2)  # type: ignore[arg-type]
    _, lo, hi = other["sides"][0]["final_score"]["paired"]
    assert hi - lo > 1


def test_report_compare_shows_both_views(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "ab.html"
    argv = ["report", "escoba-es", "--games", "6", "--compare", "rest-without-capturer"]
    assert main([*argv, "--output", str(page), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["paired"]["games"] == 6 and len(data["paired"]["sides"]) == 2
    text = page.read_text(encoding="utf-8")
    assert "paired (95% interval)" in text and "unpaired (95% interval)" in text


def test_escoba_reports_plot_what_varies(tmp_path: Path) -> None:
    """Every Escoba hand plays out the forty cards (36 actions with two players), so the report
    plots the points of each scoring category instead of hand lengths; Samba's hands vary in
    length and keep that plot."""
    esc, samba = tmp_path / "e.html", tmp_path / "s.html"
    assert main(["report", "escoba-es", "--games", "1", "--output", str(esc)]) == 0
    text = esc.read_text(encoding="utf-8")
    assert "Points per hand by scoring category" in text and "every hand has 36 actions" in text
    assert "Actions per hand" not in text
    argv = ["report", "samba-en", "--games", "1", "--policy", "fast", "--output", str(samba)]
    assert main(argv) == 0
    text = samba.read_text(encoding="utf-8")
    assert "Actions per hand" in text and "by scoring category" not in text


def test_the_category_points_add_up_as_the_book_scores() -> None:
    """The velo (the seven of coins) is one point for the side that captured it (escoba-es
    § Puntuación «Siete de Velo o Guindis»), and the cards left on the table at the end go to the
    last side that captured: some side holds it at the end of every hand, one velo point each."""
    s = _run(0, {})
    assert s.rounds > 0 and s.category_points["velo"] == s.rounds  # type: ignore[attr-defined]
