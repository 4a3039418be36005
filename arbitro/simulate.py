"""Play whole games with uniformly random legal actions and check every state on the way."""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from arbitro.model.errors import IllegalAction
from arbitro.model.game import GameModel, Seating
from arbitro.playout import (
    MAX_HANDS_PER_GAME,
    Acted,
    DeadEnd,
    Dealt,
    HandOver,
    Unfinished,
    random_game,
)

DEAD_END = "dead-end"
"""The hand-end reason a model gives when a book's rules leave the player to move without a move."""


@dataclass
class Summary:
    """What a simulation saw."""

    rulebook: str
    seating: Seating
    options: dict[str, Any]
    seed: int
    games: int = 0
    rounds: int = 0
    actions: int = 0
    violations: int = 0
    violation_examples: list[dict[str, Any]] = field(default_factory=list)
    dead_ends: int = 0
    dead_end_examples: list[dict[str, Any]] = field(default_factory=list)
    dead_end_clauses: Counter[tuple[str, ...]] = field(default_factory=Counter)
    unfinished_games: int = 0
    hand_endings: Counter[str] = field(default_factory=Counter)
    wins: Counter[int] = field(default_factory=Counter)
    final_scores: list[tuple[int, ...]] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        sides = self.seating.sides
        per_side = [[s[i] for s in self.final_scores] for i in range(sides)]
        return {
            "rulebook": self.rulebook,
            "players": self.seating.players,
            "sides": sides,
            "layout": self.seating.layout,
            "options": self.options,
            "seed": self.seed,
            "games": self.games,
            "rounds": self.rounds,
            "actions": self.actions,
            "violations": self.violations,
            "violation_examples": self.violation_examples,
            "dead_ends": self.dead_ends,
            "dead_end_examples": self.dead_end_examples,
            "dead_end_findings": [
                {"clauses": list(k), "hands": v} for k, v in self.dead_end_clauses.most_common()
            ],
            "unfinished_games": self.unfinished_games,
            "hand_endings": dict(sorted(self.hand_endings.items())),
            "wins_by_side": {str(k): v for k, v in sorted(self.wins.items())},
            "final_scores": {
                "min": [min(s) for s in per_side] if self.final_scores else [],
                "mean": [round(sum(s) / len(s), 1) for s in per_side] if self.final_scores else [],
                "max": [max(s) for s in per_side] if self.final_scores else [],
            },
            "seconds": round(self.seconds, 3),
        }


def _record(examples: list[dict[str, Any]], item: dict[str, Any], keep: int = 5) -> None:
    if len(examples) < keep:
        examples.append(item)


def simulate(
    model: GameModel,
    rules: Any,
    seating: Seating,
    games: int,
    seed: int,
    options: dict[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
    max_hands: int = MAX_HANDS_PER_GAME,
) -> Summary:
    """Play `games` random games; game g draws its randomness from (seed, g) alone."""
    summary = Summary(rules.rulebook, seating, dict(options or {}), seed)
    start = time.perf_counter()
    for g in range(games):
        rng = random.Random(f"{seed}:{g}")
        state: Hashable | None = None
        hands = 0
        finished = True
        try:
            for event in random_game(
                model, rules, seating, rng, dealer=g % seating.players, max_hands=max_hands
            ):
                if isinstance(event, Acted):
                    summary.actions += 1
                elif isinstance(event, HandOver):
                    hands += 1
                    summary.rounds += 1
                    summary.hand_endings[event.result.reason] += 1
                    if event.result.reason == DEAD_END:
                        # the model ended the hand itself: a finding about the book, not a crash
                        summary.dead_ends += 1
                        result = model.state_to_json(event.state).get("result") or {}
                        clauses = tuple(result.get("finding", ()))
                        summary.dead_end_clauses[clauses] += 1
                        _record(
                            summary.dead_end_examples,
                            {"game": g, "hand": hands, "clauses": list(clauses)},
                        )
                elif isinstance(event, DeadEnd):
                    summary.dead_ends += 1
                    summary.dead_end_clauses[("no-legal-action",)] += 1
                    finished = False
                    _record(
                        summary.dead_end_examples,
                        {"game": g, "hand": hands, "state": model.state_to_json(event.state)},
                    )
                    break
                elif isinstance(event, Unfinished):
                    finished = False
                    break
                if isinstance(event, (Acted, Dealt)):
                    state = event.state
                    broken = model.violations(rules, state)
                    if broken:
                        summary.violations += 1
                        finished = False
                        _record(
                            summary.violation_examples,
                            {"game": g, "hand": hands, "clauses": broken},
                        )
                        break
        except IllegalAction as e:
            summary.violations += 1
            finished = False
            _record(
                summary.violation_examples,
                {
                    "game": g,
                    "hand": hands,
                    "clauses": ["legal-action-refused", e.clause],
                    "reason": e.reason,
                },
            )
        summary.games += 1
        if finished and state is not None and model.phase(state) == "over":
            winner = model.winner(state)
            if winner is not None:
                summary.wins[winner] += 1
            summary.final_scores.append(model.game_scores(state))
        else:
            summary.unfinished_games += 1
        if progress is not None:
            progress(g + 1, games)
    summary.seconds = time.perf_counter() - start
    return summary


def progress_bar(stream: Any = None) -> Callable[[int, int], None]:
    """A one-line progress bar on a terminal (stderr by default); silent when it is not a terminal."""
    stream = sys.stderr if stream is None else stream
    interactive = bool(getattr(stream, "isatty", lambda: False)())
    started = time.perf_counter()

    def show(done: int, total: int) -> None:
        if not interactive:
            return
        width = 30
        filled = width * done // max(total, 1)
        rate = done / max(time.perf_counter() - started, 1e-9)
        stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games  {rate:.1f}/s"
        )
        if done == total:
            stream.write("\n")
        stream.flush()

    return show
