"""Melds as constraints on a count vector: what may be laid, what may join a meld, what merges.

A meld is 53 counts, one per card kind. Its kind is read off the counts, never chosen: a *set*
holds naturals of one rank (and wilds), an *escalera* naturals of several ranks, a *wild meld*
wilds only, a *black-three meld* black threes (and wilds); every other non-empty vector (a red
three in it, black threes beside naturals) is no meld at all. The facts below state, each under
its clause, what the book requires of each kind:

- `lay_facts`: cards laid together as a new meld (what the model's `classify` accepts);
- `cap_facts`: the caps every meld on the table keeps — the invariant of the `meld-caps`
  property: the lay rules, with the size limit of a set replaced by how far the book lets a
  finished canasta grow (*:completed-set-growth);
- `add_facts`, `merge_facts`, `clean_facts`: one card joining a meld on the table, two sets
  joined, a wild swapped for a natural (what `add_problem`, `merge_problem` and the cleaning
  step accept).

Implements, as constraints, *:set-min, *:set-start-min-naturals, *:wild-cap,
*:wilds-at-most-naturals, *:completed-size, *:completed-set-growth, *:merge-sets, *:sequences,
*:sequence-ranks, *:sequence-min, *:sequence-max, *:wild-canasta, *:wild-meld-min-start,
*:black-threes-meld, *:black-three-meld-wilds, *:red-threes-meld, *:clean-by-replacing-wilds.
"""

from __future__ import annotations

from arbitro.model.schema import RummyRules
from arbitro.proofs.facts import Facts
from arbitro.proofs.rummy.cards import (
    BLACK_THREES,
    JOKER,
    NATURAL_RANKS,
    RED_THREES,
    TWOS,
    WILDS,
    Deck,
    kind,
    sequence_positions,
)
from arbitro.proofs.terms import BoolTerm, IntTerm, all_of, any_of, count, implies, total
from arbitro.proofs.vectors import Vec
from arbitro.proofs.verdict import known


def red_three_clause(rules: RummyRules) -> str:
    """The clause that keeps red threes out of melds: *:red-threes-meld when it forbids them,
    else the rule laying red threes out as soon as they are received (so none is ever in a hand
    to meld: *:red-three-initial-replacement)."""
    if rules.red_threes_meld == "never":
        return rules.cid("red_threes_meld")
    return rules.cid("red_three_initial_replacement")


class MeldTerms:
    """The terms read off one meld's counts."""

    def __init__(self, m: Vec, rules: RummyRules) -> None:
        self.m = m
        self.jokers = m[JOKER]
        self.twos = m.over(TWOS)
        self.wilds = self.jokers + self.twos
        self.blacks = m.over(BLACK_THREES)
        self.reds = m.over(RED_THREES)
        self.nat: dict[int, IntTerm] = {
            r: m.over(kind(r, s) for s in range(4)) for r in NATURAL_RANKS
        }
        self.naturals = total(self.nat.values())
        self.size = m.size()
        no_threes = all_of((self.blacks.eq(0), self.reds.eq(0)))
        self.set_of: dict[int, BoolTerm] = {
            r: all_of((n >= 1, self.naturals.eq(n), no_threes)) for r, n in self.nat.items()
        }
        self.is_set = any_of(self.set_of.values())
        self.is_seq = all_of((self.naturals >= 1, ~self.is_set, no_threes))
        self.is_wild = all_of((self.wilds >= 1, self.naturals.eq(0), no_threes))
        self.is_black3 = all_of((self.blacks >= 1, self.naturals.eq(0), self.reds.eq(0)))
        self.mixed_black = all_of((self.blacks >= 1, self.naturals >= 1))
        # escaleras: positions are the book's escalera ranks, lowest first
        self.positions = sequence_positions(rules)
        pos = self.positions
        self.in_suit: dict[int, BoolTerm] = {
            s: self.naturals.eq(total(m[kind(r, s)] for r in NATURAL_RANKS)) for s in range(4)
        }
        self.one_suit = any_of(self.in_suit.values())
        self.off_ranks = total(self.nat[r] for r in NATURAL_RANKS if r not in pos)
        # a run of present positions begins wherever a position is present and the one below is
        # not; consecutive cards make exactly one beginning (all the naturals being of one suit)
        self.starts = count(
            all_of(
                (
                    m[kind(pos[i], s)] >= 1,
                    *((m[kind(pos[i - 1], s)].eq(0),) if i else ()),
                )
            )
            for s in range(4)
            for i in range(len(pos))
        )
        self.dup = any_of(m[kind(r, s)] >= 2 for r in NATURAL_RANKS for s in range(4))

    def completed(self, rules: RummyRules) -> BoolTerm:
        """A canasta, a samba or a finished wild meld (black-three melds never count)."""
        return all_of((~self.is_black3, self.size >= rules.completed_size))

    def clean(self) -> BoolTerm:
        return self.wilds.eq(0)


def deck_facts(f: Facts, rules: RummyRules, v: Vec, d: Deck, what: str) -> None:
    """`v` is made of cards the deck holds: no kind beyond its copies. *:packs, *:jokers-per-pack."""
    f.given(v.nonneg(), f"{what}: counts are not negative")
    f.add(
        rules.cid("packs"),
        all_of(v[k] <= d.copies(k) for k in range(JOKER)),
        f"{what}: at most {d.packs} copies of each card",
    )
    f.add(
        rules.cid("jokers_per_pack"),
        v[JOKER] <= d.jokers,
        f"{what}: at most {d.jokers} jokers",
    )


def _common(f: Facts, rules: RummyRules, t: MeldTerms, lay: bool) -> None:
    r = rules
    cid = r.cid
    f.add(cid("set_min"), t.size >= 1, "a meld holds at least one card")
    f.add(red_three_clause(r), t.reds.eq(0), "no red three is in a meld")
    f.add(
        cid("black_threes_meld"),
        ~t.mixed_black,
        "black threes meld with each other only, never with naturals",
    )
    # sets
    f.add(
        cid("set_start_min_naturals"),
        implies(t.is_set, t.naturals >= r.set_start_min_naturals),
        f"a set holds at least {r.set_start_min_naturals} naturals",
    )
    f.add(cid("set_min"), implies(t.is_set, t.size >= r.set_min), f"a set holds {r.set_min}+")
    f.add(cid("wild_cap"), implies(t.is_set, t.wilds <= r.wild_cap), f"≤ {r.wild_cap} wilds")
    if r.wilds_at_most_naturals:
        f.add(
            cid("wilds_at_most_naturals"),
            implies(t.is_set, t.wilds <= t.naturals),
            "no more wilds than naturals in a set",
        )
    # escaleras
    if not r.sequences:
        f.add(cid("sequences"), ~t.is_seq, "no escaleras: naturals of several ranks meld not")
    else:
        f.add(cid("sequences"), implies(t.is_seq, t.wilds.eq(0)), "no wild in an escalera")
        f.add(cid("sequences"), implies(t.is_seq, t.one_suit), "an escalera is of one suit")
        f.add(cid("sequences"), implies(t.is_seq, ~t.dup), "an escalera repeats no card")
        f.add(cid("sequences"), implies(t.is_seq, t.starts.eq(1)), "its cards are consecutive")
        f.add(
            cid("sequence_ranks"),
            implies(t.is_seq, t.off_ranks.eq(0)),
            "only the escalera ranks",
        )
        f.add(
            cid("sequence_min"),
            implies(t.is_seq, t.size >= r.sequence_min),
            f"an escalera holds {r.sequence_min}+",
        )
        f.add(
            cid("sequence_max"),
            implies(t.is_seq, t.size <= r.sequence_max),
            f"an escalera holds at most {r.sequence_max}",
        )
    # wild melds
    if not r.wild_canasta:
        f.add(cid("wild_canasta"), ~t.is_wild, "no meld of wild cards alone")
    else:
        f.add(
            cid("wild_meld_min_start"),
            implies(t.is_wild, t.size >= r.wild_meld_min_start),
            f"a wild meld is begun with {r.wild_meld_min_start}",
        )
        f.add(
            cid("completed_size"),
            implies(t.is_wild, t.size <= r.completed_size),
            f"a wild meld holds at most {r.completed_size}",
        )
    # black-three melds
    known("black_threes_meld", r.black_threes_meld, ("never", "going_out_only"))
    known("red_threes_meld", r.red_threes_meld, ("never", "going_out_only"))
    if r.black_threes_meld == "never":
        f.add(cid("black_threes_meld"), ~t.is_black3, "black threes are never melded")
    else:
        if not r.black_three_meld_wilds:
            f.add(
                cid("black_three_meld_wilds"),
                implies(t.is_black3, t.wilds.eq(0)),
                "no wild in a meld of black threes",
            )
        f.add(
            cid("set_min"),
            implies(t.is_black3, t.size >= r.set_min),
            f"a black-three meld holds {r.set_min}+",
        )
        f.add(
            cid("wild_cap"),
            implies(t.is_black3, t.wilds <= r.wild_cap),
            f"≤ {r.wild_cap} wilds with black threes",
        )
        if r.wilds_at_most_naturals:
            f.add(
                cid("wilds_at_most_naturals"),
                implies(t.is_black3, t.wilds <= t.blacks),
                "no more wilds than black threes",
            )


def lay_facts(rules: RummyRules, t: MeldTerms) -> Facts:
    """Cards laid together form a meld (the model's `classify`)."""
    f = Facts()
    _common(f, rules, t, lay=True)
    f.add(
        rules.cid("completed_size"),
        implies(t.is_set, t.size <= rules.completed_size),
        f"a set is laid with at most {rules.completed_size} cards",
    )
    return f


def growth_cap(rules: RummyRules, t: MeldTerms) -> BoolTerm | None:
    """How big a set on the table may be, by *:completed-set-growth (None: the rule sets no cap)."""
    c = rules.completed_size
    g = rules.completed_set_growth
    known("completed_set_growth", g, ("none", "one_natural_if_clean", "naturals", "any"))
    if g == "none":
        return t.size <= c
    if g == "one_natural_if_clean":
        return all_of((t.size <= c + 1, implies(t.size >= c + 1, t.wilds.eq(0))))
    return None


def cap_facts(rules: RummyRules, t: MeldTerms) -> Facts:
    """The caps of every meld on the table: what was laid, grown only as the book allows."""
    f = Facts()
    _common(f, rules, t, lay=False)
    cap = growth_cap(rules, t)
    if cap is not None:
        f.add(
            rules.cid("completed_set_growth"),
            implies(t.is_set, cap),
            f"a finished canasta grows {rules.completed_set_growth.replace('_', ' ')}",
        )
    return f


def card_terms(c: Vec) -> tuple[IntTerm, dict[int, IntTerm]]:
    """Of a one-card vector: its wildness (0 or 1) and, per natural rank, whether it is of it."""
    wild = c.over(WILDS)
    nat = {r: c.over(kind(r, s) for s in range(4)) for r in NATURAL_RANKS}
    return wild, nat


def one_card(f: Facts, c: Vec, what: str) -> None:
    f.given(c.nonneg(), f"{what}: counts are not negative")
    f.given(c.size().eq(1), f"{what} is one card")


def add_facts(rules: RummyRules, t: MeldTerms, c: Vec) -> Facts:
    """Card `c` may join the table meld `t` (the model's `add_problem`)."""
    r = rules
    cid = r.cid
    f = Facts()
    wild, nat = card_terms(c)
    size = t.size
    done = size >= r.completed_size
    for rank, is_rank in t.set_of.items():
        f.add(
            cid("set_min"),
            implies(is_rank, (nat[rank] + wild).eq(1)),
            "a set takes naturals of its rank or wilds",
        )
    g = r.completed_set_growth
    if g == "none":
        f.add(cid("completed_set_growth"), implies(t.is_set, ~done), "a canasta takes no card")
    elif g == "naturals":
        f.add(
            cid("completed_set_growth"),
            implies(all_of((t.is_set, done)), wild.eq(0)),
            "a canasta takes naturals only",
        )
    elif g == "one_natural_if_clean":
        f.add(
            cid("completed_set_growth"),
            implies(
                all_of((t.is_set, done)),
                all_of((wild.eq(0), size.eq(r.completed_size), t.wilds.eq(0))),
            ),
            "a clean canasta takes one more natural",
        )
    f.add(
        cid("wild_cap"),
        implies(all_of((t.is_set, wild.eq(1))), t.wilds + 1 <= r.wild_cap),
        f"a set holds at most {r.wild_cap} wilds",
    )
    if r.wilds_at_most_naturals:
        f.add(
            cid("wilds_at_most_naturals"),
            implies(all_of((t.is_set, wild.eq(1))), t.wilds + 1 <= t.naturals),
            "no more wilds than naturals",
        )
    # escaleras: a natural of the suit just below or just above the run
    pos = t.positions
    m = t.m
    ends = []
    for s in range(4):
        for i in range(len(pos)):
            here = kind(pos[i], s)
            near = []
            if i:
                near.append(m[kind(pos[i - 1], s)] >= 1)
            if i + 1 < len(pos):
                near.append(m[kind(pos[i + 1], s)] >= 1)
            ends.append(all_of((c[here].eq(1), m[here].eq(0), any_of(near))))
    f.add(cid("sequences"), implies(t.is_seq, any_of(ends)), "an escalera grows at its ends")
    f.add(
        cid("sequence_max"),
        implies(t.is_seq, size < r.sequence_max),
        f"an escalera holds at most {r.sequence_max}",
    )
    f.add(cid("wild_canasta"), implies(t.is_wild, wild.eq(1)), "a wild meld takes wilds only")
    f.add(
        cid("completed_size"),
        implies(t.is_wild, size < r.completed_size),
        f"a wild meld holds at most {r.completed_size}",
    )
    f.add(cid("black_threes_meld"), ~t.is_black3, "a black-three meld takes nothing more")
    return f


def merge_facts(rules: RummyRules, a: MeldTerms, b: MeldTerms, u: MeldTerms) -> Facts:
    """Sets `a` and `b` may be joined into `u` (the model's `merge_problem`)."""
    r = rules
    cid = r.cid
    f = Facts()
    if not r.merge_sets:
        f.add(cid("merge_sets"), False, "sets are never joined")
        return f
    f.add(
        cid("merge_sets"),
        any_of(all_of((a.set_of[x], b.set_of[x])) for x in NATURAL_RANKS),
        "two sets of one rank",
    )
    f.add(
        cid("merge_sets"),
        all_of((a.size < r.completed_size, b.size < r.completed_size)),
        "neither is finished",
    )
    f.add(cid("wild_cap"), u.wilds <= r.wild_cap, f"the union holds ≤ {r.wild_cap} wilds")
    if r.wilds_at_most_naturals:
        f.add(cid("wilds_at_most_naturals"), u.wilds <= u.naturals, "no more wilds than naturals")
    if r.completed_set_growth != "any":
        f.add(
            cid("completed_set_growth"),
            u.size <= r.completed_size,
            "the union is no bigger than a canasta",
        )
    return f


def clean_facts(rules: RummyRules, t: MeldTerms, natural: Vec, wild: Vec) -> Facts:
    """A wild of set `t` may be swapped for `natural` from the hand (the cleaning step)."""
    r = rules
    cid = r.cid
    f = Facts()
    if not r.clean_by_replacing_wilds:
        f.add(cid("clean_by_replacing_wilds"), False, "wilds in a meld stay there")
        return f
    w_wild, _ = card_terms(wild)
    _, n_nat = card_terms(natural)
    f.add(cid("clean_by_replacing_wilds"), t.is_set, "sets are cleaned")
    f.add(cid("clean_by_replacing_wilds"), w_wild.eq(1), "a wild is taken out")
    f.add(
        cid("clean_by_replacing_wilds"),
        all_of(implies(wild[k] >= 1, t.m[k] >= 1) for k in WILDS),
        "the wild is in the set",
    )
    f.add(
        cid("clean_by_replacing_wilds"),
        any_of(all_of((t.set_of[x], n_nat[x].eq(1))) for x in NATURAL_RANKS),
        "a natural of the set's rank goes in",
    )
    return f


__all__ = [
    "MeldTerms",
    "add_facts",
    "cap_facts",
    "card_terms",
    "clean_facts",
    "deck_facts",
    "growth_cap",
    "lay_facts",
    "merge_facts",
    "one_card",
    "red_three_clause",
]
