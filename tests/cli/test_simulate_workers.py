"""`simulate --workers`: the games over Dask workers give the one-process summary and records.

The expected values are one process's run of the same command: game g draws its randomness from
(seed, g) alone, so where it is played cannot change it, and the records must match byte for byte.
A fan-out that loses track of game order (runs counted as they finish, not in order) is shown to
break that comparison.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from arbitro.cli.main import main
from arbitro.games import model_for
from arbitro.model.schema import rules_for
from arbitro.model.spec import load_rulebook
from arbitro.simulation import simulate as sim
from tests.support.inline_client import InlineClient


def _run(tmp_path: Path, name: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    records = tmp_path / f"{name}.jsonl"
    assert main([*argv, "--records", str(records), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    data.pop("seconds")
    data.pop("records")
    return data, records.read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "escoba-es", "--games", "12", "--seed", "3"],
        ["simulate", "samba-es", "--games", "3", "--seed", "1", "--policy", "fast"],
    ],
)
def test_two_workers_give_one_process_s_records(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("dask.distributed")
    one = _run(tmp_path, "one", argv, capsys)
    two = _run(tmp_path, "two", [*argv, "--workers", "2"], capsys)
    assert two == one
    assert one[1].count(b"\n") >= 3  # records of several hands were compared


def test_runs_are_counted_in_game_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fan-out's runs, played out of order, still count in game order: the same hands reach
    the records as in one process. Counting a run's games backwards breaks it."""
    book = load_rulebook("escoba-es")
    rules = rules_for(book)
    model = model_for(book.game)
    seating = model.seatings(rules)[0]

    @contextlib.contextmanager
    def inline(scheduler: str | None, workers: int) -> Any:
        yield InlineClient()

    monkeypatch.setattr("arbitro.proofs.cluster.dask_client", inline)

    def run(**kw: Any) -> tuple[list[sim.Hand], dict[str, Any]]:
        hands: list[sim.Hand] = []
        s = sim.simulate(model, rules, seating, 16, 5, on_hand=hands.append, **kw)
        d = s.to_json()
        d.pop("seconds")
        return hands, d

    one = run()
    assert run(workers=2) == one
    real = sim._play_run
    monkeypatch.setattr(sim, "_play_run", lambda *a: real(*a)[::-1])
    assert run(workers=2)[0] != one[0]


def test_more_workers_than_cores_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    from arbitro.proofs.cluster import usable_cores

    n = usable_cores() + 1
    assert main(["simulate", "escoba-es", "--games", "1", "--workers", str(n)]) == 2
    assert f"--workers {n} is more than the" in capsys.readouterr().err


@pytest.mark.slow
def test_report_over_two_workers_has_one_process_s_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("dask.distributed")

    def numbers(name: str, extra: list[str]) -> Any:
        out = tmp_path / f"{name}.html"
        argv = ["report", "escoba-es", "--games", "8", "--output", str(out), "--json"]
        assert main([*argv, *extra]) == 0
        data = json.loads(capsys.readouterr().out)
        for run in data["runs"]:
            run.pop("seconds")
        data.pop("output")
        return data

    assert numbers("two", ["--workers", "2"]) == numbers("one", [])
