"""Captures: which table cards a played card may take, which plays are legal, and why one is not.

A played card of value v takes any non-empty group of table cards worth ``capture_sum - v``
together; if it can take something it must (the player chooses which group); otherwise it is laid
on the table. Implements escoba-es:capture-sum, escoba-es:capture-forced and
escoba-es:capture-choice.

How groups are found: with the table's cards ascending, ``polys[i]`` is the polynomial
prod_{j<i} (1 + x^value(card j)) truncated above the largest sum a capture needs, packed into one
int with `Tables.lane` bits per coefficient; its coefficient of x^s counts the groups of the first
i cards worth s. Counting the groups for a card is one shift, and the k-th group in ascending mask
order is found walking down from the highest card: the groups without it come first.

Counting needs no listing of the table's cards: `Tables.chunk_poly` holds the polynomial of every
set of ranks of one suit, and the table's polynomial is the product of its suits' (one integer
multiplication per suit; the lanes are wide enough that no coefficient up to the largest sum
needed carries into the next). Only a card that can capture pays for the prefix polynomials.
"""

from __future__ import annotations

from arbitro.model.errors import IllegalAction, MalformedInput
from arbitro.model.escoba.cards import Tables, card_name, cards_of, pile_value, tables
from arbitro.model.escoba.state import EscobaState, Play
from arbitro.model.schema import EscobaRules

_new_play = tuple.__new__
"""Builds a Play from (seat, card, capture) without the NamedTuple keyword machinery."""

LAYS = tuple(tuple(Play(seat, c, 0) for c in range(64)) for seat in range(16))
"""By seat and card, the play laying that card on the table (made once, shared by every listing)."""


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


def groups_of(t: Tables, table: int, card: int) -> tuple[int, ...]:
    """The masks of the table groups that ``card`` may take, ascending (empty: it takes nothing)."""
    need = t.target - t.values[card]
    if not 0 < need <= t.most_needed:
        return ()
    cards, polys = table_polys(t, table)
    n = (polys[-1] >> t.lane * need) & t.lane_mask
    return tuple(nth_group(t, cards, polys, need, k) for k in range(n))


def capture_groups(rules: EscobaRules, table: int, card: int) -> tuple[int, ...]:
    """The masks of the table groups that ``card`` may take, ascending (empty: it takes nothing)."""
    return groups_of(tables(rules), table, card)


def table_poly(t: Tables, table: int) -> int:
    """The table's subset-count polynomial (the last prefix polynomial), suit by suit."""
    if not table:
        return 1
    cp = t.chunk_poly
    shifts = t.suit_shifts
    pm = t.poly_mask
    p = cp[(table >> shifts[0]) & 1023]
    for sh in shifts[1:]:
        p = (p * cp[(table >> sh) & 1023]) & pm
    return p


LISTINGS_LIMIT = 1 << 16
"""The most listings remembered per rules object before they are forgotten all at once."""
SEEN_SLOTS = 1 << 16
"""Slots of `Tables.seen`, the filter of listings met once (a power of two)."""


def listing(t: Tables, seat: int, hand: int, table: int) -> tuple[tuple[Play, ...], int]:
    """The legal plays of ``seat`` holding ``hand`` over ``table``, and the table's polynomial.

    Remembered per rules object (bounded by LISTINGS_LIMIT) from the second time they are asked
    for: the plays depend on nothing else, and an exploration asks for the same few again and
    again, while random play rarely meets a hand and table twice and would only pay for keeping
    them. `Tables.seen` holds, by a hash of the key, the key met last: a direct-mapped filter.
    """
    key = (hand | seat << 40) << 40 | table
    hit = t.listings.get(key)
    if hit is not None:
        return hit
    shift = t.shift
    pm = t.poly_mask
    p = 1
    m = table
    while m:
        low = m & -m
        m ^= low
        p = (p + (p << shift[low.bit_length() - 1])) & pm
    need_shift = t.need_shift
    lm = t.lane_mask
    forced = t.capture_forced
    lays = LAYS[seat] if seat < len(LAYS) else tuple(Play(seat, c, 0) for c in range(64))
    out: list[Play] = []
    polys: list[int] = []
    while hand:
        low = hand & -hand
        c = low.bit_length() - 1
        hand ^= low
        sh = need_shift[c]
        n = (p >> sh) & lm if sh >= 0 else 0
        if not n:
            out.append(lays[c])
            continue
        if not forced:
            out.append(lays[c])
        if not polys:
            cards, polys = table_polys(t, table)
        need = t.target - t.values[c]
        for k in range(n):
            out.append(_new_play(Play, (seat, c, nth_group(t, cards, polys, need, k))))
    # Fibonacci hashing of the key folded to 40 bits: keys of one deal differ in few bits
    slot = ((key ^ key >> 40 ^ key >> 80) * 0x9E3779B97F4A7C15 >> 48) & (SEEN_SLOTS - 1)
    seen = t.seen
    if seen[slot] != key:
        seen[slot] = key
        return (tuple(out), p)
    listings = t.listings
    if len(listings) >= LISTINGS_LIMIT:
        listings.clear()
    hit = listings[key] = (tuple(out), p)
    return hit


def legal_actions(rules: EscobaRules, state: EscobaState) -> tuple[Play, ...]:
    """Every legal play of the seat to move, in canonical order (card, then capture mask).

    A card that can capture has only its capturing plays; one that cannot is laid on the table.
    The state and its listing are kept as `Tables.listed`: `apply` on the same state object finds
    its play among them without listing again.
    """
    if state.phase != "play":
        return ()
    t = tables(rules)
    seat = state.to_move
    hit = listing(t, seat, state.hands[seat], state.table)
    t.listed[0] = (state, hit)
    return hit[0]


def coerce_play(action: object, players: int, deck: int) -> Play:
    """The action as a Play with seat, card and capture in range; MalformedInput otherwise.

    ``deck`` is the mask of the pack's cards.
    """
    if type(action) is not Play:
        if not isinstance(action, tuple) or len(action) != 3:
            raise MalformedInput(f"a play is (seat, card, capture mask); got {action!r}")
        action = Play(*action)
    seat, c, cap = action
    size = deck.bit_count()
    if type(seat) is not int or not 0 <= seat < players:
        raise MalformedInput(f"seat {seat!r} is not a seat of {players} players")
    if type(c) is not int or not 0 <= c < deck.bit_length() or not deck >> c & 1:
        raise MalformedInput(f"{c!r} is not a card of the {size}-card deck")
    if type(cap) is not int or cap < 0 or cap & ~deck:
        raise MalformedInput(f"capture {cap!r} is not a mask of cards of the deck")
    return action


def refusal_clauses(rules: EscobaRules, phase: str) -> frozenset[str]:
    """Every clause `refusals` can name for a play in a state of this phase (see below)."""
    memo = tables(rules).refusable
    hit = memo.get(phase)
    if hit is None:
        if phase != "play":
            keys = ["target_score" if phase == "over" else "hand_size"]
        else:
            keys = ["play_direction", "hand_size", "capture_sum"]
            if rules.capture_forced:
                keys.append("capture_forced")
        hit = memo[phase] = frozenset(rules.cid(k) for k in keys)
    return hit


def refusals(rules: EscobaRules, state: EscobaState, action: Play) -> tuple[IllegalAction, ...]:
    """Every clause that refuses the well-formed ``action`` in ``state``; empty when it is legal.

    Listed as a referee rules on a play, each later refusal judged as if the earlier ones did not
    hold: first whether anybody plays now (target-score once the game is over, hand-size before
    the deal; nothing else is judged then), then the seat (play-direction: not its turn), then the
    card (hand-size: not held), then what it takes (capture-sum: not on the table or not worth
    the sum; capture-forced: it could take and does not). `apply` raises the first, so a play out
    of turn is refused as such whatever card it is.
    """
    t = tables(rules)
    seat, c, cap = action
    if state.phase != "play":
        clause = rules.cid("target_score") if state.phase == "over" else rules.cid("hand_size")
        why = "the game is over" if state.phase == "over" else "the hand has not been dealt"
        return (IllegalAction(action, clause=clause, reason=f"nobody plays now: {why}"),)
    found: list[IllegalAction] = []
    if seat != state.to_move:
        found.append(
            IllegalAction(
                action,
                clause=rules.cid("play_direction"),
                reason=f"it is seat {state.to_move}'s turn, not seat {seat}'s",
            )
        )
    if not state.hands[seat] >> c & 1:
        found.append(
            IllegalAction(
                action,
                clause=rules.cid("hand_size"),
                reason=f"seat {seat} does not hold {card_name(c)}",
            )
        )
    table = state.table
    need = t.target - t.values[c]
    if cap:
        if cap & ~table:
            absent = " ".join(card_name(x) for x in cards_of(cap & ~table))
            found.append(
                IllegalAction(
                    action,
                    clause=rules.cid("capture_sum"),
                    reason=f"cannot take {absent}: not on the table",
                )
            )
        else:
            worth = pile_value(t, cap)
            if worth != need:
                found.append(
                    IllegalAction(
                        action,
                        clause=rules.cid("capture_sum"),
                        reason=f"{card_name(c)} and the cards taken make {worth + t.values[c]},"
                        f" not {t.target}",
                    )
                )
    elif rules.capture_forced:
        groups = groups_of(t, table, c)
        if groups:
            options = "; ".join(" ".join(card_name(x) for x in cards_of(g)) for g in groups)
            found.append(
                IllegalAction(
                    action,
                    clause=rules.cid("capture_forced"),
                    reason=f"{card_name(c)} can capture, so it must take one of: {options}",
                )
            )
    return tuple(found)
