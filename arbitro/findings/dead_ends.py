"""Dead ends and games that never end, found by random play and explained by counting.

- **Dead ends**: hands in which the player to move has no legal action. The model ends such a hand
  with the reason `dead-end` and the clauses that leave the player stuck; each distinct set of
  clauses is one cause. For each cause the witness is the shortest such hand seen, as a one-hand
  transcript that `arbitro check` replays (and that is replayed here before it is kept).
- **Games that never end**: a layout in which no hand of random play ends by going out and the
  sides' hand scores are negative on average, so running totals drift away from the target. The
  cause is computed from the deck: the stock left after the deal, the draws it allows each player
  before it runs out, and the cards a side must meld to go out.

Both are measured by random play (`arbitro.simulation.simulate`, the uniform policy): a count, never a proof.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class Endless:
    """A layout whose games do not end under random play, with the counts that explain it."""

    rulebook: str
    layout: str
    players: int
    sides: int
    hands: int
    went_out: int
    mean_side_score: float
    facts: dict[str, int] = field(default_factory=dict)


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


def endless(book: Rulebook, hands: int = 12, seed: int = 1) -> list[Endless]:
    """The layouts of the book in which random play never goes out and scores drift below zero."""
    from arbitro.games import model_for
    from arbitro.model.schema import RummyRules, rules_for
    from arbitro.proofs.rummy import cards as C
    from arbitro.simulation.simulate import simulate

    if book.game == "escoba":
        return []
    model = model_for(book.game)
    rules = rules_for(book)
    assert isinstance(rules, RummyRules)
    out: list[Endless] = []
    for seating in _seatings(model, rules):
        summary = simulate(model, rules, seating, 1, seed, max_hands=hands, check="none")
        went = summary.hand_endings.get("went-out", 0)
        scores = [s for hs in summary.hand_scores for s in hs]
        mean = sum(scores) / len(scores) if scores else 0.0
        if went or mean >= 0 or not scores:
            continue
        lay = next(x for x in rules.layouts if x.name == seating.layout)
        deck = C.deck(rules, lay)
        stock = deck.size - lay.players * lay.hand_size - 1
        turns = stock // rules.draw_count
        out.append(
            Endless(
                book.id,
                lay.name,
                lay.players,
                lay.sides,
                summary.rounds,
                went,
                mean,
                {
                    "deck": deck.size,
                    "hand_size": lay.hand_size,
                    "dealt": lay.players * lay.hand_size,
                    "stock_after_deal": stock,
                    "draw_count": rules.draw_count,
                    "turns_before_stock_out": turns,
                    "turns_per_player": turns // lay.players,
                    "cards_a_side_melds_to_go_out": rules.go_out_min_completed
                    * rules.completed_size,
                },
            )
        )
    return out


def describe_endless(rows: Sequence[Endless]) -> str:
    """The counts behind a set of endless layouts, in one paragraph."""
    parts = []
    for e in rows:
        f = e.facts
        parts.append(
            f"{e.players} players: {f['deck']} cards less {f['dealt']} dealt leave a stock of"
            f" {f['stock_after_deal']}, {f['turns_before_stock_out']} turns of {f['draw_count']}"
            f" cards, {f['turns_per_player']} per player; {e.went_out} of {e.hands} random hands"
            f" went out, mean side score {e.mean_side_score:.0f}"
        )
    return "; ".join(parts)


__all__ = ["DeadEnd", "Endless", "dead_ends", "describe_endless", "endless"]
