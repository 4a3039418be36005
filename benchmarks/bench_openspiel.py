"""The OpenSpiel games against the bare engine loop, as a ratio measured in one run.

For each rulebook (its first seating) hands from the same deals are played two ways, interleaved so
that the machine's drift hits both alike:

- bare: the engine alone — new game, deal a shuffled deck, then `legal_actions`, a uniform
  choice and `apply` until the hand ends;
- openspiel: a pyspiel state of `arbitro_<rulebook>(max_hands=1)` — one chance outcome per card,
  then `legal_actions()` (ids), a uniform choice and `apply_action` until it is terminal. With
  ``--observe`` every step also asks the mover's observation tensor and information state, as an
  agent would.

It reports hands and actions per second and the ratio openspiel / bare of seconds per action. It
never asserts.

Usage: uv run python benchmarks/bench_openspiel.py [--hands N] [--rounds 3] [--observe]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

import arbitro.openspiel as aos

HANDS = {"escoba-es": 60, "samba-en": 3, "samba-es": 3, "samba-fr": 3, "canasta-es": 3}


def bare(v: Any, hands: int, seed: int) -> int:
    """The engine loop alone; returns the actions played."""
    n = 0
    for h in range(hands):
        rng = random.Random(f"{seed}:{h}")
        order = list(v.deck)
        rng.shuffle(order)
        s = v.model.deal(v.rules, v.model.new_game(v.rules, v.seating), order)
        while v.model.phase(s) == "play":
            actions = v.model.legal_actions(v.rules, s)
            if not actions:
                break
            s = v.model.apply(v.rules, s, actions[rng.randrange(len(actions))])
            n += 1
    return n


def through_openspiel(game: Any, hands: int, seed: int, observe: bool) -> int:
    """The same hands through pyspiel states; returns the actions played."""
    n = 0
    for h in range(hands):
        rng = random.Random(f"{seed}:{h}")
        order = list(game.variant.deck)
        rng.shuffle(order)
        state = game.new_initial_state()
        for card in order:
            state.apply_action(card)
        while not state.is_terminal():
            if observe:
                p = state.current_player()
                state.observation_tensor(p)
                state.information_state_string(p)
            ids = state.legal_actions()
            state.apply_action(ids[rng.randrange(len(ids))])
            n += 1
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=0, help="hands per rulebook (0: defaults)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--observe", action="store_true")
    args = parser.parse_args()
    print(f"{'rulebook':<11} {'bare act/s':>11} {'openspiel act/s':>16} {'ratio':>6}")
    for rb in HANDS:
        hands = args.hands or HANDS[rb]
        game = aos.load(rb, max_hands=1)
        v = game.variant
        times: dict[str, list[float]] = {"bare": [], "os": []}
        counts = {"bare": 0, "os": 0}
        for r in range(args.rounds):
            t = time.perf_counter()
            counts["bare"] = bare(v, hands, r)
            times["bare"].append(time.perf_counter() - t)
            t = time.perf_counter()
            counts["os"] = through_openspiel(game, hands, r, args.observe)
            times["os"].append(time.perf_counter() - t)
        b = statistics.median(times["bare"]) / counts["bare"]
        o = statistics.median(times["os"]) / counts["os"]
        print(f"{rb:<11} {1 / b:>11,.0f} {1 / o:>16,.0f} {o / b:>6.2f}")


if __name__ == "__main__":
    main()
