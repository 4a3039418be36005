"""Random complete hands per second, per rummy rulebook, in one process.

A hand is dealt from a shuffled deck order and played to its end by uniformly random legal
actions. Two drivers are timed:

- `reference`: `legal_actions` lists every legal action, one is drawn uniformly, `apply` plays it
  (what the simulator and the tests do);
- `sampled`: `arbitro.model.rummy.playout.random_step` draws the same uniform choice by trying the
  candidate actions in random order until one is legal, without listing them all, and returns
  the next state with it;
- `playout`: `arbitro.model.rummy.playout.play_hand` plays the whole hand that way in one call (the
  tests replay its actions through `legal_actions` and `apply`);
- `fast`: `arbitro.model.rummy.fast.play_hand`, the fast playout: incremental mutable state and a fixed
  random policy (take the pile when it fits, meld what fits, discard at random), handing the
  rare non-plain moments to the engine; the tests replay its hands through `apply` and compare
  the state after every action. Its hands are not the uniform sampler's: actions per hand and
  how hands end are printed beside the rate (counted on a separate, untimed sample for `fast`,
  which records no actions when timed).

Every hand is dealt by the engine (`RUMMY.deal`) and scored by it; both are in the timing.

Usage: uv run python benchmarks/bench_rummy.py [--seconds S]
       [--driver reference|sampled|playout|fast|both|all] [BOOK ...]
("all", the default, times the four; "both" reference and sampled.)
Targets: Samba >= 700 hands/s, Canasta >= 1,000 hands/s.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from arbitro.model.game import Seating
from arbitro.model.rummy import RUMMY, fast
from arbitro.model.rummy.playout import play_hand, random_step
from arbitro.model.rummy.state import State
from arbitro.model.schema import RummyRules, rules_for

BOOKS = ("samba-es", "samba-en", "samba-fr", "canasta-es")
TARGET = {"samba-es": 700, "samba-en": 700, "samba-fr": 700, "canasta-es": 1000}


def seating_for(rules: RummyRules) -> Seating:
    for s in RUMMY.seatings(rules):
        if s.players == 4 and s.sides == 2:
            return s
    return RUMMY.seatings(rules)[0]


def _reference(rules: RummyRules, s: State, rng: random.Random) -> State:
    acts = RUMMY.legal_actions(rules, s)
    return RUMMY.apply(rules, s, acts[rng.randrange(len(acts))])


def _sampled(rules: RummyRules, s: State, rng: random.Random) -> State:
    return random_step(rules, s, rng)[1]


DRIVERS: dict[str, Callable[[RummyRules, State, random.Random], State]] = {
    "reference": _reference,
    "sampled": _sampled,
}


def hands_per_second(
    book: str, driver: str, seconds: float, seed: int = 1
) -> tuple[float, float, int, float]:
    """(hands per second, actions per hand, hands played, share of hands someone went out of)
    for one book and driver."""
    rules = rules_for(book)
    assert isinstance(rules, RummyRules)
    seating = seating_for(rules)
    step = DRIVERS.get(driver)
    rng = random.Random(seed)
    deck = list(RUMMY.deck(rules, seating))
    hands = actions = out = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        s = RUMMY.new_game(rules, seating, dealer=hands % seating.players)
        order = deck[:]
        rng.shuffle(order)
        s = RUMMY.deal(rules, s, order)
        if driver == "fast":
            s, _ = fast.play_hand(rules, s, rng)
        elif step is None:  # the whole hand in one call
            s, played = play_hand(rules, s, rng)
            actions += len(played)
        else:
            while s.phase == "play":
                s = step(rules, s, rng)
                actions += 1
        hands += 1
        out += s.result is not None and s.result.reason == "went-out"
    took = time.perf_counter() - start
    if driver == "fast":
        actions = _fast_actions(rules, seating, deck, 200, seed) * hands
    return hands / took, actions / max(1, hands), hands, out / max(1, hands)


def _fast_actions(
    rules: RummyRules, seating: Seating, deck: list[int], hands: int, seed: int
) -> float:
    """Mean actions per hand of the fast playout, from hands played with `record` (untimed)."""
    rng = random.Random(seed)
    total = 0
    for i in range(hands):
        order = deck[:]
        rng.shuffle(order)
        s = RUMMY.deal(rules, RUMMY.new_game(rules, seating, dealer=i % seating.players), order)
        total += len(fast.play_hand(rules, s, rng, record=True)[1])
    return total / hands


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("books", nargs="*", default=list(BOOKS))
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument(
        "--driver",
        choices=("reference", "sampled", "playout", "fast", "both", "all"),
        default="all",
    )
    args = ap.parse_args()
    drivers = {
        "both": ("reference", "sampled"),
        "all": ("reference", "sampled", "playout", "fast"),
    }.get(args.driver, (args.driver,))
    print(
        f"{'rulebook':<12}{'driver':<11}{'hands/s':>9}{'actions/hand':>14}{'went out':>10}"
        f"{'hands':>7}{'target':>8}"
    )
    for book in args.books:
        for d in drivers:
            rate, per_hand, n, out = hands_per_second(book, d, args.seconds)
            print(
                f"{book:<12}{d:<11}{rate:>9.1f}{per_hand:>14.1f}{out:>10.0%}{n:>7}"
                f"{TARGET.get(book, 0):>8}"
            )


if __name__ == "__main__":
    main()
