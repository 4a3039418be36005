"""samba-fr with seven to ten players ends (issue: reliability, "samba-fr with 7-10 players never
finishes a game"). The book names six packs where it deals (La distribution) and three where it
presents the game; with three, ten hands of thirteen leave a stock of 31 cards, no hand can end by
going out and the totals, negative at every stock-out, never reach the target. The layouts of seven
to ten players play six packs (flagged as our default in samba-fr:layouts, whose rationale says
every random game of them ended within 300 hands); the three-pack game is kept here as the broken
input the check must catch."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from arbitro.cli.main import main

pytestmark = pytest.mark.slow

SPEC = Path(__file__).resolve().parents[2] / "spec" / "samba-fr.toml"


def _simulate(argv: list[str]) -> dict[str, Any]:
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stdout", out)
        assert main([*argv, "--games", "1", "--seed", "0", "--json"]) == 0
    got: dict[str, Any] = json.loads(out.getvalue())
    return got


@pytest.mark.parametrize("layout", ["7-solo", "8-pairs", "9-solo", "10-pairs"])
def test_a_random_game_of_seven_to_ten_players_ends(layout: str) -> None:
    got = _simulate(["simulate", "samba-fr", "--layout", layout, "--max-hands", "300"])
    assert got["games"] == 1 and got["unfinished_games"] == 0, got
    assert sum(got["wins_by_side"].values()) == 1


def test_the_three_pack_game_of_ten_players_is_caught_never_going_out(tmp_path: Path) -> None:
    # the same book under an id of its own, its layouts of seven to ten without `packs = 6`
    text = SPEC.read_text(encoding="utf-8")
    text = text.replace('id = "samba-fr"', 'id = "mine"', 1).replace('"samba-fr:', '"mine:')
    text, n = re.subn(r", packs = 6 \}", " }", text)
    assert n >= 8
    spec = tmp_path / "mine.toml"
    spec.write_text(text, encoding="utf-8")
    got = _simulate(["simulate", "--spec", str(spec), "--layout", "10-pairs", "--max-hands", "20"])
    assert got["unfinished_games"] == 1, got
    # 31 cards of stock: every hand ends by stock-out, none by going out
    assert got["hand_endings"] == {"stock-out": 20}, got["hand_endings"]
