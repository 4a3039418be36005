"""The fast playout (`arbitro.model.rummy.fast`) against the engine, action by action.

Every hand the fast playout plays is replayed through `RUMMY.apply` from the same dealt state,
and after every action the engine's state must equal the state the fast playout holds: hands,
stock, pile, melds, red threes, the per-turn bookkeeping and, at the end, the hand's result and
the game's scores. This runs for every layout of every book, for every selectable reading of
every clause one at a time, and for random combinations of readings.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rummy_helpers import BOOKS, C, R, dealt, make_state

from arbitro.model.errors import MalformedInput
from arbitro.model.rummy import RUMMY
from arbitro.model.rummy.actions import Discard, Draw, FinishOpening, LayMeld, TakePile
from arbitro.model.rummy.fast import play_hand
from arbitro.model.rummy.state import DRAW, State
from arbitro.model.schema import RummyRules
from arbitro.model.spec import load_rulebook
from arbitro.strategies import variants


def diff(got: State, want: State) -> str:
    """The fields where two states differ, for an assertion message."""
    fields = [f for f in State._fields if getattr(got, f) != getattr(want, f)]
    return ", ".join(f"{f}: engine {getattr(got, f)!r} / fast {getattr(want, f)!r}" for f in fields)


def check_hand(rules: RummyRules, start: State, seed: int) -> tuple[State, list[Any]]:
    """Play one fast hand and replay it through the engine, comparing every state."""
    trace: list[State] = []
    end, actions = play_hand(rules, start, random.Random(seed), trace=trace)
    assert len(trace) == len(actions) > 0
    s = start
    for i, (a, want) in enumerate(zip(actions, trace, strict=True)):
        s = RUMMY.apply(rules, s, a)  # IllegalAction here: the fast playout broke a clause
        assert s == want, f"after action {i} {a!r}: {diff(s, want)}"
    assert s == end
    assert end.phase in ("deal", "over") and end.result is not None
    assert end.result.hand == start.hand_no
    return end, actions


@pytest.mark.parametrize(
    ("book", "layout"),
    [(b, s.layout) for b in BOOKS for s in RUMMY.seatings(R(b))],
)
def test_every_layout_matches_the_engine(book: str, layout: str) -> None:
    rules = R(book)
    seating = next(s for s in RUMMY.seatings(rules) if s.layout == layout)
    for seed in range(4):
        check_hand(rules, dealt(rules, seating, seed), seed)


def _readings() -> list[tuple[str, str, str]]:
    out = []
    for book in BOOKS:
        for c in load_rulebook(book).clauses:
            if len(c.readings) > 1:
                out += [(book, c.key, label) for label in c.labels()[1:]]
    return out


@pytest.mark.parametrize(("book", "key", "label"), _readings())
def test_every_reading_matches_the_engine(book: str, key: str, label: str) -> None:
    rules = R(book, **{key: label})
    seatings = RUMMY.seatings(rules)
    for seed in range(3):
        seating = seatings[seed % len(seatings)]
        check_hand(rules, dealt(rules, seating, seed), seed)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), book=st.sampled_from(BOOKS), seed=st.integers(0, 2**32 - 1))
def test_combined_readings_match_the_engine(data: st.DataObject, book: str, seed: int) -> None:
    options = data.draw(variants(book))
    rules = R(book, **options)
    seating = data.draw(st.sampled_from(list(RUMMY.seatings(rules))))
    check_hand(rules, dealt(rules, seating, seed), seed)


def test_later_hands_of_a_game_match_the_engine() -> None:
    """Scores move the opening minimum and the dealer: the fast playout plays on from them."""
    rules = R("samba-es")
    seating = RUMMY.seatings(rules)[0]
    rng = random.Random(7)
    deck = list(RUMMY.deck(rules, seating))
    s = RUMMY.new_game(rules, seating)
    for hand in range(6):
        order = deck[:]
        rng.shuffle(order)
        start = RUMMY.deal(rules, s, order)
        s, _ = check_hand(rules, start, hand)
        if s.phase == "over":
            break
    assert s.hand_no >= 2 and any(s.scores)


def test_the_policy_exercises_the_rules() -> None:
    """Across many hands the fast playout takes the pile, opens, discards and goes out by itself,
    and hands the end of some hands to the engine: the comparison covers all of it."""
    seen: set[str] = set()
    reasons: set[str] = set()
    for book in BOOKS:
        rules = R(book)
        seating = RUMMY.seatings(rules)[0]
        for seed in range(12):
            end, actions = play_hand(rules, dealt(rules, seating, seed), random.Random(seed), True)
            seen |= {type(a).__name__ for a in actions}
            assert end.result is not None
            reasons.add(end.result.reason)
    assert {c.__name__ for c in (Draw, TakePile, LayMeld, FinishOpening, Discard)} <= seen
    assert {"went-out", "stock-out"} <= reasons


def test_without_record_no_actions_are_kept() -> None:
    rules = R("canasta-es")
    seating = RUMMY.seatings(rules)[0]
    start = dealt(rules, seating, 3)
    end, actions = play_hand(rules, start, random.Random(3))
    assert actions == [] and end.result is not None
    again, recorded = play_hand(rules, start, random.Random(3), record=True)
    assert again == end and recorded


def test_a_state_not_in_play_is_refused() -> None:
    rules = R("samba-en")
    s = RUMMY.new_game(rules, RUMMY.seatings(rules)[0])
    with pytest.raises(MalformedInput, match="no hand is being played"):
        play_hand(rules, s, random.Random(0))


def test_a_state_mid_turn_is_played_by_the_engine() -> None:
    """A position after the draw is not where the fast policy starts: the engine plays it out."""
    rules = R("samba-es")
    seating = RUMMY.seatings(rules)[0]
    start = dealt(rules, seating, 5)
    mid = RUMMY.apply(rules, start, RUMMY.legal_actions(rules, start)[0])
    end, actions = play_hand(rules, mid, random.Random(5), record=True)
    s = mid
    for a in actions:
        s = RUMMY.apply(rules, s, a)
    assert s == end


def test_a_frozen_pile_taken_with_a_pair_joins_the_sides_set() -> None:
    """canasta-es keeps one set per rank (*:several-sets-same-rank): a natural pair taking a
    frozen pile (*:frozen-by) joins the side's set of that rank with the top card."""
    rules = R("canasta-es")
    start = make_state(
        rules,
        hands={0: "KH KS 4C 5D 7H 8S 9C"},
        melds={0: ("KC KH KS",)},
        pile="2C 9D KD",
        step=DRAW,
    )
    _, actions = check_hand(rules, start, 0)
    assert actions[0] == TakePile(0, "set", -1, C("KH KS"))


def test_the_pile_taken_onto_an_escalera() -> None:
    """samba-en lets the top card alone extend an escalera of the side (*:pile-to-own-sequence)."""
    rules = R("samba-en")
    start = make_state(
        rules,
        hands={0: "4C 6D 8H 10S QC"},
        melds={0: ("5H 6H 7H",)},
        pile="9C 8H",
        step=DRAW,
    )
    _, actions = check_hand(rules, start, 0)
    assert actions[0] == TakePile(0, "add", 0, ())


def test_a_red_three_last_in_the_stock_is_played_by_the_engine() -> None:
    """samba-es stops play when the stock's last card is a red three (*:last-red-three-ends-hand):
    the fast playout hands that draw to the engine."""
    rules = R("samba-es")
    start = make_state(
        rules,
        hands={0: "4C 6D 8H 10S QC", 1: "4D 6S 8C 10H QD"},
        stock="9C 6H",
        fill=False,
        step=DRAW,
    )
    end, actions = check_hand(rules, start, 0)
    assert actions[0] == Draw(0, 2)
    assert end.result is not None and end.result.reason == "stock-out"
