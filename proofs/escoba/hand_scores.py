"""Escoba's hand scores: the exact set of points a side can score in one hand, per seating.

A side's hand score is its categories (*:cards-points, *:oros-points, *:velo-points,
*:setenta-points, each won by one side at most) plus *:escoba-points for each escoba. So
the set is fixed by two things:

- **the most escobas a side can make in a hand**, found by an exhaustive search over the guarded
  relation's plays seen through the cards' capture values (`most_escobas`). Everything the
  relation lets a play do depends on values only: a capture takes a group of table cards worth
  *:capture-sum with the card, a card may be laid only when no group is (*:capture-forced, a
  guard on the card played, not on the rest of the hand), an escoba is a capture that leaves the
  table bare, and the opening sweep scores by the table's worth (*:opening-sweeps). Which cards a
  seat holds is free, since a deck order fixes every hand: a seat's hand in a deal is the cards
  it plays in it. So the search picks, play by play, the value of the card the mover plays from
  the values not yet played, and every capture group. It prunes with two bounds that hold on
  every hand: every capture takes exactly *:capture-sum, so no more captures remain than the
  value still in play divided by it; and a side makes at most one escoba per card it still
  plays, the hand's last play none when the value in play is no multiple of the capture sum
  (the table is not bare after it). A search that finds no hand with `n` escobas has examined
  every hand those bounds leave: `n` is unreachable. A bound too tight or a move missing makes
  the search miss hands: tests/proofs/test_hand_scores.py compares its most with the engine's,
  played out every way on every deal of escoba-tiny, and shows a bound one too tight falls short.
- **which scores between 0 and the most are played**: each is shown by a hand (`Witness`):
  a deck order and its plays, replayed through the engine's `deal`, `legal_actions` and
  `apply` before it counts, and written as a transcript that `arbitro check` replays (the hand
  line claims the engine's scores).

The search is not a solver query: `exact(..., solver=True)` (property `most-escobas`) takes the
most from `escobas.py` instead, unsat above on the guarded relation.

A score above `categories + escoba_points * most` is unreachable (each category scores at most
its points: the optional rules that double them are not encoded); a score up to it that no
witness shows is reported as not established, never as reachable.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from arbitro.model.game import Seating
from arbitro.model.schema import EscobaRules, rules_for
from arbitro.proofs.escoba import cards as E
from arbitro.proofs.escoba import escobas as E_
from arbitro.proofs.escoba.relation import KINDS, deals_for, present, turn_order, values
from arbitro.proofs.verdict import Check, NotEncoded, Result, Verdict
from arbitro.proofs.verdict import Witness as Witness_

Play = tuple[int, tuple[int, ...]]
"""A value-level play: the value of the card played and the values it takes (none: laid)."""


@dataclass(frozen=True)
class Line:
    """A hand at the level of capture values: the opening table and every play in turn."""

    players: int
    sides: int
    dealer: int
    table: tuple[int, ...]
    plays: tuple[Play, ...]


class _Game:
    """The value-level hand of one seating and dealer, for one side's escobas."""

    def __init__(self, rules: EscobaRules, players: int, sides: int, dealer: int, side: int):
        r = rules
        if r.redeal_table:
            raise NotEncoded("redeal_table", r.redeal_table)
        self.rules = r
        self.players, self.sides, self.dealer, self.side = players, sides, dealer, side
        have = present(r)
        vals = values(r)
        counts: dict[int, int] = {}
        for k in range(KINDS):
            if have[k]:
                counts[vals[k]] = counts.get(vals[k], 0) + 1
        self.vals = tuple(sorted(counts))
        self.pack = tuple(counts[v] for v in self.vals)
        self.cs = r.capture_sum
        self.order = turn_order(r, players, dealer)
        self.plays = sum(self.pack) - r.table_initial
        deals = deals_for(r, players)
        if players * (r.hand_size + (deals - 1) * r.redeal_size) != self.plays:
            raise NotEncoded("deals_per_hand", deals)
        self.sweeps = {s.total: s.escobas for s in r.opening_sweeps}
        # plays left to the side from play t on, and whether the hand's last play is the side's
        self.mine = [0] * (self.plays + 1)
        for t in range(self.plays - 1, -1, -1):
            self.mine[t] = self.mine[t + 1] + (self.side_at(t) == side)
        self.last_is_mine = self.side_at(self.plays - 1) == side
        self._bounds: dict[tuple[tuple[int, ...], tuple[int, ...], int], int] = {}

    def side_at(self, t: int) -> int:
        """The side of the seat making play `t` (every deal is whole rounds of the seats)."""
        return self.order[t % self.players] % self.sides

    def worth(self, counts: Sequence[int]) -> int:
        return sum(c * v for c, v in zip(counts, self.vals, strict=True))

    def bound(self, pool: tuple[int, ...], table: tuple[int, ...], t: int) -> int:
        """The most escobas the side can still make from play `t` (sound: see the module)."""
        key = (pool, table, t)
        got = self._bounds.get(key)
        if got is not None:  # the same cards left at the same play: the search meets it often
            return got
        left = self.worth(pool) + self.worth(table)
        mine = self.mine[t]
        if self.last_is_mine and left % self.cs and mine:
            mine -= 1
        rest = 1 if self.rules.rest_is_escoba else 0
        got = min(left // self.cs, mine) + rest
        if len(self._bounds) >= 200_000:  # a long search keeps a bounded memory
            self._bounds.clear()
        self._bounds[key] = got
        return got

    @cache  # noqa: B019 - one game object per search
    def groups(self, table: tuple[int, ...], need: int) -> tuple[tuple[int, ...], ...]:
        """Every non-empty group of the table (counts per value) worth `need`."""
        out: list[tuple[int, ...]] = []
        cur = [0] * len(self.vals)

        def walk(i: int, left: int) -> None:
            if left == 0:
                if any(cur):
                    out.append(tuple(cur))
                return
            if i == len(self.vals) or self.vals[i] > left:
                return
            for n in range(min(table[i], left // self.vals[i]) + 1):
                cur[i] = n
                walk(i + 1, left - n * self.vals[i])
            cur[i] = 0

        if need > 0:
            walk(0, need)
        return tuple(out)

    def openings(self) -> Iterator[tuple[tuple[int, ...], int]]:
        """Every opening table (counts per value) and the escobas its sweep gives the dealer."""
        n = self.rules.table_initial
        cur = [0] * len(self.vals)

        def walk(i: int, left: int) -> Iterator[tuple[tuple[int, ...], int]]:
            if left == 0:
                t = tuple(cur)
                yield t, self.sweeps.get(self.worth(t), 0)
                return
            if i == len(self.vals):
                return
            for c in range(min(self.pack[i], left), -1, -1):
                cur[i] = c
                yield from walk(i + 1, left - c)
            cur[i] = 0

        yield from walk(0, n)

    def moves(
        self, pool: tuple[int, ...], table: tuple[int, ...], t: int,
        rng: random.Random | None = None,
    ) -> list[Play]:  # fmt: skip
        """The plays at `t`, the side's escobas first when it moves, lays first otherwise (ties
        in the pack's order, or at random with `rng`)."""
        ours = self.side_at(t) == self.side
        out: list[tuple[int, Play]] = []
        for i, v in enumerate(self.vals):
            if not pool[i]:
                continue
            gs = self.groups(table, self.cs - v)
            for g in gs:
                sweep = tuple(a - b for a, b in zip(table, g, strict=True)) == (0,) * len(g)
                key = (0 if sweep else 2) if ours else (3 if sweep else 2)
                out.append((key, (i, g)))
            if not gs or not self.rules.capture_forced:
                out.append((1, (i, ())))
        if rng is not None:
            rng.shuffle(out)
        out.sort(key=lambda x: x[0])
        return [m for _, m in out]


@dataclass
class Search:
    """Hands of one seating with the side's escobas in [lo, hi]; `nodes` counts states met."""

    game: _Game
    lo: int
    hi: int
    budget: int
    rng: random.Random | None = None
    mix: int = 0
    """With `rng`: 1, the moves in the search's order, ties at random; 2, all at random."""
    nodes: int = 0
    failed: set[tuple[Any, ...]] = field(default_factory=set)

    def run(self) -> Line | str | None:
        """A hand, None when there is none (exhaustive), "budget" when the budget ran out."""
        g = self.game
        tables = list(g.openings())
        dealer_side = g.dealer % g.sides
        tables.sort(key=lambda x: -x[1] if dealer_side == g.side else x[1])
        if self.rng is not None:
            self.rng.shuffle(tables)
        try:
            for table, sweep in tables:
                pool = tuple(a - b for a, b in zip(g.pack, table, strict=True))
                got = sweep if dealer_side == g.side else 0
                start = (0,) * len(table) if sweep else table
                plays: list[Play] = []
                if self._walk(pool, start, 0, -1 if not sweep else dealer_side, got, plays):
                    return Line(
                        g.players,
                        g.sides,
                        g.dealer,
                        tuple(v for i, v in enumerate(g.vals) for _ in range(table[i])),
                        tuple(plays),
                    )
        except _OutOfBudget:
            return "budget"
        return None

    def _walk(
        self,
        pool: tuple[int, ...],
        table: tuple[int, ...],
        t: int,
        last: int,
        got: int,
        plays: list[Play],
    ) -> bool:
        g = self.game
        self.nodes += 1
        if self.nodes > self.budget:
            raise _OutOfBudget
        if got > self.hi:
            return False
        if t == g.plays:
            if g.rules.rest_is_escoba and any(table) and last == g.side:
                got += 1
            return self.lo <= got <= self.hi
        if got + g.bound(pool, table, t) < self.lo:
            return False
        key = (pool, table, last if g.rules.rest_is_escoba else 0, got)
        if key in self.failed:
            return False
        side = g.side_at(t)
        moves = g.moves(pool, table, t, self.rng if self.mix < 2 else None)
        if self.rng is not None and self.mix == 2:
            self.rng.shuffle(moves)
        for i, taken in moves:
            p2 = (*pool[:i], pool[i] - 1, *pool[i + 1 :])
            if taken:
                t2 = tuple(a - b for a, b in zip(table, taken, strict=True))
                esc = 1 if side == g.side and not any(t2) else 0
                nxt = side
            else:
                t2 = (*table[:i], table[i] + 1, *table[i + 1 :])
                esc, nxt = 0, last
            plays.append(
                (
                    g.vals[i],
                    tuple(v for j, v in enumerate(g.vals) for _ in range(taken[j]))
                    if taken
                    else (),
                )
            )
            if self._walk(p2, t2, t + 1, nxt, got + esc, plays):
                return True
            plays.pop()
        self.failed.add(key)
        return False


class _OutOfBudget(Exception):
    pass


@dataclass(frozen=True)
class Most:
    """The most escobas a side makes in a hand of a seating: `value` with a hand that makes
    them (`line`), proved the most when every larger count was searched to exhaustion
    (`proved`); `nodes` is the states the searches met."""

    players: int
    sides: int
    value: int
    line: Line | None
    proved: bool
    nodes: int
    reason: str = ""


@lru_cache(maxsize=64)
def most_escobas(
    rules: EscobaRules, players: int, sides: int, budget: int = 2_000_000, total: int | None = None
) -> Most:
    """The most escobas a side (side 0, with every dealer) can make in one hand: `budget` states
    for each search, `total` (None: no limit) for all of them, after which the most is not
    proved (a search that would run for hours under rules far from the kept hands' ends)."""
    best: tuple[int, Line] | None = None
    nodes = 0
    proved = True
    reason = ""
    games = [_Game(rules, players, sides, d, 0) for d in range(players)]
    top = 0
    for g in games:
        g0 = max(
            (s if g.dealer % g.sides == 0 else 0)
            + g.bound(
                tuple(a - b for a, b in zip(g.pack, tb, strict=True)),
                (0,) * len(tb) if s else tb,
                0,
            )
            for tb, s in g.openings()
        )
        top = max(top, g0)
    # from the largest count the bounds allow down: the first found is the most, if every
    # larger count was refuted by an exhausted search
    for n in range(top, -1, -1):
        found: Line | None = None
        # every dealer with a small budget first (a hand is often quick to find with one dealer
        # and slow with another), then those not yet decided with the whole budget
        pending = list(games)
        for spend in (budget // 64, budget):
            undecided: list[_Game] = []
            for g in pending:
                if total is not None and nodes >= total:
                    return Most(
                        players, sides, 0, None, False, nodes,
                        f"{n} escobas: the search's whole budget of {total:,} states spent",
                    )  # fmt: skip
                left = spend if total is None else min(spend, total - nodes)
                s = Search(g, n, n, left)
                out = s.run()
                nodes += s.nodes
                if isinstance(out, Line):
                    found = out
                    break
                if out == "budget":
                    undecided.append(g)
            if found is not None:
                break
            pending = undecided
        if found is None and pending:
            proved = False
            reason = f"{n} escobas: search budget of {budget} states spent"
        if found is not None:
            best = (n, found)
            break
    if best is None:
        return Most(players, sides, 0, None, False, nodes, reason or "no hand found")
    return Most(players, sides, best[0], best[1], proved, nodes, reason)


@dataclass(frozen=True)
class Witness:
    """A hand the engine played: the deck order, the plays (``card`` or ``card:taken+taken``),
    and what each side scored, by category."""

    players: int
    sides: int
    dealer: int
    order: tuple[str, ...]
    plays: tuple[str, ...]
    scores: tuple[int, ...]
    categories: tuple[Mapping[str, int], ...]
    escobas: int

    def transcript(self, rules: EscobaRules) -> list[dict[str, Any]]:
        """The hand as transcript lines (header, actions, the hand's scores), which `arbitro
        check` replays."""
        model = _engine()
        seating = seating_of(rules, self.players, self.sides)
        state: Any = model.new_game(rules, seating, self.dealer)
        state = model.deal(rules, state, [model.parse_card(x) for x in self.order])
        lines: list[dict[str, Any]] = [
            {
                "type": "header",
                "protocol": "arbitro/1",
                "rulebook": rules.rulebook,
                "options": {},
                "players": self.players,
                "sides": self.sides,
                "layout": seating.layout,
                "dealer": self.dealer,
                "deals": [list(self.order)],
            }
        ]
        for step, text in enumerate(self.plays, 1):
            card, _, taken = text.partition(":")
            seat = model.to_move(state)
            data = {"seat": seat, "card": card, "capture": taken.split("+") if taken else []}
            action = model.action_from_json(data)
            lines.append(
                {
                    "type": "action",
                    "step": step,
                    "hand": 0,
                    "seat": seat,
                    "action": model.action_to_json(action),
                }
            )
            state = model.apply(rules, state, action)
        lines.append(
            {
                "type": "hand",
                "hand": 0,
                "scores": list(self.scores),
                "categories": [dict(c) for c in self.categories],
            }
        )
        return lines


def _engine() -> Any:
    """The Escoba engine (the model users run)."""
    from arbitro.model.escoba import ESCOBA

    return ESCOBA


def seating_of(rules: EscobaRules, players: int, sides: int) -> Seating:
    """The engine's seating of `players` in `sides` sides."""
    for g in _engine().seatings(rules):
        if (g.players, g.sides) == (players, sides):
            return Seating(g.players, g.sides, g.layout)
    raise NotEncoded("seating", (players, sides))


class ReplayError(ValueError):
    """A proposed hand the engine refuses (the search and the engine disagree)."""


def concrete(
    rules: EscobaRules, line: Line, rng: random.Random | None = None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A deck order and plays by card names for a value-level hand; `rng` picks which card of
    each value plays where (None: the pack's order)."""
    vals = values(rules)
    have = present(rules)
    by_value: dict[int, list[int]] = {}
    for k in range(KINDS):
        if have[k]:
            by_value.setdefault(vals[k], []).append(k)
    if rng is not None:
        for cards in by_value.values():
            rng.shuffle(cards)
    nxt = {v: 0 for v in by_value}

    def take(v: int) -> int:
        k = by_value[v][nxt[v]]
        nxt[v] += 1
        return k

    table = [take(v) for v in line.table]
    tvals = sum(vals[k] for k in table)
    sweeps = {s.total for s in rules.opening_sweeps}
    on_table = [] if tvals in sweeps else list(table)
    order = turn_order(rules, line.players, line.dealer)
    first = line.players * rules.hand_size
    per_deal = line.players * rules.redeal_size
    held: list[dict[int, list[int]]] = []
    plays: list[str] = []
    for t, (v, taken) in enumerate(line.plays):
        deal = 0 if t < first else 1 + (t - first) // per_deal
        while len(held) <= deal:
            held.append({s: [] for s in range(line.players)})
        card = take(v)
        held[deal][order[t % line.players]].append(card)
        if taken:
            got: list[int] = []
            for w in taken:
                k = next(k for k in on_table if vals[k] == w and k not in got)
                got.append(k)
            for k in got:
                on_table.remove(k)
            plays.append(E.name(card) + ":" + "+".join(E.name(k) for k in sorted(got)))
        else:
            on_table.append(card)
            plays.append(E.name(card))
    deck: list[int] = []
    for d, hands in enumerate(held):
        size = rules.hand_size if d == 0 else rules.redeal_size
        for j in range(size):
            for s in order:
                deck.append(hands[s][j])
        if d == 0:
            deck += table
    return tuple(E.name(k) for k in deck), tuple(plays)


def replay(
    rules: EscobaRules, players: int, sides: int, dealer: int, order: Sequence[str],
    plays: Sequence[str],
) -> Witness:  # fmt: skip
    """Play a hand through the engine (`deal`, `legal_actions`, `apply`), every play checked
    legal; the engine's scores. ReplayError names the first play it refuses."""
    model = _engine()
    state: Any = model.new_game(rules, seating_of(rules, players, sides), dealer)
    state = model.deal(rules, state, [model.parse_card(x) for x in order])
    made = 0  # side 0's escobas as the engine's state counts them (not as its scoring does)
    for i, text in enumerate(plays):
        if model.phase(state) != "play":
            raise ReplayError(f"play {i + 1} ({text}): the hand is already over")
        card, _, taken = text.partition(":")
        seat = model.to_move(state)
        action = model.action_from_json(
            {"seat": seat, "card": card, "capture": taken.split("+") if taken else []}
        )
        if action not in model.legal_actions(rules, state):
            raise ReplayError(f"play {i + 1} ({text}) by seat {seat} is not legal")
        made = _escobas_after(rules, state, action, made)
        state = model.apply(rules, state, action)
    result = model.last_hand(state)
    if result is None:
        raise ReplayError("the plays do not finish the hand")
    return Witness(
        players, sides, dealer, tuple(order), tuple(plays), tuple(result.scores),
        tuple(dict(c) for c in result.categories), made,
    )  # fmt: skip


def _escobas_after(rules: EscobaRules, state: Any, action: Any, _: int) -> int:
    """Side 0's escobas once `action` is played from `state`: the engine's own count before it,
    and one more when it is a capture by side 0 that leaves the table bare (with *:rest-is-escoba,
    the hand's last play leaving a rest that side 0 takes counts one too)."""
    made = int(state.escobas[0])
    side = action.seat % state.sides
    mine = side == 0
    if action.capture and state.table == action.capture:
        return made + (1 if mine else 0)
    last = not any(state.hands[s] & ~(1 << action.card) for s in range(state.players))
    if rules.rest_is_escoba and last and not state.stock:
        taker = side if action.capture else state.last_capturer
        rest = state.table | (0 if action.capture else 1 << action.card)
        return made + (1 if taker == 0 and rest else 0)
    return made


def category_most(rules: EscobaRules) -> int:
    """The most a side scores in the categories other than escobas: each is won by one side at
    most, for its points. The optional rules that double a category are not encoded."""
    r = rules
    for key in ("variant_cards_double", "variant_oros_all", "variant_sevens_all"):
        if getattr(r, key):
            raise NotEncoded(key, True)
    return r.cards_points + r.oros_points + r.velo_points + r.setenta_points


@dataclass
class SeatingScores:
    """The hand scores of one seating: the most (`top`, proved when `most.proved`), and a
    witness for each score shown reachable."""

    players: int
    sides: int
    most: Most
    top: int
    witnesses: dict[int, Witness]

    @property
    def missing(self) -> list[int]:
        return [t for t in range(self.top + 1) if t not in self.witnesses]

    @property
    def exact(self) -> bool:
        return self.most.proved and not self.missing

    @property
    def label(self) -> str:
        return f"{self.players} players" + (" in teams" if self.sides < self.players else "")


def seating_scores(
    rules: EscobaRules, players: int, sides: int, *, seed: int = 0, tries: int = 20,
    rounds: int = 6, budget: int = 2_000_000, known: int | None = None,
    total: int | None = None,
) -> SeatingScores:  # fmt: skip
    """The most a side scores in a hand of the seating, and a replayed hand for every score from 0
    up to it that one is found for: hands with each count of escobas from the search, their
    cards' suits varied (`tries` times a count) to win more or fewer categories. With `known`, a
    most escobas proved elsewhere (on the guarded relation): no exhaustive search, only hands
    sought for each count up to it (20,000 states a count and dealer, a bounded time)."""
    most = (
        Most(players, sides, known, None, True, 0)
        if known is not None
        else most_escobas(rules, players, sides, budget, total)
    )
    top = category_most(rules) + rules.escoba_points * most.value
    got: dict[int, Witness] = {}
    rng = random.Random(seed)

    def keep(line: Line, pick: random.Random | None) -> None:
        order, plays = concrete(rules, line, pick)
        w = replay(rules, line.players, line.sides, line.dealer, order, plays)
        got.setdefault(w.scores[0], w)

    if most.line is not None:
        keep(most.line, None)
    games = [_Game(rules, players, sides, d, 0) for d in range(players)]
    for attempt in range(rounds):
        for n in range(most.value, -1, -1):
            for g in games:
                if all(t in got for t in range(top + 1)):
                    return SeatingScores(players, sides, most, top, dict(sorted(got.items())))
                if attempt and not any(
                    t - rules.escoba_points * n in range(category_most(rules) + 1)
                    for t in range(top + 1)
                    if t not in got
                ):
                    continue
                mix = 0 if attempt == 0 else 1 + attempt % 2
                out = Search(g, n, n, 20_000, rng if mix else None, mix).run()
                if isinstance(out, Line):
                    keep(out, None)
                    for _ in range(tries):
                        keep(out, rng)
    return SeatingScores(players, sides, most, top, dict(sorted(got.items())))


def reach(rules: EscobaRules, players: int, sides: int, budget: int = 20_000) -> dict[int, Witness]:
    """Hands of the seating with 0, 1, 2 … escobas, each count sought with `budget` states per
    dealer, up to the first count none is found for: where no kept hand replays (another
    capture sum), the counts the relation's proof of the most is then asked from."""
    got: dict[int, Witness] = {}
    games = [_Game(rules, players, sides, d, 0) for d in range(players)]
    n = 0
    while True:
        line = next(
            (x for g in games if isinstance(x := Search(g, n, n, budget).run(), Line)), None
        )
        if line is None:
            return got
        order, plays = concrete(rules, line)
        w = replay(rules, line.players, line.sides, line.dealer, order, plays)
        got.setdefault(w.scores[0], w)
        n += 1


WITNESSES = Path(__file__).with_name("hand_score_witnesses.json")
NAME = "hand-scores"


def stored(rulebook: str, other: bool = False) -> list[Witness]:
    """The hands kept in `hand_score_witnesses.json` for a rulebook (none if the file is
    missing); with `other`, those kept for another (to be tried under the rules at hand: a spec
    of one's own, a book renamed)."""
    if not WITNESSES.is_file():
        return []
    data = json.loads(WITNESSES.read_text(encoding="utf-8"))
    if (data.get("rulebook") == rulebook) == other:
        return []
    return [
        Witness(
            int(h["players"]),
            int(h["sides"]),
            int(h["dealer"]),
            tuple(h["order"].split()),
            tuple(h["plays"].split()),
            (int(h["score"]),),
            ({},),
            -1,
        )
        for h in data["hands"]
    ]


def directed(rules: EscobaRules, seating: Seating) -> list[tuple[int, list[int], list[Any]]]:
    """The kept hands of a seating for `prove --refine` to walk: (dealer, deck order, every
    play as the engine's action JSON). Hands the engine refuses are left to the walk to report:
    their plays are read without checking them."""
    model = _engine()
    out: list[tuple[int, list[int], list[Any]]] = []
    for w in stored(rules.rulebook):
        if (w.players, w.sides) != (seating.players, seating.sides):
            continue
        order = [model.parse_card(x) for x in w.order]
        state: Any = model.deal(rules, model.new_game(rules, seating, w.dealer), order)
        acts: list[Any] = []
        for text in w.plays:
            if model.phase(state) != "play":
                break
            card, _, taken = text.partition(":")
            act = {"seat": model.to_move(state), "card": card,
                   "capture": taken.split("+") if taken else []}  # fmt: skip
            acts.append(act)
            action = model.action_from_json(act)
            if action not in model.legal_actions(rules, state):
                break
            state = model.apply(rules, state, action)
        out.append((w.dealer, order, acts))
    return out


def seatings_of(rules: EscobaRules) -> list[tuple[int, int]]:
    """The rules' seatings as (players, sides)."""
    return [(n, n) for n in rules.player_counts] + [(n, 2) for n in rules.team_player_counts]


SEARCH_TOTAL = 3_000_000
"""States the exhaustive search for the most escobas (`hand-scores`) may visit per seating, over
all its counts and dealers: the book's seatings need about 40,000 each; rules far from the kept
hands' (another capture sum) would take hours, and end `UNKNOWN` (the most not proved)."""


@dataclass
class Exact:
    """One seating's hand scores: the kept (and found) hands the engine replays, by score; the
    most escobas they make; the bound the guarded relation proves (`escobas.most`); and what
    that makes of the set."""

    players: int
    sides: int
    shown: dict[int, Witness]
    reached: int
    most: E_.Most
    """The bound: proved on the guarded relation (`solver`), or the search's (no checks)."""
    solver: bool
    top: int | None
    beyond: Witness | None
    problems: list[str]

    @property
    def label(self) -> str:
        return f"{self.players} players" + (" in teams" if self.sides < self.players else "")

    @property
    def missing(self) -> list[int]:
        return [] if self.top is None else [t for t in range(self.top + 1) if t not in self.shown]

    @property
    def reach(self) -> list[int]:
        return sorted(t for t in self.shown if self.top is None or t <= self.top)


def exact(
    rules: EscobaRules, players: int, sides: int, timeout: float, *, search: bool | None = None,
    relation: EscobaRules | None = None, solver: bool = True,
) -> Exact:  # fmt: skip
    """The hands of the seating replayed in the engine under `rules` (a score up to the most that
    the kept hands do not show is searched for: `search` None, when one is missing; False,
    never), and the most escobas proved on the guarded relation built from `relation` (default:
    `rules`; a test breaks one rule of the relation alone, the engine playing the book) — with
    `solver` False, the most escobas of the exhaustive search instead (`most_escobas`, about a
    seventh of the CPU). Without `relation`, once per process for the same rules, question and
    engine (score-bounds and most-escobas ask it alike: `escobas.shared`)."""
    if relation is None:
        return E_.shared(_exact, rules, players, sides, timeout, search, solver, _engine)
    return _exact(rules, players, sides, timeout, search, solver, _engine, relation)


def _exact(
    rules: EscobaRules, players: int, sides: int, timeout: float, search: bool | None,
    solver: bool, engine: object, relation: EscobaRules | None = None,
) -> Exact:  # fmt: skip
    """`exact`'s work; `engine` is the engine it replays through (a key only: `_engine`)."""
    rel = relation or rules
    shown: dict[int, Witness] = {}
    problems: list[str] = []
    own = stored(rules.rulebook)
    for h in own or stored(rules.rulebook, other=True):
        if (h.players, h.sides) != (players, sides):
            continue
        try:
            w = replay(rules, players, sides, h.dealer, h.order, h.plays)
        except (ReplayError, ValueError) as e:
            if own:  # another book's hands are only tried: one the rules refuse is no problem
                problems.append(str(e))
            continue
        shown.setdefault(w.scores[0], w)
    if solver and not shown and search is not False:
        # nothing kept replays (a changed capture sum): the counts reached are found first, so
        # that the relation is asked for its most from there, not from nothing up
        shown.update(reach(rules, players, sides))
    reached = max((w.escobas for w in shown.values()), default=0)
    cats = category_most(rel)

    def bound() -> tuple[E_.Most, int | None]:
        if solver:
            m = E_.cached_most(rel, players, sides, reached, timeout)
        else:
            s = E_.shared(most_escobas, rel, players, sides, 2_000_000, SEARCH_TOTAL)
            m = E_.Most(players, sides, reached, s.value if s.proved else None, ())
        return m, (None if m.bound is None else cats + rel.escoba_points * m.bound)

    most, top = bound()
    if search or (
        search is None and top is not None and any(t not in shown for t in range(top + 1))
    ):
        # only hands are sought, for each count up to the most already bounded (on the relation,
        # or by the exhaustive search): a bounded time
        known = most.bound if most.bound is not None else reached
        found = seating_scores(rules, players, sides, known=known)
        for t, w in found.witnesses.items():
            shown.setdefault(t, w)
        if max((w.escobas for w in shown.values()), default=0) > reached:
            reached = max(w.escobas for w in shown.values())
            most, top = bound()
    beyond = None
    if top is not None:
        beyond = next((w for t, w in sorted(shown.items()) if t > top), None)
    return Exact(players, sides, shown, reached, most, solver, top, beyond, problems)


def run(
    rules: EscobaRules, timeout: float, *, search: bool | None = None,
    relation: EscobaRules | None = None, solver: bool = False,
) -> Result:  # fmt: skip
    """Property `hand-scores` (and, with `solver`, `most-escobas`): for every seating, the exact
    set of a side's hand scores: the most escobas from the exhaustive search, or with `solver`
    unsat above on the guarded relation (`escobas.py`: the inductive invariant ESC and the steps
    that end a hand); every score up to the most played by a hand the engine replays. See
    `exact` for `search` and `relation`."""
    started = time.perf_counter()
    checks: list[Check] = []
    sets: dict[str, list[int]] = {}
    parts: list[str] = []
    for players, sides in seatings_of(rules):
        t0 = time.perf_counter()
        x = exact(rules, players, sides, timeout, search=search, relation=relation, solver=solver)
        checks.append(seating_check(x, time.perf_counter() - t0))
        sets[x.label] = x.reach
        parts.append(part_text(x, checks[-1].verdict))
    how = (
        "unsat on the guarded relation"
        if solver
        else "by an exhausted search over the relation's plays (unsat on the relation: "
        "--property most-escobas)"
    )
    return Result(
        "most-escobas" if solver else NAME,
        rules.rulebook,
        {},
        f"for every seating, the exact set of a side's hand scores: no score above the most, {how}"
        ", and each score up to it played by a hand the engine replays",
        tuple(checks),
        "exact: " + ", ".join(parts)
        if all(c.verdict is Verdict.PROVED for c in checks)
        else "; ".join(parts),
        time.perf_counter() - started,
        values={"scores": sets},
    )


def part_text(x: Exact, verdict: Verdict) -> str:
    if verdict is Verdict.PROVED:
        return f"{x.label} 0-{x.top}"
    b = x.most.bound
    if x.top is None or b is None:
        return f"{x.label}: no bound proved, hands reach {max(x.shown, default=0)}"
    gap = f" (the hands make {x.reached} escobas, {b} not excluded)" if b != x.reached else ""
    return (
        f"{x.label}: at most {x.top}{gap}, not all shown"
        if x.missing
        else f"{x.label}: at most {x.top}{gap}"
    )


def seating_check(x: Exact, seconds: float) -> Check:
    """One seating's verdict: REFUTED when a step of the relation breaks ESC (its witness) or a
    hand the engine replays scores above the relation's most; PROVED when the most is the one
    the hands reach and every score up to it is shown; UNKNOWN otherwise (what is missing)."""
    m = x.most
    label = x.label
    name = f"scores/{x.players}" + ("t" if x.sides < x.players else "")
    bound_text = f"{m.bound}" if m.bound is not None else "?"
    how = (
        f"unsat on the guarded relation, from the invariant ESC proved inductive over its "
        f"{len(m.checks)} checks"
        if x.solver
        else "an exhausted search over the relation's plays"
    )
    statement = (
        f"{label}: a side's hand score is exactly 0 to {x.top if x.top is not None else '?'}: "
        f"no side ends a hand with more than {bound_text} escobas ({how}), and every score up "
        "to it is played by a hand the engine replays"
    )
    data: dict[str, Any] = {
        "most_escobas": m.bound, "reached_escobas": x.reached, "top": x.top,
        "scores": x.reach, "relation_checks": len(m.checks),
    }  # fmt: skip
    broken = next((c for c in m.checks if c.verdict is Verdict.REFUTED), None)
    if broken is not None:
        return Check(
            name, statement, Verdict.REFUTED, seconds, witness=broken.witness,
            reason=f"{broken.name}: {broken.statement}", values=data,
        )  # fmt: skip
    if x.beyond is not None:
        b = x.beyond
        wit = Witness_(
            f"{label}: the engine scores {b.scores[0]} for side 0, above the {x.top} the "
            f"relation allows ({m.bound} escobas at most)",
            {"dealer": b.dealer, "order": " ".join(b.order),
             "plays": " ".join(b.plays), "scores": list(b.scores)},
        )  # fmt: skip
        return Check(name, statement, Verdict.REFUTED, seconds, witness=wit, values=data)
    if (
        x.top is None
        or m.bound != x.reached
        or x.missing
        or not m.inductive
        or (not x.solver and m.bound is None)
    ):
        why = [c.reason for c in m.checks if c.verdict is not Verdict.PROVED and c.reason]
        reason = "; ".join(
            r
            for r in (
                why[0] if why else "",
                f"the relation's bound {m.bound} is above the {x.reached} escobas the hands make"
                if m.bound is not None and m.bound != x.reached
                else "",
                f"no hand found scoring {', '.join(map(str, x.missing))}" if x.missing else "",
                f"{len(x.problems)} kept hands do not replay: {x.problems[0]}"
                if x.problems
                else "",
            )
            if r
        )
        return Check(name, statement, Verdict.UNKNOWN, seconds, reason=reason, values=data)
    assert x.top is not None
    w = x.shown[x.top]
    wit = Witness_(
        f"{label}: 0 to {x.top}; {x.top} by dealer {w.dealer}'s hand {' '.join(w.order)}",
        {"dealer": w.dealer, "order": " ".join(w.order), "plays": " ".join(w.plays)},
    )
    return Check(name, statement, Verdict.PROVED, seconds, witness=wit, values=data)


def generate(rules: EscobaRules, seed: int = 0) -> dict[str, Any]:
    """Witnesses for every seating's scores, found by `seating_scores` and replayed."""
    hands: list[dict[str, Any]] = []
    for players, sides in seatings_of(rules):
        s = seating_scores(rules, players, sides, seed=seed)
        for t, w in s.witnesses.items():
            hands.append(
                {
                    "players": players,
                    "sides": sides,
                    "dealer": w.dealer,
                    "score": t,
                    "order": " ".join(w.order),
                    "plays": " ".join(w.plays),
                }
            )
    return {
        "about": (
            "Escoba hands scoring each hand score a side can make, per seating (side 0's score); "
            "found by arbitro.proofs.escoba.hand_scores (regenerate with: uv run python -m "
            "arbitro.proofs.escoba.hand_scores), each replayed through the engine before it counts"
        ),
        "rulebook": rules.rulebook,
        "hands": hands,
    }


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="find and keep hands for every Escoba hand score")
    p.add_argument("--rulebook", default="escoba-es")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    rules = rules_for(args.rulebook)
    if not isinstance(rules, EscobaRules):
        sys.stderr.write(f"{args.rulebook} is not an Escoba rulebook\n")
        return 2
    data = generate(rules, args.seed)
    WITNESSES.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(f"{WITNESSES}: {len(data['hands'])} hands\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
