"""Replay a transcript from another implementation and say where, if anywhere, it breaks the rules."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from arbitro.games import model_for
from arbitro.model.errors import ArbitroError, IllegalAction, MalformedInput
from arbitro.model.game import GameModel, Seating
from arbitro.model.schema import rules_for
from arbitro.model.spec import load_rulebook
from arbitro.transcript import ActionLine, HandLine, ResultLine, TranscriptError, read


@dataclass
class Verdict:
    """The outcome of checking a transcript: valid, an illegal action, or a score that differs."""

    status: str  # "valid", "illegal-action", "score-mismatch", "incomplete"
    actions: int = 0
    hands: int = 0
    step: int | None = None
    line: int | None = None
    seat: int | None = None
    clause: str | None = None
    reason: str | None = None
    penalty: int | None = None
    state: dict[str, Any] | None = None
    action: dict[str, Any] | None = None
    mismatches: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "valid"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "actions": self.actions, "hands": self.hands}
        for key in ("step", "line", "seat", "clause", "reason", "penalty", "action", "state"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.mismatches:
            out["mismatches"] = self.mismatches
        return out


def _seating(model: GameModel, rules: Any, players: int, sides: int, layout: str) -> Seating:
    for s in model.seatings(rules):
        if s.players == players and s.sides == sides and (not layout or s.layout == layout):
            return s
    known = ", ".join(
        f"{s.players} players / {s.sides} sides / {s.layout!r}" for s in model.seatings(rules)
    )
    raise TranscriptError(1, "players", f"a seating of {rules.rulebook}; known: {known}")


def check_lines(lines: Iterable[str]) -> Verdict:
    """Replay the transcript; TranscriptError for what is malformed, a Verdict for the rest."""
    header, body = read(lines)
    try:
        book = load_rulebook(header.rulebook)
        rules = rules_for(book, header.options)
    except ArbitroError as e:
        raise TranscriptError(1, "rulebook/options", str(e)) from None
    model = model_for(book.game)
    seating = _seating(model, rules, header.players, header.sides, header.layout)
    if header.dealer >= seating.players:
        raise TranscriptError(1, "dealer", f"a seat from 0 to {seating.players - 1}")
    deck = sorted(model.deck(rules, seating))
    orders: list[list[int]] = []
    for i, names in enumerate(header.deals):
        try:
            order = [model.parse_card(nm) for nm in names]
        except MalformedInput as e:
            raise TranscriptError(1, f"deals[{i}]", str(e)) from None
        if sorted(order) != deck:
            raise TranscriptError(
                1, f"deals[{i}]", f"a permutation of the {len(deck)}-card deck of {book.id}"
            )
        orders.append(order)

    state: Hashable = model.new_game(rules, seating, dealer=header.dealer)
    verdict = Verdict("valid")
    hand = 0  # index of the hand being played
    step = 0
    results: list[Any] = []
    claimed_result = False

    def next_deal(line: int) -> None:
        nonlocal state, hand
        if hand >= len(orders):
            raise TranscriptError(
                line, "deals", f"a deck order for hand {hand}; the header has {len(orders)}"
            )
        state = model.deal(rules, state, orders[hand])

    # bound once: this loop runs once per action of the transcript
    phase_of, to_move_of, last_hand = model.phase, model.to_move, model.last_hand
    apply, action_from_json = model.apply, model.action_from_json
    # actions are immutable values parsed by a pure function: once per distinct action text
    parsed: dict[str, Hashable] = {}
    for item in body:
        if claimed_result:
            raise TranscriptError(item.line, "type", "nothing after the result line")
        if type(item) is ActionLine:
            step += 1
            if item.step != step:
                raise TranscriptError(
                    item.line, "step", f"{step} (steps count from 1 without gaps), got {item.step}"
                )
            phase = phase_of(state)
            if phase == "deal":
                next_deal(item.line)
                phase = phase_of(state)
            if item.hand != hand:
                raise TranscriptError(
                    item.line, "hand", f"{hand}, the hand being played, got {item.hand}"
                )
            if phase == "over":
                raise TranscriptError(item.line, "type", "no action after the game is over")
            text = item.text
            action = parsed.get(text)
            if action is None:
                try:
                    action = action_from_json(item.action)
                except MalformedInput as e:
                    raise TranscriptError(item.line, "action", str(e)) from None
                if text:
                    parsed[text] = action
            to_move = to_move_of(state)
            try:
                if item.seat != to_move:
                    raise IllegalAction(
                        item.action,
                        clause=rules.cid("play_direction"),
                        reason=f"seat {item.seat} acted but it is seat {to_move}'s turn",
                        penalty=None,
                    )
                state = apply(rules, state, action)
            except IllegalAction as e:
                verdict.status = "illegal-action"
                verdict.step, verdict.line, verdict.seat = step, item.line, item.seat
                verdict.clause, verdict.reason, verdict.penalty = e.clause, e.reason, e.penalty
                verdict.action = dict(item.action)
                verdict.state = model.state_to_json(state)
                return verdict
            except MalformedInput as e:
                raise TranscriptError(item.line, "action", str(e)) from None
            verdict.actions += 1
            if phase_of(state) != "play":
                # every action is played in a hand: leaving play means this one ended it
                result = last_hand(state)
                if result is None:
                    raise AssertionError("a hand ended without a result")  # pragma: no cover
                results.append(result)
                hand += 1
                verdict.hands = hand
        elif isinstance(item, HandLine):
            if item.hand >= len(results):
                raise TranscriptError(
                    item.line, "hand", f"a hand that has ended; {len(results)} have"
                )
            actual = results[item.hand]
            for side, (claimed, real) in enumerate(zip(item.scores, actual.scores, strict=False)):
                if claimed != real:
                    verdict.mismatches.append(
                        {
                            "line": item.line,
                            "hand": item.hand,
                            "side": side,
                            "category": "total",
                            "claimed": claimed,
                            "actual": real,
                        }
                    )
            if len(item.scores) != len(actual.scores):
                raise TranscriptError(
                    item.line, "scores", f"{len(actual.scores)} numbers, one per side"
                )
            for side, cats in enumerate(item.categories):
                if side >= len(actual.categories):
                    raise TranscriptError(
                        item.line, "categories", f"{len(actual.categories)} objects, one per side"
                    )
                for cat, claimed in cats.items():
                    real = actual.categories[side].get(cat)
                    if real is None:
                        known = ", ".join(actual.categories[side])
                        raise TranscriptError(
                            item.line,
                            f"categories[{side}].{cat}",
                            f"a category of this game: {known}",
                        )
                    if claimed != real:
                        verdict.mismatches.append(
                            {
                                "line": item.line,
                                "hand": item.hand,
                                "side": side,
                                "category": cat,
                                "claimed": claimed,
                                "actual": real,
                            }
                        )
        elif isinstance(item, ResultLine):
            claimed_result = True
            totals = model.game_scores(state)
            if len(item.scores) != len(totals):
                raise TranscriptError(item.line, "scores", f"{len(totals)} numbers, one per side")
            for side, (claimed, real) in enumerate(zip(item.scores, totals, strict=True)):
                if claimed != real:
                    verdict.mismatches.append(
                        {
                            "line": item.line,
                            "side": side,
                            "category": "game-total",
                            "claimed": claimed,
                            "actual": real,
                        }
                    )
            winner = model.winner(state)
            if item.winner != winner:
                verdict.mismatches.append(
                    {
                        "line": item.line,
                        "category": "winner",
                        "claimed": item.winner,
                        "actual": winner,
                    }
                )
    if verdict.mismatches:
        verdict.status = "score-mismatch"
    elif not claimed_result:
        verdict.status = "incomplete"
        verdict.reason = "the transcript ends without a result line"
    return verdict
