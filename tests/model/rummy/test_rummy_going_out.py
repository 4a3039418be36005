"""Going out: the canastas it needs, the final discard, the wait after a clean canasta, asking the
partner, black threes laid to go out."""

from __future__ import annotations

import pytest

from arbitro.model.errors import IllegalAction
from arbitro.model.rummy import RUMMY, AddToMeld, Answer, AskPartner, Discard, LayMeld, parse_card
from tests.support.rummy_helpers import SAMBAS, C, R, legal, make_state

SEVENS = "7C 7D 7H 7S 7C 7D 7H"  # a clean canasta (three packs)
EIGHTS = "8C 8D 8H 8S 8C 2C JK"  # a dirty one


def ready(
    book: str,
    melds: tuple[str, ...],
    hand: str = "9H 5C",
    options: dict[str, str] | None = None,
    **kw: object,
) -> tuple[object, object]:
    """Seat 0 to play with `hand`, its side opened with `melds`; `kw` sets turn fields."""
    rules = R(book, **(options or {}))
    s = make_state(
        rules, hands={0: hand}, melds={0: melds}, opened={0: True}, **_layout(book), **kw
    )  # type: ignore[arg-type]
    return rules, s


def _layout(book: str) -> dict[str, object]:
    return {"layout": "two-pairs"} if book == "canasta-es" else {}


def nines(s: object) -> int:
    """The index of the side's set of nines (melds are kept sorted)."""
    return next(i for i, m in enumerate(s.table[0].melds) if m.key == 7)  # type: ignore[attr-defined]


def refusal(rules: object, s: object, a: object) -> IllegalAction:
    with pytest.raises(IllegalAction) as e:
        RUMMY.apply(rules, s, a)  # type: ignore[arg-type]
    return e.value


@pytest.mark.parametrize(
    ("book", "needed"),
    [("samba-es", 1), ("samba-en", 2), ("samba-fr", 2)],
)
def test_canastas_needed_to_go_out(book: str, needed: int) -> None:
    """*:go-out-min-completed: samba-es needs one finished canasta or samba, samba-en and
    samba-fr two. With one canasta, adding the 9 and discarding the 5 goes out only in samba-es."""
    rules, s = ready(book, (SEVENS, "9C 9D 9S"))
    add9 = AddToMeld(0, nines(s), parse_card("9H"))
    if needed == 1:
        s2 = RUMMY.apply(rules, s, add9)  # type: ignore[arg-type]
        end = RUMMY.apply(rules, s2, Discard(0, parse_card("5C")))  # type: ignore[arg-type]
        assert end.result.reason == "went-out"
        assert dict(end.result.categories[0])["going-out"] == 200  # samba-es:bonus-going-out
    else:
        assert add9 not in legal(rules, s)  # type: ignore[arg-type]
        assert refusal(rules, s, add9).clause == f"{book}:go-out-min-completed"
        # with a second canasta it works
        rules, s = ready(book, (SEVENS, "KC KD KH KS KC KD KH", "9C 9D 9S"))
        assert AddToMeld(0, nines(s), parse_card("9H")) in legal(rules, s)  # type: ignore[arg-type]


def test_canasta_needs_a_clean_and_a_dirty_canasta_and_a_discard() -> None:
    """canasta-es:go-out-min-clean = 1, go-out-min-dirty = 1, go-out-discard = required."""
    rules, s = ready("canasta-es", (SEVENS, EIGHTS, "9C 9D 9S"), clean_start=1)
    add9 = AddToMeld(0, nines(s), parse_card("9H"))
    s2 = RUMMY.apply(rules, s, add9)  # type: ignore[arg-type]
    end = RUMMY.apply(rules, s2, Discard(0, parse_card("5C")))  # type: ignore[arg-type]
    assert end.result.reason == "went-out"
    # canasta-es:bonus-going-out = 100 (honores reading)
    assert dict(end.result.categories[0])["going-out"] == 100
    # going out by melding the last card is refused: a discard is required
    rules, s = ready("canasta-es", (SEVENS, EIGHTS, "9C 9D 9S"), hand="9H", clean_start=1)
    assert (
        refusal(rules, s, AddToMeld(0, nines(s), parse_card("9H"))).clause
        == "canasta-es:go-out-discard"
    )
    # two clean canastas and no dirty one are not enough
    rules, s = ready("canasta-es", (SEVENS, "KC KD KH KS KC KD KH", "9C 9D 9S"), clean_start=2)
    assert (
        refusal(rules, s, AddToMeld(0, nines(s), parse_card("9H"))).clause
        == "canasta-es:go-out-min-dirty"
    )


def test_canasta_wait_after_completing_the_clean_canasta() -> None:
    """canasta-es:go-out-wait-after-clean: the clean canasta finished in this turn does not let the
    player go out in the same turn."""
    rules, s = ready("canasta-es", (EIGHTS, "7C 7D 7H 7S 7C 7D"), hand="7H 5C", clean_start=0)
    add7 = AddToMeld(0, 0, parse_card("7H"))
    assert refusal(rules, s, add7).clause == "canasta-es:go-out-wait-after-clean"
    # with a card to spare the canasta is finished and the discard does not go out
    rules, s = ready("canasta-es", (EIGHTS, "7C 7D 7H 7S 7C 7D"), hand="7H 5C 6D", clean_start=0)
    s2 = RUMMY.apply(rules, s, add7)  # type: ignore[arg-type]
    assert Discard(0, parse_card("5C")) in legal(rules, s2)  # type: ignore[arg-type]


def test_going_out_by_melding_or_discarding() -> None:
    """*:go-out-discard: samba-es optional (meld the last card or discard it); samba-fr reading
    forbidden (meld everything)."""
    two = (SEVENS, "KC KD KH KS KC KD KH", "9C 9D 9S")
    rules, s = ready("samba-es", two, hand="9H")
    end = RUMMY.apply(rules, s, AddToMeld(0, nines(s), parse_card("9H")))  # type: ignore[arg-type]
    assert end.result.reason == "went-out"
    rules, s = ready("samba-fr", two, options={"go_out_discard": "forbidden"})
    e = refusal(rules, s, AddToMeld(0, nines(s), parse_card("9H")))
    assert e.clause == "samba-fr:go-out-discard"
    rules, s = ready("samba-fr", two, hand="9H", options={"go_out_discard": "forbidden"})
    assert (
        RUMMY.apply(rules, s, AddToMeld(0, nines(s), parse_card("9H"))).result.reason == "went-out"
    )  # type: ignore[arg-type]


@pytest.mark.parametrize("book", ["samba-es", "samba-en"])
def test_asking_the_partner_binds(book: str) -> None:
    """*:ask-partner: asking is for a player who can go out; "yes" obliges going out, "no" forbids
    it (penalty go_out_after_refusal, 100 in both books)."""
    two = (SEVENS, "KC KD KH KS KC KD KH", "9C 9D 9S")
    rules, s = ready(book, two)
    assert AskPartner(0) in legal(rules, s)  # type: ignore[arg-type]
    asked = RUMMY.apply(rules, s, AskPartner(0))  # type: ignore[arg-type]
    assert RUMMY.to_move(asked) == 2  # the partner answers
    assert legal(rules, asked) == (Answer(2, True), Answer(2, False))
    yes = RUMMY.apply(rules, asked, Answer(2, True))
    assert legal(rules, yes) == (AddToMeld(0, nines(s), parse_card("9H")),)
    no = RUMMY.apply(rules, asked, Answer(2, False))
    e = refusal(rules, no, AddToMeld(0, nines(s), parse_card("9H")))
    assert e.clause == f"{book}:ask-partner" and e.penalty == 100
    assert Discard(0, parse_card("5C")) in legal(rules, no)


@pytest.mark.parametrize("book", ["samba-es", "samba-en", "canasta-es"])
def test_asking_when_unable_is_priced(book: str) -> None:
    """*:ask-partner; asking to go out and being unable costs 100 (ask_and_cannot_go_out)."""
    rules, s = ready(book, ("9C 9D 9S",))
    assert AskPartner(0) not in legal(rules, s)  # type: ignore[arg-type]
    e = refusal(rules, s, AskPartner(0))
    assert e.clause == f"{book}:ask-partner" and e.penalty == 100


def test_no_asking_in_samba_fr_or_without_a_partner() -> None:
    """samba-fr:ask-partner = false; canasta-es two-players: nobody to ask."""
    rules, s = ready("samba-fr", (SEVENS, "KC KD KH KS KC KD KH", "9C 9D 9S"))
    assert refusal(rules, s, AskPartner(0)).clause == "samba-fr:ask-partner"
    rules = R("canasta-es")
    s = make_state(
        rules, layout="two-players", hands={0: "9H 5C"}, melds={0: (SEVENS[:-3], "9C 9D 9S")}
    )
    assert refusal(rules, s, AskPartner(0)).clause == "canasta-es:ask-partner"


@pytest.mark.parametrize(("book", "wilds"), [("samba-es", False), ("samba-en", True)])
def test_black_threes_laid_to_go_out(book: str, wilds: bool) -> None:
    """*:black-threes-meld = going_out_only, *:black-three-meld-wilds: black threes with a joker go
    out in samba-en; samba-es takes no wild in them, so the joker is the final discard."""
    two = (SEVENS, "KC KD KH KS KC KD KH")
    rules, s = ready(book, two, hand="3C 3S 3C JK")
    full = LayMeld(0, C("3C 3S 3C JK"))
    if wilds:
        end = RUMMY.apply(rules, s, full)  # type: ignore[arg-type]
        assert end.result.reason == "went-out"
    else:
        assert refusal(rules, s, full).clause == "samba-es:black-three-meld-wilds"
        s2 = RUMMY.apply(rules, s, LayMeld(0, C("3C 3S 3C")))  # type: ignore[arg-type]
        assert legal(rules, s2) == (Discard(0, 52),)  # type: ignore[arg-type]
        end = RUMMY.apply(rules, s2, Discard(0, 52))  # type: ignore[arg-type]
        assert end.result.reason == "went-out"


@pytest.mark.parametrize("book", SAMBAS)
def test_a_discard_that_empties_the_hand_needs_the_canastas(book: str) -> None:
    """*:go-out-min-completed: a player without the canastas keeps at least one card: with two
    cards and no canasta, neither card can be melded away."""
    rules, s = ready(book, ("9C 9D 9S",))
    acts = legal(rules, s)  # type: ignore[arg-type]
    assert AddToMeld(0, nines(s), parse_card("9H")) not in acts
    assert Discard(0, parse_card("5C")) in acts and Discard(0, parse_card("9H")) in acts
