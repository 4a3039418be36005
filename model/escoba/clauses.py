"""Which clauses decided a move: the deal or the play, what it took, and what followed by itself.

A clause is listed when its case arose in this move, so that its value shaped what the move did or
whether it was allowed: every play uses the capture sum and values and whose turn it is; an
escoba, a choice between groups, a lay that could have captured, a new deal, the end of the hand
and each scoring case add their own. A clause whose case did not arise is left out: changing its
value would change nothing about this move (the tests check that by changing each one).
Implements the bookkeeping behind `GameModel.clauses_used`; the rules themselves live in the
modules that enforce them.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from arbitro.model.escoba.capture import groups_of, listing
from arbitro.model.escoba.cards import Tables, tables
from arbitro.model.escoba.dealing import check_order
from arbitro.model.escoba.game_end import game_winner
from arbitro.model.escoba.scoring import (
    CARDS_DOUBLE_MORE_THAN,
    CARDS_DOUBLE_OPPONENTS_FEWER_THAN,
)
from arbitro.model.escoba.setenta import setenta
from arbitro.model.escoba.state import NOBODY, EscobaState, Play
from arbitro.model.escoba.turn import legal_play, play_unchecked
from arbitro.model.schema import EscobaRules

CLAUSE_SETS_LIMIT = 1 << 14
"""The most clause sets remembered per rules object before they are forgotten all at once."""


def _round_over(state: EscobaState, seat: int, c: int) -> bool:
    """Whether playing ``c`` empties the last hand holding cards: the round is played out."""
    hands = state.hands
    return hands[seat] == 1 << c and hands.count(0) == len(hands) - 1


def clauses_key(
    rules: EscobaRules, state: EscobaState, action: Play, after: EscobaState
) -> Hashable:
    """What decides which clauses a legal play used: `clauses_used` is a function of this key
    (with the rules). ``after`` is the state the play leads to.

    A play in the middle of a hand is decided by a handful of facts (several groups or one, a
    capture, a sweep, a new deal), so most plays share a few keys; the last play of a hand adds
    what its scoring cases read: the piles, whether anyone swept, the totals.
    """
    t = tables(rules)
    seat, c, cap = action
    table = state.table
    # how many groups the card can take, up to two: from the listing just made for this state
    groups = 0
    if t.needs[c]:
        listed = t.listed
        plays = (
            listed.plays if listed.state is state else listing(t, seat, state.hands[seat], table)
        )
        for p in plays:
            if p[1] == c and p[2]:
                groups += 1
                if groups == 2:
                    break
    # the round is over when this card empties the last hand holding cards
    hands = state.hands
    over = hands[seat] == 1 << c and hands.count(0) == len(hands) - 1
    if after.phase == "play":
        return (groups, cap != 0, cap == table, over)
    left = table ^ cap if cap else table | 1 << c
    last = seat % state.sides if cap else state.last_capturer
    return (
        groups, cap != 0, cap == table, over, left != 0, last == NOBODY, after.piles,
        any(after.escobas), after.scores,
    )  # fmt: skip


def clauses_used(
    rules: EscobaRules, state: EscobaState, action: Play | Sequence[int]
) -> frozenset[str]:
    """The clause ids that decided this legal move: a play, or in phase `deal` a deck order."""
    if state.phase == "deal":
        return _deal_clauses(rules, state, action)
    t = tables(rules)
    # MalformedInput or IllegalAction for a move that is not legal
    play = legal_play(rules, t, state, action)
    after = play_unchecked(rules, t, state, play)
    key = clauses_key(rules, state, play, after)
    hit = t.clause_sets.get(key)
    if hit is None:
        memo = t.clause_sets
        if len(memo) >= CLAUSE_SETS_LIMIT:
            memo.clear()
        keys = play_clause_keys(rules, t, state, play, after)
        hit = memo[key] = frozenset(rules.cid(k) for k in keys)
    return hit


def play_clause_keys(
    rules: EscobaRules, t: Tables, state: EscobaState, action: Play, after: EscobaState
) -> set[str]:
    """The spec keys of the clauses a legal play used, worked out from the play itself."""
    keys = {"capture_sum", "capture_values", "play_direction"}
    seat, c, cap = action
    groups = len(groups_of(t, state.table, c))
    if cap:
        if groups > 1:
            keys.add("capture_choice")
        if cap == state.table:
            keys.add("escoba_points")
    elif groups:
        keys.add("capture_forced")  # laying a card that could capture: allowed by this clause
    if _round_over(state, seat, c) and after.phase == "play":  # the next deal
        keys.update(("deals_per_hand", "redeal_size", "redeal_table"))
    if after.phase != "play":
        keys.update(_hand_end_clauses(rules, t, state, action, after))
    return keys


def _deal_clauses(rules: EscobaRules, state: EscobaState, order: object) -> frozenset[str]:
    """A deal uses the pack, the deal sizes and order, and an opening sweep when it happens."""
    t = tables(rules)
    cards = check_order(t, order)  # type: ignore[arg-type]
    keys = {"suits", "ranks", "hand_size", "table_initial", "deals_per_hand", "play_direction"}
    keys.add("player_counts" if state.sides == state.players else "team_player_counts")
    n = state.players
    opening = cards[n * rules.hand_size : n * rules.hand_size + rules.table_initial]
    total = sum(t.values[c] for c in opening)
    if any(sweep.total == total for sweep in rules.opening_sweeps):
        keys.update(("opening_sweeps", "capture_values"))
    return frozenset(rules.cid(k) for k in keys)


def _hand_end_clauses(
    rules: EscobaRules, t: Tables, state: EscobaState, play: Play, after: EscobaState
) -> set[str]:
    """The last play of a hand: the leftovers, each scoring case that arose, the game's end."""
    keys = {"deals_per_hand", "target_score"}
    seat, c, cap = play
    side = seat % state.sides
    left = state.table ^ cap if cap else state.table | 1 << c
    last = side if cap else state.last_capturer
    if left:
        if last != NOBODY:
            keys.add("last_capturer_takes_rest")
            if rules.last_capturer_takes_rest:
                keys.add("rest_is_escoba")
        else:
            keys.add("rest_without_capturer")
            if rules.rest_without_capturer != "stay":
                keys.add("rest_is_escoba")
    piles = after.piles
    counts = [p.bit_count() for p in piles]
    coins = [(p & t.oros).bit_count() for p in piles]
    for key, got in (("cards_points", counts), ("oros_points", coins)):
        if got.count(max(got)) > 1:
            keys.add("category_tie")
        else:
            keys.add(key)
    lead = counts.index(max(counts))
    others = [n for s, n in enumerate(counts) if s != lead]
    if counts.count(max(counts)) == 1 and counts[lead] > CARDS_DOUBLE_MORE_THAN:
        each = all(n < CARDS_DOUBLE_OPPONENTS_FEWER_THAN for n in others)
        together = sum(others) < CARDS_DOUBLE_OPPONENTS_FEWER_THAN
        if each or together:
            keys.add("variant_cards_double")
        if each != together and rules.variant_cards_double:
            keys.add("variant_cards_double_rule")
    top = coins.index(max(coins))
    if coins.count(max(coins)) == 1 and coins[top] == t.oros.bit_count():
        keys.add("variant_oros_all")
    if t.velo >= 0 and any(p >> t.velo & 1 for p in piles):
        keys.add("velo_points")
    if t.sevens and any(p & t.sevens == t.sevens for p in piles):
        keys.add("variant_sevens_all")
    if any(not (p >> shift) & 1023 for p in piles for shift in t.suit_shifts):
        keys.add("setenta_missing_suit")
    shown = [setenta(rules, t, p) for p in piles]
    present = [s for s in shown if s is not None]
    if present:
        best = max(present)
        if len(present) > 1:
            keys.add("setenta_order")
        if shown.count(best) > 1:
            keys.add("category_tie")
        else:
            keys.add("setenta_points")
    if any(after.escobas):
        keys.add("escoba_points")
    scores = after.scores
    reached = [s for s in scores if s >= rules.target_score]
    if len(reached) > 1 and reached.count(max(reached)) > 1:
        keys.add("target_tie")
    if game_winner(rules, scores) is None:
        keys.add("dealer_rotation")
    return keys
