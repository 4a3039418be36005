"""How many escobas a side can make in one hand, proved on Escoba's guarded relation.

An inductive invariant over the relation's steps (`relation.step`, which `prove --refine` ties
to the engine), ESC, for a seating and a dealer, on every state of a hand:

- the deal number is at most *:deals-per-hand's;
- TURN: while the hand is in play, the seats that have played in this round (before the seat to
  move, counting from the dealer's neighbour, *:play-direction) hold one card fewer than the
  dealer, the others as many: the dealer plays every round's last card;
- VALUE of each side: *:capture-sum times its escobas is at most what its captures are worth
  (*:capture-values): an escoba is a capture and every capture takes cards worth the capture sum
  (the opening sweep's escobas each stand for a capture sum of the sweep's total,
  *:opening-sweeps);
- PLAYS of each side: its escobas plus the cards its seats will still play (those they hold and
  those the deals to come give them, *:redeal-size) are at most the cards its seats play in a hand
  (*:hand-size, *:redeal-size, *:deals-per-hand) plus, for the dealer's side, the most escobas an
  opening sweep gives — one escoba at most per card played.

With *:rest-is-escoba the hand's end may add one to either sum. ESC is checked for every
seating: the opening deal from any deck order establishes it, and every step of every seat under
dealer 0 (each play, and what follows) that starts where it holds ends where it holds (seats are
symmetric under rotation: the step of mover m under dealer d is mover m - d's under dealer 0 with
the seats and sides renumbered, and ESC renumbered so is ESC under dealer 0). A later deal
assumes SHAPE before it (the stock's first positions hold a card each, `conservation`'s).

The most escobas: at the step that ends a hand, with ESC, `CARDS` (every card in one place, the
invariant `conservation` proves) and table-rest's VALUE (the captures worth a multiple of the
capture sum) before it, no side ends with more than `n` escobas — asked of the solver as "some
side has n + 1 or more" for the `n` the engine's hands reach, unsat. PLAYS bounds a side by the
cards it plays; VALUE by the pack's worth (220 = 14 x 15 + 10 with the book's values); TURN
makes the dealer the last to play; and CARDS with VALUE make the hand's last play no escoba when the pack's worth is no multiple of the capture
sum (the table cannot be left bare): 14 escobas for two players, 13 for three (the dealer: 12
plays, 2 for a sweep, the last play none), 10 for four.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

from arbitro.model.schema import EscobaRules
from arbitro.proofs import smt
from arbitro.proofs.escoba import invariants as I
from arbitro.proofs.escoba import relation as R
from arbitro.proofs.escoba import table_rest as T
from arbitro.proofs.facts import Fact, Facts
from arbitro.proofs.recording import Recorder
from arbitro.proofs.terms import BoolTerm, IntTerm, Value, all_of, implies, total, values_of
from arbitro.proofs.verdict import Check, Verdict, Witness, prove

Tamper = Callable[[R.Relation], R.Relation]
T_ = TypeVar("T_")


def seats_of(g: R.Seating, side: int) -> list[int]:
    return [s for s in range(g.players) if s % g.sides == side]


def plays_per_player(rules: EscobaRules, players: int) -> int:
    """The cards a player plays in a hand: the first deal's and every later deal's."""
    return rules.hand_size + (R.deals_for(rules, players) - 1) * rules.redeal_size


def sweep_most(rules: EscobaRules) -> int:
    """The most escobas an opening sweep gives (*:opening-sweeps)."""
    return max((s.escobas for s in rules.opening_sweeps), default=0)


def room(rules: EscobaRules, g: R.Seating, dealer: int, side: int) -> int:
    """PLAYS' constant: the cards the side's seats play in a hand, and a sweep's escobas for the
    dealer's side."""
    mine = len(seats_of(g, side)) * plays_per_player(rules, g.players)
    return mine + (sweep_most(rules) if side == dealer % g.sides else 0)


def to_play(rules: EscobaRules, g: R.Seating, st: R.State, side: int) -> IntTerm:
    """The cards the side's seats will still play: held, and dealt by the deals to come."""
    seats = seats_of(g, side)
    held = total(st.hands[s].size() for s in seats)
    deals = R.deals_for(rules, g.players)
    return held + (rules.redeal_size * len(seats)) * (deals - st.deal)


def turn(rules: EscobaRules, g: R.Seating, dealer: int, st: R.State) -> BoolTerm:
    """TURN: while the hand is in play, the seats that have played in this round (those before
    the seat to move, counting from the dealer's neighbour, *:play-direction) hold one card fewer
    than the dealer, the others as many: the dealer plays every round's last card."""
    order = R.turn_order(rules, g.players, dealer)
    pos = {s: i for i, s in enumerate(order)}
    sizes = [h.size() for h in st.hands]  # each size one term, shared by every claim on it
    playing = [st.play.eq(1) & st.to_move.eq(t) for t in range(g.players)]
    return all_of(
        implies(
            playing[t],
            sizes[s].eq(sizes[dealer] - (1 if pos[s] < pos[t] else 0)),
        )
        for t in range(g.players)
        for s in range(g.players)
        if s != dealer
    )


def esc(rules: EscobaRules, g: R.Seating, dealer: int, st: R.State) -> BoolTerm:
    """ESC on one state: the deal number in range, TURN, VALUE and PLAYS of every side."""
    cs = rules.capture_sum
    vals = R.values(rules)
    bonus = 1 if rules.rest_is_escoba else 0
    over = bonus * (1 - st.play)
    parts: list[BoolTerm] = [st.deal <= R.deals_for(rules, g.players), turn(rules, g, dealer, st)]
    for i in range(g.sides):
        e = st.escobas[i]
        parts.append(cs * e <= st.piles[i].points(vals) + cs * over)
        parts.append(e + to_play(rules, g, st, i) <= room(rules, g, dealer, i) + over)
    return all_of(parts)


def esc_after(rules: EscobaRules, g: R.Seating, dealer: int, post: R.State) -> BoolTerm:
    """ESC on the state after a step: built once per seating and dealer when that state is the
    relation's own (its unknowns named alike in every step)."""
    st, claim = _esc_after(rules, g, dealer)
    return claim if R.names(post) == R.names(st) else esc(rules, g, dealer, post)


@lru_cache(maxsize=64)
def _esc_after(rules: EscobaRules, g: R.Seating, dealer: int) -> tuple[R.State, BoolTerm]:
    st = R.state_unknowns("'", g, R.positions(rules, g.players))
    return st, esc(rules, g, dealer, st)


@lru_cache(maxsize=64)
def _before(
    rules: EscobaRules, g: R.Seating, dealer: int, follow: str, end: bool
) -> tuple[Fact, ...]:
    """What a step assumes before it: ESC, and for a later deal SHAPE and one card at most at
    each stock position (every seat gets as many cards), for the last no count on the table
    negative; with `end`, the counts 0 or 1, CARDS and
    VALUE too. ESC speaks of sizes and sums only, so a step keeps it whatever each count of a
    kind is. The same for every step of a seating, dealer and what follows (the state's unknowns
    are named alike), so built once."""
    st = R.state_unknowns("", g, R.positions(rules, g.players))
    have = R.present(rules)
    out = Facts()
    out.given(esc(rules, g, dealer, st), "ESC holds before the step")
    if follow == "redeal" and not end:
        out.given(all_of(row.size() <= 1 for row in st.stock), "one card at most")
        out.given(I.stock_shape(rules, g, st), "SHAPE holds before the step (conservation)")
    if follow == "end" and not end:
        # the rest goes to a side's captures: what it is worth is not negative
        out.given(st.table.nonneg(), "counts")
    if end:
        for v in (*st.hands, st.table, *st.piles, *st.stock):
            out.given(
                all_of((x >= 0) & (x <= h) for x, h in zip(v.items, have, strict=True)), "0/1"
            )
        out.given(all_of(row.size() <= 1 for row in st.stock), "one card at most")
        out.given(I.cards(rules, g, st), "CARDS holds before the step (conservation)")
        out.given(T.value(rules, st), "VALUE holds before the step (table-rest)")
    return tuple(out.items)


def _premises(
    rules: EscobaRules, g: R.Seating, dealer: int, rel: R.Relation, end: bool = False
) -> Facts:
    out = Facts(list(_before(rules, g, dealer, rel.follow, end)))
    out.given(rel.card.nonneg() & rel.taken.nonneg(), "counts")
    return out


def _step(
    rules: EscobaRules, g: R.Seating, dealer: int, mover: int, play: str, follow: str
) -> R.Relation:
    """One step of the relation (without the unknowns' ranges, which ESC does not read; built
    once per process, `relation.step`)."""
    return R.step(rules, g, dealer, mover, play, follow, domain=False)


def _moves(rules: EscobaRules, rel: R.Relation) -> list[Fact]:
    """The step's guards less *:capture-forced's (which card a lay may be: ESC holds whichever
    card is laid, and a proof for a relation with fewer guards holds for the rules' too)."""
    drop = rules.cid("capture_forced")
    return [*(f for f in rel.guards if f.clause != drop), *rel.follow_guards]


def deal_check(rules: EscobaRules, g: R.Seating, dealer: int, timeout: float) -> Check:
    """The opening deal, from any deck order of the pack, establishes ESC."""
    f, st, order = I.deal_state(rules, g, dealer)
    label = f"esc/{g.players}p{g.sides}s/deal/dealer{dealer}"
    statement = "the opening deal establishes ESC"
    started = time.perf_counter()
    claim = esc(rules, g, dealer, st)
    defs = I.definitions(f, I.dealt)
    out = smt.check(defs.rest.items, defs([~claim]), timeout=timeout, minimise=False, values=False)
    if out.status == "unsat":
        core = (*out.core, *(c for c in defs.used([claim]) if c not in out.core))
        return Check(label, statement, Verdict.PROVED, time.perf_counter() - started, core=core)

    def decode(v: Mapping[str, Value]) -> Witness:
        deck = [
            I.R_name(k) for i in range(len(order)) for k in range(R.KINDS)
            if int(v.get(f"deck{i}[{k}]", 0))
        ]  # fmt: skip
        return Witness(f"the deal from {' '.join(deck)} breaks ESC", {"deck": deck})

    return prove(label, statement, f.items, claim, decode, timeout, minimise=False)


def step_check(
    rules: EscobaRules,
    inst: I.Instance,
    timeout: float,
    tamper: Tamper | None = None,
    vacuity: bool = True,
    most: int | None = None,
) -> Check:
    """One step keeps ESC: asked with the effects put in the claim (one solver call); when not
    unsat, asked again with every fact for a witness. With `most`, a step that ends the hand is
    asked too to leave no side more than `most` escobas, with CARDS and VALUE before it (one
    question: `end_check` asks it alone). With `vacuity`, whether the step can happen at all is
    shown by a play of the engine on which its guards and the premises hold, or asked of the
    solver."""
    g = inst.seating
    rel = _step(rules, g, inst.dealer, inst.mover, inst.play, inst.follow)
    if tamper is not None:
        rel = tamper(rel.copy())  # a tamper may change the step in place
    label = f"esc/{g.players}p{g.sides}s/{rel.name}/dealer{inst.dealer}"
    statement = f"{rel.name} keeps ESC"
    started = time.perf_counter()
    bounded = most is not None and inst.follow == "end"
    # only the dealer's last play needs CARDS and VALUE (that it is no escoba): another seat
    # never plays the hand's last card, by TURN, so its end step is ruled out by ESC alone
    before = _premises(rules, g, inst.dealer, rel, end=bounded and inst.mover == inst.dealer)
    claim = esc_after(rules, g, inst.dealer, rel.post)
    if most is not None and bounded:
        statement += f" and leaves no side more than {most} escobas"
        claim = claim & all_of(e <= most for e in rel.post.escobas)
    defs = I.definitions(rel.effects, I._after)
    facts = Facts([*_moves(rules, rel), *defs.rest, *before])
    (ask,) = defs([claim])
    out = smt.check(facts.items, [~ask], timeout=timeout, minimise=False, values=False)
    if out.status == "unsat":
        return I.proved_step(
            label,
            statement,
            started,
            (*out.core, *(c for c in defs.used([claim]) if c not in out.core)),
            Facts([*rel.guards, *rel.follow_guards, *before]) if vacuity else None,
            lambda can: I.holds_on(can, _env(rules, inst, rel)),
            timeout,
        )
    full = Facts([*rel.guards, *rel.follow_guards, *rel.effects, *before])
    can = Facts([*rel.guards, *rel.follow_guards, *before])
    return prove(label, statement, full.items, claim, _decode(rel), timeout, premises=can.items)


def _env(rules: EscobaRules, inst: I.Instance, rel: R.Relation) -> dict[str, Value] | None:
    """A play of the engine of this kind by seat 0 under dealer 0 (`invariants.play_values`), with
    VALUE's multiple read off its captures."""
    env = I.play_values(rules, inst, rel)
    if env is not None:
        worth = values_of([T.captured_worth(rules, rel.pre)], env)[0]
        env[T.MULTIPLE.name] = int(worth) // rules.capture_sum
    return env


def _decode(rel: R.Relation) -> Callable[[Mapping[str, Value]], Witness]:
    base = I._decode(rel)

    def decode(v: Mapping[str, Value]) -> Witness:
        w = base(v)
        after = [int(v.get(f"'escobas{i}", 0)) for i in range(len(rel.pre.piles))]
        data = {**w.data, "escobas_after": after}
        return Witness(f"{w.text}; escobas {data['escobas']} before, {after} after", data)

    return decode


def instances(g: R.Seating) -> list[I.Instance]:
    """Every seat's steps under dealer 0: the step of mover m under dealer d is mover m - d's
    under dealer 0 with every seat renumbered by d (and every side by d modulo the sides), and
    ESC renumbered so is ESC under dealer 0, so these stand for every dealer's."""
    return [
        I.Instance(g, 0, m, play, follow)
        for m in range(g.players)
        for play in R.PLAYS
        for follow in R.FOLLOWS
    ]


def induction(
    rules: EscobaRules,
    g: R.Seating,
    timeout: float,
    tamper: Tamper | None = None,
    most: int | None = None,
    vacuity: bool = False,
) -> list[Check]:
    """ESC proved inductive for one seating: the deal and every seat's steps, under dealer 0
    (standing for every dealer, by rotation); with `most`, the steps that end the hand asked for
    the bound too (`step_check`). With `vacuity`, whether each of seat 0's steps can happen with
    ESC before it is shown too (off in `prove`: conservation shows each step in a play of the
    engine, and ESC, inductive from the deal, holds on every state play reaches)."""
    out = [deal_check(rules, g, 0, timeout)]
    for inst in instances(g):
        # whether a step can happen is asked of seat 0's: the others' are the same facts with
        # the seats renamed
        first = vacuity and inst.mover == 0
        out.append(step_check(rules, inst, timeout, tamper, vacuity=first, most=most))
    return out


def end_check(
    rules: EscobaRules,
    g: R.Seating,
    mover: int,
    play: str,
    most: int,
    timeout: float,
    tamper: Tamper | None = None,
) -> Check:
    """The step that ends the hand (`mover` playing the last card, under dealer 0: by rotation,
    every dealer's) leaves no side with more than `most` escobas, from ESC, CARDS and VALUE
    before it: "some side has most + 1 or more" is unsat."""
    dealer = 0
    rel = _step(rules, g, dealer, mover, play, "end")
    if tamper is not None:
        rel = tamper(rel.copy())  # a tamper may change the step in place
    label = f"most/{g.players}p{g.sides}s/{play}/seat{mover}"
    statement = (
        f"when the hand ends (seat {mover} {play}s last) no side has more than {most} escobas"
    )
    started = time.perf_counter()
    before = _premises(rules, g, dealer, rel, end=True)
    claim = all_of(e <= most for e in rel.post.escobas)
    defs = I.definitions(rel.effects, I._after)
    facts = Facts([*_moves(rules, rel), *defs.rest, *before])
    (ask,) = defs([claim])
    out = smt.check(facts.items, [~ask], timeout=timeout, minimise=False, values=False)
    values = {"most": most}
    if out.status == "unsat":
        core = (*out.core, *(c for c in defs.used([claim]) if c not in out.core))
        return Check(
            label, statement, Verdict.PROVED, time.perf_counter() - started, core=core,
            values=values,
        )  # fmt: skip
    if out.status == "unknown":
        return Check(
            label, statement, Verdict.UNKNOWN, time.perf_counter() - started,
            reason=out.reason, values=values,
        )  # fmt: skip
    # not excluded: a state ESC, CARDS and VALUE admit, not shown to be one play reaches
    full = Facts([*rel.guards, *rel.follow_guards, *rel.effects, *before])
    got = prove(label, statement, full.items, claim, _decode(rel), timeout, values=values)
    why = got.witness.text if got.witness is not None else got.reason
    return Check(
        label, statement, Verdict.UNKNOWN, time.perf_counter() - started,
        witness=got.witness, values=values,
        reason=f"ESC, CARDS and VALUE do not exclude more than {most} escobas: {why}",
    )  # fmt: skip


@dataclass(frozen=True)
class Most:
    """The escobas bound of a seating: ESC's induction and the end steps' claims (`checks`);
    `bound`, the least count the end steps were proved not to exceed from `reached` (the most a
    hand the engine replays makes) up (None: none proved); the bound is exact when it is
    `reached`."""

    players: int
    sides: int
    reached: int
    bound: int | None
    checks: tuple[Check, ...]

    @property
    def inductive(self) -> bool:
        return all(c.verdict is Verdict.PROVED for c in self.checks if c.name.startswith("esc/"))

    @property
    def exact(self) -> bool:
        return self.inductive and self.bound == self.reached


def ceiling(rules: EscobaRules, g: R.Seating) -> int:
    """A count no side passes by PLAYS alone (where the search for a proved bound stops)."""
    bonus = 1 if rules.rest_is_escoba else 0
    return max(room(rules, g, d, i) for d in range(g.players) for i in range(g.sides)) + bonus


def most(
    rules: EscobaRules,
    players: int,
    sides: int,
    reached: int,
    timeout: float,
    tamper: Tamper | None = None,
    vacuity: bool = False,
) -> Most:
    """ESC's induction for the seating, the steps that end the hand asked as well to leave no side
    more than `reached` escobas: all proved, the most is exactly `reached`. If ESC holds but not
    the bound, the least count above `reached` the end steps are proved not to exceed is a bound
    with a gap (the claims at `reached` kept, to say why)."""
    g = R.Seating(players, sides)
    n = max(reached, 0)
    checks = induction(rules, g, timeout, tamper, most=n, vacuity=vacuity)
    if all(c.verdict is Verdict.PROVED for c in checks):
        return Most(players, sides, reached, n, tuple(checks))
    # which failed: ESC, or the bound? the end steps asked for ESC alone
    ends = [i for i in instances(g) if i.follow == "end"]
    kept = [c for c in checks if "/end/" not in c.name]
    kept += [step_check(rules, i, timeout, tamper, vacuity=False) for i in ends]
    if any(c.verdict is not Verdict.PROVED for c in kept):
        return Most(players, sides, reached, None, tuple(kept))

    def at(k: int) -> list[Check]:
        return [end_check(rules, g, i.mover, i.play, k, timeout, tamper) for i in ends]

    failed = [c for c in at(n) if c.verdict is not Verdict.PROVED]
    for k in range(n + 1, ceiling(rules, g) + 1):
        got = at(k)
        if all(c.verdict is Verdict.PROVED for c in got):
            return Most(players, sides, reached, k, (*kept, *failed, *got))
    return Most(players, sides, reached, None, (*kept, *failed))


_SHARED: dict[tuple[object, ...], tuple[object, dict[str, object]]] = {}


def shared(fn: Callable[..., T_], rules: EscobaRules, *args: object) -> T_:
    """`fn(rules, *args)`, once per process for the same rules and arguments (score-bounds and
    hand-scores ask it alike). The rules may be a `Recorder` (the runner's, noting which fields
    a property reads): the fields the first call read are read again through it, so a property
    that finds the answer here depends on them as much as the one that computed it."""
    base = object.__getattribute__(rules, "_rules") if isinstance(rules, Recorder) else rules
    key = (fn.__qualname__, base, *args, smt.rlimit())
    got = _SHARED.get(key)
    if got is None:
        rec = Recorder(base)
        got = (fn(rec, *args), dict(object.__getattribute__(rec, "read")))
        if len(_SHARED) >= 64:
            _SHARED.clear()
        _SHARED[key] = got
    for name in got[1]:
        getattr(rules, name)
    return got[0]  # type: ignore[return-value]


def cached_most(rules: EscobaRules, players: int, sides: int, reached: int, timeout: float) -> Most:
    """`most`, once per process for the same rules and question (`shared`)."""
    return shared(most, rules, players, sides, reached, timeout)


__all__ = [
    "Most",
    "cached_most",
    "deal_check",
    "end_check",
    "esc",
    "induction",
    "most",
    "room",
    "shared",
    "step_check",
]
