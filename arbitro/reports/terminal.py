"""Output for people: rich tables that fit the terminal, colour on a terminal only, a progress bar.

Tables wrap their cells to the width of the terminal (or $COLUMNS; 100 columns when the output is
not a terminal and $COLUMNS is unset). Colour and styles appear only on a terminal: piped output
is plain text. Markdown is never printed unless asked for (`--format md`).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Sequence
from typing import IO, TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from rich.progress import Progress, ProgressColumn, TaskID

PIPED_WIDTH = 100


def console(file: IO[str] | None = None) -> Console:
    """A console on stdout (or `file`), plain unless it is a terminal."""
    out = sys.stdout if file is None else file
    tty = bool(getattr(out, "isatty", lambda: False)())
    width = None
    if not tty and not os.environ.get("COLUMNS"):
        width = PIPED_WIDTH
    return Console(
        file=out,
        width=width,
        force_terminal=tty,
        no_color=not tty or bool(os.environ.get("NO_COLOR")),
        highlight=False,
        emoji=False,
        markup=False,
        soft_wrap=False,
    )


def width(stream: IO[str] | None = None) -> int:
    """The columns text is wrapped to: $COLUMNS when set, else the terminal's width when the
    output is a terminal, else 100 (piped output reads the same on every machine)."""
    cols = os.environ.get("COLUMNS", "")
    if cols.isdigit() and int(cols) > 0:
        return max(40, min(int(cols), 400))
    out = sys.stdout if stream is None else stream
    if bool(getattr(out, "isatty", lambda: False)()):
        import shutil

        return max(40, min(shutil.get_terminal_size((PIPED_WIDTH, 24)).columns, 400))
    return PIPED_WIDTH


def coloured(text: str, style: str, stream: IO[str] | None = None) -> str:
    """`text` in a rich style (e.g. "bold green") when the output is a terminal and $NO_COLOR is
    unset; else `text` as it is."""
    out = sys.stdout if stream is None else stream
    if not bool(getattr(out, "isatty", lambda: False)()) or os.environ.get("NO_COLOR"):
        return text
    c = Console(force_terminal=True, color_system="standard", width=10_000)
    with c.capture() as cap:
        c.print(Text(text, style=style), end="")
    return cap.get()


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 player`, `2 players`, `0 hands`: the count and the word in agreement."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def table(
    columns: Sequence[str | tuple[str, dict[str, Any]]],
    rows: Iterable[Sequence[str | Text]],
    title: str | None = None,
    header: bool = True,
) -> Table:
    """A table whose cells wrap; a column is a header or (header, rich column options)."""
    t = Table(
        title=title,
        title_justify="left",
        show_lines=False,
        expand=False,
        header_style="bold",
        title_style="bold",
        pad_edge=False,
        box=None,
        padding=(0, 1),
        collapse_padding=True,
        show_header=header,
    )
    for col in columns:
        name, opts = (col, {}) if isinstance(col, str) else col
        t.add_column(name, overflow="fold", **opts)
    for row in rows:
        t.add_row(*row)
    return t


STATUS_STYLE = {
    "stated": "",
    "inferred": "cyan",
    "unspecified": "yellow",
    "conflicting": "bold red",
}


class _Live:
    """What a progress bar and a ticker share: drawn on stderr, only on a terminal and only once a
    run has lasted a second; gone when closed."""

    def __init__(self, unit: str, stream: IO[str] | None) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.unit = unit
        self.started = time.perf_counter()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def _shown(self) -> bool:
        """Whether to draw now: on a terminal, once the run has lasted a second."""
        return self.tty and (self.bar is not None or time.perf_counter() - self.started >= 1.0)

    def _start(self, columns: Sequence[str | ProgressColumn]) -> Progress:
        from rich.progress import Progress

        self.bar = Progress(*columns, console=Console(file=self.stream), transient=True)
        self.bar.start()
        return self.bar

    def _rate(self, done: int) -> float:
        return done / max(time.perf_counter() - self.started, 1e-9)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


class ProgressBar(_Live):
    """A progress bar with rate and time left on stderr, shown only on a terminal and only once a
    run has lasted a second; `update(done, total)` after each unit of work."""

    def __init__(self, unit: str = "games", stream: IO[str] | None = None) -> None:
        super().__init__(unit, stream)

    def __call__(self, done: int, total: int) -> None:
        if not self._shown():
            return
        if self.bar is None:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            columns = [
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("elapsed,"),
                TimeRemainingColumn(compact=True, elapsed_when_finished=False),
                TextColumn("left"),
            ]
            self.task = self._start(columns).add_task(self.unit, total=total, rate="")
        assert self.bar is not None and self.task is not None
        self.bar.update(self.task, completed=done, rate=f"{self._rate(done):,.1f} {self.unit}/s")
        if done >= total:
            self.close()


class Ticker(_Live):
    """The progress of a walk whose end is not known ahead (the states of a deal): what is done,
    the rate and the time elapsed on stderr, shown only on a terminal and once the walk has
    lasted a second. No time left is shown, since nothing tells how far the end is."""

    def __init__(self, unit: str = "states", stream: IO[str] | None = None) -> None:
        super().__init__(unit, stream)

    def __call__(self, done: int, note: str = "") -> None:
        if not self._shown():
            return
        if self.bar is None:
            from rich.progress import BarColumn, TextColumn, TimeElapsedColumn

            columns = [
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.fields[count]}"),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("elapsed"),
            ]
            bar = self._start(columns)
            self.task = bar.add_task(note, total=None, count="", rate="")
        assert self.bar is not None and self.task is not None
        self.bar.update(
            self.task,
            description=note,
            count=plural(done, self.unit.rstrip("s"), self.unit),
            rate=f"{self._rate(done):,.0f} {self.unit}/s",
        )
