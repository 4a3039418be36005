"""benchmarks/prove_under_load.py: two `prove --json` reports are compared on what they decided,
never on their times, and a decision that moved is named down to the check."""

from __future__ import annotations

import copy
import importlib
from types import ModuleType
from typing import Any

import pytest


def script() -> ModuleType:
    # benchmarks/ is a folder of scripts beside tests/; the repository's root is on sys.path
    return importlib.import_module("benchmarks.prove_under_load")


def report() -> dict[str, Any]:
    check = {"name": "draw", "verdict": "PROVED", "seconds": 0.2, "core": ["samba-es:draw-count"]}
    return {
        "rlimit": 250_000_000,
        "seconds": 3.0,
        "results": [
            {
                "property": "conservation",
                "rulebook": "samba-es",
                "options": {},
                "verdict": "PROVED",
                "seconds": 1.5,
                "checks": [check, {**check, "name": "lay", "core": []}],
            },
            {
                "property": "score-bounds",
                "rulebook": "samba-es",
                "options": {"score_losing_melds": "winners-only"},
                "verdict": "PROVED",
                "seconds": 0.5,
                "bounds": [-1500, 9000],
            },
        ],
    }


def test_times_alone_are_no_difference() -> None:
    m = script()
    slower = copy.deepcopy(report())
    slower["seconds"] = 30.0
    for r in slower["results"]:
        r["seconds"] *= 10
        for c in r.get("checks", []):
            c["seconds"] *= 10
    assert m.differences(report(), slower) == []


def test_a_check_that_ran_out_is_named() -> None:
    m = script()
    busy = copy.deepcopy(report())
    busy["results"][0]["verdict"] = "UNKNOWN"
    busy["results"][0]["checks"][1]["verdict"] = "UNKNOWN"
    assert m.differences(report(), busy) == [
        "samba-es conservation: PROVED -> UNKNOWN (lay: PROVED -> UNKNOWN)"
    ]


def test_a_moved_bound_or_core_is_a_difference() -> None:
    m = script()
    busy = copy.deepcopy(report())
    busy["results"][1]["bounds"] = [-1500, 8500]
    busy["results"][0]["checks"][0]["core"] = []
    got = m.differences(report(), busy)
    assert got == [
        "samba-es conservation: same verdict, different details (draw: details)",
        "samba-es score-bounds (score_losing_melds=winners-only): same verdict, different details",
    ]


def test_a_result_missing_from_one_run_is_named() -> None:
    m = script()
    busy = copy.deepcopy(report())
    del busy["results"][1]
    assert m.differences(report(), busy) == [
        "samba-es score-bounds (score_losing_melds=winners-only): only in the first run"
    ]


def test_the_burners_are_gone_when_it_ends() -> None:
    m = script()
    with m.burners(2) as procs:
        assert all(p.poll() is None for p in procs)
    assert all(p.poll() is not None for p in procs)


@pytest.mark.slow
def test_one_property_decides_the_same_beside_a_burner(capsys: pytest.CaptureFixture[str]) -> None:
    m = script()
    assert m.main(["--burners", "1", "--", "escoba-es", "--property", "book-numbers"]) == 0
    out = capsys.readouterr().out
    assert "the same decisions: 1 results" in out
