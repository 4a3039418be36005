"""From the model's states to the encoding's unknowns: the tie between proofs and play.

A state is read through the protocol's JSON (`GameModel.state_to_json`, see docs/protocol.md),
never through the model's internals. `step_checks` takes one step of play — the state before,
the action, the state after — finds the relations of `arbitro.proofs.rummy.moves` that step goes
through (a discard and the next player's owed replacements, say), works out their parameters
(the cards drawn, shown, laid…) and the state between them, and evaluates every effect and guard
of each relation on those counts; `Mismatch` names each fact that does not hold, with its clause.
`config_values` reads a finished hand into the score encoding's unknowns.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arbitro.model.schema import RummyRules
from arbitro.proofs.facts import SlotChecker
from arbitro.proofs.rummy import cards as C
from arbitro.proofs.rummy.moves import Relation, relations, set_count
from arbitro.proofs.rummy.score import Config
from arbitro.proofs.terms import Value

K = C.KINDS
Vector = tuple[int, ...]
"""A count per card kind (immutable: the same pile's vector is shared, and is a key of the
memory of `facts.SlotChecker`)."""


def counts(names: Sequence[str]) -> Vector:
    """The count vector of a pile given by its cards' names."""
    key = tuple(names)
    got = _COUNTED.get(key)
    if got is None:
        if len(_COUNTED) >= 8192:
            _COUNTED.clear()  # a bounded memory: a long walk meets new piles all the time
        got = _COUNTED[key] = tuple(C.counts_of(list(key)))
    return got


_COUNTED: dict[tuple[str, ...], tuple[int, ...]] = {}
"""Piles already counted: a state's stock, hands and melds are read again for every successor
(the stock of six packs, card by card, was most of a refiner's time)."""


def plus(a: Sequence[int], b: Sequence[int]) -> Vector:
    """The sum of two count vectors (the same object again for the same two vectors, while it
    is remembered: see `_DERIVED`)."""
    return _derived(a, b, operator.add)


def minus(a: Sequence[int], b: Sequence[int]) -> Vector:
    """The difference of two count vectors (remembered as `plus` is)."""
    return _derived(a, b, operator.sub)


_DERIVED: dict[tuple[int, int, Any], tuple[Vector, Vector, Vector]] = {}
"""Sums and differences of count vectors by the identity of their operands (kept alive here, so
an identity is not reused while remembered): a state's hand less a card, its melds less a meld,
are asked again for every successor and candidate of the state, and the same result object lets
`facts.SlotChecker` answer the facts that read it without reading it again."""


def _derived(a: Sequence[int], b: Sequence[int], op: Any) -> Vector:
    if type(a) is not tuple or type(b) is not tuple:  # a mutable vector is never remembered
        return tuple(map(op, a, b))
    key = (id(a), id(b), op)
    got = _DERIVED.get(key)
    if got is not None and got[0] is a and got[1] is b:
        return got[2]
    out = tuple(map(op, a, b))
    if len(_DERIVED) >= 1 << 14:
        _DERIVED.clear()
    _DERIVED[key] = (a, b, out)
    return out


def total_of(vectors: Sequence[Sequence[int]]) -> Vector:
    """The sum of count vectors (the same object again for the same vectors, while it is
    remembered: see `_TOTALS`); the zero vector for none."""
    if not vectors:
        return _ZERO
    if any(type(v) is not tuple for v in vectors):  # a mutable vector is never remembered
        return tuple(map(sum, zip(*vectors, strict=True)))
    if len(vectors) == 1:
        return vectors[0]  # type: ignore[return-value]
    key = tuple(map(id, vectors))
    got = _TOTALS.get(key)
    if got is not None:
        return got[1]
    # added up in turn through `plus`, whose memory answers the sums begun before (every hand
    # but one, when the last one changed)
    out: Vector = vectors[0]  # type: ignore[assignment]
    for v in vectors[1:]:
        out = plus(out, v)
    if len(_TOTALS) >= 1 << 14:
        _TOTALS.clear()
    _TOTALS[key] = (tuple(vectors), out)  # type: ignore[arg-type]
    return out


_TOTALS: dict[tuple[int, ...], tuple[tuple[Vector, ...], Vector]] = {}
"""Sums of several count vectors by the identities of the operands, which each entry keeps alive
(so an identity found here is of the same object): every hand but one, a side's melds, are summed
again for every successor of a state."""


_plus = plus
_minus = minus


_ZERO: Vector = (0,) * K


def _zero() -> Vector:
    return _ZERO


def melds_of(state: Mapping[str, Any], side: int) -> list[Vector]:
    return [counts(m["cards"]) for m in state["table"][side]["melds"]]


def zones(state: Mapping[str, Any], mover: int) -> dict[str, Vector]:
    """The state's zones seen from `mover` (every meld of a side summed)."""
    sides = int(state["sides"])
    side = mover % sides
    hands = [counts(h) for h in state["hands"]]
    out = {
        "stock": counts(state["stock"]),
        "pile": counts(state["pile"]),
        "hand": hands[mover],
        "others": _zero(),
        "held": counts(state["held"]),
        "freed": counts([state["freed"]] if state.get("freed") else []),
        "reds": counts(state["table"][side]["red_threes"]),
        "reds_other": _zero(),
        "melds": _zero(),
        "melds_other": _zero(),
    }
    out["others"] = total_of([h for s, h in enumerate(hands) if s != mover])
    table = state["table"]
    out["melds"] = total_of(melds_of(state, side))
    out["melds_other"] = total_of(
        [m for i in range(sides) if i != side for m in melds_of(state, i)]
    )
    out["reds_other"] = total_of(
        [counts(table[i]["red_threes"]) for i in range(sides) if i != side]
    )
    return out


@dataclass(frozen=True)
class Mismatch:
    """A fact of an encoded relation that a step of the model's play breaks."""

    move: str
    clause: str
    note: str

    def __str__(self) -> str:
        return f"{self.move}: {self.note} ({self.clause})"


class Checker:
    """The relations of one rules object, compiled for concrete evaluation."""

    def __init__(self, rules: RummyRules) -> None:
        self.rules = rules
        self.relations = relations(rules)
        self.compiled: dict[str, SlotChecker] = {}
        self.slots: dict[str, list[tuple[str, str]]] = {}
        self.seen: Counter[str] = Counter()
        self.plans: dict[str, list[tuple[int, str, Any]]] = {}

    def _compiled(self, rel: Relation) -> SlotChecker:
        """The relation's facts compiled by the slots `_slots` reads them from (see
        `SlotChecker`: each group of facts is evaluated on slot values it has not met)."""
        got = self.compiled.get(rel.move)
        if got is None:
            names = [[f"{p}:{z}[{k}]" for k in range(K)] if p else [z] for p, z in self._slots(rel)]
            got = self.compiled[rel.move] = SlotChecker(rel.facts.items, names)
        return got

    def _slots(self, rel: Relation) -> list[tuple[str, str]]:
        """Where the unknowns of `rel` are read from, in order: (pre/post/param, zone) for the
        53 counts of a zone, ("", name) for a scalar; worked out once per relation."""
        got = self.slots.get(rel.move)
        if got is None:
            got = []
            names = rel.variables()
            i = 0
            while i < len(names):
                prefix, _, rest = names[i].partition(":")
                if prefix in ("pre", "post", "param") and rest.endswith("[0]"):
                    zone = rest[: -len("[0]")]
                    assert names[i + K - 1] == f"{prefix}:{zone}[{K - 1}]", names[i]
                    got.append((prefix, zone))
                    i += K
                else:
                    got.append(("", names[i]))
                    i += 1
            self.slots[rel.move] = got
        return got

    def check(
        self,
        move: str,
        pre: Mapping[str, Sequence[int]],
        post: Mapping[str, Sequence[int]],
        touched: Mapping[str, Sequence[int]],
        params: Mapping[str, Sequence[int]],
        scalars: Mapping[str, int],
    ) -> list[Mismatch]:
        """Evaluate relation `move` on concrete zones; the facts it breaks. The touched melds
        `a`, `b` (before) and `a2`, `new` (after) are read from `touched` (zero when absent)."""
        rel = self.relations.get(move)
        if rel is None:
            return [Mismatch(move, "-", "the encoding has no such move for these rules")]
        self.seen[move] += 1
        bad: list[Mismatch] = []
        for z in rel.kept:
            was = touched.get(z, _ZERO) if z in _TOUCHED_PRE else pre[z]
            now = touched.get(z, _ZERO) if z in _TOUCHED_POST else post[z]
            if was is not now and tuple(now) != tuple(was):
                bad.append(Mismatch(move, "-", f"{z} changed, but the move leaves it alone"))
        for z in rel.empty:
            where = touched.get(z, _ZERO) if z in _TOUCHED else post[z]
            if any(where):
                bad.append(Mismatch(move, "-", f"the move touches no meld {z}"))
        plan = self.plans.get(move)
        if plan is None:
            plan = self.plans[move] = self._plan(rel)
        sources = (pre, post, touched, params, scalars)
        values = [sources[i].get(zone, zero) for i, zone, zero in plan]
        if list in map(type, values):  # a mutable vector is read as a tuple (see `SlotChecker`)
            values = [tuple(v) if type(v) is list else v for v in values]
        ck = self._compiled(rel)
        bad += [Mismatch(move, f.clause, f.note or "a fact") for f in ck.failing(values)]
        return bad

    def _plan(self, rel: Relation) -> list[tuple[int, str, Any]]:
        """Where `check` reads each slot of `rel` from: (the place of pre, post, touched, params
        or scalars among its arguments, the name there, the value when it is absent)."""
        plan: list[tuple[int, str, Any]] = []
        for prefix, zone in self._slots(rel):
            if prefix == "pre":
                plan.append((2 if zone in _TOUCHED_PRE else 0, zone, _ZERO))
            elif prefix == "post":
                plan.append((2 if zone in _TOUCHED_POST else 1, zone, _ZERO))
            elif prefix == "param":
                plan.append((3, zone, _ZERO))
            else:
                plan.append((4, zone, 0))
        return plan


_TOUCHED_PRE = ("a", "b")
_TOUCHED_POST = ("a2", "new")
_TOUCHED = (*_TOUCHED_PRE, *_TOUCHED_POST)
"""The touched melds, before and after: `Checker.check` reads them from its `touched`."""


def set_counts(state: Mapping[str, Any], side: int) -> dict[str, int]:
    """The `moves.set_count` scalars: the side's sets per natural rank."""
    got = Counter(m["rank"] for m in state["table"][side]["melds"] if m["kind"] == "set")
    return {set_count(r): got[C.RANKS[r]] for r in C.NATURAL_RANKS}


def opening_scalars(pre: Mapping[str, Any], side: int) -> dict[str, int]:
    """The finish-opening relation's scalars: whether the side has opened, the points of a
    pile's top card taken this turn, and the side's opening minimum."""
    return {
        "opened": int(bool(pre["table"][side]["opened"])),
        "top points": int(pre["top_points"]),
        "minimum": int(pre["minimums"][side]),
    }


def stop_scalars(pre: Mapping[str, Any], post: Mapping[str, Any]) -> dict[str, int]:
    """The draw relations' scalars of *:last-red-three-ends-hand: whether the stock's last card
    is a red three, whether play stops without a discard after the draw, whether the hand goes
    on."""
    stock = pre["stock"]
    last = (
        bool(stock) and counts([stock[-1]])[C.RED_THREES[0]] + counts([stock[-1]])[C.RED_THREES[1]]
    )
    return {
        "last red": int(bool(last)),
        "stops": int(bool(post["no_discard"])),
        "in play": int(post["phase"] == "play"),
    }


def turn_scalars(pre: Mapping[str, Any], mover: int, after: int, passes: bool) -> dict[str, int]:
    """The relations' turn-order scalars (`moves.TURN`) of a step from `pre` by `mover`."""
    return {"seat": mover, "seat after": after, "players": int(pre["players"]), "passes": passes}


def _touched(before: list[Vector], after: list[Vector]) -> tuple[list[Vector], list[Vector]]:
    """The melds only in `before` and those only in `after` (multisets of melds)."""
    if len(before) == len(after) and all(map(operator.is_, before, after)):
        return [], []  # the same meld objects (`counts` gives one object per pile read again)
    b = Counter(tuple(m) for m in before)
    a = Counter(tuple(m) for m in after)
    return list((b - a).elements()), list((a - b).elements())


def step_checks(
    ck: Checker,
    pre: Mapping[str, Any],
    action: Mapping[str, Any],
    post: Mapping[str, Any],
    memo: dict[Any, Any] | None = None,
) -> list[Mismatch]:
    """Check one step of the model's play against the encoded relations. `memo`, when given,
    keeps what is read from `pre` for the next steps from the same state (a refiner checks every
    successor of a state: a new dict per state)."""
    kind = action["type"]
    mover = int(action["seat"]) if kind != "answer" else int(pre["seat"])
    side = mover % int(pre["sides"])
    if memo is None:
        memo = {}
    got = memo.get(mover)
    if got is None:
        got = memo[mover] = (zones(pre, mover), melds_of(pre, side))
    zp, melds_pre = got
    removed, added = _touched(melds_pre, melds_of(post, side))
    touched: dict[str, Vector] = {}
    scalars: dict[str, int] = {}
    params: dict[str, Vector] = {}
    opened = bool(pre["table"][side]["opened"])
    result = post.get("result") or {}
    went_out = kind == "discard" and result.get("reason") == "went-out"
    scalars.update(turn_scalars(pre, mover, int(post["seat"]), not went_out))
    if kind in ("ask-partner", "answer", "stop", "finish-opening"):
        move = "finish-opening" if kind == "finish-opening" else "no-cards"
        scalars.update(opening_scalars(pre, side))
    elif kind == "draw":
        n = sum(zp["stock"])
        short = ck.rules.draw_short_stock == "hand_ends" and n < ck.rules.draw_count
        move = "draw/exhausted" if n == 0 or short else "draw"
        params["drawn"] = _minus(zp["stock"], counts(post["stock"]))
        scalars.update(stop_scalars(pre, post))
    elif kind == "take-pile":
        use = action["use"]
        params["top"] = counts([pre["pile"][-1]])
        params["shown"] = counts(action.get("cards", []))
        if use == "set" and removed:
            use = "join"
        move = f"take-pile/{use}"
        if ck.rules.pile_rest_after_opening and not opened:
            move += "/held"
        scalars["opened"] = int(opened)
        scalars["pile_taken_before"] = int(bool(pre["pile_taken"]))
    elif kind == "lay":
        freed = pre["step"] == "freed"
        move = "lay/freed" if freed else "lay"
        laid = counts(action["cards"])
        params["laid"] = _minus(laid, zp["freed"]) if freed else laid
        scalars.update(set_counts(pre, side))
    elif kind == "add":
        move = "add/freed" if pre["step"] == "freed" else "add"
        params["card"] = counts([action["card"]])
    elif kind == "merge":
        move = "merge"
    elif kind == "replace-wild":
        move = "replace-wild"
        params["natural"] = counts([action["natural"]])
        params["wild"] = counts([action["wild"]])
    elif kind == "discard":
        move = "discard"
        params["card"] = counts([action["card"]])
    else:
        return [Mismatch(kind, "-", "an action type the encoding does not know")]
    if len(removed) > 2 or len(added) > 1:
        return [Mismatch(move, "-", f"{len(removed)} melds replaced by {len(added)} in one move")]
    for name, m in zip(("a", "b"), removed, strict=False):
        touched[name] = m
    grows = move in ("add", "add/freed", "replace-wild") or move.startswith(
        ("take-pile/join", "take-pile/add")
    )
    if added:
        touched["a2" if grows else "new"] = added[0]
    base = dict(zp)
    for m in removed:
        base["melds"] = _minus(base["melds"], m)
    if kind == "discard" and int(post["seat"]) != mover:
        # the turn passes: the discard, then the next player's owed replacements (after which
        # an exhausted stock may end the hand, moving no card)
        mid = dict(base)
        mid["hand"] = _minus(base["hand"], params["card"])
        mid["pile"] = _plus(base["pile"], params["card"])
        bad = ck.check(move, base, {**mid, "melds": base["melds"]}, touched, params, scalars)
        nxt = int(post["seat"])
        return bad + _turn_start(ck, pre, mover, nxt, mid, post, memo)
    zq = zones(post, mover)
    zq["melds"] = _minus(zq["melds"], added[0] if added else _zero())
    return ck.check(move, base, zq, touched, params, scalars)


def _turn_start(
    ck: Checker,
    pre: Mapping[str, Any],
    mover: int,
    nxt: int,
    mid: dict[str, Vector],
    post: Mapping[str, Any],
    memo: dict[Any, Any] | None = None,
) -> list[Mismatch]:
    """The state between a discard and the next turn, seen from the next player (what it reads
    of `pre` alone is kept in `memo` for the other discards from the same state)."""
    sides = int(pre["sides"])
    key = ("turn", mover, nxt)
    got = memo.get(key) if memo is not None else None
    if got is None:
        hands = [counts(h) for h in pre["hands"]]
        # every hand but the mover's and the next player's
        rest = total_of([h for s, h in enumerate(hands) if s != nxt and s != mover])
        theirs = nxt % sides
        melds = total_of(melds_of(pre, theirs))
        melds_other = total_of([m for i in range(sides) if i != theirs for m in melds_of(pre, i)])
        reds_other = total_of(
            [counts(pre["table"][i]["red_threes"]) for i in range(sides) if i != theirs]
        )
        reds = counts(pre["table"][theirs]["red_threes"])
        got = (hands[nxt], rest, reds, reds_other, melds, melds_other)
        if memo is not None:
            memo[key] = got
    hand, rest, reds, reds_other, melds, melds_other = got
    z: dict[str, Vector] = {
        "stock": mid["stock"],
        "pile": mid["pile"],
        "hand": mid["hand"] if nxt == mover else hand,
        "others": rest if nxt == mover else _plus(rest, mid["hand"]),
        "held": mid["held"],
        "freed": mid["freed"],
        "reds": reds,
        "reds_other": reds_other,
        "melds": melds,
        "melds_other": melds_other,
    }
    zq = zones(post, nxt)
    drawn = _minus(z["stock"], zq["stock"])
    owed = int(pre["owed"][nxt])
    turn = turn_scalars(pre, nxt, int(post["seat"]), False)
    scalars = {"owed": owed, **turn, **stop_scalars(pre, post)}
    return ck.check("turn-start", z, zq, {}, {"drawn": drawn}, scalars)


def deal_zones(state: Mapping[str, Any]) -> dict[str, Vector]:
    """Every zone of a state just dealt, per seat and side."""
    out: dict[str, Vector] = {f"hand{s}": counts(h) for s, h in enumerate(state["hands"])}
    for i, side in enumerate(state["table"]):
        out[f"reds{i}"] = counts(side["red_threes"])
    out["upcard"] = counts(state["pile"])
    out["stock"] = counts(state["stock"])
    return out


def deal_consistent(
    rules: RummyRules, layout: Any, state: Mapping[str, Any], timeout: float = 30.0
) -> str:
    """Whether some deal the relation allows (what each seat was dealt, what replaced its red
    threes, which cards were turned up) leaves exactly this dealt state: Z3 decides, the zones
    fixed to the state's counts. Returns the solver's status ('sat' when consistent)."""
    from arbitro.proofs import smt
    from arbitro.proofs.rummy.moves import deal_relation
    from arbitro.proofs.terms import all_of

    d = deal_relation(rules, layout, first=int(state["seat"]))
    got = deal_zones(state)
    vectors = {f"hand{s}": v for s, v in enumerate(d.hands)}
    vectors.update({f"reds{i}": v for i, v in enumerate(d.reds)})
    vectors["upcard"] = d.pile
    vectors["stock"] = d.stock
    fixed = all_of(vectors[z][k].eq(got[z][k]) for z in vectors for k in range(K) if z in got)
    return smt.check(d.facts.items, [fixed], timeout=timeout, minimise=False, values=False).status


def config_values(
    cfg: Config,
    state: Mapping[str, Any],
    side: int,
    seating_index: int,
    names: Sequence[str] | None = None,
) -> dict[str, Value]:
    """A finished hand's position (the state keeps it until the next deal) as the score
    encoding's unknowns, for side `side`. `names`: `cfg.unknowns()`, when the caller has them
    (finding them walks every term of the configuration: most of a refiner's time, when it was
    done for every state)."""
    from arbitro.proofs.rummy.score import run_name, set_name

    sides = int(state["sides"])
    v: dict[str, Value] = dict.fromkeys(cfg.unknowns() if names is None else names, 0)
    v["seating"] = seating_index
    pos = cfg.shapes.positions
    for m in state["table"][side]["melds"]:
        vec = counts(m["cards"])
        wilds = sum(vec[k] for k in C.WILDS)
        if m["kind"] == "set":
            rank = C.RANKS.index(m["rank"])
            nat = sum(vec) - wilds
            name = set_name(rank, (nat, wilds))
        elif m["kind"] == "escalera":
            ranks = sorted(pos.index(C.rank_of(k)) for k in range(K) if vec[k])
            name = run_name((ranks[0], ranks[-1]), pos)
        elif m["kind"] == "wilds":
            name = f"wildmeld[{sum(vec)}]"
        else:
            blacks = sum(vec[k] for k in C.BLACK_THREES)
            name = f"blackmeld[{blacks}b{wilds}w]"
        v[name] = int(v.get(name, 0)) + 1
        v["melded jokers"] = int(v["melded jokers"]) + vec[C.JOKER]
        v["melded twos"] = int(v["melded twos"]) + sum(vec[k] for k in C.TWOS)
    held: Vector = _zero()
    for seat in range(side, int(state["players"]), sides):
        held = _plus(held, counts(state["hands"][seat]))
        if seat == int(state["seat"]):
            held = _plus(held, counts(state["held"]))
            if state.get("freed"):
                held = _plus(held, counts([state["freed"]]))
    for rank in C.NATURAL_RANKS:
        v[f"hand[{C.RANKS[rank]}]"] = sum(held[C.kind(rank, s)] for s in range(4))
    v["hand[JK]"] = held[C.JOKER]
    v["hand[2]"] = sum(held[k] for k in C.TWOS)
    v["hand[black 3]"] = sum(held[k] for k in C.BLACK_THREES)
    v["hand[red 3]"] = sum(held[k] for k in C.RED_THREES)
    v["red threes laid out"] = len(state["table"][side]["red_threes"])
    result = state["result"]
    reason = result["reason"] if result else ""
    went_side = int(state["seat"]) % sides if reason == "went-out" else -1
    v["went"] = went_side == side
    v["other_went"] = went_side >= 0 and went_side != side
    v["ended_play"] = reason == "stock-out" and int(state["seat"]) % sides == side
    blacks_total = 2 * cfg.seatings[seating_index].deck.packs
    v["one_seat_all_blacks"] = any(
        sum(counts(state["hands"][seat])[k] for k in C.BLACK_THREES) == blacks_total
        for seat in range(side, int(state["players"]), sides)
    )
    return v


__all__ = [
    "Checker",
    "Mismatch",
    "config_values",
    "counts",
    "deal_consistent",
    "deal_zones",
    "melds_of",
    "opening_scalars",
    "step_checks",
    "stop_scalars",
    "turn_scalars",
    "zones",
]
