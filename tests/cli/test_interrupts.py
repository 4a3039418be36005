"""Ctrl-C on a long command: exit 130, the results so far, no traceback, and no process of the run
left behind (the signal goes to the whole process group, as a terminal sends it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


def _session_pids(sid: int) -> list[int]:
    """Every live process of session `sid` (the run and anything it started)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # after the command name: state, ppid, pgrp, session
        if int(fields[3]) == sid and fields[0] != "Z":
            out.append(int(entry.name))
    return out


def interrupt(argv: list[str], after: float, wait_for_children: int = 0) -> tuple[int, str, str]:
    """Run `arbitro ARGV` in its own session, send SIGINT to its group once it has run `after`
    seconds (and started `wait_for_children` processes), and return (status, stdout, stderr)
    once it ends; fails if a process of the run is left."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "arbitro.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + after + 120
    time.sleep(after)
    while wait_for_children and time.monotonic() < deadline:
        if len(_session_pids(proc.pid)) > wait_for_children or proc.poll() is not None:
            break
        time.sleep(0.2)
    assert proc.poll() is None, "the run ended before it was interrupted"
    os.killpg(proc.pid, signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError("the run did not end within 60 s of Ctrl-C") from None
    time.sleep(0.5)
    left = _session_pids(proc.pid)
    if left:
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        raise AssertionError(f"processes of the run left after Ctrl-C: {left}")
    return proc.returncode, out, err


@pytest.mark.slow
def test_prove_ends_with_its_results_so_far_and_no_worker_left() -> None:
    code, out, err = interrupt(
        ["prove", "escoba-es", "samba-fr", "samba-en", "--jobs", "2"], 2.0, wait_for_children=2
    )
    assert code == 130, err
    assert "Traceback" not in err and "interrupted" in err
    assert "results finished before Ctrl-C" in err
    assert out  # the table of what was finished (possibly no row yet, but its frame)


@pytest.mark.slow
def test_explore_ends_with_the_states_so_far() -> None:
    code, out, err = interrupt(
        ["explore", "escoba-es", "--config", "escoba-28h4", "--deal", "0"], 3.0
    )
    assert code == 130, err
    assert "Traceback" not in err
    assert "INTERRUPTED" in out and "states" in out


@pytest.mark.slow
def test_simulate_ends_with_the_games_so_far() -> None:
    code, out, err = interrupt(["simulate", "samba-en", "--games", "100000", "--json"], 3.0)
    assert code == 130, err
    assert "Traceback" not in err
    assert '"interrupted": true' in out


@pytest.mark.slow
def test_report_ends_with_the_games_so_far(tmp_path: Path) -> None:
    page = tmp_path / "r.html"
    code, _, err = interrupt(
        ["report", "escoba-es", "--games", "1000000", "--output", str(page)], 4.0
    )
    assert code == 130, err
    assert "Traceback" not in err
