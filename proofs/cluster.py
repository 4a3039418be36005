"""The Dask cluster long jobs fan out over: a local one of N processes, or a running one.

Used by the explorer (one deal split over workers, or a task per deal) and by the commands that
run many independent tasks (`simulate`, `report`, `conform`, `findings --recompute`, `prove`):
`cluster` opens the cluster asked for (or none) and `run_tasks` maps a job's tasks over it, the
same code with or without one. Needs the `cluster` extra.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from arbitro.model.errors import ArbitroError


class ClusterError(ArbitroError, ValueError):
    """A cluster that cannot be started or reached as asked."""


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


T = TypeVar("T")


def check_workers(workers: int | None) -> None:
    """``--workers N``: 1 up to the cores here (None: not asked); more needs a cluster
    (``--scheduler``)."""
    if workers is None:
        return
    if workers < 1:
        raise ClusterError(f"--workers must be at least 1, got {workers}")
    cores = usable_cores()
    if workers > cores:
        raise ClusterError(
            f"--workers {workers} is more than the {cores} cores here; for more workers"
            " start a Dask cluster and pass --scheduler (docs/scaling.md)"
        )


@contextlib.contextmanager
def cluster(scheduler: str | None, workers: int | None) -> Iterator[Any]:
    """The Dask client asked for (`dask_client`), or None when neither ``scheduler`` nor
    ``workers`` is given: the tasks then run in this process (`run_tasks`)."""
    if not scheduler and not workers:
        yield None
        return
    with dask_client(scheduler, workers or 0) as client:
        yield client


def run_tasks(
    client: Any, fn: Callable[..., T], tasks: Sequence[tuple[Any, ...]], in_order: bool = True
) -> Iterator[tuple[int, T]]:
    """``fn(*task)`` of every task, with the task's index: one after another in this process
    without a ``client``; else on the cluster's workers, given back in task order (``in_order``)
    or as each finishes. When the caller stops early (Ctrl-C, an error, a failure it stops at)
    the tasks not yet done are cancelled. A task's exception is raised here as it was raised.
    Waiting on the workers, a Ctrl-C is raised here even where the interpreter dropped it
    (`ctrl_c_seen`)."""
    if client is None:
        for i, task in enumerate(tasks):
            yield i, fn(*task)
        return
    futures = []
    try:
        for task in tasks:
            futures.append(client.submit(fn, *task, pure=False))
            check_ctrl_c()
        if in_order:
            for i, fut in enumerate(futures):
                yield i, wait_result(fut)
        else:
            from dask.distributed import as_completed

            index = {fut.key: i for i, fut in enumerate(futures)}
            pending = as_completed(futures)  # type: ignore[no-untyped-call]
            while not pending.is_empty():  # type: ignore[no-untyped-call]
                _wait_until(pending.has_ready)
                for fut in pending.next_batch(block=False):  # type: ignore[no-untyped-call]
                    yield index[fut.key], fut.result()
    finally:
        with contextlib.suppress(Exception), _quiet_dask():
            client.cancel(futures)


def wait_result(future: Any) -> Any:
    """A Dask future's result, waited for so that Ctrl-C still ends the wait (`ctrl_c_seen`)."""
    _wait_until(future.done)
    return future.result()


def wait_gather(client: Any, futures: list[Any]) -> list[Any]:
    """``client.gather(futures)``, waited for so that Ctrl-C still ends the wait."""
    for fut in futures:
        _wait_until(fut.done)
    return list(client.gather(futures))


_CTRL_C = threading.Event()


def ctrl_c_seen() -> bool:
    """Whether Ctrl-C came while a cluster was open.

    Ctrl-C raises KeyboardInterrupt in whatever Python code the main thread runs at that
    instant, and while a cluster is open that is often a garbage-collector callback or a
    finaliser of Dask's, where the interpreter prints "Exception ignored" and drops it: the
    command would then wait for its workers as if nothing had happened. So while a cluster is
    open Ctrl-C is also noted here, and every wait on the workers (`run_tasks`, `wait_result`,
    `wait_gather`) raises KeyboardInterrupt once it is."""
    return _CTRL_C.is_set()


def check_ctrl_c() -> None:
    """KeyboardInterrupt if Ctrl-C came while the cluster was open (`ctrl_c_seen`)."""
    if _CTRL_C.is_set():
        raise KeyboardInterrupt


POLL_SECONDS = 0.05
"""The longest a wait on the workers goes without looking for a Ctrl-C the interpreter dropped
(it looks after 1 ms first, then less and less often)."""


def _wait_until(ready: Callable[[], bool]) -> None:
    pause = 0.001
    while not ready():
        check_ctrl_c()
        time.sleep(pause)
        pause = min(2 * pause, POLL_SECONDS)


@contextlib.contextmanager
def _noting_ctrl_c() -> Iterator[None]:
    """Ctrl-C noted (`ctrl_c_seen`) and raised as before, for the time of the block. Only the
    main thread can set a handler; where SIGINT is ignored or handled by someone else's
    function it is left as it is."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.getsignal(signal.SIGINT)
    if before is not signal.default_int_handler:
        yield
        return

    def note(sig: int, frame: object) -> None:
        _CTRL_C.set()
        raise KeyboardInterrupt

    unraisable = sys.unraisablehook

    def drop(u: Any) -> None:
        """The dropped Ctrl-C itself is noted, not printed; nor is what it left half-done in
        Dask's callbacks (its GC timer, interrupted between start and stop, then fails its
        own assertion at every collection)."""
        if issubclass(u.exc_type, KeyboardInterrupt):
            return
        if _CTRL_C.is_set() and _from_dask(u):
            return
        unraisable(u)

    signal.signal(signal.SIGINT, note)
    sys.unraisablehook = drop
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
        # after a Ctrl-C, Dask's GC timer stays broken for the rest of the process: it fails
        # again at collections while the cluster closes and the process exits
        sys.unraisablehook = _dropping_dask(unraisable) if _CTRL_C.is_set() else unraisable
        _CTRL_C.clear()


def _from_dask(u: Any) -> bool:
    return str(getattr(u.object, "__module__", "") or "").startswith("distributed")


def _dropping_dask(report: Callable[[Any], None]) -> Callable[[Any], None]:
    """`report`, except for what Dask's own callbacks fail with: what a Ctrl-C left half-done
    there (its GC timer interrupted between start and stop fails its assertion at every later
    collection) says nothing to the user."""

    def hook(u: Any) -> None:
        if not _from_dask(u):
            report(u)

    return hook


@contextlib.contextmanager
def dask_client(scheduler: str | None, workers: int) -> Iterator[Any]:
    """A Dask client: of a running scheduler at ``scheduler``, else of a local cluster of
    ``workers`` single-threaded processes, closed (and the cluster with it) on the way out.
    An address that is malformed or that no scheduler answers is an `ExploreError`."""
    cluster = None
    client = None
    try:
        if scheduler:
            Client, _ = _dask()
            try:
                client = Client(scheduler, timeout=CONNECT_TIMEOUT)
            except (ValueError, TypeError) as e:
                raise ClusterError(
                    f"--scheduler {scheduler!r} is not a Dask scheduler address"
                    f" (tcp://HOST:PORT): {str(e).splitlines()[0] if str(e) else e!r}"
                ) from None
            except OSError:
                raise ClusterError(
                    f"no Dask scheduler answered at {scheduler!r} within {CONNECT_TIMEOUT}"
                    " (start one with `dask scheduler`, see docs/scaling.md)"
                ) from None
        else:
            cluster, interrupted = _local_cluster(workers)
            if interrupted:
                raise KeyboardInterrupt  # held back while the workers started
            Client, _ = _dask()
            client = Client(cluster)
        with _noting_ctrl_c():
            yield client
    finally:
        # shutting down after an interrupt: quietly, whatever state the workers are in
        with contextlib.suppress(Exception), _quiet_dask():
            if client is not None:
                client.close()
            if cluster is not None:
                cluster.close()
                _stop_fork_server()


def _dask() -> tuple[Any, Any]:
    """Dask distributed's Client and LocalCluster, or a ClusterError saying how to get them."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(
            "fanning out needs Dask distributed: install arbitro with the 'cluster' extra"
        ) from None
    return Client, LocalCluster


def _local_cluster(workers: int) -> tuple[Any, bool]:
    """A local cluster of ``workers`` processes that never act on Ctrl-C themselves, and
    whether Ctrl-C came while it started.

    Ctrl-C reaches every process of the terminal, and only this one acts on it, by closing the
    cluster. The workers are forked from a fork server (which has Dask imported already, so they
    start at once) that was started with SIGINT ignored: it hands that to every worker, so a
    worker still starting never prints a KeyboardInterrupt traceback. This process ignores the
    signal only for the instant the server is started; while the workers start, a Ctrl-C is
    noted (never raised inside Dask's start-up, which would leave a half-made cluster) and the
    caller raises it once the cluster can be closed.
    """
    import logging
    import multiprocessing.forkserver
    import signal

    _, LocalCluster = _dask()
    import dask.config
    from distributed.utils import get_mp_context

    came: list[int] = []
    with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}):
        get_mp_context()  # type: ignore[no-untyped-call]  # sets what the fork server imports
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            multiprocessing.forkserver.ensure_running()
            signal.signal(signal.SIGINT, lambda sig, frame: came.append(sig))
            cluster = LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True,
                dashboard_address=":0", silence_logs=logging.CRITICAL,
            )  # fmt: skip
        except (OSError, RuntimeError) as e:  # a worker that did not start in time
            _stop_fork_server()
            raise ClusterError(
                f"could not start {workers} local Dask workers: {str(e).splitlines()[0]}"
            ) from None
        finally:
            signal.signal(signal.SIGINT, handler)
    return cluster, bool(came)


def _stop_fork_server() -> None:
    """The fork server of a local cluster ended and reaped with it (it would end by itself once
    this process ends, left a moment as a zombie)."""
    import multiprocessing.forkserver

    stop = getattr(getattr(multiprocessing.forkserver, "_forkserver", None), "_stop", None)
    if stop is not None:
        stop()


CONNECT_TIMEOUT = "10s"
"""How long to wait for a Dask scheduler to answer."""


@contextlib.contextmanager
def _quiet_dask() -> Iterator[None]:
    """Dask's loggers silenced (a cluster closed mid-task logs every cancelled task)."""
    import logging

    loggers = [logging.getLogger(n) for n in ("distributed", "tornado", "asyncio")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)
