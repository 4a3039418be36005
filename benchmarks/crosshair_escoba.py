"""CrossHair on the Escoba contracts (`arbitro.proofs.escoba.contracts`): symbolic execution of
`legal_actions` and `apply` from source, looking for a position where a contract fails.

CrossHair runs the pure-Python engine (a compiled module is opaque to it), so this sets
ARBITRO_NATIVE=0 before anything imports the engine. Each contract is one condition, given at
most `--iterations` paths and `--per-condition-timeout` seconds of CPU (CrossHair counts its
limits in CPU time, so a busy machine makes a run slower, not shorter; its search is seeded, so
the same limits explore the same paths). A contract is reported as one of:

- `counterexample`: CrossHair found ints naming a position where the contract fails (shown as
  the call and the assertion's message);
- `none found`: no failing path among those explored (not a proof: CrossHair reached only the
  positions on the paths it tried, within the limits);
- `precondition never met`: no path built a position (the limits are too small to say anything).

`--plant NAME` runs the same on a copy of the repository with one of benchmarks/mutants.py's
Escoba engine mutants planted (the harness's own copy and patch), to show that the contracts
catch it.

Usage:
    uv run python benchmarks/crosshair_escoba.py                      # every contract
    uv run python benchmarks/crosshair_escoba.py --contract capture_forced --iterations 200
    uv run python benchmarks/crosshair_escoba.py --plant escoba-forced-capture-skipped
    uv run python benchmarks/crosshair_escoba.py --change capture_forced=false --change capture_sum=14

Exit status: 0 when no contract has a counterexample, 1 when one has, 2 on bad input (an
unknown contract or mutant).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ["ARBITRO_NATIVE"] = "0"

ROOT = Path(__file__).resolve().parent.parent
CONTRACTS = (
    "cards_conserved",
    "captures_sum_to_target",
    "capture_forced",
    "capture_effects",
    "turn_passes",
)
"""The contracts of `arbitro.proofs.escoba.contracts`, in the order they are checked."""
ITERATIONS = 60
"""Paths CrossHair explores per contract by default."""
PER_CONDITION = 40.0
"""CPU seconds per contract by default (a safety net: 60 paths take about 8)."""


@dataclass
class Report:
    """What CrossHair said of one contract."""

    contract: str
    verdict: str  # "counterexample", "none found" or "precondition never met"
    paths: int
    positions: int
    cpu: float
    detail: str = ""


def check(
    contract: str, iterations: int, per_condition: float, changes: dict[str, Any] | None = None
) -> Report:
    """CrossHair on one contract, in this process, under the rules with ``changes``."""
    from crosshair.core_and_libs import analyze_function, run_checkables
    from crosshair.options import AnalysisKind, AnalysisOptionSet
    from crosshair.statespace import MessageType

    from arbitro.model.escoba.cards import tables
    from arbitro.proofs.escoba import contracts

    tables(contracts.prepare(**(changes or {})))
    stats: Counter[str] = Counter()
    listed = contracts.each_play

    def counted(rules: Any, state: Any) -> Any:
        stats["positions"] += 1  # a path that got past the precondition
        return listed(rules, state)

    contracts.each_play = counted  # type: ignore[assignment]
    options = AnalysisOptionSet(
        analysis_kind=[AnalysisKind.asserts],
        max_iterations=iterations,
        per_condition_timeout=per_condition,
        per_path_timeout=max(per_condition / 4, 1.0),
        stats=stats,
    )
    start = time.process_time()
    try:
        messages = run_checkables(analyze_function(getattr(contracts, contract), options))
    finally:
        contracts.each_play = listed  # type: ignore[assignment]
    cpu = time.process_time() - start
    paths, positions = stats["num_paths"], stats["positions"]
    failed = [m for m in messages if m.state in (MessageType.POST_FAIL, MessageType.EXEC_ERR)]
    if failed:
        return Report(contract, "counterexample", paths, positions, cpu, failed[0].message)
    if any(m.state == MessageType.PRE_UNSAT for m in messages):
        return Report(contract, "precondition never met", paths, positions, cpu)
    other = [m for m in messages if m.state not in (MessageType.CANNOT_CONFIRM,)]
    if other:
        return Report(
            contract, "error", paths, positions, cpu, f"{other[0].state.name}: {other[0].message}"
        )
    return Report(contract, "none found", paths, positions, cpu)


def run(
    names: Sequence[str], iterations: int, per_condition: float, changes: dict[str, Any]
) -> int:
    worst = 0
    for name in names:
        r = check(name, iterations, per_condition, changes)
        print(
            f"{r.contract:24} {r.verdict:24} {r.paths:5} paths {r.positions:5} positions {r.cpu:6.1f} s CPU",
            flush=True,
        )
        if r.detail:
            print(f"    {r.detail}", flush=True)
        if r.verdict == "counterexample":
            worst = max(worst, 1)
        elif r.verdict != "none found":
            worst = max(worst, 3)
    return worst


def planted(name: str, argv: Sequence[str], timeout: float) -> int:
    """This script's run on a copy of the repository with the mutant ``name`` planted."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.mutants import MUTANTS, _env, apply_mutant, copy_tree

    found = [m for m in MUTANTS if m.name == name and m.family == "escoba"]
    if not found:
        known = ", ".join(m.name for m in MUTANTS if m.family == "escoba")
        print(f"crosshair_escoba: unknown Escoba mutant {name!r}; known: {known}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="arbitro-crosshair-") as tmp:
        copy = copy_tree(ROOT, Path(tmp))
        apply_mutant(copy, found[0])
        print(f"planted {name}: {found[0].about}", flush=True)
        p = subprocess.Popen(
            [sys.executable, str(copy / "benchmarks" / "crosshair_escoba.py"), *argv],
            cwd=copy, env=_env(copy), stdin=subprocess.DEVNULL, process_group=0,
        )  # fmt: skip
        try:
            return p.wait(timeout=timeout)
        except BaseException:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            if isinstance(sys.exc_info()[1], subprocess.TimeoutExpired):
                print(f"crosshair_escoba: no answer within {timeout:g} s", file=sys.stderr)
                return 3
            raise


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--contract", action="append", choices=CONTRACTS, help="repeatable")
    parser.add_argument("--iterations", type=int, default=ITERATIONS, help="paths per contract")
    parser.add_argument(
        "--per-condition-timeout",
        type=float,
        default=PER_CONDITION,
        help="CPU seconds per contract",
    )
    parser.add_argument("--plant", metavar="MUTANT", help="an Escoba engine mutant to plant first")
    parser.add_argument(
        "--change",
        action="append",
        default=[],
        metavar="FIELD=JSON",
        help="a field of the rules changed, e.g. capture_forced=false (repeatable)",
    )
    args = parser.parse_args(argv)
    if args.iterations < 1 or args.per_condition_timeout <= 0:
        parser.error("--iterations and --per-condition-timeout must be positive")
    names = args.contract or list(CONTRACTS)
    changes: dict[str, Any] = {}
    for item in args.change:
        field, _, text = item.partition("=")
        try:
            changes[field] = json.loads(text)
        except json.JSONDecodeError:
            parser.error(f'--change {item!r}: the value is not JSON (true, 14, "stay")')
    if changes:
        from arbitro.model.schema import EscobaRules

        known = {f.name for f in dataclasses.fields(EscobaRules)}
        unknown = sorted(set(changes) - known)
        if unknown:
            parser.error(f"--change: unknown fields of the Escoba rules: {', '.join(unknown)}")
    if args.plant:
        rest = [f"--iterations={args.iterations}"]
        rest.append(f"--per-condition-timeout={args.per_condition_timeout}")
        rest += [f"--contract={n}" for n in names]
        rest += [f"--change={c}" for c in args.change]
        limit = len(names) * args.per_condition_timeout * 2 + 120
        return planted(args.plant, rest, limit)
    start = resource.getrusage(resource.RUSAGE_SELF)
    code = run(names, args.iterations, args.per_condition_timeout, changes)
    end = resource.getrusage(resource.RUSAGE_SELF)
    spent = end.ru_utime + end.ru_stime - start.ru_utime - start.ru_stime
    print(f"total {spent:.1f} s CPU", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
