"""One deal explored by one process and split over local Dask workers: speed, memory, exchange.

Each run is `arbitro explore RULEBOOK --config C --deal D --json` in a fresh process (alone, then
with `--workers N` for each N asked), so each one's peak memory is its own: for one process the
peak resident size of that process, for workers each worker process's (the `partitions` of
`--json`; the process that starts the run holds no states). Printed per run: states, the walk's
wall seconds, CPU seconds summed over the processes that walked, states per second of CPU and of
wall time, peak memory per process, and what crossed between workers (successors and bytes).

Then the memory of a visited set, measured in this process with tracemalloc: the states of one
deal kept as objects in a set (as one process keeps a level) and packed (as a partition keeps
them), in bytes per state, and what 10 million states would take.

On a shared machine wall time counts waits for a core; CPU seconds are the figure to compare.
The engine measured (compiled or pure Python) is printed first.

Usage: uv run python benchmarks/bench_scale.py [--config escoba-28] [--deal 0] [--workers 2]
       [--rulebook escoba-es]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tracemalloc
from typing import Any

from arbitro.native import status
from arbitro.proofs.explore import explore_deal
from arbitro.proofs.explore_config import load_config, model_of
from arbitro.proofs.partition import packer_for


def run(argv: list[str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "arbitro.cli", *argv, "--json"], capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"arbitro {' '.join(argv)} failed: {done.stderr.strip()[-400:]}")
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def set_bytes(config: str, deal: int) -> tuple[int, float, float]:
    """States of the deal, and bytes per state of a set of them: as objects, and packed."""
    c = load_config(config)
    graph: dict[str, Any] = {}
    explore_deal(c, deal, graph=graph)
    model = model_of(c)
    rows = [n["state"] for n in graph["nodes"]]
    del graph

    def measure(make: Any) -> float:
        tracemalloc.start()
        kept = make()
        size, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return size / len(kept)

    states = [model.state_from_json(c.rules, r) for r in rows]
    packer = packer_for(model, c.rules, states[0])
    # objects: each state made afresh inside the measurement, as an explorer holds them
    as_objects = measure(lambda: {model.state_from_json(c.rules, r) for r in rows})
    as_packed = measure(lambda: {packer.pack(s) for s in states})
    return len(rows), as_objects, as_packed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rulebook", default="escoba-es")
    p.add_argument("--config", default="escoba-28")
    p.add_argument("--deal", type=int, default=0)
    p.add_argument("--workers", type=int, nargs="+", default=[2])
    p.add_argument("--sets", default="escoba-20", help="the configuration whose set is measured")
    args = p.parse_args(argv)
    print(f"engine: {status()}")
    base = ["explore", args.rulebook, "--config", args.config, "--deal", str(args.deal)]
    print(f"{' '.join(base)}")
    head = (
        f"{'processes':>10} {'states':>12} {'walk s':>8} {'CPU s':>8} {'states/s CPU':>13}"
        f" {'states/s wall':>14} {'peak MiB per process':>22} {'sent':>10} {'sent MiB':>9}"
    )
    print(head)
    for n in [0, *args.workers]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        d = run(base + (["--workers", str(n)] if n else []))
        if n:
            peaks = [q["peak_memory_bytes"] / 2**20 for q in d["partitions"]]
            sent, sent_bytes = d["exchange"]["states"], d["exchange"]["bytes"] / 2**20
        else:
            # the child's own peak (the largest child so far: one process runs first)
            after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            peaks = [max(after, before) / 1024]
            sent, sent_bytes = 0, 0.0
        print(
            f"{n or 1:>10} {d['states']:>12,} {d['walk_seconds']:>8.1f} {d['cpu_seconds']:>8.1f}"
            f" {d['states_per_cpu_second'] or 0:>13,} {d['states_per_second'] or 0:>14,}"
            f" {' / '.join(f'{x:,.0f}' for x in peaks):>22} {sent:>10,} {sent_bytes:>9.1f}"
        )
    n, objects, packed = set_bytes(args.sets, args.deal)
    print(
        f"a set of the {n:,} states of {args.sets} deal {args.deal}: {objects:.0f} bytes per state"
        f" as objects, {packed:.0f} packed; 10 million states: {objects * 1e7 / 2**30:.2f} GiB"
        f" as objects, {packed * 1e7 / 2**30:.2f} GiB packed"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
