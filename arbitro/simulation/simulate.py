"""Play whole games with a playout policy, check states on the way, and keep what a researcher needs.

Game g of a run draws all its randomness (deck orders and choices) from ``random.Random(f"{seed}:{g}")``
and is dealt first by seat ``g % players``, so any game of a run can be played again on its own:
that is how dead ends are saved as transcripts without recording every game.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from arbitro.model.errors import ArbitroError, IllegalAction
from arbitro.model.game import GameModel, HandResult, Seating
from arbitro.model.schema import Rules
from arbitro.oracle.transcript import ActionLine, HandLine, Header, ResultLine, Transcript
from arbitro.simulation.policies import builds_every_state, policy_for

DEAD_END = "dead-end"
"""The hand-end reason a model gives when a book's rules leave the player to move without a move."""

NO_LEGAL_ACTION = "no-legal-action"
"""How a hand ends when the player to move has no legal action and the model did not end it."""

CHECKS = ("hands", "every", "none")
"""When whole-state checks run: on each dealt state and each hand's end, on every state, never."""

MAX_HANDS_PER_GAME = 2000


class Violation(ArbitroError, RuntimeError):
    """A state broke a whole-state check, or the engine refused its own legal action."""

    def __init__(self, clauses: list[str], reason: str = "") -> None:
        self.clauses = clauses
        self.reason = reason
        super().__init__(f"{', '.join(clauses)}{': ' + reason if reason else ''}")


@dataclass(frozen=True)
class Hand:
    """One hand as a record: where it came from, how it ended and what each side scored."""

    game: int
    hand: int
    dealer: int
    order: tuple[int, ...]
    ended: str
    actions: int
    scores: tuple[int, ...]
    categories: tuple[dict[str, int], ...]
    finding: tuple[str, ...] = ()


@dataclass
class Summary:
    """What a simulation saw."""

    rulebook: str
    seating: Seating
    options: dict[str, Any]
    seed: int
    policy: str = "uniform"
    check: str = "hands"
    games_asked: int = 0
    games: int = 0
    rounds: int = 0
    actions: int = 0
    violations: int = 0
    violation_examples: list[dict[str, Any]] = field(default_factory=list)
    dead_ends: int = 0
    dead_end_games: list[int] = field(default_factory=list)
    dead_end_examples: list[dict[str, Any]] = field(default_factory=list)
    dead_end_clauses: Counter[tuple[str, ...]] = field(default_factory=Counter)
    unfinished_games: int = 0
    hand_endings: Counter[str] = field(default_factory=Counter)
    hand_lengths: Counter[int] = field(default_factory=Counter)
    hand_scores: list[tuple[int, ...]] = field(default_factory=list)
    category_points: Counter[str] = field(default_factory=Counter)  # every side, every hand
    game_lengths: Counter[int] = field(default_factory=Counter)
    wins: Counter[int] = field(default_factory=Counter)
    first_dealer_wins: Counter[tuple[int, int]] = field(default_factory=Counter)
    final_scores: list[tuple[int, ...]] = field(default_factory=list)
    # each finished game's final scores and winner by game number: two runs of the same seed
    # are compared game by game (report --compare)
    final_by_game: dict[int, tuple[int, ...]] = field(default_factory=dict)
    winner_by_game: dict[int, int | None] = field(default_factory=dict)
    seconds: float = 0.0
    interrupted: bool = False

    def to_json(self) -> dict[str, Any]:
        sides = self.seating.sides
        per_side = [[s[i] for s in self.final_scores] for i in range(sides)]
        return {
            "rulebook": self.rulebook,
            "players": self.seating.players,
            "sides": sides,
            "layout": self.seating.layout,
            "options": self.options,
            "seed": self.seed,
            "policy": self.policy,
            "check": self.check,
            "games_asked": self.games_asked,
            "games": self.games,
            "interrupted": self.interrupted,
            "hands": self.rounds,
            "actions": self.actions,
            "violations": self.violations,
            "violation_examples": self.violation_examples,
            "dead_ends": self.dead_ends,
            "dead_end_examples": self.dead_end_examples,
            "dead_end_findings": [
                {"clauses": list(k), "hands": v} for k, v in self.dead_end_clauses.most_common()
            ],
            "unfinished_games": self.unfinished_games,
            "hand_endings": dict(sorted(self.hand_endings.items())),
            "hand_lengths": {
                "min": min(self.hand_lengths) if self.hand_lengths else None,
                "mean": round(sum(k * v for k, v in self.hand_lengths.items()) / self.rounds, 1)
                if self.rounds
                else None,
                "max": max(self.hand_lengths) if self.hand_lengths else None,
            },
            "wins_by_side": {str(k): v for k, v in sorted(self.wins.items())},
            "final_scores": {
                "min": [min(s) for s in per_side] if self.final_scores else [],
                "mean": [round(sum(s) / len(s), 1) for s in per_side] if self.final_scores else [],
                "max": [max(s) for s in per_side] if self.final_scores else [],
            },
            "seconds": round(self.seconds, 3),
        }


def _example(examples: list[dict[str, Any]], item: dict[str, Any], keep: int = 5) -> None:
    if len(examples) < keep:
        examples.append(item)


@dataclass
class _Game:
    """One game played: its hands, how it stopped, and (when recorded) what to write it as."""

    hands: list[Hand] = field(default_factory=list)
    state: Hashable = None
    stopped: str = ""  # "", "unfinished", NO_LEGAL_ACTION
    deals: list[tuple[int, ...]] = field(default_factory=list)
    actions: list[list[Hashable]] = field(default_factory=list)


def play_game(
    model: GameModel,
    rules: Rules,
    seating: Seating,
    policy: str,
    seed: int,
    g: int,
    max_hands: int = MAX_HANDS_PER_GAME,
    check: str = "hands",
    record: bool = False,
    on_hand: Callable[[Hand], None] | None = None,
) -> _Game:
    """Play game `g` of the run `seed`; Violation when a state breaks a whole-state check."""
    rng = random.Random(f"{seed}:{g}")
    play_hand = policy_for(policy, model.game)
    dealer = g % seating.players
    state: Hashable = model.new_game(rules, seating, dealer=dealer)
    deck = list(model.deck(rules, seating))
    out = _Game()
    violations = model.violations

    def watch(s: Hashable) -> None:
        broken = violations(rules, s)
        if broken:
            raise Violation(broken)

    watcher = watch if check != "none" else None
    every = check == "every"
    phase = model.phase
    while phase(state) != "over":
        if len(out.hands) >= max_hands:
            out.stopped = "unfinished"
            break
        order = list(deck)
        rng.shuffle(order)
        hand_dealer = int(getattr(state, "dealer", dealer))
        try:
            if every:
                state, acts, n = play_hand(model, rules, state, order, rng, watcher, record)
            else:
                state, acts, n = play_hand(model, rules, state, order, rng, None, record)
                if watcher is not None:
                    watcher(state)
        except IllegalAction as e:
            raise Violation(["legal-action-refused", e.clause], e.reason) from None
        if record:
            out.deals.append(tuple(order))
            out.actions.append(acts)
        if phase(state) == "play":
            out.stopped = NO_LEGAL_ACTION
            out.state = state
            hand = Hand(g, len(out.hands), hand_dealer, tuple(order), NO_LEGAL_ACTION, -1, (), ())
            out.hands.append(hand)
            if on_hand is not None:
                on_hand(hand)
            return out
        result = model.last_hand(state)
        if result is None:  # pragma: no cover - every model records the hand it ends
            raise Violation(["hand-result"], "a hand ended without a result")
        hand = _hand(g, len(out.hands), hand_dealer, order, result, state, n)
        out.hands.append(hand)
        if on_hand is not None:
            on_hand(hand)
    out.state = state
    return out


def _hand(
    g: int,
    h: int,
    dealer: int,
    order: list[int],
    result: HandResult,
    state: Hashable,
    n: int,
) -> Hand:
    finding: tuple[str, ...] = ()
    if result.reason == DEAD_END:
        finding = tuple(getattr(getattr(state, "result", None), "finding", ()) or ())
    return Hand(
        g,
        h,
        dealer,
        tuple(order),
        result.reason,
        n,
        tuple(result.scores),
        tuple(dict(c) for c in result.categories),
        finding,
    )


Progress = Callable[[int, int], None]


def simulate(
    model: GameModel,
    rules: Rules,
    seating: Seating,
    games: int,
    seed: int,
    options: dict[str, Any] | None = None,
    progress: Progress | None = None,
    max_hands: int = MAX_HANDS_PER_GAME,
    policy: str = "uniform",
    check: str = "hands",
    on_hand: Callable[[Hand], None] | None = None,
    record_lengths: bool = False,
    workers: int = 0,
    scheduler: str | None = None,
    client: Any = None,
) -> Summary:
    """Play `games` games; game g draws its randomness from (seed, g) alone. Ctrl-C stops the run
    between two hands and returns what was seen (`interrupted`); the game cut short is not counted.

    With `record_lengths` a policy that cannot count actions without recording them records them.
    With `workers` (a local Dask cluster) or `scheduler` (a running one) the games are played in
    runs of consecutive games over the workers and counted here in game order, so the summary
    and every hand given to `on_hand` are those of one process. A Dask `client` already open
    may be given instead (several runs on one cluster).
    """
    if check not in CHECKS:
        raise ValueError(f"check must be one of {CHECKS}")
    policy_for(policy, model.game)  # refuse an unknown policy before any game
    if check == "every" and not builds_every_state(policy, model.game):
        from arbitro.model.errors import OptionError

        raise OptionError(
            f"--check every needs a policy that builds every state (uniform); the {policy} "
            f"policy of {model.game} builds only the dealt state and the state after each hand"
        )
    summary = Summary(rules.rulebook, seating, dict(options or {}), seed, policy, check, games)
    start = time.perf_counter()
    hands_of_game: list[Hand] = []

    def seen(hand: Hand) -> None:
        hands_of_game.append(hand)
        if on_hand is not None:
            on_hand(hand)

    try:
        fan = bool(scheduler or workers or client is not None)
        if fan:
            _fan_out(
                summary, model, rules, seating, games, seed, policy, max_hands, check,
                record_lengths, on_hand, progress, scheduler, workers, client,
            )  # fmt: skip
        for g in range(0 if fan else games):
            hands_of_game.clear()
            try:
                game = play_game(
                    model, rules, seating, policy, seed, g, max_hands, check, record_lengths, seen
                )
            except Violation as e:
                _account(summary, model, seating, g, None, hands_of_game, e)
            else:
                _account(summary, model, seating, g, game, game.hands, None)
            if progress is not None:
                progress(g + 1, games)
    except KeyboardInterrupt:
        summary.interrupted = True
    summary.seconds = time.perf_counter() - start
    return summary


def _account(
    summary: Summary,
    model: GameModel,
    seating: Seating,
    g: int,
    game: _Game | None,
    hands: list[Hand],
    violation: Violation | None,
) -> None:
    """Count game `g`: played to its end (`game`), or stopped by `violation` after `hands`."""
    summary.games += 1
    if violation is not None:
        summary.violations += 1
        summary.unfinished_games += 1
        _example(
            summary.violation_examples,
            {"game": g, "hand": len(hands), "clauses": violation.clauses}
            | ({"reason": violation.reason} if violation.reason else {}),
        )
        _count_hands(summary, hands)
        return
    assert game is not None
    _count_hands(summary, game.hands)
    dead = [h for h in game.hands if h.ended in (DEAD_END, NO_LEGAL_ACTION)]
    if dead:
        summary.dead_end_games.append(g)
        for h in dead:
            _example(
                summary.dead_end_examples,
                {"game": g, "hand": h.hand, "clauses": list(h.finding or (h.ended,))},
            )
    if game.stopped:
        summary.unfinished_games += 1
    else:
        summary.game_lengths[len(game.hands)] += 1
        winner = model.winner(game.state)
        if winner is not None:
            summary.wins[winner] += 1
            summary.first_dealer_wins[(g % seating.players, winner)] += 1
        summary.final_scores.append(tuple(model.game_scores(game.state)))
        summary.final_by_game[g] = summary.final_scores[-1]
        summary.winner_by_game[g] = winner


GameOutcome = tuple[int, "_Game | None", list[Hand], tuple[list[str], str] | None]
"""A game played in a worker: its number, the game or the violation's clauses and reason."""


def _play_run(
    model: GameModel,
    rules: Rules,
    seating: Seating,
    policy: str,
    seed: int,
    first: int,
    last: int,
    max_hands: int,
    check: str,
    record_lengths: bool,
) -> list[GameOutcome]:
    """Games ``first`` to ``last - 1`` (in a worker): each as `simulate` plays it."""
    out: list[GameOutcome] = []
    for g in range(first, last):
        hands: list[Hand] = []
        try:
            game = play_game(
                model, rules, seating, policy, seed, g, max_hands, check, record_lengths,
                hands.append,
            )  # fmt: skip
        except Violation as e:
            out.append((g, None, hands, (e.clauses, e.reason)))
        else:
            out.append((g, game, hands, None))
    return out


def _fan_out(
    summary: Summary,
    model: GameModel,
    rules: Rules,
    seating: Seating,
    games: int,
    seed: int,
    policy: str,
    max_hands: int,
    check: str,
    record_lengths: bool,
    on_hand: Callable[[Hand], None] | None,
    progress: Progress | None,
    scheduler: str | None,
    workers: int,
    client: Any,
) -> None:
    """The games over a Dask cluster in runs of consecutive games, counted in game order."""
    from arbitro.proofs.cluster import dask_client, run_tasks

    with (
        contextlib.nullcontext(client) if client is not None else dask_client(scheduler, workers)
    ) as client:
        n = len(client.scheduler_info(n_workers=-1)["workers"]) or 1
        size = max(1, min(50, games // (4 * n) or 1))
        same = (model, rules, seating, policy, seed)
        rest = (max_hands, check, record_lengths)
        runs = [(*same, a, min(a + size, games), *rest) for a in range(0, games, size)]
        for _, outcomes in run_tasks(client, _play_run, runs):
            for g, game, hands, broken in outcomes:
                violation = Violation(*broken) if broken is not None else None
                if on_hand is not None:
                    for h in hands:
                        on_hand(h)
                _account(summary, model, seating, g, game, hands, violation)
                if progress is not None:
                    progress(g + 1, games)


def _count_hands(summary: Summary, hands: list[Hand]) -> None:
    for h in hands:
        summary.rounds += 1
        summary.hand_endings[h.ended] += 1
        if h.actions >= 0:
            summary.actions += h.actions
            summary.hand_lengths[h.actions] += 1
        if h.scores:
            summary.hand_scores.append(h.scores)
        for side in h.categories:
            summary.category_points.update(side)
        if h.ended in (DEAD_END, NO_LEGAL_ACTION):
            summary.dead_ends += 1
            summary.dead_end_clauses[h.finding or (h.ended,)] += 1


def game_transcript(
    model: GameModel,
    rules: Rules,
    seating: Seating,
    options: dict[str, str | bool],
    policy: str,
    seed: int,
    g: int,
    max_hands: int = MAX_HANDS_PER_GAME,
) -> Transcript:
    """Game `g` of the run `seed` played again, recorded as a transcript `arbitro check` replays.

    A game that ends has a result line; one cut short (no legal action, or `max_hands`) ends
    after its last action, which `check` reports as incomplete.
    """
    game = play_game(model, rules, seating, policy, seed, g, max_hands, "none", record=True)
    dealer = g % seating.players
    state: Hashable = model.new_game(rules, seating, dealer=dealer)
    body: list[ActionLine | HandLine | ResultLine] = []
    step = 0
    for h, (order, actions) in enumerate(zip(game.deals, game.actions, strict=True)):
        state = model.deal(rules, state, order)
        for a in actions:
            step += 1
            seat = model.to_move(state)
            body.append(ActionLine(0, step, h, seat, model.action_to_json(a)))
            state = model.apply(rules, state, a)
        result = model.last_hand(state)
        if model.phase(state) != "play" and result is not None:
            body.append(HandLine(0, h, tuple(result.scores), tuple(result.categories)))
    if not game.stopped:
        body.append(ResultLine(0, tuple(model.game_scores(state)), model.winner(state)))
    header = Header(
        rulebook=rules.rulebook,
        options=dict(options),
        players=seating.players,
        sides=seating.sides,
        layout=seating.layout,
        dealer=dealer,
        deals=tuple(tuple(model.card_name(c) for c in o) for o in game.deals),
    )
    return Transcript(header, body)


class Records:
    """One record per hand, as JSON Lines or CSV, written to an open file."""

    def __init__(
        self, out: Any, fmt: str, model: GameModel, seed: int, rulebook: str, sides: int
    ) -> None:
        self.out = out
        self.fmt = fmt
        self.name = model.card_name
        self.seed = seed
        self.rulebook = rulebook
        self.sides = sides
        self.categories: list[str] | None = None
        self.writer: Any = None

    def __call__(self, h: Hand) -> None:
        deal = [self.name(c) for c in h.order]
        if self.fmt == "jsonl":
            import json

            self.out.write(
                json.dumps(
                    {
                        "rulebook": self.rulebook,
                        "seed": self.seed,
                        "game": h.game,
                        "hand": h.hand,
                        "dealer": h.dealer,
                        "ended": h.ended,
                        "actions": h.actions if h.actions >= 0 else None,
                        "scores": list(h.scores),
                        "categories": [dict(c) for c in h.categories],
                        "finding": list(h.finding),
                        "deal": deal,
                    },
                    ensure_ascii=False,
                    separators=(",", ":"),
                )
                + "\n"
            )
            return
        import csv

        if self.writer is None:
            self.writer = csv.writer(self.out, lineterminator="\n")
            self.categories = list(h.categories[0]) if h.categories else []
            head = ["rulebook", "seed", "game", "hand", "dealer", "ended", "actions", "finding"]
            head += [f"score_{s}" for s in range(self.sides)]
            head += [f"{cat}_{s}" for s in range(self.sides) for cat in self.categories]
            self.writer.writerow([*head, "deal"])
        cats = self.categories or []
        row: list[Any] = [
            self.rulebook,
            self.seed,
            h.game,
            h.hand,
            h.dealer,
            h.ended,
            h.actions if h.actions >= 0 else "",
            " ".join(h.finding),
        ]
        row += list(h.scores) if h.scores else [""] * self.sides
        for s in range(self.sides):
            c = h.categories[s] if h.categories else {}
            row += [c.get(cat, "") for cat in cats]
        self.writer.writerow([*row, " ".join(deal)])
