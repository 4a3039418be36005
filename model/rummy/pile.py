"""The discard pile: when it may be taken, how its top card is used, where the rest goes.

The pile is always taken whole and its top card is used at once (`TakePile.use`):

- "set": a new set of the top card with `pile_new_set_naturals` naturals of its rank from the
  hand; or with one natural fewer and a wild when the pile is not frozen and
  *:pile-wild-pair-after allows it (the side has opened, or the pile was already taken this hand).
  When a side keeps one set per rank (*:several-sets-same-rank false) and already has a set of
  that rank, the top card and the cards shown join that set instead (reading: the pair still
  takes a frozen pile).
- "escalera": a new escalera with two cards of the hand (*:pile-new-sequence).
- "add": onto a set of the side (*:pile-to-own-set, a completed one only with
  *:pile-to-completed-set, and only where the set may still grow), or onto one of its escaleras
  (*:pile-to-own-sequence). Never while the pile is frozen, nor, where *:pile-add-after says so,
  before somebody has taken the pile this hand.

The pile cannot be taken when empty, when its top card is of a *:blocked-by-top class, by a player
holding one card while the stock lasts (*:pile-one-card-rule), or with an exhausted stock beyond
what *:stock-out allows. It is frozen while it holds a card of a *:frozen-by class. A side that has
not opened takes it only to open: the new meld is the start of a pending opening, which must be
able to reach the minimum (*:pile-top-counts-for-opening, *:pile-rest-after-opening). Red threes
in the pile go to the taker's side, without replacement.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from typing import Any, Final

from arbitro.model.rummy import caches
from arbitro.model.rummy.actions import TakePile
from arbitro.model.rummy.arrange import reaches
from arbitro.model.rummy.cards import (
    JOKER,
    LOWEST_THREE,
    RED_THREES,
    distinct,
    inserted,
    is_natural,
    is_red_three,
    is_wild,
    remove,
    without,
)
from arbitro.model.rummy.going_out import dead_end
from arbitro.model.rummy.melds import (
    SEQ,
    SET,
    Meld,
    add_problem,
    classify,
    is_completed,
    set_shape_problem,
    takes,
    wild_count,
)
from arbitro.model.rummy.opening import reach_ok
from arbitro.model.rummy.red_threes import lay_out
from arbitro.model.rummy.refusal import LISTED, STRICT, Judge, Refusal
from arbitro.model.rummy.state import DRAW, State, after_take, replaced
from arbitro.model.rummy.stock import exhausted
from arbitro.model.rummy.table import pending, put, with_meld_added, with_meld_grown
from arbitro.model.rummy.tables import Tables

_new: Final[Any] = tuple.__new__
"""`Meld(...)` and `TakePile(...)` without the Python call of an interpreted
constructor."""

_MELD: Final = Meld
"""`Meld` read from a final: the compiled code looks a class named in it up in the module's
dictionary at each use."""

UNABLE = "take_upcard_unable_to_use"
"""The priced act of taking the pile without being able to use its top card."""


def frozen(t: Tables, pile: tuple[int, ...]) -> bool:
    """*:frozen-by: the pile holds a card of a freezing class."""
    # a generator `any` is a loop of the compiled code; `any(map(...))` called `__getitem__`
    # through the interpreter once per card of the pile
    frozen_by = t.frozen_by
    return any(frozen_by[c] for c in pile)


def wild_pair_allowed(t: Tables, state: State, opened: bool) -> bool:
    """*:pile-wild-pair-after: whether one natural and a wild may take an unfrozen pile."""
    when = t.pile_wild_pair_after
    if when == "side_opened":
        return opened
    if when == "first_pile_take":
        return state.pile_taken
    return False


def add_allowed(t: Tables, state: State) -> bool:
    """*:pile-add-after: whether the top card alone, put on a meld of the side, may take the pile."""
    return t.pile_add_after != "first_pile_take" or state.pile_taken


def candidate_fields(t: Tables, state: State) -> list[tuple[str, int, tuple[int, ...]]]:
    """The (use, meld, cards) of every TakePile whose cards the player holds, less those `take`
    refuses whatever else holds, in canonical order: any take of an empty, blocked
    (*:blocked-by-top) or non-natural top, or under *:pile-one-card-rule; a wild pair or an
    escalera or an addition on a frozen pile (*:frozen-by); a wild pair before
    *:pile-wild-pair-after allows it; a new set with a wild, or an escalera, whose cards and the
    top card do not form that meld (`classify`); an addition before *:pile-add-after allows it,
    or to a meld the top card cannot join (`add_problem`). The rest are judged by `take`."""
    pile = state.pile
    if not pile:
        return []
    top = pile[-1]
    if not is_natural(top) or t.blocked_by[top]:
        return []
    seat = state.seat
    hand = state.hands[seat]
    if t.pile_one_card_rule and len(hand) == 1 and state.stock:
        return []
    rank = top >> 2
    k = t.pile_new_set_naturals
    # the hand's cards of the top card's rank: a slice of the sorted hand, its ends found by a
    # loop of the compiled code (two calls of `bisect.bisect_left` went through the
    # interpreter's calling convention; a list of them built a list and a tuple)
    n = len(hand)
    lo = 0
    while lo < n and hand[lo] >> 2 < rank:
        lo += 1
    hi = lo
    while hi < n and hand[hi] >> 2 == rank:
        hi += 1
    same = hand[lo:hi]
    sets = list(_combos(same, k)) if len(same) >= k else []
    is_frozen = frozen(t, pile)
    sd = state.table[seat % state.sides]
    # the cards shown join the side's set of that rank where it keeps one set per rank; else
    # they and the top card form a new set, which `classify` must accept
    joins = not t.several_sets_same_rank and any(m.kind == SET and m.key == rank for m in sd.melds)
    if k >= 1 and not is_frozen and wild_pair_allowed(t, state, sd.opened):
        # the distinct wilds held: the twos sort first, the joker last
        wilds: list[int] = []
        for c in hand:
            if c >= LOWEST_THREE:
                break
            if not wilds or wilds[-1] != c:
                wilds.append(c)
        if hand and hand[-1] == JOKER:
            wilds.append(JOKER)
        if wilds and len(same) >= k - 1:
            cards: tuple[int, ...]
            trio: tuple[int, ...]
            for combo in _combos(same, k - 1):
                for w in wilds:
                    # each card put in its place, not sorted again: with one natural shown
                    # (the rank's naturals about the top card, the twos first, the joker last)
                    # the tuples are built at once, else by `cards.inserted`
                    if len(combo) == 1:
                        n = combo[0]
                        pair = (n, top) if n <= top else (top, n)
                        if w == JOKER:
                            cards = (n, w)
                            trio = (pair[0], pair[1], w)
                        else:
                            cards = (w, n)
                            trio = (w, pair[0], pair[1])
                    else:
                        cards = inserted(combo, (w,))
                        trio = inserted(cards, (top,))
                    if joins or isinstance(classify(t, trio), Meld):
                        sets.append(cards)
            sets.sort()
    out: list[tuple[str, int, tuple[int, ...]]] = [("set", -1, c) for c in sets]
    if t.pile_new_sequence and t.sequences and not is_frozen:
        suit = top & 3
        # only cards of the top card's rank or within two escalera positions of it can make a
        # three-card escalera with it (`classify` refuses the rest at its position test, after
        # reading what the test here reads); the pairs keep their order
        seq_pos = t.seq_pos
        p = seq_pos[rank]
        near = distinct(
            c
            for c in hand
            if is_natural(c)
            and c & 3 == suit
            and (
                c >> 2 == rank
                or (p >= 0 and seq_pos[c >> 2] >= 0 and -2 <= seq_pos[c >> 2] - p <= 2)
            )
        )
        for a, b in combinations(near, 2):
            # only two cards that make an escalera with the top card (`classify`)
            got = classify(t, tuple(sorted((a, b, top))))
            if isinstance(got, Meld) and got.kind == SEQ:
                out.append(("escalera", -1, (a, b)))
    if not is_frozen and add_allowed(t, state):
        per_meld = t.per_meld
        suit = top & 3
        for i, m in enumerate(sd.melds):
            # the top card joins by `add_problem` (a natural: by rank for a set, as an end of an
            # escalera of its suit); wild and black-three melds never take it, nor a set of
            # another rank or an escalera of another suit, which `takes` is not asked about
            kind = m.kind
            if not ((kind == SET and m.key == rank) or (kind == SEQ and m.key == suit)):
                continue
            # what `takes` says of a meld is found by the meld's identity where the listing of
            # additions kept it (`engine._slots`): a meld left alone is the same object from
            # turn to turn
            hit: tuple[Meld, tuple[int, bool, tuple[int, ...]]] | None = per_meld.get(id(m))
            if hit is not None and hit[0] is m:
                nat_rank = hit[1][0]
                ends = hit[1][2]
            else:
                nat_rank, _, ends = takes(t, m)
            if nat_rank == rank or top in ends:
                out.append(("add", i, ()))
    return out


def _combos(cards: tuple[int, ...], k: int) -> tuple[tuple[int, ...], ...]:
    """The distinct sub-multisets of `k` cards of the sorted `cards`, in order; those of all
    the cards, of one card or of two without a call to the remembered `_some_combos`."""
    if k == len(cards):
        return (cards,)
    if k == 1:
        # each card once, at its first copy (a loop of the compiled code, not `itertools.groupby`)
        ones: list[tuple[int, ...]] = []
        last = -1
        for c in cards:
            if c != last:
                ones.append((c,))
                last = c
        return tuple(ones)
    if k == 2:
        # each pair once: the first card at its first copy, the second at its first copy after it
        n = len(cards)
        pairs: list[tuple[int, ...]] = []
        for i in range(n - 1):
            a = cards[i]
            if i and cards[i - 1] == a:
                continue
            for j in range(i + 1, n):
                b = cards[j]
                if j > i + 1 and cards[j - 1] == b:
                    continue
                pairs.append((a, b))
        return tuple(pairs)
    return _some_combos(cards, k)


@lru_cache(maxsize=caches.SMALL)
def _some_combos(cards: tuple[int, ...], k: int) -> tuple[tuple[int, ...], ...]:
    """The distinct sub-multisets of `k` cards of the sorted `cards`, in order."""
    return tuple(sorted(set(combinations(cards, k))))


def take(t: Tables, state: State, a: TakePile, j: Judge = STRICT) -> State:
    """The state after taking the pile, before its opening or dead-end consequences."""
    seat = state.seat
    side_i = seat % state.sides
    sd = state.table[side_i]
    hand = state.hands[seat]
    if not state.pile:
        j.halt("pile_new_set_naturals", "the discard pile is empty")
    top = state.pile[-1]
    if t.blocked_by[top]:
        j.refuse("blocked_by_top", "the top card of the pile stops it being taken")
    if t.pile_one_card_rule and len(hand) == 1 and state.stock:
        j.refuse(
            "pile_one_card_rule",
            "a player holding one card may not take the pile while the stock lasts",
        )
    ex = exhausted(t, state)
    if not is_natural(top):
        j.halt("pile_new_set_naturals", "the top card has no natural rank to meld with", UNABLE)
    is_frozen = frozen(t, state.pile)
    melds = sd.melds
    joined = False
    # the meld the take makes: a new one (`added`), or meld `grown_at` grown (`grown_meld`)
    added: Meld | None = None
    grown_at = -1
    grown_meld: Meld | None = None
    # the fields by index: `a.use` and `a.cards` are properties of an interpreted class (the
    # cards are a tuple, `engine.well_formed`; the use is compared as it is, whatever it is)
    av: tuple[Any, ...] = a  # read as a tuple (`a[k]` is a generic item lookup)
    use: object = av[2]
    a_cards: tuple[int, ...] = av[4]
    if use == "set":
        if j is not LISTED and not _holds(hand, a_cards):
            j.halt("pile_new_set_naturals", "the player does not hold those cards")
        nat = [c for c in a_cards if not is_wild(c)]
        wild = len(a_cards) - len(nat)
        k = t.pile_new_set_naturals
        if any(c >> 2 != top >> 2 or not is_natural(c) for c in nat):
            j.halt("pile_new_set_naturals", "the cards must match the top card's rank", UNABLE)
        if wild == 0:
            if len(nat) != k:
                j.halt(
                    "pile_new_set_naturals",
                    f"a new set from the pile takes {k} naturals from the hand",
                    UNABLE,
                )
        else:
            if wild != 1 or len(nat) != k - 1:
                j.halt("pile_new_set_naturals", "the pile is never taken with two wilds", UNABLE)
            if is_frozen:
                j.refuse(
                    "frozen_by", "a frozen pile needs a natural pair matching its top card", UNABLE
                )
            if not wild_pair_allowed(t, state, sd.opened):
                j.refuse(
                    "pile_wild_pair_after", "a natural and a wild do not take the pile yet", UNABLE
                )
        own = [i for i, m in enumerate(melds) if m.kind == SET and m.key == top >> 2]
        if own and not t.several_sets_same_rank:
            # one set per rank: the top card and the cards shown join the side's set
            i = own[0]
            grown = join_set(t, melds[i], top, a_cards)
            if isinstance(grown, str):
                j.halt(grown, "the top card and those cards cannot join the side's set", UNABLE)
            grown_at = i
            grown_meld = grown
        else:
            got = classify(t, tuple(sorted((*a_cards, top))))
            if isinstance(got, str):
                j.halt(got, "those cards and the top card do not form a set", UNABLE)
            added = got
        joined = bool(own) and not t.several_sets_same_rank
        used = a_cards
    elif use == "escalera":
        if not (t.sequences and t.pile_new_sequence):
            j.refuse("pile_new_sequence", "the pile is not taken to start an escalera", UNABLE)
        if is_frozen:
            j.refuse(
                "frozen_by", "a frozen pile needs a natural pair matching its top card", UNABLE
            )
        if len(a_cards) != 2 or (j is not LISTED and not _holds(hand, a_cards)):
            j.halt("pile_new_sequence", "an escalera from the pile takes two cards from the hand")
        got = classify(t, tuple(sorted((*a_cards, top))))
        if isinstance(got, str) or got.kind != SEQ:
            j.halt("sequences", "those cards and the top card do not form an escalera", UNABLE)
        added = got
        used = a_cards
    elif use == "add":
        a_meld: int = av[3]
        if not 0 <= a_meld < len(melds):
            j.halt("pile_to_own_set", f"the side has no meld {a_meld}", UNABLE)
        if is_frozen:
            j.refuse(
                "frozen_by",
                "a frozen pile is taken only with a natural pair matching its top card",
                UNABLE,
            )
        if not add_allowed(t, state):
            j.refuse(
                "pile_add_after",
                "nobody has taken the pile yet this hand: the first take needs a natural pair",
                UNABLE,
            )
        m = melds[a_meld]
        if m.kind == SET:
            if not t.pile_to_own_set:
                j.refuse("pile_to_own_set", "the top card alone does not take the pile", UNABLE)
            if is_completed(t, m) and not t.pile_to_completed_set:
                j.refuse(
                    "pile_to_completed_set", "a finished canasta does not take the pile", UNABLE
                )
        elif m.kind == SEQ:
            if not t.pile_to_own_sequence:
                j.refuse(
                    "pile_to_own_sequence", "extending an escalera does not take the pile", UNABLE
                )
        else:
            j.halt("pile_to_own_set", "the top card cannot go onto that meld", UNABLE)
        p = add_problem(t, m, top)
        if p:
            j.halt(p, "the top card cannot go onto that meld", UNABLE)
        grown_at = a_meld
        # the top card put in its place among the meld's sorted cards (no list sorted again)
        grown_meld = _new(_MELD, (m.kind, m.key, inserted(m.cards, (top,))))
        used = ()
    else:
        j.halt("pile_new_set_naturals", f"unknown use of the top card {use!r}")
    if ex and t.stock_out == "forced_take_if_matches_meld" and not (use == "add" or joined):
        j.refuse("stock_out", "with the stock exhausted only a top card that fits a meld takes it")
    j.stop()
    rest = state.pile[:-1]
    reds: list[int] = []
    if _red_in(rest):
        reds = [c for c in rest if is_red_three(c)]
        rest = tuple(c for c in rest if not is_red_three(c))
    # a listed take shows sorted cards it holds: one walk of the two tuples
    new_hand = without(hand, used) if j is LISTED else remove(hand, used)
    held: tuple[int, ...] = ()
    opening = not sd.opened
    if opening and t.pile_rest_after_opening:
        held = tuple(sorted(rest))
    else:
        new_hand = tuple(sorted((*new_hand, *rest)))
    # one meld new or grown among sorted ones: placed where sorting would put it
    if added is not None:
        table = with_meld_added(state, added)
    else:
        assert grown_meld is not None  # a take that lays no meld grows one
        table = with_meld_grown(state, grown_at, grown_meld)
    hands: tuple[tuple[int, ...], ...] = put(state.hands, seat, new_hand)
    s = after_take(state, hands, table, held, t.points[top] if opening else 0)
    return lay_out(s, side_i, reds) if reds else s


def join_set(t: Tables, m: Meld, top: int, cards: tuple[int, ...]) -> Meld | str:
    """The side's set `m` with the top card and then the cards shown (naturals first) joined
    one by one, or the clause key (`add_problem`) of the first that cannot join."""
    # naturals first, each kind in the order shown (`sorted(cards, key=is_wild)`, without the
    # key's call through the interpreter per card)
    wilds = [c for c in cards if is_wild(c)]
    for c in (top, *[c for c in cards if not is_wild(c)], *wilds):
        p = add_problem(t, m, c)
        if p:
            return p
        m = _new(Meld, (SET, m.key, tuple(sorted((*m.cards, c)))))
    return m


def join_ok(t: Tables, m: Meld, top: int, cards: tuple[int, ...]) -> bool:
    """Whether `join_set` joins the top card and `cards` to the side's set `m` (gives a meld,
    not a clause key), worked out from the set's size and wild count as each card joins: the
    tests of `melds.add_problem` for a set, without building the meld after each card."""
    size = len(m.cards)
    w = wild_count(m.cards)
    key = m.key
    completed = t.completed
    wild_order = [c for c in cards if is_wild(c)]
    for c in (top, *[c for c in cards if not is_wild(c)], *wild_order):
        wild = is_wild(c)
        if not wild and c >> 2 != key:
            return False
        if size >= completed:
            g = t.completed_set_growth
            if g == "none":
                return False
            if g == "naturals" and wild:
                return False
            # clean: no wild in the set (`melds.is_clean`)
            if g == "one_natural_if_clean" and (wild or size > completed or w > 0):
                return False
        if wild:
            if set_shape_problem(t, size - w, w + 1):
                return False
            w += 1
        size += 1
    return True


def take_to_open(t: Tables, state: State, a: TakePile, j: Judge = STRICT) -> State:
    """`take`, refused when the pending opening it starts can no longer reach the minimum.

    The minimum is judged on what the taker sees before taking: its hand, the top card and the
    cards of the pile that stick out (*:frozen-by); the covered cards, which go to its hand, are
    not counted, since nobody may look at them before the take (so whether a take is legal
    never depends on a card the player cannot see). More cards never make the minimum harder to
    reach, so a take judged so still leaves the opening reachable."""
    s2 = take(t, state, a, j)
    # a take listed as legal (`LISTED`) left the opening reachable: the search is not run again
    if j is not LISTED and pending(s2) and not reach_ok(t, _as_seen(t, state, s2)):
        j.refuse(
            "opening_minimums",
            "the opening minimum cannot be reached with this pile take",
            "take_upcard_unable_to_open",
        )
    return s2


def _as_seen(t: Tables, before: State, after: State) -> State:
    """`after` (a take) without the covered cards of the pile's rest in the taker's hand: the
    state the taker could judge before taking."""
    seat = before.seat
    frozen_by = t.frozen_by
    covered = [c for c in before.pile[:-1] if not frozen_by[c] and not is_red_three(c)]
    hand = after.hands[seat]
    if not covered or after.held or not _holds(hand, tuple(covered)):
        return after  # the rest was set aside (*:pile-rest-after-opening), or nothing was covered
    hands = (*after.hands[:seat], remove(hand, covered), *after.hands[seat + 1 :])
    return replaced(after, hands=hands)


def opens_by_reach(t: Tables, state: State, m: Meld, cards: tuple[int, ...]) -> bool:
    """Whether `arrange.reaches` finds the opening reachable after taking the pile to open with
    `cards` and the top card as the new meld `m`, judged as `take_to_open` judges it (on what the
    taker sees), for a side with no melds yet, without building the state after the take: True
    means `take_to_open` accepts the take; False leaves it to `going_out.can_go_out` there."""
    seat = state.seat
    pile = state.pile
    top = pile[-1]
    rest = pile[:-1]
    if RED_THREES[0] in rest or RED_THREES[1] in rest:
        rest = tuple(c for c in rest if not is_red_three(c))
    hand = remove(state.hands[seat], cards)
    if t.pile_rest_after_opening:
        # the rest is held aside: the hand is what it was less the cards shown
        keep = max(0, 2 - len(rest))
    else:
        # the rest goes to the hand, but only the cards sticking out of the pile are seen
        frozen_by = t.frozen_by
        shown = [c for c in rest if frozen_by[c]]
        if shown:
            hand = tuple(sorted((*hand, *shown)))
        keep = 2
    pts = t.points
    points = sum(pts[c] for c in m.cards)
    if not t.pile_top_counts_for_opening:
        points -= pts[top]
    need = state.minimums[seat % state.sides] - points
    return reaches(t, hand, (m,), need, keep)


def take_pile(t: Tables, s: State, a: TakePile, j: Judge = STRICT) -> State:
    """The TakePile action: at the start of a turn, instead of drawing; a hand the take leaves
    with no way on is a dead end (`going_out.dead_end`)."""
    if s.step != DRAW:
        j.halt(
            "pile_new_set_naturals", "the pile is taken instead of drawing, at the start of a turn"
        )
    s2 = take_to_open(t, s, a, j)
    j.stop()
    if pending(s2):
        return s2
    return dead_end(t, s2, True)


def can_take(t: Tables, s: State) -> bool:
    """Whether the player to move may take the pile (some candidate is not refused)."""
    seat = s.seat
    fields = candidate_fields(t, s)
    sd = s.table[seat % s.sides]
    if sd.opened:
        # the top card onto a meld of a side that has opened (`candidate_fields` kept only the
        # melds it joins, on a pile neither frozen nor closed to additions): `take` refuses it
        # only by the kind of meld, and `take_to_open` has no pending opening to judge after it
        for use, i, _ in fields:
            if use == "add" and takes_onto(t, sd.melds[i]):
                return True
    for f in fields:
        try:
            take_to_open(t, s, _new(TakePile, (1, seat, *f)))
        except Refusal:
            continue
        return True
    return False


def takes_onto(t: Tables, m: Meld) -> bool:
    """Whether the top card put onto the side's meld `m` takes the pile, as far as the kind of
    meld goes (`take`'s clauses for an addition: *:pile-to-own-set, *:pile-to-completed-set,
    *:pile-to-own-sequence)."""
    if m.kind == SET:
        return t.pile_to_own_set and (len(m.cards) < t.completed or t.pile_to_completed_set)
    return m.kind == SEQ and t.pile_to_own_sequence


def _red_in(cards: tuple[int, ...]) -> bool:
    """`RED_THREES[0] in cards or RED_THREES[1] in cards` by one loop of the compiled code (a
    generator `any`; `in` on a tuple compares each card as an object, twice over)."""
    red0, red1 = RED_THREES
    return any(c in (red0, red1) for c in cards)


def _holds(hand: tuple[int, ...], cards: tuple[int, ...]) -> bool:
    try:
        remove(hand, cards)
    except ValueError:
        return False
    return True
