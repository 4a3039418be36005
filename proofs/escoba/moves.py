"""The moves of Escoba as relations between per-zone card counts, and property `conservation`.

Zones, seen from the player to move: the stock, the table, the mover's hand, the other hands
together, the cards captured by the mover's side and by the other sides. Relations:

- `deal`: from the whole pack in the stock, *:hand-size cards to every player and *:table-initial
  to the table; when those total a sweep total (*:opening-sweeps) the dealer's side takes them;
- `lay`: a card from the hand onto the table (the guard that it could capture nothing,
  *:capture-forced, is a statement about every group of table cards and is not encoded: the
  relation admits more lays than the rules, which weakens only the refinement test, not the proof);
- `capture`: a card and a group of table cards worth *:capture-sum together go to the side;
- `redeal`: once every hand is empty, *:redeal-size cards to each player and *:redeal-table to the
  table from the stock;
- `rest`: after the last card, the table goes to the side that captured last
  (*:last-capturer-takes-rest), or to the dealer's side or nobody (*:rest-without-capturer).

`conservation` proves, for every pre-state, that every card's count summed over the zones is
unchanged by each move, and that the deal puts every card of the pack in exactly one place.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from arbitro.model.schema import EscobaRules
from arbitro.proofs.escoba import cards as E
from arbitro.proofs.facts import Facts
from arbitro.proofs.terms import BoolTerm, IntTerm, Value, all_of, any_of, total
from arbitro.proofs.vectors import Vec, concrete, read, unknowns
from arbitro.proofs.verdict import Check, Result, Verdict, Witness, known, prove

ZONES = ("stock", "table", "hand", "others", "pile", "piles_other")


@dataclass
class Relation:
    """One Escoba move: zones before and after, parameters, effects, guards (as for rummy)."""

    move: str
    pre: dict[str, Vec]
    post: dict[str, Vec]
    params: dict[str, Vec] = field(default_factory=dict)
    effects: Facts = field(default_factory=Facts)
    guards: Facts = field(default_factory=Facts)
    domain: Facts = field(default_factory=Facts)
    kept: list[str] = field(default_factory=list)
    scalars: dict[str, IntTerm] = field(default_factory=dict)

    @property
    def facts(self) -> Facts:
        return Facts([*self.domain, *self.guards, *self.effects])

    def variables(self) -> list[str]:
        n = len(next(iter(self.pre.values())))
        out: list[str] = []
        for prefix in (
            *(f"pre:{z}" for z in self.pre),
            *(f"post:{z}" for z in self.post if z not in self.kept),
            *(f"param:{p}" for p in self.params),
        ):
            out += [f"{prefix}[{k}]" for k in range(n)]
        return out + list(self.scalars)


def value(v: Vec, values: tuple[int, ...]) -> IntTerm:
    return v.points(values)


def _base(move: str, n: int) -> Relation:
    pre = {z: unknowns(f"pre:{z}", n) for z in ZONES}
    post = {z: unknowns(f"post:{z}", n) for z in ZONES}
    return Relation(move, pre, post)


def _keep(rel: Relation, *zones: str) -> None:
    for z in zones:
        rel.post[z] = rel.pre[z]
        rel.kept.append(z)


def _param(rel: Relation, name: str, n: int) -> Vec:
    v = unknowns(f"param:{name}", n)
    rel.params[name] = v
    return v


def _done(rel: Relation) -> Relation:
    for name, v in rel.pre.items():
        rel.domain.given(v.nonneg(), f"{name}: counts are not negative")
        rel.domain.given(v.le([1] * len(v)), f"{name}: one copy of each card")
    for name, v in rel.post.items():
        if name not in rel.kept:
            rel.domain.given(v.nonneg(), f"{name} after: counts are not negative")
    for name, v in rel.params.items():
        rel.domain.given(v.nonneg(), f"{name}: counts are not negative")
    return rel


def lay(rules: EscobaRules) -> Relation:
    n = E.kinds(rules)
    rel = _base("lay", n)
    c = _param(rel, "card", n)
    rel.guards.given(c.size().eq(1), "one card")
    rel.guards.add(rules.cid("hand_size"), c.le(rel.pre["hand"]), "the card is held")
    rel.effects.add(rules.cid("capture_forced"), rel.post["hand"].eq(rel.pre["hand"] - c), "")
    rel.effects.add(
        rules.cid("capture_forced"),
        rel.post["table"].eq(rel.pre["table"] + c),
        "a card that takes nothing is laid on the table",
    )
    _keep(rel, "stock", "others", "pile", "piles_other")
    return _done(rel)


def capture(rules: EscobaRules) -> Relation:
    n = E.kinds(rules)
    vals = E.values(rules)
    rel = _base("capture", n)
    c = _param(rel, "card", n)
    grp = _param(rel, "taken", n)
    cs = rules.cid("capture_sum")
    rel.guards.given(c.size().eq(1), "one card")
    rel.guards.add(rules.cid("hand_size"), c.le(rel.pre["hand"]), "the card is held")
    rel.guards.add(cs, grp.le(rel.pre["table"]), "the cards taken are on the table")
    rel.guards.add(cs, grp.size() >= 1, "a capture takes at least one card")
    rel.guards.add(
        cs,
        (value(c, vals) + value(grp, vals)).eq(rules.capture_sum),
        f"together they are worth {rules.capture_sum}",
    )
    rel.effects.add(cs, rel.post["hand"].eq(rel.pre["hand"] - c), "the card leaves the hand")
    rel.effects.add(cs, rel.post["table"].eq(rel.pre["table"] - grp), "the group leaves the table")
    rel.effects.add(
        cs, rel.post["pile"].eq(rel.pre["pile"] + grp + c), "both go to the side's captures"
    )
    _keep(rel, "stock", "others", "piles_other")
    return _done(rel)


def redeal(rules: EscobaRules, players: int) -> Relation:
    n = E.kinds(rules)
    rel = _base(f"redeal/{players}", n)
    mine = _param(rel, "to_mover", n)
    theirs = _param(rel, "to_others", n)
    up = _param(rel, "to_table", n)
    cl = rules.cid("redeal_size")
    rel.guards.add(cl, rel.pre["hand"].zero() & rel.pre["others"].zero(), "every hand is empty")
    rel.guards.add(cl, mine.size().eq(rules.redeal_size), "three to the player to move")
    rel.guards.add(
        cl, theirs.size().eq(rules.redeal_size * (players - 1)), "three to every other player"
    )
    rel.guards.add(rules.cid("redeal_table"), up.size().eq(rules.redeal_table), "to the table")
    rel.guards.add(cl, (mine + theirs + up).le(rel.pre["stock"]), "all from the stock")
    rel.effects.add(cl, rel.post["hand"].eq(rel.pre["hand"] + mine), "")
    rel.effects.add(cl, rel.post["others"].eq(rel.pre["others"] + theirs), "")
    rel.effects.add(rules.cid("redeal_table"), rel.post["table"].eq(rel.pre["table"] + up), "")
    rel.effects.add(cl, rel.post["stock"].eq(rel.pre["stock"] - mine - theirs - up), "")
    _keep(rel, "pile", "piles_other")
    return _done(rel)


REST_TO = ("pile", "piles_other", "stays")


def rest(rules: EscobaRules, to: str) -> Relation:
    """After the last card: the table to the mover's side, to another side, or left."""
    n = E.kinds(rules)
    known("rest_without_capturer", rules.rest_without_capturer, ("stay", "dealer"))
    rel = _base(f"rest/{to}", n)
    cl = rules.cid("last_capturer_takes_rest")
    rel.guards.add(
        rules.cid("deals_per_hand"),
        all_of(rel.pre[z].zero() for z in ("stock", "hand", "others")),
        "every card has been played",
    )
    if to == "stays":
        rel.guards.add(
            rules.cid("rest_without_capturer"),
            rules.rest_without_capturer == "stay" or not rules.last_capturer_takes_rest,
            "the cards left stay on the table",
        )
        _keep(rel, *ZONES)
    else:
        rel.effects.add(cl, rel.post[to].eq(rel.pre[to] + rel.pre["table"]), "the side takes them")
        rel.effects.add(cl, rel.post["table"].zero(), "the table is cleared")
        _keep(rel, *(z for z in ZONES if z not in (to, "table")))
    return _done(rel)


@dataclass
class Deal:
    """The deal from the whole pack: every seat's hand, the table, the stock, a sweep."""

    players: int
    sweep: bool
    hands: list[Vec]
    table: Vec
    stock: Vec
    pile: Vec
    effects: Facts
    guards: Facts
    domain: Facts

    @property
    def facts(self) -> Facts:
        return Facts([*self.domain, *self.guards, *self.effects])


def deal(rules: EscobaRules, players: int, sweep: bool) -> Deal:
    n = E.kinds(rules)
    vals = E.values(rules)
    full = concrete([1] * n)
    hands = [unknowns(f"hand{s}", n) for s in range(players)]
    up = unknowns("dealt_table", n)
    table, stock, pile = unknowns("table", n), unknowns("stock", n), unknowns("dealer_pile", n)
    g, e, dom = Facts(), Facts(), Facts()
    for v in (*hands, up):
        dom.given(v.nonneg(), "counts are not negative")
    used = up
    for h in hands:
        used = used + h
    g.add(rules.cid("suits"), used.le([1] * n), "each card of the pack is dealt once")
    for s, h in enumerate(hands):
        g.add(rules.cid("hand_size"), h.size().eq(rules.hand_size), f"seat {s} gets its cards")
    g.add(rules.cid("table_initial"), up.size().eq(rules.table_initial), "cards to the table")
    worth = value(up, vals)
    totals = [sw.total for sw in rules.opening_sweeps]
    hit = any_of(worth.eq(t) for t in totals)
    sw = rules.cid("opening_sweeps")
    e.given(stock.eq(full - used), "the stock keeps the rest")
    if sweep:
        g.add(sw, hit, "the cards on the table make a sweep total")
        e.add(sw, pile.eq(up), "the dealer's side takes them")
        e.add(sw, table.zero(), "the table is bare")
    else:
        g.add(sw, ~hit, "the cards on the table make no sweep total")
        e.add(rules.cid("table_initial"), table.eq(up), "they stay on the table")
        e.given(pile.zero(), "nobody has captured")
    return Deal(players, sweep, hands, table, stock, pile, e, g, dom)


def relations(rules: EscobaRules) -> dict[str, Relation]:
    out = {"lay": lay(rules), "capture": capture(rules)}
    for p in sorted({*rules.player_counts, *rules.team_player_counts}):
        out[f"redeal/{p}"] = redeal(rules, p)
    for to in REST_TO:
        out[f"rest/{to}"] = rest(rules, to)
    return out


def conserved(pre: list[Vec], post: list[Vec]) -> BoolTerm:
    return all_of(
        (total(v[k] for v in pre) - total(v[k] for v in post)).eq(0) for k in range(len(pre[0]))
    )


# ---------------------------------------------------------------- property `conservation`

NAME = "conservation"
STATEMENT = (
    "every move (deal and opening sweep, lay, capture, later deals, the rest of the table at the "
    "end) keeps every card in exactly one place"
)

Tamper = Callable[[Relation], Relation]


def _differences(v: Mapping[str, Value], pre: list[str], post: list[str], n: int) -> list[str]:
    out = []
    for k in range(n):
        before = sum(int(v.get(f"{p}[{k}]", 0)) for p in pre)
        after = sum(int(v.get(f"{p}[{k}]", 0)) for p in post)
        if before != after:
            out.append(f"{E.name(k)}: {before} before, {after} after")
    return out


def move_check(rel: Relation, timeout: float) -> Check:
    n = len(next(iter(rel.pre.values())))
    pre = [f"pre:{z}" for z in rel.pre]
    post = [f"post:{z}" if z not in rel.kept else f"pre:{z}" for z in rel.post]
    claim = conserved(list(rel.pre.values()), list(rel.post.values()))

    def decode(v: Mapping[str, Value]) -> Witness:
        diff = _differences(v, pre, post, n)
        zones = {
            p: E.names(read(v, p, n)) for p in [*pre, *post, *(f"param:{x}" for x in rel.params)]
        }
        return Witness(
            f"{rel.move} changes the totals: {'; '.join(diff)}",
            {"differences": diff, "zones": {k: x for k, x in zones.items() if x}},
        )

    statement = f"{rel.move} keeps every card in one place"
    quick = prove(
        rel.move,
        statement,
        [*rel.domain, *rel.effects],
        claim,
        decode,
        timeout,
        premises=rel.facts.items,
    )
    if quick.verdict is not Verdict.REFUTED:
        return quick
    return prove(rel.move, statement, rel.facts.items, claim, decode, timeout)


def deal_check(d: Deal, rules: EscobaRules, timeout: float) -> Check:
    n = E.kinds(rules)
    claim = conserved([concrete([1] * n)], [*d.hands, d.table, d.stock, d.pile])
    name = f"deal/{d.players}" + ("/sweep" if d.sweep else "")

    def decode(v: Mapping[str, Value]) -> Witness:
        zones = [f"hand{s}" for s in range(d.players)] + ["table", "stock", "dealer_pile"]
        diff = []
        for k in range(n):
            after = sum(int(v.get(f"{z}[{k}]", 0)) for z in zones)
            if after != 1:
                diff.append(f"{E.name(k)}: {after} copies after the deal")
        return Witness(f"the deal changes the pack: {'; '.join(diff)}", {"differences": diff})

    return prove(
        name,
        f"the deal to {d.players} players puts every card of the pack in one place"
        + (" (opening sweep)" if d.sweep else ""),
        [*d.domain, *d.effects],
        claim,
        decode,
        timeout,
        premises=d.facts.items,
    )


def conservation(rules: EscobaRules, timeout: float, tamper: Tamper | None = None) -> Result:
    started = time.perf_counter()
    checks: list[Check] = []
    for p in sorted({*rules.player_counts, *rules.team_player_counts}):
        for sweep in (False, True):
            checks.append(deal_check(deal(rules, p, sweep), rules, timeout))
    for rel in relations(rules).values():
        checks.append(move_check(tamper(rel) if tamper else rel, timeout))
    return Result(
        NAME,
        rules.rulebook,
        {},
        STATEMENT,
        tuple(checks),
        f"{len(checks)} moves and deals keep every card in one place",
        time.perf_counter() - started,
    )


__all__ = [
    "NAME",
    "REST_TO",
    "STATEMENT",
    "Deal",
    "Relation",
    "capture",
    "conservation",
    "conserved",
    "deal",
    "lay",
    "redeal",
    "relations",
    "rest",
    "value",
]
