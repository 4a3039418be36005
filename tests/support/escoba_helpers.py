"""Shared helpers for the Escoba tests: rules, card names, deck orders and hand-made states.

Conventions restated here from the model's documentation rather than imported, so a test breaks if
either side changes: seats are numbered clockwise (seat s+1 sits on the left of seat s), so the
player on seat s's right is seat s-1; cards are dealt one at a time starting on the dealer's right.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping

from arbitro.model.escoba import EscobaState, parse_cards
from arbitro.model.game import Seating
from arbitro.model.schema import EscobaRules, Options, rules_for

BOOK = "escoba-es"
TWO = Seating(2, 2)
THREE = Seating(3, 3)
FOUR = Seating(4, 4)
TEAMS = Seating(4, 2, "teams")
DECK = tuple(range(40))

# The book's capture values: 1..7 at face value, sota 8, caballo 9, rey 10 (Jugadores y cartas).
BOOK_VALUES = {"1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "S": 8, "C": 9, "R": 10}
RANK_OF_INDEX = "1234567SCR"


def rules(options: Options | None = None) -> EscobaRules:
    r = rules_for(BOOK, options)
    assert isinstance(r, EscobaRules)
    return r


def cards(names: str) -> tuple[int, ...]:
    return parse_cards(names)


def mask(names: str | Iterable[int]) -> int:
    cs = parse_cards(names) if isinstance(names, str) else tuple(names)
    m = 0
    for c in cs:
        m |= 1 << c
    return m


def value(c: int) -> int:
    """The book's capture value of a card (independent of the model's tables)."""
    return BOOK_VALUES[RANK_OF_INDEX[c % 10]]


def right_of(seat: int, players: int) -> int:
    return (seat - 1) % players


def deal_order(
    players: int,
    dealer: int,
    hands: Mapping[int, str],
    table: str,
    stock: str = "",
) -> list[int]:
    """A deck order giving these opening hands and table; the stock starts with ``stock``.

    Cards not named fill the rest of the stock in ascending order; a seat without a named hand
    gets the first unnamed cards.
    """
    named = [c for h in hands.values() for c in cards(h)] + list(cards(table)) + list(cards(stock))
    assert len(set(named)) == len(named)
    free = iter(c for c in DECK if c not in named)
    hand_lists = {
        s: list(cards(hands[s])) if s in hands else [next(free) for _ in range(3)]
        for s in range(players)
    }
    order: list[int] = []
    seat_order = list(itertools.islice(_turns(players, dealer), players))
    for i in range(3):
        for s in seat_order:
            order.append(hand_lists[s][i])
    order += list(cards(table)) + list(cards(stock)) + list(free)
    assert sorted(order) == list(DECK)
    return order


def _turns(players: int, dealer: int) -> Iterable[int]:
    seat = dealer
    while True:
        seat = right_of(seat, players)
        yield seat


def last_play_state(
    seating: Seating,
    *,
    dealer: int,
    last_card: str,
    table: str,
    piles: Mapping[int, str] | None = None,
    rest_to: int = 0,
    escobas: tuple[int, ...] | None = None,
    last_capturer: int = 0,  # a side, or -1 for nobody
    scores: tuple[int, ...] | None = None,
    deals: int,
) -> EscobaState:
    """A state in which the dealer is about to play the last card of the hand.

    Every card not in the dealer's hand, on the table or in ``piles`` goes to side ``rest_to``.
    """
    n, sides = seating.players, seating.sides
    named = {s: mask(p) for s, p in (piles or {}).items()}
    used = mask(last_card) | mask(table)
    for m in named.values():
        used |= m
    piles_l = [named.get(s, 0) for s in range(sides)]
    piles_l[rest_to] |= ((1 << 40) - 1) & ~used
    hands = [0] * n
    hands[dealer] = mask(last_card)
    return EscobaState(
        players=seating.players,
        sides=seating.sides,
        layout=seating.layout,
        phase="play",
        dealer=dealer,
        to_move=dealer,
        hand_number=1,
        deal_number=deals,
        hands=tuple(hands),
        table=mask(table),
        stock=(),
        piles=tuple(piles_l),
        escobas=escobas or (0,) * sides,
        last_capturer=last_capturer,
        scores=scores or (0,) * sides,
        last_points=None,
    )


def start_of_deal_state(
    seating: Seating,
    *,
    dealer: int,
    hands: Mapping[int, str],
    table: str,
    deal_number: int,
    deals: int,
    rest_to: int = 0,
) -> EscobaState:
    """A state just after a later deal: every seat holds three cards, the dealer's right to play.

    The stock gets the lowest unnamed cards it needs; the other unnamed cards were captured by
    side ``rest_to``; seats without a named hand get unnamed cards.
    """
    n, sides = seating.players, seating.sides
    named = [c for h in hands.values() for c in cards(h)] + list(cards(table))
    free = [c for c in DECK if c not in named]
    hand_masks = []
    for s in range(n):
        if s in hands:
            hand_masks.append(mask(hands[s]))
        else:
            hand_masks.append(mask(free[:3]))
            free = free[3:]
    stock_size = (deals - deal_number) * 3 * n
    stock, captured = tuple(free[:stock_size]), free[stock_size:]
    piles = [0] * sides
    piles[rest_to] = mask(captured)
    return EscobaState(
        players=seating.players,
        sides=seating.sides,
        layout=seating.layout,
        phase="play",
        dealer=dealer,
        to_move=right_of(dealer, n),
        hand_number=1,
        deal_number=deal_number,
        hands=tuple(hand_masks),
        table=mask(table),
        stock=stock,
        piles=tuple(piles),
        escobas=(0,) * sides,
        last_capturer=rest_to if captured else -1,
        scores=(0,) * sides,
        last_points=None,
    )


def play_out(
    r: EscobaRules, state: EscobaState, order: list[int], choose: Callable[[int], int]
) -> EscobaState:
    """Deal ``order`` and play the hand out through legal_actions and apply, ``choose`` picking."""
    from arbitro.model.escoba import ESCOBA

    s = ESCOBA.deal(r, state, order)
    while s.phase == "play":
        actions = ESCOBA.legal_actions(r, s)
        s = ESCOBA.apply(r, s, actions[choose(len(actions))])
    return s
