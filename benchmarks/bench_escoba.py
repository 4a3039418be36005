"""Random Escoba hands per second on one process.

Every hand starts from a freshly shuffled deck order and every play is drawn uniformly from the
legal plays (``actions[rng.randrange(len(actions))]``). Two paths are timed:

- playout: `arbitro.model.escoba.playout.play_hand`, which plays a whole hand without building the states
  in between (the path simulations use; tests check it makes the same plays as the stepwise model);
- stepwise: the `GameModel` protocol, `ESCOBA.legal_actions` then `ESCOBA.apply` for every play.

Usage: uv run python benchmarks/bench_escoba.py [--players 2] [--teams] [--seconds 3] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import time
from collections.abc import Callable

from arbitro.model.escoba import ESCOBA, EscobaState
from arbitro.model.escoba.playout import play_hand
from arbitro.model.game import Seating
from arbitro.model.schema import EscobaRules, rules_for

TARGET = 6000
"""Hands per second asked of the playout path."""

Runner = Callable[[EscobaRules, EscobaState, list[int], random.Random], None]


def run_playout(
    rules: EscobaRules, start: EscobaState, deck: list[int], rng: random.Random
) -> None:
    order = deck[:]
    rng.shuffle(order)
    play_hand(rules, start, order, rng.randrange)


def run_stepwise(
    rules: EscobaRules, start: EscobaState, deck: list[int], rng: random.Random
) -> None:
    order = deck[:]
    rng.shuffle(order)
    s = ESCOBA.deal(rules, start, order)
    while s.phase == "play":
        actions = ESCOBA.legal_actions(rules, s)
        s = ESCOBA.apply(rules, s, actions[rng.randrange(len(actions))])


def measure(
    runner: Runner, rules: EscobaRules, seating: Seating, seconds: float, seed: int
) -> tuple[float, float, int]:
    """(median, best) hands per second over chunks of about a tenth of a second, and hands run."""
    start = ESCOBA.new_game(rules, seating)
    deck = list(ESCOBA.deck(rules, seating))
    rng = random.Random(seed)
    rates: list[float] = []
    total = 0
    chunk = 50
    stop = time.perf_counter() + seconds
    while time.perf_counter() < stop:
        t0 = time.perf_counter()
        for _ in range(chunk):
            runner(rules, start, deck, rng)
        dt = time.perf_counter() - t0
        total += chunk
        rates.append(chunk / dt)
        chunk = max(10, int(chunk * 0.1 / dt)) if dt > 0 else chunk * 2
    return statistics.median(rates), max(rates), total


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--teams", action="store_true", help="four players in two partnerships")
    p.add_argument("--seconds", type=float, default=3.0, help="time per path")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--profile", action="store_true", help="profile the playout path instead")
    args = p.parse_args(argv)
    rules = rules_for("escoba-es")
    assert isinstance(rules, EscobaRules)
    seating = Seating(4, 2, "teams") if args.teams else Seating(args.players, args.players)
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        measure(run_playout, rules, seating, args.seconds, args.seed)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(12)
        return 0
    print(f"escoba-es, {seating.players} players in {seating.sides} sides, one process")
    for name, runner in (("playout", run_playout), ("stepwise", run_stepwise)):
        median, best, hands = measure(runner, rules, seating, args.seconds, args.seed)
        print(f"{name:9s} {median:8.0f} hands/s median   {best:8.0f} best   ({hands} hands)")
        if name == "playout":
            verdict = "meets" if median >= TARGET else "misses"
            print(f"          {verdict} the target of {TARGET} hands/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
