"""The explorer's speed per configuration: states per second of CPU and of wall time, one core.

Each exploration runs in this process, one deal after another, with every check the explorer
makes (`violations` on every state, `clauses_used` of every play, near-miss refusals). CPU time
(`time.process_time`) is the figure to compare; the engine measured (compiled or pure Python, see
`arbitro.native`) is printed first: the machine may be shared, and wall time counts
the waits for a core too. With --symmetry the explorer walks orbits (states up to renaming suits);
orbits per second and the states they represent per second are reported apart.

The largest configuration, escoba-28h4 (about 18 million states and 7 minutes of CPU from deal 0),
is not in the default list: name it, `--configs escoba-28h4 --deals 1`.

Usage: uv run python benchmarks/bench_explore.py [--configs escoba-16 escoba-20] [--deals 3]
       [--symmetry] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from arbitro.native import status
from arbitro.proofs.explore import explore_deal
from arbitro.proofs.explore_config import load_config

TARGET = 50_000
"""The states per second of CPU on one core that issue 11 asks of the explorer."""
CONFIGS = ["escoba-tiny", "escoba-12", "escoba-16", "escoba-20", "escoba-28"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--configs", nargs="+", default=CONFIGS)
    p.add_argument("--deals", type=int, default=3, help="seeds 0..N-1 of each configuration")
    p.add_argument("--symmetry", action="store_true", help="walk orbits under renaming suits")
    p.add_argument("--profile", action="store_true", help="profile the first deal of each")
    args = p.parse_args(argv)
    explore_deal(load_config("escoba-tiny"), 0)  # imports and tables made before timing
    print(f"engine: {status().describe()}")
    print(
        f"{'configuration':<16}{'deals':>6}{'orbits':>11}{'states':>11}{'cpu s':>8}{'wall s':>8}"
        f"{'orbits/s cpu':>14}{'states/s cpu':>14}{'states/s wall':>15}"
    )
    for name in args.configs:
        config = load_config(name)
        if args.profile:
            prof = cProfile.Profile()
            prof.runcall(explore_deal, config, 0, symmetry=args.symmetry)
            pstats.Stats(prof).sort_stats("tottime").print_stats(16)
        orbits = states = 0
        cpu = wall = 0.0
        for seed in range(args.deals):
            c0, w0 = time.process_time(), time.perf_counter()
            r = explore_deal(config, seed, symmetry=args.symmetry)
            cpu += time.process_time() - c0
            wall += time.perf_counter() - w0
            orbits += r.orbits
            states += r.states
        print(
            f"{name:<16}{args.deals:>6}{orbits:>11,}{states:>11,}{cpu:>8.2f}{wall:>8.2f}"
            f"{orbits / cpu:>14,.0f}{states / cpu:>14,.0f}{states / wall:>15,.0f}"
        )
    print(
        f"target: {TARGET:,} states/s of CPU on one core (without symmetry, states = orbits);"
        " reported, not asserted"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
