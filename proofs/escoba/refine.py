"""The Escoba refiner: `relation`'s steps against the engine, on concrete states.

A state of the engine is read into the relation's unknowns (`read`). At a state in play, the
relation's enabled plays are found by evaluating its guards (compiled to Python by
`terms.Evaluator`) on every candidate play of the mover: each card held, laid, and each card held
with each group of table cards worth what it needs (groups of another worth fail the capture-sum
guard, so they are not evaluated). A play is enabled when the guard of one step holds for it, and
exactly one step's must (the relation is deterministic). Those plays must be the engine's
`legal_actions`, and for each, the state `apply` returns must satisfy every fact of the step
enabled for it (its effects define the state after, so this is equality).
"""

from __future__ import annotations

import functools
import operator
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from arbitro.model.escoba.state import EscobaState, Play
from arbitro.model.game import Seating
from arbitro.model.schema import EscobaRules
from arbitro.proofs.escoba import game_end
from arbitro.proofs.escoba import relation as R
from arbitro.proofs.facts import Fact, FactChecker
from arbitro.proofs.refine import Disagreement
from arbitro.proofs.terms import Evaluator, Value
from arbitro.proofs.verdict import NotEncoded

NAMES = "1234567SCR"
SUITS = "ocbe"


def card_name(k: int) -> str:
    return NAMES[k % 10] + SUITS[k // 10]


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _vector(mask: int) -> list[int]:
    v = [0] * R.KINDS
    for k in _bits(mask):
        v[k] = 1
    return v


def read(state: EscobaState, npos: int) -> list[Value]:
    """The state as values of `relation.names(...)`, in that order."""
    out: list[Value] = []
    for h in state.hands:
        out += _vector(h)
    out += _vector(state.table)
    for p in state.piles:
        out += _vector(p)
    for c in state.stock:
        out += _vector(1 << c)
    out += [0] * (R.KINDS * (npos - len(state.stock)))
    out += list(state.escobas)
    out += [state.last_capturer, state.deal_number, 1 if state.phase == "play" else 0]
    out.append(state.to_move)
    return out


@dataclass
class _Step:
    """One step of the relation for a mover: its guards compiled (they do not depend on the
    dealer), and every fact compiled per dealer when first needed."""

    rules: EscobaRules
    seating: R.Seating
    rel: R.Relation  # the step with dealer 0: its name, play, follow and guards
    play: FactChecker  # the guard of the play
    follow: FactChecker  # the guard of what follows
    compiled: dict[int, FactChecker] = field(default_factory=dict)

    def whole(self, dealer: int) -> FactChecker:
        hit = self.compiled.get(dealer)
        if hit is None:
            r = self.rel
            rel = R.step(self.rules, self.seating, dealer, r.mover, r.play, r.follow)
            hit = self.compiled[dealer] = FactChecker(rel.facts.items, rel.variables())
        return hit


class EscobaRefiner:
    """The relation's steps for one rules object and seating, compiled mover by mover."""

    def __init__(self, rules: EscobaRules, seating: Seating) -> None:
        self.rules = rules
        self.seating = R.Seating(seating.players, seating.sides)
        self.npos = R.positions(rules, seating.players)
        self.values = R.values(rules)
        self.by_mover: dict[int, list[_Step]] = {}
        self.cards: FactChecker | None = None
        self.deals: dict[int, FactChecker] = {}
        try:
            self.scores: _Scores | None = _Scores(rules, seating)
        except NotEncoded:
            self.scores = None

    def _steps(self, mover: int) -> list[_Step]:
        hit = self.by_mover.get(mover)
        if hit is None:
            hit = []
            plays: dict[str, FactChecker] = {}
            for play in R.PLAYS:
                for follow in R.FOLLOWS:
                    rel = R.step(self.rules, self.seating, 0, mover, play, follow)
                    params = [x.name for x in (*rel.card.items, *rel.taken.items)]  # type: ignore[attr-defined]
                    variables = [*R.names(rel.pre), *params]
                    guard = plays.get(play)
                    if guard is None:
                        guard = plays[play] = FactChecker(rel.guards.items, variables)
                    then = FactChecker(rel.follow_guards.items, variables)
                    hit.append(_Step(self.rules, self.seating, rel, guard, then))
            self.by_mover[mover] = hit
        return hit

    def whole_state(self, state: EscobaState) -> str:
        """The invariant CARDS (`invariants.cards`: every card of the pack in one place, the
        stock as long as the deals to come need) on the state; and, on a state just dealt,
        the deal relation (`invariants.deal_state`: each seat's cards, the table or the
        dealer's opening sweep and its escobas, the stock) on the deck order that deals it."""
        from arbitro.proofs.escoba import invariants

        values = read(state, self.npos)
        if self.cards is None:
            st = R.state_unknowns("", self.seating, self.npos)
            self.cards = FactChecker(
                [Fact(self.rules.cid("suits"), invariants.cards(self.rules, self.seating, st),
                      "every card in one place, the stock as long as the deals to come need")],
                R.names(st),
            )  # fmt: skip
        bad = self.cards.failing(values)
        if bad:
            return f"the state breaks {bad[0].note} ({bad[0].clause})"
        h = self.rules.hand_size
        if state.deal_number != 1 or any(x.bit_count() != h for x in state.hands):
            return ""
        deal = self.deals.get(state.dealer)
        if deal is None:
            f, st, order = invariants.deal_state(self.rules, self.seating, state.dealer)
            names = [x.name for row in order for x in row.items] + R.names(st)  # type: ignore[attr-defined]
            deal = self.deals[state.dealer] = FactChecker(f.items, names)
        seats = R.turn_order(self.rules, self.seating.players, state.dealer)
        n = self.seating.players
        deck = [0] * (n * h)
        for i, seat in enumerate(seats):
            for m, c in enumerate(_bits(state.hands[seat])):
                deck[i + n * m] = c
        up = _bits(state.table) or _bits(functools.reduce(operator.or_, state.piles, 0))
        deck += up + list(state.stock)
        if len(deck) != sum(R.present(self.rules)):
            return f"the deal leaves {len(deck)} cards in the hands, on the table and in the stock"
        bad = deal.failing([x for c in deck for x in _vector(1 << c)] + values)
        if bad:
            why = "; ".join(f"{f.note or 'a fact'} ({f.clause})" for f in bad[:4])
            return f"the deal is not the deal relation's: {why}"
        return ""

    def candidates(self, state: EscobaState) -> list[tuple[int, int]]:
        """Every (card, group mask) to try: each card held laid (0), and with each group of table
        cards worth the capture sum with it."""
        vals = self.values
        target = self.rules.capture_sum
        table = _bits(state.table)
        out: list[tuple[int, int]] = []
        for c in _bits(state.hands[state.to_move]):
            out.append((c, 0))
            need = target - vals[c]
            if need <= 0:
                continue
            out += [(c, m) for m in _groups(table, vals, need)]
        return out

    def enabled(self, state: EscobaState) -> tuple[dict[tuple[int, int], _Step], list[str]]:
        """The plays the relation enables at `state`, each with the one step enabling it; and
        the plays more than one step enables (the relation should be deterministic)."""
        pre = read(state, self.npos)
        steps = self._steps(state.to_move)
        out: dict[tuple[int, int], _Step] = {}
        doubled: list[str] = []
        follows: dict[tuple[int, str], bool] = {}
        plays: dict[str, bool] = {}
        for c, m in self.candidates(state):
            params = pre + _vector(1 << c) + _vector(m)
            plays.clear()
            hits = []
            for s in steps:
                # a step's guard is its play's and its follow's: each evaluated once
                ok = plays.get(s.rel.play)
                if ok is None:
                    ok = plays[s.rel.play] = s.play.holds(params)
                if not ok:
                    continue
                key = (c, s.rel.follow)
                then = follows.get(key)
                if then is None:
                    then = follows[key] = s.follow.holds(params)
                if then:
                    hits.append(s)
            if len(hits) > 1:
                doubled.append(f"{card_name(c)} {' '.join(s.rel.name for s in hits)}")
            if hits:
                out[(c, m)] = hits[0]
        return out, doubled

    def __call__(
        self, state: EscobaState, actions: Sequence[Play], successors: Sequence[EscobaState]
    ) -> Disagreement | None:
        why = self.whole_state(state)
        if why:
            return Disagreement("invariant", why)
        rel_on, doubled = self.enabled(state)
        if doubled:
            return Disagreement("enabled", f"more than one step enables: {'; '.join(doubled)}")
        engine = {(a.card, a.capture): i for i, a in enumerate(actions)}
        missing = [p for p in rel_on if p not in engine]
        extra = [p for p in engine if p not in rel_on]
        if missing or extra:
            seat = state.to_move
            return Disagreement(
                "enabled",
                "the relation enables "
                + (", ".join(_text(p) for p in missing) or "nothing more")
                + "; the engine allows "
                + (", ".join(_text(p) for p in extra) or "nothing more"),
                missing=tuple(_json(seat, p) for p in missing),
                extra=tuple(_json(seat, p) for p in extra),
            )
        pre = read(state, self.npos)
        for (c, m), i in engine.items():
            s = rel_on[(c, m)]
            values = pre + read(successors[i], self.npos) + _vector(1 << c) + _vector(m)
            bad = s.whole(state.dealer).failing(values)
            if bad:
                why = "; ".join(f"{f.note or 'a fact'} ({f.clause})" for f in bad[:4])
                return Disagreement("successor", f"{_text((c, m))} ({s.rel.name}): {why}", action=i)
            after = successors[i]
            if after.phase != "play" and self.scores is not None:
                why_not = self.scores.check(state, after)
                if why_not:
                    return Disagreement("successor", f"{_text((c, m))}: {why_not}", action=i)
        return None


class _Scores:
    """The hand's score row: when a play ends the hand, the engine's points per side and
    category must be the score encoding's (`proofs/escoba/scoring.config`, side by side: each
    side in turn read as side 0) on the captured cards and escobas the successor holds, its
    running totals the ones before plus those points, and the game over exactly when the
    game-end encoding (`proofs/escoba/game_end.over`: *:target-score, *:target-tie) says so."""

    def __init__(self, rules: EscobaRules, seating: Seating) -> None:
        from arbitro.proofs.escoba import scoring

        self.rules = rules
        self.cfg = scoring.config(rules)
        self.names = self.cfg.unknowns()
        self.ev = Evaluator(list(self.cfg.categories.values()), self.names)
        self.which = next(
            i
            for i, g in enumerate(self.cfg.seatings)
            if (g.players, g.sides) == (seating.players, seating.sides)
        )
        self.cats = tuple(self.cfg.categories)
        self.over = game_end.evaluator(rules, seating.sides)

    def points(self, piles: Sequence[int], escobas: Sequence[int]) -> list[tuple[int, ...]]:
        n = len(piles)
        out = []
        for i in range(n):
            v: dict[str, Value] = {"seating": self.which, "side 0 escobas": escobas[i]}
            for j in range(n):
                for k in _bits(piles[(i + j) % n]):
                    v[f"side {j} has {card_name(k)}"] = 1
            out.append(tuple(int(x) for x in self.ev([v.get(x, 0) for x in self.names])))
        return out

    def check(self, before: EscobaState, after: EscobaState) -> str:
        want = self.points(after.piles, after.escobas)
        got = after.last_points
        if got is None or [tuple(x) for x in got] != want:
            return (
                f"the hand scores {got} ({', '.join(self.cats)} per side); the score encoding "
                f"gives {want}"
            )
        totals = tuple(b + sum(p) for b, p in zip(before.scores, want, strict=True))
        if after.scores != totals:
            return f"the running totals are {after.scores}, not {totals}"
        over = bool(self.over(totals)[0])
        if (after.phase == "over") != over:
            return (
                f"the game is {'over' if after.phase == 'over' else 'not over'} at {totals}, "
                f"target {self.rules.target_score} ({self.rules.cid('target_score')})"
            )
        return ""


def _groups(cards: list[int], vals: Sequence[int], need: int) -> list[int]:
    """The masks of the groups of `cards` worth `need` (a walk that stops once a group is worth
    more: every value is at least 1)."""
    out: list[int] = []

    def walk(i: int, left: int, mask: int) -> None:
        if left == 0:
            out.append(mask)
            return
        for j in range(i, len(cards)):
            v = vals[cards[j]]
            if 0 < v <= left:
                walk(j + 1, left - v, mask | 1 << cards[j])

    walk(0, need, 0)
    return out


def _text(p: tuple[int, int]) -> str:
    c, m = p
    taken = " ".join(card_name(x) for x in _bits(m))
    return f"{card_name(c)} takes {taken}" if taken else f"{card_name(c)} laid"


def _json(seat: int, p: tuple[int, int]) -> dict[str, Any]:
    c, m = p
    return {"seat": seat, "card": card_name(c), "capture": [card_name(x) for x in _bits(m)]}


NEAR_END = 6
"""How many points short of *:target-score a sampled game near its end starts each side: about
what one hand gives a side, so that many sampled hands end the game, some exactly on the target."""


def start(rules: EscobaRules, seating: Seating, rng: random.Random) -> list[int] | None:
    """Where a sampled hand's game starts (see `proofs.refine.STARTS`): every other hand at 0
    points, the others near the game's end, each side's total drawn from the `NEAR_END` points
    below *:target-score, so that the hand-end row checks the game's end (a side alone on or
    past the target wins, *:target-score; level sides play on, *:target-tie)."""
    if rng.random() < 0.5:
        return None
    top = rules.target_score
    return [rng.randrange(max(0, top - NEAR_END), top) for _ in range(seating.sides)]


def refiner(rules: Any, seating: Seating) -> EscobaRefiner:
    return EscobaRefiner(rules, seating)


__all__ = ["NEAR_END", "EscobaRefiner", "read", "refiner", "start"]
