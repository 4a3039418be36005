"""Refinement: the encoding's meld rules give the model's answers, meld by meld.

Every multiset of small decks (exhaustively, up to the largest size a meld is laid with, plus
one) and large random samples of the full decks are judged by the encoding's lay facts and by
the model's own `classify`; every meld on the table with every card by the encoding's add facts
and the model's `add_problem`; pairs of sets by the merge facts and `merge_problem`. A
disagreement fails naming the cards and the clauses involved.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest

from arbitro.model.rummy import RUMMY
from arbitro.model.rummy.melds import SEQ, SET, Meld, add_problem, classify, merge_problem
from arbitro.model.rummy.tables import tables
from arbitro.model.schema import RummyRules
from arbitro.model.spec import load_rulebook
from arbitro.proofs.facts import FactChecker
from arbitro.proofs.rummy import cards as C
from arbitro.proofs.rummy.melds import MeldTerms, add_facts, lay_facts, merge_facts
from arbitro.proofs.rummy.shapes import reachable_shapes, run_vector, set_vector
from arbitro.proofs.runner import readings
from arbitro.proofs.vectors import names_of, unknowns
from tests.support.proofs import RUMMY_BOOKS, rummy

TO_MODEL = [RUMMY.parse_card(C.name(k)) for k in range(C.KINDS)]

# Small decks: each kind with how many copies may appear (never more than the book's deck has).
# Escaleras of hearts and a stray spade, wilds and threes; sets of kings with their wilds and
# threes and a stray ace; the top of the escalera ranks.
SMALL_DECKS = {
    "escaleras": {
        "4H": 1,
        "5H": 1,
        "6H": 1,
        "7H": 1,
        "8H": 1,
        "9H": 1,
        "4S": 1,
        "JK": 2,
        "2C": 1,
        "3C": 1,
        "3D": 1,
    },
    "sets": {"KC": 2, "KD": 2, "KH": 2, "KS": 2, "JK": 3, "2C": 2, "3C": 1, "3S": 1, "AH": 1},
    "top": {"JH": 1, "QH": 1, "KH": 1, "AH": 1, "2H": 1, "3H": 1, "AS": 1, "JK": 1},
}


def vector_cards(v: list[int]) -> tuple[int, ...]:
    return tuple(sorted(TO_MODEL[k] for k in range(C.KINDS) for _ in range(v[k])))


def small_multisets(deck: dict[str, int], most: int, rules: RummyRules) -> Iterator[list[int]]:
    d = C.largest_deck(rules)
    kinds = [(C.kind_of(n), min(c, d.copies(C.kind_of(n)))) for n, c in deck.items()]
    for combo in itertools.product(*(range(c + 1) for _, c in kinds)):
        if 0 < sum(combo) <= most:
            v = [0] * C.KINDS
            for (k, _), x in zip(kinds, combo, strict=True):
                v[k] = x
            yield v


def random_meld(rng: random.Random, rules: RummyRules) -> list[int]:
    """A random multiset of the full deck, biased toward almost-melds."""
    d = C.largest_deck(rules)
    v = [0] * C.KINDS
    size = rng.randint(1, 10)
    shape = rng.random()
    rank, suit, lo = rng.choice(C.NATURAL_RANKS), rng.randrange(4), rng.randrange(2, 13)
    for i in range(size):
        x = rng.random()
        if shape < 0.4:
            k = (
                C.kind(rank, rng.randrange(4))
                if x < 0.7
                else rng.choice(C.WILDS)
                if x < 0.85
                else rng.choice(C.BLACK_THREES + C.RED_THREES)
                if x < 0.92
                else rng.choice(C.NATURALS)
            )
        elif shape < 0.75:
            r = lo + i
            k = (
                C.kind(r, suit if rng.random() > 0.05 else rng.randrange(4))
                if r <= C.ACE and rng.random() > 0.06
                else rng.randrange(C.KINDS)
            )
        else:
            k = (
                rng.choice(C.WILDS)
                if x < 0.5
                else rng.choice(C.BLACK_THREES)
                if x < 0.8
                else rng.randrange(C.KINDS)
            )
        if v[k] < d.copies(k):
            v[k] += 1
    return v


def lay_checker(rules: RummyRules) -> FactChecker:
    m = unknowns("m", C.KINDS)
    return FactChecker(lay_facts(rules, MeldTerms(m, rules)).items, names_of("m", C.KINDS))


def compare_lays(rules: RummyRules, vectors: Iterator[list[int]]) -> tuple[int, int]:
    """(melds judged, melds accepted); fails on the first disagreement."""
    t = tables(rules)
    ck = lay_checker(rules)
    judged = accepted = 0
    for v in vectors:
        got = classify(t, vector_cards(v))
        model_ok = not isinstance(got, str)
        broken = ck.failing(v)
        assert model_ok == (not broken), (
            f"{rules.rulebook}: {' '.join(C.names(v))}: the model's classify says "
            f"{'a meld' if model_ok else repr(got)}, the encoding "
            f"{'a meld' if not broken else [f.clause + ' (' + f.note + ')' for f in broken]}"
        )
        judged += 1
        accepted += model_ok
    return judged, accepted


def meld_readings(book: str) -> list[dict[str, str | bool]]:
    """Every reading of the book that changes a rule about melds."""
    fields = {
        "packs",
        "jokers_per_pack",
        "sequences",
        "sequence_ranks",
        "sequence_min",
        "sequence_max",
        "set_min",
        "set_start_min_naturals",
        "wild_cap",
        "wilds_at_most_naturals",
        "completed_size",
        "completed_set_growth",
        "merge_sets",
        "black_threes_meld",
        "black_three_meld_wilds",
        "red_threes_meld",
        "wild_canasta",
        "wild_meld_min_start",
        "clean_by_replacing_wilds",
    }
    return [r for r in readings(load_rulebook(book)) if not r or set(r) & fields]


@pytest.mark.parametrize("book", RUMMY_BOOKS)
def test_small_decks_exhaustively(book: str) -> None:
    """Every multiset of each small deck up to one card past the largest lay."""
    r = rummy(book)
    most = max(r.completed_size, r.sequence_max) + 1
    total_judged = 0
    for deck in SMALL_DECKS.values():
        judged, accepted = compare_lays(r, small_multisets(deck, most, r))
        total_judged += judged
        assert 0 < accepted < judged  # both answers occur, so the comparison can fail
    assert total_judged > 3000


@pytest.mark.slow
@pytest.mark.parametrize(
    ("book", "options"), [(b, o) for b in RUMMY_BOOKS for o in meld_readings(b) if o]
)
def test_small_decks_every_meld_reading(book: str, options: dict[str, str | bool]) -> None:
    r = rummy(book, **options)
    most = max(r.completed_size, r.sequence_max) + 1
    for deck in SMALL_DECKS.values():
        compare_lays(r, small_multisets(deck, most, r))


@pytest.mark.parametrize("book", RUMMY_BOOKS)
def test_random_full_deck_melds(book: str) -> None:
    r = rummy(book)
    rng = random.Random(book)
    judged, accepted = compare_lays(r, (random_meld(rng, r) for _ in range(4000)))
    assert judged == 4000 and 400 < accepted < 3600


@pytest.mark.slow
@pytest.mark.parametrize("book", RUMMY_BOOKS)
def test_random_full_deck_melds_large(book: str) -> None:
    for options in meld_readings(book):
        r = rummy(book, **options)
        rng = random.Random(f"{book}{options}")
        compare_lays(r, (random_meld(rng, r) for _ in range(25000)))


def table_melds(rules: RummyRules) -> list[tuple[list[int], Meld]]:
    """Melds as they lie on the table: every reachable set shape of kings, every reachable
    escalera of hearts, and the lay-legal melds of the small decks."""
    d = C.largest_deck(rules)
    sh = reachable_shapes(rules, d)
    out: list[tuple[list[int], Meld]] = []
    king = C.RANKS.index("K")
    for n, w in sh.sets:
        v = set_vector(n, w, d)
        out.append((v, Meld(SET, king, vector_cards(v))))
    for lo, hi in sh.runs:
        v = run_vector(lo, hi, sh.positions)
        out.append((v, Meld(SEQ, 2, vector_cards(v))))
    t = tables(rules)
    for deck in SMALL_DECKS.values():
        for v in small_multisets(deck, 7, rules):
            got = classify(t, vector_cards(v))
            if not isinstance(got, str) and len(out) < 1200:
                out.append((v, got))
    return out


PROBE = [
    "KC", "KH", "QH", "AH", "JK", "2C", "3C", "3D", "3H", "4H", "10H", "7H", "8H", "JH", "9S", "4S",
]  # fmt: skip


@pytest.mark.parametrize("book", RUMMY_BOOKS)
def test_adding_a_card_agrees(book: str) -> None:
    r = rummy(book)
    t = tables(r)
    m, c = unknowns("m", C.KINDS), unknowns("c", C.KINDS)
    ck = FactChecker(
        add_facts(r, MeldTerms(m, r), c).items, names_of("m", C.KINDS) + names_of("c", C.KINDS)
    )
    judged = allowed = 0
    for v, meld in table_melds(r):
        for name in PROBE:
            card = [0] * C.KINDS
            card[C.kind_of(name)] = 1
            model_ok = add_problem(t, meld, TO_MODEL[C.kind_of(name)]) is None
            broken = ck.failing(v + card)
            assert model_ok == (not broken), (
                f"{book}: {name} onto {' '.join(C.names(v))}: add_problem says "
                f"{'yes' if model_ok else add_problem(t, meld, TO_MODEL[C.kind_of(name)])}, the "
                f"encoding {'yes' if not broken else [f.clause for f in broken]}"
            )
            judged += 1
            allowed += model_ok
    assert 0 < allowed < judged


@pytest.mark.parametrize("book", RUMMY_BOOKS)
def test_merging_two_sets_agrees(book: str) -> None:
    r = rummy(book)
    t = tables(r)
    a, b = unknowns("a", C.KINDS), unknowns("b", C.KINDS)
    u = a + b
    ck = FactChecker(
        merge_facts(r, MeldTerms(a, r), MeldTerms(b, r), MeldTerms(u, r)).items,
        names_of("a", C.KINDS) + names_of("b", C.KINDS),
    )
    sets = [(v, meld) for v, meld in table_melds(r) if meld.kind == SET][:60]
    for (v, x), (w, y) in itertools.product(sets, sets):
        model_ok = merge_problem(t, x, y) is None
        broken = ck.failing(v + w)
        assert model_ok == (not broken), (
            f"{book}: {' '.join(C.names(v))} with {' '.join(C.names(w))}: merge_problem "
            f"{'yes' if model_ok else merge_problem(t, x, y)}, encoding "
            f"{'yes' if not broken else [f.clause for f in broken]}"
        )


def test_the_comparison_catches_a_changed_rule() -> None:
    """An encoding built from a wild cap one higher than the model's disagrees on a meld."""
    import dataclasses

    r = rummy("samba-en")
    wrong = dataclasses.replace(r, wild_cap=3)
    ck = lay_checker(wrong)
    t = tables(r)
    found = []
    for v in small_multisets(SMALL_DECKS["sets"], 8, r):
        if isinstance(classify(t, vector_cards(v)), str) and ck.holds(v):
            found.append(C.names(v))
    assert ["KC", "JK", "JK", "JK"] in found or any(x.count("JK") == 3 for x in found)


@pytest.mark.parametrize("book", RUMMY_BOOKS)
def test_the_largest_meld_is_built_by_the_model_too(book: str) -> None:
    """The steps that build the largest reachable set, replayed with the model's classify and
    add_problem: each step is accepted."""
    r = rummy(book)
    d = C.largest_deck(r)
    sh = reachable_shapes(r, d)
    best = max(sh.sets, key=sum)
    path = sh.path(sh.sets, best)  # type: ignore[arg-type]
    assert path[0].startswith("lay ")
    n, w = (int(x) for x in path[0].split()[1].split("/"))
    t = tables(r)
    meld = classify(t, vector_cards(set_vector(n, w, d)))
    assert not isinstance(meld, str), f"{book}: the model refuses to lay {n} naturals, {w} wilds"
    for stepname in path[1:]:
        if stepname == "add a natural":
            n += 1
        elif stepname == "add a wild":
            w += 1
        else:
            pytest.skip(f"{book}: the largest set is built by {stepname}")
        v = set_vector(n, w, d)
        card = next(k for k in range(C.KINDS) if v[k] > C.counts_of(C.names(_vec(meld)))[k])
        assert add_problem(t, meld, TO_MODEL[card]) is None, f"{book}: {stepname} refused"
        meld = Meld(SET, meld.key, vector_cards(v))
    assert n + w == sum(best)


def _vec(meld: Meld) -> list[int]:
    v = [0] * C.KINDS
    for c in meld.cards:
        v[TO_MODEL.index(c)] += 1
    return v
