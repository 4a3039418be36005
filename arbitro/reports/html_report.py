"""`arbitro report`: simulated games of one rulebook as an HTML page of plots and tables.

Plots (matplotlib, embedded as PNG): final scores and hand scores by side, hand lengths, how
hands end, win rates by side and by seat counted from the first dealer, each with its 95% Wilson
interval. With `--compare CLAUSE[=A,B]` the same seeds are played under two readings of a clause
and every plot shows both, beside a table of the differences.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from html import escape
from typing import Any

from arbitro.games import choose_seating, describe_seating
from arbitro.model.errors import OptionError
from arbitro.model.game import GameModel, Seating
from arbitro.model.schema import option_key, rules_for
from arbitro.model.spec import Rulebook
from arbitro.reports.html import page
from arbitro.simulation.simulate import Summary, simulate

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion wins/n."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def compare_readings(book: Rulebook, spec: str, options: dict[str, Any]) -> tuple[str, list[Any]]:
    """The clause key and the two values `--compare CLAUSE[=A,B]` asks for."""
    name, _, labels = spec.partition("=")
    raw = name.split(":", 1)[1] if ":" in name else name
    key = option_key(raw)
    if not book.has(key):
        raise OptionError(f"--compare: {book.id} has no clause {raw!r}")
    c = book.clause(key)
    if key in options:
        raise OptionError(f"--compare {key} and --option {key}=… both choose that clause")
    if c.follows:
        raise OptionError(f"--compare: {c.id} is chosen with {c.follows}; compare {c.follows}")
    if c.optional:
        choices: list[Any] = [False, True]
    else:
        choices = list(c.labels())
        if len(choices) < 2:
            raise OptionError(f"--compare: {c.id} is {c.status} with one value; nothing to compare")
    if labels:
        asked = [x.strip() for x in labels.split(",")]
        if len(asked) != 2:
            raise OptionError(f"--compare {spec}: give two readings, A,B")
        values: list[Any] = []
        for a in asked:
            v: Any = {"true": True, "false": False}.get(a.lower(), a) if c.optional else a
            if v not in choices and isinstance(v, str) and v.replace("_", "-") in choices:
                v = v.replace("_", "-")
            if v not in choices:
                raise OptionError(
                    f"--compare: {c.id} has no reading {a!r}; readings: "
                    + ", ".join(str(x).lower() for x in choices)
                )
            values.append(v)
        if values[0] == values[1]:
            raise OptionError(f"--compare {spec}: the two readings are the same")
        return key, values
    return key, choices[:2]


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _figure(title: str, alt: str, draw: Callable[[Any], None]) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    draw(ax)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    return (
        f'<figure><img alt="{escape(alt)}" src="data:image/png;base64,{_png(fig)}">'
        f"<figcaption>{escape(alt)}</figcaption></figure>"
    )


def _runs_label(runs: list[tuple[str, Summary]]) -> str:
    return " vs ".join(label for label, _ in runs)


def _hist(ax: Any, series: list[tuple[str, list[int]]], xlabel: str) -> None:
    data = [s for _, s in series if s]
    if not data:
        ax.text(0.5, 0.5, "no data", ha="center", transform=ax.transAxes)
        return
    lo = min(min(s) for s in data)
    hi = max(max(s) for s in data)
    bins = min(40, max(1, hi - lo + 1)) if hi > lo else 1
    for i, (label, s) in enumerate(series):
        if s:
            ax.hist(s, bins=bins, range=(lo, hi + 1), alpha=0.5, label=label, color=COLOURS[i % 6])
    from matplotlib.ticker import MaxNLocator

    ax.set_xlabel(xlabel)
    ax.set_ylabel("count")
    # counts and the values counted are whole numbers: no tick between two of them
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(fontsize="small")


def _drawer(series: list[tuple[str, list[int]]], xlabel: str) -> Callable[[Any], None]:
    return lambda ax: _hist(ax, series, xlabel)


def _bars(
    ax: Any,
    groups: list[str],
    series: list[tuple[str, list[float], list[tuple[float, float]] | None]],
    ylabel: str,
) -> None:
    width = 0.8 / max(len(series), 1)
    for i, (label, values, intervals) in enumerate(series):
        xs = [g + (i - (len(series) - 1) / 2) * width for g in range(len(groups))]
        yerr = None
        if intervals is not None:
            yerr = [
                [v - lo for v, (lo, _) in zip(values, intervals, strict=True)],
                [hi - v for v, (_, hi) in zip(values, intervals, strict=True)],
            ]
        ax.bar(xs, values, width=width, label=label, color=COLOURS[i % 6], yerr=yerr, capsize=3)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, fontsize="small")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize="small")


def _seat_rates(s: Summary, seating: Seating) -> list[tuple[int, int]]:
    """Per seat counted from the first dealer (0 = the first dealer): (wins of its side, games)."""
    out = []
    for k in range(seating.players):
        wins = games = 0
        for (dealer, winner), n in s.first_dealer_wins.items():
            games += n
            if (dealer + k) % seating.players % seating.sides == winner:
                wins += n
        out.append((wins, games))
    return out


def build_report(
    book: Rulebook,
    options: dict[str, Any],
    model: GameModel,
    seating: Seating,
    games: int,
    seed: int,
    policy: str,
    max_hands: int,
    compare: str | None,
    progress: Callable[[int, int], None] | None,
    players: int | None,
    teams: bool,
    layout: str | None,
    workers: int = 0,
    scheduler: str | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> tuple[str, dict[str, Any]]:
    """The report page and its numbers; with ``workers`` or ``scheduler`` each reading's games
    are played over one Dask cluster (`simulate`), with the same numbers. ``overrides`` are the
    house rules ``book`` already carries (`oracle.variants.with_overrides`): the page and the
    numbers name them."""
    from arbitro.proofs.cluster import dask_client

    cluster = dask_client(scheduler, workers) if workers or scheduler else nullcontext()
    with cluster as client:
        return _build_report(
            book, options, model, seating, games, seed, policy, max_hands, compare, progress,
            players, teams, layout, client, overrides or {},
        )  # fmt: skip


def _build_report(
    book: Rulebook,
    options: dict[str, Any],
    model: GameModel,
    seating: Seating,
    games: int,
    seed: int,
    policy: str,
    max_hands: int,
    compare: str | None,
    progress: Callable[[int, int], None] | None,
    players: int | None,
    teams: bool,
    layout: str | None,
    client: Any,
    overrides: Mapping[str, Any],
) -> tuple[str, dict[str, Any]]:
    variants: list[tuple[str, dict[str, Any]]] = [("", dict(options))]
    key = None
    if compare:
        key, values = compare_readings(book, compare, options)
        variants = [(f"{key}={str(v).lower()}", dict(options) | {key: v}) for v in values]
    total = games * len(variants)
    runs: list[tuple[str, Summary, Seating]] = []
    for i, (label, opts) in enumerate(variants):
        rules = rules_for(book, opts)
        seat = choose_seating(model, rules, players, teams, layout) if compare else seating

        def step(done: int, _total: int, offset: int = i * games) -> None:
            if progress is not None:
                progress(offset + done, total)

        s = simulate(
            model,
            rules,
            seat,
            games,
            seed,
            opts,
            step,
            max_hands,
            policy,
            "hands",
            record_lengths=True,
            client=client,
        )
        runs.append((label or book.id, s, seat))
        if s.interrupted:
            break
    html = _render(book, options, policy, seed, key, runs, overrides)
    data = {
        "rulebook": book.id,
        "options": options,
        **({"overrides": dict(overrides)} if overrides else {}),
        "compare": key,
        "interrupted": any(s.interrupted for _, s, _ in runs),
        "runs": [{"label": label} | s.to_json() for label, s, _ in runs],
    }
    if key is not None and len(runs) == 2:
        data["paired"] = paired(runs[0][1], runs[1][1], runs[0][2].sides)
    return html, data


def _render(
    book: Rulebook,
    options: dict[str, Any],
    policy: str,
    seed: int,
    key: str | None,
    runs: list[tuple[str, Summary, Seating]],
    overrides: Mapping[str, Any] | None = None,
) -> str:
    seating = runs[0][2]
    pairs = [(label, s) for label, s, _ in runs]
    head = [
        f"<h1>{escape(book.id)}: {escape(book.title)} — simulated games</h1>",
        "<p>"
        + escape(
            f"{describe_seating(seating)}; policy {policy}; seed {seed}; "
            + (f"options {', '.join(f'{k}={v}' for k, v in options.items())}; " if options else "")
            + "; ".join(
                f"{label}: {s.games} games, {s.rounds} hands, {s.violations} violations, "
                f"{s.dead_ends} dead-end hands, {s.unfinished_games} unfinished"
                + (" (interrupted)" if s.interrupted else "")
                for label, s in pairs
            )
        )
        + "</p>",
    ]
    if overrides:
        from arbitro.oracle.variants import describe

        head.append(f'<p class="note">{escape(describe(overrides))}</p>')
    if key is not None:
        head.append(
            "<p>"
            + escape(
                f"A/B: the same seeds played under two readings of {book.id}:{key.replace('_', '-')}; "
                "game g of each run draws its deck orders and choices from the same seed, so the "
                "runs differ only where the readings make them differ."
            )
            + "</p>"
        )
        head.append(_ab_table(pairs, seating))
        if len(pairs) == 2:
            labels = (pairs[0][0], pairs[1][0])
            head.append(_paired_table(labels, paired(pairs[0][1], pairs[1][1], seating.sides)))
    figs: list[str] = []
    for side in range(seating.sides):
        finals = [(label, [f[side] for f in s.final_scores]) for label, s in pairs]
        figs.append(
            _figure(
                f"final scores, side {side}",
                f"Distribution of side {side}'s final game scores ({_runs_label(pairs)})",
                _drawer(finals, "final score"),
            )
        )
    figs.append(
        _figure(
            "hand scores",
            f"Distribution of each side's score in a hand ({_runs_label(pairs)})",
            lambda ax: _hist(
                ax,
                [(label, [x for h in s.hand_scores for x in h]) for label, s in pairs],
                "points in a hand",
            ),
        )
    )
    lengths = sorted({k for _, s in pairs for k in s.hand_lengths})
    categories = sorted({c for _, s in pairs for c in s.category_points})
    if len(lengths) == 1 and categories:
        # every hand has the same length (Escoba plays out every card): plot what varies instead
        figs.append(
            _figure(
                "points by category",
                f"Points per hand by scoring category, all sides together; every hand has "
                f"{lengths[0]} actions, so their length is not plotted ({_runs_label(pairs)})",
                lambda ax: _bars(
                    ax,
                    categories,
                    [
                        (label, [s.category_points[c] / max(s.rounds, 1) for c in categories], None)
                        for label, s in pairs
                    ],
                    "points per hand",
                ),
            )
        )
    else:
        figs.append(
            _figure(
                "hand lengths",
                f"Actions per hand ({_runs_label(pairs)})",
                lambda ax: _hist(
                    ax,
                    [
                        (label, [k for k, n in s.hand_lengths.items() for _ in range(n)])
                        for label, s in pairs
                    ],
                    "actions in a hand",
                ),
            )
        )
    reasons = sorted({r for _, s in pairs for r in s.hand_endings})
    figs.append(
        _figure(
            "how hands end",
            f"Share of hands by how they ended ({_runs_label(pairs)})",
            lambda ax: _bars(
                ax,
                reasons,
                [
                    (label, [s.hand_endings[r] / max(s.rounds, 1) for r in reasons], None)
                    for label, s in pairs
                ],
                "share of hands",
            ),
        )
    )
    sides = [f"side {i}" for i in range(seating.sides)]

    def rates(s: Summary) -> tuple[list[float], list[tuple[float, float]]]:
        n = len(s.final_scores)
        vals = [s.wins.get(i, 0) / n if n else 0.0 for i in range(seating.sides)]
        return vals, [wilson(s.wins.get(i, 0), n) for i in range(seating.sides)]

    figs.append(
        _figure(
            "win rate by side",
            f"Share of finished games won by each side, with 95% intervals ({_runs_label(pairs)})",
            lambda ax: _bars(ax, sides, [(label, *rates(s)) for label, s in pairs], "win rate"),
        )
    )

    def seat_rates(s: Summary) -> tuple[list[float], list[tuple[float, float]]]:
        got = _seat_rates(s, seating)
        return [w / n if n else 0.0 for w, n in got], [wilson(w, n) for w, n in got]

    figs.append(
        _figure(
            "win rate by seat from the first dealer",
            "Share of finished games won by the side of each seat, counted from the game's first "
            f"dealer (0), with 95% intervals ({_runs_label(pairs)})",
            lambda ax: _bars(
                ax,
                [f"seat +{k}" for k in range(seating.players)],
                [(label, *seat_rates(s)) for label, s in pairs],
                "win rate",
            ),
        )
    )
    body = "\n".join([*head, "<h2>Plots</h2>", *figs])
    return page(f"{book.id} simulated", body)


def mean_interval(xs: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """The mean of `xs` and its 95% interval (normal approximation: mean ± z·sd/√n)."""
    n = len(xs)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    m = sum(xs) / n
    if n < 2:
        return (m, -math.inf, math.inf)
    half = z * math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1) / n)
    return (m, m - half, m + half)


def unpaired_interval(
    a: Sequence[float], b: Sequence[float], z: float = 1.96
) -> tuple[float, float, float]:
    """mean(b) − mean(a) and its 95% interval, the two runs taken as independent samples."""
    if len(a) < 2 or len(b) < 2:
        return (math.nan, -math.inf, math.inf)
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    va = sum((x - ma) ** 2 for x in a) / (len(a) - 1)
    vb = sum((x - mb) ** 2 for x in b) / (len(b) - 1)
    half = z * math.sqrt(va / len(a) + vb / len(b))
    return (mb - ma, mb - ma - half, mb - ma + half)


def paired(a: Summary, b: Summary, sides: int) -> dict[str, Any]:
    """Run b against run a game by game (the games both finished, drawn from the same seeds):
    for each side the per-game differences of final score and of winning, with their 95%
    intervals, beside the same differences read as two independent samples."""
    both = sorted(set(a.final_by_game) & set(b.final_by_game))
    out: dict[str, Any] = {"games": len(both), "sides": []}
    for side in range(sides):
        fa = [a.final_by_game[g][side] for g in both]
        fb = [b.final_by_game[g][side] for g in both]
        wa = [float(a.winner_by_game[g] == side) for g in both]
        wb = [float(b.winner_by_game[g] == side) for g in both]
        out["sides"].append(
            {
                "side": side,
                "final_score": {
                    "paired": mean_interval([y - x for x, y in zip(fa, fb, strict=True)]),
                    "unpaired": unpaired_interval(fa, fb),
                },
                "win_rate": {
                    "paired": mean_interval([y - x for x, y in zip(wa, wb, strict=True)]),
                    "unpaired": unpaired_interval(wa, wb),
                },
            }
        )
    return out


def _paired_table(labels: tuple[str, str], p: dict[str, Any]) -> str:
    def show(t: tuple[float, float, float], pct: bool) -> str:
        m, lo, hi = t
        if math.isnan(m):
            return "–"

        def f(x: float) -> str:
            return f"{x:+.1%}" if pct else f"{x:+,.1f}"

        if math.isinf(lo):
            return f"{f(m)} (too few games for an interval)"
        return f"{f(m)} ({f(lo)} to {f(hi)})"

    rows = []
    for s in p["sides"]:
        for key, name, pct in (
            ("final_score", "final score", False),
            ("win_rate", "win rate", True),
        ):
            rows.append(
                f"<tr><td>side {s['side']}: {name}</td>"
                f"<td>{escape(show(s[key]['paired'], pct))}</td>"
                f"<td>{escape(show(s[key]['unpaired'], pct))}</td></tr>"
            )
    return (
        "<p>"
        + escape(
            f"{labels[1]} minus {labels[0]}, over the {p['games']} games both runs finished: "
            "paired, game g against game g (the same seed), and unpaired, the two runs taken as "
            "independent samples. Same seeds make the paired interval the narrower one wherever "
            "the readings leave games alike. Each interval is 95%, mean ± 1.96 standard errors."
        )
        + "</p><table><tr><th>difference</th><th>paired (95% interval)</th>"
        "<th>unpaired (95% interval)</th></tr>" + "".join(rows) + "</table>"
    )


def _ab_table(pairs: list[tuple[str, Summary]], seating: Seating) -> str:
    def mean(xs: list[int]) -> str:
        return f"{sum(xs) / len(xs):,.1f}" if xs else "–"

    rows: list[tuple[str, list[str]]] = [
        ("finished games", [str(len(s.final_scores)) for _, s in pairs]),
        (
            "hands per finished game",
            [mean([k for k, n in s.game_lengths.items() for _ in range(n)]) for _, s in pairs],
        ),
        (
            "actions per hand",
            [mean([k for k, n in s.hand_lengths.items() for _ in range(n)]) for _, s in pairs],
        ),
        ("dead-end hands", [str(s.dead_ends) for _, s in pairs]),
    ]
    for side in range(seating.sides):
        rows.append(
            (
                f"side {side}: mean final score",
                [mean([f[side] for f in s.final_scores]) for _, s in pairs],
            )
        )
        rows.append(
            (
                f"side {side}: win rate (95% interval)",
                [
                    (
                        f"{s.wins.get(side, 0) / len(s.final_scores):.1%} "
                        f"({wilson(s.wins.get(side, 0), len(s.final_scores))[0]:.1%}–"
                        f"{wilson(s.wins.get(side, 0), len(s.final_scores))[1]:.1%})"
                    )
                    if s.final_scores
                    else "–"
                    for _, s in pairs
                ],
            )
        )
    out = [
        "<table><tr><th></th>"
        + "".join(f"<th>{escape(label)}</th>" for label, _ in pairs)
        + "</tr>"
    ]
    out += [
        f"<tr><td>{escape(name)}</td>" + "".join(f"<td>{escape(v)}</td>" for v in vals) + "</tr>"
        for name, vals in rows
    ]
    out.append("</table>")
    return "\n".join(out)
