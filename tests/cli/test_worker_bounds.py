"""Worker counts are bounded by the cores (issue: reliability, "`prove --jobs 24` forks 24
processes (1.3 GB); `explore --workers` likewise"): `--jobs` past the cores is lowered with one
line saying so, `--workers` past them is refused in one line naming `--scheduler`, before any
process is started. The machine is made to have two cores, so the numbers do not depend on
where the tests run."""

from __future__ import annotations

from pathlib import Path

import pytest

from arbitro.cli.main import main
from arbitro.cli.prove import capped_jobs
from arbitro.model.errors import OptionError
from arbitro.proofs import cluster


@pytest.fixture
def two_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    monkeypatch.setattr(cluster, "usable_cores", lambda: 2)


def test_prove_jobs_past_the_cores_are_lowered_saying_so(
    two_cores: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert capped_jobs(24) == 2
    err = capsys.readouterr().err
    assert err == "arbitro: --jobs 24 lowered to 2, the cores of this machine\n"
    assert capped_jobs(2) == 2 and capped_jobs(1) == 1
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("asked", [0, -3])
def test_prove_jobs_below_one_are_refused(asked: int) -> None:
    with pytest.raises(OptionError, match=f"--jobs must be at least 1, got {asked}"):
        capped_jobs(asked)


@pytest.mark.parametrize(
    "argv",
    [
        ["explore", "escoba-es", "--config", "escoba-tiny", "--workers", "24"],
        ["simulate", "escoba-es", "--games", "1", "--workers", "24"],
        ["report", "escoba-es", "--games", "1", "--workers", "24", "--output", "r.html"],
        ["prove", "escoba-es", "--all-readings", "--workers", "24"],
    ],
)
def test_workers_past_the_cores_are_refused_in_one_line_naming_the_way_past(
    two_cores: None,
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "--workers 24 is more than the 2 cores here" in err and "--scheduler" in err, err


def test_workers_up_to_the_cores_are_taken(two_cores: None) -> None:
    cluster.check_workers(None)  # not asked: the job runs in this process
    cluster.check_workers(1)
    cluster.check_workers(2)
    for asked in (3, 0, -1):
        with pytest.raises(cluster.ClusterError):
            cluster.check_workers(asked)


@pytest.mark.parametrize(
    ("asked", "message"),
    [
        ("0", "--workers must be at least 1, got 0"),
        ("-2", "--workers must be at least 1, got -2"),
        ("two", "--workers must be a whole number of processes, got 'two'"),
        ("99999999999999999999", "--workers 99999999999999999999 is more than the 2 cores"),
    ],
)
def test_a_workers_count_that_is_no_count_is_refused_in_one_line(
    two_cores: None, asked: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", "escoba-es", "--games", "1", "--workers", asked]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
