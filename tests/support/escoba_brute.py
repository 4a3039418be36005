"""An independent Escoba hand walker for the explorer's tests, written from the book's rules.

It keeps a hand as plain lists and sets, finds captures by trying every combination of table
cards (no polynomials), deals and passes the turn by the conventions the model documents
(restated here, not imported): cards go one at a time starting with the dealer's right-hand
neighbour, who also plays first; seat s's right-hand neighbour is seat s - 1; later deals put
`redeal_table` cards on the table; an opening table worth a sweep total goes to the dealer.
It counts action sequences (perft) and lists every reachable situation of a hand.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from arbitro.model.schema import EscobaRules

RANK_LETTERS = "1234567SCR"
BOOK_VALUES = {"1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "S": 8, "C": 9, "R": 10}


def value(card: int) -> int:
    return BOOK_VALUES[RANK_LETTERS[card % 10]]


@dataclass(frozen=True)
class Spot:
    """A moment of a hand: hands (sorted tuples), table, stock, piles per side, escobas, mover."""

    hands: tuple[tuple[int, ...], ...]
    table: frozenset[int]
    stock: tuple[int, ...]
    piles: tuple[frozenset[int], ...]
    escobas: tuple[int, ...]
    last: int
    to_move: int


def order_from(dealer: int, players: int) -> list[int]:
    seats = []
    s = dealer
    for _ in range(players):
        s = (s - 1) % players
        seats.append(s)
    return seats


def deal(r: EscobaRules, order: list[int], players: int, dealer: int = 0) -> Spot:
    seats = order_from(dealer, players)
    hands: list[list[int]] = [[] for _ in range(players)]
    i = 0
    for _ in range(r.hand_size):
        for s in seats:
            hands[s].append(order[i])
            i += 1
    table = frozenset(order[i : i + r.table_initial])
    stock = tuple(order[i + r.table_initial :])
    piles = [frozenset[int]() for _ in range(players)]
    escobas = [0] * players
    last = -1
    total = sum(value(c) for c in table)
    for sweep in r.opening_sweeps:
        if sweep.total == total:
            piles[dealer] = table
            escobas[dealer] = sweep.escobas
            table = frozenset()
            last = dealer
    return Spot(
        tuple(tuple(sorted(h)) for h in hands),
        table,
        stock,
        tuple(piles),
        tuple(escobas),
        last,
        seats[0],
    )


def moves(r: EscobaRules, s: Spot) -> Iterator[tuple[int, frozenset[int]]]:
    """(card, group taken) for every legal play; an empty group lays the card."""
    for c in s.hands[s.to_move]:
        need = r.capture_sum - value(c)
        groups = [
            frozenset(g)
            for k in range(1, len(s.table) + 1)
            for g in itertools.combinations(sorted(s.table), k)
            if sum(value(x) for x in g) == need
        ]
        if not groups or not r.capture_forced:
            yield c, frozenset()
        yield from ((c, g) for g in groups)


def play(r: EscobaRules, s: Spot, card: int, group: frozenset[int], dealer: int = 0) -> Spot:
    players = len(s.hands)
    hands = [list(h) for h in s.hands]
    hands[s.to_move].remove(card)
    table = set(s.table)
    piles = list(s.piles)
    escobas = list(s.escobas)
    last = s.last
    if group:
        table -= group
        piles[s.to_move] = piles[s.to_move] | group | {card}
        if not table:
            escobas[s.to_move] += 1
        last = s.to_move
    else:
        table.add(card)
    to_move = (s.to_move - 1) % players
    stock = s.stock
    if not any(hands) and stock:
        seats = order_from(dealer, players)
        i = 0
        for _ in range(r.redeal_size):
            for seat in seats:
                hands[seat].append(stock[i])
                i += 1
        table |= set(stock[i : i + r.redeal_table])
        stock = stock[i + r.redeal_table :]
        to_move = seats[0]
    return Spot(
        tuple(tuple(sorted(h)) for h in hands),
        frozenset(table),
        stock,
        tuple(piles),
        tuple(escobas),
        last,
        to_move,
    )


def over(s: Spot) -> bool:
    return not any(s.hands) and not s.stock


def perft(r: EscobaRules, s: Spot, depth: int) -> int:
    if depth == 0:
        return 1
    if over(s):
        return 0
    return sum(perft(r, play(r, s, c, g), depth - 1) for c, g in moves(r, s))


def reachable(r: EscobaRules, start: Spot) -> tuple[set[Spot], list[Spot]]:
    """Every situation of the hand from ``start``, and the finished ones (before the leftovers)."""
    seen = {start}
    todo = [start]
    ends = []
    while todo:
        s = todo.pop()
        if over(s):
            ends.append(s)
            continue
        for c, g in moves(r, s):
            t = play(r, s, c, g)
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen, ends
