"""The pack, the seatings, the deal, the opening sweep, the later deals and the dealer."""

from __future__ import annotations

import random
import re

import pytest

from arbitro.model.errors import IllegalAction, MalformedInput, OptionError
from arbitro.model.escoba import ESCOBA, cards_of, deals_in_hand
from arbitro.model.escoba.cards import tables
from arbitro.model.escoba.state import NOBODY
from arbitro.model.game import Seating
from tests.support.escoba_helpers import (
    BOOK_VALUES,
    DECK,
    FOUR,
    TEAMS,
    THREE,
    TWO,
    cards,
    deal_order,
    mask,
    right_of,
    rules,
    value,
)

R = rules()


def test_pack_of_forty() -> None:
    """escoba-es:suits — four suits of ten cards, forty in all."""
    assert ESCOBA.deck(R, TWO) == DECK
    assert R.suits[0] == "oros"


def test_capture_values_as_the_book_lists_them() -> None:
    """escoba-es:capture-values — 1..7 at face value, sota 8, caballo 9, rey 10."""
    t = tables(R)
    assert [t.values[c] for c in DECK] == [value(c) for c in DECK]
    assert sorted(BOOK_VALUES.values()) == list(range(1, 11))


def test_seatings() -> None:
    """escoba-es:player-counts, escoba-es:team-player-counts — 2, 3, 4 alone, and 4 as two teams."""
    assert list(ESCOBA.seatings(R)) == [TWO, THREE, FOUR, TEAMS]
    with pytest.raises(OptionError):
        ESCOBA.new_game(R, Seating(5, 5))
    with pytest.raises(OptionError):
        ESCOBA.new_game(R, Seating(2, 1))


def test_teams_sit_facing() -> None:
    """escoba-es:team-player-counts — partners face each other: seats 0 and 2, seats 1 and 3."""
    assert [TEAMS.side_of(s) for s in range(4)] == [0, 1, 0, 1]


@pytest.mark.parametrize("seating", [TWO, THREE, FOUR])
@pytest.mark.parametrize("dealer", [0, 1])
def test_opening_deal(seating: Seating, dealer: int) -> None:
    """escoba-es:hand-size, escoba-es:table-initial — three cards each from the dealer's right, then four up."""
    n = seating.players
    order = list(DECK)
    random.Random(n * 10 + dealer).shuffle(order)
    s = ESCOBA.deal(R, ESCOBA.new_game(R, seating, dealer=dealer), order)
    seats = [right_of(dealer, n)]
    while len(seats) < n:
        seats.append(right_of(seats[-1], n))
    for i, seat in enumerate(seats):
        assert s.hands[seat] == mask(order[i : 3 * n : n])
    assert s.table.bit_count() in (0, 4)  # 0 only after an opening sweep
    assert list(s.stock) == order[3 * n + 4 :]
    assert s.deal_number == 1
    assert s.to_move == right_of(dealer, n)
    assert ESCOBA.to_move(s) == right_of(dealer, n)
    assert ESCOBA.violations(R, s) == []


def test_first_player_is_on_the_dealers_right() -> None:
    """escoba-es:play-direction — the dealer's right-hand neighbour plays first, then play goes right."""
    s = ESCOBA.deal(R, ESCOBA.new_game(R, FOUR, dealer=2), list(DECK))
    seen = []
    while s.deal_number == 1:
        seen.append(s.to_move)
        s = ESCOBA.apply(R, s, ESCOBA.legal_actions(R, s)[0])
    assert seen == [1, 0, 3, 2] * 3


def _table_sum(names: str) -> int:
    return sum(value(c) for c in cards(names))


def test_opening_sweep_of_fifteen() -> None:
    """escoba-es:opening-sweeps — four table cards worth 15: the dealer takes them, one escoba."""
    table = "1o 2c 3b Ce"
    assert _table_sum(table) == 15
    order = deal_order(2, 0, {}, table)
    s = ESCOBA.deal(R, ESCOBA.new_game(R, TWO, dealer=0), order)
    assert s.table == 0
    assert s.piles == (mask(table), 0)
    assert s.escobas == (1, 0)
    assert s.last_capturer == 0
    assert s.to_move == 1  # the dealer's right plays first, to a bare table
    assert ESCOBA.violations(R, s) == []


def test_opening_sweep_of_thirty() -> None:
    """escoba-es:opening-sweeps — four table cards worth 30: the dealer takes them, two escobas."""
    table = "Ro Rc Sb 2e"
    assert _table_sum(table) == 30
    order = deal_order(4, 1, {}, table)
    s = ESCOBA.deal(R, ESCOBA.new_game(R, TEAMS, dealer=1), order)
    assert s.table == 0
    assert s.piles == (0, mask(table))  # seat 1 is on side 1
    assert s.escobas == (0, 2)


@pytest.mark.parametrize("table", ["1o 2c 3b 4e", "1o 2c 3b Re", "Ro Rc Rb 1e", "Ro Rc Sb 3e"])
def test_no_opening_sweep(table: str) -> None:
    """escoba-es:opening-sweeps — other totals (10, 16, 31, 31) leave the four cards on the table."""
    assert _table_sum(table) not in (15, 30)
    s = ESCOBA.deal(R, ESCOBA.new_game(R, TWO), deal_order(2, 0, {}, table))
    assert s.table == mask(table)
    assert s.escobas == (0, 0)
    assert s.last_capturer == NOBODY


def test_a_table_holding_fifteen_is_not_swept() -> None:
    """escoba-es:opening-sweeps — only the total of all four counts: 7+S+1+1 = 17 stays."""
    table = "7o Sc 1b 1e"
    s = ESCOBA.deal(R, ESCOBA.new_game(R, TWO), deal_order(2, 0, {}, table))
    assert s.table == mask(table)


def _play_out(seating: Seating, seed: int) -> list[tuple[int, int, int]]:
    """(deal number, table size, stock size) at every deal of one random hand."""
    rng = random.Random(seed)
    order = list(DECK)
    rng.shuffle(order)
    s = ESCOBA.deal(R, ESCOBA.new_game(R, seating), order)
    seen = [(s.deal_number, s.table.bit_count(), len(s.stock))]
    while s.phase == "play":
        before_table = s.table
        acts = ESCOBA.legal_actions(R, s)
        act = acts[rng.randrange(len(acts))]
        s2 = ESCOBA.apply(R, s, act)
        if s2.phase == "play" and s2.deal_number != s.deal_number:
            after_play = before_table & ~act.capture | (0 if act.capture else 1 << act.card)
            assert s2.table == after_play  # redeal_table: no cards to the table
            assert all(h.bit_count() == 3 for h in s2.hands)
            seen.append((s2.deal_number, s2.table.bit_count(), len(s2.stock)))
        s = s2
    return seen


@pytest.mark.parametrize(
    ("seating", "deals"),
    [
        (TWO, 6),  # stated: after 6 deals with two players
        (FOUR, 3),  # stated: after 3 deals with four players
        (TEAMS, 3),
        (THREE, (40 - 4) // (3 * 3)),  # not stated: 36 cards after the table, 9 per deal
    ],
)
def test_deals_per_hand(seating: Seating, deals: int) -> None:
    """escoba-es:deals-per-hand, escoba-es:redeal-size, escoba-es:redeal-table — the stock runs out exactly."""
    assert deals_in_hand(R, seating.players) == deals
    for seed in range(3):
        seen = _play_out(seating, seed)
        assert [d for d, _, _ in seen] == list(range(1, deals + 1))
        n = seating.players
        assert [st for _, _, st in seen] == [40 - 4 - 3 * n * d for d in range(1, deals + 1)]
        assert seen[-1][2] == 0


def test_three_players_four_deals() -> None:
    """escoba-es:deals-per-hand — the inferred count for three players."""
    assert (40 - 4) % (3 * 3) == 0
    assert deals_in_hand(R, 3) == 4


def test_dealer_keeps_the_deal_then_it_passes_right() -> None:
    """escoba-es:dealer-rotation — one dealer for the whole hand, then the right-hand neighbour."""
    for seating in (TWO, THREE, FOUR):
        n = seating.players
        s = ESCOBA.new_game(R, seating, dealer=0)
        dealers = []
        rng = random.Random(n)
        while s.phase != "over" and len(dealers) < 5:
            order = list(DECK)
            rng.shuffle(order)
            s = ESCOBA.deal(R, s, order)
            dealers.append(s.dealer)
            while s.phase == "play":
                assert s.dealer == dealers[-1]
                acts = ESCOBA.legal_actions(R, s)
                s = ESCOBA.apply(R, s, acts[rng.randrange(len(acts))])
        expected = [0]
        while len(expected) < len(dealers):
            expected.append(right_of(expected[-1], n))
        assert dealers == expected
        if s.phase == "deal":
            assert s.dealer == right_of(dealers[-1], n)
            assert ESCOBA.to_move(s) == s.dealer


def test_bad_deck_orders_are_malformed() -> None:
    """escoba-es:suits — a deck order lists each of the 40 cards once."""
    g = ESCOBA.new_game(R, TWO)
    with pytest.raises(MalformedInput):
        ESCOBA.deal(R, g, list(range(39)))
    with pytest.raises(MalformedInput):
        ESCOBA.deal(R, g, [0, *range(1, 39), 0])
    with pytest.raises(MalformedInput):
        ESCOBA.deal(R, g, [*range(39), 40])
    with pytest.raises(MalformedInput):
        ESCOBA.new_game(R, TWO, dealer=2)


@pytest.mark.parametrize(("bad", "named"), [("7o", "'7o'"), (True, "True"), (1.0, "1.0")])
def test_a_deck_order_holding_a_non_card_is_malformed(bad: object, named: str) -> None:
    """escoba-es:suits — a deck order holds card numbers: anything else in the place of card 1 is
    named (True and 1.0 equal 1 but are not card numbers), whichever engine runs."""
    order = [0, bad, *range(2, 40)]
    with pytest.raises(MalformedInput, match=f"^{re.escape(named)} is not a card"):
        ESCOBA.deal(R, ESCOBA.new_game(R, TWO), order)


@pytest.mark.parametrize("dealer", ["0", True, 0.0])
def test_a_dealer_that_is_not_a_seat_number_is_malformed(dealer: object) -> None:
    """escoba-es:player-counts — the first dealer is a seat number, checked before it is used."""
    with pytest.raises(MalformedInput, match=f"^dealer {re.escape(repr(dealer))} is not a seat"):
        ESCOBA.new_game(R, TWO, dealer=dealer)  # type: ignore[arg-type]


def test_no_deal_while_a_hand_is_played() -> None:
    """escoba-es:redeal-size — the next hand is dealt only when this one is over."""
    s = ESCOBA.deal(R, ESCOBA.new_game(R, TWO), list(DECK))
    with pytest.raises(IllegalAction):
        ESCOBA.deal(R, s, list(DECK))


def test_cards_of_roundtrip() -> None:
    """escoba-es:suits — piles are sets of distinct cards."""
    assert cards_of(mask("1o 7o Re")) == cards("1o 7o Re")
