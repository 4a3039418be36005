"""Time bounds that hold on a busy machine and still fail on the behaviour they guard, and the
processes a test started.

A test that asserts "this took under 8 s" fails when the machine is busy (CI runs the suite on two
cores, two test workers and whatever else runs there). What such a test guards is almost always
that a run does not *wait* for something: a hung adapter, a child that holds a pipe, a deadline
ignored. So a bound here is stated as the waits the run is meant to make (a 1 s timeout, a 2 s
deadline) plus the run's own work, and the work is measured, not guessed: the CPU time the run
and its reaped children used, scaled by how many wall seconds one CPU second takes on the machine
right now (a busy loop timed before and after). Idle waiting uses no CPU, so waiting for a hung
process makes the wall time grow and the bound not.

`fails_past` is the wait of the behaviour the test guards against (the hung adapter's sleep, the
ignored deadline): the bound never reaches it, so the test keeps the power to fail however busy
the machine is.
"""

from __future__ import annotations

import os
import resource
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

# what a run waits for by design besides its timeouts: the exit of a child given 0.05 to 1 s to
# quit, select() rounds of 0.1 to 0.25 s, a process start; measured at about 1.5 s on an idle
# machine for the slowest hostile adapter, doubled
LATENCY = 3.0
# the run's measured CPU time is multiplied by this much besides the machine's slowdown: the work
# of a process that ran while the machine was busier than either sample saw
WORK_MARGIN = 3.0


def cpu_seconds() -> float:
    """CPU seconds used by this process and its children that have been waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def process_cpu_seconds(pid: int) -> float:
    """CPU seconds the live process `pid` has used (0 once it is gone): for a test that waits
    until another process has done some work, which a busy machine makes take longer."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


@contextmanager
def sigint_as_in_a_terminal() -> Iterator[None]:
    """Processes started inside receive Ctrl-C as a terminal's foreground command does, however
    this one was started: a shell without job control (a script, `cmd &`) starts a background
    command with SIGINT ignored, and an ignored signal stays ignored through fork and exec, so a
    test sending its child SIGINT would see the child go on (no Ctrl-C handling to test at all).
    While the children start, this process's SIGINT is Python's own handler, which exec resets
    to the default; it is ignored again after."""
    before = signal.getsignal(signal.SIGINT)
    if before is not signal.SIG_IGN or threading.current_thread() is not threading.main_thread():
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def signal_state(pid: int) -> str:
    """The signal masks of the live process `pid` as /proc shows them (pending, blocked, ignored,
    caught; SIGINT is bit 2, value 0x2): what a test that sent Ctrl-C reports when the process
    did not stop, so that a run which inherited an ignored or blocked SIGINT says so."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return f"process {pid} is gone"
    wanted = ("SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")
    return ", ".join(" ".join(line.split()) for line in lines if line.startswith(wanted))


def children() -> set[int]:
    """The processes whose parent is this one (zombies included): a test that runs an adapter
    compares them before and after, to see it ended and reaped."""
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid():
            out.add(int(stat.parent.name))
    return out


def slowdown(cpu: float = 0.05) -> float:
    """Wall seconds one CPU second takes now (at least 1): a busy loop of `cpu` CPU seconds,
    timed. On an idle core 1; with three busy processes for two cores about 1.5 to 2."""
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while time.process_time() - cpu0 < cpu:
        pass
    return max(1.0, (time.perf_counter() - wall0) / (time.process_time() - cpu0))


def stretched(seconds: float) -> float:
    """`seconds` times the machine's slowdown now, to one decimal: a timeout a test gives a
    process that must start and answer first (a Python adapter's start takes a tenth of a second
    idle, and seconds when the machine is busy)."""
    return round(seconds * max(slowdown(), slowdown()), 1)


@dataclass
class Stopwatch:
    """The wall and CPU time of the block it times (`with stopwatch() as sw:`)."""

    wall: float = 0.0
    cpu: float = 0.0
    slow: float = 1.0
    samples: list[float] = field(default_factory=list)

    def allowed(self, waits: float) -> float:
        """Wall seconds a run that waits `waits` seconds by design may take, given its work."""
        return waits + (LATENCY + WORK_MARGIN * self.cpu) * self.slow

    def assert_within(self, waits: float, fails_past: float) -> None:
        """The run took no longer than its designed `waits` and its own work, and in any case less
        than `fails_past`, the time the broken behaviour takes."""
        bound = min(self.allowed(waits), fails_past * 0.9)
        assert self.wall < bound, (
            f"took {self.wall:.1f} s wall for {waits:g} s of waits and {self.cpu:.2f} s of CPU "
            f"(slowdown {self.slow:.1f}, bound {bound:.1f} s; the guarded fault takes "
            f"{fails_past:g} s)"
        )


@contextmanager
def stopwatch() -> Iterator[Stopwatch]:
    sw = Stopwatch()
    sw.samples.append(slowdown())
    wall0, cpu0 = time.monotonic(), cpu_seconds()
    try:
        yield sw
    finally:
        sw.wall = time.monotonic() - wall0
        sw.cpu = cpu_seconds() - cpu0
        sw.samples.append(slowdown())
        sw.slow = max(sw.samples)
