"""Dead ends, found by random play and replayed.

Hands in which the player to move has no legal action. The model ends such a hand with the
reason `dead-end` and the clauses that leave the player stuck; each distinct set of clauses is one
cause. For each cause the witness is the shortest such hand seen, as a one-hand transcript that
`arbitro check` replays (and that is replayed here before it is kept): random play finds the
hand, the replay is the evidence.

Games that never end are not looked for here: random play that runs out of patience proves
nothing about a game's end.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arbitro.model.spec import Rulebook


@dataclass(frozen=True)
class DeadEnd:
    """One cause of dead ends in one layout: the clauses, how often, and the shortest witness."""

    rulebook: str
    layout: str
    clauses: tuple[str, ...]
    hands: int  # hands that ended this way
    sampled: int  # hands played
    transcript: str  # a one-hand transcript `arbitro check` replays
    actions: int  # moves before the dead end
    replayed: str  # what `arbitro check` said of the transcript
    seed: int = 0
    game: int = 0


def _seatings(model: Any, rules: Any) -> list[Any]:
    return list(model.seatings(rules))


def dead_ends(book: Rulebook, hands: int = 40, seed: int = 1) -> list[DeadEnd]:
    """Every cause of a dead end seen in `hands` one-hand games per layout of the book."""
    from arbitro.games import model_for
    from arbitro.model.schema import rules_for
    from arbitro.oracle.check import check_lines
    from arbitro.simulation.simulate import DEAD_END, NO_LEGAL_ACTION, game_transcript, simulate

    model = model_for(book.game)
    rules = rules_for(book)
    out: list[DeadEnd] = []
    for seating in _seatings(model, rules):
        seen: list[Any] = []
        summary = simulate(
            model, rules, seating, hands, seed, max_hands=1, check="none", on_hand=seen.append
        )
        best: dict[tuple[str, ...], Any] = {}
        counts: dict[tuple[str, ...], int] = {}
        for h in seen:
            if h.ended not in (DEAD_END, NO_LEGAL_ACTION):
                continue
            cause = tuple(h.finding or (h.ended,))
            counts[cause] = counts.get(cause, 0) + 1
            if cause not in best or h.actions < best[cause].actions:
                best[cause] = h
        for cause, h in best.items():
            t = game_transcript(model, rules, seating, {}, "uniform", seed, h.game, max_hands=1)
            text = t.text()
            verdict = check_lines(text.splitlines())
            out.append(
                DeadEnd(
                    book.id,
                    seating.layout or f"{seating.players} players",
                    cause,
                    counts[cause],
                    summary.rounds,
                    text,
                    h.actions,
                    verdict.status,
                    seed,
                    h.game,
                )
            )
    return out


__all__ = ["DeadEnd", "dead_ends"]
