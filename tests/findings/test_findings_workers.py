"""`findings --recompute --workers/--scheduler`: the derivation's tasks over Dask workers give the
data of one process.

The expected data is one process's derivation of the same books: each task (a book's claims, its
meld searches, its dead ends; a group of witness searches; an open question looked for in play)
is a function of its inputs, and the results are merged in task order.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arbitro.cli.main import main
from arbitro.findings import core
from arbitro.findings.core import WitnessJob, _label, _sharing, witness_jobs
from arbitro.model.spec import load_all, load_rulebook


def _pairs(job: WitnessJob) -> set[str]:
    return {_label(job.key, a, b) for a, b in ((job.first, job.second), *job.others)}


def test_witness_searches_that_share_a_pair_are_one_task() -> None:
    """Every job is in one group; two jobs that try a common pair of rule sets are in the same
    group (so the pair is searched once); each group keeps the jobs' order."""
    jobs = witness_jobs(load_all())
    groups = _sharing(jobs)
    assert sorted(j.label for g in groups for j in g) == sorted(j.label for j in jobs)
    where = {j.label: i for i, g in enumerate(groups) for j in g}
    for a in jobs:
        for b in jobs:
            if _pairs(a) & _pairs(b):
                assert where[a.label] == where[b.label], (a.label, b.label)
    order = {j.label: i for i, j in enumerate(jobs)}
    for g in groups:
        assert [order[j.label] for j in g] == sorted(order[j.label] for j in g)


def test_jobs_are_grouped_by_the_pairs_they_try() -> None:
    """Jobs made up to share pairs: a job trying a pair another tries (as its first pair or as
    a fallback) joins its group; a job sharing with two groups joins them into one."""

    def job(name: str, *pairs: tuple[str, str]) -> WitnessJob:
        (a, b), *rest = [((x, {}), (y, {})) for x, y in pairs]
        return WitnessJob(name, "k", a, b, tuple(rest))

    a, b = job("a", ("p", "q")), job("b", ("r", "s"))
    c, d = job("c", ("t", "u"), ("p", "q")), job("d", ("v", "w"), ("r", "s"))
    e = job("e", ("x", "y"))
    names = [[j.label for j in g] for g in _sharing([a, b, c, d, e])]
    assert names == [["a", "c"], ["b", "d"], ["e"]]
    joins = job("f", ("t", "u"), ("v", "w"))  # c's pair and d's: one group of the two
    names = [[j.label for j in g] for g in _sharing([a, b, c, d, e, joins])]
    assert names == [["a", "b", "c", "d", "f"], ["e"]]


def test_a_scheduler_that_does_not_answer_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("dask.distributed")
    from arbitro.proofs import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", "1s")
    monkeypatch.setenv("ARBITRO_CACHE", str(tmp_path))
    argv = ["findings", "--recompute", "--scheduler", "127.0.0.1:1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "no Dask scheduler answered at '127.0.0.1:1'" in err and err.count("\n") == 1, err


@pytest.mark.slow
def test_two_local_workers_derive_one_process_s_data() -> None:
    pytest.importorskip("dask.distributed")
    from arbitro.proofs.cluster import cluster

    books = [load_rulebook("escoba-es")]
    one = core.derive(books)
    with cluster(None, 2) as client:
        two = core.derive(books, client=client)
    assert json.dumps(two) == json.dumps(one)  # the same data, in the same order
    assert one["claims"] and one["witnesses"] and one["arises"]
