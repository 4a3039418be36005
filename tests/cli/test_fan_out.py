"""`--workers N` / `--scheduler ADDRESS` on the long jobs: the results of one process.

The expected values are one process's run of the same command: every task is a function of its
own inputs (a book, a reading and a property; a batch of seeded games; a claim or witness search),
so where it runs cannot change it. Only timings are left out of the comparison.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arbitro.cli.main import main


def _json(capsys: pytest.CaptureFixture[str], argv: list[str], status: int = 0) -> Any:
    assert main(argv) == status
    return json.loads(capsys.readouterr().out)


def _untimed(v: Any) -> Any:
    """``v`` without its timings (the only part that depends on where and when it ran)."""
    if isinstance(v, dict):
        return {k: _untimed(x) for k, x in v.items() if k != "seconds"}
    if isinstance(v, list):
        return [_untimed(x) for x in v]
    return v


PROVE = ["prove", "escoba-es", "--all-readings", "--json"]
PROVE += ["--property", "deal-arithmetic", "--property", "table-rest"]


@pytest.mark.slow
def test_prove_all_readings_over_two_workers_gives_one_process_s_results(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("dask.distributed")
    one = _untimed(_json(capsys, [*PROVE, "--jobs", "1"]))
    two = _untimed(_json(capsys, [*PROVE, "--workers", "2"]))
    # every reading of the book, each property of it (an independent count: the book's readings)
    from arbitro.model.spec import load_rulebook
    from arbitro.proofs.runner import readings

    assert len(one["results"]) == 2 * len(readings(load_rulebook("escoba-es")))
    assert two == one


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([*PROVE, "--jobs", "2", "--workers", "1"], "--jobs (processes here) and --workers"),
        (["prove", "escoba-es", "--refine", "--workers", "1"], "--refine runs in this process"),
    ],
)
def test_prove_refuses_two_ways_of_fanning_out_in_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize("command", [["prove", "escoba-es", "--property", "deal-arithmetic"]])
@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("not a url!!", "is not a Dask scheduler address"),
        ("127.0.0.1:1", "no Dask scheduler answered at '127.0.0.1:1'"),
    ],
)
def test_a_scheduler_that_cannot_be_used_is_one_line(
    command: list[str],
    address: str,
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    pytest.importorskip("dask.distributed")
    from arbitro.proofs import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", "1s")
    monkeypatch.chdir(tmp_path)
    assert main([*command, "--scheduler", address]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


@pytest.mark.parametrize(
    "command",
    [
        ["explore", "escoba-es", "--config", "escoba-tiny", "--deal", "0"],
        ["simulate", "escoba-es", "--games", "1"],
        ["report", "escoba-es", "--games", "1", "--output", "r.html"],
        ["prove", "escoba-es", "--property", "deal-arithmetic"],
        ["findings", "--recompute"],
        ["conform", "escoba-es", "--games", "1"],
    ],
    ids=lambda argv: argv[0],
)
@pytest.mark.parametrize("address", [""])
def test_an_empty_scheduler_is_refused_not_taken_for_none(
    command: list[str],
    address: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `--scheduler "$SCHEDULER"` with the variable unset must not run the job in this process
    monkeypatch.chdir(tmp_path)
    adapter = ["--", "no-such-engine"] if command[0] == "conform" else []
    assert main([*command, "--scheduler", address, *adapter]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "--scheduler must be a Dask scheduler address (tcp://HOST:PORT)" in err, err
    assert not list(tmp_path.iterdir())  # nothing ran, nothing was written
