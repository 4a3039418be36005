"""Refinement: the proofs' guarded next-state relation against the engine users run, state by state.

For a game family, a *refiner* is built once per rules object and seating from that family's
guarded relation (its Z3 facts, evaluated on concrete values through `terms.Evaluator`). Given a
state, the engine's legal actions there and the state each leads to (`legal_actions`, `apply`),
it answers whether the relation enables exactly those actions and allows exactly those successors,
or describes the first difference. `REFINERS` says where each family's refiner is, keyed by game
family: one line per family.

Two walks feed it states:

- `exhaustive`: every state reachable from each given deal of a small configuration (the
  explorer's configurations, `spec/configs/`), breadth first through the engine;
- `sampled`: states met in random play of a rulebook at full size, one seating at a time.

The first disagreement is kept as a transcript (a header with the deck order, then the actions
that reach the state) that `arbitro check` replays: at a state where the enabled sets differ, its
last action line carries the relation's enabled actions as the producer's `legal` list, so
`arbitro check` reports the difference as a legal-mismatch there.
"""

from __future__ import annotations

import importlib
import itertools
import random
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from arbitro.model.errors import ArbitroError
from arbitro.model.family import family_of_rules
from arbitro.model.game import Game, GameModel, Seating
from arbitro.model.schema import Rules

R = TypeVar("R")
S = TypeVar("S", bound=Hashable)
A = TypeVar("A", bound=Hashable)


@dataclass(frozen=True)
class Disagreement:
    """Where the relation and the engine part: `kind` is "enabled" (the actions differ: `missing`
    are enabled by the relation only, `extra` by the engine only) or "successor" (`action` leads
    elsewhere under the relation; `detail` names the facts the engine's successor breaks)."""

    kind: str
    detail: str
    missing: tuple[dict[str, Any], ...] = ()
    extra: tuple[dict[str, Any], ...] = ()
    action: int | None = None  # the place of the action in legal_actions, for "successor"
    scores: tuple[int, ...] | None = None
    """The running totals the game must start from for its transcript to reach this difference,
    where the check asked the engine from other totals than the walk's (None: the walk's own)."""


class StateCheck(Protocol):
    """A refiner for one rules object and seating: the first difference at a state, or None."""

    def __call__(
        self, state: Any, actions: Sequence[Any], successors: Sequence[Any]
    ) -> Disagreement | None: ...


Refiner = Callable[[Any, Seating], StateCheck]

REFINERS: dict[str, str] = {
    "escoba": "arbitro.proofs.escoba.refine:refiner",
    "rummy": "arbitro.proofs.rummy.refine:refiner",
}
"""Each game family's refiner, as "module:function" (imported when first asked for)."""


def family(rules: object) -> str:
    """The name of the game family these rules belong to (the registry's)."""
    return family_of_rules(rules).name


def refiner_for(rules: object, seating: Seating) -> StateCheck:
    """The family's refiner for these rules and seating; ArbitroError when it has none."""
    where = REFINERS.get(family(rules))
    if where is None:
        raise RefineError(f"no refiner for the {family(rules)} family yet")
    module, name = where.split(":")
    make: Refiner = getattr(importlib.import_module(module), name)
    return make(rules, seating)


DIRECTED: dict[str, str] = {
    "escoba": "arbitro.proofs.escoba.hand_scores:directed",
    "rummy": "arbitro.proofs.rummy.positions:directed",
}
"""Each game family's kept hands to walk besides the sampled ones, as "module:function" of
(rules, seating) -> [(dealer, deck order, actions as JSON)]: hands random play rarely meets
(Escoba: a side taking every card, fourteen escobas; Samba and Canasta: an upcard covered twice,
a red three as the stock's last card)."""


STARTS: dict[str, str] = {
    "escoba": "arbitro.proofs.escoba.refine:start",
    "rummy": "arbitro.proofs.rummy.refine:start",
}
"""Each game family's starting points for sampled play, as "module:function" of (rules, seating,
rng) -> running totals per side or None: a game the engine starts at those totals (as a
transcript header's `scores` does), so that sampled hands also end games. A family
without one starts every sampled hand at 0 points."""


def _start(
    model: Game[R, S, A], rules: R, seating: Seating, dealer: int, rng: random.Random
) -> tuple[S, list[int] | None]:
    """A game for one sampled deal: from the family's starting points when it has them."""
    state = model.new_game(rules, seating, dealer)
    where = STARTS.get(family(rules))
    if where is None:
        return state, None
    module, name = where.split(":")
    totals = getattr(importlib.import_module(module), name)(rules, seating, rng)
    if totals is None:
        return state, None
    d = model.state_to_json(state)
    d["scores"] = list(totals)
    return model.state_from_json(rules, d), list(totals)


def directed(
    model: GameModel, rules: Rules, seating: Seating, *, rulebook: str, target: str,
    check: StateCheck | None = None, options: Any = (),
) -> Report | None:  # fmt: skip
    """Every state of the family's kept hands for this seating (None: the family keeps none);
    `options` are the readings `rules` were built with (for the transcript's header)."""
    where = DIRECTED.get(family(rules))
    if where is None:
        return None
    module, name = where.split(":")
    hands = getattr(importlib.import_module(module), name)(rules, seating)
    if not hands:
        return None
    return _walk_hands(
        model, rules, seating, hands, rulebook=rulebook, target=target, check=check,
        options=options,
    )  # fmt: skip


READINGS: dict[str, str] = {
    "rummy": "arbitro.proofs.rummy.positions:readings",
}
"""Each game family's kept hands walked under another reading of the book than the walk's, as
"module:function" of (rulebook, options, seating) -> [(options, rules, [(dealer, deck order,
actions as JSON)])]: the hands a bug that shows only under a reading other than the default
needs (Samba and Canasta: a stock-out that scores the melds of no side where only the side
going out keeps them, a natural and a wild taking the pile before the side has opened)."""


def reading_label(rulebook: str, options: Mapping[str, Any], seating: Seating) -> str:
    """How a walk names its book, readings and seating: "samba-es [k=label], 4 players in 2
    sides"."""
    reading = "".join(
        f" [{k}={str(v).lower() if isinstance(v, bool) else v}]" for k, v in options.items()
    )
    return f"{rulebook}{reading}, {seating.players} players" + (
        f" in {seating.sides} sides" if seating.sides != seating.players else ""
    )


def under_readings(
    model: GameModel, rules: Rules, seating: Seating, *, rulebook: str, options: Any = (),
) -> list[Report]:  # fmt: skip
    """The family's kept hands under the book's other readings (READINGS), one report per
    reading, each walked with the rules of that reading and its own refiner; a transcript's
    header carries the reading in `options`, so `arbitro check` replays it under it."""
    where = READINGS.get(family(rules))
    if where is None:
        return []
    module, name = where.split(":")
    made = getattr(importlib.import_module(module), name)(rulebook, dict(options), seating)
    out: list[Report] = []
    for chosen, other, hands in made:
        if not hands:
            continue
        target = f"{reading_label(rulebook, chosen, seating)} (kept hands)"
        out.append(
            _walk_hands(
                model, other, seating, hands, rulebook=rulebook, target=target, options=chosen
            )
        )
    return out


def _walk_hands(
    model: GameModel, rules: Rules, seating: Seating, hands: Sequence[Any], *, rulebook: str,
    target: str, check: StateCheck | None = None, options: Any = (),
) -> Report:  # fmt: skip
    """Every state of these kept hands ((dealer, deck order, actions as JSON) each)."""
    started = time.process_time()
    check = check or refiner_for(rules, seating)
    rep = Report(target)
    for dealer, order, acts in hands:
        rep.deals += 1
        state = model.deal(rules, model.new_game(rules, seating, dealer), order)
        path: list[Any] = []
        for act in acts:
            actions, successors, bad = _check_state(model, rules, check, state)
            rep.states += 1
            rep.actions += len(actions)
            action = model.action_from_json(act)
            if bad is None and action not in actions:
                bad = Disagreement("enabled", f"the engine refuses the kept hand's {act}")
            if bad is not None:
                rep.first = bad
                head = _header(model, rulebook, options, seating, order, None, dealer, bad.scores)
                rep.transcript = transcript(model, rules, head, order, path, seating, bad)
                rep.cpu_seconds = time.process_time() - started
                return rep
            path.append(action)
            state = successors[list(actions).index(action)]
    rep.cpu_seconds = time.process_time() - started
    return rep


class RefineError(ArbitroError, ValueError):
    """A refinement that cannot be run as asked."""


@dataclass
class Report:
    """What one walk checked and the first disagreement it met (None: none)."""

    target: str  # "escoba-16 (deals 0-9)", "escoba-es, 4 players in 2 sides (sampled)"
    states: int = 0
    actions: int = 0
    deals: int = 0
    first: Disagreement | None = None
    bounded: bool = False  # a deal's walk stopped at its state limit
    unavailable: str = ""  # why nothing was checked (a family without a refiner)
    transcript: list[dict[str, Any]] = field(default_factory=list)
    cpu_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.first is None and not self.unavailable

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "target": self.target,
            "states": self.states,
            "actions": self.actions,
            "deals": self.deals,
            "agrees": self.ok,
            "bounded": self.bounded,
            "cpu_seconds": round(self.cpu_seconds, 3),
        }
        if self.unavailable:
            out["unavailable"] = self.unavailable
        if self.first is not None:
            d = self.first
            out["disagreement"] = {
                "kind": d.kind,
                "detail": d.detail,
                "missing": list(d.missing),
                "extra": list(d.extra),
            }
            out["transcript"] = self.transcript
        return out


def _header(
    model: GameModel, rulebook: str, options: Any, seating: Seating, order: Sequence[int],
    config: str | None, dealer: int = 0, scores: Sequence[int] | None = None,
) -> dict[str, Any]:  # fmt: skip
    head: dict[str, Any] = {
        "type": "header",
        "protocol": "arbitro/1",
        "rulebook": rulebook,
        "options": dict(options),
        "players": seating.players,
        "sides": seating.sides,
        "layout": seating.layout,
        "dealer": dealer,
        "deals": [[model.card_name(c) for c in order]],
    }
    if config is not None:
        head["config"] = config
    if scores is not None:
        head["scores"] = list(scores)
    return head


def transcript(
    model: Game[R, S, A],
    rules: R,
    header: dict[str, Any],
    order: Sequence[int],
    path: Sequence[Any],
    seating: Seating,
    last: Disagreement | None,
) -> list[dict[str, Any]]:
    """The header and an action line per step of `path` from the deal; then, at the state where
    the relation and the engine part, one more line: for differing enabled sets an action the
    engine allows (or the relation's, when the engine allows none) with the relation's enabled
    actions as `legal`; for a differing successor, that action."""
    lines = [header]
    start = model.new_game(rules, seating, int(header.get("dealer", 0)))
    if header.get("scores") is not None:
        d = model.state_to_json(start)
        d["scores"] = list(header["scores"])
        start = model.state_from_json(rules, d)
    state = model.deal(rules, start, list(order))
    for step, a in enumerate(path, 1):
        lines.append(_line(model, state, step, model.action_to_json(a)))
        state = model.apply(rules, state, a)
    if last is None:
        return lines
    actions = model.legal_actions(rules, state)
    if last.kind == "successor" and last.action is not None:
        lines.append(_line(model, state, len(path) + 1, model.action_to_json(actions[last.action])))
        return lines
    relation_enabled = [
        a for a in (model.action_to_json(x) for x in actions) if a not in last.extra
    ] + list(last.missing)
    first = model.action_to_json(actions[0]) if actions else (relation_enabled or [{}])[0]
    line = _line(model, state, len(path) + 1, first)
    line["legal"] = relation_enabled
    lines.append(line)
    return lines


def _line(model: Game[R, S, A], state: S, step: int, action: dict[str, Any]) -> dict[str, Any]:
    return {"type": "action", "step": step, "hand": 0, "seat": model.to_move(state),
            "action": action}  # fmt: skip


def _check_state(
    model: Game[R, S, A], rules: R, check: StateCheck, state: S
) -> tuple[Sequence[Any], list[Any], Disagreement | None]:
    actions = model.legal_actions(rules, state)
    successors = [model.apply(rules, state, a) for a in actions]
    return actions, successors, check(state, actions, successors)


def exhaustive(
    model: Game[R, S, A],
    rules: R,
    seating: Seating,
    orders: Iterable[Sequence[int]],
    *,
    rulebook: str,
    options: Any = (),
    config: str | None = None,
    target: str = "",
    check: StateCheck | None = None,
    budget: int | None = None,
    max_states: int | None = None,
) -> Report:
    """Every state reachable from each deck order's deal, each checked once (per deal); after
    `budget` states the deals not yet begun are left out, and a deal's walk stops after
    `max_states` states (`Report.bounded`)."""
    started = time.process_time()
    check = check or refiner_for(rules, seating)
    rep = Report(target or (config or rulebook))
    for order in orders:
        if budget is not None and rep.states >= budget:
            break
        rep.deals += 1
        walked = 0
        root = model.deal(rules, model.new_game(rules, seating), list(order))
        parent: dict[Any, tuple[Any, int] | None] = {root: None}
        frontier = [root]
        while frontier:
            nxt: list[Any] = []
            for state in frontier:
                if model.phase(state) != "play":
                    continue
                if max_states is not None and walked >= max_states:
                    rep.bounded = True
                    break
                walked += 1
                actions, successors, bad = _check_state(model, rules, check, state)
                rep.states += 1
                rep.actions += len(actions)
                if bad is not None:
                    path = _path(parent, state, model, rules)
                    rep.first = bad
                    head = _header(
                        model, rulebook, options, seating, order, config, scores=bad.scores
                    )
                    rep.transcript = transcript(model, rules, head, order, path, seating, bad)
                    rep.cpu_seconds = time.process_time() - started
                    return rep
                for k, child in enumerate(successors):
                    if child not in parent:
                        parent[child] = (state, k)
                        nxt.append(child)
            frontier = nxt
    rep.cpu_seconds = time.process_time() - started
    return rep


def _path(
    parent: dict[Any, tuple[Any, int] | None], state: S, model: Game[R, S, A], rules: R
) -> list[Any]:
    steps: list[tuple[Any, int]] = []
    at = parent[state]
    while at is not None:
        steps.append(at)
        at = parent[at[0]]
    return [model.legal_actions(rules, s)[k] for s, k in reversed(steps)]


def sampled(
    model: Game[R, S, A],
    rules: R,
    seating: Seating,
    states: int,
    *,
    seed: int = 0,
    rulebook: str,
    options: Any = (),
    target: str = "",
    check: StateCheck | None = None,
) -> Report:
    """States met in random play from random deals (seeded), until `states` were checked."""
    started = time.process_time()
    check = check or refiner_for(rules, seating)
    rep = Report(target or f"{rulebook}, {seating.players} players in {seating.sides} sides")
    rng = random.Random(f"refine:{seed}:{rulebook}:{seating.players}:{seating.sides}")
    while rep.states < states:
        order = list(model.deck(rules, seating))
        rng.shuffle(order)
        dealer = rng.randrange(seating.players)
        rep.deals += 1
        game, totals = _start(model, rules, seating, dealer, rng)
        state = model.deal(rules, game, order)
        path: list[Any] = []
        while model.phase(state) == "play" and rep.states < states:
            actions, successors, bad = _check_state(model, rules, check, state)
            rep.states += 1
            rep.actions += len(actions)
            if bad is not None:
                rep.first = bad
                starts = bad.scores if bad.scores is not None else totals
                head = _header(model, rulebook, options, seating, order, None, dealer, starts)
                rep.transcript = transcript(model, rules, head, order, path, seating, bad)
                rep.cpu_seconds = time.process_time() - started
                return rep
            if not actions:
                break
            k = rng.randrange(len(actions))
            path.append(actions[k])
            state = successors[k]
    rep.cpu_seconds = time.process_time() - started
    return rep


EVERY_DEAL_UP_TO = 8
"""Decks of at most this many cards are refined on every distinct deal (their factorial of deck
orders is walked to find them); larger ones on the explorer's seeded deals."""


def orders_for(
    model: Game[R, S, A], rules: R, seating: Seating, deals: int | None
) -> tuple[Iterable[list[int]], str]:
    """The deck orders to refine a configuration on, and how to say which: every distinct deal of
    a deck of at most EVERY_DEAL_UP_TO cards, else seeds 0, 1, ... (`deals` of them, or as many
    as the state budget allows)."""
    size = len(model.deck(rules, seating))
    if deals is None and size <= EVERY_DEAL_UP_TO:
        return all_orders(model, rules, seating), "every deal"
    seeds = range(deals) if deals is not None else itertools.count()
    return seed_orders(model, rules, seating, seeds), "deals"


def all_orders(model: Game[R, S, A], rules: R, seating: Seating) -> Iterable[list[int]]:
    """One deck order per distinct deal: every permutation of the deck, kept when its dealt state
    is new (for the smallest configurations only: the deck's factorial is walked)."""
    seen: set[Any] = set()
    deck = list(model.deck(rules, seating))
    start = model.new_game(rules, seating)
    for perm in itertools.permutations(deck):
        dealt = model.deal(rules, start, list(perm))
        if dealt not in seen:
            seen.add(dealt)
            yield list(perm)


def seed_orders(
    model: Game[R, S, A], rules: R, seating: Seating, seeds: Iterable[int]
) -> Iterable[list[int]]:
    """The explorer's deck orders: the deck shuffled by `random.Random(seed)`, for each seed."""
    for seed in seeds:
        order = list(model.deck(rules, seating))
        random.Random(seed).shuffle(order)
        yield order


CONFIG_BUDGET = 40_000
"""States refined per configuration when the number of deals is not given: deals 0, 1, ... are
walked whole until this many states were checked."""
SAMPLES = 100_000
"""States sampled from full-size play of each rulebook, split evenly over its seatings."""


def _model_for(rulebook: str) -> GameModel:
    from arbitro.proofs.explore_config import model_for_rulebook

    return model_for_rulebook(rulebook)


def run(
    rulebooks: Sequence[str],
    configs: Sequence[str] = (),
    *,
    deals: int | None = None,
    samples: int = SAMPLES,
    budget: int = CONFIG_BUDGET,
    seed: int = 0,
    options: Mapping[str, str | bool] | None = None,
    progress: Callable[[Report], None] | None = None,
) -> list[Report]:
    """Refine every named configuration (with none named: every configuration of the rulebooks)
    exhaustively, then `samples` states of full-size play of each rulebook (none when only
    configurations are named). `options` choose readings of the rulebooks (KEY: LABEL, as
    `--option` gives them) for the full-size play and the kept hands; each configuration keeps
    the readings its own file names."""
    from arbitro.model.schema import rules_for
    from arbitro.proofs.explore_config import config_names, load_config, model_of

    out: list[Report] = []

    def done(rep: Report) -> None:
        out.append(rep)
        if progress is not None:
            progress(rep)

    chosen = [load_config(c) for c in configs] if configs else [
        c for c in (load_config(n) for n in config_names()) if c.rulebook in rulebooks
    ]  # fmt: skip
    for cfg in chosen:
        model = model_of(cfg)
        try:
            check = refiner_for(cfg.rules, cfg.seating)
        except RefineError as e:
            done(Report(cfg.name, unavailable=str(e)))
            continue
        orders, how = orders_for(model, cfg.rules, cfg.seating, deals)
        rep = exhaustive(
            model, cfg.rules, cfg.seating, orders, rulebook=cfg.rulebook,
            options=cfg.options, config=cfg.name, check=check,
            budget=budget if deals is None and how != "every deal" else None, max_states=budget,
        )  # fmt: skip
        rep.target = (
            f"{cfg.name} (every deal: {rep.deals})"
            if how == "every deal"
            else f"{cfg.name} (deal 0)"
            if rep.deals == 1
            else f"{cfg.name} (deals 0-{rep.deals - 1})"
        )
        done(rep)
    chosen_options = dict(options or {})
    for book in rulebooks if samples > 0 else ():
        rules = rules_for(book, chosen_options or None)
        model = _model_for(book)
        seatings = list(model.seatings(rules))
        for seating in seatings:
            label = reading_label(book, chosen_options, seating)
            try:
                check = refiner_for(rules, seating)
            except RefineError as e:
                done(Report(f"{label} (sampled)", unavailable=str(e)))
                break
            rep = sampled(
                model, rules, seating, max(1, samples // len(seatings)), seed=seed,
                rulebook=book, options=chosen_options, target=f"{label} (sampled)", check=check,
            )  # fmt: skip
            done(rep)
            kept = directed(
                model, rules, seating, rulebook=book, target=f"{label} (kept hands)",
                check=check, options=chosen_options,
            )  # fmt: skip
            if kept is not None:
                done(kept)
            for rep in under_readings(model, rules, seating, rulebook=book, options=chosen_options):
                done(rep)
    return out


__all__ = [
    "CONFIG_BUDGET",
    "DIRECTED",
    "EVERY_DEAL_UP_TO",
    "READINGS",
    "REFINERS",
    "SAMPLES",
    "STARTS",
    "Disagreement",
    "RefineError",
    "Refiner",
    "Report",
    "StateCheck",
    "all_orders",
    "exhaustive",
    "orders_for",
    "reading_label",
    "refiner_for",
    "run",
    "sampled",
    "seed_orders",
    "transcript",
    "under_readings",
]
