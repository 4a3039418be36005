"""Hypothesis stateful tests: every rulebook and seating played by Hypothesis, invariants after each step.

After every step: every card of the deck is in exactly one place (counted from the state's JSON, not
by the model), the model's own whole-state checks pass, the state survives a JSON round trip, the
game totals equal the sum of the hands' results, and the last hand's scores equal an independent
recount. Every listed legal action applies, and actions mutated into illegal ones are refused with a
clause of the rulebook.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Hashable
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from arbitro.games import model_for
from arbitro.model.errors import IllegalAction, MalformedInput
from arbitro.model.game import Seating
from arbitro.model.schema import rules_for
from arbitro.model.spec import load_rulebook, rulebook_ids

# The Escoba tests' independent referee, imported the way those tests import it.
from tests.support.escoba_referee import recount as escoba_recount
from tests.support.quick import first_of_each
from tests.support.sizes import sized

CARD = re.compile(r"^(?:(?:10|[2-9JQKA])[CDHS]|JK|[1-7SCR][ocbe])$")


def card_names(data: Any) -> Counter[str]:
    """Every card name anywhere in a JSON value: where the state keeps a card, it names it once."""
    found: Counter[str] = Counter()

    def walk(v: Any) -> None:
        if isinstance(v, str):
            if CARD.match(v):
                found[v] += 1
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)

    walk(data)
    return found


def _escoba_recount(rules: Any, state: dict[str, Any]) -> list[dict[str, int]]:
    from arbitro.model.escoba.cards import parse_card

    piles = [{parse_card(c) for c in pile} for pile in state["piles"]]
    return escoba_recount(rules, piles, list(state["escobas"]))


RECOUNT: dict[str, Callable[[Any, dict[str, Any]], list[dict[str, int]]]] = {
    "escoba": _escoba_recount
}


def _canon(x: Any) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"))


def _mutations(
    data: st.DataObject, action: dict[str, Any], names: list[str], seats: int
) -> dict[str, Any]:
    """The action with one field changed: another card, another seat, a card more or less in a list."""
    key = data.draw(st.sampled_from(sorted(action)))
    value = action[key]
    if isinstance(value, bool) or value is None:
        new: Any = not value if isinstance(value, bool) else 0
    elif isinstance(value, int):
        new = data.draw(st.integers(0, seats).filter(lambda x: x != value))
    elif isinstance(value, str):
        new = (
            data.draw(st.sampled_from(names).filter(lambda x: x != value))
            if CARD.match(value)
            else value + "?"
        )
    elif isinstance(value, list):
        if value and data.draw(st.booleans()):
            new = value[:-1]
        else:
            new = sorted([*value, data.draw(st.sampled_from(names))])
    else:
        new = {}
    return {**action, key: new}


class GameMachine(RuleBasedStateMachine):
    """One rulebook and seating; subclasses fix them."""

    rulebook = ""
    seating_index = 0

    def __init__(self) -> None:
        super().__init__()
        book = load_rulebook(self.rulebook)
        self.book = book
        self.rules: Any = rules_for(book)
        self.model = model_for(book.game)
        self.seating: Seating = list(self.model.seatings(self.rules))[self.seating_index]
        self.state: Hashable = self.model.new_game(self.rules, self.seating, dealer=0)
        self.deck = list(self.model.deck(self.rules, self.seating))
        self.names = sorted({self.model.card_name(c) for c in self.deck})
        self.deck_names = Counter(self.model.card_name(c) for c in self.deck)
        self.hand_sum = [0] * self.seating.sides
        self.last: Any = None

    def _phase(self) -> str:
        return str(self.model.phase(self.state))

    @precondition(lambda self: self._phase() == "deal")
    @rule(data=st.data())
    def deal(self, data: st.DataObject) -> None:
        order = data.draw(st.permutations(self.deck), label="deck order")
        self.state = self.model.deal(self.rules, self.state, order)
        self._after()

    @precondition(lambda self: self._phase() == "play")
    @rule(data=st.data())
    def act(self, data: st.DataObject) -> None:
        legal = self.model.legal_actions(self.rules, self.state)
        assert legal, "a state in play with no legal action"
        action = data.draw(st.sampled_from(legal), label="action")
        assert self.model.refusals(self.rules, self.state, action) == ()
        self.state = self.model.apply(self.rules, self.state, action)
        self._after()

    @precondition(lambda self: self._phase() == "play")
    @rule(data=st.data())
    def mutated_action_is_refused(self, data: st.DataObject) -> None:
        legal = self.model.legal_actions(self.rules, self.state)
        legal_json = {_canon(self.model.action_to_json(a)) for a in legal}
        base = self.model.action_to_json(data.draw(st.sampled_from(legal)))
        mutated = _mutations(data, base, self.names, self.seating.players)
        if _canon(mutated) in legal_json:
            return
        try:
            action = self.model.action_from_json(mutated)
            self.model.apply(self.rules, self.state, action)
        except IllegalAction as e:
            assert e.clause.startswith(self.book.id + ":"), e.clause
            assert self.book.has(e.clause.split(":", 1)[1].replace("-", "_")), e.clause
            # every refusing clause is listed, the one apply raises first
            refusals = self.model.refusals(self.rules, self.state, action)
            assert refusals and refusals[0].clause == e.clause, (refusals, e.clause)
        except MalformedInput:
            pass
        else:
            raise AssertionError(
                f"the mutated action {mutated} is not listed as legal, yet it applied"
            )

    def _after(self) -> None:
        result = self.model.last_hand(self.state)
        if result is not None and result is not self.last:
            self.last = result
            self.hand_sum = [a + b for a, b in zip(self.hand_sum, result.scores, strict=True)]
            recount = RECOUNT.get(self.book.game)
            if recount is not None:
                expected = recount(self.rules, self.model.state_to_json(self.state))
                assert [dict(c) for c in result.categories] == expected

    @invariant()
    def cards_are_conserved(self) -> None:
        if self._phase() == "deal" and self.last is None:
            return  # before the first deal the cards are not on the table yet
        assert card_names(self.model.state_to_json(self.state)) == self.deck_names

    @invariant()
    def whole_state_checks_pass(self) -> None:
        assert self.model.violations(self.rules, self.state) == []

    @invariant()
    def json_round_trip_is_lossless(self) -> None:
        data = self.model.state_to_json(self.state)
        back = self.model.state_from_json(self.rules, json.loads(json.dumps(data)))
        assert back == self.state
        assert _canon(self.model.state_to_json(back)) == _canon(data)

    @invariant()
    def totals_are_the_sum_of_the_hands(self) -> None:
        assert list(self.model.game_scores(self.state)) == self.hand_sum

    @invariant()
    def every_legal_action_applies(self) -> None:
        if self._phase() != "play":
            return
        for a in self.model.legal_actions(self.rules, self.state):
            self.model.apply(self.rules, self.state, a)


def _machines() -> list[tuple[str, int, str]]:
    out = []
    for rb in rulebook_ids():
        book = load_rulebook(rb)
        try:
            model = model_for(book.game)
        except (ImportError, AttributeError):
            continue
        for i, s in enumerate(model.seatings(rules_for(book))):
            out.append((rb, i, f"{rb}-{s.layout or s.players}"))
    return out


MACHINES = _machines()


# a quick run plays the first seating of each book; CI plays every seating
@pytest.mark.parametrize(
    ("rulebook", "index", "name"),
    first_of_each(MACHINES, lambda m: m[0], row=True),
    ids=[m[2] for m in MACHINES],
)
def test_stateful(rulebook: str, index: int, name: str) -> None:
    machine = type(name, (GameMachine,), {"rulebook": rulebook, "seating_index": index})
    # the profile chosen in conftest: a developer's run is short, CI explores longer
    settings_ = settings(
        max_examples=sized(3, 20), stateful_step_count=sized(40, 100), deadline=None
    )
    runner = machine.TestCase
    runner.settings = settings_
    runner().runTest()
