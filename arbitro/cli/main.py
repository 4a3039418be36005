"""The `arbitro` command line: every error one line and exit status 2, never a traceback."""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar, NoReturn

from arbitro.cli import explore_cmd
from arbitro.fan_out import add_fan_out
from arbitro.model.errors import ArbitroError, OptionError, did_you_mean
from arbitro.model.spec import Rulebook, load_all, load_rulebook

COMPARISON = Path("docs/rules-comparison.md")

MAX_GAMES = 10_000_000
MAX_HANDS = 1_000_000
MAX_SEED = 2**63 - 1
MAX_PLAYERS = 64


class UsageError(ArbitroError, ValueError):
    """A command line argparse refuses: one line, exit 2."""


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line (no usage block), raised for `main` to print, with the
    command or option meant when a mistyped one is close to it."""

    # the parsers of the command line being read, outermost first
    _used: ClassVar[list[Parser]] = []

    def error(self, message: str) -> NoReturn:
        where = "" if self.prog == "arbitro" else f"{self.prog}: "
        choice = re.search(r"invalid choice: '(.*?)' \(choose from (.*)\)$", message)
        if choice:
            message += did_you_mean(choice[1], re.findall(r"'([^']*)'", choice[2]))
        raise UsageError(f"{where}{message} (see {self.prog} --help)")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        Parser._used.append(self)
        return super().parse_known_args(args, namespace)

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        Parser._used.clear()
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            # named by the command that was being read, with the options it has
            inner = Parser._used[-1]
            options = [o for o in inner._option_string_actions if o.startswith("--")]
            first = next((x for x in extras if x.startswith("--")), "")
            hint = did_you_mean(first.partition("=")[0], options) if first else ""
            inner.error(f"unrecognized arguments: {' '.join(extras)}{hint}")
        return ns


# ---------------------------------------------------------------- argument types


def _int_in(what: str, low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        t = text.strip().replace("_", "")
        if not t.lstrip("-").isdigit() or len(t) > 30:
            raise argparse.ArgumentTypeError(f"{what} must be a whole number, got {text[:40]!r}")
        n = int(t)
        if not low <= n <= high:
            raise argparse.ArgumentTypeError(f"{what} must be from {low:,} to {high:,}, got {t}")
        return n

    parse.__name__ = what
    return parse


GAMES_ARG = _int_in("--games", 1, MAX_GAMES)
SEED_ARG = _int_in("--seed", 0, MAX_SEED)
HANDS_ARG = _int_in("--max-hands", 1, MAX_HANDS)
PLAYERS_ARG = _int_in("--players", 1, MAX_PLAYERS)
DEALER_ARG = _int_in("--dealer", 0, MAX_PLAYERS - 1)


# ---------------------------------------------------------------- output


def _out(text: str) -> None:
    sys.stdout.write(text)


def _emit_json(data: Any) -> None:
    _out(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False) + "\n")


def _print(*renderables: Any) -> None:
    from arbitro.reports.terminal import console

    con = console()
    for r in renderables:
        con.print(r)


def _fmt(args: argparse.Namespace) -> str:
    return "json" if getattr(args, "json", False) else getattr(args, "format", None) or "text"


def _add_format(
    p: argparse.ArgumentParser, formats: Sequence[str] = ("text", "md", "json")
) -> None:
    p.add_argument(
        "--format",
        choices=formats,
        help=f"output format (default {formats[0]}): " + ", ".join(formats),
    )
    p.add_argument("--json", action="store_true", help="machine-readable output (--format json)")


# ---------------------------------------------------------------- rulebooks and seatings


def _book(args: argparse.Namespace, attr: str = "rulebook") -> Rulebook:
    """The rulebook named on the command line: a registered id, or a spec file given by --spec."""
    from arbitro.model.spec import use_spec_file

    name = getattr(args, attr, None)
    spec = getattr(args, "spec", None)
    if spec is not None:
        book = use_spec_file(spec)
        if name is not None and name != book.id:
            raise OptionError(f"--spec {spec} defines {book.id!r}, but the command names {name!r}")
        return book
    if name is None:
        raise OptionError("name a rulebook (e.g. samba-en) or give your own with --spec FILE")
    return load_rulebook(name)


def _parse_options(pairs: Sequence[str]) -> dict[str, str | bool]:
    from arbitro.model.schema import option_key

    out: dict[str, str | bool] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise OptionError(
                f"option {pair!r} is not KEY=VALUE (e.g. --option target-rule=exceed)"
            )
        k = option_key(key)
        v: str | bool = {"true": True, "on": True, "false": False, "off": False}.get(
            value.strip().lower(), value.strip()
        )
        if k in out and out[k] != v:
            raise OptionError(f"option {k!r} is given twice, as {out[k]!r} and {v!r}")
        out[k] = v
    return out


def _parse_overrides(pairs: Sequence[str]) -> dict[str, Any]:
    """`--override CLAUSE=JSON` pairs (a value that is not JSON is taken as a string)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise OptionError(
                f"override {pair!r} is not CLAUSE=JSON (e.g. --override escoba-es:target-score=15)"
            )
        try:
            out[key.strip()] = json.loads(value)
        except ValueError:
            out[key.strip()] = value.strip()
    return out


def _setup(args: argparse.Namespace) -> tuple[Rulebook, dict[str, str | bool], Any, Any, Any]:
    """The book (with its house rules, `--override`), its rules with the options, its model and
    the seating the arguments ask for."""
    from arbitro.games import choose_seating, model_for
    from arbitro.oracle.variants import normalise, rules_with, with_overrides

    book = _book(args)
    options = _parse_options(args.option)
    overrides = normalise(book, _parse_overrides(getattr(args, "override", None) or []))
    rules = rules_with(book, options, overrides)  # names an override the rules cannot take
    book = with_overrides(book, overrides)
    args.overrides = overrides
    model = model_for(book.game)
    seating = choose_seating(model, rules, args.players, args.teams, args.layout)
    return book, options, rules, model, seating


def _add_rulebook(
    p: argparse.ArgumentParser, seating: bool = True, options: bool = True, overrides: bool = False
) -> None:
    p.add_argument(
        "rulebook", nargs="?", help="rulebook id, e.g. samba-en (arbitro rules list shows them)"
    )
    p.add_argument(
        "--spec", metavar="FILE", help="play your own spec file instead (its id must be its own)"
    )
    if seating:
        p.add_argument("--players", type=PLAYERS_ARG, help="number of players")
        p.add_argument(
            "--teams", action="store_true", help="play in partnerships where the book allows"
        )
        p.add_argument(
            "--layout", help="a named seating of the rulebook (rules show ID layouts lists them)"
        )
    if options:
        p.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="choose a reading (KEY=LABEL) or turn an optional rule on (KEY=true); repeatable",
        )
    if overrides:
        add_override(p)


def add_override(p: argparse.ArgumentParser) -> None:
    """--override CLAUSE=JSON, repeatable: house rules, read by `_parse_overrides`."""
    p.add_argument(
        "--override",
        action="append",
        default=[],
        metavar="CLAUSE=JSON",
        help="a house rule: the clause takes this value instead of the book's"
        " (e.g. escoba-es:target-score=15); repeatable",
    )


# ---------------------------------------------------------------- rules


def cmd_rules_list(args: argparse.Namespace) -> int:
    from arbitro.reports import report

    books = load_all()
    fmt = _fmt(args)
    if fmt == "json":
        _emit_json(
            [
                {
                    "id": b.id,
                    "game": b.game,
                    "language": b.language,
                    "title": b.title,
                    "clauses": len(b.clauses),
                    "by_status": b.status_counts(),
                }
                for b in books
            ]
        )
    elif fmt == "md":
        _out(report.list_markdown(books))
    else:
        _print(report.list_table(books))
    return 0


def _clause_json(c: Any, book: Rulebook | None = None) -> dict[str, Any]:
    from arbitro.booktext import sentence

    out: dict[str, Any] = {
        "id": c.id,
        "key": c.key,
        "status": c.status,
        "section": c.section,
        "paraphrase": c.paraphrase,
        "value": c.value,
    }
    if c.anchor:
        out["anchor"] = c.anchor
    if book is not None and (said := sentence(book, c.section, c.anchor)):
        out["book_sentence"] = said
    if c.basis:
        out["basis"] = c.basis
    if c.rationale:
        out["rationale"] = c.rationale
    if c.optional:
        out["optional"] = True
    if c.follows:
        out["follows"] = c.follows
    if len(c.readings) > 1:
        out["default"] = c.default
        out["readings"] = [
            {"label": r.label, "value": r.value, "paraphrase": r.paraphrase, "section": r.section}
            | ({"anchor": r.anchor} if r.anchor else {})
            for r in c.readings
        ]
    return out


def _pick_clauses(book: Rulebook, names: Sequence[str]) -> list[Any] | None:
    from arbitro.model.schema import option_key

    if not names:
        return None
    picked = []
    for name in names:
        raw = name.split(":", 1)[1] if ":" in name else name
        if ":" in name and name.split(":", 1)[0] != book.id:
            raise OptionError(f"clause {name!r} is not one of {book.id}'s")
        key = option_key(raw)
        if not book.has(key):
            near = [c.id for c in book.clauses if key in c.key or c.key in key]
            hint = (
                f"; did you mean {', '.join(near[:3])}?"
                if near
                else did_you_mean(raw, [c.key.replace("_", "-") for c in book.clauses])
            )
            raise OptionError(f"{book.id} has no clause {raw!r}{hint}")
        picked.append(book.clause(key))
    return picked


def cmd_rules_show(args: argparse.Namespace) -> int:
    from arbitro.reports import report

    if getattr(args, "spec", None) is not None and args.id is not None:
        # with --spec the rulebook is the file's: a word given is the first clause, not an id
        from arbitro.model.spec import use_spec_file

        if args.id != use_spec_file(args.spec).id:
            args.clauses = [args.id, *args.clauses]
            args.id = None
    book = _book(args, "id")
    picked = _pick_clauses(book, args.clauses)
    fmt = _fmt(args)
    if fmt == "json":
        topics = []
        for topic, group in book.by_topic():
            chosen = [c for c in group if picked is None or c in picked]
            if chosen:
                topics.append({"topic": topic, "clauses": [_clause_json(c, book) for c in chosen]})
        _emit_json(
            {
                "id": book.id,
                "game": book.game,
                "language": book.language,
                "title": book.title,
                "text": book.text,
                "sha256": book.sha256,
                "by_status": book.status_counts(),
                "topics": topics,
                "claims": [c.to_json() for c in book.claims] if picked is None else [],
            }
        )
    elif fmt == "md":
        _out(report.show_markdown(book, picked))
    else:
        _print(*report.show_tables(book, picked))
    return 0


def cmd_rules_diff(args: argparse.Namespace) -> int:
    from arbitro.findings.compare import diff
    from arbitro.reports import report

    books = []
    if args.spec is not None:
        from arbitro.model.spec import use_spec_file

        books.append(use_spec_file(Path(args.spec)))
    books += [load_rulebook(i) for i in args.ids if not books or i != books[0].id]
    if len(books) < 2:
        raise UsageError(
            "arbitro rules diff: needs at least two rulebook ids, or --spec FILE and one id"
        )
    rows = diff(books)
    fmt = _fmt(args)
    witnesses = {}
    if args.witnesses:
        from arbitro.findings.witnesses import diff_witnesses, witness_lines

        witnesses = diff_witnesses(books, rows)
    if fmt == "json":
        _emit_json(
            {
                "rulebooks": [b.id for b in books],
                "rows": [
                    {
                        "topic": r.topic,
                        "key": r.key,
                        "differs": r.differs,
                        "doubtful": r.doubtful,
                        "cells": {b.id: c.to_json() for b, c in zip(books, r.cells, strict=True)},
                        **({"witnesses": witnesses.get(r.key, [])} if args.witnesses else {}),
                    }
                    for r in rows
                    if r.differs or not args.only_differences
                ],
            }
        )
    elif fmt == "md":
        _out(report.LEGEND + "\n\n")
        _out(
            report.diff_markdown(books, rows, only_differences=args.only_differences, sections=True)
        )
        if witnesses:
            _out("\n### Witnesses of the ≠ rows\n\n")
            _out("".join(f"- {line}\n" for line in witness_lines(witnesses)))
    else:
        from rich.text import Text

        _print(
            *report.diff_tables(books, rows, args.only_differences),
            Text(report.TERMINAL_LEGEND, style="dim"),
        )
        if witnesses:
            _print(Text("Witnesses of the ≠ rows", style="bold"))
            _print(*(Text("• " + line) for line in witness_lines(witnesses)))
    return 0


def cmd_rules_comparison(args: argparse.Namespace) -> int:
    from arbitro.reports import report
    from arbitro.safe_write import check_target, write_text

    books = load_all()
    fmt = _fmt(args) if (args.json or args.format) else "md"
    if fmt == "json":
        from arbitro.findings.compare import diff

        data = {
            "rulebooks": [b.id for b in books],
            "rows": [
                {
                    "topic": r.topic,
                    "key": r.key,
                    "differs": r.differs,
                    "cells": {b.id: c.to_json() for b, c in zip(books, r.cells, strict=True)},
                }
                for r in diff(books)
            ],
        }
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        if args.check:
            raise OptionError("--check compares the Markdown or HTML document; drop --format json")
        if args.output and args.output != "-":
            write_text(args.output, text, args.force)
            sys.stderr.write(f"wrote {args.output}\n")
        else:
            _out(text)
        return 0
    if args.output and args.output != "-" and not args.check:
        check_target(args.output, args.force)  # before the witnesses, which may take minutes
    witnesses = {} if args.no_witnesses else report.comparison_witnesses(books)
    if fmt == "html":
        from arbitro.reports.html import comparison_html

        text = comparison_html(books, witnesses)
    else:
        text = report.comparison_document(books, witnesses)
    if args.check:
        from arbitro.findings.replay import wrong_witnesses

        wrong = wrong_witnesses(
            w for found in witnesses.values() for ws in found.values() for w in ws
        )
        if wrong:
            for line in wrong:
                sys.stderr.write(f"arbitro: a witness does not replay: {line}\n")
            return 1
        path = Path(args.output or COMPARISON)
        try:
            current = path.read_text(encoding="utf-8") if path.is_file() else ""
        except (OSError, UnicodeDecodeError) as e:
            raise OptionError(f"cannot read {path}: {e}") from None
        if current != text:
            sys.stderr.write(
                f"arbitro: {path} is stale; regenerate it with: "
                f"uv run arbitro rules comparison --output {path} --force\n"
            )
            return 1
        _out(f"{path} is up to date\n")
        return 0
    if args.output and args.output != "-":
        check_target(args.output, args.force)
        write_text(args.output, text, args.force)
        sys.stderr.write(f"wrote {args.output}\n")
    else:
        _out(text)
    return 0


# ---------------------------------------------------------------- simulate, report, play


def _records_format(path: str, given: str | None) -> str:
    if given:
        return given
    return "csv" if path.lower().endswith(".csv") else "jsonl"


def _dead_end_dir(path: str, prefix: str, force: bool) -> Path:
    """The folder for dead-end transcripts, checked before the simulation: a transcript this run
    may write (`PREFIX-game*.jsonl`) is never a link, and is replaced only with --force."""
    from arbitro.safe_write import check_target

    d = Path(path)
    if d.is_symlink() or (d.exists() and not d.is_dir()):
        raise OptionError(f"--dead-ends {path}: not a directory")
    if not d.exists():
        if not d.parent.is_dir():
            raise OptionError(f"--dead-ends {path}: no directory {d.parent} to create it in")
        try:
            d.mkdir()
        except OSError as e:
            raise OptionError(f"--dead-ends {path}: cannot create it: {e.strerror}") from None
        return d
    try:
        names = sorted(d.glob(f"{prefix}-game*.jsonl"))
    except OSError as e:
        raise OptionError(f"--dead-ends {path}: cannot read it: {e.strerror}") from None
    for existing in names:
        check_target(existing, force)
    return d


def cmd_simulate(args: argparse.Namespace) -> int:
    from arbitro.reports.terminal import ProgressBar
    from arbitro.safe_write import check_target, open_atomic
    from arbitro.simulation.simulate import Records, game_transcript, simulate

    book, options, rules, model, seating = _setup(args)
    if args.overrides and args.dead_ends:
        raise OptionError(
            "--dead-ends saves transcripts that `arbitro check` replays under the book's rules;"
            " it cannot be used with --override"
        )
    records_path = args.records
    if records_path and records_path != "-":
        check_target(records_path, args.force)
    dead_dir = (
        _dead_end_dir(args.dead_ends, f"{book.id}-seed{args.seed}", args.force)
        if args.dead_ends
        else None
    )
    if records_path == "-" and not args.json:
        pass  # records on stdout, the summary on stderr
    elif records_path == "-" and args.json:
        raise OptionError("--records - and --json both want stdout; write the records to a file")
    progress = ProgressBar("games")
    with contextlib.ExitStack() as stack:
        on_hand = None
        if records_path:
            out = (
                sys.stdout
                if records_path == "-"
                else stack.enter_context(open_atomic(records_path, args.force))
            )
            on_hand = Records(
                out,
                _records_format(records_path, args.records_format),
                model,
                args.seed,
                book.id,
                seating.sides,
            )
        try:
            summary = simulate(
                model,
                rules,
                seating,
                args.games,
                args.seed,
                options,
                progress=progress,
                max_hands=args.max_hands,
                policy=args.policy,
                check=args.check,
                on_hand=on_hand,
                record_lengths=args.policy != "uniform",
                workers=args.workers or 0,
                scheduler=args.scheduler,
            )
        finally:
            progress.close()
    saved: list[str] = []
    if dead_dir is not None:
        from arbitro.safe_write import write_text

        for g in summary.dead_end_games[: args.dead_end_limit]:
            t = game_transcript(
                model, rules, seating, options, args.policy, args.seed, g, args.max_hands
            )
            path = dead_dir / f"{book.id}-seed{args.seed}-game{g}.jsonl"
            write_text(path, t.text(), force=args.force)
            saved.append(str(path))
    data = summary.to_json()
    if args.overrides:
        data["overrides"] = args.overrides
    data["dead_end_transcripts"] = saved
    if records_path:
        data["records"] = records_path
    if args.json:
        _emit_json(data)
    else:
        from arbitro.reports.simulate_text import summary_renderables

        stream = sys.stderr if records_path == "-" else None
        from arbitro.reports.terminal import console

        con = console(stream)
        if args.overrides:
            from arbitro.oracle.variants import describe

            con.print(describe(args.overrides))
        for r in summary_renderables(book, seating, options, summary, data, args):
            con.print(r)
    if summary.interrupted:
        return 130
    return 1 if summary.violations else 0


def cmd_report(args: argparse.Namespace) -> int:
    from arbitro.reports.html_report import build_report
    from arbitro.reports.terminal import ProgressBar
    from arbitro.safe_write import check_target, write_text

    book, options, _rules, model, seating = _setup(args)
    check_target(args.output, args.force)
    progress = ProgressBar("games")
    try:
        html, data = build_report(
            book,
            options,
            model,
            seating,
            args.games,
            args.seed,
            args.policy,
            args.max_hands,
            args.compare,
            progress,
            args.players,
            args.teams,
            args.layout,
            workers=args.workers or 0,
            scheduler=args.scheduler,
            overrides=args.overrides,
        )
    finally:
        progress.close()
    write_text(args.output, html, args.force)
    if args.json:
        _emit_json(data | {"output": args.output})
    else:
        sys.stderr.write(f"wrote {args.output}\n")
    return 130 if data.get("interrupted") else 0


def cmd_play(args: argparse.Namespace) -> int:
    from arbitro.safe_write import check_target, write_text
    from arbitro.simulation.play import play_transcript

    book, options, rules, model, seating = _setup(args)
    if not 0 <= args.dealer < seating.players:
        raise OptionError(
            f"--dealer must be a seat from 0 to {seating.players - 1}, got {args.dealer}"
        )
    to_stdout = args.transcript == "-"
    if to_stdout and args.json:
        raise OptionError(
            "--transcript - and --json both want stdout; write the transcript to a file"
        )
    if not to_stdout:
        check_target(args.transcript, args.force)
    transcript = play_transcript(model, rules, seating, args.seed, options, args.dealer)
    text = transcript.text()
    if to_stdout:
        _out(text)
        return 0
    write_text(args.transcript, text, args.force)
    lines = len(transcript.body)
    if args.json:
        last = transcript.body[-1] if transcript.body else None
        _emit_json(
            {
                "transcript": args.transcript,
                "rulebook": book.id,
                "lines": lines + 1,
                "hands": len(transcript.header.deals),
                "scores": list(getattr(last, "scores", [])),
                "winner": getattr(last, "winner", None),
            }
        )
    else:
        from arbitro.reports.terminal import plural

        sys.stderr.write(f"wrote {args.transcript}: {plural(lines, 'line')} after the header\n")
    return 0


# ---------------------------------------------------------------- the parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from arbitro import native

    try:
        number = version("arbitro")
    except PackageNotFoundError:  # pragma: no cover - run from a bare checkout
        number = "unknown"
    return f"{number}, {native.status().describe()}"


class _Version(argparse.Action):
    """Prints the version line as it is (argparse's own action wraps it to the terminal)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kw: object) -> None:
        sys.stdout.write(f"arbitro {_version()}\n")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="arbitro",
        description="A referee for traditional card games: rulebooks as checked data, an exact "
        "model, proofs and an oracle.",
    )
    p.add_argument("--version", action=_Version, nargs=0, help="the version, and which engine runs")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    rules = sub.add_parser("rules", help="the rulebooks as data: list, show, diff, comparison")
    rsub = rules.add_subparsers(dest="rules_command", required=True, metavar="SUBCOMMAND")
    r_list = rsub.add_parser(
        "list", help="every rulebook with its game, language and clause counts by status"
    )
    _add_format(r_list)
    r_list.set_defaults(func=cmd_rules_list)

    r_show = rsub.add_parser(
        "show", help="the clauses of one rulebook by topic, with sections and anchor words"
    )
    r_show.add_argument("id", nargs="?", help="rulebook id, e.g. samba-en")
    r_show.add_argument(
        "clauses",
        nargs="*",
        metavar="CLAUSE",
        help="only these clauses (draw-count, draw_count or samba-en:draw-count), each with the "
        "book's sentence where the texts are at hand",
    )
    r_show.add_argument("--spec", metavar="FILE", help="show your own spec file instead")
    _add_format(r_show)
    r_show.set_defaults(func=cmd_rules_show)

    r_diff = rsub.add_parser("diff", help="rulebooks side by side, differing rows marked")
    r_diff.add_argument(
        "ids", nargs="+", metavar="ID", help="two or more rulebook ids (one with --spec)"
    )
    r_diff.add_argument(
        "--spec", metavar="FILE", help="your own spec file, compared with the rulebooks named"
    )
    r_diff.add_argument(
        "--only-differences", action="store_true", help="show only rows that differ"
    )
    r_diff.add_argument(
        "--witnesses",
        action="store_true",
        help="for each differing row, the smallest case telling the books apart (arbitro findings)",
    )
    _add_format(r_diff)
    r_diff.set_defaults(func=cmd_rules_diff)

    r_cmp = rsub.add_parser(
        "comparison", help="the comparison document: docs/rules-comparison.md, or HTML"
    )
    r_cmp.add_argument("--output", metavar="FILE", help="file to write (default: print)")
    r_cmp.add_argument("--force", action="store_true", help="replace an existing file")
    r_cmp.add_argument(
        "--check", action="store_true", help="exit 1 if the file differs from a fresh generation"
    )
    r_cmp.add_argument(
        "--no-witnesses",
        action="store_true",
        help="leave out the witnesses of the ≠ rows (they come from the findings' derivation)",
    )
    _add_format(r_cmp, ("md", "html", "json"))
    r_cmp.set_defaults(func=cmd_rules_comparison)
    from arbitro.cli import trace  # `rules trace` lives in arbitro/cli/trace.py

    trace.register(rsub)

    from arbitro.cli import findings_cmd

    findings_cmd.register(sub)

    from arbitro.simulation.policies import POLICIES
    from arbitro.simulation.simulate import CHECKS, MAX_HANDS_PER_GAME

    sim = sub.add_parser("simulate", help="play many games, check states, keep records")
    _add_rulebook(sim, overrides=True)
    sim.add_argument(
        "--games", type=GAMES_ARG, default=100, help=f"games to play, 1 to {MAX_GAMES:,} (100)"
    )
    sim.add_argument("--seed", type=SEED_ARG, default=0, help="seed of the deck orders and moves")
    sim.add_argument(
        "--max-hands",
        type=HANDS_ARG,
        default=MAX_HANDS_PER_GAME,
        help=f"count a game unfinished after this many hands ({MAX_HANDS_PER_GAME})",
    )
    sim.add_argument(
        "--policy",
        choices=list(POLICIES),
        default="uniform",
        help="how players choose: uniform among legal actions, or fast (Samba/Canasta: go out)",
    )
    sim.add_argument(
        "--check",
        choices=CHECKS,
        default="hands",
        help="whole-state checks on each deal and hand end (hands), every state, or none",
    )
    sim.add_argument(
        "--records", metavar="FILE", help="one record per hand (JSON Lines, or CSV for .csv)"
    )
    sim.add_argument("--records-format", choices=("jsonl", "csv"))
    sim.add_argument(
        "--dead-ends",
        metavar="DIR",
        help="save each game with a dead end as a transcript arbitro check replays",
    )
    sim.add_argument(
        "--dead-end-limit",
        type=_int_in("--dead-end-limit", 1, 1000),
        default=5,
        help="most transcripts saved (5)",
    )
    sim.add_argument(
        "--force", action="store_true", help="replace an existing records file or transcripts"
    )
    sim.add_argument("--json", action="store_true", help="machine-readable output")
    add_fan_out(sim, "games")
    sim.set_defaults(func=cmd_simulate)

    rep = sub.add_parser(
        "report", help="an HTML report with plots of simulated games, A/B of two readings"
    )
    _add_rulebook(rep, overrides=True)
    rep.add_argument("--output", required=True, metavar="FILE", help="the HTML file to write")
    rep.add_argument("--force", action="store_true", help="replace an existing file")
    rep.add_argument("--games", type=GAMES_ARG, default=200, help="games per reading (200)")
    rep.add_argument("--seed", type=SEED_ARG, default=0)
    rep.add_argument("--max-hands", type=HANDS_ARG, default=MAX_HANDS_PER_GAME)
    rep.add_argument("--policy", choices=list(POLICIES), default="uniform")
    rep.add_argument(
        "--compare",
        metavar="CLAUSE[=A,B]",
        help="play the same seeds under two readings of a clause (default: its first two)",
    )
    rep.add_argument("--json", action="store_true", help="print the report's numbers as JSON")
    add_fan_out(rep, "games")
    rep.set_defaults(func=cmd_report)

    play = sub.add_parser("play", help="play one random game and write it as a transcript")
    _add_rulebook(play)
    play.add_argument("--dealer", type=DEALER_ARG, default=0, help="the first dealer's seat (0)")
    play.add_argument("--seed", type=SEED_ARG, required=True)
    play.add_argument(
        "--transcript", required=True, metavar="FILE", help="where to write it (- for stdout)"
    )
    play.add_argument("--force", action="store_true", help="replace an existing file")
    play.add_argument("--json", action="store_true", help="what was written, as JSON")
    play.set_defaults(func=cmd_play)

    explore_cmd.register(sub, _emit_json)

    # the oracle's commands live in their own modules
    from arbitro.conformance import conform
    from arbitro.oracle import check, protocol, server, show

    check.register(sub)
    server.register(sub)
    show.register(sub)
    protocol.register(sub)
    conform.register(sub)

    from arbitro.cli.prove import (
        register as register_prove,  # the command lives in arbitro/cli/prove.py
    )

    register_prove(sub)
    from arbitro.cli import completion
    from arbitro.cli.examples import add_examples

    completion.register(sub)
    add_examples(p)
    return p


def _stdout_failed(e: OSError) -> int:
    """stdout cannot take what we print (a full disk, a closed pipe): say so once, on stderr."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so that the flush at exit cannot fail again
    if e.errno == errno.EPIPE:
        return 0
    reason = (e.strerror or str(e)).lower()
    with contextlib.suppress(OSError):
        sys.stderr.write(f"arbitro: error: cannot write to standard output: {reason}\n")
    return 2


def _escape_unencodable() -> None:
    """Text that UTF-8 cannot carry (a lone surrogate read from a JSON escape) is printed as its
    escape, never raised as an error mid-output."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def _path_error(e: OSError) -> str | None:
    """One line for an OSError about a path the user named (too long, a loop of links, not
    there, not allowed), or None for any other OSError."""
    from arbitro.model.inputs import shown

    if e.filename is None or e.errno not in (
        errno.ENAMETOOLONG,
        errno.ELOOP,
        errno.ENOENT,
        errno.ENOTDIR,
        errno.EISDIR,
        errno.EACCES,
        errno.EPERM,
    ):
        return None
    name = e.filename if isinstance(e.filename, str) else os.fsdecode(e.filename)
    return f"{shown(name)}: {(e.strerror or os.strerror(e.errno or 0)).lower()}"


def _quiet_teardown() -> None:
    """After Ctrl-C, objects the interrupt left half-built (a solver context whose constructor
    it cut short) fail in their destructors at exit: that says nothing to the user."""
    sys.unraisablehook = lambda _: None


def _half_built_solver_object(u: sys.UnraisableHookArgs) -> bool:
    """An AttributeError in the destructor of a z3 object: its constructor was cut short (by
    Ctrl-C) before it set the field the destructor reads. z3's destructors fail no other way."""
    return issubclass(u.exc_type, AttributeError) and str(
        getattr(u.object, "__module__", "") or ""
    ).startswith("z3")


def _quiet_half_built_objects() -> None:
    """From the start of a command, not only once it has caught Ctrl-C: the interrupted frame
    holding a half-built solver context can be freed while the interrupt unwinds, before any
    handler runs, and its destructor's failure would print a traceback under the command's own
    message about the interrupt. Every other unraisable error is still reported."""
    before = sys.unraisablehook

    def hook(u: sys.UnraisableHookArgs) -> None:
        if not _half_built_solver_object(u):
            before(u)

    sys.unraisablehook = hook


def main(argv: Sequence[str] | None = None) -> int:
    _escape_unencodable()
    if argv is None:  # the process is the command's own (a test calling main keeps its hook)
        _quiet_half_built_objects()
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        result: int = args.func(args)
        sys.stdout.flush()
        if result == 130 and argv is None:
            _quiet_teardown()
        return result
    except ArbitroError as e:
        sys.stderr.write(
            f"arbitro: error: {str(e).splitlines()[0] if str(e) else type(e).__name__}\n"
        )
        return 2
    except BrokenPipeError as e:
        return _stdout_failed(e)
    except KeyboardInterrupt:
        sys.stderr.write("arbitro: interrupted\n")
        if argv is None:  # the process ends next (a test calling main goes on)
            _quiet_teardown()
        return 130
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EIO, errno.EPIPE, errno.EFBIG, errno.EDQUOT):
            return _stdout_failed(e)
        about_path = _path_error(e)
        if about_path is None:
            raise
        sys.stderr.write(f"arbitro: error: {about_path}\n")
        return 2
    except RecursionError:
        sys.stderr.write("arbitro: error: input nested too deep to read\n")
        return 2
    except Exception as e:
        if os.environ.get("ARBITRO_DEBUG"):
            raise
        # a bug of arbitro's, not the user's input: one line, and a distinct status
        first = str(e).splitlines()[0] if str(e) else ""
        sys.stderr.write(
            f"arbitro: internal error: {type(e).__name__}: {first[:300]} "
            "(ARBITRO_DEBUG=1 shows where; please report it)\n"
        )
        return 70


if __name__ == "__main__":
    raise SystemExit(main())
