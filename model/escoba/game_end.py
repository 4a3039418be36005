"""Winning the game: looked at only when a hand ends.

A side at or above the target wins; if several are, the highest total wins; if the highest is
shared, more hands are played until one side is ahead at the end of a hand. Implements
escoba-es:target-score and escoba-es:target-tie.
"""

from __future__ import annotations

from arbitro.model.schema import EscobaRules


def game_winner(rules: EscobaRules, scores: tuple[int, ...]) -> int | None:
    """The side that has won with these totals at the end of a hand, or None to play on."""
    if max(scores) < rules.target_score:
        return None
    reached = [side for side, s in enumerate(scores) if s >= rules.target_score]
    best = max(scores[side] for side in reached)
    leaders = [side for side in reached if scores[side] == best]
    if len(leaders) == 1:
        return leaders[0]
    if rules.target_tie == "higher_wins_else_play_on":
        return None
    raise ValueError(f"unknown target tie rule {rules.target_tie!r}")  # pragma: no cover
