"""Samba and Canasta behind the shared game protocol (`arbitro.model.game.GameModel`)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from arbitro.model.errors import IllegalAction
from arbitro.model.game import HandResult, Phase, Seating
from arbitro.model.rummy import checks, codec, dealing, engine, layouts, trace
from arbitro.model.rummy.actions import Action, action_from_json, action_to_json
from arbitro.model.rummy.cards import card_name, parse_card
from arbitro.model.rummy.scoring import hand_result, winner
from arbitro.model.rummy.state import State
from arbitro.model.schema import RummyRules


class RummyModel:
    """Every method is a pure function of its arguments."""

    game = "rummy"
    view_private = codec.VIEW_PRIVATE

    def seatings(self, rules: RummyRules) -> Sequence[Seating]:
        return layouts.seatings(rules)

    def new_game(self, rules: RummyRules, seating: Seating, dealer: int = 0) -> State:
        return layouts.new_game(rules, seating, dealer)

    def deck(self, rules: RummyRules, seating: Seating) -> tuple[int, ...]:
        return layouts.deck(rules, seating)

    def phase(self, state: State) -> Phase:
        p = state.phase
        return "play" if p == "play" else "over" if p == "over" else "deal"

    def deal(self, rules: RummyRules, state: State, order: Sequence[int]) -> State:
        return dealing.deal(rules, state, order)

    def to_move(self, state: State) -> int:
        """The seat to act; in phase `deal` the dealer; -1 once over."""
        if state.phase == "deal":
            return state.dealer
        if state.phase == "over":
            return -1
        return state.to_move()

    # the engine's own functions, not wrappers: a driver calls these once per move
    legal_actions = staticmethod(engine.legal_actions)
    apply = staticmethod(engine.apply)

    def refusals(self, rules: RummyRules, state: State, action: Any) -> tuple[IllegalAction, ...]:
        """Every clause that refuses the action, the most specific first; empty when it is legal.
        `apply` raises the first of them."""
        return engine.refusals(rules, state, action)

    def clauses_used(self, rules: RummyRules, state: State, action: Any) -> frozenset[str]:
        """The ids of the clauses whose values decided what this action does or whether it was
        allowed (`trace.clauses_used`)."""
        return trace.clauses_used(rules, state, action)

    def random_step(
        self, rules: RummyRules, state: State, rng: random.Random
    ) -> tuple[Action, State] | None:
        """A uniformly random legal action and the state after it (None: no legal action), drawn by
        trying candidates in random order instead of judging them all."""
        return engine.random_step(rules, state, rng)

    def violations(self, rules: RummyRules, state: State) -> list[str]:
        return checks.violations(rules, state)

    def last_hand(self, state: State) -> HandResult | None:
        return None if state.result is None else hand_result(state.result)

    def game_scores(self, state: State) -> tuple[int, ...]:
        return state.scores

    def winner(self, state: State) -> int | None:
        """The side with the sole highest total once the game is over."""
        if state.phase != "over":
            return None
        return winner(state.scores)

    def state_to_json(self, state: State) -> dict[str, Any]:
        return codec.state_to_json(state)

    def state_from_json(self, rules: RummyRules, data: Mapping[str, Any]) -> State:
        return codec.state_from_json(data)

    def action_to_json(self, action: Action) -> dict[str, Any]:
        return action_to_json(action)

    def action_from_json(self, data: Mapping[str, Any]) -> Action:
        return action_from_json(data)

    def card_name(self, card: int) -> str:
        return card_name(card)

    def view(self, rules: RummyRules, state: State, seat: int) -> dict[str, Any]:
        """What one seat sees (see `codec.view_to_json`)."""
        return codec.view_to_json(rules, state, seat)

    def parse_card(self, name: str) -> int:
        return parse_card(name)


RUMMY = RummyModel()
