"""The Escoba model as one object satisfying `arbitro.model.game.GameModel`."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from arbitro.model.errors import IllegalAction, MalformedInput
from arbitro.model.escoba import capture, cards, checks, clauses, codec, dealing, seats, turn
from arbitro.model.escoba import state as state_module
from arbitro.model.escoba.cards import RANKS, tables
from arbitro.model.escoba.state import EscobaState, Play
from arbitro.model.game import GameModel, HandResult, Phase, Seating
from arbitro.model.schema import EscobaRules


class EscobaModel:
    """Escoba behind the shared game protocol; every method is a pure function of its arguments."""

    game = "escoba"
    view_private = codec.VIEW_PRIVATE

    def seatings(self, rules: EscobaRules) -> Sequence[Seating]:
        return seats.seatings(rules)

    def new_game(self, rules: EscobaRules, seating: Seating, dealer: int = 0) -> EscobaState:
        return dealing.new_game(rules, seating, dealer)

    def deck(self, rules: EscobaRules, seating: Seating) -> tuple[int, ...]:
        return tables(rules).deck

    def phase(self, state: EscobaState) -> Phase:
        return state.phase

    def deal(self, rules: EscobaRules, state: EscobaState, order: Sequence[int]) -> EscobaState:
        return dealing.deal(rules, state, order)

    def to_move(self, state: EscobaState) -> int:
        """The seat to play; in phase `deal` the dealer, who acts by dealing; -1 once over."""
        if state.phase == "deal":
            return state.dealer
        return state.to_move

    # the engine's two hot calls, bound straight to the functions (no method layer in between)
    legal_actions = staticmethod(capture.legal_actions)
    apply = staticmethod(turn.apply)

    def refusals(
        self, rules: EscobaRules, state: EscobaState, action: Any
    ) -> tuple[IllegalAction, ...]:
        """Every clause refusing the play, in the order `apply` rules on them; empty when legal."""
        play = capture.coerce_play(action, state.players, tables(rules).full)
        return capture.refusals(rules, state, play)

    def refusal_clauses(self, rules: EscobaRules, state: EscobaState) -> frozenset[str]:
        """Every clause `refusals` can name for a play in a state of this one's phase."""
        return capture.refusal_clauses(rules, state.phase)

    def clauses_used(self, rules: EscobaRules, state: EscobaState, action: Any) -> frozenset[str]:
        """The clauses whose case arose in this legal play (or deal, given a deck order)."""
        return clauses.clauses_used(rules, state, action)

    # what decides `clauses_used` of a legal play, given the state it leads to: equal keys, equal
    # clause sets, so an exploration asks for the clauses of each key once
    clauses_key = staticmethod(clauses.clauses_key)

    def random_step(
        self, rules: EscobaRules, state: EscobaState, rng: random.Random
    ) -> tuple[Play, EscobaState] | None:
        """A uniformly random legal play and the state after it (None: nothing to play)."""
        actions = capture.legal_actions(rules, state)
        if not actions:
            return None
        action = actions[rng.randrange(len(actions))]
        return action, turn.apply(rules, state, action)

    violations = staticmethod(checks.violations)

    # plays made in the hand, up to a constant (see state.progress): asked of every state the
    # explorer meets, so bound straight to the function
    progress = staticmethod(state_module.progress)

    def last_hand(self, state: EscobaState) -> HandResult | None:
        return state.result

    def game_scores(self, state: EscobaState) -> tuple[int, ...]:
        return state.scores

    def winner(self, state: EscobaState) -> int | None:
        """The winning side once the game is over (the sole highest total by then)."""
        if state.phase != "over":
            return None
        best = max(state.scores)
        return state.scores.index(best)

    def card_name(self, card: int) -> str:
        """A card's name: rank (1-7, S sota, C caballo, R rey) then suit (o, c, b, e), e.g. ``7o``."""
        if type(card) is not int or not 0 <= card < 4 * RANKS:
            raise MalformedInput(
                f"{card!r} is not a card of the Spanish pack (0 to {4 * RANKS - 1})"
            )
        return cards.card_name(card)

    def parse_card(self, name: str) -> int:
        """The card called ``name`` (see `card_name`); MalformedInput names what is wrong."""
        if not isinstance(name, str):
            raise MalformedInput(f"a card name is a string such as '7o', got {name!r}")
        return cards.parse_card(name)

    def state_to_json(self, state: EscobaState) -> dict[str, Any]:
        return codec.state_to_json(state)

    def state_from_json(self, rules: EscobaRules, data: Mapping[str, Any]) -> EscobaState:
        return codec.state_from_json(rules, data)

    def action_to_json(self, action: Play) -> dict[str, Any]:
        return codec.action_to_json(action)

    def view(self, rules: EscobaRules, state: EscobaState, seat: int) -> dict[str, Any]:
        """What one seat sees (see `codec.view_to_json`); ``rules`` is not needed for Escoba."""
        return codec.view_to_json(state, seat)

    def action_from_json(self, data: Mapping[str, Any]) -> Play:
        return codec.action_from_json(data)


ESCOBA = EscobaModel()


def _satisfies_protocol(model: EscobaModel) -> GameModel:
    return model  # mypy --strict checks here that EscobaModel implements GameModel
