"""A turn and what follows it by itself: escobas, the next deal, the end of the hand.

After a play the turn passes on; when every hand is empty the dealer deals again from the stock;
after the last deal is played out, the last side to capture takes what is left on the table (no
escoba), the hand is scored and the game either ends or passes the deal on. Implements
escoba-es:escoba-points, escoba-es:last-capturer-takes-rest, escoba-es:rest-is-escoba,
escoba-es:rest-without-capturer, escoba-es:dealer-rotation and, through the modules it calls,
the capture, scoring and game-end clauses.
"""

from __future__ import annotations

from arbitro.model.escoba import capture as _capture
from arbitro.model.escoba.capture import coerce_play, legal_play, refusals
from arbitro.model.escoba.cards import Tables, tables
from arbitro.model.escoba.dealing import deal_round
from arbitro.model.escoba.game_end import game_winner
from arbitro.model.escoba.scoring import score_hand
from arbitro.model.escoba.seats import next_dealer
from arbitro.model.escoba.state import NOBODY, EscobaState, Play
from arbitro.model.schema import EscobaRules

LAST_APPLIED: tuple[object, object, object, EscobaState | None] = (None, None, None, None)
"""The last play applied straight after its listing: (rules, state, play, state after), so that
`clauses_used` on the same play need not play it again."""

_new_state = tuple.__new__
"""Builds an EscobaState from its fields in order without the NamedTuple keyword machinery."""


def apply(rules: EscobaRules, state: EscobaState, action: object) -> EscobaState:
    """The state after ``action``; IllegalAction names the most specific clause it breaks."""
    global LAST_APPLIED
    last = _capture._LAST
    if last[0] is state and last[1] is rules and action in last[2] and last[3] is not None:
        # one of the plays just listed for this very state: legal; take its canonical value
        acts = last[2]
        after = play_unchecked(rules, last[3], state, acts[acts.index(action)])
        LAST_APPLIED = (rules, state, action, after)
        return after
    t = tables(rules)
    play = legal_play(rules, t, state, action)
    if play is None:
        play = coerce_play(action, state.seating.players, t.full)
        refused = refusals(rules, state, play)
        if refused:
            raise refused[0]
    return play_unchecked(rules, t, state, play)


def play_unchecked(rules: EscobaRules, t: Tables, state: EscobaState, play: Play) -> EscobaState:
    """The state after a play already known to be legal (`apply` checks first)."""
    (seating, _, dealer, _, hand_number, deal_number, hands, table, stock, piles, escobas, last,
     scores, result) = state  # fmt: skip
    seat, c, cap = play
    bit = 1 << c
    hand = hands[seat] ^ bit
    hands = (*hands[:seat], hand, *hands[seat + 1 :])
    if cap:
        side = seat % seating.sides
        table ^= cap
        piles = (*piles[:side], piles[side] | cap | bit, *piles[side + 1 :])
        if not table:
            escobas = (*escobas[:side], escobas[side] + 1, *escobas[side + 1 :])
        last = side
    else:
        table |= bit
    if not hand and not any(hands):
        players = seating.players
        if deal_number >= t.deals[players]:
            return end_hand(rules, state, deal_number, hands, table, piles, escobas, last)
        order = t.turn_orders[players][dealer]
        hands, used = deal_round(stock, order, players, rules.redeal_size)
        for x in stock[used : used + rules.redeal_table]:
            table |= 1 << x
        stock = stock[used + rules.redeal_table :]
        deal_number += 1
        to_move = order[0]
    else:
        to_move = t.after[seating.players][seat]
    return _new_state(
        EscobaState,
        (seating, "play", dealer, to_move, hand_number, deal_number, hands, table, stock, piles,
         escobas, last, scores, result),
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
    seating = state.seating
    taker = NOBODY
    if table:
        if last != NOBODY:
            if rules.last_capturer_takes_rest:
                taker = last
        elif rules.rest_without_capturer == "dealer":
            taker = seating.side_of(state.dealer)
    if taker != NOBODY:
        piles_l = list(piles)
        piles_l[taker] |= table
        piles = tuple(piles_l)
        table = 0
        if rules.rest_is_escoba:
            esc = list(escobas)
            esc[taker] += 1
            escobas = tuple(esc)
    result = score_hand(rules, piles, escobas)
    scores = tuple(a + b for a, b in zip(state.scores, result.scores, strict=True))
    over = game_winner(rules, scores) is not None
    return EscobaState(
        seating,
        "over" if over else "deal",
        state.dealer if over else next_dealer(rules, seating.players, state.dealer),
        NOBODY,
        state.hand_number,
        deal_number,
        hands,
        table,
        (),
        piles,
        escobas,
        last,
        scores,
        result,
    )
