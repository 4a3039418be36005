"""A side's hand score as constraints: what it can hold when a hand ends, and what that scores.

The configuration of one side at the end of a hand:

- its melds, counted by shape (`arbitro.proofs.rummy.shapes`): how many sets of each rank have each
  (naturals, wilds) shape, how many escaleras of each suit cover each stretch, how many wild melds
  of each size, and at most one black-three meld (laid only by a player going out);
- the cards its players hold, per natural rank and per class (jokers, twos, black and red threes);
- the red threes it has laid out;
- how the hand ended for it: it went out, another side went out, or nobody did (and then whether
  its player ended play when the stock ran out).

The facts say what the rules allow: only the deck's cards (escalera cards per suit, the rest per
rank), one set per rank where the book keeps one, no red three in a hand, the going-out
requirements for a side that went out, a hand emptied by a player going out alone. The category
terms follow the book's scoring clauses: *:card-points, *:bonus-clean-canasta,
*:bonus-dirty-canasta, *:bonus-samba, *:wild-canasta-bonus, *:canaston-count, *:canaston-bonus,
*:canasta-de-canastas-count, *:canasta-de-canastas-bonus, *:red-three-each, *:red-three-all,
*:red-three-positive-min-completed, *:red-three-negative-below-completed, *:red-three-negative-all,
*:red-three-undeclared-penalty, *:black-three-hand-penalty, *:black-threes-all-melded-bonus,
*:black-threes-all-in-hand-penalty, *:bonus-going-out, *:going-out-bonus-on-stock-out,
*:score-losing-melds, *:go-out-min-completed, *:go-out-min-clean, *:go-out-min-dirty,
*:several-sets-same-rank, *:black-threes-meld.

Which ranks and suits the cards are, and how jokers and twos split among melds, are free where
the rules let them be: a witness is decoded into concrete melds with `decode`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arbitro.model.schema import Layout, RummyRules
from arbitro.proofs.facts import Facts
from arbitro.proofs.rummy import cards as C
from arbitro.proofs.rummy.shapes import Shapes, reachable_shapes
from arbitro.proofs.terms import (
    Bool,
    BoolTerm,
    Int,
    IntTerm,
    all_of,
    any_of,
    const,
    implies,
    ite,
    total,
    variables,
    weighted,
)

CATEGORIES = (
    "melds",
    "hand",
    "canastas",
    "canaston",
    "red-threes",
    "black-threes",
    "going-out",
    "penalties",
)
"""The scoring categories, as the model names them."""


@dataclass(frozen=True)
class Seating:
    """What the score of a side depends on in a layout: its deck, whether a side is one player."""

    deck: C.Deck
    alone: bool
    names: tuple[str, ...]

    @property
    def label(self) -> str:
        return ", ".join(self.names)


def seatings(rules: RummyRules) -> list[Seating]:
    """The book's layouts grouped by what the score depends on, in the book's order."""
    groups: dict[tuple[int, int, bool], list[Layout]] = {}
    for lay in rules.layouts:
        d = C.deck(rules, lay)
        key = (d.packs, d.jokers, lay.players == lay.sides)
        groups.setdefault(key, []).append(lay)
    return [
        Seating(C.deck(rules, lays[0]), alone, tuple(x.name for x in lays))
        for (_, _, alone), lays in groups.items()
    ]


@dataclass
class Config:
    """The unknowns of one side's end-of-hand configuration and the terms read off them."""

    rules: RummyRules
    seatings: list[Seating]
    shapes: Shapes
    seating: IntTerm = field(default_factory=lambda: Int("seating"))
    """Which of `seatings` the hand is played in (an index)."""
    sets: dict[tuple[int, tuple[int, int]], IntTerm] = field(default_factory=dict)
    runs: dict[tuple[int, int], IntTerm] = field(default_factory=dict)
    """Escaleras per stretch of positions, all suits together: any family of stretches in which
    no position is covered more than 4 x packs times can be dealt into the four suits with none
    covered more than `packs` times in one suit (interval graphs are perfect: colour the stretches
    with 4 x packs colours, one suit per `packs` colours), so the count per stretch is exact."""
    wilds: dict[int, IntTerm] = field(default_factory=dict)
    blacks: dict[tuple[int, int], IntTerm] = field(default_factory=dict)
    hand_rank: dict[int, IntTerm] = field(default_factory=dict)
    hand_jokers: IntTerm = field(default_factory=lambda: const(0))
    hand_twos: IntTerm = field(default_factory=lambda: const(0))
    hand_blacks: IntTerm = field(default_factory=lambda: const(0))
    hand_reds: IntTerm = field(default_factory=lambda: const(0))
    melded_jokers: IntTerm = field(default_factory=lambda: const(0))
    melded_twos: IntTerm = field(default_factory=lambda: const(0))
    reds: IntTerm = field(default_factory=lambda: const(0))
    went: BoolTerm = field(default_factory=lambda: Bool("went"))
    other_went: BoolTerm = field(default_factory=lambda: Bool("other_went"))
    ended_play: BoolTerm = field(default_factory=lambda: Bool("ended_play"))
    one_seat_all_blacks: BoolTerm = field(default_factory=lambda: Bool("one_seat_all_blacks"))
    facts: Facts = field(default_factory=Facts)
    categories: dict[str, IntTerm] = field(default_factory=dict)

    @property
    def nobody_went(self) -> BoolTerm:
        return all_of((~self.went, ~self.other_went))

    @property
    def score(self) -> IntTerm:
        return total(self.categories.values())

    def unknowns(self) -> list[str]:
        """The names of the integer and boolean unknowns, for evaluation."""
        return [
            v.name for v in variables([f.term for f in self.facts] + list(self.categories.values()))
        ]


def set_name(rank: int, shape: tuple[int, int]) -> str:
    return f"set[{C.RANKS[rank]}:{shape[0]}n{shape[1]}w]"


def run_name(span: tuple[int, int], positions: tuple[int, ...]) -> str:
    return f"run[{C.RANKS[positions[span[0]]]}-{C.RANKS[positions[span[1]]]}]"


def config(rules: RummyRules, chosen: list[Seating] | None = None) -> Config:
    """The unknowns, the facts and the category terms of one side's end-of-hand configuration,
    in any of the book's layouts (or those `chosen`)."""
    r = rules
    cid = r.cid
    groups = chosen if chosen is not None else seatings(r)
    biggest = max((g.deck for g in groups), key=lambda d: d.size)
    # shapes reachable with the biggest deck that fit a smaller one are reachable in it: a
    # shape only grows along the moves that build it
    sh = reachable_shapes(r, biggest)
    cfg = Config(r, groups, sh)
    f = cfg.facts
    which = cfg.seating
    f.given(all_of((which >= 0, which < len(groups))), "one of the book's layouts")

    def per_seating(value: list[int]) -> IntTerm:
        term: IntTerm = const(value[-1])
        for i in range(len(groups) - 2, -1, -1):
            term = ite(which.eq(i), value[i], term)
        return term

    packs_n = per_seating([g.deck.packs for g in groups])
    jokers_n = per_seating([g.deck.jokers for g in groups])
    alone = any_of(which.eq(i) for i, g in enumerate(groups) if g.alone)
    pts = C.points(r)
    size = r.completed_size

    def count(name: str) -> IntTerm:
        v = Int(name)
        f.given(v >= 0, f"{name} is a count")
        return v

    # melds by shape
    for rank in C.NATURAL_RANKS:
        for shape in sh.sets:
            cfg.sets[(rank, shape)] = count(set_name(rank, shape))
        if not r.several_sets_same_rank:
            f.add(
                cid("several_sets_same_rank"),
                total(cfg.sets[(rank, s)] for s in sh.sets) <= 1,
                f"at most one set of {C.RANKS[rank]}s",
            )
    for span in sh.runs:
        cfg.runs[span] = count(run_name(span, sh.positions))
    for (n,) in sh.wilds:
        cfg.wilds[n] = count(f"wildmeld[{n}]")
    for shape in sh.blacks:
        cfg.blacks[shape] = count(f"blackmeld[{shape[0]}b{shape[1]}w]")
    black_melds = total(cfg.blacks.values())
    if cfg.blacks:
        f.add(
            cid("black_threes_meld"),
            black_melds <= ite(cfg.went, 1, 0),
            "black threes are melded only by the player going out, in one meld",
        )
    # the cards held
    for rank in C.NATURAL_RANKS:
        cfg.hand_rank[rank] = count(f"hand[{C.RANKS[rank]}]")
    cfg.hand_jokers = count("hand[JK]")
    cfg.hand_twos = count("hand[2]")
    cfg.hand_blacks = count("hand[black 3]")
    cfg.hand_reds = count("hand[red 3]")
    cfg.reds = count("red threes laid out")
    cfg.melded_jokers = count("melded jokers")
    cfg.melded_twos = count("melded twos")
    f.add(
        cid("red_three_initial_replacement"),
        cfg.hand_reds.eq(0),
        "a red three is laid out as soon as it is received, never kept in a hand",
    )
    # how the hand ended
    f.given(~(cfg.went & cfg.other_went), "one side goes out at most")
    f.given(implies(~cfg.nobody_went, ~cfg.ended_play), "ending play on an empty stock")
    # the deck: escalera cards per suit and rank, everything else per rank or class
    melded_wilds = (
        weighted((s[1], x) for (_, s), x in cfg.sets.items())
        + weighted((n, x) for n, x in cfg.wilds.items())
        + weighted((s[1], x) for s, x in cfg.blacks.items())
    )
    f.given(
        (cfg.melded_jokers + cfg.melded_twos).eq(melded_wilds),
        "the wilds in melds are jokers or twos",
    )
    pos = sh.positions
    packs = cid("packs")
    for rank in C.NATURAL_RANKS:
        in_runs = [x for (lo, hi), x in cfg.runs.items() if lo <= _at(pos, rank) <= hi]
        in_sets = weighted((s[0], x) for (q, s), x in cfg.sets.items() if q == rank)
        f.add(
            packs,
            (total(in_runs) + in_sets + cfg.hand_rank[rank]) <= 4 * packs_n,
            f"{C.RANKS[rank]}s: four per pack",
        )
    # implied by the counts above for whole numbers (stretches covering no position more than 4 x
    # packs times are dealt into 4 x packs colours of disjoint stretches, and one colour holds at
    # most `len(positions) // n` stretches of n positions or more), but not by their linear
    # relaxation: stated, it lets the solver prove the greatest bonuses of many packs quickly
    for n in sorted({hi - lo + 1 for lo, hi in cfg.runs}):
        f.add(
            packs,
            total(x for (lo, hi), x in cfg.runs.items() if hi - lo + 1 >= n)
            <= 4 * packs_n * (len(pos) // n),
            f"escaleras of {n} cards or more: {len(pos) // n} per suit and pack",
        )
    f.add(
        cid("jokers_per_pack"),
        (cfg.melded_jokers + cfg.hand_jokers) <= jokers_n,
        f"{r.jokers_per_pack} jokers per pack",
    )
    f.add(packs, (cfg.melded_twos + cfg.hand_twos) <= 4 * packs_n, "four twos per pack")
    melded_blacks = weighted((s[0], x) for s, x in cfg.blacks.items())
    blacks_n = 2 * packs_n
    reds_n = 2 * packs_n
    f.add(packs, (melded_blacks + cfg.hand_blacks) <= blacks_n, "two black threes per pack")
    f.add(packs, (cfg.reds + cfg.hand_reds) <= reds_n, "two red threes per pack")
    # completed melds
    done_sets = [(x, s) for (_, s), x in cfg.sets.items() if s[0] + s[1] >= size]
    clean = total(x for x, s in done_sets if s[1] == 0)
    dirty = total(x for x, s in done_sets if s[1] > 0)
    sambas = total(x for (lo, hi), x in cfg.runs.items() if hi - lo + 1 >= size)
    wild_done = total(x for n, x in cfg.wilds.items() if n >= size)
    go_counts = clean + dirty + sambas
    done_all = go_counts + wild_done
    # going out
    f.add(
        cid("go_out_min_completed"),
        implies(cfg.went, go_counts >= r.go_out_min_completed),
        f"going out needs {r.go_out_min_completed} canastas or sambas",
    )
    f.add(
        cid("go_out_min_clean"),
        implies(cfg.went, (clean + sambas) >= r.go_out_min_clean),
        f"going out needs {r.go_out_min_clean} clean",
    )
    f.add(
        cid("go_out_min_dirty"),
        implies(cfg.went, dirty >= r.go_out_min_dirty),
        f"going out needs {r.go_out_min_dirty} dirty",
    )
    held = (
        total(cfg.hand_rank.values())
        + cfg.hand_jokers
        + cfg.hand_twos
        + cfg.hand_blacks
        + cfg.hand_reds
    )
    f.given(implies(alone & cfg.went, held.eq(0)), "a player who went out holds nothing")
    f.given(
        implies(alone & cfg.hand_blacks.eq(blacks_n), cfg.one_seat_all_blacks),
        "a side of one player: its player holds them all",
    )
    f.given(
        implies(cfg.one_seat_all_blacks, cfg.hand_blacks.eq(blacks_n)),
        "one player holds every black three",
    )
    # the categories
    melded_points = (
        weighted((s[0] * pts[C.kind(rank, 0)], x) for (rank, s), x in cfg.sets.items())
        + weighted(
            (sum(pts[C.kind(pos[p], 0)] for p in range(lo, hi + 1)), x)
            for (lo, hi), x in cfg.runs.items()
        )
        + pts[C.JOKER] * cfg.melded_jokers
        + pts[0] * cfg.melded_twos
        + pts[C.BLACK_THREES[0]] * melded_blacks
    )
    held_points = (
        weighted((pts[C.kind(rank, 0)], x) for rank, x in cfg.hand_rank.items())
        + pts[C.JOKER] * cfg.hand_jokers
        + pts[0] * cfg.hand_twos
        + pts[C.BLACK_THREES[0]] * cfg.hand_blacks
    )
    cats = cfg.categories
    scores_melds = any_of((cfg.went, cfg.nobody_went, r.score_losing_melds))
    cats["melds"] = ite(scores_melds, melded_points, 0)
    cats["hand"] = -held_points
    cats["canastas"] = (
        r.bonus_clean_canasta * clean
        + r.bonus_dirty_canasta * dirty
        + r.bonus_samba * sambas
        + r.wild_canasta_bonus * wild_done
    )
    # the larger award replaces the smaller (the model's reading)
    canaston: IntTerm = const(0)
    if r.canaston_count:
        canaston = ite(done_all >= r.canaston_count, r.canaston_bonus, 0)
    if r.canasta_de_canastas_count:
        canaston = ite(
            done_all >= r.canasta_de_canastas_count, r.canasta_de_canastas_bonus, canaston
        )
    cats["canaston"] = canaston
    plus = ite(cfg.reds.eq(reds_n), r.red_three_all, r.red_three_each * cfg.reds)
    minus: IntTerm = -r.red_three_each * cfg.reds
    if r.red_three_negative_all:  # 0: no total for all of them, each costs its own
        minus = ite(cfg.reds.eq(reds_n), r.red_three_negative_all, minus)
    cats["red-threes"] = ite(
        cfg.reds.eq(0),
        0,
        ite(
            done_all >= r.red_three_positive_min_completed,
            plus,
            ite(done_all < r.red_three_negative_below_completed, minus, 0),
        ),
    )
    cats["black-threes"] = (
        -r.black_three_hand_penalty * cfg.hand_blacks
        - ite(cfg.one_seat_all_blacks, r.black_threes_all_in_hand_penalty, 0)
        + ite(
            all_of((cfg.went, melded_blacks.eq(blacks_n))),
            r.black_threes_all_melded_bonus,
            0,
        )
    )
    stock_bonus = r.bonus_going_out if r.going_out_bonus_on_stock_out else 0
    cats["going-out"] = ite(
        cfg.went, r.bonus_going_out, ite(all_of((cfg.nobody_went, cfg.ended_play)), stock_bonus, 0)
    )
    cats["penalties"] = -r.red_three_undeclared_penalty * cfg.hand_reds
    return cfg


def _at(positions: tuple[int, ...], rank: int) -> int:
    """A rank's escalera position, or -1 when escaleras do not use it."""
    return positions.index(rank) if rank in positions else -1


__all__ = ["CATEGORIES", "Config", "Seating", "config", "seatings"]
