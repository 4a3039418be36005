"""The deal of a hand from an explicit deck order, and the opening minimum it fixes.

The player after the dealer plays first (seats and layouts: see `layouts`). Cards are dealt one at a
time from the top of the order, starting with the first player. Then red threes in the dealt
hands are laid out (replaced at once, or owed until the owner's first turn), then the upcard is
turned, covered while it belongs to an `upcard_cover` class. The opening minimum of each side is
fixed at the deal from its score (*:opening-minimums); a score no band covers takes
*:opening-minimum-past-table, and where that gives none it is a gap in the book and raises `RuleGap`.

Implements *:dealer-rotation, *:upcard-cover, *:red-three-initial-replacement,
*:opening-minimums, *:opening-rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from arbitro.model.errors import ArbitroError, MalformedInput
from arbitro.model.rummy.cards import is_red_three
from arbitro.model.rummy.layouts import layout_of
from arbitro.model.rummy.state import DRAW, EMPTY_SIDE, Side, State
from arbitro.model.rummy.tables import Tables, tables
from arbitro.model.rummy.turn import begin_turn
from arbitro.model.schema import RummyRules

_new: Final[Any] = tuple.__new__
_STATE: Final[Any] = State


class RuleGap(ArbitroError, ValueError):
    """The rules give no answer in a reachable situation: a finding about the book, with its clause."""

    def __init__(self, clause: str, reason: str) -> None:
        self.clause = clause
        self.reason = reason
        super().__init__(f"{reason} ({clause})")


def opening_minimum(rules: RummyRules, score: int) -> int:
    """The points a side with this score must reach with its opening. *:opening-minimums,
    *:opening-rule (a book that asks to go past the minimum needs one point more than it)."""
    for band in rules.opening_minimums:
        if (band.low is None or score >= band.low) and (band.high is None or score <= band.high):
            return band.minimum + (1 if rules.opening_rule == "exceed" else 0)
    if rules.opening_minimum_past_table >= 0:
        return rules.opening_minimum_past_table + (1 if rules.opening_rule == "exceed" else 0)
    raise RuleGap(
        rules.cid("opening_minimums"), f"no opening minimum is given for a side on {score} points"
    )


def deal(rules: RummyRules, state: State, order: Sequence[int]) -> State:
    """Start the next hand from `order` (top of the stock first)."""
    return deal_with(tables(rules), rules, state, order)


def deal_with(t: Tables, rules: RummyRules, state: State, order: Sequence[int]) -> State:
    """`deal` with the rules' tables given (the clause trace hands in tables that note reads)."""
    if state.phase != "deal":
        raise MalformedInput(f"the game is in phase {state.phase!r}, not 'deal'")
    lay = layout_of(rules, state.players, state.sides, state.layout)
    want = t.deck(lay)
    if _all_ints(order):
        # each card an int already (`int(c)` is the card itself): the list sorted natively
        # (a count of each card by a loop of the compiled code cost more than this sort)
        same = tuple(sorted(order)) == want
    else:
        try:
            got = tuple(sorted(int(c) for c in order))
        except (TypeError, ValueError):
            raise MalformedInput("a deck order is a sequence of card numbers") from None
        same = got == want
    if not same:
        raise MalformedInput(
            f"a deck order must be a permutation of the {len(want)}-card deck; "
            f"got {len(order)} cards that are not"
        )
    minimums = tuple(opening_minimum(rules, s) for s in state.scores)
    n = state.players
    first = (state.dealer + 1) % n
    need = n * lay.hand_size
    if need + 1 > len(order):
        raise MalformedInput(
            f"the deck has {len(order)} cards, too few to deal {need} and an upcard"
        )
    hands: list[list[int]] = [[] for _ in range(n)]
    for i in range(need):
        hands[(first + i) % n].append(int(order[i]))
    stock = list(order[need:])
    pos = 0
    reds: list[list[int]] = [[] for _ in range(state.sides)]
    owed = [0] * n
    for k in range(n):
        seat = (first + k) % n
        side = seat % state.sides
        threes = [c for c in hands[seat] if is_red_three(c)]
        for c in threes:
            hands[seat].remove(c)
            reds[side].append(c)
        if rules.red_three_initial_replacement == "at_deal":
            todo = len(threes)
            while todo and pos < len(stock):
                c = stock[pos]
                pos += 1
                if is_red_three(c):
                    reds[side].append(c)
                else:
                    hands[seat].append(c)
                    todo -= 1
        else:
            owed[seat] = len(threes)
    if pos >= len(stock):
        raise MalformedInput("the deck ran out while dealing")
    pile = [stock[pos]]
    pos += 1
    while t.cover[pile[-1]] and pos < len(stock):
        pile.append(stock[pos])
        pos += 1
    table = tuple(Side((), tuple(sorted(r)), False) if r else EMPTY_SIDE for r in reds)
    s = _dealt(
        state,
        tuple(tuple(sorted(h)) for h in hands),
        tuple(int(c) for c in stock[pos:]),
        tuple(int(c) for c in pile),
        table,
        minimums,
        tuple(owed),
        first,
    )
    return begin_turn(t, s, first)


def _all_ints(order: Sequence[int]) -> bool:
    """Whether `order` is a list or tuple of ints (not of bools or other numbers)."""
    if type(order) is not list and type(order) is not tuple:
        return False
    return all(type(c) is int for c in order)


def _dealt(
    state: State,
    hands: tuple[tuple[int, ...], ...],
    stock: tuple[int, ...],
    pile: tuple[int, ...],
    table: tuple[Side, ...],
    minimums: tuple[int, ...],
    owed: tuple[int, ...],
    seat: int,
) -> State:
    """`replaced(state, phase="play", hands=..., stock=..., pile=..., table=..., minimums=...,
    owed=..., pile_taken=False, seat=..., step=DRAW, **TURN_START)`, field by field (as the
    builders of `state`): a call with keyword arguments went through the interpreter's calling
    convention and built a dictionary of them."""
    s: tuple[Any, ...] = state
    # fmt: off
    got: State = _new(_STATE, (
        s[0], s[1], s[2], "play", s[4], s[5], s[6], s[7], hands, stock, pile, table, minimums,
        owed, False, seat, DRAW, False, (), 0, False, "", False, 0, False, -1, -1,
    ))
    # fmt: on
    return got
