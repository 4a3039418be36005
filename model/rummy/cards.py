"""French-suited cards as small ints, their names, classes and points; the deck of a rulebook.

A card is ``rank * 4 + suit`` for the 52 of a pack (rank index 0 is the two, 1 the three, 2 the
four ... 11 the king, 12 the ace; suits C, D, H, S), and ``JOKER = 52``. Packs shuffled together
hold indistinguishable copies, so a pile of cards is a multiset: a sorted tuple of ints, equal
situations being equal values. Implements the card classes the rules name (`CardClass`:
joker, two, wild, red_three, black_three), *:card-points, *:packs and *:jokers-per-pack.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import groupby
from typing import Any, Final

from arbitro.model.errors import MalformedInput
from arbitro.model.rummy import caches
from arbitro.model.schema import CardPoints

SUITS: Final = "CDHS"
"""Clubs, diamonds, hearts, spades: diamonds and hearts are red."""
CLUBS: Final = 0
DIAMONDS: Final = 1
HEARTS: Final = 2
SPADES: Final = 3
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
TWO: Final = 0
THREE: Final = 1
FOUR: Final = 2
SEVEN: Final = 5
EIGHT: Final = 6
ACE: Final = 12
"""Rank indices (a card's rank is ``card >> 2``)."""
PACK: Final = 52
"""Cards in one pack (without its jokers): card numbers 0 to 51."""
JOKER: Final = 52
KINDS: Final = 53
"""Distinct cards: the 52 of a pack and the joker."""
LOWEST_THREE: Final = 4
"""The first three: the cards below it are the twos (wild)."""
LOWEST_NATURAL: Final = 8
"""The first four: naturals are the cards from it up to the joker; threes lie between."""

RED_THREES: Final = (THREE * 4 + DIAMONDS, THREE * 4 + HEARTS)
BLACK_THREES: Final = (THREE * 4 + CLUBS, THREE * 4 + SPADES)

CARD_CLASSES = ("joker", "two", "wild", "red_three", "black_three")


def card(rank: str, suit: str) -> int:
    """The card of a rank name ('2'..'10', 'J', 'Q', 'K', 'A') and a suit letter (C, D, H, S)."""
    return RANK_NAMES.index(rank) * 4 + SUITS.index(suit)


def rank_of(c: int) -> int:
    return c >> 2


def suit_of(c: int) -> int:
    return c & 3


def is_wild(c: int) -> bool:
    """Jokers and twos."""
    return c == JOKER or c < LOWEST_THREE


def is_natural(c: int) -> bool:
    """A card of rank 4 to ace: it can form sets and escaleras."""
    return LOWEST_NATURAL <= c < JOKER


def is_red_three(c: int) -> bool:
    return c in RED_THREES


def is_black_three(c: int) -> bool:
    return c in BLACK_THREES


def in_class(c: int, cls: str) -> bool:
    """Whether card `c` belongs to a class named by the rules."""
    if cls == "joker":
        return c == JOKER
    if cls == "two":
        return c < LOWEST_THREE
    if cls == "wild":
        return is_wild(c)
    if cls == "red_three":
        return is_red_three(c)
    if cls == "black_three":
        return is_black_three(c)
    raise ValueError(f"unknown card class {cls!r}; known: {', '.join(CARD_CLASSES)}")


def class_mask(classes: Iterable[str]) -> tuple[bool, ...]:
    """For each card kind, whether it belongs to any of the classes."""
    cs = tuple(classes)
    return tuple(any(in_class(c, k) for k in cs) for c in range(KINDS))


def card_name(c: int) -> str:
    """A short name: rank then suit letter (``10H``, ``QS``, ``2C``) or ``JK`` for a joker."""
    if c == JOKER:
        return "JK"
    if not 0 <= c < JOKER:
        raise MalformedInput(f"not a card: {c!r}")
    return RANK_NAMES[c >> 2] + SUITS[c & 3]


def parse_card(name: str) -> int:
    """The card called `name` (see `card_name`); MalformedInput says what is expected."""
    hit = _BY_NAME.get(name) if isinstance(name, str) else None
    if hit is not None:
        return hit
    if not isinstance(name, str):
        raise MalformedInput(f"a card is a name such as 'QH' or 'JK', got {name!r}")
    if name == "JK":
        return JOKER
    if len(name) >= 2 and name[:-1] in RANK_NAMES and name[-1] in SUITS:
        return card(name[:-1], name[-1])
    raise MalformedInput(
        f"unknown card {name!r}; expected a rank (2-10, J, Q, K, A) then a suit (C, D, H, S), or JK"
    )


_BY_NAME = {
    **{RANK_NAMES[r] + SUITS[u]: r * 4 + u for r in range(len(RANK_NAMES)) for u in range(4)},
    "JK": JOKER,
}


def parse_cards(names: str) -> tuple[int, ...]:
    """Cards written as space-separated names, sorted: ``"QH QS JK"``."""
    return tuple(sorted(parse_card(n) for n in names.split()))


def point_table(p: CardPoints) -> tuple[int, ...]:
    """What each card kind counts (red threes count nothing here: they are honours). *:card-points."""
    out = []
    for c in range(KINDS):
        r = c >> 2
        if c == JOKER:
            v = p.joker
        elif r == TWO:
            v = p.two
        elif r == THREE:
            v = p.black_three if is_black_three(c) else 0
        elif r == ACE:
            v = p.ace
        elif r >= EIGHT:
            v = p.high
        else:
            v = p.low
        out.append(v)
    return tuple(out)


@lru_cache(maxsize=caches.SMALL)
def make_deck(packs: int, jokers_per_pack: int) -> tuple[int, ...]:
    """The sorted deck: `packs` copies of the 52 cards plus their jokers (worked out once per
    count: every deal checks its order against it). *:packs, *:jokers-per-pack."""
    return tuple(
        sorted([c for c in range(PACK) for _ in range(packs)] + [JOKER] * (packs * jokers_per_pack))
    )


def remove(cards: Sequence[int], taken: Iterable[int]) -> tuple[int, ...]:
    """The sorted multiset `cards` minus `taken`; ValueError when a card taken is not there
    (None-safe callers check containment first)."""
    out = list(cards)
    for c in taken:
        # found by a loop over ints (`list.remove` is a method call through the interpreter's
        # calling convention, comparing objects)
        n = len(out)
        i = 0
        while i < n and out[i] != c:
            i += 1
        if i == n:
            raise ValueError(f"card {c!r} is not among the cards")
        out.pop(i)
    return tuple(out)


def without(cards: tuple[int, ...], taken: tuple[int, ...]) -> tuple[int, ...]:
    """`remove` for a sorted `taken` held in the sorted `cards`: one walk of both tuples, the
    cards kept joined as slices (no list copied and searched per card taken, no card boxed one
    by one); ValueError when a card taken is not there."""
    m = len(taken)
    if not m:
        return cards
    out: tuple[int, ...] = ()
    start = 0
    j = 0
    want = taken[0]
    for i in range(len(cards)):
        if cards[i] == want:
            if start < i:
                out += cards[start:i]
            start = i + 1
            j += 1
            if j == m:
                break
            want = taken[j]
    if j < m:
        raise ValueError(f"card {taken[j]!r} is not among the cards")
    return out + cards[start:] if out else cards[start:]


def distinct(cards: Iterable[int]) -> list[int]:
    """The distinct cards of a sorted multiset, in order."""
    return [k for k, _ in groupby(cards)]


SPAN: Final = 128
"""`POSITIONS` holds the positions of tuples of up to `SPAN - 1` cards (a longer one is built by
the list and its inserts)."""

POSITIONS: Final[tuple[tuple[int, ...], ...]] = tuple(tuple(range(n)) for n in range(SPAN))
"""The positions 0 to n - 1 of a tuple of n items, per n: the sequence a generator over which
`tuple(...)` builds at its final size at once (mypyc preallocates `tuple(f(k) for k in t)` of
a tuple `t`), filled item by item."""


def inserted(cards: tuple[int, ...], extra: tuple[int, ...]) -> tuple[int, ...]:
    """`tuple(sorted((*cards, *extra)))` for a sorted `cards` and a few cards `extra`: one card
    put in place in a tuple built at its size (`_inserted_one`), more by a loop of the compiled
    code (the sort built a list of the two, a second list to sort, and compared objects)."""
    if len(extra) == 1 and len(cards) < SPAN - 1:
        return _inserted_one(cards, extra[0])
    out = list(cards)
    for c in extra:
        i = len(out)
        while i > 0 and out[i - 1] > c:
            i -= 1
        out.insert(i, c)
    return tuple(out)


def _inserted_one(cards: tuple[int, ...], c: int) -> tuple[int, ...]:
    """`inserted(cards, (c,))`: the tuple of the new size filled at once, the cards before the
    place of `c`, then `c`, then the rest (no list copied, grown by the insert and turned into
    a tuple); `cards` has fewer than `SPAN - 1` cards."""
    n = len(cards)
    i = n
    while i > 0 and cards[i - 1] > c:
        i -= 1
    # the items as objects: no card unboxed and boxed again
    cv: tuple[Any, ...] = cards
    co: Any = c
    got: tuple[int, ...] = tuple(
        cv[k] if k < i else (co if k == i else cv[k - 1]) for k in POSITIONS[n + 1]
    )
    return got


def inserted_top(cards: tuple[int, ...], source: tuple[int, ...], n: int) -> tuple[int, ...]:
    """`inserted(cards, source[:n])` without the slice: the first `n` cards of `source` (the
    top of the stock) put in place in the sorted `cards`; one or two cards (a draw) in a tuple
    built at its size."""
    m = len(cards)
    if n == 1 and m < SPAN - 1:
        return _inserted_one(cards, source[0])
    if n == 2 and m < SPAN - 2:
        a = source[0]
        b = source[1]
        if b < a:
            a, b = b, a
        # the cards up to `hi` sort before `b` (a card equal to it keeps its place before it,
        # as the insertion of `b` after `a` leaves it), those up to `lo` before `a`
        hi = m
        while hi > 0 and cards[hi - 1] > b:
            hi -= 1
        lo = hi
        while lo > 0 and cards[lo - 1] > a:
            lo -= 1
        cv: tuple[Any, ...] = cards
        ao: Any = a
        bo: Any = b
        got: tuple[int, ...] = tuple(
            cv[k]
            if k < lo
            else (ao if k == lo else (cv[k - 1] if k <= hi else (bo if k == hi + 1 else cv[k - 2])))
            for k in POSITIONS[m + 2]
        )
        return got
    out = list(cards)
    for k in range(n):
        c = source[k]
        i = len(out)
        while i > 0 and out[i - 1] > c:
            i -= 1
        out.insert(i, c)
    return tuple(out)
