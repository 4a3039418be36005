"""Candidate new melds from a hand: every distinct multiset of cards that could be laid as one.

Sets are laid at their minimum size (max of *:set-min and *:set-start-min-naturals), escaleras at
*:sequence-min, wild-only melds at *:wild-meld-min-start; a black-three meld, laid only to go out,
holds all but at most one of the cards left (*:black-threes-meld). The rules of each candidate
are checked by `melds.classify` and the engine; this module only enumerates. The hand is read
once into a `Shape` (counts per card and per rank, escalera positions held), which the engine's
list of candidate additions and discards shares; the sets and escaleras a group of cards can
start are remembered, since the same few groups recur in every hand.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

from arbitro.model.rummy import caches
from arbitro.model.rummy.cards import BLACK_THREES, JOKER, KINDS, LOWEST_NATURAL, LOWEST_THREE
from arbitro.model.rummy.melds import SET, Meld
from arbitro.model.rummy.tables import Tables


def submultisets(kinds: list[tuple[int, int]], size: int) -> list[tuple[int, ...]]:
    """Sorted multisets of `size` cards drawn from (card, available count) pairs, each once:
    the most copies of the first card first."""
    rooms = [0] * (len(kinds) + 1)
    for i in range(len(kinds) - 1, -1, -1):
        rooms[i] = rooms[i + 1] + kinds[i][1]
    return _sub(kinds, rooms, 0, size)


def _sub(
    kinds: list[tuple[int, int]], rooms: list[int], i: int, size: int
) -> list[tuple[int, ...]]:
    """`submultisets` of the kinds from index `i` on (`rooms[i]`: the cards they hold), built
    as lists rather than through a recursive generator (a frame per level and per result)."""
    if size == 0:
        return [()]
    if i == len(kinds):
        return []
    c, n = kinds[i]
    room = rooms[i + 1]
    out: list[tuple[int, ...]] = []
    for take in range(min(n, size), -1, -1):
        if size - take > room:
            break
        tails = _sub(kinds, rooms, i + 1, size - take)
        if take == 0:
            out += tails
            continue
        head = (c,) * take
        for tail in tails:
            out.append(head + tail)
    return out


@lru_cache(maxsize=caches.LAYS)
def _choose(kinds: tuple[tuple[int, int], ...], size: int) -> tuple[tuple[int, ...], ...]:
    """`submultisets`, remembered: the same few (card, count) groups recur in every hand."""
    return tuple(submultisets(list(kinds), size))


@lru_cache(maxsize=caches.LAYS)
def _set_lays(
    kinds: tuple[tuple[int, int], ...],
    wild_kinds: tuple[tuple[int, int], ...],
    count: int,
    lay: int,
    lo_nat: int,
) -> tuple[tuple[int, ...], ...]:
    """New sets of one rank (`kinds`: (natural, copies held) of that rank, `count` of them in
    all): `n` of its naturals (most first) and `lay - n` wilds."""
    out: list[tuple[int, ...]] = []
    for n in range(min(lay, count), lo_nat - 1, -1):
        w = lay - n
        if w == 0:
            out.extend(_choose(kinds, n))
            continue
        wls = _choose(wild_kinds, w)
        for nat in _choose(kinds, n):
            for wl in wls:
                out.append(tuple(sorted(nat + wl)))
    return tuple(out)


class Shape:
    """A sorted pool of cards grouped the way candidate melds are read off it (a plain class:
    compiled, its fields are read without an attribute lookup). The counts are lists indexed
    by card and by rank, not dictionaries: a hand holds few cards, and a list of 53 is built
    and read faster than a dictionary is filled."""

    __slots__ = (
        "bits",
        "black_kinds",
        "counts",
        "distinct",
        "rank_count",
        "ranks",
        "wild_code",
        "wild_kinds",
        "wilds",
    )

    def __init__(
        self,
        distinct: tuple[int, ...],
        counts: list[int],
        wild_kinds: tuple[tuple[int, int], ...],
        black_kinds: tuple[tuple[int, int], ...],
        ranks: list[int],
        rank_count: list[int],
        bits: int,
        wilds: int,
        wild_code: int,
    ) -> None:
        self.distinct = distinct  # each card once, in order
        self.counts = counts  # per card kind (KINDS of them): copies held
        self.wild_kinds = wild_kinds  # (wild card, count)
        self.black_kinds = black_kinds  # (black three, count)
        self.ranks = ranks  # the natural ranks held, in order
        self.rank_count = rank_count  # per rank index (13): naturals of it held
        self.bits = bits
        """Bit 16 * suit + p set when the card at escalera position p of that suit is held."""
        self.wilds = wilds  # wild cards held
        self.wild_code = wild_code
        """`wild_kinds` as one int (4 bits per wild card kind: the twos, then the joker), or -1
        when a kind is held more than 15 times: part of the keys of `_LAID`."""

    def naturals(self, rank: int) -> list[int]:
        """The distinct naturals of `rank` held, in order (read off `counts` when asked: the
        listing asks for the ranks of the side's sets only)."""
        if rank < _LOW_RANK or rank >= _JOKER_RANK:
            return []
        counts = self.counts
        c = rank * 4
        return [k for k in range(c, c + 4) if counts[k]]

    @property
    def masks(self) -> tuple[int, int, int, int]:
        """Per suit, the escalera positions held (`bits` split by suit)."""
        bits = self.bits
        return (bits & 0xFFFF, bits >> 16 & 0xFFFF, bits >> 32 & 0xFFFF, bits >> 48)


_LOW_RANK: Final = LOWEST_NATURAL >> 2
_JOKER_RANK: Final = JOKER >> 2


_LAST: Final[list[Any]] = [None, None, None]
"""The pool, tables and shape worked out last: the list of legal actions and the going-out
screens of one state read the same hand."""


def shape(t: Tables, pool: tuple[int, ...]) -> Shape:
    """The `Shape` of the sorted `pool`."""
    last = _LAST
    if last[0] is pool and last[1] is t:
        got_shape: Shape = last[2]
        return got_shape
    sh = _shape(t, pool)
    last[0] = pool
    last[1] = t
    last[2] = sh
    return sh


def _shape(t: Tables, pool: tuple[int, ...]) -> Shape:
    # one pass over the sorted pool, a run of equal cards at a time: the wilds (twos, then the
    # joker) and the black threes come in the order of their card numbers, the naturals lie
    # between the threes and the joker, sorted, so the cards of a rank come together; their
    # escalera positions from `Tables.seq_bit` (0 without escaleras)
    seq_bit = t.seq_bit
    counts = [0] * KINDS
    rank_count = [0] * 13
    ranks: list[int] = []
    distinct: list[int] = []
    wilds: list[tuple[int, int]] = []
    blacks: list[tuple[int, int]] = []
    nw = 0
    code = 0
    bits = 0
    rank = -1
    held = 0
    size = len(pool)
    i = 0
    while i < size:
        c = pool[i]
        j = i + 1
        while j < size and pool[j] == c:
            j += 1
        n = j - i
        i = j
        counts[c] = n
        distinct.append(c)
        if c >= LOWEST_NATURAL and c < JOKER:
            bits |= seq_bit[c]
            k = c >> 2
            if k == rank:
                held += n
            else:
                if rank >= 0:
                    rank_count[rank] = held
                rank = k
                held = n
                ranks.append(k)
        elif c < LOWEST_THREE or c == JOKER:
            wilds.append((c, n))
            nw += n
            if code >= 0:
                code = code | n << (4 * c if c < LOWEST_THREE else 16) if n < 16 else -1
        elif c in BLACK_THREES:
            blacks.append((c, n))
    if rank >= 0:
        # the naturals of a rank are counted in a local and stored once the rank ends (an
        # in-place add on a list item goes through the generic number protocol)
        rank_count[rank] = held
    return Shape(
        tuple(distinct), counts, tuple(wilds), tuple(blacks), ranks, rank_count, bits, nw, code
    )


_LAID: Final[dict[int, tuple[tuple[int, ...], ...]]] = {}
"""The new sets of a rank (`_set_lays`), the new escaleras of a suit (`_seq_lays`) and the new
wild melds (`_choose`), keyed by one int packing what they depend on (`_set_key`; a suit's
escalera mask; the wild counts): looked up without building
and hashing a tuple of tuples per rank and per suit of every listing; at most `caches.LAYS`
entries, cleared when full."""


def _set_key(counts: list[int], rank: int, wild_code: int, lay: int, lo_nat: int) -> int:
    """The `_LAID` key of `rank`'s new sets (even: the escaleras' keys are odd), or -1 when a
    count does not fit its 4 bits."""
    b = rank * 4
    a0 = counts[b]
    a1 = counts[b + 1]
    a2 = counts[b + 2]
    a3 = counts[b + 3]
    if wild_code < 0 or a0 > 15 or a1 > 15 or a2 > 15 or a3 > 15 or lay > 63 or lo_nat > 63:
        return -1
    return (
        (a0 | a1 << 4 | a2 << 8 | a3 << 12 | rank << 16 | lay << 20 | lo_nat << 26) << 21
        | wild_code
    ) << 1


@lru_cache(maxsize=caches.LAYS)
def _seq_lays(mask: int, suit: int, smin: int, low: int) -> tuple[tuple[int, ...], ...]:
    """New escaleras of `smin` cards of `suit` from the positions held (a `Shape.masks` entry);
    position p is rank `low + p` (the escalera ranks are consecutive, see `tables`)."""
    return tuple(tuple((low + i + k) * 4 + suit for k in range(smin)) for i in _runs(mask, smin))


@lru_cache(maxsize=caches.SMALL)
def _runs(mask: int, smin: int) -> tuple[int, ...]:
    """Positions where `smin` consecutive bits of `mask` start."""
    starts = mask
    for k in range(1, smin):
        starts &= mask >> k
    return tuple(i for i in range(starts.bit_length()) if starts >> i & 1)


def lay_candidates(
    t: Tables,
    pool: tuple[int, ...],
    melds: tuple[Meld, ...],
    must: int = -1,
    sh: Shape | None = None,
    set_ranks: frozenset[int] | None = None,
) -> list[tuple[int, ...]]:
    """New melds that could be laid from the sorted `pool`; with `must` >= 0 only those holding
    that card. `sh` is the pool's `shape` and `set_ranks` the ranks of the sets in `melds`, when
    the caller has them."""
    out: list[tuple[int, ...]] = []
    if sh is None:
        sh = shape(t, pool)
    wild_kinds = sh.wild_kinds
    black_kinds = sh.black_kinds
    nw = sh.wilds
    lay = t.set_lay
    cap = t.wild_cap
    # at least set_start_min_naturals naturals, and at least one; the wilds fill up to set_lay
    lo_nat = lay - (nw if nw < cap else cap)
    if lo_nat < t.set_start_min_naturals:
        lo_nat = t.set_start_min_naturals
    if lo_nat < 1:
        lo_nat = 1
    several = t.several_sets_same_rank
    if several:
        have_rank: frozenset[int] = frozenset()
    elif set_ranks is None:
        have_rank = frozenset(m.key for m in melds if m.kind == SET)
    else:
        have_rank = set_ranks
    wild_t = wild_kinds if lo_nat < lay else ()
    code = sh.wild_code if lo_nat < lay else 0
    counts = sh.counts
    laid = _LAID
    rank_count = sh.rank_count
    for rank in sh.ranks:
        if rank_count[rank] < lo_nat or rank in have_rank:
            continue
        # the rank's cards lie together in the sorted pool
        key = _set_key(counts, rank, code, lay, lo_nat)
        got = laid.get(key) if key >= 0 else None
        if got is None:
            # (natural, copies held) of the rank, read off the counts (`_set_key` packs the
            # same counts)
            b = rank * 4
            kinds = tuple([(c, counts[c]) for c in range(b, b + 4) if counts[c]])
            got = _set_lays(kinds, wild_t, rank_count[rank], lay, lo_nat)
            if key >= 0:
                if len(laid) >= caches.LAYS:
                    laid.clear()
                laid[key] = got
        out += got
    bits = sh.bits
    if bits:
        smin = t.sequence_min
        # runs of sequence_min positions, all suits at once: no run crosses into another suit,
        # as positions 13 to 15 of a suit's 16 bits are never held
        run = bits
        for k in range(1, smin):
            run &= bits >> k
        if run:
            low = t.seq_rank[0]
            for suit in range(4):
                if run >> (16 * suit) & 0xFFFF:
                    mask = bits >> (16 * suit) & 0xFFFF
                    # odd keys: mask, suit, sequence_min and the lowest escalera rank
                    key = (mask | suit << 16 | smin << 18 | low << 26) << 1 | 1
                    got = laid.get(key) if smin < 256 else None
                    if got is None:
                        got = _seq_lays(mask, suit, smin, low)
                        if smin < 256:
                            if len(laid) >= caches.LAYS:
                                laid.clear()
                            laid[key] = got
                    out += got
    if t.wild_canasta and nw >= t.wild_meld_min_start > 0:
        size = t.wild_meld_min_start
        # negative keys: the wild counts (`Shape.wild_code`) and the size
        key = -2 - (sh.wild_code << 8 | size) if sh.wild_code >= 0 and size < 256 else -1
        got = laid.get(key) if key < -1 else None
        if got is None:
            got = _choose(wild_kinds, size)
            if key < -1:
                if len(laid) >= caches.LAYS:
                    laid.clear()
                laid[key] = got
        out += got
    nb = 0
    if black_kinds:
        for _, k in black_kinds:
            nb += k
    wmax = (nw if nw < cap else cap) if nb and t.black_three_meld_wilds else 0
    size = len(pool)
    # a black-three meld leaves at most one card in hand
    if nb and t.black_threes_meld != "never" and size - nb - wmax <= 1:
        for b in range(nb, 0, -1):
            for w in range(0, wmax + 1):
                if size - b - w > 1 or b + w < t.set_min:
                    continue
                for bl in _choose(black_kinds, b):
                    for wl in _choose(wild_kinds, w):
                        out.append(tuple(sorted(bl + wl)))
    if must >= 0:
        out = [c for c in out if must in c]
    return out
