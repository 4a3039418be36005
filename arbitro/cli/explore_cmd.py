"""`arbitro explore` and `arbitro perft`: the state graph of small configurations, and move counts.

explore RULEBOOK --config NAME|FILE [--deal SEED | --deals N] [--max-states N] [--symmetry]
        [--workers N | --scheduler ADDRESS] [--json] [--graphml F] [--dot F] [--picture F]
perft RULEBOOK --seed S --depth D [--divide] [--config NAME|FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arbitro.fan_out import add_fan_out
from arbitro.model.errors import ArbitroError, OptionError
from arbitro.model.spec import load_rulebook

if TYPE_CHECKING:
    from arbitro.proofs.explore_config import Config

MAX_STATES = 5_000_000
"""The states one deal's exploration holds by default (about 1.3 GB at the 260 bytes a state
takes); `--max-states N` raises it on purpose, up to MAX_STATES_ASKED."""
MAX_STATES_ASKED = 10**12
MAX_DEALS = 1_000_000
"""The most deals one `explore --deals N` walks."""
MAX_DEPTH = 64
"""The deepest `perft --depth`: the count grows about tenfold a level, so a deeper one never ends."""
MAX_SEED = 2**63 - 1

GRAPH_LIMIT = 400
"""The most states a drawn graph or a graph file may hold; larger graphs are plotted as counts."""


class OutputError(ArbitroError, ValueError):
    """An output file that cannot be written as asked."""


def register(sub: Any, emit_json: Callable[[Any], None]) -> None:
    """Add the explore and perft subcommands to the CLI's subparsers."""
    ex = sub.add_parser(
        "explore", help="every state of a small configuration's hand: counts, deadlocks, scores"
    )
    ex.add_argument("rulebook", help="the rulebook the configuration derives from, e.g. escoba-es")
    ex.add_argument(
        "--config", required=True, metavar="NAME|FILE", help="a named configuration or a file"
    )
    which = ex.add_mutually_exclusive_group()
    from arbitro.cli.main import _int_in, add_override

    which.add_argument(
        "--deal", type=_int_in("--deal", 0, MAX_SEED), metavar="SEED", help="explore this deal"
    )
    which.add_argument(
        "--deals",
        type=_int_in("--deals", 1, MAX_DEALS),
        metavar="N",
        help=f"explore the deals of seeds 0..N-1 (at most {MAX_DEALS:,})",
    )
    ex.add_argument(
        "--max-states",
        type=_int_in("--max-states", 1, MAX_STATES_ASKED),
        default=MAX_STATES,
        metavar="N",
        help=f"stop a deal after N states (default {MAX_STATES:,}; raise it on purpose)",
    )
    ex.add_argument(
        "--symmetry",
        action="store_true",
        help="walk states up to renaming the suits the rules treat alike",
    )
    add_fan_out(
        ex,
        "one deal's states",
        "N local processes (Dask): one deal's states split over them, or deals spread",
    )
    ex.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="choose a reading (KEY=LABEL) or turn an optional rule on (KEY=true), on top of the"
        " configuration's options; repeatable",
    )
    add_override(ex)
    ex.add_argument("--json", action="store_true")
    ex.add_argument(
        "--graphml", metavar="FILE", help=f"write the graph (at most {GRAPH_LIMIT} states)"
    )
    ex.add_argument("--dot", metavar="FILE", help="write the graph for Graphviz")
    ex.add_argument("--picture", metavar="FILE", help="draw the graph or its counts (.svg or .png)")
    ex.add_argument("--force", action="store_true", help="overwrite existing output files")
    ex.set_defaults(func=lambda a: cmd_explore(a, emit_json))

    pf = sub.add_parser("perft", help="count the action sequences of a seeded deal to a depth")
    pf.add_argument("rulebook")
    pf.add_argument("--seed", type=_int_in("--seed", 0, MAX_SEED), required=True)
    pf.add_argument(
        "--depth",
        type=_int_in("--depth", 0, MAX_DEPTH),
        required=True,
        help=f"plies to count, 0 to {MAX_DEPTH}",
    )
    pf.add_argument("--divide", action="store_true", help="the count under each first action")
    pf.add_argument("--config", metavar="NAME|FILE", help="a small configuration of the rulebook")
    pf.add_argument("--json", action="store_true")
    pf.set_defaults(func=lambda a: cmd_perft(a, emit_json))


def _config(rulebook: str, name: str) -> Any:
    from arbitro.proofs.explore_config import load_config

    load_rulebook(rulebook)  # an unknown rulebook is named as such
    config = load_config(name)
    if config.rulebook != rulebook:
        raise OptionError(
            f"configuration {config.name!r} derives from {config.rulebook}, not {rulebook}"
        )
    return config


def _house_rules(args: argparse.Namespace, config: Config) -> dict[str, Any]:
    """The `--override` pairs, checked against the configuration's rulebook."""
    from arbitro.cli.main import _parse_overrides
    from arbitro.oracle.variants import normalise

    return normalise(load_rulebook(config.rulebook), _parse_overrides(args.override))


def _with(config: Config, option: list[str], overrides: dict[str, Any]) -> Config:
    """The configuration rebuilt with more options and with house rules: the same sizes, of the
    book read that way."""
    from arbitro.cli.main import _parse_options
    from arbitro.oracle.variants import rules_with, with_overrides
    from arbitro.proofs.explore_config import config_from_data

    book = load_rulebook(config.rulebook)
    options = {**config.options, **_parse_options(option)}
    rules_with(book, options, overrides)  # names an option or override the rules cannot take
    data = {
        "name": config.name,
        "rulebook": config.rulebook,
        "about": config.about,
        "options": options,
        **config.changes,
    }
    try:
        return config_from_data(data, config.source, with_overrides(book, overrides))
    except ArbitroError as e:
        raise OptionError(f"configuration {config.name!r} with these rules: {e}") from None


def _target(path: str, force: bool) -> Path:
    """An output path that is safe to write: never a link, a device or a folder (refused early,
    before the exploration, and again when the file is written)."""
    from arbitro.safe_write import check_target

    return check_target(path, force)


def _write(p: Path, text: str | bytes, force: bool) -> None:
    from arbitro.safe_write import write_bytes, write_text

    if isinstance(text, bytes):
        write_bytes(p, text, force)
    else:
        write_text(p, text, force)


def cmd_explore(args: argparse.Namespace, emit_json: Callable[[Any], None]) -> int:
    from arbitro.proofs.explore import (
        check_scores,
        explore_deal,
        explore_deals,
        proved_score_facts,
    )

    config = _config(args.rulebook, args.config)
    overrides = _house_rules(args, config) if args.option or args.override else {}
    if overrides or args.option:
        config = _with(config, args.option, overrides)
    outputs = {k: getattr(args, k) for k in ("graphml", "dot", "picture")}
    targets = {k: _target(v, args.force) for k, v in outputs.items() if v}
    if "picture" in targets and targets["picture"].suffix not in (".svg", ".png"):
        raise OptionError(f"--picture must end in .svg or .png, got {targets['picture'].name}")
    seeds = list(range(args.deals)) if args.deals is not None else [args.deal or 0]
    graph: dict[str, Any] | None = None
    from arbitro.reports.terminal import ProgressBar, Ticker

    if len(seeds) == 1 and not args.workers and not args.scheduler:
        graph = {} if targets else None
        ticker = Ticker("states")
        try:
            result = explore_deal(
                config,
                seeds[0],
                max_states=args.max_states,
                symmetry=args.symmetry,
                graph=graph,
                levels=lambda depth, states: ticker(states, f"depth {depth}"),
            )
        finally:
            ticker.close()
    else:
        # several deals: a bar of deals done; one deal split over workers: its levels, as above
        bar = ProgressBar("deals")
        ticker = Ticker("states")
        try:
            result = explore_deals(
                config,
                seeds,
                max_states=args.max_states,
                symmetry=args.symmetry,
                scheduler=args.scheduler,
                workers=args.workers or 0,
                progress=bar if len(seeds) > 1 else None,
                levels=(lambda depth, states: ticker(states, f"depth {depth}"))
                if len(seeds) == 1
                else None,
            )
        finally:
            bar.close()
            ticker.close()
        if targets and len(seeds) == 1 and not result.interrupted and result.orbits <= GRAPH_LIMIT:
            # the graph one process would draw: a deal this small is walked again here for it
            graph = {}
            explore_deal(
                config, seeds[0], max_states=args.max_states, symmetry=args.symmetry, graph=graph
            )
    book = [c.id for c in load_rulebook(config.rulebook).clauses]
    data = result.to_json(book)
    data["configuration"] = config.describe()
    if args.option:
        data["options"] = dict(config.options)
    if overrides:
        from arbitro.oracle.variants import describe

        data["overrides"] = overrides
        data["configuration"] += f"; {describe(overrides)}"
    # the proved bounds take a search of their own: after Ctrl-C the user wants what is done
    data["proved_scores"] = (
        {"checked": False, "why": "interrupted by Ctrl-C"}
        if result.interrupted
        else check_scores(result, proved_score_facts(config.rules))
    )
    if targets:
        _outputs(targets, graph, data, config, args.force)
    if args.json:
        emit_json(data)
    else:
        sys.stdout.write(explore_text(data))
    if result.interrupted:
        sys.stderr.write("arbitro: interrupted; the results above are those finished so far\n")
        return 130
    return 0


def explore_text(d: dict[str, Any]) -> str:
    """The exploration as a few lines a person reads in a terminal."""
    from arbitro.reports.terminal import width

    lines = textwrap.wrap(d["configuration"], width(), subsequent_indent="  ")
    deals = d["deals"]
    lines.append(
        "deals: none finished"
        if not deals
        else f"deals: {deals[0]}"
        if len(deals) == 1
        else f"deals: {len(deals)} (seeds {deals[0]}..{deals[-1]})"
    )
    done = (
        "INTERRUPTED: what was finished before Ctrl-C"
        if d.get("interrupted")
        else "exhausted"
        if d["exhausted"]
        else "NOT exhausted: raise --max-states"
    )
    lines.append(
        f"states {d['states']:,}  edges {d['edges']:,}  terminal {d['terminal']:,}"
        f"  depth {d['depth']}  ({done})"
    )
    if d["symmetry"]:
        lines.append(
            f"symmetry: {d['orbits']:,} states up to renaming suits, reduction factor {d['reduction']}"
            " (counts cover every renamed deal)"
        )
    speed = f"{d['states_per_cpu_second'] or 0:,} states/s of CPU"
    if d["symmetry"]:
        speed = f"{d['orbits_per_cpu_second'] or 0:,} orbits/s ({speed})"
    # CPU is summed over the processes that walked (deals, partitions); the rate is per core
    parts = len(d.get("partitions", []))
    summed = f", summed over {parts} partitions" if parts > 1 else ""
    lines.append(
        f"time {d['seconds']} s; walking {d['walk_seconds']} s wall, {d['cpu_seconds']} s CPU{summed}:"
        f" {speed}"
    )
    lines.append(f"states per depth: {' '.join(str(n) for n in d['states_per_depth'])}")
    for p in d.get("partitions", []):
        lines.append(
            f"  partition {p['partition']}: {p['states']:,} states, at most"
            f" {p['peak_states_held']:,} held, peak memory {p['peak_memory_bytes'] / 2**20:,.0f} MiB,"
            f" sent {p['sent_states']:,} successors ({p['sent_bytes']:,} bytes) to the others"
        )
    lines.append(f"invariant violations: {sum(d['violations'].values())}")
    for clause, n in d["violations"].items():
        lines.append(f"  {clause}: {n} states")
    lines.append(f"deadlocks: {d['deadlocks']}")
    for w in d["deadlock_witnesses"]:
        lines.append(f"  after {w['steps']} plays from the deal (witness transcript in --json)")
    unused = d["unexercised_clauses"]
    if unused is None:
        lines.append("clauses never exercised: not known (the model does not name them yet)")
    else:
        lines.append(f"clauses never exercised: {len(unused)}")
        lines.extend(f"  {c}" for c in unused)
    lines.append("hand scores over terminal states (scores by side: terminal states):")
    for row in d["score_distribution"]:
        lines.append(f"  {'-'.join(map(str, row['scores'])):>8}: {row['terminal_states']:,}")
    proved = d.get("proved_scores", {})
    if not proved.get("checked"):
        lines.append(f"against the proofs' score bounds: not checked ({proved.get('why', '')})")
    elif proved["agrees"]:
        lines.append(f"against the proofs' score bounds {proved['bounds']}: every score agrees")
    else:
        lines.append(
            f"against the proofs: outside the bounds {proved['outside_bounds']},"
            f" not reachable {proved['not_in_reachable_set']}"
        )
    outcomes = ", ".join(f"{k} {v:,}" for k, v in d["outcomes"].items())
    lines.append(f"hands won: {outcomes}")
    cols = width()
    return (
        "\n".join(w for line in lines for w in textwrap.wrap(line, cols, subsequent_indent="    "))
        + "\n"
    )


def _outputs(
    targets: dict[str, Path],
    graph: dict[str, Any] | None,
    data: dict[str, Any],
    config: Config,
    force: bool,
) -> None:
    import networkx as nx

    small = graph is not None and len(graph.get("nodes", [])) <= GRAPH_LIMIT
    g = nx.DiGraph()
    if small and graph is not None:
        for i, node in enumerate(graph["nodes"]):
            scores = node["scores"]
            over = node["phase"] != "play"
            g.add_node(
                i,
                depth=node["depth"],
                phase=node["phase"],
                outcome=_outcome_of(scores) if over and scores else "",
                scores="-".join(map(str, scores)) if over and scores else "",
            )
        for a, b, action in graph.get("edges", []):
            g.add_edge(a, b, action=json.dumps(action, sort_keys=True))
    for kind in ("graphml", "dot"):
        if kind in targets:
            if not small:
                raise OutputError(
                    f"--{kind} needs one deal of at most {GRAPH_LIMIT} states;"
                    f" this exploration has {data['orbits']:,}"
                )
            graphml = "\n".join(nx.generate_graphml(g)) + "\n"
            _write(targets[kind], graphml if kind == "graphml" else _dot(g), force)
    if "picture" in targets:
        from arbitro.proofs.explore_pictures import draw_counts, draw_graph

        p = targets["picture"]
        image = draw_graph(g, config.describe(), p.suffix) if small else draw_counts(data, p.suffix)
        _write(p, image, force)


def _outcome_of(scores: list[int]) -> str:
    best = max(scores)
    return f"side {scores.index(best)}" if scores.count(best) == 1 else "tie"


def _dot(g: Any) -> str:
    out = ["digraph explore {", "  rankdir=TB;"]
    for n, d in g.nodes(data=True):
        label = d["scores"] or str(n)
        out.append(f'  n{n} [label="{label}", outcome="{d["outcome"]}", depth={d["depth"]}];')
    for a, b in g.edges():
        out.append(f"  n{a} -> n{b};")
    out.append("}")
    return "\n".join(out) + "\n"


def cmd_perft(args: argparse.Namespace, emit_json: Callable[[Any], None]) -> int:
    from arbitro.games import model_for
    from arbitro.model.schema import rules_for
    from arbitro.proofs.explore import divide, perft

    book = load_rulebook(args.rulebook)
    model = model_for(book.game)
    if args.config:
        config = _config(args.rulebook, args.config)
        rules, seating, label = config.rules, config.seating, config.describe()
    else:
        rules = rules_for(book)
        seating = model.seatings(rules)[0]
        label = f"{book.id}, {seating.players} players in {seating.sides} sides (the book's game)"
    import random

    order = list(model.deck(rules, seating))
    random.Random(args.seed).shuffle(order)
    state = model.deal(rules, model.new_game(rules, seating), order)
    rows = divide(model, rules, state, args.depth) if args.divide else []
    total = sum(n for _, n in rows) if args.divide else perft(model, rules, state, args.depth)
    if args.json:
        emit_json(
            {
                "rulebook": book.id,
                "configuration": label,
                "seed": args.seed,
                "depth": args.depth,
                "sequences": total,
                "divide": [{"action": a, "sequences": n} for a, n in rows],
            }
        )
        return 0
    lines = [label, f"seed {args.seed}, depth {args.depth}: {total:,} action sequences"]
    for a, n in rows:
        lines.append(f"  {json.dumps(a, sort_keys=True)}: {n:,}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
