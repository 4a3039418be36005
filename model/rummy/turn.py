"""The start and the end of a turn: the turn passes, owed red threes are replaced, an exhausted
stock may end the hand; a discard ends the turn (or goes out), a stop ends the hand.

A turn starts at step `draw` with every per-turn field reset and the clean canastas of the side
counted (*:go-out-wait-after-clean). A player owed replacements for red threes dealt draws them
first (*:red-three-initial-replacement). When the stock is exhausted and *:stock-out does not let
the player draw to end the hand, the hand ends at once unless the player can take the pile. A
turn ends with a discard from hand; discarding the last card goes out (see `going_out`). After
the stock's last card was a red three (*:last-red-three-ends-hand) play stops without a discard.
"""

from __future__ import annotations

from typing import Any

from arbitro.model.rummy.actions import Discard
from arbitro.model.rummy.going_out import go_out_problems
from arbitro.model.rummy.melding import held_one
from arbitro.model.rummy.pile import can_take
from arbitro.model.rummy.red_threes import with_reds
from arbitro.model.rummy.refusal import LISTED, STRICT, Judge
from arbitro.model.rummy.scoring import end_hand
from arbitro.model.rummy.state import DRAW, PLAY, State, next_turn, replaced
from arbitro.model.rummy.stock import drawn, exhausted
from arbitro.model.rummy.table import clean_count, opened, pending, with_hand
from arbitro.model.rummy.tables import Tables


def begin_turn(
    t: Tables,
    state: State,
    seat: int,
    hands: tuple[tuple[int, ...], ...] | None = None,
    pile: tuple[int, ...] | None = None,
) -> State:
    """Hand the turn to `seat` (with the hands and pile given, else the state's): owed red-three
    replacements, then a stock-out check. *:red-three-initial-replacement, *:stock-out."""
    rules = t.rules
    side = seat % state.sides
    s = next_turn(
        state,
        seat,
        state.hands if hands is None else hands,
        state.pile if pile is None else pile,
        clean_count(t, state.table[side].melds, side),
    )
    owed = s.owed[seat]
    if owed:
        t.consult("red_three_initial_replacement")
        # the replacements drawn (`stock.draw_cards`), the state built once
        got, stock, reds, last_red = drawn(s, seat, owed)
        stop = last_red and rules.last_red_three_ends_hand
        s = replaced(
            s,
            owed=(*s.owed[:seat], 0, *s.owed[seat + 1 :]),
            hands=got,
            stock=stock,
            table=with_reds(s.table, side, reds),
            step=PLAY if stop else DRAW,
            no_discard=stop,
        )
        if stop:
            return s
    if exhausted(t, s) and t.stock_out != "hand_ends" and not can_take(t, s):
        return end_hand(t, s, "stock-out", -1)
    return s


def discard(t: Tables, s: State, a: Discard, j: Judge = STRICT) -> State:
    """The Discard action: the turn passes, or the last card goes out."""
    av: tuple[Any, ...] = a  # read as a tuple: `a.card` is a property of an interpreted class
    card: int = av[2]
    hand = held_one(s.hands[s.seat], card, j)
    if s.no_discard:
        t.consult("last_red_three_ends_hand")
        j.refuse("last_red_three_ends_hand", "play stops after the last red three: no discard")
    if hand:
        if j is not LISTED:
            if pending(s):
                j.refuse("opening_minimums", "finish the opening before discarding")
            if s.answer == "yes":
                j.refuse("ask_partner", "the partner said yes: the player must go out this turn")
            j.stop()
        # the card on top of the pile by one concatenation (a starred display builds a list)
        top: tuple[int, ...] = (card,)
        return begin_turn(t, s, (s.seat + 1) % s.players, with_hand(s, hand), s.pile + top)
    if j is not LISTED:
        for problem in go_out_problems(t, s, by_discard=True, every=j.found is not None):
            j.refuse(*problem)
        j.stop()
    s2 = replaced(opened(s), hands=with_hand(s, ()), pile=(*s.pile, card))
    return end_hand(t, s2, "went-out", s.seat)


def stop(t: Tables, s: State, j: Judge = STRICT) -> State:
    """The Stop action: play stops after the stock's last card, a red three, was laid out.
    *:last-red-three-ends-hand."""
    if not s.no_discard:
        j.halt("last_red_three_ends_hand", "play stops only after the last red three of the stock")
    t.consult("last_red_three_ends_hand")
    if pending(s):
        j.refuse("opening_minimums", "finish the opening first")
    if s.answer == "yes":
        j.refuse("ask_partner", "the partner said yes: the player must go out this turn")
    j.stop()
    return end_hand(t, s, "stock-out", -1)
