"""The differential check of the Escoba engine's speed work (`benchmarks/escoba_same_games.py`):
two engines that play alike are found alike, and a rule broken in one of them is shown where the
games part. Each engine is a tree of its own (model, arbitro, proofs, spec) run from source."""

from __future__ import annotations

import ast
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arbitro.model.schema import rules_for

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]
GAMES = [["escoba-es", "book", 2, 2, "", seed] for seed in range(4)]
"""Four one-hand games of two players under the book's rules: the broken rule below parts one."""

Compare = Callable[..., tuple[list[str], int, dict[str, str]]]


def _tree(into: Path) -> Path:
    """A copy of this checkout's engine (its source: the compiled build is left out)."""
    skip = shutil.ignore_patterns("_compiled", "__pycache__")
    for name in ("model", "arbitro", "proofs", "spec"):
        shutil.copytree(ROOT / name, into / name, symlinks=True, ignore=skip)
    return into


@pytest.fixture
def compare(monkeypatch: pytest.MonkeyPatch) -> Compare:
    monkeypatch.setenv("ARBITRO_NATIVE", "0")
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import escoba_same_games

    monkeypatch.setattr(escoba_same_games, "TIMEOUT", 300.0)
    found: Compare = escoba_same_games.compare
    return found


def test_the_same_engine_plays_the_same_games(tmp_path: Path, compare: Compare) -> None:
    copy = _tree(tmp_path / "copy")
    found, steps, _ = compare(copy, ROOT, GAMES, 1)
    assert found == []
    assert steps > 4 * 20  # a hand of 40 cards is over 20 plays: four hands, not an empty run


def test_capture_not_forced_on_a_one_card_table_shows_where_the_games_part(
    tmp_path: Path, compare: Compare
) -> None:
    """The copy's listing also offers the lay of a card that can capture when the table holds a
    single card (escoba-es:capture-forced broken in that one case): the game where that first
    happens parts there, and the extra play shown is such a lay."""
    copy = _tree(tmp_path / "copy")
    capture = copy / "model" / "escoba" / "capture.py"
    text = capture.read_text(encoding="utf-8")
    forced = "        if not forced:\n"
    assert text.count(forced) == 1
    broken = "        if not forced or table & table - 1 == 0:\n"
    capture.write_text(text.replace(forced, broken), encoding="utf-8")
    found, _, _ = compare(ROOT, copy, GAMES, 1)
    assert found, "the broken copy played every game alike"
    rules = rules_for("escoba-es")
    value = dict(zip(rules.ranks, rules.capture_values, strict=True))
    names = ("1", "2", "3", "4", "5", "6", "7", "sota", "caballo", "rey")
    for game in found:
        lines = game.splitlines()
        state: Any = ast.literal_eval(lines[1].removeprefix("  state "))
        table = state[9]  # EscobaState.table, a mask of cards
        assert table and table & table - 1 == 0, "the parting state's table holds one card"
        only_base = next(x for x in lines if "listing, only baseline:" in x)
        only_this = next(x for x in lines if "listing, only this:" in x)
        assert ast.literal_eval(only_base.split(":", 1)[1].strip()) == []
        extra = ast.literal_eval(only_this.split(":", 1)[1].strip())
        assert extra
        on_table = table.bit_length() - 1
        for seat, card, taken in extra:
            assert (seat, taken) == (state[5], 0)  # a lay by the seat to move
            worth = value[names[card % 10]] + value[names[on_table % 10]]
            assert worth == rules.capture_sum  # it could have taken the table's card
