"""Drawing from the stock, red threes drawn, a short stock, the end of the stock."""

from __future__ import annotations

import pytest

from arbitro.model.errors import IllegalAction
from arbitro.model.rummy import RUMMY, Discard, Draw, Stop, TakePile, parse_card
from arbitro.model.rummy.state import DRAW, PLAY
from tests.support.rummy_helpers import BOOKS, C, R, legal, make_state

HAND = "4C 6D 8H 10S QC KD"


@pytest.mark.parametrize(
    ("book", "count"),
    [("samba-es", 2), ("samba-en", 1), ("samba-fr", 2), ("canasta-es", 1)],
)
def test_draw_count(book: str, count: int) -> None:
    """*:draw-count: samba-es and samba-fr draw two, samba-en and canasta-es one."""
    rules = R(book)
    s = make_state(rules, hands={0: HAND}, step=DRAW, stock="9C 9D 9H")
    assert Draw(0, count) in legal(rules, s)
    s2 = RUMMY.apply(rules, s, Draw(0, count))
    assert len(s2.hands[0]) == 6 + count
    assert s2.hands[0].count(parse_card("9C")) == 1
    assert s2.step == PLAY


def test_drawing_two_instead_of_one_is_priced() -> None:
    """canasta-es:draw-count = 1; the book prices drawing two at 50 (draw_two_instead_of_one)."""
    rules = R("canasta-es")
    s = make_state(rules, hands={0: HAND}, step=DRAW)
    with pytest.raises(IllegalAction) as e:
        RUMMY.apply(rules, s, Draw(0, 2))
    assert e.value.clause == "canasta-es:draw-count"
    assert e.value.penalty == 50


@pytest.mark.parametrize("book", BOOKS)
def test_red_three_drawn_is_laid_out_and_replaced(book: str) -> None:
    """*:red-three-initial-replacement (and the red-three rules): a red three drawn is laid out at
    once and another card is drawn in its place."""
    rules = R(book)
    s = make_state(rules, hands={0: HAND}, step=DRAW, stock="3H 9C 9D 9H")
    n = rules.draw_count
    s2 = RUMMY.apply(rules, s, Draw(0, n))
    assert s2.table[0].red_threes == C("3H")
    assert len(s2.hands[0]) == 6 + n
    assert parse_card("3H") not in s2.hands[0]


def test_short_stock_take_what_remains() -> None:
    """samba-es:draw-short-stock = take_what_remains: the last draw may be of a single card.
    (*:draw-short-stock: with one card drawn, samba-en and canasta-es never meet a short stock.)"""
    rules = R("samba-es")
    s = make_state(rules, hands={0: HAND}, step=DRAW, stock="9C", fill=False)
    assert Draw(0, 1) in legal(rules, s)
    assert len(RUMMY.apply(rules, s, Draw(0, 1)).hands[0]) == 7


def test_short_stock_hand_ends_reading() -> None:
    """samba-fr:draw-short-stock reading hand-ends: one card left is too few for a draw of two,
    and with samba-fr:stock-out = take_pile_if_able and no pile to take the hand ends."""
    rules = R("samba-fr", draw_short_stock="hand-ends")
    s = make_state(rules, hands={0: HAND, 1: HAND}, step=PLAY, stock="9C", pile="5S", fill=False)
    s2 = RUMMY.apply(rules, s, Discard(0, parse_card("4C")))
    assert s2.phase == "deal" and s2.result is not None and s2.result.reason == "stock-out"


def _stock_out(
    book: str, hand1: str, melds1: tuple[str, ...] = (), **opts: str
) -> tuple[object, object]:
    """Seat 0 discards a king with the stock empty; seat 1 (side 1) is next."""
    rules = R(book, **opts)
    s = make_state(
        rules,
        hands={0: "KS 4C 4D", 1: hand1},
        melds={1: melds1},
        opened={1: bool(melds1)},
        pile="5S",
        fill=False,
    )
    return rules, RUMMY.apply(rules, s, Discard(0, parse_card("KS")))


def test_stock_out_forced_take_samba_es() -> None:
    """samba-es:stock-out = forced_take_if_matches_meld: with the stock gone the next player must
    take the pile when its top card fits the side's melds; the take is the only legal action."""
    rules, s = _stock_out("samba-es", "7C 7D 9H", ("KC KD KH",))
    assert s.phase == "play" and s.seat == 1  # type: ignore[attr-defined]
    assert legal(rules, s) == (TakePile(1, "add", 0, ()),)  # type: ignore[arg-type]


def test_stock_out_forced_take_ends_when_top_fits_no_meld() -> None:
    """samba-es:stock-out: a natural pair in hand does not count; the top must fit a meld."""
    _rules, s = _stock_out("samba-es", "KH KD 9H", ("QC QD QH",))
    assert s.phase == "deal" and s.result.reason == "stock-out"  # type: ignore[attr-defined]


def test_stock_out_take_pile_if_able_samba_en() -> None:
    """samba-en:stock-out = take_pile_if_able: a natural pair lets play go on by taking the pile."""
    rules, s = _stock_out("samba-en", "KH KD 9H", ("QC QD QH",))
    assert s.phase == "play"  # type: ignore[attr-defined]
    assert legal(rules, s) == (TakePile(1, "set", -1, C("KD KH")),)  # type: ignore[arg-type]
    rules, s = _stock_out("samba-en", "7H 7D 9H", ("QC QD QH",))
    assert s.phase == "deal" and s.result.reason == "stock-out"  # type: ignore[attr-defined]


def test_stock_out_hand_ends_canasta_es() -> None:
    """canasta-es:stock-out = hand_ends: drawing from the empty stock ends the hand; a pile the
    player can take may still be taken instead."""
    rules, s = _stock_out("canasta-es", "KH KD 9H", ("QC QD QH",))
    acts = legal(rules, s)  # type: ignore[arg-type]
    assert Draw(1, 1) in acts and TakePile(1, "set", -1, C("KD KH")) in acts
    end = RUMMY.apply(rules, s, Draw(1, 1))  # type: ignore[arg-type]
    assert end.phase == "deal" and end.result.reason == "stock-out"


@pytest.mark.parametrize(
    ("book", "stops"), [("samba-es", True), ("samba-en", True), ("canasta-es", False)]
)
def test_last_card_red_three(book: str, stops: bool) -> None:
    """*:last-red-three-ends-hand: the stock's last card a red three: lay it out, meld, stop."""
    rules = R(book)
    s = make_state(rules, hands={0: HAND}, step=DRAW, stock="3D", fill=False)
    s2 = RUMMY.apply(rules, s, Draw(0, 1))
    assert s2.table[0].red_threes == C("3D")
    acts = legal(rules, s2)
    if stops:
        assert Stop(0) in acts
        assert not any(isinstance(a, Discard) for a in acts)
        end = RUMMY.apply(rules, s2, Stop(0))
        assert end.result is not None and end.result.reason == "stock-out"
    else:
        assert Stop(0) not in acts and Discard(0, parse_card("4C")) in acts
