"""The long jobs in one process and over 2 local Dask workers: wall seconds, and whether the
results are the same. It never asserts (timings depend on the machine and its load).

Each job runs first in this process, then over one local cluster of `--workers` processes
(started once; its start-up is reported on its own line):

- simulate: escoba-es, `--games` games;
- conform: escoba-es against arbitro's own adapter, `--conform-games` games;
- prove: escoba-es under every reading, two properties (deal-arithmetic, table-rest);
- findings: the derivation for escoba-es (claims, witness searches, open questions in play).

Usage: uv run python benchmarks/bench_fan_out.py [--workers 2] [--games 200] [--conform-games 20]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

from arbitro.conformance.conform import conform
from arbitro.findings.core import derive
from arbitro.games import model_for
from arbitro.model.schema import rules_for
from arbitro.model.spec import load_rulebook
from arbitro.proofs.cluster import cluster
from arbitro.proofs.runner import prove
from arbitro.simulation.simulate import simulate

ADAPTER = [sys.executable, "-m", "arbitro.cli", "adapter"]


def _untimed(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _untimed(x) for k, x in v.items() if "seconds" not in str(k)}
    if isinstance(v, list):
        return [_untimed(x) for x in v]
    return v


def jobs(games: int, conform_games: int) -> dict[str, Callable[[Any], Any]]:
    book = load_rulebook("escoba-es")
    rules = rules_for(book)
    model = model_for(book.game)
    seating = model.seatings(rules)[0]
    props = ["deal-arithmetic", "table-rest"]
    return {
        f"simulate escoba-es, {games} games": lambda c: simulate(
            model, rules, seating, games, 1, client=c
        ).to_json(),
        f"conform escoba-es, {conform_games} games": lambda c: _conform_on(c, conform_games),
        "prove escoba-es --all-readings, 2 properties": lambda c: [
            r.to_json()
            for r in prove(
                ["escoba-es"], all_readings=True, properties=props, workers=1, client=c
            ).results
        ],
        "findings derivation, escoba-es": lambda c: derive([book], client=c),
    }


def _conform_on(client: Any, games: int) -> Any:
    """conform here (no client) or over an open client (the cluster every job here shares)."""
    import contextlib

    from arbitro.conformance import conform as cf

    @contextlib.contextmanager
    def given(scheduler: str | None, workers: int) -> Any:
        yield client

    real = cf.cluster
    cf.cluster = given  # type: ignore[assignment]
    try:
        return conform("escoba-es", ADAPTER, games, 1).to_json()
    finally:
        cf.cluster = real  # type: ignore[assignment]


def main() -> None:
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--conform-games", type=int, default=20)
    args = ap.parse_args()
    todo = jobs(args.games, args.conform_games)
    one: dict[str, tuple[float, Any]] = {}
    for name, run in todo.items():
        t = time.perf_counter()
        got = run(None)
        one[name] = (time.perf_counter() - t, got)
    t = time.perf_counter()
    with cluster(None, args.workers) as client:
        print(f"{args.workers} local workers started in {time.perf_counter() - t:.1f} s")
        print(
            f"| job | 1 process, wall s | {args.workers} workers, wall s | speed-up | same result |"
        )
        print("|---|---:|---:|---:|---|")
        for name, run in todo.items():
            t = time.perf_counter()
            got = run(client)
            wall = time.perf_counter() - t
            before, expected = one[name]
            same = json.dumps(_untimed(got), sort_keys=True, default=str) == json.dumps(
                _untimed(expected), sort_keys=True, default=str
            )
            print(
                f"| {name} | {before:.1f} | {wall:.1f} | {before / wall:.2f}× |"
                f" {'yes' if same else 'NO'} |"
            )


if __name__ == "__main__":
    main()
