"""A turn and what follows it by itself: escobas, the next deal, the end of the hand.

After a play the turn passes on; when every hand is empty the dealer deals again from the stock;
after the last deal is played out, the last side to capture takes what is left on the table (no
escoba), the hand is scored and the game either ends or passes the deal on. Implements
escoba-es:escoba-points, escoba-es:last-capturer-takes-rest, escoba-es:rest-is-escoba,
escoba-es:rest-without-capturer, escoba-es:dealer-rotation and, through the modules it calls,
the capture, scoring and game-end clauses.
"""

from __future__ import annotations

from typing import Final, cast

from arbitro.model.escoba.capture import coerce_play, listing, refusals
from arbitro.model.escoba.cards import Tables, tables
from arbitro.model.escoba.dealing import deal_round
from arbitro.model.escoba.game_end import game_winner
from arbitro.model.escoba.scoring import hand_points
from arbitro.model.escoba.state import NOBODY, EscobaState, Play, put
from arbitro.model.schema import EscobaRules

_new_state: Final = tuple.__new__
"""Builds an EscobaState from its fields in order without the NamedTuple keyword machinery."""
_STATE: Final = EscobaState
"""The class, as a name compiled code reads directly (an imported name is looked up each time)."""


def apply(rules: EscobaRules, state: EscobaState, action: object) -> EscobaState:
    """The state after ``action``; IllegalAction names the most specific clause it breaks."""
    t = tables(rules)
    listed = t.listed
    if listed.state is state:
        # the state just listed (the usual case): a legal action is one of its plays
        plays: tuple[Play, ...] = listed.plays
        for p in plays:
            if p is action:  # the listed object itself, as a caller choosing among them passes
                return play_unchecked(rules, t, state, p)
        for p in plays:
            if p == action:
                return play_unchecked(rules, t, state, p)
    return play_unchecked(rules, t, state, legal_play(rules, t, state, action))


def legal_play(rules: EscobaRules, t: Tables, state: EscobaState, action: object) -> Play:
    """The legal play equal to ``action``; MalformedInput or the first IllegalAction otherwise.

    A legal play is one of the listed ones: the listed value is returned, whose fields are ints
    even when the action is an equal tuple of other numbers.
    """
    listed = t.listed
    if listed.state is state:
        plays: tuple[Play, ...] = listed.plays
    elif state.phase == "play":
        seat = state.to_move
        plays = listing(t, seat, state.hands[seat], state.table)
    else:
        plays = ()
    try:
        return plays[plays.index(action)]
    except ValueError:
        play = coerce_play(action, state.players, t.full)
        refused = refusals(rules, state, play)
        if refused:
            raise refused[0] from None
    return play  # pragma: no cover - a play refused by nothing is listed


def play_unchecked(rules: EscobaRules, t: Tables, state: EscobaState, play: Play) -> EscobaState:
    """The state after a play already known to be legal (`apply` checks first)."""
    # the fields a play leaves alone are passed on as the objects they are (read through a plain
    # tuple's items, compiled code does not convert them to machine ints and back)
    f: tuple[object, ...] = state
    players = state.players
    table = state.table
    piles = state.piles
    escobas = state.escobas
    last = state.last_capturer
    seat, c, cap = play
    bit = 1 << c
    held: tuple[object, ...] = state.hands
    hand = state.hands[seat] ^ bit
    if players == 2:
        # the other seat's hand goes on as the object it is
        held = (hand, held[1]) if seat == 0 else (held[0], hand)
    else:
        changed = list(held)
        changed[seat] = hand
        held = tuple(changed)
    if cap:
        sides = state.sides
        side = seat % sides
        table ^= cap
        if sides == 2:
            won = cap | bit
            taken: tuple[object, ...] = piles
            taken = (piles[0] | won, taken[1]) if side == 0 else (taken[0], piles[1] | won)
            piles = cast(tuple[int, ...], taken)
            if not table:
                e0, e1 = escobas
                escobas = (e0 + 1, e1) if side == 0 else (e0, e1 + 1)
        else:
            piles = put(piles, side, piles[side] | cap | bit)
            if not table:
                escobas = put(escobas, side, escobas[side] + 1)
        last = side
    else:
        table |= bit
    held_any = hand != 0
    if not held_any:
        for h in held:
            if h:
                held_any = True
                break
    if held_any:
        return _new_state(
            _STATE,
            (f[0], f[1], f[2], "play", f[4], t.after[players][seat], f[6], f[7], held, table,
             f[10], piles, escobas, last, f[14], f[15]),
        )  # fmt: skip
    hands = cast(tuple[int, ...], held)
    deal_number = state.deal_number
    if deal_number >= t.deals[players]:
        return end_hand(rules, state, deal_number, hands, table, piles, escobas, last)
    # the round is played out: the dealer deals again from the stock
    stock = state.stock
    order = t.turn_orders[players][state.dealer]
    hands, used = deal_round(stock, order, players, t.redeal_size)
    for x in stock[used : used + t.redeal_table]:
        table |= 1 << x
    return _new_state(
        _STATE,
        (f[0], f[1], f[2], "play", f[4], order[0], f[6], deal_number + 1, hands, table,
         stock[used + t.redeal_table :], piles, escobas, last, f[14], f[15]),
    )  # fmt: skip


def end_hand(
    rules: EscobaRules,
    state: EscobaState,
    deal_number: int,
    hands: tuple[int, ...],
    table: int,
    piles: tuple[int, ...],
    escobas: tuple[int, ...],
    last: int,
) -> EscobaState:
    """The last card is played: the rest of the table goes, the hand is scored, the game goes on.

    ``state`` supplies the seating, dealer, hand number and scores from before the hand ended.
    """
    t = tables(rules)
    players = state.players
    dealer = state.dealer
    taker = NOBODY
    if table:
        if last != NOBODY:
            if t.takes_rest:
                taker = last
        elif t.rest_to_dealer:
            taker = dealer % state.sides
    if taker != NOBODY:
        piles = put(piles, taker, piles[taker] | table)
        table = 0
        if t.rest_is_escoba:
            escobas = put(escobas, taker, escobas[taker] + 1)
    points, totals = hand_points(rules, t, piles, escobas)
    before = state.scores
    scores = tuple([before[i] + totals[i] for i in range(len(before))])
    # nobody at the target: the game goes on without asking who won (game_winner's first case)
    over = False
    for x in scores:
        if x >= t.target_score:
            over = game_winner(rules, scores) is not None
            break
    return _new_state(
        _STATE,
        (players, state.sides, state.layout, "over" if over else "deal",
         dealer if over else t.next_dealers[players][dealer], NOBODY, state.hand_number,
         deal_number, hands, table, (), piles, escobas, last, scores, points),
    )  # fmt: skip
