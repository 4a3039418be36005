"""Seatings, the deal from an explicit order, red threes at the deal, the upcard, opening bands."""

from __future__ import annotations

import dataclasses

import pytest

from arbitro.model.errors import MalformedInput
from arbitro.model.game import Seating
from arbitro.model.rummy import RUMMY, RuleGap, opening_minimum, parse_card
from arbitro.model.rummy.actions import Discard, Draw
from tests.support.rummy_helpers import C, R, deal_order, order_with, seating


def test_seatings_follow_layouts() -> None:
    """*:layouts: one seating per layout; seat s is on side s % sides."""
    assert [(s.players, s.sides) for s in RUMMY.seatings(R("samba-es"))] == [(4, 2)]
    assert [(s.players, s.sides) for s in RUMMY.seatings(R("samba-en"))] == [(4, 2)]
    canasta = {s.layout: (s.players, s.sides) for s in RUMMY.seatings(R("canasta-es"))}
    # canasta-es:layouts: 2 and 3 alone, two pairs, two teams of three, three pairs
    assert canasta == {
        "two-players": (2, 2),
        "three-players": (3, 3),
        "two-pairs": (4, 2),
        "two-teams-of-three": (6, 2),
        "three-pairs": (6, 3),
    }
    assert len(RUMMY.seatings(R("samba-fr"))) == 9  # samba-fr:layouts, two to ten players


@pytest.mark.parametrize(
    ("book", "layout", "size"),
    [
        ("samba-es", None, 15),  # samba-es:layouts: fifteen cards each
        ("samba-en", None, 15),
        ("samba-fr", "6-pairs", 13),  # samba-fr:layouts: thirteen for six players
        ("canasta-es", "two-pairs", 11),  # canasta-es:layouts: eleven for two pairs
        ("canasta-es", "three-players", 13),
        ("canasta-es", "two-players", 15),
    ],
)
def test_hand_sizes_and_first_player(book: str, layout: str | None, size: int) -> None:
    """*:layouts hand sizes; the player after the dealer receives the first card and plays first."""
    rules = R(book)
    st = seating(rules, layout)
    order = list(RUMMY.deck(rules, st))
    # avoid red threes and covered upcards in this check: put naturals on top
    nat = [c for c in order if 8 <= c < 52]
    rest = [c for c in order if not 8 <= c < 52]
    order = nat + rest
    s = RUMMY.deal(rules, RUMMY.new_game(rules, st, dealer=1), order)
    assert all(len(h) == size for h in s.hands)
    assert s.seat == 2 % st.players and RUMMY.to_move(s) == s.seat
    assert order[0] in s.hands[2 % st.players]
    assert order[1] in s.hands[3 % st.players]
    assert s.pile == (order[st.players * size],)
    assert len(s.stock) == len(order) - st.players * size - 1
    assert RUMMY.violations(rules, s) == []


def test_deal_refuses_a_wrong_order() -> None:
    rules = R("samba-es")
    st = seating(rules)
    g = RUMMY.new_game(rules, st)
    with pytest.raises(MalformedInput):
        RUMMY.deal(rules, g, list(RUMMY.deck(rules, st))[:-1])
    with pytest.raises(MalformedInput):
        RUMMY.deal(rules, g, [0] * 162)


def _four(book: str, hands: dict[int, str], after: list[str]) -> tuple[object, object]:
    rules = R(book)
    st = seating(rules)
    top = deal_order(4, hands, 15, first=1) + after
    order = order_with(rules, st, top)
    return rules, RUMMY.deal(rules, RUMMY.new_game(rules, st, dealer=0), order)


HANDS = {
    0: "4C 4D 4H 5C 5D 5H 6C 6D 6H 7C 7D 7H 8C 8D 8H",
    1: "3H 9C 9D 9H 10C 10D 10H JC JD JH QC QD QH KC KD",
    2: "4S 5S 6S 7S 8S 9S 10S JS QS KS AS AC AD AH KH",
    3: "3D 4C 4D 4H 5C 5D 5H 6C 6D 6H 7C 7D 7H 8C 8D",
}


def test_red_three_replaced_at_deal_canasta_style() -> None:
    """samba-en:red-three-initial-replacement = at_deal: laid out and replaced before play."""
    _rules, s = _four("samba-en", HANDS, ["QS", "JS", "9H"])
    assert s.table[1].red_threes == C("3H 3D")  # seats 1 and 3 are side 1
    # replacements come from the stock in seat order from the first player: seat 1 then seat 3
    assert parse_card("QS") in s.hands[1] and parse_card("JS") in s.hands[3]
    assert len(s.hands[1]) == len(s.hands[3]) == 15
    assert s.pile == (parse_card("9H"),)
    assert s.owed == (0, 0, 0, 0)


def test_red_three_replaced_on_turn_samba_es() -> None:
    """samba-es:red-three-initial-replacement = on_turn: laid out at once, replaced on one's turn."""
    rules, s = _four("samba-es", HANDS, ["9H", "QS", "JS", "10D", "5S"])
    assert s.table[1].red_threes == C("3H 3D")
    # seat 1 plays first: its replacement is drawn as its turn begins, right after the upcard
    assert s.pile == (parse_card("9H"),)
    assert len(s.hands[1]) == 15 and parse_card("QS") in s.hands[1]
    assert len(s.hands[3]) == 14 and s.owed[3] == 1
    s = RUMMY.apply(rules, s, Draw(1, 2))  # samba-es:draw-count: two cards
    assert len(s.hands[1]) == 17 and s.hands[1].count(parse_card("10D")) == 2
    s = RUMMY.apply(rules, s, Discard(1, parse_card("9C")))
    s = RUMMY.apply(rules, s, Draw(2, 2))
    s = RUMMY.apply(rules, s, Discard(2, parse_card("4S")))
    # seat 3's turn begins with its replacement drawn
    assert len(s.hands[3]) == 15 and s.owed[3] == 0
    assert RUMMY.violations(rules, s) == []


@pytest.mark.parametrize(
    ("book", "upcard", "covered"),
    [
        ("samba-es", "JK", True),  # samba-es:upcard-cover: wild, black three, red three covered
        ("samba-es", "3C", True),
        ("samba-es", "2D", True),
        ("samba-en", "JK", False),  # samba-en:upcard-cover: never covered
        ("samba-en", "3C", False),
        ("canasta-es", "3H", True),  # canasta-es:upcard-cover (el-pozo): wild and red three
        ("canasta-es", "3S", False),  # ...but a black three stays on top
    ],
)
def test_upcard_cover(book: str, upcard: str, covered: bool) -> None:
    """*:upcard-cover: a covered upcard stays in the pile under the next card."""
    rules = R(book)
    st = seating(rules, "two-pairs" if book == "canasta-es" else None)
    size = 11 if book == "canasta-es" else 15
    nat = [c for c in RUMMY.deck(rules, st) if 8 <= c < 52]
    top = [*nat[: 4 * size], parse_card(upcard), parse_card("9H"), parse_card("9S")]
    from collections import Counter

    rest = sorted((Counter(RUMMY.deck(rules, st)) - Counter(top)).elements())
    s = RUMMY.deal(rules, RUMMY.new_game(rules, st), top + rest)
    if covered:
        assert s.pile == (parse_card(upcard), parse_card("9H"))
    else:
        assert s.pile == (parse_card(upcard),)


def test_canasta_inicio_reading_covers_black_three() -> None:
    """canasta-es:upcard-cover reading inicio: a black three upcard is covered as well."""
    rules = R("canasta-es", upcard_cover="inicio")
    st = seating(rules, "two-pairs")
    nat = [c for c in RUMMY.deck(rules, st) if 8 <= c < 52]
    top = [*nat[:44], parse_card("3S"), parse_card("9H")]
    from collections import Counter

    rest = sorted((Counter(RUMMY.deck(rules, st)) - Counter(top)).elements())
    s = RUMMY.deal(rules, RUMMY.new_game(rules, st), top + rest)
    assert s.pile == (parse_card("3S"), parse_card("9H"))


@pytest.mark.parametrize(
    ("book", "score", "minimum"),
    [
        # samba-es:opening-minimums: negative 15, 0-1,495 50, 1,500-2,995 90, 3,000 up 120
        ("samba-es", -5, 15),
        ("samba-es", 0, 50),
        ("samba-es", 1495, 50),
        ("samba-es", 1500, 90),
        ("samba-es", 2995, 90),
        ("samba-es", 3000, 120),
        ("samba-es", 9995, 120),
        # samba-en:opening-minimums: 3,000-6,999 120, 7,000-9,999 160
        ("samba-en", 6995, 120),
        ("samba-en", 7000, 160),
        # samba-fr:opening-minimums: no negative band, under 1,500 is 50; above 7,000 150
        ("samba-fr", -100, 50),
        ("samba-fr", 3000, 120),
        ("samba-fr", 7005, 150),
        ("canasta-es", 3000, 120),
    ],
)
def test_opening_minimum_by_score(book: str, score: int, minimum: int) -> None:
    """*:opening-minimums: the band of the side's score at the deal."""
    assert opening_minimum(R(book), score) == minimum


def test_opening_band_moves_with_the_score_at_the_deal() -> None:
    """samba-es:opening-minimums: each side's minimum is fixed from its score when the hand is dealt."""
    rules = R("samba-es")
    st = seating(rules)
    g = RUMMY.new_game(rules, st)._replace(scores=(-20, 1500))
    s = RUMMY.deal(rules, g, order_with(rules, st, []))
    assert s.minimums == (15, 90)


def test_samba_fr_readings_of_the_3000_band() -> None:
    """samba-fr:opening-minimums: 3,000 is in two bands; reading 3000-90-gap-120 gives 90."""
    assert opening_minimum(R("samba-fr", opening_minimums="3000-90-gap-120"), 3000) == 90


@pytest.mark.parametrize(("reading", "minimum"), [(None, 160), ("no-minimum", 0)])
def test_samba_en_past_9999_takes_the_flagged_reading(reading: str | None, minimum: int) -> None:
    """samba-en:opening-minimums stops at 9,999; with target-rule 'exceed' a side on exactly 10,000
    plays another hand. The book is silent on its minimum: samba-en:opening-minimum-past-table
    (unspecified) deals it with the top row's 160 by default, or none under 'no-minimum'."""
    options = {"target_rule": "exceed"}
    if reading is not None:
        options["opening_minimum_past_table"] = reading
    rules = R("samba-en", **options)
    st = seating(rules)
    g = RUMMY.new_game(rules, st)._replace(scores=(10000, 0))
    s = RUMMY.deal(rules, g, order_with(rules, st, []))
    assert s.minimums == (minimum, 50)  # 0 points: the 0-1,499 row's 50


def test_a_total_no_row_covers_is_still_a_gap_where_the_spec_gives_none() -> None:
    """*:opening-minimum-past-table -1 (none given): dealing to an uncovered total is RuleGap."""
    rules = dataclasses.replace(R("samba-en", target_rule="exceed"), opening_minimum_past_table=-1)
    st = seating(rules)
    g = RUMMY.new_game(rules, st)._replace(scores=(10000, 0))
    with pytest.raises(RuleGap) as e:
        RUMMY.deal(rules, g, order_with(rules, st, []))
    assert e.value.clause == "samba-en:opening-minimums"


def test_dealer_rotates_to_next_player() -> None:
    """*:dealer-rotation: after a hand the next seat deals; its neighbour plays first."""
    rules = R("samba-en")
    st = Seating(4, 2, "partnerships")
    g = RUMMY.new_game(rules, st, dealer=3)
    s = RUMMY.deal(rules, g, order_with(rules, st, []))
    assert s.seat == 0
