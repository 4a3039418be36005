"""Ctrl-C while a cluster is open ends the wait on the workers even where the interpreter drops
the KeyboardInterrupt (raised inside a finaliser or a garbage-collector callback, as Dask's own
GC diagnostics are while its scheduler runs in this process)."""

from __future__ import annotations

import gc
import os
import signal
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from arbitro.proofs import cluster


class _Finaliser:
    """Ctrl-C arriving while this object's finaliser runs: its KeyboardInterrupt is raised in
    the finaliser, where the interpreter reports it as unraisable and goes on."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(100_000):  # the handler runs within this loop
            pass


@pytest.fixture
def dropped(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """The exceptions the interpreter dropped, with SIGINT handled as a terminal's Python is."""
    got: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: got.append(u.exc_type))
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield got
    finally:
        signal.signal(signal.SIGINT, before)


def test_without_the_note_a_dropped_ctrl_c_leaves_nothing_behind(dropped: list[Any]) -> None:
    # the failure mode: the interrupt is gone, and a wait would go on as if it had not come
    _Finaliser()
    assert dropped == [KeyboardInterrupt]
    assert not cluster.ctrl_c_seen()
    cluster.check_ctrl_c()  # raises nothing


def test_a_dropped_ctrl_c_still_ends_a_wait_on_the_workers(dropped: list[Any]) -> None:
    with cluster._noting_ctrl_c():
        _Finaliser()
        assert dropped == []  # noted, and not printed as "Exception ignored"
        assert cluster.ctrl_c_seen()
        with pytest.raises(KeyboardInterrupt):
            cluster._wait_until(lambda: False)  # a task that never ends
    # the note lasts as long as the cluster: the next one starts afresh
    assert not cluster.ctrl_c_seen()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    # and the interpreter's report of anything else dropped is as it was
    _Finaliser()
    assert dropped == [KeyboardInterrupt]


def test_other_dropped_exceptions_are_still_reported(dropped: list[Any]) -> None:
    class Broken:
        def __del__(self) -> None:
            raise ValueError("a finaliser's own bug")

    with cluster._noting_ctrl_c():
        Broken()
    assert dropped == [ValueError]


def test_a_ctrl_c_that_is_not_dropped_is_raised_where_it_comes(dropped: list[Any]) -> None:
    with cluster._noting_ctrl_c(), pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(100_000):
            pass
    assert dropped == []


def test_an_ignored_ctrl_c_stays_ignored() -> None:
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with cluster._noting_ctrl_c():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


class _Future:
    """A Dask future's surface, done after `after` looks."""

    def __init__(self, after: int) -> None:
        self.looks = after

    def done(self) -> bool:
        self.looks -= 1
        return self.looks <= 0

    def result(self) -> str:
        return "ok"


def test_a_wait_without_ctrl_c_gives_the_result() -> None:
    assert cluster.wait_result(_Future(after=5)) == "ok"


def _dask_gc_callback(phase: str, info: dict[str, int]) -> None:
    """Stands for Dask's GC diagnostics after a Ctrl-C cut its callback between start and stop:
    at every later collection its timer fails its own assertion, which the interpreter drops."""
    raise AssertionError("assert self._cur_start is None")


_dask_gc_callback.__module__ = "distributed.gc"


def _collect_with_dask_broken() -> None:
    gc.callbacks.append(_dask_gc_callback)
    try:
        gc.collect()
    finally:
        gc.callbacks.remove(_dask_gc_callback)


def test_dask_left_broken_by_a_ctrl_c_stays_quiet_after_the_cluster(dropped: list[Any]) -> None:
    # CI saw this: the timer failed again while the cluster closed, after the block had put the
    # interpreter's report back, and the traceback sat under "arbitro: interrupted"
    with cluster._noting_ctrl_c():
        _Finaliser()  # the Ctrl-C
    _collect_with_dask_broken()
    assert dropped == []
    # anything else dropped is still reported
    _Finaliser()
    assert dropped == [KeyboardInterrupt]


def test_without_a_ctrl_c_dask_failures_are_reported(dropped: list[Any]) -> None:
    with cluster._noting_ctrl_c():
        pass
    _collect_with_dask_broken()
    assert dropped == [AssertionError, AssertionError]  # the collection's start and stop
