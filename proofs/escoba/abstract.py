"""From Escoba states (the protocol's JSON) to the encoding's unknowns.

`step_checks` takes one play — the state before, the play, the state after — and evaluates the
relations it goes through (`lay` or `capture`, then a `redeal` when every hand is empty, or the
`rest` of the table when the last card was played) on the counts of each zone, naming every
fact that does not hold. `deal_checks` does the same for a hand just dealt. `config_values`
reads a finished hand into the score encoding's unknowns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arbitro.model.schema import EscobaRules
from arbitro.proofs.escoba import cards as E
from arbitro.proofs.escoba import moves
from arbitro.proofs.escoba.scoring import Config
from arbitro.proofs.facts import FactChecker
from arbitro.proofs.terms import Value

Vector = list[int]


class Mismatch(str):
    """A fact of a relation that a step of play breaks: 'move: note (clause)'."""


class Checker:
    def __init__(self, rules: EscobaRules) -> None:
        self.rules = rules
        self.n = E.kinds(rules)
        self.relations = moves.relations(rules)
        self.compiled: dict[str, FactChecker] = {}
        self.seen: dict[str, int] = {}

    def counts(self, names: Sequence[str]) -> Vector:
        v = [0] * self.n
        for x in names:
            v[E.kind_of(x)] += 1
        return v

    def zones(self, state: Mapping[str, Any], mover: int) -> dict[str, Vector]:
        sides = int(state["sides"])
        z = {
            "stock": self.counts(state["stock"]),
            "table": self.counts(state["table"]),
            "hand": self.counts(state["hands"][mover]),
            "others": [0] * self.n,
            "pile": self.counts(state["piles"][mover % sides]),
            "piles_other": [0] * self.n,
        }
        for s, h in enumerate(state["hands"]):
            if s != mover:
                z["others"] = _plus(z["others"], self.counts(h))
        for i, p in enumerate(state["piles"]):
            if i != mover % sides:
                z["piles_other"] = _plus(z["piles_other"], self.counts(p))
        return z

    def check(
        self,
        move: str,
        pre: Mapping[str, Vector],
        post: Mapping[str, Vector],
        params: Mapping[str, Vector],
    ) -> list[Mismatch]:
        rel = self.relations.get(move)
        if rel is None:
            return [Mismatch(f"{move}: the encoding has no such move (-)")]
        self.seen[move] = self.seen.get(move, 0) + 1
        bad = [
            Mismatch(f"{move}: {z} changed, but the move leaves it alone (-)")
            for z in rel.kept
            if list(post[z]) != list(pre[z])
        ]
        ck = self.compiled.get(move)
        if ck is None:
            ck = self.compiled[move] = FactChecker(rel.facts.items, rel.variables())
        values: list[Value] = []
        for name in rel.variables():
            prefix, _, rest = name.partition(":")
            zone, _, k = rest.rstrip("]").partition("[")
            src = pre if prefix == "pre" else post if prefix == "post" else params
            values.append(src[zone][int(k)] if zone in src else 0)
        bad += [Mismatch(f"{move}: {f.note or 'a fact'} ({f.clause})") for f in ck.failing(values)]
        return bad


def _plus(a: Vector, b: Vector) -> Vector:
    return [x + y for x, y in zip(a, b, strict=True)]


def _minus(a: Vector, b: Vector) -> Vector:
    return [x - y for x, y in zip(a, b, strict=True)]


def step_checks(
    ck: Checker, pre: Mapping[str, Any], play: Mapping[str, Any], post: Mapping[str, Any]
) -> list[Mismatch]:
    """Check one play of the model against the encoded relations."""
    mover = int(play["seat"])
    card = ck.counts([play["card"]])
    taken = ck.counts(play["capture"])
    zp = ck.zones(pre, mover)
    mid = dict(zp)
    mid["hand"] = _minus(zp["hand"], card)
    if any(taken):
        mid["table"] = _minus(zp["table"], taken)
        mid["pile"] = _plus(zp["pile"], _plus(taken, card))
        bad = ck.check("capture", zp, mid, {"card": card, "taken": taken})
    else:
        mid["table"] = _plus(zp["table"], card)
        bad = ck.check("lay", zp, mid, {"card": card})
    zq = ck.zones(post, mover)
    if mid == zq:
        return bad
    players = int(pre["players"])
    if post["phase"] == "play" and not any(mid["hand"]) and not any(mid["others"]):
        dealt_me = _minus(zq["hand"], mid["hand"])
        dealt_them = _minus(zq["others"], mid["others"])
        up = _minus(zq["table"], mid["table"])
        return bad + ck.check(
            f"redeal/{players}",
            mid,
            zq,
            {"to_mover": dealt_me, "to_others": dealt_them, "to_table": up},
        )
    # the last card: the table's rest to a side, or left
    if any(_minus(zq["pile"], mid["pile"])):
        to = "pile"
    elif any(_minus(zq["piles_other"], mid["piles_other"])):
        to = "piles_other"
    else:
        to = "stays"
    return bad + ck.check(f"rest/{to}", mid, zq, {})


def deal_checks(rules: EscobaRules, state: Mapping[str, Any]) -> list[Mismatch]:
    """A hand just dealt against the deal relation of its seating."""
    players = int(state["players"])
    sides = int(state["sides"])
    ck = Checker(rules)
    dealer_side = int(state["dealer"]) % sides
    pile = ck.counts(state["piles"][dealer_side])
    sweep = any(pile)
    d = moves.deal(rules, players, sweep)
    names: list[str] = []
    values: list[Value] = []
    hands = [ck.counts(h) for h in state["hands"]]
    table = ck.counts(state["table"])
    stock = ck.counts(state["stock"])
    dealt_table = pile if sweep else table
    fields: dict[str, Vector] = {"dealt_table": dealt_table, "table": table, "stock": stock}
    fields["dealer_pile"] = pile
    for seat, h in enumerate(hands):
        fields[f"hand{seat}"] = h
    fc = FactChecker(d.facts.items, [f"{z}[{k}]" for z in fields for k in range(ck.n)])
    for z in fields:
        names += [f"{z}[{k}]" for k in range(ck.n)]
        values += fields[z]
    return [Mismatch(f"deal: {f.note} ({f.clause})") for f in fc.failing(values)]


def config_values(cfg: Config, state: Mapping[str, Any], side: int) -> dict[str, Value]:
    """A finished hand as the score encoding's unknowns for side `side` (renumbered side 0)."""
    players, sides = int(state["players"]), int(state["sides"])
    index = next(i for i, g in enumerate(cfg.seatings) if g.players == players and g.sides == sides)
    v: dict[str, Value] = {name: 0 for name in cfg.unknowns()}
    v["seating"] = index
    order = [side] + [s for s in range(sides) if s != side]
    for new, old in enumerate(order):
        for name in state["piles"][old]:
            v[f"side {new} has {name}"] = 1
    esc = int(state["escobas"][side])
    v["side 0 escobas"] = esc
    v["escobas in play"] = esc
    return v


def escoba_splits(v: Mapping[str, Value]) -> list[dict[str, Value]]:
    """The ways a side's escobas may split between play and an opening sweep (the state does not
    record which escobas came from the sweep)."""
    esc = int(v["side 0 escobas"])
    out = []
    for sweep in range(min(esc, 2) + 1):
        w = dict(v)
        w["escobas in play"] = esc - sweep
        w["escobas of the sweep"] = sweep
        out.append(w)
    return out


__all__ = ["Checker", "Mismatch", "config_values", "deal_checks", "escoba_splits", "step_checks"]
