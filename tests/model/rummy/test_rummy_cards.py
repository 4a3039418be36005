"""Cards, names, the deck of each book and layout, and card points."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arbitro.model.errors import MalformedInput
from arbitro.model.rummy import JOKER, RUMMY, card, card_name, parse_card
from arbitro.model.rummy.cards import (
    is_black_three,
    is_natural,
    is_red_three,
    is_wild,
    point_table,
    remove,
)
from tests.support.rummy_helpers import BOOKS, R, seating


def test_names_round_trip() -> None:
    """Cards are rank*4+suit for the 52, JOKER=52; names follow arbitro's card schema."""
    for c in range(53):
        assert parse_card(card_name(c)) == c
    assert card_name(JOKER) == "JK"
    assert card_name(card("10", "H")) == "10H"
    assert card("A", "S") == 12 * 4 + 3
    with pytest.raises(MalformedInput):
        parse_card("1H")
    with pytest.raises(MalformedInput):
        parse_card("QX")


def test_card_classes() -> None:
    """Jokers and twos are wild; threes of hearts and diamonds are red, of clubs and spades black."""
    assert is_wild(JOKER) and is_wild(parse_card("2S"))
    assert is_red_three(parse_card("3H")) and is_red_three(parse_card("3D"))
    assert is_black_three(parse_card("3C")) and is_black_three(parse_card("3S"))
    assert all(is_natural(parse_card(f"{r}C")) for r in ("4", "7", "10", "J", "A"))
    assert not is_natural(parse_card("3C")) and not is_natural(parse_card("2C"))


@pytest.mark.parametrize(
    ("book", "layout", "size", "jokers"),
    [
        # samba-es:packs, jokers-per-pack: three packs and two jokers each, 3 * 54 = 162
        ("samba-es", None, 162, 6),
        # samba-en:packs: "162 cards in all"
        ("samba-en", None, 162, 6),
        # samba-fr:packs (reading three-packs): 162 cards
        ("samba-fr", "4-pairs", 162, 6),
        # canasta-es:packs: two packs with two jokers each, 108
        ("canasta-es", "two-pairs", 108, 4),
        # canasta-es:layouts: three pairs add a third 54-card pack
        ("canasta-es", "three-pairs", 162, 6),
    ],
)
def test_deck_size(book: str, layout: str | None, size: int, jokers: int) -> None:
    """*:packs, *:jokers-per-pack, canasta-es:layouts (the extra pack of three pairs)."""
    rules = R(book)
    deck = RUMMY.deck(rules, seating(rules, layout))
    assert len(deck) == size
    assert Counter(deck)[JOKER] == jokers
    assert list(deck) == sorted(deck)


def test_six_packs_reading_of_samba_fr() -> None:
    """samba-fr:packs, samba-fr:jokers-per-pack reading six-packs: six packs, one joker each."""
    rules = R("samba-fr", packs="six-packs", jokers_per_pack="six-packs")
    deck = RUMMY.deck(rules, seating(rules, "4-pairs"))
    assert len(deck) == 6 * 52 + 6
    assert Counter(deck)[JOKER] == 6


@pytest.mark.parametrize("book", BOOKS)
def test_point_table(book: str) -> None:
    """*:card-points: joker 50 (20 in samba-fr), two 20, ace 20, K-8 10, 7-4 5, black three 5."""
    pts = point_table(R(book).card_points)
    joker = 20 if book == "samba-fr" else 50
    assert pts[JOKER] == joker
    assert pts[parse_card("2H")] == 20
    assert pts[parse_card("AS")] == 20
    assert pts[parse_card("KD")] == pts[parse_card("8C")] == 10
    assert pts[parse_card("7D")] == pts[parse_card("4C")] == 5
    assert pts[parse_card("3C")] == 5
    assert pts[parse_card("3H")] == 0  # red threes are honours, scored apart


def test_remove_is_the_multiset_difference() -> None:
    """`remove` (a loop over the cards) gives what removing each card taken with `list.remove`
    gives, for cards taken in any order and several copies of a card, and refuses a card that is
    not there (or one copy too many) with ValueError, as `list.remove` does."""
    rng = random.Random(4)
    for _ in range(300):
        cards = sorted(rng.randrange(53) for _ in range(rng.randrange(1, 16)))
        taken = rng.sample(cards, rng.randrange(len(cards) + 1))
        want = cards[:]
        for c in taken:
            want.remove(c)
        assert remove(tuple(cards), taken) == tuple(want)
        missing = next(c for c in range(54) if c not in cards)
        with pytest.raises(ValueError):
            remove(tuple(cards), [*taken, missing])
        with pytest.raises(ValueError):
            remove(tuple(cards), [*cards, cards[0]])
