"""Ctrl-C on a long command: exit 130, the results so far, no traceback, and no process of the run
left behind (the signal goes to the whole process group, as a terminal sends it)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.support.clock import sigint_as_in_a_terminal


def _run_pids(sid: int, mark: str) -> list[int]:
    """Every live process of the run: in session `sid`, or carrying `mark` in its environment (an
    adapter or worker the run started in a session of its own)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if fields[0] == "Z":
                continue
            # after the command name: state, ppid, pgrp, session
            if int(fields[3]) == sid or mark.encode() in (entry / "environ").read_bytes():
                out.append(int(entry.name))
        except (OSError, ValueError):
            continue
    return out


def _cpu_seconds(sid: int, mark: str) -> float:
    """The CPU time the processes of the run have used so far."""
    ticks = 0
    for pid in _run_pids(sid, mark):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def interrupt(
    argv: list[str], after: float, wait_for_children: int = 0, env: dict[str, str] | None = None
) -> tuple[int, str, str]:
    """Run `arbitro ARGV` in its own session, send SIGINT to its group once it has used `after`
    CPU seconds (and started `wait_for_children` processes), and return (status, stdout, stderr)
    once it ends; fails if a process of the run is left. Whatever happens, nothing of the run
    outlives the test."""
    mark = f"ARBITRO_TEST_RUN={uuid.uuid4().hex}"
    with sigint_as_in_a_terminal():
        proc = subprocess.Popen(
            [sys.executable, "-m", "arbitro.cli", *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            env={**os.environ, **(env or {}), mark.split("=")[0]: mark.split("=")[1]},
        )
    try:
        # `after` counts CPU seconds of the run, so a loaded machine still interrupts it at the
        # same point of its work (past its start-up, within its computation)
        deadline = time.monotonic() + 20 * after + 120
        while _cpu_seconds(proc.pid, mark) < after and time.monotonic() < deadline:
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        while wait_for_children and time.monotonic() < deadline:
            if len(_run_pids(proc.pid, mark)) > wait_for_children or proc.poll() is not None:
                break
            time.sleep(0.2)
        assert proc.poll() is None, "the run ended before it was interrupted"
        os.killpg(proc.pid, signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError("the run did not end within 60 s of Ctrl-C") from None
        time.sleep(0.5)
        left = _run_pids(proc.pid, mark)
        assert not left, f"processes of the run left after Ctrl-C: {left}"
        return proc.returncode, out, err
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        _kill(_run_pids(proc.pid, mark))
        if proc.poll() is None or (proc.stdout and not proc.stdout.closed):
            proc.communicate()


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
def test_prove_over_dask_workers_ends_with_its_results_so_far_and_no_worker_left() -> None:
    pytest.importorskip("dask.distributed")
    # the run, its fork server and two workers started (more than 3 processes), then Ctrl-C
    # within the proofs (a Ctrl-C while the workers start is the explorer's test's case)
    code, out, err = interrupt(
        ["prove", "escoba-es", "samba-fr", "--workers", "2"], 8.0, wait_for_children=3
    )
    assert code == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert "results finished before Ctrl-C" in err
    assert out


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


ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.slow
def test_conform_ends_with_the_games_so_far_and_no_adapter_left() -> None:
    adapter = [sys.executable, str(ROOT / "tests" / "conform" / "escoba_adapter.py")]
    code, out, err = interrupt(["conform", "escoba-es", "--games", "100000", "--", *adapter], 4.0)
    assert code == 130, err
    assert "Traceback" not in err
    assert "stopped by Ctrl-C after" in out


@pytest.mark.slow
def test_conform_over_dask_workers_ends_with_the_games_so_far_and_no_adapter_left() -> None:
    pytest.importorskip("dask.distributed")
    adapter = [sys.executable, str(ROOT / "tests" / "conform" / "escoba_adapter.py")]
    argv = ["conform", "escoba-es", "--games", "100000", "--workers", "2", "--", *adapter]
    # the run, its fork server, two workers and their adapters started, then Ctrl-C
    code, out, err = interrupt(argv, 8.0, wait_for_children=5)
    assert code == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert "stopped by Ctrl-C after" in out


@pytest.mark.slow
def test_findings_recompute_ends_with_the_findings_so_far(tmp_path: Path) -> None:
    # an empty cache: everything is derived anew (minutes), and Ctrl-C comes within the claims
    code, out, err = interrupt(
        ["findings", "--recompute"], 6.0, env={"ARBITRO_CACHE": str(tmp_path / "cache")}
    )
    assert code == 130, err
    assert "Traceback" not in err and "interrupted" in err
    # the findings the specs declare, and the note that the derived part is partial
    assert "internal-contradiction" in out
    assert "stopped by Ctrl-C: only the results derived before it (not cached)" in " ".join(
        out.split()
    )
    assert not list((tmp_path / "cache").glob("findings-*.json"))  # nothing partial is cached


@pytest.mark.slow
def test_findings_recompute_over_dask_workers_ends_with_the_findings_so_far(
    tmp_path: Path,
) -> None:
    pytest.importorskip("dask.distributed")
    # the run, its fork server and two workers started, then Ctrl-C within the derivation
    code, out, err = interrupt(
        ["findings", "--recompute", "--workers", "2"],
        10.0,
        wait_for_children=3,
        env={"ARBITRO_CACHE": str(tmp_path / "cache")},
    )
    assert code == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err and "interrupted" in err
    assert "internal-contradiction" in out
    assert "stopped by Ctrl-C: only the results derived before it (not cached)" in " ".join(
        out.split()
    )
    assert not list((tmp_path / "cache").glob("findings-*.json"))
