"""`arbitro findings`: what the books leave open, say twice, say wrongly, or make impossible."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from arbitro.findings.core import KINDS, SEVERITIES

FORMATS = ("text", "md", "json", "html")


def register(sub: Any) -> None:
    """Add the findings subcommand to the CLI's subparsers."""
    f = sub.add_parser(
        "findings",
        help="contradictions, gaps, clashes, dead rules, claims, dead ends and differences",
        description="Findings about the rulebooks, each with its severity, the book's words, the"
        " clauses and a witness or unsat core. Derived results (solver, computation, random play)"
        " are cached per spec content; the first run computes them (a few minutes).",
    )
    from arbitro.model.spec import GAMES

    f.add_argument("--game", choices=GAMES, help="only findings about this game")
    f.add_argument("--kind", choices=KINDS, help="only findings of this kind")
    f.add_argument("--severity", choices=SEVERITIES, help="only findings of this severity")
    f.add_argument("--format", choices=FORMATS, help="output format (default text)")
    f.add_argument("--json", action="store_true", help="machine-readable output (--format json)")
    f.add_argument(
        "--declared-only",
        action="store_true",
        help="only what the specs declare: no solver, computation or play (instant)",
    )
    f.add_argument(
        "--recompute", action="store_true", help="derive again, ignoring and replacing the cache"
    )
    f.add_argument(
        "--timings",
        action="store_true",
        help="with --json: add where the derived results came from and the CPU time taken"
        " (left out by default, so the same specs give byte-identical output)",
    )
    f.add_argument(
        "--spec",
        metavar="FILE",
        help="your own spec file: its findings, and its differences with the books of its game",
    )
    from arbitro.fan_out import add_fan_out

    add_fan_out(f, "deriving (one task per claim check, meld search, witness search group…)")
    f.add_argument("--output", metavar="FILE", help="file to write (default: print)")
    f.add_argument("--force", action="store_true", help="replace an existing --output file")
    f.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arbitro.findings.core import checked_claims, findings, load_or_derive, progress_to_stderr
    from arbitro.model.spec import load_all
    from arbitro.reports import findings_report

    fmt = "json" if args.json else args.format or "text"
    if args.output:
        from arbitro.safe_write import check_target

        check_target(args.output, force=args.force)
    books = load_all()
    own = None
    if args.spec is not None:
        from pathlib import Path

        from arbitro.model.spec import use_spec_file

        own = use_spec_file(Path(args.spec))
        books = [own, *(b for b in books if b.game == own.game)]
    derived: dict[str, Any] = {}
    source = "none (--declared-only)"
    interrupted = False
    if not args.declared_only:
        try:
            derived, source = load_or_derive(
                books,
                use_cache=not args.recompute,  # --recompute: derive once and replace the cache
                progress=progress_to_stderr if sys.stderr.isatty() else None,
                into=derived,
                workers=args.workers or 0,
                scheduler=args.scheduler,
                spec=args.spec,
            )
        except KeyboardInterrupt:
            # the findings of what was derived before Ctrl-C, said to be partial and never cached
            interrupted = True
            source = "stopped by Ctrl-C: only the results derived before it (not cached)"
    found = findings(books, args.game, derived)
    if own is not None:
        found = [f for f in found if own.id in f.rulebooks]
    if args.kind:
        found = [f for f in found if f.kind == args.kind]
    if args.severity:
        found = [f for f in found if f.severity == args.severity]
    chosen = [b for b in books if (args.game is None or b.game == args.game)]
    if own is not None:
        chosen = [own]
    claims = checked_claims(derived, chosen)
    if fmt == "json":
        timings: dict[str, Any] | None = None
        if args.timings:
            import time

            timings = {"source": source, "cpu_seconds": round(time.process_time(), 3)}
        text = findings_report.as_json(found, claims, timings)
    else:
        text = findings_report.RENDER[fmt](found, claims, source)
    if args.output:
        from arbitro.safe_write import write_text

        write_text(args.output, text, force=args.force)
        sys.stderr.write(f"wrote {args.output}\n")
    else:
        sys.stdout.write(text)
    if interrupted:
        sys.stdout.flush()
        sys.stderr.write("arbitro: interrupted; the findings of the results derived before it\n")
        return 130
    return 0


__all__ = ["register", "run"]
