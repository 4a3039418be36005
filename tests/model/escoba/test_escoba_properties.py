"""Whole hands from random deck orders: conservation, an independent referee and recount, JSON."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arbitro.model.escoba import ESCOBA, cards_of
from arbitro.model.game import Seating
from arbitro.model.schema import EscobaRules
from tests.support.escoba_helpers import DECK, FOUR, TEAMS, THREE, TWO, play_out, rules, value
from tests.support.escoba_referee import Referee, recount

SEATINGS = [TWO, THREE, FOUR, TEAMS]
OPTION_SETS: list[dict[str, str | bool]] = [
    {},
    {"variant_cards_double": True, "variant_oros_all": True, "variant_sevens_all": True},
    {"setenta_missing_suit": "lowest", "rest_without_capturer": "dealer"},
    {"variant_cards_double": True, "variant_cards_double_rule": "together"},
]
RULES = [rules(o) for o in OPTION_SETS]


def _hand(
    r: EscobaRules, seating: Seating, order: list[int], rng: random.Random, dealer: int
) -> None:
    s = ESCOBA.deal(r, ESCOBA.new_game(r, seating, dealer=dealer), order)
    assert ESCOBA.violations(r, s) == []
    ref = Referee(r, s)
    while s.phase == "play":
        acts = ESCOBA.legal_actions(r, s)
        assert list(acts) == sorted(set(acts))
        a = acts[rng.randrange(len(acts))]
        ref.play(a)
        s = ESCOBA.apply(r, s, a)
        assert ESCOBA.violations(r, s) == []
        assert ESCOBA.state_from_json(r, json.loads(json.dumps(ESCOBA.state_to_json(s)))) == s
        assert ESCOBA.action_from_json(json.loads(json.dumps(ESCOBA.action_to_json(a)))) == a
    left = ref.finish()
    # the book (Estrategia): the cards total 220 and every capture takes 15 or 30, so the table
    # keeps 220 less a multiple of 15 at the end
    assert sum(value(c) for c in DECK) == 220
    assert left % 15 == 10
    # every card of the deck is in exactly one place
    assert [set(cards_of(p)) for p in s.piles] == ref.piles
    assert set(cards_of(s.table)) == ref.table
    assert sum(len(p) for p in ref.piles) + len(ref.table) == 40
    assert list(s.escobas) == ref.escobas
    assert s.result is not None
    expected = recount(r, ref.piles, ref.escobas)
    assert [dict(c) for c in s.result.categories] == expected
    assert s.result.scores == tuple(sum(p.values()) for p in expected)
    if seating.sides == 2:
        fixed = sum(p[k] for p in expected for k in ("cards", "oros", "velo", "setenta"))
        # four fixed points a hand; each optional rule may add one
        bonus = r.variant_cards_double + r.variant_oros_all + r.variant_sevens_all
        assert fixed <= 4 + bonus


@given(
    order=st.permutations(DECK),
    seed=st.integers(0, 2**32),
    seating=st.sampled_from(SEATINGS),
    which=st.integers(0, len(RULES) - 1),
    dealer=st.integers(0, 3),
)
def test_random_hands(
    order: list[int], seed: int, seating: Seating, which: int, dealer: int
) -> None:
    """escoba-es:suits, escoba-es:capture-forced, escoba-es:cards-points .. escoba-es:escoba-points — whole hands check out."""
    _hand(RULES[which], seating, list(order), random.Random(seed), dealer % seating.players)


@pytest.mark.parametrize("seating", SEATINGS)
def test_whole_games_end(seating: Seating) -> None:
    """escoba-es:target-score, escoba-es:target-tie — random games reach 21 and name the winner."""
    r = RULES[0]
    rng = random.Random(seating.players * 7 + seating.sides)
    for game in range(3):
        s = ESCOBA.new_game(r, seating, dealer=game % seating.players)
        hands = 0
        while ESCOBA.phase(s) != "over":
            if ESCOBA.phase(s) == "deal":
                order = list(DECK)
                rng.shuffle(order)
                before = s.scores
                s = play_out(r, s, order, rng.randrange)
                hands += 1
                # a new hand was played and scored (equal results may be one shared value)
                assert s.result is not None and s.hand_number == hands
                assert s.scores == tuple(
                    a + b for a, b in zip(before, s.result.scores, strict=True)
                )
                assert ESCOBA.violations(r, s) == []
            assert hands < 200
        top = max(s.scores)
        assert top >= 21
        assert s.scores.count(top) == 1
        assert ESCOBA.winner(s) == s.scores.index(top)
        assert ESCOBA.state_from_json(r, ESCOBA.state_to_json(s)) == s
