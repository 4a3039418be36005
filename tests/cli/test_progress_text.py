"""The progress bar reads "0:00:06 elapsed, 5:38 left": elapsed and left each named."""

from __future__ import annotations

import io

from rich.console import Console

from arbitro.reports.terminal import ProgressBar, Ticker


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_elapsed_and_left_are_each_named() -> None:
    bar = ProgressBar("games", stream=_Terminal())
    bar.started -= 6.0  # six seconds into the run
    bar(1, 100)
    assert bar.bar is not None
    out = io.StringIO()
    Console(file=out, width=200).print(bar.bar.make_tasks_table(bar.bar.tasks))
    bar.close()
    line = out.getvalue()
    assert " elapsed, " in line and line.rstrip().endswith("left"), line
    elapsed, _, rest = line.partition(" elapsed, ")
    assert elapsed.split()[-1].count(":") == 2  # 0:00:06
    assert rest.split()[0] != "left"  # a time comes before "left"


def _shown(bar: Ticker | ProgressBar) -> str:
    assert bar.bar is not None, "nothing shown"
    out = io.StringIO()
    Console(file=out, width=200).print(bar.bar.make_tasks_table(bar.bar.tasks))
    return out.getvalue()


def test_explore_walk_shows_depth_states_rate_and_no_time_left() -> None:
    # a deal's walk has no known end: its count, rate and time elapsed, never a time left
    ticker = Ticker("states", stream=_Terminal())
    ticker.started -= 4.0
    ticker(46_049, "depth 12")
    line = _shown(ticker)
    ticker.close()
    assert line.startswith("depth 12") and "46,049 states" in line, line
    rate = int(line.split(" states/s")[0].split()[-1].replace(",", ""))
    assert 46_049 / 5 < rate <= 46_049 / 4  # four seconds in, however slow this machine
    assert line.rstrip().endswith("elapsed") and "left" not in line


def test_nothing_is_drawn_off_a_terminal_or_in_the_first_second() -> None:
    piped = Ticker("states", stream=io.StringIO())
    piped.started -= 10.0
    piped(10, "depth 1")
    assert piped.bar is None
    fresh = Ticker("states", stream=_Terminal())
    fresh(10, "depth 1")
    assert fresh.bar is None


def test_explore_reports_each_level_to_its_progress() -> None:
    """The walk tells its progress after each level: the states reached so far, depth by depth,
    add up to what the result counts (escoba-tiny's walk, counted again from per_depth)."""
    from arbitro.proofs.explore import explore_deal
    from arbitro.proofs.explore_config import load_config

    seen: list[tuple[int, int]] = []
    res = explore_deal(load_config("escoba-tiny"), 0, levels=lambda d, n: seen.append((d, n)))
    assert [d for d, _ in seen] == list(range(1, len(seen) + 1))
    assert [n for _, n in seen] == [sum(res.per_depth[:d]) for d, _ in seen]
    assert seen[-1][1] == res.states
