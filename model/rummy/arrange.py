"""Exact search over arrangements of hand cards onto a side's melds.

Two questions decide whether an action leaves the player a way to finish the turn:

- `reaches(...)`: can cards from the hand be laid (new melds, additions, merges, cleanings) so that
  at least `target` points are placed while `keep` cards stay in hand? (the opening minimum,
  *:opening-minimums)
- `places_all(...)`: can every card be placed so that the side's completed melds meet the
  going-out requirements? (*:go-out-min-completed, *:go-out-min-clean, *:go-out-min-dirty,
  *:go-out-wait-after-clean)

Both look at final arrangements, not at orders of atomic actions: a final arrangement is admitted
only when some order of `LayMeld` (at its minimum size) and single-card `AddToMeld` reaches it
(e.g. under *:completed-set-growth "naturals" every wild of a set must be in before it reaches
the completed size). Escaleras are chosen per suit; what is left of each rank goes to sets, whose
options are combined rank by rank with the wild cards they use. The tests compare these answers
with a brute-force search over the engine's own atomic actions.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any, Final, NamedTuple

from arbitro.model.rummy import caches
from arbitro.model.rummy.cards import (
    BLACK_THREES,
    JOKER,
    LOWEST_NATURAL,
    LOWEST_THREE,
)
from arbitro.model.rummy.laying import shape
from arbitro.model.rummy.melds import BLACK3, SEQ, SET, WILDS, Meld, seq_span, wild_count
from arbitro.model.rummy.tables import Tables

_new: Final[Any] = tuple.__new__
"""A NamedTuple built without the Python call of its constructor."""


class SetRules(NamedTuple):
    """The rule values that shape sets (a hashable key for caches)."""

    completed: int
    cap: int
    at_most: bool
    start_min: int
    set_min: int
    set_lay: int
    growth: str
    merge: bool
    several: bool
    clean: bool


class Need(NamedTuple):
    """What going out requires of the side's completed melds."""

    completed: int
    clean: int
    dirty: int
    wait: bool  # new clean canastas do not count (*:go-out-wait-after-clean)
    clean_start: int  # clean canastas the side had when the turn began


_SET_RULES = "arrange.set_rules"
"""The key of `set_rules` in `Tables.memo` (a string: its hash is kept, a tuple's is not)."""


def set_rules(t: Tables) -> SetRules:
    """The `SetRules` of these rules (remembered in `Tables.memo`)."""
    memo = t.memo
    got: SetRules | None = memo.get(_SET_RULES)
    if got is None:
        got = _set_rules(t)
        caches.remember(memo, _SET_RULES, got)
    return got


def _set_rules(t: Tables) -> SetRules:
    return SetRules(
        t.completed,
        t.wild_cap,
        t.wilds_at_most_naturals,
        t.set_start_min_naturals,
        t.set_min,
        t.set_lay,
        t.completed_set_growth,
        t.merge_sets,
        t.several_sets_same_rank,
        t.clean_by_replacing_wilds,
    )


def final_ok(sr: SetRules, n0: int, w0: int, new: bool, n: int, w: int) -> bool:
    """Whether a set with `n0` naturals and `w0` wilds (or a new set) can end with `n`, `w`."""
    if n < 1 or w < 0 or w > sr.cap or (sr.at_most and w > n):
        return False
    s = n + w
    if new:
        if n < sr.start_min or s < sr.set_min:
            return False
        nl = min(n, sr.set_lay)
        wl = sr.set_lay - nl
        if wl > w or wl > sr.cap or (sr.at_most and wl > nl):
            return False
        s0 = 0
    else:
        if n < n0:
            return False
        if w < w0 and (not sr.clean or n - n0 < w0 - w):
            return False
        s0 = n0 + w0
    done0 = s0 >= sr.completed
    if s > sr.completed:
        g = sr.growth
        if g == "none":
            return False
        if g == "naturals":
            if done0:
                return w <= w0
            # every wild must be in before the set reaches the completed size
            if n0 + w > sr.completed:
                return False
            return not (sr.at_most and w > sr.completed - w)
        if g == "one_natural_if_clean":
            return s == sr.completed + 1 and w == 0
    return True


# ---------------------------------------------------------------- sets, rank by rank

Option = tuple[int, int, int, int, int, int]
"""(naturals placed, net wilds used, completed, clean, dirty, clean completed before)."""


def _partitions(items: list[int]) -> Iterable[list[list[int]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        yield [[first], *part]
        for i in range(len(part)):
            yield [*part[:i], [first, *part[i]], *part[i + 1 :]]


def _group_options(sr: SetRules, n0: int, w0: int, new: bool, a: int) -> list[Option]:
    """Final outcomes of one set given up to `a` naturals from the hand."""
    out: list[Option] = []
    was_clean_done = (not new) and w0 == 0 and n0 + w0 >= sr.completed
    lo_n = 1 if new else n0
    for n in range(lo_n, n0 + a + 1):
        for w in range(0, sr.cap + 1):
            if not final_ok(sr, n0, w0, new, n, w):
                continue
            done = n + w >= sr.completed
            clean = done and w == 0
            out.append(
                (
                    n - n0,
                    w - w0,
                    int(done),
                    int(clean),
                    int(done and w > 0),
                    int(clean and was_clean_done),
                )
            )
    return out


@lru_cache(maxsize=caches.RANK_OPTIONS)
def rank_options(sr: SetRules, bases: tuple[tuple[int, int], ...], a: int) -> frozenset[Option]:
    """Every outcome for one rank: existing sets `bases` (naturals, wilds), `a` naturals in hand
    (`_rank_packed` unpacked: the searches read the packed outcomes themselves)."""
    out: list[Option] = []
    for q in _rank_packed(sr, bases, a):
        out.append(
            (
                q >> _AT_N,
                (q >> _AT_X & 255) - _X_ZERO,
                q >> _AT_DONE & 255,
                q >> 16 & 255,
                q >> 8 & 255,
                q & 255,
            )
        )
    return frozenset(out)


@lru_cache(maxsize=caches.RANK_OPTIONS)
def _rank_packed(sr: SetRules, bases: tuple[tuple[int, int], ...], a: int) -> tuple[int, ...]:
    """The outcomes of `rank_options`, each once, packed into ints (`_packed`: the six counts
    side by side, which add up field by field), as they are combined: `_rank_row`,
    `_rank_pairs` and `going_out._rank_gains` read the fields they need of each, no tuple of
    six built per outcome nor hashed into a frozenset."""
    results: set[int] = set()
    incomplete = [i for i, (n, w) in enumerate(bases) if n + w < sr.completed]
    complete = [i for i, (n, w) in enumerate(bases) if n + w >= sr.completed]
    groupings: list[list[list[int]]]
    if sr.merge and len(incomplete) > 1:
        groupings = list(_partitions(incomplete))
    else:
        groupings = [[[i] for i in incomplete]]
    # a new set's outcomes, the same for every one
    fresh = _packed(_group_options(sr, 0, 0, True, a))
    limit = (a + 1) << _AT_N  # a packed sum below it places at most `a` naturals
    for grouping in groupings:
        groups: list[tuple[int, int]] = []
        ok = True
        for g in grouping:
            n0 = sum(bases[i][0] for i in g)
            w0 = sum(bases[i][1] for i in g)
            if len(g) > 1 and (
                w0 > sr.cap
                or (sr.at_most and w0 > n0)
                or (n0 + w0 > sr.completed and sr.growth != "any")
            ):
                ok = False
                break
            groups.append((n0, w0))
        if not ok:
            continue
        groups += [bases[i] for i in complete]
        kmax = a // max(1, sr.start_min) if sr.several else 1 if not bases else 0
        partial: set[int] = {_ZERO}
        for n0, w0 in groups:
            partial = _combine(partial, _packed(_group_options(sr, n0, w0, False, a)), limit)
        for _ in range(kmax + 1):
            results |= partial
            partial = _combine(partial, fresh, limit)
            if not partial:
                break
    return tuple(results)


_AT_N: Final = 40
"""Where the naturals placed lie in a packed outcome of `rank_options`: 8 bits each field, the
naturals placed, the net wilds (plus `_X_ZERO`), completed, clean, dirty, clean completed before
(a rank's counts stay below 256, its net wilds within 127 of nought: a hand holds few cards)."""

_AT_X: Final = 32

_AT_DONE: Final = 24
"""Where the melds completed lie in a packed outcome of `rank_options` (clean, dirty and clean
completed before lie at 16, 8 and 0)."""

_X_ZERO: Final = 128

_ZERO: Final = _X_ZERO << _AT_X
"""The packed outcome that places nothing; a sum of two packed outcomes less it is theirs."""


def _packed(opts: list[Option]) -> list[int]:
    """Outcomes of `_group_options` packed as `rank_options` combines them."""
    out: list[int] = []
    for n, x, c, cl, d, old in opts:
        out.append(n << _AT_N | (x + _X_ZERO) << _AT_X | c << 24 | cl << 16 | d << 8 | old)
    return out


def _combine(partial: set[int], opts: list[int], limit: int) -> set[int]:
    """The packed outcomes of `partial` each with one of `opts` added, those placing at most
    the naturals `limit` allows (for `rank_options`)."""
    out: set[int] = set()
    for p in partial:
        base = p - _ZERO
        for o in opts:
            q = base + o
            if q < limit:
                out.add(q)
    return out


# ---------------------------------------------------------------- escaleras, suit by suit

SeqOption = tuple[tuple[int, ...], int]
"""(cards of each escalera position left over, completed escaleras)."""


def suit_options(
    counts: tuple[int, ...], bases: tuple[tuple[int, int], ...], smin: int, smax: int, done: int
) -> tuple[SeqOption, ...]:
    """Every way to extend the suit's escaleras `bases` and start new ones from `counts`."""
    results: set[SeqOption] = set()
    _extend(results, bases, smin, smax, done, 0, list(counts), 0)
    return tuple(sorted(results, key=_left_over))


def _left_over(o: SeqOption) -> int:
    """The naturals an option of `suit_options` leaves over (its order: fewest first)."""
    return sum(o[0])


def _runs(
    results: set[SeqOption],
    smin: int,
    smax: int,
    done: int,
    rem: list[int],
    start: int,
    min_len: int,
    comp: int,
) -> None:
    """`suit_options`: new escaleras from `rem`, each starting at or after `start` (one starting
    at `start` at least `min_len` long), then what is left."""
    n = len(rem)
    results.add((tuple(rem), comp))
    for i in range(start, n):
        for length in range(min_len if i == start else smin, smax + 1):
            if i + length > n:
                break
            if all(rem[k] for k in range(i, i + length)):
                for k in range(i, i + length):
                    rem[k] = rem[k] - 1
                _runs(results, smin, smax, done, rem, i, length, comp + (length >= done))
                for k in range(i, i + length):
                    rem[k] = rem[k] + 1
            else:
                break


def _extend(
    results: set[SeqOption],
    bases: tuple[tuple[int, int], ...],
    smin: int,
    smax: int,
    done: int,
    b: int,
    rem: list[int],
    comp: int,
) -> None:
    """`suit_options`: the escaleras `bases[b:]` extended at either end from `rem`, then new
    ones (`_runs`)."""
    if b == len(bases):
        _runs(results, smin, smax, done, rem, 0, smin, comp)
        return
    n = len(rem)
    lo, hi = bases[b]
    size = hi - lo + 1
    el = 0
    while True:
        er = 0
        while size + el + er <= smax:
            _extend(results, bases, smin, smax, done, b + 1, rem, comp + (size + el + er >= done))
            k = hi + er + 1
            if k >= n or not rem[k]:
                break
            rem[k] = rem[k] - 1
            er += 1
        for k in range(hi + 1, hi + er + 1):
            rem[k] = rem[k] + 1
        k = lo - el - 1
        if k < 0 or not rem[k] or size + el + 1 > smax:
            break
        rem[k] = rem[k] - 1
        el += 1
    for k in range(lo - el, lo):
        rem[k] = rem[k] + 1


# ---------------------------------------------------------------- the hand and the table


class Split(NamedTuple):
    """A hand split by what the arrangement can do with each card."""

    seq: tuple[tuple[int, ...], ...]  # per suit, per escalera position: naturals
    other: tuple[int, ...]  # per rank index: naturals not usable in escaleras
    jokers: int
    twos: int
    black: int
    rest: int  # cards that can never be placed (red threes)


def split(t: Tables, cards: Iterable[int]) -> Split:
    P = len(t.seq_rank)
    seq = [[0] * P for _ in range(4)]
    other = [0] * 13
    jokers = twos = black = rest = 0
    sequences = t.sequences
    seq_pos = t.seq_pos
    for c in cards:
        # the tests of `is_wild`, `is_natural` and `is_black_three`, inline: this runs per card
        if c == JOKER:
            jokers += 1
        elif c < LOWEST_THREE:
            twos += 1
        elif LOWEST_NATURAL <= c < JOKER:
            p = seq_pos[c >> 2]
            if sequences and p >= 0:
                seq[c & 3][p] = seq[c & 3][p] + 1
            else:
                other[c >> 2] = other[c >> 2] + 1
        elif c in BLACK_THREES:
            black += 1
        else:
            rest += 1
    got: Split = _new(
        Split, (tuple([tuple(s) for s in seq]), tuple(other), jokers, twos, black, rest)
    )
    return got


class Table(NamedTuple):
    """The side's melds in the shape the search uses."""

    sets: tuple[tuple[tuple[int, int], ...], ...]  # per rank index: (naturals, wilds) of each set
    seqs: tuple[tuple[tuple[int, int], ...], ...]  # per suit: (lo, hi) escalera positions
    wild_room: int  # wilds the existing wild melds can still take
    completed: int  # completed melds that are not sets or escaleras' own counts (none: 0)
    wild_done: int


def table_of(t: Tables, melds: Iterable[Meld]) -> Table:
    """The `Table` of a side's melds: rows per rank and per suit filled in place (a second meld
    of a row, rare, sorted in), no dictionaries."""
    set_rows: list[tuple[tuple[int, int], ...]] = [()] * 13
    seq_rows: list[tuple[tuple[int, int], ...]] = [()] * 4
    comp = t.completed
    seq_pos = t.seq_pos
    room = 0
    wild_done = 0
    for m in melds:
        kind = m.kind
        cards = m.cards
        if kind == SET:
            w = wild_count(cards)
            pair = (len(cards) - w, w)
            row = set_rows[m.key]
            set_rows[m.key] = tuple(sorted((*row, pair))) if row else (pair,)
        elif kind == SEQ:
            pair = (seq_pos[cards[0] >> 2], seq_pos[cards[-1] >> 2])
            row = seq_rows[m.key]
            seq_rows[m.key] = tuple(sorted((*row, pair))) if row else (pair,)
        elif kind == WILDS:
            n = len(cards)
            if n < comp:
                room += comp - n
            else:
                wild_done += 1
    tb: Table = _new(Table, (tuple(set_rows), tuple(seq_rows), room, 0, wild_done))
    return tb


def _freeable(tb: Table, sr: SetRules) -> int:
    """How many wilds cleaning could free from the table's sets (0 without cleaning)."""
    if not sr.clean:
        return 0
    return sum(w for rank in tb.sets for _, w in rank)


def _wild_meld_amounts(t: Tables, room: int, avail: int) -> list[int]:
    """How many wilds (0..avail) can go into wild-only melds: the room left plus new melds."""
    if not t.wild_canasta:
        return [0]
    lo = max(1, t.wild_meld_min_start)
    hi = t.completed
    ok = [False] * (avail + 1)
    ok[0] = True
    # new melds of lo..hi wilds each, any number of them
    for total in range(1, avail + 1):
        for size in range(lo, hi + 1):
            if size <= total and ok[total - size]:
                ok[total] = True
                break
    out = []
    for y in range(avail + 1):
        if any(ok[y - e] for e in range(0, min(room, y) + 1)):
            out.append(y)
    return out


def _wild_points(t: Tables, jokers: int, twos: int) -> list[int]:
    """Points of the best k wilds from the hand, for k = 0..jokers+twos."""
    vals = sorted([t.points[JOKER]] * jokers + [t.points[0]] * twos, reverse=True)
    out = [0]
    for v in vals:
        out.append(out[-1] + v)
    return out


def reaches(
    t: Tables, cards: tuple[int, ...], melds: tuple[Meld, ...], target: int, keep: int
) -> bool:
    """Whether at least `target` points of `cards` can be placed, leaving `keep` cards in hand.

    `greedy_reaches` settles what it can place, `placed_bound` what nothing could place (before
    the key of the memo is built and hashed); the exact search's answers are remembered
    (`Tables.memo`): a listing asks it of a candidate lay, and playing a candidate it refused
    asks it again."""
    if target <= 0 and keep <= len(cards):
        return True
    if greedy_reaches(t, cards, melds, target, keep):
        return True
    if placed_bound(t, cards, melds, keep) < target:
        return False
    key = ("reaches", cards, melds, target, keep)
    memo = t.memo
    got: bool | None = memo.get(key)
    if got is None:
        got = _search_reaches(t, cards, melds, target, keep)
        caches.remember(memo, key, got)
    return got


def greedy_reaches(
    t: Tables, cards: tuple[int, ...], melds: tuple[Meld, ...], target: int, keep: int
) -> bool:
    """A quick sufficient test for `reaches`: arrangements built by hand.

    First the sets alone (`_greedy_sets`); then, where escaleras are allowed, the side's
    escaleras extended at their ends and runs of held positions laid (each at most
    sequence_max long) before the sets take what is left. Each step is a legal `AddToMeld` or
    `LayMeld` in that order, so True means the points can be placed; False says nothing (the
    exact search decides). The tests hold it to the search.
    """
    # cards per rank, counted a run of one rank at a time (an in-place add on a list item goes
    # through the generic number protocol in the compiled code: once per run, not per card)
    counts = [0] * 14
    size = len(cards)
    i = 0
    while i < size:
        k = cards[i] >> 2
        j = i + 1
        while j < size and cards[j] >> 2 == k:
            j += 1
        counts[k] = counts[k] + (j - i)
        i = j
    room = size - keep
    if _greedy_sets(t, counts, melds, 0, 0, room, target):
        return True
    if not t.sequences:
        return False
    seq_pos = t.seq_pos
    seq_rank = t.seq_rank
    last = len(seq_rank) - 1
    smax = t.sequence_max
    smin = t.sequence_min
    pts = t.points
    # held naturals per escalera position, 16 per suit
    held = [0] * 64
    for c in cards:
        if c < JOKER:
            p = seq_pos[c >> 2]
            if p >= 0:
                x = (c & 3) * 16 + p
                held[x] = held[x] + 1
    placed = got = 0
    for m in melds:
        if m.kind == SEQ:
            lo, hi = seq_span(t, m)
            n = hi - lo + 1
            base = m.key * 16
            while n < smax and hi < last and held[base + hi + 1]:
                hi += 1
                held[base + hi] = held[base + hi] - 1
                r = seq_rank[hi]
                counts[r] = counts[r] - 1
                got += pts[r * 4]
                placed += 1
                n += 1
            while n < smax and lo > 0 and held[base + lo - 1]:
                lo -= 1
                held[base + lo] = held[base + lo] - 1
                r = seq_rank[lo]
                counts[r] = counts[r] - 1
                got += pts[r * 4]
                placed += 1
                n += 1
    for s in range(4):
        base = s * 16
        p = last
        while p >= 0:
            if not held[base + p]:
                p -= 1
                continue
            # the run of held positions ending at p, at most sequence_max long, laid from its top
            q = p
            while q > 0 and held[base + q - 1] and p - q + 1 < smax:
                q -= 1
            if p - q + 1 >= smin:
                for x in range(q, p + 1):
                    held[base + x] = held[base + x] - 1
                    r = seq_rank[x]
                    counts[r] = counts[r] - 1
                    got += pts[r * 4]
                    placed += 1
            else:
                p = q - 1
    if not placed or placed > room:
        # nothing laid in escaleras: the sets alone failed above
        return False
    if got >= target:
        return True
    return _greedy_sets(t, counts, melds, placed, got, room, target)


def _greedy_sets(
    t: Tables,
    counts: list[int],
    melds: tuple[Meld, ...],
    placed: int,
    got: int,
    room: int,
    target: int,
) -> bool:
    """`greedy_reaches` with the sets, `placed` cards worth `got` already placed, `counts` the
    cards per rank left: naturals go onto the side's unfinished sets of their rank up to the
    completed size, ranks with `set_lay` naturals start new sets (where the side may hold one
    of that rank), ranks with fewer (at least set_start_min_naturals) start one with wilds,
    best first, where the wild limits allow, then the wilds left go onto those sets within the
    wild limits without passing the completed size. At most `room` cards are placed."""
    comp = t.completed
    pts = t.points
    cap = t.wild_cap
    at_most = t.wilds_at_most_naturals
    fit = 0  # wilds the sets laid or grown here can still take
    grown = 0  # bit per rank: a set of the side of that rank is grown here
    has_set = 0  # bit per rank: the side has a set of that rank
    for m in melds:
        if m.kind == SET:
            key = m.key
            has_set |= 1 << key
            if not grown >> key & 1 and len(m.cards) < comp:
                grown |= 1 << key
                size = len(m.cards)
                w = wild_count(m.cards)
                k = min(counts[key], comp - size)
                placed += k
                got += k * pts[key * 4]
                # room for wilds once its k naturals are in: the wild cap, the completed size,
                # and at most as many wilds as naturals where that rule holds
                f = _least(cap - w, comp - size - k, size - w + k - w if at_most else comp)
                if f > 0:
                    fit += f
    set_lay = t.set_lay  # read once (the loop below reads it for every rank)
    several = t.several_sets_same_rank
    short = 0  # bit per rank: fewer than set_lay naturals, and a set of it may be started
    for rank in range(2, 13):
        n = counts[rank]
        if not n or grown >> rank & 1:
            continue
        if not several and has_set >> rank & 1:
            continue
        if n < set_lay:
            short |= 1 << rank
            continue
        k = min(n, comp)
        placed += k
        got += k * pts[rank * 4]
        f = _least(cap, comp - k, k if at_most else comp)
        if f > 0:
            fit += f
    if placed > room:
        return False
    if got >= target:
        return True
    jokers = counts[13]
    n_wilds = jokers + counts[0]
    if not n_wilds:
        return False
    # the wilds best first: `best` of them worth `hi` points, then the others worth `lo`
    if pts[JOKER] >= pts[0]:
        best, hi, lo = jokers, pts[JOKER], pts[0]
    else:
        best, hi, lo = n_wilds - jokers, pts[0], pts[JOKER]
    i = 0  # wilds placed
    if short:
        start = max(1, t.set_start_min_naturals)
        # a LayMeld of set_lay cards: the n naturals and set_lay - n wilds; the ranks that need
        # fewest wilds first, the highest first among them
        for wl in range(1, set_lay):
            n = set_lay - wl
            if n < start or wl > cap or (at_most and wl > n):
                continue
            for rank in range(12, 1, -1):
                if not short >> rank & 1 or counts[rank] != n:
                    continue
                if i + wl > n_wilds or placed + set_lay > room:
                    continue
                placed += set_lay
                got += n * pts[rank * 4]
                for _ in range(wl):
                    got += hi if i < best else lo
                    i += 1
                f = _least(cap - wl, comp - set_lay, n - wl if at_most else comp)
                if f > 0:
                    fit += f
                if got >= target:
                    return True
    k = _least(fit, n_wilds - i, room - placed)
    while k > 0:
        got += hi if i < best else lo
        i += 1
        k -= 1
    return got >= target


def _least(a: int, b: int, c: int) -> int:
    """The least of three numbers (`min` of three arguments is a call of the interpreter's
    builtin from the compiled code)."""
    if b < a:
        a = b
    return c if c < a else a


def search_reaches(
    t: Tables, cards: tuple[int, ...], melds: tuple[Meld, ...], target: int, keep: int
) -> bool:
    """`reaches` by the exact search over final arrangements."""
    if target <= 0 and keep <= len(cards):
        return True
    pts = t.points
    # naturals and wilds: every card but the threes
    bound = sum(pts[c] for c in cards if not LOWEST_THREE <= c < LOWEST_NATURAL)
    if bound < target or placed_bound(t, cards, melds, keep) < target:
        return False
    return _search_reaches(t, cards, melds, target, keep)


def _search_reaches(
    t: Tables, cards: tuple[int, ...], melds: tuple[Meld, ...], target: int, keep: int
) -> bool:
    """`search_reaches` past its bounds (which `reaches` has checked)."""
    sp = split(t, cards)
    pts = t.points
    tb = table_of(t, melds)
    sr = set_rules(t)
    W = sp.jokers + sp.twos
    freeable = _freeable(tb, sr)
    wp = _wild_points(t, sp.jokers, sp.twos)
    fixed_keep = sp.black + sp.rest
    rank_pts = tuple(pts[r * 4 + 0] for r in range(13))
    seen: dict[tuple[int, ...], int] = {}

    def best_sets(avail: tuple[int, ...]) -> int:
        """Best points from sets and wilds, given naturals per rank; -1 if `keep` cannot hold."""
        got = seen.get(avail)
        if got is not None:
            return got
        # state: (net wilds, kept capped at keep) -> best natural points
        states: dict[tuple[int, int], int] = {(0, 0): 0}
        hi_x = W + freeable
        for rank in range(13):
            a = avail[rank]
            bases = tb.sets[rank]
            if not a and not bases:
                continue
            pairs = _rank_pairs(sr, bases, a)
            if not pairs:
                continue
            rp = rank_pts[rank]
            nxt: dict[tuple[int, int], int] = {}
            for (x, k), v in states.items():
                for p, dw in pairs:
                    nx = x + dw
                    if nx > hi_x:
                        continue
                    nk = k + a - p
                    if nk > keep:
                        nk = keep
                    nv = v + p * rp
                    key = (nx, nk)
                    if nxt.get(key, -1) < nv:
                        nxt[key] = nv
            states = nxt
        best = -1
        for (x, k), v in states.items():
            for y in _wild_meld_amounts(t, tb.wild_room, W - x) if x <= W else []:
                placed = x + y
                if placed < 0:
                    continue
                if k + (W - placed) + fixed_keep < keep:
                    continue
                total = v + wp[placed]
                if total > best:
                    best = total
        seen[avail] = best
        return best

    if not t.sequences:
        b = best_sets(sp.other)
        return b >= 0 and b >= target
    moves = [
        _suit_moves(
            sp.seq[s], tb.seqs[s], t.sequence_min, t.sequence_max, t.completed, t.seq_rank, rank_pts
        )
        for s in range(4)
    ]

    def dfs(s: int, seq_pts: int, avail: list[int]) -> bool:
        if s == 4:
            b = best_sets(tuple(avail))
            return b >= 0 and seq_pts + b >= target
        for add, _comp, left in reversed(moves[s]):
            # kept naturals are counted by the sets part through `avail`
            for rank, k in left:
                avail[rank] = avail[rank] + k
            hit = dfs(s + 1, seq_pts + add, avail)
            for rank, k in left:
                avail[rank] = avail[rank] - k
            if hit:
                return True
        return False

    return dfs(0, 0, list(sp.other))


def run_cover(bits: int, n_run: int, reach: int) -> int:
    """The escalera positions of `bits` (bit 16 * suit + position, as `laying.Shape.bits`) that a
    run of `n_run` of them in a row covers, and those joined to `reach` (the positions the side's
    escaleras hold) by positions of `bits` at every place between. Shifts stay within a suit's 16
    bits: positions 13 to 15 are never held."""
    runs = bits
    for k in range(1, n_run):
        runs &= bits >> k
    covered = runs
    for k in range(1, n_run):
        covered |= runs << k
    if reach:
        while True:
            grow = (reach << 1 | reach >> 1) & bits & ~reach
            if not grow:
                break
            reach |= grow
        covered |= reach
    return covered


def placed_bound(t: Tables, cards: tuple[int, ...], melds: tuple[Meld, ...], keep: int) -> int:
    """An upper bound on the points of `cards` that can be placed while `keep` cards stay in
    hand: what the exact search (`search_reaches`) fails most often is settled without it.

    A wild counts; a three never does (as in the search); a natural counts only where some meld
    could take it: its rank has a set on the table (an addition, a cleaning), the hand holds
    enough naturals of the rank, with the wilds of the hand and those cleaning could free, to
    start a set, or it lies in a run of sequence_min held positions of its suit or is joined to
    one of the side's escaleras by held cards at every position between (as `lost_cards`: an
    escalera holds no wild). Cleaning frees a wild of a set only for a natural of its rank that
    joins the set (`final_ok`: the naturals added at least the wilds taken out), so the wilds it
    could free are, per rank, at most the naturals of that rank the hand holds. The cards kept
    are those that count for nothing first, then the cheapest.
    """
    seq_bit = t.seq_bit
    clean = t.clean_by_replacing_wilds
    set_ranks = 0  # bit per rank: the side has a set of it
    side_bits = 0  # the escalera positions the side's escaleras hold, as `laying.Shape.bits`
    in_sets: list[int] | None = None  # per rank: the wilds of its sets (with cleaning only)
    for m in melds:
        if m.kind == SET:
            set_ranks |= 1 << m.key
            if clean:
                w = wild_count(m.cards)
                if w:
                    if in_sets is None:
                        in_sets = [0] * 13
                    in_sets[m.key] = in_sets[m.key] + w
        elif m.kind == SEQ:
            for c in m.cards:
                side_bits |= seq_bit[c]
    wilds = 0
    bits = 0
    per_rank = [0] * 14
    for c in cards:
        if c < LOWEST_THREE or c == JOKER:
            wilds += 1
        elif c >= LOWEST_NATURAL:
            per_rank[c >> 2] = per_rank[c >> 2] + 1
            bits |= seq_bit[c]
    free = 0
    if in_sets is not None:
        for k in range(2, 13):
            w = in_sets[k]
            if w:
                free += w if per_rank[k] > w else per_rank[k]
    covered = 0
    if bits and t.sequences:
        covered = run_cover(bits, t.sequence_min, side_bits)
    start = max(1, t.set_start_min_naturals)
    set_min = t.set_min
    pts = t.points
    vals: list[int] = []
    for c in cards:
        if c < LOWEST_THREE or c == JOKER:
            vals.append(pts[c])
        elif c >= LOWEST_NATURAL:
            k = c >> 2
            a = per_rank[k]
            if (
                set_ranks >> k & 1
                or (a >= start and a + wilds + free >= set_min)
                or covered & seq_bit[c]
            ):
                vals.append(pts[c])
    extra = keep - (len(cards) - len(vals))
    if extra > 0:
        vals.sort()
        vals = vals[extra:]
    total = 0
    for v in vals:
        total += v
    return total


@lru_cache(maxsize=caches.RANK_OPTIONS)
def _rank_pairs(
    sr: SetRules, bases: tuple[tuple[int, int], ...], a: int
) -> tuple[tuple[int, int], ...]:
    """The distinct (naturals placed, net wilds used) of `rank_options` (read packed)."""
    return tuple(
        sorted({(q >> _AT_N, (q >> _AT_X & 255) - _X_ZERO) for q in _rank_packed(sr, bases, a)})
    )


@lru_cache(maxsize=caches.SUIT_MOVES)
def _suit_moves(
    counts: tuple[int, ...],
    bases: tuple[tuple[int, int], ...],
    smin: int,
    smax: int,
    done: int,
    seq_rank: tuple[int, ...],
    rank_pts: tuple[int, ...],
) -> tuple[tuple[int, int, tuple[tuple[int, int], ...]], ...]:
    """The options of `suit_options`, in its order, as the searches walk them: the points of the
    naturals an option lays, the escaleras it completes, and the (rank, count) of the naturals it
    leaves over (`seq_rank` gives the rank of each escalera position)."""
    out = []
    n = len(counts)
    for rem, comp in suit_options(counts, bases, smin, smax, done):
        # loops, not generators: a generator is an object the compiled code steps through
        add = 0
        left: list[tuple[int, int]] = []
        for p in range(n):
            k = rem[p]
            r = seq_rank[p]
            add += (counts[p] - k) * rank_pts[r]
            if k:
                left.append((r, k))
        out.append((add, comp, tuple(left)))
    return tuple(out)


def places_all(
    t: Tables,
    cards: tuple[int, ...],
    melds: tuple[Meld, ...],
    need: Need,
    tb: Table | None = None,
    spare: str = "none",
    slack: int | None = None,
) -> bool:
    """Whether the cards can be placed so that the side's completed melds meet `need`.

    `spare` says how many cards stay over (the going-out discard): "none", "one", or "upto1";
    a card kept over must be worth at most `slack` points when that is given (the opening
    minimum of a side going out in the turn it opens). The search itself: `_Places`.
    """
    sp = split(t, cards)
    if sp.rest:
        return False
    if tb is None:
        tb = table_of(t, melds)
    sr = set_rules(t)
    W = sp.jokers + sp.twos
    freeable = _freeable(tb, sr)
    pts = t.points
    may_spare = spare != "none"
    # black threes: all in one black-three meld (with wilds if allowed), or one kept over
    blacks: list[tuple[int, list[int]]] = []  # (kept over, possible wilds in the meld)
    cap_z = t.wild_cap if t.black_three_meld_wilds else 0
    for b, kept in ((sp.black, 0), (sp.black - 1, 1)):
        if b < 0 or (kept and not _fits(may_spare, slack, pts[4])):
            continue
        if b == 0:
            blacks.append((kept, [0]))
        elif t.black_threes_meld != "never":
            zs = [z for z in range(0, cap_z + 1) if final_ok(sr, 0, 0, True, b, z)]
            if zs:
                blacks.append((kept, zs))
    if not blacks:
        return False
    if not may_spare and not _homes_possible(t, sp, tb, W + freeable):
        return False
    cheapest_wild = pts[0] if sp.twos else pts[JOKER]
    wild_kept = [0, 1] if W and _fits(may_spare, slack, cheapest_wild) else [0]
    # per rank: whether one of its naturals may be kept over (read once, not once per state)
    keep_ok = [_fits(may_spare, slack, pts[k * 4]) for k in range(13)]
    search = _Places(t, tb, sr, need, W, freeable, spare, blacks, wild_kept, keep_ok)
    if not t.sequences:
        return search.sets_ok(sp.other, 0)
    rank_pts = tuple([pts[k * 4] for k in range(13)])
    moves = [
        _suit_moves(
            sp.seq[s], tb.seqs[s], t.sequence_min, t.sequence_max, t.completed, t.seq_rank, rank_pts
        )
        for s in range(4)
    ]
    varies = search.varies
    for s in range(4):
        if len(moves[s]) > 1:
            # a suit with a choice: what each option leaves over may differ (taken as differing)
            for _add, _comp, left in moves[s]:
                for rank, _k in left:
                    varies[rank] = True
    search.moves = moves
    return search.dfs(0, list(sp.other), 0)


def _fits(may_spare: bool, slack: int | None, points: int) -> bool:
    """Whether a card worth `points` may be kept over (for `places_all`)."""
    return may_spare and (slack is None or points <= slack)


class _Places:
    """The search of `places_all` (a plain class: compiled, its methods are called natively and
    its fields read without a lookup, where nested functions were called through the
    interpreter's calling convention and left reference cycles only the collector frees).

    Escaleras are chosen suit by suit (`dfs`, over the options of `_suit_moves`); at each leaf
    the naturals left go to sets (`sets_ok`). A state of the sets' search is one int: the net
    wilds used (plus `freeable`, which no cleaning passes: never below 0), then completed,
    clean, dirty and clean completed before (each capped at its need, 8 bits each), then the
    cards kept over (0 or 1, one bit): `_AT_XO` and the rest say where each lies."""

    __slots__ = (
        "W",
        "blacks",
        "cap_clean",
        "cap_done",
        "caps",
        "fixed",
        "freeable",
        "hi_xo",
        "keep_ok",
        "moves",
        "need",
        "node_states",
        "nodes",
        "rows",
        "seen",
        "sets",
        "spare",
        "sr",
        "start",
        "t",
        "varies",
        "wild_kept",
        "wild_room",
    )

    def __init__(
        self,
        t: Tables,
        tb: Table,
        sr: SetRules,
        need: Need,
        W: int,
        freeable: int,
        spare: str,
        blacks: list[tuple[int, list[int]]],
        wild_kept: list[int],
        keep_ok: list[bool],
    ) -> None:
        self.t = t
        self.sets = tb.sets
        self.wild_room = tb.wild_room
        self.sr = sr
        self.need = need
        self.W = W
        self.freeable = freeable
        self.spare = spare
        self.blacks = blacks
        self.wild_kept = wild_kept
        self.keep_ok = keep_ok
        self.caps = (need.completed, need.clean, need.dirty, need.clean)
        self.cap_done = need.completed
        self.cap_clean = need.clean
        self.hi_xo = W + 2 * freeable
        self.moves: list[tuple[tuple[int, int, tuple[tuple[int, int], ...]], ...]] = []
        # per rank and count of naturals in this call: the rank's outcomes (`_rank_ends`, six
        # ints each in a row) and what they allow at best, for the bound below
        self.rows: dict[int, Row] = {}
        self.seen: dict[tuple[tuple[int, ...], int], bool] = {}
        # the ranks whose count may differ from one choice of escaleras to another (`varies`);
        # the others hold the same naturals in every leaf of the search, so their part is
        # worked out at the first leaf and kept (`fixed`: whether one has no outcome, then the
        # sums of their bounds; `start`: the states their outcomes combine to, the completed
        # escaleras left out: they are added at the end, and the capped counts add up in any
        # order)
        self.varies = [False] * 13
        self.fixed: list[int] = []
        self.start: list[set[int]] = []
        # the states the other ranks combine to, remembered along the way: the ranks combined so
        # far and their counts (a path from `start`) lead to the same states at every leaf, so
        # each node of the tree of such paths is combined once a call (`nodes`: the node an
        # edge, `_edge` of its parent, rank and count, leads to; `node_states`: its states)
        self.nodes: dict[int, int] = {}
        self.node_states: list[set[int]] = []

    def dfs(self, s: int, avail: list[int], done: int) -> bool:
        """Whether some choice of escaleras for the suits from `s` on leaves naturals the sets
        place (`avail` per rank, changed and restored in place; `done`: escaleras completed)."""
        if s == 4:
            return self.sets_ok(tuple(avail), done)
        for _add, comp, left in self.moves[s]:
            for rank, k in left:
                avail[rank] = avail[rank] + k
            hit = self.dfs(s + 1, avail, done + comp)
            for rank, k in left:
                avail[rank] = avail[rank] - k
            if hit:
                return True
        return False

    def sets_ok(self, avail: tuple[int, ...], seq_done: int) -> bool:
        """Whether the naturals `avail` (per rank) and the wilds go to sets, wild melds and the
        black-three meld so that the requirements are met, `seq_done` escaleras completed."""
        key = (avail, seq_done)
        seen = self.seen
        got = seen.get(key)
        if got is not None:
            return got
        sr = self.sr
        sets = self.sets
        rows = self.rows
        keep_ok = self.keep_ok
        varies = self.varies
        need = self.need
        fixed = self.fixed
        if not fixed:
            # the ranks that are the same in every leaf, once: one with no outcome at all
            # refuses every leaf, and their best outcomes start the bound's sums
            dead = lo_x = lo_k = hi_c = hi_cl = hi_d = hi_old = 0
            for rank in range(13):
                a = avail[rank]
                if varies[rank] or (not a and not sets[rank]):
                    continue
                row = _row(rows, sr, sets[rank], rank, a, keep_ok[rank])
                if not row[0]:
                    dead = 1
                lo_x += row[1]
                hi_c += row[2]
                hi_cl += row[3]
                hi_d += row[4]
                hi_old += row[5]
                lo_k += row[6]
            fixed.extend((dead, lo_x, hi_c, hi_cl, hi_d, hi_old, lo_k))
        if fixed[0]:
            seen[key] = False
            return False
        # the other ranks: one with no outcome at all settles it before the combining, and so
        # does the sum of the ranks' best outcomes short of a need (a bound: the search's counts
        # only add up, its wilds and kept cards only pile up)
        # each rank's packed outcomes and how many of them complete nothing (two lists: a `Row`
        # put in a list would be boxed into a new tuple, its ints one by one)
        per_rank: list[tuple[int, ...]] = []
        per_plain: list[int] = []
        lo_x = fixed[1]
        hi_c = fixed[2]
        hi_cl = fixed[3]
        hi_d = fixed[4]
        hi_old = fixed[5]
        lo_k = fixed[6]
        for rank in range(13):
            if not varies[rank]:
                continue
            a = avail[rank]
            if not a and not sets[rank]:
                continue
            row = _row(rows, sr, sets[rank], rank, a, keep_ok[rank])
            if not row[0]:
                seen[key] = False
                return False
            per_rank.append(row[0])
            per_plain.append(row[7])
            lo_x += row[1]
            hi_c += row[2]
            hi_cl += row[3]
            hi_d += row[4]
            hi_old += row[5]
            lo_k += row[6]
        cap_done = self.cap_done
        cap_clean = self.cap_clean
        wait = need.wait
        W = self.W
        c0 = min(cap_done, seq_done)
        cl0 = min(cap_clean, seq_done)
        if (
            lo_x > W
            or lo_k > 1
            or c0 + hi_c < need.completed
            or hi_d < need.dirty
            or (min(hi_old, need.clean_start) if wait else cl0 + hi_cl) < need.clean
        ):
            seen[key] = False
            return False
        freeable = self.freeable
        caps = self.caps
        hi_xo = self.hi_xo
        start = self.start
        if not start:
            states: set[int] = {freeable << _AT_XO}
            for rank in range(13):
                a = avail[rank]
                if varies[rank] or (not a and not sets[rank]):
                    continue
                row = _row(rows, sr, sets[rank], rank, a, keep_ok[rank])
                states = _combine_states(states, row[0], row[7], hi_xo, caps)
                if not states:
                    break
            start.append(states)
        states = start[0]
        nodes = self.nodes
        node_states = self.node_states
        node = -1  # `start`'s states
        i = 0
        for rank in range(13):
            if not states:
                break
            if not varies[rank]:
                continue
            a = avail[rank]
            if not a and not sets[rank]:
                continue
            # the ranks of `per_rank` again, in their order: each rank's count makes the edge
            edge = _edge(node, rank * _COUNTS + a)
            known = nodes.get(edge)
            if known is None:
                states = _combine_states(states, per_rank[i], per_plain[i], hi_xo, caps)
                node = len(node_states)
                node_states.append(states)
                nodes[edge] = node
            else:
                node = known
                states = node_states[node]
            i += 1
        t = self.t
        wild_room = self.wild_room
        blacks = self.blacks
        wild_kept = self.wild_kept
        one = self.spare == "one"
        result = False
        for st in states:
            kept = st & 1
            old = st >> _AT_OLD & 255
            d = st >> _AT_D & 255
            # the completed escaleras of this leaf count now (capped as the states' counts are)
            cl = min(cap_clean, (st >> _AT_CL & 255) + cl0)
            c = min(cap_done, (st >> _AT_C & 255) + c0)
            x = (st >> _AT_XO) - freeable
            clean = min(old, need.clean_start) if wait else cl
            if c < need.completed or clean < need.clean or d < need.dirty:
                continue
            rest = W - x
            if rest < 0:
                continue
            ys = _wild_meld_amounts(t, wild_room, rest)
            for b_kept, zs in blacks:
                for w_kept in wild_kept:
                    total = kept + b_kept + w_kept
                    if total > 1 or (one and total != 1):
                        continue
                    if any((rest - w_kept - z) in ys for z in zs if z <= rest - w_kept):
                        result = True
                        break
                if result:
                    break
            if result:
                break
        seen[key] = result
        return result


Row = tuple[tuple[int, ...], int, int, int, int, int, int, int]
"""A rank's outcomes as `places_all` walks them (`_rank_row`)."""

_COUNTS: Final = 4096
"""More naturals of one rank than any hand holds: a rank and its count as one int, rank *
_COUNTS + count (for `_edge`)."""


def _edge(node: int, key: int) -> int:
    """The edge of `places_all`'s tree of combined ranks from `node` (-1: the fixed ranks'
    states) by the rank and count `key` (rank * `_COUNTS` + count), as one int."""
    return (node + 1) * (13 * _COUNTS) + key


_AT_OLD: Final = 1
"""Where the fields of a state of `places_all`'s sets search lie (8 bits each, above the bit of
the cards kept over): clean completed before, dirty, clean, completed, then the net wilds (plus
the table's freeable wilds) from `_AT_XO` up. A rank's outcome packed the same way (its net
wilds may be below nought: the top field) adds to a state by one addition."""

_AT_D: Final = 9

_AT_CL: Final = 17

_AT_C: Final = 25

_AT_XO: Final = 33


def _row(
    rows: dict[int, Row],
    sr: SetRules,
    bases: tuple[tuple[int, int], ...],
    rank: int,
    a: int,
    keep: bool,
) -> Row:
    """`_rank_row` of a rank with `a` naturals, remembered in `rows` for the call (`keep`: one
    of its naturals may be kept over)."""
    rk = a * 16 + rank
    row = rows.get(rk)
    if row is None:
        row = _rank_row(sr, bases, a, a >= 1 and keep)
        rows[rk] = row
    return row


def _combine_states(
    states: set[int],
    deltas: tuple[int, ...],
    n_plain: int,
    hi_xo: int,
    caps: tuple[int, int, int, int],
) -> set[int]:
    """The states of `places_all`'s sets search that `states` and one rank's outcomes (`deltas`,
    as `_rank_row`) lead to, packed as there, each count capped at its need (`caps`). The
    outcomes that complete nothing (the first `n_plain`) add by one addition; the others have
    their counts capped after it. A state keeps at most one card over; its net wilds stay at
    most `hi_xo`."""
    cap_done, cap_clean, cap_dirty, cap_old = caps
    limit = (hi_xo + 1) << _AT_XO  # a sum at or above it uses more net wilds than that
    n = len(deltas)
    nxt: set[int] = set()
    for st in states:
        kept = st & 1
        for j in range(n_plain):
            o = deltas[j]
            if kept and o & 1:
                continue
            q = st + o
            if q < limit:
                nxt.add(q)
        for j in range(n_plain, n):
            o = deltas[j]
            if kept and o & 1:
                continue
            q = st + o
            if q >= limit:
                continue
            # each count capped at its need (`min`, written out: the inner loop)
            v = q >> _AT_C & 255
            if v > cap_done:
                q -= (v - cap_done) << _AT_C
            v = q >> _AT_CL & 255
            if v > cap_clean:
                q -= (v - cap_clean) << _AT_CL
            v = q >> _AT_D & 255
            if v > cap_dirty:
                q -= (v - cap_dirty) << _AT_D
            v = q >> _AT_OLD & 255
            if v > cap_old:
                q -= (v - cap_old) << _AT_OLD
            nxt.add(q)
    return nxt


@lru_cache(maxsize=caches.RANK_OPTIONS)
def _rank_ends(
    sr: SetRules, bases: tuple[tuple[int, int], ...], a: int, keep_one: bool
) -> tuple[tuple[int, int, int, int, int, int], ...]:
    """The distinct outcomes of `rank_options` that place all `a` naturals (all but one when
    `keep_one`), as (net wilds used, completed, clean, dirty, clean completed before, kept)."""
    return tuple(
        sorted(
            {
                (o[1], o[2], o[3], o[4], o[5], a - o[0])
                for o in rank_options(sr, bases, a)
                if o[0] == a or (keep_one and o[0] == a - 1)
            }
        )
    )


@lru_cache(maxsize=caches.RANK_OPTIONS)
def _rank_row(sr: SetRules, bases: tuple[tuple[int, int], ...], a: int, keep_one: bool) -> Row:
    """`_rank_ends` as `places_all` walks it: the outcomes packed as its states are (`_AT_OLD`),
    those that complete nothing first; then the fewest net wilds, the most completed, clean,
    dirty and clean completed before, the fewest kept over of any outcome, and how many
    outcomes complete nothing. Read off `_rank_packed` (its outcomes are distinct, and so are
    those it keeps here: the naturals placed give the card kept over), each part sorted as
    `_rank_ends` sorts its tuples (the fields lie in that order, each within its bits)."""
    plain: list[int] = []
    counted: list[int] = []
    lo_x = lo_k = 1 << 30
    hi_c = hi_cl = hi_d = hi_old = 0
    for q in _rank_packed(sr, bases, a):
        k = a - (q >> _AT_N)
        if k and (k > 1 or not keep_one):
            continue
        x = (q >> _AT_X & 255) - _X_ZERO
        c = q >> _AT_DONE & 255
        cl = q >> 16 & 255
        d = q >> 8 & 255
        old = q & 255
        o = (x << _AT_XO) + (c << _AT_C) + (cl << _AT_CL) + (d << _AT_D) + (old << _AT_OLD) + k
        if c or cl or d or old:
            counted.append(o)
        else:
            plain.append(o)
        if x < lo_x:
            lo_x = x
        if k < lo_k:
            lo_k = k
        if c > hi_c:
            hi_c = c
        if cl > hi_cl:
            hi_cl = cl
        if d > hi_d:
            hi_d = d
        if old > hi_old:
            hi_old = old
    plain.sort()
    counted.sort()
    return tuple(plain + counted), lo_x, hi_c, hi_cl, hi_d, hi_old, lo_k, len(plain)


def _homes_possible(t: Tables, sp: Split, tb: Table, W: int) -> bool:
    """A necessary condition for placing everything: each natural has somewhere it might go."""
    sr = set_rules(t)
    totals = list(sp.other)
    for s in range(4):
        for p, k in enumerate(sp.seq[s]):
            totals[t.seq_rank[p]] += k
    for rank in range(13):
        a = totals[rank]
        if not a:
            continue
        if tb.sets[rank] or (a >= sr.start_min and a + W >= sr.set_min):
            continue
        # no set can take them: every card of this rank must go into escaleras
        p = t.seq_pos[rank]
        if not t.sequences or p < 0:
            return False
        for s in range(4):
            if not sp.seq[s][p] or tb.seqs[s]:
                continue
            row = sp.seq[s]
            lo = max(0, p - t.sequence_min + 1)
            hi = min(len(row) - t.sequence_min, p)
            if not any(
                all(row[q] for q in range(i, i + t.sequence_min)) for i in range(lo, hi + 1)
            ):
                return False
    return True


class SideFacts:
    """What the going-out screens need of a side's melds, worked out once per table position (a
    plain class: compiled, it is built by a native call and its fields are read without an
    attribute lookup; its lists are read, never changed)."""

    __slots__ = (
        "clean",
        "dirty",
        "dirty_done",
        "done",
        "freeable",
        "nat",
        "needs",
        "open_seqs",
        "seq_bits",
        "size",
        "takes",
    )

    def __init__(
        self,
        done: int,
        clean: int,
        dirty: int,
        needs: list[int],
        size: list[int],
        nat: list[int],
        open_seqs: list[int],
        freeable: int,
        dirty_done: int,
        takes: int,
        seq_bits: int,
    ) -> None:
        self.done = done  # completed canastas and sambas (`table.going_out_counts`)
        self.clean = clean
        self.dirty = dirty
        self.needs = needs
        """Cards each unfinished meld (sets of a rank merged, where they may be) lacks to be
        completed, fewest first."""
        self.size = size  # per rank: cards of its unfinished sets
        self.nat = nat  # per rank: naturals of its unfinished sets
        self.open_seqs = open_seqs
        """Per unfinished escalera: its positions (as `laying.Shape.bits`) and its cards, two
        ints in a row."""
        self.freeable = freeable  # wilds cleaning could free (0 without *:clean-by-replacing-wilds)
        self.dirty_done = dirty_done  # completed sets holding a wild
        self.takes = takes  # bit per rank: some set of it can still take a natural
        self.seq_bits = seq_bits  # the positions its escaleras hold, as `laying.Shape.bits`


def side_facts(t: Tables, melds: tuple[Meld, ...]) -> SideFacts:
    """The `SideFacts` of a side's melds."""
    comp = t.completed
    growth = t.completed_set_growth
    grows = growth == "naturals" or growth == "any"
    one_more = growth == "one_natural_if_clean"
    swap = t.clean_by_replacing_wilds
    # read once here, not once per unfinished set: the end of this function reads it whatever
    # the melds
    merging = t.merge_sets
    done = clean = dirty = 0
    needs: list[int] = []
    size = [0] * 13
    nat = [0] * 13
    open_seqs: list[int] = []
    freeable = dirty_done = 0
    takes = 0
    seq_bits = 0
    seq_bit = t.seq_bit
    for m in melds:
        kind = m.kind
        cards = m.cards
        n = len(cards)
        if kind == SET:
            key = m.key
            w = wild_count(cards)
            if swap:
                freeable += w
            if n < comp:
                if not merging:
                    needs.append(comp - n)
                size[key] = size[key] + n
                nat[key] = nat[key] + (n - w)
                takes |= 1 << key
            else:
                done += 1
                if w:
                    dirty += 1
                    dirty_done += 1
                else:
                    clean += 1
                # a finished set takes a natural while it may still grow, or in place of a wild
                if grows or (one_more and not w and n == comp) or (swap and w):
                    takes |= 1 << key
        elif kind == SEQ:
            own = 0
            for c in cards:
                own |= seq_bit[c]
            seq_bits |= own
            if n < comp:
                needs.append(comp - n)
                open_seqs.append(own)
                open_seqs.append(n)
            else:
                done += 1
                clean += 1
    if merging:
        # unfinished sets of one rank may be merged: their cards count together, and as many
        # canastas as they fill need no card from hand
        for pooled in size:
            if pooled:
                for _ in range(pooled // comp):
                    needs.append(0)
                if pooled % comp:
                    needs.append(comp - pooled % comp)
    if len(needs) > 1:
        needs.sort()
    return SideFacts(
        done, clean, dirty, needs, size, nat, open_seqs, freeable, dirty_done, takes, seq_bits
    )


def by_count(f: SideFacts, cards: int, completed: int) -> int:
    """At most how many more melds `cards` cards could complete (an upper bound): the unfinished
    melds that lack fewest cards first (the sets of one rank together where *:merge-sets lets
    them merge), then new ones."""
    more = 0
    left = cards
    for k in f.needs:
        if k > left:
            break
        left -= k
        more += 1
    return more + left // completed


def by_cards(t: Tables, cards: tuple[int, ...], f: SideFacts) -> tuple[int, int]:
    """Upper bounds on how many melds `cards` and the side's unfinished melds could still
    complete: (any, clean), the clean bound counting the side's dirty canastas as cleanable when
    *:clean-by-replacing-wilds allows it.

    Per rank, the cards of its unfinished sets and the naturals of the hand are pooled (merging
    only saves cards): each completed set takes completed_size of them and at least
    completed_size - wild_cap naturals (at least half its cards with *:wilds-at-most-naturals);
    the wild cards (with those cleaning could free) go where they complete the most sets. The
    escaleras: `_seq_completions`. A clean completion takes completed_size naturals.
    """
    comp = t.completed
    sh = shape(t, cards)
    nat = list(f.nat)
    size = list(f.size)
    rank_count = sh.rank_count
    for rank in sh.ranks:
        k = rank_count[rank]
        nat[rank] = nat[rank] + k
        size[rank] = size[rank] + k
    wilds = f.freeable + sh.wilds
    by_seq = 0
    if t.sequences:
        by_seq = _seq_completions(t, sh.bits, sh.counts, f.open_seqs)
    least = max(1, comp - t.wild_cap)
    if t.wilds_at_most_naturals:
        least = max(least, (comp + 1) // 2)
    new = clean = by_seq
    costs: list[int] = []
    for rank in range(13):
        n = nat[rank]
        if n < least:
            continue
        most = n // least
        clean += n // comp
        total = size[rank]
        k = total // comp
        if k >= most:
            new += most
            continue
        new += k
        costs.append(comp * (k + 1) - total)
        costs.extend([comp] * (most - k - 1))
    if costs:
        costs.sort()
        for c in costs:
            if c > wilds:
                break
            wilds -= c
            new += 1
    if t.clean_by_replacing_wilds:
        clean += f.dirty_done
    return new, clean


def _seq_completions(t: Tables, bits: int, counts: list[int], open_seqs: list[int]) -> int:
    """At most how many escaleras the naturals held (`bits`, `counts`: as `laying.Shape`) and the
    side's unfinished escaleras (`SideFacts.open_seqs`) could complete. An escalera holds no
    wild: one completed lies in a run of positions of its suit each held in hand or by an
    unfinished escalera, and takes completed_size of the cards of that run (those of the
    hand, and those of the unfinished escaleras it lies in, each in one run). Per run of
    completed_size positions or more: its cards // completed_size; none (the most hands) when
    no such run is held."""
    comp = t.completed
    held = bits
    i = 0
    n_open = len(open_seqs)
    while i < n_open:
        held |= open_seqs[i]
        i += 2
    run = held
    for k in range(1, comp):
        run &= held >> k
    if not run:
        return 0
    seq_rank = t.seq_rank
    npos = len(seq_rank)
    got = 0
    for suit in range(4):
        if not run >> (16 * suit) & 0xFFFF:
            continue
        row = held >> (16 * suit) & 0xFFFF
        p = 0
        while p < npos:
            if not row >> p & 1:
                p += 1
                continue
            q = p
            k = 0
            while q < npos and row >> q & 1:
                k += counts[seq_rank[q] * 4 + suit]
                q += 1
            if q - p >= comp:
                span = ((1 << q) - (1 << p)) << (16 * suit)
                i = 0
                while i < n_open:
                    if open_seqs[i] & span:
                        k += open_seqs[i + 1]
                    i += 2
                got += k // comp
            p = q
    return got


def lost_cards(t: Tables, cards: tuple[int, ...], f: SideFacts, spare: bool) -> list[int] | None:
    """`lost_cards_by` with the fields of `f` it reads."""
    return lost_cards_by(t, cards, f.takes, f.seq_bits, f.freeable, spare)


def lost_cards_by(
    t: Tables, cards: tuple[int, ...], takes: int, seq_bits: int, freeable: int, spare: bool
) -> list[int] | None:
    """The cards of `cards` that no arrangement could place (a permissive test: a card listed
    here certainly has no home, and removing other cards never gives it one); None when,
    further, the wild cards cannot stretch to the new sets the cards without another home need.

    A natural whose rank has no set that can take it and no escalera it could join must go into
    a new set of its rank, which needs set_min cards: at least set_min - (naturals of the rank)
    wilds. Black threes go into one meld (with wilds where allowed). The wilds of the hand and
    those cleaning could free must cover every such need, except that of a rank (or the black
    threes) with one card only that has no other home, when a card may be kept over as the
    discard (`spare`): with that card the discard, the rank's other naturals go into escaleras
    and its set needs no wild. The list stops
    at its second card (two cards nothing takes already rule going out out).

    The side's melds come as three fields of its `SideFacts` (`SideView.homes` works out the
    same without the rest): `takes`, a bit per rank whose naturals a set of the side can take
    (`SideFacts.takes`), `seq_bits` and `freeable`.
    """
    sr = set_rules(t)
    sh = shape(t, cards)
    nat_rank = t.nat_rank
    sequences = t.sequences
    rank_count = sh.rank_count
    blacks = 0
    for _, k in sh.black_kinds:
        blacks += k
    # the escalera positions (bit 16 * suit + position, as `Shape.bits`) a held card could
    # take in an escalera: those a run of sequence_min held cards covers, and those joined to an
    # escalera of the side by held cards at every position between (an escalera holds no wild,
    # so nothing else fills a gap); shifts stay within a suit's 16 bits (positions are below 13)
    covered = 0
    if sequences:
        covered = run_cover(sh.bits, t.sequence_min, seq_bits)
    w_all = sh.wilds + freeable
    seq_pos = t.seq_pos
    start_min = sr.start_min
    set_min = sr.set_min
    counts = sh.counts
    lost: list[int] = []
    demand = 0  # wilds the new sets of naturals without another home need
    # per rank (and the black threes): the wilds its new set needs, and how many of its cards
    # have no other home; a rank with one such card needs nothing when that card is the discard
    # (its other naturals go into escaleras), so `spare` takes the largest such need off
    # (`single`). The naturals of a rank lie together in `sh.distinct`: the rank whose cards
    # are being counted (`cur`) is settled when the next one starts, no list per rank.
    single = 0
    cur = -1
    cur_need = 0
    cur_home = 0
    blacks_seen = False
    for c in sh.distinct:
        rank = nat_rank[c]
        if rank >= 0:
            p = seq_pos[rank]
            if takes >> rank & 1 or (p >= 0 and covered >> (16 * (c & 3) + p) & 1):
                continue
            a = rank_count[rank]
            if a >= start_min and a + w_all >= set_min:
                if a < set_min:
                    if rank != cur:
                        if cur_home == 1 and cur_need > single:
                            single = cur_need
                        cur = rank
                        cur_need = set_min - a
                        cur_home = 0
                        demand += cur_need
                    cur_home += counts[c]
                continue
        elif c == JOKER or c < LOWEST_THREE:
            continue
        elif c in BLACK_THREES:
            wild_ok = w_all if t.black_three_meld_wilds else 0
            if t.black_threes_meld != "never" and blacks + wild_ok >= set_min:
                if not blacks_seen:
                    blacks_seen = True
                    need_b = set_min - blacks if blacks < set_min else 0
                    demand += need_b
                    if blacks == 1 and need_b > single:
                        single = need_b
                continue
        lost += [c] * counts[c]
        if len(lost) > 1:
            # more than a discard: going out is settled, whatever the wilds could do
            return lost
    if cur_home == 1 and cur_need > single:
        single = cur_need
    if not spare or lost:
        single = 0
    if demand - single > w_all:
        return None
    return lost


def overflow(t: Tables, cards: tuple[int, ...], melds: tuple[Meld, ...], f: SideFacts) -> int:
    """How many naturals of `cards` no arrangement could place besides those `lost_cards` lists
    (a permissive count, as theirs: at least so many cards stay in hand), over the ranks none of
    whose naturals could join an escalera (`run_cover`, as `lost_cards`).

    The side's sets of a rank take at most so many naturals (`_natural_room`, by `final_ok`;
    merging sets only lessens it); those held beyond it need a new set of the rank
    (*:several-sets-same-rank), which holds at least set_start_min_naturals naturals and, to
    reach set_min cards, set_min - (the rank's naturals) wilds at least: a rank that may start
    none counts the naturals beyond. So do the ranks `lost_cards` lets through only for a new
    set. Where the wilds of the hand, with those cleaning could free, fall short of what these
    new sets need together, one of them is not started, and the fewest naturals such a rank
    leaves unplaced count. Under a *:completed-set-growth that lets a set grow without end,
    nothing."""
    sr = set_rules(t)
    growth = sr.growth
    if growth == "any" or growth == "naturals":
        return 0
    takes = f.takes
    seq_bit = t.seq_bit
    per_rank = [0] * 14
    bits = 0
    wilds = 0
    for c in cards:
        if c < LOWEST_THREE or c == JOKER:
            wilds += 1
        elif c >= LOWEST_NATURAL:
            per_rank[c >> 2] = per_rank[c >> 2] + 1
            bits |= seq_bit[c]
    covered = 0
    if bits and t.sequences:
        covered = run_cover(bits, t.sequence_min, f.seq_bits)
        # the positions covered in any suit, as one row
        covered = (covered | covered >> 16 | covered >> 32 | covered >> 48) & 0xFFFF
    seq_pos = t.seq_pos
    several = sr.several
    start_min = sr.start_min
    set_min = sr.set_min
    comp = sr.completed
    w_all = wilds + f.freeable
    # per rank, naturals its sets surely take (each up to the completed size: `final_ok`
    # admits it whatever the growth): a rank holding no more is not looked at further
    sure = [0] * 13
    for m in melds:
        if m.kind == SET:
            n = len(m.cards)
            if n < comp:
                sure[m.key] = sure[m.key] + (comp - n)
    over = 0
    demand = 0  # wilds the new sets of the ranks below need together
    least = 0  # the fewest naturals one of those ranks leaves unplaced without its new set
    for k in range(2, 13):
        a = per_rank[k]
        if not a:
            continue
        p = seq_pos[k]
        if p >= 0 and covered >> p & 1:
            continue
        if not takes >> k & 1:
            # `lost_cards` lists these naturals unless a new set of them may take them all
            if start_min <= a < set_min and a + w_all >= set_min:
                demand += set_min - a
                if not least or a < least:
                    least = a
            continue
        if a <= sure[k]:
            continue
        room = 0
        for m in melds:
            if m.kind == SET and m.key == k:
                w0 = wild_count(m.cards)
                room += _natural_room(sr, len(m.cards) - w0, w0)
        if a <= room:
            continue
        if several and a >= start_min and a + w_all >= set_min:
            if a < set_min:
                demand += set_min - a
                if not least or a - room < least:
                    least = a - room
        else:
            over += a - room
    if demand > w_all:
        over += least
    return over


@lru_cache(maxsize=caches.RANK_OPTIONS)
def _natural_room(sr: SetRules, n0: int, w0: int) -> int:
    """The most naturals a set of `n0` naturals and `w0` wilds can take (`final_ok`: the most
    naturals of a final set it can end as), or a number past any hand when it grows without
    end."""
    top = 2 * sr.completed + 2
    best = 0
    for extra in range(0, top + 1):
        for w in range(0, sr.cap + 1):
            if final_ok(sr, n0, w0, False, n0 + extra, w):
                if extra == top:
                    return 1 << 20
                best = extra
                break
    return best


__all__ = [
    "BLACK3",
    "Need",
    "SetRules",
    "SideFacts",
    "Table",
    "by_cards",
    "by_count",
    "final_ok",
    "lost_cards",
    "lost_cards_by",
    "overflow",
    "placed_bound",
    "places_all",
    "rank_options",
    "reaches",
    "set_rules",
    "side_facts",
    "suit_options",
    "table_of",
]
