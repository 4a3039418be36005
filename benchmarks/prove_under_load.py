"""Are `arbitro prove`'s verdicts the same on an idle machine and on a busy one?

Runs the command twice with the same arguments, each time as its own process, and compares what
it decided: first as the machine is, then with CPU-bound processes running beside it (one per
core by default, the kind of load a shared CI machine has). Every verdict, bound, witness and
unsat core must be the same; only the times may differ. Verdicts are decided by Z3 resource
limits (`--rlimit`), counted in the solver's own steps, so they should not move with the load.

Can it fail? Give the solver a wall-clock limit instead of a resource limit
(`-- --rlimit 0 --timeout 0.5`): the calls near that limit end in time on the idle machine and
run out under the load, so their verdicts change from PROVED to UNKNOWN and this script reports
each one (exit status 1).

Usage: uv run python benchmarks/prove_under_load.py [--burners N] [-- PROVE-ARGS…]
       (PROVE-ARGS default to none: every book under its default readings, every property)
Exit status: 0 the same, 1 some verdict differs, 2 a run failed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# keys whose values are times or settings of the run, not what it decided
IGNORED = frozenset({"seconds", "timeout", "cpu_seconds", "wall_seconds"})

BURN = "while True:\n    pass\n"


def decided(node: Any) -> Any:
    """What a `prove --json` report decided: the report with every time left out."""
    if isinstance(node, dict):
        return {k: decided(v) for k, v in node.items() if k not in IGNORED}
    if isinstance(node, list):
        return [decided(v) for v in node]
    return node


def _key(result: dict[str, Any]) -> str:
    options = ",".join(f"{k}={v}" for k, v in sorted(result.get("options", {}).items()))
    return f"{result['rulebook']} {result['property']}" + (f" ({options})" if options else "")


def differences(first: dict[str, Any], second: dict[str, Any]) -> list[str]:
    """One line for each result whose decision differs between two `prove --json` reports."""
    a = {_key(r): decided(r) for r in first.get("results", [])}
    b = {_key(r): decided(r) for r in second.get("results", [])}
    lines: list[str] = []
    for key in sorted(a.keys() | b.keys()):
        if key not in a or key not in b:
            lines.append(f"{key}: only in the {'first' if key in a else 'second'} run")
            continue
        if a[key] == b[key]:
            continue
        va, vb = a[key].get("verdict"), b[key].get("verdict")
        checks = _check_changes(a[key].get("checks", []), b[key].get("checks", []))
        what = f"{va} -> {vb}" if va != vb else "same verdict, different details"
        lines.append(f"{key}: {what}" + (f" ({'; '.join(checks)})" if checks else ""))
    return lines


def _check_changes(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> list[str]:
    a = {c.get("name"): c for c in first}
    b = {c.get("name"): c for c in second}
    out: list[str] = []
    for name in sorted(a.keys() | b.keys(), key=str):
        if a.get(name) != b.get(name):
            va = (a.get(name) or {}).get("verdict", "absent")
            vb = (b.get(name) or {}).get("verdict", "absent")
            out.append(f"{name}: {va} -> {vb}" if va != vb else f"{name}: details")
    return out


@contextmanager
def burners(n: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """`n` CPU-bound processes beside whatever runs inside; all gone when it ends."""
    procs = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(n)]
    try:
        yield procs
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


def run(prove_args: list[str]) -> tuple[dict[str, Any], float, float]:
    """One `arbitro prove --json` as its own process: its report, wall and CPU seconds."""
    command = [sys.executable, "-m", "arbitro.cli.main", "prove", "--json", *prove_args]
    before = os.times()
    wall = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - wall
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    if done.returncode not in (0, 1):
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"`{' '.join(command[2:])}` exited {done.returncode}: {last}")
    report: dict[str, Any] = json.loads(done.stdout)
    return report, wall, cpu


def _summary(label: str, report: dict[str, Any], wall: float, cpu: float) -> str:
    counts = report.get("counts", {})
    shown = ", ".join(f"{counts[k]} {k}" for k in ("PROVED", "REFUTED", "UNKNOWN") if k in counts)
    return (
        f"{label:<22} {wall:7.1f} s wall  {cpu:7.1f} s CPU  load {os.getloadavg()[0]:5.1f}  "
        f"{len(report.get('results', []))} results ({shown})"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--burners", type=int, default=os.cpu_count() or 2, help="CPU-bound processes beside"
    )
    p.add_argument("prove_args", nargs="*", help="arguments for `arbitro prove` (after --)")
    args = p.parse_args(argv)
    if args.burners < 1:
        p.error("--burners must be at least 1")
    try:
        alone, wall, cpu = run(args.prove_args)
        print(_summary("as the machine is", alone, wall, cpu))
        with burners(args.burners):
            busy, wall, cpu = run(args.prove_args)
        print(_summary(f"{args.burners} burners beside", busy, wall, cpu))
    except (RuntimeError, json.JSONDecodeError) as e:
        print(f"prove_under_load: {e}", file=sys.stderr)
        return 2
    diff = differences(alone, busy)
    if not diff:
        print(f"the same decisions: {len(alone.get('results', []))} results, every check and core")
        return 0
    print(f"{len(diff)} results decided differently under load:")
    for line in diff:
        print(f"  {line}")
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
