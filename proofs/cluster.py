"""The Dask cluster long jobs fan out over: a local one of N processes, or a running one.

Used by the explorer (one deal split over workers, or a task per deal) and by the commands that
run many independent tasks (`simulate --workers`). Needs the `cluster` extra.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from arbitro.model.errors import ArbitroError


class ClusterError(ArbitroError, ValueError):
    """A cluster that cannot be started or reached as asked."""


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def check_workers(workers: int) -> None:
    """``--workers N``: 0 (none) up to the cores here; more needs a cluster (``--scheduler``)."""
    if workers < 0:
        raise ClusterError(f"--workers must be 0 or more, got {workers}")
    cores = usable_cores()
    if workers > cores:
        raise ClusterError(
            f"--workers {workers} is more than the {cores} cores here; for more workers"
            " start a Dask cluster and pass --scheduler (docs/scaling.md)"
        )


@contextlib.contextmanager
def dask_client(scheduler: str | None, workers: int) -> Iterator[Any]:
    """A Dask client: of a running scheduler at ``scheduler``, else of a local cluster of
    ``workers`` single-threaded processes, closed (and the cluster with it) on the way out.
    An address that is malformed or that no scheduler answers is an `ExploreError`."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError(
            "fanning out needs Dask distributed: install arbitro with the 'cluster' extra"
        ) from None
    cluster = None
    client = None
    try:
        if scheduler:
            try:
                client = Client(scheduler, timeout=CONNECT_TIMEOUT)  # type: ignore[no-untyped-call]
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
            # the workers are started with Ctrl-C blocked (a child keeps the signal mask): it
            # reaches every process of the terminal, and only this one acts on it, by closing
            # the cluster
            import logging
            import signal

            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                cluster = LocalCluster(  # type: ignore[no-untyped-call]
                    n_workers=workers, threads_per_worker=1, processes=True,
                    dashboard_address=":0", silence_logs=logging.CRITICAL,
                )  # fmt: skip
            except (OSError, RuntimeError) as e:  # a worker that did not start in time
                raise ClusterError(
                    f"could not start {workers} local Dask workers: {str(e).splitlines()[0]}"
                ) from None
            finally:
                # a Ctrl-C while the workers started was held back: it is raised here
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
            client = Client(cluster)  # type: ignore[no-untyped-call]
        yield client
    finally:
        # shutting down after an interrupt: quietly, whatever state the workers are in
        with contextlib.suppress(Exception), _quiet_dask():
            if client is not None:
                client.close()  # type: ignore[no-untyped-call]
            if cluster is not None:
                cluster.close()


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
