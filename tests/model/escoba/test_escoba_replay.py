"""The engine replays the recorded seeded games exactly: every state and every legal-action list.

The golden file was written by the engine at the commit its first line names (see
replay_goldens.py); a difference means the engine's behaviour changed.
"""

from __future__ import annotations

import json

from tests.model.escoba.replay_goldens import GOLDEN, compute


def test_every_recorded_game_replays_exactly() -> None:
    """escoba-es:capture-sum .. escoba-es:target-tie — same states, same legal actions, same scores."""
    want = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert "commit" in want["source"]
    got = compute()
    assert sorted(got) == sorted(want["games"])
    for key, hands in want["games"].items():
        mine = got[key]
        for i, (a, b) in enumerate(zip(hands, mine, strict=False)):
            assert a == b, f"game {key}: hand {i} differs from the recorded engine"
        assert len(mine) == len(hands), f"game {key}: {len(mine)} hands, recorded {len(hands)}"


def test_a_changed_rule_changes_the_digests() -> None:
    """The digests see a change of score: escobas worth 2 points replay differently."""
    import dataclasses

    from tests.model.escoba.replay_goldens import SEATINGS, play_game, rules_of

    want = json.loads(GOLDEN.read_text(encoding="utf-8"))["games"]["2/book/0"]
    broken = dataclasses.replace(rules_of("book"), escoba_points=2)
    assert play_game(broken, SEATINGS["2"], "replay:2/book/0", 0) != want
    assert play_game(rules_of("book"), SEATINGS["2"], "replay:2/book/0", 0) == want
