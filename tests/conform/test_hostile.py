"""Adapters that misbehave (tests/conform/hostile.py): each gets one line and exit 3 from
`arbitro conform`, well within its deadline, and nothing of its process group outlives the run; a
slow but live engine is stopped at the deadline with its results so far; Ctrl-C gives the results
so far, exit 130 and no traceback."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arbitro.cli.main import main
from tests.support.clock import sigint_as_in_a_terminal, signal_state, stopwatch, stretched

HOSTILE = [sys.executable, str(Path(__file__).parent / "hostile.py")]
ROOT = Path(__file__).parent.parent.parent


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead: only its parent has not read its status yet
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def _pids(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()] if path.exists() else []


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("error-hello", "answered 'hello' with an error"),
        ("error-start", "answered 'start' with an error"),
        ("error-legal", "answered 'legal' with an error"),
        ("garbage", "is not JSON"),
        ("not-an-object", "not an answer object"),
        ("wrong-id", "carries id"),
        ("bad-legal", "not an array of actions"),
        ("bad-position", "lacks table, piles, to_move"),
        ("surrogate", "lone surrogate"),
        ("long-line", "longer than"),
        ("crash", "exit status 3); its last words: engine: cannot deal"),
        ("early-exit", "stopped answering at 'start' (exit status 0)"),
        ("hang", "no answer to 'legal' within {t} s"),
        ("detached", "stopped answering at 'start' (exit status 0)"),
        ("detached-hang", "no answer to 'hello' within {t} s"),
    ],
)
def test_a_hostile_adapter_gets_one_line_and_exit_3(
    mode: str,
    words: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    pids = tmp_path / "pids"
    monkeypatch.setenv("HOSTILE_PIDS", str(pids))
    # a second to answer on an idle machine, more on a busy one: the adapter must start first
    timeout = stretched(1)
    argv = ["conform", "escoba-es", "--games", "2", "--timeout", f"{timeout:g}"]
    try:
        with stopwatch() as run:
            code = main([*argv, "--deadline", "60", "--", *HOSTILE, mode])
        assert code == 3
        out, err = capsys.readouterr()
        words = words.format(t=f"{timeout:g}")
        assert out.count("\n") == 1 and words in out and err == "", (out, err)
        assert len(out) < 400
        # at most the timeout, then the adapter's group ended: nothing waited for what the
        # adapter holds (a hang of 60 s, a detached child's 60 s, the run's 60 s deadline)
        run.assert_within(waits=timeout, fails_past=60)
        time.sleep(0.1)
        left = [p for p in _pids(pids) if _alive(p)]
        if mode.startswith("detached"):
            # its child left the group for a session of its own: nothing arbitro could end
            # without hunting processes; it does not hold arbitro up (it still sleeps, holding
            # the adapter's output, when the run has ended)
            assert len(left) == 1
        else:
            assert left == []
    finally:
        for pid in _pids(pids):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_a_child_left_in_the_group_is_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pids = tmp_path / "pids"
    monkeypatch.setenv("HOSTILE_PIDS", str(pids))
    timeout = f"{stretched(1):g}"  # the adapter must start and answer first, on a busy machine too
    argv = ["conform", "escoba-es", "--games", "1", "--timeout", timeout, "--", *HOSTILE, "forks"]
    assert main(argv) == 1  # it answers: an engine with no legal moves, which disagrees
    capsys.readouterr()
    time.sleep(0.1)
    found = _pids(pids)
    assert len(found) == 2  # the adapter and the child it left
    assert not [p for p in found if _alive(p)]


def _resident(mode: str) -> tuple[str, int, int]:
    script = (
        "import resource, sys\n"
        "from arbitro.conformance.conform import conform\n"
        f"run = conform('escoba-es', {[*HOSTILE, mode]!r}, games=1, seed=0, timeout=20)\n"
        "print(run.failure['kind'], len(run.failure['message']), "
        "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-400:]
    kind, length, mb = done.stdout.split()
    return kind, int(length), int(mb)


def test_a_flood_on_stderr_does_not_grow_memory() -> None:
    """100 MB on stderr without a newline: at most the last few kilobytes are kept, so the run
    takes no more memory than one against an adapter that crashes quietly."""
    kind, length, mb = _resident("flood")
    assert kind == "crashed" and length < 400
    _, _, plain = _resident("crash")
    assert mb - plain < 30, f"{mb} MB resident for 100 MB of stderr, {plain} MB without"


def test_a_slow_engine_stops_at_the_deadline_with_its_results_so_far(
    capsys: pytest.CaptureFixture[str],
) -> None:
    deadline = stretched(2)  # time for the adapter to start and answer a few moves
    argv = ["conform", "escoba-es", "--games", "200", "--deadline", f"{deadline:g}"]
    with stopwatch() as run:
        code = main([*argv, "--", *HOSTILE, "slow"])
    assert code == 1  # it lists no moves: a disagreement, found before the deadline
    # the deadline cuts the wait for an answer: 200 games at 0.3 s an answer take hours
    run.assert_within(waits=deadline, fails_past=30)
    out = capsys.readouterr().out
    assert "stopped at the --deadline after" in out and "of 200 games" in out
    assert "legal · " in out


def test_ctrl_c_gives_the_results_so_far_and_ends_the_adapter(tmp_path: Path) -> None:
    pids, log = tmp_path / "pids", tmp_path / "log"
    env = {**os.environ, "HOSTILE_PIDS": str(pids), "HOSTILE_LOG": str(log)}
    with sigint_as_in_a_terminal():
        proc = subprocess.Popen(
            [sys.executable, "-m", "arbitro.cli", "conform", "escoba-es", "--games", "200",
             "--", *HOSTILE, "slow"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
            start_new_session=True,
        )  # fmt: skip
    try:
        # until the adapter has answered a few moves (however long a busy machine makes that)
        until = time.monotonic() + 120
        while time.monotonic() < until and proc.poll() is None:
            if log.exists() and len(log.read_text().split()) >= 3:
                break
            time.sleep(0.1)
        ran = proc.poll() is None
        proc.send_signal(signal.SIGINT)
        sent = signal_state(proc.pid) if ran else "the run had ended before Ctrl-C was sent"
        try:
            out, err = proc.communicate(timeout=120)  # a hang guard: a busy machine is slow
        except subprocess.TimeoutExpired:
            pytest.fail(f"no end 120 s after Ctrl-C; its signals then: {sent}; now: "
                        f"{signal_state(proc.pid)}")  # fmt: skip
    finally:
        # the run and anything of its group end here, whatever happened above
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == 130, (out, err, sent)
    assert "Traceback" not in err and "stopped by Ctrl-C after" in out
    assert "legal · " in out
    time.sleep(0.1)
    assert not [p for p in _pids(pids) if _alive(p)]


PROXY = [sys.executable, str(Path(__file__).parent / "proxy_adapter.py")]


@pytest.mark.parametrize(
    "kind",
    ["game-end", "hand-end"]
    + [pytest.param(k, marks=pytest.mark.slow) for k in ("refused", "state", "score", "legal")],
)
def test_every_kind_of_disagreement_is_shown_in_text_json_and_html(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    argv = ["conform", "escoba-es", "--games", "2", "--shrink-budget", "1", "--seed", "1"]
    argv += ["--blame-budget", "1"]
    page = tmp_path / "p.html"
    assert main([*argv, "--html", str(page), "--", *PROXY, kind]) == 1
    out = capsys.readouterr().out
    assert f"\n{kind} · " in out, out
    assert kind in page.read_text()
    assert main([*argv, "--json", "--", *PROXY, kind]) == 1
    got = json.loads(capsys.readouterr().out)
    assert kind in {d["kind"] for d in got["disagreements"]}
