"""How long `arbitro prove` takes: the five books with their default readings, then every reading;
and `arbitro prove --refine` (the guarded relation against the engine).

Targets: the default readings in at most 30 s of CPU, every reading in at most 5 minutes,
`prove --refine` in at most 5 minutes of CPU, on this 2-core machine. Verdicts are decided by Z3
resource limits, so they do not change with the load; the times do. Both runs go through `arbitro.proofs.runner.prove`, exactly what the command runs
(two worker processes by default). Reported per run: wall seconds, the CPU seconds of this process
and its workers (the machine is shared, so the load average is printed too: wall time grows with
other work, CPU time much less), the verdicts, how many results were reused across readings, and
the slowest properties. Nothing is asserted.

Also reported, read from the last recorded mutation runs (`benchmarks/mutants.py --json`, kept in
benchmarks/mutants-engine.json and benchmarks/mutants-spec.json; no mutant is run here): the share of
engine mutants killed by `prove --refine` alone, by the suite, by either (targets: 95% by refine
alone, 100% by the suite), and the share of spec mutants that turn a property REFUTED.

`prove --refine` is reported in its parts (the explorer configurations, the states sampled from
full-size play, the kept hands and built positions), each per game family: CPU, states and CPU a
state. The 5-minute target is the configurations' part (#22: "over the explorer configurations").
`--refine-scale F` samples F of the default states of full-size play and extrapolates that part
by the states (the full run takes about an hour of CPU, most of it the sampled rummy states); the
configurations and the kept hands are walked whole either way. `--sampled-only` measures the
sampled part alone (per rulebook: CPU, states, CPU a state and the minutes its 100,000 take),
the quick way to follow the cost of a sampled state.

Usage: uv run python benchmarks/bench_prove.py [--jobs 2] [--defaults-only] [--refine-only]
                                               [--refine-scale F]
       uv run python benchmarks/bench_prove.py --mutants-only
       uv run python benchmarks/bench_prove.py --sampled-only --refine-scale 0.01 [--book B]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path
from typing import Any

from arbitro.model.spec import rulebook_ids
from arbitro.proofs.runner import Report, prove

TARGETS = {"defaults": 30.0, "every reading": 300.0, "refine": 300.0}
HERE = Path(__file__).resolve().parent
ENGINE_RUN = HERE / "mutants-engine.json"
SPEC_RUN = HERE / "mutants-spec.json"
KILL_TARGETS = {"refine": 95.0, "suite": 100.0}


def _rate(rows: list[dict[str, Any]], killed: Any) -> tuple[int, int, float]:
    n = sum(killed(r) for r in rows)
    return n, len(rows), 100.0 * n / max(len(rows), 1)


def mutation_rates(engine: Path = ENGINE_RUN, spec: Path = SPEC_RUN) -> list[str]:
    """The kill rates of the last recorded mutation runs, one line each."""
    lines: list[str] = []
    if engine.is_file():
        rows: list[dict[str, Any]] = json.loads(engine.read_text(encoding="utf-8"))
        for layer in ("refine", "suite"):
            ran = [r for r in rows if layer in r and r[layer]["status"] != "error"]
            n, total, pct = _rate(ran, lambda r, x=layer: r[x]["status"] == "killed")
            errors = sum(1 for r in rows if layer in r and r[layer]["status"] == "error")
            missing = sum(1 for r in rows if layer not in r)
            target = KILL_TARGETS[layer]
            verdict = (
                f"not measured ({missing} not run, {errors} errors)"
                if missing or errors or not total
                else "met"
                if pct >= target
                else "NOT met"
            )
            lines.append(
                f"engine mutants killed by {layer:<6} {n}/{total} ({pct:.0f}%)  target "
                f"{target:.0f}%: {verdict}"
            )
        n, total, pct = _rate(
            rows, lambda r: any(r[x]["status"] == "killed" for x in ("refine", "suite") if x in r)
        )
        lines.append(f"engine mutants killed by either  {n}/{total} ({pct:.0f}%)")
    else:
        lines.append(f"engine mutants: no run recorded ({engine.name} is absent)")
    if spec.is_file():
        srows: list[dict[str, Any]] = json.loads(spec.read_text(encoding="utf-8"))
        proved = [r for r in srows if r["status"] != "error"]
        n, total, pct = _rate(proved, lambda r: r["status"] == "killed")
        ran = {r.get("name") for r in srows}
        unrun = [x for x in spec_mutant_names() if x not in ran]
        refused = len(srows) - len(proved)
        lines.append(
            f"spec mutants turning a property REFUTED  {n}/{total} ({pct:.0f}%)"
            + (f"  ({refused} refused before any property)" if refused else "")
            + (f"  ({len(unrun)} not run: {', '.join(unrun)})" if unrun else "")
        )
    else:
        lines.append(f"spec mutants: no run recorded ({spec.name} is absent)")
    return lines


def spec_mutant_names() -> list[str]:
    """The spec mutants benchmarks/mutants.py defines (read from it, not run)."""
    import importlib.util
    import sys

    name = "_bench_prove_mutants"
    where = importlib.util.spec_from_file_location(name, HERE / "mutants.py")
    if where is None or where.loader is None:
        return []
    module = sys.modules.get(name)
    if module is None:
        module = importlib.util.module_from_spec(where)
        sys.modules[name] = module  # its dataclasses look their module up there
        where.loader.exec_module(module)
    return [m.name for m in module.SPEC_MUTANTS]


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(label: str, all_readings: bool, jobs: int, timeout: float) -> Report:
    load = os.getloadavg()[0]
    cpu0 = cpu_seconds()
    report = prove(rulebook_ids(), all_readings=all_readings, timeout=timeout, workers=jobs)
    cpu = cpu_seconds() - cpu0
    counts = report.counts()
    reused = sum(r.cached for r in report.results)
    target = TARGETS[label]
    verdict = "met" if cpu <= target else "NOT met"
    print(
        f"{label:<14} {report.seconds:7.1f} s wall  {cpu:7.1f} s CPU  load {load:4.1f}  "
        f"{len(report.results)} results ({counts['PROVED']} PROVED, {counts['REFUTED']} REFUTED, "
        f"{counts['UNKNOWN']} UNKNOWN; {reused} reused)  target {target:.0f} s CPU: {verdict}"
    )
    slow = sorted((r for r in report.results if not r.cached), key=lambda r: -r.seconds)[:5]
    for r in slow:
        options = ", ".join(f"{k}={v}" for k, v in r.options.items())
        print(
            f"    {r.seconds:6.1f} s  {r.rulebook} {r.name}" + (f" ({options})" if options else "")
        )
    return report


PARTS = ("configurations", "sampled", "kept hands")
"""The parts of `prove --refine` reported apart: every explorer configuration walked from its
deals, the states sampled from full-size play, the kept hands and built positions."""


def _part(rep: Any) -> str:
    if rep.target.endswith("(sampled)"):
        return "sampled"
    if rep.target.endswith("(kept hands)"):
        return "kept hands"
    return "configurations"


def _family_of_target(target: str) -> str:
    """The game family a report's target is about (its configuration's or rulebook's)."""
    from arbitro.model.schema import rules_for
    from arbitro.proofs import refine
    from arbitro.proofs.explore_config import config_names, load_config

    name = target.split(" ")[0].rstrip(",")
    book = load_config(name).rulebook if name in config_names() else name
    return refine.family(rules_for(book, None))


def measure_refine(scale: float = 1.0) -> None:
    """`prove --refine` with its defaults (every configuration, then the sampled states, then the
    kept hands), each part's CPU reported apart and per game family. With `scale` < 1 only
    `scale` of the `SAMPLES` states per rulebook are sampled and that part's CPU is extrapolated
    to the default, linearly in the states (an over-estimate where a refiner compiles its relation
    in its first states, as Escoba's does per mover and dealer); the configurations (the target's
    part) and the kept hands are walked whole either way."""
    from arbitro.proofs import refine

    budget = refine.CONFIG_BUDGET
    samples = max(1, round(refine.SAMPLES * scale))
    cpu0 = cpu_seconds()
    wall = time.perf_counter()
    reports = refine.run(rulebook_ids(), (), samples=samples, budget=budget)
    cpu = cpu_seconds() - cpu0
    states = sum(r.states for r in reports)
    agree = sum(r.ok for r in reports)
    scaled = f" (samples scaled by {scale:g})" if scale != 1.0 else ""
    print(
        f"{'refine':<14} {time.perf_counter() - wall:7.1f} s wall  {cpu:7.1f} s CPU{scaled}  "
        f"{states:,} states, {agree}/{len(reports)} checks agree"
    )

    def full(rep: Any) -> float:
        """The report's CPU extrapolated to the default budgets."""
        if _part(rep) != "sampled":
            return float(rep.cpu_seconds)
        return float(rep.cpu_seconds) / scale

    rows: dict[tuple[str, str], list[Any]] = {}
    for r in reports:
        rows.setdefault((_part(r), _family_of_target(r.target)), []).append(r)
    for part in PARTS:
        got = [r for r in reports if _part(r) == part]
        if not got:
            continue
        measured = sum(r.cpu_seconds for r in got)
        n = sum(r.states for r in got)
        line = (
            f"  {part:<15} {measured:7.1f} s CPU  {n:>9,} states  "
            f"{1000 * measured / max(n, 1):6.2f} ms a state"
        )
        if scale != 1.0:
            line += f"  ~{sum(full(r) for r in got):7.0f} s CPU at the default budgets"
        if part == "configurations":
            target = TARGETS["refine"]
            total = sum(full(r) for r in got)
            line += f"  target {target:.0f} s CPU: " + ("met" if total <= target else "NOT met")
        print(line)
        for (p, fam), rs in sorted(rows.items()):
            if p != part:
                continue
            c = sum(r.cpu_seconds for r in rs)
            k = sum(r.states for r in rs)
            more = f"  ~{sum(full(r) for r in rs):7.0f} s at the defaults" if scale != 1.0 else ""
            print(
                f"    {fam:<13} {c:7.1f} s CPU  {k:>9,} states  "
                f"{1000 * c / max(k, 1):6.2f} ms a state{more}"
            )
    print(f"  (set-up and the rest: {cpu - sum(r.cpu_seconds for r in reports):.1f} s CPU)")
    for r in reports:
        print(f"    {r.cpu_seconds:6.1f} s  {r.target}: {r.states:,} states"
              + ("" if r.ok else f" ({r.unavailable or 'DISAGREES'})"))  # fmt: skip


def measure_sampled(scale: float, books: list[str]) -> None:
    """The sampled part of `prove --refine` alone (no configuration, no kept hand): `scale` of
    the `SAMPLES` states of each rulebook, split over its seatings as the command splits them
    (the same seeds, so the same states as the command's first ones), the refiner built for
    each seating before its walk is timed; CPU a state per rulebook and per game family. A
    refiner compiles some of its checks when it first needs them (Escoba's per mover and dealer,
    about 20 s a seating), so at a small `scale` that book's figure is an over-estimate."""
    from arbitro.model.schema import rules_for
    from arbitro.proofs import refine
    from arbitro.proofs.explore_config import model_for_rulebook

    per_family: dict[str, list[float]] = {}
    for book in books:
        rules = rules_for(book, None)
        model = model_for_rulebook(book)
        seatings = list(model.seatings(rules))
        n = max(1, round(refine.SAMPLES * scale) // len(seatings))
        cpu = 0.0
        states = 0
        for seating in seatings:
            check = refine.refiner_for(rules, seating)
            rep = refine.sampled(model, rules, seating, n, rulebook=book, check=check)
            if not rep.ok:
                print(f"  {rep.target}: DISAGREES ({rep.first})")
            cpu += rep.cpu_seconds
            states += rep.states
        fam = refine.family(rules)
        got = per_family.setdefault(fam, [0.0, 0.0])
        got[0] += cpu
        got[1] += states
        print(
            f"  sampled {book:<12} {cpu:7.1f} s CPU  {states:>7,} states  "
            f"{1000 * cpu / max(states, 1):6.2f} ms a state  "
            f"~{cpu / max(states, 1) * refine.SAMPLES / 60:5.1f} min CPU for {refine.SAMPLES:,}"
        )
    for fam, (cpu, states) in sorted(per_family.items()):
        print(f"  sampled {fam:<12} {1000 * cpu / max(states, 1):6.2f} ms a state")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=600.0, help="the wall-clock safety net")
    p.add_argument("--defaults-only", action="store_true")
    p.add_argument("--refine-only", action="store_true")
    p.add_argument("--mutants-only", action="store_true", help="only the recorded kill rates")
    p.add_argument(
        "--refine-scale",
        type=float,
        default=1.0,
        metavar="F",
        help="sample F of prove --refine's full-size states (0 < F <= 1) and extrapolate",
    )
    p.add_argument(
        "--sampled-only",
        action="store_true",
        help="only prove --refine's sampled part (with --refine-scale F: F of its states)",
    )
    p.add_argument(
        "--book",
        action="append",
        metavar="RULEBOOK",
        help="with --sampled-only: these rulebooks (default: every rulebook)",
    )
    args = p.parse_args()
    if not 0 < args.refine_scale <= 1:
        p.error(f"--refine-scale must be in (0, 1], got {args.refine_scale}")
    started = time.perf_counter()
    for line in mutation_rates():
        print(line)
    if args.mutants_only:
        return
    if args.sampled_only:
        measure_sampled(args.refine_scale, args.book or rulebook_ids())
        print(f"total {time.perf_counter() - started:.1f} s")
        return
    if not args.refine_only:
        measure("defaults", False, args.jobs, args.timeout)
        if not args.defaults_only:
            measure("every reading", True, args.jobs, args.timeout)
    if not args.defaults_only:
        measure_refine(args.refine_scale)
    print(f"total {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
