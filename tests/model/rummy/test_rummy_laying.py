"""The hand's shape (`laying.Shape`) read off a sorted pool, checked against counts worked out
independently (a `Counter` of the pool) on hands met in random play and on random pools, wild
cards held more than 15 times included."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from itertools import combinations
from types import ModuleType
from typing import Any

import pytest

from arbitro.model.rummy import RUMMY, laying
from arbitro.model.rummy.cards import (
    BLACK_THREES,
    JOKER,
    KINDS,
    LOWEST_NATURAL,
    LOWEST_THREE,
    RANK_NAMES,
)
from arbitro.model.rummy.engine import random_step
from arbitro.model.rummy.tables import Tables, tables
from arbitro.model.schema import RummyRules
from tests.support.rummy_helpers import BOOKS, R

WILD = (*range(LOWEST_THREE), JOKER)  # the twos and the joker (cards.py)


def expected(t: Tables, pool: tuple[int, ...]) -> dict[str, object]:
    """What `Shape` holds for `pool`, from a `Counter` of its cards."""
    held = Counter(pool)
    natural = sorted(c for c in held if LOWEST_NATURAL <= c < JOKER)
    rank_count = [0] * 13
    for c in natural:
        rank_count[c >> 2] += held[c]
    bits = 0
    for c in natural:
        bits |= t.seq_bit[c]
    wild = [(c, held[c]) for c in sorted(held) if c in WILD]
    # 4 bits per wild kind, the twos at 4 * card, the joker at 16; -1 when a count needs more
    code = sum(n << (4 * c if c < LOWEST_THREE else 16) for c, n in wild)
    if any(n > 15 for _, n in wild):
        code = -1
    return {
        "distinct": tuple(sorted(held)),
        "counts": [held[c] for c in range(KINDS)],
        "rank_count": rank_count,
        # 4 bits per rank from 4 * rank up, each count capped at 15
        "rank_code": sum(min(n, 15) << (4 * k) for k, n in enumerate(rank_count)),
        "ranks": sorted({c >> 2 for c in natural}),
        "bits": bits,
        "wilds": sum(n for _, n in wild),
        "wild_kinds": tuple(wild),
        "wild_code": code,
        "black_kinds": tuple((c, held[c]) for c in sorted(held) if c in BLACK_THREES),
        "blacks": sum(held[c] for c in BLACK_THREES),
        "naturals": [tuple(sorted(c for c in held if c >> 2 == r)) for r in range(2, 13)],
        "wild_cards": tuple(c for c, _ in wild),
        # the wilds held and a rank's naturals held, in card order
        "with_wilds": [
            tuple(sorted({c for c in held if c in WILD or c >> 2 == r})) for r in range(2, 13)
        ],
    }


def got(sh: laying.Shape) -> dict[str, object]:
    return {
        "distinct": tuple(sh.distinct),
        "counts": list(sh.counts),
        "rank_count": list(sh.rank_count),
        "rank_code": sh.rank_code,
        "ranks": list(sh.ranks),
        "bits": sh.bits,
        "wilds": sh.wilds,
        "wild_kinds": sh.wild_kinds,
        "wild_code": sh.wild_code,
        "black_kinds": sh.black_kinds,
        "blacks": sh.blacks,
        "naturals": [sh.naturals(r) for r in range(2, 13)],
        "wild_cards": sh.wild_cards(),
        "with_wilds": [sh.with_wilds(sh.naturals(r)) for r in range(2, 13)],
    }


def hands_in_play(book: str, seed: int, steps: int) -> list[tuple[int, ...]]:
    """The hands of the seat to move along random play of `book`."""
    rules = R(book)
    rng = random.Random(seed)
    seating = RUMMY.seatings(rules)[0]
    s = RUMMY.new_game(rules, seating)
    deck = list(RUMMY.deck(rules, seating))
    out: list[tuple[int, ...]] = []
    while len(out) < steps and RUMMY.phase(s) != "over":
        if RUMMY.phase(s) == "deal":
            order = deck[:]
            rng.shuffle(order)
            s = RUMMY.deal(rules, s, order)
            continue
        out.append(s.hands[s.seat])
        step = random_step(rules, s, rng)
        assert step is not None
        s = step[1]
    return out


def random_pools(seed: int) -> list[tuple[int, ...]]:
    """Sorted pools of any cards, some holding one wild kind 16 times or more."""
    rng = random.Random(seed)
    out: list[tuple[int, ...]] = [()]
    for _ in range(300):
        out.append(tuple(sorted(rng.randrange(KINDS) for _ in range(rng.randrange(1, 40)))))
    for _ in range(30):
        many = [rng.choice(WILD)] * rng.randrange(14, 20)
        out.append(tuple(sorted(many + [rng.randrange(KINDS) for _ in range(5)])))
    for _ in range(10):
        # a rank's naturals held 16 times or more (`Shape.rank_code` caps them at 15)
        rank = rng.randrange(2, 13)
        many = [rank * 4 + rng.randrange(4) for _ in range(rng.randrange(14, 20))]
        out.append(tuple(sorted(many + [rng.randrange(KINDS) for _ in range(5)])))
    return out


@pytest.mark.parametrize("book", BOOKS)
def test_shape_holds_the_pools_counts(book: str) -> None:
    t = tables(R(book))
    pools = hands_in_play(book, 3, 200) + random_pools(4)
    assert any(len(set(p)) < len(p) for p in pools)  # cards held twice among them
    assert any(len(set(p)) == len(p) for p in pools)
    for pool in pools:
        assert got(laying._shape(t, pool)) == expected(t, pool), pool


def test_shape_is_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: the naturals of each rank put 4 bits too high in
    `rank_code` (read as the next rank's) differ from the pool's counts. (Broken in a copy of
    the module run from source.)"""
    copy = source_module("arbitro.model.rummy.laying")
    right = copy._shape

    def broken(t: Tables, pool: tuple[int, ...]) -> Any:
        sh = right(t, pool)
        sh.rank_code = sh.rank_code << 4
        return sh

    monkeypatch.setattr(copy, "_shape", broken)
    t = tables(R("samba-en"))
    pools = hands_in_play("samba-en", 3, 50)
    assert any(got(copy._shape(t, p)) != expected(t, p) for p in pools)


def test_submultisets_list_each_multiset_once_in_order() -> None:
    """The multisets of `size` cards from (card, copies) pairs are the distinct combinations of
    the cards, ordered by the copies taken of each card in turn, most first (itertools)."""
    rng = random.Random(5)
    listed = 0
    for _ in range(300):
        cards = sorted(rng.sample(range(KINDS), rng.randrange(0, 6)))
        kinds = [(c, rng.randrange(1, 5)) for c in cards]
        size = rng.randrange(0, 8)
        pool = [c for c, n in kinds for _ in range(n)]
        want = sorted(set(combinations(pool, size)), key=lambda m: [-m.count(c) for c, _ in kinds])
        assert laying.submultisets(kinds, size) == want, (kinds, size)
        listed += len(want)
    assert listed > 300


def new_escaleras(rules: RummyRules, pool: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The new escaleras of `pool`, from the rules alone: per suit, in order, each run of
    *:sequence-min consecutive ranks of *:sequence-ranks whose cards are all held."""
    if not rules.sequences:
        return []
    ranks = [
        RANK_NAMES.index("10" if n in ("T", "10") else n.upper()) for n in rules.sequence_ranks
    ]
    held = set(pool)
    n = rules.sequence_min
    out = []
    for suit in range(4):
        for i in range(len(ranks) - n + 1):
            cards = tuple(r * 4 + suit for r in ranks[i : i + n])
            if all(c in held for c in cards):
                out.append(cards)
    return out


def _escalera_runs(lay: ModuleType, book: str) -> tuple[int, int]:
    """Over hands met in random play of `book` and random pools: how many escaleras the rules
    allow, and how many pools `lay.lay_candidates` lists other escaleras for (its candidates of
    naturals of more than one rank, in their order) than `new_escaleras`."""
    rules = R(book)
    t = tables(rules)
    found = differ = 0
    for pool in hands_in_play(book, 8, 300) + random_pools(9):
        want = new_escaleras(rules, pool)
        listed = [
            c
            for c in lay.lay_candidates(t, pool, ())
            if c[0] >= LOWEST_NATURAL and c[-1] < JOKER and c[0] >> 2 != c[-1] >> 2
        ]
        found += len(want)
        differ += listed != want
    return found, differ


@pytest.mark.parametrize("book", BOOKS)
def test_new_escaleras_are_the_runs_held(book: str) -> None:
    """The escaleras `lay_candidates` reads off the hand's escalera bits and a table of them
    per start are exactly the runs of held cards the rules allow, suit by suit, lowest first."""
    found, differ = _escalera_runs(laying, book)
    assert differ == 0
    assert found > 0 or not R(book).sequences


def test_new_escaleras_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: a table whose escaleras start one rank too high lists
    cards the hand does not hold. (Broken in a copy of the laying module run from source.)"""
    copy = source_module("arbitro.model.rummy.laying")
    real = copy._seq_table
    monkeypatch.setattr(copy, "_seq_table", lambda smin, low: real(smin, low + 1))
    found, differ = _escalera_runs(copy, "samba-es")
    assert found > 0
    assert differ > 0


def multisets(kinds: list[tuple[int, int]], size: int) -> list[tuple[int, ...]]:
    """The distinct sorted combinations of `size` cards of the (card, copies) pairs, most
    copies of the first card first (itertools, as in the test above)."""
    pool = [c for c, n in kinds for _ in range(n)]
    return sorted(set(combinations(pool, size)), key=lambda m: [-m.count(c) for c, _ in kinds])


def random_set_inputs(seed: int) -> list[tuple[Any, ...]]:
    """New-set arguments: the naturals of one rank and the wilds held, with their counts; the
    size of a new set and the fewest naturals it holds. The same naturals recur with other
    wilds, and the same wilds with other naturals, as in play."""
    rng = random.Random(seed)
    out: list[tuple[Any, ...]] = []
    for _ in range(400):
        rank = rng.randrange(LOWEST_NATURAL >> 2, JOKER >> 2)
        suits = sorted(rng.sample(range(4), rng.randrange(1, 5)))
        kinds = tuple((rank * 4 + s, rng.randrange(1, 4)) for s in suits)
        wilds = sorted(rng.sample(WILD, rng.randrange(0, len(WILD) + 1)))
        wild_kinds = tuple((w, rng.randrange(1, 5)) for w in wilds)
        lay = rng.randrange(2, 6)
        lo_nat = rng.randrange(1, lay + 1)
        out.append((kinds, wild_kinds, lay, lo_nat))
    for _ in range(200):
        kinds, _, lay, lo_nat = out[rng.randrange(400)]
        wild_kinds = out[rng.randrange(400)][1]
        out.append((kinds, wild_kinds, lay, lo_nat))
    return out


class _KeyLoss(dict[int, Any]):
    """A memo whose keys lose the bits of `mask` (a key that does not pack all it depends on)."""

    def __init__(self, mask: int) -> None:
        super().__init__()
        self.mask = mask

    def get(self, key: int, default: Any = None) -> Any:
        return super().get(key & ~self.mask, default)

    def __setitem__(self, key: int, value: Any) -> None:
        super().__setitem__(key & ~self.mask, value)


def _set_lay_runs(lay: ModuleType) -> tuple[int, int]:
    """Over random rank and wild holdings, each listed twice (the second time from the
    memos): how many new sets with wilds there are, and for how many holdings
    `lay._rank_sets` lists others (or in another order) than the multisets of naturals and
    wilds each sorted whole, fewest wilds first (itertools)."""
    t = tables(R("samba-es"))
    with_wilds = differ = 0
    for _ in range(2):
        for kinds, wild_kinds, size, lo_nat in random_set_inputs(6):
            want = []
            for n in range(min(size, sum(k for _, k in kinds)), lo_nat - 1, -1):
                for nat in multisets(list(kinds), n):
                    for wl in multisets(list(wild_kinds), size - n):
                        want.append(tuple(sorted(nat + wl)))
                        with_wilds += n < size
            pool = tuple(sorted(c for c, k in kinds + wild_kinds for _ in range(k)))
            sh = lay._shape(t, pool)
            differ += lay._rank_sets(sh, kinds[0][0] >> 2, size, lo_nat) != tuple(want)
    return with_wilds, differ


def test_new_sets_are_in_card_order() -> None:
    """A rank's new sets, built as twos + naturals + jokers without sorting from the naturals'
    and the wilds' multisets remembered apart, are the multisets of naturals and wilds each
    sorted whole, in the same order."""
    with_wilds, differ = _set_lay_runs(laying)
    assert with_wilds > 100
    assert differ == 0


def test_new_sets_in_card_order_are_checked(
    monkeypatch: pytest.MonkeyPatch, source_module: Callable[[str], ModuleType]
) -> None:
    """The comparison above can fail: jokers placed with the twos, before the naturals, leave
    the set out of card order. (Broken in a copy of the laying module run from source.)"""
    copy = source_module("arbitro.model.rummy.laying")
    real = copy._wild_ends
    monkeypatch.setattr(copy, "_wild_ends", lambda sh, w: [(lo + hi, ()) for lo, hi in real(sh, w)])
    with_wilds, differ = _set_lay_runs(copy)
    assert with_wilds > 100
    assert differ > 0


@pytest.mark.parametrize(
    ("memo", "mask"),
    [
        ("_NATS", 0x3F << 24),
        ("_SUITS", 0xF << 12),
        ("_SUITS", 0xF << 16),
        ("_ENDS", 0xF << 22),
        ("_ENDS", 0x3F),
    ],
)
def test_new_set_parts_remembered_are_checked(
    monkeypatch: pytest.MonkeyPatch,
    source_module: Callable[[str], ModuleType],
    memo: str,
    mask: int,
) -> None:
    """The comparison above can fail: a memo of a rank's naturals' multisets whose key leaves
    out the rank, a memo of their suits whose key leaves out the copies of the fourth suit or
    the size, or a memo of the wilds' multisets whose key leaves out the jokers or the size,
    hands back another holding's parts. (Broken in a copy of the laying module run from
    source.)"""
    copy = source_module("arbitro.model.rummy.laying")
    monkeypatch.setattr(copy, memo, _KeyLoss(mask))
    assert _set_lay_runs(copy)[1] > 0


def _laid_runs(lay: ModuleType, book: str) -> tuple[int, int]:
    """Over hands met in random play of `book` and random pools, in turn: how many candidates
    `lay.lay_candidates` lists, and for how many pools they differ from those listed with
    `_LAID` emptied first (each rank's sets worked out afresh); the memo keeps what each pool
    listed for the next ones, keyed by counts capped at what a new set takes."""
    t = tables(R(book))
    found = differ = 0
    for pool in hands_in_play(book, 12, 300) + random_pools(13):
        got = lay.lay_candidates(t, pool, ())
        lay._LAID.clear()
        want = lay.lay_candidates(t, pool, ())
        found += len(want)
        differ += got != want
    return found, differ


@pytest.mark.parametrize("book", BOOKS)
def test_new_sets_remembered_agree_with_new_sets_worked_out(book: str) -> None:
    """The new sets read from `_LAID`, whose key caps each count at what a new set takes (a
    card's copies at the set's size, a wild kind's at the wilds it takes), are those worked out
    for the pool itself."""
    found, differ = _laid_runs(laying, book)
    assert found > 100
    assert differ == 0


@pytest.mark.parametrize(("broken", "book"), [("naturals", "samba-es"), ("wilds", "canasta-es")])
def test_new_sets_remembered_are_checked(
    monkeypatch: pytest.MonkeyPatch,
    source_module: Callable[[str], ModuleType],
    broken: str,
    book: str,
) -> None:
    """The comparison above can fail: a key that caps a card's copies one below the set's
    size (three packs hold three copies), or a wild kind's one below the wilds a set takes (a
    book whose new sets take wilds), hands back another pool's sets. (Broken in a copy of the
    laying module run from source.)"""
    copy = source_module("arbitro.model.rummy.laying")
    if broken == "naturals":
        real_key = copy._set_key
        monkeypatch.setattr(
            copy,
            "_set_key",
            lambda counts, rank, code, lay, lo_nat: real_key(
                [min(n, lay - 1) for n in counts], rank, code, lay, lo_nat
            ),
        )
    else:
        real_cap = copy._capped_code
        monkeypatch.setattr(copy, "_capped_code", lambda code, most: real_cap(code, most - 1))
    assert _laid_runs(copy, book)[1] > 0
