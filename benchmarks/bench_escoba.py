"""Escoba through `legal_actions` + `apply`: this tree against a baseline commit, as a ratio in one run.

The baseline engine (commit BASELINE, 0ab071d, unless --baseline says otherwise) is extracted with
`git archive` into a temporary directory. Each round draws a fresh seed; both engines then play
the same seeded random hands in their own subprocess — deck orders from ``rng.shuffle``, every play
``actions[int(u * len(actions))]`` for the next of a list of ``rng.random()`` draws — and time only
the loop of `ESCOBA.deal`, `ESCOBA.legal_actions` and `ESCOBA.apply`, deck orders shuffled and
draws made beforehand (after WARM_UP untimed hands from another seed), so the time is the
engine's. With --in-loop-draws every play is ``actions[rng.randrange(len(actions))]`` inside the
timed loop instead, as this benchmark measured before: ``randrange`` is Python code, about a
quarter of the loop's instructions with the compiled engine, so it pulls the ratio towards 1. The time is CPU time of the worker (`time.process_time`): the machine
may be shared, and wall time would count waits for a core too.
The two engines run one after the other inside a round, in alternating order, so the machine's
drift touches both; the ratio of a round is baseline time / current time. Both engines must make
exactly the same plays (a digest of every play is compared), so the ratio compares equal work.

Each worker says which engine it ran: this tree's is the compiled one when its build matches the
source (`arbitro.native.status()`; ARBITRO_NATIVE=0 forces pure Python). 0ab071d's tree carries
its compiled build, so against it both engines run compiled (ARBITRO_NATIVE=0 makes both run
from source); an older baseline such as c0e65c5 predates the compiled build and runs from source.

With --instructions each engine instead runs once under `valgrind --tool=callgrind`, which counts
the instructions of the measured loop alone (a dump as it starts and ends): counts that do not
drift with the machine's load, as CPU time does on a shared machine (needs valgrind; about a
minute per engine).

Usage: uv run python benchmarks/bench_escoba.py [--rounds 7] [--hands 400] [--players 2] [--teams]
       [--baseline COMMIT] [--profile] [--instructions] [--in-loop-draws]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "0ab071d"
"""The engine when the scale-out work began (issue 27)."""
TARGETS = {"0ab071d": 1.5, "c0e65c5": 2.5}
"""The speed-up asked of the engine through legal_actions + apply, by baseline: 1.5x against
0ab071d (issue 27), 2.5x against c0e65c5, the engine before issue 15's speed work."""
WARM_UP = 300
"""Untimed hands each engine plays first, from another seed: the engine remembers a little per
hand of cards and per table it has met (bounded; see model.escoba.capture), as it does in any long
simulation or exploration."""

WORKER = r"""
import hashlib, json, os, random, sys, time
try:
    from arbitro.native import status
    engine = status().describe()
except ImportError:  # a tree from before the compiled build
    engine = "pure-Python engine (before the compiled build)"
from arbitro.model.escoba import ESCOBA
from arbitro.model.game import Seating
from arbitro.model.schema import rules_for

seed, hands, players, sides = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
WARM_UP = int(sys.argv[5])
IN_LOOP = sys.argv[6] == "1"
rules = rules_for("escoba-es")
seating = Seating(players, sides, "teams" if sides < players else "")
start = ESCOBA.new_game(rules, seating)
deck = list(ESCOBA.deck(rules, seating))
deal, legal_actions, apply = ESCOBA.deal, ESCOBA.legal_actions, ESCOBA.apply

def play(rng, n):
    orders = []
    for _ in range(n):
        order = deck[:]
        rng.shuffle(order)
        orders.append(order)
    # a play takes a card of the deck: a hand has fewer plays than the deck has cards
    draws = [rng.random() for _ in range(n * len(deck))]
    plays = []
    k = 0
    t0 = time.process_time()
    os.getppid()  # under callgrind (--instructions), a dump: the loop's count starts here
    if IN_LOOP:
        for order in orders:
            s = deal(rules, start, order)
            while s.phase == "play":
                actions = legal_actions(rules, s)
                a = actions[rng.randrange(len(actions))]
                s = apply(rules, s, a)
                plays.append(a)
    else:
        for order in orders:
            s = deal(rules, start, order)
            while s.phase == "play":
                actions = legal_actions(rules, s)
                a = actions[int(draws[k] * len(actions))]
                k += 1
                s = apply(rules, s, a)
                plays.append(a)
    os.getppid()
    seconds = time.process_time() - t0
    digest = hashlib.sha256(repr([tuple(a) for a in plays]).encode()).hexdigest()[:16]
    return seconds, len(plays), digest

play(random.Random("warm-up"), WARM_UP)
seconds, steps, digest = play(random.Random(seed), hands)
print(json.dumps({"seconds": seconds, "steps": steps, "digest": digest, "engine": engine}))
"""


def extract(commit: str, into: Path) -> Path:
    """The tree of ``commit`` unpacked under ``into``; SystemExit with a reason when git cannot."""
    archive = into / "baseline.tar"
    try:
        with archive.open("wb") as out:
            subprocess.run(
                ["git", "-C", str(ROOT), "archive", "--format=tar", commit], stdout=out, check=True
            )
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(
            f"bench_escoba: cannot extract commit {commit!r} with git archive: {e}"
        ) from None
    tree = into / "tree"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="tar")
    return tree


def run(
    tree: Path, seed: str, hands: int, players: int, sides: int, in_loop: bool
) -> dict[str, object]:
    env = dict(os.environ, PYTHONPATH=str(tree), ARBITRO_SPEC_DIR=str(tree / "spec"))
    args = [seed, str(hands), str(players), str(sides), str(WARM_UP), "1" if in_loop else "0"]
    out = subprocess.run(
        [sys.executable, "-c", WORKER, *args],
        env=env,
        capture_output=True,
        text=True,
        cwd=tree,
    )
    if out.returncode != 0:
        raise SystemExit(f"bench_escoba: the engine in {tree} failed:\n{out.stderr.strip()}")
    result: dict[str, object] = json.loads(out.stdout)
    return result


def instructions(
    tree: Path, hands: int, players: int, sides: int, in_loop: bool
) -> tuple[float, str, str]:
    """Instructions per play of the engine in ``tree`` (callgrind), the digest of its plays and
    which engine ran.

    The worker calls `os.getppid` as its timed loop starts and ends, and callgrind dumps its
    counts before each such call: the fourth dump is the measured hands' loop alone (the first
    three are the imports, the warm-up's loop, and what lies between).
    """
    env = dict(os.environ, PYTHONPATH=str(tree), ARBITRO_SPEC_DIR=str(tree / "spec"))
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", "--dump-before=os_getppid*",
             f"--callgrind-out-file={tmp}/cg.%p", sys.executable, "-c", WORKER, "bench-0",
             str(hands), str(players), str(sides), str(WARM_UP), "1" if in_loop else "0"],
            env=env, capture_output=True, text=True, cwd=tree,
        )  # fmt: skip
        if out.returncode != 0:
            raise SystemExit(f"bench_escoba: callgrind failed in {tree}:\n{out.stderr[-2000:]}")
        dumps = sorted(Path(tmp).glob("cg.*.*"), key=lambda d: int(d.suffix[1:]))
        totals = []
        for d in dumps:
            found = re.search(r"^summary: (\d+)", d.read_text(encoding="utf-8"), re.M)
            totals.append(int(found.group(1)) if found else 0)
    if len(totals) < 4:
        raise SystemExit(
            f"bench_escoba: expected four callgrind dumps in {tree}, got {len(totals)}"
        )
    result = json.loads(out.stdout)
    return totals[3] / int(result["steps"]), str(result["digest"]), str(result["engine"])


def profile(hands: int, players: int, sides: int) -> None:
    """Profile this tree's engine in this process (the worker's loop, warm-up included)."""
    saved = sys.argv
    sys.argv = ["worker", "profile", str(hands), str(players), str(sides), str(WARM_UP), "0"]
    prof = cProfile.Profile()
    prof.enable()
    try:
        exec(WORKER, {"__name__": "worker"})
    finally:
        prof.disable()
        sys.argv = saved
    pstats.Stats(prof).sort_stats("tottime").print_stats(14)


def verdict(baseline: str, ratio: float) -> str:
    """The target for this baseline and whether ``ratio`` meets it ("" without a target)."""
    target = next((v for k, v in TARGETS.items() if baseline.startswith(k)), None)
    if target is None:
        return ""
    return f" (target {target}x: {'met' if ratio >= target else 'missed'})"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--hands", type=int, default=400, help="hands per engine per round")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--teams", action="store_true", help="four players in two partnerships")
    p.add_argument("--baseline", default=BASELINE, help="the commit to compare with")
    p.add_argument("--profile", action="store_true", help="profile this tree's engine instead")
    p.add_argument(
        "--instructions", action="store_true", help="count instructions with callgrind instead"
    )
    p.add_argument(
        "--in-loop-draws",
        action="store_true",
        help="draw each play with rng.randrange inside the timed loop (this benchmark's old loop)",
    )
    args = p.parse_args(argv)
    players, sides = (4, 2) if args.teams else (args.players, args.players)
    draws = "draws in the loop" if args.in_loop_draws else "draws made beforehand"
    if args.profile:
        profile(args.hands, players, sides)
        return 0
    if args.instructions:
        with tempfile.TemporaryDirectory() as tmp:
            base_tree = extract(args.baseline, Path(tmp))
            base, base_digest, base_engine = instructions(
                base_tree, args.hands, players, sides, args.in_loop_draws
            )
            cur, cur_digest, cur_engine = instructions(
                ROOT, args.hands, players, sides, args.in_loop_draws
            )
        if base_digest != cur_digest:
            raise SystemExit("bench_escoba: the engines made different plays from the same seed")
        print(f"baseline {args.baseline}: {base_engine}\ncurrent: {cur_engine}")
        print(
            f"escoba-es, {players} players in {sides} sides, {args.hands} hands: instructions per"
            f" play (legal_actions + apply, {draws}): baseline {args.baseline} {base:,.0f}, current"
            f" {cur:,.0f}; ratio {base / cur:.2f}{verdict(args.baseline, base / cur)}"
        )
        return 0
    print(
        f"escoba-es, {players} players in {sides} sides: legal_actions + apply,"
        f" {args.hands} hands per engine per round, {draws}, baseline {args.baseline}"
    )
    ratios: list[float] = []
    rates: dict[str, list[float]] = {"baseline": [], "current": []}
    with tempfile.TemporaryDirectory() as tmp:
        base_tree = extract(args.baseline, Path(tmp))
        trees = {"baseline": base_tree, "current": ROOT}
        for r in range(args.rounds):
            seed = f"bench-{r}"
            order = ["baseline", "current"] if r % 2 == 0 else ["current", "baseline"]
            got = {
                name: run(trees[name], seed, args.hands, players, sides, args.in_loop_draws)
                for name in order
            }
            if got["baseline"]["digest"] != got["current"]["digest"]:
                raise SystemExit(
                    f"bench_escoba: round {r}: the engines made different plays from the same seed"
                )
            if r == 0:
                print(f"baseline {args.baseline}: {got['baseline']['engine']}")
                print(f"current: {got['current']['engine']}")
            secs = {name: float(str(got[name]["seconds"])) for name in got}
            steps = int(str(got["current"]["steps"]))
            for name in got:
                rates[name].append(steps / secs[name])
            ratios.append(secs["baseline"] / secs["current"])
            print(
                f"round {r}: baseline {steps / secs['baseline']:9.0f} plays/s"
                f"   current {steps / secs['current']:9.0f} plays/s   ratio {ratios[-1]:.2f}"
            )
    med = statistics.median(ratios)
    print(
        f"ratio current/baseline: median {med:.2f}, spread {min(ratios):.2f} to {max(ratios):.2f}"
        f" over {len(ratios)} rounds; current median {statistics.median(rates['current']):.0f}"
        " plays/s"
    )
    print(f"median{verdict(args.baseline, med)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
