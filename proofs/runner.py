"""Running the properties over rulebooks and their readings, in parallel, without repeating work.

`prove` checks every property of each rulebook under the given options and, with
`all_readings`, under every selectable reading too: each reading of a clause the book says twice
or is silent on, and each optional rule turned on, one at a time on top of the given options.

A property reads some fields of the rules; while it runs, the fields it reads are recorded. Its
result under another reading is the same when that reading gives every recorded field the same
value (the property is a function of the fields it reads), and is then reused (`Result.cached`)
instead of proved again. Rule sets are checked in worker processes (`jobs`).

Every solver call gets `rlimit` Z3 resource units (deterministic: the verdicts do not depend on the
machine's load); `timeout` is only a wall-clock safety net per solver call.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from arbitro.model.errors import OptionError
from arbitro.model.family import GameFamily
from arbitro.model.schema import Options, rules_for
from arbitro.model.spec import Rulebook, load_rulebook, use_spec_file
from arbitro.proofs import smt
from arbitro.proofs.cluster import run_tasks
from arbitro.proofs.properties import family, for_family, names
from arbitro.proofs.recording import Recorder
from arbitro.proofs.verdict import NotEncoded, Result, Verdict, not_covered

R = TypeVar("R")
Reading = dict[str, str | bool]


def readings(book: Rulebook, base: Options | None = None) -> list[Reading]:
    """The given options, then each alternative reading and optional rule on top of them."""
    start: Reading = dict(base or {})
    out = [start]
    for c in book.clauses:
        if c.key in start:
            continue
        if c.optional:
            out.append({**start, c.key: True})
        elif len(c.readings) > 1:
            for r in c.readings:
                if r.label != c.default:
                    out.append({**start, c.key: r.label})
    return out


def distinct_readings(book: Rulebook, family: GameFamily[R, Any]) -> Iterator[tuple[Reading, R]]:
    """Each of `readings(book)` whose rules differ from every earlier one's, with those rules as
    the family's own type; none when the book's game is not the family's."""
    if not family.plays(book.game):
        return
    done: set[Any] = set()
    for opts in readings(book):
        rules = rules_for(book, opts)
        if family.owns(rules) and rules not in done:
            done.add(rules)
            yield opts, rules


@dataclass
class Job:
    rulebook: str
    options: Reading
    properties: list[str]
    timeout: float
    known: dict[str, Result] = field(default_factory=dict)
    rlimit: int = smt.DEFAULT_RLIMIT
    spec: str | None = None  # the user's own spec file the rulebook comes from


def run_job(job: Job) -> list[tuple[Result, dict[str, Any]]]:
    """Prove the job's properties of one rule set; each result with the fields it read."""
    if job.spec is not None:
        use_spec_file(Path(job.spec))  # a worker started afresh knows only the registered books
    with smt.use_rlimit(job.rlimit):
        return _run_job(job)


def _run_job(job: Job) -> list[tuple[Result, dict[str, Any]]]:
    rules = rules_for(job.rulebook, job.options)
    before: dict[str, Result] = dict(job.known)
    out: list[tuple[Result, dict[str, Any]]] = []
    for prop in for_family(family(rules)):
        if prop.name not in job.properties:
            continue
        rec = Recorder(rules)
        try:
            res = prop.run(rec, job.timeout, before)
        except NotEncoded as e:
            res = Result(
                prop.name,
                rules.rulebook,
                {},
                prop.statement,
                (not_covered(prop.name, prop.statement, str(e)),),
                f"UNKNOWN: the encoding has no constraints for {e}",
                0.0,
            )
        res = dataclasses.replace(res, options=dict(job.options))
        before[prop.name] = res
        out.append((res, dict(object.__getattribute__(rec, "read"))))
    return out


@dataclass
class Report:
    """Every result, in rulebook order, options order and property order."""

    results: list[Result]
    seconds: float
    timeout: float
    all_readings: bool
    rlimit: int = smt.DEFAULT_RLIMIT

    def counts(self) -> dict[str, int]:
        out = {v.value: 0 for v in Verdict}
        for r in self.results:
            out[r.verdict.value] += 1
        return out

    @property
    def ok(self) -> bool:
        return all(r.verdict is Verdict.PROVED for r in self.results)


SAFETY_NET = 600.0
"""Default seconds of wall clock a solver call may take before it is stopped: a safety net only,
far above what the resource limit allows on this project's machine, so that a verdict is decided
by the resource limit (the same on any load), never by the clock."""

TOGETHER = (
    ("score-step", "opening-table"),
    ("conservation", "table-rest", "score-bounds", "most-escobas", "hand-scores"),
)
"""Properties run in one job, the later using the earlier's result or the work they share: Escoba's
score-bounds and most-escobas ask the same proof of the most escobas on the guarded relation, and
with conservation and table-rest the same steps of the relation and the same deals, each built
once per process (`relation.step`, `invariants.deal_state`, `invariants.definitions`)."""
HEAVY = ("score-bounds", "conservation", "meld-caps")
"""The slowest properties, started first so that the workers finish together."""


def _split(job: Job) -> list[Job]:
    """One job per property (those that feed each other kept together)."""
    groups: list[list[str]] = []
    for name in job.properties:
        group = next((g for g in TOGETHER if name in g), None)
        if group is not None:
            names = [n for n in group if n in job.properties]
            if names not in groups:
                groups.append(names)
        else:
            groups.append([name])
    return [
        Job(job.rulebook, job.options, g, job.timeout, job.known, job.rlimit, job.spec)
        for g in groups
    ]


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a run: `report` holds the results finished before it (every worker ended)."""

    def __init__(self, report: Report | None = None) -> None:
        super().__init__()
        self.report = report


class _Partial(KeyboardInterrupt):
    def __init__(self, got: list[list[tuple[Result, dict[str, Any]]]]) -> None:
        super().__init__()
        self.got = got


def _ignore_sigint() -> None:
    """In a worker: Ctrl-C is the parent's to handle (it ends the workers), so that a worker
    never dies half-way through a query and leaves the pool waiting."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _end_workers(pool: ProcessPoolExecutor) -> None:
    """Every worker process of the pool ended now, not when its query ends."""
    procs = list(getattr(pool, "_processes", {}).values())
    for p in procs:
        with contextlib.suppress(Exception):
            p.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        with contextlib.suppress(Exception):
            p.join(5)
            if p.is_alive():
                p.kill()
                p.join(5)


def _preload() -> None:
    """The solver and every module of the proofs imported here, before the workers are forked
    from this process: each worker would otherwise import (and, without cached bytecode,
    compile) them again, about half a second of CPU each."""
    import importlib
    import pkgutil

    from arbitro import proofs

    smt.preload()
    for m in pkgutil.walk_packages(proofs.__path__, proofs.__name__ + "."):
        importlib.import_module(m.name)


def _run_all(
    jobs: list[Job],
    workers: int,
    progress: Callable[[int, int], None] | None = None,
    client: Any = None,
) -> list[list[tuple[Result, dict[str, Any]]]]:
    """Each job's results, in order; split into single properties and run heaviest first: over
    the Dask ``client``'s workers, else ``workers`` processes here. Ctrl-C raises _Partial with
    the results of the parts finished before it."""
    parts = [(i, part) for i, job in enumerate(jobs) for part in _split(job)]
    parts.sort(
        key=lambda ip: min(
            (HEAVY.index(n) for n in ip[1].properties if n in HEAVY), default=len(HEAVY)
        )
    )
    done: dict[int, list[tuple[Result, dict[str, Any]]]] = {}

    def collected() -> list[list[tuple[Result, dict[str, Any]]]]:
        out: list[list[tuple[Result, dict[str, Any]]]] = [[] for _ in jobs]
        for k, (i, _) in enumerate(parts):
            out[i] += done.get(k, [])
        return out

    try:
        if client is not None or workers <= 1 or len(parts) <= 1:
            tasks = [(part,) for _, part in parts]
            for k, got in run_tasks(client, run_job, tasks, in_order=False):
                done[k] = got
                if progress is not None:
                    progress(len(done), len(parts))
        else:
            ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
            if ctx.get_start_method() == "fork":
                _preload()
            pool = ProcessPoolExecutor(
                max_workers=workers, mp_context=ctx, initializer=_ignore_sigint
            )
            try:
                futures = {pool.submit(run_job, part): k for k, (_, part) in enumerate(parts)}
                for f in as_completed(futures):
                    done[futures[f]] = f.result()
                    if progress is not None:
                        progress(len(done), len(parts))
            except BaseException:
                _end_workers(pool)
                raise
            pool.shutdown(wait=True)
    except KeyboardInterrupt:
        raise _Partial(collected()) from None
    return collected()


def check_properties(wanted: Sequence[str] | None) -> list[str]:
    known = names()
    if not wanted:
        return names(default=True)
    bad = [w for w in wanted if w not in known]
    if bad:
        raise OptionError(f"unknown property {bad[0]!r}; properties: {', '.join(known)}")
    return list(wanted)


def prove(
    rulebooks: Sequence[str],
    options: Options | None = None,
    *,
    all_readings: bool = False,
    timeout: float = SAFETY_NET,
    properties: Sequence[str] | None = None,
    workers: int = 2,
    rlimit: int = smt.DEFAULT_RLIMIT,
    spec: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    client: Any = None,
) -> Report:
    """Check the properties of each rulebook (every reading with `all_readings`): each solver call
    gets `rlimit` resource units, and `timeout` seconds of wall clock as a safety net. `spec` is
    a user's own spec file (its rulebook is then one of `rulebooks`). One task per book, reading
    and property: over a Dask ``client``'s workers when given, else ``workers`` processes here;
    the results are the same. Ctrl-C raises Interrupted, whose report holds the results
    finished before it."""
    started = time.perf_counter()
    if timeout <= 0:
        raise OptionError(f"--timeout must be a positive number of seconds, got {timeout:g}")
    if rlimit < 0:
        raise OptionError(f"--rlimit must be 0 (no limit) or a positive number, got {rlimit}")
    props = check_properties(properties)
    if spec is not None:
        use_spec_file(Path(spec))
    books = [load_rulebook(b) for b in rulebooks]
    base: Reading = dict(options or {})
    for b in books:
        rules_for(b, base)  # an option a book does not offer is refused here, by name

    def job(book: str, reading: Reading, names: list[str], known: dict[str, Result]) -> Job:
        own = spec if spec is not None and book not in registered else None
        return Job(book, reading, names, timeout, known, rlimit, own)

    from arbitro.model.spec import rulebook_ids

    registered = set(rulebook_ids())
    done: dict[tuple[str, str], list[tuple[Result, dict[str, Any]]]] = {}
    order: list[tuple[str, Reading]] = [(b.id, base) for b in books]

    def report() -> Report:
        results: list[Result] = []
        for book_id, reading in order:
            by_name = {r.name: r for r, _ in done.get((book_id, _key(reading)), [])}
            results += [by_name[p] for p in props if p in by_name]
        return Report(results, time.perf_counter() - started, timeout, all_readings, rlimit)

    try:
        first = _run_all([job(b.id, base, props, {}) for b in books], workers, progress, client)
    except _Partial as e:
        first = e.got
        for b, got in zip(books, first, strict=True):
            done[(b.id, _key(base))] = got
        raise Interrupted(report()) from None
    for b, got in zip(books, first, strict=True):
        done[(b.id, _key(base))] = got
    if all_readings:
        jobs: list[Job] = []
        reused: dict[tuple[str, str], list[tuple[Result, dict[str, Any]]]] = {}
        for b in books:
            defaults = done[(b.id, _key(base))]
            for reading in readings(b, base)[1:]:
                order.append((b.id, reading))
                rules = rules_for(b, reading)
                same: list[tuple[Result, dict[str, Any]]] = []
                again: list[str] = []
                for res, read in defaults:
                    if all(getattr(rules, f) == v for f, v in read.items()):
                        same.append(
                            (dataclasses.replace(res, options=dict(reading), cached=True), read)
                        )
                    else:
                        again.append(res.name)
                reused[(b.id, _key(reading))] = same
                if again:
                    known = {r.name: r for r, _ in same}
                    jobs.append(job(b.id, reading, again, known))
        try:
            again_got = _run_all(jobs, workers, progress, client)
        except _Partial as e:
            for again_job, got in zip(jobs, e.got, strict=True):
                reused[(again_job.rulebook, _key(again_job.options))] += got
            done.update(reused)
            raise Interrupted(report()) from None
        for again_job, got in zip(jobs, again_got, strict=True):
            reused[(again_job.rulebook, _key(again_job.options))] += got
        done.update(reused)
    return report()


def _key(options: Mapping[str, str | bool]) -> str:
    return repr(sorted(options.items()))


__all__ = [
    "SAFETY_NET",
    "Interrupted",
    "Job",
    "Report",
    "check_properties",
    "prove",
    "readings",
    "run_job",
]
