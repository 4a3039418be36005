"""The mutation harness (benchmarks/mutants.py): its mutants still apply to the engine as it is,
and a planted bug is reported killed by the layer that notices it, never by one that cannot."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


def harness() -> ModuleType:
    # benchmarks/ is a folder of scripts beside tests/; the repository's root is on sys.path
    return importlib.import_module("benchmarks.mutants")


def test_every_mutant_still_applies_once() -> None:
    m = harness()
    assert m.snippet_problems() == []
    # at least 40 bugs, in both families (issue 22)
    assert len(m.MUTANTS) >= 40
    assert {x.family for x in m.MUTANTS} == {"escoba", "rummy"}
    assert all(x.file.startswith(f"model/{x.family}/") for x in m.MUTANTS)


def test_a_rotten_snippet_is_reported(tmp_path: Path) -> None:
    m = harness()
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "x.py").write_text("a = 1\na = 1\n", encoding="utf-8")
    twice = m.Mutant("twice", "rummy", "model/x.py", "a = 1\n", "a = 2\n", "duplicated")
    gone = m.Mutant("gone", "rummy", "model/x.py", "b = 1\n", "b = 2\n", "vanished")
    got = m.snippet_problems(tmp_path, [twice, gone])
    assert len(got) == 2 and "2 times" in got[0] and "0 times" in got[1]


@pytest.mark.slow
def test_mutants_end_to_end() -> None:
    """The unmutated copy passes the chosen tests, each planted bug fails them; the copy runs
    its engine from source (a compiled build would hide the edit)."""
    m = harness()
    by_name = {x.name: x for x in m.MUTANTS}
    cases = [
        ("escoba-capture-overshoot", ["tests/model/escoba/test_escoba_capture.py"]),
        ("rummy-samba-bonus", ["tests/model/rummy/test_rummy_scoring.py"]),
        ("rummy-pile-held-rest-lost", ["tests/proofs/test_play_refinement.py"]),
    ]
    for name, tests in cases:
        mutant = by_name[name]
        control = m.run_one(None, mutant.family, ["suite"], tests=tests, timeout=600)
        assert control["suite"].status == "survived", control["suite"].detail
        got = m.run_one(mutant, mutant.family, ["suite"], tests=tests, timeout=600)
        assert got["suite"].status == "killed", (name, got["suite"].detail)
