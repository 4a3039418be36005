"""The differential check of the engine's speed work (`benchmarks/rummy_same_games.py`): two
engines that play alike are found alike, and a rule broken in one of them is shown where the
games part. Each engine is a tree of its own (model, arbitro, spec) run from source."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[3]


def _tree(into: Path) -> Path:
    """A copy of this checkout's engine (its source: the compiled build is left out)."""
    skip = shutil.ignore_patterns("_compiled", "__pycache__")
    for name in ("model", "arbitro", "spec"):
        shutil.copytree(ROOT / name, into / name, symlinks=True, ignore=skip)
    return into


@pytest.fixture
def parted(monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.setenv("ARBITRO_NATIVE", "0")
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import rummy_same_games

    return rummy_same_games.parted


def test_the_same_engine_plays_the_same_games(tmp_path: Path, parted: object) -> None:
    copy = _tree(tmp_path / "copy")
    found, steps = parted(copy, ROOT, "samba-en", 0, 2)  # type: ignore[operator]
    assert found == []
    assert steps > 100  # two hands of play, not an empty run


def test_a_broken_rule_shows_where_the_games_part(tmp_path: Path, parted: object) -> None:
    """The copy's listing leaves out the discard of the lowest card in hand (a rule broken on
    purpose): every hand parts at its first discard, and the missing Discard is shown."""
    copy = _tree(tmp_path / "copy")
    engine = copy / "model" / "rummy" / "engine.py"
    text = engine.read_text(encoding="utf-8")
    listing = "if c != d:\n                        out.append(row_d[c])"
    assert listing in text
    broken = listing.replace("c != d:", "c != d and c != hand[0]:")
    engine.write_text(text.replace(listing, broken), encoding="utf-8")
    found, _ = parted(ROOT, copy, "samba-en", 0, 2)  # type: ignore[operator]
    assert len(found) == 2
    for hand in found:
        only_base = next(line for line in hand.splitlines() if "only baseline" in line)
        assert "(7, " in only_base  # a Discard: tag 7, then the seat and the card
