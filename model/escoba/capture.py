"""Captures: which table cards a played card may take, and which plays are legal.

A played card of value v takes any non-empty group of table cards worth ``capture_sum - v``
together; if it can take something it must (the player chooses which group); otherwise it is laid
on the table. Implements escoba-es:capture-sum, escoba-es:capture-forced and
escoba-es:capture-choice.

How groups are found: with the table's cards ascending, ``polys[i]`` is the polynomial
prod_{j<i} (1 + x^value(card j)) truncated above the largest sum a capture needs, packed into one
int with `Tables.lane` bits per coefficient; its coefficient of x^s counts the groups of the first
i cards worth s. Counting the groups for a card is one shift, and the k-th group in ascending mask
order is found walking down from the highest card: the groups without it come first.
"""

from __future__ import annotations

from arbitro.model.errors import IllegalAction, MalformedInput
from arbitro.model.escoba.cards import Tables, card_name, cards_of, pile_value, tables
from arbitro.model.escoba.state import EscobaState, Play
from arbitro.model.schema import EscobaRules

_new_play = tuple.__new__
"""Builds a Play from (seat, card, capture) without the NamedTuple keyword machinery."""


def table_polys(t: Tables, table: int) -> tuple[list[int], list[int]]:
    """The table's cards ascending and the prefix polynomials (``len(cards) + 1`` of them)."""
    cards: list[int] = []
    polys = [1]
    p = 1
    shift = t.shift
    pm = t.poly_mask
    m = table
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        p = (p + (p << shift[c])) & pm
        cards.append(c)
        polys.append(p)
    return cards, polys


def count_groups(t: Tables, poly: int, total: int) -> int:
    """How many groups the polynomial counts worth ``total`` (0 for totals out of its range)."""
    if not 0 <= total <= t.most_needed:
        return 0
    return (poly >> t.lane * total) & t.lane_mask


def nth_group(t: Tables, cards: list[int], polys: list[int], total: int, k: int) -> int:
    """The mask of the ``k``-th (from 0) group worth ``total`` > 0, in ascending mask order."""
    lane = t.lane
    lm = t.lane_mask
    values = t.values
    mask = 0
    i = len(cards)
    while total:
        i -= 1
        without = (polys[i] >> lane * total) & lm
        if k >= without:
            k -= without
            c = cards[i]
            mask |= 1 << c
            total -= values[c]
    return mask


def capture_groups(rules: EscobaRules, table: int, card: int) -> tuple[int, ...]:
    """The masks of the table groups that ``card`` may take, ascending (empty: it takes nothing)."""
    t = tables(rules)
    cards, polys = table_polys(t, table)
    need = t.target - t.values[card]
    n = count_groups(t, polys[-1], need)
    return tuple(nth_group(t, cards, polys, need, k) for k in range(n))


def legal_actions(rules: EscobaRules, state: EscobaState) -> tuple[Play, ...]:
    """Every legal play of the seat to move, in canonical order (card, then capture mask).

    A card that can capture has only its capturing plays; one that cannot is laid on the table.
    """
    if state.phase != "play":
        return ()
    t = tables(rules)
    seat = state.to_move
    cards, polys = table_polys(t, state.table)
    full = polys[-1]
    lane = t.lane
    lm = t.lane_mask
    target = t.target
    top = t.most_needed
    values = t.values
    forced = rules.capture_forced
    out: list[Play] = []
    hand = state.hands[seat]
    while hand:
        low = hand & -hand
        c = low.bit_length() - 1
        hand ^= low
        need = target - values[c]
        n = (full >> lane * need) & lm if 0 < need <= top else 0
        if not n or not forced:
            out.append(_new_play(Play, (seat, c, 0)))
        for k in range(n):
            out.append(_new_play(Play, (seat, c, nth_group(t, cards, polys, need, k))))
    return tuple(out)


def coerce_play(action: object, players: int, deck_size: int) -> Play:
    """The action as a Play with seat, card and capture in range; MalformedInput otherwise."""
    if type(action) is not Play:
        if not isinstance(action, tuple) or len(action) != 3:
            raise MalformedInput(f"a play is (seat, card, capture mask); got {action!r}")
        action = Play(*action)
    seat, c, cap = action
    if type(seat) is not int or not 0 <= seat < players:
        raise MalformedInput(f"seat {seat!r} is not a seat of {players} players")
    if type(c) is not int or not 0 <= c < deck_size:
        raise MalformedInput(f"{c!r} is not a card of the {deck_size}-card deck")
    if type(cap) is not int or not 0 <= cap < 1 << deck_size:
        raise MalformedInput(f"capture {cap!r} is not a mask of cards of the deck")
    return action


def check_play(rules: EscobaRules, state: EscobaState, action: Play) -> None:
    """Raise IllegalAction naming the clause unless ``action`` is legal in ``state``."""
    t = tables(rules)
    seat, c, cap = action
    if state.phase != "play":
        clause = rules.cid("target_score") if state.phase == "over" else rules.cid("hand_size")
        why = "the game is over" if state.phase == "over" else "the hand has not been dealt"
        raise IllegalAction(action, clause=clause, reason=f"nobody plays now: {why}")
    if seat != state.to_move:
        raise IllegalAction(
            action,
            clause=rules.cid("play_direction"),
            reason=f"it is seat {state.to_move}'s turn, not seat {seat}'s",
        )
    if not state.hands[seat] >> c & 1:
        raise IllegalAction(
            action,
            clause=rules.cid("hand_size"),
            reason=f"seat {seat} does not hold {card_name(c)}",
        )
    table = state.table
    need = t.target - t.values[c]
    if cap:
        if cap & ~table:
            absent = " ".join(card_name(x) for x in cards_of(cap & ~table))
            raise IllegalAction(
                action,
                clause=rules.cid("capture_sum"),
                reason=f"cannot take {absent}: not on the table",
            )
        worth = pile_value(t, cap)
        if worth != need:
            raise IllegalAction(
                action,
                clause=rules.cid("capture_sum"),
                reason=f"{card_name(c)} and the cards taken make {worth + t.values[c]}, not {t.target}",
            )
    elif rules.capture_forced:
        cards, polys = table_polys(t, table)
        n = count_groups(t, polys[-1], need)
        if n:
            options = "; ".join(
                " ".join(card_name(x) for x in cards_of(nth_group(t, cards, polys, need, k)))
                for k in range(n)
            )
            raise IllegalAction(
                action,
                clause=rules.cid("capture_forced"),
                reason=f"{card_name(c)} can capture, so it must take one of: {options}",
            )
