"""The state-graph explorer: every state of a hand reachable from a deal, through the engine itself.

From a seeded deal of a configuration (see `explore_config`) the explorer lists every state the
rules allow until the hand is over, breadth first, calling only the `GameModel` protocol:
`legal_actions` and `apply` for the edges, `violations` on every state (every whole-state check of
the model), `clauses_used` on every edge and on the deal, and `refusals` on near-miss plays (each
legal play made by the next seat, and each capture left untaken) so that clauses which only ever
refuse are seen too. It counts states, edges, terminal states (the hand over) and depth exactly,
finds deadlocks (a hand not over with no legal action) with a shortest path from the deal, lists
the clauses of the book no transition or refusal used, and gives the exact distribution of the
hand's scores over the terminal states.

Symmetry: where the rules treat suits alike, states that differ only by renaming those suits are
one state up to symmetry (`Symmetry`). With it the explorer walks the orbits: from a deal D it
covers every state reachable from any renamed deal σ(D), counts each orbit by its size, and so
reports exactly the same totals and score distribution as walking all those deals one by one
(the tests check this), with fewer states visited; the reduction factor is states / orbits.

Deals are independent: a list of deals is explored one by one, or fanned out over processes or a
cluster with Dask distributed (`explore_deals`), and merged in deal order, so the result is the
same however it was computed.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import itertools
import json
import random
import time
from array import array
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from arbitro.model.errors import ArbitroError, IllegalAction
from arbitro.model.escoba.state import EscobaState
from arbitro.model.family import family_holding
from arbitro.model.game import Game, GameModel
from arbitro.model.schema import Rules
from arbitro.proofs.cluster import dask_client, run_tasks
from arbitro.proofs.explore_config import Config, model_of

R = TypeVar("R")
S = TypeVar("S", bound=Hashable)
A = TypeVar("A", bound=Hashable)


class ExploreError(ArbitroError, ValueError):
    """An exploration that cannot be made as asked (a limit, a missing optional package)."""


# ---------------------------------------------------------------- symmetry


@dataclass(frozen=True)
class Symmetry:
    """Renamings of suits the rules treat alike, acting on the JSON of states and actions.

    Escoba: the first suit (oros) is scored on its own (most coins, the seven of coins), the others
    only through counts and the setenta, which compare suits without naming them: so every
    permutation of the other suits. Samba and Canasta have none here (see the docs).
    """

    letters: tuple[str, ...]  # the suit letters that may be permuted among themselves
    perms: tuple[dict[str, str], ...]  # every renaming, the identity first

    @staticmethod
    def of(config: Config) -> Symmetry:
        rules = config.rules
        if not hasattr(rules, "ranks"):
            return Symmetry((), ({},))
        from arbitro.model.escoba.cards import SUIT_LETTERS, SUIT_NAMES

        alike = tuple(SUIT_LETTERS[SUIT_NAMES.index(s)] for s in rules.suits[1:])
        perms = tuple(
            {a: b for a, b in zip(alike, p, strict=True) if a != b}
            for p in itertools.permutations(alike)
        )
        return Symmetry(alike, perms)

    def rename(
        self, obj: Any, perm: dict[str, str], order: Callable[[str], int], key: str = ""
    ) -> Any:
        """The JSON value with every card name's suit renamed; piles (every list of cards but the
        stock, whose order is the deal's) sorted again by ``order``, the card's number."""
        if not perm:
            return obj
        if isinstance(obj, str):
            if len(obj) == 2 and obj[1] in perm:
                return obj[0] + perm[obj[1]]
            return obj
        if isinstance(obj, list):
            out = [self.rename(x, perm, order) for x in obj]
            if key != "stock" and out and all(isinstance(x, str) for x in out):
                out.sort(key=order)
            return out
        if isinstance(obj, dict):
            return {k: self.rename(v, perm, order, k) for k, v in obj.items()}
        return obj


# ---------------------------------------------------------------- results


@dataclass
class Result:
    """What exploring one or more deals found; deals merge by adding (see `merge`)."""

    config: str
    deals: list[int] = field(default_factory=list)
    states: int = 0  # distinct states (with symmetry: the states the orbits hold)
    orbits: int = 0  # with symmetry: distinct states up to renaming (else equal to states)
    edges: int = 0
    terminal: int = 0
    depth: int = 0
    per_depth: list[int] = field(default_factory=list)
    deadlocks: list[dict[str, Any]] = field(default_factory=list)
    deadlock_count: int = 0
    violations: Counter[str] = field(default_factory=Counter)
    violation_examples: list[dict[str, Any]] = field(default_factory=list)
    clauses: set[str] = field(default_factory=set)
    scores: Counter[tuple[int, ...]] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    truncated: bool = False
    seconds: float = 0.0  # wall time
    walk_seconds: float = 0.0  # wall time spent walking, summed over deals (one core each)
    cpu_seconds: float = 0.0  # CPU time spent walking (`time.process_time`), summed over deals
    symmetry: bool = False
    clauses_known: bool = True  # False: the model does not say which clauses a move used
    # one deal split over partitions (see partition.py): what each held and sent
    partitions: list[dict[str, Any]] = field(default_factory=list)
    interrupted: bool = False  # stopped by Ctrl-C: the deals (or levels) finished so far

    def merge(self, other: Result) -> None:
        self.deals += other.deals
        self.states += other.states
        self.orbits += other.orbits
        self.edges += other.edges
        self.terminal += other.terminal
        self.depth = max(self.depth, other.depth)
        n = max(len(self.per_depth), len(other.per_depth))
        self.per_depth = [
            (self.per_depth[i] if i < len(self.per_depth) else 0)
            + (other.per_depth[i] if i < len(other.per_depth) else 0)
            for i in range(n)
        ]
        self.deadlocks += other.deadlocks
        self.deadlock_count += other.deadlock_count
        self.violations.update(other.violations)
        self.violation_examples += other.violation_examples[
            : max(0, 5 - len(self.violation_examples))
        ]
        self.clauses |= other.clauses
        self.clauses_known = self.clauses_known and other.clauses_known
        self.scores.update(other.scores)
        self.outcomes.update(other.outcomes)
        self.truncated = self.truncated or other.truncated
        self.seconds += other.seconds
        self.walk_seconds += other.walk_seconds
        self.cpu_seconds += other.cpu_seconds
        self.partitions += other.partitions
        self.interrupted = self.interrupted or other.interrupted

    def unexercised(self, book_clauses: Iterable[str]) -> list[str]:
        return sorted(set(book_clauses) - self.clauses)

    def to_json(self, book_clauses: Iterable[str]) -> dict[str, Any]:
        return {
            "config": self.config,
            "deals": self.deals,
            "states": self.states,
            "orbits": self.orbits,
            "reduction": round(self.states / self.orbits, 3) if self.orbits else 1.0,
            "symmetry": self.symmetry,
            "edges": self.edges,
            "terminal": self.terminal,
            "depth": self.depth,
            "states_per_depth": self.per_depth,
            "deadlocks": self.deadlock_count,
            "deadlock_witnesses": self.deadlocks,
            "violations": dict(sorted(self.violations.items())),
            "violation_examples": self.violation_examples,
            "unexercised_clauses": self.unexercised(book_clauses) if self.clauses_known else None,
            "score_distribution": [
                {"scores": list(k), "terminal_states": v} for k, v in sorted(self.scores.items())
            ],
            "outcomes": dict(sorted(self.outcomes.items())),
            "exhausted": not self.truncated and not self.interrupted,
            "interrupted": self.interrupted,
            "seconds": round(self.seconds, 3),
            "walk_seconds": round(self.walk_seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
            # speeds of the walk, CPU and wall apart; orbits walked and the states they stand
            # for apart (equal without symmetry)
            "orbits_per_cpu_second": _rate(self.orbits, self.cpu_seconds),
            "states_per_cpu_second": _rate(self.states, self.cpu_seconds),
            "orbits_per_second": _rate(self.orbits, self.walk_seconds),
            "states_per_second": _rate(self.states, self.walk_seconds),
        } | (
            {"partitions": self.partitions, "exchange": _exchange(self.partitions)}
            if self.partitions
            else {}
        )


def _exchange(partitions: list[dict[str, Any]]) -> dict[str, int]:
    """What crossed between partitions: successors sent to another partition, and their bytes."""
    return {
        "states": sum(p["sent_states"] for p in partitions),
        "bytes": sum(p["sent_bytes"] for p in partitions),
    }


def _rate(count: int, seconds: float) -> int | None:
    return round(count / seconds) if seconds else None


# ---------------------------------------------------------------- one deal


def deal_order(model: GameModel, config: Config, seed: int) -> list[int]:
    """The deck order of deal ``seed``: the deck shuffled by ``random.Random(seed)``."""
    order = list(model.deck(config.rules, config.seating))
    random.Random(seed).shuffle(order)
    return order


def _outcome(scores: tuple[int, ...]) -> str:
    best = max(scores)
    return f"side {scores.index(best)}" if scores.count(best) == 1 else "tie"


def _probes(model: Game[R, S, A], rules: R, state: S, actions: Sequence[A]) -> list[A]:
    """Near-miss plays: the first legal action made by the next seat instead, and each card's
    first capture left untaken (laid instead)."""
    out: list[A] = []
    players = getattr(getattr(state, "seating", None), "players", 0)
    cards: set[str] = set()
    for n, a in enumerate(actions):
        j = model.action_to_json(a)
        variants = []
        if n == 0 and players and "seat" in j:
            variants.append({**j, "seat": (j["seat"] + 1) % players})
        if j.get("capture") and j.get("card") not in cards:
            cards.add(j["card"])
            variants.append({**j, "capture": []})
        for v in variants:
            with contextlib.suppress(ArbitroError):
                out.append(model.action_from_json(v))
    return out


def explore_deal(
    config: Config,
    seed: int,
    *,
    max_states: int | None = None,
    symmetry: bool = False,
    graph: dict[str, Any] | None = None,
    model: GameModel | None = None,
    levels: Callable[[int, int], None] | None = None,
) -> Result:
    """Every state of the hand dealt from deal ``seed``; ``graph`` (when given) receives the nodes
    and edges for pictures and export; ``levels`` (when given) is told the depth walked and the
    states reached after each level. ``config.rules`` are the rules played (a test may hand in
    deliberately broken ones with `dataclasses.replace`), and ``model`` the engine that plays them
    (by default the rulebook's)."""
    # the walk makes no reference cycles (states are tuples of numbers), while the cyclic
    # collector would go through every state kept, again and again, as their number grows
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _explore_deal(config, seed, max_states, symmetry, graph, model, levels)
    finally:
        if enabled:
            gc.enable()


def _explore_deal(
    config: Config,
    seed: int,
    max_states: int | None,
    symmetry: bool,
    graph: dict[str, Any] | None,
    model: GameModel | None,
    levels: Callable[[int, int], None] | None = None,
) -> Result:
    model = model or model_of(config)
    rules = config.rules
    started = time.perf_counter()
    cpu_started = time.process_time()
    res = Result(config.name, [seed], symmetry=symmetry)
    sym = Symmetry.of(config) if symmetry else Symmetry((), ({},))
    before = model.new_game(rules, config.seating)
    order = deal_order(model, config, seed)
    root = model.deal(rules, before, order)
    used = getattr(model, "clauses_used", None)  # a model may not name its clauses yet
    res.clauses_known = used is not None
    # a model may say what decides `clauses_used` of a play (its clauses_key): each key's clauses
    # are asked for once; and which clauses its refusals can name in a state: once all of them
    # are among the clauses found, near-miss probes cannot add one and are skipped
    keyed = getattr(model, "clauses_key", None) if used is not None else None
    keys_seen: set[Hashable] = set()
    refusable = getattr(model, "refusal_clauses", None)
    if used is not None:
        with contextlib.suppress(ArbitroError, TypeError):  # silent on a deal's clauses
            res.clauses |= used(rules, before, order)

    canon = canonizer(model, rules, sym, root)
    start, size = canon(root)
    index: dict[Hashable, int] = {start: 0}
    # by state index: the index of the state it was first reached from, the number of the action
    # taken there (its place in legal_actions), the orbit's size and the depth
    parents = array("q", [-1])
    via = array("q", [-1])
    weights = array("q", [size])
    depth_of = array("q", [0])
    # a model may number its states' progress (`progress`: one more after every transition). Then
    # a state of one depth is never met at another, and the states of a layer need not be kept
    # once the next layer is made: only the layer being reached is hashed. Checked on every state.
    progress = getattr(model, "progress", None)
    layered = progress is not None and graph is None
    progress_root = progress(start) if progress is not None else 0
    frontier = [start]
    depth = 0
    nodes: list[Any] = [start] if graph is not None else []
    # the loop below runs once per edge: the model's calls bound once, and without symmetry no
    # canonical form to ask for (every state is its own orbit, of size 1)
    reduced = len(sym.perms) > 1
    legal_actions = model.legal_actions
    apply = model.apply
    violations = model.violations
    phase = model.phase
    edges = 0
    base = 0  # a layer's states have consecutive indices from here, in frontier order
    covered: Any = None  # a refusal_clauses answer already all among the clauses found
    # Ctrl-C stops the walk where it is: the states reached so far are counted, marked
    # interrupted (the arrays cut to the states whose every entry was written)
    try:
        while frontier:
            if len(res.per_depth) <= depth:
                res.per_depth.append(0)
            nxt: list[Any] = []
            next_base = len(via)
            if layered:
                index = {}
            for i, state in enumerate(frontier, base):
                w = weights[i]
                res.per_depth[depth] += w
                if progress is not None and progress(state) != progress_root + depth:
                    raise ExploreError(
                        f"the model's progress of a state at depth {depth} is {progress(state)}, not"
                        f" {progress_root + depth}: it must grow by one with every transition"
                    )
                broken = violations(rules, state)
                if broken:
                    res.violations.update(broken)
                    if len(res.violation_examples) < 5:
                        res.violation_examples.append(
                            {"clauses": broken, "state": model.state_to_json(state)}
                        )
                if phase(state) != "play":
                    res.terminal += w
                    result = model.last_hand(state)
                    if result is not None:
                        res.scores[tuple(result.scores)] += w
                        res.outcomes[_outcome(tuple(result.scores))] += w
                    continue
                actions = legal_actions(rules, state)
                if not actions:
                    res.deadlock_count += w
                    res.deadlocks.append({"index": i})
                    continue
                named = refusable(rules, state) if refusable is not None else None
                if named is None or (named is not covered and not named <= res.clauses):
                    for probe in _probes(model, rules, state, actions):
                        with contextlib.suppress(ArbitroError):
                            res.clauses.update(
                                e.clause for e in model.refusals(rules, state, probe)
                            )
                elif named is not covered:
                    covered = named  # the clauses found only grow: it stays covered
                edges += w * len(actions)
                for k, a in enumerate(actions):
                    child = apply(rules, state, a)
                    if keyed is not None:
                        key = keyed(rules, state, a, child)
                        if key not in keys_seen:
                            keys_seen.add(key)
                            res.clauses |= used(rules, state, a)  # type: ignore[misc]
                    elif used is not None:
                        res.clauses |= used(rules, state, a)
                    if reduced:
                        rep, size = canon(child)
                    else:
                        rep = child
                        size = 1
                    n = len(via)
                    if max_states is None or n < max_states:
                        # one hash of the state whether it is new or not
                        j = index.setdefault(rep, n)
                    else:
                        j = index.get(rep, n)
                        if j == n:
                            res.truncated = True
                            continue
                    if j == n:
                        parents.append(i)
                        via.append(k)
                        weights.append(size)
                        depth_of.append(depth + 1)
                        nxt.append(rep)
                        if graph is not None:
                            nodes.append(rep)
                    if graph is not None:
                        graph.setdefault("edges", []).append((i, j, model.action_to_json(a)))
            frontier = nxt
            base = next_base
            depth += 1
            if levels is not None:
                levels(depth, sum(res.per_depth))
    except KeyboardInterrupt:
        res.interrupted = True
        whole = min(len(parents), len(via), len(weights), len(depth_of))
        for arr in (parents, via, weights, depth_of):
            del arr[whole:]
    res.edges = edges
    res.orbits = len(via)
    res.states = sum(weights)
    res.depth = max(depth_of)
    if res.deadlocks:
        res.deadlocks = _witnesses(model, config, rules, seed, order, res, (parents, via), symmetry)
    if graph is not None:
        graph["nodes"] = [
            {
                "depth": depth_of[k],
                "phase": model.phase(s),
                "scores": list(r.scores) if (r := model.last_hand(s)) is not None else None,
                "state": model.state_to_json(s),
            }
            for k, s in enumerate(nodes)
        ]
    res.seconds = res.walk_seconds = time.perf_counter() - started
    res.cpu_seconds = time.process_time() - cpu_started
    return res


def canonizer(
    model: Game[R, S, A], rules: R, sym: Symmetry, root: Hashable
) -> Callable[[Any], tuple[Any, int]]:
    """The orbit's representative of a state and the orbit's size, under the renamings of `sym`:
    the least renaming of its JSON, or a family's own faster renaming of its states (the same
    result) where it has one (`FAST_CANON`)."""
    if len(sym.perms) == 1:
        return lambda state: (state, 1)
    family = family_holding(root)
    fast = FAST_CANON.get(family.name) if family is not None else None
    if fast is not None:
        return fast(sym)

    def canon(state: Any) -> tuple[Any, int]:
        data = model.state_to_json(state)
        images = set()
        for perm in sym.perms:
            renamed = model.state_from_json(rules, sym.rename(data, perm, model.parse_card))
            images.add(json.dumps(model.state_to_json(renamed), sort_keys=True))
        first = min(images)
        return model.state_from_json(rules, json.loads(first)), len(images)

    return canon


def _escoba_renamings(sym: Symmetry) -> list[tuple[tuple[int, ...], dict[int, int]]]:
    """Each renaming as suit numbers: (the new suit of each suit, card -> renamed card)."""
    from arbitro.model.escoba.cards import RANKS, SUIT_LETTERS

    out = []
    for perm in sym.perms:
        suits = tuple(SUIT_LETTERS.index(perm.get(x, x)) for x in SUIT_LETTERS)
        cards = {c: suits[c // RANKS] * RANKS + c % RANKS for c in range(len(suits) * RANKS)}
        out.append((suits, cards))
    return out


def _escoba_canon(
    state: EscobaState, renamings: list[tuple[tuple[int, ...], dict[int, int]]]
) -> tuple[EscobaState, int]:
    """The least renaming of an Escoba state (compared as its piles and stock) and the orbit size;
    the same as renaming its JSON, done on the masks."""

    def mask(m: int, suits: tuple[int, ...]) -> int:
        return sum(((m >> 10 * s) & 1023) << 10 * t for s, t in enumerate(suits))

    images = {}
    for suits, cards in renamings:
        image = state._replace(
            hands=tuple(mask(h, suits) for h in state.hands),
            table=mask(state.table, suits),
            stock=tuple(cards[c] for c in state.stock),
            piles=tuple(mask(p, suits) for p in state.piles),
        )
        images[(image.hands, image.table, image.stock, image.piles)] = image
    return images[min(images)], len(images)


def _escoba_fast_canon(sym: Symmetry) -> Callable[[EscobaState], tuple[EscobaState, int]]:
    renamings = _escoba_renamings(sym)
    return lambda state: _escoba_canon(state, renamings)


FAST_CANON: dict[str, Callable[[Symmetry], Callable[[Any], tuple[Any, int]]]] = {
    "escoba": _escoba_fast_canon,
}
"""A family's (`GameFamily.name`) own renaming of its states, done on its packed fields."""


def _witnesses(
    model: Game[R, S, A],
    config: Config,
    rules: R,
    seed: int,
    order: list[int],
    res: Result,
    parents: tuple[array[int], array[int]],
    symmetry: bool,
) -> list[dict[str, Any]]:
    """A shortest path from the deal to each deadlock (at most five), as transcript lines."""
    if symmetry:
        # the orbit walk's paths run through renamed deals: find real ones without renaming
        plain = explore_deal(config, seed, model=model)
        return plain.deadlocks
    out = []
    up, via = parents
    for d in res.deadlocks[:5]:
        numbers = []
        k = d["index"]
        while up[k] >= 0:
            numbers.append(via[k])
            k = up[k]
        # the path's actions by their numbers, replayed from the deal
        state = model.deal(rules, model.new_game(rules, config.seating), order)
        path = []
        for number in reversed(numbers):
            a = model.legal_actions(rules, state)[number]
            path.append(a)
            state = model.apply(rules, state, a)
        out.append(witness(model, config, order, path))
    return out


def witness(model: GameModel, config: Config, order: list[int], path: list[Any]) -> dict[str, Any]:
    """A deadlock's path as transcript lines (header, actions) for the configuration's rules."""
    header = {
        "type": "header",
        "protocol": "arbitro/1",
        "rulebook": config.rulebook,
        "config": config.name,
        "options": dict(config.options),
        "players": config.seating.players,
        "sides": config.seating.sides,
        "layout": config.seating.layout,
        "dealer": 0,
        "deals": [[model.card_name(c) for c in order]],
    }
    lines = [header]
    state = model.deal(config.rules, model.new_game(config.rules, config.seating), order)
    for step, a in enumerate(path, 1):
        lines.append(
            {
                "type": "action",
                "step": step,
                "hand": 0,
                "seat": model.to_move(state),
                "action": model.action_to_json(a),
            }
        )
        state = model.apply(config.rules, state, a)
    return {"steps": len(path), "transcript": lines, "state": model.state_to_json(state)}


# ---------------------------------------------------------------- many deals


def explore_deals(
    config: Config,
    seeds: Sequence[int],
    *,
    max_states: int | None = None,
    symmetry: bool = False,
    scheduler: str | None = None,
    workers: int = 0,
    progress: Callable[[int, int], None] | None = None,
    levels: Callable[[int, int], None] | None = None,
) -> Result:
    """Every deal of ``seeds`` explored and merged in seed order.

    ``workers`` > 0 starts a local Dask cluster of that many single-threaded processes;
    ``scheduler`` connects to a running Dask scheduler instead. One deal is then split over the
    workers, its states partitioned by hash (`arbitro.proofs.partition`); several deals are one
    task each. Either way the result is the same as exploring them one after another in one
    process. Interrupted (Ctrl-C), the deals finished so far are returned, marked interrupted.
    ``progress`` is told (deals done, deals) after each deal; ``levels``, when one deal is split,
    what `explore_deal`'s is told after each level.
    """
    total = Result(config.name, symmetry=symmetry)
    started = time.perf_counter()
    try:
        if not scheduler and workers <= 0:
            for n, seed in enumerate(seeds, 1):
                total.merge(explore_deal(config, seed, max_states=max_states, symmetry=symmetry))
                if progress is not None:
                    progress(n, len(seeds))
        else:
            with dask_client(scheduler, workers) as client:
                if len(seeds) == 1:
                    from arbitro.proofs.partition import DaskRunner, explore_partitioned

                    runner = DaskRunner(client)
                    one = explore_partitioned(
                        config, seeds[0], runner, max_states=max_states, symmetry=symmetry,
                        progress=levels,
                    )  # fmt: skip
                    total.merge(one)
                else:
                    _fan_out(client, config, seeds, max_states, symmetry, progress, total)
    except KeyboardInterrupt:
        total.interrupted = True
    total.seconds = time.perf_counter() - started
    return total


def _task(config: Config, seed: int, max_states: int | None, symmetry: bool) -> Result:
    """One deal, in a worker."""
    return explore_deal(config, seed, max_states=max_states, symmetry=symmetry)


def _fan_out(
    client: Any,
    config: Config,
    seeds: Sequence[int],
    max_states: int | None,
    symmetry: bool,
    progress: Callable[[int, int], None] | None,
    total: Result,
) -> None:
    """One task per deal, merged into ``total`` in seed order as they finish in order."""
    tasks = [(config, seed, max_states, symmetry) for seed in seeds]
    for n, one in run_tasks(client, _task, tasks):
        total.merge(one)
        if progress is not None:
            progress(n + 1, len(seeds))


# ---------------------------------------------------------------- the proofs' score facts


class ScoreFacts(Protocol):
    """What the proofs establish about one side's hand score under a rules object (issue 9).

    ``bounds``: the least and greatest score, PROVED, or None when not proved; ``reachable``: the
    exact set of scores, PROVED, or None when not proved or not finite and small.
    """

    def bounds(self) -> tuple[int, int] | None: ...

    def reachable(self) -> frozenset[int] | None: ...


FACTS_MODULE = "arbitro.proofs.score_facts"
"""Where the proofs provide ``score_facts(rules) -> ScoreFacts | None`` (None when the encodings do
not cover the rules: the explorer then says the cross-check was not made)."""


def proved_score_facts(rules: Rules) -> ScoreFacts | None:
    """The proofs' facts about hand scores for these rules, when the proofs provide them."""
    try:
        module = importlib.import_module(FACTS_MODULE)
    except ImportError:
        return None
    facts: ScoreFacts | None = module.score_facts(rules)
    return facts


def check_scores(result: Result, facts: ScoreFacts | None) -> dict[str, Any]:
    """The explored hand scores against the proved bounds and reachable set: every side score
    seen must lie within the bounds and in the set; what does not is listed."""
    if facts is None:
        return {"checked": False, "why": f"no proved score facts ({FACTS_MODULE})"}
    seen = sorted({s for scores in result.scores for s in scores})
    outside: list[int] = []
    bounds = facts.bounds()
    if bounds is not None:
        outside += [s for s in seen if not bounds[0] <= s <= bounds[1]]
    reach = facts.reachable()
    unreachable = [s for s in seen if reach is not None and s not in reach]
    return {
        "checked": bounds is not None or reach is not None,
        "bounds": list(bounds) if bounds is not None else None,
        "outside_bounds": outside,
        "not_in_reachable_set": unreachable,
        "agrees": not outside and not unreachable,
    }


# ---------------------------------------------------------------- perft


def perft(model: Game[R, S, A], rules: R, state: S, depth: int) -> int:
    """The number of action sequences of length ``depth`` from ``state`` (a hand over ends one)."""
    if depth == 0:
        return 1
    if model.phase(state) != "play":
        return 0
    actions = model.legal_actions(rules, state)
    if depth == 1:
        return len(actions)
    return sum(perft(model, rules, model.apply(rules, state, a), depth - 1) for a in actions)


def divide(
    model: Game[R, S, A], rules: R, state: S, depth: int
) -> list[tuple[dict[str, Any], int]]:
    """Per legal action of ``state``, the sequences of length ``depth`` that start with it."""
    if depth < 1 or model.phase(state) != "play":
        return []
    return [
        (model.action_to_json(a), perft(model, rules, model.apply(rules, state, a), depth - 1))
        for a in model.legal_actions(rules, state)
    ]


def refused(model: Game[R, S, A], rules: R, state: S, action: A) -> list[str]:
    """The clauses refusing an action (for reports); empty when it is legal."""
    try:
        return [e.clause for e in model.refusals(rules, state, action)]
    except IllegalAction as e:  # pragma: no cover - refusals lists, it does not raise
        return [e.clause]
