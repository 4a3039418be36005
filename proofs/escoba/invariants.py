"""Inductive invariants of Escoba's guarded relation (`relation.py`), and the properties they prove.

Each invariant is a statement about one state of a hand in play. It is proved inductive: it holds
after the opening deal (`deal`, from any deck order of the rules' pack), and every step of the
relation that starts from a state where it holds ends in a state where it holds (one solver query
per step: mover, play, what follows, dealer). A counterexample is a step and the state before it.

- `CARDS` (conservation): every card of the pack is in exactly one place — one hand, the table,
  one side's captures or one position of the stock — and the stock holds exactly the cards the
  deals still to come will give (*:deals-per-hand, *:redeal-size, *:redeal-table), so it is never
  short of a deal and empty after the last.

At the step that ends a hand, CARDS says every card is in some side's captures or on the table,
none left in a hand or the stock: property `conservation`. It restates `deal-arithmetic` too: a
deal count that does not use the pack exactly leaves cards in the stock at the end (or a deal
short of cards), and that step is refuted.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from arbitro.model.schema import EscobaRules
from arbitro.proofs import smt
from arbitro.proofs.escoba import relation as R
from arbitro.proofs.facts import STRUCTURE, Fact, Facts
from arbitro.proofs.recording import once
from arbitro.proofs.terms import (
    And,
    BoolTerm,
    Cmp,
    IntTerm,
    IVar,
    Term,
    Value,
    all_of,
    any_of,
    const,
    ite,
    mentions,
    substitute,
    total,
    values_of,
    variables,
)
from arbitro.proofs.vectors import Vec, concrete, unknowns
from arbitro.proofs.verdict import Check, NotEncoded, Result, Verdict, Witness, prove

Invariant = Callable[[EscobaRules, R.Seating, R.State], BoolTerm]


def _in_stock(st: R.State, k: int) -> IntTerm:
    return total(row[k] for row in st.stock)


def one_place(rules: EscobaRules, st: R.State) -> BoolTerm:
    """ONE: each card of the pack in exactly one place (a hand, the table, a side's captures or a
    position of the stock)."""
    have = R.present(rules)
    return all_of(
        (
            total(h[k] for h in st.hands)
            + st.table[k]
            + total(p[k] for p in st.piles)
            + _in_stock(st, k)
        ).eq(have[k])
        for k in range(R.KINDS)
    )


def stock_shape(rules: EscobaRules, g: R.Seating, st: R.State) -> BoolTerm:
    """SHAPE: the stock holds as many cards as the deals still to come need (*:deals-per-hand,
    *:redeal-size, *:redeal-table), at its first positions."""
    npos = len(st.stock)
    per = g.players * rules.redeal_size + rules.redeal_table
    deals = R.deals_for(rules, g.players)
    held = total(row.size() for row in st.stock)
    length = any_of(st.deal.eq(d) & held.eq(npos - (d - 1) * per) for d in range(1, deals + 1))
    prefix = all_of(st.stock[j].size() >= st.stock[j + 1].size() for j in range(npos - 1))
    return length & prefix


def cards(rules: EscobaRules, g: R.Seating, st: R.State) -> BoolTerm:
    """CARDS = ONE and SHAPE: each card of the pack in exactly one place; the stock as long as the
    deals to come need, its cards at its first positions."""
    return one_place(rules, st) & stock_shape(rules, g, st)


def well_formed(rules: EscobaRules, g: R.Seating, st: R.State) -> BoolTerm:
    """What every state of the relation is: counts 0 or 1 for the pack's cards, at most one card
    at a stock position, a side or -1 captured last, a seat to move, escobas not negative."""
    have = R.present(rules)
    parts: list[BoolTerm] = []
    for v in (*st.hands, st.table, *st.piles, *st.stock):
        parts += [(x >= 0) & (x <= h) for x, h in zip(v.items, have, strict=True)]
    parts += [row.size() <= 1 for row in st.stock]
    parts += [(e >= 0) for e in st.escobas]
    parts += [(st.last >= -1) & (st.last < g.sides), st.play.eq(1)]
    parts += [(st.to_move >= 0) & (st.to_move < g.players)]
    return all_of(parts)


INVARIANTS: dict[str, tuple[Invariant, ...]] = {"cards": (cards,)}
"""Each invariant's statement."""
PREMISES: dict[str, tuple[Invariant, ...]] = {"cards": (cards,)}
"""What a step's check assumes before it: the invariant itself."""


@dataclass(frozen=True)
class Instance:
    seating: R.Seating
    dealer: int
    mover: int
    play: str
    follow: str


def instances(rules: EscobaRules, every_dealer: bool = False) -> Iterator[Instance]:
    """The steps to check, for each seating, play and what follows: seat 0 moving, under every
    dealer when what follows names the dealer (a later deal, the end; passing the turn does not).
    Seats are symmetric under rotation: the step of mover m under dealer d is the step of seat 0
    under dealer d - m with every seat renumbered by m (and every side by m modulo the sides), and
    the invariants sum over seats and sides, so these cover every mover. With `every_dealer`,
    every mover under every dealer (the same steps once more, renumbered)."""
    for g in seatings(rules):
        for mover in range(g.players) if every_dealer else range(1):
            for play in R.PLAYS:
                for follow in R.FOLLOWS:
                    for d in range(1) if follow == "pass" else range(g.players):
                        yield Instance(g, d, mover, play, follow)


def seatings(rules: EscobaRules) -> list[R.Seating]:
    out = [R.Seating(n, n) for n in rules.player_counts]
    out += [R.Seating(n, 2) for n in rules.team_player_counts]
    return out


def _decode(rel: R.Relation) -> Callable[[Mapping[str, Value]], Witness]:
    def decode(v: Mapping[str, Value]) -> Witness:
        def names(prefix: str) -> list[str]:
            return [R_name(k) for k in range(R.KINDS) if int(v.get(f"{prefix}[{k}]", 0))]

        card = names("card")
        taken = names("taken")
        table = names("table")
        data: dict[str, object] = {
            "step": rel.name,
            "card": card,
            "taken": taken,
            "table": table,
            "hands": [names(f"hand{s}") for s in range(len(rel.pre.hands))],
            "piles": [names(f"pile{i}") for i in range(len(rel.pre.piles))],
            "stock": [c for j in range(len(rel.pre.stock)) for c in names(f"stock{j}")],
            "escobas": [int(v.get(f"escobas{i}", 0)) for i in range(len(rel.pre.piles))],
        }
        move = f"{' '.join(card)} takes {' '.join(taken)}" if taken else f"{' '.join(card)} laid"
        on = " ".join(table) or "nothing"
        return Witness(f"{rel.name}: {move} on a table of {on}", data)

    return decode


def R_name(k: int) -> str:
    return "1234567SCR"[k % 10] + "ocbe"[k // 10]


CHOICE = ("capture_sum", "capture_forced")
"""The clauses of the guards that say which card and which group of table cards a play may move:
conservation holds whichever cards a play moves, so its first proof of a step leaves them out."""


def _stock_part(name: str) -> bool:
    """Whether an unknown is part of what SHAPE talks about: the stock, the deal number, play."""
    bare = name.lstrip("'")
    return bare.startswith("stock") or bare in ("deal", "play")


def slice_facts(facts: Facts, keep: Callable[[str], bool]) -> Facts:
    """The conjuncts of the facts whose unknowns all satisfy `keep` (a subset of the facts: what
    follows from it follows from them all)."""
    out = Facts()
    memo: dict[int, bool] = {}
    for f in facts:
        todo: list[BoolTerm] = [f.term]
        while todo:
            t = todo.pop()
            if isinstance(t, And):
                todo.extend(t.items)
            elif not mentions(t, lambda n: not keep(n), memo):
                out.items.append(Fact(f.clause, t, f.note))
    return out


@dataclass
class Defined:
    """Facts split into definitions (an unknown equal to a term of other unknowns) and the rest.

    The relation's effects define every unknown after a step from those before it and the play
    (`relation.py`), and the deal defines the state it leaves from the deck order: putting each
    definition's term in place of its unknown (`terms.substitute`) asks the same question of the
    solver without those unknowns and their equations — about half of each step's query. An
    unknown defined twice keeps its second equation as a fact (substituted), so nothing is lost."""

    terms: dict[str, Term]
    clauses: dict[str, str]
    rest: Facts

    def __call__(self, claims: Sequence[BoolTerm]) -> list[BoolTerm]:
        return substitute(claims, self.terms)  # type: ignore[return-value]

    def used(self, claims: Sequence[BoolTerm]) -> list[str]:
        """The clauses of the definitions the claims mention (the proof used them)."""
        got = (self.clauses.get(v.name) for v in variables(claims))
        return [c for c in dict.fromkeys(got) if c is not None and c != STRUCTURE]


_DEFINED: dict[tuple[int, int, Callable[[str], bool]], tuple[Facts, Defined]] = {}


def definitions(facts: Facts, defines: Callable[[str], bool]) -> Defined:
    """The conjuncts of the facts of the form `x == term` where `defines(x)` and the term mentions
    no unknown `defines` accepts, first equation per unknown; the other conjuncts, with the
    definitions put in, are the rest. Once per process for the same facts (a step's effects, a
    deal's facts: built once, `relation.step`, `deal_state`) and the same `defines`."""
    key = (id(facts), len(facts.items), defines)
    got = _DEFINED.get(key)
    if got is None or got[0] is not facts:
        if len(_DEFINED) >= 1024:  # a long-lived process keeps a bounded memory
            _DEFINED.clear()
        got = _DEFINED[key] = (facts, _definitions(facts, defines))
    return got[1]


def _definitions(facts: Facts, defines: Callable[[str], bool]) -> Defined:
    terms: dict[str, Term] = {}
    clauses: dict[str, str] = {}
    kept: list[tuple[Fact, BoolTerm]] = []
    memo: dict[int, bool] = {}
    for f in facts:
        todo: list[BoolTerm] = [f.term]
        while todo:
            t = todo.pop()
            if isinstance(t, And):
                todo.extend(reversed(t.items))
                continue
            if (
                isinstance(t, Cmp)
                and t.op == "=="
                and isinstance(t.left, IVar)
                and defines(t.left.name)
                and t.left.name not in terms
                and not mentions(t.right, defines, memo)
            ):
                terms[t.left.name] = t.right
                clauses[t.left.name] = f.clause
            else:
                kept.append((f, t))
    rest = Facts()
    for (f, _), put in zip(kept, substitute([t for _, t in kept], terms), strict=True):
        assert isinstance(put, BoolTerm)  # a boolean term stays boolean
        rest.items.append(Fact(f.clause, put, f.note))
    return Defined(terms, clauses, rest)


def _after(name: str) -> bool:
    return name.startswith("'")


def dealt(name: str) -> bool:
    """Whether an unknown is one the deal defines (every one but the deck order's)."""
    return not name.startswith("deck")


def _before(rules: EscobaRules, rel: R.Relation, name: str) -> Facts:
    g = Facts()
    seating = R.Seating(len(rel.pre.hands), len(rel.pre.piles))
    g.given(well_formed(rules, seating, rel.pre), "a state of the relation")
    for inv in PREMISES[name]:
        g.given(inv(rules, seating, rel.pre), f"{inv.__name__} holds before the step")
    g.given(rel.card.nonneg() & rel.taken.nonneg(), "counts")
    return g


def _lean_before(rules: EscobaRules, g: R.Seating, rel: R.Relation, name: str) -> Facts:
    """LEAN: the part of what a step assumes before it that ONE needs: each card in one place,
    counts not negative in the hands (a redeal's guard that every hand is empty), and at the
    hand's end the stock's shape (the last deal leaves it empty) and a side or nobody captured last
    (who takes the rest)."""
    out = Facts()
    out.given(_before_terms(rules, g)[0], "one_place holds before the step")
    nonneg = [*rel.pre.hands, rel.card, rel.taken]
    if rel.follow == "end":
        nonneg += rel.pre.stock
        out.given(_before_terms(rules, g)[1], "stock_shape holds before the step")
        out.given((rel.pre.last >= -1) & (rel.pre.last < g.sides), "a side or -1 captured last")
    out.given(all_of(v.nonneg() for v in nonneg), "counts")
    return out


@functools.lru_cache(maxsize=16)
def _before_terms(rules: EscobaRules, g: R.Seating) -> tuple[BoolTerm, BoolTerm, Facts]:
    """ONE and SHAPE of the state before a step, and `_stock_before`: the same for every step of
    a seating (its unknowns are named alike in every step, and the solver and the evaluator know
    unknowns by name), so built once."""
    st = R.state_unknowns("", g, R.positions(rules, g.players))
    return one_place(rules, st), stock_shape(rules, g, st), _stock_before(rules, g, st)


def after_terms(rules: EscobaRules, g: R.Seating, post: R.State) -> tuple[BoolTerm, BoolTerm]:
    """ONE and SHAPE of the state after a step: built once per seating when the step's state
    after it is the relation's own (its unknowns named alike in every step)."""
    st, one, shape = _after_terms(rules, g)
    if R.names(post) == R.names(st):
        return one, shape
    return one_place(rules, post), stock_shape(rules, g, post)


@functools.lru_cache(maxsize=16)
def _after_terms(rules: EscobaRules, g: R.Seating) -> tuple[R.State, BoolTerm, BoolTerm]:
    st = R.state_unknowns("'", g, R.positions(rules, g.players))
    return st, one_place(rules, st), stock_shape(rules, g, st)


def _stock_before(rules: EscobaRules, g: R.Seating, st: R.State) -> Facts:
    """The part of what a step assumes before it that is about the stock and the deal number
    alone (`well_formed`'s and SHAPE's): what SHAPE after the step is asked of."""
    have = R.present(rules)
    out = Facts()
    for row in st.stock:
        out.given(all_of((x >= 0) & (x <= h) for x, h in zip(row.items, have, strict=True)), "0/1")
        out.given(row.size() <= 1, "one card at most")
    out.given(st.play.eq(1), "the hand is in play")
    out.given(stock_shape(rules, g, st), "stock_shape holds before the step")
    return out


def step_check(
    rules: EscobaRules,
    inst: Instance,
    name: str,
    timeout: float,
    tamper: Tamper | None = None,
    vacuity: bool = True,
) -> Check:
    """The invariant `name` is kept by one step.

    First with the step's facts less the guards of `CHOICE` (a proof for a relation with fewer
    guards holds for every step the rules allow too), one solver call per part of the claim (ONE,
    then SHAPE; at the end, the cards all captured or on the table): small questions the solver
    answers in a fraction of a second, where the whole claim over every guard takes it minutes.
    ONE is asked first of `_lean_before` alone (the premises it needs), then, when that is not
    unsat, of everything the step assumes before it. When one of them is not unsat, the step is checked again with every guard and the whole claim,
    so a counterexample is always a step the rules allow. The core is the solver's own (the
    clauses the proof used), not minimised. With `vacuity`, whether the step can happen at all is
    checked too (every guard, no claim)."""
    rel = R.step(rules, inst.seating, inst.dealer, inst.mover, inst.play, inst.follow, domain=False)
    if tamper is not None:
        rel = tamper(rel.copy())  # a tamper may change the step in place
    g = inst.seating
    label = f"{name}/{g.players}p{g.sides}s/{rel.name}/dealer{inst.dealer}"
    statement = f"{rel.name} keeps {name}"
    started = time.perf_counter()
    if inst.follow == "end":
        claims = [cards_at_end(rules, g, rel)]
    else:
        claims = list(after_terms(rules, g, rel.post))
    drop = {rules.cid(c) for c in CHOICE}
    moves = Facts([*(f for f in rel.guards if f.clause not in drop), *rel.follow_guards])
    # the effects define the state after the step: the claims are asked of their terms
    defs = definitions(rel.effects, _after)
    moves.extend(defs.rest)
    asks = defs(claims)
    whole: list[Facts] = []

    def before() -> Facts:
        """Everything the step assumes before it (built when first asked for: a proof from the
        lean premises does not need it)."""
        if not whole:
            whole.append(_before(rules, rel, name))
        return whole[0]

    core: dict[str, None] = {}
    lean = Facts(moves)
    lean.extend(_lean_before(rules, g, rel, name))
    # SHAPE is about the stock alone: asked of the facts about the stock and the deal number, the
    # same question for every mover and play of a seating, answered once (`smt.check` remembers)
    shape = slice_facts(moves, _stock_part)
    shape.extend(_before_terms(rules, g)[2])
    asked = [(lean, c) for c in asks[:1]] + [(shape, c) for c in asks[1:]]
    for facts, claim in asked:
        out = smt.check(facts.items, [~claim], timeout=timeout, minimise=False, values=False)
        if out.status != "unsat" and facts is lean:
            quick = Facts([*moves, *before()])
            out = smt.check(quick.items, [~claim], timeout=timeout, minimise=False, values=False)
        if out.status != "unsat":
            break
        core.update(dict.fromkeys(out.core))
    else:
        core.update(dict.fromkeys(defs.used(claims)))
        can = Facts([*rel.guards, *rel.follow_guards, *before()]) if vacuity else None
        return proved_step(
            label,
            statement,
            started,
            tuple(core),
            can,
            lambda facts: _played(rules, inst, rel, facts),
            timeout,
        )
    full = Facts([*rel.guards, *rel.follow_guards, *rel.effects, *before()])
    can = Facts([*rel.guards, *rel.follow_guards, *before()])
    return prove(
        label, statement, full.items, all_of(claims), _decode(rel), timeout, premises=can.items
    )


def proved_step(
    label: str,
    statement: str,
    started: float,
    core: tuple[str, ...],
    can: Facts | None,
    played: Callable[[Facts], bool],
    timeout: float,
) -> Check:
    """A step's claim proved, with whether the step can happen at all: `can` (its guards and the
    premises the proof used; None: not asked) holding on a play of the engine (`played`), else
    asked of the solver. When the solver finds `can` unsat the proof is vacuous, and its core is
    the one shown."""
    vacuous: tuple[str, ...] | None = None
    if can is not None and not played(can):
        seen = smt.check(can.items, timeout=timeout, values=False)
        if seen.status == "unsat":
            vacuous = seen.core
    return Check(
        label,
        statement,
        Verdict.PROVED,
        time.perf_counter() - started,
        core=vacuous if vacuous is not None else core,
        vacuous=vacuous is not None,
    )


Tamper = Callable[[R.Relation], R.Relation]

PLAYED_HANDS = 40
"""How many hands of random play (fixed seeds) `_played` looks through for a step of seat 0."""


@functools.lru_cache(maxsize=16)
def _plays(
    rules: EscobaRules, players: int, sides: int
) -> dict[tuple[str, str], tuple[Value, ...]]:
    """For seat 0 moving under dealer 0, one play of each kind (play, what follows) met in the
    engine's random play from seeded deck orders: the state before it read as the relation's
    unknowns, then the card played and the cards taken as 0/1 vectors."""
    from arbitro.model.escoba import ESCOBA as model
    from arbitro.proofs.escoba.hand_scores import seating_of
    from arbitro.proofs.escoba.refine import read

    npos = R.positions(rules, players)
    deals = R.deals_for(rules, players)
    kinds = [k for k, n in enumerate(R.present(rules)) if n]
    out: dict[tuple[str, str], tuple[Value, ...]] = {}
    for seed in range(PLAYED_HANDS):
        rng = random.Random(seed)
        order = list(kinds)
        rng.shuffle(order)
        state = model.deal(
            rules, model.new_game(rules, seating_of(rules, players, sides), 0), order
        )
        while model.phase(state) == "play":
            acts = model.legal_actions(rules, state)
            act = acts[rng.randrange(len(acts))]
            if state.to_move == 0:
                card = 1 << act.card
                held = sum(bin(h).count("1") for h in state.hands) - 1
                follow = "pass" if held else "redeal" if state.deal_number < deals else "end"
                key = ("capture" if act.capture else "lay", follow)
                if key not in out:
                    vec = [int(bool(card >> k & 1)) for k in range(R.KINDS)]
                    took = [int(bool(act.capture >> k & 1)) for k in range(R.KINDS)]
                    out[key] = (*read(state, npos), *vec, *took)
            state = model.apply(rules, state, act)
        if len(out) == len(R.PLAYS) * len(R.FOLLOWS):
            break
    return out


def play_values(rules: EscobaRules, inst: Instance, rel: R.Relation) -> dict[str, Value] | None:
    """A play of the engine of this kind by seat 0 under dealer 0, met in seeded random play: the
    state before it and the card played and taken, as values of the relation's unknowns. None
    for another mover or dealer, or when no such play was met."""
    if (inst.mover, inst.dealer) != (0, 0):
        return None
    g = inst.seating
    try:
        got = _plays(rules, g.players, g.sides).get((inst.play, inst.follow))
    except (ValueError, NotEncoded):
        return None
    if got is None:
        return None
    names = [*R.names(rel.pre), *(x.name for x in (*rel.card.items, *rel.taken.items))]  # type: ignore[attr-defined]
    return dict(zip(names, got, strict=True))


def holds_on(facts: Facts, env: Mapping[str, Value] | None) -> bool:
    """Whether every fact holds on the values (walked once); False without values or when a fact
    names an unknown they leave out (the solver is asked then)."""
    if env is None:
        return False
    try:
        return all(values_of([f.term for f in facts], env))
    except KeyError:
        return False


def _played(rules: EscobaRules, inst: Instance, rel: R.Relation, can: Facts) -> bool:
    """Whether the step can happen, shown by a play of the engine: a state met in play where
    seat 0 makes this kind of play under dealer 0, on which every guard of the step and every
    premise before it hold (the facts evaluated). False when no such play was met or a fact fails
    on it (the solver is asked then)."""
    return holds_on(can, play_values(rules, inst, rel))


def cards_at_end(rules: EscobaRules, g: R.Seating, rel: R.Relation) -> BoolTerm:
    """After the step that ends the hand, every card of the pack is in one side's captures or on
    the table, none in a hand or the stock."""
    have = R.present(rules)
    post = rel.post
    return all_of(
        (total(p[k] for p in post.piles) + post.table[k]).eq(have[k])
        & total(h[k] for h in post.hands).eq(0)
        for k in range(R.KINDS)
    ) & all_of(x.zero() for x in post.stock)


# ---------------------------------------------------------------- the opening deal


def deal_state(rules: EscobaRules, g: R.Seating, dealer: int) -> tuple[Facts, R.State, list[Vec]]:
    """The state after the opening deal from a deck order (the order's kinds as unknowns). Built
    once per process for the same rules and deal (conservation, table-rest and the escobas'
    invariant ask for the same deals); never changed in place."""
    return once(_deal_state, rules, g, dealer)


def _deal_state(rules: EscobaRules, g: R.Seating, dealer: int) -> tuple[Facts, R.State, list[Vec]]:
    have = R.present(rules)
    vals = R.values(rules)
    n = sum(have)
    order = [unknowns(f"deck{i}", R.KINDS) for i in range(n)]
    f = Facts()
    f.add(
        rules.cid("suits"),
        all_of(total(row[k] for row in order).eq(have[k]) for k in range(R.KINDS)),
        "the deck order lists each card of the pack once",
    )
    f.given(
        all_of(
            row.size().eq(1) & all_of((x >= 0) & (x <= h) for x, h in zip(row, have, strict=True))
            for row in order
        ),
        "one card at each place of the order",
    )
    npos = R.positions(rules, g.players)
    st = R.state_unknowns("", g, npos)
    seats = R.turn_order(rules, g.players, dealer)
    h = rules.hand_size
    for s in range(g.players):
        mine = [i + g.players * m for i in range(g.players) if seats[i] == s for m in range(h)]
        f.add(
            rules.cid("hand_size"),
            all_of(st.hands[s][k].eq(total(order[j][k] for j in mine)) for k in range(R.KINDS)),
            f"seat {s}'s cards",
        )
    up = list(range(g.players * h, g.players * h + rules.table_initial))
    dealt = Vec(total(order[j][k] for j in up) for k in range(R.KINDS))
    worth = dealt.points(vals)
    sweeps = rules.opening_sweeps
    swept = any_of(worth.eq(sw.total) for sw in sweeps)
    side = dealer % g.sides
    cl = rules.cid("opening_sweeps")
    f.add(cl, st.table.eq(Vec(ite(swept, 0, dealt[k]) for k in range(R.KINDS))), "the table")
    for i in range(g.sides):
        taken = Vec(ite(swept, dealt[k], 0) if i == side else const(0) for k in range(R.KINDS))
        f.add(cl, st.piles[i].eq(taken), f"side {i}'s captures")
        esc: IntTerm = const(0)
        if i == side:
            for sw in sweeps:
                esc = ite(worth.eq(sw.total), sw.escobas, esc)
        f.add(cl, st.escobas[i].eq(esc), f"side {i}'s escobas")
    f.add(cl, st.last.eq(ite(swept, side, -1)), "the dealer's side captured last if it swept")
    f.add(
        rules.cid("table_initial"),
        all_of(st.stock[j].eq(order[g.players * h + rules.table_initial + j]) for j in range(npos)),
        "the stock: the rest, in order",
    )
    f.given(st.deal.eq(1) & st.play.eq(1) & st.to_move.eq(seats[0]), "the first deal")
    return f, st, order


PARTS: dict[str, tuple[Invariant, ...]] = {
    "cards": (lambda r, _g, st: one_place(r, st), stock_shape),
}
"""Each invariant's statement in parts, each part asked of the solver alone."""


def deal_check(rules: EscobaRules, g: R.Seating, dealer: int, name: str, timeout: float) -> Check:
    """The opening deal, from any deck order of the pack, establishes the invariant: one solver
    call per part of it (a deal that breaks a part is then asked again with the whole invariant,
    for a witness). Whether a deal can happen at all is shown by one deck order (the pack in
    order): the facts with that order fixed are satisfiable."""
    f, st, order = deal_state(rules, g, dealer)
    label = f"{name}/{g.players}p{g.sides}s/deal/dealer{dealer}"
    statement = f"the opening deal establishes {name}"
    started = time.perf_counter()

    def decode(v: Mapping[str, Value]) -> Witness:
        deck = [
            R_name(k) for i in range(len(order)) for k in range(R.KINDS)
            if int(v.get(f"deck{i}[{k}]", 0))
        ]  # fmt: skip
        return Witness(f"the deal from {' '.join(deck)} breaks {name}", {"deck": deck})

    core: dict[str, None] = {}
    # the deal defines the state it leaves from the deck order: each part is asked of the deck
    # order's facts alone, with the definitions put in the claim
    defs = definitions(f, dealt)
    for part in PARTS[name]:
        claim = part(rules, g, st)
        out = smt.check(
            defs.rest.items, defs([~claim]), timeout=timeout, minimise=False, values=False
        )
        if out.status != "unsat":
            claim = all_of(inv(rules, g, st) for inv in INVARIANTS[name])
            return prove(label, statement, f.items, claim, decode, timeout, minimise=False)
        core.update(dict.fromkeys(out.core))
        core.update(dict.fromkeys(defs.used([claim])))
    kinds = [k for k, h in enumerate(R.present(rules)) if h]
    # one deck order (the pack in order) meets every fact: evaluated, the solver asked only when
    # it does not
    deck = {f"deck{i}[{k}]": int(k == c) for i, c in enumerate(kinds) for k in range(R.KINDS)}
    try:
        can = all(values_of([x.term for x in defs.rest], deck))
    except KeyError:
        can = False
    seen = smt.Outcome("sat")
    if not can:
        fixed = all_of(
            row.eq(concrete([int(k == c) for k in range(R.KINDS)]))
            for row, c in zip(order, kinds, strict=True)
        )
        seen = smt.check(f.items, [fixed], timeout=timeout, minimise=False, values=False)
        if seen.status != "sat":
            seen = smt.check(f.items, timeout=timeout, values=False)
    vacuous = seen.status == "unsat"
    return Check(
        label,
        statement,
        Verdict.PROVED,
        time.perf_counter() - started,
        core=seen.core if vacuous else tuple(core),
        vacuous=vacuous,
    )


def induction(
    rules: EscobaRules,
    name: str,
    timeout: float,
    tamper: Tamper | None = None,
    every_dealer: bool = False,
) -> list[Check]:
    """The base case (every seating, dealer 0, or every dealer) and the steps of `instances`."""
    out: list[Check] = []
    for g in seatings(rules):
        for d in range(g.players if every_dealer else 1):
            out.append(deal_check(rules, g, d, name, timeout))
    for inst in instances(rules, every_dealer):
        # whether a step can happen at all is asked of the first mover's and dealer's: the others'
        # are the same facts with the seats renamed
        first = inst.mover == 0 and inst.dealer == 0
        out.append(step_check(rules, inst, name, timeout, tamper, vacuity=first))
    return out


NAME = "conservation"
STATEMENT = (
    "every card of the pack is in exactly one place — a hand, the table, a side's captures or "
    "the stock, which holds what the deals to come need — after the deal and every step of the "
    "guarded relation (inductive), and in a side's captures or on the table when the hand ends"
)


def conservation(
    rules: EscobaRules, timeout: float, tamper: Tamper | None = None, every_dealer: bool = False
) -> Result:
    """Property `conservation`: CARDS proved inductive over the guarded relation."""
    started = time.perf_counter()
    checks = induction(rules, "cards", timeout, tamper, every_dealer)
    verdict, _ = summary(checks)
    if verdict is Verdict.PROVED:
        text = (
            f"inductive over the guarded relation: the deal and {len(checks) - len(seatings(rules))}"
            " steps keep every card in one place"
        )
    else:
        bad = next(c for c in checks if c.verdict is verdict)
        why = bad.witness.text if bad.witness is not None else bad.reason
        text = f"{bad.name}: {why}"
    return Result(NAME, rules.rulebook, {}, STATEMENT, tuple(checks), text,
                  time.perf_counter() - started)  # fmt: skip


def summary(checks: list[Check]) -> tuple[Verdict, str]:
    bad = [c for c in checks if c.verdict is not Verdict.PROVED]
    if not bad:
        return Verdict.PROVED, f"inductive: the deal and {len(checks)} checks of steps"
    worst = next((c for c in bad if c.verdict is Verdict.REFUTED), bad[0])
    return worst.verdict, worst.name


def timed(fn: Callable[[], list[Check]]) -> tuple[list[Check], float]:
    started = time.perf_counter()
    got = fn()
    return got, time.perf_counter() - started


__all__ = [
    "INVARIANTS",
    "NAME",
    "STATEMENT",
    "Instance",
    "cards",
    "cards_at_end",
    "conservation",
    "deal_check",
    "deal_state",
    "dealt",
    "holds_on",
    "induction",
    "instances",
    "play_values",
    "seatings",
    "step_check",
    "well_formed",
]
