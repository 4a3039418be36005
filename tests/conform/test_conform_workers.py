"""`conform --workers/--scheduler`: games in batches and each group's blame on Dask workers, each
task with an engine process of its own, give the run of one process.

The expected values are one process's run of the same command: a game's deal and moves come from
(seed, game) alone, and the only thing one game hands the next (the clauses agreeing moves turned
on, which order a later disagreement's candidates) is applied here in game order. The engine is
tests/support/buggy_escoba.py with the rest of the table left on it at the end of a hand
(escoba-es *Fin de la mano*: the last to capture takes it), a state disagreement whose
candidates that order decides.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arbitro.cli.main import main
from arbitro.conformance import conform as cf
from tests.support.inline_client import InlineClient

ENGINE = [sys.executable, str(Path(__file__).parent / "escoba_adapter.py")]
ENGINE += ["--bug", "rest_to_capturer=false"]
RUN: dict[str, Any] = dict(games=8, seed=3, budget=5, blame_budget=3, keep_going=False)


@pytest.fixture
def inline(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--workers` runs its tasks here, in batches of four games, each with its own engine."""

    @contextlib.contextmanager
    def cluster(scheduler: str | None, workers: int) -> Iterator[Any]:
        yield InlineClient() if scheduler or workers else None

    monkeypatch.setattr(cf, "cluster", cluster)
    monkeypatch.setattr(cf, "_batch_size", lambda client, games: 4)


def _run(**kw: Any) -> Any:
    return cf.conform("escoba-es", ENGINE, **RUN, **kw).to_json()


def test_batches_of_a_conforming_engine_give_one_process_s_run(inline: None) -> None:
    engine = ENGINE[:2]  # the engine without the bug
    one = cf.conform("escoba-es", engine, games=5, seed=1).to_json()
    assert one["status"] == "conforms" and one["played"] == 5  # two batches and a half
    assert cf.conform("escoba-es", engine, games=5, seed=1, workers=2).to_json() == one


@pytest.mark.slow
def test_batches_with_engines_of_their_own_give_one_process_s_run(
    inline: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = _run()
    assert one["status"] == "disagrees" and one["played"] == RUN["games"]
    assert any(d["kind"] == "state" for d in one["disagreements"])
    assert _run(workers=2) == one
    # a fan-out that orders a game's candidates as its worker saw them (no earlier game) and
    # not as one process would have: the blame and the profile differ
    real = cf._count

    def forgetful(run: Any, ls: Any, out: Any, evidence: Any) -> None:
        before = set(ls.suspect_free)
        ls.suspect_free.clear()
        real(run, ls, out, evidence)
        ls.suspect_free |= before

    monkeypatch.setattr(cf, "_count", forgetful)
    assert _run(workers=2) != one


def _cli(capsys: pytest.CaptureFixture[str], extra: list[str]) -> Any:
    argv = ["conform", "escoba-es", "--games", "8", "--seed", "3", "--shrink-budget", "5"]
    argv += ["--blame-budget", "3", "--stop-at-first", "--json", *extra, "--", *ENGINE]
    assert main(argv) == 1  # disagrees
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_two_local_workers_give_one_process_s_run(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("dask.distributed")
    one = _cli(capsys, [])
    assert _cli(capsys, ["--workers", "2"]) == one


def test_a_scheduler_that_does_not_answer_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("dask.distributed")
    from arbitro.proofs import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", "1s")
    argv = ["conform", "escoba-es", "--games", "1", "--scheduler", "127.0.0.1:1", "--", *ENGINE]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "no Dask scheduler answered at '127.0.0.1:1'" in err and err.count("\n") == 1, err


def test_a_worker_s_engines_are_ended_even_when_they_ignore_the_end_of_their_input() -> None:
    """What a worker runs when the run stops (Ctrl-C, the deadline): every engine its tasks
    started ends, even one that would outlive its closed input (its own session is out of the
    terminal's reach)."""
    import subprocess
    import time

    from arbitro.conformance.conform_adapter import Adapter

    stubborn = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"
    engine = Adapter([sys.executable, "-c", stubborn])
    cf._ENGINES.add(engine)
    try:
        time.sleep(0.3)  # it has set its handler
        cf._end_engines()
        assert engine.proc.wait(timeout=10) is not None
    finally:
        cf._ENGINES.discard(engine)
        if engine.proc.poll() is None:
            engine.proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                engine.proc.wait(5)
