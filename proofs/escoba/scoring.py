"""Escoba's hand score as constraints, and properties `score-bounds` and `deal-arithmetic`.

A hand's end, in any of the book's seatings: which side captured each card (or none, where the
rules can leave cards on the table), and each side's escobas. The categories follow the book:
*:cards-points to the sole side with most cards, *:oros-points to the sole side with most oros,
*:velo-points to the side with the seven of oros, *:setenta-points to the sole side with the best
setenta (each side's best card of every suit by *:setenta-order, sorted best first and compared
card by card; a side lacking a suit by *:setenta-missing-suit), *:escoba-points per escoba, and
the optional rules *:variant-cards-double (with *:variant-cards-double-rule), *:variant-oros-all
and *:variant-sevens-all. A side's escobas are bounded by counting: one per card its players
play (*:hand-size, *:redeal-size, *:deals-per-hand), each taking a table card besides, plus those
of an opening sweep for the dealer's side (*:opening-sweeps) and, if the rest counts as one, one
more (*:rest-is-escoba) — an upper bound, not what play reaches.

`score-bounds`: no category is ever negative; the least and greatest value of each and of a side's
hand score, proved optimal; and the hand scores the encoding admits, each shown by a configuration.

`deal-arithmetic`: for every player count the deals of a hand hand out the pack exactly — the
book's own "after 6 deals with two players, 3 with four".
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from arbitro.model.schema import EscobaRules
from arbitro.proofs import smt
from arbitro.proofs.escoba import cards as E
from arbitro.proofs.facts import Facts
from arbitro.proofs.terms import (
    FALSE,
    TRUE,
    BoolTerm,
    Evaluator,
    Int,
    IntTerm,
    Value,
    all_of,
    any_of,
    const,
    count,
    implies,
    ite,
    total,
    variables,
)
from arbitro.proofs.verdict import Check, Result, Verdict, Witness, known, prove, range_text

CATEGORIES = ("cards", "oros", "velo", "setenta", "escobas")

CARDS_DOUBLE_MORE_THAN = 30
CARDS_DOUBLE_OPPONENTS_FEWER_THAN = 10
"""The book's numbers in the cards variant: more than 30 cards, opposition under 10."""


@dataclass(frozen=True)
class Seating:
    players: int
    sides: int

    @property
    def label(self) -> str:
        return f"{self.players} players" + (" in teams" if self.sides < self.players else "")


def seatings(rules: EscobaRules) -> list[Seating]:
    out = [Seating(n, n) for n in rules.player_counts]
    out += [Seating(n, 2) for n in rules.team_player_counts]
    return out


def plays_per_player(rules: EscobaRules, players: int) -> int:
    deals = next((d.deals for d in rules.deals_per_hand if d.players == players), 1)
    return rules.hand_size + (deals - 1) * rules.redeal_size


@dataclass
class Config:
    rules: EscobaRules
    seatings: list[Seating]
    seating: IntTerm
    own: dict[tuple[int, int], IntTerm]  # (card, side) -> 0/1
    escobas: IntTerm
    facts: Facts = field(default_factory=Facts)
    categories: dict[str, IntTerm] = field(default_factory=dict)
    _unknowns: tuple[tuple[Any, ...], list[str]] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    """The terms `unknowns` last walked and what it found (a refinement run asks once per hand
    of the same configuration, and walking every term is most of that ask's cost)."""

    @property
    def score(self) -> IntTerm:
        return total(self.categories.values())

    def unknowns(self) -> list[str]:
        """The names of the unknowns the facts and the categories mention, in first-seen order;
        walked again only when a fact or a category has been added or replaced since."""
        terms = (*(f.term for f in self.facts), *self.categories.values())
        got = self._unknowns
        if (
            got is not None
            and len(got[0]) == len(terms)
            and all(a is b for a, b in zip(got[0], terms, strict=True))
        ):
            return list(got[1])
        names = [v.name for v in variables(terms)]
        self._unknowns = (terms, names)
        return list(names)


def _beats(a: Sequence[IntTerm], b: Sequence[IntTerm]) -> BoolTerm:
    """`a` is greater than `b` comparing element by element from the first."""
    out: list[BoolTerm] = []
    same: list[BoolTerm] = []
    for x, y in zip(a, b, strict=True):
        out.append(all_of((*same, x > y)))
        same.append(x.eq(y))
    return any_of(out)


def config(rules: EscobaRules) -> Config:
    """One side's (side 0's) hand in any seating of the book."""
    r = rules
    cid = r.cid
    known("setenta_missing_suit", r.setenta_missing_suit, ("no_setenta", "lowest"))
    known("category_tie", r.category_tie, ("nobody",))
    known(
        "variant_cards_double_rule",
        r.variant_cards_double_rule,
        ("each_opponent", "opponents_together"),
    )
    groups = seatings(r)
    n = E.KINDS
    pack = E.copies(r)
    most = max(g.sides for g in groups)
    which = Int("seating")
    # a card the pack leaves out (a small configuration's missing ranks) is nobody's
    own: dict[tuple[int, int], IntTerm] = {
        (c, s): Int(f"side {s} has {E.name(c)}") if pack[c] else const(0)
        for c in range(n)
        for s in range(most)
    }
    esc = Int("side 0 escobas")
    cfg = Config(r, groups, which, own, esc)
    f = cfg.facts
    f.given(all_of((which >= 0, which < len(groups))), "one of the book's seatings")
    for x in own.values():
        f.given(all_of((x >= 0, x <= 1)), "a card is a side's or not")
    sides_n = _per(which, [g.sides for g in groups])
    for c in range(n):
        for s in range(most):
            f.given(implies(sides_n <= s, own[(c, s)].eq(0)), "no such side")
        held = total(own[(c, s)] for s in range(most))
        f.add(cid("suits"), held <= 1, "each card is in one place")
        if r.last_capturer_takes_rest and r.capture_forced and pack[c]:
            # forced capture means someone captures in every hand (the last card would meet the
            # other 39 on the table), and the last capturer takes what is left
            f.add(
                cid("last_capturer_takes_rest"),
                held.eq(1),
                "every card ends captured: the last capturer takes the rest",
            )
    # escobas: one per play at most, each taking a table card besides the card played
    plays = _per(which, [plays_per_player(r, g.players) * (g.players // g.sides) for g in groups])
    sweep_max = max((sw.escobas for sw in r.opening_sweeps), default=0)
    e_play, e_sweep, e_rest = (
        Int("escobas in play"),
        Int("escobas of the sweep"),
        Int("rest escoba"),
    )
    cards0 = total(own[(c, 0)] for c in range(n))
    f.given(all_of((e_play >= 0, e_sweep >= 0, e_rest >= 0)), "counts")
    f.given(esc.eq(e_play + e_sweep + e_rest), "the side's escobas")
    f.add(cid("deals_per_hand"), e_play <= plays, "at most one escoba per card the side plays")
    f.add(
        cid("opening_sweeps"),
        e_sweep <= sweep_max,
        f"an opening sweep scores at most {sweep_max}",
    )
    f.add(
        cid("capture_sum"),
        (2 * e_play + ite(e_sweep >= 1, r.table_initial, 0)) <= cards0,
        "an escoba takes the card played and a table card; a sweep the table",
    )
    f.add(
        cid("rest_is_escoba"),
        e_rest <= (1 if r.rest_is_escoba else 0),
        "the rest of the table is no escoba" if not r.rest_is_escoba else "one for the rest",
    )
    # categories
    counts = [total(own[(c, s)] for c in range(n)) for s in range(most)]
    oros = [total(own[(c, s)] for c in range(n) if E.suit_of(c) == 0) for s in range(most)]

    def sole(xs: list[IntTerm]) -> BoolTerm:
        return all_of(implies(sides_n > s, xs[0] > xs[s]) for s in range(1, most))

    double: BoolTerm = FALSE
    if r.variant_cards_double:
        opp = [ite(sides_n > s, counts[s], 0) for s in range(1, most)]
        if r.variant_cards_double_rule == "each_opponent":
            few = all_of(x < CARDS_DOUBLE_OPPONENTS_FEWER_THAN for x in opp)
        else:
            few = total(opp) < CARDS_DOUBLE_OPPONENTS_FEWER_THAN
        double = all_of((counts[0] > CARDS_DOUBLE_MORE_THAN, few))
    cats = cfg.categories
    cats["cards"] = ite(sole(counts), ite(double, 2 * r.cards_points, r.cards_points), 0)
    all_oros = sum(pack[c] for c in range(n) if E.suit_of(c) == 0)
    oros_double = oros[0].eq(all_oros) if r.variant_oros_all else FALSE
    cats["oros"] = ite(sole(oros), ite(oros_double, 2 * r.oros_points, r.oros_points), 0)
    velo = E.kind(0, E.SEVEN)
    cats["velo"] = r.velo_points * own[(velo, 0)]
    st = E.strengths(r)
    suits = len(r.suits)
    levels = sorted(set(st), reverse=True)

    def setenta(s: int) -> tuple[list[IntTerm], BoolTerm]:
        """How many suits have their best card at each strength, strongest first: comparing two
        such vectors element by element is comparing the setentas sorted best card first."""
        tops: list[IntTerm] = []
        has_suit: list[BoolTerm] = []
        for level in levels:
            at = []
            for u in range(suits):
                cards = [c for c in range(n) if E.suit_of(c) == u]
                here = any_of(own[(c, s)].eq(1) for c in cards if st[c] == level)
                above = any_of(own[(c, s)].eq(1) for c in cards if st[c] > level)
                at.append(all_of((here, ~above)))
            tops.append(count(at))
        for u in range(suits):
            has_suit.append(any_of(own[(c, s)].eq(1) for c in range(n) if E.suit_of(c) == u))
        has = all_of(has_suit) if r.setenta_missing_suit == "no_setenta" else TRUE
        return tops, has

    mine, mine_has = setenta(0)
    wins = [mine_has]
    for s in range(1, most):
        theirs, theirs_has = setenta(s)
        wins.append(implies(sides_n > s, implies(theirs_has, _beats(mine, theirs))))
    sevens = [E.kind(u, E.SEVEN) for u in range(suits)]
    all_sevens = all_of(own[(c, 0)].eq(1) for c in sevens)
    cats["setenta"] = ite(all_of(wins), r.setenta_points, 0) + (
        ite(all_sevens, 1, 0) if r.variant_sevens_all else const(0)
    )
    cats["escobas"] = r.escoba_points * esc
    return cfg


def _per(which: IntTerm, values: list[int]) -> IntTerm:
    term: IntTerm = const(values[-1])
    for i in range(len(values) - 2, -1, -1):
        term = ite(which.eq(i), values[i], term)
    return term


def decode(cfg: Config, values: Mapping[str, Value]) -> dict[str, Any]:
    v = dict(values)
    g = cfg.seatings[int(v.get("seating", 0))]
    pack = E.copies(cfg.rules)
    in_pack = [c for c in range(E.KINDS) if pack[c]]
    piles = [
        [E.name(c) for c in in_pack if int(v.get(f"side {s} has {E.name(c)}", 0))]
        for s in range(g.sides)
    ]
    left = [E.name(c) for c in in_pack if not any(E.name(c) in p for p in piles)]
    names = cfg.unknowns()
    ev = Evaluator(list(cfg.categories.values()), names)
    cats = dict(zip(cfg.categories, ev([v.get(x, 0) for x in names]), strict=True))
    return {
        "seating": g.label,
        "piles": piles,
        "left_on_table": left,
        "escobas": int(v.get("side 0 escobas", 0)),
        "categories": {k: int(x) for k, x in cats.items()},
        "total": int(sum(int(x) for x in cats.values())),
    }


def describe(data: Mapping[str, Any]) -> str:
    mine = len(data["piles"][0])
    return (
        f"{data['seating']}: side 0 captured {mine} cards and made {data['escobas']} escobas, "
        f"scoring {data['total']}"
    )


def signs(rules: EscobaRules, timeout: float, cfg: Config | None = None) -> list[Check]:
    """No category is ever negative: one check per category."""
    cfg = cfg if cfg is not None else config(rules)
    checks: list[Check] = []
    for cat in CATEGORIES:

        def dec(v: Mapping[str, Value], cat: str = cat, cfg: Config = cfg) -> Witness:
            data = decode(cfg, v)
            return Witness(f"{cat} is {data['categories'][cat]}: {describe(data)}", data)

        checks.append(
            prove(
                f"sign/{cat}",
                f"the {cat} category is never negative",
                cfg.facts.items,
                cfg.categories[cat] >= 0,
                dec,
                timeout,
            )
        )
    return checks


def bounds(rules: EscobaRules, timeout: float) -> Result:
    started = time.perf_counter()
    cfg = config(rules)
    facts = cfg.facts.items
    checks = signs(rules, timeout, cfg)
    values: dict[str, Any] = {}
    verdict = Verdict.PROVED
    reasons: list[str] = []
    extremes: dict[str, Any] = {}
    t0 = time.perf_counter()
    problem = smt.Problem(facts, [*cfg.categories.values(), cfg.score])
    signed = {c.name.removeprefix("sign/"): c.verdict is Verdict.PROVED for c in checks}
    proved: dict[tuple[str, bool], int] = {}
    settled: dict[str, list[bool]] = {}
    for cat, term in [*cfg.categories.items(), ("total", cfg.score)]:
        pair: list[int | None] = []
        settled[cat] = []
        for maximise in (False, True):
            # a proved sign bounds the least by 0; the hand score's ends by the categories' sums
            at = None
            if not maximise and signed.get(cat):
                at = 0
            elif cat == "total" and all((c, maximise) in proved for c in cfg.categories):
                at = sum(proved[(c, maximise)] for c in cfg.categories)
            opt = problem.optimum(term, maximise=maximise, timeout=timeout, beyond=at)
            if opt.status == "proved" and opt.value is not None:
                proved[(cat, maximise)] = opt.value
            settled[cat].append(opt.status == "proved")
            pair.append(opt.value)
            if opt.status != "proved":
                verdict = Verdict.UNKNOWN
                reasons.append(f"{cat}: {opt.reason or opt.status}")
            elif cat == "total":
                extremes["max" if maximise else "min"] = decode(cfg, opt.values)
        values[cat] = pair
    # every total in between, each shown by a configuration (witnesses, not a proof)
    lo, hi = values["total"]
    admitted: list[int] = []
    if all(settled["total"]) and lo is not None and hi is not None:
        totals = list(range(lo, hi + 1))
        got = problem.satisfiable_each([cfg.score.eq(t) for t in totals], timeout)
        admitted = [t for t, status in zip(totals, got, strict=True) if status == "sat"]
    text = ", ".join(
        f"{k} {range_text(v, settled[k]).replace(' to ', '..')}"
        for k, v in values.items()
        if k != "total"
    )
    checks.append(
        Check(
            "bounds",
            "each category and the hand score lie between a least and a greatest value, both "
            "reached and proved optimal",
            verdict,
            time.perf_counter() - t0,
            witness=Witness(
                f"hand score {range_text((lo, hi), settled['total'])} ({text})",
                {"extremes": extremes},
            ),
            reason="; ".join(reasons),
            values={**values, "admitted_totals": admitted},
        )
    )
    return Result(
        "score-bounds",
        rules.rulebook,
        {},
        "no category is negative, and each category and a side's hand score have proved least "
        "and greatest values",
        tuple(checks),
        f"a side's hand score: {range_text((lo, hi), settled['total'])}"
        + (
            ", every value between admitted"
            if admitted and len(admitted) == (hi or 0) - (lo or 0) + 1
            else ""
        ),
        time.perf_counter() - started,
        values={
            "bounds": values,
            "proved": settled,
            "admitted_totals": admitted,
            "extremes": extremes,
        },
    )


def score_bounds(rules: EscobaRules, timeout: float, solver: bool = False) -> Result:
    """Property `score-bounds`: no category is ever negative; each category's least and greatest
    value, proved optimal on the score encoding; and for each seating the exact set of a side's
    hand scores — no score above the categories' greatest values and `escoba-points` times the
    most escobas (from the exhaustive search over the relation's plays, or with `solver` unsat on
    the guarded relation, `escobas.py`), every score up to it played by a hand the engine
    replays (`hand_scores.exact`) — or, where the two sides do not meet, a bound with the gap
    stated. It no longer admits totals over configurations of the score encoding (0 to 24 for
    the book, where no hand makes more than 18)."""
    from arbitro.proofs.escoba import hand_scores

    started = time.perf_counter()
    cfg = config(rules)
    checks = signs(rules, timeout, cfg)
    t0 = time.perf_counter()
    problem = smt.Problem(cfg.facts.items, list(cfg.categories.values()))
    signed = {c.name.removeprefix("sign/"): c.verdict is Verdict.PROVED for c in checks}
    values: dict[str, Any] = {}
    settled: dict[str, list[bool]] = {}
    reasons: list[str] = []
    for cat in CATEGORIES:
        if cat == "escobas":  # what play reaches: the relation's, per seating, below
            continue
        pair: list[int | None] = []
        settled[cat] = []
        for maximise in (False, True):
            at = 0 if not maximise and signed.get(cat) else None
            opt = problem.optimum(
                cfg.categories[cat], maximise=maximise, timeout=timeout, beyond=at
            )
            settled[cat].append(opt.status == "proved")
            pair.append(opt.value)
            if opt.status != "proved":
                reasons.append(f"{cat}: {opt.reason or opt.status}")
        values[cat] = pair
    text = ", ".join(
        f"{k} {range_text(v, settled[k]).replace(' to ', '..')}" for k, v in values.items()
    )
    checks.append(
        Check(
            "categories",
            "each category but the escobas lies between a least and a greatest value, both "
            "reached and proved optimal on the score encoding",
            Verdict.UNKNOWN if reasons else Verdict.PROVED,
            time.perf_counter() - t0,
            witness=Witness(text, {}),
            reason="; ".join(reasons),
            values=values,
        )
    )
    sets: dict[str, list[int]] = {}
    parts: list[str] = []
    for g in seatings(rules):
        t1 = time.perf_counter()
        x = hand_scores.exact(rules, g.players, g.sides, timeout, solver=solver)
        c = hand_scores.seating_check(x, time.perf_counter() - t1)
        checks.append(replace(c, name=c.name.replace("scores/", "total/")))
        sets[x.label] = x.reach
        parts.append(hand_scores.part_text(x, c.verdict))
    every = all(c.verdict is Verdict.PROVED for c in checks)
    summary = "a side's hand score: " + ("exactly " if every else "") + ", ".join(parts)
    return Result(
        "score-bounds",
        rules.rulebook,
        {},
        "no category is negative; each category's least and greatest values proved; a side's "
        "hand score per seating: none above the categories' most and the most escobas "
        + ("(unsat on the guarded relation)" if solver else "(an exhausted search)")
        + ", each score up to it played by a replayed hand",
        tuple(checks),
        summary,
        time.perf_counter() - started,
        values={"bounds": values, "proved": settled, "scores": sets},
    )


def deal_arithmetic(rules: EscobaRules, timeout: float) -> Result:
    """For every player count, the deals of a hand use the whole pack, no more, no less."""
    started = time.perf_counter()
    r = rules
    n = E.kinds(r)
    players = Int("players")
    f = Facts()
    counts = sorted({*r.player_counts, *r.team_player_counts})
    f.add(r.cid("player_counts"), any_of(players.eq(p) for p in counts), "a player count")
    used: IntTerm = const(0)
    for p in counts:
        deals = next((d.deals for d in r.deals_per_hand if d.players == p), 0)
        per = p * r.hand_size + r.table_initial + (deals - 1) * (p * r.redeal_size + r.redeal_table)
        used = ite(players.eq(p), per, used)
    f.add(r.cid("deals_per_hand"), Int("cards dealt").eq(used), "the cards a hand's deals use")
    dealt = Int("cards dealt")

    def dec(v: Mapping[str, Value]) -> Witness:
        p, d = int(v["players"]), int(v["cards dealt"])
        deals = next((x.deals for x in r.deals_per_hand if x.players == p), 0)
        return Witness(
            f"with {p} players, {deals} deals hand out {d} cards, not the pack's {n}",
            {"players": p, "deals": deals, "cards": d},
        )

    check = prove(
        "deals",
        f"the deals of a hand hand out exactly the {n} cards of the pack",
        f.items,
        dealt.eq(n),
        dec,
        timeout,
    )
    return Result(
        "deal-arithmetic",
        r.rulebook,
        {},
        "for every player count, the deals of a hand hand out the whole pack exactly",
        (check,),
        "every player count uses the pack exactly" if check.witness is None else check.witness.text,
        time.perf_counter() - started,
    )


__all__ = [
    "CATEGORIES",
    "Config",
    "bounds",
    "config",
    "deal_arithmetic",
    "decode",
    "score_bounds",
    "seatings",
    "signs",
]
