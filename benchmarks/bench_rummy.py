"""Samba and Canasta through `legal_actions` + `apply`: this engine against a baseline, as a ratio.

Two worker processes play the same seeded hands: one imports the engine of this checkout, the
other the engine of a baseline commit (default 0ab071d, the engine when the scale-out work began),
extracted with `git archive` into a temporary directory and put first on its PYTHONPATH. Each
hand is dealt from a deck order shuffled by its seed and played to its end by drawing uniformly
among `RUMMY.legal_actions` (one `random.Random(seed)` for both the deal and the choices) and
playing the action with `RUMMY.apply`; a worker times its hands in CPU time
(`time.process_time`: on a shared machine wall time also counts the waits for a core), the deal
included. Rounds alternate between the two workers (baseline first in even rounds, this
engine first in odd ones), so both see the same drift of a shared machine; the ratio of each
round is the baseline's time over this engine's for the same hands, and the median is printed
with the lowest and highest round. Hands whose games differ between the engines (a rule fixed
since the baseline) are counted and shown: their actions differ, so the ratio is also given per
action.

Then, for this engine alone, the rates of its other drivers: `RUMMY.random_step` (a uniform
choice drawn without listing every action) and the `fast` policy of `arbitro.simulation.policies`.

Usage: uv run python benchmarks/bench_rummy.py [--baseline REV] [--rounds N] [--hands N] [BOOK ...]
Target: at least 4x the baseline 0ab071d for every book (reported, never asserted; its tree
carries its compiled build, so both engines run compiled once this checkout's build is made;
docs/scaling.md). Against c0e65c5, the engine before its rewrite (`--baseline c0e65c5`), it was 3x.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOKS = ("samba-es", "samba-en", "samba-fr", "canasta-es")
BASELINE = "0ab071d"
"""The baseline compared with unless --baseline names another: the engine when the scale-out
work began."""
TARGETS = {"c0e65c5": 3.0, "0ab071d": 4.0}
"""The target ratio against each baseline it was set for (the one given first: 3x; the engine
when the scale-out work began: 4x)."""


def target_for(rev: str) -> float | None:
    """The target ratio against the baseline `rev` (a commit id or its prefix), if one was set."""
    return next((v for k, v in TARGETS.items() if rev.startswith(k)), None)


SEATING = r"""from arbitro.model.rummy import RUMMY
from arbitro.model.schema import rules_for

def seating_for(rules):
    for s in RUMMY.seatings(rules):
        if s.players == 4 and s.sides == 2:
            return s
    return RUMMY.seatings(rules)[0]
"""
"""The worker scripts' common start: the engine, and the seating every script plays (four
players in two sides where the book has it). It runs in a tree of the baseline too, so it is
source text, not an import."""

WORKER = (
    r"""
import json, random, sys, time
"""
    + SEATING
    + r"""

def hand(rules, seating, deck, seed):
    rng = random.Random(seed)
    order = deck[:]
    rng.shuffle(order)
    s = RUMMY.new_game(rules, seating, dealer=seed % seating.players)
    s = RUMMY.deal(rules, s, order)
    n = 0
    trail = 0
    while RUMMY.phase(s) == "play":
        acts = RUMMY.legal_actions(rules, s)
        a = acts[rng.randrange(len(acts))]
        s = RUMMY.apply(rules, s, a)
        n += 1
        trail = hash((trail, len(acts)))
    return n, trail

cache = {}
for line in sys.stdin:
    book, first, count = line.split()
    if book not in cache:
        rules = rules_for(book)
        seating = seating_for(rules)
        cache[book] = (rules, seating, list(RUMMY.deck(rules, seating)))
        hand(*cache[book], 10**6)  # warm the per-rules tables
    rules, seating, deck = cache[book]
    actions = 0
    trails = []
    start = time.process_time()
    for seed in range(int(first), int(first) + int(count)):
        n, trail = hand(rules, seating, deck, seed)
        actions += n
        trails.append([n, trail])
    took = time.process_time() - start
    print(json.dumps({"seconds": took, "actions": actions, "trails": trails}), flush=True)
"""
)


def engine_of(tree: Path) -> str:
    """Which engine the tree runs: compiled, or from source (and why)."""
    env = dict(os.environ, PYTHONPATH=str(tree), ARBITRO_SPEC_DIR=str(tree / "spec"))
    probe = (
        "try:\n from arbitro import native; print(native.status().describe())\n"
        "except ImportError:\n print('pure-Python engine (a tree without the compiled build)')"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd=tree, capture_output=True, text=True
    )
    return done.stdout.strip() or f"unknown ({done.stderr.strip()[-200:]})"


def extract(rev: str, into: Path) -> Path:
    """The baseline's model, arbitro and spec folders, from `git archive`, under `into`."""
    blob = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, "model", "arbitro", "spec"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        tar.extractall(into, filter="tar")
    return into


class Worker:
    """One engine in a subprocess, playing hands on request."""

    def __init__(self, path: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(path), ARBITRO_SPEC_DIR=str(path / "spec"))
        env["PYTHONHASHSEED"] = "0"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=path,
        )

    def play(self, book: str, first: int, count: int) -> dict[str, object]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{book} {first} {count}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit("a worker stopped; run it alone to see why")
        got: dict[str, object] = json.loads(line)
        return got

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def compare(books: list[str], rev: str, rounds: int, hands: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Worker(extract(rev, Path(tmp)))
        this = Worker(ROOT)
        print(f"baseline {rev} against this checkout: {rounds} rounds of {hands} hands per book")
        print(f"baseline: {engine_of(Path(tmp))}; this checkout: {engine_of(ROOT)}")
        print(
            f"{'rulebook':<12}{'baseline h/s':>13}{'this h/s':>10}{'ratio':>8}{'lowest':>8}"
            f"{'highest':>9}{'per action':>12}{'same games':>12}"
        )
        try:
            for book in books:
                ratios: list[float] = []
                per_action: list[float] = []
                tb = tt = 0.0
                same = total = 0
                for k in range(rounds):
                    first = 1000 * k
                    order = (base, this) if k % 2 == 0 else (this, base)
                    got = {id(w): w.play(book, first, hands) for w in order}
                    b, t = got[id(base)], got[id(this)]
                    sb, st = float(b["seconds"]), float(t["seconds"])  # type: ignore[arg-type]
                    ab, at = int(b["actions"]), int(t["actions"])  # type: ignore[call-overload]
                    ratios.append(sb / st)
                    per_action.append((sb / ab) / (st / at))
                    tb += sb
                    tt += st
                    pairs = zip(b["trails"], t["trails"], strict=True)  # type: ignore[call-overload]
                    same += sum(x == y for x, y in pairs)
                    total += hands
                n = rounds * hands
                print(
                    f"{book:<12}{n / tb:>13.1f}{n / tt:>10.1f}{statistics.median(ratios):>7.2f}x"
                    f"{min(ratios):>7.2f}x{max(ratios):>8.2f}x"
                    f"{statistics.median(per_action):>11.2f}x{same:>7}/{total}"
                )
        finally:
            base.close()
            this.close()


def other_drivers(books: list[str], seconds: float) -> None:
    """Rates of this engine's random_step and the fast policy (no baseline)."""
    import random

    from arbitro.model.rummy import RUMMY
    from arbitro.model.schema import RummyRules, rules_for
    from arbitro.simulation.policies import choose

    print(f"\nthis engine's other drivers, {seconds:g} s each")
    print(f"{'rulebook':<12}{'driver':<13}{'hands/s':>9}{'actions/hand':>14}{'went out':>10}")
    for book in books:
        rules = rules_for(book)
        assert isinstance(rules, RummyRules)
        seating = next(
            (s for s in RUMMY.seatings(rules) if s.players == 4 and s.sides == 2),
            RUMMY.seatings(rules)[0],
        )
        deck = list(RUMMY.deck(rules, seating))
        for driver in ("random_step", "fast"):
            rng = random.Random(1)
            hands = actions = out = 0
            start = time.perf_counter()
            while time.perf_counter() - start < seconds:
                order = deck[:]
                rng.shuffle(order)
                s = RUMMY.deal(rules, RUMMY.new_game(rules, seating, hands % 4), order)
                while RUMMY.phase(s) == "play":
                    if driver == "fast":
                        step = choose("fast", RUMMY, rules, s, rng)
                    else:
                        step = RUMMY.random_step(rules, s, rng)
                    assert step is not None
                    s = step[1]
                    actions += 1
                hands += 1
                res = RUMMY.last_hand(s)
                out += res is not None and res.reason == "went-out"
            took = time.perf_counter() - start
            print(
                f"{book:<12}{driver:<13}{hands / took:>9.1f}{actions / hands:>14.1f}"
                f"{out / hands:>10.0%}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("books", nargs="*", default=list(BOOKS))
    ap.add_argument("--baseline", default=BASELINE, help="the commit to compare with")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--hands", type=int, default=10, help="hands per round and book")
    ap.add_argument("--seconds", type=float, default=3.0, help="per driver, for the other drivers")
    args = ap.parse_args()
    compare(args.books, args.baseline, args.rounds, args.hands)
    if args.seconds > 0:
        other_drivers(args.books, args.seconds)


if __name__ == "__main__":
    main()
