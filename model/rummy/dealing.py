"""Seatings, the deck, a new game and the deal of a hand from an explicit deck order.

Seat s belongs to side s % sides and play passes to seat + 1 (the book's direction, left or right,
only names that neighbour). The player after the dealer plays first. Cards are dealt one at a
time from the top of the order, starting with the first player. Then red threes in the dealt
hands are laid out (replaced at once, or owed until the owner's first turn), then the upcard is
turned, covered while it belongs to an `upcard_cover` class. The opening minimum of each side is
fixed at the deal from its score (*:opening-minimums); a score no band covers is a gap in the book
and raises `RuleGap`.

Implements *:layouts, *:play-direction, *:dealer-rotation, *:upcard-cover,
*:red-three-initial-replacement, *:opening-minimums.
"""

from __future__ import annotations

from collections.abc import Sequence

from arbitro.model.errors import ArbitroError, MalformedInput
from arbitro.model.game import Seating
from arbitro.model.rummy.cards import is_red_three
from arbitro.model.rummy.state import DRAW, EMPTY_SIDE, TURN_START, Side, State, new_state
from arbitro.model.rummy.tables import tables
from arbitro.model.schema import Layout, RummyRules


class RuleGap(ArbitroError, ValueError):
    """The rules give no answer in a reachable situation: a finding about the book, with its clause."""

    def __init__(self, clause: str, reason: str) -> None:
        self.clause = clause
        self.reason = reason
        super().__init__(f"{reason} ({clause})")


def seatings(rules: RummyRules) -> tuple[Seating, ...]:
    """One seating per layout of the book. *:layouts."""
    return tuple(Seating(lay.players, lay.sides, lay.name) for lay in rules.layouts)


def layout_of(rules: RummyRules, players: int, sides: int, name: str) -> Layout:
    """The layout a seating names (by name, else by players and sides)."""
    for lay in rules.layouts:
        if lay.name == name and lay.players == players and lay.sides == sides:
            return lay
    for lay in rules.layouts:
        if not name and lay.players == players and lay.sides == sides:
            return lay
    known = ", ".join(f"{x.name} ({x.players} players, {x.sides} sides)" for x in rules.layouts)
    raise MalformedInput(
        f"{rules.rulebook} has no layout {name!r} for {players} players in {sides} sides; layouts: {known}"
    )


def new_game(rules: RummyRules, seating: Seating, dealer: int = 0) -> State:
    """A game before its first deal."""
    lay = layout_of(rules, seating.players, seating.sides, seating.layout)
    if not 0 <= dealer < seating.players:
        raise MalformedInput(f"dealer must be a seat from 0 to {seating.players - 1}, got {dealer}")
    return new_state(lay.players, lay.sides, lay.name, dealer)


def deck(rules: RummyRules, seating: Seating) -> tuple[int, ...]:
    """The sorted deck of the seating's layout. *:packs, *:jokers-per-pack."""
    lay = layout_of(rules, seating.players, seating.sides, seating.layout)
    return tables(rules).deck(lay)


def opening_minimum(rules: RummyRules, score: int) -> int:
    """The points a side with this score must reach with its opening. *:opening-minimums,
    *:opening-rule (a book that asks to go past the minimum needs one point more than it)."""
    for band in rules.opening_minimums:
        if (band.low is None or score >= band.low) and (band.high is None or score <= band.high):
            return band.minimum + (1 if rules.opening_rule == "exceed" else 0)
    raise RuleGap(
        rules.cid("opening_minimums"), f"no opening minimum is given for a side on {score} points"
    )


def deal(rules: RummyRules, state: State, order: Sequence[int]) -> State:
    """Start the next hand from `order` (top of the stock first)."""
    if state.phase != "deal":
        raise MalformedInput(f"the game is in phase {state.phase!r}, not 'deal'")
    t = tables(rules)
    lay = layout_of(rules, state.players, state.sides, state.layout)
    want = t.deck(lay)
    try:
        got = tuple(sorted(int(c) for c in order))
    except (TypeError, ValueError):
        raise MalformedInput("a deck order is a sequence of card numbers") from None
    if got != want:
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
    s = state._replace(
        phase="play",
        result=state.result,
        hands=tuple(tuple(sorted(h)) for h in hands),
        stock=tuple(int(c) for c in stock[pos:]),
        pile=tuple(int(c) for c in pile),
        table=table,
        minimums=minimums,
        owed=tuple(owed),
        pile_taken=False,
        seat=first,
        step=DRAW,
        **TURN_START,
    )
    from arbitro.model.rummy.engine import begin_turn  # the turn machinery lives in the engine

    return begin_turn(rules, s, first)
