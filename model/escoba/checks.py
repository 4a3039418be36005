"""Whole-state checks: the clause ids a state breaks, empty for every reachable state.

Checked: every card of the deck in exactly one place (hands, table, stock, captured piles) once a
hand is dealt; hand sizes, stock size and the seat to move agreeing with the number of cards
played; escobas possible for the cards captured; a finished hand's score agreeing with a recount
of its piles; the game over exactly when the target rule names a winner.
"""

from __future__ import annotations

from arbitro.model.escoba.cards import tables
from arbitro.model.escoba.dealing import deals_in_hand
from arbitro.model.escoba.game_end import game_winner
from arbitro.model.escoba.scoring import CATEGORY_CLAUSES, score_hand
from arbitro.model.escoba.seats import turn_order
from arbitro.model.escoba.state import NOBODY, EscobaState
from arbitro.model.schema import EscobaRules


def violations(rules: EscobaRules, state: EscobaState) -> list[str]:
    """The ids of the clauses the state breaks, each once, in the order found."""
    t = tables(rules)
    found: list[str] = []

    def fail(key: str) -> None:
        cid = rules.cid(key)
        if cid not in found:
            found.append(cid)

    seating = state.seating
    n = seating.players
    places = [*state.hands, state.table, *state.piles]
    stock_mask = 0
    for c in state.stock:
        stock_mask |= 1 << c
    places.append(stock_mask)
    total = sum(p.bit_count() for p in places)
    union = 0
    for p in places:
        union |= p
    dealt = state.hand_number > 0
    if len(set(state.stock)) != len(state.stock):
        fail("suits")
    if dealt and (union != t.full or total != len(t.deck)):
        fail("suits")
    if not dealt and (union or state.phase != "deal"):
        fail("suits")

    if state.phase == "play":
        deals = deals_in_hand(rules, n)
        if not 1 <= state.deal_number <= deals:
            fail("deals_per_hand")
        per_deal = n * rules.redeal_size + rules.redeal_table
        if len(state.stock) != (deals - state.deal_number) * per_deal:
            fail("deals_per_hand")
        size = rules.hand_size if state.deal_number == 1 else rules.redeal_size
        held = [h.bit_count() for h in state.hands]
        played = n * size - sum(held)
        order = turn_order(rules, n, state.dealer)
        if not 0 <= played < n * size:
            fail("hand_size")
        else:
            rounds, extra = divmod(played, n)
            for i, seat in enumerate(order):
                if held[seat] != size - rounds - (1 if i < extra else 0):
                    fail("hand_size")
            if state.to_move != order[extra]:
                fail("play_direction")
    elif dealt:
        if any(state.hands) or state.stock:
            fail("deals_per_hand")
        if state.table and state.last_capturer != NOBODY and rules.last_capturer_takes_rest:
            fail("last_capturer_takes_rest")
        if state.to_move != NOBODY:
            fail("play_direction")

    for side, pile in enumerate(state.piles):
        # an escoba takes at least one table card and the card played (an opening sweep of two
        # escobas takes four cards)
        if state.escobas[side] * 2 > pile.bit_count():
            fail("escoba_points")
    if state.phase == "play" and state.last_capturer == NOBODY and any(state.piles):
        fail("last_capturer_takes_rest")

    if dealt and state.phase != "play":
        recount = score_hand(rules, state.piles, state.escobas)
        if state.result is None:
            fail("cards_points")
        else:
            for category, key in CATEGORY_CLAUSES.items():
                mine = [side[category] for side in state.result.categories]
                if mine != [side[category] for side in recount.categories]:
                    fail(key)
    if state.result is not None and any(
        s < r for s, r in zip(state.scores, state.result.scores, strict=True)
    ):
        fail("target_score")
    if (game_winner(rules, state.scores) is not None) != (state.phase == "over"):
        fail("target_tie")
    return found
