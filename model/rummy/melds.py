"""Melds: sets of one rank, escaleras of one suit, wild-only melds and black-three melds.

A meld is a value `Meld(kind, key, cards)`: `key` is the rank index of a set, the suit of an
escalera, -1 otherwise; `cards` is the sorted multiset it holds. A side's melds are kept sorted,
so an action names a meld by its index in that order. Completion (a canasta, a samba) and
cleanness are read off the cards: completed at `completed_size` cards, clean without wilds.

Implements *:set-min, *:set-start-min-naturals, *:wild-cap, *:wilds-at-most-naturals,
*:completed-size, *:completed-set-growth, *:merge-sets, *:sequences, *:sequence-ranks,
*:sequence-min, *:sequence-max, *:wild-canasta, *:wild-meld-min-start, *:black-threes-meld,
*:black-three-meld-wilds.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from arbitro.model.rummy import caches
from arbitro.model.rummy.cards import (
    JOKER,
    LOWEST_NATURAL,
    LOWEST_THREE,
    is_black_three,
    is_natural,
    is_red_three,
    is_wild,
)
from arbitro.model.rummy.tables import Tables

SET: Final = 0
SEQ: Final = 1
WILDS: Final = 2
BLACK3: Final = 3
KIND_NAMES = ("set", "escalera", "wilds", "black-threes")

_new: Final[Any] = tuple.__new__


class Meld(NamedTuple):
    """One meld on the table."""

    kind: int
    key: int  # SET: rank index; SEQ: suit; WILDS, BLACK3: -1
    cards: tuple[int, ...]


def _meld(kind: int, key: int, cards: tuple[int, ...]) -> Meld:
    """`Meld(kind, key, cards)` without the Python call of a NamedTuple's constructor."""
    got: Meld = _new(Meld, (kind, key, cards))
    return got


def wild_count(cards: tuple[int, ...]) -> int:
    """How many wild cards a sorted meld holds."""
    # wild cards sort first (the twos) and last (the jokers)
    n = 0
    for c in cards:
        if c < LOWEST_THREE:
            n += 1
        else:
            break
    if cards and cards[-1] == JOKER:
        for c in reversed(cards):
            if c == JOKER:
                n += 1
            else:
                break
    return n


def is_completed(t: Tables, m: Meld) -> bool:
    """A canasta, a samba or a completed wild meld. *:completed-size."""
    return m.kind != BLACK3 and len(m.cards) >= t.completed


def is_clean(m: Meld) -> bool:
    """No wild card in it (a wild-only meld is never clean)."""
    if m.kind == SEQ:
        return True
    if m.kind == WILDS:
        return False
    c = m.cards
    return not (c[0] < LOWEST_THREE or c[-1] == JOKER)


def seq_span(t: Tables, m: Meld) -> tuple[int, int]:
    """Lowest and highest escalera position of an escalera."""
    return t.seq_pos[m.cards[0] >> 2], t.seq_pos[m.cards[-1] >> 2]


def set_shape_problem(t: Tables, n: int, w: int) -> str | None:
    """Wild limits of a set with `n` naturals and `w` wilds. *:wild-cap, *:wilds-at-most-naturals."""
    if w > t.wild_cap:
        return "wild_cap"
    if t.wilds_at_most_naturals and w > n:
        return "wilds_at_most_naturals"
    return None


def set_shape_problems(t: Tables, n: int, w: int) -> list[str]:
    """Every wild limit a set with `n` naturals and `w` wilds breaks, in `set_shape_problem`'s
    order."""
    out = []
    if w > t.wild_cap:
        out.append("wild_cap")
    if t.wilds_at_most_naturals and w > n:
        out.append("wilds_at_most_naturals")
    return out


def classify(t: Tables, cards: tuple[int, ...]) -> Meld | str:
    """The meld these cards form when laid together, or the clause key that refuses them.

    Size limits of a lay (the minimum the engine accepts) are checked by the engine. Remembered
    per card tuple (`Tables.memo`): a lay names few distinct tuples.
    """
    key = ("classify", cards)
    memo = t.memo
    got: Meld | str | None = memo.get(key)
    if got is None:
        got = _classify(t, cards)
        caches.remember(memo, key, got)
    return got


def wild_set(t: Tables, cards: tuple[int, ...]) -> int:
    """`classify` of sorted cards that are twos, naturals of one rank and jokers, with at least
    one natural (the sets with wilds `laying` lists), decided on the set's size, naturals and
    wilds against the Tables' limits: the set's rank when `classify` makes them a set, -1 when
    it refuses them. No memo lookup (which hashed the cards) and no meld built. -2 for any
    other cards, which `classify` decides."""
    size = len(cards)
    i = 0
    while i < size and cards[i] < LOWEST_THREE:
        i += 1
    j = size
    while j > i and cards[j - 1] == JOKER:
        j -= 1
    if i == j:
        return -2
    lo = cards[i]
    # sorted: every card between a natural and one of its rank is a natural of that rank
    if lo < LOWEST_NATURAL or lo >> 2 != cards[j - 1] >> 2:
        return -2
    n = j - i
    if (
        n < t.set_start_min_naturals
        or size < t.set_min
        or size > t.completed
        or set_shape_problem(t, n, size - n) is not None
    ):
        return -1
    return lo >> 2


def _classify(t: Tables, cards: tuple[int, ...]) -> Meld | str:
    if not cards:
        return "set_min"
    nat = [c for c in cards if not is_wild(c)]
    w = len(cards) - len(nat)
    if not nat:
        if not t.wild_canasta:
            return "wild_canasta"
        if len(cards) < t.wild_meld_min_start:
            return "wild_meld_min_start"
        if len(cards) > t.completed:
            return "completed_size"
        return _meld(WILDS, -1, cards)
    if all(is_black_three(c) for c in nat):
        if t.black_threes_meld == "never":
            return "black_threes_meld"
        if w and not t.black_three_meld_wilds:
            return "black_three_meld_wilds"
        if len(cards) < t.set_min:
            return "set_min"
        p = set_shape_problem(t, len(nat), w)
        return p if p else _meld(BLACK3, -1, cards)
    if not all(is_natural(c) for c in nat):
        return "red_threes_meld" if any(is_red_three(c) for c in nat) else "black_threes_meld"
    rank = nat[0] >> 2
    if all(c >> 2 == rank for c in nat):
        if len(nat) < t.set_start_min_naturals:
            return "set_start_min_naturals"
        if len(cards) < t.set_min:
            return "set_min"
        p = set_shape_problem(t, len(nat), w)
        if p:
            return p
        if len(cards) > t.completed:
            return "completed_size"
        return _meld(SET, rank, cards)
    # an escalera: one suit, consecutive escalera ranks, naturals only
    if not t.sequences:
        return "sequences" if all(c & 3 == nat[0] & 3 for c in nat) else "set_min"
    if w:
        return "sequences"
    suit = nat[0] & 3
    if any(c & 3 != suit for c in nat):
        return "sequences"
    pos = [t.seq_pos[c >> 2] for c in nat]
    if -1 in pos:
        return "sequence_ranks"
    if pos != list(range(pos[0], pos[0] + len(pos))):
        return "sequences"
    if len(cards) < t.sequence_min:
        return "sequence_min"
    if len(cards) > t.sequence_max:
        return "sequence_max"
    return _meld(SEQ, suit, cards)


def add_problem(t: Tables, m: Meld, c: int) -> str | None:
    """Why card `c` may not join meld `m`, as a clause key; None when it may."""
    size = len(m.cards)
    if m.kind == SET:
        wild = is_wild(c)
        if not wild and c >> 2 != m.key:
            return "set_min"
        if size >= t.completed:
            g = t.completed_set_growth
            if g == "none":
                return "completed_set_growth"
            if g == "naturals" and wild:
                return "completed_set_growth"
            if g == "one_natural_if_clean" and (wild or size > t.completed or not is_clean(m)):
                return "completed_set_growth"
        if wild:
            w = wild_count(m.cards)
            return set_shape_problem(t, size - w, w + 1)
        return None
    if m.kind == SEQ:
        if is_wild(c):
            return "sequences"
        if c & 3 != m.key:
            return "sequences"
        p = t.seq_pos[c >> 2]
        lo, hi = seq_span(t, m)
        if p == -1 or (p != lo - 1 and p != hi + 1):
            return "sequences"
        if size >= t.sequence_max:
            return "sequence_max"
        return None
    if m.kind == WILDS:
        if not is_wild(c):
            return "wild_canasta"
        if size >= t.completed:
            return "completed_size"
        return None
    return "black_threes_meld"


def takes(t: Tables, m: Meld) -> tuple[int, bool, tuple[int, ...]]:
    """What may join `m` by `add_problem`: (the rank whose naturals may join, else -1; whether
    a wild may; the escalera cards that extend it), remembered per meld.

    A natural of a set's rank joins it or not whichever natural it is, and likewise any wild,
    so one card of each class decides for all.
    """
    memo = t.memo
    got: tuple[int, bool, tuple[int, ...]] | None = memo.get(m)
    if got is None:
        got = takes_now(t, m)
        caches.remember(memo, m, got)
    return got


def takes_now(t: Tables, m: Meld) -> tuple[int, bool, tuple[int, ...]]:
    """`takes` worked out, not looked up: for a meld just made, whose value no memo holds (the
    lookup would hash its cards for nothing)."""
    got: tuple[int, bool, tuple[int, ...]]
    kind = m.kind
    if kind == SET:
        nat_ok = add_problem(t, m, m.key * 4) is None
        got = (m.key if nat_ok else -1, add_problem(t, m, 0) is None, ())
    elif kind == SEQ:
        ends: list[int] = []
        if len(m.cards) < t.sequence_max:
            lo, hi = seq_span(t, m)
            for p in (lo - 1, hi + 1):
                if 0 <= p < len(t.seq_rank):
                    ends.append(t.seq_rank[p] * 4 + m.key)
        got = (-1, False, tuple(ends))
    elif kind == WILDS:
        got = (-1, add_problem(t, m, 0) is None, ())
    else:
        got = (-1, False, ())
    return got


def merge_problem(t: Tables, a: Meld, b: Meld) -> str | None:
    """Why sets `a` and `b` may not be joined; None when they may. *:merge-sets.

    Reading: only two unfinished sets of one rank merge, into a set within the wild limits and no
    larger than a canasta unless completed sets may grow by any card.
    """
    if not t.merge_sets:
        return "merge_sets"
    if a.kind != SET or b.kind != SET or a.key != b.key:
        return "merge_sets"
    if len(a.cards) >= t.completed or len(b.cards) >= t.completed:
        return "merge_sets"
    size = len(a.cards) + len(b.cards)
    w = wild_count(a.cards) + wild_count(b.cards)
    p = set_shape_problem(t, size - w, w)
    if p:
        return p
    if size > t.completed and t.completed_set_growth != "any":
        return "completed_set_growth"
    return None


def meld_problem(t: Tables, m: Meld) -> str | None:
    """Whether a meld on the table is well formed (for whole-state checks); a clause key if not."""
    cards = m.cards
    if list(cards) != sorted(cards):
        return "set_min"
    w = wild_count(cards)
    n = len(cards) - w
    size = len(cards)
    if m.kind == SET:
        if any(not is_wild(c) and c >> 2 != m.key for c in cards) or not is_natural(m.key * 4):
            return "set_min"
        if size < t.set_min:
            return "set_min"
        p = set_shape_problem(t, n, w)
        if p:
            return p
        if size > t.completed:
            g = t.completed_set_growth
            if g == "none":
                return "completed_set_growth"
            if g == "one_natural_if_clean" and (size > t.completed + 1 or w):
                return "completed_set_growth"
            if g == "naturals" and t.wilds_at_most_naturals and w > t.completed - w:
                return "completed_set_growth"
        return None
    if m.kind == SEQ:
        got = classify(t, cards)
        if isinstance(got, str):
            return got
        return None if got.kind == SEQ and got.key == m.key else "sequences"
    if m.kind == WILDS:
        if n or not t.wild_canasta:
            return "wild_canasta"
        if size < t.wild_meld_min_start:
            return "wild_meld_min_start"
        return "completed_size" if size > t.completed else None
    if m.kind == BLACK3:
        got = classify(t, cards)
        if isinstance(got, str):
            return got
        return None if got.kind == BLACK3 else "black_threes_meld"
    return "set_min"
