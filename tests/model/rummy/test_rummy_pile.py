"""Taking the discard pile: with a natural pair, a natural and a wild, onto a meld; frozen and
blocked piles; the one-card rule; where the rest of the pile goes."""

from __future__ import annotations

import pytest

from arbitro.model.errors import IllegalAction
from arbitro.model.rummy import RUMMY, TakePile, parse_card
from arbitro.model.rummy.melds import SET
from arbitro.model.rummy.state import DRAW, PLAY
from tests.support.rummy_helpers import BOOKS, SAMBAS, C, R, legal, make_state

FILLER = "4C 6D 8H 10S QC"


def state(
    book: str,
    hand: str,
    pile: str,
    melds: tuple[str, ...] = (),
    opened: bool = True,
    pile_taken: bool = False,
    **kw: object,
) -> tuple[object, object]:
    rules = R(book, **kw)  # type: ignore[arg-type]
    s = make_state(
        rules,
        hands={0: f"{hand} {FILLER}"},
        melds={0: melds},
        opened={0: opened},
        pile=pile,
        step=DRAW,
        stock="9C 9D",
        pile_taken=pile_taken,
    )
    return rules, s


def refused(rules: object, s: object, a: TakePile) -> IllegalAction:
    with pytest.raises(IllegalAction) as e:
        RUMMY.apply(rules, s, a)  # type: ignore[arg-type]
    return e.value


@pytest.mark.parametrize("book", BOOKS)
def test_natural_pair_takes_the_pile(book: str) -> None:
    """*:pile-new-set-naturals = 2: two naturals matching the top card start a set with it, and
    the whole pile comes with it."""
    rules, s = state(book, "KH KS", "5S 7D KD")
    a = TakePile(0, "set", -1, C("KH KS"))
    assert a in legal(rules, s)  # type: ignore[arg-type]
    s2 = RUMMY.apply(rules, s, a)  # type: ignore[arg-type]
    assert s2.table[0].melds[0].cards == C("KD KH KS")
    assert s2.pile == () and s2.step == PLAY
    assert parse_card("5S") in s2.hands[0] and parse_card("7D") in s2.hands[0]
    assert RUMMY.violations(rules, s2) == []  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("book", "options", "clause"),
    [
        # samba-es:pile-wild-pair-after = side_opened, but samba-es:set-start-min-naturals = 3
        # (canasta-definition reading) makes the two-natural set illegal anyway
        ("samba-es", {}, "samba-es:set-start-min-naturals"),
        ("samba-es", {"set_start_min_naturals": "pile-after-opening"}, None),
        ("samba-en", {}, "samba-en:pile-wild-pair-after"),  # never
        ("samba-fr", {}, "samba-fr:pile-wild-pair-after"),  # never
    ],
)
def test_natural_and_wild_after_opening(
    book: str, options: dict[str, str], clause: str | None
) -> None:
    """*:pile-wild-pair-after: an opened side, an unfrozen pile, one natural and a wild."""
    rules, s = state(book, "KH JK", "5S KD", ("7C 7D 7H",), **options)
    a = TakePile(0, "set", -1, C("KH JK"))
    if clause is None:
        assert a in legal(rules, s)  # type: ignore[arg-type]
    else:
        assert refused(rules, s, a).clause == clause


def test_canasta_wild_pair_after_the_first_take() -> None:
    """canasta-es:pile-wild-pair-after = first_pile_take: not before anybody took the pile this
    hand; afterwards yes."""
    rules, s = state("canasta-es", "KH JK", "5S KD", ("7C 7D 7H",))
    a = TakePile(0, "set", -1, C("KH JK"))
    assert refused(rules, s, a).clause == "canasta-es:pile-wild-pair-after"
    s2 = s._replace(pile_taken=True)  # type: ignore[attr-defined]
    assert a in legal(rules, s2)  # type: ignore[arg-type]


@pytest.mark.parametrize("book", BOOKS)
def test_never_with_two_wilds(book: str) -> None:
    """*:pile-new-set-naturals: two wilds never take the pile."""
    rules, s = state(
        book,
        "JK 2C",
        "5S KD",
        ("7C 7D 7H",),
    )
    assert not any(isinstance(a, TakePile) and a.use == "set" for a in legal(rules, s))  # type: ignore[arg-type]
    assert (
        refused(rules, s, TakePile(0, "set", -1, C("JK 2C"))).clause
        == f"{book}:pile-new-set-naturals"
    )


@pytest.mark.parametrize("book", BOOKS)
def test_top_card_onto_own_set(book: str) -> None:
    """*:pile-to-own-set: the top card alone fits an unfinished set of the side (after the pile's
    first take of the hand, which canasta-es:pile-add-after asks for)."""
    rules, s = state(book, "", "5S KD", ("KC KH KS",), pile_taken=True)
    a = TakePile(0, "add", 0, ())
    assert a in legal(rules, s)  # type: ignore[arg-type]
    s2 = RUMMY.apply(rules, s, a)  # type: ignore[arg-type]
    assert len(s2.table[0].melds[0].cards) == 4


@pytest.mark.parametrize(
    ("book", "ok"),
    [
        ("samba-es", True),  # samba-es:pile-add-after = any_time
        ("samba-en", True),  # samba-en:pile-add-after = any_time
        ("samba-fr", True),  # samba-fr:pile-add-after = any_time
        ("canasta-es", False),  # canasta-es:pile-add-after = first_pile_take
    ],
)
def test_first_take_of_the_hand_by_adding_to_a_meld(book: str, ok: bool) -> None:
    """*:pile-add-after (issue 12, second bug): a side that opened from its hand holds one natural
    of the top card's rank and a set of that rank; nobody has taken the pile this hand. EL POZO of
    canasta-es asks a natural pair for that first take, so putting the top card on the set does not
    take the pile there; the Samba books set no such condition."""
    rules, s = state(book, "KH", "5S KD", ("KC KH KS",))
    assert not s.pile_taken  # type: ignore[attr-defined]
    a = TakePile(0, "add", 0, ())
    if ok:
        assert a in legal(rules, s)  # type: ignore[arg-type]
        return
    assert a not in legal(rules, s)  # type: ignore[arg-type]
    e = refused(rules, s, a)
    assert e.clause == "canasta-es:pile-add-after"
    # once somebody has taken the pile this hand, the top card alone on the set takes it
    assert a in legal(rules, s._replace(pile_taken=True))  # type: ignore[arg-type, attr-defined]


@pytest.mark.parametrize(
    ("book", "ok", "clause"),
    [
        ("samba-es", True, None),  # samba-es:pile-to-completed-set, growth naturals
        ("samba-en", False, "samba-en:pile-to-completed-set"),
        ("samba-fr", True, None),
        ("canasta-es", True, None),  # a clean canasta takes an eighth natural
    ],
)
def test_top_card_onto_a_finished_canasta(book: str, ok: bool, clause: str | None) -> None:
    """*:pile-to-completed-set and *:completed-set-growth: a top card matching a finished canasta."""
    layout = {"layout": "three-pairs"} if book == "canasta-es" else {}
    rules = R(book)
    s = make_state(
        rules,
        hands={0: FILLER},
        melds={0: ("KC KH KS KD KC KH KS",)},
        pile="5S KD",
        step=DRAW,
        pile_taken=True,
        **layout,  # type: ignore[arg-type]
    )
    a = TakePile(0, "add", 0, ())
    if ok:
        assert a in legal(rules, s)
    else:
        assert refused(rules, s, a).clause == clause


@pytest.mark.parametrize(
    ("book", "ok"),
    [("samba-es", False), ("samba-en", True), ("samba-fr", True)],
)
def test_top_card_extends_an_escalera(book: str, ok: bool) -> None:
    """*:pile-to-own-sequence: samba-en and samba-fr let the top card lengthen an escalera;
    samba-es is silent and by default does not."""
    rules, s = state(book, "", "5S 7H", ("4H 5H 6H",))
    a = TakePile(0, "add", 0, ())
    if ok:
        assert a in legal(rules, s)  # type: ignore[arg-type]
    else:
        assert refused(rules, s, a).clause == "samba-es:pile-to-own-sequence"
    # samba-es's reading extend-sequence allows it
    if book == "samba-es":
        rules2, s2 = state(book, "", "5S 7H", ("4H 5H 6H",), pile_to_own_sequence="extend-sequence")
        assert a in legal(rules2, s2)  # type: ignore[arg-type]


@pytest.mark.parametrize("book", SAMBAS)
def test_never_to_start_an_escalera(book: str) -> None:
    """*:pile-new-sequence = false: the pile is not taken to begin an escalera."""
    rules, s = state(book, "5H 6H", "5S 7H")
    e = refused(rules, s, TakePile(0, "escalera", -1, C("5H 6H")))
    assert e.clause == f"{book}:pile-new-sequence"


@pytest.mark.parametrize(
    ("book", "frozen"),
    [
        ("samba-es", False),  # samba-es:frozen-by: red threes and wilds only
        ("samba-en", False),
        ("samba-fr", True),  # samba-fr:frozen-by includes black threes
        ("canasta-es", False),
    ],
)
def test_black_three_deep_in_the_pile(book: str, frozen: bool) -> None:
    """*:frozen-by: a black three under the top card freezes the pile only in samba-fr."""
    rules, s = state(book, "", "3C 5S KD", ("KC KH KS",), pile_taken=True)
    a = TakePile(0, "add", 0, ())
    if frozen:
        assert refused(rules, s, a).clause == "samba-fr:frozen-by"
    else:
        assert a in legal(rules, s)  # type: ignore[arg-type]


@pytest.mark.parametrize("book", BOOKS)
def test_frozen_pile_needs_a_natural_pair(book: str) -> None:
    """*:frozen-by: a wild in the pile freezes it: no adding to a meld, only a natural pair."""
    rules, s = state(book, "KH KS", "JK 5S KD", ("KC KC KD",))
    acts = legal(rules, s)  # type: ignore[arg-type]
    assert TakePile(0, "add", 0, ()) not in acts
    assert refused(rules, s, TakePile(0, "add", 0, ())).clause == f"{book}:frozen-by"
    if rules.several_sets_same_rank:  # type: ignore[attr-defined]
        assert TakePile(0, "set", -1, C("KH KS")) in acts


@pytest.mark.parametrize(
    ("book", "blocked"),
    [("samba-es", True), ("samba-en", True), ("samba-fr", False), ("canasta-es", True)],
)
def test_black_three_on_top_blocks(book: str, blocked: bool) -> None:
    """*:blocked-by-top: a black three on top stops the next player (samba-fr silent: no block,
    but a black three has no rank to meld with, so the pile is still not taken)."""
    rules, s = state(book, "3S 3C", "5S 3C", ("KC KH KS",))
    assert not any(isinstance(a, TakePile) for a in legal(rules, s))  # type: ignore[arg-type]
    e = refused(rules, s, TakePile(0, "set", -1, C("3C 3S")))
    assert e.clause == (f"{book}:blocked-by-top" if blocked else f"{book}:pile-new-set-naturals")


@pytest.mark.parametrize(("book", "rule"), [("samba-es", True), ("samba-en", False)])
def test_one_card_rule(book: str, rule: bool) -> None:
    """*:pile-one-card-rule: samba-es forbids a player holding one card to take the pile while the
    stock lasts ('Pumba'); samba-en does not."""
    rules = R(book)
    s = make_state(rules, hands={0: "9H"}, melds={0: ("KC KH KS",)}, pile="5S 6S KD", step=DRAW)
    a = TakePile(0, "add", 0, ())
    if rule:
        with pytest.raises(IllegalAction) as e:
            RUMMY.apply(rules, s, a)
        assert e.value.clause == "samba-es:pile-one-card-rule"
    else:
        assert a in legal(rules, s)


@pytest.mark.parametrize(
    ("book", "held"), [("samba-es", True), ("samba-en", False), ("canasta-es", True)]
)
def test_rest_of_the_pile_after_opening(book: str, held: bool) -> None:
    """*:pile-rest-after-opening: opening with the pile, the rest is held until the opening melds
    are laid (samba-es, canasta-es) or comes into the hand at once (samba-en)."""
    rules = R(book)
    s = make_state(
        rules,
        hands={0: f"KH KS AH AS AD {FILLER}"},
        opened={0: False},
        pile="5S 7D KD",
        step=DRAW,
        minimums=(50, 50),
    )
    s2 = RUMMY.apply(rules, s, TakePile(0, "set", -1, C("KH KS")))
    if held:
        assert s2.held == C("5S 7D") and parse_card("5S") not in s2.hands[0]
    else:
        assert s2.held == () and parse_card("5S") in s2.hands[0]


def test_red_three_in_the_pile_goes_to_the_taker() -> None:
    """samba-es:upcard-cover leaves a red three under the upcard; whoever takes the pile lays it
    out (reading: without a replacement)."""
    rules = R("samba-es")
    s = make_state(
        rules, hands={0: f"KH KS {FILLER}"}, melds={0: ("7C 7D 7H",)}, pile="3H 9S 5S KD", step=DRAW
    )
    s2 = RUMMY.apply(rules, s, TakePile(0, "set", -1, C("KH KS")))
    assert s2.table[0].red_threes == C("3H")
    assert parse_card("3H") not in s2.hands[0]


def test_taking_an_unusable_upcard_is_priced() -> None:
    """samba-en: taking the upcard when unable to use it costs 50 (take_upcard_unable_to_use)."""
    rules, s = state("samba-en", "QH QS", "5S KD", ("7C 7D 7H",))
    e = refused(rules, s, TakePile(0, "set", -1, C("QH QS")))
    assert e.clause == "samba-en:pile-new-set-naturals" and e.penalty == 50


def test_taken_pile_top_card_forms_the_set() -> None:
    """The top card is used at once: it is in the new set, never in the hand."""
    rules, s = state("samba-fr", "KH KS", "5S KD")
    s2 = RUMMY.apply(rules, s, TakePile(0, "set", -1, C("KH KS")))  # type: ignore[arg-type]
    assert s2.table[0].melds[0].kind == SET
    assert parse_card("KD") not in s2.hands[0]


@pytest.mark.parametrize(("book", "layout"), [("samba-es", None), ("canasta-es", "three-pairs")])
def test_pair_takes_a_frozen_pile_onto_the_one_set_of_its_rank(
    book: str, layout: str | None
) -> None:
    """*:several-sets-same-rank = false with *:frozen-by: a frozen pile is taken with a natural
    pair matching its top card even when the side has a set of that rank; the three cards join
    that set (reading: the pair rule is not cancelled by the one-set-per-rank rule)."""
    rules = R(book)
    kw = {"layout": layout} if layout else {}
    s = make_state(
        rules,
        hands={0: f"KH KS {FILLER}"},
        melds={0: ("KC KC KD",)},
        pile="JK 5S KD",
        step=DRAW,
        **kw,
    )
    a = TakePile(0, "set", -1, C("KH KS"))
    assert a in legal(rules, s)
    s2 = RUMMY.apply(rules, s, a)
    assert [len(m.cards) for m in s2.table[0].melds] == [6]
