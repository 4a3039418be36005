"""What `arbitro simulate` prints on a terminal: the run, how hands ended, and each side's results."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

from rich.text import Text

from arbitro.games import describe_seating
from arbitro.model.game import Seating
from arbitro.model.spec import Rulebook
from arbitro.reports.terminal import plural, table
from arbitro.simulation.simulate import Summary


def summary_renderables(
    book: Rulebook,
    seating: Seating,
    options: dict[str, Any],
    summary: Summary,
    data: dict[str, Any],
    args: argparse.Namespace,
) -> Iterator[Any]:
    """The summary as rich renderables, top to bottom."""
    head = f"{book.id}: {describe_seating(seating)}"
    if options:
        head += ", options " + ", ".join(f"{k}={v}" for k, v in options.items())
    head += f"; policy {summary.policy}, seed {summary.seed}"
    yield Text(head, style="bold")
    done = f"{plural(summary.games, 'game')}"
    if summary.interrupted:
        done += f" of {summary.games_asked:,} (interrupted: the results so far)"
    if summary.unfinished_games:
        done += (
            f", {summary.unfinished_games:,} unfinished (after --max-hands {args.max_hands}"
            " or a dead end)"
        )
    lengths = data["hand_lengths"]
    length = (
        f"{plural(summary.actions, 'action')}; per hand min {lengths['min']}, "
        f"mean {lengths['mean']}, max {lengths['max']}"
        if lengths["min"] is not None
        else "not counted by this policy"
    )
    checks = {"hands": "each deal and hand end", "every": "every state", "none": "none"}
    rows: list[list[Any]] = [
        ["games", done],
        ["hands", plural(summary.rounds, "hand")],
        ["actions", length],
        [
            "hands ended",
            ", ".join(f"{k}: {v:,}" for k, v in data["hand_endings"].items()) or "-",
        ],
        ["checked", checks[summary.check]],
        [
            "violations",
            Text(f"{summary.violations:,}", style="bold red" if summary.violations else "green"),
        ],
        ["dead ends", plural(summary.dead_ends, "hand")],
        ["seconds", f"{summary.seconds:.2f}"],
    ]
    yield table([("", {"style": "bold"}), ("", {"ratio": 1})], rows, header=False)
    for f in data["dead_end_findings"]:
        clauses = ", ".join(f["clauses"]) or "clauses not named"
        yield Text(
            f"  {plural(f['hands'], 'hand')}: the rules leave the player to move without a "
            f"legal action ({clauses})",
            style="yellow",
        )
    for path in data.get("dead_end_transcripts", []):
        yield Text(f"  saved {path} (arbitro check {path})", style="dim")
    for ex in data["violation_examples"]:
        import json

        yield Text(f"  {json.dumps(ex, ensure_ascii=False)[:500]}", style="red")
    finished = len(summary.final_scores)
    if finished:
        side_rows = []
        for side in range(seating.sides):
            wins = summary.wins.get(side, 0)
            scores = [s[side] for s in summary.final_scores]
            side_rows.append(
                [
                    str(side),
                    ", ".join(str(x) for x in range(seating.players) if x % seating.sides == side),
                    f"{wins:,}",
                    f"{100 * wins / finished:.1f}%",
                    f"{min(scores):,}",
                    f"{sum(scores) / len(scores):,.1f}",
                    f"{max(scores):,}",
                ]
            )
        yield Text("")
        yield table(
            [
                "side",
                "seats",
                ("wins", {"justify": "right"}),
                ("win rate", {"justify": "right"}),
                ("final min", {"justify": "right"}),
                ("mean", {"justify": "right"}),
                ("max", {"justify": "right"}),
            ],
            side_rows,
            title=f"results of the {plural(finished, 'finished game')}",
        )
    if data.get("records"):
        yield Text(f"records: {data['records']}", style="dim")
