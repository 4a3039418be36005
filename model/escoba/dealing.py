"""Starting a game and dealing: the opening deal, the opening sweep, the later deals.

Replay convention (the book does not say how the three cards reach each player): cards are dealt
one at a time, going round in turn order from the player after the dealer, ``hand_size`` times;
then ``table_initial`` cards go face up to the table; the rest is the stock, and every later deal
takes cards from its front the same way. One deck order therefore fixes the whole hand.
Implements escoba-es:hand-size, escoba-es:table-initial, escoba-es:redeal-size,
escoba-es:redeal-table, escoba-es:deals-per-hand and escoba-es:opening-sweeps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from arbitro.model.errors import IllegalAction, MalformedInput, OptionError, SpecError
from arbitro.model.escoba.cards import Tables, pile_value, tables
from arbitro.model.escoba.seats import check_seating
from arbitro.model.escoba.state import NOBODY, EscobaState, put
from arbitro.model.game import Seating
from arbitro.model.schema import EscobaRules

_new_state: Final = tuple.__new__
"""Builds an EscobaState from its fields in order without the NamedTuple keyword machinery."""
_STATE: Final = EscobaState
"""The class, as a name compiled code reads directly (an imported name is looked up each time)."""


def deals_in_hand(rules: EscobaRules, players: int) -> int:
    """How many deals of cards a hand has with this many players."""
    for dc in rules.deals_per_hand:
        if dc.players == players:
            return dc.deals
    raise OptionError(f"{rules.cid('deals_per_hand')} gives no deal count for {players} players")


def check_deal_count(rules: EscobaRules, t: Tables, players: int) -> int:
    """The deal count, checked against the pack: the deals must use up the deck exactly."""
    deals = deals_in_hand(rules, players)
    used = (
        players * rules.hand_size
        + rules.table_initial
        + (deals - 1) * (players * rules.redeal_size + rules.redeal_table)
    )
    if used != len(t.deck):
        raise SpecError(
            f"{rules.rulebook}.toml",
            "deals_per_hand",
            f"{deals} deals to {players} players use {used} cards, but the pack has {len(t.deck)}",
        )
    return deals


def new_game(rules: EscobaRules, seating: Seating, dealer: object = 0) -> EscobaState:
    """A game before its first deal; ``dealer`` deals the first hand (the book draws for it).

    ``dealer`` is checked as a plain object before it is read as a seat number.
    """
    check_seating(rules, seating)
    if type(dealer) is not int or not 0 <= dealer < seating.players:
        raise MalformedInput(f"dealer {dealer!r} is not a seat of {seating.players} players")
    check_deal_count(rules, tables(rules), seating.players)
    zeros_seats = (0,) * seating.players
    zeros_sides = (0,) * seating.sides
    return EscobaState(
        players=seating.players,
        sides=seating.sides,
        layout=seating.layout,
        phase="deal",
        dealer=dealer,
        to_move=NOBODY,
        hand_number=0,
        deal_number=0,
        hands=zeros_seats,
        table=0,
        stock=(),
        piles=zeros_sides,
        escobas=zeros_sides,
        last_capturer=NOBODY,
        scores=zeros_sides,
        last_points=None,
    )


def deal_round(
    stock: tuple[int, ...], order: tuple[int, ...], players: int, size: int
) -> tuple[tuple[int, ...], int]:
    """Give ``size`` cards to each seat of ``order``, one at a time; the hands and cards used."""
    used = size * players
    if players == 2 and used <= len(stock):
        first = second = 0
        for k in range(0, used, 2):
            first |= 1 << stock[k]
            second |= 1 << stock[k + 1]
        return ((first, second) if order[0] == 0 else (second, first)), used
    # a stock shorter than the deal (a state read from outside may say so) deals what it holds
    end = min(used, len(stock))
    hands = [0] * players
    for i in range(players):
        # the seat dealt i-th gets every players-th card from the i-th on
        h = 0
        for k in range(i, end, players):
            h |= 1 << stock[k]
        hands[order[i]] = h
    return tuple(hands), used


def opening_sweep(rules: EscobaRules, t: Tables, table: int) -> int:
    """How many escobas the dealer scores for the opening table (0: no sweep)."""
    total = pile_value(t, table)
    for sweep in rules.opening_sweeps:
        if sweep.total == total:
            return sweep.escobas
    return 0


def check_order(t: Tables, order: Sequence[int]) -> tuple[int, ...]:
    """The deck order as a tuple; MalformedInput unless it is a permutation of the deck.

    Its items are checked as plain objects before anything reads them as card numbers.
    """
    try:
        cards = order if type(order) is tuple else tuple(order)
    except TypeError:
        raise MalformedInput("a deck order is a sequence of card numbers") from None
    # one pass over the order: each item a card of the deck (an int: True equals 1 but is no
    # card), and every card once (as many items as cards, and all the deck's cards met)
    items: tuple[object, ...] = cards
    full = t.full
    mask = 0
    for c in items:
        if type(c) is not int or not 0 <= c < 64 or not full >> c & 1:
            raise MalformedInput(f"{c!r} is not a card of the {len(t.deck)}-card deck")
        mask |= 1 << c
    if mask != full or len(cards) != t.size:
        raise MalformedInput(
            f"a deck order lists each of the {len(t.deck)} cards once; got {len(cards)} entries"
            f" with {mask.bit_count()} different cards"
        )
    return cards


def deal(rules: EscobaRules, state: EscobaState, order: Sequence[int]) -> EscobaState:
    """Start the next hand from ``order`` (top card first): opening deal, then any opening sweep."""
    t = tables(rules)
    cards = check_order(t, order)
    if state.phase != "deal":
        clause = rules.cid("target_score") if state.phase == "over" else rules.cid("redeal_size")
        why = "the game is over" if state.phase == "over" else "the hand in progress is not over"
        raise IllegalAction(cards, clause=clause, reason=f"cannot deal: {why}")
    n = state.players
    sides = state.sides
    if n not in t.deal_checked:  # checked once per player count: the rules do not change
        check_deal_count(rules, t, n)
        t.deal_checked.add(n)
    dealer = state.dealer
    seats = t.turn_orders[n][dealer]
    hands, used = deal_round(cards, seats, n, t.hand_size)
    table = 0
    rest = used + t.table_initial
    for c in cards[used:rest]:
        table |= 1 << c
    stock = cards[rest:]
    piles = t.zeros[sides] if sides < len(t.zeros) else (0,) * sides
    escobas = piles
    last = NOBODY
    sweeps = opening_sweep(rules, t, table)
    if sweeps:
        side = dealer % sides  # the dealer's side (Seating.side_of)
        piles = put(piles, side, table)
        escobas = put(escobas, side, sweeps)
        last = side
        table = 0
    return _new_state(
        _STATE,
        (n, sides, state.layout, "play", dealer, seats[0], state.hand_number + 1, 1, hands, table,
         stock, piles, escobas, last, state.scores, state.last_points),
    )  # fmt: skip
