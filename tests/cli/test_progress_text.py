"""The progress bar reads "0:00:06 elapsed, 5:38 left": elapsed and left each named."""

from __future__ import annotations

import io

from rich.console import Console

from arbitro.reports.terminal import ProgressBar


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
