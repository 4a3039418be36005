"""The opening: the minimum by score, counted over the whole turn, the pile's top card, the rest
of the pile, laying the whole hand at once."""

from __future__ import annotations

import pytest

from arbitro.model.errors import IllegalAction
from arbitro.model.rummy import (
    RUMMY,
    AddToMeld,
    Discard,
    FinishOpening,
    LayMeld,
    TakePile,
    parse_card,
)
from arbitro.model.rummy.state import DRAW
from tests.support.rummy_helpers import BOOKS, C, R, legal, make_state

JUNK = "4C 6D 8H 10S 5C"


def unopened(book: str, hand: str, minimum: int = 50, **kw: object) -> tuple[object, object]:
    rules = R(book, **kw)  # type: ignore[arg-type]
    s = make_state(rules, hands={0: hand}, opened={0: False}, minimums=(minimum, minimum))
    return rules, s


@pytest.mark.parametrize("book", BOOKS)
def test_minimum_over_the_whole_turn(book: str) -> None:
    """*:opening-minimums: kings (30) then queens (30) make 60 >= 50: the opening is finished only
    once both are down."""
    rules, s = unopened(book, f"KH KS KD QH QS QD {JUNK}")
    s = RUMMY.apply(rules, s, LayMeld(0, C("KH KS KD")))
    assert FinishOpening(0) not in legal(rules, s)
    assert not any(isinstance(a, Discard) for a in legal(rules, s))  # no discard mid-opening
    s = RUMMY.apply(rules, s, LayMeld(0, C("QH QS QD")))
    assert FinishOpening(0) in legal(rules, s)
    s = RUMMY.apply(rules, s, FinishOpening(0))
    assert s.table[0].opened
    assert Discard(0, parse_card("4C")) in legal(rules, s)


@pytest.mark.parametrize("book", BOOKS)
def test_unreachable_opening_is_not_offered(book: str) -> None:
    """*:opening-minimums: with only 30 points of melds in hand the kings may not be laid at all."""
    rules, s = unopened(book, f"KH KS KD {JUNK}")
    assert LayMeld(0, C("KH KS KD")) not in legal(rules, s)
    with pytest.raises(IllegalAction) as e:
        RUMMY.apply(rules, s, LayMeld(0, C("KH KS KD")))
    assert e.value.clause == f"{book}:opening-minimums"


@pytest.mark.parametrize("book", BOOKS)
def test_the_opening_must_leave_cards_to_play_on(book: str) -> None:
    """*:opening-minimums with *:go-out-min-completed: kings and aces make exactly 90, but with one
    more card in hand laying both would leave a single card, which cannot go out without a
    canasta; so the kings may not be laid. With two spare cards they may."""
    rules, s = unopened(book, "KH KS KD AH AS AD 4C", minimum=90)
    assert LayMeld(0, C("KH KS KD")) not in legal(rules, s)
    rules, s = unopened(book, "KH KS KD AH AS AD 4C 5D", minimum=90)
    s = RUMMY.apply(rules, s, LayMeld(0, C("KH KS KD")))
    acts = legal(rules, s)
    assert LayMeld(0, C("AD AH AS")) in acts
    assert not any(isinstance(a, Discard) for a in acts)


@pytest.mark.parametrize(
    ("book", "options", "ok"),
    [
        # *:pile-top-counts-for-opening: the top king's 10 points decide 90 against 80
        ("samba-es", {}, True),
        ("samba-en", {}, True),
        ("samba-en", {"pile_top_counts_for_opening": "hand-only"}, False),
        ("samba-fr", {"pile_top_counts_for_opening": "hand-cards-only"}, False),
        ("canasta-es", {}, True),
    ],
)
def test_top_card_counts_for_the_opening(book: str, options: dict[str, str], ok: bool) -> None:
    """*:pile-top-counts-for-opening: minimum 90 (score 1,500); K K from hand with the top K and
    three aces: 30 + 60 = 90 with the top card, 80 without."""
    rules = R(book, **options)
    s = make_state(
        rules,
        hands={0: f"KH KS AH AS AD {JUNK}"},
        opened={0: False},
        pile="5S KD",
        step=DRAW,
        minimums=(90, 90),
    )
    a = TakePile(0, "set", -1, C("KH KS"))
    assert (a in legal(rules, s)) is ok
    if not ok:
        with pytest.raises(IllegalAction) as e:
            RUMMY.apply(rules, s, a)
        assert e.value.clause == f"{book}:opening-minimums"


def test_taking_the_pile_unable_to_open_is_priced_in_canasta() -> None:
    """canasta-es:opening-minimums; taking the top card and not being able to open costs 50."""
    rules = R("canasta-es")
    s = make_state(
        rules,
        hands={0: f"KH KS {JUNK}"},
        opened={0: False},
        pile="5S KD",
        step=DRAW,
        minimums=(50, 50),
    )
    with pytest.raises(IllegalAction) as e:
        RUMMY.apply(rules, s, TakePile(0, "set", -1, C("KH KS")))
    assert e.value.clause == "canasta-es:opening-minimums"
    assert e.value.penalty == 50


def test_rest_of_pile_joins_the_hand_once_opened() -> None:
    """samba-es:pile-rest-after-opening: the held cards come into the hand with FinishOpening."""
    rules = R("samba-es")
    s = make_state(
        rules,
        hands={0: f"KH KS AH AS AD {JUNK}"},
        opened={0: False},
        pile="7C 7D KD",
        step=DRAW,
        minimums=(50, 50),
    )
    s = RUMMY.apply(rules, s, TakePile(0, "set", -1, C("KH KS")))
    assert s.held == C("7C 7D")
    # the held sevens cannot be used yet: no meld of sevens can be laid
    assert not any(isinstance(a, LayMeld) and parse_card("7C") in a.cards for a in legal(rules, s))
    s = RUMMY.apply(rules, s, LayMeld(0, C("AH AS AD")))
    s = RUMMY.apply(rules, s, FinishOpening(0))
    assert s.held == () and parse_card("7C") in s.hands[0]


@pytest.mark.parametrize(("book", "exempt"), [("samba-es", True), ("samba-en", False)])
def test_laying_the_whole_hand_at_once(book: str, exempt: bool) -> None:
    """*:opening-concealed-exempt: a side that has not opened goes out in one turn with two
    canastas of fours and fives (70 points) against a minimum of 90: samba-es exempts it ('se
    abate'), samba-en does not. Both books' going-out requirements (1 and 2 canastas) are met."""
    rules = R(book)
    hand = "4C 4C 4D 4D 4H 4H 4S 5C 5C 5D 5D 5H 5H 5S 9D"
    s = make_state(rules, hands={0: hand}, opened={0: False}, minimums=(90, 90))
    steps = [
        LayMeld(0, C("4C 4C 4D")),
        AddToMeld(0, 0, parse_card("4D")),
        AddToMeld(0, 0, parse_card("4H")),
        AddToMeld(0, 0, parse_card("4H")),
        AddToMeld(0, 0, parse_card("4S")),
        LayMeld(0, C("5C 5C 5D")),
    ]
    if not exempt:
        with pytest.raises(IllegalAction) as e:
            RUMMY.apply(rules, s, steps[0])
        assert e.value.clause == "samba-en:opening-minimums"
        return
    for a in steps:
        s = RUMMY.apply(rules, s, a)
    for c in ("5D", "5H", "5H", "5S"):
        s = RUMMY.apply(rules, s, AddToMeld(0, 1, parse_card(c)))
    end = RUMMY.apply(rules, s, Discard(0, parse_card("9D")))
    assert end.result is not None and end.result.reason == "went-out"


@pytest.mark.parametrize(
    ("book", "options", "opens"),
    [
        ("samba-es", {}, True),
        ("samba-en", {}, True),
        ("samba-en", {"opening_rule": "exceed"}, False),
        ("samba-fr", {}, True),
        ("canasta-es", {}, True),
    ],
)
def test_an_opening_of_exactly_the_minimum(book: str, options: dict[str, str], opens: bool) -> None:
    """*:opening-rule — samba-es:opening-rule, samba-fr:opening-rule and canasta-es:opening-rule
    ask the opening to reach the minimum, so equal is enough; samba-en:opening-rule says both
    'meet' and 'exceed': under 'exceed' a side on 0 points (minimum 50 in every book's table:
    samba-en:opening-minimums) cannot open with kings (30) and four fours (20), exactly 50."""
    from arbitro.model.rummy.dealing import opening_minimum

    rules = R(book, **options)
    need = opening_minimum(rules, 0)
    assert need == (50 if opens else 51)
    # nothing else in the hand melds: 9C, 7D and 6H make no set and no escalera
    hand = "KH KS KD 4C 4D 4H 4S 9C 7D 6H"
    s = make_state(rules, hands={0: hand}, opened={0: False}, minimums=(need, need))
    if not opens:
        assert LayMeld(0, C("KH KS KD")) not in legal(rules, s)
        return
    s = RUMMY.apply(rules, s, LayMeld(0, C("KH KS KD")))
    s = RUMMY.apply(rules, s, LayMeld(0, C("4C 4D 4H")))
    s = RUMMY.apply(
        rules,
        s,
        AddToMeld(
            0,
            next(
                i
                for i, m in enumerate(s.table[0].melds)
                if len(m.cards) == 3 and m.cards == C("4C 4D 4H")
            ),
            parse_card("4S"),
        ),
    )
    assert FinishOpening(0) in legal(rules, s)
