"""Captures: which table cards a played card may take, which plays are legal, and why one is not.

A played card of value v takes any non-empty group of table cards worth ``capture_sum - v``
together; if it can take something it must (the player chooses which group); otherwise it is laid
on the table. Implements escoba-es:capture-sum, escoba-es:capture-forced and
escoba-es:capture-choice.

How groups are found: the sums the table's groups make are one bitmask (bit s: some group is worth
s), kept up to the largest sum a capture needs, so it is a machine-sized int; a card can capture
when its need is one of them. Its groups are then listed walking down from the highest card, the
groups without a card before those with it (ascending mask order), and a branch is entered only
when the cards below it are worth the sum together. Capture values are at least 1 (the spec's
escoba-es:capture-values is checked when it is read).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from arbitro.model.errors import IllegalAction, MalformedInput
from arbitro.model.escoba.cards import (
    CAPTURE_SLOTS,
    SEEN_SLOTS,
    Tables,
    card_name,
    cards_of,
    pile_value,
    tables,
)
from arbitro.model.escoba.state import EscobaState, Play
from arbitro.model.schema import EscobaRules

if TYPE_CHECKING:
    # a machine integer to the compiled engine (masks of the pack's cards fit one), an int to
    # Python: annotations are not evaluated (the future import above)
    from mypy_extensions import i64

_new_play: Final = tuple.__new__
"""Builds a Play from (seat, card, capture) without the NamedTuple keyword machinery."""
_PLAY: Final = Play
"""The class, as a name compiled code reads directly (an imported name is looked up each time)."""

LAYS: Final = tuple(tuple(Play(seat, c, 0) for c in range(64)) for seat in range(16))
"""By seat and card, the play laying that card on the table (made once, shared by every listing)."""


def add_groups(
    out: list[Play],
    made: list[Play],
    keys: list[int],
    seat: i64,
    c: i64,
    values: tuple[int, ...],
    rest: i64,
    total: i64,
    need: i64,
    taken: i64,
) -> None:
    """Appends to ``out``, in ascending mask order, seat ``seat`` playing ``c`` and taking
    ``taken`` with each group of the table cards ``rest`` worth ``need``; ``rest`` is the lowest
    cards of the table, worth ``total`` together, and 0 < ``need`` <= ``total``. ``made`` holds
    plays built before, each in the slot of its key (seat, card and mask as one int) modulo
    CAPTURE_SLOTS, and ``keys`` the key of the play in each slot (-1: none); a seat past 15 has
    no key (its bits would overlap the card's), and its plays are built each time."""
    while True:
        x: i64 = int(rest).bit_length() - 1
        # the highest card's bit, shifted as a machine integer (the compiled `1 << x` shifts a C
        # int, 32 bits wide)
        bit = rest >> x << x
        v: i64 = values[x]
        rest ^= bit
        total -= v
        # every group without card x has a lower mask than every group with it: those first
        if need <= total:
            add_groups(out, made, keys, seat, c, values, rest, total, need, taken)
        taken |= bit
        need -= v
        if need <= 0:
            if need == 0:
                if seat < 16:
                    key: i64 = (taken << 6 | c) << 4 | seat
                    slot: i64 = key % CAPTURE_SLOTS
                    if keys[slot] == key:
                        out.append(made[slot])
                    else:
                        play = _new_play(_PLAY, (seat, c, taken))
                        made[slot] = play
                        keys[slot] = key
                        out.append(play)
                else:
                    out.append(_new_play(_PLAY, (seat, c, taken)))
            return
        if need > total:
            return


def reachable(t: Tables, table: int) -> int:
    """The sums the table's groups make, as a bitmask (bit s: some group is worth s), kept up to
    the largest sum a capture needs, so it is a machine-sized int."""
    values = t.values
    top = t.sums_mask
    r = 1
    m = table
    while m:
        low = m & -m
        m ^= low
        r = (r | r << values[low.bit_length() - 1]) & top
    return r


def groups_of(t: Tables, table: int, card: int) -> tuple[int, ...]:
    """The masks of the table groups that ``card`` may take, ascending (empty: it takes nothing)."""
    need = t.needs[card]
    if not need or not reachable(t, table) >> need & 1:
        return ()
    found: list[Play] = []
    add_groups(
        found, t.captures, t.capture_keys, 0, card, t.values, table, pile_value(t, table), need, 0
    )
    return tuple(p.capture for p in found)


def capture_groups(rules: EscobaRules, table: int, card: int) -> tuple[int, ...]:
    """The masks of the table groups that ``card`` may take, ascending (empty: it takes nothing)."""
    return groups_of(tables(rules), table, card)


LISTINGS_LIMIT: Final = 1 << 16
"""The most listings remembered per rules object before they are forgotten all at once."""
NARROW_HAND: Final = 3
"""Hands of up to this many cards are keyed by their card numbers (6 bits each), so that the key
of a listing fits a machine word with the table (40 bits) and the seat (4 bits)."""
WIDE: Final = 1 << 63
"""Set in the key of a listing of a larger hand (or a seat past 15): keys that are not narrow."""


def listing(t: Tables, seat: int, hand: int, table: int) -> tuple[Play, ...]:
    """The legal plays of ``seat`` holding ``hand`` over ``table``.

    Remembered per rules object (bounded by LISTINGS_LIMIT) from the second time they are asked
    for: the plays depend on nothing else, and an exploration asks for the same few again and
    again, while random play rarely meets a hand and table twice and would only pay for keeping
    them. `Tables.seen` holds, by the key modulo its size, a fingerprint of the key met last (the
    quotient modulo 251): a direct-mapped filter. A fingerprint is a small int, which Python
    keeps one object of, so the filter builds no int per listing; a key whose fingerprint matches
    another's by chance (about 1 in 251 of those sharing its slot) is looked up and kept, with the
    same plays.
    """
    # the key: the seat, the hand and the table, narrow (one machine word) when it can be
    key = -1
    if seat < 16:
        packed = 0
        m = hand
        n = 0
        while m and n < NARROW_HAND:
            x = m.bit_length()  # card + 1: no card is 0
            m ^= 1 << x - 1
            packed = packed << 6 | x
            n += 1
        if not m:
            key = (packed << 4 | seat) << 40 | table
    if key < 0:
        key = WIDE | ((hand << 8 | seat) << 40 | table)
    # the filter first: a key not met last in its slot is not looked up (random play seldom
    # meets a hand and table twice); one met before is, and is kept once listed
    slot = key % SEEN_SLOTS
    mark = key // SEEN_SLOTS % 251
    seen = t.seen
    again = seen[slot] == mark
    listings: dict[int, tuple[Play, ...]] = t.listings
    if again:
        hit = listings.get(key)
        if hit is not None:
            return hit
    else:
        seen[slot] = mark
    values = t.values
    top: i64 = t.sums_mask
    r: i64 = 1  # the sums the table's groups make (see `reachable`)
    worth: i64 = 0
    left: i64 = table
    while left:
        y: i64 = int(left).bit_length() - 1
        left ^= left >> y << y  # its highest card (see add_groups on shifting a machine integer)
        w: i64 = values[y]
        r = (r | r << w) & top
        worth += w
    needs = t.needs
    forced = t.capture_forced
    lays = LAYS[seat] if seat < 16 else tuple(Play(seat, c, 0) for c in range(64))
    if seat < 16:
        # a hand of up to three cards none of which can capture: its lays, without a list
        held: i64 = hand
        takes = False
        count: i64 = 0
        while held:
            y = int(held).bit_length() - 1
            held ^= held >> y << y
            wanted: i64 = needs[y]
            count += 1
            if wanted and r >> wanted & 1:
                takes = True
                break
        if not takes and count <= 3:
            plays = lay_plays(lays, hand, count)
            if again:
                keep(listings, key, plays)
            return plays
    made: list[Play] = t.captures
    made_keys: list[int] = t.capture_keys
    out: list[Play] = []
    while hand:
        low = hand & -hand
        c = low.bit_length() - 1
        hand ^= low
        need = needs[c]
        if not need or not r >> need & 1:
            out.append(lays[c])
            continue
        if not forced:
            out.append(lays[c])
        add_groups(out, made, made_keys, seat, c, values, table, worth, need, 0)
    plays = tuple(out)
    if again:
        keep(listings, key, plays)
    return plays


def lay_plays(lays: tuple[Play, ...], hand: int, n: int) -> tuple[Play, ...]:
    """The plays laying each of the ``n`` (at most three) cards of ``hand``, ascending."""
    if n == 0:
        return ()
    low = hand & -hand
    first = lays[low.bit_length() - 1]
    if n == 1:
        return (first,)
    hand ^= low
    low = hand & -hand
    second = lays[low.bit_length() - 1]
    if n == 2:
        return (first, second)
    hand ^= low
    return (first, second, lays[hand.bit_length() - 1])


def keep(listings: dict[int, tuple[Play, ...]], key: int, plays: tuple[Play, ...]) -> None:
    """Remembers a listing met before (LISTINGS_LIMIT bounds them: all go at once past it)."""
    if len(listings) >= LISTINGS_LIMIT:
        listings.clear()
    listings[key] = plays


def legal_actions(rules: EscobaRules, state: EscobaState) -> tuple[Play, ...]:
    """Every legal play of the seat to move, in canonical order (card, then capture mask).

    A card that can capture has only its capturing plays; one that cannot is laid on the table.
    The state and its plays are kept as `Tables.listed`: `apply` on the same state object finds
    its play among them without listing again.
    """
    if state.phase != "play":
        return ()
    t = tables(rules)
    seat = state.to_move
    plays = listing(t, seat, state.hands[seat], state.table)
    listed = t.listed
    listed.state = state
    listed.plays = plays
    return plays


def coerce_play(action: object, players: int, deck: int) -> Play:
    """The action as a Play with seat, card and capture in range; MalformedInput otherwise.

    ``deck`` is the mask of the pack's cards. The fields are checked as plain objects before
    anything reads them as numbers (a Play may hold anything a caller put in it).
    """
    if not isinstance(action, tuple) or len(action) != 3:
        raise MalformedInput(f"a play is (seat, card, capture mask); got {action!r}")
    seat: object = action[0]
    c: object = action[1]
    cap: object = action[2]
    size = deck.bit_count()
    if type(seat) is not int or not 0 <= seat < players:
        raise MalformedInput(f"seat {seat!r} is not a seat of {players} players")
    if type(c) is not int or not 0 <= c < deck.bit_length() or not deck >> c & 1:
        raise MalformedInput(f"{c!r} is not a card of the {size}-card deck")
    if type(cap) is not int or cap < 0 or cap & ~deck:
        raise MalformedInput(f"capture {cap!r} is not a mask of cards of the deck")
    if type(action) is Play:
        return action
    return Play(seat, c, cap)


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
