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

from arbitro.model.rummy.cards import is_red_three
from arbitro.model.rummy.red_threes import lay_out
from arbitro.model.rummy.state import State
from arbitro.model.schema import RummyRules


def exhausted(rules: RummyRules, state: State) -> bool:
    """Whether a normal draw is impossible. *:draw-short-stock."""
    n = len(state.stock)
    return n == 0 or (rules.draw_short_stock == "hand_ends" and n < rules.draw_count)


def draw_size(rules: RummyRules, state: State) -> int:
    """How many cards the `Draw` action of this turn names. *:draw-count."""
    if exhausted(rules, state):
        return rules.draw_count
    return min(rules.draw_count, len(state.stock))


def draw_cards(rules: RummyRules, state: State, seat: int, count: int) -> tuple[State, bool]:
    """Draw `count` cards for `seat`, laying out and replacing red threes.

    Returns the new state and whether the last card of the stock was a red three that stops play
    (*:last-red-three-ends-hand).
    """
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
    s = state._replace(hands=hands, stock=stock[pos:])
    s = lay_out(s, seat % state.sides, reds)
    return s, last_red and rules.last_red_three_ends_hand
