"""The points of a hand: cards, oros, siete de velo, setenta, escobas; ties; the optional rules."""

from __future__ import annotations

import pytest

from arbitro.model.escoba import score_hand
from arbitro.model.escoba.cards import tables
from arbitro.model.escoba.scoring import cards_double
from arbitro.model.escoba.setenta import setenta_leaders
from arbitro.model.schema import EscobaRules
from tests.support.escoba_helpers import DECK, cards, mask, rules

R = rules()
EVEN = mask(c for c in DECK if c % 2 == 0)
ODD = mask(c for c in DECK if c % 2 == 1)


def points(
    r: EscobaRules, piles: tuple[int, ...], escobas: tuple[int, ...] | None = None
) -> list[dict[str, int]]:
    result = score_hand(r, piles, escobas or (0,) * len(piles))
    return [dict(side) for side in result.categories]


def split(first: str | list[int], *others: str | list[int]) -> tuple[int, ...]:
    """Piles: the named ones for all sides but the last, which gets every other card."""
    named = [mask(x) for x in (first, *others)]
    rest = (1 << 40) - 1
    for m in named:
        rest &= ~m
    return (*named, rest)


def test_cards_most_wins() -> None:
    """escoba-es:cards-points — the side with more cards gets one point."""
    piles = split(list(range(21)))  # 21 cards against 19
    assert [p["cards"] for p in points(R, piles)] == [1, 0]


def test_cards_and_oros_even_splits_score_nothing() -> None:
    """escoba-es:cards-points, escoba-es:oros-points — 20-20 cards and 5-5 oros go to nobody."""
    piles = (EVEN, ODD)
    assert [(EVEN & tables(R).oros).bit_count(), (ODD & tables(R).oros).bit_count()] == [5, 5]
    pts = points(R, piles)
    assert [p["cards"] for p in pts] == [0, 0]
    assert [p["oros"] for p in pts] == [0, 0]


def test_oros_most_wins() -> None:
    """escoba-es:oros-points — six oros against four."""
    piles = split("1o 2o 3o 4o 5o 6o")
    assert [p["oros"] for p in points(R, piles)] == [1, 0]


def test_velo() -> None:
    """escoba-es:velo-points — the seven of oros is a point by itself."""
    piles = split("7o")
    assert [p["velo"] for p in points(R, piles)] == [1, 0]
    piles = split("7c 7b 7e")
    assert [p["velo"] for p in points(R, piles)] == [0, 1]


def test_escobas_one_point_each() -> None:
    """escoba-es:escoba-points — a point per escoba."""
    assert [p["escobas"] for p in points(R, (EVEN, ODD), (2, 1))] == [2, 1]


def test_four_fixed_points_without_ties() -> None:
    """escoba-es:cards-points .. escoba-es:setenta-points — four points when nothing is tied."""
    # even ranks 1, 3, 5, 7, caballo for side 0, but side 0 also takes every oro and two more cards
    piles = split([*range(10), *(c for c in range(10, 40) if c % 2 == 0), 11, 13])
    pts = points(R, piles)
    assert sum(p["cards"] + p["oros"] + p["velo"] + p["setenta"] for p in pts) == 4


# The book's setenta examples (Puntuación). Strengths: 7 > 6 > 1 > 5 > 4 > 3 > 2 > figures.
@pytest.mark.parametrize(
    ("a", "b", "leaders"),
    [
        ("7o 7c 6b 5e", "7b 7e 1o 1c", [0]),  # 7-7-6-5 beats 7-7-1-1: the six beats the one
        ("7o 7c 6b 1e", "7b 7e 6o 5c", [0]),  # 7-7-6-1 beats 7-7-6-5: the one beats the five
        ("7o 7c 6b 6e", "7b 7e 6o 6c", [0, 1]),  # 7-7-6-6 against 7-7-6-6: nobody
        ("7o 7c 7b 2e", "7e 6o 6c 6b", [0]),  # three sevens beat one, whatever follows
        ("Ro Sc Cb 2e", "So Rc Sb Ce", [0]),  # a two beats a figure
        ("Ro Sc Cb Ce", "So Rc Sb Re", [0, 1]),  # all figures are alike
    ],
)
def test_setenta_examples(a: str, b: str, leaders: list[int]) -> None:
    """escoba-es:setenta-order — one card per suit, compared best card first."""
    assert setenta_leaders(R, tables(R), (mask(a), mask(b))) == leaders
    swapped = sorted(1 - x for x in leaders)
    assert setenta_leaders(R, tables(R), (mask(b), mask(a))) == swapped


def test_setenta_uses_the_best_card_of_each_suit() -> None:
    """escoba-es:setenta-order — extra cards of a suit do not count, only its best."""
    a = mask("7o 1o 2o 3o 4o 5o 6c 6b 6e")  # 7-6-6-6
    b = mask("6o 7c 1b 1e")  # 7-6-1-1
    assert setenta_leaders(R, tables(R), (a, b)) == [0]


def test_setenta_point_in_the_hand_score() -> None:
    """escoba-es:setenta-points — side 0 holds every 7, 5, 3, 1 and caballo: 7-7-7-7 against 6-6-6-6."""
    pts = points(R, (EVEN, ODD))
    assert [p["setenta"] for p in pts] == [1, 0]


MISSING = (mask("7o 7c 7b"), mask("1o 1c 1b 1e"))  # side 0 has no espadas
BOTH_MISSING = (mask("7o 7c 7b"), mask("1c 1b 1e"))  # side 0 lacks espadas, side 1 oros


def test_missing_suit_default_no_setenta() -> None:
    """escoba-es:setenta-missing-suit — by default a side lacking a suit has no setenta."""
    assert setenta_leaders(R, tables(R), MISSING) == [1]
    assert setenta_leaders(R, tables(R), BOTH_MISSING) == []


def test_missing_suit_lowest() -> None:
    """escoba-es:setenta-missing-suit — reading "lowest": the gap counts below a figure."""
    low = rules({"setenta_missing_suit": "lowest"})
    assert setenta_leaders(low, tables(low), MISSING) == [0]  # 7-7-7-gap beats 1-1-1-1
    assert setenta_leaders(low, tables(low), BOTH_MISSING) == [0]  # 7-7-7-gap beats 1-1-1-gap
    figures = (mask("Ro Rc Rb Re"), mask("1o 2c 3b"))
    assert setenta_leaders(low, tables(low), figures) == [1]  # 1-3-2-gap beats four figures
    gap = (mask("So Sc Sb"), mask("Co Cc Cb Ce"))
    assert setenta_leaders(low, tables(low), gap) == [1]  # a gap is below a figure


def test_three_players_tie_at_the_top_gives_nobody() -> None:
    """escoba-es:category-tie — with three players 15-15-10 cards and 4-4-2 oros score nothing."""
    a = [0, 1, 2, 3, *range(10, 21)]  # 4 oros, 15 cards
    b = [4, 5, 6, 7, *range(21, 32)]  # 4 oros, 15 cards
    piles = split(a, b)
    assert [p.bit_count() for p in piles] == [15, 15, 10]
    assert [(p & tables(R).oros).bit_count() for p in piles] == [4, 4, 2]
    pts = points(R, piles)
    assert [p["cards"] for p in pts] == [0, 0, 0]
    assert [p["oros"] for p in pts] == [0, 0, 0]


def test_three_players_sole_leader_wins() -> None:
    """escoba-es:cards-points — with three players the most cards (14-13-13) wins the point."""
    piles = split(list(range(14)), list(range(14, 27)))
    assert [p["cards"] for p in points(R, piles)] == [1, 0, 0]


# ---------------------------------------------------------------- optional rules

CARDS_31 = split(list(range(31)))  # 31 against 9


@pytest.mark.parametrize(("on", "expected"), [(False, 1), (True, 2)])
def test_variant_cards_double(on: bool, expected: int) -> None:
    """escoba-es:variant-cards-double — over 30 cards against under 10: 2 points instead of 1."""
    r = rules({"variant_cards_double": on})
    assert [p["cards"] for p in points(r, CARDS_31)] == [expected, 0]
    thirty = split(list(range(30)))  # exactly 30: not more than 30
    assert [p["cards"] for p in points(r, thirty)] == [1, 0]


@pytest.mark.parametrize("reading", ["default", "together"])
def test_variant_cards_double_three_players(reading: str) -> None:
    """escoba-es:variant-cards-double-rule — 31-5-4: both readings double the point."""
    r = rules({"variant_cards_double": True, "variant_cards_double_rule": reading})
    piles = split(list(range(31)), list(range(31, 36)))
    assert [p["cards"] for p in points(r, piles)] == [2, 0, 0]


def test_variant_cards_double_readings_agree_on_forty_cards() -> None:
    """escoba-es:variant-cards-double-rule — over 30 of 40 leaves at most 9 to the others together."""
    each = rules({"variant_cards_double": True})
    together = rules({"variant_cards_double": True, "variant_cards_double_rule": "together"})
    for a in range(41):
        for b in range(41 - a):
            for c in range(41 - a - b):
                counts = [a, b, c]
                for side in range(3):
                    assert cards_double(each, counts, side) == cards_double(together, counts, side)
    # they differ only on counts that a 40-card pack cannot produce
    assert cards_double(each, [31, 6, 6], 0) and not cards_double(together, [31, 6, 6], 0)


@pytest.mark.parametrize(("on", "expected"), [(False, 1), (True, 2)])
def test_variant_oros_all(on: bool, expected: int) -> None:
    """escoba-es:variant-oros-all — all ten oros: 2 points for oros instead of 1."""
    r = rules({"variant_oros_all": on})
    assert [p["oros"] for p in points(r, split(list(range(10))))] == [expected, 0]
    nine = split(list(range(9)))
    assert [p["oros"] for p in points(r, nine)] == [1, 0]


@pytest.mark.parametrize(("on", "expected"), [(False, 2), (True, 3)])
def test_variant_sevens_all(on: bool, expected: int) -> None:
    """escoba-es:variant-sevens-all — all four sevens: 3 points for setenta and velo instead of 2."""
    r = rules({"variant_sevens_all": on})
    pts = points(r, split("7o 7c 7b 7e"))
    assert pts[0]["setenta"] + pts[0]["velo"] == expected
    assert pts[1]["setenta"] + pts[1]["velo"] == 0
    three = points(r, split("7o 7c 7b 6e"))  # 7-7-7-6 against 7-6-6-6, three sevens only
    assert three[0]["setenta"] + three[0]["velo"] == 2


def test_cards_helper() -> None:
    """escoba-es:suits — the test's own card names."""
    assert cards("7o") == (6,)
