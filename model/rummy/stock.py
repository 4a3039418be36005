"""The stock: drawing, red threes drawn, and what happens when it runs out.

A normal draw takes `draw_count` cards from the top (*:draw-count). A red three drawn is laid out
at once and another card drawn in its place (*:red-three-initial-replacement for the owed
replacements of a dealt red three). The stock counts as exhausted when it is empty, or when it
holds fewer than `draw_count` cards and *:draw-short-stock is "hand_ends". Then *:stock-out
decides: "hand_ends" lets the player take the pile if able, and a `Draw` ends the hand;
"take_pile_if_able" makes the player take the pile if able, else the hand ends;
"forced_take_if_matches_meld" makes the player take the pile when its top card fits one of the
side's melds, else the hand ends. When the last card of the stock is a red three and
*:last-red-three-ends-hand holds, the player lays it out, may meld, and play stops without a
discard.
"""

from __future__ import annotations

from typing import Any

from arbitro.model.rummy.actions import Draw
from arbitro.model.rummy.cards import RED_THREES, inserted_top, is_red_three
from arbitro.model.rummy.going_out import dead_end
from arbitro.model.rummy.red_threes import lay_out, with_reds
from arbitro.model.rummy.refusal import Judge
from arbitro.model.rummy.scoring import end_hand
from arbitro.model.rummy.state import DRAW, State, after_draw, replaced
from arbitro.model.rummy.table import with_hand
from arbitro.model.rummy.tables import Tables
from arbitro.model.schema import RummyRules


def exhausted(t: Tables, state: State) -> bool:
    """Whether a normal draw is impossible. *:draw-short-stock."""
    n = len(state.stock)
    return n == 0 or (t.draw_short_stock == "hand_ends" and n < t.draw_count)


def draw_count(t: Tables, state: State) -> int:
    """How many cards the `Draw` action of this turn names. *:draw-count."""
    if exhausted(t, state):
        return t.draw_count
    return min(t.draw_count, len(state.stock))


def drawn(
    state: State, seat: int, count: int
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], list[int], bool]:
    """Draw `count` cards for `seat`, red threes set aside (each replaced by the next card): the
    hands after it, the stock left, the red threes met and whether the last card of the stock
    was one of them."""
    stock = state.stock
    hand = list(state.hands[seat])
    reds: list[int] = []
    pos = 0
    todo = count
    last_red = False
    while todo and pos < len(stock):
        c = stock[pos]
        pos += 1
        if is_red_three(c):
            reds.append(c)
            last_red = pos == len(stock)
        else:
            hand.append(c)
            todo -= 1
            last_red = False
    hands = (*state.hands[:seat], tuple(sorted(hand)), *state.hands[seat + 1 :])
    return hands, stock[pos:], reds, last_red


def draw_cards(rules: RummyRules, state: State, seat: int, count: int) -> tuple[State, bool]:
    """Draw `count` cards for `seat`, laying out and replacing red threes.

    Returns the new state and whether the last card of the stock was a red three that stops play
    (*:last-red-three-ends-hand).
    """
    hands, stock, reds, last_red = drawn(state, seat, count)
    s = replaced(state, hands=hands, stock=stock)
    s = lay_out(s, seat % state.sides, reds)
    return s, last_red and rules.last_red_three_ends_hand


def draw(t: Tables, s: State, a: Draw, j: Judge) -> State:
    """The Draw action: the turn's cards from the stock, or the end of the hand when the stock is
    exhausted and *:stock-out lets the hand end. *:draw-count, *:draw-short-stock."""
    r = t.rules
    av: tuple[Any, ...] = a  # read as a tuple: `a.count` is a property of an interpreted class
    count = av[2]  # not checked to be an int
    if s.step != DRAW:
        j.halt("draw_count", "the player has already drawn this turn", "draw_two_instead_of_one")
    # the rules' fields read through `t` where it has them (a compiled property, where `r.x` is
    # a lookup on an interpreted class), each where the rule needs it (`trace` notes the reads)
    if exhausted(t, s):
        if t.stock_out != "hand_ends":
            j.refuse("stock_out", "the stock is exhausted: the pile must be taken")
        if count != t.draw_count:
            j.refuse("draw_count", f"a draw is of {t.draw_count} card(s)")
        j.stop()
        return end_hand(t, s, "stock-out", -1)
    want = min(t.draw_count, len(s.stock))
    if count != want:
        act = "draw_two_instead_of_one" if count > want else None
        j.halt("draw_count", f"the draw is of {want} card(s), not {count}", act)
    stock = s.stock
    # a loop of the compiled code over the one or two cards (a slice of them, or `x in ...`, is
    # a generic call)
    red0, red1 = RED_THREES
    reds = False
    for k in range(want):
        c = stock[k]
        if c in (red0, red1):
            reds = True
    if reds:
        # the cards drawn one by one, the red threes laid out: the state built once
        seat = s.seat
        hands, rest, laid, last_red = drawn(s, seat, want)
        stop = last_red and r.last_red_three_ends_hand
        s2 = after_draw(s, hands, rest, with_reds(s.table, seat % s.sides, laid), stop)
    else:
        # no red three among them: the cards go straight to the hand, each put in its place
        hand = inserted_top(s.hands[s.seat], stock, want)
        s2 = after_draw(s, with_hand(s, hand), stock[want:])
    return dead_end(t, s2, False)
