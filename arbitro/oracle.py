"""The oracle: what other implementations ask arbitro, as a Python API (`arbitro.Oracle`).

Every operation takes and returns JSON-ready values (states, actions and card names as in
docs/protocol.md), so the server is a thin loop around this class.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arbitro.games import choose_seating, model_for
from arbitro.model.errors import IllegalAction, MalformedInput
from arbitro.model.schema import Options, rules_for
from arbitro.model.spec import load_rulebook


class Oracle:
    """A rulebook with its options and seating, answering questions about states and actions."""

    def __init__(
        self,
        rulebook: str,
        options: Options | None = None,
        players: int | None = None,
        teams: bool = False,
        layout: str | None = None,
    ) -> None:
        self.book = load_rulebook(rulebook)
        self.options = dict(options or {})
        self.rules: Any = rules_for(self.book, self.options)
        self.model = model_for(self.book.game)
        self.seating = choose_seating(self.model, self.rules, players, teams, layout)

    def describe(self) -> dict[str, Any]:
        """The rulebook, options and seating this oracle answers for."""
        return {
            "rulebook": self.book.id,
            "game": self.book.game,
            "options": self.options,
            "players": self.seating.players,
            "sides": self.seating.sides,
            "layout": self.seating.layout,
            "deck": [self.model.card_name(c) for c in self.model.deck(self.rules, self.seating)],
        }

    def _state(self, state: Mapping[str, Any]) -> Any:
        if not isinstance(state, Mapping):
            raise MalformedInput("state: expected a state object (see docs/protocol.md)")
        return self.model.state_from_json(self.rules, state)

    def _action(self, action: Mapping[str, Any]) -> Any:
        if not isinstance(action, Mapping):
            raise MalformedInput("action: expected an action object (see docs/protocol.md)")
        return self.model.action_from_json(action)

    def new_game(self, dealer: int = 0) -> dict[str, Any]:
        """A game before its first deal."""
        if (
            isinstance(dealer, bool)
            or not isinstance(dealer, int)
            or not 0 <= dealer < self.seating.players
        ):
            raise MalformedInput(
                f"dealer: expected a seat from 0 to {self.seating.players - 1}, got {dealer!r}"
            )
        return self.model.state_to_json(self.model.new_game(self.rules, self.seating, dealer))

    def deal(self, state: Mapping[str, Any], order: Sequence[str]) -> dict[str, Any]:
        """Start the next hand of `state` from a deck order of card names (top of the stock first)."""
        s = self._state(state)
        if not isinstance(order, list) or not all(isinstance(c, str) for c in order):
            raise MalformedInput("order: expected an array of card names")
        cards = [self.model.parse_card(c) for c in order]
        deck = sorted(self.model.deck(self.rules, self.seating))
        if sorted(cards) != deck:
            raise MalformedInput(
                f"order: expected a permutation of the {len(deck)}-card deck of {self.book.id}"
            )
        return self.model.state_to_json(self.model.deal(self.rules, s, cards))

    def legal_actions(self, state: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Every legal action in canonical order."""
        s = self._state(state)
        return [self.model.action_to_json(a) for a in self.model.legal_actions(self.rules, s)]

    def apply(self, state: Mapping[str, Any], action: Mapping[str, Any]) -> dict[str, Any]:
        """The next state; IllegalAction (with its clause) when the rules forbid the action."""
        s = self._state(state)
        return self.model.state_to_json(self.model.apply(self.rules, s, self._action(action)))

    def score(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """The last finished hand's scores by category, the running totals and the winner."""
        s = self._state(state)
        result = self.model.last_hand(s)
        return {
            "phase": self.model.phase(s),
            "hand": None
            if result is None
            else {
                "reason": result.reason,
                "scores": list(result.scores),
                "categories": [dict(c) for c in result.categories],
            },
            "totals": list(self.model.game_scores(s)),
            "winner": self.model.winner(s),
        }

    def check_state(self, state: Mapping[str, Any]) -> list[str]:
        """The clause ids the state breaks (card conservation, wild limits, meld sizes…)."""
        return self.model.violations(self.rules, self._state(state))

    def explain(self, state: Mapping[str, Any], action: Mapping[str, Any]) -> dict[str, Any]:
        """Whether an action is legal, and if not the clause it breaks and the book's price for it."""
        s = self._state(state)
        a = self._action(action)
        try:
            self.model.apply(self.rules, s, a)
        except IllegalAction as e:
            return {"legal": False, "clause": e.clause, "reason": e.reason, "penalty": e.penalty}
        return {"legal": True}
