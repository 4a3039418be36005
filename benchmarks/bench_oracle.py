"""Throughput of the oracle: actions validated per second by `arbitro check`, and round-trip
requests per second through `arbitro serve`. A script, not a test: it reports, it does not assert.

    uv run python benchmarks/bench_oracle.py [--games N] [--rulebook ID ...]

Target (issue: oracle protocol): 50,000 actions/s for checking.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

from arbitro import native
from arbitro.games import choose_seating, model_for
from arbitro.model.schema import rules_for
from arbitro.model.spec import load_rulebook, rulebook_ids
from arbitro.oracle.check import check_lines
from arbitro.simulation.play import play_transcript


def transcripts(rulebook: str, games: int) -> list[list[str]]:
    book = load_rulebook(rulebook)
    rules = rules_for(book)
    model = model_for(book.game)
    seating = choose_seating(model, rules, None, False, None)
    return [list(play_transcript(model, rules, seating, seed, {}).lines()) for seed in range(games)]


def bench_check(
    rulebook: str, games: int, repeats: int = 5, at_least: float = 0.3
) -> tuple[float, int]:
    """Best of `repeats` runs, each checking the transcripts over and over for at least `at_least` s
    (a short run on a shared virtual machine is mostly noise)."""
    ts = transcripts(rulebook, games)
    per_pass = sum(sum(1 for line in t if line.startswith('{"action"')) for t in ts)
    rates = []
    for _ in range(repeats):
        checked = 0
        start = time.perf_counter()
        while time.perf_counter() - start < at_least:
            for t in ts:
                verdict = check_lines(t)
                assert verdict.ok, verdict.to_json()
            checked += per_pass
        rates.append(checked / (time.perf_counter() - start))
    return max(rates), statistics.median(rates), per_pass


def bench_serve(rulebook: str, requests: int = 2000) -> float:
    proc = subprocess.Popen(
        [sys.executable, "-m", "arbitro.cli", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def ask(req: dict[str, object]) -> dict[str, object]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(req) + "\n")
        proc.stdin.flush()
        reply: dict[str, object] = json.loads(proc.stdout.readline())
        return reply

    start_reply = ask({"id": 0, "op": "start", "rulebook": rulebook})
    deck = start_reply["result"]["deck"]  # type: ignore[index]
    state = ask(
        {"id": 1, "op": "deal", "state": ask({"id": 0, "op": "new_game"})["result"], "order": deck}
    )["result"]
    start = time.perf_counter()
    for i in range(requests):
        ask({"id": i, "op": "legal", "state": state})
    rate = requests / (time.perf_counter() - start)
    ask({"id": -1, "op": "quit"})
    proc.wait(timeout=10)
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rulebook", action="append")
    args = parser.parse_args()
    print(f"engine: {native.status().describe()}")
    for rb in args.rulebook or rulebook_ids():
        rate, median, actions = bench_check(rb, args.games)
        verdict = "meets" if rate >= 50_000 else "below"
        print(
            f"{rb:11} check {rate:9,.0f} actions/s best, {median:,.0f} median (5 runs of at least 0.3 s over {actions} actions) — {verdict} the 50,000 target"
        )
        print(f"{rb:11} serve {bench_serve(rb):9,.0f} 'legal' round trips/s")


if __name__ == "__main__":
    main()
