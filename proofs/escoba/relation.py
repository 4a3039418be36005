"""Escoba's guarded next-state relation, built from the rules object, seat by seat.

A state of a hand in play is, for a seating of `players` seats in `sides` sides: every seat's
hand, the table and every side's captures as 0/1 vectors over the 40 kinds of the Spanish pack
(a kind the rules' pack leaves out is in no zone), the stock as a 0/1 vector for each of its
positions (all 0 once dealt), every side's escobas, the side that captured last (-1: none yet),
the deal number, the dealer and the seat to move. One play of the engine's `apply` is one step
of the relation: the play itself, then what follows it by itself. A step is

    (mover, what is played, what follows)

- what is played: `capture` — the card held by the mover and a non-empty group of table cards
  worth *:capture-sum together go to the mover's side, an escoba when the table is left bare
  (*:escoba-points); or `lay` — the card goes to the table, allowed only when no group of table
  cards is worth the capture sum with it (*:capture-forced: for every multiset of capture values
  worth the need, the table holds fewer cards of some value);
- what follows: `pass` — some hand still holds a card, the next seat in *:play-direction moves;
  `redeal` — every hand is empty and deals remain (*:deals-per-hand): *:redeal-size cards to each
  seat from the front of the stock, one at a time in turn order from the dealer's neighbour, and
  *:redeal-table to the table; `end` — every hand is empty after the last deal: the table's rest
  goes to the side that captured last (*:last-capturer-takes-rest; *:rest-without-capturer when
  nobody did; an escoba only under *:rest-is-escoba), and the hand is over.

Each step is a `Relation`: named unknowns before (`pre`), the play's parameters (`card`, `taken`)
and after (`post`); guards and effects as facts naming their clauses. The effects define every
unknown after the step from those before it and the parameters, so a step is a function of its
guard's solutions: that is what `proofs.refine` compares with the engine's `legal_actions` and
`apply`, state by state. The deal is `deal_relation`: the opening deal from a deck order
(*:hand-size, *:table-initial, *:opening-sweeps), the stock never shorter than a deal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from arbitro.model.escoba.cards import RANK_NAMES, SUIT_NAMES
from arbitro.model.schema import EscobaRules
from arbitro.proofs.facts import Facts
from arbitro.proofs.recording import once
from arbitro.proofs.terms import (
    BoolTerm,
    Int,
    IntTerm,
    all_of,
    const,
    ite,
    total,
)
from arbitro.proofs.vectors import Vec, unknowns
from arbitro.proofs.verdict import NotEncoded, known

KINDS = len(SUIT_NAMES) * len(RANK_NAMES)
PLAYS = ("capture", "lay")
FOLLOWS = ("pass", "redeal", "end")


@lru_cache(maxsize=64)
def present(rules: EscobaRules) -> tuple[int, ...]:
    """1 for each kind in the rules' pack (its suits and ranks), 0 for the others. *:suits,
    *:ranks."""
    return tuple(
        1 if SUIT_NAMES[k // 10] in rules.suits and RANK_NAMES[k % 10] in rules.ranks else 0
        for k in range(KINDS)
    )


@lru_cache(maxsize=64)
def values(rules: EscobaRules) -> tuple[int, ...]:
    """The capture value of each kind (0 for a kind not in the pack). *:capture-values."""
    by_rank = dict(zip(rules.ranks, rules.capture_values, strict=True))
    have = present(rules)
    return tuple(by_rank[RANK_NAMES[k % 10]] if have[k] else 0 for k in range(KINDS))


def groups_worth(rules: EscobaRules, need: int) -> list[dict[int, int]]:
    """Every non-empty multiset of capture values, within the pack's cards of each value, worth
    `need` together (as value -> how many)."""
    copies: dict[int, int] = {}
    for k, v in enumerate(values(rules)):
        if present(rules)[k]:
            copies[v] = copies.get(v, 0) + 1
    vals = sorted(copies)
    out: list[dict[int, int]] = []

    def walk(i: int, left: int, cur: dict[int, int]) -> None:
        if left == 0:
            if cur:
                out.append(dict(cur))
            return
        if i == len(vals) or vals[i] > left:
            return
        v = vals[i]
        for n in range(min(copies[v], left // v) + 1):
            if n:
                cur[v] = n
            walk(i + 1, left - n * v, cur)
            cur.pop(v, None)

    if need > 0:
        walk(0, need, {})
    return out


def deals_for(rules: EscobaRules, players: int) -> int:
    for d in rules.deals_per_hand:
        if d.players == players:
            return d.deals
    raise NotEncoded("deals_per_hand", players)


def next_seat(rules: EscobaRules, players: int, seat: int) -> int:
    """The seat after `seat` in *:play-direction (seats numbered clockwise: the right-hand
    neighbour has the lower number)."""
    known("play_direction", rules.play_direction, ("right", "left"))
    return (seat - 1) % players if rules.play_direction == "right" else (seat + 1) % players


def turn_order(rules: EscobaRules, players: int, dealer: int) -> list[int]:
    """The seats from the dealer's neighbour on, in play direction (who gets cards first)."""
    out, seat = [], dealer
    for _ in range(players):
        seat = next_seat(rules, players, seat)
        out.append(seat)
    return out


@dataclass(frozen=True)
class Seating:
    players: int
    sides: int


@dataclass
class State:
    """The unknowns of one state (before or after a step)."""

    hands: list[Vec]
    table: Vec
    stock: list[Vec]  # per position, 0/1 by kind: at most one kind (none once dealt)
    piles: list[Vec]
    escobas: list[IntTerm]
    last: IntTerm
    deal: IntTerm
    play: IntTerm  # 1 while the hand is in play, 0 once it is over
    to_move: IntTerm


@lru_cache(maxsize=1024)
def _named(prefix: str) -> Vec:
    """The unknowns of one zone, made once per process: every step names its states' unknowns
    alike, and the solver and the evaluator know an unknown by its name (a term is immutable, so
    steps share them)."""
    return unknowns(prefix, KINDS)


def state_unknowns(prefix: str, g: Seating, positions: int) -> State:
    return State(
        [_named(f"{prefix}hand{s}") for s in range(g.players)],
        _named(f"{prefix}table"),
        [_named(f"{prefix}stock{j}") for j in range(positions)],
        [_named(f"{prefix}pile{i}") for i in range(g.sides)],
        [Int(f"{prefix}escobas{i}") for i in range(g.sides)],
        Int(f"{prefix}last"),
        Int(f"{prefix}deal"),
        Int(f"{prefix}play"),
        Int(f"{prefix}to_move"),
    )


def names(st: State) -> list[str]:
    """The unknowns' names of a state, in a fixed order."""
    out: list[str] = []
    for v in (*st.hands, st.table, *st.piles, *st.stock):
        out += [x.name for x in v.items]  # type: ignore[attr-defined]
    for x in (*st.escobas, st.last, st.deal, st.play, st.to_move):
        out.append(x.name)  # type: ignore[attr-defined]
    return out


@dataclass
class Relation:
    """One step: (mover, play, follow) for one seating and dealer."""

    name: str
    mover: int
    play: str
    follow: str
    pre: State
    post: State
    card: Vec
    taken: Vec
    domain: Facts = field(default_factory=Facts)
    guards: Facts = field(default_factory=Facts)  # of the play: who moves, what is played
    follow_guards: Facts = field(default_factory=Facts)  # of what follows it
    effects: Facts = field(default_factory=Facts)

    def copy(self) -> Relation:
        """The step with its facts in lists of their own: one to break a rule of in place (`step`
        hands every asker the same step)."""
        return replace(
            self,
            domain=Facts(self.domain),
            guards=Facts(self.guards),
            follow_guards=Facts(self.follow_guards),
            effects=Facts(self.effects),
        )

    @property
    def guard(self) -> Facts:
        """The step's whole guard: the play's and what follows it."""
        return Facts([*self.guards, *self.follow_guards])

    @property
    def facts(self) -> Facts:
        return Facts([*self.domain, *self.guards, *self.follow_guards, *self.effects])

    def variables(self) -> list[str]:
        return [
            *names(self.pre),
            *names(self.post),
            *(x.name for x in self.card.items),  # type: ignore[attr-defined]
            *(x.name for x in self.taken.items),  # type: ignore[attr-defined]
        ]


def positions(rules: EscobaRules, players: int) -> int:
    """How many cards the stock holds after the opening deal."""
    return sum(present(rules)) - players * rules.hand_size - rules.table_initial


def _domain(f: Facts, st: State, have: Sequence[int], g: Seating) -> None:
    for v in (*st.hands, st.table, *st.piles):
        f.given(all_of((x >= 0) & (x <= h) for x, h in zip(v.items, have, strict=True)), "0/1")
    for row in st.stock:
        f.given(all_of((x >= 0) & (x <= h) for x, h in zip(row.items, have, strict=True)), "0/1")
        f.given(row.size() <= 1, "one card at most")
    f.given((st.last >= -1) & (st.last < g.sides), "a side or -1")
    f.given((st.to_move >= -1) & (st.to_move < g.players), "a seat or -1")


def free_names(rel: Relation) -> list[str]:
    return rel.variables()


def _at(stock: Sequence[Vec], j: int, k: int) -> IntTerm:
    """Whether the card at stock position `j` is of kind `k` (0 past the stock's end)."""
    return stock[j][k] if j < len(stock) else const(0)


def step(
    rules: EscobaRules,
    g: Seating,
    dealer: int,
    mover: int,
    play: str,
    follow: str,
    domain: bool = True,
) -> Relation:
    """The step where `mover` makes a `play` and `follow` comes after it (`domain`: whether to
    state the unknowns' ranges too, which a proof stating its own premises does not read). Built
    once per process for the same rules and step (conservation, table-rest and the escobas'
    invariant ask for the same steps): a step is never changed in place, a test that breaks one
    rule of it makes a new one."""
    return once(_step, rules, g, dealer, mover, play, follow, domain)


def _step(
    rules: EscobaRules, g: Seating, dealer: int, mover: int, play: str, follow: str, domain: bool
) -> Relation:
    r = rules
    have = present(r)
    vals = values(r)
    npos = positions(r, g.players)
    pre = state_unknowns("", g, npos)
    post = state_unknowns("'", g, npos)
    card = unknowns("card", KINDS)
    taken = unknowns("taken", KINDS)
    rel = Relation(f"{play}/{follow}/seat{mover}", mover, play, follow, pre, post, card, taken)
    if domain:
        _domain(rel.domain, pre, have, g)
        rel.domain.given(card.nonneg() & taken.nonneg(), "counts")
    gd, ef = rel.guards, rel.effects
    side = mover % g.sides
    cs = r.capture_sum
    hand = pre.hands[mover]
    gd.given(pre.play.eq(1), "the hand is in play")
    gd.add(r.cid("play_direction"), pre.to_move.eq(mover), f"seat {mover} is to move")
    gd.add(r.cid("hand_size"), card.size().eq(1) & card.le(hand), "one card the mover holds")
    worth = card.points(vals)
    if play == "capture":
        gd.add(r.cid("capture_sum"), taken.le(pre.table), "the cards taken are on the table")
        gd.add(r.cid("capture_sum"), taken.size() >= 1, "a capture takes at least one card")
        gd.add(
            r.cid("capture_sum"),
            (worth + taken.points(vals)).eq(cs),
            f"the card and the cards taken are worth {cs}",
        )
        table_mid = pre.table - taken
    else:
        gd.add(r.cid("capture_sum"), taken.zero(), "a card laid takes nothing")
        if r.capture_forced:
            by_value: dict[int, IntTerm] = {}
            for v in sorted(set(x for x, h in zip(vals, have, strict=True) if h)):
                by_value[v] = pre.table.over(k for k in range(KINDS) if have[k] and vals[k] == v)
            cases: list[BoolTerm] = []
            for v in by_value:
                for grp in groups_worth(r, cs - v):
                    fits = all_of(by_value[u] >= n for u, n in grp.items())
                    cases.append(~(worth.eq(v) & fits))
            gd.add(
                r.cid("capture_forced"),
                all_of(cases),
                "no group of table cards is worth the capture sum with the card",
            )
        table_mid = pre.table + card
    hands_mid = [hand - card if s == mover else pre.hands[s] for s in range(g.players)]
    held_after = total(h.size() for h in hands_mid)
    piles_mid = list(pre.piles)
    escobas_mid = list(pre.escobas)
    last_mid = pre.last
    if play == "capture":
        piles_mid[side] = pre.piles[side] + taken + card
        escobas_mid[side] = pre.escobas[side] + ite(table_mid.size().eq(0), 1, 0)
        last_mid = const(side)
    deals = deals_for(r, g.players)
    order = turn_order(r, g.players, dealer)
    gd = rel.follow_guards
    if follow == "pass":
        gd.add(r.cid("redeal_size"), held_after >= 1, "some hand still holds a card")
        ef.add(
            r.cid("play_direction"), post.to_move.eq(next_seat(r, g.players, mover)), "next seat"
        )
        for s in range(g.players):
            ef.add(r.cid("hand_size"), post.hands[s].eq(hands_mid[s]), f"seat {s}'s hand")
        ef.add(r.cid("capture_sum"), post.table.eq(table_mid), "the table")
        ef.given(all_of(a.eq(b) for a, b in zip(post.stock, pre.stock, strict=True)), "stock kept")
        ef.given(post.deal.eq(pre.deal) & post.play.eq(1), "the same deal, still in play")
        final_piles, final_escobas, final_last = piles_mid, escobas_mid, last_mid
    elif follow == "redeal":
        cl = r.cid("redeal_size")
        gd.add(cl, held_after.eq(0), "every hand is empty")
        gd.add(r.cid("deals_per_hand"), pre.deal < deals, f"fewer than {deals} deals made")
        used = r.redeal_size * g.players
        need = used + r.redeal_table
        whole = pre.stock[need - 1].size() >= 1 if 0 < need <= npos else const(need) <= 0
        gd.add(cl, whole, "the stock holds a whole deal")
        for s in range(g.players):
            mine = [i + g.players * m for i in range(g.players) if order[i] == s
                    for m in range(r.redeal_size)]  # fmt: skip
            ef.add(
                cl,
                all_of(
                    post.hands[s][k].eq(total(_at(pre.stock, j, k) for j in mine))
                    for k in range(KINDS)
                    if have[k]
                ),
                f"seat {s} gets its cards from the stock, one at a time in turn",
            )
        up = list(range(used, used + r.redeal_table))
        ef.add(
            r.cid("redeal_table"),
            all_of(
                post.table[k].eq(table_mid[k] + total(_at(pre.stock, j, k) for j in up))
                for k in range(KINDS)
                if have[k]
            ),
            "the table gets the cards the deal turns up",
        )
        shift = used + r.redeal_table
        ef.add(
            cl,
            all_of(
                post.stock[j][k].eq(_at(pre.stock, j + shift, k))
                for j in range(npos)
                for k in range(KINDS)
                if have[k]
            ),
            "the stock keeps the rest, in order",
        )
        ef.add(r.cid("deals_per_hand"), post.deal.eq(pre.deal + 1) & post.play.eq(1), "next deal")
        ef.add(r.cid("play_direction"), post.to_move.eq(order[0]), "the dealer's neighbour leads")
        final_piles, final_escobas, final_last = piles_mid, escobas_mid, last_mid
    else:
        gd.add(r.cid("redeal_size"), held_after.eq(0), "every hand is empty")
        gd.add(r.cid("deals_per_hand"), pre.deal >= deals, f"{deals} deals made")
        known("rest_without_capturer", r.rest_without_capturer, ("stay", "dealer"))
        rest = table_mid.size() >= 1
        dealer_side = dealer % g.sides
        taker: IntTerm = const(-1)
        if r.last_capturer_takes_rest:
            if r.rest_without_capturer == "dealer":
                taker = ite(last_mid >= 0, last_mid, dealer_side)
            else:
                taker = last_mid
        elif r.rest_without_capturer == "dealer":
            taker = ite(last_mid >= 0, const(-1), dealer_side)
        taker = ite(rest, taker, const(-1))
        cl = r.cid("last_capturer_takes_rest")
        for s in range(g.players):
            ef.add(r.cid("hand_size"), post.hands[s].zero(), f"seat {s}'s hand is empty")
        final_piles = [
            Vec(p[k] + ite(taker.eq(i), table_mid[k], 0) for k in range(KINDS))
            for i, p in enumerate(piles_mid)
        ]
        ef.add(
            cl,
            post.table.eq(Vec(ite(taker >= 0, 0, table_mid[k]) for k in range(KINDS))),
            "the rest leaves the table when a side takes it",
        )
        bonus = 1 if r.rest_is_escoba else 0
        final_escobas = [e + ite(taker.eq(i), bonus, 0) for i, e in enumerate(escobas_mid)]
        final_last = last_mid
        ef.given(all_of(x.zero() for x in post.stock), "the stock is used up")
        ef.add(r.cid("deals_per_hand"), post.play.eq(0), "the hand is over")
        ef.given(post.deal.eq(pre.deal), "the deal number stays")
        ef.given(post.to_move.eq(-1), "nobody is to move")
    for i in range(g.sides):
        ef.add(r.cid("capture_sum"), post.piles[i].eq(final_piles[i]), f"side {i}'s captures")
        ef.add(r.cid("escoba_points"), post.escobas[i].eq(final_escobas[i]), f"side {i}'s escobas")
    ef.add(r.cid("capture_sum"), post.last.eq(final_last), "the side that captured last")
    return rel


@lru_cache(maxsize=64)
def steps(rules: EscobaRules, players: int, sides: int, dealer: int) -> tuple[Relation, ...]:
    """Every step of the seating with this dealer: each mover, play and what follows."""
    g = Seating(players, sides)
    return tuple(
        step(rules, g, dealer, m, p, f) for m in range(players) for p in PLAYS for f in FOLLOWS
    )


__all__ = [
    "FOLLOWS",
    "KINDS",
    "PLAYS",
    "Relation",
    "Seating",
    "State",
    "deals_for",
    "groups_worth",
    "next_seat",
    "positions",
    "present",
    "step",
    "steps",
    "turn_order",
    "values",
]
