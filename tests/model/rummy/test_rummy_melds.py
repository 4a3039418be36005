"""Melds: sets, wild limits, escaleras, completion and growth, merging, wild-only and black-three
melds, cleaning a dirty set. Each situation is played through `apply` on a hand-made state."""

from __future__ import annotations

import pytest

from arbitro.model.errors import IllegalAction, MalformedInput
from arbitro.model.rummy import RUMMY, AddToMeld, LayMeld, Merge, ReplaceWild, parse_card
from arbitro.model.rummy.melds import SEQ, SET, WILDS
from arbitro.model.rummy.state import FREED
from tests.support.rummy_helpers import BOOKS, SAMBAS, C, R, legal, make_state

FILLER = "4C 6D 8H 10S QC"  # five unrelated cards so that the hand never runs low


def opened(
    book: str, hand: str, melds: tuple[str, ...] = (), **kw: object
) -> tuple[object, object]:
    """Seat 0 to play, its side opened; canasta-es is played by three pairs (three packs) here."""
    rules = R(book, **kw)  # type: ignore[arg-type]
    layout = "three-pairs" if book == "canasta-es" else None
    s = make_state(
        rules, layout=layout, hands={0: f"{hand} {FILLER}"}, melds={0: melds}, opened={0: True}
    )
    return rules, s


def lay(rules: object, s: object, cards: str) -> object:
    return RUMMY.apply(rules, s, LayMeld(0, C(cards)))  # type: ignore[arg-type]


def add(rules: object, s: object, meld: int, card: str) -> object:
    return RUMMY.apply(rules, s, AddToMeld(0, meld, parse_card(card)))  # type: ignore[arg-type]


def refusal(fn: object, *args: object) -> IllegalAction:
    with pytest.raises(IllegalAction) as e:
        fn(*args)  # type: ignore[operator]
    return e.value


@pytest.mark.parametrize("book", BOOKS)
def test_three_naturals_make_a_set(book: str) -> None:
    """*:set-min: three cards of one rank are a set, laid at once."""
    rules, s = opened(book, "KH KS KD")
    s2 = lay(rules, s, "KH KS KD")
    assert s2.table[0].melds[0].kind == SET  # type: ignore[attr-defined]
    assert len(s2.hands[0]) == 5  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("book", "legal_lay"),
    [
        ("samba-es", False),  # samba-es:set-start-min-naturals = 3: a set starts with 3 naturals
        ("samba-en", True),  # samba-en:set-start-min-naturals = 1
        ("samba-fr", True),  # samba-fr:set-start-min-naturals = 2 (examples reading)
        ("canasta-es", True),  # canasta-es:set-start-min-naturals = 2
    ],
)
def test_two_naturals_and_a_wild(book: str, legal_lay: bool) -> None:
    """*:set-start-min-naturals: may a new set be two naturals and a wild?"""
    rules, s = opened(book, "KH KS JK")
    if legal_lay:
        assert LayMeld(0, C("KH KS JK")) in legal(rules, s)
    else:
        e = refusal(lay, rules, s, "KH KS JK")
        assert e.clause == "samba-es:set-start-min-naturals"


@pytest.mark.parametrize(
    ("book", "clause"),
    [
        ("samba-es", "samba-es:set-start-min-naturals"),
        ("samba-en", None),  # samba-en:wilds-at-most-naturals = false, cap 2: K + 2 wilds is fine
        ("samba-fr", "samba-fr:set-start-min-naturals"),
        ("canasta-es", "canasta-es:set-start-min-naturals"),
    ],
)
def test_one_natural_and_two_wilds(book: str, clause: str | None) -> None:
    """*:wilds-at-most-naturals, *:set-start-min-naturals: one natural with two wilds."""
    rules, s = opened(book, "KH JK 2C")
    if clause is None:
        assert LayMeld(0, C("KH JK 2C")) in legal(rules, s)
    else:
        assert refusal(lay, rules, s, "KH JK 2C").clause == clause


@pytest.mark.parametrize(
    ("book", "cap", "penalty"),
    [
        ("samba-es", 2, 100),  # samba-es:wild-cap, penalty three_wilds_in_canasta = 100
        ("samba-en", 2, None),  # samba-en:wild-cap = 2, no penalty priced
        ("samba-fr", 2, None),
        ("canasta-es", 3, None),  # canasta-es:wild-cap = 3 (3 in 6 or 7 cards)
    ],
)
def test_wild_cap(book: str, cap: int, penalty: int | None) -> None:
    """*:wild-cap: the most wild cards one set holds."""
    rules, s = opened(book, "JK 2C 2D 2H", ("KH KS KD",))
    for w in ("JK", "2C", "2D", "2H")[:cap]:
        s = add(rules, s, 0, w)
    e = refusal(add, rules, s, 0, "2H")
    assert e.clause == f"{book}:wild-cap"
    assert e.penalty == penalty


@pytest.mark.parametrize(
    ("book", "options"),
    [
        # samba-fr:wilds-at-most-naturals; the ratio-only reading of samba-fr:wild-cap lifts the cap
        ("samba-fr", {"wild_cap": "ratio-only"}),
        ("canasta-es", {}),
    ],
)
def test_wilds_never_outnumber_naturals(book: str, options: dict[str, str]) -> None:
    """*:wilds-at-most-naturals: a set of two naturals and two wilds takes no third wild."""
    rules = R(book, **options)
    s = make_state(rules, hands={0: f"2C 2D {FILLER}"}, melds={0: ("KH KS JK",)})
    s = add(rules, s, 0, "2C")
    e = refusal(add, rules, s, 0, "2D")
    assert e.clause == f"{book}:wilds-at-most-naturals"


def test_samba_en_allows_more_wilds_than_naturals() -> None:
    """samba-en:wilds-at-most-naturals = false: K, JK, 2C stands; the cap of two stops a third."""
    rules = R("samba-en")
    s = make_state(rules, hands={0: f"KH JK 2C 2D {FILLER}"}, melds={0: ()}, opened={0: True})
    s = lay(rules, s, "KH JK 2C")
    assert refusal(add, rules, s, 0, "2D").clause == "samba-en:wild-cap"


@pytest.mark.parametrize("book", SAMBAS)
def test_escaleras(book: str) -> None:
    """*:sequences, *:sequence-ranks, *:sequence-min, *:sequence-max, *:completed-size: runs of
    one suit, 4 to ace; seven make a samba."""
    rules, s = opened(book, "4H 5H 6H 7H 8H 9H 10H JH")
    s = lay(rules, s, "4H 5H 6H")
    assert s.table[0].melds[0].kind == SEQ  # type: ignore[attr-defined]
    for c in ("7H", "8H", "9H", "10H"):
        s = add(rules, s, 0, c)
    # seven cards is a samba: no eighth card
    assert refusal(add, rules, s, 0, "JH").clause == f"{book}:sequence-max"


@pytest.mark.parametrize("book", SAMBAS)
def test_escalera_limits(book: str) -> None:
    """*:sequence-ranks: ace high only, no threes or twos; no wilds; one suit; consecutive."""
    rules, s = opened(book, "QD KD AD 2D 3D 4D JK 5S 6D 7C")
    assert LayMeld(0, C("QD KD AD")) in legal(rules, s)
    for bad in ("KD AD 2D", "2D 3D 4D", "3D 4D 5S", "4D 6D 7C", "KD AD JK"):
        with pytest.raises((IllegalAction, MalformedInput)):
            lay(rules, s, bad)


def test_no_escaleras_in_canasta() -> None:
    """canasta-es:sequences = false: a run is not a meld."""
    rules, s = opened("canasta-es", "4H 5H 6H")
    e = refusal(lay, rules, s, "4H 5H 6H")
    assert e.clause == "canasta-es:sequences"


@pytest.mark.parametrize(
    ("book", "natural", "wild"),
    [
        ("samba-es", True, False),  # samba-es:completed-set-growth = naturals
        ("samba-en", False, False),  # samba-en:completed-set-growth = none
        ("samba-fr", True, True),  # samba-fr:completed-set-growth = any
        ("canasta-es", True, False),  # canasta-es: one natural if the canasta is clean
    ],
)
def test_growth_of_a_completed_canasta(book: str, natural: bool, wild: bool) -> None:
    """*:completed-set-growth, *:completed-size: what a clean canasta of seven still takes."""
    rules, s = opened(book, "KH JK", ("KH KS KD KC KH KS KD",))
    assert (AddToMeld(0, 0, parse_card("KH")) in legal(rules, s)) is natural
    assert (AddToMeld(0, 0, 52) in legal(rules, s)) is wild
    if not wild:
        assert refusal(add, rules, s, 0, "JK").clause == f"{book}:completed-set-growth"


def test_samba_fr_wild_makes_a_clean_canasta_dirty() -> None:
    """samba-fr:completed-set-growth = any: a wild on a clean canasta turns it mixed."""
    from arbitro.model.rummy.melds import is_clean

    rules, s = opened("samba-fr", "JK", ("KH KS KD KC KH KS KD",))
    s = add(rules, s, 0, "JK")
    assert not is_clean(s.table[0].melds[0])  # type: ignore[attr-defined]


def test_canasta_takes_one_eighth_natural_only() -> None:
    """canasta-es:completed-set-growth = one_natural_if_clean: an eighth natural, not a ninth; a
    dirty canasta takes nothing."""
    rules, s = opened("canasta-es", "KH KS QH", ("KH KS KD KC KH KS KD", "QH QS QD QC 2C 2D JK"))
    # melds are kept sorted by rank: 0 is the queens, 1 the kings
    s = add(rules, s, 1, "KH")
    assert refusal(add, rules, s, 1, "KS").clause == "canasta-es:completed-set-growth"
    assert refusal(add, rules, s, 0, "QH").clause == "canasta-es:completed-set-growth"


@pytest.mark.parametrize(
    ("book", "several"),
    [("samba-es", False), ("samba-en", True), ("samba-fr", True), ("canasta-es", False)],
)
def test_several_sets_of_one_rank(book: str, several: bool) -> None:
    """*:several-sets-same-rank: a second set of kings beside the first."""
    rules, s = opened(book, "KH KS KD", ("KC KC KD",))
    if several:
        assert LayMeld(0, C("KH KS KD")) in legal(rules, s)
    else:
        assert refusal(lay, rules, s, "KH KS KD").clause == f"{book}:several-sets-same-rank"


@pytest.mark.parametrize("book", ["samba-en", "samba-fr"])
def test_merge_sets(book: str) -> None:
    """samba-en:merge-sets, samba-fr:merge-sets: two sets of one rank join; samba-es:merge-sets
    and canasta-es:merge-sets = false (unspecified): no merging."""
    rules, s = opened(book, "", ("KC KC KD", "KH KS KD"))
    s2 = RUMMY.apply(rules, s, Merge(0, 0, 1))
    assert [len(m.cards) for m in s2.table[0].melds] == [6]
    rules_es, s_es = opened("samba-es", "", ("KC KC KD",))
    assert not any(isinstance(a, Merge) for a in legal(rules_es, s_es))


def test_merge_respects_the_size_and_wild_limits() -> None:
    """samba-en:merge-sets with samba-en:completed-set-growth = none: no set above seven."""
    rules, s = opened("samba-en", "", ("KC KC KD KD", "KH KS KS JK"))
    e = refusal(RUMMY.apply, rules, s, Merge(0, 0, 1))
    assert e.clause == "samba-en:completed-set-growth"
    rules, s = opened("samba-en", "", ("KC KD 2C 2D", "KH KS JK"))
    assert refusal(RUMMY.apply, rules, s, Merge(0, 0, 1)).clause == "samba-en:wild-cap"


def test_wild_canasta_in_canasta_es() -> None:
    """canasta-es:wild-canasta, canasta-es:wild-meld-min-start = 5: five wilds start a wild meld."""
    rules, s = opened("canasta-es", "JK JK 2C 2D 2H 2S")
    s2 = lay(rules, s, "JK JK 2C 2D 2H")
    assert s2.table[0].melds[0].kind == WILDS  # type: ignore[attr-defined]
    s3 = add(rules, s2, 0, "2S")
    assert len(s3.table[0].melds[0].cards) == 6  # type: ignore[attr-defined]
    e = refusal(lay, rules, s, "JK 2C 2D")
    assert e.clause == "canasta-es:wild-meld-min-start"
    # the 'trio' reading starts one with three
    rules_t = R("canasta-es", wild_meld_min_start="trio")
    assert LayMeld(0, C("JK 2C 2D")) in legal(rules_t, s)


def test_a_finished_wild_canasta_takes_no_more_wilds() -> None:
    """canasta-es:wild-canasta: a canasta of wilds is seven of them (canasta-es:completed-size =
    7); canasta-es:completed-set-growth lets only a natural join a finished canasta, and a wild
    meld never takes naturals, so the eighth wild is refused."""
    rules, s = opened("canasta-es", "2S JK", ("JK JK 2C 2D 2H 2S JK",))
    assert s.table[0].melds[0].kind == WILDS  # type: ignore[attr-defined]
    assert refusal(add, rules, s, 0, "2S").clause == "canasta-es:completed-size"
    assert refusal(add, rules, s, 0, "JK").clause == "canasta-es:completed-size"
    assert not any(isinstance(a, AddToMeld) for a in legal(rules, s))
    # one wild short of finished, it still takes one
    rules, s = opened("canasta-es", "2S", ("JK JK 2C 2D 2H 2S",))
    assert len(add(rules, s, 0, "2S").table[0].melds[0].cards) == 7  # type: ignore[attr-defined]


@pytest.mark.parametrize("book", SAMBAS)
def test_no_wild_meld_in_samba(book: str) -> None:
    """*:wild-canasta = false in the three Samba books, so *:wild-meld-min-start (0) and
    *:wild-canasta-bonus (0) never apply there."""
    rules, s = opened(book, "JK JK 2C 2D 2H")
    assert not any(
        isinstance(a, LayMeld) and all(c in C("JK JK 2C 2D 2H") for c in a.cards)
        for a in legal(rules, s)
    )


@pytest.mark.parametrize("book", BOOKS)
def test_black_threes_only_when_going_out(book: str) -> None:
    """*:black-threes-meld = going_out_only: three black threes stay in hand otherwise."""
    rules, s = opened(book, "3C 3S 3C")
    assert refusal(lay, rules, s, "3C 3S 3C").clause == f"{book}:black-threes-meld"


def test_cleaning_a_dirty_set() -> None:
    """canasta-es:clean-by-replacing-wilds (any-meld): a natural replaces a wild, which must be
    placed at once on another meld or in a new one, never kept."""
    rules, s = opened("canasta-es", "KD 9H 9S", ("KH KS KC JK", "QH QS QD"))
    # melds are kept sorted by rank: 0 is the queens, 1 the kings
    s1 = RUMMY.apply(rules, s, ReplaceWild(0, 1, parse_card("KD"), 52))
    assert s1.step == FREED and s1.freed == 52  # type: ignore[attr-defined]
    acts = legal(rules, s1)
    assert AddToMeld(0, 0, 52) in acts  # onto the queens
    assert LayMeld(0, C("9H 9S JK")) in acts  # or a new set with a natural pair from the hand
    assert AddToMeld(0, 1, 52) not in acts  # never back where it came from
    assert not any(a.__class__.__name__ == "Discard" for a in acts)  # never kept in hand
    s2 = RUMMY.apply(rules, s1, AddToMeld(0, 0, 52))
    assert [len(m.cards) for m in s2.table[0].melds] == [4, 4]
    # the other reading allows no cleaning at all
    rules_c = R("canasta-es", clean_by_replacing_wilds="canastas-only")
    assert not any(isinstance(a, ReplaceWild) for a in legal(rules_c, s))


def test_a_freed_wild_like_one_in_hand_lists_each_new_meld_once() -> None:
    """canasta-es:clean-by-replacing-wilds: when the freed wild is a card the player also holds,
    each new meld it can start is still one legal action (legal_actions lists no action twice)."""
    rules, s = opened("canasta-es", "KD 9H 9S 2C", ("KH KS KC 2C", "QH QS QD"))
    s1 = RUMMY.apply(rules, s, ReplaceWild(0, 1, parse_card("KD"), parse_card("2C")))
    assert s1.step == FREED and s1.freed == parse_card("2C")  # type: ignore[attr-defined]
    acts = legal(rules, s1)
    assert len(set(acts)) == len(acts)
    assert acts.count(LayMeld(0, C("2C 9H 9S"))) == 1


def test_a_freed_wild_starts_a_wild_meld_with_its_cards_in_order() -> None:
    """canasta-es:wild-canasta, canasta-es:clean-by-replacing-wilds: a freed two that, with the
    wilds in hand, can start a wild meld is listed as a lay of sorted cards (an action's cards
    are a multiset), and every listed action is one `apply` accepts."""
    rules, s = opened("canasta-es", "KD 2C 2D JK JK 9H", ("KH KS KC 2S", "QH QS QD"))
    s1 = RUMMY.apply(rules, s, ReplaceWild(0, 1, parse_card("KD"), parse_card("2S")))
    assert s1.step == FREED  # type: ignore[attr-defined]
    acts = legal(rules, s1)
    assert LayMeld(0, C("2C 2D 2S JK JK")) in acts
    for a in acts:
        assert not isinstance(a, LayMeld) or list(a.cards) == sorted(a.cards)
        RUMMY.apply(rules, s1, a)
