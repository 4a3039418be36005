"""`arbitro simulate` against the bare engine loop, as a ratio measured in one run.

For each rulebook the same games (same seeds) are played three ways, interleaved so that the
machine's drift hits each alike:

- bare: the engine alone — new game, deal, then `random_step` (a uniformly drawn legal action and
  the state after it, as `legal_actions` + choice + `apply` would give) until the game ends;
- bare-legal: the same loop through `legal_actions` + `rng.randrange` + `apply` (reported only);
- simulate: `arbitro.simulation.simulate.simulate` with the uniform policy and its default checks (every dealt
  state and every hand's end), summaries and per-hand records kept.

It reports seconds and the ratio simulate / bare; the target is at most 1.5. It never asserts.

Usage: uv run python benchmarks/bench_simulate.py [--games N] [--rounds 3] [--check hands|every|none]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from arbitro import native
from arbitro.games import model_for
from arbitro.model.schema import rules_for
from arbitro.model.spec import load_rulebook
from arbitro.simulation.simulate import simulate

TARGET = 1.5
GAMES = {"escoba-es": 300, "samba-en": 12, "samba-es": 12, "samba-fr": 12, "canasta-es": 12}


def bare(model: Any, rules: Any, seating: Any, games: int, seed: int, legal: bool) -> int:
    """The engine loop alone; returns the actions played."""
    n = 0
    deck = list(model.deck(rules, seating))
    for g in range(games):
        rng = random.Random(f"{seed}:{g}")
        s = model.new_game(rules, seating, dealer=g % seating.players)
        hands = 0
        while model.phase(s) != "over" and hands < 2000:
            if model.phase(s) == "deal":
                order = list(deck)
                rng.shuffle(order)
                s = model.deal(rules, s, order)
                hands += 1
                continue
            if legal:
                acts = model.legal_actions(rules, s)
                if not acts:
                    break
                s = model.apply(rules, s, acts[rng.randrange(len(acts))])
            else:
                got = model.random_step(rules, s, rng)
                if got is None:
                    break
                s = got[1]
            n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, help="games per rulebook (default: per rulebook)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--check", default="hands", choices=("hands", "every", "none"))
    args = ap.parse_args()
    print(f"engine: {native.status().describe()}")
    print(
        f"{'rulebook':<11} {'bare s':>8} {'legal s':>8} {'simulate s':>11} {'ratio':>6}  target ≤ {TARGET}"
    )
    for rb, default_games in GAMES.items():
        games = args.games or default_games
        book = load_rulebook(rb)
        rules = rules_for(book)
        model = model_for(book.game)
        seating = model.seatings(rules)[0]
        times: dict[str, list[float]] = {"bare": [], "legal": [], "simulate": []}
        for r in range(args.rounds):
            for what in ("bare", "legal", "simulate"):
                t = time.perf_counter()
                if what == "simulate":
                    simulate(model, rules, seating, games, r, check=args.check)
                else:
                    bare(model, rules, seating, games, r, what == "legal")
                times[what].append(time.perf_counter() - t)
        b, lg, s = (statistics.median(times[k]) for k in ("bare", "legal", "simulate"))
        ratio = s / b
        verdict = "met" if ratio <= TARGET else "NOT met"
        print(f"{rb:<11} {b:8.2f} {lg:8.2f} {s:11.2f} {ratio:6.2f}  {verdict}")


if __name__ == "__main__":
    main()
