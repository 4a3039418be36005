"""Play whole games with uniformly random legal actions and check every state on the way."""

from __future__ import annotations

import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from model.errors import IllegalAction
from model.game import GameModel, HandResult, Seating

MAX_HANDS_PER_GAME = 2000


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
) -> Summary:
    """Play `games` random games; every game's randomness comes from (seed, game number)."""
    summary = Summary(rules.rulebook, seating, dict(options or {}), seed)
    start = time.perf_counter()
    deck = model.deck(rules, seating)
    for g in range(games):
        rng = random.Random(f"{seed}:{g}")
        state: Hashable = model.new_game(rules, seating, dealer=g % seating.players)
        hands = 0
        finished = False
        last: HandResult | None = None
        while hands <= MAX_HANDS_PER_GAME:
            phase = model.phase(state)
            if phase == "over":
                finished = True
                break
            if phase == "deal":
                order = list(deck)
                rng.shuffle(order)
                state = model.deal(rules, state, order)
            else:
                actions = model.legal_actions(rules, state)
                if not actions:
                    summary.dead_ends += 1
                    _record(
                        summary.dead_end_examples,
                        {"game": g, "hand": hands, "state": model.state_to_json(state)},
                    )
                    break
                action = actions[rng.randrange(len(actions))]
                try:
                    state = model.apply(rules, state, action)
                except IllegalAction as e:
                    summary.violations += 1
                    _record(
                        summary.violation_examples,
                        {
                            "game": g,
                            "hand": hands,
                            "clauses": ["legal-action-refused", e.clause],
                            "action": model.action_to_json(action),
                        },
                    )
                    break
                summary.actions += 1
            broken = model.violations(rules, state)
            if broken:
                summary.violations += 1
                _record(summary.violation_examples, {"game": g, "hand": hands, "clauses": broken})
                break
            result = model.last_hand(state)
            if result is not None and result is not last:
                last = result
                hands += 1
                summary.rounds += 1
                summary.hand_endings[result.reason] += 1
        summary.games += 1
        if finished:
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


def progress_bar(stream: Any = sys.stderr) -> Callable[[int, int], None]:
    """A one-line progress bar on a terminal; silent when the stream is not a terminal."""
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
