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
from typing import TYPE_CHECKING, Any, Final

from arbitro.model.rummy import caches
from arbitro.model.rummy.cards import BLACK_THREES, JOKER, KINDS, LOWEST_NATURAL, LOWEST_THREE
from arbitro.model.rummy.melds import SET, Meld, set_shape_problem
from arbitro.model.rummy.tables import Tables

if TYPE_CHECKING:
    # a machine integer to the compiled engine, an int to Python: annotations are not
    # evaluated (the future import above)
    from mypy_extensions import i64


def submultisets(kinds: list[tuple[int, int]], size: int) -> list[tuple[int, ...]]:
    """Sorted multisets of `size` cards drawn from (card, available count) pairs, each once:
    the most copies of the first card first."""
    rooms = [0] * (len(kinds) + 1)
    for i in range(len(kinds) - 1, -1, -1):
        rooms[i] = rooms[i + 1] + kinds[i][1]
    out: list[tuple[int, ...]] = []
    _sub(kinds, rooms, 0, size, [], out)
    return out


def _sub(
    kinds: list[tuple[int, int]],
    rooms: list[int],
    i: int,
    size: int,
    cur: list[int],
    out: list[tuple[int, ...]],
) -> None:
    """Appends to `out` the `submultisets` of the kinds from index `i` on (`rooms[i]`: the
    cards they hold), each after the cards `cur` already chosen: one tuple built per multiset,
    the choices kept in one list (no tuple per level, no generator frame)."""
    if size == 0:
        out.append(tuple(cur))
        return
    if i == len(kinds):
        return
    c, n = kinds[i]
    room = rooms[i + 1]
    take = n if n < size else size
    for _ in range(take):
        cur.append(c)
    while take >= 0:
        if size - take > room:
            break
        _sub(kinds, rooms, i + 1, size - take, cur, out)
        if take:
            cur.pop()
        take -= 1
    # the copies of `c` left after a break (none when the loop ran out), popped one by one:
    # `del cur[top:]` built a slice object and went through the generic item deletion
    while take > 0:
        cur.pop()
        take -= 1


@lru_cache(maxsize=caches.LAYS)
def _choose(kinds: tuple[tuple[int, int], ...], size: int) -> tuple[tuple[int, ...], ...]:
    """`submultisets`, remembered: the same few (card, count) groups recur in every hand."""
    return tuple(submultisets(list(kinds), size))


def _rank_sets(sh: Shape, rank: int, lay: int, lo_nat: int) -> tuple[tuple[int, ...], ...]:
    """New sets of `rank` from the pool of `sh`: `n` of its naturals (most first) and
    `lay - n` of the wilds held. Worked out on a miss of `_LAID`, which remembers them; its
    parts come from `_nat_choices` and `_wild_ends`, keyed by ints (the same naturals recur
    with other wilds, and the same wilds with other naturals)."""
    out: list[tuple[int, ...]] = []
    count = sh.rank_count[rank]
    for n in range(lay if lay < count else count, lo_nat - 1, -1):
        w = lay - n
        nats = _nat_choices(sh.counts, rank * 4, n)
        if w == 0:
            out.extend(nats)
            continue
        ends = _wild_ends(sh, w)
        for nat in nats:
            for lo, hi in ends:
                # the set in card order without sorting: its twos, its naturals, its jokers
                out.append(lo + nat + hi if hi else lo + nat if lo else nat + hi)
    return tuple(out)


_NATS: Final[dict[int, tuple[tuple[int, ...], ...]]] = {}
"""`_nat_choices`, keyed by the counts (each capped at the size), the rank and the size; at most
`caches.LAYS` entries, cleared when full."""
_SUITS: Final[dict[int, tuple[tuple[int, ...], ...]]] = {}
"""The suits (0 to 3) of each multiset `_nat_choices` lists, keyed as `_NATS` without the
rank: the same few patterns of copies recur in every rank (cleared at `caches.LAYS`
entries)."""


def _nat_choices(counts: list[int], b: int, n: int) -> tuple[tuple[int, ...], ...]:
    """The multisets of `n` naturals of the rank whose lowest card is `b`, from the copies held
    (`counts`), most copies of the lowest card first (`submultisets`)."""
    a0 = counts[b]
    a1 = counts[b + 1]
    a2 = counts[b + 2]
    a3 = counts[b + 3]
    # a count above the size chooses as the size does
    if a0 > n:
        a0 = n
    if a1 > n:
        a1 = n
    if a2 > n:
        a2 = n
    if a3 > n:
        a3 = n
    if n >= 16:
        kinds = [(c, counts[c]) for c in range(b, b + 4) if counts[c]]
        return tuple(submultisets(kinds, n))
    pattern = a0 | a1 << 4 | a2 << 8 | a3 << 12 | n << 16
    key = pattern | b << 24
    got = _NATS.get(key)
    if got is None:
        suits = _SUITS.get(pattern)
        if suits is None:
            ones = [(0, a0), (1, a1), (2, a2), (3, a3)]
            suits = tuple(submultisets([k for k in ones if k[1]], n))
            if len(_SUITS) >= caches.LAYS:
                _SUITS.clear()
            _SUITS[pattern] = suits
        # the suits' cards of this rank (its lowest card `b`, the suits in order)
        got = tuple([tuple([b + s for s in one]) for one in suits])
        if len(_NATS) >= caches.LAYS:
            _NATS.clear()
        _NATS[key] = got
    return got


_ENDS: Final[dict[int, list[tuple[tuple[int, ...], tuple[int, ...]]]]] = {}
"""`_wild_ends`, keyed by the wild counts (`Shape.wild_code`) and the size; at most
`caches.LAYS` entries, cleared when full."""


def _wild_ends(sh: Shape, w: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Each sorted multiset of `w` of the wilds held split into the twos, which sort below every
    natural, and the jokers, which sort above them."""
    code = sh.wild_code
    key = code << 6 | w if code >= 0 and w < 64 else -1
    got = _ENDS.get(key) if key >= 0 else None
    if got is not None:
        return got
    out: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    for wl in submultisets(list(sh.wild_kinds), w):
        j = 0
        while j < len(wl) and wl[j] < LOWEST_THREE:
            j += 1
        out.append((wl, ()) if j == len(wl) else (wl[:j], wl[j:]) if j else ((), wl))
    if key >= 0:
        if len(_ENDS) >= caches.LAYS:
            _ENDS.clear()
        _ENDS[key] = out
    return out


class Shape:
    """A sorted pool of cards grouped the way candidate melds are read off it (a plain class:
    compiled, its fields are read without an attribute lookup). The counts are lists indexed
    by card and by rank, not dictionaries: a hand holds few cards, and a list of 53 is built
    and read faster than a dictionary is filled. Only what every listing reads is worked out
    when the shape is built (the counts, the escalera positions, the wild counts); the rest
    (`distinct`, `ranks`, `wild_kinds`, `black_kinds`) is read off the counts when asked."""

    __slots__ = (
        "_distinct",
        "_rank_count",
        "bits",
        "blacks",
        "counts",
        "kinds",
        "nats",
        "pool",
        "rank_code",
        "wild_code",
        "wilds",
    )

    def __init__(
        self,
        pool: tuple[int, ...],
        counts: list[int],
        rank_code: int,
        kinds: int,
        bits: int,
        wilds: int,
        blacks: int,
        wild_code: int,
        nats: int,
    ) -> None:
        self.pool = pool  # the sorted pool itself
        self.counts = counts  # per card kind (KINDS of them): copies held
        self.rank_code = rank_code
        """Per rank index, the naturals of it held, capped at 15, in the 4 bits from 4 * rank
        up: what the listing reads of them (`rank_count` is a list read off `counts`)."""
        self.kinds = kinds  # distinct cards held
        self.bits = bits
        """Bit 16 * suit + p set when the card at escalera position p of that suit is held."""
        self.wilds = wilds  # wild cards held
        self.blacks = blacks  # black threes held
        self.wild_code = wild_code
        """`wild_kinds` as one int (4 bits per wild card kind: the twos, then the joker), or -1
        when a kind is held more than 15 times: part of the keys of `_LAID`."""
        self.nats = nats
        """Bit c set when the natural c is held: the naturals of rank k held are
        `NATURALS[k << 4 | nats >> 4 * k & 15]`."""
        self._distinct: tuple[int, ...] | None = None
        self._rank_count: list[int] | None = None

    @property
    def rank_count(self) -> list[int]:
        """Per rank index (13): the naturals of it held (worked out from `counts` on the first
        reading: building the list was a third of the shape's cost, and the listing reads
        `rank_code`)."""
        got = self._rank_count
        if got is None:
            counts = self.counts
            code = self.rank_code
            got = _NO_RANKS[:]
            for k in range(_LOW_RANK, _JOKER_RANK):
                n = code >> (k << 2) & 15
                if n == 15:
                    # capped in `rank_code`: counted again
                    b = k * 4
                    n = counts[b] + counts[b + 1] + counts[b + 2] + counts[b + 3]
                if n:
                    got[k] = n
            self._rank_count = got
        return got

    @property
    def distinct(self) -> tuple[int, ...]:
        """Each card once, in order (the pool itself when no card is held twice; worked out
        on the first reading)."""
        got = self._distinct
        if got is not None:
            return got
        pool = self.pool
        if self.kinds == len(pool):
            got = pool
        else:
            out: list[int] = []
            prev = -1
            for c in pool:
                if c != prev:
                    out.append(c)
                    prev = c
            got = tuple(out)
        self._distinct = got
        return got

    @property
    def ranks(self) -> list[int]:
        """The natural ranks held, in order."""
        code = self.rank_code
        return [k for k in range(_LOW_RANK, _JOKER_RANK) if code >> (k << 2) & 15]

    @property
    def wild_kinds(self) -> tuple[tuple[int, int], ...]:
        """(wild card, count) of the wild cards held: the twos, then the joker."""
        if not self.wilds:
            return ()
        counts = self.counts
        return tuple([(c, counts[c]) for c in _WILD_CARDS if counts[c]])

    def wild_cards(self) -> tuple[int, ...]:
        """The distinct wild cards held, in order: the twos, then the joker."""
        if not self.wilds:
            return ()
        counts = self.counts
        i = 16 if counts[JOKER] else 0
        for w in range(LOWEST_THREE):
            if counts[w]:
                i |= 1 << w
        return _WILD_SETS[i]

    def with_wilds(self, nat: tuple[int, ...]) -> tuple[int, ...]:
        """The distinct wild cards held and the naturals `nat` (of one rank), in card order:
        the twos sort below the naturals, the joker above them."""
        counts = self.counts
        i = 0
        for w in range(LOWEST_THREE):
            if counts[w]:
                i |= 1 << w
        both = _WILD_SETS[i] + nat if i else nat
        return both + _JOKER_ONLY if counts[JOKER] else both

    @property
    def black_kinds(self) -> tuple[tuple[int, int], ...]:
        """(black three, count) of the black threes held."""
        if not self.blacks:
            return ()
        counts = self.counts
        return tuple([(c, counts[c]) for c in _BLACKS if counts[c]])

    def naturals(self, rank: int) -> tuple[int, ...]:
        """The distinct naturals of `rank` held, in order (read off `counts` when asked: the
        listing asks for the ranks of the side's sets only)."""
        if rank < _LOW_RANK or rank >= _JOKER_RANK:
            return ()
        return NATURALS[rank << 4 | self.nats >> (rank << 2) & 15]

    @property
    def masks(self) -> tuple[int, int, int, int]:
        """Per suit, the escalera positions held (`bits` split by suit)."""
        bits = self.bits
        return (bits & 0xFFFF, bits >> 16 & 0xFFFF, bits >> 32 & 0xFFFF, bits >> 48)


_LOW_RANK: Final = LOWEST_NATURAL >> 2
_JOKER_RANK: Final = JOKER >> 2
_WILD_CARDS: Final[tuple[int, ...]] = (*range(LOWEST_THREE), JOKER)
"""The wild cards in card order: the twos, then the joker."""
_WILD_SETS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(w for k, w in enumerate(_WILD_CARDS) if held >> k & 1) for held in range(32)
)
"""The wild cards of each set of them, in order: index a bit per two (bit = suit), 16 for the
joker."""
_JOKER_ONLY: Final[tuple[int, ...]] = (JOKER,)
_BLACKS: Final[tuple[int, ...]] = tuple(sorted(BLACK_THREES))
_BLACK_LO: Final[int] = _BLACKS[0]
_BLACK_HI: Final[int] = _BLACKS[-1]

NATURALS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(rank * 4 + suit for suit in range(4) if held >> suit & 1)
    for rank in range(_JOKER_RANK)
    for held in range(16)
)
"""The naturals of a rank, in order, for each set of suits held: index 16 * rank + a bit per
suit."""


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
    # one pass over the sorted pool, a card at a time (`n`: the copies of it seen so far, its
    # count once its run ends): the wilds (twos, then the joker) and the black threes come in
    # the order of their card numbers, the naturals lie between the threes and the joker,
    # sorted, so the cards of a rank come together; their escalera positions from
    # `Tables.seq_bit` (0 without escaleras). The lists start as copies of zeros (no
    # throwaway list to repeat), and no run needs closing after the loop but the last card's
    # and the last rank's.
    seq_bit = t.seq_bit
    counts = _NO_CARDS[:]
    # machine integers in the compiled engine (`i64`): the counts, bits and codes of a pool
    # fit one, and each operation on them is then one instruction, not a tagged int's checks
    kinds: i64 = 0
    nw: i64 = 0
    nb: i64 = 0
    code: i64 = 0
    bits: i64 = 0
    nats: i64 = 0
    low: i64
    rank_code: i64 = 0
    rank: i64 = -1
    held: i64 = 0
    prev: i64 = -1
    n: i64 = 0
    c: i64
    k: i64
    for c in pool:
        if c == prev:
            n += 1
            if c >= LOWEST_NATURAL and c < JOKER:
                # another copy of the natural before: its rank is the current one
                held += 1
                continue
        else:
            # a card's count is stored once, when its run ends (a store boxes the count and
            # goes through the list's item assignment)
            if n:
                counts[prev] = n
            prev = c
            n = 1
            kinds += 1
            if c >= LOWEST_NATURAL and c < JOKER:
                bits |= seq_bit[c]
                # bit c as a bit below 16 shifted by a multiple of 16: compiled, `1 << c`
                # shifts a 32-bit C int
                low = 1 << (c & 15)
                nats |= low << (c & 48)
                k = c >> 2
                if k == rank:
                    held += 1
                else:
                    if rank >= 0:
                        if held > 15:
                            held = 15
                        rank_code |= held << (rank << 2)
                    rank = k
                    held = 1
                continue
        if c < LOWEST_THREE or c == JOKER:
            nw += 1
            # 4 bits per kind: the sum of the copies' bits is the counts' code while every
            # count stays below 16 (checked below)
            code += 1 << (4 * c if c < LOWEST_THREE else 16)
        elif c in (_BLACK_LO, _BLACK_HI):
            nb += 1
    if n:
        counts[prev] = n
    if rank >= 0:
        # the naturals of a rank are counted in a local and stored once the rank ends
        if held > 15:
            held = 15
        rank_code |= held << (rank << 2)
    if nw > 15:
        for w in _WILD_CARDS:
            if counts[w] > 15:
                code = -1
    return Shape(pool, counts, rank_code, kinds, bits, nw, nb, code, nats)


_NO_CARDS: Final[list[int]] = [0] * KINDS
"""Zero copies of every card kind: copied, never changed."""
_NO_RANKS: Final[list[int]] = [0] * 13
"""Zero naturals of every rank (`Shape.rank_count`): copied, never changed."""


_LAID: Final[dict[int, tuple[tuple[int, ...], ...]]] = {}
"""The new sets of a rank (`_rank_sets`) and the new wild melds (`_choose`), keyed by one int
packing what they depend on (`_set_key`; the wild counts): looked up without building and
hashing a tuple of tuples per rank of every listing; at most `caches.LAYS` entries, cleared
when full. (The new escaleras are read from `_seq_table`, per start: no lookup per suit.)"""


def _capped_counts(counts: list[int], b: int, most: int) -> int:
    """The copies held of the four cards from `b` (a rank's naturals), each capped at `most`,
    in 4 bits each (card `b` lowest), or -1 when a capped count does not fit its 4 bits: the
    part of a rank's counts that its new sets of at most `most` cards depend on."""
    a0 = counts[b]
    a1 = counts[b + 1]
    a2 = counts[b + 2]
    a3 = counts[b + 3]
    if a0 > most:
        a0 = most
    if a1 > most:
        a1 = most
    if a2 > most:
        a2 = most
    if a3 > most:
        a3 = most
    if a0 > 15 or a1 > 15 or a2 > 15 or a3 > 15:
        return -1
    return a0 | a1 << 4 | a2 << 8 | a3 << 12


def _set_key(counts: list[int], rank: int, wild_code: int, lay: int, lo_nat: int) -> int:
    """The `_LAID` key of `rank`'s new sets (even and not negative, apart from the wild melds'
    negative keys), or -1 when a count does not fit its 4 bits. A count above `lay` is keyed
    as `lay` (`_capped_counts`): a new set takes at most `lay` copies of a card, and as many
    naturals in all as the capped counts add up to while they stay below `lay` (`wild_code`
    is capped the same way by the caller, `_capped_code`)."""
    held = _capped_counts(counts, rank * 4, lay)
    if held < 0 or wild_code < 0 or lay > 63 or lo_nat > 63:
        return -1
    return ((held | rank << 16 | lay << 20 | lo_nat << 26) << 21 | wild_code) << 1


def _capped_code(code: int, most: int) -> int:
    """`Shape.wild_code` with each kind's count capped at `most` (the wilds a new set takes at
    most): the new sets of a rank are the same for a kind held more often."""
    out = 0
    for shift in range(0, 20, 4):
        n = code >> shift & 15
        out |= (n if n < most else most) << shift
    return out


_SEQS: Final[dict[int, tuple[tuple[int, ...], ...]]] = {}
"""The new escaleras of each length and lowest escalera rank (`_seq_table`), keyed by both."""


def _seq_table(smin: int, low: int) -> tuple[tuple[int, ...], ...]:
    """The escalera of `smin` cards starting at each position p of each suit, at index
    16 * suit + p (the bit of its lowest card in `Shape.bits`): position p is rank `low + p`
    (the escalera ranks are consecutive, see `tables`). Built once per length and lowest rank;
    the positions no escalera of `smin` cards can start from are never read."""
    key = smin << 8 | low
    got = _SEQS.get(key)
    if got is None:
        got = _SEQS[key] = tuple(
            [
                tuple([(low + p + k) * 4 + suit for k in range(smin)])
                for suit in range(4)
                for p in range(16)
            ]
        )
    return got


_NO_SET_RANKS: Final[frozenset[int]] = frozenset()
"""No rank kept from a new set (*:several-sets-same-rank)."""


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
        have_rank: frozenset[int] = _NO_SET_RANKS
    elif set_ranks is None:
        have_rank = frozenset(m.key for m in melds if m.kind == SET)
    else:
        have_rank = set_ranks
    code = sh.wild_code if lo_nat < lay else 0
    if code > 0:
        code = _capped_code(code, lay - lo_nat)
    counts = sh.counts
    laid = _LAID
    rank_count = sh.rank_count
    for rank in range(_LOW_RANK, _JOKER_RANK):
        if rank_count[rank] < lo_nat or (not several and rank in have_rank):
            continue
        # the rank's cards lie together in the sorted pool
        key = _set_key(counts, rank, code, lay, lo_nat)
        got = laid.get(key) if key >= 0 else None
        if got is None:
            got = _rank_sets(sh, rank, lay, lo_nat)
            if key >= 0:
                if len(laid) >= caches.LAYS:
                    laid.clear()
                laid[key] = got
        out += got
    bits = sh.bits
    if bits:
        smin = t.sequence_min
        # runs of sequence_min positions, all suits at once: no run crosses into another suit,
        # as positions 13 to 15 of a suit's 16 bits are never held; each start's escalera read
        # from a table built once (the suits and starts in order, as a bit at a time)
        run = bits
        for k in range(1, smin):
            run &= bits >> k
        if run:
            seqs = _seq_table(smin, t.seq_rank[0])
            i = 0
            while run:
                if not run & 0xFFFF:
                    # no start left in this suit
                    run >>= 16
                    i += 16
                    continue
                if run & 1:
                    out.append(seqs[i])
                run >>= 1
                i += 1
    if t.wild_canasta and nw >= t.wild_meld_min_start > 0:
        size = t.wild_meld_min_start
        # negative keys: the wild counts (`Shape.wild_code`) and the size
        key = -2 - (sh.wild_code << 8 | size) if sh.wild_code >= 0 and size < 256 else -1
        got = laid.get(key) if key < -1 else None
        if got is None:
            got = _choose(sh.wild_kinds, size)
            if key < -1:
                if len(laid) >= caches.LAYS:
                    laid.clear()
                laid[key] = got
        out += got
    nb = sh.blacks
    wmax = (nw if nw < cap else cap) if nb and t.black_three_meld_wilds else 0
    size = len(pool)
    # a black-three meld leaves at most one card in hand
    if nb and t.black_threes_meld != "never" and size - nb - wmax <= 1:
        for b in range(nb, 0, -1):
            for w in range(0, wmax + 1):
                if size - b - w > 1 or b + w < t.set_min:
                    continue
                for bl in _choose(sh.black_kinds, b):
                    for wl in _choose(sh.wild_kinds, w):
                        out.append(tuple(sorted(bl + wl)))
    if must >= 0:
        out = [c for c in out if must in c]
    return out


CODE_SLOTS: Final = 5
"""The most cards a candidate's code holds (`card_code`; `code_cards` reads five slots)."""
CODE_BASE: Final = 55
"""The base of a `card_code`'s digits: a slot holds a card + 1 (1 to 53) or 0 (no card)."""
_SLOT: Final[tuple[int, ...]] = tuple(
    [CODE_BASE ** (CODE_SLOTS - 1 - i) for i in range(CODE_SLOTS)]
)
"""The weight of each slot of a `card_code`, the first slot's highest."""
_ONES: Final[tuple[int, ...]] = tuple(
    [sum(CODE_BASE**k for k in range(n)) for n in range(CODE_SLOTS + 1)]
)
"""A 1 in each of the n lowest slots, at index n."""


def card_code(cards: tuple[int, ...]) -> int:
    """One int for at most `CODE_SLOTS` sorted cards: the digits of base `CODE_BASE`, the first
    card's slot highest, card i + 1 in slot i and 0 in the slots after the last card. The codes
    of such tuples order as the tuples do (a tuple before the longer ones it starts) and stay
    below 55 ** 5 < 2 ** 30, an int of one digit, which `list.sort` compares without a call.
    Base 55 rather than 6 bits a slot: a code of fewer than five cards then does not end in a
    run of zero bits, and the codes spread over a dictionary's slots (the engine finds each
    candidate's action by its code), where with the low bits zero they piled up in the same
    few and each lookup probed past the others."""
    code = 0
    n = len(cards)
    for i in range(CODE_SLOTS):
        code = code * CODE_BASE + (cards[i] + 1 if i < n else 0)
    return code


def code_cards(code: int) -> tuple[int, ...]:
    """The cards of a `card_code`, in order (its five slots read at once: one tuple built)."""
    c4 = code % CODE_BASE
    code //= CODE_BASE
    c3 = code % CODE_BASE
    code //= CODE_BASE
    c2 = code % CODE_BASE
    code //= CODE_BASE
    c1 = code % CODE_BASE
    c0 = code // CODE_BASE
    if c4:
        return (c0 - 1, c1 - 1, c2 - 1, c3 - 1, c4 - 1)
    if c3:
        return (c0 - 1, c1 - 1, c2 - 1, c3 - 1)
    if c2:
        return (c0 - 1, c1 - 1, c2 - 1)
    if c1:
        return (c0 - 1, c1 - 1)
    return (c0 - 1,) if c0 else ()


_GROUPS: Final[dict[int, tuple[int, ...]]] = {}
"""`_group` of a rank's counts, keyed by those counts capped at `set_lay` (`_capped_counts`),
`set_lay` and the fewest naturals of a new set (`_group_rest`): the same few patterns of
copies recur in every rank and hand; at most `caches.LAYS` entries, cleared when full."""


def _group_rest(lay: int, lo_nat: int) -> int:
    """The part of the `_GROUPS` keys of one listing that is the same for every rank: `lay` and
    `lo_nat` above the 16 bits of a rank's capped counts (`_capped_counts`, which its key
    adds), or -1 when one does not fit."""
    if lay > 63 or lo_nat > 63:
        return -1
    return lay << 16 | lo_nat << 22


def _group(counts: list[int], b: int, lay: int, lo_nat: int) -> tuple[int, ...]:
    """The naturals of the new sets of the rank whose lowest card is `b` (`_rank_sets`), by
    their count n, most first: for each n, n, the number of its multisets and each multiset's
    `_suit_segs` code, one after another in a tuple of ints. The wilds that fill each set are
    the same for every rank of a hand (`lay_codes` reads them once per n)."""
    out: list[int] = []
    count = 0
    for c in range(b, b + 4):
        count += counts[c] if counts[c] < lay else lay
    for n in range(lay if lay < count else count, lo_nat - 1, -1):
        segs = _suit_segs(counts, b, n)
        out.append(n)
        out.append(len(segs))
        out.extend(segs)
    return tuple(out)


_PARTS: Final[dict[int, list[tuple[int, int]]]] = {}
"""`_wild_parts`, keyed by the wild counts (`Shape.wild_code`), the wilds and the naturals of
the set; at most `caches.LAYS` entries, cleared when full."""


def _wild_parts(sh: Shape, w: int, n: int) -> list[tuple[int, int]]:
    """For each multiset of `w` of the wilds held, in the order of `_wild_ends`, the code of a
    set of it and `n` naturals with the naturals' slots empty (its twos in the first slots, its
    jokers after the naturals) and the weight of the slot of its last natural."""
    code = sh.wild_code
    key = (code << 6 | w) << 3 | n if code >= 0 and w < 64 and n < 8 else -1
    got = _PARTS.get(key) if key >= 0 else None
    if got is not None:
        return got
    out: list[tuple[int, int]] = []
    for lo, hi in _wild_ends(sh, w):
        part = 0
        slot = 0
        for c in lo:
            part += (c + 1) * _SLOT[slot]
            slot += 1
        slot += n
        mult = _SLOT[slot - 1]
        for c in hi:
            part += (c + 1) * _SLOT[slot]
            slot += 1
        out.append((part, mult))
    if key >= 0:
        if len(_PARTS) >= caches.LAYS:
            _PARTS.clear()
        _PARTS[key] = out
    return out


_SEGS: Final[dict[int, tuple[int, ...]]] = {}
"""`_suit_segs`, keyed by the counts (each capped at the size) and the size, as `_SUITS`."""


def _suit_segs(counts: list[int], b: int, n: int) -> tuple[int, ...]:
    """The multisets of `n` (at most `CODE_SLOTS`) naturals of the rank whose lowest card is
    `b` that `_nat_choices` lists, in its order, each as the code of its suits (suit + 1 in a
    digit of base `CODE_BASE` per card, the first card highest): the same for every rank with
    those counts."""
    pattern = _capped_counts(counts, b, n) | n << 16
    got = _SEGS.get(pattern)
    if got is None:
        ones = [(0, counts[b]), (1, counts[b + 1]), (2, counts[b + 2]), (3, counts[b + 3])]
        segs: list[int] = []
        for suits in submultisets([k for k in ones if k[1]], n):
            seg = 0
            for x in suits:
                seg = seg * CODE_BASE + (x + 1)
            segs.append(seg)
        got = tuple(segs)
        if len(_SEGS) >= caches.LAYS:
            _SEGS.clear()
        _SEGS[pattern] = got
    return got


_SEQ_CODES: Final[dict[int, tuple[int, ...]]] = {}
"""`_seq_table` as marked codes (`lay_codes`: every one a meld), keyed as `_SEQS`."""


def _seq_codes(smin: int, low: int) -> tuple[int, ...]:
    key = smin << 8 | low
    got = _SEQ_CODES.get(key)
    if got is None:
        got = _SEQ_CODES[key] = tuple([card_code(cards) * 2 + 1 for cards in _seq_table(smin, low)])
    return got


_WILD_CODES: Final[dict[int, tuple[int, ...]]] = {}
"""The new wild melds as marked codes (`lay_codes`: none marked), keyed as their entry of
`_LAID` (cleared at `caches.LAYS`)."""


_PLAIN: Final[list[Any]] = [None, 0]
"""The tables last asked about and their `_plain_sets`."""


def _plain_sets(t: Tables) -> int:
    """Bit n set when `classify` makes a set of n naturals of one rank and `set_lay - n` wilds
    (`melds.wild_set`'s tests of its counts), and bit `set_lay` always (naturals of one rank,
    none wild: a set); remembered for the tables last asked about."""
    last = _PLAIN
    if last[0] is t:
        got: int = last[1]
        return got
    lay = t.set_lay
    plain = 1 << lay
    if t.set_min <= lay <= t.completed:
        for n in range(max(t.set_start_min_naturals, 1), lay):
            if set_shape_problem(t, n, lay - n) is None:
                plain |= 1 << n
    last[0] = t
    last[1] = plain
    return plain


def lay_codes(
    t: Tables, pool: tuple[int, ...], sh: Shape, set_ranks: frozenset[int]
) -> list[int] | None:
    """`lay_candidates(t, pool, melds, -1, sh, set_ranks)` as marked codes, in the same order
    (`set_ranks`: the ranks of the sets of `melds`), or None when a candidate could hold more
    than `CODE_SLOTS` cards. A marked code is twice the candidate's `card_code`, plus one when
    `classify` makes it a set or an escalera (naturals alone, or a set whose counts of naturals
    and wilds the Tables allow: `_plain_sets`); the marked codes order as the card codes do,
    and the listing takes a marked candidate as a meld without reading its cards again. The
    new sets of a rank are read off the naturals kept for its counts alone (`_group`) and the
    wilds read once per hand (`_wild_parts`): a hand's ranks seldom repeat an earlier hand's
    counts and wilds together, its patterns of counts do."""
    out: list[int] = []
    nw = sh.wilds
    lay = t.set_lay
    if lay > CODE_SLOTS:
        return None
    cap = t.wild_cap
    lo_nat = lay - (nw if nw < cap else cap)
    if lo_nat < t.set_start_min_naturals:
        lo_nat = t.set_start_min_naturals
    if lo_nat < 1:
        lo_nat = 1
    several = t.several_sets_same_rank
    have_rank = _NO_SET_RANKS if several else set_ranks
    counts = sh.counts
    groups = _GROUPS
    # machine integers in the compiled engine (`i64`): the naturals of each rank read as its 4
    # bits of `rank_code`, not a list item
    rank_code: i64 = sh.rank_code
    rank: i64
    rest = _group_rest(lay, lo_nat)
    # per count n of naturals below `lay`, the wilds that fill a set of n (`_wild_parts`), and
    # the sets marked (`_plain_sets`), read at the first rank that needs them: the same for
    # every rank of the hand
    fill: list[list[tuple[int, int]] | None] | None = None
    plain = 0
    # bit 4 * rank set when the rank holds `lo_nat` naturals or more, all ranks at once: each
    # rank's 4 bits put in a byte of their own (the even ranks', then the odd ranks'), where
    # adding 16 - lo_nat reaches 16 exactly then (a byte holds at most 15 + 15); the ranks
    # walked from the lowest to the highest one set, most listings none (1 <= lo_nat <= lay,
    # at most CODE_SLOTS)
    fewest: i64 = lo_nat  # (a machine integer before the product: a tagged int's overflows)
    add: i64 = (16 - fewest) * 0x0101010101010101
    even: i64 = ((rank_code & 0x0F0F0F0F0F0F0F0F) + add) & 0x1010101010101010
    odd: i64 = ((rank_code >> 4 & 0x0F0F0F0F0F0F0F0F) + add) & 0x1010101010101010
    enough: i64 = even >> 4 | odd
    rank = 0
    while enough:
        if not enough & 1 or (not several and rank in have_rank):
            enough >>= 4
            rank += 1
            continue
        enough >>= 4
        b = rank * 4
        rank += 1
        key = -1
        if rest >= 0:
            held = _capped_counts(counts, b, lay)
            if held >= 0:
                key = held | rest
        got = groups.get(key) if key >= 0 else None
        if got is None:
            got = _group(counts, b, lay, lo_nat)
            if key >= 0:
                if len(groups) >= caches.LAYS:
                    groups.clear()
                groups[key] = got
        # each set's marked code: its naturals' code (the suits' `seg` plus `b` in each of
        # their n slots) in the slot of its last natural (`mult`), its wilds' code (`part`)
        i = 0
        while i < len(got):
            n = got[i]
            k = got[i + 1]
            i += 2
            one = b * _ONES[n]
            if n == lay:
                # no wilds: the naturals fill the first n slots; naturals of one rank are a set
                mult = _SLOT[n - 1] * 2
                for j in range(i, i + k):
                    out.append((got[j] + one) * mult + 1)
            else:
                if fill is None:
                    fill = [None] * lay
                    plain = _plain_sets(t)
                mark = plain >> n & 1
                parts = fill[n]
                if parts is None:
                    parts = fill[n] = _wild_parts(sh, lay - n, n)
                for j in range(i, i + k):
                    nat = got[j] + one
                    for part, mult in parts:
                        out.append((part + nat * mult) * 2 + mark)
            i += k
    bits: i64 = sh.bits
    if bits:
        smin = t.sequence_min
        run: i64 = bits
        for k in range(1, smin):
            run &= bits >> k
        if run:
            if smin > CODE_SLOTS:
                return None
            seqs = _seq_codes(smin, t.seq_rank[0])
            at: i64 = 0
            while run:
                if not run & 0xFFFF:
                    run >>= 16
                    at += 16
                    continue
                if run & 1:
                    out.append(seqs[at])
                run >>= 1
                at += 1
    if t.wild_canasta and nw >= t.wild_meld_min_start > 0:
        size = t.wild_meld_min_start
        if size > CODE_SLOTS:
            return None
        key = -2 - (sh.wild_code << 8 | size) if sh.wild_code >= 0 and size < 256 else -1
        wild = _WILD_CODES.get(key) if key < -1 else None
        if wild is None:
            wild = tuple([card_code(cards) * 2 for cards in _choose(sh.wild_kinds, size)])
            if key < -1:
                if len(_WILD_CODES) >= caches.LAYS:
                    _WILD_CODES.clear()
                _WILD_CODES[key] = wild
        out += wild
    nb = sh.blacks
    wmax = (nw if nw < cap else cap) if nb and t.black_three_meld_wilds else 0
    size = len(pool)
    if nb and t.black_threes_meld != "never" and size - nb - wmax <= 1:
        for bl_n in range(nb, 0, -1):
            for w in range(0, wmax + 1):
                if size - bl_n - w > 1 or bl_n + w < t.set_min:
                    continue
                if bl_n + w > CODE_SLOTS:
                    return None
                for bl in _choose(sh.black_kinds, bl_n):
                    for wl in _choose(sh.wild_kinds, w):
                        out.append(card_code(tuple(sorted(bl + wl))) * 2)
    return out
