"""Pictures of an exploration: the graph itself when small, else states per depth and scores.

matplotlib (the 'pictures' extra) draws them off screen; terminal states are coloured by the
hand's outcome (which side won it, or a tie), the others grey, laid out by depth from the deal.
"""

from __future__ import annotations

import io
from typing import Any

from arbitro.model.errors import ArbitroError

COLOURS = ["tab:blue", "tab:orange", "tab:green", "tab:red"]


class PictureError(ArbitroError, RuntimeError):
    """A picture asked for without matplotlib installed."""


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PictureError(
            "pictures need matplotlib: install arbitro with the 'pictures' extra"
        ) from None
    return plt


def _save(fig: Any, suffix: str) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format=suffix.lstrip("."), bbox_inches="tight", dpi=110)
    _pyplot().close(fig)
    return buf.getvalue()


def _colour(outcome: str) -> str:
    if not outcome:
        return "lightgrey"
    if outcome == "tie":
        return "black"
    return COLOURS[int(outcome.split()[1]) % len(COLOURS)]


def draw_graph(g: Any, title: str, suffix: str) -> bytes:
    """The whole graph, one row per depth, terminal states coloured by outcome."""
    plt = _pyplot()
    rows: dict[int, list[int]] = {}
    for n, d in g.nodes(data=True):
        rows.setdefault(d["depth"], []).append(n)
    pos = {}
    for depth, ns in rows.items():
        for k, n in enumerate(ns):
            pos[n] = ((k + 1) / (len(ns) + 1), -depth)
    fig, ax = plt.subplots(figsize=(12, max(4, 0.6 * len(rows))))
    for a, b in g.edges():
        (x0, y0), (x1, y1) = pos[a], pos[b]
        ax.plot([x0, x1], [y0, y1], color="silver", linewidth=0.5, zorder=1)
    outcomes = sorted({d["outcome"] for _, d in g.nodes(data=True)})
    for outcome in outcomes:
        ns = [n for n, d in g.nodes(data=True) if d["outcome"] == outcome]
        ax.scatter(
            [pos[n][0] for n in ns],
            [pos[n][1] for n in ns],
            s=18 if not outcome else 40,
            color=_colour(outcome),
            label=outcome or "hand not over",
            zorder=2,
        )
    ax.set_yticks([-d for d in sorted(rows)], [str(d) for d in sorted(rows)])
    ax.set_ylabel("plays since the deal")
    ax.set_xticks([])
    ax.set_title(f"{title}\n{g.number_of_nodes()} states, {g.number_of_edges()} edges", fontsize=9)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, title="terminal: hand won by")
    return _save(fig, suffix)


def draw_counts(data: dict[str, Any], suffix: str) -> bytes:
    """States per depth, and the number of terminal states per hand score."""
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5))
    per = data["states_per_depth"]
    left.bar(range(len(per)), per, color="tab:blue")
    left.set_yscale("log")
    left.set_xlabel("plays since the deal")
    left.set_ylabel("states (log scale)")
    left.set_title("states per depth", fontsize=9)
    rows = data["score_distribution"]
    labels = ["-".join(map(str, r["scores"])) for r in rows]
    right.bar(range(len(rows)), [r["terminal_states"] for r in rows], color="tab:green")
    right.set_xticks(range(len(rows)), labels, rotation=60, fontsize=7)
    right.set_xlabel("hand score by side")
    right.set_ylabel("terminal states")
    right.set_title("hand scores over terminal states", fontsize=9)
    fig.suptitle(
        f"{data['configuration']}\n{data['states']:,} states, {data['edges']:,} edges,"
        f" {data['terminal']:,} terminal",
        fontsize=9,
    )
    return _save(fig, suffix)
