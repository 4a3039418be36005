"""The meld shapes a side can have on the table, found by closing the encoding's own rules.

What matters of a set for legality and scoring is its shape: how many naturals and how many wilds
(which rank, which suits and which wilds do not change whether it may be laid or grown). An
escalera's shape is the stretch of escalera positions it covers, a wild meld's its size, a
black-three meld's its black threes and wilds. `reachable_shapes` starts from every shape the lay
facts accept and closes under the add, merge and clean facts, each evaluated on a concrete meld of
that shape — the same constraints the proofs use, run as compiled Python. Each shape remembers how
it was first reached, so an extreme meld comes with the steps that build it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arbitro.model.schema import RummyRules
from arbitro.proofs.facts import Fact, FactChecker, Facts
from arbitro.proofs.rummy.cards import (
    BLACK_THREES,
    JOKER,
    KINDS,
    TWOS,
    Deck,
    kind,
    name,
    sequence_positions,
)
from arbitro.proofs.rummy.melds import (
    MeldTerms,
    add_facts,
    clean_facts,
    lay_facts,
    merge_facts,
)
from arbitro.proofs.vectors import names_of, unknowns

SET_RANK = 11
"""The rank a set shape is shown in (kings); every natural rank behaves alike in a set."""


@dataclass(frozen=True)
class Step:
    """How a shape was reached: laid, or grown from `source` by adding a natural or a wild,
    merging with `other`, or cleaning a wild."""

    how: str  # "lay", "natural", "wild", "merge", "clean"
    source: tuple[int, ...] = ()
    other: tuple[int, ...] = ()


@dataclass
class Shapes:
    """Every reachable shape per meld kind, with how each was first reached."""

    sets: dict[tuple[int, int], Step] = field(default_factory=dict)  # (naturals, wilds)
    runs: dict[tuple[int, int], Step] = field(default_factory=dict)  # (low, high) positions
    wilds: dict[tuple[int], Step] = field(default_factory=dict)  # (size,)
    blacks: dict[tuple[int, int], Step] = field(default_factory=dict)  # (black threes, wilds)
    positions: tuple[int, ...] = ()

    def path(self, table: dict[tuple[int, ...], Step], shape: tuple[int, ...]) -> list[str]:
        """The steps that build `shape`, first to last, in words."""
        out: list[str] = []
        cur: tuple[int, ...] | None = shape
        while cur is not None:
            step = table[cur]
            if step.how == "lay":
                out.append(f"lay {_show(cur)}")
                cur = None
            elif step.how == "merge":
                out.append(f"merge with {_show(step.other)}")
                cur = step.source
            else:
                out.append(f"add a {step.how}" if step.how != "clean" else "swap a wild out")
                cur = step.source
        return out[::-1]


def _show(shape: tuple[int, ...]) -> str:
    return "/".join(str(x) for x in shape)


def set_vector(n: int, w: int, deck: Deck, rank: int = SET_RANK) -> list[int]:
    """A set of `n` naturals of `rank` (suits in turn) and `w` wilds (jokers first, then twos)."""
    v = [0] * KINDS
    for i in range(n):
        v[kind(rank, i % 4)] += 1
    for i in range(w):
        if i < deck.jokers:
            v[JOKER] += 1
        else:
            v[TWOS[(i - deck.jokers) % 4]] += 1
    return v


def run_vector(lo: int, hi: int, positions: Sequence[int], suit: int = 2) -> list[int]:
    v = [0] * KINDS
    for p in range(lo, hi + 1):
        v[kind(positions[p], suit)] += 1
    return v


def wild_vector(size: int, deck: Deck) -> list[int]:
    return set_vector(0, size, deck)


def black_vector(b: int, w: int, deck: Deck) -> list[int]:
    v = set_vector(0, w, deck)
    for i in range(b):
        v[BLACK_THREES[i % 2]] += 1
    return v


class _Checkers:
    """The lay, add, merge and clean facts compiled once for concrete melds."""

    def __init__(self, rules: RummyRules) -> None:
        a, b, u = unknowns("a", KINDS), unknowns("b", KINDS), unknowns("u", KINDS)
        c, n, w = unknowns("c", KINDS), unknowns("n", KINDS), unknowns("w", KINDS)
        ta, tb, tu = MeldTerms(a, rules), MeldTerms(b, rules), MeldTerms(u, rules)
        self.lay = FactChecker(lay_facts(rules, ta).items, names_of("a", KINDS))
        self.add = FactChecker(
            add_facts(rules, ta, c).items, names_of("a", KINDS) + names_of("c", KINDS)
        )
        self.merge = FactChecker(
            merge_facts(rules, ta, tb, tu).items,
            names_of("a", KINDS) + names_of("b", KINDS) + names_of("u", KINDS),
        )
        self.clean = FactChecker(
            clean_facts(rules, ta, n, w).items,
            names_of("a", KINDS) + names_of("n", KINDS) + names_of("w", KINDS),
        )


def _one(k: int) -> list[int]:
    v = [0] * KINDS
    v[k] = 1
    return v


_KNOWN: dict[Deck, list[tuple[dict[str, object], Shapes]]] = {}
"""Shapes found in this process, per deck, with the rule fields their search read and the values
it read: a reading of a book that leaves those fields alone has the same shapes (the claims,
clashes, dead rules and score witnesses ask again under every reading). Read-only to callers."""


def reachable_shapes(rules: RummyRules, deck: Deck) -> Shapes:
    """Every meld shape reachable by laying and growing under the encoding's facts."""
    from arbitro.proofs.recording import Recorder

    known = _KNOWN.setdefault(deck, [])
    for read, shapes in known:
        # read through `rules`, so that a caller recording the fields read records these
        if all(getattr(rules, k) == v for k, v in read.items()):
            return shapes
    rec = Recorder(rules)
    shapes = _search(rec, deck)  # type: ignore[arg-type]
    if len(known) >= 64:
        known.clear()  # a long-lived process keeps a bounded memory
    known.append((dict(object.__getattribute__(rec, "read")), shapes))
    return shapes


def _search(rules: RummyRules, deck: Deck) -> Shapes:
    ck = _Checkers(rules)
    out = Shapes(positions=sequence_positions(rules))
    wild_total = deck.jokers + 4 * deck.packs
    nat_total = 4 * deck.packs
    # sets
    todo: list[tuple[int, int]] = []
    for n in range(nat_total + 1):
        for w in range(wild_total + 1):
            if n + w > max(rules.completed_size, 1) or n == 0:
                continue
            if ck.lay.holds(set_vector(n, w, deck)):
                out.sets[(n, w)] = Step("lay")
                todo.append((n, w))
    nat_card = _one(kind(SET_RANK, 0))
    wild_card = _one(JOKER)
    while todo:
        n, w = todo.pop()
        v = set_vector(n, w, deck)
        grown: list[tuple[tuple[int, int], Step]] = []
        if n < nat_total and ck.add.holds(v + nat_card):
            grown.append(((n + 1, w), Step("natural", (n, w))))
        if w < wild_total and ck.add.holds(v + wild_card):
            grown.append(((n, w + 1), Step("wild", (n, w))))
        if w and n < nat_total:
            wv = _one(JOKER if v[JOKER] else next(k for k in TWOS if v[k]))
            if ck.clean.holds(v + nat_card + wv):
                grown.append(((n + 1, w - 1), Step("clean", (n, w))))
        for other in list(out.sets):
            n2, w2 = other
            if n + n2 > nat_total or w + w2 > wild_total:
                continue
            u = set_vector(n + n2, w + w2, deck)
            if ck.merge.holds(v + set_vector(n2, w2, deck) + u):
                grown.append(((n + n2, w + w2), Step("merge", (n, w), other)))
        for shape, step in grown:
            if shape not in out.sets:
                out.sets[shape] = step
                todo.append(shape)
    # escaleras
    pos = out.positions
    todo_r: list[tuple[int, int]] = []
    for lo in range(len(pos)):
        for hi in range(lo, len(pos)):
            if ck.lay.holds(run_vector(lo, hi, pos)):
                out.runs[(lo, hi)] = Step("lay")
                todo_r.append((lo, hi))
    while todo_r:
        lo, hi = todo_r.pop()
        v = run_vector(lo, hi, pos)
        for nlo, nhi, p in ((lo - 1, hi, lo - 1), (lo, hi + 1, hi + 1)):
            if (
                0 <= p < len(pos)
                and (nlo, nhi) not in out.runs
                and ck.add.holds(v + _one(kind(pos[p], 2)))
            ):
                out.runs[(nlo, nhi)] = Step("natural", (lo, hi))
                todo_r.append((nlo, nhi))
    # wild melds
    for size in range(1, wild_total + 1):
        if ck.lay.holds(wild_vector(size, deck)):
            out.wilds[(size,)] = Step("lay")
    todo_w = list(out.wilds)
    while todo_w:
        (size,) = todo_w.pop()
        if (
            size < wild_total
            and (size + 1,) not in out.wilds
            and ck.add.holds(wild_vector(size, deck) + wild_card)
        ):
            out.wilds[(size + 1,)] = Step("wild", (size,))
            todo_w.append((size + 1,))
    # black-three melds: laid whole, never grown
    for b in range(1, deck.black_threes + 1):
        for w in range(wild_total + 1):
            if ck.lay.holds(black_vector(b, w, deck)):
                out.blacks[(b, w)] = Step("lay")
    return out


def shape_cards(kind_name: str, shape: tuple[int, ...], deck: Deck, rules: RummyRules) -> list[str]:
    """Card names of one meld of this shape, for witnesses."""
    if kind_name == "set":
        v = set_vector(shape[0], shape[1], deck)
    elif kind_name == "escalera":
        v = run_vector(shape[0], shape[1], sequence_positions(rules))
    elif kind_name == "wild":
        v = wild_vector(shape[0], deck)
    else:
        v = black_vector(shape[0], shape[1], deck)
    return [name(k) for k in range(KINDS) for _ in range(v[k])]


def facts_of(*groups: Facts) -> list[Fact]:
    return [f for g in groups for f in g]


__all__ = [
    "SET_RANK",
    "Shapes",
    "Step",
    "black_vector",
    "reachable_shapes",
    "run_vector",
    "set_vector",
    "shape_cards",
    "wild_vector",
]
