"""The engine replays the recorded games byte for byte: every state and every legal-action list.

The goldens (data/replay-goldens.json, made by rummy_replay_goldens.py) hold seeded random games of
every book, every layout, every reading of every clause and random combinations of readings,
with a chained digest of the canonical state JSON and legal-action list at each step. They come
from the engine at the commit the file names, recorded before the engine was rewritten for
speed: a regression oracle (the same games must give the same states and the same legal
actions), not a rulebook number. *:layouts of each book, and every clause reading.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from arbitro.model.schema import RummyRules
from tests.model.rummy import rummy_replay_goldens as rg
from tests.support.quick import first_of_each

GOLDEN = json.loads(rg.GOLDEN.read_text(encoding="utf-8"))
GAMES: list[dict[str, Any]] = GOLDEN["games"]


def _id(g: dict[str, Any]) -> str:
    opts = ",".join(f"{k}={v}" for k, v in sorted(g["options"].items()))
    return f"{g['rulebook']}-{g['layout']}-{opts or 'defaults'}-{g['seed']}"


def test_the_goldens_name_their_source() -> None:
    assert GOLDEN["commit"] in GOLDEN["source"]
    assert "not numbers from any rulebook" in GOLDEN["source"]


def test_each_amended_game_says_where_and_why() -> None:
    """A game re-recorded after a fix that changed it on purpose (`--amend`) names a recorded
    game, the step it departs at, the commit of the fix and the reason."""
    ids = [{k: g[k] for k in ("rulebook", "layout", "options", "seed")} for g in GAMES]
    for a in GOLDEN.get("amended", []):
        assert a["game"] in ids
        steps = GAMES[ids.index(a["game"])]["steps"]
        assert 0 <= a["step"] < steps
        assert len(a["commit"]) == 40 and a["commit"] != GOLDEN["commit"]
        assert len(a["why"]) > 40


def test_every_configuration_is_recorded() -> None:
    """A reading or layout added to a spec since the goldens were made is a game not replayed:
    regenerate them (see rummy_replay_goldens.py)."""
    assert [rg.key(g) for g in GAMES] == rg.configs()


# a quick run replays one game of each book under its default readings and one under other
# readings; CI replays them all
@pytest.mark.parametrize(
    "game", first_of_each(GAMES, lambda g: (g["rulebook"], bool(g["options"]))), ids=_id
)
def test_replays_the_recorded_game(game: dict[str, Any]) -> None:
    got = rg.record(rg.key(game))
    step = rg.first_difference(game, got)
    assert step is None, f"the engine departs from the recorded game at step {step}"


def test_a_changed_rule_departs_from_the_recording(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: the same game with one card more per draw (*:draw-count) differs."""
    game = GAMES[0]
    real = rg._rules

    def broken(book: str, options: tuple[tuple[str, Any], ...]) -> RummyRules:
        r = real(book, options)
        return dataclasses.replace(r, draw_count=r.draw_count + 1, clause_ids=r.clause_ids)

    monkeypatch.setattr(rg, "_rules", broken)
    step = rg.first_difference(game, rg.record(rg.key(game)))
    assert step is not None and step < game["steps"]
