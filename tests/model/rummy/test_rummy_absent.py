"""Rules a book does not have: the Samba books' zero awards and penalties, the absent cleaning,
going out in the turn a canasta is finished, red threes that never reach a meld."""

from __future__ import annotations

import pytest

from arbitro.model.rummy import RUMMY, AddToMeld, Discard, Draw, ReplaceWild, parse_card
from arbitro.model.rummy.scoring import score_hand
from arbitro.model.rummy.state import DRAW
from arbitro.model.rummy.tables import tables
from tests.support.rummy_helpers import BOOKS, SAMBAS, R, legal, make_state

FIVE = (
    "KC KD KH KS KC KD KH",
    "QC QD QH QS QC QD QH",
    "JC JD JH JS JC JD JH",
    "10C 10D 10H 10S 10C 10D 10H",
    "9C 9D 9H 9S 9C 9D 9H",
    "8C 8D 8H 8S 8C 8D 8H",
    "7C 7D 7H 7S 7C 7D 7H",
)


@pytest.mark.parametrize("book", SAMBAS)
def test_no_canaston_in_samba(book: str) -> None:
    """*:canaston-count = 0, *:canaston-bonus = 0, *:canasta-de-canastas-count = 0,
    *:canasta-de-canastas-bonus = 0 in Samba: seven canastas earn only their own bonuses."""
    rules = R(book)
    s = make_state(rules, melds={0: FIVE})
    c = dict(score_hand(tables(rules), s, "went-out", 0).categories[0])
    assert c["canaston"] == 0
    assert c["canastas"] == 7 * 500


@pytest.mark.parametrize("book", SAMBAS)
def test_black_threes_cost_only_their_points_in_samba(book: str) -> None:
    """*:black-three-hand-penalty = 0, *:black-threes-all-in-hand-penalty = 0 and
    *:black-threes-all-melded-bonus = 0 in Samba: six black threes in hand cost 6 x 5."""
    rules = R(book)
    s = make_state(rules, hands={1: "3C 3C 3C 3S 3S 3S"})
    c = dict(score_hand(tables(rules), s, "went-out", 0).categories[1])
    assert c["hand"] == -30 and c["black-threes"] == 0
    s = make_state(rules, melds={0: ("3C 3C 3C 3S 3S 3S",)})
    c = dict(score_hand(tables(rules), s, "went-out", 0).categories[0])
    assert c["black-threes"] == 0 and c["melds"] == 30


@pytest.mark.parametrize(
    ("book", "options"),
    [
        ("samba-es", {}),
        ("samba-en", {}),
        ("samba-fr", {}),
        ("samba-es", {"clean_by_replacing_wilds": "replace-wilds"}),
    ],
)
def test_cleaning_only_where_the_book_allows(book: str, options: dict[str, str]) -> None:
    """*:clean-by-replacing-wilds: false in the three Samba books (samba-es offers it as a
    reading), true in canasta-es (see test_rummy_melds)."""
    rules = R(book, **options)
    s = make_state(rules, hands={0: "KD 4C 6D 8H 10S"}, melds={0: ("KH KS KC JK", "QH QS QD")})
    offered = any(isinstance(a, ReplaceWild) for a in legal(rules, s))
    assert offered is bool(options)


@pytest.mark.parametrize("book", SAMBAS)
def test_going_out_in_the_turn_a_canasta_is_finished(book: str) -> None:
    """*:go-out-wait-after-clean = false in Samba: finishing the needed canasta and going out in
    one turn is allowed (canasta-es forbids it, see test_rummy_going_out)."""
    rules = R(book)
    melds = ("QC QD QH QS QC QD QH", "KC KD KH KS KC KD")
    s = make_state(rules, hands={0: "KH 5C"}, melds={0: melds})
    add = AddToMeld(0, 1, parse_card("KH"))
    if rules.go_out_min_completed > 2:
        return
    s2 = RUMMY.apply(rules, s, add)
    end = RUMMY.apply(rules, s2, Discard(0, parse_card("5C")))
    assert end.result is not None and end.result.reason == "went-out"


@pytest.mark.parametrize("book", BOOKS)
def test_red_threes_never_reach_a_hand(book: str) -> None:
    """*:red-threes-meld: red threes are laid out as soon as they are drawn or dealt, so no red
    three is ever in a hand to be melded; samba-fr's going_out_only red-three melds cannot arise
    (a reading, reported as a finding)."""
    rules = R(book)
    s = make_state(rules, hands={0: "4C 6D 8H"}, step=DRAW, stock="3H 3D 9C 9D 9H")
    s2 = RUMMY.apply(rules, s, Draw(0, rules.draw_count))
    assert not any(c in (5, 6) for c in s2.hands[0])
    assert len(s2.table[0].red_threes) == 2  # each red three drawn is replaced by the next card
