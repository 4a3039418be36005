"""The `arbitro` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arbitro import report
from arbitro.compare import diff
from arbitro.findings import KINDS, findings
from arbitro.model.errors import ArbitroError, OptionError
from arbitro.model.schema import rules_for
from arbitro.model.spec import GAMES, load_all, load_rulebook

COMPARISON = Path("docs/rules-comparison.md")


def _emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False) + "\n")


def cmd_rules_list(args: argparse.Namespace) -> int:
    books = load_all()
    if args.json:
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
    else:
        sys.stdout.write(report.list_text(books))
    return 0


def cmd_rules_show(args: argparse.Namespace) -> int:
    book = load_rulebook(args.id)
    if args.json:
        _emit_json(
            {
                "id": book.id,
                "game": book.game,
                "language": book.language,
                "title": book.title,
                "text": book.text,
                "sha256": book.sha256,
                "by_status": book.status_counts(),
                "topics": [
                    {"topic": topic, "clauses": [_clause_json(c) for c in group]}
                    for topic, group in book.by_topic()
                ],
            }
        )
    else:
        sys.stdout.write(report.show_text(book))
    return 0


def _clause_json(c: Any) -> dict[str, Any]:
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
    if c.basis:
        out["basis"] = c.basis
    if c.rationale:
        out["rationale"] = c.rationale
    if c.optional:
        out["optional"] = True
    if len(c.readings) > 1:
        out["default"] = c.default
        out["readings"] = [
            {"label": r.label, "value": r.value, "paraphrase": r.paraphrase, "section": r.section}
            for r in c.readings
        ]
    return out


def cmd_rules_diff(args: argparse.Namespace) -> int:
    books = [load_rulebook(i) for i in args.ids]
    rows = diff(books)
    if args.json:
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
                    }
                    for r in rows
                    if r.differs or not args.only_differences
                ],
            }
        )
    else:
        sys.stdout.write(report.LEGEND + "\n\n")
        sys.stdout.write(report.diff_markdown(books, rows, only_differences=args.only_differences))
    return 0


def cmd_rules_comparison(args: argparse.Namespace) -> int:
    text = report.comparison_document(load_all())
    if args.check:
        path = Path(args.output or COMPARISON)
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
        if current != text:
            sys.stderr.write(
                f"arbitro: {path} is stale; regenerate it with: uv run arbitro rules comparison --output {path}\n"
            )
            return 1
        sys.stdout.write(f"{path} is up to date\n")
        return 0
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        sys.stdout.write(f"wrote {args.output}\n")
    else:
        sys.stdout.write(text)
    return 0


def cmd_findings(args: argparse.Namespace) -> int:
    found = findings(load_all(), args.game)
    if args.kind:
        found = [f for f in found if f.kind == args.kind]
    if args.json:
        _emit_json([f.to_json() for f in found])
        return 0
    for kind in KINDS:
        group = [f for f in found if f.kind == kind]
        if not group:
            continue
        sys.stdout.write(f"{kind} ({len(group)})\n")
        for f in group:
            sys.stdout.write(f"  [{', '.join(f.clauses)}]\n    {f.summary}\n")
            if f.witness is not None:
                sys.stdout.write(f"    witness: {json.dumps(f.witness, ensure_ascii=False)}\n")
        sys.stdout.write("\n")
    counts = ", ".join(f"{sum(f.kind == k for f in found)} {k}" for k in KINDS)
    sys.stdout.write(f"{len(found)} findings: {counts}\n")
    return 0


def _parse_options(pairs: Sequence[str]) -> dict[str, str | bool]:
    out: dict[str, str | bool] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise OptionError(
                f"option {pair!r} is not KEY=VALUE (e.g. --option target_rule=exceed)"
            )
        out[key] = {"true": True, "on": True, "false": False, "off": False}.get(
            value.lower(), value
        )
    return out


def cmd_simulate(args: argparse.Namespace) -> int:
    from arbitro.games import choose_seating, model_for
    from arbitro.simulate import progress_bar, simulate

    if args.games < 1:
        raise OptionError(f"--games must be at least 1, got {args.games}")
    if args.max_hands < 1:
        raise OptionError(f"--max-hands must be at least 1, got {args.max_hands}")
    book = load_rulebook(args.rulebook)
    options = _parse_options(args.option)
    rules = rules_for(book, options)
    model = model_for(book.game)
    seating = choose_seating(model, rules, args.players, args.teams, args.layout)
    summary = simulate(
        model,
        rules,
        seating,
        args.games,
        args.seed,
        options,
        progress=progress_bar(),
        max_hands=args.max_hands,
    )
    data = summary.to_json()
    if args.json:
        _emit_json(data)
    else:
        kind = "alone" if seating.sides == seating.players else f"in {seating.sides} sides"
        lines = [
            f"{book.id}: {seating.players} players {kind}"
            + (f" ({seating.layout})" if seating.layout else "")
            + (f", options {options}" if options else ""),
            f"games       {data['games']} ({data['unfinished_games']} unfinished after --max-hands {args.max_hands})",
            f"rounds      {data['rounds']}",
            f"actions     {data['actions']}",
            f"hands ended {', '.join(f'{k}: {v}' for k, v in data['hand_endings'].items()) or '-'}",
            f"wins        {', '.join(f'side {k}: {v}' for k, v in data['wins_by_side'].items()) or '-'}",
            "scores      "
            + ", ".join(
                f"side {i}: min {lo} mean {mean} max {hi}"
                for i, (lo, mean, hi) in enumerate(
                    zip(
                        data["final_scores"]["min"],
                        data["final_scores"]["mean"],
                        data["final_scores"]["max"],
                        strict=True,
                    )
                )
            ),
            f"violations  {data['violations']}",
            f"dead ends   {data['dead_ends']}"
            + "".join(
                f"\n  {f['hands']} hands: the rules leave the player to move without a legal action ({', '.join(f['clauses']) or 'clauses not named'})"
                for f in data["dead_end_findings"]
            ),
            f"seconds     {data['seconds']}",
        ]
        sys.stdout.write("\n".join(lines) + "\n")
        for ex in data["violation_examples"]:
            sys.stdout.write(f"  {json.dumps(ex, ensure_ascii=False)[:2000]}\n")
    return 1 if summary.violations else 0


def cmd_play(args: argparse.Namespace) -> int:
    from arbitro.games import choose_seating, model_for
    from arbitro.play import play_transcript

    book = load_rulebook(args.rulebook)
    options = _parse_options(args.option)
    rules = rules_for(book, options)
    model = model_for(book.game)
    seating = choose_seating(model, rules, args.players, args.teams, args.layout)
    if not 0 <= args.dealer < seating.players:
        raise OptionError(
            f"--dealer must be a seat from 0 to {seating.players - 1}, got {args.dealer}"
        )
    transcript = play_transcript(model, rules, seating, args.seed, options, args.dealer)
    text = transcript.text()
    if args.transcript == "-":
        sys.stdout.write(text)
    else:
        path = Path(args.transcript)
        if path.exists() and not args.force:
            raise OptionError(f"{path} exists; pass --force to overwrite it")
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        sys.stderr.write(f"wrote {path}: {len(transcript.body)} lines after the header\n")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from arbitro.check import check_lines
    from arbitro.transcript import TranscriptError

    path = Path(args.file)
    try:
        if args.file == "-":
            verdict = check_lines(sys.stdin)
        else:
            if not path.is_file():
                raise OptionError(f"no transcript file {path}")
            with path.open(encoding="utf-8") as f:
                verdict = check_lines(f)
    except TranscriptError as e:
        if args.json:
            _emit_json(
                {"status": "malformed", "line": e.line, "field": e.field, "expected": e.expected}
            )
        else:
            sys.stderr.write(f"arbitro: malformed transcript: {e}\n")
        return 2
    except UnicodeDecodeError as e:
        sys.stderr.write(
            f"arbitro: malformed transcript: not UTF-8 text ({e.reason} at byte {e.start})\n"
        )
        return 2
    data = verdict.to_json()
    if args.json:
        _emit_json(data)
    elif verdict.status == "valid":
        sys.stdout.write(
            f"valid: {verdict.actions} actions in {verdict.hands} hands, every score as claimed\n"
        )
    elif verdict.status == "illegal-action":
        sys.stdout.write(
            f"illegal action at step {verdict.step} (line {verdict.line}), seat {verdict.seat}: "
            f"{verdict.reason} ({verdict.clause})"
            + (
                f"; the book prices it at {verdict.penalty} points"
                if verdict.penalty is not None
                else ""
            )
            + f"\n  action: {json.dumps(verdict.action, ensure_ascii=False)}"
            + f"\n  state:  {json.dumps(verdict.state, ensure_ascii=False)}\n"
        )
    elif verdict.status == "score-mismatch":
        sys.stdout.write(f"scores differ from the claims ({len(verdict.mismatches)}):\n")
        for m in verdict.mismatches:
            where = f"hand {m['hand']}, " if "hand" in m else ""
            side = f"side {m['side']}, " if "side" in m else ""
            sys.stdout.write(
                f"  line {m['line']}: {where}{side}{m['category']}: claimed {m['claimed']}, arbitro says {m['actual']}\n"
            )
    else:
        sys.stdout.write(f"{verdict.status}: {verdict.reason}\n")
    return 0 if verdict.ok else 1


def cmd_serve(args: argparse.Namespace) -> int:
    from arbitro.server import serve

    return serve(sys.stdin, sys.stdout)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="arbitro",
        description="A referee for traditional card games: rulebooks as checked data, an exact model, proofs and an oracle.",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    rules = sub.add_parser("rules", help="the rulebooks as data: list, show, diff, comparison")
    rsub = rules.add_subparsers(dest="rules_command", required=True, metavar="SUBCOMMAND")
    r_list = rsub.add_parser(
        "list", help="every rulebook with its game, language and clause counts by status"
    )
    r_list.add_argument("--json", action="store_true", help="machine-readable output")
    r_list.set_defaults(func=cmd_rules_list)
    r_show = rsub.add_parser("show", help="the clauses of one rulebook grouped by topic")
    r_show.add_argument("id", help="rulebook id, e.g. samba-en")
    r_show.add_argument("--json", action="store_true")
    r_show.set_defaults(func=cmd_rules_show)
    r_diff = rsub.add_parser("diff", help="rulebooks side by side, differing rows marked")
    r_diff.add_argument("ids", nargs="+", metavar="ID", help="two or more rulebook ids")
    r_diff.add_argument(
        "--only-differences", action="store_true", help="show only rows that differ"
    )
    r_diff.add_argument("--json", action="store_true")
    r_diff.set_defaults(func=cmd_rules_diff)
    r_cmp = rsub.add_parser("comparison", help="write docs/rules-comparison.md (or print it)")
    r_cmp.add_argument("--output", help="file to write (default: print)")
    r_cmp.add_argument(
        "--check", action="store_true", help="exit 1 if the file differs from a fresh generation"
    )
    r_cmp.set_defaults(func=cmd_rules_comparison)

    f = sub.add_parser("findings", help="gaps and contradictions inside and between rulebooks")
    f.add_argument("--game", choices=GAMES)
    f.add_argument("--kind", choices=KINDS)
    f.add_argument("--json", action="store_true")
    f.set_defaults(func=cmd_findings)

    sim = sub.add_parser("simulate", help="play random games and check every state on the way")
    sim.add_argument("rulebook", help="rulebook id, e.g. escoba-es")
    sim.add_argument("--players", type=int, help="number of players")
    sim.add_argument(
        "--teams", action="store_true", help="play in partnerships where the book allows"
    )
    sim.add_argument("--layout", help="a layout name of the rulebook (see rules show ID, layouts)")
    sim.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    sim.add_argument("--seed", type=int, default=0, help="seed that picks deck orders and moves")
    sim.add_argument(
        "--max-hands",
        type=int,
        default=2000,
        help="stop a game that has not ended after this many hands and count it unfinished (default 2000)",
    )
    sim.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="choose a reading (KEY=LABEL) or turn an optional rule on (KEY=true); repeatable",
    )
    sim.add_argument("--json", action="store_true")
    sim.set_defaults(func=cmd_simulate)

    play = sub.add_parser("play", help="play one random game and write it as a transcript")
    play.add_argument("rulebook")
    play.add_argument("--players", type=int)
    play.add_argument("--teams", action="store_true")
    play.add_argument("--layout")
    play.add_argument("--dealer", type=int, default=0, help="the first dealer's seat (default 0)")
    play.add_argument("--seed", type=int, required=True)
    play.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    play.add_argument(
        "--transcript", required=True, metavar="FILE", help="where to write it (- for stdout)"
    )
    play.add_argument("--force", action="store_true", help="overwrite an existing file")
    play.set_defaults(func=cmd_play)

    check = sub.add_parser(
        "check",
        help="replay a transcript: the first illegal action, a score that differs, or valid",
    )
    check.add_argument("file", help="a transcript (JSON Lines), - for stdin")
    check.add_argument("--json", action="store_true")
    check.set_defaults(func=cmd_check)

    serve = sub.add_parser("serve", help="answer oracle requests as JSON Lines on stdin/stdout")
    serve.set_defaults(func=cmd_serve)

    from arbitro.prove import register as register_prove  # the command lives in arbitro/prove.py

    register_prove(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "rules_command", None) == "diff" and len(args.ids) < 2:
        parser.error("rules diff needs at least two rulebook ids")
    try:
        result: int = args.func(args)
        return result
    except ArbitroError as e:
        sys.stderr.write(f"arbitro: error: {e}\n")
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("arbitro: interrupted\n")
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
