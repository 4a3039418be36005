"""The atomic moves of Samba and Canasta as relations between per-zone card counts.

A state is abstracted to count vectors per zone, seen from the player to move: the stock, the
discard pile, the mover's hand, the other players' hands together, the rest of a pile held aside
until an opening is laid, a wild freed by cleaning, the red threes laid out by the mover's side and
by the others, and the melds — those a move touches one by one (`a`, `b` before; `a2`, `new`
after), the mover's side's other melds together, and the other sides' melds together.

A `Relation` is one variant of one move (a pile taken to start a set, a card added from the hand
…): its `effects` say where every card goes — each zone after, from the zones before and the
parameters (the cards drawn, shown, laid, added) — and its `guards` say when the move is allowed,
each under the clause that rules it. Conservation is proved from the effects alone, so it holds
whatever the guards allow; the refinement tests check effects and guards against every move the
model makes. The deal, which begins from the whole deck in the stock, has a relation over every
seat (`deal_relation`).

Implements, as relations, *:draw-count, *:draw-short-stock, *:stock-out, *:pile-new-set-naturals,
*:pile-wild-pair-after, *:pile-to-own-set, *:pile-to-completed-set, *:pile-to-own-sequence,
*:pile-new-sequence, *:several-sets-same-rank, *:frozen-by, *:blocked-by-top,
*:pile-rest-after-opening, *:red-three-initial-replacement, *:black-threes-meld,
*:clean-by-replacing-wilds, *:merge-sets, *:upcard-cover, *:layouts and, through the meld facts,
every meld clause.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from arbitro.model.schema import Layout, RummyRules
from arbitro.proofs.facts import Facts
from arbitro.proofs.rummy import cards as C
from arbitro.proofs.rummy.melds import (
    MeldTerms,
    add_facts,
    cap_facts,
    card_terms,
    clean_facts,
    lay_facts,
    merge_facts,
)
from arbitro.proofs.terms import (
    FALSE,
    BoolTerm,
    Int,
    IntTerm,
    all_of,
    any_of,
    const,
    implies,
    ite,
    total,
)
from arbitro.proofs.vectors import Vec, concrete, unknowns
from arbitro.proofs.verdict import known

K = C.KINDS
BASE_ZONES = (
    "stock",
    "pile",
    "hand",
    "others",
    "held",
    "freed",
    "reds",
    "reds_other",
    "melds",
    "melds_other",
)
"""The zones every relation has, before and after."""
TOUCHED_PRE = ("a", "b")
TOUCHED_POST = ("a2", "new")


@dataclass
class Relation:
    """One variant of one move: zones before and after, parameters, effects and guards."""

    move: str
    pre: dict[str, Vec]
    post: dict[str, Vec]
    params: dict[str, Vec] = field(default_factory=dict)
    effects: Facts = field(default_factory=Facts)
    guards: Facts = field(default_factory=Facts)
    domain: Facts = field(default_factory=Facts)
    """That counts are not negative: what a proof of conservation assumes besides the effects."""
    scalars: dict[str, IntTerm] = field(default_factory=dict)
    kept: list[str] = field(default_factory=list)
    """Zones the move leaves as they were: after is the same vector as before."""
    empty: list[str] = field(default_factory=list)
    """Touched-meld zones this variant does not use: constant zero."""

    @property
    def facts(self) -> Facts:
        """Domain, guards and effects together."""
        return Facts([*self.domain, *self.guards, *self.effects])

    def variables(self) -> list[str]:
        """The name of every unknown, vectors first (in kind order), then the scalars."""
        out: list[str] = []
        for prefix in (
            *(f"pre:{z}" for z in self.pre if z not in self.empty),
            *(f"post:{z}" for z in self.post if z not in self.kept and z not in self.empty),
            *(f"param:{p}" for p in self.params),
        ):
            out += [f"{prefix}[{k}]" for k in range(K)]
        return out + list(self.scalars)


def red(v: Vec) -> IntTerm:
    return v.over(C.RED_THREES)


def red_part(v: Vec) -> Vec:
    return Vec(v[k] if k in C.RED_THREES else 0 for k in range(K))


def nonred_part(v: Vec) -> Vec:
    return Vec(0 if k in C.RED_THREES else v[k] for k in range(K))


def _base(move: str) -> Relation:
    pre = {z: unknowns(f"pre:{z}", K) for z in (*BASE_ZONES, *TOUCHED_PRE)}
    post = {z: unknowns(f"post:{z}", K) for z in (*BASE_ZONES, *TOUCHED_POST)}
    return Relation(move, pre, post)


def _done(rel: Relation) -> Relation:
    """The counts of every zone and parameter are not negative."""
    for name, v in rel.pre.items():
        if name not in rel.empty:
            rel.domain.given(v.nonneg(), f"{name}: counts are not negative")
    for name, v in rel.post.items():
        if name not in rel.empty and name not in rel.kept:
            rel.domain.given(v.nonneg(), f"{name} after: counts are not negative")
    return rel


def _keep(rel: Relation, *zones: str) -> None:
    """Zones the move leaves as they were: the same vector before and after."""
    for z in zones:
        rel.post[z] = rel.pre[z]
        rel.kept.append(z)


def _no_melds(rel: Relation, *pre: str, post: tuple[str, ...] = ()) -> None:
    """Touched-meld zones this move does not use: empty before and after."""
    for z in pre:
        rel.pre[z] = Vec([0] * K)
        rel.empty.append(z)
    for z in post:
        rel.post[z] = Vec([0] * K)
        rel.empty.append(z)


def _param(rel: Relation, name: str) -> Vec:
    v = unknowns(f"param:{name}", K)
    rel.params[name] = v
    rel.domain.given(v.nonneg(), f"{name}: counts are not negative")
    return v


def _one(rel: Relation, name: str) -> Vec:
    v = _param(rel, name)
    rel.guards.given(v.size().eq(1), f"{name} is one card")
    return v


def _draw_from_stock(rel: Relation, x: Vec, want: IntTerm, clause: str) -> None:
    """Guards of `x` leaving the top of the stock: cards until `want` that are not red threes
    have come (each red three among them laid out and replaced), or the stock is used up."""
    stock = rel.pre["stock"]
    got = x.size() - red(x)
    rel.guards.add(clause, x.le(stock), "the cards drawn come from the stock")
    rel.guards.add(
        clause,
        any_of((got.eq(want), all_of((x.eq(stock), got <= want)))),
        "cards are drawn until enough are not red threes, or the stock runs out",
    )
    rel.guards.add(clause, implies(want.eq(0), x.size().eq(0)), "nothing drawn if none owed")


def _last_red_stops(rel: Relation, rules: RummyRules) -> None:
    """Play stops without a discard exactly when the draw took the stock's last card and it was
    a red three (nothing left to replace it), where *:last-red-three-ends-hand says so. The
    scalars: `last red` (the stock's last card is a red three), `stops` (no discard follows) and
    `in play` (the hand goes on after the draw; one that ends carries no such flag)."""
    last, stops, on = Int("last red"), Int("stops"), Int("in play")
    rel.scalars.update({"last red": last, "stops": stops, "in play": on})
    rel.domain.given(
        all_of((last >= 0, last <= 1, stops >= 0, stops <= 1, on >= 0, on <= 1)), "flags"
    )
    if rules.last_red_three_ends_hand:
        took_last = all_of((rel.pre["stock"].size() >= 1, rel.post["stock"].size().eq(0)))
        ends = all_of((last.eq(1), took_last))
    else:
        ends = FALSE
    rel.guards.add(
        rules.cid("last_red_three_ends_hand"),
        implies(on.eq(1), stops.eq(ite(ends, 1, 0))),
        "play stops without a discard when the last card of the stock is a red three",
    )


def _drawn_to_hand(rel: Relation, rules: RummyRules, x: Vec, clause: str) -> None:
    rel.effects.add(
        clause, rel.post["hand"].eq(rel.pre["hand"] + nonred_part(x)), "drawn cards join the hand"
    )
    rel.effects.add(
        rules.cid("red_three_initial_replacement"),
        rel.post["reds"].eq(rel.pre["reds"] + red_part(x)),
        "red threes drawn are laid out by the side and replaced",
    )
    rel.effects.given(rel.post["stock"].eq(rel.pre["stock"] - x), "the stock loses them")
    _keep(rel, "pile", "others", "held", "freed", "reds_other", "melds", "melds_other")
    _no_melds(rel, *TOUCHED_PRE, post=TOUCHED_POST)


# ---------------------------------------------------------------- drawing


def draw(rules: RummyRules) -> list[Relation]:
    """A normal draw of *:draw-count cards, red threes among them laid out and replaced; and a
    draw from an exhausted stock where *:stock-out ends the hand (no card moves)."""
    r = rules
    known("draw_short_stock", r.draw_short_stock, ("take_what_remains", "hand_ends"))
    known(
        "stock_out", r.stock_out, ("forced_take_if_matches_meld", "take_pile_if_able", "hand_ends")
    )
    rel = _base("draw")
    x = _param(rel, "drawn")
    n = rel.pre["stock"].size()
    if r.draw_short_stock == "hand_ends":
        rel.guards.add(r.cid("draw_short_stock"), n >= r.draw_count, "a full draw remains")
        want: IntTerm = const(r.draw_count)
    else:
        rel.guards.add(r.cid("draw_short_stock"), n >= 1, "the stock is not empty")
        want = ite(n < r.draw_count, n, r.draw_count)
    _draw_from_stock(rel, x, want, r.cid("draw_count"))
    _drawn_to_hand(rel, r, x, r.cid("draw_count"))
    _last_red_stops(rel, r)
    out = [_done(rel)]
    if r.stock_out == "hand_ends":
        ex = _base("draw/exhausted")
        m = ex.pre["stock"].size()
        short = m < r.draw_count if r.draw_short_stock == "hand_ends" else m.eq(0)
        ex.guards.add(r.cid("stock_out"), short, "the stock is exhausted: the hand ends")
        _keep(ex, *BASE_ZONES)
        _no_melds(ex, *TOUCHED_PRE, post=TOUCHED_POST)
        out.append(_done(ex))
    return out


def turn_start(rules: RummyRules) -> list[Relation]:
    """A turn begins: the replacements owed for dealt red threes are drawn
    (*:red-three-initial-replacement 'on_turn'; none are owed under 'at_deal')."""
    r = rules
    known("red_three_initial_replacement", r.red_three_initial_replacement, ("at_deal", "on_turn"))
    rel = _base("turn-start")
    owed = Int("owed")
    rel.scalars["owed"] = owed
    rel.guards.given(owed >= 0, "a count")
    if r.red_three_initial_replacement == "at_deal":
        rel.guards.add(r.cid("red_three_initial_replacement"), owed.eq(0), "replaced at the deal")
    x = _param(rel, "drawn")
    _draw_from_stock(rel, x, owed, r.cid("red_three_initial_replacement"))
    _drawn_to_hand(rel, r, x, r.cid("red_three_initial_replacement"))
    _last_red_stops(rel, r)
    return [_done(rel)]


# ---------------------------------------------------------------- the discard pile

USES = ("set", "join", "escalera", "add")
"""How the top card of a taken pile is used: a new set with cards shown from the hand, those
joined to the side's set of its rank (one set per rank), a new escalera, or onto a meld."""


def in_classes(k: int, classes: tuple[str, ...]) -> bool:
    """Whether kind `k` belongs to any of the card classes the rules name."""
    for cls in classes:
        if cls == "joker" and k == C.JOKER:
            return True
        if cls == "two" and k in C.TWOS:
            return True
        if cls == "wild" and C.is_wild(k):
            return True
        if cls == "red_three" and k in C.RED_THREES:
            return True
        if cls == "black_three" and k in C.BLACK_THREES:
            return True
    return False


def take_pile(rules: RummyRules) -> list[Relation]:
    """The whole pile taken, its top card used at once, its red threes laid out and the rest to
    the hand (or held aside until the opening is laid): one relation per use and destination.
    Where *:stock-out forces a take onto a meld once the stock is exhausted, no new meld is
    started from the pile then; where *:pile-add-after says so, the top card alone goes onto a
    meld only after the pile's first take of the hand."""
    known(
        "pile_wild_pair_after",
        rules.pile_wild_pair_after,
        ("never", "side_opened", "first_pile_take"),
    )
    out: list[Relation] = []
    dests = ["hand", "held"] if rules.pile_rest_after_opening else ["hand"]
    for use in USES:
        for dest in dests:
            out.append(_take_pile(rules, use, dest))
    return out


def _take_pile(rules: RummyRules, use: str, dest: str) -> Relation:
    r = rules
    cid = r.cid
    rel = _base(f"take-pile/{use}" + ("/held" if dest == "held" else ""))
    g, e = rel.guards, rel.effects
    pile = rel.pre["pile"]
    top = _one(rel, "top")
    y = _param(rel, "shown")
    opened = Int("opened")
    rel.scalars["opened"] = opened
    g.given(any_of((opened.eq(0), opened.eq(1))), "the side has opened (1) or not (0)")
    g.given(top.le(pile), "the top card is in the pile")
    g.add(cid("pile_new_set_naturals"), top.over(C.NATURALS).eq(1), "the top card is natural")
    blocked = [k for k in range(K) if in_classes(k, r.blocked_by_top)]
    g.add(cid("blocked_by_top"), top.over(blocked).eq(0), "the top card does not block it")
    g.add(cid("pile_new_set_naturals"), y.le(rel.pre["hand"]), "the cards shown are held")
    frozen = pile.over([k for k in range(K) if in_classes(k, r.frozen_by)]) >= 1
    _, top_nat = card_terms(top)
    y_wild, y_nat = card_terms(y)
    new, a, a2 = rel.post["new"], rel.pre["a"], rel.post["a2"]
    tn, ta = MeldTerms(new, r), MeldTerms(a, r)
    if use in ("set", "join"):
        k = r.pile_new_set_naturals
        same = any_of(all_of((top_nat[q].eq(1), y_nat[q].eq(y.size() - y_wild))) for q in top_nat)
        g.add(cid("pile_new_set_naturals"), same, "cards of the top card's rank")
        pair = all_of((y_wild.eq(0), y.size().eq(k)))
        wild_pair = all_of((y_wild.eq(1), y.size().eq(k)))
        g.add(cid("pile_new_set_naturals"), any_of((pair, wild_pair)), f"{k} naturals, or a wild")
        g.add(cid("frozen_by"), implies(wild_pair, ~frozen), "a frozen pile wants a natural pair")
        allowed: BoolTerm
        if r.pile_wild_pair_after == "never" or k < 1:
            allowed = FALSE
        elif r.pile_wild_pair_after == "side_opened":
            allowed = opened.eq(1)
        else:
            before = Int("pile_taken_before")
            rel.scalars["pile_taken_before"] = before
            g.given(any_of((before.eq(0), before.eq(1))), "a flag")
            allowed = before.eq(1)
        g.add(
            cid("pile_wild_pair_after"),
            implies(wild_pair, allowed),
            "a natural and a wild take the pile only when the book allows",
        )
    if use == "set":
        g.extend(lay_facts(r, tn))
        g.given(tn.is_set, "a new set")
        e.given(new.eq(y + top), "the new set is the cards shown and the top card")
        _no_melds(rel, "a", "b", post=("a2",))
    elif use == "join":
        g.add(
            cid("several_sets_same_rank"),
            not r.several_sets_same_rank,
            "one set per rank: they join the side's set",
        )
        g.given(
            any_of(all_of((ta.set_of[q], top_nat[q].eq(1))) for q in top_nat),
            "the side's set is of the top card's rank",
        )
        g.extend(cap_facts(r, MeldTerms(a + y + top, r)))
        e.given(a2.eq(a + y + top), "the side's set takes them")
        _no_melds(rel, "b", post=("new",))
    elif use == "escalera":
        g.add(
            cid("pile_new_sequence"),
            bool(r.pile_new_sequence and r.sequences),
            "the pile may start an escalera",
        )
        g.add(cid("frozen_by"), ~frozen, "never from a frozen pile")
        g.add(cid("pile_new_sequence"), y.size().eq(2), "two cards of the hand")
        g.extend(lay_facts(r, tn))
        g.given(tn.is_seq, "a new escalera")
        e.given(new.eq(y + top), "the escalera is the cards shown and the top card")
        _no_melds(rel, "a", "b", post=("a2",))
    else:
        g.add(cid("frozen_by"), ~frozen, "never onto a meld when frozen")
        known("pile_add_after", r.pile_add_after, ("any_time", "first_pile_take"))
        if r.pile_add_after == "first_pile_take":
            taken = Int("pile_taken_before")
            rel.scalars["pile_taken_before"] = taken
            g.given(any_of((taken.eq(0), taken.eq(1))), "a flag")
            g.add(
                cid("pile_add_after"),
                taken.eq(1),
                "the top card alone takes the pile only once somebody has taken it this hand",
            )
        e.given(y.zero(), "no card of the hand is shown")
        g.add(cid("pile_to_own_set"), any_of((ta.is_set, ta.is_seq)), "a set or an escalera")
        g.add(cid("pile_to_own_set"), implies(ta.is_set, r.pile_to_own_set), "onto a set")
        if not r.pile_to_completed_set:
            g.add(
                cid("pile_to_completed_set"),
                implies(ta.is_set, ta.size < r.completed_size),
                "not onto a finished canasta",
            )
        g.add(
            cid("pile_to_own_sequence"),
            implies(ta.is_seq, r.pile_to_own_sequence),
            "onto an escalera",
        )
        g.extend(add_facts(r, ta, top))
        e.given(a2.eq(a + top), "the top card joins the meld")
        _no_melds(rel, "b", post=("new",))
    if r.stock_out == "forced_take_if_matches_meld" and use in ("set", "escalera"):
        m = rel.pre["stock"].size()
        short = m < r.draw_count if r.draw_short_stock == "hand_ends" else m.eq(0)
        g.add(
            cid("stock_out"),
            ~short,
            "with the stock exhausted only a top card that fits a meld takes the pile",
        )
    rest = pile - top
    e.add(
        cid("red_three_initial_replacement"),
        rel.post["reds"].eq(rel.pre["reds"] + red_part(rest)),
        "red threes in the pile are laid out by the taker's side",
    )
    if dest == "held":
        g.add(cid("pile_rest_after_opening"), opened.eq(0), "the side is opening")
        e.add(
            cid("pile_rest_after_opening"),
            rel.post["held"].eq(rel.pre["held"] + nonred_part(rest)),
            "the rest waits until the opening is laid",
        )
        e.given(rel.post["hand"].eq(rel.pre["hand"] - y), "the hand gives the cards shown")
    else:
        if r.pile_rest_after_opening:
            g.add(cid("pile_rest_after_opening"), opened.eq(1), "the side has opened")
        e.add(
            cid("pile_rest_after_opening"),
            rel.post["hand"].eq(rel.pre["hand"] - y + nonred_part(rest)),
            "the rest of the pile joins the hand",
        )
        _keep(rel, "held")
    e.given(rel.post["pile"].zero(), "the whole pile is taken")
    _keep(rel, "stock", "others", "freed", "reds_other", "melds", "melds_other")
    return _done(rel)


# ---------------------------------------------------------------- melding


def set_count(rank: int) -> str:
    """The scalar unknown: how many sets of `rank` the mover's side has before the move."""
    return f"side sets[{C.RANKS[rank]}]"


def lay(rules: RummyRules) -> list[Relation]:
    """A new meld from the hand, or with the freed wild in it."""
    out = []
    for freed in (False, True):
        r = rules
        rel = _base("lay/freed" if freed else "lay")
        y = _param(rel, "laid")
        new = rel.post["new"]
        rel.guards.add(r.cid("set_min"), y.le(rel.pre["hand"]), "the cards laid are held")
        tn = MeldTerms(new, r)
        rel.guards.extend(lay_facts(r, tn))
        rel.guards.add(
            r.cid("black_threes_meld"),
            implies(tn.is_black3, rel.post["hand"].size() <= 1),
            "black threes are melded only by a player going out",
        )
        if not r.several_sets_same_rank:
            for rank, is_set in tn.set_of.items():
                sets = rel.scalars[set_count(rank)] = Int(set_count(rank))
                rel.domain.given(sets >= 0, "a count")
                rel.guards.add(
                    r.cid("several_sets_same_rank"),
                    implies(is_set, sets.eq(0)),
                    "one set per rank: no new set of a rank the side has a set of",
                )
        if freed:
            rel.guards.add(
                r.cid("clean_by_replacing_wilds"),
                rel.pre["freed"].size().eq(1),
                "a freed wild waits",
            )
            rel.effects.given(new.eq(y + rel.pre["freed"]), "the meld holds the freed wild")
            rel.effects.given(rel.post["freed"].zero(), "the freed wild is placed")
        else:
            rel.effects.given(new.eq(y), "the meld is what is laid")
            _keep(rel, "freed")
        rel.effects.given(rel.post["hand"].eq(rel.pre["hand"] - y), "the hand gives them")
        _keep(rel, "stock", "pile", "others", "held", "reds", "reds_other", "melds", "melds_other")
        _no_melds(rel, *TOUCHED_PRE, post=("a2",))
        out.append(_done(rel))
    return out


def add(rules: RummyRules) -> list[Relation]:
    """One card onto a meld of the side, from the hand or the freed wild."""
    out = []
    for freed in (False, True):
        r = rules
        rel = _base("add/freed" if freed else "add")
        c = _one(rel, "card")
        a, a2 = rel.pre["a"], rel.post["a2"]
        rel.guards.extend(add_facts(r, MeldTerms(a, r), c))
        rel.effects.given(a2.eq(a + c), "the card joins the meld")
        if freed:
            rel.guards.add(
                r.cid("clean_by_replacing_wilds"), c.eq(rel.pre["freed"]), "the freed wild"
            )
            rel.effects.given(rel.post["freed"].eq(rel.pre["freed"] - c), "it is placed")
            _keep(rel, "hand")
        else:
            rel.guards.add(r.cid("set_min"), c.le(rel.pre["hand"]), "the card is held")
            rel.effects.given(rel.post["hand"].eq(rel.pre["hand"] - c), "the hand gives it")
            _keep(rel, "freed")
        _keep(rel, "stock", "pile", "others", "held", "reds", "reds_other", "melds", "melds_other")
        _no_melds(rel, "b", post=("new",))
        out.append(_done(rel))
    return out


def merge(rules: RummyRules) -> list[Relation]:
    """Two sets of the side joined into one."""
    r = rules
    rel = _base("merge")
    a, b, new = rel.pre["a"], rel.pre["b"], rel.post["new"]
    rel.guards.extend(merge_facts(r, MeldTerms(a, r), MeldTerms(b, r), MeldTerms(new, r)))
    rel.effects.add(r.cid("merge_sets"), new.eq(a + b), "the union holds both")
    _keep(rel, *BASE_ZONES)
    _no_melds(rel, post=("a2",))
    return [_done(rel)]


def replace_wild(rules: RummyRules) -> list[Relation]:
    """A wild of a set swapped for a natural of the hand; the wild waits to be placed."""
    r = rules
    rel = _base("replace-wild")
    n = _one(rel, "natural")
    w = _one(rel, "wild")
    a, a2 = rel.pre["a"], rel.post["a2"]
    cl = r.cid("clean_by_replacing_wilds")
    rel.guards.add(cl, n.le(rel.pre["hand"]), "the natural is held")
    rel.guards.extend(clean_facts(r, MeldTerms(a, r), n, w))
    rel.guards.given(rel.pre["freed"].zero(), "no freed wild is waiting")
    rel.effects.add(cl, a2.eq(a - w + n), "the set gives the wild for the natural")
    rel.effects.add(cl, rel.post["hand"].eq(rel.pre["hand"] - n), "the hand gives the natural")
    rel.effects.add(cl, rel.post["freed"].eq(rel.pre["freed"] + w), "the wild waits")
    _keep(rel, "stock", "pile", "others", "held", "reds", "reds_other", "melds", "melds_other")
    _no_melds(rel, "b", post=("new",))
    return [_done(rel)]


def finish_opening(rules: RummyRules) -> list[Relation]:
    """The opening is laid: the side's melds (all laid this turn, as it had not opened) reach its
    minimum, fixed at the deal — card points only, less the top card of a pile taken to open
    unless *:pile-top-counts-for-opening — and the rest of the pile held aside joins the hand.
    *:opening-minimums, *:opening-rule (folded into the minimum at the deal)."""
    r = rules
    rel = _base("finish-opening")
    opened, top, least = Int("opened"), Int("top points"), Int("minimum")
    rel.scalars.update({"opened": opened, "top points": top, "minimum": least})
    rel.guards.add(r.cid("opening_minimums"), opened.eq(0), "the side has not opened yet")
    got = rel.pre["melds"].points(C.points(r))
    if not r.pile_top_counts_for_opening:
        got = got - top
    rel.guards.add(
        r.cid("opening_minimums"), got >= least, "the opening's card points reach the minimum"
    )
    rel.effects.add(
        r.cid("pile_rest_after_opening"),
        rel.post["hand"].eq(rel.pre["hand"] + rel.pre["held"]),
        "the held rest of the pile reaches the hand",
    )
    rel.effects.given(rel.post["held"].zero(), "nothing is held any more")
    _keep(rel, "stock", "pile", "others", "freed", "reds", "reds_other", "melds", "melds_other")
    _no_melds(rel, *TOUCHED_PRE, post=TOUCHED_POST)
    return [_done(rel)]


def discard(rules: RummyRules) -> list[Relation]:
    """One card from the hand onto the pile (ending the turn, or going out)."""
    rel = _base("discard")
    c = _one(rel, "card")
    rel.guards.given(c.le(rel.pre["hand"]), "the card is held")
    rel.effects.given(rel.post["hand"].eq(rel.pre["hand"] - c), "the hand gives it")
    rel.effects.given(rel.post["pile"].eq(rel.pre["pile"] + c), "the pile gets it")
    _keep(rel, "stock", "others", "held", "freed", "reds", "reds_other", "melds", "melds_other")
    _no_melds(rel, *TOUCHED_PRE, post=TOUCHED_POST)
    return [_done(rel)]


def no_cards(rules: RummyRules) -> list[Relation]:
    """Asking the partner, the answer, stopping after the last red three: no card moves."""
    rel = _base("no-cards")
    _keep(rel, *BASE_ZONES)
    _no_melds(rel, *TOUCHED_PRE, post=TOUCHED_POST)
    return [_done(rel)]


BUILDERS: dict[str, Callable[[RummyRules], list[Relation]]] = {
    "draw": draw,
    "turn-start": turn_start,
    "take-pile": take_pile,
    "lay": lay,
    "add": add,
    "merge": merge,
    "replace-wild": replace_wild,
    "finish-opening": finish_opening,
    "discard": discard,
    "no-cards": no_cards,
}
"""Each move and the function giving its relations (variants) for a rules object."""


def relations(rules: RummyRules) -> dict[str, Relation]:
    """Every relation of every move, by its name, each with its turn order (`turn`)."""
    out = {rel.move: rel for build in BUILDERS.values() for rel in build(rules)}
    for rel in out.values():
        turn(rules, rel)
    return out


TURN = ("seat", "seat after", "players", "passes")
"""The scalars of the turn order: the seat to move before and after the move, the number of
players, and (for a discard) whether the turn passes — every discard but the one that goes out."""


def turn(rules: RummyRules, rel: Relation) -> None:
    """The seat to move after `rel`: the next seat in the book's direction (seats are numbered
    that way) after a discard that does not end the hand, the same seat after every other move —
    drawing (red threes and their replacements included), taking the pile, melding, asking the
    partner and the answer. *:play-direction."""
    seat, after, players, passes = (Int(n) for n in TURN)
    rel.scalars.update(zip(TURN, (seat, after, players, passes), strict=True))
    rel.domain.given(all_of((seat >= 0, seat < players, passes >= 0, passes <= 1)), "a seat")
    nxt = ite((seat + 1).eq(players), 0, seat + 1)
    if rel.move == "discard":
        then = ite(passes.eq(1), nxt, seat)
        note = "a discard that does not go out passes the turn to the next seat"
    else:
        then = seat
        note = "the same seat keeps the turn"
    rel.guards.add(rules.cid("play_direction"), after.eq(then), note)


def conserved(pre: list[Vec], post: list[Vec]) -> BoolTerm:
    """Every kind's total over the zones is the same before and after (written as a difference,
    so that a zone the move leaves alone cancels out)."""
    return all_of(
        (total(v[k] for v in pre) - total(v[k] for v in post)).eq(0) for k in range(len(pre[0]))
    )


# ---------------------------------------------------------------- the deal


@dataclass
class DealRelation:
    """The deal of one layout: the whole deck in the stock before, every zone after."""

    layout: Layout
    deck: C.Deck
    first: int
    hands: list[Vec]
    reds: list[Vec]
    pile: Vec
    stock: Vec
    dealt: list[Vec]
    replaced: list[Vec]
    effects: Facts
    guards: Facts

    @property
    def facts(self) -> Facts:
        return Facts([*self.guards, *self.effects])

    def pre_total(self) -> list[Vec]:
        return [concrete(self.deck.counts())]

    def post_zones(self) -> list[Vec]:
        return [*self.hands, *self.reds, self.pile, self.stock]


def deal_relation(rules: RummyRules, layout: Layout, first: int = 0) -> DealRelation:
    """*:layouts hands of `hand_size`, red threes dealt laid out and replaced (at the deal, or
    for the first player at once when its turn begins), the upcard covered while it is of an
    *:upcard-cover class; the rest is the stock."""
    r = rules
    d = C.deck(r, layout)
    full = d.counts()
    g, e = Facts(), Facts()
    players, sides = layout.players, layout.sides
    dealt = [unknowns(f"dealt{s}", K) for s in range(players)]
    replaced = [unknowns(f"replaced{s}", K) for s in range(players)]
    up = unknowns("upcard", K)
    hands = [unknowns(f"hand{s}", K) for s in range(players)]
    reds = [unknowns(f"reds{i}", K) for i in range(sides)]
    stock = unknowns("stock", K)
    for v in (*dealt, *replaced, up):
        g.given(v.nonneg(), "counts are not negative")
    used = dealt[0]
    for v in (*dealt[1:], *replaced, up):
        used = used + v
    g.add(r.cid("packs"), used.le(full), "only cards of the deck are dealt")
    rcl = r.cid("red_three_initial_replacement")
    for s in range(players):
        g.add(r.cid("layouts"), dealt[s].size().eq(layout.hand_size), f"seat {s} gets its hand")
        now = r.red_three_initial_replacement == "at_deal" or s == first
        owed: IntTerm = red(dealt[s]) if now else const(0)
        got = replaced[s].size() - red(replaced[s])
        g.add(rcl, got.eq(owed), "each red three dealt is replaced (now, or at its turn)")
        e.add(
            rcl,
            hands[s].eq(nonred_part(dealt[s]) + nonred_part(replaced[s])),
            "the hand keeps what is not a red three",
        )
    for i in range(sides):
        laid = Vec([0] * K)
        for s in range(players):
            if s % sides == i:
                laid = laid + red_part(dealt[s]) + red_part(replaced[s])
        e.add(rcl, reds[i].eq(laid), "red threes dealt are laid out by the side")
    cover = [k for k in range(K) if in_classes(k, r.upcard_cover)]
    g.add(r.cid("upcard_cover"), up.size() >= 1, "a card is turned up")
    g.add(
        r.cid("upcard_cover"),
        (up.size() - up.over(cover)) <= 1,
        "every upcard but the top is of a covered class",
    )
    g.add(
        r.cid("upcard_cover"),
        any_of(((up.size() - up.over(cover)) >= 1, stock.size().eq(0))),
        "the top upcard is not of a covered class, unless the stock ran out covering",
    )
    e.given(stock.eq(concrete(full) - used), "the stock keeps the rest")
    return DealRelation(layout, d, first, hands, reds, up, stock, dealt, replaced, e, g)


__all__ = [
    "BASE_ZONES",
    "BUILDERS",
    "TOUCHED_POST",
    "TOUCHED_PRE",
    "USES",
    "DealRelation",
    "Relation",
    "conserved",
    "deal_relation",
    "in_classes",
    "nonred_part",
    "red_part",
    "relations",
    "turn",
]
