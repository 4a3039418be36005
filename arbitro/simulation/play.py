"""`arbitro play`: one whole random game written as a transcript."""

from __future__ import annotations

import random
from typing import Any

from arbitro.model.errors import ArbitroError
from arbitro.model.game import GameModel, Seating
from arbitro.model.schema import Rules
from arbitro.oracle.transcript import ActionLine, HandLine, Header, ResultLine, Transcript
from arbitro.simulation.playout import Acted, DeadEnd, Dealt, HandOver, Unfinished, random_game


class GameDidNotFinish(ArbitroError, RuntimeError):
    """Random play reached a dead end or ran too long; the message says which."""


def play_transcript(
    model: GameModel,
    rules: Rules,
    seating: Seating,
    seed: int,
    options: dict[str, str | bool],
    dealer: int = 0,
) -> Transcript:
    """Play one random game from `seed` and record it; the same arguments give the same bytes."""
    rng = random.Random(f"{seed}:0")
    deals: list[tuple[str, ...]] = []
    body: list[ActionLine | HandLine | ResultLine] = []
    hand = 0
    step = 0
    state: Any = None
    for event in random_game(model, rules, seating, rng, dealer=dealer):
        if isinstance(event, Dealt):
            deals.append(tuple(model.card_name(c) for c in event.order))
        elif isinstance(event, Acted):
            step += 1
            body.append(ActionLine(0, step, hand, event.seat, model.action_to_json(event.action)))
        elif isinstance(event, HandOver):
            r = event.result
            body.append(HandLine(0, hand, r.scores, r.categories))
            hand += 1
        elif isinstance(event, DeadEnd):
            raise GameDidNotFinish(
                f"random play reached a state with no legal action in hand {hand}"
            )
        elif isinstance(event, Unfinished):
            raise GameDidNotFinish(f"the game had not ended after {hand} hands")
        state = event.state
    winner = model.winner(state) if state is not None else None
    body.append(ResultLine(0, model.game_scores(state), winner))
    header = Header(
        rulebook=rules.rulebook,
        options=dict(options),
        players=seating.players,
        sides=seating.sides,
        layout=seating.layout,
        dealer=dealer,
        deals=tuple(deals),
    )
    return Transcript(header, body)
