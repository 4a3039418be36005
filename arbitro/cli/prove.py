"""`arbitro prove`: the properties of the rulebooks, proved, refuted or unknown, as a table.

Exit status: 0 when every property is PROVED, 1 when some property is REFUTED or UNKNOWN (the
table says which, with the witness or the reason), 2 on bad input (an unknown rulebook, option or
property, a timeout that is not a positive number).
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from typing import TYPE_CHECKING, Any

from arbitro.model.spec import rulebook_ids

if TYPE_CHECKING:
    from arbitro.proofs import refine
    from arbitro.proofs.runner import Report

VERDICT_STYLE = {"PROVED": "bold green", "REFUTED": "bold red", "UNKNOWN": "yellow"}
EXIT_DOC = "exit status: 0 every property PROVED, 1 some REFUTED or UNKNOWN, 2 bad input"
RLIMIT_HELP = (
    "Z3 resource units each solver call may use before it is UNKNOWN (default {default:,}; 0: no "
    "limit). Counted in the solver's own steps, so verdicts are the same on an idle or a loaded "
    "machine"
)


def register(sub: Any) -> None:
    """Add the `prove` subcommand to the CLI's subparsers."""
    from arbitro.proofs.properties import names

    p = sub.add_parser(
        "prove",
        help="prove properties of the rulebooks with Z3: conservation, meld caps, score bounds…",
        description="Check each property of each rulebook with the Z3 solver: PROVED (no "
        "counterexample exists in the encoding), REFUTED (with a witness) or UNKNOWN (a timeout, "
        "or a part of the rules the encoding does not cover). " + EXIT_DOC + ".",
    )
    from arbitro.proofs.runner import SAFETY_NET
    from arbitro.proofs.smt import DEFAULT_RLIMIT

    p.add_argument("rulebooks", nargs="*", metavar="RULEBOOK", help="rulebook ids (default: all)")
    p.add_argument(
        "--spec",
        metavar="FILE",
        help="prove your own spec file (its id must be its own); with no RULEBOOK, only it",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="choose a reading (KEY=LABEL) or turn an optional rule on (KEY=true); repeatable; "
        "with --refine, the full-size play of the RULEBOOKs named is walked under it",
    )
    p.add_argument(
        "--all-readings",
        action="store_true",
        help="also every alternative reading and optional rule of each book, one at a time",
    )
    p.add_argument(
        "--property",
        action="append",
        default=[],
        metavar="NAME",
        help=f"only these properties (repeatable): {', '.join(names())}",
    )
    p.add_argument(
        "--rlimit",
        type=int,
        default=DEFAULT_RLIMIT,
        metavar="N",
        help=RLIMIT_HELP.format(default=DEFAULT_RLIMIT),
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        default=SAFETY_NET,
        metavar="S",
        help="a wall-clock safety net: seconds a solver call may take before it is stopped "
        f"(default {SAFETY_NET:g}; an answer it cuts off is UNKNOWN and says so)",
    )
    p.add_argument(
        "--jobs", type=int, default=None, metavar="N", help="worker processes here (default 2)"
    )
    from arbitro.fan_out import add_fan_out

    add_fan_out(p, "one task per book, reading and property")
    p.add_argument(
        "--claims",
        action="store_true",
        help="also check every claim the books make about themselves (their [[claim]] entries)",
    )
    p.add_argument(
        "--refine",
        action="store_true",
        help="instead of the properties, check the proofs' guarded move relation against the "
        "engine: every state of the explorer's configurations, then states sampled from play",
    )
    p.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="NAME",
        help="with --refine: only these configurations (spec/configs/ names or files; repeatable)",
    )
    p.add_argument(
        "--deals",
        type=int,
        default=None,
        metavar="N",
        help="with --refine: walk deals 0..N-1 of each configuration (default: every deal of a "
        "deck of at most 8 cards, else deals until about 40,000 states)",
    )
    p.add_argument(
        "--samples",
        type=int,
        default=None,
        metavar="N",
        help="with --refine: states sampled from full-size play of each rulebook, split over its "
        "seatings (default 100,000; 0: none)",
    )
    p.add_argument(
        "--transcript",
        metavar="FILE",
        help="with --refine: write the first disagreement's transcript to FILE",
    )
    p.add_argument("--force", action="store_true", help="overwrite the --transcript file")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_prove)


MAX_TIMEOUT = 86_400.0
"""The longest --timeout, in seconds (a day): a query longer than that is not waited for."""


def _seconds(text: str) -> float:
    """A --timeout: a finite positive number of seconds, at most MAX_TIMEOUT."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--timeout must be a number of seconds, got {text[:40]!r}"
        ) from None
    if not 0 < value <= MAX_TIMEOUT:  # also refuses nan
        raise argparse.ArgumentTypeError(
            f"--timeout must be more than 0 and at most {MAX_TIMEOUT:,.0f} seconds, got {text[:40]}"
        )
    return value


def capped_jobs(asked: int, flag: str = "--jobs") -> int:
    """Worker processes: at least 1, at most the cores of this machine (more only slows every
    worker down and multiplies memory); a larger number is lowered, saying so on stderr."""
    import os

    from arbitro.model.errors import OptionError

    if asked < 1:
        raise OptionError(f"{flag} must be at least 1, got {asked}")
    cores = os.cpu_count() or 1
    if asked > cores:
        sys.stderr.write(f"arbitro: {flag} {asked} lowered to {cores}, the cores of this machine\n")
        return cores
    return asked


def parse_options(pairs: list[str]) -> dict[str, str | bool]:
    """`KEY=VALUE` pairs as options: true/on and false/off are booleans, anything else a label."""
    from arbitro.model.errors import OptionError

    out: dict[str, str | bool] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise OptionError(f"option {pair!r} is not KEY=VALUE (e.g. --option target_tie=shared)")
        out[key] = {"true": True, "on": True, "false": False, "off": False}.get(
            value.lower(), value
        )
    return out


def cmd_prove(args: argparse.Namespace) -> int:
    from arbitro.model.errors import OptionError
    from arbitro.proofs import smt
    from arbitro.proofs.runner import prove

    fan = bool(args.workers or args.scheduler)
    if fan and args.jobs is not None:
        raise OptionError(
            "--jobs (processes here) and --workers/--scheduler (a Dask cluster) both say where"
            " the proofs run; give one"
        )
    jobs = capped_jobs(2 if args.jobs is None else args.jobs)
    if args.rlimit < 0:
        raise OptionError(f"--rlimit must be 0 (no limit) or a positive number, got {args.rlimit}")
    books = list(args.rulebooks)
    if args.spec is not None:
        from arbitro.model.spec import use_spec_file

        own = use_spec_file(args.spec).id
        if own not in books:
            books.append(own)
    if args.refine:
        if fan:
            raise OptionError(
                "--refine runs in this process; --workers/--scheduler are for the properties"
            )
        return cmd_refine(args, books)
    books = books or rulebook_ids()
    smt.set_rlimit(args.rlimit)  # the claims below are checked in this process
    from arbitro.proofs.cluster import cluster
    from arbitro.proofs.runner import Interrupted, Report
    from arbitro.reports.terminal import ProgressBar

    progress = ProgressBar("proofs")
    interrupted = False
    try:
        with cluster(args.scheduler, args.workers) as client:
            report = prove(
                books,
                parse_options(args.option),
                all_readings=args.all_readings,
                timeout=args.timeout,
                properties=args.property or None,
                workers=jobs,
                rlimit=args.rlimit,
                spec=args.spec,
                progress=progress,
                client=client,
            )
    except Interrupted as e:
        progress.close()
        if e.report is None:
            raise
        report = e.report
        interrupted = True
    except KeyboardInterrupt:  # while the cluster's workers started: nothing was proved yet
        progress.close()
        report = Report([], 0.0, args.timeout, args.all_readings, args.rlimit)
        interrupted = True
    progress.close()
    claims: list[Any] = []
    if args.claims and not interrupted:
        from arbitro.proofs.claims import check_book

        for book in books:
            claims += check_book(
                book, parse_options(args.option), args.timeout, all_readings=args.all_readings
            )
    if args.json:
        sys.stdout.write(
            json.dumps(
                {
                    "solver": f"z3 {smt.version()}",
                    "rlimit": args.rlimit,
                    "timeout": args.timeout,
                    "all_readings": args.all_readings,
                    "seconds": round(report.seconds, 2),
                    **({"interrupted": True} if interrupted else {}),
                    "counts": report.counts(),
                    "results": [r.to_json() for r in report.results],
                    **({"claims": [c.to_json() for c in claims]} if args.claims else {}),
                },
                indent=2,
                ensure_ascii=False,
            )
            + "\n"
        )
    else:
        sys.stdout.write(render(report, smt.version()))
        if args.claims:
            sys.stdout.write(render_claims(claims))
    if interrupted:
        sys.stderr.write(
            f"arbitro: interrupted: {len(report.results)} results finished before Ctrl-C\n"
        )
        return 130
    refuted = any(c.verdict.value != "PROVED" for c in claims)
    return 0 if report.ok and not refuted else 1


def cmd_refine(args: argparse.Namespace, books: list[str]) -> int:
    """`prove --refine`: one line per configuration or seating, then the first disagreement's
    transcript (also to --transcript FILE). Exit 0 when every check agrees, 1 otherwise."""
    from arbitro.model.errors import OptionError
    from arbitro.model.spec import load_rulebook
    from arbitro.proofs import refine

    if args.deals is not None and args.deals < 1:
        raise OptionError(f"--deals must be at least 1, got {args.deals}")
    if args.samples is not None and args.samples < 0:
        raise OptionError(f"--samples must be 0 or more, got {args.samples}")
    if args.transcript:
        from arbitro.safe_write import check_target

        check_target(args.transcript, force=args.force)
    for b in books:
        load_rulebook(b)  # an unknown id is refused here, by name
    if args.all_readings:
        raise OptionError(
            "--all-readings is for the properties; with --refine choose a reading with --option"
        )
    options = parse_options(args.option)
    if options and not books:
        raise OptionError(
            "with --refine, --option applies to the RULEBOOKs named (their full-size play); "
            "name them, or use a configuration that names its readings"
        )
    if not books and not args.config:
        books = rulebook_ids()
    samples = refine.SAMPLES if args.samples is None else args.samples
    if options:
        from arbitro.model.schema import rules_for

        for b in books:
            rules_for(b, options)  # an unknown option or label is refused here, by name

    def line(rep: refine.Report) -> None:
        if not args.json:
            sys.stdout.write(refine_line(rep) + "\n")
            sys.stdout.flush()

    reports = refine.run(
        books, args.config, deals=args.deals, samples=samples, options=options, progress=line
    )
    first = next((r for r in reports if r.first is not None), None)
    if args.json:
        sys.stdout.write(
            json.dumps({"refine": [r.to_json() for r in reports]}, indent=2, ensure_ascii=False)
            + "\n"
        )
    else:
        states = sum(r.states for r in reports)
        bad = sum(not r.ok for r in reports)
        sys.stdout.write(
            f"{len(reports)} checks, {states:,} states: "
            + ("the relation and the engine agree on every one" if not bad else f"{bad} failed")
            + "\n"
        )
        if first is not None:
            sys.stdout.write("The first disagreement, as a transcript `arbitro check` replays:\n")
            for t in first.transcript:
                sys.stdout.write(json.dumps(t, ensure_ascii=False) + "\n")
    if args.transcript and first is not None:
        from arbitro.safe_write import write_text

        text = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in first.transcript)
        write_text(args.transcript, text, force=args.force)
    return 0 if all(r.ok for r in reports) else 1


def refine_line(rep: refine.Report) -> str:
    """One report as a line: what was checked and whether the relation and the engine agree."""
    if rep.unavailable:
        return f"  NOT CHECKED  {rep.target}: {rep.unavailable}"
    what = f"{rep.states:,} states, {rep.actions:,} actions, {rep.cpu_seconds:.1f} s CPU"
    if rep.bounded:
        what += " (walks bounded)"
    if rep.first is None:
        return f"  AGREE        {rep.target}: {what}"
    return f"  DISAGREE     {rep.target}: {what}; {rep.first.kind}: {rep.first.detail}"


def render_claims(claims: list[Any]) -> str:
    """The claims as text: one line each (verdict, claim, reading, method), then its result."""
    out = ["", "The books' claims:"]
    for c in claims:
        reading = f" [{_options_text(c.options)}]" if c.options else ""
        out.append(f"  {c.verdict.value:<8} {c.claim.id}{reading} ({c.method})")
        w = c.check.witness.text if c.check.witness is not None else c.check.reason
        out += ["    " + line for line in _wrap(w)]
    counts = {
        v: sum(c.verdict.value == v for c in claims) for v in ("PROVED", "REFUTED", "UNKNOWN")
    }
    out.append(
        f"{len(claims)} claims: {counts['PROVED']} PROVED, {counts['REFUTED']} REFUTED,"
        f" {counts['UNKNOWN']} UNKNOWN"
    )
    return "\n".join(out) + "\n"


def _options_text(options: Any) -> str:
    return ", ".join(
        f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items()
    )


def render(report: Report, version: str) -> str:
    """The report as text lines no wider than the terminal (100 columns when piped), each
    verdict in colour on a terminal."""
    from arbitro.proofs.verdict import Verdict
    from arbitro.reports.terminal import coloured, width

    out: list[str] = []
    counts = report.counts()
    limit = f"{report.rlimit:,} resource units" if report.rlimit else "no resource limit"
    out.append(
        f"arbitro prove: Z3 {version}, {limit} per solver call"
        + (", every reading" if report.all_readings else "")
    )
    out.append("")
    head = f"{'property':<16} {'verdict':<8} {'time':>6}  result"
    last = None
    details: list[str] = []
    vacuous: dict[str, dict[str, list[str]]] = {}
    for r in report.results:
        group = (r.rulebook, _options_text(r.options))
        if group != last:
            if last is not None:
                out.append("")
            title = r.rulebook + (f" ({group[1]})" if group[1] else "")
            out.append(title)
            out.append("  " + head)
            last = group
        time_text = "cached" if r.cached else f"{r.seconds:.1f}s"
        prefix = f"  {r.name:<16} {r.verdict.value:<8} {time_text:>6}  "
        body = textwrap.wrap(r.summary, width() - len(prefix), break_on_hyphens=False) or [""]
        verdict = coloured(r.verdict.value, VERDICT_STYLE.get(r.verdict.value, ""))
        shown = prefix.replace(r.verdict.value, verdict, 1)
        out.append(shown + body[0])
        out += [" " * len(prefix) + line for line in body[1:]]
        where = r.rulebook + (f" ({group[1]})" if group[1] else "")
        for c in r.checks:
            label = f"{where} {r.name}/{c.name}"
            if c.verdict is Verdict.REFUTED and c.witness is not None:
                details += _wrap(f"{label} REFUTED: {c.witness.text}")
            elif c.verdict is Verdict.UNKNOWN:
                details += _wrap(f"{label} UNKNOWN: {c.reason or 'no answer'}")
            elif c.vacuous:
                prefix_id = f"{r.rulebook}:"
                why = " with ".join(x.removeprefix(prefix_id) for x in c.core) or "the encoding"
                vacuous.setdefault(where, {}).setdefault(why, []).append(f"{r.name}/{c.name}")
    for where, by in vacuous.items():
        parts = "; ".join(f"{', '.join(names)} ({why})" for why, names in by.items())
        details += _wrap(f"{where}: no case exists, so holds vacuously: {parts}")
    out.append("")
    if details:
        out.append("Witnesses, reasons and clauses that cannot hold together:")
        out += details
        out.append("")
    out.append(
        f"{len(report.results)} results: {counts['PROVED']} PROVED, {counts['REFUTED']} "
        f"REFUTED, {counts['UNKNOWN']} UNKNOWN in {report.seconds:.1f} s"
    )
    return "\n".join(out) + "\n"


MARKERS = ("<!-- prove-results -->", "<!-- /prove-results -->")


def update_doc(path: str, jobs: int = 2, timeout: float | None = None) -> str:
    """Rewrite the block between the result markers of a document with a fresh `arbitro prove`
    of every rulebook. Only a regular file that holds both markers is touched; it is replaced
    whole, through a temporary file beside it."""
    from pathlib import Path

    from arbitro.model.errors import OptionError
    from arbitro.proofs import smt
    from arbitro.proofs.runner import prove

    target = Path(path)
    if target.is_symlink() or not target.is_file():
        raise OptionError(f"{path} is not a regular file; give the document to update")
    text = target.read_text(encoding="utf-8")
    start, end = text.find(MARKERS[0]), text.find(MARKERS[1])
    if start < 0 or end < start:
        raise OptionError(f"{path} has no {MARKERS[0]} ... {MARKERS[1]} block to update")
    from arbitro.proofs.runner import SAFETY_NET

    report = prove(rulebook_ids(), timeout=timeout or SAFETY_NET, workers=jobs)
    block = f"{MARKERS[0]}\n```text\n{render(report, smt.version())}```\n"
    new = text[:start] + block + text[end:]
    from arbitro.safe_write import write_text

    write_text(target, new, force=True)  # replaces only the regular file read above, never a link
    return f"updated {path}: {len(report.results)} results in {report.seconds:.1f} s"


def _wrap(text: str) -> list[str]:
    from arbitro.reports.terminal import width

    return textwrap.wrap(
        text, width(), initial_indent="  ", subsequent_indent="      ", break_on_hyphens=False
    )


def main(argv: list[str] | None = None) -> int:
    """`python -m arbitro.cli.prove --update FILE`: refresh a document's results block."""
    from arbitro.model.errors import ArbitroError

    p = argparse.ArgumentParser(prog="python -m arbitro.cli.prove", description=main.__doc__)
    p.add_argument("--update", required=True, metavar="FILE", help="the document to refresh")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=None)
    args = p.parse_args(argv)
    try:
        sys.stdout.write(update_doc(args.update, args.jobs, args.timeout) + "\n")
    except ArbitroError as e:
        sys.stderr.write(f"arbitro: error: {e}\n")
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = [
    "EXIT_DOC",
    "MARKERS",
    "cmd_prove",
    "cmd_refine",
    "main",
    "refine_line",
    "register",
    "render",
    "update_doc",
]
