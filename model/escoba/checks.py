"""Whole-state checks: the clause ids a state breaks, empty for every reachable state.

Checked: every card of the deck in exactly one place (hands, table, stock, captured piles) once a
hand is dealt; hand sizes, stock size and the seat to move agreeing with the number of cards
played; escobas possible for the cards captured; a finished hand's score agreeing with a recount
of its piles; the game over exactly when the target rule names a winner.

The explorer runs these on every state it meets, so they are written as bit counts and lookups in
tables made once per rules object, not as walks over lists of cards.
"""

from __future__ import annotations

from typing import Any

from arbitro.model.escoba.cards import Tables, tables
from arbitro.model.escoba.dealing import deals_in_hand, opening_sweep
from arbitro.model.escoba.game_end import game_winner
from arbitro.model.escoba.scoring import CATEGORY_CLAUSES, hand_points
from arbitro.model.escoba.state import CATEGORIES, NOBODY, EscobaState
from arbitro.model.schema import EscobaRules

STOCKS_LIMIT = 1 << 12
"""The most stocks whose masks are remembered per rules object: a hand has one stock per deal."""

_CATEGORY_KEYS = tuple(CATEGORY_CLAUSES[c] for c in CATEGORIES)


def stock_mask(t: Tables, stock: tuple[int, ...]) -> tuple[int, bool]:
    """The pile of the stock's cards and whether it lists each card once (remembered, bounded)."""
    hit = t.stocks.get(stock)
    if hit is None:
        mask = 0
        for c in stock:
            mask |= 1 << c
        if len(t.stocks) >= STOCKS_LIMIT:
            t.stocks.clear()
        hit = t.stocks[stock] = (mask, mask.bit_count() == len(stock))
    return hit


def expected_hands(
    rules: EscobaRules, t: Tables, players: int, dealer: int, size: int
) -> tuple[tuple[tuple[int, ...], int], ...]:
    """By cards played since a deal of ``size`` each, the hand sizes by seat and the seat to move:
    cards are played one per turn in turn order from the seat after the dealer."""
    key = (players, dealer, size)
    hit = t.expected.get(key)
    if hit is None:
        order = t.turn_orders[players][dealer]
        rows = []
        for played in range(players * size):
            rounds, extra = divmod(played, players)
            held = [0] * players
            for i, seat in enumerate(order):
                held[seat] = size - rounds - (1 if i < extra else 0)
            rows.append((tuple(held), order[extra]))
        hit = t.expected[key] = tuple(rows)
    return hit


def is_dealt(phase: str, hand_number: int, points: object) -> bool:
    """Whether the deck is out (every card in some place): in a hand, or after one ended. A state
    before a deal with no finished hand holds no cards: a new game, or a game taken up before
    hand `hand_number` (counted from 0) with the totals it has then."""
    return hand_number > 0 and (phase == "play" or points is not None)


def play_problem(rules: EscobaRules, t: Tables, state: EscobaState, held: list[int]) -> str | None:
    """The key of a clause a state in play breaks through what was captured, given the cards
    each seat holds (None if nothing): before the first card is played the table is the opening
    deal, swept exactly when it adds up to an opening sweep's total (escoba-es:opening-sweeps);
    a side has no more escobas than its seats played cards, plus the opening sweep's
    (escoba-es:escoba-points). Hand sizes agreeing with the deal number is checked before."""
    deal_number, dealer, sides = state.deal_number, state.dealer, state.sides
    per_seat = rules.hand_size + (deal_number - 1) * rules.redeal_size
    escobas, piles = state.escobas, state.piles
    dealer_side = dealer % sides if sides else 0
    if deal_number == 1 and sum(held) == per_seat * len(held):
        opened = state.table
        for p in piles:
            opened |= p
        sweeps = opening_sweep(rules, t, opened)
        want_piles = [0] * sides
        want_escobas = [0] * sides
        if sweeps:
            want_piles[dealer_side] = opened
            want_escobas[dealer_side] = sweeps
        if (
            opened.bit_count() != rules.table_initial
            or state.table != (0 if sweeps else opened)
            or list(piles) != want_piles
            or list(escobas) != want_escobas
            or state.last_capturer != (dealer_side if sweeps else NOBODY)
        ):
            return "opening_sweeps"
        return None
    if any(escobas):
        played = [0] * sides
        for seat, n in enumerate(held):
            played[seat % sides] += per_seat - n
        most = max((s.escobas for s in rules.opening_sweeps), default=0)
        for side in range(sides):
            if escobas[side] > played[side] + (most if side == dealer_side else 0):
                return "escoba_points"
    return None


def violations(rules: EscobaRules, state: EscobaState) -> list[str]:
    """The ids of the clauses the state breaks, each once, in the order found.

    `sound` answers first whether there is any (the same checks, none of them listing); only a
    state that breaks something is gone through again by `listed_violations` to name what.
    """
    if sound(rules, state):
        return []
    return listed_violations(rules, state)


def play_expectations(
    rules: EscobaRules, t: Tables, players: int, dealer: int, deal_number: int
) -> tuple[int, int, dict[tuple[int, ...], int]] | None:
    """In phase play after deal ``deal_number``: the deals in a hand, the stock's length, and by
    the hand sizes a correct state can have, the seat to move (see `expected_hands`); None when
    the deal number is out of range. Remembered with `Tables.expected`, under this key and, for
    `sound` to look up, under one int packing players, dealer and deal number (16 bits each)."""
    key = ("play", players, dealer, deal_number)
    if key in t.expected:
        hit: tuple[int, int, dict[tuple[int, ...], int]] | None = t.expected[key]
        return hit
    deals = t.deals.get(players) or deals_in_hand(rules, players)
    hit = None
    if 1 <= deal_number <= deals:
        per_deal = players * rules.redeal_size + rules.redeal_table
        size = rules.hand_size if deal_number == 1 else rules.redeal_size
        rows = expected_hands(rules, t, players, dealer, size)
        hit = ((deals - deal_number) * per_deal, deals, {held: seat for held, seat in rows})
    t.expected[key] = hit
    if 0 <= dealer < 1 << 16 and 0 <= deal_number < 1 << 16:
        t.expected[players << 32 | dealer << 16 | deal_number] = hit
    return hit


def sound(rules: EscobaRules, state: EscobaState) -> bool:
    """Whether the state breaks none of the clauses `listed_violations` checks (the same checks,
    in one pass that stops at the first failure; a test compares the two on broken states).

    Cards counted once and every card somewhere is asked as: no pile overlaps the ones before it,
    and together they are the pack (the same as their sizes adding up to the pack's, with the
    pack covered), so that no card is counted."""
    t = tables(rules)
    (players, _, _, phase, dealer, to_move, hand_number, deal_number, hands, table, stock, piles,
     escobas, last, scores, points) = state  # fmt: skip
    # the stock of the state checked before, most often the same object (one per deal)
    seen = t.last_stock[0]
    if seen[0] is stock:
        in_stock, distinct = seen[1]
    else:
        found = t.stocks.get(stock) or stock_mask(t, stock)
        t.last_stock[0] = (stock, found)
        in_stock, distinct = found
    if not distinct or in_stock & table:
        return False
    union = table | in_stock
    for p in hands:
        if union & p:
            return False
        union |= p
    for p in piles:
        if union & p:
            return False
        union |= p
    dealt = is_dealt(phase, hand_number, points)
    if dealt:
        if union != t.full:
            return False
    elif union or phase != "deal":
        return False
    if len(escobas) != len(piles) or (points is not None and len(points) != len(scores)):
        return False
    if phase == "play":
        expect: Any = False
        if 0 <= dealer < 1 << 16 and 0 <= deal_number < 1 << 16:
            expect = t.expected.get(players << 32 | dealer << 16 | deal_number, False)
        if expect is False:
            expect = play_expectations(rules, t, players, dealer, deal_number)
        if expect is None or len(stock) != expect[0]:
            return False
        held: list[int] = []
        for h in hands:
            n = 0
            while h:  # a hand holds a few cards: one step each
                h &= h - 1
                n += 1
            held.append(n)
        if expect[2].get(tuple(held)) != to_move:
            return False
        if last == NOBODY:
            for p in piles:
                if p:
                    return False
        elif not piles[last]:
            return False
        if play_problem(rules, t, state, held) is not None:
            return False
    elif dealt:
        if stock or to_move != NOBODY:
            return False
        for h in hands:
            if h:
                return False
        if table and last != NOBODY and t.takes_rest:
            return False
    for i in range(len(piles)):
        e = escobas[i]
        if e and e * 2 > piles[i].bit_count():
            return False
    if points is not None:
        if dealt and phase != "play" and points != hand_points(rules, t, piles, escobas)[0]:
            return False
        for i in range(len(scores)):
            if scores[i] < sum(points[i]):
                return False
    elif dealt and phase != "play":
        return False
    top = scores[0]
    for x in scores:
        if x > top:
            top = x
    if top < t.target_score:  # nobody has won (game_winner, its first case)
        return phase != "over"
    return (game_winner(rules, scores) is not None) == (phase == "over")


def listed_violations(rules: EscobaRules, state: EscobaState) -> list[str]:
    """Every clause the state breaks, each once, in the order found (see `violations`)."""
    t = tables(rules)
    (players, _, _, phase, dealer, to_move, hand_number, deal_number, hands, table, stock, piles,
     escobas, last, scores, points) = state  # fmt: skip
    found: list[str] = []

    def fail(key: str) -> None:
        cid = rules.cid(key)
        if cid not in found:
            found.append(cid)

    in_stock, distinct = stock_mask(t, stock)
    union = table | in_stock
    total = table.bit_count() + in_stock.bit_count()
    for p in hands:
        union |= p
        total += p.bit_count()
    for p in piles:
        union |= p
        total += p.bit_count()
    dealt = is_dealt(phase, hand_number, points)
    if not distinct:
        fail("suits")
    if dealt:
        if union != t.full or total != t.size:
            fail("suits")
    elif union or phase != "deal":
        fail("suits")

    if phase == "play":
        deals = t.deals.get(players) or deals_in_hand(rules, players)
        if not 1 <= deal_number <= deals:
            fail("deals_per_hand")
        per_deal = players * rules.redeal_size + rules.redeal_table
        if len(stock) != (deals - deal_number) * per_deal:
            fail("deals_per_hand")
        size = rules.hand_size if deal_number == 1 else rules.redeal_size
        held = tuple([h.bit_count() for h in hands])
        played = players * size - sum(held)
        if not 0 <= played < players * size:
            fail("hand_size")
        else:
            want, seat = expected_hands(rules, t, players, dealer, size)[played]
            if held != want:
                fail("hand_size")
            if to_move != seat:
                fail("play_direction")
            problem = play_problem(rules, t, state, list(held))
            if problem is not None:
                fail(problem)
    elif dealt:
        if any(hands) or stock:
            fail("deals_per_hand")
        if table and last != NOBODY and rules.last_capturer_takes_rest:
            fail("last_capturer_takes_rest")
        if to_move != NOBODY:
            fail("play_direction")

    for side, pile in enumerate(piles):
        # an escoba takes at least one table card and the card played (an opening sweep of two
        # escobas takes four cards)
        if escobas[side] * 2 > pile.bit_count():
            fail("escoba_points")
    if phase == "play" and last == NOBODY and any(piles):
        fail("last_capturer_takes_rest")
    if phase == "play" and last != NOBODY and not (0 <= last < len(piles) and piles[last]):
        # the last side to capture holds what it captured until the hand is scored
        fail("last_capturer_takes_rest")

    if dealt and phase != "play":
        if points is None:
            fail("cards_points")
        else:
            recount = hand_points(rules, t, piles, escobas)[0]
            if points != recount:
                for i, key in enumerate(_CATEGORY_KEYS):
                    if [side[i] for side in points] != [side[i] for side in recount]:
                        fail(key)
    if points is not None and any(s < sum(r) for s, r in zip(scores, points, strict=True)):
        fail("target_score")
    if (game_winner(rules, scores) is not None) != (phase == "over"):
        fail("target_tie")
    return found
